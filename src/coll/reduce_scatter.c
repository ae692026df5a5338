/*
 * reduce_scatter.c — reduce-scatter phases shared by reduce and allreduce:
 * the order-keeping combine step, the fold to a power of two (MPICH and
 * Open MPI recursive doubling / Rabenseifner), recursive halving
 * (Rabenseifner; Thakur, Rabenseifner, Gropp 2005) and the ring
 * reduce-scatter (Open MPI ring / segmented ring), and the folded frame
 * of the power-of-two allreduces.
 *
 * Costs (n bytes, P ranks, pof2 <= P, gamma per byte reduced):
 *   fold                 alpha + n*beta + n*gamma (only when P != pof2)
 *   recursive halving    log2(pof2)*alpha + (pof2-1)/pof2 * n*(beta+gamma)
 *   ring, per phase      (P-1)*alpha + (P-1)/P * n*(beta+gamma)
 *
 * Departures, all to save copies: the rank's own contribution is read in
 * place from the send buffer (Open MPI and MPICH first copy it into the
 * receive buffer): the first partner block is received straight into the
 * accumulator and reduced there with the send buffer, as the op is
 * commutative or this rank is the left operand; only a non-commutative op
 * whose partner is the left operand costs the copy.  For the same reason a
 * non-commutative combine whose result lands in the receive area swaps
 * accumulator and receive area (as Open MPI's recursive doubling does)
 * instead of copying back.
 */
#include "reduce_scatter.h"
#include "../topo/topo.h"

/* ---- a rank's data during a reduction -------------------------------- */

void papc_acc_init(papc_acc *a, const papc_call *c, const void *mine,
                   void *acc, void *tmp) {
    a->c = c;
    a->type = c->sendtype;
    a->extent = papc_extent(c->sendtype);
    a->count = c->sendcount;
    a->mine = mine;
    a->acc = acc;
    a->tmp = tmp;
    a->in_acc = mine == acc;
}

int papc_acc_combine(papc_acc *a, int peer, int peer_is_left, int soff,
                     int slen, int roff, int rlen, int sub) {
    const papc_call *c = a->c;
    int ordered = !c->commutative;
    int rc;
    /* The send buffer is read-only, so it cannot be the right operand that
     * MPI_Reduce_local overwrites: copy it into acc first. */
    if (!a->in_acc && ordered && peer_is_left) {
        rc = papc_copy(a->mine, a->count, a->type, a->acc, a->count, a->type);
        if (rc != MPI_SUCCESS) return rc;
        a->in_acc = 1;
    }
    /* Before the first combine the partner's data go straight into acc. */
    char *dst = papc_acc_at(a, a->in_acc ? a->tmp : a->acc, roff);
    if (slen >= 0)
        rc = papc_sendrecv(c, papc_acc_at(a, papc_acc_current(a), soff), slen,
                           a->type, peer, dst, rlen, a->type, peer, sub);
    else
        rc = papc_recv(c, dst, rlen, a->type, peer, sub);
    if (rc != MPI_SUCCESS) return rc;

    if (!a->in_acc) { /* acc = mine op peer (commutative, or mine left) */
        a->in_acc = 1;
        return papc_reduce_local(papc_acc_at(a, a->mine, roff), dst, rlen,
                                 a->type, c->op);
    }
    if (!ordered || peer_is_left) /* acc = peer op acc */
        return papc_reduce_local(dst, papc_acc_at(a, a->acc, roff), rlen,
                                 a->type, c->op);
    /* tmp = acc op tmp: the result is in tmp, which becomes the acc. */
    rc = papc_reduce_local(papc_acc_at(a, a->acc, roff), dst, rlen, a->type,
                           c->op);
    char *t = a->acc;
    a->acc = a->tmp;
    a->tmp = t;
    return rc;
}

/* ---- reduction to a power of two ranks ------------------------------- */

void papc_fold_init(papc_fold *f, int rank, int size, int shift) {
    f->size = size;
    f->pof2 = papc_pof2_floor(size);
    f->rem = size - f->pof2;
    f->shift = shift;
    f->vrank = (rank - shift + size) % size;
    f->newrank = papc_fold_newrank(f, f->vrank);
}

int papc_fold_newrank(const papc_fold *f, int vrank) {
    if (vrank >= 2 * f->rem) return vrank - f->rem;
    return vrank % 2 ? vrank / 2 : -1;
}

static int fold_real_of_vrank(const papc_fold *f, int vrank) {
    return (vrank + f->shift) % f->size;
}

int papc_fold_real(const papc_fold *f, int newrank) {
    int v = newrank < f->rem ? 2 * newrank + 1 : newrank + f->rem;
    return fold_real_of_vrank(f, v);
}

int papc_fold_in(papc_acc *a, const papc_fold *f) {
    int v = f->vrank;
    if (v >= 2 * f->rem) return MPI_SUCCESS;
    if (v % 2 == 0)
        return papc_send(a->c, papc_acc_current(a), a->count, a->type,
                         fold_real_of_vrank(f, v + 1), PAPC_RS_SUB_FOLD);
    return papc_acc_combine(a, fold_real_of_vrank(f, v - 1), 1, 0, -1, 0,
                            a->count, PAPC_RS_SUB_FOLD);
}

int papc_fold_out(const papc_acc *a, const papc_fold *f, void *result) {
    int v = f->vrank;
    if (v >= 2 * f->rem) return MPI_SUCCESS;
    if (v % 2 == 0)
        return papc_recv(a->c, result, a->count, a->type,
                         fold_real_of_vrank(f, v + 1), PAPC_RS_SUB_UNFOLD);
    return papc_send(a->c, a->acc, a->count, a->type,
                     fold_real_of_vrank(f, v - 1), PAPC_RS_SUB_UNFOLD);
}

int papc_allreduce_folded(const papc_call *c,
                          papc_pof2_allreduce_fn among_pof2) {
    const void *mine =
        c->sendbuf == MPI_IN_PLACE ? c->recvbuf : c->sendbuf;
    papc_fold f;
    papc_acc a;
    papc_fold_init(&f, c->rank, c->size, 0);
    if (f.newrank < 0) { /* folded out: hand the data over, await the sum */
        papc_acc_init(&a, c, mine, c->recvbuf, NULL);
        int rc = papc_fold_in(&a, &f);
        return rc != MPI_SUCCESS ? rc : papc_fold_out(&a, &f, c->recvbuf);
    }
    papc_tmpbuf tmp;
    int rc = papc_tmpbuf_alloc(&tmp, c->sendtype, (size_t)c->sendcount);
    if (rc != MPI_SUCCESS) return rc;
    papc_acc_init(&a, c, mine, c->recvbuf, tmp.ptr);
    rc = papc_fold_in(&a, &f);
    if (rc == MPI_SUCCESS) rc = among_pof2(&a, &f);
    if (rc == MPI_SUCCESS) rc = papc_fold_out(&a, &f, c->recvbuf);
    /* A non-commutative combine may have left the result in the temporary
     * (acc and tmp swapped): copy it back once, at the end. */
    if (rc == MPI_SUCCESS && a.acc != (char *)c->recvbuf)
        rc = papc_copy(a.acc, c->sendcount, c->sendtype, c->recvbuf,
                       c->sendcount, c->sendtype);
    papc_tmpbuf_free(&tmp);
    return rc;
}

/* ---- recursive halving ------------------------------------------------ */

void papc_halving_init(papc_halving *h, int newrank, int pof2, int count) {
    int lo = 0, hi = pof2, s = 0;
    h->count = count;
    h->pof2 = pof2;
    for (; (1 << s) < pof2; s++) {
        int mid = (lo + hi) / 2;
        if ((newrank >> s) & 1) lo = mid;
        else hi = mid;
        h->lo[s] = lo;
        h->hi[s] = hi;
    }
    h->nsteps = s;
}

/* First element of block i (block i + 1 starts where it ends). */
static int block_start(const papc_halving *h, int i) {
    int q = h->count / h->pof2, r = h->count % h->pof2;
    return i * q + (i < r ? i : r);
}

void papc_halving_elems(const papc_halving *h, int blo, int bhi, int *off,
                        int *len) {
    *off = block_start(h, blo);
    *len = block_start(h, bhi) - *off;
}

void papc_halving_step(const papc_halving *h, int s, int *keep_off,
                       int *keep_len, int *other_off, int *other_len) {
    int plo = s ? h->lo[s - 1] : 0, phi = s ? h->hi[s - 1] : h->pof2;
    int lo = h->lo[s], hi = h->hi[s];
    papc_halving_elems(h, lo, hi, keep_off, keep_len);
    if (lo == plo) papc_halving_elems(h, hi, phi, other_off, other_len);
    else papc_halving_elems(h, plo, lo, other_off, other_len);
}

int papc_halving_reduce_scatter(papc_acc *a, const papc_fold *f,
                                const papc_halving *h) {
    int me = f->newrank;
    for (int s = 0; s < h->nsteps; s++) {
        int peer = me ^ (1 << s), koff, klen, ooff, olen;
        papc_halving_step(h, s, &koff, &klen, &ooff, &olen);
        int rc = papc_acc_combine(a, papc_fold_real(f, peer), peer < me, ooff,
                                  olen, koff, klen, PAPC_RS_SUB_SCATTER);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* ---- ring ---------------------------------------------------------------- */

void papc_ring_piece(int count, int size, int nphases, int block, int phase,
                     int *off, int *len) {
    int bstart, blen, pstart;
    papc_block_range(count, size, block, &bstart, &blen);
    papc_block_range(blen, nphases, phase, &pstart, len);
    *off = bstart + pstart;
}

int papc_ring_max_piece(int count, int size, int nphases) {
    int maxblock = count / size + (count % size != 0);
    return maxblock / nphases + (maxblock % nphases != 0);
}

/* State of one ring reduce-scatter. */
typedef struct ring_rs {
    const papc_call *c;
    const char *mine;
    char *out;
    void *const *slots;
    MPI_Aint extent;
    int nphases, phase, in_place;
    MPI_Request rreq[2], sreq[2];
} ring_rs;

/* The piece rank r receives in step k: its left neighbour's step-k send. */
static int ring_block_of_step(const papc_call *c, int k) {
    return ((c->rank - k - 1) % c->size + c->size) % c->size;
}

static void ring_piece_of(const ring_rs *g, int block, int *off, int *len) {
    papc_ring_piece(g->c->sendcount, g->c->size, g->nphases, block, g->phase,
                    off, len);
}

static int ring_post_recv(ring_rs *g, int k) {
    int off, len;
    ring_piece_of(g, ring_block_of_step(g->c, k), &off, &len);
    char *dst = g->in_place ? (char *)g->slots[k % 2]
                            : g->out + (MPI_Aint)off * g->extent;
    int prev = (g->c->rank - 1 + g->c->size) % g->c->size;
    return papc_irecv(g->c, dst, len, g->c->sendtype, prev,
                      PAPC_RS_SUB_SCATTER, &g->rreq[k % 2]);
}

/* Sends a piece to the right; sreq[slot]'s previous send is finished
 * first, so at most two sends are in flight. */
static int ring_send(ring_rs *g, const char *buf, int block, int slot) {
    int off, len, rc;
    ring_piece_of(g, block, &off, &len);
    rc = papc_waitall(1, &g->sreq[slot]);
    if (rc != MPI_SUCCESS) return rc;
    return papc_isend(g->c, buf + (MPI_Aint)off * g->extent, len,
                      g->c->sendtype, (g->c->rank + 1) % g->c->size,
                      PAPC_RS_SUB_SCATTER, &g->sreq[slot]);
}

/* Step k's piece has arrived: out[piece] = piece op out (or mine). */
static int ring_reduce_step(ring_rs *g, int k) {
    int off, len;
    ring_piece_of(g, ring_block_of_step(g->c, k), &off, &len);
    char *sum = g->out + (MPI_Aint)off * g->extent;
    const char *in = g->in_place ? (const char *)g->slots[k % 2]
                                 : g->mine + (MPI_Aint)off * g->extent;
    return papc_reduce_local(in, sum, len, g->c->sendtype, g->c->op);
}

static int ring_steps(ring_rs *g) {
    const papc_call *c = g->c;
    int last = c->size - 2, rc;
    /* Step 0 sends this rank's own piece, untouched. */
    if ((rc = ring_post_recv(g, 0)) != MPI_SUCCESS) return rc;
    if ((rc = ring_send(g, g->mine, c->rank, 0)) != MPI_SUCCESS) return rc;
    for (int k = 0; k <= last; k++) {
        /* The next receive is posted before this step's reduction, so the
         * left neighbour's next send never waits for it. */
        if (k < last && (rc = ring_post_recv(g, k + 1)) != MPI_SUCCESS)
            return rc;
        if ((rc = papc_waitall(1, &g->rreq[k % 2])) != MPI_SUCCESS) return rc;
        if ((rc = ring_reduce_step(g, k)) != MPI_SUCCESS) return rc;
        if (k < last &&
            (rc = ring_send(g, g->out, ring_block_of_step(c, k),
                            (k + 1) % 2)) != MPI_SUCCESS)
            return rc;
    }
    return papc_waitall(2, g->sreq);
}

int papc_ring_reduce_scatter(const papc_call *c, const void *mine, void *out,
                             void *const slots[2], int nphases, int phase) {
    ring_rs g = {c, mine, out, slots, papc_extent(c->sendtype), nphases,
                 phase, mine == out,
                 {MPI_REQUEST_NULL, MPI_REQUEST_NULL},
                 {MPI_REQUEST_NULL, MPI_REQUEST_NULL}};
    int rc = ring_steps(&g);
    if (rc != MPI_SUCCESS) {
        papc_cleanup_requests(2, g.rreq);
        papc_cleanup_requests(2, g.sreq);
    }
    return rc;
}

/* ---- cost-model pieces (see reduce_scatter.h) ------------------------- */

papc_terms papc_fold_model(int P, double m) {
    if (P <= 1 || papc_pof2_floor(P) == P) return papc_terms_zero();
    papc_terms t = papc_msg(m); /* papc_fold_in: recv m, then reduce m */
    t.gamma_op = m;
    return t;
}

papc_terms papc_unfold_model(int P, double m) {
    if (P <= 1 || papc_pof2_floor(P) == P) return papc_terms_zero();
    return papc_msg(m);
}

/* Step s moves and reduces m/2^(s+1): the halves sum to (pof2-1)/pof2 m. */
papc_terms papc_halving_model(int pof2, double m) {
    double part = pof2 > 1 ? (pof2 - 1.0) / pof2 * m : 0;
    papc_terms t = {papc_model_floor_log2(pof2), part, part, 0};
    return t;
}

papc_terms papc_halving_back_model(int pof2, double m) {
    double part = pof2 > 1 ? (pof2 - 1.0) / pof2 * m : 0;
    papc_terms t = {papc_model_floor_log2(pof2), part, 0, 0};
    return t;
}

papc_terms papc_ring_rs_model(int P, double piece) {
    if (P <= 1) return papc_terms_zero();
    papc_terms step = papc_msg(piece);
    step.gamma_op = piece;
    return papc_terms_scale(step, P - 1);
}
