#!/usr/bin/env python3
"""Markdown tables of papc-bench CSVs for docs/scale.md (issue 16).

  sim/papers_table.py CSV --algs A,B,C --base A --vs C [--metric r|e]
                      [--labels L1,L2,..] [--paper "size:ratio,ratio,..."]...

One table per size: per max delay the mean (sd) of the metric for every
algorithm in --algs, then base / vs (the papers' speedup) and vs - base
(their difference, ms).  --paper adds the paper's speedups per delay, in
the order of the CSV's delays, for the size given in K floats
(e.g. "2048:1.23,0.69,...")."""
import argparse
import csv
import sys
from collections import defaultdict


def load(path):
    with open(path) as f:
        rows = [r for r in csv.DictReader(l for l in f if not l.startswith('#'))]
    if not rows:
        raise SystemExit(f"{path}: no rows")
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('csv')
    ap.add_argument('--algs', required=True)
    ap.add_argument('--base', required=True)
    ap.add_argument('--vs', required=True)
    ap.add_argument('--metric', default='r', choices=['r', 'e'])
    ap.add_argument('--paper', action='append', default=[])
    ap.add_argument('--each', action='store_true',
                    help='every algorithm as "mean (base / it)", no difference column')
    ap.add_argument('--labels', help='short names for --algs, same order')
    a = ap.parse_args()
    algs = a.algs.split(',')
    labels = dict(zip(algs, a.labels.split(','))) if a.labels else {x: x for x in algs}
    rows = load(a.csv)
    paper = {}
    for p in a.paper:
        size, vals = p.split(':')
        paper[int(size)] = vals.split(',')
    cell = defaultdict(dict)
    for r in rows:
        P = int(r['P'])
        total = int(r['count']) * (P if r['coll'] in ('gather', 'scatter') else 1)
        kf = round(total / 1024)
        cell[(kf, int(r['max_delay_ms']))][r['algorithm']] = (
            float(r[f'{a.metric}_mean_ms']), float(r[f'{a.metric}_std_ms']))
    for kf in sorted({k for k, _ in cell}):
        delays = sorted(d for k, d in cell if k == kf)
        if a.each:
            head = ['max delay ms'] + [f'{labels[x]} {a.metric} ms ({labels[a.base]} / it)' for x in algs]
        else:
            head = ['max delay ms'] + [f'{labels[x]} {a.metric} ms (sd)' for x in algs] + \
                   [f'{labels[a.base]} / {labels[a.vs]}', f'{labels[a.vs]} − {labels[a.base]} ms']
        if kf in paper:
            head.append('paper: speedup')
        print(f'\n*{kf} Ki floats, P = {rows[0]["P"]}:*\n')
        print('| ' + ' | '.join(head) + ' |')
        print('|' + '---:|' * len(head))
        for i, d in enumerate(delays):
            c = cell[(kf, d)]
            missing = [x for x in algs if x not in c]
            if missing:
                sys.exit(f'{a.csv}: no {missing} at {kf} Ki, {d} ms')
            b, v = c[a.base][0], c[a.vs][0]
            if a.each:
                line = [str(d)] + [f'{c[x][0]:.1f} ({b / c[x][0]:.2f})' for x in algs]
            else:
                line = [str(d)] + [f'{c[x][0]:.1f} ({c[x][1]:.1f})' for x in algs]
                line += [f'{b / v:.2f}', f'{v - b:+.1f}']
            if kf in paper:
                line.append(paper[kf][i] if i < len(paper[kf]) else '')
            print('| ' + ' | '.join(line) + ' |')


if __name__ == '__main__':
    main()
