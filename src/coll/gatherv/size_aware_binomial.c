/* size_aware_binomial.c — gatherv over Träff's ordered, size-aware
 * binomial tree (papers/irregular-gatherv-scatterv.md §2-3, Lemmas 1-3,
 * Theorem 1; the paper's TUW_Gatherv).  Alias `tuw`.
 *
 * The processes form an ordered hypercube; ⌈log2 p⌉ rounds of constant-
 * size messages between the cubes' fixed roots build a binomial tree whose
 * shape follows the block sizes: at each merge the cube with the smaller
 * gather time sends its whole run of blocks (in rank order) to the other
 * cube's gather root, and a cube holding the given root always sends to it
 * (Lemma 2).  Construction and relaying at non-root processes, and the
 * root's plan, are in ../irregular_tree.c; this file is the root's side.
 *
 * Cost (Hockney, m_i bytes of block i): construction 2⌈log2 p⌉ α with
 * constant-size messages (none at the root); data ⌈log2 p⌉ α +
 * β Σ_{i≠r} m_i at the root, plus Lemma 2's penalty
 * β (M_d' - m_{r_d'} - Σ_{j<d'} M_j) when a subtree is late.  With the
 * threshold T of graceful degradation each block or subtree above T costs
 * the root one more α and is never relayed (linear behaviour for big
 * blocks).
 *
 * The root receives every message straight into recvbuf: one run when the
 * message's blocks lie back to back in rank order at the displacements
 * (the common case), otherwise through an indexed type built from the
 * displacements (gaps, reversed or interleaved displacements) — never a
 * copy.  It knows every count, so it computes the whole tree itself
 * (O(p)) and posts all receives at once, before any data arrive.
 * Departures from the paper: see ../irregular_tree.c (root-local tree,
 * MPI_PACKED relays, threshold). */
#include <stdlib.h>
#include "../coll.h"
#include "../irregular_tree.h"

/* Posts the receive of one planned message into recvbuf. */
static int post_receive(const papc_call *c, const papc_itree_root *plan,
                        const papc_itree_msg *msg, MPI_Request *req) {
    char *addr;
    int count, derived;
    MPI_Datatype type;
    int rc = papc_itree_layout(c, plan, msg, c->recvbuf, c->recvtype, &addr,
                               &count, &type, &derived);
    if (rc != MPI_SUCCESS) return rc;
    rc = papc_irecv(c, addr, count, type, msg->peer, msg->sub, req);
    if (derived) MPI_Type_free(&type); /* the pending receive keeps it */
    return rc;
}

static int gather_at_root(const papc_call *c) {
    papc_itree_root plan;
    int rc = papc_itree_root_plan(c, c->recvtype, &plan);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Request *reqs = malloc((size_t)(plan.nmsg ? plan.nmsg : 1) *
                               sizeof *reqs);
    if (!reqs) {
        papc_itree_root_free(&plan);
        return papc_error(MPI_ERR_NO_MEM, "%d requests", plan.nmsg);
    }
    int n = 0;
    for (; n < plan.nmsg && rc == MPI_SUCCESS; n++)
        rc = post_receive(c, &plan, &plan.msg[n], &reqs[n]);
    if (rc == MPI_SUCCESS && c->sendbuf != MPI_IN_PLACE)
        rc = papc_copy(c->sendbuf, c->sendcount, c->sendtype,
                       papc_elem(c->recvbuf, c->recvtype, c->displs[c->root]),
                       c->counts[c->root], c->recvtype);
    if (rc == MPI_SUCCESS)
        rc = papc_waitall(n, reqs);
    else
        papc_cleanup_requests(n, reqs);
    free(reqs);
    papc_itree_root_free(&plan);
    return rc;
}

int papc_gatherv_size_aware_binomial(const papc_call *c) {
    if (c->rank == c->root) return gather_at_root(c);
    return papc_itree_nonroot(c, PAPC_ITREE_GATHER);
}
