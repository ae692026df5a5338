#!/bin/bash
# session 17: sweep H's gather again, same build and command (-c gather):
# its first run overlapped a compile of mine (at idle priority, which did not
# keep it out: rand-late 10 ms 256 Ki rows at 3-10 x sweep G's); the report
# merges this gather with H's other collectives.
cd /work/main
R=/work/r17
env PAPC_PROFILE=$R/calib/profile.json scripts/arrival-select-bench.sh --cluster-only -b build --site-per-row \
   -o $R/sweepH-gather -c gather -d 10,50,200 -i 24 -x 3 --balanced-iterations 40 --trace --no-report
