/* basic_linear.c — gather: the root receives every block in rank order
 * with blocking receives (Open MPI coll/base basic_linear;
 * model-based-selection.md §III-B1).  Cost: (P-1)(α + mβ). */
#include "../coll.h"
#include "../bcast/model_bgs.h"

int papc_gather_basic_linear(const papc_call *c) {
    if (c->rank != c->root)
        return papc_send(c, c->sendbuf, c->sendcount, c->sendtype, c->root, 0);
    for (int i = 0; i < c->size; i++) {
        char *slot = papc_elem(c->recvbuf, c->recvtype,
                               (MPI_Aint)i * c->recvcount);
        int rc;
        if (i != c->root)
            rc = papc_recv(c, slot, c->recvcount, c->recvtype, i, 0);
        else if (c->sendbuf != MPI_IN_PLACE)
            rc = papc_copy(c->sendbuf, c->sendcount, c->sendtype, slot,
                           c->recvcount, c->recvtype);
        else
            rc = MPI_SUCCESS;
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* Model (issue 12), block m bytes, root 0:
 *   T = (P-1)(α + mβ) + mδ
 * The root copies its own block (i == root, first with root 0), then takes
 * the P - 1 blocks with blocking receives, one after the other (the loop of
 * papc_gather_basic_linear); eq. 12.  m = 0 costs nothing (call.c,
 * gather_like, returns before any algorithm); P = 1 is the copy alone.
 * Traffic: P - 1 messages, (P-1) m bytes. */
papc_terms papc_gather_basic_linear_model(const papc_model_in *in) {
    if (in->m <= 0) return papc_terms_zero();
    papc_terms t = papc_terms_scale(papc_msg(in->m), in->P - 1);
    t = papc_terms_add(t, papc_bgs_copy(in->m));
    return papc_terms_traffic(t, in->P - 1, (in->P - 1) * in->m);
}
