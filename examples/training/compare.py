#!/usr/bin/env python3
"""Checks that training runs agree and tabulates their timings.

    compare.py curves REF.txt RUN.txt...   every run's loss curve against REF
    compare.py table runs.csv [--baseline native] [--markdown]

curves: train.py --curve files (step, epoch, loss per line; the header
names the dtype and the final test loss and accuracy).  Two runs agree when
every step's loss satisfies |loss - ref| <= ATOL + RTOL * |ref| (float32:
RTOL 1e-3, ATOL 1e-5; float64: RTOL 1e-9, ATOL 1e-12), the final test
losses do too, and the test accuracies differ by at most one test sample.
Why these: the algorithms add the same numbers in different orders, and the
rounding of a different order (float32: about 1e-7 relative per sum) grows
through training; measured over 500 steps at P = 8 it stayed below 5e-4
relative and 3e-6 absolute (docs/performance.md), while a wrong gradient,
one rank's contribution missing or a different seed moves the loss by
percents from the first steps on.  Exit 1 when some run disagrees.

table: median per algorithm (over the repetitions in the CSV) of the total
time, the time per epoch, the allreduce wait per step, the arrival spread,
the time after the last arrival, the compute time per step of the
slowest rank and its CPU time (less than the wall time when the rank
waited for a core), all ranks' CPU seconds, with the total against the
baseline's,
and the machine's load average at the runs' starts (--max-load leaves out
runs that started or ended on a busier machine).
"""
import argparse
import csv
import statistics
import sys

TOLERANCE = {"float32": (1e-3, 1e-5), "float64": (1e-9, 1e-12)}


def read_curve(path):
    """(dtype, test_loss, test_acc, n_test or None, [loss per step])."""
    meta, losses = {}, []
    with open(path) as fh:
        for line in fh:
            if line.startswith("#"):
                words = line[1:].replace(";", " ").split()
                for key, value in zip(words, words[1:]):
                    meta.setdefault(key, value)
                continue
            if line.strip():
                losses.append(float(line.split()[2]))
    try:
        dtype = meta["--dtype"]
        test_loss, test_acc = float(meta["test_loss"]), float(meta["test_acc"])
    except (KeyError, ValueError):
        raise SystemExit(f"compare.py: {path} is not a train.py --curve file")
    n_test = int(meta["n_test"]) if "n_test" in meta else None
    return dtype, test_loss, test_acc, n_test, losses


def compare_curves(ref_path, paths, out=sys.stdout):
    """Number of runs that disagree with the reference."""
    dtype, ref_test, ref_acc, n_test, ref = read_curve(ref_path)
    rtol, atol = TOLERANCE[dtype]
    bad = 0
    for p in paths:
        d2, test, acc, _, cur = read_curve(p)
        why = []
        if d2 != dtype:
            why.append(f"dtype {d2} against {dtype}")
        if len(cur) != len(ref):
            why.append(f"{len(cur)} steps against {len(ref)}")
        worst, worst_step, worst_rel = 0.0, -1, 0.0
        for i, (a, b) in enumerate(zip(ref, cur)):
            excess = abs(b - a) - (atol + rtol * abs(a))
            if excess > worst or worst_step < 0:
                worst, worst_step = excess, i
            worst_rel = max(worst_rel, abs(b - a) / max(abs(a), 1e-300))
        if worst > 0:
            why.append(f"step {worst_step}: loss {cur[worst_step]!r} against "
                       f"{ref[worst_step]!r}")
        if abs(test - ref_test) > atol + rtol * abs(ref_test):
            why.append(f"test loss {test!r} against {ref_test!r}")
        acc_step = 1.0 / n_test if n_test else 1e-9
        if abs(acc - ref_acc) > acc_step * 1.0001:
            why.append(f"test accuracy {acc:.6f} against {ref_acc:.6f}")
        diffs = [abs(b - a) for a, b in zip(ref, cur)] or [0.0]
        verdict = "agrees" if not why else "DIFFERS: " + "; ".join(why)
        print(f"{p}: max |dloss| {max(diffs):.3g} (relative {worst_rel:.3g}), "
              f"test accuracy {acc * 100:.2f} % -- {verdict}", file=out)
        bad += bool(why)
    print(f"loss curves: {len(paths) - bad} of {len(paths)} agree with "
          f"{ref_path} ({dtype}: |dloss| <= {atol:g} + {rtol:g} |loss| every "
          f"step, test accuracy within one sample)", file=out)
    return bad


def read_runs(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def median(rows, key):
    return statistics.median(float(r[key]) for r in rows)


def opt_median(rows, key, fmt):
    """A column that older CSVs lack prints as '-'."""
    vals = [float(r[key]) for r in rows if r.get(key)]
    return fmt.format(statistics.median(vals)) if vals else "-"


def quiet_enough(row, max_load):
    """Started and ended at a load average <= max_load (the run's own
    processes count in the end's: at P = 8 on two cores about 5)."""
    try:
        return max(float(row["load_start"]), float(row["load_end"])) <= max_load
    except (KeyError, ValueError):
        return False


def load_range(rows):
    """The machine's load average over the runs (at their starts)."""
    loads = [float(r["load_start"]) for r in rows if r.get("load_start")]
    if not loads:
        return "-"
    return f"{min(loads):.1f}-{max(loads):.1f}"


def table(rows, baseline, markdown, order=None, out=sys.stdout):
    present = {r["algorithm"] for r in rows}
    algs = [a for a in dict.fromkeys(order or [r["algorithm"] for r in rows])
            if a in present]
    by = {a: [r for r in rows if r["algorithm"] == a] for a in algs}
    base = median(by[baseline], "total_s") if baseline in by else None
    head = ["algorithm", "runs", "total s", "vs " + baseline, "epoch s",
            "wait ms/step", "spread ms", "after last ms",
            "slowest compute ms", "its CPU ms", "CPU s (all)",
            "test acc %", "load"]
    lines = []
    for a in algs:
        rs = by[a]
        steps = float(rs[0]["steps"])
        tot = median(rs, "total_s")
        vs = f"{(tot / base - 1) * 100:+.1f} %" if base else "-"
        lines.append([a, str(len(rs)), f"{tot:.3f}", vs,
                      f"{median(rs, 'epoch_mean_s'):.3f}",
                      f"{median(rs, 'wait_mean_s') / steps * 1e3:.2f}",
                      f"{median(rs, 'spread_mean_ms'):.2f}",
                      f"{median(rs, 'tail_mean_ms'):.2f}",
                      f"{median(rs, 'compute_max_ms'):.1f}",
                      opt_median(rs, 'compute_cpu_of_max_ms', "{:.1f}"),
                      opt_median(rs, 'cpu_total_s', "{:.2f}"),
                      f"{median(rs, 'test_acc') * 100:.2f}",
                      load_range(rs)])
    if markdown:
        print("| " + " | ".join(head) + " |", file=out)
        print("|" + "---|" * len(head), file=out)
        for l in lines:
            print("| " + " | ".join(l) + " |", file=out)
    else:
        w = [max(len(x) for x in col) for col in zip(head, *lines)]
        for l in [head] + lines:
            print("  ".join(x.rjust(n) if i else x.ljust(n)
                            for i, (x, n) in enumerate(zip(l, w))), file=out)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("curves", help="check loss curves against a reference")
    c.add_argument("ref")
    c.add_argument("runs", nargs="+")
    t = sub.add_parser("table", help="median timings per algorithm")
    t.add_argument("csv")
    t.add_argument("--baseline", default="native")
    t.add_argument("--markdown", action="store_true")
    t.add_argument("--max-load", type=float,
                   help="leave out runs that started or ended at a higher "
                        "load average (a shared machine's other jobs)")
    a = ap.parse_args(argv)
    if a.cmd == "curves":
        return 1 if compare_curves(a.ref, a.runs) else 0
    rows = read_runs(a.csv)
    order = [r["algorithm"] for r in rows]
    if a.max_load is not None:
        kept = [r for r in rows if quiet_enough(r, a.max_load)]
        print(f"{len(rows) - len(kept)} of {len(rows)} runs left out: load "
              f"average above {a.max_load:g} at their start or end")
        if not kept:
            raise SystemExit("compare.py: no run left")
        rows = kept
    return table(rows, a.baseline, a.markdown, order)


if __name__ == "__main__":
    sys.exit(main())
