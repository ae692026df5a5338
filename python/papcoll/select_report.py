"""papc-report select: the accuracy of model-based selection (issue 12,
item 7) from papc-select-bench's CSV files — the paper's Tables 2-3 and
Figs. 4-7 (model-based-selection.md Sect. V) for papcoll.

    papc-report select DIR [DIR|CSV ...] [-o OUTDIR] [--tolerance PCT]
                       [--markdown FILE] [--no-plots] [--dpi N]

DIR is what scripts/select-bench.sh writes (DIR/shm/P4.csv, ...): every
*.csv below it whose header is papc-select-bench's is read, others (the
tune's CSV) are skipped.  A cell is (platform, collective, P, size).  Rows
of the same cell and variant from several files (e.g. the alternated
native-only runs) are averaged (the mean of their medians).

Per cell, with times the median over rounds of the slowest rank:
  best          the papcoll algorithm variant (algorithm at a segment size)
                with the lowest time;
  model         the variant papc_explain chose: its time / best - 1 (the
                paper's measure: 0 when the model picked the best);
  model call    the plain call under the model (what a user gets: the
                choice, its segment size and the selection's cost);
  fixed         the old fixed rules' algorithm (the variant it runs: 8 KiB
                segments), and `fixed call` the plain call under them;
  native        MPI_<Coll> with Open MPI's default choice, same run;
  native+rules  MPI_<Coll> under papcoll's exported rules file.  It runs
                alone (another mpirun), so it is chained through the
                alternated native-alone runs of Open MPI's defaults:
                (native_rules / native_alone) x (native / best) - 1; without
                native-alone runs it is native_rules / best - 1 (marked `~`).
All slowdowns are in %.  The summary gives, per platform, what the goals
ask: the share of cells with the model within --tolerance (5 %) of the
best, the mean and the worst slowdown; the mean ratio of the model call to
native over the grid; the cells where the model call is more than 10 %
slower than native together with Open MPI's algorithm there when the CSV
records it (native rows' `algorithm`), and whether papcoll has that
algorithm; native+rules against native's defaults.

Figures (OUTDIR, matplotlib's Agg backend):
  select-<platform>-P<P>-time.png   time against size, one panel per
      collective: every algorithm measured (solid, at the model's segment
      size) and predicted (dashed), native, the model call;
  select-<platform>-predicted.png   predicted against measured time, one
      panel per collective, every variant with a prediction, the y = x line;
  select-<platform>-slowdown.png    slowdown maps, P x size, rows the
      collectives, columns model, native, fixed (and native+rules).
"""

import math
import os
import sys
from collections import OrderedDict, namedtuple

from .report import (ReportError, label_narrow_log_axis, load_pyplot,
                     read_tool_csv)
from .bench_report import fmt_bytes, header_of

SELECT_COLUMNS = ("platform", "coll", "P", "bytes", "variant", "algorithm",
                  "segsize", "reps", "median_us", "mean_us", "min_us",
                  "max_us", "predicted_us", "chosen_by_model", "status")
COLL_ORDER = ("gather", "scatter", "bcast", "reduce", "allreduce")
PLATFORM_ORDER = ("shm", "cluster")
NATIVE_CALL = {"gather": "MPI_Gather", "scatter": "MPI_Scatter",
               "bcast": "MPI_Bcast", "reduce": "MPI_Reduce",
               "allreduce": "MPI_Allreduce"}
PLAIN = ("model", "fixed", "native", "native_rules", "native_alone")
DEFAULT_SEGSIZE = 8192
NATIVE_MARGIN = 10.0  # %: the goal's "never more than 10 % slower"

# Open MPI 4.1's coll/tuned algorithm names -> papcoll's row of the same
# algorithm (scripts/bench-classic.sh pairs them); None: papcoll has none.
OMPI_TO_PAPC = {
    "gather": {"basic_linear": "basic_linear", "binomial": "binomial",
               "linear_sync": "linear_sync"},
    "scatter": {"basic_linear": "basic_linear", "binomial": "binomial",
                "linear_nb": "linear_nb"},
    "bcast": {"basic_linear": "basic_linear", "chain": "k_chain",
              "pipeline": "chain", "split_binary_tree": "split_binary",
              "binary_tree": "binary", "binomial": "binomial",
              "knomial": "knomial", "scatter_allgather": None,
              "scatter_allgather_ring": None},
    "reduce": {"linear": "basic_linear", "binomial": "binomial",
               "rabenseifner": "rabenseifner", "chain": None,
               "pipeline": None, "binary": None, "in-order_binary": None},
    "allreduce": {"basic_linear": "basic_linear",
                  "recursive_doubling": "recursive_doubling",
                  "ring": "ring", "segmented_ring": "segmented_ring",
                  "rabenseifner": "rabenseifner", "nonoverlapping": None},
}


# ---- reading ------------------------------------------------------------

def select_csvs(paths):
    """papc-select-bench CSV files among paths (directories are searched
    recursively, in name order); the others are named on stderr."""
    found, skipped = [], []
    for path in paths:
        if os.path.isdir(path):
            for top, dirs, files in os.walk(path):
                dirs.sort()
                for name in sorted(files):
                    if name.endswith(".csv"):
                        full = os.path.join(top, name)
                        (found if is_select_csv(full) else skipped).append(
                            full)
        elif os.path.isfile(path):
            if not is_select_csv(path):
                raise ReportError("%s is not a papc-select-bench CSV (its "
                                  "header lacks %s)" % (path, ", ".join(
                                      c for c in SELECT_COLUMNS
                                      if c not in header_of(path))))
            found.append(path)
        else:
            raise ReportError("%s: no such file or directory" % path)
    if not found:
        raise ReportError("no papc-select-bench CSV in %s"
                          % ", ".join(paths))
    return found, skipped


def is_select_csv(path):
    try:
        header = header_of(path)
    except (OSError, UnicodeDecodeError):
        return False
    return all(c in header for c in SELECT_COLUMNS)


class Cell(object):
    """One (platform, collective, P, bytes): its algorithm variants keyed by
    (algorithm, segsize or None) and its plain-call variants by name; each a
    dict with median (the mean over files), predicted, chosen, algorithm,
    status."""

    def __init__(self, key):
        self.key = key
        self.platform, self.coll, self.P, self.bytes = key
        self.algs = OrderedDict()
        self.plain = OrderedDict()

    def label(self):
        return "%s P=%d %s" % (self.coll, self.P, fmt_bytes(self.bytes))


def _add(store, key, row):
    entry = store.get(key)
    if entry is None:
        entry = store[key] = {"medians": [], "predicted": None,
                              "chosen": 0, "algorithm": "", "status": "ok",
                              "segsize": row["segsize"]}
    if isinstance(row["median_us"], (int, float)) and \
            row["status"] != "MISMATCH":
        entry["medians"].append(float(row["median_us"]))
    if row["status"] != "ok" and entry["status"] == "ok":
        entry["status"] = row["status"]
    if isinstance(row["predicted_us"], (int, float)):
        entry["predicted"] = float(row["predicted_us"])
    if row["chosen_by_model"] == 1:
        entry["chosen"] = 1
    if isinstance(row["algorithm"], str) and row["algorithm"]:
        entry["algorithm"] = row["algorithm"]
    entry["median"] = (sum(entry["medians"]) / len(entry["medians"])
                       if entry["medians"] else None)


def read_cells(paths):
    """{key: Cell} in the order platform, collective, P, bytes; and the
    tables read."""
    files, _ = select_csvs(paths)
    cells, tables = {}, []
    for path in files:
        table = read_tool_csv(path)
        tables.append(table)
        for n, row in enumerate(table.rows, start=1):
            if not isinstance(row["P"], int) or \
                    not isinstance(row["bytes"], int):
                raise ReportError("%s: data row %d has no number in P or "
                                  "bytes" % (path, n))
            key = (str(row["platform"]), row["coll"], row["P"], row["bytes"])
            cell = cells.get(key)
            if cell is None:
                cell = cells[key] = Cell(key)
            seg = row["segsize"] if isinstance(row["segsize"], int) else None
            if row["variant"] == "alg":
                _add(cell.algs, (row["algorithm"], seg), row)
            else:
                _add(cell.plain, row["variant"], row)
    order = sorted(cells, key=lambda k: (
        _rank(k[0], PLATFORM_ORDER), _rank(k[1], COLL_ORDER), k[2], k[3]))
    return OrderedDict((k, cells[k]) for k in order), tables


def _rank(value, order):
    return (order.index(value) if value in order else len(order), value)


# ---- analysis -----------------------------------------------------------

def alg_label(name, seg):
    if seg is None:
        return name
    if seg == 0:
        return "%s/whole" % name
    return "%s/%s" % (name, "%dK" % (seg // 1024) if seg % 1024 == 0
                      else "%d" % seg)


def effective_segsize(seg, nbytes):
    """Segment sizes at or above the message are all the whole message
    (papc-select-bench times them as one variant); None: no segments."""
    if seg is None:
        return None
    return 0 if seg == 0 or seg >= nbytes else seg


def slowdown(t, best):
    """Slowdown in % of time t against best."""
    return 100.0 * (t / best - 1.0)


Analysis = namedtuple("Analysis", [
    "cell", "best", "best_t", "choice", "model", "model_call", "fixed_alg",
    "fixed", "fixed_call", "native", "native_rules", "rules_chained",
    "model_vs_native", "rules_vs_alone", "ompi_alg", "papc_has_ompi",
    "rules_alg"])


def analyse(cell):
    """The per-cell figures (None where the CSV has no data)."""
    timed = [(k, e) for k, e in cell.algs.items() if e["median"] is not None
             and e["status"] == "ok"]
    if not timed:
        return None
    (bname, bseg), best = min(timed, key=lambda ke: ke[1]["median"])
    best_t = best["median"]

    def plain_t(name):
        e = cell.plain.get(name)
        return e["median"] if e and e["median"] is not None else None

    def rel(t):
        return slowdown(t, best_t) if t is not None else None

    chosen = [(k, e) for k, e in timed if e["chosen"]]
    choice = chosen[0][0] if chosen else None
    model = rel(chosen[0][1]["median"]) if chosen else None

    # the fixed rules run their algorithm at the default 8 KiB segments
    fixed_alg = cell.plain.get("fixed", {}).get("algorithm") or None
    fixed = None
    for (name, seg), e in timed:
        if name == fixed_alg and (seg is None or effective_segsize(
                seg, cell.bytes) == effective_segsize(DEFAULT_SEGSIZE,
                                                      cell.bytes)):
            fixed = rel(e["median"])

    native_t, rules_t = plain_t("native"), plain_t("native_rules")
    alone_t, model_call_t = plain_t("native_alone"), plain_t("model")
    native_rules, chained = None, False
    if rules_t is not None and alone_t is not None and native_t is not None:
        native_rules = rel(rules_t / alone_t * native_t)
        chained = True
    elif rules_t is not None:
        native_rules = rel(rules_t)

    # Open MPI's algorithm (scripts/ompi-coll-probe.c): its default choice
    # in the full run, else in the native-alone runs; under the rules
    ompi = (cell.plain.get("native", {}).get("algorithm") or
            cell.plain.get("native_alone", {}).get("algorithm") or None)
    if ompi == "?":
        ompi = None
    rules_alg = cell.plain.get("native_rules", {}).get("algorithm") or None
    has = None
    if ompi:
        mapped = OMPI_TO_PAPC.get(cell.coll, {}).get(ompi, ompi)
        has = mapped is not None and any(n == mapped for n, _ in cell.algs)

    return Analysis(
        cell=cell, best=alg_label(bname, bseg), best_t=best_t,
        choice=alg_label(*choice) if choice else None, model=model,
        model_call=rel(model_call_t), fixed_alg=fixed_alg, fixed=fixed,
        fixed_call=rel(plain_t("fixed")), native=rel(native_t),
        native_rules=native_rules, rules_chained=chained,
        model_vs_native=(model_call_t / native_t
                         if model_call_t is not None and native_t else None),
        rules_vs_alone=(rules_t / alone_t
                        if rules_t is not None and alone_t else None),
        ompi_alg=ompi, papc_has_ompi=has, rules_alg=rules_alg)


SERIES = (("model", "model choice"), ("model_call", "model call"),
          ("fixed", "fixed rules"), ("fixed_call", "fixed call"),
          ("native", "native"), ("native_rules", "native+rules"))


def series_stats(results, field, tolerance):
    """(cells, within tolerance, mean slowdown, worst slowdown, worst
    Analysis) of one series over results; None when it has no value."""
    vals = [(getattr(a, field), a) for a in results
            if getattr(a, field) is not None]
    if not vals:
        return None
    worst = max(vals, key=lambda va: va[0])
    # 8.4 us against 8 us is 5 % exactly, not 5.000000000000004 %
    within = sum(1 for v, _ in vals if v <= tolerance + 1e-9)
    mean = sum(v for v, _ in vals) / len(vals)
    return len(vals), within, mean, worst[0], worst[1]


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def platform_summary(results, tolerance):
    """Everything the goals need for one platform, as a dict."""
    out = {"cells": len(results), "series": OrderedDict()}
    for field, _ in SERIES:
        out["series"][field] = series_stats(results, field, tolerance)
    ratios = [a.model_vs_native for a in results
              if a.model_vs_native is not None]
    out["model_vs_native"] = (
        (len(ratios), sum(ratios) / len(ratios), geomean(ratios),
         sum(1 for r in ratios if r < 1.0)) if ratios else None)
    out["slower_than_native"] = [
        a for a in results if a.model_vs_native is not None and
        a.model_vs_native > 1.0 + NATIVE_MARGIN / 100.0]
    out["bcast_64k"] = [a for a in results if a.cell.coll == "bcast" and
                        a.cell.bytes == 65536]
    both = [a for a in results if a.ompi_alg and a.rules_alg]
    out["rules_applied"] = (len(both), sum(1 for a in both
                                           if a.ompi_alg != a.rules_alg))
    rules = [a.rules_vs_alone for a in results
             if a.rules_vs_alone is not None]
    out["rules_vs_default"] = (
        (len(rules), sum(rules) / len(rules), geomean(rules),
         sum(1 for r in rules if r < 1.0)) if rules else None)
    return out


def analyse_all(cells, tolerance):
    """{platform: ([Analysis], summary)} in platform order."""
    per = OrderedDict()
    for cell in cells.values():
        a = analyse(cell)
        if a is not None:
            per.setdefault(cell.platform, []).append(a)
    return OrderedDict((p, (rs, platform_summary(rs, tolerance)))
                       for p, rs in per.items())


# ---- text -----------------------------------------------------------------

def fmt_pct(v, mark=""):
    return "-" if v is None else "%.1f%s" % (v, mark)


def goal_word(ok):
    return "met" if ok else "NOT met"


def summary_lines(platform, summary, tolerance):
    """The goals' figures for one platform, as lines of text."""
    lines = ["%s: %d cells" % (platform, summary["cells"])]
    for field, name in SERIES:
        st = summary["series"][field]
        if st is None:
            continue
        n, within, mean, worst, wa = st
        lines.append("  %-13s within %g%% of best in %d/%d cells (%.1f%%), "
                     "mean slowdown %.1f%%, worst %.1f%% (%s)"
                     % (name, tolerance, within, n, 100.0 * within / n, mean,
                        worst, wa.cell.label()))
    st = summary["series"]["model"]
    if st is not None:
        n, within, mean, worst, _ = st
        lines.append("  goal: model within %g%% of best in >= 90%% of cells "
                     "-> %s; mean slowdown <= 3%% -> %s; worst cell <= 25%% "
                     "-> %s" % (tolerance, goal_word(within >= 0.9 * n),
                                goal_word(mean <= 3.0),
                                goal_word(worst <= 25.0)))
    mv = summary["model_vs_native"]
    if mv is not None:
        n, mean, gmean, faster = mv
        lines.append("  model call / native over %d cells: mean ratio %.3f, "
                     "geometric mean %.3f, model faster in %d -> goal "
                     "(faster on average) %s"
                     % (n, mean, gmean, faster, goal_word(mean < 1.0)))
    slow = summary["slower_than_native"]
    has = [a for a in slow if a.papc_has_ompi]
    unknown = [a for a in slow if a.papc_has_ompi is None]
    if has:
        verdict = goal_word(False)
    elif unknown:
        verdict = "not judged (Open MPI's choice unknown in %d cells)" \
            % len(unknown)
    else:
        verdict = goal_word(True)
    lines.append("  model call > %g%% slower than native in %d cells: %d "
                 "where papcoll has Open MPI's algorithm, %d where Open "
                 "MPI's choice is not recorded -> goal %s"
                 % (NATIVE_MARGIN, len(slow), len(has), len(unknown),
                    verdict))
    for a in slow:
        lines.append("    %-30s model %s %.3gx native%s"
                     % (a.cell.label(), a.choice or "?", a.model_vs_native,
                        "" if a.ompi_alg is None else
                        " (Open MPI ran %s%s)" % (
                            a.ompi_alg, ", papcoll has it" if a.papc_has_ompi
                            else ", papcoll has not")))
    for a in summary["bcast_64k"]:
        model = a.cell.plain.get("model", {}).get("median")
        native = a.cell.plain.get("native", {}).get("median")
        if model is None or native is None:
            continue
        lines.append("  the bcast case (64 KiB, issue 12's goals), P = %d: "
                     "model call %.1f us (%s), native %.1f us: %.3gx -> %s"
                     % (a.cell.P, model, a.choice or "?", native,
                        model / native, "gone" if model <= native * 1.1
                        else "NOT gone"))
    n, changed = summary["rules_applied"]
    if n:
        lines.append("  Open MPI under the exported rules ran another "
                     "algorithm than its default in %d of %d cells (the "
                     "rules file was %s)" % (changed, n, "applied" if changed
                                             else "NOT seen to apply"))
    rv = summary["rules_vs_default"]
    if rv is not None:
        n, mean, gmean, faster = rv
        lines.append("  native+rules / native default over %d cells (both "
                     "alone, alternated): mean ratio %.3f, geometric mean "
                     "%.3f, rules faster in %d -> goal %s"
                     % (n, mean, gmean, faster, goal_word(gmean < 1.0)))
    return lines


def cell_table(results):
    """Markdown: the paper's Tables 2-3, one row per cell."""
    out = ["| coll | P | size | best | µs | model choice (%) | model call "
           "(%) | fixed rules (%) | fixed call (%) | native (%) | "
           "native+rules (%) | model/native | Open MPI ran (default / "
           "rules) |",
           "|---|---:|---:|---|---:|---|---:|---|---:|---:|---:|---:|---|"]
    for a in results:
        c = a.cell
        out.append("| %s | %d | %s | %s | %.1f | %s (%s) | %s | %s (%s) | "
                   "%s | %s | %s | %s | %s |" % (
                       c.coll, c.P, fmt_bytes(c.bytes), a.best, a.best_t,
                       a.choice or "-", fmt_pct(a.model),
                       fmt_pct(a.model_call), a.fixed_alg or "-",
                       fmt_pct(a.fixed), fmt_pct(a.fixed_call),
                       fmt_pct(a.native),
                       fmt_pct(a.native_rules,
                               "" if a.rules_chained else "~"),
                       "-" if a.model_vs_native is None
                       else "%.3f" % a.model_vs_native,
                       "%s / %s" % (a.ompi_alg or "?", a.rules_alg or "-")))
    return out


def markdown(per_platform, tables, tolerance):
    out = ["# Model-based selection: accuracy (papc-report select)", ""]
    meta = tables[0].meta if tables else {}
    out.append("Data: %d CSV files; MPI %s; machine %s; first run %s."
               % (len(tables), meta.get("mpi", "?"), meta.get("machine", "?"),
                  meta.get("date", "?")))
    out.append("Times: median over interleaved rounds of the slowest rank; "
               "slowdowns in %% against the best papcoll algorithm variant; "
               "`~`: native+rules not chained through native-alone runs.")
    out.append("")
    for platform, (results, summary) in per_platform.items():
        out.append("## %s" % platform)
        out.append("")
        out.extend(cell_table(results))
        out.append("")
        out.append("```")
        out.extend(summary_lines(platform, summary, tolerance))
        out.append("```")
        out.append("")
    return "\n".join(out) + "\n"


# ---- figures ----------------------------------------------------------------

COLORS = ("tab:blue", "tab:green", "tab:purple", "tab:brown", "tab:cyan",
          "tab:olive", "tab:pink", "tab:gray", "navy", "teal")


def size_ticks(ax, sizes):
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes)
    ax.set_xticklabels([fmt_bytes(s).replace(" ", "") for s in sizes],
                       fontsize=7, rotation=45)
    import matplotlib.ticker as ticker
    ax.xaxis.set_minor_locator(ticker.NullLocator())


def plain_log_labels(ax):
    """Log axes labelled 10, 100, 1000 instead of 10^1 (and no crowded
    minor labels)."""
    import matplotlib.ticker as ticker
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(ticker.FuncFormatter(
            lambda v, _pos: "%g" % v))
        axis.set_minor_formatter(ticker.NullFormatter())


def measured_variant(cell, name):
    """The variant drawn for an algorithm: the one papc_explain predicted
    (the model's segment size), else the 8 KiB / unsegmented one."""
    keys = [k for k in cell.algs if k[0] == name and
            cell.algs[k]["median"] is not None]
    for k in keys:
        if cell.algs[k]["predicted"] is not None:
            return cell.algs[k]
    for k in keys:
        if k[1] in (None, DEFAULT_SEGSIZE):
            return cell.algs[k]
    return cell.algs[keys[0]] if keys else None


def draw_time_figure(plt, platform, P, cells, args):
    colls = [c for c in COLL_ORDER if any(k[1] == c for k in cells)]
    fig, axes = plt.subplots(1, len(colls), squeeze=False,
                             figsize=(4.2 * len(colls), 6.2))
    for ax, coll in zip(axes[0], colls):
        cs = sorted((c for k, c in cells.items() if k[1] == coll),
                    key=lambda c: c.bytes)
        sizes = [c.bytes for c in cs]
        names = OrderedDict()
        for c in cs:
            for name, _ in c.algs:
                names.setdefault(name, None)
        for i, name in enumerate(names):
            color = COLORS[i % len(COLORS)]
            xs, ys, xp, yp = [], [], [], []
            for c in cs:
                e = measured_variant(c, name)
                if e is None:
                    continue
                xs.append(c.bytes)
                ys.append(e["median"])
                if e["predicted"] is not None:
                    xp.append(c.bytes)
                    yp.append(e["predicted"])
            ax.plot(xs, ys, color=color, marker="o", markersize=3,
                    linewidth=1.1, label="%s measured" % name)
            if xp:
                ax.plot(xp, yp, color=color, linestyle="--", marker="o",
                        markerfacecolor="none", markersize=4, linewidth=0.9,
                        label="%s predicted" % name)
        for variant, style in (("native", dict(color="black", marker="s")),
                               ("model", dict(color="red", marker="x",
                                              linestyle=":"))):
            pts = [(c.bytes, c.plain[variant]["median"]) for c in cs
                   if variant in c.plain and
                   c.plain[variant]["median"] is not None]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts],
                        linewidth=1.4, markersize=5,
                        label=("%s (native)" % NATIVE_CALL[coll]
                               if variant == "native" else
                               "plain call, model selection"), **style)
        ax.set_yscale("log")
        plain_log_labels(ax)
        label_narrow_log_axis(ax)
        size_ticks(ax, sizes)
        ax.set_title("%s (%s)" % (coll, "block per rank" if coll in
                                  ("gather", "scatter") else "vector"),
                     fontsize=10)
        ax.set_xlabel("size", fontsize=9)
        ax.grid(True, which="major", linewidth=0.4, alpha=0.6)
        ax.legend(fontsize=6, loc="upper center", ncol=2, frameon=False,
                  bbox_to_anchor=(0.5, -0.2))
    axes[0][0].set_ylabel("time (µs): measured median, predicted",
                          fontsize=9)
    fig.suptitle("%s, P = %d: measured (solid) and predicted (dashed) time "
                 "per algorithm" % (platform, P), fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    path = os.path.join(args.outdir, "select-%s-P%d-time.png" % (platform, P))
    fig.savefig(path, dpi=args.dpi)
    plt.close(fig)
    return path


def draw_predicted_figure(plt, platform, cells, args):
    colls = [c for c in COLL_ORDER if any(k[1] == c for k in cells)]
    fig, axes = plt.subplots(1, len(colls), squeeze=False,
                             figsize=(3.8 * len(colls), 4.0))
    drew = False
    for ax, coll in zip(axes[0], colls):
        names = OrderedDict()
        pts = {}
        for k, c in cells.items():
            if k[1] != coll:
                continue
            for (name, _), e in c.algs.items():
                if e["predicted"] is not None and e["median"] is not None:
                    names.setdefault(name, None)
                    pts.setdefault(name, []).append((e["median"],
                                                     e["predicted"]))
        lo, hi = None, None
        for i, name in enumerate(names):
            xs, ys = zip(*pts[name])
            ax.scatter(xs, ys, s=12, color=COLORS[i % len(COLORS)],
                       label=name)
            lo = min([lo] + list(xs) + list(ys)) if lo else min(xs + ys)
            hi = max([hi or 0] + list(xs) + list(ys))
            drew = True
        if lo:
            ax.plot([lo / 2, hi * 2], [lo / 2, hi * 2], color="black",
                    linewidth=0.8, linestyle="--", label="predicted = "
                    "measured")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(lo / 2, hi * 2)
            ax.set_ylim(lo / 2, hi * 2)
            plain_log_labels(ax)
            label_narrow_log_axis(ax)
            ax.legend(fontsize=6, loc="upper left")
        ax.set_title(coll, fontsize=10)
        ax.set_xlabel("measured median (µs)", fontsize=9)
        ax.grid(True, linewidth=0.4, alpha=0.6)
    axes[0][0].set_ylabel("predicted (µs)", fontsize=9)
    fig.suptitle("%s: predicted against measured time, every P and size"
                 % platform, fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    if not drew:
        plt.close(fig)
        return None
    path = os.path.join(args.outdir, "select-%s-predicted.png" % platform)
    fig.savefig(path, dpi=args.dpi)
    plt.close(fig)
    return path


MAP_BOUNDS = (-1e9, 5, 10, 25, 50, 100, 1000, 1e9)


def draw_slowdown_maps(plt, platform, results, args):
    import matplotlib.colors as mcolors
    cols = [("model", "model choice"), ("native", "native (Open MPI's "
                                        "default)"),
            ("fixed", "fixed rules")]
    if any(a.native_rules is not None for a in results):
        cols.append(("native_rules", "native + exported rules"))
    colls = [c for c in COLL_ORDER if any(a.cell.coll == c for a in results)]
    Ps = sorted({a.cell.P for a in results})
    sizes = sorted({a.cell.bytes for a in results})
    cmap = plt.get_cmap("YlOrRd", len(MAP_BOUNDS) - 1)
    norm = mcolors.BoundaryNorm(MAP_BOUNDS, cmap.N)
    fig, axes = plt.subplots(len(colls), len(cols), squeeze=False,
                             layout="constrained",
                             figsize=(3.3 * len(cols) + 1.0,
                                      0.3 * len(Ps) * len(colls) +
                                      1.3 * len(colls) + 0.8))
    image = None
    for r, coll in enumerate(colls):
        for k, (field, title) in enumerate(cols):
            ax = axes[r][k]
            grid = [[float("nan")] * len(sizes) for _ in Ps]
            for a in results:
                v = getattr(a, field)
                if a.cell.coll == coll and v is not None:
                    grid[Ps.index(a.cell.P)][sizes.index(a.cell.bytes)] = v
            ax.set_facecolor("0.85")  # grey: no data in that cell
            image = ax.imshow(grid, cmap=cmap, norm=norm, aspect="auto",
                              origin="lower")
            for i in range(len(Ps)):
                for j in range(len(sizes)):
                    v = grid[i][j]
                    if v == v:
                        ax.text(j, i, "%.0f" % v, ha="center", va="center",
                                fontsize=6, color="white" if v >= 100
                                else "black")
            ax.set_yticks(range(len(Ps)))
            ax.set_yticklabels([str(p) for p in Ps], fontsize=7)
            ax.set_xticks(range(len(sizes)))
            ax.set_xticklabels([fmt_bytes(s).replace(" ", "")
                                for s in sizes], fontsize=6, rotation=60)
            if r == 0:
                ax.set_title(title, fontsize=9)
            if k == 0:
                ax.set_ylabel("%s\nP" % coll, fontsize=9)
    cbar = fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.6,
                        ticks=MAP_BOUNDS[1:-1])
    cbar.set_label("slowdown against the best algorithm (%)", fontsize=8)
    fig.suptitle("%s: slowdown against the best papcoll algorithm (%%; "
                 "grey: no data)" % platform, fontsize=11)
    path = os.path.join(args.outdir, "select-%s-slowdown.png" % platform)
    fig.savefig(path, dpi=args.dpi)
    plt.close(fig)
    return path


def draw_all(plt, cells, per_platform, args):
    written = []
    for platform, (results, _) in per_platform.items():
        pcells = OrderedDict((k, c) for k, c in cells.items()
                             if k[0] == platform)
        for P in sorted({k[2] for k in pcells}):
            sub = OrderedDict((k, c) for k, c in pcells.items()
                              if k[2] == P and c.algs)
            if sub:
                written.append(draw_time_figure(plt, platform, P, sub, args))
        path = draw_predicted_figure(plt, platform, pcells, args)
        if path:
            written.append(path)
        written.append(draw_slowdown_maps(plt, platform, results, args))
    return written


# ---- the command ----------------------------------------------------------

def add_arguments(p):
    p.add_argument("inputs", nargs="+", metavar="DIR|CSV",
                   help="scripts/select-bench.sh's directory (searched "
                   "recursively) or papc-select-bench CSV files")
    p.add_argument("-o", "--outdir",
                   help="directory for the figures and select-summary.md "
                   "(created; default FIRST_INPUT/report)")
    p.add_argument("--tolerance", type=float, default=5.0, metavar="PCT",
                   help="'within' the best: at most PCT %% slower "
                   "(default 5)")
    p.add_argument("--markdown", metavar="FILE",
                   help="write the tables and summary to FILE instead of "
                   "OUTDIR/select-summary.md ('-' = stdout)")
    p.add_argument("--no-plots", dest="plots", action="store_false",
                   help="no figures (needs no matplotlib)")
    p.add_argument("--dpi", type=int, default=110, help="PNG resolution")


def run(args):
    cells, tables = read_cells(args.inputs)
    per_platform = analyse_all(cells, args.tolerance)
    if not per_platform:
        raise ReportError("no cell with a timed papcoll algorithm (only "
                          "native-only runs?)")
    if args.outdir is None:
        first = args.inputs[0]
        base = first if os.path.isdir(first) else os.path.dirname(first)
        args.outdir = os.path.join(base or ".", "report")
    plt = load_pyplot() if args.plots else None
    try:
        os.makedirs(args.outdir, exist_ok=True)
    except OSError as exc:
        raise ReportError("cannot create %s: %s" % (args.outdir,
                                                    exc.strerror))
    say = sys.stderr if args.markdown == "-" else sys.stdout
    for platform, (_, summary) in per_platform.items():
        for line in summary_lines(platform, summary, args.tolerance):
            say.write(line + "\n")
    text = markdown(per_platform, tables, args.tolerance)
    if args.markdown == "-":
        sys.stdout.write(text)
    else:
        path = args.markdown or os.path.join(args.outdir, "select-summary.md")
        try:
            with open(path, "w") as f:
                f.write(text)
        except OSError as exc:
            raise ReportError("cannot write %s: %s" % (path, exc.strerror))
        say.write("wrote %s\n" % path)
    if plt is not None:
        for path in draw_all(plt, cells, per_platform, args):
            say.write("wrote %s\n" % path)
    return 0
