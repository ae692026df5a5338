/*
 * arrival_model.c — the cost of a gather, scatter, reduce or allreduce
 * whose processes arrive at different times (issue 15, part 1): for every
 * row of the four tables, the predicted ē (pap-scatter-gather.md eq. 2)
 * from the arrival offsets.  Pure: no MPI, no state.
 *
 * How every row is modelled.  Each row has an "exits" function that
 * follows its code: who waits for whom, which link serves which message
 * when, in Hockney terms (a message of b bytes costs α + bβ, a reduction
 * of b bytes bγ_op), and returns every rank's predicted exit F_r for
 * offsets o (by rank) with all costs multiplied by a scale λ.  Then
 *
 *     λ  = t0 / max_r F_r(0; 1)          the structure's balanced run time
 *                                        is the row's own prediction t0
 *     ē  = t0 + ē_s(o) − ē_s(0),         ē_s(x) = mean_r (F_r(x; λ) − x_r)
 *
 * i.e. the row's balanced prediction plus the extra wait the offsets cause
 * (the "t0 plus the extra wait").  The scale takes the fitted
 * row's own per-message costs (its α, β absorb contention, copies and the
 * agreement round that the structure leaves out) into the waits; with all
 * offsets 0 the result is exactly t0, so a balanced call is chosen as the
 * classic selection chooses it.  papc_arrival_model_exits (arrival_exits.h)
 * gives the implied exits F_r(o; λ) + t0 − ē_s(0), whose mean elapsed time
 * is this ē (and whose maximum the tests hold against papc-bench's ideal).
 * λ < 1 means the row's balanced model predicts less than its own code
 * needs under Hockney (papc_arrival_model_structure gives the latter):
 * SLT's model does, by about S(α + sβ) (see allreduce_slt).
 *
 * Common assumptions (each departure from the code is named at its row):
 *  - A message over the case's eager limit (papc_arrival_case.eager; 0:
 *    every message) goes by rendezvous: a blocking or non-blocking send
 *    completes when its receiver has taken it, so a sender to a late
 *    receiver waits for it.  One at or under the limit goes eagerly (see
 *    "Eager messages" below); SLT's and Clairvoyant's small pipeline
 *    segments are modelled as eager whatever the limit (their code caps
 *    them at papc_pipeline_max_segment).
 *  - A link takes one message at a time; when several are posted at once
 *    (non-blocking fan-in/fan-out) they are served in the order their
 *    peers become ready (ties in posting order).  Except the linear
 *    scatters: their blocks in flight share the root's link fairly, as
 *    measured (scatter_linear, fair_share).
 *  - The arrival-aware rows order by the predicted offsets, which are the
 *    offsets given (ties by rank, as papc_order_by_offset); B* rows with
 *    bg = 1 receive in the monitor thread, so a receiver's own arrival does
 *    not gate a transfer to it (bench_ideal.h's assumption); with bg = 0
 *    they run, and are modelled as, their foreground twins.
 *  - Rows that synchronise every rank with every other (ring, recursive
 *    doubling, Rabenseifner, Radix-k, the segmented ring): no rank's
 *    result is ready before the last arriver has done its whole part, so
 *    F_r = max o + t0 (the "lateness plus its critical path from
 *    there"), exactly so in the max-plus algebra of those step patterns.
 *
 * Cost: two evaluations per call (offsets 0 and o), O(P log P) each (a
 * sort of the offsets, the trees' per-node sorts of at most log2 P
 * children; SBN scatter's placement O(P log^2 P)); one heap block of
 * scratch, freed before return.  About 0.35 ms a row at P = 4096
 * (test_fast_at_large_P, this 2-core box).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arrival_model.h"
#include "arrival_exits.h"
#include "clairvoyant/cache.h"
#include "clairvoyant/dataflow.h"

/* The run's defaults a model cannot read from a call: the segment size of
 * the segmented trees (src/core/call.c, DEFAULT_SEGSIZE), the largest
 * eager pipeline segment (papc_pipeline_max_segment) and the arrival
 * runtime's default model that sizes SLT's and Clairvoyant's segments
 * (src/coll/reduce/model_parts.h, PAPC_MODEL_ARRIVAL_*). */
#define PAPC_ARRIVAL_DEFAULT_SEGSIZE 8192.0
#define PAPC_ARRIVAL_MAX_EAGER_SEGMENT 64512.0
#define PAPC_ARRIVAL_DEFAULT_ALPHA 0.8e-6
#define PAPC_ARRIVAL_DEFAULT_BETA 1.3e-10
#define PAPC_ARRIVAL_DEFAULT_GAMMA 2.5e-10
/* Clairvoyant is priced by its schedule's dataflow up to this many
 * (process, segment) cells, by the closed form above it (clv_reduce).  A
 * price (two generations and passes: offsets 0 and o) took 0.14 ms at P =
 * 8, N = 130 and 0.5-0.7 ms at 4096 cells on the 2-core box; the plain
 * call prices only when the spread is at least 1 ms and 5 % of t0. */
#define PAPC_ARRIVAL_CLV_DATAFLOW_CELLS 4096.0

/* ---- Eager messages (issue 16, helper s11-eager) -----------------------
 * A message of b <= eager bytes leaves its sender without its receiver:
 * the transfer runs when the sender has sent it, on the links as any
 * message, and lands in the receiver's buffers (the TCP socket, Open
 * MPI's unexpected queue), so the sender exits when its transfer is done
 * whatever its receiver does; the receiver takes the data when it has
 * arrived and the data has landed -- exactly what a B* row's background
 * channel does for its receiver (bg = 1), per message here.  Found at P =
 * 512 in SMPI (docs/scale.md, "The plain call's price at 512"): binomial
 * reduce's 8 KiB segments go eagerly, its leaves left 0.03 ms after their
 * own arrival, and the rendezvous model, which kept each child until its
 * parent's last stage, priced the row 17.1 ms against 6.79 measured.
 * Rows whose waits change (each at its function):
 *  - gather: basic_linear (a sender exits after its send; the root's
 *    side kept), binomial, sorted_binomial and BSBN without its background
 *    channel (a child's subtree message of span·m <= eager bytes is not
 *    gated by its parent's arrival);
 *  - scatter: basic_linear, linear_nb, sorted_linear and BSLN without its
 *    channel (the root pushes every block at once, the blocks share its
 *    link, a receiver exits at max(its arrival, its block landed)), binomial,
 *    sorted_binomial and BSBN without its channel (per child message; a
 *    relay forwards from max(its arrival, its data landed));
 *  - reduce: basic_linear (as the gather), binomial (a child leaves after its own last segment
 *    when segments are eager), Rabenseifner (the fold's sender), the ring
 *    (a non-root leaves after its block's send, not the root's collection);
 *  - unchanged: linear_sync, SLS and BSLS (a sender waits for its GO, the
 *    root's handshake, whatever the protocol), the rows where every rank
 *    waits for the last one (every allreduce row but basic_linear, which
 *    waits for its result; Radix-k reduce), SLT, PRR, Clairvoyant (already
 *    eager: a non-root exits after its own sends).
 * Departures.  (1) The receiver's side is the eager protocol of a
 * transport that moves data without the receiver (TCP, SMPI with
 * smpi/async-small-thresh at the limit, sim/run's default); SMPI with
 * async-small-thresh 0 (the segmented trees' setting, docs/scale.md)
 * starts the transfer only when the receive is posted, so there a late
 * receiver pays the transfer after its arrival: these models then take a
 * late relay's receives as already done (the reduce tree's stages are
 * the same either way: a node folds its n_s segments after its arrival).
 * The linear gather's and reduce's roots are the exception, kept as they
 * were (their functions say why): a bound from above there.
 * (2) The buffers are unbounded (a leaf's n_s segments fit; SEND_WINDOW's
 * four sends in flight complete locally).  (3) With offsets 0 nothing is
 * late and every exit is as before but for non-critical senders that
 * now leave early; the run time max F(0), hence λ and t0, is the same. */

/* ---- shared ------------------------------------------------------------ */

/* What an exits function gets: the case, offsets by rank (o), the cost
 * scale, the output F by rank and scratch (P each). */
typedef struct am_work {
    const papc_arrival_case *c;
    int P;
    const double *o;
    int zero;          /* every o[r] == 0: orders are rank orders */
    double lam;
    double *F;
    int *order;        /* ranks by offset, earliest first (am_sort) */
    int *map;          /* tree: nrank -> rank */
    int *ibuf;         /* P more ints */
    double *t1, *t2;   /* P doubles each */
    struct am_key { double key; int a, b; } *keys; /* P sort records */
    int published;     /* pre_reduced_ring_published: the paper's k */
} am_work;

typedef void (*am_exits_fn)(am_work *w);

static double dmax(double a, double b) { return a > b ? a : b; }

/* Whether a message of b bytes goes eagerly under the case's limit. */
static int am_eager(const am_work *w, double b) {
    return w->c->eager > 0 && b <= w->c->eager;
}

static int lowbit(int v) { return v & -v; }

static int ceil_log2(long n) {
    int k = 0;
    while ((1L << k) < n) k++;
    return k;
}

static int key_cmp(const void *x, const void *y) {
    const struct am_key *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

/* w->order: the ranks by offset, ties by rank (papc_order_by_offset's
 * order for known offsets; the monitor's order is the same by design). */
static void am_sort(am_work *w) {
    int P = w->P;
    if (w->zero) {
        for (int r = 0; r < P; r++) w->order[r] = r;
        return;
    }
    for (int r = 0; r < P; r++) w->keys[r] = (struct am_key){w->o[r], r, 0};
    qsort(w->keys, (size_t)P, sizeof *w->keys, key_cmp);
    for (int i = 0; i < P; i++) w->order[i] = w->keys[i].a;
}

static double max_offset(const am_work *w) {
    double m = w->o[0];
    for (int r = 1; r < w->P; r++) m = dmax(m, w->o[r]);
    return m;
}

static double min_offset(const am_work *w) {
    double m = w->o[0];
    for (int r = 1; r < w->P; r++) if (w->o[r] < m) m = w->o[r];
    return m;
}

/* Span of nrank v in the in-order binomial tree over P nodes (topo.c's
 * papc_inorder_span, sorted_tree.c's papc_stree_span: the same tree). */
static int span_of(int v, int P) {
    int s = v == 0 ? P : lowbit(v);
    return s > P - v ? P - v : s;
}

/* Children of v, ascending offsets (v + 1, v + 2, v + 4, ...). */
static int children_of(int v, int P, int *kids) {
    int limit = v == 0 ? P : lowbit(v), n = 0;
    for (long d = 1; d < limit && v + d < P; d <<= 1) kids[n++] = v + (int)d;
    return n;
}

/* A message carrying a run of `blocks` blocks of m bytes: α + blocks·mβ,
 * scaled. */
static double run_cost(const am_work *w, int blocks) {
    return w->lam * (w->c->alpha + blocks * w->c->m * w->c->beta);
}

/* One link serving messages in order of readiness: ready[i] (ties by
 * index), each costing cost[i]; returns the completions in done[i].
 * n <= 32, so an insertion sort. */
#define AM_MAX_KIDS 32
static double serve_ready(int n, const double *ready, const double *cost,
                          double start, double *done) {
    int idx[AM_MAX_KIDS];
    for (int i = 0; i < n; i++) {
        int j = i;
        for (; j > 0 && ready[idx[j - 1]] > ready[i]; j--) idx[j] = idx[j - 1];
        idx[j] = i;
    }
    double d = start;
    for (int k = 0; k < n; k++) {
        d = dmax(d, ready[idx[k]]) + cost[idx[k]];
        done[idx[k]] = d;
    }
    return d;
}

/* ---- gather -------------------------------------------------------------
 * Block m bytes, c = α + mβ per block. */

/* Linear gathers (basic_linear, linear_sync, sorted_linear_sync and BSLS
 * without its background channel): the root takes one rank's block at a
 * time, from its own arrival, each no earlier than the sender's arrival
 * (a blocking receive, or linear_sync's go-ahead handshake, both wait for
 * the sender):  d = o_root; d = max(d, o_i) + c over the ranks in the
 * row's order; F_i = d after i's turn, F_root = d at the end.  The paper's
 * eqs. (9)-(10) and (17)-(19) are the one-late-rank cases of this
 * recurrence (eq. (18): max(D + 3α + mβ, r_LS) for rank 1 late in SLS).
 * linear_sync's turn (go-ahead, first and second part, eq. (5)'s 3α + mβ)
 * has the same shape as basic_linear's α + mβ; λ rescales it to t0.
 * Departure: linear_sync's second part overlaps the next turn (the row's
 * balanced model counts it); here a turn is one cost. */
static void gather_linear(am_work *w, int sorted, int root_gates) {
    const papc_arrival_case *c = w->c;
    int P = w->P, root = c->root;
    double cost = w->lam * (c->alpha + c->m * c->beta);
    double d = root_gates ? w->o[root] : min_offset(w);
    if (sorted) am_sort(w);
    for (int k = 0; k < P; k++) {
        int r = sorted ? w->order[k] : k;
        if (r == root) continue;
        d = dmax(d, w->o[r]) + cost;
        w->F[r] = d;
    }
    w->F[root] = dmax(w->o[root], d);
}

/* basic_linear with eager blocks (m <= eager): a sender exits when its
 * block is sent, o_i + c, whatever the root does; the root's side is
 * kept (each block taken in rank order after both are there: exact where
 * the transfer waits for the receive, SMPI's async-small-thresh 0; a bound
 * from above where the blocks land before, TCP -- the root then only
 * copies them -- kept so that the rank-order receives stay one max-plus
 * expression of the offsets).  linear_sync's senders wait for their GO:
 * unchanged. */
static void gather_basic_linear(am_work *w) {
    gather_linear(w, 0, 1);
    if (am_eager(w, w->c->m)) {
        double cost = w->lam * (w->c->alpha + w->c->m * w->c->beta);
        for (int r = 0; r < w->P; r++)
            if (r != w->c->root) w->F[r] = w->o[r] + cost;
    }
}
static void gather_linear_sync(am_work *w) { gather_linear(w, 0, 1); }
static void gather_sls(am_work *w) { gather_linear(w, 1, 1); }

/* BSLS (eq. (20)): the root's monitor runs the job from the first HELLO
 * (the earliest arrival), so the root's own arrival gates nothing:
 * d = min o; d = max(d, o_i) + c in predicted order; F_root = max(o_root,
 * d).  A sender still waits for its GO (its arrival gates its turn). */
static void gather_bsls(am_work *w) { gather_linear(w, 1, !w->c->bg); }

/* Tree gathers over the in-order binomial tree (nrank v; parent v −
 * lowbit(v); subtree [v, v + span)): a node takes its children's subtree
 * messages (α + span·mβ each, one at a time, in the order they are
 * ready), then sends its own subtree up.  Foreground: a child's send
 * waits for its parent to arrive (rendezvous), so ready = max(R_child,
 * o_parent); background (BSBN): the parent's monitor takes it, ready =
 * R_child, and so for an eager message (span·m <= eager bytes: it lands
 * in the parent's buffers without the parent).  R_v = max(o_v, the last
 * child's message) is when v can send; a child exits when its message is
 * taken, the root at R_root.  Departure:
 * the row's balanced model lets equal spans arrive together (γ of a
 * fan-in) where this serves them one after the other. */
static void gather_tree(am_work *w, int bg) {
    int P = w->P, kids[AM_MAX_KIDS];
    const int *rank_of = w->map;
    double *R = w->t1, ready[AM_MAX_KIDS], cost[AM_MAX_KIDS],
           done[AM_MAX_KIDS];
    for (int v = P - 1; v >= 0; v--) {
        double ov = w->o[rank_of[v]];
        int n = children_of(v, P, kids);
        for (int i = 0; i < n; i++) {
            int span = span_of(kids[i], P);
            ready[i] = bg || am_eager(w, span * w->c->m)
                           ? R[kids[i]] : dmax(R[kids[i]], ov);
            cost[i] = run_cost(w, span);
        }
        /* no start: a gated message's ready time holds o_v already */
        double d = serve_ready(n, ready, cost, -INFINITY, done);
        for (int i = 0; i < n; i++) w->F[rank_of[kids[i]]] = done[i];
        R[v] = dmax(ov, d);
    }
    w->F[rank_of[0]] = R[0];
}

/* binomial: nrank = rank relative to the root (binomial.c's vrank). */
static void gather_binomial(am_work *w) {
    for (int v = 0; v < w->P; v++) w->map[v] = (v + w->c->root) % w->P;
    gather_tree(w, 0);
}

/* SBN's placement (topo/sorted_tree.c, papc_stree_gather_map): nranks by
 * tail(v) = Σ over v's path to the root of (α + span·mβ), ties by depth
 * then nrank; the latest non-root rank takes the smallest tail, and so
 * on; the root stays at nrank 0.  The run uses the agreed α, β; here the
 * row's. */
static void sbn_gather_map(am_work *w) {
    const papc_arrival_case *c = w->c;
    int P = w->P, j = 1;
    double bc = c->beta * c->m;
    am_sort(w); /* first: it uses w->keys too */
    for (int v = 1; v < P; v++) {
        double tail = 0;
        int depth = 0;
        for (int u = v; u > 0; u -= lowbit(u), depth++)
            tail += c->alpha + span_of(u, P) * bc;
        w->keys[v - 1] = (struct am_key){tail, depth, v};
    }
    qsort(w->keys, (size_t)(P - 1), sizeof *w->keys, key_cmp);
    w->map[0] = c->root;
    for (int i = P - 1; i >= 0; i--) {
        int r = w->order[i];
        if (r != c->root) w->map[w->keys[j++ - 1].b] = r;
    }
}

static void gather_sbn(am_work *w) {
    sbn_gather_map(w);
    gather_tree(w, 0);
}

static void gather_bsbn(am_work *w) {
    sbn_gather_map(w);
    gather_tree(w, w->c->bg);
}

/* ---- scatter -------------------------------------------------------------
 * Block m bytes, c = α + mβ per block. */

/* One link shared fairly by equal messages (processor sharing): message i
 * may start at act[i] and needs s seconds of the whole link; n messages in
 * flight each get 1/n of it.  Equal sizes finish in the order they
 * started (ties by index), so one pass over them sorted does it: V is the
 * service each message in flight has had since t = -inf, a message
 * started at V0 is done at V = V0 + s.  done[i] gets the completions.
 * O(n log n); keys is n sort records. */
static void fair_share(int n, const double *act, double s, const int *idx,
                       struct am_key *keys, double *done) {
    for (int i = 0; i < n; i++) keys[i] = (struct am_key){act[i], idx[i], i};
    qsort(keys, (size_t)n, sizeof *keys, key_cmp);
    double t = -INFINITY, V = 0, *V0 = done; /* V0 in done until it ends */
    int head = 0, next = 0; /* in flight: keys[head .. next) */
    while (head < n) {
        double ta = next < n ? keys[next].key : INFINITY;
        int k = next - head;
        double td = k > 0 ? t + (V0[keys[head].b] + s - V) * k : INFINITY;
        if (next < n && ta <= td) {
            if (k > 0) V += (ta - t) / k;
            t = ta;
            V0[keys[next++].b] = V;
        } else {
            V = V0[keys[head].b] + s;
            t = td;
            done[keys[head++].b] = t;
        }
    }
}

/* Linear scatters.  How the root's sends start differs by row; on its
 * link they then share: every block the root has handed on is in flight
 * at once (non-blocking sends, or the kernel holding a blocking send's
 * block), so the link is shared fairly among them (fair_share), and a
 * receiver exits at max(its arrival, its block complete):
 *  - basic_linear (blocking sends in rank order, rendezvous): the send to
 *    i starts when the root has handed on the previous block and i has
 *    arrived, a_i = max(a_prev + h, o_i), a_first = o_root;
 *  - linear_nb and sorted_linear (every send posted at once, a window of
 *    64 taken as unbounded): a_i = max(o_root, o_i), the receivers gate;
 *  - pushed blocks (a message at or under the eager limit, or BSLN with
 *    its background channel, whose receivers' monitors take the blocks):
 *    a_i = o_root, nobody gates.
 * The root exits when its sends are complete, which is when the kernel
 * holds each block (Linux grows a socket's buffers to MiBs): a handing
 * on of h = λα after the block's start, F_root = max_i a_i + h (pushed:
 * o_root + (P-1) h, the blocks handed on one after the other).  Measured
 * on the emulated cluster (sweep 23, P = 8): BSLN's root left 2-3 ms
 * after it came (128 KiB blocks, 7.6 ms of link) and 7-12 ms (1 MiB, 61
 * ms), linear_nb's 0.2-1.3 ms after its late receiver, while the early
 * receivers all finished together at about the link's total (fair
 * share), not one block after another.  The paper's eqs. (9)-(11) are
 * the run times (the last completion) of these with one late rank;
 * the serial recurrence they imply for every rank's exit (the model
 * before the twenty-fourth session) priced early receivers a block
 * apart and the root at the last delivery.
 * Departures: a buffer that does not hold the block (P·m beyond the
 * socket buffers) makes the root wait for the link, priced as not; the
 * root's own copy is left out, as before. */
enum { SCL_BLOCKING, SCL_POSTED, SCL_PUSHED };
static void scatter_linear(am_work *w, int how) {
    const papc_arrival_case *c = w->c;
    int P = w->P, root = c->root, n = 0;
    double s = w->lam * (c->alpha + c->m * c->beta), h = w->lam * c->alpha;
    double *act = w->t1, *done = w->t2, a = w->o[root], last = a;
    int *idx = w->order;
    for (int r = 0; r < P; r++) {
        if (r == root) continue;
        if (how == SCL_BLOCKING) a = dmax(n ? a + h : a, w->o[r]);
        else if (how == SCL_POSTED) a = dmax(w->o[root], w->o[r]);
        act[n] = a;
        idx[n++] = r;
        last = dmax(last, a);
    }
    fair_share(n, act, s, idx, w->keys, done);
    for (int i = 0; i < n; i++) w->F[idx[i]] = dmax(w->o[idx[i]], done[i]);
    w->F[root] = how == SCL_PUSHED ? w->o[root] + n * h : last + h;
}

static void scatter_basic_linear(am_work *w) {
    scatter_linear(w, am_eager(w, w->c->m) ? SCL_PUSHED : SCL_BLOCKING);
}
static void scatter_linear_nb(am_work *w) {
    scatter_linear(w, am_eager(w, w->c->m) ? SCL_PUSHED : SCL_POSTED);
}
static void scatter_bsln(am_work *w) {
    if (w->c->bg) scatter_linear(w, SCL_PUSHED);
    else scatter_linear_nb(w);
}

enum { SC_BLOCKING, SC_READY, SC_BACKGROUND };

/* v's children in the order a scatter holder serves them: the farthest
 * first (binomial.c), and with by_span the largest subtree first, equal
 * spans farthest first (papc_stree_children: only a short last child can
 * break the order of the offsets). */
static int send_order(int v, int P, int by_span, int *kids) {
    int n = children_of(v, P, kids);
    for (int i = 0; i < n / 2; i++) {
        int t = kids[i];
        kids[i] = kids[n - 1 - i];
        kids[n - 1 - i] = t;
    }
    if (by_span)
        for (int i = 1; i < n; i++) {
            int k = kids[i], s = span_of(k, P), j = i;
            for (; j > 0 && span_of(kids[j - 1], P) < s; j--)
                kids[j] = kids[j - 1];
            kids[j] = k;
        }
    return n;
}

/* Tree scatters over the in-order binomial tree: a holder (from G_v, when
 * its subtree's run has come) sends each child its subtree's run, α +
 * span·mβ.  binomial: blocking sends, farthest child first, each waiting
 * for its receiver (eqs. (7), (13)); SBN: all posted at once, served as
 * the children come (ties: largest subtree first); BSBN: to the children's
 * monitors, which forward on at once, so no receiver gates and a relay
 * exits at max(o_v, G_v) (eq. (15)).  A foreground holder exits when its
 * last send is taken; the root always does.  An eager message (span·m <=
 * eager bytes) is not gated by its receiver either, but its data may then
 * land before the receiver arrives: a foreground relay sends from
 * max(o_v, G_v) (G_v >= o_v when its own message was gated). */
static void scatter_tree(am_work *w, int mode) {
    int P = w->P, kids[AM_MAX_KIDS];
    const int *rank_of = w->map;
    double *G = w->t1, ready[AM_MAX_KIDS], cost[AM_MAX_KIDS],
           done[AM_MAX_KIDS];
    G[0] = w->o[rank_of[0]];
    for (int v = 0; v < P; v++) {
        int n = send_order(v, P, mode != SC_BLOCKING, kids);
        double d = mode == SC_BACKGROUND && v != 0
                       ? G[v] : dmax(G[v], w->o[rank_of[v]]);
        for (int i = 0; i < n; i++) {
            double ou = w->o[rank_of[kids[i]]];
            int span = span_of(kids[i], P);
            ready[i] = mode == SC_BACKGROUND || am_eager(w, span * w->c->m)
                           ? d : dmax(d, ou);
            cost[i] = run_cost(w, span);
        }
        if (mode == SC_READY) {
            d = serve_ready(n, ready, cost, d, done);
        } else {
            for (int i = 0; i < n; i++) {
                d = dmax(d, ready[i]) + cost[i];
                done[i] = d;
            }
        }
        for (int i = 0; i < n; i++) G[kids[i]] = done[i];
        double ov = w->o[rank_of[v]];
        w->F[rank_of[v]] = mode == SC_BACKGROUND && v != 0 ? dmax(ov, G[v])
                                                           : dmax(ov, d);
    }
}

static void scatter_binomial(am_work *w) {
    for (int v = 0; v < w->P; v++) w->map[v] = (v + w->c->root) % w->P;
    scatter_tree(w, SC_BLOCKING);
}

/* SBN's placement (papc_stree_scatter_map): nranks in the order they
 * receive (by send step, then by the parent's place in this order; the
 * bit reversal for a power of two), the earliest non-root rank at the
 * first receiver, and so on.  A child of v receives at step(v) + its
 * 1-based place in v's sending order. */
static void sbn_scatter_map(am_work *w) {
    int P = w->P, n = 1, *seq = w->ibuf, *step = w->map, kids[AM_MAX_KIDS];
    seq[0] = 0;
    step[0] = 0;
    for (int t = 1; n < P; t++) {
        int ranked = n;
        for (int i = 0; i < ranked; i++) {
            int k = send_order(seq[i], P, 1, kids), idx = t - step[i];
            if (idx >= 1 && idx <= k) {
                seq[n] = kids[idx - 1];
                step[n++] = t;
            }
        }
    }
    am_sort(w);
    w->map[0] = w->c->root;
    for (int i = 0, j = 1; i < P; i++) {
        int r = w->order[i];
        if (r != w->c->root) w->map[seq[j++]] = r;
    }
}

static void scatter_sbn(am_work *w) {
    sbn_scatter_map(w);
    scatter_tree(w, SC_READY);
}

static void scatter_bsbn(am_work *w) {
    sbn_scatter_map(w);
    scatter_tree(w, w->c->bg ? SC_BACKGROUND : SC_READY);
}

/* ---- reduce ---------------------------------------------------------------
 * Vector m bytes, c = α + mβ, g = mγ_op. */

/* basic_linear: the root receives rank P-1, P-2, ..., 0 in turn (blocking)
 * and reduces each: d = o_root; d = max(d, o_i) + c, F_i = d, d += g.
 * Eager vectors (m <= eager): a sender exits at o_i + c; the root's side
 * is kept, as basic_linear gather's (a bound from above where vectors
 * land before the root takes them; with them landing in readiness order
 * and folded in rank order a later rank could shorten the root's run, no
 * longer one max-plus expression). */
static void reduce_basic_linear(am_work *w) {
    const papc_arrival_case *c = w->c;
    double cost = w->lam * (c->alpha + c->m * c->beta);
    double red = w->lam * c->m * c->gamma_op, d = w->o[c->root];
    int eager = am_eager(w, c->m);
    for (int r = w->P - 1; r >= 0; r--) {
        if (r == c->root) continue;
        d = dmax(d, w->o[r]) + cost;
        w->F[r] = eager ? w->o[r] + cost : d;
        d += red;
    }
    w->F[c->root] = d;
}

/* Segments of a pipelined vector: ceil(m / s), at least 1. */
static double segments(double m, double s) {
    return s <= 0 || m <= s ? 1 : ceil(m / s);
}

/* binomial (tree_engine.c on the in-order binomial tree rooted at the
 * root, segments of m_s bytes, default 8 KiB): a node with k children
 * folds each segment in a stage h = α + sβ + k·sγ_op (the balanced
 * model's stage with γ ≡ 1); it finishes its n_s stages no earlier than
 * n_s·h after its arrival nor one stage after its last child:
 *   T_v = max(o_v + n_s h_v, max_child T_u + h_v),
 * the usual max-plus bound of a pipeline (exact when one of the two
 * dominates).  A child's last send is taken when its parent starts its
 * last stage: F_u = T_parent − h_parent; F_root = T_root.  With eager
 * segments (m_s <= eager: the default 8 KiB under a 64 KiB limit) a
 * child's sends complete without its parent (tree_engine.c: SEND_WINDOW
 * non-blocking sends, each complete at once), so it leaves after its own
 * last stage: F_u = T_u.  Its parent's stages are unchanged (a node folds
 * its n_s segments after its arrival either way).  Departure: a
 * non-commutative op with root != 0 (tree at rank 0, one more message)
 * is modelled as the commutative tree. */
static void reduce_binomial(am_work *w) {
    const papc_arrival_case *c = w->c;
    int P = w->P, kids[AM_MAX_KIDS];
    double seg = c->segsize > 0 ? c->segsize : PAPC_ARRIVAL_DEFAULT_SEGSIZE;
    double ns = segments(c->m, seg), s = c->m / ns;
    double *T = w->t1, *h = w->t2;
    int *rank_of = w->map;
    for (int v = 0; v < P; v++) rank_of[v] = (v + c->root) % P;
    for (int v = P - 1; v >= 0; v--) {
        int n = children_of(v, P, kids);
        h[v] = w->lam * (c->alpha + s * c->beta + n * s * c->gamma_op);
        double t = w->o[rank_of[v]] + ns * h[v];
        for (int i = 0; i < n; i++) t = dmax(t, T[kids[i]] + h[v]);
        T[v] = t;
    }
    w->F[rank_of[0]] = T[0];
    int eager = am_eager(w, s);
    for (int v = 1; v < P; v++) {
        int p = v - lowbit(v);
        w->F[rank_of[v]] = eager ? T[v] : T[p] - h[p];
    }
}

/* Rows whose every rank waits for every other: F_r = max o + T (times λ,
 * so max o + t0), T the row's Hockney critical path below (it only
 * matters for papc_arrival_model_structure: λ T = t0).  ring (reduce and
 * allreduce), segmented_ring, recursive doubling (its folded-out ranks
 * wait for the result), Rabenseifner's allreduce, Radix-k (no fold; its
 * gather's early leavers are not separated).  In the ring the exact
 * max-plus exit of rank r after its last step is max over every rank of
 * (o + the steps between), all 2(P-1) of them: max o + t0; the butterfly
 * and the halving likewise cover every rank in their log2 P steps. */
static void all_wait_for_last(am_work *w, double T) {
    double last = max_offset(w);
    for (int r = 0; r < w->P; r++) w->F[r] = last + w->lam * T;
}

static int pof2_floor(int P) {
    int p = 1;
    while (p * 2 <= P) p *= 2;
    return p;
}

/* ring reduce: the reduce-scatter's P-1 steps, then the root takes the
 * P-1 blocks one after the other.  Eager blocks (m/P <= eager): a non-root
 * leaves when its own block is sent, one transfer after its reduce-scatter,
 * not when the root has collected every block. */
static void reduce_ring(am_work *w) {
    const papc_arrival_case *c = w->c;
    double b = c->m / c->P, n = c->P - 1;
    double rs = n * (c->alpha + b * (c->beta + c->gamma_op));
    all_wait_for_last(w, rs + n * (c->alpha + b * c->beta));
    if (am_eager(w, b)) {
        double last = max_offset(w);
        for (int r = 0; r < w->P; r++)
            if (r != c->root)
                w->F[r] = last + w->lam * (rs + c->alpha + b * c->beta);
    }
}

/* Radix-k with the code's group sizes (8, 4, 2 as often as they divide P,
 * then the prime factors left, src/topo/radix_k.c): K = Σ (k_i - 1)
 * messages in each phase, the volume telescoping to (P-1)/P m. */
static void reduce_radix_k(am_work *w) {
    const papc_arrival_case *c = w->c;
    static const int pref[] = {8, 4, 2};
    int P = c->P, K = 0;
    for (int i = 0; i < 3; i++)
        while (P % pref[i] == 0) {
            K += pref[i] - 1;
            P /= pref[i];
        }
    for (int f = 3; P > 1; f += 2)
        while (P % f == 0) {
            K += f - 1;
            P /= f;
        }
    double v = (c->P - 1.0) / c->P * c->m;
    all_wait_for_last(w, 2 * K * c->alpha + v * (2 * c->beta + c->gamma_op));
}

static void allreduce_ring(am_work *w) {
    const papc_arrival_case *c = w->c;
    double b = c->m / c->P, n = c->P - 1;
    all_wait_for_last(w,
                      2 * n * (c->alpha + b * c->beta) + n * b * c->gamma_op);
}

/* segmented_ring: n_p reduce-scatter phases of pieces of m_s bytes. */
static void allreduce_segmented_ring(am_work *w) {
    const papc_arrival_case *c = w->c;
    double seg = c->segsize > 0 ? c->segsize : PAPC_ARRIVAL_DEFAULT_SEGSIZE;
    double b = c->m / c->P, n = c->P - 1, np = segments(b, seg);
    all_wait_for_last(w, (np + 1) * n * c->alpha +
                             n * b * (2 * c->beta + c->gamma_op));
}

static void allreduce_recursive_doubling(am_work *w) {
    const papc_arrival_case *c = w->c;
    int pof2 = pof2_floor(c->P), fold = pof2 != c->P;
    double L = ceil_log2(pof2);
    all_wait_for_last(w, (L + 2 * fold) * (c->alpha + c->m * c->beta) +
                             (L + fold) * c->m * c->gamma_op);
}

static void allreduce_rabenseifner(am_work *w) {
    const papc_arrival_case *c = w->c;
    int pof2 = pof2_floor(c->P), fold = pof2 != c->P;
    double L = ceil_log2(pof2), f = (pof2 - 1.0) / pof2 * c->m;
    all_wait_for_last(w, 2 * L * c->alpha + f * (2 * c->beta + c->gamma_op) +
                             fold * (2 * (c->alpha + c->m * c->beta) +
                                     c->m * c->gamma_op));
}

/* Rabenseifner's reduce: the fold first (P not a power of two): virtual
 * ranks from root - 1, an even v < 2(P - p') hands its vector to v + 1
 * and is done, F = max(o_v, o_{v+1}) + c; its partner starts after
 * receiving and reducing it, S = max(o_v, o_{v+1}) + c + g; then the
 * survivors' halving and gather synchronise them:
 *   F = max_survivors S + 2 log2(p') α + 2(p'-1)/p' mβ + (p'-1)/p' mγ_op
 * (the row's balanced terms).  An eager vector (m <= eager) leaves the
 * folded-out rank at o_v + c, and lands for its partner then: S =
 * max(o_{v+1}, o_v + c) + g. */
static void reduce_rabenseifner(am_work *w) {
    const papc_arrival_case *c = w->c;
    int P = w->P, pof2 = pof2_floor(P), shift = (c->root - 1 + P) % P;
    int rem = P - pof2;
    double L = ceil_log2(pof2), f = (pof2 - 1.0) / pof2;
    double cost = w->lam * (c->alpha + c->m * c->beta);
    double red = w->lam * c->m * c->gamma_op, start = -INFINITY;
    double rest = w->lam * (2 * L * c->alpha + 2 * f * c->m * c->beta +
                            f * c->m * c->gamma_op);
    for (int v = 0; v < P; v++) {
        int r = (v + shift) % P;
        if (v < 2 * rem && v % 2 == 0) continue; /* folded out: see below */
        double s = w->o[r];
        if (v < 2 * rem) {
            int q = (v - 1 + shift) % P;
            if (am_eager(w, c->m)) {
                w->F[q] = w->o[q] + cost;
                s = dmax(s, w->F[q]) + red;
            } else {
                s = dmax(s, w->o[q]) + cost + red;
                w->F[q] = dmax(w->o[q], w->o[r]) + cost;
            }
        }
        start = dmax(start, s);
    }
    for (int v = 0; v < P; v++)
        if (!(v < 2 * rem && v % 2 == 0)) w->F[(v + shift) % P] = start + rest;
}

/* Clairvoyant's price, two ways.  Up to PAPC_ARRIVAL_CLV_DATAFLOW_CELLS
 * (process, segment) cells: the executor's own schedule for the offsets,
 * run as its dataflow (clv_dataflow; clairvoyant/dataflow.h), which knows
 * who holds partial sums until whom comes.  The closed form below, used
 * above that size, does not: held against 6 held-out iterations of each
 * setting on the emulated cluster (8 hosts, session 23), it priced
 * rand-late 8 MiB at 200 ms at 0.81 x the measured mean (the dataflow:
 * 0.92 x; 1 MiB: 0.62 and 0.86 x), because in rand-late the root comes
 * late too and the early processes wait for later ones with their
 * partial sums instead of leaving N rounds after their arrival.
 *
 * The closed form, the schedule's length (clairvoyant-reduce.md, Sect. 2
 * and 5):
 * N segments, rounds of d = α + (m/N)(β + γ_op); a process sends one
 * segment a round, so no process is done before N rounds after its
 * arrival, and the processes that arrive together need ceil(log2 of
 * their number) more rounds to merge (the balanced schedule takes N +
 * ceil(log2 P) - 1 rounds, the row's model).  With the arrivals sorted,
 * o_(0) <= ... <= o_(P-1), the ones from o_(j) on are P - j processes
 * that meet the early ones' merged sum (one more party) -- so
 *   F_root = max_j o_(j) + (N + ceil(log2 n_j) - 1) d,
 *   n_0 = P,  n_j = P - j + 1,
 * and a non-root exits after its last send, F_i = o_i + N d.  A late
 * process's tail is then N rounds, as the paper describes ("about N
 * rounds follow its arrival"); the test checks F_root against the rounds
 * of papc_clv_fast.  N: the run's default, sqrt(L m (β+γ)/α) under the
 * arrival runtime's default model, at least m / 64512, at most 4096 and
 * m (the row's balanced model counts the same; the knobs PAPC_CLV_SEGMENTS
 * and an explicit PAPC_SEGSIZE, which both read, are not modelled: m_s
 * cannot tell an explicit segment size from the default one). */
static double clv_segments(const papc_arrival_case *c) {
    double L = ceil_log2(c->P);
    double n = sqrt(L * c->m * (PAPC_ARRIVAL_DEFAULT_BETA +
                                PAPC_ARRIVAL_DEFAULT_GAMMA) /
                    PAPC_ARRIVAL_DEFAULT_ALPHA);
    if (n < c->m / PAPC_ARRIVAL_MAX_EAGER_SEGMENT)
        n = c->m / PAPC_ARRIVAL_MAX_EAGER_SEGMENT;
    if (n > 4096) n = 4096;
    if (n > c->m) n = c->m;
    return n < 1 ? 1 : n;
}

double papc_clv_model_length(int P, double N, const double *o, double d) {
    double fin = -INFINITY;
    for (int j = 0; j < P; j++) {
        int n = j == 0 ? P : P - j + 1;
        fin = dmax(fin, o[j] + (N + ceil_log2(n) - 1) * d);
    }
    return fin;
}

/* Whether the case carries a plan (papc_arrival_case.plan_*). */
static int has_plan(const papc_arrival_case *c) {
    return c->plan_segments >= 1 && c->plan_round > 0;
}

/* Returns F_root; non-roots' exits in w->F (the root's too).  With a
 * plan (issue 16, s10): the executor's N and planned round, scaled by
 * lambda like every cost here (t0 then counts the plan's rounds:
 * papc_arrival_planned_t0, so lambda is about 1). */
/* The segments and the scaled round the Clairvoyant rows count: the
 * case's plan, else the default N and its round. */
static void clv_terms(const am_work *w, double *N, double *d) {
    const papc_arrival_case *c = w->c;
    *N = has_plan(c) ? c->plan_segments : clv_segments(c);
    *d = w->lam * (has_plan(c) ? c->plan_round
                               : c->alpha + c->m / *N *
                                                (c->beta + c->gamma_op));
}

/* The executor's schedule run as its dataflow (clairvoyant/dataflow.h):
 * generated as the executor generates it, from the offsets in whole
 * planned rounds (papc_clv_quantise with the unscaled round) on N
 * rounded to whole segments, each a transfer of λ(α + sβ) and a fold of λsγ (with a plan,
 * its round split in that ratio).  0, or -1 (too large, no memory: the
 * caller falls back on the closed form). */
static int clv_dataflow(am_work *w, int root, double N, double d) {
    const papc_arrival_case *c = w->c;
    int P = w->P, n = (int)lround(N);
    if (n < 1) n = 1;
    if ((double)P * n > PAPC_ARRIVAL_CLV_DATAFLOW_CELLS) return -1;
    double s = c->m / n, link = c->alpha + s * c->beta;
    double share = link / (link + s * c->gamma_op);
    if (!(share >= 0 && share <= 1)) share = 1;
    int32_t *q = malloc((size_t)P * sizeof *q);
    papc_clv_schedule sch;
    memset(&sch, 0, sizeof sch);
    int rc = q && papc_clv_quantise(w->o, P, d / w->lam, q) == 0 &&
                     papc_clv_fast_quantised(q, P, n, root, &sch) == 0
                 ? papc_clv_dataflow_exits(&sch, w->o, d * share,
                                           d * (1 - share), w->F)
                 : -1;
    papc_clv_free(&sch);
    free(q);
    return rc;
}

static double clv_reduce(am_work *w, int root) {
    int P = w->P;
    double N, d;
    clv_terms(w, &N, &d);
    if (w->lam > 0 && clv_dataflow(w, root, N, d) == 0) return w->F[root];
    am_sort(w);
    for (int j = 0; j < P; j++) w->t2[j] = w->o[w->order[j]];
    double fin = papc_clv_model_length(P, N, w->t2, d);
    for (int r = 0; r < P; r++) w->F[r] = w->o[r] + N * d;
    w->F[root] = fin;
    return fin;
}

static void reduce_clairvoyant(am_work *w) { clv_reduce(w, w->c->root); }

/* clairvoyant_node (src/coll/reduce/clairvoyant_node.c, its plan
 * src/clairvoyant/node.c): two Clairvoyant schedules on the same N
 * segments and round d (the case's plan: papc_clv_plan_for on the busy β
 * over the largest node's ranks, papc_clv_node_beta).
 *  - Stage 1, node k's n_k ranks to its leader (the root on the root's
 *    node, else the node's lowest rank): a non-leader exits after its N
 *    sends, F_i = o_i + N d, as a non-root of plain Clairvoyant.
 *  - Stage 2, the G leaders to the root.  The plan has leader k arrive
 *    when its node's sum is complete, ready_k = max(min o + (N + L_k - 1)
 *    d, max o + N d) over the node's offsets, L_k = ceil(log2 n_k)
 *    (papc_clv_node_ready; a node of one rank: its arrival).  The
 *    executor runs on data, not rounds (clairvoyant.c: a leader's send of
 *    segment j waits only for its stage-1 receives of j), so the node's
 *    sum leaves as a stream of one segment a round that starts N rounds
 *    before it is complete: in stage 2 leader k is a process that arrived
 *    at a_k = ready_k - N d = max(min o + (L_k - 1) d, max o) -- o_k for
 *    a node of one rank, L_k = 0 -- and plain Clairvoyant's model takes
 *    over: F_root = papc_clv_model_length of the sorted a_k, a leader
 *    exits after its last send, a_k + N d.  Counting the leaders from
 *    ready_k instead (each sends its N segments after its node's last)
 *    puts two N d in every late rank's tail: 3.9 ms at Fig. 10's setting
 *    at P = 128 where SMPI measured 3.1-3.25 ms after the last arrival,
 *    and a balanced call at 2N + L_n + L_G - 2 rounds against the
 *    executor's N + L - 1 or so (docs/scale.md, "A Clairvoyant that
 *    reduces within each node first").
 * Balanced: every a_k = (L_n - 1) d and the root at (N + L_n + L_G - 2)
 * d, at most plain Clairvoyant's (N + L - 1) d.  No grouping (node
 * NULL), one rank per node or one node: plain Clairvoyant's exits
 * exactly -- the executor's schedule is then plain Clairvoyant's (node.h)
 * and with one node the leader is the root, whose exit is plain
 * Clairvoyant's length over all offsets (stage 2 is empty; the two
 * extremes of ready_k would round a node's finer length).
 * Departures: the stages share the node's link (its loopback carries
 * stage 1, its uplink stage 2, both at d); where nodes differ in size
 * the plan orders the leaders by ready_k, the model by a_k (the same
 * order unless nodes of one rank mix with larger ones). */
static void reduce_clairvoyant_node(am_work *w) {
    const papc_arrival_case *c = w->c;
    if (!c->node) {
        clv_reduce(w, c->root);
        return;
    }
    int P = w->P, G = 0;
    double N, d, *a = w->t1, *sorted = w->t2;
    clv_terms(w, &N, &d);
    /* nodes: ranks by (label, rank); a node's first is its lowest rank */
    for (int r = 0; r < P; r++) w->keys[r] = (struct am_key){c->node[r], r, 0};
    qsort(w->keys, (size_t)P, sizeof *w->keys, key_cmp);
    for (int i = 0, j; i < P; i = j, G++) {
        int leader = w->keys[i].a;
        double lo = w->o[leader], hi = lo;
        for (j = i; j < P && w->keys[j].key == w->keys[i].key; j++) {
            int r = w->keys[j].a;
            lo = w->o[r] < lo ? w->o[r] : lo;
            hi = dmax(hi, w->o[r]);
            if (r == c->root) leader = r;
            w->F[r] = w->o[r] + N * d;
        }
        a[G] = dmax(lo + (ceil_log2(j - i) - 1) * d, hi);
        w->F[leader] = a[G] + N * d;
    }
    if (G == 1 || G == P) {
        clv_reduce(w, c->root);
        return;
    }
    for (int k = 0; k < G; k++) w->keys[k] = (struct am_key){a[k], k, 0};
    qsort(w->keys, (size_t)G, sizeof *w->keys, key_cmp);
    for (int k = 0; k < G; k++) sorted[k] = w->keys[k].key;
    w->F[c->root] = papc_clv_model_length(G, N, sorted, d);
}

/* ---- allreduce ---------------------------------------------------------- */

/* basic_linear: reduce basic_linear to rank 0 (ranks P-1 .. 1 in turn),
 * then rank 0 sends the result to ranks 1 .. P-1 (bcast basic_linear; all
 * have arrived by then): F_i = F_reduce + i·c, F_0 = F_reduce + (P-1)c. */
static void allreduce_basic_linear(am_work *w) {
    const papc_arrival_case *c = w->c;
    double cost = w->lam * (c->alpha + c->m * c->beta);
    double red = w->lam * c->m * c->gamma_op, d = w->o[0];
    for (int r = w->P - 1; r >= 1; r--) d = dmax(d, w->o[r]) + cost + red;
    for (int r = 1; r < w->P; r++) {
        d += cost;
        w->F[r] = d;
    }
    w->F[0] = d;
}

/* SLT segments (papc_slt_segments under the default model, as the row's
 * balanced model counts them): sqrt((2P-3) m (β+γ)/α), at least P and
 * m / 64512, at most 65536 and m. */
static double slt_segments(const papc_arrival_case *c) {
    double P = c->P, m = c->m;
    double S = sqrt((2 * P - 3) * m *
                    (PAPC_ARRIVAL_DEFAULT_BETA + PAPC_ARRIVAL_DEFAULT_GAMMA) /
                    PAPC_ARRIVAL_DEFAULT_ALPHA);
    if (!(S < 65536.0)) S = 65536.0;
    if (S < P) S = P;
    double e = m / PAPC_ARRIVAL_MAX_EAGER_SEGMENT;
    if (e > 65536.0) e = 65536.0;
    if (S < e) S = e;
    if (S > m) S = m;
    return S < 1 ? 1 : ceil(S);
}

void papc_slt_model_exits(int P, int S, const double *o, double cr, double co,
                          double *F) {
    /* A = R(P-1, S-1): the last position's reduce loop; best = the
     * running max of o_j - j cr + cr over positions j >= 1. */
    double A = o[0] + (P + S - 2.0) * cr, best = -INFINITY;
    for (int j = 1; j < P; j++)
        A = dmax(A, o[j] + (P - 1.0 - j + S) * cr);
    for (int j = 0; j < P; j++) {
        double Bj = o[0];
        if (j >= 1) {
            best = dmax(best, o[j] - j * cr + cr);
            Bj = dmax(o[0] + (j + S - 1.0) * cr, best + (j + S - 1.0) * cr);
        }
        F[j] = j == P - 1 ? A : dmax(A + (j + 1.0) * co, Bj + S * co);
    }
}

/* sorted_linear_tree (Fig. 5, papc_slt_schedule): the chain in offset
 * order, S segments of s = m/S bytes (small: they go eagerly), a reduce
 * hop cr = α + s(β + γ_op), an override hop co = α + sβ.  Position j's
 * reduce loop is R(j,k) = max(R(j,k-1), R(j-1,k), o_j) + cr (R(0,k) = o_0:
 * position 0 only sends), its override loop O(j,k) = max(O(j,k-1),
 * O(j-1,k)) + co after its own reduce loop (O(j,-1) = R(j,S-1)), with
 * O(-1,k) = R(P-1,k).  Their longest paths give, for cr >= co,
 *   A   = R(P-1,S-1) = max_j o_j + (P - 1 - j + S - [j = 0]) cr,
 *   B_j = R(j,S-1)   = max_{i<=j} o_i + (j - i + S - [i = 0]) cr,
 *   F_j = max(A + (j+1) co, B_j + S co)  (j < P-1),  F_{P-1} = A,
 * checked against a simulation of the schedule in the unit test.  The
 * paper's "D + (P + S - 1) stage times" for a last process late by D is
 * A + (P-1)co.  The balanced run time is F_{P-2}, about (P + S - 2)cr +
 * S co: a process forwards the results only after its own reduce loop,
 * which the row's balanced model ((P + S - 2)cr + (P - 1)co) leaves out,
 * so λ < 1 for SLT (measured on the emulated cluster, docs/performance.md:
 * SLT 234.6 ms against the ring's 201.2 at 0 ms, 8 MiB, P = 8). */
static void allreduce_slt(am_work *w) {
    const papc_arrival_case *c = w->c;
    int P = w->P, S = (int)slt_segments(c);
    double s = c->m / S;
    double cr = w->lam * (c->alpha + s * (c->beta + c->gamma_op));
    double co = w->lam * (c->alpha + s * c->beta);
    double *o = w->t1, *F = w->t2;
    am_sort(w);
    for (int j = 0; j < P; j++) o[j] = w->o[w->order[j]];
    papc_slt_model_exits(P, S, o, cr, co, F);
    for (int j = 0; j < P; j++) w->F[w->order[j]] = F[j];
}

void papc_prr_published_presteps(int P, const double *a, double tau, int *k) {
    for (int i = 0; i < P; i++) k[i] = 0;
    if (P <= 0 || !(tau > 0) || !isfinite(tau)) return;
    for (int i = P - 2; i >= 0; i--)
        k[i] = k[i + 1] + (a[P - 1] - a[i + 1] >= (k[i + 1] + 1.0) * tau);
}

void papc_prr_model_exits(int P, const double *o, const int *k, double cr,
                          double co, double *F) {
    if (P <= 0) return;
    double X = o[0];
    for (int i = 1; i < P; i++) X = dmax(X, o[i] + (k[i - 1] - k[0]) * cr);
    for (int j = 0; j < P; j++) {
        int q = j + 2, kq = q < P ? k[q] : q == P ? 0 : k[q - P];
        F[j] = X + (P - 1.0 + k[0]) * cr + (P - 1.0 + k[0] - kq) * co;
    }
}

/* pre_reduced_ring (Fig. 7, papc_prr_schedule; pre_reduced_ring.c): the
 * ring in offset order over P segments of s = m/P bytes, process i (by
 * position) k_i pre-steps ahead.  pre_reduced_ring_published: k from the
 * published rule (Fig. 7 lines 1-6, papc_prr_presteps) with τ = α +
 * s(β + γ_op) (the run takes the agreed model's; here the row's).
 * pre_reduced_ring (issue 15's rule, papc_prr_presteps_model) picks k = 0
 * unless its own model, which lets a send's eager part move before the
 * receive is posted, predicts a clear gain from a staircase; under this
 * rendezvous model no k beats 0 (below), so the row is modelled with
 * k = 0: the ring in arrival order.  Segments this large go by rendezvous:
 * a receive-and-reduce costs cr = α + s(β + γ_op), a receive in place co
 * = α + sβ, a send completes when taken, and WAIT_SENDS holds a process
 * until its successor took its reduce loop.  The exits of that schedule
 * are, for cr >= co (a closed form found on, and checked against, a
 * simulation of papc_prr_schedule for every valid k at P = 6, random
 * valid k up to P = 16 and random offsets; the unit test repeats the
 * check on papc_prr_schedule itself):
 *   X   = max_i o_i + (k_{i-1} - k_0) cr          (k_{-1} = k_0)
 *   F_j = X + (P - 1 + k_0) cr + (P - 1 + k_0 - k_{j+2}) co
 * (k_P = 0, k_{P+1} = k_1).  With k = 0 this is the ring's max o +
 * (P-1)(cr + co).  Since k_0 >= k_i for every i, F_j >= that for ANY
 * valid k: every pre-step lengthens some chain (the last arriver's
 * predecessor's pre-step its own reduce chain, k_0 the override chains),
 * so under this model no pre-step rule beats the ring and the best k is 0
 * -- as measured for the published rule (issue 15: ē 236.7 against 223.0
 * ms at 50 ms). */
static void allreduce_prr(am_work *w) {
    const papc_arrival_case *c = w->c;
    int P = w->P;
    double s = c->m / P;
    double tau = c->alpha + s * (c->beta + c->gamma_op);
    double cr = w->lam * tau, co = w->lam * (c->alpha + s * c->beta);
    double *o = w->t1, *F = w->t2;
    am_sort(w);
    for (int j = 0; j < P; j++) o[j] = w->o[w->order[j]];
    if (w->published) papc_prr_published_presteps(P, o, tau, w->ibuf);
    else for (int j = 0; j < P; j++) w->ibuf[j] = 0;
    papc_prr_model_exits(P, o, w->ibuf, cr, co, F);
    for (int j = 0; j < P; j++) w->F[w->order[j]] = F[j];
}

/* pre_reduced_ring_published: the paper's k (Fig. 7 lines 1-6). */
static void allreduce_prr_published(am_work *w) {
    w->published = 1;
    allreduce_prr(w);
}

/* clairvoyant: the Clairvoyant reduce to r0, the earliest rank (as the
 * run: the agreed order's first), then a segmented binomial broadcast
 * from r0 ((n_s + ceil(log2 P) - 1)(α + sβ), s = m_s, default 8 KiB) that
 * every rank waits for: F_r = F_reduce + the broadcast. */
static void allreduce_clairvoyant(am_work *w) {
    const papc_arrival_case *c = w->c;
    am_sort(w);
    double fin = clv_reduce(w, w->order[0]);
    double seg = c->segsize > 0 ? c->segsize : PAPC_ARRIVAL_DEFAULT_SEGSIZE;
    double ns = segments(c->m, seg), s = c->m / ns;
    double bc = w->lam * (ns + ceil_log2(w->P) - 1) * (c->alpha + s * c->beta);
    for (int r = 0; r < w->P; r++) w->F[r] = fin + bc;
}

/* ---- the table ---------------------------------------------------------- */

typedef struct am_row {
    const char *collective, *name, *aliases;
    am_exits_fn exits;
    int planned;   /* takes the executor's plan (papc_arrival_row_planned) */
    int nodes;     /* reads the case's grouping (papc_arrival_row_nodes) */
} am_row;

static const am_row am_rows[] = {
    {"gather", "basic_linear", "linear lin", gather_basic_linear, 0, 0},
    {"gather", "linear_sync", "ls", gather_linear_sync, 0, 0},
    {"gather", "binomial", "bnom", gather_binomial, 0, 0},
    {"gather", "sorted_linear_sync", "sls", gather_sls, 0, 0},
    {"gather", "sorted_binomial", "sbn", gather_sbn, 0, 0},
    {"gather", "background_sorted_linear_sync", "bsls", gather_bsls, 0, 0},
    {"gather", "background_sorted_binomial", "bsbn", gather_bsbn, 0, 0},
    {"scatter", "basic_linear", "linear lin", scatter_basic_linear, 0, 0},
    {"scatter", "binomial", "bnom", scatter_binomial, 0, 0},
    {"scatter", "linear_nb", "lnb", scatter_linear_nb, 0, 0},
    /* SLIN: linear_nb's model (its posting order does not matter when
     * the blocks share the link; they differ in their balanced models) */
    {"scatter", "sorted_linear", "slin sln", scatter_linear_nb, 0, 0},
    {"scatter", "sorted_binomial", "sbn", scatter_sbn, 0, 0},
    {"scatter", "background_sorted_linear", "bsln bslin", scatter_bsln, 0, 0},
    {"scatter", "background_sorted_binomial", "bsbn", scatter_bsbn, 0, 0},
    {"reduce", "basic_linear", "linear lin", reduce_basic_linear, 0, 0},
    {"reduce", "binomial", "bnom", reduce_binomial, 0, 0},
    {"reduce", "rabenseifner", "reduce_scatter_gather", reduce_rabenseifner,
     0, 0},
    {"reduce", "ring", "", reduce_ring, 0, 0},
    {"reduce", "radix_k", "rxx radixk", reduce_radix_k, 0, 0},
    {"reduce", "clairvoyant", "clv", reduce_clairvoyant, 1, 0},
    {"reduce", "clairvoyant_node", "clvn clv_node", reduce_clairvoyant_node,
     1, 1},
    {"allreduce", "basic_linear", "linear lin", allreduce_basic_linear, 0, 0},
    {"allreduce", "recursive_doubling", "rd butterfly",
     allreduce_recursive_doubling, 0, 0},
    {"allreduce", "ring", "", allreduce_ring, 0, 0},
    {"allreduce", "segmented_ring", "sring", allreduce_segmented_ring, 0, 0},
    {"allreduce", "rabenseifner", "reduce_scatter_allgather",
     allreduce_rabenseifner, 0, 0},
    {"allreduce", "sorted_linear_tree", "slt", allreduce_slt, 0, 0},
    {"allreduce", "pre_reduced_ring", "prr", allreduce_prr, 0, 0},
    {"allreduce", "pre_reduced_ring_published", "prr_paper",
     allreduce_prr_published, 0, 0},
    {"allreduce", "clairvoyant", "clv", allreduce_clairvoyant, 1, 0},
};

/* 1 when word is one of the space-separated words of list. */
static int in_list(const char *list, const char *word) {
    size_t n = strlen(word);
    for (const char *p = list; *p;) {
        while (*p == ' ') p++;
        const char *e = p;
        while (*e && *e != ' ') e++;
        if ((size_t)(e - p) == n && n > 0 && strncmp(p, word, n) == 0)
            return 1;
        p = e;
    }
    return 0;
}

static const am_row *find_row(const char *coll, const char *name) {
    if (!coll || !name) return NULL;
    for (size_t i = 0; i < sizeof am_rows / sizeof *am_rows; i++)
        if (strcmp(am_rows[i].collective, coll) == 0 &&
            (strcmp(am_rows[i].name, name) == 0 ||
             in_list(am_rows[i].aliases, name)))
            return &am_rows[i];
    return NULL;
}

/* ---- the entry points --------------------------------------------------- */

static int valid_case(const papc_arrival_case *c, const am_row **row) {
    if (!c || c->P < 1 || !c->offset || !(c->t0 > 0) || !isfinite(c->t0))
        return 0;
    if (!(c->m >= 0) || !isfinite(c->m) || !(c->alpha >= 0) ||
        !isfinite(c->alpha) || !(c->beta >= 0) || !isfinite(c->beta) ||
        !(c->gamma_op >= 0) || !isfinite(c->gamma_op) ||
        !(c->segsize >= 0) || !isfinite(c->segsize) ||
        !(c->plan_segments >= 0) || !isfinite(c->plan_segments) ||
        !(c->plan_round >= 0) || !isfinite(c->plan_round) ||
        !(c->eager >= 0))   /* +inf: every message eager */
        return 0;
    *row = find_row(c->collective, c->name);
    if (!*row) return 0;
    if (strcmp(c->collective, "allreduce") != 0 &&
        (c->root < 0 || c->root >= c->P))
        return 0;
    for (int r = 0; r < c->P; r++)
        if (!(c->offset[r] >= 0) || !isfinite(c->offset[r])) return 0;
    return 1;
}

/* One heap block for the work of a case: F, the zero offsets, t1, t2 (P
 * doubles each), the sort records, order, map, ibuf (P ints each).  The
 * offsets start as zeros (the balanced structure, λ = 1).  NULL when out
 * of memory. */
static void *work_alloc(const papc_arrival_case *c, am_work *w) {
    int P = c->P;
    size_t nd = 4 * (size_t)P;
    char *mem = malloc(nd * sizeof(double) +
                       (size_t)P * (sizeof(struct am_key) + 3 * sizeof(int)));
    if (!mem) return NULL;
    double *F = (double *)mem, *z = F + P;
    for (int r = 0; r < P; r++) z[r] = 0;
    *w = (am_work){c, P, z, 1, 1.0, F, NULL, NULL, NULL, z + P, z + 2 * P,
                   (struct am_key *)(mem + nd * sizeof(double)), 0};
    w->order = (int *)(w->keys + P);
    w->map = w->order + P;
    w->ibuf = w->map + P;
    return mem;
}

/* The balanced structure's run time max F(0; 1) and mean exit, in *R0
 * and *mean. */
static void balanced(const am_row *row, am_work *w, double *R0, double *mean) {
    row->exits(w);
    double mx = 0, sum = 0;
    for (int r = 0; r < w->P; r++) {
        mx = dmax(mx, w->F[r]);
        sum += w->F[r];
    }
    *R0 = mx;
    *mean = sum / w->P;
}

/* Fills out_F (P doubles, may be NULL) with the implied exits; returns ē,
 * or -1. */
static double evaluate(const papc_arrival_case *c, double *out_F) {
    const am_row *row;
    if (!valid_case(c, &row)) return -1;
    int P = c->P, zero = 1;
    for (int r = 0; r < P && zero; r++) zero = c->offset[r] == 0;
    if (P == 1) {
        if (out_F) out_F[0] = c->t0;
        return c->t0;
    }
    if (zero && !out_F) return c->t0;
    am_work w;
    void *mem = work_alloc(c, &w);
    if (!mem) return -1;
    /* λ from the balanced structure; at offsets 0 every exit is a sum of
     * costs, so its mean scales by λ too. */
    double R0, e0, result = -1;
    balanced(row, &w, &R0, &e0);
    if (R0 > 0 && isfinite(R0)) {
        double lam = c->t0 / R0;
        e0 *= lam;
        w.o = c->offset;
        w.zero = 0;
        w.lam = lam;
        row->exits(&w);
        double e = 0;
        for (int r = 0; r < P; r++) e += w.F[r] - c->offset[r];
        e /= P;
        /* exactly t0 when nothing is late (e - e0 is rounding there) */
        result = zero ? c->t0 : c->t0 + (e - e0);
        if (out_F)
            for (int r = 0; r < P; r++) out_F[r] = w.F[r] + (c->t0 - e0);
        if (!isfinite(result) || result < 0) result = -1;
    }
    free(mem);
    return result;
}

double papc_arrival_model_mean(const papc_arrival_case *c) {
    return evaluate(c, NULL);
}

double papc_arrival_wait_floor(const char *collective, int P, int root,
                               const double *offset) {
    if (!collective || !offset || P < 1 || root < 0 || root >= P) return -1;
    double last = 0, other_last = 0, sum = 0;
    for (int r = 0; r < P; r++) {
        last = dmax(last, offset[r]);
        if (r != root) other_last = dmax(other_last, offset[r]);
    }
    if (!strcmp(collective, "allreduce")) {
        for (int r = 0; r < P; r++) sum += last - offset[r];
    } else if (!strcmp(collective, "reduce") ||
               !strcmp(collective, "gather")) {
        sum = P > 1 ? dmax(0, other_last - offset[root]) : 0;
    } else if (!strcmp(collective, "scatter") ||
               !strcmp(collective, "bcast")) {
        for (int r = 0; r < P; r++)
            if (r != root) sum += dmax(0, offset[root] - offset[r]);
    } else {
        return -1;
    }
    return sum / P;
}

double papc_arrival_model_structure(const papc_arrival_case *c) {
    const am_row *row;
    if (!valid_case(c, &row)) return -1;
    if (c->P == 1) return 0;
    am_work w;
    void *mem = work_alloc(c, &w);
    if (!mem) return -1;
    double R0, mean;
    balanced(row, &w, &R0, &mean);
    free(mem);
    return R0;
}

int papc_arrival_row_planned(const char *collective, const char *name) {
    const am_row *row = find_row(collective, name);
    return row && row->planned;
}

int papc_arrival_row_nodes(const char *collective, const char *name) {
    const am_row *row = find_row(collective, name);
    return row && row->nodes;
}

static int int_cmp(const void *x, const void *y) {
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

int papc_arrival_node_shape(int P, const int *label, int *groups,
                            int *largest) {
    *groups = *largest = 0;
    if (P < 1) return -1;
    if (!label) {
        *groups = P;
        *largest = 1;
        return 0;
    }
    int *s = malloc((size_t)P * sizeof *s);
    if (!s) return -1;
    memcpy(s, label, (size_t)P * sizeof *s);
    qsort(s, (size_t)P, sizeof *s, int_cmp);
    for (int i = 0, j; i < P; i = j) {
        for (j = i; j < P && s[j] == s[i]; j++) {}
        ++*groups;
        if (j - i > *largest) *largest = j - i;
    }
    free(s);
    return 0;
}

double papc_arrival_planned_t0(const papc_arrival_case *c) {
    const am_row *row;
    if (!valid_case(c, &row)) return -1;
    if (!row->planned || !has_plan(c) || c->P == 1) return c->t0;
    papc_arrival_case model = *c;
    model.plan_segments = model.plan_round = 0;
    double r_model = papc_arrival_model_structure(&model);
    double r_plan = papc_arrival_model_structure(c);
    if (!(r_model >= 0) || !(r_plan >= 0)) return -1;
    double t0 = c->t0 - r_model + r_plan;
    return t0 > 0 && isfinite(t0) ? t0 : -1;
}

/* ---- Clairvoyant's plan ------------------------------------------------ */

int papc_clv_round_plan(const papc_clv_plan_in *in, papc_clv_round *out) {
    if (!out) return -1;
    memset(out, 0, sizeof *out);
    if (!in || in->P < 1 || !(in->count >= 1) || !isfinite(in->count) ||
        !(in->elem >= 0) || !isfinite(in->elem))
        return -1;
    double count = floor(in->count), bytes = count * in->elem;
    double N = in->segments >= 1 && in->segments <= 4096
                   ? floor(in->segments) : 0;
    if (!N && !in->segsize_set) {
        /* the model's N (was model_segments in clairvoyant.c) */
        double b = in->beta + in->gamma, al = in->alpha;
        double L = ceil_log2(in->P);
        if (al > 0 && b > 0 && isfinite(al) && isfinite(b)) {
            double n = sqrt(L * bytes * b / al);
            if (isfinite(n)) {
                if (n < 1) n = 1;
                if (in->eager > 0 && n < ceil(bytes / in->eager))
                    n = ceil(bytes / in->eager);
                if (n > 4096) n = 4096;
                N = (double)lround(n);
            }
        }
    }
    double elems = N >= 1 ? ceil(count / N) : floor(in->seg_elems);
    if (!(elems >= 1) || elems > count) elems = count;
    out->elems = elems;
    out->N = (int)ceil(count / elems);
    out->seg = elems * in->elem;
    double d = in->alpha + out->seg * (in->beta + in->gamma);
    if (!isfinite(d) || d <= 0) d = 1e-6; /* any positive length will do */
    out->d = d;
    double slack = in->slack >= 1 && in->slack <= 64 ? in->slack : 1;
    out->d_plan = in->round > 0 && isfinite(in->round) ? in->round
                                                        : d * slack;
    return 0;
}

double papc_clv_node_beta(double beta_busy, int groups, int largest) {
    return groups > 1 && largest > 1 ? beta_busy / largest : beta_busy;
}

int papc_arrival_model_exits(const papc_arrival_case *c, double *F) {
    if (!F) return -1;
    return evaluate(c, F) < 0 ? -1 : 0;
}

int papc_arrival_priced(double spread, double t0) {
    return spread >= PAPC_ARRIVAL_SPREAD_FLOOR &&
           !(spread < PAPC_ARRIVAL_SPREAD_MIN * t0);
}

int papc_arrival_pick(const papc_arrival_candidate *c, int n, int base,
                      double spread, double wait) {
    if (!c || n <= 0 || base < 0 || base >= n) return base;
    if (!papc_arrival_priced(spread, c[base].t0)) return base;
    int classic = base, aware = -1;
    for (int i = 0; i < n; i++) {
        if (c[i].aware) {
            if (aware < 0 || c[i].mean < c[aware].mean) aware = i;
        } else if (c[i].mean < c[classic].mean) {
            classic = i;
        }
    }
    /* A wait above a price is no floor of it (prices of other views):
     * then the margin is of the whole ē, as without a wait. */
    double w = wait > 0 && isfinite(wait) ? wait : 0;
    if (aware >= 0 && (w >= c[aware].mean || w >= c[classic].mean)) w = 0;
    if (aware >= 0 &&
        c[aware].mean - w < (1 - PAPC_ARRIVAL_MARGIN) * (c[classic].mean - w))
        return aware;
    return classic;
}

/* ---- prices over several views ---------------------------------------- */

void papc_price_ring_keep(papc_price_ring *ring, unsigned long g,
                          const double *now) {
    if (!ring || !ring->price || !ring->gen || ring->slots <= 0 || g == 0)
        return;
    int slot = (int)(g % (unsigned long)ring->slots);
    if (ring->gen[slot] == g) return; /* a second choice at the same view */
    memcpy(ring->price + (size_t)slot * (size_t)ring->rows, now,
           (size_t)ring->rows * sizeof *now);
    ring->gen[slot] = g;
}

int papc_price_ring_mean(const papc_price_ring *ring, unsigned long g, int k,
                         const double *now, double *mean) {
    int rows = ring ? ring->rows : 0, span = 1;
    if (rows > 0) memcpy(mean, now, (size_t)rows * sizeof *mean);
    if (!ring || !ring->price || !ring->gen || k <= 1) return 1;
    for (int i = 0; i < rows; i++) {
        if (!isfinite(now[i])) continue;
        double sum = 0;
        int n = 0;
        for (int j = 0; j < ring->slots; j++) {
            unsigned long gj = ring->gen[j];
            double v = ring->price[(size_t)j * (size_t)rows + (size_t)i];
            if (gj == 0 || gj > g || gj + (unsigned long)k <= g ||
                !isfinite(v))
                continue;
            sum += v;
            n++;
        }
        if (n > 0) mean[i] = sum / n;
        if (n > span) span = n;
    }
    return span;
}

int papc_price_ring_jump(const papc_price_ring *ring, unsigned long before,
                         int k, int col, double value, double ratio) {
    if (!ring || !ring->price || !ring->gen || col < 0 ||
        col >= ring->rows || !(value >= 0) || !isfinite(value) ||
        !(ratio > 1))
        return 0;
    double sum = 0;
    int n = 0;
    for (int j = 0; j < ring->slots; j++) {
        unsigned long gj = ring->gen[j];
        double v = ring->price[(size_t)j * (size_t)ring->rows + (size_t)col];
        if (gj == 0 || gj >= before || gj + (unsigned long)k <= before ||
            !(v > 0) || !isfinite(v))
            continue;
        sum += v;
        n++;
    }
    if (n == 0) return 0;
    double mean = sum / n;
    if (value >= ratio * mean) return 1;
    if (value * ratio <= mean) return -1;
    return 0;
}

void papc_price_ring_drop_before(papc_price_ring *ring, unsigned long g) {
    if (!ring || !ring->gen) return;
    for (int j = 0; j < ring->slots; j++)
        if (ring->gen[j] < g) ring->gen[j] = 0;
}

int papc_price_ring_new_pattern(papc_price_ring *ring, unsigned long g, int k,
                                int col, double value, double ratio,
                                unsigned long *jump_gen, int *jump_dir) {
    if (*jump_gen == g) return *jump_dir != 0;
    int j = papc_price_ring_jump(ring, g, k, col, value, ratio);
    int seen = j != 0;
    if (*jump_dir != 0 && *jump_gen + 1 == g &&
        papc_price_ring_jump(ring, g - 1, k, col, value, ratio) ==
            *jump_dir) {
        papc_price_ring_drop_before(ring, g - 1);
        j = 2;  /* confirmed: seen at g, no jump pending */
        seen = 1;
    }
    *jump_gen = g;
    *jump_dir = j;
    return seen;
}

/* ---- what the rows cost when they ran ---------------------------------- */

void papc_learn_init(papc_row_learning *l, int rows) {
    for (int i = 0; i < rows; i++)
        l[i] = (papc_row_learning){NAN, 0, 0, NAN, 0};
}

int papc_learn_valid(const papc_row_learning *l, double spread) {
    if (!l || l->n <= 0 || !isfinite(l->bias) || !isfinite(l->spread) ||
        !isfinite(spread))
        return 0;
    if (l->spread < 1e-3 && spread < 1e-3) return 1;
    return spread <= 2 * l->spread && l->spread <= 2 * spread;
}

void papc_learn_add(papc_row_learning *l, double residual, double w,
                    double price, double spread) {
    if (!l || !isfinite(residual) || !isfinite(spread)) return;
    if (!(price > 0) || !isfinite(price)) price = 0;
    if (l->n > 0 && !papc_learn_valid(l, spread)) l->n = 0;
    if (l->n == 0) {
        l->bias = residual < price ? residual : price;
        l->dev = 0.1 * price;
    } else {
        double limit = 3 * l->dev + 0.1 * price + 1e-4;
        double r = residual;
        if (r > l->bias + limit) r = l->bias + limit;
        if (r < l->bias - limit) r = l->bias - limit;
        l->dev = (1 - w) * l->dev + w * fabs(r - l->bias);
        l->bias = (1 - w) * l->bias + w * r;
    }
    l->spread = spread;
    l->n++;
}

void papc_learn_prices(const papc_row_learning *l, int rows,
                       const double *price, double spread, double *out) {
    double sum = 0;
    int n = 0;
    for (int i = 0; i < rows; i++)
        if (papc_learn_valid(&l[i], spread)) {
            sum += l[i].bias;
            n++;
        }
    double common = n ? sum / n : 0;
    for (int i = 0; i < rows; i++) {
        double b = papc_learn_valid(&l[i], spread) ? l[i].bias : common;
        out[i] = isfinite(price[i]) ? price[i] + b : price[i];
    }
}

static int learn_waiting(const papc_row_learning *l, long now) {
    return l->ran_at > 0 && now - l->ran_at < PAPC_LEARN_LAG;
}

int papc_learn_explore(const papc_row_learning *l, int rows,
                       const double *price, int pick, double explore,
                       double floor, double spread, long now) {
    if (!l || pick < 0 || pick >= rows || !(explore > 0) ||
        !isfinite(price[pick]) ||
        !(papc_learn_valid(&l[pick], spread) || learn_waiting(&l[pick], now)))
        return pick;
    if (!(floor > 0) || !isfinite(floor)) floor = 0;
    double limit = floor + (1 + explore) * (price[pick] - floor);
    int best = pick;
    for (int i = 0; i < rows; i++) {
        if (i == pick || papc_learn_valid(&l[i], spread) ||
            learn_waiting(&l[i], now) || !isfinite(price[i]) ||
            price[i] > limit)
            continue;
        if (best == pick || price[i] < price[best]) best = i;
    }
    return best;
}
