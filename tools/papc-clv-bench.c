/*
 * papc-clv-bench — schedule generation time of the two Clairvoyant
 * generators, papc_clv_reference and papc_clv_fast (issue 5, item 3), on
 * the instances of clairvoyant-reduce.md Sect. 5.7, printed as the paper's
 * Table 1 (speedup of the fast generator over the reference).
 *
 *   papc-clv-bench [--sizes 4,8,...,2048] [-r 250] [--max-reference N]
 *                  [--csv FILE] [--seed S] [--cache]
 *
 * Instances (P = N for every size; one fresh instance per run):
 *   uniform  arrivals a_i ~ U[0, P + 0.1], root ~ U{0..P-1};
 *   skewed   a_i = 0 except a_{P-1} = N, root 0;
 *   both     round length d ~ U[0.001, 1].
 * Each run generates the instance's schedule with both generators (the
 * order alternates run by run), timed with clock_gettime(CLOCK_MONOTONIC)
 * around the generator call alone (its allocations included, freeing
 * not), and compares the two schedules with papc_clv_equal (every run);
 * papc_clv_check validates the first --check runs of every size and
 * instance type.  Every run's instance comes from its own random stream,
 * a hash of (seed, P, type, run), so one run is reproduced by
 * --sizes P --types TYPE --run K with the same --seed.
 *
 * --cache (issue 15) also times the executor's two paths for one rank
 * (rank = run mod P) on every run's instance: a miss — quantise the
 * arrivals to whole rounds (papc_clv_quantise), generate the rank's plan
 * (papc_clv_plan_quantised: the schedule's transfers of that rank only)
 * and store it (papc_clv_cache_put) — and a hit on the same arrivals
 * shifted by 7 rounds (another agreed vector, the same rounds: quantise,
 * papc_clv_cache_find), and prints both per call with the time saved.
 *
 * Output: Table 1 (the ratio of the mean times reference/fast, as in the
 * paper; also the ratio of the medians), the absolute times per schedule
 * (mean, median, min, ms), the generator state per (process, segment)
 * cell, mean rounds and events; --csv FILE appends one row per size and
 * instance type.  Exit status 0; 1 when the schedules differ on some run,
 * a checked schedule is invalid or a generator fails; 2 on a usage error.
 * No MPI.
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
#include "clairvoyant/cache.h"
#include "clairvoyant/schedule.h"
#include "cli.h"

/* The reference's state per (process, segment) cell, in bits.  Not (yet)
 * in schedule.h: declared weak, so the tool links whether or not
 * reference.c defines it; without it the column prints the dash. */
double papc_clv_reference_bits_per_cell(int P, int N)
    __attribute__((weak));

static double ref_bits(int P, int N) {
    return papc_clv_reference_bits_per_cell
               ? papc_clv_reference_bits_per_cell(P, N) : -1.0;
}

#define MAX_SIZES 64
#define DASH "\xe2\x80\x94" /* U+2014, as the brief's tables print it */

enum { UNIFORM = 0, SKEWED = 1, NTYPES = 2 };
static const char *const type_name[NTYPES] = {"uniform", "skewed"};

typedef struct options {
    int sizes[MAX_SIZES];
    int nsizes;
    int runs;           /* -r */
    int only_run;       /* --run K: run index K alone, -1 = all */
    int max_reference;  /* --max-reference: 0 = no limit */
    int check;          /* --check: runs validated per size and type */
    int warmup;         /* -x: untimed runs per size and type */
    int types[NTYPES];  /* --types */
    uint64_t seed;
    const char *csv;
    int quiet;
    int cache;          /* --cache */
} options;

/* One size and instance type. */
typedef struct cell {
    int P, type, runs, ref_done;
    double ref_mean, ref_median, ref_min;  /* ms */
    double fast_mean, fast_median, fast_min;
    double rounds_mean, events_mean;
    int mismatches, checked, check_failures, errors;
    /* --cache: ms per call of the executor's miss and hit paths */
    double miss_mean, miss_median, miss_min, hit_mean, hit_median, hit_min;
    double plan_bytes_mean;
    int cache_hits, cache_errors;
} cell;

/* ---- random numbers: splitmix64 ----------------------------------------- */

static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static uint64_t next_u64(uint64_t *s) {
    *s += UINT64_C(0x9e3779b97f4a7c15);
    return mix64(*s);
}

/* Uniform on [0, 1] (both ends reachable, as U[a, b] in the paper). */
static double next_unit(uint64_t *s) {
    return (double)(next_u64(s) >> 11) / (double)((UINT64_C(1) << 53) - 1);
}

static uint64_t run_stream(uint64_t seed, int P, int type, int run) {
    uint64_t h = mix64(seed ^ UINT64_C(0x636c762d62656e63)); /* "clv-benc" */
    h = mix64(h ^ (uint64_t)(unsigned)P);
    h = mix64(h ^ ((uint64_t)(unsigned)type << 32));
    return mix64(h ^ ((uint64_t)(unsigned)run << 1));
}

/* The instance of Sect. 5.7 for P = N. */
static void make_instance(int type, int P, uint64_t stream, double *arrival,
                          int *root, double *d) {
    int N = P;
    if (type == UNIFORM) {
        for (int i = 0; i < P; i++)
            arrival[i] = next_unit(&stream) * (P + 0.1);
        *root = (int)(next_u64(&stream) % (uint64_t)P);
    } else {
        for (int i = 0; i < P; i++) arrival[i] = 0.0;
        arrival[P - 1] = (double)N;
        *root = 0;
    }
    *d = 0.001 + next_unit(&stream) * (1.0 - 0.001);
}

/* ---- command line -------------------------------------------------------- */

static void usage(void) {
    fprintf(stderr,
        "usage: papc-clv-bench [options]\n"
        "  --sizes LIST          P = N values, comma-separated "
        "(default 4,8,16,...,2048)\n"
        "  -r, --runs N          runs (instances) per size and type "
        "(default 250)\n"
        "  --max-reference N     skip the reference generator for P > N "
        "(printed as " DASH ")\n"
        "  -x, --warmup N        untimed runs first (instance of run 0; "
        "default 1)\n"
        "  --types LIST          uniform,skewed (default both)\n"
        "  --check N             papc_clv_check the first N runs of every "
        "size and type\n"
        "                        (default 5; 0 = none)\n"
        "  --seed S              random seed (default 1)\n"
        "  --run K               only run index K (reproduces one instance)\n"
        "  --csv FILE            append one row per size and type to FILE\n"
        "  -q, --quiet           no progress line on stderr\n"
        "  --cache               also time the executor's schedule cache: "
        "a miss\n"
        "                        (quantise, generate, keep one rank's plan, "
        "store) and a\n"
        "                        hit (quantise, find), ms per call\n"
        "Instances of clairvoyant-reduce.md 5.7: uniform a_i ~ U[0, P+0.1], "
        "random root;\n"
        "skewed a_i = 0 but a_{P-1} = N, root 0; d ~ U[0.001, 1].  "
        "Exit 1 if the\n"
        "generators' schedules differ on any run or a check fails.\n");
}

static int parse_sizes(const char *list, options *o) {
    char *copy = strdup(list), *save = NULL;
    if (!copy) return -1;
    o->nsizes = 0;
    for (char *t = strtok_r(copy, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        int v;
        /* P = N cells: keep P*N well inside int and memory */
        if (papc_cli_int(t, 1, &v) || v > 65536 || o->nsizes == MAX_SIZES) {
            fprintf(stderr, "papc-clv-bench: bad size '%s' (1..65536, at "
                    "most %d sizes)\n", t, MAX_SIZES);
            free(copy);
            return -1;
        }
        o->sizes[o->nsizes++] = v;
    }
    free(copy);
    return o->nsizes > 0 ? 0 : -1;
}

static int parse_types(const char *list, options *o) {
    char *copy = strdup(list), *save = NULL;
    if (!copy) return -1;
    o->types[UNIFORM] = o->types[SKEWED] = 0;
    int any = 0;
    for (char *t = strtok_r(copy, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        int k = !strcmp(t, "uniform") ? UNIFORM
              : !strcmp(t, "skewed") ? SKEWED : -1;
        if (k < 0) {
            fprintf(stderr, "papc-clv-bench: unknown instance type '%s' "
                    "(uniform, skewed)\n", t);
            free(copy);
            return -1;
        }
        o->types[k] = any = 1;
    }
    free(copy);
    return any ? 0 : -1;
}

/* 0, or -1 (usage printed), or 1 for --help. */
static int parse_options(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->runs = 250;
    o->only_run = -1;
    o->check = 5;
    o->warmup = 1;
    o->seed = 1;
    o->types[UNIFORM] = o->types[SKEWED] = 1;
    for (int P = 4; P <= 2048; P *= 2) o->sizes[o->nsizes++] = P;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return 1;
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            o->quiet = 1;
            continue;
        }
        if (!strcmp(a, "--cache")) {
            o->cache = 1;
            continue;
        }
        if (!v) bad = 1;
        else if (!strcmp(a, "--sizes")) {
            if (parse_sizes(v, o)) return -1;
        } else if (!strcmp(a, "-r") || !strcmp(a, "--runs"))
            bad = papc_cli_int(v, 1, &o->runs);
        else if (!strcmp(a, "--max-reference"))
            bad = papc_cli_int(v, 0, &o->max_reference);
        else if (!strcmp(a, "--types")) {
            if (parse_types(v, o)) return -1;
        } else if (!strcmp(a, "-x") || !strcmp(a, "--warmup"))
            bad = papc_cli_int(v, 0, &o->warmup);
        else if (!strcmp(a, "--check"))
            bad = papc_cli_int(v, 0, &o->check);
        else if (!strcmp(a, "--run"))
            bad = papc_cli_int(v, 0, &o->only_run);
        else if (!strcmp(a, "--seed")) {
            char *end;
            errno = 0;
            unsigned long long s = strtoull(v, &end, 0);
            bad = end == v || *end || errno;
            o->seed = (uint64_t)s;
        } else if (!strcmp(a, "--csv")) o->csv = v;
        else bad = 1;
        if (bad) {
            fprintf(stderr, "papc-clv-bench: bad option '%s'%s%s\n", a,
                    v ? " " : "", v ? v : "");
            return -1;
        }
        i++;
    }
    if (o->only_run >= 0 && o->only_run >= o->runs) o->runs = o->only_run + 1;
    return 0;
}

/* ---- measuring ----------------------------------------------------------- */

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void stats(double *t, int n, double *mean, double *median,
                  double *min) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += t[i];
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    *mean = s / n;
    *median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    *min = t[0];
}

static int progress_tty;

static void progress(const options *o, const cell *c, int done, int total,
                     double started) {
    if (o->quiet) return;
    double el = (now_ms() - started) / 1e3;
    if (progress_tty)
        fprintf(stderr, "\r\033[K[P = N = %d %s] run %d/%d  %.1f s", c->P,
                type_name[c->type], done, total, el);
    else if (done == total)
        fprintf(stderr, "[P = N = %d %s] %d runs  %.1f s%s\n", c->P,
                type_name[c->type], total, el,
                c->mismatches ? "  MISMATCHES" : "");
    if (progress_tty && done == total) fputc('\n', stderr);
    fflush(stderr);
}

/* --cache: the executor's miss path for rank on (arrival, d), then its hit
 * path on the arrivals 7 rounds later; times in ms into *miss, *hit (the
 * hit's only when found).  1 on a hit, 0 on a miss, -1 on an error. */
static int time_cache(const double *arrival, int P, int root, double d,
                      int rank, double *miss, double *hit,
                      double *plan_bytes) {
    papc_clv_cache *cache = papc_clv_cache_new(1, 4);
    int32_t *q = malloc((size_t)P * sizeof *q);
    double *later = malloc((size_t)P * sizeof *later);
    int rc = -1;
    if (!cache || !q || !later) goto out;
    const papc_clv_site_key site = {1, P, P, (long long)P * 4096};
    double t0 = now_ms();
    papc_clv_plan plan;
    if (papc_clv_quantise(arrival, P, d, q) != 0 ||
        papc_clv_plan_quantised(q, P, P, root, rank, &plan) != 0)
        goto out;
    int bad;
    *plan_bytes = (double)papc_clv_plan_bytes(&plan);
    bad = papc_clv_cache_put(cache, &site, root, q, &plan) == NULL;
    *miss = now_ms() - t0;
    papc_clv_plan_free(&plan);
    if (bad) goto out;
    for (int p = 0; p < P; p++) later[p] = arrival[p] + 7.0 * d;
    t0 = now_ms();
    const papc_clv_plan *found =
        papc_clv_quantise(later, P, d, q) == 0
            ? papc_clv_cache_find(cache, &site, root, q) : NULL;
    *hit = now_ms() - t0;
    rc = found != NULL;
out:
    papc_clv_cache_free(cache);
    free(q);
    free(later);
    return rc;
}

/* Runs one size and instance type; fills *c. */
static int run_cell(const options *o, int P, int type, cell *c) {
    memset(c, 0, sizeof *c);
    c->P = P;
    c->type = type;
    int first = o->only_run >= 0 ? o->only_run : 0;
    int n = o->only_run >= 0 ? 1 : o->runs;
    int with_ref = o->max_reference == 0 || P <= o->max_reference;
    double *arrival = malloc((size_t)P * sizeof *arrival);
    double *tref = malloc((size_t)n * sizeof *tref);
    double *tfast = malloc((size_t)n * sizeof *tfast);
    double *tmiss = malloc((size_t)n * sizeof *tmiss);
    double *thit = malloc((size_t)n * sizeof *thit);
    int nhit = 0, nmiss = 0;
    double plan_bytes = 0.0;
    if (!arrival || !tref || !tfast || !tmiss || !thit) {
        free(arrival), free(tref), free(tfast), free(tmiss), free(thit);
        fprintf(stderr, "papc-clv-bench: out of memory\n");
        return -1;
    }
    double started = now_ms(), last = started;
    for (int w = 0; w < o->warmup; w++) {
        int root;
        double d;
        papc_clv_schedule ref, fast;
        memset(&ref, 0, sizeof ref);
        memset(&fast, 0, sizeof fast);
        make_instance(type, P, run_stream(o->seed, P, type, first), arrival,
                      &root, &d);
        if (with_ref) (void)papc_clv_reference(arrival, P, P, root, d, &ref);
        (void)papc_clv_fast(arrival, P, P, root, d, &fast);
        papc_clv_free(&ref);
        papc_clv_free(&fast);
    }
    double rounds = 0.0, events = 0.0;
    for (int k = 0; k < n; k++) {
        int run = first + k, root;
        double d;
        make_instance(type, P, run_stream(o->seed, P, type, run), arrival,
                      &root, &d);
        papc_clv_schedule ref, fast;
        memset(&ref, 0, sizeof ref);
        memset(&fast, 0, sizeof fast);
        int rc_ref = 0, rc_fast;
        double t0, t1;
        /* alternate the order so a warm cache or allocator favours
         * neither generator */
        if (with_ref && run % 2 == 0) {
            t0 = now_ms();
            rc_ref = papc_clv_reference(arrival, P, P, root, d, &ref);
            tref[k] = now_ms() - t0;
        }
        t1 = now_ms();
        rc_fast = papc_clv_fast(arrival, P, P, root, d, &fast);
        tfast[k] = now_ms() - t1;
        if (with_ref && run % 2 == 1) {
            t0 = now_ms();
            rc_ref = papc_clv_reference(arrival, P, P, root, d, &ref);
            tref[k] = now_ms() - t0;
        }
        if (rc_ref || rc_fast) {
            if (c->errors++ == 0)
                fprintf(stderr, "%spapc-clv-bench: P = N = %d %s run %d: "
                        "%s failed (reproduce: --seed %llu --sizes %d "
                        "--types %s --run %d)\n",
                        progress_tty ? "\n" : "", P, type_name[type], run,
                        rc_fast ? "papc_clv_fast" : "papc_clv_reference",
                        (unsigned long long)o->seed, P, type_name[type], run);
        } else {
            if (with_ref && !papc_clv_equal(&ref, &fast)) {
                if (c->mismatches++ == 0)
                    fprintf(stderr, "%spapc-clv-bench: P = N = %d %s run %d:"
                            " the schedules differ (reference %zu events, "
                            "%d rounds; fast %zu events, %d rounds; "
                            "reproduce: --seed %llu --sizes %d --types %s "
                            "--run %d)\n",
                            progress_tty ? "\n" : "", P, type_name[type],
                            run, ref.nevents, ref.rounds, fast.nevents,
                            fast.rounds, (unsigned long long)o->seed, P,
                            type_name[type], run);
            }
            if (k < o->check) {
                char why[256] = "";
                c->checked++;
                int bad_fast = papc_clv_check(&fast, arrival, d, why,
                                              sizeof why) != 0;
                int bad_ref = 0;
                char why_ref[256] = "";
                if (with_ref)
                    bad_ref = papc_clv_check(&ref, arrival, d, why_ref,
                                             sizeof why_ref) != 0;
                if (bad_fast || bad_ref) {
                    if (c->check_failures++ == 0)
                        fprintf(stderr, "%spapc-clv-bench: P = N = %d %s "
                                "run %d: papc_clv_check fails for %s: %s "
                                "(reproduce: --seed %llu --sizes %d "
                                "--types %s --run %d)\n",
                                progress_tty ? "\n" : "", P, type_name[type],
                                run, bad_fast ? "fast" : "reference",
                                bad_fast ? why : why_ref,
                                (unsigned long long)o->seed, P,
                                type_name[type], run);
                }
            }
            rounds += fast.rounds;
            events += (double)fast.nevents;
        }
        papc_clv_free(&ref);
        papc_clv_free(&fast);
        if (o->cache) {
            double tm = 0, th = 0, pb = 0;
            int h = time_cache(arrival, P, root, d, run % P, &tm, &th, &pb);
            if (h < 0) c->cache_errors++;
            else {
                tmiss[nmiss++] = tm;
                plan_bytes += pb;
                if (h) thit[nhit++] = th;
            }
        }
        double t = now_ms();
        if (t - last > 250.0 || k + 1 == n) {
            progress(o, c, k + 1, n, started);
            last = t;
        }
    }
    c->runs = n;
    c->ref_done = with_ref;
    if (with_ref)
        stats(tref, n, &c->ref_mean, &c->ref_median, &c->ref_min);
    stats(tfast, n, &c->fast_mean, &c->fast_median, &c->fast_min);
    int ok = n - c->errors;
    c->rounds_mean = ok ? rounds / ok : 0.0;
    c->events_mean = ok ? events / ok : 0.0;
    if (nmiss) {
        stats(tmiss, nmiss, &c->miss_mean, &c->miss_median, &c->miss_min);
        c->plan_bytes_mean = plan_bytes / nmiss;
    }
    if (nhit) stats(thit, nhit, &c->hit_mean, &c->hit_median, &c->hit_min);
    c->cache_hits = nhit;
    free(arrival), free(tref), free(tfast), free(tmiss), free(thit);
    return 0;
}

/* ---- output -------------------------------------------------------------- */

/* Right-aligns a number (or the dash when !have) in a field of w
 * columns; the dash is one column but three bytes. */
static void field(int w, int have, const char *fmt, double v) {
    char buf[64];
    if (have) snprintf(buf, sizeof buf, fmt, v);
    else snprintf(buf, sizeof buf, DASH);
    int cols = have ? (int)strlen(buf) : 1;
    printf("%*s%s", w > cols ? w - cols : 0, "", buf);
}

/* A time in ms, about 4 significant digits, never in e-notation. */
static const char *ms_fmt(double v) {
    return v >= 1000 ? "%.0f" : v >= 100 ? "%.1f" : v >= 10 ? "%.2f"
         : v >= 1 ? "%.3f" : v >= 0.01 ? "%.4f" : "%.6f";
}

static cell *at(cell *cells, int s, int type) {
    return &cells[s * NTYPES + type];
}

static void print_tables(const options *o, cell *cells) {
    printf("\nTable 1 — speedup of papc_clv_fast over papc_clv_reference "
           "(mean time reference / mean time fast;\nin brackets the ratio "
           "of the medians), %d run%s per size and type, seed %llu\n\n",
           o->only_run >= 0 ? 1 : o->runs,
           (o->only_run >= 0 ? 1 : o->runs) == 1 ? "" : "s",
           (unsigned long long)o->seed);
    printf("%8s", "P = N");
    for (int t = 0; t < NTYPES; t++)
        if (o->types[t]) printf("  %20s", type_name[t]);
    printf("\n");
    for (int s = 0; s < o->nsizes; s++) {
        printf("%8d", o->sizes[s]);
        for (int t = 0; t < NTYPES; t++) {
            if (!o->types[t]) continue;
            cell *c = at(cells, s, t);
            int have = c->ref_done && c->fast_mean > 0 && c->fast_median > 0;
            printf("  ");
            field(9, have, "%.2f", have ? c->ref_mean / c->fast_mean : 0);
            printf(" ");
            if (have) {
                char b[32];
                snprintf(b, sizeof b, "(%.2f)",
                         c->ref_median / c->fast_median);
                printf("%10s", b);
            } else
                printf("%10s", "");
        }
        printf("\n");
    }

    printf("\nTime per schedule, ms (mean / median / min)\n\n");
    printf("%8s  %-8s  %32s  %32s\n", "P = N", "type", "reference",
           "fast");
    printf("%8s  %-8s  %10s%11s%11s  %10s%11s%11s\n", "", "", "mean",
           "median", "min", "mean", "median", "min");
    for (int s = 0; s < o->nsizes; s++)
        for (int t = 0; t < NTYPES; t++) {
            if (!o->types[t]) continue;
            cell *c = at(cells, s, t);
            printf("%8d  %-8s  ", c->P, type_name[t]);
            field(10, c->ref_done, ms_fmt(c->ref_mean), c->ref_mean);
            field(11, c->ref_done, ms_fmt(c->ref_median), c->ref_median);
            field(11, c->ref_done, ms_fmt(c->ref_min), c->ref_min);
            printf("  ");
            field(10, 1, ms_fmt(c->fast_mean), c->fast_mean);
            field(11, 1, ms_fmt(c->fast_median), c->fast_median);
            field(11, 1, ms_fmt(c->fast_min), c->fast_min);
            printf("\n");
        }

    printf("\nGenerator state per (process, segment) cell, bits; "
           "schedules (means over the runs)\n\n");
    printf("%8s  %-8s  %9s  %9s  %10s  %10s\n", "P = N", "type",
           "fast", "reference", "rounds", "events");
    for (int s = 0; s < o->nsizes; s++)
        for (int t = 0; t < NTYPES; t++) {
            if (!o->types[t]) continue;
            cell *c = at(cells, s, t);
            printf("%8d  %-8s  ", c->P, type_name[t]);
            field(9, 1, "%.2f", papc_clv_fast_bits_per_cell(c->P, c->P));
            printf("  ");
            double rb = ref_bits(c->P, c->P);
            field(9, rb >= 0, "%.1f", rb);
            printf("  ");
            field(10, 1, "%.1f", c->rounds_mean);
            printf("  ");
            field(10, 1, "%.1f", c->events_mean);
            printf("\n");
        }

    if (o->cache) {
        printf("\nSchedule cache, the executor's paths for one rank, ms per "
               "call (mean / median / min):\nmiss = quantise + generate "
               "the rank's plan + store; hit = quantise + find, the\n"
               "arrivals 7 rounds later\n\n");
        printf("%8s  %-8s  %10s%11s%11s  %10s%11s%11s  %10s  %6s  %9s\n",
               "P = N", "type", "miss mean", "median", "min", "hit mean",
               "median", "min", "saved", "hits", "plan KB");
        for (int s = 0; s < o->nsizes; s++)
            for (int t = 0; t < NTYPES; t++) {
                if (!o->types[t]) continue;
                cell *c = at(cells, s, t);
                int h = c->cache_hits > 0;
                printf("%8d  %-8s  ", c->P, type_name[t]);
                field(10, 1, ms_fmt(c->miss_mean), c->miss_mean);
                field(11, 1, ms_fmt(c->miss_median), c->miss_median);
                field(11, 1, ms_fmt(c->miss_min), c->miss_min);
                printf("  ");
                field(10, h, ms_fmt(c->hit_mean), c->hit_mean);
                field(11, h, ms_fmt(c->hit_median), c->hit_median);
                field(11, h, ms_fmt(c->hit_min), c->hit_min);
                printf("  ");
                field(10, h, ms_fmt(c->miss_mean - c->hit_mean),
                      c->miss_mean - c->hit_mean);
                printf("  %3d/%-3d  ", c->cache_hits, c->runs);
                field(9, 1, "%.1f", c->plan_bytes_mean / 1024.0);
                printf("\n");
            }
    }

    int mism = 0, checked = 0, cfail = 0, err = 0, compared = 0;
    for (int i = 0; i < o->nsizes * NTYPES; i++) {
        if (!o->types[i % NTYPES]) continue;
        mism += cells[i].mismatches;
        checked += cells[i].checked;
        cfail += cells[i].check_failures;
        err += cells[i].errors;
        if (cells[i].ref_done) compared += cells[i].runs - cells[i].errors;
    }
    if (compared)
        printf("\nEqual schedules: %d of %d compared runs%s", compared - mism,
               compared, mism ? " — MISMATCHES" : "");
    else
        printf("\nEqual schedules: not compared (reference skipped)");
    printf("; papc_clv_check: %d of %d sampled runs pass%s%s\n",
           checked - cfail, checked, cfail ? " — FAILURES" : "",
           err ? "; generator errors" : "");
    if (err) printf("Generator errors: %d runs\n", err);
}

static int write_csv(const options *o, cell *cells) {
    FILE *f = fopen(o->csv, "a");
    if (!f) {
        fprintf(stderr, "papc-clv-bench: %s: %s\n", o->csv, strerror(errno));
        return -1;
    }
    fseek(f, 0, SEEK_END);
    if (ftell(f) == 0)
        fprintf(f, "P,N,instance,runs,seed,ref_mean_ms,ref_median_ms,"
                "ref_min_ms,fast_mean_ms,fast_median_ms,fast_min_ms,"
                "speedup_mean,speedup_median,rounds_mean,events_mean,"
                "fast_bits_per_cell,ref_bits_per_cell,mismatches,checked,"
                "check_failures,errors\n");
    for (int s = 0; s < o->nsizes; s++)
        for (int t = 0; t < NTYPES; t++) {
            if (!o->types[t]) continue;
            cell *c = at(cells, s, t);
            fprintf(f, "%d,%d,%s,%d,%llu,", c->P, c->P, type_name[t],
                    c->runs, (unsigned long long)o->seed);
            if (c->ref_done)
                fprintf(f, "%.6g,%.6g,%.6g,", c->ref_mean, c->ref_median,
                        c->ref_min);
            else
                fprintf(f, ",,,");
            fprintf(f, "%.6g,%.6g,%.6g,", c->fast_mean, c->fast_median,
                    c->fast_min);
            if (c->ref_done && c->fast_mean > 0 && c->fast_median > 0)
                fprintf(f, "%.6g,%.6g,", c->ref_mean / c->fast_mean,
                        c->ref_median / c->fast_median);
            else
                fprintf(f, ",,");
            fprintf(f, "%.6g,%.6g,%.6g,", c->rounds_mean, c->events_mean,
                    papc_clv_fast_bits_per_cell(c->P, c->P));
            double rb = ref_bits(c->P, c->P);
            if (rb >= 0) fprintf(f, "%.6g", rb);
            fprintf(f, ",%d,%d,%d,%d\n", c->mismatches, c->checked,
                    c->check_failures, c->errors);
        }
    int bad = ferror(f);
    if (fclose(f) || bad) {
        fprintf(stderr, "papc-clv-bench: %s: write error\n", o->csv);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc) {
        usage();
        return rc > 0 ? 0 : 2;
    }
    progress_tty = isatty(STDERR_FILENO);
    cell *cells = calloc((size_t)o.nsizes * NTYPES, sizeof *cells);
    if (!cells) {
        fprintf(stderr, "papc-clv-bench: out of memory\n");
        return 1;
    }
    printf("# papc-clv-bench: P = N in {");
    for (int s = 0; s < o.nsizes; s++)
        printf("%s%d", s ? "," : "", o.sizes[s]);
    printf("}, %d run%s per size and type%s, seed %llu, reference for "
           "%s\n", o.only_run >= 0 ? 1 : o.runs,
           (o.only_run >= 0 ? 1 : o.runs) == 1 ? "" : "s",
           o.only_run >= 0 ? " (--run)" : "", (unsigned long long)o.seed,
           o.max_reference ? "P <= --max-reference" : "every size");
    if (o.max_reference)
        printf("# reference skipped above P = %d\n", o.max_reference);
    fflush(stdout);
    for (int s = 0; s < o.nsizes; s++)
        for (int t = 0; t < NTYPES; t++)
            if (o.types[t] && run_cell(&o, o.sizes[s], t,
                                       at(cells, s, t))) {
                free(cells);
                return 1;
            }
    print_tables(&o, cells);
    int fail = 0;
    for (int i = 0; i < o.nsizes * NTYPES; i++)
        if (o.types[i % NTYPES])
            fail |= cells[i].mismatches || cells[i].check_failures ||
                    cells[i].errors || cells[i].cache_errors;
    if (o.csv && write_csv(&o, cells)) fail = 1;
    free(cells);
    return fail ? 1 : 0;
}
