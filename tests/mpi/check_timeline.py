#!/usr/bin/env python3
"""Checks papc-bench --timeline against --trace of the same run.

Each measured iteration of the trace must have one timeline row whose
duration (last finish - first arrival, CLOCK_MONOTONIC seconds) equals the
trace's (max finish_ms - min arrive_ms) within 1 ms, and the rows must
follow each other in time (an iteration starts after the one before it in
the file ended). Prints "timeline check: passed (N iterations)" or every
problem and "FAILED (K problems)".

  check_timeline.py TIMELINE.csv TRACE.csv
"""
import csv
import sys

KEY = ("coll", "algorithm", "count", "mode", "max_delay_ms", "iteration")


def main(timeline, trace):
    problems = []
    spans = {}
    for r in csv.DictReader(open(trace)):
        k = tuple(r[c] for c in KEY)
        a, f = float(r["arrive_ms"]), float(r["finish_ms"])
        lo, hi = spans.get(k, (a, f))
        spans[k] = (min(lo, a), max(hi, f))
    with open(timeline) as f:
        head = f.readline().strip().split(",")
        want = list(KEY) + ["first_arrival_s", "last_finish_s"]
        if head != want:
            problems.append("header %s, want %s" % (head, want))
        f.seek(0)
        rows = list(csv.DictReader(f))
    seen = set()
    prev_end = None
    for r in rows:
        k = tuple(r.get(c, "") for c in KEY)
        try:
            a, b = float(r["first_arrival_s"]), float(r["last_finish_s"])
        except (TypeError, ValueError):
            problems.append("%s: times %r" % (k, r))
            continue
        if k not in spans:
            problems.append("%s: not in the trace" % (k,))
            continue
        seen.add(k)
        lo, hi = spans[k]
        if abs((b - a) * 1e3 - (hi - lo)) > 1.0:
            problems.append("%s: %.3f ms in the timeline, %.3f in the trace"
                            % (k, (b - a) * 1e3, hi - lo))
        if prev_end is not None and a < prev_end:
            problems.append("%s: starts %.3f ms before the previous row ended"
                            % (k, (prev_end - a) * 1e3))
        prev_end = b
    for k in sorted(set(spans) - seen):
        problems.append("%s: in the trace, not in the timeline" % (k,))
    for p in problems:
        print("timeline check: " + p)
    if problems:
        print("timeline check: FAILED (%d problems)" % len(problems))
        return 1
    print("timeline check: passed (%d iterations)" % len(rows))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
