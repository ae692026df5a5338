# The P = 8 hand case of tests/unit/test_arrival_model.c (reduce clairvoyant), by an
# independent implementation of the dataflow rules (src/clairvoyant/dataflow.h) on the events
# papc_clv_fast prints.  First: gcc -I src dump-schedule.c build/lib/libpapc_clv.a
# build/lib/libpapc_topo.a -lm -o dump2 (in this folder).  Prints the exits and e (4.75).
import sys, subprocess, re
def sched(P,N,root,q):
    out = subprocess.run(['./dump2',str(P),str(N),str(root)]+[str(x) for x in q],capture_output=True,text=True).stdout
    ev=[]
    for line in out.splitlines():
        p=int(line.split(':')[0][1:])
        for m in re.finditer(r'r(\d+) ([SR])(\d+) s(\d+)', line):
            ev.append((int(m[1]),p,m[2],int(m[3]),int(m[4])))
    return ev
def flow(P,N,ev,a,link,app):
    ready={(p,j):a[p] for p in range(P) for j in range(N)}
    post=list(a); up=[-1e300]*P; down=[-1e300]*P; ex=list(a)
    for (r,p,k,q,j) in sorted(ev):
        if k!='S': continue
        post[p]=max(post[p],ready[p,j]); st=max(post[p],up[p],down[q]); d=st+link
        up[p]=down[q]=d; ex[p]=max(ex[p],d); ap=max(d,a[q])+app
        ready[q,j]=max(ready[q,j],ap); ex[q]=max(ex[q],ap)
    return ex
P=8; o=[0,3.5,0.5,7,1,0,2.5,4]; d=1.5
q=[int(x/d+0.5) for x in o]; print('q',q)
F0=flow(P,1,sched(P,1,0,[0]*P),[0]*P,1,0.5); F=flow(P,1,sched(P,1,0,q),o,1,0.5)
t0=4.5; lam=t0/max(F0); print('F0',F0,'lam',lam)
F0=flow(P,1,sched(P,1,0,[0]*P),[0]*P,lam,0.5*lam); F=flow(P,1,sched(P,1,0,q),o,lam,0.5*lam)
es0=sum(F0)/P; es=sum(f-x for f,x in zip(F,o))/P
print('F',F,'e',t0+es-es0)
