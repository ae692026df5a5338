#!/usr/bin/env python3
"""Independent check of the scatter linear rows' fair-share model
(src/model/arrival_model.c, scatter_linear): an event simulation of one
link shared equally by the messages in flight, each with its remaining
work, for the unit test's hand cases (alpha = 0, a block costs 1 ms,
lambda = 1, t0 = the structure's balanced run time P - 1).
Usage: sim-scatter-linear.py   (prints ē per case, ms)"""

def share(act, s):
    """Completion of equal messages of s seconds starting at act[i]."""
    rem = {i: s for i in range(len(act))}
    done, t, fly = {}, min(act), set()
    while len(done) < len(act):
        for i in rem:
            if i not in done and i not in fly and act[i] <= t + 1e-15:
                fly.add(i)
        if not fly:
            t = min(act[i] for i in rem if i not in done and i not in fly)
            continue
        k = len(fly)
        nxt = [act[i] for i in rem if i not in done and i not in fly]
        t_arr = min(nxt) if nxt else float('inf')
        t_dep = t + min(rem[i] for i in fly) * k
        t_new = min(t_arr, t_dep)
        for i in fly:
            rem[i] -= (t_new - t) / k
        t = t_new
        for i in list(fly):
            if rem[i] <= 1e-12:
                done[i] = t
                fly.discard(i)
    return [done[i] for i in range(len(act))]

def exits(o, how, root=0, c=1.0, h=0.0):
    P = len(o)
    recv = [r for r in range(P) if r != root]
    act, a = [], o[root]
    for n, r in enumerate(recv):
        if how == 'blocking':
            a = max(a + h if n else a, o[r])
        elif how == 'posted':
            a = max(o[root], o[r])
        act.append(a)
    done = share(act, c)
    F = [0.0] * P
    for r, d in zip(recv, done):
        F[r] = max(o[r], d)
    F[root] = o[root] + len(recv) * h if how == 'pushed' else max(act) + h
    return F

def ebar(o, how):
    P = len(o)
    t0 = P - 1.0
    F, F0 = exits(o, how), exits([0.0] * P, how)
    return t0 + sum(f - x for f, x in zip(F, o)) / P - sum(F0) / P

P4A = [0, 10, 0, 0]
P8 = [0, 3.5, 0.5, 7, 1, 0, 2.5, 4]
for name, o in (('P4A', P4A), ('P8', P8)):
    for how, rows in (('blocking', 'basic_linear'),
                      ('posted', 'linear_nb, sorted_linear, BSLN bg=0'),
                      ('pushed', 'BSLN bg=1, eager rows')):
        print('%-4s %-9s %-38s ē = %.9g ms' % (name, how, rows, ebar(o, how)))
