#!/bin/bash
# session 15: what the weighed plain call costs when it runs the classic row,
# part by part (temporary PAPC_DBG knobs of branch s15-attr, not landed):
#   nowrap     the classic row runs without arrival begin/end (no notice, no view, no history estimate)
#   nonotice   non-deciders send no notice for a classic row
#   nodecision the decider sends no view decision, the others post no receive
#   nohist     no history estimate at the call's exit
# balanced (delay 0) gather 256 Ki and reduce 2 Mi. Needs a worktree /work/lead-s15 of main
# 85de908 with attr-knobs.diff applied (git apply) and built in its build/.
B=${B:-/work/lead-s15/build}
R=${R:-/work/r15/attr}
P=${P:-/work/r15/calib/profile.json}
mkdir -p $R
cd /work/lead-s15
for v in none nowrap nonotice nodecision nohist; do
  env PAPC_PROFILE=$P PAPC_DBG=$v testbed/run -n 8 --build $B -- papc-bench -c gather \
    -a auto_classic,auto,basic_linear -m 256Ki -d 0 --mode rand-late --site-per-row -i 100 -x 3 \
    --csv $R/g0-$v.csv --trace $R/g0-$v.trace.csv > $R/g0-$v.txt 2>&1
  env PAPC_PROFILE=$P PAPC_DBG=$v testbed/run -n 8 --build $B -- papc-bench -c reduce \
    -a auto_classic,auto,ring -m 2Mi -d 0 --mode rand-late --site-per-row -i 40 -x 3 \
    --csv $R/r0-$v.csv --trace $R/r0-$v.trace.csv > $R/r0-$v.txt 2>&1
done
