#!/usr/bin/python3
import csv, collections, statistics as st, sys
f, count, mode, d = sys.argv[1:5]
it=collections.defaultdict(dict); ran={}; order=collections.defaultdict(list)
for r in csv.DictReader(open(f)):
    if (r['count'],r['mode'],r['max_delay_ms'])!=(count,mode,d): continue
    i=int(r['iteration']); a=r['algorithm']
    if a not in order[i]: order[i].append(a)
    it[(a,i)][int(r['rank'])]=float(r['finish_ms'])-float(r['arrive_ms'])
    if a=='auto' and r['ran']: ran[i]=r['ran']
pos=collections.defaultdict(list)
for i in sorted(order):
    ea=st.mean(it[('auto',i)].values()); row=ran.get(i,'?')
    er=st.mean(it[(row,i)].values()) if (row,i) in it else float('nan')
    p=order[i].index('auto'); pr=order[i].index(row) if row in order[i] else -1
    pos[p].append(ea-er)
    if abs(ea-er)>4: print(i,row,'auto pos',p,'row pos',pr,'%+.2f'%(ea-er), 'prev row:',order[i][p-1] if p>0 else '-')
print({k:'%.2f(n=%d)'%(st.mean(v),len(v)) for k,v in sorted(pos.items())})
