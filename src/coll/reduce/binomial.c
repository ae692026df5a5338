/* binomial.c — reduce: segmented binomial tree (Open MPI coll/base
 * binomial, which runs its generic reduce on the in-order binomial tree;
 * MPICH binomial).  Each node folds its children's segments into its own,
 * smallest subtree first, and sends the partial result to its parent,
 * segments pipelined (PAPC_SEGSIZE).
 * Cost: about (ceil(log2 P) + n_s - 1)(alpha + m/n_s (beta + gamma)) per
 * level of fan-in, with n_s segments.
 * Commutative ops: the tree is rooted at the call's root.  Non-commutative
 * ops: the tree is rooted at rank 0 over real ranks (every subtree a
 * contiguous rank range, children folded as right operands in rank order,
 * so the result is exactly rank 0 op ... op rank P-1) and rank 0 streams
 * the result segments to the root — Open MPI instead sends the whole
 * result after the tree, one more m beta. */
#include "../coll.h"
#include "../tree_engine.h"

int papc_reduce_binomial(const papc_call *c) {
    return papc_tree_reduce(c, PAPC_TREE_INORDER_BINOMIAL, 0, c->sendbuf,
                            c->recvbuf, c->recvcount, c->recvtype, c->op,
                            c->commutative, c->root, c->segsize, 0);
}
