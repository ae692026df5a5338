#!/usr/bin/python3
# first-row excess from a papc-bench trace: the first row of each iteration read from the trace order
import csv, collections, statistics as st, sys
classic={'native','binomial','basic_linear','linear_sync','auto_classic','linear_nb','ring','rabenseifner','segmented_ring','recursive_doubling'}
for f in sys.argv[1:]:
  R=list(csv.DictReader(open(f)))
  for key in sorted({(r['count'],r['mode'],r['max_delay_ms']) for r in R}, key=lambda k:(int(k[0]),k[1],int(k[2]))):
    it=collections.defaultdict(dict); first={}
    for r in R:
        if (r['count'],r['mode'],r['max_delay_ms'])!=key: continue
        i=int(r['iteration']); first.setdefault(i,r['algorithm'])
        it[(r['algorithm'],i)][int(r['rank'])]=float(r['finish_ms'])-float(r['arrive_ms'])
    algs=sorted({a for (a,_) in it}); pred=[a for a in algs if a not in classic]
    F=collections.defaultdict(list);O=collections.defaultdict(list)
    for i in sorted(first):
        e={a:st.mean(it[(a,i)].values()) for a in algs}
        ref=st.median([e[a] for a in pred])
        for a in algs: (F if first[i]==a else O)[a].append(e[a]-ref)
    pf=[x for a in pred for x in F[a]]; po=[x for a in pred for x in O[a]]
    cf=[x for a in algs if a in classic for x in F[a]]; co=[x for a in algs if a in classic for x in O[a]]
    print(f.split('/')[-1], *key, 'pred rows first %.1f (n=%d) other %.1f | classic first %s other %s'%(st.mean(pf),len(pf),st.mean(po), '%.1f'%st.mean(cf) if cf else '-', '%.1f'%st.mean(co) if co else '-'))
