/* linear_sync.c — gather, linear with synchronisation (Open MPI coll/base
 * linear_sync; model-based-selection.md §III-B2, pap-scatter-gather.md
 * §2.1).  The root takes the blocks in rank order, one rank at a time: it
 * posts a receive for the first part of rank i's block, sends rank i a
 * go-ahead message, posts a receive for the second part and waits for the
 * first part before moving on to rank i+1; the second parts are all waited
 * for at the end, after the root has copied its own block.  A non-root waits
 * for its go-ahead, then sends the first and the second part with standard
 * blocking sends.  The go-ahead keeps the senders from flooding the root
 * with unexpected messages.
 *
 * Split rule.  The first part is first_segment bytes (c->first_segment,
 * env PAPC_GATHER_FIRST_SEGMENT) rounded down to whole elements of the
 * root's recvtype; when that is 0 or not smaller than the block, the block
 * goes in one part and no second message is sent.  The sender's sendtype
 * may differ from the root's recvtype (only signatures must match), and
 * neither side knows the other's type, so the split cannot be computed on
 * both sides independently.  The root therefore decides it and sends it in
 * the go-ahead: the go-ahead carries the split offset in bytes (one
 * int64; INT64_MAX for one part) instead of being empty.  The sender cuts
 * its block there in whole sendtype elements; if the offset falls inside a
 * sendtype element (types of different sizes, e.g. 12-byte receive
 * elements against 8-byte send elements), it packs its block (MPI_Pack)
 * and sends the two byte ranges as MPI_PACKED, which any type of the same
 * signature may receive (packed data are the native bytes on a homogeneous
 * system, so the cut falls on a boundary of the root's elements).  Ranks never need to agree on
 * PAPC_GATHER_FIRST_SEGMENT: only the root's value counts.
 *
 * Cost (Hockney, block m bytes): (P-1)(3α + mβ) when the parts go one
 * after the other (go-ahead, first part, second part; eq. (13) of
 * model-based-selection.md, which leaves the go-ahead out); the second
 * parts overlap the next ranks' turns when they are small.
 *
 * Departures from Open MPI 4.1: the 8-byte go-ahead (above); when the
 * block fits in the first part Open MPI still sends an empty second part,
 * we send nothing.  As in Open MPI's code (and the paper's description) the
 * second part is a non-blocking receive completed at the end, not a
 * blocking one.  When a block fails at the root (a sender's block longer
 * than the root's: MPI_ERR_TRUNCATE, as a plain receive gives), the root
 * still gives every later rank its turn and waits for every second part,
 * so no sender is left waiting for its go-ahead; it returns the first
 * error.  Sub-tags: 0 go-ahead, 1 first part, 2 second part.
 *
 * Both sides are exported (linear_sync.h) for sorted_linear_sync.c: SLS is
 * this root loop in a predicted order, BSLS cuts its blocks the same way. */
#include <stdlib.h>
#include "../coll.h"
#include "../bcast/model_bgs.h"
#include "linear_sync.h"

enum { SUB_GO = 0, SUB_FIRST = 1, SUB_SECOND = 2 };

/* Byte offset where the second part starts, in whole elements of the
 * root's recvtype; PAPC_LS_ONE_PART when the block goes in one part (the
 * sender then sends its whole block in one message, so a sender whose
 * block is larger than the root's gets MPI_ERR_TRUNCATE at the root, as
 * with a plain receive, instead of leaving an unreceived second part). */
static int64_t split_offset(const papc_call *c, size_t elem_size,
                            size_t block_bytes) {
    size_t split = c->first_segment / elem_size * elem_size;
    if (split == 0 || split >= block_bytes) return PAPC_LS_ONE_PART;
    return (int64_t)split;
}

/* ---- non-root side ---- */

/* The split falls inside a sendtype element: the two byte ranges of the
 * packed block. */
static int cut_packed(const papc_call *c, int64_t split, papc_ls_parts *p) {
    int packsz = 0, pos = 0;
    PAPC_CHECK(MPI_Pack_size(c->sendcount, c->sendtype, c->comm, &packsz));
    p->packed = malloc(packsz > 0 ? (size_t)packsz : 1);
    if (!p->packed)
        return papc_error(MPI_ERR_NO_MEM, "linear_sync pack buffer");
    int rc = MPI_Pack(c->sendbuf, c->sendcount, c->sendtype, p->packed,
                      packsz, &pos, c->comm);
    if (rc != MPI_SUCCESS) {
        papc_linear_sync_cut_free(p);
        return papc_mpi_error(rc, "MPI_Pack");
    }
    p->n = 2;
    p->buf[0] = p->packed;         p->count[0] = (int)split;
    p->buf[1] = p->packed + split; p->count[1] = pos - (int)split;
    p->type[0] = p->type[1] = MPI_PACKED;
    return MPI_SUCCESS;
}

int papc_linear_sync_cut(const papc_call *c, int64_t split,
                         papc_ls_parts *p) {
    size_t esize = papc_type_size(c->sendtype);
    int64_t block = (int64_t)c->sendcount * (int64_t)esize;
    p->packed = NULL;
    p->n = 1;
    p->buf[0] = c->sendbuf; p->count[0] = c->sendcount;
    p->type[0] = p->type[1] = c->sendtype;
    if (split >= block) return MPI_SUCCESS;
    if (split % (int64_t)esize != 0) return cut_packed(c, split, p);
    int first = (int)(split / (int64_t)esize);
    p->n = 2;
    p->count[0] = first;
    p->buf[1] = papc_elem(c->sendbuf, c->sendtype, first);
    p->count[1] = c->sendcount - first;
    return MPI_SUCCESS;
}

void papc_linear_sync_cut_free(papc_ls_parts *p) {
    free(p->packed);
    p->packed = NULL;
}

int papc_linear_sync_send(const papc_call *c) {
    int64_t split;
    papc_ls_parts p;
    int rc = papc_recv(c, &split, 1, MPI_INT64_T, c->root, SUB_GO);
    if (rc == MPI_SUCCESS) rc = papc_linear_sync_cut(c, split, &p);
    if (rc != MPI_SUCCESS) return rc;
    rc = papc_send(c, p.buf[0], p.count[0], p.type[0], c->root, SUB_FIRST);
    if (rc == MPI_SUCCESS && p.n == 2)
        rc = papc_send(c, p.buf[1], p.count[1], p.type[1], c->root,
                       SUB_SECOND);
    papc_linear_sync_cut_free(&p);
    return rc;
}

/* ---- root side ---- */

/* MPI_Wait rather than a waitall of one: a too long block is reported as
 * MPI_ERR_TRUNCATE, not MPI_ERR_IN_STATUS. */
static int wait_one(MPI_Request *req) {
    int rc = MPI_Wait(req, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS) return MPI_SUCCESS;
    papc_cleanup_requests(1, req);
    return papc_mpi_error(rc, "MPI_Wait");
}

/* Rank i's turn: first part, go-ahead, second part posted (*second), wait
 * for the first part. */
static int take_block(const papc_call *c, int i, int64_t split, int first,
                      MPI_Request *second) {
    char *slot = papc_elem(c->recvbuf, c->recvtype,
                           (MPI_Aint)i * c->recvcount);
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = papc_irecv(c, slot, first, c->recvtype, i, SUB_FIRST, &req);
    if (rc == MPI_SUCCESS)
        rc = papc_send(c, &split, 1, MPI_INT64_T, i, SUB_GO);
    if (rc == MPI_SUCCESS && first < c->recvcount)
        rc = papc_irecv(c, papc_elem(slot, c->recvtype, first),
                        c->recvcount - first, c->recvtype, i, SUB_SECOND,
                        second);
    if (rc == MPI_SUCCESS) return wait_one(&req);
    papc_cleanup_requests(1, &req);
    return rc;
}

int papc_linear_sync_root(const papc_call *c, const int *order) {
    size_t esize = papc_type_size(c->recvtype);
    int64_t split = split_offset(c, esize, (size_t)c->recvcount * esize);
    int first = split == PAPC_LS_ONE_PART ? c->recvcount
                                          : (int)(split / (int64_t)esize);
    MPI_Request *second = malloc((size_t)c->size * sizeof *second);
    if (!second) return papc_error(MPI_ERR_NO_MEM, "linear_sync requests");
    for (int i = 0; i < c->size; i++) second[i] = MPI_REQUEST_NULL;
    /* A rank whose block fails (too long: MPI_ERR_TRUNCATE) must not leave
     * the ranks after it waiting for their go-ahead: every rank gets its
     * turn, every posted second part is waited for, the first error is
     * returned. */
    int rc = MPI_SUCCESS;
    for (int k = 0; k < c->size; k++) {
        int i = order ? order[k] : k, rc_i = MPI_SUCCESS;
        if (i != c->root) rc_i = take_block(c, i, split, first, &second[i]);
        if (rc == MPI_SUCCESS) rc = rc_i;
    }
    if (rc == MPI_SUCCESS && c->sendbuf != MPI_IN_PLACE)
        rc = papc_copy(c->sendbuf, c->sendcount, c->sendtype,
                       papc_elem(c->recvbuf, c->recvtype,
                                 (MPI_Aint)c->root * c->recvcount),
                       c->recvcount, c->recvtype);
    for (int i = 0; i < c->size; i++) {
        int rc_i = wait_one(&second[i]);
        if (rc == MPI_SUCCESS) rc = rc_i;
    }
    free(second);
    return rc;
}

int papc_gather_linear_sync(const papc_call *c) {
    if (c->rank != c->root) return papc_linear_sync_send(c);
    return papc_linear_sync_root(c, NULL);
}

/* Model (issue 12), block m bytes, root 0, first part f =
 * PAPC_GATHER_FIRST_SEGMENT (default 1024; the run rounds it down to
 * recvtype elements, split_offset, lines 58-63: the model takes bytes),
 * second part m2 = m - f, eager limit e (in->eager):
 *   one part (f = 0 or f >= m):
 *     T = (P-1)(2α + (8 + m)β) + mδ
 *   m2 <= e (eq. 14's case: a rank's second part flies during the next
 *   rank's turn, which lasts as long as the longer of the two):
 *     T = (2α + (8 + f)β) + (P-2)(2α + max(8 + f, m2)β) + (α + m2 β) + mδ
 *   m2 > e (eq. 13's case, rendezvous: every part in turn):
 *     T = (P-1)(3α + (8 + m)β) + mδ
 * A turn (take_block, lines 138-153, one rank after the other in
 * papc_linear_sync_root's loop, line 170): the root posts the first part's
 * receive, sends the 8-byte go-ahead (blocking, α + 8β; eq. 13-14 leave it
 * out), posts the second part's and waits for the first, which the sender
 * sends on receiving the go-ahead (papc_linear_sync_send, lines 111-123,
 * then the second part right after).  The last rank's second part is
 * still on its way when the loop ends; the root copies its own block
 * (line 174) and waits for it (line 179).  m = 0 costs nothing (call.c);
 * P = 1 is the copy.
 * Traffic: per non-root the go-ahead and one or two parts, (P-1)(2 or 3)
 * messages and (P-1)(8 + m) bytes (ls_traffic). */
static papc_terms ls_time(const papc_model_in *in, double f) {
    papc_terms t = papc_bgs_copy(in->m);
    double m2 = in->m - f;
    papc_terms go = papc_msg(8);
    if (f <= 0 || f >= in->m)
        return papc_terms_axpy(t, in->P - 1,
                               papc_terms_add(go, papc_msg(in->m)));
    papc_terms first = papc_terms_add(go, papc_msg(f)), second = papc_msg(m2);
    if (m2 > in->eager)
        return papc_terms_axpy(t, in->P - 1, papc_terms_add(first, second));
    t = papc_terms_add(t, papc_terms_add(first, second));
    return papc_terms_axpy(t, in->P - 2, papc_bgs_max(first, second));
}

static papc_terms ls_traffic(const papc_model_in *in, double f,
                             papc_terms t) {
    double per = f <= 0 || f >= in->m ? 2 : 3;
    return papc_terms_traffic(t, (in->P - 1) * per,
                              (in->P - 1) * (8 + in->m));
}

papc_terms papc_gather_linear_sync_model(const papc_model_in *in) {
    if (in->m <= 0) return papc_terms_zero();
    if (in->P <= 1) return papc_bgs_copy(in->m);
    double f = papc_bgs_first_segment();
    return ls_traffic(in, f, ls_time(in, f));
}
