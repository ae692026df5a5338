#!/usr/bin/python3
"""The balanced plain call split by whether the arrival monitor watched it:
from papc-bench --trace files (column "watched", since session 17), per
(coll, count): e (mean over ranks of finish - arrive) of auto's watched and
unwatched iterations and of auto_classic and native, means and medians, and
what auto ran.  usage: balanced-watched.py TRACE..."""
import csv, sys, statistics, collections
it = collections.defaultdict(lambda: collections.defaultdict(list))
for t in sys.argv[1:]:
    for r in csv.DictReader(l for l in open(t) if not l.startswith('#')):
        key = (t, r['coll'], int(r['count']), r['algorithm'], int(r['iteration']))
        it[key]['e'].append(float(r['finish_ms']) - float(r['arrive_ms']))
        it[key]['w'].append(r.get('watched', ''))
        it[key]['ran'].append(r['ran'])
groups = collections.defaultdict(lambda: collections.defaultdict(list))
for (t, coll, cnt, alg, i), v in it.items():
    e = sum(v['e']) / len(v['e'])
    lab = alg
    if alg == 'auto':
        w = set(v['w'])
        lab = 'auto watched' if w == {'1'} else 'auto unwatched' if w == {'0'} else 'auto mixed'
    groups[(coll, cnt)][lab].append(e)
    groups[(coll, cnt)][lab + ' ran'].append(v['ran'][0])
for (coll, cnt) in sorted(groups):
    g = groups[(coll, cnt)]
    base = statistics.mean(g['auto_classic']) if g.get('auto_classic') else None
    print('%s %d' % (coll, cnt))
    for lab in ['native', 'auto_classic', 'auto watched', 'auto unwatched', 'auto mixed']:
        if not g.get(lab): continue
        x = g[lab]
        rel = ' = %.3f x auto_classic' % (statistics.mean(x) / base) if base else ''
        ran = collections.Counter(g.get(lab + ' ran', []))
        print('  %-15s n=%3d mean %8.2f median %8.2f max %8.2f%s %s' % (
            lab, len(x), statistics.mean(x), statistics.median(x), max(x), rel,
            ' '.join('%s:%d' % kv for kv in ran.most_common()) if ran and lab.startswith('auto ') else ''))
