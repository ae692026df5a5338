/*
 * papc-tune — measures this machine's model parameters and writes the
 * profile the model-based selector reads (issue 12, items 2-3; after
 * Nuriyev & Lastovetsky 2021, "model-based-selection.md" Sect. IV-V).
 *
 *   mpirun -n PMAX papc-tune [-o FILE] [--quick] [--collectives LIST] ...
 *   testbed/run -n 8 -- papc-tune ...
 *
 * What it measures, in this order:
 *   1. γ(p), p = 2..PMAX (Sect. IV-B): on the first p ranks the root times
 *      successive non-blocking linear broadcasts (bcast basic_linear) of
 *      an 8 KiB segment separated by barriers; T(p) is the median over the
 *      calls (rounds visit every p in turn), γ(p) = T(p)/T(2) made
 *      non-decreasing (a wider fan-out never costs less; a smaller figure
 *      is noise).
 *   2. γ_op per datatype/op class: seconds per byte of MPI_Reduce_local on
 *      1 MiB (float: MPI_SUM on MPI_DOUBLE, int: MPI_SUM on MPI_INT, other:
 *      a user-defined commutative sum on MPI_INT); δ: seconds per byte of
 *      memcpy of 4 MiB; the MPI library's eager limit (MPI_T); p2p α, β from
 *      a ping-pong between ranks 0 and 1 (for rows without a fit).
 *   3. For every algorithm that is not arrival-aware (Sect. IV-C): the
 *      algorithm itself over a design of (p, m[, segment size]) points,
 *      timed as papc-classic-bench times (a warm-up call, then per
 *      repetition a barrier and each rank's own time of the call; the
 *      maximum over ranks; the median over repetitions; the algorithms of
 *      one collective interleaved); the row's cost model gives each
 *      point's coefficients of α, β, γ_op, δ, and α, β are fitted by Huber
 *      regression (papc_fit_huber, GSL).
 * Ranks outside an experiment's sub-communicator sleep between polls of a
 * non-blocking allreduce, so that on an oversubscribed machine they leave
 * the cores to the ranks being timed.
 *
 * Only rank 0 prints (a progress line per experiment on stderr) and writes
 * files.  Exit status: 0 ok, 1 a failure (profile not written, export
 * failed), 2 bad usage.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include "papcoll.h"
#include "core/core.h" /* the registry rows and their cost models */
#include "cli.h"
#include "tune_export.h"
#include "tune_arrival.h"

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

#define MAX_SIZES 16
#define MAX_SEGS 4
#define MAX_PROCS 8
#define GAMMA_SEGMENT 8192          /* bytes: the paper's m_s */
#define GATHER_TOTAL_CAP ((size_t)32 << 20) /* m·p of gather/scatter */
#define OP_BYTES ((size_t)1 << 20)  /* MPI_Reduce_local experiment */
#define COPY_BYTES ((size_t)4 << 20)
#define DEFAULT_EAGER 65536.0

/* ---- the plan: what to measure and how often ------------------------- */

typedef struct plan {
    size_t sizes[MAX_SIZES];  /* m, bytes, multiples of 8 */
    int nsizes;
    size_t segs[MAX_SEGS];    /* segment sizes of segmented rows (0 = none) */
    int nsegs;
    int procs[MAX_PROCS];     /* p of the α, β design */
    int nprocs;
    int rmin, rmax;           /* repetitions of a point */
    double point_budget;      /* seconds a point may take (sets the reps) */
    int gamma_calls, gamma_reps;
    int op_reps;              /* γ_op, δ */
    int pp_reps, pp_trips;    /* ping-pong: repetitions x round trips */
} plan;

typedef struct options {
    int help;
    int quick;
    const char *out;          /* -o */
    const char *csv;
    const char *profile_in;   /* --profile: skip the experiments */
    const char *arrival_refit; /* --arrival-refit: papc-bench files */
    const char *arrival_check; /* --arrival-check: papc-bench files */
    int arrival_anchored;      /* --arrival-form anchored */
    int arrival_per_size;      /* --arrival-per-size */
    const char *export_ompi, *export_mpich;
    int colls[PAPC_NUM_COLLECTIVES]; /* 1 = tune this collective */
    int procs[MAX_PROCS], nprocs;    /* --procs; 0 = the default design */
} options;

static int rank, world_size;
static double t_start;

/* ---- small helpers ---------------------------------------------------- */

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "papc-tune: rank %d: out of memory (%zu bytes)\n",
                rank, n);
        MPI_Abort(MPI_COMM_WORLD, EXIT_FAIL);
    }
    return p;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts t. */
static double median(double *t, int n) {
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static double elapsed(void) { return MPI_Wtime() - t_start; }

/* Every rank of MPI_COMM_WORLD meets here and learns the maximum of each
 * flags[i] over the ranks (in place).  A rank waits by sleeping between
 * tests of a non-blocking allreduce, not by spinning in a blocking call:
 * ranks outside an experiment then leave the (oversubscribed) cores to the
 * ranks being timed. */
static void world_agree(int *flags, int n) {
#ifdef PAPC_SMPI
    /* Simulated ranks that block cost no CPU: no naps (each would be one
     * more event of the simulation, thousands per simulated second). */
    MPI_Allreduce(MPI_IN_PLACE, flags, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return;
#endif
    int done = 0;
    MPI_Request req;
    MPI_Iallreduce(MPI_IN_PLACE, flags, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD,
                   &req);
    const struct timespec nap = {0, 500 * 1000};
    for (;;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done) break;
        nanosleep(&nap, NULL);
    }
}

static void world_sync(void) {
    int none = 0;
    world_agree(&none, 1);
}

/* The first p ranks of MPI_COMM_WORLD in rank order (collective over the
 * world); MPI_COMM_NULL on the others.  World rank 0 is rank 0 of each. */
static MPI_Comm first_ranks(int p) {
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, rank < p ? 0 : MPI_UNDEFINED, rank, &c);
    return c;
}

/* Sizes from lo to hi equally spaced in log scale, rounded to multiples
 * of 8 bytes (a whole number of doubles), duplicates dropped. */
static int log_sizes(size_t lo, size_t hi, int n, size_t *out) {
    int k = 0;
    for (int i = 0; i < n; i++) {
        double v = (double)lo * pow((double)hi / (double)lo,
                                    n > 1 ? (double)i / (n - 1) : 0);
        size_t s = (size_t)(v / 8 + 0.5) * 8;
        if (s < 8) s = 8;
        if (k == 0 || s != out[k - 1]) out[k++] = s;
    }
    return k;
}

static void add_proc(plan *pl, int p) {
    for (int i = 0; i < pl->nprocs; i++)
        if (pl->procs[i] == p) return;
    int i = pl->nprocs++;
    while (i > 0 && pl->procs[i - 1] > p) {
        pl->procs[i] = pl->procs[i - 1];
        i--;
    }
    pl->procs[i] = p;
}

/* The paper fits at about half the machine; the full width and (from 8 on)
 * a small p and 3/4 of the machine (not a power of two when PMAX is one:
 * the models' folds of the extra ranks) add the points that tell α from
 * the P-dependent terms. */
static void make_plan(plan *pl, const options *o) {
    memset(pl, 0, sizeof *pl);
    if (o->quick) {
        pl->nsizes = log_sizes(8, (size_t)1 << 20, 6, pl->sizes);
        pl->segs[0] = 0, pl->segs[1] = 8192, pl->nsegs = 2;
        pl->rmin = 3, pl->rmax = 9, pl->point_budget = 0.05;
        pl->gamma_calls = 20, pl->gamma_reps = 5;
        pl->op_reps = 5, pl->pp_reps = 5, pl->pp_trips = 2;
    } else {
        pl->nsizes = log_sizes(8, (size_t)4 << 20, 10, pl->sizes);
        pl->segs[0] = 0, pl->segs[1] = 8192, pl->segs[2] = 64512;
        pl->nsegs = 3;
        pl->rmin = 5, pl->rmax = 31, pl->point_budget = 0.4;
        pl->gamma_calls = 20, pl->gamma_reps = 20;
        pl->op_reps = 11, pl->pp_reps = 21, pl->pp_trips = 4;
    }
    if (o->nprocs) {
        for (int i = 0; i < o->nprocs; i++) add_proc(pl, o->procs[i]);
        return;
    }
    if (world_size >= 8 && !o->quick) {
        /* P = 2 too: below the smallest measured P the selector holds the
         * P = 4 fit, and chose basic_linear for an 8-B allreduce at P = 2
         * (2.6-3.4 us, recursive doubling 2.0 us). */
        add_proc(pl, 2);
        add_proc(pl, 4);
        add_proc(pl, world_size * 3 / 4);
    }
    add_proc(pl, world_size / 2 >= 2 ? world_size / 2 : 2);
    add_proc(pl, world_size);
}

/* ---- command line ------------------------------------------------------ */

static void usage(void) {
    if (rank != 0) return;
    fprintf(stderr,
        "usage: mpirun -n PMAX papc-tune [options]\n"
        "Measures γ(p), γ_op, δ, the eager limit, p2p α/β and every\n"
        "algorithm's own α, β (Huber fit of its cost model over measured\n"
        "times), and writes the profile papcoll's selector reads.\n"
        "  -o FILE             profile to write (default: $PAPC_PROFILE, else\n"
        "                      $XDG_CONFIG_HOME/papcoll/profile.json, else\n"
        "                      ~/.config/papcoll/profile.json)\n"
        "  --quick             few sizes and repetitions (a test, not a tune)\n"
        "  --collectives LIST  comma-separated (default gather,scatter,bcast,"
        "\n"
        "                      reduce,allreduce; gatherv, scatterv allowed)\n"
        "  --procs LIST        p of the α, β experiments (default PMAX/2 and\n"
        "                      PMAX, and 4 and 3/4 PMAX when PMAX >= 8)\n"
        "  --csv FILE          every measured point: times, the prediction\n"
        "                      after the fit, the model's terms\n"
        "  --profile FILE      load FILE instead of measuring (for the "
        "exports)\n"
        "  --export-ompi FILE  Open MPI dynamic rules file from the profile\n"
        "  --export-mpich FILE MPICH csel JSON from the profile\n"
        "  --arrival-refit LIST  with --profile IN and -o OUT: fit each row's\n"
        "                      arrival correction (e = a*(model-t0) + c*t0) from\n"
        "                      papc-bench --trace or --csv files of delayed\n"
        "                      settings (comma-separated), write IN plus the\n"
        "                      corrections to OUT (--csv: the points)\n"
        "  --arrival-form F    first (default: e = a*(model-t0) + c*t0) or\n"
        "                      anchored (e - w = a*(model-t0-w) + c*t0, w the\n"
        "                      wait no algorithm avoids; docs/arrival.md)\n"
        "  --arrival-per-size  with --arrival-refit: also one correction per\n"
        "                      size the files hold, each for the calls\n"
        "                      nearest that size (the correction for every\n"
        "                      size stays, for rows fitted at one size)\n"
        "  --arrival-check LIST  with --profile IN: per setting of the files,\n"
        "                      the row IN's corrections pick at the measured\n"
        "                      arrivals against the measured best row (--csv:\n"
        "                      every point, for scripts/learn-policy-sim.py)\n"
        "  -h, --help          this text\n");
}

static int parse_collectives(const char *list, options *o) {
    char *copy = strdup(list), *save = NULL;
    int ok = 1;
    memset(o->colls, 0, sizeof o->colls);
    for (char *t = strtok_r(copy, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        int c = papc_collective_from_name(t);
        if (c < 0) {
            if (rank == 0)
                fprintf(stderr, "papc-tune: unknown collective '%s'\n", t);
            ok = 0;
            break;
        }
        o->colls[c] = 1;
    }
    free(copy);
    return ok ? 0 : -1;
}

static int parse_procs(const char *list, options *o) {
    char *copy = strdup(list), *save = NULL;
    int ok = 1;
    o->nprocs = 0;
    for (char *t = strtok_r(copy, ",", &save); t && ok;
         t = strtok_r(NULL, ",", &save)) {
        int p;
        if (papc_cli_int(t, 2, &p) || p > world_size ||
            o->nprocs == MAX_PROCS) {
            if (rank == 0)
                fprintf(stderr, "papc-tune: bad p '%s' (2..%d, at most %d)\n",
                        t, world_size, MAX_PROCS);
            ok = 0;
        } else {
            o->procs[o->nprocs++] = p;
        }
    }
    free(copy);
    return ok && o->nprocs ? 0 : -1;
}

static int parse_options(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    for (int c = PAPC_GATHER; c <= PAPC_ALLREDUCE; c++) o->colls[c] = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            o->help = 1;
            return 0;
        }
        if (!strcmp(a, "--quick")) {
            o->quick = 1;
            continue;
        }
        if (!strcmp(a, "--arrival-per-size")) {
            o->arrival_per_size = 1;
            continue;
        }
        static const char *valued[] = {"-o", "--csv", "--profile",
            "--export-ompi", "--export-mpich", "--collectives", "--procs",
            "--arrival-refit", "--arrival-check", "--arrival-form"};
        int known = 0;
        for (size_t k = 0; k < sizeof valued / sizeof *valued; k++)
            known |= !strcmp(a, valued[k]);
        if (!known || !v) {
            if (rank == 0)
                fprintf(stderr, "papc-tune: %s '%s'\n", known ?
                        "missing value after" : "unknown option", a);
            return -1;
        }
        if (!strcmp(a, "-o")) o->out = v;
        else if (!strcmp(a, "--csv")) o->csv = v;
        else if (!strcmp(a, "--profile")) o->profile_in = v;
        else if (!strcmp(a, "--export-ompi")) o->export_ompi = v;
        else if (!strcmp(a, "--export-mpich")) o->export_mpich = v;
        else if (!strcmp(a, "--arrival-refit")) o->arrival_refit = v;
        else if (!strcmp(a, "--arrival-check")) o->arrival_check = v;
        else if (!strcmp(a, "--arrival-form")) {
            if (strcmp(v, "first") && strcmp(v, "anchored")) {
                if (rank == 0)
                    fprintf(stderr, "papc-tune: --arrival-form %s: not "
                            "'anchored' or 'first'\n", v);
                return -1;
            }
            o->arrival_anchored = !strcmp(v, "anchored");
        }
        else if (!strcmp(a, "--collectives")) {
            if (parse_collectives(v, o)) return -1;
        } else if (!strcmp(a, "--procs")) {
            if (parse_procs(v, o)) return -1;
        }
        i++;
    }
    if (o->arrival_check && !o->profile_in) {
        if (rank == 0)
            fprintf(stderr, "papc-tune: --arrival-check needs --profile IN\n");
        return -1;
    }
    if (o->arrival_per_size && !o->arrival_refit) {
        if (rank == 0)
            fprintf(stderr, "papc-tune: --arrival-per-size goes with "
                    "--arrival-refit\n");
        return -1;
    }
    if (o->arrival_refit && (!o->profile_in || !o->out)) {
        if (rank == 0)
            fprintf(stderr, "papc-tune: --arrival-refit needs --profile IN "
                    "(the balanced fit) and -o OUT\n");
        return -1;
    }
    if (!o->profile_in && world_size < 2) {
        if (rank == 0)
            fprintf(stderr, "papc-tune: needs at least 2 processes (mpirun "
                    "-n PMAX), or --profile FILE for the exports\n");
        return -1;
    }
    return 0;
}

/* ---- where the profile goes -------------------------------------------- */

/* PAPC_PROFILE, else the XDG default the library reads (papcoll.h). */
static void default_profile_path(char *buf, size_t len) {
    const char *env = getenv("PAPC_PROFILE");
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    if (env && *env) snprintf(buf, len, "%s", env);
    else if (xdg && *xdg) snprintf(buf, len, "%s/papcoll/profile.json", xdg);
    else snprintf(buf, len, "%s/.config/papcoll/profile.json",
                  home && *home ? home : ".");
}

/* mkdir -p of path's directory; 0, or -1 after saying why on stderr. */
static int make_parent_dirs(const char *path) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return 0;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(dir, 0755) && errno != EEXIST) break;
        *p = '/';
    }
    if (mkdir(dir, 0755) && errno != EEXIST) {
        fprintf(stderr, "papc-tune: %s: cannot create directory %s: %s\n",
                path, dir, strerror(errno));
        return -1;
    }
    if (access(dir, W_OK)) {
        fprintf(stderr, "papc-tune: %s: directory %s is not writable: %s\n",
                path, dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- 1. γ(p) (Sect. IV-B) ---------------------------------------------- */

/* N barrier-separated non-blocking linear broadcasts of the segment on
 * comm, each timed alone on the root, appended to t. */
static void linear_bcasts(MPI_Comm comm, int n, char *seg, double *t) {
    for (int i = 0; i < n; i++) {
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        int rc = papc_bcast_alg(seg, GAMMA_SEGMENT, MPI_BYTE, 0, comm,
                                "basic_linear");
        t[i] = MPI_Wtime() - t0;
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "papc-tune: rank %d: bcast basic_linear failed: "
                    "%s\n", rank, papc_strerror(rc));
            MPI_Abort(MPI_COMM_WORLD, EXIT_FAIL);
        }
    }
}

/* The least-squares non-decreasing sequence closest to v[0..n) (pool
 * adjacent violators), in place: a wider fan-out never costs less, and one
 * noisy p must not lift every larger p as a running maximum would. */
static void make_nondecreasing(double *v, int n) {
    double *mean = xmalloc((size_t)n * sizeof *mean);
    int *len = xmalloc((size_t)n * sizeof *len), k = 0;
    for (int i = 0; i < n; i++) {
        mean[k] = v[i], len[k] = 1, k++;
        while (k > 1 && mean[k - 2] > mean[k - 1]) {
            int l = len[k - 2] + len[k - 1];
            mean[k - 2] = (mean[k - 2] * len[k - 2] +
                           mean[k - 1] * len[k - 1]) / l;
            len[k - 2] = l;
            k--;
        }
    }
    for (int b = 0, i = 0; b < k; b++)
        for (int j = 0; j < len[b]; j++) v[i++] = mean[b];
    free(mean), free(len);
}

/* T(p) is the median over all calls, not the mean of N: one descheduled
 * receiver on an oversubscribed machine costs a call milliseconds.  The
 * rounds visit every p in turn, so a change of the machine's load while
 * γ is measured falls on every p alike, not on the larger ones only. */
static void measure_gamma(const plan *pl, papc_gamma *g) {
    double t0 = elapsed();
    int pmax = world_size < PAPC_GAMMA_MAX ? world_size : PAPC_GAMMA_MAX;
    int n = pl->gamma_calls, total = pl->gamma_reps * n;
    double T[PAPC_GAMMA_MAX + 1] = {0}, *t[PAPC_GAMMA_MAX + 1] = {0};
    MPI_Comm comm[PAPC_GAMMA_MAX + 1];
    char *seg = xmalloc(GAMMA_SEGMENT);
    memset(seg, 1, GAMMA_SEGMENT);
    for (int p = 2; p <= pmax; p++) {
        comm[p] = first_ranks(p);
        t[p] = xmalloc((size_t)total * sizeof *t[p]);
        if (comm[p] != MPI_COMM_NULL) /* warm-up, papcoll's duplicate */
            linear_bcasts(comm[p], 1, seg, t[p]);
    }
    for (int r = 0; r < pl->gamma_reps; r++)
        for (int p = 2; p <= pmax; p++) {
            if (comm[p] != MPI_COMM_NULL)
                linear_bcasts(comm[p], n, seg, t[p] + r * n);
            world_sync();
        }
    for (int p = 2; p <= pmax; p++) {
        if (comm[p] != MPI_COMM_NULL) {
            T[p] = median(t[p], total);
            MPI_Comm_free(&comm[p]);
        }
        free(t[p]);
    }
    free(seg);
    memset(g, 0, sizeof *g);
    g->n = pmax;
    if (rank == 0) {
        double raw[PAPC_GAMMA_MAX + 1] = {0};
        for (int p = 2; p <= pmax; p++) raw[p] = T[p] / T[2];
        memcpy(g->g, raw, sizeof raw);
        make_nondecreasing(g->g + 2, pmax - 1);
        /* γ(2) = 1 by definition, also when p = 2 was pooled with p = 3 */
        double g2 = g->g[2];
        for (int p = 2; p <= pmax; p++) g->g[p] /= g2;
        fprintf(stderr, "[gamma] T(2) = %.3g s; gamma(p), p = 2..%d:", T[2],
                pmax);
        for (int p = 2; p <= pmax; p++) fprintf(stderr, " %.2f", g->g[p]);
        fprintf(stderr, " (raw:");
        for (int p = 3; p <= pmax; p++) fprintf(stderr, " %.2f", raw[p]);
        fprintf(stderr, "; %.0f s)\n", elapsed() - t0);
    }
}

/* ---- 2. γ_op, δ, eager limit, p2p ------------------------------------- */

static void user_int_sum(void *in, void *inout, int *len, MPI_Datatype *t) {
    (void)t;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; i++) b[i] += a[i];
}

/* Seconds per byte of MPI_Reduce_local over OP_BYTES, median of reps. */
static double reduce_local_cost(MPI_Datatype t, MPI_Op op, int reps) {
    int size;
    MPI_Type_size(t, &size);
    int count = (int)(OP_BYTES / (size_t)size);
    char *in = xmalloc(OP_BYTES), *inout = xmalloc(OP_BYTES);
    if (t == MPI_DOUBLE)
        for (int i = 0; i < count; i++)
            ((double *)in)[i] = 1.0, ((double *)inout)[i] = 0.5;
    else
        for (int i = 0; i < count; i++)
            ((int *)in)[i] = 1, ((int *)inout)[i] = i;
    double *s = xmalloc((size_t)reps * sizeof *s);
    MPI_Reduce_local(in, inout, count, t, op); /* warm-up: pages, caches */
    for (int r = 0; r < reps; r++) {
        double t0 = MPI_Wtime();
        MPI_Reduce_local(in, inout, count, t, op);
        s[r] = MPI_Wtime() - t0;
    }
    double m = median(s, reps) / (double)OP_BYTES;
    free(in), free(inout), free(s);
    return m;
}

static volatile char copy_sink;

static double copy_cost(int reps) {
    char *src = xmalloc(COPY_BYTES), *dst = xmalloc(COPY_BYTES);
    memset(src, 3, COPY_BYTES);
    memset(dst, 0, COPY_BYTES);
    double *s = xmalloc((size_t)reps * sizeof *s);
    for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
        double t0 = MPI_Wtime();
        memcpy(dst, src, COPY_BYTES);
        double dt = MPI_Wtime() - t0;
        copy_sink = dst[(size_t)(r + 1) * 4099 % COPY_BYTES];
        if (r >= 0) s[r] = dt;
    }
    double m = median(s, reps) / (double)COPY_BYTES;
    free(src), free(dst), free(s);
    return m;
}

/* Rank 0 measures while the others sleep in world_sync. */
static void measure_local_costs(const plan *pl, papc_profile *prof) {
    double t0 = elapsed();
    if (rank == 0) {
        MPI_Op user;
        MPI_Op_create(user_int_sum, 1, &user);
        prof->gamma_op[PAPC_OPCLASS_FLOAT] =
            reduce_local_cost(MPI_DOUBLE, MPI_SUM, pl->op_reps);
        prof->gamma_op[PAPC_OPCLASS_INT] =
            reduce_local_cost(MPI_INT, MPI_SUM, pl->op_reps);
        prof->gamma_op[PAPC_OPCLASS_OTHER] =
            reduce_local_cost(MPI_INT, user, pl->op_reps);
        MPI_Op_free(&user);
        prof->copy = copy_cost(pl->op_reps);
        fprintf(stderr, "[gamma_op] float %.3g int %.3g other %.3g s/B; "
                "copy %.3g s/B (%.0f s)\n", prof->gamma_op[0],
                prof->gamma_op[1], prof->gamma_op[2], prof->copy,
                elapsed() - t0);
    }
    world_sync();
}

#ifdef PAPC_SMPI
/* SimGrid SMPI has no MPI_T; its eager limit is smpi/send-is-detached-thresh
 * (65536 by default; sim/run keeps the default). */
static double detect_eager(char *src, size_t len) {
    snprintf(src, len, "SMPI smpi/send-is-detached-thresh default");
    return 65536;
}
#else
/* An MPI_T control variable: an integer as a double, or a string. */
static int cvar_read(const char *name, double *num, char *str, size_t len) {
    int idx, verbosity, bind, scope, count;
    if (MPI_T_cvar_get_index(name, &idx) != MPI_SUCCESS) return -1;
    char vname[256], desc[16];
    int nlen = sizeof vname, dlen = sizeof desc;
    MPI_Datatype dt;
    MPI_T_enum en;
    if (MPI_T_cvar_get_info(idx, vname, &nlen, &verbosity, &dt, &en, desc,
                            &dlen, &bind, &scope) != MPI_SUCCESS ||
        bind != MPI_T_BIND_NO_OBJECT)
        return -1;
    MPI_T_cvar_handle h;
    if (MPI_T_cvar_handle_alloc(idx, NULL, &h, &count) != MPI_SUCCESS)
        return -1;
    int rc = -1;
    if (dt == MPI_CHAR && str) {
        char *buf = xmalloc((size_t)count + 1);
        memset(buf, 0, (size_t)count + 1);
        if (MPI_T_cvar_read(h, buf) == MPI_SUCCESS) {
            snprintf(str, len, "%s", buf);
            rc = 0;
        }
        free(buf);
    } else if (count == 1 && num) {
        union { int i; unsigned u; long l; unsigned long ul; long long ll;
                unsigned long long ull; char pad[64]; } v;
        memset(&v, 0, sizeof v);
        if (MPI_T_cvar_read(h, &v) == MPI_SUCCESS) {
            rc = 0;
            if (dt == MPI_INT) *num = v.i;
            else if (dt == MPI_UNSIGNED) *num = v.u;
            else if (dt == MPI_LONG) *num = (double)v.l;
            else if (dt == MPI_UNSIGNED_LONG) *num = (double)v.ul;
            else if (dt == MPI_LONG_LONG) *num = (double)v.ll;
            else if (dt == MPI_UNSIGNED_LONG_LONG) *num = (double)v.ull;
            else if (dt == MPI_COUNT) *num = (double)v.ll;
            else rc = -1;
        }
    }
    MPI_T_cvar_handle_free(&h);
    return rc;
}

/* 1 when an Open MPI component list ("tcp,self", "^vader", "") admits
 * component c. */
static int admits(const char *list, const char *c) {
    if (!list[0]) return 1;
    int excluded = list[0] == '^';
    return excluded ? !strstr(list, c) : strstr(list, c) != NULL;
}

/* The eager limit of the transport the ranks talk through: shared memory
 * (Open MPI vader) when every rank is on this node and vader is admitted,
 * else TCP; MPICH's CH3 limit; else 64 KiB.  src names the source. */
static double detect_eager(char *src, size_t len) {
    int provided, local;
    double v = 0;
    char btl[256] = "";
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank,
                        MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
    int one_node = local == world_size, all_one = 0;
    MPI_Allreduce(&one_node, &all_one, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        snprintf(src, len, "default (MPI_T unavailable)");
        return DEFAULT_EAGER;
    }
    cvar_read("btl", NULL, btl, sizeof btl);
    static const char *names[] = {"btl_vader_eager_limit",
                                  "btl_tcp_eager_limit",
                                  "MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE",
                                  "CH3_EAGER_MAX_MSG_SIZE"};
    double eager = DEFAULT_EAGER;
    snprintf(src, len, "default (no eager-limit control variable)");
    for (int i = 0; i < 4; i++) {
        if (i == 0 && (!all_one || !admits(btl, "vader"))) continue;
        if (cvar_read(names[i], &v, NULL, 0) == 0 && v > 0) {
            eager = v;
            snprintf(src, len, "%s", names[i]);
            break;
        }
    }
    MPI_T_finalize();
    return eager;
}
#endif /* PAPC_SMPI */

/* Repetitions of a point whose warm-up took warm seconds: as many as its
 * share of the budget allows, within [rmin, rmax]. */
static int repetitions(const plan *pl, double warm) {
    double fit = warm > 0 ? pl->point_budget / warm : pl->rmax;
    return fit < pl->rmin ? pl->rmin : fit > pl->rmax ? pl->rmax : (int)fit;
}

/* pp_trips round trips of m bytes between ranks 0 and 1: this rank's
 * time of one way. */
static double round_trips(const plan *pl, char *buf, size_t m) {
    int peer = 1 - rank, n = (int)m;
    double t0 = MPI_Wtime();
    for (int k = 0; k < pl->pp_trips; k++) {
        if (rank == 0) {
            MPI_Send(buf, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
            MPI_Recv(buf, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(buf, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t0) / (2.0 * pl->pp_trips);
}

/* One-way time of an m-byte message between ranks 0 and 1: half a round
 * trip, averaged over pp_trips, median of repetitions (as many as the
 * point budget allows after a warm-up, within [rmin, pp_reps]; the two
 * ranks take the larger of their counts). */
static double pingpong(const plan *pl, char *buf, size_t m) {
    double warm = round_trips(pl, buf, m) * 2 * pl->pp_trips;
    int mine = repetitions(pl, warm), reps;
    if (mine > pl->pp_reps) mine = pl->pp_reps;
    MPI_Sendrecv(&mine, 1, MPI_INT, 1 - rank, 8, &reps, 1, MPI_INT,
                 1 - rank, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (mine > reps) reps = mine;
    double *t = xmalloc((size_t)reps * sizeof *t);
    for (int r = 0; r < reps; r++) t[r] = round_trips(pl, buf, m);
    double med = median(t, reps);
    free(t);
    return med;
}

static void measure_p2p(const plan *pl, papc_profile *prof) {
    double t0 = elapsed();
    if (rank < 2) {
        size_t maxm = pl->sizes[pl->nsizes - 1];
        char *buf = xmalloc(maxm);
        memset(buf, 5, maxm);
        papc_terms x[MAX_SIZES];
        double t[MAX_SIZES];
        for (int i = 0; i < pl->nsizes; i++) {
            t[i] = pingpong(pl, buf, pl->sizes[i]);
            x[i] = papc_msg((double)pl->sizes[i]);
        }
        free(buf);
        double sigma = 0, rel = 0;
        if (rank == 0) {
            if (papc_fit_huber(pl->nsizes, x, t, 0, 0, &prof->p2p, &sigma,
                               &rel))
                fprintf(stderr, "[p2p] fit failed; alpha, beta left 0\n");
            else
                fprintf(stderr, "[p2p] alpha %.3g s beta %.3g s/B, rel %.1f "
                        "%% (%.0f s)\n", prof->p2p.alpha, prof->p2p.beta,
                        100 * rel, elapsed() - t0);
        }
    }
    world_sync();
}

/* ---- 3. algorithm experiments (Sect. IV-C) ----------------------------- */

typedef struct point {
    int p;
    size_t m, seg;
    int reps;
    double median, mean, min, max; /* seconds, max over ranks per rep */
    papc_terms x;                   /* the row's model at (p, m, seg) */
    double predicted;               /* after the fit */
} point;

/* Buffers reused by every point: grown, never shrunk, filled outside the
 * timed calls (first touch costs page faults). */
static double *sbuf, *rbuf;
static size_t sbuf_len, rbuf_len; /* bytes */
static int *vcounts, *vdispls;    /* gatherv/scatterv */

static void grow(double **buf, size_t *len, size_t need, double fill) {
    if (need <= *len) return;
    free(*buf);
    *buf = xmalloc(need);
    for (size_t i = 0; i < need / sizeof(double); i++) (*buf)[i] = fill;
    *len = need;
}

static int is_reduction(papc_collective c) {
    return c == PAPC_REDUCE || c == PAPC_ALLREDUCE;
}

/* Sizes buffers and (v-collectives) counts for a call of m bytes on p
 * ranks; returns this rank's element count. */
static int prepare_call(papc_collective coll, int p, int me, size_t m) {
    size_t n = m / sizeof(double);
    size_t snd = n, rcv = n;
    if (coll == PAPC_GATHER && me == 0) rcv = n * (size_t)p;
    if (coll == PAPC_SCATTER && me == 0) snd = n * (size_t)p;
    if (coll == PAPC_GATHERV || coll == PAPC_SCATTERV) {
        /* m is the total: equal blocks, the remainder on the first ranks */
        for (int r = 0, d = 0; r < p; r++) {
            vcounts[r] = (int)(n / (size_t)p) + (r < (int)(n % (size_t)p));
            vdispls[r] = d;
            d += vcounts[r];
        }
        int mine = vcounts[me];
        snd = coll == PAPC_SCATTERV && me == 0 ? n : (size_t)mine;
        rcv = coll == PAPC_GATHERV && me == 0 ? n : (size_t)mine;
        n = (size_t)mine;
    }
    grow(&sbuf, &sbuf_len, snd * sizeof(double), 1.0);
    grow(&rbuf, &rbuf_len, rcv * sizeof(double), 0.0);
    return (int)n;
}

static int run_call(papc_collective coll, const char *alg, MPI_Comm comm,
                    int n) {
    MPI_Datatype d = MPI_DOUBLE;
    switch (coll) {
    case PAPC_GATHER:
        return papc_gather_alg(sbuf, n, d, rbuf, n, d, 0, comm, alg);
    case PAPC_SCATTER:
        return papc_scatter_alg(sbuf, n, d, rbuf, n, d, 0, comm, alg);
    case PAPC_BCAST:
        return papc_bcast_alg(rbuf, n, d, 0, comm, alg);
    case PAPC_REDUCE:
        return papc_reduce_alg(sbuf, rbuf, n, d, MPI_SUM, 0, comm, alg);
    case PAPC_ALLREDUCE:
        return papc_allreduce_alg(sbuf, rbuf, n, d, MPI_SUM, comm, alg);
    case PAPC_GATHERV:
        return papc_gatherv_alg(sbuf, n, d, rbuf, vcounts, vdispls, d, 0,
                                comm, alg);
    case PAPC_SCATTERV:
        return papc_scatterv_alg(sbuf, vcounts, vdispls, d, rbuf, n, d, 0,
                                 comm, alg);
    default:
        return MPI_ERR_ARG;
    }
}

/* PAPC_SEGSIZE on this rank, read by the library at every call.  papcoll
 * agrees it per communicator, at the first call on comm after it changed
 * since comm's last agreement -- inside the timed call: agree it here
 * instead, when comm last agreed another size.  Kept per communicator
 * (an attribute), since ranks outside a smaller comm do not follow its
 * changes; every rank of comm takes the same points, so the same steps. */
static int seg_keyval = MPI_KEYVAL_INVALID;

static void set_segsize(size_t seg, MPI_Comm comm) {
    static size_t current = (size_t)-1;
    if (seg != current) {
        char v[32];
        snprintf(v, sizeof v, "%zu", seg);
        setenv("PAPC_SEGSIZE", v, 1);
        current = seg;
    }
    if (seg_keyval == MPI_KEYVAL_INVALID)
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
                               MPI_COMM_NULL_DELETE_FN, &seg_keyval, NULL);
    void *agreed = NULL;
    int found = 0;
    MPI_Comm_get_attr(comm, seg_keyval, &agreed, &found);
    if (found && (uintptr_t)agreed == (uintptr_t)seg + 1) return;
    papc_settings_agree(comm);
    MPI_Comm_set_attr(comm, seg_keyval, (void *)((uintptr_t)seg + 1));
}

/* One call of point pt on comm after a barrier: this rank's time; the
 * call's error in *rc. */
static double timed_call(const papc_alg_desc *row, MPI_Comm comm, int me,
                         const point *pt, int *rc) {
#ifdef PAPC_SMPI
    /* Under SMPI all simulated ranks share one environment: change
     * PAPC_SEGSIZE only once every rank of comm is done with the last call
     * (else a fast root reset it before a slow rank had read it). */
    MPI_Barrier(comm);
#endif
    set_segsize(pt->seg, comm);
    int n = prepare_call(row->info.collective, pt->p, me, pt->m);
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    *rc = run_call(row->info.collective, row->info.name, comm, n);
    return MPI_Wtime() - t0;
}

/* Points of one row at p: every size (gather/scatter: m·p capped), and
 * for segmented rows every segment size that cuts m (a segment of at least
 * m is the unsegmented point again). */
static int design_points(const papc_alg_desc *row, const plan *pl, int p,
                         point *out) {
    papc_collective coll = row->info.collective;
    int segmented = (row->info.flags & PAPC_FLAG_SEGMENTED) != 0;
    int k = 0;
    for (int i = 0; i < pl->nsizes; i++) {
        size_t m = pl->sizes[i];
        if ((coll == PAPC_GATHER || coll == PAPC_SCATTER) &&
            m * (size_t)p > GATHER_TOTAL_CAP)
            continue;
        for (int s = 0; s < (segmented ? pl->nsegs : 1); s++) {
            size_t seg = segmented ? pl->segs[s] : 0;
            if (seg && seg >= m) continue;
            memset(&out[k], 0, sizeof out[k]);
            out[k].p = p, out[k].m = m, out[k].seg = seg;
            k++;
        }
    }
    return k;
}

/* One algorithm of the collective being tuned. */
typedef struct alg_run {
    const papc_alg_desc *row;
    point *pts;       /* its points so far (medians on rank 0) */
    int n;
    int failed;       /* a warm-up call failed: agreed on every rank */
    char why[256];    /* rank 0: the error, when rank 0 saw it */
    double busy;      /* rank 0: seconds its timed calls took (slowest rank) */
} alg_run;

/* One point of one algorithm in a block's rounds. */
typedef struct item {
    alg_run *a;
    point *pt;
    int reps;
} item;

/* Size-major, then the table's order, then the segment size: the calls of
 * every algorithm at one size follow each other. */
static int cmp_item(const void *x, const void *y) {
    const item *a = x, *b = y;
    if (a->pt->m != b->pt->m) return a->pt->m < b->pt->m ? -1 : 1;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return (a->pt->seg > b->pt->seg) - (a->pt->seg < b->pt->seg);
}

/* Warm-up call of every item; an algorithm whose call fails (on any rank
 * of comm: agreed per call) is marked failed and not called again. */
static void warm_up(item *it, int k, MPI_Comm comm, int me, const plan *pl) {
    for (int j = 0; j < k; j++) {
        alg_run *a = it[j].a;
        if (a->failed) continue;
        int rc;
        double warm[2], agreed[2];
        warm[0] = timed_call(a->row, comm, me, it[j].pt, &rc);
        warm[1] = rc != MPI_SUCCESS;
        if (rc != MPI_SUCCESS)
            snprintf(a->why, sizeof a->why, "%zu B: %s", it[j].pt->m,
                     papc_strerror(rc));
        MPI_Allreduce(warm, agreed, 2, MPI_DOUBLE, MPI_MAX, comm);
        if (agreed[1] != 0) {
            if (rc == MPI_SUCCESS)
                snprintf(a->why, sizeof a->why, "%zu B: failed on another "
                         "rank", it[j].pt->m);
            a->failed = 1;
        }
        it[j].reps = repetitions(pl, agreed[0]);
    }
}

/* Times every algorithm of one collective at one p on comm, in
 * papc-classic-bench's way: a barrier before every call, each rank's own
 * time of its call, per repetition the maximum over ranks (gathered after
 * the loop: no collective sits between timed calls), per point the
 * median.  A warm-up call per point sets its repetitions from its time;
 * then rounds visit every point of every algorithm in turn, as
 * papc-classic-bench interleaves its two sides: a change of the machine's
 * load (other jobs) falls on all algorithms and sizes alike, and what the
 * selector compares (algorithms at one size) is measured under the same
 * conditions.  Each run's new points are appended to its pts (measured
 * on comm's rank 0). */
static void measure_block(alg_run *runs, int nr, MPI_Comm comm,
                          const plan *pl, int p) {
    int me, k = 0, cap = nr * pl->nsizes * pl->nsegs, maxreps = 0;
    MPI_Comm_rank(comm, &me);
    item *it = xmalloc((size_t)cap * sizeof *it);
    for (int r = 0; r < nr; r++) {
        if (runs[r].failed) continue;
        int added = design_points(runs[r].row, pl, p, runs[r].pts + runs[r].n);
        for (int j = 0; j < added; j++)
            it[k++] = (item){&runs[r], runs[r].pts + runs[r].n + j, 0};
        runs[r].n += added;
    }
    qsort(it, (size_t)k, sizeof *it, cmp_item);
    warm_up(it, k, comm, me, pl);
    for (int j = 0; j < k; j++)
        if (it[j].reps > maxreps) maxreps = it[j].reps;
    size_t cells = (size_t)k * (size_t)pl->rmax;
    double *t = xmalloc(cells * sizeof *t), *tmax = xmalloc(cells * sizeof *t);
    memset(t, 0, cells * sizeof *t);
    for (int r = 0; r < maxreps; r++) {
        /* Each round starts at another point: the first calls after the
         * previous round's largest messages run cold (with every round
         * starting at 8 B, the 8-B point was timed 2-5 x the 32-B one in
         * 26 of 88 rows), and the median then drops the cold rounds. */
        int start = (int)((long)r * k / maxreps);
        for (int jj = 0; jj < k; jj++) {
            int j = (start + jj) % k;
            if (it[j].a->failed || r >= it[j].reps) continue;
            int rc;
            t[(size_t)j * pl->rmax + r] =
                timed_call(it[j].a->row, comm, me, it[j].pt, &rc);
            if (rc != MPI_SUCCESS) {
                fprintf(stderr, "papc-tune: rank %d: %s %s failed while "
                        "timing: %s\n", rank,
                        papc_collective_name(it[j].a->row->info.collective),
                        it[j].a->row->info.name, papc_strerror(rc));
                MPI_Abort(MPI_COMM_WORLD, EXIT_FAIL);
            }
        }
    }
    MPI_Reduce(t, tmax, (int)cells, MPI_DOUBLE, MPI_MAX, 0, comm);
    for (int j = 0; me == 0 && j < k; j++) {
        if (it[j].a->failed) continue;
        double *v = tmax + (size_t)j * pl->rmax, sum = 0;
        point *pt = it[j].pt;
        for (int r = 0; r < it[j].reps; r++) sum += v[r];
        pt->reps = it[j].reps;
        pt->mean = sum / it[j].reps;
        pt->median = median(v, it[j].reps); /* sorts v */
        pt->min = v[0];
        pt->max = v[it[j].reps - 1];
        it[j].a->busy += sum;
    }
    free(it), free(t), free(tmax);
}

typedef struct tuner {
    const plan *pl;
    MPI_Comm *comms;          /* first pl->procs[i] ranks */
    papc_profile *prof;       /* rank 0: parameters so far, rows appended */
    FILE *csv;                /* rank 0, may be NULL */
    int done, total;          /* progress */
    int fitted, skipped;
} tuner;

static void write_csv_rows(FILE *f, const papc_alg_desc *row, const point *pts,
                           int n) {
    if (!f) return;
    for (int i = 0; i < n; i++)
        fprintf(f, "%s,%s,%d,%zu,%zu,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,"
                "%.9g,%.9g\n",
                papc_collective_name(row->info.collective), row->info.name,
                pts[i].p, pts[i].m, pts[i].seg, pts[i].reps, pts[i].median,
                pts[i].mean, pts[i].min, pts[i].max, pts[i].predicted,
                pts[i].x.alpha, pts[i].x.beta, pts[i].x.gamma_op,
                pts[i].x.copy);
    fflush(f);
}

/* Does point pt belong to the fit of segment size seg (-1: every segment
 * size)?  A segment of at least m is the whole message: those points are
 * the unsegmented ones, measured once. */
static int fits_seg(const point *pt, double seg) {
    if (seg < 0 || (double)pt->seg == seg) return 1;
    return pt->seg == 0 && (double)pt->m <= seg;
}

/* Fits the points of p (and of segment size seg, -1: all) and adds the
 * profile entry; the points it alone serves get its prediction.  0 when
 * added. */
static int fit_subset(tuner *tu, const char *coll, const papc_alg_desc *row,
                      point *pts, const papc_terms *x, const double *t,
                      int n, double gop, int p, double seg) {
    papc_profile *prof = tu->prof;
    papc_terms *xs = xmalloc((size_t)n * sizeof *xs);
    double *ts = xmalloc((size_t)n * sizeof *ts);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (pts[i].p == p && fits_seg(&pts[i], seg)) xs[k] = x[i], ts[k++] = t[i];
    papc_params ab;
    double sigma = 0, rel = 0;
    int bad = k < 3 || prof->nalgs >= PAPC_PROFILE_MAX_ALGS ||
              papc_fit_huber(k, xs, ts, gop, prof->copy, &ab, &sigma, &rel);
    free(xs), free(ts);
    if (bad) return -1;
    papc_profile_alg *a = &prof->algs[prof->nalgs++];
    snprintf(a->collective, sizeof a->collective, "%s", coll);
    snprintf(a->name, sizeof a->name, "%s", row->info.name);
    a->p = p, a->ab = ab, a->sigma = sigma, a->rel = rel, a->points = k;
    a->per_seg = seg >= 0, a->segsize = seg >= 0 ? seg : 0;
    for (int i = 0; i < n; i++)
        if (pts[i].p == p && (seg < 0 || (double)pts[i].seg == seg))
            pts[i].predicted = papc_model_time(x[i], ab, gop, prof->copy);
    fprintf(stderr, seg < 0 ? " %d:%.0f%%" : " %d/%.0f:%.0f%%", p,
            seg < 0 ? 100 * rel : seg, 100 * rel);
    return 0;
}

/* The paper's remedy (Sect. VI) where one α, β cannot serve every P: a
 * fit per measured P, used by the selector between the two nearest.  On an
 * oversubscribed machine the time grows with P faster than any model of
 * the network can say (16 ranks share 2 cores): one pair over P = 4..16
 * missed by a median of +158 % at P = 4 and -48 % at 16.  Segmented rows
 * also get a fit per (P, segment size): the paper fixes one segment size
 * per algorithm, so each (algorithm, segment size) is an algorithm of its
 * own; one pair over all three sizes missed chain/63K at 4 MiB, P = 4, by
 * -43 % on shared memory (each segment costs more than a network α there)
 * and the selector chose it over basic_linear, 54 % slower. */
static void fit_row_per_p(tuner *tu, const char *coll,
                          const papc_alg_desc *row, point *pts,
                          const papc_terms *x, const double *t, int n,
                          double gop) {
    int segmented = (row->info.flags & PAPC_FLAG_SEGMENTED) != 0;
    for (int q = 0; q < tu->pl->nprocs; q++) {
        int p = tu->pl->procs[q];
        fit_subset(tu, coll, row, pts, x, t, n, gop, p, -1);
        for (int s = 0; segmented && s < tu->pl->nsegs; s++)
            fit_subset(tu, coll, row, pts, x, t, n, gop, p,
                       (double)tu->pl->segs[s]);
    }
}

/* Rank 0: the row's model at every point, the Huber fit, the prediction
 * per point, the profile entry and the progress line (busy: seconds the
 * row's calls took). */
static void fit_row(tuner *tu, const papc_alg_desc *row, point *pts, int n,
                    double busy) {
    papc_profile *prof = tu->prof;
    const char *coll = papc_collective_name(row->info.collective);
    papc_terms *x = xmalloc((size_t)n * sizeof *x);
    double *t = xmalloc((size_t)n * sizeof *t);
    double gop = is_reduction(row->info.collective)
                     ? prof->gamma_op[PAPC_OPCLASS_FLOAT] : 0;
    for (int i = 0; i < n; i++) {
        papc_model_in in = {pts[i].p, (double)pts[i].m, (double)pts[i].seg,
                            prof->eager, 1, &prof->gamma};
        pts[i].x = x[i] = row->model(&in);
        t[i] = pts[i].median;
    }
    papc_params ab = {0, 0, 0, 0};
    double sigma = 0, rel = 0;
    if (papc_fit_huber(n, x, t, gop, prof->copy, &ab, &sigma, &rel)) {
        fprintf(stderr, "[%d/%d] %s %s: %d points, fit failed (degenerate "
                "system), not in the profile, %.0f s\n", tu->done, tu->total,
                coll, row->info.name, n, busy);
        for (int i = 0; i < n; i++) pts[i].predicted = NAN;
        tu->skipped++;
    } else {
        for (int i = 0; i < n; i++)
            pts[i].predicted = papc_model_time(x[i], ab, gop, prof->copy);
        if (prof->nalgs < PAPC_PROFILE_MAX_ALGS) {
            papc_profile_alg *a = &prof->algs[prof->nalgs++];
            snprintf(a->collective, sizeof a->collective, "%s", coll);
            snprintf(a->name, sizeof a->name, "%s", row->info.name);
            a->ab = ab, a->sigma = sigma, a->rel = rel, a->points = n;
        }
        tu->fitted++;
        fprintf(stderr, "[%d/%d] %s %s: %d points, alpha %.2g beta %.2g, "
                "rel %.1f %%; per P rel", tu->done, tu->total, coll,
                row->info.name, n, ab.alpha, ab.beta, 100 * rel);
        fit_row_per_p(tu, coll, row, pts, x, t, n, gop);
        fprintf(stderr, ", %.0f s\n", busy);
    }
    write_csv_rows(tu->csv, row, pts, n);
    free(x), free(t);
}

static int selected(const papc_alg_desc *row, const options *o) {
    return o->colls[row->info.collective] &&
           !(row->info.flags & PAPC_FLAG_ARRIVAL_AWARE);
}

/* Every algorithm of coll that is not arrival-aware: the rows without a
 * cost model are reported and skipped, the others measured together over
 * the design (measure_block), then fitted one by one on rank 0. */
static void tune_collective(tuner *tu, papc_collective coll,
                            const options *o) {
    const plan *pl = tu->pl;
    int nrows = papc_registry_count(coll), nr = 0;
    alg_run *runs = xmalloc((size_t)(nrows ? nrows : 1) * sizeof *runs);
    int cap = pl->nprocs * pl->nsizes * pl->nsegs;
    for (int i = 0; i < nrows; i++) {
        const papc_alg_desc *row = papc_registry_row(coll, i);
        if (!selected(row, o)) continue;
        if (!row->model) { /* the same on every rank */
            tu->done++, tu->skipped++;
            if (rank == 0)
                fprintf(stderr, "[%d/%d] %s %s: skipped, no cost model yet\n",
                        tu->done, tu->total, papc_collective_name(coll),
                        row->info.name);
            continue;
        }
        memset(&runs[nr], 0, sizeof runs[nr]);
        runs[nr].row = row;
        runs[nr].pts = xmalloc((size_t)cap * sizeof *runs[nr].pts);
        nr++;
    }
    int *failed = xmalloc((size_t)(nr ? nr : 1) * sizeof *failed);
    double t0 = elapsed();
    for (int i = 0; i < pl->nprocs && nr; i++) {
        if (tu->comms[i] != MPI_COMM_NULL)
            measure_block(runs, nr, tu->comms[i], pl, pl->procs[i]);
        for (int r = 0; r < nr; r++) failed[r] = runs[r].failed;
        world_agree(failed, nr); /* ranks outside comm learn it too */
        for (int r = 0; r < nr; r++) runs[r].failed = failed[r];
    }
    if (rank == 0 && nr) {
        int points = 0;
        for (int r = 0; r < nr; r++) points += runs[r].n;
        fprintf(stderr, "[%s] %d algorithms, %d points measured in %.0f s\n",
                papc_collective_name(coll), nr, points, elapsed() - t0);
    }
    for (int r = 0; r < nr; r++) {
        tu->done++;
        if (rank == 0 && runs[r].failed) {
            fprintf(stderr, "[%d/%d] %s %s: skipped, the call failed: %s\n",
                    tu->done, tu->total, papc_collective_name(coll),
                    runs[r].row->info.name,
                    runs[r].why[0] ? runs[r].why : "on another rank");
            tu->skipped++;
        } else if (rank == 0) {
            fit_row(tu, runs[r].row, runs[r].pts, runs[r].n, runs[r].busy);
        }
        free(runs[r].pts);
    }
    free(runs), free(failed);
}

static void tune_algorithms(const options *o, const plan *pl,
                            papc_profile *prof, FILE *csv) {
    tuner tu = {pl, NULL, prof, csv, 0, 0, 0, 0};
    for (int c = 0; c < PAPC_NUM_COLLECTIVES; c++)
        for (int i = 0; i < papc_registry_count((papc_collective)c); i++)
            tu.total += selected(papc_registry_row((papc_collective)c, i), o);
    tu.comms = xmalloc((size_t)pl->nprocs * sizeof *tu.comms);
    vcounts = xmalloc((size_t)world_size * sizeof *vcounts);
    vdispls = xmalloc((size_t)world_size * sizeof *vdispls);
    for (int i = 0; i < pl->nprocs; i++) {
        char byte = 0;
        tu.comms[i] = first_ranks(pl->procs[i]);
        if (tu.comms[i] != MPI_COMM_NULL) /* papcoll's private duplicate */
            papc_bcast_alg(&byte, 1, MPI_CHAR, 0, tu.comms[i],
                           "basic_linear");
        world_sync();
    }
    for (int c = 0; c < PAPC_NUM_COLLECTIVES; c++)
        if (o->colls[c]) tune_collective(&tu, (papc_collective)c, o);
    unsetenv("PAPC_SEGSIZE");
    for (int i = 0; i < pl->nprocs; i++)
        if (tu.comms[i] != MPI_COMM_NULL) MPI_Comm_free(&tu.comms[i]);
    free(tu.comms), free(vcounts), free(vdispls);
    free(sbuf), free(rbuf);
    sbuf = rbuf = NULL, sbuf_len = rbuf_len = 0;
    if (rank == 0)
        fprintf(stderr, "[rows] %d fitted, %d skipped\n", tu.fitted,
                tu.skipped);
}

/* ---- 4. the profile ----------------------------------------------------- */

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

/* Host, CPU, cores (and nodes when the ranks span several): collective. */
static void describe_machine(papc_profile *prof) {
    MPI_Comm node;
    int local_rank, leaders = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank,
                        MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_free(&node);
    int leader = local_rank == 0;
    MPI_Allreduce(&leader, &leaders, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    char host[64] = "unknown host", cpu[96], nodes[32] = "";
    gethostname(host, sizeof host - 1);
    cpu_model(cpu, sizeof cpu);
    if (leaders > 1) snprintf(nodes, sizeof nodes, ", %d nodes", leaders);
    snprintf(prof->machine, sizeof prof->machine, "%.40s, %.60s, %ld cores%s",
             host, cpu, sysconf(_SC_NPROCESSORS_ONLN), nodes);
    snprintf(prof->mpi_library, sizeof prof->mpi_library, "%s",
             papc_mpi_library());
    snprintf(prof->papcoll_version, sizeof prof->papcoll_version, "%s",
             PAPC_VERSION_STRING);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(prof->date, sizeof prof->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int profile_alg_exists(const char *collective, const char *name) {
    int c = papc_collective_from_name(collective);
    return c >= 0 && papc_registry_find((papc_collective)c, name) != NULL;
}

static void print_profile(const papc_profile *p, const char *path) {
    printf("# profile %s: papcoll %s, %s\n# machine: %s\n# MPI: %s\n"
           "# P %d..%d, eager %.0f B, p2p alpha %.3g beta %.3g\n", path,
           p->papcoll_version, p->date, p->machine, p->mpi_library, p->pmin,
           p->pmax, p->eager, p->p2p.alpha, p->p2p.beta);
    printf("# gamma_op float %.3g int %.3g other %.3g s/B, copy %.3g s/B\n",
           p->gamma_op[0], p->gamma_op[1], p->gamma_op[2], p->copy);
    printf("# %-10s %-22s %11s %11s %9s %7s\n", "collective", "algorithm",
           "alpha_s", "beta_s_B", "rel_%", "points");
    for (int i = 0; i < p->nalgs; i++)
        printf("  %-10s %-22s %11.3g %11.3g %9.1f %7d\n", p->algs[i].collective,
               p->algs[i].name, p->algs[i].ab.alpha, p->algs[i].ab.beta,
               100 * p->algs[i].rel, p->algs[i].points);
}

/* ---- exports ------------------------------------------------------------ */

static int run_exports(const options *o, const char *profile_path, int pmin,
                       int pmax) {
    if (!o->export_ompi && !o->export_mpich) return EXIT_OK;
    char err[512];
    /* the exports read the profile through the selector (papc_explain) */
    int rc = papc_profile_load(profile_path);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "papc-tune: %s\n", papc_strerror(rc));
        return EXIT_FAIL;
    }
    int code = EXIT_OK;
    if (o->export_ompi) {
        if (tune_export_ompi(o->export_ompi, pmin, pmax, err, sizeof err)) {
            fprintf(stderr, "papc-tune: %s\n", err);
            code = EXIT_FAIL;
        } else {
            fprintf(stderr, "papc-tune: wrote %s (Open MPI rules, P %d..%d)\n",
                    o->export_ompi, pmin, pmax);
        }
    }
    if (o->export_mpich) {
        if (tune_export_mpich(o->export_mpich, pmin, pmax, err, sizeof err)) {
            fprintf(stderr, "papc-tune: %s\n", err);
            code = EXIT_FAIL;
        } else {
            fprintf(stderr, "papc-tune: wrote %s (MPICH csel, P %d..%d)\n",
                    o->export_mpich, pmin, pmax);
        }
    }
    return code;
}

/* --profile FILE: no experiments; rank 0 prints the profile and exports. */
static int from_profile(const options *o) {
    int code = EXIT_OK;
    if (rank == 0) {
        static papc_profile prof;
        char err[512];
        if (papc_profile_read(o->profile_in, profile_alg_exists, &prof, err,
                              sizeof err)) {
            fprintf(stderr, "papc-tune: %s\n", err);
            code = EXIT_FAIL;
        } else {
            print_profile(&prof, o->profile_in);
            code = run_exports(o, o->profile_in, prof.pmin, prof.pmax);
        }
    }
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return code;
}

/* The profile IN and the delayed calls of the papc-bench files in list
 * (comma-separated) into *prof and *set; EXIT_OK or EXIT_FAIL (said). */
static int load_delayed(const char *in, const char *list,
                        papc_profile *prof, ta_set *set) {
    char err[PATH_MAX + 256];
    if (papc_profile_read(in, profile_alg_exists, prof, err, sizeof err)) {
        fprintf(stderr, "papc-tune: %s\n", err);
        return EXIT_FAIL;
    }
    int code = EXIT_OK;
    char *copy = strdup(list), *save = NULL;
    if (!copy) {
        fprintf(stderr, "papc-tune: out of memory\n");
        return EXIT_FAIL;
    }
    for (char *t = strtok_r(copy, ",", &save); t && code == EXIT_OK;
         t = strtok_r(NULL, ",", &save))
        if (ta_read_file(t, prof, set)) code = EXIT_FAIL;
    free(copy);
    return code;
}

/* --arrival-check: rank 0 prints the choices of IN's corrections. */
static int check_arrival(const options *o) {
    int code = EXIT_OK;
    if (rank == 0) {
        static papc_profile prof;
        ta_set set = {0};
        code = load_delayed(o->profile_in, o->arrival_check, &prof, &set);
        FILE *csv = NULL;
        if (code == EXIT_OK && o->csv && !(csv = fopen(o->csv, "w"))) {
            fprintf(stderr, "papc-tune: cannot write %s: %s\n", o->csv,
                    strerror(errno));
            code = EXIT_FAIL;
        }
        if (csv) fputs(TA_CHECK_CSV_HEADER, csv);
        int within = 0, n = code == EXIT_OK
                                ? ta_check(&set, &prof, &within, csv) : 0;
        if (csv && fclose(csv) != 0 && code == EXIT_OK) {
            fprintf(stderr, "papc-tune: cannot write %s\n", o->csv);
            code = EXIT_FAIL;
        }
        if (n < 0) {
            fprintf(stderr, "papc-tune: out of memory\n");
            code = EXIT_FAIL;
        } else if (code == EXIT_OK) {
            printf("# %s: the pick within 5 %% of the best row in %d of %d "
                   "settings\n", o->profile_in, within, n);
        }
        free(set.pt);
    }
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return code;
}

/* --arrival-refit: rank 0 fits the corrections and writes OUT. */
static int refit_arrival(const options *o) {
    int code = EXIT_OK;
    if (rank == 0) {
        static papc_profile prof;
        char err[PATH_MAX + 256];
        ta_set set = {0};
        FILE *csv = NULL;
        code = load_delayed(o->profile_in, o->arrival_refit, &prof, &set);
        if (code == EXIT_OK && o->csv && !(csv = fopen(o->csv, "w"))) {
            fprintf(stderr, "papc-tune: cannot write %s: %s\n", o->csv,
                    strerror(errno));
            code = EXIT_FAIL;
        }
        if (csv)
            fprintf(csv, "collective,algorithm,p,bytes,mode,max_delay_ms,"
                    "e_ms,model_ms,t0_ms,corrected_ms\n");
        if (code == EXIT_OK) {
            fprintf(stderr, "papc-tune: %d delayed calls (%d without a "
                    "model skipped); err = median |e/prediction - 1|\n",
                    set.n, set.skipped);
            int k = ta_fit_all(&set, &prof, csv, o->arrival_anchored,
                               o->arrival_per_size);
            if (k <= 0) {
                fprintf(stderr, "papc-tune: no correction fitted\n");
                code = EXIT_FAIL;
            } else if (papc_profile_write(o->out, &prof, err, sizeof err)) {
                fprintf(stderr, "papc-tune: %s\n", err);
                code = EXIT_FAIL;
            } else {
                fprintf(stderr, "papc-tune: wrote %s (%d arrival "
                        "corrections)\n", o->out, prof.narrival);
            }
        }
        if (csv) fclose(csv);
        free(set.pt);
    }
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return code;
}

/* Rank 0 checks that the outputs can be written before minutes of
 * measurement; every rank learns the verdict. */
static int open_outputs(const options *o, const char *path, FILE **csv) {
    int ok = 1;
    if (rank == 0) {
        if (make_parent_dirs(path)) ok = 0;
        if (ok && o->csv) {
            *csv = fopen(o->csv, "w");
            if (!*csv) {
                fprintf(stderr, "papc-tune: cannot write %s: %s\n", o->csv,
                        strerror(errno));
                ok = 0;
            } else {
                fprintf(*csv, "collective,algorithm,p,m,segsize,reps,"
                        "median_s,mean_s,min_s,max_s,predicted_s,"
                        "terms_alpha,terms_beta,terms_gamma_op,terms_copy\n");
            }
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok ? 0 : -1;
}

static void print_plan(const plan *pl, const char *path, const char *eager_src,
                       double eager) {
    fprintf(stderr, "papc-tune: PMAX = %d, p in {", world_size);
    for (int i = 0; i < pl->nprocs; i++)
        fprintf(stderr, "%s%d", i ? "," : "", pl->procs[i]);
    fprintf(stderr, "}, %d sizes %zu..%zu B, segments {", pl->nsizes,
            pl->sizes[0], pl->sizes[pl->nsizes - 1]);
    for (int i = 0; i < pl->nsegs; i++)
        fprintf(stderr, "%s%zu", i ? "," : "", pl->segs[i]);
    fprintf(stderr, "}, %d-%d reps; eager %.0f B (%s); profile %s\n",
            pl->rmin, pl->rmax, eager, eager_src, path);
}

static int tune(const options *o) {
    static papc_profile prof; /* large: not on the stack */
    char path[PATH_MAX], eager_src[128];
    FILE *csv = NULL;
    plan pl;
    if (o->out) snprintf(path, sizeof path, "%s", o->out);
    else default_profile_path(path, sizeof path);
    if (open_outputs(o, path, &csv)) return EXIT_FAIL;
    make_plan(&pl, o);
    memset(&prof, 0, sizeof prof);
    prof.version = PAPC_PROFILE_VERSION;
    describe_machine(&prof);
    prof.eager = detect_eager(eager_src, sizeof eager_src);
    prof.pmin = 2; /* γ(p) and the ping-pong start at 2 */
    prof.pmax = world_size;
    if (rank == 0) print_plan(&pl, path, eager_src, prof.eager);

    measure_gamma(&pl, &prof.gamma);
    measure_local_costs(&pl, &prof);
    measure_p2p(&pl, &prof);
    tune_algorithms(o, &pl, &prof, csv);

    int code = EXIT_OK;
    if (rank == 0) {
        char err[PATH_MAX + 256];
        if (csv) fclose(csv);
        if (papc_profile_write(path, &prof, err, sizeof err)) {
            fprintf(stderr, "papc-tune: %s\n", err);
            code = EXIT_FAIL;
        } else {
            fprintf(stderr, "papc-tune: wrote %s (%d algorithms) in %.0f s\n",
                    path, prof.nalgs, elapsed());
            if (o->csv) fprintf(stderr, "papc-tune: wrote %s\n", o->csv);
            code = run_exports(o, path, prof.pmin, prof.pmax);
        }
    }
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return code;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    t_start = MPI_Wtime();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    options o;
    int bad = parse_options(argc, argv, &o);
    if (bad || o.help) {
        usage();
        MPI_Finalize();
        return bad ? EXIT_USAGE : EXIT_OK;
    }
    int code = o.arrival_check ? check_arrival(&o)
             : o.arrival_refit ? refit_arrival(&o)
               : o.profile_in ? from_profile(&o) : tune(&o);
    MPI_Finalize();
    return code;
}
