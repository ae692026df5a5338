#!/bin/sh
# The arrival runtime in simulation (tests/smpi/smoke.c): build the smoke
# program with smpicc (papcoll compiled with -DPAPC_SMPI=1, linked
# statically; objects kept in OUT) and run it under SimGrid SMPI at P ranks
# on the 48-node 1 Gbit/s platform.  Exit 77 (skipped) without smpicc.
#   tests/smpi/run-smoke.sh SRC OUT [P] [ITERS]
set -e
SRC=${1:?source dir}
OUT=${2:?build dir}
P=${3:-16}
ITERS=${4:-4}
if ! command -v smpicc >/dev/null 2>&1 || ! command -v smpirun >/dev/null 2>&1; then
    echo "smpicc/smpirun not found: SimGrid SMPI not installed, skipped"
    exit 77
fi
mkdir -p "$OUT"
make -s -f "$SRC/tests/smpi/smoke.mk" SRC="$SRC" OUT="$OUT" -j2 >"$OUT/build.log" 2>&1 ||
    { cat "$OUT/build.log"; exit 1; }
i=0
: >"$OUT/hosts"
while [ $i -lt 48 ]; do echo "node-$i" >>"$OUT/hosts"; i=$((i + 1)); done
# Simulated computation off: the program's compute phases are usleep()s,
# which SMPI simulates; the microseconds of real CPU between MPI calls are
# not charged (they would be host noise, not the platform's).
exec timeout 60 smpirun -np "$P" -platform "$SRC/tests/smpi/cluster48.xml" \
    -hostfile "$OUT/hosts" --cfg=smpi/simulate-computation:no \
    --log=root.thres:warning "$OUT/papc-smpi-smoke" "$ITERS"
