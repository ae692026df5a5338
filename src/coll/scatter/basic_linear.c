/* basic_linear.c — scatter: the root sends every block in rank order with
 * blocking sends (Open MPI coll/base basic_linear).  Cost: (P-1)(α + mβ). */
#include "../coll.h"
#include "../bcast/model_bgs.h"

int papc_scatter_basic_linear(const papc_call *c) {
    if (c->rank != c->root)
        return papc_recv(c, c->recvbuf, c->recvcount, c->recvtype, c->root, 0);
    for (int i = 0; i < c->size; i++) {
        const char *block = papc_elem(c->sendbuf, c->sendtype,
                                      (MPI_Aint)i * c->sendcount);
        int rc;
        if (i != c->root)
            rc = papc_send(c, block, c->sendcount, c->sendtype, i, 0);
        else if (c->recvbuf != MPI_IN_PLACE)
            rc = papc_copy(block, c->sendcount, c->sendtype, c->recvbuf,
                           c->recvcount, c->recvtype);
        else
            rc = MPI_SUCCESS;
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* Model (issue 12), block m bytes, root 0:
 *   T = (P-1)(α + mβ) + mδ
 * The root copies its own block (i == root, first with root 0) and sends
 * the P - 1 others with blocking sends in rank order (the loop of
 * papc_scatter_basic_linear).  m = 0 costs nothing (call.c, gather_like,
 * returns before any algorithm); P = 1 is the copy alone.
 * Traffic: P - 1 messages, (P-1) m bytes. */
papc_terms papc_scatter_basic_linear_model(const papc_model_in *in) {
    if (in->m <= 0) return papc_terms_zero();
    papc_terms t = papc_terms_scale(papc_msg(in->m), in->P - 1);
    t = papc_terms_add(t, papc_bgs_copy(in->m));
    return papc_terms_traffic(t, in->P - 1, (in->P - 1) * in->m);
}
