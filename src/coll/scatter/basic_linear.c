/* basic_linear.c — scatter: the root sends every block in rank order with
 * blocking sends (Open MPI coll/base basic_linear).  Cost: (P-1)(α + mβ). */
#include "../coll.h"

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
