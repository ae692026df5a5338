#!/usr/bin/env python3
"""Checks a papc-bench CSV of a simulated run (ctest smpi_bench_p16).

    sim/check_bench.py BENCH.csv --algorithms a,b,c --delays 0,10

Fails (exit 1, one line per problem) when
  - a (algorithm, delay) row the run asked for is missing, or has no
    finite, positive run time;
  - a row's `errors` column is not 0: papc-bench compared that algorithm's
    result with the native collective bit for bit in some iteration and
    they differed;
  - the emulated computation did not become simulated time: papc-bench's
    ideal bound follows the ranks' arrival times, so with delays up to D ms
    it must grow by at least D / 2 ms over the delay-0 row (with real sleeps
    SMPI's clock would not move and the bound would stay put).
Prints "simulated bench: ok (N rows)" otherwise.
"""
import argparse
import csv
import math
import sys


def read_rows(path):
    with open(path) as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


def problems(rows, algorithms, delays):
    found = {(r["algorithm"], float(r["max_delay_ms"])): r for r in rows}
    out = []
    for alg in algorithms:
        for d in delays:
            r = found.get((alg, d))
            if r is None:
                out.append(f"missing row: {alg} at delay {d:g} ms")
                continue
            t = float(r["r_mean_ms"])
            if not (math.isfinite(t) and t > 0):
                out.append(f"no run time: {alg} at delay {d:g} ms ({t})")
            if int(r["errors"]) != 0:
                out.append(f"wrong results: {alg} at delay {d:g} ms, "
                           f"{r['errors']} iterations differ from native")
    zero = [r for r in rows if float(r["max_delay_ms"]) == 0]
    for r in rows:
        d = float(r["max_delay_ms"])
        base = [z for z in zero if z["algorithm"] == r["algorithm"]]
        if d > 0 and base:
            grew = float(r["ideal_mean_ms"]) - float(base[0]["ideal_mean_ms"])
            if not grew >= d / 2:
                out.append(f"computation not simulated: {r['algorithm']}'s "
                           f"ideal bound grew {grew:.2f} ms with delays up "
                           f"to {d:g} ms")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--algorithms", required=True)
    ap.add_argument("--delays", required=True)
    a = ap.parse_args()
    try:
        rows = read_rows(a.csv)
    except OSError as e:
        sys.exit(f"check_bench.py: {e}")
    found = problems(rows, a.algorithms.split(","),
                     [float(d) for d in a.delays.split(",")])
    for p in found:
        print(p)
    if found:
        sys.exit(1)
    print(f"simulated bench: ok ({len(rows)} rows)")


if __name__ == "__main__":
    main()
