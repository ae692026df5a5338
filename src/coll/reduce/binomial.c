/* binomial.c — reduce: segmented binomial tree (Open MPI coll/base
 * binomial, which runs its generic reduce on the in-order binomial tree;
 * MPICH binomial).  Each node folds its children's segments into its own,
 * smallest subtree first, and sends the partial result to its parent,
 * segments pipelined (PAPC_SEGSIZE).
 * Cost with n_s segments: about (n_s + ceil(log2 P) - 1) steps, each of up
 * to ceil(log2 P) (alpha + m/n_s (beta + gamma)) (the root's fan-in);
 * unsegmented, log2 P (alpha + m beta + m gamma) as in MPICH.
 * Commutative ops: the tree is rooted at the call's root.  Non-commutative
 * ops: the tree is rooted at rank 0 over real ranks (every subtree a
 * contiguous rank range, children folded as right operands in rank order,
 * so the result is exactly rank 0 op ... op rank P-1); when root != 0,
 * rank 0 then sends the whole result to root (one more alpha + m beta), as
 * Open MPI's in-order reductions do.
 * Departures (see tree_engine.c): no copy of any result, all children's
 * receives of a segment posted at once, non-blocking sends to the parent
 * with a small window instead of blocking sends. */
#include "../coll.h"
#include "../tree_engine.h"

int papc_reduce_binomial(const papc_call *c) {
    return papc_tree_reduce(c, PAPC_TREE_INORDER_BINOMIAL, 0, c->sendbuf,
                            c->recvbuf, c->recvcount, c->recvtype, c->op,
                            c->commutative, c->root, c->segsize, 0);
}
