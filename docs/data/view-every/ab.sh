#!/bin/bash
# view every k: the same-row gap with k = 1 (default) and k = 8
cd /work/s12-dev
R=/work/results15-s12/ab
mkdir -p $R
P=/work/results15-s12/profile-s12.json
echo "ab start $(date -u +%FT%TZ) head=$(git rev-parse --short HEAD)"
for rep in 1 2; do
for k in 1 8; do
  for spec in "gather binomial one-late 10" "scatter background_sorted_linear one-late 10" "reduce binomial one-late 10" "gather auto_classic rand-late 0"; do
    set -- $spec
    env PAPC_ARRIVAL_VIEW_EVERY=$k PAPC_PROFILE=$P flock /work/TESTBED.lock testbed/run -n 8 --build build -- build/bin/papc-bench -c $1 -a $2,auto -m 256Ki -d $4 --mode $3 -i 20 -x 3 --compute 100 -q --csv $R/$1-$2-$4-k$k-r$rep.csv --trace $R/$1-$2-$4-k$k-r$rep.trace.csv > $R/$1-$2-$4-k$k-r$rep.txt 2>&1
    echo "$spec k=$k rep=$rep exit $? $(date -u +%FT%TZ)"
  done
done
done
echo "ab exit $(date -u +%FT%TZ)"
