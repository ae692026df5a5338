#!/bin/bash
# Session 19: the pick reused from the same view, measured as pairs:
# PAPC_ARRIVAL_PICK_REUSE=0 (every plain call prices every row: the
# behaviour before) against the default, alternated, at the settled sites
# (binomial gather and reduce for one rank late) and balanced, the plain
# call against the named row in the same run; PAPC_ARRIVAL_STATS gives the
# choice's CPU per call.  usage: reuse.sh OUTDIR PROFILE [REPS]
out=$1 prof=$2 reps=${3:-2}
mkdir -p "$out"
cd "$(dirname "$0")/../../.."
for rep in $(seq 1 "$reps"); do
  for reuse in 0 1; do
    for coll in gather reduce; do
      f=$out/$coll-u$reuse-r$rep
      env PAPC_PROFILE=$prof PAPC_ARRIVAL_PICK_REUSE=$reuse PAPC_ARRIVAL_STATS=1 \
        testbed/run -n 8 --build build -- \
        papc-bench -c $coll -a native,auto,auto_classic,binomial -m 256Ki -d 0,10,50 --mode one-late \
        -i 24 -x 3 --compute 100 --site-per-row --csv $f.csv --trace $f.trace.csv > $f.txt 2> $f.err
      echo "$(date +%T) $coll reuse=$reuse rep=$rep rc=$?" >> $out/progress.log
    done
  done
done
echo finished >> $out/progress.log
