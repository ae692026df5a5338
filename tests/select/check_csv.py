#!/usr/bin/env python3
"""Checks a papc-select-bench CSV (the ctest tool_papc_select_bench_quick):
every cell has every variant it must have.

    check_csv.py [--native-algorithm] BENCH.csv ALGORITHMS.txt

ALGORITHMS.txt is `papc-info --algorithms`.  Per (collective, size) cell:
every algorithm that is not arrival-aware has a row (a segmented one at 8
KiB, or a size at which 8 KiB is the whole message too, and at the
model's segment size where it predicted one), no arrival-aware algorithm
has one, model, fixed and native have one row each, every row is `ok`
with a positive median; the model row and the alg row it chose agree.  At
least one cell must carry predictions, and the header must name the
profile (the model was really judged).  --native-algorithm: native rows
name the Open MPI algorithm (scripts/ompi-coll-probe.c was preloaded).
Exit 0 or 1 with the reasons.
"""
import csv
import sys


def algorithms(path):
    """{collective: {name: segmented}} without the arrival-aware rows."""
    out = {}
    with open(path) as f:
        for line in f:
            words = line.split()
            if len(words) < 2 or "arrival-aware" in words:
                continue
            out.setdefault(words[0], {})[words[1]] = "segmented" in words
    return out


def effective(seg, nbytes):
    return 0 if seg == 0 or seg >= nbytes else seg


def check(rows, algs, profile_line, native_alg=False):
    errors = []
    if not profile_line or "(none" in profile_line:
        errors.append("the CSV names no profile: %r" % profile_line)
    cells = {}
    for r in rows:
        cells.setdefault((r["coll"], int(r["bytes"])), []).append(r)
    if not cells:
        errors.append("no rows")
    predicted_cells = 0
    for (coll, nbytes), rs in sorted(cells.items()):
        where = "%s %d B" % (coll, nbytes)
        for r in rs:
            if r["status"] != "ok":
                errors.append("%s %s %s: status %s" % (
                    where, r["variant"], r["algorithm"], r["status"]))
            if not r["median_us"] or float(r["median_us"]) <= 0:
                errors.append("%s %s %s: no time" % (where, r["variant"],
                                                     r["algorithm"]))
        for v in ("model", "fixed", "native"):
            n = sum(1 for r in rs if r["variant"] == v)
            if n != 1:
                errors.append("%s: %d %s rows" % (where, n, v))
        if native_alg:
            for r in rs:
                if r["variant"] == "native" and r["algorithm"] in ("", "?"):
                    errors.append("%s: Open MPI's algorithm not recorded "
                                  "(%r)" % (where, r["algorithm"]))
        alg_rows = [r for r in rs if r["variant"] == "alg"]
        for r in alg_rows:
            if r["algorithm"] not in algs.get(coll, {}):
                errors.append("%s: row of %s, which is not a "
                              "non-arrival-aware %s algorithm"
                              % (where, r["algorithm"], coll))
        for name, segmented in algs.get(coll, {}).items():
            mine = [r for r in alg_rows if r["algorithm"] == name]
            if not mine:
                errors.append("%s: no row of %s" % (where, name))
                continue
            if not segmented:
                if len(mine) != 1 or mine[0]["segsize"]:
                    errors.append("%s: %s (unsegmented) has %d rows, segsize"
                                  " %r" % (where, name, len(mine),
                                           mine[0]["segsize"]))
                continue
            segs = [int(r["segsize"]) for r in mine if r["segsize"]]
            if len(segs) != len(mine):
                errors.append("%s: %s row without a segment size"
                              % (where, name))
            if effective(8192, nbytes) not in \
                    [effective(s, nbytes) for s in segs]:
                errors.append("%s: %s not timed at 8 KiB segments (%s)"
                              % (where, name, segs))
        if any(r["predicted_us"] for r in alg_rows):
            predicted_cells += 1
        chosen = [r for r in alg_rows if r["chosen_by_model"] == "1"]
        model = [r for r in rs if r["variant"] == "model"]
        if model and model[0]["chosen_by_model"] == "1":
            if len(chosen) != 1:
                errors.append("%s: %d alg rows chosen by the model"
                              % (where, len(chosen)))
            elif chosen[0]["algorithm"] != model[0]["algorithm"]:
                errors.append("%s: the model chose %s, the plain call ran %s"
                              % (where, chosen[0]["algorithm"],
                                 model[0]["algorithm"]))
            elif not chosen[0]["predicted_us"]:
                errors.append("%s: the chosen row has no prediction" % where)
        elif chosen:
            errors.append("%s: alg rows chosen without a model choice"
                          % where)
    if cells and not predicted_cells:
        errors.append("no cell has a prediction: was the profile used?")
    return errors, len(cells)


def main(argv):
    native_alg = "--native-algorithm" in argv
    argv = [a for a in argv if a != "--native-algorithm"]
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1], newline="") as f:
        lines = f.readlines()
    profile = next((l.split(":", 1)[1].strip() for l in lines
                    if l.startswith("# profile:")), "")
    rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
    errors, ncells = check(rows, algorithms(argv[2]), profile, native_alg)
    for e in errors:
        print("check_csv: %s" % e)
    if errors:
        return 1
    print("check_csv: %d cells, %d rows: every variant present"
          % (ncells, len(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
