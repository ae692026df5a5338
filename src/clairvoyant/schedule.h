/*
 * schedule.h — the Clairvoyant reduction schedule (clairvoyant-reduce.md):
 * pure C, no MPI.  Every process computes the identical schedule from the
 * identical inputs (arrival times, P, N, root, round length d); the
 * executor (later) runs its own queues round by round.
 *
 * A schedule is, per process, the list of its communication events in
 * round order: in round `round`, process p either SENDS its (partial)
 * segment `segment` to `peer`, which combines it (the paper's output queue
 * O(p) gets (peer, segment)), or RECEIVES segment `segment` from `peer` and
 * combines it into its own (input queue I(p) gets (peer, segment)).  At the
 * end the root holds every segment fully reduced.
 */
#ifndef PAPC_CLV_SCHEDULE_H
#define PAPC_CLV_SCHEDULE_H
#include <stddef.h>
#include <stdint.h>

enum { PAPC_CLV_SEND = 0, PAPC_CLV_RECV = 1 };

typedef struct papc_clv_event {
    int32_t round;    /* 0-based round index (time = first arrival + round*d) */
    int32_t peer;     /* the other process */
    int32_t segment;  /* 0..N-1 */
    int32_t kind;     /* PAPC_CLV_SEND or PAPC_CLV_RECV */
} papc_clv_event;

typedef struct papc_clv_schedule {
    int P, N, root;
    int rounds;              /* number of rounds used */
    size_t *first;           /* P + 1 offsets: process p's events are
                                events[first[p] .. first[p+1]) in round order */
    papc_clv_event *events;
    size_t nevents;
} papc_clv_schedule;

/* Inputs: arrival[P] (any unit; d in the same unit, d > 0), P >= 1,
 * N >= 1, 0 <= root < P.  Return 0 on success, -1 on bad input or no
 * memory (*out is then empty and safe to free). */

/* The reference: Listing 2 of the paper (the original with the fixes of
 * Sect. 4), written for clarity. */
int papc_clv_reference(const double *arrival, int P, int N, int root,
                       double d, papc_clv_schedule *out);
/* The fast generator: Listing 8 (idle-round skipping, merge-and-clean,
 * one bit per (process, segment), segment tree over the columns with
 * word-parallel OR/AND and find-first-set, fractional-time order with
 * doubled indices, the pseudo-root).  Same schedule as the reference. */
int papc_clv_fast(const double *arrival, int P, int N, int root, double d,
                  papc_clv_schedule *out);

void papc_clv_free(papc_clv_schedule *s);
/* 1 when both schedules have the same events per process in the same
 * order. */
int papc_clv_equal(const papc_clv_schedule *a, const papc_clv_schedule *b);
/* Checks the schedule's properties: every non-root process' contribution
 * to every segment reaches the root exactly once, the root ends with every
 * segment fully reduced, at most one send and one receive per process per
 * round, sends and receives pair up (same round, peer, segment), no
 * process communicates in a round before whose END it arrives (round r is
 * the slot [min(arrival) + r*d, min(arrival) + (r+1)*d): Clairvoyant lets
 * a process join a round that began up to d before its arrival, so the
 * rule is a_p <= min(arrival) + (r+1)*d).  Returns 0, or -1 with a reason
 * in why. */
int papc_clv_check(const papc_clv_schedule *s, const double *arrival,
                   double d, char *why, size_t len);
/* Bits of generator state per (process, segment) cell, for the benchmark
 * (fast: about 1 bit + the tree; reference: the state array). */
double papc_clv_fast_bits_per_cell(int P, int N);

#endif /* PAPC_CLV_SCHEDULE_H */
