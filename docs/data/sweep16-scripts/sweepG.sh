#!/bin/bash
# session 16 (new machine): cluster profile and arrival calibration remade
# (papc-tune 237 s; scripts/arrival-calibrate.sh 6 min), the anchored form
# refitted from the calibration's traces, then sweep D/F's command with
# sparse watching on (default PAPC_ARRIVAL_WATCH_EVERY=4) under the anchored
# profile.  The default form's profile is checked offline on G's traces.
cd /work/main
R=/work/r16
T=$R/calib/gather.trace.csv,$R/calib/scatter.trace.csv,$R/calib/reduce.trace.csv,$R/calib/allreduce.trace.csv
build/bin/papc-tune --profile $R/cluster/profile.json --arrival-refit $T --arrival-per-size \
    --arrival-form anchored -o $R/anch.json
date -u; echo "== sweep G (anchored form, sparse watching, site per row, -i 24)"
env PAPC_PROFILE=$R/anch.json scripts/arrival-select-bench.sh --cluster-only -b build --site-per-row \
   -o $R/sweepG -d 10,50,200 -i 24 -x 3 --balanced-iterations 40 --trace
date -u; echo "== done"
