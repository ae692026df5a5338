/*
 * ompi-coll-probe.c — which algorithm did Open MPI's coll/tuned run?
 *
 * An LD_PRELOAD shim for papc-select-bench (scripts/select-bench.sh builds
 * it with `cc -shared -fPIC`).  Open MPI 4.1's coll/tuned component
 * (mca_coll_tuned.so) runs its algorithms by calling the exported
 * ompi_coll_base_<coll>_intra_<algorithm> functions of libmpi.so; this
 * library defines the same names, so the dynamic linker binds tuned's calls
 * here, and each wrapper notes the algorithm and passes the call on to
 * libmpi's function (dlsym RTLD_NEXT).  papc_ompi_probe_take() returns the
 * first algorithm called since the previous take (the outer one: a
 * nonoverlapping allreduce calls reduce and bcast inside) and forgets it;
 * papc-select-bench looks it up with dlsym and records it as the native
 * variant's algorithm, under Open MPI's default choice and under a dynamic
 * rules file alike (so the CSV shows that the rules were applied).
 *
 * The wrappers do not know the functions' prototypes: they take and pass on
 * twelve integer-class arguments, which on x86-64 (System V ABI: the first
 * six in registers, the rest in the caller's stack slots, no floating-point
 * arguments in these functions) hands every argument over unchanged and
 * reads at most a few words of the caller's frame beyond the real ones.
 * Hence x86-64 only; names are Open MPI 4.1's enumerator names (ompi_info
 * --param coll tuned --level 9).  The cost is one indirect call per
 * collective.  Not part of the library: a measurement aid.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#if !defined(__x86_64__)
#error "ompi-coll-probe forwards arguments the x86-64 System V way only"
#endif

typedef long (*base_fn)(long, long, long, long, long, long, long, long, long,
                        long, long, long);

/* The first algorithm since the last take.  The benchmark is single
 * threaded around its native calls. */
static const char *first;

const char *papc_ompi_probe_take(void);
const char *papc_ompi_probe_take(void) {
    const char *f = first;
    first = NULL;
    return f;
}

static base_fn next_of(const char *symbol) {
    base_fn f = (base_fn)dlsym(RTLD_NEXT, symbol);
    if (!f) {
        fprintf(stderr, "ompi-coll-probe: %s not found after the probe "
                "(not Open MPI 4.1?)\n", symbol);
        abort();
    }
    return f;
}

#define PROBE(coll, base, name)                                              \
    long ompi_coll_base_##coll##_intra_##base(long, long, long, long, long, \
                                              long, long, long, long, long, \
                                              long, long);                  \
    long ompi_coll_base_##coll##_intra_##base(long a, long b, long c,       \
                                              long d, long e, long f,       \
                                              long g, long h, long i,       \
                                              long j, long k, long l) {     \
        static base_fn next;                                                 \
        if (!next)                                                           \
            next = next_of("ompi_coll_base_" #coll "_intra_" #base);         \
        if (!first) first = #coll ":" name;                                  \
        return next(a, b, c, d, e, f, g, h, i, j, k, l);                     \
    }

PROBE(gather, basic_linear, "basic_linear")
PROBE(gather, binomial, "binomial")
PROBE(gather, linear_sync, "linear_sync")
PROBE(scatter, basic_linear, "basic_linear")
PROBE(scatter, binomial, "binomial")
PROBE(scatter, linear_nb, "linear_nb")
PROBE(bcast, basic_linear, "basic_linear")
PROBE(bcast, chain, "chain")
PROBE(bcast, pipeline, "pipeline")
PROBE(bcast, split_bintree, "split_binary_tree")
PROBE(bcast, bintree, "binary_tree")
PROBE(bcast, binomial, "binomial")
PROBE(bcast, knomial, "knomial")
PROBE(bcast, scatter_allgather, "scatter_allgather")
PROBE(bcast, scatter_allgather_ring, "scatter_allgather_ring")
PROBE(reduce, basic_linear, "linear")
PROBE(reduce, chain, "chain")
PROBE(reduce, pipeline, "pipeline")
PROBE(reduce, binary, "binary")
PROBE(reduce, binomial, "binomial")
PROBE(reduce, in_order_binary, "in-order_binary")
PROBE(reduce, redscat_gather, "rabenseifner")
PROBE(allreduce, basic_linear, "basic_linear")
PROBE(allreduce, nonoverlapping, "nonoverlapping")
PROBE(allreduce, recursivedoubling, "recursive_doubling")
PROBE(allreduce, ring, "ring")
PROBE(allreduce, ring_segmented, "segmented_ring")
PROBE(allreduce, redscat_allgather, "rabenseifner")
