# Prototype: gather models with buffered senders (exit = max(start+h, done - B*beta))
import csv,collections,sys,math
import numpy as np
alpha=50e-6; beta=8.4e-9/1.0  # s/B on the 1 Gbit/s link
h=0.3e-3
def lowbit(v): return v & -v
def span(v,P):
    s=P if v==0 else lowbit(v); return min(s,P-v)
def kids(v,P):
    lim=P if v==0 else lowbit(v); out=[]; d=1
    while d<lim and v+d<P: out.append(v+d); d<<=1
    return out
def exitf(start,done,nbytes,B):
    return max(start+h, done-min(nbytes,B)*beta) if B>0 else done
def linear(o,root,order,m,B):
    P=len(o); c=alpha+m*beta; d=o[root]; F=[0]*P
    for r in order:
        if r==root: continue
        s=max(d,o[r]); d=s+c; F[r]=exitf(s,d,m,B)
    F[root]=max(o[root],d); return F
def tree(o,rank_of,m,B):
    P=len(o); R=[0]*P; F=[0]*P
    for v in range(P-1,-1,-1):
        ov=o[rank_of[v]]; ks=kids(v,P)
        items=[]
        for k in ks:
            sp=span(k,P); items.append((max(R[k],ov),k,alpha+sp*m*beta,sp*m))
        items.sort(); d=-1e9
        for rd,k,cost,nb in items:
            s=max(d,rd); d=s+cost; F[rank_of[k]]=exitf(s,d,nb,B)
        R[v]=max(ov,d)
    F[rank_of[0]]=R[0]; return F
def sbn_map(o,root,m):
    P=len(o); keys=[]
    for v in range(1,P):
        t=0;dep=0;u=v
        while u>0: t+=alpha+span(u,P)*m*beta; u-=lowbit(u); dep+=1
        keys.append((t,dep,v))
    keys.sort(); order=sorted(range(P),key=lambda r:(o[r],r))
    mp=[0]*P; mp[0]=root; j=0
    for r in reversed(order):
        if r!=root: mp[keys[j][2]]=r; j+=1
    return mp
def model(alg,o,root,m,B):
    P=len(o)
    if alg=='sorted_linear_sync': return linear(o,root,sorted(range(P),key=lambda r:(o[r],r)),m,B)
    if alg=='linear_sync' or alg=='basic_linear': return linear(o,root,list(range(P)),m,B)
    if alg=='binomial': return tree(o,[(v+root)%P for v in range(P)],m,B)
    if alg=='sorted_binomial': return tree(o,sbn_map(o,root,m),m,B)
    return None
tr=collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    tr[(r['algorithm'],r['count'],r['mode'],r['max_delay_ms'],r['iteration'])].append((int(r['rank']),float(r['arrive_ms'])/1e3,float(r['finish_ms'])/1e3))
algs=['sorted_linear_sync','binomial','sorted_binomial','linear_sync']
for B in [0, 256<<10, 512<<10, 1<<20, 2<<20, 4<<20]:
    pts=collections.defaultdict(list)
    for (alg,cnt,mode,d,it),v in tr.items():
        if alg not in algs: continue
        v=sorted(v); o=[a for _,a,_ in v]; f=[x for _,_,x in v]
        mn=min(o); o=[x-mn for x in o]; f=[x-mn for x in f]
        m=int(cnt)*4
        F=model(alg,o,0,m,B)
        em=np.mean([F[i]-o[i] for i in range(8)]); e=np.mean([f[i]-o[i] for i in range(8)])
        pts[(alg,cnt)].append((mode,d,e,em))
    # per (alg,size) fit e = a*em + c ; residual by mode/delay
    out=[]; tot=[]
    for (alg,cnt),p in sorted(pts.items()):
        E=np.array([x[2] for x in p]); M=np.array([x[3] for x in p])
        A=np.vstack([M,np.ones_like(M)]).T; coef,_,_,_=np.linalg.lstsq(A,E,rcond=None)
        pred=A@coef
        bk=collections.defaultdict(list)
        for x,pr in zip(p,pred): bk[(x[0],x[1])].append((x[2],pr))
        s=' '.join('%s%s:%.2f'%(k[0][0],k[1],np.mean([a[1] for a in q])/np.mean([a[0] for a in q])) for k,q in sorted(bk.items()))
        err=np.median(np.abs(pred/E-1)); tot.append(err)
        out.append('  %-20s %7s a=%.2f c=%.1fms err %.1f%% %s'%(alg,cnt,coef[0],coef[1]*1e3,err*100,s))
    print('B=%d KiB mean err %.2f%%'%(B>>10,100*np.mean(tot))); print('\n'.join(out))
