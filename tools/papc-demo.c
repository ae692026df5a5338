/*
 * papc-demo — a short demonstration of papcoll (what `make demo` runs until
 * the benchmark exists).  For every collective and every registered
 * algorithm (a walk of the registry), it runs the algorithm on a few counts
 * and roots, compares the result bit for bit with the native MPI collective,
 * times it against the native collective, and prints one line:
 *
 *   gather    linear_sync        ok       (0.42 ms vs native 0.40 ms)
 *
 * then a summary.  Reductions are checked with MPI_SUM on ints and, where
 * the algorithm does not declare the commutative restriction, with a
 * non-commutative user op (composition of affine maps x -> a*x + b), which
 * only matches MPI when the order rank 0 op rank 1 op ... is kept.
 *
 * Times: mean over a few calls after warm-up; each call is timed with
 * MPI_Wtime between barriers and the slowest rank counts.  This is a
 * demonstration, not a benchmark: on an oversubscribed machine the figures
 * are noisy.
 *
 * Algorithms that are not written yet (MPI_ERR_UNSUPPORTED_OPERATION) are
 * reported as "pending" and do not fail the demo; a mismatch or any other
 * error does.  Exit status: 0 all present algorithms correct, 1 a mismatch
 * or an error, 2 bad usage.  Public API only.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "papcoll.h"

#define SENTINEL (-7)          /* fills outputs: untouched gaps must match */
#define TIME_COUNT 16384       /* ints per block when timing: 64 KiB */
#define MAX_CHECK_COUNT 20001  /* > segment size, not a multiple of P */
#define DETAIL_LEN 256

static const int check_counts[] = {5, MAX_CHECK_COUNT}; /* 5 < P = 8 */

enum status { ST_OK = 0, ST_PENDING = 1, ST_ERROR = 2, ST_MISMATCH = 3 };

typedef struct demo {
    int rank, size;
    size_t cap;                /* ints in each of send/recv/ref */
    int *send, *recv, *ref;
    int *counts, *displs;      /* layout of the v-collectives */
    MPI_Datatype pair;         /* two unsigned ints: one affine map */
    MPI_Op affine;             /* non-commutative composition */
    int warmup, iters;
} demo;

/* One checked call. */
typedef struct kase {
    int count;
    int root;
    int noncomm;               /* use the affine op on pairs */
} kase;

/* Fills the inputs and resets both outputs; returns how many ints of
 * recv/ref this rank compares. */
typedef size_t (*prepare_fn)(demo *d, const kase *k);
/* Runs the collective: natively into ref when alg is NULL, else papcoll's
 * algorithm alg into recv. */
typedef int (*call_fn)(demo *d, const kase *k, const char *alg);

typedef struct coll_ops {
    prepare_fn prepare;
    call_fn call;
    int has_root;
    int reduces;               /* takes an op: also try the affine op */
} coll_ops;

/* ---- the non-commutative op ------------------------------------------ */

/* inout = in ∘ inout for maps x -> a x + b stored as (a, b): MPI passes the
 * left operand in `in`.  Unsigned arithmetic wraps, so it is exact. */
static void affine_compose(void *in, void *inout, int *len,
                           MPI_Datatype *type) {
    const unsigned *l = in;
    unsigned *r = inout;
    (void)type;
    for (int i = 0; i < *len; i++) {
        unsigned a = l[2 * i] * r[2 * i];
        unsigned b = l[2 * i] * r[2 * i + 1] + l[2 * i + 1];
        r[2 * i] = a;
        r[2 * i + 1] = b;
    }
}

/* ---- data ------------------------------------------------------------ */

static int value(int rank, size_t i) { return rank * 131 + (int)(i % 1009); }

static void fill_pattern(int *buf, size_t n, int rank) {
    for (size_t i = 0; i < n; i++) buf[i] = value(rank, i);
}

/* Odd multipliers keep the composed maps from collapsing to zero. */
static void fill_affine(int *buf, size_t pairs, int rank) {
    unsigned *u = (unsigned *)buf;
    for (size_t i = 0; i < pairs; i++) {
        u[2 * i] = ((unsigned)rank * 2654435761u + (unsigned)i * 40503u) | 1u;
        u[2 * i + 1] = (unsigned)rank * 7u + (unsigned)i;
    }
}

static void fill_sentinel(demo *d, size_t n) {
    for (size_t i = 0; i < n; i++) d->recv[i] = d->ref[i] = SENTINEL;
}

/* Irregular blocks for gatherv/scatterv: some empty, stored in reverse rank
 * order with gaps, so displacements really matter.  Returns the ints the
 * layout spans. */
static size_t irregular_layout(demo *d, int count) {
    size_t at = 1;
    for (int i = 0; i < d->size; i++)
        d->counts[i] = (i % 4 == 1) ? 0 : count / (1 + i % 3) + i;
    for (int i = d->size - 1; i >= 0; i--) {
        d->displs[i] = (int)at;
        at += (size_t)d->counts[i] + 2;
    }
    return at;
}

/* ---- the collectives ------------------------------------------------- */

static size_t gather_prepare(demo *d, const kase *k) {
    fill_pattern(d->send, (size_t)k->count, d->rank);
    size_t n = d->rank == k->root ? (size_t)d->size * (size_t)k->count : 0;
    fill_sentinel(d, n);
    return n;
}

static int gather_call(demo *d, const kase *k, const char *alg) {
    if (!alg)
        return MPI_Gather(d->send, k->count, MPI_INT, d->ref, k->count,
                          MPI_INT, k->root, MPI_COMM_WORLD);
    return papc_gather_alg(d->send, k->count, MPI_INT, d->recv, k->count,
                           MPI_INT, k->root, MPI_COMM_WORLD, alg);
}

static size_t scatter_prepare(demo *d, const kase *k) {
    fill_pattern(d->send, (size_t)d->size * (size_t)k->count, d->rank);
    fill_sentinel(d, (size_t)k->count);
    return (size_t)k->count;
}

static int scatter_call(demo *d, const kase *k, const char *alg) {
    if (!alg)
        return MPI_Scatter(d->send, k->count, MPI_INT, d->ref, k->count,
                           MPI_INT, k->root, MPI_COMM_WORLD);
    return papc_scatter_alg(d->send, k->count, MPI_INT, d->recv, k->count,
                            MPI_INT, k->root, MPI_COMM_WORLD, alg);
}

static size_t bcast_prepare(demo *d, const kase *k) {
    size_t n = (size_t)k->count;
    fill_sentinel(d, n);
    if (d->rank == k->root) {
        fill_pattern(d->recv, n, d->rank);
        memcpy(d->ref, d->recv, n * sizeof *d->ref);
    }
    return n;
}

static int bcast_call(demo *d, const kase *k, const char *alg) {
    if (!alg)
        return MPI_Bcast(d->ref, k->count, MPI_INT, k->root, MPI_COMM_WORLD);
    return papc_bcast_alg(d->recv, k->count, MPI_INT, k->root,
                          MPI_COMM_WORLD, alg);
}

/* Reductions: ints with MPI_SUM, or pairs with the affine op. */
static size_t reduce_input(demo *d, const kase *k) {
    size_t ints = (size_t)k->count * (k->noncomm ? 2 : 1);
    if (k->noncomm)
        fill_affine(d->send, (size_t)k->count, d->rank);
    else
        fill_pattern(d->send, ints, d->rank);
    fill_sentinel(d, ints);
    return ints;
}

static size_t reduce_prepare(demo *d, const kase *k) {
    size_t ints = reduce_input(d, k);
    return d->rank == k->root ? ints : 0;
}

static int reduce_call(demo *d, const kase *k, const char *alg) {
    MPI_Datatype t = k->noncomm ? d->pair : MPI_INT;
    MPI_Op op = k->noncomm ? d->affine : MPI_SUM;
    if (!alg)
        return MPI_Reduce(d->send, d->ref, k->count, t, op, k->root,
                          MPI_COMM_WORLD);
    return papc_reduce_alg(d->send, d->recv, k->count, t, op, k->root,
                           MPI_COMM_WORLD, alg);
}

static size_t allreduce_prepare(demo *d, const kase *k) {
    return reduce_input(d, k);
}

static int allreduce_call(demo *d, const kase *k, const char *alg) {
    MPI_Datatype t = k->noncomm ? d->pair : MPI_INT;
    MPI_Op op = k->noncomm ? d->affine : MPI_SUM;
    if (!alg)
        return MPI_Allreduce(d->send, d->ref, k->count, t, op,
                             MPI_COMM_WORLD);
    return papc_allreduce_alg(d->send, d->recv, k->count, t, op,
                              MPI_COMM_WORLD, alg);
}

static size_t gatherv_prepare(demo *d, const kase *k) {
    size_t span = irregular_layout(d, k->count);
    fill_pattern(d->send, (size_t)d->counts[d->rank], d->rank);
    size_t n = d->rank == k->root ? span : 0;
    fill_sentinel(d, n);
    return n;
}

static int gatherv_call(demo *d, const kase *k, const char *alg) {
    int mine = d->counts[d->rank];
    if (!alg)
        return MPI_Gatherv(d->send, mine, MPI_INT, d->ref, d->counts,
                           d->displs, MPI_INT, k->root, MPI_COMM_WORLD);
    return papc_gatherv_alg(d->send, mine, MPI_INT, d->recv, d->counts,
                            d->displs, MPI_INT, k->root, MPI_COMM_WORLD, alg);
}

static size_t scatterv_prepare(demo *d, const kase *k) {
    size_t span = irregular_layout(d, k->count);
    fill_pattern(d->send, span, d->rank);
    size_t n = (size_t)d->counts[d->rank];
    fill_sentinel(d, n);
    return n;
}

static int scatterv_call(demo *d, const kase *k, const char *alg) {
    int mine = d->counts[d->rank];
    if (!alg)
        return MPI_Scatterv(d->send, d->counts, d->displs, MPI_INT, d->ref,
                            mine, MPI_INT, k->root, MPI_COMM_WORLD);
    return papc_scatterv_alg(d->send, d->counts, d->displs, MPI_INT, d->recv,
                             mine, MPI_INT, k->root, MPI_COMM_WORLD, alg);
}

static const coll_ops ops_of[PAPC_NUM_COLLECTIVES] = {
    [PAPC_GATHER] = {gather_prepare, gather_call, 1, 0},
    [PAPC_SCATTER] = {scatter_prepare, scatter_call, 1, 0},
    [PAPC_BCAST] = {bcast_prepare, bcast_call, 1, 0},
    [PAPC_REDUCE] = {reduce_prepare, reduce_call, 1, 1},
    [PAPC_ALLREDUCE] = {allreduce_prepare, allreduce_call, 0, 1},
    [PAPC_GATHERV] = {gatherv_prepare, gatherv_call, 1, 0},
    [PAPC_SCATTERV] = {scatterv_prepare, scatterv_call, 1, 0},
};

/* ---- checking -------------------------------------------------------- */

/* Agrees on the worst status of all ranks and brings the lowest such rank's
 * detail to rank 0 (native MPI only, so it works whatever papcoll did). */
static int agree(demo *d, int status, char *detail) {
    int in[2] = {status, d->rank}, out[2];
    /* MAXLOC breaks ties towards the lowest rank. */
    MPI_Allreduce(in, out, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD);
    int worst = out[0], who = out[1];
    if (worst == ST_OK || who == 0) return worst;
    if (d->rank == who)
        MPI_Send(detail, DETAIL_LEN, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    else if (d->rank == 0)
        MPI_Recv(detail, DETAIL_LEN, MPI_CHAR, who, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    return worst;
}

static void describe_case(const kase *k, int has_root, char *out,
                          size_t len) {
    int n = snprintf(out, len, "count %d", k->count);
    if (has_root) n += snprintf(out + n, len - (size_t)n, ", root %d", k->root);
    if (k->noncomm) snprintf(out + n, len - (size_t)n, ", non-commutative op");
}

/* Runs one case natively and with alg; returns this rank's status. */
static int check_case(demo *d, const coll_ops *ops, const kase *k,
                      const char *alg, char *detail) {
    char what[96];
    describe_case(k, ops->has_root, what, sizeof what);
    size_t n = ops->prepare(d, k);
    int rc = ops->call(d, k, NULL);
    if (rc != MPI_SUCCESS) {
        snprintf(detail, DETAIL_LEN, "native MPI failed (%s)", what);
        return ST_ERROR;
    }
    rc = ops->call(d, k, alg);
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION) {
        snprintf(detail, DETAIL_LEN, "unavailable (MPI_ERR_UNSUPPORTED_OPERATION)");
        return ST_PENDING;
    }
    if (rc != MPI_SUCCESS) {
        snprintf(detail, DETAIL_LEN, "rank %d, %s: %s", d->rank, what,
                 papc_strerror(rc));
        return ST_ERROR;
    }
    for (size_t i = 0; i < n; i++)
        if (d->recv[i] != d->ref[i]) {
            snprintf(detail, DETAIL_LEN,
                     "rank %d, %s: int %zu is %d, native MPI gives %d",
                     d->rank, what, i, d->recv[i], d->ref[i]);
            return ST_MISMATCH;
        }
    return ST_OK;
}

/* Every case of one algorithm; stops at the first failure anywhere. */
static int check_algorithm(demo *d, papc_collective coll,
                           const papc_algorithm_info *a, char *detail) {
    const coll_ops *ops = &ops_of[coll];
    int roots[3] = {0, d->size / 2, d->size - 1};
    int nroots = ops->has_root ? 3 : 1;
    int nops = ops->reduces && !(a->restrictions & PAPC_RESTRICT_COMMUTATIVE)
                   ? 2 : 1;
    for (size_t c = 0; c < sizeof check_counts / sizeof *check_counts; c++)
        for (int r = 0; r < nroots; r++) {
            if (r > 0 && roots[r] == roots[r - 1]) continue; /* small P */
            for (int o = 0; o < nops; o++) {
                kase k = {check_counts[c], roots[r], o};
                detail[0] = '\0';
                int st = agree(d, check_case(d, ops, &k, a->name, detail),
                               detail);
                if (st != ST_OK) return st;
            }
        }
    return ST_OK;
}

/* ---- timing ---------------------------------------------------------- */

/* Times alg and the native collective in alternation (so both see the
 * same machine load): the mean over d->iters calls after d->warmup, of the
 * slowest rank's time, in milliseconds. */
static void time_pair(demo *d, papc_collective coll, const char *alg,
                      double *mine_ms, double *native_ms) {
    const coll_ops *ops = &ops_of[coll];
    kase k = {TIME_COUNT, 0, 0};
    size_t n = 2 * (size_t)d->iters;
    double *t = calloc(n, sizeof *t), *tmax = calloc(n, sizeof *tmax);
    if (!t || !tmax) MPI_Abort(MPI_COMM_WORLD, 1);
    ops->prepare(d, &k);
    for (int i = -d->warmup; i < d->iters; i++)
        for (int native = 0; native < 2; native++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            ops->call(d, &k, native ? NULL : alg);
            double dt = MPI_Wtime() - t0;
            if (i >= 0) t[2 * i + native] = dt;
        }
    MPI_Allreduce(t, tmax, (int)n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double sum[2] = {0, 0};
    for (size_t i = 0; i < n; i++) sum[i % 2] += tmax[i];
    *mine_ms = 1e3 * sum[0] / d->iters;
    *native_ms = 1e3 * sum[1] / d->iters;
    free(t);
    free(tmax);
}

/* ---- main ------------------------------------------------------------ */

static void usage(FILE *out) {
    fprintf(out,
            "usage: papc-demo [--iters N] [--warmup N] [--help]\n"
            "Checks every registered papcoll algorithm against the native MPI "
            "collective\nand times both (run it under mpirun, e.g. -np 8).\n"
            "  --iters N   timed calls per algorithm (default 20)\n"
            "  --warmup N  untimed calls first (default 2)\n");
}

static int parse_int(const char *s, int lo, int *out) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > 100000) return 0;
    *out = (int)v;
    return 1;
}

/* 0 ok, 1 help shown, 2 bad usage. */
static int parse(int argc, char **argv, demo *d, int rank) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (rank == 0) usage(stdout);
            return 1;
        }
        int *dst = !strcmp(a, "--iters") ? &d->iters
                   : !strcmp(a, "--warmup") ? &d->warmup : NULL;
        if (dst && i + 1 < argc && parse_int(argv[i + 1], dst == &d->iters,
                                             dst)) {
            i++;
            continue;
        }
        if (rank == 0)
            fprintf(stderr, "papc-demo: bad argument '%s' (try --help)\n", a);
        return 2;
    }
    return 0;
}

static int setup(demo *d) {
    int maxcount = MAX_CHECK_COUNT > TIME_COUNT ? MAX_CHECK_COUNT : TIME_COUNT;
    /* The largest span: P blocks of pairs, or the v-layout with its gaps. */
    d->cap = (size_t)d->size * (size_t)maxcount * 2 + 4 * (size_t)d->size + 16;
    d->send = malloc(d->cap * sizeof(int));
    d->recv = malloc(d->cap * sizeof(int));
    d->ref = malloc(d->cap * sizeof(int));
    d->counts = malloc((size_t)d->size * sizeof(int));
    d->displs = malloc((size_t)d->size * sizeof(int));
    if (!d->send || !d->recv || !d->ref || !d->counts || !d->displs) return 0;
    MPI_Type_contiguous(2, MPI_UNSIGNED, &d->pair);
    MPI_Type_commit(&d->pair);
    MPI_Op_create(affine_compose, 0, &d->affine);
    return 1;
}

static void teardown(demo *d) {
    MPI_Op_free(&d->affine);
    MPI_Type_free(&d->pair);
    free(d->send);
    free(d->recv);
    free(d->ref);
    free(d->counts);
    free(d->displs);
}

static void print_header(const demo *d) {
    printf("papcoll %s demo on %d process%s (%s)\n", PAPC_VERSION_STRING,
           d->size, d->size == 1 ? "" : "es", papc_mpi_library());
    printf("checks: counts %d and %d ints, roots 0, P/2, P-1; MPI_SUM and, "
           "where allowed, a\n        non-commutative user op; bit for bit "
           "against the native MPI collective\n",
           check_counts[0], check_counts[1]);
    printf("times:  %d KiB per block, root 0, mean of %d calls after %d "
           "warm-up, slowest rank,\n        alternating with the native call\n\n",
           (int)(TIME_COUNT * sizeof(int) / 1024), d->iters, d->warmup);
}

int main(int argc, char **argv) {
    demo d;
    memset(&d, 0, sizeof d);
    d.iters = 20;
    d.warmup = 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &d.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &d.size);
    int pr = parse(argc, argv, &d, d.rank);
    if (pr != 0) {
        MPI_Finalize();
        return pr == 1 ? 0 : 2;
    }
    if (!setup(&d)) {
        fprintf(stderr, "papc-demo: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (d.rank == 0) print_header(&d);

    int counted[4] = {0, 0, 0, 0}; /* per status */
    for (int c = 0; c < PAPC_NUM_COLLECTIVES; c++) {
        papc_collective coll = (papc_collective)c;
        for (int i = 0; i < papc_algorithm_count(coll); i++) {
            const papc_algorithm_info *a = papc_algorithm_get(coll, i);
            char detail[DETAIL_LEN] = "";
            int st = check_algorithm(&d, coll, a, detail);
            double mine = 0, native = 0;
            if (st == ST_OK) time_pair(&d, coll, a->name, &mine, &native);
            counted[st]++;
            if (d.rank != 0) continue;
            printf("%-9s %-18s ", papc_collective_name(coll), a->name);
            if (st == ST_OK)
                printf("ok       (%.2f ms vs native %.2f ms)\n", mine, native);
            else if (st == ST_PENDING)
                printf("pending  (%s)\n", detail);
            else
                printf("%-8s %s\n", st == ST_MISMATCH ? "MISMATCH" : "ERROR",
                       detail);
            fflush(stdout);
        }
    }
    int total = counted[0] + counted[1] + counted[2] + counted[3];
    int failed = counted[ST_ERROR] + counted[ST_MISMATCH];
    if (d.rank == 0) {
        printf("\nsummary: %d algorithms on %d process%s: %d ok, %d failed "
               "(%d mismatch, %d error), %d pending\n",
               total, d.size, d.size == 1 ? "" : "es", counted[ST_OK], failed,
               counted[ST_MISMATCH], counted[ST_ERROR], counted[ST_PENDING]);
        printf("%s\n", failed ? "demo: FAILED" : counted[ST_PENDING]
                   ? "demo: every implemented algorithm matches native MPI"
                   : "demo: every algorithm matches native MPI");
    }
    teardown(&d);
    MPI_Finalize();
    return failed ? 1 : 0;
}
