#!/bin/bash
# session 14: sweep E = sweep D's gather with the overdue-progress bound (main at e362ee4)
cd /work/lead-s14
R=/work/results15-s14
P=/work/results15-s13/calib/profile.json
date -u; echo "== sweep E (gather, default views, site per row, -i 30, overdue bound on)"
env PAPC_PROFILE=$P scripts/arrival-select-bench.sh --cluster-only -b build --site-per-row -c gather \
   -o $R/sweepE -d 10,50,200 -i 30 -x 3 --balanced-iterations 0 --trace
date -u; echo "== done"
