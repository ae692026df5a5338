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
#include "../coll.h"
#include "../irregular_tree.h"

int papc_gatherv_size_aware_binomial(const papc_call *c) {
    if (c->rank == c->root) return papc_itree_root_run(c, PAPC_ITREE_GATHER);
    return papc_itree_nonroot(c, PAPC_ITREE_GATHER);
}
