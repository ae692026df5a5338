#!/usr/bin/python3
"""A settled site's sparse watching, k = 1 against k = 4 (settled.sh): per
setting (coll, count, delay) and run, the plain call's e (mean over ranks
of finish - arrive, mean over iterations) over that of the named row it ran
most (the same row run by name in the same run), the watched fraction, and
what it ran.  usage: settled-pairs.py DIR"""
import csv, glob, os, re, sys, statistics, collections
d = sys.argv[1]
res = collections.defaultdict(dict)
for t in sorted(glob.glob(os.path.join(d, '*-k*-r*.trace.csv'))):
    m = re.match(r'(\w+)-k(\d+)-r(\d+)\.trace\.csv', os.path.basename(t))
    coll, k, rep = m.group(1), int(m.group(2)), int(m.group(3))
    it = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in csv.DictReader(l for l in open(t) if not l.startswith('#')):
        if r.get('watched') is None: continue   # a file still being written
        key = (int(r['count']), float(r['max_delay_ms']), r['algorithm'], int(r['iteration']))
        it[key]['e'].append(float(r['finish_ms']) - float(r['arrive_ms']))
        it[key]['w'].append(r.get('watched', ''))
        it[key]['ran'].append(r['ran'])
    rows = collections.defaultdict(lambda: collections.defaultdict(list))
    for (cnt, dl, alg, i), v in it.items():
        rows[(cnt, dl)][alg].append(sum(v['e']) / len(v['e']))
        if alg == 'auto':
            rows[(cnt, dl)]['_w'].append(all(x == '1' for x in v['w']))
            rows[(cnt, dl)]['_ran'].append(v['ran'][0])
    for (cnt, dl), g in rows.items():
        ran = collections.Counter(g['_ran']).most_common(1)[0][0]
        best = min((a for a in g if not a.startswith('_') and a not in ('auto', 'native')),
                   key=lambda a: statistics.mean(g[a]))
        res[(coll, cnt, dl)][(k, rep)] = (
            statistics.mean(g['auto']) / statistics.mean(g[ran]) if ran in g else float('nan'),
            statistics.mean(g['auto']) / statistics.mean(g[best]),
            sum(g['_w']) / len(g['_w']), ran, best)
runs = sorted({kr for v in res.values() for kr in v})
print('setting | ' + ' | '.join('k=%d r%d: auto/ran-row, auto/best, watched, ran' % kr for kr in runs))
for key in sorted(res):
    cells = []
    for kr in runs:
        x = res[key].get(kr)
        cells.append('-' if not x else '%.3f, %.3f, %.2f, %s' % (x[0], x[1], x[2], x[3]))
    print('%s %d %g ms | ' % key + ' | '.join(cells))
for k in sorted({kr[0] for kr in runs}):
    v = [x[(k, r)][1] for x in res.values() for (kk, r) in [kr for kr in runs if kr[0] == k] if (k, r) in x]
    print('k=%d: within 5 %% of the best %d of %d; mean auto/best %.3f' % (k, sum(q <= 1.05 for q in v), len(v), statistics.mean(v)))
