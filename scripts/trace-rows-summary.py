#!/usr/bin/env python3
"""trace-rows-summary.py TRACE...: papc-bench --trace files, one summary each: per file, each row's mean e (ms) over all iterations and per third,
auto / best-row ratio of means, the paired median (auto / best row in the same iteration),
and what auto ran (docs/performance.md, ninth session: the long runs)."""
import sys, csv, collections, statistics
for t in sys.argv[1:]:
    e = collections.defaultdict(lambda: collections.defaultdict(list)); ran = collections.defaultdict(collections.Counter)
    for r in csv.DictReader(l for l in open(t) if not l.startswith('#')):
        e[r['algorithm']][int(r['iteration'])].append(float(r['finish_ms']) - float(r['arrive_ms']))
        if r['algorithm'] == 'auto' and r['rank'] == '0': ran[int(r['iteration'])][r['ran']] += 1
    eb = {a: [sum(v[i]) / len(v[i]) for i in sorted(v)] for a, v in e.items()}
    n = min(len(v) for v in eb.values())
    means = {a: sum(v[:n]) / n for a, v in eb.items()}
    named = [a for a in eb if a not in ('auto', 'native', 'auto_classic')]
    best = min(named, key=lambda a: means[a])
    thirds = lambda v: [sum(v[k * n // 3:(k + 1) * n // 3]) / (n // 3) for k in range(3)]
    paired = statistics.median(eb['auto'][i] / min(eb[a][i] for a in named) for i in range(n))
    cnt = collections.Counter()
    for i in ran: cnt.update(ran[i])
    print(f"{t.split('/')[-1]}: n={n} best {best}; auto/best means {means['auto']/means[best]:.3f}, paired median {paired:.3f}")
    for a in sorted(eb, key=lambda a: means[a]):
        th = thirds(eb[a])
        print(f"   {a:28s} mean {means[a]:8.2f}  thirds {th[0]:8.2f} {th[1]:8.2f} {th[2]:8.2f}  max {max(eb[a][:n]):8.2f}")
    print("   auto ran:", ", ".join(f"{k} {v}" for k, v in cnt.most_common()))
    seq = [ran[i].most_common(1)[0][0] for i in sorted(ran)]
    print("   sequence:", " ".join(s[:6] for s in seq))
