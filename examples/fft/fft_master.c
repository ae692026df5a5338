/*
 * fft_master — a parallel FFT with a master (pap-scatter-gather.md, Sect. 6),
 * the application the arrival-aware scatter and gather were made for.
 *
 *   mpirun -n 8 fft_master --n 256Ki --iters 100 --gather bsls --scatter native
 *
 * Every iteration the master (rank 0) takes a batch of signals, splits each
 * by one decimation-in-frequency step, scatters the parts, every rank (the
 * master too, as in the paper) transforms its parts with FFTW, and the
 * transformed parts are gathered back to the master, which interleaves them
 * into the spectra and accumulates their power spectrum.
 *
 * The split.  For a signal x of length n = R L, one radix-R DIF step gives
 *     X[R k + r] = sum_m W_L^(m k) y_r[m],
 *     y_r[m]     = W_n^(m r) sum_q x[m + q L] W_R^(q r),
 * so the R parts y_r (L points each) are independent L-point FFTs whose
 * outputs interleave into X.  The master computes the y_r (L DFTs of length
 * R and the twiddles, O(n log R)); the ranks the L-point FFTs; the master
 * interleaves.  The paper splits by radix-2 steps down to P parts; one
 * radix-R step is the same split in one pass, for any R dividing n
 * (--split, default P; 1 = whole signals, a plain batch).
 *
 * Unequal work comes from the distribution: the batch's batch*R parts go
 * to the ranks in contiguous ranges whose sizes grow with the rank,
 * proportional to 1 + skew * i / (P - 1) (--skew, default 0: equal).
 * MPI_Scatter/MPI_Gather move one block size per rank, so a block holds the
 * largest share and a rank with fewer parts leaves the rest unused (the
 * padding is sent; the scatterv/gatherv alternative has no arrival-aware
 * algorithm to compare).
 *
 * The master double-buffers: after the scatter of iteration k it
 * transforms its own parts, then prepares iteration k + 1 (generates the
 * signals and splits them) into the send buffer the scatter has released,
 * and only then gathers iteration k.  That is where its extra work belongs:
 * the workers compute meanwhile, and an arrival-aware gather with a
 * background thread (BSLS) collects their parts while the master still
 * prepares.  With native MPI_Gather the same work only moves the workers'
 * wait from the next scatter to this gather.
 *
 * Imbalance is what the run produces, not a sleep: the scatter's blocks
 * leave through the master's one link, so the workers receive theirs spread
 * over the whole scatter (about 29 ms at P = 8, 512 KiB blocks, 1 Gbit/s,
 * in an order that changes from one iteration to the next) and start their
 * transforms that far apart; --skew adds unequal shares; the master arrives
 * late by its preparation; the machine adds noise.
 * Each rank records its arrival at the gather (MPI_Wtime, since the
 * master's exit from the barrier before the timed iterations, in the
 * master's clock by a ping-pong offset) and the master reports the spread.
 *
 * Input: signals of uniform random complex samples in [-1, 1) from a
 * counter-based generator (seed, iteration, signal, index), so any process
 * can regenerate them.  --check compares every iteration's spectra with a
 * single-process FFTW transform of the same signals (max relative error
 * per signal, max |X - Xref| / max |Xref|); the time it takes is left out
 * of the master's totals (the workers wait for it in the next scatter).
 * Plans are FFTW_ESTIMATE: the same plan in every run, so the power
 * checksum is bit for bit the same whatever moves the data.
 *
 * Exit status: 0, 1 when --check finds an error above --tol, 2 for bad
 * options, MPI's abort code on an MPI or papcoll error.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <complex.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fftw3.h>
#include <mpi.h>
#include "papcoll.h"

#define PROG "fft_master"
#define PI 3.14159265358979323846

typedef struct options {
    long n;            /* signal length */
    int batch;         /* signals per iteration */
    int split;         /* R: parts per signal (0: P) */
    double skew;       /* share of rank i ~ 1 + skew * i / (P - 1) */
    int iters, warmup;
    const char *gather, *scatter; /* native, plain or a papcoll name */
    int check;
    double tol;
    unsigned long long seed;
    const char *csv, *tag, *trace;
    int verbose;
} options;

/* How the batch's parts are laid out over the ranks. */
typedef struct layout {
    int P;
    long n, L;         /* signal length, part length */
    int R, batch, T;   /* parts per signal, signals, parts in all */
    int *count, *start; /* parts of rank i: [start[i], start[i] + count[i]) */
    int maxc;          /* parts per block */
    size_t block;      /* complex values per block: maxc * L */
} layout;

/* Per-rank times of one iteration (seconds). */
typedef struct times {
    double scatter, compute, prepare, gather, post;
    double start, arrival; /* entry to the scatter, the gather: since the
                              master's t0, in the master's clock */
} times;

static int rank, nprocs;

/* ---- options ------------------------------------------------------------ */

static void usage(FILE *f) {
    fprintf(f,
"usage: mpirun -n P " PROG " [options]\n"
"  --n N          signal length (K, Ki, M, Mi suffixes; default 256Ki)\n"
"  --batch B      signals per iteration (default 1)\n"
"  --split R      parts per signal, one radix-R DIF step on the master\n"
"                 (default P; 1 = whole signals); R must divide N\n"
"  --skew S       rank i gets a share ~ 1 + S*i/(P-1) of the parts (default 0)\n"
"  --iters I      timed iterations (default 50)\n"
"  --warmup W     untimed iterations first (default 3)\n"
"  --scatter ALG  native (MPI_Scatter), plain (papc_scatter) or a papcoll\n"
"                 scatter algorithm, e.g. basic_linear, sorted_linear, bsln\n"
"  --gather ALG   native (MPI_Gather), plain (papc_gather) or a papcoll\n"
"                 gather algorithm, e.g. linear_sync, sls, bsls\n"
"                 (papc-info --algorithms lists them; default native)\n"
"  --check        compare every iteration with a one-process FFTW transform\n"
"  --tol T        relative error allowed by --check (default 1e-9)\n"
"  --seed S       input seed (default 1)\n"
"  --csv FILE     append one line per run (header when FILE is new)\n"
"  --tag STR      free text for the CSV's tag column\n"
"  --trace FILE   every rank's entry to and exit from the scatter and the\n"
"                 gather, per timed iteration (ms, master's clock; CSV)\n"
"  -v             per-rank times\n");
}

static int bad_option(const char *what, const char *value) {
    if (rank == 0)
        fprintf(stderr, PROG ": invalid %s '%s' (--help for usage)\n", what,
                value ? value : "");
    return 0;
}

/* An integer with an optional K/M (x1000) or Ki/Mi (x1024) suffix. */
static int parse_count(const char *s, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    long mul = 1;
    if (!strcmp(end, "K")) mul = 1000;
    else if (!strcmp(end, "Ki")) mul = 1024;
    else if (!strcmp(end, "M")) mul = 1000000;
    else if (!strcmp(end, "Mi")) mul = 1048576;
    else if (*end) return 0;
    if (errno || end == s || v < 0 || v > LONG_MAX / mul) return 0;
    *out = v * mul;
    return 1;
}

static int parse_int(const char *s, int lo, int *out) {
    long v;
    if (!parse_count(s, &v) || v < lo || v > INT_MAX) return 0;
    *out = (int)v;
    return 1;
}

static int parse_double(const char *s, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v)) return 0;
    *out = v;
    return 1;
}

/* "native" and "plain" are ours; anything else must be a registered
 * algorithm of the collective. */
static int known_algorithm(papc_collective c, const char *name) {
    return !strcmp(name, "native") || !strcmp(name, "plain") ||
           papc_algorithm_find(c, name) != NULL;
}

/* Parses argv into o; 0 on bad input (reported by rank 0), -1 for --help. */
static int parse_options(int argc, char **argv, options *o) {
    *o = (options){.n = 262144, .batch = 1, .split = 0, .skew = 0,
                   .iters = 50, .warmup = 3, .gather = "native",
                   .scatter = "native", .tol = 1e-9, .seed = 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return -1;
        if (!strcmp(a, "--check")) { o->check = 1; continue; }
        if (!strcmp(a, "-v")) { o->verbose = 1; continue; }
        if (!v) return bad_option("option (missing value)", a);
        i++;
        if (!strcmp(a, "--n")) {
            if (!parse_count(v, &o->n) || o->n < 1) return bad_option("--n", v);
        } else if (!strcmp(a, "--batch")) {
            if (!parse_int(v, 1, &o->batch)) return bad_option("--batch", v);
        } else if (!strcmp(a, "--split")) {
            if (!parse_int(v, 1, &o->split)) return bad_option("--split", v);
        } else if (!strcmp(a, "--skew")) {
            if (!parse_double(v, &o->skew) || o->skew < 0)
                return bad_option("--skew", v);
        } else if (!strcmp(a, "--iters")) {
            if (!parse_int(v, 1, &o->iters)) return bad_option("--iters", v);
        } else if (!strcmp(a, "--warmup")) {
            if (!parse_int(v, 0, &o->warmup)) return bad_option("--warmup", v);
        } else if (!strcmp(a, "--gather")) {
            if (!known_algorithm(PAPC_GATHER, v))
                return bad_option("--gather algorithm", v);
            o->gather = v;
        } else if (!strcmp(a, "--scatter")) {
            if (!known_algorithm(PAPC_SCATTER, v))
                return bad_option("--scatter algorithm", v);
            o->scatter = v;
        } else if (!strcmp(a, "--tol")) {
            if (!parse_double(v, &o->tol) || o->tol <= 0)
                return bad_option("--tol", v);
        } else if (!strcmp(a, "--seed")) {
            long s;
            if (!parse_count(v, &s)) return bad_option("--seed", v);
            o->seed = (unsigned long long)s;
        } else if (!strcmp(a, "--csv")) {
            o->csv = v;
        } else if (!strcmp(a, "--trace")) {
            o->trace = v;
        } else if (!strcmp(a, "--tag")) {
            o->tag = v;
        } else {
            return bad_option("option", a);
        }
    }
    return 1;
}

/* ---- layout ------------------------------------------------------------- */

/* Shares proportional to 1 + skew*i/(P-1), rounded by largest remainder
 * (ties to the lower rank), so they sum to T on every rank alike. */
static void share_parts(int P, int T, double skew, int *count) {
    double sum = 0, *frac = malloc((size_t)P * sizeof *frac);
    for (int i = 0; i < P; i++) sum += 1 + (P > 1 ? skew * i / (P - 1) : 0);
    int given = 0;
    for (int i = 0; i < P; i++) {
        double ideal = T * (1 + (P > 1 ? skew * i / (P - 1) : 0)) / sum;
        count[i] = (int)floor(ideal);
        frac[i] = ideal - count[i];
        given += count[i];
    }
    for (; given < T; given++) {
        int best = 0;
        for (int i = 1; i < P; i++)
            if (frac[i] > frac[best]) best = i;
        count[best]++;
        frac[best] = -1;
    }
    free(frac);
}

/* 0 with a message (rank 0) when the options cannot be laid out. */
static int make_layout(const options *o, int P, layout *l) {
    l->P = P;
    l->n = o->n;
    l->R = o->split ? o->split : P;
    l->batch = o->batch;
    if (l->n % l->R) {
        if (rank == 0)
            fprintf(stderr, PROG ": --split %d does not divide --n %ld\n",
                    l->R, l->n);
        return 0;
    }
    l->L = l->n / l->R;
    if ((long long)l->batch * l->R > INT_MAX) {
        if (rank == 0) fprintf(stderr, PROG ": --batch * --split too large\n");
        return 0;
    }
    l->T = l->batch * l->R;
    l->count = malloc((size_t)P * sizeof *l->count);
    l->start = malloc((size_t)P * sizeof *l->start);
    if (!l->count || !l->start) {
        fprintf(stderr, PROG ": out of memory\n");
        return 0;
    }
    share_parts(P, l->T, o->skew, l->count);
    l->maxc = 0;
    for (int i = 0, s = 0; i < P; s += l->count[i++]) {
        l->start[i] = s;
        if (l->count[i] > l->maxc) l->maxc = l->count[i];
    }
    l->block = (size_t)l->maxc * (size_t)l->L;
    if (l->block > (size_t)INT_MAX / 2) {
        if (rank == 0)
            fprintf(stderr, PROG ": a block of %zu complex values is more "
                    "than one MPI count can carry\n", l->block);
        return 0;
    }
    return 1;
}

/* Rank owning global part g (parts are in contiguous ranges). */
static int owner_of(const layout *l, int g) {
    int i = 0;
    while (i + 1 < l->P && g >= l->start[i + 1]) i++;
    return i;
}

/* Where part g sits in a P-block buffer. */
static fftw_complex *part_in(const layout *l, fftw_complex *buf, int g) {
    int i = owner_of(l, g);
    return buf + (size_t)i * l->block + (size_t)(g - l->start[i]) * l->L;
}

/* ---- input -------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* A uniform double in [-1, 1) from 53 random bits. */
static double unit(uint64_t bits) {
    return (double)(bits >> 11) * 0x1.0p-52 - 1.0;
}

/* Signal j of iteration it: the same on any process. */
static void generate_signal(const options *o, int it, int j, fftw_complex *x) {
    uint64_t base = splitmix64(o->seed ^ splitmix64(
        ((uint64_t)it << 32) ^ (uint64_t)j));
    for (long k = 0; k < o->n; k++) {
        uint64_t c = base + 2 * (uint64_t)k;
        x[k] = unit(splitmix64(c)) + I * unit(splitmix64(c + 1));
    }
}

/* ---- the transform's pieces --------------------------------------------- */

typedef struct plans {
    fftw_plan dif;    /* L DFTs of length R, stride L: x -> y (master) */
    fftw_plan part;   /* one L-point FFT, in place */
    fftw_plan full;   /* one n-point FFT, x -> ref (--check) */
    fftw_complex *twiddle; /* W_n^j, j < n (master, R > 1) */
} plans;

/* FFTW's SIMD codelets want the alignment the plan was made with; parts
 * start at multiples of L values, so plan unaligned when that breaks it. */
static unsigned part_flags(long L) {
    return FFTW_ESTIMATE |
           ((L * (long)sizeof(fftw_complex)) % 64 ? FFTW_UNALIGNED : 0);
}

static int make_plans(const layout *l, int check, fftw_complex *mine,
                      fftw_complex *x, fftw_complex *y, fftw_complex *ref,
                      plans *p) {
    *p = (plans){0};
    int L = (int)l->L, R = l->R, n = (int)l->n;
    p->part = fftw_plan_many_dft(1, &L, 1, mine, NULL, 1, L, mine, NULL, 1, L,
                                 FFTW_FORWARD, part_flags(L));
    if (!p->part) return 0;
    if (rank != 0) return 1;
    if (R > 1) {
        p->dif = fftw_plan_many_dft(1, &R, L, x, NULL, L, 1, y, NULL, L, 1,
                                    FFTW_FORWARD, FFTW_ESTIMATE);
        p->twiddle = fftw_alloc_complex((size_t)n);
        if (!p->dif || !p->twiddle) return 0;
        for (long j = 0; j < n; j++) {
            double a = -2 * PI * (double)j / (double)n;
            p->twiddle[j] = cos(a) + I * sin(a);
        }
    }
    if (check) {
        p->full = fftw_plan_dft_1d(n, x, ref, FFTW_FORWARD, FFTW_ESTIMATE);
        if (!p->full) return 0;
    }
    return 1;
}

static void destroy_plans(plans *p) {
    if (p->dif) fftw_destroy_plan(p->dif);
    if (p->part) fftw_destroy_plan(p->part);
    if (p->full) fftw_destroy_plan(p->full);
    fftw_free(p->twiddle);
}

/* The master's preparation of iteration it: every signal generated, split
 * by the DIF step and its parts copied into their ranks' blocks. */
static void prepare(const options *o, const layout *l, const plans *p, int it,
                    fftw_complex *x, fftw_complex *y, fftw_complex *sendbuf) {
    for (int j = 0; j < l->batch; j++) {
        generate_signal(o, it, j, x);
        fftw_complex *parts = x;
        if (l->R > 1) {
            fftw_execute_dft(p->dif, x, y);
            for (int r = 1; r < l->R; r++)
                for (long m = 1; m < l->L; m++)
                    y[r * l->L + m] *= p->twiddle[r * m];
            parts = y;
        }
        for (int r = 0; r < l->R; r++)
            memcpy(part_in(l, sendbuf, j * l->R + r), parts + r * l->L,
                   (size_t)l->L * sizeof(fftw_complex));
    }
}

/* Transforms parts [from, to) of this rank's block. */
static void transform_parts(const layout *l, const plans *p,
                            fftw_complex *mine, int from, int to) {
    for (int s = from; s < to; s++)
        fftw_execute_dft(p->part, mine + (size_t)s * l->L,
                         mine + (size_t)s * l->L);
}

/* The master interleaves the gathered parts into the spectra and adds their
 * power to the running power spectrum. */
static int assemble(const layout *l, fftw_complex *recvbuf,
                    fftw_complex *spectra, double *power) {
    const fftw_complex **Y = malloc((size_t)l->R * sizeof *Y);
    if (!Y) return 0;
    for (int j = 0; j < l->batch; j++) {
        fftw_complex *X = spectra + (size_t)j * l->n;
        for (int r = 0; r < l->R; r++) Y[r] = part_in(l, recvbuf, j * l->R + r);
        /* X written in order, the R parts read in order: one pass */
        for (long k = 0, x = 0; k < l->L; k++)
            for (int r = 0; r < l->R; r++, x++) {
                fftw_complex v = Y[r][k];
                X[x] = v;
                power[x] += creal(v) * creal(v) + cimag(v) * cimag(v);
            }
    }
    free((void *)Y);
    return 1;
}

/* Max over the batch of max|X - Xref| / max|Xref| for iteration it. */
static double check_iteration(const options *o, const layout *l,
                              const plans *p, int it, fftw_complex *x,
                              fftw_complex *ref, const fftw_complex *spectra) {
    double worst = 0;
    for (int j = 0; j < l->batch; j++) {
        generate_signal(o, it, j, x);
        fftw_execute_dft(p->full, x, ref);
        const fftw_complex *X = spectra + (size_t)j * l->n;
        double err = 0, mag = 0;
        for (long k = 0; k < l->n; k++) {
            double e = cabs(X[k] - ref[k]), m = cabs(ref[k]);
            if (!(e <= err)) err = e; /* a NaN counts as the worst */
            if (m > mag) mag = m;
        }
        double rel = mag > 0 ? err / mag : err;
        if (!(rel <= worst)) worst = rel;
    }
    return worst;
}

/* ---- the collectives ---------------------------------------------------- */

static void die_on(int rc, const char *what, const char *alg) {
    if (rc == MPI_SUCCESS) return;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (!strcmp(alg, "native")) MPI_Error_string(rc, msg, &len);
    fprintf(stderr, PROG ": rank %d: %s (%s) failed: %s\n", rank, what, alg,
            !strcmp(alg, "native") ? msg : papc_strerror(rc));
    MPI_Abort(MPI_COMM_WORLD, 3);
}

static void scatter(const char *alg, const layout *l, fftw_complex *sendbuf,
                    fftw_complex *mine) {
    int cnt = (int)(2 * l->block), rc;
    if (!strcmp(alg, "native"))
        rc = MPI_Scatter(sendbuf, cnt, MPI_DOUBLE, mine, cnt, MPI_DOUBLE, 0,
                         MPI_COMM_WORLD);
    else if (!strcmp(alg, "plain"))
        rc = papc_scatter(sendbuf, cnt, MPI_DOUBLE, mine, cnt, MPI_DOUBLE, 0,
                          MPI_COMM_WORLD);
    else
        rc = papc_scatter_alg(sendbuf, cnt, MPI_DOUBLE, mine, cnt, MPI_DOUBLE,
                              0, MPI_COMM_WORLD, alg);
    die_on(rc, "scatter", alg);
}

static void gather(const char *alg, const layout *l, fftw_complex *mine,
                   fftw_complex *recvbuf) {
    int cnt = (int)(2 * l->block), rc;
    if (!strcmp(alg, "native"))
        rc = MPI_Gather(mine, cnt, MPI_DOUBLE, recvbuf, cnt, MPI_DOUBLE, 0,
                        MPI_COMM_WORLD);
    else if (!strcmp(alg, "plain"))
        rc = papc_gather(mine, cnt, MPI_DOUBLE, recvbuf, cnt, MPI_DOUBLE, 0,
                         MPI_COMM_WORLD);
    else
        rc = papc_gather_alg(mine, cnt, MPI_DOUBLE, recvbuf, cnt, MPI_DOUBLE,
                             0, MPI_COMM_WORLD, alg);
    die_on(rc, "gather", alg);
}

/* The monitor (papcoll's PAT_Init) is started only for the algorithms that
 * use its predictions or its thread, so native runs carry no extra thread. */
static int wants_monitor(papc_collective c, const char *name) {
    if (!strcmp(name, "native") || !strcmp(name, "plain")) return 0;
    const papc_algorithm_info *a = papc_algorithm_find(c, name);
    return a && (a->flags & (PAPC_FLAG_ARRIVAL_AWARE | PAPC_FLAG_BACKGROUND));
}

/* ---- the run ------------------------------------------------------------ */

typedef struct buffers {
    fftw_complex *mine;              /* this rank's block */
    fftw_complex *sendbuf, *recvbuf; /* master: P blocks each */
    fftw_complex *x, *y, *ref;       /* master: one signal each */
    fftw_complex *spectra;           /* master: batch * n */
    double *power;                   /* master: n */
} buffers;

static int alloc_buffers(const layout *l, int check, buffers *b) {
    *b = (buffers){0};
    b->mine = fftw_alloc_complex(l->block ? l->block : 1);
    if (!b->mine) return 0;
    memset(b->mine, 0, l->block * sizeof(fftw_complex));
    if (rank != 0) return 1;
    size_t all = (size_t)l->P * l->block, n = (size_t)l->n;
    b->sendbuf = fftw_alloc_complex(all);
    b->recvbuf = fftw_alloc_complex(all);
    b->x = fftw_alloc_complex(n);
    b->y = fftw_alloc_complex(n);
    b->ref = check ? fftw_alloc_complex(n) : NULL;
    b->spectra = fftw_alloc_complex((size_t)l->batch * n);
    b->power = calloc(n, sizeof *b->power);
    if (!b->sendbuf || !b->recvbuf || !b->x || !b->y || (check && !b->ref) ||
        !b->spectra || !b->power)
        return 0;
    /* the padding is sent as it is: zero it once */
    memset(b->sendbuf, 0, all * sizeof(fftw_complex));
    return 1;
}

static void free_buffers(buffers *b) {
    fftw_free(b->mine);
    fftw_free(b->sendbuf);
    fftw_free(b->recvbuf);
    fftw_free(b->x);
    fftw_free(b->y);
    fftw_free(b->ref);
    fftw_free(b->spectra);
    free(b->power);
}

/* Results of the run on the master. */
typedef struct run_result {
    double total, check_time, max_err, checksum;
    double clock_bound; /* error bound of the clock offsets (master) */
    times *all; /* [rank * iters + it], timed iterations only */
} run_result;

/* Under SimGrid SMPI (smpicc's mpi.h defines SMPI_H) the program's own
 * computation is charged to its simulated host explicitly: the thread CPU
 * time of each compute phase (FFTs, preparation, assembly) becomes simulated
 * time by smpi_execute.  SMPI's automatic charging
 * (smpi/simulate-computation:1) would also charge papcoll's polling between
 * MPI calls, burst by burst, which made one background gather take seconds;
 * run with smpi/host-speed equal to the platform's host speed (1 Gf on
 * calib8.xml) so that one second of this machine's CPU is one simulated
 * second (scripts/example-fft.sh --smpi). */
#ifdef clock_gettime
#undef clock_gettime /* SMPI's helpers map it to simulated time */
#endif
static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double compute_begin(void) { return cpu_now(); }

static void compute_end(double begin) {
#ifdef SMPI_H
    smpi_execute(cpu_now() - begin);
#else
    (void)begin;
#endif
}

/* One iteration; fills t (this rank's times; ref: the master's t0 in this
 * rank's clock) and, on the master with --check, *err (the worst error so
 * far) and *check_time. */
static void iteration(const options *o, const layout *l, const plans *p,
                      buffers *b, int it, double ref, int monitor, times *t,
                      double *prev_own, double *prev_prep, double *check_time,
                      double *err) {
    int me = rank, c = l->count[me];
    double s0 = MPI_Wtime();
    scatter(o->scatter, l, b->sendbuf, b->mine);
    double s1 = MPI_Wtime();
    if (monitor) papc_processing_start();
    int half = c / 2;
    double cb = compute_begin();
    transform_parts(l, p, b->mine, 0, half);
    compute_end(cb);
    if (monitor && me != 0 && half > 0) papc_progress((double)half / c);
    cb = compute_begin();
    transform_parts(l, p, b->mine, half, c);
    compute_end(cb);
    double s2 = MPI_Wtime();
    if (me == 0 && it + 1 < o->warmup + o->iters) {
        /* the fraction of the master's phase done, from the last iteration */
        if (monitor && *prev_own > 0 && *prev_prep > 0)
            papc_progress(*prev_own / (*prev_own + *prev_prep));
        cb = compute_begin();
        prepare(o, l, p, it + 1, b->x, b->y, b->sendbuf);
        compute_end(cb);
    }
    if (monitor) papc_processing_end();
    double s3 = MPI_Wtime();
    gather(o->gather, l, b->mine, b->recvbuf);
    double s4 = MPI_Wtime();
    cb = compute_begin();
    if (me == 0 && !assemble(l, b->recvbuf, b->spectra, b->power)) {
        fprintf(stderr, PROG ": out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    compute_end(cb);
    double s5 = MPI_Wtime();
    *t = (times){.scatter = s1 - s0, .compute = s2 - s1, .prepare = s3 - s2,
                 .gather = s4 - s3, .post = s5 - s4, .start = s0 - ref,
                 .arrival = s3 - ref};
    *prev_own = s2 - s1;
    *prev_prep = s3 - s2;
    if (me == 0 && o->check) {
        double e = check_iteration(o, l, p, it, b->x, b->ref, b->spectra);
        if (!(e <= *err)) *err = e;
        *check_time += MPI_Wtime() - s5;
    }
}

/* This rank's clock minus the master's, from ping-pongs with the master:
 * the exchange with the least round trip counts (Cristian's method), its
 * half round trip bounds the error; *bound: the largest over the ranks
 * (master).  Arrival times of different ranks are compared in the
 * master's clock: a barrier alone leaves each rank's zero as late as that
 * rank was descheduled when the barrier ended. */
static double clock_offset(double *bound) {
    enum { ROUNDS = 8, TAG = 77 };
    double off = 0, worst = 0;
    for (int w = 1; w < nprocs; w++) {
        if (rank == 0) {
            double best_rtt = INFINITY, best_off = 0;
            for (int k = 0; k < ROUNDS; k++) {
                double t1 = MPI_Wtime(), tw;
                MPI_Send(&t1, 1, MPI_DOUBLE, w, TAG, MPI_COMM_WORLD);
                MPI_Recv(&tw, 1, MPI_DOUBLE, w, TAG, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                double t2 = MPI_Wtime();
                if (t2 - t1 < best_rtt) {
                    best_rtt = t2 - t1;
                    best_off = tw - (t1 + t2) / 2;
                }
            }
            MPI_Send(&best_off, 1, MPI_DOUBLE, w, TAG, MPI_COMM_WORLD);
            if (best_rtt / 2 > worst) worst = best_rtt / 2;
        } else if (rank == w) {
            for (int k = 0; k < ROUNDS; k++) {
                double t;
                MPI_Recv(&t, 1, MPI_DOUBLE, 0, TAG, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                t = MPI_Wtime();
                MPI_Send(&t, 1, MPI_DOUBLE, 0, TAG, MPI_COMM_WORLD);
            }
            MPI_Recv(&off, 1, MPI_DOUBLE, 0, TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        }
    }
    *bound = worst;
    return off;
}

static void run(const options *o, const layout *l, const plans *p,
                buffers *b, int monitor, run_result *res) {
    int total_iters = o->warmup + o->iters;
    times *mine = calloc((size_t)o->iters, sizeof *mine);
    double prev_own = 0, prev_prep = 0, check_time = 0, err = 0, t0 = 0;
    double ref = 0;
    if (!mine) {
        fprintf(stderr, PROG ": out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (rank == 0) {
        double cb = compute_begin();
        prepare(o, l, p, 0, b->x, b->y, b->sendbuf);
        compute_end(cb);
    }
    for (int it = 0; it < total_iters; it++) {
        int timed = it >= o->warmup;
        if (it == o->warmup) {
            double off = clock_offset(&res->clock_bound), t0_master;
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = t0_master = MPI_Wtime();
            MPI_Bcast(&t0_master, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            ref = t0_master + off;
            check_time = 0;
        }
        times t;
        iteration(o, l, p, b, it, ref, monitor, &t, &prev_own, &prev_prep,
                  &check_time, &err);
        if (timed) mine[it - o->warmup] = t;
    }
    double t_end = MPI_Wtime();
    res->total = t_end - t0 - check_time;
    res->check_time = check_time;
    res->max_err = err;
    res->all = NULL;
    if (rank == 0) {
        res->all = malloc((size_t)l->P * o->iters * sizeof *res->all);
        if (!res->all) {
            fprintf(stderr, PROG ": out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        res->checksum = 0;
        for (long k = 0; k < l->n; k++) res->checksum += b->power[k];
    }
    int nd = (int)(sizeof(times) / sizeof(double)) * o->iters;
    MPI_Gather(mine, nd, MPI_DOUBLE, res->all, nd, MPI_DOUBLE, 0,
               MPI_COMM_WORLD);
    free(mine);
}

/* ---- the report --------------------------------------------------------- */

typedef struct summary {
    double per_iter;
    times root, workers;    /* per-iteration means */
    double spread_mean, spread_max; /* workers' arrival spread at the gather */
    double late_mean;       /* master's arrival - first worker's */
} summary;

static void summarize(const options *o, const layout *l,
                      const run_result *res, summary *s) {
    int P = l->P, N = o->iters;
    *s = (summary){.per_iter = res->total / N};
    for (int r = 0; r < P; r++) {
        times *acc = r == 0 ? &s->root : &s->workers;
        for (int it = 0; it < N; it++) {
            const times *t = &res->all[r * N + it];
            acc->scatter += t->scatter;
            acc->compute += t->compute;
            acc->prepare += t->prepare;
            acc->gather += t->gather;
            acc->post += t->post;
        }
    }
    double wdiv = P > 1 ? (double)(P - 1) * N : 1;
    s->root.scatter /= N; s->root.compute /= N; s->root.prepare /= N;
    s->root.gather /= N; s->root.post /= N;
    s->workers.scatter /= wdiv; s->workers.compute /= wdiv;
    s->workers.prepare /= wdiv; s->workers.gather /= wdiv;
    for (int it = 0; it < N && P > 1; it++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int r = 1; r < P; r++) {
            double a = res->all[r * N + it].arrival;
            if (a < lo) lo = a;
            if (a > hi) hi = a;
        }
        double spread = hi - lo, late = res->all[it].arrival - lo;
        s->spread_mean += spread / N;
        if (spread > s->spread_max) s->spread_max = spread;
        s->late_mean += late / N;
    }
}

/* The earliest arrival at the gather of iteration it, any rank. */
static double first_arrival(const run_result *res, int P, int iters, int it) {
    double lo = INFINITY;
    for (int r = 0; r < P; r++)
        if (res->all[r * iters + it].arrival < lo)
            lo = res->all[r * iters + it].arrival;
    return lo;
}

static void print_report(const options *o, const layout *l,
                         const run_result *res, const summary *s,
                         int check_ok) {
    int cmin = l->count[0], cmax = l->count[0];
    for (int i = 1; i < l->P; i++) {
        if (l->count[i] < cmin) cmin = l->count[i];
        if (l->count[i] > cmax) cmax = l->count[i];
    }
    printf("%s: P=%d n=%ld batch=%d split=%d skew=%g: parts of %ld points, "
           "%d..%d per rank, blocks of %.1f KiB\n", PROG, l->P, l->n,
           l->batch, l->R, o->skew, l->L, cmin, cmax,
           l->block * sizeof(fftw_complex) / 1024.0);
    printf("  scatter %s, gather %s; %d iterations (+%d warm-up), seed %llu\n",
           o->scatter, o->gather, o->iters, o->warmup, o->seed);
    printf("  total %.4f s, %.3f ms per iteration\n", res->total,
           1e3 * s->per_iter);
    printf("  master  per iteration: scatter %.3f  own FFTs %.3f  prepare next"
           " %.3f  gather %.3f  assemble %.3f ms\n", 1e3 * s->root.scatter,
           1e3 * s->root.compute, 1e3 * s->root.prepare, 1e3 * s->root.gather,
           1e3 * s->root.post);
    printf("  workers per iteration (mean): scatter %.3f  FFTs %.3f  gather "
           "%.3f ms\n", 1e3 * s->workers.scatter, 1e3 * s->workers.compute,
           1e3 * s->workers.gather);
    printf("  imbalance at the gather: workers' arrival spread mean %.3f ms, "
           "max %.3f ms; master after the first worker by %.3f ms (mean); "
           "clocks aligned to +-%.0f us\n", 1e3 * s->spread_mean,
           1e3 * s->spread_max, 1e3 * s->late_mean, 1e6 * res->clock_bound);
    printf("  power checksum %.17g\n", res->checksum);
    if (o->check)
        printf("  check: max relative error %.3g (tolerance %.3g) %s; check "
               "time %.3f s left out\n", res->max_err, o->tol,
               check_ok ? "OK" : "FAILED", res->check_time);
    if (o->verbose) {
        printf("  rank  scatter   FFTs  prepare  gather  arrival after the "
               "first (ms, means)\n");
        for (int r = 0; r < l->P; r++) {
            times m = {0};
            for (int it = 0; it < o->iters; it++) {
                const times *t = &res->all[r * o->iters + it];
                m.scatter += t->scatter / o->iters;
                m.compute += t->compute / o->iters;
                m.prepare += t->prepare / o->iters;
                m.gather += t->gather / o->iters;
                m.arrival += (t->arrival - first_arrival(res, l->P,
                                                         o->iters, it)) /
                             o->iters;
            }
            printf("  %4d %8.3f %6.3f %8.3f %7.3f %8.3f\n", r,
                   1e3 * m.scatter, 1e3 * m.compute, 1e3 * m.prepare,
                   1e3 * m.gather, 1e3 * m.arrival);
        }
    }
    fflush(stdout);
}

/* One line per (iteration, rank): when it entered and left the scatter and
 * the gather, ms since the master's t0 (its exit from the barrier before the
 * timed iterations), in the master's clock. */
static void write_trace(const options *o, const layout *l,
                        const run_result *res) {
    FILE *f = fopen(o->trace, "w");
    if (!f) {
        fprintf(stderr, PROG ": cannot open %s: %s\n", o->trace,
                strerror(errno));
        return;
    }
    fprintf(f, "iteration,rank,scatter_in,scatter_out,gather_in,gather_out\n");
    for (int it = 0; it < o->iters; it++)
        for (int r = 0; r < l->P; r++) {
            const times *t = &res->all[r * o->iters + it];
            fprintf(f, "%d,%d,%.4f,%.4f,%.4f,%.4f\n", it, r, 1e3 * t->start,
                    1e3 * (t->start + t->scatter), 1e3 * t->arrival,
                    1e3 * (t->arrival + t->gather));
        }
    fclose(f);
}

static void append_csv(const options *o, const layout *l,
                       const run_result *res, const summary *s) {
    FILE *f = fopen(o->csv, "a");
    if (!f) {
        fprintf(stderr, PROG ": cannot open %s: %s\n", o->csv,
                strerror(errno));
        return;
    }
    if (ftell(f) == 0)
        fprintf(f, "tag,P,n,batch,split,skew,iters,scatter,gather,total_s,"
                   "iter_ms,root_scatter_ms,root_fft_ms,root_prepare_ms,"
                   "root_gather_ms,root_assemble_ms,workers_scatter_ms,"
                   "workers_fft_ms,workers_gather_ms,spread_mean_ms,"
                   "spread_max_ms,root_late_mean_ms,checksum,max_rel_err\n");
    fprintf(f, "%s,%d,%ld,%d,%d,%g,%d,%s,%s,%.6f,%.4f,%.4f,%.4f,%.4f,%.4f,"
               "%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.17g,",
            o->tag ? o->tag : "", l->P, l->n, l->batch, l->R, o->skew,
            o->iters, o->scatter, o->gather, res->total, 1e3 * s->per_iter,
            1e3 * s->root.scatter, 1e3 * s->root.compute,
            1e3 * s->root.prepare, 1e3 * s->root.gather, 1e3 * s->root.post,
            1e3 * s->workers.scatter, 1e3 * s->workers.compute,
            1e3 * s->workers.gather, 1e3 * s->spread_mean,
            1e3 * s->spread_max, 1e3 * s->late_mean, res->checksum);
    if (o->check) fprintf(f, "%.3g\n", res->max_err);
    else fprintf(f, "\n");
    fclose(f);
}

/* ---- main --------------------------------------------------------------- */

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    options o;
    layout l = {0};
    int ok = parse_options(argc, argv, &o);
    if (ok < 0) {
        if (rank == 0) usage(stdout);
        MPI_Finalize();
        return 0;
    }
    if (!ok || !make_layout(&o, nprocs, &l)) {
        MPI_Finalize();
        return 2;
    }
    buffers b;
    plans p;
    int have = alloc_buffers(&l, o.check, &b) &&
               make_plans(&l, o.check, b.mine, b.x, b.y, b.ref, &p);
    int all_have;
    MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all_have) {
        if (!have) fprintf(stderr, PROG ": rank %d: out of memory or no FFTW "
                           "plan\n", rank);
        MPI_Finalize();
        return 2;
    }

    int monitor = wants_monitor(PAPC_GATHER, o.gather) ||
                  wants_monitor(PAPC_SCATTER, o.scatter);
    if (monitor) {
        int rc = papc_monitor_init(MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS && rank == 0)
            fprintf(stderr, PROG ": papc_monitor_init: %s\n",
                    papc_strerror(rc));
        monitor = papc_monitor_running();
    }

    run_result res = {0};
    run(&o, &l, &p, &b, monitor, &res);
    if (monitor) papc_monitor_finalize();

    int status = 0;
    if (rank == 0) {
        summary s;
        summarize(&o, &l, &res, &s);
        int check_ok = !o.check || res.max_err <= o.tol;
        print_report(&o, &l, &res, &s, check_ok);
        if (o.csv) append_csv(&o, &l, &res, &s);
        if (o.trace) write_trace(&o, &l, &res);
        status = check_ok ? 0 : 1;
        free(res.all);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    destroy_plans(&p);
    free_buffers(&b);
    fftw_cleanup();
    free(l.count);
    free(l.start);
    MPI_Finalize();
    return status;
}
