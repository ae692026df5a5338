#!/usr/bin/env python3
"""A small distributed computation on mpi4py + numpy that calls every
collective the drop-in layer serves (Bcast, Scatter, Gather, Scatterv,
Gatherv, Reduce, Allreduce) on numpy buffers, and checks each result
exactly against what it must be: integer data, and doubles holding
integers small enough that every sum is exact whatever the reduction order.

The computation: rank 0 makes a vector x (n elements) and a parameter
block; it broadcasts the parameters, scatters x unevenly (Scatterv: rank r
gets a share that grows with r), every rank computes y = a*x + b on its
share, a histogram of y mod 16 and partial sums; the histograms are
reduced to rank 0 (Reduce), the sums and maxima all-reduced (Allreduce,
also in place), y gathered back (Gatherv) and a per-rank summary gathered
(Gather) after an even Scatter of per-rank seeds.  Run with a few message
sizes so that small (eager) and large (segmented, rendezvous) paths run.

Prints "mpi4py_app: PASSED (P=...)" on rank 0 when every check holds;
exits 1 (all ranks) otherwise."""
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
failures = []


def check(name, got, want):
    if not np.array_equal(got, want):
        failures.append(f"rank {rank}: {name}: got {got!r:.200} want {want!r:.200}")


def run(n, root):
    # Bcast: parameters a, b (int64) and a double block.
    params = np.zeros(2, dtype=np.int64)
    dparams = np.zeros(1000, dtype=np.float64)
    if rank == root:
        params[:] = (3, 7)
        dparams[:] = np.arange(1000, dtype=np.float64) * 0.5
    comm.Bcast(params, root=root)
    comm.Bcast(dparams, root=root)
    check("bcast int64", params, np.array([3, 7], dtype=np.int64))
    check("bcast float64", dparams, np.arange(1000, dtype=np.float64) * 0.5)
    a, b = int(params[0]), int(params[1])

    # Scatter: one seed per rank, evenly.
    seeds = np.arange(size, dtype=np.int32) * 11 + 5 if rank == root else None
    myseed = np.zeros(1, dtype=np.int32)
    comm.Scatter(seeds, myseed, root=root)
    check("scatter", myseed, np.array([rank * 11 + 5], dtype=np.int32))

    # Scatterv: uneven shares of x (rank r gets a share ~ r + 1).
    weights = np.arange(1, size + 1)
    counts = (n * weights) // weights.sum()
    counts[-1] += n - counts.sum()
    displs = np.concatenate(([0], np.cumsum(counts)[:-1]))
    x = np.arange(n, dtype=np.int64) if rank == root else None
    mine = np.zeros(counts[rank], dtype=np.int64)
    comm.Scatterv([x, counts, displs, MPI.INT64_T] if rank == root else None,
                  mine, root=root)
    lo = displs[rank]
    check("scatterv", mine, np.arange(lo, lo + counts[rank], dtype=np.int64))

    y = a * mine + b
    # Reduce: histogram of y mod 16 (int64, sum) to the root.
    hist = np.bincount(y % 16, minlength=16).astype(np.int64)
    total_hist = np.zeros(16, dtype=np.int64) if rank == root else None
    comm.Reduce(hist, total_hist, op=MPI.SUM, root=root)
    yall = a * np.arange(n, dtype=np.int64) + b
    if rank == root:
        check("reduce hist", total_hist,
              np.bincount(yall % 16, minlength=16).astype(np.int64))
    # Reduce MAX on doubles.
    dmax = np.array([float(y.max()) if y.size else -1.0, float(rank)])
    gmax = np.zeros(2) if rank == root else None
    comm.Reduce(dmax, gmax, op=MPI.MAX, root=root)
    if rank == root:
        check("reduce max", gmax, np.array([float(yall.max()), size - 1.0]))

    # Allreduce: sums as doubles of integers (exact below 2**53), a long
    # vector so that segmented and ring algorithms cut it, and in place.
    part = np.zeros(max(n // 4, 1), dtype=np.float64)
    k = part.size
    part[:] = np.arange(k, dtype=np.float64) * (rank + 1)
    tot = np.empty_like(part)
    comm.Allreduce(part, tot, op=MPI.SUM)
    check("allreduce sum f64", tot,
          np.arange(k, dtype=np.float64) * (size * (size + 1) // 2))
    s = np.array([y.sum(), counts[rank]], dtype=np.int64)
    comm.Allreduce(MPI.IN_PLACE, s, op=MPI.SUM)
    check("allreduce in place", s, np.array([yall.sum(), n], dtype=np.int64))
    mn = np.array([rank, -rank], dtype=np.int32)
    comm.Allreduce(MPI.IN_PLACE, mn, op=MPI.MIN)
    check("allreduce min", mn, np.array([0, -(size - 1)], dtype=np.int32))

    # Gatherv: y back to the root, uneven.
    yback = np.zeros(n, dtype=np.int64) if rank == root else None
    comm.Gatherv(y, [yback, counts, displs, MPI.INT64_T] if rank == root
                 else None, root=root)
    if rank == root:
        check("gatherv", yback, yall)
    # Gather: one summary row per rank.
    row = np.array([rank, myseed[0], counts[rank]], dtype=np.int64)
    rows = np.zeros((size, 3), dtype=np.int64) if rank == root else None
    comm.Gather(row, rows, root=root)
    if rank == root:
        want = np.stack([np.arange(size), np.arange(size) * 11 + 5, counts],
                        axis=1).astype(np.int64)
        check("gather", rows, want)


for n in (10, 1000, 200000):
    for root in sorted({0, size - 1}):
        run(n, root)

bad = comm.allreduce(len(failures), op=MPI.SUM)  # pickled: not the layer's
for f in failures[:5]:
    print(f, file=sys.stderr)
if rank == 0:
    print(f"mpi4py_app: {'PASSED' if bad == 0 else 'FAILED'} (P={size}, "
          f"{bad} failed checks)")
sys.exit(0 if bad == 0 else 1)
