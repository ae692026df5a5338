#!/bin/bash
# session 13: sweep B (PAPC_ARRIVAL_VIEW_MEASURED=1) then sweep A (default), each + balanced, fresh profile
cd /work/sweep-s13
R=/work/results15-s13
P=$R/calib/profile.json
while pgrep -f results15-s13/prof.sh >/dev/null; do sleep 10; done
[ -f $P ] || { echo "no profile $P"; exit 1; }
date -u; echo "== sweep B (measured views)"
env PAPC_PROFILE=$P PAPC_ARRIVAL_VIEW_MEASURED=1 scripts/arrival-select-bench.sh --cluster-only -b build \
   -o $R/sweepB -d 10,50,200 -i 20 -x 3 --balanced-iterations 0 --trace
date -u; echo "== balanced B"
env PAPC_PROFILE=$P PAPC_ARRIVAL_VIEW_MEASURED=1 scripts/arrival-select-bench.sh --cluster-only --balanced-only -b build \
   -o $R/balancedB --balanced-iterations 40
date -u; echo "== sweep A (default)"
env PAPC_PROFILE=$P scripts/arrival-select-bench.sh --cluster-only -b build \
   -o $R/sweepA -d 10,50,200 -i 20 -x 3 --balanced-iterations 0 --trace
date -u; echo "== balanced A"
env PAPC_PROFILE=$P scripts/arrival-select-bench.sh --cluster-only --balanced-only -b build \
   -o $R/balancedA --balanced-iterations 40
date -u; echo "== done"
