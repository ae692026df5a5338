/*
 * prr.c — schedules of the pre-reduced ring (PRR) and sorted linear tree
 * (SLT) allreduce (Proficz, "Improving all-reduce collective operations
 * for imbalanced process arrival patterns", J. Supercomput. 2018, Figs. 5
 * and 7) as pure step lists; see prr.h.  The file comments of
 * src/coll/allreduce/pre_reduced_ring.c and sorted_linear_tree.c list the
 * corrections to the paper's pseudocode; the reasoning is repeated next to
 * the code it concerns.  papc_prr_predict and papc_prr_presteps_model
 * (issue 15) time the PRR schedule under the agreed cost model and choose
 * the pre-steps that minimise the predicted average elapsed time.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prr.h"

void papc_seg_range(int count, int nseg, int j, int *off, int *len) {
    int q = count / nseg, r = count % nseg;
    *off = j * q + (j < r ? j : r);
    *len = q + (j < r);
}

/* ---- pre-reduced ring ------------------------------------------------- */

/* Fig. 7 lines 1-6: k[i] = k[i+1] + 1 when process i+1 can do k[i+1] + 1
 * steps before the last process arrives (a[P-1] - a[i+1] >= (k[i+1]+1)
 * tau), else k[i+1].  The recurrence measures every slack against the
 * LAST process: with several late processes the early ones ahead of them
 * get pre-steps only up to the first late one's predecessor (its
 * successor's slack is 0), and the late ones get none.  Unknown arrivals
 * take the latest known value: they are late, but not infinitely (an
 * infinite a[P-1] would give every process the most pre-steps, and
 * inf - inf is NaN). */
void papc_prr_presteps(int P, const double *a, double tau, int *k) {
    if (P <= 0) return;
    double latest = 0.0;
    int any = 0;
    for (int i = 0; i < P; i++)
        if (isfinite(a[i]) && a[i] >= 0.0 && (!any || a[i] > latest)) {
            latest = a[i];
            any = 1;
        }
    for (int i = 0; i < P; i++) k[i] = 0;
    if (!(isfinite(tau) && tau > 0.0)) return;
#define ARRIVAL(i) ((isfinite(a[i]) && a[i] >= 0.0) ? a[i] : latest)
    double last = ARRIVAL(P - 1);
    for (int i = P - 2; i >= 0; i--) {
        double slack = last - ARRIVAL(i + 1);
        k[i] = k[i + 1] + (slack >= (double)(k[i + 1] + 1) * tau);
    }
#undef ARRIVAL
}

int papc_prr_k_valid(int P, const int *k) {
    if (P <= 0) return 1;
    if (k[P - 1] != 0) return 0;
    for (int i = 0; i + 1 < P; i++)
        if (k[i] != k[i + 1] && k[i] != k[i + 1] + 1) return 0;
    return 1;
}

int papc_prr_k_normalise(int P, int *k) {
    int same = 1;
    if (P <= 0) return 1;
    if (k[P - 1] != 0) { k[P - 1] = 0; same = 0; }
    for (int i = P - 2; i >= 0; i--) {
        int lo = k[i + 1], hi = k[i + 1] + 1;
        if (k[i] < lo) { k[i] = lo; same = 0; }
        if (k[i] > hi) { k[i] = hi; same = 0; }
    }
    return same;
}

/* Fig. 7 lines 7-13 leave sp[j] unassigned when the else branch runs
 * (and advance i by one only); the intent, and what the reduce loop
 * needs, is the smallest i with i + k[i] >= j.  With a valid k, i + k[i]
 * is non-decreasing, so process i starts the segments
 * (i-1 + k[i-1], i + k[i]]: none when k[i-1] = k[i] + 1, one when equal,
 * and process 0 the k[0] + 1 segments 0..k[0]. */
void papc_prr_segment_ends(int P, const int *k, int *sp, int *rp) {
    int i = 0;
    for (int j = 0; j < P; j++) {
        while (i + k[i] < j) i++;   /* ends: (P-1) + k[P-1] = P-1 >= j */
        sp[j] = i;
        rp[j] = (i + P - 1) % P;
    }
}

/* sp of segment j by bisection (i + k[i] is non-decreasing). */
static int seg_start(int P, const int *k, int j) {
    int lo = 0, hi = P - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (mid + k[mid] >= j) hi = mid; else lo = mid + 1;
    }
    return lo;
}

static int add_step(papc_seg_step *s, int n, papc_seg_op op, int peer,
                    int sub, int seg) {
    s[n].op = op;
    s[n].peer = peer;
    s[n].sub = sub;
    s[n].seg = seg;
    return n + 1;
}

/* Process id at reduce iteration t handles segment id + k[id] - t (k[id]
 * steps ahead of a plain ring, where it handles id - t): it receives the
 * segment unless it starts it, and sends it on unless it is the
 * segment's last reducer rp (Fig. 7 line 19 tests "(rp + P - 1) mod P !=
 * is", a typo'd copy of line 25: with it a process would send on a
 * segment it finished and keep back one its successor waits for).
 *
 * The override loop starts with the segment the process finished last,
 * the highest of those with rp = id: id + 1 + k[id + 1] (mod P).  Fig. 7
 * starts it where the reduce loop ended, id + k[id], which is one below
 * the segments the process finished, and always one it must receive
 * (its sp is <= id, so its rp is not id): every process first waits for
 * a receive and the ring deadlocks, for every k and P >= 2.
 * With the corrected start the sends of process id and the receives of
 * id + 1 walk the same descending cycle from the same segment, on each
 * sub-tag, so messages between a pair come in the order they are
 * expected.  Before overwriting its segments with results a process waits
 * for its reduce-loop sends (they read those buffers). */
int papc_prr_schedule(int P, const int *k, int id, papc_seg_step *steps) {
    int n = 0, next = (id + 1) % P, prev = (id + P - 1) % P;
#define SP(j) seg_start(P, k, j)
#define RP(j) ((SP(j) + P - 1) % P)
    int si = (id + k[id]) % P;
    for (int t = 0; t < P; t++) {
        if (SP(si) != id)
            n = add_step(steps, n, PAPC_SEG_RECV_REDUCE, prev,
                         PAPC_SEG_SUB_REDUCE, si);
        if (RP(si) != id)
            n = add_step(steps, n, PAPC_SEG_SEND, next, PAPC_SEG_SUB_REDUCE,
                         si);
        si = (si + P - 1) % P;
    }
    n = add_step(steps, n, PAPC_SEG_WAIT_SENDS, -1, 0, -1);
    si = (id + 1 + k[next]) % P;
    for (int t = 0; t < P; t++) {
        if (RP(si) != id)
            n = add_step(steps, n, PAPC_SEG_RECV_COPY, prev,
                         PAPC_SEG_SUB_OVERRIDE, si);
        if ((RP(si) + P - 1) % P != id)
            n = add_step(steps, n, PAPC_SEG_SEND, next,
                         PAPC_SEG_SUB_OVERRIDE, si);
        si = (si + P - 1) % P;
    }
#undef SP
#undef RP
    return n;
}

/* ---- pre-step rule from the cost model (issue 15) ---------------------- */

/* The timing simulation behind papc_prr_predict.  Every process walks its
 * step list (the one papc_prr_schedule builds, generated here position by
 * position so no list is stored): pos 0..2P-1 the reduce loop (iteration
 * pos/2; even: receive, odd: send), 2P the wait for the reduce sends,
 * 2P+1..4P the override loop, 4P+1 the final wait for every send, 4P+2
 * done.  Channels are (sub-tag, sender); a receive takes the channel's next
 * message (the simulator of tests/unit/test_prr.c proves the order
 * matches).  Processes are swept round-robin, each as far as it can go;
 * times only grow, so the sweep computes the earliest-start schedule. */
typedef struct prr_timing {
    int P;
    const int *k;
    const papc_prr_cost *c;
    int *sp, *rp;        /* sp[j], rp[j] for this k */
    int *pos;            /* cursor per process */
    int *seg;            /* segment of the current loop iteration */
    double *t;           /* clock per process */
    double *link;        /* per sender: when its link is free (eager) */
    double *sendmax;     /* per sender: latest completion of a done send */
    int *nsent, *nrecv;  /* per channel (sub * P + sender) */
    double *depart;      /* [ch * P + n]: when message n's first byte left */
} prr_timing;

/* Completion of receiving message n of channel ch at a receive posted at
 * time post (see papc_prr_cost). */
static double timing_arrival(const prr_timing *s, int ch, int n,
                             double post) {
    const papc_prr_cost *c = s->c;
    double b = c->seg_bytes;
    double e = b < c->eager_bytes ? b : c->eager_bytes;
    double d0 = s->depart[(size_t)ch * s->P + n];
    double eager_in = d0 + c->alpha + e * c->beta;
    if (b - e <= 0.0) return post > eager_in ? post : eager_in;
    double match = post > d0 + c->alpha ? post : d0 + c->alpha;
    double rest = match + c->alpha + (b - e) * c->beta;
    return rest > eager_in ? rest : eager_in;
}

static int timing_rendezvous(const prr_timing *s) {
    return s->c->seg_bytes > s->c->eager_bytes;
}

static void timing_send(prr_timing *s, int p, int sub) {
    const papc_prr_cost *c = s->c;
    int ch = sub * s->P + p, n = s->nsent[ch]++;
    double e = c->seg_bytes < c->eager_bytes ? c->seg_bytes : c->eager_bytes;
    double d0 = s->t[p] > s->link[p] ? s->t[p] : s->link[p];
    s->depart[(size_t)ch * s->P + n] = d0;
    s->link[p] = d0 + e * c->beta;
    if (!timing_rendezvous(s) && s->t[p] > s->sendmax[p])
        s->sendmax[p] = s->t[p];    /* eager: done when posted */
}

/* 1 when the receive of process p on sub from prev completed (clock
 * advanced), 0 when its message is not sent yet. */
static int timing_recv(prr_timing *s, int p, int sub, int reduce) {
    int P = s->P, src = (p + P - 1) % P, ch = sub * P + src;
    if (s->nrecv[ch] >= s->nsent[ch]) return 0;
    double done = timing_arrival(s, ch, s->nrecv[ch]++, s->t[p]);
    if (timing_rendezvous(s) && done > s->sendmax[src])
        s->sendmax[src] = done;
    s->t[p] = done + (reduce ? s->c->seg_bytes * s->c->gamma : 0.0);
    return 1;
}

static int timing_sends_done(const prr_timing *s, int p) {
    if (!timing_rendezvous(s)) return 1;
    for (int sub = 0; sub < 2; sub++) {
        int ch = sub * s->P + p;
        if (s->nrecv[ch] < s->nsent[ch]) return 0;
    }
    return 1;
}

enum { T_BLOCKED = 0, T_MOVED, T_SENT, T_RECEIVED };

/* Advances process p by one position: T_BLOCKED, or what it did. */
static int timing_step(prr_timing *s, int p) {
    int P = s->P, at = s->pos[p], r = T_MOVED;
    if (at < 2 * P || (at > 2 * P && at < 4 * P + 1)) {   /* a loop */
        int over = at > 2 * P, half = (at - over) & 1, si = s->seg[p];
        if (!over && half == 0 && s->sp[si] != p) {
            if (!timing_recv(s, p, PAPC_SEG_SUB_REDUCE, 1)) return T_BLOCKED;
            r = T_RECEIVED;
        } else if (!over && half == 1 && s->rp[si] != p) {
            timing_send(s, p, PAPC_SEG_SUB_REDUCE);
            r = T_SENT;
        } else if (over && half == 0 && s->rp[si] != p) {
            if (!timing_recv(s, p, PAPC_SEG_SUB_OVERRIDE, 0))
                return T_BLOCKED;
            r = T_RECEIVED;
        } else if (over && half == 1 &&
                   (s->rp[si] == 0 ? P - 1 : s->rp[si] - 1) != p) {
            timing_send(s, p, PAPC_SEG_SUB_OVERRIDE);
            r = T_SENT;
        }
        if (half == 1) s->seg[p] = si == 0 ? P - 1 : si - 1;
    } else {                                      /* wait for sends */
        if (!timing_sends_done(s, p)) return T_BLOCKED;
        if (s->sendmax[p] > s->t[p]) s->t[p] = s->sendmax[p];
        if (at == 2 * P) {   /* the override loop starts at p+1+k[p+1] */
            int next = p + 1 == P ? 0 : p + 1;
            s->seg[p] = (p + 1 + s->k[next]) % P;
        }
    }
    s->pos[p]++;
    return r;
}

/* Runs every process as far as it goes, then only those that a move of a
 * neighbour may unblock (a send wakes the receiver, a rendezvous receive
 * the sender waiting for its sends): each position is stepped once.
 * 0 on success, -1 on a deadlock (cannot happen for a valid k: the
 * simulator of test_prr.c proves it). */
static int timing_run(prr_timing *s) {
    int P = s->P, end = 4 * P + 2, top = 0, rdv = timing_rendezvous(s);
    int *stack = s->nrecv + 2 * P, *queued = stack + P;
    for (int p = P - 1; p >= 0; p--) {
        stack[top++] = p;
        queued[p] = 1;
    }
    while (top > 0) {
        int p = stack[--top];
        queued[p] = 0;
        while (s->pos[p] < end) {
            int r = timing_step(s, p), wake = -1;
            if (r == T_BLOCKED) break;
            if (r == T_SENT) wake = p + 1 == P ? 0 : p + 1;
            if (r == T_RECEIVED && rdv) wake = p == 0 ? P - 1 : p - 1;
            if (wake >= 0 && !queued[wake]) {
                stack[top++] = wake;
                queued[wake] = 1;
            }
        }
    }
    for (int p = 0; p < P; p++)
        if (s->pos[p] < end) return -1;
    return 0;
}

/* Scratch for many predictions of one P (one allocation). */
typedef struct prr_scratch {
    int P;
    char *mem;
    prr_timing s;
} prr_scratch;

static int scratch_init(prr_scratch *x, int P) {
    size_t nch = 2 * (size_t)P;
    size_t bytes = sizeof(int) * (7 * (size_t)P + 2 * nch) +
                   sizeof(double) * (3 * (size_t)P + nch * P);
    x->P = P;
    x->mem = malloc(bytes);
    if (!x->mem) return -1;
    char *m = x->mem;
    x->s.depart = (double *)m;  m += sizeof(double) * nch * P;
    x->s.t = (double *)m;       m += sizeof(double) * P;
    x->s.link = (double *)m;    m += sizeof(double) * P;
    x->s.sendmax = (double *)m; m += sizeof(double) * P;
    x->s.sp = (int *)m;         m += sizeof(int) * P;
    x->s.rp = (int *)m;         m += sizeof(int) * P;
    x->s.seg = (int *)m;        m += sizeof(int) * P;
    x->s.pos = (int *)m;        m += sizeof(int) * P;
    x->s.nsent = (int *)m;      m += sizeof(int) * nch;
    x->s.nrecv = (int *)m;
    return 0;
}

/* Predicted e with scratch x; NAN on a deadlock. */
static double scratch_predict(prr_scratch *x, const int *k, const double *a,
                              const papc_prr_cost *c, double *finish) {
    prr_timing *s = &x->s;
    int P = x->P;
    s->P = P;
    s->k = k;
    s->c = c;
    for (int j = 0, i = 0; j < P; j++) {   /* as papc_prr_segment_ends */
        while (i + k[i] < j) i++;
        s->sp[j] = i;
        s->rp[j] = i == 0 ? P - 1 : i - 1;
    }
    for (int p = 0; p < P; p++) {
        s->pos[p] = 0;
        s->seg[p] = (p + k[p]) % P;
        s->t[p] = a[p];
        s->link[p] = a[p];
        s->sendmax[p] = a[p];
    }
    memset(s->nsent, 0, sizeof(int) * 2 * (size_t)P);
    memset(s->nrecv, 0, sizeof(int) * 2 * (size_t)P);
    if (timing_run(s) != 0) return NAN;
    double sum = 0.0;
    for (int p = 0; p < P; p++) {
        sum += s->t[p] - a[p];
        if (finish) finish[p] = s->t[p];
    }
    return sum / P;
}

static int cost_sane(const papc_prr_cost *c) {
    return c && isfinite(c->alpha) && c->alpha >= 0.0 && isfinite(c->beta) &&
           c->beta >= 0.0 && isfinite(c->gamma) && c->gamma >= 0.0 &&
           isfinite(c->seg_bytes) && c->seg_bytes >= 0.0 &&
           !isnan(c->eager_bytes) && c->eager_bytes >= 0.0;
}

double papc_prr_predict(int P, const int *k, const double *a,
                        const papc_prr_cost *c, double *finish) {
    if (P < 1 || P > PAPC_PRR_PREDICT_MAXP || !k || !a || !cost_sane(c) ||
        !papc_prr_k_valid(P, k))
        return NAN;
    for (int i = 0; i < P; i++)
        if (!isfinite(a[i])) return NAN;
    prr_scratch x;
    if (scratch_init(&x, P) != 0) return NAN;
    double e = scratch_predict(&x, k, a, c, finish);
    free(x.mem);
    return e;
}

void papc_prr_staircase(int P, int e, int h, int *k) {
    if (P <= 0) return;
    if (e > P - 1) e = P - 1;
    if (e < 0) e = 0;
    if (h > e) h = e;
    if (h < 0) h = 0;
    for (int i = 0; i < P; i++) {
        int v = e - i < h ? e - i : h;
        k[i] = v > 0 ? v : 0;
    }
}

/* The search of papc_prr_presteps_model: the best (e, h) seen so far. */
typedef struct prr_search {
    prr_scratch x;
    const double *a;
    const papc_prr_cost *c;
    int *k;               /* scratch vector */
    double best;          /* predicted e of (be, bh) */
    int be, bh;
    double budget;        /* predictions still allowed */
} prr_search;

/* Predicted e of staircase (e, h) (0 for the ring); keeps the best, ties
 * to the one with fewer pre-steps (smaller h, then smaller e). */
static double search_try(prr_search *q, int e, int h) {
    int P = q->x.P;
    if (e < 0 || e > P - 1 || h < 0 || h > e) return INFINITY;
    if (q->budget < 1.0) return INFINITY;
    q->budget -= 1.0;
    if (h == 0) e = 0;
    papc_prr_staircase(P, e, h, q->k);
    double v = scratch_predict(&q->x, q->k, q->a, q->c, NULL);
    if (!isfinite(v)) return INFINITY;
    if (v < q->best || (v == q->best && (h < q->bh ||
                                         (h == q->bh && e < q->be)))) {
        q->best = v;
        q->be = e;
        q->bh = h;
    }
    return v;
}

/* From the best point, single steps of e and h while one improves. */
static void search_descend(prr_search *q) {
    for (int round = 0; round < 4 * q->x.P; round++) {
        double before = q->best;
        int e = q->be, h = q->bh;
        static const int de[] = {-1, 1, 0, 0, -1, 1}, dh[] = {0, 0, -1, 1,
                                                              -1, 1};
        for (int d = 0; d < 6; d++)
            if (h + dh[d] >= 1) search_try(q, e + de[d], h + dh[d]);
        if (!(q->best < before)) return;
    }
}

void papc_prr_presteps_model(int P, const double *a, const papc_prr_cost *c,
                             int *k) {
    if (P <= 0) return;
    for (int i = 0; i < P; i++) k[i] = 0;
    if (P < 2 || P > PAPC_PRR_RULE_MAXP || !cost_sane(c)) return;
    /* Unknown arrivals: the latest known one (papc_prr_presteps). */
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < P; i++)
        if (isfinite(a[i]) && a[i] >= 0.0) {
            if (a[i] < lo) lo = a[i];
            if (a[i] > hi) hi = a[i];
        }
    double hop = c->alpha + c->seg_bytes * c->beta;
    if (!(hi - lo >= hop) || !(hop > 0.0)) return;  /* no slack to use */
    /* The search may cost about PAPC_PRR_RULE_SEARCH_SHARE of the call:
     * the ring's e is about 2(P-1) hops plus the mean wait for the last
     * arrival; a prediction steps P(4P+2) positions. */
    double mean = 0.0;
    for (int i = 0; i < P; i++)
        mean += (isfinite(a[i]) && a[i] >= 0.0) ? a[i] : hi;
    mean /= P;
    double ring_est = 2.0 * (P - 1) * hop +
                      (P - 1) * c->seg_bytes * c->gamma + (hi - mean);
    double budget = PAPC_PRR_RULE_SEARCH_SHARE * ring_est /
                    (PAPC_PRR_RULE_POSITION_COST * P * (4.0 * P + 2.0));
    if (!(budget >= 2.0)) return;      /* not even the ring and one more */
    prr_search q;
    double *arr = malloc(sizeof(double) * (size_t)P);
    q.k = malloc(sizeof(int) * (size_t)P);
    if (!arr || !q.k || scratch_init(&q.x, P) != 0) {
        free(arr);
        free(q.k);
        return;                      /* no memory: the ring, still valid */
    }
    for (int i = 0; i < P; i++)
        arr[i] = (isfinite(a[i]) && a[i] >= 0.0) ? a[i] - lo : hi - lo;
    q.a = arr;
    q.c = c;
    q.best = INFINITY;
    q.be = q.bh = 0;
    q.budget = budget;
    double ring = search_try(&q, 0, 0);
    if (P <= 12) {
        /* The most promising first (a late last process: e = P-1, high
         * staircases), in case the budget ends the search. */
        for (int e = P - 1; e >= 1; e--)
            for (int h = e; h >= 1; h--) search_try(&q, e, h);
    } else {
        int es[] = {P - 1, P - 2, (3 * (P - 1)) / 4, (P - 1) / 2,
                    (P - 1) / 4};
        for (int i = 0; i < 5; i++) {
            int e = es[i];
            int hs[] = {1, e / 4, e / 2, (3 * e) / 4, e};
            for (int j = 0; j < 5; j++)
                if (hs[j] >= 1) search_try(&q, e, hs[j]);
        }
        search_descend(&q);
    }
    if (q.bh > 0 && isfinite(ring) &&
        q.best < ring - PAPC_PRR_RULE_MARGIN * ring)
        papc_prr_staircase(P, q.be, q.bh, k);
    free(q.x.mem);
    free(q.k);
    free(arr);
}

/* ---- sorted linear tree ----------------------------------------------- */

/* Newton's square root (no libm: the pure library links without -lm). */
static double root2(double x) {
    if (!(x > 0.0) || !isfinite(x)) return 0.0;
    double r = x > 1.0 ? x : 1.0;
    for (int i = 0; i < 200; i++) {
        double nr = 0.5 * (r + x / r);
        if (nr >= r) break;
        r = nr;
    }
    return r;
}

/* A segment passes 2P - 2 hops (reduce chain 0..P-1, the result back to
 * 0, override chain 0..P-2); a stage costs about alpha + (n/S)(beta +
 * gamma), so the pipeline takes (2P - 3 + S)(alpha + n(beta + gamma)/S),
 * smallest at S = sqrt((2P - 3) n (beta + gamma) / alpha), capped at
 * 65536 (a model fit gone wrong must not allocate a huge schedule). */
int papc_slt_segments(int P, int count, double elem_bytes, double alpha,
                      double beta, double gamma, double max_seg_bytes) {
    if (count <= 0) return 1;
    double s = 0.0;
    if (P > 1 && alpha > 0.0 && isfinite(alpha))
        s = root2((2.0 * P - 3.0) * count * elem_bytes * (beta + gamma) /
                  alpha);
    if (!(s < 65536.0)) s = 65536.0;  /* NaN or silly: bounded schedule */
    long S = (long)(s + 0.5);
    if (S < P) S = P;
    if (max_seg_bytes > 0.0 && isfinite(elem_bytes)) {
        double eager = ceil((double)count * elem_bytes / max_seg_bytes);
        if (eager > 65536.0) eager = 65536.0;
        if (S < (long)eager) S = (long)eager;
    }
    if (S > count) S = count;
    return S < 1 ? 1 : (int)S;
}

/* Fig. 5 with its ring indices made explicit: the reduce chain runs
 * 0 -> 1 -> ... -> P-1 and P-1 sends each finished segment to (P-1+1)
 * mod P = 0 (line 6), where the override chain 0 -> ... -> P-2 receives it
 * (line 10); that message is sent in the reduce loop but received in the
 * override loop, so it carries the override sub-tag.  Process 0 sends in
 * the reduce loop without receiving (line 6 is outside line 3's test, or
 * nothing would ever leave it).  P = 1: line 6 would send to itself a
 * message nobody receives; nothing is sent.  P = 2: 0 -> 1, 1 -> 0, no
 * override forwarding (id < P - 2 never holds): correct as written. */
int papc_slt_schedule(int P, int S, int id, papc_seg_step *steps) {
    int n = 0;
    for (int s = 0; s < S; s++) {
        if (id != 0)
            n = add_step(steps, n, PAPC_SEG_RECV_REDUCE, id - 1,
                         PAPC_SEG_SUB_REDUCE, s);
        if (id < P - 1)
            n = add_step(steps, n, PAPC_SEG_SEND, id + 1,
                         PAPC_SEG_SUB_REDUCE, s);
        else if (P > 1)
            n = add_step(steps, n, PAPC_SEG_SEND, 0, PAPC_SEG_SUB_OVERRIDE,
                         s);
    }
    n = add_step(steps, n, PAPC_SEG_WAIT_SENDS, -1, 0, -1);
    if (id == P - 1) return n;
    for (int s = 0; s < S; s++) {
        n = add_step(steps, n, PAPC_SEG_RECV_COPY, (id + P - 1) % P,
                     PAPC_SEG_SUB_OVERRIDE, s);
        if (id < P - 2)
            n = add_step(steps, n, PAPC_SEG_SEND, id + 1,
                         PAPC_SEG_SUB_OVERRIDE, s);
    }
    return n;
}

/* ---- testing knobs ---------------------------------------------------- */

int papc_parse_offsets(const char *s, int P, double *offset) {
    int known = 0;
    for (int i = 0; i < P; i++) offset[i] = INFINITY;
    for (int i = 0; s && *s && i < P; i++) {
        char *end;
        double v = strtod(s, &end);
        if (end != s && (*end == ',' || *end == '\0') && isfinite(v) &&
            v >= 0.0) {
            offset[i] = v;
            known++;
        }
        const char *comma = strchr(s, ',');
        if (!comma) break;
        s = comma + 1;
    }
    return known;
}

int papc_parse_ints(const char *s, int P, int *v) {
    int n = 0;
    for (int i = 0; i < P; i++) v[i] = 0;
    for (int i = 0; s && *s && i < P; i++) {
        char *end;
        long x = strtol(s, &end, 10);
        if (end != s && x >= 0 && x < 1000000) v[i] = (int)x;
        n++;
        const char *comma = strchr(s, ',');
        if (!comma) break;
        s = comma + 1;
    }
    return n;
}

static int earlier(const double *offset, int x, int y) {
    int fx = isfinite(offset[x]), fy = isfinite(offset[y]);
    if (fx != fy) return fx;
    if (fx && offset[x] != offset[y]) return offset[x] < offset[y];
    return x < y;
}

void papc_order_by_offset(int P, const double *offset, int *order) {
    for (int i = 0; i < P; i++) {   /* insertion sort: stable, P small */
        int r = i, j = i;
        while (j > 0 && earlier(offset, r, order[j - 1])) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = r;
    }
}
