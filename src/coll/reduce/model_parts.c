/* model_parts.c — pieces shared by the reduce/allreduce cost models (see
 * model_parts.h). */
#include "model_parts.h"

int papc_model_reduce_trivial(const papc_model_in *in, papc_terms *t) {
    if (in->m <= 0) {
        *t = papc_terms_zero();
        return 1;
    }
    if (in->P <= 1) {
        *t = papc_terms_zero();
        t->copy = in->m;
        return 1;
    }
    return 0;
}

double papc_model_g(const papc_model_in *in, int p) {
    return papc_gamma_of(in->gamma, p);
}

double papc_model_first_segment(double m, double segsize) {
    return segsize > 0 && m > segsize ? segsize : m;
}

int papc_model_binomial_big_child(int n) {
    /* h = the largest power of two below n: its child spans n - h, the
     * one at h/2 spans h/2 (all others are smaller). */
    int h = 1;
    while (h * 2 < n) h *= 2;
    int below = h / 2;
    return n - h > below ? n - h : below;
}

papc_terms papc_model_agreement(const papc_model_in *in) {
    double decision = 8.0 * (2.0 * in->P + 1.0);
    return papc_terms_scale(papc_msg(decision), papc_model_g(in, in->P));
}

papc_terms papc_model_agreement_traffic(papc_terms t, int P) {
    double notice = 32.0, decision = 8.0 * (2.0 * P + 1.0);
    return papc_terms_traffic(t, 2.0 * (P - 1), (P - 1) * (notice + decision));
}
