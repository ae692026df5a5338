"""papc-report: figures and summaries from the CSV files of papcoll's tools.

    papc-report guide RESULTS.csv -o OUTDIR [--stat min|median|mean]
                      [--no-errorbars] [--dpi N] [--markdown FILE] [--no-plots]
    papc-report bench RESULTS.csv [MORE.csv ...] -o OUTDIR [--baseline NAME]
                      (papc-bench's CSV; the code is bench_report.py)
    papc-report stalls TRACE.csv [--top N] [--limit X]
                      (papc-bench --trace; the code is trace_report.py)
    papc-report calls REPORT.csv [--png OUT.png]
                      (the drop-in layer's PAPC_REPORT; calls_report.py)
    papc-report select DIR [-o OUTDIR] [--tolerance PCT] [--no-plots]
                      (papc-select-bench's CSVs; select_report.py)
    papc-report arrival-select DIR [--measure e|r] [--strict]
                      (papc-bench's CSVs with auto rows, from
                      scripts/arrival-select-bench.sh; arrival_select_report.py)

One subcommand per tool.  Each is a `Report` in REPORTS below: a name, a
help line, a function that adds its arguments to its argparse subparser and
a function that runs it.  A new report (e.g. issue 4's papc-bench CSV) is one
more entry; the CSV reading (`read_tool_csv`), the lazy matplotlib import
(`load_pyplot`) and the error handling are shared.

The tools' CSV files start with `# key: value` comment lines (date, machine,
mpi, command, ...) followed by an ordinary header line and rows.

`guide` draws the style of Figs. 3-8 of Träff's irregular gather/scatter
paper from papc-guide's CSV: one PNG per (collective, P), a grid with one
subplot per problem type, x = average block size b (log), y = time in us
(log), one line per implementation (padded MPI_Gather/MPI_Scatter, the GL2
right side dashed, the native irregular call, each papcoll algorithm).  Lines
are the chosen statistic (minimum by default, as the paper plots); bars give
mean +- one standard deviation over the repetitions (clipped below at the
minimum, which a log axis can show); rings mark cells where an irregular
implementation violates guideline GL2 (slower than the dashed line).
--markdown writes the same numbers as Markdown tables (for docs/), with the
GL2 counts and issue 6's goals for size_aware_binomial.
"""

import argparse
import csv
import math
import os
import re
import sys
from collections import OrderedDict, namedtuple

PROG = "papc-report"


class ReportError(Exception):
    """A problem to report in one line, without a traceback."""


# ---- shared helpers -----------------------------------------------------

def load_pyplot():
    """matplotlib.pyplot with the file-only Agg backend, or a clear error."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ReportError(
            "drawing figures needs matplotlib, which %s cannot import (%s).\n"
            "  Debian/Ubuntu: apt-get install python3-matplotlib\n"
            "                 (scripts/setup-deps.sh installs it with the "
            "other dependencies)\n"
            "  elsewhere:     %s -m pip install matplotlib"
            % (sys.executable, exc, os.path.basename(sys.executable)))
    return plt


def _number(text):
    """int or float from a CSV field; None when empty; the text otherwise."""
    if text is None or text == "":
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


ToolCsv = namedtuple("ToolCsv", "path meta comments rows")


def read_tool_csv(path):
    """Reads a papcoll tool's CSV: `# key: value` comments into meta (first
    occurrence of each key), the raw comment lines, and the rows as dicts
    with numbers converted."""
    meta, comments, data = OrderedDict(), [], []
    try:
        with open(path, newline="") as f:
            for line in f:
                if line.startswith("#"):
                    text = line[1:].strip()
                    comments.append(text)
                    key, sep, value = text.partition(":")
                    if sep and " " not in key.strip() and key.strip():
                        meta.setdefault(key.strip(), value.strip())
                elif line.strip():
                    data.append(line)
    except OSError as exc:
        raise ReportError("cannot read %s: %s" % (path, exc.strerror))
    if not data:
        raise ReportError("%s has no header line and no rows" % path)
    rows = [{k: _number(v) for k, v in row.items()}
            for row in csv.DictReader(data)]
    return ToolCsv(path, meta, comments, rows)


def require_columns(table, columns):
    if not table.rows:
        raise ReportError("%s has a header but no rows" % table.path)
    missing = [c for c in columns if c not in table.rows[0]]
    if missing:
        raise ReportError("%s lacks the column(s) %s: is it the right tool's "
                          "CSV?" % (table.path, ", ".join(missing)))


def comment_value(table, pattern, default=None):
    """First group of `pattern` searched in the comment lines."""
    for line in table.comments:
        m = re.search(pattern, line)
        if m:
            return m.group(1)
    return default


def short_mpi(table):
    """"Open MPI v4.1.4" from the long MPI_Get_library_version string."""
    return table.meta.get("mpi", "unknown MPI").split(",")[0]


# ---- guide: papc-guide's CSV (issue 6) ------------------------------------

GUIDE_COLUMNS = ("collective", "problem", "b", "P", "implementation", "kind",
                 "min_us", "mean_us", "median_us", "stddev_us", "iterations")

# the paper's order of problem types
PROBLEMS = ("same", "random", "bucket", "spikes", "increasing", "decreasing",
            "alternating", "two_blocks")

PAPC_COLORS = ("tab:blue", "tab:green", "tab:purple", "tab:brown", "tab:cyan",
               "tab:olive", "tab:pink")
PAPC_MARKERS = ("^", "v", "D", "P", "X", "<", ">")


def guide_style(kind, name, papc_index):
    """Line style and legend label of one implementation."""
    if kind == "regular":
        call = name.replace("_padded", "")
        return dict(color="0.45", marker="s", linestyle="-",
                    label="%s (padded)" % call)
    if kind == "gl2_rhs":
        return dict(color="black", marker=None, linestyle="--",
                    label="GL2 right side: MPI_Allreduce + padded call")
    if kind == "native":
        return dict(color="tab:orange", marker="o", linestyle="-",
                    label="%s (native)" % name)
    i = papc_index % len(PAPC_COLORS)
    label = name[len("papc_"):] if name.startswith("papc_") else name
    return dict(color=PAPC_COLORS[i], marker=PAPC_MARKERS[i], linestyle="-",
                label="papcoll %s" % label)


def guide_groups(table):
    """{(collective, P): {problem: {implementation: [rows sorted by b]}}},
    and the implementations of each (collective, P) in the CSV's order."""
    groups, impls = OrderedDict(), OrderedDict()
    for r in table.rows:
        key = (r["collective"], r["P"])
        per_problem = groups.setdefault(key, OrderedDict())
        per_impl = per_problem.setdefault(r["problem"], OrderedDict())
        per_impl.setdefault(r["implementation"], []).append(r)
        impls.setdefault(key, OrderedDict()).setdefault(r["implementation"],
                                                        r["kind"])
    for per_problem in groups.values():
        for per_impl in per_problem.values():
            for rows in per_impl.values():
                rows.sort(key=lambda r: r["b"])
    return groups, impls


def gl2_violations(per_impl, stat, tolerance):
    """{implementation: set of b} where an irregular implementation is slower
    than the GL2 right side in the chosen statistic."""
    rhs = {}
    for rows in per_impl.values():
        for r in rows:
            if r["kind"] == "gl2_rhs":
                rhs[r["b"]] = r[stat]
    out = {}
    for name, rows in per_impl.items():
        for r in rows:
            if r["kind"] in ("native", "papcoll") and r["b"] in rhs and \
                    r[stat] > rhs[r["b"]] * (1 + tolerance):
                out.setdefault(name, set()).add(r["b"])
    return out


def draw_guide_figure(plt, table, key, per_problem, impls, args, tolerance):
    coll, nprocs = key
    problems = [p for p in PROBLEMS if p in per_problem] + \
               [p for p in per_problem if p not in PROBLEMS]
    ncols = min(4, len(problems))
    nrows = int(math.ceil(len(problems) / float(ncols)))
    fig, axes = plt.subplots(nrows, ncols, squeeze=False,
                             figsize=(4.3 * ncols, 3.4 * nrows + 1.2))
    stat = args.stat + "_us"
    names = list(impls)
    papc_names = [n for n in names if impls[n] == "papcoll"]
    styles = {n: guide_style(impls[n], n, papc_names.index(n)
                             if n in papc_names else 0) for n in names}
    # spread the error bars of one b a little apart (log x: a factor)
    offsets = {n: 10 ** ((i - (len(names) - 1) / 2.0) * 0.022)
               for i, n in enumerate(names)}
    handles = OrderedDict()
    any_violation = False
    for idx, problem in enumerate(problems):
        ax = axes[idx // ncols][idx % ncols]
        per_impl = per_problem[problem]
        violations = gl2_violations(per_impl, stat, tolerance)
        for name in names:
            rows = per_impl.get(name)
            if not rows:
                continue
            st = styles[name]
            bs = [r["b"] for r in rows]
            ys = [r[stat] for r in rows]
            line, = ax.plot(bs, ys, color=st["color"], marker=st["marker"],
                            linestyle=st["linestyle"], markersize=4.5,
                            linewidth=1.4 if st["linestyle"] == "--" else 1.1)
            handles.setdefault(st["label"], line)
            if args.errorbars:
                draw_spread(ax, rows, offsets[name], st["color"])
            bad = violations.get(name, ())
            if bad:
                any_violation = True
                ring = ax.scatter([r["b"] for r in rows if r["b"] in bad],
                                  [r[stat] for r in rows if r["b"] in bad],
                                  s=110, facecolors="none",
                                  edgecolors="crimson", linewidths=1.2,
                                  zorder=5)
                handles.setdefault("violates GL2 (slower than the dashed "
                                   "line)", ring)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(problem.replace("_", " "), fontsize=11)
        ax.grid(True, which="major", linewidth=0.4, alpha=0.6)
        ax.grid(True, which="minor", axis="y", linewidth=0.2, alpha=0.4)
        bvals = sorted({r["b"] for rows in per_impl.values() for r in rows})
        ax.set_xticks(bvals)
        ax.set_xticklabels([str(b) for b in bvals], fontsize=8)
        ax.set_xlim(min(bvals) / 1.6, max(bvals) * 1.6)
        ax.tick_params(axis="y", which="both", labelsize=8)
        label_narrow_log_axis(ax)
        if idx // ncols == nrows - 1 or idx + ncols >= len(problems):
            ax.set_xlabel("b (average block, MPI_INT)", fontsize=9)
        if idx % ncols == 0:
            ax.set_ylabel("time (us)", fontsize=9)
    for idx in range(len(problems), nrows * ncols):
        axes[idx // ncols][idx % ncols].set_visible(False)

    reps = comment_value(table, r"repetitions:\s*(\d+)", "?")
    root = comment_value(table, r"root:\s*(\d+)", "?")
    what = {"min": "minimum", "median": "median", "mean": "mean"}[args.stat]
    title = ("%s, P = %s, root %s, %s: %s of %s repetitions (lines)%s"
             % (coll, nprocs, root, short_mpi(table), what, reps,
                ", mean \u00b1 \u03c3 (bars)" if args.errorbars else ""))
    sub = "%s; %s" % (table.meta.get("machine", "unknown machine"),
                      table.meta.get("date", "unknown date"))
    fig.suptitle(title + "\n" + sub, fontsize=11)
    fig.legend(list(handles.values()), list(handles.keys()),
               loc="lower center", bbox_to_anchor=(0.5, 0.0),
               ncol=min(3, len(handles)), fontsize=9, frameon=False)
    # margins in inches: two title lines above, x labels and legend below
    width, height = fig.get_figwidth(), fig.get_figheight()
    legend_rows = int(math.ceil(len(handles) / 3.0))
    fig.subplots_adjust(left=0.6 / width, right=1 - 0.15 / width,
                        top=1 - 0.95 / height,
                        bottom=(0.55 + 0.1 + 0.2 * legend_rows) / height,
                        wspace=0.22, hspace=0.3)
    path = os.path.join(args.outdir, "guide-%s-P%s.png" % (coll, nprocs))
    fig.savefig(path, dpi=args.dpi)
    plt.close(fig)
    return path, any_violation


def label_narrow_log_axis(ax):
    """A log axis spanning less than about two decades shows one or no
    labelled power of ten: label the minor ticks at 2x and 5x too."""
    import matplotlib.ticker as ticker
    low, high = ax.get_ylim()
    if low <= 0 or high / low > 150:
        return
    ax.yaxis.set_minor_locator(ticker.LogLocator(subs=(2.0, 5.0)))
    ax.yaxis.set_minor_formatter(ticker.FuncFormatter(
        lambda v, _pos: "%g" % v))


def draw_spread(ax, rows, offset, color):
    """mean +- sd bars, clipped below at the minimum: on a log axis mean - sd
    is often <= 0 for skewed times, and nothing below the minimum was seen."""
    xs, ys, lo, hi = [], [], [], []
    for r in rows:
        mean, sd, low = r["mean_us"], r["stddev_us"], r["min_us"]
        if mean is None or sd is None or r["iterations"] in (None, 0, 1):
            continue
        xs.append(r["b"] * offset)
        ys.append(mean)
        lo.append(mean - max(mean - sd, low))
        hi.append(sd)
    if xs:
        ax.errorbar(xs, ys, yerr=[lo, hi], fmt="none", ecolor=color,
                    elinewidth=0.7, capsize=1.5, alpha=0.55)


def guide_summary(groups, impls, stat, tolerance):
    """Lines of text: per (collective, P) and irregular implementation, in how
    many cells it meets GL2."""
    lines = []
    for key, per_problem in groups.items():
        lines.append("%s, P = %s (GL2 judged on %s, tolerance %g%%):"
                     % (key[0], key[1], stat.replace("_us", ""),
                        tolerance * 100))
        for name, kind in impls[key].items():
            if kind not in ("native", "papcoll"):
                continue
            cells = bad = 0
            for per_impl in per_problem.values():
                rows = per_impl.get(name, [])
                cells += len(rows)
                bad += len(gl2_violations(per_impl, stat, tolerance)
                           .get(name, ()))
            if cells:
                lines.append("  %-28s GL2 met in %d/%d cells (%.0f%%)"
                             % (name, cells - bad, cells,
                                100.0 * (cells - bad) / cells))
    return lines


def fmt_us(value):
    return "%.1f" % value if value < 1000 else "%.0f" % value


def guide_goals(per_problem, impls, stat, tolerance, papc="papc_size_aware_binomial"):
    """Issue 6's goals for one (collective, P): lines of text, or [] when the
    algorithm is not in the CSV."""
    native = [n for n, k in impls.items() if k == "native"]
    if papc not in impls or not native:
        return []
    native = native[0]
    cells = met = 0
    small, big = [], []
    for per_impl in per_problem.values():
        bad = gl2_violations(per_impl, stat, tolerance).get(papc, set())
        nat = {r["b"]: r[stat] for r in per_impl.get(native, [])}
        for r in per_impl.get(papc, []):
            cells += 1
            met += r["b"] not in bad
            if r["b"] not in nat:
                continue
            if r["b"] <= 100:
                small.append(nat[r["b"]] / r[stat])
            if r["b"] == 10000:
                big.append(r[stat] / nat[r["b"]])
    lines = ["GL2 met in >= 90%% of cells: %d/%d = %.0f%% -> %s"
             % (met, cells, 100.0 * met / cells,
                "met" if met >= 0.9 * cells else "not met")]
    if small:
        ok = sum(1 for x in small if x >= 2.0)
        lines.append("b <= 100 at least 2x faster than native: %d/%d cells "
                     "(speedups %.3g..%.3g, median %.3g) -> %s"
                     % (ok, len(small), min(small), max(small),
                        sorted(small)[len(small) // 2],
                        "met" if ok == len(small) else "not met"))
    if big:
        ok = sum(1 for x in big if x <= 1.1)
        lines.append("b = 10000 no slower than 1.1x native: %d/%d cells "
                     "(time ratios %.2f..%.2f) -> %s"
                     % (ok, len(big), min(big), max(big),
                        "met" if ok == len(big) else "not met"))
    return lines


def guide_markdown(table, groups, impls, stat, tolerance):
    """Markdown: per (collective, P) one table, rows (problem, b), columns
    the implementations' times with GL marks; then GL2 counts and goals."""
    out = []
    reps = comment_value(table, r"repetitions:\s*(\d+)", "?")
    what = stat.replace("_us", "")
    for key, per_problem in groups.items():
        names = list(impls[key])
        kinds = impls[key]
        native = [n for n in names if kinds[n] == "native"]
        sab = "papc_size_aware_binomial" if "papc_size_aware_binomial" in \
            kinds and native else None
        out.append("**%s, P = %s** (%s us over %s repetitions; `*` violates "
                   "GL2, `!` violates GL1)\n" % (key[0], key[1], what, reps))
        head = ["problem", "b", "max m_i"] + [
            guide_style(kinds[n], n, 0)["label"].replace(
                "GL2 right side: MPI_Allreduce + padded call", "GL2 rhs")
            for n in names]
        if sab:
            head.append("speedup vs native")
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * 2 + "---:|" * (len(head) - 2))
        problems = [p for p in PROBLEMS if p in per_problem] + \
                   [p for p in per_problem if p not in PROBLEMS]
        for problem in problems:
            per_impl = per_problem[problem]
            bad = gl2_violations(per_impl, stat, tolerance)
            bs = sorted({r["b"] for rows in per_impl.values() for r in rows})
            by = {n: {r["b"]: r for r in rows} for n, rows in per_impl.items()}
            reg = [n for n in names if kinds[n] == "regular"]
            for b in bs:
                any_row = next(by[n][b] for n in by if b in by[n])
                cells = [problem, str(b), str(any_row["max_m"])]
                for n in names:
                    r = by.get(n, {}).get(b)
                    if r is None:
                        cells.append("")
                        continue
                    mark = "*" if b in bad.get(n, ()) else ""
                    if problem == "same" and kinds[n] in ("native", "papcoll") \
                            and reg and b in by.get(reg[0], {}) and \
                            by[reg[0]][b][stat] > r[stat] * (1 + tolerance):
                        mark += "!"
                    cells.append(fmt_us(r[stat]) + mark)
                if sab:
                    r, nr = by.get(sab, {}).get(b), by.get(native[0], {}).get(b)
                    cells.append("%.3g" % (nr[stat] / r[stat]) if r and nr
                                 else "")
                out.append("| " + " | ".join(cells) + " |")
        out.append("")
        for line in guide_summary({key: per_problem}, impls, stat, tolerance):
            out.append("- " + line.strip() if line.startswith("  ") else line)
        goals = guide_goals(per_problem, kinds, stat, tolerance)
        if goals:
            out.append("")
            out.append("Goals for size_aware_binomial (issue 6, item 4):")
            out.append("")
            out.extend("- " + g for g in goals)
        out.append("")
    return "\n".join(out)


def add_guide_arguments(p):
    p.add_argument("csv", help="papc-guide --csv output")
    p.add_argument("-o", "--outdir", default=".",
                   help="directory for the PNG files (created; default .)")
    p.add_argument("--stat", choices=("min", "median", "mean"), default="min",
                   help="statistic drawn and tabulated (default min, as the "
                   "paper)")
    p.add_argument("--no-errorbars", dest="errorbars", action="store_false",
                   help="leave out the mean +- sd bars")
    p.add_argument("--dpi", type=int, default=110, help="PNG resolution")
    p.add_argument("--markdown", metavar="FILE",
                   help="also write Markdown tables, GL2 counts and issue 6's "
                   "goals to FILE ('-' = stdout)")
    p.add_argument("--no-plots", dest="plots", action="store_false",
                   help="no figures (needs no matplotlib)")


def run_guide(args):
    table = read_tool_csv(args.csv)
    require_columns(table, GUIDE_COLUMNS)
    tol = float(comment_value(table, r"tolerance:\s*([0-9.eE+-]+)%", "0"))
    tol /= 100.0
    stat = args.stat + "_us"
    groups, impls = guide_groups(table)
    if args.plots:
        plt = load_pyplot()
        try:
            os.makedirs(args.outdir, exist_ok=True)
        except OSError as exc:
            raise ReportError("cannot create %s: %s"
                              % (args.outdir, exc.strerror))
        for key, per_problem in groups.items():
            path, _ = draw_guide_figure(plt, table, key, per_problem,
                                        impls[key], args, tol)
            print("wrote %s" % path)
    if args.markdown:
        text = guide_markdown(table, groups, impls, stat, tol)
        if args.markdown == "-":
            sys.stdout.write(text)
        else:
            try:
                with open(args.markdown, "w") as f:
                    f.write(text)
            except OSError as exc:
                raise ReportError("cannot write %s: %s"
                                  % (args.markdown, exc.strerror))
            print("wrote %s" % args.markdown)
    else:
        for line in guide_summary(groups, impls, stat, tol):
            print(line)
        for key, per_problem in groups.items():
            for line in guide_goals(per_problem, impls[key], stat, tol):
                print("  %s P=%s goal: %s" % (key[0], key[1], line))
    return 0


# ---- the command -------------------------------------------------------------

Report = namedtuple("Report", "name help add_arguments run")


def _bench():
    """bench_report, imported when used: it builds on this module's helpers."""
    from . import bench_report
    return bench_report


def _trace():
    from . import trace_report
    return trace_report


def _calls():
    from . import calls_report
    return calls_report


def _select():
    from . import select_report
    return select_report


def _arrival_select():
    from . import arrival_select_report
    return arrival_select_report


REPORTS = (
    Report("guide", "figures of papc-guide's CSV (irregular gather/scatter "
           "performance guidelines, issue 6)", add_guide_arguments, run_guide),
    Report("bench", "figures and tables of papc-bench's CSV(s): run time and "
           "average elapsed time against delay, size and P (issue 4)",
           lambda p: _bench().add_arguments(p), lambda a: _bench().run(a)),
    Report("stalls", "the worst iterations of a papc-bench --trace file, "
           "against the native call's worst (issue 11)",
           lambda p: _trace().add_arguments(p), lambda a: _trace().run(a)),
    Report("calls", "the drop-in layer's finalize report (PAPC_REPORT's "
           "CSV): time in call and arrival spread per call site (issue 13)",
           lambda p: _calls().add_arguments(p), lambda a: _calls().run(a)),
    Report("select", "accuracy of model-based selection from "
           "papc-select-bench's CSVs (scripts/select-bench.sh's directory): "
           "per cell the best algorithm, the model's, native's and the fixed "
           "rules' slowdown; the goals' summary; figures (issue 12)",
           lambda p: _select().add_arguments(p), lambda a: _select().run(a)),
    Report("arrival-select", "arrival-aware selection from papc-bench's "
           "CSVs with auto rows (scripts/arrival-select-bench.sh's "
           "directory): per setting the best algorithm, the plain call "
           "against it, native and auto_classic, what it ran; the goals "
           "(issue 15)",
           lambda p: _arrival_select().add_arguments(p),
           lambda a: _arrival_select().run(a)),
)


def build_parser():
    parser = argparse.ArgumentParser(
        prog=PROG, description="Figures and summaries from the CSV files of "
        "papcoll's tools.")
    sub = parser.add_subparsers(dest="report", metavar="REPORT")
    sub.required = True
    for rep in REPORTS:
        p = sub.add_parser(rep.name, help=rep.help, description=rep.help)
        rep.add_arguments(p)
        p.set_defaults(run=rep.run)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except ReportError as exc:
        sys.stderr.write("%s: %s\n" % (PROG, exc))
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # stdout closed early (`| head`): quiet, like other command-line tools
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
