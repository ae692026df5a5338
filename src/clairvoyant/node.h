/*
 * node.h — the plan of a Clairvoyant reduce that reduces within each node
 * first (reduce clairvoyant_node, src/coll/reduce/clairvoyant_node.c;
 * issue 16): pure C, no MPI, unit-tested in tests/unit/test_clv_node.c.
 *
 * Two Clairvoyant schedules (papc_clv_plan_quantised, the generator of
 * clairvoyant-reduce.md Listing 8) per call, on the same N segments and
 * the same whole-round arrivals q (cache.h):
 *
 *  1. within node k, among its ranks (ascending), to the node's leader:
 *     the root on the root's node, else the node's lowest rank; arrivals
 *     q of its ranks;
 *  2. among the G leaders (nodes in the order of their lowest ranks), to
 *     the root; leader k "arrives" when its node's partial vector is
 *     predicted complete (papc_clv_node_ready).
 *
 * A rank's plan is its events of stage 1 followed, on a leader, by its
 * events of stage 2, peers as ranks of the call and rounds in one time base
 * (q's).  With one rank per node stage 1 is empty and stage 2 is the plain
 * Clairvoyant schedule of (P, N, root, q); with one node stage 2 is empty
 * and stage 1 is that schedule too.  The plan is a function of (labels, N,
 * root, q, rank): cached like the plain one (cache.h) for a communicator
 * whose labels are fixed.
 */
#ifndef PAPC_CLV_NODE_H
#define PAPC_CLV_NODE_H
#include <stdint.h>
#include "cache.h"

/* Ranks grouped by node. */
typedef struct papc_clv_nodes {
    int P, G;        /* ranks, nodes (>= 1) */
    int *node;       /* [P]: node index of each rank; nodes are numbered in
                        the order of their lowest ranks */
    int *start;      /* [G + 1]: node k's ranks are member[start[k] ..
                        start[k+1]), ascending */
    int *member;     /* [P] */
    int nmax;        /* ranks of the largest node */
} papc_clv_nodes;

/* Groups ranks 0..P-1 by label[] (equal labels: one node; any ints).
 * 0, or -1 (P < 1, label NULL, no memory: *out is then empty). */
int papc_clv_nodes_make(int P, const int *label, papc_clv_nodes *out);
void papc_clv_nodes_free(papc_clv_nodes *n);
/* Node k's leader: root when root is on node k, else its lowest rank. */
int papc_clv_node_leader(const papc_clv_nodes *n, int k, int root);
/* ready[k], k < G: the round at which node k's partial vector is predicted
 * complete at its leader, on q's time base.  A node of one rank: its
 * arrival.  Else the later of the balanced bound and the late one's tail
 * of a Clairvoyant reduce of its n ranks over N segments (the row's model,
 * papc_clv_model_length of arrival_model.h, for the two extremes):
 *     max(min q + N + ceil(log2 n) - 1,  max q + N).
 * 0, or -1 on bad input. */
int papc_clv_node_ready(const papc_clv_nodes *n, const int32_t *q, int N,
                        int32_t *ready);
/* Rank's plan (above) for whole-round arrivals q[P], N segments, the root.
 * out->P is the call's P; out->rounds the last round of rank's
 * schedules on q's time base + 1; out->nevents_total the events of the
 * (one or two) schedules rank takes part in.  0, or -1 (bad input, no
 * memory: *out is then empty). */
int papc_clv_node_plan(const papc_clv_nodes *n, const int32_t *q, int N,
                       int root, int rank, papc_clv_plan *out);

#endif /* PAPC_CLV_NODE_H */
