#!/usr/bin/env bash
# arrival-calibrate.sh — fits each row's arrival correction (papc-tune
# --arrival-refit; model.h, papc_profile_arrival) on the platform it runs on
# and writes a copy of a profile with it.
#
# One papc-bench run per collective with every algorithm papcoll registers
# (no native, no auto), one-late and rand-late, at maximum delays that are
# NOT those of scripts/arrival-select-bench.sh (default 20 and 100 ms: the
# sweep measures 10, 50 and 200), with --trace, so every measured iteration
# gives one point (each rank's arrival and exit); then papc-tune
# --arrival-refit fits, in the anchored form (--arrival-form anchored; the
# default since the sixteenth session), ē − w ≈ a·(ē_model − t0 − w) + c·t0
# per row (w: the wait no row avoids; --form first: ē ≈ a·(ē_model − t0) +
# c·t0, the form before), for every size and per size measured
# (--arrival-per-size; --pooled: for every size alone), and writes
# OUT = PROFILE + the corrections.  Each run holds the lock (flock) so only
# one timing runs at a time.  About 10 min on the emulated 8-host cluster
# (defaults), 1.5 min with --quick.
#
# Usage: scripts/arrival-calibrate.sh --profile IN -o DIR [options]
#   --profile FILE   the balanced profile (papc-tune's); its corrections
#                    are replaced, the rest copied
#   -o DIR           traces, logs and DIR/profile.json
#   -b DIR           build directory with bin/ (default build)
#   --cluster        the emulated cluster (testbed/run, root; default:
#                    shared memory, mpirun -n P)
#   -c LIST          collectives (default gather,scatter,reduce,allreduce)
#   -m LIST          sizes in floats (default 256Ki,2Mi)
#   -d LIST          maximum delays in ms (default 20,100)
#   -i N, -x N       measured and warm-up iterations (default 4, 1)
#   -P N             processes / hosts (default 8)
#   --quick          256Ki only, -i 2
#   --pooled         one correction per row for every size (the fit before
#                    the eleventh session; default: also one per size)
#   --form F         anchored (default) or first: the correction's form
#                    (docs/arrival.md, "The anchored form"; measured in
#                    docs/performance.md, sweep 16)
#   --lock FILE      lock around each run (default /work/TESTBED.lock when
#                    /work exists; "" = none)
set -euo pipefail
root_dir=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "arrival-calibrate.sh: $*" >&2; exit 2; }
profile="" out="" build=build cluster=0 colls=gather,scatter,reduce,allreduce
sizes=256Ki,2Mi delays=20,100 iters=4 warm=1 P=8 lock="" per_size=--arrival-per-size form=anchored
[ ! -d /work ] || lock=/work/TESTBED.lock
while [ $# -gt 0 ]; do
  case $1 in
    --profile) profile=$2; shift 2 ;;
    --pooled) per_size=""; shift ;;
    --form) form=$2; shift 2
            case $form in anchored|first) ;; *) die "--form $form: not anchored or first" ;; esac ;;
    -o) out=$2; shift 2 ;;
    -b) build=$2; shift 2 ;;
    --cluster) cluster=1; shift ;;
    -c) colls=$2; shift 2 ;;
    -m) sizes=$2; shift 2 ;;
    -d) delays=$2; shift 2 ;;
    -i) iters=$2; shift 2 ;;
    -x) warm=$2; shift 2 ;;
    -P) P=$2; shift 2 ;;
    --quick) sizes=256Ki iters=2; shift ;;
    --lock) lock=$2; shift 2 ;;
    -h|--help) sed -n '2,39p' "$0"; exit 0 ;;
    *) die "unknown option $1" ;;
  esac
done
[ -n "$profile" ] && [ -f "$profile" ] || die "--profile FILE (an existing profile) is required"
[ -n "$out" ] || die "-o DIR is required"
build=$(cd "$build" && pwd)
[ -x "$build/bin/papc-bench" ] && [ -x "$build/bin/papc-tune" ] || die "$build/bin has no papc-bench/papc-tune"
if [ "$cluster" = 1 ] && [ "$(id -u)" != 0 ]; then die "--cluster needs root (testbed/run)"; fi
mkdir -p "$out"
log=$out/commands.log
echo "# arrival-calibrate.sh $(date -u +%FT%TZ) on $(hostname), git $(git -C "$root_dir" rev-parse --short HEAD 2>/dev/null || echo ?)" >>"$log"
traces=""
IFS=, read -ra list <<<"$colls"
for coll in "${list[@]}"; do
  bench=("$build/bin/papc-bench" -c "$coll" -a all -m "$sizes" -d "$delays"
         --mode both -i "$iters" -x "$warm" --compute 100
         --csv "$out/$coll.csv" --trace "$out/$coll.trace.csv")
  if [ "$cluster" = 1 ]; then
    cmd=("$root_dir/testbed/run" -n "$P" --build "$build" -- "${bench[@]}")
  else
    cmd=(mpirun --oversubscribe --allow-run-as-root --mca mpi_yield_when_idle 1 -n "$P" "${bench[@]}")
  fi
  echo "${cmd[*]}" >>"$log"
  t0=$(date +%s)
  if [ -n "$lock" ]; then
    flock "$lock" "${cmd[@]}" >"$out/$coll.txt" 2>"$out/$coll.err"
  else
    "${cmd[@]}" >"$out/$coll.txt" 2>"$out/$coll.err"
  fi
  echo "#   exit 0 after $(( $(date +%s) - t0 )) s" >>"$log"
  traces=${traces:+$traces,}$out/$coll.trace.csv
done
fit=("$build/bin/papc-tune" --profile "$profile" --arrival-refit "$traces"
     ${per_size:+"$per_size"} --arrival-form "$form" -o "$out/profile.json"
     --csv "$out/points.csv")
echo "${fit[*]}" >>"$log"
"${fit[@]}" 2>&1 | tee "$out/fit.txt"
