"""Gradient averaging: the only place the example touches an allreduce.

`native` is mpi4py's comm.Allreduce (the MPI library's own algorithm);
`plain` is papcoll's plain call (papcoll picks the algorithm); any other
name is a papcoll allreduce algorithm (ring, pre_reduced_ring,
sorted_linear_tree, clairvoyant, rabenseifner, recursive_doubling, ...).

The arrival-aware algorithms order their work by when each process is
predicted to arrive.  The prediction comes from papcoll's monitor thread,
which the program feeds the papers' PAT_* calls (pap-allreduce.md Sect. 3):
processing_start at the top of a step, progress(f) after part of the
step's computation, processing_end just before the allreduce.  Phases
gives those calls to the training loop, as no-ops where no monitor runs.
"""
import contextlib

from mpi4py import MPI

NATIVE, PLAIN = "native", "plain"


def _papcoll():
    try:
        import papcoll
    except ImportError as e:
        raise SystemExit(
            f"train.py: papcoll's Python binding is not importable ({e}); "
            f"build the library and put the repository's python/ on "
            f"PYTHONPATH (scripts/example-training.sh does)") from None
    if not hasattr(papcoll, "allreduce"):
        raise SystemExit("train.py: this papcoll package has no allreduce "
                         "(an old checkout without the binding?)")
    return papcoll


def is_arrival_aware(algorithm):
    return algorithm in ("pre_reduced_ring", "prr", "sorted_linear_tree",
                         "slt", "clairvoyant", "clv")


def make_averager(comm, algorithm):
    """f(sendbuf, recvbuf): recvbuf = the element-wise sum of every rank's
    sendbuf (the caller divides by the global batch size)."""
    if algorithm == NATIVE:
        def average(sendbuf, recvbuf):
            comm.Allreduce(sendbuf, recvbuf, op=MPI.SUM)
        return average
    papcoll = _papcoll()
    name = None if algorithm == PLAIN else algorithm

    def average(sendbuf, recvbuf):
        papcoll.allreduce(sendbuf, recvbuf, op=MPI.SUM, comm=comm,
                          algorithm=name)
    return average


class Phases:
    """The computation-phase calls of one step, for papcoll's monitor."""

    def __init__(self, papcoll_module=None):
        self._p = papcoll_module

    def start(self):
        if self._p:
            self._p.processing_start()

    def progress(self, fraction):
        if self._p and 0 < fraction < 1:
            self._p.progress(fraction)

    def end(self):
        if self._p:
            self._p.processing_end()


@contextlib.contextmanager
def monitored(comm, algorithm, mode):
    """Runs the monitor (mode 'on', or 'auto' for the arrival-aware
    algorithms) and yields the matching Phases."""
    want = mode == "on" or (mode == "auto" and is_arrival_aware(algorithm))
    if not want:
        yield Phases()
        return
    papcoll = _papcoll()
    with papcoll.monitor(comm):
        yield Phases(papcoll)
