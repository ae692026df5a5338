#!/bin/bash
# session 15: the arrival calibration of gather and reduce again with 12 measured
# iterations (default 4), then both calibrations' picks on sweep F's traces (offline)
cd /work/main
R=/work/r15
scripts/arrival-calibrate.sh --cluster --profile $R/cluster/profile.json -o $R/calib12 -b build \
   -c gather,reduce -i 12
for c in gather reduce; do
  for p in calib calib12; do
    echo "$c $p: $(build/bin/papc-tune --profile $R/$p/profile.json --arrival-check $R/sweepF/cluster/$c.trace.csv 2>&1 | tail -1)"
  done
done
