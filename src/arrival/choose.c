/*
 * choose.c — the plain call's arrival-aware choice (issue 15).
 *
 * Open MPI's rules, MPICH's csel and the autotuners key on P and size.
 * Here the plain call of gather, scatter, reduce and allreduce on the
 * communicator the arrival monitor serves also weighs how unevenly the
 * processes are predicted to arrive: every row's balanced prediction t0
 * (select.c, the profile's fitted models) goes through its arrival model
 * (src/model/arrival_model.c) with the predicted offsets, and the row with
 * the least predicted ē (mean time in the call) runs.  When the agreed
 * profile holds an arrival correction for a row (papc-tune
 * --arrival-refit), the row's ē is w + a·(ē_model − t0 − w) + c·t0, w the
 * wait no algorithm avoids at the offsets (model.h, arrival_model.h).
 *
 * Which offsets, so that every rank chooses the same row without a round
 * trip: the AGREED decision of the previous plain call at the same call
 * site (collective, root, bytes, P).  Every plain call here takes its
 * epoch's decision (papc_call.arrival_view: every rank's notice asks for
 * one; an algorithm that does not wait for it receives it at its end,
 * exchange.c), and keeps its offsets at the site.  Why it cannot diverge:
 * the decision is one message from one process, copied bit for bit to
 * every rank; every rank has made the same sequence of calls on the comm,
 * so the latest one at the site is the same epoch everywhere and its
 * decision was received before that call returned; the rest of the input
 * (the agreed profile or the monitor's agreed α, β, the call's size, P,
 * root, op class, the environment that must be equal on every rank) is
 * the same on every rank, and so are the node labels the rows that group
 * ranks by node are priced with (node_case: the monitor's fit agreed them
 * by one allgather at its start and keeps them unchanged), and the
 * evaluation is deterministic.  A row's
 * price is its mean over the site's latest k views (views_weighed, below),
 * each view's prices kept at the site by every rank alike.  The
 * price: one call of lag (the offsets describe the previous iteration's
 * prediction, which is what an iterative program repeats), and P - 1
 * small messages from the decider per watched call -- every call, except
 * at a quiet site, which watches every PAPC_ARRIVAL_WATCH_EVERY-th
 * (watch_every, below).
 *
 * When it runs: PAPC_ARRIVAL_SELECT not 0 (papc_set_arrival_selection),
 * P >= 2, at least PAPC_ARRIVAL_MIN_BYTES (16 KiB) per block or vector
 * (below that the bookkeeping messages cost as much as the call), and a
 * communicator the running monitor serves -- or, with PAPC_MONITOR=1 (the
 * drop-in layer sets it when MPI grants MPI_THREAD_MULTIPLE), one on which
 * the monitor may start now.  Otherwise the classic row runs unchanged.
 *
 * A rank unknown in a view keeps its offset of the site's previous view
 * (exchange.c, keep_view); one never known counts as 0.  A spread below 5 %
 * of the classic row's t0, or one that did not last two views over 1 ms,
 * keeps the classic row: nothing to gain, and the decisions' arrival
 * times err by 0.2-0.6 ms (docs/arrival.md, papc-predict), so a smaller
 * spread is noise, not a pattern; an arrival-aware row must beat the best
 * classic one by PAPC_ARRIVAL_MARGIN (5 %) of the ē above the wait no row
 * avoids (mean over the same views as the prices).  The rule itself is
 * papc_arrival_pick (src/model/arrival_model.c).
 *
 * Online refinement (PAPC_ARRIVAL_LEARN=1 on every rank, opt-in; learn
 * and explore, below): each row's price also carries what the row cost, when it ran at
 * the site, above its model at that call's measured arrivals -- agreed
 * measurements the decisions carry (exchange.c, papc_arr_plain_done) --
 * and a row never run there whose price is near the chosen one's is tried
 * once.  docs/arrival.md, "What the rows cost when they ran".
 *
 * Rooms: core/dispatch.c calls papc_arrival_plain (declared in core.h) as
 * it calls the algorithm tables of src/coll/, which reach src/arrival/ in
 * the same way; this file holds what needs the monitor's state.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "model/arrival_model.h"

#define ARRIVAL_MIN_BYTES 16384
#define ARRIVAL_VIEWS_DEFAULT 4

static int weighed(papc_collective coll) {
    return coll == PAPC_GATHER || coll == PAPC_SCATTER ||
           coll == PAPC_REDUCE || coll == PAPC_ALLREDUCE;
}

static int env_is(const char *name, const char *value) {
    const char *v = papc_getenv(name);
    return v && strcmp(v, value) == 0;
}

/* Whether the monitor serves c's comm (see the header for when it may
 * start here).  Collective only on the PAPC_MONITOR=1 path, which every
 * rank takes alike. */
static int served(const papc_call *c, int *yes) {
    *yes = 0;
    if (env_is("PAPC_MONITOR", "1")) return papc_arr_served_quiet(c, yes);
    *yes = papc_arr_serves(c);
    return MPI_SUCCESS;
}

typedef struct candidate {
    const papc_alg_desc *row;
    int index;        /* the row's registry index */
    size_t segsize;
    double t0, mean;  /* balanced prediction; predicted ē at the offsets */
    double alpha, beta, gamma;  /* the terms of its price */
    int plan_n;       /* a planned row's segments and round (0: no plan) */
    double plan_d;
    double plan_beta; /* and the busy beta its plan took */
} candidate;

/* The rows' balanced predictions and arrival corrections do not depend on
 * the offsets, only on what the key holds; a program repeats its calls, so
 * they are kept per collective and recomputed when the key changes (also
 * the settings a model reads, e.g. PAPC_SEGSIZE, settings.c).  Why:
 * predicting every row (the agreed-profile check, the segment sizes, the
 * profile's entries) took 45-60 us of the 60-100 us a choice cost per rank
 * at P = 8 on the emulated cluster, on every plain call (docs/performance.md,
 * "the watched call's cost").  [fg: one foreground thread per process] */
typedef struct row_cache_key {
    int P, commutative, bg;
    size_t bytes, seg0;
    MPI_Op op;
    MPI_Datatype type;
    const papc_profile *profile;  /* the agreed one, NULL: none */
    unsigned gen;                 /* its generation */
    uint64_t settings;            /* the agreed settings models read */
    double alpha, beta, gamma;    /* the monitor's agreed fit */
    double alpha_busy, beta_busy; /* and its busy terms (planned rows) */
} row_cache_key;

typedef struct row_cache {
    row_cache_key key;
    int rows, valid;
    papc_row_prediction *pred;    /* [rows]; seconds < 0: no candidate */
    const papc_profile_arrival **corr;   /* [rows] */
} row_cache;

static _Thread_local row_cache row_caches[PAPC_NUM_COLLECTIVES];

static row_cache_key cache_key(papc_call *c, size_t seg0, int bg) {
    row_cache_key k;
    memset(&k, 0, sizeof k);  /* padding too: keys compare with memcmp */
    k.P = c->size;
    k.commutative = c->commutative;
    k.bg = bg;
    k.bytes = papc_select_class_bytes(papc_call_bytes(c));
    k.seg0 = seg0;
    k.op = c->op;
    k.type = c->sendtype;
    k.profile = papc_select_agreed_profile(c);
    uint64_t hash;
    papc_select_profile_key(&k.gen, &hash);
    k.settings = papc_settings_effective_now();
    k.alpha = papc_mon.alpha;
    k.beta = papc_mon.beta;
    k.gamma = papc_mon.gamma;
    k.alpha_busy = papc_mon.alpha_busy;
    k.beta_busy = papc_mon.beta_busy;
    return k;
}

#define FNV_BASIS 1469598103934665603ULL

/* FNV-1a over n bytes, on from h (FNV_BASIS to start). */
static unsigned long long fnv(unsigned long long h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

/* The models' inputs a site's learnt residuals are relative to: the
 * cache key but the size class (a site has one size; a program that
 * alternates two sizes of one collective must not reset its sites).
 * FNV-1a over the key's bytes (padding zeroed in cache_key). */
static unsigned long long learn_key(row_cache_key k) {
    k.bytes = 0;
    return fnv(FNV_BASIS, &k, sizeof k);
}

/* Every row's balanced prediction and correction for c, from the cache or
 * made now; NULL when there is no memory. */
static const row_cache *row_predictions(papc_call *c, size_t seg0, int bg) {
    row_cache *rc = &row_caches[c->coll];
    row_cache_key key = cache_key(c, seg0, bg);
    int rows = papc_registry_count(c->coll);
    if (rc->valid && rc->rows == rows && !memcmp(&rc->key, &key, sizeof key))
        return rc;
    if (rc->rows != rows || !rc->pred) {
        free(rc->pred);
        free(rc->corr);
        rc->pred = malloc((size_t)rows * sizeof *rc->pred);
        rc->corr = malloc((size_t)rows * sizeof *rc->corr);
        rc->rows = rows;
        rc->valid = 0;
        if (!rc->pred || !rc->corr) {
            free(rc->pred);
            free(rc->corr);
            rc->pred = NULL;
            rc->corr = NULL;
            rc->rows = 0;
            return NULL;
        }
    }
    papc_params p2p = {papc_mon.alpha, papc_mon.beta, 0, 0};
    for (int i = 0; i < rows; i++) {
        const papc_alg_desc *r = papc_registry_row(c->coll, i);
        papc_row_prediction *p = &rc->pred[i];
        rc->corr[i] = NULL;
        if (!papc_alg_can_run(r, c) ||
            ((r->info.flags & PAPC_FLAG_BACKGROUND) && !bg) ||
            !papc_select_predict(c, r, seg0, p2p, papc_mon.gamma, p)) {
            p->seconds = -1;
            continue;
        }
        rc->corr[i] = papc_profile_find_arrival(
            key.profile, papc_collective_name(c->coll), r->info.name, c->size,
            (double)key.bytes);
    }
    rc->key = key;
    rc->valid = 1;
    return rc;
}

/* plan_case's memo: the latest planned t0 per planned row (a few per
 * collective: reduce has clairvoyant and clairvoyant_node) and its
 * inputs; instance: the monitor's start the node labels are of. */
#define PLAN_MEMO_SLOTS 2
typedef struct plan_memo {
    int valid, P, root, instance;
    double m, seg, t0_in, alpha, beta, gamma, N, d, t0;
    const char *name;
    const int *node;
} plan_memo;

/* The memo slot of the row: its own, else the one not used last. */
static plan_memo *memo_slot(papc_collective coll, const char *name) {
    static _Thread_local plan_memo memo[PAPC_NUM_COLLECTIVES][PLAN_MEMO_SLOTS];
    static _Thread_local int next[PAPC_NUM_COLLECTIVES];
    for (int i = 0; i < PLAN_MEMO_SLOTS; i++)
        if (memo[coll][i].name == name) return &memo[coll][i];
    plan_memo *mo = &memo[coll][next[coll]];
    next[coll] = (next[coll] + 1) % PLAN_MEMO_SLOTS;
    mo->valid = 0;
    return mo;
}

/* The busy beta the row's plan takes: clairvoyant_node's over the largest
 * node (papc_clv_node_beta, the executor's function), else the busy beta. */
static double plan_beta(const papc_arrival_case *k) {
    if (!papc_arrival_row_nodes(k->collective, k->name))
        return papc_mon.beta_busy;
    return papc_clv_node_beta(papc_mon.beta_busy, papc_mon.node_groups,
                              papc_mon.node_max);
}

/* A planned row's price runs on the executor's plan (issue 16, s10):
 * Clairvoyant's N segments and planned round d from papc_clv_plan_for on
 * the monitor's agreed busy terms -- the function its executor plans with,
 * so price and run cannot drift -- and t0 with the balanced model's rounds
 * replaced by the plan's (papc_arrival_planned_t0).  Before, the price
 * counted the model's default N under the quiet terms: at P = 512 on
 * fattree4096 47 rounds of 3.7 us where the executor ran 112 of 68 us
 * (0.215 ms predicted in the call, 7.11 measured; docs/scale.md, "The
 * plain call's price at 512").  Only without an agreed profile: a profile
 * fits the row's alpha and beta to measured runs of the executor, so its
 * t0 already holds what the executor's rounds cost (left as it was).
 * Every input is agreed (the fit, the call, the knobs), so every rank
 * prices alike.  Returns 0 (the case unchanged) when there is no plan. */
static int plan_case(papc_call *c, const row_cache *rc,
                     papc_arrival_case *k) {
    if (rc->key.profile || !papc_arrival_row_planned(k->collective, k->name))
        return 0;
    papc_clv_round pl;
    if (papc_clv_plan_for(c, papc_mon.alpha_busy, plan_beta(k),
                          papc_mon.gamma, &pl) != 0 || pl.N < 1 ||
        !(pl.d_plan > 0))
        return 0;
    /* The planned t0 depends on the case but not its offsets: kept for
     * the latest inputs per row (two structure evaluations, O(P log P),
     * saved on every further call of a repeating program). */
    plan_memo *mo = memo_slot(c->coll, k->name);
    double t0;
    if (mo->valid && mo->P == k->P && mo->root == k->root && mo->m == k->m &&
        mo->seg == k->segsize && mo->t0_in == k->t0 &&
        mo->alpha == k->alpha && mo->beta == k->beta &&
        mo->gamma == k->gamma_op && mo->N == pl.N && mo->d == pl.d_plan &&
        mo->name == k->name && mo->node == k->node &&
        mo->instance == papc_mon.instance) {
        t0 = mo->t0;
    } else {
        double *zero = calloc((size_t)c->size, sizeof *zero);
        if (!zero) return 0;
        papc_arrival_case z = *k;
        z.offset = zero;
        z.plan_segments = pl.N;
        z.plan_round = pl.d_plan;
        t0 = papc_arrival_planned_t0(&z);
        free(zero);
        mo->valid = t0 > 0 && isfinite(t0);
        mo->P = k->P;
        mo->root = k->root;
        mo->m = k->m;
        mo->seg = k->segsize;
        mo->t0_in = k->t0;
        mo->alpha = k->alpha;
        mo->beta = k->beta;
        mo->gamma = k->gamma_op;
        mo->N = pl.N;
        mo->d = pl.d_plan;
        mo->name = k->name;
        mo->node = k->node;
        mo->instance = papc_mon.instance;
        mo->t0 = t0;
    }
    if (!(t0 > 0) || !isfinite(t0)) return 0;
    k->plan_segments = pl.N;
    k->plan_round = pl.d_plan;
    k->t0 = t0;
    return 1;
}

/* The largest message the rows' arrival models take as eager (its sender
 * does not wait for its receiver; arrival_model.h): the agreed profile's
 * eager_limit, else papc_pipeline_max_segment() (PAPC_PIPELINE_MAX_SEGMENT,
 * agreed per communicator; 64,512 B, under Open MPI's TCP eager limit and
 * SMPI's detached-send threshold, both 64 KiB).  Equal on every rank. */
static double eager_limit(const row_cache *rc) {
    if (rc->key.profile) return rc->key.profile->eager;
    return (double)papc_pipeline_max_segment();
}

/* The node grouping of a row whose price reads it (clairvoyant_node):
 * the monitor's labels, the grouping the row's executor makes
 * (papc_node_labels on the same ranks with the same agreed
 * PAPC_FIT_NODE_SIZE: the least over the ranks, 0 when unset on any),
 * agreed by the fit's allgather and kept for the monitor's life, so every
 * rank prices with the same labels.  0 (no candidate) where the grouping
 * is trivial -- one node, or one rank per node: the row's plan is then
 * plain Clairvoyant's schedule event for event (node.h) and its price
 * plain Clairvoyant's; weighing it would only tie with that row and have
 * the learner try a duplicate once -- or the labels are unknown. */
static int node_case(papc_arrival_case *k) {
    if (!papc_arrival_row_nodes(k->collective, k->name)) return 1;
    if (!papc_mon.node_label || papc_mon.node_groups <= 1 ||
        papc_mon.node_max <= 1)
        return 0;
    k->node = papc_mon.node_label;
    return 1;
}

/* Row i's predicted ē at the offsets; 0 when it is no candidate. */
static int evaluate(papc_call *c, const row_cache *rc, int i,
                    const double *offset, int bg, candidate *out) {
    const papc_alg_desc *r = papc_registry_row(c->coll, i);
    const papc_row_prediction p = rc->pred[i];
    if (!(p.seconds > 0)) return 0;
    papc_arrival_case k = {
        papc_collective_name(c->coll), r->info.name, c->size,
        c->coll == PAPC_ALLREDUCE ? 0 : c->root, (double)papc_call_bytes(c),
        (double)p.segsize, offset, p.seconds, p.alpha, p.beta, p.gamma_op,
        bg, 0, 0, eager_limit(rc), NULL};
    if (!node_case(&k)) return 0;
    int planned = plan_case(c, rc, &k);
    double e = papc_arrival_model_mean(&k);
    if (!(e >= 0) || !isfinite(e)) return 0;
    /* The agreed profile's measured correction of this row (every rank
     * holds the same profile, its hash agreed per communicator). */
    e = papc_arrival_corrected(
        rc->corr[i], e, k.t0,
        papc_arrival_wait_floor(k.collective, c->size, k.root, offset));
    if (!(e >= 0) || !isfinite(e)) return 0;
    out->row = r;
    out->index = i;
    out->segsize = p.segsize;
    out->t0 = k.t0;
    out->mean = e;
    out->alpha = k.alpha;
    out->beta = k.beta;
    out->gamma = k.gamma_op;
    out->plan_n = (int)k.plan_segments;
    out->plan_d = k.plan_round;
    out->plan_beta = planned ? plan_beta(&k) : 0;
    return 1;
}

static int verbose(void) {
    const char *v = getenv("PAPC_VERBOSE");
    return v && *v ? atoi(v) : 0;
}

/* One line per change of choice at a collective (rank 0, PAPC_VERBOSE;
 * PAPC_VERBOSE=2: every weighed call, also those the floor kept; 3: also
 * every candidate's price). */
static void say(const papc_call *c, const candidate *won,
                const candidate *classic, double spread) {
    static _Thread_local const char *last[PAPC_NUM_COLLECTIVES];
    if (verbose() < 1 || c->rank != 0 ||
        (verbose() < 2 && last[c->coll] == won->row->info.name))
        return;
    last[c->coll] = won->row->info.name;
    fprintf(stderr, "papcoll: %s P=%d %zu B, predicted arrival spread "
            "%.3g ms: %s (predicted %.3g ms in the call; %s %.3g ms)\n",
            papc_collective_name(c->coll), c->size, papc_call_bytes(c),
            spread * 1e3, won->row->info.name, won->mean * 1e3,
            classic->row->info.name, classic->mean * 1e3);
}

/* PAPC_ARRIVAL_VIEWS=k (1-16, default 4): each row is priced at the mean
 * of its predicted ē over the site's latest k views, not the latest alone.
 * Why: under random lateness the latest view is one draw, and two rows
 * whose models lie within a few per cent swap places from draw to draw (the
 * emulated cluster's sweeps: gather ran bsls 7 and sls 3-4 of 12 calls
 * and paid the worse one's ē); the mean over k draws estimates what a
 * row costs on average, which is what a program that repeats the call
 * pays.  A repeating pattern gives every view alike, so the choice for
 * it is unchanged; a change of pattern is followed within about k/2
 * calls.  The prices are kept per site, one row vector per view
 * (exchange.c, papc_arr_price_views), so a call evaluates each row once
 * whatever k; every view is agreed and priced by every rank in the same
 * calls, so the means are the same on every rank. */
static int views_weighed(void) {
    /* Read at every call, as its communicator agreed it (settings.c). */
    const char *v = papc_getenv("PAPC_ARRIVAL_VIEWS");
    int n = v && *v ? atoi(v) : ARRIVAL_VIEWS_DEFAULT;
    if (n < 1) n = 1;
    if (n > ARR_PRICED) n = ARR_PRICED;
    return n;
}

/* PAPC_ARRIVAL_EXPLORE=f (default PAPC_LEARN_EXPLORE, 0: never): the
 * band above the chosen row's price within which a row never run at the
 * site is run once (papc_learn_explore). */
static double explore_band(void) {
    /* Read at every call, as its communicator agreed it (settings.c). */
    const char *v = papc_getenv("PAPC_ARRIVAL_EXPLORE");
    double f = v && *v ? strtod(v, NULL) : PAPC_LEARN_EXPLORE;
    return f >= 0 && isfinite(f) ? f : PAPC_LEARN_EXPLORE;
}

/* Online refinement (PAPC_ARRIVAL_LEARN=1, opt-in; arrival_model.h).
 * Takes the site's new measurement, if any -- the row that ran at the
 * site's plain call three back, the ranks' mean time in it and its
 * measured arrivals (exchange.c) -- prices that row at those arrivals
 * and adds the difference to its residuals; then corrects price[rows]
 * in place with the residuals.  Why it cannot diverge: the measurement
 * is one decision's bytes, the same on every rank; the row is the one
 * every rank ran; the price is the same deterministic evaluation as the
 * choice's.  Returns the site's state, NULL when learning is off. */
static papc_row_learning *learn(papc_call *c, const row_cache *rc, int bg,
                                int rows, double spread, double *price,
                                long *now) {
    if (!papc_mon.dec_learn || !rc) return NULL;
    papc_row_learning *l = papc_arr_learning(c, rows, learn_key(rc->key), now);
    if (!l) return NULL;
    double *offset = malloc((size_t)c->size * sizeof *offset);
    double mean;
    int row;
    candidate ran;
    if (offset && papc_arr_take_measurement(c, &row, &mean, offset) &&
        row >= 0 && row < rows && evaluate(c, rc, row, offset, bg, &ran))
        papc_learn_add(&l[row], mean - ran.mean, PAPC_LEARN_WEIGHT,
                       ran.mean, spread);
    free(offset);
    papc_learn_prices(l, rows, price, spread, price);
    return l;
}

/* The candidate (index into k[0..n)) to run instead of the pick w: a row
 * never run here within the exploration band above the wait no row avoids
 * at the offsets (papc_learn_explore). */
static int explore(const papc_call *c, const papc_row_learning *l, int rows,
                   const double *price, const candidate *k, int n, int w,
                   const double *offset, double spread, long now) {
    double floor = papc_arrival_wait_floor(
        papc_collective_name(c->coll), c->size,
        c->coll == PAPC_ALLREDUCE ? 0 : c->root, offset);
    int r = papc_learn_explore(l, rows, price, k[w].index, explore_band(),
                               floor, spread, now);
    int chosen = w;
    for (int j = 0; j < n; j++)
        if (k[j].index == r) chosen = j;
    if (chosen != w && verbose() >= 1 && c->rank == 0)
        fprintf(stderr, "papcoll: %s P=%d %zu B: trying %s once "
                "(%.4g ms predicted against %s's %.4g ms)\n",
                papc_collective_name(c->coll), c->size, papc_call_bytes(c),
                k[chosen].row->info.name, k[chosen].mean * 1e3,
                k[w].row->info.name, k[w].mean * 1e3);
    return chosen;
}

static unsigned long long pick_key(papc_call *c, const papc_alg_desc *classic,
                                   size_t seg0);

/* The row to run for the offsets; *seg its segment size (0: c's own).
 * The rule itself is papc_arrival_pick (pure, unit-tested).  *quiet: the
 * classic row runs because the site's views are quiet; *steady: the
 * winner's registry index when the prices were compared, with no
 * exploring choice (PAPC_ARRIVAL_LEARN) -- what papc_arr_settled counts
 * -- else -1. */
static const papc_alg_desc *cheapest(papc_call *c,
                                     const papc_alg_desc *classic,
                                     size_t seg0, const double *offset,
                                     size_t *seg, int *quiet, int *steady) {
    *seg = 0;
    *quiet = 0;
    *steady = -1;
    double spread = 0;
    for (int r = 0; r < c->size; r++)
        if (offset[r] > spread) spread = offset[r];
    /* The floor is learnt per site from the agreed views (how much the
     * spread changes from call to call; exchange.c), so it is the same
     * on every rank. */
    double floor = papc_arr_spread_floor(c);
    double lasting = papc_arr_lasting_spread(c, spread);
    if (lasting < floor) {
        if (verbose() >= 2 && c->rank == 0)
            fprintf(stderr, "papcoll: %s P=%d %zu B, predicted arrival "
                    "spread %.3g ms, %.3g ms over two views, under the "
                    "floor %.3g ms: %s\n",
                    papc_collective_name(c->coll), c->size,
                    papc_call_bytes(c), spread * 1e3, lasting * 1e3,
                    floor * 1e3, classic->info.name);
        *quiet = papc_arr_quiet_spread(c) < floor;
        return classic;
    }
    int bg = papc_bg_available(c), n = 0, base = -1, jumped = 0;
    int rows = papc_registry_count(c->coll);
    candidate *k = malloc((size_t)rows * sizeof *k);
    papc_arrival_candidate *pick = malloc((size_t)rows * sizeof *pick);
    /* now[0..rows+1]: this view's prices, its wait no row avoids and,
     * last, its spread; now[rows+2..]: the same over the views (the wait
     * averaged as the prices are, so the margin is of the part the rows
     * change). */
    double *now = malloc(2 * ((size_t)rows + 2) * sizeof *now);
    const row_cache *rc = row_predictions(c, seg0, bg);
    for (int i = 0; k && pick && now && i < rows; i++) {
        now[i] = NAN;
        if (rc && evaluate(c, rc, i, offset, bg, &k[i])) now[i] = k[i].mean;
    }
    papc_row_learning *learnt = NULL;
    long calls = 0;
    if (k && pick && now) {
        double *mean = now + rows + 2;
        now[rows] = papc_arrival_wait_floor(
            papc_collective_name(c->coll), c->size,
            c->coll == PAPC_ALLREDUCE ? 0 : c->root, offset);
        now[rows + 1] = spread;
        jumped = papc_arr_price_views(c, rows + 2, views_weighed(),
                                      pick_key(c, classic, seg0), now, mean);
        learnt = learn(c, rc, bg, rows, spread, mean, &calls);
        if (verbose() >= 3 && c->rank == 0)
            fprintf(stderr, "papcoll:   the wait no row avoids: this view "
                    "%.4g ms, over the views %.4g ms\n", now[rows] * 1e3,
                    mean[rows] * 1e3);
        if (verbose() >= 3 && c->rank == 0)
            for (int i = 0; i < rows; i++)
                if (isfinite(now[i])) {
                    fprintf(stderr, "papcoll:   %-30s t0 %.3g ms, this view "
                            "%.4g ms, over the views and learnt %.4g ms "
                            "(last ran at call %ld of %ld, residuals %ld: "
                            "%.3g ms at a %.3g ms spread)\n",
                            k[i].row->info.name, k[i].t0 * 1e3,
                            now[i] * 1e3, mean[i] * 1e3,
                            learnt ? learnt[i].ran_at : 0, calls,
                            learnt ? learnt[i].n : 0,
                            learnt && learnt[i].n ? learnt[i].bias * 1e3 : 0.0,
                            learnt && learnt[i].n ? learnt[i].spread * 1e3
                                                  : 0.0);
                    /* which terms the price used (issue 16, s10) */
                    fprintf(stderr, "papcoll:   %-30s terms alpha %.3g us, "
                            "beta %.3g ns/B, gamma %.3g ns/B, segment %zu B"
                            "%s", "", k[i].alpha * 1e6, k[i].beta * 1e9,
                            k[i].gamma * 1e9, k[i].segsize,
                            k[i].plan_n ? "" : "\n");
                    if (k[i].plan_n)
                        fprintf(stderr, "; plan N=%d d=%.3g us (busy alpha "
                                "%.3g us, beta %.3g ns/B)\n", k[i].plan_n,
                                k[i].plan_d * 1e6, papc_mon.alpha_busy * 1e6,
                                k[i].plan_beta * 1e9);
                }
        for (int i = 0; i < rows; i++) {
            if (!isfinite(mean[i])) continue;
            k[n] = k[i];
            k[n].mean = mean[i];
            pick[n] = (papc_arrival_candidate){
                (k[n].row->info.flags & PAPC_FLAG_ARRIVAL_AWARE) != 0,
                k[n].t0, k[n].mean};
            if (k[n].row == classic) base = n;
            n++;
        }
    }
    const papc_alg_desc *won = classic;
    if (base >= 0) {
        int w = papc_arrival_pick(pick, n, base, spread, now[2 * rows + 2]);
        if (learnt) w = explore(c, learnt, rows, now + rows + 2, k, n, w,
                                offset, spread, calls);
        say(c, &k[w], &k[base], spread);
        won = k[w].row;
        *seg = k[w].segsize;
        /* papc_arrival_pick's other reason to keep the classic row: the
         * view's spread is under 5 % of its t0 (no price was compared) */
        *quiet = w == base && papc_arr_quiet_spread(c) <
                                  PAPC_ARRIVAL_SPREAD_MIN * k[base].t0;
        /* a view whose spread jumped starts a new pattern: not settled
         * (the next call keeps its epoch and view; exchange.c,
         * papc_arr_price_views) */
        if (papc_arrival_priced(spread, k[base].t0) && !learnt && !jumped)
            *steady = k[w].index;
    }
    free(k);
    free(pick);
    free(now);
    return won;
}

/* PAPC_LEARN_TEST_SLOW=NAME:MS (a testing knob, tests/mpi/
 * test_arrival_select.c "learn"): a call that ran row NAME counts MS ms
 * more in the time the residuals take, on every rank -- a row the models
 * price right but that runs slow here.  Only the count: a real wait in the
 * call would move the next arrivals and so the views the test relies on. */
static double test_slow_row(const papc_alg_desc *r) {
    const char *v = papc_getenv("PAPC_LEARN_TEST_SLOW");
    const char *colon = v ? strchr(v, ':') : NULL;
    size_t len = colon ? (size_t)(colon - v) : 0;
    if (!colon || strlen(r->info.name) != len ||
        strncmp(v, r->info.name, len) != 0)
        return 0;
    double ms = strtod(colon + 1, NULL);
    return ms > 0 && ms < 1e6 ? ms * 1e-3 : 0;
}

static int registry_index(papc_collective coll, const papc_alg_desc *r) {
    int rows = papc_registry_count(coll);
    for (int i = 0; i < rows; i++)
        if (papc_registry_row(coll, i) == r) return i;
    return -1;
}

/* The choice's inputs besides the view: the models' (the rows' cache
 * key), the classic row, the background thread, the monitor's instance
 * (the node labels plans read) and the settings the rule reads. */
static unsigned long long pick_key(papc_call *c, const papc_alg_desc *classic,
                                   size_t seg0) {
    row_cache_key k = cache_key(c, seg0, papc_bg_available(c));
    unsigned long long h = fnv(FNV_BASIS, &k, sizeof k);
    int views = views_weighed(), instance = papc_mon.instance;
    h = fnv(h, &classic, sizeof classic);
    h = fnv(h, &views, sizeof views);
    h = fnv(h, &instance, sizeof instance);
    const char *names[] = {"PAPC_ARRIVAL_PERSIST", "PAPC_ARRIVAL_NOISE_K"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *v = papc_getenv(names[i]);
        h = v ? fnv(h, v, strlen(v) + 1) : fnv(h, "", 1);
    }
    return h;
}

/* PAPC_ARRIVAL_PICK_CHECK=1 (a testing knob, tests/mpi/CMakeLists.txt):
 * a call that reuses a pick also makes it again, and fails where the two
 * differ.  PAPC_ARRIVAL_PICK_REUSE=0 (to measure what reuse saves): every
 * call makes its pick.  Neither changes which row runs (the check only
 * fails where reuse is wrong; tests set it on every rank). */
static int pick_checked(void) {
    const char *v = getenv("PAPC_ARRIVAL_PICK_CHECK");
    return v && *v == '1';
}

static int pick_reuse_off(void) {
    const char *v = getenv("PAPC_ARRIVAL_PICK_REUSE");
    return v && *v == '0';
}

/* cheapest for the view of generation gen, made once: a pick is a function
 * of the view and of the inputs pick_key hashes, and a call that brought no
 * new view (an unwatched one: no epoch, so no view) would price every row
 * again from the same bytes -- about half of such a call's own 23-74 us at
 * P = 8 (docs/performance.md, seventeenth session).  Not with the online
 * refinement, whose residuals change at every call.  Agreed: the views and
 * the inputs are the same on every rank, so the kept pick is.  *reused: the
 * pick was the kept one. */
static int cheapest_for_view(papc_call *c, const papc_alg_desc *classic,
                             size_t seg0, const double *offset,
                             const papc_alg_desc **won, size_t *seg,
                             int *quiet, int *steady, int *reused) {
    *reused = 0;
    unsigned long gen = papc_arr_view_gen(c);
    if (papc_mon.dec_learn || gen == 0 || verbose() >= 3 ||
        pick_reuse_off()) {
        *won = cheapest(c, classic, seg0, offset, seg, quiet, steady);
        return MPI_SUCCESS;
    }
    unsigned long long key = pick_key(c, classic, seg0);
    papc_arr_pick kept;
    if (papc_arr_cached_pick(c, gen, key, &kept)) {
        const papc_alg_desc *r = papc_registry_row(c->coll, kept.row);
        if (r && pick_checked()) {
            size_t s2;
            int q2, st2;
            const papc_alg_desc *r2 = cheapest(c, classic, seg0, offset, &s2,
                                               &q2, &st2);
            if (r2 != r || s2 != kept.seg || q2 != kept.quiet ||
                st2 != kept.steady)
                return papc_error(MPI_ERR_INTERN, "the pick kept for view "
                                  "%lu (%s, segment %zu, quiet %d, steady "
                                  "%d) is not the one made again (%s, %zu, "
                                  "%d, %d)", gen, r->info.name, kept.seg,
                                  kept.quiet, kept.steady, r2->info.name, s2,
                                  q2, st2);
        }
        if (r) {
            *won = r;
            *seg = kept.seg;
            *quiet = kept.quiet;
            *steady = kept.steady;
            *reused = 1;
            if (verbose() >= 2 && c->rank == 0)
                fprintf(stderr, "papcoll: %s P=%d %zu B, view %lu as the "
                        "previous call's: %s\n", papc_collective_name(c->coll),
                        c->size, papc_call_bytes(c), gen, r->info.name);
            return MPI_SUCCESS;
        }
    }
    *won = cheapest(c, classic, seg0, offset, seg, quiet, steady);
    kept = (papc_arr_pick){registry_index(c->coll, *won), *seg, *quiet,
                           *steady};
    if (kept.row >= 0) papc_arr_keep_pick(c, gen, key, &kept);
    return MPI_SUCCESS;
}

/* PAPC_ARRIVAL_STATS (report.c): the choice's CPU is timed too. */
static int choice_timed(void) {
    static int timed = -1;
    if (timed < 0) {
        const char *v = getenv("PAPC_ARRIVAL_STATS");
        timed = v && *v && strcmp(v, "0") != 0;
    }
    return timed;
}

/* One choice counted, priced or reused, and its CPU from cpu0 when
 * timed. */
static void count_choice(int reused, double cpu0) {
    atomic_fetch_add_explicit(&papc_mon.picks[reused != 0], 1,
                              memory_order_relaxed);
    if (choice_timed())
        atomic_fetch_add_explicit(
            &papc_mon.pick_cpu_ns[reused != 0],
            (long long)(1e9 * (papc_tr_thread_cpu() - cpu0)),
            memory_order_relaxed);
}

static int decider_of(const papc_call *c) {
    return c->coll == PAPC_ALLREDUCE ? 0 : c->root;
}

/* A classic row knows nothing of arrivals: begin and end around it give
 * the call its epoch, its notice and its view. */
static int run_wrapped(papc_call *c, const papc_alg_desc *r) {
    papc_arrival a;
    int rc = papc_arrival_begin(c, PAPC_ORDER_NONE, decider_of(c), &a);
    if (rc != MPI_SUCCESS) return rc;
    return papc_arrival_end(c, &a, r->run(c));
}

/* PAPC_ARRIVAL_WATCH_EVERY=k (1-64, default 4; 1: every call): while a
 * site is quiet -- its latest two views under the floor, or under 5 % of
 * the classic row's t0, so the classic row runs without a price compared
 * (papc_spread_quiet: both views, so that one mispredicted view of a late
 * pattern does not blind the next calls) -- only every k-th plain call there is
 * watched (run in an epoch: notices, a decision, a view); the others run
 * the classic row as the plain call without a monitor would, keeping only
 * the history predictor's local bookkeeping.  Why: the epoch around the
 * classic row was the balanced call's whole extra cost, ~0.2 ms of a
 * 4.7 ms gather and ~2 ms of a 96 ms reduce on the emulated cluster, and
 * no single message of it (docs/performance.md, sweep 15).  The price: a
 * pattern that starts while the site is quiet is seen at the next watched
 * call, up to k - 1 calls later (2k - 1 when that call's view still has
 * the late rank on time); then every call is watched again at once, as
 * the first view over the floor ends the quiet.  Every rank takes the
 * same turn: papc_arr_watch counts at the site from agreed views.
 * A settled site is watched as sparsely: one whose latest two views, with
 * their prices compared, both chose the same classic row (binomial gather
 * for a rank 10 ms late every call) -- a classic row needs no order and
 * no arrivals, only the next view to tell whether the pattern changed, and
 * the epoch around it cost 3-7 % of a 2.4-10 ms call (sweep G: gather
 * 256 Ki one-late 10 ms, auto 1.075 x binomial named).  A pick that needs
 * arrivals (an arrival-aware row) or changes row watches every call. */
#define ARRIVAL_WATCH_EVERY_DEFAULT 4
static int watch_every(void) {
    /* Read at every call, as its communicator agreed it (settings.c). */
    const char *v = papc_getenv("PAPC_ARRIVAL_WATCH_EVERY");
    int n = v && *v ? atoi(v) : ARRIVAL_WATCH_EVERY_DEFAULT;
    if (n < 1) n = 1;
    if (n > 64) n = 64;
    return n;
}

static int run_unwatched(papc_call *c, const papc_alg_desc *r, int site) {
    papc_arr_unwatched_enter(site);
    int rc = r->run(c);
    papc_arr_unwatched_exit(site);
    return rc;
}

/* An arrival-aware row needs its epoch (its order, the background
 * channel) but not the view, which only makes the next call's choice.
 * Settled on the row (the latest two views chose it), only every k-th
 * call (PAPC_ARRIVAL_WATCH_EVERY) asks for the decision that is the view;
 * the others run as the row run by name.  Why: the decision's P - 1
 * messages and the view's receive cost 3-7 % of a 4.7 ms BSLN scatter on
 * the emulated cluster (P = 8, 128 KiB blocks, rank 1 50 ms late: 1.034
 * and 1.067 x the named row with it, 1.030 and 0.983 without;
 * docs/performance.md, twenty-fourth session).  The price, as at a
 * settled classic site: a change of pattern is seen up to k - 1 calls
 * later.  Learning (PAPC_ARRIVAL_LEARN) measures every call's row, so it
 * keeps every view.  Agreed: settled comes from agreed views and the
 * count changes in plain calls every rank makes (papc_arr_view_turn). */
static int aware_views(const papc_call *c, int settled) {
    if (papc_mon.dec_learn) return 1;
    return papc_arr_view_turn(c, settled, watch_every());
}

int papc_arrival_plain(papc_call *c, const papc_alg_desc *classic,
                       size_t seg0, int *handled) {
    *handled = 0;
    if (!papc_arrival_selection_agreed() || !weighed(c->coll) || c->size < 2)
        return MPI_SUCCESS;
    if (papc_call_bytes(c) < papc_env_size("PAPC_ARRIVAL_MIN_BYTES",
                                       ARRIVAL_MIN_BYTES))
        return MPI_SUCCESS;
    /* The time in the call as papc-bench counts it: from the entry. */
    double t_in = papc_arr_now();
    int yes = 0;
    int rc = served(c, &yes);
    if (rc != MPI_SUCCESS || !yes) return rc;
    double *offset = malloc((size_t)c->size * sizeof *offset);
    if (!offset) return papc_error(MPI_ERR_NO_MEM, "arrival choice");
    const papc_alg_desc *r = classic;
    size_t seg = 0;
    int known = 0, quiet = 0, steady = -1, reused = 0, settled = 0;
    int found = papc_arrival_view(c, offset, &known);
    if (verbose() >= 2 && c->rank == 0 && !(found && known >= 2))
        fprintf(stderr, "papcoll: %s P=%d %zu B, no view (%s, %d known): "
                "%s\n", papc_collective_name(c->coll), c->size,
                papc_call_bytes(c), found ? "found" : "none", known,
                classic->info.name);
    if (verbose() >= 2 && c->rank == 0 && found && c->size <= 64) {
        fprintf(stderr, "papcoll: %s view (%d known, ms):",
                papc_collective_name(c->coll), known);
        for (int i = 0; i < c->size; i++)
            fprintf(stderr, " %.2f", offset[i] * 1e3);
        fprintf(stderr, "\n");
    }
    if (found && known >= 2) {
        for (int i = 0; i < c->size; i++)
            if (!isfinite(offset[i])) offset[i] = 0;
        double cpu0 = choice_timed() ? papc_tr_thread_cpu() : 0;
        rc = cheapest_for_view(c, classic, seg0, offset, &r, &seg, &quiet,
                               &steady, &reused);
        count_choice(reused, cpu0);
        if (rc != MPI_SUCCESS) {
            free(offset);
            return rc;
        }
        /* settled: the same row won on the latest two views; a classic
         * one then runs without an epoch as at a quiet site, an
         * arrival-aware one in its epoch but viewed sparsely (below) */
        settled = papc_arr_settled(c, steady);
        if (settled && !quiet && !(r->info.flags & PAPC_FLAG_ARRIVAL_AWARE)) {
            quiet = 1;
            if (verbose() >= 2 && c->rank == 0)
                fprintf(stderr, "papcoll: %s P=%d %zu B, settled on %s over "
                        "two views\n", papc_collective_name(c->coll),
                        c->size, papc_call_bytes(c), r->info.name);
        }
    }
    free(offset);
    int site = -1;
    int watch = papc_arr_watch(c, quiet, watch_every(), &site);
    if (!watch && verbose() >= 2 && c->rank == 0)
        fprintf(stderr, "papcoll: %s P=%d %zu B, quiet or settled site: %s "
                "unwatched\n",
                papc_collective_name(c->coll), c->size, papc_call_bytes(c),
                classic->info.name);
    if (r != classic && !papc_getenv("PAPC_SEGSIZE"))
        c->segsize = seg ? seg : seg0;
    *handled = 1;
    c->arrival_view = 1;
    c->pick_reused = reused;
    c->algorithm = r->info.name;
    papc_call_started = 1;
    if (!watch) {
        c->arrival_view = 0;
        return run_unwatched(c, r, site);
    }
    if (r->info.flags & PAPC_FLAG_ARRIVAL_AWARE)
        c->arrival_view = aware_views(c, settled);
    rc = (r->info.flags & PAPC_FLAG_ARRIVAL_AWARE) ? r->run(c)
                                                   : run_wrapped(c, r);
    if (rc == MPI_SUCCESS && c->arrival_view)
        papc_arr_plain_done(c, decider_of(c), registry_index(c->coll, r),
                            papc_arr_now() - t_in + test_slow_row(r));
    return rc;
}
