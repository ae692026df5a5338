#!/bin/sh
# ctest tool_papc_select_bench_quick: a quick profile (papc-tune --quick),
# then papc-select-bench --quick on P = 4, two collectives and two sizes,
# with scripts/ompi-coll-probe.c preloaded, and check_csv.py: every
# variant of every cell is in the CSV, native rows name Open MPI's
# algorithm.  Exit 77 (skipped) while papc-tune is not built.
#   quick.sh BINDIR MPIEXEC [MPIEXEC FLAGS...]
set -eu
bin=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$bin/papc-tune" ]; then
  echo "quick.sh: $bin/papc-tune not built: skipped"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
colls=bcast,allreduce
"$@" -n 4 "$bin/papc-tune" --quick --collectives "$colls" \
    -o "$tmp/profile.json" >"$tmp/tune.log" 2>&1 || {
  cat "$tmp/tune.log"; echo "quick.sh: papc-tune failed"; exit 1; }
cc -O2 -shared -fPIC -o "$tmp/probe.so" "$here/../../scripts/ompi-coll-probe.c"
"$@" -n 4 -x PAPC_PROFILE="$tmp/profile.json" -x LD_PRELOAD="$tmp/probe.so" \
    "$bin/papc-select-bench" --quick -c "$colls" -m 64,64K -i 3 \
    --csv "$tmp/bench.csv"
"$bin/papc-info" --algorithms >"$tmp/algorithms.txt"
python3 "$here/check_csv.py" --native-algorithm "$tmp/bench.csv" \
    "$tmp/algorithms.txt"
