#!/bin/bash
# reduce-only A/B: old model (main 5064ad0, calib fitted with it) vs the fan-in model (calibL)
cd /work/main
env PAPC_PROFILE=/work/r20/calibL/profile.json scripts/arrival-select-bench.sh --cluster-only -b /work/main/build -c reduce \
   --site-per-row -o /work/r20/abNew -d 10,50,200 -i 24 -x 3 --balanced-iterations 40 --trace > /work/r20/abNew.log 2>&1
cd /work/r20/old
env PAPC_PROFILE=/work/r20/calib/profile.json scripts/arrival-select-bench.sh --cluster-only -b /work/r20/old/build -c reduce \
   --site-per-row -o /work/r20/abOld -d 10,50,200 -i 24 -x 3 --balanced-iterations 40 --trace > /work/r20/abOld.log 2>&1
echo done > /work/r20/ab.done
