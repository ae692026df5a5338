/*
 * test_coll.c — every registered algorithm of one collective, and the plain
 * call (the library's choice), against the native MPI collective, bit for
 * bit.  Usage: mpiexec -n P test_coll <collective>
 *
 * For each algorithm the test walks roots (first, middle, last), counts
 * {0, 1, 17, 65536}, datatypes (int, float, double, a strided vector, a
 * resized type with a nonzero lower bound, send/receive types that differ
 * but share a signature, a zero-size type), ops (SUM, MAX, PROD, a
 * commutative user op, a non-commutative one), MPI_IN_PLACE and small
 * PAPC_SEGSIZE values, on the world communicator and on the halves of a
 * split one, with the user's own point-to-point message in flight on the
 * same communicator; then PAPC_<COLL>_ALGORITHM forcing of the plain call.
 * Each case runs papcoll on one copy of the buffers and MPI on another,
 * both filled alike, and compares every byte of both send and receive
 * buffers: results, untouched inputs, untouched gaps of strided types and
 * untouched buffers MPI declares insignificant.  Floats carry small
 * integers, so sums are exact in any order.  Each mismatch prints one FAIL
 * line; the exit status is nonzero when any rank saw one.
 *
 * gatherv and scatterv also run the irregular plan (run_irregular): the
 * eight problem types of Träff's benchmark (same, random, bucket, spikes
 * with rho = 5, increasing, decreasing, alternating, two_blocks; papers/
 * irregular-gatherv-scatterv.md §5) for b = 1, 10, 1000, blocks of size
 * zero, one non-empty block (at the root, the first, the last, a middle
 * non-root) and all empty; every root for P <= 5, else first, middle,
 * last; the root's blocks in rank order without gaps (where a tree can
 * receive straight into the user's buffer), with gaps, reversed, permuted
 * (empty blocks' displacements pointing into other blocks) and with
 * negative displacements; derived types and types that differ per rank
 * with equal signatures; in place; size_aware_binomial's threshold of
 * graceful degradation at both extremes (PAPC_TUW_THRESHOLD 0 and 1).
 * Non-roots pass NULL or poisoned counts, displacements and root-side
 * datatype, as MPI allows, so an algorithm that reads them there fails;
 * buffers carry 16 guard bytes before and after; a crash prints the case.
 *
 * Usage: test_coll <collective> [algorithm]: with an algorithm name only
 * that row runs (world and split halves, no plain call, no forcing), e.g.
 * bcast knomial under other PAPC_KNOMIAL_RADIX values.
 */
#include <ctype.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "papcoll.h"

#define MAXP 64
#define MAX_FAIL_LINES 40

/* ---- datatypes: each element is nbase values of one base type ---- */

typedef enum { B_INT, B_FLOAT, B_DOUBLE, B_UNSIGNED } base_kind;
static const int base_size[] = {4, 4, 8, 4};

typedef struct ttype {
    const char *name;
    base_kind base;
    int nbase;      /* base values per element */
    int off[3];     /* their byte offsets from the element's address */
    MPI_Datatype t; /* built by make_types() */
} ttype;

enum { T_INT, T_FLOAT, T_DOUBLE, T_VEC, T_RES, T_PAIR, T_AFF, T_AFFPAD,
       T_EMPTY, NTYPES };
static ttype types[NTYPES] = {
    [T_INT] = {"int", B_INT, 1, {0}, 0},
    [T_FLOAT] = {"float", B_FLOAT, 1, {0}, 0},
    [T_DOUBLE] = {"double", B_DOUBLE, 1, {0}, 0},
    /* 3 ints with stride 2: gaps inside each element */
    [T_VEC] = {"vector(3,1,2,int)", B_INT, 3, {0, 8, 16}, 0},
    /* one int at byte 8, lb 4, extent 16: gaps between elements */
    [T_RES] = {"int@8(lb4,ext16)", B_INT, 1, {8}, 0},
    [T_PAIR] = {"contiguous(2,int)", B_INT, 2, {0, 4}, 0},
    [T_AFF] = {"affine(2 unsigned)", B_UNSIGNED, 2, {0, 4}, 0},
    [T_AFFPAD] = {"affine(ext12)", B_UNSIGNED, 2, {0, 4}, 0},
    /* zero bytes: any count moves nothing */
    [T_EMPTY] = {"contiguous(0,int)", B_INT, 0, {0}, 0},
};

static void make_types(void) {
    MPI_Datatype tmp;
    MPI_Aint disp = 8;
    types[T_INT].t = MPI_INT;
    types[T_FLOAT].t = MPI_FLOAT;
    types[T_DOUBLE].t = MPI_DOUBLE;
    MPI_Type_vector(3, 1, 2, MPI_INT, &types[T_VEC].t);
    MPI_Type_create_hindexed_block(1, 1, &disp, MPI_INT, &tmp);
    MPI_Type_create_resized(tmp, 4, 16, &types[T_RES].t);
    MPI_Type_free(&tmp);
    MPI_Type_contiguous(2, MPI_INT, &types[T_PAIR].t);
    MPI_Type_contiguous(2, MPI_UNSIGNED, &types[T_AFF].t);
    MPI_Type_create_resized(types[T_AFF].t, 0, 12, &types[T_AFFPAD].t);
    MPI_Type_contiguous(0, MPI_INT, &types[T_EMPTY].t);
    for (int i = T_VEC; i < NTYPES; i++) MPI_Type_commit(&types[i].t);
}

static const ttype *find_type(MPI_Datatype t) {
    for (int i = 0; i < NTYPES; i++)
        if (types[i].t == t) return &types[i];
    return NULL;
}

/* Bytes spanned by n elements (all our types have lb >= 0). */
static size_t span_bytes(int n, int ti) {
    MPI_Aint lb, ext, tlb, text;
    if (n == 0) return 0;
    MPI_Type_get_extent(types[ti].t, &lb, &ext);
    MPI_Type_get_true_extent(types[ti].t, &tlb, &text);
    return (size_t)(tlb + (MPI_Aint)(n - 1) * ext + text);
}

/* ---- user ops ---- */

static int op_saw_unknown_type; /* set when a user op gets a foreign type */

/* x (+) y = x + y + 1 (wrapping): commutative and associative, but not
 * MPI_SUM, so a missing or extra application shows in the result. */
static void usum_fn(void *in, void *inout, int *len, MPI_Datatype *dt) {
    const ttype *tt = find_type(*dt);
    MPI_Aint lb, ext;
    if (!tt || tt->base != B_INT) {
        op_saw_unknown_type = 1;
        return;
    }
    MPI_Type_get_extent(*dt, &lb, &ext);
    for (int i = 0; i < *len; i++)
        for (int j = 0; j < tt->nbase; j++) {
            size_t at = (size_t)i * (size_t)ext + (size_t)tt->off[j];
            unsigned x, y;
            memcpy(&x, (char *)in + at, 4);
            memcpy(&y, (char *)inout + at, 4);
            y = x + y + 1u;
            memcpy((char *)inout + at, &y, 4);
        }
}

/* Composition of affine maps t -> a t + b (mod 2^32):
 * inout = in o inout, i.e. (a1,b1) o (a2,b2) = (a1 a2, a1 b2 + b1).
 * Associative, not commutative, exact. */
static void affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt) {
    const ttype *tt = find_type(*dt);
    MPI_Aint lb, ext;
    if (!tt || tt->base != B_UNSIGNED) {
        op_saw_unknown_type = 1;
        return;
    }
    MPI_Type_get_extent(*dt, &lb, &ext);
    for (int i = 0; i < *len; i++) {
        unsigned *x = (unsigned *)((char *)in + (size_t)i * (size_t)ext);
        unsigned *y = (unsigned *)((char *)inout + (size_t)i * (size_t)ext);
        unsigned a = x[0] * y[0], b = x[0] * y[1] + x[1];
        y[0] = a;
        y[1] = b;
    }
}

enum { O_NONE, O_SUM, O_MAX, O_PROD, O_USUM, O_AFFINE };
static const char *op_names[] = {"-", "sum", "max", "prod", "user_sum+1",
                                 "affine_compose(noncommutative)"};
static MPI_Op user_ops[2];

static MPI_Op get_op(int o) {
    switch (o) {
    case O_SUM: return MPI_SUM;
    case O_MAX: return MPI_MAX;
    case O_PROD: return MPI_PROD;
    case O_USUM: return user_ops[0];
    case O_AFFINE: return user_ops[1];
    default: return MPI_OP_NULL;
    }
}

/* ---- data ---- */

/* Value i of a buffer of rank: small integers (exact float sums in any
 * order); for PROD mostly 1 with a few 2 and -1 (products stay small); for
 * the affine maps any 32-bit value. */
static void fill(void *buf, size_t bytes, base_kind base, int op, int rank,
                 int salt) {
    size_t n = bytes / (size_t)base_size[base];
    for (size_t i = 0; i < n; i++) {
        unsigned h = (unsigned)rank * 2654435761u ^ (unsigned)i * 40503u ^
                     (unsigned)salt * 97531u;
        h ^= h >> 15;
        h *= 0x2c1b3c6du;
        h ^= h >> 12;
        int v = op == O_PROD ? (h % 11 == 0 ? 2 : h % 13 == 0 ? -1 : 1)
                             : (int)(h % 199) - 99;
        switch (base) {
        case B_INT: ((int *)buf)[i] = v; break;
        case B_FLOAT: ((float *)buf)[i] = (float)v; break;
        case B_DOUBLE: ((double *)buf)[i] = v; break;
        case B_UNSIGNED: ((unsigned *)buf)[i] = h; break;
        }
    }
}

static void base_value(char *out, size_t len, const void *p, base_kind b) {
    int i;
    float f;
    double d;
    unsigned u;
    switch (b) {
    case B_INT: memcpy(&i, p, 4); snprintf(out, len, "%d", i); break;
    case B_FLOAT: memcpy(&f, p, 4); snprintf(out, len, "%g", f); break;
    case B_DOUBLE: memcpy(&d, p, 8); snprintf(out, len, "%g", d); break;
    case B_UNSIGNED: memcpy(&u, p, 4); snprintf(out, len, "%u", u); break;
    }
}

/* ---- the case under test ---- */

/* Datatypes (and op) of a case: the sending side uses sm elements of st
 * where the receiving side uses rm elements of rt (equal signatures). */
typedef struct variant {
    int st, sm, rt, rm, op;
} variant;

typedef enum { RUN_ALG, RUN_PLAIN, RUN_NATIVE } run_kind;
struct tcase;

typedef struct coll_desc {
    papc_collective coll;
    int rooted;      /* has a root */
    int inplace;     /* MPI_IN_PLACE allowed (where: see in_place_*) */
    int vector;      /* gatherv/scatterv */
    const variant *variants;
    int nvariants;
    /* Elements of the send and receive buffers on this rank. */
    void (*sizes)(const struct tcase *t, int *sn, int *rn);
    int (*run)(const struct tcase *t, run_kind k, void *s, void *r);
} coll_desc;

typedef struct tcase {
    const coll_desc *cd;
    MPI_Comm comm;
    const char *comm_name;
    int rank, size;
    const papc_algorithm_info *alg; /* NULL: the plain call */
    const char *forced;  /* PAPC_<COLL>_ALGORITHM for a plain call, or NULL */
    int root, count;
    const variant *v;
    int inplace;
    const char *seg;     /* PAPC_SEGSIZE for the call, NULL: unset */
    int cnt[MAXP], pos[MAXP]; /* v-collectives: blocks and places (units) */
    int counts[MAXP], displs[MAXP], total; /* ... in the root's type */
    /* The irregular plan (v-collectives): a problem type and block size,
     * where the root's blocks go, what non-roots pass for the arguments
     * only the root's are significant. */
    int irregular, gen, b, place, nonroot;
    MPI_Aint shift_bytes; /* root's buffer argument = its buffer + this */
    int poison_counts[MAXP], poison_displs[MAXP];
    /* odd_m > 0: odd ranks use odd_m elements of odd_t instead of sm of
     * st (gatherv) or rm of rt (scatterv), with the same signature; this
     * rank's types are then in own. */
    int odd_t, odd_m;
    variant own;
    /* PAPC_TUW_THRESHOLD for the call (NULL: unset): size_aware_binomial's
     * graceful-degradation threshold in bytes, "0" = a pure tree. */
    const char *threshold;
} tcase;

#define ST(t) (types[(t)->v->st].t)
#define RT(t) (types[(t)->v->rt].t)
#define IS_ROOT(t) ((t)->rank == (t)->root)

static const char *coll_name(const tcase *t) {
    return papc_collective_name(t->cd->coll);
}

/* ---- the collectives: sizes and the three ways to call each ---- */

/* Buffers MPI ignores (a gather's recvbuf off the root, ...) get one
 * block: enough to see them written, cheap to fill and compare. */
static int blocks_at(const tcase *t) {
    return IS_ROOT(t) ? t->size : 1;
}

static void sizes_gather(const tcase *t, int *sn, int *rn) {
    *sn = t->count * t->v->sm;
    *rn = blocks_at(t) * t->count * t->v->rm;
}

static int run_gather(const tcase *t, run_kind k, void *s, void *r) {
    const void *sb = t->inplace && IS_ROOT(t) ? MPI_IN_PLACE : s;
    int sc = t->count * t->v->sm, rc = t->count * t->v->rm;
    if (k == RUN_ALG)
        return papc_gather_alg(sb, sc, ST(t), r, rc, RT(t), t->root, t->comm,
                               t->alg->name);
    if (k == RUN_PLAIN)
        return papc_gather(sb, sc, ST(t), r, rc, RT(t), t->root, t->comm);
    return MPI_Gather(sb, sc, ST(t), r, rc, RT(t), t->root, t->comm);
}

static void sizes_scatter(const tcase *t, int *sn, int *rn) {
    *sn = blocks_at(t) * t->count * t->v->sm;
    *rn = t->count * t->v->rm;
}

static int run_scatter(const tcase *t, run_kind k, void *s, void *r) {
    void *rb = t->inplace && IS_ROOT(t) ? MPI_IN_PLACE : r;
    int sc = t->count * t->v->sm, rc = t->count * t->v->rm;
    if (k == RUN_ALG)
        return papc_scatter_alg(s, sc, ST(t), rb, rc, RT(t), t->root, t->comm,
                                t->alg->name);
    if (k == RUN_PLAIN)
        return papc_scatter(s, sc, ST(t), rb, rc, RT(t), t->root, t->comm);
    return MPI_Scatter(s, sc, ST(t), rb, rc, RT(t), t->root, t->comm);
}

static void sizes_bcast(const tcase *t, int *sn, int *rn) {
    *sn = 0;
    *rn = t->count;
}

static int run_bcast(const tcase *t, run_kind k, void *s, void *r) {
    (void)s;
    if (k == RUN_ALG)
        return papc_bcast_alg(r, t->count, RT(t), t->root, t->comm,
                              t->alg->name);
    if (k == RUN_PLAIN) return papc_bcast(r, t->count, RT(t), t->root, t->comm);
    return MPI_Bcast(r, t->count, RT(t), t->root, t->comm);
}

static void sizes_reduce(const tcase *t, int *sn, int *rn) {
    *sn = *rn = t->count;
}

static int run_reduce(const tcase *t, run_kind k, void *s, void *r) {
    const void *sb = t->inplace && IS_ROOT(t) ? MPI_IN_PLACE : s;
    MPI_Op op = get_op(t->v->op);
    if (k == RUN_ALG)
        return papc_reduce_alg(sb, r, t->count, ST(t), op, t->root, t->comm,
                               t->alg->name);
    if (k == RUN_PLAIN)
        return papc_reduce(sb, r, t->count, ST(t), op, t->root, t->comm);
    return MPI_Reduce(sb, r, t->count, ST(t), op, t->root, t->comm);
}

static int run_allreduce(const tcase *t, run_kind k, void *s, void *r) {
    const void *sb = t->inplace ? MPI_IN_PLACE : s;
    MPI_Op op = get_op(t->v->op);
    if (k == RUN_ALG)
        return papc_allreduce_alg(sb, r, t->count, ST(t), op, t->comm,
                                  t->alg->name);
    if (k == RUN_PLAIN)
        return papc_allreduce(sb, r, t->count, ST(t), op, t->comm);
    return MPI_Allreduce(sb, r, t->count, ST(t), op, t->comm);
}

static void sizes_gatherv(const tcase *t, int *sn, int *rn) {
    *sn = t->cnt[t->rank] * t->v->sm;
    *rn = (IS_ROOT(t) ? t->total : t->count + 2) * t->v->rm;
}

/* The arguments of a v-collective significant only at the root (counts,
 * displacements, the root-side datatype): the real ones at the root and
 * for native MPI (the reference); what the irregular plan gives papcoll
 * at a non-root: NULL, or plausible wrong values that change the result
 * if an algorithm uses them. */
enum { NR_REAL, NR_NULL, NR_POISON };
static const char *nonroot_names[] = {"real", "NULL", "poisoned"};

static void root_args(const tcase *t, run_kind k, const int **counts,
                      const int **displs, MPI_Datatype *type) {
    int garbage = !IS_ROOT(t) && k != RUN_NATIVE ? t->nonroot : NR_REAL;
    *counts = garbage == NR_NULL     ? NULL
              : garbage == NR_POISON ? t->poison_counts
                                     : t->counts;
    *displs = garbage == NR_NULL     ? NULL
              : garbage == NR_POISON ? t->poison_displs
                                     : t->displs;
    if (garbage == NR_NULL) *type = MPI_DATATYPE_NULL;
    if (garbage == NR_POISON) *type = MPI_DOUBLE;
}

static int run_gatherv(const tcase *t, run_kind k, void *s, void *r) {
    const void *sb = t->inplace && IS_ROOT(t) ? MPI_IN_PLACE : s;
    int sc = t->cnt[t->rank] * t->v->sm;
    char *rb = (char *)r + (IS_ROOT(t) ? t->shift_bytes : 0);
    const int *rc, *dp;
    MPI_Datatype rt = RT(t);
    root_args(t, k, &rc, &dp, &rt);
    if (k == RUN_ALG)
        return papc_gatherv_alg(sb, sc, ST(t), rb, rc, dp, rt, t->root,
                                t->comm, t->alg->name);
    if (k == RUN_PLAIN)
        return papc_gatherv(sb, sc, ST(t), rb, rc, dp, rt, t->root, t->comm);
    return MPI_Gatherv(sb, sc, ST(t), rb, rc, dp, rt, t->root, t->comm);
}

static void sizes_scatterv(const tcase *t, int *sn, int *rn) {
    *sn = (IS_ROOT(t) ? t->total : t->count + 2) * t->v->sm;
    *rn = t->cnt[t->rank] * t->v->rm;
}

static int run_scatterv(const tcase *t, run_kind k, void *s, void *r) {
    void *rb = t->inplace && IS_ROOT(t) ? MPI_IN_PLACE : r;
    int rc = t->cnt[t->rank] * t->v->rm;
    char *sb = (char *)s + (IS_ROOT(t) ? t->shift_bytes : 0);
    const int *sc, *dp;
    MPI_Datatype st = ST(t);
    root_args(t, k, &sc, &dp, &st);
    if (k == RUN_ALG)
        return papc_scatterv_alg(sb, sc, dp, st, rb, rc, RT(t), t->root,
                                 t->comm, t->alg->name);
    if (k == RUN_PLAIN)
        return papc_scatterv(sb, sc, dp, st, rb, rc, RT(t), t->root,
                             t->comm);
    return MPI_Scatterv(sb, sc, dp, st, rb, rc, RT(t), t->root, t->comm);
}

/* Gather/scatter-like: same types, and types that differ with equal
 * signatures (2 ints as one contiguous pair; a strided vector as 3 ints). */
static const variant block_variants[] = {
    {T_INT, 1, T_INT, 1, O_NONE},    {T_FLOAT, 1, T_FLOAT, 1, O_NONE},
    {T_DOUBLE, 1, T_DOUBLE, 1, O_NONE}, {T_VEC, 1, T_VEC, 1, O_NONE},
    {T_RES, 1, T_RES, 1, O_NONE},    {T_INT, 2, T_PAIR, 1, O_NONE},
    {T_VEC, 1, T_INT, 3, O_NONE},    {T_EMPTY, 1, T_EMPTY, 1, O_NONE},
};
static const variant bcast_variants[] = {
    {T_INT, 1, T_INT, 1, O_NONE},    {T_FLOAT, 1, T_FLOAT, 1, O_NONE},
    {T_DOUBLE, 1, T_DOUBLE, 1, O_NONE}, {T_VEC, 1, T_VEC, 1, O_NONE},
    {T_RES, 1, T_RES, 1, O_NONE},    {T_AFFPAD, 1, T_AFFPAD, 1, O_NONE},
    {T_EMPTY, 1, T_EMPTY, 1, O_NONE},
};
/* Predefined ops are defined on predefined types only (MPI 4.0 §6.9.2;
 * Open MPI refuses them on derived types): derived types get user ops. */
static const variant reduce_variants[] = {
    {T_INT, 1, T_INT, 1, O_SUM},       {T_INT, 1, T_INT, 1, O_MAX},
    {T_INT, 1, T_INT, 1, O_PROD},      {T_INT, 1, T_INT, 1, O_USUM},
    {T_FLOAT, 1, T_FLOAT, 1, O_SUM},   {T_FLOAT, 1, T_FLOAT, 1, O_MAX},
    {T_DOUBLE, 1, T_DOUBLE, 1, O_SUM}, {T_DOUBLE, 1, T_DOUBLE, 1, O_MAX},
    {T_VEC, 1, T_VEC, 1, O_USUM},      {T_RES, 1, T_RES, 1, O_USUM},
    {T_AFF, 1, T_AFF, 1, O_AFFINE},    {T_AFFPAD, 1, T_AFFPAD, 1, O_AFFINE},
    {T_EMPTY, 1, T_EMPTY, 1, O_USUM},
};
#define NV(a) ((int)(sizeof a / sizeof *a))

static const coll_desc colls[] = {
    {PAPC_GATHER, 1, 1, 0, block_variants, NV(block_variants), sizes_gather,
     run_gather},
    {PAPC_SCATTER, 1, 1, 0, block_variants, NV(block_variants),
     sizes_scatter, run_scatter},
    {PAPC_BCAST, 1, 0, 0, bcast_variants, NV(bcast_variants), sizes_bcast,
     run_bcast},
    {PAPC_REDUCE, 1, 1, 0, reduce_variants, NV(reduce_variants),
     sizes_reduce, run_reduce},
    {PAPC_ALLREDUCE, 0, 1, 0, reduce_variants, NV(reduce_variants),
     sizes_reduce, run_allreduce},
    {PAPC_GATHERV, 1, 1, 1, block_variants, NV(block_variants),
     sizes_gatherv, run_gatherv},
    {PAPC_SCATTERV, 1, 1, 1, block_variants, NV(block_variants),
     sizes_scatterv, run_scatterv},
};

/* v-collectives: rank i's block has cnt_i units (some zero, the others
 * different), placed in reverse rank order with gaps of 2 units. */
static void set_vector_layout(tcase *t) {
    int c = t->count, at = 1;
    int m = t->cd->coll == PAPC_GATHERV ? t->v->rm : t->v->sm;
    for (int i = 0; i < t->size; i++)
        t->cnt[i] = c == 0 || i % 3 == 1 ? 0 : c + i;
    for (int i = t->size - 1; i >= 0; i--) {
        t->pos[i] = at;
        at += t->cnt[i] + 2;
    }
    t->total = at;
    for (int i = 0; i < t->size; i++) {
        t->counts[i] = t->cnt[i] * m;
        t->displs[i] = t->pos[i] * m;
    }
}

/* ---- v-collectives: the irregular problems ---- */

/* Block sizes: Träff's benchmark problems (papers/irregular-gatherv-
 * scatterv.md §5), then zero-size blocks among others, one non-empty
 * block (at the root, the first, the last, a middle non-root), all empty. */
enum { G_SAME, G_RANDOM, G_BUCKET, G_SPIKES, G_INCREASING, G_DECREASING,
       G_ALTERNATING, G_TWO_BLOCKS, G_ZEROS, G_ONE_ROOT, G_ONE_FIRST,
       G_ONE_LAST, G_ONE_MIDDLE, G_EMPTY, NGEN };
static const char *gen_names[] = {
    "same", "random", "bucket", "spikes", "increasing", "decreasing",
    "alternating", "two_blocks", "zeros", "one_at_root", "one_at_first",
    "one_at_last", "one_at_middle", "all_empty"};
#define SPIKE_RHO 5

/* Where the root's blocks go: rank order without gaps, rank order with
 * gaps, reversed, a permutation, rank order with gaps below and above the
 * buffer argument (negative displacements). */
enum { PL_ORDER, PL_GAPS, PL_REVERSE, PL_PERM, PL_NEGATIVE, NPLACE };
static const char *place_names[] = {"in-order", "gaps", "reversed",
                                    "permuted", "negative"};

/* splitmix64: the same stream on every rank for the same seed. */
static unsigned long long rng_next(unsigned long long *s) {
    unsigned long long z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int rng_below(unsigned long long *s, int n) {
    return (int)(rng_next(s) % (unsigned long long)n);
}

/* The one rank with data of a G_ONE_* problem, -1 when there is none
 * (P = 1 has no non-root). */
static int lone_rank(int g, int root, int size) {
    int n = size - 1; /* non-roots; the k-th is k, or k + 1 past the root */
    if (g == G_ONE_ROOT) return root;
    if (n == 0) return -1;
    int k = g == G_ONE_FIRST ? 0 : g == G_ONE_LAST ? n - 1 : (n - 1) / 2;
    return k < root ? k : k + 1;
}

/* A G_ONE_* problem whose rank an earlier one already had (small P). */
static int lone_repeats(int g, int root, int size) {
    int who = lone_rank(g, root, size);
    if (g < G_ONE_FIRST || g > G_ONE_MIDDLE) return 0;
    if (who < 0) return 1;
    for (int e = G_ONE_FIRST; e < g; e++)
        if (lone_rank(e, root, size) == who) return 1;
    return 0;
}

static int problem_block(int g, int b, int i, int p, int root,
                         unsigned long long *s) {
    switch (g) {
    case G_SAME: return b;
    case G_RANDOM: return 1 + rng_below(s, 2 * b);
    case G_BUCKET: return b / 2 + 1 + rng_below(s, b);
    case G_SPIKES: return rng_below(s, SPIKE_RHO) == 0 ? SPIKE_RHO * b : 1;
    case G_INCREASING: return 2 * b * (i + 1) / p;
    case G_DECREASING: return 2 * b * (p - i) / p + 1;
    case G_ALTERNATING: return i % 2 == 0 ? b + b / 2 : b - b / 2;
    case G_TWO_BLOCKS: return i == 0 || i == p - 1 ? b : 0;
    case G_ZEROS: return rng_below(s, 3) == 0 ? 0 : 1 + rng_below(s, 2 * b);
    case G_EMPTY: return 0;
    default: return i == lone_rank(g, root, p) ? b : 0;
    }
}

/* The elements of the root's type per unit, and that type. */
static int root_mult(const tcase *t) {
    return t->cd->coll == PAPC_GATHERV ? t->v->rm : t->v->sm;
}

static MPI_Datatype root_type(const tcase *t) {
    return t->cd->coll == PAPC_GATHERV ? RT(t) : ST(t);
}

/* Fisher-Yates on order[0..n). */
static void shuffle(int *order, int n, unsigned long long *s) {
    for (int i = n - 1; i > 0; i--) {
        int j = rng_below(s, i + 1), x = order[i];
        order[i] = order[j];
        order[j] = x;
    }
}

/* Blocks of the problem (the same on every rank: the seed depends on the
 * case only), placed at the root as t->place says.  In reversed and
 * permuted layouts an empty block's displacement points into another
 * block: legal, and an algorithm writing there is caught. */
static void set_irregular_layout(tcase *t) {
    int p = t->size, m = root_mult(t);
    unsigned long long s = 0x5eedull ^ (unsigned long long)t->gen << 8 ^
                           (unsigned long long)t->b << 16 ^
                           (unsigned long long)p << 40 ^
                           (unsigned long long)t->root << 48;
    for (int i = 0; i < p; i++)
        t->cnt[i] = problem_block(t->gen, t->b, i, p, t->root, &s);
    int order[MAXP];
    for (int k = 0; k < p; k++)
        order[k] = t->place == PL_REVERSE ? p - 1 - k : k;
    if (t->place == PL_PERM) shuffle(order, p, &s);
    int gaps = t->place != PL_ORDER;
    int alias = t->place == PL_REVERSE || t->place == PL_PERM;
    int at = gaps, nonempty = -1;
    for (int k = 0; k < p; k++) {
        int i = order[k];
        if (alias && t->cnt[i] == 0) continue;
        t->pos[i] = at;
        at += t->cnt[i];
        if (gaps) at += t->place == PL_PERM ? rng_below(&s, 3) : 1 + k % 3;
        if (t->cnt[i] > 0) nonempty = i;
    }
    for (int i = 0; i < p; i++)
        if (alias && t->cnt[i] == 0)
            t->pos[i] = nonempty < 0 ? 0
                                     : t->pos[nonempty] + t->cnt[nonempty] / 2;
    t->total = at + gaps;
    int shift = t->place == PL_NEGATIVE ? t->total / 2 : 0;
    MPI_Aint lb, ext;
    MPI_Type_get_extent(root_type(t), &lb, &ext);
    t->shift_bytes = (MPI_Aint)shift * m * ext;
    for (int i = 0; i < p; i++) {
        t->counts[i] = t->cnt[i] * m;
        t->displs[i] = (t->pos[i] - shift) * m;
    }
    /* Wrong but plausible: zero at odd ranks, else the next rank's count
     * plus one; the blocks in the opposite order. */
    for (int i = 0; i < p; i++) {
        t->poison_counts[i] = i % 2 ? 0 : t->counts[(i + 1) % p] + 1;
        t->poison_displs[i] = t->displs[p - 1 - i];
    }
}

/* Odd ranks of a case with per-rank types run with their own variant. */
static void set_own_types(tcase *t) {
    if (!t->odd_m || t->rank % 2 == 0) return;
    t->own = *t->v;
    if (t->cd->coll == PAPC_GATHERV) {
        t->own.st = t->odd_t;
        t->own.sm = t->odd_m;
    } else {
        t->own.rt = t->odd_t;
        t->own.rm = t->odd_m;
    }
    t->v = &t->own;
}

/* ---- reporting ---- */

static int failures, fail_lines;

static void describe(const tcase *t, char *out, size_t len) {
    char seg[32] = "-", tname[128];
    if (t->seg) snprintf(seg, sizeof seg, "%s", t->seg);
    if (t->v->st == t->v->rt)
        snprintf(tname, sizeof tname, "%s", types[t->v->st].name);
    else
        snprintf(tname, sizeof tname, "%dx%s->%dx%s", t->v->sm,
                 types[t->v->st].name, t->v->rm, types[t->v->rt].name);
    if (t->irregular) {
        if (t->odd_m)
            snprintf(tname + strlen(tname), sizeof tname - strlen(tname),
                     "(odd ranks %dx%s)", t->odd_m, types[t->odd_t].name);
        snprintf(out, len,
                 "%s alg=%s P=%d comm=%s root=%d problem=%s b=%d "
                 "place=%s type=%s inplace=%d nonroot_args=%s "
                 "tuw_threshold=%s rank=%d",
                 coll_name(t), t->alg ? t->alg->name : "(plain)", t->size,
                 t->comm_name, t->root, gen_names[t->gen], t->b,
                 place_names[t->place], tname, t->inplace,
                 nonroot_names[t->nonroot],
                 t->threshold ? t->threshold : "-", t->rank);
        return;
    }
    snprintf(out, len,
             "%s alg=%s%s%s P=%d comm=%s root=%d count=%d type=%s op=%s "
             "inplace=%d segsize=%s rank=%d",
             coll_name(t), t->alg ? t->alg->name : "(plain)",
             t->forced ? " forced=" : "", t->forced ? t->forced : "",
             t->size, t->comm_name, t->root, t->count, tname,
             op_names[t->v->op], t->inplace, seg, t->rank);
}

static void fail(const tcase *t, const char *fmt, ...) {
    char what[512], msg[400];
    va_list ap;
    failures++;
    if (++fail_lines > MAX_FAIL_LINES) return;
    describe(t, what, sizeof what);
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    printf("FAIL %s: %s\n", what, msg);
    fflush(stdout);
}

/* A crash (an algorithm dereferencing the NULL a non-root passed, ...)
 * names the case it happened in: the description is written before each
 * call, the handler only write()s it. */
static char crash_note[600];

static void on_crash(int sig) {
    ssize_t n = write(STDOUT_FILENO, crash_note, strlen(crash_note));
    (void)n;
    signal(sig, SIG_DFL);
    raise(sig);
}

static void note_case(const tcase *t) {
    char what[512];
    describe(t, what, sizeof what);
    snprintf(crash_note, sizeof crash_note, "FAIL %s: crashed (signal)\n",
             what);
}

/* Compares papcoll's buffer with MPI's; reports the first difference. */
static void compare(const tcase *t, const char *which, const char *got,
                    const char *want, size_t bytes, base_kind b) {
    if (memcmp(got, want, bytes) == 0) return;
    size_t i = 0, bs = (size_t)base_size[b];
    while (i < bytes && got[i] == want[i]) i++;
    char g[48], w[48];
    base_value(g, sizeof g, got + i / bs * bs, b);
    base_value(w, sizeof w, want + i / bs * bs, b);
    fail(t, "%s differs first at byte %zu (value index %zu): got %s, "
         "expected %s", which, i, i / bs, g, w);
}

/* ---- user point-to-point traffic in flight around each call ---- */

typedef struct traffic {
    MPI_Request req[2];
    int out[3], in[3];
} traffic;

static void traffic_begin(traffic *tr, const tcase *t, int serial) {
    tr->out[0] = 0x5eed;
    tr->out[1] = t->rank;
    tr->out[2] = serial;
    tr->in[0] = tr->in[1] = tr->in[2] = -1;
    MPI_Irecv(tr->in, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, t->comm,
              &tr->req[0]);
    MPI_Isend(tr->out, 3, MPI_INT, (t->rank + 1) % t->size, 0, t->comm,
              &tr->req[1]);
}

static void traffic_end(traffic *tr, const tcase *t, int serial) {
    MPI_Status st[2];
    int left = (t->rank + t->size - 1) % t->size;
    MPI_Waitall(2, tr->req, st);
    if (tr->in[0] != 0x5eed || tr->in[1] != left || tr->in[2] != serial ||
        st[0].MPI_SOURCE != left || st[0].MPI_TAG != 0)
        fail(t, "user message garbled: got {%#x,%d,%d} from %d tag %d, "
             "expected {0x5eed,%d,%d} from %d tag 0", (unsigned)tr->in[0],
             tr->in[1], tr->in[2], st[0].MPI_SOURCE, st[0].MPI_TAG, left,
             serial, left);
}

/* ---- one case ---- */

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "test_coll: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void set_env(const char *name, const char *value) {
    if (value) setenv(name, value, 1);
    else unsetenv(name);
}

static void coll_env_name(papc_collective coll, char *var, size_t len) {
    const char *n = papc_collective_name(coll);
    size_t k = (size_t)snprintf(var, len, "PAPC_");
    for (; *n && k + 12 < len; n++) var[k++] = (char)toupper((unsigned char)*n);
    snprintf(var + k, len - k, "_ALGORITHM");
}

/* 1 when the algorithm the call runs cannot serve its op. */
static int refused(const tcase *t) {
    return t->alg && (t->alg->restrictions & PAPC_RESTRICT_COMMUTATIVE) &&
           t->v->op == O_AFFINE;
}

/* papcoll's choice for a forced plain call is what PAPC_<COLL>_ALGORITHM
 * asked for, unless that algorithm cannot serve the op. */
static void check_forced(const tcase *t) {
    const papc_algorithm_info *want = papc_algorithm_find(t->cd->coll,
                                                          t->forced);
    const char *last = papc_last_algorithm(t->cd->coll);
    if (t->size == 1 || t->count == 0) return; /* maybe nothing ran */
    if (!want) {                  /* unknown name: any real algorithm */
        if (!last || !papc_algorithm_find(t->cd->coll, last))
            fail(t, "last algorithm '%s' after an unknown forced name",
                 last ? last : "(null)");
        return;
    }
    int can = !((want->restrictions & PAPC_RESTRICT_COMMUTATIVE) &&
                t->v->op == O_AFFINE);
    if (can && (!last || strcmp(last, want->name) != 0))
        fail(t, "forced '%s' but papc_last_algorithm says '%s'", t->forced,
             last ? last : "(null)");
    if (!can && (!last || strcmp(last, want->name) == 0))
        fail(t, "forced '%s' cannot serve a non-commutative op, yet ran "
             "'%s'", t->forced, last ? last : "(null)");
}

static int serial;

static void run_case(tcase *t) {
    const coll_desc *cd = t->cd;
    const variant *variant_of_case = t->v;
    int sn, rn;
    if (t->irregular) set_irregular_layout(t);
    else if (cd->vector) set_vector_layout(t);
    set_own_types(t);
    cd->sizes(t, &sn, &rn);
    /* 16 bytes past the data, and in the irregular plan 16 before it
     * (buffers are passed at +lead), must stay as they were. */
    size_t lead = t->irregular ? 16 : 0;
    size_t sb = lead + span_bytes(sn, t->v->st) + 16;
    size_t rb = lead + span_bytes(rn, t->v->rt) + 16;
    base_kind base = types[t->v->st].base;
    char *s[3], *r[3]; /* papcoll's, MPI's, the initial contents */
    for (int i = 0; i < 3; i++) {
        s[i] = xmalloc(sb);
        r[i] = xmalloc(rb);
    }
    fill(s[0], sb, base, t->v->op, t->rank, 0);
    fill(r[0], rb, base, t->v->op, t->rank, 1);
    for (int i = 1; i < 3; i++) {
        memcpy(s[i], s[0], sb);
        memcpy(r[i], r[0], rb);
    }

    char var[64];
    coll_env_name(cd->coll, var, sizeof var);
    set_env("PAPC_SEGSIZE", t->seg);
    set_env("PAPC_TUW_THRESHOLD", t->threshold);
    set_env(var, t->forced);
    op_saw_unknown_type = 0;
    traffic tr;
    traffic_begin(&tr, t, ++serial);
    note_case(t);
    int rc = cd->run(t, t->alg ? RUN_ALG : RUN_PLAIN, s[0] + lead,
                     r[0] + lead);
    crash_note[0] = '\0';
    traffic_end(&tr, t, serial);
    set_env("PAPC_SEGSIZE", NULL);
    set_env("PAPC_TUW_THRESHOLD", NULL);
    set_env(var, NULL);
    if (op_saw_unknown_type)
        fail(t, "the user op was called with a datatype the call never "
             "named");

    /* A commutative-only algorithm must refuse a non-commutative op with
     * MPI_ERR_OP, leaving the buffers alone, even when there is nothing
     * to reduce (count 0, P = 1): the request itself is wrong. */
    if (refused(t)) {
        if (rc != MPI_ERR_OP)
            fail(t, "expected MPI_ERR_OP for a non-commutative op with a "
                 "commutative-only algorithm, got %d (%s)", rc,
                 papc_strerror(rc));
        compare(t, "sendbuf (refused call)", s[0], s[2], sb, base);
        compare(t, "recvbuf (refused call)", r[0], r[2], rb, base);
    } else {
        if (rc != MPI_SUCCESS)
            fail(t, "returned %d: %s", rc, papc_strerror(rc));
        /* A zero-size type moves nothing: the buffers must stay as they
         * were (no native run: Open MPI 4.1 corrupts them at 16 ranks). */
        int empty = t->v->st == T_EMPTY;
        int mrc = empty ? MPI_SUCCESS
                        : cd->run(t, RUN_NATIVE, s[1] + lead, r[1] + lead);
        if (mrc != MPI_SUCCESS) fail(t, "native MPI returned %d", mrc);
        int untouched = rc != MPI_SUCCESS || empty;
        compare(t, "sendbuf", s[0], s[untouched ? 2 : 1], sb, base);
        compare(t, "recvbuf", r[0], r[untouched ? 2 : 1], rb, base);
        if (rc == MPI_SUCCESS && t->forced) check_forced(t);
    }
    for (int i = 0; i < 3; i++) {
        free(s[i]);
        free(r[i]);
    }
    t->v = variant_of_case;
}

/* ---- the plan: which cases each algorithm runs ---- */

static const int counts[] = {0, 1, 17, 65536};
#define BIG 65536

/* Roots first, middle, last (distinct). */
static int roots_of(const coll_desc *cd, int size, int *roots) {
    int n = 0;
    if (!cd->rooted) {
        roots[0] = 0;
        return 1;
    }
    int cand[3] = {0, size / 2, size - 1};
    for (int i = 0; i < 3; i++) {
        int dup = 0;
        for (int j = 0; j < n; j++) dup |= roots[j] == cand[i];
        if (!dup) roots[n++] = cand[i];
    }
    return n;
}

/* Whether a (root, count, variant, in-place) case is run: everything for
 * small counts; count 65536 costs time, so it runs for the first variant
 * (int: every root, in place or not), and at the middle root for the
 * non-commutative op, and, not in place, for double, the strided vector
 * and the type with a nonzero lower bound. */
static int wanted(const tcase *t, int root_index, int on_split) {
    const variant *v = t->v;
    int vi = (int)(v - t->cd->variants);
    if (on_split) /* the halves: small counts, a few types */
        return t->count != BIG && t->count != 0 && v->st != T_EMPTY &&
               (vi == 0 || v->st == T_VEC || v->op == O_AFFINE);
    if (v->st == T_EMPTY) return t->count == 17;
    if (t->count != BIG) return 1;
    if (vi == 0) return 1;
    if (root_index != 1) return 0;
    if (v->op == O_AFFINE) return v->st == T_AFF;
    return !t->inplace && v->st == v->rt && v->op != O_MAX &&
           (v->st == T_DOUBLE || v->st == T_VEC || v->st == T_RES);
}

/* PAPC_SEGSIZE values a segmented algorithm (and the plain call) is tried
 * with: the default, 1 byte (one element per segment), 64, 0 (whole
 * message), and 1000 for the big int case (262 segments of 250 ints). */
static int seg_values(const tcase *t, const char **segs) {
    int n = 0;
    segs[n++] = NULL;
    if (t->alg && !(t->alg->flags & PAPC_FLAG_SEGMENTED)) return n;
    int vi = (int)(t->v - t->cd->variants);
    int st = t->v->st;
    if (t->count == 17 &&
        (vi == 0 || st == T_VEC || st == T_DOUBLE || t->v->op == O_AFFINE)) {
        segs[n++] = "1";
        segs[n++] = "64";
        segs[n++] = "0";
    }
    if (t->count == BIG && vi == 0 && !t->inplace) segs[n++] = "1000";
    return n;
}

static void run_algorithm(const coll_desc *cd, MPI_Comm comm,
                          const char *comm_name,
                          const papc_algorithm_info *alg, int on_split) {
    tcase t;
    memset(&t, 0, sizeof t);
    t.cd = cd;
    t.comm = comm;
    t.comm_name = comm_name;
    t.alg = alg;
    MPI_Comm_rank(comm, &t.rank);
    MPI_Comm_size(comm, &t.size);
    int roots[3], nroots = roots_of(cd, t.size, roots);
    for (int ri = 0; ri < nroots; ri++)
        for (int ci = 0; ci < NV(counts); ci++)
            for (int vi = 0; vi < cd->nvariants; vi++)
                for (int ip = 0; ip <= cd->inplace; ip++) {
                    t.root = roots[ri];
                    t.count = counts[ci];
                    t.v = &cd->variants[vi];
                    t.inplace = ip;
                    if (!wanted(&t, nroots == 3 ? ri : 1, on_split)) continue;
                    const char *segs[5];
                    int ns = on_split ? 1 : seg_values(&t, segs);
                    if (on_split) segs[0] = NULL;
                    for (int si = 0; si < ns; si++) {
                        t.seg = segs[si];
                        run_case(&t);
                    }
                }
}

/* PAPC_<COLL>_ALGORITHM forces the plain call's algorithm (by name and by
 * alias); one that cannot serve the op falls back; an unknown one too. */
static void run_forced(const coll_desc *cd, MPI_Comm comm) {
    tcase t;
    memset(&t, 0, sizeof t);
    t.cd = cd;
    t.comm = comm;
    t.comm_name = "world";
    MPI_Comm_rank(comm, &t.rank);
    MPI_Comm_size(comm, &t.size);
    t.root = t.size / 2;
    t.count = 17;
    char alias[64];
    for (int a = 0; a < papc_algorithm_count(cd->coll); a++) {
        const papc_algorithm_info *info = papc_algorithm_get(cd->coll, a);
        for (int by_alias = 0; by_alias < 2; by_alias++) {
            if (by_alias) {
                if (sscanf(info->aliases, "%63s", alias) != 1) continue;
                t.forced = alias;
            } else {
                t.forced = info->name;
            }
            for (int vi = 0; vi < cd->nvariants; vi++) {
                t.v = &cd->variants[vi];
                if (vi == 0 || (t.v->op == O_AFFINE && t.v->st == T_AFF))
                    run_case(&t);
            }
        }
    }
    t.forced = "no_such_algorithm";
    t.v = &cd->variants[0];
    run_case(&t);
}

/* Types of the irregular plan, as the root's side (type x elements per
 * unit) and the other ranks' side, with odd ranks' own in the last pair:
 * int; the strided vector; the nonzero lower bound; k ints against k/2
 * int pairs both ways; and two mixes where ranks differ among themselves
 * (3 ints as a strided vector or as ints, received as lb-4 ints; 2 ints
 * as ints or as one pair). */
static const struct {
    int root_t, root_m, many_t, many_m, odd_t, odd_m;
} irregular_types[] = {
    {T_INT, 1, T_INT, 1, 0, 0},     {T_VEC, 1, T_VEC, 1, 0, 0},
    {T_RES, 1, T_RES, 1, 0, 0},     {T_PAIR, 1, T_INT, 2, 0, 0},
    {T_INT, 2, T_PAIR, 1, 0, 0},    {T_RES, 3, T_VEC, 1, T_INT, 3},
    {T_INT, 2, T_INT, 2, T_PAIR, 1},
};
#define NIT NV(irregular_types)

static void irregular_variants(const coll_desc *cd, variant *vs) {
    for (int i = 0; i < NIT; i++) {
        int rt = irregular_types[i].root_t, rm = irregular_types[i].root_m;
        int mt = irregular_types[i].many_t, mm = irregular_types[i].many_m;
        int gather = cd->coll == PAPC_GATHERV;
        vs[i] = (variant){gather ? mt : rt, gather ? mm : rm,
                          gather ? rt : mt, gather ? rm : mm, O_NONE};
    }
}

/* Runs type vi of vs (built by irregular_variants) with a placement. */
static void run_irregular_case(tcase *t, const variant *vs, int vi,
                               int place, int inplace, int nonroot) {
    t->v = &vs[vi];
    t->odd_t = irregular_types[vi].odd_t;
    t->odd_m = irregular_types[vi].odd_m;
    t->place = place;
    t->inplace = inplace;
    t->nonroot = nonroot;
    run_case(t);
}

/* The irregular plan of one algorithm (see the top of the file).  For
 * each problem, b and root: int blocks in rank order without gaps, with
 * NULL at non-roots; then another placement (rotating), in place or not
 * (alternating), with poisoned arguments at non-roots.  At b = 10 every
 * derived or mixed type too, placed in order or permuted.  Then
 * size_aware_binomial's two extremes (other algorithms ignore the
 * variable): threshold 0, a pure tree relaying even the b = 1000 blocks
 * (k ints against k/2 int pairs), and 1 byte, every block straight to or
 * from the root, at b = 10 (the strided vector).  On the split halves a
 * few problems at one root. */
static void run_irregular(const coll_desc *cd, MPI_Comm comm,
                          const char *comm_name,
                          const papc_algorithm_info *alg, int on_split) {
    static const int bs[] = {1, 10, 1000};
    tcase t;
    memset(&t, 0, sizeof t);
    t.cd = cd;
    t.comm = comm;
    t.comm_name = comm_name;
    t.alg = alg;
    t.irregular = 1;
    MPI_Comm_rank(comm, &t.rank);
    MPI_Comm_size(comm, &t.size);
    variant vs[NIT];
    irregular_variants(cd, vs);
    int roots[MAXP], nroots = 0;
    if (on_split) {
        roots[nroots++] = t.size / 2;
    } else if (t.size <= 5) {
        for (int r = 0; r < t.size; r++) roots[nroots++] = r;
    } else {
        roots_of(cd, t.size, roots);
        nroots = 3;
    }
    for (int ri = 0; ri < nroots; ri++)
        for (int g = 0; g < NGEN; g++)
            for (int bi = 0; bi < NV(bs); bi++) {
                t.root = roots[ri];
                t.gen = g;
                t.b = t.count = bs[bi];
                if ((g == G_EMPTY && bi > 0) ||
                    lone_repeats(g, t.root, t.size))
                    continue;
                int turn = g + bi + ri;
                if (on_split) {
                    if (bi == 1 && (g == G_RANDOM || g == G_TWO_BLOCKS ||
                                    g == G_ONE_MIDDLE))
                        run_irregular_case(&t, vs, 0, PL_PERM, 0, NR_NULL);
                    continue;
                }
                run_irregular_case(&t, vs, 0, PL_ORDER, 0, NR_NULL);
                run_irregular_case(&t, vs, 0, PL_GAPS + turn % (NPLACE - 1),
                                   turn % 2, NR_POISON);
                if (bi != 0) {
                    t.threshold = bi == 2 ? "0" : "1";
                    run_irregular_case(&t, vs, bi == 2 ? 3 : 1,
                                       PL_ORDER + turn % NPLACE, turn % 2,
                                       (turn / 2) % 2 ? NR_NULL : NR_POISON);
                    t.threshold = NULL;
                }
                if (bi != 1) continue;
                for (int vi = 1; vi < NIT; vi++)
                    run_irregular_case(&t, vs, vi,
                                       (turn + vi) % 2 ? PL_PERM : PL_ORDER,
                                       (turn + vi / 2) % 2,
                                       vi % 2 ? NR_NULL : NR_POISON);
            }
}

/* The one algorithm of argv[2], or NULL: all of them and the plain call. */
static const char *only;

static void run_all(const coll_desc *cd, MPI_Comm comm, const char *name,
                    int on_split) {
    for (int a = 0; a < papc_algorithm_count(cd->coll); a++) {
        const papc_algorithm_info *alg = papc_algorithm_get(cd->coll, a);
        if (only && strcmp(alg->name, only)) continue;
        run_algorithm(cd, comm, name, alg, on_split);
        if (cd->vector) run_irregular(cd, comm, name, alg, on_split);
    }
    if (only) return;
    run_algorithm(cd, comm, name, NULL, on_split);
    if (cd->vector) run_irregular(cd, comm, name, NULL, on_split);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int which = argc > 1 ? papc_collective_from_name(argv[1]) : -1;
    /* by name or alias; an unknown one is a usage error, not an empty run */
    const papc_algorithm_info *one =
        which >= 0 && argc > 2
            ? papc_algorithm_find((papc_collective)which, argv[2]) : NULL;
    only = one ? one->name : NULL;
    if (which < 0 || size > MAXP || (argc > 2 && !one)) {
        if (rank == 0)
            fprintf(stderr, "usage: test_coll <gather|scatter|bcast|reduce|"
                    "allreduce|gatherv|scatterv> [algorithm] (P <= %d)\n",
                    MAXP);
        MPI_Finalize();
        return 2;
    }
    make_types();
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    MPI_Op_create(usum_fn, 1, &user_ops[0]);
    MPI_Op_create(affine_fn, 0, &user_ops[1]);
    const coll_desc *cd = NULL;
    for (int i = 0; i < NV(colls); i++)
        if ((int)colls[i].coll == which) cd = &colls[i];
    if (papc_algorithm_count(cd->coll) < 1) {
        failures++;
        printf("FAIL %s: no algorithm registered\n", argv[1]);
    }

    double t0 = MPI_Wtime();
    run_all(cd, MPI_COMM_WORLD, "world", 0);
    if (!only) run_forced(cd, MPI_COMM_WORLD);
    /* Two halves with reversed rank order, each running its own calls. */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, size - rank, &half);
    run_all(cd, half, rank < size / 2 ? "split-low" : "split-high", 1);
    MPI_Comm_free(&half);

    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s P=%d: %d failure(s), %d algorithm(s), %d case serial(s), "
               "%.1f s\n", argv[1], size, total,
               papc_algorithm_count(cd->coll), serial, MPI_Wtime() - t0);
    MPI_Op_free(&user_ops[0]);
    MPI_Op_free(&user_ops[1]);
    for (int i = T_VEC; i < NTYPES; i++) MPI_Type_free(&types[i].t);
    MPI_Finalize();
    return total ? 1 : 0;
}
