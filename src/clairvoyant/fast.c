/*
 * fast.c — the fast Clairvoyant schedule generator, papc_clv_fast
 * (clairvoyant-reduce.md Sect. 5, Listing 8): the same schedule as the
 * reference (Listing 2 with the fixes of Sect. 4, reference.c), event for
 * event, on the same exact time grid (schedule_build.h: availability
 * (K, f) with a = a_min + (K + f) d, order (K, f, rank), round number
 * K_h + (f_h > 0)).
 *
 * What it does, per round (one iteration of Listing 8):
 *   merge-and-clean (5.2, Listing 6)  the round's group G is the previous
 *       G without the finished processes, every survivor one round later
 *       (so still in order), merged with the prefix of the awaiting queue A
 *       (sorted once by (K, f, rank)) inside the head's window: O(|G|) a
 *       round instead of a priority queue;
 *   idle-round skipping (5.1)  a G of one process cannot communicate: it
 *       jumps to the round where the next process of A joins it;
 *   one bit per (process, segment) (5.3)  M(p, s) = 1 for A/P, 0 for E;
 *       the P' state of the segment a process received this round is a 0
 *       in its leaf only (M keeps the 1), so it reverts to P for free when
 *       the round's tree is rebuilt;
 *   the segment tree over the columns (5.4, Listings 3-5, 7; segtree.h)
 *       the leaves are the columns of G's processes in G's order, the
 *       (pseudo-)root first; a process that has sent this round has its
 *       leaf zeroed (M(p, *) is the "saved copy" of Listing 8, line 33).
 *       FIND-PEER-AND-SEGMENT: the first set bit of (OR of every other
 *       leaf) AND (the receiver's column) — the head takes any segment —
 *       word-parallel on 128-bit chunks with an early exit, then the
 *       leftmost other leaf holding it (Listings 4-5).
 *
 * Cost: O(P log P) to sort the arrivals, then per round O(|G| C) to lay
 * out and build the tree (C = ceil(N / 128) chunks per column; only the
 * nodes over this or the last round's leaves are rebuilt), and per
 * process of G O(log |G|) per chunk scanned (up to the answer), O(log |G|)
 * for the peer and O(C log |G|) at most to zero a sender's leaf (its
 * non-zero chunks together, level by level, until a level where none
 * changes: at P = N = 512 a chunk climbs 4.4 of about 6 levels on
 * average, so one branch a level beats an early exit per chunk, which
 * mispredicts once per chunk — cachegrind counted 33 % fewer
 * mispredictions for 2 % more instructions);
 * O(|G|) for merge-and-clean;
 * idle rounds cost nothing.  Lemma 3's O(R P (N / SIMD) log P) without the
 * idle rounds.  Memory: M, one bit per cell, and the tree, 2 cap columns
 * for cap = the power of two >= P leaves: at most 5 bits per cell when P
 * and N fit their powers of two / chunks, as Sect. 5.5 counts (3.6 at
 * P = N = 512, 3.2 at 2048), plus O(P) words
 * (papc_clv_fast_bits_per_cell).
 *
 * Speed (measured at P = N = 512, uniform; docs/clairvoyant.md):
 *   - the round loop (rounds_c) is compiled once per common C, so the
 *     per-chunk loops of segtree.h unroll (cachegrind: about a fifth
 *     fewer instructions, with the unrolling pragmas); a sender's leaf
 *     of up to 4 chunks is cleared whole, without finding its non-zero
 *     chunks first;
 *   - find-leftmost descends without branches (segtree.h);
 *   - the transfers go to the builder through its inline push, which
 *     also counts each process' events, into room reserved for all of
 *     them (before, the room ran out 1 % short at 512 and the 4 MB were
 *     copied into a doubled block every call); finish() lays the events
 *     out sorted in one pass (schedule.c).
 *   In all, cachegrind on 3 runs: 884 M -> 725 M instructions, 6.3 M ->
 *   4.6 M mispredicted branches.
 * Speed at P = N = 2048 (issue 15; docs/performance.md):
 *   - FIND-PEER-SEGMENT climbs only for the receiver's own bits, and skips
 *     a chunk the root lacks with one load (segtree.h, first_except);
 *   - the receiver's P' bit is cleared before the peer search, so
 *     find-leftmost from the root never finds the receiver and Listing 7's
 *     second search (find-leftmost-from) is not needed;
 *   - papc_clv_fast_only keeps one process' transfers only (the executor
 *     needs nothing else), skipping the layout of everyone's events.
 *
 * Where it departs from the paper, and why:
 *   - The leaves are laid out afresh every round in G's order instead of
 *     at fixed "fractional time" positions with doubled indices (Sect.
 *     5.4.3, Listing 6 line 8).  Listing 8 restores every saved column and
 *     rebuilds T every round anyway (lines 11-12), so this costs the same
 *     and needs |G| <= m leaves instead of 2P.  And the fractional order
 *     is not G's order when a process is available exactly at head + d
 *     (the window is closed): it has the head's fractional time, so the
 *     doubled index puts it right after the head (rank greater than the
 *     head's), while in G it comes after every process available before
 *     head + d.  Example: a = {1, 1, 0.5, 1.5}, d = 1, N = 2, root 0:
 *     round 0's G is p2, p0, p1, p3 (p3 at exactly head + d), the doubled
 *     fractional indices give p2, p3, p0, p1, and the schedule differs
 *     from the reference in round 0 (tests/unit/test_clv_fast.c keeps this
 *     instance).  Any arrivals on the grid (integer times, d = 1) can hit
 *     it.  The merge of Listing 6 on the exact (K, f, rank) order cannot.
 *   - Listing 6 admits awaiting processes with a < head + d (strict,
 *     line 3); Listing 2 (line 5), Sect. 5.2 and the reference use
 *     a <= head + d, and so does this file.
 *   - The pseudo-root (Listing 8, lines 18-23) is the root moved to the
 *     front of the processing order AND of the leaves: Listing 2 "inserts
 *     r at first position in G", so r is also the first candidate sender
 *     of every search of the round; keeping r's leaf at its own place in
 *     G (as a pseudo-root outside the tree would) picks a different peer
 *     whenever r and an earlier process of G both hold the segment.
 *   - Listing 7's P' test for the head (lines 5-7) is dead: the head is
 *     the first to receive in its round, so it holds no P' yet.
 *   - Listing 8's loop condition (line 6) is read as "while more than one
 *     process still has a segment not in E" (Listing 2's size(Q) > 1).
 */
#include "schedule_build.h"
#include "segtree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The awaiting queue A: ranks by availability (K, f, rank). */
typedef struct akey {
    int64_t K;
    double f;
    int p;
} akey;

static int by_availability(const void *x, const void *y) {
    const akey *a = x, *b = y;
    if (papc_clv_before(a->K, a->f, a->p, b->K, b->f, b->p)) return -1;
    if (papc_clv_before(b->K, b->f, b->p, a->K, a->f, a->p)) return 1;
    return 0;
}

/* p before q in G's order */
#define BEFORE(p, q) papc_clv_before(K[p], f[p], p, K[q], f[q], q)

/* The generator's state between setup and the schedule's layout. */
typedef struct fast_state {
    int P, root;
    papc_clv_vec *M;
    int64_t *K;
    double *f;
    int *A, *g, *g2, *proc, *cnt, *lo;
    papc_clv_builder *B;
    papc_clv_segtree *T;
} fast_state;

/* Listing 8's rounds, with C (chunks per column) a parameter: called with
 * a constant C (run_rounds), the compiler unrolls every per-chunk loop of
 * segtree.h — at P = N = 512 (C = 4) the tree's loops are most of the
 * time, and a loop over 1-4 chunks costs as much in control as in work.
 * The tree is worked on as a local copy (T.C = C is then known), put
 * back at the end.  0, or -1 (no memory, or a round past INT32_MAX). */
static inline __attribute__((always_inline)) int rounds_c(fast_state *S,
                                                          const int C) {
    const int P = S->P, root = S->root;
    papc_clv_vec *const M = S->M;
    int64_t *const K = S->K;
    const double *const f = S->f;
    const int *const A = S->A;
    int *g = S->g, *g2 = S->g2;
    int *const proc = S->proc, *const cnt = S->cnt, *const lo = S->lo;
    papc_clv_builder *const Bp = S->B;
    papc_clv_segtree T = *S->T;
    T.C = C;
    int active = P, ai = 0, ng = 0;
    while (active > 1) {
        /* ---- merge-and-clean (Listing 6).  g holds the survivors of the
         * last round, one round later each, so still in order; the head
         * is the earlier of g's and A's; every survivor is within a round
         * of it, so G' = g merged with the prefix of A in the window. */
        int h = ng ? g[0] : A[ai];
        if (ng && ai < P && BEFORE(A[ai], h)) h = A[ai];
        const int64_t Kh = K[h];
        const double fh = f[h];
        int n2 = 0, i = 0;
        for (;;) {
            const int a_in = ai < P && papc_clv_in_window(K[A[ai]], f[A[ai]],
                                                          Kh, fh);
            if (i < ng && (!a_in || BEFORE(g[i], A[ai])))
                g2[n2++] = g[i++];
            else if (a_in)
                g2[n2++] = A[ai++];
            else
                break;
        }
        int *tmp = g;
        g = g2;
        g2 = tmp;
        ng = n2;

        if (ng == 1) {
            /* ---- idle rounds (5.1): nobody to talk to until the next
             * process of A (there is one: active > 1) enters the window */
            const int n = A[ai];
            K[h] += papc_clv_idle_skip(K[h], f[h], K[n], f[n]);
            continue;
        }
        const int64_t r64 = papc_clv_round_of(Kh, fh);
        if (r64 < 0 || r64 > INT32_MAX - 1) return -1;
        const int32_t round = (int32_t)r64;

        /* ---- the processing order: the (pseudo-)root first (Listing 8,
         * lines 18-24; Listing 2, lines 9-11) */
        int kr = -1;
        for (int k = 1; k < ng; k++)
            if (g[k] == root) {
                kr = k;
                break;
            }
        if (kr > 0) {
            proc[0] = root;
            memcpy(proc + 1, g, (size_t)kr * sizeof *proc);
            memcpy(proc + kr + 1, g + kr + 1,
                   (size_t)(ng - kr - 1) * sizeof *proc);
        } else {
            memcpy(proc, g, (size_t)ng * sizeof *proc);
        }

        /* ---- restore the saved columns and rebuild T (Listing 8, lines
         * 11-12): leaf k = M(proc[k], *) */
        papc_clv_segtree_reset(&T, ng);
        for (int k = 0; k < ng; k++)
            papc_clv_segtree_set_leaf(&T, k, M + (size_t)proc[k] * C);
        papc_clv_segtree_build_live(&T);

        /* ---- every process of G receives at most once (Listing 8, lines
         * 21-37; find-peer-and-segment, Listing 7) */
        for (int k = 0; k < ng; k++) {
            const int p = proc[k];
            papc_clv_vec *cp = M + (size_t)p * C;
            if (k + 1 < ng) /* the next receiver's first wanted chunk */
                __builtin_prefetch(M + (size_t)proc[k + 1] * C +
                                   lo[proc[k + 1]]);
            int s;
            if (k == 0) {
                /* the sink takes a segment in any state but P'; it is the
                 * first to receive, so it has no P' yet: any segment */
                s = papc_clv_segtree_first_except(&T, 0, NULL, 0);
            } else {
                while (lo[p] < C && !papc_clv_vec_any(cp[lo[p]])) lo[p]++;
                s = papc_clv_segtree_first_except(&T, k, cp, lo[p]);
            }
            if (s < 0) continue; /* sits this round out */
            /* the receiver: P' in T, i.e. not sendable until the round
             * ends.  Cleared before the search, it also keeps p from
             * being its own peer: find-leftmost from the root then is
             * Listing 7's find-peer (lines 13-16) without the second
             * search from p's leaf (find-leftmost-from), which a third of
             * the receivers needed at P = N = 2048 */
            papc_clv_segtree_clear_bit(&T, k, s);
            const int z = papc_clv_segtree_find_leftmost(&T, 1, s);
            const int q = proc[z];
            uint64_t *const mq = (uint64_t *)(M + (size_t)q * C);
            uint64_t *const mp = (uint64_t *)cp;
            const uint64_t sb = UINT64_C(1) << (s & 63);
            if (papc_clv_builder_push(Bp, round, q, p, s) != 0) return -1;
            /* the sender: M(q, s) = E; it sends no more this round, so
             * its leaf is zeroed (Listing 8, lines 29-34: M(q, *) is the
             * saved copy) */
            mq[s >> 6] &= ~sb;
            cnt[q]--;
            papc_clv_segtree_clear_leaf(&T, z);
            /* the receiver: P (the sink may have had it in E) */
            if (!(mp[s >> 6] & sb)) {
                mp[s >> 6] |= sb;
                cnt[p]++;
                if ((s >> 7) < lo[p]) lo[p] = s >> 7;
            }
        }

        /* ---- end of the round: P' reverts by itself (M never held it);
         * the finished leave, the others are available a round later */
        int n3 = 0;
        for (int k = 0; k < ng; k++) {
            const int p = g[k];
            if (cnt[p] > 0) {
                K[p] += 1;
                g[n3++] = p;
            } else {
                active--;
            }
        }
        ng = n3;
    }

    *S->T = T;
    return 0;
}

/* One copy of rounds_c per common C (N up to 128, 256, 384, 512, 1024,
 * 2048), and one for any other C. */
static int run_rounds(fast_state *S, int C) {
    switch (C) {
    case 1: return rounds_c(S, 1);
    case 2: return rounds_c(S, 2);
    case 3: return rounds_c(S, 3);
    case 4: return rounds_c(S, 4);
    case 8: return rounds_c(S, 8);
    case 16: return rounds_c(S, 16);
    default: return rounds_c(S, C);
    }
}

double papc_clv_fast_bits_per_cell(int P, int N) {
    if (P < 1 || N < 1) return 0.0;
    const double cells = (double)P * (double)N;
    /* M: one bit per cell, columns padded to 128-bit chunks */
    const double matrix = (double)P * papc_clv_chunks(N) * 128.0;
    /* T: 2 cap columns, cap = the power of two >= P */
    const double tree = (double)papc_clv_segtree_bytes(P, N) * 8.0;
    /* per process: (K, f), awaiting queue, two G lists, the processing
     * order, cell count, first-chunk hint */
    const double perproc =
        (double)P * (sizeof(int64_t) + sizeof(double) + 6 * sizeof(int)) * 8.0;
    return (matrix + tree + perproc) / cells;
}

int papc_clv_fast(const double *arrival, int P, int N, int root, double d,
                  papc_clv_schedule *out) {
    return papc_clv_fast_only(arrival, P, N, root, d, -1, out, NULL);
}

int papc_clv_fast_only(const double *arrival, int P, int N, int root,
                       double d, int only, papc_clv_schedule *out,
                       size_t *total_events) {
    if (!out) return -1;
    memset(out, 0, sizeof *out);
    if (papc_clv_inputs_ok(arrival, P, N, root, d) != 0) return -1;
    if (only < -1 || only >= P) return -1;

    const int C = papc_clv_chunks(N); /* 128-bit chunks per column */
    int rc = -1;
    papc_clv_builder B;
    papc_clv_builder_init(&B);
    papc_clv_segtree T;
    memset(&T, 0, sizeof T);
    const size_t np = (size_t)P;
    /* M(p, *): C chunks, bit 1 = A/P */
    papc_clv_vec *M = aligned_alloc(sizeof *M, np * (size_t)C * sizeof *M);
    int64_t *K = malloc(np * sizeof *K);  /* availability (K, f): */
    double *f = malloc(np * sizeof *f);   /* schedule_build.h */
    int *A = malloc(np * sizeof *A);      /* awaiting queue */
    int *g = malloc(np * sizeof *g);      /* G in (K, f, rank) order */
    int *g2 = malloc(np * sizeof *g2);    /* the next G, being merged */
    int *proc = malloc(np * sizeof *proc); /* leaf k's process */
    int *cnt = malloc(np * sizeof *cnt);  /* p's cells not in E */
    int *lo = malloc(np * sizeof *lo);    /* M[p] is 0 below chunk lo[p] */
    akey *keys = malloc(np * sizeof *keys);
    if (!M || !K || !f || !A || !g || !g2 || !proc || !cnt || !lo ||
        !keys || papc_clv_segtree_init(&T, P, N) != 0 ||
        papc_clv_grid(arrival, P, d, K, f) != 0)
        goto done;

    /* Every schedule has at least (P - 1) N transfers (each non-root cell
     * is sent at least once), rarely many more (1 % more at P = N = 512
     * uniform): room for an eighth more, so the builder practically never
     * grows by copying; the pages beyond the last transfer are never
     * touched. */
    {
        const size_t least = (np - 1) * (size_t)N;
        /* one process: about 2 N transfers (N sends, as many receives);
         * more only grow the room */
        const size_t room = only >= 0 ? 4 * (size_t)N + 64
                                      : least + least / 8 + (size_t)N + 64;
        if (papc_clv_builder_reserve(&B, P, room) != 0) goto done;
        B.only = only;
    }

    /* Listing 8, lines 1-5: every cell in P (1), A sorted once */
    for (int p = 0; p < P; p++) {
        uint64_t *c = (uint64_t *)(M + (size_t)p * C);
        for (int w = 0; w < 2 * C; w++)
            c[w] = w < N / 64 ? ~UINT64_C(0)
                 : w == N / 64 ? (UINT64_C(1) << (N % 64)) - 1 : 0;
        cnt[p] = N;
        lo[p] = 0;
        keys[p] = (akey){K[p], f[p], p};
    }
    qsort(keys, np, sizeof *keys, by_availability);
    for (int p = 0; p < P; p++) A[p] = keys[p].p;
    free(keys);
    keys = NULL;

    {
        fast_state S = {P, root, M, K, f, A, g, g2, proc, cnt, lo, &B, &T};
        if (run_rounds(&S, C) != 0) goto done;
    }

    rc = papc_clv_builder_finish(&B, P, N, root, out);
    if (total_events) *total_events = 2 * (B.n + B.skipped);
done:
    if (rc != 0) papc_clv_free(out);
    papc_clv_builder_free(&B);
    papc_clv_segtree_free(&T);
    free(M);
    free(K);
    free(f);
    free(A);
    free(g);
    free(g2);
    free(proc);
    free(cnt);
    free(lo);
    free(keys);
    return rc;
}
