/*
 * itree_model.h — the size-aware binomial tree of gatherv/scatterv
 * size_aware_binomial (../irregular_tree.c) as its cost models see it
 * (issue 12): equal blocks of b = m/P bytes, root 0.  Pure: no MPI.
 *
 * The construction is simulated as the code runs it (papc_itree_nonroot,
 * build_round, fixed_root_round), with the merge rule and the threshold
 * of topo/irregular_tree.c (papc_itree_decide, papc_itree_join) on sizes
 * in blocks: at each level k = 0 .. ceil(log2 P) - 1 two sibling cubes'
 * fixed roots swap their states (papc_sendrecv of three int64: α + 24β,
 * once both are there), the loser's gather root learns its parent -- at
 * once when it is its cube's fixed root, else by the 24-byte verdict the
 * fixed root sends it (α + 24β more) -- and the cube holding the root
 * joins its sibling without a message (Lemma 2).  Blocks above the
 * threshold T (papc_itree_threshold) never enter the tree; a losing cube
 * holding more than T goes straight to the root.
 */
#ifndef PAPC_COLL_ITREE_MODEL_H
#define PAPC_COLL_ITREE_MODEL_H
#include "model/model.h"

/* One process of the tree. */
typedef struct papc_bgs_inode {
    int parent;       /* where its tree message goes; -1: none */
    int round;        /* the level at which it lost */
    double blocks;    /* blocks its tree message carries (0: no message) */
    int lone;         /* its own block moves alone to/from the root */
    papc_terms learn; /* when it knows its parent */
} papc_bgs_inode;

typedef struct papc_bgs_itree {
    int P, rounds;
    double b;               /* bytes of a block */
    papc_bgs_inode *node;   /* [P]; node[0] is the root */
    papc_terms *busy;       /* [P]: when its part of the construction ends */
    double ctl_msgs;        /* construction messages: 2 per state swap, */
    double ctl_bytes;       /* 1 per verdict, 24 bytes each */
} papc_bgs_itree;

/* Builds the tree and the construction's times; 0, or -1 when memory
 * runs out. */
int papc_bgs_itree_build(const papc_model_in *in, papc_bgs_itree *t);
void papc_bgs_itree_free(papc_bgs_itree *t);

/* The latest end of any process's construction part. */
papc_terms papc_bgs_itree_busy(const papc_bgs_itree *t);

/* x plus the whole collective's traffic (model_bgs.h): the construction's
 * messages and one data message per tree message (blocks > 0) and per
 * lone block, gather or scatter alike. */
papc_terms papc_bgs_itree_traffic(const papc_bgs_itree *t, papc_terms x);

#endif /* PAPC_COLL_ITREE_MODEL_H */
