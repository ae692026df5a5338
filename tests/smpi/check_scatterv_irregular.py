#!/usr/bin/env python3
"""Checks that TUW scatterv on irregular problems costs about what it costs
on `same` at b = 1 in simulation (ctest smpi_scatterv_irregular_p256;
docs/scale.md, "Why TUW scatterv grew with p").

    tests/smpi/check_scatterv_irregular.py GUIDE.csv [--max-ratio 1.25]

GUIDE.csv: papc-guide's CSV of scatterv with size_aware_binomial at b = 1
on the same, random and spikes problems.  At b = 1 every message is a few
bytes, so the time is the tree's rounds: the construction (2 steps a round
when gather roots and fixed roots differ, as on irregular problems) and
the relaying, the same number of rounds for every problem.  Fails (exit 1,
one line per problem) when a row is missing or when random or spikes take
more than --max-ratio times `same`; prints "scatterv irregular: ok ..."
otherwise.
"""
import argparse
import csv
import sys

ALG = "papc_size_aware_binomial"


def read_rows(path):
    with open(path) as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


def tuw_us(rows, problem):
    for r in rows:
        if (r["collective"] == "scatterv" and r["problem"] == problem
                and r["implementation"] == ALG and int(r["b"]) == 1):
            return float(r["min_us"]), int(r["P"])
    return None, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--max-ratio", type=float, default=1.25,
                    help="irregular over same (default 1.25)")
    a = ap.parse_args()
    rows = read_rows(a.csv)
    same, P = tuw_us(rows, "same")
    if same is None:
        print("missing row: same")
        return 1
    bad, parts = [], [f"same {same:.1f} us"]
    for problem in ("random", "spikes"):
        t, _ = tuw_us(rows, problem)
        if t is None:
            bad.append(f"missing row: {problem}")
            continue
        ratio = t / same
        parts.append(f"{problem} {t:.1f} us ({ratio:.2f}x)")
        if ratio > a.max_ratio:
            bad.append(f"scatterv irregular too slow: P = {P}: {problem} "
                       f"{t:.1f} us, {ratio:.2f}x same's {same:.1f} us "
                       f"(at most {a.max_ratio:g}x)")
    if bad:
        print("\n".join(bad))
        return 1
    print(f"scatterv irregular: ok, P = {P}: " + ", ".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
