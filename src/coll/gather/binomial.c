/* binomial.c — gather over the in-order binomial tree (Open MPI coll/base
 * binomial; model-based-selection.md §III-B3, pap-scatter-gather.md §2.1).
 * Ranks are renumbered relative to the root (vrank = rank - root mod P);
 * the subtree of vrank v is the vrank range [v, v + span(v)), so a node
 * gathers its subtree's blocks in vrank order and sends them to its parent
 * as one message.  Leaves send straight from sendbuf; inner nodes receive
 * their children's subtrees into a temporary laid out in sendtype (recvtype
 * is only significant at the root).
 *
 * Cost (Hockney, block m bytes): ⌈log2 P⌉ α + (P-1) m β at the root.
 *
 * Departures from Open MPI: (1) the root never rotates.  Open MPI, for
 * root != 0, receives everything into a temporary in vrank order and then
 * copies it into recvbuf in rank order.  Here each child's subtree is
 * received straight into recvbuf: vranks [v, v+n) are the real ranks
 * (v+root) mod P onwards, a contiguous run of blocks except for the one
 * subtree that wraps past rank P-1, which is received through a two-piece
 * hindexed datatype.  (2) The receives from all children are posted at once
 * and the node's own block is copied while they are in flight (Open MPI
 * copies first and receives one child after the other). */
#include <limits.h>
#include "../coll.h"
#include "topo/topo.h"

/* The binomial fan-out is at most ceil(log2 P) <= 31. */
#define MAX_CHILDREN 32

/* n consecutive blocks (count elements of t each) starting at block first
 * of a buffer of nblocks blocks, continuing at block 0 past the end: one
 * (buf, count, type) triple for MPI.  type is t when the run does not wrap
 * and its element count fits in an int; otherwise a derived type, already
 * marked for freeing (MPI keeps it alive while a request uses it). */
typedef struct block_run {
    char *buf;
    int count;
    MPI_Datatype type;
    int derived;
} block_run;

static int block_run_make(block_run *r, const void *buf, int count,
                          MPI_Datatype t, int nblocks, int first, int n) {
    MPI_Aint block_ext = (MPI_Aint)count * papc_extent(t);
    int wraps = first + n > nblocks;
    r->derived = 0;
    if (!wraps && (long long)n * count <= INT_MAX) {
        r->buf = (char *)buf + first * block_ext;
        r->count = n * count;
        r->type = t;
        return MPI_SUCCESS;
    }
    int lens[2] = {wraps ? nblocks - first : n, wraps ? first + n - nblocks : 0};
    MPI_Aint displs[2] = {first * block_ext, 0};
    MPI_Datatype block;
    PAPC_CHECK(MPI_Type_contiguous(count, t, &block));
    int rc = MPI_Type_create_hindexed(wraps ? 2 : 1, lens, displs, block,
                                      &r->type);
    MPI_Type_free(&block);
    if (rc != MPI_SUCCESS) return papc_mpi_error(rc, "MPI_Type_create_hindexed");
    PAPC_CHECK(MPI_Type_commit(&r->type));
    r->buf = (char *)buf;
    r->count = 1;
    r->derived = 1;
    return MPI_SUCCESS;
}

/* Releases the run's own type (pending requests keep it alive). */
static void block_run_done(block_run *r) {
    if (r->derived) MPI_Type_free(&r->type);
    r->derived = 0;
}

/* Posts one receive per child for its subtree's run of blocks in buf
 * (nblocks blocks indexed from vrank base, real rank of vrank v is
 * (v + shift) mod nblocks in buf). */
static int post_child_receives(const papc_call *c, void *buf, int count,
                               MPI_Datatype t, int nblocks, int base,
                               int shift, const int *children, int nchild,
                               MPI_Request *reqs) {
    for (int i = 0; i < nchild; i++) reqs[i] = MPI_REQUEST_NULL;
    for (int i = 0; i < nchild; i++) {
        int v = children[i];
        int n = papc_inorder_span(v, c->size);
        block_run run;
        int rc = block_run_make(&run, buf, count, t, nblocks,
                                (v - base + shift) % nblocks, n);
        if (rc == MPI_SUCCESS)
            rc = papc_irecv(c, run.buf, run.count, run.type,
                            papc_real_rank(v, c->root, c->size), 0, &reqs[i]);
        block_run_done(&run);
        if (rc != MPI_SUCCESS) {
            papc_cleanup_requests(nchild, reqs);
            return rc;
        }
    }
    return MPI_SUCCESS;
}

/* The root: subtrees land in recvbuf at their real ranks, no rotation. */
static int gather_at_root(const papc_call *c, const int *children,
                          int nchild) {
    MPI_Request reqs[MAX_CHILDREN];
    int rc = post_child_receives(c, c->recvbuf, c->recvcount, c->recvtype,
                                 c->size, 0, c->root, children, nchild, reqs);
    if (rc != MPI_SUCCESS) return rc;
    if (c->sendbuf != MPI_IN_PLACE)
        rc = papc_copy(c->sendbuf, c->sendcount, c->sendtype,
                       papc_elem(c->recvbuf, c->recvtype,
                                 (MPI_Aint)c->root * c->recvcount),
                       c->recvcount, c->recvtype);
    if (rc != MPI_SUCCESS) {
        papc_cleanup_requests(nchild, reqs);
        return rc;
    }
    return papc_waitall(nchild, reqs);
}

/* An inner node: own block then the children's subtrees, in vrank order,
 * in a temporary of sendtype; the whole run goes to the parent. */
static int gather_at_inner(const papc_call *c, int vrank, int parent,
                           const int *children, int nchild) {
    int span = papc_inorder_span(vrank, c->size);
    papc_tmpbuf tmp;
    MPI_Request reqs[MAX_CHILDREN];
    int rc = papc_tmpbuf_alloc(&tmp, c->sendtype,
                               (size_t)span * (size_t)c->sendcount);
    if (rc != MPI_SUCCESS) return rc;
    rc = post_child_receives(c, tmp.ptr, c->sendcount, c->sendtype, span,
                             vrank, 0, children, nchild, reqs);
    if (rc == MPI_SUCCESS) {
        rc = papc_copy(c->sendbuf, c->sendcount, c->sendtype, tmp.ptr,
                       c->sendcount, c->sendtype);
        if (rc == MPI_SUCCESS) rc = papc_waitall(nchild, reqs);
        else papc_cleanup_requests(nchild, reqs);
    }
    block_run run;
    if (rc == MPI_SUCCESS)
        rc = block_run_make(&run, tmp.ptr, c->sendcount, c->sendtype, span, 0,
                            span);
    if (rc == MPI_SUCCESS) {
        rc = papc_send(c, run.buf, run.count, run.type,
                       papc_real_rank(parent, c->root, c->size), 0);
        block_run_done(&run);
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
