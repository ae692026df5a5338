/*
 * test_arrival_fanout.c — who receives the arrival estimates (issue 16):
 * each estimate must go only to the deciders it can concern (at most
 * ceil(log2 P) peers, src/arrival/exchange.c), never to every peer again,
 * and the deciders must still get them.  Run with P >= 4 (ctest: 6).
 *
 * Two monitor lifetimes, each an instrumented loop
 * (compute 1-3 ms by rank, papc_progress(0.5) half-way):
 *   fixed    gather sorted_linear_sync at root 0, then allreduce
 *            sorted_linear_tree (decider 0): one decider, so every
 *            estimate goes to at most 1 peer;
 *   rotating (a monitor restarted on the same communicator: it must
 *            serve it again, which it did not before issue 16's fix)
 *            gather sorted_linear_sync at roots 1, 2, 3 in turn: at most
 *            ceil(log2 P) peers per estimate, and fewer than P - 1.
 * The counts come from the runtime's own report (PAPC_ARRIVAL_STATS=<file>,
 * written by rank 0 at finalize, src/arrival/report.c), so the test reads
 * what a user reads.  The deciders must have progress predictions for at
 * least half of the other ranks' arrivals (papc_arrival_take_errors: one
 * error per prediction met by an arrival), so sending estimates nowhere
 * fails too.  Gather and allreduce results are checked.
 * Exit status 0 and "test_arrival_fanout: passed", or a line
 * "FANOUT FAIL: ..." and status 1 (the ctest with PAPC_ESTIMATE_DESTS=all
 * expects that line for the estimate counts).
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "papcoll.h"
#include "arrival/arrival.h"

enum { ITERS = 30, COUNT = 16 };

static int rank, size;
static MPI_Comm comm;  /* of the current phase */

#define FAIL(...)                                                           \
    do {                                                                    \
        fprintf(stderr, "FANOUT FAIL: rank %d: ", rank);                    \
        fprintf(stderr, __VA_ARGS__);                                       \
        fputc('\n', stderr);                                                \
        MPI_Abort(MPI_COMM_WORLD, 1);                                       \
    } while (0)

typedef struct stats {
    long long estimates, est_msgs, notices;
} stats;

/* Parses the PAPC_ARRIVAL_STATS file rank 0 wrote. */
static stats read_stats(const char *path) {
    stats s = {-1, -1, -1};
    FILE *f = fopen(path, "r");
    if (!f) FAIL("no stats file %s", path);
    char line[512], kind[32];
    long long msgs, bytes;
    while (fgets(line, sizeof line, f)) {
        const char *e = strstr(line, "estimates=");
        if (e) s.estimates = atoll(e + strlen("estimates="));
        if (sscanf(line, "%31s %lld %lld", kind, &msgs, &bytes) == 3) {
            if (!strcmp(kind, "estimate")) s.est_msgs = msgs;
            if (!strcmp(kind, "notice")) s.notices = msgs;
        }
    }
    fclose(f);
    if (s.estimates < 0 || s.est_msgs < 0 || s.notices < 0)
        FAIL("stats file %s lacks a field", path);
    return s;
}

static void compute(int iter) {
    double ms = 1.0 + (rank + iter) % 3;
    papc_processing_start();
    usleep((useconds_t)(ms * 500));
    papc_progress(0.5);
    usleep((useconds_t)(ms * 500));
}

static void gather_at(int root, const char *alg, int iter) {
    int send[COUNT], *recv = malloc((size_t)size * COUNT * sizeof *recv);
    if (!recv) FAIL("no memory");
    for (int i = 0; i < COUNT; i++) send[i] = rank * 1000 + i + iter;
    if (papc_gather_alg(send, COUNT, MPI_INT, recv, COUNT, MPI_INT, root,
                        comm, alg) != MPI_SUCCESS)
        FAIL("gather %s failed", alg);
    if (rank == root)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < COUNT; i++)
                if (recv[r * COUNT + i] != r * 1000 + i + iter)
                    FAIL("gather %s: wrong block of rank %d", alg, r);
    free(recv);
}

static void allreduce_slt(int iter) {
    int send[COUNT], recv[COUNT];
    for (int i = 0; i < COUNT; i++) send[i] = rank + i + iter;
    if (papc_allreduce_alg(send, recv, COUNT, MPI_INT, MPI_SUM,
                           comm, "sorted_linear_tree") != MPI_SUCCESS)
        FAIL("allreduce failed");
    for (int i = 0; i < COUNT; i++)
        if (recv[i] != size * (size - 1) / 2 + size * (i + iter))
            FAIL("allreduce: wrong sum at %d", i);
}

/* Progress predictions met by an arrival at this rank as a decider. */
static int progress_seen(void) {
    static double errs[1 << 14];
    return papc_arrival_take_errors(0, errs, 1 << 14);
}

static int log2_ceil(int n) {
    int k = 0;
    while ((1 << k) < n) k++;
    return k;
}

/* One monitor lifetime; returns the counts of its finalize report and
 * the progress predictions every decider saw, summed. */
static stats run_phase(const char *name, int rotating, const char *file,
                       int *seen_total) {
    if (papc_monitor_init(comm) != MPI_SUCCESS)
        FAIL("papc_monitor_init");
    if (!papc_monitor_running()) FAIL("no monitor (MPI_THREAD_MULTIPLE?)");
    progress_seen();  /* start from an empty log */
    for (int it = 0; it < ITERS; it++) {
        compute(it);
        if (rotating) {
            gather_at(1 + it % 3, "sorted_linear_sync", it);
        } else {
            gather_at(0, "sorted_linear_sync", it);
            compute(it);
            allreduce_slt(it);
        }
    }
    int seen = progress_seen();
    MPI_Allreduce(&seen, seen_total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) setenv("PAPC_ARRIVAL_STATS", file, 1);
    if (papc_monitor_finalize() != MPI_SUCCESS) FAIL("finalize %s", name);
    stats s = {0, 0, 0};
    if (rank == 0) {
        s = read_stats(file);
        remove(file);
        printf("%s: %lld estimates, %lld estimate messages (%.2f per "
               "estimate), %lld notices; %d progress predictions met at "
               "the deciders\n", name, s.estimates, s.est_msgs,
               s.estimates ? (double)s.est_msgs / (double)s.estimates : 0.0,
               s.notices, *seen_total);
    }
    return s;
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 4) FAIL("needs at least 4 processes");
    char file[256];
    snprintf(file, sizeof file, "%s/papc_fanout_%d.txt",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    MPI_Bcast(file, sizeof file, MPI_CHAR, 0, MPI_COMM_WORLD);

    /* Predictions met: each of ITERS calls (twice as many in the fixed
     * phase) has P - 1 other ranks whose estimate may reach the decider;
     * at least half must (the first calls at a new root may miss). */
    int seen = 0;
    comm = MPI_COMM_WORLD;
    stats a = run_phase("fixed", 0, file, &seen);
    if (rank == 0) {
        if (a.estimates < ITERS * (size - 1))
            FAIL("fixed: only %lld estimates made", a.estimates);
        if (a.est_msgs > a.estimates)
            FAIL("fixed: estimate sent to more than its one decider: "
                 "%lld messages for %lld estimates", a.est_msgs,
                 a.estimates);
        if (seen < ITERS * (size - 1))
            FAIL("fixed: the decider met only %d progress predictions",
                 seen);
    }
    stats b = run_phase("rotating", 1, file, &seen);
    if (rank == 0) {
        int cap = log2_ceil(size);
        if (b.est_msgs > (long long)cap * b.estimates ||
            b.est_msgs >= (long long)(size - 1) * b.estimates)
            FAIL("rotating: %lld estimate messages for %lld estimates "
                 "(at most %d peers each)", b.est_msgs, b.estimates, cap);
        if (seen < ITERS * (size - 1) / 2)
            FAIL("rotating: the deciders met only %d progress predictions",
                 seen);
        printf("test_arrival_fanout: passed\n");
    }
    MPI_Finalize();
    return 0;
}
