/*
 * test_radix_k.c — the Radix-k arithmetic of src/topo/radix_k.c, without
 * MPI.  For P = 1..200 and several preference lists it checks:
 *   - the factorisation: factors >= 2 multiply to P; the preferred sizes
 *     come first, in list order, each taken as long as it divides what is
 *     left; the rest are primes in ascending order; strides are the
 *     running products;
 *   - groups: member j of v's round-i group has digit j there and v's
 *     other digits, member d_i is v itself, members agree on the group;
 *   - ranges: every member of a group holds the same block range at the
 *     start of a round, part j of it is exactly member j's range at the
 *     start of the next round, the final blocks are a permutation of
 *     0..P-1, and their element ranges tile [0, count) for several counts
 *     (count < P included);
 *   - the whole algorithm on contribution sets (P <= 64, one bit per
 *     rank): the reduce-scatter never joins a contribution twice and ends
 *     with every block complete at its holder; the gather walked back
 *     brings every block to virtual rank 0, sent only by holders.
 * Plus a few factorisations written out and the parser of PAPC_RADIX_K.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "topo/radix_k.h"

#define MAXP 200

static int is_prime(int q) {
    if (q < 2) return 0;
    for (int d = 2; d * d <= q; d++)
        if (q % d == 0) return 0;
    return 1;
}

/* Index of k in prefs (skipping sizes < 2), -1 when absent. */
static int pref_index(const int *prefs, int n, int k) {
    for (int p = 0; p < n; p++)
        if (prefs[p] == k) return p;
    return -1;
}

static void check_factorisation(const papc_radix *r, int P, const int *prefs,
                                int npref) {
    long long prod = 1;
    int i = 0, rest = P, last_pref = -1;
    assert_int_equal(r->size, P);
    assert_int_equal(r->stride[0], 1);
    for (int k = 0; k < r->nrounds; k++) {
        assert_true(r->k[k] >= 2);
        prod *= r->k[k];
        assert_int_equal(r->stride[k + 1], prod);
    }
    assert_int_equal(prod, P);
    /* The preferred part: list order, greedy. */
    for (; i < r->nrounds; i++) {
        int p = pref_index(prefs, npref, r->k[i]);
        if (p < 0 || p < last_pref) break;
        /* Every earlier preference no longer divides what is left. */
        for (int q = 0; q < p; q++)
            if (prefs[q] >= 2) assert_int_not_equal(rest % prefs[q], 0);
        last_pref = p;
        rest /= r->k[i];
    }
    for (int q = 0; q < npref; q++)
        if (prefs[q] >= 2) assert_int_not_equal(rest % prefs[q], 0);
    /* The rest: ascending primes. */
    for (int prev = 2; i < r->nrounds; i++) {
        assert_true(is_prime(r->k[i]));
        assert_true(r->k[i] >= prev);
        prev = r->k[i];
        rest /= r->k[i];
    }
    assert_int_equal(rest, 1);
}

static void check_groups(const papc_radix *r) {
    int P = r->size;
    for (int i = 0; i < r->nrounds; i++)
        for (int v = 0; v < P; v++) {
            int d = papc_radix_digit(r, v, i), blo, nb;
            assert_true(d >= 0 && d < r->k[i]);
            assert_int_equal(papc_radix_member(r, v, i, d), v);
            papc_radix_blocks(r, v, i, &blo, &nb);
            assert_int_equal(nb * r->stride[i], P);
            for (int j = 0; j < r->k[i]; j++) {
                int u = papc_radix_member(r, v, i, j), ublo, unb;
                assert_true(u >= 0 && u < P);
                assert_int_equal(papc_radix_digit(r, u, i), j);
                for (int l = 0; l < r->nrounds; l++)
                    if (l != i)
                        assert_int_equal(papc_radix_digit(r, u, l),
                                         papc_radix_digit(r, v, l));
                assert_int_equal(papc_radix_member(r, u, i, d), v);
                papc_radix_blocks(r, u, i, &ublo, &unb);
                assert_int_equal(ublo, blo);
                assert_int_equal(unb, nb);
                /* Part j is u's range at the start of round i + 1. */
                papc_radix_blocks(r, u, i + 1, &ublo, &unb);
                assert_int_equal(unb * r->k[i], nb);
                assert_int_equal(ublo, blo + j * unb);
            }
        }
}

static void check_final_cover(const papc_radix *r) {
    int P = r->size;
    static int owner[MAXP];
    static const int counts[] = {0, 1, 2, 7, 17, 199, 200, 201, 1000, 65536};
    for (int b = 0; b < P; b++) owner[b] = -1;
    for (int v = 0; v < P; v++) {
        int blo, nb;
        papc_radix_blocks(r, v, r->nrounds, &blo, &nb);
        assert_int_equal(nb, 1);
        assert_true(blo >= 0 && blo < P);
        assert_int_equal(owner[blo], -1);
        owner[blo] = v;
    }
    for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++) {
        int count = counts[ci], next = 0;
        for (int b = 0; b < P; b++) { /* blocks tile [0, count) in order */
            int off, len;
            papc_radix_elems(count, P, b, 1, &off, &len);
            assert_int_equal(off, next);
            assert_true(len == count / P || len == count / P + 1);
            next += len;
        }
        assert_int_equal(next, count);
        /* papc_radix_part agrees with the blocks it names. */
        for (int i = 0; i < r->nrounds; i++)
            for (int v = 0; v < P; v++) {
                int off, len, boff, blen, ublo, unb;
                int j = papc_radix_digit(r, v, i);
                papc_radix_part(r, count, v, i, j, &off, &len);
                papc_radix_blocks(r, v, i + 1, &ublo, &unb);
                papc_radix_elems(count, P, ublo, unb, &boff, &blen);
                assert_int_equal(off, boff);
                assert_int_equal(len, blen);
            }
    }
}

/* Contribution sets per (virtual rank, block): the reduce-scatter joins
 * disjoint sets only and completes each rank's final block; the gather
 * walked back delivers every complete block to rank 0. */
static void check_simulation(const papc_radix *r) {
    int P = r->size;
    if (P > 64) return;
    uint64_t *m = calloc((size_t)P * P, sizeof *m), full = 0;
    assert_non_null(m);
    for (int v = 0; v < P; v++) {
        full |= (uint64_t)1 << v;
        for (int b = 0; b < P; b++) m[v * P + b] = (uint64_t)1 << v;
    }
    for (int i = 0; i < r->nrounds; i++)
        for (int v = 0; v < P; v++) {
            int d = papc_radix_digit(r, v, i), blo, nb;
            papc_radix_blocks(r, v, i + 1, &blo, &nb); /* my part */
            for (int j = 0; j < r->k[i]; j++) {
                if (j == d) continue;
                int u = papc_radix_member(r, v, i, j);
                /* u's part is elsewhere, so u's data on my part are as
                 * they were at the start of the round. */
                for (int b = blo; b < blo + nb; b++) {
                    assert_int_equal(m[v * P + b] & m[u * P + b], 0);
                    m[v * P + b] |= m[u * P + b];
                }
            }
        }
    for (int v = 0; v < P; v++) {
        int blo, nb;
        papc_radix_blocks(r, v, r->nrounds, &blo, &nb);
        assert_true(m[v * P + blo] == full);
    }
    /* Gather: "has" marks complete blocks a rank holds. */
    char *has = calloc((size_t)P * P, 1);
    assert_non_null(has);
    for (int v = 0; v < P; v++) {
        int blo, nb;
        papc_radix_blocks(r, v, r->nrounds, &blo, &nb);
        has[v * P + blo] = 1;
    }
    for (int i = r->nrounds - 1; i >= 0; i--)
        for (int v = 0; v < P; v++) {
            int d = papc_radix_digit(r, v, i), blo, nb, active = 1;
            for (int l = i + 1; l < r->nrounds; l++)
                active &= papc_radix_digit(r, v, l) == 0;
            if (!active || d == 0) continue;
            int to = papc_radix_member(r, v, i, 0);
            papc_radix_blocks(r, v, i + 1, &blo, &nb);
            for (int b = blo; b < blo + nb; b++) {
                assert_true(has[v * P + b]); /* sends only what it holds */
                assert_false(has[to * P + b]);
                has[to * P + b] = 1;
            }
        }
    for (int b = 0; b < P; b++) assert_true(has[b]);
    free(has);
    free(m);
}

static const int L_default[] = {8, 4, 2};
static const int L_4_2[] = {4, 2};
static const int L_2[] = {2};
static const int L_3[] = {3};
static const int L_16[] = {16};
static const int L_6_4[] = {6, 4};
static const int L_1_5[] = {1, 5}; /* a size < 2 is skipped */
static const struct {
    const int *prefs;
    int n;
} lists[] = {{L_default, 3}, {L_4_2, 2}, {L_2, 1}, {L_3, 1},
             {L_16, 1},      {L_6_4, 2}, {L_1_5, 2}, {NULL, 0}};

static void test_all_sizes(void **state) {
    (void)state;
    for (size_t li = 0; li < sizeof lists / sizeof *lists; li++)
        for (int P = 1; P <= MAXP; P++) {
            papc_radix r;
            papc_radix_factor(&r, P, lists[li].prefs, lists[li].n);
            check_factorisation(&r, P, lists[li].prefs, lists[li].n);
            check_groups(&r);
            check_final_cover(&r);
            check_simulation(&r);
        }
}

static void expect(int P, const int *prefs, int n, const int *k, int nk) {
    papc_radix r;
    papc_radix_factor(&r, P, prefs, n);
    assert_int_equal(r.nrounds, nk);
    for (int i = 0; i < nk; i++) assert_int_equal(r.k[i], k[i]);
}

static void test_examples(void **state) {
    (void)state;
    const int *d = papc_radix_default_prefs;
    int nd = papc_radix_default_nprefs;
    assert_int_equal(nd, 3);
    expect(1, d, nd, NULL, 0);
    expect(2, d, nd, (int[]){2}, 1);
    expect(12, d, nd, (int[]){4, 3}, 2);
    expect(13, d, nd, (int[]){13}, 1);
    expect(16, d, nd, (int[]){8, 2}, 2);
    expect(32, d, nd, (int[]){8, 4}, 2);
    expect(48, d, nd, (int[]){8, 2, 3}, 3);
    expect(64, d, nd, (int[]){8, 8}, 2);
    expect(90, d, nd, (int[]){2, 3, 3, 5}, 4);
    expect(16, L_4_2, 2, (int[]){4, 4}, 2);
    expect(24, L_4_2, 2, (int[]){4, 2, 3}, 3);
    expect(12, L_3, 1, (int[]){3, 2, 2}, 3);
    expect(2147483647, d, nd, (int[]){2147483647}, 1); /* prime */
}

static void test_parse(void **state) {
    (void)state;
    int p[PAPC_RADIX_MAX_PREFS];
    assert_int_equal(papc_radix_parse_prefs("8", p), 1);
    assert_int_equal(p[0], 8);
    assert_int_equal(papc_radix_parse_prefs("4,2", p), 2);
    assert_int_equal(p[0], 4);
    assert_int_equal(p[1], 2);
    assert_int_equal(papc_radix_parse_prefs(" 16 , 3 ", p), 2);
    assert_int_equal(p[1], 3);
    assert_int_equal(papc_radix_parse_prefs("2,2,2,2,2,2,2,2", p), 8);
    const char *bad[] = {NULL, "", " ", "x", "1", "0", "-4", "8,", ",8",
                         "8,,4", "4x", "8;4", "5000",
                         "2,2,2,2,2,2,2,2,2"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(papc_radix_parse_prefs(bad[i], p), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_examples),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_all_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
