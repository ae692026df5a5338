/* binomial.c — scatter over the in-order binomial tree (Open MPI coll/base
 * binomial scatter; pap-scatter-gather.md §2.1), the mirror of the binomial
 * gather.  Ranks are renumbered relative to the root (vrank = rank - root
 * mod P); the subtree of vrank v is the vrank range [v, v + span(v)).  Each
 * holder sends every child the contiguous run of blocks of the child's
 * subtree, largest subtree first, with blocking sends; inner nodes receive
 * their subtree's run into a temporary in recvtype (sendtype is only
 * significant at the root), forward the children's pieces and keep their
 * own; leaves receive straight into recvbuf.  A run of blocks travels as
 * one message (block_run.h, shared with the binomial gather).
 *
 * Cost (Hockney, block m bytes): ⌈log2 P⌉ α + (P-1) m β at the root
 * (one α more when root != 0, see below).
 *
 * Departures from Open MPI:
 * (1) The root never rotates sendbuf into a temporary (Open MPI does for
 *     root != 0).  The vrank range of a subtree is a contiguous run of real
 *     ranks except in the one subtree that spans real rank P-1 and rank 0;
 *     the root sends that run in two messages split there, each straight
 *     from sendbuf (a two-piece datatype instead was measured slower: a
 *     non-contiguous message loses Open MPI's single-copy transfer).
 * (2) A node copies its own block after serving its children (Open MPI
 *     copies first): the copy is off the critical path. */
#include "../coll.h"
#include "../bcast/model_bgs.h"
#include "../block_run.h"
#include "topo/topo.h"

/* The binomial fan-out is at most ceil(log2 P) <= 31. */
#define MAX_CHILDREN 32

/* The root: each child's run straight from sendbuf, largest first, then
 * its own block. */
static int scatter_at_root(const papc_call *c, const int *children,
                           int nchild) {
    int rc = MPI_SUCCESS;
    for (int i = nchild - 1; i >= 0 && rc == MPI_SUCCESS; i--) {
        int v = children[i], n = papc_inorder_span(v, c->size);
        int r = papc_real_rank(v, c->root, c->size); /* dest, first block */
        int k = papc_wrap_split(c, v, n);
        if (k == 0) {
            rc = papc_run_send(c, c->sendbuf, c->sendcount, c->sendtype, r,
                               n, r, 0);
        } else {
            rc = papc_run_send(c, c->sendbuf, c->sendcount, c->sendtype, r,
                               k, r, 0);
            if (rc == MPI_SUCCESS)
                rc = papc_run_send(c, c->sendbuf, c->sendcount, c->sendtype,
                                   0, n - k, r, 1);
        }
    }
    if (rc != MPI_SUCCESS || c->recvbuf == MPI_IN_PLACE) return rc;
    return papc_copy(papc_elem(c->sendbuf, c->sendtype,
                               (MPI_Aint)c->root * c->sendcount),
                     c->sendcount, c->sendtype, c->recvbuf, c->recvcount,
                     c->recvtype);
}

/* The subtree's run from the parent into tmp (two messages when it wraps
 * at the root). */
static int receive_subtree(const papc_call *c, int vrank, int parent,
                           int span, char *tmp) {
    MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int src = papc_real_rank(parent, c->root, c->size);
    int k = parent == 0 ? papc_wrap_split(c, vrank, span) : 0;
    int rc = papc_run_irecv(c, tmp, c->recvcount, c->recvtype, 0,
                            k ? k : span, src, 0, &reqs[0]);
    if (rc == MPI_SUCCESS && k)
        rc = papc_run_irecv(c, tmp, c->recvcount, c->recvtype, k, span - k,
                            src, 1, &reqs[1]);
    if (rc != MPI_SUCCESS) {
        papc_cleanup_requests(2, reqs);
        return rc;
    }
    return papc_waitall(k ? 2 : 1, reqs);
}

/* An inner node: the subtree's run into a temporary of recvtype, the
 * children's pieces forwarded largest first, its own block (the first)
 * kept. */
static int scatter_at_inner(const papc_call *c, int vrank, int parent,
                            const int *children, int nchild) {
    int span = papc_inorder_span(vrank, c->size);
    papc_tmpbuf tmp;
    int rc = papc_tmpbuf_alloc(&tmp, c->recvtype,
                               (size_t)span * (size_t)c->recvcount);
    if (rc != MPI_SUCCESS) return rc;
    rc = receive_subtree(c, vrank, parent, span, tmp.ptr);
    for (int i = nchild - 1; i >= 0 && rc == MPI_SUCCESS; i--) {
        int v = children[i];
        rc = papc_run_send(c, tmp.ptr, c->recvcount, c->recvtype, v - vrank,
                           papc_inorder_span(v, c->size),
                           papc_real_rank(v, c->root, c->size), 0);
    }
    if (rc == MPI_SUCCESS)
        rc = papc_copy(tmp.ptr, c->recvcount, c->recvtype, c->recvbuf,
                       c->recvcount, c->recvtype);
    papc_tmpbuf_free(&tmp);
    return rc;
}

int papc_scatter_binomial(const papc_call *c) {
    int vrank = papc_vrank(c->rank, c->root, c->size);
    int parent, children[MAX_CHILDREN];
    int nchild = papc_tree_node(PAPC_TREE_INORDER_BINOMIAL, 0, vrank, c->size,
                                &parent, children);
    if (vrank == 0) return scatter_at_root(c, children, nchild);
    if (nchild == 0)
        return papc_recv(c, c->recvbuf, c->recvcount, c->recvtype,
                         papc_real_rank(parent, c->root, c->size), 0);
    return scatter_at_inner(c, vrank, parent, children, nchild);
}

/* Model (issue 12), block m bytes, root 0:
 *   T = ceil(log2 P) α + (P-1) m β + mδ
 * Every holder sends its children their runs with blocking sends, largest
 * offset first, then copies its own block (scatter_at_root; an inner node
 * first receives its run, receive_subtree, then scatter_at_inner); leaves
 * receive straight into recvbuf.  A holder of a span n finishes at E(n) =
 * max(all its sends + mδ, its sends up to child i + E(span_i)); with
 * E(s) = ceil(log2 s) α + (s-1) m β + mδ for s >= 2, E(1) = 0, the i-th
 * child (offset 2^(L-i), span <= 2^(L-i), the later ones spanning
 * 2^(L-i) - 1 in all) never ends later in any term, so E(P) is the root's
 * own line.  With root != 0 the wrapping subtree costs one α more (not
 * modelled).  m = 0 costs nothing (call.c); P = 1 is the copy. */
papc_terms papc_scatter_binomial_model(const papc_model_in *in) {
    if (in->m <= 0) return papc_terms_zero();
    papc_terms t = {papc_model_ceil_log2(in->P), (in->P - 1) * in->m, 0, 0,
                    0, 0};
    t = papc_terms_add(t, papc_bgs_copy(in->m));
    /* Traffic: every non-root receives its subtree's run once, P - 1
     * messages of m Σ spans bytes (papc_bgs_binomial_span_sum). */
    return papc_terms_traffic(t, in->P - 1,
                              in->m * papc_bgs_binomial_span_sum(in->P));
}
