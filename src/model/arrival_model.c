/*
 * arrival_model.c — first, generic version of the arrival-offset models
 * (issue 15): a classic row keeps everyone until the last arriver has
 * run the whole algorithm; an arrival-aware row serves the early ranks
 * before the late ones come, leaving one step of P - 1 after the last
 * arrival.  The per-row models derived from each algorithm's code replace
 * this (branch issue15-models).
 */
#include <math.h>
#include <string.h>
#include "arrival_model.h"

static int aware(const char *name) {
    static const char *rows[] = {"sorted_linear", "sorted_linear_sync",
        "sorted_binomial", "background_sorted_linear",
        "background_sorted_linear_sync", "background_sorted_binomial",
        "sorted_linear_tree", "pre_reduced_ring", "clairvoyant"};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        if (strcmp(name, rows[i]) == 0) return 1;
    return 0;
}

double papc_arrival_model_mean(const papc_arrival_case *c) {
    if (!c || c->P < 1 || !(c->t0 >= 0)) return -1;
    double max = 0, mean = 0;
    for (int r = 0; r < c->P; r++) {
        if (c->offset[r] > max) max = c->offset[r];
        mean += c->offset[r] / c->P;
    }
    if (max == 0) return c->t0;
    double finish = aware(c->name)
                        ? fmax(c->t0, max + c->t0 / (c->P > 1 ? c->P - 1 : 1))
                        : max + c->t0;
    return finish - mean;
}
