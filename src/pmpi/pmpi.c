/* pmpi.c — the drop-in layer: MPI_Gather, MPI_Scatter, MPI_Bcast,
 * MPI_Reduce, MPI_Allreduce, MPI_Gatherv and MPI_Scatterv of an unmodified
 * program, put under it with LD_PRELOAD (papc-run), go to papcoll's plain
 * calls; whatever papcoll does not serve goes to PMPI_*.  The rules are in
 * pmpi.h.  Per call: one relaxed atomic load, papcoll's call, and on error
 * one thread-local read; no getenv (read once), no allocation.
 *
 * Threads: MPI_Init and MPI_Init_thread ask MPI for MPI_THREAD_MULTIPLE
 * when the arrival monitor may run (PAPC_MONITOR not 0) and give the
 * program min(level asked, level MPI gave); MPI_Query_thread answers the
 * same.  When MPI refuses MPI_THREAD_MULTIPLE, rank 0 says so on one line
 * of stderr and papcoll runs without a monitor (PAPC_MONITOR=0 is set for
 * the rest of the process); when MPI grants it, PAPC_MONITOR=1 is set
 * unless the user set it, so that the plain calls may start the monitor
 * and choose by arrivals (src/arrival/choose.c).  Uses the public API
 * only. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <papcoll.h>
#include "pmpi.h"

/* 0: not known yet (MPI not initialized, or the environment not read),
 * 1: route to papcoll, 2: pass everything to PMPI_* (PAPC_PMPI=0, or MPI
 * finalized). */
static atomic_int layer_state;
static int env_read, layer_off, monitor_may_run;
static int thread_raised, thread_reported = MPI_THREAD_SINGLE;

static int env_is_zero(const char *name) {
    const char *v = getenv(name);
    return v && !strcmp(v, "0");
}

static void read_env(void) {
    if (env_read) return;
    layer_off = env_is_zero("PAPC_PMPI");
    monitor_may_run = !env_is_zero("PAPC_MONITOR");
    env_read = 1;
}

/* The slow path of active(): the first calls, or MPI initialized behind
 * the layer's back (Fortran's MPI_INIT reaches PMPI_Init directly). */
static int settle(void) {
    int init = 0, fin = 0;
    read_env();
    if (layer_off) {
        atomic_store(&layer_state, 2);
        return 0;
    }
    PMPI_Initialized(&init);
    if (!init) return 0; /* MPI's answer: the call is erroneous */
    PMPI_Finalized(&fin);
    atomic_store(&layer_state, fin ? 2 : 1);
    return !fin;
}

static inline int active(void) {
    int s = atomic_load_explicit(&layer_state, memory_order_relaxed);
    if (__builtin_expect(s == 1, 1)) return 1;
    if (s == 2) return 0;
    return settle();
}

/* papcoll failed: before starting, MPI runs the call (its answer, success
 * or an error through the error handler); after, the error handler. */
#define ROUTE(papc_expr, pmpi_expr, comm)                                     \
    do {                                                                      \
        if (!active()) return pmpi_expr;                                      \
        int rc_ = papc_expr;                                                  \
        if (__builtin_expect(rc_ == MPI_SUCCESS, 1)) return MPI_SUCCESS;      \
        if (!papc_last_call_started()) return pmpi_expr;                      \
        MPI_Comm_call_errhandler(comm, rc_);                                  \
        return rc_;                                                           \
    } while (0)

/* ---- initialization and threads ---------------------------------------- */

static int after_init(int rc, int required, int provided, int *out) {
    if (rc != MPI_SUCCESS) return rc;
    thread_raised = 1;
    thread_reported = provided < required ? provided : required;
    if (out) *out = thread_reported;
    if (provided < MPI_THREAD_MULTIPLE) {
        int rank = 0;
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            fprintf(stderr, "papcoll: MPI refused MPI_THREAD_MULTIPLE "
                    "(provided %d); running without the arrival monitor\n",
                    provided);
        setenv("PAPC_MONITOR", "0", 1); /* papcoll: no monitor, no 2nd line */
        monitor_may_run = 0;
    } else {
        /* An unmodified program never starts the monitor itself: let the
         * first large plain call on the world start it, so the choice can
         * weigh arrivals (issue 15; the user's own setting wins). */
        setenv("PAPC_MONITOR", "1", 0);
    }
    atomic_store(&layer_state, 1);
    return rc;
}

/* The finalize report starts after a successful init with the layer on. */
static int with_report(int rc) {
    if (rc == MPI_SUCCESS && !layer_off) papc_pmpi_report_init();
    return rc;
}

int papc_pmpi_init(int *argc, char ***argv) {
    read_env();
    if (layer_off || !monitor_may_run)
        return with_report(PMPI_Init(argc, argv));
    int provided = MPI_THREAD_SINGLE;
    int rc = PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    return with_report(after_init(rc, MPI_THREAD_SINGLE, provided, NULL));
}

int papc_pmpi_init_thread(int *argc, char ***argv, int required,
                          int *provided) {
    read_env();
    if (layer_off || !monitor_may_run || required > MPI_THREAD_MULTIPLE ||
        required < MPI_THREAD_SINGLE)
        return with_report(PMPI_Init_thread(argc, argv, required, provided));
    int got = MPI_THREAD_SINGLE;
    int rc = PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &got);
    return with_report(after_init(rc, required, got, provided));
}

int papc_pmpi_query_thread(int *provided) {
    if (thread_raised && provided) {
        int init = 0, fin = 0;
        PMPI_Initialized(&init);
        PMPI_Finalized(&fin);
        if (init && !fin) {
            *provided = thread_reported;
            return MPI_SUCCESS;
        }
    }
    return PMPI_Query_thread(provided);
}

int papc_pmpi_finalize(void) {
    papc_pmpi_report_finalize(); /* PMPI_ calls only; rank 0 writes */
    atomic_store(&layer_state, 2);
    thread_raised = 0;
    return PMPI_Finalize();
}

/* ---- the collectives ---------------------------------------------------- */

int papc_pmpi_gather(const void *sendbuf, int sendcount,
                     MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm) {
    ROUTE(papc_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                      recvtype, root, comm),
          PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                      recvtype, root, comm),
          comm);
}

int papc_pmpi_scatter(const void *sendbuf, int sendcount,
                      MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm) {
    ROUTE(papc_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                       recvtype, root, comm),
          PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                       recvtype, root, comm),
          comm);
}

int papc_pmpi_bcast(void *buffer, int count, MPI_Datatype datatype, int root,
                    MPI_Comm comm) {
    ROUTE(papc_bcast(buffer, count, datatype, root, comm),
          PMPI_Bcast(buffer, count, datatype, root, comm), comm);
}

int papc_pmpi_reduce(const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, int root,
                     MPI_Comm comm) {
    ROUTE(papc_reduce(sendbuf, recvbuf, count, datatype, op, root, comm),
          PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm),
          comm);
}

int papc_pmpi_allreduce(const void *sendbuf, void *recvbuf, int count,
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    ROUTE(papc_allreduce(sendbuf, recvbuf, count, datatype, op, comm),
          PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm), comm);
}

int papc_pmpi_gatherv(const void *sendbuf, int sendcount,
                      MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[],
                      MPI_Datatype recvtype, int root, MPI_Comm comm) {
    ROUTE(papc_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                       displs, recvtype, root, comm),
          PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                       displs, recvtype, root, comm),
          comm);
}

int papc_pmpi_scatterv(const void *sendbuf, const int sendcounts[],
                       const int displs[], MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm) {
    ROUTE(papc_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                        recvcount, recvtype, root, comm),
          PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                        recvcount, recvtype, root, comm),
          comm);
}

/* The finalize report: one read of a flag set at MPI_Init; when on, the
 * site (the program's return address), bytes and times around the call. */
#define REPORTED(coll, bytes_expr, call_expr)                                 \
    do {                                                                      \
        if (__builtin_expect(papc_pmpi_report_on, 0)) {                       \
            void *ra_ = __builtin_return_address(0);                          \
            double b_ = (bytes_expr);                                         \
            double t_ = PMPI_Wtime();                                         \
            int rrc_ = (call_expr);                                           \
            papc_pmpi_report_leave(ra_, (coll), t_, b_);                      \
            return rrc_;                                                      \
        }                                                                     \
        return call_expr;                                                     \
    } while (0)

/* ---- the C entry points --------------------------------------------------
 * Definitions of MPI's own names: under LD_PRELOAD they come before
 * libmpi's, which stays reachable through the PMPI_ names. */

int MPI_Init(int *argc, char ***argv) { return papc_pmpi_init(argc, argv); }

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    return papc_pmpi_init_thread(argc, argv, required, provided);
}

int MPI_Query_thread(int *provided) {
    return papc_pmpi_query_thread(provided);
}

int MPI_Finalize(void) { return papc_pmpi_finalize(); }

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
               void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
               MPI_Comm comm) {
    REPORTED(PAPC_GATHER,
             papc_pmpi_bytes(PAPC_GATHER, root, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, NULL),
             papc_pmpi_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                            recvtype, root, comm));
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
    REPORTED(PAPC_SCATTER,
             papc_pmpi_bytes(PAPC_SCATTER, root, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, NULL),
             papc_pmpi_scatter(sendbuf, sendcount, sendtype, recvbuf,
                             recvcount, recvtype, root, comm));
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
              MPI_Comm comm) {
    REPORTED(PAPC_BCAST,
             papc_pmpi_bytes(PAPC_BCAST, root, comm, buffer, count, datatype, buffer, 0, datatype, NULL),
             papc_pmpi_bcast(buffer, count, datatype, root, comm));
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
    REPORTED(PAPC_REDUCE,
             papc_pmpi_bytes(PAPC_REDUCE, root, comm, sendbuf, count, datatype, recvbuf, count, datatype, NULL),
             papc_pmpi_reduce(sendbuf, recvbuf, count, datatype, op, root,
                            comm));
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    REPORTED(PAPC_ALLREDUCE,
             papc_pmpi_bytes(PAPC_ALLREDUCE, 0, comm, sendbuf, count, datatype, recvbuf, count, datatype, NULL),
             papc_pmpi_allreduce(sendbuf, recvbuf, count, datatype, op, comm));
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, const int recvcounts[], const int displs[],
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
    REPORTED(PAPC_GATHERV,
             papc_pmpi_bytes(PAPC_GATHERV, root, comm, sendbuf, sendcount, sendtype, recvbuf, 0, recvtype, recvcounts),
             papc_pmpi_gatherv(sendbuf, sendcount, sendtype, recvbuf,
                             recvcounts, displs, recvtype, root, comm));
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[],
                 const int displs[], MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm) {
    REPORTED(PAPC_SCATTERV,
             papc_pmpi_bytes(PAPC_SCATTERV, root, comm, sendbuf, 0, sendtype, recvbuf, recvcount, recvtype, sendcounts),
             papc_pmpi_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                              recvcount, recvtype, root, comm));
}
