#!/bin/bash
# session 14: sweep D = default views, --site-per-row (program-faithful), 30 measured iterations, + balanced 40
cd /work/main
R=/work/results15-s14
P=/work/results15-s13/calib/profile.json
date -u; echo "== sweep D (default views, site per row, -i 30)"
env PAPC_PROFILE=$P scripts/arrival-select-bench.sh --cluster-only -b build --site-per-row \
   -o $R/sweepD -d 10,50,200 -i 30 -x 3 --balanced-iterations 40 --trace
date -u; echo "== done"
