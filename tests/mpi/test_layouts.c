/*
 * test_layouts.c — ranks that describe the same bytes with different
 * datatypes (same type signature, different layout or element size), as MPI
 * allows; the regression test of issue 11, defects 1 and 2.
 * Usage: mpiexec -n P test_layouts [rooted|bcast]   (default: both parts)
 *
 * Part 1 (defect 1): gather, scatter, gatherv and scatterv, every algorithm
 * and the plain call, on MPI_COMM_SELF and on the world communicator, with
 * the dense struct types of the issue: {BYTE@1, UNSIGNED_SHORT@2, BYTE@0}
 * (typemap out of memory order) against {BYTE@0, UNSIGNED_SHORT@1, BYTE@3}
 * (in order), both extent 4, and the latter resized to extent 6 (two gap
 * bytes per element), on the root's side and on the members' side, odd
 * ranks with another layout than even ones.  The root's own block is the
 * one a local copy moves: gathering a0 b1 c2 d3 must give b1 c2 d3 a0.
 * Also blocks of 6, 18 and 4,200 bytes as SIGNED_CHAR against
 * vector(3 blocks of 2 SIGNED_CHAR, stride 3) (element sizes 1 and 6):
 * pipelines that cut a block (linear_sync's two parts at 1,024 bytes) must
 * cut it at the same bytes on both sides.
 *
 * Part 2 (defect 2): bcast, every algorithm and the plain call, several
 * PAPC_SEGSIZE values (unsegmented, small, not a multiple of any element
 * size), roots first and last: 8,304 x MPI_SIGNED_CHAR against 1,384 x
 * vector(3 blocks of 2 SIGNED_CHAR, stride 3) both ways and mixed per rank,
 * and 816 bytes as 51 x contiguous(4, INT) against 12 x contiguous(17, INT)
 * both ways (split_binary's halves).
 *
 * Every case runs papcoll on one copy of the buffers and native MPI on
 * another, both filled alike (data where it is read, poison 0xEE where it
 * is written, gaps included, 16 guard bytes after), and compares every byte
 * of both.  A watchdog (alarm) turns a hang into a failure that names the
 * case.  Each mismatch prints one FAIL line; exit status 1 on any.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "papcoll.h"

#define GUARD 16
#define POISON 0xEE
#define WATCHDOG_SECONDS 30
#define MAX_FAIL_LINES 400

static int world_rank, failures;
static char case_note[320];

/* ---- watchdog ---------------------------------------------------------- */

static void on_alarm(int sig) {
    (void)sig;
    char msg[400];
    int n = snprintf(msg, sizeof msg, "FAIL rank %d: HANG (no return within "
                     "%d s) in %s\n", world_rank, WATCHDOG_SECONDS,
                     case_note);
    if (n > 0) {
        ssize_t w = write(2, msg, (size_t)n);
        (void)w;
    }
    _exit(124);
}

static void begin_case(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(case_note, sizeof case_note, fmt, ap);
    va_end(ap);
    alarm(WATCHDOG_SECONDS);
}

static void end_case(void) { alarm(0); }

static void fail(const char *fmt, ...) {
    if (failures++ >= MAX_FAIL_LINES) return;
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL rank %d: %s: ", world_rank, case_note);
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    va_end(ap);
}

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "test_layouts: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* ---- buffers ----------------------------------------------------------- */

/* A buffer as papcoll sees it (0), as MPI sees it (1), as it was (2). */
typedef struct tbuf {
    char *b[3];
    size_t bytes;
} tbuf;

static void tbuf_init(tbuf *t, size_t bytes, int data, int rank) {
    t->bytes = bytes + GUARD;
    for (int i = 0; i < 3; i++) t->b[i] = xmalloc(t->bytes);
    for (size_t j = 0; j < t->bytes; j++)
        t->b[0][j] = data ? (char)(rank * 37 + (int)j * 11 + 1) : (char)POISON;
    memcpy(t->b[1], t->b[0], t->bytes);
    memcpy(t->b[2], t->b[0], t->bytes);
}

static void tbuf_free(tbuf *t) {
    for (int i = 0; i < 3; i++) free(t->b[i]);
}

/* papcoll's bytes against MPI's. */
static void tbuf_compare(const tbuf *t, const char *which) {
    for (size_t j = 0; j < t->bytes; j++) {
        if (t->b[0][j] == t->b[1][j]) continue;
        char got[40] = "", want[40] = "";
        for (size_t k = j; k < j + 8 && k < t->bytes; k++) {
            size_t g = strlen(got), w = strlen(want);
            snprintf(got + g, sizeof got - g, "%02x ",
                     (unsigned char)t->b[0][k]);
            snprintf(want + w, sizeof want - w, "%02x ",
                     (unsigned char)t->b[1][k]);
        }
        fail("%s differs from MPI at byte %zu of %zu: papcoll %s, MPI %s%s",
             which, j, t->bytes - GUARD, got, want,
             j >= t->bytes - GUARD ? " (guard)" : "");
        return;
    }
}

/* Bytes spanned by n elements of t (lb >= 0 for every type here). */
static size_t span(int n, MPI_Datatype t) {
    MPI_Aint lb, ext, tlb, text;
    if (n <= 0) return 0;
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    return (size_t)(tlb + (MPI_Aint)(n - 1) * ext + text);
}

/* ---- the algorithms ---------------------------------------------------- */

/* Index -1 is the plain call (NULL name). */
static const char *alg_name(papc_collective coll, int a) {
    return a < 0 ? NULL : papc_algorithm_get(coll, a)->name;
}

static const char *shown(const char *alg) { return alg ? alg : "(plain)"; }

static void check_rc(int rc, int mrc) {
    if (rc != MPI_SUCCESS) fail("papcoll returned %d: %s", rc,
                                papc_strerror(rc));
    if (mrc != MPI_SUCCESS) fail("native MPI returned %d", mrc);
}

/* ---- part 1: the root's own block ------------------------------------- */

enum { T_OUT, T_IN, T_IN6, T_SCHAR, T_VEC, NSTRUCT };
static MPI_Datatype st[NSTRUCT];
static const char *st_name[NSTRUCT] = {
    "struct{B@1,US@2,B@0}", "struct{B@0,US@1,B@3}",
    "struct{B@0,US@1,B@3}(ext6)", "SIGNED_CHAR", "vector(3,2,3,SCHAR)"};
/* Elements per unit of data (4 bytes of a struct, 6 signed chars). */
static const int st_mult[NSTRUCT] = {1, 1, 1, 6, 1};

static void make_struct_types(void) {
    int bl[3] = {1, 1, 1};
    MPI_Datatype ty[3] = {MPI_BYTE, MPI_UNSIGNED_SHORT, MPI_BYTE};
    MPI_Aint out[3] = {1, 2, 0}, in[3] = {0, 1, 3};
    MPI_Datatype tmp;
    MPI_Type_create_struct(3, bl, out, ty, &tmp);
    MPI_Type_create_resized(tmp, 0, 4, &st[T_OUT]);
    MPI_Type_free(&tmp);
    MPI_Type_create_struct(3, bl, in, ty, &tmp);
    MPI_Type_create_resized(tmp, 0, 4, &st[T_IN]);
    MPI_Type_create_resized(tmp, 0, 6, &st[T_IN6]);
    MPI_Type_free(&tmp);
    st[T_SCHAR] = MPI_SIGNED_CHAR;
    MPI_Type_vector(3, 2, 3, MPI_SIGNED_CHAR, &st[T_VEC]);
    for (int i = 0; i < NSTRUCT; i++)
        if (i != T_SCHAR) MPI_Type_commit(&st[i]);
}

/* The root's side (P blocks), the members' side (even and odd ranks). */
static const struct {
    int root_t, even_t, odd_t;
} pairs[] = {
    {T_IN, T_OUT, T_OUT},  /* the case: a0 b1 c2 d3 */
    {T_OUT, T_IN, T_IN},   /* and back */
    {T_IN6, T_OUT, T_IN},  /* gaps on the root's side */
    {T_OUT, T_IN6, T_OUT}, /* gaps on the members' side */
    /* element sizes differ (pipelines such as linear_sync's two parts
     * must cut at the same bytes): 6 signed chars per vector */
    {T_VEC, T_SCHAR, T_SCHAR},
    {T_SCHAR, T_VEC, T_VEC},
    {T_SCHAR, T_SCHAR, T_VEC},
};

typedef struct rooted {
    papc_collective coll;
    MPI_Comm comm;
    const char *comm_name;
    int rank, size, root, pair;
    int count; /* units per block (v variants: + rank % 2) */
    int root_count; /* gather/scatter: elements of the root's type a block */
    int *counts, *displs; /* v variants: per-rank counts and displacements */
} rooted;

/* v variants: count + (i % 2) units, blocks in reverse rank order with one
 * unused unit (poisoned, never written) between them. */
static int v_layout(rooted *r, int mult) {
    int at = 0;
    for (int i = r->size - 1; i >= 0; i--) {
        r->counts[i] = (r->count + (i % 2)) * mult;
        r->displs[i] = at;
        at += r->counts[i] + mult;
    }
    return at;
}

static int is_v(papc_collective c) {
    return c == PAPC_GATHERV || c == PAPC_SCATTERV;
}

static int is_gather(papc_collective c) {
    return c == PAPC_GATHER || c == PAPC_GATHERV;
}

static int run_rooted(const rooted *r, const char *alg, int native,
                      void *rootbuf, void *mybuf, MPI_Datatype rt,
                      MPI_Datatype mt, int mycount) {
    switch (r->coll) {
    case PAPC_GATHER:
        return native ? MPI_Gather(mybuf, mycount, mt, rootbuf, r->root_count,
                                   rt, r->root, r->comm)
               : alg ? papc_gather_alg(mybuf, mycount, mt, rootbuf,
                                       r->root_count, rt, r->root, r->comm,
                                       alg)
                     : papc_gather(mybuf, mycount, mt, rootbuf, r->root_count,
                                   rt, r->root, r->comm);
    case PAPC_SCATTER:
        return native ? MPI_Scatter(rootbuf, r->root_count, rt, mybuf,
                                    mycount, mt, r->root, r->comm)
               : alg ? papc_scatter_alg(rootbuf, r->root_count, rt, mybuf,
                                        mycount, mt, r->root, r->comm, alg)
                     : papc_scatter(rootbuf, r->root_count, rt, mybuf,
                                    mycount, mt, r->root, r->comm);
    case PAPC_GATHERV:
        return native ? MPI_Gatherv(mybuf, mycount, mt, rootbuf, r->counts,
                                    r->displs, rt, r->root, r->comm)
               : alg ? papc_gatherv_alg(mybuf, mycount, mt, rootbuf,
                                        r->counts, r->displs, rt, r->root,
                                        r->comm, alg)
                     : papc_gatherv(mybuf, mycount, mt, rootbuf, r->counts,
                                    r->displs, rt, r->root, r->comm);
    case PAPC_SCATTERV:
        return native ? MPI_Scatterv(rootbuf, r->counts, r->displs, rt,
                                     mybuf, mycount, mt, r->root, r->comm)
               : alg ? papc_scatterv_alg(rootbuf, r->counts, r->displs, rt,
                                         mybuf, mycount, mt, r->root,
                                         r->comm, alg)
                     : papc_scatterv(rootbuf, r->counts, r->displs, rt,
                                     mybuf, mycount, mt, r->root, r->comm);
    default:
        return MPI_ERR_ARG;
    }
}

static void rooted_case(rooted *r, const char *alg) {
    int root_t = pairs[r->pair].root_t;
    int my_t = r->rank % 2 ? pairs[r->pair].odd_t : pairs[r->pair].even_t;
    MPI_Datatype rt = st[root_t], mt = st[my_t];
    int v = is_v(r->coll), gather = is_gather(r->coll);
    int mult = st_mult[root_t], my_mult = st_mult[my_t];
    r->root_count = r->count * mult;
    int root_elems = r->root_count * r->size;
    if (v) root_elems = v_layout(r, mult);
    int mycount = (r->count + (v ? r->rank % 2 : 0)) * my_mult;
    begin_case("%s %s on %s P=%d root %d count %d: root %s, rank %d %s",
               papc_collective_name(r->coll), shown(alg), r->comm_name,
               r->size, r->root, r->count, st_name[root_t], r->rank,
               st_name[my_t]);
    tbuf rb, mb;
    int am_root = r->rank == r->root;
    tbuf_init(&rb, am_root ? span(root_elems, rt) : 0, !gather, r->rank);
    tbuf_init(&mb, span(mycount, mt), gather, r->rank);
    int rc = run_rooted(r, alg, 0, rb.b[0], mb.b[0], rt, mt, mycount);
    int mrc = run_rooted(r, alg, 1, rb.b[1], mb.b[1], rt, mt, mycount);
    end_case();
    check_rc(rc, mrc);
    tbuf_compare(&rb, "root's buffer");
    tbuf_compare(&mb, "own block");
    tbuf_free(&rb);
    tbuf_free(&mb);
}

static void part_rooted(MPI_Comm comm, const char *comm_name) {
    static const papc_collective colls[] = {PAPC_GATHER, PAPC_SCATTER,
                                            PAPC_GATHERV, PAPC_SCATTERV};
    static const int counts[] = {1, 3, 700}; /* 700: 2,800 / 4,200 B */
    rooted r;
    memset(&r, 0, sizeof r);
    r.comm = comm;
    r.comm_name = comm_name;
    MPI_Comm_rank(comm, &r.rank);
    MPI_Comm_size(comm, &r.size);
    r.counts = xmalloc((size_t)r.size * sizeof(int));
    r.displs = xmalloc((size_t)r.size * sizeof(int));
    int roots[2] = {0, r.size - 1}, nroots = r.size > 1 ? 2 : 1;
    for (size_t ci = 0; ci < sizeof colls / sizeof *colls; ci++) {
        r.coll = colls[ci];
        for (int a = -1; a < papc_algorithm_count(r.coll); a++)
            for (int ri = 0; ri < nroots; ri++)
                for (size_t n = 0; n < sizeof counts / sizeof *counts; n++)
                    for (size_t p = 0; p < sizeof pairs / sizeof *pairs;
                         p++) {
                        r.root = roots[ri];
                        r.count = counts[n];
                        r.pair = (int)p;
                        rooted_case(&r, alg_name(r.coll, a));
                    }
    }
    free(r.counts);
    free(r.displs);
}

/* ---- part 2: bcast cut at the same bytes ------------------------------- */

enum { B_SCHAR, B_VEC, B_C4, B_C17, NBT };
static MPI_Datatype bt[NBT];
static const char *bt_name[NBT] = {"SIGNED_CHAR", "vector(3,2,3,SCHAR)",
                                   "contiguous(4,INT)", "contiguous(17,INT)"};
static const int bt_count[NBT] = {8304, 1384, 51, 12};

static void make_bcast_types(void) {
    bt[B_SCHAR] = MPI_SIGNED_CHAR;
    MPI_Type_vector(3, 2, 3, MPI_SIGNED_CHAR, &bt[B_VEC]);
    MPI_Type_contiguous(4, MPI_INT, &bt[B_C4]);
    MPI_Type_contiguous(17, MPI_INT, &bt[B_C17]);
    for (int i = B_VEC; i < NBT; i++) MPI_Type_commit(&bt[i]);
}

/* The root's type, even non-roots', odd non-roots'. */
static const struct {
    int root_t, even_t, odd_t;
} bcast_cases[] = {
    {B_SCHAR, B_VEC, B_VEC},   /* the case */
    {B_VEC, B_SCHAR, B_SCHAR}, /* and back */
    {B_SCHAR, B_SCHAR, B_VEC}, /* mixed below the root */
    {B_C4, B_C17, B_C17},      /* split_binary's halves */
    {B_C17, B_C4, B_C4},
};

/* NULL: the default segment size. */
static const char *segsizes[] = {NULL, "0", "64", "100", "1000"};

static void bcast_case(MPI_Comm comm, int root, int ci, const char *seg,
                       const char *alg) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int ti = rank == root ? bcast_cases[ci].root_t
             : rank % 2   ? bcast_cases[ci].odd_t
                          : bcast_cases[ci].even_t;
    MPI_Datatype t = bt[ti];
    int count = bt_count[ti];
    begin_case("bcast %s P=%d root %d PAPC_SEGSIZE=%s: root %d x %s, "
               "rank %d %d x %s", shown(alg), size, root, seg ? seg : "(unset)",
               bt_count[bcast_cases[ci].root_t],
               bt_name[bcast_cases[ci].root_t], rank, count, bt_name[ti]);
    tbuf b;
    tbuf_init(&b, span(count, t), rank == root, rank);
    if (seg) setenv("PAPC_SEGSIZE", seg, 1);
    int rc = alg ? papc_bcast_alg(b.b[0], count, t, root, comm, alg)
                 : papc_bcast(b.b[0], count, t, root, comm);
    unsetenv("PAPC_SEGSIZE");
    int mrc = MPI_Bcast(b.b[1], count, t, root, comm);
    end_case();
    check_rc(rc, mrc);
    tbuf_compare(&b, "buffer");
    tbuf_free(&b);
}

static void part_bcast(MPI_Comm comm) {
    int size;
    MPI_Comm_size(comm, &size);
    int roots[2] = {0, size - 1}, nroots = size > 1 ? 2 : 1;
    for (int a = -1; a < papc_algorithm_count(PAPC_BCAST); a++)
        for (int ri = 0; ri < nroots; ri++)
            for (size_t ci = 0; ci < sizeof bcast_cases / sizeof *bcast_cases;
                 ci++)
                for (size_t s = 0; s < sizeof segsizes / sizeof *segsizes;
                     s++)
                    bcast_case(comm, roots[ri], (int)ci, segsizes[s],
                               alg_name(PAPC_BCAST, a));
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    signal(SIGALRM, on_alarm);
    make_struct_types();
    make_bcast_types();
    double t0 = MPI_Wtime();

    const char *only = argc > 1 ? argv[1] : "";
    if (strcmp(only, "bcast") != 0) {
        part_rooted(MPI_COMM_SELF, "self");
        if (size > 1) part_rooted(MPI_COMM_WORLD, "world");
    }
    if (strcmp(only, "rooted") != 0) part_bcast(MPI_COMM_WORLD);

    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("test_layouts P=%d: %d failure(s), %.1f s\n", size, total,
               MPI_Wtime() - t0);
    for (int i = 0; i < NSTRUCT; i++)
        if (i != T_SCHAR) MPI_Type_free(&st[i]);
    for (int i = B_VEC; i < NBT; i++) MPI_Type_free(&bt[i]);
    MPI_Finalize();
    return total ? 1 : 0;
}
