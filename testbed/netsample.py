#!/usr/bin/python3
"""Sample one emulated host's TCP state, or the switch's queues, until killed.

testbed/run --sample DIR starts one of these in every host's namespace and one
in the switch's. Every line carries CLOCK_MONOTONIC seconds, the clock that
papc-bench --timeline writes, so a slow iteration can be lined up with what
the links and the TCP stacks did meanwhile.

  netsample.py host OUT_PREFIX PERIOD_MS   OUT_PREFIX.counters.csv: t,name,delta
                                           (each TCP counter that moved since
                                           the last sample), OUT_PREFIX.ss.txt:
                                           `ss -tinm` every 4th sample,
                                           OUT_PREFIX.sched.csv: t,pid,tid,
                                           state,cpu_ns,wait_ns,slices (every
                                           thread of this host's MPI ranks:
                                           /proc/PID/task/TID/schedstat, time
                                           run, time waited runnable)
  netsample.py switch OUT_PREFIX PERIOD_MS OUT_PREFIX.queues.csv: t,dev,sent_B,sent_pkt,
                                           dropped,overlimits,backlog_B,
                                           backlog_pkt (every tbf, every
                                           sample) and the machine's CPU
                                           pressure (dev "psi_cpu_some_us")
"""
import os
import re
import signal
import subprocess
import sys
import time


def tcp_counters():
    """All Tcp and TcpExt counters of this namespace as {name: value}."""
    out = {}
    for path in ("/proc/net/snmp", "/proc/net/netstat"):
        with open(path) as f:
            lines = f.read().splitlines()
        for head, vals in zip(lines[::2], lines[1::2]):
            names, values = head.split(), vals.split()
            if names[0] not in ("Tcp:", "TcpExt:"):
                continue
            for n, v in zip(names[1:], values[1:]):
                out[n] = int(v)
    return out


TBF = re.compile(r"qdisc tbf \S+ dev (\S+) .*?Sent (\d+) bytes (\d+) pkt "
                 r"\(dropped (\d+), overlimits (\d+) requeues \d+\)\s*"
                 r"backlog (\d+)b (\d+)p", re.S)


def cpu_pressure_us():
    try:
        with open("/proc/pressure/cpu") as f:
            return int(f.readline().rsplit("total=", 1)[1])
    except (OSError, IndexError, ValueError):
        return -1


def my_ranks():
    """Pids of this namespace's MPI ranks: processes in our network
    namespace started by mpirun/orted (OMPI_COMM_WORLD_RANK set)."""
    me = os.readlink("/proc/self/ns/net")
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            if os.readlink("/proc/%s/ns/net" % d) != me:
                continue
            with open("/proc/%s/environ" % d, "rb") as f:
                if b"OMPI_COMM_WORLD_RANK=" in f.read():
                    pids.append(d)
        except OSError:
            continue
    return pids


def sched_sample(pids, t, out):
    for pid in pids:
        try:
            tids = os.listdir("/proc/%s/task" % pid)
        except OSError:
            continue
        for tid in tids:
            base = "/proc/%s/task/%s/" % (pid, tid)
            try:
                with open(base + "schedstat") as f:
                    run, wait, slices = f.read().split()
                with open(base + "stat") as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
            except (OSError, ValueError):
                continue
            out.write("%.6f,%s,%s,%s,%s,%s,%s\n"
                      % (t, pid, tid, state, run, wait, slices))


def run_host(prefix, period):
    last = tcp_counters()
    n = 0
    pids = []
    with open(prefix + ".counters.csv", "w") as cf, \
            open(prefix + ".ss.txt", "w") as sf, \
            open(prefix + ".sched.csv", "w") as pf:
        cf.write("t,name,delta\n")
        pf.write("t,pid,tid,state,cpu_ns,wait_ns,slices\n")
        while True:
            time.sleep(period)
            t = time.monotonic()
            now = tcp_counters()
            for k, v in now.items():
                d = v - last.get(k, 0)
                if d and k not in ("CurrEstab",):
                    cf.write("%.6f,%s,%d\n" % (t, k, d))
            last = now
            cf.flush()
            if n % 20 == 0 or not pids:
                pids = my_ranks()
            sched_sample(pids, t, pf)
            pf.flush()
            n += 1
            if n % 4 == 0:
                ss = subprocess.run(["ss", "-tinmH"], capture_output=True,
                                    text=True).stdout
                sf.write("@ %.6f\n%s" % (t, ss))
                sf.flush()


def run_switch(prefix, period):
    with open(prefix + ".queues.csv", "w") as qf:
        qf.write("t,dev,sent_B,sent_pkt,dropped,overlimits,backlog_B,"
                 "backlog_pkt\n")
        while True:
            time.sleep(period)
            t = time.monotonic()
            tc = subprocess.run(["tc", "-s", "qdisc", "show"],
                                capture_output=True, text=True).stdout
            for m in TBF.finditer(tc):
                qf.write("%.6f,%s\n" % (t, ",".join(m.groups())))
            qf.write("%.6f,psi_cpu_some_us,%d,0,0,0,0,0\n"
                     % (t, cpu_pressure_us()))
            qf.flush()


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("host", "switch"):
        sys.exit(__doc__)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    period = float(sys.argv[3]) / 1e3
    (run_host if sys.argv[1] == "host" else run_switch)(sys.argv[2], period)


if __name__ == "__main__":
    main()
