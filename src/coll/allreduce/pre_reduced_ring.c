/*
 * pre_reduced_ring.c — allreduce pre_reduced_ring (PRR; Proficz, "Improving
 * all-reduce collective operations for imbalanced process arrival
 * patterns", J. Supercomput. 2018, Sect. 4.2, Fig. 7), and the segment
 * schedule executor it shares with sorted_linear_tree.c.
 *
 * A ring allreduce over P segments whose ring runs in the agreed predicted
 * arrival order (id = position in it, 0 earliest).  Process id performs
 * k[id] "pre-steps": it starts k[id] steps ahead of a plain ring, so that
 * early processes pass segments along and reduce them before the late ones
 * come.  Two rows differ only in how k is chosen, from agreed inputs
 * alone (the agreed offsets and order, alpha, beta, gamma, count and
 * type, the documented-equal eager limit), so every rank gets the same k:
 *  - pre_reduced_ring (issue 15): papc_prr_presteps_model, the k of least
 *    predicted average elapsed time among the ring (k = 0) and the "capped
 *    staircases", each timed step by step under the Hockney model (the
 *    agreed busy alpha, beta: every process communicates in a ring round)
 *    with eager and rendezvous transfers (papc_prr_predict).  Pre-steps
 *    pay only where a pre-reduced segment can travel before the late
 *    receiver posts its receive (segments up to the eager limit,
 *    PAPC_PRR_EAGER_BYTES); with rendezvous segments it keeps k = 0, and
 *    k = 0 runs ring.c.
 *  - pre_reduced_ring_published (prr_paper): Fig. 7 lines 1-6, from the
 *    predicted arrivals a_i and tau, the time to send and reduce one
 *    segment (alpha + seg_bytes (beta + gamma)).
 * Reduce loop: each segment j travels sp_j -> sp_j + 1 -> ... -> rp_j =
 * sp_j - 1, reduced at every hop; override loop: the result travels rp_j
 * -> ... -> rp_j - 1.  With no predictions (no monitor: offsets unknown,
 * rank order) k = 0 and this is exactly the ring of ring.c.  The schedule
 * itself is built as data by src/topo/prr.c and proved free of deadlock
 * and exact for every order and every valid k by the simulator of
 * tests/unit/test_prr.c.
 *
 * Cost (balanced arrivals, k = 0): 2(P-1) alpha + 2 (P-1)/P n beta +
 * (P-1)/P n gamma, as the ring; the same P(2P-2) messages for every k.
 * When the last process is D late: a ring needs D + 2(P-1) tau; PRR lets
 * the early processes work during D, the last one then does at least
 * P-1 receive-and-reduce steps and sends k_0 + 1 segments through an
 * override chain of P-1 hops.
 *
 * Corrections to Fig. 7 (each one is a bug of the printed pseudocode):
 *  - lines 8-13 leave sp_j unassigned when the else branch runs and
 *    advance i by one only: sp_j = the smallest i with i + k_i >= j.
 *  - line 19 tests "(rp_si + P - 1) mod P != is" (a copy of line 25 with a
 *    typo): in the reduce loop a process sends the segment on unless it
 *    is the segment's last reducer, rp_si != id.
 *  - the override loop starts where the reduce loop stopped (id + k_id),
 *    a segment the process must receive; as every process does so, all
 *    wait first and blocking receives deadlock (always, P >= 2).  It
 *    starts with the last segment the process finished reducing,
 *    id + 1 + k_{id+1} (mod P); then a pair's sends and receives walk the
 *    same segments in the same order on each sub-tag.
 *  - sends are non-blocking and read the user's buffer: before the
 *    override loop overwrites segments, the reduce loop's sends are
 *    completed (nothing can depend on the override loop there).
 *  - k's recurrence (lines 1-6) compares with the LAST arrival a_{P-1};
 *    unknown arrivals (INFINITY) count as the latest known one (late, but
 *    no pre-steps for them and no inf - inf); k is always valid (k_{P-1}
 *    = 0, steps of 0 or 1), which the schedule relies on (a larger jump
 *    would make a pair's message order disagree).
 *  - segments are whole elements; with count < P some are empty and their
 *    messages are skipped on both sides.
 *
 * Testing knobs (same value on every rank; for tests only):
 *   PAPC_PRR_TEST_OFFSETS="0,0,0.01,..."  predicted arrival offsets by rank
 *       in seconds (empty/"-"/"inf": unknown) replacing the runtime's,
 *       and the order derived from them (also read by sorted_linear_tree);
 *   PAPC_PRR_TEST_COST="alpha,beta,gamma,eager"  replaces the agreed cost
 *       model (the busy alpha and beta for the model rule, the quiet ones
 *       for the published rule) and the eager limit the pre-step rules
 *       see (an empty entry keeps that value): lets a test with small
 *       vectors reach the costs at which the model rule picks pre-steps;
 * Not only for tests (same value on every rank):
 *   PAPC_PRR_EAGER_BYTES=N|inf  the eager limit of the model rule
 *       (default: inf when all ranks share a node, else
 *       PAPC_PIPELINE_MAX_SEGMENT, 64,512 B).
 *   PAPC_PRR_TEST_K="2,1,0,..."  the pre-step vector by position in the
 *       order (made valid first), replacing the computed one.
 * PAPC_VERBOSE=1 prints the order and k on rank 0.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrival_schedule.h"
#include "../reduce/model_parts.h"

/* Runs one process' segment schedule on the user's buffers: the vector is
 * copied to recvbuf (unless MPI_IN_PLACE) and reduced there; receives
 * that reduce land in one temporary segment.  Peers are ids: order[id] is
 * the rank. */
int papc_allreduce_run_segments(const papc_call *c, const int *order,
                                int nseg, const papc_seg_step *steps,
                                int nsteps) {
    MPI_Datatype t = c->sendtype;
    int count = c->sendcount, maxlen = count / nseg + (count % nseg != 0);
    papc_tmpbuf tmp = {NULL, NULL};
    MPI_Request *reqs = malloc((size_t)(nsteps > 0 ? nsteps : 1) *
                               sizeof *reqs);
    if (!reqs) return papc_error(MPI_ERR_NO_MEM, "segment requests");
    int rc = papc_tmpbuf_alloc(&tmp, t, (size_t)maxlen);
    if (rc == MPI_SUCCESS && c->sendbuf != MPI_IN_PLACE)
        rc = papc_copy(c->sendbuf, count, t, c->recvbuf, count, t);
    int nreq = 0;
    for (int i = 0; i < nsteps && rc == MPI_SUCCESS; i++) {
        const papc_seg_step *s = &steps[i];
        if (s->op == PAPC_SEG_WAIT_SENDS) {
            rc = papc_waitall(nreq, reqs);
            nreq = 0;
            continue;
        }
        int off, len;
        papc_seg_range(count, nseg, s->seg, &off, &len);
        if (len == 0) continue;            /* skipped by both sides */
        char *seg = papc_elem(c->recvbuf, t, off);
        int peer = order[s->peer];
        switch (s->op) {
        case PAPC_SEG_SEND:
            rc = papc_isend(c, seg, len, t, peer, s->sub, &reqs[nreq]);
            if (rc == MPI_SUCCESS) nreq++;
            break;
        case PAPC_SEG_RECV_REDUCE:
            rc = papc_recv(c, tmp.ptr, len, t, peer, s->sub);
            if (rc == MPI_SUCCESS)
                rc = papc_reduce_local(tmp.ptr, seg, len, t, c->op);
            break;
        case PAPC_SEG_RECV_COPY:
            rc = papc_recv(c, seg, len, t, peer, s->sub);
            break;
        default:
            rc = papc_error(MPI_ERR_INTERN, "bad schedule step");
        }
    }
    if (rc == MPI_SUCCESS) rc = papc_waitall(nreq, reqs);
    else papc_cleanup_requests(nreq, reqs);
    papc_tmpbuf_free(&tmp);
    free(reqs);
    return rc;
}

/* The order and the predicted arrival of each process in it (arrival[i]
 * of order[i]; INFINITY unknown) from the agreed view, or from
 * PAPC_PRR_TEST_OFFSETS when set.  Identical on every rank. */
/* This rank's position (id) in order. */
static int own_id(const papc_call *c, const int *order, int *id) {
    for (int i = 0; i < c->size; i++)
        if (order[i] == c->rank) {
            *id = i;
            return MPI_SUCCESS;
        }
    return papc_error(MPI_ERR_INTERN, "rank not in the order");
}

int papc_allreduce_arrival_view(const papc_call *c, const papc_arrival *a,
                                int *order, double *arrival, int *id) {
    int P = c->size;
    const char *knob = papc_getenv("PAPC_PRR_TEST_OFFSETS");
    if (knob && *knob) {
        double *off = malloc((size_t)P * sizeof *off);
        if (!off) return papc_error(MPI_ERR_NO_MEM, "test offsets");
        papc_parse_offsets(knob, P, off);
        papc_order_by_offset(P, off, order);
        for (int i = 0; i < P; i++) arrival[i] = off[order[i]];
        free(off);
        return own_id(c, order, id);
    }
    if (!a->order || !a->offset)
        return papc_error(MPI_ERR_INTERN, "no agreed arrival order");
    for (int i = 0; i < P; i++) {
        order[i] = a->order[i];
        if (order[i] < 0 || order[i] >= P)
            return papc_error(MPI_ERR_INTERN, "bad arrival order");
        arrival[i] = a->offset[order[i]];
    }
    return own_id(c, order, id);
}

/* Which pre-step rule a row uses. */
typedef enum prr_rule {
    PRR_RULE_MODEL,     /* pre_reduced_ring: papc_prr_presteps_model */
    PRR_RULE_PUBLISHED  /* pre_reduced_ring_published: Fig. 7 lines 1-6 */
} prr_rule;

static void print_view(const papc_call *c, const papc_arrival *a,
                       prr_rule rule, const int *order,
                       const double *arrival, const int *k) {
    const char *v = getenv("PAPC_VERBOSE");
    if (!v || !*v || *v == '0' || c->rank != 0) return;
    fprintf(stderr, "papcoll: %s order", rule == PRR_RULE_MODEL
                                             ? "pre_reduced_ring"
                                             : "pre_reduced_ring_published");
    for (int i = 0; i < c->size; i++) fprintf(stderr, " %d", order[i]);
    fprintf(stderr, " k");
    for (int i = 0; i < c->size; i++) fprintf(stderr, " %d", k[i]);
    fprintf(stderr, " offsets_ms");
    for (int i = 0; i < c->size; i++) fprintf(stderr, " %.3f", 1e3 * arrival[i]);
    fprintf(stderr, " alpha %.3g beta %.3g gamma %.3g busy %.3g %.3g\n",
            a->alpha, a->beta, a->gamma, a->alpha_busy, a->beta_busy);
}

/* 1 when every rank of the call's communicator shares one node (one
 * shared-memory domain), from PMPI_Comm_split_type once per communicator,
 * cached as an attribute of the private duplicate (every rank of the
 * first PRR call on it splits: the call itself is collective).  The
 * answer is the same on every rank: all ranks on one node see a node of
 * size P, and otherwise none does.  -1 when MPI refused. */
static int prr_keyval = MPI_KEYVAL_INVALID;

static int one_node(const papc_call *c) {
    void *val;
    int found = 0;
    if (prr_keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
                               MPI_COMM_NULL_DELETE_FN, &prr_keyval,
                               NULL) != MPI_SUCCESS)
        return -1;
    if (MPI_Comm_get_attr(c->comm, prr_keyval, &val, &found) != MPI_SUCCESS)
        return -1;
    if (found) return (int)(intptr_t)val - 1;
    MPI_Comm node;
    int n = 0;
    if (PMPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, 0,
                             MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return -1;
    MPI_Comm_size(node, &n);
    MPI_Comm_free(&node);
    int one = n == c->size;
    MPI_Comm_set_attr(c->comm, prr_keyval, (void *)(intptr_t)(one + 1));
    return one;
}

/* Bytes a send moves before its receive is posted, as the model rule sees
 * it: PAPC_PRR_EAGER_BYTES (a number or "inf"; must be equal on every
 * rank) when set; else unlimited when all ranks share one node, else the
 * transport's eager limit papc_pipeline_max_segment() (64,512 B: Open
 * MPI's TCP BTL).  Measured (docs/performance.md): on shared memory (vader,
 * 8 ranks on 2 cores) 1 MiB segments behave as if sent eagerly -- the
 * pre-steps the eager model picks beat the ring by 14 % --, over TCP as
 * rendezvous. */
static double prr_eager_bytes(const papc_call *c) {
    const char *e = papc_getenv("PAPC_PRR_EAGER_BYTES");
    if (e && *e) {
        char *end;
        double v = strtod(e, &end);
        if (end != e && *end == '\0' && v >= 0.0 && !isnan(v)) return v;
    }
    if (one_node(c) == 1) return INFINITY;
    return (double)papc_pipeline_max_segment();
}

/* The pre-steps of the call from agreed inputs only (the agreed arrivals
 * and cost model, count, type, the documented-equal eager limit), so every
 * rank computes the same k. */
static void presteps(const papc_call *c, const papc_arrival *a,
                     prr_rule rule, const double *arrival, int *k) {
    int P = c->size;
    int maxlen = c->sendcount / P + (c->sendcount % P != 0);
    double seg_bytes = (double)maxlen * (double)papc_type_size(c->sendtype);
    if (rule == PRR_RULE_PUBLISHED) {
        double tau = a->alpha + seg_bytes * (a->beta + a->gamma);
        const char *t = papc_getenv("PAPC_PRR_TEST_COST");
        if (t && *t) {                           /* alpha,beta,gamma */
            double v[3];
            papc_parse_offsets(t, 3, v);
            tau = (isfinite(v[0]) ? v[0] : a->alpha) +
                  seg_bytes * ((isfinite(v[1]) ? v[1] : a->beta) +
                               (isfinite(v[2]) ? v[2] : a->gamma));
        }
        papc_prr_presteps(P, arrival, tau, k);
        return;
    }
    /* In a ring round every process sends and receives at once: the
     * agreed busy fit (as Clairvoyant's rounds use it).  On 8 ranks
     * sharing 2 cores it is 9 times the quiet beta; on a network with
     * spare CPU the two are equal. */
    papc_prr_cost cost = {a->alpha_busy, a->beta_busy, a->gamma, seg_bytes,
                          prr_eager_bytes(c)};
    const char *knob = papc_getenv("PAPC_PRR_TEST_COST");
    if (knob && *knob) {          /* alpha,beta,gamma,eager; "" keeps one */
        double v[4];
        papc_parse_offsets(knob, 4, v);
        if (isfinite(v[0])) cost.alpha = v[0];
        if (isfinite(v[1])) cost.beta = v[1];
        if (isfinite(v[2])) cost.gamma = v[2];
        if (isfinite(v[3])) cost.eager_bytes = v[3];
    }
    papc_prr_presteps_model(P, arrival, &cost, k);
}

static int no_presteps(int P, const int *k) {
    for (int i = 0; i < P; i++)
        if (k[i] != 0) return 0;
    return 1;
}

static int run_prr(const papc_call *c, const papc_arrival *a,
                   prr_rule rule) {
    int P = c->size, id = -1;
    int *order = malloc((size_t)P * sizeof *order);
    int *k = malloc((size_t)P * sizeof *k);
    double *arrival = malloc((size_t)P * sizeof *arrival);
    papc_seg_step *steps = malloc((size_t)PAPC_PRR_MAX_STEPS(P) *
                                  sizeof *steps);
    int rc = MPI_SUCCESS;
    if (!order || !k || !arrival || !steps)
        rc = papc_error(MPI_ERR_NO_MEM, "pre_reduced_ring schedule");
    if (rc == MPI_SUCCESS)
        rc = papc_allreduce_arrival_view(c, a, order, arrival, &id);
    if (rc == MPI_SUCCESS) {
        presteps(c, a, rule, arrival, k);
        const char *knob = papc_getenv("PAPC_PRR_TEST_K");
        if (knob && *knob) {
            papc_parse_ints(knob, P, k);
            papc_prr_k_normalise(P, k);
        }
        print_view(c, a, rule, order, arrival, k);
    }
    if (rc == MPI_SUCCESS && rule == PRR_RULE_MODEL && no_presteps(P, k)) {
        /* Reduced to the ring: ring.c runs the same hops without the
         * initial copy of the vector (on the 2-core emulated cluster eight
         * 8 MiB copies cost about 9 ms of 180).  Its ring is in rank
         * order; with k = 0 the predicted time does not depend on the
         * order (every segment still passes the last arriver), and the
         * decision is the same on every rank (k is). */
        rc = papc_allreduce_ring(c);
    } else if (rc == MPI_SUCCESS) {
        int n = papc_prr_schedule(P, k, id, steps);
        rc = papc_allreduce_run_segments(c, order, P, steps, n);
    }
    free(order);
    free(k);
    free(arrival);
    free(steps);
    return rc;
}

static int prr_call(const papc_call *c, prr_rule rule) {
    papc_arrival a;
    int rc = papc_arrival_begin(c, PAPC_ORDER_AGREED, 0, &a);
    if (rc != MPI_SUCCESS) return rc;
    rc = run_prr(c, &a, rule);
    return papc_arrival_end(c, &a, rc);
}

int papc_allreduce_pre_reduced_ring(const papc_call *c) {
    return prr_call(c, PRR_RULE_MODEL);
}

int papc_allreduce_pre_reduced_ring_published(const papc_call *c) {
    return prr_call(c, PRR_RULE_PUBLISHED);
}

/* Model (issue 12), balanced arrivals: the known arrivals lie within one
 * hop, so papc_prr_presteps_model picks k = 0 without a search (also
 * without predictions), and k = 0 runs ring.c:
 *   T = γ(P)(α + 8(2P+1)β)                     (the agreed order, rank 0)
 *     + (P-1)(α + m/P (β + γ_op))   (reduce-scatter: P-1 receives, each
 *                                    reduced and sent on)
 *     + (P-1)(α + m/P β)            (allgather: P-1 receives in place)
 * No copy.  count < P: empty segments (the model keeps m/P).  Ignores
 * m_s.  Commutative ops only.
 * Traffic: the agreement's 2(P-1) messages, (P-1)(16P + 40) bytes; each
 * of the P segments passes P-1 reduce and P-1 override hops: 2P(P-1)
 * messages, 2(P-1)m sent + (P-1)m reduced. */
papc_terms papc_allreduce_pre_reduced_ring_model(const papc_model_in *in) {
    papc_terms t;
    if (papc_model_reduce_trivial(in, &t)) return t;
    double s = in->m / in->P, P = in->P;
    papc_terms reduce_hop = {1, s, s, 0, 0, 0};
    t = papc_model_agreement(in);
    t = papc_terms_axpy(t, in->P - 1, reduce_hop);
    t = papc_terms_axpy(t, in->P - 1, papc_msg(s));
    t = papc_model_agreement_traffic(t, in->P);
    return papc_terms_traffic(t, 2 * P * (P - 1), 3 * (P - 1) * in->m);
}

/* Model of pre_reduced_ring_published (issue 12's PRR model): balanced
 * arrivals give no slack, so the published rule's k_i = 0
 * (papc_prr_presteps; also without predictions) and the
 * schedule is the plain ring over P segments of m/P bytes:
 *   T = γ(P)(α + 8(2P+1)β)                     (the agreed order, rank 0)
 *     + m δ                      (papc_allreduce_run_segments: sendbuf to
 *                                 recvbuf)
 *     + (P-1)(α + m/P (β + γ_op))   (reduce loop: P-1 blocking receives,
 *                                    each reduced and sent on)
 *     + (P-1)(α + m/P β)            (override loop: P-1 receives in place)
 * count < P: empty segments are skipped (the model keeps m/P).  Ignores
 * m_s.  Commutative ops only.
 * Traffic: the agreement's 2(P-1) messages, (P-1)(16P + 40) bytes; each
 * of the P segments passes P-1 reduce and P-1 override hops (the same for
 * every k): 2P(P-1) messages, 2(P-1)m sent + (P-1)m reduced. */
papc_terms papc_allreduce_pre_reduced_ring_published_model(const papc_model_in *in) {
    papc_terms t;
    if (papc_model_reduce_trivial(in, &t)) return t;
    double s = in->m / in->P, P = in->P;
    papc_terms reduce_hop = {1, s, s, 0, 0, 0};
    t = papc_model_agreement(in);
    t.copy = in->m;
    t = papc_terms_axpy(t, in->P - 1, reduce_hop);
    t = papc_terms_axpy(t, in->P - 1, papc_msg(s));
    t = papc_model_agreement_traffic(t, in->P);
    return papc_terms_traffic(t, 2 * P * (P - 1), 3 * (P - 1) * in->m);
}
