#!/bin/sh
# check_site_per_row.sh REPORT -- MPIEXEC ... papc-bench ARGS
# papc-bench --site-per-row (papc_arrival_site_tag): run twice with the
# arrival report (PAPC_REPORT=REPORT), once as given and once with
# --site-per-row added; the first must list one gather site without a tag,
# the second one gather site per algorithm row, each with a tag of its own
# (a row's own history and views).  Also: papc-bench exits 0 both times.
report=$1
shift 2
fail() { echo "site per row check: FAILED: $*"; exit 1; }
sites() { grep -c '^gather root=0 ' "$report"; }
rm -f "$report" "$report.csv"
PAPC_REPORT=$report "$@" || fail "papc-bench exit $? without --site-per-row"
[ -f "$report" ] || fail "no report $report"
cat "$report"
[ "$(sites)" -eq 1 ] || fail "$(sites) gather sites without --site-per-row, not 1"
! grep -q '^gather .* tag=' "$report" || fail "a tagged site without --site-per-row"
rm -f "$report" "$report.csv"
PAPC_REPORT=$report "$@" --site-per-row || fail "papc-bench exit $? with --site-per-row"
cat "$report"
tags=$(grep '^gather root=0 ' "$report" | grep -c ' tag=')
[ "$tags" -eq 3 ] || fail "$tags tagged gather sites with --site-per-row, not 3 (one per row: sls, sbn, auto)"
[ "$(grep '^gather root=0 ' "$report" | sed -n 's/.* tag=\([0-9]*\).*/\1/p' | sort -u | wc -l)" -eq 3 ] ||
  fail "the tags are not distinct"
echo "site per row check: passed"
