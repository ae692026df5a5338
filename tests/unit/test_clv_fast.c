/*
 * test_clv_fast.c — the fast Clairvoyant generator (src/clairvoyant/fast.c,
 * clairvoyant-reduce.md Listing 8) and its segment tree
 * (src/clairvoyant/segtree.h, Listings 3-5), no MPI:
 *   - the segment tree against a naive scan of its leaves: internal nodes,
 *     all-except-one, first-except, find-leftmost, find-leftmost-from,
 *     find-peer, after random leaf/bit updates;
 *   - papc_clv_fast against papc_clv_reference, papc_clv_equal on thousands
 *     of random instances (P, N 1..64, random roots, uniform / integer-tie /
 *     skewed / clustered / far-apart arrivals, random d), every mismatch
 *     printed with its inputs; papc_clv_check on every fast schedule;
 *   - edge cases: P = 1, bad inputs, determinism, bits per cell.
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

#include "clairvoyant/schedule.h"
#include "clairvoyant/segtree.h"

/* ---- random numbers (splitmix64) --------------------------------------- */

static uint64_t rng_state = 12345;

static uint64_t rnd64(void) {
    uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static int rnd(int n) { return (int)(rnd64() % (uint64_t)n); } /* 0..n-1 */
static double unit(void) { return (double)(rnd64() >> 11) * 0x1p-53; }

/* ---- the segment tree against a naive scan ------------------------------ */

static int leaf_bit(const papc_clv_segtree *t, int k, int s) {
    return papc_clv_segtree_bit(t, (size_t)t->m + (size_t)k, s);
}

static void check_tree(const papc_clv_segtree *t, int nbits) {
    const size_t W = 2 * (size_t)t->C;
    /* every internal node is the OR of its children */
    uint64_t *p = malloc(W * sizeof *p), *l = malloc(W * sizeof *l),
             *r = malloc(W * sizeof *r);
    assert_true(p && l && r);
    for (size_t i = 1; i < (size_t)t->m; i++) {
        papc_clv_segtree_get(t, i, p);
        papc_clv_segtree_get(t, 2 * i, l);
        papc_clv_segtree_get(t, 2 * i + 1, r);
        for (size_t w = 0; w < W; w++) assert_true(p[w] == (l[w] | r[w]));
    }
    free(p);
    free(l);
    free(r);
    uint64_t *naive = malloc(W * sizeof *naive);
    papc_clv_vec *fast = aligned_alloc(16, (size_t)t->C * sizeof *fast);
    papc_clv_vec *zero = aligned_alloc(16, (size_t)t->C * sizeof *zero);
    papc_clv_vec *mask = aligned_alloc(16, (size_t)t->C * sizeof *mask);
    assert_non_null(naive);
    assert_non_null(fast);
    assert_non_null(zero);
    assert_non_null(mask);
    memset(zero, 0, (size_t)t->C * sizeof *zero);
    for (int k = 0; k < t->m; k++) {
        /* Listing 3 */
        papc_clv_segtree_naive_or(t, k, naive);
        papc_clv_segtree_all_except_one(t, k, zero, fast);
        assert_memory_equal(naive, fast, W * sizeof *naive);
        /* first-except with a random mask (and with none), from a random
         * first chunk */
        uint64_t *mw = (uint64_t *)mask;
        for (size_t w = 0; w < W; w++)
            mw[w] = rnd(4) ? rnd64() & rnd64() : 0;
        int c0 = rnd(t->C + 1);
        int want = -1, want_all = -1;
        for (int s = c0 * 128; s < nbits; s++) {
            int in = (int)((naive[s >> 6] >> (s & 63)) & 1u);
            if (in && want_all < 0) want_all = s;
            if (in && ((mw[s >> 6] >> (s & 63)) & 1u) && want < 0) want = s;
        }
        assert_int_equal(papc_clv_segtree_first_except(t, k, mask, c0), want);
        assert_int_equal(papc_clv_segtree_first_except(t, k, NULL, c0),
                         want_all);
    }
    for (int s = 0; s < nbits; s++) {
        /* Listing 4 */
        int left = -1;
        for (int k = 0; k < t->m && left < 0; k++)
            if (leaf_bit(t, k, s)) left = k;
        assert_int_equal(papc_clv_segtree_find_leftmost(t, 1, s), left);
        /* Listing 5, from every leaf; FIND-PEER for every leaf */
        for (int k = 0; k < t->m; k++) {
            int next = -1, peer = -1;
            for (int j = k + 1; j < t->m && next < 0; j++)
                if (leaf_bit(t, j, s)) next = j;
            for (int j = 0; j < t->m && peer < 0; j++)
                if (j != k && leaf_bit(t, j, s)) peer = j;
            assert_int_equal(papc_clv_segtree_find_leftmost_from(t, k, s),
                             next);
            assert_int_equal(papc_clv_segtree_find_peer(t, k, s), peer);
        }
    }
    free(naive);
    free(fast);
    free(zero);
    free(mask);
}

static void test_segtree_against_naive(void **state) {
    (void)state;
    rng_state = 1;
    for (int rep = 0; rep < 300; rep++) {
        int n = 1 + rnd(40), nbits = 1 + rnd(rep % 3 ? 140 : 400);
        papc_clv_segtree t;
        assert_int_equal(papc_clv_segtree_init(&t, n + rnd(8), nbits), 0);
        int dense = rnd(3);
        papc_clv_segtree_reset(&t, n);
        papc_clv_vec *col = aligned_alloc(16, (size_t)t.C * sizeof *col);
        assert_non_null(col);
        for (int k = 0; k < n; k++) {
            uint64_t *w = (uint64_t *)col;
            memset(col, 0, (size_t)t.C * sizeof *col);
            for (int s = 0; s < nbits; s++) {
                int on = dense == 0   ? rnd(2)
                         : dense == 1 ? rnd(10) == 0
                                      : rnd(10) != 0;
                if (on) w[s >> 6] |= UINT64_C(1) << (s & 63);
            }
            papc_clv_segtree_set_leaf(&t, k, col);
        }
        free(col);
        papc_clv_segtree_build(&t);
        check_tree(&t, nbits);
        /* random updates, each keeping the invariants */
        for (int u = 0; u < 12; u++) {
            int k = rnd(t.m), s = rnd(nbits);
            switch (rnd(3)) {
            case 0: papc_clv_segtree_clear_leaf(&t, k); break;
            case 1: papc_clv_segtree_clear_bit(&t, k, s); break;
            default: papc_clv_segtree_set_bit(&t, k, s); break;
            }
            if (u % 4 == 3) check_tree(&t, nbits);
        }
        check_tree(&t, nbits);
        papc_clv_segtree_free(&t);
    }
}

/* ---- fast against the reference ----------------------------------------- */

enum { MAXP = 64 };

static void print_instance(const char *what, const double *a, int P, int N,
                           int root, double d) {
    fprintf(stderr, "%s: P=%d N=%d root=%d d=%a (%.17g)\n  arrival = {", what,
            P, N, root, d, d);
    for (int p = 0; p < P; p++)
        fprintf(stderr, "%s%a", p ? ", " : "", a[p]);
    fprintf(stderr, "}\n");
}

static const char *first_difference(const papc_clv_schedule *r,
                                    const papc_clv_schedule *f, char *buf,
                                    size_t len) {
    if (r->rounds != f->rounds || r->nevents != f->nevents) {
        snprintf(buf, len, "rounds %d / %d, events %zu / %zu (ref / fast)",
                 r->rounds, f->rounds, r->nevents, f->nevents);
        return buf;
    }
    for (int p = 0; p < r->P; p++)
        for (size_t i = r->first[p], j = f->first[p];
             i < r->first[p + 1] || j < f->first[p + 1]; i++, j++) {
            const papc_clv_event *x =
                i < r->first[p + 1] ? &r->events[i] : NULL;
            const papc_clv_event *y =
                j < f->first[p + 1] ? &f->events[j] : NULL;
            if (x && y && !memcmp(x, y, sizeof *x)) continue;
            snprintf(buf, len,
                     "process %d event %zu: ref (round %d peer %d seg %d "
                     "kind %d), fast (round %d peer %d seg %d kind %d)",
                     p, i - r->first[p], x ? x->round : -1,
                     x ? x->peer : -1, x ? x->segment : -1,
                     x ? x->kind : -1, y ? y->round : -1, y ? y->peer : -1,
                     y ? y->segment : -1, y ? y->kind : -1);
            return buf;
        }
    snprintf(buf, len, "(no difference found)");
    return buf;
}

/* One random instance of kind `kind`. */
static void make_instance(int kind, double *a, int *P, int *N, int *root,
                          double *d) {
    *P = 1 + rnd(rnd(4) ? 24 : MAXP);
    *N = 1 + rnd(rnd(4) ? 24 : MAXP);
    *root = rnd(*P);
    switch (rnd(5)) { /* d */
    case 0: *d = 1.0; break;
    case 1: *d = 0.5; break;
    case 2: *d = 0.001 + unit() * 0.999; break;
    case 3: *d = 0.1; break;
    default: *d = 0.01 + unit() * 3.0; break;
    }
    const int P_ = *P;
    switch (kind) {
    case 0: /* uniform, as Sect. 5.7 */
        for (int p = 0; p < P_; p++) a[p] = unit() * (P_ + 0.1);
        break;
    case 1: /* integer times: ties, and exact window edges with d = 1, .5 */
        for (int p = 0; p < P_; p++) a[p] = (double)rnd(1 + rnd(6));
        break;
    case 2: /* skewed, as Sect. 5.7: all at 0, one late */
        for (int p = 0; p < P_; p++) a[p] = 0.0;
        a[rnd(P_)] = rnd(2) ? (double)*N : unit() * 3 * *N;
        break;
    case 3: /* multiples of d / 2 and of 0.1: on the grid and near it */
        for (int p = 0; p < P_; p++)
            a[p] = rnd(2) ? rnd(6) * *d * 0.5 : rnd(8) * 0.1;
        break;
    case 4: /* far apart: long idle stretches, negative times */
        for (int p = 0; p < P_; p++)
            a[p] = (rnd(3) ? -50.0 : 0.0) + unit() * 1000.0 * *d;
        break;
    default: /* few clusters */
        {
            double c[3] = {unit() * 5, unit() * 5, unit() * 5};
            for (int p = 0; p < P_; p++) a[p] = c[rnd(3)] + unit() * 0.01;
        }
        break;
    }
}

static void test_agrees_with_reference(void **state) {
    (void)state;
    rng_state = 2024;
    enum { INSTANCES = 20000, KINDS = 6 };
    int mismatches = 0, failures = 0, checked = 0;
    double a[MAXP];
    char why[256], diff[256];
    for (int it = 0; it < INSTANCES; it++) {
        int P, N, root;
        double d;
        const int kind = it % KINDS;
        make_instance(kind, a, &P, &N, &root, &d);
        papc_clv_schedule r, f;
        int er = papc_clv_reference(a, P, N, root, d, &r);
        int ef = papc_clv_fast(a, P, N, root, d, &f);
        if (er != 0 || ef != 0) {
            if (failures++ < 10) {
                print_instance("generator failed", a, P, N, root, d);
                fprintf(stderr, "  reference %d fast %d\n", er, ef);
            }
        } else if (!papc_clv_equal(&r, &f)) {
            if (mismatches++ < 10) {
                print_instance("MISMATCH fast vs reference", a, P, N, root,
                               d);
                fprintf(stderr, "  kind %d: %s\n", kind,
                        first_difference(&r, &f, diff, sizeof diff));
            }
        } else if (papc_clv_check(&f, a, d, why, sizeof why) != 0) {
            if (failures++ < 10) {
                print_instance("papc_clv_check failed", a, P, N, root, d);
                fprintf(stderr, "  %s\n", why);
            }
        } else {
            checked++;
        }
        papc_clv_free(&r);
        papc_clv_free(&f);
    }
    if (mismatches || failures)
        fprintf(stderr, "%d mismatches, %d failures in %d instances\n",
                mismatches, failures, INSTANCES);
    assert_int_equal(mismatches, 0);
    assert_int_equal(failures, 0);
    assert_int_equal(checked, INSTANCES);
}

/* A few larger instances (the word boundaries at N = 64, 128, 129, ...) */
static void test_agrees_larger(void **state) {
    (void)state;
    rng_state = 77;
    static const int sizes[][2] = {{64, 64},  {65, 127}, {100, 128},
                                   {33, 129}, {128, 65}, {96, 200},
                                   {150, 40}, {7, 300}};
    double a[160];
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int kind = 0; kind < 3; kind++) {
            int P = sizes[i][0], N = sizes[i][1], root = rnd(P);
            double d = kind == 1 ? 1.0 : 0.001 + unit() * 0.999;
            for (int p = 0; p < P; p++)
                a[p] = kind == 0   ? unit() * (P + 0.1)
                       : kind == 1 ? (double)rnd(4)
                                   : (p == P - 1 ? (double)N : 0.0);
            papc_clv_schedule r, f;
            assert_int_equal(papc_clv_reference(a, P, N, root, d, &r), 0);
            assert_int_equal(papc_clv_fast(a, P, N, root, d, &f), 0);
            if (!papc_clv_equal(&r, &f)) {
                char diff[256];
                print_instance("MISMATCH fast vs reference", a, P, N, root,
                               d);
                fprintf(stderr, "  %s\n",
                        first_difference(&r, &f, diff, sizeof diff));
            }
            assert_true(papc_clv_equal(&r, &f));
            char why[256];
            assert_int_equal(papc_clv_check(&f, a, d, why, sizeof why), 0);
            papc_clv_free(&r);
            papc_clv_free(&f);
        }
}

/* The paper's own examples (Sect. 4.2, 5.1, Fig. 5). */
static void test_paper_examples(void **state) {
    (void)state;
    struct {
        double a[4];
        int P, N, root;
        double d;
    } ex[] = {
        {{0, 0, 0, 1.1}, 4, 4, 0, 1.0},   /* Sect. 4.2: the P' state */
        {{0, 1, 2, 3}, 4, 1, 0, 0.001},   /* Sect. 5.1: idle rounds */
        {{0.2, 1.1, 2.3, 0}, 3, 3, 1, 1.0}, /* Fig. 5 */
        {{0.2, 1.1, 2.3, 0}, 3, 3, 0, 1.0},
        /* a process at exactly head + d: the doubled fractional indices of
         * Sect. 5.4.3 would order it next to the head (fast.c) */
        {{1, 1, 0.5, 1.5}, 4, 2, 0, 1.0},
    };
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        papc_clv_schedule r, f;
        assert_int_equal(papc_clv_reference(ex[i].a, ex[i].P, ex[i].N,
                                            ex[i].root, ex[i].d, &r), 0);
        assert_int_equal(papc_clv_fast(ex[i].a, ex[i].P, ex[i].N, ex[i].root,
                                       ex[i].d, &f), 0);
        assert_true(papc_clv_equal(&r, &f));
        char why[256];
        assert_int_equal(papc_clv_check(&f, ex[i].a, ex[i].d, why,
                                        sizeof why), 0);
        papc_clv_free(&r);
        papc_clv_free(&f);
    }
    /* Sect. 5.1: 1 s apart, d = 1 ms — the last arrival is 3000 rounds
     * after the first, one segment: 3 transfers, into the root */
    double a[4] = {0, 1, 2, 3};
    papc_clv_schedule f;
    assert_int_equal(papc_clv_fast(a, 4, 1, 0, 0.001, &f), 0);
    assert_int_equal((int)f.nevents, 6);
    assert_true(f.rounds >= 3000);
    papc_clv_free(&f);
}

static void test_single_process_and_bad_inputs(void **state) {
    (void)state;
    double a[3] = {0.5, 1.0, 2.0};
    papc_clv_schedule f;
    for (int N = 1; N <= 130; N += 43) {
        assert_int_equal(papc_clv_fast(a, 1, N, 0, 1.0, &f), 0);
        assert_int_equal((int)f.nevents, 0);
        assert_int_equal(f.rounds, 0);
        assert_int_equal(f.P, 1);
        papc_clv_free(&f);
    }
    double nan_a[2] = {0.0, NAN}, inf_a[2] = {0.0, INFINITY};
    assert_int_equal(papc_clv_fast(NULL, 2, 1, 0, 1.0, &f), -1);
    assert_null(f.events);
    assert_int_equal(papc_clv_fast(a, 0, 1, 0, 1.0, &f), -1);
    assert_int_equal(papc_clv_fast(a, 3, 0, 0, 1.0, &f), -1);
    assert_int_equal(papc_clv_fast(a, 3, 1, 3, 1.0, &f), -1);
    assert_int_equal(papc_clv_fast(a, 3, 1, -1, 1.0, &f), -1);
    assert_int_equal(papc_clv_fast(a, 3, 1, 0, 0.0, &f), -1);
    assert_int_equal(papc_clv_fast(a, 3, 1, 0, -1.0, &f), -1);
    assert_int_equal(papc_clv_fast(a, 3, 1, 0, NAN, &f), -1);
    assert_int_equal(papc_clv_fast(a, 3, 1, 0, INFINITY, &f), -1);
    assert_int_equal(papc_clv_fast(nan_a, 2, 1, 0, 1.0, &f), -1);
    assert_int_equal(papc_clv_fast(inf_a, 2, 1, 0, 1.0, &f), -1);
    assert_int_equal(papc_clv_fast(a, 3, 1, 0, 1.0, NULL), -1);
    assert_null(f.first);
    assert_int_equal((int)f.nevents, 0);
    papc_clv_free(&f); /* empty: safe */
}

static void test_deterministic(void **state) {
    (void)state;
    rng_state = 99;
    double a[MAXP];
    for (int it = 0; it < 50; it++) {
        int P, N, root;
        double d;
        make_instance(it % 6, a, &P, &N, &root, &d);
        papc_clv_schedule x, y;
        assert_int_equal(papc_clv_fast(a, P, N, root, d, &x), 0);
        assert_int_equal(papc_clv_fast(a, P, N, root, d, &y), 0);
        assert_true(papc_clv_equal(&x, &y));
        papc_clv_free(&x);
        papc_clv_free(&y);
    }
}

static void test_bits_per_cell(void **state) {
    (void)state;
    /* Sect. 5.5: about 5 bits per (process, segment) cell at most */
    assert_true(papc_clv_fast_bits_per_cell(512, 512) <= 5.0);
    assert_true(papc_clv_fast_bits_per_cell(2048, 2048) <= 5.0);
    assert_true(papc_clv_fast_bits_per_cell(1000, 1000) <= 5.0);
    assert_true(papc_clv_fast_bits_per_cell(512, 512) >= 1.0);
    assert_true(papc_clv_fast_bits_per_cell(0, 5) == 0.0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_segtree_against_naive),
        cmocka_unit_test(test_paper_examples),
        cmocka_unit_test(test_single_process_and_bad_inputs),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_bits_per_cell),
        cmocka_unit_test(test_agrees_larger),
        cmocka_unit_test(test_agrees_with_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
