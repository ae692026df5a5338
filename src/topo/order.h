/*
 * order.h — arrival orders as pure functions (no MPI): the order of a
 * call's ranks from a vector of predicted arrival times, the testing
 * perturbations of PAPC_ARRIVAL_FAULT, and the exponentially weighted mean
 * of the history predictor.  Unit-tested in tests/unit/test_order.c.
 */
#ifndef PAPC_ORDER_H
#define PAPC_ORDER_H

#include <stdint.h>

/* order[0..n) := the ranks sorted by t[] ascending: earliest first,
 * unknown (t[r] is INFINITY or NaN) last, ties by rank.  Returns the
 * number of known ranks. */
int papc_order_from_times(int n, const double *t, int *order);

/* offset[r] := t[r] - min over known t (>= 0), INFINITY when unknown
 * (t[r] not finite).  Returns the number of known ranks. */
int papc_order_offsets(int n, const double *t, double *offset);

/* Perturbations of an order (testing: a prediction that is wrong). */
void papc_order_reverse(int n, int *order);
/* A permutation of order drawn from seed (the same seed, the same
 * permutation on every machine: a small xorshift, not rand()). */
void papc_order_shuffle(int n, int *order, uint64_t seed);

/* After order was perturbed, makes offset agree with it again: the sorted
 * offset values are handed out along the new order, so offsets are
 * non-decreasing along order and the same multiset as before. */
void papc_order_reassign_offsets(int n, const int *order, double *offset);

/* 1 when order is a permutation of 0..n-1. */
int papc_order_is_permutation(int n, const int *order);

/* One step of an exponentially weighted mean: the first sample (count 0)
 * is taken as is, later ones weigh w (0 < w <= 1). */
double papc_ewma(double mean, long count, double sample, double w);

/* The history predictor's mean: an exponentially weighted mean that is
 * robust to a single outlier and follows a change of regime at once.
 * A sample further from the mean than 3 mean absolute deviations (plus a
 * floor of 10 % of the mean and 50 us) is clipped to that limit; a second
 * such sample in a row on the same side restarts the mean there. */
typedef struct papc_mean {
    double mean;   /* NaN before the first sample */
    double dev;    /* EWMA of |sample - mean| */
    long n;
    int strikes;   /* consecutive outliers, signed by side */
} papc_mean;
void papc_mean_init(papc_mean *m);
void papc_mean_add(papc_mean *m, double sample, double w);

#endif /* PAPC_ORDER_H */
