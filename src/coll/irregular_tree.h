/*
 * irregular_tree.h — the MPI half of Träff's size-aware binomial gatherv/
 * scatterv (papers/irregular-gatherv-scatterv.md), shared by
 * gatherv/size_aware_binomial.c and scatterv/size_aware_binomial.c:
 * the threshold of graceful degradation, the distributed tree construction
 * and relaying at non-root processes, and the root's plan of messages.
 * The pure parts (cube geometry, merge rule, sequential builder) are in
 * topo/irregular_tree.h.
 */
#ifndef PAPC_COLL_IRREGULAR_TREE_H
#define PAPC_COLL_IRREGULAR_TREE_H
#include "../core/core.h"
#include "topo/irregular_tree.h"

/* Sub-tags of the call (see papc_send). */
#define PAPC_ITREE_TAG_STATE 0 /* fixed root <-> fixed root: cube state */
#define PAPC_ITREE_TAG_INFO 1  /* fixed root -> gather root: verdict */
#define PAPC_ITREE_TAG_DATA 2  /* a subtree's run of blocks */
#define PAPC_ITREE_TAG_BLOCK 3 /* a block kept out of the tree (threshold) */

/* Threshold T of graceful degradation in bytes (0 = off), read at every
 * call: PAPC_TUW_THRESHOLD when set, else PAPC_ITREE_K * α / β from
 * PAPC_ALPHA and PAPC_BETA (defaults measured on the development machine,
 * see irregular_tree.c). */
int64_t papc_itree_threshold(void);

/* Direction of the data. */
typedef enum papc_itree_dir { PAPC_ITREE_GATHER, PAPC_ITREE_SCATTER } papc_itree_dir;

/* A non-root process's whole part: its block (sendcount/sendtype for
 * gather, recvcount/recvtype for scatter — the only sizes it knows), the
 * distributed construction, and relaying its subtree. */
int papc_itree_nonroot(const papc_call *c, papc_itree_dir dir);

/* The root's whole part: builds its plan from the counts it holds,
 * starts every message at once (receives into recvbuf for gatherv, sends
 * from sendbuf for scatterv, straight at the displacements), copies its own
 * block meanwhile, and waits. */
int papc_itree_root_run(const papc_call *c, papc_itree_dir dir);

/* One message at the root: its peer, the blocks (ranks, in rank order)
 * it carries, and its sub-tag. */
typedef struct papc_itree_msg {
    int peer;
    int round; /* merge level of the peer's subtree (-1: a lone block) */
    int sub;   /* PAPC_ITREE_TAG_DATA or PAPC_ITREE_TAG_BLOCK */
    int first; /* its ranks are ranks[first .. first + nblk) */
    int nblk;
} papc_itree_msg;

/* Everything the root exchanges, from the counts it holds. */
typedef struct papc_itree_root {
    int nmsg;
    papc_itree_msg *msg;
    int *ranks;
} papc_itree_root;

/* Builds the root's plan from c->counts, blocks of type t (recvtype for
 * gatherv, sendtype for scatterv).  Messages come sorted: lone blocks
 * first, then tree subtrees by merge level, lowest first. */
int papc_itree_root_plan(const papc_call *c, MPI_Datatype t,
                         papc_itree_root *plan);
void papc_itree_root_free(papc_itree_root *plan);

/* Where message msg lives in the root's buffer buf (blocks of type t at
 * c->displs): one run (*type == t) when its blocks lie back to back in
 * rank order, else an indexed type built from the displacements
 * (*derived = 1: free it once the request is posted). */
int papc_itree_layout(const papc_call *c, const papc_itree_root *plan,
                      const papc_itree_msg *msg, const void *buf,
                      MPI_Datatype t, char **addr, int *count,
                      MPI_Datatype *type, int *derived);

#endif /* PAPC_COLL_IRREGULAR_TREE_H */
