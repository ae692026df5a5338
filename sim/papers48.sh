#!/usr/bin/env bash
# sim/papers48.sh — the Proficz papers' and Clairvoyant's 48-node experiments
# and the arrival runtime's message counts, under SimGrid SMPI (issue 16;
# docs/scale.md).  Each experiment is one papc-bench run through
# sim/run on sim/platforms/proficz48.xml (48 nodes, 1 Gbit/s, one switch),
# one at a time under /work/SMPI.lock.  Results: CSV + text in OUT.
#   sim/papers48.sh OUT counts|gather|scatter|allreduce|reduce|reduce-scale...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?output dir}; shift
mkdir -p "$out"
# Pipelines of many small messages to one peer (allreduce SLT, reduce):
# SMPI shares a link among all messages in flight, so eagerly posted
# segments to one peer arrive together instead of one after another, and a
# pipeline degenerates into store-and-forward (SLT at 1 Mi floats, P = 48:
# 3,162 ms instead of 105 ms).  rdv=1 starts a message when its receive is
# posted (smpi/async-small-thresh:0, SMPI's default): FIFO per peer, as
# one TCP connection delivers.  See docs/scale.md, "pap-allreduce.md Table 3 at 48 nodes".
rdv=0
run() {  # NAME PLATFORM P TIMEOUT -- papc-bench args
  local name=$1 plat=$2 np=$3 tmo=$4; shift 5
  local cfg=()
  [ "$rdv" = 1 ] && cfg=(--cfg smpi/async-small-thresh:0)
  "$here/run" -p "$plat" -n "$np" --lock --timeout "$tmo" "${cfg[@]}" -- papc-bench "$@" \
      -q --csv "$out/$name.csv" >"$out/$name.txt" 2>&1
}
for exp in "$@"; do
  case "$exp" in
  counts)  # estimates to deciders vs to every peer (PAPC_ESTIMATE_DESTS=all)
    for p in 48; do for d in deciders all; do
      for loop in "gather sls" "gather bsls" "allreduce slt"; do
        set -- $loop
        PAPC_ARRIVAL_STATS="$out/stats-$1-$2-$p-$d.txt" PAPC_ESTIMATE_DESTS=$d \
          run "counts-$1-$2-$p-$d" proficz48 $p 600 -- -c $1 -a $2 -d 10 \
          --mode rand-late -i 4 -x 1 --compute 20
      done; done; done ;;
  counts512)  # P = 512 on the fat tree, estimates to deciders only (5 min each;
              # SLT left out: at P = 512 its eager pipeline hits SMPI's link sharing)
    for loop in "gather sls" "gather bsls"; do
      set -- $loop
      PAPC_ARRIVAL_STATS="$out/stats-$1-$2-512-deciders.txt" \
        run "counts-$1-$2-512-deciders" fattree4096 512 900 -- -c $1 -a $2 -d 10 \
        --mode rand-late -i 4 -x 1 --compute 20
    done ;;
  gather)   # pap-scatter-gather.md Fig. 15 / Table 4: LS vs SLS vs BSLS
    run gather48 proficz48 48 1800 -- -c gather \
      -a native,linear_sync,sls,bsls --baseline linear_sync -m 1Mi,2Mi \
      -d 0,1,5,10,50,100,500 --mode rand-late --compute 200 -i 10 -x 1 ;;
  scatter)  # Fig. 14 / Table 3: LIN vs SLIN vs BSLN
    run scatter48 proficz48 48 1800 -- -c scatter \
      -a native,basic_linear,slin,bsln --baseline basic_linear -m 1Mi,2Mi \
      -d 0,1,5,10,50,100,500 --mode rand-late --compute 200 -i 10 -x 1 ;;
  allreduce)  # pap-allreduce.md Table 3: 1 Mi floats, one process late
    rdv=1 run allreduce48 proficz48 48 1800 -- -c allreduce \
      -a native,ring,rabenseifner,prr,slt --baseline ring -m 1Mi \
      -d 0,1,5,10,50,100,500,1000 --mode one-late --compute 200 -i 10 -x 1 ;;
  allreduce-published)  # PRR with the paper's pre-step rule (Fig. 7 lines 1-6)
    rdv=1 run allreduce48-published proficz48 48 1800 -- -c allreduce \
      -a ring,pre_reduced_ring_published --baseline ring -m 1Mi \
      -d 0,10,50,100 --mode one-late --compute 200 -i 10 -x 1 ;;
  reduce)  # clairvoyant-reduce.md Fig. 10: 512 Ki floats, 48 nodes
    rdv=1 run reduce48 proficz48 48 1800 -- -c reduce \
      -a native,binomial,rabenseifner,radix_k,ring,clairvoyant --baseline native \
      -m 512Ki -d 0,10,50,100,500 --mode rand-late --compute 200 -i 10 -x 1 ;;
  reduce-scale)  # Fig. 11: 128 Ki floats, 50 ms, P = 8 .. 48
    for p in 8 16 32 48; do
      rdv=1 run reduce-scale-$p proficz48 $p 900 -- -c reduce \
        -a native,binomial,rabenseifner,radix_k,ring,clairvoyant --baseline native \
        -m 128Ki -d 50 --mode rand-late --compute 200 -i 10 -x 1
    done ;;
  *) echo "sim/papers48.sh: unknown experiment $exp" >&2; exit 2 ;;
  esac
done
