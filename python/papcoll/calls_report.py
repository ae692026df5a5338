"""papc-report calls: the drop-in layer's finalize report (PAPC_REPORT=FILE
writes FILE and FILE.csv; issue 13, item 5).

One row per (collective, call site): calls, bytes per call, the
algorithm(s), the time in the call (mean over ranks and calls, max of any
call) and the arrival spread (per call, last enter - first enter over the
ranks: how long the earliest process waited for the last; mean and max),
and the ranks that entered last most often.  Without --png: a table sorted
by total time in the call.  With --png: a horizontal bar chart, per site
the mean time in the call beside the mean arrival spread (matplotlib).
When the spread is close to the time in the call, the site's time is
imbalance (waiting for the last process), not communication.
"""

from .report import ReportError, load_pyplot, read_tool_csv, require_columns

COLUMNS = ("collective", "site", "ranks", "calls", "calls_match",
           "bytes_per_call", "algorithms", "time_mean_ms", "time_max_ms",
           "spread_n", "spread_mean_ms", "spread_max_ms", "last_rank:count")


def add_arguments(p):
    p.add_argument("csv", metavar="FILE.csv",
                   help="the CSV the layer wrote beside PAPC_REPORT's file")
    p.add_argument("--png", metavar="OUT.png",
                   help="draw a bar chart (needs matplotlib) instead of "
                   "only printing the table")
    p.add_argument("--dpi", type=int, default=120)


def _sites(table):
    rows = [r for r in table.rows if r.get("last_rank:count", None) is not None
            or r.get("spread_max_ms") is not None]
    if not rows:
        raise ReportError("%s has no complete rows" % table.path)
    rows.sort(key=lambda r: -float(r["time_mean_ms"]) * float(r["calls"]))
    return rows


def _label(r):
    src = r.get("source")
    return "%s @ %s" % (r["collective"], src if src else r["site"])


def table_lines(rows):
    head = ("site", "calls", "bytes", "algorithm", "time ms mean/max",
            "spread ms mean/max", "last")
    out = [head]
    for r in rows:
        out.append((_label(r),
                    "%d%s" % (int(r["calls"]),
                              "" if int(r["calls_match"]) else "!"),
                    "%d" % int(r["bytes_per_call"]), str(r["algorithms"]),
                    "%.3f/%.3f" % (float(r["time_mean_ms"]),
                                   float(r["time_max_ms"])),
                    "%.3f/%.3f" % (float(r["spread_mean_ms"]),
                                   float(r["spread_max_ms"])),
                    str(r["last_rank:count"] or "-")))
    w = [max(len(row[i]) for row in out) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w[i]) for i, c in enumerate(row)).rstrip()
             for row in out]
    lines.append("(calls!: not the same count on every rank; last: "
                 "rank:times it entered last)")
    return lines


def draw(rows, path, dpi):
    plt = load_pyplot()
    n = len(rows)
    fig, ax = plt.subplots(figsize=(8, 1.0 + 0.6 * n))
    ys = list(range(n))
    t = [float(r["time_mean_ms"]) for r in rows]
    s = [float(r["spread_mean_ms"]) for r in rows]
    ax.barh([y - 0.2 for y in ys], t, height=0.4, label="time in call (mean)")
    ax.barh([y + 0.2 for y in ys], s, height=0.4,
            label="arrival spread (mean)")
    ax.set_yticks(ys)
    ax.set_yticklabels([_label(r) for r in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("ms per call")
    ax.set_title("papcoll finalize report: time in call vs arrival spread")
    ax.legend(fontsize=8)
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=dpi)
    except OSError as exc:
        raise ReportError("cannot write %s: %s" % (path, exc.strerror))
    plt.close(fig)


def run(args):
    table = read_tool_csv(args.csv)
    require_columns(table, COLUMNS)
    rows = _sites(table)
    for line in table_lines(rows):
        print(line)
    if args.png:
        draw(rows, args.png, args.dpi)
        print("wrote %s" % args.png)
    return 0
