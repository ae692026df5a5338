#!/usr/bin/env python3
"""The Python binding (python/papcoll/coll.py) under mpiexec, against
mpi4py's own collectives.

    mpiexec -n P python3 tests/python/test_binding.py [PATTERN ...]

(PYTHONPATH=python, PAPCOLL_LIB=build/lib/libpapcoll.so; PATTERNs select
tests by name, as unittest's -k.)  Every rank runs the same tests in the
same order.  A test records its mismatches instead of stopping at the
first, and the ranks agree on the outcome in tearDown, so a failure on
one rank fails the test on every rank instead of leaving the others in a
collective.  Data are small integers (also in the float and complex
types), so every sum and product is exact whatever the reduction order and
results are compared bit for bit.  Error cases raise on every rank alike
(checks that only the root makes run on MPI.COMM_SELF), and the arrays are
compared with copies taken before the call.

Exits 0 on every rank when every test passed on every rank; rank 0 prints
"python binding: PASSED (P=...)".
"""
import array
import io
import os
import subprocess
import sys
import unittest

try:
    import numpy as np
    from mpi4py import MPI
except ImportError as e:  # ctest counts 77 as skipped
    print(f"SKIP: {e} (install python3-numpy python3-mpi4py)")
    sys.exit(77)

import papcoll
from papcoll import Error

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
        np.uint32, np.uint64]
FLOATS = [np.float32, np.float64]
COMPLEX = [np.complex64, np.complex128]
DTYPES = INTS + FLOATS + COMPLEX
SIZES = [0, 1, 7, 3000]  # 3000 doubles: several 8 KiB segments


def values(dtype, n, seed, low=0, high=8):
    """n small integers of dtype (complex: both parts), from a seed that
    differs per rank."""
    rng = np.random.default_rng(seed)
    x = rng.integers(low, high, n)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.integers(low, high, n)
    if np.dtype(dtype).kind == "b":
        x = x % 2
    return x.astype(dtype)


def mine(dtype, n, tag=0, **kw):
    return values(dtype, n, 1000 * tag + 17 * rank + 1, **kw)


def vector_layout(n_per_rank, gaps):
    """counts with some zeros and unequal blocks; displs packed in reverse
    rank order with gaps (or None); the extent of the root's buffer."""
    counts = [0 if r % 3 == 1 else n_per_rank + r for r in range(size)]
    if not gaps:
        return counts, None, sum(counts)
    displs, at = [0] * size, 0
    for r in reversed(range(size)):
        displs[r] = at
        at += counts[r] + 2
    return counts, displs, at


def without_mpi_job(env):
    """env without the launcher's variables: a child started from here
    must not try to join this job (MPI_Init would fail)."""
    return {k: v for k, v in env.items()
            if not k.startswith(("OMPI_", "PMIX_", "OPAL_"))}


class Base(unittest.TestCase):
    """Records mismatches; tearDown makes every rank agree on the outcome."""

    def setUp(self):
        self.problems = []

    def tearDown(self):
        failed = comm.allreduce(len(self.problems) > 0, op=MPI.LOR)
        if failed:
            here = "; ".join(self.problems[:5]) or "(fine here)"
            self.fail(f"rank {rank}: {here}")

    def same(self, got, want, what):
        got, want = np.asarray(got), np.asarray(want)
        if got.dtype != want.dtype or not np.array_equal(got, want):
            bad = "" if got.shape != want.shape else \
                f", first difference at {np.argmax(got.ravel() != want.ravel())}"
            self.problems.append(f"{what}: got {got.dtype}{got.shape} != "
                                 f"want {want.dtype}{want.shape}{bad}")

    def truth(self, cond, what):
        if not cond:
            self.problems.append(what)

    def refused(self, error_class, call, arrays=(), text=None):
        """call() must raise papcoll.Error of error_class (its message
        holding text) and leave every array as it was."""
        before = [np.array(a, copy=True) for a in arrays]
        try:
            call()
        except Error as err:
            if err.error_class != error_class:
                self.problems.append(f"error class {err.error_class}, want "
                                     f"{error_class}: {err}")
            if text and text not in str(err):
                self.problems.append(f"{text!r} not in '{err}'")
            for i, (a, b) in enumerate(zip(arrays, before)):
                self.same(np.asarray(a), b, f"array {i} after '{err}'")
            return err
        self.problems.append(f"no error, want class {error_class}")
        return None


# ---- the seven collectives against mpi4py ------------------------------------

def run_allreduce(dtype, n, op, algorithm=None, tag=0):
    x = mine(dtype, n, tag)
    got, want = np.zeros(n, dtype), np.zeros(n, dtype)
    papcoll.allreduce(x, got, op=op, comm=comm, algorithm=algorithm)
    comm.Allreduce(x, want, op=op)
    return got, want


def run_reduce(dtype, n, op, root, algorithm=None):
    x = mine(dtype, n)
    got = np.zeros(n, dtype) if rank == root else None
    want = np.zeros(n, dtype) if rank == root else None
    papcoll.reduce(x, got, op=op, root=root, comm=comm, algorithm=algorithm)
    comm.Reduce(x, want, op=op, root=root)
    return (got, want) if rank == root else (x, x)


def run_bcast(dtype, n, root, algorithm=None):
    got = mine(dtype, n) if rank == root else np.zeros(n, dtype)
    want = got.copy()
    papcoll.bcast(got, root=root, comm=comm, algorithm=algorithm)
    comm.Bcast(want, root=root)
    return got, want


def run_gather(dtype, n, root, algorithm=None):
    x = mine(dtype, n)
    got = np.zeros((size, n), dtype) if rank == root else None
    want = np.zeros((size, n), dtype) if rank == root else None
    papcoll.gather(x, got, root=root, comm=comm, algorithm=algorithm)
    comm.Gather(x, want, root=root)
    return (got, want) if rank == root else (x, x)


def run_scatter(dtype, n, root, algorithm=None):
    x = values(dtype, size * n, 99) if rank == root else None
    got, want = np.zeros(n, dtype), np.zeros(n, dtype)
    papcoll.scatter(x, got, root=root, comm=comm, algorithm=algorithm)
    comm.Scatter(x, want, root=root)
    return got, want


def run_gatherv(dtype, n, root, gaps, algorithm=None):
    counts, displs, extent = vector_layout(n, gaps)
    x = mine(dtype, counts[rank])
    # the gaps keep a fill value: both calls must leave them alone
    got = np.full(extent, 5, dtype) if rank == root else None
    want = np.full(extent, 5, dtype) if rank == root else None
    papcoll.gatherv(x, got, counts, displs, root=root, comm=comm,
                    algorithm=algorithm)
    spec = [want, (counts, displs)] if displs else [want, counts]
    comm.Gatherv(x, spec if rank == root else None, root=root)
    return (got, want) if rank == root else (x, x)


def run_scatterv(dtype, n, root, gaps, algorithm=None):
    counts, displs, extent = vector_layout(n, gaps)
    x = values(dtype, extent, 77) if rank == root else None
    got, want = np.zeros(counts[rank], dtype), np.zeros(counts[rank], dtype)
    papcoll.scatterv(x, got, counts, displs, root=root, comm=comm,
                     algorithm=algorithm)
    spec = [x, (counts, displs)] if displs else [x, counts]
    comm.Scatterv(spec if rank == root else None, want, root=root)
    return got, want


def ops_for(dtype):
    """(name, op) of the predefined ops MPI defines on dtype."""
    kind = np.dtype(dtype).kind
    names = ["SUM", "PROD"]
    if kind in "iuf":
        names += ["MAX", "MIN"]
    if kind in "iu":
        names += ["BAND", "BOR", "BXOR", "LOR"]
    return [(n, getattr(MPI, n)) for n in names]


def op_values(dtype, n, op, tag):
    """Data for op: PROD over P ranks of values in {1, 2} stays exact."""
    if op == MPI.PROD:
        return values(dtype, n, 1000 * tag + 17 * rank + 1, 1, 3)
    return mine(dtype, n, tag)


def any_root():
    return size - 1


class TestCollectives(Base):
    """Each collective, several dtypes and sizes, against mpi4py."""

    def test_allreduce(self):
        for dtype in DTYPES:
            for name, op in ops_for(dtype):
                for n in (1, 3000):
                    x = op_values(dtype, n, op, 3)
                    got, want = np.zeros(n, dtype), np.zeros(n, dtype)
                    papcoll.allreduce(x, got, op=op, comm=comm)
                    comm.Allreduce(x, want, op=op)
                    self.same(got, want,
                              f"allreduce {dtype.__name__} {name} n={n}")
        for n in SIZES:
            self.same(*run_allreduce(np.float64, n, MPI.SUM),
                      f"allreduce float64 n={n}")

    def test_allreduce_bool_logical(self):
        for op in (MPI.LAND, MPI.LOR, MPI.LXOR):
            x = values(np.bool_, 50, rank + 5)
            got, want = np.zeros(50, np.bool_), np.zeros(50, np.bool_)
            papcoll.allreduce(x, got, op=op, comm=comm)
            comm.Allreduce(x, want, op=op)
            self.same(got, want, "allreduce bool")

    def test_reduce(self):
        for dtype in DTYPES:
            for n in SIZES:
                for op in (MPI.SUM, MPI.MAX) if dtype not in COMPLEX \
                        else (MPI.SUM,):
                    self.same(*run_reduce(dtype, n, op, any_root()),
                              f"reduce {dtype.__name__} n={n}")
        self.same(*run_reduce(np.int32, 10, MPI.SUM, 0), "reduce root 0")

    def test_bcast(self):
        for dtype in DTYPES + [np.bool_]:
            for n in SIZES:
                for root in {0, any_root()}:
                    self.same(*run_bcast(dtype, n, root),
                              f"bcast {dtype.__name__} n={n} root={root}")

    def test_gather(self):
        for dtype in DTYPES:
            for n in SIZES:
                for root in {0, any_root()}:
                    self.same(*run_gather(dtype, n, root),
                              f"gather {dtype.__name__} n={n} root={root}")

    def test_scatter(self):
        for dtype in DTYPES:
            for n in SIZES:
                for root in {0, any_root()}:
                    self.same(*run_scatter(dtype, n, root),
                              f"scatter {dtype.__name__} n={n} root={root}")

    def test_gatherv(self):
        for dtype in (np.int8, np.int64, np.uint32, np.float32, np.float64,
                      np.complex128):
            for n in (1, 4, 1500):
                for gaps in (False, True):
                    for root in {0, any_root()}:
                        self.same(*run_gatherv(dtype, n, root, gaps),
                                  f"gatherv {dtype.__name__} n={n} "
                                  f"gaps={gaps} root={root}")

    def test_scatterv(self):
        for dtype in (np.int8, np.int64, np.uint32, np.float32, np.float64,
                      np.complex128):
            for n in (1, 4, 1500):
                for gaps in (False, True):
                    for root in {0, any_root()}:
                        self.same(*run_scatterv(dtype, n, root, gaps),
                                  f"scatterv {dtype.__name__} n={n} "
                                  f"gaps={gaps} root={root}")

    def test_two_dimensional_and_subcommunicator(self):
        # shapes do not matter, element counts do; a split communicator
        sub = comm.Split(rank % 2, rank)
        x = mine(np.int32, 12).reshape(3, 4)
        got = np.zeros((3, 4), np.int32)
        want = np.zeros((3, 4), np.int32)
        papcoll.allreduce(x, got, comm=sub)
        sub.Allreduce(x, want)
        self.same(got, want, "allreduce 2-D on a split communicator")
        all_blocks = np.zeros((sub.Get_size(), 3, 4), np.int32)
        papcoll.gather(x, all_blocks, root=0, comm=sub)
        want = np.zeros_like(all_blocks)
        sub.Gather(x, want, root=0)
        if sub.Get_rank() == 0:
            self.same(all_blocks, want, "gather 2-D into (P, 3, 4)")
        sub.Free()


class TestAlgorithms(Base):
    """Every algorithm of every collective by name, and every alias."""

    def run_named(self, coll, name, dtype, n):
        root = any_root()
        if coll == "allreduce":
            return run_allreduce(dtype, n, MPI.SUM, name, tag=5)
        if coll == "reduce":
            return run_reduce(dtype, n, MPI.SUM, root, name)
        if coll == "bcast":
            return run_bcast(dtype, n, root, name)
        if coll in ("gather", "scatter"):
            return globals()["run_" + coll](dtype, n, root, name)
        return globals()["run_" + coll](dtype, n, root, True, name)

    def test_every_algorithm(self):
        for coll, names in papcoll.algorithms().items():
            for name in names:
                for dtype, n in ((np.int32, 7), (np.float64, 3000),
                                 (np.uint8, 0)):
                    self.same(*self.run_named(coll, name, dtype, n),
                              f"{coll} {name} {dtype.__name__} n={n}")

    def test_every_alias(self):
        for coll in papcoll.algorithms():
            for info in papcoll.algorithm_info(coll):
                for alias in info.aliases + (info.name.upper(),):
                    self.same(*self.run_named(coll, alias, np.int64, 5),
                              f"{coll} alias {alias}")

    def test_plain_call_names_its_algorithm(self):
        got, want = run_allreduce(np.int32, 100, MPI.SUM)
        self.same(got, want, "plain allreduce")
        last = papcoll.last_algorithm("allreduce")
        if size > 1:
            self.truth(last in papcoll.algorithms("allreduce"),
                       f"last_algorithm('allreduce') = {last!r}")
        # 100 ints are below PAPC_ARRIVAL_MIN_BYTES: never weighed
        self.truth(papcoll.last_watched("allreduce") is False,
                   "last_watched('allreduce') of a 400-byte call")
        self.truth(papcoll.last_pick_reused("allreduce") is False,
                   "last_pick_reused('allreduce') of a 400-byte call")


class TestInPlace(Base):
    """IN_PLACE (papcoll's and mpi4py's object) where MPI allows it."""

    def test_allreduce(self):
        for marker in (papcoll.IN_PLACE, MPI.IN_PLACE):
            for alg in (None, "ring", "recursive_doubling"):
                got = mine(np.int64, 1000)
                want = got.copy()
                papcoll.allreduce(marker, got, comm=comm, algorithm=alg)
                comm.Allreduce(MPI.IN_PLACE, want)
                self.same(got, want, f"allreduce in place {alg}")

    def test_reduce(self):
        root = any_root()
        x = mine(np.float64, 500)
        ref = x.copy()
        if rank == root:
            papcoll.reduce(papcoll.IN_PLACE, x, op=MPI.MAX, root=root,
                           comm=comm)
            comm.Reduce(MPI.IN_PLACE, ref, op=MPI.MAX, root=root)
        else:
            papcoll.reduce(x, None, op=MPI.MAX, root=root, comm=comm)
            comm.Reduce(ref, None, op=MPI.MAX, root=root)
        self.same(x, ref, "reduce in place")

    def test_gather_scatter(self):
        root = any_root()
        n = 9
        got = np.full((size, n), -1, np.int16)
        got[rank] = mine(np.int16, n)
        want = got.copy()
        if rank == root:
            papcoll.gather(papcoll.IN_PLACE, got, root=root, comm=comm)
            comm.Gather(MPI.IN_PLACE, want, root=root)
        else:
            papcoll.gather(got[rank], None, root=root, comm=comm)
            comm.Gather(want[rank], None, root=root)
        self.same(got, want, "gather in place")

        src = values(np.int16, size * n, 4).reshape(size, n)
        if rank == root:
            papcoll.scatter(src, papcoll.IN_PLACE, root=root, comm=comm)
            self.same(src, values(np.int16, size * n, 4).reshape(size, n),
                      "scatter in place leaves the root's sendbuf")
        else:
            got, want = np.zeros(n, np.int16), np.zeros(n, np.int16)
            papcoll.scatter(None, got, root=root, comm=comm)
            comm.Scatter(None, want, root=root)
            self.same(got, src[rank], "scatter in place: a block")
        if rank == root:
            comm.Scatter(src, MPI.IN_PLACE, root=root)

    def test_gatherv_scatterv(self):
        root = 0
        counts, displs, extent = vector_layout(5, gaps=True)
        buf = np.full(extent, 3, np.float32)
        block = mine(np.float32, counts[rank])
        if rank == root:
            buf[displs[root]:displs[root] + counts[root]] = block
        want = buf.copy()
        if rank == root:
            papcoll.gatherv(papcoll.IN_PLACE, buf, counts, displs, root=root,
                            comm=comm)
            comm.Gatherv(MPI.IN_PLACE, [want, (counts, displs)], root=root)
            self.same(buf, want, "gatherv in place")
            papcoll.scatterv(buf, papcoll.IN_PLACE, counts, displs,
                             root=root, comm=comm)
        else:
            papcoll.gatherv(block, None, root=root, comm=comm)
            comm.Gatherv(block, None, root=root)
            got = np.zeros(counts[rank], np.float32)
            papcoll.scatterv(None, got, root=root, comm=comm)
            self.same(got, block, "scatterv in place: a block comes back")


class TestBuffers(Base):
    """Buffer-protocol objects other than numpy arrays."""

    def test_bytearray_and_array(self):
        send = array.array("i", mine(np.int32, 20).tolist())
        got = array.array("i", [0] * 20)
        papcoll.allreduce(send, got, comm=comm)
        want = np.zeros(20, np.int32)
        comm.Allreduce(np.asarray(send), want)
        self.same(np.asarray(got), want, "allreduce array.array('i')")

        b = bytearray(mine(np.uint8, 33).tobytes())
        ref = bytearray(b)
        papcoll.bcast(b, root=0, comm=comm)
        comm.Bcast(ref, root=0)
        self.truth(b == ref, "bcast bytearray")

    def test_memoryview_and_readonly_root(self):
        x = mine(np.float64, 16)
        out = np.zeros((size, 16))
        papcoll.gather(memoryview(x), memoryview(out) if rank == 0 else None,
                       root=0, comm=comm)
        want = np.zeros((size, 16))
        comm.Gather(x, want, root=0)
        if rank == 0:
            self.same(out, want, "gather memoryviews")
        # the root only reads: read-only data there is fine
        msg = bytes(range(40)) if rank == 0 else bytearray(40)
        papcoll.bcast(msg, root=0, comm=comm)
        self.truth(bytes(msg) == bytes(range(40)), "bcast from bytes")


class TestUserOps(Base):
    def test_commutative_user_op(self):
        op = MPI.Op.Create(lambda a, b, t: np.maximum(
            np.frombuffer(a, np.int32), np.frombuffer(b, np.int32),
            out=np.frombuffer(b, np.int32)), commute=True)
        try:
            for alg in (None, "ring", "rabenseifner", "pre_reduced_ring"):
                x = mine(np.int32, 300)
                got, want = np.zeros(300, np.int32), np.zeros(300, np.int32)
                papcoll.allreduce(x, got, op=op, comm=comm, algorithm=alg)
                comm.Allreduce(x, want, op=MPI.MAX)
                self.same(got, want, f"allreduce user max {alg}")
        finally:
            op.Free()

    def test_non_commutative_user_op(self):
        # a o b = a: associative, not commutative; MPI's order gives rank 0
        def first(a, b, t):
            np.frombuffer(b, np.int64)[:] = np.frombuffer(a, np.int64)
        op = MPI.Op.Create(first, commute=False)
        try:
            for alg in (None, "basic_linear", "recursive_doubling"):
                x = mine(np.int64, 64)
                got, want = np.zeros(64, np.int64), np.zeros(64, np.int64)
                papcoll.allreduce(x, got, op=op, comm=comm, algorithm=alg)
                comm.Allreduce(x, want, op=op)
                self.same(got, want, f"allreduce non-commutative {alg}")
            # ring needs a commutative op: the C library refuses (every
            # rank alike, before sending), the arrays stay as they were
            x = mine(np.int64, 64)
            got = np.full(64, 7, np.int64)
            err = self.refused(MPI.ERR_OP, lambda: papcoll.allreduce(
                x, got, op=op, comm=comm, algorithm="ring"), [x, got],
                "commutative")
            self.truth(err is None or not err.call_started,
                       "call_started after a refusal")
        finally:
            op.Free()


class TestErrors(Base):
    """Bad arguments: papcoll.Error with the MPI class, arrays untouched.
    Every case raises on every rank; root-only checks run on COMM_SELF."""

    def test_wrong_dtypes(self):
        x = mine(np.float64, 10)
        y = np.full(10, 3.0)
        h, h2 = x.astype(np.float16), y.astype(np.float16)
        self.refused(MPI.ERR_TYPE, lambda: papcoll.allreduce(h, h2, comm=comm),
                     [h, h2], "float16")
        f32 = np.full(10, 2, np.float32)
        self.refused(MPI.ERR_TYPE, lambda: papcoll.allreduce(x, f32, comm=comm),
                     [x, f32], "dtype")
        big = x.astype(">f8")
        big2 = y.astype(">f8")
        self.refused(MPI.ERR_TYPE, lambda: papcoll.allreduce(big, big2,
                                                             comm=comm),
                     [big, big2], "byte order")
        rec = np.zeros(4, dtype=[("a", "i4"), ("b", "f8")])
        self.refused(MPI.ERR_TYPE, lambda: papcoll.bcast(rec, comm=comm), [rec])
        obj = np.array([1, "a", None], dtype=object)
        self.refused(MPI.ERR_TYPE, lambda: papcoll.bcast(obj, comm=comm), [obj])
        for gather in (papcoll.gather, papcoll.scatter):
            i8 = np.zeros(4, np.int8)
            self.refused(MPI.ERR_TYPE, lambda: gather(i8, np.zeros(4),
                                                      comm=MPI.COMM_SELF),
                         [i8])

    def test_non_contiguous(self):
        x = mine(np.float64, 20)
        y = np.full(20, 3.0)
        self.refused(MPI.ERR_BUFFER, lambda: papcoll.allreduce(
            x[::2], y[:10], comm=comm), [x, y], "C-contiguous")
        self.refused(MPI.ERR_BUFFER, lambda: papcoll.allreduce(
            x[:10], y[::2], comm=comm), [x, y], "C-contiguous")
        m = mine(np.int32, 12).reshape(3, 4)
        out = np.zeros((4, 3), np.int32)
        self.refused(MPI.ERR_BUFFER, lambda: papcoll.allreduce(
            m.T, out, comm=comm), [m, out], "C-contiguous")
        self.refused(MPI.ERR_BUFFER, lambda: papcoll.bcast(
            m[:, 1], comm=comm), [m])
        self.refused(MPI.ERR_BUFFER, lambda: papcoll.gather(
            m[:, 0], None, root=0, comm=comm) if rank else papcoll.gather(
            m[:, 0], np.zeros(3 * size, np.int32), root=0, comm=comm), [m])

    def test_mismatched_sizes(self):
        x = mine(np.int64, 10)
        y = np.full(9, 4, np.int64)
        self.refused(MPI.ERR_COUNT, lambda: papcoll.allreduce(x, y, comm=comm),
                     [x, y], "10 elements")
        self.refused(MPI.ERR_COUNT, lambda: papcoll.reduce(
            x, y, comm=MPI.COMM_SELF), [x, y])
        self.refused(MPI.ERR_COUNT, lambda: papcoll.gather(
            x, y, comm=MPI.COMM_SELF), [x, y])
        self.refused(MPI.ERR_COUNT, lambda: papcoll.scatter(
            y, x, comm=MPI.COMM_SELF), [x, y])
        self.refused(MPI.ERR_COUNT, lambda: papcoll.gatherv(
            x, y, [10, 1], comm=MPI.COMM_SELF), [x, y], "one entry per rank")
        self.refused(MPI.ERR_COUNT, lambda: papcoll.gatherv(
            x[:5], y, [5], [6], comm=MPI.COMM_SELF), [x, y], "past the end")
        self.refused(MPI.ERR_COUNT, lambda: papcoll.gatherv(
            x[:5], y, [6], comm=MPI.COMM_SELF), [x, y], "counts[0]")
        self.refused(MPI.ERR_COUNT, lambda: papcoll.scatterv(
            y, x, [-1], comm=MPI.COMM_SELF), [x, y])
        self.refused(MPI.ERR_ARG, lambda: papcoll.scatterv(
            y, x, [1.5], comm=MPI.COMM_SELF), [x, y], "integers")
        self.refused(MPI.ERR_ARG, lambda: papcoll.gatherv(
            x, y, comm=MPI.COMM_SELF), [x, y], "None at the root")

    def test_overlapping_buffers(self):
        x = mine(np.int32, 10)
        self.refused(MPI.ERR_BUFFER, lambda: papcoll.allreduce(
            x, x, comm=comm), [x], "overlap")
        # gatherv writes each block once: overlapping blocks are refused
        two = comm.Split(0 if rank < 2 else MPI.UNDEFINED, rank)
        if two != MPI.COMM_NULL:
            if two.Get_size() == 2:
                y = np.zeros(10, np.int32)
                # the root refuses the layout, the other rank its sendbuf
                self.refused(MPI.ERR_BUFFER, lambda: papcoll.gatherv(
                    x[:4], y, [4, 4], [0, 2], comm=two) if two.Get_rank() == 0
                    else papcoll.gatherv(x[:8:2], None, comm=two), [x, y])
            two.Free()

    def test_read_only_recvbuf(self):
        x = mine(np.float32, 8)
        y = np.zeros(8, np.float32)
        y.setflags(write=False)
        self.refused(MPI.ERR_BUFFER, lambda: papcoll.allreduce(x, y, comm=comm),
                     [x, y], "read-only")
        self.refused(MPI.ERR_BUFFER, lambda: papcoll.allreduce(
            papcoll.IN_PLACE, y, comm=comm), [y], "read-only")
        src = np.zeros(8 * size, np.float32) if rank == 0 else None
        self.refused(MPI.ERR_BUFFER, lambda: papcoll.scatter(
            src, y, root=0, comm=comm), [y], "read-only")
        # bcast writes only at non-roots; the root fails on another check
        b = bytes(8)
        self.refused(MPI.ERR_BUFFER, lambda: papcoll.bcast(
            b, root=0, comm=comm) if rank else papcoll.bcast(
            x[::2], root=0, comm=comm), [x])
        r = bytes(32)
        self.refused(MPI.ERR_BUFFER, lambda: papcoll.reduce(
            x, r, comm=MPI.COMM_SELF), [x], "read-only")

    def test_bad_algorithm_names(self):
        x = mine(np.int32, 10)
        y = np.full(10, 6, np.int32)
        for name, text in (("nope", "unknown allreduce algorithm"),
                           ("", "unknown"), ("bsls", "unknown"),
                           (3, "str")):
            self.refused(MPI.ERR_ARG, lambda: papcoll.allreduce(
                x, y, comm=comm, algorithm=name), [x, y], text)
        self.refused(MPI.ERR_ARG, lambda: papcoll.gather(
            x, np.zeros(10 * size, np.int32), comm=comm, algorithm="prr"),
            [x], "unknown gather algorithm")
        self.refused(MPI.ERR_ARG, lambda: papcoll.algorithms("alltoall"),
                     text="unknown collective")

    def test_roots_ops_comms_and_non_buffers(self):
        x = mine(np.int32, 10)
        y = np.full(10, 6, np.int32)
        for root in (size, -1, 1.5, "0"):
            self.refused(MPI.ERR_ROOT, lambda: papcoll.bcast(
                x, root=root, comm=comm), [x])
        for op in ("sum", MPI.OP_NULL, MPI.MAXLOC, None):
            self.refused(MPI.ERR_OP, lambda: papcoll.allreduce(
                x, y, op=op, comm=comm), [x, y])
        c = mine(np.complex128, 4)
        c2 = np.zeros(4, np.complex128)
        self.refused(MPI.ERR_OP, lambda: papcoll.allreduce(
            c, c2, op=MPI.MAX, comm=comm), [c, c2], "MPI.MAX")
        bl = np.ones(4, np.bool_)
        bl2 = np.zeros(4, np.bool_)
        self.refused(MPI.ERR_OP, lambda: papcoll.allreduce(
            bl, bl2, op=MPI.SUM, comm=comm), [bl, bl2])
        self.refused(MPI.ERR_OP, lambda: papcoll.allreduce(
            x.astype(np.float64), y.astype(np.float64), op=MPI.BAND,
            comm=comm))
        for bad in (None, MPI.COMM_NULL, "world"):
            self.refused(MPI.ERR_COMM, lambda: papcoll.allreduce(
                x, y, comm=bad), [x, y])
        self.refused(MPI.ERR_BUFFER, lambda: papcoll.allreduce(
            [1, 2, 3], y[:3], comm=comm), [y], "not a buffer")
        self.refused(MPI.ERR_BUFFER, lambda: papcoll.allreduce(
            x, papcoll.IN_PLACE, comm=comm), [x], "IN_PLACE")
        self.refused(MPI.ERR_BUFFER, lambda: papcoll.allreduce(
            x, None, comm=comm), [x], "None")
        # IN_PLACE at a non-root; the root fails on its dtype at once
        self.refused(
            MPI.ERR_BUFFER if rank else MPI.ERR_TYPE,
            lambda: papcoll.reduce(papcoll.IN_PLACE, None, root=0, comm=comm)
            if rank else papcoll.reduce(x, y.astype(np.float16), root=0,
                                        comm=comm), [x, y])

    def test_monitor_errors(self):
        for f in (0, 1.0, 1.5, -0.2, "half"):
            self.refused(MPI.ERR_ARG, lambda: papcoll.progress(f))


class TestMonitor(Base):
    """Run first: later arrival-aware calls would start the monitor by
    themselves (papc_monitor_init then refuses: already running)."""

    def test_monitor_around_calls(self):
        self.truth(not papcoll.monitor_running(), "monitor before the block")
        n = 2000
        with papcoll.monitor(comm) as m:
            self.truth(isinstance(m, papcoll.monitor), "as-target")
            self.truth(papcoll.monitor_running(), "monitor in the block")
            for step in range(4):
                papcoll.processing_start()
                x = mine(np.float64, n, tag=step)
                # work that grows with the rank: late ranks, as the papers'
                for _ in range(1 + rank):
                    x = np.sqrt(x * x)
                papcoll.progress(0.5)
                papcoll.processing_end()
                for alg in ("sorted_linear_tree", "pre_reduced_ring",
                            "clairvoyant"):
                    got, want = np.zeros(n), np.zeros(n)
                    papcoll.allreduce(x, got, comm=comm, algorithm=alg)
                    comm.Allreduce(x, want)
                    self.same(got, want, f"allreduce {alg} step {step}")
                self.same(*run_gather(np.int32, 50, 0, "bsls"), "gather bsls")
                self.same(*run_gather(np.int32, 50, 0, "sbn"), "gather sbn")
                self.same(*run_scatter(np.int32, 50, size - 1, "bsln"),
                          "scatter bsln")
        self.truth(not papcoll.monitor_running(), "monitor after the block")

    def test_monitor_twice_and_explicit_finalize(self):
        def nested():
            with papcoll.monitor(comm):
                with papcoll.monitor(comm):
                    pass
        self.refused(MPI.ERR_OTHER, nested, text="already running")
        # the outer block raised: the monitor was left running
        self.truth(papcoll.monitor_running(), "left running after a raise")
        papcoll.monitor_finalize()
        self.truth(not papcoll.monitor_running(), "stopped by finalize")
        papcoll.monitor_finalize()  # none running: a no-op


class TestRegistry(Base):
    def test_algorithms_match_papc_info(self):
        listed = papcoll.algorithms()
        self.assertEqual(list(listed), ["gather", "scatter", "bcast", "reduce",
                                        "allreduce", "gatherv", "scatterv"])
        for must in ("ring", "pre_reduced_ring", "sorted_linear_tree",
                     "clairvoyant"):
            self.assertIn(must, listed["allreduce"])
        info = {a.name: a for a in papcoll.algorithm_info("gather")}
        self.assertIn("bsls", info["background_sorted_linear_sync"].aliases)
        self.assertIn("arrival-aware",
                      info["background_sorted_linear_sync"].flags)
        papc_info = os.environ.get("PAPC_INFO")
        if papc_info and rank == 0:  # the same rows and aliases as the tool
            out = subprocess.run([papc_info, "--algorithms"], check=True,
                                 env=without_mpi_job(os.environ), timeout=30,
                                 capture_output=True, text=True).stdout
            rows = []
            for coll, names in listed.items():
                for a in papcoll.algorithm_info(coll):
                    rows.append((coll, a.name, ",".join(a.aliases)))
            tool = []
            for line in out.splitlines():
                words = line.split()
                aliases = [w[8:] for w in words if w.startswith("aliases=")]
                tool.append((words[0], words[1], aliases[0] if aliases
                             else ""))
            self.assertEqual(rows, tool)

    def test_import_without_library(self):
        # rank 0 only, no MPI in the children: `import papcoll.report` needs
        # neither mpi4py nor the library; a bad PAPCOLL_LIB is named
        if rank != 0:
            return
        env = without_mpi_job(os.environ)
        env["PAPCOLL_LIB"] = "/nonexistent/libpapcoll.so"
        code = ("import sys, papcoll, papcoll.report\n"
                "assert 'mpi4py' not in sys.modules, 'mpi4py imported'\n"
                "assert 'papcoll.coll' not in sys.modules, 'binding loaded'\n"
                "try:\n    papcoll.allreduce\n"
                "except ImportError as e:\n    print('ImportError:', e)\n")
        out = subprocess.run([sys.executable, "-c", code], env=env,
                             capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("/nonexistent/libpapcoll.so", out.stdout)
        self.assertIn("PAPCOLL_LIB", out.stdout)


ORDER = [TestMonitor, TestRegistry, TestCollectives, TestAlgorithms,
         TestInPlace, TestBuffers, TestUserOps, TestErrors]


def main(patterns):
    loader = unittest.TestLoader()
    if patterns:
        loader.testNamePatterns = [f"*{p}*" for p in patterns]
    suite = unittest.TestSuite(loader.loadTestsFromTestCase(c) for c in ORDER)
    stream = sys.stderr if rank == 0 else io.StringIO()
    result = unittest.TextTestRunner(stream=stream,
                                     verbosity=2 if rank == 0 else 1).run(suite)
    ok = result.wasSuccessful()
    if not ok and rank:
        sys.stderr.write(f"---- rank {rank} ----\n{stream.getvalue()}")
    all_ok = comm.allreduce(ok, op=MPI.LAND)
    if rank == 0:
        print(f"python binding: {'PASSED' if all_ok else 'FAILED'} "
              f"(P={size}, {result.testsRun} tests)", flush=True)
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
