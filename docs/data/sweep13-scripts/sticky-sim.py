#!/usr/bin/python3
"""sticky-sim.py points.csv: replay of the plain call's choice with lagged views (mean of the
model at the arrivals of iterations t-lag-k+1..t-lag), with and without hysteresis; cost = the
chosen row's measured e at iteration t. Reports settings within 5 % of the best row's mean."""
import csv, collections, sys, statistics as st
MARGIN=0.05
pts=collections.defaultdict(lambda: collections.defaultdict(dict)); aware={}
for r in csv.DictReader(open(sys.argv[1])):
    key=(r['collective'],int(r['bytes']),r['mode'],float(r['delay_ms']))
    pts[key][r['row']][int(r['iteration'])]=(float(r['e_s']),float(r['pred_s']),float(r['wait_s']))
    aware[r['row']]=r['aware']=='1'
def pick(q,w,rows,inc,h):
    classic=[a for a in rows if not aware[a]]; fancy=[a for a in rows if aware[a]]
    c=min(classic,key=lambda a:q[a]); p=c
    if fancy:
        a=min(fancy,key=lambda a:q[a]); ww=w if (w<q[a] and w<q[c]) else 0
        if q[a]-ww<(1-MARGIN)*(q[c]-ww): p=a
    if h>0 and inc is not None and inc!=p:
        ww=w if (w<q[inc] and w<q[p]) else 0
        if q[inc]-ww<=(1+h)*(q[p]-ww): return inc
    return p
def replay(rows,n,lag,k,h,warm=3):
    inc=None; tot=[]; ran=collections.Counter()
    for t in range(-warm,n):
        vs=[i%n for i in range(t-lag-k+1,t-lag+1)]
        q={a:st.mean(rows[a][i][1] for i in vs) for a in rows}
        w=st.mean(rows[next(iter(rows))][i][2] for i in vs)
        p=pick(q,w,rows,inc,h); inc=p
        if t>=0: tot.append(rows[p][t][0]); ran[p]+=1
    return st.mean(tot),ran
lag=int(sys.argv[2]) if len(sys.argv)>2 else 2
for h in (0,0.05,0.1,0.2):
    hit=0; lines=[]
    for key in sorted(pts):
        rows=pts[key]; n=min(len(v) for v in rows.values())
        rows={a:v for a,v in rows.items() if all(i in v for i in range(n))}
        best=min(st.mean(rows[a][i][0] for i in range(n)) for a in rows)
        m,ran=replay(rows,n,lag,4,h)
        ok=m<=1.05*best; hit+=ok
        lines.append('%s %.3f %s %s'%(key,m/best,'ok' if ok else 'MISS',dict(ran.most_common(3))))
    print('h=%.2f lag=%d: %d of %d'%(h,lag,hit,len(pts)))
    if len(sys.argv)>3: print('\n'.join(lines))
