/*
 * smoke.c — the arrival runtime in simulation (SimGrid SMPI): the monitor
 * starts (as an s4u actor beside each rank, src/arrival/transport_smpi.c),
 * and the background and arrival-aware algorithms run with correct results
 * while the ranks arrive late by a pattern that changes every iteration,
 * reporting progress half way (papc_progress), so that the clock-free
 * exchange of estimates feeds every decision.
 *
 * Checked, every iteration: BSLS gather, BSLN scatter, sorted_linear_tree
 * and pre_reduced_ring allreduce, clairvoyant reduce — each against
 * MPI's own collective bit for bit (integers), and the algorithm that ran
 * is the one asked for (no fallback: the background channel is up).  At
 * the end, at rank 0 (the decider of the root-0 calls): progress estimates
 * were received and their errors (|predicted - actual| arrival, the
 * receiver's clock) are below 2 ms (two monitors' poll delays of at most
 * 1 ms each).  Printed: the simulated time per iteration and each
 * algorithm's mean time in call over ranks and iterations.
 * Exit status 0 on success; any failure prints FAIL and exits 1.
 *
 *   smpirun -np 16 -platform P.xml -hostfile H ./papc-smpi-smoke [iters]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "papcoll.h"
#include "arrival/arrival.h"

static int rank, size, failures;

/* Time in call per algorithm, summed over this rank's iterations (the
 * papers' e-bar is its mean over ranks and iterations). */
enum { A_BSLS, A_BSLN, A_SLT, A_PRR, A_CLV, A_N };
static const char *alg_label[A_N] = {"gather bsls", "scatter bsln",
                                     "allreduce slt", "allreduce prr",
                                     "reduce clairvoyant"};
static double in_call[A_N];

static void check(int ok, const char *what, int it) {
    if (!ok) {
        fprintf(stderr, "FAIL rank %d iteration %d: %s\n", rank, it, what);
        failures++;
    }
}

static void check_alg(int rc, papc_collective coll, const char *want,
                      int it) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s returned %s", want, papc_strerror(rc));
    check(rc == MPI_SUCCESS, msg, it);
    const char *ran = papc_last_algorithm(coll);
    snprintf(msg, sizeof msg, "asked %s, ran %s", want, ran ? ran : "?");
    check(ran && !strcmp(ran, want), msg, it);
}

/* Simulated compute of this rank before iteration it: 0-15 ms, a
 * different rank latest each time; progress reported half way. */
static void compute(int it) {
    double d = 1e-3 * ((rank * 7 + it * 5) % size) * 15.0 / (size - 1);
    papc_processing_start();
    usleep((useconds_t)(d * 0.5e6));
    papc_progress(0.5);
    usleep((useconds_t)(d * 0.5e6));
    papc_processing_end();
}

static void run_gather(int it, int n, int *a, int *b, int *ref) {
    int root = it % size;
    for (int i = 0; i < n; i++) a[i] = rank * 1000 + i + it;
    memset(b, 0xff, (size_t)n * size * sizeof *b);
    compute(it);
    double t = MPI_Wtime();
    int rc = papc_gather_alg(a, n, MPI_INT, b, n, MPI_INT, root,
                             MPI_COMM_WORLD, "bsls");
    in_call[A_BSLS] += MPI_Wtime() - t;
    check_alg(rc, PAPC_GATHER, "background_sorted_linear_sync", it);
    MPI_Gather(a, n, MPI_INT, ref, n, MPI_INT, root, MPI_COMM_WORLD);
    if (rank == root)
        check(!memcmp(b, ref, (size_t)n * size * sizeof *b), "bsls result",
              it);
}

static void run_scatter(int it, int n, int *a, int *b, int *ref) {
    int root = (it + 3) % size;
    for (int i = 0; i < n * size; i++) a[i] = i * 3 + it;
    compute(it);
    double t = MPI_Wtime();
    int rc = papc_scatter_alg(a, n, MPI_INT, b, n, MPI_INT, root,
                              MPI_COMM_WORLD, "bsln");
    in_call[A_BSLN] += MPI_Wtime() - t;
    check_alg(rc, PAPC_SCATTER, "background_sorted_linear", it);
    MPI_Scatter(a, n, MPI_INT, ref, n, MPI_INT, root, MPI_COMM_WORLD);
    check(!memcmp(b, ref, (size_t)n * sizeof *b), "bsln result", it);
}

static void run_allreduce(int it, int n, int *a, int *b, int *ref,
                          const char *alg, const char *name, int slot) {
    for (int i = 0; i < n; i++) a[i] = (rank + 1) * (i % 97) + it;
    compute(it);
    double t = MPI_Wtime();
    int rc = papc_allreduce_alg(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                alg);
    in_call[slot] += MPI_Wtime() - t;
    check_alg(rc, PAPC_ALLREDUCE, name, it);
    MPI_Allreduce(a, ref, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(!memcmp(b, ref, (size_t)n * sizeof *b), name, it);
}

static void run_reduce(int it, int n, int *a, int *b, int *ref) {
    for (int i = 0; i < n; i++) a[i] = (rank + 2) * (i % 31) - it;
    compute(it);
    double t = MPI_Wtime();
    int rc = papc_reduce_alg(a, b, n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD,
                             "clairvoyant");
    in_call[A_CLV] += MPI_Wtime() - t;
    check_alg(rc, PAPC_REDUCE, "clairvoyant", it);
    MPI_Reduce(a, ref, n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        check(!memcmp(b, ref, (size_t)n * sizeof *b), "clairvoyant result",
              it);
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 4;
    int rc = papc_monitor_init(MPI_COMM_WORLD);
    check(rc == MPI_SUCCESS && papc_monitor_running(), "monitor running", -1);
    const int n = 16384;   /* ints: 64 KiB per block / vector */
    int *a = malloc((size_t)n * size * sizeof *a);
    int *b = malloc((size_t)n * size * sizeof *b);
    int *ref = malloc((size_t)n * size * sizeof *ref);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters && !failures; it++) {
        run_gather(it, n, a, b, ref);
        run_scatter(it, n, a, b, ref);
        run_allreduce(it, n, a, b, ref, "slt", "sorted_linear_tree",
                      A_SLT);
        run_allreduce(it, n, a, b, ref, "prr", "pre_reduced_ring",
                      A_PRR);
        run_reduce(it, n, a, b, ref);
    }
    double t = MPI_Wtime() - t0;
    /* The clock-free estimates reached the decider. */
    double errs[4096];
    int ne = rank == 0 ? papc_arrival_take_errors(0, errs, 4096) : 0;
    double emax = 0;
    for (int i = 0; i < ne; i++)
        if (errs[i] > emax) emax = errs[i];
    if (rank == 0) {
        check(ne > 0, "no progress estimate reached rank 0", -1);
        check(emax < 2e-3, "progress estimate error above 2 ms", -1);
    }
    rc = papc_monitor_finalize();
    check(rc == MPI_SUCCESS, "monitor finalize", -1);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    double sum[A_N];
    MPI_Reduce(in_call, sum, A_N, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int k = 0; k < A_N; k++)
            printf("  %-20s mean time in call %.3f ms\n", alg_label[k],
                   1e3 * sum[k] / ((double)size * iters));
    if (rank == 0)
        printf("%s: P=%d, %d iterations x 5 calls, %.3f ms simulated per "
               "iteration; rank 0 got %d progress estimates, max error "
               "%.3f ms\n", all ? "FAIL" : "OK", size, iters,
               1e3 * t / iters, ne, 1e3 * emax);
    free(a);
    free(b);
    free(ref);
    MPI_Finalize();
    return all ? 1 : 0;
}
