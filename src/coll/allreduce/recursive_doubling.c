/*
 * recursive_doubling.c — allreduce by recursive doubling (butterfly): in
 * step s every rank swaps its whole partial result with the rank whose
 * number differs in bit s and combines the two, so after log2 P steps all
 * hold the full reduction.  Open MPI coll/base recursivedoubling, MPICH
 * allreduce_intra_recursive_doubling; Thakur, Rabenseifner, Gropp 2005
 * §4.  A P that is not a power of two is first folded (reduce_scatter.h):
 * the even ones of the first 2(P - pof2) ranks hand their vector to the
 * next rank and receive the result at the end.
 *
 * Cost: (log2 pof2 + 2[P != pof2]) (alpha + n beta) + (log2 pof2 +
 * [P != pof2]) n gamma.
 *
 * Order: the partners' groups are contiguous rank ranges, and the lower
 * group's data is always the left operand, so non-commutative ops give
 * MPI's rank order.  Departure: the send buffer is not copied into the
 * receive buffer first (see reduce_scatter.c), and a result left in the
 * temporary by a non-commutative step is copied back once at the end
 * (papc_allreduce_folded).
 */
#include "../coll.h"
#include "../reduce_scatter.h"
#include "../reduce/model_parts.h"
#include "topo/topo.h"

/* Among the pof2 survivors: in step mask, swap the whole partial result
 * with the partner differing in that bit and combine in rank order. */
static int butterfly(papc_acc *a, const papc_fold *f) {
    for (int mask = 1; mask < f->pof2; mask <<= 1) {
        int peer = f->newrank ^ mask;
        int rc = papc_acc_combine(a, papc_fold_real(f, peer),
                                  peer < f->newrank, 0, a->count, 0,
                                  a->count, PAPC_RS_SUB_SCATTER);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

int papc_allreduce_recursive_doubling(const papc_call *c) {
    return papc_allreduce_folded(c, butterfly);
}

/* Model (issue 12), p' = the largest power of two <= P:
 *   T = [P != p'](α + mβ + m γ_op)                        (papc_fold_in)
 *     + log2(p')(α + mβ + m γ_op)                            (butterfly)
 *     + [P != p'](α + mβ)                                  (papc_fold_out)
 *     + c m δ
 * Every butterfly step is a sendrecv of the whole partial result, reduced
 * at once.  Copies (papc_acc_combine, papc_allreduce_folded): none for a
 * commutative op; a non-commutative op copies the send buffer into the
 * accumulator before the first combine whose partner is the left operand,
 * and copies the result back from the temporary when the acc/tmp swaps
 * left it there: at most two copies on a rank, c = 1 at P = 2 (rank 1
 * copies once, rank 0 none), c = 2 for P >= 3 (e.g. rank 1 of P = 4, or
 * the fold survivor of P = 3).  Ignores m_s.
 * Traffic, r = P - p', L = log2(p'): the fold's r messages of m (rm sent
 * + rm reduced), the butterfly's p'L of m (each reduced: 2p'Lm), the
 * unfold's r of m: 2r + p'L messages, 3rm + 2p'Lm bytes. */
papc_terms papc_allreduce_recursive_doubling_model(const papc_model_in *in) {
    papc_terms t;
    if (papc_model_reduce_trivial(in, &t)) return t;
    int pof2 = papc_pof2_floor(in->P);
    papc_terms step = papc_msg(in->m);
    step.gamma_op = in->m;
    t = papc_fold_model(in->P, in->m);
    t = papc_terms_axpy(t, papc_model_floor_log2(pof2), step);
    t = papc_terms_add(t, papc_unfold_model(in->P, in->m));
    if (!in->commutative) t.copy = (in->P == 2 ? 1 : 2) * in->m;
    double r = in->P - pof2, L = papc_model_floor_log2(pof2);
    return papc_terms_traffic(t, 2 * r + pof2 * L,
                              3 * r * in->m + 2 * pof2 * L * in->m);
}
