/*
 * test_clv_cache.c — Clairvoyant schedules without regenerating (issue 15,
 * part 4; src/clairvoyant/cache.{h,c}), no MPI:
 *   - quantisation: hand cases (halves, shifts, jitter inside a round),
 *     bad inputs;
 *   - the schedule of whole-round arrivals equals the reference
 *     generator's on the same integers, and passes papc_clv_check;
 *   - a rank's plan is its slice of the schedule, also when generated for
 *     that rank alone;
 *   - the cache: miss, hit, other q / root / site misses, LRU eviction of
 *     entries and of whole sites, byte accounting, plans moved in;
 *   - the property the executor relies on: along a random sequence of
 *     jittered arrival vectors, every plan the cache returns is the one
 *     generation gives for the same vector, whatever the cache's size, and
 *     two caches fed the same sequence take the same decisions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "clairvoyant/cache.h"
#include "clairvoyant/schedule.h"

static uint64_t rng_state = 777;

static uint64_t rnd64(void) {
    uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static int rnd(int n) { return (int)(rnd64() % (uint64_t)n); }
static double unit(void) { return (double)(rnd64() >> 11) * 0x1p-53; }

static void assert_q(const int32_t *q, const int32_t *want, int P) {
    for (int p = 0; p < P; p++) {
        if (q[p] != want[p])
            fail_msg("q[%d] = %d, want %d", p, (int)q[p], (int)want[p]);
    }
}

static void test_quantise_hand(void **state) {
    (void)state;
    int32_t q[5];
    const double a[4] = {0.3, 1.2, 2.5, 0.0};
    assert_int_equal(papc_clv_quantise(a, 4, 1.0, q), 0);
    assert_q(q, (const int32_t[]){0, 1, 3, 0}, 4); /* 2.5: half up */
    const double b[4] = {5.0, 5.49, 5.5, 7.0};
    assert_int_equal(papc_clv_quantise(b, 4, 1.0, q), 0);
    assert_q(q, (const int32_t[]){0, 0, 1, 2}, 4);
    /* relative to the earliest: a shift of every arrival changes nothing */
    const double c[4] = {105.3, 101.2, 102.5, 100.0};
    assert_int_equal(papc_clv_quantise(c, 4, 1.0, q), 0);
    assert_q(q, (const int32_t[]){5, 1, 3, 0}, 4);
    /* a millisecond round: 20 ms late is 20 rounds, 0.4 ms jitter none */
    const double d[5] = {0.0, 0.0004, 0.0201, 0.0196, 0.0};
    assert_int_equal(papc_clv_quantise(d, 5, 0.001, q), 0);
    assert_q(q, (const int32_t[]){0, 0, 20, 20, 0}, 5);
    /* P = 1 */
    assert_int_equal(papc_clv_quantise(a, 1, 1.0, q), 0);
    assert_int_equal(q[0], 0);
}

static void test_quantise_bad(void **state) {
    (void)state;
    int32_t q[3] = {-1, -1, -1};
    const double a[3] = {0.0, 1.0, 2.0};
    assert_int_equal(papc_clv_quantise(a, 0, 1.0, q), -1);
    assert_int_equal(papc_clv_quantise(NULL, 3, 1.0, q), -1);
    assert_int_equal(papc_clv_quantise(a, 3, 1.0, NULL), -1);
    assert_int_equal(papc_clv_quantise(a, 3, 0.0, q), -1);
    assert_int_equal(papc_clv_quantise(a, 3, -1.0, q), -1);
    assert_int_equal(papc_clv_quantise(a, 3, NAN, q), -1);
    assert_int_equal(papc_clv_quantise(a, 3, INFINITY, q), -1);
    const double inf[3] = {0.0, INFINITY, 1.0};
    assert_int_equal(papc_clv_quantise(inf, 3, 1.0, q), -1);
    const double nan[3] = {0.0, NAN, 1.0};
    assert_int_equal(papc_clv_quantise(nan, 3, 1.0, q), -1);
    /* more rounds than an int32 holds safely */
    const double far[2] = {0.0, 2e9};
    assert_int_equal(papc_clv_quantise(far, 2, 1.0, q), -1);
    const double tiny[2] = {0.0, 1.0};
    assert_int_equal(papc_clv_quantise(tiny, 2, 1e-12, q), -1);
}

/* Random whole-round arrivals for P processes within spread rounds. */
static void random_q(int32_t *q, int P, int spread) {
    for (int p = 0; p < P; p++) q[p] = (int32_t)rnd(spread + 1);
}

static void test_quantised_schedule(void **state) {
    (void)state;
    for (int t = 0; t < 300; t++) {
        const int P = 1 + rnd(24), N = 1 + rnd(24), root = rnd(P);
        int32_t q[24];
        random_q(q, P, t % 3 == 0 ? 0 : 1 + rnd(3 * N));
        double a[24];
        for (int p = 0; p < P; p++) a[p] = (double)q[p];
        papc_clv_schedule s, r;
        assert_int_equal(papc_clv_fast_quantised(q, P, N, root, &s), 0);
        assert_int_equal(papc_clv_reference(a, P, N, root, 1.0, &r), 0);
        if (!papc_clv_equal(&s, &r))
            fail_msg("instance %d (P=%d N=%d root=%d): quantised schedule "
                     "differs from the reference", t, P, N, root);
        char why[256];
        if (papc_clv_check(&s, a, 1.0, why, sizeof why) != 0)
            fail_msg("instance %d: %s", t, why);
        papc_clv_free(&s);
        papc_clv_free(&r);
    }
    papc_clv_schedule s;
    assert_int_equal(papc_clv_fast_quantised(NULL, 3, 2, 0, &s), -1);
    assert_int_equal(papc_clv_fast_quantised((const int32_t[]){0, 0}, 2, 0,
                                             0, &s), -1);
}

static void test_plan_from(void **state) {
    (void)state;
    const int P = 7, N = 5;
    const int32_t q[7] = {0, 3, 0, 9, 1, 1, 20};
    papc_clv_schedule s;
    assert_int_equal(papc_clv_fast_quantised(q, P, N, 2, &s), 0);
    size_t total = 0;
    for (int r = 0; r < P; r++) {
        papc_clv_plan p;
        assert_int_equal(papc_clv_plan_from(&s, r, &p), 0);
        assert_int_equal(p.P, P);
        assert_int_equal(p.N, N);
        assert_int_equal(p.root, 2);
        assert_int_equal(p.rank, r);
        assert_int_equal(p.rounds, s.rounds);
        assert_int_equal(p.nevents_total, s.nevents);
        assert_int_equal(p.n, s.first[r + 1] - s.first[r]);
        assert_memory_equal(p.ev, s.events + s.first[r],
                            p.n * sizeof *p.ev);
        assert_int_equal(papc_clv_plan_bytes(&p),
                         sizeof p + P * sizeof(int32_t) +
                             p.n * sizeof *p.ev);
        total += p.n;
        papc_clv_plan_free(&p);
        assert_null(p.ev);
    }
    assert_int_equal(total, s.nevents);
    papc_clv_plan p;
    assert_int_equal(papc_clv_plan_from(&s, P, &p), -1);
    assert_int_equal(papc_clv_plan_from(&s, -1, &p), -1);
    assert_int_equal(papc_clv_plan_from(NULL, 0, &p), -1);
    papc_clv_free(&s);
}

/* Generated for one rank alone, a plan equals that rank's slice of the
 * whole schedule, events and counts. */
static void test_plan_quantised(void **state) {
    (void)state;
    for (int t = 0; t < 150; t++) {
        const int P = 1 + rnd(40), N = 1 + rnd(40), root = rnd(P);
        int32_t q[40];
        random_q(q, P, t % 4 == 0 ? 0 : 1 + rnd(3 * N));
        papc_clv_schedule s;
        assert_int_equal(papc_clv_fast_quantised(q, P, N, root, &s), 0);
        for (int r = 0; r < P; r++) {
            papc_clv_plan a, b;
            assert_int_equal(papc_clv_plan_from(&s, r, &a), 0);
            assert_int_equal(papc_clv_plan_quantised(q, P, N, root, r, &b),
                             0);
            if (a.n != b.n || a.rounds != b.rounds ||
                a.nevents_total != b.nevents_total ||
                memcmp(a.ev, b.ev, a.n * sizeof *a.ev))
                fail_msg("instance %d (P=%d N=%d root=%d) rank %d: %zu/%zu "
                         "events, %d/%d rounds, %zu/%zu in all", t, P, N,
                         root, r, a.n, b.n, a.rounds, b.rounds,
                         a.nevents_total, b.nevents_total);
            papc_clv_plan_free(&a);
            papc_clv_plan_free(&b);
        }
        papc_clv_free(&s);
    }
    papc_clv_plan p;
    const int32_t q[2] = {0, 1};
    assert_int_equal(papc_clv_plan_quantised(q, 2, 3, 0, 2, &p), -1);
    assert_int_equal(papc_clv_plan_quantised(q, 2, 3, 0, -1, &p), -1);
    assert_int_equal(papc_clv_plan_quantised(NULL, 2, 3, 0, 0, &p), -1);
    assert_int_equal(papc_clv_plan_quantised(q, 2, 0, 0, 0, &p), -1);
}

/* A plan for (P, N, root, q) at rank, generated. */
static papc_clv_plan make_plan(const int32_t *q, int P, int N, int root,
                               int rank) {
    papc_clv_schedule s;
    papc_clv_plan p;
    assert_int_equal(papc_clv_fast_quantised(q, P, N, root, &s), 0);
    assert_int_equal(papc_clv_plan_from(&s, rank, &p), 0);
    papc_clv_free(&s);
    return p;
}

static void assert_plan_equal(const papc_clv_plan *a,
                              const papc_clv_plan *b) {
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(a->P, b->P);
    assert_int_equal(a->N, b->N);
    assert_int_equal(a->root, b->root);
    assert_int_equal(a->rank, b->rank);
    assert_int_equal(a->rounds, b->rounds);
    assert_int_equal(a->nevents_total, b->nevents_total);
    assert_int_equal(a->n, b->n);
    assert_memory_equal(a->ev, b->ev, a->n * sizeof *a->ev);
}

static void test_cache_hit_miss(void **state) {
    (void)state;
    const int P = 6, N = 4;
    const int32_t q1[6] = {0, 0, 0, 0, 0, 12}, q2[6] = {0, 0, 0, 0, 0, 13};
    const papc_clv_site_key site = {1, P, N, 4096}, other = {1, P, N, 8192};
    papc_clv_cache *c = papc_clv_cache_new(2, 2);
    assert_non_null(c);
    papc_clv_cache_stats st;
    assert_null(papc_clv_cache_find(c, &site, 0, q1));
    papc_clv_plan p = make_plan(q1, P, N, 0, 3), want = make_plan(q1, P, N,
                                                                  0, 3);
    const papc_clv_plan *kept = papc_clv_cache_put(c, &site, 0, q1, &p);
    assert_non_null(kept);
    assert_null(p.ev); /* moved in */
    assert_plan_equal(kept, &want);
    assert_ptr_equal(papc_clv_cache_find(c, &site, 0, q1), kept);
    assert_null(papc_clv_cache_find(c, &site, 0, q2));    /* other q */
    assert_null(papc_clv_cache_find(c, &site, 1, q1));    /* other root */
    assert_null(papc_clv_cache_find(c, &other, 0, q1));   /* other site */
    const papc_clv_site_key allreduce = {2, P, N, 4096};
    assert_null(papc_clv_cache_find(c, &allreduce, 0, q1));
    assert_ptr_equal(papc_clv_cache_find(c, &site, 0, q1), kept);
    papc_clv_cache_get_stats(c, &st);
    assert_int_equal(st.hits, 2);
    assert_int_equal(st.misses, 5);
    assert_int_equal(st.stores, 1);
    assert_int_equal(st.evictions, 0);
    assert_int_equal(st.sites, 1);
    assert_int_equal(st.entries, 1);
    assert_int_equal(st.bytes, papc_clv_plan_bytes(&want));
    /* NULL cache: always a miss, nothing stored */
    assert_null(papc_clv_cache_find(NULL, &site, 0, q1));
    assert_null(papc_clv_cache_put(NULL, &site, 0, q1, &want));
    assert_non_null(want.ev);
    assert_null(papc_clv_cache_new(0, 1));
    assert_null(papc_clv_cache_new(1, 0));
    papc_clv_plan_free(&want);
    papc_clv_cache_free(c);
    papc_clv_cache_free(NULL);
}

static void test_cache_eviction(void **state) {
    (void)state;
    const int P = 5, N = 3;
    int32_t q[4][5] = {{0, 0, 0, 0, 4}, {0, 0, 0, 0, 5},
                       {0, 0, 0, 0, 6}, {0, 0, 0, 0, 7}};
    papc_clv_site_key A = {1, P, N, 100}, B = {1, P, N, 200},
                      C = {2, P, N, 100};
    papc_clv_cache *c = papc_clv_cache_new(2, 2);
    assert_non_null(c);
    papc_clv_plan p;
    /* entries: q0, q1 in A; touch q0; q2 evicts q1, the least recent */
    for (int i = 0; i < 2; i++) {
        p = make_plan(q[i], P, N, 0, 1);
        assert_non_null(papc_clv_cache_put(c, &A, 0, q[i], &p));
    }
    assert_non_null(papc_clv_cache_find(c, &A, 0, q[0]));
    p = make_plan(q[2], P, N, 0, 1);
    assert_non_null(papc_clv_cache_put(c, &A, 0, q[2], &p));
    papc_clv_cache_stats st;
    papc_clv_cache_get_stats(c, &st);
    assert_int_equal(st.evictions, 1);
    assert_int_equal(st.entries, 2);
    assert_null(papc_clv_cache_find(c, &A, 0, q[1]));
    assert_non_null(papc_clv_cache_find(c, &A, 0, q[0]));
    assert_non_null(papc_clv_cache_find(c, &A, 0, q[2]));
    /* sites: A (2 entries), B (1); A used last; C evicts B and its entry */
    p = make_plan(q[3], P, N, 0, 1);
    assert_non_null(papc_clv_cache_put(c, &B, 0, q[3], &p));
    assert_non_null(papc_clv_cache_find(c, &A, 0, q[2]));
    p = make_plan(q[3], P, N, 0, 1);
    assert_non_null(papc_clv_cache_put(c, &C, 0, q[3], &p));
    papc_clv_cache_get_stats(c, &st);
    assert_int_equal(st.evictions, 2);
    assert_int_equal(st.sites, 2);
    assert_int_equal(st.entries, 3);
    assert_null(papc_clv_cache_find(c, &B, 0, q[3]));
    assert_non_null(papc_clv_cache_find(c, &C, 0, q[3]));
    assert_non_null(papc_clv_cache_find(c, &A, 0, q[0]));
    /* now C is the least recent site: B comes back in its place, and
     * evicts C's entry */
    p = make_plan(q[0], P, N, 0, 1);
    assert_non_null(papc_clv_cache_put(c, &B, 0, q[0], &p));
    assert_null(papc_clv_cache_find(c, &C, 0, q[3]));
    assert_non_null(papc_clv_cache_find(c, &A, 0, q[2]));
    papc_clv_cache_get_stats(c, &st);
    assert_int_equal(st.evictions, 3);
    assert_int_equal(st.sites, 2);
    assert_int_equal(st.entries, 3);
    papc_clv_cache_free(c);
}

/* The executor's path for one call: quantise, look up, else generate and
 * store.  Returns the plan used (cached or *own). */
static const papc_clv_plan *plan_for(papc_clv_cache *c,
                                     const papc_clv_site_key *site,
                                     const double *a, double d, int root,
                                     int rank, papc_clv_plan *own,
                                     int *hit) {
    int32_t q[32];
    assert_int_equal(papc_clv_quantise(a, site->P, d, q), 0);
    const papc_clv_plan *p = papc_clv_cache_find(c, site, root, q);
    *hit = p != NULL;
    if (p) return p;
    *own = make_plan(q, site->P, site->N, root, rank);
    p = papc_clv_cache_put(c, site, root, q, own);
    return p ? p : own;
}

static void test_cache_is_memoisation(void **state) {
    (void)state;
    /* a late rank that is 1..3 rounds late, predictions with jitter of
     * less than half a round around it, and sometimes a second late one */
    const double d = 0.001;
    for (int trial = 0; trial < 20; trial++) {
        const int P = 3 + rnd(20), N = 1 + rnd(16);
        const int rank = rnd(P), late = rnd(P);
        const papc_clv_site_key site = {1, P, N, 1000 + trial};
        /* a big cache, and two small twins that must evict */
        papc_clv_cache *big = papc_clv_cache_new(4, 16);
        papc_clv_cache *twin = papc_clv_cache_new(1, 2);
        papc_clv_cache *small2 = papc_clv_cache_new(1, 2);
        assert_non_null(big);
        assert_non_null(twin);
        assert_non_null(small2);
        int hits_big = 0, hits_small = 0;
        for (int call = 0; call < 40; call++) {
            double a[32];
            /* jitter below half a round between any two: q unchanged */
            for (int p = 0; p < P; p++) a[p] = 3.7 + unit() * 0.45 * d;
            a[late] += (1 + rnd(3)) * d;
            if (rnd(4) == 0) a[(late + 1) % P] += 5 * d;
            const int root = rnd(2) ? 0 : late;
            int32_t q[32];
            assert_int_equal(papc_clv_quantise(a, P, d, q), 0);
            papc_clv_plan fresh = make_plan(q, P, N, root, rank);
            papc_clv_plan own1, own2, own3;
            memset(&own1, 0, sizeof own1);
            memset(&own2, 0, sizeof own2);
            memset(&own3, 0, sizeof own3);
            int h1, h2, h3;
            const papc_clv_plan *p1 =
                plan_for(big, &site, a, d, root, rank, &own1, &h1);
            const papc_clv_plan *p2 =
                plan_for(twin, &site, a, d, root, rank, &own2, &h2);
            const papc_clv_plan *p3 =
                plan_for(small2, &site, a, d, root, rank, &own3, &h3);
            /* whatever the cache held, the plan is the generated one */
            assert_plan_equal(p1, &fresh);
            assert_plan_equal(p2, &fresh);
            assert_plan_equal(p3, &fresh);
            /* caches of one size fed one sequence decide alike */
            assert_int_equal(h2, h3);
            hits_big += h1;
            hits_small += h2;
            papc_clv_plan_free(&own1);
            papc_clv_plan_free(&own2);
            papc_clv_plan_free(&own3);
            papc_clv_plan_free(&fresh);
        }
        /* 3 late values x 2 roots x (one late or two): at most 12 keys, so
         * the big cache must hit most of the 40 calls */
        if (hits_big < 40 - 12) fail_msg("trial %d P=%d: %d hits", trial, P, hits_big);
        assert_true(hits_small <= hits_big);
        papc_clv_cache_stats st;
        papc_clv_cache_get_stats(big, &st);
        assert_int_equal(st.hits, hits_big);
        assert_int_equal(st.hits + st.misses, 40);
        assert_int_equal(st.evictions, 0);
        papc_clv_cache_free(small2);
        papc_clv_cache_free(twin);
        papc_clv_cache_free(big);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantise_hand),
        cmocka_unit_test(test_quantise_bad),
        cmocka_unit_test(test_quantised_schedule),
        cmocka_unit_test(test_plan_from),
        cmocka_unit_test(test_plan_quantised),
        cmocka_unit_test(test_cache_hit_miss),
        cmocka_unit_test(test_cache_eviction),
        cmocka_unit_test(test_cache_is_memoisation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
