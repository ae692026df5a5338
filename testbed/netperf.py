#!/usr/bin/env python3
"""testbed/netperf.py — measure the emulated cluster's links with plain TCP.

Run inside the cluster, without MPI:

    testbed/run -n 2 --no-mpirun -- python3 testbed/netperf.py pingpong
    testbed/run -n 2 --no-mpirun -- python3 testbed/netperf.py stream
    testbed/run -n 8 --no-mpirun -- python3 testbed/netperf.py incast

pingpong  host 0 <-> host 1: round trips of SIZE bytes (default 1), TCP_NODELAY;
          prints the median and minimum one-way time (RTT / 2)
stream    host 0 -> host 1: BYTES (default 64 MiB) in one connection; rate
incast    hosts 1..N-1 -> host 0 at once, BYTES in total (default 7 MiB, split
          evenly): time from host 0's "go" to the last byte, and the rate
          (the gather case of the papers: the receiver's link is the limit)

The script starts its peers on the other hosts through testbed/agent (it
needs the environment testbed/run sets: TESTBED_PREFIX, TESTBED_SUBNET,
TESTBED_HOSTS). Standard library only.
"""
import argparse
import os
import socket
import statistics
import subprocess
import sys
import time

PORT = 5201


def addr(i):
    return "%s.%d" % (os.environ.get("TESTBED_SUBNET", "10.77.0"), i + 1)


def recv_exact(s, n, buf=None):
    view = memoryview(buf if buf is not None else bytearray(n))
    got = 0
    while got < n:
        k = s.recv_into(view[got:], n - got)
        if k == 0:
            raise ConnectionError("peer closed")
        got += k
    return got


def connect(host, tries=200):
    for _ in range(tries):
        try:
            s = socket.create_connection((host, PORT))
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return s
        except OSError:
            time.sleep(0.02)
    raise SystemExit("netperf: cannot connect to %s:%d" % (host, PORT))


def listener(host):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((host, PORT))
    ls.listen(64)
    return ls


def start_on(host_index, *args):
    """Start this script with ARGS on host HOST_INDEX through testbed/agent."""
    here = os.path.dirname(os.path.abspath(__file__))
    cmd = " ".join([sys.executable, os.path.abspath(__file__)] + list(args))
    return subprocess.Popen([os.path.join(here, "agent"), addr(host_index), cmd])


# --- peers (run on the other hosts) -------------------------------------------

def serve_echo(a):
    ls = listener(addr(1))
    s, _ = ls.accept()
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buf = bytearray(a.size)
    try:
        while True:
            recv_exact(s, a.size, buf)
            s.sendall(buf)
    except ConnectionError:
        pass


def serve_sink(a):
    ls = listener(addr(1))
    s, _ = ls.accept()
    buf = bytearray(1 << 20)
    total = 0
    while total < a.bytes:
        k = s.recv_into(buf)
        if k == 0:
            break
        total += k
    s.sendall(b"k")


def incast_sender(a):
    s = connect(addr(0))
    data = bytes(a.bytes)
    buf = bytearray(1)
    while True:
        recv_exact(s, 1, buf)     # "g": send once more; "e": the end
        if buf[0] != ord("g"):
            break
        s.sendall(data)


# --- drivers (run on host 0) --------------------------------------------------

def pingpong(a):
    peer = start_on(1, "serve-echo", "--size", str(a.size))
    s = connect(addr(1))
    buf = bytearray(a.size)
    msg = bytes(a.size)
    for _ in range(100):                                   # warm-up
        s.sendall(msg)
        recv_exact(s, a.size, buf)
    rtt = []
    for _ in range(a.iterations):
        t0 = time.perf_counter()
        s.sendall(msg)
        recv_exact(s, a.size, buf)
        rtt.append(time.perf_counter() - t0)
    s.close()
    peer.wait()
    half = sorted(x / 2 * 1e6 for x in rtt)
    print("pingpong %d B, %d round trips: one-way median %.1f us, min %.1f us, "
          "p90 %.1f us" % (a.size, a.iterations, statistics.median(half), half[0],
                           half[int(0.9 * len(half))]))


def stream(a):
    peer = start_on(1, "serve-sink", "--bytes", str(a.bytes))
    s = connect(addr(1))
    data = bytes(1 << 20)
    t0 = time.perf_counter()
    left = a.bytes
    while left > 0:
        n = min(left, len(data))
        s.sendall(data[:n])
        left -= n
    recv_exact(s, 1)
    dt = time.perf_counter() - t0
    peer.wait()
    print("stream %d B host 0 -> host 1: %.1f ms, %.1f Mbit/s"
          % (a.bytes, dt * 1e3, a.bytes * 8 / dt / 1e6))


def incast(a):
    n = int(os.environ.get("TESTBED_HOSTS", "8"))
    if n < 2:
        raise SystemExit("netperf incast: needs at least 2 hosts")
    per = a.bytes // (n - 1)
    ls = listener(addr(0))
    results = []
    peers = [start_on(i, "incast-sender", "--bytes", str(per)) for i in range(1, n)]
    conns = []
    for _ in range(n - 1):
        c, _ = ls.accept()
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        c.setblocking(False)
        conns.append(c)
    import selectors
    buf = bytearray(1 << 20)
    for rep in range(a.repetitions):
        sel = selectors.DefaultSelector()
        left = {}
        for c in conns:
            sel.register(c, selectors.EVENT_READ)
            left[c] = per
        time.sleep(0.05)                          # quiet links between repetitions
        t0 = time.perf_counter()
        for c in conns:
            c.send(b"g")
        while left:
            for key, _ in sel.select():
                c = key.fileobj
                try:
                    k = c.recv_into(buf, min(len(buf), left[c]))
                except BlockingIOError:
                    continue
                left[c] -= k
                if left[c] == 0:
                    del left[c]
                    sel.unregister(c)
        results.append(time.perf_counter() - t0)
        sel.close()
    for c in conns:
        c.setblocking(True)
        c.sendall(b"e")
    for p in peers:
        p.wait()
    ms = sorted(x * 1e3 for x in results)
    total = per * (n - 1)
    print("incast %d B from %d hosts (%d B each) into host 0, %d repetitions: "
          "median %.1f ms (%.1f Mbit/s), min %.1f ms, max %.1f ms"
          % (total, n - 1, per, len(ms), statistics.median(ms),
             total * 8 / statistics.median(ms) / 1e3, ms[0], ms[-1]))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("what", choices=["pingpong", "stream", "incast", "serve-echo",
                                    "serve-sink", "incast-sender"])
    p.add_argument("--size", type=int, default=1, help="pingpong message bytes")
    p.add_argument("--bytes", type=int, default=None, help="bytes for stream/incast")
    p.add_argument("-i", "--iterations", type=int, default=2000,
                   help="pingpong round trips")
    p.add_argument("-r", "--repetitions", type=int, default=10,
                   help="incast repetitions")
    a = p.parse_args()
    if a.bytes is None:
        a.bytes = 7 << 20 if a.what == "incast" else 64 << 20
    {"pingpong": pingpong, "stream": stream, "incast": incast,
     "serve-echo": serve_echo, "serve-sink": serve_sink,
     "incast-sender": incast_sender}[a.what](a)


if __name__ == "__main__":
    main()
