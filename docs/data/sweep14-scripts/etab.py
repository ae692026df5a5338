#!/usr/bin/python3
import csv,sys
for f in sys.argv[1:]:
    R=list(csv.DictReader(l for l in open(f) if not l.startswith("#")))
    for c in sorted({r['count'] for r in R},key=int):
        rows=[r for r in R if r['count']==c]
        print(f.split('/')[-1],c,' '.join('%s %.1f'%(r['algorithm'][:12],float(r['e_mean_ms'])) for r in rows))
