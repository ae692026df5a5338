/* size_aware_binomial.c — scatterv over Träff's ordered, size-aware
 * binomial tree (papers/irregular-gatherv-scatterv.md §2-3, Theorem 1 and
 * "the linear time gather trees can likewise be used for the irregular
 * scatter problem"; the paper's TUW_Scatterv).  Alias `tuw`.
 *
 * The tree is the gatherv one (../irregular_tree.c), run backwards: each
 * relaying process receives its subtree's run of blocks (rank order) from
 * its parent, keeps its own block and sends each child its run, the
 * deepest subtree first.
 *
 * Cost (Hockney, m_i bytes of block i): construction 2⌈log2 p⌉ α with
 * constant-size messages, overlapped with the root's sends; data
 * ⌈log2 p⌉ α + β Σ_{i≠r} m_i at the root.  With the threshold T of
 * graceful degradation each block or subtree above T costs the root one
 * more α and is never relayed.
 *
 * The root knows every count and computes the tree itself (O(p)), so it
 * starts all its sends at once, before the other processes have finished
 * building the tree — the paper's root must wait for the construction
 * (§3).  Lone blocks (above T) go first, their receivers wait from the
 * start; then the subtrees, the latest merge (deepest subtree) first.
 * Every message leaves sendbuf directly: one run when its blocks lie back
 * to back in rank order at the displacements, else an indexed type built
 * from the displacements (overlapping blocks are fine for sends). */
#include <stdlib.h>
#include "../coll.h"
#include "../irregular_tree.h"

/* Starts the send of one planned message from sendbuf. */
static int post_send(const papc_call *c, const papc_itree_root *plan,
                     const papc_itree_msg *msg, MPI_Request *req) {
    char *addr;
    int count, derived;
    MPI_Datatype type;
    int rc = papc_itree_layout(c, plan, msg, c->sendbuf, c->sendtype, &addr,
                               &count, &type, &derived);
    if (rc != MPI_SUCCESS) return rc;
    rc = papc_isend(c, addr, count, type, msg->peer, msg->sub, req);
    if (derived) MPI_Type_free(&type); /* the pending send keeps it */
    return rc;
}

static int scatter_from_root(const papc_call *c) {
    papc_itree_root plan;
    int rc = papc_itree_root_plan(c, c->sendtype, &plan);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Request *reqs = malloc((size_t)(plan.nmsg ? plan.nmsg : 1) *
                               sizeof *reqs);
    if (!reqs) {
        papc_itree_root_free(&plan);
        return papc_error(MPI_ERR_NO_MEM, "%d requests", plan.nmsg);
    }
    /* The plan lists lone blocks first, then subtrees by rising merge
     * level: lone blocks in order, subtrees backwards. */
    int nlone = 0, n = 0;
    while (nlone < plan.nmsg && plan.msg[nlone].round < 0) nlone++;
    for (int i = 0; i < plan.nmsg && rc == MPI_SUCCESS; i++, n++) {
        int m = i < nlone ? i : plan.nmsg - 1 - (i - nlone);
        rc = post_send(c, &plan, &plan.msg[m], &reqs[n]);
    }
    if (rc == MPI_SUCCESS && c->recvbuf != MPI_IN_PLACE)
        rc = papc_copy(papc_elem(c->sendbuf, c->sendtype, c->displs[c->root]),
                       c->counts[c->root], c->sendtype, c->recvbuf,
                       c->recvcount, c->recvtype);
    if (rc == MPI_SUCCESS)
        rc = papc_waitall(n, reqs);
    else
        papc_cleanup_requests(n, reqs);
    free(reqs);
    papc_itree_root_free(&plan);
    return rc;
}

int papc_scatterv_size_aware_binomial(const papc_call *c) {
    if (c->rank == c->root) return scatter_from_root(c);
    return papc_itree_nonroot(c, PAPC_ITREE_SCATTER);
}
