/*
 * reference.c — the reference Clairvoyant schedule generator: Listing 2 of
 * clairvoyant-reduce.md (Marendic et al.'s Listing 1 with the fixes of
 * Sect. 4), written for clarity.  It is the specification papc_clv_fast
 * (Listing 8) is tested against; papc_clv_check (schedule.c) tests both.
 *
 * Algorithm (one iteration of the while loop = one round):
 *   Q  holds every process that still has a segment not in state E,
 *      ordered by availability (time, then rank: Sect. 4.4).
 *   G  = the head of Q and every process available within d of it, in
 *      that order; the root, if in G, is moved to the front.  The sink is
 *      G[0] (the root when present, else the earliest process).
 *   For each i in G, in order: i looks for the first segment j (from 0)
 *      it can receive — in state A or P, or for the sink any state but P'
 *      — for which some z != i in G, scanned in G's order, has not sent
 *      this round (S(z) = false) and holds j in state A or P.  If found:
 *      z SENDS j to i in this round, S(z) = true, M(z,j) = E,
 *      M(i,j) = P' (received this round: not sendable until it ends).
 *   End of round: P' -> P; every i in G with a segment not in E is
 *      available again d later and goes back to Q; the others are done.
 *   The loop runs while Q holds more than one process.
 *
 * The paper's fixes, as applied here (Sect. 4.2-4.4, Listing 2):
 *   - the inner search terminates when no segment is left (line 19) and
 *     the peer search / the updates run only when something was found
 *     (lines 25-37): a process may sit a round out;
 *   - events carry their round number (Sect. 4.3);
 *   - ties in Q are broken by rank (Sect. 4.4);
 *   - the M indices of line 36 (original line 33) are the receiver's.
 *
 * Where Listing 2 is still wrong or silent, and what this file does:
 *   1. P' is missing from Listing 2 (line 36 sets M(i,j) = P although
 *      Sect. 4.2 introduces P' precisely for that assignment).  Without
 *      it a process forwards in the same round a segment it is receiving
 *      (the paper's own 4-process example).  Here line 36 sets P', a P'
 *      cell is neither sendable (line 26 asks A or P) nor receivable again,
 *      is "not E" for line 40, and turns back into P at the end of the
 *      round.  The sink is always handled first in its round, so the
 *      sink's "any state but P'" (Sect. 4.2, 5.4.2) equals "any state".
 *   2. `round` is never defined.  Times here are exact (schedule_build.h):
 *      availability = (K, f) on the grid a_min + (K + f) d, no repeated
 *      floating additions; the round number of an iteration is
 *      ceil((a_head - a_min)/d) = K_h + (f_h > 0), strictly increasing,
 *      so every participant has arrived by the end of its round's slot
 *      a_min + (round+1) d.  Counting loop iterations instead would let
 *      the numbers fall behind the clock once the head leaves Q.
 *   3. Idle rounds (|G| = 1, Sect. 5.1) are skipped by jumping the head
 *      forward to the round where the next process enters its window.
 *      Listing 2 would spin there without changing any state, so the
 *      schedule is the same; only the run time differs.
 *   4. "r* = Q_0" (line 17) is G's first element (Q_0 was popped into G).
 *   5. Line 32 "if j < N" is "if a peer z was found" (the same thing).
 *   6. The root may send one of its segments (when it is the first free
 *      holder another process finds) and receives it back later as the
 *      sink, as the original paper describes; the same holds for a
 *      non-root sink (the head) before the root arrives.  A receiver in
 *      state E holds nothing: the executor must then REPLACE its buffer
 *      with the incoming segment, not combine into it.
 *   7. Termination (not proved in the paper): while |G| >= 2 the sink,
 *      first in the round with every S false, always receives something,
 *      so it keeps a non-E segment and stays in Q; the sink changes at
 *      most once (to the root, which never leaves); the number of non-E
 *      cells outside the sink falls every non-idle round.  Hence the loop
 *      ends, with only the root left in Q holding every segment.
 *
 * Cost: O(R * |G|^2 * N) worst case (the linear searches), R the number
 * of non-idle rounds; memory one byte per (process, segment) cell.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "schedule_build.h"

enum { ST_A = 0, ST_P = 1, ST_P1 = 2 /* P' */, ST_E = 3 };

typedef struct ref_state {
    int P, N, root;
    uint8_t *M;     /* M[p*N + j] */
    int64_t *K;     /* availability (K[p], f[p]), see schedule_build.h */
    double *f;
    int *heap;      /* Q: binary min-heap of ranks */
    int qn;
    int *G;
    uint8_t *S;     /* S(z): z has sent this round */
    int *p1;        /* segment i holds in P' this round, or -1 */
    int *left;      /* cells of p not in state E */
} ref_state;

static int q_before(const ref_state *R, int a, int b) {
    return papc_clv_before(R->K[a], R->f[a], a, R->K[b], R->f[b], b);
}

static void q_push(ref_state *R, int p) {
    int i = R->qn++;
    while (i > 0) {
        int up = (i - 1) / 2;
        if (!q_before(R, p, R->heap[up])) break;
        R->heap[i] = R->heap[up];
        i = up;
    }
    R->heap[i] = p;
}

static int q_pop(ref_state *R) {
    int top = R->heap[0];
    int last = R->heap[--R->qn];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= R->qn) break;
        if (c + 1 < R->qn && q_before(R, R->heap[c + 1], R->heap[c])) c++;
        if (!q_before(R, R->heap[c], last)) break;
        R->heap[i] = R->heap[c];
        i = c;
    }
    if (R->qn > 0) R->heap[i] = last;
    return top;
}

static uint8_t *cell(const ref_state *R, int p, int j) {
    return &R->M[(size_t)p * (size_t)R->N + (size_t)j];
}

/* Line 21 / 23: may i receive segment j?  A or P; the sink also E. */
static int can_receive(const ref_state *R, int i, int j, int sink) {
    uint8_t m = *cell(R, i, j);
    return m == ST_A || m == ST_P || (i == sink && m == ST_E);
}

/* Line 26: may z send segment j now? */
static int can_send(const ref_state *R, int z, int j) {
    uint8_t m = *cell(R, z, j);
    return !R->S[z] && (m == ST_A || m == ST_P);
}

static void ref_free(ref_state *R) {
    free(R->M);
    free(R->K);
    free(R->f);
    free(R->heap);
    free(R->G);
    free(R->S);
    free(R->p1);
    free(R->left);
}

int papc_clv_reference(const double *arrival, int P, int N, int root,
                       double d, papc_clv_schedule *out) {
    if (!out) return -1;
    memset(out, 0, sizeof *out);
    if (papc_clv_inputs_ok(arrival, P, N, root, d) != 0) return -1;

    ref_state R = {.P = P, .N = N, .root = root};
    size_t np = (size_t)P;
    R.M = calloc(np * (size_t)N, 1); /* all ST_A: line 1 */
    R.K = malloc(np * sizeof *R.K);
    R.f = malloc(np * sizeof *R.f);
    R.heap = malloc(np * sizeof *R.heap);
    R.G = malloc(np * sizeof *R.G);
    R.S = calloc(np, 1);
    R.p1 = malloc(np * sizeof *R.p1);
    R.left = malloc(np * sizeof *R.left);
    papc_clv_builder B;
    papc_clv_builder_init(&B);
    int rc = -1;
    if (!R.M || !R.K || !R.f || !R.heap || !R.G || !R.S || !R.p1 ||
        !R.left)
        goto out;
    if (papc_clv_grid(arrival, P, d, R.K, R.f) != 0) goto out;
    for (int p = 0; p < P; p++) {
        R.p1[p] = -1;
        R.left[p] = N;
        q_push(&R, p); /* line 3 */
    }

    while (R.qn > 1) { /* line 4 */
        /* line 5: G = head and everything within d of it, in Q order */
        int h = q_pop(&R);
        int g = 0;
        R.G[g++] = h;
        while (R.qn > 0 && papc_clv_in_window(R.K[R.heap[0]],
                                              R.f[R.heap[0]], R.K[h],
                                              R.f[h]))
            R.G[g++] = q_pop(&R);
        if (g == 1) { /* idle rounds: jump (fix 3) */
            int n = R.heap[0];
            R.K[h] += papc_clv_idle_skip(R.K[h], R.f[h], R.K[n], R.f[n]);
            q_push(&R, h);
            continue;
        }
        int64_t round = papc_clv_round_of(R.K[h], R.f[h]);
        if (round > INT32_MAX - 1) goto out;

        for (int gi = 0; gi < g; gi++) R.S[R.G[gi]] = 0; /* lines 6-8 */
        for (int gi = 1; gi < g; gi++) /* lines 9-11: root to the front */
            if (R.G[gi] == root) {
                memmove(&R.G[1], &R.G[0], (size_t)gi * sizeof *R.G);
                R.G[0] = root;
                break;
            }
        int sink = R.G[0]; /* lines 14-18 (fix 4) */

        for (int gi = 0; gi < g; gi++) { /* line 12 */
            int i = R.G[gi];
            int z = -1, j = 0; /* line 13 */
            while (z < 0 && j < N) { /* line 19 */
                while (j < N && !can_receive(&R, i, j, sink)) j++;
                if (j < N) /* line 25 */
                    for (int zi = 0; zi < g; zi++) { /* line 26 */
                        int c = R.G[zi];
                        if (c != i && can_send(&R, c, j)) {
                            z = c;
                            break;
                        }
                    }
                if (z < 0) j++; /* lines 28-30 */
            }
            if (z < 0) continue; /* line 32 (fix 5) */
            if (papc_clv_builder_add(&B, round, z, i, j) != 0) goto out;
            R.S[z] = 1; /* line 34 */
            *cell(&R, z, j) = ST_E; /* line 35 */
            R.left[z]--;
            if (*cell(&R, i, j) == ST_E) R.left[i]++;
            *cell(&R, i, j) = ST_P1; /* line 36, with P' (fix 1) */
            R.p1[i] = j;
        }

        for (int gi = 0; gi < g; gi++) { /* lines 39-44 */
            int i = R.G[gi];
            if (R.p1[i] >= 0) { /* P' -> P */
                *cell(&R, i, R.p1[i]) = ST_P;
                R.p1[i] = -1;
            }
            if (R.left[i] > 0) {
                R.K[i] += 1; /* a_i = a_i + d */
                q_push(&R, i);
            }
        }
    }
    rc = papc_clv_builder_finish(&B, P, N, root, out);
out:
    papc_clv_builder_free(&B);
    ref_free(&R);
    if (rc != 0) papc_clv_free(out);
    return rc;
}

double papc_clv_reference_bits_per_cell(int P, int N) {
    if (P < 1 || N < 1) return 0.0;
    /* M: one byte per cell; per process K, f, heap, G, S, p1, left. */
    double per_proc = 8 + 8 + sizeof(int) * 4 + 1;
    return 8.0 + 8.0 * per_proc / (double)N;
}
