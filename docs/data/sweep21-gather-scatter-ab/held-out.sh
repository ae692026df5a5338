#!/bin/bash
# Held-out traces for papc-tune --arrival-check: every row at the sweep's delays, 6 iterations
cd /work/main
for c in gather scatter reduce allreduce; do
  echo "$c $(date +%T)"
  testbed/run -n 8 --build build -- build/bin/papc-bench -c $c -a all -m 256Ki,2Mi -d 10,50,200 --mode both -i 6 -x 1 --compute 100 --trace /work/r21/held/$c.trace.csv --csv /work/r21/held/$c.csv > /work/r21/held/$c.txt 2>/work/r21/held/$c.err
  echo "$c rc=$? $(date +%T)"
done
