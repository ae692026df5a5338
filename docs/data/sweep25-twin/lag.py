import csv,collections,sys
E=collections.defaultdict(dict); ran=collections.defaultdict(dict)
for r in csv.DictReader(open(sys.argv[1])):
    k=(r['count'],r['mode'],int(r['max_delay_ms']))
    a=r['algorithm']; i=int(r['iteration'])
    E[(k,a)].setdefault(i,[]).append(float(r['finish_ms'])-float(r['arrive_ms']))
    if a=='auto': ran[k][i]=r['ran']
skip=int(sys.argv[2]) if len(sys.argv)>2 else 6
for k in sorted(ran):
    rows=[a for (kk,a) in E if kk==k and a not in ('auto','native','auto_classic')]
    def m(a,lo=0):
        v=[sum(x)/len(x) for i,x in E[(k,a)].items() if i>=lo]; return sum(v)/len(v)
    best=min(rows,key=lambda a:m(a)); bestl=min(rows,key=lambda a:m(a,skip))
    seq=''.join('*' if ran[k][i]!=ran[k][23] else '.' for i in range(24))
    print(k, 'all %.3f (%s)  from it%d %.3f (%s)  %s'%(m('auto')/m(best),best[:12],skip,m('auto',skip)/m(bestl,skip),bestl[:12],seq))
