#!/usr/bin/python3
"""Replay the plain call over the sweep's sequence of settings at one site
(views carried from setting to setting, reset when the size changes; 3
warm-up calls per setting, stood in by its first 3 iterations), picks from
the mean price over the latest k views."""
import csv, collections, sys
import numpy as np
ORDER=[(m,d) for m in ('one-late','rand-late') for d in (10.0,50.0,200.0)]
def load(f):
    S=collections.defaultdict(lambda: collections.defaultdict(dict))
    for p in csv.DictReader(open(f)):
        s=(p['collective'],int(float(p['bytes'])),p['mode'],float(p['delay_ms']))
        S[s][p['row']][int(float(p['iteration']))]=(float(p['e_s']),float(p['pred_s']),float(p['wait_s']),int(p['aware']))
    return S
def pick(P,W,aw,margin=0.05):
    cl=min((r for r in P if not aw[r]),key=P.get); ar=[r for r in P if aw[r]]
    if not ar: return cl
    a=min(ar,key=P.get); w=W
    if w>=P[a] or w>=P[cl]: w=0
    return a if P[a]-w<(1-margin)*(P[cl]-w) else cl
def run(files,k,margin=0.05,verbose=False):
    ok=n=0; out=[]
    for f in files:
        S=load(f)
        for size in sorted({s[1] for s in S}):
            views=[]
            for (mode,d) in ORDER:
                s=[x for x in S if x[1]==size and x[2]==mode and x[3]==d]
                if not s: continue
                rows=S[s[0]]
                its=sorted(set.intersection(*[set(v) for v in rows.values()]))
                aw={r:list(v.values())[0][3] for r,v in rows.items()}
                def view(i): return ({r:rows[r][i][1] for r in rows}, np.mean([rows[r][i][2] for r in rows]))
                for i in its[:3]: views.append(view(i))   # warm-up
                got=[]
                for i in its:
                    vs=views[-k:]
                    P={r:np.mean([v[0][r] for v in vs]) for r in rows}
                    W=np.mean([v[1] for v in vs])
                    got.append(rows[pick(P,W,aw,margin)][i][0])
                    views.append(view(i))
                best=min(np.mean([rows[r][i][0] for i in its]) for r in rows)
                ratio=np.mean(got)/best; n+=1; ok+=ratio<=1.05
                if ratio>1.05: out.append('%s %d %s %g: %.3f'%(s[0]+(ratio,)))
    return ok,n,out
if __name__=='__main__':
    files=sys.argv[1:]
    for k in (1,2,4,6,8,12,16):
        ok,n,out=run(files,k)
        print('k=%2d: %d of %d   %s'%(k,ok,n,'; '.join(out)))
