#!/usr/bin/python3
"""Worst iteration per collective: run time r = max finish - min arrival of an
(algorithm, setting, iteration) over the median r of that algorithm and setting.
usage: worst.py TRACE.csv..."""
import csv, collections, statistics as st, sys
for f in sys.argv[1:]:
    it = collections.defaultdict(lambda: [1e18, -1e18])
    for r in csv.DictReader(open(f)):
        k = (r['algorithm'], r['count'], r['mode'], r['max_delay_ms'], r['iteration'])
        it[k][0] = min(it[k][0], float(r['arrive_ms'])); it[k][1] = max(it[k][1], float(r['finish_ms']))
    per = collections.defaultdict(list)
    for k, (a, b) in it.items():
        per[k[:4]].append((b - a, k[4]))
    worst = {}
    for s, v in per.items():
        if s[3] == '0': continue
        med = st.median(x for x, _ in v); x, i = max(v)
        kind = 'auto' if s[0] == 'auto' else 'named'
        if kind not in worst or x - med > worst[kind][0]: worst[kind] = (x - med, s, i, x, med)
    for kind, (d, s, i, x, med) in sorted(worst.items()):
        print('%s %-5s +%.1f ms: %s count %s %s %s ms, iteration %s: r %.1f against median %.1f' % (f.split('/')[-1], kind, d, s[0], s[1], s[2], s[3], i, x, med))
