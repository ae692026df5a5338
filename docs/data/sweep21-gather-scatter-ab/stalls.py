#!/usr/bin/python3
"""Line up slow iterations (papc-bench --timeline) with the testbed's counters
(testbed/run --sample DIR): per iteration its run time, then the TCP timeouts,
retransmissions and qdisc drops whose sample falls inside it."""
import csv, sys, glob, collections, statistics
tl, sdir = sys.argv[1], sys.argv[2]
its = list(csv.DictReader(open(tl)))
ev = []  # (t, host, name, delta)
for f in glob.glob(sdir + "/host-*.counters.csv"):
    h = f.split("host-")[1].split(".")[0]
    for r in csv.DictReader(open(f)):
        if r["name"] in ("TCPTimeouts", "RetransSegs", "TCPLostRetransmit", "TCPFastRetrans", "TCPSpuriousRTOs", "TCPLossProbes"):
            ev.append((float(r["t"]), "h" + h, r["name"], int(r["delta"])))
drops = []
last = {}
for r in csv.DictReader(open(sdir + "/switch.queues.csv")):
    if r["dev"].startswith("psi"): continue
    d = int(r["dropped"]); k = r["dev"]
    if k in last and d > last[k]: drops.append((float(r["t"]), k, d - last[k]))
    last[k] = d
by = collections.defaultdict(list)
for r in its:
    by[r["algorithm"]].append(r)
for alg, rows in by.items():
    rt = [float(r["last_finish_s"]) - float(r["first_arrival_s"]) for r in rows]
    med = statistics.median(rt)
    print(f"{alg}: median r {med*1e3:.1f} ms, mean {statistics.mean(rt)*1e3:.1f}, max {max(rt)*1e3:.1f}")
    for r, x in zip(rows, rt):
        a, b = float(r["first_arrival_s"]), float(r["last_finish_s"])
        e = [f"{h}:{n}+{d}" for t, h, n, d in ev if a <= t <= b + 0.05]
        dr = [f"{k}:drop+{d}" for t, k, d in drops if a <= t <= b + 0.05]
        flag = " <== slow" if x > 1.5 * med else ""
        if flag or dr or any("Timeouts" in s or "Retrans" in s for s in e):
            print(f"  it {r['iteration']:>3} r {x*1e3:7.1f}{flag}  {' '.join(sorted(set(e)))} {' '.join(dr)}")
