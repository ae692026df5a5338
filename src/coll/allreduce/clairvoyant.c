/*
 * clairvoyant.c — allreduce clairvoyant: the Clairvoyant reduce of
 * reduce/clairvoyant.c (Marendic et al. 2016; Proficz & Ocetkiewicz,
 * "Improving Clairvoyant", clairvoyant-reduce.md) to r0, then a segmented
 * binomial broadcast of the result from r0 (the tree engine of bcast
 * binomial).  r0 is the first rank of the agreed predicted arrival order
 * (decided by rank 0; rank 0 itself when nothing is predicted): the
 * earliest process is then the sink of the schedule from its first round,
 * and the broadcast leaves from a process that is surely there.
 *
 * Cost: the reduce's R rounds of alpha + s (beta + gamma) (s = segment
 * bytes, about N + log2 P rounds with balanced arrivals), then the
 * binomial broadcast, (n_s + ceil(log2 P) - 1)(alpha + s beta) pipelined.
 *
 * Departures: the papers define the reduction only; the broadcast is the
 * usual second half of a reduce + bcast allreduce.  It runs on another
 * sub-tag than the reduction (pairs keep their order anyway).
 * Commutative ops only.  MPI_IN_PLACE: every rank's input is in recvbuf.
 */
#include "../reduce/clairvoyant.h"
#include "../tree_engine.h"

#define CLV_SUB 0   /* the reduction */
#define BCAST_SUB 1 /* the broadcast */

int papc_allreduce_clairvoyant(const papc_call *c) {
    papc_arrival a;
    int rc = papc_arrival_begin(c, PAPC_ORDER_AGREED, 0, &a);
    if (rc != MPI_SUCCESS) return rc;
    int r0 = 0;
    if (a.order && a.order[0] >= 0 && a.order[0] < c->size) r0 = a.order[0];
    const void *input = c->sendbuf == MPI_IN_PLACE ? c->recvbuf : c->sendbuf;
    rc = papc_clv_reduce_exec(c, &a, r0, input, c->recvbuf, CLV_SUB);
    if (rc == MPI_SUCCESS && c->sendcount > 0 && c->size > 1)
        rc = papc_tree_bcast(c, PAPC_TREE_BINOMIAL, 0, c->recvbuf,
                             c->sendcount, c->sendtype, r0, c->segsize,
                             BCAST_SUB);
    return papc_arrival_end(c, &a, rc);
}
