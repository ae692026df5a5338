/*
 * ompi_coll_trace.c — LD_PRELOAD library that reports which of Open MPI's
 * coll/base algorithm functions the tuned component really called, with
 * the segment size (or first part, chain count) it passed (issue 12,
 * item 6: proving that an exported rules file is APPLIED).
 *
 * Why this and not Open MPI's own verbose output: Debian's Open MPI 4.1.4
 * is built without --enable-debug, so every message of the rules-file
 * reader and of the dynamic decision is an OPAL_OUTPUT compiled away
 * (`strings mca_coll_tuned.so` has none of them), and the reader ignores a
 * malformed file silently.  mca_coll_tuned.so calls the ompi_coll_base_*
 * functions of libmpi.so through its PLT, so a preloaded definition sees
 * every call the tuned decision makes.
 *
 * Each call prints one line on stderr:
 *   ompi-trace: rank R <collective> <open mpi name> seg <bytes> count <n>
 * (seg: segment size, gather linear_sync's first part, or 0.)  The
 * signatures are Open MPI 4.1's (coll_base_functions.h: int counts).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

typedef void *ptr; /* ompi_datatype_t *, ompi_op_t *, communicator, module */

static void trace(const char *coll, const char *alg, long seg, long count) {
    int rank = -1, up = 0;
    MPI_Initialized(&up);
    if (up) PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "ompi-trace: rank %d %s %s seg %ld count %ld\n", rank,
            coll, alg, seg, count);
    fflush(stderr);
}

/* The next definition of sym (libmpi.so's); aborts if there is none. */
static void *next_symbol(const char *sym) {
    void *f = dlsym(RTLD_NEXT, sym);
    if (!f) {
        fprintf(stderr, "ompi-trace: %s not found in the next library\n",
                sym);
        abort();
    }
    return f;
}

#define REAL(type, sym) \
    static type real; \
    if (!real) real = (type)next_symbol(#sym)

/* ---- bcast: buf, count, dtype, root, comm, module [, segsize[, chains]] */
typedef int (*bcast_fn)(void *, int, ptr, int, ptr, ptr);
typedef int (*bcast_seg_fn)(void *, int, ptr, int, ptr, ptr, uint32_t);
typedef int (*bcast_chain_fn)(void *, int, ptr, int, ptr, ptr, uint32_t,
                              int32_t);

int ompi_coll_base_bcast_intra_basic_linear(void *b, int n, ptr t, int r,
                                            ptr c, ptr m) {
    REAL(bcast_fn, ompi_coll_base_bcast_intra_basic_linear);
    trace("bcast", "basic_linear", 0, n);
    return real(b, n, t, r, c, m);
}

#define BCAST_SEG(fn, name) \
    int fn(void *b, int n, ptr t, int r, ptr c, ptr m, uint32_t seg) { \
        REAL(bcast_seg_fn, fn); \
        trace("bcast", name, (long)seg, n); \
        return real(b, n, t, r, c, m, seg); \
    }
BCAST_SEG(ompi_coll_base_bcast_intra_pipeline, "pipeline")
BCAST_SEG(ompi_coll_base_bcast_intra_binomial, "binomial")
BCAST_SEG(ompi_coll_base_bcast_intra_bintree, "binary_tree")
BCAST_SEG(ompi_coll_base_bcast_intra_split_bintree, "split_binary_tree")
BCAST_SEG(ompi_coll_base_bcast_intra_scatter_allgather, "scatter_allgather")
BCAST_SEG(ompi_coll_base_bcast_intra_scatter_allgather_ring,
          "scatter_allgather_ring")

int ompi_coll_base_bcast_intra_knomial(void *b, int n, ptr t, int r, ptr c,
                                       ptr m, uint32_t seg, int radix) {
    REAL(bcast_chain_fn, ompi_coll_base_bcast_intra_knomial);
    trace("bcast", "knomial", (long)seg, n);
    return real(b, n, t, r, c, m, seg, radix);
}

int ompi_coll_base_bcast_intra_chain(void *b, int n, ptr t, int r, ptr c,
                                     ptr m, uint32_t seg, int32_t chains) {
    REAL(bcast_chain_fn, ompi_coll_base_bcast_intra_chain);
    char name[32];
    snprintf(name, sizeof name, "chain/%d", (int)chains);
    trace("bcast", name, (long)seg, n);
    return real(b, n, t, r, c, m, seg, chains);
}

/* ---- gather, scatter: sbuf, scount, stype, rbuf, rcount, rtype, root,
 * comm, module [, first_segment_size | max_reqs] */
typedef int (*gs_fn)(const void *, int, ptr, void *, int, ptr, int, ptr,
                     ptr);
typedef int (*gs_int_fn)(const void *, int, ptr, void *, int, ptr, int, ptr,
                         ptr, int);

#define GS_PLAIN(fn, coll, name) \
    int fn(const void *sb, int sn, ptr st, void *rb, int rn, ptr rt, \
           int root, ptr c, ptr m) { \
        REAL(gs_fn, fn); \
        trace(coll, name, 0, sn); \
        return real(sb, sn, st, rb, rn, rt, root, c, m); \
    }
GS_PLAIN(ompi_coll_base_gather_intra_basic_linear, "gather", "basic_linear")
GS_PLAIN(ompi_coll_base_gather_intra_binomial, "gather", "binomial")
GS_PLAIN(ompi_coll_base_scatter_intra_basic_linear, "scatter",
         "basic_linear")
GS_PLAIN(ompi_coll_base_scatter_intra_binomial, "scatter", "binomial")

#define GS_INT(fn, coll, name) \
    int fn(const void *sb, int sn, ptr st, void *rb, int rn, ptr rt, \
           int root, ptr c, ptr m, int x) { \
        REAL(gs_int_fn, fn); \
        trace(coll, name, x, sn); \
        return real(sb, sn, st, rb, rn, rt, root, c, m, x); \
    }
GS_INT(ompi_coll_base_gather_intra_linear_sync, "gather", "linear_sync")
GS_INT(ompi_coll_base_scatter_intra_linear_nb, "scatter", "linear_nb")

/* ---- reduce: sbuf, rbuf, count, dtype, op, root, comm, module [...] */
typedef int (*reduce_fn)(const void *, void *, int, ptr, ptr, int, ptr, ptr);
typedef int (*reduce_seg_fn)(const void *, void *, int, ptr, ptr, int, ptr,
                             ptr, uint32_t, int);

int ompi_coll_base_reduce_intra_basic_linear(const void *s, void *r, int n,
                                             ptr t, ptr o, int root, ptr c,
                                             ptr m) {
    REAL(reduce_fn, ompi_coll_base_reduce_intra_basic_linear);
    trace("reduce", "linear", 0, n);
    return real(s, r, n, t, o, root, c, m);
}

int ompi_coll_base_reduce_intra_redscat_gather(const void *s, void *r,
                                               int n, ptr t, ptr o,
                                               int root, ptr c, ptr m) {
    REAL(reduce_fn, ompi_coll_base_reduce_intra_redscat_gather);
    trace("reduce", "rabenseifner", 0, n);
    return real(s, r, n, t, o, root, c, m);
}

#define REDUCE_SEG(fn, name) \
    int fn(const void *s, void *r, int n, ptr t, ptr o, int root, ptr c, \
           ptr m, uint32_t seg, int reqs) { \
        REAL(reduce_seg_fn, fn); \
        trace("reduce", name, (long)seg, n); \
        return real(s, r, n, t, o, root, c, m, seg, reqs); \
    }
REDUCE_SEG(ompi_coll_base_reduce_intra_binomial, "binomial")
REDUCE_SEG(ompi_coll_base_reduce_intra_pipeline, "pipeline")
REDUCE_SEG(ompi_coll_base_reduce_intra_binary, "binary")
REDUCE_SEG(ompi_coll_base_reduce_intra_in_order_binary, "in-order_binary")

/* ---- allreduce: sbuf, rbuf, count, dtype, op, comm, module [, seg] */
typedef int (*allreduce_fn)(const void *, void *, int, ptr, ptr, ptr, ptr);
typedef int (*allreduce_seg_fn)(const void *, void *, int, ptr, ptr, ptr,
                                ptr, uint32_t);

#define ALLREDUCE(fn, name) \
    int fn(const void *s, void *r, int n, ptr t, ptr o, ptr c, ptr m) { \
        REAL(allreduce_fn, fn); \
        trace("allreduce", name, 0, n); \
        return real(s, r, n, t, o, c, m); \
    }
ALLREDUCE(ompi_coll_base_allreduce_intra_basic_linear, "basic_linear")
ALLREDUCE(ompi_coll_base_allreduce_intra_recursivedoubling,
          "recursive_doubling")
ALLREDUCE(ompi_coll_base_allreduce_intra_ring, "ring")
ALLREDUCE(ompi_coll_base_allreduce_intra_redscat_allgather, "rabenseifner")
ALLREDUCE(ompi_coll_base_allreduce_intra_nonoverlapping, "nonoverlapping")

int ompi_coll_base_allreduce_intra_ring_segmented(const void *s, void *r,
                                                  int n, ptr t, ptr o,
                                                  ptr c, ptr m,
                                                  uint32_t seg) {
    REAL(allreduce_seg_fn, ompi_coll_base_allreduce_intra_ring_segmented);
    trace("allreduce", "segmented_ring", (long)seg, n);
    return real(s, r, n, t, o, c, m, seg);
}
