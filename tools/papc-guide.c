/*
 * papc-guide — the performance-guidelines benchmark for irregular gather and
 * scatter of Träff's "Practical, linear-time, fully distributed algorithms
 * for irregular gather and scatter" (§4–5; issue 6, item 3).
 *
 *   mpirun -np 16 papc-guide [--coll gatherv|scatterv|both] [--problems L]
 *                            [--b L] [-i N] [-x N] [--seed S] [--csv FILE]
 *
 * For each problem type and average block size b (MPI_INT elements) it
 * times, on the same block sizes m_i:
 *   MPI_Gather (padded)   the native regular call, every block padded to
 *                         max m_i;
 *   GL2 right side        MPI_Allreduce(MAX) of one int, then that padded
 *                         MPI_Gather (what a user does by hand);
 *   MPI_Gatherv           the native irregular call;
 *   papcoll algorithms    every gatherv algorithm in papcoll's registry
 *                         (papc_gatherv_alg), found by walking it;
 * and the same with MPI_Scatter / MPI_Scatterv / papcoll's scatterv.
 *
 * Guidelines (paper §4; tolerance t, default 0 = the paper's strict form):
 *   GL1  MPI_Gather(m) <= MPI_Gatherv(m) for the `same' problem (m_i = b):
 *        violated when the regular call is slower than an irregular one;
 *   GL2  MPI_Gatherv(m) <= MPI_Allreduce(1) + MPI_Gather(m'), m' = p max m_i:
 *        violated when an irregular call is slower than its right side.
 * Both compare minimum times ("lhs > rhs * (1 + t)"), as the paper's plots.
 *
 * Method (paper §5): root floor(p/2); problems generated at rank 0 from a
 * seeded generator (one stream per problem and b, so a cell's sizes do not
 * depend on which other cells run) and broadcast; every implementation runs
 * once and papcoll's results are compared with the native irregular call's
 * (MPI_Abort on a mismatch); then, for one implementation after the other,
 * -x warm-up calls and -i timed calls, each preceded by MPI_Barrier.  A rank
 * times its own call; a call's time is the slowest rank's, reduced to rank 0
 * after the loop so no extra collective sits between timed calls.
 * --interleave times in rounds instead (every implementation once per round,
 * the first one rotating), which spreads the drift of a busy machine over
 * all of them but lets one collective's aftermath fall on the next: with
 * Open MPI 4.1 on 16 oversubscribed ranks, an MPI_Allreduce right before
 * MPI_Gatherv raised the root's minimum from about 2 to about 100 us.  Minimum, mean, median, maximum and
 * standard deviation over the rounds are reported.
 *
 * As MPI allows, non-root ranks pass NULL counts and displacements to every
 * irregular call (native and papcoll): a rank knows only its own block size
 * (--counts-everywhere passes the full arrays instead).
 *
 * Uses the public API only (include/papcoll.h).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <mpi.h>
#include "papcoll.h"

#define TOOL "papc-guide"
#define MAX_B 16
#define MAX_IMPLS 32
#define SPIKE_RHO 5 /* paper §5: rho = 5 */

/* ---- problem types (paper §5) ------------------------------------------ */

typedef enum problem {
    P_SAME, P_RANDOM, P_BUCKET, P_SPIKES, P_INCREASING, P_DECREASING,
    P_ALTERNATING, P_TWO_BLOCKS, NUM_PROBLEMS
} problem;

static const char *const problem_names[NUM_PROBLEMS] = {
    "same", "random", "bucket", "spikes", "increasing", "decreasing",
    "alternating", "two_blocks"};

/* splitmix64: small, good enough, identical everywhere */
static uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [1, n]. */
static long rng_1_to(uint64_t *s, long n) {
    return 1 + (long)(rng_next(s) % (uint64_t)n);
}

/* m_i of problem pr with average block size b on p ranks, exactly as the
 * paper defines them (integer divisions are floors).  Note that `increasing'
 * gives m_i = 0 for the first ranks when 2b < p. */
static void make_counts(problem pr, long b, int p, uint64_t seed, int *m) {
    uint64_t s = seed ^ (0x51ED2701ull * (uint64_t)(pr + 1)) ^
                 ((uint64_t)b << 32);
    rng_next(&s);
    for (int i = 0; i < p; i++) {
        long v = 0;
        switch (pr) {
        case P_SAME: v = b; break;
        case P_RANDOM: v = rng_1_to(&s, 2 * b); break;
        case P_BUCKET: v = b / 2 + rng_1_to(&s, b); break;
        case P_SPIKES:
            v = rng_next(&s) % SPIKE_RHO == 0 ? SPIKE_RHO * b : 1;
            break;
        case P_INCREASING: v = 2 * b * (i + 1) / p; break;
        case P_DECREASING: v = 2 * b * (p - i) / p + 1; break;
        case P_ALTERNATING: v = i % 2 == 0 ? b + b / 2 : b - b / 2; break;
        case P_TWO_BLOCKS: v = (i == 0 || i == p - 1) ? b : 0; break;
        default: break;
        }
        m[i] = (int)v;
    }
}

/* ---- options -------------------------------------------------------------- */

typedef struct options {
    int do_gatherv, do_scatterv;
    int problems[NUM_PROBLEMS];
    int nproblems;
    long b[MAX_B];
    int nb;
    int iterations; /* -i */
    int warmup;     /* -x */
    uint64_t seed;
    double tolerance; /* fraction, from --tolerance PCT */
    int root;         /* -1: floor(p/2) */
    const char *csv;
    char *algs;       /* --algs: comma-separated papcoll names, NULL = all */
    int counts_everywhere;
    int interleave;   /* --interleave: rounds over all implementations */
    int help;
} options;

static int rank, nprocs;

static void usage(void) {
    if (rank != 0) return;
    fprintf(stderr,
        "usage: " TOOL " [options]   (under mpirun)\n"
        "  --coll gatherv|scatterv|both   collectives (default both)\n"
        "  --problems LIST    comma-separated, default all: same,random,bucket,"
        "spikes,\n"
        "                     increasing,decreasing,alternating,two_blocks\n"
        "  --b LIST           average block sizes in MPI_INTs "
        "(default 1,10,100,1000,10000)\n"
        "  -i N               timed repetitions (default 75, as the paper)\n"
        "  -x N               warm-up repetitions (default 10)\n"
        "  --seed S           generator seed (default 1)\n"
        "  --tolerance PCT    slack of the GL1/GL2 marks in %% (default 0)\n"
        "  --root R           root (default floor(P/2), as the paper)\n"
        "  --algs LIST        only these papcoll algorithms (default: every "
        "registered one)\n"
        "  --counts-everywhere  non-root ranks pass the full counts/displs "
        "arrays\n"
        "                     (default: NULL, a rank knows only its own "
        "count)\n"
        "  --interleave       time in rounds over all implementations "
        "(default: -x warm-up\n"
        "                     and -i repetitions of one implementation, then "
        "the next)\n"
        "  --csv FILE         write one row per (collective, problem, b, P, "
        "implementation)\n"
        "Table on stdout (minimum us; * = violates GL2, ! = violates GL1), "
        "progress on stderr.\n");
}

static int parse_long(const char *s, long min, long max, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < min || v > max) return -1;
    *out = v;
    return 0;
}

static int parse_int(const char *s, int min, int *out) {
    long v;
    if (parse_long(s, min, INT_MAX, &v)) return -1;
    *out = (int)v;
    return 0;
}

static int parse_problems(const char *list, options *o) {
    char *copy = strdup(list), *save = NULL;
    o->nproblems = 0;
    int bad = 0;
    for (char *t = strtok_r(copy, ",", &save); t && !bad;
         t = strtok_r(NULL, ",", &save)) {
        int found = -1;
        for (int p = 0; p < NUM_PROBLEMS; p++)
            if (!strcmp(t, problem_names[p])) found = p;
        if (!strcmp(t, "all")) {
            for (int p = 0; p < NUM_PROBLEMS; p++) o->problems[p] = p;
            o->nproblems = NUM_PROBLEMS;
            continue;
        }
        if (found < 0 || o->nproblems == NUM_PROBLEMS) {
            if (rank == 0)
                fprintf(stderr, TOOL ": unknown problem '%s'\n", t);
            bad = 1;
        } else {
            o->problems[o->nproblems++] = found;
        }
    }
    free(copy);
    return bad || o->nproblems == 0 ? -1 : 0;
}

static int parse_b(const char *list, options *o) {
    char *copy = strdup(list), *save = NULL;
    o->nb = 0;
    int bad = 0;
    for (char *t = strtok_r(copy, ",", &save); t && !bad;
         t = strtok_r(NULL, ",", &save)) {
        long v;
        /* spikes makes blocks of 5b; P of them must fit int displacements */
        if (parse_long(t, 1, 10000000, &v) || o->nb == MAX_B) {
            if (rank == 0)
                fprintf(stderr, TOOL ": bad b '%s' (1..10^7, at most %d "
                        "values)\n", t, MAX_B);
            bad = 1;
        } else {
            o->b[o->nb++] = v;
        }
    }
    free(copy);
    return bad || o->nb == 0 ? -1 : 0;
}

static int parse_options(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->do_gatherv = o->do_scatterv = 1;
    o->iterations = 75;
    o->warmup = 10;
    o->seed = 1;
    o->root = -1;
    parse_problems("all", o);
    parse_b("1,10,100,1000,10000", o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            o->help = 1;
            return -1;
        }
        if (!strcmp(a, "--counts-everywhere")) {
            o->counts_everywhere = 1;
            continue;
        }
        if (!strcmp(a, "--interleave")) {
            o->interleave = 1;
            continue;
        }
        const char *v = i + 1 < argc ? argv[++i] : NULL;
        int bad = 0;
        long l;
        if (!v) bad = 1;
        else if (!strcmp(a, "--coll")) {
            o->do_gatherv = !strcmp(v, "gatherv") || !strcmp(v, "both");
            o->do_scatterv = !strcmp(v, "scatterv") || !strcmp(v, "both");
            bad = !o->do_gatherv && !o->do_scatterv;
        } else if (!strcmp(a, "--problems")) bad = parse_problems(v, o);
        else if (!strcmp(a, "--b")) bad = parse_b(v, o);
        else if (!strcmp(a, "-i") || !strcmp(a, "--iterations"))
            bad = parse_int(v, 1, &o->iterations);
        else if (!strcmp(a, "-x") || !strcmp(a, "--warmup"))
            bad = parse_int(v, 0, &o->warmup);
        else if (!strcmp(a, "--seed")) {
            bad = parse_long(v, 0, LONG_MAX, &l);
            o->seed = (uint64_t)l;
        } else if (!strcmp(a, "--tolerance")) {
            char *end;
            o->tolerance = strtod(v, &end) / 100.0;
            bad = end == v || *end || o->tolerance < 0;
        } else if (!strcmp(a, "--root")) bad = parse_int(v, 0, &o->root);
        else if (!strcmp(a, "--csv")) o->csv = v;
        else if (!strcmp(a, "--algs")) o->algs = strdup(v);
        else bad = 1;
        if (bad) {
            if (rank == 0)
                fprintf(stderr, TOOL ": bad option '%s%s%s'\n", a,
                        v ? " " : "", v ? v : "");
            return -1;
        }
    }
    if (o->root < 0) o->root = nprocs / 2;
    if (o->root >= nprocs) {
        if (rank == 0)
            fprintf(stderr, TOOL ": root %d >= P = %d\n", o->root, nprocs);
        return -1;
    }
    for (int k = 0; k < o->nb; k++)
        if ((long long)SPIKE_RHO * o->b[k] * nprocs > INT_MAX) {
            if (rank == 0)
                fprintf(stderr, TOOL ": b = %ld on %d ranks overflows the "
                        "int displacements\n", o->b[k], nprocs);
            return -1;
        }
    return 0;
}

/* ---- implementations ------------------------------------------------------ */

typedef enum kind {
    K_REGULAR, /* padded MPI_Gather / MPI_Scatter */
    K_GL2,     /* MPI_Allreduce(1) + padded regular call */
    K_NATIVE,  /* MPI_Gatherv / MPI_Scatterv */
    K_PAPC     /* a papcoll algorithm */
} kind;

static const char *const kind_names[] = {"regular", "gl2_rhs", "native",
                                         "papcoll"};

typedef struct stats {
    double min, mean, median, max, stddev; /* seconds */
} stats;

typedef struct impl {
    kind k;
    const char *alg;   /* papcoll algorithm name (K_PAPC) */
    char name[64];     /* CSV name: MPI_Gather_padded, papc_basic_linear */
    char label[64];    /* table column header */
    int available;     /* 0: the algorithm answered MPI_ERR_UNSUPPORTED_OPERATION */
    double *t;         /* this rank's times, then the max over ranks */
    stats s;
} impl;

typedef struct bench {
    papc_collective coll; /* PAPC_GATHERV or PAPC_SCATTERV */
    impl im[MAX_IMPLS];
    int n;
} bench;

static int gather_side(const bench *B) { return B->coll == PAPC_GATHERV; }

static int wanted_alg(const options *o, const char *name) {
    if (!o->algs) return 1;
    char *copy = strdup(o->algs), *save = NULL;
    int yes = 0;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (!strcmp(t, name)) yes = 1;
    free(copy);
    return yes;
}

static void add_impl(bench *B, kind k, const char *alg, const char *name,
                     const char *label) {
    if (B->n == MAX_IMPLS) return;
    impl *x = &B->im[B->n++];
    memset(x, 0, sizeof *x);
    x->k = k;
    x->alg = alg;
    x->available = 1;
    snprintf(x->name, sizeof x->name, "%s", name);
    snprintf(x->label, sizeof x->label, "%s", label);
}

/* The fixed four columns, then every registered papcoll algorithm. */
static void bench_init(bench *B, papc_collective coll, const options *o) {
    int g = coll == PAPC_GATHERV;
    memset(B, 0, sizeof *B);
    B->coll = coll;
    add_impl(B, K_REGULAR, NULL, g ? "MPI_Gather_padded" : "MPI_Scatter_padded",
             g ? "MPI_Gather" : "MPI_Scatter");
    add_impl(B, K_GL2, NULL, "GL2_rhs", "GL2 rhs");
    add_impl(B, K_NATIVE, NULL, g ? "MPI_Gatherv" : "MPI_Scatterv",
             g ? "MPI_Gatherv" : "MPI_Scatterv");
    for (int a = 0; a < papc_algorithm_count(coll); a++) {
        const papc_algorithm_info *info = papc_algorithm_get(coll, a);
        if (!info || !wanted_alg(o, info->name)) continue;
        char name[64];
        snprintf(name, sizeof name, "papc_%s", info->name);
        add_impl(B, K_PAPC, info->name, name, info->name);
    }
}

static int find_impl(const bench *B, kind k, const char *alg) {
    for (int i = 0; i < B->n; i++)
        if (B->im[i].k == k && (!alg || (B->im[i].alg &&
                                         !strcmp(B->im[i].alg, alg))))
            return i;
    return -1;
}

/* ---- one problem instance and its buffers --------------------------------- */

typedef struct cell {
    problem pr;
    long b;
    int *m;        /* m_i, all ranks (generated at rank 0, broadcast) */
    int *displs;   /* rank-order prefix sums */
    long total;    /* sum m_i */
    int maxm;      /* padded block size */
    int mine;      /* m_rank */
    /* the counts/displs passed to irregular calls on this rank */
    const int *arg_counts, *arg_displs;
    /* gatherv: send = own block, recv = root's total; scatterv: the
     * reverse.  pad_* are the padded regular call's buffers. */
    int *send, *recv, *ref, *pad_send, *pad_recv;
} cell;

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, TOOL ": rank %d: out of memory (%zu bytes)\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* Distinct values per (owner rank, index) so a block in the wrong place
 * cannot pass the check. */
static int pattern(int r, long j) { return (int)(r * 1000003L + j % 999983L); }

static void cell_init(cell *c, const bench *B, const options *o, problem pr,
                      long b) {
    memset(c, 0, sizeof *c);
    c->pr = pr;
    c->b = b;
    c->m = xmalloc((size_t)nprocs * sizeof(int));
    c->displs = xmalloc((size_t)nprocs * sizeof(int));
    if (rank == 0) make_counts(pr, b, nprocs, o->seed, c->m);
    MPI_Bcast(c->m, nprocs, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < nprocs; i++) {
        c->displs[i] = (int)c->total;
        c->total += c->m[i];
        if (c->m[i] > c->maxm) c->maxm = c->m[i];
    }
    c->mine = c->m[rank];
    int at_root = rank == o->root;
    int all = at_root || o->counts_everywhere;
    c->arg_counts = all ? c->m : NULL;
    c->arg_displs = all ? c->displs : NULL;

    size_t big = at_root ? (size_t)c->total : 0;
    size_t pad_big = at_root ? (size_t)c->maxm * nprocs : 0;
    if (gather_side(B)) {
        c->send = xmalloc((size_t)c->mine * sizeof(int));
        c->pad_send = xmalloc((size_t)c->maxm * sizeof(int));
        c->recv = xmalloc(big * sizeof(int));
        c->ref = xmalloc(big * sizeof(int));
        c->pad_recv = xmalloc(pad_big * sizeof(int));
        for (long j = 0; j < c->mine; j++)
            c->send[j] = c->pad_send[j] = pattern(rank, j);
        for (long j = c->mine; j < c->maxm; j++) c->pad_send[j] = 0;
    } else {
        c->send = xmalloc(big * sizeof(int));
        c->pad_send = xmalloc(pad_big * sizeof(int));
        c->recv = xmalloc((size_t)c->mine * sizeof(int));
        c->ref = xmalloc((size_t)c->mine * sizeof(int));
        c->pad_recv = xmalloc((size_t)c->maxm * sizeof(int));
        if (at_root)
            for (int r = 0; r < nprocs; r++)
                for (long j = 0; j < c->maxm; j++) {
                    int v = j < c->m[r] ? pattern(r, j) : 0;
                    if (j < c->m[r]) c->send[c->displs[r] + j] = v;
                    c->pad_send[(size_t)r * c->maxm + j] = v;
                }
    }
}

static void cell_free(cell *c) {
    free(c->m);
    free(c->displs);
    free(c->send);
    free(c->recv);
    free(c->ref);
    free(c->pad_send);
    free(c->pad_recv);
}

/* One call of implementation x; out is the irregular result buffer. */
static int run_impl(const bench *B, const impl *x, cell *c, const options *o,
                    int *out) {
    MPI_Comm w = MPI_COMM_WORLD;
    int root = o->root, g = gather_side(B), padded = c->maxm;
    switch (x->k) {
    case K_GL2: {
        /* the user's way: agree on the largest block, then pad */
        int rc = MPI_Allreduce(&c->mine, &padded, 1, MPI_INT, MPI_MAX, w);
        if (rc != MPI_SUCCESS) return rc;
    } /* fall through */
    case K_REGULAR:
        return g ? MPI_Gather(c->pad_send, padded, MPI_INT, c->pad_recv,
                              padded, MPI_INT, root, w)
                 : MPI_Scatter(c->pad_send, padded, MPI_INT, c->pad_recv,
                               padded, MPI_INT, root, w);
    case K_NATIVE:
        return g ? MPI_Gatherv(c->send, c->mine, MPI_INT, out, c->arg_counts,
                               c->arg_displs, MPI_INT, root, w)
                 : MPI_Scatterv(c->send, c->arg_counts, c->arg_displs, MPI_INT,
                                out, c->mine, MPI_INT, root, w);
    case K_PAPC:
        return g ? papc_gatherv_alg(c->send, c->mine, MPI_INT, out,
                                    c->arg_counts, c->arg_displs, MPI_INT,
                                    root, w, x->alg)
                 : papc_scatterv_alg(c->send, c->arg_counts, c->arg_displs,
                                     MPI_INT, out, c->mine, MPI_INT, root, w,
                                     x->alg);
    }
    return MPI_ERR_ARG;
}

static void die_mpi(int rc, const char *what) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, TOOL ": rank %d: %s failed: %s\n", rank, what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Length of this rank's irregular result (the root's total for gatherv). */
static long result_len(const bench *B, const cell *c, const options *o) {
    if (gather_side(B)) return rank == o->root ? c->total : 0;
    return c->mine;
}

/* The native result must be the pattern (checks this tool), and every
 * papcoll algorithm's must equal it; any difference aborts the run. */
static void check_cell(bench *B, cell *c, const options *o) {
    long len = result_len(B, c, o);
    int nat = find_impl(B, K_NATIVE, NULL);
    for (long j = 0; j < len; j++) c->ref[j] = -2;
    int rc = run_impl(B, &B->im[nat], c, o, c->ref);
    if (rc != MPI_SUCCESS) die_mpi(rc, B->im[nat].name);
    long bad = -1;
    if (gather_side(B)) {
        for (int r = 0; r < nprocs && bad < 0 && len; r++)
            for (long j = 0; j < c->m[r] && bad < 0; j++)
                if (c->ref[c->displs[r] + j] != pattern(r, j))
                    bad = c->displs[r] + j;
    } else {
        for (long j = 0; j < len && bad < 0; j++)
            if (c->ref[j] != pattern(rank, j)) bad = j;
    }
    if (bad >= 0) {
        fprintf(stderr, TOOL ": rank %d: native %s gave a wrong element %ld "
                "(%s, b = %ld): a bug of this tool or of the MPI\n", rank,
                B->im[nat].name, bad, problem_names[c->pr], c->b);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    for (int i = 0; i < B->n; i++) {
        impl *x = &B->im[i];
        if (x->k != K_PAPC || !x->available) continue;
        for (long j = 0; j < len; j++) c->recv[j] = -1;
        rc = run_impl(B, x, c, o, c->recv);
        int worst = rc;
        MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (worst == MPI_ERR_UNSUPPORTED_OPERATION) {
            /* a placeholder: the algorithm is registered but not written */
            x->available = 0;
            if (rank == 0)
                fprintf(stderr, TOOL ": %s %s is not available (%s); "
                        "skipped\n", papc_collective_name(B->coll), x->alg,
                        papc_strerror(worst));
            continue;
        }
        if (worst != MPI_SUCCESS) {
            fprintf(stderr, TOOL ": rank %d: papcoll %s %s failed (%s, "
                    "b = %ld): %s\n", rank, papc_collective_name(B->coll),
                    x->alg, problem_names[c->pr], c->b,
                    rc != MPI_SUCCESS ? papc_strerror(rc)
                                      : "error on another rank");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        long diff = -1;
        for (long j = 0; j < len && diff < 0; j++)
            if (c->recv[j] != c->ref[j]) diff = j;
        if (diff >= 0) {
            fprintf(stderr, "\n" TOOL ": MISMATCH: rank %d: papcoll %s %s "
                    "differs from native %s at element %ld (%d, expected "
                    "%d); problem %s, b = %ld, P = %d, root %d\n", rank,
                    papc_collective_name(B->coll), x->alg, B->im[nat].name,
                    diff, c->recv[diff], c->ref[diff], problem_names[c->pr],
                    c->b, nprocs, o->root);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

/* ---- timing ----------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static stats summarize(double *t, int n) {
    stats s;
    double sum = 0, sq = 0;
    for (int i = 0; i < n; i++) sum += t[i];
    s.mean = sum / n;
    for (int i = 0; i < n; i++) sq += (t[i] - s.mean) * (t[i] - s.mean);
    s.stddev = n > 1 ? sqrt(sq / (n - 1)) : 0;
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    s.min = t[0];
    s.max = t[n - 1];
    s.median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    return s;
}

/* One barrier-then-timed call of x, stored as repetition rep (< 0: warm-up). */
static void timed_call(const bench *B, impl *x, cell *c, const options *o,
                       int rep) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int rc = run_impl(B, x, c, o, c->recv);
    double t1 = MPI_Wtime();
    if (rc != MPI_SUCCESS) {
        if (x->k == K_PAPC)
            fprintf(stderr, TOOL ": rank %d: papcoll %s: %s\n", rank, x->alg,
                    papc_strerror(rc));
        die_mpi(rc, x->name);
    }
    if (rep >= 0) x->t[rep] = t1 - t0;
}

static void time_cell(bench *B, cell *c, const options *o) {
    int n = o->iterations, reps = o->warmup + n;
    double *mx = xmalloc((size_t)n * sizeof(double));
    int *avail = xmalloc((size_t)B->n * sizeof(int));
    int navail = 0;
    for (int i = 0; i < B->n; i++) {
        B->im[i].t = xmalloc((size_t)n * sizeof(double));
        if (B->im[i].available) avail[navail++] = i;
    }
    if (o->interleave) {
        /* rounds of every implementation, the first one rotating */
        for (int it = 0; it < reps; it++)
            for (int k = 0; k < navail; k++)
                timed_call(B, &B->im[avail[(k + it) % navail]], c, o,
                           it - o->warmup);
    } else {
        /* the paper's way: warm-up and repetitions of one, then the next */
        for (int k = 0; k < navail; k++)
            for (int it = 0; it < reps; it++)
                timed_call(B, &B->im[avail[k]], c, o, it - o->warmup);
    }
    for (int k = 0; k < navail; k++) {
        impl *x = &B->im[avail[k]];
        MPI_Reduce(x->t, mx, n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0) x->s = summarize(mx, n);
    }
    for (int i = 0; i < B->n; i++) {
        free(B->im[i].t);
        B->im[i].t = NULL;
    }
    free(avail);
    free(mx);
}

/* ---- guideline marks -------------------------------------------------------- */

typedef enum mark { M_NA = 0, M_OK, M_VIOLATED } mark;
static const char *const mark_names[] = {"", "ok", "violated"};

typedef struct result {
    stats s[MAX_IMPLS];
    int avail[MAX_IMPLS];
    mark gl1[MAX_IMPLS], gl2[MAX_IMPLS];
    long total;
    int maxm;
} result;

static int is_irregular(kind k) { return k == K_NATIVE || k == K_PAPC; }

/* lhs > rhs (1 + t) on minimum times. */
static mark judge(double lhs, double rhs, double tol) {
    return lhs > rhs * (1 + tol) ? M_VIOLATED : M_OK;
}

static void mark_cell(const bench *B, const cell *c, const options *o,
                      result *R) {
    int reg = find_impl(B, K_REGULAR, NULL), gl2 = find_impl(B, K_GL2, NULL);
    memset(R, 0, sizeof *R);
    R->total = c->total;
    R->maxm = c->maxm;
    for (int i = 0; i < B->n; i++) {
        R->s[i] = B->im[i].s;
        R->avail[i] = B->im[i].available;
        if (!R->avail[i] || !is_irregular(B->im[i].k)) continue;
        R->gl2[i] = judge(R->s[i].min, B->im[gl2].s.min, o->tolerance);
        /* GL1 only where the regular call can be used: m_i = m/p */
        if (c->pr == P_SAME)
            R->gl1[i] = judge(B->im[reg].s.min, R->s[i].min, o->tolerance);
    }
}

/* ---- output ----------------------------------------------------------------- */

typedef struct run_info {
    char date[64];
    char machine[1024];
    char mpi[MPI_MAX_LIBRARY_VERSION_STRING];
    char cmdline[2048];
    char load_start[64];
} run_info;

static void read_first_line(const char *path, char *buf, size_t len) {
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (fgets(buf, (int)len, f)) buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}

static void cpu_model(char *buf, size_t len) {
    char line[512];
    snprintf(buf, len, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "model name", 10)) {
            char *v = strchr(line, ':');
            if (v) {
                v += 1 + (v[1] == ' ');
                v[strcspn(v, "\n")] = '\0';
                snprintf(buf, len, "%s", v);
            }
            break;
        }
    fclose(f);
}

static void run_info_init(run_info *ri, int argc, char **argv) {
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(ri->date, sizeof ri->date, "%Y-%m-%d %H:%M:%S UTC", &tm);
    struct utsname u;
    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    if (uname(&u) == 0)
        snprintf(ri->machine, sizeof ri->machine, "%s, %ld cores (%s), %s %s "
                 "%s", u.nodename, sysconf(_SC_NPROCESSORS_ONLN), cpu,
                 u.sysname, u.release, u.machine);
    else
        snprintf(ri->machine, sizeof ri->machine, "%ld cores (%s)",
                 sysconf(_SC_NPROCESSORS_ONLN), cpu);
    snprintf(ri->mpi, sizeof ri->mpi, "%s", papc_mpi_library());
    ri->mpi[strcspn(ri->mpi, "\n")] = '\0';
    size_t used = 0;
    ri->cmdline[0] = '\0';
    for (int i = 0; i < argc && used < sizeof ri->cmdline; i++) {
        int w = snprintf(ri->cmdline + used, sizeof ri->cmdline - used, "%s%s",
                         i ? " " : "", argv[i]);
        if (w < 0) break;
        used += (size_t)w;
    }
    read_first_line("/proc/loadavg", ri->load_start, sizeof ri->load_start);
}

static const char *coll_word(const bench *B) {
    return gather_side(B) ? "gatherv" : "scatterv";
}

static void csv_header(FILE *f, const run_info *ri, const options *o) {
    fprintf(f, "# papc-guide: irregular gather/scatter performance guidelines "
            "(Traff, sections 4-5)\n");
    fprintf(f, "# date: %s\n# machine: %s\n# mpi: %s\n# papcoll: %s\n",
            ri->date, ri->machine, ri->mpi, PAPC_VERSION_STRING);
    fprintf(f, "# command: %s\n", ri->cmdline);
    fprintf(f, "# P: %d  root: %d  repetitions: %d  warm-up: %d  seed: %llu  "
            "tolerance: %g%%  counts at non-roots: %s\n", nprocs, o->root,
            o->iterations, o->warmup, (unsigned long long)o->seed,
            o->tolerance * 100, o->counts_everywhere ? "full arrays" : "NULL");
    fprintf(f, "# loadavg at start: %s (the end load is the last line)\n",
            ri->load_start);
    fprintf(f, "# times in us: per repetition the slowest rank's time; gl1/"
            "gl2 judged on minimum times\n");
    fprintf(f, "collective,problem,b,P,root,implementation,kind,sum_m,max_m,"
            "iterations,min_us,mean_us,median_us,max_us,stddev_us,gl1,gl2,"
            "gl2_ratio,speedup_vs_native\n");
}

static void csv_rows(FILE *f, const bench *B, const options *o, problem pr,
                     long b, const result *R) {
    int gl2 = find_impl(B, K_GL2, NULL), nat = find_impl(B, K_NATIVE, NULL);
    for (int i = 0; i < B->n; i++) {
        if (!R->avail[i]) continue;
        const stats *s = &R->s[i];
        fprintf(f, "%s,%s,%ld,%d,%d,%s,%s,%ld,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,"
                "%s,%s,", coll_word(B), problem_names[pr], b, nprocs, o->root,
                B->im[i].name, kind_names[B->im[i].k], R->total, R->maxm,
                o->iterations, s->min * 1e6, s->mean * 1e6, s->median * 1e6,
                s->max * 1e6, s->stddev * 1e6, mark_names[R->gl1[i]],
                mark_names[R->gl2[i]]);
        if (is_irregular(B->im[i].k))
            fprintf(f, "%.4f", s->min / R->s[gl2].min);
        fprintf(f, ",");
        if (B->im[i].k == K_PAPC) fprintf(f, "%.4f", R->s[nat].min / s->min);
        fprintf(f, "\n");
    }
}

static int label_width(const impl *x) {
    int w = (int)strlen(x->label) + 1;
    return w < 10 ? 10 : w;
}

/* One table per (collective, problem): rows b, columns implementations. */
static void print_table(const bench *B, const options *o, problem pr,
                        result *const *rows) {
    int nat = find_impl(B, K_NATIVE, NULL);
    int sab = find_impl(B, K_PAPC, "size_aware_binomial");
    if (sab >= 0 && !B->im[sab].available) sab = -1;
    printf("\n%s / %s  (P = %d, root %d; minimum us over %d repetitions)\n",
           coll_word(B), problem_names[pr], nprocs, o->root, o->iterations);
    printf("%7s %9s", "b", "max_m");
    for (int i = 0; i < B->n; i++)
        if (B->im[i].available) printf(" %*s", label_width(&B->im[i]),
                                       B->im[i].label);
    if (sab >= 0) printf("  %9s", "speedup");
    printf("\n");
    for (int k = 0; k < o->nb; k++) {
        const result *R = rows[k];
        printf("%7ld %9d", o->b[k], R->maxm);
        for (int i = 0; i < B->n; i++) {
            if (!B->im[i].available) continue;
            char cell[48];
            snprintf(cell, sizeof cell, "%.1f%s%s", R->s[i].min * 1e6,
                     R->gl2[i] == M_VIOLATED ? "*" : "",
                     R->gl1[i] == M_VIOLATED ? "!" : "");
            printf(" %*s", label_width(&B->im[i]), cell);
        }
        if (sab >= 0) printf("  %8.2fx", R->s[nat].min / R->s[sab].min);
        printf("\n");
    }
}

/* Per collective: how often each irregular implementation meets GL2, GL1
 * on `same', and issue 6's goals for size_aware_binomial. */
static void print_summary(const bench *B, const options *o,
                          result *const *all, int ncells) {
    int nat = find_impl(B, K_NATIVE, NULL);
    printf("\n%s summary (tolerance %g%%):\n", coll_word(B),
           o->tolerance * 100);
    for (int i = 0; i < B->n; i++) {
        if (!B->im[i].available || !is_irregular(B->im[i].k)) continue;
        int met = 0, gl1_cells = 0, gl1_viol = 0;
        for (int c = 0; c < ncells; c++) {
            met += all[c]->gl2[i] == M_OK;
            if (all[c]->gl1[i] != M_NA) {
                gl1_cells++;
                gl1_viol += all[c]->gl1[i] == M_VIOLATED;
            }
        }
        printf("  %-22s GL2 met in %d/%d cells (%.0f%%)", B->im[i].label, met,
               ncells, 100.0 * met / ncells);
        if (gl1_cells)
            printf("; GL1 (same): regular call slower in %d/%d", gl1_viol,
                   gl1_cells);
        printf("\n");
    }
    int sab = find_impl(B, K_PAPC, "size_aware_binomial");
    if (sab < 0 || !B->im[sab].available) {
        printf("  size_aware_binomial: not registered, goals not measured\n");
        return;
    }
    double small_min = 1e300, big_max = 0;
    int small_n = 0, small_ok = 0, big_n = 0, big_ok = 0, met = 0;
    for (int c = 0; c < ncells; c++) {
        const result *R = all[c];
        met += R->gl2[sab] == M_OK;
        long b = o->b[c % o->nb];
        double speedup = R->s[nat].min / R->s[sab].min;
        if (b <= 100) {
            small_n++;
            small_ok += speedup >= 2.0;
            if (speedup < small_min) small_min = speedup;
        }
        if (b == 10000) {
            double ratio = R->s[sab].min / R->s[nat].min;
            big_n++;
            big_ok += ratio <= 1.1;
            if (ratio > big_max) big_max = ratio;
        }
    }
    printf("  goals for size_aware_binomial:\n");
    printf("    GL2 in >= 90%% of cells: %d/%d = %.0f%%  %s\n", met, ncells,
           100.0 * met / ncells, met >= 0.9 * ncells ? "met" : "NOT met");
    if (small_n)
        printf("    b <= 100 at least 2x faster than native: %d/%d cells, "
               "smallest speedup %.3gx  %s\n", small_ok, small_n, small_min,
               small_ok == small_n ? "met" : "NOT met");
    if (big_n)
        printf("    b = 10000 no slower than 1.1x native: %d/%d cells, worst "
               "ratio %.2f  %s\n", big_ok, big_n, big_max,
               big_ok == big_n ? "met" : "NOT met");
}

/* ---- main ------------------------------------------------------------------ */

static void run_collective(papc_collective coll, const options *o, FILE *csv,
                           int *cell_no, int ncells_all, double t_start) {
    bench B;
    bench_init(&B, coll, o);
    int ncells = o->nproblems * o->nb;
    result **all = xmalloc((size_t)ncells * sizeof *all);
    for (int p = 0; p < o->nproblems; p++) {
        problem pr = (problem)o->problems[p];
        for (int k = 0; k < o->nb; k++) {
            double t0 = MPI_Wtime();
            cell c;
            cell_init(&c, &B, o, pr, o->b[k]);
            check_cell(&B, &c, o);
            time_cell(&B, &c, o);
            result *R = xmalloc(sizeof *R);
            mark_cell(&B, &c, o, R);
            all[p * o->nb + k] = R;
            cell_free(&c);
            ++*cell_no;
            if (rank == 0) {
                fprintf(stderr, "[%3d/%d] %-8s %-11s b=%-6ld %6.1f s "
                        "(total %.0f s)\n", *cell_no, ncells_all,
                        coll_word(&B), problem_names[pr], o->b[k],
                        MPI_Wtime() - t0, MPI_Wtime() - t_start);
                if (csv) {
                    csv_rows(csv, &B, o, pr, o->b[k], R);
                    fflush(csv);
                }
            }
        }
        if (rank == 0) {
            print_table(&B, o, pr, all + p * o->nb);
            fflush(stdout);
        }
    }
    if (rank == 0) print_summary(&B, o, all, ncells);
    for (int i = 0; i < ncells; i++) free(all[i]);
    free(all);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    options o;
    if (parse_options(argc, argv, &o)) {
        usage();
        MPI_Finalize();
        return o.help ? 0 : 2;
    }
    run_info ri;
    run_info_init(&ri, argc, argv);
    FILE *csv = NULL;
    int csv_ok = 1;
    if (rank == 0 && o.csv) {
        csv = fopen(o.csv, "w");
        if (!csv) {
            fprintf(stderr, TOOL ": cannot write %s: %s\n", o.csv,
                    strerror(errno));
            csv_ok = 0;
        }
    }
    MPI_Bcast(&csv_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!csv_ok) {
        MPI_Finalize();
        return 1;
    }
    if (rank == 0) {
        printf("# papc-guide: irregular gather/scatter guidelines, P = %d, "
               "root %d, %d repetitions, %d warm-up, seed %llu\n# %s\n# MPI: "
               "%s\n# %s; loadavg %s\n", nprocs, o.root, o.iterations,
               o.warmup, (unsigned long long)o.seed, ri.cmdline, ri.mpi,
               ri.date, ri.load_start);
        printf("# cells: minimum us (slowest rank); * = violates GL2 (slower "
               "than GL2 rhs), ! = violates GL1\n# (same: the regular call is "
               "slower than this one); speedup = native / "
               "size_aware_binomial\n");
        fflush(stdout);
    }
    double t_start = MPI_Wtime();
    int cell_no = 0;
    int ncells_all = (o.do_gatherv + o.do_scatterv) * o.nproblems * o.nb;
    /* CSV rows are written as cells finish, so a long run that is cut off
     * still leaves its finished cells; the end load is the last line. */
    if (csv) csv_header(csv, &ri, &o);
    if (o.do_gatherv)
        run_collective(PAPC_GATHERV, &o, csv, &cell_no, ncells_all, t_start);
    if (o.do_scatterv)
        run_collective(PAPC_SCATTERV, &o, csv, &cell_no, ncells_all, t_start);
    if (rank == 0) {
        char load_end[64];
        read_first_line("/proc/loadavg", load_end, sizeof load_end);
        printf("\n# done in %.0f s; loadavg at end: %s\n",
               MPI_Wtime() - t_start, load_end);
        if (csv) {
            fprintf(csv, "# done in %.0f s; loadavg at end: %s\n",
                    MPI_Wtime() - t_start, load_end);
            fclose(csv);
        }
    }
    free(o.algs);
    MPI_Finalize();
    return 0;
}
