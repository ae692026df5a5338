#!/usr/bin/python3
"""The Python binding's cost per call against mpi4py's, on 8-byte messages
(where the call's own work is the smallest).  Run it under mpirun:

    mpirun -n 2 /usr/bin/python3 scripts/binding-overhead.py [iterations]

Prints µs per call, medians of 5 timed loops, on rank 0: wall time and the
process's CPU time (the latter is what the binding adds, and it holds still
when other programs share the cores; at P = 1 the two agree on a quiet
machine)."""
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from mpi4py import MPI  # noqa: E402
import papcoll  # noqa: E402


def per_call_us(fn, n, comm):
    for _ in range(max(n // 20, 10)):
        fn()
    wall, cpu = [], []
    for _ in range(5):
        comm.Barrier()
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(n):
            fn()
        wall.append((time.perf_counter() - t0) / n * 1e6)
        cpu.append((time.process_time() - c0) / n * 1e6)
    return statistics.median(wall), statistics.median(cpu)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    comm = MPI.COMM_WORLD
    a = np.ones(1, dtype=np.float64)
    b = np.empty_like(a)
    rows = [
        ("mpi4py Allreduce", lambda: comm.Allreduce(a, b, op=MPI.SUM)),
        ("papcoll.allreduce", lambda: papcoll.allreduce(a, b, comm=comm)),
        ("papcoll.allreduce ring",
         lambda: papcoll.allreduce(a, b, comm=comm, algorithm="ring")),
        ("mpi4py Bcast", lambda: comm.Bcast(a, root=0)),
        ("papcoll.bcast", lambda: papcoll.bcast(a, root=0, comm=comm)),
    ]
    times = [(name, per_call_us(fn, n, comm)) for name, fn in rows]
    if comm.rank == 0:
        print(f"P = {comm.size}, {n} calls per loop, median of 5 loops")
        print(f"{'':26s} {'wall µs':>9s} {'CPU µs':>9s}")
        for name, (wall, cpu) in times:
            print(f"{name:26s} {wall:9.2f} {cpu:9.2f}")


if __name__ == "__main__":
    main()
