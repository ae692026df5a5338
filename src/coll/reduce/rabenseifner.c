/*
 * rabenseifner.c — reduce as a reduce-scatter by recursive halving
 * followed by a binomial gather of the reduced pieces to the root, which
 * walks the halving steps back (Rabenseifner; Thakur, Rabenseifner, Gropp
 * 2005 §5; Open MPI coll/base redscat_gather, MPICH
 * reduce_scatter_gather).  A P that is not a power of two is folded first
 * (reduce_scatter.h).
 *
 * Cost: 2 log2(pof2) alpha + 2 (pof2-1)/pof2 n beta + (pof2-1)/pof2 n gamma,
 * plus alpha + n beta + n gamma when P != pof2.
 *
 * Departures: ranks are numbered from root - 1, so the root is virtual rank
 * 1 and always survives the fold (Open MPI and MPICH send the result to a
 * folded-out root at the end, one more n-byte message); the fold hands
 * over the whole vector (MPICH); count < pof2 is served with empty blocks.
 * Commutative ops only.
 */
#include "../coll.h"
#include "../reduce_scatter.h"
#include "topo/topo.h"
#include "model_parts.h"

/* Binomial gather over the halving steps in reverse: in step s, of the two
 * partners still holding data, the one whose bit s differs from the
 * root's sends everything it holds and drops out. */
static int gather_to_root(const papc_acc *a, const papc_fold *f,
                          const papc_halving *h, int newroot) {
    int me = f->newrank;
    for (int s = h->nsteps - 1; s >= 0; s--) {
        int peer = papc_fold_real(f, me ^ (1 << s));
        int koff, klen, ooff, olen, rc;
        papc_halving_step(h, s, &koff, &klen, &ooff, &olen);
        if ((me ^ newroot) & (1 << s))
            return papc_send(a->c, papc_acc_at(a, a->acc, koff), klen,
                             a->type, peer, PAPC_RS_SUB_GATHER);
        rc = papc_recv(a->c, papc_acc_at(a, a->acc, ooff), olen, a->type,
                       peer, PAPC_RS_SUB_GATHER);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

int papc_reduce_rabenseifner(const papc_call *c) {
    int is_root = c->rank == c->root;
    const void *mine = is_root && c->sendbuf == MPI_IN_PLACE ? c->recvbuf
                                                             : c->sendbuf;
    papc_fold f;
    papc_acc a;
    papc_fold_init(&f, c->rank, c->size, (c->root - 1 + c->size) % c->size);
    if (f.newrank < 0) { /* folded out: hand the data over, done */
        papc_acc_init(&a, c, mine, NULL, NULL);
        return papc_fold_in(&a, &f);
    }
    /* tmp receives partner halves; acc (non-root) accumulates. */
    papc_tmpbuf tmp, acc = {NULL, NULL};
    papc_halving h;
    int rc = papc_tmpbuf_alloc(&tmp, c->sendtype, (size_t)c->sendcount);
    if (rc != MPI_SUCCESS) return rc;
    if (!is_root &&
        (rc = papc_tmpbuf_alloc(&acc, c->sendtype, (size_t)c->sendcount)) !=
            MPI_SUCCESS) {
        papc_tmpbuf_free(&tmp);
        return rc;
    }
    papc_acc_init(&a, c, mine, is_root ? c->recvbuf : acc.ptr, tmp.ptr);
    papc_halving_init(&h, f.newrank, f.pof2, c->sendcount);
    rc = papc_fold_in(&a, &f);
    if (rc == MPI_SUCCESS) rc = papc_halving_reduce_scatter(&a, &f, &h);
    /* A commutative op never moves the root's accumulator out of recvbuf. */
    if (rc == MPI_SUCCESS)
        rc = gather_to_root(&a, &f, &h, papc_fold_newrank(&f, 1));
    papc_tmpbuf_free(&acc);
    papc_tmpbuf_free(&tmp);
    return rc;
}

/* Model (issue 12), p' = the largest power of two <= P:
 *   T = [P != p'](α + mβ + m γ_op)                       (papc_fold_in)
 *     + log2(p') α + (p'-1)/p' m (β + γ_op)   (papc_halving_reduce_scatter)
 *     + log2(p') α + (p'-1)/p' m β                      (gather_to_root)
 * The fold hands the whole vector over (blocking send, received and
 * reduced by the survivor); each halving step is a sendrecv of half the
 * range held, the kept half reduced; the gather walks the steps back with
 * blocking receives at the root, m/2^(s+1) bytes in step s.  The root is
 * virtual rank 1, so it always survives the fold: no final message.  No
 * copy (the first partner piece lands in the accumulator and is reduced
 * there with the send buffer).  Ignores m_s.  Commutative ops only.
 * Traffic, r = P - p', L = log2(p'):
 *   fold     r messages of m, rm sent + rm reduced;
 *   halving  each of p' ranks sends L pieces, (p'-1)/p' m in all, and
 *            reduces as much: p'L messages, 2(p'-1)m;
 *   gather   step s has 2^s senders of m/2^(s+1) (m/2 a step): p'-1
 *            messages, Lm/2 bytes. */
papc_terms papc_reduce_rabenseifner_model(const papc_model_in *in) {
    papc_terms t;
    if (papc_model_reduce_trivial(in, &t)) return t;
    int pof2 = papc_pof2_floor(in->P);
    double r = in->P - pof2, L = papc_model_floor_log2(pof2), m = in->m;
    t = papc_fold_model(in->P, in->m);
    t = papc_terms_add(t, papc_halving_model(pof2, in->m));
    t = papc_terms_add(t, papc_halving_back_model(pof2, in->m));
    return papc_terms_traffic(t, r + pof2 * L + pof2 - 1,
                              2 * r * m + 2 * (pof2 - 1) * m + L * m / 2);
}
