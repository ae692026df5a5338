/*
 * test_arrival_model.c — the arrival-offset models of issue 15
 * (src/model/arrival_model.c), without MPI (the models call none; the
 * rows' balanced models, which give t0, sit in papcoll beside their
 * algorithms and are reached through the registry).
 *
 *  - every gather, scatter, reduce and allreduce row has a model, and with
 *    every offset 0 it returns exactly t0 (any P, root, m, bg);
 *  - hand cases at P = 4 (one rank 10 ms late, the root late) and P = 8
 *    (rand-late offsets) for every family: unit costs c = α + mβ = 1 ms,
 *    mγ_op = 0.5 ms, t0 = the structure's own balanced run time (so λ =
 *    1); the arithmetic is in the comments of the tables (P = 8 with a
 *    Python calculator of the same recurrences, SLT and PRR with an event
 *    simulation of their schedules);
 *  - the closed forms of SLT and PRR against an event simulation of
 *    papc_slt_schedule / papc_prr_schedule (the code's own schedules),
 *    and Clairvoyant's schedule length against papc_clv_fast's rounds;
 *  - every row's implied finish time never below papc-bench's ideal bound
 *    (tools/bench_ideal.h) for the same offsets, t0 from the row's own
 *    balanced model with its α, β;
 *  - monotonicity: a later arrival never lowers the run time (max exit),
 *    nor the late rank's own exit where the row places ranks by arrival
 *    only in the order it serves them, nor any rank's exit where the
 *    structure does not depend on the arrivals;
 *  - the papers' claims: one rank late by D >> t0 makes SLS/BSLS, SLIN/
 *    BSLN, SBN/BSBN cheaper than linear_sync/basic_linear/binomial, SLT
 *    and Clairvoyant cheaper than the ring; PRR as published is not
 *    (issue 15 measured it: ē 236.7 against 223.0 ms);
 *  - bad input gives -1; P = 4096 stays fast;
 *  - eager messages (issue 16, helper s11-eager: papc_arrival_case.eager):
 *    hand cases at P = 4, 5 and 8 with a late parent, a late root and a
 *    late leaf, each against the rendezvous answer (eager 0, or a limit
 *    just under the message); and the zero-offset, ideal-bound and
 *    monotonicity checks above again under a 64 KiB limit.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "coll/coll.h"
#include "clairvoyant/schedule.h"
#include "model/arrival_exits.h"
#include "model/arrival_model.h"
#include "topo/prr.h"
#include "../../tools/bench_ideal.h"

#define MS 1e-3
#define COUNT(a) (sizeof(a) / sizeof *(a))
#define MAXP 64
/* The segment size the rows run with by default (PAPC_SEGSIZE unset). */
#define SEG 8192.0

static const papc_collective colls[] = {PAPC_GATHER, PAPC_SCATTER,
                                        PAPC_REDUCE, PAPC_ALLREDUCE};

static const char *coll_name(papc_collective c) {
    switch (c) {
    case PAPC_GATHER: return "gather";
    case PAPC_SCATTER: return "scatter";
    case PAPC_REDUCE: return "reduce";
    default: return "allreduce";
    }
}

/* A small deterministic generator (the test must not depend on libc's). */
static uint64_t rng_state = 88172645463325252ULL;
static double urand(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}
static int irand(int n) { return (int)(urand() * n) % n; }

/* γ(p) = p - 1: every fan-in/fan-out serialized, the one-message-at-a-
 * time link that bench_ideal.h assumes. */
static const papc_gamma *serial_gamma(void) {
    static papc_gamma g;
    g.n = PAPC_GAMMA_MAX;
    for (int p = 2; p <= PAPC_GAMMA_MAX; p++) g.g[p] = p - 1;
    return &g;
}

/* The row's balanced prediction under (α, β, γ_op), δ = 1e-10 s/B. */
static double row_t0(const papc_alg_desc *a, int P, double m, double al,
                     double be, double g) {
    papc_model_in in = {P, m, SEG, 65536, 1, serial_gamma()};
    papc_params ab = {al, be, 0, 0};
    return papc_model_time(a->model(&in), ab, g, 1e-10);
}

/* The eager limit make_case gives its cases: 0 (every message by
 * rendezvous) but in the tests that set it (the *_eager variants). */
static double case_eager = 0;
/* The node labels make_case gives its cases (at least MAXP of them): NULL
 * (one node per rank) but in the tests that set it (the *_nodes
 * variants).  Rows other than clairvoyant_node ignore them. */
static const int *case_node = NULL;

static papc_arrival_case make_case(papc_collective coll, const char *name,
                                   int P, int root, double m,
                                   const double *o, double t0, double al,
                                   double be, double g, int bg) {
    papc_arrival_case c = {coll_name(coll), name, P, root, m, SEG, o, t0,
                           al, be, g, bg, 0, 0, case_eager, case_node};
    return c;
}

/* Offsets of four kinds, the earliest at 0. */
static void offsets(int kind, int P, int root, double D, double *o) {
    for (int r = 0; r < P; r++) o[r] = 0;
    if (kind == 0) o[irand(P)] = D;            /* one late */
    else if (kind == 1) o[root] = D;           /* the root late */
    else if (kind == 2)                        /* rand-late */
        for (int r = 0; r < P; r++) o[r] = D * urand();
    else                                       /* small jitter */
        for (int r = 0; r < P; r++) o[r] = 1e-4 * urand();
    double mn = o[0];
    for (int r = 1; r < P; r++) mn = o[r] < mn ? o[r] : mn;
    for (int r = 0; r < P; r++) o[r] -= mn;
}

/* ---- every row, offsets 0 -> t0 ------------------------------------------ */

static void test_zero_offsets_give_t0(void **state) {
    (void)state;
    static const int Ps[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 64};
    static const double ms[] = {0, 8, 4096, 1048576, 8388608};
    double o[MAXP] = {0};
    for (size_t ci = 0; ci < COUNT(colls); ci++)
        for (int i = 0; i < papc_registry_count(colls[ci]); i++) {
            const papc_alg_desc *a = papc_registry_row(colls[ci], i);
            for (size_t pi = 0; pi < COUNT(Ps); pi++)
                for (size_t mi = 0; mi < COUNT(ms); mi++)
                    for (int bg = 0; bg < 2; bg++) {
                        int P = Ps[pi];
                        double t0 = 1e-6 + 0.1 * urand();
                        papc_arrival_case c = make_case(
                            colls[ci], a->info.name, P, irand(P), ms[mi], o,
                            t0, 50e-6, 8.5e-9, 2.5e-10, bg);
                        double e = papc_arrival_model_mean(&c);
                        if (e != t0) {
                            print_error("%s %s P=%d m=%.0f bg=%d: %.17g, "
                                        "want t0 %.17g\n", c.collective,
                                        c.name, P, ms[mi], bg, e, t0);
                            fail();
                        }
                    }
        }
}

/* Every row has an arrival model (the plain call may weigh it), and only
 * reduce clairvoyant_node reads the node grouping (until issue 16's s13
 * it had no model: its price needs the grouping, which the case did not
 * carry). */
static void test_every_row_has_a_model(void **state) {
    (void)state;
    double o[4] = {0, 0.001, 0.002, 0};
    int nodes = 0;
    for (size_t ci = 0; ci < COUNT(colls); ci++)
        for (int i = 0; i < papc_registry_count(colls[ci]); i++) {
            const papc_alg_desc *a = papc_registry_row(colls[ci], i);
            papc_arrival_case c = make_case(colls[ci], a->info.name, 4, 1,
                                            1048576, o, 0.01, 50e-6, 8.5e-9,
                                            2.5e-10, 0);
            assert_true(papc_arrival_model_mean(&c) > 0);
            if (papc_arrival_row_nodes(c.collective, c.name)) {
                assert_int_equal(colls[ci], PAPC_REDUCE);
                assert_string_equal(a->info.name, "clairvoyant_node");
                nodes++;
            }
        }
    assert_int_equal(nodes, 1);
    assert_int_equal(papc_arrival_row_nodes("reduce", "clvn"), 1);
    assert_int_equal(papc_arrival_row_nodes("reduce", "clairvoyant"), 0);
    assert_int_equal(papc_arrival_row_nodes(NULL, "clairvoyant_node"), 0);
    assert_int_equal(papc_arrival_row_planned("reduce", "clv_node"), 1);
}

/* The balanced prediction of an arrival-aware row the profile does not
 * hold (papc-tune times classic rows only) takes the fitted parameters of
 * the classic row its code runs as when balanced (papc_alg_desc
 * .fitted_as): SLS and BSLS linear_sync's, SBN and BSBN binomial's, the
 * scatters' sorted linear rows linear_nb's; its own entry wins where the
 * profile has one; without the classic row's entry, the ping-pong α, β.
 * Every fitted_as names a classic row of the same collective. */
static void add_fit(papc_profile *p, const char *coll, const char *name,
                    double al, double be) {
    papc_profile_alg *a = &p->algs[p->nalgs++];
    memset(a, 0, sizeof *a);
    snprintf(a->collective, sizeof a->collective, "%s", coll);
    snprintf(a->name, sizeof a->name, "%s", name);
    a->ab = (papc_params){al, be, 0, 0};
    a->points = 40;
}

static void expect_params(const papc_profile *p, papc_collective coll,
                          const char *name, double al, double be) {
    papc_row_prediction out;
    const papc_alg_desc *a = papc_registry_find(coll, name);
    assert_non_null(a);
    assert_int_equal(papc_select_predict_with(p, a, 8, 1048576, 1,
                                              PAPC_OPCLASS_FLOAT, &out), 1);
    assert_true(out.seconds > 0);
    assert_true(fabs(out.alpha - al) < 1e-15);
    assert_true(fabs(out.beta - be) < 1e-18);
}

static void test_fitted_as(void **state) {
    (void)state;
    static papc_profile p;
    memset(&p, 0, sizeof p);
    p.version = PAPC_PROFILE_VERSION;
    p.pmin = 2;
    p.pmax = 16;
    p.eager = 65536;
    p.p2p = (papc_params){6e-6, 5e-9, 0, 0};
    p.gamma_op[PAPC_OPCLASS_FLOAT] = 2.5e-10;
    p.copy = 1e-10;
    add_fit(&p, "gather", "linear_sync", 4e-5, 7.6e-9);
    add_fit(&p, "gather", "binomial", 7e-5, 7.2e-9);
    add_fit(&p, "scatter", "linear_nb", 3e-5, 7.9e-9);
    expect_params(&p, PAPC_GATHER, "sorted_linear_sync", 4e-5, 7.6e-9);
    expect_params(&p, PAPC_GATHER, "background_sorted_linear_sync", 4e-5,
                  7.6e-9);
    expect_params(&p, PAPC_GATHER, "sorted_binomial", 7e-5, 7.2e-9);
    expect_params(&p, PAPC_GATHER, "background_sorted_binomial", 7e-5,
                  7.2e-9);
    expect_params(&p, PAPC_SCATTER, "sorted_linear", 3e-5, 7.9e-9);
    expect_params(&p, PAPC_SCATTER, "background_sorted_linear", 3e-5,
                  7.9e-9);
    /* scatter binomial is not in this profile: ping-pong */
    expect_params(&p, PAPC_SCATTER, "sorted_binomial", 6e-6, 5e-9);
    /* SLS linear_sync's model plus its notices' traffic: the same time
     * as linear_sync with the same parameters, or more */
    papc_row_prediction ls, sls;
    assert_int_equal(papc_select_predict_with(&p,
        papc_registry_find(PAPC_GATHER, "linear_sync"), 8, 1048576, 1,
        PAPC_OPCLASS_FLOAT, &ls), 1);
    assert_int_equal(papc_select_predict_with(&p,
        papc_registry_find(PAPC_GATHER, "sorted_linear_sync"), 8, 1048576,
        1, PAPC_OPCLASS_FLOAT, &sls), 1);
    assert_true(sls.seconds >= ls.seconds &&
                sls.seconds < 1.01 * ls.seconds);
    /* a fit of its own wins */
    add_fit(&p, "gather", "sorted_linear_sync", 1e-5, 6e-9);
    expect_params(&p, PAPC_GATHER, "sorted_linear_sync", 1e-5, 6e-9);
    for (size_t ci = 0; ci < COUNT(colls); ci++)
        for (int i = 0; i < papc_registry_count(colls[ci]); i++) {
            const papc_alg_desc *a = papc_registry_row(colls[ci], i);
            if (!a->fitted_as) continue;
            assert_true(a->info.flags & PAPC_FLAG_ARRIVAL_AWARE);
            const papc_alg_desc *t = papc_registry_find(colls[ci],
                                                        a->fitted_as);
            assert_non_null(t);
            assert_string_equal(t->info.name, a->fitted_as);
            assert_false(t->info.flags & PAPC_FLAG_ARRIVAL_AWARE);
        }
}

/* Prices over several views (papc_price_ring_*): a row's mean over the
 * latest k views it was priced at; a view kept twice counts once; views
 * older than k, or overwritten in the ring, drop out; a row that is no
 * candidate now stays none. */
static void test_price_ring(void **state) {
    (void)state;
    enum { SLOTS = 4, ROWS = 3 };
    double price[SLOTS * ROWS];
    unsigned long gen[SLOTS] = {0};
    papc_price_ring ring = {SLOTS, ROWS, price, gen};
    double mean[ROWS];
    /* view 1: row 2 no candidate */
    double v1[ROWS] = {10, 20, NAN};
    papc_price_ring_keep(&ring, 1, v1);
    assert_int_equal(papc_price_ring_mean(&ring, 1, 4, v1, mean), 1);
    assert_true(mean[0] == 10 && mean[1] == 20 && isnan(mean[2]));
    /* view 2; kept twice (a second choice at the same view) */
    double v2[ROWS] = {30, 10, 5};
    papc_price_ring_keep(&ring, 2, v2);
    papc_price_ring_keep(&ring, 2, v2);
    assert_int_equal(papc_price_ring_mean(&ring, 2, 4, v2, mean), 2);
    assert_true(mean[0] == 20 && mean[1] == 15 && mean[2] == 5);
    /* k = 1: the latest alone; k = 2 over views 1-2 */
    assert_int_equal(papc_price_ring_mean(&ring, 2, 1, v2, mean), 1);
    assert_true(mean[0] == 30 && mean[1] == 10);
    /* view 3 not priced (the floor kept the classic row), view 4 is:
     * with k = 2 the window is views 3-4, so view 4 alone counts */
    double v4[ROWS] = {50, 40, NAN};
    papc_price_ring_keep(&ring, 4, v4);
    assert_int_equal(papc_price_ring_mean(&ring, 4, 2, v4, mean), 1);
    assert_true(mean[0] == 50 && mean[1] == 40 && isnan(mean[2]));
    assert_int_equal(papc_price_ring_mean(&ring, 4, 4, v4, mean), 3);
    assert_true(fabs(mean[0] - 30) < 1e-12 && fabs(mean[1] - 70.0 / 3) < 1e-12);
    /* view 5 overwrites view 1's slot (4 slots): views 2, 4, 5 */
    double v5[ROWS] = {20, 20, 20};
    papc_price_ring_keep(&ring, 5, v5);
    assert_int_equal(papc_price_ring_mean(&ring, 5, 16, v5, mean), 3);
    assert_true(fabs(mean[0] - 100.0 / 3) < 1e-12 &&
                fabs(mean[1] - 70.0 / 3) < 1e-12 &&
                fabs(mean[2] - 12.5) < 1e-12);
    /* no ring: the latest alone */
    papc_price_ring none = {0, ROWS, NULL, NULL};
    assert_int_equal(papc_price_ring_mean(&none, 5, 4, v5, mean), 1);
    assert_true(mean[0] == 20);
}

/* A new pattern in the prices over the views (papc_price_ring_jump,
 * _new_pattern): column 1 holds the views' spreads.  The benchmark's
 * change from 10 to 50 ms (views 8-10 ms, then 44-48 ms): the first 50 ms
 * view jumps (not yet dropped: one view could be a misprediction), the
 * second confirms and the 10 ms views go, so the mean is of the two new
 * views alone; a view 3.4 x under the mean of its predecessors (a late
 * rank decided on time, test_guess's rand-late 10 ms series) followed by a
 * normal one drops nothing; a fall from 200 to 10 ms confirmed likewise;
 * a second call at the same view changes nothing. */
static void keep_view(papc_price_ring *ring, unsigned long g, double price,
                      double spread, unsigned long *jg, int *jd, int *seen) {
    double v[2] = {price, spread};
    *seen = papc_price_ring_new_pattern(ring, g, 4, 1, spread, 3.0, jg, jd);
    papc_price_ring_keep(ring, g, v);
}

static void test_price_ring_new_pattern(void **state) {
    (void)state;
    enum { SLOTS = 8, ROWS = 2 };
    double price[SLOTS * ROWS], mean[ROWS];
    unsigned long gen[SLOTS] = {0}, jg = 0;
    int jd = 0, seen = 0;
    papc_price_ring ring = {SLOTS, ROWS, price, gen};
    assert_int_equal(papc_price_ring_jump(&ring, 1, 4, 1, 5e-3, 3), 0);
    keep_view(&ring, 1, 10, 8e-3, &jg, &jd, &seen);
    assert_int_equal(seen, 0);
    keep_view(&ring, 2, 12, 10e-3, &jg, &jd, &seen);
    keep_view(&ring, 3, 11, 9e-3, &jg, &jd, &seen);
    assert_int_equal(seen, 0);
    assert_int_equal(papc_price_ring_jump(&ring, 4, 4, 1, 28e-3, 3), 1);
    assert_int_equal(papc_price_ring_jump(&ring, 4, 4, 1, 26e-3, 3), 0);
    assert_int_equal(papc_price_ring_jump(&ring, 4, 4, 1, 2.9e-3, 3), -1);
    /* view 4 at 50 ms: jumped, nothing dropped yet */
    keep_view(&ring, 4, 40, 44e-3, &jg, &jd, &seen);
    assert_int_equal(seen, 1);
    assert_int_equal(jd, 1);
    double v4[ROWS] = {40, 44e-3};
    assert_int_equal(papc_price_ring_mean(&ring, 4, 4, v4, mean), 4);
    /* again at view 4 (a second choice): the same answer, no change */
    assert_int_equal(papc_price_ring_new_pattern(&ring, 4, 4, 1, 44e-3, 3.0,
                                                 &jg, &jd), 1);
    /* view 5 confirms: views 1-3 dropped, the mean is of views 4-5 */
    keep_view(&ring, 5, 44, 48e-3, &jg, &jd, &seen);
    assert_int_equal(seen, 1);
    assert_int_equal(jd, 2);
    /* made again at view 5: the same answer */
    assert_int_equal(papc_price_ring_new_pattern(&ring, 5, 4, 1, 48e-3, 3.0,
                                                 &jg, &jd), 1);
    double v5[ROWS] = {44, 48e-3};
    assert_int_equal(papc_price_ring_mean(&ring, 5, 4, v5, mean), 2);
    assert_true(fabs(mean[0] - 42) < 1e-12);
    /* view 6: the same pattern, no jump */
    keep_view(&ring, 6, 41, 45e-3, &jg, &jd, &seen);
    assert_int_equal(seen, 0);

    /* a mispredicted view, then a normal one: nothing dropped */
    memset(gen, 0, sizeof gen);
    jg = 0, jd = 0;
    double r10[6] = {4.84e-3, 6.4e-3, 6.24e-3, 1.72e-3, 6.89e-3, 10.1e-3};
    int jumps = 0;
    for (int g = 1; g <= 6; g++) {
        keep_view(&ring, (unsigned long)g, g, r10[g - 1], &jg, &jd, &seen);
        jumps += seen;
    }
    assert_int_equal(jumps, 1);   /* 1.72 ms, 3.4 x under 5.83 */
    double v6[ROWS] = {6, 10.1e-3};
    assert_int_equal(papc_price_ring_mean(&ring, 6, 4, v6, mean), 4);
    assert_true(fabs(mean[0] - 4.5) < 1e-12);  /* views 3-6 */

    /* 200 ms, then 10 ms twice: the fall is confirmed too */
    memset(gen, 0, sizeof gen);
    jg = 0, jd = 0;
    keep_view(&ring, 1, 100, 190e-3, &jg, &jd, &seen);
    keep_view(&ring, 2, 101, 195e-3, &jg, &jd, &seen);
    keep_view(&ring, 3, 20, 9e-3, &jg, &jd, &seen);
    assert_true(seen && jd == -1);
    keep_view(&ring, 4, 22, 8e-3, &jg, &jd, &seen);
    assert_true(seen && jd == 2);
    double w4[ROWS] = {22, 8e-3};
    assert_int_equal(papc_price_ring_mean(&ring, 4, 4, w4, mean), 2);
    assert_true(fabs(mean[0] - 21) < 1e-12);
    /* a view skipped (not priced) between the two: no confirmation */
    memset(gen, 0, sizeof gen);
    jg = 0, jd = 0;
    keep_view(&ring, 1, 10, 8e-3, &jg, &jd, &seen);
    keep_view(&ring, 2, 40, 44e-3, &jg, &jd, &seen);
    keep_view(&ring, 4, 41, 45e-3, &jg, &jd, &seen);
    double x4[ROWS] = {41, 45e-3};
    assert_int_equal(papc_price_ring_mean(&ring, 4, 4, x4, mean), 3);
}

/* The choice among rows (papc_arrival_pick): noise keeps the size-based
 * row, the least ē wins among the classic rows, an arrival-aware one only
 * by the margin. */
static void test_pick(void **state) {
    (void)state;
    papc_arrival_candidate c[4] = {
        {0, 10e-3, 30e-3},   /* 0: the size-based row */
        {0, 12e-3, 25e-3},   /* 1: a classic row less hurt by the late one */
        {1, 11e-3, 24e-3},   /* 2: arrival-aware, 4 % under row 1 */
        {1, 11e-3, 30e-3},   /* 3: arrival-aware, no gain */
    };
    /* spread under the floor, or under 5 % of the base's t0 */
    assert_int_equal(papc_arrival_pick(c, 4, 0, 0.9e-3, 0), 0);
    c[0].t0 = 40e-3;
    assert_int_equal(papc_arrival_pick(c, 4, 0, 1.9e-3, 0), 0);
    assert_int_equal(papc_arrival_pick(c, 4, 0, 2.1e-3, 0), 1);
    c[0].t0 = 10e-3;
    /* the same test alone (choose.c's settled sites count only picks
     * made on compared prices) */
    assert_false(papc_arrival_priced(0.9e-3, 10e-3));
    assert_false(papc_arrival_priced(1.9e-3, 40e-3));
    assert_true(papc_arrival_priced(2.1e-3, 40e-3));
    assert_false(papc_arrival_priced(NAN, 10e-3));
    /* the best classic row; arrival-aware 4 % better: not enough */
    assert_int_equal(papc_arrival_pick(c, 4, 0, 20e-3, 0), 1);
    /* 6 % better: the arrival-aware row */
    c[2].mean = 23.5e-3;
    assert_int_equal(papc_arrival_pick(c, 4, 0, 20e-3, 0), 2);
    /* ties keep the base; bad arguments give the base back */
    c[1].mean = 30e-3;
    c[2].mean = 29e-3;
    assert_int_equal(papc_arrival_pick(c, 4, 0, 20e-3, 0), 0);
    assert_int_equal(papc_arrival_pick(c, 4, 3, NAN, 0), 3);
    assert_int_equal(papc_arrival_pick(NULL, 4, 1, 1, 0), 1);
    assert_int_equal(papc_arrival_pick(c, 0, 0, 1, 0), 0);
    /* The margin is of the ē above the wait no row avoids: 4 % of the whole
     * is 16 % of what the rows change above a 23 ms wait (one process
     * 200 ms late: the sweep's allreduce kept the ring at 4.5 %). */
    c[1].mean = 25e-3;
    c[2].mean = 24e-3;
    assert_int_equal(papc_arrival_pick(c, 4, 0, 20e-3, 0), 1);
    assert_int_equal(papc_arrival_pick(c, 4, 0, 20e-3, 23e-3), 2);
    /* ... and not below it: 24.0 against 24.2 ms above a 20 ms wait */
    c[1].mean = 24.2e-3;
    assert_int_equal(papc_arrival_pick(c, 4, 0, 20e-3, 20e-3), 1);
    /* a wait above a price is no floor (prices of other views): the whole */
    assert_int_equal(papc_arrival_pick(c, 4, 0, 20e-3, 24.1e-3), 1);
    c[1].mean = 25.5e-3;  /* 5.9 % of the whole */
    assert_int_equal(papc_arrival_pick(c, 4, 0, 20e-3, 24.1e-3), 2);
    assert_int_equal(papc_arrival_pick(c, 4, 0, 20e-3, NAN), 2);
}

/* Aliases name the same row. */
static void test_aliases(void **state) {
    (void)state;
    double o[4] = {0, 0.01, 0, 0};
    papc_arrival_case a = make_case(PAPC_ALLREDUCE, "pre_reduced_ring", 4, 0,
                                    1e6, o, 0.01, 50e-6, 8.5e-9, 2.5e-10, 1);
    papc_arrival_case b = a;
    b.name = "prr";
    assert_true(papc_arrival_model_mean(&a) > 0);
    assert_true(papc_arrival_model_mean(&a) == papc_arrival_model_mean(&b));
    a.collective = "gather";
    a.name = "background_sorted_linear_sync";
    b = a;
    b.name = "bsls";
    assert_true(papc_arrival_model_mean(&a) == papc_arrival_model_mean(&b));
}

/* ---- hand cases ------------------------------------------------------------
 * α = 0, a gather/scatter block m = 1e6 B with β = 1e-9 s/B: c = 1 ms;
 * reduce/allreduce vectors m = 1e6 B: c = 1 ms, γ_op = 0.5e-9: g = 0.5 ms.
 * t0 = the structure's balanced run time, so λ = 1 and
 *   ē = t0 + mean(F - o) - mean(F(0)).
 * P4A = rank 1 late by 10 ms, P4R = the root late by 10 ms, P8 = the
 * rand-late offsets 0, 3.5, 0.5, 7, 1, 0, 2.5, 4 ms (root 0). */

typedef struct hand_case {
    papc_collective coll;
    const char *name;
    int P, bg;
    const double *o_ms;
    double m, beta, gamma_op, segsize;
    double t0_ms, want_ms;
} hand_case;

static const double P4A[] = {0, 10, 0, 0};
static const double P4R[] = {10, 0, 0, 0};
static const double P4C[] = {0, 0, 10, 0}; /* rank 2 (a relay) late */
static const double P5F[] = {0, 0, 0, 0, 10};
static const double P5S[] = {0, 0, 10, 0, 0};
static const double P8[] = {0, 3.5, 0.5, 7, 1, 0, 2.5, 4};

static const hand_case hand_cases[] = {
    /* gather linear, rank order: F(0) = 3,1,2,3 (ē 2.25); rank 1 late:
     * 1 -> max(0,10)+1 = 11, 2 -> 12, 3 -> 13, root 13: mean(F-o) 9.75. */
    {PAPC_GATHER, "basic_linear", 4, 0, P4A, 1e6, 1e-9, 0, 0, 3, 10.5},
    {PAPC_GATHER, "linear_sync", 4, 0, P4A, 1e6, 1e-9, 0, 0, 3, 10.5},
    /* SLS: order 2, 3, 1: F = 11, 11, 1, 2: mean(F-o) 3.75. */
    {PAPC_GATHER, "sorted_linear_sync", 4, 0, P4A, 1e6, 1e-9, 0, 0, 3, 4.5},
    {PAPC_GATHER, "background_sorted_linear_sync", 4, 1, P4A, 1e6, 1e-9, 0, 0,
     3, 4.5},
    /* root late, BSLS (eq. 20): blocks at 1, 2, 3, root max(10, 3) = 10:
     * mean(F-o) = (0+1+2+3)/4 = 1.5 -> 2.25; SLS (eq. 19): 11, 12, 13,
     * root 13 -> 9.75 -> 10.5. */
    {PAPC_GATHER, "background_sorted_linear_sync", 4, 1, P4R, 1e6, 1e-9, 0, 0,
     3, 2.25},
    {PAPC_GATHER, "background_sorted_linear_sync", 4, 0, P4R, 1e6, 1e-9, 0, 0,
     3, 10.5},
    /* binomial: 0 <- {1, 2}, 2 <- {3}, span(2) = 2.  F(0): 3 sends at 1,
     * root takes 1 at 1 and 2's two blocks at 3: F = 3,1,3,1 (ē 2).
     * Rank 1 late: root takes 2 first (3), then 1 at 11: F = 11,11,3,1:
     * mean(F-o) = 4 -> 5.  Rank 2 late: 3 -> 2 at 11, root 1 at 1, 2 at
     * 13: F = 13,1,13,11: 7 -> 8. */
    {PAPC_GATHER, "binomial", 4, 0, P4A, 1e6, 1e-9, 0, 0, 3, 5},
    {PAPC_GATHER, "binomial", 4, 0, P4C, 1e6, 1e-9, 0, 0, 3, 8},
    /* SBN: tails 1, 2, 3 for nranks 1, 2, 3; rank 2 late takes nrank 1
     * (leaf of the root), 3 nrank 2, 1 nrank 3: 1 -> 3 at 1, root takes 3's
     * two blocks at 3, 2 at 11: F = 11,1,11,3: 4 -> 5 (eq. 21: rank 1 late
     * is as for the binomial, 5). */
    {PAPC_GATHER, "sorted_binomial", 4, 0, P4C, 1e6, 1e-9, 0, 0, 3, 5},
    {PAPC_GATHER, "sorted_binomial", 4, 0, P4A, 1e6, 1e-9, 0, 0, 3, 5},
    /* root late (eqs. 23, 24): map 3 -> nrank 1, 2 -> 2, 1 -> 3.  SBN: 1
     * -> 2 at 1; children wait for the root: 3 at 11, 2's at 13: F =
     * 13,1,13,11: 7 -> 8.  BSBN: the root's monitor takes 3 at 1, 2 at 3,
     * root max(10, 3): F = 10,1,3,1: 1.25 -> 2.25. */
    {PAPC_GATHER, "sorted_binomial", 4, 0, P4R, 1e6, 1e-9, 0, 0, 3, 8},
    {PAPC_GATHER, "background_sorted_binomial", 4, 1, P4R, 1e6, 1e-9, 0, 0, 3,
     2.25},
    /* P = 8 rand-late (calculator): rank order, sorted, trees. */
    {PAPC_GATHER, "basic_linear", 8, 0, P8, 1e6, 1e-9, 0, 0, 7, 9.3125},
    {PAPC_GATHER, "sorted_linear_sync", 8, 0, P8, 1e6, 1e-9, 0, 0, 7, 4.9375},
    {PAPC_GATHER, "background_sorted_linear_sync", 8, 1, P8, 1e6, 1e-9, 0, 0,
     7, 4.9375},
    {PAPC_GATHER, "binomial", 8, 0, P8, 1e6, 1e-9, 0, 0, 7, 9.625},
    {PAPC_GATHER, "sorted_binomial", 8, 0, P8, 1e6, 1e-9, 0, 0, 7, 8.875},
    {PAPC_GATHER, "background_sorted_binomial", 8, 1, P8, 1e6, 1e-9, 0, 0, 7,
     8.125},

    /* scatter linear, the blocks in flight sharing the root's link
     * (arrival_model.c, fair_share), the root out when it has handed its
     * blocks on (α = 0: at its last send's start).  basic_linear: the
     * send to 1 waits for it, 2 and 3 after: all three from 10, done at
     * 13, root 10: F = 10,13,13,13 (F(0) = 0,3,3,3, ē 2.25): 9.75 ->
     * 10.5 (eq. 9's run time).  SLIN/linear_nb: 2 and 3 share from 0
     * (done at 2), 1 from 10 (11), root 10: F = 10,11,2,2: 3.75 -> 4.5
     * (eq. 10).  BSLN: all three pushed at 0, done at 3, 1 takes its
     * block from its monitor at 10, root 0: F = 0,10,3,3: 1.5 -> 2.25
     * (eq. 11).  P8: an event simulation with each message's remaining
     * work (docs/data/sweep24-fair-share/sim-scatter-linear.py). */
    {PAPC_SCATTER, "basic_linear", 4, 0, P4A, 1e6, 1e-9, 0, 0, 3, 10.5},
    {PAPC_SCATTER, "linear_nb", 4, 0, P4A, 1e6, 1e-9, 0, 0, 3, 4.5},
    {PAPC_SCATTER, "sorted_linear", 4, 0, P4A, 1e6, 1e-9, 0, 0, 3, 4.5},
    {PAPC_SCATTER, "background_sorted_linear", 4, 1, P4A, 1e6, 1e-9, 0, 0, 3,
     2.25},
    {PAPC_SCATTER, "background_sorted_linear", 4, 0, P4A, 1e6, 1e-9, 0, 0, 3,
     4.5},
    /* binomial: root sends 2 (two blocks) then 1, 2 sends 3: F(0) all 3
     * (ē 3).  Rank 2 late: 2 at 12, 1 at 13, 3 at 13: F all 13: 10.5 ->
     * 10.5.  SBN: receive order nrank 2, 1, 3; 1 -> nrank 2, 3 -> nrank 1,
     * 2 -> nrank 3: 1 at 2, 3 at 3, 1 sends to 2 at max(2,10)+1 = 11:
     * F = 3,11,11,3: 4.5 -> 4.5.  BSBN: 1's monitor forwards at 3, 1
     * exits at 2: F = 3,2,10,3: 2 -> 3 + 2 - 2.75 (F(0) = 3,2,3,3). */
    {PAPC_SCATTER, "binomial", 4, 0, P4C, 1e6, 1e-9, 0, 0, 3, 10.5},
    {PAPC_SCATTER, "sorted_binomial", 4, 0, P4C, 1e6, 1e-9, 0, 0, 3, 4.5},
    {PAPC_SCATTER, "background_sorted_binomial", 4, 1, P4C, 1e6, 1e-9, 0, 0, 3,
     2.25},
    {PAPC_SCATTER, "basic_linear", 8, 0, P8, 1e6, 1e-9, 0, 0, 7, 8.3125},
    {PAPC_SCATTER, "sorted_linear", 8, 0, P8, 1e6, 1e-9, 0, 0, 7, 3.5},
    {PAPC_SCATTER, "linear_nb", 8, 0, P8, 1e6, 1e-9, 0, 0, 7, 3.5},
    {PAPC_SCATTER, "background_sorted_linear", 8, 1, P8, 1e6, 1e-9, 0, 0, 7,
     4.6875},
    {PAPC_SCATTER, "binomial", 8, 0, P8, 1e6, 1e-9, 0, 0, 7, 5.6875},
    {PAPC_SCATTER, "sorted_binomial", 8, 0, P8, 1e6, 1e-9, 0, 0, 7, 4.9375},
    {PAPC_SCATTER, "background_sorted_binomial", 8, 1, P8, 1e6, 1e-9, 0, 0, 7,
     4.6875},

    /* reduce basic_linear: ranks 3, 2, 1 in turn, c + g each: F(0) =
     * 4.5,4,2.5,1 (ē 3); rank 1 late: 1 at 11, root 11.5: F = 11.5,11,
     * 2.5,1: 4 -> 4.5 + 4 - 3 = 5.5. */
    {PAPC_REDUCE, "basic_linear", 4, 0, P4A, 1e6, 1e-9, 0.5e-9, 0, 4.5, 5.5},
    /* binomial, 2 segments (m_s = m/2): stages h = 0.5 + 0.25 k: h0 = 1,
     * h2 = 0.75, leaves 0.5.  F(0): T3 = T1 = 1, T2 = 1.75, T0 = 2.75;
     * F = 2.75, 1.75, 1.75, 1 (ē 1.8125).  Rank 1 late: T1 = 11, T0 = 12,
     * F = 12, 11, 11, 1: 6.25 -> 2.75 + 6.25 - 1.8125. */
    {PAPC_REDUCE, "binomial", 4, 0, P4A, 1e6, 1e-9, 0.5e-9, 5e5, 2.75,
     7.1875},
    /* Rabenseifner at P = 5 (root 0: virtual ranks from 4, rank 4 folds
     * into rank 0): rest = 2(3/4)1 + (3/4)0.5 = 1.875; F(0) = 3.375 for
     * ranks 0-3, 1 for rank 4 (ē 2.9).  Rank 4 late: F4 = 11, rank 0
     * starts at 11.5, all 13.375: 10.9 -> 11.375.  Rank 2 late: start 10,
     * all 11.875, F4 = 1: 7.7 -> 8.175. */
    {PAPC_REDUCE, "rabenseifner", 5, 0, P5F, 1e6, 1e-9, 0.5e-9, 0, 3.375,
     11.375},
    {PAPC_REDUCE, "rabenseifner", 5, 0, P5S, 1e6, 1e-9, 0.5e-9, 0, 3.375,
     8.175},
    /* ring, radix_k: t0 + max o - mean o. */
    {PAPC_REDUCE, "ring", 4, 0, P4A, 1e6, 1e-9, 0.5e-9, 0, 2, 9.5},
    {PAPC_REDUCE, "radix_k", 8, 0, P8, 1e6, 1e-9, 0.5e-9, 0, 5, 9.6875},
    /* Clairvoyant, m = 500 B (β = 2e-6, γ_op = 1e-6 keep c = 1, g = 0.5):
     * N = max(1, sqrt(L m (β+γ)/α) of the default model) = 1 segment,
     * rounds d = 1.5, priced by the schedule's dataflow (a transfer c, a
     * fold g; clairvoyant/dataflow.h).  F(0): the schedule pairs 1 -> 0
     * and 3 -> 2, then 2 -> 0: 1 and 3 exit at 1, 2 folds by 1.5 and
     * sends, 2.5, the root folds by 3 (ē 1.875).  Rank 1 late (rounds q =
     * 0,7,0,0): 2 -> 0 and 3 -> 0 first, 2 out at 1, 3 at 2 behind it on
     * the root's link, then 1 -> 0 at 10: 1 out at 11, the root at 11.5:
     * 3.875 -> 3 + 3.875 - 1.875.  P = 8 (L = 3, q = 0,2,0,5,1,0,2,3;
     * the schedule's pairs and an independent simulation of the same
     * rules, /tmp in session 23): exits 8.5, 5, 1.5, 8, 2, 3.5, 3.5, 6
     * against F(0) 4.5, 1, 2.5, 1, 4, 1, 2.5, 1: ē 4.5 + 2.4375 - 2.1875. */
    {PAPC_REDUCE, "clairvoyant", 4, 0, P4A, 500, 2e-6, 1e-6, 0, 3, 5},
    {PAPC_REDUCE, "basic_linear", 8, 0, P8, 1e6, 1e-9, 0.5e-9, 0, 10.5,
     12.1875},
    {PAPC_REDUCE, "binomial", 8, 0, P8, 1e6, 1e-9, 0.5e-9, 5e5, 4, 7.0625},
    {PAPC_REDUCE, "clairvoyant", 8, 0, P8, 500, 2e-6, 1e-6, 0, 4.5, 4.75},

    /* allreduce basic_linear: reduce to 0 (1.5 each), then 1, 2, 3 at 1
     * each: F(0) = 7.5,5.5,6.5,7.5 (ē 6.75); rank 1 late: reduce ends
     * 11.5, F = 14.5,12.5,13.5,14.5: 11.25 -> 12. */
    {PAPC_ALLREDUCE, "basic_linear", 4, 0, P4A, 1e6, 1e-9, 0.5e-9, 0, 7.5,
     12},
    {PAPC_ALLREDUCE, "ring", 4, 0, P4A, 1e6, 1e-9, 0.5e-9, 0, 2, 9.5},
    {PAPC_ALLREDUCE, "recursive_doubling", 8, 0, P8, 1e6, 1e-9, 0.5e-9, 0, 5,
     9.6875},
    {PAPC_ALLREDUCE, "segmented_ring", 8, 0, P8, 1e6, 1e-9, 0.5e-9, 0, 5,
     9.6875},
    {PAPC_ALLREDUCE, "rabenseifner", 8, 0, P8, 1e6, 1e-9, 0.5e-9, 0, 5,
     9.6875},
    /* SLT, m = 1000 B gives S = P segments; β, γ_op make a reduce hop cr =
     * 1.5, an override hop co = 1 (s = m/S).  F(0) by position: 10, 11,
     * 12, 9 (ē 10.5, t0 12).  Rank 1 late, last in the chain: A = 10 + 4
     * cr = 16, F = 17, 18, 19 for positions 0-2 (ranks 0, 2, 3), 16 for
     * rank 1: 15 -> 12 + 15 - 10.5 (the simulation gives the same). */
    {PAPC_ALLREDUCE, "sorted_linear_tree", 4, 0, P4A, 1000, 4e-6, 2e-6, 0, 12,
     16.5},
    {PAPC_ALLREDUCE, "sorted_linear_tree", 8, 0, P8, 1000, 8e-6, 4e-6, 0, 28,
     25.6875},
    /* PRR, s = m/P = 1e6 B: cr = τ = 1.5, co = 1.  Rank 1 late: k = 2, 1,
     * 0, 0; X = 10 - 2 cr = 7; F = 7 + 5 cr + (5 - k_{j+2}) = 19.5 for
     * positions 0-2, 18.5 for the last: 16.75 -> 7.5 + 16.75 - 7.5 (a ring:
     * 7.5 + 10 - 2.5 = 15).  P = 8 with τ = cr = 1.45 (no slack equals a
     * multiple of τ, where rounding would decide the rule): k = 4,4,4,3,2,
     * 1,0,0, the simulation of the schedule gives the exits. */
    {PAPC_ALLREDUCE, "pre_reduced_ring_published", 4, 0, P4A, 4e6, 1e-9,
     0.5e-9, 0, 7.5, 16.75},
    {PAPC_ALLREDUCE, "pre_reduced_ring_published", 8, 0, P8, 8e6, 1e-9,
     0.45e-9, 0, 17.15, 24.0875},
    /* pre_reduced_ring (issue 15's rule) is modelled with k = 0: the ring
     * in arrival order, 7.5 + 10 - 2.5 = 15 (see the P = 4 case above). */
    {PAPC_ALLREDUCE, "pre_reduced_ring", 4, 0, P4A, 4e6, 1e-9, 0.5e-9, 0, 7.5,
     15},
    /* Clairvoyant: the reduce to the earliest rank (as above: 3 and 11.5,
     * P = 8: 4.5 and 8.5), then the broadcast, one segment (m < 8 KiB),
     * (1 + L - 1)(α + mβ) = L for all: F(0) = 5, rank 1 late: all 13.5:
     * 11 -> 11; P = 8: 7.5 and 11.5: 9.1875 -> 9.1875. */
    {PAPC_ALLREDUCE, "clairvoyant", 4, 0, P4A, 500, 2e-6, 1e-6, 0, 5, 11},
    {PAPC_ALLREDUCE, "clairvoyant", 8, 0, P8, 500, 2e-6, 1e-6, 0, 7.5,
     9.1875},
};

static void test_hand_cases(void **state) {
    (void)state;
    for (size_t i = 0; i < COUNT(hand_cases); i++) {
        const hand_case *h = &hand_cases[i];
        double o[MAXP];
        for (int r = 0; r < h->P; r++) o[r] = h->o_ms[r] * MS;
        papc_arrival_case c = make_case(h->coll, h->name, h->P, 0, h->m, o,
                                        h->t0_ms * MS, 0, h->beta,
                                        h->gamma_op, h->bg);
        c.segsize = h->segsize;
        double e = papc_arrival_model_mean(&c);
        if (fabs(e - h->want_ms * MS) > 1e-9 * MS) {
            print_error("%s %s P=%d bg=%d: ē %.9g ms, want %.9g ms\n",
                        c.collective, c.name, h->P, h->bg, e / MS, h->want_ms);
            fail();
        }
        /* the implied exits: their mean elapsed time is ē */
        double F[MAXP], sum = 0;
        assert_int_equal(papc_arrival_model_exits(&c, F), 0);
        for (int r = 0; r < h->P; r++) sum += F[r] - o[r];
        assert_true(fabs(sum / h->P - e) < 1e-12);
    }
}

/* ---- closed forms against the code's schedules ---------------------------
 * An event simulation of a papc_seg_step schedule per process (the
 * executor's semantics: receives block, sends do not; a receive starts
 * when the receiver reaches it and the sender has posted the send and
 * costs cr (reduce) or co (copy); rendezvous: a send completes with its
 * receive, WAIT_SENDS waits for that; eager: a send completes at once). */

#define SIM_MAXP 16
#define SIM_MAXS 40

typedef struct sim {
    int P, n[SIM_MAXP], pc[SIM_MAXP];
    papc_seg_step st[SIM_MAXP][4 * SIM_MAXS + 1];
    double t[SIM_MAXP];
    /* posted[src][sub][seg], done[src][sub][seg]: time or -1 */
    double posted[SIM_MAXP][2][SIM_MAXS], done[SIM_MAXP][2][SIM_MAXS];
} sim;

static void sim_run(sim *s, double cr, double co, int rendezvous) {
    int P = s->P, moved = 1;
    for (int p = 0; p < P; p++)
        for (int b = 0; b < 2; b++)
            for (int g = 0; g < SIM_MAXS; g++)
                s->posted[p][b][g] = s->done[p][b][g] = -1;
    while (moved) {
        moved = 0;
        for (int p = 0; p < P; p++)
            while (s->pc[p] < s->n[p]) {
                const papc_seg_step *x = &s->st[p][s->pc[p]];
                if (x->op == PAPC_SEG_SEND) {
                    s->posted[p][x->sub][x->seg] = s->t[p];
                    if (!rendezvous) s->done[p][x->sub][x->seg] = s->t[p];
                } else if (x->op == PAPC_SEG_WAIT_SENDS) {
                    int ok = 1;
                    for (int g = 0; g < SIM_MAXS && ok; g++)
                        for (int b = 0; b < 2; b++)
                            if (s->posted[p][b][g] >= 0 &&
                                s->done[p][b][g] < 0) ok = 0;
                    if (!ok) break;
                    for (int g = 0; g < SIM_MAXS; g++)
                        for (int b = 0; b < 2; b++)
                            if (s->done[p][b][g] > s->t[p])
                                s->t[p] = s->done[p][b][g];
                } else {
                    double post = s->posted[x->peer][x->sub][x->seg];
                    if (post < 0) break;
                    double start = s->t[p] > post ? s->t[p] : post;
                    double tr = start + co;
                    if (rendezvous) s->done[x->peer][x->sub][x->seg] = tr;
                    s->t[p] = tr;
                    if (x->op == PAPC_SEG_RECV_REDUCE) s->t[p] += cr - co;
                }
                s->pc[p]++;
                moved = 1;
            }
    }
    for (int p = 0; p < P; p++) {
        assert_int_equal(s->pc[p], s->n[p]); /* no deadlock */
        for (int g = 0; g < SIM_MAXS; g++)
            for (int b = 0; b < 2; b++)
                if (s->done[p][b][g] > s->t[p]) s->t[p] = s->done[p][b][g];
    }
}

static void sorted_offsets(int P, double *o) {
    int kind = irand(3);
    for (int i = 0; i < P; i++)
        o[i] = kind == 0   ? 0
             : kind == 1 ? 10 * urand()
                         : (urand() < .3 ? 8 : 0);
    for (int i = 1; i < P; i++) /* insertion sort */
        for (int j = i; j > 0 && o[j - 1] > o[j]; j--) {
            double x = o[j];
            o[j] = o[j - 1];
            o[j - 1] = x;
        }
}

static void test_prr_closed_form_matches_schedule(void **state) {
    (void)state;
    static sim s;
    for (int trial = 0; trial < 300; trial++) {
        int P = 2 + irand(SIM_MAXP - 1), k[SIM_MAXP];
        double o[SIM_MAXP], F[SIM_MAXP];
        double co = 0.2 + urand(), cr = co + (trial % 3 ? urand() : 0);
        sorted_offsets(P, o);
        if (trial % 2) {
            papc_prr_published_presteps(P, o, cr * (0.5 + urand()), k);
        } else {
            k[P - 1] = 0;
            for (int i = P - 2; i >= 0; i--) k[i] = k[i + 1] + irand(2);
        }
        assert_true(papc_prr_k_valid(P, k));
        s.P = P;
        for (int p = 0; p < P; p++) {
            s.n[p] = papc_prr_schedule(P, k, p, s.st[p]);
            s.pc[p] = 0;
            s.t[p] = o[p];
        }
        sim_run(&s, cr, co, 1);
        papc_prr_model_exits(P, o, k, cr, co, F);
        for (int p = 0; p < P; p++)
            if (fabs(F[p] - s.t[p]) > 1e-9) {
                print_error("PRR P=%d trial %d position %d: closed form %.6f,"
                            " schedule %.6f\n", P, trial, p, F[p], s.t[p]);
                fail();
            }
    }
}

/* The published rule as the code computes it (papc_prr_presteps). */
static void test_prr_published_rule(void **state) {
    (void)state;
    for (int trial = 0; trial < 200; trial++) {
        int P = 1 + irand(SIM_MAXP), k[SIM_MAXP], want[SIM_MAXP];
        double o[SIM_MAXP], tau = 0.1 + 3 * urand();
        sorted_offsets(P, o);
        papc_prr_published_presteps(P, o, tau, k);
        papc_prr_presteps(P, o, tau, want);
        for (int i = 0; i < P; i++) assert_int_equal(k[i], want[i]);
    }
}

static void test_slt_closed_form_matches_schedule(void **state) {
    (void)state;
    static sim s;
    for (int trial = 0; trial < 300; trial++) {
        int P = 2 + irand(SIM_MAXP - 1);
        int S = 1 + irand(SIM_MAXS - 1);
        double o[SIM_MAXP], F[SIM_MAXP];
        double co = 0.2 + urand(), cr = co + (trial % 3 ? urand() : 0);
        sorted_offsets(P, o);
        s.P = P;
        for (int p = 0; p < P; p++) {
            s.n[p] = papc_slt_schedule(P, S, p, s.st[p]);
            s.pc[p] = 0;
            s.t[p] = o[p];
        }
        sim_run(&s, cr, co, 0);
        papc_slt_model_exits(P, S, o, cr, co, F);
        for (int p = 0; p < P; p++)
            if (fabs(F[p] - s.t[p]) > 1e-9) {
                print_error("SLT P=%d S=%d position %d: closed form %.6f, "
                            "schedule %.6f\n", P, S, p, F[p], s.t[p]);
                fail();
            }
    }
}

/* Clairvoyant's length against the rounds of papc_clv_fast: within 3
 * rounds or 15 % per case (the generator counts whole rounds, so arrivals
 * spread over a few rounds cost it up to two more than the continuous
 * formula) and 5 % on average. */
static void test_clairvoyant_length_matches_generator(void **state) {
    (void)state;
    double sum = 0;
    int n = 0;
    for (int trial = 0; trial < 200; trial++) {
        int P = 2 + irand(47), N = 1 + irand(32), root = irand(P);
        double a[64], s[64];
        int kind = trial % 4;
        for (int i = 0; i < P; i++)
            a[i] = kind == 0 ? 0
                 : kind == 1 ? 0
                 : kind == 2 ? urand() * 2 * (N + 10)
                             : urand() * 3;
        if (kind == 1) a[irand(P)] = 30 + irand(100);
        papc_clv_schedule sc;
        assert_int_equal(papc_clv_fast(a, P, N, root, 1.0, &sc), 0);
        for (int i = 0; i < P; i++) s[i] = a[i];
        for (int i = 1; i < P; i++)
            for (int j = i; j > 0 && s[j - 1] > s[j]; j--) {
                double x = s[j];
                s[j] = s[j - 1];
                s[j - 1] = x;
            }
        double lo = s[0];
        for (int i = 0; i < P; i++) s[i] -= lo;
        double f = papc_clv_model_length(P, N, s, 1.0);
        double rel = (f - sc.rounds) / sc.rounds;
        if (fabs(f - sc.rounds) > 3 && fabs(rel) > 0.15) {
            print_error("Clairvoyant P=%d N=%d: model %.2f rounds, schedule "
                        "%d\n", P, N, f, sc.rounds);
            fail();
        }
        sum += fabs(rel);
        n++;
        papc_clv_free(&sc);
    }
    assert_true(sum / n < 0.05);
}

/* ---- the ideal bound ------------------------------------------------------
 * The model scales its structure to t0 (λ = t0 / R0, R0 the structure's
 * balanced run time at the row's α, β).  Where a row's balanced model
 * predicts less than its own code needs under Hockney (R0 > t0), λ < 1
 * shrinks every message below α + bβ and no bound can hold.  One row
 * does: SLT's balanced model (sorted_linear_tree.c) leaves out that a
 * process forwards the results only after its own reduce loop
 * (papc_slt_schedule), about S·(α + sβ) more, so for SLT the bound is
 * checked with t0 raised to R0; every other row with its own t0. */

static int is_tree(papc_collective coll, const char *name) {
    return (coll == PAPC_GATHER || coll == PAPC_SCATTER) &&
           strstr(name, "binomial") != NULL;
}

static void test_never_below_ideal(void **state) {
    (void)state;
    static const int Ps[] = {2, 3, 4, 5, 7, 8, 13, 16, 33, 64};
    static const double ms[] = {1024, 65536, 1048576, 8388608};
    const double al = 50e-6, be = 1 / 117e6, g = 2.5e-10;
    for (size_t ci = 0; ci < COUNT(colls); ci++)
        for (int i = 0; i < papc_registry_count(colls[ci]); i++) {
            const papc_alg_desc *a = papc_registry_row(colls[ci], i);
            for (size_t pi = 0; pi < COUNT(Ps); pi++)
                for (size_t mi = 0; mi < COUNT(ms); mi++)
                    for (int kind = 0; kind < 4; kind++) {
                        int P = Ps[pi], root = colls[ci] == PAPC_ALLREDUCE
                                                   ? 0 : irand(P);
                        double o[MAXP], F[MAXP], tmp[MAXP], m = ms[mi];
                        offsets(kind, P, root, 0.05, o);
                        papc_arrival_case c = make_case(
                            colls[ci], a->info.name, P, root, m, o,
                            row_t0(a, P, m, al, be, g), al, be, g, kind & 1);
                        /* SLT: t0 at least what its schedule takes under
                         * Hockney with these α, β (see above) */
                        double R0 = papc_arrival_model_structure(&c);
                        assert_true(R0 > 0);
                        if (!strcmp(c.name, "sorted_linear_tree") &&
                            R0 > c.t0) {
                            if (m == 8388608 && kind == 0 && P == 8)
                                print_message("SLT P=8 8 MiB: balanced model "
                                              "%.4g s, its schedule %.4g s\n",
                                              c.t0, R0);
                            c.t0 = R0;
                        }
                        assert_int_equal(papc_arrival_model_exits(&c, F), 0);
                        double fin = F[0], cb = al + m * be, ideal;
                        for (int r = 0; r < P; r++) {
                            fin = F[r] > fin ? F[r] : fin;
                            if (!(F[r] >= o[r])) /* nobody exits early */
                                print_error("%s P=%d m=%g kind %d rank %d: "
                                            "%g < %g\n", c.name, P, m, kind,
                                            r, F[r], o[r]);
                            assert_true(F[r] >= o[r] - 1e-12);
                        }
                        switch (colls[ci]) {
                        case PAPC_GATHER:
                            ideal = bench_ideal_gather(P, root, o, cb, tmp);
                            break;
                        case PAPC_SCATTER:
                            ideal = bench_ideal_scatter(P, root, o, cb);
                            break;
                        case PAPC_REDUCE:
                            ideal = bench_ideal_reduce(P, root, o, cb);
                            break;
                        default:
                            ideal = bench_ideal_allreduce(P, o, cb);
                        }
                        /* bench_ideal.h ignores the start-ups a tree saves
                         * by merging blocks: up to P - 2 at the root. */
                        double slack = is_tree(colls[ci], a->info.name)
                                           ? (P - 2) * al : 0;
                        if (fin < ideal - slack - 1e-12) {
                            print_error("%s %s P=%d m=%.0f kind %d: finish "
                                        "%.6g below the ideal %.6g\n",
                                        c.collective, c.name, P, m, kind, fin,
                                        ideal);
                            fail();
                        }
                    }
        }
}

/* ---- monotonicity ------------------------------------------------------- */

/* Rows whose structure does not depend on the arrivals: every exit is a
 * max-plus expression of the offsets, non-decreasing in each. */
static int fixed_structure(papc_collective coll, const char *name) {
    static const char *const fixed[][2] = {
        {"gather", "basic_linear"},     {"gather", "linear_sync"},
        /* not the linear scatters: a later receiver leaves the others
         * more of the root's link (fair_share) */
        {"scatter", "binomial"},
        {"reduce", "basic_linear"},     {"reduce", "binomial"},
        {"reduce", "rabenseifner"},     {"reduce", "ring"},
        {"reduce", "radix_k"},          {"allreduce", "basic_linear"},
        {"allreduce", "recursive_doubling"}, {"allreduce", "ring"},
        {"allreduce", "segmented_ring"}, {"allreduce", "rabenseifner"},
        /* not Clairvoyant: its schedule is generated for the offsets */
    };
    for (size_t i = 0; i < COUNT(fixed); i++)
        if (!strcmp(fixed[i][0], coll_name(coll)) && !strcmp(fixed[i][1], name))
            return 1;
    return 0;
}

/* Rows that re-place ranks by their arrivals (SBN's trees, SLT's chain,
 * PRR's pre-steps): a later rank may land where it exits sooner. */
/* Rows whose structure follows the offsets: a later rank may be placed
 * where it waits less.  Clairvoyant is priced by the schedule generated
 * for the offsets (arrival_model.c, clv_dataflow), as it runs. */
static int places_by_arrival(const char *name) {
    return strstr(name, "sorted_binomial") || !strncmp(name, "clairvoyant", 11) ||
           !strcmp(name, "sorted_linear_tree") ||
           !strncmp(name, "pre_reduced_ring", 16);
}

static void test_monotone(void **state) {
    (void)state;
    static const int Ps[] = {2, 3, 4, 5, 8, 13, 16, 33};
    const double al = 50e-6, be = 1 / 117e6, g = 2.5e-10;
    for (size_t ci = 0; ci < COUNT(colls); ci++)
        for (int i = 0; i < papc_registry_count(colls[ci]); i++) {
            const papc_alg_desc *a = papc_registry_row(colls[ci], i);
            const char *name = a->info.name;
            for (size_t pi = 0; pi < COUNT(Ps); pi++)
                for (int t = 0; t < 24; t++) {
                    int P = Ps[pi], x = irand(P), bg = t & 1;
                    int root = colls[ci] == PAPC_ALLREDUCE ? 0 : irand(P);
                    double m = t % 3 ? 1048576 : 65536;
                    double o[MAXP], o2[MAXP], F[MAXP], F2[MAXP];
                    offsets(t % 4 == 3 ? 2 : t % 4, P, root, 0.02, o);
                    memcpy(o2, o, sizeof o);
                    o2[x] += 0.03 * urand();
                    int zero = 0; /* keep the earliest at 0 */
                    for (int r = 0; r < P; r++) zero += o2[r] == 0;
                    if (!zero) continue;
                    double t0 = row_t0(a, P, m, al, be, g);
                    papc_arrival_case c = make_case(colls[ci], name, P, root,
                                                    m, o, t0, al, be, g, bg);
                    assert_int_equal(papc_arrival_model_exits(&c, F), 0);
                    c.offset = o2;
                    assert_int_equal(papc_arrival_model_exits(&c, F2), 0);
                    double f1 = F[0], f2 = F2[0];
                    for (int r = 1; r < P; r++) {
                        f1 = F[r] > f1 ? F[r] : f1;
                        f2 = F2[r] > f2 ? F2[r] : f2;
                    }
                    /* PRR's published rule gives fewer pre-steps when a
                     * middle rank is later, which can shorten the run:
                     * its closed form is monotone for a fixed k (the
                     * schedule test), the rule is what it is.
                     * Clairvoyant's price is the schedule generated for
                     * the offsets, as it runs: the greedy generator may
                     * pair better around a later rank (5.5 % at P = 33),
                     * which the ideal bound above still holds. */
                    if (strcmp(name, "pre_reduced_ring_published") != 0 &&
                        strncmp(name, "clairvoyant", 11) != 0 &&
                        f2 < f1 - 1e-12) {
                        print_error("%s %s P=%d: later rank %d lowers the "
                                    "run time %.9g -> %.9g\n", c.collective,
                                    name, P, x, f1, f2);
                        fail();
                    }
                    /* A linear scatter's blocks share the root's link:
                     * rank x later, those started before it finish
                     * sooner and leave x more of it (P = 13: x = 8 from
                     * 4 to 4.75 ms exits 12.011 -> 11.996, the event
                     * simulation of docs/data/sweep24-fair-share). */
                    int shares = colls[ci] == PAPC_SCATTER &&
                                 strstr(name, "linear") != NULL;
                    if (!places_by_arrival(name) && !shares &&
                        F2[x] < F[x] - 1e-12) {
                        print_error("%s %s P=%d: rank %d later exits "
                                    "sooner\n", c.collective, name, P, x);
                        fail();
                    }
                    if (fixed_structure(colls[ci], name))
                        for (int r = 0; r < P; r++)
                            if (F2[r] < F[r] - 1e-12) {
                                print_error("%s %s P=%d: rank %d later, "
                                            "rank %d exits sooner\n",
                                            c.collective, name, P, x, r);
                                fail();
                            }
                }
        }
}

/* ---- the papers' claims ----------------------------------------------------
 * P = 8, 1 Gbit/s-like α = 50 µs, β = 1/117e6 s/B; one rank D = 1 s late
 * (D >> t0: t0 is 1-600 ms here). */

static double claim(papc_collective coll, const char *name, int P, double m,
                    const double *o, int bg) {
    const papc_alg_desc *a = papc_registry_find(coll, name);
    assert_non_null(a);
    double t0 = row_t0(a, P, m, 50e-6, 1 / 117e6, 2.5e-10);
    papc_arrival_case c = make_case(coll, name, P, 0, m, o, t0, 50e-6,
                                    1 / 117e6, 2.5e-10, bg);
    double e = papc_arrival_model_mean(&c);
    assert_true(e > 0);
    return e;
}

static void expect_below(papc_collective coll, const char *aware,
                         const char *classic, int P, double m, const double *o,
                         int bg) {
    double x = claim(coll, aware, P, m, o, bg), y = claim(coll, classic, P, m,
                                                          o, bg);
    if (!(x < y)) {
        print_error("%s: %s (%.4g s) not below %s (%.4g s)\n", coll_name(coll),
                    aware, x, classic, y);
        fail();
    }
}

static void test_papers_claims(void **state) {
    (void)state;
    enum { P = 8 };
    double one[P] = {0}, half[P] = {0}, last[P] = {0}, zero[P] = {0};
    one[1] = 1.0;   /* the papers' "id: 1" */
    half[P / 2] = 1.0; /* the binomial trees' biggest relay */
    last[P - 1] = 1.0;
    double blk = 1048576;
    /* gather (eqs. 17-18, 21-22): the sorted rows serve the late rank last */
    expect_below(PAPC_GATHER, "sorted_linear_sync", "linear_sync", P, blk,
                 one, 0);
    expect_below(PAPC_GATHER, "sorted_linear_sync", "basic_linear", P, blk,
                 one, 0);
    expect_below(PAPC_GATHER, "background_sorted_linear_sync", "linear_sync", P,
                 blk, one, 1);
    expect_below(PAPC_GATHER, "sorted_binomial", "binomial", P, blk, half, 0);
    expect_below(PAPC_GATHER, "background_sorted_binomial", "binomial", P, blk,
                 half, 1);
    /* scatter (eqs. 9-11, 13-15) */
    expect_below(PAPC_SCATTER, "sorted_linear", "basic_linear", P, blk, one, 0);
    expect_below(PAPC_SCATTER, "background_sorted_linear", "basic_linear", P,
                 blk, one, 1);
    expect_below(PAPC_SCATTER, "sorted_binomial", "binomial", P, blk, half, 0);
    expect_below(PAPC_SCATTER, "background_sorted_binomial", "binomial", P, blk,
                 half, 1);
    /* allreduce (Sect. 4): SLT lets the late process join the chain's end */
    double vec = 8388608;
    expect_below(PAPC_ALLREDUCE, "sorted_linear_tree", "ring", P, vec, one, 0);
    expect_below(PAPC_ALLREDUCE, "sorted_linear_tree", "ring", P, vec, last, 0);
    /* PRR as published: its pre-steps lengthen the chains behind the last
     * arriver, so it is not below the ring (issue 15's measurement). */
    assert_true(claim(PAPC_ALLREDUCE, "pre_reduced_ring", P, vec, one, 0) >=
                claim(PAPC_ALLREDUCE, "ring", P, vec, one, 0));
    /* reduce: Clairvoyant (clairvoyant-reduce.md Sect. 6) against the
     * classic ones */
    expect_below(PAPC_REDUCE, "clairvoyant", "ring", P, vec, one, 0);
    expect_below(PAPC_REDUCE, "clairvoyant", "binomial", P, vec, one, 0);
    expect_below(PAPC_REDUCE, "clairvoyant", "rabenseifner", P, vec, one, 0);
    /* nothing late: every row as balanced, so the classic choice stands */
    const char *rows[] = {"ring", "sorted_linear_tree", "pre_reduced_ring",
                          "clairvoyant"};
    for (size_t i = 0; i < COUNT(rows); i++) {
        const papc_alg_desc *a = papc_registry_find(PAPC_ALLREDUCE, rows[i]);
        assert_true(claim(PAPC_ALLREDUCE, rows[i], P, vec, zero, 0) ==
                    row_t0(a, P, vec, 50e-6, 1 / 117e6, 2.5e-10));
    }
}

/* ---- bad input, speed --------------------------------------------------- */

static void test_bad_input(void **state) {
    (void)state;
    double o[4] = {0, 0.01, 0, 0}, F[4];
    papc_arrival_case ok = make_case(PAPC_GATHER, "basic_linear", 4, 0, 1e6, o,
                                     0.01, 50e-6, 8.5e-9, 2.5e-10, 0);
    assert_true(papc_arrival_model_mean(&ok) > 0);
    assert_true(papc_arrival_model_mean(NULL) < 0);
    papc_arrival_case c = ok;
    c.name = "no_such_row";
    assert_true(papc_arrival_model_mean(&c) < 0);
    c = ok;
    c.collective = "bcast"; /* no arrival models for bcast */
    assert_true(papc_arrival_model_mean(&c) < 0);
    c = ok;
    c.P = 0;
    assert_true(papc_arrival_model_mean(&c) < 0);
    c = ok;
    c.root = 4;
    assert_true(papc_arrival_model_mean(&c) < 0);
    c = ok;
    c.t0 = 0;
    assert_true(papc_arrival_model_mean(&c) < 0);
    c = ok;
    c.t0 = NAN;
    assert_true(papc_arrival_model_mean(&c) < 0);
    c = ok;
    c.offset = NULL;
    assert_true(papc_arrival_model_mean(&c) < 0);
    double bad[4] = {0, -1e-3, 0, 0};
    c = ok;
    c.offset = bad;
    assert_true(papc_arrival_model_mean(&c) < 0);
    bad[1] = INFINITY;
    assert_true(papc_arrival_model_mean(&c) < 0);
    bad[1] = NAN;
    assert_true(papc_arrival_model_mean(&c) < 0);
    c = ok;
    c.beta = -1;
    assert_true(papc_arrival_model_mean(&c) < 0);
    assert_int_equal(papc_arrival_model_exits(&c, F), -1);
    assert_int_equal(papc_arrival_model_exits(&ok, NULL), -1);
    /* allreduce ignores the root */
    c = make_case(PAPC_ALLREDUCE, "ring", 4, 9, 1e6, o, 0.01, 50e-6, 8.5e-9,
                  2.5e-10, 0);
    assert_true(papc_arrival_model_mean(&c) > 0);
}

/* The selector calls about ten rows per decision at P up to thousands. */
static void test_fast_at_large_P(void **state) {
    (void)state;
    enum { P = 4096 };
    static double o[P];
    for (int r = 0; r < P; r++) o[r] = 0.05 * urand();
    o[0] = 0;
    int n = 0;
    clock_t t = clock();
    for (size_t ci = 0; ci < COUNT(colls); ci++)
        for (int i = 0; i < papc_registry_count(colls[ci]); i++) {
            const papc_alg_desc *a = papc_registry_row(colls[ci], i);
            papc_arrival_case c = make_case(colls[ci], a->info.name, P, 7,
                                            8388608, o, 0.1, 50e-6, 8.5e-9,
                                            2.5e-10, 1);
            assert_true(papc_arrival_model_mean(&c) > 0);
            n++;
        }
    double per = (double)(clock() - t) / CLOCKS_PER_SEC / n;
    print_message("P = %d: %.3f ms per row\n", P, per * 1e3);
    assert_true(per < 0.02);
}

/* What the rows cost when they ran (papc_learn_*): a row's residuals
 * average with the weight, robustly; rows without one take the others'
 * mean residual; a residual of another spread regime does not count; a
 * row without one is tried once the pick has one (or waits for one), only
 * within the exploration band above the wait, the cheapest such row
 * first. */
static void test_learning(void **state) {
    (void)state;
    papc_row_learning l[4];
    papc_learn_init(l, 4);
    const double S = 20e-3;   /* the views' spread */
    double price[4] = {10e-3, 10.5e-3, 13e-3, NAN}, q[4];
    /* Nothing learnt: prices unchanged, the pick has not run: no trial. */
    papc_learn_prices(l, 4, price, S, q);
    for (int i = 0; i < 3; i++) assert_true(q[i] == price[i]);
    assert_true(isnan(q[3]));
    assert_int_equal(papc_learn_explore(l, 4, q, 0, 0.2, 0, S, 1), 0);
    /* Row 0 ran at call 1: waiting for its residual, row 1 is tried. */
    l[0].ran_at = 1;
    assert_int_equal(papc_learn_explore(l, 4, q, 0, 0.2, 0, S, 2), 1);
    /* Row 0 cost 3 ms more than its model, then 7. */
    papc_learn_add(&l[0], 3e-3, 0.25, 10e-3, S);
    assert_int_equal(l[0].n, 1);
    assert_true(fabs(l[0].bias - 3e-3) < 1e-15);
    papc_learn_add(&l[0], 7e-3, 0.25, 10e-3, S);   /* 0.75*3 + 0.25*7 */
    assert_true(fabs(l[0].bias - 4e-3) < 1e-15);
    papc_learn_add(&l[0], NAN, 0.25, 10e-3, S);    /* ignored */
    assert_int_equal(l[0].n, 2);
    /* The common error goes to rows without their own. */
    papc_learn_prices(l, 4, price, S, q);
    assert_true(fabs(q[0] - 14e-3) < 1e-15);
    assert_true(fabs(q[1] - 14.5e-3) < 1e-15);
    assert_true(fabs(q[2] - 17e-3) < 1e-15);
    assert_true(isnan(q[3]));
    /* The pick has a residual: row 1 (within 20 %) before row 2. */
    assert_int_equal(papc_learn_explore(l, 4, q, 0, 0.2, 0, S, 10), 1);
    /* ... but not while row 1 waits for its own. */
    l[1].ran_at = 9;
    assert_int_equal(papc_learn_explore(l, 4, q, 0, 0.2, 0, S, 10), 0);
    papc_learn_add(&l[1], -2e-3, 0.25, 10.5e-3, S); /* cheaper than modelled */
    papc_learn_prices(l, 4, price, S, q);   /* own; row 2 the mean: 1 ms */
    assert_true(fabs(q[1] - 8.5e-3) < 1e-15);
    assert_true(fabs(q[2] - 14e-3) < 1e-15);
    /* Row 2 is 65 % above row 1, the best now: not tried at 20 %. */
    assert_int_equal(papc_learn_explore(l, 4, q, 1, 0.2, 0, S, 20), 1);
    assert_int_equal(papc_learn_explore(l, 4, q, 1, 0.7, 0, S, 20), 2);
    /* No exploration asked, bad input. */
    assert_int_equal(papc_learn_explore(l, 4, q, 1, 0, 0, S, 20), 1);
    assert_int_equal(papc_learn_explore(l, 4, q, -1, 0.2, 0, S, 20), -1);
    assert_int_equal(papc_learn_explore(NULL, 4, q, 1, 0.2, 0, S, 20), 1);

    /* Another regime (a 100 ms spread): no residual counts, prices are the
     * models', and the pick (row 1) must run before any trial. */
    papc_learn_prices(l, 4, price, 100e-3, q);
    for (int i = 0; i < 3; i++) assert_true(q[i] == price[i]);
    assert_int_equal(papc_learn_explore(l, 4, q, 1, 0.2, 0, 100e-3, 20), 1);
    assert_true(papc_learn_valid(&l[0], 35e-3));
    assert_false(papc_learn_valid(&l[0], 45e-3));
    assert_false(papc_learn_valid(&l[0], 9e-3));
    /* A residual there restarts the row's mean. */
    papc_learn_add(&l[0], 1e-3, 0.25, 10e-3, 100e-3);
    assert_int_equal(l[0].n, 1);
    assert_true(fabs(l[0].bias - 1e-3) < 1e-15);

    /* Robust: a 2 s stall among 0-ish residuals moves the mean by a
     * quarter of the clip, not by 500 ms; a first residual counts at most
     * the row's price. */
    papc_learn_init(l, 4);
    papc_learn_add(&l[0], 0.5e-3, 0.25, 130e-3, S);
    papc_learn_add(&l[0], -0.5e-3, 0.25, 130e-3, S);
    papc_learn_add(&l[0], 2.0, 0.25, 130e-3, S);
    assert_true(l[0].bias < 20e-3);
    papc_learn_add(&l[1], 2.0, 0.25, 130e-3, S);
    assert_true(fabs(l[1].bias - 130e-3) < 1e-15);

    /* Above the wait: with a 20 ms wait, 21 and 23 ms are 10 % apart in
     * all, but 3 ms is 200 % above 1 ms: tried only without the floor;
     * 21.1 ms is tried with it. */
    papc_learn_init(l, 4);
    l[0].ran_at = 1;
    double w[4] = {21e-3, 23e-3, NAN, NAN};
    assert_int_equal(papc_learn_explore(l, 4, w, 0, 0.2, 0, S, 2), 1);
    assert_int_equal(papc_learn_explore(l, 4, w, 0, 0.2, 20e-3, S, 2), 0);
    w[2] = 21.1e-3;
    assert_int_equal(papc_learn_explore(l, 4, w, 0, 0.2, 20e-3, S, 2), 2);
}

/* ---- Clairvoyant's plan: one function for the executor and the price ----
 * (issue 16, s10: papc_clv_round_plan, papc_arrival_planned_t0, the case's
 * plan_segments / plan_round) */

static int ceil_log2_int(long n) {
    int k = 0;
    while ((1L << k) < n) k++;
    return k;
}

/* The executor's arithmetic before it moved into papc_clv_round_plan
 * (src/coll/reduce/clairvoyant.c at main ea2d371: model_segments,
 * segment_elems, round_length, plan_round), kept here as the reference:
 * the executor must plan exactly as it did. */
static void old_executor_plan(const papc_clv_plan_in *in, int *N_out,
                              int *elems_out, double *d_out,
                              double *dplan_out) {
    int count = (int)in->count;
    double bytes = (double)count * in->elem;
    int N = in->segments >= 1 && in->segments <= 4096 ? (int)in->segments : 0;
    if (!N && !in->segsize_set) {
        double b = in->beta + in->gamma, al = in->alpha;
        double L = ceil_log2_int(in->P);
        N = 0;
        if (al > 0 && b > 0 && isfinite(al) && isfinite(b)) {
            double n = sqrt(L * bytes * b / al);
            if (isfinite(n)) {
                if (n < 1) n = 1;
                double eager = in->eager;
                if (eager > 0 && n < ceil(bytes / eager))
                    n = ceil(bytes / eager);
                if (n > 4096) n = 4096;
                N = (int)lround(n);
            }
        }
    }
    int elems = N ? count / N + (count % N != 0) : (int)in->seg_elems;
    if (elems < 1 || elems > count) elems = count;
    *elems_out = elems;
    *N_out = count / elems + (count % elems != 0);
    double d = in->alpha + (double)elems * in->elem * (in->beta + in->gamma);
    if (!isfinite(d) || d <= 0) d = 1e-6;
    *d_out = d;
    double slack = in->slack >= 1 && in->slack <= 64 ? in->slack : 1;
    *dplan_out = in->round > 0 ? in->round : d * slack;
}

static papc_clv_plan_in plan_in(int P, double count, double elem, double al,
                                double be, double g) {
    papc_clv_plan_in in = {P, count, elem, al, be, g, 64512, 0, 0, 0, 0, 1};
    return in;
}

static void test_clv_round_plan_hand(void **state) {
    (void)state;
    papc_clv_round r;
    /* P = 8 (L = 3), 1000 doubles: L m b / alpha = 3 * 8000 * 1e-9 /
     * 1.5e-6 = 16, N = 4 segments of 250 elements (2000 B), d = 1.5 us +
     * 2000 B * 1 ns/B = 3.5 us */
    papc_clv_plan_in in = plan_in(8, 1000, 8, 1.5e-6, 0.9e-9, 0.1e-9);
    assert_int_equal(papc_clv_round_plan(&in, &r), 0);
    assert_int_equal(r.N, 4);
    assert_true(r.elems == 250 && r.seg == 2000);
    assert_true(fabs(r.d - 3.5e-6) < 1e-18 && r.d_plan == r.d);
    /* the eager limit: no segment above 1000 B, N = 8, d = 2.5 us */
    in.eager = 1000;
    assert_int_equal(papc_clv_round_plan(&in, &r), 0);
    assert_true(r.N == 8 && r.elems == 125 && fabs(r.d - 2.5e-6) < 1e-18);
    in.eager = 64512;
    /* PAPC_CLV_SEGMENTS = 3: ceil(1000 / 3) = 334 elements, 3 segments */
    in.segments = 3;
    assert_int_equal(papc_clv_round_plan(&in, &r), 0);
    assert_true(r.N == 3 && r.elems == 334 && r.seg == 2672);
    /* above 4096: ignored */
    in.segments = 5000;
    assert_int_equal(papc_clv_round_plan(&in, &r), 0);
    assert_int_equal(r.N, 4);
    in.segments = 0;
    /* PAPC_SEGSIZE set: the call's segments, 300 elements -> 4 */
    in.segsize_set = 1;
    in.seg_elems = 300;
    assert_int_equal(papc_clv_round_plan(&in, &r), 0);
    assert_true(r.N == 4 && r.elems == 300);
    in.segsize_set = 0;
    /* unusable terms: the call's segments too, and a 1 us round */
    papc_clv_plan_in bad = in;
    bad.alpha = 0;
    bad.beta = bad.gamma = 0;
    bad.seg_elems = 128;
    assert_int_equal(papc_clv_round_plan(&bad, &r), 0);
    assert_true(r.N == 8 && r.elems == 128 && r.d == 1e-6);
    /* PAPC_CLV_ROUND replaces the planned round only; slack 2 doubles it;
     * slack 100 is out of range (1) */
    in.round = 1e-4;
    assert_int_equal(papc_clv_round_plan(&in, &r), 0);
    assert_true(r.d_plan == 1e-4 && fabs(r.d - 3.5e-6) < 1e-18);
    in.round = 0;
    in.slack = 2;
    assert_int_equal(papc_clv_round_plan(&in, &r), 0);
    assert_true(r.d_plan == 2 * r.d);
    in.slack = 100;
    assert_int_equal(papc_clv_round_plan(&in, &r), 0);
    assert_true(r.d_plan == r.d);
    in.slack = 1;
    /* a tiny vector: at most one element a segment, N = count */
    papc_clv_plan_in tiny = plan_in(512, 3, 4, 1e-9, 1e-6, 0);
    assert_int_equal(papc_clv_round_plan(&tiny, &r), 0);
    assert_true(r.N == 3 && r.elems == 1);
    /* at most 4096 segments */
    papc_clv_plan_in big = plan_in(4096, 1 << 26, 4, 1e-9, 1e-6, 0);
    big.eager = 0;
    assert_int_equal(papc_clv_round_plan(&big, &r), 0);
    assert_int_equal(r.N, 4096);
    /* bad input */
    assert_int_equal(papc_clv_round_plan(NULL, &r), -1);
    assert_int_equal(papc_clv_round_plan(&in, NULL), -1);
    papc_clv_plan_in z = in;
    z.count = 0;
    assert_int_equal(papc_clv_round_plan(&z, &r), -1);
    assert_int_equal(r.N, 0);
    z = in;
    z.P = 0;
    assert_int_equal(papc_clv_round_plan(&z, &r), -1);
    z = in;
    z.elem = -1;
    assert_int_equal(papc_clv_round_plan(&z, &r), -1);
    /* a zero-size type (a no-op call; the executor's old arithmetic):
     * one segment, the round alpha */
    z.elem = 0;
    assert_int_equal(papc_clv_round_plan(&z, &r), 0);
    assert_true(r.N == 1 && r.elems == 1000 && r.d == 1.5e-6);
}

/* One node and two nodes (the monitor's fit, monitor.c): on one node the
 * busy terms are the quiet ones' size, across nodes at P = 512 on
 * fattree4096 they were 5.09 us and 13.4 ns/B.  Here P = 32 (two nodes of
 * 16), 128 Ki floats:
 *   one node  (1.5 us, 0.2 ns/B): sqrt(5 * 524288 * 2e-10 / 1.5e-6) =
 *     18.7 -> 19 segments of 6899 floats (27,596 B), d = 1.5 us + 27,596
 *     * 0.2 ns = 7.0192 us;
 *   two nodes (5 us, 13 ns/B): sqrt(5 * 524288 * 1.3e-8 / 5e-6) = 82.6
 *     -> 83 segments of 1580 floats (6,320 B), d = 5 us + 6,320 * 13 ns =
 *     87.16 us.
 * Priced with one rank late by D = 50 ms (root 0, t0 the row's balanced
 * model under the quiet terms): the root ends at D + N d, a non-root
 * N d after its arrival, so with t0 replaced by the plan's (N + L - 1) d
 * the price is (N + L - 1) d + (D - (L - 1) d) / P. */
static void test_clv_plan_prices(void **state) {
    (void)state;
    const papc_alg_desc *a = papc_registry_find(PAPC_REDUCE, "clairvoyant");
    assert_non_null(a);
    const int P = 32, L = 5;
    const double m = 524288, D = 50 * MS;
    const double nodes[2][2] = {{1.5e-6, 2e-10}, {5e-6, 1.3e-8}};
    const int expect_N[2] = {19, 83};
    const double expect_d[2] = {7.0192e-6, 87.16e-6};
    double o[32] = {0};
    o[5] = D;
    double price[2];
    for (int k = 0; k < 2; k++) {
        papc_clv_plan_in in = plan_in(P, m / 4, 4, nodes[k][0], nodes[k][1],
                                      0);
        papc_clv_round r;
        assert_int_equal(papc_clv_round_plan(&in, &r), 0);
        assert_int_equal(r.N, expect_N[k]);
        assert_true(fabs(r.d - expect_d[k]) < 1e-15);
        /* the row's t0 under the quiet terms (the model's default N) */
        double t0 = row_t0(a, P, m, 1.5e-6, 2e-10, 0);
        papc_arrival_case c = make_case(PAPC_REDUCE, "clairvoyant", P, 0, m,
                                        o, t0, 1.5e-6, 2e-10, 0, 1);
        double before = papc_arrival_model_mean(&c);
        c.plan_segments = r.N;
        c.plan_round = r.d_plan;
        double t0p = papc_arrival_planned_t0(&c);
        papc_arrival_case m0 = c;
        m0.plan_segments = m0.plan_round = 0;
        double r_model = papc_arrival_model_structure(&m0);
        double r_plan = papc_arrival_model_structure(&c);
        assert_true(fabs(r_plan - (r.N + L - 1) * r.d) < 1e-12);
        assert_true(fabs(t0p - (t0 - r_model + r_plan)) < 1e-15);
        c.t0 = t0p;
        price[k] = papc_arrival_model_mean(&c);
        /* lambda = t0p / r_plan scales the plan's rounds; the agreement
         * t0 counts is a few us here */
        double lam = t0p / r_plan;
        double expect = lam * ((r.N + L - 1) * r.d - (L - 1) * r.d / P) +
                        D / P + (t0p - lam * r_plan);
        assert_true(fabs(price[k] - expect) < 1e-9);
        /* before the fix the price was the model's 47 rounds of 3.7 us
         * whatever the network: far below the plan across nodes */
        if (k == 1) assert_true(before < price[k] / 3);
    }
    /* two nodes cost more than one: the plan sees the network (above the
     * late rank's share D / P of the wait: 0.16 ms against 7.57 ms) */
    assert_true(price[1] - D / P > 20 * (price[0] - D / P));
}

/* A hand case: P = 4, root 0, a plan of N = 10 rounds of 1 ms, t0 = the
 * model's rounds exactly (so the planned t0 is the plan's (N + L - 1) d =
 * 11 ms and lambda = 1); rank 3 late by 20 ms.  Sorted arrivals 0, 0, 0,
 * 20 ms: the root ends at max(0 + 11, 20 + (10 + 1 - 1)) = 30 ms, the
 * non-roots 10 ms after their arrivals: ē_s = (30 + 3 * 10) / 4 = 15 ms,
 * balanced (11 + 3 * 10) / 4 = 10.25 ms, so ē = 11 + 15 - 10.25 = 15.75 ms.
 * Rows without a plan, or a case without one, keep their t0. */
static void test_planned_t0(void **state) {
    (void)state;
    double o[4] = {0, 0, 0, 20 * MS}, zero[4] = {0};
    papc_arrival_case c = make_case(PAPC_REDUCE, "clairvoyant", 4, 0, 1e6,
                                    zero, 1, 2e-6, 1e-9, 0, 1);
    c.t0 = papc_arrival_model_structure(&c);
    c.plan_segments = 10;
    c.plan_round = 1 * MS;
    double t0p = papc_arrival_planned_t0(&c);
    assert_true(fabs(t0p - 11 * MS) < 1e-15);
    c.t0 = t0p;
    assert_true(fabs(papc_arrival_model_mean(&c) - t0p) < 1e-15);
    c.offset = o;
    assert_true(fabs(papc_arrival_model_mean(&c) - 15.75 * MS) < 1e-12);
    /* the allreduce row takes the plan for its reduce part */
    papc_arrival_case ar = make_case(PAPC_ALLREDUCE, "clairvoyant", 4, 0, 1e6,
                                     zero, 1, 2e-6, 1e-9, 0, 1);
    double r_model = papc_arrival_model_structure(&ar);
    ar.plan_segments = 10;
    ar.plan_round = 1 * MS;
    double r_plan = papc_arrival_model_structure(&ar);
    assert_true(fabs(papc_arrival_planned_t0(&ar) - (1 - r_model + r_plan)) <
                1e-12);
    /* which rows take a plan */
    assert_int_equal(papc_arrival_row_planned("reduce", "clairvoyant"), 1);
    assert_int_equal(papc_arrival_row_planned("allreduce", "clv"), 1);
    assert_int_equal(papc_arrival_row_planned("reduce", "binomial"), 0);
    assert_int_equal(papc_arrival_row_planned("allreduce", "ring"), 0);
    assert_int_equal(papc_arrival_row_planned("reduce", "nonesuch"), 0);
    assert_int_equal(papc_arrival_row_planned(NULL, "clairvoyant"), 0);
    /* no plan: t0 */
    papc_arrival_case b = make_case(PAPC_REDUCE, "binomial", 4, 0, 1e6, o,
                                    3e-3, 2e-6, 1e-9, 0, 1);
    b.plan_segments = 10;
    b.plan_round = 1 * MS;
    assert_true(papc_arrival_planned_t0(&b) == 3e-3);
    c.plan_segments = 0;
    assert_true(papc_arrival_planned_t0(&c) == c.t0);
    /* a bad plan is a bad case */
    c.plan_segments = -1;
    assert_true(papc_arrival_planned_t0(&c) < 0);
    assert_true(papc_arrival_model_mean(&c) < 0);
    c.plan_segments = 10;
    c.plan_round = NAN;
    assert_true(papc_arrival_planned_t0(&c) < 0);
}

/* The executor plans exactly as before the move (random inputs against
 * the old arithmetic). */
static void test_clv_round_plan_matches_old_executor(void **state) {
    (void)state;
    static const double eagers[] = {0, 4096, 64512, 65536};
    for (int t = 0; t < 20000; t++) {
        papc_clv_plan_in in;
        memset(&in, 0, sizeof in);
        in.P = 1 + irand(5000);
        in.count = 1 + irand(1 << (1 + irand(24)));
        in.elem = (double)(1 << irand(5));
        in.alpha = irand(10) == 0 ? 0 : 1e-7 * pow(1000, urand());
        in.beta = 1e-11 * pow(1e4, urand());
        in.gamma = irand(3) == 0 ? 0 : 1e-12 * pow(1e3, urand());
        in.eager = eagers[irand(4)];
        in.segments = irand(4) == 0 ? 1 + irand(5000) : 0;
        in.segsize_set = irand(5) == 0;
        in.seg_elems = 1 + irand((int)in.count * 2);
        in.round = irand(5) == 0 ? 1e-4 : 0;
        in.slack = irand(4) == 0 ? 1 + irand(100) : 1;
        papc_clv_round r;
        int N, elems;
        double d, dp;
        assert_int_equal(papc_clv_round_plan(&in, &r), 0);
        old_executor_plan(&in, &N, &elems, &d, &dp);
        if (r.N != N || r.elems != elems || r.d != d || r.d_plan != dp) {
            print_error("P=%d count=%g elem=%g: N %d/%d elems %g/%d d %g/%g "
                        "plan %g/%g\n", in.P, in.count, in.elem, r.N, N,
                        r.elems, elems, r.d, d, r.d_plan, dp);
            fail();
        }
        assert_true(r.seg == r.elems * in.elem);
    }
}

/* ---- eager messages ---------------------------------------------------------
 * The hand cases' units (α = 0, c = 1 ms a 1e6-B block or vector, g = 0.5
 * ms), with an eager limit.  want_ms under the limit, rdv_ms with every
 * message by rendezvous (eager 0: the cases of hand_cases where they
 * are the same).  P4A: rank 1 late; P4C: rank 2 late, the parent of leaf
 * 3 in the trees; P4R: the root late; P5R: Rabenseifner's fold partner
 * (rank 0; rank 4 folds into it) late. */

typedef struct eager_case {
    papc_collective coll;
    const char *name;
    int P;
    const double *o_ms;
    double m, beta, gamma_op, segsize, eager;
    double t0_ms, want_ms, rdv_ms;
} eager_case;

static const double P5R[] = {10, 0, 0, 0, 0};

static const eager_case eager_cases[] = {
    /* reduce binomial, 2 segments of 5e5 B (h0 = 1, h2 = 0.75, leaves
     * 0.5): a child leaves at T_u, not at T_parent - h_parent.  F(0) =
     * 2.75, 1, 1.75, 1 (1.625; rendezvous 1.8125).  P4A: T1 = 11, T0 =
     * 12: F = 12, 11, 1.75, 1: 3.9375 -> 2.75 + 2.3125.  P4C (the relay
     * late): leaf 3 leaves at 1 where it waited for 2 until 10.75: T2 =
     * 11.5, T0 = 12.5: F = 12.5, 1, 11.5, 1: 4 -> 5.125 (rendezvous 10).
     * P4R: F = 12, 1, 1.75, 1: 1.4375 -> 2.5625 (rendezvous 7.1875). */
    {PAPC_REDUCE, "binomial", 4, P4A, 1e6, 1e-9, 0.5e-9, 5e5, 5e5, 2.75,
     5.0625, 7.1875},
    {PAPC_REDUCE, "binomial", 4, P4C, 1e6, 1e-9, 0.5e-9, 5e5, 65536 * 8,
     2.75, 5.125, 10},
    {PAPC_REDUCE, "binomial", 4, P4R, 1e6, 1e-9, 0.5e-9, 5e5, 5e5, 2.75,
     2.5625, 7.1875},
    /* a limit just under the segment: rendezvous */
    {PAPC_REDUCE, "binomial", 4, P4C, 1e6, 1e-9, 0.5e-9, 5e5, 5e5 - 1, 2.75,
     10, 10},
    /* P = 8 (tree 0 <- 1, 2, 4; 2 <- 3; 4 <- 5, 6; 6 <- 7; h0 = 1.25, h4
     * = 1, h2 = h6 = 0.75, leaves 0.5): T = 10, 4.5, 8.75, 8, 6.75, 1,
     * 5.75, 5 = F; F(0) = 4, 1, 1.75, 1, 2.75, 1, 1.75, 1 (1.78125):
     * 3.90625 -> 4 + 2.125. */
    {PAPC_REDUCE, "binomial", 8, P8, 1e6, 1e-9, 0.5e-9, 5e5, 65536 * 8, 4,
     6.125, 7.0625},
    /* gather binomial (0 <- 1, 2; 2 <- 3; span(2) = 2): eager 1e6 takes
     * the one-block messages, 2e6 all.  P4C: 3 -> 2 lands at 1 (F3 = 1),
     * root takes 1 at 1, 2's two blocks at 12: F = 12, 1, 12, 1: 4 -> 3 +
     * 4 - 2 = 5 (rendezvous 8, leaf 3 held until 11).  P4R: all eager: the
     * root finds everything there, F = 10, 1, 3, 1: 1.25 -> 2.25 (BSBN's
     * answer); eager 1e6: 2's two blocks wait for the root, F = 12, 1, 12,
     * 1 -> 5. */
    {PAPC_GATHER, "binomial", 4, P4C, 1e6, 1e-9, 0, 0, 1e6, 3, 5, 8},
    {PAPC_GATHER, "binomial", 4, P4C, 1e6, 1e-9, 0, 0, 2e6, 3, 5, 8},
    {PAPC_GATHER, "binomial", 4, P4R, 1e6, 1e-9, 0, 0, 2e6, 3, 2.25, 8},
    {PAPC_GATHER, "binomial", 4, P4R, 1e6, 1e-9, 0, 0, 1e6, 3, 5, 8},
    /* gather basic_linear: the senders leave at o + 1, the root as before
     * (13): F = 13, 11, 1, 1: 4; F(0) = 3, 1, 1, 1 (1.5): 3 + 2.5 = 5.5.
     * linear_sync waits for its GO: unchanged. */
    {PAPC_GATHER, "basic_linear", 4, P4A, 1e6, 1e-9, 0, 0, 1e6, 3, 5.5,
     10.5},
    {PAPC_GATHER, "linear_sync", 4, P4A, 1e6, 1e-9, 0, 0, 1e6, 3, 10.5,
     10.5},
    {PAPC_GATHER, "sorted_linear_sync", 4, P4A, 1e6, 1e-9, 0, 0, 1e6, 3,
     4.5, 4.5},
    /* scatter linear: the root pushes its blocks without waiting, all
     * three in flight from 0 whatever the order, done at 3; 1 takes its
     * block at 10, the root leaves at 0: F = 0, 10, 3, 3: 1.5 -> 2.25
     * (BSLN's answer). */
    {PAPC_SCATTER, "basic_linear", 4, P4A, 1e6, 1e-9, 0, 0, 1e6, 3, 2.25,
     10.5},
    {PAPC_SCATTER, "linear_nb", 4, P4A, 1e6, 1e-9, 0, 0, 1e6, 3, 2.25, 4.5},
    {PAPC_SCATTER, "sorted_linear", 4, P4A, 1e6, 1e-9, 0, 0, 1e6, 3, 2.25,
     4.5},
    /* scatter binomial, the relay 2 late (root sends 2 its two blocks,
     * then 1; 2 sends 3): all eager: G2 = 2, G1 = 3, 2 forwards at 10: F
     * = 3, 3, 11, 11: 4.5 -> 4.5 (rendezvous 10.5).  eager 1e6: the root's
     * two-block message waits for 2 (12), then 1 at 13: F = 13, 13, 13,
     * 13: 10.5. */
    {PAPC_SCATTER, "binomial", 4, P4C, 1e6, 1e-9, 0, 0, 2e6, 3, 4.5, 10.5},
    {PAPC_SCATTER, "binomial", 4, P4C, 1e6, 1e-9, 0, 0, 1e6, 3, 10.5, 10.5},
    /* reduce basic_linear: senders leave at o + 1, the root as before
     * (11.5): F = 11.5, 11, 1, 1: 3.625; F(0) = 4.5, 1, 1, 1 (1.875):
     * 4.5 + 1.75 = 6.25 -- above the rendezvous 5.5: there rank 1's
     * lateness shortened its own wait for its turn (4 at offsets 0). */
    {PAPC_REDUCE, "basic_linear", 4, P4A, 1e6, 1e-9, 0.5e-9, 0, 1e6, 4.5,
     6.25, 5.5},
    /* Rabenseifner P = 5, the fold partner (rank 0) late: rank 4 leaves
     * at 1 (rendezvous 11), rank 0 starts at 10.5: the survivors 12.375:
     * F - o = 2.375, 3 x 12.375, 1: 8.1 -> 3.375 + 8.1 - 2.9 = 8.575. */
    {PAPC_REDUCE, "rabenseifner", 5, P5R, 1e6, 1e-9, 0.5e-9, 0, 1e6, 3.375,
     8.575, 11.375},
    /* ring reduce with eager blocks (m/P = 2.5e5): a non-root leaves one
     * send after its reduce-scatter; every exit is the last arrival plus
     * a constant, so ē is as before: 1.875 + 10 - 2.5. */
    {PAPC_REDUCE, "ring", 4, P4A, 1e6, 1e-9, 0.5e-9, 0, 2.5e5, 1.875, 9.375,
     9.375},
};

static void test_eager_hand_cases(void **state) {
    (void)state;
    for (size_t i = 0; i < COUNT(eager_cases); i++) {
        const eager_case *h = &eager_cases[i];
        double o[MAXP];
        for (int r = 0; r < h->P; r++) o[r] = h->o_ms[r] * MS;
        for (int rdv = 0; rdv < 2; rdv++) {
            papc_arrival_case c = make_case(h->coll, h->name, h->P, 0, h->m,
                                            o, h->t0_ms * MS, 0, h->beta,
                                            h->gamma_op, 0);
            c.segsize = h->segsize;
            c.eager = rdv ? 0 : h->eager;
            double want = rdv ? h->rdv_ms : h->want_ms;
            double e = papc_arrival_model_mean(&c);
            if (fabs(e - want * MS) > 1e-9 * MS) {
                print_error("%s %s P=%d eager %g: ē %.9g ms, want %.9g ms\n",
                            c.collective, c.name, h->P, c.eager, e / MS,
                            want);
                fail();
            }
            double F[MAXP], sum = 0;
            assert_int_equal(papc_arrival_model_exits(&c, F), 0);
            for (int r = 0; r < h->P; r++) {
                assert_true(F[r] >= o[r]);
                sum += F[r] - o[r];
            }
            assert_true(fabs(sum / h->P - e) < 1e-12);
        }
    }
    /* the ring's exits do change: a non-root leaves 3 c_b - c_b = 0.5 ms
     * before the root's collection ends (the implied exits are shifted
     * to mean ē, so compare within a case) */
    double o[4] = {0, 10 * MS, 0, 0}, F[4], G[4];
    papc_arrival_case c = make_case(PAPC_REDUCE, "ring", 4, 0, 1e6, o,
                                    1.875 * MS, 0, 1e-9, 0.5e-9, 0);
    assert_int_equal(papc_arrival_model_exits(&c, F), 0);
    c.eager = 2.5e5;
    assert_int_equal(papc_arrival_model_exits(&c, G), 0);
    assert_true(fabs(F[0] - F[1]) < 1e-12);
    assert_true(fabs(G[0] - G[1] - 0.5 * MS) < 1e-12);
    assert_true(fabs(G[2] - G[1]) < 1e-12);
    /* a bad limit is a bad case; +inf (every message eager) is not */
    c.eager = NAN;
    assert_true(papc_arrival_model_mean(&c) < 0);
    c.eager = -1;
    assert_true(papc_arrival_model_mean(&c) < 0);
    c.eager = INFINITY;
    assert_true(papc_arrival_model_mean(&c) > 0);
}

/* The general checks again with a 64 KiB limit: the 8 KiB segments of
 * the trees and the small blocks (1 KiB, 64 KiB) go eagerly. */
static void test_zero_offsets_give_t0_eager(void **state) {
    case_eager = 65536;
    test_zero_offsets_give_t0(state);
    case_eager = 0;
}
static void test_never_below_ideal_eager(void **state) {
    case_eager = 65536;
    test_never_below_ideal(state);
    case_eager = 0;
}
static void test_monotone_eager(void **state) {
    case_eager = 65536;
    test_monotone(state);
    case_eager = 0;
}

/* ---- reduce clairvoyant_node: the node grouping ------------------------- */

/* Without a grouping (NULL), with one node, and with one rank per node
 * (labels any distinct ints) the row's plan is plain Clairvoyant's
 * schedule (node.h), and so is its price: the same exits and ē, to the
 * bit, at random P, root, offsets, with and without a plan. */
static void test_clv_node_plain_equivalents(void **state) {
    (void)state;
    int one[MAXP], distinct[MAXP];
    for (int r = 0; r < MAXP; r++) {
        one[r] = 42;
        distinct[r] = 1000 - 3 * r;
    }
    const int *groupings[] = {NULL, one, distinct};
    for (int trial = 0; trial < 300; trial++) {
        int P = 2 + irand(MAXP - 1), root = irand(P);
        double o[MAXP], F[MAXP], Fn[MAXP], m = trial % 2 ? 2097152 : 65536;
        offsets(trial % 4, P, root, 0.01, o);
        papc_arrival_case c = make_case(PAPC_REDUCE, "clairvoyant", P, root,
                                        m, o, 1e-3 + 0.01 * urand(), 3e-6,
                                        8e-10, 2.5e-10, 0);
        if (trial % 3 == 0) {
            c.plan_segments = 1 + irand(200);
            c.plan_round = 1e-6 + 1e-4 * urand();
        }
        double e = papc_arrival_model_mean(&c);
        assert_true(e > 0);
        assert_int_equal(papc_arrival_model_exits(&c, F), 0);
        for (size_t g = 0; g < COUNT(groupings); g++) {
            papc_arrival_case n = c;
            n.name = "clairvoyant_node";
            n.node = groupings[g];
            assert_true(papc_arrival_model_mean(&n) == e);
            assert_int_equal(papc_arrival_model_exits(&n, Fn), 0);
            for (int r = 0; r < P; r++) assert_true(Fn[r] == F[r]);
            assert_true(papc_arrival_planned_t0(&n) ==
                        papc_arrival_planned_t0(&c));
        }
    }
}

/* Hand cases, a plan of N = 10 segments in rounds of d = 1 ms, t0 = the
 * structure's balanced run time (lambda = 1), root 0.
 * 8 nodes x 16 ranks (labels r / 16, the SMPI runs' block placement):
 * balanced, every node's stream starts at a = (ceil(log2 16) - 1) d = 3
 * (its sum is complete at 3 + N = 13), the root ends at a + (N +
 * ceil(log2 8) - 1) d = 15 = t0; the 120 non-leaders exit at N d = 10,
 * the 7 other leaders at a + N d = 13: ē_s(0) = (1200 + 91 + 15) / 128.
 *  - rank 37 (node 2, not its leader 32) late by 20: node 2's a = max(0 +
 *    3, 20) = 20; the root max(0 + 3 + 12, 20 + (N + 1 - 1)) = 30; rank
 *    37 exits 10 after its arrival, leader 32 at 30: ē_s = (1190 + 10 +
 *    78 + 30 + 30) / 128, ē = 15 + 32 / 128 = 15.25 ms.  Plain
 *    Clairvoyant with the same plan, priced by its schedule's dataflow
 *    (each round split into a transfer of 0.765 d and a fold of 0.235 d
 *    by α, β, γ): t0 = 15.2953149 ms, below the rounds' (N + 7 - 1) d =
 *    16, and ē 15.3459661 ms -- both also from an independent simulation
 *    of the same rules on papc_clv_fast's events (session 23).
 *  - rank 32, node 2's leader, late by 20: it exits at 30, 10 after its
 *    arrival: (1200 + 78 + 10 + 30) / 128, ē = 15 + 12 / 128.
 *  - rank 5 (the root's node) late by 20: the root at 30 (it is node
 *    0's leader): (1190 + 10 + 91 + 30) / 128, ē = 15 + 15 / 128.
 *  - the root late by 20: node 0's a = 20, the root at 30, 10 after its
 *    arrival: (1200 + 91 + 10) / 128, ē = 15 - 5 / 128.
 * Nodes of 2, 3 and 1 rank (P = 6, labels 7 7 3 3 3 1, root 3 on the
 * node of three, leaders 0, 3, 5): balanced a = 0, 1, 0, the root at
 * max(0 + 5, 0 + 5, 1 + 4) = 5 = t0, everyone else at 4: ē_s(0) = 25/6.
 * Offsets 0 2 1 0 6 3: a = max(0 + 0, 2) = 2, max(0 + 1, 6) = 6 and 3
 * (one rank: its arrival); sorted 2, 3, 6: the root at max(2 + 5, 3 + 5,
 * 6 + 4) = 10; rank 1 exits at 6, 2 at 5, 4 at 10 (N after arriving),
 * leader 0 at a + N = 6, leader 5 at 7: ē_s = (6 + 4 + 4 + 10 + 4 + 4) /
 * 6, ē = 5 + 7/6 ms. */
static void test_clv_node_hand(void **state) {
    (void)state;
    enum { P = 128 };
    int lab[P];
    double o[P];
    for (int r = 0; r < P; r++) lab[r] = r / 16;
    static const struct { int late; double want; } cases[] = {
        {37, 15 + 32.0 / 128}, {32, 15 + 12.0 / 128},
        {5, 15 + 15.0 / 128},  {0, 15 - 5.0 / 128}};
    for (size_t i = 0; i < COUNT(cases); i++) {
        for (int r = 0; r < P; r++) o[r] = 0;
        papc_arrival_case c = make_case(PAPC_REDUCE, "clairvoyant_node", P, 0,
                                        2097152, o, 1, 3e-6, 8e-10, 2.5e-10,
                                        0);
        c.node = lab;
        c.plan_segments = 10;
        c.plan_round = 1 * MS;
        c.t0 = papc_arrival_model_structure(&c);
        assert_true(fabs(c.t0 - 15 * MS) < 1e-15);
        o[cases[i].late] = 20 * MS;
        double e = papc_arrival_model_mean(&c);
        if (fabs(e - cases[i].want * MS) > 1e-12) {
            print_error("8x16, rank %d late: ē %.9g ms, want %.9g ms\n",
                        cases[i].late, e / MS, cases[i].want);
            fail();
        }
        double F[P], sum = 0;
        assert_int_equal(papc_arrival_model_exits(&c, F), 0);
        for (int r = 0; r < P; r++) sum += F[r] - o[r];
        assert_true(fabs(sum / P - e) < 1e-12);
        if (cases[i].late == 37) { /* plain Clairvoyant, the same plan */
            c.name = "clairvoyant";
            c.node = NULL;
            c.t0 = papc_arrival_model_structure(&c);
            assert_true(fabs(c.t0 - 15.2953149 * MS) < 1e-7 * MS);
            assert_true(c.t0 < 16 * MS); /* under the rounds' length */
            assert_true(fabs(papc_arrival_model_mean(&c) - 15.3459661 * MS) <
                        1e-7 * MS);
        }
    }
    int lab6[6] = {7, 7, 3, 3, 3, 1};
    double o6[6] = {0, 2 * MS, 1 * MS, 0, 6 * MS, 3 * MS}, z6[6] = {0};
    papc_arrival_case c = make_case(PAPC_REDUCE, "clairvoyant_node", 6, 3,
                                    2097152, z6, 1, 3e-6, 8e-10, 2.5e-10, 0);
    c.node = lab6;
    c.plan_segments = 4;
    c.plan_round = 1 * MS;
    c.t0 = papc_arrival_model_structure(&c);
    assert_true(fabs(c.t0 - 5 * MS) < 1e-15);
    c.offset = o6;
    assert_true(fabs(papc_arrival_model_mean(&c) - (5 + 7.0 / 6) * MS) <
                1e-12);
}

/* The grouping's shape and the beta clairvoyant_node plans with. */
static void test_clv_node_shape_and_beta(void **state) {
    (void)state;
    int lab6[6] = {7, 7, 3, 3, 3, 1}, G = -1, nmax = -1;
    assert_int_equal(papc_arrival_node_shape(6, lab6, &G, &nmax), 0);
    assert_int_equal(G, 3);
    assert_int_equal(nmax, 3);
    assert_int_equal(papc_arrival_node_shape(6, NULL, &G, &nmax), 0);
    assert_int_equal(G, 6);
    assert_int_equal(nmax, 1);
    int lab128[128];
    for (int r = 0; r < 128; r++) lab128[r] = 16 * (r % 8); /* round robin */
    assert_int_equal(papc_arrival_node_shape(128, lab128, &G, &nmax), 0);
    assert_int_equal(G, 8);
    assert_int_equal(nmax, 16);
    assert_int_equal(papc_arrival_node_shape(0, lab6, &G, &nmax), -1);
    assert_int_equal(G, 0);
    assert_true(papc_clv_node_beta(13.4e-9, 8, 16) == 13.4e-9 / 16);
    assert_true(papc_clv_node_beta(13.4e-9, 1, 16) == 13.4e-9);  /* one node */
    assert_true(papc_clv_node_beta(13.4e-9, 16, 1) == 13.4e-9);  /* 1 per node */
}

/* The general checks again with nodes: blocks of 4 ranks (the last one
 * short where 4 does not divide P), then ranks dealt round robin onto 3
 * nodes (labels r % 3: a node's ranks are not contiguous). */
static int blocks4[MAXP], dealt3[MAXP];
static void node_labels_init(void) {
    for (int r = 0; r < MAXP; r++) {
        blocks4[r] = r / 4;
        dealt3[r] = r % 3;
    }
}
static void with_nodes(void (*test)(void **), void **state) {
    node_labels_init();
    case_node = blocks4;
    test(state);
    case_node = dealt3;
    test(state);
    case_node = NULL;
}
static void test_zero_offsets_give_t0_nodes(void **state) {
    with_nodes(test_zero_offsets_give_t0, state);
}
static void test_never_below_ideal_nodes(void **state) {
    with_nodes(test_never_below_ideal, state);
}
static void test_monotone_nodes(void **state) {
    with_nodes(test_monotone, state);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_offsets_give_t0),
        cmocka_unit_test(test_every_row_has_a_model),
        cmocka_unit_test(test_aliases),
        cmocka_unit_test(test_pick),
        cmocka_unit_test(test_fitted_as),
        cmocka_unit_test(test_hand_cases),
        cmocka_unit_test(test_prr_closed_form_matches_schedule),
        cmocka_unit_test(test_prr_published_rule),
        cmocka_unit_test(test_slt_closed_form_matches_schedule),
        cmocka_unit_test(test_clairvoyant_length_matches_generator),
        cmocka_unit_test(test_never_below_ideal),
        cmocka_unit_test(test_monotone),
        cmocka_unit_test(test_papers_claims),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_price_ring),
        cmocka_unit_test(test_price_ring_new_pattern),
        cmocka_unit_test(test_learning),
        cmocka_unit_test(test_fast_at_large_P),
        cmocka_unit_test(test_clv_round_plan_hand),
        cmocka_unit_test(test_clv_round_plan_matches_old_executor),
        cmocka_unit_test(test_planned_t0),
        cmocka_unit_test(test_clv_plan_prices),
        cmocka_unit_test(test_eager_hand_cases),
        cmocka_unit_test(test_zero_offsets_give_t0_eager),
        cmocka_unit_test(test_never_below_ideal_eager),
        cmocka_unit_test(test_monotone_eager),
        cmocka_unit_test(test_clv_node_plain_equivalents),
        cmocka_unit_test(test_clv_node_hand),
        cmocka_unit_test(test_clv_node_shape_and_beta),
        cmocka_unit_test(test_zero_offsets_give_t0_nodes),
        cmocka_unit_test(test_never_below_ideal_nodes),
        cmocka_unit_test(test_monotone_nodes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
