"""How precisely a sweep can judge "auto within 5 % of the best": the
arrival-select report's noise floor, from papc-bench --trace files.

The goal of issue 15 compares the plain call with the best of 7-9 rows,
each a mean of a few iterations on a noisy machine.  The least of several
noisy means is biased low (the winner's curse), so even a choice that
always ran the truly best row would miss the 5 % band in some settings.
This module measures that floor from the sweep's own iterations:

  - split half: the iterations of every setting split into even and odd
    ones; the row best in one half is judged in the other half against
    that half's best (a fixed "oracle" choice, scored as auto is scored);
    auto is scored on the same halves, so the two fractions compare like
    with like (both at half the iterations);
  - paired: papc-bench runs every row once per iteration under the same
    arrivals, so the median over iterations of auto's ē / the best row's
    ē of the same iteration is a measure that one stalled iteration does
    not move;
  - choices (traces with the `ran` column, what each rank's plain call
    ran): auto's choice of every iteration priced at what that row cost
    when run by name in the same iteration, so a setting counts as won or
    lost by its choices alone, whatever noise auto's own runs met.

ē of one iteration = the mean over ranks of (finish - arrival), as
papc-bench's e columns.
"""

import csv
import os
import statistics
from collections import OrderedDict, defaultdict

from .report import ReportError

NOT_CHOICES = ("native", "auto", "auto_classic")
TRACE_COLUMNS = ("coll", "algorithm", "count", "mode", "max_delay_ms",
                 "iteration", "rank", "arrive_ms", "finish_ms")


def read_trace(path):
    """{(coll, count, mode, delay): {algorithm: {iteration: ē ms}}}."""
    sums = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in TRACE_COLUMNS
                       if c not in (reader.fieldnames or ())]
            if missing:
                raise ReportError("%s: not a papc-bench trace (no column %s)"
                                  % (path, missing[0]))
            for line, row in enumerate(reader, 2):
                try:
                    key = (row["coll"], int(row["count"]), row["mode"],
                           float(row["max_delay_ms"]))
                    it = int(row["iteration"])
                    e = float(row["finish_ms"]) - float(row["arrive_ms"])
                except (TypeError, ValueError):
                    raise ReportError("%s:%d: malformed trace row"
                                      % (path, line))
                sums[key][row["algorithm"]][it].append(e)
    except OSError as err:
        raise ReportError("%s: %s" % (path, err.strerror or err))
    return OrderedDict(
        (key, {alg: {it: sum(v) / len(v) for it, v in its.items()}
               for alg, its in algs.items()})
        for key, algs in sums.items())


def read_ran(path):
    """{(coll, count, mode, delay): {iteration: row name}}: what the plain
    call (auto) ran in each iteration, from rank 0's `ran` column; empty
    when the trace has no such column (papc-bench before the sixth
    session) or the ranks' rows name nothing."""
    out = defaultdict(dict)
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            if "ran" not in (reader.fieldnames or ()):
                return {}
            for row in reader:
                if row.get("algorithm") != "auto" or row.get("rank") != "0":
                    continue
                try:
                    key = (row["coll"], int(row["count"]), row["mode"],
                           float(row["max_delay_ms"]))
                    it = int(row["iteration"])
                except (TypeError, ValueError):
                    continue   # read_trace reports malformed rows
                if row.get("ran"):
                    out[key][it] = row["ran"]
    except OSError as err:
        raise ReportError("%s: %s" % (path, err.strerror or err))
    return dict(out)


def choices_cost(rows, ran):
    """(mean over iterations of the named ē of the row auto ran in that
    iteration, best row's mean, best row's name); None when an iteration's
    row was not run by name (or ran is empty)."""
    iters = sorted(set.intersection(*(set(v) for v in rows.values())))
    if not iters or not ran:
        return None
    vals = []
    for i in iters:
        named = rows.get(ran.get(i), {})
        if i not in named:
            return None
        vals.append(named[i])
    best_v, best = best_row(rows, iters)
    if not best_v:
        return None
    return sum(vals) / len(vals), best_v, best


def traces_beside(csv_paths):
    """The trace files next to the sweep's CSVs (X.csv -> X.trace.csv)."""
    out = []
    for p in csv_paths:
        t = p[:-4] + ".trace.csv" if p.endswith(".csv") else None
        if t and not p.endswith(".trace.csv") and os.path.isfile(t):
            out.append(t)
    return out


def mean_over(its, which):
    vals = [its[i] for i in which if i in its]
    return sum(vals) / len(vals) if vals else None


def best_row(rows, which):
    """(mean, name) of the named row with the least mean ē over which."""
    cands = [(mean_over(its, which), name) for name, its in rows.items()
             if name not in NOT_CHOICES]
    cands = [c for c in cands if c[0] is not None]
    return min(cands) if cands else (None, None)


def split_half(rows, limit):
    """[(oracle within, auto within)] for both directions of the split;
    empty when the setting has too few iterations or no auto row."""
    iters = sorted(set.intersection(*(set(v) for v in rows.values())))
    if len(iters) < 4 or "auto" not in rows:
        return []
    halves = (iters[0::2], iters[1::2])
    out = []
    for pick, judge in (halves, halves[::-1]):
        _, oracle = best_row(rows, pick)
        best_v, _ = best_row(rows, judge)
        if oracle is None or not best_v:
            continue
        out.append((mean_over(rows[oracle], judge) <= limit * best_v + 1e-9,
                    mean_over(rows["auto"], judge) <= limit * best_v + 1e-9))
    return out


def paired_median(rows):
    """(median over iterations of ē_auto / ē_best in the same iteration,
    best row's name); best = least mean over every iteration."""
    iters = sorted(set.intersection(*(set(v) for v in rows.values())))
    if not iters or "auto" not in rows:
        return None, None
    _, best = best_row(rows, iters)
    if best is None:
        return None, None
    ratios = [rows["auto"][i] / rows[best][i] for i in iters
              if rows[best][i] > 0]
    return (statistics.median(ratios) if ratios else None), best


def noise_floor(trace_paths, limit):
    """Lines of text: the split-half scores and the paired count over the
    delayed settings of the traces."""
    oracle = auto = pairs = paired_ok = settings = 0
    chosen = chosen_ok = 0
    misses = []
    for path in trace_paths:
        ran = read_ran(path)
        for key, rows in read_trace(path).items():
            if key[3] <= 0:
                continue
            settings += 1
            cc = choices_cost(rows, ran.get(key))
            if cc is not None:
                chosen += 1
                chosen_ok += cc[0] <= limit * cc[1] + 1e-9
            for o, a in split_half(rows, limit):
                pairs += 1
                oracle += o
                auto += a
            m, best = paired_median(rows)
            if m is not None and m <= limit + 1e-9:
                paired_ok += 1
            elif m is not None:
                misses.append((m, key, best))
    if not settings:
        return []
    pct = (limit - 1) * 100
    lines = [
        "noise floor (%d delayed settings with traces): at half the "
        "iterations, a fixed oracle (the row best in the other half) is "
        "within %.0f %% of the best in %d of %d judgements (%.1f %%), auto "
        "in %d of %d (%.1f %%)" % (
            settings, pct, oracle, pairs, 100.0 * oracle / max(pairs, 1),
            auto, pairs, 100.0 * auto / max(pairs, 1)),
        "paired (median over iterations of auto / the best row in the same "
        "iteration): within %.0f %% in %d of %d settings (%.1f %%)" % (
            pct, paired_ok, settings, 100.0 * paired_ok / settings)]
    for m, key, best in sorted(misses, reverse=True):
        lines.append("  paired miss: %s count %s %s %g ms: %.3f x %s" % (
            key[0], key[1], key[2], key[3], m, best))
    if chosen:
        lines.append(
            "choices (auto's row of every iteration at what it cost run by "
            "name in the same iteration): within %.0f %% in %d of %d "
            "settings (%.1f %%)" % (pct, chosen_ok, chosen,
                                    100.0 * chosen_ok / chosen))
    return lines
