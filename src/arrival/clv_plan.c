/*
 * clv_plan.c — Clairvoyant's plan for a call: the segments and the round
 * its executor plans the schedule with (src/coll/reduce/clairvoyant.c) and
 * the plain call prices it with (choose.c).  One function for both, so the
 * price cannot drift from what runs (issue 16, helper s10-price: the price
 * used the model's default N and the quiet terms, 0.215 ms predicted in
 * the call at P = 512 on fattree4096 where the executor's plan of N = 112
 * rounds of 68 us took 7.11 ms; docs/scale.md, "The plain call's price at
 * 512").  The arithmetic is pure (papc_clv_round_plan, src/model/
 * arrival_model.c, unit-tested); this reads the knobs, which must be
 * equal on every rank (settings.c agrees them per communicator):
 * PAPC_CLV_SEGMENTS=<N> fixes N (else PAPC_SEGSIZE when set, else the
 * model's N on the round's terms), PAPC_CLV_ROUND=<seconds> replaces the
 * planned round, PAPC_CLV_SLACK=<k> plans rounds of k d.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arrival.h"
#include "model/arrival_model.h"

/* PAPC_CLV_SLACK=<k> (1 <= k <= 64; else 1). */
static double slack_knob(void) {
    const char *v = papc_getenv("PAPC_CLV_SLACK");
    if (!(v && *v)) return 1;
    char *end;
    double k = strtod(v, &end);
    return *end || !(k >= 1) || k > 64 ? 1 : k;
}

/* PAPC_CLV_ROUND=<seconds> when finite and > 0, else 0. */
static double round_knob(void) {
    const char *knob = papc_getenv("PAPC_CLV_ROUND");
    if (!(knob && *knob)) return 0;
    char *end;
    double v = strtod(knob, &end);
    return end != knob && isfinite(v) && v > 0 ? v : 0;
}

int papc_clv_plan_for(const papc_call *c, double alpha, double beta,
                      double gamma, papc_clv_round *out) {
    int count = c->sendcount;
    size_t knob = papc_env_size("PAPC_CLV_SEGMENTS", 0);
    papc_clv_plan_in in = {
        c->size, (double)count, (double)papc_type_size(c->sendtype), alpha,
        beta, gamma, (double)papc_pipeline_max_segment(),
        knob <= 4096 ? (double)knob : 0, papc_getenv("PAPC_SEGSIZE") != NULL,
        count > 0 ? (double)papc_segment_count(c->segsize, c->sendtype, count)
                  : 0,
        round_knob(), slack_knob()};
    return papc_clv_round_plan(&in, out);
}
