#!/usr/bin/env bash
# example-fft.sh — the parallel FFT with a master (examples/fft, issue 14)
# with native MPI_Scatter/MPI_Gather, papcoll's classic algorithms, the
# arrival-aware ones and the plain call, repetitions alternated, on this
# machine (shared memory) or, with --cluster, on the emulated 8-host
# 1 Gbit/s Ethernet cluster (testbed/run, needs root), or, with --smpi, in
# SimGrid SMPI on that cluster's calibrated platform (sim/platforms/
# calib8.xml) where every simulated host has a core of its own: the FFTs and
# the master's preparation are timed on this machine's CPU (thread CPU time)
# and charged to their host (fft_master calls smpi_execute), papcoll's own
# work and the monitors' are not.
#
# Usage: scripts/example-fft.sh [options] [-- more fft_master options]
#   --cluster     run under testbed/run (one rank per host)
#   --smpi        run under sim/run on calib8.xml (default build: build-smpi,
#                 `make smpi`); SMPI_PLATFORM overrides the platform
#   -b DIR        build directory holding bin/fft_master (default build)
#   -n P          ranks (default 4 here, 8 with --cluster)
#   -r N          repetitions of every pair, alternated (default 5)
#   -o DIR        results directory (default results-fft[-cluster])
#   --size N      signal length (default 256Ki: 4 MiB of complex doubles)
#   --iters I     timed iterations per run (default 30)
#   --pairs LIST  "scatter/gather" pairs, comma-separated (default below)
# First every pair runs 2 iterations with --check (a wrong result stops the
# script), then the timed runs append to DIR/fft.csv; the summary (median
# over the repetitions, ratio to native) goes to stdout and DIR/summary.txt.
# Environment: TIMEOUT (seconds per run, default 300), MPIRUN_ARGS.
set -euo pipefail

root_dir=$(cd "$(dirname "$0")/.." && pwd)
build=$root_dir/build
cluster=0 smpi=0 np="" reps=5 out="" size=256Ki iters=30
pairs="native/native,basic_linear/linear_sync,sorted_linear/sorted_linear_sync"
pairs+=",background_sorted_linear/background_sorted_linear_sync"
pairs+=",native/background_sorted_linear_sync,plain/plain"
tmo=${TIMEOUT:-300}
extra=()

die() { echo "example-fft: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
  case "$1" in
    --cluster) cluster=1; shift ;;
    --smpi) smpi=1; build=$root_dir/build-smpi; shift ;;
    -b) build=$2; shift 2 ;;
    -n) np=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --pairs) pairs=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (--help)" ;;
  esac
done
build=$(cd "$build" && pwd)
exe=$build/bin/fft_master
[ -x "$exe" ] || die "$exe not built (needs FFTW: scripts/setup-deps.sh, make build)"
[ $smpi = 1 ] && [ $cluster = 1 ] && die "--cluster or --smpi, not both"
[ -n "$np" ] || np=$([ $cluster = 1 ] || [ $smpi = 1 ] && echo 8 || echo 4)
[ -n "$out" ] || out=results-fft$([ $cluster = 1 ] && echo -cluster || true)$([ $smpi = 1 ] && echo -smpi || true)
if [ $cluster = 1 ] && [ "$(id -u)" -ne 0 ]; then
  die "the emulated cluster needs root (network namespaces): sudo $0 --cluster"
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
csv=$out/fft.csv
rm -f "$csv"

# run ARGS...: one fft_master run, here or on the emulated cluster.
run() {
  if [ $cluster = 1 ]; then
    timeout "$tmo" "$root_dir/testbed/run" -n "$np" --build "$build" -- \
      "$exe" "$@"
  elif [ $smpi = 1 ]; then
    # 1 s of this machine's CPU = 1 s on a simulated host of speed 1 Gf
    "$root_dir/sim/run" -p "${SMPI_PLATFORM:-calib8}" -n "$np" --build "$build" \
      --timeout "$tmo" --cfg smpi/host-speed:1Gf -- "$exe" "$@"
  else
    # shellcheck disable=SC2086
    timeout "$tmo" mpirun --oversubscribe --allow-run-as-root \
      --mca mpi_yield_when_idle 1 ${MPIRUN_ARGS:-} -n "$np" "$exe" "$@"
  fi
}

# the CSV's tag: the repetition and the load (simulated time does not
# depend on the load; smpirun would split a tag with spaces)
tag() {
  if [ $smpi = 1 ]; then echo "rep$1"; else echo "rep$1 load $(cut -d" " -f1 /proc/loadavg)"; fi
}

IFS=, read -r -a pair_list <<< "$pairs"
where=$([ $cluster = 1 ] && echo "emulated cluster, $np hosts" || echo "shared memory, $np ranks")
[ $smpi = 1 ] && where="SMPI, ${SMPI_PLATFORM:-calib8}, $np hosts"
echo "example-fft: $where; n=$size, $iters iterations, $reps repetitions;" \
     "$(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2

for p in "${pair_list[@]}"; do
  sc=${p%/*} ga=${p#*/}
  run --n "$size" --iters 2 --warmup 0 --check --scatter "$sc" --gather "$ga" \
    "${extra[@]}" > "$out/check-${sc}-${ga}.txt" 2>&1 ||
    die "check failed for $p (see $out/check-${sc}-${ga}.txt)"
  grep -h "check:" "$out/check-${sc}-${ga}.txt" | sed "s|^ *|  $p: |" >&2
done

for r in $(seq 1 "$reps"); do
  for p in "${pair_list[@]}"; do
    sc=${p%/*} ga=${p#*/}
    run --n "$size" --iters "$iters" --scatter "$sc" --gather "$ga" \
      --csv "$csv" --tag "$(tag "$r")" \
      "${extra[@]}" >> "$out/runs.txt" 2>&1 ||
      die "run failed: $p (see $out/runs.txt)"
    tail -n 1 "$csv" | awk -F, -v p="$p" -v r="$r" \
      '{printf "  rep %s %-55s total %.3f s, spread %.1f ms\n", r, p, $10, $20}' >&2
  done
done

python3 - "$csv" "$where" <<'EOF' | tee "$out/summary.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    by.setdefault((r["scatter"], r["gather"]), []).append(r)
def med(rs, k): return statistics.median(float(r[k]) for r in rs)
base = by.get(("native", "native"))
r0 = rows[0]
print(f"parallel FFT with a master, {sys.argv[2]}: P={r0['P']} n={r0['n']} "
      f"batch={r0['batch']} split={r0['split']} skew={r0['skew']}, "
      f"{r0['iters']} iterations per run, median of {len(base or rows)} runs")
loads = [float(r["tag"].split()[-1]) for r in rows if "load" in r["tag"]]
if loads:
    print(f"load average at the runs' starts: median {statistics.median(loads):.1f}"
          f" (min {min(loads):.1f}, max {max(loads):.1f})")
print(f"{'scatter / gather':58} {'total s':>8} {'vs native':>9} {'iter ms':>8} "
      f"{'spread ms':>9} {'max':>6} {'master late':>11} {'gather root':>11}")
for (sc, ga), rs in by.items():
    t = med(rs, "total_s")
    ratio = f"{t / med(base, 'total_s'):.3f}" if base else "-"
    print(f"{sc + ' / ' + ga:58} {t:8.3f} {ratio:>9} {med(rs, 'iter_ms'):8.2f} "
          f"{med(rs, 'spread_mean_ms'):9.2f} {med(rs, 'spread_max_ms'):6.1f} "
          f"{med(rs, 'root_late_mean_ms'):11.2f} {med(rs, 'root_gather_ms'):11.2f}")
sums = {r["checksum"] for r in rows}
print("power checksum the same in every run: " + ("yes" if len(sums) == 1 else
      f"NO ({len(sums)} values)"))
sys.exit(0 if len(sums) == 1 else 1)
EOF
