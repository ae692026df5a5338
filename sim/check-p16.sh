#!/bin/sh
# ctest smpi_bench_p16 (issue 16): papc-bench at P = 16 on the Proficz
# 48-node platform under SMPI, gather and allreduce with classic and
# arrival-aware algorithms (which run without the monitor there), then
# sim/check_bench.py: every row present, every result equal to the native
# collective's, the emulated computation in simulated time.
#   check-p16.sh SMPI_BUILD_DIR
set -eu
build=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run_one() {  # collective algorithms
  "$here/run" --build "$build" --timeout 60 -n 16 -- papc-bench -c "$1" \
      -a "$2" -m 64Ki -d 0,10 -i 3 -q --csv "$tmp/$1.csv" >"$tmp/$1.txt" 2>&1 \
      || { cat "$tmp/$1.txt"; echo "check-p16.sh: papc-bench $1 failed"; exit 1; }
  grep -h "monitor needs" "$tmp/$1.txt" | head -1
  python3 "$here/check_bench.py" "$tmp/$1.csv" --algorithms "$2" --delays 0,10
}
run_one gather native,binomial,sorted_linear_sync,background_sorted_linear_sync
run_one allreduce native,ring,rabenseifner,pre_reduced_ring
