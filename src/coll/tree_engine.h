/*
 * tree_engine.h — the one segmented tree broadcast and the one segmented
 * tree reduction that every tree-shaped bcast and reduce algorithm runs,
 * fed by the tree builders of topo/ (as Open MPI's coll/base generic bcast
 * and generic reduce are fed by its tree builders).
 *
 * A broadcast cuts its segments in bytes of the packed message (a
 * papc_bytes view), the same bytes on every rank whatever datatype each
 * rank describes them with (MPI allows different datatypes of one
 * signature): MPI_BYTE goes on the wire, a contiguous buffer travels in
 * place and a non-contiguous one is packed at the root and unpacked at the
 * others.  A reduction's segments are whole elements of the datatype
 * (papc_segment_count): MPI requires the same datatype on every rank there.
 */
#ifndef PAPC_TREE_ENGINE_H
#define PAPC_TREE_ENGINE_H

#include "../core/core.h"
#include "../topo/topo.h"

/* Children kept inline; larger fan-outs (a linear tree of a big
 * communicator) go to the heap. */
#define PAPC_TREE_INLINE_CHILDREN 64

/* One process's place in a tree, in real ranks of the call's communicator.
 * Build with papc_tree_place_init, release with papc_tree_place_free; do
 * not copy (children may point into the struct). */
typedef struct papc_tree_place {
    int parent;    /* real rank, -1 at the tree's root */
    int nchildren;
    int *children; /* real ranks, in the builder's order */
    int inline_children[PAPC_TREE_INLINE_CHILDREN];
} papc_tree_place;

/* Place of rank in the (kind, k) tree of size nodes rooted at root. */
int papc_tree_place_init(papc_tree_place *p, papc_tree_kind kind, int k,
                         int rank, int root, int size);
void papc_tree_place_free(papc_tree_place *p);

/* Bytes per segment of a broadcast of len bytes with PAPC_SEGSIZE segsize
 * (0: the whole message), bounded so one segment fits an int: every
 * process that cuts a broadcast's bytes cuts them with this. */
size_t papc_tree_seg_bytes(size_t segsize, size_t len);

/* Segmented broadcast of len bytes over the tree described by this
 * process's place p: the tree's root sends every segment to all its
 * children (non-blocking, then waits), inner nodes receive a segment and
 * forward it, with the next segment's receive already posted.  Every
 * process of the tree must pass the same len and segsize.  Uses tag sub of
 * the call.  len 0 is a no-op. */
int papc_tree_bcast_bytes(const papc_call *c, const papc_tree_place *p,
                          char *bytes, size_t len, size_t segsize, int sub);

/* Broadcast of (buf, count, t) over the (kind, k) tree rooted at root:
 * papc_tree_bcast_bytes of its packed view.  Ranks may pass different
 * (count, t) of the same signature. */
int papc_tree_bcast(const papc_call *c, papc_tree_kind kind, int k,
                    void *buf, int count, MPI_Datatype t, int root,
                    size_t segsize, int sub);

/* Segmented reduction of count elements of t with op to root.
 * sendbuf may be MPI_IN_PLACE at root (the data is then in recvbuf);
 * recvbuf is only touched at root.
 *
 * A commutative op runs over the (kind, k) tree rooted at root.  A
 * non-commutative op keeps MPI's order rank 0 op rank 1 op ... op rank P-1:
 * it needs a tree whose subtrees are contiguous rank ranges with children in
 * rank order (in-order binomial, chain with k = 1, linear) rooted at rank 0
 * — another kind is replaced by the in-order binomial tree — and, when root
 * is not 0, rank 0 sends the whole result on to root (as Open MPI does).
 * Uses tags sub (tree) and sub + 1 (result to root). */
int papc_tree_reduce(const papc_call *c, papc_tree_kind kind, int k,
                     const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype t, MPI_Op op, int commutative, int root,
                     size_t segsize, int sub);

#endif /* PAPC_TREE_ENGINE_H */
