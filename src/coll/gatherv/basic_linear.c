/* basic_linear.c — gatherv: the root receives each non-empty block in rank
 * order at its displacement (Open MPI and MPICH).  Cost: Σ_i (α + m_i β). */
#include "../coll.h"

int papc_gatherv_basic_linear(const papc_call *c) {
    if (c->rank != c->root) {
        /* Skip by bytes, not elements: zero-size types move nothing. */
        if ((size_t)c->sendcount * papc_type_size(c->sendtype) == 0)
            return MPI_SUCCESS;
        return papc_send(c, c->sendbuf, c->sendcount, c->sendtype, c->root, 0);
    }
    for (int i = 0; i < c->size; i++) {
        char *slot = papc_elem(c->recvbuf, c->recvtype, c->displs[i]);
        int rc = MPI_SUCCESS;
        if (i != c->root) {
            if ((size_t)c->counts[i] * papc_type_size(c->recvtype) > 0)
                rc = papc_recv(c, slot, c->counts[i], c->recvtype, i, 0);
        } else if (c->sendbuf != MPI_IN_PLACE) {
            rc = papc_copy(c->sendbuf, c->sendcount, c->sendtype, slot,
                           c->counts[i], c->recvtype);
        }
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}
