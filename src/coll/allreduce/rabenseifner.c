/*
 * rabenseifner.c — allreduce as a reduce-scatter by recursive halving
 * followed by an allgather by recursive doubling that walks the halving
 * steps back (Rabenseifner; Thakur, Rabenseifner, Gropp 2005 §4.4; Open
 * MPI coll/base redscat_allgather, MPICH reduce_scatter_allgather).  A P
 * that is not a power of two is folded first (reduce_scatter.h).
 *
 * Cost: 2 log2(pof2) alpha + 2 (pof2-1)/pof2 n beta + (pof2-1)/pof2 n gamma,
 * plus 2 (alpha + n beta) + n gamma when P != pof2.
 *
 * Departures: the fold hands over the whole vector (MPICH) where Open MPI
 * exchanges halves (a shared fold with recursive_doubling, one message
 * fewer, more bytes for the folded pairs); count < pof2 is served with empty
 * blocks rather than by falling back to recursive doubling; the send buffer
 * is not copied into the receive buffer first.  Commutative ops only.
 */
#include "../coll.h"
#include "../reduce_scatter.h"
#include "../reduce/model_parts.h"
#include "topo/topo.h"

/* Recursive doubling over the halving steps in reverse: the partners of
 * step s swap the halves they reduced, in place in the accumulator. */
static int allgather(const papc_acc *a, const papc_fold *f,
                     const papc_halving *h) {
    for (int s = h->nsteps - 1; s >= 0; s--) {
        int peer = papc_fold_real(f, f->newrank ^ (1 << s));
        int koff, klen, ooff, olen;
        papc_halving_step(h, s, &koff, &klen, &ooff, &olen);
        int rc = papc_sendrecv(a->c, papc_acc_at(a, a->acc, koff), klen,
                               a->type, peer, papc_acc_at(a, a->acc, ooff),
                               olen, a->type, peer, PAPC_RS_SUB_GATHER);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* Among the pof2 survivors: reduce-scatter by halving, then allgather. */
static int halving_doubling(papc_acc *a, const papc_fold *f) {
    papc_halving h;
    papc_halving_init(&h, f->newrank, f->pof2, a->count);
    int rc = papc_halving_reduce_scatter(a, f, &h);
    return rc != MPI_SUCCESS ? rc : allgather(a, f, &h);
}

int papc_allreduce_rabenseifner(const papc_call *c) {
    return papc_allreduce_folded(c, halving_doubling);
}

/* Model (issue 12), p' = the largest power of two <= P:
 *   T = [P != p'](α + mβ + m γ_op)                        (papc_fold_in)
 *     + log2(p') α + (p'-1)/p' m (β + γ_op)   (papc_halving_reduce_scatter)
 *     + log2(p') α + (p'-1)/p' m β                           (allgather)
 *     + [P != p'](α + mβ)                                  (papc_fold_out)
 * The allgather swaps the reduced halves back with sendrecvs, m/p', ...,
 * m/2 bytes.  No copy (commutative: the accumulator never leaves
 * recvbuf).  Ignores m_s.  Commutative ops only.
 * Traffic, r = P - p', L = log2(p'): fold r messages of m (2rm with the
 * reductions), halving p'L messages, (p'-1)m sent + (p'-1)m reduced,
 * allgather p'L messages, (p'-1)m, unfold r messages of m:
 * 2r + 2p'L messages, 3rm + 3(p'-1)m bytes. */
papc_terms papc_allreduce_rabenseifner_model(const papc_model_in *in) {
    papc_terms t;
    if (papc_model_reduce_trivial(in, &t)) return t;
    int pof2 = papc_pof2_floor(in->P);
    double r = in->P - pof2, L = papc_model_floor_log2(pof2), m = in->m;
    t = papc_fold_model(in->P, in->m);
    t = papc_terms_add(t, papc_halving_model(pof2, in->m));
    t = papc_terms_add(t, papc_halving_back_model(pof2, in->m));
    t = papc_terms_add(t, papc_unfold_model(in->P, in->m));
    return papc_terms_traffic(t, 2 * r + 2 * pof2 * L,
                              3 * r * m + 3 * (pof2 - 1) * m);
}
