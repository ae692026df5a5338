/*
 * papc-bench — how much of an application's imbalance each algorithm
 * absorbs, side by side with the MPI library's own collectives (issue 4,
 * items 1-3).
 *
 *   mpirun -np 8 papc-bench -c gather -a native,linear_sync,sls,bsls \
 *       -m 256Ki,2Mi -d 0,10,50 --mode rand-late -i 20 --csv out.csv
 *
 * The program emulates the papers' iterative application
 * (pap-scatter-gather.md Fig. 13, pap-allreduce.md Fig. 9).  Per iteration:
 *   - fresh random data, seeded by (seed, iteration, rank), the same for
 *     every algorithm of the iteration; the reference (--reference: the
 *     native collective unless another row is named) runs once on them
 *     (untimed) to give the reference result;
 *   - this rank's delay: one-late: rank 1 is late by the maximum delay;
 *     rand-late: every rank uniformly in [0, max], from (seed, iteration,
 *     rank) -- so every algorithm, size and delay sees the same pattern
 *     (scaled by the maximum delay);
 *   - then for every algorithm, in an order rotated by one per iteration
 *     (interleaved, so drift of a shared machine falls on all alike):
 *     MPI_Barrier twice; t0 = MPI_Wtime() (the barrier exit);
 *     papc_processing_start(); sleep(point * T); papc_progress(point);
 *     sleep((1 - point) * T); papc_processing_end() with
 *     T = compute time + this rank's delay; t_a = MPI_Wtime(); the
 *     collective; t_f = MPI_Wtime(); the check against the reference
 *     (bit for bit: gather/scatter/bcast data are random floats, allreduce data
 *     integer-valued floats small enough that every partial sum is exact in
 *     any order); (t_a - t0, t_f - t0, check) go to rank 0 (MPI_Gather,
 *     outside the timed part).
 *   - rank 0: run time r = max f - min a, average elapsed time
 *     e = mean(f - a) (pap-scatter-gather.md eqs. 1, 2) and the ideal bound
 *     (tools/bench_ideal.h) from the same arrival times.
 * Clocks: each rank measures from its own barrier exit, the papers' common
 * origin, which also holds across hosts whose clocks differ.  The error
 * left is the skew of the barrier exits; with all ranks on one host it is
 * measured (CLOCK_MONOTONIC is shared) and reported.
 * alpha, beta of the ideal bound: a ping-pong of ranks 0 and 1 (least
 * squares over a few sizes, minimum of 10 repetitions each) unless --alpha
 * and --beta are given.
 *
 * Algorithms (-a): registered names or aliases run by papc_<coll>_alg;
 * `native` is the MPI library's own collective, called by its PMPI_ name
 * so that it stays MPI's even under papcoll's drop-in layer (papc-run);
 * `auto` is papcoll's plain call (papc_gather, ... without a name: what
 * the library chooses, issue 15 item 5) and `auto_classic` the plain call
 * with arrival-aware selection switched off (papc_set_arrival_selection(0)
 * on every rank from before its barriers to after its collective, then
 * restored), so both selections are compared in one run.  For these two
 * rows, every rank reports papc_last_algorithm() after each measured call;
 * the `ran` column of the CSV counts the algorithms the plain call ran
 * ("ring:18;pre_reduced_ring:2", most frequent first), and the tables
 * list them.  Ranks that ran different algorithms in one call break the
 * library's rule that every rank decides alike: "(ranks differ)" in `ran`,
 * a message, exit code 1.
 *
 * The reference: --reference NAME takes the reference result from a
 * registered algorithm instead of the native collective (per collective;
 * a listed collective without NAME keeps native).  Any algorithm gives the
 * same bits (gather/scatter/bcast move data without arithmetic; (all)reduce
 * data are integer-valued floats, exact in any order), so the check stays
 * bit for bit; what changes is only whose result is trusted.  For
 * simulations at large P: SMPI's native reduce walks its requests in
 * O(n^2) and took minutes of CPU per call at P = 1,024 (docs/scale.md),
 * and with --reference and without `native` in -a the native collective
 * never runs (the baseline defaults to the reference).  The reference may
 * not be arrival-aware or run in the background (an extra such call per
 * iteration would be seen by the arrival monitor and move the measured
 * calls' predictions), nor auto/auto_classic (it would add a plain call
 * to the views the plain call decides by).  PAPC_BENCH_FAULT=NAME (for
 * tests) adds 1 to the first element of NAME's result on every rank that
 * holds one, after each measured call: the check must catch it.
 *
 * Exit codes: 0 all results right, 1 some result differed from the
 * reference (errors column > 0) or ranks' plain calls ran different
 * algorithms, 2 bad command line.
 * Uses the public API only, plus the header-only tools/bench_ideal.h.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <mpi.h>
#include "papcoll.h"
#include "cli.h"
#include "bench_ideal.h"

#define PROG "papc-bench"
#define MAX_LIST 32
#define MAX_COLLS 4 /* gather, scatter, reduce, allreduce */
#define NATIVE "native"

enum { MODE_ONE = 1, MODE_RAND = 2 };
static const char *mode_name(int m) {
    return m == MODE_ONE ? "one-late" : "rand-late";
}

/* What a row of the tables runs. */
enum alg_kind {
    KIND_NAMED,        /* papc_<coll>_alg(..., name) */
    KIND_NATIVE,       /* PMPI_<Coll>: the MPI library's own */
    KIND_AUTO,         /* papc_<coll>(...): the library's choice */
    KIND_AUTO_CLASSIC  /* the same with arrival-aware selection off */
};
#define AUTO "auto"
#define AUTO_CLASSIC "auto_classic"

typedef struct alg {
    const char *name;  /* registered name, "native", "auto", "auto_classic" */
    const char *label; /* tables: the shortest alias (bsls) or the name */
    int kind;          /* enum alg_kind */
} alg_t;

static int is_plain(const alg_t *a) {
    return a->kind == KIND_AUTO || a->kind == KIND_AUTO_CLASSIC;
}

typedef struct options {
    papc_collective colls[MAX_COLLS];
    int ncolls;
    /* -a lists: general (coll -1) or "coll:" prefixed */
    struct { int coll; char *list; } alists[MAX_LIST];
    int nalists;
    long long sizes[MAX_LIST];
    char *size_text[MAX_LIST];
    int nsizes;
    int per_block;
    double delays[MAX_LIST];
    int ndelays;
    int modes; /* MODE_* bits */
    int iterations, warmup;
    double compute_ms, point;
    int root;
    unsigned long long seed;
    const char *baseline;   /* NULL: the reference */
    const char *reference;  /* --reference (default native) */
    const char *csv, *json, *trace, *timeline;
    int no_monitor, no_progress, quiet;
    int common_start;   /* --common-start: one start time for every rank */
    int site_per_row;   /* --site-per-row: papc_arrival_site_tag per row */
    double alpha, beta; /* < 0: fit */
} options;

/* --common-start: how far ahead of its barrier exit rank 0 sets the start
 * (its broadcast must reach every rank first). */
#define COMMON_START_AHEAD 1e-3

/* Statistics of one (coll, alg, size, mode, delay) row. */
typedef struct stat5 { double mean, median, min, max, std; } stat5;
typedef struct row {
    int count, iterations, errors;
    stat5 r, e;
    double ideal_mean, ideal_std;
    int done;
    int split;     /* plain call: iterations whose ranks ran different algorithms */
    char ran[512]; /* plain call: "name:iterations;..." most frequent first */
} row_t;

static int rank, nprocs;
static double g_alpha, g_beta;
static const char *g_fit = "";
static double skew_sum, skew_max;
static long skew_n;
static int one_host;
static int arrival_selection_at_start; /* papc_get_arrival_selection() */
static FILE *g_trace; /* --trace, rank 0 */
static FILE *g_timeline; /* --timeline, rank 0 */

/* ---- small helpers ------------------------------------------------------ */

static void die_usage(const char *fmt, const char *arg) {
    if (rank == 0) {
        fprintf(stderr, PROG ": ");
        fprintf(stderr, fmt, arg);
        fprintf(stderr, "\n(" PROG " -h for help)\n");
    }
    MPI_Finalize();
    exit(2);
}

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, PROG ": rank %d: out of memory (%zu bytes)\n", rank,
                n);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A generator seeded by (seed, iteration, rank, stream). */
static uint64_t rng_init(unsigned long long seed, int it, int r, int stream) {
    uint64_t s = seed * 0x9e3779b97f4a7c15ULL;
    s ^= (uint64_t)(it + 1) * 0xc2b2ae3d27d4eb4fULL;
    s ^= (uint64_t)(r + 1) * 0x165667b19e3779f9ULL;
    s ^= (uint64_t)(stream + 1) * 0x27d4eb2f165667c5ULL;
    splitmix(&s);
    return s;
}
static double rng_unit(uint64_t *s) { /* [0, 1) */
    return (double)(splitmix(s) >> 11) * (1.0 / 9007199254740992.0);
}

static void sleep_s(double s) {
    if (s <= 0) return;
    struct timespec t;
    t.tv_sec = (time_t)s;
    t.tv_nsec = (long)((s - (double)t.tv_sec) * 1e9);
    while (nanosleep(&t, &t) == -1 && errno == EINTR) {}
}

static double mono_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static stat5 summarize(const double *v, int n) {
    stat5 s = {0, 0, 0, 0, 0};
    if (n <= 0) return s;
    double *t = xmalloc((size_t)n * sizeof *t), sum = 0, sq = 0;
    memcpy(t, v, (size_t)n * sizeof *t);
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    for (int i = 0; i < n; i++) sum += t[i];
    s.mean = sum / n;
    for (int i = 0; i < n; i++) sq += (t[i] - s.mean) * (t[i] - s.mean);
    s.std = n > 1 ? sqrt(sq / (n - 1)) : 0;
    s.median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    s.min = t[0];
    s.max = t[n - 1];
    free(t);
    return s;
}

/* ---- command line -------------------------------------------------------- */

static void usage(void) {
    if (rank != 0) return;
    printf(
"usage: mpirun -np P " PROG " [options]\n"
"Emulates an iterative application (compute, then a collective) with late\n"
"processes and compares algorithms by run time r = max f - min a and average\n"
"elapsed time e = mean(f - a), against the ideal bound.\n"
"  -c, --coll LIST        gather, scatter, bcast, reduce, allreduce (comma\n"
"                         list; default gather)\n"
"  -a, --algorithms LIST  names or aliases (papc-info --algorithms), native\n"
"                         (the MPI library's own call, PMPI_<Coll>), auto\n"
"                         (papcoll's plain call: the library's choice) and\n"
"                         auto_classic (the plain call with arrival-aware\n"
"                         selection off); 'all' = native and every\n"
"                         registered algorithm (not auto);\n"
"                         'COLL:LIST' applies to one collective (repeatable).\n"
"                         A name serves every listed collective that has it.\n"
"                         Default: gather native,linear_sync,sls,bsls;\n"
"                         scatter native,basic_linear,slin,bsln;\n"
"                         bcast native,binomial,knomial,split_binary;\n"
"                         reduce native,binomial,rabenseifner,radix_k,ring,\n"
"                         clairvoyant; allreduce native,ring,prr,slt\n"
"  -m, --sizes LIST       floats, K/Ki = 1024, M/Mi = 1048576 (default 256Ki);\n"
"                         the total vector as in the papers: gather/scatter\n"
"                         blocks of size/P per process, bcast and (all)reduce\n"
"                         the vector\n"
"      --per-block        -m gives the floats of one process' block instead\n"
"  -d, --delays LIST      maximum delays in ms (default 0,10,50)\n"
"      --mode M           one-late | rand-late | both (default rand-late)\n"
"  -i, --iterations N     measured iterations (default 20)\n"
"  -x, --warmup N         iterations run but not measured (default 2)\n"
"      --compute MS       compute phase without delay (default 100)\n"
"      --progress F       progress point, 0 < F < 1 (default 0.5)\n"
"      --no-progress      no papc_processing_*/papc_progress calls (an\n"
"                         uninstrumented program: history predictions)\n"
"      --no-monitor       no arrival monitor (PAPC_MONITOR=0): no predictions\n"
"      --common-start     every rank starts its compute phase at one time of\n"
"                         the global clock (MPI_WTIME_IS_GLOBAL, e.g. SMPI):\n"
"                         rank 0 sends a start 1 ms ahead, all sleep until\n"
"                         it; without, each rank starts at its own barrier\n"
"                         exit (their skew is in a and f)\n"
"      --site-per-row     every algorithm at a call site of its own in the\n"
"                         arrival runtime (papc_arrival_site_tag): its\n"
"                         history predicts from its own previous call, as\n"
"                         in a program; without, the rows of an iteration\n"
"                         share the site, and a row's predictions can learn\n"
"                         the iteration's delays from the rows before it\n"
"  -r, --root R           root of gather/scatter/bcast/reduce (default 0)\n"
"      --seed S           seed of data and delays (default 1)\n"
"      --baseline NAME    compared against in the tables (default: the\n"
"                         reference, i.e. native without --reference)\n"
"      --reference NAME   whose result the others are checked against, bit\n"
"                         for bit (default native).  A registered algorithm\n"
"                         (not arrival-aware, not background, not auto)\n"
"                         serves the collectives that have it; the others\n"
"                         keep native.  Without native in -a the native\n"
"                         collective then never runs (SMPI at large P).\n"
"      --alpha S --beta S_PER_BYTE   model of the ideal bound (default: fit\n"
"                         by a ping-pong of ranks 0 and 1)\n"
"      --trace FILE       every iteration's arrival and finish per rank\n"
"                         (CSV: where a slow iteration spent its time;\n"
"                         for auto rows also what each rank's call ran\n"
"                         and whether it was watched)\n"
"      --timeline FILE    every iteration's first arrival and last finish\n"
"                         on the machine's CLOCK_MONOTONIC (CSV: to line a\n"
"                         slow iteration up with counters sampled outside)\n"
"      --csv FILE, --json FILE       one row per (coll, algorithm, size,\n"
"                         mode, delay) with a header of machine, MPI, command;\n"
"                         column ran: what auto/auto_classic ran, as\n"
"                         name:iterations;... (most frequent first)\n"
"  -q, --quiet            no progress lines on stderr\n"
"  -h, --help\n"
"Exit code 1 when a result differed from the reference, or when the\n"
"ranks' plain calls ran different algorithms.\n");
}

/* "256Ki", "2M", "1024" -> floats; -1 on error */
static long long parse_count(const char *s) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || errno || v <= 0) return -1;
    long long mul = 1;
    if (*end == 'k' || *end == 'K') mul = 1LL << 10, end++;
    else if (*end == 'm' || *end == 'M') mul = 1LL << 20, end++;
    else if (*end == 'g' || *end == 'G') mul = 1LL << 30, end++;
    if (mul > 1 && *end == 'i') end++;
    if (*end) return -1;
    if (v > INT_MAX / mul) return -1;
    return v * mul;
}

static int split_list(const char *list, char **out, int max) {
    char *copy = strdup(list), *save = NULL;
    int n = 0;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n == max) { n = -1; break; }
        out[n++] = strdup(t);
    }
    free(copy);
    return n;
}

static int bench_supports(int c) {
    return c == PAPC_GATHER || c == PAPC_SCATTER || c == PAPC_BCAST ||
           c == PAPC_REDUCE || c == PAPC_ALLREDUCE;
}

/* A vector collective: -m is the vector (every rank sends all of it, or,
 * bcast, receives all of it). */
static int whole_vector(papc_collective c) {
    return c == PAPC_BCAST || c == PAPC_REDUCE || c == PAPC_ALLREDUCE;
}

static void parse_options(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->iterations = 20;
    o->warmup = 2;
    o->compute_ms = 100;
    o->point = 0.5;
    o->seed = 1;
    o->baseline = NULL;
    o->reference = NATIVE;
    o->modes = MODE_RAND;
    o->alpha = o->beta = -1;
    const char *colls = "gather", *sizes = "256Ki", *delays = "0,10,50";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            MPI_Finalize();
            exit(0);
        }
        if (!strcmp(a, "--per-block")) { o->per_block = 1; continue; }
        if (!strcmp(a, "--no-progress")) { o->no_progress = 1; continue; }
        if (!strcmp(a, "--no-monitor")) { o->no_monitor = 1; continue; }
        if (!strcmp(a, "--common-start")) { o->common_start = 1; continue; }
        if (!strcmp(a, "--site-per-row")) { o->site_per_row = 1; continue; }
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) { o->quiet = 1; continue; }
        static const char *const valued[] = {
            "-c", "--coll", "-a", "--algorithms", "-m", "--sizes", "-d",
            "--delays", "--mode", "-i", "--iterations", "-x", "--warmup",
            "--compute", "--progress", "-r", "--root", "--seed", "--baseline",
            "--reference",
            "--alpha", "--beta", "--csv", "--json", "--trace", "--timeline",
            NULL};
        int known = 0;
        for (int k = 0; valued[k]; k++) known |= !strcmp(a, valued[k]);
        if (!known) die_usage("unknown option '%s'", a);
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) die_usage("option '%s' needs a value", a);
        int bad = 0;
        if (!strcmp(a, "-c") || !strcmp(a, "--coll")) colls = v;
        else if (!strcmp(a, "-a") || !strcmp(a, "--algorithms")) {
            if (o->nalists == MAX_LIST) die_usage("too many %s", a);
            int c = -1;
            const char *colon = strchr(v, ':');
            if (colon) {
                char head[32];
                size_t n = (size_t)(colon - v);
                if (n >= sizeof head) die_usage("bad algorithm list '%s'", v);
                memcpy(head, v, n);
                head[n] = '\0';
                c = papc_collective_from_name(head);
                if (!bench_supports(c))
                    die_usage("'%s': papc-bench runs gather, scatter, "
                              "bcast, reduce and allreduce", v);
                v = colon + 1;
            }
            o->alists[o->nalists].coll = c;
            o->alists[o->nalists++].list = strdup(v);
        }
        else if (!strcmp(a, "-m") || !strcmp(a, "--sizes")) sizes = v;
        else if (!strcmp(a, "-d") || !strcmp(a, "--delays")) delays = v;
        else if (!strcmp(a, "--mode")) {
            if (!strcmp(v, "one-late")) o->modes = MODE_ONE;
            else if (!strcmp(v, "rand-late")) o->modes = MODE_RAND;
            else if (!strcmp(v, "both")) o->modes = MODE_ONE | MODE_RAND;
            else die_usage("--mode: '%s' is not one-late, rand-late or both", v);
        }
        else if (!strcmp(a, "-i") || !strcmp(a, "--iterations"))
            bad = papc_cli_int(v, 1, &o->iterations);
        else if (!strcmp(a, "-x") || !strcmp(a, "--warmup"))
            bad = papc_cli_int(v, 0, &o->warmup);
        else if (!strcmp(a, "--compute"))
            bad = papc_cli_double(v, &o->compute_ms) || o->compute_ms < 0;
        else if (!strcmp(a, "--progress"))
            bad = papc_cli_double(v, &o->point) || !(o->point > 0 && o->point < 1);
        else if (!strcmp(a, "-r") || !strcmp(a, "--root"))
            bad = papc_cli_int(v, 0, &o->root);
        else if (!strcmp(a, "--seed")) {
            char *end;
            errno = 0;
            o->seed = strtoull(v, &end, 0);
            bad = end == v || *end || errno;
        }
        else if (!strcmp(a, "--baseline")) o->baseline = v;
        else if (!strcmp(a, "--reference")) o->reference = v;
        else if (!strcmp(a, "--alpha"))
            bad = papc_cli_double(v, &o->alpha) || o->alpha < 0;
        else if (!strcmp(a, "--beta"))
            bad = papc_cli_double(v, &o->beta) || o->beta < 0;
        else if (!strcmp(a, "--csv")) o->csv = v;
        else if (!strcmp(a, "--json")) o->json = v;
        else if (!strcmp(a, "--trace")) o->trace = v;
        else if (!strcmp(a, "--timeline")) o->timeline = v;
        else die_usage("unknown option '%s'", a);
        if (bad) die_usage("bad value for %s", a);
        i++;
    }
    /* collectives */
    char *items[MAX_LIST];
    int n = split_list(colls, items, MAX_LIST);
    if (n <= 0) die_usage("bad collective list '%s'", colls);
    for (int k = 0; k < n; k++) {
        int c = papc_collective_from_name(items[k]);
        if (!bench_supports(c))
            die_usage("collective '%s': papc-bench runs gather, scatter, "
                      "bcast, reduce and allreduce", items[k]);
        int dup = 0;
        for (int j = 0; j < o->ncolls; j++) dup |= o->colls[j] == (papc_collective)c;
        if (!dup) o->colls[o->ncolls++] = (papc_collective)c;
        free(items[k]);
    }
    /* sizes */
    n = split_list(sizes, o->size_text, MAX_LIST);
    if (n <= 0) die_usage("bad size list '%s'", sizes);
    for (int k = 0; k < n; k++) {
        o->sizes[k] = parse_count(o->size_text[k]);
        if (o->sizes[k] <= 0)
            die_usage("bad size '%s' (floats, K/Ki/M/Mi suffixes)",
                      o->size_text[k]);
    }
    o->nsizes = n;
    /* delays */
    n = split_list(delays, items, MAX_LIST);
    if (n <= 0) die_usage("bad delay list '%s'", delays);
    for (int k = 0; k < n; k++) {
        if (papc_cli_double(items[k], &o->delays[k]) || o->delays[k] < 0)
            die_usage("bad delay '%s' (milliseconds >= 0)", items[k]);
        free(items[k]);
    }
    o->ndelays = n;
    if (o->root >= nprocs) {
        if (rank == 0)
            fprintf(stderr, PROG ": root %d is not a rank (P = %d)\n", o->root,
                    nprocs);
        MPI_Finalize();
        exit(2);
    }
    if ((o->alpha < 0) != (o->beta < 0))
        die_usage("%s", "--alpha and --beta go together");
}

static const char *default_algs(papc_collective c) {
    switch (c) {
    case PAPC_GATHER: return "native,linear_sync,sls,bsls";
    case PAPC_SCATTER: return "native,basic_linear,slin,bsln";
    case PAPC_BCAST: return "native,binomial,knomial,split_binary";
    /* clairvoyant-reduce.md Sect. 6's line-up: MPI, BNOM, RAB, RXX, RING. */
    case PAPC_REDUCE: return "native,binomial,rabenseifner,radix_k,ring,clairvoyant";
    default: return "native,ring,prr,slt";
    }
}

/* Adds a registered algorithm (info) or, with info NULL, the row of kind
 * called name; a name already listed is not added twice. */
static void add_alg(alg_t *algs, int *n, const papc_algorithm_info *info,
                    int kind, const char *name) {
    if (info) name = info->name;
    for (int i = 0; i < *n; i++)
        if (!strcmp(algs[i].name, name)) return;
    if (*n == MAX_LIST) die_usage("%s", "too many algorithms");
    algs[*n].name = algs[*n].label = name;
    if (info && info->aliases) { /* the shortest alias, when shorter */
        char *copy = strdup(info->aliases), *save = NULL;
        for (char *t = strtok_r(copy, " ", &save); t;
             t = strtok_r(NULL, " ", &save))
            if (strlen(t) < strlen(algs[*n].label)) algs[*n].label = strdup(t);
        free(copy);
    }
    algs[(*n)++].kind = info ? KIND_NAMED : kind;
}

/* Resolves a name for coll: 1 added, 0 unknown to coll.  native, auto and
 * auto_classic come before the registry, so no alias can shadow them. */
static int resolve(papc_collective c, const char *name, alg_t *algs, int *n) {
    static const struct { const char *name; int kind; } special[] = {
        {NATIVE, KIND_NATIVE}, {AUTO, KIND_AUTO},
        {AUTO_CLASSIC, KIND_AUTO_CLASSIC}};
    for (size_t k = 0; k < sizeof special / sizeof special[0]; k++)
        if (!strcasecmp(name, special[k].name)) {
            add_alg(algs, n, NULL, special[k].kind, special[k].name);
            return 1;
        }
    if (!strcasecmp(name, "all")) {
        add_alg(algs, n, NULL, KIND_NATIVE, NATIVE);
        for (int i = 0; i < papc_algorithm_count(c); i++)
            add_alg(algs, n, papc_algorithm_get(c, i), KIND_NAMED, NULL);
        return 1;
    }
    const papc_algorithm_info *info = papc_algorithm_find(c, name);
    if (!info) return 0;
    add_alg(algs, n, info, KIND_NAMED, NULL);
    return 1;
}

/* The reference of every collective (--reference): native, or a registered
 * algorithm that neither the arrival monitor nor the plain call would see
 * as an extra call; collectives without the name keep native.  Exit 2 when
 * no listed collective has it or it may not serve. */
static void resolve_references(const options *o, alg_t *refs) {
    const char *name = o->reference;
    char msg[512];
    int any = 0;
    for (int k = 0; k < o->ncolls; k++) {
        refs[k] = (alg_t){NATIVE, NATIVE, KIND_NATIVE};
        if (!strcasecmp(name, NATIVE)) { any = 1; continue; }
        if (!strcasecmp(name, AUTO) || !strcasecmp(name, AUTO_CLASSIC) ||
            !strcasecmp(name, "all"))
            die_usage("--reference %s: native or a registered algorithm "
                      "(a plain call would add to the plain call's views)",
                      name);
        const papc_algorithm_info *info = papc_algorithm_find(o->colls[k], name);
        if (!info) continue;
        if (info->flags & (PAPC_FLAG_ARRIVAL_AWARE | PAPC_FLAG_BACKGROUND)) {
            snprintf(msg, sizeof msg, "--reference %s: %s %s is "
                     "arrival-aware or runs in the background (the monitor "
                     "would see an extra call); take a classic algorithm "
                     "such as binomial", name,
                     papc_collective_name(o->colls[k]), info->name);
            die_usage("%s", msg);
        }
        refs[k] = (alg_t){info->name, info->name, KIND_NAMED};
        any = 1;
    }
    if (!any) die_usage("--reference %s: no listed collective has it (see "
                        "papc-info --algorithms)", name);
}

/* The algorithms of every collective; unknown names -> exit 2. */
static void resolve_algorithms(const options *o, alg_t algs[][MAX_LIST],
                               int *nalgs, int *base, const alg_t *refs) {
    for (int k = 0; k < o->ncolls; k++) nalgs[k] = 0;
    /* every name must serve at least one collective it was given for */
    for (int l = 0; l < o->nalists; l++) {
        char *items[MAX_LIST];
        int n = split_list(o->alists[l].list, items, MAX_LIST);
        if (n <= 0) die_usage("bad algorithm list '%s'", o->alists[l].list);
        for (int i = 0; i < n; i++) {
            int found = 0, applies = 0;
            for (int k = 0; k < o->ncolls; k++) {
                if (o->alists[l].coll >= 0 &&
                    o->alists[l].coll != (int)o->colls[k]) continue;
                applies = 1;
                found |= resolve(o->colls[k], items[i], algs[k], &nalgs[k]);
            }
            if (!found && applies) {
                if (rank == 0) {
                    fprintf(stderr, PROG ": unknown algorithm '%s' for",
                            items[i]);
                    for (int k = 0; k < o->ncolls; k++)
                        if (o->alists[l].coll < 0 ||
                            o->alists[l].coll == (int)o->colls[k])
                            fprintf(stderr, " %s",
                                    papc_collective_name(o->colls[k]));
                    fprintf(stderr, "; see papc-info --algorithms\n");
                }
                MPI_Finalize();
                exit(2);
            }
            /* items[i] is not freed: names may point into the registry,
             * but "native" and "auto" are literals; the list is tiny */
        }
    }
    for (int k = 0; k < o->ncolls; k++) {
        if (nalgs[k] == 0) {
            char *items[MAX_LIST];
            int n = split_list(default_algs(o->colls[k]), items, MAX_LIST);
            for (int i = 0; i < n; i++)
                if (!resolve(o->colls[k], items[i], algs[k], &nalgs[k]) &&
                    rank == 0)
                    fprintf(stderr, PROG ": note: default algorithm %s not "
                            "registered for %s\n", items[i],
                            papc_collective_name(o->colls[k]));
        }
        /* the baseline: resolved per collective, added first when missing;
         * by default the collective's reference */
        const char *bname = o->baseline ? o->baseline : refs[k].name;
        alg_t b[MAX_LIST];
        int nb = 0;
        if (!resolve(o->colls[k], bname, b, &nb)) {
            if (rank == 0)
                fprintf(stderr, PROG ": unknown baseline '%s' for %s\n",
                        bname, papc_collective_name(o->colls[k]));
            MPI_Finalize();
            exit(2);
        }
        base[k] = -1;
        for (int i = 0; i < nalgs[k]; i++)
            if (!strcmp(algs[k][i].name, b[0].name)) base[k] = i;
        if (base[k] < 0) {
            if (nalgs[k] == MAX_LIST) die_usage("%s", "too many algorithms");
            memmove(&algs[k][1], &algs[k][0], (size_t)nalgs[k] * sizeof(alg_t));
            algs[k][0] = b[0];
            nalgs[k]++;
            base[k] = 0;
        }
    }
}

/* ---- the model of the ideal bound ----------------------------------------- */

static double env_or(const char *name, double dflt) {
    const char *v = getenv(name);
    double x;
    return v && !papc_cli_double(v, &x) && x > 0 ? x : dflt;
}

/* alpha, beta by a ping-pong of ranks 0 and 1: for each size the minimum of
 * REPS round trips / 2, then least squares t = alpha + b beta. */
static void fit_model(const options *o) {
    if (o->alpha >= 0) {
        g_alpha = o->alpha;
        g_beta = o->beta;
        g_fit = "given (--alpha, --beta)";
        return;
    }
    if (nprocs < 2) {
        g_alpha = env_or("PAPC_ALPHA", 0.8e-6);
        g_beta = env_or("PAPC_BETA", 1.3e-10);
        g_fit = "papcoll's defaults (P = 1: no ping-pong)";
        return;
    }
    static const int len[] = {8, 1024, 16384, 131072, 1048576, 4194304};
    enum { NLEN = 6, REPS = 10 };
    double m[2] = {0, 0};
    if (rank < 2) {
        char *b = xmalloc((size_t)len[NLEN - 1]);
        memset(b, 1, (size_t)len[NLEN - 1]);
        double t[NLEN];
        int peer = 1 - rank;
        for (int k = 0; k < NLEN; k++) {
            t[k] = 1e30;
            for (int i = -2; i < REPS; i++) { /* 2 untimed */
                double s = MPI_Wtime();
                if (rank == 0) {
                    MPI_Send(b, len[k], MPI_BYTE, peer, 7, MPI_COMM_WORLD);
                    MPI_Recv(b, len[k], MPI_BYTE, peer, 7, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(b, len[k], MPI_BYTE, peer, 7, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                    MPI_Send(b, len[k], MPI_BYTE, peer, 7, MPI_COMM_WORLD);
                }
                s = (MPI_Wtime() - s) / 2;
                if (i >= 0 && s < t[k]) t[k] = s;
            }
        }
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (int k = 0; k < NLEN; k++) {
            sx += len[k];
            sy += t[k];
            sxx += (double)len[k] * len[k];
            sxy += (double)len[k] * t[k];
        }
        m[1] = (NLEN * sxy - sx * sy) / (NLEN * sxx - sx * sx);
        m[0] = (sy - m[1] * sx) / NLEN;
        if (m[1] <= 0) m[1] = (t[NLEN - 1] - t[0]) / (len[NLEN - 1] - len[0]);
        if (m[1] <= 0) m[1] = 1e-12;
        if (m[0] <= 0) m[0] = t[0]; /* the fit's intercept is noise: latency */
        free(b);
    }
    MPI_Bcast(m, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    g_alpha = m[0];
    g_beta = m[1];
    g_fit = "ping-pong ranks 0-1, 8 B..4 MiB, min of 10, least squares";
}

/* ---- one configuration ------------------------------------------------------ */

typedef struct bufs {
    int count;            /* floats per block (gather/scatter) or vector */
    size_t send_len, recv_len;
    float *send, *recv, *ref;
    int has_result;       /* this rank holds a result to check */
} bufs_t;

static void bufs_alloc(bufs_t *b, papc_collective c, int count, int root) {
    b->count = count;
    size_t n = (size_t)count, all = n * (size_t)nprocs;
    switch (c) {
    case PAPC_GATHER:
        b->send_len = n;
        b->recv_len = rank == root ? all : 0;
        b->has_result = rank == root;
        break;
    case PAPC_SCATTER:
        b->send_len = rank == root ? all : 0;
        b->recv_len = n;
        b->has_result = 1;
        break;
    case PAPC_REDUCE:
        b->send_len = n;
        b->recv_len = rank == root ? n : 0;
        b->has_result = rank == root;
        break;
    case PAPC_BCAST: /* send: the root's message; recv: the buffer (the
                        root's must come back unchanged) */
        b->send_len = rank == root ? n : 0;
        b->recv_len = n;
        b->has_result = 1;
        break;
    default:
        b->send_len = b->recv_len = n;
        b->has_result = 1;
    }
    b->send = xmalloc(b->send_len * sizeof(float));
    b->recv = xmalloc(b->recv_len * sizeof(float));
    b->ref = xmalloc(b->recv_len * sizeof(float));
}

static void bufs_free(bufs_t *b) {
    free(b->send);
    free(b->recv);
    free(b->ref);
}

/* Fresh data for iteration it: random floats in [0, 1) for gather/scatter
 * and bcast;
 * integers in [-k, k] for (all)reduce with P k < 2^24, so every partial sum
 * is exact and any reduction order gives the same bits. */
static void fill_data(bufs_t *b, papc_collective c, const options *o, int it) {
    uint64_t s = rng_init(o->seed, it, rank, 1);
    if (c == PAPC_ALLREDUCE || c == PAPC_REDUCE) {
        long k = ((1L << 24) - 1) / nprocs;
        if (k > 1000) k = 1000;
        for (size_t i = 0; i < b->send_len; i++)
            b->send[i] = (float)((long)(splitmix(&s) % (uint64_t)(2 * k + 1)) - k);
    } else {
        for (size_t i = 0; i < b->send_len; i++)
            b->send[i] = (float)rng_unit(&s);
    }
}

/* bcast: the root's buffer holds its message before the call (outside the
 * timed part); the others' buffers are as the caller left them. */
static void bcast_prepare(papc_collective c, const bufs_t *b, float *out,
                          int root) {
    if (c == PAPC_BCAST && rank == root)
        memcpy(out, b->send, b->send_len * sizeof(float));
}

/* One call of algorithm a.  native goes by its PMPI_ name: MPI's own
 * collective even when papcoll's drop-in layer interposes MPI_Gather. */
static int run_coll(papc_collective c, const alg_t *a, bufs_t *b, float *out,
                    int root) {
    MPI_Comm w = MPI_COMM_WORLD;
    int n = b->count, plain = is_plain(a);
    switch (c) {
    case PAPC_GATHER:
        return a->kind == KIND_NATIVE
            ? PMPI_Gather(b->send, n, MPI_FLOAT, out, n, MPI_FLOAT, root, w)
            : plain
            ? papc_gather(b->send, n, MPI_FLOAT, out, n, MPI_FLOAT, root, w)
            : papc_gather_alg(b->send, n, MPI_FLOAT, out, n, MPI_FLOAT, root,
                              w, a->name);
    case PAPC_SCATTER:
        return a->kind == KIND_NATIVE
            ? PMPI_Scatter(b->send, n, MPI_FLOAT, out, n, MPI_FLOAT, root, w)
            : plain
            ? papc_scatter(b->send, n, MPI_FLOAT, out, n, MPI_FLOAT, root, w)
            : papc_scatter_alg(b->send, n, MPI_FLOAT, out, n, MPI_FLOAT,
                               root, w, a->name);
    case PAPC_BCAST: /* out: set by bcast_prepare */
        return a->kind == KIND_NATIVE
            ? PMPI_Bcast(out, n, MPI_FLOAT, root, w)
            : plain
            ? papc_bcast(out, n, MPI_FLOAT, root, w)
            : papc_bcast_alg(out, n, MPI_FLOAT, root, w, a->name);
    case PAPC_REDUCE:
        return a->kind == KIND_NATIVE
            ? PMPI_Reduce(b->send, out, n, MPI_FLOAT, MPI_SUM, root, w)
            : plain
            ? papc_reduce(b->send, out, n, MPI_FLOAT, MPI_SUM, root, w)
            : papc_reduce_alg(b->send, out, n, MPI_FLOAT, MPI_SUM, root, w,
                              a->name);
    default:
        return a->kind == KIND_NATIVE
            ? PMPI_Allreduce(b->send, out, n, MPI_FLOAT, MPI_SUM, w)
            : plain
            ? papc_allreduce(b->send, out, n, MPI_FLOAT, MPI_SUM, w)
            : papc_allreduce_alg(b->send, out, n, MPI_FLOAT, MPI_SUM, w,
                                 a->name);
    }
}

/* The registry index of the algorithm the latest plain call of c ran on
 * this rank; -1 when it failed or ran none. */
static int ran_index(papc_collective c, int rc) {
    /* P = 1 returns before any algorithm: the name would be stale */
    const char *name = rc == MPI_SUCCESS && nprocs > 1
        ? papc_last_algorithm(c) : NULL;
    if (!name) return -1;
    for (int i = 0; i < papc_algorithm_count(c); i++)
        if (!strcmp(papc_algorithm_get(c, i)->name, name)) return i;
    return -1;
}

/* This rank's delay in seconds for iteration it. */
static double my_delay(int mode, double max_ms, const options *o, int it) {
    if (mode == MODE_ONE) return rank == 1 ? max_ms * 1e-3 : 0;
    uint64_t s = rng_init(o->seed, it, rank, 2);
    return rng_unit(&s) * max_ms * 1e-3;
}

/* One rank's record of one call: arrival, finish, wrong result, monotonic
 * clock at t0, registry index of what a plain call ran (-1: none), and
 * whether the arrival monitor watched that call (papc_last_watched). */
typedef struct rec { double a, f, bad, mono, ran, watched; } rec_t;
#define REC_DOUBLES 6

/* One --trace row per rank of a measured iteration: arrival and finish in
 * ms after the first arrival, so a slow iteration shows who was late and
 * who finished late; for the plain-call rows also what that rank's call
 * ran and whether it ran in an arrival epoch, so a slow iteration of auto
 * shows which choice it paid for, and the balanced excess can be split
 * into watched and unwatched calls. */
static void trace_iteration(papc_collective c, const alg_t *a, int count,
                            int mode, double max_ms, int iter,
                            const rec_t *all, double lo) {
    for (int p = 0; p < nprocs; p++) {
        int ran = (int)all[p].ran;
        const papc_algorithm_info *info =
            is_plain(a) && ran >= 0 ? papc_algorithm_get(c, ran) : NULL;
        fprintf(g_trace, "%s,%s,%d,%s,%g,%d,%d,%.3f,%.3f,%s,%s\n",
                papc_collective_name(c), a->name, count,
                mode == MODE_ONE ? "one-late" : "rand-late", max_ms, iter, p,
                (all[p].a - lo) * 1e3, (all[p].f - lo) * 1e3,
                info ? info->name : "",
                is_plain(a) ? (all[p].watched != 0 ? "1" : "0") : "");
    }
}

/* One --timeline row per measured iteration: its first arrival and last
 * finish on CLOCK_MONOTONIC, which every rank of one machine (and every
 * namespace of the emulated cluster) shares, so a slow iteration can be
 * lined up with TCP and queue counters sampled by another program. */
static void timeline_iteration(papc_collective c, const alg_t *a, int count,
                               int mode, double max_ms, int iter,
                               const rec_t *all) {
    double lo = all[0].mono + all[0].a, hi = all[0].mono + all[0].f;
    for (int p = 1; p < nprocs; p++) {
        if (all[p].mono + all[p].a < lo) lo = all[p].mono + all[p].a;
        if (all[p].mono + all[p].f > hi) hi = all[p].mono + all[p].f;
    }
    fprintf(g_timeline, "%s,%s,%d,%s,%g,%d,%.6f,%.6f\n",
            papc_collective_name(c), a->name, count,
            mode == MODE_ONE ? "one-late" : "rand-late", max_ms, iter, lo, hi);
}

/* Counts what the plain call ran in one iteration: counts[nreg + 1] when
 * the ranks disagree, counts[nreg] when none ran (failed). */
static void count_ran(int *counts, int nreg, const rec_t *all) {
    int first = (int)all[0].ran;
    for (int p = 1; p < nprocs; p++)
        if ((int)all[p].ran != first) {
            counts[nreg + 1]++;
            return;
        }
    counts[first >= 0 && first < nreg ? first : nreg]++;
}

/* w->ran = "name:count;..." most frequent first (ties: registry order);
 * w->split = the iterations whose ranks disagreed. */
static void ran_text(papc_collective c, const int *counts, int nreg,
                     row_t *w) {
    int done[MAX_LIST + 2] = {0};
    size_t used = 0;
    w->ran[0] = '\0';
    w->split = counts[nreg + 1];
    for (;;) {
        int best = -1;
        for (int i = 0; i < nreg + 2 && i < MAX_LIST + 2; i++)
            if (!done[i] && counts[i] > 0 &&
                (best < 0 || counts[i] > counts[best]))
                best = i;
        if (best < 0) break;
        done[best] = 1;
        const char *name = best < nreg ? papc_algorithm_get(c, best)->name
                         : best == nreg ? "(none)" : "(ranks differ)";
        int k = snprintf(w->ran + used, sizeof w->ran - used, "%s%s:%d",
                         used ? ";" : "", name, counts[best]);
        if (k < 0 || (size_t)k >= sizeof w->ran - used) break;
        used += (size_t)k;
    }
}

/* Runs one (coll, size, mode, delay) for all algorithms; fills rows[a]. */
static void run_config(const options *o, papc_collective c, const alg_t *algs,
                       int nalgs, const alg_t *ref, bufs_t *b, int mode,
                       double max_ms, row_t *rows) {
    int iters = o->iterations, total = o->warmup + iters;
    double *r = NULL, *e = NULL, *id = NULL, *arr = NULL, *tmp = NULL;
    rec_t *all = NULL;
    int *errors = calloc((size_t)nalgs, sizeof(int));
    int *reported = calloc((size_t)nalgs, sizeof(int));
    if (rank == 0) {
        r = xmalloc((size_t)nalgs * iters * sizeof *r);
        e = xmalloc((size_t)nalgs * iters * sizeof *e);
        id = xmalloc((size_t)nalgs * iters * sizeof *id);
        arr = xmalloc((size_t)nprocs * sizeof *arr);
        tmp = xmalloc((size_t)nprocs * sizeof *tmp);
        all = xmalloc((size_t)nprocs * sizeof *all);
    }
    /* per algorithm, iterations per registry index of what the plain
     * call ran; slot nreg: none ran, nreg + 1: the ranks differed */
    int nreg = papc_algorithm_count(c);
    int *ran = rank == 0
        ? calloc((size_t)nalgs * (size_t)(nreg + 2), sizeof(int)) : NULL;
    double bytes = (double)b->count * sizeof(float);
    double cost = g_alpha + bytes * g_beta;
    int instrument = !o->no_progress;
    const char *fault = getenv("PAPC_BENCH_FAULT"); /* tests: see header */
    for (int it = 0; it < total; it++) {
        double delay = my_delay(mode, max_ms, o, it);
        double phase = o->compute_ms * 1e-3 + delay;
        fill_data(b, c, o, it);
        bcast_prepare(c, b, b->ref, o->root);
        if (o->site_per_row) papc_arrival_site_tag(0);
        int rc = run_coll(c, ref, b, b->ref, o->root);
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, PROG ": rank %d: the reference %s %s failed "
                    "(%d)\n", rank, papc_collective_name(c), ref->name, rc);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        for (int k = 0; k < nalgs; k++) {
            int ai = (k + it) % nalgs;
            const alg_t *a = &algs[ai];
            memset(b->recv, 0xff, b->recv_len * sizeof(float)); /* NaNs */
            bcast_prepare(c, b, b->recv, o->root);
            /* every rank switches at the same point of the same call */
            /* agreed now (papc_settings_agree), not in the timed call */
            if (a->kind == KIND_AUTO_CLASSIC) {
                papc_set_arrival_selection(0);
                papc_settings_agree(MPI_COMM_WORLD);
            }
            if (o->site_per_row) papc_arrival_site_tag(ai + 1);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime(), m0 = mono_now();
            if (o->common_start) {
                /* one origin on the global clock: the barrier exits' skew
                 * (microseconds) would otherwise be part of every a, f */
                double start = t0 + COMMON_START_AHEAD;
                PMPI_Bcast(&start, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
                double now = MPI_Wtime();
                if (now < start) sleep_s(start - now);
                t0 = start;
                m0 = mono_now();
            }
            if (instrument) papc_processing_start();
            sleep_s(o->point * phase);
            if (instrument) papc_progress(o->point);
            sleep_s((1 - o->point) * phase);
            if (instrument) papc_processing_end();
            double ta = MPI_Wtime();
            rc = run_coll(c, a, b, b->recv, o->root);
            double tf = MPI_Wtime();
            if (a->kind == KIND_AUTO_CLASSIC) {
                papc_set_arrival_selection(arrival_selection_at_start);
                papc_settings_agree(MPI_COMM_WORLD);
            }
            int ran_here = is_plain(a) ? ran_index(c, rc) : -1;
            if (fault && !strcmp(fault, a->name) && b->has_result)
                b->recv[0] += 1.0f;
            int bad = rc != MPI_SUCCESS ||
                      (b->has_result &&
                       memcmp(b->recv, b->ref, b->recv_len * sizeof(float)));
            if (rc != MPI_SUCCESS && !reported[ai]++)
                fprintf(stderr, PROG ": rank %d: %s %s failed: %s\n", rank,
                        papc_collective_name(c), a->name,
                        a->kind == KIND_NATIVE ? "native error"
                                               : papc_strerror(rc));
            int watched = is_plain(a) && rc == MPI_SUCCESS &&
                          papc_last_watched(c);
            rec_t mine = {ta - t0, tf - t0, bad, m0, ran_here, watched};
            MPI_Gather(&mine, REC_DOUBLES, MPI_DOUBLE, all, REC_DOUBLES,
                       MPI_DOUBLE, 0, MPI_COMM_WORLD);
            if (rank != 0) continue;
            int anybad = 0;
            double lo = all[0].a, hi = all[0].f, sum = 0;
            double mlo = all[0].mono, mhi = all[0].mono;
            for (int p = 0; p < nprocs; p++) {
                anybad |= all[p].bad != 0;
                if (all[p].a < lo) lo = all[p].a;
                if (all[p].f > hi) hi = all[p].f;
                if (all[p].mono < mlo) mlo = all[p].mono;
                if (all[p].mono > mhi) mhi = all[p].mono;
                sum += all[p].f - all[p].a;
                arr[p] = all[p].a;
            }
            if (it < o->warmup) continue;
            if (g_trace) trace_iteration(c, a, b->count, mode, max_ms,
                                         it - o->warmup, all, lo);
            if (g_timeline) timeline_iteration(c, a, b->count, mode, max_ms,
                                               it - o->warmup, all);
            errors[ai] += anybad;
            if (is_plain(a)) count_ran(ran + (size_t)ai * (nreg + 2), nreg, all);
            int j = ai * iters + (it - o->warmup);
            r[j] = hi - lo;
            e[j] = sum / nprocs;
            id[j] = c == PAPC_GATHER
                ? bench_ideal_gather(nprocs, o->root, arr, cost, tmp)
                : c == PAPC_SCATTER
                ? bench_ideal_scatter(nprocs, o->root, arr, cost)
                : c == PAPC_BCAST
                ? bench_ideal_bcast(nprocs, o->root, arr, cost)
                : c == PAPC_REDUCE
                ? bench_ideal_reduce(nprocs, o->root, arr, cost)
                : bench_ideal_allreduce(nprocs, arr, cost);
            if (one_host) {
                double s = mhi - mlo;
                skew_sum += s;
                skew_n++;
                if (s > skew_max) skew_max = s;
            }
        }
    }
    if (rank == 0) {
        for (int ai = 0; ai < nalgs; ai++) {
            row_t *w = &rows[ai];
            double *rv = r + (size_t)ai * iters, *ev = e + (size_t)ai * iters;
            double *iv = id + (size_t)ai * iters;
            for (int i = 0; i < iters; i++) {
                rv[i] *= 1e3;
                ev[i] *= 1e3;
                iv[i] *= 1e3;
            }
            w->count = b->count;
            w->iterations = iters;
            w->errors = errors[ai];
            w->r = summarize(rv, iters);
            w->e = summarize(ev, iters);
            stat5 is = summarize(iv, iters);
            w->ideal_mean = is.mean;
            w->ideal_std = is.std;
            w->done = 1;
            if (is_plain(&algs[ai]))
                ran_text(c, ran + (size_t)ai * (nreg + 2), nreg, w);
        }
        free(ran);
        free(r);
        free(e);
        free(id);
        free(arr);
        free(tmp);
        free(all);
    }
    free(errors);
    free(reported);
}

/* ---- output ---------------------------------------------------------------- */

typedef struct meta_kv { const char *key; char value[1024]; } meta_kv;
static meta_kv meta[32];
static int nmeta;

static void meta_add(const char *key, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void meta_add(const char *key, const char *fmt, ...) {
    va_list ap;
    if (nmeta == (int)(sizeof meta / sizeof meta[0])) return;
    va_start(ap, fmt);
    meta[nmeta].key = key;
    vsnprintf(meta[nmeta].value, sizeof meta[nmeta].value, fmt, ap);
    va_end(ap);
    nmeta++;
}

static const char *meta_get(const char *key) {
    for (int i = 0; i < nmeta; i++)
        if (!strcmp(meta[i].key, key)) return meta[i].value;
    return "";
}

static void build_meta(const options *o, int argc, char **argv) {
    char host[256] = "?";
    gethostname(host, sizeof host);
    host[sizeof host - 1] = '\0';
    struct utsname u;
    if (uname(&u)) memset(&u, 0, sizeof u);
    meta_add("machine", "%s (%s %s %s), %ld cores", host, u.sysname,
             u.release, u.machine, sysconf(_SC_NPROCESSORS_ONLN));
    char lib[1024];
    snprintf(lib, sizeof lib, "%s", papc_mpi_library());
    for (char *p = lib; *p; p++) if (*p == '\n' || *p == '\r') *p = ' ';
    size_t l = strlen(lib);
    while (l && lib[l - 1] == ' ') lib[--l] = '\0';
    meta_add("mpi", "%s", lib);
    char cmd[1024] = "";
    size_t used = 0;
    for (int i = 0; i < argc && used < sizeof cmd; i++) {
        int w = snprintf(cmd + used, sizeof cmd - used, "%s%s", i ? " " : "",
                         argv[i]);
        if (w < 0) break;
        used += (size_t)w;
    }
    meta_add("command", "%s", cmd);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    meta_add("date", "%s", date);
    meta_add("alpha_s", "%.6g", g_alpha);
    meta_add("beta_s_per_byte", "%.6g", g_beta);
    meta_add("model_fit", "%s", g_fit);
    meta_add("size_means", "%s", o->per_block
             ? "count = -m = floats per process block (gather/scatter) or of "
               "the vector ((all)reduce)"
             : "-m = total vector in floats as in the papers; gather/scatter "
               "count = floor(size / P) per process block, (all)reduce count "
               "= size");
    meta_add("P", "%d", nprocs);
    meta_add("root", "%d", o->root);
    meta_add("compute_ms", "%g", o->compute_ms);
    if (o->no_progress) meta_add("progress", "none (uninstrumented)");
    else meta_add("progress", "%g", o->point);
    meta_add("monitor", "%s", o->no_monitor ? "off" : "on");
    meta_add("seed", "%llu", o->seed);
    meta_add("warmup", "%d", o->warmup);
    meta_add("time_base", "%s", o->common_start
             ? "one start time for every rank on the global clock "
               "(--common-start)"
             : "each rank from its own exit of the double barrier");
}

static void skew_text(char *buf, size_t len) {
    if (!one_host)
        snprintf(buf, len, "not measured (ranks on several hosts)");
    else if (skew_n == 0)
        snprintf(buf, len, "not measured (no iterations)");
    else
        snprintf(buf, len, "mean %.4f max %.4f (CLOCK_MONOTONIC, one host, "
                 "%ld barrier exits)", skew_sum / skew_n * 1e3, skew_max * 1e3,
                 skew_n);
}

static const char *csv_columns =
    "coll,algorithm,P,count,bytes,mode,max_delay_ms,iterations,r_mean_ms,"
    "r_median_ms,r_min_ms,r_max_ms,r_std_ms,e_mean_ms,e_median_ms,e_min_ms,"
    "e_max_ms,e_std_ms,ideal_mean_ms,ideal_std_ms,errors,ran";

static FILE *open_out(const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, PROG ": cannot write %s: %s\n", path, strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return f;
}

static void csv_header(FILE *f) {
    for (int i = 0; i < nmeta; i++)
        fprintf(f, "# %s: %s\n", meta[i].key, meta[i].value);
    fprintf(f, "%s\n", csv_columns);
    fflush(f);
}

static void csv_row(FILE *f, papc_collective c, const char *alg, int mode,
                    double delay, const row_t *w) {
    fprintf(f, "%s,%s,%d,%d,%lld,%s,%g,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,"
            "%.4f,%.4f,%.4f,%.4f,%.4f,%d,%s\n", papc_collective_name(c), alg,
            nprocs, w->count, (long long)w->count * 4, mode_name(mode), delay,
            w->iterations, w->r.mean, w->r.median, w->r.min, w->r.max,
            w->r.std, w->e.mean, w->e.median, w->e.min, w->e.max, w->e.std,
            w->ideal_mean, w->ideal_std, w->errors, w->ran);
    fflush(f);
}

static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

/* ---- tables ------------------------------------------------------------------ */

/* index of row (a, s, m, d) in a collective's flat array */
#define ROW(o, nalgs, a, s, m, d) \
    ((((size_t)(a) * (o)->nsizes + (s)) * 2 + (m)) * (o)->ndelays + (d))

/* The shortest of info's name and aliases (name itself when info is
 * NULL), as the tables' labels. */
static void shortest_name(const papc_algorithm_info *info, const char *name,
                          char *out, size_t len) {
    snprintf(out, len, "%s", info ? info->name : name);
    if (!info || !info->aliases) return;
    const char *p = info->aliases;
    while (*p) {
        size_t n = strcspn(p, " ");
        if (n > 0 && n < strlen(out) && n < len) {
            memcpy(out, p, n);
            out[n] = '\0';
        }
        p += n;
        while (*p == ' ') p++;
    }
}

/* What the plain-call rows (auto, auto_classic) ran: one line per size,
 * delay and row, with the shortest aliases. */
static void print_ran(const options *o, papc_collective c, const alg_t *algs,
                      int nalgs, const row_t *rows, int mi) {
    int any = 0;
    for (int a = 0; a < nalgs; a++) any |= is_plain(&algs[a]);
    if (!any) return;
    printf("\n## %s, %s: the algorithm(s) the plain call ran "
           "(measured iterations)\n", papc_collective_name(c),
           mode_name(mi ? MODE_RAND : MODE_ONE));
    for (int s = 0; s < o->nsizes; s++)
        for (int d = 0; d < o->ndelays; d++)
            for (int a = 0; a < nalgs; a++) {
                if (!is_plain(&algs[a])) continue;
                const row_t *w = &rows[ROW(o, nalgs, a, s, mi, d)];
                printf("%-8s %7g %-13s", o->size_text[s], o->delays[d],
                       algs[a].name);
                char copy[sizeof w->ran], *save = NULL;
                memcpy(copy, w->ran, sizeof copy);
                for (char *t = strtok_r(copy, ";", &save); t;
                     t = strtok_r(NULL, ";", &save)) {
                    char *colon = strrchr(t, ':');
                    if (colon) *colon = '\0';
                    char shown[64];
                    shortest_name(papc_algorithm_find(c, t), t, shown,
                                  sizeof shown);
                    printf(" %s %s/%d", shown, colon ? colon + 1 : "?",
                           w->iterations);
                }
                printf("%s\n", w->split ? "  RANKS DISAGREED" : "");
            }
}

static void print_tables(const options *o, papc_collective c,
                         const alg_t *algs, int nalgs, int base,
                         const row_t *rows) {
    const char *cn = papc_collective_name(c);
    for (int mi = 0; mi < 2; mi++) {
        int mode = mi ? MODE_RAND : MODE_ONE;
        if (!(o->modes & mode)) continue;
        char rootw[32] = "";
        if (c != PAPC_ALLREDUCE) snprintf(rootw, sizeof rootw, ", root %d",
                                          o->root);
        printf("\n## %s, %s, P = %d%s: mean run time r in ms (sigma) "
               "and r / ideal;\n## ideal = median over the algorithms of "
               "their mean ideal bound (per algorithm in the CSV)\n", cn,
               mode_name(mode), nprocs, rootw);
        printf("%-8s %7s", "size", "delay");
        for (int a = 0; a < nalgs; a++) printf(" %22s", algs[a].label);
        printf(" %9s\n", "ideal");
        for (int s = 0; s < o->nsizes; s++)
            for (int d = 0; d < o->ndelays; d++) {
                printf("%-8s %7g", o->size_text[s], o->delays[d]);
                double ideals[MAX_LIST];
                for (int a = 0; a < nalgs; a++) {
                    const row_t *w = &rows[ROW(o, nalgs, a, s, mi, d)];
                    char cell[64];
                    snprintf(cell, sizeof cell, "%.2f (%.2f) %.2fx%s",
                             w->r.mean, w->r.std, w->ideal_mean > 0
                             ? w->r.mean / w->ideal_mean : 0,
                             w->errors ? "!" : "");
                    printf(" %22s", cell);
                    ideals[a] = w->ideal_mean;
                }
                qsort(ideals, (size_t)nalgs, sizeof *ideals, cmp_double);
                printf(" %9.2f\n", nalgs % 2 ? ideals[nalgs / 2]
                       : 0.5 * (ideals[nalgs / 2 - 1] + ideals[nalgs / 2]));
            }
        print_ran(o, c, algs, nalgs, rows, mi);
        for (int a = 0; a < nalgs; a++) {
            if (a == base) continue;
            printf("\n## %s, %s, P = %d: %s against %s (layout of the papers' "
                   "Tables 3, 4)\n## each entry: difference of the means in ms "
                   "(%s - %s), then speedup (%s / %s)\n", cn, mode_name(mode),
                   nprocs, algs[a].label, algs[base].label, algs[a].label,
                   algs[base].label, algs[base].label, algs[a].label);
            for (int which = 0; which < 2; which++) {
                printf("%-24s", which ? "Average elapsed time e" :
                       "Mean run time r");
                for (int d = 0; d < o->ndelays; d++)
                    printf(" %8g", o->delays[d]);
                printf("   <- max delay (ms)\n");
                for (int s = 0; s < o->nsizes; s++) {
                    const row_t *x, *y;
                    for (int line = 0; line < 2; line++) {
                        printf("%-16s%-8s", line ? "" : o->size_text[s],
                               line ? "speedup" : "diff");
                        for (int d = 0; d < o->ndelays; d++) {
                            x = &rows[ROW(o, nalgs, a, s, mi, d)];
                            y = &rows[ROW(o, nalgs, base, s, mi, d)];
                            double va = which ? x->e.mean : x->r.mean;
                            double vb = which ? y->e.mean : y->r.mean;
                            if (line) printf(" %8.2f", va > 0 ? vb / va : 0);
                            else printf(" %8.2f", va - vb);
                        }
                        printf("\n");
                    }
                }
            }
        }
    }
    fflush(stdout);
}

/* ---- main ---------------------------------------------------------------------- */

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    options o;
    parse_options(argc, argv, &o);
    alg_t algs[MAX_COLLS][MAX_LIST];
    int nalgs[MAX_COLLS], base[MAX_COLLS];
    alg_t refs[MAX_COLLS];
    resolve_references(&o, refs);
    resolve_algorithms(&o, algs, nalgs, base, refs);

    /* one host?  then CLOCK_MONOTONIC is common and the skew measurable */
    {
        char name[MPI_MAX_PROCESSOR_NAME] = "", first[MPI_MAX_PROCESSOR_NAME];
        int len;
        MPI_Get_processor_name(name, &len);
        memcpy(first, name, sizeof first);
        MPI_Bcast(first, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
        int same = !strcmp(first, name);
        MPI_Allreduce(&same, &one_host, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    }
    int *wtg, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &wtg, &flag);
    int wtime_global = flag ? *wtg : 0;
    if (o.common_start && !wtime_global) {
        if (rank == 0)
            fprintf(stderr, PROG ": --common-start needs a global clock "
                    "(MPI_WTIME_IS_GLOBAL is 0 here)\n");
        MPI_Finalize();
        return 2;
    }

    if (o.no_monitor) setenv("PAPC_MONITOR", "0", 1);
    /* what auto runs with, and what auto_classic restores */
    arrival_selection_at_start = papc_get_arrival_selection();
    fit_model(&o);
    if (!o.no_monitor) {
        int rc = papc_monitor_init(MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS && rank == 0)
            fprintf(stderr, PROG ": papc_monitor_init: %s\n",
                    papc_strerror(rc));
    }

    FILE *csv = NULL;
    if (rank == 0) {
        build_meta(&o, argc, argv);
        meta_add("wtime_is_global", "%d", wtime_global);
        /* Runs on testbed/'s emulated cluster say so (hosts, rate, ...). */
        const char *tb = getenv("PAPC_TESTBED");
        if (tb && *tb) meta_add("testbed", "%s", tb);
        {
            char rtext[256] = "";
            size_t used = 0;
            for (int k = 0; k < o.ncolls && used < sizeof rtext; k++) {
                int w = snprintf(rtext + used, sizeof rtext - used, "%s%s %s",
                                 k ? ", " : "", papc_collective_name(o.colls[k]),
                                 refs[k].name);
                if (w < 0) break;
                used += (size_t)w;
            }
            meta_add("reference", "%s", rtext);
        }
        meta_add("arrival_selection", "%s", arrival_selection_at_start
                 ? "on (auto weighs the arrival-aware algorithms)"
                 : "off (PAPC_ARRIVAL_SELECT=0: auto = auto_classic)");
        if (o.csv) {
            csv = open_out(o.csv);
            csv_header(csv);
        }
        if (o.timeline) {
            g_timeline = open_out(o.timeline);
            fprintf(g_timeline, "coll,algorithm,count,mode,max_delay_ms,"
                                "iteration,first_arrival_s,last_finish_s\n");
        }
        if (o.trace) {
            g_trace = open_out(o.trace);
            fprintf(g_trace, "coll,algorithm,count,mode,max_delay_ms,"
                             "iteration,rank,arrive_ms,finish_ms,ran,watched\n");
        }
        printf("# " PROG ": %s; P = %d, root %d; compute %g ms, progress "
               "%s, monitor %s; %d iterations (+%d warm-up), seed %llu\n",
               meta_get("command"), nprocs, o.root, o.compute_ms,
               meta_get("progress"),
               o.no_monitor ? "off" : o.site_per_row ? "on (a site per row)"
                                                     : "on",
               o.iterations, o.warmup, o.seed);
        printf("# machine: %s\n# mpi: %s\n# date: %s\n", meta_get("machine"),
               meta_get("mpi"), meta_get("date"));
        printf("# ideal bound model: alpha = %.3g us, beta = %.4g ns/B "
               "(%.2f GB/s) [%s]\n", g_alpha * 1e6, g_beta * 1e9,
               1e-9 / g_beta, g_fit);
        printf("# sizes: %s\n", meta_get("size_means"));
        printf("# arrival-aware selection of the plain call: %s\n",
               meta_get("arrival_selection"));
        printf("# reference result (checked bit for bit): %s\n",
               meta_get("reference"));
        fflush(stdout);
    }

    /* all rows of all collectives, kept for the tables and the JSON */
    row_t *rows[MAX_COLLS];
    size_t per = 0;
    int nconf = 0;
    for (int k = 0; k < o.ncolls; k++)
        nconf += o.nsizes * ((o.modes & MODE_ONE ? 1 : 0) +
                             (o.modes & MODE_RAND ? 1 : 0)) * o.ndelays;
    int conf = 0, exit_code = 0;
    double t_start = MPI_Wtime();
    for (int k = 0; k < o.ncolls; k++) {
        papc_collective c = o.colls[k];
        per = (size_t)nalgs[k] * o.nsizes * 2 * o.ndelays;
        rows[k] = calloc(per, sizeof(row_t));
        for (int s = 0; s < o.nsizes; s++) {
            long long n = o.sizes[s];
            if (!o.per_block && !whole_vector(c)) {
                n /= nprocs;
                if (n < 1) n = 1;
            }
            if (!whole_vector(c) && n * nprocs > INT_MAX) {
                if (rank == 0)
                    fprintf(stderr, PROG ": %s of %lld floats x %d ranks is "
                            "too large\n", o.size_text[s], n, nprocs);
                MPI_Finalize();
                return 2;
            }
            bufs_t b;
            bufs_alloc(&b, c, (int)n, o.root);
            for (int mi = 0; mi < 2; mi++) {
                int mode = mi ? MODE_RAND : MODE_ONE;
                if (!(o.modes & mode)) continue;
                for (int d = 0; d < o.ndelays; d++) {
                    double t_conf = MPI_Wtime();
                    row_t tmp[MAX_LIST];
                    memset(tmp, 0, sizeof tmp);
                    run_config(&o, c, algs[k], nalgs[k], &refs[k], &b, mode,
                               o.delays[d], tmp);
                    conf++;
                    if (rank != 0) continue;
                    for (int a = 0; a < nalgs[k]; a++) {
                        rows[k][ROW(&o, nalgs[k], a, s, mi, d)] = tmp[a];
                        if (csv)
                            csv_row(csv, c, algs[k][a].name, mode,
                                    o.delays[d], &tmp[a]);
                        if (tmp[a].errors) {
                            exit_code = 1;
                            fprintf(stderr, PROG ": WRONG RESULT: %s %s, %s, "
                                    "%s, %g ms: %d of %d iterations differ "
                                    "from the reference (%s)\n",
                                    papc_collective_name(c), algs[k][a].name,
                                    o.size_text[s], mode_name(mode),
                                    o.delays[d], tmp[a].errors, o.iterations,
                                    refs[k].name);
                        }
                        if (tmp[a].split) {
                            exit_code = 1;
                            fprintf(stderr, PROG ": RANKS DISAGREED: %s %s, "
                                    "%s, %s, %g ms: in %d of %d iterations "
                                    "the ranks' plain calls ran different "
                                    "algorithms\n", papc_collective_name(c),
                                    algs[k][a].name, o.size_text[s],
                                    mode_name(mode), o.delays[d],
                                    tmp[a].split, o.iterations);
                        }
                    }
                    if (!o.quiet) {
                        double now = MPI_Wtime(), el = now - t_start;
                        fprintf(stderr, PROG ": [%d/%d] %s %s %s %g ms: %.1f s"
                                "; elapsed %.0f s, about %.0f s left\n", conf,
                                nconf, papc_collective_name(c),
                                o.size_text[s], mode_name(mode), o.delays[d],
                                now - t_conf, el, el / conf * (nconf - conf));
                    }
                }
            }
            bufs_free(&b);
        }
        if (rank == 0)
            print_tables(&o, c, algs[k], nalgs[k], base[k], rows[k]);
    }

    if (!o.no_monitor) papc_monitor_finalize();

    if (rank == 0) {
        char skew[256];
        skew_text(skew, sizeof skew);
        printf("\n# barrier exit skew (ms), the error of the common time "
               "origin: %s\n", skew);
        if (exit_code)
            printf("# SOME RESULTS WERE WRONG OR RANKS DISAGREED (see "
                   "stderr)\n");
        /* known only after the first plain call has loaded it */
        const char *prof = papc_profile_path();
        const char *sel = getenv("PAPC_SELECT");
        char selection[1200];
        snprintf(selection, sizeof selection, "%s%s%s",
                 prof ? prof : "none (papcoll's fixed rules)",
                 sel && *sel ? "; PAPC_SELECT=" : "", sel && *sel ? sel : "");
        printf("# plain call's selection profile: %s\n", selection);
        if (csv) {
            fprintf(csv, "# barrier_exit_skew_ms: %s\n", skew);
            fprintf(csv, "# selection_profile: %s\n", selection);
            fclose(csv);
        }
        if (g_trace) fclose(g_trace);
        if (g_timeline) fclose(g_timeline);
        if (o.json) {
            FILE *f = open_out(o.json);
            fprintf(f, "{\n  \"meta\": {");
            for (int i = 0; i < nmeta; i++) {
                fprintf(f, "%s\n    ", i ? "," : "");
                json_string(f, meta[i].key);
                fprintf(f, ": ");
                json_string(f, meta[i].value);
            }
            fprintf(f, ",\n    \"barrier_exit_skew_ms\": ");
            json_string(f, skew);
            fprintf(f, "\n  },\n  \"rows\": [");
            int first = 1;
            for (int k = 0; k < o.ncolls; k++)
                for (int s = 0; s < o.nsizes; s++)
                    for (int mi = 0; mi < 2; mi++) {
                        int mode = mi ? MODE_RAND : MODE_ONE;
                        if (!(o.modes & mode)) continue;
                        for (int d = 0; d < o.ndelays; d++)
                            for (int a = 0; a < nalgs[k]; a++) {
                                const row_t *w =
                                    &rows[k][ROW(&o, nalgs[k], a, s, mi, d)];
                                fprintf(f, "%s\n    {\"coll\": \"%s\", "
                                        "\"algorithm\": ", first ? "" : ",",
                                        papc_collective_name(o.colls[k]));
                                json_string(f, algs[k][a].name);
                                fprintf(f, ", \"P\": %d, \"count\": %d, "
                                        "\"bytes\": %lld, \"mode\": \"%s\", "
                                        "\"max_delay_ms\": %g, "
                                        "\"iterations\": %d",
                                        nprocs, w->count,
                                        (long long)w->count * 4,
                                        mode_name(mode), o.delays[d],
                                        w->iterations);
                                const stat5 *st[2] = {&w->r, &w->e};
                                const char *pre[2] = {"r", "e"};
                                for (int q = 0; q < 2; q++)
                                    fprintf(f, ", \"%s_mean_ms\": %.4f, "
                                            "\"%s_median_ms\": %.4f, "
                                            "\"%s_min_ms\": %.4f, "
                                            "\"%s_max_ms\": %.4f, "
                                            "\"%s_std_ms\": %.4f", pre[q],
                                            st[q]->mean, pre[q],
                                            st[q]->median, pre[q], st[q]->min,
                                            pre[q], st[q]->max, pre[q],
                                            st[q]->std);
                                fprintf(f, ", \"ideal_mean_ms\": %.4f, "
                                        "\"ideal_std_ms\": %.4f, "
                                        "\"errors\": %d, \"ran\": ",
                                        w->ideal_mean, w->ideal_std,
                                        w->errors);
                                json_string(f, w->ran);
                                fputc('}', f);
                                first = 0;
                            }
                    }
            fprintf(f, "\n  ]\n}\n");
            fclose(f);
        }
    }
    for (int k = 0; k < o.ncolls; k++) free(rows[k]);
    MPI_Bcast(&exit_code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return exit_code;
}
