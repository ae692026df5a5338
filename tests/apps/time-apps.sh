#!/usr/bin/env bash
# time-apps.sh [P] [REPS]: wall time of hpcc and LAMMPS (the tests/apps
# inputs) natively, under papcoll's drop-in layer with its default choice,
# and with each algorithm of allreduce and bcast (the collectives both call
# most) forced; the median of REPS runs (default 5) at P processes (default
# 4) on this machine.  For docs/performance.md (issue 13 item 7).  LAMMPS
# also reports its own loop time (the 250 steps, without start-up).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
info=${PAPC_INFO:-$src/build/bin/papc-info}
np=${1:-4}; reps=${2:-5}
algs=$("$info" --algorithms) || exit 1
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2); else print "NA" }'; }
printf '%-6s %-34s %9s %9s %s\n' app spec "wall s" "loop s" "(median of $reps, P=$np)"
for app in lammps hpcc; do
  specs=(native default)
  for c in allreduce bcast; do
    for a in $(awk -v c="$c" '$1 == c { print $2 }' <<<"$algs"); do
      specs+=("$c=$a")
    done
  done
  for spec in "${specs[@]}"; do
    walls=(); loops=(); ok=1
    for ((r = 0; r < reps; r++)); do
      out=$(PAPC_APPS_NO_REF=1 "$here/run-app.sh" "$app" "$np" "$spec" 2>&1) || ok=0
      walls+=("$(sed -n 's/^run-app.sh: wall \([0-9.]*\) s.*/\1/p' <<<"$out")")
      loops+=("$(sed -n 's/^run-app.sh: wall .* loop \([0-9.e+-]*\) s/\1/p' <<<"$out")")
    done
    printf '%-6s %-34s %9s %9s %s\n' "$app" "$spec" \
      "$(printf '%s\n' "${walls[@]}" | median)" \
      "$(printf '%s\n' "${loops[@]}" | grep . | median)" \
      "$([ $ok = 1 ] || echo FAILED)"
  done
done
