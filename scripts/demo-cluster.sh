#!/usr/bin/env bash
# `make demo-cluster`: the demo's papc-bench sweep on the emulated 8-host
# 1 Gbit/s Ethernet cluster (testbed/run; needs root), then papc-report's
# figures.  The papers' setting: 100 ms compute phases, 2 Mi and 256 Ki
# floats, maximum delays 0, 10, 50 ms, one-late and rand-late.
# Usage: scripts/demo-cluster.sh <bindir> [results dir] (default
# build/bin, results-cluster).  Exits nonzero on a wrong result.
set -euo pipefail
bindir=${1:-build/bin}
results=${2:-results-cluster}
here=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" -ne 0 ]; then
  echo "demo-cluster: the emulated cluster needs root (network namespaces);" \
       "run: sudo make demo-cluster" >&2
  exit 1
fi
build=$(cd "$bindir/.." && pwd)
mkdir -p "$results"
results=$(cd "$results" && pwd)
echo "== imbalance absorbed on the emulated 8-host 1 Gbit/s cluster (about 14 minutes)"
"$here/testbed/run" -n 8 --build "$build" -- papc-bench \
  -c gather,scatter,reduce,allreduce -m 256Ki,2Mi -d 0,10,50 --mode both \
  -i ${PAPC_DEMO_ITERATIONS:-10} -x 1 \
  --csv "$results/bench.csv" --json "$results/bench.json" \
  | tee "$results/bench.txt"
echo
echo "== figures and tables: papc-report bench"
"$bindir/papc-report" bench "$results/bench.csv" -o "$results/" | tail -n 3
echo
echo "demo-cluster: table $results/bench.txt, data $results/bench.csv and" \
     ".json, figures $results/*.png, summary $results/bench-summary.md"
