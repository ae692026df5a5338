/*
 * test_pairs.c — the partners of the monitor's busy fit (src/topo/pairs.c,
 * issue 16), no MPI: one node keeps rank ^ 1 (the old pairing); blocks of
 * 16 (SMPI's fattree4096, --map-by core), round-robin placement, odd
 * counts and unequal nodes cross nodes wherever possible; every rank has
 * a partner; each round is a matching; random labels against the
 * properties; bad arguments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "topo/pairs.h"

/* The properties every result must have; returns the number of nodes and
 * the intra-node pairs of the first round in *intra_seen. */
static int check(int P, const int *node, int *first, int *second,
                 int *intra_seen) {
    int intra = -5;
    int nodes = papc_busy_pairs(P, node, first, second, &intra);
    assert_true(nodes >= 1);
    /* the largest node and the node count, by brute force */
    int big = 0, count = 0;
    for (int r = 0; r < P; r++) {
        int n = 0, seen = 0;
        for (int q = 0; q < P; q++) {
            n += node[q] == node[r];
            if (q < r && node[q] == node[r]) seen = 1;
        }
        if (n > big) big = n;
        count += !seen;
    }
    assert_int_equal(nodes, count);
    int in = 0;
    for (int r = 0; r < P; r++) {
        int f = first[r], s = second[r];
        assert_true(f >= -1 && f < P && f != r);
        assert_true(s >= -1 && s < P && s != r);
        if (f >= 0) assert_int_equal(first[f], r);
        if (s >= 0) assert_int_equal(second[s], r);
        if (nodes > 1) {
            assert_true(f >= 0 || s >= 0); /* everyone has a partner */
            if (s >= 0) assert_true(node[s] != node[r]);
            if (f >= 0 && node[f] == node[r] && r < f) in++;
        }
    }
    if (nodes == 1) {
        for (int r = 0; r < P; r++) {
            assert_int_equal(first[r], (r ^ 1) < P ? r ^ 1 : -1);
            assert_int_equal(second[r], -1);
        }
        assert_int_equal(intra, 0);
    } else {
        int h = P / 2;
        /* the fewest intra-node pairs any matching of floor(P/2) pairs
         * can have */
        assert_int_equal(in, big > h ? big - h : 0);
        assert_int_equal(intra, in);
        /* a second round only for the odd one out */
        int n2 = 0;
        for (int r = 0; r < P; r++) n2 += second[r] >= 0;
        assert_int_equal(n2, P % 2 ? 2 : 0);
    }
    if (intra_seen) *intra_seen = in;
    return nodes;
}

static void test_one_node_is_rank_xor_1(void **state) {
    (void)state;
    for (int P = 1; P <= 17; P++) {
        int node[17], first[17], second[17];
        for (int r = 0; r < P; r++) node[r] = 7;
        assert_int_equal(check(P, node, first, second, NULL), 1);
    }
    int node[1] = {0}, first[1], second[1];
    assert_int_equal(papc_busy_pairs(1, node, first, second, NULL), 1);
    assert_int_equal(first[0], -1);
    assert_int_equal(second[0], -1);
}

/* fattree4096: ranks in blocks of 16 per node; P = 512 and 1,024 pair node
 * k with node k + P/32, and no pair stays on a node. */
static void test_blocks_of_16(void **state) {
    (void)state;
    int Ps[] = {32, 48, 512, 1024, 4096, 8, 16};
    for (size_t t = 0; t < sizeof Ps / sizeof Ps[0]; t++) {
        int P = Ps[t];
        int *node = malloc(sizeof(int) * (size_t)P),
            *first = malloc(sizeof(int) * (size_t)P),
            *second = malloc(sizeof(int) * (size_t)P);
        for (int r = 0; r < P; r++) node[r] = r / 16;
        int in = -1;
        int nodes = check(P, node, first, second, &in);
        assert_int_equal(nodes, (P + 15) / 16);
        if (nodes > 1) {
            assert_int_equal(in, 0);
            for (int r = 0; r < P; r++)
                assert_int_equal(first[r], (r + P / 2) % P);
        }
        free(node);
        free(first);
        free(second);
    }
}

/* Round-robin placement (--map-by node): rank ^ 1 was already across;
 * still every pair crosses. */
static void test_round_robin(void **state) {
    (void)state;
    int node[12], first[12], second[12], in = -1;
    for (int r = 0; r < 12; r++) node[r] = r % 4;
    assert_int_equal(check(12, node, first, second, &in), 4);
    assert_int_equal(in, 0);
}

/* Odd counts: 33 ranks in blocks of 16 (nodes of 16, 16, 1): rank 32 has
 * no partner in round 1 and meets rank 0 (another node) in round 2. */
static void test_odd_count(void **state) {
    (void)state;
    int node[33], first[33], second[33], in = -1;
    for (int r = 0; r < 33; r++) node[r] = r / 16;
    assert_int_equal(check(33, node, first, second, &in), 3);
    assert_int_equal(in, 0);
    assert_int_equal(first[32], -1);
    assert_int_equal(second[32], 0);
    assert_int_equal(second[0], 32);
    assert_int_equal(first[0], 16);
    /* 5 ranks on nodes of 3 and 2: one pair stays on the big node (two
     * pairs, only two ranks elsewhere), the odd one crosses in round 2 */
    int n5[5] = {0, 0, 0, 1, 1}, f5[5], s5[5];
    assert_int_equal(check(5, n5, f5, s5, &in), 2);
    assert_int_equal(in, 1);
    assert_int_equal(f5[0], 2);
    assert_int_equal(s5[4], 0);
    /* 3 ranks, 3 nodes */
    int n3[3] = {4, 5, 6}, f3[3], s3[3];
    assert_int_equal(check(3, n3, f3, s3, &in), 3);
}

/* Unequal nodes: 6 ranks on one node and 2 on another leave 2 pairs on the
 * big node (only 2 others to cross with); the big node can be anywhere
 * in the rank order and have any label. */
static void test_unequal_nodes(void **state) {
    (void)state;
    int node[8] = {9, 9, 2, 2, 2, 2, 2, 2}, first[8], second[8], in = -1;
    assert_int_equal(check(8, node, first, second, &in), 2);
    assert_int_equal(in, 2);
    assert_true(node[first[0]] == 2 && node[first[1]] == 2);
    /* 7 ranks on nodes of 5 and 2: pairs (0,3) (1,4) stay on the big node,
     * (2,5) crosses, 6 meets 0 in round 2. */
    int n7[7] = {1, 1, 1, 1, 1, 0, 0}, f7[7], s7[7];
    assert_int_equal(check(7, n7, f7, s7, &in), 2);
    assert_int_equal(in, 2);
    assert_int_equal(f7[2], 5);
    assert_int_equal(s7[6], 0);
    /* one rank per node but one */
    int n6[6] = {0, 0, 1, 2, 3, 4}, f6[6], s6[6];
    assert_int_equal(check(6, n6, f6, s6, &in), 5);
    assert_int_equal(in, 0);
    /* every rank its own node: rank r with r + P/2 (the fallback when
     * MPI_Comm_split_type says nothing) */
    int nr[9], fr[9], sr[9];
    for (int r = 0; r < 9; r++) nr[r] = r;
    assert_int_equal(check(9, nr, fr, sr, &in), 9);
    for (int r = 0; r < 8; r++) assert_int_equal(fr[r], (r + 4) % 8);
    assert_int_equal(sr[8], 0);
}

static void test_random_labels(void **state) {
    (void)state;
    srand(16);
    for (int t = 0; t < 3000; t++) {
        int P = 1 + rand() % 70, nn = 1 + rand() % 9;
        int node[70], first[70], second[70];
        int skew = rand() % 3;
        for (int r = 0; r < P; r++) {
            int l = rand() % nn;
            if (skew == 1 && rand() % 3) l = 0;       /* one big node */
            if (skew == 2) l = (r * nn) / P;          /* blocks */
            node[r] = l * 37 - 100;
        }
        check(P, node, first, second, NULL);
        /* deterministic */
        int f2[70], s2[70];
        papc_busy_pairs(P, node, f2, s2, NULL);
        assert_memory_equal(first, f2, sizeof(int) * (size_t)P);
        assert_memory_equal(second, s2, sizeof(int) * (size_t)P);
    }
}

static void test_bad_arguments(void **state) {
    (void)state;
    int node[2] = {0, 1}, first[2] = {5, 5}, second[2] = {5, 5}, in = 3;
    assert_int_equal(papc_busy_pairs(0, node, first, second, &in), -1);
    assert_int_equal(in, 0);
    assert_int_equal(papc_busy_pairs(2, NULL, first, second, NULL), -1);
    assert_int_equal(papc_busy_pairs(2, node, NULL, second, NULL), -1);
    assert_int_equal(papc_busy_pairs(2, node, first, NULL, NULL), -1);
    assert_int_equal(papc_busy_pairs(2, node, first, second, NULL), 2);
    assert_int_equal(first[0], 1);
    assert_int_equal(second[0], -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_node_is_rank_xor_1),
        cmocka_unit_test(test_blocks_of_16),
        cmocka_unit_test(test_round_robin),
        cmocka_unit_test(test_odd_count),
        cmocka_unit_test(test_unequal_nodes),
        cmocka_unit_test(test_random_labels),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
