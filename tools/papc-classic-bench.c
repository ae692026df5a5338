/*
 * papc-classic-bench — one papcoll algorithm against the native MPI
 * collective, in the same run (issue 2, item 7).
 *
 *   mpirun -np 8 [--mca coll_tuned_use_dynamic_rules 1
 *                 --mca coll_tuned_bcast_algorithm 3 ...] \
 *       papc-classic-bench --coll bcast --alg chain --sizes 64K,4M
 *
 * The native side is whatever MPI_<Coll> does under mpirun's settings, so
 * forcing an Open MPI algorithm with --mca makes this a one-to-one
 * comparison of two implementations of the same algorithm.
 *
 * Method (OSU conventions where they apply: -i iterations, -x warm-up,
 * size = bytes per rank's block for gather/scatter(v), bytes of the vector
 * for bcast/reduce/allreduce; data are MPI_INT, reductions MPI_SUM):
 *   - once per size, both implementations run on fresh buffers and their
 *     results are compared (a quick check, not the test suite); a papcoll
 *     error (a placeholder answers MPI_ERR_UNSUPPORTED_OPERATION) turns the
 *     papcoll columns into "not available" and only the native side is
 *     timed;
 *   - papcoll and native calls are interleaved within each iteration, in
 *     the order AB, BA, AB, ... so slow drift of the machine (other jobs,
 *     frequency) falls on both sides alike;
 *   - every call is preceded by MPI_Barrier; a rank times its own call;
 *     the time of an iteration is the maximum over the ranks (gathered
 *     after the loop, so no extra collective sits between timed calls);
 *   - median and mean (and minimum) over the iterations are printed per
 *     size, with the ratio of the medians papcoll/native; --csv FILE
 *     appends one row per size.
 * Uses the public API only.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <mpi.h>
#include "papcoll.h"
#include "cli.h"

extern char **environ;

#define MAX_SIZES 64
#define LARGE_SIZE ((size_t)1 << 20) /* --large-iterations applies from here */

typedef struct options {
    papc_collective coll;
    const char *alg;
    size_t sizes[MAX_SIZES];
    int nsizes;
    int iterations;       /* -i */
    int large_iterations; /* --large-iterations, sizes >= 1 MiB */
    int warmup;           /* -x */
    int root;
    const char *csv;
} options;

/* Buffers of one size: papcoll and native results kept apart so the
 * check can compare them. */
typedef struct buffers {
    int count;          /* elements per block / vector */
    int *send;
    int *recv_papc;
    int *recv_mpi;
    size_t recv_len;    /* elements in each recv buffer */
    int *counts, *displs; /* gatherv/scatterv: equal blocks */
} buffers;

typedef struct result {
    int papc_rc;        /* MPI_SUCCESS or papcoll's error class */
    char papc_msg[256]; /* papc_strerror of a failure */
    int agree;          /* 1 when both results are the same */
    double papc_median, papc_mean, papc_min, mpi_median, mpi_mean, mpi_min;
} result;

static int rank, nprocs;

/* ---- command line ------------------------------------------------------ */

static void usage(void) {
    if (rank != 0) return;
    fprintf(stderr,
        "usage: papc-classic-bench --coll NAME --alg NAME [options]\n"
        "  --coll NAME            gather scatter bcast reduce allreduce "
        "gatherv scatterv\n"
        "  --alg NAME             papcoll algorithm (see papc-info "
        "--algorithms)\n"
        "  --sizes LIST           bytes, comma-separated, K/M suffixes "
        "(default 64K,4M);\n"
        "                         per rank's block for gather/scatter(v), "
        "vector otherwise\n"
        "  -i, --iterations N     timed iterations per size (default 100)\n"
        "  --large-iterations N   timed iterations for sizes >= 1 MiB "
        "(default: -i)\n"
        "  -x, --warmup N         untimed iterations per size (default 10)\n"
        "  --root R               root rank (default 0)\n"
        "  --csv FILE             append one row per size to FILE\n"
        "The native side is MPI_<Coll> as configured by mpirun "
        "(e.g. --mca coll_tuned_*).\n");
}

/* Parses "65536", "64K", "4M" (binary multiples) into bytes; 0 on error. */
static size_t parse_bytes(const char *s) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno) return 0;
    if (*end == 'k' || *end == 'K') v <<= 10, end++;
    else if (*end == 'm' || *end == 'M') v <<= 20, end++;
    else if (*end == 'g' || *end == 'G') v <<= 30, end++;
    if (*end == 'B' || *end == 'b') end++;
    return *end ? 0 : (size_t)v;
}

static int parse_sizes(const char *list, options *o) {
    char *copy = strdup(list), *save = NULL;
    o->nsizes = 0;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        size_t b = parse_bytes(t);
        if (b < sizeof(int) || b % sizeof(int) || b / sizeof(int) > INT_MAX ||
            o->nsizes == MAX_SIZES) {
            if (rank == 0)
                fprintf(stderr, "papc-classic-bench: bad size '%s' (a "
                        "multiple of %zu bytes, K/M suffix allowed)\n", t,
                        sizeof(int));
            free(copy);
            return -1;
        }
        o->sizes[o->nsizes++] = b;
    }
    free(copy);
    return o->nsizes > 0 ? 0 : -1;
}

static int parse_options(int argc, char **argv, options *o) {
    const char *coll = NULL;
    memset(o, 0, sizeof *o);
    o->iterations = 100;
    o->large_iterations = -1;
    o->warmup = 10;
    if (parse_sizes("64K,4M", o)) return -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return -1;
        if (!v) bad = 1;
        else if (!strcmp(a, "--coll")) coll = v;
        else if (!strcmp(a, "--alg")) o->alg = v;
        else if (!strcmp(a, "--sizes")) {
            if (parse_sizes(v, o)) return -1; /* already reported */
        }
        else if (!strcmp(a, "-i") || !strcmp(a, "--iterations"))
            bad = papc_cli_int(v, 1, &o->iterations);
        else if (!strcmp(a, "--large-iterations"))
            bad = papc_cli_int(v, 1, &o->large_iterations);
        else if (!strcmp(a, "-x") || !strcmp(a, "--warmup"))
            bad = papc_cli_int(v, 0, &o->warmup);
        else if (!strcmp(a, "--root")) bad = papc_cli_int(v, 0, &o->root);
        else if (!strcmp(a, "--csv")) o->csv = v;
        else bad = 1;
        if (bad) {
            if (rank == 0)
                fprintf(stderr, "papc-classic-bench: bad option '%s'\n", a);
            return -1;
        }
        i++;
    }
    if (!coll || !o->alg) {
        if (rank == 0)
            fprintf(stderr, "papc-classic-bench: --coll and --alg are "
                    "required\n");
        return -1;
    }
    int c = papc_collective_from_name(coll);
    if (c < 0) {
        if (rank == 0)
            fprintf(stderr, "papc-classic-bench: unknown collective '%s'\n",
                    coll);
        return -1;
    }
    o->coll = (papc_collective)c;
    if (o->root >= nprocs) {
        if (rank == 0)
            fprintf(stderr, "papc-classic-bench: root %d >= P = %d\n",
                    o->root, nprocs);
        return -1;
    }
    if (o->large_iterations < 0) o->large_iterations = o->iterations;
    /* gatherv/scatterv displacements are ints: P blocks must fit */
    for (int s = 0; s < o->nsizes; s++)
        if ((o->coll == PAPC_GATHERV || o->coll == PAPC_SCATTERV) &&
            o->sizes[s] / sizeof(int) * (size_t)nprocs > INT_MAX) {
            if (rank == 0)
                fprintf(stderr, "papc-classic-bench: %zu bytes x %d ranks "
                        "overflows the int displacements\n", o->sizes[s],
                        nprocs);
            return -1;
        }
    return 0;
}

/* ---- buffers ------------------------------------------------------------ */

static int is_rooted_gather(papc_collective c) {
    return c == PAPC_GATHER || c == PAPC_GATHERV;
}
static int is_rooted_scatter(papc_collective c) {
    return c == PAPC_SCATTER || c == PAPC_SCATTERV;
}

/* Values small enough that a sum over thousands of ranks cannot overflow. */
static int pattern(int r, size_t i) { return (int)((r * 131 + i * 7) % 1009); }

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "papc-classic-bench: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

static void buffers_alloc(buffers *b, const options *o, size_t bytes) {
    int n = (int)(bytes / sizeof(int));
    int big = rank == o->root; /* root holds P blocks in gather/scatter */
    size_t send_len = (size_t)n, recv_len = (size_t)n;
    if (is_rooted_gather(o->coll)) recv_len = big ? (size_t)n * nprocs : 1;
    if (is_rooted_scatter(o->coll)) send_len = big ? (size_t)n * nprocs : 1;
    b->count = n;
    b->send = xmalloc(send_len * sizeof(int));
    b->recv_papc = xmalloc(recv_len * sizeof(int));
    b->recv_mpi = xmalloc(recv_len * sizeof(int));
    b->recv_len = recv_len;
    b->counts = xmalloc((size_t)nprocs * sizeof(int));
    b->displs = xmalloc((size_t)nprocs * sizeof(int));
    for (int r = 0; r < nprocs; r++) {
        b->counts[r] = n;
        b->displs[r] = r * n; /* fits: n * P elements were allocated */
    }
    int src = is_rooted_scatter(o->coll) ? o->root : rank;
    for (size_t i = 0; i < send_len; i++) b->send[i] = pattern(src, i);
}

/* Distinct garbage in the two result buffers, so a call that writes
 * nothing cannot pass the check; the bcast root gets its data instead. */
static void buffers_reset(buffers *b, const options *o) {
    for (size_t i = 0; i < b->recv_len; i++) {
        b->recv_papc[i] = -1;
        b->recv_mpi[i] = -2;
    }
    if (o->coll == PAPC_BCAST && rank == o->root)
        for (size_t i = 0; i < b->recv_len; i++)
            b->recv_papc[i] = b->recv_mpi[i] = pattern(rank, i);
}

static void buffers_free(buffers *b) {
    free(b->send);
    free(b->recv_papc);
    free(b->recv_mpi);
    free(b->counts);
    free(b->displs);
}

/* ---- the two implementations ------------------------------------------ */

static int run_papc(const options *o, buffers *b) {
    MPI_Comm w = MPI_COMM_WORLD;
    int n = b->count, root = o->root;
    int *s = b->send, *r = b->recv_papc;
    switch (o->coll) {
    case PAPC_GATHER:
        return papc_gather_alg(s, n, MPI_INT, r, n, MPI_INT, root, w, o->alg);
    case PAPC_SCATTER:
        return papc_scatter_alg(s, n, MPI_INT, r, n, MPI_INT, root, w, o->alg);
    case PAPC_BCAST:
        return papc_bcast_alg(r, n, MPI_INT, root, w, o->alg);
    case PAPC_REDUCE:
        return papc_reduce_alg(s, r, n, MPI_INT, MPI_SUM, root, w, o->alg);
    case PAPC_ALLREDUCE:
        return papc_allreduce_alg(s, r, n, MPI_INT, MPI_SUM, w, o->alg);
    case PAPC_GATHERV:
        return papc_gatherv_alg(s, n, MPI_INT, r, b->counts, b->displs,
                                MPI_INT, root, w, o->alg);
    case PAPC_SCATTERV:
        return papc_scatterv_alg(s, b->counts, b->displs, MPI_INT, r, n,
                                 MPI_INT, root, w, o->alg);
    default:
        return MPI_ERR_ARG;
    }
}

static int run_mpi(const options *o, buffers *b) {
    MPI_Comm w = MPI_COMM_WORLD;
    int n = b->count, root = o->root;
    int *s = b->send, *r = b->recv_mpi;
    switch (o->coll) {
    case PAPC_GATHER:
        return MPI_Gather(s, n, MPI_INT, r, n, MPI_INT, root, w);
    case PAPC_SCATTER:
        return MPI_Scatter(s, n, MPI_INT, r, n, MPI_INT, root, w);
    case PAPC_BCAST:
        return MPI_Bcast(r, n, MPI_INT, root, w);
    case PAPC_REDUCE:
        return MPI_Reduce(s, r, n, MPI_INT, MPI_SUM, root, w);
    case PAPC_ALLREDUCE:
        return MPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, w);
    case PAPC_GATHERV:
        return MPI_Gatherv(s, n, MPI_INT, r, b->counts, b->displs, MPI_INT,
                           root, w);
    case PAPC_SCATTERV:
        return MPI_Scatterv(s, b->counts, b->displs, MPI_INT, r, n, MPI_INT,
                            root, w);
    default:
        return MPI_ERR_ARG;
    }
}

/* 1 when this rank holds a defined result of the collective. */
static int has_result(const options *o) {
    switch (o->coll) {
    case PAPC_GATHER: case PAPC_GATHERV: case PAPC_REDUCE:
        return rank == o->root;
    default:
        return 1;
    }
}

static void fail_mpi(int rc, const char *what) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "papc-classic-bench: rank %d: %s failed: %s\n", rank,
            what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Runs both once on fresh buffers and compares.  The papcoll error (the
 * same on every rank for validation errors and placeholders) is agreed on
 * with an allreduce so every rank takes the same path afterwards. */
static void check_once(const options *o, buffers *b, result *res) {
    buffers_reset(b, o);
    int rc = run_papc(o, b);
    if (rc != MPI_SUCCESS) {
        snprintf(res->papc_msg, sizeof res->papc_msg, "%s",
                 papc_strerror(rc));
    }
    int rc_mpi = run_mpi(o, b);
    if (rc_mpi != MPI_SUCCESS) fail_mpi(rc_mpi, "the native collective");

    int worst = rc;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    res->papc_rc = worst;
    if (worst != MPI_SUCCESS && rc == MPI_SUCCESS)
        snprintf(res->papc_msg, sizeof res->papc_msg,
                 "failed on another rank (error class %d)", worst);
    /* rank 0 prints: bring a failing rank's message to it */
    if (worst != MPI_SUCCESS) {
        int mine = rc != MPI_SUCCESS ? rank : nprocs, first = 0;
        MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (first != 0) {
            if (rank == first)
                MPI_Send(res->papc_msg, sizeof res->papc_msg, MPI_CHAR, 0, 0,
                         MPI_COMM_WORLD);
            if (rank == 0)
                MPI_Recv(res->papc_msg, sizeof res->papc_msg, MPI_CHAR, first,
                         0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }

    int same = 1;
    if (worst == MPI_SUCCESS && has_result(o))
        same = memcmp(b->recv_papc, b->recv_mpi,
                      b->recv_len * sizeof(int)) == 0;
    MPI_Allreduce(&same, &res->agree, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
}

/* ---- timing ------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median and mean (the figures compared), and the minimum (what the call
 * costs when nothing else gets in the way; useful on a busy machine). */
static void summarize(double *t, int n, double *median, double *mean,
                      double *min) {
    double sum = 0;
    for (int i = 0; i < n; i++) sum += t[i];
    *mean = sum / n;
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    *median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    *min = t[0];
}

/* One barrier-then-timed call; returns the call's duration on this rank. */
static double timed_call(const options *o, buffers *b, int papc) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int rc = papc ? run_papc(o, b) : run_mpi(o, b);
    double t1 = MPI_Wtime();
    if (rc != MPI_SUCCESS) {
        if (papc)
            fprintf(stderr, "papc-classic-bench: rank %d: papcoll %s "
                    "failed while timing: %s\n", rank, o->alg,
                    papc_strerror(rc));
        fail_mpi(rc, papc ? "papcoll" : "the native collective");
    }
    return t1 - t0;
}

static void time_size(const options *o, buffers *b, int iterations,
                      result *res) {
    int with_papc = res->papc_rc == MPI_SUCCESS;
    double *tp = xmalloc((size_t)iterations * sizeof(double));
    double *tm = xmalloc((size_t)iterations * sizeof(double));
    double *maxp = xmalloc((size_t)iterations * sizeof(double));
    double *maxm = xmalloc((size_t)iterations * sizeof(double));
    for (int it = 0; it < o->warmup + iterations; it++) {
        /* AB, BA, AB, ...: neither side always runs right after the other */
        int papc_first = it % 2 == 0;
        double t_papc = 0, t_mpi;
        if (with_papc && papc_first) t_papc = timed_call(o, b, 1);
        t_mpi = timed_call(o, b, 0);
        if (with_papc && !papc_first) t_papc = timed_call(o, b, 1);
        if (it >= o->warmup) {
            tp[it - o->warmup] = t_papc;
            tm[it - o->warmup] = t_mpi;
        }
    }
    MPI_Reduce(tp, maxp, iterations, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(tm, maxm, iterations, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        summarize(maxp, iterations, &res->papc_median, &res->papc_mean,
                  &res->papc_min);
        summarize(maxm, iterations, &res->mpi_median, &res->mpi_mean,
                  &res->mpi_min);
    }
    free(tp);
    free(tm);
    free(maxp);
    free(maxm);
}

/* ---- output -------------------------------------------------------------- */

/* "OMPI_MCA_coll_tuned_bcast_algorithm=3 ..." : how mpirun configured the
 * native side (mpirun --mca X V reaches the ranks as OMPI_MCA_X=V). */
static void native_settings(char *buf, size_t len, const char *sep) {
    buf[0] = '\0';
    size_t used = 0;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "OMPI_MCA_coll", 13) && strncmp(*e, "PAPC_", 5))
            continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? sep : "", *e);
        if (w < 0 || (size_t)w >= len - used) break;
        used += (size_t)w;
    }
}

static const char *status_word(const result *r) {
    if (r->papc_rc == MPI_ERR_UNSUPPORTED_OPERATION) return "not available";
    if (r->papc_rc != MPI_SUCCESS) return "papcoll error";
    return r->agree ? "ok" : "MISMATCH";
}

static void print_header(const options *o) {
    char settings[2048];
    native_settings(settings, sizeof settings, " ");
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, ",\n")] = '\0';
    printf("# papc-classic-bench: %s, papcoll '%s' vs native MPI_%c%s, P = %d,"
           " root = %d\n", papc_collective_name(o->coll), o->alg,
           papc_collective_name(o->coll)[0] - 'a' + 'A',
           papc_collective_name(o->coll) + 1, nprocs, o->root);
    printf("# MPI: %s\n# settings: %s\n", lib, settings[0] ? settings :
           "(none: the MPI's and papcoll's defaults)");
    printf("# %d timed iterations (%d for sizes >= 1 MiB), %d warm-up; "
           "times in us,\n# per iteration the maximum over ranks; ratio = "
           "papcoll median / native median\n", o->iterations,
           o->large_iterations, o->warmup);
    printf("# %10s %11s %11s %11s %11s %11s %11s %7s  %s\n", "bytes",
           "papc_median", "papc_mean", "papc_min", "mpi_median", "mpi_mean",
           "mpi_min", "ratio", "check");
    fflush(stdout);
}

static void print_row(size_t bytes, const result *r) {
    if (r->papc_rc == MPI_SUCCESS)
        printf("  %10zu %11.1f %11.1f %11.1f %11.1f %11.1f %11.1f %7.3f  %s\n",
               bytes, r->papc_median * 1e6, r->papc_mean * 1e6,
               r->papc_min * 1e6, r->mpi_median * 1e6, r->mpi_mean * 1e6,
               r->mpi_min * 1e6, r->papc_median / r->mpi_median,
               status_word(r));
    else
        printf("  %10zu %11s %11s %11s %11.1f %11.1f %11.1f %7s  %s: %s\n",
               bytes, "-", "-", "-", r->mpi_median * 1e6, r->mpi_mean * 1e6,
               r->mpi_min * 1e6, "-", status_word(r), r->papc_msg);
    fflush(stdout);
}

static void append_csv(const options *o, size_t bytes, int iterations,
                       const result *r) {
    FILE *f = fopen(o->csv, "a");
    if (!f) {
        fprintf(stderr, "papc-classic-bench: cannot open %s: %s\n", o->csv,
                strerror(errno));
        return;
    }
    if (ftell(f) == 0)
        fprintf(f, "collective,algorithm,P,root,bytes,iterations,"
                "papc_median_us,papc_mean_us,papc_min_us,mpi_median_us,"
                "mpi_mean_us,mpi_min_us,ratio,status,settings\n");
    char settings[2048];
    native_settings(settings, sizeof settings, ";");
    int ok = r->papc_rc == MPI_SUCCESS;
    fprintf(f, "%s,%s,%d,%d,%zu,%d,", papc_collective_name(o->coll), o->alg,
            nprocs, o->root, bytes, iterations);
    if (ok)
        fprintf(f, "%.2f,%.2f,%.2f,", r->papc_median * 1e6,
                r->papc_mean * 1e6, r->papc_min * 1e6);
    else
        fprintf(f, ",,,");
    fprintf(f, "%.2f,%.2f,%.2f,", r->mpi_median * 1e6, r->mpi_mean * 1e6,
            r->mpi_min * 1e6);
    if (ok) fprintf(f, "%.4f", r->papc_median / r->mpi_median);
    fprintf(f, ",%s,%s\n", status_word(r), settings);
    fclose(f);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    /* native errors come back as codes: reported, never a silent abort */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    options o;
    if (parse_options(argc, argv, &o)) {
        usage();
        MPI_Finalize();
        return 2;
    }
    if (!papc_algorithm_find(o.coll, o.alg)) {
        if (rank == 0)
            fprintf(stderr, "papc-classic-bench: %s has no algorithm '%s'\n",
                    papc_collective_name(o.coll), o.alg);
        MPI_Finalize();
        return 2;
    }
    if (rank == 0) print_header(&o);

    int exit_code = 0;
    for (int s = 0; s < o.nsizes; s++) {
        int iterations = o.sizes[s] >= LARGE_SIZE ? o.large_iterations
                                                  : o.iterations;
        buffers b;
        result res;
        memset(&res, 0, sizeof res);
        buffers_alloc(&b, &o, o.sizes[s]);
        check_once(&o, &b, &res);
        time_size(&o, &b, iterations, &res);
        if (res.papc_rc == MPI_SUCCESS && !res.agree) exit_code = 1;
        if (rank == 0) {
            print_row(o.sizes[s], &res);
            if (o.csv) append_csv(&o, o.sizes[s], iterations, &res);
        }
        buffers_free(&b);
    }
    MPI_Finalize();
    return exit_code;
}
