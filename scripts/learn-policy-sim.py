#!/usr/bin/env python3
"""Offline study of the plain call's online refinement (PAPC_ARRIVAL_LEARN,
src/arrival/choose.c) on a sweep's measured points.

    papc-tune --profile P --arrival-check T1,T2,... --csv points.csv
    scripts/learn-policy-sim.py points.csv [--explore 0,0.1,0.2,0.3]
                                [--iterations 20,60,200] [--lag 3]

points.csv: every (setting, row, iteration) of the sweep's --trace files,
with the measured e (the mean time in the call over the ranks) and the
profile's corrected model at the arrivals measured in that iteration
(papc-tune --arrival-check --csv).  For each setting the script replays a
run of the plain call: W warm-up calls, then N measured ones (the sweep's
20 iterations, cycled when N > 20); at call t the row chosen runs at
iteration t mod 20 and costs what that row measured there.  The policy is
the library's: each row priced at its mean model over the setting (what the
views' mean approximates), plus its residual -- an exponentially weighted
mean (weight 0.25) of measured e minus the model at that call's arrivals,
known `lag` calls after the row ran -- or, for a row without one, the mean
residual of the rows that have one (robust: papc_learn_add's clipping);
the pick of papc_arrival_pick (the best
classic row unless an arrival-aware one is 5 % cheaper); once the pick has
run, the cheapest row never run whose price above the wait no row avoids is
within (1 + explore) of the pick's runs instead.  Reported: in how many
settings the replayed run's mean is within 5 % of the best row's mean
(the sweep's goal), per explore band and N; "models only" is the choice
without residuals (the models' pick, as papc-tune --arrival-check).

What it leaves out: the plain call's own cost, its prediction of the
arrivals (it prices at the measured ones), and that a row's cost in the
sweep depended on the iteration's random pattern, which the replay keeps.
"""
import argparse
import collections
import csv
import sys

WEIGHT = 0.25
MARGIN = 0.05


def read_points(path):
    """{setting: {row: [(e, pred, wait), ...by iteration]}}, {row: aware}"""
    pts = collections.defaultdict(dict)
    aware = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            key = (r["collective"], r["P"], r["bytes"], r["mode"],
                   float(r["delay_ms"]))
            rows = pts[key].setdefault(r["row"], {})
            rows[int(r["iteration"])] = (float(r["e_s"]), float(r["pred_s"]),
                                         float(r["wait_s"]))
            aware[r["row"]] = r["aware"] == "1"
    out = {}
    for key, rows in pts.items():
        n = min(len(v) for v in rows.values())
        out[key] = {a: [v[i] for i in sorted(v)][:n] for a, v in rows.items()
                    if len(v) >= n}
    return out, aware


def pick_row(q, rows, aware):
    classic = [a for a in rows if not aware[a]]
    fancy = [a for a in rows if aware[a]]
    best = min(classic, key=lambda a: q[a]) if classic else None
    if fancy:
        a = min(fancy, key=lambda a: q[a])
        if best is None or q[a] < (1 - MARGIN) * q[best]:
            return a
    return best


def add(bias, dev, a, r, price):
    """papc_learn_add: the first residual counts at most the row's price;
    later ones are clipped to 3 deviations (+ 10 % of the price + 0.1 ms)
    around the mean."""
    if a not in bias:
        bias[a], dev[a] = min(r, price), 0.1 * price
        return
    limit = 3 * dev[a] + 0.1 * price + 1e-4
    r = max(bias[a] - limit, min(bias[a] + limit, r))
    dev[a] = (1 - WEIGHT) * dev[a] + WEIGHT * abs(r - bias[a])
    bias[a] = (1 - WEIGHT) * bias[a] + WEIGHT * r


def replay(rows_d, aware, explore, n_calls, lag, warm, learn=True):
    rows = list(rows_d)
    its = len(next(iter(rows_d.values())))
    price = {a: sum(x[1] for x in rows_d[a]) / its for a in rows}
    wait = sum(x[2] for a in rows for x in rows_d[a]) / (its * len(rows))
    bias, dev, tried, ran, total = {}, {}, collections.Counter(), [], 0.0
    for t in range(warm + n_calls):
        i = t % its
        if learn and t - lag >= 0:
            a, ii = ran[t - lag]
            e, pred, _ = rows_d[a][ii]
            add(bias, dev, a, e - pred, pred)
        common = sum(bias.values()) / len(bias) if bias else 0.0
        q = {a: price[a] + bias.get(a, common) for a in rows}
        pick = pick_row(q, rows, aware)
        if learn and explore > 0 and tried[pick]:
            limit = wait + (1 + explore) * (q[pick] - wait)
            new = [a for a in rows if not tried[a] and q[a] <= limit]
            if new:
                pick = min(new, key=lambda a: q[a])
        tried[pick] += 1
        ran.append((pick, i))
        if t >= warm:
            total += rows_d[pick][i][0]
    return total / n_calls


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("points")
    ap.add_argument("--explore", default="0,0.1,0.2,0.3")
    ap.add_argument("--iterations", default="20,60,200")
    ap.add_argument("--lag", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--misses", action="store_true",
                    help="list the settings missed at --explore's first "
                         "band and the first N")
    a = ap.parse_args()
    try:
        pts, aware = read_points(a.points)
    except OSError as e:
        print(f"learn-policy-sim: {a.points}: cannot read: {e.strerror}",
              file=sys.stderr)
        return 1
    except (KeyError, ValueError) as e:
        print(f"learn-policy-sim: {a.points}: not papc-tune --arrival-check "
              f"--csv points ({e})", file=sys.stderr)
        return 1
    if not pts:
        print(f"learn-policy-sim: {a.points}: no points", file=sys.stderr)
        return 1
    ns = [int(x) for x in a.iterations.split(",")]
    bands = [float(x) for x in a.explore.split(",")]

    def score(band, n, learn=True):
        ok, misses = 0, []
        for key, rows_d in sorted(pts.items()):
            its = len(next(iter(rows_d.values())))
            best = min(sum(x[0] for x in v) / its for v in rows_d.values())
            m = replay(rows_d, aware, band, n, a.lag, a.warmup, learn)
            ok += m <= 1.05 * best
            if m > 1.05 * best:
                misses.append((m / best, key))
        return ok, misses

    print(f"# {a.points}: {len(pts)} settings; lag {a.lag} calls, "
          f"{a.warmup} warm-up calls, residual weight {WEIGHT}")
    print("policy               " + "".join(f"  N={n:<5}" for n in ns))
    print("models only          " + "".join(
        f"  {score(0, n, learn=False)[0]:>2}/{len(pts):<4}" for n in ns))
    for band in bands:
        print(f"learn, explore {band:<5} " + "".join(
            f"  {score(band, n)[0]:>2}/{len(pts):<4}" for n in ns))
    if a.misses:
        for ratio, key in sorted(score(bands[0], ns[0])[1], reverse=True):
            print(f"  miss {ratio:.3f}: {' '.join(str(k) for k in key)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
