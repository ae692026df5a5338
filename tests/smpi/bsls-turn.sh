#!/bin/sh
# ctest smpi_bsls_turn_p16 (issue 16): BSLS and linear_sync gather at
# P = 16 on fattree4096 under SMPI, delay 0, then check_bsls_turn.py: a
# turn of BSLS's background chain may cost at most 10 us more than one of
# linear_sync (a monitor woken before its message arrived cost ~35 us).
#   bsls-turn.sh SMPI_BUILD_DIR
set -eu
build=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$(dirname "$here")")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PAPC_WARMUP=0 "$root/sim/run" --build "$build" -p fattree4096 -n 16 \
    --timeout 120 --cfg smpi/bcast:binomial_tree -- papc-bench -c gather \
    -a linear_sync,bsls --baseline linear_sync -m 4Ki -d 0 \
    --mode rand-late --compute 20 -i 2 -x 1 -q --csv "$tmp/bsls.csv" \
    >"$tmp/out.txt" 2>&1 \
    || { cat "$tmp/out.txt"; echo "bsls-turn.sh: papc-bench failed"; exit 1; }
python3 "$here/check_bsls_turn.py" "$tmp/bsls.csv"
