#!/bin/bash
# balanced gate, third part: the final quiet test (both latest views; build/ at the sweep-G code),
# k=1 against k=4 alternated, two repetitions ("f1", "f4" in the file names).
cd /work/main
for run in "1 1" "4 1" "1 2" "4 2"; do
  set -- $run; k=$1 rep=$2
  for coll in gather scatter reduce allreduce; do
    env PAPC_PROFILE=/work/r16/calib/profile.json PAPC_ARRIVAL_WATCH_EVERY=$k testbed/run -n 8 --build build -- \
      papc-bench -c $coll -a native,auto,auto_classic -m 256Ki,2Mi -d 0 --mode rand-late -i 40 -x 3 --compute 100 --site-per-row \
      --csv /work/r16/bal3/$coll-k$k-r$rep.csv > /work/r16/bal3/$coll-k$k-r$rep.txt 2> /work/r16/bal3/$coll-k$k-r$rep.err
    echo "$(date +%T) $coll k=$k rep=$rep rc=$?" >> /work/r16/bal3/progress.log
  done
done
echo finished >> /work/r16/bal3/progress.log
