/* guess.c — how much a prediction of an arrival is worth (see guess.h).
 * Pure: no MPI, no global state. */
#include <math.h>
#include "guess.h"

double papc_guess_relerr(double actual, double guess, double horizon) {
    if (!(horizon > 0) || !isfinite(actual) || !isfinite(guess)) return NAN;
    return fabs(actual - guess) / horizon;
}

double papc_overdue_bound(double started, double frac, double now) {
    if (!isfinite(started) || !(frac > 0 && frac < 1) || !(now > started))
        return -INFINITY;
    return started + (now - started) / frac;
}

double papc_guess_weight(double tau2, double sigma) {
    if (!(sigma > 0) || !isfinite(sigma)) return 1;  /* 0 or unknown */
    if (!(tau2 > 0)) return 0;
    return tau2 / (tau2 + sigma * sigma);
}

/* The centre of the trusted times: the latest one, at least now. */
static double trusted_centre(int n, const double *t, const int *guess,
                             double now) {
    double m = now;
    for (int r = 0; r < n; r++)
        if (!guess[r] && isfinite(t[r]) && t[r] > m) m = t[r];
    return m;
}

int papc_guess_shrink(int n, double *t, const int *guess,
                      const double *sigma, double now) {
    double m = trusted_centre(n, t, guess, now);
    /* Distances from m are summed, not times: the clock's origin (hours
     * of uptime) would eat the precision of their squares. */
    double sum2 = 0;
    long trusted = 0;
    for (int r = 0; r < n; r++)
        if (!guess[r] && isfinite(t[r])) {
            sum2 += (t[r] - m) * (t[r] - m);
            trusted++;
        }
    int moved = 0;
    for (int r = 0; r < n; r++) {
        if (!guess[r] || !isfinite(t[r])) continue;
        double c = t[r] - m;
        double tau2 = (sum2 + c * c) / (double)(trusted + 1);
        double w = papc_guess_weight(tau2, sigma[r]);
        if (w >= 1) continue;
        t[r] = m + w * c;
        moved++;
    }
    return moved;
}

double papc_spread_change(double prev, double now, double floor) {
    if (!(prev >= floor) || !(now >= floor)) return NAN;
    return fabs(now - prev);
}

double papc_spread_lasting(double now, double prev) {
    if (!(now >= 0) || !(prev >= 0)) return 0;
    return now < prev ? now : prev;
}

double papc_spread_quiet(double now, double prev) {
    if (!(now >= 0) || !(prev >= 0) || !isfinite(now) || !isfinite(prev))
        return INFINITY;
    return now > prev ? now : prev;
}

int papc_pick_settled(papc_pick_memory *m, unsigned long gen, int row) {
    if (gen != m->gen) {
        m->prev = gen == m->gen + 1 ? m->row : -1;
        m->gen = gen;
    }
    m->row = row;
    return row >= 0 && m->prev == row;
}

double papc_spread_floor(double floor, double k, const papc_mean *err,
                         long min_n) {
    if (!err || err->n < min_n || !isfinite(err->mean)) return floor;
    double learnt = k * err->mean;
    return learnt > floor ? learnt : floor;
}
