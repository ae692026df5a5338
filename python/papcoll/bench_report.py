"""papc-report bench: the papers' figures and tables from papc-bench's CSV.

    papc-report bench RESULTS.csv [MORE.csv ...] -o OUTDIR
                      [--baseline NAME | --baseline COLL:NAME ...]
                      [--dpi N] [--no-plots] [--markdown FILE]

Reads one or more CSV files written by `papc-bench --csv` (several files are
merged: e.g. one run per process count P), and writes into OUTDIR:

- bench-<coll>-P<P>-<size>-<mode>-vs-delay.png: run time r and average
  elapsed time e (pap-scatter-gather.md section 3, eqs. 1 and 2) against the
  maximum delay, one line per algorithm (mean, +- sigma bars; on a log
  time axis clipped below at the minimum), the ideal bound (median over the
  algorithms' runs) as a dashed black line on the run-time panel (as Figs.
  14 and 15);
- bench-<coll>-P<P>-<mode>-<delay>ms-vs-size.png: the same against the size
  (Fig. 16);
- bench-<coll>-<size>-<mode>-<delay>ms-vs-P.png: against the number of
  processes, when the data hold several P (Fig. 17);
- bench-summary.md: per (collective, P, mode) the mean run times with the
  ideal bound, and per algorithm the papers' Tables 3 and 4: for each size
  (rows) and maximum delay (columns) the difference in ms to the baseline
  (default `native`, the MPI library's own call) and the speedup
  baseline / algorithm, for r and for e.

A figure is drawn only along an axis where the data vary; what is skipped is
said on stdout.  Rows whose `errors` column is > 0 (the result differed from
the native collective) are crossed out in red in the figures and flagged in
the summary.  Empty ideal values are skipped; unknown columns are ignored,
but for `ran` (what the plain call ran, rows auto and auto_classic: issue
15), which the summary shows as a table.

"Size" follows the papers: the whole vector in floats, P x count for gather
and scatter (count = one process's block), count for allreduce.
"""

import csv
import math
import os
import sys
from collections import OrderedDict

from .report import ReportError, load_pyplot, read_tool_csv

# THE CSV CONTRACT (issue 4): these columns, in this order; more are ignored
BENCH_COLUMNS = (
    "coll", "algorithm", "P", "count", "bytes", "mode", "max_delay_ms",
    "iterations", "r_mean_ms", "r_median_ms", "r_min_ms", "r_max_ms",
    "r_std_ms", "e_mean_ms", "e_median_ms", "e_min_ms", "e_max_ms",
    "e_std_ms", "ideal_mean_ms", "ideal_std_ms", "errors")

# the papers' abbreviations, for legends and tables
ABBREV = {
    "basic_linear": "LIN", "linear_sync": "LS", "binomial": "BNOM",
    "sorted_linear": "SLIN", "sorted_linear_sync": "SLS",
    "sorted_binomial": "SBN", "background_sorted_linear": "BSLN",
    "background_sorted_linear_sync": "BSLS",
    "background_sorted_binomial": "BSBN", "sorted_linear_tree": "SLT",
    "pre_reduced_ring": "PRR", "recursive_doubling": "RD", "ring": "RING",
    "segmented_ring": "SRING", "rabenseifner": "RSAG",
    "pre_reduced_ring_published": "PRR-paper",
}
NATIVE_CALL = {"gather": "MPI_Gather", "scatter": "MPI_Scatter",
               "reduce": "MPI_Reduce", "allreduce": "MPI_Allreduce"}
COLL_ORDER = ("gather", "scatter", "reduce", "allreduce")
MODE_ORDER = ("one-late", "rand-late")
# classic algorithms grey-blue-ish, the arrival-aware ones in strong colours;
# one colour per algorithm name across all figures
COLORS = ("tab:blue", "tab:green", "tab:red", "tab:purple", "tab:brown",
          "tab:pink", "tab:olive", "tab:cyan", "tab:gray", "navy", "teal",
          "darkgoldenrod")
MARKERS = ("s", "^", "v", "D", "P", "X", "<", ">", "h", "*", "p", "d")
MEASURES = (("r", "run time r"), ("e", "average elapsed time \u0113"))
# papcoll's plain call (papc-bench -a auto, auto_classic, issue 15)
PLAIN_LABEL = {"auto": "auto (plain call)",
               "auto_classic": "auto_classic (plain call, arrival-aware "
                               "selection off)"}
PLAIN_STYLE = {"auto": ("black", "*"), "auto_classic": ("dimgray", "x")}


# ---- reading ------------------------------------------------------------

def sort_key_coll(c):
    return (COLL_ORDER.index(c) if c in COLL_ORDER else len(COLL_ORDER), c)


def sort_key_mode(m):
    return (MODE_ORDER.index(m) if m in MODE_ORDER else len(MODE_ORDER), m)


def paper_size(row):
    """The papers' size in floats: the whole vector."""
    if row["coll"] in ("gather", "scatter"):
        return row["P"] * row["count"]
    return row["count"]


def read_bench_csvs(paths):
    """The tables (ToolCsv) and the merged rows; each row gets `_table`
    (index into tables) and `size`.  A later file's row replaces an earlier
    one with the same (coll, algorithm, P, count, mode, delay), with a
    warning."""
    tables, merged, replaced = [], OrderedDict(), OrderedDict()
    for path in paths:
        table = read_tool_csv(path)
        header = list(table.rows[0]) if table.rows else header_of(path)
        missing = [c for c in BENCH_COLUMNS if c not in header]
        if missing:
            shown = ", ".join(missing[:6]) + (
                ", ... (%d of the %d)" % (len(missing), len(BENCH_COLUMNS))
                if len(missing) > 6 else "")
            raise ReportError(
                "%s is not a papc-bench CSV: it lacks the column(s) %s; its "
                "header is: %s\n"
                "  papc-bench --csv FILE writes one; papc-report bench reads "
                "no other tool's CSV (see papc-report --help)"
                % (path, shown, ",".join(header)[:200]))
        if not table.rows:
            raise ReportError("%s has the papc-bench header but no rows "
                              "(an interrupted run?)" % path)
        index = len(tables)
        tables.append(table)
        for n, row in enumerate(table.rows, start=2):
            bad = [c for c in ("P", "count", "max_delay_ms", "r_mean_ms",
                               "e_mean_ms") if not isinstance(
                                   row[c], (int, float))]
            if bad or not isinstance(row["coll"], str) or \
                    not isinstance(row["algorithm"], str):
                raise ReportError("%s: data row %d has no number in %s"
                                  % (path, n - 1, ", ".join(bad) or
                                     "coll/algorithm"))
            for c in BENCH_COLUMNS:
                if isinstance(row[c], str) and c not in ("coll", "algorithm",
                                                         "mode"):
                    row[c] = None  # a non-number where a number belongs
            row["errors"] = row["errors"] or 0
            row["_table"] = index
            row["size"] = paper_size(row)
            key = (row["coll"], row["algorithm"], row["P"], row["count"],
                   row["mode"], row["max_delay_ms"])
            if key in merged:
                pair = (merged[key]["_table"], index)
                replaced[pair] = replaced.get(pair, 0) + 1
            merged[key] = row
    snap_sizes(list(merged.values()))
    for (old, new), n in replaced.items():
        sys.stderr.write(
            "papc-report: %d row(s) of %s replaced by %s's (same coll, "
            "algorithm, P, count, mode and delay)\n"
            % (n, tables[old].path, tables[new].path) if old != new else
            "papc-report: %s holds %d row(s) twice; the later ones count\n"
            % (tables[new].path, n))
    return tables, list(merged.values())


def snap_sizes(rows):
    """papc-bench gives gather/scatter blocks of floor(size / P) floats, so
    P x count falls short of the requested size by less than P when P does
    not divide it: one size for totals that close, the largest of them."""
    for coll in {r["coll"] for r in rows}:
        crows = [r for r in rows if r["coll"] == coll]
        if coll not in ("gather", "scatter"):
            continue
        slack = max(r["P"] for r in crows)
        totals = sorted({r["size"] for r in crows})
        nominal, start = {}, None
        cluster = []
        for t in totals + [None]:
            if t is None or (start is not None and t - start >= slack):
                for c in cluster:
                    nominal[c] = cluster[-1]
                cluster, start = [], t
            if t is not None:
                cluster.append(t)
                start = t if start is None else start
        for r in crows:
            r["size"] = nominal[r["size"]]


def header_of(path):
    """The CSV header of a file with no data rows."""
    with open(path, newline="") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                return next(csv.reader([line]))
    return []


# ---- formatting ------------------------------------------------------------

def fmt_floats(n):
    """262144 -> '256 Ki', 2097152 -> '2 Mi'."""
    for unit, div in (("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
        if n >= div and n % div == 0:
            return "%d %s" % (n // div, unit)
    for unit, div in (("Mi", 1 << 20), ("Ki", 1 << 10)):
        if n >= div:
            return "%.3g %s" % (n / float(div), unit)
    return "%d" % n


def fmt_bytes(n):
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div:
            return ("%d %s" % (n // div, unit) if n % div == 0 else
                    "%.3g %s" % (n / float(div), unit))
    return "%d B" % n


def fmt_delay(d):
    return "%g" % d


def tag(text):
    """A piece of a file name."""
    return "".join(ch for ch in str(text).replace(" ", "")
                   if ch.isalnum() or ch in "-_.")


def alg_label(coll, name):
    if name == "native":
        return "native %s" % NATIVE_CALL.get(coll, "MPI call")
    if name in PLAIN_LABEL:
        return PLAIN_LABEL[name]
    ab = ABBREV.get(name)
    return "%s (%s)" % (ab, name) if ab else name


def alg_short(name):
    return "native" if name == "native" else ABBREV.get(name, name)


def size_text(coll, size, nprocs=None):
    """'2 Mi floats (8 MiB)', with the block per process for gather/scatter."""
    text = "%s floats (%s)" % (fmt_floats(size), fmt_bytes(4 * size))
    if coll in ("gather", "scatter") and nprocs:
        text += ", %s per process" % fmt_floats(size // nprocs)
    return text


# ---- grouping ------------------------------------------------------------

def algorithms_in(rows):
    """Algorithm names, native first, then in the CSV's order."""
    names = OrderedDict()
    for r in rows:
        names.setdefault(r["algorithm"], None)
    names = list(names)
    if "native" in names:
        names.remove("native")
        names.insert(0, "native")
    return names


def parse_ran(text):
    """papc-bench's `ran` column ("ring:18;pre_reduced_ring:2") as
    [(name, iterations)], most frequent first; [] when empty."""
    if not isinstance(text, str) or not text.strip():
        return []
    out = []
    for part in text.split(";"):
        name, sep, count = part.rpartition(":")
        if not sep or not name or not count.strip().isdigit():
            raise ReportError("bad `ran` value %r (expected name:count;...)"
                              % text)
        out.append((name, int(count)))
    out.sort(key=lambda nc: -nc[1])
    return out


def ran_cell(text, iterations):
    """'PRR 18/20 (+1)': the most frequent algorithm, its iterations and
    how many others the plain call ran."""
    ran = parse_ran(text)
    if not ran:
        return ""
    name, n = ran[0]
    more = " (+%d)" % (len(ran) - 1) if len(ran) > 1 else ""
    return "%s %d/%s%s" % (alg_short(name), n, iterations, more)


def group(rows, keyfn):
    out = OrderedDict()
    for r in rows:
        out.setdefault(keyfn(r), []).append(r)
    return out


def p_size_key(rows):
    """For figures against P: 'total' when the runs of several P kept the
    papers' (total) size, 'count' when they kept the block per process."""
    def multi(keyfn):
        return sum(1 for g in group(rows, keyfn).values()
                   if len({r["P"] for r in g}) > 1)
    by_total = multi(lambda r: (r["coll"], r["mode"], r["max_delay_ms"],
                                r["size"]))
    by_count = multi(lambda r: (r["coll"], r["mode"], r["max_delay_ms"],
                                r["count"]))
    return "count" if by_count > by_total else "total"


# ---- figures -------------------------------------------------------------

class XAxis(object):
    """Positions of the x values: log2 for sizes, linear for P, linear or
    evenly spaced (categorical) for delays; small offsets per algorithm so
    that the error bars do not hide each other."""

    def __init__(self, kind, values):
        self.kind, self.values = kind, sorted(values)
        lo, hi = self.values[0], self.values[-1]
        nonzero = [v for v in self.values if v > 0]
        if kind == "size":
            self.scale = "log2"
        elif kind == "delay" and len(nonzero) > 1 and \
                nonzero[-1] / nonzero[0] > 20:
            self.scale = "categorical"
        else:
            self.scale = "linear"
        self.span = float(hi - lo) or 1.0

    def pos(self, value, shift=0.0):
        """shift in [-0.5, 0.5]: this series' share of the spread."""
        if self.scale == "log2":
            return value * 2 ** (shift * 0.12)
        if self.scale == "categorical":
            return self.values.index(value) + shift * 0.2
        return value + shift * 0.03 * self.span

    def setup(self, ax):
        if self.scale == "log2":
            ax.set_xscale("log", base=2)
            ax.set_xlim(self.values[0] / 1.35, self.values[-1] * 1.35)
        elif self.scale == "categorical":
            ax.set_xlim(-0.4, len(self.values) - 0.6)
        else:
            pad = 0.06 * self.span
            ax.set_xlim(self.values[0] - pad, self.values[-1] + pad)
        ticks = [self.pos(v) for v in self.values]
        if self.kind == "size":
            labels = [fmt_floats(v) for v in self.values]
        elif self.kind == "delay":
            labels = [fmt_delay(v) for v in self.values]
        else:
            labels = ["%d" % v for v in self.values]
        ax.set_xticks(ticks)
        ax.set_xticklabels(labels, fontsize=8)
        if self.scale != "linear":
            ax.minorticks_off()
        ax.set_xlabel({
            "delay": "maximum delay (ms)%s" % (
                ", evenly spaced" if self.scale == "categorical" else ""),
            "size": "size: whole vector (floats, log scale)",
            "P": "processes P"}[self.kind], fontsize=9)


def styles_for(names):
    """{algorithm: (color, marker)}; native always orange circles."""
    out, i = {}, 0
    for n in names:
        if n == "native":
            out[n] = ("tab:orange", "o")
        elif n in PLAIN_STYLE:
            out[n] = PLAIN_STYLE[n]
        else:
            out[n] = (COLORS[i % len(COLORS)], MARKERS[i % len(MARKERS)])
            i += 1
    return out


def draw_figure(plt, ctx, rows, xkind, xfield, title, subtitle, path):
    """Two panels (r, e) of the rows against xfield; one line per
    algorithm; the ideal bound on the run-time panel."""
    names = [n for n in ctx["names"] if any(r["algorithm"] == n
                                            for r in rows)]
    axis = XAxis(xkind, {r[xfield] for r in rows})
    fig, axes = plt.subplots(1, 2, figsize=(12.0, 5.2))
    handles = OrderedDict()
    n = len(names)
    for (meas, meas_label), ax in zip(MEASURES, axes):
        ys = [r[meas + "_mean_ms"] for r in rows if r[meas + "_mean_ms"]
              and r[meas + "_mean_ms"] > 0]
        logy = bool(ys) and max(ys) / min(ys) > 8
        for i, name in enumerate(names):
            color, marker = ctx["styles"][name]
            pts = sorted((r for r in rows if r["algorithm"] == name),
                         key=lambda r: r[xfield])
            shift = (i - (n - 1) / 2.0) / max(n, 1)
            xs = [axis.pos(r[xfield], shift) for r in pts]
            ys = [r[meas + "_mean_ms"] for r in pts]
            sds = [r[meas + "_std_ms"] or 0.0 for r in pts]
            low = sds
            if logy:  # mean - sd may be <= 0: clip at the minimum seen
                low = [min(sd, y - r[meas + "_min_ms"])
                       if r[meas + "_min_ms"] is not None and y is not None
                       and 0 < r[meas + "_min_ms"] <= y else sd
                       for sd, y, r in zip(sds, ys, pts)]
            line = ax.errorbar(xs, ys, yerr=[low, sds], color=color,
                               marker=marker,
                               markersize=4.5, linewidth=1.2,
                               elinewidth=0.8, capsize=2.5)
            handles.setdefault(alg_label(ctx["coll"], name), line)
            bad = [(x, y) for x, y, r in zip(xs, ys, pts) if r["errors"]]
            if bad:
                cross = ax.scatter([b[0] for b in bad], [b[1] for b in bad],
                                   s=140, marker="x", color="crimson",
                                   linewidths=2.0, zorder=6)
                handles.setdefault("errors > 0: result differed from native "
                                   "(see summary)", cross)
        if meas == "r":
            ideal = OrderedDict()
            for r in rows:
                if isinstance(r["ideal_mean_ms"], (int, float)):
                    ideal.setdefault(r[xfield], []).append(r["ideal_mean_ms"])
            if ideal:
                xs = sorted(ideal)
                ys = [median(ideal[x]) for x in xs]
                line, = ax.plot([axis.pos(x) for x in xs], ys, color="black",
                                linestyle="--", linewidth=1.5, zorder=5)
                handles.setdefault("ideal bound (median over the algorithms' "
                                   "runs)", line)
        axis.setup(ax)
        if logy:  # e.g. delays up to 500 ms next to a 5 ms collective
            ax.set_yscale("log")
            label_log_axis(ax)
        else:
            ax.set_ylim(bottom=0)
        ax.set_title("%s: mean \u00b1 \u03c3%s" % (
            meas_label, " and the ideal bound" if meas == "r" else ""),
            fontsize=11)
        ax.set_ylabel("%s (ms%s)" % (meas_label, ", log scale" if logy
                                     else ""), fontsize=9)
        ax.grid(True, linewidth=0.4, alpha=0.6)
        ax.tick_params(axis="y", which="both", labelsize=8)
    fig.suptitle(title + "\n" + subtitle, fontsize=11)
    for extra in [k for k in handles if k.startswith(("errors", "ideal"))]:
        handles.move_to_end(extra)  # the algorithms first
    fig.legend(list(handles.values()), list(handles.keys()),
               loc="lower center", bbox_to_anchor=(0.5, 0.0),
               ncol=min(3, len(handles)), fontsize=9, frameon=False)
    width, height = fig.get_figwidth(), fig.get_figheight()
    legend_rows = int(math.ceil(len(handles) / 3.0))
    fig.subplots_adjust(left=0.6 / width, right=1 - 0.2 / width,
                        top=1 - 0.95 / height,
                        bottom=(0.6 + 0.1 + 0.22 * legend_rows) / height,
                        wspace=0.18)
    fig.savefig(path, dpi=ctx["dpi"])
    plt.close(fig)


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def label_log_axis(ax):
    """Plain numbers on a log time axis, with 2x and 5x minor labels when it
    spans few decades."""
    import matplotlib.ticker as ticker
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(
        lambda v, _pos: "%g" % v))
    low, high = ax.get_ylim()
    if low > 0 and high / low < 1000:
        ax.yaxis.set_minor_locator(ticker.LogLocator(subs=(2.0, 5.0)))
        ax.yaxis.set_minor_formatter(ticker.FuncFormatter(
            lambda v, _pos: "%g" % v))


def source_line(tables, rows):
    """Machine, MPI and date of the rows' file(s), for a figure's title."""
    used = sorted({r["_table"] for r in rows})
    if len(used) == 1:
        meta = tables[used[0]].meta
        return "%s; %s; %s" % (meta.get("mpi", "unknown MPI").split(",")[0],
                               meta.get("machine", "unknown machine"),
                               meta.get("date", "unknown date"))
    return "%d runs merged (machines, MPI and dates in bench-summary.md)" \
        % len(used)


def iterations_text(rows):
    its = sorted({r["iterations"] for r in rows if r["iterations"]})
    if not its:
        return ""
    return "%s iterations" % (its[0] if len(its) == 1 else
                              "%d-%d" % (its[0], its[-1]))


def draw_all(plt, tables, rows, args):
    """All the figures; returns the written paths and the skip notes."""
    written, notes = [], []
    for coll, crows in sorted(group(rows, lambda r: r["coll"]).items(),
                              key=lambda kv: sort_key_coll(kv[0])):
        names = algorithms_in(crows)
        ctx = dict(dpi=args.dpi, coll=coll, names=names,
                   styles=styles_for(names))
        what = coll

        # against the maximum delay: per (P, size, mode)
        made = 0
        for (nprocs, size, mode), g in sorted(
                group(crows, lambda r: (r["P"], r["size"], r["mode"])).items(),
                key=lambda kv: (kv[0][0], kv[0][1], sort_key_mode(kv[0][2]))):
            if len({r["max_delay_ms"] for r in g}) < 2:
                continue
            path = os.path.join(args.outdir, "bench-%s-P%d-%s-%s-vs-delay.png"
                                % (coll, nprocs, tag(fmt_floats(size)),
                                   tag(mode)))
            title = ("%s against the maximum delay: P = %d, size %s, %s, %s"
                     % (coll, nprocs, size_text(coll, size, nprocs), mode,
                        iterations_text(g)))
            draw_figure(plt, ctx, g, "delay", "max_delay_ms", title,
                        source_line(tables, g), path)
            written.append(path)
            made += 1
        if not made:
            notes.append("%s against the maximum delay: skipped (one delay, "
                         "%s ms, per P, size and mode)" % (what, ", ".join(
                             sorted({fmt_delay(r["max_delay_ms"])
                                     for r in crows}))))

        # against the size: per (P, mode, delay)
        made = 0
        for (nprocs, mode, delay), g in sorted(
                group(crows, lambda r: (r["P"], r["mode"],
                                        r["max_delay_ms"])).items(),
                key=lambda kv: (kv[0][0], sort_key_mode(kv[0][1]), kv[0][2])):
            if len({r["size"] for r in g}) < 2:
                continue
            path = os.path.join(args.outdir, "bench-%s-P%d-%s-%sms-vs-size.png"
                                % (coll, nprocs, tag(mode), tag(fmt_delay(
                                    delay))))
            title = ("%s against the size: P = %d, maximum delay %s ms, %s, %s"
                     % (coll, nprocs, fmt_delay(delay), mode,
                        iterations_text(g)))
            draw_figure(plt, ctx, g, "size", "size", title,
                        source_line(tables, g), path)
            written.append(path)
            made += 1
        if not made:
            notes.append("%s against the size: skipped (one size per P, mode "
                         "and delay)" % what)

        # against P: per (size, mode, delay); size = total or per process
        skey = p_size_key(crows) if coll in ("gather", "scatter") else "total"
        field = "size" if skey == "total" else "count"
        made = 0
        for (sz, mode, delay), g in sorted(
                group(crows, lambda r: (r[field], r["mode"],
                                        r["max_delay_ms"])).items(),
                key=lambda kv: (kv[0][0], sort_key_mode(kv[0][1]), kv[0][2])):
            if len({r["P"] for r in g}) < 2:
                continue
            if skey == "total":
                stext = "size %s" % size_text(coll, sz)
                stag = tag(fmt_floats(sz))
            else:
                stext = "%s floats (%s) per process" % (fmt_floats(sz),
                                                       fmt_bytes(4 * sz))
                stag = tag(fmt_floats(sz)) + "-per-process"
            path = os.path.join(args.outdir, "bench-%s-%s-%s-%sms-vs-P.png"
                                % (coll, stag, tag(mode),
                                   tag(fmt_delay(delay))))
            title = ("%s against P: %s, maximum delay %s ms, %s, %s"
                     % (coll, stext, fmt_delay(delay), mode,
                        iterations_text(g)))
            draw_figure(plt, ctx, g, "P", "P", title,
                        source_line(tables, g), path)
            written.append(path)
            made += 1
        if not made:
            ps = sorted({r["P"] for r in crows})
            notes.append("%s against P: skipped (%s in the data; give "
                         "papc-report the CSVs of runs with other P)"
                         % (what, "only P = %d" % ps[0] if len(ps) == 1 else
                            "P = %s, but never the same size, mode and delay"
                            % ", ".join(str(p) for p in ps)))
    return written, notes


# ---- the Markdown summary --------------------------------------------------

def fmt_ms(v):
    if v is None:
        return ""
    return "%.1f" % v if abs(v) >= 0.95 or v == 0 else "%.2f" % v


def fmt_diff(v):
    s = fmt_ms(v)
    return s.replace("-", "\u2212") if s else s


def resolve_baseline(specs, coll, names):
    """The baseline of one collective: 'coll:name' specs first, then a bare
    name; names may be the papers' abbreviations."""
    chosen = None
    for spec in specs:
        c, sep, n = spec.partition(":")
        if sep and c == coll:
            chosen = n
        elif not sep and chosen is None:
            chosen = spec
    chosen = chosen or "native"
    if chosen in names:
        return chosen
    for n in names:
        if ABBREV.get(n, "").lower() == chosen.lower():
            return n
    return None


def summary_markdown(tables, rows, args):
    out = ["# papc-bench results", ""]
    out.append("Written by `papc-report bench` from %s. Sizes are the whole "
               "vector in floats, as in the papers (P \u00d7 count for "
               "gather and scatter, count for allreduce); times in ms, "
               "mean over the measured iterations. r = run time "
               "(max f \u2212 min a), \u0113 = average elapsed time "
               "(mean of f \u2212 a), pap-scatter-gather.md \u00a73, eqs. 1 "
               "and 2. The figures beside this file show the same data with "
               "\u00b1\u03c3 bars." % ", ".join("`%s`" % t.path
                                                 for t in tables))
    out.append("")
    out.append("The comparison tables follow the layout of Tables 3 and 4 of "
               "pap-scatter-gather.md (sizes down, maximum delays across, "
               "two lines per entry): the difference to the baseline in ms "
               "(negative: faster) and the speedup baseline / algorithm "
               "(above 1: faster). Algorithms are named by the papers' "
               "abbreviations: %s." % ", ".join(
                   "%s = %s" % (ABBREV[n], n) for n in algorithms_in(rows)
                   if n in ABBREV))
    out.append("")
    for t in tables:
        out.append("**%s**" % t.path)
        out.append("")
        for key in ("machine", "mpi", "date", "command", "alpha_s",
                    "beta_s_per_byte", "size_means"):
            if key in t.meta:
                out.append("- %s: `%s`" % (key, t.meta[key]))
        for key, value in t.meta.items():
            if key not in ("machine", "mpi", "date", "command", "alpha_s",
                           "beta_s_per_byte", "size_means"):
                out.append("- %s: %s" % (key, value))
        out.append("")

    errors = [r for r in rows if r["errors"]]
    if errors:
        out.append("**Correctness: %d row(s) with errors > 0** (the result "
                   "differed from the native collective in that many "
                   "iterations; marked \u2020 below, their times mean "
                   "nothing):" % len(errors))
        out.append("")
        for r in errors:
            out.append("- %s %s, P = %d, size %s, %s, %s ms: %d of %s "
                       "iterations" % (r["coll"], r["algorithm"], r["P"],
                                       fmt_floats(r["size"]), r["mode"],
                                       fmt_delay(r["max_delay_ms"]),
                                       r["errors"], r["iterations"]))
        out.append("")
    else:
        out.append("Correctness: every row has errors = 0 (each result "
                   "equalled the native collective's).")
        out.append("")

    for coll, crows in sorted(group(rows, lambda r: r["coll"]).items(),
                              key=lambda kv: sort_key_coll(kv[0])):
        names = algorithms_in(crows)
        base = resolve_baseline(args.baseline, coll, names)
        for (nprocs, mode), g in sorted(
                group(crows, lambda r: (r["P"], r["mode"])).items(),
                key=lambda kv: (kv[0][0], sort_key_mode(kv[0][1]))):
            out.extend(section(coll, nprocs, mode, g, names, base, args))
    return "\n".join(out) + "\n"


def table_head(first, delays):
    return ["| " + " | ".join(first + ["%s ms" % fmt_delay(d)
                                       for d in delays]) + " |",
            "|" + "---|" * len(first) + "---:|" * len(delays)]


def section(coll, nprocs, mode, rows, names, base, args):
    out = ["## %s, P = %d, %s" % (coll, nprocs, mode), ""]
    delays = sorted({r["max_delay_ms"] for r in rows})
    sizes = sorted({r["size"] for r in rows})
    cell = {(r["algorithm"], r["size"], r["max_delay_ms"]): r for r in rows}
    names = [n for n in names if any(r["algorithm"] == n for r in rows)]

    def ideal_of(r):
        v = r["ideal_mean_ms"] if r else None
        return v if isinstance(v, (int, float)) and v > 0 else None

    # absolute times and the ideal bound
    out.append("Mean run time r \u00b1 \u03c3 (ms) and, per size, the ideal "
               "bound (median over the algorithms' runs: each run has its "
               "own arrival times).")
    out.append("")
    out.extend(table_head(["size", "algorithm"], delays))
    for size in sizes:
        for k, n in enumerate(names):
            cells = [fmt_floats(size) if k == 0 else "", alg_short(n)]
            for d in delays:
                r = cell.get((n, size, d))
                text = ""
                if r is not None:
                    text = fmt_ms(r["r_mean_ms"])
                    if r["r_std_ms"] is not None:
                        text += " \u00b1 " + fmt_ms(r["r_std_ms"])
                    if r["errors"]:
                        text += " \u2020"
                cells.append(text)
            out.append("| " + " | ".join(cells) + " |")
        ideal = []
        for d in delays:
            vals = [ideal_of(cell.get((n, size, d))) for n in names]
            vals = [v for v in vals if v is not None]
            ideal.append("*%s*" % fmt_ms(median(vals)) if vals else "")
        if any(ideal):
            out.append("| | *ideal bound* | " + " | ".join(ideal) + " |")
    out.append("")

    # what the plain call (papc-bench -a auto, auto_classic) ran
    plain = [n for n in names if any(parse_ran(r.get("ran")) for r in rows
                                     if r["algorithm"] == n)]
    if plain:
        out.append("What the plain call ran: its most frequent algorithm, "
                   "in how many of the measured iterations, (+k) other "
                   "algorithms it also ran.")
        out.append("")
        out.extend(table_head(["size", "row"], delays))
        for size in sizes:
            for k, n in enumerate(plain):
                cells = [fmt_floats(size) if k == 0 else "", n]
                for d in delays:
                    r = cell.get((n, size, d))
                    cells.append(ran_cell(r.get("ran"), r["iterations"])
                                 if r else "")
                out.append("| " + " | ".join(cells) + " |")
        out.append("")

    # how close each algorithm comes to the limit
    if any(ideal_of(r) for r in rows):
        out.append("Run time over the ideal bound, r / ideal (each algorithm "
                   "against the bound of its own runs; 1 = the limit).")
        out.append("")
        out.extend(table_head(["size", "algorithm"], delays))
        for size in sizes:
            for k, n in enumerate(names):
                cells = [fmt_floats(size) if k == 0 else "", alg_short(n)]
                for d in delays:
                    r = cell.get((n, size, d))
                    v = ideal_of(r)
                    cells.append("%.2f%s" % (r["r_mean_ms"] / v, " \u2020"
                                             if r["errors"] else "")
                                 if v else "")
                out.append("| " + " | ".join(cells) + " |")
        out.append("")
    else:
        out.append("No ideal bound in the data (empty ideal columns).")
        out.append("")

    if base is None:
        out.append("No comparison tables: the baseline (%s) is not among "
                   "this collective's algorithms (%s); choose one with "
                   "--baseline." % (", ".join(args.baseline) or "native",
                                    ", ".join(names)))
        out.append("")
        return out
    b = alg_short(base)
    others = [n for n in names if n != base]
    for meas, label in (("r", "Mean run time r"),
                        ("e", "Mean average elapsed time \u0113")):
        out.append("**%s against %s**: per size and algorithm A, first line "
                   "A \u2212 %s in ms, second line the speedup %s / A; "
                   "bold: A faster than %s." % (label, b, b, b, b))
        out.append("")
        out.append("| size \u2193 | algorithm | " +
                   " | ".join("%s ms" % fmt_delay(d) for d in delays) + " |")
        out.append("|---|---|" + "---:|" * len(delays))
        for size in sizes:
            first = True
            for n in others:
                diffs, speeds = [], []
                for d in delays:
                    r, rb = cell.get((n, size, d)), cell.get((base, size, d))
                    va = r[meas + "_mean_ms"] if r else None
                    vb = rb[meas + "_mean_ms"] if rb else None
                    if va is None or vb is None or va <= 0:
                        diffs.append("")
                        speeds.append("")
                        continue
                    mark = " \u2020" if r["errors"] or rb["errors"] else ""
                    bold = "**" if vb > va else ""
                    diffs.append("%s%s%s%s" % (bold, fmt_diff(va - vb), bold,
                                               mark))
                    speeds.append("%s%.2f%s" % (bold, vb / va, bold))
                out.append("| %s | %s | %s |" % (
                    fmt_floats(size) if first else "", alg_short(n),
                    " | ".join(diffs)))
                out.append("| | | %s |" % " | ".join(speeds))
                first = False
        out.append("")
    return out


# ---- the subcommand ------------------------------------------------------

def add_arguments(p):
    p.add_argument("csv", nargs="+", help="papc-bench --csv output(s); "
                   "several files are merged (e.g. one run per P)")
    p.add_argument("-o", "--outdir", default=".",
                   help="directory for the PNG files and bench-summary.md "
                   "(created; default .)")
    p.add_argument("--baseline", action="append", default=[],
                   metavar="[COLL:]NAME",
                   help="what the tables compare against (default native, "
                   "the MPI library's own call); a registered name or the "
                   "papers' abbreviation (LS, LIN, ...), for one collective "
                   "with COLL:NAME; repeatable")
    p.add_argument("--dpi", type=int, default=110, help="PNG resolution")
    p.add_argument("--markdown", metavar="FILE",
                   help="write the summary to FILE instead of "
                   "OUTDIR/bench-summary.md ('-' = stdout)")
    p.add_argument("--no-plots", dest="plots", action="store_false",
                   help="only the summary (needs no matplotlib)")


def run(args):
    tables, rows = read_bench_csvs(args.csv)
    plt = load_pyplot() if args.plots else None
    try:
        os.makedirs(args.outdir, exist_ok=True)
    except OSError as exc:
        raise ReportError("cannot create %s: %s" % (args.outdir, exc.strerror))
    # with the summary on stdout, the other messages go to stderr
    say = sys.stderr if args.markdown == "-" else sys.stdout
    if plt is not None:
        written, notes = draw_all(plt, tables, rows, args)
        for path in written:
            say.write("wrote %s\n" % path)
        for note in notes:
            say.write(note + "\n")
    text = summary_markdown(tables, rows, args)
    target = args.markdown or os.path.join(args.outdir, "bench-summary.md")
    if target == "-":
        sys.stdout.write(text)
    else:
        try:
            with open(target, "w") as f:
                f.write(text)
        except OSError as exc:
            raise ReportError("cannot write %s: %s" % (target, exc.strerror))
        print("wrote %s" % target)
    bad = [r for r in rows if r["errors"]]
    if bad:
        say.write("WARNING: %d row(s) with errors > 0 (result differed from "
              "native): listed in the summary\n" % len(bad))
    for coll in sorted({r["coll"] for r in rows}, key=sort_key_coll):
        names = algorithms_in([r for r in rows if r["coll"] == coll])
        if resolve_baseline(args.baseline, coll, names) is None:
            say.write("%s: baseline %s not in the data (algorithms: %s); "
                      "no comparison tables\n"
                      % (coll, ", ".join(args.baseline) or "native",
                         ", ".join(names)))
    return 0
