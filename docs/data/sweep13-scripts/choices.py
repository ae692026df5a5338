#!/usr/bin/python3
# choices.py CSVDIR TRACE...: per setting auto/best, choices-at-named-cost/best, paired same-row ratio
import csv, sys, collections, statistics as st
for f in sys.argv[1:]:
    it=collections.defaultdict(lambda: collections.defaultdict(dict)); ran={}
    for r in csv.DictReader(open(f)):
        k=(r['coll'],int(r['count']),r['mode'],int(r['max_delay_ms'])); i=int(r['iteration'])
        it[k][(r['algorithm'],i)][int(r['rank'])]=float(r['finish_ms'])-float(r['arrive_ms'])
        if r['algorithm']=='auto' and r['ran']: ran[(k,i)]=r['ran']
    na=nc=0; N=0
    for k in sorted(it):
        rows=it[k]; algs={a for a,i in rows}; iters=sorted({i for a,i in rows})
        e={a:st.mean(st.mean(rows[(a,i)].values()) for i in iters if (a,i) in rows) for a in algs}
        named=[a for a in algs if a not in ('auto','auto_classic','native')]
        best=min(named,key=lambda a:e[a])
        ch=[st.mean(rows[(ran[(k,i)],i)].values()) for i in iters if (k,i) in ran and (ran[(k,i)],i) in rows]
        ce=st.mean(ch); ra=e['auto']/e[best]; rc=ce/e[best]
        N+=1; na+=ra<=1.05; nc+=rc<=1.05
        print('%-9s %7d %-9s %3d best %-30s auto %.3f choices %.3f overhead %.3f'%(k+(best,ra,rc,e['auto']/ce)))
    print(f,'auto within 5%%: %d/%d, choices at named cost within 5%%: %d/%d'%(na,N,nc,N))
