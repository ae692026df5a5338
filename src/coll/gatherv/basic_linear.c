/* basic_linear.c — gatherv: the root receives each non-empty block in rank
 * order at its displacement (Open MPI and MPICH).  Cost: Σ_i (α + m_i β). */
#include "../coll.h"
#include "../bcast/model_bgs.h"

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

/* Model (issue 12), m bytes in all, equal blocks b = m/P, root 0:
 *   T = (P-1)(α + bβ) + bδ
 * The root copies its own block (i == root, first with root 0) and takes
 * the others with blocking receives in rank order; empty blocks travel
 * nowhere (both ends skip them), so m = 0 costs nothing.  P = 1 is the
 * copy of b = m. */
papc_terms papc_gatherv_basic_linear_model(const papc_model_in *in) {
    if (in->m <= 0 || in->P < 1) return papc_terms_zero();
    double b = in->m / in->P;
    papc_terms t = papc_terms_scale(papc_msg(b), in->P - 1);
    t = papc_terms_add(t, papc_bgs_copy(b));
    /* Traffic: the P - 1 non-empty blocks, one message each. */
    return papc_terms_traffic(t, in->P - 1, (in->P - 1) * b);
}
