/*
 * test_background.c — back-to-back background (B*) collectives under
 * imbalanced arrivals: the regression test of issue 11, defect 3.
 *
 * Hundreds of calls in a row on MPI_COMM_WORLD with the monitor running.
 * Before each call every rank sleeps a random 0..max ms (drawn from the
 * seed, the call number and the rank), instrumented like a program with
 * papc_processing_start / papc_progress(0.5), so ranks arrive unevenly and
 * run into the next call while others are still in the previous one --
 * the interleavings in which a background job of call n+1 met a relay of
 * call n in the same monitor thread.  Roots and counts vary per call (the
 * same on every rank).  Every result is checked against a reference the
 * rank computes itself (no native collective in between: it would
 * synchronise the ranks and hide the interleavings).
 *
 * A watchdog thread per rank: when the rank stays in one step (a call, the
 * monitor's init or finalize) longer than --watchdog seconds, it prints
 * which call (number, collective, algorithm, root, count) the rank is in
 * and for how long, waits a few seconds so that the other hung ranks print
 * too, and exits with status 3: a hang fails the test with the place of
 * every rank, it never hangs ctest.
 *
 * Usage (under mpiexec):
 *   test_background [--mode=pair|mixed] [--calls=N] [--seed=S]
 *                   [--max-sleep=MS] [--fault=F] [--watchdog=S] [--no-progress]
 *     pair   scatter background_sorted_binomial, then gather
 *            background_sorted_linear_sync, alternating (the case)
 *     mixed  a random arrival-aware algorithm per call, half of them the
 *            pair above (BSLN, BSBN gather, SLS, SBN, SLIN, PRR, SLT too)
 *     --fault=F  PAPC_ARRIVAL_FAULT=F (random, reverse, ...), set before
 *                MPI starts, the same on every rank
 * Exit status: 0 all calls right; 1 a wrong result or an error code
 * (FAIL lines name the call and print the command that replays it); 3 the
 * watchdog fired (HANG lines).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "papcoll.h"

static struct {
    const char *mode;
    int calls;
    unsigned long long seed;
    int max_sleep_ms;
    const char *fault;
    int watchdog;
    int progress;
} opt = {"pair", 300, 1, 20, NULL, 20, 1};

static int rank, size;
static long failures;
static char cmdline[1024];

/* ---- the watchdog ---- */

static pthread_mutex_t wd_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char what[256];   /* the step this rank is in */
    double since;     /* when it entered it (CLOCK_MONOTONIC seconds) */
    int active;
    int stop;
} wd;

static double mono(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void wd_enter(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void wd_enter(const char *fmt, ...) {
    va_list ap;
    pthread_mutex_lock(&wd_mu);
    va_start(ap, fmt);
    vsnprintf(wd.what, sizeof wd.what, fmt, ap);
    va_end(ap);
    wd.since = mono();
    wd.active = 1;
    pthread_mutex_unlock(&wd_mu);
}

static void wd_leave(void) {
    pthread_mutex_lock(&wd_mu);
    wd.active = 0;
    pthread_mutex_unlock(&wd_mu);
}

static void *watchdog_main(void *arg) {
    (void)arg;
    for (;;) {
        usleep(100000);
        pthread_mutex_lock(&wd_mu);
        int stop = wd.stop, fire = 0;
        double t = mono() - wd.since;
        char line[1536];
        if (!stop && wd.active && t > opt.watchdog) {
            fire = 1;
            snprintf(line, sizeof line, "HANG rank %d/%d: in %s for %.1f s "
                     "(watchdog %d s)\n  replay: %s\n", rank, size, wd.what,
                     t, opt.watchdog, cmdline);
        }
        pthread_mutex_unlock(&wd_mu);
        if (stop) return NULL;
        if (fire) {
            ssize_t n = write(STDOUT_FILENO, line, strlen(line));
            (void)n;
            /* The other hung ranks entered their step about when this one
             * did: give them time to print before mpirun kills the job. */
            sleep(5);
            _exit(3);
        }
    }
}

/* ---- random numbers, the same on every rank ---- */

static unsigned long long mix(unsigned long long z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static unsigned long long rnd(unsigned long long a, unsigned long long b,
                              unsigned long long c) {
    return mix(mix(mix(opt.seed ^ 0x5eedULL) ^ a) ^ (b * 0x1000193ULL)) ^
           mix(c + 0x632be5abULL);
}

/* The value of element i of rank r's block in call n. */
static int val(int n, int r, int i) {
    return (int)(mix(((unsigned long long)n << 40) ^
                     ((unsigned long long)r << 24) ^ (unsigned)i) &
                 0x7fffffff);
}

/* ---- the calls ---- */

typedef enum { C_SCATTER, C_GATHER, C_ALLREDUCE } coll;

typedef struct step {
    coll c;
    const char *alg;
} step;

static const step pair_steps[] = {
    {C_SCATTER, "background_sorted_binomial"},
    {C_GATHER, "background_sorted_linear_sync"},
};

static const step mixed_steps[] = {
    {C_SCATTER, "background_sorted_linear"},
    {C_GATHER, "background_sorted_binomial"},
    {C_SCATTER, "sorted_binomial"},
    {C_GATHER, "sorted_linear_sync"},
    {C_SCATTER, "sorted_linear"},
    {C_GATHER, "sorted_binomial"},
    {C_ALLREDUCE, "pre_reduced_ring"},
    {C_ALLREDUCE, "sorted_linear_tree"},
    {C_ALLREDUCE, "pre_reduced_ring_published"},
};

static const char *coll_name(coll c) {
    return c == C_SCATTER ? "scatter" : c == C_GATHER ? "gather"
                                                      : "allreduce";
}

/* Call n: which step, root, count (the same on every rank). */
static step step_of(int n) {
    if (!strcmp(opt.mode, "pair")) return pair_steps[n % 2];
    /* mixed: even calls of a pair stay the pair half the time */
    unsigned long long r = rnd(n / 2, 11, 0);
    if (r % 2 == 0) return pair_steps[n % 2];
    return mixed_steps[rnd(n, 12, 0) % (sizeof mixed_steps /
                                        sizeof *mixed_steps)];
}

static int root_of(int n) { return (int)(rnd(n, 13, 0) % (unsigned)size); }

static int count_of(int n) {
    /* ints per block: small, around the 1024-byte split of BSLS, larger */
    static const int counts[] = {0, 1, 7, 100, 255, 256, 300, 1000, 3000};
    return counts[rnd(n, 14, 0) % (sizeof counts / sizeof *counts)];
}

static void fail(int n, const step *s, int root, int count, const char *fmt,
                 ...) __attribute__((format(printf, 5, 6)));
static void fail(int n, const step *s, int root, int count, const char *fmt,
                 ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (failures++ < 10)
        printf("FAIL rank %d: call %d %s %s root=%d count=%d: %s\n"
               "  replay: %s\n", rank, n, coll_name(s->c), s->alg, root,
               count, msg, cmdline);
}

/* A compute phase of ms milliseconds, instrumented at half-time. */
static void compute(double ms) {
    if (opt.progress) papc_processing_start();
    usleep((useconds_t)(ms * 500));
    if (opt.progress) papc_progress(0.5);
    usleep((useconds_t)(ms * 500));
    if (opt.progress) papc_processing_end();
}

static void run_call(int n, int *sbuf, int *rbuf) {
    step s = step_of(n);
    int root = root_of(n), count = count_of(n), rc = MPI_SUCCESS;
    double ms = opt.max_sleep_ms > 0
                    ? (double)(rnd(n, 15, (unsigned)rank) % 1000001) / 1e6 *
                          opt.max_sleep_ms
                    : 0;
    compute(ms);
    wd_enter("call %d (%s %s, root %d, count %d)", n, coll_name(s.c), s.alg,
             root, count);
    switch (s.c) {
    case C_SCATTER:
        if (rank == root)
            for (int r = 0; r < size; r++)
                for (int i = 0; i < count; i++)
                    sbuf[(size_t)r * count + i] = val(n, r, i);
        for (int i = 0; i < count; i++) rbuf[i] = -1;
        rc = papc_scatter_alg(sbuf, count, MPI_INT, rbuf, count, MPI_INT,
                              root, MPI_COMM_WORLD, s.alg);
        break;
    case C_GATHER:
        for (int i = 0; i < count; i++) sbuf[i] = val(n, rank, i);
        if (rank == root)
            for (size_t i = 0; i < (size_t)size * count; i++) rbuf[i] = -1;
        rc = papc_gather_alg(sbuf, count, MPI_INT, rbuf, count, MPI_INT,
                             root, MPI_COMM_WORLD, s.alg);
        break;
    case C_ALLREDUCE:
        for (int i = 0; i < count; i++) sbuf[i] = val(n, rank, i) & 0xffff;
        for (int i = 0; i < count; i++) rbuf[i] = -1;
        rc = papc_allreduce_alg(sbuf, rbuf, count, MPI_INT, MPI_SUM,
                                MPI_COMM_WORLD, s.alg);
        break;
    }
    wd_leave();
    if (rc != MPI_SUCCESS) {
        fail(n, &s, root, count, "returned %d (%s)", rc, papc_strerror(rc));
        return;
    }
    /* the reference */
    if (s.c == C_SCATTER) {
        for (int i = 0; i < count; i++)
            if (rbuf[i] != val(n, rank, i)) {
                fail(n, &s, root, count, "element %d: got %d, want %d", i,
                     rbuf[i], val(n, rank, i));
                return;
            }
    } else if (s.c == C_GATHER) {
        if (rank != root) return;
        for (int r = 0; r < size; r++)
            for (int i = 0; i < count; i++)
                if (rbuf[(size_t)r * count + i] != val(n, r, i)) {
                    fail(n, &s, root, count, "block %d element %d: got %d, "
                         "want %d", r, i, rbuf[(size_t)r * count + i],
                         val(n, r, i));
                    return;
                }
    } else {
        for (int i = 0; i < count; i++) {
            int want = 0;
            for (int r = 0; r < size; r++) want += val(n, r, i) & 0xffff;
            if (rbuf[i] != want) {
                fail(n, &s, root, count, "element %d: got %d, want %d", i,
                     rbuf[i], want);
                return;
            }
        }
    }
}

static void parse_args(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strncmp(a, "--mode=", 7)) opt.mode = a + 7;
        else if (!strncmp(a, "--calls=", 8)) opt.calls = atoi(a + 8);
        else if (!strncmp(a, "--seed=", 7)) opt.seed = strtoull(a + 7, NULL, 0);
        else if (!strncmp(a, "--max-sleep=", 12)) opt.max_sleep_ms = atoi(a + 12);
        else if (!strncmp(a, "--fault=", 8)) opt.fault = a + 8;
        else if (!strncmp(a, "--watchdog=", 11)) opt.watchdog = atoi(a + 11);
        else if (!strcmp(a, "--no-progress")) opt.progress = 0;
        else {
            fprintf(stderr, "test_background: unknown option %s\n", a);
            exit(2);
        }
    }
    if (strcmp(opt.mode, "pair") && strcmp(opt.mode, "mixed")) {
        fprintf(stderr, "test_background: --mode=pair|mixed\n");
        exit(2);
    }
    if (opt.watchdog < 1) opt.watchdog = 1;
}

int main(int argc, char **argv) {
    parse_args(argc, argv);
    /* Before MPI and the monitor start, the same on every rank. */
    if (opt.fault && *opt.fault) setenv("PAPC_ARRIVAL_FAULT", opt.fault, 1);
    else unsetenv("PAPC_ARRIVAL_FAULT");
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(cmdline, sizeof cmdline, "mpirun -np %d %s --mode=%s "
             "--calls=%d --seed=%llu --max-sleep=%d%s%s%s", size, argv[0],
             opt.mode, opt.calls, opt.seed, opt.max_sleep_ms,
             opt.fault ? " --fault=" : "", opt.fault ? opt.fault : "",
             opt.progress ? "" : " --no-progress");
    pthread_t wdt;
    pthread_create(&wdt, NULL, watchdog_main, NULL);

    wd_enter("papc_monitor_init");
    int rc = papc_monitor_init(MPI_COMM_WORLD);
    wd_leave();
    if (rc != MPI_SUCCESS) {
        printf("FAIL rank %d: papc_monitor_init: %s\n", rank,
               papc_strerror(rc));
        failures++;
    }
    if (rank == 0 && !papc_monitor_running())
        printf("NOTE: no monitor thread (thread level %d): the background "
               "algorithms run as their foreground twins\n", provided);

    size_t cap = (size_t)size * 3000 + 1;
    int *sbuf = malloc(cap * sizeof *sbuf), *rbuf = malloc(cap * sizeof *rbuf);
    double t0 = MPI_Wtime();
    for (int n = 0; n < opt.calls && sbuf && rbuf; n++)
        run_call(n, sbuf, rbuf);
    double t = MPI_Wtime() - t0;

    wd_enter("papc_monitor_finalize (after call %d)", opt.calls - 1);
    rc = papc_monitor_finalize();
    wd_leave();
    if (rc != MPI_SUCCESS) {
        printf("FAIL rank %d: papc_monitor_finalize: %s\n", rank,
               papc_strerror(rc));
        failures++;
    }
    long total = 0;
    wd_enter("the final MPI_Allreduce (after call %d)", opt.calls - 1);
    MPI_Allreduce(&failures, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    wd_leave();
    pthread_mutex_lock(&wd_mu);
    wd.stop = 1;
    pthread_mutex_unlock(&wd_mu);
    pthread_join(wdt, NULL);
    if (rank == 0)
        printf("test_background P=%d mode=%s calls=%d seed=%llu fault=%s: "
               "%ld failure(s), %.1f s\n", size, opt.mode, opt.calls,
               opt.seed, opt.fault ? opt.fault : "none", total, t);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return total ? 1 : 0;
}
