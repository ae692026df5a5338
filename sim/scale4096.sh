#!/usr/bin/env bash
# sim/scale4096.sh — papcoll's classic results at 512-4,096 processes under
# SimGrid SMPI on sim/platforms/fattree4096.xml (issue 16; docs/scale.md,
# "At 512-4,096 processes").  Every run goes through sim/run --lock (one big
# simulation at a time) under /usr/bin/time -v, so each result comes with
# the simulation's own cost (NAME.time: wall, CPU, maximum RSS).
#   sim/scale4096.sh OUT cost|select512|select1024|guide4096|classic4096|arrival4096|
#                        guide1024|selectbcast1024|selectgather4096...
# (PAPC_SCALE_PROFILE=FILE: an existing P = 64 profile instead of re-tuning)
#
# SMPI 3.32 and communicators (docs/scale.md): with smpi/coll-selector:ompi
# the bcast that gives a new communicator its id runs Open MPI's "knomial"
# rule, which SMPI maps to bcast__mvapich2_knomial_intra_node, which first
# builds the SMP layout of the communicator (Comm::init_smp: a ring
# allgather over all P ranks).  Its simulation cost grows as ~P^2.5: 1 s at
# P = 256, 10 s at 512, 49 s of CPU at 1,024 per MPI_Comm_dup, and papcoll
# duplicates every communicator it serves.  Runs at P >= 2,048 therefore
# set smpi/bcast to a non-SMP algorithm (nosmp below): binomial_tree, or for
# a bcast cell the algorithm Open MPI's rule picks at that P and size.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${1:?output dir}; shift
mkdir -p "$out"
plat=fattree4096
nosmp=(--cfg smpi/bcast:binomial_tree)
# Start only when /work/QUIET is absent AND the lock is free (a run queued
# behind the lock must not start during the lead's measurements).
quiet() {
  local lock=${PAPC_SMPI_LOCK:-/work/SMPI.lock}
  while :; do
    while [ -e /work/QUIET ]; do sleep 20; done
    flock -n "$lock" true 2>/dev/null && [ ! -e /work/QUIET ] && return
    sleep 10
  done
}
run() {  # NAME P TIMEOUT [sim/run options] -- TOOL ARGS
  local name=$1 np=$2 tmo=$3; shift 3
  quiet
  local rc=0
  /usr/bin/time -v -o "$out/$name.time" "$here/run" -p "$plat" -n "$np" --lock \
      --timeout "$tmo" "$@" >"$out/$name.txt" 2>"$out/$name.err" || rc=$?
  echo "rc=$rc" >>"$out/$name.time"
  printf '%-28s rc=%s %s\n' "$name" "$rc" "$(cost "$out/$name.time")"
}
cost() {  # wall, CPU and memory of one run from its /usr/bin/time -v file
  awk -F': ' '/Elapsed/ {w=$2} /User time/ {u=$2} /System time/ {s=$2}
      /Maximum resident/ {m=$2} END {printf "wall %s cpu %.1f s rss %.0f MB", w, u+s, m/1024}' "$1"
}
profile=${PAPC_SCALE_PROFILE:-$out/profile-fattree-p64.json}
need_profile() {  # the P = 64 profile of "Model-based selection accuracy at 64-256"
  [ -r "$profile" ] && return
  run tune-p64 64 2400 -- papc-tune --quick --procs 4,32,64 \
      --collectives bcast,gather -o "$profile" --csv "$out/tune-p64.csv"
}
for exp in "$@"; do
  case "$exp" in
  cost)  # item 1: what a communicator and a linear receive cost the simulation
    smpicc -O2 -o "$out/comm_cost" "$here/comm_cost.c"
    for p in 256 512 1024; do
      run cost-dup-$p $p 900 -- "$out/comm_cost" dup 1
      run cost-dup-nosmp-$p $p 900 "${nosmp[@]}" -- "$out/comm_cost" dup 1
    done
    for p in 512 4096; do for w in init gather_recv gather_wait gather_waitall; do
      run cost-$w-$p $p 1800 "${nosmp[@]}" -- "$out/comm_cost" $w 2
    done; done ;;
  select512|select1024)  # item 2: the P = 64 profile used at P = 512 / 1,024.
    # Open MPI's rules as at 64-256 (native comparable); bcast without the
    # 1 MiB cell: its eagerly sent segments keep SimGrid's network solver
    # busy (P = 512: unfinished after 7 min of CPU, 2.1 GB).
    need_profile
    p=${exp#select}
    sel=(-i 1 --min-iterations 1 -x 1 --profile "$profile" --platform smpi-fattree)
    run select-gather-P$p $p 5400 -- papc-select-bench -c gather -m 8,4K,64K,1M \
        "${sel[@]}" --csv "$out/select-gather-P$p.csv"
    run select-bcast-P$p $p 5400 -- papc-select-bench -c bcast -m 8,4K,64K \
        "${sel[@]}" --csv "$out/select-bcast-P$p.csv" ;;
  guide4096)  # item 3a: Traff's guidelines, size_aware_binomial vs native (the
    # linear variant dropped: its root waits on P - 1 requests, O(P^2) in SMPI)
    for coll in gatherv scatterv; do
      run guide-$coll-P4096 4096 5400 "${nosmp[@]}" -- papc-guide --coll $coll \
          --algs size_aware_binomial -i 1 -x 0 --csv "$out/guide-$coll-P4096.csv"
    done ;;
  classic4096)  # item 3b: papcoll's best classic algorithm vs SMPI's Open MPI rules
    run classic-gather-P4096 4096 3600 "${nosmp[@]}" -- papc-classic-bench --coll gather \
        --alg binomial --sizes 4K -i 1 -x 0 --csv "$out/classic-P4096.csv"
    run classic-allreduce-P4096 4096 3600 "${nosmp[@]}" -- papc-classic-bench \
        --coll allreduce --alg rabenseifner --sizes 1M -i 1 -x 0 --csv "$out/classic-P4096.csv"
    # Open MPI's rule at P >= 4,096 and >= 256 KiB is scatter_allgather, which
    # SMPI runs as scatter_rdb_allgather: set it for the whole run (no init_smp)
    run classic-bcast-P4096 4096 3600 --cfg smpi/bcast:scatter_rdb_allgather -- \
        papc-classic-bench --coll bcast --alg binomial --sizes 256K -i 1 -x 0 \
        --csv "$out/classic-P4096.csv" ;;
  arrival4096)  # item 3c: one arrival-aware loop with the monitor.  Progress on
    # stderr (no -q) and stdout line-buffered (stdbuf's library, inherited by
    # smpimain), so the table survives if the monitors' shutdown handshake
    # (2P(P-1) FIN messages, 33.5 million at P = 4,096) outlasts the timeout.
    LD_PRELOAD=/usr/libexec/coreutils/libstdbuf.so _STDBUF_O=L \
    PAPC_ARRIVAL_STATS="$out/stats-gather-4096.txt" \
      run arrival-gather-P4096 4096 ${PAPC_SCALE_ARRIVAL_TIMEOUT:-2400} "${nosmp[@]}" -- \
        papc-bench -c gather -a native,linear_sync,sls,bsls --baseline linear_sync -m 4Ki \
        -d 10 --mode rand-late --compute 20 -i 2 -x 1 --csv "$out/arrival-gather-P4096.csv" ;;
  guide1024)  # the guidelines at P = 1,024 with every algorithm, to size the
    # 4,096 run (docs/scale.md, "Irregular gatherv/scatterv ... at p = 4,096")
    run guide-P1024 1024 3600 "${nosmp[@]}" -- papc-guide -i 1 -x 1 \
        --csv "$out/guide-P1024.csv" ;;
  selectbcast1024)  # bcast selection at P = 1,024 after select.c's fix
    # (docs/scale.md "Bcast selection at P = 1,024"); Open MPI's rules as at 512
    need_profile
    run select-bcast-P1024 1024 5400 -- papc-select-bench -c bcast -m 8,4K,64K \
        -i 1 --min-iterations 1 -x 1 --profile "$profile" --platform smpi-fattree \
        --csv "$out/select-bcast-P1024.csv" ;;
  selectgather4096)  # gather selection at P = 4,096 (no 1 MiB: 4 GiB at the root)
    need_profile
    run select-gather-P4096 4096 5400 "${nosmp[@]}" -- papc-select-bench -c gather \
        -m 8,4K,64K,256K -i 1 --min-iterations 1 -x 1 --profile "$profile" \
        --platform smpi-fattree --csv "$out/select-gather-P4096.csv" ;;
  *) echo "sim/scale4096.sh: unknown experiment $exp" >&2; exit 2 ;;
  esac
done
