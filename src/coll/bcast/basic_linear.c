/* basic_linear.c — bcast: the root posts a non-blocking send of the whole
 * message to every other rank and waits for them all; the others receive
 * (Open MPI coll/base basic_linear; the non-blocking linear tree of
 * model-based-selection.md §III-A1, eq. 2-3).  Runs the tree engine on the
 * linear tree without segmentation.
 * Cost: gamma(P) (alpha + m beta), between alpha + m beta and
 * (P-1)(alpha + m beta) depending on how the sends overlap. */
#include "../coll.h"
#include "../tree_engine.h"
#include "model_bgs.h"

int papc_bcast_basic_linear(const papc_call *c) {
    return papc_tree_bcast(c, PAPC_TREE_LINEAR, 0, c->recvbuf, c->recvcount,
                           c->recvtype, c->root, 0, 0);
}

/* Model (issue 12):  T = γ(P)(n α + m β),  n = ceil(m / 2^30) (1 below
 * 1 GiB).  segsize is ignored: the run passes segsize 0 to the engine
 * (lines 13-14), which still cuts at 2^30 bytes (tree_engine.c,
 * papc_tree_seg_bytes).  The linear tree's root sends every segment to its
 * P - 1 children with non-blocking sends and waits for them
 * (forward_segment): one fan-out of P - 1 per segment, Formula 3.
 * m = 0 and P = 1 cost nothing (call.c, bcast_call, returns before any
 * algorithm; papc_tree_bcast returns too).
 * Traffic: n messages to each of the P - 1 others, (P-1) n and (P-1) m. */
papc_terms papc_bcast_basic_linear_model(const papc_model_in *in) {
    if (in->P <= 1 || in->m <= 0) return papc_terms_zero();
    papc_bgs_run root = {in->P - 1, 1};
    papc_terms t = papc_bgs_pipeline(in, &root, 1, in->m, 0);
    return papc_terms_traffic(t, (in->P - 1) * papc_bgs_bcast_nseg(0, in->m),
                              (in->P - 1) * in->m);
}
