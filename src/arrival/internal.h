/*
 * internal.h — the arrival runtime's own state, shared by the files of
 * src/arrival/ and nothing else (coll/ sees arrival.h only).
 *
 * One monitor per process (papc_mon).  Threads: the foreground (the
 * program's thread making papcoll calls) and the monitor thread (a pthread,
 * or an s4u actor in simulation: transport.h).  Every field marked [mu] is
 * read and written under the transport's lock (papc_tr_lock); fields marked
 * [fg] belong to the foreground, [th] to the thread, [ro] are fixed while
 * the monitor runs.
 *
 * Communicators (duplicates of the served comm, made at start):
 *   ctl   estimates and arrival notices (tiny, any thread sends, the
 *         monitor thread alone receives) and the shutdown's waves;
 *   dec   agreed decisions on the flat path (the decider's monitor or
 *         foreground sends, the other ranks' foregrounds receive,
 *         tag = epoch);
 *   data  the background channel and the decisions down the tree (any
 *         thread sends, the monitor thread alone receives) and the
 *         warm-up.
 */
#ifndef PAPC_ARRIVAL_INTERNAL_H
#define PAPC_ARRIVAL_INTERNAL_H

#include <stdatomic.h>
#include "arrival.h"
#include "transport.h"
#include "topo/order.h"
#include "topo/guess.h"
#include "model/arrival_model.h"

#define ARR_WINDOW 32        /* epochs of predictions kept per rank */
#define ARR_MAX_KIND 64
#define ARR_DEST_MAX 16      /* most peers one estimate goes to
                                (exchange.c: who receives an estimate) */

/* Message tags on ctl and data. */
enum { TAG_EST = 1, TAG_NOTICE = 2, TAG_FIN = 3, TAG_BG = 4, TAG_WARM = 5,
       TAG_FIT = 6, TAG_DEC = 7 };

/* Predictors. */
enum { PRED_PROGRESS = 0, PRED_HISTORY = 1, PRED_N = 2 };
/* An estimate message that is not a prediction: the sender began a phase
 * (papc_processing_start), `age` seconds before it was sent, and first
 * reported progress at fraction f of its previous phase (exchange.c,
 * "overdue progress"). */
enum { EST_START = PRED_N };
/* Error kinds: the two predictors, and the decision (the arrival time the
 * order was formed with, for ranks not there yet: what the algorithm was
 * told, whichever predictor it came from and however late). */
enum { ERR_DECISION = PRED_N, ERR_N = PRED_N + 1 };

/* What the runtime sends, counted per kind (PAPC_ARRIVAL_STATS, report.c):
 * estimates (ctl), arrival notices (ctl), agreed decisions (dec, or data
 * down the tree), background messages (data), the shutdown's termination
 * waves, still called FINs (ctl).  The
 * start-up (agreement, warm-up, model fit) is not counted. */
enum { STAT_EST = 0, STAT_NOTICE, STAT_DECISION, STAT_BG, STAT_FIN,
       STAT_N };

/* PAPC_ARRIVAL_FAULT */
enum { FAULT_NONE = 0, FAULT_REVERSE, FAULT_RANDOM, FAULT_MISSING,
       FAULT_STALE };

/* What this process knows of one rank's arrival at one epoch. */
typedef struct arr_slot {
    int epoch;               /* epoch + 1; 0: empty (papc_arr_slot) */
    double pred[PRED_N];     /* predicted arrival, this process' clock; NAN */
    double arrived;          /* notice received (decider) / own arrival; NAN */
    double decided;          /* arrival time an order was formed with, for a
                                rank not yet there; NAN */
    double hist_err;         /* typical error of pred[PRED_HISTORY] at its
                                horizon (the rank's own relative error times
                                the horizon, s); NAN: unknown */
    int accounted;           /* error already counted for the report */
    double started;          /* the rank began its phase (EST_START), this
                                process' clock; NAN */
    double start_frac;       /* and first reported progress at this fraction
                                of its previous phase; NAN */
    /* Online refinement (choose.c, PAPC_ARRIVAL_LEARN), at the decider: */
    double elapsed;          /* the rank's time in this epoch's plain call,
                                its own clock (from its next notice); NAN */
    int prev_of;             /* own slot: the site's plain epoch before
                                this one (-1: none) */
} arr_slot;

/* An agreed decision formed at the decider, until its foreground takes it. */
typedef struct arr_decision {
    struct arr_decision *next;
    int epoch;
    int taken;               /* the decider's foreground has it */
    int known;
    int *order;
    double *offset;
    double *measured;        /* papc_mon.dec_measured: the arrivals this
                                decider measured at the site's previous
                                plain call (offsets; NAN: not seen) */
    double *learn;           /* papc_mon.dec_learn: [2 + size] the epoch of
                                the site's plain call two back, the mean
                                over the ranks of their time in it, its
                                measured arrivals (offsets); NAN: unknown */
} arr_decision;

/* A background message in the mailbox (or waiting for its handler). */
typedef struct mbox_msg {
    struct mbox_msg *next;
    papc_bg_msg m;
    uint64_t seq;            /* sender's sequence number to this process */
} mbox_msg;

/* A command from the foreground to the thread: send an estimate to the
 * deciders it can concern (papc_arr_estimate_dests). */
typedef struct arr_cmd {
    int epoch, pred;
    double remaining;        /* seconds from t_cmd */
    double t_cmd;
    double relerr;           /* history: the sender's typical relative error
                                of such guesses (NAN: unknown); EST_START:
                                the fraction of its first progress report */
    int ndest;               /* -1: every peer */
    int dest[ARR_DEST_MAX];
} arr_cmd;
#define ARR_CMDQ 64

#define ARR_PRICED 16         /* most views a row's price may average */
#define ARR_RAN 8             /* a site's latest plain calls whose row is
                                 kept (choose.c: the residuals) */

/* What the plain call's choice made of one view (choose.c): the row to
 * run (its registry index), its segment size (0: the call's own), and
 * cheapest's quiet and steady flags. */
typedef struct papc_arr_pick {
    int row;
    size_t seg;
    int quiet, steady;
} papc_arr_pick;

/* One call site (collective, root, bytes, comm size, and the tag of
 * papc_arrival_site_tag): the history predictor's mean compute time before
 * it and, at the decider, the straggler view. */
typedef struct arr_site {
    int coll, root, size;
    int tag;                 /* papc_arrival_site_tag when it was made */
    int decider;             /* [mu] the rank that decides its calls */
    long long bytes;
    /* history [fg] */
    papc_mean compute;       /* robust EWMA of compute time before arriving
                                here (src/topo/order.c) */
    int next;                /* index of the site that followed, -1 */
    papc_mean guess_err;     /* relative error |actual - guess| / horizon of
                                the guesses made at exits here (history.c) */
    /* report [mu]: counted at the decider */
    long calls;              /* calls this process decided (was decider) */
    const char *algs[4];     /* distinct algorithm names seen */
    double err_sum[ERR_N], err_max[ERR_N];
    long err_n[ERR_N];
    int *last;               /* [size]: times rank r arrived last */
    long complete;           /* epochs with every arrival seen */
    /* The agreed arrival vector of the latest plain call at this site
     * (papc_call.arrival_view; choose.c): offsets by rank as decided, the
     * same doubles on every rank.  NULL: none yet. */
    double *view;
    int view_known;
    unsigned long view_gen;  /* views kept at the site so far (keep_view) */
    int plain_epoch;         /* epoch of this process' latest plain call
                                here (-1: none); the same on every rank */
    /* The rows' predicted ē at the site's latest priced views (choose.c,
     * PAPC_ARRIVAL_VIEWS): slot i holds priced_rows values for view
     * generation priced_gen[i] (0: empty).  Written only by the plain
     * call, from agreed views, so the same on every rank. */
    double *priced;          /* [ARR_PRICED][priced_rows] */
    unsigned long priced_gen[ARR_PRICED];
    int priced_rows;
    unsigned long long priced_key;  /* the models' inputs they were made
                                       under (choose.c, pick_key) */
    /* The latest priced view and whether its spread jumped against the
     * views before it (papc_arr_price_views, papc_price_ring_new_pattern):
     * its generation and +1 up, -1 down, 2 confirmed a jump, 0 none. */
    unsigned long jump_gen;
    int jump_dir;
    /* The learnt spread floor (choose.c): the largest offset of the latest
     * view, and the robust mean of its change from one view to the next;
     * updated from the views alone, so the same on every rank. */
    double view_spread;
    double view_spread_prev; /* the view's before it (papc_spread_lasting) */
    papc_mean spread_err;
    /* Online refinement (choose.c, PAPC_ARRIVAL_LEARN).  This process'
     * time in its latest plain call here (its next notice carries it): */
    int own_epoch;           /* -1: none */
    double own_elapsed;
    /* The row each of the latest plain calls ran (agreed: every rank chose
     * it alike), slot epoch % ARR_RAN: */
    int ran_epoch[ARR_RAN], ran_row[ARR_RAN];
    /* The latest measurement a decision brought (epoch -1: none, or taken):
     * the epoch, the mean time in it over the ranks, its arrivals [size]. */
    int measure_epoch;
    double measure_mean;
    double *measure_offset;
    /* Per row: what it cost when it ran against its model (arrival_model.h);
     * reset when the models' inputs change (learn_key). */
    papc_row_learning *learn;
    int learn_rows;
    unsigned long long learn_key;
    int learn_since;         /* the first epoch made under learn_key: a
                                measurement of an older one is dropped */
    long learn_calls;        /* plain calls made here (papc_row_learning's
                                ran_at counts in them) */
    /* Sparse watching (choose.c, PAPC_ARRIVAL_WATCH_EVERY): plain calls
     * made here in a row without an epoch, and whether the next one is to
     * be watched by that count.  Changed only by the plain call, from the
     * agreed views, so the same on every rank. */
    int unwatched;
    int next_watched;
    /* Arrival-aware calls made here in a row without a view (settled on
     * that row: papc_arr_view_turn); agreed as unwatched is. */
    int unviewed;
    papc_pick_memory picks;  /* the picks from the latest two views
                                (papc_arr_settled) */
    /* The pick made from view pick_gen under the inputs pick_key
     * (choose.c, cheapest_for_view; pick_gen 0: none). */
    unsigned long pick_gen;
    unsigned long long pick_key;
    papc_arr_pick pick;
} arr_site;

/* An epoch this process decides (it is the decider) and still accounts
 * for in the report: which site, how many arrivals seen. */
typedef struct arr_epoch_rec {
    struct arr_epoch_rec *next;
    int epoch, site, seen;
    int last_rank;
    double last_time;
} arr_epoch_rec;

typedef struct papc_monitor {
    int running;              /* [mu] thread up and serving */
    int quit;                 /* [mu] foreground asks the thread to stop */
    int no_thread;            /* [fg] known: no MPI_THREAD_MULTIPLE */
    int user_finalized;       /* [fg] no lazy restart after finalize */
    int instance;             /* [fg] counts starts */
    MPI_Comm served;          /* [fg] the private comm whose calls we serve */
    MPI_Comm ctl, dec, data;  /* [ro] */
    int rank, size;           /* [ro] */
    double alpha, beta, gamma;/* [ro] agreed cost model */
    double alpha_busy, beta_busy; /* [ro] agreed: a round of two-way
                                     exchanges by every rank (fit_model) */
    int fit_nodes, fit_intra; /* [ro] the busy fit's pairing: nodes seen,
                                 pairs left on one node (monitor.c) */
    int fit_mode;             /* [ro] its node labels: 1 PAPC_FIT_NODE_SIZE,
                                 2 MPI_Comm_split_type, 3 none (rank +
                                 P/2), 0 no pairing (P = 1) */
    int *node_label;          /* [ro] the busy fit's node labels by rank
                                 (papc_node_labels, agreed by its
                                 allgather; NULL: P = 1), kept for the
                                 prices of rows that group ranks by node
                                 (choose.c: reduce clairvoyant_node) */
    int node_groups, node_max;/* [ro] their nodes and the largest node's
                                 ranks (papc_arrival_node_shape) */
    int fit_quiet_peer;       /* [ro] the quiet fit's pair is rank 0 and
                                 this rank (rank 0's busy partner: on one
                                 node rank 1; -1: no fit, P = 1) */
    double fit_seconds, fit_pair_seconds; /* [ro] MPI_Wtime of the whole
                                 fit and of its pairing, this rank */
    int fault;                /* [ro] PAPC_ARRIVAL_FAULT */
    /* foreground */
    int epoch_next;           /* [fg] epoch of the next call on served */
    int reported_epoch;       /* [fg] epoch of this process' latest progress
                                 report (-1: none) */
    double t_phase;           /* [fg] start of the current compute phase */
    double first_frac;        /* [fg] fraction of the first progress report
                                 of the latest phase that had one; NAN */
    int phase_reported;       /* [fg] the current phase reported progress */
    double t_last_exit;       /* [fg] NAN before the first call */
    int last_site;            /* [fg] site of the last exit, -1 */
    int guess_site;           /* [fg] site whose exit made the pending
                                 history guess, -1: none */
    double guess_at, guess_horizon; /* [fg] its predicted arrival (own
                                 clock) and horizon (s) */
    int recent[ARR_DEST_MAX]; /* [mu] deciders of this process' latest
                                 calls, most recent first, distinct */
    int nrecent;              /* [mu] */
    /* shared */
    arr_slot *slots;          /* [mu] size * ARR_WINDOW */
    arr_decision *decisions;  /* [mu] */
    arr_epoch_rec *recs;      /* [mu] */
    mbox_msg *mbox;           /* [mu] for the foreground (papc_bg_take) */
    mbox_msg *pending;        /* [mu] waiting for their handler */
    uint64_t *send_seq;       /* [mu] per destination */
    arr_cmd cmdq[ARR_CMDQ];   /* [mu] */
    int ncmd;                 /* [mu] */
    int fg_waiting;           /* [mu] foreground blocks on the mailbox */
    _Atomic int decides_next; /* [fg] this process is the expected decider
                                 of its next call (set at each exit) */
    arr_site *sites;          /* [mu] */
    int nsites, capsites;     /* [mu] */
    /* thread */
    int jobs[ARR_MAX_KIND];   /* [th] open handler jobs per kind
                                 (papc_bg_ctx_jobs); zeroed at start */
    double *err_log[ERR_N];   /* [mu] errors for papc_arrival_take_errors */
    int err_log_n[ERR_N], err_log_cap[ERR_N];
    /* Counters of what this process sent (any thread; C11 atomics, so
     * they work the same with one thread per rank in simulation); zeroed
     * at start, read by the report at finalize. */
    _Atomic long long sent_msgs[STAT_N], sent_bytes[STAT_N];
    _Atomic long long estimates;  /* estimates made (sent to >= 0 peers) */
    _Atomic long long thread_cpu_us; /* [th] the monitor's CPU, sampled */
    /* The plain call's choice (choose.c): picks priced and reused, and
     * with PAPC_ARRIVAL_STATS the calling thread's CPU in each, ns. */
    _Atomic long long picks[2], pick_cpu_ns[2];
    int dec_learn;            /* [ro] decisions also carry the site's plain
                                 call two back: the ranks' mean time in it
                                 and its measured arrivals (choose.c's
                                 residuals; PAPC_ARRIVAL_LEARN, default on,
                                 off if any rank sets 0) */
    int dec_measured;         /* [ro] decisions also carry the measured
                                 arrivals of the site's previous plain call
                                 (PAPC_ARRIVAL_VIEW_MEASURED=1 on every rank) */
    int dec_tree;             /* [ro] AGREED decisions go down the binomial
                                 tree through the monitors (1) or straight
                                 to every foreground (0); agreed at start
                                 (PAPC_DECISION_TREE, exchange.c) */
} papc_monitor;

extern papc_monitor papc_mon;

/* The event loop's tables (runtime.c).  A route hands a message of
 * (chan, tag) to its part's handler, which takes buf (malloc'ed).  A part's
 * hooks (any may be NULL): round, run by the thread every round while not
 * stopping, returns the things it did; busy, 1 keeps the thread's naps
 * short; nap, the longest nap the part allows now (seconds, 0: any);
 * stop, at finalize after the thread ended (collective over ctl);
 * detach, before the monitor frees its duplicates; release, after. */
typedef struct papc_arr_route {
    int chan, tag;
    void (*handle)(int source, int tag, char *buf, int bytes);
} papc_arr_route;
typedef struct papc_arr_part {
    const char *name;
    int (*round)(void);
    int (*busy)(void);
    double (*nap)(void);
    int (*stop)(void);
    void (*detach)(void);
    void (*release)(void);
    /* 1 when the part will send nothing more that a peer waits for: the
     * thread seals its sends (shutdown, monitor.c) only then.  NULL: 1. */
    int (*settled)(void);
} papc_arr_part;
extern const papc_arr_route papc_arr_routes[];
extern const int papc_arr_nroutes;
extern const papc_arr_part papc_arr_parts[];
extern const int papc_arr_nparts;

/* monitor.c */
double papc_arr_now(void);
/* One slice of a foreground's wait for its monitor (mu held): an error
 * naming what it waited for when the monitor stopped, else a wait until
 * the thread signals or 2 ms pass. */
int papc_arr_fg_wait(const char *what);
/* 1 when c's comm is served (agreed; may start the monitor lazily,
 * collectively over c->comm, at the first arrival-aware call). */
int papc_arr_served(const papc_call *c, int *served);
/* The cached answer only (0 before the first arrival-aware call on c). */
int papc_arr_served_cached(const papc_call *c);
/* 1 when the running monitor serves c's comm: no communication, and the
 * same on every rank of c's comm (a monitor serves all ranks of its comm
 * or none). */
int papc_arr_serves(const papc_call *c);
/* papc_arr_served without the line on stderr when MPI lacks
 * MPI_THREAD_MULTIPLE (the plain call never asked for a monitor). */
int papc_arr_served_quiet(const papc_call *c, int *served);
/* The agreed arrival offsets (by rank) of the latest plain call at c's
 * site, as kept by papc_arrival_end: 1 and offset[c->size], *known; 0 when
 * none (exchange.c). */
int papc_arrival_view(const papc_call *c, double *offset, int *known);
/* Keeps now[rows] (the rows' predicted ē at c's site's latest view; NAN:
 * no candidate; now[rows - 1], the last, the view's spread) once per view,
 * and gives in mean[rows] each row's mean over the site's latest k views
 * it was priced at (NAN where now is).  key: the models' inputs now was
 * made under; prices kept under another key (a new profile, other
 * settings) are dropped first, so they are never averaged with, or kept
 * instead of, prices of other models.  A new pattern: when the spreads of
 * two views in a row stand ARR_JUMP_RATIO times above (or below) the mean
 * of the views before them, the views before are dropped, so the prices
 * follow the new pattern at once and not k/2 views later.  Returns 1 when
 * this view's spread jumped (the first or the second of such a pair): the
 * caller then does not count the site settled.  [fg] */
int papc_arr_price_views(const papc_call *c, int rows, int k,
                         unsigned long long key, const double *now,
                         double *mean);
/* After a plain call at c's site ran row (its registry index) and took
 * elapsed seconds on this process: kept for the residuals (exchange.c:
 * the row by epoch, the time for this process' next notice, or in its
 * own slot at the decider).  [fg] */
void papc_arr_plain_done(const papc_call *c, int decider, int row,
                         double elapsed);
/* The site's per-row learning state for `rows` rows, reset when key (the
 * models' inputs) changed, and in *calls the plain calls made at the site;
 * NULL when there is none (no memory).  [fg] */
papc_row_learning *papc_arr_learning(const papc_call *c, int rows,
                                     unsigned long long key, long *calls);
/* The measurement the latest decision brought for c's site, once: the row
 * that ran (registry index), the ranks' mean time in the call, and its
 * measured arrivals offset[c->size]; 0 when there is none new, or the row
 * of that call is no longer known.  [fg] */
int papc_arr_take_measurement(const papc_call *c, int *row, double *mean,
                              double *offset);
/* Sparse watching (choose.c): whether the plain call at c's site that
 * starts now runs in an epoch (1) or without one (0).  quiet: the site's
 * latest two agreed views are under the floor or the 5 % mark, so the
 * classic row runs (papc_arr_quiet_spread);
 * every: PAPC_ARRIVAL_WATCH_EVERY.  While quiet, every every-th call is
 * watched.  The same on every rank: the count changes only here, in the
 * plain calls every rank makes, from agreed views.  *site: the site's
 * index for papc_arr_unwatched_enter/exit (-1: none).  [fg] */
int papc_arr_watch(const papc_call *c, int quiet, int every, int *site);
/* Notes at c's site what the plain call picked from the site's latest
 * view -- steady: the registry index of the row that won on compared
 * prices, -1 otherwise (choose.c) -- and returns 1 when the picks from
 * the latest two views were that same row: the site is settled (a
 * classic row is then watched as sparsely as at a quiet site, an
 * arrival-aware one takes a view as sparsely: papc_arr_view_turn).
 * Agreed: the views and so the picks are the same on every rank.  [fg] */
int papc_arr_settled(const papc_call *c, int steady);
/* Whether the arrival-aware plain call at c's site that starts now takes
 * a view (asks for the decision that makes the next one): settled, every
 * every-th call does; not settled, every call.  The same on every rank
 * for the reason papc_arr_watch is.  [fg] */
int papc_arr_view_turn(const papc_call *c, int settled, int every);
/* The generation of c's site's latest view (0: none); it changes only
 * when a view is kept, at a call's entry or exit.  [fg] */
unsigned long papc_arr_view_gen(const papc_call *c);
/* The pick kept at c's site for view gen under the inputs key: 1 and *p,
 * or 0 when the site kept none for them.  [fg] */
int papc_arr_cached_pick(const papc_call *c, unsigned long gen,
                         unsigned long long key, papc_arr_pick *p);
/* Keeps p as the pick from view gen under key at c's site.  [fg] */
void papc_arr_keep_pick(const papc_call *c, unsigned long gen,
                        unsigned long long key, const papc_arr_pick *p);
/* Around a plain call run without an epoch: what the epoch's begin and end
 * do that needs no message -- the history predictor's compute time, the
 * phase the overdue bound and progress reports count from, the last exit
 * -- and, when the next call is likely watched, the exit's history guess
 * (its epoch is the next one begun, as no epoch is used here).  [fg] */
void papc_arr_unwatched_enter(int site);
void papc_arr_unwatched_exit(int site);
/* Cancels the views still waiting for their decision (monitor shutdown,
 * before the duplicates are freed). */
void papc_arr_drop_pending_views(void);
/* Foreground: queue an estimate for the thread to send ("remaining"
 * seconds from local time t, for epoch; relerr: a history guess's typical
 * relative error, NAN for none). */
void papc_arr_command(int epoch, int pred, double remaining, double t,
                      double relerr);
/* Thread-side: one round of receiving (ctl and data) and testing sends;
 * returns the number of things done.  Handlers are not run here. */
int papc_arr_poll(void);
/* Thread-side: 1 while the thread's own sends or receives are in flight. */
int papc_arr_transfers(void);
/* Thread-side: a non-blocking send on comm (ctl, data or dec) whose
 * buffer (malloc'ed) the transport frees when it completes. */
int papc_arr_isend(void *buf, int bytes, int dest, int tag, MPI_Comm comm);

/* exchange.c */
void papc_arr_on_ctl(int source, int tag, const double *msg);   /* [th] */
void papc_arr_store_pred(int rank, int epoch, int pred, double t);  /* mu */
/* A history guess's typical error at its horizon, sigma seconds (mu). */
void papc_arr_store_hist_err(int rank, int epoch, double sigma);
void papc_arr_store_start(int rank, int epoch, double started,
                          double frac);                         /* mu */
/* The plain call's spread floor at c's site: learnt from the site's views
 * (guess.h, papc_spread_floor), the same on every rank (fg). */
double papc_arr_spread_floor(const papc_call *c);
/* The spread at c's site that lasted over its latest two views
 * (papc_spread_lasting; PAPC_ARRIVAL_PERSIST=0: the latest view's). */
double papc_arr_lasting_spread(const papc_call *c, double spread);
/* The larger spread of c's site's latest two views (papc_spread_quiet;
 * INFINITY with fewer): what sparse watching calls quiet (choose.c). */
double papc_arr_quiet_spread(const papc_call *c);
arr_slot *papc_arr_slot(int rank, int epoch, int create);           /* mu */
/* At an arrival: site is decided by decider (fg, mu held). */
void papc_arr_note_decider(int site, int decider);
/* The peers an estimate of this process' next arrival goes to (fg, mu
 * held): fills dest[ARR_DEST_MAX], returns how many; -1: every peer
 * (PAPC_ESTIMATE_DESTS=all). */
int papc_arr_estimate_dests(int *dest);
/* Forms the order of epoch e from what this process knows (mu held). */
void papc_arr_form(int epoch, int *order, double *offset, int *known);
void papc_arr_free_decisions(void);
/* Sends the decisions deciders' foregrounds handed over (exchange.c, the
 * plain call's view), every monitor round before the shutdown's seal.
 * [th] */
void papc_arr_send_queued_decisions(void);
/* The exchange's nap hook: a short cap while this process expects to
 * decide its next call (PAPC_DECIDER_NAP_US), else 0. */
double papc_arr_decider_nap(void);

/* channel.c */
void papc_arr_on_data(int source, char *buf, int bytes);   /* [th] */
int papc_arr_run_handlers(void);                           /* [th] */
/* 1 while some handler job is open (papc_bg_ctx_jobs). */
int papc_arr_jobs_open(void);                              /* [th] */
void papc_arr_free_mailbox(void);
/* Foreground, at exit: drop unclaimed messages of epochs before before. */
void papc_arr_mailbox_gc(int before);

/* history.c */
int papc_arr_site(const papc_call *c);          /* mu held */
void papc_arr_history_arrive(int site, double t_enter);
/* After an exit at site: the predicted compute time before the next
 * arrival-aware call (NAN when unknown). */
double papc_arr_history_next(int site);
/* At an exit at site (time t) the guess of rem seconds was sent: its
 * error is measured at the next arrival (papc_arr_history_arrive). */
void papc_arr_history_guessed(int site, double t, double rem);
/* The typical relative error of the guesses made at exits at site; NAN
 * before the first was measured. */
double papc_arr_history_relerr(int site);
void papc_arr_log_error(int pred, double err);  /* mu held */
void papc_arr_free_sites(void);

/* report.c */
/* Counts one message of bytes of kind (STAT_*) sent by this process. */
void papc_arr_count(int kind, long long bytes);               /* any */
void papc_arr_count_reset(void);
/* The decider's bookkeeping of an epoch (mu held). */
void papc_arr_rec_open(int epoch, int site);
void papc_arr_rec_arrival(int rank, int epoch, double t);
void papc_arr_note_algorithm(int site, const char *name); /* [fg] */
int papc_arr_report(void);                      /* collective over ctl */
void papc_arr_free_recs(void);

/* ---- issue 16: decisions down a tree, shutdown in O(P) messages ---- */

/* The binomial tree of the runtime's fan-outs (AGREED decisions, rooted at
 * the decider; the shutdown waves, rooted at 0), over virtual ranks
 * v = (rank - root) mod size: v's parent is v with its lowest set bit
 * cleared, its children are v + m for the powers of two m below v's lowest
 * set bit (every power of two for the root) with v + m < size.  Depth and
 * the root's fan-out are ceil(log2 size). */
static inline int papc_arr_tree_parent(int v) { return v ? v & (v - 1) : -1; }
/* Fills child[31] with v's children, largest subtree first; returns how
 * many. */
static inline int papc_arr_tree_children(int v, int size, int *child) {
    int n = 0, top = 1;
    while (top < size && (v == 0 || top < (v & -v))) top <<= 1;
    for (int m = top >> 1; m >= 1; m >>= 1)
        if (v + m < size) child[n++] = v + m;
    return n;
}

/* monitor.c: 1 once the thread has sealed its sends at shutdown: from
 * then on it sends nothing but the termination waves.  [th] */
int papc_arr_sealed(void);
/* exchange.c */
/* A decision that came down the tree (DATA, TAG_DEC): forwards it to this
 * process' children (unless sealed) and keeps it for the foreground;
 * takes buf.  [th] */
void papc_arr_on_decision(int source, char *buf, int bytes);
/* 1 when every decision this process' calls wait for has come (and so has
 * been forwarded): the exchange's settled hook.  [th] */
int papc_arr_decisions_settled(void);
/* PAPC_DECISION_TREE as read on this rank: 0 flat, 1 tree, 2 by size
 * (default); mon_start agrees on it (MIN over the ranks). */
int papc_arr_decision_tree_setting(void);
/* The agreed setting and the size give the mode (1: tree). */
int papc_arr_decision_tree_mode(int agreed, int size);

#endif
