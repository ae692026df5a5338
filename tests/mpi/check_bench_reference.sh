#!/bin/sh
# check_bench_reference.sh MODE CSV -- MPIEXEC ... papc-bench ARGS
# papc-bench --reference (issue 16): MODE
#   ok      exit 0; the CSV names the references "reduce binomial, allreduce
#           native" (allreduce has no binomial: it keeps native), has no
#           reduce native row (native never ran for reduce), a reduce
#           binomial row (the baseline defaults to the reference) and no
#           errors;
#   fault   with PAPC_BENCH_FAULT=ring (the ring's result is changed after
#           each measured call): exit 1, "WRONG RESULT" for the ring of
#           both collectives, every measured iteration of the ring counted
#           as an error and none of the other rows';
#   refuse  exit 2 with the reason (arrival-aware reference).
mode=$1 csv=$2
shift 3
rm -f "$csv"
case $mode in
  fault) out=$(PAPC_BENCH_FAULT=ring "$@" 2>&1) ;;
  *) out=$("$@" 2>&1) ;;
esac
rc=$?
echo "$out"
fail() { echo "bench reference check ($mode): FAILED: $*"; exit 1; }
case $mode in
  ok)
    [ $rc -eq 0 ] || fail "exit $rc, not 0"
    grep -q '^# reference: reduce binomial, allreduce native$' "$csv" ||
      fail "no '# reference: reduce binomial, allreduce native' in $csv"
    ! grep -q '^reduce,native,' "$csv" || fail "a reduce native row"
    grep -q '^reduce,binomial,' "$csv" || fail "no reduce binomial row"
    grep -q '^allreduce,native,' "$csv" || fail "no allreduce native row"
    awk -F, '!/^#/ && $1 != "coll" && $21 != 0 { bad = 1 } END { exit bad }' \
      "$csv" || fail "errors in $csv"
    ;;
  fault)
    [ $rc -eq 1 ] || fail "exit $rc, not 1"
    echo "$out" | grep -q 'WRONG RESULT: reduce ring.*differ from the reference (binomial)' ||
      fail "no WRONG RESULT for reduce ring against binomial"
    echo "$out" | grep -q 'WRONG RESULT: allreduce ring.*differ from the reference (native)' ||
      fail "no WRONG RESULT for allreduce ring against native"
    awk -F, '!/^#/ && $1 != "coll" {
               if ($2 == "ring" && $21 != $8) bad = 1
               if ($2 != "ring" && $21 != 0) bad = 1 }
             END { exit bad }' "$csv" || fail "error counts in $csv"
    ;;
  refuse)
    [ $rc -eq 2 ] || fail "exit $rc, not 2"
    echo "$out" | grep -q 'is arrival-aware' || fail "no reason given"
    ;;
  *) fail "unknown mode" ;;
esac
echo "bench reference check ($mode): passed"
