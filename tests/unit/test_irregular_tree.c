/*
 * test_irregular_tree.c — the ordered, size-aware binomial tree of Träff's
 * irregular gather/scatter (src/topo/irregular_tree.h), without MPI.
 *
 * - Geometry: cubes, siblings and fixed roots against the paper's bit-flip
 *   description with the special treatment of p-1 (§2, after Lemma 3).
 * - Worked examples, computed by hand below (the paper's Fig. 1 instance,
 *   p = 11, r = 9, is a picture whose block sizes are not in the text, so
 *   it cannot be reproduced).
 * - Properties over many p, roots and the benchmark's problem types: a
 *   tree rooted at the given root, depth <= ⌈log2 p⌉, levels rising to the
 *   root, every block reaching the root exactly once, every relayed
 *   message a run of blocks in rank order, subtrees contiguous rank ranges
 *   (without threshold), message bytes within the threshold and the cap.
 * - Lemma 1 and Lemma 2 time bounds, by a small simulator of the
 *   1-ported linear-cost model (receives in merge order).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "topo/irregular_tree.h"

#define BIG_CAP ((int64_t)1 << 40)

/* ---- geometry ---- */

static void test_rounds(void **state) {
    (void)state;
    assert_int_equal(papc_itree_rounds(1), 0);
    assert_int_equal(papc_itree_rounds(2), 1);
    assert_int_equal(papc_itree_rounds(3), 2);
    assert_int_equal(papc_itree_rounds(4), 2);
    assert_int_equal(papc_itree_rounds(5), 3);
    assert_int_equal(papc_itree_rounds(11), 4);
    assert_int_equal(papc_itree_rounds(1024), 10);
    assert_int_equal(papc_itree_rounds(1025), 11);
}

/* The paper: the fixed root f of a level-k cube finds its partner by
 * flipping bit k; a partner beyond p-1 is replaced by p-1; p-1 with bit k
 * set is partnered by (⌈p/2^k⌉ - 1) 2^k - 1. */
static void test_fixed_roots(void **state) {
    (void)state;
    for (int p = 1; p <= 70; p++) {
        for (int k = 0; k < papc_itree_rounds(p); k++) {
            for (int i = 0; i < p; i++) {
                int lo, hi, slo, shi;
                papc_itree_cube_range(p, k, i, &lo, &hi);
                assert_true(lo <= i && i <= hi);
                assert_int_equal(lo % (1 << k), 0);
                assert_true(hi - lo + 1 == (1 << k) || hi == p - 1);
                int f = papc_itree_fixed_root(p, k, i);
                assert_int_equal(f, hi);
                int has = papc_itree_sibling_range(p, k, i, &slo, &shi);
                int flipped = f ^ (1 << k);
                if (!has) { /* last cube, lower half, nobody above */
                    assert_true((f & (1 << k)) == 0 && flipped > p - 1 &&
                                lo + (1 << k) > p - 1);
                    continue;
                }
                int partner = flipped > p - 1 ? p - 1 : flipped;
                if (f == p - 1 && (f & (1 << k))) /* chosen by a lower one */
                    partner = ((p + (1 << k) - 1) / (1 << k) - 1) * (1 << k) - 1;
                assert_int_equal(shi, partner);
                assert_int_equal(papc_itree_fixed_root(p, k, slo), partner);
                assert_true(shi + 1 == lo || hi + 1 == slo); /* adjacent */
            }
        }
    }
}

static void test_block_direct(void **state) {
    (void)state;
    assert_false(papc_itree_block_direct(100, 0, BIG_CAP));
    assert_false(papc_itree_block_direct(100, 100, BIG_CAP));
    assert_true(papc_itree_block_direct(101, 100, BIG_CAP));
    assert_true(papc_itree_block_direct(101, 0, 100));
}

static void test_decide(void **state) {
    (void)state;
    papc_itree_cube a = {0, 10, 1}, b = {4, 10, 8}; /* t = 9 vs 2 */
    papc_itree_verdict v = papc_itree_decide(&a, &b, -1, 0, BIG_CAP);
    assert_int_equal(v.upper_wins, 0);
    assert_int_equal(v.direct, 0);
    v = papc_itree_decide(&a, &b, 1, 0, BIG_CAP); /* root above: Lemma 2 */
    assert_int_equal(v.upper_wins, 1);
    papc_itree_cube c = {0, 3, 0}, d = {2, 5, 2}; /* t equal: more data wins */
    assert_int_equal(papc_itree_decide(&c, &d, -1, 0, BIG_CAP).upper_wins, 1);
    papc_itree_cube e = {0, 5, 2}, f = {2, 5, 2}; /* full tie: upper */
    assert_int_equal(papc_itree_decide(&e, &f, -1, 0, BIG_CAP).upper_wins, 1);
    papc_itree_cube g = {0, 6, 2}, h = {2, 5, 1}; /* t tie, lower has more */
    assert_int_equal(papc_itree_decide(&g, &h, -1, 0, BIG_CAP).upper_wins, 0);
    v = papc_itree_decide(&a, &b, -1, 9, BIG_CAP); /* loser 10 > T = 9 */
    assert_int_equal(v.direct, 1);
    papc_itree_cube j = papc_itree_join(&a, &b, v);
    assert_true(j.groot == 0 && j.bytes == 10 && j.own == 1);
    v = papc_itree_decide(&a, &b, -1, 0, 19); /* 20 bytes exceed cap 19 */
    assert_int_equal(v.direct, 1);
    v = papc_itree_decide(&a, &b, -1, 0, 20);
    assert_int_equal(v.direct, 0);
    j = papc_itree_join(&a, &b, v);
    assert_true(j.groot == 0 && j.bytes == 20 && j.own == 1);
}

/* ---- worked examples ---- */

static void expect(const papc_itree_node *n, int parent, int round,
                   int64_t bytes, int to_root) {
    assert_int_equal(n->parent, parent);
    assert_int_equal(n->round, round);
    assert_int_equal(n->bytes, bytes);
    assert_int_equal(n->to_root, to_root);
}

/* p = 6, root 3, m = {1, 4, 2, 0, 3, 3}.
 * Level 0: {0,1}: t 0 = 0, M 1 < 4: 1 wins, 0 -> 1 (1 B).  {2,3}: the
 *   root wins, 2 -> 3 (2 B).  {4,5}: full tie, upper wins: 4 -> 5 (3 B).
 * Level 1: [0,1] + [2,3]: root, 1 -> 3 (5 B); [4,5] has no partner.
 * Level 2: [0,3] + [4,5]: root, 5 -> 3 (6 B). */
static void test_example_root_inside(void **state) {
    (void)state;
    int64_t m[6] = {1, 4, 2, 0, 3, 3};
    papc_itree_node n[6];
    assert_int_equal(papc_itree_build(6, 3, m, 0, BIG_CAP, n), 0);
    expect(&n[0], 1, 0, 1, 0);
    expect(&n[1], 3, 1, 5, 0);
    expect(&n[2], 3, 0, 2, 0);
    expect(&n[3], -1, -1, 0, 0);
    expect(&n[4], 5, 0, 3, 0);
    expect(&n[5], 3, 2, 6, 0);
}

/* p = 8, root 0, m = {0,0,0,0, 1,10,10,5}.
 * Level 0: {4,5}: 5 wins (M 10 > 1), state (5, 11, 10), t = 1.
 *          {6,7}: 6 wins (10 > 5), 7 -> 6 (5 B), state (6, 15, 10), t = 5.
 *          {2,3}: empty tie, 2 -> 3 (0 B).  {0,1}: 1 -> root (0 B).
 * Level 1: [4,5] t 1 < [6,7] t 5: 5 -> 6 (11 B).  [2,3] -> root (0 B).
 * Level 2: 6 -> root (26 B).
 * With threshold T = 10: 5's subtree (11 B) exceeds T at level 1 and goes
 * straight to the root; 6 then sends 15 B.  With T = 9 the 10 B blocks
 * leave the tree. */
static void test_example_estimates(void **state) {
    (void)state;
    int64_t m[8] = {0, 0, 0, 0, 1, 10, 10, 5};
    papc_itree_node n[8];
    assert_int_equal(papc_itree_build(8, 0, m, 0, BIG_CAP, n), 0);
    expect(&n[0], -1, -1, 0, 0);
    expect(&n[1], 0, 0, 0, 0);
    expect(&n[2], 3, 0, 0, 0);
    expect(&n[3], 0, 1, 0, 0);
    expect(&n[4], 5, 0, 1, 0);
    expect(&n[5], 6, 1, 11, 0);
    expect(&n[6], 0, 2, 26, 0);
    expect(&n[7], 6, 0, 5, 0);
    assert_int_equal(papc_itree_build(8, 0, m, 10, BIG_CAP, n), 0);
    expect(&n[5], 0, 1, 11, 1);
    expect(&n[6], 0, 2, 15, 0);
    for (int i = 0; i < 8; i++) assert_int_equal(n[i].block_direct, 0);
    /* T = 9: the blocks of 10 B travel alone, outside the tree. */
    assert_int_equal(papc_itree_build(8, 0, m, 9, BIG_CAP, n), 0);
    assert_true(n[5].block_direct && n[6].block_direct);
    assert_false(n[4].block_direct || n[7].block_direct);
    /* tree sizes {.., 1, 0, 0, 5}: 5 -> 4 and 6 -> 7 empty; at level 1
     * t ties (0, 0) and 7 holds more: 4 -> 7 (1 B), 7 -> root (6 B) */
    expect(&n[5], 4, 0, 0, 0);
    expect(&n[6], 7, 0, 0, 0);
    expect(&n[4], 7, 1, 1, 0);
    expect(&n[7], 0, 2, 6, 0);
}

/* ---- properties ---- */

enum { SAME, RANDOM, BUCKET, SPIKES, INCREASING, DECREASING, ALTERNATING,
       TWO_BLOCKS, ZEROS, ONE, MIXED, NPROBLEMS };

static uint64_t rng = 88172645463325252ULL;
static uint64_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Träff's benchmark problems (§5) in bytes of 4-byte ints, and more. */
static void make_sizes(int prob, int64_t b, int p, int64_t *m) {
    for (int i = 0; i < p; i++) {
        int64_t v = 0;
        switch (prob) {
        case SAME: v = b; break;
        case RANDOM: v = 1 + (int64_t)(next_rand() % (uint64_t)(2 * b)); break;
        case BUCKET: v = b / 2 + 1 + (int64_t)(next_rand() % (uint64_t)b); break;
        case SPIKES: v = next_rand() % 5 == 0 ? 5 * b : 1; break;
        case INCREASING: v = 2 * b * (i + 1) / p; break;
        case DECREASING: v = 2 * b * (p - i) / p + 1; break;
        case ALTERNATING: v = i % 2 ? b - b / 2 : b + b / 2; break;
        case TWO_BLOCKS: v = i == 0 || i == p - 1 ? b : 0; break;
        case ZEROS: v = 0; break;
        case ONE: v = i == p / 3 ? b : 0; break;
        case MIXED: v = next_rand() % 3 ? (int64_t)(next_rand() % 100) : 0; break;
        }
        m[i] = 4 * v;
    }
}

/* The sizes as the tree sees them (lone blocks and the root: 0). */
static int64_t tree_size(const papc_itree_node *n, const int64_t *m, int r,
                         int j) {
    return j == r || n[j].block_direct ? 0 : m[j];
}

/* Ranks carried by j's message, in the order a relay assembles them:
 * children's runs and its own block by rank position. */
static int assemble(const papc_itree_node *n, const int64_t *m, int p, int r,
                    int j, int *out) {
    int cnt = 0, kids[64], nk = 0;
    for (int c = 0; c < p; c++)
        if (c != r && n[c].parent == j && !n[c].to_root && n[c].bytes > 0)
            kids[nk++] = c;
    /* children by the first rank of their cube (their run's position) */
    int lo[64];
    for (int q = 0; q < nk; q++) {
        int hi;
        papc_itree_cube_range(p, n[kids[q]].round, kids[q], &lo[q], &hi);
    }
    for (int a = 1; a < nk; a++)
        for (int b = a; b > 0 && lo[b - 1] > lo[b]; b--) {
            int t = lo[b]; lo[b] = lo[b - 1]; lo[b - 1] = t;
            t = kids[b]; kids[b] = kids[b - 1]; kids[b - 1] = t;
        }
    int own_done = tree_size(n, m, r, j) == 0;
    for (int q = 0; q <= nk; q++) {
        if (!own_done && (q == nk || lo[q] > j)) {
            out[cnt++] = j;
            own_done = 1;
        }
        if (q < nk) cnt += assemble(n, m, p, r, kids[q], out + cnt);
    }
    return cnt;
}

/* Simulated completion time of j's gather (1-ported, linear cost,
 * receives in merge order as in Lemma 1's proof).  kid[j] lists j's
 * children by merge level (see children_by_round). */
static double ready_time(const papc_itree_node *n, int *const *kid,
                         const int *nkid, int j, double al, double be) {
    double t = 0;
    for (int q = 0; q < nkid[j]; q++) {
        int c = kid[j][q];
        if (n[c].bytes == 0) continue;
        double rc = ready_time(n, kid, nkid, c, al, be);
        t = (t > rc ? t : rc) + al + be * (double)n[c].bytes;
    }
    return t;
}

/* Children of every rank, ordered by merge level (at most one per level
 * below a non-root; the root's children: one per level plus the ones the
 * threshold sends, which the timing check does not use). */
static void children_by_round(const papc_itree_node *n, int p, int **kid,
                              int *nkid) {
    for (int j = 0; j < p; j++) nkid[j] = 0;
    for (int k = 0; k < 64; k++)
        for (int c = 0; c < p; c++)
            if (n[c].parent >= 0 && n[c].round == k)
                kid[n[c].parent][nkid[n[c].parent]++] = c;
}

typedef struct ctx {
    int p, r;
    int64_t threshold, cap;
    const int64_t *m;
    const papc_itree_node *n;
    const char *what;
} ctx;

#define CHECK(x, cx)                                                          \
    do {                                                                      \
        if (!(x))                                                             \
            fail_msg("%s: p=%d root=%d T=%lld cap=%lld: %s", (cx)->what,      \
                     (cx)->p, (cx)->r, (long long)(cx)->threshold,            \
                     (long long)(cx)->cap, #x);                               \
    } while (0)

static void check_tree(const ctx *cx) {
    int p = cx->p, r = cx->r, d = papc_itree_rounds(p);
    const papc_itree_node *n = cx->n;
    const int64_t *m = cx->m;
    int *seen = calloc((size_t)p, sizeof *seen), *run = malloc(p * sizeof *run);
    CHECK(n[r].parent == -1 && n[r].bytes == 0, cx);
    int64_t at_root = 0, expected = 0;
    for (int j = 0; j < p; j++) {
        if (j != r) expected += m[j];
        CHECK(n[j].block_direct ==
                  (j != r && papc_itree_block_direct(m[j], cx->threshold, cx->cap)),
              cx);
        if (j == r) continue;
        CHECK(n[j].parent >= 0 && n[j].parent < p && n[j].parent != j, cx);
        CHECK(n[j].round >= 0 && n[j].round < d, cx);
        CHECK(!n[j].to_root || n[j].parent == r, cx);
        /* depth <= ⌈log2 p⌉, merge levels rise towards the root */
        int hops = 1, a = j;
        while (n[a].parent != r) {
            CHECK(n[n[a].parent].round > n[a].round, cx);
            a = n[a].parent;
            hops++;
            CHECK(hops <= d, cx);
        }
        /* messages: relayed ones within T and the cap, and what comes to
         * the root by the threshold rule is above T or would break the
         * cap */
        if (n[j].parent != r && n[j].bytes > 0) {
            CHECK(n[j].bytes <= cx->cap, cx);
            if (cx->threshold > 0) CHECK(n[j].bytes <= cx->threshold, cx);
        }
        if (n[j].to_root)
            CHECK(n[j].bytes > cx->threshold || cx->threshold == 0, cx);
        if (n[j].block_direct) at_root += m[j];
        /* messages to the root: runs of blocks in rank order, and their
         * bytes are the blocks they carry */
        if (n[j].parent == r && n[j].bytes > 0) {
            int cnt = assemble(n, m, p, r, j, run);
            int64_t sum = 0;
            for (int q = 0; q < cnt; q++) {
                CHECK(q == 0 || run[q] > run[q - 1], cx);
                sum += tree_size(n, m, r, run[q]);
                seen[run[q]]++;
            }
            CHECK(sum == n[j].bytes, cx);
            at_root += n[j].bytes;
        }
    }
    /* every block reaches the root exactly once (alone or in one run) */
    for (int j = 0; j < p; j++)
        if (j != r && tree_size(n, m, r, j) > 0) CHECK(seen[j] == 1, cx);
    CHECK(at_root == expected, cx);
    /* relayed messages carry exactly their blocks too */
    for (int j = 0; j < p; j++)
        if (j != r && n[j].parent != r && n[j].bytes > 0) {
            int cnt = assemble(n, m, p, r, j, run);
            int64_t sum = 0;
            for (int q = 0; q < cnt; q++) sum += tree_size(n, m, r, run[q]);
            CHECK(sum == n[j].bytes, cx);
        }
    /* without threshold and cap, a subtree (all tree edges, empty ones
     * too) is exactly the rank range of the cube its root lost with */
    if (cx->threshold == 0 && cx->cap == BIG_CAP && p <= 200) {
        for (int j = 0; j < p; j++) {
            if (j == r) continue;
            int lo, hi;
            papc_itree_cube_range(p, n[j].round, j, &lo, &hi);
            for (int i = 0; i < p; i++) {
                int a = i, in = 0;
                while (a != -1 && !in) {
                    in = a == j;
                    a = n[a].parent;
                }
                CHECK(in == (i >= lo && i <= hi), cx);
            }
        }
    }
    free(seen);
    free(run);
}

/* Lemma 1 for the subtrees under the root, Lemma 2 (Theorem 1) for the
 * root: time <= d α + β Σ_{i≠r} m_i + β max(0, max_d' (M_d' - m_{r_d'} -
 * Σ_{j<d'} M_j)). */
static void check_time(const ctx *cx, double al, double be) {
    int p = cx->p, r = cx->r, d = papc_itree_rounds(p);
    const papc_itree_node *n = cx->n;
    int **kid = malloc((size_t)p * sizeof *kid), *nkid = malloc(p * sizeof *nkid);
    int *pool = malloc((size_t)p * sizeof *pool);
    /* each rank has one parent: p slots in all; give each its span */
    int *deg = calloc((size_t)p, sizeof *deg);
    for (int c = 0; c < p; c++)
        if (n[c].parent >= 0) deg[n[c].parent]++;
    for (int j = 0, at = 0; j < p; at += deg[j], j++) kid[j] = pool + at;
    children_by_round(n, p, kid, nkid);
    double total = 0, before = 0, penalty = 0;
    for (int j = 0; j < p; j++)
        if (j != r) total += (double)cx->m[j];
    for (int q = 0; q < nkid[r]; q++) {
        int c = kid[r][q], k = n[c].round;
        double own = (double)tree_size(n, cx->m, r, c);
        double mk = (double)n[c].bytes;
        double rt = ready_time(n, kid, nkid, c, al, be);
        CHECK(rt <= k * al + be * (mk - own) + 1e-9, cx); /* Lemma 1 */
        double pen = mk - own - before;
        if (pen > penalty) penalty = pen;
        before += mk;
    }
    double t = ready_time(n, kid, nkid, r, al, be);
    CHECK(t <= d * al + be * (total + penalty) + 1e-9, cx);
    free(kid);
    free(nkid);
    free(pool);
    free(deg);
}

static void run_case(int p, int r, const int64_t *m, int64_t threshold,
                     int64_t cap, const char *what, int timing) {
    papc_itree_node *n = malloc((size_t)p * sizeof *n);
    assert_int_equal(papc_itree_build(p, r, m, threshold, cap, n), 0);
    ctx cx = {p, r, threshold, cap, m, n, what};
    check_tree(&cx);
    if (timing) {
        check_time(&cx, 1.0, 0.01);
        check_time(&cx, 100.0, 1.0);
        check_time(&cx, 0.0, 1.0);
    }
    free(n);
}

static const char *problem_name[NPROBLEMS] = {
    "same", "random", "bucket", "spikes", "increasing", "decreasing",
    "alternating", "two_blocks", "zeros", "one", "mixed"};

static void test_properties_small(void **state) {
    (void)state;
    int64_t m[70];
    const int64_t bs[] = {1, 10, 100, 1000};
    for (int p = 1; p <= 40; p++)
        for (int r = 0; r < p; r++)
            for (int prob = 0; prob < NPROBLEMS; prob++)
                for (int bi = 0; bi < 4; bi++) {
                    make_sizes(prob, bs[bi], p, m);
                    run_case(p, r, m, 0, BIG_CAP, problem_name[prob], 1);
                    run_case(p, r, m, 400, BIG_CAP, problem_name[prob], 0);
                    run_case(p, r, m, 0, 1000, problem_name[prob], 0);
                }
}

static void test_properties_large(void **state) {
    (void)state;
    const int ps[] = {63, 64, 65, 100, 127, 128, 129, 560, 1000};
    for (size_t pi = 0; pi < sizeof ps / sizeof *ps; pi++) {
        int p = ps[pi];
        int64_t *m = malloc((size_t)p * sizeof *m);
        const int roots[] = {0, 1, p / 2, p - 2, p - 1};
        for (int ri = 0; ri < 5; ri++)
            for (int prob = 0; prob < NPROBLEMS; prob++) {
                make_sizes(prob, 100, p, m);
                int timing = 1;
                run_case(p, roots[ri], m, 0, BIG_CAP, problem_name[prob], timing);
                run_case(p, roots[ri], m, 4000, BIG_CAP, problem_name[prob], 0);
                run_case(p, roots[ri], m, 0, 10000, problem_name[prob], 0);
            }
        free(m);
    }
}

/* The paper's adversarial instance for fixed trees: one non-empty block
 * farthest from the root.  The size-aware tree sends it once. */
static void test_one_far_block(void **state) {
    (void)state;
    for (int p = 2; p <= 64; p++) {
        int64_t m[64] = {0};
        m[p - 1] = 1000;
        papc_itree_node n[64];
        assert_int_equal(papc_itree_build(p, 0, m, 0, BIG_CAP, n), 0);
        int moves = 0;
        for (int j = 0; j < p; j++) moves += n[j].bytes > 0;
        assert_int_equal(moves, 1);
        assert_int_equal(n[p - 1].parent, 0);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rounds),
        cmocka_unit_test(test_fixed_roots),
        cmocka_unit_test(test_block_direct),
        cmocka_unit_test(test_decide),
        cmocka_unit_test(test_example_root_inside),
        cmocka_unit_test(test_example_estimates),
        cmocka_unit_test(test_properties_small),
        cmocka_unit_test(test_properties_large),
        cmocka_unit_test(test_one_far_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
