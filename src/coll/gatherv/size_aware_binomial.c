/* size_aware_binomial.c — gatherv over Träff's ordered, size-aware
 * binomial tree (papers/irregular-gatherv-scatterv.md §2-3, Lemmas 1-3,
 * Theorem 1; the paper's TUW_Gatherv).  Alias `tuw`.
 *
 * The processes form an ordered hypercube; ⌈log2 p⌉ rounds of constant-
 * size messages between the cubes' fixed roots build a binomial tree whose
 * shape follows the block sizes: at each merge the cube with the smaller
 * gather time sends its whole run of blocks (in rank order) to the other
 * cube's gather root, and a cube holding the given root always sends to it
 * (Lemma 2).  Construction and relaying at non-root processes, and the
 * root's plan, are in ../irregular_tree.c; this file is the root's side.
 *
 * Cost (Hockney, m_i bytes of block i): construction 2⌈log2 p⌉ α with
 * constant-size messages (none at the root); data ⌈log2 p⌉ α +
 * β Σ_{i≠r} m_i at the root, plus Lemma 2's penalty
 * β (M_d' - m_{r_d'} - Σ_{j<d'} M_j) when a subtree is late.  With the
 * threshold T of graceful degradation each block or subtree above T costs
 * the root one more α and is never relayed (linear behaviour for big
 * blocks).
 *
 * The root receives every message straight into recvbuf: one run when the
 * message's blocks lie back to back in rank order at the displacements
 * (the common case), otherwise through an indexed type built from the
 * displacements (gaps, reversed or interleaved displacements) — never a
 * copy.  It knows every count, so it computes the whole tree itself
 * (O(p)) and posts all receives at once, before any data arrive.
 * Departures from the paper: see ../irregular_tree.c (root-local tree,
 * MPI_PACKED relays, threshold). */
#include <stdlib.h>
#include "../coll.h"
#include "../irregular_tree.h"
#include "../bcast/model_bgs.h"
#include "../gatherv/itree_model.h"

int papc_gatherv_size_aware_binomial(const papc_call *c) {
    if (c->rank == c->root) return papc_itree_root_run(c, PAPC_ITREE_GATHER);
    return papc_itree_nonroot(c, PAPC_ITREE_GATHER);
}

/* Model (issue 12), m bytes in all, equal blocks b = m/P, root 0, the
 * tree and its construction as gatherv/itree_model.h simulates them:
 *   a tree message of M bytes leaves once its sender knows its parent and
 *   all its children's messages are in (relay_start, relay_forward), one
 *   above the eager limit not before its parent has posted the receive
 *   (when it learnt its own parent), and lands α + Mβ later;
 *   a process posts all its receives at once (relay_start; the root in
 *   papc_itree_root_run, lone blocks included), so it has them at
 *       in = max(the last landing, γ(c+1)(α + M̄β)),
 *   a fan-in of all c of them being no faster (Formula 3);
 *   T = max(in_root + bδ (its own block, copied meanwhile),
 *           the end of every process's construction part).
 * Equal blocks below T, P = 2^d and b >= 24 give (d+1)α + (24 + (P-1)b)β
 * + bδ (the data outrun the construction from level 1 on); blocks above T
 * max(γ(P)(α + bβ) + bδ, (d-1)(α + 24β)) (every block alone, while the
 * construction goes on); m = 0 the construction alone (its messages are
 * still sent; data messages of no bytes never are).  P = 1 is the copy.
 * Traffic: papc_bgs_itree_traffic. */
papc_terms papc_gatherv_size_aware_binomial_model(const papc_model_in *in) {
    double m = in->m > 0 ? in->m : 0;
    if (in->P <= 1) return papc_bgs_copy(m);
    papc_bgs_itree t;
    papc_terms *last = NULL;
    int *kids = NULL;
    double *kid_bytes = NULL;
    if (papc_bgs_itree_build(in, &t) != 0 ||
        !(last = calloc((size_t)in->P, sizeof *last)) ||
        !(kids = calloc((size_t)in->P, sizeof *kids)) ||
        !(kid_bytes = calloc((size_t)in->P, sizeof *kid_bytes))) {
        if (t.node) papc_bgs_itree_free(&t);
        free(last);
        free(kids);
        papc_terms x = papc_terms_add(
            papc_bgs_fan(in, in->P - 1, m - m / in->P),
            papc_bgs_copy(m / in->P));
        /* Out of memory: as if every block moved alone. */
        return m > 0 ? papc_terms_traffic(x, in->P - 1, m - m / in->P) : x;
    }
    double b = t.b;
    for (int i = 1; i < t.P; i++) /* lone blocks leave at once */
        if (t.node[i].lone) {
            last[0] = papc_msg(b);
            kids[0]++;
            kid_bytes[0] += b;
        }
    for (int k = 0; k < t.rounds; k++)
        for (int i = 1; i < t.P; i++) {
            const papc_bgs_inode *v = &t.node[i];
            if (v->round != k || v->blocks <= 0) continue;
            int p = v->parent;
            double M = v->blocks * b;
            papc_terms in_i = papc_bgs_max(last[i],
                                           papc_bgs_fan(in, kids[i],
                                                        kid_bytes[i]));
            papc_terms go = papc_bgs_max(v->learn, in_i);
            if (p != 0 && M > in->eager)
                go = papc_bgs_max(go, t.node[p].learn);
            last[p] = papc_bgs_max(last[p], papc_terms_add(go, papc_msg(M)));
            kids[p]++;
            kid_bytes[p] += M;
        }
    papc_terms root = papc_bgs_max(last[0],
                                   papc_bgs_fan(in, kids[0], kid_bytes[0]));
    root = papc_terms_add(root, papc_bgs_copy(b));
    papc_terms T = papc_bgs_max(root, papc_bgs_itree_busy(&t));
    free(last);
    free(kids);
    free(kid_bytes);
    T = papc_bgs_itree_traffic(&t, T);
    papc_bgs_itree_free(&t);
    return T;
}
