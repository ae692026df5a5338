#!/bin/bash
# first-row excess: exit guesses only (0) against phase guesses (1), same build
cd /work/lead-s14
for pg in 0 1; do
  env PAPC_PROFILE=/work/results15-s13/calib/profile.json PAPC_PHASE_GUESS=$pg \
   testbed/run -n 8 --build build -- papc-bench -c gather \
   -a binomial,sorted_binomial,background_sorted_binomial,background_sorted_linear_sync,sorted_linear_sync,auto \
   -m 256Ki,2Mi -d 200 --mode rand-late --site-per-row -i 18 -x 3 --csv /work/r14/exp2-pg$pg.csv --trace /work/r14/exp2-pg$pg.trace.csv \
   > /work/r14/exp2-pg$pg.txt 2>&1
done
