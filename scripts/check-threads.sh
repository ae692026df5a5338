#!/usr/bin/env bash
# check-threads.sh — the monitor thread and the background (B*) algorithms
# under ThreadSanitizer: builds papcoll and tests/mpi/test_arrival with
# -fsanitize=thread in a separate build directory, runs background-heavy
# scenarios (background_sorted_linear scatter, background_sorted_linear_sync
# and background_sorted_binomial gather/scatter, with the monitor, P = 3 and
# 4; a short stress run; monitor start/stop/restart; back-to-back BSBN
# scatter + BSLS gather and a mix from tests/mpi/test_background at P = 6
# with imbalanced arrivals, where handler jobs of consecutive epochs
# overlap) and fails when
# ThreadSanitizer reports a problem in papcoll's own code.
#
#   scripts/check-threads.sh [build-dir]      (default: build-tsan/)
#   KEEP_LOGS=1 scripts/check-threads.sh      keep the raw reports
#   ALGS=bsln,bsbn scripts/check-threads.sh   other algorithms (names/aliases)
#
# Exit status: 0 clean; 1 a report in papcoll's code (printed); 2 a test
# failed (wrong result or hang) under the sanitizer; 3 the build failed.
#
# Open MPI is not built with ThreadSanitizer: its lock-free queues and
# atomics are invisible to the tool, so it reports races and lock-order
# inversions inside libmpi, libopen-pal, libopen-rte, pmix and the mca_*
# components that are not ours.  Two filters, both on purpose narrow:
#   - scripts/tsan-openmpi.supp suppresses lock-order inversions and
#     mutex misuse reported inside those libraries (no papcoll lock is ever
#     taken inside them, so nothing of ours can hide there);
#   - a data race counts when both racing accesses (the first frame below
#     any sanitizer interceptor such as memcpy) are in papcoll's sources or
#     the test: races between papcoll's own threads on papcoll's data (the
#     monitor, the mailbox, the estimate tables).  A race whose one side
#     is inside MPI is NOT counted but listed by place: Open MPI lets any
#     thread that polls (here the monitor thread) complete another
#     thread's receive, copying into its buffer, and the completion is an
#     uninstrumented atomic, so every buffer the foreground reads after
#     MPI_Recv/MPI_Wait shows up as a "race" with the monitor thread's
#     opal_convertor_unpack.  (A real race of that shape -- papcoll
#     writing a buffer MPI is still sending from another thread -- is not
#     caught by this script; test_arrival's bit-for-bit comparisons catch
#     its effect.)  Races with both sides inside Open MPI are filtered.
#     Every other report (thread leak, use after free, double lock, ...)
#     counts when any of its frames is in papcoll.
# Why not helgrind: valgrind --tool=helgrind reports 68 "possible data
# races" inside Open MPI for a 10-line two-thread MPI program and is ~50x
# slower; ThreadSanitizer's reports can be told apart by frame.
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$SRC/build-tsan}
LOGS=$(mktemp -d /tmp/papc-tsan.XXXXXX)
JOBS=${JOBS:-2}
MPIRUN=(timeout 600 mpirun --oversubscribe --allow-run-as-root
        --mca mpi_yield_when_idle 1)

echo "== ThreadSanitizer build in $BUILD"
FLAGS="-fsanitize=thread -fno-omit-frame-pointer -g"
if ! cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DPAPC_WERROR=OFF -DCMAKE_C_FLAGS="$FLAGS" \
        -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
        -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" >"$LOGS/cmake.log" 2>&1 ||
   ! cmake --build "$BUILD" -j "$JOBS" --target test_arrival test_background \
        >"$LOGS/build.log" 2>&1; then
    tail -30 "$LOGS/cmake.log" "$LOGS/build.log" 2>/dev/null
    echo "check-threads: build failed (logs in $LOGS)"
    exit 3
fi

export TSAN_OPTIONS="suppressions=$SRC/scripts/tsan-openmpi.supp \
log_path=$LOGS/tsan report_signal_unsafe=0 halt_on_error=0 exitcode=0 \
second_deadlock_stack=1 history_size=4"
TEST="$BUILD/bin/test_arrival"
BG=${ALGS:-background_sorted_linear,background_sorted_linear_sync,background_sorted_binomial}
status=0
run() { # name nprocs args...   (TEST=program: another test binary)
    local name=$1 np=$2
    shift 2
    local t0=$SECONDS
    if "${MPIRUN[@]}" -np "$np" "$TEST" --watchdog=120 "$@" >"$LOGS/$name.out" 2>&1; then
        echo "   $name (P=$np): passed in $((SECONDS - t0)) s"
    else
        echo "   $name (P=$np): FAILED in $((SECONDS - t0)) s:"
        grep -E "FAIL|HANG|CRASH|reproduce|replay" "$LOGS/$name.out" | head -20
        status=2
    fi
}
echo "== scenarios (monitor on MPI_COMM_WORLD)"
run bg_p3 3 --alg="$BG" --phase=true,reverse,lying,chaos,sweep --delay=3000
run bg_p4 4 --alg="$BG" --phase=true,random,partial,sweep --delay=3000
run stress_p4 4 --alg="$BG,sorted_linear_sync,pre_reduced_ring" --stress=300
run lazy_p3 3 --alg="$BG" --monitor=lazy --phase=true,history
run lifecycle_p3 3 --alg="$BG" --lifecycle
TEST="$BUILD/bin/test_background"
run background_pair_p6 6 --mode=pair --calls=120 --max-sleep=5 --fault=random
run background_mixed_p6 6 --mode=mixed --calls=120 --max-sleep=5
TEST="$BUILD/bin/test_arrival"

echo "== ThreadSanitizer reports"
python3 - "$SRC" "$LOGS" <<'EOF'
import glob, os, re, sys
src, logs = sys.argv[1], sys.argv[2]
ours_re = re.compile(r'(' + re.escape(src) + r'/(src|tests)/|libpapcoll\.so)')
frame_re = re.compile(r'^\s+#(\d+) ')
interceptor = re.compile(r'libtsan\.so|sanitizer_common|tsan_interceptors')
reports = []
for path in sorted(glob.glob(os.path.join(logs, 'tsan.*'))):
    text = open(path, errors='replace').read()
    for block in re.split(r'\n(?==+\n)', text):
        m = re.search(r'WARNING: ThreadSanitizer: ([^\n(]+)', block)
        if m:
            reports.append((m.group(1).strip(), block, path))

def stacks(block):
    """The stacks of a report, each a list of frame lines."""
    out, cur = [], None
    for line in block.splitlines():
        f = frame_re.match(line)
        if f:
            if f.group(1) == '0' or cur is None:
                cur = []
                out.append(cur)
            cur.append(line)
        else:
            cur = None
    return out

def access_frame(stack):
    """The frame that made an access: the first below the interceptors."""
    for line in stack:
        if not interceptor.search(line):
            return line
    return stack[-1] if stack else ''

def where(line):
    m = re.search(r'#\d+ (\S+) (\S+)', line)
    if not m:
        return line.strip()
    f = m.group(2)
    return '%s %s' % (m.group(1),
                      os.path.relpath(f, src) if f.startswith(src) else f)

ours, mediated, filtered = [], {}, {}
for kind, block, path in reports:
    st = stacks(block)
    if kind == 'data race':
        # the two accesses are the first two stacks
        mine = [bool(ours_re.search(access_frame(s))) for s in st[:2]]
        if len(mine) == 2 and all(mine):
            ours.append((kind, block, path))
        elif any(mine):
            k = ' / '.join(where(access_frame(s)) for s in st[:2])
            mediated[k] = mediated.get(k, 0) + 1
        else:
            filtered[kind] = filtered.get(kind, 0) + 1
    elif any(ours_re.search(l) for s in st for l in s):
        ours.append((kind, block, path))
    else:
        filtered[kind] = filtered.get(kind, 0) + 1
# the same report comes from every rank and call: print each once
seen, uniq = set(), []
for kind, block, path in ours:
    key = '\n'.join(re.sub(r'0x[0-9a-f]+', '', l) for s in stacks(block)[:2]
                    for l in s)
    if key not in seen:
        seen.add(key)
        uniq.append((kind, block, path))
for kind, block, path in uniq:
    print(block.strip())
    print('   (from %s)' % os.path.basename(path))
print('inside Open MPI only (filtered): %s' %
      (', '.join('%d %s' % (n, k) for k, n in sorted(filtered.items()))
       or 'none'))
print('papcoll memory vs an access inside MPI (not counted: completion '
      'through MPI is invisible to the tool), by place:')
for k, n in sorted(mediated.items(), key=lambda kv: -kv[1])[:12]:
    print('  %5d  %s' % (n, k))
if len(mediated) > 12:
    print('  ... %d more places' % (len(mediated) - 12))
print('reports in papcoll code: %d (%d distinct)' % (len(ours), len(uniq)))
sys.exit(1 if ours else 0)
EOF
races=$?
if [ "${KEEP_LOGS:-0}" = 1 ]; then
    echo "logs kept in $LOGS"
else
    rm -rf "$LOGS"
fi
if [ "$status" -ne 0 ]; then
    echo "check-threads: a test failed under ThreadSanitizer"
    exit 2
fi
if [ "$races" -ne 0 ]; then
    echo "check-threads: ThreadSanitizer found problems in papcoll's code"
    exit 1
fi
echo "check-threads: clean"
