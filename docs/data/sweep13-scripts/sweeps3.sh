#!/bin/bash
# run C: B's configuration (measured views) + papc-bench --site-per-row, gather and scatter, rand-late 50/200
cd /work/lead-tag
R=/work/results15-s13
P=$R/calib/profile.json
date -u; echo "== run C (measured views, site per row), gather scatter rand-late 50,200"
env PAPC_PROFILE=$P PAPC_ARRIVAL_VIEW_MEASURED=1 scripts/arrival-select-bench.sh --cluster-only -b build -c gather,scatter \
   -o $R/sweepC -d 50,200 --mode rand-late -i 20 -x 3 --balanced-iterations 0 --trace --site-per-row
date -u; echo "== done"
cd /work/sweep-s13
date -u; echo "== balanced A (default views)"
env PAPC_PROFILE=$P scripts/arrival-select-bench.sh --cluster-only --balanced-only -b build \
   -o $R/balancedA --balanced-iterations 40
date -u; echo "== done A"
