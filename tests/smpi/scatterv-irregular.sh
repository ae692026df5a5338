#!/bin/sh
# ctest smpi_scatterv_irregular_p256 (issue 16): TUW scatterv
# (size_aware_binomial) at b = 1 on the same, random and spikes problems,
# P = 256 on fattree4096 under SMPI, then check_scatterv_irregular.py: the
# irregular problems may take at most 1.25x the time of `same` (their tree
# has the same depth; with SMPI's growing MPI_Test cost, which sim/run now
# turns off, random took 1.86x and grew linearly with P).
#   scatterv-irregular.sh SMPI_BUILD_DIR
set -eu
build=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$(dirname "$here")")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$root/sim/run" --build "$build" -p fattree4096 -n 256 --timeout 120 \
    --cfg smpi/bcast:binomial_tree -- papc-guide --coll scatterv \
    --problems same,random,spikes --b 1 --algs size_aware_binomial \
    -i 1 -x 0 --csv "$tmp/guide.csv" >"$tmp/out.txt" 2>&1 \
    || { cat "$tmp/out.txt"; echo "scatterv-irregular.sh: papc-guide failed"; exit 1; }
python3 "$here/check_scatterv_irregular.py" "$tmp/guide.csv"
