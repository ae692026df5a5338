/*
 * bench_ideal.h — the ideal bound of papc-bench (issue 4, item 3): from the
 * actual arrival times of one iteration and the Hockney model (a message of
 * b bytes takes alpha + b * beta), the shortest run time r = max f - min a
 * that ANY algorithm could reach for that arrival pattern.  Pure functions,
 * header-only (CMake makes one executable per tools/ C file); no MPI.
 *
 * Common assumptions: a process exits no earlier than it arrives
 * (f_i >= a_i); data a process contributes exist only from its arrival
 * (the send buffer is valid only in the call); a link moves one message at
 * a time; local copies cost nothing; a background receiver (the monitor
 * thread of the B* algorithms) may receive before its process arrives, so a
 * receiver's arrival never delays a transfer.  c = alpha + m * beta, m the
 * bytes of one block (gather/scatter) or of the whole vector (allreduce).
 *
 *  gather:    the root's link receives the P-1 blocks one after the other,
 *             each no earlier than its sender's arrival.  Serving them in
 *             arrival order minimises the last completion (one machine,
 *             release times, equal processing times): d = max(d, a_i) + c
 *             over the senders sorted by arrival; the root exits at
 *             max(a_root, d).  ideal = max(a_root, d) - min a.
 *             A tree could merge blocks and save up to (P-2) alpha of the
 *             root's start-ups (microseconds); ignored.
 *  scatter:   the data exist from the root's arrival; its link sends the
 *             P-1 blocks back to back, d_last = a_root + (P-1) c, and in
 *             arrival order every receiver exits at max(a_i, d_i), so
 *             ideal = max(a_root + (P-1) c, max a) - min a.
 *  bcast:     the message exists from the root's arrival and every other
 *             process must receive it (m bytes, c) after that: ideal =
 *             max(a_root + c, max a) - min a.  A tree's later rounds (a
 *             process forwards one message at a time) are ignored, so it
 *             is loose by up to (ceil(log2 P) - 1) c with balanced
 *             arrivals (less with segments).
 *  reduce:    let L be the last non-root arriver.  Every element of the
 *             root's result depends on L's element, which exists only
 *             from a_L, so m bytes produced after a_L must cross the
 *             root's one incoming link (however segmented): the root
 *             exits no earlier than max(a_root, a_L + c).  Arithmetic
 *             ignored, as for allreduce.
 *             ideal = max(a_root, max_{i != root} a_i + c) - min a.
 *  allreduce: let L arrive last.  Every other rank's result depends on
 *             every element of L's vector, which exists only from a_L, so
 *             each of them must receive m bytes produced after a_L through
 *             its one incoming link: ideal = max a + c - min a (P >= 2).
 *             This ignores the reduction arithmetic and the bandwidth
 *             bound of a balanced allreduce (2 (P-1)/P m beta for
 *             bandwidth-optimal algorithms), so it is loose at small
 *             delays and the relevant limit at large ones.
 * P = 1: 0 for all five.
 */
#ifndef PAPC_BENCH_IDEAL_H
#define PAPC_BENCH_IDEAL_H

#include <stdlib.h>

static int bench_ideal_cmp(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double bench_ideal_min(const double *a, int n) {
    double m = a[0];
    for (int i = 1; i < n; i++) if (a[i] < m) m = a[i];
    return m;
}

static double bench_ideal_max(const double *a, int n) {
    double m = a[0];
    for (int i = 1; i < n; i++) if (a[i] > m) m = a[i];
    return m;
}

/* a: arrival times of ranks 0..P-1 (seconds, any common origin);
 * c: alpha + block_bytes * beta.  tmp: P doubles of scratch. */
static inline double bench_ideal_gather(int P, int root, const double *a,
                                        double c, double *tmp) {
    if (P <= 1) return 0;
    int n = 0;
    for (int i = 0; i < P; i++) if (i != root) tmp[n++] = a[i];
    qsort(tmp, (size_t)n, sizeof *tmp, bench_ideal_cmp);
    double d = tmp[0];
    for (int i = 0; i < n; i++) d = (d > tmp[i] ? d : tmp[i]) + c;
    double end = d > a[root] ? d : a[root];
    return end - bench_ideal_min(a, P);
}

static inline double bench_ideal_scatter(int P, int root, const double *a,
                                         double c) {
    if (P <= 1) return 0;
    double end = a[root] + (P - 1) * c, last = bench_ideal_max(a, P);
    if (last > end) end = last;
    return end - bench_ideal_min(a, P);
}

/* c: alpha + message_bytes * beta. */
static inline double bench_ideal_bcast(int P, int root, const double *a,
                                       double c) {
    if (P <= 1) return 0;
    double end = a[root] + c, last = bench_ideal_max(a, P);
    if (last > end) end = last;
    return end - bench_ideal_min(a, P);
}

/* c: alpha + vector_bytes * beta. */
static inline double bench_ideal_reduce(int P, int root, const double *a,
                                        double c) {
    if (P <= 1) return 0;
    double last = -1e300;
    for (int i = 0; i < P; i++)
        if (i != root && a[i] > last) last = a[i];
    double end = last + c > a[root] ? last + c : a[root];
    return end - bench_ideal_min(a, P);
}

/* c: alpha + vector_bytes * beta. */
static inline double bench_ideal_allreduce(int P, const double *a, double c) {
    if (P <= 1) return 0;
    return bench_ideal_max(a, P) + c - bench_ideal_min(a, P);
}

#endif /* PAPC_BENCH_IDEAL_H */
