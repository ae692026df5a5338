# Session 19: per reuse.sh trace, the median e-bar of the watched and the unwatched plain
# calls over binomial by name (10 and 50 ms).  usage: reuse-split.py TRACE...
import csv, sys, statistics as st, collections
for f in sys.argv[1:]:
    it = collections.defaultdict(list); w = {}
    for r in csv.DictReader(open(f)):
        if r['max_delay_ms'] not in ('10','50'): continue
        k = (r['max_delay_ms'], r['algorithm'], int(r['iteration']))
        it[k].append(float(r['finish_ms']) - float(r['arrive_ms']))
        if r['algorithm'] == 'auto': w[k] = r['watched']
    for d in ('10','50'):
        e = lambda alg, cond=lambda k: True: [st.mean(v) for k, v in it.items() if k[0]==d and k[1]==alg and cond(k)]
        b = st.median(e('binomial'))
        aw = e('auto', lambda k: w.get(k)=='1'); au = e('auto', lambda k: w.get(k)=='0')
        print(f"{f} d={d}: binomial med {b:.3f}; auto watched med {st.median(aw):.3f} ({len(aw)}) = {st.median(aw)/b:.3f}; unwatched med {st.median(au):.3f} ({len(au)}) = {st.median(au)/b:.3f}")
