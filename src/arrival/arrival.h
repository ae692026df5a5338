/*
 * arrival.h — what the arrival-aware algorithms (src/coll/) ask of the
 * arrival runtime: the predicted arrival order of a call's processes, and
 * the background channel of the monitor thread.  Everything else of
 * src/arrival/ (the thread, the estimate exchange, the history predictor,
 * the straggler report) stays behind this header.
 *
 * Guarantees every algorithm may rely on:
 *  - Correctness never depends on a prediction: an order is always a
 *    permutation of 0..size-1; with no information it is rank order.
 *  - PAPC_ORDER_AGREED gives the identical order (and offsets and cost
 *    model) on every rank of the call, whatever the predictions were,
 *    whether or not a monitor runs, and never hangs.
 *  - papc_bg_available() gives the same answer on every rank of a call.
 */
#ifndef PAPC_ARRIVAL_H
#define PAPC_ARRIVAL_H
#include "../core/core.h"

/* What this rank needs from papc_arrival_begin. */
typedef enum papc_order_need {
    PAPC_ORDER_NONE = 0,  /* this rank does not use the order */
    PAPC_ORDER_LOCAL,     /* this rank orders alone (the root of SLIN/SLS/
                             scatter SBN): its own latest estimates, no
                             messages, no waiting */
    PAPC_ORDER_AGREED     /* every rank of the call asks with AGREED and the
                             same decider: the identical order everywhere */
} papc_order_need;

/* The arrival view of one call. */
typedef struct papc_arrival {
    int size;
    int *order;      /* ranks of the call's comm, predicted earliest first;
                        unknown ranks after the known ones, in rank order;
                        ties by rank.  NULL with PAPC_ORDER_NONE. */
    double *offset;  /* by rank: predicted arrival in seconds relative to
                        the earliest predicted rank (>= 0); INFINITY when
                        unknown.  NULL with PAPC_ORDER_NONE. */
    int known;       /* ranks with a prediction */
    /* Agreed point-to-point cost model of the monitor's communicator
     * (fitted at papc_monitor_init, identical on every rank; defaults
     * PAPC_ALPHA / PAPC_BETA when no monitor): a message of b bytes takes
     * alpha + b * beta, reducing b bytes takes b * gamma. */
    double alpha, beta, gamma;
    /* The same model for a round in which every rank sends and receives at
     * once (two-way exchanges of all pairs; >= alpha, beta): what a round
     * of a schedule like Clairvoyant's costs.  Equal to alpha, beta when no
     * monitor. */
    double alpha_busy, beta_busy;
    int epoch;       /* arrival epoch of the call (-1: no monitor serves
                        this comm); identical on every rank */
    int bg;          /* papc_bg_available(c) */
    /* private to the runtime */
    double t_enter;
    int need;
    int decider;
    int site;
    MPI_Request view_req;  /* arrival_view, not AGREED, not the decider:
                              the decision of this epoch, received late */
    double *view_msg;
    int view_prev_epoch;   /* arrival_view: the site's previous plain call's
                              epoch (-1: none), whose measured arrivals the
                              decision carries (dec_measured) */
} papc_arrival;

/* Marks this rank's arrival at an arrival-aware call and fills *a.  Every
 * arrival-aware algorithm calls it first, on every rank, and
 * papc_arrival_end last (also on error).  decider: the root of a rooted
 * collective, 0 for allreduce -- the same on every rank: arrival notices
 * go to it (it learns who is actually there) and with AGREED it decides
 * the order for all.  Returns an MPI error class (nothing to undo then). */
int papc_arrival_begin(const papc_call *c, papc_order_need need, int decider,
                       papc_arrival *a);
/* Marks this rank's exit, feeds the history predictor and the straggler
 * report, frees *a; returns rc unchanged. */
int papc_arrival_end(const papc_call *c, papc_arrival *a, int rc);

/* Measurement hook (tools/papc-predict): moves up to max absolute arrival
 * prediction errors (seconds) recorded at this process as a decider since
 * the last call into errs; pred 0: progress estimates, 1: the history
 * predictor, 2: the decisions (the arrival time an order was formed with,
 * for ranks not there yet).  Returns how many. */
int papc_arrival_take_errors(int pred, double *errs, int max);

/* ---- the background channel (the B* algorithms) ----------------------
 *
 * A message sent with papc_bg_send goes to the monitor thread of dest,
 * which receives it as soon as it comes -- also while dest is still
 * computing -- and keeps it in dest's mailbox until dest's call takes it
 * with papc_bg_take (or until a registered handler consumes it).  Messages
 * are matched by (epoch of the call, source, kind); data travel as the
 * sender's (count, type) and are kept as packed bytes (MPI_PACKED), which
 * the taker unpacks with its own type.  Only valid when a.bg is 1. */

typedef struct papc_bg_msg {
    int source;        /* rank in the call's comm */
    int kind;          /* the sender's kind */
    int epoch;
    int64_t hdr[4];    /* small header the sender chose */
    char *data;        /* packed bytes (NULL when bytes == 0) */
    int bytes;
} papc_bg_msg;

/* 1 when the call's comm is the monitor's and its thread runs
 * (MPI_THREAD_MULTIPLE), on every rank alike. */
int papc_bg_available(const papc_call *c);
/* Blocking send of (buf, count, t) with header hdr (may be NULL: zeros)
 * to dest's mailbox, for this call's epoch. */
int papc_bg_send(const papc_call *c, const papc_arrival *a, int dest,
                 int kind, const int64_t hdr[4], const void *buf, int count,
                 MPI_Datatype t);
/* Non-blocking papc_bg_send: the data are copied (packed) at once, so buf
 * may be reused on return; *req completes the send, after which *mem must
 * be released with free(). */
int papc_bg_isend(const papc_call *c, const papc_arrival *a, int dest,
                  int kind, const int64_t hdr[4], const void *buf, int count,
                  MPI_Datatype t, MPI_Request *req, void **mem);
/* Waits for the message (source, kind) of this call's epoch in this rank's
 * mailbox and moves it to *m (source may be MPI_ANY_SOURCE: the first one
 * that came). */
int papc_bg_take(const papc_call *c, const papc_arrival *a, int source,
                 int kind, papc_bg_msg *m);
/* Unpacks m's bytes into (buf, count, t); MPI_ERR_TRUNCATE when they do
 * not fit. */
int papc_bg_unpack(const papc_bg_msg *m, void *buf, int count,
                   MPI_Datatype t);
void papc_bg_msg_free(papc_bg_msg *m);

/* Handlers: work a monitor thread does on its own, before its process
 * calls (BSBN scatter forwards to its children; the BSLS root serves the
 * senders).  A handler registered for kind runs in the monitor thread of
 * the receiving process when a message of that kind arrives; it may send
 * through ctx (same epoch).  It returns 1 to leave m in the mailbox for the
 * foreground (m then still owns its data), 0 when it consumed (and freed)
 * m.
 *
 * A handler must never wait: not for another message, not for the
 * foreground, not for a send to complete.  It runs to completion on the
 * message it was given.  Work that needs several messages is a state kept
 * by the algorithm (per epoch) and advanced by the handlers of the
 * messages that move it on; while such work is open, tell the thread with
 * papc_bg_ctx_jobs.  This is what makes back-to-back background
 * collectives deadlock-free (channel.c, and docs/arrival.md): a monitor
 * thread always serves every message of every call. */
typedef struct papc_bg_ctx papc_bg_ctx;
typedef int (*papc_bg_handler)(papc_bg_ctx *ctx, papc_bg_msg *m);
/* Registers h for kind (kinds are small integers 1..63, one per use;
 * registering twice with the same h is harmless). */
int papc_bg_register(int kind, papc_bg_handler h);
int papc_bg_ctx_rank(const papc_bg_ctx *ctx);
int papc_bg_ctx_size(const papc_bg_ctx *ctx);
int papc_bg_ctx_epoch(const papc_bg_ctx *ctx);
/* Counts the monitor's starts: epochs begin again at 0 after a restart. */
int papc_bg_ctx_instance(const papc_bg_ctx *ctx);
/* The monitor's latest local order (as PAPC_ORDER_LOCAL) for this epoch,
 * into order[size] (earliest first). */
void papc_bg_ctx_order(papc_bg_ctx *ctx, int *order);
/* Send packed bytes to dest's mailbox (same epoch); non-blocking, the
 * bytes are copied. */
int papc_bg_ctx_send(papc_bg_ctx *ctx, int dest, int kind,
                     const int64_t hdr[4], const void *bytes, int nbytes);
/* The algorithm of kind has `open` jobs waiting for messages: while any
 * kind has one, the monitor polls at its short nap (20 us) instead of
 * backing off towards 1 ms, so the message that moves a job on is handled
 * at once.  Zero at every monitor start. */
void papc_bg_ctx_jobs(papc_bg_ctx *ctx, int kind, int open);

/* Kinds in use (one place, so they never collide). */
enum {
    PAPC_BG_BSLN_BLOCK = 1,      /* scatter BSLN: root -> rank, its block */
    PAPC_BG_BSBN_SCATTER = 2,    /* scatter BSBN: parent -> child subtree */
    PAPC_BG_BSLS_HELLO = 3,      /* gather BSLS: arrived sender -> root */
    PAPC_BG_BSLS_GO = 4,         /* gather BSLS: root -> sender go-ahead */
    PAPC_BG_BSLS_PART = 5,       /* gather BSLS: sender -> root, a part */
    PAPC_BG_BSBN_GATHER = 6      /* gather BSBN: child -> parent subtree */
};

/* Clairvoyant's plan for call c under a round's terms (the agreed busy
 * alpha, beta and gamma): N, whole-element segments, the model's round d
 * and the planned one (clv_plan.c; papc_clv_round_plan of
 * model/arrival_model.h).  The executor (src/coll/reduce/clairvoyant.c)
 * plans with it and the plain call (choose.c) prices with it.  Reads the
 * knobs PAPC_CLV_SEGMENTS, PAPC_SEGSIZE, PAPC_CLV_ROUND, PAPC_CLV_SLACK
 * (equal on every rank).  0, or -1 for an empty vector. */
struct papc_clv_round;
int papc_clv_plan_for(const papc_call *c, double alpha, double beta,
                      double gamma, struct papc_clv_round *out);

#endif /* PAPC_ARRIVAL_H */
