/*
 * exchange.c — the clock-free exchange of arrival estimates, the arrival
 * notices, the orders (LOCAL and AGREED) and PAPC_ARRIVAL_FAULT:
 * papc_arrival_begin / papc_arrival_end.
 *
 * Estimates.  A process that knows when it will arrive at its next
 * arrival-aware call (epoch n) -- from papc_progress, extrapolated as
 * remaining = (t - t0)(1 - f)/f, or from the history predictor at its
 * previous exit -- has its monitor thread send `remaining` (seconds from
 * now) on ctl to the deciders that call can concern (below).  The
 * receiving monitor stamps its own receive time tr and keeps
 * tr + remaining: a prediction in ITS OWN clock.  No two clocks are ever
 * compared; the error is the message latency (microseconds) plus the
 * monitor's poll delay (<= 1 ms).
 *
 * Who receives an estimate.  Only a decider ever reads predictions: the
 * orders are formed in papc_arr_form, called by the decider's monitor or
 * foreground for an AGREED epoch, by the root of a LOCAL call (the root
 * is the call's decider) and by the BSLS root's handlers
 * (papc_bg_ctx_order, at the root); the plain call's choice (choose.c)
 * reads the agreed decisions.  So an estimate goes to the decider(s) of
 * the call it is about -- which the sender does not know yet, as its next
 * call has not begun.  It goes to: the decider of the site that followed
 * the latest one last time (the history predictor's guess of the next
 * call), then the deciders of this process' latest calls, most recent
 * first (every rank knows the root of every call it made); with no call
 * made yet, rank 0 (allreduce's decider, the usual root).  At most
 * ceil(log2 P) peers (ARR_DEST_MAX at most), never itself.  Per iteration
 * of a program whose calls have d distinct deciders that is min(d, log P)
 * messages per estimate, O(P) per report round for a fixed set of sites,
 * O(P log P) at worst -- until issue 16 every estimate went to all P - 1
 * peers, O(P^2).  A retraction (papc_processing_start) goes where the
 * report it retracts went: no arrival-aware call comes between them, so
 * the lists have not changed.  A decider
 * that is in none of the lists (the first call at a new root, a root that
 * changes every call with no repeating sequence) has no prediction for
 * that rank: it counts as unknown, as a rank that never reports does.
 * Nothing can hang or diverge from it: who gets an estimate only changes
 * which predictions a decider holds, i.e. an order, and an order is
 * either used by its decider alone (LOCAL) or copied from it (AGREED);
 * an AGREED decision is made at the first notice or the decider's
 * arrival, whatever estimates came.  PAPC_ESTIMATE_DESTS=all sends every
 * estimate to every peer as before (to measure the difference).
 *
 * Notices.  At papc_arrival_begin every rank but the decider sends the
 * decider (epoch, need) on ctl; the decider's monitor stamps the arrival
 * in its clock.  Predictions and actual arrivals live in a window of
 * ARR_WINDOW epochs per rank (slots).
 *
 * Orders.  Formed where the order is needed, from the slots of that epoch:
 * a rank that arrived counts at its arrival time; else its prediction
 * (progress before history), but never earlier than now (a rank predicted
 * in the past that has not arrived is late now); else unknown, last, in
 * rank order; ties by rank (src/topo/order.c).
 *  - LOCAL (root of SLIN/SLS/scatter SBN): the root's foreground forms it
 *    at once from what its monitor knows.  No message, no wait.
 *  - AGREED: the decider decides ONCE per epoch, at the first of: its
 *    monitor receiving the first AGREED notice of that epoch, or its own
 *    foreground arriving.  The decision (known, order, offsets) goes to
 *    every other rank (below), each of which waits in begin for that one
 *    message only -- for the decider's decision, never for a slow rank's
 *    estimate.  This replaces the papers' blocking MPI_Allgather per
 *    iteration.  As every rank of an AGREED call sends its notice before
 *    waiting, the decision is always made: no hang.
 *
 * How a decision travels (issue 16).  It is 8(2P + 1) bytes (8P more
 * with PAPC_ARRIVAL_VIEW_MEASURED=1, below; 8(P + 2) more with the online
 * refinement, PAPC_ARRIVAL_LEARN=1, opt-in: papc_arr_plain_done);
 * sent by the
 * decider to each of the P - 1 others that is 268 MB from one process per
 * call at P = 4,096.  Two paths, agreed at the monitor's start
 * (PAPC_DECISION_TREE=0 flat, 1 tree, unset: tree above
 * DEC_TREE_FLAT_MAX ranks; the least setting of any rank wins):
 *  - flat: the decider (its monitor, or its foreground) sends it on dec,
 *    tag dec_tag(epoch), to every other rank's foreground, which receives
 *    it with MPI (blocking in begin for AGREED; a receive posted in begin
 *    and completed in end or later for the plain call's view).
 *  - tree: it goes down the binomial tree rooted at the decider
 *    (internal.h, relative ranks), as one DATA message (TAG_DEC) to the
 *    children's MONITORS, which forward it to their own children the
 *    moment they receive it and keep it for their foreground (rx, below).
 *    The decider sends ceil(log2 P) copies; every rank gets exactly one,
 *    from its parent, after at most ceil(log2 P) hops.  The monitor
 *    forwards because it is always there: a foreground that has not
 *    reached the call, or a plain call that only completes its view at
 *    its end, would hold up its whole subtree.  It also works unchanged
 *    under SimGrid, where only a monitor can receive from a monitor
 *    (transport_smpi.c); the foreground waits on the condition, as for a
 *    background message.  The message carries its epoch and decider, so
 *    no tag can alias an older epoch's.
 * Why the tree can neither hang nor diverge.  Divergence: the message is
 * formed once, by the decider, and forwarded byte for byte; a rank takes
 * the one of its own epoch.  Hang: (1) the decision is made (above) and
 * sent by the decider before its own call goes on; (2) a monitor waits for
 * nothing and forwards in the handler that receives the message, so each
 * hop completes a bounded time after the previous one, whatever the
 * foregrounds do; (3) no monitor on the way has left: at shutdown a
 * monitor seals its sends (monitor.c) only when every decision its own
 * calls waited for has come -- every non-decider of a call that has a
 * decision waits for it (registered in begin, before anything can fail),
 * so each forwarder gets and forwards it before it seals, and no monitor
 * leaves before every monitor sealed.  A decision arriving after sealing
 * would be one nobody below waits for; it is kept, not forwarded.
 *
 * The decider's poll rate.  A receiving monitor stamps an estimate or a
 * notice when it polls, so its nap (up to 1 ms when idle) is part of
 * every prediction error.  Before issue 16 a decider received every
 * peer's estimates and sent its own to all, which kept its monitor busy;
 * with estimates to deciders only it idled towards 1 ms between them and
 * the SLT decider's mean error grew by about 1 ms at P = 8.  So a process
 * that expects to decide its next call (from its exit: it decided the
 * site history says comes next, or this site when none is known) caps its
 * monitor's nap at PAPC_DECIDER_NAP_US (default 100 us; 0: no cap) until
 * an exit says otherwise.  Only deciders pay the CPU.
 *
 * PAPC_ARRIVAL_FAULT=reverse|random|missing|stale perturbs the formed order
 * (reverse it / shuffle it with the epoch as seed / ignore predictions /
 * use the previous epoch's predictions) where it is formed, so an agreed
 * order stays agreed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "model/arrival_model.h"

#define HISTORY_MIN_SECONDS 100e-6
/* The plain call's spread floor (papc_arr_spread_floor): a spread must be
 * SPREAD_NOISE_K times its typical change from one call to the next
 * (PAPC_ARRIVAL_NOISE_K), learnt once a site has SPREAD_ERR_MIN_N changes,
 * and never under the 1 ms the monitors' poll delays blur
 * (PAPC_ARRIVAL_SPREAD_FLOOR_MIN). */
#define SPREAD_NOISE_K 0.0
#define SPREAD_ERR_MIN_N 3
#define SPREAD_ERR_WEIGHT 0.25
#define PAPC_ARRIVAL_SPREAD_FLOOR_MIN 1e-3
/* Up to this many ranks a decision goes flat, unless PAPC_DECISION_TREE
 * says otherwise (docs/performance.md: what each path costs). */
#define DEC_TREE_FLAT_MAX 16

static int dec_tag(int epoch) { return 1 + epoch % 32000; }

int papc_arr_decision_tree_setting(void) {
    const char *v = getenv("PAPC_DECISION_TREE");
    if (v && !strcmp(v, "0")) return 0;
    if (v && !strcmp(v, "1")) return 1;
    return 2;
}

int papc_arr_decision_tree_mode(int agreed, int size) {
    return agreed == 2 ? size > DEC_TREE_FLAT_MAX : agreed;
}

arr_slot *papc_arr_slot(int rank, int epoch, int create) {
    if (epoch < 0 || rank < 0 || rank >= papc_mon.size) return NULL;
    arr_slot *s = &papc_mon.slots[rank * ARR_WINDOW + epoch % ARR_WINDOW];
    /* s->epoch holds epoch + 1, 0 (calloc's) when empty: the table is
     * P x ARR_WINDOW slots per process, O(P^2) in a simulation of P
     * ranks (26 GB at P = 4,096), and only the slots used get pages. */
    if (s->epoch == epoch + 1) return s;
    if (!create) return NULL;
    s->epoch = epoch + 1;
    for (int p = 0; p < PRED_N; p++) s->pred[p] = NAN;
    s->decided = NAN;
    s->arrived = NAN;
    s->hist_err = NAN;
    s->started = NAN;
    s->start_frac = NAN;
    s->accounted = 0;
    s->elapsed = NAN;
    s->prev_of = -1;
    return s;
}

void papc_arr_store_pred(int rank, int epoch, int pred, double t) {
    if (pred < 0 || pred >= PRED_N) return;
    arr_slot *s = papc_arr_slot(rank, epoch, 1);
    if (s && isnan(s->arrived)) s->pred[pred] = t;
}

void papc_arr_store_hist_err(int rank, int epoch, double sigma) {
    arr_slot *s = papc_arr_slot(rank, epoch, 1);
    if (s && isnan(s->arrived)) s->hist_err = sigma;
}

void papc_arr_store_start(int rank, int epoch, double started,
                          double frac) {
    arr_slot *s = papc_arr_slot(rank, epoch, 1);
    if (s && isnan(s->arrived)) {
        s->started = started;
        s->start_frac = frac;
    }
}

/* ---- who receives an estimate (header comment) ---- */

static int send_to_all(void) {
    static int all = -1;
    if (all < 0) {
        const char *v = getenv("PAPC_ESTIMATE_DESTS");
        all = v && strcmp(v, "all") == 0;
    }
    return all;
}

/* ceil(log2 size), within [1, ARR_DEST_MAX]. */
static int dest_cap(int size) {
    int cap = 0;
    while ((1 << cap) < size && cap < ARR_DEST_MAX) cap++;
    return cap < 1 ? 1 : cap;
}

void papc_arr_note_decider(int site, int decider) {
    if (site >= 0) papc_mon.sites[site].decider = decider;
    int i = 0;
    while (i < papc_mon.nrecent && papc_mon.recent[i] != decider) i++;
    if (i == ARR_DEST_MAX) i--;           /* full: the oldest goes */
    else if (i == papc_mon.nrecent) papc_mon.nrecent++;
    memmove(papc_mon.recent + 1, papc_mon.recent, (size_t)i * sizeof(int));
    papc_mon.recent[0] = decider;
}

static void add_dest(int *dest, int *n, int cap, int r) {
    if (*n >= cap || r < 0 || r >= papc_mon.size || r == papc_mon.rank)
        return;
    for (int i = 0; i < *n; i++)
        if (dest[i] == r) return;
    dest[(*n)++] = r;
}

int papc_arr_estimate_dests(int *dest) {
    int n = 0, size = papc_mon.size;
    if (send_to_all()) return -1;
    int cap = dest_cap(size);
    int last = papc_mon.last_site;
    if (last >= 0 && last < papc_mon.nsites) {
        int next = papc_mon.sites[last].next;
        if (next >= 0 && next < papc_mon.nsites)
            add_dest(dest, &n, cap, papc_mon.sites[next].decider);
    }
    for (int i = 0; i < papc_mon.nrecent; i++)
        add_dest(dest, &n, cap, papc_mon.recent[i]);
    if (papc_mon.nrecent == 0) add_dest(dest, &n, cap, 0);
    return n;
}

/* ---- the decider's poll rate (header comment) ---- */

/* Whether this process decides the call expected after an exit at site
 * (mu held). */
static int decides_after(int site) {
    if (site < 0 || site >= papc_mon.nsites) return 0;
    int next = papc_mon.sites[site].next;
    /* A quiet site's next call here runs without an epoch (choose.c):
     * nothing to decide, so the decider's monitor may nap. */
    if (next == site && !papc_mon.sites[site].next_watched) return 0;
    if (next >= 0 && next < papc_mon.nsites &&
        papc_mon.sites[next].decider >= 0)
        return papc_mon.sites[next].decider == papc_mon.rank;
    return papc_mon.sites[site].decider == papc_mon.rank;
}

static double decider_nap_cap(void) {
    static double cap = -1;
    if (cap < 0) {
        const char *v = getenv("PAPC_DECIDER_NAP_US");
        char *end;
        double us = v && *v ? strtod(v, &end) : 100;
        if (v && *v && (*end || !(us >= 0))) {
            if (papc_mon.rank == 0)
                fprintf(stderr, "papcoll: PAPC_DECIDER_NAP_US=%s is not a "
                        "number of microseconds; using 100\n", v);
            us = 100;
        }
        cap = us * 1e-6;
    }
    return cap;
}

double papc_arr_decider_nap(void) {
    return atomic_load_explicit(&papc_mon.decides_next, memory_order_relaxed)
               ? decider_nap_cap()
               : 0;
}

/* The predicted arrival of rank at epoch, NAN when none; *from_progress
 * tells whether it came from a progress report; *sigma is a history
 * guess's typical error (NAN: unknown or not a history guess). */
static double predicted(int rank, int epoch, int *from_progress,
                        double *sigma) {
    *from_progress = 0;
    *sigma = NAN;
    if (papc_mon.fault == FAULT_MISSING) return NAN;
    if (papc_mon.fault == FAULT_STALE) epoch--;
    arr_slot *s = papc_arr_slot(rank, epoch, 0);
    if (!s) return NAN;
    *from_progress = !isnan(s->pred[PRED_PROGRESS]);
    if (*from_progress) return s->pred[PRED_PROGRESS];
    *sigma = s->hist_err;
    return s->pred[PRED_HISTORY];
}

/* Weighs the history guesses among t by their errors (guess.h) when
 * PAPC_GUESS_WEIGH=1; guess and sigma are scratch of n.  Off by default:
 * it helps Clairvoyant under random delays longer than the compute phase,
 * but a rank whose lateness changes regime is believed about two calls
 * later (mpi_arrival_select_p3 missed its switches in 3 of 8 runs with it
 * on).  Read on the rank that forms the order, so it need not be equal on
 * every rank. */
static void weigh_guesses(int n, double *t, int *guess, double *sigma,
                          double now) {
    static int on = -1;
    if (on < 0) {
        const char *v = getenv("PAPC_GUESS_WEIGH");
        on = v && strcmp(v, "1") == 0;
    }
    if (on && guess && sigma) papc_guess_shrink(n, t, guess, sigma, now);
}

/* Overdue progress.  A rank that began its phase at s (its EST_START
 * notice, stamped here) and reports progress at fraction f of a phase has
 * not reported by now: its phase is longer than (now - s) / f, so it comes
 * after papc_overdue_bound (src/topo/guess.c).  A history guess earlier
 * than that is known to be wrong and is raised to it.  Why: under random
 * delays longer than the compute phase the ranks still silent at the first
 * arrival are the late ones, and a guess from last iteration's delays put
 * some of them among the early ranks, which the sorted algorithms then
 * wait for (docs/arrival.md, "Overdue progress").  Progress predictions,
 * arrivals and unknown ranks (after every known one already) are left. */
static void bound_overdue(int n, int epoch, double *t, double now) {
    if (papc_mon.fault == FAULT_MISSING || papc_mon.fault == FAULT_STALE)
        return;
    for (int r = 0; r < n; r++) {
        if (!isfinite(t[r])) continue;
        arr_slot *s = papc_arr_slot(r, epoch, 0);
        if (!s || !isnan(s->arrived) || !isnan(s->pred[PRED_PROGRESS]))
            continue;
        double low = papc_overdue_bound(s->started, s->start_frac, now);
        if (low > t[r]) t[r] = low;
    }
}

void papc_arr_form(int epoch, int *order, double *offset, int *known) {
    int n = papc_mon.size;
    double now = papc_arr_now();
    /* offset doubles as the time vector, then becomes the offsets. */
    double *t = offset;
    int *guess = calloc((size_t)n, sizeof *guess);
    double *sigma = malloc((size_t)n * sizeof *sigma);
    for (int r = 0; r < n; r++) {
        if (sigma) sigma[r] = NAN;
        arr_slot *s = papc_arr_slot(r, epoch, 0);
        if (s && !isnan(s->arrived)) { /* actual arrivals always count */
            t[r] = s->arrived;
            continue;
        }
        /* A progress report already overdue: the rank is running over,
         * take it as arriving now.  A history guess already overdue says
         * only that this call is unlike the past ones and that the rank
         * is late by an unknown amount (it has not even reported
         * progress): unknown, ordered after every rank with a prediction,
         * rather than "now", which put it among the earliest. */
        int from_progress;
        double sg;
        double p = predicted(r, epoch, &from_progress, &sg);
        t[r] = isnan(p) ? INFINITY
             : p >= now ? p
             : from_progress ? now : INFINITY;
        if (guess && sigma && isfinite(t[r]) && !from_progress) {
            guess[r] = 1;
            sigma[r] = sg;
        }
    }
    /* A guess counts as much as it is worth (docs/arrival.md, "How much
     * a guess is worth"); the times the order is formed with are recorded
     * as what the algorithm is told. */
    weigh_guesses(n, t, guess, sigma, now);
    bound_overdue(n, epoch, t, now);
    for (int r = 0; r < n; r++) {
        arr_slot *s = papc_arr_slot(r, epoch, 0);
        if (s && !isnan(s->arrived)) continue;
        if (isfinite(t[r])) s = papc_arr_slot(r, epoch, 1);
        if (s) s->decided = isfinite(t[r]) ? t[r] : NAN;
    }
    free(guess);
    free(sigma);
    *known = papc_order_from_times(n, t, order);
    papc_order_offsets(n, t, offset);
    if (papc_mon.fault == FAULT_REVERSE) {
        papc_order_reverse(n, order);
        papc_order_reassign_offsets(n, order, offset);
    } else if (papc_mon.fault == FAULT_RANDOM) {
        papc_order_shuffle(n, order, (uint64_t)epoch + 1);
        papc_order_reassign_offsets(n, order, offset);
    }
}

/* ---- decisions ---- */

static arr_decision *find_decision(int epoch) {
    for (arr_decision *d = papc_mon.decisions; d; d = d->next)
        if (d->epoch == epoch) return d;
    return NULL;
}

/* Doubles of a flat decision message: known, order[n], offset[n], with
 * dec_measured measured[n], with dec_learn the learn block (2 + n). */
static int dec_doubles(int n) {
    return 1 + (papc_mon.dec_measured ? 3 : 2) * n +
           (papc_mon.dec_learn ? 2 + n : 0);
}

/* Where the learn block starts in a flat message. */
static int learn_at(int n) { return 1 + (papc_mon.dec_measured ? 3 : 2) * n; }

/* The arrivals this process (the decider) measured at epoch, as offsets
 * from the earliest it saw; NAN for a rank whose notice it has not (yet,
 * or any more: ARR_WINDOW) got.  (mu held) */
static void measured_offsets(int epoch, double *out) {
    int n = papc_mon.size;
    double lo = INFINITY;
    for (int r = 0; r < n; r++) {
        arr_slot *s = epoch >= 0 ? papc_arr_slot(r, epoch, 0) : NULL;
        out[r] = s ? s->arrived : NAN;
        if (out[r] < lo) lo = out[r];
    }
    for (int r = 0; r < n; r++) out[r] -= lo;
}

static void free_decision(arr_decision *d) {
    free(d->order);
    free(d->offset);
    free(d->measured);
    free(d->learn);
    free(d);
}

/* The learn block of a decision whose site's previous plain epoch is
 * prev (mu held): the epoch before prev at the site (the decider noted it
 * in its own slot at prev), the mean over the ranks of their time in that
 * call -- each rank's notice of prev carried it, the decider's own is in
 * its slot -- and its measured arrivals.  All NAN unless every rank's time
 * and arrival are known: a partial mean would be biased, and the block is
 * the same message on every rank either way.  Why two calls back: a rank's
 * time in a call is known at its next call's notice, and a decision is
 * made at the first notice of its epoch, before the others came. */
static void learn_block(int prev, double *out) {
    int n = papc_mon.size;
    for (int i = 0; i < 2 + n; i++) out[i] = NAN;
    arr_slot *own = prev >= 0 ? papc_arr_slot(papc_mon.rank, prev, 0) : NULL;
    int pp = own ? own->prev_of : -1;
    if (pp < 0) return;
    double sum = 0;
    for (int r = 0; r < n; r++) {
        arr_slot *s = papc_arr_slot(r, pp, 0);
        if (!s || !isfinite(s->elapsed) || !isfinite(s->arrived)) return;
        sum += s->elapsed;
    }
    measured_offsets(pp, out + 2);
    out[0] = pp;
    out[1] = sum / n;
}

/* Forms and records the decision of epoch (mu held); prev: the epoch of
 * the site's previous plain call (-1: none); NULL: no memory. */
static arr_decision *decide(int epoch, int prev) {
    int n = papc_mon.size;
    arr_decision *d = calloc(1, sizeof *d);
    if (d) {
        d->order = malloc((size_t)n * sizeof *d->order);
        d->offset = malloc((size_t)n * sizeof *d->offset);
        if (papc_mon.dec_measured)
            d->measured = malloc((size_t)n * sizeof *d->measured);
        if (papc_mon.dec_learn)
            d->learn = malloc((size_t)(2 + n) * sizeof *d->learn);
    }
    if (!d || !d->order || !d->offset ||
        (papc_mon.dec_measured && !d->measured) ||
        (papc_mon.dec_learn && !d->learn)) {
        if (d) free_decision(d);
        return NULL;
    }
    d->epoch = epoch;
    papc_arr_form(epoch, d->order, d->offset, &d->known);
    if (d->measured) measured_offsets(prev, d->measured);
    if (d->learn) learn_block(prev, d->learn);
    d->next = papc_mon.decisions;
    papc_mon.decisions = d;
    return d;
}

/* The decision into a flat message m[dec_doubles(n)]: known, order[n],
 * offset[n] (and measured[n]). */
static void encode_into(const arr_decision *d, double *m) {
    int n = papc_mon.size;
    m[0] = d->known;
    for (int i = 0; i < n; i++) {
        m[1 + i] = d->order[i];
        m[1 + n + i] = d->offset[i];
        if (d->measured) m[1 + 2 * n + i] = d->measured[i];
    }
    if (d->learn)
        memcpy(m + learn_at(n), d->learn, (size_t)(2 + n) * sizeof *m);
}

/* The decision as one flat message (dec_doubles). */
static double *encode(const arr_decision *d) {
    double *m = malloc((size_t)dec_doubles(papc_mon.size) * sizeof *m);
    if (m) encode_into(d, m);
    return m;
}

static void drop_old_decisions(int before) {
    for (arr_decision **p = &papc_mon.decisions; *p;) {
        arr_decision *d = *p;
        if (d->taken && d->epoch < before) {
            *p = d->next;
            free_decision(d);
        } else {
            p = &d->next;
        }
    }
}

/* ---- decisions down the tree (header comment) ----
 *
 * A tree message: epoch, decider, then the flat message (known, order[n],
 * offset[n], with dec_measured measured[n]): from m + 2 on it reads as a
 * flat one.
 * rx: one record per epoch this process waits for or has received a
 * decision of [mu]: made by the foreground when its call registers the
 * wait (awaited) or by the monitor when the decision comes (msg), removed
 * when the foreground takes it. */
typedef struct dec_rx {
    struct dec_rx *next;
    int epoch;
    int awaited;         /* a call of this process waits for it */
    int abandoned;       /* ... but ended in an error: drop on arrival */
    double *msg;         /* the tree message, once it came */
} dec_rx;
static dec_rx *rx;

static int tree_doubles(int n) { return 2 + dec_doubles(n); }

static dec_rx *rx_find(int epoch, int create) {
    for (dec_rx *r = rx; r; r = r->next)
        if (r->epoch == epoch) return r;
    if (!create) return NULL;
    dec_rx *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->epoch = epoch;
    r->next = rx;
    rx = r;
    return r;
}

static void rx_remove(dec_rx *gone) {
    for (dec_rx **p = &rx; *p; p = &(*p)->next)
        if (*p == gone) {
            *p = gone->next;
            free(gone->msg);
            free(gone);
            return;
        }
}

/* Received decisions no call of this process claimed (it had passed the
 * epoch, or its call failed before it waited) are dropped ARR_WINDOW
 * epochs later.  [fg, mu held] */
static void rx_gc(int before) {
    for (dec_rx **p = &rx; *p;) {
        dec_rx *r = *p;
        if (!r->awaited && r->msg && r->epoch < before) {
            *p = r->next;
            free(r->msg);
            free(r);
        } else {
            p = &r->next;
        }
    }
}

int papc_arr_decisions_settled(void) {
    int settled = 1;
    papc_tr_lock();
    for (dec_rx *r = rx; r && settled; r = r->next)
        if (r->awaited && !r->msg) settled = 0;
    papc_tr_unlock();
    return settled;
}

/* 1 when this process of a call at epoch with decider needs the tree's
 * decision: a non-decider of an AGREED call or of a plain call's view. */
static int waits_for_tree(const papc_call *c, int decider, int need) {
    return papc_mon.dec_tree && c->rank != decider &&
           (need == PAPC_ORDER_AGREED || c->arrival_view);
}

/* The decider's tree message of d. */
static double *encode_tree(const arr_decision *d) {
    int n = papc_mon.size;
    double *m = malloc((size_t)tree_doubles(n) * sizeof *m);
    if (!m) return NULL;
    m[0] = d->epoch;
    m[1] = papc_mon.rank;
    encode_into(d, m + 2);
    return m;
}

/* This process' children in the tree of decider (real ranks). */
static int tree_children(int decider, int *child) {
    int n = papc_mon.size;
    int k = papc_arr_tree_children((papc_mon.rank - decider + n) % n, n,
                                   child);
    for (int i = 0; i < k; i++) child[i] = (child[i] + decider) % n;
    return k;
}

/* The monitor sends (a copy of) the tree message m to its children.  [th] */
static void forward_tree(const double *m) {
    int child[32];
    int k = tree_children((int)m[1], child);
    int bytes = tree_doubles(papc_mon.size) * (int)sizeof *m;
    for (int i = 0; i < k; i++) {
        double *copy = malloc((size_t)bytes);
        if (!copy) continue;   /* the subtree would wait: as a lost one */
        memcpy(copy, m, (size_t)bytes);
        papc_arr_count(STAT_DECISION, bytes);
        papc_arr_isend(copy, bytes, child[i], TAG_DEC, papc_mon.data);
    }
}

void papc_arr_on_decision(int source, char *buf, int bytes) {
    (void)source;
    double *m = (double *)(void *)buf;
    int n = papc_mon.size;
    if (bytes != tree_doubles(n) * (int)sizeof *m || (int)m[1] < 0 ||
        (int)m[1] >= n) {
        free(buf);
        return;
    }
    if (!papc_arr_sealed()) forward_tree(m);
    papc_tr_lock();
    dec_rx *r = rx_find((int)m[0], 1);
    if (r && !r->msg) {
        r->msg = m;
        m = NULL;
        if (r->abandoned) rx_remove(r);
    }
    papc_tr_broadcast(PAPC_TR_CV);
    papc_tr_unlock();
    free(m);
}

/* The foreground takes the tree decision of epoch, waiting for it;
 * *msg is the tree message (the caller's).  [fg] */
static int take_tree(int epoch, double **msg) {
    papc_tr_lock();
    for (;;) {
        dec_rx *r = rx_find(epoch, 0);
        if (r && r->msg) {
            *msg = r->msg;
            r->msg = NULL;
            rx_remove(r);
            papc_tr_unlock();
            return MPI_SUCCESS;
        }
        int rc = papc_arr_fg_wait("an arrival decision");
        if (rc != MPI_SUCCESS) {
            papc_tr_unlock();
            return rc;
        }
    }
}

/* The tree decision of epoch if it came (1, *msg the caller's), without
 * waiting.  [fg] */
static int take_tree_now(int epoch, double **msg) {
    papc_tr_lock();
    dec_rx *r = rx_find(epoch, 0);
    int got = r && r->msg;
    if (got) {
        *msg = r->msg;
        r->msg = NULL;
        rx_remove(r);
    }
    papc_tr_unlock();
    return got;
}

/* A call that waited for epoch's decision ended in an error: the
 * decision is still forwarded when it comes (settled waits for it), then
 * dropped.  [fg] */
static void abandon_tree(int epoch) {
    papc_tr_lock();
    dec_rx *r = rx_find(epoch, 0);
    if (r && r->msg) rx_remove(r);
    else if (r) r->abandoned = 1;
    papc_tr_unlock();
}

static void free_rx(void) {
    while (rx) {
        dec_rx *r = rx;
        rx = r->next;
        free(r->msg);
        free(r);
    }
}

/* The decisions handed to the monitor (below, "decisions the decider's
 * foreground hands to its monitor").  [mu] */
typedef struct queued_decision {
    struct queued_decision *next;
    double *msg;
    int epoch;
} queued_decision;
static queued_decision *dec_queue, **dec_queue_tail = &dec_queue;

void papc_arr_free_decisions(void) {
    while (dec_queue) {   /* none is left after a normal shutdown */
        queued_decision *q = dec_queue;
        dec_queue = q->next;
        free(q->msg);
        free(q);
    }
    dec_queue_tail = &dec_queue;
    while (papc_mon.decisions) {
        arr_decision *d = papc_mon.decisions;
        papc_mon.decisions = d->next;
        free_decision(d);
    }
    free_rx();
}

/* ---- the thread's side ---- */

/* Sends a decision message (taken) the monitor made or was handed: down
 * the tree, or flat to every other rank's foreground.  [th] */
static void send_decision(double *msg, int epoch) {
    if (papc_mon.dec_tree) {
        forward_tree(msg);
        free(msg);
        return;
    }
    int n = papc_mon.size, bytes = dec_doubles(n) * (int)sizeof *msg;
    for (int r = 0; r < n; r++) {
        if (r == papc_mon.rank) continue;
        double *copy = malloc((size_t)bytes);
        if (!copy) continue;  /* the receiver would hang: see below */
        memcpy(copy, msg, (size_t)bytes);
        papc_arr_count(STAT_DECISION, bytes);
        papc_arr_isend(copy, bytes, r, dec_tag(epoch), papc_mon.dec);
    }
    free(msg);
}

void papc_arr_on_ctl(int source, int tag, const double *m) {
    int epoch = (int)m[0];
    double now = papc_arr_now();
    if (tag == TAG_EST) {
        /* A history guess carries its sender's typical relative error
         * (m[3], -1: unknown): times its horizon, its error here. */
        int pred = (int)m[2];
        papc_tr_lock();
        if (pred == EST_START) /* m[1]: minus the phase's age at sending */
            papc_arr_store_start(source, epoch, now + m[1], m[3]);
        else papc_arr_store_pred(source, epoch, pred, now + m[1]);
        if (pred == PRED_HISTORY)
            papc_arr_store_hist_err(source, epoch,
                                    m[3] >= 0 ? m[3] * m[1] : NAN);
        papc_tr_unlock();
        return;
    }
    if (tag != TAG_NOTICE) return;
    int need = (int)m[1];
    double *msg = NULL;
    papc_tr_lock();
    /* m[3]: the sender's time in the site's previous plain call (epoch
     * m[2] - 1; < 0: unknown), for the learn block. */
    arr_slot *was = m[2] >= 1 && m[3] >= 0
                        ? papc_arr_slot(source, (int)m[2] - 1, 0) : NULL;
    if (was) was->elapsed = m[3];
    arr_slot *s = papc_arr_slot(source, epoch, 1);
    if (s && isnan(s->arrived)) {
        s->arrived = now;
        for (int p = 0; p < PRED_N; p++)
            if (!isnan(s->pred[p]))
                papc_arr_log_error(p, fabs(now - s->pred[p]));
        if (!isnan(s->decided))
            papc_arr_log_error(ERR_DECISION, fabs(now - s->decided));
        papc_arr_rec_arrival(source, epoch, now);
    }
    /* A decision is kept ARR_WINDOW epochs after its foreground took it;
     * a notice older than that was decided long ago: never decide twice
     * (a second decision message would match a later epoch's tag). */
    int fg_epoch = __atomic_load_n(&papc_mon.epoch_next, __ATOMIC_RELAXED);
    /* Sealed (shutdown): the decider's own call decided every epoch of
     * its calls before it went on; sending now would break the seal. */
    if (need == PAPC_ORDER_AGREED && epoch >= fg_epoch - ARR_WINDOW / 2 &&
        !find_decision(epoch) && !papc_arr_sealed()) {
        arr_decision *d = decide(epoch, (int)m[2] - 1);
        if (d) msg = papc_mon.dec_tree ? encode_tree(d) : encode(d);
    }
    papc_tr_unlock();
    if (msg) send_decision(msg, epoch);
}

/* ---- decisions the decider's foreground hands to its monitor ----
 * The plain call's view (view_begin) needs its epoch decided, but no rank
 * waits for that decision in the call: the decider's foreground used to
 * send it to the P - 1 others itself and wait for the sends before its
 * own call began (100-190 us at P = 8 on the emulated cluster, where the
 * root's late start delays every rank of a gather or reduce).  It now
 * queues the message and wakes its monitor, which sends it as it sends a
 * decision made at a notice.  Cannot hang: the monitor drains the queue
 * every round, after reading the quit flag and before the shutdown's
 * seal (a foreground queues only inside a call, so before finalize sets
 * the flag: the round that sees it sends everything queued); the
 * receivers take it at their next plain call or drop it at finalize, as
 * before.  [mu] */

static int queue_decision(double *msg, int epoch) {
    queued_decision *q = malloc(sizeof *q);
    if (!q) return 0;
    *q = (queued_decision){NULL, msg, epoch};
    *dec_queue_tail = q;
    dec_queue_tail = &q->next;
    papc_tr_signal(PAPC_TR_WAKE);
    return 1;
}

void papc_arr_send_queued_decisions(void) {
    papc_tr_lock();
    queued_decision *q = dec_queue;
    dec_queue = NULL;
    dec_queue_tail = &dec_queue;
    papc_tr_unlock();
    while (q) {
        queued_decision *next = q->next;
        send_decision(q->msg, q->epoch);
        free(q);
        q = next;
    }
}

/* ---- the foreground's side ---- */

static void rank_order(papc_arrival *a) {
    for (int i = 0; i < a->size; i++) {
        a->order[i] = i;
        a->offset[i] = INFINITY;
    }
    a->known = 0;
}

/* The decider's foreground sends its tree message msg (taken) to its
 * children's monitors and waits for the sends, as it waited for the flat
 * ones (ceil(log2 P) of them now). */
static int send_tree_from_foreground(double *msg) {
    int child[32];
    int k = tree_children(papc_mon.rank, child);
    int bytes = tree_doubles(papc_mon.size) * (int)sizeof *msg;
    MPI_Request req[32];
    void *mem[32];
    int nreq = 0, rc = MPI_SUCCESS;
    for (int i = 0; i < k && rc == MPI_SUCCESS; i++) {
        double *copy = malloc((size_t)bytes);
        if (!copy) {
            rc = papc_error(MPI_ERR_NO_MEM, "arrival decision");
            break;
        }
        memcpy(copy, msg, (size_t)bytes);
        rc = papc_tr_isend(PAPC_TR_DATA, child[i], TAG_DEC, copy, bytes,
                           &req[nreq], &mem[nreq]);   /* takes copy */
        if (rc != MPI_SUCCESS) {
            rc = papc_mpi_error(rc, "arrival decision send");
            break;
        }
        papc_arr_count(STAT_DECISION, bytes);
        nreq++;
    }
    int wrc = papc_waitall(nreq, req);
    if (rc == MPI_SUCCESS) rc = wrc;
    for (int i = 0; i < nreq; i++) free(mem[i]);
    free(msg);
    return rc;
}

/* The decider's side of an AGREED epoch: takes the decision its monitor
 * made at the first notice, or makes it now (prev: the site's previous
 * plain epoch) and sends it to every rank; order, offset [n] and known
 * receive it, and flat (when not NULL) the whole flat message. */
static int agreed_as_decider(const papc_call *c, int epoch, int prev,
                             int *order, double *offset, int *known,
                             double *flat, int by_monitor) {
    int n = c->size;
    double *msg = NULL;
    int queued = 0;
    papc_tr_lock();
    arr_decision *d = find_decision(epoch);
    int mine = d == NULL;
    if (mine) d = decide(epoch, prev);
    if (d) {
        d->taken = 1;
        memcpy(order, d->order, (size_t)n * sizeof *order);
        memcpy(offset, d->offset, (size_t)n * sizeof *offset);
        *known = d->known;
        if (flat) encode_into(d, flat);
        if (mine) msg = papc_mon.dec_tree ? encode_tree(d) : encode(d);
        if (mine && msg && by_monitor) queued = queue_decision(msg, epoch);
    }
    papc_tr_unlock();
    if (!d) return papc_error(MPI_ERR_NO_MEM, "arrival decision");
    if (!mine || queued) return MPI_SUCCESS;
    if (!msg) return papc_error(MPI_ERR_NO_MEM, "arrival decision");
    if (papc_mon.dec_tree) return send_tree_from_foreground(msg);
    MPI_Request *req = malloc((size_t)n * sizeof *req);
    if (!req) {
        free(msg);
        return papc_error(MPI_ERR_NO_MEM, "arrival decision");
    }
    int nreq = 0, rc = MPI_SUCCESS;
    for (int r = 0; r < n && rc == MPI_SUCCESS; r++)
        if (r != c->rank) {
            papc_arr_count(STAT_DECISION,
                           dec_doubles(n) * (long long)sizeof *msg);
            rc = MPI_Isend(msg, dec_doubles(n), MPI_DOUBLE, r, dec_tag(epoch),
                           papc_mon.dec, &req[nreq++]);
        }
    if (rc == MPI_SUCCESS) {
        rc = papc_waitall(nreq, req);  /* an error class already */
    } else {
        papc_cleanup_requests(nreq, req);
        rc = papc_mpi_error(rc, "arrival decision send");
    }
    free(req);
    free(msg);
    return rc;
}

/* A tree message's decision into a. */
static void from_tree(const double *m, papc_arrival *a) {
    int n = a->size;
    a->known = (int)m[2];
    for (int i = 0; i < n; i++) {
        a->order[i] = (int)m[3 + i];
        a->offset[i] = m[3 + n + i];
    }
}

static int agreed_from_decider(const papc_call *c, int decider,
                               papc_arrival *a) {
    int n = c->size;
    /* A plain call's view of measured arrivals needs the whole message
     * in end (view_end); otherwise the order and offsets are all. */
    int keep = c->arrival_view && (papc_mon.dec_measured || papc_mon.dec_learn);
    if (papc_mon.dec_tree) {
        double *t = NULL;
        int rc = take_tree(a->epoch, &t);
        if (rc == MPI_SUCCESS) from_tree(t, a);
        if (rc == MPI_SUCCESS && keep) {
            a->view_msg = malloc((size_t)dec_doubles(n) * sizeof *t);
            if (a->view_msg)
                memcpy(a->view_msg, t + 2, (size_t)dec_doubles(n) * sizeof *t);
        }
        free(t);
        return rc;
    }
    double *m = malloc((size_t)dec_doubles(n) * sizeof *m);
    if (!m) return papc_error(MPI_ERR_NO_MEM, "arrival decision");
    int rc = MPI_Recv(m, dec_doubles(n), MPI_DOUBLE,
                      papc_tr_dec_source(decider), dec_tag(a->epoch),
                      papc_mon.dec, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS) {
        a->known = (int)m[0];
        for (int i = 0; i < n; i++) {
            a->order[i] = (int)m[1 + i];
            a->offset[i] = m[1 + n + i];
        }
    }
    if (rc == MPI_SUCCESS && keep) a->view_msg = m;
    else free(m);
    if (rc != MPI_SUCCESS) return papc_mpi_error(rc, "arrival decision");
    return MPI_SUCCESS;
}

/* ---- the plain call's view (papc_call.arrival_view, choose.c) ----
 *
 * Every rank of a plain call on the served comm takes the agreed decision
 * of its epoch and keeps its offsets at the call site, for the choice of
 * the next call there.  With PAPC_ARRIVAL_VIEW_MEASURED=1 on every rank
 * (agreed at the monitor's start, papc_mon.dec_measured) the decision also
 * carries the arrivals its decider MEASURED at the site's previous plain
 * call -- every rank names that epoch in its notice, and the decider of a
 * site is always the same rank, which stamped those notices -- and the
 * site keeps those instead (keep_view_msg): what happened two calls back
 * rather than what was predicted one call back.  An algorithm that is not
 * AGREED does not wait for the decision before it starts: the decider's
 * monitor sends it (at the first notice, which every rank sends as AGREED,
 * or handed over by the decider's begin) and the others post its receive here
 * and complete it in end, long after it came.  So the view costs no round trip; only P - 1 small
 * messages from the decider. */
static int view_begin(const papc_call *c, papc_arrival *a) {
    int n = c->size;
    a->view_msg = malloc((size_t)dec_doubles(n) * sizeof *a->view_msg);
    if (!a->view_msg) return papc_error(MPI_ERR_NO_MEM, "arrival view");
    if (c->rank == a->decider) {
        int *order = malloc((size_t)n * sizeof *order);
        double *offset = malloc((size_t)n * sizeof *offset);
        int known = 0, rc = order && offset
            ? agreed_as_decider(c, a->epoch, a->view_prev_epoch, order,
                                offset, &known, a->view_msg, 1)
            : papc_error(MPI_ERR_NO_MEM, "arrival view");
        free(order);
        free(offset);
        return rc;
    }
    if (papc_mon.dec_tree) {   /* registered in begin; taken in end */
        free(a->view_msg);
        a->view_msg = NULL;
        return MPI_SUCCESS;
    }
    int rc = MPI_Irecv(a->view_msg, dec_doubles(n), MPI_DOUBLE,
                       papc_tr_dec_source(a->decider), dec_tag(a->epoch),
                       papc_mon.dec, &a->view_req);
    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : papc_mpi_error(rc, "arrival view receive");
}

/* The spread the choice sees in a view: its largest offset, unknown
 * ones counting as 0 (as choose.c counts them). */
static double view_spread(int n, const double *offset) {
    double spread = 0;
    for (int r = 0; r < n; r++)
        if (isfinite(offset[r]) && offset[r] > spread) spread = offset[r];
    return spread;
}

/* The learnt spread floor's input (papc_arr_spread_floor): how much the
 * spread changed from the site's previous view to this one.  Only the
 * views go in -- one message copied bit for bit to every rank, kept at a
 * site in epoch order on every rank (pending views complete oldest
 * first) -- so every rank holds the same mean (mu held). */
static void learn_spread(arr_site *s, int n, const double *offset) {
    double spread = view_spread(n, offset);
    double change = papc_spread_change(s->view_spread, spread,
                                       PAPC_ARRIVAL_SPREAD_FLOOR_MIN);
    if (isfinite(change))
        papc_mean_add(&s->spread_err, change, SPREAD_ERR_WEIGHT);
    s->view_spread_prev = s->view_spread;
    s->view_spread = spread;
}

/* A rank the decision did not know (its report came after the first
 * arrival: one late by more than half its compute) keeps the offset it
 * had in the site's previous view, instead of counting as on time -- the
 * same doubles on every rank, since the views are.  On the emulated
 * cluster a rank 200 ms late was unknown in every view: the choice saw
 * no spread and kept the classic row. */
static void keep_view(int site, int n, const double *offset, int known) {
    if (site < 0 || site >= papc_mon.nsites) return;
    papc_tr_lock();
    arr_site *s = &papc_mon.sites[site];
    int had = s->view != NULL;
    if (!s->view) s->view = malloc((size_t)n * sizeof *s->view);
    if (s->view) {
        for (int r = 0; r < n; r++)
            if (isfinite(offset[r]) || !had || !isfinite(s->view[r]))
                s->view[r] = offset[r];
        s->view_known = known;
        s->view_gen++;
        learn_spread(s, n, s->view);
    }
    papc_tr_unlock();
}

/* Keeps a decision's learn block at the site for the next choice there
 * (papc_arr_take_measurement): only a complete one; the same message on
 * every rank, kept in the same order (views are), so the same state. */
static void keep_measurement(int site, int n, const double *block) {
    if (site < 0 || site >= papc_mon.nsites || !(block[0] >= 0) ||
        !isfinite(block[1]))
        return;
    for (int r = 0; r < n; r++)
        if (!isfinite(block[2 + r])) return;
    papc_tr_lock();
    arr_site *s = &papc_mon.sites[site];
    if (!s->measure_offset)
        s->measure_offset = malloc((size_t)n * sizeof *s->measure_offset);
    if (s->measure_offset) {
        s->measure_epoch = (int)block[0];
        s->measure_mean = block[1];
        memcpy(s->measure_offset, block + 2, (size_t)n * sizeof *block);
    }
    papc_tr_unlock();
}

/* Keeps the view a flat decision message gives the site: with
 * dec_measured the arrivals the decider measured at the site's previous
 * plain call, when it saw at least two (the view then describes what
 * happened, two calls back, not what was predicted one call back: a rank
 * late by more than half its compute is a guess in every decision, and
 * exact here); else the decided offsets.  The same message on every
 * rank, so the same view. */
static void keep_view_msg(int site, int n, const double *flat) {
    if (papc_mon.dec_learn) keep_measurement(site, n, flat + learn_at(n));
    if (papc_mon.dec_measured) {
        const double *measured = flat + 1 + 2 * n;
        int seen = 0;
        for (int r = 0; r < n; r++) seen += isfinite(measured[r]) != 0;
        if (seen >= 2) {
            keep_view(site, n, measured, seen);
            return;
        }
    }
    keep_view(site, n, flat + 1 + n, (int)flat[0]);
}

double papc_arr_lasting_spread(const papc_call *c, double spread) {
    /* Read at every call, as its communicator agreed it (settings.c). */
    const char *pv = papc_getenv("PAPC_ARRIVAL_PERSIST");
    int persist = !(pv && *pv == '0');
    if (!persist) return spread;
    double lasting = 0;
    papc_tr_lock();
    int site = papc_arr_site(c);
    if (site >= 0)
        lasting = papc_spread_lasting(papc_mon.sites[site].view_spread,
                                      papc_mon.sites[site].view_spread_prev);
    papc_tr_unlock();
    return lasting;
}

double papc_arr_quiet_spread(const papc_call *c) {
    double quiet = INFINITY;
    papc_tr_lock();
    int site = papc_arr_site(c);
    if (site >= 0)
        quiet = papc_spread_quiet(papc_mon.sites[site].view_spread,
                                  papc_mon.sites[site].view_spread_prev);
    papc_tr_unlock();
    return quiet;
}

double papc_arr_spread_floor(const papc_call *c) {
    /* Read at every call, as its communicator agreed it (settings.c). */
    const char *kv = papc_getenv("PAPC_ARRIVAL_NOISE_K");
    double k = kv && *kv ? strtod(kv, NULL) : SPREAD_NOISE_K;
    if (!(k >= 0)) k = SPREAD_NOISE_K;
    double floor = PAPC_ARRIVAL_SPREAD_FLOOR_MIN;
    papc_tr_lock();
    int site = papc_arr_site(c);
    if (site >= 0)
        floor = papc_spread_floor(floor, k, &papc_mon.sites[site].spread_err,
                                  SPREAD_ERR_MIN_N);
    papc_tr_unlock();
    return floor;
}

/* Views whose decision had not come when their call ended: completed
 * before the next choice reads any view (papc_arrival_view), so a rank
 * never waits for a decision at the end of a call -- with ē, the mean
 * time in the call over the ranks, a wait at every non-decider's exit
 * would cost more than the choice can win.  [fg] */
typedef struct pending_view {
    struct pending_view *next;
    MPI_Request req;         /* flat: the receive; tree: MPI_REQUEST_NULL */
    double *msg;             /* flat */
    int site, n;
    int epoch;               /* tree: the decision to take */
} pending_view;
/* Oldest first: completed in that order, so a site keeps its latest view
 * on every rank (newest first, a rank with two pending views of a site
 * ended with the older one while a rank that had taken the older one in
 * end kept the newer one: different choices). */
static pending_view *pending;

static void add_pending(pending_view *p) {
    pending_view **tail = &pending;
    while (*tail) tail = &(*tail)->next;
    p->next = NULL;
    *tail = p;
}

static void complete_pending_views(void) {
    while (pending) {
        pending_view *p = pending;
        pending = p->next;
        if (p->req == MPI_REQUEST_NULL) {
            double *t = NULL;
            if (take_tree(p->epoch, &t) == MPI_SUCCESS)
                keep_view_msg(p->site, p->n, t + 2);
            free(t);
        } else if (MPI_Wait(&p->req, MPI_STATUS_IGNORE) == MPI_SUCCESS) {
            keep_view_msg(p->site, p->n, p->msg);
        }
        free(p->msg);
        free(p);
    }
}

void papc_arr_drop_pending_views(void) {
    while (pending) {
        pending_view *p = pending;
        pending = p->next;
        if (p->req != MPI_REQUEST_NULL) {
            MPI_Cancel(&p->req);
            MPI_Wait(&p->req, MPI_STATUS_IGNORE);
        }
        free(p->msg);
        free(p);
    }
}

/* view_end down the tree: the decision if it came, else a pending view;
 * after an error the wait is abandoned.  [fg] */
static void view_end_tree(const papc_call *c, papc_arrival *a, int rc) {
    int n = c->size;
    double *t = NULL;
    if (rc != MPI_SUCCESS) {
        abandon_tree(a->epoch);
    } else if (take_tree_now(a->epoch, &t)) {
        keep_view_msg(a->site, n, t + 2);
        free(t);
    } else {
        pending_view *p = malloc(sizeof *p);
        if (p) {
            *p = (pending_view){NULL, MPI_REQUEST_NULL, NULL, a->site, n,
                                a->epoch};
            add_pending(p);
        } else {
            abandon_tree(a->epoch);
        }
    }
}

/* Leaves the view's receive pending (above), completed before the next
 * choice reads a view; keeps the offsets of a decision at hand (the
 * decider's own, an AGREED call's) at the call's site.  After an error
 * the receive is cancelled and the site keeps its old view. */
static void view_end(const papc_call *c, papc_arrival *a, int rc) {
    int n = c->size;
    const double *offset = NULL, *flat = NULL;
    int known = 0;
    if (waits_for_tree(c, a->decider, a->need) &&
        a->need != PAPC_ORDER_AGREED) {
        view_end_tree(c, a, rc);
        free(a->view_msg);
        a->view_msg = NULL;
        return;
    }
    if (a->view_req != MPI_REQUEST_NULL) {
        /* Not even tested here: an MPI_Test at the end of a reduce leaf's
         * call progressed what its own send had left queued, 0.8-1.2 ms
         * of the leaf's time in the call on the emulated cluster (P = 8,
         * 1 MiB vectors; docs/performance.md, eighth session); the monitor's
         * polls and the program's next MPI calls move it anyway. */
        pending_view *p = rc == MPI_SUCCESS ? malloc(sizeof *p) : NULL;
        if (p) {
            *p = (pending_view){NULL, a->view_req, a->view_msg, a->site,
                                n, a->epoch};
            add_pending(p);
            a->view_req = MPI_REQUEST_NULL;
            a->view_msg = NULL;
            return;
        } else {
            MPI_Cancel(&a->view_req);
            MPI_Wait(&a->view_req, MPI_STATUS_IGNORE);
        }
    } else if (rc == MPI_SUCCESS && a->view_msg) {
        flat = a->view_msg;   /* the decider's own, or an AGREED call's */
    } else if (rc == MPI_SUCCESS && a->need == PAPC_ORDER_AGREED &&
               a->offset) {
        offset = a->offset;
        known = a->known;
    }
    if (flat) keep_view_msg(a->site, n, flat);
    else if (offset) keep_view(a->site, n, offset, known);
    free(a->view_msg);
    a->view_msg = NULL;
}

/* A copy of c's site's latest view, with its count of known ranks; 0
 * when there is none. */
static int copy_view(const papc_call *c, double *offset, int *known) {
    int found = 0;
    papc_tr_lock();
    int site = papc_arr_site(c);
    const arr_site *s = site >= 0 ? &papc_mon.sites[site] : NULL;
    if (s && s->view && s->size == c->size) {
        memcpy(offset, s->view, (size_t)c->size * sizeof *offset);
        *known = s->view_known;
        found = 1;
    }
    papc_tr_unlock();
    return found;
}

/* The site's ring of prices (papc_price_ring, arrival_model.h), made for
 * `rows` rows on first use; NULL price when there is no memory. */
static papc_price_ring site_ring(arr_site *s, int rows,
                                 unsigned long long key) {
    if (s->priced && s->priced_key != key) {
        memset(s->priced_gen, 0, sizeof s->priced_gen);
        s->jump_dir = 0;
    }
    s->priced_key = key;
    if (!s->priced || s->priced_rows != rows) {
        free(s->priced);
        s->priced = malloc((size_t)ARR_PRICED * (size_t)rows *
                           sizeof *s->priced);
        memset(s->priced_gen, 0, sizeof s->priced_gen);
        s->priced_rows = s->priced ? rows : 0;
    }
    return (papc_price_ring){ARR_PRICED, rows, s->priced, s->priced_gen};
}

/* A view's spread this many times the mean of the views before it (or a
 * 1/ratio of it), twice in a row, is a new pattern (papc_arr_price_views).
 * Why 3 and twice: rand-late 10 ms views on the emulated cluster spread
 * 1.7-10 ms (test_guess's series), one 3.4 x under its predecessors' mean
 * (a late rank decided on time) and none twice in a row; the benchmark's
 * changes of delay are 4-25 x and last. */
#define ARR_JUMP_RATIO 3.0

int papc_arr_price_views(const papc_call *c, int rows, int k,
                         unsigned long long key, const double *now,
                         double *mean) {
    if (k <= 1) {
        memcpy(mean, now, (size_t)rows * sizeof *mean);
        return 0;
    }
    int jumped = 0;
    papc_tr_lock();
    int site = papc_arr_site(c);
    arr_site *s = site >= 0 ? &papc_mon.sites[site] : NULL;
    papc_price_ring ring = {0, rows, NULL, NULL};
    if (s && s->view_gen > 0) {
        ring = site_ring(s, rows, key);
        jumped = papc_price_ring_new_pattern(&ring, s->view_gen, k,
                                             rows - 1, now[rows - 1],
                                             ARR_JUMP_RATIO, &s->jump_gen,
                                             &s->jump_dir);
        papc_price_ring_keep(&ring, s->view_gen, now);
    }
    papc_price_ring_mean(&ring, s ? s->view_gen : 0, k, now, mean);
    papc_tr_unlock();
    return jumped;
}

/* ---- what the rows cost when they ran (choose.c, PAPC_ARRIVAL_LEARN) ----
 * Every rank times its plain call and keeps, per site, which row each of
 * the latest calls ran (the same on every rank: the choice is agreed).
 * Its time goes to the decider in its next notice at the site (m[3]); the
 * decider's in its own slot.  The decision two calls later carries the
 * mean and the measured arrivals of that call (learn_block), and every
 * rank prices the row that ran at those arrivals (choose.c): the row's
 * residual, agreed data.  Cost: one double in the notice, 2 + P in the
 * decision, one row's price per call. */
void papc_arr_plain_done(const papc_call *c, int decider, int row,
                         double elapsed) {
    if (!papc_mon.running || !papc_mon.dec_learn) return;
    papc_tr_lock();
    int site = papc_arr_site(c);
    arr_site *s = site >= 0 ? &papc_mon.sites[site] : NULL;
    int e = s ? s->plain_epoch : -1;
    if (e >= 0) {
        s->ran_epoch[e % ARR_RAN] = e;
        s->ran_row[e % ARR_RAN] = row;
        s->learn_calls++;
        if (s->learn && row >= 0 && row < s->learn_rows)
            s->learn[row].ran_at = s->learn_calls;
        s->own_epoch = e;
        s->own_elapsed = elapsed;
        arr_slot *own = c->rank == decider
                            ? papc_arr_slot(c->rank, e, 0) : NULL;
        if (own) own->elapsed = elapsed;
    }
    papc_tr_unlock();
}

papc_row_learning *papc_arr_learning(const papc_call *c, int rows,
                                     unsigned long long key, long *calls) {
    papc_row_learning *l = NULL;
    *calls = 0;
    papc_tr_lock();
    int site = papc_arr_site(c);
    arr_site *s = site >= 0 ? &papc_mon.sites[site] : NULL;
    if (s && (!s->learn || s->learn_rows != rows || s->learn_key != key)) {
        free(s->learn);
        s->learn = malloc((size_t)rows * sizeof *s->learn);
        s->learn_rows = s->learn ? rows : 0;
        s->learn_key = key;
        /* The residuals are against the models of this key: a call made
         * before it (this one has no epoch yet) measured other ones. */
        s->learn_since = s->plain_epoch + 1;
        if (s->learn) papc_learn_init(s->learn, rows);
    }
    if (s) l = s->learn;
    if (s) *calls = s->learn_calls;
    papc_tr_unlock();
    return l;
}

int papc_arr_take_measurement(const papc_call *c, int *row, double *mean,
                              double *offset) {
    int found = 0;
    papc_tr_lock();
    int site = papc_arr_site(c);
    arr_site *s = site >= 0 ? &papc_mon.sites[site] : NULL;
    if (s && s->measure_epoch >= 0 && s->measure_offset &&
        s->size == c->size) {
        int e = s->measure_epoch;
        if (s->ran_epoch[e % ARR_RAN] == e && e >= s->learn_since) {
            *row = s->ran_row[e % ARR_RAN];
            *mean = s->measure_mean;
            memcpy(offset, s->measure_offset,
                   (size_t)c->size * sizeof *offset);
            found = 1;
        }
        s->measure_epoch = -1;
    }
    papc_tr_unlock();
    return found;
}

int papc_arrival_view(const papc_call *c, double *offset, int *known) {
    *known = 0;
    if (!papc_mon.running) return 0;
    complete_pending_views();
    return copy_view(c, offset, known);
}

int papc_arr_watch(const papc_call *c, int quiet, int every, int *site) {
    int watch = 1;
    papc_tr_lock();
    *site = papc_arr_site(c);
    if (*site >= 0) {
        arr_site *s = &papc_mon.sites[*site];
        if (quiet && every > 1 && s->unwatched < every - 1) {
            s->unwatched++;
            watch = 0;
        } else {
            s->unwatched = 0;
        }
        s->next_watched = !quiet || every <= 1 || s->unwatched >= every - 1;
    }
    papc_tr_unlock();
    return watch;
}

int papc_arr_view_turn(const papc_call *c, int settled, int every) {
    int view = 1;
    papc_tr_lock();
    int site = papc_arr_site(c);
    if (site >= 0) {
        arr_site *s = &papc_mon.sites[site];
        if (settled && every > 1 && s->unviewed < every - 1) {
            s->unviewed++;
            view = 0;
        } else {
            s->unviewed = 0;
        }
    }
    papc_tr_unlock();
    return view;
}

int papc_arr_settled(const papc_call *c, int steady) {
    int settled = 0;
    papc_tr_lock();
    int site = papc_arr_site(c);
    if (site >= 0) {
        arr_site *s = &papc_mon.sites[site];
        settled = papc_pick_settled(&s->picks, s->view_gen, steady);
    }
    papc_tr_unlock();
    return settled;
}

unsigned long papc_arr_view_gen(const papc_call *c) {
    unsigned long gen = 0;
    papc_tr_lock();
    int site = papc_arr_site(c);
    if (site >= 0) gen = papc_mon.sites[site].view_gen;
    papc_tr_unlock();
    return gen;
}

int papc_arr_cached_pick(const papc_call *c, unsigned long gen,
                         unsigned long long key, papc_arr_pick *p) {
    int found = 0;
    papc_tr_lock();
    int site = papc_arr_site(c);
    if (site >= 0 && gen > 0) {
        const arr_site *s = &papc_mon.sites[site];
        if (s->pick_gen == gen && s->pick_key == key) {
            *p = s->pick;
            found = 1;
        }
    }
    papc_tr_unlock();
    return found;
}

void papc_arr_keep_pick(const papc_call *c, unsigned long gen,
                        unsigned long long key, const papc_arr_pick *p) {
    papc_tr_lock();
    int site = papc_arr_site(c);
    if (site >= 0 && gen > 0) {
        arr_site *s = &papc_mon.sites[site];
        s->pick_gen = gen;
        s->pick_key = key;
        s->pick = *p;
    }
    papc_tr_unlock();
}

void papc_arr_unwatched_enter(int site) {
    double t = papc_arr_now();
    papc_tr_lock();
    papc_arr_history_arrive(site, t);
    papc_tr_unlock();
}

/* What every exit at site notes, with or without an epoch: the last exit
 * and the start of the compute phase (fg). */
static void note_exit(int site, double t) {
    papc_mon.t_last_exit = t;
    papc_mon.t_phase = t;
    papc_mon.phase_reported = 0;
    papc_mon.last_site = site;
}

/* The history guess of the next arrival after an exit at site at t, when
 * wanted and the predicted compute time is long enough to need one
 * (back-to-back calls need no estimate: the notices tell; an estimate
 * costs up to log2 P messages); and whether this process decides the next
 * call.  Returns 1 with *rem, *relerr when the guess is to be sent (mu
 * held). */
static int exit_guess(int site, double t, int wanted, double *rem,
                      double *relerr) {
    *rem = papc_arr_history_next(site);
    *relerr = papc_arr_history_relerr(site);
    int guess = wanted && !isnan(*rem) && *rem >= HISTORY_MIN_SECONDS;
    if (guess) papc_arr_history_guessed(site, t, *rem);
    atomic_store_explicit(&papc_mon.decides_next, decides_after(site),
                          memory_order_relaxed);
    return guess;
}

void papc_arr_unwatched_exit(int site) {
    double t = papc_arr_now(), rem, relerr;
    note_exit(site, t);
    papc_tr_lock();
    /* A guess for a call that will not be watched is never used. */
    int next = site >= 0 ? papc_mon.sites[site].next : -1;
    int wanted = site < 0 || next != site ||
                 papc_mon.sites[site].next_watched;
    int guess = exit_guess(site, t, wanted, &rem, &relerr);
    papc_tr_unlock();
    if (guess)   /* no epoch here: the next one begun is the guess's */
        papc_arr_command(__atomic_load_n(&papc_mon.epoch_next,
                                         __ATOMIC_RELAXED),
                         PRED_HISTORY, rem, t, relerr);
}

int papc_arrival_begin(const papc_call *c, papc_order_need need, int decider,
                       papc_arrival *a) {
    double t = papc_arr_now();
    memset(a, 0, sizeof *a);
    a->view_prev_epoch = -1;
    a->view_req = MPI_REQUEST_NULL;
    a->size = c->size;
    a->alpha = 0.8e-6;
    a->beta = 1.3e-10;
    a->gamma = 2.5e-10;
    a->alpha_busy = a->alpha;
    a->beta_busy = a->beta;
    a->epoch = -1;
    a->t_enter = t;
    a->need = (int)need;
    a->decider = decider;
    a->site = -1;
    if (need != PAPC_ORDER_NONE) {
        a->order = malloc((size_t)c->size * sizeof *a->order);
        a->offset = malloc((size_t)c->size * sizeof *a->offset);
        if (!a->order || !a->offset) {
            free(a->order);
            free(a->offset);
            a->order = NULL;
            a->offset = NULL;
            return papc_error(MPI_ERR_NO_MEM, "arrival order");
        }
        rank_order(a);
    }
    int served = 0;
    int rc = papc_arr_served(c, &served);
    if (rc != MPI_SUCCESS || !served) {
        if (rc != MPI_SUCCESS) papc_arrival_end(c, a, rc);
        return rc;
    }
    a->alpha = papc_mon.alpha;
    a->beta = papc_mon.beta;
    a->gamma = papc_mon.gamma;
    a->alpha_busy = papc_mon.alpha_busy;
    a->beta_busy = papc_mon.beta_busy;
    a->bg = 1;
    a->epoch = __atomic_fetch_add(&papc_mon.epoch_next, 1, __ATOMIC_RELAXED);

    papc_tr_lock();
    a->site = papc_arr_site(c);
    a->view_prev_epoch = -1;
    if (c->arrival_view && a->site >= 0) {
        a->view_prev_epoch = papc_mon.sites[a->site].plain_epoch;
        papc_mon.sites[a->site].plain_epoch = a->epoch;
    }
    papc_arr_history_arrive(a->site, t);
    papc_arr_note_decider(a->site, decider);
    double own_elapsed = -1;
    if (a->site >= 0 && a->view_prev_epoch >= 0 &&
        papc_mon.sites[a->site].own_epoch == a->view_prev_epoch)
        own_elapsed = papc_mon.sites[a->site].own_elapsed;
    if (c->rank == decider) {
        arr_slot *s = papc_arr_slot(c->rank, a->epoch, 1);
        if (s) s->arrived = t;
        if (s) s->prev_of = a->view_prev_epoch;
        if (a->site >= 0) papc_arr_rec_open(a->epoch, a->site);
    }
    /* Registered before anything can fail: a wait registered is a
     * decision this monitor forwards before it seals (header comment). */
    if (waits_for_tree(c, decider, (int)need)) {
        dec_rx *r = rx_find(a->epoch, 1);
        if (r) r->awaited = 1;
        else rc = papc_error(MPI_ERR_NO_MEM, "arrival decision");
    }
    papc_tr_unlock();
    if (rc != MPI_SUCCESS) {
        papc_arrival_end(c, a, rc);
        return rc;
    }

    if (c->rank != decider) {
        /* The plain call's view needs the epoch decided, whatever this
         * rank's algorithm needs. */
        int wire = c->arrival_view ? PAPC_ORDER_AGREED : (int)need;
        /* m[2]: the site's previous plain epoch + 1 (0: none), whose
         * measured arrivals the decision carries (dec_measured); m[3]:
         * this rank's time in it (-1: unknown; dec_learn). */
        double m[4] = {a->epoch, (double)wire, a->view_prev_epoch + 1.0,
                       own_elapsed};
        papc_arr_count(STAT_NOTICE, sizeof m);
        rc = papc_tr_send_wait(PAPC_TR_CTL, decider, TAG_NOTICE, m,
                               (int)sizeof m);
        if (rc != MPI_SUCCESS) rc = papc_mpi_error(rc, "arrival notice");
    }
    if (rc == MPI_SUCCESS && need == PAPC_ORDER_LOCAL) {
        papc_tr_lock();
        papc_arr_form(a->epoch, a->order, a->offset, &a->known);
        papc_tr_unlock();
    } else if (rc == MPI_SUCCESS && need == PAPC_ORDER_AGREED) {
        double *flat = NULL;
        if (c->rank == decider && c->arrival_view &&
            (papc_mon.dec_measured || papc_mon.dec_learn))
            flat = a->view_msg =
                malloc((size_t)dec_doubles(c->size) * sizeof *flat);
        rc = c->rank == decider
                 ? agreed_as_decider(c, a->epoch, a->view_prev_epoch,
                                     a->order, a->offset, &a->known, flat, 0)
                 : agreed_from_decider(c, decider, a);
    }
    if (rc == MPI_SUCCESS && c->arrival_view && need != PAPC_ORDER_AGREED)
        rc = view_begin(c, a);
    if (rc == MPI_SUCCESS && a->order &&
        !papc_order_is_permutation(c->size, a->order))
        rc = papc_error(MPI_ERR_INTERN, "arrival order is not a permutation");
    if (rc != MPI_SUCCESS) papc_arrival_end(c, a, rc);
    return rc;
}

int papc_arrival_end(const papc_call *c, papc_arrival *a, int rc) {
    if (a->epoch >= 0 && papc_mon.running && c->arrival_view)
        view_end(c, a, rc);
    if (a->epoch >= 0 && papc_mon.running &&
        waits_for_tree(c, a->decider, a->need) &&
        a->need == PAPC_ORDER_AGREED)
        abandon_tree(a->epoch);   /* taken in begin, unless it failed */
    if (a->epoch >= 0 && papc_mon.running) {
        double t = papc_arr_now(), rem, relerr;
        note_exit(a->site, t);
        if (c->rank == a->decider) papc_arr_note_algorithm(a->site, c->algorithm);
        papc_tr_lock();
        int guess = exit_guess(a->site, t, 1, &rem, &relerr);
        drop_old_decisions(a->epoch - ARR_WINDOW);
        rx_gc(a->epoch - ARR_WINDOW);
        papc_tr_unlock();
        papc_arr_mailbox_gc(a->epoch - 4);
        if (guess)
            papc_arr_command(a->epoch + 1, PRED_HISTORY, rem, t, relerr);
        a->epoch = -1;  /* ending twice (error path) is harmless */
    }
    if (a->view_req != MPI_REQUEST_NULL) {   /* the monitor stopped */
        MPI_Cancel(&a->view_req);
        MPI_Wait(&a->view_req, MPI_STATUS_IGNORE);
    }
    free(a->view_msg);
    a->view_msg = NULL;
    free(a->order);
    free(a->offset);
    a->order = NULL;
    a->offset = NULL;
    return rc;
}
