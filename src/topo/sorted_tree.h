/*
 * sorted_tree.h — the arrival-sorted binomial trees of the SBN/BSBN
 * scatter and gather (pap-scatter-gather.md §4, Figs. 7, 8, 11, 12), as
 * pure functions (no MPI).  Unit-tested in tests/unit/test_sorted_tree.c.
 *
 * The tree is the in-order binomial tree over "nranks" 0..P-1 (nrank 0 is
 * the root), for any P >= 1:
 *   parent(v)  = v - lowbit(v)                         (v > 0)
 *   subtree(v) = the nrank range [v, v + span(v)),  span(v) = min(lowbit(v),
 *                P - v) (span(0) = P)
 *   children   = v + 2^j < P for 2^j < lowbit(v) (every 2^j < P at the root)
 * so every subtree is a contiguous run of nranks: a subtree's blocks
 * travel as one run in nrank order.
 *
 * What the arrival order decides is which rank sits at which nrank (the
 * map rank_of[nrank]); the root always stays at nrank 0.
 *
 * Scatter: the earliest ranks get the nranks that receive earliest.  Each
 * holder sends to its children largest subtree first, one message per
 * step, so child number i (1-based, in that order) of v receives at
 * step(v) + i.  The non-root nranks are ranked by (step, position of the
 * parent in this same ranking) -- a parent ranked earlier gets its data
 * earlier, so its child of the same step does too.  For P a power of two
 * the ranking is the bit reversal of 1..P-1 (the paper's shuffle); for
 * other P it is the same idea where the bit reversal has no meaning.
 *
 * Gather: with every node receiving from all its children at once, the
 * root completes at max over v of (arrival(v) + tail(v)), where tail(v) =
 * sum over the nodes u on the path from v up to (not including) the root
 * of (alpha + span(u) * block_cost): the sends v's block still has to make
 * once v has arrived (Hockney, no contention).  The tails do not depend on
 * the placement, so the maximum is smallest when the latest rank gets the
 * smallest tail, the next latest the next smallest, and so on (pairing the
 * largest arrival with the smallest tail minimises the largest sum).  The
 * latest ranks therefore sit on short paths of small subtrees near the
 * root and the earliest ranks do the aggregation -- the paper's
 * "descending" sort, which for a power of two and block_cost >> alpha is
 * exactly nrank i for the i-th latest.
 */
#ifndef PAPC_SORTED_TREE_H
#define PAPC_SORTED_TREE_H

/* Most children a node can have: ceil(log2 P) <= 31. */
#define PAPC_STREE_MAX_CHILDREN 32

/* Parent of nrank v (-1 for the root). */
int papc_stree_parent(int v);
/* Nodes in the subtree of v: [v, v + span). */
int papc_stree_span(int v, int size);
/* Children of v, largest subtree first, equal ones farthest first (the
 * scatter's sending order);
 * children must hold PAPC_STREE_MAX_CHILDREN entries.  Returns how many. */
int papc_stree_children(int v, int size, int *children);
/* Step at which v receives in the scatter (root 0; child i of u, 1-based
 * in sending order, at step(u) + i). */
int papc_stree_scatter_step(int v, int size);

/* The nranks from the one that receives first in the scatter to the one
 * that receives last: seq[0] = 0 (the root), seq[1..size-1] as described
 * above.  Returns 0, -1 when out of memory. */
int papc_stree_scatter_seq(int size, int *seq);
/* tail(v) of the gather for a message cost alpha + blocks * block_cost
 * (see above); 0 for the root. */
double papc_stree_gather_tail(int v, int size, double alpha,
                              double block_cost);
/* The nranks from the one best suited to the latest rank to the one for
 * the earliest: seq[0] = 0 (the root), then by tail ascending, ties by
 * depth, then nrank.  Returns 0, -1 when out of memory. */
int papc_stree_gather_seq(int size, double alpha, double block_cost,
                          int *seq);

/* The maps.  order: the ranks 0..size-1, predicted earliest first (any
 * permutation; the root may be anywhere in it).  rank_of[nrank] receives
 * the rank placed at each nrank: the root at 0, the other ranks in
 * their order along papc_stree_scatter_seq (scatter: the earliest at the
 * first receiver) or along papc_stree_gather_seq (gather: the latest at
 * the smallest tail).  Returns 0, -1 when order is not a permutation of
 * 0..size-1 or root is out of range or memory runs out. */
int papc_stree_scatter_map(int size, const int *order, int root,
                           int *rank_of);
int papc_stree_gather_map(int size, const int *order, int root,
                          double alpha, double block_cost, int *rank_of);

/* nrank_of[rank] from rank_of[nrank]; -1 when rank_of is not a
 * permutation of 0..size-1, else 0. */
int papc_stree_invert(int size, const int *rank_of, int *nrank_of);

#endif /* PAPC_SORTED_TREE_H */
