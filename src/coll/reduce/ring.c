/*
 * ring.c — reduce by a ring reduce-scatter (P blocks, P-1 steps to the
 * right neighbour, as in Open MPI's ring allreduce) after which rank r
 * holds block r+1 fully reduced and sends it straight to the root.  The
 * reduce half of the ring allreduce of Patarasuk and Yuan; neither Open
 * MPI nor MPICH has it as a reduce.
 *
 * Cost: (P-1) alpha + (P-1)/P n (beta + gamma) for the reduce-scatter,
 * then the root takes P-1 blocks of n/P bytes: at best alpha + (P-1)/P n
 * beta when its link overlaps them, (P-1)(alpha + n/P beta) serialized.
 *
 * Notes: blocks may be empty (count < P); the send buffer is read in place
 * and partner pieces arrive straight in the accumulator (recvbuf at the
 * root, a temporary elsewhere; two block-sized slots at an in-place root).
 * Commutative ops only.
 */
#include <stdlib.h>
#include "../coll.h"
#include "../reduce_scatter.h"
#include "model_parts.h"

/* Rank i ends the reduce-scatter owning block i+1. */
static void owned_block(const papc_call *c, int rank, int *off, int *len) {
    papc_ring_piece(c->sendcount, c->size, 1, (rank + 1) % c->size, 0, off,
                    len);
}

static int collect_at_root(const papc_call *c) {
    MPI_Request *reqs = malloc((size_t)c->size * sizeof *reqs);
    if (!reqs) return papc_error(MPI_ERR_NO_MEM, "ring reduce requests");
    int n = 0, rc = MPI_SUCCESS;
    for (int i = 0; i < c->size && rc == MPI_SUCCESS; i++) {
        int off, len;
        if (i == c->root) continue;
        owned_block(c, i, &off, &len);
        rc = papc_irecv(c, papc_elem(c->recvbuf, c->sendtype, off), len,
                        c->sendtype, i, PAPC_RS_SUB_GATHER, &reqs[n++]);
        if (rc != MPI_SUCCESS) n--;
    }
    if (rc == MPI_SUCCESS) rc = papc_waitall(n, reqs);
    else papc_cleanup_requests(n, reqs);
    free(reqs);
    return rc;
}

int papc_reduce_ring(const papc_call *c) {
    int is_root = c->rank == c->root;
    int in_place = is_root && c->sendbuf == MPI_IN_PLACE;
    const void *mine = in_place ? c->recvbuf : c->sendbuf;
    papc_tmpbuf tmp = {NULL, NULL};
    void *slots[2] = {NULL, NULL};
    char *out = c->recvbuf;
    int rc;
    if (in_place) {
        int piece = papc_ring_max_piece(c->sendcount, c->size, 1);
        rc = papc_tmpbuf_alloc(&tmp, c->sendtype, 2 * (size_t)piece);
        slots[0] = tmp.ptr;
        slots[1] = papc_elem(tmp.ptr, c->sendtype, piece);
    } else if (!is_root) {
        rc = papc_tmpbuf_alloc(&tmp, c->sendtype, (size_t)c->sendcount);
        out = tmp.ptr;
    } else {
        rc = MPI_SUCCESS;
    }
    if (rc != MPI_SUCCESS) return rc;
    rc = papc_ring_reduce_scatter(c, mine, out, slots, 1, 0);
    if (rc == MPI_SUCCESS) {
        if (is_root) {
            rc = collect_at_root(c);
        } else {
            int off, len;
            owned_block(c, c->rank, &off, &len);
            rc = papc_send(c, papc_elem(out, c->sendtype, off), len,
                           c->sendtype, c->root, PAPC_RS_SUB_GATHER);
        }
    }
    papc_tmpbuf_free(&tmp);
    return rc;
}

/* Model (issue 12):
 *   T = (P-1)(α + m/P (β + γ_op))       (papc_ring_reduce_scatter, 1 phase)
 *     + γ(P)(α + m/P β)                                  (collect_at_root)
 * The reduce-scatter's P-1 steps chain (receive, reduce, send on); then
 * the root posts the P-1 receives of the others' blocks at once, a
 * non-blocking fan-in of P-1 peers (Formula 3), while each of them sends
 * its block (blocking).  Blocks are m/P bytes (count < P: empty blocks;
 * the model keeps m/P).  No copy: pieces arrive straight in the
 * accumulator.  Ignores m_s.  Commutative ops only.
 * Traffic: the reduce-scatter's P(P-1) blocks, (P-1)m sent + (P-1)m
 * reduced, and the P-1 blocks to the root, (P-1)m/P: P^2 - 1 messages. */
papc_terms papc_reduce_ring_model(const papc_model_in *in) {
    papc_terms t;
    if (papc_model_reduce_trivial(in, &t)) return t;
    double block = in->m / in->P, P = in->P;
    t = papc_ring_rs_model(in->P, block);
    t = papc_terms_axpy(t, papc_model_g(in, in->P), papc_msg(block));
    return papc_terms_traffic(t, P * (P - 1) + (P - 1),
                              2 * (P - 1) * in->m + (P - 1) * block);
}
