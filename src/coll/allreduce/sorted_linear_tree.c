/*
 * sorted_linear_tree.c — allreduce sorted_linear_tree (SLT; Proficz,
 * "Improving all-reduce collective operations for imbalanced process
 * arrival patterns", J. Supercomput. 2018, Sect. 4.1, Fig. 5).
 *
 * Open MPI's pipelined linear tree (chain) allreduce with the chain in the
 * agreed predicted arrival order (id = position, 0 earliest): the vector
 * is cut into S segments; in the reduce loop id 0 sends each segment to
 * id 1, every other process receives it, reduces it into its own and
 * sends it on; the last process, P-1, holds the result and sends it to
 * 0, and the override loop passes it along 0 -> 1 -> ... -> P-2.  The
 * earliest processes start the pipeline while the late ones still
 * compute; the latest process joins at the end of the chain.
 *
 * Cost (balanced arrivals): a segment passes 2P-2 hops, so
 * (2P - 3 + S)(alpha + (n/S)(beta + gamma)) for n bytes; when the last
 * process is D late, about D + (P + S - 1) stage times (it reduces S
 * segments, then the override chain of P-2 more hops).
 *
 * Departures from Fig. 5:
 *  - segment count: the paper uses P segments; here S minimises the
 *    pipeline time above under the agreed Hockney model (a.alpha, a.beta,
 *    a.gamma): S = sqrt((2P - 3) n (beta + gamma) / alpha), at least P (the
 *    paper's count), at most count (whole elements), and enough that no
 *    segment exceeds the eager limit (papc_pipeline_max_segment: above it
 *    each hop adds a rendezvous handshake; with another CPU-bound process
 *    on the emulated cluster, 110 segments of 76 KiB took 957 ms median
 *    and 2.5 s worst where 227 of 37 KiB took 172 ms), see
 *    papc_slt_segments in src/topo/prr.c.  (2P - 3 counts the override
 *    chain too; the reduce chain alone, (P - 1 + S)(alpha + n beta / S),
 *    gives sqrt((P - 1) n beta / alpha).)
 *  - ring indices: line 6 is executed by every process (process 0 must
 *    send, or nothing moves); for id = P-1 it sends to (P-1+1) mod P = 0,
 *    which receives the result in the override loop (line 10) -- so that
 *    message carries the override sub-tag.  P = 1: line 6 would send to
 *    itself a message nobody receives; nothing is sent (the result is the
 *    process' own data).  P = 2: correct as printed (0 -> 1 -> 0).
 *  - non-blocking sends read the user's buffer: process 0 completes its
 *    reduce-loop sends before the override loop overwrites its segments.
 *  - empty segments (count < S cannot happen: S <= count) and count 0:
 *    nothing is sent.
 * The schedule is built by papc_slt_schedule (src/topo/prr.c) and checked
 * free of deadlock and exact by the simulator of tests/unit/test_prr.c;
 * it runs through the executor of pre_reduced_ring.c.  The testing knob
 * PAPC_PRR_TEST_OFFSETS (see pre_reduced_ring.c) sets the order here too;
 * PAPC_VERBOSE=1 prints the order and S on rank 0.
 * Commutative ops only (the chain order is the arrival order).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "arrival_schedule.h"
#include "../reduce/model_parts.h"

static void print_view(const papc_call *c, const int *order, int S) {
    const char *v = getenv("PAPC_VERBOSE");
    if (!v || !*v || *v == '0' || c->rank != 0) return;
    fprintf(stderr, "papcoll: sorted_linear_tree order");
    for (int i = 0; i < c->size; i++) fprintf(stderr, " %d", order[i]);
    fprintf(stderr, " segments %d\n", S);
}

static int run_slt(const papc_call *c, const papc_arrival *a) {
    int P = c->size, id = -1;
    int S = papc_slt_segments(P, c->sendcount,
                              (double)papc_type_size(c->sendtype), a->alpha,
                              a->beta, a->gamma,
                              (double)papc_pipeline_max_segment());
    int *order = malloc((size_t)P * sizeof *order);
    double *arrival = malloc((size_t)P * sizeof *arrival);
    papc_seg_step *steps = malloc((size_t)PAPC_SLT_MAX_STEPS(S) *
                                  sizeof *steps);
    int rc = MPI_SUCCESS;
    if (!order || !arrival || !steps)
        rc = papc_error(MPI_ERR_NO_MEM, "sorted_linear_tree schedule");
    if (rc == MPI_SUCCESS)
        rc = papc_allreduce_arrival_view(c, a, order, arrival, &id);
    if (rc == MPI_SUCCESS) print_view(c, order, S);
    if (rc == MPI_SUCCESS) {
        int n = papc_slt_schedule(P, S, id, steps);
        rc = papc_allreduce_run_segments(c, order, S, steps, n);
    }
    free(order);
    free(arrival);
    free(steps);
    return rc;
}

int papc_allreduce_sorted_linear_tree(const papc_call *c) {
    papc_arrival a;
    int rc = papc_arrival_begin(c, PAPC_ORDER_AGREED, 0, &a);
    if (rc != MPI_SUCCESS) return rc;
    rc = run_slt(c, &a);
    return papc_arrival_end(c, &a, rc);
}

/* Segments as papc_slt_segments counts them under the arrival runtime's
 * default model (a model knows no monitor's fit; the run uses the agreed
 * a.alpha, a.beta, a.gamma): sqrt((2P-3) m (β+γ)/α) at most 65536, at
 * least P and m / PAPC_PIPELINE_MAX_SEGMENT, at most count (taken as m:
 * the common case of at least S elements; count < S gives count segments
 * of one element).  papc_slt_segments rounds S to a whole number; here it
 * stays real, so the prediction is continuous in m. */
static double model_segments(const papc_model_in *in) {
    double m = in->m, P = in->P;
    double b = PAPC_MODEL_ARRIVAL_BETA + PAPC_MODEL_ARRIVAL_GAMMA;
    double S = sqrt((2 * P - 3) * m * b / PAPC_MODEL_ARRIVAL_ALPHA);
    if (!(S < 65536.0)) S = 65536.0;
    if (S < P) S = P;
    double eager = (double)papc_pipeline_max_segment();
    if (eager > 0) {
        double e = m / eager;
        if (e > 65536.0) e = 65536.0;
        if (S < e) S = e;
    }
    if (S > m) S = m;
    return S < 1 ? 1 : S;
}

/* Model (issue 12), balanced arrivals, S segments of s = m/S bytes:
 *   T = γ(P)(α + 8(2P+1)β)                     (the agreed order, rank 0)
 *     + m δ                      (papc_allreduce_run_segments: sendbuf to
 *                                 recvbuf)
 *     + (P + S - 2)(α + s (β + γ_op))   (reduce chain 0 -> ... -> P-1:
 *                                        P-1 hops, then S-1 more segments)
 *     + (P - 1)(α + s β)            (the last segment back to 0 and down
 *                                    the override chain to P-2)
 * From papc_slt_schedule: a process receives a segment (blocking), reduces
 * it and sends it on (non-blocking), so the reduce chain is a pipeline of
 * P-1 stages of α + s(β + γ_op); the override hops only receive into place
 * (α + sβ) and, being shorter, keep up with it: the last segment ends the
 * call after its P-1 override hops.  Ignores m_s (S sized by the
 * algorithm).  Commutative ops only.
 * Traffic: the agreement's 2(P-1) messages, (P-1)(16P + 40) bytes; each
 * segment passes P-1 reduce hops (sent and reduced) and P-1 override hops
 * (P-1 -> 0 -> ... -> P-2): 2(P-1)S messages, 3(P-1)m bytes. */
papc_terms papc_allreduce_sorted_linear_tree_model(const papc_model_in *in) {
    papc_terms t;
    if (papc_model_reduce_trivial(in, &t)) return t;
    double S = model_segments(in), s = in->m / S, P = in->P;
    papc_terms reduce_hop = {1, s, s, 0, 0, 0};
    t = papc_model_agreement(in);
    t.copy = in->m;
    t = papc_terms_axpy(t, in->P + S - 2, reduce_hop);
    t = papc_terms_axpy(t, in->P - 1, papc_msg(s));
    t = papc_model_agreement_traffic(t, in->P);
    return papc_terms_traffic(t, 2 * (P - 1) * S, 3 * (P - 1) * in->m);
}
