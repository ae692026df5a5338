/*
 * papcoll.h — MPI collective algorithms that absorb late processes, irregular
 * blocks and poor algorithm choices.
 *
 * Every collective comes in two forms:
 *
 *   papc_gather(...)            exactly the MPI_Gather signature; papcoll picks
 *                               the algorithm (or PAPC_GATHER_ALGORITHM=<name>
 *                               forces one);
 *   papc_gather_alg(..., name)  the same call running the named algorithm.
 *
 * Calls return MPI_SUCCESS or an MPI error class (MPI_ERR_ROOT, MPI_ERR_COUNT,
 * ...); papc_strerror() gives a one-line message.  On error nothing is sent
 * and the user's buffers are left as they were.  Collectives run on a private
 * duplicate of the user's communicator, so the user's own point-to-point
 * traffic never matches papcoll's messages.
 *
 * Algorithm names are listed by papc_algorithm_count()/papc_algorithm_get()
 * and by `papc-info --algorithms`.
 */
#ifndef PAPCOLL_H
#define PAPCOLL_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PAPC_VERSION_MAJOR 0
#define PAPC_VERSION_MINOR 1
#define PAPC_VERSION_PATCH 0
#define PAPC_VERSION_STRING "0.1.0"

/* The collectives papcoll implements. */
typedef enum papc_collective {
    PAPC_GATHER = 0,
    PAPC_SCATTER,
    PAPC_BCAST,
    PAPC_REDUCE,
    PAPC_ALLREDUCE,
    PAPC_GATHERV,
    PAPC_SCATTERV,
    PAPC_NUM_COLLECTIVES
} papc_collective;

/* Restrictions an algorithm declares: cases it cannot serve.  The plain call
 * falls back to an algorithm without the restriction; the _alg call refuses
 * with an MPI error. */
#define PAPC_RESTRICT_COMMUTATIVE 0x1u /* needs a commutative op */

/* Flags describing how an algorithm works. */
#define PAPC_FLAG_SEGMENTED     0x1u /* pipelines segments (PAPC_SEGSIZE) */
#define PAPC_FLAG_NONBLOCKING   0x2u /* uses non-blocking point-to-point */
#define PAPC_FLAG_ARRIVAL_AWARE 0x4u /* orders work by predicted arrival */
#define PAPC_FLAG_BACKGROUND    0x8u /* runs parts in the monitor thread */

/* Read-only description of one registered algorithm. */
typedef struct papc_algorithm_info {
    papc_collective collective;
    const char *name;        /* snake_case name, e.g. "linear_sync" */
    const char *aliases;     /* space-separated aliases, "" if none */
    unsigned restrictions;   /* PAPC_RESTRICT_* bits */
    unsigned flags;          /* PAPC_FLAG_* bits */
    const char *summary;     /* one line: pattern and source */
} papc_algorithm_info;

/* ---- Registry ---------------------------------------------------------- */

/* "gather", "scatter", ... ; NULL for an invalid value. */
const char *papc_collective_name(papc_collective coll);
/* Parses "gather", "allreduce", ... (case-insensitive); -1 if unknown. */
int papc_collective_from_name(const char *name);
/* Number of algorithms registered for coll (0 for an invalid value). */
int papc_algorithm_count(papc_collective coll);
/* The index-th algorithm of coll, or NULL when out of range. */
const papc_algorithm_info *papc_algorithm_get(papc_collective coll, int index);
/* Looks an algorithm up by name or alias (case-insensitive); NULL if none. */
const papc_algorithm_info *papc_algorithm_find(papc_collective coll,
                                               const char *name);
/* Writes the restrictions as words ("commutative") into buf; returns buf. */
const char *papc_restrictions_string(unsigned restrictions, char *buf,
                                     int len);
/* Writes the flags as words ("segmented nonblocking") into buf; returns buf. */
const char *papc_flags_string(unsigned flags, char *buf, int len);

/* ---- Errors and information ------------------------------------------- */

/* A one-line message for an error returned by papcoll.  When err is the
 * latest error returned to this thread, the message carries the details
 * ("MPI_ERR_ROOT: root 9 is not a rank of a communicator of size 8"). */
const char *papc_strerror(int err);
/* The name of the algorithm the latest successful plain call of coll ran
 * on this thread ("binomial"), or NULL before any call. */
const char *papc_last_algorithm(papc_collective coll);
/* 1 when the latest successful plain call of coll on this thread was
 * watched by the arrival monitor (it ran in an arrival epoch, so its
 * arrivals reach the next call's choice), 0 when it was not: no monitor,
 * arrival selection off, a call too small to weigh, a named algorithm, or
 * one of the calls a quiet call site runs unwatched
 * (PAPC_ARRIVAL_WATCH_EVERY).  The same on every rank of a call.  For
 * diagnostics and tests. */
int papc_last_watched(papc_collective coll);
/* 1 when the latest successful plain call of coll on this thread took the
 * algorithm an earlier call there had chosen from the same agreed arrival
 * view (no new view came between: the earlier call, or this one, was not
 * watched), instead of pricing every row again; 0 otherwise.  The same on
 * every rank of a call.  For diagnostics and tests. */
int papc_last_pick_reused(papc_collective coll);
/* 1 when the latest collective call of this thread (plain or _alg) got
 * past its checks and started its algorithm; 0 when it returned before:
 * an argument papcoll refuses, an intercommunicator, MPI not initialized.
 * A call that failed with 0 here sent nothing and left the buffers as they
 * were (on every rank that passed the same arguments), so it can be handed
 * to MPI unchanged: the drop-in layer (libpapcoll-pmpi) does so, to give
 * the program MPI's own answer. */
int papc_last_call_started(void);
/* The MPI library papcoll was built with (MPI_Get_library_version). */
const char *papc_mpi_library(void);

/* ---- Collectives: library's choice ------------------------------------ */

int papc_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm);
int papc_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm);
int papc_bcast(void *buffer, int count, MPI_Datatype datatype, int root,
               MPI_Comm comm);
int papc_reduce(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm);
int papc_allreduce(const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int papc_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, const int recvcounts[], const int displs[],
                 MPI_Datatype recvtype, int root, MPI_Comm comm);
int papc_scatterv(const void *sendbuf, const int sendcounts[],
                  const int displs[], MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root,
                  MPI_Comm comm);

/* ---- Collectives: a named algorithm ----------------------------------- */
/* Same arguments plus the algorithm's name or alias.  Unknown names give
 * MPI_ERR_ARG; a case the algorithm declares it cannot serve (a
 * non-commutative op for a commutative-only algorithm) gives MPI_ERR_OP. */

int papc_gather_alg(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm, const char *algorithm);
int papc_scatter_alg(const void *sendbuf, int sendcount,
                     MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm,
                     const char *algorithm);
int papc_bcast_alg(void *buffer, int count, MPI_Datatype datatype, int root,
                   MPI_Comm comm, const char *algorithm);
int papc_reduce_alg(const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                    const char *algorithm);
int papc_allreduce_alg(const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                       const char *algorithm);
int papc_gatherv_alg(const void *sendbuf, int sendcount,
                     MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype, int root, MPI_Comm comm,
                     const char *algorithm);
int papc_scatterv_alg(const void *sendbuf, const int sendcounts[],
                      const int displs[], MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm, const char *algorithm);

/* ---- Arrival monitor (the papers' PAT_* instrumentation) ---------------
 *
 * Arrival-aware algorithms (flag PAPC_FLAG_ARRIVAL_AWARE: sorted_linear,
 * background_sorted_linear_sync, pre_reduced_ring, ...) serve the processes
 * predicted to arrive first before the late ones.  Predictions come from a
 * monitor thread per process that learns how far each process' computation
 * has got and exchanges the estimates while the processes still compute:
 *
 *   MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
 *   papc_monitor_init(MPI_COMM_WORLD);                 // PAT_Init
 *   for (...) {
 *       papc_processing_start();                       // PAT_ProcessingStart
 *       compute_first_half();
 *       papc_progress(0.5);                            // PAT_Edge(50 %)
 *       compute_second_half();
 *       papc_processing_end();                         // PAT_ProcessingEnd
 *       papc_gather_alg(..., comm, "bsls");
 *   }
 *   papc_monitor_finalize();                           // PAT_Finalize
 *
 * Without papc_progress calls (an uninstrumented program) the monitor
 * predicts each process' arrival from its history at the call site; without
 * papc_monitor_init it starts at the first arrival-aware call.  Predictions
 * serve calls on the monitor's communicator (the one given to
 * papc_monitor_init, else the first arrival-aware call's if that
 * communicator is congruent to MPI_COMM_WORLD); calls on other
 * communicators run in rank order.  After papc_monitor_finalize the monitor
 * does not start again by itself (papc_monitor_init does).  Arrival-aware calls on the monitor's
 * communicator must be made in the same order on every process (as MPI asks
 * of all collectives on a communicator).  The monitor thread needs
 * MPI_THREAD_MULTIPLE; with less, papcoll says so once (rank 0, stderr) and
 * the background_* algorithms run as their foreground twins.  A wrong or
 * missing prediction may cost time, never a wrong result or a hang.
 *
 * No clock is shared: a process sends how much computing it has LEFT, and
 * each receiver adds that to its own clock.  Orders that several processes
 * must share are decided by one process (the root; rank 0 for allreduce)
 * as soon as the first process arrives, and sent to the others; nobody
 * waits for a slow process' report.  The monitor sleeps between polls
 * (20 us to 1 ms): about 1 % of a core per idle process.  How it works,
 * with measured figures: docs/arrival.md.
 */

/* Starts the monitor on comm (collective over comm; call once, after
 * MPI_Init_thread).  Also fits the point-to-point cost model (α, β, γ)
 * every process then agrees on.  MPI_ERR_OTHER if already started. */
int papc_monitor_init(MPI_Comm comm);
/* This process starts a computation phase (PAT_ProcessingStart).  Without
 * it a phase starts at the exit of the previous arrival-aware call. */
int papc_processing_start(void);
/* fraction (0 < fraction < 1) of this process' computation phase is done
 * (PAT_Edge): the monitor extrapolates the arrival time and sends it to
 * the other processes in the background.  Cheap: never blocks on MPI. */
int papc_progress(double fraction);
/* This process ends its computation phase (PAT_ProcessingEnd); its
 * arrival is taken at the next arrival-aware call itself. */
int papc_processing_end(void);
/* Stops the monitor (collective over the monitor's communicator) and, with
 * PAPC_REPORT=<file>, writes the straggler view (rank 0 writes for all).
 * Called automatically at MPI_Finalize when the program does not. */
int papc_monitor_finalize(void);
/* 1 while a monitor thread runs in this process. */
int papc_monitor_running(void);

/* ---- Model-based selection (issue 12) ----------------------------------
 * With a profile written by papc-tune, a plain call runs the algorithm
 * (and segment size) whose cost model, under the profile's parameters,
 * predicts the least time for the call's P and size; without one, papcoll's
 * fixed rules choose.  The profile is PAPC_PROFILE, else
 * $XDG_CONFIG_HOME/papcoll/profile.json (~/.config/papcoll/profile.json);
 * it is read once per process and checked to be the same on every rank of
 * a communicator at its first call (a mismatch is reported once and every
 * rank uses the fixed rules on that communicator). */

/* One algorithm's prediction for a call. */
typedef struct papc_prediction {
    const char *algorithm;  /* the table row's name */
    size_t segsize;         /* segment size the model picks (0: whole) */
    double seconds;         /* predicted time; < 0 when not a candidate */
    const char *note;       /* why not a candidate, or how it was
                               parameterised; "" when nothing to say */
} papc_prediction;

/* Loads the profile at path (NULL: PAPC_PROFILE, else the default
 * location) for this process, replacing the one loaded.  MPI_SUCCESS, or
 * MPI_ERR_FILE with papc_strerror naming the file and the problem (the
 * fixed rules are used then).  Call it before the first collective, or on
 * every rank alike. */
int papc_profile_load(const char *path);
/* "model" (the default: by the profile's models when one is loaded) or
 * "fixed" (papcoll's fixed size rules, as before issue 12), for this
 * process.  MPI_ERR_ARG for another word.  PAPC_SELECT=fixed sets it at
 * the first call.  Agreed per communicator (papc_settings_agree, below):
 * call it on every rank alike, between the same two calls; where the
 * ranks differ, every rank uses "model". */
int papc_set_selection(const char *mode);
/* Arrival-aware selection (issue 15): on (1, the default) the plain call of
 * gather, scatter, reduce and allreduce on a communicator the arrival
 * monitor serves also weighs the arrival-aware algorithms against the
 * predicted arrival offsets; off (0) it chooses by size alone, as above.
 * For this process.  PAPC_ARRIVAL_SELECT=0 sets it off at the first call.
 * Agreed per communicator as papc_set_selection (where the ranks differ:
 * on). */
int papc_set_arrival_selection(int on);
int papc_get_arrival_selection(void);
/* For benchmarks that run several algorithms at one call site: the calls
 * after it are kept at call sites of their own, told apart by tag (0, the
 * default: by collective, root, bytes and P alone) -- their own history
 * predictor, views and straggler report, as if each algorithm were called
 * from a place of its own.  papc-bench --site-per-row sets one tag per
 * algorithm, so a row's predictions cannot learn an iteration's delays
 * from the rows run before it in that iteration.  For this process; set
 * it on every rank alike, between the same two calls (a site's decider and
 * views are agreed per site).  MPI_ERR_ARG for tag < 0. */
int papc_arrival_site_tag(int tag);
/* The file of the loaded profile, or NULL when none is loaded. */
const char *papc_profile_path(void);

/* Settings that change what a call sends -- PAPC_SEGSIZE,
 * PAPC_KNOMIAL_RADIX, PAPC_<COLLECTIVE>_ALGORITHM, the modes above and the
 * others README's "Environment variables" marks "agreed" -- are read by
 * each process, so papcoll agrees them per communicator, with the profile:
 * when the communicator's first papcoll call makes its private duplicate,
 * and at the first call after this process' settings changed.  Where the
 * ranks differ, every rank of that communicator uses the setting's default
 * (as if unset) and rank 0 names the variable once on stderr.  Change a
 * setting on every rank alike, between the same two calls; changed on some
 * ranks only, they wait in the agreement of their next call while the
 * others run it.
 * papc_settings_agree (collective on comm) agrees this process' settings
 * now, so that the next call on comm does not pay for it (a benchmark
 * that changes PAPC_SEGSIZE between timed calls). */
int papc_settings_agree(MPI_Comm comm);
/* Every algorithm of coll with its predicted time for a call of P
 * processes and bytes (gather/scatter: one rank's block; bcast, reduce,
 * allreduce: the vector), dtype and op (reductions; MPI_DATATYPE_NULL /
 * MPI_OP_NULL otherwise), as the plain call predicts it: sizes fall into
 * classes of eight per octave, predicted at the class's lower bound (a
 * power of two exactly).  Fills up to max rows, sets *n to the number of
 * algorithms and *chosen to the index of the row the plain call runs: the
 * least predicted time, or the fixed rules' row (note "fixed rules") when
 * there is no profile or the selection is "fixed".  MPI_SUCCESS or an
 * error class. */
int papc_explain(papc_collective coll, int P, size_t bytes,
                 MPI_Datatype dtype, MPI_Op op, papc_prediction *rows,
                 int max, int *n, int *chosen);

/* ---- Tuning ------------------------------------------------------------ */
/* Environment variables read at every call:
 *   PAPC_<COLLECTIVE>_ALGORITHM=<name>  force the plain call's algorithm
 *                                       (e.g. PAPC_GATHER_ALGORITHM=binomial);
 *                                       a name that cannot serve the call
 *                                       falls back to the default choice.
 *   PAPC_SEGSIZE=<bytes>                segment size of segmented algorithms
 *                                       (default 8192; 0 = no segmentation).
 *   PAPC_GATHER_FIRST_SEGMENT=<bytes>   first part of linear_sync (1024).
 *   PAPC_TUW_THRESHOLD=<bytes>          gatherv/scatterv size_aware_binomial:
 *                                       a block, or a losing subtree, above
 *                                       this many bytes goes straight to /
 *                                       from the root instead of through the
 *                                       tree (0 = never).  Default
 *                                       2 * PAPC_ALPHA / PAPC_BETA.  Every
 *                                       rank must see the same value (both
 *                                       ends decide which messages go
 *                                       directly), as for the two below.
 *   PAPC_ALPHA=<seconds>                start-up latency α of a message
 *                                       (default 0.8e-6, measured on the
 *                                       development machine's shared
 *                                       memory).
 *   PAPC_BETA=<seconds per byte>        transfer time β per byte (default
 *                                       1.3e-10, i.e. 7.7 GB/s).
 *   PAPC_RADIX_K=<k>[,<k>...]           reduce radix_k: preferred group
 *                                       sizes, tried in order (default
 *                                       8,4,2; the remaining prime factors
 *                                       of P are groups of their own).
 *                                       Every rank must see the same value.
 *   PAPC_VERBOSE=1                      print fall-backs to stderr.
 * Read by the arrival monitor (at its start; PAPC_REPORT at its end):
 *   PAPC_REPORT=<file>                  straggler view written by rank 0 at
 *                                       papc_monitor_finalize (or
 *                                       MPI_Finalize): per call site
 *                                       (collective, root, bytes, P) calls,
 *                                       algorithm(s), predicted-vs-actual
 *                                       arrival error per predictor, ranks
 *                                       that arrived last most often;
 *                                       <file>.csv the same as CSV.
 *                                       Under the drop-in layer
 *                                       (libpapcoll-pmpi) in
 *                                       <file>.stragglers: <file> is the
 *                                       layer's finalize report.
 *   PAPC_ARRIVAL_FAULT=reverse|random|missing|stale
 *                                       testing knob: perturbs every
 *                                       predicted order where it is formed
 *                                       (reversed, shuffled per call,
 *                                       predictions ignored, the previous
 *                                       call's predictions); results never
 *                                       change.  Read when the monitor
 *                                       starts; the same on every rank.
 *   PAPC_MONITOR=0                      never start the monitor lazily
 *                                       (and the drop-in layer does not
 *                                       ask MPI for MPI_THREAD_MULTIPLE).
 *   PAPC_PMPI=0                         the drop-in layer libpapcoll-pmpi
 *                                       passes every call to PMPI_* (read
 *                                       once, at MPI_Init).
 *   PAPC_SLIN_WINDOW=<n>                scatter sorted_linear: sends the
 *                                       root keeps in flight (default 64;
 *                                       0 = the paper's blocking sends).
 *   PAPC_WARMUP=0                       skip the start-up warm-up (one
 *                                       segment each way with every peer).
 *   PAPC_HISTORY_WEIGHT=<w>             weight of the newest sample in the
 *                                       history predictor's mean (0.25).
 */

#ifdef __cplusplus
}
#endif
#endif /* PAPCOLL_H */
