#!/bin/bash
# session 15 (new machine): cluster profile and arrival calibration remade, then
# sweep F = sweep D's command (default views, site per row, 30 it., balanced 40)
# on main with the overdue-progress bound (85de908), all four collectives.
cd /work/main
R=/work/r15
while pgrep -f 'papc-tune --collectives' >/dev/null; do sleep 10; done
date -u; echo "== calibrate"
scripts/arrival-calibrate.sh --cluster --profile $R/cluster/profile.json -o $R/calib -b build
P=$R/calib/profile.json
date -u; echo "== sweep F (default views, site per row, -i 30, overdue bound on)"
env PAPC_PROFILE=$P scripts/arrival-select-bench.sh --cluster-only -b build --site-per-row \
   -o $R/sweepF -d 10,50,200 -i 30 -x 3 --balanced-iterations 40 --trace
date -u; echo "== done"
