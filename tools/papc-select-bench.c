/*
 * papc-select-bench — how good is the model-based choice?  The accuracy
 * benchmark of issue 12, item 7 (the paper's Tables 2-3 and Figs. 4-7,
 * model-based-selection.md Sect. V, for papcoll's algorithms).
 *
 *   mpirun -n P papc-select-bench [-c LIST] [-m SIZES] [-i N] [--csv FILE]
 *   mpirun -n P --mca coll_tuned_use_dynamic_rules 1 \
 *          --mca coll_tuned_dynamic_rules_filename rules.txt \
 *          papc-select-bench --native-only --csv FILE
 *
 * One run covers one P.  For each collective and size (a cell) it times,
 * interleaved, these variants:
 *   alg      every algorithm of the collective that is not arrival-aware,
 *            through its _alg call; a segmented one at each segment size
 *            the selector may give it: the one papc_explain returns for
 *            this cell and the fixed 8 KiB default (PAPC_SEGSIZE is set on
 *            every rank just before the call and unset after it);
 *   model    the plain call with papc_set_selection("model") and the
 *            profile of PAPC_PROFILE (or --profile);
 *   fixed    the plain call with papc_set_selection("fixed"): papcoll's
 *            size rules from before issue 12;
 *   native   MPI_<Coll> as mpirun configured it (Open MPI's own choice, or
 *            its dynamic rules file: the variant is then called
 *            native_rules; alone, with --native-only, native_alone).
 * and records papc_explain's predicted time of every algorithm variant and
 * which one the model chooses.
 *
 * Method (papc-classic-bench's): data are MPI_INT, reductions MPI_SUM;
 * size = one rank's block for gather and scatter, the vector for bcast,
 * reduce and allreduce; root 0.  Per cell every variant first runs once on
 * fresh buffers and is compared with the native result (a check, not the
 * test suite); a variant that fails is reported and left out.  Then -x
 * warm-up rounds and the timed rounds: each round runs every variant once,
 * starting one variant later than the round before, so that drift of a
 * shared machine falls on all alike and no variant always follows the same
 * one.  Every call is preceded by MPI_Barrier and timed by each rank; a
 * round's time of a variant is the maximum over the ranks (gathered after
 * the rounds, so nothing else runs between timed calls); median, mean,
 * minimum and maximum over the rounds are reported.  The number of rounds
 * is what fits into --budget seconds (the last warm-up round is the
 * yardstick), at least --min-iterations, at most -i.
 *
 * Output: a table on stdout (rank 0), one line per cell (-v: every
 * variant); --csv FILE appends one row per cell and variant:
 *   platform,coll,P,bytes,variant,algorithm,segsize,reps,median_us,
 *   mean_us,min_us,max_us,predicted_us,chosen_by_model,status
 * after `# key: value` lines (date, machine, mpi, profile, settings, ...).
 * algorithm is the row's name; for model and fixed the algorithm the
 * plain call ran (papc_last_algorithm); for native Open MPI's algorithm
 * when scripts/ompi-coll-probe.c is preloaded (found with dlsym), else
 * empty.  segsize is the PAPC_SEGSIZE of a segmented algorithm (for
 * model: the one papc_explain gives its choice),
 * empty for an algorithm without segments; predicted_us is papc_explain's
 * time for that algorithm at that segment size (empty when papc_explain
 * gave it another segment size or no prediction); chosen_by_model is 1 on
 * the variant the model chooses and on the model row.
 * `papc-report select DIR` turns the CSV files into the paper's tables and
 * figures.  Exit status: 0, 1 when a result differed from the native one
 * or the plain model call ran another algorithm than papc_explain chose,
 * 2 bad usage or no profile.  Uses papcoll's public API only.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
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

extern char **environ;

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

#define MAX_SIZES 32
#define MAX_ROWS 64      /* papc_explain rows per collective */
#define MAX_VARIANTS 64
#define DEFAULT_SEGSIZE 8192 /* papcoll's PAPC_SEGSIZE default */
#define ROOT 0

/* The collectives judged (gatherv/scatterv have no size-based choice). */
static const papc_collective JUDGED[] = {PAPC_GATHER, PAPC_SCATTER,
                                         PAPC_BCAST, PAPC_REDUCE,
                                         PAPC_ALLREDUCE};
#define NJUDGED ((int)(sizeof JUDGED / sizeof JUDGED[0]))

typedef struct options {
    int colls[PAPC_NUM_COLLECTIVES]; /* 1: judged in this run */
    size_t sizes[MAX_SIZES];
    int nsizes;
    int iterations;      /* -i: most timed rounds per cell */
    int min_iterations;  /* fewest timed rounds per cell */
    double budget;       /* seconds of timed rounds per cell */
    int warmup;          /* -x: untimed rounds */
    int native_only;
    const char *native_name;
    const char *profile;
    int allow_no_profile;
    const char *csv;
    const char *platform;
    int verbose;
} options;

typedef enum vkind { VK_ALG = 0, VK_MODEL, VK_FIXED, VK_NATIVE } vkind;
static const char *const KIND_NAME[] = {"alg", "model", "fixed", "native"};

/* One way of running a cell's collective. */
typedef struct variant {
    vkind kind;
    int alg;             /* VK_ALG: index of the row in the registry */
    int segmented;       /* VK_ALG: the row pipelines PAPC_SEGSIZE segments */
    size_t segsize;      /* segmented: PAPC_SEGSIZE for the call */
    double predicted;    /* papc_explain's seconds; < 0: none */
    int chosen;          /* the model's choice */
    int rc;              /* MPI_SUCCESS, or the check's error class */
    int agree;           /* the check's result equalled the native one */
    char ran[64];        /* model/fixed: the algorithm the call ran */
    char msg[192];       /* why the variant failed */
    double median, mean, min, max; /* seconds, over the rounds */
} variant;

/* One (collective, size) and its buffers. */
typedef struct cell {
    papc_collective coll;
    size_t bytes;
    int count;            /* MPI_INTs per block / vector */
    int *send, *recv, *ref;
    size_t recv_len;      /* elements of recv and ref */
    int nvar;
    variant var[MAX_VARIANTS];
    int reps;
    int model_row_chosen; /* papc_explain's chosen row (-1: no profile) */
    char model_alg[64];   /* its name, "" when none */
} cell;

static int rank, nprocs;

/* scripts/ompi-coll-probe.c, when preloaded: the Open MPI algorithm
 * ("bcast:split_binary_tree") of the native calls since its last call. */
typedef const char *(*probe_take_fn)(void);
static probe_take_fn ompi_probe;

/* ---- small helpers ------------------------------------------------------ */

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "papc-select-bench: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, EXIT_FAIL);
    }
    return p;
}

static void fail_mpi(int rc, const char *what) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "papc-select-bench: rank %d: %s failed: %s\n", rank, what,
            msg);
    MPI_Abort(MPI_COMM_WORLD, EXIT_FAIL);
}

static const char *native_call(papc_collective c) {
    static const char *const names[] = {"MPI_Gather", "MPI_Scatter",
                                        "MPI_Bcast", "MPI_Reduce",
                                        "MPI_Allreduce"};
    return (int)c < NJUDGED ? names[c] : "MPI_?";
}

static int is_reduction(papc_collective c) {
    return c == PAPC_REDUCE || c == PAPC_ALLREDUCE;
}

/* Variables that would change what a variant runs: the plain calls must
 * choose for themselves, segment sizes are set per call here. */
static void clear_forcing_environment(void) {
    char **names = NULL;
    int n = 0;
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq) continue;
        size_t len = (size_t)(eq - *e);
        int forcing = (len > 15 && !strncmp(*e, "PAPC_", 5) &&
                       !strncmp(eq - 10, "_ALGORITHM", 10)) ||
                      (len == 12 && !strncmp(*e, "PAPC_SEGSIZE", 12));
        if (!forcing) continue;
        names = realloc(names, (size_t)(n + 1) * sizeof *names);
        if (!names) MPI_Abort(MPI_COMM_WORLD, EXIT_FAIL);
        names[n] = strndup(*e, len);
        n++;
    }
    for (int i = 0; i < n; i++) {
        if (rank == 0)
            fprintf(stderr, "papc-select-bench: ignoring %s (the benchmark "
                    "sets algorithms and segment sizes itself)\n", names[i]);
        unsetenv(names[i]);
        free(names[i]);
    }
    free(names);
}

/* ---- command line ------------------------------------------------------- */

static void usage(void) {
    if (rank != 0) return;
    fprintf(stderr,
        "usage: mpirun -n P papc-select-bench [options]\n"
        "Times every non-arrival-aware algorithm (at each segment size the\n"
        "selector may pick), the plain call under the model and under the\n"
        "fixed rules, and native MPI_<Coll>, interleaved, per collective and\n"
        "size; records papc_explain's predictions and choice.\n"
        "  -c, --collectives LIST  of gather,scatter,bcast,reduce,allreduce "
        "(default all)\n"
        "  -m, --sizes LIST        bytes, K/M suffixes (default 8,64,512,4K,"
        "16K,64K,256K,1M,2M,4M);\n"
        "                          one rank's block for gather/scatter, the "
        "vector otherwise\n"
        "  -i, --iterations N      most timed rounds per cell (default 50)\n"
        "  --min-iterations N      fewest timed rounds per cell (default 5)\n"
        "  --budget SECONDS        time for the timed rounds of a cell "
        "(default 2)\n"
        "  -x, --warmup N          untimed rounds per cell (default 1)\n"
        "  --quick                 sizes 64,64K, 3-5 rounds, budget 0.2 s "
        "(a smoke test)\n"
        "  --native-only           time MPI_<Coll> only (e.g. under Open "
        "MPI's dynamic\n"
        "                          rules); no profile needed\n"
        "  --native-name NAME      variant name of MPI_<Coll> (default "
        "native_rules when a\n"
        "                          dynamic rules file is set, else "
        "native_alone with\n"
        "                          --native-only, else native)\n"
        "  --profile FILE          profile to load (default $PAPC_PROFILE, "
        "else the\n"
        "                          default location)\n"
        "  --allow-no-profile      run without a profile (model = fixed "
        "rules)\n"
        "  --platform NAME         recorded in the CSV (default cluster "
        "under testbed/run,\n"
        "                          else shm)\n"
        "  --csv FILE              append one row per cell and variant\n"
        "  -v, --verbose           print every variant of every cell\n");
}

/* "65536", "64K", "4M", "4Mi" (binary multiples) into bytes; 0 on error. */
static size_t parse_bytes(const char *s) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno) return 0;
    if (*end == 'k' || *end == 'K') v <<= 10, end++;
    else if (*end == 'm' || *end == 'M') v <<= 20, end++;
    if (*end == 'i') end++;
    if (*end == 'B' || *end == 'b') end++;
    return *end ? 0 : (size_t)v;
}

static int parse_sizes(const char *list, options *o) {
    char *copy = strdup(list), *save = NULL;
    int ok = 1;
    o->nsizes = 0;
    for (char *t = strtok_r(copy, ",", &save); t && ok;
         t = strtok_r(NULL, ",", &save)) {
        size_t b = parse_bytes(t);
        /* the root of gather/scatter holds P blocks in one int count */
        if (b < sizeof(int) || b % sizeof(int) ||
            b / sizeof(int) * (size_t)nprocs > INT_MAX ||
            o->nsizes == MAX_SIZES) {
            if (rank == 0)
                fprintf(stderr, "papc-select-bench: bad size '%s' (a "
                        "multiple of %zu bytes, at most %d sizes)\n", t,
                        sizeof(int), MAX_SIZES);
            ok = 0;
        } else {
            o->sizes[o->nsizes++] = b;
        }
    }
    free(copy);
    return ok && o->nsizes ? 0 : -1;
}

static int parse_collectives(const char *list, options *o) {
    char *copy = strdup(list), *save = NULL;
    int ok = 1;
    memset(o->colls, 0, sizeof o->colls);
    for (char *t = strtok_r(copy, ",", &save); t && ok;
         t = strtok_r(NULL, ",", &save)) {
        int c = papc_collective_from_name(t);
        if (c < 0 || c >= NJUDGED) {
            if (rank == 0)
                fprintf(stderr, "papc-select-bench: '%s' is not one of "
                        "gather, scatter, bcast, reduce, allreduce\n", t);
            ok = 0;
        } else {
            o->colls[c] = 1;
        }
    }
    free(copy);
    return ok ? 0 : -1;
}

static int parse_options(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    for (int c = 0; c < NJUDGED; c++) o->colls[JUDGED[c]] = 1;
    parse_sizes("8,64,512,4K,16K,64K,256K,1M,2M,4M", o);
    o->iterations = 50;
    o->min_iterations = 5;
    o->budget = 2.0;
    o->warmup = 1;
    int quick = 0, sizes_given = 0, iters_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0, flag = 1;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return -1;
        else if (!strcmp(a, "--quick")) quick = 1;
        else if (!strcmp(a, "--native-only")) o->native_only = 1;
        else if (!strcmp(a, "--allow-no-profile")) o->allow_no_profile = 1;
        else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) o->verbose = 1;
        else flag = 0;
        if (flag) continue;
        if (!v) bad = 1;
        else if (!strcmp(a, "-c") || !strcmp(a, "--collectives")) {
            if (parse_collectives(v, o)) return -1;
        } else if (!strcmp(a, "-m") || !strcmp(a, "--sizes")) {
            if (parse_sizes(v, o)) return -1;
            sizes_given = 1;
        } else if (!strcmp(a, "-i") || !strcmp(a, "--iterations")) {
            bad = papc_cli_int(v, 1, &o->iterations);
            iters_given = 1;
        } else if (!strcmp(a, "--min-iterations"))
            bad = papc_cli_int(v, 1, &o->min_iterations);
        else if (!strcmp(a, "--budget"))
            bad = papc_cli_double(v, &o->budget) || o->budget < 0;
        else if (!strcmp(a, "-x") || !strcmp(a, "--warmup"))
            bad = papc_cli_int(v, 0, &o->warmup);
        else if (!strcmp(a, "--native-name")) o->native_name = v;
        else if (!strcmp(a, "--profile")) o->profile = v;
        else if (!strcmp(a, "--platform")) o->platform = v;
        else if (!strcmp(a, "--csv")) o->csv = v;
        else bad = 1;
        if (bad) {
            if (rank == 0)
                fprintf(stderr, "papc-select-bench: bad option '%s'%s\n", a,
                        v ? "" : " (missing value)");
            return -1;
        }
        i++;
    }
    if (quick) {
        if (!sizes_given) parse_sizes("64,64K", o);
        if (!iters_given) o->iterations = 5;
        if (o->min_iterations > 3) o->min_iterations = 3;
        o->budget = 0.2;
    }
    if (o->min_iterations > o->iterations) o->min_iterations = o->iterations;
    if (nprocs < 2) {
        if (rank == 0)
            fprintf(stderr, "papc-select-bench: needs at least 2 processes "
                    "(mpirun -n P)\n");
        return -1;
    }
    if (!o->platform)
        o->platform = getenv("PAPC_TESTBED") ? "cluster" : "shm";
    if (!o->native_name) {
        const char *use = getenv("OMPI_MCA_coll_tuned_use_dynamic_rules");
        const char *file = getenv("OMPI_MCA_coll_tuned_dynamic_rules_filename");
        int rules = use && (!strcmp(use, "1") || !strcasecmp(use, "true")) &&
                    file && *file;
        o->native_name = rules ? "native_rules"
                         : o->native_only ? "native_alone" : "native";
    }
    return 0;
}

/* ---- buffers ------------------------------------------------------------ */

/* Values small enough that a sum over thousands of ranks cannot overflow. */
static int pattern(int r, size_t i) { return (int)((r * 131 + i * 7) % 1009); }

static void cell_alloc(cell *c) {
    int n = (int)(c->bytes / sizeof(int));
    int root = rank == ROOT;
    size_t send_len = (size_t)n, recv_len = (size_t)n;
    if (c->coll == PAPC_GATHER) recv_len = root ? (size_t)n * nprocs : 1;
    if (c->coll == PAPC_SCATTER) send_len = root ? (size_t)n * nprocs : 1;
    if (c->coll == PAPC_REDUCE && !root) recv_len = 1;
    c->count = n;
    c->send = xmalloc(send_len * sizeof(int));
    c->recv = xmalloc(recv_len * sizeof(int));
    c->ref = xmalloc(recv_len * sizeof(int));
    c->recv_len = recv_len;
    int src = c->coll == PAPC_SCATTER ? ROOT : rank;
    for (size_t i = 0; i < send_len; i++) c->send[i] = pattern(src, i);
}

static void cell_free(cell *c) {
    free(c->send);
    free(c->recv);
    free(c->ref);
}

/* Garbage in the result buffer, so that a call that writes nothing cannot
 * pass the check; the bcast root gets its data instead. */
static void reset_result(cell *c, int garbage) {
    int bcast_root = c->coll == PAPC_BCAST && rank == ROOT;
    for (size_t i = 0; i < c->recv_len; i++)
        c->recv[i] = bcast_root ? pattern(rank, i) : garbage;
}

/* 1 when this rank holds a defined result. */
static int has_result(papc_collective coll) {
    return (coll != PAPC_GATHER && coll != PAPC_REDUCE) || rank == ROOT;
}

/* ---- running one variant ------------------------------------------------ */

static int run_papc(const cell *c, const char *alg) {
    MPI_Comm w = MPI_COMM_WORLD;
    int n = c->count;
    int *s = c->send, *r = c->recv;
    switch (c->coll) {
    case PAPC_GATHER:
        return alg ? papc_gather_alg(s, n, MPI_INT, r, n, MPI_INT, ROOT, w, alg)
                   : papc_gather(s, n, MPI_INT, r, n, MPI_INT, ROOT, w);
    case PAPC_SCATTER:
        return alg ? papc_scatter_alg(s, n, MPI_INT, r, n, MPI_INT, ROOT, w,
                                      alg)
                   : papc_scatter(s, n, MPI_INT, r, n, MPI_INT, ROOT, w);
    case PAPC_BCAST:
        return alg ? papc_bcast_alg(r, n, MPI_INT, ROOT, w, alg)
                   : papc_bcast(r, n, MPI_INT, ROOT, w);
    case PAPC_REDUCE:
        return alg ? papc_reduce_alg(s, r, n, MPI_INT, MPI_SUM, ROOT, w, alg)
                   : papc_reduce(s, r, n, MPI_INT, MPI_SUM, ROOT, w);
    case PAPC_ALLREDUCE:
        return alg ? papc_allreduce_alg(s, r, n, MPI_INT, MPI_SUM, w, alg)
                   : papc_allreduce(s, r, n, MPI_INT, MPI_SUM, w);
    default:
        return MPI_ERR_ARG;
    }
}

static int run_native(const cell *c) {
    MPI_Comm w = MPI_COMM_WORLD;
    int n = c->count;
    int *s = c->send, *r = c->recv;
    switch (c->coll) {
    case PAPC_GATHER:
        return MPI_Gather(s, n, MPI_INT, r, n, MPI_INT, ROOT, w);
    case PAPC_SCATTER:
        return MPI_Scatter(s, n, MPI_INT, r, n, MPI_INT, ROOT, w);
    case PAPC_BCAST:
        return MPI_Bcast(r, n, MPI_INT, ROOT, w);
    case PAPC_REDUCE:
        return MPI_Reduce(s, r, n, MPI_INT, MPI_SUM, ROOT, w);
    case PAPC_ALLREDUCE:
        return MPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, w);
    default:
        return MPI_ERR_ARG;
    }
}

/* What must hold before the call: the variant's segment size or selection
 * mode.  Done before the barrier, so it is not timed. */
static void variant_enter(const variant *v) {
#ifdef PAPC_SMPI
    /* Under SMPI all simulated ranks share one environment: set
     * PAPC_SEGSIZE only once every rank is done with the last call (a
     * plain call reads it too). */
    if (v->kind == VK_ALG && v->segmented) MPI_Barrier(MPI_COMM_WORLD);
#endif
    if (v->kind == VK_ALG && v->segmented) {
        char seg[32];
        snprintf(seg, sizeof seg, "%zu", v->segsize);
        setenv("PAPC_SEGSIZE", seg, 1);
        papc_settings_agree(MPI_COMM_WORLD); /* now, not in the timed call */
    } else if (v->kind == VK_MODEL || v->kind == VK_FIXED) {
        int rc = papc_set_selection(v->kind == VK_MODEL ? "model" : "fixed");
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "papc-select-bench: papc_set_selection: %s\n",
                    papc_strerror(rc));
            MPI_Abort(MPI_COMM_WORLD, EXIT_FAIL);
        }
        papc_settings_agree(MPI_COMM_WORLD); /* now, not in the timed call */
    }
}

static void variant_leave(const variant *v) {
#ifdef PAPC_SMPI
    /* Under SMPI all simulated ranks share one environment: unset
     * PAPC_SEGSIZE only once every rank is done with the call. */
    if (v->kind == VK_ALG && v->segmented) MPI_Barrier(MPI_COMM_WORLD);
#endif
    if (v->kind == VK_ALG && v->segmented) {
        unsetenv("PAPC_SEGSIZE");
        papc_settings_agree(MPI_COMM_WORLD);
    }
}

static int variant_call(const cell *c, const variant *v) {
    switch (v->kind) {
    case VK_ALG:
        return run_papc(c, papc_algorithm_get(c->coll, v->alg)->name);
    case VK_MODEL:
    case VK_FIXED:
        return run_papc(c, NULL);
    default:
        return run_native(c);
    }
}

/* One barrier-then-timed call; the call's duration on this rank. */
static double timed_call(const cell *c, const variant *v) {
    variant_enter(v);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int rc = variant_call(c, v);
    double t1 = MPI_Wtime();
    variant_leave(v);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "papc-select-bench: rank %d: %s %s failed while "
                "timing (it passed the check): %s\n", rank,
                papc_collective_name(c->coll), KIND_NAME[v->kind],
                papc_strerror(rc));
        MPI_Abort(MPI_COMM_WORLD, EXIT_FAIL);
    }
    return t1 - t0;
}

/* ---- the variants of a cell --------------------------------------------- */

static variant *add_variant(cell *c, vkind kind) {
    if (c->nvar == MAX_VARIANTS) {
        fprintf(stderr, "papc-select-bench: more than %d variants\n",
                MAX_VARIANTS);
        MPI_Abort(MPI_COMM_WORLD, EXIT_FAIL);
    }
    variant *v = &c->var[c->nvar++];
    memset(v, 0, sizeof *v);
    v->kind = kind;
    v->alg = -1;
    v->predicted = -1;
    v->median = v->mean = v->min = v->max = -1;
    return v;
}

/* Segment sizes at or above the message's size are all "the whole
 * message": one variant serves them. */
static size_t effective_segsize(size_t seg, size_t bytes) {
    return seg == 0 || seg >= bytes ? 0 : seg;
}

static const papc_prediction *find_prediction(const papc_prediction *rows,
                                              int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (rows[i].algorithm && !strcmp(rows[i].algorithm, name))
            return &rows[i];
    return NULL;
}

/* Rank 0: the variants of a cell from the registry and papc_explain. */
static void plan_variants(cell *c, const options *o) {
    c->nvar = 0;
    c->model_row_chosen = -1;
    c->model_alg[0] = '\0';
    if (o->native_only) {
        add_variant(c, VK_NATIVE);
        return;
    }
    papc_prediction rows[MAX_ROWS];
    int n = 0, chosen = -1;
    int red = is_reduction(c->coll);
    /* papc_explain answers for the current mode: the model's */
    if (papc_set_selection("model") != MPI_SUCCESS) n = 0;
    int rc = papc_explain(c->coll, nprocs, c->bytes,
                          red ? MPI_INT : MPI_DATATYPE_NULL,
                          red ? MPI_SUM : MPI_OP_NULL, rows, MAX_ROWS, &n,
                          &chosen);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "papc-select-bench: papc_explain(%s, %d, %zu): %s\n",
                papc_collective_name(c->coll), nprocs, c->bytes,
                papc_strerror(rc));
        n = 0, chosen = -1;
    }
    if (n > MAX_ROWS) n = MAX_ROWS;
    /* without a prediction the chosen row is the fixed rules' */
    const papc_prediction *pick =
        chosen >= 0 && chosen < n && rows[chosen].seconds >= 0 ? &rows[chosen]
                                                               : NULL;
    if (pick) {
        c->model_row_chosen = chosen;
        snprintf(c->model_alg, sizeof c->model_alg, "%s", pick->algorithm);
    }

    for (int a = 0; a < papc_algorithm_count(c->coll); a++) {
        const papc_algorithm_info *info = papc_algorithm_get(c->coll, a);
        if (info->flags & PAPC_FLAG_ARRIVAL_AWARE) continue;
        const papc_prediction *p = find_prediction(rows, n, info->name);
        int candidate = p && p->seconds >= 0;
        int is_pick = pick && !strcmp(pick->algorithm, info->name);
        if (!(info->flags & PAPC_FLAG_SEGMENTED)) {
            variant *v = add_variant(c, VK_ALG);
            v->alg = a;
            v->predicted = candidate ? p->seconds : -1;
            v->chosen = is_pick;
            continue;
        }
        /* the model's segment size first, then 8 KiB unless the same */
        size_t segs[2];
        int nsegs = 0;
        if (candidate) segs[nsegs++] = p->segsize;
        if (!candidate || effective_segsize(p->segsize, c->bytes) !=
                              effective_segsize(DEFAULT_SEGSIZE, c->bytes))
            segs[nsegs++] = DEFAULT_SEGSIZE;
        for (int s = 0; s < nsegs; s++) {
            variant *v = add_variant(c, VK_ALG);
            v->alg = a;
            v->segmented = 1;
            v->segsize = segs[s];
            int model_seg = candidate && s == 0;
            v->predicted = model_seg ? p->seconds : -1;
            v->chosen = is_pick && model_seg;
        }
    }
    variant *m = add_variant(c, VK_MODEL);
    m->chosen = pick != NULL;
    m->predicted = pick ? pick->seconds : -1;
    m->segsize = pick ? pick->segsize : 0;
    add_variant(c, VK_FIXED);
    add_variant(c, VK_NATIVE);
}

/* Every rank runs the same variants: rank 0 plans them, the others take
 * its plan (kinds, rows and segment sizes; predictions stay on rank 0). */
static void share_plan(cell *c) {
    MPI_Bcast(&c->nvar, 1, MPI_INT, 0, MPI_COMM_WORLD);
    long long plan[MAX_VARIANTS * 4];
    if (rank == 0)
        for (int i = 0; i < c->nvar; i++) {
            plan[4 * i] = c->var[i].kind;
            plan[4 * i + 1] = c->var[i].alg;
            plan[4 * i + 2] = c->var[i].segmented;
            plan[4 * i + 3] = (long long)c->var[i].segsize;
        }
    MPI_Bcast(plan, 4 * c->nvar, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank != 0) {
        int nvar = c->nvar;
        c->nvar = 0;
        for (int i = 0; i < nvar; i++) {
            variant *v = add_variant(c, (vkind)plan[4 * i]);
            v->alg = (int)plan[4 * i + 1];
            v->segmented = (int)plan[4 * i + 2];
            v->segsize = (size_t)plan[4 * i + 3];
        }
    }
}

/* ---- check -------------------------------------------------------------- */

/* Brings rank `from`'s text to rank 0. */
static void text_to_root(char *text, int len, int from) {
    if (from == 0) return;
    if (rank == from) MPI_Send(text, len, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Recv(text, len, MPI_CHAR, from, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

/* The Open MPI algorithm the probe saw ("bcast:binomial") as the native
 * variant's algorithm; "?" when it saw another collective's, "" without
 * the probe. */
static void note_native_algorithm(cell *c, const char *seen) {
    if (!ompi_probe) return;
    const char *coll = papc_collective_name(c->coll);
    size_t n = strlen(coll);
    const char *alg = seen && !strncmp(seen, coll, n) && seen[n] == ':'
                          ? seen + n + 1 : "?";
    for (int i = 0; i < c->nvar; i++)
        if (c->var[i].kind == VK_NATIVE)
            snprintf(c->var[i].ran, sizeof c->var[i].ran, "%s", alg);
}

/* Runs every variant once on fresh buffers against the native result.  A
 * failure (agreed by every rank) takes the variant out of the timing. */
static void check_variants(cell *c) {
    reset_result(c, -2);
    if (ompi_probe) ompi_probe();
    int rc = run_native(c);
    if (rc != MPI_SUCCESS) fail_mpi(rc, native_call(c->coll));
    note_native_algorithm(c, ompi_probe ? ompi_probe() : NULL);
    memcpy(c->ref, c->recv, c->recv_len * sizeof(int));

    for (int i = 0; i < c->nvar; i++) {
        variant *v = &c->var[i];
        reset_result(c, -1);
        variant_enter(v);
        rc = variant_call(c, v);
        variant_leave(v);
        if (rc != MPI_SUCCESS)
            snprintf(v->msg, sizeof v->msg, "%s", papc_strerror(rc));
        MPI_Allreduce(&rc, &v->rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (v->rc != MPI_SUCCESS) {
            int mine = rc != MPI_SUCCESS ? rank : nprocs, first = 0;
            MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            text_to_root(v->msg, (int)sizeof v->msg, first);
            continue;
        }
        int same = !has_result(c->coll) ||
                   !memcmp(c->recv, c->ref, c->recv_len * sizeof(int));
        MPI_Allreduce(&same, &v->agree, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        if (v->kind == VK_MODEL || v->kind == VK_FIXED) {
            const char *ran = papc_last_algorithm(c->coll);
            snprintf(v->ran, sizeof v->ran, "%s", ran ? ran : "?");
        }
    }
}

/* ---- timing ------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void summarize(double *t, int n, variant *v) {
    double sum = 0;
    for (int i = 0; i < n; i++) sum += t[i];
    v->mean = sum / n;
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    v->median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    v->min = t[0];
    v->max = t[n - 1];
}

/* One round: every runnable variant once, starting at variant `first`;
 * this rank's times go to t[variant] (may be NULL). */
static void run_round(cell *c, int first, double *t) {
    for (int j = 0; j < c->nvar; j++) {
        int i = (first + j) % c->nvar;
        if (c->var[i].rc != MPI_SUCCESS) continue;
        double d = timed_call(c, &c->var[i]);
        if (t) t[i] = d;
    }
}

/* Warm-up rounds, then as many timed rounds as fit in the budget (the last
 * warm-up round, slowest rank, is the yardstick); every rank takes the
 * same count. */
static void time_cell(cell *c, const options *o) {
    double round_time = 0;
    for (int w = 0; w < o->warmup; w++) {
        double t0 = MPI_Wtime();
        run_round(c, w, NULL);
        round_time = MPI_Wtime() - t0;
    }
    double slowest = round_time;
    MPI_Allreduce(&round_time, &slowest, 1, MPI_DOUBLE, MPI_MAX,
                  MPI_COMM_WORLD);
    int reps = o->iterations;
    if (slowest > 0 && o->budget / slowest < reps)
        reps = (int)(o->budget / slowest);
    if (reps < o->min_iterations) reps = o->min_iterations;
    c->reps = reps;

    size_t cells = (size_t)reps * (size_t)c->nvar;
    double *mine = xmalloc(cells * sizeof(double));
    double *slow = xmalloc(cells * sizeof(double));
    for (size_t k = 0; k < cells; k++) mine[k] = 0;
    for (int r = 0; r < reps; r++)
        run_round(c, o->warmup + r, mine + (size_t)r * c->nvar);
    MPI_Reduce(mine, slow, (int)cells, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double *t = xmalloc((size_t)reps * sizeof(double));
        for (int i = 0; i < c->nvar; i++) {
            if (c->var[i].rc != MPI_SUCCESS) continue;
            for (int r = 0; r < reps; r++)
                t[r] = slow[(size_t)r * c->nvar + i];
            summarize(t, reps, &c->var[i]);
        }
        free(t);
    }
    free(mine);
    free(slow);
}

/* ---- output ------------------------------------------------------------- */

static char meta_date[64], meta_machine[512], meta_mpi[512], meta_cmd[2048];
static char meta_settings[2048], meta_profile[1200];

/* "OMPI_MCA_coll_tuned_use_dynamic_rules=1 ...": how mpirun configured the
 * native side, and papcoll's own variables. */
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

static void build_meta(int argc, char **argv, const options *o) {
    char host[256] = "?", cpu[256] = "";
    gethostname(host, sizeof host);
    host[sizeof host - 1] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
                snprintf(cpu, sizeof cpu, "%s", strchr(line, ':') + 2);
                cpu[strcspn(cpu, "\n")] = '\0';
                break;
            }
        fclose(f);
    }
    struct utsname u;
    if (uname(&u)) memset(&u, 0, sizeof u);
    snprintf(meta_machine, sizeof meta_machine, "%s (%s, %s %s), %ld cores",
             host, cpu, u.sysname, u.release, sysconf(_SC_NPROCESSORS_ONLN));
    snprintf(meta_mpi, sizeof meta_mpi, "%s", papc_mpi_library());
    for (char *p = meta_mpi; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == ',') *p = ' ';
    size_t used = 0;
    for (int i = 0; i < argc && used < sizeof meta_cmd; i++) {
        int w = snprintf(meta_cmd + used, sizeof meta_cmd - used, "%s%s",
                         i ? " " : "", argv[i]);
        if (w < 0) break;
        used += (size_t)w;
    }
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(meta_date, sizeof meta_date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    native_settings(meta_settings, sizeof meta_settings, " ");
    if (o->native_only)
        snprintf(meta_profile, sizeof meta_profile, "(not used: native only)");
    else if (papc_profile_path())
        snprintf(meta_profile, sizeof meta_profile, "%s", papc_profile_path());
    else
        snprintf(meta_profile, sizeof meta_profile,
                 "(none: the model falls back to the fixed rules)");
}

static void print_meta(FILE *f, const options *o) {
    fprintf(f, "# tool: papc-select-bench\n# date: %s\n# machine: %s\n"
            "# mpi: %s\n# papcoll: %s\n# command: %s\n# platform: %s\n"
            "# P: %d\n# profile: %s\n# settings: %s\n",
            meta_date, meta_machine, meta_mpi, PAPC_VERSION_STRING, meta_cmd,
            o->platform, nprocs, meta_profile,
            meta_settings[0] ? meta_settings : "(none)");
    fprintf(f, "# sizes: bytes of one rank's block for gather and scatter, "
            "of the vector for bcast, reduce and allreduce; MPI_INT, MPI_SUM,"
            " root %d\n# method: interleaved rounds (each runs every variant "
            "once, rotating the start); barrier, each rank times its call, "
            "maximum over ranks, statistics over the rounds; budget %.3g s "
            "per cell, %d-%d rounds, %d warm-up\n", ROOT, o->budget,
            o->min_iterations, o->iterations, o->warmup);
}

static void csv_open_append(const options *o, FILE **out) {
    *out = fopen(o->csv, "a");
    if (!*out) {
        fprintf(stderr, "papc-select-bench: cannot open %s: %s\n", o->csv,
                strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, EXIT_USAGE);
    }
}

static void csv_begin(const options *o) {
    FILE *f;
    csv_open_append(o, &f);
    int empty = ftell(f) == 0;
    print_meta(f, o);
    if (empty)
        fprintf(f, "platform,coll,P,bytes,variant,algorithm,segsize,reps,"
                "median_us,mean_us,min_us,max_us,predicted_us,"
                "chosen_by_model,status\n");
    fclose(f);
}

static const char *variant_name(const variant *v, const options *o) {
    return v->kind == VK_NATIVE ? o->native_name : KIND_NAME[v->kind];
}

static const char *variant_alg(const cell *c, const variant *v) {
    if (v->kind == VK_ALG) return papc_algorithm_get(c->coll, v->alg)->name;
    return v->ran; /* model, fixed: the row; native: the probe's */
}

static void variant_status(const cell *c, const variant *v, char *buf,
                           size_t len) {
    if (v->rc != MPI_SUCCESS) {
        snprintf(buf, len, "error: %s", v->msg);
        for (char *p = buf; *p; p++) if (*p == ',' || *p == '\n') *p = ';';
    } else if (!v->agree) {
        snprintf(buf, len, "MISMATCH");
    } else if (v->kind == VK_MODEL && c->model_alg[0] &&
               strcmp(v->ran, c->model_alg)) {
        snprintf(buf, len, "ran %s but papc_explain chose %s", v->ran,
                 c->model_alg);
    } else {
        snprintf(buf, len, "ok");
    }
}

static void csv_cell(const cell *c, const options *o) {
    FILE *f;
    csv_open_append(o, &f);
    for (int i = 0; i < c->nvar; i++) {
        const variant *v = &c->var[i];
        char status[256], seg[32] = "", pred[32] = "";
        variant_status(c, v, status, sizeof status);
        if ((v->kind == VK_ALG && v->segmented) ||
            (v->kind == VK_MODEL && v->chosen && v->segsize))
            snprintf(seg, sizeof seg, "%zu", v->segsize);
        if (v->kind == VK_MODEL && v->chosen && !v->segsize) {
            const papc_algorithm_info *a =
                papc_algorithm_find(c->coll, c->model_alg);
            if (a && (a->flags & PAPC_FLAG_SEGMENTED))
                snprintf(seg, sizeof seg, "0");
        }
        if (v->predicted >= 0)
            snprintf(pred, sizeof pred, "%.3f", v->predicted * 1e6);
        fprintf(f, "%s,%s,%d,%zu,%s,%s,%s,%d,", o->platform,
                papc_collective_name(c->coll), nprocs, c->bytes,
                variant_name(v, o), variant_alg(c, v), seg, c->reps);
        if (v->median >= 0)
            fprintf(f, "%.3f,%.3f,%.3f,%.3f,", v->median * 1e6,
                    v->mean * 1e6, v->min * 1e6, v->max * 1e6);
        else
            fprintf(f, ",,,,");
        fprintf(f, "%s,%d,%s\n", pred, v->chosen, status);
    }
    fclose(f);
}

/* "binomial/8K" */
static void label(const cell *c, const variant *v, char *buf, size_t len) {
    if (v->kind != VK_ALG) {
        snprintf(buf, len, "%s", variant_alg(c, v));
        return;
    }
    const char *name = variant_alg(c, v);
    if (!v->segmented) snprintf(buf, len, "%s", name);
    else if (v->segsize && v->segsize % 1024 == 0)
        snprintf(buf, len, "%s/%zuK", name, v->segsize / 1024);
    else snprintf(buf, len, "%s/%zu", name, v->segsize);
}

static const variant *best_alg(const cell *c) {
    const variant *best = NULL;
    for (int i = 0; i < c->nvar; i++) {
        const variant *v = &c->var[i];
        if (v->kind == VK_ALG && v->median >= 0 &&
            (!best || v->median < best->median))
            best = v;
    }
    return best;
}

static const variant *find_kind(const cell *c, vkind k, int chosen_alg) {
    for (int i = 0; i < c->nvar; i++)
        if (c->var[i].kind == k && (!chosen_alg || c->var[i].chosen))
            return &c->var[i];
    return NULL;
}

static void print_slowdown(const variant *v, const variant *best) {
    if (v && v->median >= 0 && best)
        printf(" %+8.1f", 100.0 * (v->median / best->median - 1));
    else
        printf(" %8s", "-");
}

static void print_table_header(const options *o) {
    printf("# papc-select-bench: P = %d, %s; profile %s\n", nprocs,
           o->platform, meta_profile);
    printf("# MPI: %s\n# settings: %s\n", meta_mpi,
           meta_settings[0] ? meta_settings : "(none)");
    printf("# size: one rank's block for gather/scatter, the vector for "
           "bcast/reduce/allreduce (MPI_INT, MPI_SUM, root %d)\n", ROOT);
    if (o->native_only) {
        printf("# %-9s %9s %5s %12s %12s %12s\n", "coll", "bytes", "reps",
               "median_us", "mean_us", "min_us");
        return;
    }
    printf("# times: median over rounds of the slowest rank; %% = slowdown "
           "against the best algorithm variant\n");
    printf("# %-9s %9s %5s %-24s %10s %-24s %8s %8s %8s %8s\n", "coll",
           "bytes", "reps", "best", "median_us", "model choice", "model%",
           "call%", "fixed%", "native%");
}

static void print_cell(const cell *c, const options *o) {
    const char *cn = papc_collective_name(c->coll);
    if (o->native_only) {
        const variant *v = &c->var[0];
        printf("  %-9s %9zu %5d %12.1f %12.1f %12.1f  %s\n", cn, c->bytes,
               c->reps, v->median * 1e6, v->mean * 1e6, v->min * 1e6,
               v->ran);
        return;
    }
    const variant *best = best_alg(c);
    const variant *choice = find_kind(c, VK_ALG, 1);
    char bl[64] = "-", cl[64] = "(no prediction)";
    if (best) label(c, best, bl, sizeof bl);
    if (choice) label(c, choice, cl, sizeof cl);
    printf("  %-9s %9zu %5d %-24s %10.1f %-24s", cn, c->bytes, c->reps, bl,
           best ? best->median * 1e6 : -1.0, cl);
    print_slowdown(choice, best);
    print_slowdown(find_kind(c, VK_MODEL, 0), best);
    print_slowdown(find_kind(c, VK_FIXED, 0), best);
    const variant *native = find_kind(c, VK_NATIVE, 0);
    print_slowdown(native, best);
    if (native && native->ran[0]) printf("  (Open MPI: %s)", native->ran);
    printf("\n");
    if (!o->verbose) return;
    for (int i = 0; i < c->nvar; i++) {
        const variant *v = &c->var[i];
        char l[64], status[256];
        label(c, v, l, sizeof l);
        variant_status(c, v, status, sizeof status);
        printf("      %-12s %-24s %10.1f %10.1f %10.1f", variant_name(v, o),
               l, v->median * 1e6, v->mean * 1e6, v->min * 1e6);
        if (v->predicted >= 0) printf("  predicted %10.1f", v->predicted * 1e6);
        else printf("  %20s", "");
        printf("%s  %s\n", v->chosen ? " *" : "  ", status);
    }
}

/* ---- main --------------------------------------------------------------- */

/* Loads the profile on every rank; 0, or -1 when the run must stop. */
static int load_profile(const options *o) {
    if (o->native_only) return 0;
    int rc = papc_profile_load(o->profile);
    int worst = rc;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (worst == MPI_SUCCESS) return 0;
    if (rank == 0)
        fprintf(stderr, "papc-select-bench: %s%s\n",
                rc != MPI_SUCCESS ? papc_strerror(rc)
                                  : "the profile failed to load on a rank",
                o->allow_no_profile ? " (going on: --allow-no-profile)"
                                    : "\n  (tune one with papc-tune, or pass "
                                      "--allow-no-profile to time the fixed "
                                      "rules only)");
    return o->allow_no_profile ? 0 : -1;
}

static int bench_cell(papc_collective coll, size_t bytes, const options *o) {
    cell *c = xmalloc(sizeof *c);
    memset(c, 0, sizeof *c);
    c->coll = coll;
    c->bytes = bytes;
    cell_alloc(c);
    if (rank == 0) plan_variants(c, o);
    share_plan(c);
    /* plan_variants set rank 0's selection mode to "model" for
     * papc_explain: the same on every rank, and agreed now (papcoll agrees
     * the mode per communicator; a change on rank 0 alone would make its
     * next call agree while the others run theirs). */
    papc_set_selection("model");
    papc_settings_agree(MPI_COMM_WORLD);
    check_variants(c);
    time_cell(c, o);
    int failed = 0;
    if (rank == 0) {
        print_cell(c, o);
        fflush(stdout);
        if (o->csv) csv_cell(c, o);
        for (int i = 0; i < c->nvar; i++) {
            const variant *v = &c->var[i];
            if (v->rc == MPI_SUCCESS && !v->agree) failed = 1;
            if (v->kind == VK_MODEL && v->rc == MPI_SUCCESS && c->model_alg[0]
                && strcmp(v->ran, c->model_alg)) failed = 1;
        }
    }
    cell_free(c);
    free(c);
    return failed;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    options o;
    if (parse_options(argc, argv, &o)) {
        usage();
        MPI_Finalize();
        return EXIT_USAGE;
    }
    clear_forcing_environment();
    ompi_probe = (probe_take_fn)dlsym(RTLD_DEFAULT, "papc_ompi_probe_take");
    if (load_profile(&o)) {
        MPI_Finalize();
        return EXIT_USAGE;
    }
    build_meta(argc, argv, &o);
    if (rank == 0) {
        print_table_header(&o);
        fflush(stdout);
        if (o.csv) csv_begin(&o);
    }
    int failed = 0;
    for (int k = 0; k < NJUDGED; k++) {
        if (!o.colls[JUDGED[k]]) continue;
        for (int s = 0; s < o.nsizes; s++)
            failed |= bench_cell(JUDGED[k], o.sizes[s], &o);
    }
    MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return failed ? EXIT_FAIL : EXIT_OK;
}
