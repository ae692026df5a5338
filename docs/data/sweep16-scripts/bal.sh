#!/bin/bash
# balanced gate: auto against auto_classic, watching every call (k=1, as before) against every 4th (k=4, the new default)
cd /work/main
for rep in 1 2; do
 for k in 1 4; do
  for coll in gather scatter reduce allreduce; do
    env PAPC_PROFILE=/work/r16/calib/profile.json PAPC_ARRIVAL_WATCH_EVERY=$k testbed/run -n 8 --build build-dev -- \
      papc-bench -c $coll -a native,auto,auto_classic -m 256Ki,2Mi -d 0 --mode rand-late -i 40 -x 3 --compute 100 --site-per-row \
      --csv /work/r16/bal/$coll-k$k-r$rep.csv > /work/r16/bal/$coll-k$k-r$rep.txt 2> /work/r16/bal/$coll-k$k-r$rep.err
    echo "$(date +%T) $coll k=$k rep=$rep rc=$?" >> /work/r16/bal/progress.log
  done
 done
done
echo finished >> /work/r16/bal/progress.log
