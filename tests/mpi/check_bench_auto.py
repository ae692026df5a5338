#!/usr/bin/env python3
"""papc-bench's plain-call rows (issue 15 item 5): runs papc-bench with
-a ...,auto,auto_classic,... and checks its CSV, or checks a CSV alone.

    check_bench_auto.py --papc-info PATH --csv FILE [-- COMMAND ...]

With a COMMAND (mpiexec ... papc-bench ... --csv FILE) it runs it first and
fails when it exits non-zero.  Then, for every (coll, size, mode, delay)
of the CSV:
  - rows native, auto and auto_classic exist, with errors = 0;
  - auto's and auto_classic's `ran` names only algorithms papc-info lists
    for that collective, never "(ranks differ)" or "(none)", and its counts
    add up to the row's iterations;
  - auto_classic (arrival-aware selection off: the choice by size alone)
    ran no arrival-aware algorithm;
  - every other row's `ran` is empty (a named call runs its name).
Prints "bench auto check: passed (N settings)" or the problems; exit 0/1.
"""
import argparse
import csv
import subprocess
import sys

PLAIN = ("auto", "auto_classic")


def registry(papc_info):
    """{coll: {name: set of flag words}} from papc-info --algorithms."""
    out = subprocess.run([papc_info, "--algorithms"], check=True,
                         stdout=subprocess.PIPE, universal_newlines=True)
    regs = {}
    for line in out.stdout.splitlines():
        words = line.split()
        if len(words) >= 2:
            regs.setdefault(words[0], {})[words[1]] = {
                w for w in words[2:] if "=" not in w}
    return regs


def read_rows(path):
    with open(path, newline="") as f:
        lines = [l for l in f if l.strip() and not l.startswith("#")]
    return list(csv.DictReader(lines))


def parse_ran(text):
    out = []
    for part in (text or "").split(";"):
        if part:
            name, _, count = part.rpartition(":")
            out.append((name, int(count) if count.isdigit() else -1))
    return out


def check(rows, regs):
    problems, settings = [], {}
    if not rows or "ran" not in rows[0]:
        return ["the CSV has no rows or no `ran` column"], 0
    for r in rows:
        key = (r["coll"], r["count"], r["mode"], r["max_delay_ms"])
        settings.setdefault(key, {})[r["algorithm"]] = r
    for key, algs in settings.items():
        coll = key[0]
        where = "%s count %s %s %s ms" % key
        for need in ("native",) + PLAIN:
            if need not in algs:
                problems.append("%s: no %s row" % (where, need))
        for name, r in algs.items():
            if r["errors"] != "0":
                problems.append("%s %s: errors = %s" % (where, name,
                                                         r["errors"]))
            ran = parse_ran(r["ran"])
            if name not in PLAIN:
                if ran:
                    problems.append("%s %s: ran = %r for a row that is not "
                                    "a plain call" % (where, name, r["ran"]))
                continue
            if not ran:
                problems.append("%s %s: empty ran" % (where, name))
                continue
            total = sum(n for _, n in ran)
            if total != int(r["iterations"]):
                problems.append("%s %s: ran %r counts %d of %s iterations"
                                % (where, name, r["ran"], total,
                                   r["iterations"]))
            for alg, _ in ran:
                flags = regs.get(coll, {}).get(alg)
                if flags is None:
                    problems.append("%s %s: ran %r, not a %s algorithm of "
                                    "papc-info" % (where, name, alg, coll))
                elif name == "auto_classic" and "arrival-aware" in flags:
                    problems.append("%s auto_classic ran the arrival-aware "
                                    "%s with arrival-aware selection off"
                                    % (where, alg))
    return problems, len(settings)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--papc-info", required=True)
    p.add_argument("--csv", required=True)
    p.add_argument("command", nargs=argparse.REMAINDER)
    args = p.parse_args()
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if cmd:
        rc = subprocess.call(cmd)
        if rc != 0:
            print("bench auto check: FAILED: the command exited %d" % rc)
            return 1
    problems, n = check(read_rows(args.csv), registry(args.papc_info))
    for msg in problems:
        print("bench auto check: %s" % msg)
    if problems:
        print("bench auto check: FAILED (%d problems)" % len(problems))
        return 1
    print("bench auto check: passed (%d settings)" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
