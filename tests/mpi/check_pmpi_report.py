#!/usr/bin/env python3
"""check_pmpi_report.py — the drop-in layer's finalize report (issue 13,
item 5).  Runs test_pmpi_report (an allreduce site called 20 times, the last
rank sleeping 5 ms before each, and a bcast site called 5 times) under
papc-run with PAPC_REPORT set, then checks the text (<file>) and the CSV
(<file>.csv): both sites, the call counts, the forced algorithms, an
allreduce arrival spread of at least the sleep, the sleeping rank named as
the straggler; with --stragglers also the monitor's straggler view in
<file>.stragglers; and runs `papc-report calls` on the CSV.

usage: check_pmpi_report.py PAPC_RUN MPIEXEC NP PROGRAM PAPC_REPORT
           [--allreduce ALG] [--bcast ALG] [--stragglers] [-- MPIEXEC FLAGS]
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile

ALLREDUCE_CALLS, BCAST_CALLS, SLEEP_MS = 20, 5, 5.0
prog_src = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "test_pmpi_report.c")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main(argv):
    flags = []
    if "--" in argv:
        i = argv.index("--")
        argv, flags = argv[:i], argv[i + 1:]
    papc_run, mpiexec, np_, prog, papc_report = argv[:5]
    opts = argv[5:]
    alg = {"allreduce": "ring", "bcast": "binomial"}
    stragglers = "--stragglers" in opts
    for k in ("allreduce", "bcast"):
        if "--" + k in opts:
            alg[k] = opts[opts.index("--" + k) + 1]
    P = int(np_)
    tmp = tempfile.mkdtemp(prefix="papc-report-")
    rep = os.path.join(tmp, "report")
    env = dict(os.environ, PAPC_REPORT=rep,
               PAPC_ALLREDUCE_ALGORITHM=alg["allreduce"],
               PAPC_BCAST_ALGORITHM=alg["bcast"])
    cmd = [papc_run, mpiexec, "-np", np_] + flags + [prog]
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True,
                       timeout=100)
    sys.stdout.write(r.stdout)
    if r.returncode:
        fail("%s exited with %d" % (" ".join(cmd), r.returncode))
    for f in (rep, rep + ".csv"):
        if not os.path.exists(f):
            fail("no %s" % f)
    text = open(rep).read()
    print(text)
    rows = list(csv.DictReader(open(rep + ".csv")))
    by = {}
    for row in rows:  # the first bcast site is the one every rank calls
        by.setdefault(row["collective"], row)
    for coll, calls in (("allreduce", ALLREDUCE_CALLS),
                        ("bcast", BCAST_CALLS)):
        if coll not in by:
            fail("CSV has no %s site" % coll)
        row = by[coll]
        if "%s at %s" % (coll, row["site"]) not in text:
            fail("text has no site '%s at %s'" % (coll, row["site"]))
        if int(row["calls"]) != calls or row["calls_match"] != "1" \
                or int(row["ranks"]) != P:
            fail("%s: calls %s (match %s) on %s ranks, expected %d on %d"
                 % (coll, row["calls"], row["calls_match"], row["ranks"],
                    calls, P))
        if "calls %d " % calls not in text:
            fail("text lacks 'calls %d'" % calls)
        if row["algorithms"] != alg[coll] or \
                ("algorithm: " + alg[coll]) not in text:
            fail("%s: algorithms %r, expected %r"
                 % (coll, row["algorithms"], alg[coll]))
    if shutil.which("addr2line"):  # the program is built with -g
        for coll, line in (("allreduce", "MPI_Allreduce"),
                           ("bcast", "MPI_Bcast")):
            src = by[coll]["source"]
            if not src.startswith("main test_pmpi_report.c:"):
                fail("%s: source %r" % (coll, src))
            n = int(src.rsplit(":", 1)[1])
            lines = open(prog_src).read().splitlines()
            if line not in lines[n - 1]:
                fail("%s: line %d is %r" % (coll, n, lines[n - 1]))
    if len(rows) != 3:
        fail("%d sites in the CSV, expected 3" % len(rows))
    solo = rows[2]  # rank 0's MPI_COMM_SELF bcast: 1 rank of P
    if solo["collective"] != "bcast" or int(solo["ranks"]) != 1 or \
            solo["calls_match"] != "0" or int(solo["calls"]) != 1:
        fail("the rank-0-only site: %r" % solo)
    if "ranks 1 of %d, calls 1 (mismatch" % P not in text:
        fail("text does not show the rank-0-only site as a mismatch")
    a = by["allreduce"]
    if int(a["spread_n"]) != ALLREDUCE_CALLS:
        fail("allreduce: %s calls matched" % a["spread_n"])
    # Every call: rank P-1 enters >= SLEEP_MS after its exit from the previous
    # call, the others at once; on a loaded 2-core machine another rank can
    # be descheduled for as long, hence the margins on mean and count.
    if float(a["spread_max_ms"]) < SLEEP_MS or \
            float(a["spread_mean_ms"]) < 0.5 * SLEEP_MS:
        fail("allreduce spread mean %s max %s ms < the %g ms sleep"
             % (a["spread_mean_ms"], a["spread_max_ms"], SLEEP_MS))
    top = a["last_rank:count"].split(";")[0].split(":")
    if int(top[0]) != P - 1 or int(top[1]) < ALLREDUCE_CALLS // 2:
        fail("allreduce straggler %s, expected rank %d"
             % (a["last_rank:count"], P - 1))
    if ("entered last most often: rank %d (" % (P - 1)) not in text:
        fail("text does not name rank %d as straggler" % (P - 1))
    if int(a["bytes_per_call"]) != 2 * 4 * 8 or \
            int(by["bcast"]["bytes_per_call"]) != 16 * 4:
        fail("bytes per call %s / %s" % (a["bytes_per_call"],
                                         by["bcast"]["bytes_per_call"]))
    if stragglers:
        if not os.path.exists(rep + ".stragglers"):
            fail("no monitor straggler view %s.stragglers" % rep)
        if "straggler view" not in open(rep + ".stragglers").read():
            fail("%s.stragglers is not the straggler view" % rep)
    elif os.path.exists(rep + ".stragglers"):
        fail("a straggler view without the monitor")
    r = subprocess.run([papc_report, "calls", rep + ".csv"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    sys.stdout.write(r.stdout)
    if r.returncode or "allreduce" not in r.stdout:
        fail("papc-report calls failed (%d)" % r.returncode)
    shutil.rmtree(tmp, ignore_errors=True)
    print("report OK")


if __name__ == "__main__":
    main(sys.argv[1:])
