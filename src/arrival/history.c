/*
 * history.c — the call sites and the history predictor for programs that
 * never call papc_progress.
 *
 * A call site is (collective, root, bytes, comm size) on the served comm,
 * and the tag of papc_arrival_site_tag (0 unless a benchmark sets one).
 * At each arrival the compute time since this process' previous exit
 * (t_enter - t_last_exit) updates an exponentially weighted mean kept at
 * the site arrived at (weight PAPC_HISTORY_WEIGHT, default 0.25), and the
 * previous site remembers that this one followed it.  The mean is robust
 * (papc_mean_add, src/topo/order.c): one outlying sample -- a start-up
 * gap, a descheduled process -- is clipped to 3 mean absolute deviations,
 * two in a row on the same side restart the mean (a new regime).  A plain
 * EWMA carried a first sample of 150 ms for ten iterations at 40 ms.  At each exit the
 * process predicts its next arrival: the site that followed this one last
 * time, its mean compute time from now.  The monitor sends that like a
 * progress estimate (exchange.c); a progress report for the same epoch
 * supersedes it at the receivers.
 *
 * The guess's own error (issue 16).  At its next arrival the process
 * compares the guess it sent at its exit with the time it actually came,
 * in its own clock, and keeps |actual - guess| / horizon as a robust mean
 * at the site of that exit (papc_mean_add, as the compute time).  The
 * next guess from there carries it (the estimate's 4th double), and the
 * decider turns it into an error in seconds at that guess's horizon
 * (exchange.c, papc_guess_shrink).  Measured here, not at the decider:
 * only this process knows both its guess and its arrival for every call,
 * whichever rank decided it and whether a decider ever saw the guess
 * (estimates go to a few deciders only), and its clock has no poll delay
 * in it.  Relative to the horizon, because the error of a mean compute
 * time grows with the time it predicts over: a guess made 4 s ahead is
 * off by more than one made 40 ms ahead of the same loop.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static long long site_bytes(const papc_call *c) {
    int root = c->rank == c->root;
    switch (c->coll) {
    case PAPC_GATHER:
        return root ? (long long)c->recvcount * (long long)papc_type_size(c->recvtype)
                    : (long long)c->sendcount * (long long)papc_type_size(c->sendtype);
    case PAPC_SCATTER:
        return root ? (long long)c->sendcount * (long long)papc_type_size(c->sendtype)
                    : (long long)c->recvcount * (long long)papc_type_size(c->recvtype);
    case PAPC_GATHERV:
        return root ? -1 : (long long)c->sendcount * (long long)papc_type_size(c->sendtype);
    case PAPC_SCATTERV:
        return root ? -1 : (long long)c->recvcount * (long long)papc_type_size(c->recvtype);
    default:
        return (long long)c->sendcount * (long long)papc_type_size(c->sendtype);
    }
}

/* Set by the foreground between calls, read by it in them (papc_arr_site
 * runs only in the calling thread). */
static int site_tag;

/* Why a tag: a benchmark that runs several algorithms at one call site in
 * each iteration (papc-bench) would otherwise let each row's history learn
 * the iteration's delays from the rows run before it -- a prediction no
 * program that calls one algorithm there gets.  Tagged, each row keeps a
 * site, a history and views of its own. */
int papc_arrival_site_tag(int tag) {
    if (tag < 0)
        return papc_error(MPI_ERR_ARG, "papc_arrival_site_tag: tag %d < 0",
                          tag);
    site_tag = tag;
    return MPI_SUCCESS;
}

int papc_arr_site(const papc_call *c) {
    long long bytes = site_bytes(c);
    for (int i = 0; i < papc_mon.nsites; i++) {
        arr_site *s = &papc_mon.sites[i];
        if (s->coll == (int)c->coll && s->root == c->root &&
            s->bytes == bytes && s->size == c->size && s->tag == site_tag)
            return i;
    }
    if (papc_mon.nsites == papc_mon.capsites) {
        int cap = papc_mon.capsites ? 2 * papc_mon.capsites : 8;
        arr_site *n = realloc(papc_mon.sites, (size_t)cap * sizeof *n);
        if (!n) return -1;
        papc_mon.sites = n;
        papc_mon.capsites = cap;
    }
    arr_site *s = &papc_mon.sites[papc_mon.nsites];
    memset(s, 0, sizeof *s);
    s->last = calloc((size_t)c->size, sizeof *s->last);
    if (!s->last) return -1;
    s->coll = (int)c->coll;
    s->root = c->root;
    s->bytes = bytes;
    s->size = c->size;
    s->tag = site_tag;
    s->plain_epoch = -1;
    s->own_epoch = -1;
    s->measure_epoch = -1;
    s->next_watched = 1;
    s->picks = (papc_pick_memory)PAPC_PICK_MEMORY_INIT;
    for (int i = 0; i < ARR_RAN; i++) s->ran_epoch[i] = -1;
    papc_mean_init(&s->compute);
    papc_mean_init(&s->guess_err);
    papc_mean_init(&s->spread_err);
    s->view_spread = NAN;
    s->view_spread_prev = NAN;
    s->next = -1;
    return papc_mon.nsites++;
}

static double weight(void) {
    static double w = -1;
    if (w < 0) {
        const char *s = getenv("PAPC_HISTORY_WEIGHT");
        w = s && *s ? strtod(s, NULL) : 0.25;
        if (!(w > 0 && w <= 1)) w = 0.25;
    }
    return w;
}

void papc_arr_history_arrive(int site, double t_enter) {
    if (site < 0) return;
    arr_site *s = &papc_mon.sites[site];
    if (!isnan(papc_mon.t_last_exit)) {
        double compute = t_enter - papc_mon.t_last_exit;
        papc_mean_add(&s->compute, compute, weight());
    }
    if (papc_mon.last_site >= 0) papc_mon.sites[papc_mon.last_site].next = site;
    int g = papc_mon.guess_site;
    if (g >= 0 && g < papc_mon.nsites) {
        double rel = papc_guess_relerr(t_enter, papc_mon.guess_at,
                                       papc_mon.guess_horizon);
        if (isfinite(rel)) papc_mean_add(&papc_mon.sites[g].guess_err, rel,
                                         weight());
    }
    papc_mon.guess_site = -1;
}

void papc_arr_history_guessed(int site, double t, double rem) {
    papc_mon.guess_site = site;
    papc_mon.guess_at = t + rem;
    papc_mon.guess_horizon = rem;
}

double papc_arr_history_relerr(int site) {
    if (site < 0 || site >= papc_mon.nsites) return NAN;
    const papc_mean *e = &papc_mon.sites[site].guess_err;
    return e->n > 0 ? e->mean : NAN;
}

double papc_arr_history_next(int site) {
    if (site < 0) return NAN;
    int n = papc_mon.sites[site].next;
    if (n < 0 || papc_mon.sites[n].compute.n == 0) return NAN;
    return papc_mon.sites[n].compute.mean;
}

/* Bounded: only a tool draining it (papc_arrival_take_errors) reads the
 * log; without one, the oldest half is dropped when it is full, so a long
 * run's memory stays flat. */
void papc_arr_log_error(int pred, double err) {
    enum { MAX_LOG = 1 << 14 };
    if (papc_mon.err_log_n[pred] == MAX_LOG) {
        memmove(papc_mon.err_log[pred], papc_mon.err_log[pred] + MAX_LOG / 2,
                (size_t)(MAX_LOG / 2) * sizeof(double));
        papc_mon.err_log_n[pred] = MAX_LOG / 2;
    }
    if (papc_mon.err_log_n[pred] == papc_mon.err_log_cap[pred]) {
        int cap = papc_mon.err_log_cap[pred] ? 2 * papc_mon.err_log_cap[pred]
                                              : 1024;
        double *n = realloc(papc_mon.err_log[pred], (size_t)cap * sizeof *n);
        if (!n) return;
        papc_mon.err_log[pred] = n;
        papc_mon.err_log_cap[pred] = cap;
    }
    papc_mon.err_log[pred][papc_mon.err_log_n[pred]++] = err;
}

int papc_arrival_take_errors(int pred, double *errs, int max) {
    if (pred < 0 || pred >= ERR_N) return 0;
    papc_tr_lock();
    int n = papc_mon.err_log_n[pred];
    if (n > max) n = max;
    if (n > 0) memcpy(errs, papc_mon.err_log[pred], (size_t)n * sizeof *errs);
    papc_mon.err_log_n[pred] = 0;
    papc_tr_unlock();
    return n;
}

void papc_arr_free_sites(void) {
    for (int i = 0; i < papc_mon.nsites; i++) {
        free(papc_mon.sites[i].last);
        free(papc_mon.sites[i].view);
        free(papc_mon.sites[i].priced);
        free(papc_mon.sites[i].learn);
        free(papc_mon.sites[i].measure_offset);
    }
    free(papc_mon.sites);
    papc_mon.sites = NULL;
    papc_mon.nsites = papc_mon.capsites = 0;
}
