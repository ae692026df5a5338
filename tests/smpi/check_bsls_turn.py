#!/usr/bin/env python3
"""Checks the cost of a turn of BSLS's background chain in simulation
(ctest smpi_bsls_turn_p16; docs/scale.md, "At 512-4,096 processes",
section 7).

    tests/smpi/check_bsls_turn.py BENCH.csv [--max-excess-us 10]

BENCH.csv: papc-bench's CSV of a gather with linear_sync and
background_sorted_linear_sync (BSLS) at delay 0.  BSLS's root monitor takes
the P - 1 parts one after another, each after a go-ahead (two messages per
turn), as linear_sync's root does in the foreground.  A transport that
wakes a monitor before its message has arrived makes it poll (20 us naps)
until the message is there: ~40 us more per turn than linear_sync.  Fails
(exit 1, one line per problem) when a row is missing or has errors, or
when BSLS's run time r exceeds linear_sync's by more than --max-excess-us
per turn; prints "bsls turns: ok ..." otherwise.
"""
import argparse
import csv
import sys

LS, BSLS = "linear_sync", "background_sorted_linear_sync"


def read_rows(path):
    with open(path) as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


def delay0(rows, alg):
    for r in rows:
        if r["algorithm"] == alg and float(r["max_delay_ms"]) == 0:
            return r
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--max-excess-us", type=float, default=10.0,
                    help="BSLS's r over linear_sync's, per turn (default 10)")
    a = ap.parse_args()
    rows = read_rows(a.csv)
    ls, bsls = delay0(rows, LS), delay0(rows, BSLS)
    bad = [f"missing row: {alg} at delay 0"
           for alg, r in ((LS, ls), (BSLS, bsls)) if r is None]
    bad += [f"wrong results: {r['algorithm']}" for r in (ls, bsls)
            if r is not None and int(r["errors"]) != 0]
    if bad:
        print("\n".join(bad))
        return 1
    turns = int(bsls["P"]) - 1
    excess = (float(bsls["r_mean_ms"]) - float(ls["r_mean_ms"])) * 1e3 / turns
    line = (f"P = {bsls['P']}: bsls r {float(bsls['r_mean_ms']):.4f} ms, "
            f"linear_sync r {float(ls['r_mean_ms']):.4f} ms: "
            f"{excess:+.1f} us per turn (at most {a.max_excess_us:g})")
    if excess > a.max_excess_us:
        print(f"bsls turns too slow: {line}")
        return 1
    print(f"bsls turns: ok, {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
