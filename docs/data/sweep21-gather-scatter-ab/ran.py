import csv,sys,collections,statistics as st
rows=list(csv.DictReader(open(sys.argv[1])))
best=sys.argv[2] if len(sys.argv)>2 else None
e=collections.defaultdict(lambda: collections.defaultdict(list)); ran={}
for r in rows:
    k=(r['mode'],r['max_delay_ms'])
    e[k+(r['algorithm'],)][int(r['iteration'])].append(float(r['finish_ms'])-float(r['arrive_ms']))
    if r['algorithm']=='auto': ran[k+(int(r['iteration']),)]=r['ran'].replace('background_sorted_','B').replace('sorted_','S')+('W' if r['watched']=='1' else '.')
m={a:{i:st.mean(v) for i,v in d.items()} for a,d in e.items()}
for k in sorted(set(a[:2] for a in m)):
    algs=[a for a in m if a[:2]==k and a[2] not in('auto','auto_classic','native')]
    b=min(algs,key=lambda a: st.mean(m[a].values()))
    au=m[k+('auto',)]
    print(k,'best',b[2],'%.2f'%st.mean(m[b].values()),'auto %.2f ratio %.3f'%(st.mean(au.values()),st.mean(au.values())/st.mean(m[b].values())))
    print('   ',' '.join('%s:%.2f'%(ran[k+(i,)],au[i]/m[b][i]) for i in sorted(au)))
