"""papc-report stalls: the worst iterations of a papc-bench --trace file.

A slow iteration is a defect to explain, not noise to average away.  The
trace has one row per (collective, algorithm, size, mode, delay, iteration,
rank) with the rank's arrival and finish in ms after the iteration's first
arrival.  This report gives, per configuration, the median, mean and worst
run time r = max finish - min arrival, the worst against the native call's
worst in the same run (the goal of issue 11: an arrival-aware algorithm's
worst at most 2 x native's), and the slowest iterations rank by rank, so
one can see whether the time went into a late arrival (the emulated
computation or the barrier before it overslept: the machine) or into the
call (who finished late, and after whom).

Times are per rank from its own barrier exit (papc-bench's time base), so on
several hosts a slow barrier shows up as late arrivals of every rank but one.
"""

from collections import OrderedDict

from .report import ReportError, read_tool_csv, require_columns

COLUMNS = ("coll", "algorithm", "count", "mode", "max_delay_ms", "iteration",
           "rank", "arrive_ms", "finish_ms")


def iterations(table):
    """{(coll, alg, count, mode, delay): {iteration: [row per rank]}}."""
    conf = OrderedDict()
    for row in table.rows:
        if row.get("finish_ms") is None:  # a truncated last line
            continue
        key = (row["coll"], row["algorithm"], row["count"], row["mode"],
               row["max_delay_ms"])
        conf.setdefault(key, OrderedDict()).setdefault(
            row["iteration"], []).append(row)
    if not conf:
        raise ReportError("%s has no complete rows" % table.path)
    return conf


def run_time(ranks):
    return (max(r["finish_ms"] for r in ranks)
            - min(r["arrive_ms"] for r in ranks))


def summary(conf):
    """One dict per configuration: median, mean, worst r and its ratio to
    the native call's worst of the same (coll, count, mode, delay)."""
    out = []
    for key, its in conf.items():
        rs = sorted(run_time(ranks) for ranks in its.values())
        out.append({"key": key, "n": len(rs), "median": rs[len(rs) // 2],
                    "mean": sum(rs) / len(rs), "worst": rs[-1]})
    native = {(s["key"][0],) + s["key"][2:]: s["worst"]
              for s in out if s["key"][1] == "native"}
    for s in out:
        base = native.get((s["key"][0],) + s["key"][2:])
        s["ratio"] = s["worst"] / base if base else None
    return out


def add_arguments(p):
    p.add_argument("trace", help="papc-bench --trace FILE")
    p.add_argument("--top", type=int, default=5,
                   help="slowest iterations shown rank by rank (default 5)")
    p.add_argument("--limit", type=float, default=None,
                   help="exit 1 when an algorithm's worst iteration exceeds "
                   "LIMIT x the native call's worst (e.g. 2)")


def run(args):
    table = read_tool_csv(args.trace)
    require_columns(table, COLUMNS)
    conf = iterations(table)
    rows = summary(conf)
    print("%-9s %-30s %9s %-9s %5s %4s %9s %9s %9s %8s" % (
        "coll", "algorithm", "count", "mode", "delay", "n", "median",
        "mean", "worst", "/native"))
    over = []
    for s in rows:
        coll, alg, count, mode, delay = s["key"]
        ratio = "%.2f" % s["ratio"] if s["ratio"] is not None else "-"
        print("%-9s %-30s %9s %-9s %5s %4d %9.1f %9.1f %9.1f %8s" % (
            coll, alg, count, mode, delay, s["n"], s["median"], s["mean"],
            s["worst"], ratio))
        if (args.limit is not None and s["ratio"] is not None
                and s["ratio"] > args.limit):
            over.append(s)
    slow = sorted(((run_time(ranks), key, it, ranks)
                   for key, its in conf.items() for it, ranks in its.items()),
                  key=lambda t: -t[0])[:max(args.top, 0)]
    for r, key, it, ranks in slow:
        print("\n%s %s %s %s %s ms, iteration %s: r = %.1f ms"
              % (key + (it, r)))
        for x in sorted(ranks, key=lambda x: x["rank"]):
            # the plain call's rows name what each rank ran (`ran`)
            ran = x.get("ran")
            print("  rank %3d  arrive %9.1f  finish %9.1f  in call %9.1f%s"
                  % (x["rank"], x["arrive_ms"], x["finish_ms"],
                     x["finish_ms"] - x["arrive_ms"],
                     "  ran %s" % ran if ran else ""))
    if over:
        print("\nworst iteration over %g x native's worst: %s" % (
            args.limit, ", ".join("%s %s %s ms (%.2f x)" % (
                s["key"][0], s["key"][1], s["key"][4], s["ratio"])
                for s in over)))
        return 1
    return 0
