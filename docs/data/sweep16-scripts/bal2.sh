#!/bin/bash
# balanced gate, second part: k=4 with the quiet test that also counts papc_arrival_pick's
# 5 %-of-t0 rule (build/, "k5" in the file names), alternated with k=1 (third repetition).
cd /work/main
for run in "5 1 4" "1 3 1" "5 2 4"; do
  set -- $run; tagk=$1 rep=$2 k=$3
  for coll in gather scatter reduce allreduce; do
    env PAPC_PROFILE=/work/r16/calib/profile.json PAPC_ARRIVAL_WATCH_EVERY=$k testbed/run -n 8 --build build -- \
      papc-bench -c $coll -a native,auto,auto_classic -m 256Ki,2Mi -d 0 --mode rand-late -i 40 -x 3 --compute 100 --site-per-row \
      --csv /work/r16/bal/$coll-k$tagk-r$rep.csv > /work/r16/bal/$coll-k$tagk-r$rep.txt 2> /work/r16/bal/$coll-k$tagk-r$rep.err
    echo "$(date +%T) $coll k=$k ($tagk) rep=$rep rc=$?" >> /work/r16/bal/progress.log
  done
done
echo finished2 >> /work/r16/bal/progress.log
