#!/usr/bin/env bash
# papcoll's demonstration (`make demo`): lists every collective's algorithms,
# then checks each of them against the native MPI collective on 8 ranks and
# times both.  Usage: scripts/demo.sh <bindir> (default build/bin).
# Exits nonzero when an algorithm gives a wrong result or an error.
set -euo pipefail
bindir=${1:-build/bin}
np=${PAPC_DEMO_NP:-8}

for tool in papc-info papc-demo; do
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
