#!/usr/bin/env bash
# arrival-select-bench.sh — the sweep behind issue 15's goals (arrival-aware
# selection): does papcoll's plain call pick the best algorithm when
# processes arrive late, and cost nothing when they do not?
#
# For each collective (gather, scatter, reduce, allreduce) one papc-bench
# run with every algorithm papcoll registers for it (classic and
# arrival-aware), native (the MPI library's own call), auto (the plain
# call) and auto_classic (the plain call with arrival-aware selection
# off), at 256 Ki and 2 Mi floats, one-late and rand-late, maximum delays
# 0, 10, 50 and 200 ms, P = 8: on shared memory (mpirun) and, with
# --cluster, on testbed/'s emulated 8-host 1 Gbit/s cluster (one rank per
# host; needs root).  Then, per collective, the balanced runs: delay 0
# only (where one-late and rand-late are the same experiment), native,
# auto and auto_classic only, many more iterations, so that "auto within
# 3 % of auto_classic" can be told from noise (a 10-iteration mean of one
# setting is noisier than that here).  Every measurement holds the lock
# file (flock), so only one timing runs on the machine at a time.  Then
# `papc-report arrival-select DIR` prints the per-setting table and the
# goals (DIR/report.txt).
#
# Results: DIR/<platform>/<coll>.csv (papc-bench --csv), .txt (its tables),
# .err (its progress); DIR/<platform>/balanced/<coll>.* the same for the
# balanced runs; DIR/<platform>/figures/ (papc-report bench);
# DIR/report.txt; DIR/commands.log (every command, its wait for the lock,
# load, duration).
#
# Durations on the 2-core development VM (Open MPI 4.1.4, load 3-9 from
# other work; waits for the lock not counted, commands.log has each run's),
# about proportional to -i + -x:
#   cluster, defaults (-i 10 -x 1): about 37 min: main runs gather 368 s and
#     scatter 370 s (measured), reduce about 470 s and allreduce about
#     750 s (measured at -i 6 -x 2: 337 s, 544 s; scaled); balanced runs
#     218 s (measured: 40, 42, 66, 70 s);
#   shared memory, defaults: about 22 min: main runs about 1270 s (measured
#     at -i 5 -x 1: 159, 158, 155, 219 s; scaled), balanced runs 64 s;
#   --quick: shared memory about 1.5 min, cluster about 2 min.
#
# Usage: scripts/arrival-select-bench.sh [--cluster] [--quick] [options]
#   --cluster         also the emulated cluster (after shared memory)
#   --cluster-only    only the emulated cluster
#   --quick           a smoke run: 256Ki only, delays 0 and 50 ms, 3
#                     measured iterations after 1 warm-up, 50 ms compute;
#                     balanced runs of 6 iterations
#   -o DIR            results (default arrival-select-<UTC date>)
#   -b DIR            build directory with bin/ (default build)
#   -c LIST           collectives (default gather,scatter,reduce,allreduce)
#   -m LIST           sizes in floats (default 256Ki,2Mi)
#   -d LIST           maximum delays in ms (default 0,10,50,200)
#   -i N              measured iterations (default 10)
#   -x N              warm-up iterations (default 1: the first call of a
#                     setting decides from the previous setting's arrivals)
#   --compute MS      compute phase without delay (default 100)
#   --mode M          one-late, rand-late or both (default both)
#   --site-per-row    papc-bench --site-per-row: every algorithm at a call
#                     site of its own (its own history predictor), as in a
#                     program; without, a row's predictions can learn
#                     each iteration's delays from the rows run before it
#   --balanced-iterations N   measured iterations of the balanced runs
#                     (default 40; 0 = no balanced runs)
#   --balanced-only   only the balanced runs (into an existing DIR, say)
#   -P N              shared-memory processes (default 8)
#   --hosts N         cluster hosts, one rank each (default 8)
#   --lock FILE       lock held around each measurement (default
#                     /work/TESTBED.lock when /work exists; "" = none)
#   --wait-for FILE   before each run, wait while FILE exists (a
#                     "machine busy" flag of whoever else measures)
#   --no-report       skip papc-report
#   --trace           also papc-bench --trace per collective (DIR/<platform>/
#                     <coll>.trace.csv: every iteration's arrivals and exits),
#                     from which papc-report judges how precisely the sweep
#                     can tell 5 % (split-half oracle, paired medians)
# Environment: TIMEOUT (seconds per papc-bench run, default 3600),
# MPIRUN_ARGS (extra mpirun arguments on shared memory), PAPC_* variables
# reach every rank (e.g. PAPC_PROFILE for the plain call's model).
set -euo pipefail

root_dir=$(cd "$(dirname "$0")/.." && pwd)
build=$root_dir/build
out=""
do_shm=1
do_cluster=0
quick=0
colls=gather,scatter,reduce,allreduce
sizes=""
delays=""
iters=""
warmup=""
compute=""
bal_iters=""
main_runs=1
procs=8
hosts=8
lock=""
[ ! -d /work ] || lock=/work/TESTBED.lock
report=1
trace=0
mode=both
site_per_row=()
busy_flag=""
tmo=${TIMEOUT:-3600}

die() { echo "arrival-select-bench: $*" >&2; exit 1; }
say() { echo "arrival-select-bench: $*" >&2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --cluster) do_cluster=1; shift ;;
    --cluster-only) do_cluster=1; do_shm=0; shift ;;
    --quick) quick=1; shift ;;
    -o) out=$2; shift 2 ;;
    -b) build=$2; shift 2 ;;
    -c) colls=$2; shift 2 ;;
    -m) sizes=$2; shift 2 ;;
    -d) delays=$2; shift 2 ;;
    -i) iters=$2; shift 2 ;;
    -x) warmup=$2; shift 2 ;;
    --compute) compute=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --site-per-row) site_per_row=(--site-per-row); shift ;;
    --balanced-iterations) bal_iters=$2; shift 2 ;;
    --balanced-only) main_runs=0; shift ;;
    -P) procs=$2; shift 2 ;;
    --hosts) hosts=$2; shift 2 ;;
    --lock) lock=$2; shift 2 ;;
    --no-report) report=0; shift ;;
    --trace) trace=1; shift ;;
    --wait-for) busy_flag=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (try --help)" ;;
  esac
done
for v in "$iters" "$warmup" "$procs" "$hosts" "$bal_iters"; do
  case $v in *[!0-9]*) die "-i, -x, -P, --hosts and --balanced-iterations need whole numbers" ;; esac
done
if [ "$quick" = 1 ]; then
  : "${sizes:=256Ki}" "${delays:=0,50}" "${iters:=3}" "${warmup:=1}" "${compute:=50}" "${bal_iters:=6}"
fi
: "${sizes:=256Ki,2Mi}" "${delays:=0,10,50,200}" "${iters:=10}" "${warmup:=1}" "${compute:=100}" "${bal_iters:=40}"
[ "$main_runs" = 1 ] || [ "$bal_iters" -gt 0 ] || die "--balanced-only with --balanced-iterations 0 runs nothing"

build=$(cd "$build" && pwd) || die "no build directory $build"
bench=$build/bin/papc-bench
[ -x "$bench" ] || die "$bench not found: build first (make build, or -b DIR)"
if [ "$do_cluster" = 1 ] && [ "$(id -u)" != 0 ]; then
  die "the emulated cluster needs root (testbed/run); run as root or drop --cluster"
fi
if [ -n "$lock" ]; then
  command -v flock >/dev/null || die "flock not found (util-linux); --lock '' runs without the lock"
fi

[ -n "$out" ] || out=arrival-select-$(date -u +%Y%m%dT%H%MZ)
mkdir -p "$out"
out=$(cd "$out" && pwd)
log=$out/commands.log

bench_args=(-a all,auto,auto_classic -m "$sizes" -d "$delays" --mode "$mode"
            -i "$iters" -x "$warmup" --compute "$compute" ${site_per_row[@]+"${site_per_row[@]}"})
balanced_args=(-a native,auto,auto_classic -m "$sizes" -d 0 --mode rand-late
               -i "$bal_iters" -x "$warmup" --compute "$compute" ${site_per_row[@]+"${site_per_row[@]}"})

# Runs a command under the lock and the time limit, logging it, how long
# it waited for the lock and how long it ran; returns its status.
waited=0
run() {
  local t0 t1 rc=0 fd
  t0=$(date +%s)
  printf '%q ' "$@" >>"$log"
  echo >>"$log"
  while [ -n "$busy_flag" ] && [ -e "$busy_flag" ]; do sleep 20; done
  if [ -n "$lock" ]; then
    exec {fd}>>"$lock"
    flock "$fd"
  fi
  t1=$(date +%s)
  waited=$((waited + t1 - t0))
  echo "#   waited $((t1 - t0)) s for the lock (and --wait-for); load before: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$log"
  if [ -n "$lock" ]; then
    # the measured command does not inherit the lock's descriptor
    timeout "$tmo" "$@" </dev/null {fd}>&- || rc=$?
    flock -u "$fd"
    exec {fd}>&-
  else
    timeout "$tmo" "$@" </dev/null || rc=$?
  fi
  echo "#   exit $rc after $(( $(date +%s) - t1 )) s; load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$log"
  [ "$rc" = 0 ] || say "exit $rc: $*"
  return "$rc"
}

launch_shm() {
  # shellcheck disable=SC2086
  run mpirun --oversubscribe --allow-run-as-root --mca mpi_yield_when_idle 1 \
      ${MPIRUN_ARGS:-} -n "$procs" "$@"
}
launch_cluster() {
  run "$root_dir/testbed/run" -n "$hosts" --build "$build" -- "$@"
}

{
  echo "# arrival-select-bench.sh $(date -u '+%Y-%m-%dT%H:%M:%SZ') on $(hostname)," \
       "$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'))," \
       "$(ompi_info --version 2>/dev/null | head -1)"
  echo "# git: $(git -C "$root_dir" describe --always --dirty 2>/dev/null || echo unknown)"
  env | grep '^PAPC_' | sed 's/^/# env: /' || true
} >>"$log"
start=$(date +%s)
failures=0

# One papc-bench run per collective, so a failure costs one file; then the
# balanced runs.
platform() {
  local name=$1 launcher=$2 dir=$out/$1 coll t0
  mkdir -p "$dir"
  for coll in ${colls//,/ }; do
    [ "$main_runs" = 1 ] || break
    say "$name: $coll ($(( $(date +%s) - start )) s so far) ..."
    t0=$(date +%s)
    local extra=()
    [ "$trace" = 0 ] || extra=(--trace "$dir/$coll.trace.csv")
    "$launcher" "$bench" -c "$coll" "${bench_args[@]}" --csv "$dir/$coll.csv" \
        "${extra[@]}" >"$dir/$coll.txt" 2>"$dir/$coll.err" || failures=$((failures + 1))
    say "$name: $coll took $(( $(date +%s) - t0 )) s (lock waits so far: $waited s)"
  done
  [ "$bal_iters" -gt 0 ] || return 0
  mkdir -p "$dir/balanced"
  for coll in ${colls//,/ }; do
    say "$name: $coll, balanced runs ($(( $(date +%s) - start )) s so far) ..."
    t0=$(date +%s)
    "$launcher" "$bench" -c "$coll" "${balanced_args[@]}" \
        --csv "$dir/balanced/$coll.csv" >"$dir/balanced/$coll.txt" \
        2>"$dir/balanced/$coll.err" || failures=$((failures + 1))
    say "$name: $coll, balanced runs took $(( $(date +%s) - t0 )) s"
  done
}

[ "$do_shm" = 0 ] || platform shm launch_shm
[ "$do_cluster" = 0 ] || platform cluster launch_cluster

echo "# whole run $(( $(date +%s) - start )) s, of which $waited s waiting for the lock; $failures failed" >>"$log"
say "runs done in $(( $(date +%s) - start )) s ($waited s of it waiting for the lock), $failures failed; data in $out"
if [ "$report" = 1 ]; then
  "$build/bin/papc-report" arrival-select "$out" | tee "$out/report.txt" \
    || failures=$((failures + 1))
  # papc-bench's figures (auto and auto_classic drawn as lines of their own)
  for dir in "$out"/shm "$out"/cluster; do
    csvs=()
    for f in "$dir"/*.csv; do
      case $f in *.trace.csv) ;; *) [ ! -e "$f" ] || csvs+=("$f") ;; esac
    done
    [ "${#csvs[@]}" -gt 0 ] || continue
    "$build/bin/papc-report" bench "${csvs[@]}" -o "$dir/figures" \
        >"$dir/figures.log" 2>&1 \
      || say "no figures for $dir (see $dir/figures.log; matplotlib missing?)"
  done
fi
[ "$failures" = 0 ]
