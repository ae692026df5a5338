# usage: cmp.py CSV [rows]: per setting and row, mean measured e vs mean predicted (ms)
import csv, sys, statistics as st
from collections import defaultdict
rows = sys.argv[2].split(',') if len(sys.argv) > 2 else ['clairvoyant', 'binomial', 'ring']
d = defaultdict(lambda: ([], []))
for r in csv.DictReader(open(sys.argv[1])):
    if r['row'] in rows:
        k = (r['collective'], int(r['bytes']), r['mode'], int(r['delay_ms']), r['row'])
        d[k][0].append(float(r['e_s'])); d[k][1].append(float(r['pred_s']))
err = defaultdict(list)
for k in sorted(d):
    m, p = d[k]
    mm, pp = st.mean(m) * 1e3, st.mean(p) * 1e3
    err[k[4]].append(abs(pp / mm - 1))
    print(f'{k[0]} {k[1]:>8} {k[2]:>9} {k[3]:>3} {k[4]:<14} meas {mm:7.2f} pred {pp:7.2f} ({pp/mm:5.2f})')
for r, e in err.items(): print(f'{r}: mean |pred/meas - 1| {st.mean(e):.3f}')
