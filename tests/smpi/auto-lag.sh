#!/bin/sh
# ctest smpi_auto_lag_p16 (issue 16): allreduce's plain call at P = 16 on
# fattree4096 under SMPI, rank 1 late by 10 ms from the first call on, then
# check_auto_lag.py: the plain call runs the better row (Rabenseifner) from
# its third call on -- it ran the ring in all measured calls while the
# first two plain calls agreed on the profile before their arrival was
# stamped (docs/scale.md, "At 512-4,096 processes", section 9).  With the
# online refinement off (PAPC_ARRIVAL_LEARN=0, the default, said here
# because it may try a row near the best once, not what this test is
# about).
#   auto-lag.sh SMPI_BUILD_DIR
set -eu
build=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$(dirname "$here")")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PAPC_WARMUP=0 PAPC_ARRIVAL_LEARN=0 "$root/sim/run" --build "$build" -p fattree4096 -n 16 \
    --timeout 120 --cfg smpi/bcast:binomial_tree \
    --cfg smpi/async-small-thresh:0 -- papc-bench -c allreduce -a auto \
    -m 64Ki -d 10 --mode one-late --compute 40 -i 3 -x 1 -q \
    --csv "$tmp/auto.csv" --trace "$tmp/auto.trace.csv" \
    >"$tmp/out.txt" 2>&1 \
    || { cat "$tmp/out.txt"; echo "auto-lag.sh: papc-bench failed"; exit 1; }
python3 "$here/check_auto_lag.py" "$tmp/auto.trace.csv"
