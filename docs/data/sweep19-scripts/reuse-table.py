# Session 19: auto / the base row (auto_classic at 0 ms, binomial when late), means of e-bar,
# per run of reuse.sh, reuse off (u0) and on (u1).  usage: reuse-table.py OUTDIR
import csv, glob, sys, re, statistics as st
d = sys.argv[1]
rows = {}
for f in sorted(x for x in glob.glob(d + '/*-u*-r*.csv') if 'trace' not in x):
    m = re.search(r'(\w+)-u(\d)-r(\d)\.csv', f)
    coll, u, rep = m.group(1), int(m.group(2)), int(m.group(3))
    lines = [l for l in open(f) if not l.startswith('#')]
    for r in csv.DictReader(lines):
        rows[(coll, u, rep, int(r['max_delay_ms']), r['algorithm'])] = r
print('| setting | base | reuse off r1 | r2 | reuse on r1 | r2 | off mean | on mean | auto ran |')
print('|---|---|---:|---:|---:|---:|---:|---:|---|')
for coll in ('gather', 'reduce'):
    for dly in (0, 10, 50):
        base = 'auto_classic' if dly == 0 else 'binomial'
        vals = {}
        for u in (0, 1):
            for rep in (1, 2):
                a = rows.get((coll, u, rep, dly, 'auto')); b = rows.get((coll, u, rep, dly, base))
                if a and b:
                    vals[(u, rep)] = float(a['e_mean_ms']) / float(b['e_mean_ms'])
                    ran = a['ran']
        def g(k): return '%.3f' % vals[k] if k in vals else '-'
        m0 = st.mean([vals[k] for k in vals if k[0] == 0]) if any(k[0]==0 for k in vals) else float('nan')
        m1 = st.mean([vals[k] for k in vals if k[0] == 1]) if any(k[0]==1 for k in vals) else float('nan')
        print(f'| {coll} 256 Ki {dly} ms | {base} | {g((0,1))} | {g((0,2))} | {g((1,1))} | {g((1,2))} | {m0:.3f} | {m1:.3f} | {ran} |')
