#!/usr/bin/env bash
# time-apps.sh [P] [REPS] [APP:SPEC...]: wall time of hpcc and LAMMPS (the
# tests/apps inputs) natively, under papcoll's drop-in layer with its
# default choice, and with each algorithm of allreduce and bcast (the
# collectives both call most) forced — or just the APP:SPEC pairs given
# (e.g. lammps:native lammps:default lammps:bcast=binomial).  The runs are
# interleaved (round r runs every spec once), so a change in the load of a
# shared machine hits every spec alike; the median of REPS rounds (default
# 5) at P processes (default 4).  LAMMPS also reports its own loop time
# (the 250 steps, without start-up).  For docs/performance.md (issue 13).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
info=${PAPC_INFO:-$src/build/bin/papc-info}
np=${1:-4}; reps=${2:-5}; shift 2 2>/dev/null || shift $#
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2); else print "NA" }'; }
runs=("$@")
if [ ${#runs[@]} -eq 0 ]; then
  algs=$("$info" --algorithms) || exit 1
  for app in lammps hpcc; do
    runs+=("$app:native" "$app:default")
    for c in allreduce bcast; do
      for a in $(awk -v c="$c" '$1 == c { print $2 }' <<<"$algs"); do
        runs+=("$app:$c=$a")
      done
    done
  done
fi
declare -A walls loops bad
for ((r = 0; r < reps; r++)); do
  for run in "${runs[@]}"; do
    app=${run%%:*}; spec=${run#*:}
    out=$(PAPC_APPS_NO_REF=1 "$here/run-app.sh" "$app" "$np" "$spec" 2>&1) \
      || bad[$run]=FAILED
    walls[$run]+="$(sed -n 's/^run-app.sh: wall \([0-9.]*\) s.*/\1/p' <<<"$out") "
    loops[$run]+="$(sed -n 's/^run-app.sh: wall .* loop \([0-9.e+-]*\) s/\1/p' <<<"$out") "
  done
done
printf '%-6s %-34s %9s %9s %s\n' app spec "wall s" "loop s" "(median of $reps, P=$np)"
for run in "${runs[@]}"; do
  printf '%-6s %-34s %9s %9s %s\n' "${run%%:*}" "${run#*:}" \
    "$(tr ' ' '\n' <<<"${walls[$run]}" | grep . | median)" \
    "$(tr ' ' '\n' <<<"${loops[$run]}" | grep . | median)" "${bad[$run]:-}"
done
