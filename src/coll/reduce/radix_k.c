/*
 * radix_k.c — reduce as a Radix-k reduce-scatter followed by a gather of
 * the reduced blocks to the root that walks the rounds back (Peterka,
 * Goodell, Ross, Shen, Thakur, "A configurable algorithm for parallel
 * image-compositing applications", SC'09).  The "RXX" baseline of the
 * Clairvoyant-reduce paper's §6: group sizes from a list of preferred
 * sizes (src/topo/radix_k.c: {8, 4, 2} by default, the remaining prime
 * factors as groups of their own).
 *
 * Pattern.  Ranks are numbered from the root (v = rank - root mod P) and
 * P = k_0 ... k_{r-1}.  In round i every process is in a group of k_i (the
 * processes differing from it in mixed-radix digit i); the range the group
 * holds is cut into k_i parts and each member gets the k_i - 1 pieces of
 * its part from the others: a direct-send reduce-scatter inside the group,
 * all receives and sends posted at once, the pieces reduced in member
 * order as they arrive in that order.  After r rounds each process holds
 * one of P blocks fully reduced.  The gather walks the rounds back: in
 * round i (from r-1 down to 0) the members with digit i != 0 send what
 * they hold to the member with digit 0 and are done; the root (v = 0) ends
 * with everything in recvbuf.  k = 2 everywhere is Rabenseifner's recursive
 * halving with its binomial gather; one group of P is direct send with a
 * direct gather.  This k-nomial gather was chosen over a direct gather to
 * the root because it keeps the group sizes' trade-off in both phases: the
 * root takes Σ (k_i - 1) messages instead of P - 1 (8*8 = 64 ranks: 14
 * instead of 63), the bytes it receives are the same, (P-1)/P n.
 *
 * Cost (r rounds, n bytes): the reduce-scatter Σ_i (k_i - 1) alpha +
 * (P-1)/P n (beta + gamma) when a round's k_i - 1 messages serialize at
 * the sender (the volume telescopes: round i moves (k_i - 1)/k_i of n/s_i),
 * Σ_i alpha + ... when the network overlaps them; the gather Σ_i (k_i - 1)
 * alpha + (P-1)/P n beta at the root.
 *
 * Tuning: PAPC_RADIX_K="8" or "4,2" replaces the preference list; it is
 * read once per call and every rank must see the same value (the ranks'
 * groups and pieces must agree), as for PAPC_TUW_THRESHOLD.  An invalid
 * list falls back to the default.
 *
 * Notes: blocks may be empty (count < P) and messages of empty pieces are
 * not sent (both ends know the lengths).  The send buffer is read in
 * place; in the first round one piece per rank arrives straight in the
 * accumulator (recvbuf at the root, a count-element temporary elsewhere)
 * and the others in a temporary of exactly the pieces needed; an in-place
 * root receives them all in the temporary.  Commutative ops only (the
 * pieces are combined out of rank order).
 */
#include <stdlib.h>

#include "../coll.h"
#include "../reduce_scatter.h"
#include "topo/radix_k.h"
#include "model_parts.h"

/* One call's state: the factorisation, this rank's virtual rank, its data
 * (a.mine its contribution, a.acc the accumulator, a.tmp the pieces). */
typedef struct radix_run {
    const papc_call *c;
    papc_radix r;
    int v;
    papc_acc a;
    MPI_Request *reqs; /* 2 (max k - 1): receives first, then sends */
    char **into;       /* max k - 1: where each received piece lands */
} radix_run;

static int real_rank(const radix_run *x, int v) {
    return (v + x->c->root) % x->c->size;
}

/* The factorisation of P by the preference list (read once per call):
 * the run and its model use the same one. */
static void factor_size(papc_radix *r, int P) {
    int prefs[PAPC_RADIX_MAX_PREFS];
    int n = papc_radix_parse_prefs(papc_getenv("PAPC_RADIX_K"), prefs);
    if (n > 0)
        papc_radix_factor(r, P, prefs, n);
    else
        papc_radix_factor(r, P, papc_radix_default_prefs,
                          papc_radix_default_nprefs);
}

static void factor(radix_run *x) { factor_size(&x->r, x->c->size); }

/* Whether round i's piece of the lowest other member goes straight into
 * the accumulator: only while this rank's data are still in mine. */
static int direct_piece(const radix_run *x) { return !x->a.in_acc; }

/* Elements of the temporary round i needs: k_i - 1 pieces of my part
 * (one fewer when the first lands straight in the accumulator). */
static size_t round_tmp_elems(const radix_run *x, int i) {
    int off, len;
    papc_radix_part(&x->r, x->c->sendcount, x->v, i,
                    papc_radix_digit(&x->r, x->v, i), &off, &len);
    int pieces = x->r.k[i] - 1 - (i == 0 && direct_piece(x));
    return (size_t)pieces * (size_t)len;
}

static int largest_group(const papc_radix *r) {
    int kmax = 1;
    for (int i = 0; i < r->nrounds; i++)
        if (r->k[i] > kmax) kmax = r->k[i];
    return kmax;
}

/* Round i of the reduce-scatter: receive the other members' pieces of my
 * part, send them theirs, reduce mine in member order. */
static int scatter_round(radix_run *x, int i) {
    papc_acc *a = &x->a;
    const papc_call *c = x->c;
    int k = x->r.k[i], me = papc_radix_digit(&x->r, x->v, i);
    int moff, mlen, nrecv = 0, nsend = 0, rc = MPI_SUCCESS;
    int direct = direct_piece(x); /* true in round 0 only */
    const char *src = papc_acc_current(a);
    MPI_Request *rreq = x->reqs, *sreq = x->reqs + (k - 1);
    char **into = x->into;
    papc_radix_part(&x->r, c->sendcount, x->v, i, me, &moff, &mlen);
    char *mypart = papc_acc_at(a, a->acc, moff);
    for (int j = 0; j < k && rc == MPI_SUCCESS; j++) {
        if (j == me || mlen == 0) continue;
        into[nrecv] = nrecv == 0 && direct
                          ? mypart
                          : papc_acc_at(a, a->tmp, (nrecv - direct) * mlen);
        int peer = real_rank(x, papc_radix_member(&x->r, x->v, i, j));
        rc = papc_irecv(c, into[nrecv], mlen, a->type, peer,
                        PAPC_RS_SUB_SCATTER, &rreq[nrecv]);
        if (rc == MPI_SUCCESS) nrecv++;
    }
    for (int j = 0; j < k && rc == MPI_SUCCESS; j++) {
        int off, len;
        if (j == me) continue;
        papc_radix_part(&x->r, c->sendcount, x->v, i, j, &off, &len);
        if (len == 0) continue;
        int peer = real_rank(x, papc_radix_member(&x->r, x->v, i, j));
        rc = papc_isend(c, papc_acc_at(a, src, off), len, a->type, peer,
                        PAPC_RS_SUB_SCATTER, &sreq[nsend]);
        if (rc == MPI_SUCCESS) nsend++;
    }
    /* Reduce in member order, each piece as soon as it and the ones
     * before it have arrived: a fixed order, overlapped with the rest. */
    for (int s = 0; s < nrecv && rc == MPI_SUCCESS; s++) {
        rc = papc_waitall(1, &rreq[s]);
        if (rc != MPI_SUCCESS) break;
        if (s == 0 && direct) /* acc = mine op piece */
            rc = papc_reduce_local(papc_acc_at(a, a->mine, moff), mypart,
                                   mlen, a->type, c->op);
        else
            rc = papc_reduce_local(into[s], mypart, mlen, a->type, c->op);
    }
    if (rc == MPI_SUCCESS) rc = papc_waitall(nsend, sreq);
    if (rc != MPI_SUCCESS) {
        papc_cleanup_requests(nrecv, rreq);
        papc_cleanup_requests(nsend, sreq);
        return rc;
    }
    /* When mine != acc and no piece came (my part empty), nothing of mine
     * is in acc, but my part is empty in every later round too. */
    a->in_acc = 1;
    return MPI_SUCCESS;
}

/* The gather: rounds walked back; digit i != 0 hands over and stops. */
static int gather_rounds(radix_run *x) {
    papc_acc *a = &x->a;
    const papc_call *c = x->c;
    for (int i = x->r.nrounds - 1; i >= 0; i--) {
        int me = papc_radix_digit(&x->r, x->v, i), off, len, n = 0;
        int rc = MPI_SUCCESS;
        if (me != 0) {
            papc_radix_part(&x->r, c->sendcount, x->v, i, me, &off, &len);
            if (len == 0) return MPI_SUCCESS;
            int to = real_rank(x, papc_radix_member(&x->r, x->v, i, 0));
            return papc_send(c, papc_acc_at(a, a->acc, off), len, a->type,
                             to, PAPC_RS_SUB_GATHER);
        }
        for (int j = 1; j < x->r.k[i] && rc == MPI_SUCCESS; j++) {
            papc_radix_part(&x->r, c->sendcount, x->v, i, j, &off, &len);
            if (len == 0) continue;
            int from = real_rank(x, papc_radix_member(&x->r, x->v, i, j));
            rc = papc_irecv(c, papc_acc_at(a, a->acc, off), len, a->type,
                            from, PAPC_RS_SUB_GATHER, &x->reqs[n]);
            if (rc == MPI_SUCCESS) n++;
        }
        if (rc == MPI_SUCCESS) rc = papc_waitall(n, x->reqs);
        else papc_cleanup_requests(n, x->reqs);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* The temporaries: the accumulator (non-roots), the pieces, requests. */
static int allocate(radix_run *x, papc_tmpbuf *acc, papc_tmpbuf *tmp) {
    const papc_call *c = x->c;
    size_t need = 0;
    for (int i = 0; i < x->r.nrounds; i++) {
        size_t e = round_tmp_elems(x, i);
        if (e > need) need = e;
    }
    size_t kmax = (size_t)largest_group(&x->r);
    x->reqs = malloc(2 * kmax * sizeof *x->reqs);
    x->into = malloc(kmax * sizeof *x->into);
    if (!x->reqs || !x->into)
        return papc_error(MPI_ERR_NO_MEM, "radix_k requests");
    int rc = papc_tmpbuf_alloc(tmp, c->sendtype, need);
    if (rc == MPI_SUCCESS && acc)
        rc = papc_tmpbuf_alloc(acc, c->sendtype, (size_t)c->sendcount);
    return rc;
}

int papc_reduce_radix_k(const papc_call *c) {
    int is_root = c->rank == c->root;
    const void *mine = is_root && c->sendbuf == MPI_IN_PLACE ? c->recvbuf
                                                             : c->sendbuf;
    radix_run x = {.c = c, .v = (c->rank - c->root + c->size) % c->size,
                   .reqs = NULL, .into = NULL};
    papc_tmpbuf acc = {NULL, NULL}, tmp = {NULL, NULL};
    factor(&x);
    /* acc and tmp are set after allocate(), but in_acc now: the size of
     * the temporary depends on whether mine is already the accumulator. */
    papc_acc_init(&x.a, c, mine, NULL, NULL);
    x.a.in_acc = is_root && mine == c->recvbuf;
    int rc = allocate(&x, is_root ? NULL : &acc, &tmp);
    if (rc == MPI_SUCCESS) {
        x.a.acc = is_root ? c->recvbuf : acc.ptr;
        x.a.tmp = tmp.ptr;
        for (int i = 0; i < x.r.nrounds && rc == MPI_SUCCESS; i++)
            rc = scatter_round(&x, i);
        /* P = 1 never gets here (served before dispatch); be safe anyway. */
        if (rc == MPI_SUCCESS && x.r.nrounds == 0 && !x.a.in_acc)
            rc = papc_copy(mine, c->sendcount, c->sendtype, x.a.acc,
                           c->sendcount, c->sendtype);
    }
    /* A commutative op never moves the root's accumulator out of recvbuf. */
    if (rc == MPI_SUCCESS) rc = gather_rounds(&x);
    free(x.reqs);
    free(x.into);
    papc_tmpbuf_free(&acc);
    papc_tmpbuf_free(&tmp);
    return rc;
}

/* Model (issue 12), P = k_0 ... k_{r-1} by the code's own factorisation
 * (factor(): PAPC_RADIX_K, else 8,4,2, then primes), s_{i+1} = k_0 ... k_i,
 * part_i = m / s_{i+1}:
 *   T = Σ_i [γ(k_i)(α + part_i β) + (k_i - 1) part_i γ_op]  (scatter_round)
 *     + Σ_i γ(k_i)(α + part_i β)                           (gather_rounds)
 * Round i of the reduce-scatter posts k_i - 1 receives and k_i - 1 sends
 * of part_i at once, a non-blocking exchange with k_i - 1 peers (Formula
 * 3: γ(k_i)), and reduces the k_i - 1 pieces of its part (Σ telescopes to
 * (P-1)/P m γ_op).  The gather walks the rounds back: the root posts the
 * k_i - 1 receives of round i's parts at once, its group members each send
 * theirs (blocking) once their own later rounds are in.  No copy (the
 * first piece lands in the accumulator).  Ignores m_s.  Reads PAPC_RADIX_K
 * as the run does (equal on every rank).  Commutative ops only.
 * γ(k_i) is the profile's measured curve, kept as papc-tune fitted the
 * row's α, β with it; without one it is k_i - 1 (papc_gamma_or_link), not
 * 1: the k_i - 1 pieces come in through the receiver's one link (and go
 * out through the sender's), so the β terms telescope to (P-1)/P m per
 * phase, what the root alone must take.  γ ≡ 1 priced each round as one
 * message of part_i, 0.143 m per phase at 512 = 8·8·8: t0 0.51 ms at
 * 2 MiB where the root's link needs 1.68 ms, and the plain call ran
 * radix_k under every other row's price (issue 16; docs/scale.md,
 * "radix_k's model without a profile").
 * Traffic: scatter round i, every rank sends k_i - 1 pieces of part_i and
 * reduces as many: P(k_i - 1) messages, 2P(k_i - 1) part_i bytes; gather
 * round i, s_i (k_i - 1) senders (those of the s_{i+1} still in with
 * digit i != 0) of part_i: (k_i - 1)/k_i m bytes.  Empty pieces (count <
 * P) are not sent; the model keeps m/P. */
papc_terms papc_reduce_radix_k_model(const papc_model_in *in) {
    papc_terms t;
    if (papc_model_reduce_trivial(in, &t)) return t;
    papc_radix r;
    factor_size(&r, in->P);
    t = papc_terms_zero();
    for (int i = 0; i < r.nrounds; i++) {
        int k = r.k[i];
        double part = in->m / r.stride[i + 1];
        double g = papc_gamma_or_link(in->gamma, k);
        papc_terms exchange = papc_terms_scale(papc_msg(part), g);
        t = papc_terms_axpy(t, 2, exchange); /* scatter and gather */
        t.gamma_op += (k - 1) * part;
        double scatter = (double)in->P * (k - 1);
        double gather = (double)r.stride[i] * (k - 1);
        t = papc_terms_traffic(t, scatter + gather,
                               2 * scatter * part + gather * part);
    }
    return t;
}
