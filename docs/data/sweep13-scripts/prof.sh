#!/bin/bash
set -e
cd /work/sweep-s13
R=/work/results15-s13
mkdir -p $R/cluster
date -u
testbed/run -n 8 --build build --np 16 -- papc-tune --collectives gather,scatter,reduce,allreduce \
    -o $R/cluster/profile.json --csv $R/cluster/tune.csv
date -u
scripts/arrival-calibrate.sh --cluster --profile $R/cluster/profile.json -o $R/calib -b build
date -u
