#!/usr/bin/python3
"""The balanced gate, watched every call (k=1) against every k-th (sparse
watching): auto / auto_classic per collective, size, k and repetition, from
papc-bench CSVs named <coll>-k<k>-r<rep>.csv (docs/data/sweep16-scripts/bal.sh).
ē ratio of the means, ± its standard error; r ratio; and the geometric mean
over the 8 settings per k and repetition.
usage: balanced-pairs.py DIR"""
import csv, glob, math, os, re, sys, collections
d = sys.argv[1]
rows = collections.defaultdict(dict)  # (coll, bytes, k, rep) -> alg -> row
for f in sorted(glob.glob(os.path.join(d, '*-k*-r*.csv'))):
    m = re.match(r'(\w+)-k(\d+)-r(\d+)\.csv', os.path.basename(f))
    coll, k, rep = m.group(1), int(m.group(2)), int(m.group(3))
    for r in csv.DictReader(l for l in open(f) if not l.startswith('#')):
        rows[(coll, int(r['count']), k, rep)][r['algorithm']] = r
def ratio(a, b, key):
    ma, mb = float(a[key + '_mean_ms']), float(b[key + '_mean_ms'])
    n = int(a['iterations'])
    sa, sb = float(a[key + '_std_ms']) / math.sqrt(n), float(b[key + '_std_ms']) / math.sqrt(n)
    q = ma / mb
    return q, q * math.sqrt((sa / ma) ** 2 + (sb / mb) ** 2)
runs = sorted({(k, r) for _, _, k, r in rows})
print('%-10s %8s | ' % ('coll', 'count') + ' | '.join('k=%d r%d: e auto/classic (se), r' % kr for kr in runs))
logs = collections.defaultdict(list)
within = collections.Counter()
for coll in ['gather', 'scatter', 'reduce', 'allreduce']:
    for cnt in sorted({c for (co, c, _, _) in rows if co == coll}):
        cells = []
        for k, rep in runs:
                x = rows.get((coll, cnt, k, rep))
                if not x or 'auto' not in x: cells.append('-'); continue
                q, se = ratio(x['auto'], x['auto_classic'], 'e')
                qr, _ = ratio(x['auto'], x['auto_classic'], 'r')
                logs[(k, rep)].append(math.log(q))
                within[(k, rep)] += q <= 1.03
                cells.append('%.3f (%.3f), %.3f' % (q, se, qr))
        print('%-10s %8d | ' % (coll, cnt) + ' | '.join(cells))
for key in sorted(logs):
    v = logs[key]
    print('k=%d rep %d: geometric mean of e auto/auto_classic %.4f over %d settings, within 3 %%: %d'
          % (key[0], key[1], math.exp(sum(v) / len(v)), len(v), within[key]))
