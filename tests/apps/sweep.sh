#!/usr/bin/env bash
# sweep.sh [APP...]: the full sweep of issue 13 item 6 — every application
# (default: hpcc lammps mpi4py) under papcoll's drop-in layer with every
# algorithm of every collective it calls forced in turn (one at a time, the
# others left to papcoll's default choice), plus the layer's default choice,
# at P = 4 and P = 3 (and P = 5 for lammps and mpi4py).  A line per run; a
# summary at the end; exit 1 if any run failed.  Takes ~10 minutes on two
# cores.  `make test` runs a subset (tests/apps/CMakeLists.txt: every
# algorithm, but all collectives' K-th algorithms forced in one run).
# Environment as for run-app.sh (PAPC_PMPI_LIB, PAPC_INFO, MPIEXEC).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
info=${PAPC_INFO:-$src/build/bin/papc-info}
apps=("$@")
[ ${#apps[@]} -gt 0 ] || apps=(hpcc lammps mpi4py)
algs=$("$info" --algorithms) || { echo "sweep.sh: $info failed" >&2; exit 1; }

declare -A colls=(
  [hpcc]="gather bcast reduce allreduce"
  [lammps]="bcast reduce allreduce"
  [mpi4py]="gather scatter bcast reduce allreduce gatherv scatterv")
declare -A sizes=([hpcc]="4 3" [lammps]="4 3 5" [mpi4py]="4 3 5")

runs=0; failed=()
one() { # app p spec
  local t0=$SECONDS out rc
  out=$(timeout 600 "$here/run-app.sh" "$@" 2>&1); rc=$?
  runs=$((runs + 1))
  local verdict
  verdict=$(grep -E 'PASSED|thermo-compare|FAIL|SKIP' <<<"$out" | head -2 \
            | tr '\n' ' ')
  printf '%-7s P=%-2s %-45s rc=%-3s %3ss  %s\n' "$1" "$2" "$3" "$rc" \
         $((SECONDS - t0)) "$verdict"
  [ $rc -eq 0 ] || [ $rc -eq 77 ] || failed+=("$*")
}

for app in "${apps[@]}"; do
  for p in ${sizes[$app]}; do
    one "$app" "$p" default
    for c in ${colls[$app]}; do
      for a in $(awk -v c="$c" '$1 == c { print $2 }' <<<"$algs"); do
        one "$app" "$p" "$c=$a"
      done
    done
  done
done
echo "sweep.sh: $runs runs, ${#failed[@]} failed"
for f in "${failed[@]}"; do echo "  FAILED: run-app.sh $f"; done
[ ${#failed[@]} -eq 0 ]
