/*
 * reduce_scatter.h — the reduce-scatter building blocks shared by reduce
 * and allreduce (recursive_doubling, rabenseifner and ring of both):
 *
 *   papc_acc      a rank's data during a reduction (its own contribution,
 *                 the accumulator, a receive area) and the one step they
 *                 all repeat: receive a partner's partial result and fold it
 *                 in, in MPI's operand order;
 *   papc_fold     the usual reduction of P ranks to the largest power of
 *                 two pof2 <= P (MPICH/Open MPI): among the first 2*(P-pof2)
 *                 virtual ranks the even ones hand their data to the next
 *                 odd one and sit out; papc_allreduce_folded is the whole
 *                 frame (fold, temporary, result back) of an allreduce run
 *                 among the pof2 survivors;
 *   papc_halving  recursive-halving reduce-scatter over pof2 blocks
 *                 (Rabenseifner), with the block ranges the gathers that
 *                 follow it walk back through;
 *   papc_ring_*   the ring reduce-scatter over P blocks (Open MPI ring,
 *                 optionally one phase of its segmented variant).
 */
#ifndef PAPC_REDUCE_SCATTER_H
#define PAPC_REDUCE_SCATTER_H
#include "../core/core.h"

/* Subtags of the call used by the phases of these algorithms. */
enum { PAPC_RS_SUB_FOLD = 0, PAPC_RS_SUB_SCATTER = 1, PAPC_RS_SUB_GATHER = 2,
       PAPC_RS_SUB_UNFOLD = 3 };

/* ---- a rank's data during a reduction -------------------------------- */

typedef struct papc_acc {
    const papc_call *c;
    MPI_Datatype type;
    MPI_Aint extent;
    int count;
    const char *mine; /* this rank's contribution (read-only: the sendbuf) */
    char *acc;        /* partial results, count elements of type's layout */
    char *tmp;        /* receive area indexed like acc (NULL if not needed) */
    int in_acc;       /* 1 once this rank's current data live in acc */
} papc_acc;

/* Starts with the contribution in mine; acc/tmp are set by the caller.
 * When mine == acc (MPI_IN_PLACE) the data are already in acc. */
void papc_acc_init(papc_acc *a, const papc_call *c, const void *mine,
                   void *acc, void *tmp);

static inline char *papc_acc_at(const papc_acc *a, const void *buf,
                                int index) {
    return (char *)buf + (MPI_Aint)index * a->extent;
}
/* Where this rank's current data live (mine until the first combine). */
static inline const char *papc_acc_current(const papc_acc *a) {
    return a->in_acc ? a->acc : a->mine;
}

/* Sends elements [soff, soff+slen) of this rank's current data to peer
 * (no send when slen < 0) while receiving peer's partial result for
 * [roff, roff+rlen), then folds it in: afterwards acc[roff..] holds
 * peer op mine when peer_is_left, mine op peer otherwise.  acc and tmp may
 * trade places (non-commutative op, this rank the left operand), so read
 * a->acc again after the call. */
int papc_acc_combine(papc_acc *a, int peer, int peer_is_left, int soff,
                     int slen, int roff, int rlen, int sub);

/* ---- reduction to a power of two ranks ------------------------------- */

typedef struct papc_fold {
    int size, pof2, rem; /* rem = size - pof2 */
    int shift;           /* real rank of virtual rank 0 */
    int vrank;           /* this rank's virtual rank */
    int newrank;         /* rank among the pof2 survivors, -1 if out */
} papc_fold;

/* Virtual rank v = (rank - shift) mod size; the even v < 2*rem fold into
 * v + 1; survivors are renumbered 0..pof2-1 keeping their order. */
void papc_fold_init(papc_fold *f, int rank, int size, int shift);
/* Real rank of survivor newrank. */
int papc_fold_real(const papc_fold *f, int newrank);
/* Survivor number of virtual rank vrank (-1 if it folds out). */
int papc_fold_newrank(const papc_fold *f, int vrank);
/* The fold step: an even v < 2*rem sends its whole vector to v + 1, which
 * combines it as the left operand (order kept for non-commutative ops). */
int papc_fold_in(papc_acc *a, const papc_fold *f);
/* The way back for allreduce: v + 1 sends the result (a->acc) to the
 * even v, which receives it into result. */
int papc_fold_out(const papc_acc *a, const papc_fold *f, void *result);

/* An allreduce among the pof2 survivors: on return a->acc holds the full
 * reduction of all ranks. */
typedef int (*papc_pof2_allreduce_fn)(papc_acc *a, const papc_fold *f);
/* The frame shared by the allreduces that fold to a power of two
 * (recursive doubling, Rabenseifner): a folded-out rank hands its data
 * over and receives the result into recvbuf; a survivor reduces in recvbuf
 * with a count-element temporary as receive area, folds in, runs
 * among_pof2, folds out and leaves the result in recvbuf. */
int papc_allreduce_folded(const papc_call *c,
                          papc_pof2_allreduce_fn among_pof2);

/* ---- recursive halving ------------------------------------------------ */

/* The vector is cut into pof2 near-equal blocks.  In step s (partner
 * newrank ^ (1 << s)) a survivor halves the block range it holds: bit s of
 * its newrank picks the upper or the lower half, which it keeps. */
typedef struct papc_halving {
    int count, pof2, nsteps;
    int lo[31], hi[31]; /* block range kept after step s */
} papc_halving;

void papc_halving_init(papc_halving *h, int newrank, int pof2, int count);
/* Element range of blocks [blo, bhi). */
void papc_halving_elems(const papc_halving *h, int blo, int bhi, int *off,
                        int *len);
/* Element ranges a survivor holds after step s (kept) and the other half
 * of the range it held before step s (the partner's part). */
void papc_halving_step(const papc_halving *h, int s, int *keep_off,
                       int *keep_len, int *other_off, int *other_len);
/* The reduce-scatter: afterwards a->acc holds, on the survivor's final
 * range (step nsteps-1's kept range), the reduction of all ranks.
 * Commutative ops only. */
int papc_halving_reduce_scatter(papc_acc *a, const papc_fold *f,
                                const papc_halving *h);

/* ---- ring ---------------------------------------------------------------- */

/* Piece (block, phase): the vector is cut into P near-equal blocks, each
 * block into nphases near-equal pieces. */
void papc_ring_piece(int count, int size, int nphases, int block, int phase,
                     int *off, int *len);
/* Largest piece over all blocks for nphases phases. */
int papc_ring_max_piece(int count, int size, int nphases);

/* Ring reduce-scatter of one phase, P-1 steps: in step k rank r receives
 * piece (r-k-1) of its left neighbour, reduces it with its own and forwards
 * the sum in step k+1.  Afterwards out holds the full reduction of piece
 * (r+1) mod P.  When mine != out, pieces are received straight into out
 * and reduced there with mine (mine is left intact); when mine == out (in
 * place) they arrive in slots[0..1], two areas of
 * papc_ring_max_piece elements.  Commutative ops only. */
int papc_ring_reduce_scatter(const papc_call *c, const void *mine, void *out,
                             void *const slots[2], int nphases, int phase);

/* ---- cost-model pieces (issue 12; pure, no MPI) ------------------------
 * Hockney terms of the phases above for m bytes, derived from their code;
 * the models of reduce/ and allreduce/ add them up. */

/* papc_fold_in when P is not a power of two: the odd survivor receives the
 * whole vector (blocking) and reduces it, α + mβ + mγ_op; zero terms when
 * P = pof2. */
papc_terms papc_fold_model(int P, double m);
/* papc_fold_out (allreduce): the result back to the folded-out rank,
 * α + mβ when P != pof2. */
papc_terms papc_unfold_model(int P, double m);
/* papc_halving_reduce_scatter among pof2: log2(pof2) sendrecvs of m/2,
 * m/4, ..., m/pof2, each half reduced: log2(pof2) α + (pof2-1)/pof2 m
 * (β + γ_op). */
papc_terms papc_halving_model(int pof2, double m);
/* The halving steps walked back (reduce's binomial gather, allreduce's
 * recursive-doubling allgather): log2(pof2) α + (pof2-1)/pof2 mβ. */
papc_terms papc_halving_back_model(int pof2, double m);
/* One phase of papc_ring_reduce_scatter with pieces of `piece` bytes: P-1
 * steps, each a receive (posted ahead) waited for, reduced and sent on, so
 * they chain: (P-1)(α + piece (β + γ_op)). */
papc_terms papc_ring_rs_model(int P, double piece);

#endif /* PAPC_REDUCE_SCATTER_H */
