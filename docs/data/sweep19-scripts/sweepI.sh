#!/bin/bash
# Session 18's sweep I (main at 56846df, a fresh machine's profile and
# calibration); its report is docs/data/arrival-select-cluster-sweep18I-fresh-machine.txt.
# usage: sweepI.sh OUTDIR PROFILE
cd "$(dirname "$0")/../../.."
env PAPC_PROFILE=$2 scripts/arrival-select-bench.sh --cluster-only -b build --site-per-row -o "$1" \
    -d 10,50,200 -i 24 -x 3 --balanced-iterations 40 --trace
