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
#include "model_parts.h"

int papc_reduce_binomial(const papc_call *c) {
    return papc_tree_reduce(c, PAPC_TREE_INORDER_BINOMIAL, 0, c->sendbuf,
                            c->recvbuf, c->recvcount, c->recvtype, c->op,
                            c->commutative, c->root, c->segsize, 0);
}

/* One stage of a node with k children for a segment of s bytes: the k
 * receives posted together (a non-blocking fan-in, Formula 3) and the k
 * reductions that fold them in (tree_engine.c, reduce_segment). */
static papc_terms fanin_stage(const papc_model_in *in, int k, double s) {
    papc_terms t = papc_terms_scale(papc_msg(s), papc_model_g(in, k + 1));
    t.gamma_op = k * s;
    return t;
}

/* Model (issue 12), L = ceil(log2 P) children at the root, n_s =
 * ceil(m/m_s) segments of m_s bytes (the last shorter), s_0 = min(m, m_s):
 *   T = Σ_{v on the deepest path below the root} [γ(k_v+1)(α + s_0 β)
 *         + k_v s_0 γ_op]                                   (pipeline fill)
 *     + γ(L+1)(n_s α + mβ) + L m γ_op                   (the root's stages)
 * From papc_tree_reduce on the in-order binomial tree (topo.c): a node
 * with k children posts the k receives of a segment at once and folds
 * them in (k reductions), the receives of the next segment already
 * posted, so every segment costs a node γ(k+1)(α + sβ) + k s γ_op.  The
 * root has the most children, so it sets the pace: after the first
 * segment has climbed the deepest path (node spans P -> its biggest
 * child's span -> ..., k_v = ceil(log2 span)), the root takes every
 * segment in turn.  Segments: papc_segment_count cuts whole m_s-byte
 * segments; the fill is costed with the first, full one (an upper bound
 * when the last is shorter).  No copy (the engine receives the last child
 * straight into the result).  Not modelled, as the model does not know the
 * root: a non-commutative op with root != 0 adds α + mβ (rank 0 sends the
 * result on), an in-place root of such an op copies m (δm).
 * Traffic: every rank but the root sends each of the n_s segments to its
 * parent once, and every child's segment is reduced once at its parent:
 * (P-1) n_s messages, (P-1)m sent + (P-1)m reduced. */
papc_terms papc_reduce_binomial_model(const papc_model_in *in) {
    papc_terms t;
    if (papc_model_reduce_trivial(in, &t)) return t;
    double s0 = papc_model_first_segment(in->m, in->segsize);
    double ns = papc_model_segments(in->m, in->segsize);
    int L = papc_model_ceil_log2(in->P);
    t = papc_terms_zero();
    for (int n = papc_model_binomial_big_child(in->P); n > 1;
         n = papc_model_binomial_big_child(n))
        t = papc_terms_add(t, fanin_stage(in, papc_model_ceil_log2(n), s0));
    double g = papc_model_g(in, L + 1);
    papc_terms root = {g * ns, g * in->m, L * in->m, 0, 0, 0};
    t = papc_terms_add(t, root);
    return papc_terms_traffic(t, (in->P - 1) * ns, 2.0 * (in->P - 1) * in->m);
}
