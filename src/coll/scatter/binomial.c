/* binomial.c — scatter over the in-order binomial tree (Open MPI coll/base
 * binomial scatter; pap-scatter-gather.md §2.1), the mirror of the binomial
 * gather.  Ranks are renumbered relative to the root (vrank = rank - root
 * mod P); the subtree of vrank v is the vrank range [v, v + span(v)).  Each
 * holder sends every child the contiguous run of blocks of the child's
 * subtree, largest subtree first, with blocking sends; inner nodes receive
 * their subtree's run into a temporary in recvtype (sendtype is only
 * significant at the root), forward the children's pieces and keep their
 * own; leaves receive straight into recvbuf.
 *
 * Cost (Hockney, block m bytes): ⌈log2 P⌉ α + (P-1) m β at the root.
 *
 * Departures from Open MPI: (1) the root never rotates sendbuf into a
 * temporary.  The vrank range of a subtree is a contiguous run of real
 * ranks, except for the one subtree that wraps past rank P-1, which is sent
 * through a two-piece hindexed datatype.  (2) A node copies its own block
 * after it has served its children (Open MPI copies first): the copy is off
 * the critical path. */
#include <limits.h>
#include "../coll.h"
#include "topo/topo.h"

/* The binomial fan-out is at most ceil(log2 P) <= 31. */
#define MAX_CHILDREN 32

/* n consecutive blocks (count elements of t each) starting at block first
 * of a buffer of nblocks blocks, continuing at block 0 past the end: one
 * (buf, count, type) triple for MPI.  type is t when the run does not wrap
 * and its element count fits in an int; otherwise a derived type to free
 * with block_run_done. */
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

static void block_run_done(block_run *r) {
    if (r->derived) MPI_Type_free(&r->type);
    r->derived = 0;
}

/* Sends each child its subtree's run of blocks from buf, largest subtree
 * (last child) first.  The real rank of vrank v sits at block
 * (v - base + shift) mod nblocks of buf. */
static int send_to_children(const papc_call *c, const void *buf, int count,
                            MPI_Datatype t, int nblocks, int base, int shift,
                            const int *children, int nchild) {
    for (int i = nchild - 1; i >= 0; i--) {
        int v = children[i];
        block_run run;
        int rc = block_run_make(&run, buf, count, t, nblocks,
                                (v - base + shift) % nblocks,
                                papc_inorder_span(v, c->size));
        if (rc == MPI_SUCCESS)
            rc = papc_send(c, run.buf, run.count, run.type,
                           papc_real_rank(v, c->root, c->size), 0);
        block_run_done(&run);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* The root: children's runs straight from sendbuf, then its own block. */
static int scatter_at_root(const papc_call *c, const int *children,
                           int nchild) {
    int rc = send_to_children(c, c->sendbuf, c->sendcount, c->sendtype,
                              c->size, 0, c->root, children, nchild);
    if (rc != MPI_SUCCESS || c->recvbuf == MPI_IN_PLACE) return rc;
    return papc_copy(papc_elem(c->sendbuf, c->sendtype,
                               (MPI_Aint)c->root * c->sendcount),
                     c->sendcount, c->sendtype, c->recvbuf, c->recvcount,
                     c->recvtype);
}

/* An inner node: the subtree's run into a temporary of recvtype, the
 * children's pieces forwarded, own block (the first) kept. */
static int scatter_at_inner(const papc_call *c, int vrank, int parent,
                            const int *children, int nchild) {
    int span = papc_inorder_span(vrank, c->size);
    papc_tmpbuf tmp;
    block_run run;
    int rc = papc_tmpbuf_alloc(&tmp, c->recvtype,
                               (size_t)span * (size_t)c->recvcount);
    if (rc != MPI_SUCCESS) return rc;
    rc = block_run_make(&run, tmp.ptr, c->recvcount, c->recvtype, span, 0,
                        span);
    if (rc == MPI_SUCCESS) {
        rc = papc_recv(c, run.buf, run.count, run.type,
                       papc_real_rank(parent, c->root, c->size), 0);
        block_run_done(&run);
    }
    if (rc == MPI_SUCCESS)
        rc = send_to_children(c, tmp.ptr, c->recvcount, c->recvtype, span,
                              vrank, 0, children, nchild);
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
