"""papc-report arrival-select: does the plain call choose well when
processes arrive late (issue 15's goals), from papc-bench's CSVs.

    papc-report arrival-select DIR [DIR|CSV ...] [--measure e|r]
                               [--markdown FILE] [--strict]

DIR is what scripts/arrival-select-bench.sh writes (DIR/shm/gather.csv,
DIR/cluster/allreduce.csv, ...): every *.csv below it whose header is
papc-bench's is read, others are named and skipped.  CSVs below a
directory named `balanced` (DIR/shm/balanced/gather.csv) are the balanced
runs: delay 0 with only native, auto and auto_classic and many iterations;
when present they judge the delay-0 goal and get a table of their own.  The platform of a
file is `cluster` when papc-bench ran on testbed/'s emulated cluster (its
`testbed` header line), else `shm`.  A setting is (platform, P, collective,
size, mode, delay); a later file's row for the same setting and algorithm
replaces an earlier one (said on stderr).

Standard errors of a ratio of two rows' means come from their standard
deviations and iterations (independent samples).

Per setting, with the measure m (default ē, the mean average elapsed time;
--measure r: the mean run time), rows with errors > 0 left out:
  best          papcoll's algorithm with the least m: the named rows only,
                the choices the plain call has (not native, auto,
                auto_classic);
  auto          the plain call (papc-bench -a auto): m, auto / best,
                auto / native, auto / auto_classic;
  ran           what auto ran: its most frequent algorithm, in how many of
                the measured iterations, (+k) others (the CSV's `ran`);
                and auto_classic's.
The goals, per platform (issue 15):
  - delays 10, 50, 200 ms: auto within 5 % of the best (auto / best <=
    1.05) in at least 90 % of the settings (judged on the means; the
    misses beyond 2 standard errors of the ratio are counted beside);
  - delay 0 (balanced): auto within 3 % of auto_classic: the geometric
    mean of auto / auto_classic over the delay-0 settings at most 1.03, and
    no setting above 1.03 by more than 2 standard errors (a single
    setting's mean of ten iterations is noisier than 3 % on a loaded
    2-core machine; the raw count within 3 % is printed too);
  - 50 ms rand-late on the cluster: auto's run time r at most 0.75 x
    native MPI_Gather's and 0.85 x native MPI_Allreduce's (per size; also
    printed for shared memory, for reference, without a verdict).
Exit 0, or 1 with --strict when a goal is not met (and on bad input).
"""

import math
import os
import sys
from collections import OrderedDict, namedtuple

from .report import ReportError
from .arrival_noise import noise_floor, traces_beside
from .bench_report import (BENCH_COLUMNS, alg_short, fmt_floats, header_of,
                           ran_cell, read_bench_csvs, sort_key_mode)

PLAIN = ("auto", "auto_classic")
NOT_CHOICES = ("native",) + PLAIN
WITHIN_BEST = 1.05          # auto / best, delays > 0
WITHIN_BEST_SHARE = 0.90    # of the settings
WITHIN_CLASSIC = 1.03       # auto / auto_classic, delay 0
NATIVE_GOAL = OrderedDict([("gather", 0.75), ("allreduce", 0.85)])
NATIVE_GOAL_DELAY = 50.0
NATIVE_GOAL_MODE = "rand-late"
PLATFORM_ORDER = ("shm", "cluster")
COLL_ORDER = ("gather", "scatter", "reduce", "allreduce")
BALANCED_DIR = "balanced"
EPS = 1e-9  # 1.05 x best exactly is within

Setting = namedtuple("Setting", "platform P coll size mode delay rows")
Result = namedtuple(
    "Result", "setting best best_v auto_v auto_best auto_native "
    "auto_classic auto_native_r ran ran_classic left_out measure")


# ---- reading ------------------------------------------------------------

def bench_csvs(paths):
    """papc-bench CSV files among paths (directories searched recursively,
    in name order) and the skipped ones."""
    found, skipped = [], []
    for path in paths:
        if os.path.isdir(path):
            for top, dirs, files in os.walk(path):
                dirs.sort()
                for name in sorted(files):
                    if name.endswith(".csv"):
                        full = os.path.join(top, name)
                        (found if is_bench_csv(full) else skipped).append(
                            full)
        elif os.path.isfile(path):
            found.append(path)  # read_bench_csvs says what is wrong
        else:
            raise ReportError("%s: no such file or directory" % path)
    if not found:
        raise ReportError("no papc-bench CSV in %s" % ", ".join(paths))
    return found, skipped


def is_bench_csv(path):
    try:
        header = header_of(path)
    except (OSError, UnicodeDecodeError):
        return False
    return all(c in header for c in BENCH_COLUMNS)


def platform_of(table):
    return "cluster" if table.meta.get("testbed") else "shm"


def is_balanced_run(path):
    """A CSV of the balanced runs: below a directory named `balanced`."""
    parts = os.path.normpath(os.path.abspath(path)).split(os.sep)
    return BALANCED_DIR in parts[:-1]


def read_settings(paths):
    """The settings of the sweep and of the balanced runs, each {setting
    key: Setting} in platform, collective, size, mode, delay order; the
    tables read and the files skipped."""
    files, skipped = bench_csvs(paths)
    tables, merged = [], {False: OrderedDict(), True: OrderedDict()}
    for path in files:
        ts, rows = read_bench_csvs([path])
        tables.extend(ts)
        platform = platform_of(ts[0])
        group = merged[is_balanced_run(path)]
        for r in rows:
            key = (platform, r["P"], r["coll"], r["size"], r["mode"],
                   r["max_delay_ms"])
            algs = group.setdefault(key, OrderedDict())
            if r["algorithm"] in algs:
                sys.stderr.write("papc-report: %s %s replaced by %s's row\n"
                                 % (describe(key), r["algorithm"], path))
            algs[r["algorithm"]] = r

    def ordered(group):
        order = sorted(group, key=lambda k: (
            PLATFORM_ORDER.index(k[0]) if k[0] in PLATFORM_ORDER else 9,
            k[0], k[1], COLL_ORDER.index(k[2]) if k[2] in COLL_ORDER else 9,
            k[2], k[3], sort_key_mode(k[4]), k[5]))
        return OrderedDict((k, Setting(*(k + (group[k],)))) for k in order)
    return ordered(merged[False]), ordered(merged[True]), tables, skipped


def describe(key):
    platform, P, coll, size, mode, delay = key
    return "%s P=%s %s %s %s %g ms" % (platform, P, coll, fmt_floats(size),
                                       mode, delay)


# ---- analysis -------------------------------------------------------------

def value(row, measure):
    """The row's mean of measure, None when missing or wrong."""
    if row is None or row["errors"]:
        return None
    v = row.get(measure + "_mean_ms")
    return v if isinstance(v, (int, float)) and v > 0 else None


def ratio(a, b):
    return a / b if a is not None and b is not None else None


def analyse(setting, measure):
    """Result of one setting; None when it has no auto row."""
    rows = setting.rows
    if "auto" not in rows:
        return None
    choices = [(value(r, measure), name) for name, r in rows.items()
               if name not in NOT_CHOICES and value(r, measure) is not None]
    left_out = [name for name, r in rows.items() if r["errors"]]
    best_v, best = min(choices) if choices else (None, None)
    auto_v = value(rows["auto"], measure)
    auto = rows["auto"]
    return Result(
        setting, best, best_v, auto_v, ratio(auto_v, best_v),
        ratio(auto_v, value(rows.get("native"), measure)),
        ratio(auto_v, value(rows.get("auto_classic"), measure)),
        ratio(value(auto, "r"), value(rows.get("native"), "r")),
        ran_cell(auto.get("ran"), auto["iterations"]) or "?",
        ran_cell(rows["auto_classic"].get("ran"),
                 rows["auto_classic"]["iterations"])
        if "auto_classic" in rows else "", left_out, measure)


def ratio_error(a, b, measure):
    """The standard error of mean(a) / mean(b) from the rows' standard
    deviations and iterations (independent samples); None when unknown."""
    terms = []
    for row in (a, b):
        m, sd = value(row, measure), row.get(measure + "_std_ms")
        n = row.get("iterations")
        if m is None or not isinstance(sd, (int, float)) or not n:
            return None
        terms.append((sd / m) ** 2 / n)
    return value(a, measure) / value(b, measure) * math.sqrt(sum(terms))


def significant(a, b, measure, limit):
    """mean(a) / mean(b) exceeds limit by more than 2 standard errors."""
    r = ratio(value(a, measure), value(b, measure))
    se = ratio_error(a, b, measure)
    return r is not None and r - 2 * (se or 0.0) > limit + EPS


def geomean_error(results):
    """Geometric mean of auto / auto_classic over results and its standard
    error (from each ratio's; None when one is unknown)."""
    logs, var = [], 0.0
    for a in results:
        logs.append(math.log(a.auto_classic))
        se = ratio_error(a.setting.rows["auto"],
                         a.setting.rows["auto_classic"], a.measure)
        var = None if se is None or var is None else \
            var + (se / a.auto_classic) ** 2
    g = math.exp(sum(logs) / len(logs))
    return g, None if var is None else g * math.sqrt(var) / len(logs)


def fmt_ratio_error(a, b, measure):
    """'1.250 +- 0.006': a / b with its standard error."""
    r = ratio(value(a, measure), value(b, measure))
    se = ratio_error(a, b, measure)
    return fmt_ratio(r) + ("" if se is None else " \u00b1 %.3f" % se)


def goals(results, balanced_runs=None):
    """The goals of one platform's results: a list of (text, met) with met
    True, False or None (no verdict).  balanced_runs: the results of the
    balanced runs, which judge the delay-0 goal when given."""
    out = []
    late = [a for a in results if a.setting.delay > 0]
    judged = [a for a in late if a.auto_best is not None]
    within = [a for a in judged if a.auto_best <= WITHIN_BEST + EPS]
    if judged:
        share = len(within) / float(len(judged))
        clear = [a for a in judged if a not in within and significant(
            a.setting.rows["auto"], a.setting.rows[a.best], a.measure,
            WITHIN_BEST)]
        out.append(("delays > 0: auto within %d %% of the best in %d of %d "
                    "settings (%.1f %%; goal >= %d %%); %d of the misses "
                    "beyond 2 standard errors"
                    % (round((WITHIN_BEST - 1) * 100), len(within),
                       len(judged), 100 * share, WITHIN_BEST_SHARE * 100,
                       len(clear)), share >= WITHIN_BEST_SHARE - EPS))
        for a in sorted(judged, key=lambda a: -a.auto_best):
            if a.auto_best <= WITHIN_BEST + EPS:
                break
            rows = a.setting.rows
            out.append(("miss: %s: auto/best %s (auto ran %s; best %s)"
                        % (describe(a.setting[:6]), fmt_ratio_error(
                            rows["auto"], rows[a.best], a.measure), a.ran,
                           a.best), None))
    else:
        out.append(("delays > 0: no setting with auto and a best algorithm",
                    None))
    source = balanced_runs if balanced_runs else results
    balanced = [a for a in source if a.setting.delay == 0 and
                a.auto_classic is not None]
    if balanced:
        ok = [a for a in balanced if a.auto_classic <= WITHIN_CLASSIC + EPS]
        worst = max(balanced, key=lambda a: a.auto_classic)
        gmean, gerr = geomean_error(balanced)
        clear = [a for a in balanced if significant(
            a.setting.rows["auto"], a.setting.rows["auto_classic"],
            a.measure, WITHIN_CLASSIC)]
        out.append(("delay 0%s: auto / auto_classic geometric mean %s over "
                    "%d settings (goal <= %.2f), %d settings beyond %.2f by "
                    "more than 2 standard errors (goal: none); within "
                    "%d %% in %d of %d, worst %.3f (%s)"
                    % (" (the balanced runs)" if balanced_runs else "",
                       fmt_ratio(gmean) + ("" if gerr is None else
                                           " \u00b1 %.3f" % gerr),
                       len(balanced), WITHIN_CLASSIC, len(clear),
                       WITHIN_CLASSIC, round((WITHIN_CLASSIC - 1) * 100),
                       len(ok), len(balanced), worst.auto_classic,
                       describe(worst.setting[:6])),
                    gmean <= WITHIN_CLASSIC + EPS and not clear))
        for a in sorted(balanced, key=lambda a: -a.auto_classic):
            if a.auto_classic <= WITHIN_CLASSIC + EPS:
                break
            rows = a.setting.rows
            out.append(("miss: %s: auto/auto_classic %s (auto ran %s, "
                        "auto_classic %s%s)"
                        % (describe(a.setting[:6]), fmt_ratio_error(
                            rows["auto"], rows["auto_classic"], a.measure),
                           a.ran, a.ran_classic, ": the same"
                           if a.ran == a.ran_classic else ""), None))
    else:
        out.append(("delay 0: no setting with auto and auto_classic", None))
    for coll, limit in NATIVE_GOAL.items():
        cases = [a for a in results if a.setting.coll == coll and
                 a.setting.mode == NATIVE_GOAL_MODE and
                 a.setting.delay == NATIVE_GOAL_DELAY]
        if not cases:
            out.append(("%s %g ms %s: not in the data" % (
                coll, NATIVE_GOAL_DELAY, NATIVE_GOAL_MODE), None))
        for a in cases:
            cluster = a.setting.platform == "cluster"
            text = ("%s %s %g ms %s: auto / native run time r = %s (goal <= "
                    "%.2f%s); %s ratio %s"
                    % (coll, fmt_floats(a.setting.size), NATIVE_GOAL_DELAY,
                       NATIVE_GOAL_MODE, fmt_ratio(a.auto_native_r), limit,
                       "" if cluster else ", the cluster's; here for "
                       "reference", MEASURE_NAME["e"], fmt_ratio(
                           ratio(value(a.setting.rows["auto"], "e"),
                                 value(a.setting.rows.get("native"), "e")))))
            met = None
            if cluster:
                met = (a.auto_native_r is not None and
                       a.auto_native_r <= limit + EPS)
            out.append((text, met))
    return out


# ---- text -------------------------------------------------------------------

MEASURE_NAME = {"e": "\u0113", "r": "r"}


def fmt_ratio(v):
    return "-" if v is None else "%.3f" % v


def fmt_ms(v):
    return "-" if v is None else ("%.1f" % v if v >= 10 else "%.2f" % v)


def verdict(met):
    return "" if met is None else (" -> met" if met else " -> NOT met")


def setting_table(results, measure):
    m = MEASURE_NAME[measure]
    out = ["| coll | size | mode | delay | best | best %s | auto %s | "
           "auto/best | auto/native | auto/auto_classic | auto ran | "
           "auto_classic ran |" % (m, m),
           "|---|---:|---|---:|---|---:|---:|---:|---:|---:|---|---|"]
    for a in results:
        s = a.setting
        mark = " (%s left out: errors)" % ", ".join(a.left_out) \
            if a.left_out else ""
        out.append("| %s | %s | %s | %g | %s | %s | %s | %s | %s | %s | %s "
                   "| %s |" % (
                       s.coll, fmt_floats(s.size), s.mode, s.delay,
                       (alg_short(a.best) if a.best else "-") + mark,
                       fmt_ms(a.best_v), fmt_ms(a.auto_v),
                       fmt_ratio(a.auto_best), fmt_ratio(a.auto_native),
                       fmt_ratio(a.auto_classic), a.ran, a.ran_classic))
    return out


def balanced_table(results, measure):
    m = MEASURE_NAME[measure]
    out = ["| coll | size | iterations | auto %s | auto_classic %s | "
           "auto/auto_classic | auto/native | auto ran | auto_classic ran |"
           % (m, m), "|---|---:|---:|---:|---:|---:|---:|---|---|"]
    for a in results:
        s, rows = a.setting, a.setting.rows
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            s.coll, fmt_floats(s.size), rows["auto"]["iterations"],
            fmt_ms(a.auto_v), fmt_ms(value(rows.get("auto_classic"),
                                           measure)),
            fmt_ratio_error(rows["auto"], rows["auto_classic"], measure)
            if "auto_classic" in rows else "-", fmt_ratio(a.auto_native),
            a.ran, a.ran_classic))
    return out


def report_text(per_platform, tables, skipped, measure, no_auto=0,
                balanced=None, traces=None):
    balanced = balanced or {}
    traces = traces or {}
    m = MEASURE_NAME[measure]
    out = ["# Arrival-aware selection: the plain call against the best "
           "algorithm (papc-report arrival-select)", ""]
    out.append("Data: %d papc-bench CSV files%s. Times in ms, the mean "
               "over the measured iterations of %s (%s); best = papcoll's "
               "named algorithm with the least %s (the plain call's "
               "choices; native, auto and auto_classic are not candidates); "
               "ran = auto's most frequent algorithm, its iterations, (+k) "
               "others.%s" % (len(tables), "" if not skipped else
                              " (%d other CSV files skipped)" % len(skipped),
                              m, "average elapsed time" if measure == "e"
                              else "run time", m, "" if not no_auto else
                              " %d setting(s) without an auto row left out."
                              % no_auto))
    for t in tables[:1]:
        out.append("First file: %s: %s; %s; %s." % (
            t.path, t.meta.get("date", "?"), t.meta.get("machine", "?"),
            t.meta.get("arrival_selection", "arrival selection not "
                       "recorded")))
    out.append("")
    for (platform, P), results in per_platform.items():
        out.append("## %s, P = %s" % (platform, P))
        out.append("")
        out.extend(setting_table(results, measure))
        out.append("")
        runs = balanced.get((platform, P))
        if runs:
            out.append("Balanced runs (%s, P = %s: delay 0, where one-late "
                       "and rand-late are the same; only native, auto and "
                       "auto_classic, so more iterations; ratio \u00b1 its "
                       "standard error):" % (platform, P))
            out.append("")
            out.extend(balanced_table(runs, measure))
            out.append("")
        out.append("Goals (%s, P = %s):" % (platform, P))
        out.append("")
        for text, met in goals(results, runs):
            indent = "  " if text.startswith("miss") else ""
            out.append("%s- %s%s" % (indent, text, verdict(met)))
        out.append("")
        floor = noise_floor(traces.get(platform, []), WITHIN_BEST)
        if floor:
            out.append("How precisely this sweep can judge the 5 %% goal "
                       "(%s, from the --trace files; papc-report's "
                       "arrival_noise.py):" % platform)
            out.append("")
            out.extend("- " + line if not line.startswith(" ") else line
                       for line in floor)
            out.append("")
    return "\n".join(out) + "\n"


# ---- the subcommand ------------------------------------------------------

def analyse_all(settings, measure):
    """{(platform, P): [Result]}, settings without an auto row left out."""
    per = OrderedDict()
    for s in settings.values():
        a = analyse(s, measure)
        if a is not None:
            per.setdefault((s.platform, s.P), []).append(a)
    return per


def add_arguments(p):
    p.add_argument("inputs", nargs="+", metavar="DIR|CSV",
                   help="scripts/arrival-select-bench.sh's directory "
                   "(searched recursively) or papc-bench CSV files")
    p.add_argument("--measure", choices=("e", "r"), default="e",
                   help="what best, auto/best, auto/native and "
                   "auto/auto_classic compare: e = average elapsed time "
                   "(default), r = run time; the native goals always use r")
    p.add_argument("--markdown", metavar="FILE",
                   help="also write the report to FILE")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 when a goal is not met")


def run(args):
    settings, balanced, tables, skipped = read_settings(args.inputs)
    traces = OrderedDict()
    for t in tables:
        if not is_balanced_run(t.path):
            traces.setdefault(platform_of(t), []).extend(
                traces_beside([t.path]))
    skipped = [p for p in skipped if not p.endswith(".trace.csv")]
    for path in skipped:
        sys.stderr.write("papc-report: %s is not a papc-bench CSV: skipped\n"
                         % path)
    per = analyse_all(settings, args.measure)
    runs = analyse_all(balanced, args.measure)
    for key in runs:
        if key not in per:
            sys.stderr.write("papc-report: balanced runs of %s P=%s without "
                             "the sweep's: not reported\n" % key)
    if not per:
        raise ReportError("no setting with an auto row: run papc-bench "
                          "with -a ...,auto,auto_classic "
                          "(scripts/arrival-select-bench.sh does)")
    no_auto = sum(1 for st in settings.values() if "auto" not in st.rows)
    text = report_text(per, tables, skipped, args.measure, no_auto, runs,
                       traces)
    sys.stdout.write(text)
    if args.markdown:
        try:
            with open(args.markdown, "w") as f:
                f.write(text)
        except OSError as exc:
            raise ReportError("cannot write %s: %s" % (args.markdown,
                                                       exc.strerror))
    missed = [text for key, results in per.items()
              for text, met in goals(results, runs.get(key)) if met is False]
    if args.strict and missed:
        sys.stderr.write("papc-report: %d goal(s) not met\n" % len(missed))
        return 1
    return 0
