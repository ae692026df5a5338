#!/usr/bin/env bash
# `make example-training`: examples/training/train.py with native
# MPI_Allreduce and papcoll's algorithms, alternated over repetitions; checks
# that every run's loss curve agrees with the first native run's
# (examples/training/compare.py states the tolerance) and prints a table of
# medians.  Exits 1 when a run fails or a loss curve differs.
#
# Usage: scripts/example-training.sh [options] [-- train.py options]
#   -n P               processes (default 4; 8 with --cluster)
#   --reps N           repetitions of every algorithm (default 3)
#   --algorithms LIST  comma-separated (default native,ring,pre_reduced_ring,
#                      sorted_linear_tree,clairvoyant,plain)
#   --out DIR          runs.csv, curves and table.txt (default results-training)
#   --build DIR        papcoll's build (default $PAPC_BUILD_DIR or build)
#   --cluster          on the emulated 1 Gbit/s cluster, one host per rank
#                      (testbed/run; root)
#   --tiny             a few seconds: the ctest size
#   --wait-load L      before each run, wait (up to 30 min) until the 1-minute
#                      load average is below L: on a shared machine, other
#                      jobs' load changes the timings (each CSV line records it)
#   --pause-file F     before each run, wait while file F exists (a lock that
#                      other benchmarks of the machine hold)
# train.py options after -- replace the default workload (--skew 1 --epochs 20).
# MPIEXEC names the launcher (default mpirun); PYTHON the interpreter that has
# mpi4py, numpy and scikit-learn (default /usr/bin/python3, Debian's).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
nprocs="" reps=3 out=results-training cluster=0 tiny=0 wait_load="" pause_file=""
algs=native,ring,pre_reduced_ring,sorted_linear_tree,clairvoyant,plain
build=${PAPC_BUILD_DIR:-$here/build}
workload=(--skew 1 --epochs 20)
while [ $# -gt 0 ]; do
  case $1 in
    -n) nprocs=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --algorithms) algs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --cluster) cluster=1; shift ;;
    --tiny) tiny=1; shift ;;
    --wait-load) wait_load=$2; shift 2 ;;
    --pause-file) pause_file=$2; shift 2 ;;
    --) shift; workload=("$@"); break ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "example-training: unknown option $1 (--help)" >&2; exit 2 ;;
  esac
done
[ -n "$nprocs" ] || nprocs=$([ $cluster = 1 ] && echo 8 || echo 4)
[ $tiny = 1 ] && workload=(--skew 1 --epochs 3 --hidden 64 --batch 64)
python=${PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
if ! "$python" -c 'import mpi4py, numpy, sklearn' 2>/dev/null; then
  echo "SKIP: $python lacks mpi4py, numpy or scikit-learn (scripts/setup-deps.sh)" >&2
  exit 77
fi
build=$(cd "$build" && pwd)
export PYTHONPATH="$here/python${PYTHONPATH:+:$PYTHONPATH}"
export PAPCOLL_LIB=${PAPCOLL_LIB:-$build/lib/libpapcoll.so}
if [ $cluster = 1 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "example-training: the emulated cluster needs root (sudo)" >&2
    exit 1
  fi
  launch=("$here/testbed/run" -n "$nprocs" --build "$build" --) # a host per rank
else
  launch=(${MPIEXEC:-mpirun} --oversubscribe --allow-run-as-root
          --mca mpi_yield_when_idle 1 -n "$nprocs")
fi
wait_for_load() {
  local t
  for ((t = 0; t < 1800; t += 10)); do
    awk -v max="$1" '{exit !($1 < max)}' /proc/loadavg && return 0
    sleep 10
  done
  echo "example-training: load average still >= $1 after 30 min; running anyway" >&2
}
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/runs.csv" "$out"/curve-*.txt
IFS=, read -r -a alist <<<"$algs"
n=${#alist[@]}
echo "== training on P = $nprocs$([ $cluster = 1 ] && echo ', emulated cluster'):" \
     "${alist[*]}, $reps repetitions; train.py ${workload[*]}"
for ((rep = 1; rep <= reps; rep++)); do
  for ((k = 0; k < n; k++)); do
    a=${alist[$(((k + rep - 1) % n))]} # rotated: drift falls on all alike
    curve="$out/curve-$a-$rep.txt"
    while [ -n "$pause_file" ] && [ -e "$pause_file" ]; do sleep 10; done
    [ -z "$wait_load" ] || wait_for_load "$wait_load"
    if ! "${launch[@]}" "$python" "$here/examples/training/train.py" -a "$a" \
         "${workload[@]}" --csv "$out/runs.csv" --curve "$curve" \
         --label "rep$rep" -q; then
      echo "example-training: the $a run (repetition $rep) failed" >&2
      exit 1
    fi
  done
done
ref="$out/curve-${alist[0]}-1.txt"
[ -e "$out/curve-native-1.txt" ] && ref="$out/curve-native-1.txt"
status=0
if "$python" "$here/examples/training/compare.py" curves "$ref" \
     "$out"/curve-*.txt >"$out/curves.txt"; then
  tail -n 1 "$out/curves.txt"
else
  grep -v ' agrees$' "$out/curves.txt"
  status=1
fi
echo
"$python" "$here/examples/training/compare.py" table "$out/runs.csv" \
  | tee "$out/table.txt"
echo "example-training: $out/runs.csv, table.txt, curves.txt"
exit $status
