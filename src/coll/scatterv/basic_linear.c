/* basic_linear.c — scatterv: the root sends each non-empty block in rank
 * order from its displacement (Open MPI and MPICH).  Cost: Σ_i (α + m_i β). */
#include "../coll.h"

int papc_scatterv_basic_linear(const papc_call *c) {
    if (c->rank != c->root) {
        /* Skip by bytes, not elements: zero-size types move nothing. */
        if ((size_t)c->recvcount * papc_type_size(c->recvtype) == 0)
            return MPI_SUCCESS;
        return papc_recv(c, c->recvbuf, c->recvcount, c->recvtype, c->root, 0);
    }
    for (int i = 0; i < c->size; i++) {
        const char *block =
            papc_elem(c->sendbuf, c->sendtype, c->displs[i]);
        int rc = MPI_SUCCESS;
        if (i != c->root) {
            if ((size_t)c->counts[i] * papc_type_size(c->sendtype) > 0)
                rc = papc_send(c, block, c->counts[i], c->sendtype, i, 0);
        } else if (c->recvbuf != MPI_IN_PLACE) {
            rc = papc_copy(block, c->counts[i], c->sendtype, c->recvbuf,
                           c->recvcount, c->recvtype);
        }
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}
