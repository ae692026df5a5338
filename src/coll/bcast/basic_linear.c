/* basic_linear.c — bcast: the root posts a non-blocking send of the whole
 * message to every other rank and waits for them all; the others receive
 * (Open MPI coll/base basic_linear; the non-blocking linear tree of
 * model-based-selection.md §III-A1, eq. 2-3).  Runs the tree engine on the
 * linear tree without segmentation.
 * Cost: gamma(P) (alpha + m beta), between alpha + m beta and
 * (P-1)(alpha + m beta) depending on how the sends overlap. */
#include "../coll.h"
#include "../tree_engine.h"

int papc_bcast_basic_linear(const papc_call *c) {
    return papc_tree_bcast(c, PAPC_TREE_LINEAR, 0, c->recvbuf, c->recvcount,
                           c->recvtype, c->root, 0, 0);
}
