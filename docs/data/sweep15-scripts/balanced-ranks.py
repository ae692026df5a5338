#!/usr/bin/python3
"""Where the plain call's balanced excess lies: per rank, the mean time in the
call (finish - arrive, ms) of auto and auto_classic in the same iterations,
and the mean arrival offset (arrive - the iteration's first arrival in that row).
usage: balanced-ranks.py TRACE.csv COUNT [DELAY=0]"""
import csv, collections, statistics as st, sys
f, count = sys.argv[1:3]
d = sys.argv[3] if len(sys.argv) > 3 else '0'
t = collections.defaultdict(dict)
for r in csv.DictReader(open(f)):
    if r['count'] != count or r['max_delay_ms'] != d: continue
    t[(r['algorithm'], int(r['iteration']))][int(r['rank'])] = (float(r['arrive_ms']), float(r['finish_ms']))
algs = sorted({a for a, _ in t})
its = sorted({i for _, i in t})
P = max(len(v) for v in t.values())
print('rank ' + ' '.join('%14s' % a for a in algs) + '   (elapsed ms; offset ms)')
for rk in range(P):
    cells = []
    for a in algs:
        el = [t[(a, i)][rk][1] - t[(a, i)][rk][0] for i in its if (a, i) in t and rk in t[(a, i)]]
        off = [t[(a, i)][rk][0] - min(x[0] for x in t[(a, i)].values()) for i in its if (a, i) in t and rk in t[(a, i)]]
        cells.append('%6.2f;%6.2f' % (st.mean(el), st.mean(off)) if el else '-')
    print('%4d ' % rk + ' '.join('%14s' % c for c in cells))
for a in algs:
    e = [st.mean(v[1] - v[0] for v in t[(a, i)].values()) for i in its if (a, i) in t]
    print('%-14s e mean %.3f median %.3f max %.3f (n=%d)' % (a, st.mean(e), st.median(e), max(e), len(e)))
