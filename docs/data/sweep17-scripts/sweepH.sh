#!/bin/bash
# session 17 (new machine): cluster profile and arrival calibration remade
# with the documented commands (papc-tune on the cluster; then
# scripts/arrival-calibrate.sh --cluster, anchored form by default), then
# sweep G's command with sparse watching of quiet and settled sites
# (default PAPC_ARRIVAL_WATCH_EVERY=4).
cd /work/main
R=/work/r17
date -u; echo "== sweep H (anchored form, sparse watching of quiet and settled sites, site per row, -i 24)"
env PAPC_PROFILE=$R/calib/profile.json scripts/arrival-select-bench.sh --cluster-only -b build --site-per-row \
   -o $R/sweepH -d 10,50,200 -i 24 -x 3 --balanced-iterations 40 --trace
date -u; echo "== done"
