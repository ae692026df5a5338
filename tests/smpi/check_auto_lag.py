#!/usr/bin/env python3
"""Checks when papcoll's plain call follows a late process in simulation
(ctest smpi_auto_lag_p16; docs/scale.md, "At 512-4,096 processes",
section 9).

    tests/smpi/check_auto_lag.py TRACE.csv [--expect rabenseifner] [--from 1]

TRACE.csv: papc-bench's --trace of `-c allreduce -a auto --mode one-late
-d 10 -x 1` in a fresh run: rank 1 is late by 10 ms from the first call
on.  The plain call chooses from the previous call's agreed view and
switches when the spread lasted two views, so it can run the better row
from its third call on, i.e. from the second measured iteration (--from 1,
counted from 0).  Until session 7 of issue 16 the first two plain calls
ran an MPI_Allreduce (the profile agreement) before their arrival was
stamped; the late process' wait hid in it, their views showed no one late,
and the plain call ran the ring in every one of three measured calls.
Fails (exit 1, one line) when a measured iteration from --from on ran
another row than --expect, when ranks ran different rows, or when the
plain call's rows are missing; prints "auto lag: ok ..." otherwise.
"""
import argparse
import csv
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--expect", default="rabenseifner")
    ap.add_argument("--from", dest="first", type=int, default=1)
    a = ap.parse_args()
    ran = {}
    with open(a.trace) as f:
        for r in csv.DictReader(l for l in f if not l.startswith("#")):
            if r["algorithm"] == "auto":
                ran.setdefault(int(r["iteration"]), set()).add(r["ran"])
    if not ran:
        print("auto lag: missing rows of the plain call (auto)")
        return 1
    seq = []
    for it in sorted(ran):
        if len(ran[it]) != 1:
            print(f"auto lag: ranks ran different rows in iteration {it}: "
                  f"{sorted(ran[it])}")
            return 1
        seq.append(next(iter(ran[it])))
    line = ", ".join(seq)
    late = [i for i, s in enumerate(seq) if i >= a.first and s != a.expect]
    if late or len(seq) <= a.first:
        print(f"auto lag: plain call too late: measured iterations ran {line} "
              f"({a.expect} expected from iteration {a.first} on)")
        return 1
    print(f"auto lag: ok, measured iterations ran {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
