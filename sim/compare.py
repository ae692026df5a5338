#!/usr/bin/env python3
"""Tables the same papc-bench run measured twice (the emulated cluster and
SMPI): each algorithm's run time r (median and mean over the iterations)
side by side, the ratio SMPI / cluster and whether it is within the goal.

    sim/compare.py CLUSTER.csv SMPI.csv [--goal 0.15] [--stat median]

Rows are matched on (collective, algorithm, bytes, delay); a row missing on
one side is an error.  Prints a Markdown table and, last, "N of M within
15 %"; exits 0 (the table is the result, misses are explained in
docs/scale.md).
"""
import argparse
import csv
import sys


def read_rows(path):
    with open(path) as f:
        lines = [l for l in f if not l.startswith("#")]
    rows = {}
    for r in csv.DictReader(lines):
        key = (r["coll"], r["algorithm"], int(r["bytes"]),
               float(r["max_delay_ms"]))
        rows[key] = r
    if not rows:
        raise ValueError(f"{path}: no rows")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cluster")
    ap.add_argument("smpi")
    ap.add_argument("--goal", type=float, default=0.15)
    ap.add_argument("--stat", choices=["median", "mean"], default="median")
    a = ap.parse_args()
    try:
        cl, sm = read_rows(a.cluster), read_rows(a.smpi)
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"compare.py: {e}")
    if set(cl) != set(sm):
        sys.exit(f"compare.py: the runs differ in rows: "
                 f"{sorted(set(cl) ^ set(sm))[:4]}")
    col = f"r_{a.stat}_ms"
    print(f"| collective | algorithm | bytes | max delay ms | cluster r {a.stat} ms "
          f"(sd) | SMPI r {a.stat} ms (sd) | SMPI / cluster | within "
          f"{a.goal:.0%} |")
    print("|---|---|---:|---:|---:|---:|---:|:-:|")
    hits = 0
    for key in sorted(cl, key=lambda k: (k[0], k[2], k[3], k[1])):
        c, s = cl[key], sm[key]
        rc, rs = float(c[col]), float(s[col])
        ratio = rs / rc
        ok = abs(ratio - 1) <= a.goal
        hits += ok
        print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]:g} | {rc:.2f} "
              f"({float(c['r_std_ms']):.2f}) | {rs:.2f} ({float(s['r_std_ms']):.2f}) "
              f"| {ratio:.2f} | {'yes' if ok else 'no'} |")
    print(f"\n{hits} of {len(cl)} within {a.goal:.0%} ({a.stat} of r)")


if __name__ == "__main__":
    main()
