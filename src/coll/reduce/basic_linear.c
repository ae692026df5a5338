/* basic_linear.c — reduce: every rank sends its vector to the root, which
 * receives them one by one, from rank P-1 down to rank 0, folding each in as
 * the left operand, so the result is exactly rank 0 op rank 1 op ... op
 * rank P-1 for every op (Open MPI coll/base basic_linear).
 * Cost: (P-1)(alpha + m beta + m gamma), unsegmented, blocking.
 * MPI_IN_PLACE at the root: the root's own vector sits in recvbuf, so unless
 * the root is rank P-1 (whose data starts the fold) the fold runs in a
 * temporary and is copied to recvbuf at the end, as in Open MPI. */
#include "../coll.h"
#include "model_parts.h"

/* The root's loop: acc = data(P-1), then acc = data(i) op acc downwards. */
static int fold_downwards(const papc_call *c, const void *mine, char *acc,
                          char *incoming) {
    int count = c->recvcount, last = c->size - 1, rc;
    MPI_Datatype t = c->recvtype;
    if (c->root != last) rc = papc_recv(c, acc, count, t, last, 0);
    else rc = papc_copy(mine, count, t, acc, count, t); /* no-op in place */
    for (int i = last - 1; i >= 0 && rc == MPI_SUCCESS; i--) {
        const void *in = mine;
        if (i != c->root) {
            rc = papc_recv(c, incoming, count, t, i, 0);
            in = incoming;
        }
        if (rc == MPI_SUCCESS) rc = papc_reduce_local(in, acc, count, t, c->op);
    }
    return rc;
}

int papc_reduce_basic_linear(const papc_call *c) {
    if (c->rank != c->root)
        return papc_send(c, c->sendbuf, c->sendcount, c->sendtype, c->root, 0);
    int in_place = c->sendbuf == MPI_IN_PLACE, last = c->size - 1, rc;
    const void *mine = in_place ? c->recvbuf : c->sendbuf;
    papc_tmpbuf accbuf = {NULL, NULL}, inbuf = {NULL, NULL};
    char *acc = c->recvbuf;
    /* Ranks other than the root among 0..P-2 are received into inbuf. */
    int others_below = last - (c->root < last ? 1 : 0);
    rc = others_below > 0 ? papc_tmpbuf_alloc(&inbuf, c->recvtype,
                                              (size_t)c->recvcount)
                          : MPI_SUCCESS;
    if (rc == MPI_SUCCESS && in_place && c->root != last) {
        rc = papc_tmpbuf_alloc(&accbuf, c->recvtype, (size_t)c->recvcount);
        acc = accbuf.ptr;
    }
    if (rc == MPI_SUCCESS) rc = fold_downwards(c, mine, acc, inbuf.ptr);
    if (rc == MPI_SUCCESS && acc != (char *)c->recvbuf)
        rc = papc_copy(acc, c->recvcount, c->recvtype, c->recvbuf,
                       c->recvcount, c->recvtype);
    papc_tmpbuf_free(&inbuf);
    papc_tmpbuf_free(&accbuf);
    return rc;
}

/* Model (issue 12): T = (P-1)(α + mβ) + (P-1) m γ_op.
 * The root's loop (fold_downwards) takes P-1 blocking receives of the whole
 * vector one after the other, and reduces each into the accumulator before
 * the next (P-1 reductions of m bytes: the first receive starts the fold,
 * the root's own vector is one of the P-1 operands).  No copy for the
 * usual root 0 with a send buffer (root P-1 would copy its own vector in
 * first, an in-place root other than P-1 would copy the result out: δm
 * each, not modelled: a model does not know the root).  Unsegmented,
 * blocking, the same for non-commutative ops.
 * Traffic: P-1 messages, (P-1)m sent + (P-1)m reduced (all at the root). */
papc_terms papc_reduce_basic_linear_model(const papc_model_in *in) {
    papc_terms t;
    if (papc_model_reduce_trivial(in, &t)) return t;
    t = papc_terms_scale(papc_msg(in->m), in->P - 1);
    t.gamma_op = (in->P - 1) * in->m;
    return papc_terms_traffic(t, in->P - 1, 2.0 * (in->P - 1) * in->m);
}
