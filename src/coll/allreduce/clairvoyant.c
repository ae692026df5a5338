/*
 * clairvoyant.c — allreduce clairvoyant: the Clairvoyant reduce of
 * reduce/clairvoyant.c (Marendic et al. 2016; Proficz & Ocetkiewicz,
 * "Improving Clairvoyant", clairvoyant-reduce.md) to r0, then a segmented
 * binomial broadcast of the result from r0 (the tree engine of bcast
 * binomial).  r0 is the first rank of the agreed predicted arrival order
 * (decided by rank 0; rank 0 itself when nothing is predicted): the
 * earliest process is then the sink of the schedule from its first round,
 * and the broadcast leaves from a process that is surely there.
 *
 * Cost: the reduce's R rounds of alpha + s (beta + gamma) (s = segment
 * bytes, about N + log2 P rounds with balanced arrivals), then the
 * binomial broadcast, (n_s + ceil(log2 P) - 1)(alpha + s beta) pipelined.
 *
 * Departures: the papers define the reduction only; the broadcast is the
 * usual second half of a reduce + bcast allreduce.  It runs on another
 * sub-tag than the reduction (pairs keep their order anyway).
 * Commutative ops only.  MPI_IN_PLACE: every rank's input is in recvbuf.
 */
#include "../reduce/clairvoyant.h"
#include "../tree_engine.h"
#include "../reduce/model_parts.h"

#define CLV_SUB 0   /* the reduction */
#define BCAST_SUB 1 /* the broadcast */

int papc_allreduce_clairvoyant(const papc_call *c) {
    papc_arrival a;
    int rc = papc_arrival_begin(c, PAPC_ORDER_AGREED, 0, &a);
    if (rc != MPI_SUCCESS) return rc;
    int r0 = 0;
    if (a.order && a.order[0] >= 0 && a.order[0] < c->size) r0 = a.order[0];
    const void *input = c->sendbuf == MPI_IN_PLACE ? c->recvbuf : c->sendbuf;
    rc = papc_clv_reduce_exec(c, &a, r0, input, c->recvbuf, CLV_SUB);
    if (rc == MPI_SUCCESS && c->sendcount > 0 && c->size > 1)
        rc = papc_tree_bcast(c, PAPC_TREE_BINOMIAL, 0, c->recvbuf,
                             c->sendcount, c->sendtype, r0, c->segsize,
                             BCAST_SUB);
    return papc_arrival_end(c, &a, rc);
}

/* The segmented broadcast of papc_tree_bcast on the binomial tree, L =
 * ceil(log2 P) children at r0, n_s = ceil(m/m_s), s_0 = min(m, m_s):
 *   γ(L+1)(n_s α + mβ) + Σ_{v on the deepest path below r0} γ(k_v+1)(α + s_0 β)
 * r0 sends every segment to its L children (non-blocking, then waits:
 * Formula 3) and sets the pace; the last segment then goes down the
 * deepest path (spans P -> biggest child's span -> ..., k_v = ceil(log2
 * span)), costed with a full segment (an upper bound when it is shorter). */
static papc_terms bcast_model(const papc_model_in *in) {
    double s0 = papc_model_first_segment(in->m, in->segsize);
    double ns = papc_model_segments(in->m, in->segsize);
    double g = papc_model_g(in, papc_model_ceil_log2(in->P) + 1);
    papc_terms t = {g * ns, g * in->m, 0, 0, 0, 0};
    for (int n = papc_model_binomial_big_child(in->P); n > 1;
         n = papc_model_binomial_big_child(n))
        t = papc_terms_axpy(t, papc_model_g(in, papc_model_ceil_log2(n) + 1),
                            papc_msg(s0));
    return t;
}

/* Model (issue 12), balanced arrivals:
 *   T = γ(P)(α + 8(2P+1)β)                     (the agreed order, rank 0)
 *     + (N + L - 1)(α + s (β + γ_op)) + 2 m δ  (papc_clv_reduce_exec to r0;
 *                                   N segments of s = m/N bytes sized by
 *                                   the Clairvoyant model, not by m_s)
 *     + γ(L+1)(n_s α + mβ) + Σ_path γ(k_v+1)(α + s_0 β)   (bcast_model,
 *                                   segmented by m_s)
 * Commutative ops only.
 * Traffic: the agreement's 2(P-1) messages, (P-1)(16P + 40) bytes; the
 * reduce's NP - 1 segments, (P-1)m + (N-1)s sent + (P-1)m reduced
 * (papc_clv_reduce_exec_traffic); the broadcast:
 * every rank but r0 receives each of the n_s segments once, (P-1)n_s
 * messages, (P-1)m bytes. */
papc_terms papc_allreduce_clairvoyant_model(const papc_model_in *in) {
    papc_terms t;
    if (papc_model_reduce_trivial(in, &t)) return t;
    t = papc_terms_add(papc_model_agreement(in),
                       papc_clv_reduce_exec_model(in));
    t = papc_terms_add(t, bcast_model(in));
    t = papc_model_agreement_traffic(t, in->P);
    t = papc_clv_reduce_exec_traffic(in, t);
    double ns = papc_model_segments(in->m, in->segsize);
    return papc_terms_traffic(t, (in->P - 1) * ns, (in->P - 1) * in->m);
}
