/*
 * papc-predict — how well the arrival monitor predicts arrivals.
 *
 * Emulates the papers' iterative benchmark (pap-allreduce Fig. 9,
 * pap-scatter-gather Sect. 5): per iteration two MPI_Barriers, a compute
 * phase emulated with usleep and split at 50 % (papc_progress(0.5) there
 * when instrumented), then an arrival-aware gather at root 0
 * (sorted_linear_sync by default).  Delay modes: one-late (rank 1 computes
 * max-delay longer) and rand-late (every rank computes a uniform [0, max]
 * longer, drawn from --seed, the iteration and the rank).  Every mode runs
 * twice: instrumented (papc_processing_start / papc_progress(0.5) /
 * papc_processing_end) and uninstrumented (the history predictor alone),
 * each on its own call site so neither learns from the other.
 *
 * Printed per mode and predictor: the absolute error |predicted - actual|
 * of each rank's arrival as seen at the decider (root 0), in its own clock
 * (mean, median, max in ms, over every rank but the root and every
 * iteration after the first --skip ones).  The "decision" rows are the
 * error of the arrival time the order was actually formed with, for the
 * ranks not there yet when it was formed: what the algorithm was told,
 * whichever predictor it came from (a progress report that comes after
 * the decision improves the progress row, not this one).
 *
 * --interleave: every iteration first runs an instrumented compute phase
 * of --compute ms followed by a native MPI_Allreduce (not arrival-aware),
 * as programs (and papc-bench, which gives every algorithm its own phase)
 * do; that phase's progress report must not be taken for the next one's.
 * --max-decision-mean=MS: exit 1 when the instrumented runs' decision
 * error has a mean above MS (the uninstrumented ones depend on how
 * regular the history is).  The progress row comes from the
 * instrumented run, the history row from the uninstrumented one; the
 * history predictor's error in the instrumented run is printed in
 * parentheses (there the progress estimate supersedes it when it comes).
 *
 * Usage: mpirun -np P papc-predict [--iters=N] [--compute=MS]
 *        [--max-delay=MS] [--seed=S] [--skip=K] [--count=INTS]
 *        [--alg=NAME] [--mode=one-late|rand-late|both] [--interleave]
 *        [--max-decision-mean=MS]
 * PAPC_PREDICT_TRACE=1 prints every iteration's errors to stderr instead
 * (the summary then only holds what the trace left).
 * Needs MPI_THREAD_MULTIPLE; uses the public API plus one internal query
 * (papc_arrival_take_errors, src/arrival/arrival.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include "papcoll.h"
#include "../src/arrival/arrival.h"

/* papc_arrival_take_errors kinds: progress, history, decision. */
#define NERR 3

typedef struct opts {
    int iters, skip, count;
    double compute_ms, max_delay_ms;
    unsigned seed;
    const char *alg, *mode;
    int interleave;
    double max_decision_mean_ms;
} opts;

static int parse(int argc, char **argv, opts *o) {
    o->iters = 30;
    o->skip = 3;
    o->count = 256;
    o->compute_ms = 20;
    o->max_delay_ms = 20;
    o->seed = 1;
    o->alg = "sorted_linear_sync";
    o->mode = "both";
    o->interleave = 0;
    o->max_decision_mean_ms = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strncmp(a, "--iters=", 8)) o->iters = atoi(a + 8);
        else if (!strncmp(a, "--skip=", 7)) o->skip = atoi(a + 7);
        else if (!strncmp(a, "--count=", 8)) o->count = atoi(a + 8);
        else if (!strncmp(a, "--compute=", 10)) o->compute_ms = atof(a + 10);
        else if (!strncmp(a, "--max-delay=", 12)) o->max_delay_ms = atof(a + 12);
        else if (!strncmp(a, "--seed=", 7)) o->seed = (unsigned)atol(a + 7);
        else if (!strncmp(a, "--alg=", 6)) o->alg = a + 6;
        else if (!strncmp(a, "--mode=", 7)) o->mode = a + 7;
        else if (!strcmp(a, "--interleave")) o->interleave = 1;
        else if (!strncmp(a, "--max-decision-mean=", 20))
            o->max_decision_mean_ms = atof(a + 20);
        else return 0;
    }
    return o->iters > o->skip && o->skip >= 0 && o->count > 0;
}

/* Uniform [0, 1) from (seed, iteration, rank): the same on every run. */
static double draw(unsigned seed, int it, int rank) {
    unsigned long long x = seed * 0x9E3779B97F4A7C15ull ^
                           ((unsigned long long)it << 32) ^ (unsigned)rank;
    x ^= x >> 33; x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return (double)(x >> 11) / 9007199254740992.0;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Prints one row; returns its mean in ms (-1 when empty). */
static double print_row(const char *mode, const char *pred, double *e, int n,
                        const char *extra) {
    if (n == 0) {
        printf("%-10s %-9s %6d %9s %9s %9s%s\n", mode, pred, 0, "-", "-", "-",
               extra);
        return -1;
    }
    qsort(e, (size_t)n, sizeof *e, cmp);
    double s = 0;
    for (int i = 0; i < n; i++) s += e[i];
    double med = n % 2 ? e[n / 2] : (e[n / 2 - 1] + e[n / 2]) / 2;
    printf("%-10s %-9s %6d %9.3f %9.3f %9.3f%s\n", mode, pred, n,
           1e3 * s / n, 1e3 * med, 1e3 * e[n - 1], extra);
    return 1e3 * s / n;
}

/* One run of o->iters iterations; returns errors taken at the root. */
static int run(const opts *o, int one_late, int instrumented, int site,
               double **errs, int *nerr, int rank, int size) {
    /* Each run its own call site: its own byte count. */
    int count = o->count + site;
    int *send = malloc((size_t)count * sizeof *send);
    int *recv = rank == 0 ? malloc((size_t)count * (size_t)size * sizeof *recv)
                          : NULL;
    if (!send || (rank == 0 && !recv)) {
        free(send);
        return MPI_ERR_NO_MEM;
    }
    int rc = MPI_SUCCESS;
    for (int it = 0; it < o->iters && rc == MPI_SUCCESS; it++) {
        for (int i = 0; i < count; i++) send[i] = rank + it;
        double delay = one_late ? (rank == 1 ? o->max_delay_ms : 0)
                                : o->max_delay_ms * draw(o->seed, it, rank);
        double half_us = 1e3 * (o->compute_ms + delay) / 2;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        if (o->interleave) {
            if (instrumented) papc_processing_start();
            usleep((useconds_t)(500 * o->compute_ms));
            if (instrumented) papc_progress(0.5);
            usleep((useconds_t)(500 * o->compute_ms));
            if (instrumented) papc_processing_end();
            int x = rank, y;
            MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        }
        if (instrumented) papc_processing_start();
        usleep((useconds_t)half_us);
        if (instrumented) papc_progress(0.5);
        usleep((useconds_t)half_us);
        if (instrumented) papc_processing_end();
        rc = papc_gather_alg(send, count, MPI_INT, recv, count, MPI_INT, 0,
                             MPI_COMM_WORLD, o->alg);
        if (getenv("PAPC_PREDICT_TRACE") && rank == 0) {
            double tr[256];
            for (int p = 0; p < NERR; p++) {
                int n = papc_arrival_take_errors(p, tr, 256);
                fprintf(stderr, "it %d pred %d:", it, p);
                for (int i = 0; i < n; i++) fprintf(stderr, " %.1f", 1e3 * tr[i]);
                fprintf(stderr, "\n");
            }
        }
        if (it + 1 == o->skip && rank == 0) { /* learning iterations */
            double dump[4096];
            for (int p = 0; p < NERR; p++)
                while (papc_arrival_take_errors(p, dump, 4096) == 4096) {}
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    usleep(5000); /* let the last notices reach the root's monitor */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        for (int p = 0; p < NERR; p++) {
            int cap = o->iters * size + 16;
            errs[p] = malloc((size_t)cap * sizeof **errs);
            nerr[p] = errs[p] ? papc_arrival_take_errors(p, errs[p], cap) : 0;
        }
    free(send);
    free(recv);
    return rc;
}

int main(int argc, char **argv) {
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    opts o;
    if (!parse(argc, argv, &o)) {
        if (rank == 0)
            fprintf(stderr, "usage: papc-predict [--iters=N] [--compute=MS] "
                    "[--max-delay=MS] [--seed=S] [--skip=K] [--count=INTS] "
                    "[--alg=NAME] [--mode=one-late|rand-late|both] "
                    "[--interleave] [--max-decision-mean=MS]\n");
        MPI_Finalize();
        return 2;
    }
    if (provided < MPI_THREAD_MULTIPLE || size < 2) {
        if (rank == 0)
            fprintf(stderr, "papc-predict: needs MPI_THREAD_MULTIPLE and at "
                    "least 2 processes\n");
        MPI_Finalize();
        return 1;
    }
    int rc = papc_monitor_init(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("# papc-predict: P=%d iters=%d (first %d not counted) "
               "compute=%.1f ms max-delay=%.1f ms seed=%u alg=%s\n",
               size, o.iters, o.skip, o.compute_ms, o.max_delay_ms, o.seed,
               o.alg);
        printf("%-10s %-9s %6s %9s %9s %9s\n", "mode", "predictor", "n",
               "mean_ms", "median_ms", "max_ms");
    }
    int site = 0, failed = 0;
    for (int m = 0; m < 2 && rc == MPI_SUCCESS; m++) {
        const char *mname = m == 0 ? "one-late" : "rand-late";
        if (strcmp(o.mode, "both") && strcmp(o.mode, mname)) continue;
        double *ei[NERR] = {NULL, NULL, NULL}, *eu[NERR] = {NULL, NULL, NULL};
        int ni[NERR] = {0, 0, 0}, nu[NERR] = {0, 0, 0};
        rc = run(&o, m == 0, 1, site++, ei, ni, rank, size);
        if (rc == MPI_SUCCESS) rc = run(&o, m == 0, 0, site++, eu, nu, rank, size);
        if (rank == 0 && rc == MPI_SUCCESS) {
            char extra[96] = "";
            if (ni[1]) {
                double s = 0;
                for (int i = 0; i < ni[1]; i++) s += ei[1][i];
                snprintf(extra, sizeof extra,
                         "   (history while instrumented: mean %.3f ms)",
                         1e3 * s / ni[1]);
            }
            print_row(mname, "progress", ei[0], ni[0], extra);
            double m1 = print_row(mname, "decision", ei[2], ni[2],
                                  "   (instrumented)");
            print_row(mname, "history", eu[1], nu[1], "");
            print_row(mname, "decision", eu[2], nu[2], "   (uninstrumented)");
            if (o.max_decision_mean_ms >= 0 && m1 > o.max_decision_mean_ms) {
                printf("FAIL: %s: mean decision error %.3f ms above %.1f "
                       "ms\n", mname, m1, o.max_decision_mean_ms);
                failed = 1;
            }
        }
        for (int p = 0; p < NERR; p++) {
            free(ei[p]);
            free(eu[p]);
        }
    }
    if (rc != MPI_SUCCESS && rank == 0)
        fprintf(stderr, "papc-predict: %s\n", papc_strerror(rc));
    MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    papc_monitor_finalize();
    MPI_Finalize();
    return rc == MPI_SUCCESS && !failed ? 0 : 1;
}
