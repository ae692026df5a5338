/* hockney.c — the terms every cost model is written in, and γ(p). */
#include <math.h>
#include "model.h"

papc_terms papc_terms_zero(void) { return (papc_terms){0, 0, 0, 0, 0, 0}; }

papc_terms papc_msg(double m) { return (papc_terms){1, m, 0, 0, 0, 0}; }

papc_terms papc_terms_add(papc_terms a, papc_terms b) {
    return (papc_terms){a.alpha + b.alpha,       a.beta + b.beta,
                        a.gamma_op + b.gamma_op, a.copy + b.copy,
                        a.msgs + b.msgs,         a.volume + b.volume};
}

papc_terms papc_terms_scale(papc_terms a, double k) {
    return (papc_terms){a.alpha * k, a.beta * k, a.gamma_op * k,
                        a.copy * k,  a.msgs * k, a.volume * k};
}

papc_terms papc_terms_traffic(papc_terms t, double n, double bytes) {
    t.msgs += n;
    t.volume += bytes;
    return t;
}

papc_terms papc_terms_axpy(papc_terms a, double k, papc_terms b) {
    return papc_terms_add(a, papc_terms_scale(b, k));
}

double papc_model_segments(double m, double segsize) {
    if (segsize <= 0 || m <= segsize) return 1;
    return ceil(m / segsize);
}

int papc_model_floor_log2(int p) {
    int k = 0;
    while (p > 1) { p >>= 1; k++; }
    return k;
}

int papc_model_ceil_log2(int p) {
    int k = 0;
    while ((1L << k) < (long)p) k++;
    return k;
}

/* Beyond the measured range, the line through the last two points: the
 * paper (Sect. IV-B) finds γ(p) near linear in p. */
double papc_gamma_of(const papc_gamma *g, int p) {
    if (!g || g->n < 3 || p <= 2) return 1.0;
    if (p <= g->n) return g->g[p];
    double slope = g->g[g->n] - g->g[g->n - 1];
    if (slope < 0) slope = 0;
    return g->g[g->n] + slope * (p - g->n);
}

/* No measured γ: γ ≡ 1 says p - 1 messages posted at once cost one, which
 * holds for latencies that overlap but not for bytes that share a link
 * (SMPI's links, and a NIC, carry one byte stream at a time); p - 1 is
 * the link's bound, the same as a fan-in fully serialized.  A measured
 * curve is kept as fitted: papc-tune fitted each row's α, β with it. */
double papc_gamma_or_link(const papc_gamma *g, int p) {
    if (g && g->n >= 3) return papc_gamma_of(g, p);
    return p <= 2 ? 1.0 : p - 1.0;
}

double papc_model_time(papc_terms t, papc_params ab, double gamma_op,
                       double copy) {
    return t.alpha * ab.alpha + t.beta * ab.beta + t.gamma_op * gamma_op +
           t.copy * copy + t.msgs * ab.nu_msg + t.volume * ab.nu_byte;
}

const char *papc_opclass_name(papc_opclass k) {
    static const char *const names[] = {"float", "int", "other"};
    return (int)k >= 0 && k < PAPC_OPCLASS_COUNT ? names[k] : "?";
}
