"""pr.py TRACE ROW: per-rank mean/median elapsed of auto minus ROW (same iterations), and ē of each."""
import csv, collections, sys, statistics as st
path, row = sys.argv[1], sys.argv[2]
el = collections.defaultdict(dict)
for r in csv.DictReader(open(path)):
    el[(r['algorithm'], int(r['iteration']))][int(r['rank'])] = float(r['finish_ms']) - float(r['arrive_ms'])
its = sorted(i for (a, i) in el if a == 'auto' and (row, i) in el)
P = len(el[('auto', its[0])])
e = {a: [st.mean(el[(a, i)].values()) for i in its] for a in ('auto', row)}
print("%s: n=%d  ē auto mean %.2f median %.2f | %s mean %.2f median %.2f | gap mean %+.2f median %+.2f" % (path.split('/')[-1], len(its),
      st.mean(e['auto']), st.median(e['auto']), row, st.mean(e[row]), st.median(e[row]),
      st.mean(e['auto']) - st.mean(e[row]), st.median([x - y for x, y in zip(e['auto'], e[row])])))
print("  per rank median gap:", " ".join("%+.2f" % st.median(el[('auto', i)][k] - el[(row, i)][k] for i in its) for k in range(P)))
