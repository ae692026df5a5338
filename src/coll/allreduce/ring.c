/*
 * ring.c — allreduce ring and segmented_ring (Open MPI coll/base ring and
 * ring_segmented; Patarasuk and Yuan's bandwidth-optimal ring): the vector
 * is cut into P blocks; a ring reduce-scatter of P-1 steps leaves block
 * r+1 fully reduced on rank r, and a ring allgather of P-1 steps gives
 * every block to every rank.  segmented_ring cuts each block into pieces
 * of about PAPC_SEGSIZE bytes (whole elements) and runs the reduce-scatter
 * once per piece index ("phase"), as Open MPI does, so each message and
 * each reduction stays small.
 *
 * Cost: ring 2(P-1) alpha + 2 (P-1)/P n beta + (P-1)/P n gamma;
 * segmented_ring with m phases (m+1)(P-1) alpha + the same byte terms.
 *
 * Departures: blocks may be empty (count < P works; Open MPI falls back
 * to recursive doubling); the send buffer is read in place and partner
 * pieces arrive straight in the receive buffer (no initial copy, no
 * temporaries unless MPI_IN_PLACE); sends are non-blocking, two in flight.
 * Commutative ops only.
 */
#include "../coll.h"
#include "../reduce_scatter.h"
#include "../reduce/model_parts.h"

/* Ring allgather of the P whole blocks in place in buf: in step k rank r
 * passes block r+1-k to the right and gets block r-k from the left. */
static int ring_allgather(const papc_call *c, void *buf) {
    int P = c->size, r = c->rank;
    MPI_Aint ext = papc_extent(c->sendtype);
    for (int k = 0; k < P - 1; k++) {
        int sb = (r + 1 - k + P) % P, rb = (r - k + P) % P;
        int soff, slen, roff, rlen;
        papc_ring_piece(c->sendcount, P, 1, sb, 0, &soff, &slen);
        papc_ring_piece(c->sendcount, P, 1, rb, 0, &roff, &rlen);
        int rc = papc_sendrecv(c, (char *)buf + soff * ext, slen,
                               c->sendtype, (r + 1) % P,
                               (char *)buf + roff * ext, rlen, c->sendtype,
                               (r - 1 + P) % P, PAPC_RS_SUB_GATHER);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

static int ring_allreduce(const papc_call *c, int nphases) {
    int in_place = c->sendbuf == MPI_IN_PLACE;
    const void *mine = in_place ? c->recvbuf : c->sendbuf;
    papc_tmpbuf tmp = {NULL, NULL};
    void *slots[2] = {NULL, NULL};
    int rc = MPI_SUCCESS;
    if (in_place) { /* own data sit in recvbuf: pieces arrive in slots */
        int piece = papc_ring_max_piece(c->sendcount, c->size, nphases);
        rc = papc_tmpbuf_alloc(&tmp, c->sendtype, 2 * (size_t)piece);
        if (rc != MPI_SUCCESS) return rc;
        slots[0] = tmp.ptr;
        slots[1] = papc_elem(tmp.ptr, c->sendtype, piece);
    }
    for (int phase = 0; phase < nphases && rc == MPI_SUCCESS; phase++)
        rc = papc_ring_reduce_scatter(c, mine, c->recvbuf, slots, nphases,
                                      phase);
    if (rc == MPI_SUCCESS) rc = ring_allgather(c, c->recvbuf);
    papc_tmpbuf_free(&tmp);
    return rc;
}

int papc_allreduce_ring(const papc_call *c) {
    return ring_allreduce(c, 1);
}

/* Segments in whole elements: MPI requires the same count and datatype on
 * every rank of an allreduce, so every rank cuts at the same bytes. */
int papc_allreduce_segmented_ring(const papc_call *c) {
    int maxblock = papc_ring_max_piece(c->sendcount, c->size, 1);
    int seg = papc_segment_count(c->segsize, c->sendtype, maxblock);
    return ring_allreduce(c, maxblock / seg + (maxblock % seg != 0));
}

/* The ring allgather of P blocks of `block` bytes: P-1 sendrecvs, each
 * waiting for the block the left neighbour got in the step before:
 * (P-1)(α + block β). */
static papc_terms allgather_model(int P, double block) {
    return papc_terms_scale(papc_msg(block), P - 1);
}

/* Model (issue 12), blocks of m/P bytes:
 *   T = (P-1)(α + m/P (β + γ_op))    (papc_ring_reduce_scatter, one phase)
 *     + (P-1)(α + m/P β)                               (ring_allgather)
 *   = 2(P-1)α + 2(P-1)/P mβ + (P-1)/P m γ_op
 * Each reduce-scatter step waits for the piece from the left, reduces it
 * and sends it on (non-blocking, but the right neighbour waits for it).
 * No copy: pieces land in recvbuf and are reduced there with the send
 * buffer.  count < P: empty blocks (the model keeps m/P).  Ignores m_s.
 * Commutative ops only.
 * Traffic: each rank sends P-1 blocks per phase, two phases: 2P(P-1)
 * messages, 2(P-1)m sent + (P-1)m reduced. */
papc_terms papc_allreduce_ring_model(const papc_model_in *in) {
    papc_terms t;
    if (papc_model_reduce_trivial(in, &t)) return t;
    double block = in->m / in->P, P = in->P;
    t = papc_terms_add(papc_ring_rs_model(in->P, block),
                       allgather_model(in->P, block));
    return papc_terms_traffic(t, 2 * P * (P - 1), 3 * (P - 1) * in->m);
}

/* Model (issue 12), n_p = ceil((m/P) / m_s) phases (the largest block cut
 * into pieces of m_s bytes, as papc_allreduce_segmented_ring counts them;
 * then every block is split into n_p near-equal pieces):
 *   T = n_p (P-1)(α + m/(P n_p) (β + γ_op))   (n_p reduce-scatter phases,
 *                                              one after the other)
 *     + (P-1)(α + m/P β)                         (allgather of whole blocks)
 *   = (n_p + 1)(P-1)α + 2(P-1)/P mβ + (P-1)/P m γ_op
 * No copy.  Commutative ops only.
 * Traffic: each rank sends P-1 pieces per reduce-scatter phase and P-1
 * blocks in the allgather: (n_p + 1)P(P-1) messages, 2(P-1)m sent +
 * (P-1)m reduced. */
papc_terms papc_allreduce_segmented_ring_model(const papc_model_in *in) {
    papc_terms t;
    if (papc_model_reduce_trivial(in, &t)) return t;
    double block = in->m / in->P, P = in->P;
    double np = papc_model_segments(block, in->segsize);
    t = papc_terms_scale(papc_ring_rs_model(in->P, block / np), np);
    t = papc_terms_add(t, allgather_model(in->P, block));
    return papc_terms_traffic(t, (np + 1) * P * (P - 1), 3 * (P - 1) * in->m);
}
