/*
 * test_topo.c — structural properties of the pure topology builders of
 * src/topo (no MPI): every tree kind at sizes 1..70 and a few big ones
 * (the k-nomial tree also at 1..300 for radix 2..8, rooted anywhere), the
 * split-binary pairing, block ranges and the power-of-two helpers.
 *
 * Each tree is built once into a `tree` (parent and children of every
 * vrank), checked for being a tree rooted at vrank 0, then checked against
 * the properties its kind promises.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "topo/topo.h"

#define MAX_SMALL 70
static const int big_sizes[] = {127, 128, 129, 1000, 1023, 1024, 1025, 4097};
#define NBIG ((int)(sizeof big_sizes / sizeof *big_sizes))

/* ---- a tree materialised from papc_tree_node ---- */

typedef struct tree {
    papc_tree_kind kind;
    int k, size;
    int *parent;   /* parent[v], -1 for the root */
    int *nchild;   /* number of children of v */
    int **child;   /* child[v][0..nchild[v]) */
    int *sub;      /* subtree size counted by walking up from every node */
    int *depth;    /* edges from the root */
} tree;

/* A failure message naming the tree; cmocka's fail_msg prints it. */
#define TREE_FAIL(t, ...)                                                     \
    do {                                                                      \
        char what_[200];                                                      \
        snprintf(what_, sizeof what_, __VA_ARGS__);                           \
        fail_msg("%s (kind %d k %d size %d)", what_, (int)(t)->kind, (t)->k,  \
                 (t)->size);                                                  \
    } while (0)
#define TREE_CHECK(t, cond, ...)                                              \
    do {                                                                      \
        if (!(cond)) TREE_FAIL(t, __VA_ARGS__);                               \
    } while (0)

static void tree_free(tree *t) {
    for (int v = 0; v < t->size; v++) free(t->child[v]);
    free(t->child);
    free(t->parent);
    free(t->nchild);
    free(t->sub);
    free(t->depth);
}

/* Builds the tree and checks it is one: a single root (vrank 0), parents
 * in range, children lists consistent with parents, every node reaching
 * the root; fills sub[] and depth[]. */
static void tree_build(tree *t, papc_tree_kind kind, int k, int size) {
    t->kind = kind;
    t->k = k;
    t->size = size;
    t->parent = calloc((size_t)size, sizeof(int));
    t->nchild = calloc((size_t)size, sizeof(int));
    t->sub = calloc((size_t)size, sizeof(int));
    t->depth = calloc((size_t)size, sizeof(int));
    t->child = calloc((size_t)size, sizeof(int *));
    int *scratch = malloc((size_t)size * sizeof(int));
    int *seen_as_child = calloc((size_t)size, sizeof(int));
    assert_non_null(scratch);
    int roots = 0;
    for (int v = 0; v < size; v++) {
        for (int i = 0; i < size; i++) scratch[i] = -7;
        t->parent[v] = -99;
        int n = papc_tree_node(kind, k, v, size, &t->parent[v], scratch);
        TREE_CHECK(t, n >= 0 && n < size, "vrank %d has %d children", v, n);
        t->nchild[v] = n;
        t->child[v] = malloc(((size_t)n + 1) * sizeof(int));
        memcpy(t->child[v], scratch, (size_t)n * sizeof(int));
        if (t->parent[v] == -1) roots++;
        else
            TREE_CHECK(t, t->parent[v] >= 0 && t->parent[v] < size &&
                              t->parent[v] != v,
                       "vrank %d has parent %d", v, t->parent[v]);
    }
    TREE_CHECK(t, roots == 1, "%d roots", roots);
    TREE_CHECK(t, t->parent[0] == -1, "vrank 0 is not the root");
    /* c is listed as a child of p exactly when parent(c) == p. */
    for (int p = 0; p < size; p++)
        for (int i = 0; i < t->nchild[p]; i++) {
            int c = t->child[p][i];
            TREE_CHECK(t, c >= 0 && c < size, "child %d of %d", c, p);
            TREE_CHECK(t, t->parent[c] == p,
                       "%d lists child %d whose parent is %d", p, c,
                       t->parent[c]);
            TREE_CHECK(t, !seen_as_child[c], "%d listed twice", c);
            seen_as_child[c] = 1;
        }
    for (int c = 1; c < size; c++)
        TREE_CHECK(t, seen_as_child[c], "%d (parent %d) is nobody's child", c,
                   t->parent[c]);
    /* Every node reaches the root in fewer than size steps (no cycles);
     * each ancestor on the way counts the node in its subtree. */
    for (int v = 0; v < size; v++) {
        int a = v, steps = 0;
        t->sub[v]++;
        while (t->parent[a] != -1) {
            a = t->parent[a];
            t->sub[a]++;
            TREE_CHECK(t, ++steps < size, "vrank %d never reaches the root", v);
        }
        t->depth[v] = steps;
    }
    free(scratch);
    free(seen_as_child);
}

static int max_depth(const tree *t) {
    int d = 0;
    for (int v = 0; v < t->size; v++)
        if (t->depth[v] > d) d = t->depth[v];
    return d;
}

/* papc_tree_subtree_size agrees with the counted subtree everywhere. */
static void check_subtree_sizes(const tree *t) {
    for (int v = 0; v < t->size; v++) {
        int s = papc_tree_subtree_size(t->kind, t->k, v, t->size);
        TREE_CHECK(t, s == t->sub[v], "subtree of %d: builder says %d, "
                   "counted %d", v, s, t->sub[v]);
    }
}

/* 1 when a is v or an ancestor of v. */
static int is_ancestor(const tree *t, int a, int v) {
    for (; v != -1; v = t->parent[v])
        if (v == a) return 1;
    return 0;
}

/* ---- per-kind properties ---- */

static void check_linear(const tree *t) {
    TREE_CHECK(t, t->nchild[0] == t->size - 1, "root has %d children",
               t->nchild[0]);
    for (int v = 1; v < t->size; v++)
        TREE_CHECK(t, t->nchild[v] == 0 && t->parent[v] == 0,
                   "linear vrank %d", v);
}

static void check_kary(const tree *t) {
    for (int v = 0; v < t->size; v++) {
        TREE_CHECK(t, t->nchild[v] <= t->k, "vrank %d has %d > k children", v,
                   t->nchild[v]);
        /* Breadth-first and complete: children are v*k+1 .. v*k+k. */
        for (int i = 0; i < t->nchild[v]; i++)
            TREE_CHECK(t, t->child[v][i] == v * t->k + 1 + i,
                       "child %d of %d is %d", i, v, t->child[v][i]);
        long first = (long)v * t->k + 1;
        long expect = first >= t->size ? 0
                      : (first + t->k <= t->size ? t->k : t->size - first);
        TREE_CHECK(t, t->nchild[v] == expect, "vrank %d: %d children, "
                   "expected %ld", v, t->nchild[v], expect);
    }
}

static void check_chain(const tree *t) {
    int kk = t->k < t->size - 1 ? t->k : t->size - 1;
    TREE_CHECK(t, t->nchild[0] == kk, "root has %d chains, expected %d",
               t->nchild[0], kk);
    int shortest = t->size, longest = 0;
    for (int i = 0; i < t->nchild[0]; i++) {
        int len = t->sub[t->child[0][i]];
        if (len < shortest) shortest = len;
        if (len > longest) longest = len;
    }
    if (kk > 0)
        TREE_CHECK(t, longest - shortest <= 1, "chain lengths %d..%d",
                   shortest, longest);
    for (int v = 1; v < t->size; v++)
        TREE_CHECK(t, t->nchild[v] <= 1, "vrank %d has %d children", v,
                   t->nchild[v]);
}

static void check_binomial_depth(const tree *t) {
    TREE_CHECK(t, max_depth(t) <= papc_ceil_log2(t->size),
               "depth %d > ceil(log2 P) = %d", max_depth(t),
               papc_ceil_log2(t->size));
    /* In a binomial tree over vranks, vrank v sits popcount(v) deep. */
    for (int v = 0; v < t->size; v++)
        TREE_CHECK(t, t->depth[v] == __builtin_popcount((unsigned)v),
                   "vrank %d at depth %d", v, t->depth[v]);
}

static void check_binomial(const tree *t) {
    check_binomial_depth(t);
    for (int v = 0; v < t->size; v++)
        for (int i = 1; i < t->nchild[v]; i++)
            TREE_CHECK(t, t->sub[t->child[v][i - 1]] >= t->sub[t->child[v][i]],
                       "children of %d not largest subtree first: %d (%d "
                       "nodes) before %d (%d nodes)", v, t->child[v][i - 1],
                       t->sub[t->child[v][i - 1]], t->child[v][i],
                       t->sub[t->child[v][i]]);
}

static void check_inorder_binomial(const tree *t) {
    check_binomial_depth(t);
    for (int v = 0; v < t->size; v++) {
        for (int i = 1; i < t->nchild[v]; i++)
            TREE_CHECK(t, t->child[v][i - 1] < t->child[v][i],
                       "children of %d not ascending", v);
        /* The subtree of v is the contiguous range [v, v + span). */
        int span = papc_inorder_span(v, t->size);
        TREE_CHECK(t, span == t->sub[v] && v + span <= t->size,
                   "span of %d is %d, subtree has %d", v, span, t->sub[v]);
        for (int u = v; u < v + span; u++)
            TREE_CHECK(t, is_ancestor(t, v, u), "%d in span of %d but not in "
                       "its subtree", u, v);
    }
}

/* Nonzero base-k digits of v: its depth in the k-nomial tree. */
static int nonzero_digits(int k, int v) {
    int n = 0;
    for (; v > 0; v /= k) n += v % k != 0;
    return n;
}

/* ceil(log_k n) for n >= 1. */
static int ceil_log(int k, int n) {
    int l = 0;
    for (long long p = 1; p < n; p *= k) l++;
    return l;
}

static void check_knomial(const tree *t) {
    int k = t->k < 2 ? 2 : t->k;
    int most = papc_knomial_max_children(t->k, t->size), deepest = 0;
    TREE_CHECK(t, max_depth(t) <= ceil_log(k, t->size),
               "depth %d > ceil(log_k P) = %d", max_depth(t),
               ceil_log(k, t->size));
    for (int v = 0; v < t->size; v++) {
        int nz = nonzero_digits(k, v);
        if (nz > deepest) deepest = nz;
        TREE_CHECK(t, t->depth[v] == nz, "vrank %d at depth %d, has %d "
                   "nonzero digits", v, t->depth[v], nz);
        TREE_CHECK(t, t->nchild[v] <= most, "vrank %d has %d > %d children",
                   v, t->nchild[v], most);
        /* The parent clears the lowest nonzero digit. */
        if (v > 0) {
            long long place = 1;
            while ((v / place) % k == 0) place *= k;
            long long want = v - (v / place) % k * place;
            TREE_CHECK(t, t->parent[v] == want, "parent of %d is %d, want "
                       "%lld", v, t->parent[v], want);
        }
        for (int i = 1; i < t->nchild[v]; i++)
            TREE_CHECK(t, t->sub[t->child[v][i - 1]] >= t->sub[t->child[v][i]],
                       "children of %d not largest subtree first", v);
        /* The subtree of v is the range [v, v + its size). */
        for (int u = v; u < v + t->sub[v]; u++)
            TREE_CHECK(t, u < t->size && is_ancestor(t, v, u),
                       "%d in the range of %d but not in its subtree", u, v);
    }
    TREE_CHECK(t, max_depth(t) == deepest, "depth %d, deepest digits %d",
               max_depth(t), deepest);
    /* A power of k is exactly log_k P deep (P - 1 has every digit k-1). */
    long long p = 1;
    while (p < t->size) p *= k;
    if (p == t->size)
        TREE_CHECK(t, max_depth(t) == ceil_log(k, t->size),
                   "depth %d at a power of k", max_depth(t));
}

typedef struct kind_case {
    papc_tree_kind kind;
    int k;
    void (*check)(const tree *t);
} kind_case;

static const kind_case kinds[] = {
    {PAPC_TREE_LINEAR, 0, check_linear},
    {PAPC_TREE_CHAIN, 1, check_chain},
    {PAPC_TREE_CHAIN, 2, check_chain},
    {PAPC_TREE_CHAIN, 3, check_chain},
    {PAPC_TREE_CHAIN, 4, check_chain},
    {PAPC_TREE_CHAIN, 7, check_chain},
    {PAPC_TREE_KARY, 1, check_kary},
    {PAPC_TREE_KARY, 2, check_kary},
    {PAPC_TREE_KARY, 3, check_kary},
    {PAPC_TREE_KARY, 4, check_kary},
    {PAPC_TREE_BINOMIAL, 0, check_binomial},
    {PAPC_TREE_INORDER_BINOMIAL, 0, check_inorder_binomial},
    {PAPC_TREE_KNOMIAL, 2, check_knomial},
    {PAPC_TREE_KNOMIAL, 3, check_knomial},
    {PAPC_TREE_KNOMIAL, 4, check_knomial},
    {PAPC_TREE_KNOMIAL, 8, check_knomial},
};
#define NKINDS ((int)(sizeof kinds / sizeof *kinds))

static void check_one(const kind_case *kc, int size) {
    tree t;
    tree_build(&t, kc->kind, kc->k, size);
    check_subtree_sizes(&t);
    kc->check(&t);
    tree_free(&t);
}

static void test_trees_small(void **state) {
    (void)state;
    for (int i = 0; i < NKINDS; i++)
        for (int size = 1; size <= MAX_SMALL; size++)
            check_one(&kinds[i], size);
}

static void test_trees_big(void **state) {
    (void)state;
    for (int i = 0; i < NKINDS; i++)
        for (int b = 0; b < NBIG; b++) {
            /* Chains and the 1-ary tree are P deep: checking them costs P^2. */
            if ((kinds[i].kind == PAPC_TREE_CHAIN && kinds[i].k < 4) ||
                (kinds[i].kind == PAPC_TREE_KARY && kinds[i].k == 1))
                if (big_sizes[b] > 1025) continue;
            check_one(&kinds[i], big_sizes[b]);
        }
}

/* Known shapes, so that a builder returning a different valid tree of the
 * same kind is noticed too. */
static void test_tree_shapes(void **state) {
    (void)state;
    int parent, ch[16], n;
    n = papc_tree_node(PAPC_TREE_BINOMIAL, 0, 0, 8, &parent, ch);
    assert_int_equal(n, 3);
    assert_int_equal(ch[0], 4);
    assert_int_equal(ch[1], 2);
    assert_int_equal(ch[2], 1);
    /* Size 5: vrank 4's nominal 4-node subtree holds only itself. */
    n = papc_tree_node(PAPC_TREE_BINOMIAL, 0, 0, 5, &parent, ch);
    assert_int_equal(n, 3);
    assert_int_equal(ch[0], 2);
    assert_int_equal(ch[1], 4);
    assert_int_equal(ch[2], 1);
    n = papc_tree_node(PAPC_TREE_INORDER_BINOMIAL, 0, 4, 8, &parent, ch);
    assert_int_equal(parent, 0);
    assert_int_equal(n, 2);
    assert_int_equal(ch[0], 5);
    assert_int_equal(ch[1], 6);
    n = papc_tree_node(PAPC_TREE_BINOMIAL, 0, 6, 8, &parent, ch);
    assert_int_equal(parent, 4);
    assert_int_equal(n, 1);
    assert_int_equal(ch[0], 7);
    /* 10 nodes: the 9 non-root ones in 4 chains of 3, 2, 2, 2. */
    n = papc_tree_node(PAPC_TREE_CHAIN, 4, 0, 10, &parent, ch);
    assert_int_equal(n, 4);
    assert_int_equal(ch[0], 1);
    assert_int_equal(ch[1], 4);
    assert_int_equal(ch[2], 6);
    assert_int_equal(ch[3], 8);
    n = papc_tree_node(PAPC_TREE_CHAIN, 4, 3, 10, &parent, ch);
    assert_int_equal(parent, 2);
    assert_int_equal(n, 0);
    n = papc_tree_node(PAPC_TREE_KARY, 2, 2, 7, &parent, ch);
    assert_int_equal(parent, 0);
    assert_int_equal(n, 2);
    assert_int_equal(ch[0], 5);
    assert_int_equal(ch[1], 6);
}

/* The k-nomial tree at P = 1..300 and k = 2..8 (k = 1 and 0 are taken as
 * 2): a tree with the k-nomial properties, and, rooted anywhere (vranks
 * mapped to ranks as the engine maps them), every rank reached exactly
 * once, by its parent; k = 2 is the binomial tree, children in the same
 * order; a radix >= P is the linear tree. */
static void test_knomial(void **state) {
    (void)state;
    int ch[320], bch[320];
    for (int size = 1; size <= 300; size++)
        for (int k = 0; k <= 8; k++) {
            if (k == 1 && size > 40) continue; /* the same tree as k = 2 */
            tree t;
            tree_build(&t, PAPC_TREE_KNOMIAL, k, size);
            check_subtree_sizes(&t);
            check_knomial(&t);
            int roots[] = {0, 1, size / 2, size - 1};
            for (int r = 0; r < 4; r++) {
                int root = roots[r] % size;
                int *reached = calloc((size_t)size, sizeof(int));
                /* Walk down from the root in real ranks. */
                int *stack = malloc((size_t)size * sizeof(int)), top = 0;
                stack[top++] = root;
                while (top > 0) {
                    int rank = stack[--top];
                    if (reached[rank]++) fail_msg("P %d k %d root %d: rank "
                                                  "%d reached twice", size, k,
                                                  root, rank);
                    int v = papc_vrank(rank, root, size);
                    for (int i = 0; i < t.nchild[v]; i++) {
                        int c = papc_real_rank(t.child[v][i], root, size);
                        int vc = papc_vrank(c, root, size);
                        if (papc_real_rank(t.parent[vc], root, size) != rank)
                            fail_msg("P %d k %d root %d: child %d of %d has "
                                     "another parent", size, k, root, c,
                                     rank);
                        stack[top++] = c;
                    }
                }
                for (int rank = 0; rank < size; rank++)
                    if (reached[rank] != 1)
                        fail_msg("P %d k %d root %d: rank %d reached %d "
                                 "times", size, k, root, rank, reached[rank]);
                free(stack);
                free(reached);
            }
            tree_free(&t);
        }
    /* k = 2 (and below) is the binomial tree, child for child. */
    for (int size = 1; size <= 300; size++)
        for (int v = 0; v < size; v++)
            for (int k = 0; k <= 2; k++) {
                int p, bp;
                int n = papc_tree_node(PAPC_TREE_KNOMIAL, k, v, size, &p, ch);
                int bn = papc_tree_node(PAPC_TREE_BINOMIAL, 0, v, size, &bp,
                                        bch);
                if (n != bn || p != bp || memcmp(ch, bch, n * sizeof *ch))
                    fail_msg("P %d k %d vrank %d differs from binomial", size,
                             k, v);
            }
    /* A radix >= P: the root has every other rank as its child. */
    for (int size = 2; size <= 40; size++) {
        int p, n = papc_tree_node(PAPC_TREE_KNOMIAL, size, 0, size, &p, ch);
        assert_int_equal(n, size - 1);
        n = papc_tree_node(PAPC_TREE_KNOMIAL, 1 << 30, 0, size, &p, ch);
        assert_int_equal(n, size - 1);
        n = papc_tree_node(PAPC_TREE_KNOMIAL, 1 << 30, size - 1, size, &p,
                           ch);
        assert_int_equal(n, 0);
        assert_int_equal(p, 0);
    }
    /* Open MPI's examples (coll_base_topo.c, P = 10): radix 4: 0 -> 4, 8,
     * 1, 2, 3 and 4 -> 5, 6, 7, 8 -> 9; radix 3: 0 -> 3, 6 (span 3), then
     * 9 (span 1, listed first by Open MPI), 1, 2; 3 -> 4, 5. */
    int p, n = papc_tree_node(PAPC_TREE_KNOMIAL, 4, 0, 10, &p, ch);
    int want4[] = {4, 8, 1, 2, 3};
    assert_int_equal(n, 5);
    assert_memory_equal(ch, want4, sizeof want4);
    n = papc_tree_node(PAPC_TREE_KNOMIAL, 4, 4, 10, &p, ch);
    assert_int_equal(p, 0);
    assert_int_equal(n, 3);
    assert_int_equal(ch[0], 5);
    assert_int_equal(ch[2], 7);
    n = papc_tree_node(PAPC_TREE_KNOMIAL, 4, 9, 10, &p, ch);
    assert_int_equal(p, 8);
    assert_int_equal(n, 0);
    n = papc_tree_node(PAPC_TREE_KNOMIAL, 3, 0, 10, &p, ch);
    int want3[] = {3, 6, 9, 1, 2};
    assert_int_equal(n, 5);
    assert_memory_equal(ch, want3, sizeof want3);
    n = papc_tree_node(PAPC_TREE_KNOMIAL, 3, 3, 10, &p, ch);
    assert_int_equal(n, 2);
    assert_int_equal(ch[0], 4);
    assert_int_equal(ch[1], 5);
    /* Fan-out bound: (k-1) ceil(log_k P), at most P - 1. */
    assert_int_equal(papc_knomial_max_children(4, 10), 6);
    assert_int_equal(papc_knomial_max_children(4, 512), 15);
    assert_int_equal(papc_knomial_max_children(8, 3), 2);
    assert_int_equal(papc_knomial_max_children(2, 1), 0);
}

/* ---- split-binary pairing ---- */

static void check_split_binary(int size) {
    tree bin;
    tree_build(&bin, PAPC_TREE_KARY, 2, size);
    int *list = malloc((size_t)size * sizeof(int));
    int *partner = malloc((size_t)size * sizeof(int));
    int *half = malloc((size_t)size * sizeof(int));
    for (int v = 0; v < size; v++)
        papc_split_binary_pair(v, size, &half[v], &partner[v]);
    assert_int_equal(half[0], -1);
    assert_int_equal(partner[0], -1);
    int expect_unpaired = 0;
    for (int v = 1; v < size; v++) {
        /* Half 0 is the subtree of vrank 1, half 1 that of vrank 2. */
        int want = is_ancestor(&bin, 1, v) ? 0 : 1;
        if (want == 1) assert_true(size > 2 && is_ancestor(&bin, 2, v));
        if (half[v] != want)
            fail_msg("size %d vrank %d: half %d, expected %d", size, v,
                     half[v], want);
        int p = partner[v];
        if (p == -1) {
            expect_unpaired++;
            continue;
        }
        /* Partners pair a left node with a right node, both ways. */
        if (p < 1 || p >= size || half[p] == half[v] || partner[p] != v)
            fail_msg("size %d: vrank %d (half %d) partner %d (half %d, its "
                     "partner %d)", size, v, half[v], p,
                     p >= 1 && p < size ? half[p] : -9,
                     p >= 1 && p < size ? partner[p] : -9);
    }
    /* The right half is never larger than the left, so every right node
     * has a partner; only left nodes may lack one. */
    for (int v = 1; v < size; v++)
        if (half[v] == 1 && partner[v] == -1)
            fail_msg("size %d: right node %d unpaired", size, v);
    for (int i = 0; i < size; i++) list[i] = -5;
    int n = papc_split_binary_unpaired(size, list);
    assert_int_equal(n, expect_unpaired);
    for (int i = 0, v = 1; v < size; v++)
        if (partner[v] == -1) {
            if (list[i] != v)
                fail_msg("size %d: unpaired[%d] = %d, expected %d", size, i,
                         list[i], v);
            i++;
        }
    free(list);
    free(partner);
    free(half);
    tree_free(&bin);
}

static void test_split_binary(void **state) {
    (void)state;
    for (int size = 1; size <= MAX_SMALL; size++) check_split_binary(size);
    for (int b = 0; b < NBIG; b++) check_split_binary(big_sizes[b]);
}

/* ---- block ranges, powers of two, rank maps ---- */

static void test_block_range(void **state) {
    (void)state;
    for (int count = 0; count <= 200; count++)
        for (int n = 1; n <= 40; n++) {
            int next = 0, lo = count, hi = 0;
            for (int i = 0; i < n; i++) {
                int start = -1, len = -1;
                papc_block_range(count, n, i, &start, &len);
                if (start != next || len < 0)
                    fail_msg("count %d n %d: part %d at %d len %d, expected "
                             "start %d", count, n, i, start, len, next);
                /* The first count % n parts are the larger ones. */
                if (len != count / n + (i < count % n))
                    fail_msg("count %d n %d: part %d has %d", count, n, i,
                             len);
                next += len;
                if (len < lo) lo = len;
                if (len > hi) hi = len;
            }
            if (next != count || hi - lo > 1)
                fail_msg("count %d n %d: covers %d, lengths %d..%d", count, n,
                         next, lo, hi);
        }
    int start, len;
    papc_block_range(1 << 30, 3, 2, &start, &len);
    assert_int_equal((long)start + len, 1 << 30);
}

static void test_pof2(void **state) {
    (void)state;
    for (int n = 1; n <= (1 << 20) + 3; n++) {
        int p = papc_pof2_floor(n), l = papc_ceil_log2(n);
        if (p > n || 2L * p <= n || (p & (p - 1)) != 0)
            fail_msg("pof2_floor(%d) = %d", n, p);
        if ((1L << l) < n || (l > 0 && (1L << (l - 1)) >= n))
            fail_msg("ceil_log2(%d) = %d", n, l);
    }
    assert_int_equal(papc_pof2_floor(1 << 30), 1 << 30);
    assert_int_equal(papc_pof2_floor((1 << 30) + 5), 1 << 30);
    assert_int_equal(papc_ceil_log2(1 << 30), 30);
    assert_int_equal(papc_ceil_log2(1), 0);
    assert_int_equal(papc_ceil_log2(2), 1);
    assert_int_equal(papc_ceil_log2(3), 2);
}

static void test_rank_maps(void **state) {
    (void)state;
    for (int size = 1; size <= 40; size++)
        for (int root = 0; root < size; root++)
            for (int r = 0; r < size; r++) {
                int v = papc_vrank(r, root, size);
                assert_true(v >= 0 && v < size);
                assert_int_equal(papc_real_rank(v, root, size), r);
                if (r == root) assert_int_equal(v, 0);
            }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trees_small),
        cmocka_unit_test(test_trees_big),
        cmocka_unit_test(test_tree_shapes),
        cmocka_unit_test(test_knomial),
        cmocka_unit_test(test_split_binary),
        cmocka_unit_test(test_block_range),
        cmocka_unit_test(test_pof2),
        cmocka_unit_test(test_rank_maps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
