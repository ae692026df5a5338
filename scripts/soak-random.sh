#!/bin/sh
# soak-random.sh — the long run of papcoll's randomized differential test
# (tests/mpi/test_random.c; docs/testing.md).  For each seed and each P it
# runs ROUNDS rounds of random calls, then an arrival-mode run (random sleeps
# of 0-20 ms, PAPC_ARRIVAL_FAULT cycling random/reverse/stale/missing) and
# the background scatter+gather pair at P=16.  Every failing run prints the
# command that replays it; they are collected at the end.
#
#   scripts/soak-random.sh                 seeds 1000..1019 (about 20-30 min)
#   SEEDS="1 2 3" PS="2 5" scripts/soak-random.sh
#   FIRST=5000 COUNT=100 ROUNDS=3000 scripts/soak-random.sh
#   KEEP_GOING=1 ...   report every failing round, not only the first
# Environment: BUILD (build), FIRST (1000), COUNT (20), SEEDS (overrides
# FIRST/COUNT), PS ("1 2 3 4 5 7 8 13 16"), ROUNDS (2000), ARRIVAL_ROUNDS
# (400), WATCHDOG (seconds, 30).
set -u
BUILD=${BUILD:-build}
FIRST=${FIRST:-1000}
COUNT=${COUNT:-20}
SEEDS=${SEEDS:-$(seq "$FIRST" $((FIRST + COUNT - 1)))}
PS=${PS:-"1 2 3 4 5 7 8 13 16"}
ROUNDS=${ROUNDS:-2000}
ARRIVAL_ROUNDS=${ARRIVAL_ROUNDS:-400}
WATCHDOG=${WATCHDOG:-30}
EXE=$BUILD/bin/test_random
MPIRUN="mpirun --oversubscribe --allow-run-as-root --mca mpi_yield_when_idle 1"
EXTRA=""
[ "${KEEP_GOING:-0}" = 1 ] && EXTRA="--keep-going"
if [ ! -x "$EXE" ]; then
    echo "soak-random: $EXE not built (cmake --build $BUILD)" >&2
    exit 2
fi
LOG=$(mktemp -d /tmp/soak-random.XXXXXX)
runs=0
failed=0
faults="random reverse stale missing"
start=$(date +%s)
run() { # name, P, args...
    name=$1; p=$2; shift 2
    runs=$((runs + 1))
    out=$LOG/$name.log
    # The test's watchdog ends a hang; the timeout is a last resort.
    if timeout $((WATCHDOG * 4 + 600)) $MPIRUN -np "$p" "$EXE" "$@" $EXTRA \
            --watchdog="$WATCHDOG" >"$out" 2>&1; then
        printf '.'
    else
        failed=$((failed + 1))
        printf '\nFAIL %s (log %s):\n' "$name" "$out"
        grep -E '^\[test_random\]|^  (round|replay)' "$out" | head -8
    fi
}
for seed in $SEEDS; do
    i=0
    for p in $PS; do
        run "s${seed}_p$p" "$p" --seed="$seed" --rounds="$ROUNDS"
    done
    set -- $faults
    shift $((seed % 4))
    fault=${1:-random}
    run "s${seed}_arrival_p16_$fault" 16 --seed="$seed" \
        --rounds="$ARRIVAL_ROUNDS" --arrival --fault="$fault"
    run "s${seed}_bsbn_bsls_p16" 16 --seed="$seed" \
        --rounds="$ARRIVAL_ROUNDS" --arrival --fault=random \
        --algs=scatter:bsbn,gather:bsls
done
echo
echo "soak-random: $runs runs, $failed failed, $(( $(date +%s) - start )) s;" \
     "logs in $LOG"
[ "$failed" = 0 ]
