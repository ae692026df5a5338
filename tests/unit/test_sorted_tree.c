/*
 * test_sorted_tree.c — the arrival-sorted binomial trees of SBN/BSBN
 * (src/topo/sorted_tree.h), no MPI: the tree at every P up to 64 and a few
 * big ones, the scatter ranking (a simulation of the sends agrees, bit
 * reversal for powers of two), the gather ranking (tails ascending, the
 * paper's plain order for powers of two when bandwidth dominates), and the
 * maps from random arrival orders with every root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "topo/sorted_tree.h"

#define MAXP 64
static const int big_sizes[] = {100, 127, 128, 129, 1000, 1024, 1025};
#define NBIG ((int)(sizeof big_sizes / sizeof *big_sizes))

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            char what_[200];                                                  \
            snprintf(what_, sizeof what_, __VA_ARGS__);                       \
            fail_msg("%s", what_);                                            \
        }                                                                     \
    } while (0)

static int is_perm(int n, const int *a) {
    int *seen = calloc((size_t)n, sizeof *seen), ok = 1;
    for (int i = 0; i < n && ok; i++) {
        if (a[i] < 0 || a[i] >= n || seen[a[i]]) ok = 0;
        else seen[a[i]] = 1;
    }
    free(seen);
    return ok;
}

/* xorshift, so the random orders are the same on every run. */
static uint32_t rng_state = 2463534242u;
static uint32_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}
static void shuffle(int n, int *a) {
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rnd() % (uint32_t)(i + 1)), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* ---- the tree ---- */

static void check_tree(int P) {
    int *nparent = calloc((size_t)P, sizeof(int));
    int *count = calloc((size_t)P, sizeof(int)); /* subtree sizes, counted */
    int kids[PAPC_STREE_MAX_CHILDREN];
    CHECK(papc_stree_parent(0) == -1, "root has a parent");
    CHECK(papc_stree_span(0, P) == P, "P %d: root span", P);
    for (int v = 0; v < P; v++) {
        int n = papc_stree_children(v, P, kids), prev_span = P + 1;
        CHECK(n >= 0 && n <= PAPC_STREE_MAX_CHILDREN, "P %d v %d: %d kids", P,
              v, n);
        int byrank[PAPC_STREE_MAX_CHILDREN];
        memcpy(byrank, kids, sizeof kids);
        for (int i = 1; i < n; i++) /* insertion sort by nrank */
            for (int j = i; j > 0 && byrank[j - 1] > byrank[j]; j--) {
                int t = byrank[j];
                byrank[j] = byrank[j - 1];
                byrank[j - 1] = t;
            }
        int next = v + 1; /* children's subtrees tile (v, v + span) */
        for (int i = 0; i < n; i++) {
            int c = byrank[i];
            CHECK(c > v && c < P, "P %d: child %d of %d", P, c, v);
            CHECK(papc_stree_parent(c) == v, "P %d: child %d of %d has parent"
                  " %d", P, c, v, papc_stree_parent(c));
            CHECK(c == next, "P %d: child %d of %d leaves a gap at %d", P, c,
                  v, next);
            next = c + papc_stree_span(c, P);
            nparent[c]++;
        }
        CHECK(next == v + papc_stree_span(v, P), "P %d: children of %d end at"
              " %d, subtree at %d", P, v, next, v + papc_stree_span(v, P));
        for (int i = 0; i < n; i++) { /* largest subtree first */
            int s = papc_stree_span(kids[i], P);
            CHECK(s <= prev_span, "P %d: children of %d not largest first", P,
                  v);
            prev_span = s;
        }
        /* v lies in the subtree of each of its ancestors, a range. */
        for (int a = v, steps = 0; a != -1; a = papc_stree_parent(a)) {
            CHECK(v >= a && v < a + papc_stree_span(a, P), "P %d: %d outside "
                  "the range of its ancestor %d", P, v, a);
            count[a]++;
            CHECK(++steps <= P, "P %d: %d never reaches the root", P, v);
        }
    }
    for (int v = 0; v < P; v++) {
        CHECK(nparent[v] == (v == 0 ? 0 : 1), "P %d: nrank %d has %d parents",
              P, v, nparent[v]);
        CHECK(count[v] == papc_stree_span(v, P), "P %d: subtree of %d has %d "
              "nodes, span %d", P, v, count[v], papc_stree_span(v, P));
    }
    free(nparent);
    free(count);
}

static void test_tree(void **state) {
    (void)state;
    for (int P = 1; P <= MAXP; P++) check_tree(P);
    for (int i = 0; i < NBIG; i++) check_tree(big_sizes[i]);
}

/* ---- the scatter ranking ---- */

static int bitrev(int i, int bits) {
    int r = 0;
    for (int b = 0; b < bits; b++)
        if (i & (1 << b)) r |= 1 << (bits - 1 - b);
    return r;
}

/* Simulates the scatter: every holder sends to its children largest
 * first, one per step; returns the step at which each nrank receives. */
static void simulate_scatter(int P, int *recv_step) {
    int kids[PAPC_STREE_MAX_CHILDREN];
    for (int v = 0; v < P; v++) recv_step[v] = -1;
    recv_step[0] = 0;
    for (int v = 0; v < P; v++) { /* parents have smaller nranks */
        CHECK(recv_step[v] >= 0, "P %d: %d not reached", P, v);
        int n = papc_stree_children(v, P, kids);
        for (int i = 0; i < n; i++) recv_step[kids[i]] = recv_step[v] + i + 1;
    }
}

static void check_scatter_seq(int P) {
    int *seq = malloc((size_t)P * sizeof(int));
    int *step = malloc((size_t)P * sizeof(int));
    int *pos = malloc((size_t)P * sizeof(int));
    assert_int_equal(papc_stree_scatter_seq(P, seq), 0);
    CHECK(seq[0] == 0 && is_perm(P, seq), "P %d: seq not a permutation", P);
    simulate_scatter(P, step);
    for (int i = 0; i < P; i++) pos[seq[i]] = i;
    int maxstep = 0;
    for (int v = 0; v < P; v++) {
        CHECK(papc_stree_scatter_step(v, P) == step[v], "P %d: step of %d", P,
              v);
        if (step[v] > maxstep) maxstep = step[v];
    }
    int bits = 0;
    while ((1 << bits) < P) bits++;
    CHECK(maxstep == bits, "P %d: the scatter takes %d steps", P, maxstep);
    /* Ranked by receive step, then by the parent's rank. */
    for (int i = 1; i + 1 < P; i++) {
        int a = seq[i], b = seq[i + 1];
        CHECK(step[a] < step[b] ||
                  (step[a] == step[b] && pos[papc_stree_parent(a)] <
                                             pos[papc_stree_parent(b)]),
              "P %d: %d ranked before %d", P, a, b);
    }
    if ((P & (P - 1)) == 0)
        for (int i = 0; i < P; i++)
            CHECK(seq[i] == bitrev(i, bits), "P %d: seq[%d] = %d, bit "
                  "reversal %d", P, i, seq[i], bitrev(i, bits));
    free(seq);
    free(step);
    free(pos);
}

static void test_scatter_seq(void **state) {
    (void)state;
    for (int P = 1; P <= MAXP; P++) check_scatter_seq(P);
    for (int i = 0; i < NBIG; i++) check_scatter_seq(big_sizes[i]);
    int seq[8];
    papc_stree_scatter_seq(8, seq); /* the paper's example */
    int expect[8] = {0, 4, 2, 6, 1, 5, 3, 7};
    assert_memory_equal(seq, expect, sizeof expect);
    papc_stree_scatter_seq(6, seq); /* 4 has one child: 5 gets it at 2 */
    int expect6[6] = {0, 4, 2, 5, 1, 3};
    assert_memory_equal(seq, expect6, sizeof expect6);
}

/* ---- the gather ranking ---- */

static const double costs[][2] = {{1, 0}, {0, 1}, {1, 1}, {5, 0.25},
                                  {1e-6, 1e-9}, {0, 0}};
#define NCOSTS ((int)(sizeof costs / sizeof *costs))

static void check_gather_seq(int P, double alpha, double bc) {
    int *seq = malloc((size_t)P * sizeof(int));
    assert_int_equal(papc_stree_gather_seq(P, alpha, bc, seq), 0);
    CHECK(seq[0] == 0 && is_perm(P, seq), "P %d: seq not a permutation", P);
    for (int i = 1; i + 1 < P; i++)
        CHECK(papc_stree_gather_tail(seq[i], P, alpha, bc) <=
                  papc_stree_gather_tail(seq[i + 1], P, alpha, bc),
              "P %d (%g, %g): tails not ascending at %d", P, alpha, bc, i);
    /* The tail sums the sends on the path: check one by hand-walk. */
    if (P > 1) {
        double t = 0;
        for (int v = P - 1; v > 0; v = papc_stree_parent(v))
            t += alpha + bc * papc_stree_span(v, P);
        CHECK(papc_stree_gather_tail(P - 1, P, alpha, bc) == t, "P %d tail",
              P);
    }
    if ((P & (P - 1)) == 0 && alpha == 0 && bc > 0) /* paper: i-th latest */
        for (int i = 0; i < P; i++)
            CHECK(seq[i] == i, "P %d: seq[%d] = %d", P, i, seq[i]);
    free(seq);
}

static void test_gather_seq(void **state) {
    (void)state;
    for (int c = 0; c < NCOSTS; c++) {
        for (int P = 1; P <= MAXP; P++)
            check_gather_seq(P, costs[c][0], costs[c][1]);
        for (int i = 0; i < NBIG; i++)
            check_gather_seq(big_sizes[i], costs[c][0], costs[c][1]);
    }
    int seq[8], expect[8] = {0, 1, 2, 4, 3, 5, 6, 7};
    papc_stree_gather_seq(8, 1, 0, seq); /* latency only: fewest hops */
    assert_memory_equal(seq, expect, sizeof expect);
}

/* ---- the maps ---- */

static void check_maps(int P, const int *order, int root) {
    int *rank_of = malloc((size_t)P * sizeof(int));
    int *nrank_of = malloc((size_t)P * sizeof(int));
    int *seq = malloc((size_t)P * sizeof(int));
    int *step = malloc((size_t)P * sizeof(int));

    /* Scatter: reading the nranks in their receive order gives the order
     * we passed, the root moved to the front. */
    assert_int_equal(papc_stree_scatter_map(P, order, root, rank_of), 0);
    CHECK(is_perm(P, rank_of) && rank_of[0] == root, "P %d: scatter map", P);
    assert_int_equal(papc_stree_invert(P, rank_of, nrank_of), 0);
    for (int v = 0; v < P; v++)
        CHECK(rank_of[nrank_of[rank_of[v]]] == rank_of[v], "invert");
    papc_stree_scatter_seq(P, seq);
    int j = 1;
    for (int i = 0; i < P; i++)
        if (order[i] != root) {
            CHECK(rank_of[seq[j]] == order[i], "P %d root %d: rank %d (the "
                  "%d-th) not the %d-th receiver", P, root, order[i], i, j);
            j++;
        }
    /* ... and an earlier rank never receives at a later step. */
    simulate_scatter(P, step);
    for (int i = 0; i + 1 < P; i++) {
        if (order[i] == root || order[i + 1] == root) continue;
        CHECK(step[nrank_of[order[i]]] <= step[nrank_of[order[i + 1]]],
              "P %d: rank %d receives after the later rank %d", P, order[i],
              order[i + 1]);
    }

    /* Gather: the later the rank, the smaller its tail. */
    for (int c = 0; c < NCOSTS; c++) {
        double a = costs[c][0], bc = costs[c][1];
        assert_int_equal(papc_stree_gather_map(P, order, root, a, bc,
                                               rank_of), 0);
        CHECK(is_perm(P, rank_of) && rank_of[0] == root, "P %d: gather map",
              P);
        assert_int_equal(papc_stree_invert(P, rank_of, nrank_of), 0);
        int prev = -1;
        for (int i = P - 1; i >= 0; i--) { /* latest first */
            if (order[i] == root) continue;
            int v = nrank_of[order[i]];
            if (prev >= 0)
                CHECK(papc_stree_gather_tail(prev, P, a, bc) <=
                          papc_stree_gather_tail(v, P, a, bc),
                      "P %d: later rank has the longer tail", P);
            prev = v;
        }
    }
    free(rank_of);
    free(nrank_of);
    free(seq);
    free(step);
}

static void test_maps(void **state) {
    (void)state;
    int order[MAXP];
    for (int P = 1; P <= MAXP; P++) {
        for (int i = 0; i < P; i++) order[i] = i;
        for (int root = 0; root < P; root++) check_maps(P, order, root);
        for (int trial = 0; trial < 20; trial++) {
            shuffle(P, order);
            check_maps(P, order, (int)(rnd() % (uint32_t)P));
        }
    }
}

/* The root stays at nrank 0 wherever it is in the order (the paper's
 * swap-then-sort moved it). */
static void test_root_stays(void **state) {
    (void)state;
    int order[5] = {3, 1, 4, 0, 2}, rank_of[5];
    assert_int_equal(papc_stree_scatter_map(5, order, 4, rank_of), 0);
    assert_int_equal(rank_of[0], 4);
    int seq[5];
    papc_stree_scatter_seq(5, seq); /* 0 2 4 3 1 */
    assert_int_equal(rank_of[seq[1]], 3);
    assert_int_equal(rank_of[seq[2]], 1);
    assert_int_equal(rank_of[seq[3]], 0);
    assert_int_equal(rank_of[seq[4]], 2);
    assert_int_equal(papc_stree_gather_map(5, order, 4, 0, 1, rank_of), 0);
    assert_int_equal(rank_of[0], 4);
    assert_int_equal(rank_of[1], 2); /* the latest */
}

static void test_bad_input(void **state) {
    (void)state;
    int rank_of[4], nrank_of[4];
    int dup[4] = {0, 1, 1, 3}, out[4] = {0, 1, 2, 4}, ok[4] = {0, 1, 2, 3};
    assert_int_equal(papc_stree_scatter_map(4, dup, 0, rank_of), -1);
    assert_int_equal(papc_stree_gather_map(4, out, 0, 1, 1, rank_of), -1);
    assert_int_equal(papc_stree_scatter_map(4, ok, 4, rank_of), -1);
    assert_int_equal(papc_stree_gather_map(4, ok, -1, 1, 1, rank_of), -1);
    assert_int_equal(papc_stree_invert(4, dup, nrank_of), -1);
    assert_int_equal(papc_stree_scatter_map(1, ok, 0, rank_of), 0);
    assert_int_equal(rank_of[0], 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree),       cmocka_unit_test(test_scatter_seq),
        cmocka_unit_test(test_gather_seq), cmocka_unit_test(test_maps),
        cmocka_unit_test(test_root_stays), cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
