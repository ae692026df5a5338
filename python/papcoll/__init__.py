"""papcoll's Python side.

    papcoll.allreduce, gather, ...  the binding of libpapcoll.so (coll.py):
                     the seven collectives on numpy arrays with mpi4py
                     communicators, the arrival monitor, the algorithm list
    papcoll.report   the `papc-report` command (one subcommand per tool:
                     `guide` for papc-guide's CSV, ...)

The binding's names are imported on first use, so `import papcoll.report`
needs neither MPI nor libpapcoll.so.
"""

__version__ = "0.1.0"

_BINDING = ("Error", "IN_PLACE", "allreduce", "reduce", "bcast", "gather",
            "scatter", "gatherv", "scatterv", "algorithms", "algorithm_info",
            "last_algorithm", "last_watched", "last_pick_reused", "monitor",
            "monitor_running", "monitor_finalize",
            "progress", "processing_start", "processing_end")

__all__ = list(_BINDING)


def __getattr__(name):
    if name in _BINDING:
        from . import coll
        # bound here once, so later calls skip this hook (a few µs a call)
        for n in _BINDING:
            globals()[n] = getattr(coll, n)
        return globals()[name]
    raise AttributeError(f"module 'papcoll' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_BINDING))
