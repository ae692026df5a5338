#!/usr/bin/env bash
# papcoll's demonstration (`make demo`): lists every collective's algorithms,
# checks each of them against the native MPI collective on 8 ranks, tunes the
# model-based selection for this machine (papc-tune -> results/profile.json,
# then papc-info --explain and a short papc-select-bench: the model's choice
# against the best algorithm and native MPI), then runs
# the main job: papc-bench's default sweep (gather, scatter, reduce, allreduce; P = 8;
# 256 Ki and 2 Mi floats; maximum delays 0, 10, 50 ms; one-late and
# rand-late) and papc-report's figures, all left in results/.
# Usage: scripts/demo.sh <bindir> (default build/bin) [results dir].
# Exits nonzero when an algorithm gives a wrong result or an error.
set -euo pipefail
bindir=${1:-build/bin}
results=${2:-${PAPC_DEMO_RESULTS:-results}}
np=${PAPC_DEMO_NP:-8}

for tool in papc-info papc-demo papc-tune papc-select-bench papc-bench papc-report; do
  if [ ! -x "$bindir/$tool" ]; then
    echo "demo: $bindir/$tool is missing (run make build first)" >&2
    exit 1
  fi
done

# Open MPI needs to be told that 8 ranks may share fewer cores, that ranks
# should yield the CPU while they wait, and (only as root) that root is fine.
launcher=(mpirun)
if mpirun --version 2>/dev/null | grep -q "Open MPI"; then
  launcher+=(--oversubscribe --mca mpi_yield_when_idle 1)
  [ "$(id -u)" -eq 0 ] && launcher+=(--allow-run-as-root)
fi
launcher+=(-np "$np")

echo "== papcoll"
"$bindir/papc-info"
echo
echo "== algorithms (collective, name, restrictions and flags, aliases)"
"$bindir/papc-info" --algorithms
echo
echo "== correctness and time on $np ranks: ${launcher[*]} $bindir/papc-demo"
# The whole demo takes well under a minute; a hang must not last forever.
timeout 300 "${launcher[@]}" "$bindir/papc-demo"

# Model-based selection: tune this machine, show a choice and why, and
# judge the choices against every algorithm and native MPI in another run.
mkdir -p "$results"
echo
echo "== tuning model-based selection: papc-tune on $np ranks (about 1 minute)"
timeout 600 "${launcher[@]}" "$bindir/papc-tune" -o "$results/profile.json" \
  --csv "$results/tune.csv"
export PAPC_PROFILE="$PWD/$results/profile.json"
[ "${results#/}" != "$results" ] && export PAPC_PROFILE="$results/profile.json"
echo
echo "== why this algorithm: papc-info --explain bcast $np 64K"
"$bindir/papc-info" --explain bcast "$np" 64K
echo
echo "== the model's choice against the best algorithm and native MPI (P = $np)"
timeout 600 "${launcher[@]}" "$bindir/papc-select-bench" -c bcast,allreduce \
  -m 64,4K,64K,1M --budget 0.5 --csv "$results/select.csv" | grep -v '^#'

# The main job.  Compute phases of 50 ms (the papers use 100) and 8 measured
# iterations keep the sweep near 3 minutes on a 2-core machine; papc-bench
# -h tells how to run longer ones.
echo
echo "== imbalance absorbed: papc-bench sweep on $np ranks (about 3 minutes)"
timeout 900 "${launcher[@]}" "$bindir/papc-bench" -c gather,scatter,reduce,allreduce \
  -m 256Ki,2Mi -d 0,10,50 --mode both -i 8 -x 1 --compute 50 \
  --csv "$results/bench.csv" --json "$results/bench.json" \
  | tee "$results/bench.txt"
echo
echo "== figures and tables: $bindir/papc-report bench"
"$bindir/papc-report" bench "$results/bench.csv" -o "$results/" | tail -n 3
echo
echo "demo: profile $results/profile.json, selection check $results/select.csv," \
     "table $results/bench.txt, data $results/bench.csv and .json," \
     "figures $results/*.png, summary $results/bench-summary.md"
