#!/bin/bash
# Session 17: a settled site's sparse watching, measured as pairs: k = 1
# (every call watched: the behaviour before it at a site that is not quiet)
# against the default k = 4, alternated, the plain call against the named
# rows it picks in the same run.  usage: settled.sh OUTDIR PROFILE [REPS]
out=$1 prof=$2 reps=${3:-2}
mkdir -p "$out"
cd "$(dirname "$0")/../../.."
for rep in $(seq 1 "$reps"); do
  for k in 1 4; do
    for coll in gather reduce scatter; do
      case $coll in
        gather) algs=native,auto,binomial,sorted_linear_sync,background_sorted_linear_sync ;;
        reduce) algs=native,auto,binomial,clairvoyant ;;
        scatter) algs=native,auto,linear_nb,background_sorted_linear ;;
      esac
      f=$out/$coll-k$k-r$rep
      env PAPC_PROFILE=$prof PAPC_ARRIVAL_WATCH_EVERY=$k testbed/run -n 8 --build build -- \
        papc-bench -c $coll -a $algs -m 256Ki,2Mi -d 10,50 --mode one-late -i 24 -x 3 --compute 100 \
        --site-per-row --csv $f.csv --trace $f.trace.csv > $f.txt 2> $f.err
      echo "$(date +%T) $coll k=$k rep=$rep rc=$?" >> $out/progress.log
    done
  done
done
echo finished >> $out/progress.log
