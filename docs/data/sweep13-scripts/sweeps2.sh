#!/bin/bash
cd /work/sweep-s13
R=/work/results15-s13
P=$R/calib/profile.json
while kill -0 2043 2>/dev/null; do sleep 5; done
date -u; echo "== balanced B"
env PAPC_PROFILE=$P PAPC_ARRIVAL_VIEW_MEASURED=1 scripts/arrival-select-bench.sh --cluster-only --balanced-only -b build    -o $R/balancedB --balanced-iterations 40
date -u; echo "== sweep A (default), gather and scatter"
env PAPC_PROFILE=$P scripts/arrival-select-bench.sh --cluster-only -b build -c gather,scatter    -o $R/sweepA -d 10,50,200 -i 20 -x 3 --balanced-iterations 0 --trace
date -u; echo "== done"
