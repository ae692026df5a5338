/* basic_linear.c — allreduce: linear reduce to rank 0, then linear
 * broadcast from rank 0 (Open MPI coll/base basic_linear).  Both phases are
 * this library's reduce and bcast basic_linear run on derived call
 * descriptors; the broadcast runs on the call's second tag, so its messages
 * can never match the reduction's.
 * Cost: (P-1)(alpha + m beta + m gamma) + gamma(P)(alpha + m beta).
 * MPI_IN_PLACE: rank 0 reduces in place; the others contribute recvbuf. */
#include "../coll.h"

#define BCAST_TAG_OFFSET 1 /* the reduce phase uses the call's first tag */

int papc_allreduce_basic_linear(const papc_call *c) {
    papc_call reduce = *c;
    reduce.coll = PAPC_REDUCE;
    reduce.root = 0;
    if (c->rank != 0 && c->sendbuf == MPI_IN_PLACE)
        reduce.sendbuf = c->recvbuf;
    int rc = papc_reduce_basic_linear(&reduce);
    if (rc != MPI_SUCCESS) return rc;
    papc_call bcast = *c;
    bcast.coll = PAPC_BCAST;
    bcast.root = 0;
    bcast.sendbuf = NULL;
    bcast.tag = c->tag + BCAST_TAG_OFFSET;
    return papc_bcast_basic_linear(&bcast);
}
