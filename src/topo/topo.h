/*
 * topo.h — virtual topologies as pure functions (no MPI): trees over
 * virtual ranks (vrank 0 is the root; vrank = (rank - root + P) mod P),
 * rings and the split-binary pairing.  Unit-tested in tests/unit.
 */
#ifndef PAPC_TOPO_H
#define PAPC_TOPO_H

typedef enum papc_tree_kind {
    PAPC_TREE_LINEAR,           /* root has P-1 children */
    PAPC_TREE_CHAIN,            /* K chains from the root (chain: K = 1) */
    PAPC_TREE_KARY,             /* complete K-ary tree, breadth-first */
    PAPC_TREE_BINOMIAL,         /* balanced binomial, big subtrees first */
    PAPC_TREE_INORDER_BINOMIAL, /* binomial whose subtrees are contiguous
                                   vrank ranges, children in rank order */
    PAPC_TREE_KNOMIAL           /* k-nomial of radix K (K = 2: BINOMIAL),
                                   big subtrees first; see below */
} papc_tree_kind;

/* Parent and children of vrank in a tree of size nodes.
 * children must hold size entries; returns the number of children.
 * *parent is -1 for the root.  k is the fan-out of CHAIN and KARY and the
 * radix of KNOMIAL (values below 2 are taken as 2).
 *
 * KNOMIAL (Open MPI coll/base ompi_coll_base_topo_build_kmtree, MVAPICH2's
 * k-nomial bcast): write vrank v in base k.  Its parent is v with its
 * lowest nonzero digit cleared; its children are v + d k^j for d = 1..k-1
 * and every k^j below its lowest nonzero digit's place (below size for the
 * root), those < size.  So v sits as deep as it has nonzero digits (at most
 * ceil(log_k size)), the subtree of v is the vrank range [v, v + k^j) cut
 * at size (j: the place of its lowest nonzero digit), and a node has at
 * most (k-1) ceil(log_k size) children.  They are listed largest subtree
 * first (stable: higher places first, then d ascending, as Open MPI
 * lists them, but for a cut-short subtree), as BINOMIAL's are; with k = 2
 * it is BINOMIAL's tree. */
int papc_tree_node(papc_tree_kind kind, int k, int vrank, int size,
                   int *parent, int *children);

/* Number of nodes in the subtree rooted at vrank. */
int papc_tree_subtree_size(papc_tree_kind kind, int k, int vrank, int size);

/* For the in-order binomial tree: the subtree of vrank is the vrank range
 * [vrank, vrank + papc_inorder_span(vrank, size)). */
int papc_inorder_span(int vrank, int size);

static inline int papc_vrank(int rank, int root, int size) {
    return (rank - root + size) % size;
}
static inline int papc_real_rank(int vrank, int root, int size) {
    return (vrank + root) % size;
}

/* Children a node of the KNOMIAL tree of radix k (< 2: 2) over size
 * nodes may have: (k-1) ceil(log_k size), at most size - 1. */
int papc_knomial_max_children(int k, int size);

/* Largest power of two <= n (n >= 1). */
int papc_pof2_floor(int n);
/* ceil(log2(n)) for n >= 1. */
int papc_ceil_log2(int n);

/* Split-binary broadcast: the binary tree's root has a left subtree (the
 * subtree of vrank 1) and a right one (vrank 2).  Non-root nodes carry the
 * left (half 0) or the right (half 1) half of the message; after the tree
 * phase each node swaps halves with *partner, or, with *partner == -1,
 * receives the missing half straight from the root.  The root is passed
 * the number of such unpaired nodes via papc_split_binary_unpaired(). */
void papc_split_binary_pair(int vrank, int size, int *half, int *partner);
/* Fills list with the vranks that have no partner; returns how many. */
int papc_split_binary_unpaired(int size, int *list);

/* Blocks of a count split into n near-equal parts (the first count % n
 * parts one element larger): start and length of part i. */
void papc_block_range(int count, int n, int i, int *start, int *len);

#endif /* PAPC_TOPO_H */
