/*
 * core.h — internal interface shared by every algorithm: the call descriptor,
 * the algorithm table row, error reporting, point-to-point, datatype and op
 * helpers.  Nothing here is public.
 */
#ifndef PAPC_CORE_H
#define PAPC_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>
#include "papcoll.h"
#include "model/model.h"

/* One collective call, validated, on the private communicator.
 * Buffers are exactly what the user passed (MPI_IN_PLACE included);
 * fields that MPI declares insignificant on a rank are left as passed. */
typedef struct papc_call {
    papc_collective coll;
    const void *sendbuf;
    void *recvbuf;          /* bcast: the buffer */
    int sendcount, recvcount; /* bcast/reduce/allreduce: count in both */
    MPI_Datatype sendtype, recvtype; /* reduce-like/bcast: datatype in both */
    const int *counts;      /* gatherv: recvcounts, scatterv: sendcounts */
    const int *displs;      /* gatherv/scatterv displacements (root only) */
    MPI_Op op;
    int commutative;        /* 1 when op is commutative */
    int root;               /* -1 for allreduce */
    MPI_Comm comm;          /* private duplicate of the user's comm */
    MPI_Comm user_comm;     /* the communicator the user passed */
    int rank, size;
    int tag;                /* first of PAPC_TAGS_PER_CALL tags for this call */
    size_t segsize;         /* bytes per segment, 0 = whole message */
    size_t first_segment;   /* linear_sync first part in bytes */
    const char *algorithm;  /* name of the algorithm running the call */
    int arrival_view;       /* set by the plain call's arrival-aware choice
                               (src/arrival/choose.c): papc_arrival_begin/
                               end also take the call's agreed arrival
                               vector and keep it at the call site */
    int pick_reused;        /* the choice took the pick an earlier call made
                               from the same view (choose.c) */
} papc_call;

#define PAPC_TAGS_PER_CALL 8

typedef int (*papc_run_fn)(const papc_call *c);

/* One row of an algorithm table. */
typedef struct papc_alg_desc {
    papc_algorithm_info info;
    papc_run_fn run;
    /* The cost model derived from run's code (model/model.h); pure, no
     * MPI.  It sits beside run in the algorithm's file and is named by the
     * row: papc_<collective>_<name>_model. */
    papc_model_fn model;
    /* An arrival-aware row whose code, with every process on time, is a
     * classic row's (SLS: linear_sync's turns in another order): that
     * row's name, whose fitted parameters the row's balanced model takes
     * when the profile has none of its own (papc-tune times the classic
     * rows only).  NULL: none; such a row takes the ping-pong α, β. */
    const char *fitted_as;
} papc_alg_desc;

/* Per-collective tables, defined in src/coll/<collective>/algorithms.c. */
extern const papc_alg_desc papc_gather_algs[];
extern const int papc_gather_nalgs;
extern const papc_alg_desc papc_scatter_algs[];
extern const int papc_scatter_nalgs;
extern const papc_alg_desc papc_bcast_algs[];
extern const int papc_bcast_nalgs;
extern const papc_alg_desc papc_reduce_algs[];
extern const int papc_reduce_nalgs;
extern const papc_alg_desc papc_allreduce_algs[];
extern const int papc_allreduce_nalgs;
extern const papc_alg_desc papc_gatherv_algs[];
extern const int papc_gatherv_nalgs;
extern const papc_alg_desc papc_scatterv_algs[];
extern const int papc_scatterv_nalgs;

/* ---- registry / dispatch (registry.c, dispatch.c) ---- */
const papc_alg_desc *papc_registry_find(papc_collective coll, const char *name);
const papc_alg_desc *papc_registry_row(papc_collective coll, int index);
int papc_registry_count(papc_collective coll);
/* 1 when the algorithm can serve this call. */
int papc_alg_can_run(const papc_alg_desc *a, const papc_call *c);
/* Checks that name is an algorithm of c's collective able to serve c
 * (MPI_ERR_ARG / MPI_ERR_OP otherwise); *out receives its row. */
int papc_check_named(const papc_call *c, const char *name,
                     const papc_alg_desc **out);
/* Runs the call: explicit algorithm name (may be NULL for the plain call). */
int papc_dispatch(papc_call *c, const char *explicit_name);
/* The plain call's choice (select.c): by the profile's cost models, else
 * the fixed rules; may set c->segsize (unless PAPC_SEGSIZE is set). */
const papc_alg_desc *papc_select(papc_call *c);
/* Bytes of a call as the models count them: gather/scatter one rank's
 * block, bcast/reduce/allreduce the vector (the same on every rank by MPI's
 * signature rules); 0 for gatherv/scatterv. */
size_t papc_call_bytes(const papc_call *c);

/* A row's balanced prediction for the arrival-aware choice. */
typedef struct papc_row_prediction {
    double seconds;      /* predicted time with every rank arriving at once */
    size_t segsize;      /* the segment size it was predicted with (0: none) */
    double alpha, beta;  /* the row's parameters behind the prediction */
    double gamma_op;     /* s per byte reduced */
} papc_row_prediction;
/* Row a's prediction for c (at its size class) under the agreed profile, at
 * the row's best measured segment size; without an agreed profile from
 * the p2p parameters (the monitor's agreed fit) at default_seg.  Returns 0
 * (seconds -1) when the row has no model or cannot serve c.  Arrival-aware
 * rows are predicted too. */
int papc_select_predict(papc_call *c, const papc_alg_desc *a,
                        size_t default_seg, papc_params p2p, double gamma_op,
                        papc_row_prediction *out);
/* papc_select_predict's model branch for an explicit profile p, P, bytes
 * (already the size class's bound: papc_select_class_bytes), so that
 * papc-tune --arrival-refit predicts t0 exactly as the plain call does. */
int papc_select_predict_with(const papc_profile *p, const papc_alg_desc *a,
                             int P, size_t bytes, int commutative,
                             papc_opclass k, papc_row_prediction *out);
/* The size class's lower bound the models predict a call of bytes at. */
size_t papc_select_class_bytes(size_t bytes);
/* The profile every rank of c's communicator agreed on (the same hash on
 * every rank), NULL when there is none or the ranks differ: the arrival
 * choice reads its corrections only from an agreed profile. */
const papc_profile *papc_select_agreed_profile(papc_call *c);
/* The plain call's arrival-aware choice (src/arrival/choose.c): runs c
 * itself (*handled = 1) when the monitor serves c's communicator and the
 * call is large enough to be weighed, else leaves it (*handled = 0) to
 * the classic row.  seg0 is c->segsize before papc_select. */
int papc_arrival_plain(papc_call *c, const papc_alg_desc *classic,
                       size_t seg0, int *handled);
/* 0 from the start of a call (begin) until dispatch hands it to the
 * algorithm, then 1: papc_last_call_started() reads it. */
extern _Thread_local int papc_call_started;

/* ---- errors (error.c) ---- */
/* Records a detailed message for this thread and returns cls. */
int papc_error(int cls, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Converts an MPI error code returned by MPI into its class, recording
 * where it happened. */
int papc_mpi_error(int code, const char *where);
#define PAPC_CHECK(expr)                                                      \
    do {                                                                      \
        int papc_rc_ = (expr);                                                \
        if (papc_rc_ != MPI_SUCCESS) return papc_mpi_error(papc_rc_, #expr); \
    } while (0)

/* ---- private communicators (comm.c) ---- */
/* Private duplicate of user comm (cached as an attribute, freed with it);
 * *seq receives this comm's call sequence number (advanced per call). */
int papc_private_comm(MPI_Comm user, MPI_Comm *priv, unsigned *seq);
/* The same private duplicate (created if needed) without advancing the
 * call sequence: for the monitor, which must know which comm it serves. */
int papc_private_comm_peek(MPI_Comm user, MPI_Comm *priv);
/* The profile verdict of user's last agreement (comm.c: with the settings,
 * when the private duplicate is made and at the first call after this
 * process' settings or profile changed); agrees again first when gen is
 * not the generation agreed (a profile loaded during the call). */
int papc_comm_profile_agreed(MPI_Comm user, unsigned gen, int *same);
/* The generation and hash of this process' profile (hash 0: none), loaded
 * if not yet (select.c). */
void papc_select_profile_key(unsigned *gen, uint64_t *hash);
/* Base tag of the seq-th call: messages of different calls never match. */
int papc_call_tag(unsigned seq);
/* Agreed node labels of comm's ranks (collective; lab[size] on every
 * rank, allocated by the caller): with node_size > 0 (PAPC_FIT_NODE_SIZE,
 * agreed by the caller: a testing knob) rank / node_size, blocks taken as
 * nodes (*how = 1); else the lowest comm rank of each rank's node,
 * PMPI_Comm_split_type(MPI_COMM_TYPE_SHARED) with key 0 translated
 * through the groups (*how = 2); if any rank got none, lab[r] = r, every
 * rank a node of its own (*how = 3).  One PMPI_Allgather (besides the
 * split).  The MPI error code, unwrapped.  Used by the monitor's busy fit
 * and reduce clairvoyant_node, which must group ranks alike. */
int papc_node_labels(MPI_Comm comm, int rank, int size, int node_size,
                     int *lab, int *how);

/* ---- point-to-point on the call's comm (p2p.c) ----
 * sub selects one of the call's PAPC_TAGS_PER_CALL tags. */
int papc_send(const papc_call *c, const void *buf, int count, MPI_Datatype t,
              int dst, int sub);
int papc_recv(const papc_call *c, void *buf, int count, MPI_Datatype t,
              int src, int sub);
int papc_isend(const papc_call *c, const void *buf, int count,
               MPI_Datatype t, int dst, int sub, MPI_Request *req);
int papc_irecv(const papc_call *c, void *buf, int count, MPI_Datatype t,
               int src, int sub, MPI_Request *req);
int papc_sendrecv(const papc_call *c, const void *sbuf, int scount,
                  MPI_Datatype stype, int dst, void *rbuf, int rcount,
                  MPI_Datatype rtype, int src, int sub);
int papc_waitall(int n, MPI_Request *reqs);
/* MPI_Testall with the failed request's own error class (as papc_waitall). */
int papc_testall(int n, MPI_Request *reqs, int *done);
/* Cancels/frees requests still active after an error (best effort). */
void papc_cleanup_requests(int n, MPI_Request *reqs);

/* ---- datatypes (dtype.c) ---- */
/* A temporary buffer able to hold count elements of t laid out as t lays
 * them out (true extent respected).  ptr is what to pass to MPI. */
typedef struct papc_tmpbuf {
    void *mem;   /* what to free */
    char *ptr;   /* buffer address to use with (count, t) */
} papc_tmpbuf;
int papc_tmpbuf_alloc(papc_tmpbuf *b, MPI_Datatype t, size_t count);
void papc_tmpbuf_free(papc_tmpbuf *b);
/* Address of element index (in units of t's extent) of buf. */
static inline char *papc_elem(const void *buf, MPI_Datatype t, MPI_Aint index) {
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    return (char *)buf + index * ext;
}
MPI_Aint papc_extent(MPI_Datatype t);
size_t papc_type_size(MPI_Datatype t);
/* 1 when count elements of t are count * size(t) bytes at the buffer's
 * address in typemap order (memcpy may stand for pack/unpack): the
 * typemap runs in memory order without gaps from displacement 0 and the
 * extent is the size.  Cached on derived types. */
int papc_type_contiguous(MPI_Datatype t);
/* Copies scount of stype at src into rcount of rtype at dst (matching
 * signatures, as a send/receive pair would). */
int papc_copy(const void *src, int scount, MPI_Datatype stype, void *dst,
              int rcount, MPI_Datatype rtype);
/* A packed view of (buf, count, t): its count * size(t) bytes in typemap
 * order, the unit in which anything cut across ranks is cut (ranks may use
 * different datatypes of one signature).  A contiguous t is viewed in
 * place (no copy); any other goes through a staging buffer, filled from
 * buf by papc_bytes_pack where the data comes from and returned to buf by
 * papc_bytes_unpack where it arrives (both no-ops in place). */
typedef struct papc_bytes {
    char *ptr;      /* the bytes: buf itself, or the staging buffer */
    size_t len;     /* count * size(t) */
    int staged;     /* 1 when ptr is a staging buffer */
    void *buf;
    int count;
    MPI_Datatype t;
} papc_bytes;
int papc_bytes_init(papc_bytes *b, void *buf, int count, MPI_Datatype t);
int papc_bytes_pack(papc_bytes *b);
int papc_bytes_unpack(papc_bytes *b);
void papc_bytes_free(papc_bytes *b);
/* Splits count elements into segments of about segsize bytes: returns the
 * number of elements per segment (>= 1; count when segsize is 0).  Only
 * for calls whose ranks all pass the same datatype (reduce-like ones, as
 * MPI requires); otherwise cut bytes of a papc_bytes view. */
int papc_segment_count(size_t segsize, MPI_Datatype t, int count);

/* ---- ops (op.c) ---- */
/* inout = in op inout (MPI_Reduce_local order: in is the left operand). */
int papc_reduce_local(const void *in, void *inout, int count, MPI_Datatype t,
                      MPI_Op op);

/* ---- argument checks (call.c) ---- */
/* MPI initialized, comm a valid intracommunicator; fills rank and size. */
int papc_check_comm(MPI_Comm comm, int *rank, int *size);

/* ---- settings agreed per communicator (settings.c) ----
 * The environment variables that change what a call sends (settings.c
 * lists them) and the two modes (papc_set_selection,
 * papc_set_arrival_selection), agreed with the profile (comm.c). */
#define PAPC_SETTINGS_MAX 64
/* getenv() for the library's variables: inside a call, NULL for one that
 * the ranks of the call's communicator do not agree on, so every rank uses
 * the default; outside a call, and for names not agreed, getenv(). */
const char *papc_getenv(const char *name);
/* 1 inside a call whose communicator disagrees on name (also
 * "PAPC_SELECT" and "PAPC_ARRIVAL_SELECT", the effective modes). */
int papc_setting_differs(const char *name);
int papc_settings_count(void);
/* This process' settings now: each[i] one hash per setting; returns their
 * combined hash. */
uint64_t papc_settings_snapshot(uint64_t *each);
/* The hash of the settings a cost model reads (settings.c's "model"
 * ones) as every rank of the communicator uses them: those in differs
 * counted as unset.  The selector keys its cache on it (select.c). */
uint64_t papc_settings_effective(const uint64_t *each, uint64_t differs);
/* Collective on priv: *differs gets one bit per setting whose hash is not
 * the same on every rank (two words per setting, one PMPI_Allreduce). */
int papc_settings_differ(MPI_Comm priv, const uint64_t *each,
                         uint64_t *differs);
/* Rank 0 of the communicator names each differing setting on stderr, once
 * per setting and process. */
void papc_settings_report(uint64_t differs, int rank, int size);
/* From the start of a call (papc_private_comm: its communicator's
 * verdict, differs and effective as papc_settings_effective gave them)
 * until the public call returns (call.c), on this thread: papc_getenv
 * answers from the call's snapshot of the environment (no getenv). */
void papc_settings_enter(uint64_t differs, uint64_t effective);
void papc_settings_leave(void);
/* That hash for the current call (0 outside a call). */
uint64_t papc_settings_effective_now(void);
/* The effective modes as words (select.c): "fixed"/"model", "on"/"off". */
const char *papc_select_mode_word(void);
const char *papc_arrival_mode_word(void);
/* Arrival selection as the call's communicator agreed it (on when the
 * ranks differ). */
int papc_arrival_selection_agreed(void);

/* ---- tuning (call.c) ---- */
size_t papc_env_size(const char *name, size_t dflt);

/* The largest segment a model-sized pipeline (SLT, Clairvoyant) may cut:
 * PAPC_PIPELINE_MAX_SEGMENT bytes (0: no bound), default 64,512, just under
 * the 64 KiB eager limit of Open MPI's TCP transport (btl_tcp_eager_limit,
 * header included).  Above it every segment pays a rendezvous handshake the Hockney
 * model does not see, and on a loaded machine a chain of hundreds of
 * handshakes stalled for seconds (docs/performance.md, issue 11). */
size_t papc_pipeline_max_segment(void);

#endif /* PAPC_CORE_H */
