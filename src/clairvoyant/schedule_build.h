/*
 * schedule_build.h — helpers shared by the Clairvoyant schedule generators
 * (reference.c, fast.c) and the checker (schedule.c).  Internal; no MPI.
 *
 * 1. Time on the round grid (exact, no accumulated rounding).
 *
 *    The paper advances availability times by repeated a_i = a_i + d; in
 *    floating point that drifts and two generators that add in a different
 *    order disagree on ties.  Both generators therefore use one exact
 *    representation instead: with a_min = min(arrival),
 *
 *        x_p = (a_p - a_min) / d,   k_p = floor(x_p),   f_p = x_p - k_p
 *
 *    (f_p in [0, 1) is exact: x - floor(x) never rounds), computed ONCE by
 *    papc_clv_grid.  A process' availability after c rounds in G is the
 *    pair (K = k_p + c, f_p), i.e. time a_min + (K + f_p) d; availabilities
 *    compare lexicographically by (K, f, rank) — the deterministic order of
 *    Sect. 4.4 — and "a_i <= a_head + d" (Listing 2 line 5) is
 *    papc_clv_in_window.
 *
 * 2. Round numbers.  A round of the algorithm is the iteration whose head
 *    (earliest available process) is at (K_h, f_h); its number is
 *
 *        round = K_h + (f_h > 0)  = ceil((a_head - a_min) / d),
 *
 *    the first grid slot a_min + round*d at or after the head's time.
 *    Successive iterations have heads at least d apart, so numbers grow
 *    strictly; idle rounds (|G| = 1) emit nothing and may be skipped.
 *    Every member of G arrives no later than a_head + d <= a_min +
 *    (round + 1) d: it has arrived by the END of its round's slot (the
 *    Clairvoyant window rule; papc_clv_check tests exactly this).
 *
 * 3. The builder: generators add transfers (round, from, to, segment) in
 *    any order; finish() lays them out per process (SEND at `from`, RECV
 *    at `to`), each process' events sorted by (round, kind) — SEND before
 *    RECV within a round — and sets rounds = last round + 1 (0 when there
 *    are no events).  Both generators use it, so equal schedules compare
 *    equal with papc_clv_equal whatever order they discover transfers in.
 */
#ifndef PAPC_CLV_SCHEDULE_BUILD_H
#define PAPC_CLV_SCHEDULE_BUILD_H
#include <stddef.h>
#include <stdint.h>
#include "schedule.h"

/* Arrival spreads beyond this many rounds are refused (round is int32). */
#define PAPC_CLV_MAX_SPREAD 1.0e9

/* k[p], f[p] as above.  0, or -1 when P < 1, d is not finite and > 0, an
 * arrival is not finite, or the spread exceeds PAPC_CLV_MAX_SPREAD
 * rounds. */
int papc_clv_grid(const double *arrival, int P, double d, int64_t *k,
                  double *f);

/* Checks the generators' common inputs (P >= 1, N >= 1, root in range,
 * d finite > 0, arrivals finite).  0 or -1. */
int papc_clv_inputs_ok(const double *arrival, int P, int N, int root,
                       double d);

/* (K_i, f_i) <= (K_h, f_h) + one round, i.e. a_i <= a_h + d. */
static inline int papc_clv_in_window(int64_t Ki, double fi, int64_t Kh,
                                     double fh) {
    return Ki <= Kh || (Ki == Kh + 1 && fi <= fh);
}

/* Availability order: (K, f, rank) lexicographic; 1 when a before b. */
static inline int papc_clv_before(int64_t Ka, double fa, int ra, int64_t Kb,
                                  double fb, int rb) {
    if (Ka != Kb) return Ka < Kb;
    if (fa != fb) return fa < fb;
    return ra < rb;
}

/* The round number of an iteration whose head is at (K_h, f_h). */
static inline int64_t papc_clv_round_of(int64_t Kh, double fh) {
    return Kh + (fh > 0.0 ? 1 : 0);
}

/* Idle-round skip: the head h is alone in G and n is the next process in
 * the queue (not in h's window).  Returns m >= 1, the fewest rounds h
 * must advance so that n enters its window — Listing 2 would spend m
 * idle iterations there (Sect. 5.1). */
static inline int64_t papc_clv_idle_skip(int64_t Kh, double fh, int64_t Kn,
                                         double fn) {
    return fn <= fh ? Kn - Kh - 1 : Kn - Kh;
}

typedef struct papc_clv_xfer {
    int32_t round, from, to, segment;
} papc_clv_xfer;

typedef struct papc_clv_builder {
    papc_clv_xfer *x;
    size_t n, cap;
    size_t *count; /* NULL, or P + 1 counters kept by add/push:
                      count[p + 1] = p's events so far (reserve) */
    int P;         /* processes count covers */
    int32_t last;  /* the latest round added, -1 before any */
    int only;      /* -1: keep every transfer; else only those to or from
                      process `only` (the others are counted in skipped) */
    size_t skipped;
} papc_clv_builder;

void papc_clv_builder_init(papc_clv_builder *b);
/* Room for cap transfers among P processes, and per-process event
 * counts kept as transfers are added, so finish() need not count them in
 * a pass of its own.  0 or -1 (no memory; the builder is unchanged). */
int papc_clv_builder_reserve(papc_clv_builder *b, int P, size_t cap);
/* Doubles the room (at least 256 transfers).  0 or -1 (no memory). */
int papc_clv_builder_grow(papc_clv_builder *b);
/* Appends one transfer (from SENDS segment to `to` in round): the
 * inline fast path for a generator that checked 0 <= round < INT32_MAX
 * and 0 <= from, to < P (the P of reserve) itself.  0 or -1 (no memory). */
static inline int papc_clv_builder_push(papc_clv_builder *b, int32_t round,
                                        int from, int to, int segment) {
    if (round > b->last) b->last = round;
    if (b->only >= 0 && from != b->only && to != b->only) {
        b->skipped++;
        return 0;
    }
    if (b->n == b->cap && papc_clv_builder_grow(b) != 0) return -1;
    b->x[b->n++] = (papc_clv_xfer){round, from, to, segment};
    if (b->count) {
        b->count[from + 1]++;
        b->count[to + 1]++;
    }
    return 0;
}
/* The same with the round checked (and from, to within the P of reserve
 * if it was called).  0 or -1 (round out of range, no memory). */
int papc_clv_builder_add(papc_clv_builder *b, int64_t round, int from,
                         int to, int segment);
/* Lays the transfers out into *out (see 3. above).  0 or -1 (no memory;
 * *out is then empty).  The builder is left as it was; free it after. */
int papc_clv_builder_finish(const papc_clv_builder *b, int P, int N,
                            int root, papc_clv_schedule *out);
void papc_clv_builder_free(papc_clv_builder *b);

/* papc_clv_fast keeping only the transfers to or from process `only`
 * (0 <= only < P; -1: all, as papc_clv_fast): *out then holds only's
 * events as papc_clv_fast would (and, at its peers, their halves of the
 * same transfers), out->rounds that of the whole schedule, and
 * *total_events (when not NULL) the whole schedule's event count.  A
 * process needs nothing else to run its part, and skips laying out the
 * P N events of everyone (134 MB at P = N = 2048). */
int papc_clv_fast_only(const double *arrival, int P, int N, int root,
                       double d, int only, papc_clv_schedule *out,
                       size_t *total_events);

/* The reference generator's state per (process, segment) cell in bits
 * (papc-clv-bench prints it; declared weak there). */
double papc_clv_reference_bits_per_cell(int P, int N);

#endif /* PAPC_CLV_SCHEDULE_BUILD_H */
