#!/usr/bin/env bash
# check-export-mpich.sh — proves that the MPICH collective-selection JSON
# papc-tune exports is read and APPLIED by MPICH (Debian 12: MPICH 4.0.2,
# ch4:ucx), not just written (issue 12, item 6).
#
# What MPICH 4.0.2 shows: its reader aborts MPI_Init on a file it cannot
# use (JSON syntax, an unknown key or algorithm name, a non-boolean level
# without "=any"), and a collective missing from the file aborts when it is
# called.  Nothing prints the algorithm chosen (its algorithms are hidden
# symbols, no pvar or verbose CVAR names them).  What shows it anyway:
# with MPIR_CVAR_NOLOCAL=1 every message goes through UCX, and the preload
# mpich_ucx_trace.so counts per rank the messages, bytes and peers the
# probed call sends; MPICH's algorithms differ in those counts.
#
# 1. papc-tune --profile tests/select/profile-mpich.json --export-mpich F
#    (tests/select/export_driver when papc-tune has no exports yet).
# 2. MPICH accepts F: the five collectives, and every other collective MPI
#    has ("export_probe others": blocking, non-blocking, in place,
#    non-commutative op, intercommunicator, neighbourhood) run under
#    MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=F.
# 3. For bcast, gather, scatter, reduce and allreduce on NP ranks: the
#    algorithm F names for the call (rules_lookup.py walks it as MPICH
#    does) is forced with MPICH's own CVAR (MPIR_CVAR_<COLL>_INTRA_ALGORITHM)
#    to get its message counts; the run under F must give the same counts.
#    Where MPICH's own choice has the same counts (papcoll and MPICH share
#    only binomial for bcast, gather and scatter) the case is reported as
#    not observable; at least one case must be observable and all
#    observable ones applied.
# 4. The converse: broken copies of F must fail the same check: a
#    collective missing, an unknown algorithm name, a truncated file, a
#    valid file whose allreduce choice is MPICH's own instead of the
#    export's, and that choice without the built-in-op / count >= pof2
#    guards MPICH's Rabenseifner needs.
#
# Usage: tests/select/check-export-mpich.sh BUILD_DIR
# Environment: NP (ranks, default 4).  Exit 0 pass, 1 fail, 77 skip (no
# MPICH, no UCX headers, no python3).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: check-export-mpich.sh BUILD_DIR}
np=${NP:-4}
profile=$here/profile-mpich.json

say() { echo "check-export-mpich: $*"; }
skip() { say "SKIP: $*"; exit 77; }

mpicc=$(command -v mpicc.mpich || true)
mpiexec=$(command -v mpiexec.mpich || true)
[ -n "$mpicc" ] && [ -n "$mpiexec" ] || skip "MPICH (mpicc.mpich, mpiexec.mpich) not installed (scripts/setup-deps.sh libmpich-dev mpich)"
command -v python3 >/dev/null || skip "python3 not found"
[ -f /usr/include/ucp/api/ucp.h ] || skip "UCX headers not installed (libucx-dev)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$mpicc" -O2 -o "$tmp/probe" "$here/export_probe.c" -lm || exit 1
"$mpicc" -O2 -shared -fPIC -o "$tmp/trace.so" "$here/mpich_ucx_trace.c" -ldl || exit 1

# --- 1. the export --------------------------------------------------------
json=$tmp/csel.json
tune=$build/bin/papc-tune
ompirun=(mpirun --oversubscribe --allow-run-as-root --mca mpi_yield_when_idle 1)
if [ -x "$tune" ] && "$tune" --help 2>&1 | grep -q -- --export-mpich; then
  exporter="papc-tune"
  "${ompirun[@]}" -n 1 "$tune" --profile "$profile" --export-mpich "$json" \
    >"$tmp/export.log" 2>&1
else
  exporter="export_driver"
  read -r pmin pmax < <(python3 -c 'import json,sys; print(*json.load(open(sys.argv[1]))["p_range"])' "$profile")
  "$build/bin/export_driver" "$profile" "$pmin" "$pmax" --mpich "$json" \
    >"$tmp/export.log" 2>&1
fi
if [ ! -s "$json" ]; then
  cat "$tmp/export.log"; say "FAIL: $exporter wrote no JSON file"; exit 1
fi
say "exported $json with $exporter"

# Runs the probe on P ranks under MPICH with extra -genv pairs (P KEY VALUE
# ... -- PROBE ARGS); prints its output.
mpich_run() {
  local p=$1; shift
  local args=("$@") env=() i
  for ((i = 0; i + 2 < ${#args[@]}; i += 2)); do
    [ "${args[i]}" = -- ] && break
    env+=(-genv "${args[i]}" "${args[i + 1]}")
  done
  timeout 120 "$mpiexec" -n "$p" -genv MPIR_CVAR_NOLOCAL 1 \
    -genv LD_PRELOAD "$tmp/trace.so" "${env[@]}" "$tmp/probe" "${args[@]:i+1}" 2>&1
}

# The per-rank message counts of COLL BYTES on P ranks (P, KEY VALUE pairs
# of CVARs, --, COLL BYTES), or a line saying what went wrong.
counts() {
  local out p=$1
  out=$(mpich_run "$@")
  local coll=${*: -2:1} bytes=${*: -1}
  if ! grep -q "^probe: $coll $p bytes $bytes ok" <<<"$out"; then
    echo "run failed: $(grep -m1 -v '^ucx-trace' <<<"$out" | cut -c1-160)"; return
  fi
  grep '^ucx-trace: rank' <<<"$out" | sort -k3n | sed 's/^ucx-trace: //' | tr '\n' ';'
}

# The MPIR algorithm file F names for COLL BYTES on P ranks.
named() {
  local f=$1 coll=$2 bytes=$3 p=$4 total=$3
  case "$coll" in gather|scatter) total=$((p * bytes)) ;; esac
  python3 "$here/rules_lookup.py" mpich "$f" "$coll" "$p" "$bytes" \
    "$total" "$((bytes / 8))"
}

# MPICH's CVAR forcing MPIR algorithm NAME of COLL: "VAR VALUE".
forcing() {
  local coll=$1 name=$2 value
  value=${name#MPIR_*_intra_}
  echo "MPIR_CVAR_$(tr a-z A-Z <<<"$coll")_INTRA_ALGORITHM $value"
}

# coll:bytes[:ranks] (gather, scatter: a block).  bcast on 8 ranks: below 8
# MPICH's own table takes binomial at every size, as the export does.
cases="bcast:65536:8 gather:8192 scatter:8192 reduce:65536 allreduce:65536"

# Full check of file RUN judged against file WANT; prints a line per step;
# returns the number of failures.
check() {
  local runfile=$1 want=$2 bad=0 seen=0 c coll bytes p alg force ref got def
  local out
  out=$(mpich_run "$np" MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE "$runfile" -- others)
  if grep -q "^probe: others $np ok" <<<"$out"; then
    echo "  every other collective: accepted"
  else
    echo "  every other collective: FAILED: $(grep -m2 -v '^ucx-trace\|^/\|^\./' <<<"$out" | tr '\n' ' ' | cut -c1-200)"
    bad=$((bad + 1))
  fi
  for c in $cases; do
    IFS=: read -r coll bytes p <<<"$c"
    p=${p:-$np}
    alg=$(named "$want" "$coll" "$bytes" "$p")
    read -r -a force <<<"$(forcing "$coll" "$alg")"
    ref=$(counts "$p" "${force[@]}" -- "$coll" "$bytes")
    got=$(counts "$p" MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE "$runfile" -- "$coll" "$bytes")
    def=$(counts "$p" -- "$coll" "$bytes")
    if [[ "$got" == "run failed"* ]]; then
      echo "  $coll $bytes B, P $p: NOT applied: $got"
      bad=$((bad + 1))
    elif [ "$ref" = "$def" ]; then
      echo "  $coll $bytes B, P $p: accepted; not observable ($alg is MPICH's own choice too)"
      [ "$got" = "$ref" ] || { echo "    ... and yet the counts differ: $got"; bad=$((bad + 1)); }
    elif [ "$got" = "$ref" ]; then
      echo "  $coll $bytes B, P $p: applied ($alg: ${ref%%;*}; MPICH's own: ${def%%;*})"
      seen=$((seen + 1))
    else
      echo "  $coll $bytes B, P $p: NOT applied: $alg gives '${ref%%;*}', the run '${got%%;*}'"
      bad=$((bad + 1))
    fi
  done
  if [ "$seen" -eq 0 ] && [ "$bad" -eq 0 ]; then
    echo "  no case could tell an applied file from MPICH's own choice"
    bad=1
  fi
  return "$bad"
}

fail=0
say "P = $np, MPIR_CVAR_NOLOCAL=1, with the exported file:"
check "$json" "$json" || fail=1

# --- broken files must be caught by the same check --------------------------
python3 - "$json" "$tmp" <<'EOF'
import json, sys
src, tmp = sys.argv[1], sys.argv[2]
text = open(src).read()
d = json.loads(text)
del d["collective=barrier"]
json.dump(d, open(tmp + "/broken-no-barrier.json", "w"), indent=1)
open(tmp + "/broken-bad-name.json", "w").write(
    text.replace("MPIR_Allreduce_intra_recursive_doubling",
                 "MPIR_Allreduce_intra_recursive_doubling_x"))
open(tmp + "/broken-truncated.json", "w").write(text[: len(text) // 2])
# MPICH's own allreduce choice instead of the export's, guards kept: read
# without complaint, so only the message counts can tell
d = json.loads(text)
d["collective=allreduce"]["comm_type=intra"]["is_op_built_in=yes"][
    "count=any"] = {
    "algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {}}
json.dump(d, open(tmp + "/broken-mpich-choice.json", "w"), indent=1)
# the same without the guards: MPICH asserts on a user op or count < pof2
d = json.loads(text)
d["collective=allreduce"]["comm_type=intra"] = {
    "algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {}}
json.dump(d, open(tmp + "/broken-unguarded.json", "w"), indent=1)
EOF
for broken in no-barrier bad-name truncated mpich-choice unguarded; do
  say "broken file ($broken):"
  if check "$tmp/broken-$broken.json" "$json"; then
    say "FAIL: the broken file ($broken) passed the check"
    fail=1
  else
    say "broken file ($broken) caught"
  fi
done

if [ "$fail" -ne 0 ]; then say "FAILED"; exit 1; fi
say "passed"
