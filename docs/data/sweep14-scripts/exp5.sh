#!/bin/bash
# overdue-progress bound: off (0) against on (1), same build, site per row, rand-late 50/200
cd /work/lead-s14
P=/work/results15-s13/calib/profile.json
run() { # coll algs tag
  for ob in 0 1; do
    env PAPC_PROFILE=$P PAPC_OVERDUE_BOUND=$ob PAPC_REPORT=/work/r14/exp5-$3-ob$ob.rep \
      testbed/run -n 8 --build build -- papc-bench -c $1 -a $2 -m 256Ki,2Mi -d 200 --mode rand-late \
      --site-per-row -i 16 -x 3 --csv /work/r14/exp5-$3-ob$ob.csv --trace /work/r14/exp5-$3-ob$ob.trace.csv \
      > /work/r14/exp5-$3-ob$ob.txt 2>&1
  done
}
run gather binomial,sbn,bsbn,bsls,sls,auto gather
run scatter linear_nb,slin,sbn,bsln,bsbn,auto scatter
run allreduce ring,slt,prr,auto allreduce
