#!/bin/bash
# Session 17: the balanced excess of reduce and allreduce, traced with the
# watched column, in both row orders (papc-bench rotates the rows, so the
# order decides which row follows which): "ac" = native,auto,auto_classic
# (auto_classic always right after auto), "ca" = native,auto_classic,auto.
# usage: bal-order.sh OUTDIR PROFILE [REPS]
out=$1 prof=$2 reps=${3:-1}
mkdir -p "$out"
cd "$(dirname "$0")/../../.."
for rep in $(seq 1 "$reps"); do
  for order in ac ca; do
    [ $order = ac ] && algs=native,auto,auto_classic || algs=native,auto_classic,auto
    for coll in reduce allreduce; do
      f=$out/$coll-$order-r$rep
      env PAPC_PROFILE=$prof testbed/run -n 8 --build build -- \
        papc-bench -c $coll -a $algs -m 256Ki,2Mi -d 0 --mode rand-late -i 40 -x 3 --compute 100 \
        --site-per-row --csv $f.csv --trace $f.trace.csv > $f.txt 2> $f.err
      echo "$(date +%T) $coll $order rep=$rep rc=$?" >> $out/progress.log
    done
  done
done
echo finished >> $out/progress.log
