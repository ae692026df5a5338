/* size_aware_binomial.c — scatterv over Träff's ordered, size-aware
 * binomial tree (papers/irregular-gatherv-scatterv.md §2-3, Theorem 1 and
 * "the linear time gather trees can likewise be used for the irregular
 * scatter problem"; the paper's TUW_Scatterv).  Alias `tuw`.
 *
 * The tree is the gatherv one (../irregular_tree.c), run backwards: each
 * relaying process receives its subtree's run of blocks (rank order) from
 * its parent, keeps its own block and sends each child its run, the
 * deepest subtree first.
 *
 * Cost (Hockney, m_i bytes of block i): construction 2⌈log2 p⌉ α with
 * constant-size messages, overlapped with the root's sends; data
 * ⌈log2 p⌉ α + β Σ_{i≠r} m_i at the root.  With the threshold T of
 * graceful degradation each block or subtree above T costs the root one
 * more α and is never relayed.
 *
 * The root knows every count and computes the tree itself (O(p)), so it
 * starts all its sends at once, before the other processes have finished
 * building the tree — the paper's root must wait for the construction
 * (§3).  Lone blocks (above T) go first, their receivers wait from the
 * start; then the subtrees, the latest merge (deepest subtree) first.
 * Every message leaves sendbuf directly: one run when its blocks lie back
 * to back in rank order at the displacements, else an indexed type built
 * from the displacements (overlapping blocks are fine for sends). */
#include <stdlib.h>
#include "../coll.h"
#include "../irregular_tree.h"
#include "../bcast/model_bgs.h"
#include "../gatherv/itree_model.h"

int papc_scatterv_size_aware_binomial(const papc_call *c) {
    if (c->rank == c->root) return papc_itree_root_run(c, PAPC_ITREE_SCATTER);
    return papc_itree_nonroot(c, PAPC_ITREE_SCATTER);
}

/* Model (issue 12), m bytes in all, equal blocks b = m/P, root 0, the
 * tree and its construction as gatherv/itree_model.h simulates them:
 *   the root starts all its N messages at once (papc_itree_root_run: lone
 *   blocks, then subtrees) and copies its own block: F_0 = γ(N+1)(α +
 *   M̄β), the root done at F_0 + bδ;
 *   a process has its run when its parent's fan-out is done, not before
 *   it posted its receive (relay_start, once it knows its parent), a run
 *   above the eager limit not before α + Mβ after that:
 *       R_c = max(R_p + F_p, learn_c [+ α + Mβ]);
 *   a relay then sends its children their runs at once (relay_forward):
 *   F_c = γ(k_c+1)(α + M̄_c β); its own block is unpacked meanwhile
 *   (overlapped), a leaf receives straight into recvbuf;
 *   T = max(F_0 + bδ, every R_c + F_c, the end of every process's
 *           construction part).
 * m = 0 is the construction alone; P = 1 is the copy.
 * Traffic: papc_bgs_itree_traffic. */
papc_terms papc_scatterv_size_aware_binomial_model(const papc_model_in *in) {
    double m = in->m > 0 ? in->m : 0;
    if (in->P <= 1) return papc_bgs_copy(m);
    papc_bgs_itree t;
    int *kids = NULL;
    double *kid_bytes = NULL;
    papc_terms *have = NULL;
    if (papc_bgs_itree_build(in, &t) != 0 ||
        !(kids = calloc((size_t)in->P, sizeof *kids)) ||
        !(kid_bytes = calloc((size_t)in->P, sizeof *kid_bytes)) ||
        !(have = calloc((size_t)in->P, sizeof *have))) {
        if (t.node) papc_bgs_itree_free(&t);
        free(kids);
        free(kid_bytes);
        papc_terms x = papc_terms_add(
            papc_bgs_fan(in, in->P - 1, m - m / in->P),
            papc_bgs_copy(m / in->P));
        /* Out of memory: as if every block moved alone. */
        return m > 0 ? papc_terms_traffic(x, in->P - 1, m - m / in->P) : x;
    }
    double b = t.b;
    for (int i = 1; i < t.P; i++) {
        const papc_bgs_inode *v = &t.node[i];
        int p = v->lone ? 0 : v->parent;
        if (v->lone || (v->blocks > 0 && p >= 0)) {
            kids[p]++;
            kid_bytes[p] += v->lone ? b : v->blocks * b;
        }
    }
    papc_terms f0 = papc_bgs_fan(in, kids[0], kid_bytes[0]);
    papc_terms T = papc_terms_add(f0, papc_bgs_copy(b));
    for (int k = t.rounds - 1; k >= 0; k--)
        for (int i = 1; i < t.P; i++) {
            const papc_bgs_inode *v = &t.node[i];
            if (v->round != k || v->blocks <= 0) continue;
            int p = v->parent;
            papc_terms from = p == 0 ? f0
                : papc_terms_add(have[p],
                                 papc_bgs_fan(in, kids[p], kid_bytes[p]));
            double M = v->blocks * b;
            papc_terms posted = v->learn;
            if (M > in->eager) posted = papc_terms_add(posted, papc_msg(M));
            have[i] = papc_bgs_max(from, posted);
            T = papc_bgs_max(T, papc_terms_add(have[i], papc_bgs_fan(
                                 in, kids[i], kid_bytes[i])));
        }
    T = papc_bgs_max(T, papc_bgs_itree_busy(&t));
    free(kids);
    free(kid_bytes);
    free(have);
    T = papc_bgs_itree_traffic(&t, T);
    papc_bgs_itree_free(&t);
    return T;
}
