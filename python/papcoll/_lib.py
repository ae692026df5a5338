"""Loads libpapcoll.so with ctypes and declares the C API's signatures.

Where the library is looked for, first found wins:

  1. $PAPCOLL_LIB: the library file itself, or a directory holding
     libpapcoll.so (an explicit choice: failing to load it is an error, not a
     reason to try elsewhere);
  2. the build directory of the source tree this package sits in
     (<repo>/build/lib/, when running from python/ of a checkout);
  3. the system's dynamic loader (libpapcoll.so.0 / libpapcoll.so on
     LD_LIBRARY_PATH or in the ld.so cache, e.g. after `cmake --install`).

The MPI handle types (MPI_Comm, MPI_Datatype, MPI_Op) differ between MPI
libraries: pointers in Open MPI, ints in MPICH.  Their ctypes types come from
mpi4py's MPI._sizeof, and handle values from MPI._addressof, as mpi4py
documents for ctypes wrappers.
"""
import ctypes
import ctypes.util
import os
from pathlib import Path

LIBRARY_NAME = "libpapcoll.so"
ENV_VAR = "PAPCOLL_LIB"


def _build_dir_candidates():
    """The library in <repo>/build/lib when this package is python/papcoll
    of a source checkout."""
    repo = Path(__file__).resolve().parents[2]
    if not (repo / "include" / "papcoll.h").is_file():
        return []  # an installed copy: no source tree around it
    lib = repo / "build" / "lib"
    return [lib / LIBRARY_NAME, lib / (LIBRARY_NAME + ".0")]


def _env_candidate(value):
    path = Path(value)
    return path / LIBRARY_NAME if path.is_dir() else path


def _load_explicit(path):
    try:
        return ctypes.CDLL(str(path))
    except OSError as e:
        raise ImportError(f"papcoll: cannot load ${ENV_VAR}={path}: {e}") from e


def _load():
    """The loaded library; ImportError naming every place tried."""
    env = os.environ.get(ENV_VAR)
    if env:
        return _load_explicit(_env_candidate(env))
    tried = []
    for path in _build_dir_candidates():
        if path.exists():
            try:
                return ctypes.CDLL(str(path))
            except OSError as e:
                tried.append(f"{path} ({e})")
        else:
            tried.append(f"{path} (absent)")
    names = [LIBRARY_NAME + ".0", LIBRARY_NAME]
    found = ctypes.util.find_library("papcoll")
    if found and found not in names:
        names.append(found)
    for name in names:
        try:
            return ctypes.CDLL(name)
        except OSError as e:
            tried.append(f"system loader {name} ({e})")
    raise ImportError(
        "papcoll: libpapcoll.so not found; build it (cmake -S . -B build && "
        f"cmake --build build) or set {ENV_VAR}=/path/to/libpapcoll.so.  "
        "Looked in: " + "; ".join(tried))


lib = _load()

# mpi4py after the library: a missing library is reported without touching
# MPI.  Importing mpi4py.MPI initialises MPI (MPI_THREAD_MULTIPLE by default,
# which the monitor thread needs).
from mpi4py import MPI  # noqa: E402


def _handle_type(mpi_class):
    size = MPI._sizeof(mpi_class)
    if size == ctypes.sizeof(ctypes.c_int):
        return ctypes.c_int
    if size == ctypes.sizeof(ctypes.c_void_p):
        return ctypes.c_void_p
    raise ImportError(f"papcoll: unexpected size {size} of an MPI handle "
                      f"({mpi_class.__name__})")


Comm_t = _handle_type(MPI.Comm)
Datatype_t = _handle_type(MPI.Datatype)
Op_t = _handle_type(MPI.Op)


def handle(obj, ctype):
    """The C handle of an mpi4py object (Comm, Datatype, Op) as ctype."""
    return ctype(ctype.from_address(MPI._addressof(obj)).value)


class AlgorithmInfo(ctypes.Structure):
    """papc_algorithm_info."""
    _fields_ = [("collective", ctypes.c_int),
                ("name", ctypes.c_char_p),
                ("aliases", ctypes.c_char_p),
                ("restrictions", ctypes.c_uint),
                ("flags", ctypes.c_uint),
                ("summary", ctypes.c_char_p)]


_buf = ctypes.c_void_p
_cbuf = ctypes.c_void_p
_int = ctypes.c_int
_ints = ctypes.POINTER(ctypes.c_int)
_name = ctypes.c_char_p
_C, _D, _O = Comm_t, Datatype_t, Op_t

_SIGNATURES = {
    # registry and errors
    "papc_collective_name": (ctypes.c_char_p, [_int]),
    "papc_collective_from_name": (_int, [_name]),
    "papc_algorithm_count": (_int, [_int]),
    "papc_algorithm_get": (ctypes.POINTER(AlgorithmInfo), [_int, _int]),
    "papc_algorithm_find": (ctypes.POINTER(AlgorithmInfo), [_int, _name]),
    "papc_restrictions_string": (ctypes.c_char_p, [ctypes.c_uint,
                                                   ctypes.c_char_p, _int]),
    "papc_flags_string": (ctypes.c_char_p, [ctypes.c_uint, ctypes.c_char_p,
                                            _int]),
    "papc_strerror": (ctypes.c_char_p, [_int]),
    "papc_last_algorithm": (ctypes.c_char_p, [_int]),
    "papc_last_watched": (_int, [_int]),
    "papc_last_pick_reused": (_int, [_int]),
    "papc_last_call_started": (_int, []),
    "papc_mpi_library": (ctypes.c_char_p, []),
    # collectives (the _alg forms take the name last)
    "papc_gather": (_int, [_cbuf, _int, _D, _buf, _int, _D, _int, _C]),
    "papc_scatter": (_int, [_cbuf, _int, _D, _buf, _int, _D, _int, _C]),
    "papc_bcast": (_int, [_buf, _int, _D, _int, _C]),
    "papc_reduce": (_int, [_cbuf, _buf, _int, _D, _O, _int, _C]),
    "papc_allreduce": (_int, [_cbuf, _buf, _int, _D, _O, _C]),
    "papc_gatherv": (_int, [_cbuf, _int, _D, _buf, _ints, _ints, _D, _int,
                            _C]),
    "papc_scatterv": (_int, [_cbuf, _ints, _ints, _D, _buf, _int, _D, _int,
                             _C]),
    # the monitor (PAT_*)
    "papc_monitor_init": (_int, [_C]),
    "papc_processing_start": (_int, []),
    "papc_progress": (_int, [ctypes.c_double]),
    "papc_processing_end": (_int, []),
    "papc_monitor_finalize": (_int, []),
    "papc_monitor_running": (_int, []),
}

COLLECTIVES = ("gather", "scatter", "bcast", "reduce", "allreduce",
               "gatherv", "scatterv")


def _declare():
    for name, (restype, argtypes) in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    for coll in COLLECTIVES:
        plain = _SIGNATURES["papc_" + coll]
        fn = getattr(lib, f"papc_{coll}_alg")
        fn.restype = plain[0]
        fn.argtypes = plain[1] + [_name]


_declare()
