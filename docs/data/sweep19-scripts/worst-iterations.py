# Session 19.  usage: worst-iterations.py TRACE...
# Worst iterations of a sweep's traces: per setting, the iteration with the
# largest e-bar / (that row's median), for auto and for any named row; and
# the longest single run time r of any iteration (max f - min a).
import csv, sys, glob, statistics as st
from collections import defaultdict
worst_auto = []; worst_any = []; longest = []
for f in sys.argv[1:]:
    e = defaultdict(lambda: defaultdict(list)); fa = defaultdict(lambda: defaultdict(list))
    for r in csv.DictReader(open(f)):
        k = (r['coll'], r['count'], r['mode'], r['max_delay_ms'])
        it = int(r['iteration'])
        a, fi = float(r['arrive_ms']), float(r['finish_ms'])
        e[(k, r['algorithm'])][it].append(fi - a)
        fa[(k, r['algorithm'])][it].append((a, fi))
    for (k, alg), its in e.items():
        v = {i: st.mean(x) for i, x in its.items()}
        med = st.median(v.values())
        i, m = max(v.items(), key=lambda t: t[1])
        rec = (m / med, m, med, k, alg, i)
        (worst_auto if alg == 'auto' else worst_any).append(rec)
        for i, p in fa[(k, alg)].items():
            longest.append((max(x[1] for x in p) - min(x[0] for x in p), k, alg, i))
for name, lst in (('auto', worst_auto), ('named rows', worst_any)):
    lst.sort(reverse=True)
    print(f'worst iterations of {name} (e-bar / its median):')
    for x in lst[:6]:
        print(f'  {x[0]:.1f}x  {x[1]:.2f} ms against {x[2]:.2f}  {" ".join(x[3])} {x[4]} it {x[5]}')
longest.sort(reverse=True)
print('longest run times r of one iteration:')
for x in longest[:4]:
    print(f'  {x[0]:.0f} ms {" ".join(x[1])} {x[2]} it {x[3]}')
