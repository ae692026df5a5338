/*
 * clairvoyant.c — reduce clairvoyant: the Clairvoyant schedule over
 * segments (Marendic, Lemeire, Vucinic, Schelkens, "A novel MPI reduction
 * algorithm resilient to imbalances in process arrival times", J.
 * Supercomput. 2016; with the fixes of Proficz & Ocetkiewicz, "Improving
 * Clairvoyant", clairvoyant-reduce.md), run on the agreed predicted
 * arrivals.
 *
 * Every rank builds the same schedule (papc_clv_fast, src/clairvoyant/)
 * from the same inputs: the agreed arrival offsets rounded to whole rounds,
 * P, N segments, the root and the round length d = alpha + s (beta +
 * gamma) of the agreed
 * cost model (s = segment bytes) -- its "busy" alpha and beta, measured
 * with every rank exchanging both ways at once, as in a round (arrival.h;
 * on the emulated cluster twice the one-way figures).  N: a balanced
 * Clairvoyant reduction takes about N + L rounds (L = ceil(log2 P)), so
 * the model's best N is sqrt(L m (beta + gamma) / alpha) for m bytes
 * (papc_clv_plan_for).  A rank generates only its own events
 * (papc_clv_plan_quantised) and keeps them in a cache on the private
 * communicator, per call site (collective, P, N, bytes), keyed by the root
 * and the rounded arrivals (src/clairvoyant/cache.h): a later call whose
 * agreed offsets round to the same rounds reuses them instead of
 * generating again (about 40 ms at P = N = 512).  Each
 * rank then runs its own events in schedule order as a dataflow
 * (run_events): a send waits only for the receives of its own segment
 * scheduled before it and for its round to come in the rank's own time
 * (wait_for_round), receives are posted ahead and applied out of order
 * across segments, nothing waits for a round boundary.  A received segment is combined into the rank's own,
 * received op own -- or, when the rank had sent that segment away (the
 * root, and the head before the root comes, may send a segment and get it
 * back later as the sink), it replaces it.
 *
 * Cost: R rounds of at most alpha + s beta + s gamma each, R the rounds
 * of the schedule: with balanced arrivals about N + ceil(log2 P) rounds
 * (a segmented reduction whose segments overlap); with a late process,
 * the work before it comes is done by the early ones, and about N rounds
 * follow its arrival.  Memory: a copy of the vector and up to a vector's
 * worth of receive slots (no more slots than receives).
 *
 * Departures from the papers: (1) rounds are not timed and not
 * synchronised: a process runs its next event as soon as its data are
 * there, so a wrong prediction (or a wrong d) costs time only, never
 * correctness; the round numbers only order each process' events, and
 * both sides of a pair see their common messages in the same round
 * order, so one sub-tag suffices.  Executing round by round (irecv +
 * isend + waitall per round, the papers' model) makes every round wait
 * for the slowest pair it touches (docs/clairvoyant.md, executor).
 * (2) Unknown arrivals (INFINITY) count as late: max known offset +
 * (N + ceil(log2 P) + 1) d (0 when none is known: then every process is
 * taken as arriving together); see arrival_vector.
 * (3) Every rank works in a temporary accumulator, so the user's buffers
 * are untouched on error; the root copies the result at the end.
 * (4) The schedule is built from the offsets rounded to whole rounds,
 * q_p = round(a_p / d) (issue 15): a planned arrival moves by at most d/2,
 * within the one-round window Clairvoyant already puts together, and the
 * schedule becomes a function of (P, N, root, q) alone, so a cached one is
 * exactly the one generation would give: the cache cannot make ranks
 * diverge, whatever it holds or evicts, and it may even be off on some
 * ranks only.
 * (5) Issue 16, found at 48 simulated nodes: a late receive holds up
 * only its own segment (FIFO application made every later event of the
 * rank wait).  Two more remedies are knobs, off by default, because the
 * networks disagree: pacing sends to their rounds (PAPC_CLV_PACE=1,
 * wait_for_round) and planning with rounds of k d (PAPC_CLV_SLACK=k).  In
 * SMPI, which shares a host's link fairly among all its messages in
 * flight, they took balanced 2 Mi floats at P = 48 from 131 to 81 ms and
 * rand-late 50 ms from 103 to 76 ms; on the emulated cluster (real TCP,
 * a FIFO queue per port: a segment sent ahead waits behind the one due
 * now instead of slowing it), P = 8, they cost 10 % (docs/scale.md
 * section 4).
 * Commutative ops only (the schedule combines partial sums in arrival
 * order).
 *
 * Knobs (same value on every rank): PAPC_CLV_SEGMENTS=<N> fixes N (else
 * PAPC_SEGSIZE when set, else the model's N); PAPC_CLV_ROUND=<seconds>
 * replaces the planned round (ignored unless finite and > 0; sends are
 * paced at the model's d); for tests,
 * PAPC_CLV_TEST_OFFSETS="0,0.001,,..." replaces the predicted offsets by
 * rank (empty/"-"/"inf": unknown).  PAPC_CLV_CACHE=<n> keeps up to n
 * schedules per call site (default 4, at most 64; 0: no cache; may differ
 * between ranks); PAPC_CLV_PACE=1 paces sends to their rounds
 * (wait_for_round); PAPC_CLV_SLACK=<k> plans rounds of k d (default 1,
 * papc_clv_plan_for).  PAPC_VERBOSE=1 prints N, d, the rounds and whether the
 * schedule was cached or generated, on the root.
 *
 * Cache memory, per communicator: at most 8 sites x n plans, a plan being
 * 4 P bytes of key and 16 bytes per event of this rank (about 2 N events:
 * 16 KB at P = N = 512; 4 x 8 such plans, under 0.6 MB).
 */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clairvoyant.h"
#include "clairvoyant/cache.h"
#include "clairvoyant/node.h"
#include "clairvoyant/schedule.h"
#include "model/arrival_model.h"
#include "topo/prr.h"
#include "topo/topo.h"
#include "model_parts.h"

/* More segments than this only slow the schedule down (its generation
 * grows with N^2 P / 128) and add start-ups. */
#define PAPC_CLV_MAX_SEGMENTS 4096

/* N, the segments and the round come from papc_clv_plan_for
 * (src/arrival/clv_plan.c; the arithmetic, formerly model_segments and
 * round_length here, is papc_clv_round_plan of model/arrival_model.h):
 * the plain call prices Clairvoyant with the same function, so its price
 * is this plan (issue 16, s10).  A balanced Clairvoyant reduction takes
 * about N + L rounds (L = ceil(log2 P)) of alpha + (m/N)(beta + gamma)
 * each, least at N = sqrt(L m b / alpha); a late process's tail, N alpha
 * + m b, also wants N small, which this N already keeps to the order of
 * sqrt(m); no segment above the eager limit (a rendezvous per segment is a
 * cost the model does not see), at most PAPC_CLV_MAX_SEGMENTS. */

/* arrival[0..P) by rank from the agreed offsets (or the test knob),
 * unknown ones at the latest known + d (0 when none is known). */
static int arrival_vector(const papc_call *c, const papc_arrival *a,
                          double d, int N, double *arrival) {
    int P = c->size;
    const char *knob = papc_getenv("PAPC_CLV_TEST_OFFSETS");
    if (knob && *knob) papc_parse_offsets(knob, P, arrival);
    else if (a->offset)
        for (int i = 0; i < P; i++) arrival[i] = a->offset[i];
    else
        for (int i = 0; i < P; i++) arrival[i] = INFINITY;
    /* A rank without a prediction has not even reported progress when
     * the decision is made, so it is likely late.  Planning it late costs
     * little if it comes early (it then sends its N segments after the
     * others are done: the same tail as a late process), while planning it
     * early makes the known ranks wait for it wherever the schedule
     * pairs them with it.  So it is planned after the known ranks' own
     * reduction: latest known + (N + ceil(log2 P) + 1) rounds. */
    double latest = -INFINITY;
    int L = papc_ceil_log2(P);
    for (int i = 0; i < P; i++)
        if (isfinite(arrival[i]) && arrival[i] > latest) latest = arrival[i];
    for (int i = 0; i < P; i++)
        if (!isfinite(arrival[i]) || arrival[i] < 0)
            arrival[i] = isfinite(latest) ? latest + (N + L + 1) * d : 0.0;
    /* A prediction far beyond the schedule's length (a wild or stale
     * estimate, a tiny d) would only make the generator count idle rounds
     * past its integer range: arrivals beyond 256(P + 1) rounds are all taken
     * as that late (ties by rank).  Identical on every rank. */
    double cap = 256.0 * (double)(P + 1) * d;
    for (int i = 0; i < P; i++)
        if (arrival[i] > cap) arrival[i] = cap;
    return MPI_SUCCESS;
}

static void print_view(const papc_call *c, int root, int N, double d,
                       const papc_clv_plan *s, const char *cache,
                       const papc_clv_nodes *nodes) {
    const char *v = getenv("PAPC_VERBOSE");
    if (!v || !*v || *v == '0' || c->rank != root) return;
    if (nodes)
        fprintf(stderr, "papcoll: clairvoyant_node P=%d nodes=%d "
                "largest=%d N=%d d=%g rounds=%d events=%zu schedule=%s\n",
                c->size, nodes->G, nodes->nmax, N, d, s->rounds,
                s->nevents_total, cache);
    else
        fprintf(stderr, "papcoll: clairvoyant P=%d N=%d d=%g rounds=%d "
                "events=%zu schedule=%s\n", c->size, N, d, s->rounds,
                s->nevents_total, cache);
}

/* ---- the schedule cache (issue 15; src/clairvoyant/cache.h) ----------
 *
 * One cache per private communicator (an attribute, freed with it): up to
 * CLV_CACHE_SITES sites (collective, P, N, bytes) of PAPC_CLV_CACHE plans
 * each (default CLV_CACHE_ENTRIES; 0: no cache).  The schedule comes from
 * the arrivals rounded to whole rounds, so a cached plan is exactly what
 * this rank would generate: PAPC_CLV_CACHE may differ between ranks, and
 * nothing the cache does can make ranks run different schedules. */
#define CLV_CACHE_SITES 8
#define CLV_CACHE_ENTRIES 4
#define CLV_CACHE_MAX_ENTRIES 64

static int cache_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t cache_keyval_once = PTHREAD_ONCE_INIT;
/* Process-wide counters for papc_clv_cache_counters (tests, PAPC_VERBOSE). */
static atomic_llong n_hits, n_misses, n_evictions, n_generated;

static int delete_cache(MPI_Comm comm, int key, void *attr, void *extra) {
    (void)comm, (void)key, (void)extra;
    papc_clv_cache_free(attr);
    return MPI_SUCCESS;
}

static void create_cache_keyval(void) {
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cache,
                               &cache_keyval, NULL) != MPI_SUCCESS)
        cache_keyval = MPI_KEYVAL_INVALID;
}

/* c's cache, created at its first use; NULL when PAPC_CLV_CACHE=0 or it
 * cannot be had (then this rank generates every time, which is safe). */
static papc_clv_cache *comm_cache(const papc_call *c) {
    size_t entries = papc_env_size("PAPC_CLV_CACHE", CLV_CACHE_ENTRIES);
    if (entries == 0) return NULL;
    if (entries > CLV_CACHE_MAX_ENTRIES) entries = CLV_CACHE_MAX_ENTRIES;
    pthread_once(&cache_keyval_once, create_cache_keyval);
    if (cache_keyval == MPI_KEYVAL_INVALID) return NULL;
    papc_clv_cache *cache = NULL;
    int found = 0;
    if (MPI_Comm_get_attr(c->comm, cache_keyval, &cache, &found) !=
        MPI_SUCCESS)
        return NULL;
    if (found) return cache;
    cache = papc_clv_cache_new(CLV_CACHE_SITES, (int)entries);
    if (cache && MPI_Comm_set_attr(c->comm, cache_keyval, cache) !=
                     MPI_SUCCESS) {
        papc_clv_cache_free(cache);
        cache = NULL;
    }
    return cache;
}

void papc_clv_cache_counters(long long *hits, long long *misses,
                             long long *evictions, long long *generated) {
    if (hits) *hits = atomic_load(&n_hits);
    if (misses) *misses = atomic_load(&n_misses);
    if (evictions) *evictions = atomic_load(&n_evictions);
    if (generated) *generated = atomic_load(&n_generated);
}

/* Generates this rank's plan for whole-round arrivals q into *own: the
 * plain schedule, or with nodes the two-stage one of clairvoyant_node
 * (src/clairvoyant/node.h).  The generator refuses no such input (whole
 * rounds within 256(P + 1), see arrival_vector): a failure is out of
 * memory, as for any buffer here. */
static int generate_plan(const papc_call *c, const int32_t *q, int N,
                         int root, const papc_clv_nodes *nodes,
                         papc_clv_plan *own) {
    atomic_fetch_add(&n_generated, 1);
    if ((nodes ? papc_clv_node_plan(nodes, q, N, root, c->rank, own)
               : papc_clv_plan_quantised(q, c->size, N, root, c->rank,
                                         own)) != 0)
        return papc_error(MPI_ERR_NO_MEM, "clairvoyant schedule (P=%d "
                          "N=%d)", c->size, N);
    return MPI_SUCCESS;
}

/* This rank's part of the schedule for arrival[P] (seconds) and round
 * length d: from c's cache when the arrivals round to whole rounds seen
 * before at this site, else generated (and cached).  *use points into the
 * cache or at *own (which the caller frees); *how says which. */
static int get_plan(const papc_call *c, const double *arrival, double d,
                    int N, int root, long long bytes,
                    const papc_clv_nodes *nodes, papc_clv_plan *own,
                    const papc_clv_plan **use, const char **how) {
    int P = c->size;
    int32_t *q = malloc((size_t)P * sizeof *q);
    if (!q) return papc_error(MPI_ERR_NO_MEM, "clairvoyant arrivals");
    /* arrival_vector keeps arrivals finite and within 256(P + 1) d, and
     * the plan's d finite and > 0: this cannot fail (if it did, alike on
     * every rank) */
    if (papc_clv_quantise(arrival, P, d, q) != 0)
        for (int i = 0; i < P; i++) q[i] = 0;
    papc_clv_cache *cache = comm_cache(c);
    /* clairvoyant_node's plans are other plans of the same (root, q): a
     * site of their own (its labels are fixed per communicator) */
    const papc_clv_site_key site = {
        (int)c->coll + (nodes ? PAPC_CLV_NODE_SITE : 0), P, N, bytes};
    const papc_clv_plan *hit = papc_clv_cache_find(cache, &site, root, q);
    int rc = MPI_SUCCESS;
    if (hit) {
        atomic_fetch_add(&n_hits, 1);
        *use = hit;
        *how = "cached";
    } else {
        if (cache) atomic_fetch_add(&n_misses, 1);
        rc = generate_plan(c, q, N, root, nodes, own);
        *use = own;
        *how = cache ? "generated" : "generated (no cache)";
        papc_clv_cache_stats before, after;
        papc_clv_cache_get_stats(cache, &before);
        const papc_clv_plan *kept =
            rc == MPI_SUCCESS && cache
                ? papc_clv_cache_put(cache, &site, root, q, own) : NULL;
        if (kept) {
            *use = kept;
            papc_clv_cache_get_stats(cache, &after);
            atomic_fetch_add(&n_evictions, after.evictions - before.evictions);
        }
    }
    free(q);
    return rc;
}

/* The dataflow executor's state: this rank's vector (acc), which
 * segments it holds, the send in flight per segment and up to W receives
 * posted ahead, each into its own slot.  A pending receive is applied when
 * a send of its segment needs it, when its slot is needed, or at the end;
 * receives of one segment in posted order, of different segments in any
 * order (they touch disjoint data). */
typedef struct clv_exec {
    const papc_call *c;
    MPI_Datatype t;
    int count, elems, N, sub;
    char *acc, *pool;        /* pool: W slots of elems elements */
    unsigned char *held;     /* held[j]: acc's segment j is this rank's */
    MPI_Request *send_req;   /* [N]: the send of segment j in flight */
    struct pending {         /* a receive posted, not yet applied */
        long seq;            /* posting order; -1: the entry is free */
        int seg, slot, len, replace;
    } *win;                  /* [W] */
    MPI_Request *recv_req;   /* [W]: win[k]'s receive (NULL when free) */
    int *pending_of;         /* [N]: pending receives per segment */
    int W, npending;
    long seq;
    double t_start, d;       /* this rank's start; the round length */
    int first_round;         /* the round of its first event */
    int pace;                /* PAPC_CLV_PACE: sends wait for their round */
} clv_exec;

static int seg_len(const clv_exec *x, int seg) {
    int off = seg * x->elems;
    return x->count - off < x->elems ? x->count - off : x->elems;
}

static char *seg_at(const clv_exec *x, char *base, int seg) {
    return papc_elem(base, x->t, (MPI_Aint)seg * x->elems);
}

/* Waits for pending receive k (if not complete yet) and applies it:
 * combined into its segment, or copied over it when the segment had been
 * sent away (its send must have left the buffer first). */
static int apply_entry(clv_exec *x, int k) {
    struct pending *p = &x->win[k];
    int rc = papc_waitall(1, &x->recv_req[k]);
    char *slot = seg_at(x, x->pool, p->slot), *seg = seg_at(x, x->acc, p->seg);
    if (rc == MPI_SUCCESS && p->replace)
        rc = papc_waitall(1, &x->send_req[p->seg]);
    if (rc == MPI_SUCCESS)
        rc = p->replace ? papc_copy(slot, p->len, x->t, seg, p->len, x->t)
                        : papc_reduce_local(slot, seg, p->len, x->t,
                                            x->c->op);
    p->seq = -1;
    x->pending_of[p->seg]--;
    x->npending--;
    return rc;
}

/* The oldest pending receive of segment seg posted no later than upto,
 * or -1. */
static int oldest_of(const clv_exec *x, int seg, long upto) {
    int best = -1;
    for (int k = 0; k < x->W; k++)
        if (x->win[k].seq >= 0 && x->win[k].seq <= upto &&
            x->win[k].seg == seg &&
            (best < 0 || x->win[k].seq < x->win[best].seq))
            best = k;
    return best;
}

/* Applies the pending receives of segment seg posted no later than upto,
 * in posted order. */
static int apply_segment_upto(clv_exec *x, int seg, long upto) {
    int rc = MPI_SUCCESS, k;
    while (rc == MPI_SUCCESS && x->pending_of[seg] > 0 &&
           (k = oldest_of(x, seg, upto)) >= 0)
        rc = apply_entry(x, k);
    return rc;
}

/* Frees a slot: waits for whichever pending receive completes first and
 * applies it (after the older ones of its segment).  A receive from a
 * late peer thus holds up only its own segment, not the others -- in
 * FIFO order one late partner stalled every later event of the rank, and
 * the stalls added up across ranks when arrivals were spread out. */
static int free_a_slot(clv_exec *x) {
    int k;
    int rc = MPI_Waitany(x->W, x->recv_req, &k, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return papc_mpi_error(rc, "clairvoyant receive");
    if (k == MPI_UNDEFINED)
        return papc_error(MPI_ERR_INTERN, "clairvoyant: no receive pending");
    return apply_segment_upto(x, x->win[k].seg, x->win[k].seq);
}

static int post_receive(clv_exec *x, const papc_clv_event *e) {
    int rc = MPI_SUCCESS;
    if (x->npending == x->W) rc = free_a_slot(x);
    if (rc != MPI_SUCCESS) return rc;
    int k = 0;
    while (x->win[k].seq >= 0) k++;
    struct pending *p = &x->win[k];
    p->seg = e->segment;
    p->len = seg_len(x, e->segment);
    p->slot = k;
    /* A segment this rank sent away comes back as the sink's: replace. */
    p->replace = !x->held[e->segment];
    rc = papc_irecv(x->c, seg_at(x, x->pool, p->slot), p->len, x->t, e->peer,
                    x->sub, &x->recv_req[k]);
    if (rc != MPI_SUCCESS) return rc;
    p->seq = x->seq++;
    x->held[e->segment] = 1;
    x->pending_of[e->segment]++;
    x->npending++;
    return MPI_SUCCESS;
}

/* PAPC_CLV_PACE=1: holds a send back until its round has come in this
 * rank's own time: its start plus (round - first round) d.  The schedule
 * sends one segment per round; unpaced, a rank holding many segments at
 * once (its own, early, while the others come late) posts the sends of
 * many future rounds together, and segments under the eager limit leave
 * at once.  Where the network shares a link fairly among them (SMPI) they
 * slow the one due now: at 48 simulated nodes rounds took 3-5 times
 * longer than planned.  Where it queues them FIFO (a real port's queue)
 * they only wait, and pacing at the model's d, which overestimates the
 * rounds where few ranks send, costs time.  A rank behind its plan never
 * waits; a wait is never one a round-by-round execution would not make
 * (it waits for each round's end). */
static void wait_for_round(const clv_exec *x, int round) {
    double due = x->t_start + (round - x->first_round) * x->d;
    for (;;) {
        double now = MPI_Wtime();
        if (now >= due) return;
#ifdef PAPC_SMPI
        /* simulated time passes only in a sleep */
        struct timespec ts = {0, (long)((due - now) * 1e9)};
        nanosleep(&ts, NULL);
        return;
#else
        /* a real wait is microseconds: poll (MPI's progress), yield the
         * core to an oversubscribed neighbour */
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, x->c->comm, &flag,
                   MPI_STATUS_IGNORE);
        sched_yield();
#endif
    }
}

static int post_send(clv_exec *x, const papc_clv_event *e) {
    int j = e->segment;
    if (!x->held[j])
        return papc_error(MPI_ERR_INTERN, "clairvoyant: sends segment %d it "
                          "does not hold", j);
    /* its partial sums must be in first */
    int rc = apply_segment_upto(x, j, x->seq);
    if (rc == MPI_SUCCESS && x->pace) wait_for_round(x, e->round);
    if (rc == MPI_SUCCESS)
        rc = papc_isend(x->c, seg_at(x, x->acc, j), seg_len(x, j), x->t,
                        e->peer, x->sub, &x->send_req[j]);
    if (rc == MPI_SUCCESS) x->held[j] = 0;
    return rc;
}

/* The oldest pending receive, or -1. */
static int oldest_pending(const clv_exec *x) {
    int best = -1;
    for (int k = 0; k < x->W; k++)
        if (x->win[k].seq >= 0 &&
            (best < 0 || x->win[k].seq < x->win[best].seq))
            best = k;
    return best;
}

/* Runs this rank's events in schedule order as a dataflow: a send waits
 * only for the receives of its own segment scheduled before it, sends
 * never wait (a segment sent away is not touched again until it comes
 * back), and receives are posted up to W ahead.  Rounds thus order the
 * events but do not synchronise them: a process is never held up by a
 * round of others' it has no data from.  Every wait here is one the
 * round-by-round execution also makes at that point or earlier, so the
 * schedule's deadlock freedom carries over; messages of a pair match in
 * round order because MPI does not overtake on one tag. */
static int run_events(clv_exec *x, const papc_clv_plan *s) {
    int rc = MPI_SUCCESS, k;
    for (size_t i = 0; i < s->n; i++) {
        const papc_clv_event *e = &s->ev[i];
        rc = e->kind == PAPC_CLV_RECV ? post_receive(x, e) : post_send(x, e);
        if (rc != MPI_SUCCESS) break;
    }
    while (rc == MPI_SUCCESS && (k = oldest_pending(x)) >= 0)
        rc = apply_entry(x, k);
    if (rc == MPI_SUCCESS) return papc_waitall(x->N, x->send_req);
    papc_cleanup_requests(x->W, x->recv_req);
    papc_cleanup_requests(x->N, x->send_req);
    return rc;
}

/* PAPC_CLV_SLACK=<k> (same on every rank, 1 <= k <= 64; default 1):
 * the schedule is planned with rounds of k d (and, paced, run at d);
 * PAPC_CLV_ROUND=<seconds> replaces the planned round (papc_clv_plan_for).
 * Why the slack: a prediction is off by a round or two (0.5-0.9 ms
 * against d = 0.43 ms at 48 simulated nodes): planned at d, a rank that
 * came one round late stalled the chain that counted on it, and with
 * arrivals spread over 50 ms the stalls added up in SMPI (102.7 ms with
 * predictions, 79.1 without, 75.5 at k = 2 and paced); on the emulated
 * cluster k = 2 cost 8 % (70.6 against 65.1 ms). */

/* PAPC_CLV_PACE=1 paces sends (wait_for_round); default off. */
static int pace_enabled(void) {
    const char *v = getenv("PAPC_CLV_PACE");
    return v && !strcmp(v, "1");
}

/* Receive events of the plan's rank. */
static int receive_count(const papc_clv_plan *s) {
    int n = 0;
    for (size_t i = 0; i < s->n; i++) n += s->ev[i].kind == PAPC_CLV_RECV;
    return n;
}

/* The executor of both rows: nodes NULL runs the plain schedule, else
 * clairvoyant_node's two-stage one, whose plan takes the busy beta over
 * the largest node's ranks (clairvoyant_node.c says why). */
static int clv_exec_run(const papc_call *c, const papc_arrival *a, int root,
                        const void *input, void *output, int sub,
                        const papc_clv_nodes *nodes) {
    MPI_Datatype t = c->sendtype;
    int P = c->size, count = c->sendcount;
    if (count <= 0) return MPI_SUCCESS;
    clv_exec x = {.c = c, .t = t, .count = count, .sub = sub};
    papc_clv_round plan;
    double beta = nodes ? papc_clv_node_beta(a->beta_busy, nodes->G,
                                             nodes->nmax)
                        : a->beta_busy;
    if (papc_clv_plan_for(c, a->alpha_busy, beta, a->gamma, &plan) != 0)
        return papc_error(MPI_ERR_INTERN, "clairvoyant: no plan");
    x.elems = (int)plan.elems;
    x.N = plan.N;
    double d = plan.d, d_plan = plan.d_plan;

    papc_tmpbuf acc = {NULL, NULL}, pool = {NULL, NULL};
    papc_clv_plan own;
    memset(&own, 0, sizeof own);
    const papc_clv_plan *s = &own;
    const char *how = "";
    double *arrival = malloc((size_t)P * sizeof *arrival);
    x.held = malloc((size_t)x.N);
    x.send_req = malloc((size_t)x.N * sizeof *x.send_req);
    int rc = MPI_SUCCESS;
    if (!arrival || !x.held || !x.send_req)
        rc = papc_error(MPI_ERR_NO_MEM, "clairvoyant schedule inputs");
    if (rc == MPI_SUCCESS) rc = arrival_vector(c, a, d_plan, x.N, arrival);
    if (rc == MPI_SUCCESS)
        rc = get_plan(c, arrival, d_plan, x.N, root,
                      (long long)count * (long long)papc_type_size(t), nodes,
                      &own, &s, &how);
    if (rc == MPI_SUCCESS) print_view(c, root, x.N, d_plan, s, how, nodes);
    /* Receives posted ahead: up to the vector's size in slots. */
    int nrecv = rc == MPI_SUCCESS ? receive_count(s) : 0;
    x.W = nrecv < x.N ? nrecv : x.N;
    if (x.W < 1) x.W = 1;
    x.win = malloc((size_t)x.W * sizeof *x.win);
    x.recv_req = malloc((size_t)x.W * sizeof *x.recv_req);
    x.pending_of = calloc((size_t)x.N, sizeof *x.pending_of);
    if (rc == MPI_SUCCESS && (!x.win || !x.recv_req || !x.pending_of))
        rc = papc_error(MPI_ERR_NO_MEM, "clairvoyant receive window");
    if (rc == MPI_SUCCESS) rc = papc_tmpbuf_alloc(&acc, t, (size_t)count);
    if (rc == MPI_SUCCESS)
        rc = papc_tmpbuf_alloc(&pool, t, (size_t)x.W * (size_t)x.elems);
    if (rc == MPI_SUCCESS) rc = papc_copy(input, count, t, acc.ptr, count, t);
    if (rc == MPI_SUCCESS) {
        x.acc = acc.ptr;
        x.pool = pool.ptr;
        for (int k = 0; k < x.W; k++) {
            x.win[k].seq = -1;
            x.recv_req[k] = MPI_REQUEST_NULL;
        }
        memset(x.held, 1, (size_t)x.N);
        for (int j = 0; j < x.N; j++) x.send_req[j] = MPI_REQUEST_NULL;
        x.t_start = MPI_Wtime();
        x.d = d;
        x.first_round = s->n ? s->ev[0].round : 0;
        x.pace = pace_enabled();
        rc = run_events(&x, s);
    }
    if (rc == MPI_SUCCESS && c->rank == root) {
        for (int j = 0; j < x.N && rc == MPI_SUCCESS; j++)
            if (!x.held[j])
                rc = papc_error(MPI_ERR_INTERN, "clairvoyant: the root ends "
                                "without segment %d", j);
        if (rc == MPI_SUCCESS)
            rc = papc_copy(acc.ptr, count, t, output, count, t);
    }
    papc_clv_plan_free(&own);
    papc_tmpbuf_free(&acc);
    papc_tmpbuf_free(&pool);
    free(arrival);
    free(x.held);
    free(x.send_req);
    free(x.win);
    free(x.recv_req);
    free(x.pending_of);
    return rc;
}

int papc_clv_reduce_exec(const papc_call *c, const papc_arrival *a, int root,
                         const void *input, void *output, int sub) {
    return clv_exec_run(c, a, root, input, output, sub, NULL);
}

int papc_clv_reduce_exec_nodes(const papc_call *c, const papc_arrival *a,
                               int root, const void *input, void *output,
                               int sub, const papc_clv_nodes *nodes) {
    return clv_exec_run(c, a, root, input, output, sub, nodes);
}

#define CLV_SUB 0

int papc_reduce_clairvoyant(const papc_call *c) {
    papc_arrival a;
    int rc = papc_arrival_begin(c, PAPC_ORDER_AGREED, c->root, &a);
    if (rc != MPI_SUCCESS) return rc;
    int in_place = c->rank == c->root && c->sendbuf == MPI_IN_PLACE;
    const void *input = in_place ? c->recvbuf : c->sendbuf;
    rc = papc_clv_reduce_exec(c, &a, c->root, input, c->recvbuf, CLV_SUB);
    return papc_arrival_end(c, &a, rc);
}

/* ---- cost model (issue 12) -------------------------------------------- */

/* Segments of the executor as papc_clv_plan_for cuts them, in bytes: N from
 * PAPC_CLV_SEGMENTS; else m_s when PAPC_SEGSIZE is set (whole segments,
 * *seg the first, full one); else the model's N under the arrival
 * runtime's default model (a model knows no monitor's fit), at least
 * m / PAPC_PIPELINE_MAX_SEGMENT, at most 4096 and m.  The executor
 * rounds N to a whole number; here N stays real, so the prediction is
 * continuous in m (the rounding moves it by less than one round). */
static double model_nseg(const papc_model_in *in, double *seg) {
    double m = in->m;
    size_t knob = papc_env_size("PAPC_CLV_SEGMENTS", 0);
    double n = knob <= PAPC_CLV_MAX_SEGMENTS ? (double)knob : 0;
    if (!n && papc_getenv("PAPC_SEGSIZE")) {
        *seg = papc_model_first_segment(m, in->segsize);
        return papc_model_segments(m, in->segsize);
    }
    if (!n) {
        double L = papc_model_ceil_log2(in->P);
        double b = PAPC_MODEL_ARRIVAL_BETA + PAPC_MODEL_ARRIVAL_GAMMA;
        n = sqrt(L * m * b / PAPC_MODEL_ARRIVAL_ALPHA);
        if (n < 1) n = 1;
        double eager = (double)papc_pipeline_max_segment();
        if (eager > 0 && n < m / eager) n = m / eager;
        if (n > PAPC_CLV_MAX_SEGMENTS) n = PAPC_CLV_MAX_SEGMENTS;
    }
    if (n > m) n = m; /* at least one element (of one byte) a segment */
    if (n < 1) n = 1;
    *seg = m / n;
    return n;
}

/* The executor's part, L = ceil(log2 P), N segments of s bytes:
 *   T = (N + L - 1)(α + s (β + γ_op)) + 2 m δ
 * With balanced arrivals papc_clv_fast's schedule takes R = N + L - 1
 * rounds, or one more for a few P (21, 41, 53, 117, ... once N is large
 * enough: 603 of 16320 (P <= 256, N <= 64) pairs, never more than one;
 * tests/unit/test_models_red.c checks it against the generator).  In a
 * round a process sends at most one segment and receives at most one,
 * which it reduces, and the dataflow executor chains
 * rounds through those receives: α + sβ + sγ_op each.  Every rank first
 * copies its input into the accumulator and the root copies the result
 * out (2m δ).  Not modelled: generating the schedule (CPU only). */
papc_terms papc_clv_reduce_exec_model(const papc_model_in *in) {
    double s, N = model_nseg(in, &s);
    double R = N + papc_model_ceil_log2(in->P) - 1;
    papc_terms round = {1, s, s, 0, 0, 0};
    papc_terms t = papc_terms_scale(round, R);
    t.copy = 2 * in->m;
    return t;
}

/* With balanced arrivals papc_clv_fast's schedule sends N(P-1) segments
 * that are reduced on arrival, plus N-1 that go away from the sink and
 * come back to replace it (received, not reduced): NP - 1 messages,
 * (P-1)m + (N-1)s sent, (P-1)m reduced (tests/unit/test_models_red.c
 * counts the generator's events, P <= 40). */
papc_terms papc_clv_reduce_exec_traffic(const papc_model_in *in,
                                        papc_terms t) {
    double s, N = model_nseg(in, &s), P = in->P;
    return papc_terms_traffic(t, N * P - 1,
                              2.0 * (P - 1) * in->m + (N - 1) * s);
}

/* Model (issue 12), balanced arrivals:
 *   T = γ(P)(α + 8(2P+1)β)                  (the agreed order, root decides)
 *     + (N + L - 1)(α + s (β + γ_op)) + 2 m δ    (papc_clv_reduce_exec)
 * N, s: see model_nseg (ignores m_s unless PAPC_SEGSIZE is set).
 * Traffic: the agreement's 2(P-1) messages, (P-1)(16P + 40) bytes, and
 * NP - 1 segment messages, (P-1)m + (N-1)s sent + (P-1)m reduced
 * (papc_clv_reduce_exec_traffic). */
papc_terms papc_reduce_clairvoyant_model(const papc_model_in *in) {
    papc_terms t;
    if (papc_model_reduce_trivial(in, &t)) return t;
    t = papc_terms_add(papc_model_agreement(in),
                       papc_clv_reduce_exec_model(in));
    t = papc_model_agreement_traffic(t, in->P);
    return papc_clv_reduce_exec_traffic(in, t);
}
