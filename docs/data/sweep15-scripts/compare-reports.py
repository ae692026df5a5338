#!/usr/bin/python3
"""Side by side: auto/best of two papc-report arrival-select reports, per setting.
usage: compare-reports.py A.txt B.txt"""
import sys
def rows(path):
    out = {}
    for line in open(path):
        c = [x.strip() for x in line.strip().strip('|').split('|')]
        if len(c) == 12 and c[0] in ('gather', 'scatter', 'reduce', 'allreduce') and c[3].isdigit():
            out[tuple(c[:4])] = (c[4], float(c[5]), float(c[6]), float(c[7]), c[10])
    return out
a, b = rows(sys.argv[1]), rows(sys.argv[2])
na = nb = 0
print('| coll | size | mode | delay | A best | A auto/best | B best | B auto/best | B auto ran |')
print('|---|---:|---|---:|---|---:|---|---:|---|')
for k in a:
    if k not in b: continue
    x, y = a[k], b[k]
    na += x[3] <= 1.05; nb += y[3] <= 1.05
    print('| %s | %s | %s | %s | %s %.3g | %.3f | %s %.3g | %.3f | %s |' % (*k, x[0], x[1], x[3], y[0], y[1], y[3], y[4]))
print('within 5 %%: A %d, B %d of %d' % (na, nb, len([k for k in a if k in b])))
