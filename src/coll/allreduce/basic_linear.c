/* basic_linear.c — allreduce: linear reduce to rank 0, then linear
 * broadcast from rank 0 (Open MPI coll/base basic_linear).  Both phases are
 * this library's reduce and bcast basic_linear run on derived call
 * descriptors; the broadcast runs on the call's second tag, so its messages
 * can never match the reduction's.
 * Cost: (P-1)(alpha + m beta + m gamma) + gamma(P)(alpha + m beta).
 * MPI_IN_PLACE: rank 0 reduces in place; the others contribute recvbuf. */
#include "../coll.h"
#include "../reduce/model_parts.h"

#define BCAST_TAG_OFFSET 1 /* the reduce phase uses the call's first tag */

int papc_allreduce_basic_linear(const papc_call *c) {
    papc_call reduce = *c;
    reduce.coll = PAPC_REDUCE;
    reduce.root = 0;
    if (c->rank != 0 && c->sendbuf == MPI_IN_PLACE)
        reduce.sendbuf = c->recvbuf;
    int rc = papc_reduce_basic_linear(&reduce);
    if (rc != MPI_SUCCESS) return rc;
    papc_call bcast = *c;
    bcast.coll = PAPC_BCAST;
    bcast.root = 0;
    bcast.sendbuf = NULL;
    bcast.tag = c->tag + BCAST_TAG_OFFSET;
    return papc_bcast_basic_linear(&bcast);
}

/* Model (issue 12):
 *   T = (P-1)(α + mβ) + (P-1) m γ_op        (reduce basic_linear to rank 0)
 *     + γ(P)(α + mβ)               (bcast basic_linear: the tree engine's
 *                                   linear tree, unsegmented)
 * The reduce is papc_reduce_basic_linear_model's; the broadcast posts P-1
 * non-blocking sends of m at rank 0 and waits for them all (Formula 3).
 * No copy (rank 0 is not rank P-1 and reduces into recvbuf; with
 * MPI_IN_PLACE it would fold in a temporary and copy it out, δm, not
 * modelled).  Ignores m_s.
 * Traffic: the reduce's P-1 messages, (P-1)m sent + (P-1)m reduced
 * (carried by papc_reduce_basic_linear_model's terms), and the
 * broadcast's P-1 messages of m: 2(P-1) messages, 3(P-1)m bytes. */
papc_terms papc_allreduce_basic_linear_model(const papc_model_in *in) {
    papc_terms t;
    if (papc_model_reduce_trivial(in, &t)) return t;
    t = papc_reduce_basic_linear_model(in);
    t = papc_terms_axpy(t, papc_model_g(in, in->P), papc_msg(in->m));
    return papc_terms_traffic(t, in->P - 1, (in->P - 1) * in->m);
}
