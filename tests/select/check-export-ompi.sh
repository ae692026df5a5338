#!/usr/bin/env bash
# check-export-ompi.sh — proves that the Open MPI rules file papc-tune
# exports is APPLIED by Open MPI, not just written (issue 12, item 6).
#
# Open MPI 4.1's reader ignores a malformed rules file without a word, and
# Debian's build (no --enable-debug) compiles away every message of the
# reader and of the dynamic decision, so neither coll_base_verbose nor any
# other verbosity shows the parsed rules or the chosen algorithm.  What does
# show it: mca_coll_tuned.so calls Open MPI's coll/base algorithm functions
# through its PLT, and the preload ompi_coll_trace.so reports each call with
# the segment size (or chain count, linear_sync first part) it was given.
#
# 1. papc-tune --profile tests/select/profile-ompi.json --export-ompi F
#    (tests/select/export_driver when papc-tune has no exports yet): a
#    hand-written profile under which a known non-default algorithm wins
#    for each collective.
# 2. For bcast, gather, scatter, reduce and allreduce on NP ranks, the
#    rule F holds for the call (read as Open MPI 4.1 reads it:
#    rules_lookup.py) against what Open MPI ran with
#      --mca coll_tuned_use_dynamic_rules 1
#      --mca coll_tuned_dynamic_rules_filename F
#    on every rank: algorithm, segment size / chain fan-out / first part.
#    Without the file Open MPI must choose differently, or the case could
#    not tell an applied file from an ignored one (a failure of the test).
# 3. The converse: broken copies of F must fail the same check: the first
#    rule of each collective not at 0 bytes (the reader drops the whole
#    file), a truncated file, algorithm numbers off by one.
#
# Usage: tests/select/check-export-ompi.sh BUILD_DIR
# Environment: NP (ranks, default 4); SYNTHETIC=1 exports from made-up
# predictions (export_driver --synthetic) instead of the profile, so that
# every collective's rules (segments, chain fan-out, linear_sync's first
# part, gather's P x block) meet Open MPI whatever cost models this papcoll
# has.  Exit 0 pass, 1 fail, 77 skip (no Open MPI, ompi_info or python3).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: check-export-ompi.sh BUILD_DIR}
np=${NP:-4}
profile=$here/profile-ompi.json

say() { echo "check-export-ompi: $*"; }
skip() { say "SKIP: $*"; exit 77; }

mpicc=$(command -v mpicc.openmpi || true)
mpirun=$(command -v mpirun.openmpi || true)
[ -n "$mpicc" ] && [ -n "$mpirun" ] || skip "Open MPI (mpicc.openmpi, mpirun.openmpi) not installed"
command -v ompi_info >/dev/null || skip "ompi_info not found"
command -v python3 >/dev/null || skip "python3 not found"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$mpicc" -O2 -o "$tmp/probe" "$here/export_probe.c" -lm || exit 1
"$mpicc" -O2 -shared -fPIC -o "$tmp/trace.so" "$here/ompi_coll_trace.c" -ldl || exit 1

run=("$mpirun" --oversubscribe --allow-run-as-root --mca mpi_yield_when_idle 1)
ompi_params=$(ompi_info --param coll tuned --level 9 --parsable)

# --- 1. the export --------------------------------------------------------
rules=$tmp/rules.txt
tune=$build/bin/papc-tune
if [ "${SYNTHETIC:-0}" = 1 ]; then
  exporter="export_driver --synthetic"
  "$build/bin/export_driver" --synthetic 2 6 --ompi "$rules" \
    >"$tmp/export.log" 2>&1
elif [ -x "$tune" ] && "$tune" --help 2>&1 | grep -q -- --export-ompi; then
  exporter="papc-tune"
  "${run[@]}" -n 1 "$tune" --profile "$profile" --export-ompi "$rules" \
    >"$tmp/export.log" 2>&1
else
  exporter="export_driver"
  read -r pmin pmax < <(python3 -c 'import json,sys; print(*json.load(open(sys.argv[1]))["p_range"])' "$profile")
  "$build/bin/export_driver" "$profile" "$pmin" "$pmax" --ompi "$rules" \
    >"$tmp/export.log" 2>&1
fi
if [ ! -s "$rules" ]; then
  cat "$tmp/export.log"; say "FAIL: $exporter wrote no rules file"; exit 1
fi
say "exported $rules with $exporter"

# Open MPI's name of algorithm number N of collective COLL.
alg_name() {
  awk -F: -v p="coll_tuned_$1_algorithm" -v n="$2" \
      '$5 == p && $6 == "enumerator" && $8 == n { print $9 }' <<<"$ompi_params"
}

# Whether the trace reports the segment size Open MPI got for ALG.
carries_seg() {
  case "$1/$2" in
    bcast/basic_linear|gather/basic_linear|gather/binomial|scatter/*|\
    reduce/linear|reduce/rabenseifner|allreduce/basic_linear|\
    allreduce/recursive_doubling|allreduce/ring|allreduce/rabenseifner) return 1 ;;
  esac
  return 0
}

# What the rules file F says for COLL BYTES (block for gather/scatter), in
# the trace's terms "NAME seg S".
expected() {
  local f=$1 coll=$2 bytes=$3 msg
  msg=$bytes
  case "$coll" in gather|scatter) msg=$((np * bytes)) ;; esac
  local r alg fan seg name
  r=$(python3 "$here/rules_lookup.py" ompi "$f" "$coll" "$np" "$msg")
  [ "$r" != none ] || { echo "not in the file"; return; }
  read -r alg fan seg <<<"$r"
  [ "$alg" != 0 ] || { echo "Open MPI's fixed rules"; return; }
  name=$(alg_name "$coll" "$alg")
  [ "$name" != chain ] || name="chain/$fan"
  carries_seg "$coll" "$name" || seg=0
  echo "$name seg $seg"
}

# What Open MPI ran for COLL BYTES (extra mpirun arguments follow), the same
# on every rank, or a line saying what went wrong.
observed() {
  local coll=$1 bytes=$2; shift 2
  local out lines
  out=$("${run[@]}" -n "$np" -x LD_PRELOAD="$tmp/trace.so" "$@" \
        "$tmp/probe" "$coll" "$bytes" 2>&1)
  if ! grep -q "^probe: $coll $np bytes $bytes ok" <<<"$out"; then
    echo "run failed: $(grep -m1 -v '^ompi-trace' <<<"$out")"; return
  fi
  # each rank's first call: the one the decision made (an algorithm may
  # hand over to another, e.g. segmented_ring to ring for short vectors)
  lines=$(grep "^ompi-trace: rank [0-9]* $coll .* count $((bytes / 8))\$" <<<"$out" |
          awk '!seen[$3]++' |
          sed 's/^ompi-trace: rank [0-9]* [a-z]* //; s/ count [0-9]*$//' | sort | uniq -c)
  if [ -z "$lines" ]; then
    echo "no algorithm traced"; return
  fi
  if [ "$(wc -l <<<"$lines")" -ne 1 ] || [ "$(awk '{print $1}' <<<"$lines")" -ne "$np" ]; then
    echo "not one algorithm on every rank: $(tr '\n' ';' <<<"$lines")"; return
  fi
  sed 's/^ *[0-9]* //' <<<"$lines"
}

# coll:bytes (gather, scatter: a block); the synthetic rules also on either
# side of their boundaries, which pins the message size Open MPI keys on.
if [ "${SYNTHETIC:-0}" = 1 ]; then
  cases="bcast:1016 bcast:1024 bcast:65536 gather:2040 gather:2048
         gather:8192 scatter:504 scatter:8192 reduce:248 reduce:256
         reduce:65536 allreduce:4088 allreduce:4096 allreduce:65536"
else
  cases="bcast:65536 gather:8192 scatter:8192 reduce:65536 allreduce:65536"
fi

# Runs every case with rules file RUN, judged against what file WANT says;
# prints one line per case; returns the number of cases not applied.
check() {
  local runfile=$1 want=$2 bad=0 c coll bytes exp got
  for c in $cases; do
    coll=${c%%:*} bytes=${c##*:}
    exp=$(expected "$want" "$coll" "$bytes")
    got=$(observed "$coll" "$bytes" --mca coll_tuned_use_dynamic_rules 1 \
          --mca coll_tuned_dynamic_rules_filename "$runfile")
    if [ "$got" = "$exp" ]; then
      echo "  $coll $bytes B: applied ($got)"
    else
      echo "  $coll $bytes B: NOT applied: file says '$exp', Open MPI ran '$got'"
      bad=$((bad + 1))
    fi
  done
  return "$bad"
}

# --- 2. the exported file is applied, and that is visible -----------------
fail=0
say "P = $np; without the file Open MPI chooses:"
for c in $cases; do
  coll=${c%%:*} bytes=${c##*:}
  def=$(observed "$coll" "$bytes")
  exp=$(expected "$rules" "$coll" "$bytes")
  if [ "$def" = "$exp" ]; then
    echo "  $coll $bytes B: $def, the same as the file: this case cannot tell (FAIL)"
    fail=1
  else
    echo "  $coll $bytes B: $def (the file says $exp)"
  fi
done
say "with the exported file:"
check "$rules" "$rules" || fail=1

# --- 3. broken files must be caught by the same check ---------------------
python3 - "$rules" "$tmp" <<'EOF'
import re, sys
src, tmp = sys.argv[1], sys.argv[2]
lines = open(src).read().split("\n")
def numbers(line):
    return re.sub(r"#.*", "", line).split()
# (a) the first message rule of every communicator size not at 0 bytes
out, first = [], False
for ln in lines:
    n = numbers(ln)
    if len(n) == 2:
        first = True
    elif len(n) == 4 and first:
        ln = "1" + ln[ln.index("0") + 1:] if n[0] == "0" else ln
        first = False
    out.append(ln)
open(tmp + "/broken-not-from-0.txt", "w").write("\n".join(out))
# (b) truncated: the last message rule cut in half
last = max(i for i, l in enumerate(lines) if numbers(l))
cut = "\n".join(lines[:last]) + "\n" + " ".join(numbers(lines[last])[:2]) + "\n"
open(tmp + "/broken-truncated.txt", "w").write(cut)
# (c) algorithm numbers off by one (as if written by position)
out = []
for ln in lines:
    n = numbers(ln)
    if len(n) == 4 and n[1] != "0":
        n[1] = str(int(n[1]) + 1)
        ln = " ".join(n)
    out.append(ln)
open(tmp + "/broken-numbers.txt", "w").write("\n".join(out))
EOF
for broken in not-from-0 truncated numbers; do
  say "broken file ($broken):"
  if check "$tmp/broken-$broken.txt" "$rules"; then
    say "FAIL: the broken file ($broken) passed the check"
    fail=1
  else
    say "broken file ($broken) caught"
  fi
done

if [ "$fail" -ne 0 ]; then say "FAILED"; exit 1; fi
say "passed"
