/*
 * test_order.c — the arrival orders of src/topo/order.c (no MPI): sorting
 * by predicted time (earliest first, unknown last, ties by rank), offsets,
 * the PAPC_ARRIVAL_FAULT perturbations and the EWMA step.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "topo/order.h"

static void test_sorted_unknown_last_ties_by_rank(void **state) {
    (void)state;
    double t[6] = {3.0, INFINITY, 1.0, 3.0, NAN, 0.5};
    int order[6];
    int known = papc_order_from_times(6, t, order);
    int want[6] = {5, 2, 0, 3, 1, 4};
    assert_int_equal(known, 4);
    assert_memory_equal(order, want, sizeof want);
}

static void test_all_unknown_is_rank_order(void **state) {
    (void)state;
    for (int n = 0; n <= 33; n++) {
        double *t = malloc((size_t)(n + 1) * sizeof *t);
        int *o = malloc((size_t)(n + 1) * sizeof *o);
        for (int i = 0; i < n; i++) t[i] = INFINITY;
        assert_int_equal(papc_order_from_times(n, t, o), 0);
        for (int i = 0; i < n; i++) assert_int_equal(o[i], i);
        free(t);
        free(o);
    }
}

static void test_equal_times_rank_order(void **state) {
    (void)state;
    double t[5] = {2, 2, 2, 2, 2};
    int o[5];
    assert_int_equal(papc_order_from_times(5, t, o), 5);
    for (int i = 0; i < 5; i++) assert_int_equal(o[i], i);
}

/* Random vectors: a permutation, non-decreasing times along it, ties by
 * rank, unknown last. */
static void test_random_vectors(void **state) {
    (void)state;
    srand(7);
    for (int rep = 0; rep < 500; rep++) {
        int n = 1 + rand() % 70;
        double *t = malloc((size_t)n * sizeof *t);
        int *o = malloc((size_t)n * sizeof *o);
        for (int i = 0; i < n; i++)
            t[i] = rand() % 5 == 0 ? INFINITY : (double)(rand() % 10);
        papc_order_from_times(n, t, o);
        assert_true(papc_order_is_permutation(n, o));
        for (int i = 1; i < n; i++) {
            double a = t[o[i - 1]], b = t[o[i]];
            if (isfinite(a) && isfinite(b)) {
                assert_true(a <= b);
                if (a == b) assert_true(o[i - 1] < o[i]);
            } else if (!isfinite(a)) {
                assert_false(isfinite(b));
                assert_true(o[i - 1] < o[i]);
            }
        }
        free(t);
        free(o);
    }
}

static void test_offsets(void **state) {
    (void)state;
    double t[4] = {10.5, INFINITY, 10.0, 12.0}, off[4];
    assert_int_equal(papc_order_offsets(4, t, off), 3);
    assert_true(off[0] == 0.5 && off[2] == 0.0 && off[3] == 2.0);
    assert_false(isfinite(off[1]));
    double u[2] = {INFINITY, INFINITY};
    assert_int_equal(papc_order_offsets(2, u, off), 0);
    assert_false(isfinite(off[0]) || isfinite(off[1]));
}

static void test_reverse(void **state) {
    (void)state;
    int o[5] = {4, 0, 3, 1, 2}, r[5] = {2, 1, 3, 0, 4};
    papc_order_reverse(5, o);
    assert_memory_equal(o, r, sizeof r);
    int one = 0;
    papc_order_reverse(1, &one);
    assert_int_equal(one, 0);
    papc_order_reverse(0, NULL);
}

static void test_shuffle_deterministic_permutation(void **state) {
    (void)state;
    for (int n = 1; n < 40; n++)
        for (uint64_t seed = 0; seed < 20; seed++) {
            int a[40], b[40];
            for (int i = 0; i < n; i++) a[i] = b[i] = i;
            papc_order_shuffle(n, a, seed);
            papc_order_shuffle(n, b, seed);
            assert_memory_equal(a, b, (size_t)n * sizeof *a);
            assert_true(papc_order_is_permutation(n, a));
        }
    /* different seeds give different orders (not always; mostly) */
    int diff = 0;
    for (uint64_t s = 0; s < 10; s++) {
        int a[16], b[16];
        for (int i = 0; i < 16; i++) a[i] = b[i] = i;
        papc_order_shuffle(16, a, s);
        papc_order_shuffle(16, b, s + 1);
        diff += memcmp(a, b, sizeof a) != 0;
    }
    assert_true(diff >= 9);
}

static void test_reassign_offsets(void **state) {
    (void)state;
    double t[5] = {1.0, 3.0, INFINITY, 0.0, 2.0}, off[5];
    int o[5];
    papc_order_from_times(5, t, o);
    papc_order_offsets(5, t, off);
    papc_order_reverse(5, o);          /* 2 1 4 0 3 */
    papc_order_reassign_offsets(5, o, off);
    for (int i = 1; i < 5; i++) {
        double a = off[o[i - 1]], b = off[o[i]];
        assert_true(!isfinite(b) || (isfinite(a) && a <= b));
    }
    assert_true(off[2] == 0.0 && off[1] == 1.0 && off[4] == 2.0 &&
                off[0] == 3.0);
    assert_false(isfinite(off[3]));
}

static void test_is_permutation(void **state) {
    (void)state;
    int ok[3] = {2, 0, 1}, dup[3] = {0, 0, 1}, out[3] = {0, 3, 1};
    assert_true(papc_order_is_permutation(3, ok));
    assert_false(papc_order_is_permutation(3, dup));
    assert_false(papc_order_is_permutation(3, out));
}

static void test_ewma(void **state) {
    (void)state;
    assert_true(papc_ewma(NAN, 0, 4.0, 0.25) == 4.0);
    assert_true(papc_ewma(4.0, 1, 8.0, 0.25) == 5.0);
    assert_true(papc_ewma(4.0, 5, 4.0, 0.5) == 4.0);
    double m = NAN;
    for (long i = 0; i < 200; i++) m = papc_ewma(m, i, 10.0, 0.25);
    assert_true(fabs(m - 10.0) < 1e-12);
}

static void test_mean_outlier_and_regime(void **state) {
    (void)state;
    papc_mean m;
    papc_mean_init(&m);
    assert_true(isnan(m.mean));
    /* a first sample that is an outlier (a start-up gap), then a regime */
    papc_mean_add(&m, 0.150, 0.25);
    assert_true(m.mean == 0.150);
    papc_mean_add(&m, 0.040, 0.25);   /* clipped, first strike */
    assert_true(m.mean < 0.150 && m.mean > 0.040);
    papc_mean_add(&m, 0.040, 0.25);   /* second strike: restart */
    assert_true(fabs(m.mean - 0.040) < 1e-12);
    for (int i = 0; i < 20; i++) papc_mean_add(&m, 0.040 + (i % 2 ? 1e-3 : -1e-3), 0.25);
    assert_true(fabs(m.mean - 0.040) < 1e-3);
    /* a single outlier moves the mean by at most w * limit */
    double before = m.mean;
    papc_mean_add(&m, 1.0, 0.25);
    assert_true(m.mean - before < 0.25 * (3 * 2e-3 + 0.1 * 0.041 + 50e-6) + 1e-9);
    papc_mean_add(&m, 0.040, 0.25);
    assert_true(fabs(m.mean - 0.040) < 3e-3);
    /* outliers on alternating sides never restart */
    papc_mean_init(&m);
    for (int i = 0; i < 10; i++) papc_mean_add(&m, 0.010, 0.25);
    for (int i = 0; i < 10; i++) papc_mean_add(&m, i % 2 ? 0.5 : 0.0, 0.25);
    assert_true(m.mean > 0.0 && m.mean < 0.1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sorted_unknown_last_ties_by_rank),
        cmocka_unit_test(test_all_unknown_is_rank_order),
        cmocka_unit_test(test_equal_times_rank_order),
        cmocka_unit_test(test_random_vectors),
        cmocka_unit_test(test_offsets),
        cmocka_unit_test(test_reverse),
        cmocka_unit_test(test_shuffle_deterministic_permutation),
        cmocka_unit_test(test_reassign_offsets),
        cmocka_unit_test(test_is_permutation),
        cmocka_unit_test(test_ewma),
        cmocka_unit_test(test_mean_outlier_and_regime),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
