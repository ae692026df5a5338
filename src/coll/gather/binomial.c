/* binomial.c — gather over the in-order binomial tree (Open MPI coll/base
 * binomial; model-based-selection.md §III-B3, pap-scatter-gather.md §2.1).
 * Ranks are renumbered relative to the root (vrank = rank - root mod P);
 * the subtree of vrank v is the vrank range [v, v + span(v)), so a node
 * gathers its subtree's blocks in vrank order and sends them to its parent
 * as one message.  Leaves send straight from sendbuf; inner nodes receive
 * their children's subtrees into a temporary laid out in sendtype (recvtype
 * is only significant at the root).  A run of blocks travels as one message
 * (block_run.h, shared with the binomial scatter).
 *
 * Cost (Hockney, block m bytes): ⌈log2 P⌉ α + (P-1) m β at the root
 * (one α more when root != 0, see below).
 *
 * Departures from Open MPI:
 * (1) The root never rotates.  Open MPI, for root != 0, receives everything
 *     into a temporary in vrank order and then copies it into recvbuf in
 *     rank order.  Here each subtree lands straight in recvbuf: the vranks
 *     [v, v+n) are the real ranks (v+root) mod P onwards, a contiguous run
 *     of blocks, except in the one subtree that spans real rank P-1 and
 *     rank 0.  That subtree's top node (a child of the root) sends its run
 *     in two messages split there, so each lands contiguous.  (Receiving it
 *     through a two-piece datatype instead was measured 10-25% slower at
 *     64 KiB-4 MiB with Open MPI's shared memory: a non-contiguous receive
 *     loses the single-copy transfer.)
 * (2) A node posts the receives from all its children at once and copies
 *     its own block while they are in flight (Open MPI copies first, then
 *     receives one child after the other). */
#include "../coll.h"
#include "../bcast/model_bgs.h"
#include "../block_run.h"
#include "topo/topo.h"

/* The binomial fan-out is at most ceil(log2 P) <= 31; one child of the
 * root may need two receives. */
#define MAX_CHILDREN 32
#define MAX_RECVS (MAX_CHILDREN + 1)

/* The root: every subtree lands in recvbuf at its real ranks. */
static int gather_at_root(const papc_call *c, const int *children,
                          int nchild) {
    MPI_Request reqs[MAX_RECVS];
    int nreq = 0, rc = MPI_SUCCESS;
    for (int i = 0; i < MAX_RECVS; i++) reqs[i] = MPI_REQUEST_NULL;
    for (int i = 0; i < nchild && rc == MPI_SUCCESS; i++) {
        int v = children[i], n = papc_inorder_span(v, c->size);
        int r = papc_real_rank(v, c->root, c->size); /* source, first block */
        int k = papc_wrap_split(c, v, n);
        if (k == 0) {
            rc = papc_run_irecv(c, c->recvbuf, c->recvcount, c->recvtype, r,
                                n, r, 0, &reqs[nreq++]);
        } else {
            rc = papc_run_irecv(c, c->recvbuf, c->recvcount, c->recvtype, r,
                                k, r, 0, &reqs[nreq++]);
            if (rc == MPI_SUCCESS)
                rc = papc_run_irecv(c, c->recvbuf, c->recvcount,
                                    c->recvtype, 0, n - k, r, 1,
                                    &reqs[nreq++]);
        }
    }
    if (rc == MPI_SUCCESS && c->sendbuf != MPI_IN_PLACE)
        rc = papc_copy(c->sendbuf, c->sendcount, c->sendtype,
                       papc_elem(c->recvbuf, c->recvtype,
                                 (MPI_Aint)c->root * c->recvcount),
                       c->recvcount, c->recvtype);
    if (rc != MPI_SUCCESS) {
        papc_cleanup_requests(nreq, reqs);
        return rc;
    }
    return papc_waitall(nreq, reqs);
}

/* Own block then the children's subtrees, in vrank order, into tmp. */
static int gather_subtree(const papc_call *c, int vrank, char *tmp,
                          const int *children, int nchild) {
    MPI_Request reqs[MAX_CHILDREN];
    int rc = MPI_SUCCESS;
    for (int i = 0; i < nchild; i++) reqs[i] = MPI_REQUEST_NULL;
    for (int i = 0; i < nchild && rc == MPI_SUCCESS; i++) {
        int v = children[i];
        rc = papc_run_irecv(c, tmp, c->sendcount, c->sendtype, v - vrank,
                            papc_inorder_span(v, c->size),
                            papc_real_rank(v, c->root, c->size), 0, &reqs[i]);
    }
    if (rc == MPI_SUCCESS)
        rc = papc_copy(c->sendbuf, c->sendcount, c->sendtype, tmp,
                       c->sendcount, c->sendtype);
    if (rc != MPI_SUCCESS) {
        papc_cleanup_requests(nchild, reqs);
        return rc;
    }
    return papc_waitall(nchild, reqs);
}

/* An inner node: gathers its subtree in a temporary of sendtype and sends
 * it up in one message (two when it wraps at the root). */
static int gather_at_inner(const papc_call *c, int vrank, int parent,
                           const int *children, int nchild) {
    int span = papc_inorder_span(vrank, c->size);
    int dst = papc_real_rank(parent, c->root, c->size);
    int k = parent == 0 ? papc_wrap_split(c, vrank, span) : 0;
    papc_tmpbuf tmp;
    int rc = papc_tmpbuf_alloc(&tmp, c->sendtype,
                               (size_t)span * (size_t)c->sendcount);
    if (rc != MPI_SUCCESS) return rc;
    rc = gather_subtree(c, vrank, tmp.ptr, children, nchild);
    if (rc == MPI_SUCCESS && k == 0)
        rc = papc_run_send(c, tmp.ptr, c->sendcount, c->sendtype, 0, span,
                           dst, 0);
    if (rc == MPI_SUCCESS && k > 0) {
        rc = papc_run_send(c, tmp.ptr, c->sendcount, c->sendtype, 0, k, dst,
                           0);
        if (rc == MPI_SUCCESS)
            rc = papc_run_send(c, tmp.ptr, c->sendcount, c->sendtype, k,
                               span - k, dst, 1);
    }
    papc_tmpbuf_free(&tmp);
    return rc;
}

int papc_gather_binomial(const papc_call *c) {
    int vrank = papc_vrank(c->rank, c->root, c->size);
    int parent, children[MAX_CHILDREN];
    int nchild = papc_tree_node(PAPC_TREE_INORDER_BINOMIAL, 0, vrank, c->size,
                                &parent, children);
    if (vrank == 0) return gather_at_root(c, children, nchild);
    if (nchild == 0)
        return papc_send(c, c->sendbuf, c->sendcount, c->sendtype,
                         papc_real_rank(parent, c->root, c->size), 0);
    return gather_at_inner(c, vrank, parent, children, nchild);
}

/* Model (issue 12), block m bytes, root 0 (papc_bgs_gather_tree):
 *   T = Σ over the root's children grouped by subtree span s (c of a span;
 *       smallest first) of γ(c+1)(α + s m β), + mδ
 *     = ceil(log2 P) α + (P-1) m β + mδ  with γ ≡ 1 when no two of the
 *       root's subtrees have the same span (eq. 15; P = 3, 5, 6, 9, 10,
 *       12, ... have two, which come as one fan-in).
 * gather_at_root posts the receives of all its children's subtrees at
 * once, copies its own block, then waits; a subtree of span s (vranks [v,
 * v+s), papc_inorder_span) is ready after its own children's (gather_at_
 * inner -> gather_subtree: receives posted together, own block copied
 * meanwhile -- overlapped, not counted), so the spans 1, 2, 4, ... come
 * one after the other and equal ones together.  Leaves and relays send
 * with blocking sends (papc_send, papc_run_send).  With root != 0 the
 * subtree that wraps past rank P-1 comes in two messages: one α more (not
 * modelled).  m = 0 costs nothing (call.c); P = 1 is the copy.
 * Traffic: every non-root sends its subtree once, P - 1 messages of
 * m Σ spans bytes (papc_bgs_binomial_span_sum). */
papc_terms papc_gather_binomial_model(const papc_model_in *in) {
    if (in->m <= 0) return papc_terms_zero();
    papc_bgs_gather_costs k = {0, 0, 0, 0};
    papc_terms t = papc_bgs_gather_tree(in, &k);
    return papc_terms_traffic(t, in->P - 1,
                              in->m * papc_bgs_binomial_span_sum(in->P));
}
