#!/usr/bin/python3
import csv, collections, statistics as st, sys
rows=['native','basic_linear','linear_sync','binomial','sorted_linear_sync','sorted_binomial','background_sorted_linear_sync','background_sorted_binomial','auto','auto_classic']
f=sys.argv[1]
for c in ('32768','262144'):
   for d in ('50','200'):
    it=collections.defaultdict(dict)
    for r in csv.DictReader(open(f)):
        if r['count']!=c or r['mode']!='rand-late' or r['max_delay_ms']!=d: continue
        it[(r['algorithm'],int(r['iteration']))][int(r['rank'])]=float(r['finish_ms'])-float(r['arrive_ms'])
    first=[];other=[]
    for i in range(20):
        e={a:st.mean(it[(a,i)].values()) for a in rows}
        ref=st.median([e[a] for a in rows[4:9]])
        fr=rows[(i+3)%10]
        for a in rows[4:9]:
            (first if a==fr else other).append(e[a]-ref)
    print(c,d,'first-in-iteration excess %.2f ms (n=%d), otherwise %.2f'%(st.mean(first),len(first),st.mean(other)))
