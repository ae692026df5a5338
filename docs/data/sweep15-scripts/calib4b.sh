#!/bin/bash
# session 15: a second calibration of gather and reduce at the default 4 iterations,
# to tell calib12's effect from one calibration's luck; picks on sweep F's traces
cd /work/main
R=/work/r15
scripts/arrival-calibrate.sh --cluster --profile $R/cluster/profile.json -o $R/calib4b -b build -c gather,reduce
for c in gather reduce; do
  echo "$c calib4b: $(build/bin/papc-tune --profile $R/calib4b/profile.json --arrival-check $R/sweepF/cluster/$c.trace.csv 2>&1 | tail -1)"
done
