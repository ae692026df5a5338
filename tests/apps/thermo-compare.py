#!/usr/bin/env python3
"""Compare two LAMMPS thermodynamic outputs (the rows of numbers a run prints,
one per thermo step), reference first.

Usage: thermo-compare.py REF.txt RUN.txt [--rtol R]

Prints EXACT when every number is equal bit for bit (the runs print with
%.17g, so equal text is equal doubles), otherwise the largest relative
difference; exits 1 when a row is missing or a difference exceeds RTOL
(default 1e-10; tests/apps/run-app.sh says why that bound)."""
import sys


def rows(path):
    out = []
    for line in open(path):
        tok = line.split()
        if not tok:
            continue
        try:
            vals = [float(t) for t in tok]
        except ValueError:
            continue
        if tok[0].isdigit():  # a thermo row starts with the step number
            out.append((tok, vals))
    return out


def main():
    args = sys.argv[1:]
    rtol = 1e-10
    if "--rtol" in args:
        i = args.index("--rtol")
        rtol = float(args[i + 1])
        del args[i:i + 2]
    ref, run = rows(args[0]), rows(args[1])
    if not ref or len(ref) != len(run):
        print(f"thermo-compare: FAIL {len(ref)} reference rows, {len(run)} rows")
        return 1
    exact, worst, where = True, 0.0, ""
    for (rt, rv), (tt, tv) in zip(ref, run):
        if rt == tt:
            continue
        exact = False
        if len(rv) != len(tv) or rv[0] != tv[0]:
            print(f"thermo-compare: FAIL rows differ in shape: {rt} / {tt}")
            return 1
        for j, (x, y) in enumerate(zip(rv, tv)):
            d = abs(x - y) / max(abs(x), abs(y), 1e-300) if x != y else 0.0
            if d > worst:
                worst, where = d, f"step {int(rv[0])} column {j}"
    if exact:
        print(f"thermo-compare: EXACT ({len(ref)} rows bit for bit)")
        return 0
    verdict = "WITHIN" if worst <= rtol else "FAIL"
    print(f"thermo-compare: {verdict} max relative difference {worst:.3g} "
          f"at {where} (tolerance {rtol:g})")
    return 0 if worst <= rtol else 1


if __name__ == "__main__":
    sys.exit(main())
