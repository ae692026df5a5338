"""papcoll's collectives for Python: numpy arrays (or any buffer-protocol
object) and mpi4py communicators, in the shape of mpi4py's buffer calls.

    papcoll.allreduce(sendbuf, recvbuf, op=MPI.SUM, comm=MPI.COMM_WORLD,
                      algorithm=None)
    papcoll.reduce(sendbuf, recvbuf, op=MPI.SUM, root=0, comm=..., algorithm=None)
    papcoll.bcast(buf, root=0, comm=..., algorithm=None)
    papcoll.gather(sendbuf, recvbuf, root=0, comm=..., algorithm=None)
    papcoll.scatter(sendbuf, recvbuf, root=0, comm=..., algorithm=None)
    papcoll.gatherv(sendbuf, recvbuf, counts=None, displs=None, root=0, ...)
    papcoll.scatterv(sendbuf, recvbuf, counts=None, displs=None, root=0, ...)

Buffers are flat sequences of elements: the element type is the array's
dtype (float32/64, long double, int8..64, uint8..64, complex64/128/256,
bool), counts are numbers of elements, and a buffer must be C-contiguous
(papcoll never copies into or out of a user's array behind their back).
Where MPI ignores a buffer (recvbuf of gather at a non-root, ...) it may be
None.  gatherv/scatterv: counts[i] and displs[i] (elements) place rank i's
block in the root's recvbuf/sendbuf; displs=None packs the blocks in rank
order.  They are read at the root only.  `IN_PLACE` (the same object as
MPI.IN_PLACE) goes where MPI allows it: sendbuf of allreduce, and at the
root sendbuf of reduce/gather/gatherv, recvbuf of scatter/scatterv.

algorithm=None makes the plain call (papcoll chooses, or
PAPC_<COLL>_ALGORITHM forces); a name or alias ("ring", "prr", ...; see
algorithms()) runs that algorithm.

Errors raise papcoll.Error with .error_class (an MPI error class, as
mpi4py's MPI.ERR_* constants) and papcoll's message.  Arguments are
checked here before anything is sent (dtypes, contiguity, sizes, writable
receive buffers, roots, ops, algorithm names); such an error leaves every
array untouched.  The checks are local, as MPI's are: an argument that is
bad on some ranks only (a root's recvbuf of the wrong size) raises there
while the other ranks wait in the collective, as they would in MPI.
"""
import ctypes
from collections import namedtuple

import numpy as np
from mpi4py import MPI

from . import _lib
from ._lib import lib

__all__ = ["Error", "IN_PLACE", "allreduce", "reduce", "bcast", "gather",
           "scatter", "gatherv", "scatterv", "algorithms", "algorithm_info",
           "last_algorithm", "last_watched", "last_pick_reused", "monitor",
           "monitor_running",
           "monitor_finalize", "progress", "processing_start", "processing_end"]

IN_PLACE = MPI.IN_PLACE
# mpi4py's IN_PLACE is an int holding the C value of MPI_IN_PLACE.
_C_IN_PLACE = ctypes.c_void_p(int(MPI.IN_PLACE))
_INT_MAX = 2**31 - 1

_ERROR_NAMES = {getattr(MPI, n): "MPI_" + n
                for n in ("ERR_BUFFER", "ERR_COUNT", "ERR_TYPE", "ERR_ROOT",
                          "ERR_COMM", "ERR_OP", "ERR_ARG", "ERR_TRUNCATE",
                          "ERR_OTHER")}


class Error(Exception):
    """An MPI error from papcoll: .error_class is the MPI error class
    (compare with MPI.ERR_TYPE, ...), str(e) and .message papcoll's message.
    .call_started is True when the C library had begun moving data before
    the error (the receive buffers may then hold partial results)."""

    def __init__(self, error_class, message, call_started=False):
        super().__init__(message)
        self.error_class = error_class
        self.message = message
        self.call_started = call_started


def _fail(error_class, message):
    name = _ERROR_NAMES.get(error_class, f"MPI error class {error_class}")
    raise Error(error_class, f"{name}: {message}")


def _check(rc):
    """Raises the C library's error, with its message, for rc != MPI_SUCCESS."""
    if rc != MPI.SUCCESS:
        message = lib.papc_strerror(rc).decode(errors="replace")
        raise Error(rc, message, bool(lib.papc_last_call_started()))


# ---- element types ----------------------------------------------------

def _predefined_types():
    """(numpy kind, itemsize) -> MPI datatype, for the types this MPI has."""
    table = {("f", 4): "FLOAT", ("f", 8): "DOUBLE", ("f", 16): "LONG_DOUBLE",
             ("i", 1): "INT8_T", ("i", 2): "INT16_T", ("i", 4): "INT32_T",
             ("i", 8): "INT64_T", ("u", 1): "UINT8_T", ("u", 2): "UINT16_T",
             ("u", 4): "UINT32_T", ("u", 8): "UINT64_T",
             ("c", 8): "C_FLOAT_COMPLEX", ("c", 16): "C_DOUBLE_COMPLEX",
             ("c", 32): "C_LONG_DOUBLE_COMPLEX", ("b", 1): "C_BOOL"}
    types = {}
    for key, name in table.items():
        t = getattr(MPI, name, MPI.DATATYPE_NULL)
        # long double: numpy's itemsize must be the C type's extent
        if t != MPI.DATATYPE_NULL and t.Get_extent()[1] == key[1]:
            types[key] = (t, _lib.handle(t, _lib.Datatype_t))
    return types


_TYPES = _predefined_types()


def _mpi_type(dtype, what):
    """(mpi4py datatype, its C handle) of a numpy dtype."""
    if dtype.fields is None and dtype.isnative:
        t = _TYPES.get((dtype.kind, dtype.itemsize))
        if t is not None:
            return t
    if dtype.fields is None and not dtype.isnative and dtype.kind in "iufc":
        _fail(MPI.ERR_TYPE, f"{what} has dtype {dtype.str} in the other byte "
              "order; convert it with .astype(arr.dtype.newbyteorder('='))")
    names = sorted({str(np.dtype(f"{k}{s}")) for k, s in _TYPES})
    _fail(MPI.ERR_TYPE, f"{what} has dtype {dtype}, which papcoll cannot "
          f"move; supported: {', '.join(names)}")


# ---- buffers ------------------------------------------------------------

class _Buf(namedtuple("_Buf", "array mpitype ctype what")):
    """A checked buffer: a numpy view of the user's memory (never a copy),
    its mpi4py datatype and that datatype's C handle."""

    @property
    def count(self):
        return self.array.size

    @property
    def ptr(self):
        return self.array.ctypes.data  # ctypes makes the int a void *


def _as_array(obj, what):
    if obj is IN_PLACE:
        _fail(MPI.ERR_BUFFER, f"{what} cannot be IN_PLACE here")
    if obj is None:
        _fail(MPI.ERR_BUFFER, f"{what} is None")
    if isinstance(obj, np.ndarray):
        return obj
    try:
        view = memoryview(obj)
    except TypeError:
        _fail(MPI.ERR_BUFFER, f"{what} is a {type(obj).__name__}, not a "
              "buffer: pass a numpy array or an object with the buffer "
              "protocol")
    try:
        return np.asarray(view)  # a view of obj's memory, not a copy
    except (TypeError, ValueError) as e:
        _fail(MPI.ERR_TYPE, f"{what}: numpy cannot read the buffer format "
              f"{view.format!r} ({e})")


def _buffer(obj, what, writable):
    """obj as a checked _Buf: a supported dtype, C-contiguous, writable
    when papcoll will write into it, at most INT_MAX elements."""
    arr = _as_array(obj, what)
    mpitype, ctype = _mpi_type(arr.dtype, what)
    if not arr.flags.c_contiguous:
        _fail(MPI.ERR_BUFFER, f"{what} is not C-contiguous (shape "
              f"{arr.shape}, strides {arr.strides}); papcoll does not copy "
              "into your array behind your back: pass "
              "np.ascontiguousarray(...) and copy the result back yourself")
    if writable and not arr.flags.writeable:
        _fail(MPI.ERR_BUFFER, f"{what} is read-only, but papcoll writes the "
              "result into it")
    if arr.size > _INT_MAX:
        _fail(MPI.ERR_COUNT, f"{what} has {arr.size} elements, more than an "
              "MPI count can hold (2**31 - 1); split the call")
    return _Buf(arr, mpitype, ctype, what)


def _same_type(a, b):
    if a.array.dtype != b.array.dtype:
        _fail(MPI.ERR_TYPE, f"{a.what} has dtype {a.array.dtype} but "
              f"{b.what} has {b.array.dtype}")


def _disjoint(a, b):
    if np.may_share_memory(a.array, b.array):
        _fail(MPI.ERR_BUFFER, f"{a.what} and {b.what} overlap; for an "
              "in-place call pass papcoll.IN_PLACE as the send buffer")


def _count_is(buf, count, why):
    if buf.count != count:
        _fail(MPI.ERR_COUNT, f"{buf.what} has {buf.count} elements "
              f"(shape {buf.array.shape}) but {why}")


def _send_and_recv(sendbuf, recv):
    """The send buffer of a call whose recv buffer is checked: same dtype,
    not overlapping it."""
    send = _buffer(sendbuf, "sendbuf", writable=False)
    _same_type(send, recv)
    _disjoint(send, recv)
    return send


# ---- communicators, roots, ops, algorithms -----------------------------

# The handles of the objects that live as long as MPI, found by identity:
# converting a handle through ctypes costs about a microsecond a call.
_PREDEFINED_COMMS = {id(c): (c, _lib.handle(c, _lib.Comm_t))
                     for c in (MPI.COMM_WORLD, MPI.COMM_SELF)}


def _comm(comm):
    if not isinstance(comm, MPI.Comm):
        _fail(MPI.ERR_COMM, f"comm must be an mpi4py communicator, not a "
              f"{type(comm).__name__}")
    if comm == MPI.COMM_NULL:
        _fail(MPI.ERR_COMM, "comm is MPI.COMM_NULL")
    if comm.Is_inter():
        _fail(MPI.ERR_COMM, "intercommunicators are not supported; use an "
              "intracommunicator")
    c = _PREDEFINED_COMMS.get(id(comm))
    c = c[1] if c is not None and c[0] is comm else _lib.handle(comm,
                                                                 _lib.Comm_t)
    return c, comm.Get_rank(), comm.Get_size()


def _root(root, size):
    if isinstance(root, bool) or not isinstance(root, (int, np.integer)):
        _fail(MPI.ERR_ROOT, f"root must be an int, not a "
              f"{type(root).__name__}")
    if not 0 <= root < size:
        _fail(MPI.ERR_ROOT, f"root {root} is not a rank of a communicator "
              f"of size {size}")
    return int(root)


# MPI's predefined ops and the numpy kinds they apply to (MPI 4.0, 6.9.2):
# integers i/u, floating f, complex c, logical b.
_OP_KINDS = {"MAX": "iuf", "MIN": "iuf", "SUM": "iufc", "PROD": "iufc",
             "LAND": "iub", "LOR": "iub", "LXOR": "iub",
             "BAND": "iu", "BOR": "iu", "BXOR": "iu",
             "MAXLOC": "", "MINLOC": "", "REPLACE": "", "NO_OP": ""}
# keyed by the C handle's value, which _op computes anyway
_PREDEFINED_OP_OBJECTS = {id(getattr(MPI, n)): (getattr(MPI, n),
                                                _lib.handle(getattr(MPI, n),
                                                            _lib.Op_t), n)
                          for n in _OP_KINDS if hasattr(MPI, n)}
# the same ops by handle value, for an mpi4py object that is not MPI.SUM
# itself but holds its handle
_PREDEFINED_OPS = {c.value: n for _, c, n in _PREDEFINED_OP_OBJECTS.values()}


def _op(op, buf):
    """The C handle of op, refusing what MPI would refuse only on the ranks
    that reduce (a predefined op on a type it is not defined for)."""
    if not isinstance(op, MPI.Op) or op == MPI.OP_NULL:
        _fail(MPI.ERR_OP, f"op must be an mpi4py op (MPI.SUM, MPI.MAX, "
              f"MPI.Op.Create(...)), not {op!r}")
    known = _PREDEFINED_OP_OBJECTS.get(id(op))
    c_op = (known[1] if known is not None and known[0] is op
            else _lib.handle(op, _lib.Op_t))
    name = _PREDEFINED_OPS.get(c_op.value)
    if name is not None and buf.array.dtype.kind not in _OP_KINDS[name]:
        _fail(MPI.ERR_OP, f"MPI.{name} is not defined on {buf.what}'s dtype "
              f"{buf.array.dtype}")
    return c_op


def _collective_index(collective):
    index = lib.papc_collective_from_name(str(collective).encode())
    if index < 0:
        _fail(MPI.ERR_ARG, f"unknown collective {collective!r}; papcoll has "
              f"{', '.join(_lib.COLLECTIVES)}")
    return index


def _algorithm(collective, algorithm):
    """None, or the name as bytes once the registry knows it."""
    if algorithm is None:
        return None
    if not isinstance(algorithm, str):
        _fail(MPI.ERR_ARG, f"algorithm must be a name (str) or None, not a "
              f"{type(algorithm).__name__}")
    name = algorithm.encode()
    if not lib.papc_algorithm_find(_collective_index(collective), name):
        _fail(MPI.ERR_ARG, f"unknown {collective} algorithm {algorithm!r}; "
              f"papcoll has {', '.join(algorithms(collective))} (and their "
              "aliases, see algorithm_info())")
    return name


_PLAIN = {c: getattr(lib, "papc_" + c) for c in _lib.COLLECTIVES}
_NAMED = {c: getattr(lib, f"papc_{c}_alg") for c in _lib.COLLECTIVES}


def _run(collective, algorithm, *args):
    if algorithm is None:
        rc = _PLAIN[collective](*args)
    else:
        rc = _NAMED[collective](*args, algorithm)
    if rc != MPI.SUCCESS:
        _check(rc)


# ---- the collectives ----------------------------------------------------

def allreduce(sendbuf, recvbuf, op=MPI.SUM, comm=MPI.COMM_WORLD,
              algorithm=None):
    """recvbuf = op over all ranks of sendbuf, element by element, on every
    rank.  sendbuf=IN_PLACE takes the input from recvbuf."""
    c, _, _ = _comm(comm)
    alg = _algorithm("allreduce", algorithm)
    recv = _buffer(recvbuf, "recvbuf", writable=True)
    send = _C_IN_PLACE
    if sendbuf is not IN_PLACE:
        sbuf = _send_and_recv(sendbuf, recv)
        _count_is(sbuf, recv.count, f"recvbuf has {recv.count}")
        send = sbuf.ptr
    _run("allreduce", alg, send, recv.ptr, recv.count,
         recv.ctype, _op(op, recv), c)


def reduce(sendbuf, recvbuf, op=MPI.SUM, root=0, comm=MPI.COMM_WORLD,
           algorithm=None):
    """recvbuf at root = op over all ranks of sendbuf.  recvbuf is ignored
    (may be None) elsewhere; sendbuf=IN_PLACE at the root only."""
    c, rank, size = _comm(comm)
    root = _root(root, size)
    alg = _algorithm("reduce", algorithm)
    if rank != root:
        send = _buffer(sendbuf, "sendbuf", writable=False)
        _run("reduce", alg, send.ptr, None, send.count,
             send.ctype, _op(op, send), root,
             c)
        return
    recv = _buffer(recvbuf, "recvbuf", writable=True)
    send = _C_IN_PLACE
    if sendbuf is not IN_PLACE:
        sbuf = _send_and_recv(sendbuf, recv)
        _count_is(sbuf, recv.count, f"recvbuf has {recv.count}")
        send = sbuf.ptr
    _run("reduce", alg, send, recv.ptr, recv.count,
         recv.ctype, _op(op, recv), root, c)


def bcast(buf, root=0, comm=MPI.COMM_WORLD, algorithm=None):
    """buf of the root copied into buf of every rank (read-only at the
    root is fine)."""
    c, rank, size = _comm(comm)
    root = _root(root, size)
    alg = _algorithm("bcast", algorithm)
    data = _buffer(buf, "buf", writable=rank != root)
    _run("bcast", alg, data.ptr, data.count,
         data.ctype, root, c)


def gather(sendbuf, recvbuf, root=0, comm=MPI.COMM_WORLD, algorithm=None):
    """The root's recvbuf gets every rank's sendbuf, in rank order: it holds
    size * sendbuf.size elements (any shape, e.g. (size, n)).  recvbuf is
    ignored elsewhere; sendbuf=IN_PLACE at the root (its block is already
    in place in recvbuf)."""
    c, rank, size = _comm(comm)
    root = _root(root, size)
    alg = _algorithm("gather", algorithm)
    if rank != root:
        send = _buffer(sendbuf, "sendbuf", writable=False)
        t = send.ctype
        _run("gather", alg, send.ptr, send.count, t, None, 0, t, root, c)
        return
    recv = _buffer(recvbuf, "recvbuf", writable=True)
    t = recv.ctype
    if sendbuf is IN_PLACE:
        block = _block_of(recv, size)
        _run("gather", alg, _C_IN_PLACE, block, t, recv.ptr, block, t, root,
             c)
        return
    send = _send_and_recv(sendbuf, recv)
    _count_is(recv, size * send.count,
              f"gathering {size} blocks of sendbuf's {send.count} needs "
              f"{size * send.count}")
    _run("gather", alg, send.ptr, send.count, t, recv.ptr, send.count, t,
         root, c)


def scatter(sendbuf, recvbuf, root=0, comm=MPI.COMM_WORLD, algorithm=None):
    """Rank i's recvbuf gets block i of the root's sendbuf, which holds
    size * recvbuf.size elements.  sendbuf is ignored (may be None) except
    at the root; recvbuf=IN_PLACE at the root (its block stays in
    sendbuf)."""
    c, rank, size = _comm(comm)
    root = _root(root, size)
    alg = _algorithm("scatter", algorithm)
    if rank != root:
        recv = _buffer(recvbuf, "recvbuf", writable=True)
        t = recv.ctype
        _run("scatter", alg, None, 0, t, recv.ptr, recv.count, t, root, c)
        return
    if recvbuf is IN_PLACE:
        send = _buffer(sendbuf, "sendbuf", writable=False)
        t = send.ctype
        block = _block_of(send, size)
        _run("scatter", alg, send.ptr, block, t, _C_IN_PLACE, block, t,
             root, c)
        return
    recv = _buffer(recvbuf, "recvbuf", writable=True)
    send = _send_and_recv(sendbuf, recv)
    _count_is(send, size * recv.count,
              f"scattering {size} blocks of recvbuf's {recv.count} needs "
              f"{size * recv.count}")
    t = recv.ctype
    _run("scatter", alg, send.ptr, recv.count, t, recv.ptr, recv.count, t,
         root, c)


def _block_of(buf, size):
    """The block size of an in-place gather/scatter: buf holds size blocks."""
    if buf.count % size:
        _fail(MPI.ERR_COUNT, f"{buf.what} has {buf.count} elements, not a "
              f"multiple of the communicator's size {size}")
    return buf.count // size


def _int_vector(values, size, what):
    """values as a C int array of size entries, each in [0, INT_MAX]."""
    if values is None:
        _fail(MPI.ERR_ARG, f"{what} is None at the root")
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.shape[0] != size:
        _fail(MPI.ERR_COUNT, f"{what} must hold one entry per rank ({size}), "
              f"got shape {arr.shape}")
    if size and arr.dtype.kind not in "iu":
        _fail(MPI.ERR_ARG, f"{what} must hold integers, not {arr.dtype}")
    if size and (arr.min() < 0 or arr.max() > _INT_MAX):
        _fail(MPI.ERR_COUNT, f"{what} must be in [0, 2**31 - 1], got "
              f"{arr.min()} .. {arr.max()}")
    return np.ascontiguousarray(arr, dtype=np.intc)


def _layout(buf, counts, displs, size, disjoint):
    """The C counts and displs of the root's blocks in buf, each block
    inside buf; disjoint (gatherv: nothing is written twice) when asked."""
    counts = _int_vector(counts, size, "counts")
    if displs is None:  # packed in rank order
        displs = np.concatenate(([0], np.cumsum(counts, dtype=np.int64)[:-1]))
    displs = _int_vector(displs, size, "displs")
    ends = displs.astype(np.int64) + counts
    used = counts > 0
    if used.any() and ends[used].max() > buf.count:
        i = int(np.argmax(np.where(used, ends, -1)))
        _fail(MPI.ERR_COUNT, f"block {i} (displs {displs[i]}, counts "
              f"{counts[i]}) ends at {ends[i]}, past the end of {buf.what} "
              f"({buf.count} elements)")
    if disjoint and used.sum() > 1:
        order = np.argsort(displs[used], kind="stable")
        d, e = displs[used][order], ends[used][order]
        overlap = np.nonzero(d[1:] < e[:-1])[0]
        if overlap.size:
            ranks = np.nonzero(used)[0][order]
            a, b = ranks[overlap[0]], ranks[overlap[0] + 1]
            _fail(MPI.ERR_BUFFER, f"the blocks of ranks {a} and {b} overlap "
                  f"in {buf.what}")
    return counts, displs


def _c_ints(arr):
    return arr.ctypes.data_as(ctypes.POINTER(ctypes.c_int))


def gatherv(sendbuf, recvbuf, counts=None, displs=None, root=0,
            comm=MPI.COMM_WORLD, algorithm=None):
    """The root's recvbuf gets rank i's sendbuf at displs[i] (counts[i]
    elements); displs=None packs the blocks in rank order.  recvbuf,
    counts and displs are ignored except at the root; sendbuf=IN_PLACE at
    the root (its block is already at displs[root])."""
    c, rank, size = _comm(comm)
    root = _root(root, size)
    alg = _algorithm("gatherv", algorithm)
    if rank != root:
        send = _buffer(sendbuf, "sendbuf", writable=False)
        t = send.ctype
        _run("gatherv", alg, send.ptr, send.count, t, None, None, None, t,
             root, c)
        return
    recv = _buffer(recvbuf, "recvbuf", writable=True)
    t = recv.ctype
    cnt, dsp = _layout(recv, counts, displs, size, disjoint=True)
    if sendbuf is IN_PLACE:
        send, scount = _C_IN_PLACE, int(cnt[root])
    else:
        sbuf = _send_and_recv(sendbuf, recv)
        _count_is(sbuf, int(cnt[root]), f"counts[{root}] (the root's "
                  f"block) is {cnt[root]}")
        send, scount = sbuf.ptr, sbuf.count
    _run("gatherv", alg, send, scount, t, recv.ptr, _c_ints(cnt),
         _c_ints(dsp), t, root, c)


def scatterv(sendbuf, recvbuf, counts=None, displs=None, root=0,
             comm=MPI.COMM_WORLD, algorithm=None):
    """Rank i's recvbuf gets counts[i] elements of the root's sendbuf from
    displs[i]; displs=None takes the blocks in rank order.  sendbuf, counts
    and displs are ignored except at the root; recvbuf=IN_PLACE at the root
    (its block stays in sendbuf).  Rank i's recvbuf must hold counts[i]
    elements (only the root knows counts, so only the root's is checked)."""
    c, rank, size = _comm(comm)
    root = _root(root, size)
    alg = _algorithm("scatterv", algorithm)
    if rank != root:
        recv = _buffer(recvbuf, "recvbuf", writable=True)
        t = recv.ctype
        _run("scatterv", alg, None, None, None, t, recv.ptr, recv.count, t,
             root, c)
        return
    send = _buffer(sendbuf, "sendbuf", writable=False)
    t = send.ctype
    cnt, dsp = _layout(send, counts, displs, size, disjoint=False)
    if recvbuf is IN_PLACE:
        recv, rcount = _C_IN_PLACE, int(cnt[root])
    else:
        rbuf = _buffer(recvbuf, "recvbuf", writable=True)
        _same_type(rbuf, send)
        _disjoint(send, rbuf)
        _count_is(rbuf, int(cnt[root]), f"counts[{root}] (the root's "
                  f"block) is {cnt[root]}")
        recv, rcount = rbuf.ptr, rbuf.count
    _run("scatterv", alg, send.ptr, _c_ints(cnt), _c_ints(dsp), t, recv,
         rcount, t, root, c)


# ---- the registry ---------------------------------------------------------

AlgorithmInfo = namedtuple("AlgorithmInfo",
                           "name aliases restrictions flags summary")


def _words(fn, bits):
    buf = ctypes.create_string_buffer(256)
    return tuple(fn(bits, buf, len(buf)).decode().split())


def algorithm_info(collective):
    """Every algorithm of collective ("gather", "allreduce", ...), in
    papc-info's order: name, aliases, restrictions and flags as words
    ("commutative", "arrival-aware", ...), a one-line summary."""
    index = _collective_index(collective)
    rows = []
    for i in range(lib.papc_algorithm_count(index)):
        a = lib.papc_algorithm_get(index, i).contents
        rows.append(AlgorithmInfo(
            a.name.decode(), tuple(a.aliases.decode().split()),
            _words(lib.papc_restrictions_string, a.restrictions),
            _words(lib.papc_flags_string, a.flags), a.summary.decode()))
    return rows


def algorithms(collective=None):
    """The algorithm names of collective, or {collective: names} for all."""
    if collective is None:
        return {c: algorithms(c) for c in _lib.COLLECTIVES}
    return [a.name for a in algorithm_info(collective)]


def last_algorithm(collective):
    """The algorithm the latest plain call of collective ran on this
    thread, or None before any."""
    name = lib.papc_last_algorithm(_collective_index(collective))
    return name.decode() if name else None


def last_watched(collective):
    """Whether the latest plain call of collective on this thread was
    watched by the arrival monitor (its arrivals reach the next call's
    choice); False without a monitor, for a named algorithm, and for the
    calls a quiet call site runs unwatched (PAPC_ARRIVAL_WATCH_EVERY)."""
    return bool(lib.papc_last_watched(_collective_index(collective)))


def last_pick_reused(collective):
    """Whether the latest plain call of collective on this thread took the
    algorithm an earlier call chose from the same agreed arrival view
    (no new view came between, e.g. an unwatched call) instead of pricing
    every algorithm again; False without a monitor or for a named
    algorithm."""
    return bool(lib.papc_last_pick_reused(_collective_index(collective)))


# ---- the arrival monitor (the papers' PAT_* calls) -----------------------

class monitor:
    """`with papcoll.monitor(comm): ...` runs the arrival monitor on comm
    for the block (papc_monitor_init / papc_monitor_finalize, PAT_Init /
    PAT_Finalize; both collective over comm).  Arrival-aware algorithms on
    comm then order their work by the predicted arrivals, which progress()
    calls sharpen.  If the block raises, the monitor is left running (its
    finalisation is collective and the other ranks may never get there);
    MPI_Finalize stops it, or call monitor_finalize() on every rank."""

    def __init__(self, comm=MPI.COMM_WORLD):
        self.comm = comm

    def __enter__(self):
        c, _, _ = _comm(self.comm)
        _check(lib.papc_monitor_init(c))
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            _check(lib.papc_monitor_finalize())
        return False


def monitor_finalize():
    """Stops the monitor (collective over its communicator); a no-op when
    none runs."""
    _check(lib.papc_monitor_finalize())


def monitor_running():
    return bool(lib.papc_monitor_running())


def processing_start():
    """This process starts a computation phase (PAT_ProcessingStart)."""
    _check(lib.papc_processing_start())


def progress(fraction):
    """fraction (0 < fraction < 1) of this process' computation phase is
    done (PAT_Edge); cheap, never blocks."""
    try:
        value = float(fraction)
    except (TypeError, ValueError):
        _fail(MPI.ERR_ARG, f"progress fraction must be a number, not "
              f"{fraction!r}")
    _check(lib.papc_progress(value))


def processing_end():
    """This process ends its computation phase (PAT_ProcessingEnd)."""
    _check(lib.papc_processing_end())
