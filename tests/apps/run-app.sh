#!/usr/bin/env bash
# run-app.sh APP P [ALG-SPEC]: runs a real, unmodified MPI application
# (Debian's packages) on P processes, natively and/or under papcoll's drop-in
# layer, and checks its answer (issue 13, item 6).
#
#   APP       hpcc | lammps | mpi4py
#   ALG-SPEC  native          the application alone (no layer)
#             default         under the layer, papcoll chooses (the default)
#             coll=alg[,coll=alg...]
#                             under the layer, PAPC_<COLL>_ALGORITHM=alg forced
#             set:K           under the layer, for every collective APP calls
#                             (APP_COLLS below), its K-th algorithm (modulo the
#                             number it has, in papc-info --algorithms order)
#                             forced, all at once: K = 0..7 covers every
#                             algorithm of every collective in 8 runs
#             count           under a counting shim (count-colls.c): which
#                             collectives APP calls, with reduction ops/types
#
# Checks:
#   hpcc    its own verification: HPL and PTRANS "PASSED" with 0 failed
#           residual checks, every RandomAccess "(passed)", STREAM "Solution
#           Validates", no node with errors, MPIFFT_maxErr < 1e-9 (HPCC prints
#           no verdict for FFT; its error on these sizes is ~1e-15), no
#           "FAILED" anywhere.  A tiny hpccinf.txt: N = 500, NB = 80, a P x Q
#           grid with P*Q = nprocs (4: 2x2, 3: 1x3, 5: 1x5).
#   lammps  examples/melt/in.melt (4000 atoms, 250 steps) with thermo output
#           every 25 steps printed with %.17g; compared with the native run at
#           the same P.  Bit for bit where the reduction order is the same
#           (reported EXACT); otherwise the largest relative difference must
#           be <= 1e-10.  Why that bound: the run is NVE, and the only
#           collectives that feed back into the trajectory are the velocity
#           set-up's sums (temperature scaling, zero momentum); a different
#           summation order changes them by an ulp or so, and 250 steps (1.25
#           tau) of the LJ melt amplify such a perturbation little: native
#           runs at P = 1, 3, 5 (which also change every force sum's order)
#           differ from P = 4 by at most 3e-12 relative (largest on the
#           pressure, a sum with cancellation; measured 2026-11-25).  1e-10
#           leaves a 30x margin over that and still catches any real error
#           (a wrong element or a missing contribution is >= 1e-4 relative).
#   mpi4py  tests/apps/mpi4py_app.py prints PASSED (exact expected results).
#
# Environment: PAPC_PMPI_LIB (the layer; default build/lib/libpapcoll-pmpi.so
# beside this source tree), PAPC_INFO (papc-info; default build/bin),
# MPIEXEC (default mpirun), PAPC_APPS_KEEP=1 keeps the work directory,
# PAPC_APPS_NO_REF=1 skips LAMMPS's native reference run and its check (for
# timing: tests/apps/time-apps.sh).  Prints the run's wall time.
# Exit: 0 passed, 1 failed, 77 skipped (the application is not installed).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
app=${1:?usage: run-app.sh APP P [ALG-SPEC]}
np=${2:?usage: run-app.sh APP P [ALG-SPEC]}
spec=${3:-default}
layer=${PAPC_PMPI_LIB:-$src/build/lib/libpapcoll-pmpi.so}
info=${PAPC_INFO:-$src/build/bin/papc-info}
mpiexec=${MPIEXEC:-mpirun}
python=/usr/bin/python3 # Debian's, where python3-mpi4py and numpy live
mpirun=("$mpiexec" -np "$np" --oversubscribe --allow-run-as-root
        --mca mpi_yield_when_idle 1)

# The collectives each application calls among those the layer serves, as
# the counting shim found them (run-app.sh APP P count; Open MPI 4.1.4,
# Debian 12 packages hpcc 1.5.0, lammps 20220106, mpi4py 3.1.4).
case $app in
  hpcc)   APP_COLLS="gather bcast reduce allreduce";;
  lammps) APP_COLLS="bcast reduce allreduce";;
  mpi4py) APP_COLLS="gather scatter bcast reduce allreduce gatherv scatterv";;
  *) echo "run-app.sh: unknown application '$app' (hpcc, lammps, mpi4py)" >&2
     exit 2;;
esac

# Skip (77) when the application is not installed.
case $app in
  hpcc)   command -v hpcc >/dev/null || { echo "SKIP: hpcc not installed"; exit 77; };;
  lammps) command -v lmp >/dev/null \
            && [ -f /usr/share/lammps/examples/melt/in.melt ] \
            || { echo "SKIP: lammps/lammps-examples not installed"; exit 77; };;
  mpi4py) $python -c 'import mpi4py, numpy' 2>/dev/null \
            || { echo "SKIP: python3-mpi4py/numpy not installed"; exit 77; };;
esac

status=0
work=$(mktemp -d "${TMPDIR:-/tmp}/papc-app-$app-p$np.XXXXXX")
# Kept when the run fails (or PAPC_APPS_KEEP=1), for a look at the outputs.
[ "${PAPC_APPS_KEEP:-0}" = 1 ] || trap '[ $status -ne 0 ] || rm -rf "$work"' EXIT
cd "$work" || exit 1

# The environment of the run under test: preload + forced algorithms.
envargs=()
case $spec in
  native) ;;
  count)
    mpicc -shared -fPIC -o "$work/libcount-colls.so" "$here/count-colls.c" \
      || exit 1
    envargs=(-x LD_PRELOAD="$work/libcount-colls.so");;
  *)
    [ -f "$layer" ] || { echo "run-app.sh: no layer at $layer (PAPC_PMPI_LIB)" >&2
                         exit 1; }
    envargs=(-x LD_PRELOAD="$layer")
    forced=""
    case $spec in
      default) ;;
      set:*)
        k=${spec#set:}
        algs=$("$info" --algorithms) || { echo "run-app.sh: $info failed" >&2; exit 1; }
        for c in $APP_COLLS; do
          list=($(awk -v c="$c" '$1 == c { print $2 }' <<<"$algs"))
          [ ${#list[@]} -gt 0 ] || continue
          forced+="${forced:+,}$c=${list[$((k % ${#list[@]}))]}"
        done;;
      *=*) forced=$spec;;
      *) echo "run-app.sh: bad ALG-SPEC '$spec'" >&2; exit 2;;
    esac
    IFS=, read -ra pairs <<<"$forced"
    for pr in "${pairs[@]}"; do
      [ -n "$pr" ] || continue
      c=${pr%%=*}; a=${pr#*=}
      envargs+=(-x "PAPC_${c^^}_ALGORITHM=$a")
    done
    # PAPC_VERBOSE: papcoll says when a forced name is unknown (a bad spec,
    # a failure here) or cannot serve a call (a non-commutative op: the
    # default choice serves it, counted below).
    [ -n "$forced" ] && { echo "run-app.sh: $app P=$np forced: $forced"
                          envargs+=(-x PAPC_VERBOSE=1); };;
esac

# The wall time of the run under test (mpirun to exit), and LAMMPS's own
# "Loop time" (the 250 steps alone) when a log is given.
wall() {
  local t1 loop=""
  t1=$(date +%s.%N)
  [ -n "${2:-}" ] && loop=$(sed -n 's/^Loop time of \([0-9.e+-]*\).*/ loop \1 s/p' "$2")
  echo "run-app.sh: wall $(awk -v a="$1" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') s$loop"
}
fail() { echo "run-app.sh: FAIL $app P=$np [$spec]: $*"; status=1; }

case $app in
hpcc)
  # The most square P x Q grid with P <= Q.
  pp=1
  for ((i = 1; i * i <= np; i++)); do (( np % i == 0 )) && pp=$i; done
  qq=$((np / pp))
  cat > hpccinf.txt <<EOF
HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
500          Ns
1            # of NBs
80           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
$pp            Ps
$qq            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                      		Number of additional problem sizes for PTRANS
1200 10000 30000        	values of N
0                       	number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64       	values of NB
EOF
  t0=$(date +%s.%N)
  "${mpirun[@]}" "${envargs[@]}" hpcc > run.out 2>&1 || fail "hpcc exited $?"
  wall "$t0"
  out=hpccoutf.txt
  if [ ! -s $out ]; then
    fail "no $out"; tail -20 run.out
  else
    grep -q 'Summary section' $out || fail "no summary (hpcc did not finish)"
    grep -q 'FAILED' $out && fail "$(grep -m3 FAILED $out)"
    [ "$(grep -c 'tests completed and failed residual checks' $out)" -eq 2 ] \
      || fail "HPL/PTRANS residual check lines missing"
    grep -E '^ *[1-9][0-9]* tests completed and failed residual' $out \
      && fail "residual checks failed"
    grep -Eq '^HPL_Tflops' $out && grep -q 'PASSED' $out || fail "no PASSED"
    [ "$(grep -c 'errors in .* locations (passed)' $out)" -eq 4 ] \
      || fail "RandomAccess: $(grep 'errors in' $out | tr '\n' ' ')"
    grep -q 'Solution Validates' $out || fail "STREAM does not validate"
    grep -E 'Node\(s\) with error [1-9]' $out && fail "a node reported errors"
    err=$(sed -n 's/^MPIFFT_maxErr=//p' $out)
    awk -v e="${err:-1}" 'BEGIN { exit !(e < 1e-9) }' \
      || fail "MPIFFT_maxErr=$err"
    npass=$(grep -c 'PASSED' $out)
    [ $status -eq 0 ] && echo "hpcc: PASSED (P=$np grid ${pp}x$qq: HPL+PTRANS" \
      "$npass PASSED, RandomAccess 4 passed, STREAM validates," \
      "MPIFFT_maxErr=$err)"
  fi
  [ "$spec" = count ] && grep '^count-colls' run.out;;
lammps)
  # The bundled example, unmodified but for finer thermo output printed
  # with every bit (%.17g).
  sed -e 's/^thermo\([[:space:]]\+\)50/thermo\125\nthermo_modify\tformat float %.17g/' \
      /usr/share/lammps/examples/melt/in.melt > in.melt
  # Thermo rows are compared in the log files (stdout mixes in stderr).
  if [ "$spec" = native ] || [ "${PAPC_APPS_NO_REF:-0}" != 1 ]; then
    t0=$(date +%s.%N)
    "${mpirun[@]}" lmp -in in.melt -log native.log -echo none > native.out 2>&1 \
      || fail "native lmp exited $?"
    [ "$spec" = native ] && wall "$t0" native.log
  fi
  if [ "$spec" != native ]; then
    t0=$(date +%s.%N)
    "${mpirun[@]}" "${envargs[@]}" lmp -in in.melt -log run.log -echo none \
      > run.out 2>&1 || fail "lmp exited $?"
    wall "$t0" run.log
    [ "${PAPC_APPS_NO_REF:-0}" = 1 ] && { [ $status -eq 0 ] && exit 0 || exit 1; }
    [ "$spec" = count ] && grep '^count-colls' run.out
    $python "$here/thermo-compare.py" native.log run.log --rtol 1e-10 \
      || fail "thermo output differs from native"
  else
    grep -Eq '^ +250 ' native.out || fail "native run did not reach step 250"
    echo "lammps: native run done (P=$np)"
  fi;;
mpi4py)
  "${mpirun[@]}" "${envargs[@]}" $python "$here/mpi4py_app.py" > run.out 2>&1 \
    || fail "mpi4py_app exited $?"
  cat run.out | grep -E '^(mpi4py_app|count-colls|rank)' | head -20
  grep -q 'mpi4py_app: PASSED' run.out || fail "no PASSED";;
esac

if [ -f run.out ] && [ "$spec" != native ] && [ "$spec" != count ]; then
  grep -m3 'is not a .* algorithm' run.out && fail "unknown algorithm name"
  n=$(grep -c 'cannot serve this call' run.out)
  [ "$n" -gt 0 ] && echo "run-app.sh: $n call(s) a forced algorithm could" \
    "not serve (non-commutative op) ran papcoll's default choice"
fi
if [ $status -ne 0 ]; then
  echo "---- last lines of the run ($work) ----"; tail -15 run.out 2>/dev/null
fi
exit $status
