/* basic_linear.c — gather: the root receives every block in rank order
 * with blocking receives (Open MPI coll/base basic_linear;
 * model-based-selection.md §III-B1).  Cost: (P-1)(α + mβ). */
#include "../coll.h"

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
