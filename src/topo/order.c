/* order.c — orders by predicted arrival (see order.h).  Pure: no MPI, no
 * global state; the monitor of src/arrival/ and the unit tests use it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "order.h"

/* Sort key: finite times first (ascending), unknown last, ties by rank.
 * An insertion sort keeps it allocation-free and stable; n is a
 * communicator size and the sort runs once per call at one rank. */
static int before(const double *t, int a, int b) {
    int ka = isfinite(t[a]), kb = isfinite(t[b]);
    if (ka != kb) return ka;
    if (ka && t[a] != t[b]) return t[a] < t[b];
    return a < b;
}

int papc_order_from_times(int n, const double *t, int *order) {
    int known = 0;
    for (int i = 0; i < n; i++) {
        int r = i, j = i;
        known += isfinite(t[r]) != 0;
        while (j > 0 && before(t, r, order[j - 1])) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = r;
    }
    return known;
}

int papc_order_offsets(int n, const double *t, double *offset) {
    double lo = INFINITY;
    int known = 0;
    for (int r = 0; r < n; r++)
        if (isfinite(t[r])) {
            known++;
            if (t[r] < lo) lo = t[r];
        }
    for (int r = 0; r < n; r++)
        offset[r] = isfinite(t[r]) ? t[r] - lo : INFINITY;
    return known;
}

void papc_order_reverse(int n, int *order) {
    for (int i = 0, j = n - 1; i < j; i++, j--) {
        int x = order[i];
        order[i] = order[j];
        order[j] = x;
    }
}

static uint64_t xorshift(uint64_t *s) {
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

void papc_order_shuffle(int n, int *order, uint64_t seed) {
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    if (s == 0) s = 1;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(xorshift(&s) % (uint64_t)(i + 1));
        int x = order[i];
        order[i] = order[j];
        order[j] = x;
    }
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    int kx = isfinite(x), ky = isfinite(y);
    if (kx != ky) return kx ? -1 : 1;
    if (!kx) return 0;
    return (x > y) - (x < y);
}

void papc_order_reassign_offsets(int n, const int *order, double *offset) {
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    if (!v) { /* no memory: make them all unknown, still consistent */
        for (int r = 0; r < n; r++) offset[r] = INFINITY;
        return;
    }
    memcpy(v, offset, (size_t)n * sizeof *v);
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    for (int i = 0; i < n; i++) offset[order[i]] = v[i];
    free(v);
}

int papc_order_is_permutation(int n, const int *order) {
    unsigned char *seen = calloc((size_t)(n > 0 ? n : 1), 1);
    int ok = seen != NULL;
    for (int i = 0; ok && i < n; i++) {
        if (order[i] < 0 || order[i] >= n || seen[order[i]]) ok = 0;
        else seen[order[i]] = 1;
    }
    free(seen);
    return ok;
}

double papc_ewma(double mean, long count, double sample, double w) {
    if (count <= 0 || !isfinite(mean)) return sample;
    return mean + w * (sample - mean);
}

static double absd(double x) { return x < 0 ? -x : x; }

void papc_mean_init(papc_mean *m) {
    m->mean = NAN;
    m->dev = 0;
    m->n = 0;
    m->strikes = 0;
}

void papc_mean_add(papc_mean *m, double x, double w) {
    if (m->n++ == 0 || !isfinite(m->mean)) {
        m->mean = x;
        m->dev = 0;
        m->strikes = 0;
        return;
    }
    double d = x - m->mean;
    double limit = 3 * m->dev + 0.1 * absd(m->mean) + 50e-6;
    if (absd(d) > limit) {
        int side = d > 0 ? 1 : -1;
        m->strikes = m->strikes * side > 0 ? m->strikes + side : side;
        if (m->strikes * side >= 2) { /* a new regime: start over there */
            m->mean = x;  /* the noise level (dev) stays what it was */
            m->strikes = 0;
            return;
        }
        d = side * limit;  /* one outlier: clipped */
    } else {
        m->strikes = 0;
    }
    m->mean += w * d;
    m->dev += w * (absd(d) - m->dev);
}
