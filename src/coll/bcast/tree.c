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
#include "model_bgs.h"

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

/* ---- cost models (issue 12) ----
 * All four run Algorithm 1 in the tree engine (engine_bcast above;
 * tree_engine.c bcast_from_root, bcast_below_root, forward_segment) with
 * PAPC_SEGSIZE segments: n_s = ceil(m/m_s) segments of m_s bytes (the
 * last shorter), a node with k children pays γ(k+1)(α + m_s β) per
 * segment, the next receive pre-posted; papc_bgs_pipeline walks the path
 * from the root to the deepest forwarding node (model_bgs.h gives the
 * walk).  With equal segments each is
 *     T = (Σ_{h on the path} γ(k_h+1) + (n_s - 1) γ(k_0+1)) (α + m/n_s β),
 * k_0 the root's children (the widest node of every one of these trees).
 * m = 0 and P = 1 cost nothing (call.c, bcast_call).  No copy.
 * Traffic, the same for the four trees: each of the P - 1 others receives
 * every segment once, (P-1) n_s messages and (P-1) m bytes (tree_traffic). */

static papc_terms tree_traffic(const papc_model_in *in, papc_terms t) {
    return papc_terms_traffic(
        t, (in->P - 1) * papc_bgs_bcast_nseg(in->segsize, in->m),
        (in->P - 1) * in->m);
}

/* chain: one chain of P - 1 nodes (topo.c chain_node, k = 1): P - 1
 * forwarding nodes (the root and vranks 1..P-2), one child each:
 *     T = (P + n_s - 2)(α + m/n_s β)          (eq. 8). */
papc_terms papc_bcast_chain_model(const papc_model_in *in) {
    if (in->P <= 1 || in->m <= 0) return papc_terms_zero();
    papc_bgs_run path = {1, in->P - 1};
    papc_terms t = papc_bgs_pipeline(in, &path, 1, in->m, in->segsize);
    return tree_traffic(in, t);
}

/* k_chain: the root feeds kk = min(4, P-1) chains (K_CHAIN_FANOUT), the
 * longest of ceil((P-1)/kk) nodes (topo.c chain_bounds: the first
 * (P-1) mod kk chains are one longer), each of whose nodes but the last
 * forwards to one child:
 *     T = (ceil((P-1)/kk) + γ(kk+1) n_s - 1)(α + m/n_s β)
 * (eq. 11 with the code's ceil where the paper has floor). */
papc_terms papc_bcast_k_chain_model(const papc_model_in *in) {
    if (in->P <= 1 || in->m <= 0) return papc_terms_zero();
    int kk = in->P - 1 < K_CHAIN_FANOUT ? in->P - 1 : K_CHAIN_FANOUT;
    int longest = (in->P - 1 + kk - 1) / kk;
    papc_bgs_run path[2] = {{kk, 1}, {1, longest - 1}};
    papc_terms t = papc_bgs_pipeline(in, path, 2, in->m, in->segsize);
    return tree_traffic(in, t);
}

/* binary: the leftmost path (the deepest, and at every level the widest):
 *     T = (Σ_{j<D} γ(k_j+1) + (n_s - 1) γ(3))(α + m/n_s β),  D =
 * floor(log2 P), k_j = 2 but for a last node with one child: eq. 10,
 * γ(3)(D + n_s - 1)(α + m/n_s β), when every k_j is 2. */
papc_terms papc_bcast_binary_model(const papc_model_in *in) {
    if (in->P <= 1 || in->m <= 0) return papc_terms_zero();
    papc_bgs_run path[32];
    int n = papc_bgs_binary_path(in->P, path);
    papc_terms t = papc_bgs_pipeline(in, path, n, in->m, in->segsize);
    return tree_traffic(in, t);
}

/* binomial: balanced binomial tree (topo.c binomial_node): the root has
 * L = ceil(log2 P) children; the deepest, widest path follows the largest
 * child (spans P -> papc_bgs_big_child(P) -> ... -> 2), a node spanning n
 * having ceil(log2 n) children:
 *     T = (Σ_{spans n >= 2 on the path} γ(ceil(log2 n)+1) + (n_s - 1)
 *          γ(L+1))(α + m/n_s β)
 * (eq. 7 for powers of two; the code's root has ceil, not floor(log2 P)+1,
 * children). */
papc_terms papc_bcast_binomial_model(const papc_model_in *in) {
    if (in->P <= 1 || in->m <= 0) return papc_terms_zero();
    papc_bgs_run path[32];
    int n = 0;
    for (int span = in->P; span >= 2 && n < 32;
         span = papc_bgs_big_child(span))
        path[n++] = (papc_bgs_run){papc_model_ceil_log2(span), 1};
    papc_terms t = papc_bgs_pipeline(in, path, n, in->m, in->segsize);
    return tree_traffic(in, t);
}
