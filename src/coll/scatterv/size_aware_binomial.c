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
#include "../coll.h"
#include "../irregular_tree.h"

int papc_scatterv_size_aware_binomial(const papc_call *c) {
    if (c->rank == c->root) return papc_itree_root_run(c, PAPC_ITREE_SCATTER);
    return papc_itree_nonroot(c, PAPC_ITREE_SCATTER);
}
