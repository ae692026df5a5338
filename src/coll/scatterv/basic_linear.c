/* basic_linear.c — scatterv: the root sends each non-empty block in rank
 * order from its displacement (Open MPI and MPICH).  Cost: Σ_i (α + m_i β). */
#include "../coll.h"
#include "../bcast/model_bgs.h"

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

/* Model (issue 12), m bytes in all, equal blocks b = m/P, root 0:
 *   T = (P-1)(α + bβ) + bδ
 * The root copies its own block (i == root, first with root 0) and sends
 * the others with blocking sends in rank order; empty blocks travel
 * nowhere, so m = 0 costs nothing.  P = 1 is the copy of b = m. */
papc_terms papc_scatterv_basic_linear_model(const papc_model_in *in) {
    if (in->m <= 0 || in->P < 1) return papc_terms_zero();
    double b = in->m / in->P;
    papc_terms t = papc_terms_scale(papc_msg(b), in->P - 1);
    t = papc_terms_add(t, papc_bgs_copy(b));
    /* Traffic: the P - 1 non-empty blocks, one message each. */
    return papc_terms_traffic(t, in->P - 1, (in->P - 1) * b);
}
