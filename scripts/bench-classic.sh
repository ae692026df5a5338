#!/usr/bin/env bash
# bench-classic.sh — papcoll's classic algorithms against Open MPI's own
# implementation of the same algorithm (issue 2, item 7).
#
# For each (collective, papcoll algorithm, Open MPI algorithm) pair it runs
# build/bin/papc-classic-bench under mpirun with the Open MPI algorithm forced
#   --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_<coll>_algorithm N
# (plus the segment size / chain fanout papcoll uses, so both sides run the
# same schedule), and prints a Markdown table on stdout; progress goes to
# stderr.  Open MPI's algorithm numbers are looked up by name in ompi_info
# at run time, so a renumbering cannot silently pair the wrong algorithms.
#
# Usage: scripts/bench-classic.sh [options] > table.md
#   -b DIR      build directory holding bin/papc-classic-bench (default build)
#   -n P        ranks (default 8)
#   -s LIST     sizes in bytes, K/M suffixes (default 64K,4M)
#   -i N        timed iterations for sizes < 1 MiB (default 300)
#   -I N        timed iterations for sizes >= 1 MiB (default 40)
#   -x N        warm-up iterations (default 10)
#   -c LIST     only these collectives (comma-separated)
#   --csv FILE  also keep the raw rows of the benchmark (appended)
# Environment: SEG (segment size in bytes for segmented algorithms, both
# sides; default 8192, papcoll's default), FIRST (gather linear_sync first
# part, both sides; default 1024, papcoll's default), MPIRUN_ARGS (extra
# mpirun arguments), TIMEOUT (seconds per mpirun, default 300).
set -euo pipefail

root_dir=$(cd "$(dirname "$0")/.." && pwd)
build=$root_dir/build
np=8
sizes=64K,4M
iters=300
large_iters=40
warmup=10
only=""
csv_keep=""
seg=${SEG:-8192}
first=${FIRST:-1024}
tmo=${TIMEOUT:-300}

die() { echo "bench-classic: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
  case "$1" in
    -b) build=$2; shift 2 ;;
    -n) np=$2; shift 2 ;;
    -s) sizes=$2; shift 2 ;;
    -i) iters=$2; shift 2 ;;
    -I) large_iters=$2; shift 2 ;;
    -x) warmup=$2; shift 2 ;;
    -c) only=$2; shift 2 ;;
    --csv) csv_keep=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (try --help)" ;;
  esac
done

bench=$build/bin/papc-classic-bench
[ -x "$bench" ] || die "$bench not found: run 'make build' (or pass -b DIR)"
command -v ompi_info >/dev/null || die "ompi_info not found: this compares with Open MPI"
ompi_params=$(ompi_info --param coll tuned --level 9 --parsable)

# Open MPI's number of algorithm NAME of collective COLL, from ompi_info.
ompi_alg_number() {
  local n
  n=$(awk -F: -v p="coll_tuned_$1_algorithm" -v name="$2" \
        '$5 == p && $6 == "enumerator" && $9 == name { print $8 }' <<<"$ompi_params")
  [ -n "$n" ] || die "ompi_info lists no $1 algorithm named '$2'"
  echo "$n"
}
# Dies unless Open MPI knows MCA parameter NAME (a typo would be ignored).
need_param() {
  grep -q ":$1:" <<<"$ompi_params" || die "ompi_info has no parameter $1"
}

# collective | papcoll algorithm | Open MPI algorithm name ("default": no
# forcing, Open MPI's own choice of another algorithm; "coll_basic": Open
# MPI 4.1's tuned component has no gatherv/scatterv, MPI_Gatherv/Scatterv
# run coll/basic's linear algorithm) | what to match: seg (segment size),
# fanout4 (chain fanout 4), first (linear_sync first part), - (nothing)
pairs="
gather    basic_linear       basic_linear       -
gather    binomial           binomial           -
gather    linear_sync        linear_sync        first
scatter   basic_linear       basic_linear       -
scatter   binomial           binomial           -
scatter   linear_nb          linear_nb          -
bcast     basic_linear       basic_linear       -
bcast     chain              pipeline           seg
bcast     k_chain            chain              seg,fanout4
bcast     binary             binary_tree        seg
bcast     split_binary       split_binary_tree  seg
bcast     binomial           binomial           seg
reduce    basic_linear       linear             -
reduce    binomial           binomial           seg
reduce    rabenseifner       rabenseifner       -
reduce    ring               default            -
allreduce basic_linear       basic_linear       -
allreduce recursive_doubling recursive_doubling -
allreduce ring               ring               -
allreduce segmented_ring     segmented_ring     seg
allreduce rabenseifner       rabenseifner       -
gatherv   basic_linear       coll_basic         -
scatterv  basic_linear       coll_basic         -
"

human_size() {
  local b=$1
  if [ $((b % 1048576)) -eq 0 ]; then echo "$((b / 1048576)) MiB"
  elif [ $((b % 1024)) -eq 0 ]; then echo "$((b / 1024)) KiB"
  else echo "$b B"; fi
}

tmpdir=$(mktemp -d)
trap 'rm -rf "$tmpdir"' EXIT
start=$(date +%s)

echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores" \
     "($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')), P = $np," \
     "$(ompi_info --version 2>/dev/null | head -1 | sed 's/ *http.*//')," \
     "segments $seg B, linear_sync first part $first B;" \
     "$iters timed iterations below 1 MiB, $large_iters from 1 MiB, $warmup warm-up."
echo
echo "| collective | papcoll algorithm | Open MPI algorithm | size | papcoll median (µs) | Open MPI median (µs) | ratio | within 15 %? |"
echo "|---|---|---|---|---:|---:|---:|---|"

while read -r coll alg ompi match; do
  [ -n "$coll" ] || continue
  if [ -n "$only" ] && [[ ",$only," != *",$coll,"* ]]; then continue; fi

  mca=()
  if [ "$ompi" = default ]; then
    label="Open MPI's default choice (it has no $alg)"
  elif [ "$ompi" = coll_basic ]; then
    label="linear (coll/basic; tuned has no $coll)"
  else
    num=$(ompi_alg_number "$coll" "$ompi")
    label="$ompi ($num)"
    need_param "coll_tuned_${coll}_algorithm"
    mca+=(--mca coll_tuned_use_dynamic_rules 1
          --mca "coll_tuned_${coll}_algorithm" "$num")
    for m in ${match//,/ }; do
      case "$m" in
        seg)
          need_param "coll_tuned_${coll}_algorithm_segmentsize"
          mca+=(--mca "coll_tuned_${coll}_algorithm_segmentsize" "$seg")
          label="$label, seg $(human_size "$seg")" ;;
        first)
          need_param "coll_tuned_${coll}_algorithm_segmentsize"
          mca+=(--mca "coll_tuned_${coll}_algorithm_segmentsize" "$first")
          label="$label, first part $first B" ;;
        fanout4)
          need_param "coll_tuned_${coll}_algorithm_chain_fanout"
          mca+=(--mca "coll_tuned_${coll}_algorithm_chain_fanout" 4)
          label="$label, fanout 4" ;;
        -) ;;
        *) die "bad match word $m" ;;
      esac
    done
  fi

  csv=$tmpdir/$coll-$alg.csv
  echo "bench-classic: $coll $alg vs $label ..." >&2
  set +e
  # shellcheck disable=SC2086
  timeout "$tmo" mpirun --oversubscribe --allow-run-as-root \
      --mca mpi_yield_when_idle 1 -np "$np" ${MPIRUN_ARGS:-} "${mca[@]}" \
      -x PAPC_SEGSIZE="$seg" -x PAPC_GATHER_FIRST_SEGMENT="$first" \
      "$bench" --coll "$coll" --alg "$alg" --sizes "$sizes" \
      -i "$iters" --large-iterations "$large_iters" -x "$warmup" \
      --csv "$csv" </dev/null >"$tmpdir/$coll-$alg.out" 2>&1
  rc=$?
  set -e
  cat "$tmpdir/$coll-$alg.out" >&2
  [ -z "$csv_keep" ] || [ ! -f "$csv" ] || tail -n +2 "$csv" >>"$csv_keep"

  # one table row per size the benchmark reported
  reported=0
  if [ -f "$csv" ]; then
    # collective,algorithm,P,root,bytes,iterations,papc median,mean,min,
    # mpi median,mean,min,ratio,status,settings
    while IFS=, read -r _ _ _ _ bytes _ pmed _ _ mmed _ _ ratio status _; do
      reported=$((reported + 1))
      size=$(human_size "$bytes")
      case "$status" in
        ok)
          verdict=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.15) ? "yes" : "**no**" }')
          [ "$ompi" != default ] || verdict="n/a (other algorithm)"
          printf '| %s | %s | %s | %s | %.0f | %.0f | %.2f | %s |\n' \
            "$coll" "$alg" "$label" "$size" "$pmed" "$mmed" "$ratio" "$verdict" ;;
        "not available")
          printf '| %s | %s | %s | %s | not available | %.0f | — | — |\n' \
            "$coll" "$alg" "$label" "$size" "$mmed" ;;
        *)
          printf '| %s | %s | %s | %s | %s | %.0f | — | — |\n' \
            "$coll" "$alg" "$label" "$size" "$status" "$mmed" ;;
      esac
    done < <(tail -n +2 "$csv")
  fi
  nsizes=$(awk -F, '{ print NF }' <<<"$sizes")
  if [ "$reported" -lt "$nsizes" ]; then
    printf '| %s | %s | %s | %s | run failed (exit %d, see stderr) | — | — | — |\n' \
      "$coll" "$alg" "$label" "$([ "$reported" -eq 0 ] && echo all || echo rest)" "$rc"
  fi
done <<<"$pairs"

echo
echo "Ratio = papcoll median / Open MPI median; each iteration's time is the" \
     "maximum over ranks; papcoll and Open MPI calls alternate within one run." \
     "Whole run: $(( $(date +%s) - start )) s."
