#!/usr/bin/env bash
# select-bench.sh — the accuracy experiment of model-based selection (issue
# 12, item 7): the paper's Tables 2-3 and Figs. 4-7 for papcoll.
#
# Per platform (shared memory, and the emulated cluster of testbed/run):
#   1. fit: one run of papc-tune writes DIR/<platform>/profile.json, and
#      papc-tune --export-ompi turns it into Open MPI's dynamic rules file
#      DIR/<platform>/ompi-rules.txt;
#   2. judge, in other runs: for each P, papc-select-bench times every
#      algorithm, the plain call under the model and under the fixed rules,
#      and native MPI_<Coll> (DIR/<platform>/P<P>.csv); then native alone
#      with the exported rules and native alone with Open MPI's defaults,
#      alternated (rules, default, default, rules, ...) so that drift of the
#      machine falls on both alike (P<P>-native_rules-<k>.csv,
#      P<P>-native_alone-<k>.csv);
#   3. papc-report select DIR: the tables, the goals' summary and the
#      figures (DIR/report/).
# Every papc-select-bench run preloads scripts/ompi-coll-probe.c (built
# here with cc), which records the algorithm Open MPI ran for each native
# cell (under its defaults and under the rules), so the report can tell
# where papcoll has Open MPI's algorithm and that the rules file was
# applied.
# Shared memory: P in 4 8 12 16 under mpirun --oversubscribe; the cluster:
# P in 8 16 on 8 hosts (16 = two ranks per host), profile tuned there with
# 16 ranks.  The cluster needs root (testbed/run).
#
# Usage: scripts/select-bench.sh [options]
#   -o DIR            results (default select-bench-<UTC date>)
#   -b DIR            build directory with bin/ (default build)
#   --shm-only        only shared memory
#   --cluster-only    only the emulated cluster
#   -P LIST           shared-memory process counts (default 4,8,12,16)
#   --cluster-P LIST  cluster process counts (default 8,16)
#   --hosts N         cluster hosts (default 8)
#   -c LIST           collectives (default gather,scatter,bcast,reduce,allreduce)
#   -m LIST           sizes (default: papc-select-bench's ten, 8 B to 4 MiB)
#   -i N              most timed rounds per cell (default 50)
#   --budget S        seconds of timed rounds per cell (default 2)
#   --rounds N        native rules/default pairs per P (default 2: ABBA)
#   --profile FILE    shared memory: judge this profile, do not tune
#   --cluster-profile FILE   the same for the cluster
#   --quick           smoke test: papc-tune --quick, papc-select-bench
#                     --quick, P = 4 (shm) and 8 (cluster), one pair
#                     (also QUICK=1 in the environment)
#   --no-report       skip papc-report
# Environment: TIMEOUT (seconds per run, default 7200), MPIRUN_ARGS (extra
# mpirun arguments on shared memory).  Progress goes to stderr, every
# command to DIR/commands.log.
set -euo pipefail

root_dir=$(cd "$(dirname "$0")/.." && pwd)
build=$root_dir/build
out=""
do_shm=1
do_cluster=1
shm_procs=4,8,12,16
cluster_procs=8,16
hosts=8
colls=""
sizes=""
iters=""
budget=""
rounds=""
shm_profile=""
cluster_profile=""
quick=${QUICK:-0}
report=1
tmo=${TIMEOUT:-7200}

die() { echo "select-bench: $*" >&2; exit 1; }
say() { echo "select-bench: $*" >&2; }
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift 2 ;;
    -b) build=$2; shift 2 ;;
    --shm-only) do_cluster=0; shift ;;
    --cluster-only) do_shm=0; shift ;;
    -P) shm_procs=$2; shift 2 ;;
    --cluster-P) cluster_procs=$2; shift 2 ;;
    --hosts) hosts=$2; shift 2 ;;
    -c) colls=$2; shift 2 ;;
    -m) sizes=$2; shift 2 ;;
    -i) iters=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --profile) shm_profile=$2; shift 2 ;;
    --cluster-profile) cluster_profile=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --no-report) report=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (try --help)" ;;
  esac
done
[ "$do_shm" = 1 ] || [ "$do_cluster" = 1 ] || die "--shm-only and --cluster-only exclude each other"
case $rounds in *[!0-9]*) die "--rounds needs a number" ;; esac

build=$(cd "$build" && pwd) || die "no build directory $build"
bench=$build/bin/papc-select-bench
tune=$build/bin/papc-tune
[ -x "$bench" ] || die "$bench not found: build first (make build, or -b DIR)"
if [ "$quick" = 1 ]; then
  [ "$shm_procs" != 4,8,12,16 ] || shm_procs=4
  [ "$cluster_procs" != 8,16 ] || cluster_procs=8
  [ -n "$rounds" ] || rounds=1
fi
[ -n "$rounds" ] || rounds=2
need_tune() {
  [ -n "$1" ] || [ -x "$tune" ] || die "$tune not found (papc-tune, issue 12 item 3): build it, or pass --profile / --cluster-profile"
}
[ "$do_shm" = 0 ] || need_tune "$shm_profile"
[ "$do_cluster" = 0 ] || need_tune "$cluster_profile"
if [ "$do_cluster" = 1 ] && [ "$(id -u)" != 0 ]; then
  die "the emulated cluster needs root (testbed/run); run as root or pass --shm-only"
fi

[ -n "$out" ] || out=select-bench-$(date -u +%Y%m%dT%H%MZ)
mkdir -p "$out"
out=$(cd "$out" && pwd)
log=$out/commands.log

bench_args=()
[ "$quick" = 0 ] || bench_args+=(--quick)
[ -z "$colls" ] || bench_args+=(-c "$colls")
[ -z "$sizes" ] || bench_args+=(-m "$sizes")
[ -z "$iters" ] || bench_args+=(-i "$iters")
[ -z "$budget" ] || bench_args+=(--budget "$budget")
tune_args=()
[ "$quick" = 0 ] || tune_args+=(--quick)
[ -z "$colls" ] || tune_args+=(--collectives "$colls")

mpirun_shm=(mpirun --oversubscribe --allow-run-as-root --mca mpi_yield_when_idle 1)
rules_mca=(--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename)

# Runs a command with the time limit, logging it; returns its status.
run() {
  printf '%q ' "$@" >>"$log"
  echo >>"$log"
  local rc=0
  timeout "$tmo" "$@" </dev/null || rc=$?
  [ "$rc" = 0 ] || say "exit $rc: $*"
  return "$rc"
}

{
  echo "# select-bench.sh $(date -u '+%Y-%m-%dT%H:%M:%SZ') on $(hostname)," \
       "$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'))," \
       "$(ompi_info --version 2>/dev/null | head -1)"
  echo "# load before: $(cat /proc/loadavg)"
} >>"$log"
start=$(date +%s)
failures=0

# Open MPI's algorithm per native call (LD_PRELOAD, x86-64 only).
probe=$out/ompi-coll-probe.so
if ! cc -O2 -shared -fPIC -o "$probe" "$root_dir/scripts/ompi-coll-probe.c" \
     >"$out/ompi-coll-probe.log" 2>&1; then
  say "cannot build the Open MPI probe (see $out/ompi-coll-probe.log): Open MPI's algorithms are not recorded"
  probe=""
fi
preload=()
[ -z "$probe" ] || preload=(LD_PRELOAD="$probe")

# The rules file from a profile (papc-tune --profile P --export-ompi F).
export_rules() {
  local profile=$1 rules=$2
  if run "$tune" --profile "$profile" --export-ompi "$rules" \
       >"${rules%.txt}-export.log" 2>&1 && [ -s "$rules" ]; then
    return 0
  fi
  say "no Open MPI rules from $profile (see ${rules%.txt}-export.log): the native_rules runs are skipped"
  rm -f "$rules"
  return 1
}

# Launchers: NP, RULES (a rules file, or "" for Open MPI's defaults), then
# the command.
launch_shm() {
  local np=$1 rules=$2; shift 2
  local -a mca=()
  [ -z "$rules" ] || mca=("${rules_mca[@]}" "$rules")
  # shellcheck disable=SC2086
  run "${mpirun_shm[@]}" ${MPIRUN_ARGS:-} -n "$np" "${mca[@]}" "$@"
}
launch_cluster() {
  local np=$1 rules=$2; shift 2
  local -a mca=()
  local a
  if [ -n "$rules" ]; then
    for a in "${rules_mca[@]}" "$rules"; do mca+=(--mpirun-arg "$a"); done
  fi
  run "$root_dir/testbed/run" -n "$hosts" --build "$build" --np "$np" \
      "${mca[@]}" -- "$@"
}

# One judged P on one platform: the full benchmark, then native alone with
# the exported rules and with Open MPI's defaults, alternated (rules first
# in odd pairs, defaults first in even ones: ABBA...).
judge_p() {
  local launcher=$1 dir=$2 np=$3 profile=$4 rules=$5
  local name k which order use what
  name=$(basename "$dir")
  say "$name P=$np: every variant ..."
  "$launcher" "$np" "" env "${preload[@]}" PAPC_PROFILE="$profile" "$bench" \
      "${bench_args[@]}" --csv "$dir/P$np.csv" \
      >"$dir/P$np.txt" 2>"$dir/P$np.err" || failures=$((failures + 1))
  for k in $(seq 1 "$rounds"); do
    if [ $((k % 2)) = 1 ]; then order="rules alone"; else order="alone rules"; fi
    for which in $order; do
      use="" what="Open MPI's defaults"
      if [ "$which" = rules ]; then
        [ -s "$rules" ] || continue
        use=$rules what="the exported rules"
      fi
      say "$name P=$np: native alone, $what ($k/$rounds) ..."
      "$launcher" "$np" "$use" env "${preload[@]}" "$bench" \
          "${bench_args[@]}" --native-only --native-name "native_$which" \
          --csv "$dir/P$np-native_$which-$k.csv" \
          >"$dir/P$np-native_$which-$k.txt" 2>&1 || failures=$((failures + 1))
    done
  done
}

# Tune (unless a profile was given), export, judge every P.
platform() {
  local name=$1 launcher=$2 procs=$3 given=$4
  local dir=$out/$name pmax profile rules np
  mkdir -p "$dir"
  pmax=$(tr ',' '\n' <<<"$procs" | sort -n | tail -1)
  profile=${given:-$dir/profile.json}
  if [ -z "$given" ]; then
    say "$name: tuning with $pmax ranks (papc-tune) ..."
    "$launcher" "$pmax" "" "$tune" "${tune_args[@]}" -o "$profile" \
        --csv "$dir/tune.csv" >"$dir/tune.log" 2>&1 \
      || die "papc-tune failed ($name, see $dir/tune.log)"
  fi
  [ -s "$profile" ] || die "no profile $profile"
  rules=$dir/ompi-rules.txt
  export_rules "$profile" "$rules" || true
  for np in ${procs//,/ }; do
    judge_p "$launcher" "$dir" "$np" "$profile" "$rules"
  done
}

[ "$do_shm" = 0 ] || platform shm launch_shm "$shm_procs" "$shm_profile"
[ "$do_cluster" = 0 ] || platform cluster launch_cluster "$cluster_procs" "$cluster_profile"

echo "# load after: $(cat /proc/loadavg); whole run $(( $(date +%s) - start )) s" >>"$log"
say "runs done in $(( $(date +%s) - start )) s, $failures failed; data in $out"
if [ "$report" = 1 ]; then
  "$build/bin/papc-report" select "$out" -o "$out/report" | tee "$out/report.txt" \
    || failures=$((failures + 1))
fi
[ "$failures" = 0 ]
