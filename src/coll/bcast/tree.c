/* tree.c — the segmented tree broadcasts of Open MPI coll/base (chain,
 * k-chain, binary, binomial): one call of the generic tree engine each,
 * Algorithm 1 of model-based-selection.md §III-A on the tree of topo/,
 * segments of PAPC_SEGSIZE bytes (whole elements).
 * Costs with n_s segments (model-based-selection.md eq. 7, 8, 10, 11):
 *   chain     (P + n_s - 2) (alpha + m/n_s beta)
 *   k_chain   (floor((P-1)/K) + gamma(K+1) n_s - 1) (alpha + m/n_s beta), K = 4
 *   binary    gamma(3) (floor(log2 P) + n_s - 1) (alpha + m/n_s beta)
 *   binomial  (n_s gamma(floor(log2 P)+1) + sum of gamma over the levels - 1)
 *             (alpha + m/n_s beta)
 * As in Open MPI, the next segment's receive is posted before the current
 * one is forwarded. */
#include "../coll.h"
#include "../tree_engine.h"

#define K_CHAIN_FANOUT 4 /* Open MPI's k-chain fan-out, the paper's K */

static int engine_bcast(const papc_call *c, papc_tree_kind kind, int k) {
    return papc_tree_bcast(c, kind, k, c->recvbuf, c->recvcount, c->recvtype,
                           c->root, c->segsize, 0);
}

int papc_bcast_chain(const papc_call *c) {
    return engine_bcast(c, PAPC_TREE_CHAIN, 1);
}

int papc_bcast_k_chain(const papc_call *c) {
    return engine_bcast(c, PAPC_TREE_CHAIN, K_CHAIN_FANOUT);
}

int papc_bcast_binary(const papc_call *c) {
    return engine_bcast(c, PAPC_TREE_KARY, 2);
}

int papc_bcast_binomial(const papc_call *c) {
    return engine_bcast(c, PAPC_TREE_BINOMIAL, 0);
}
