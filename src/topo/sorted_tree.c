/* sorted_tree.c — the arrival-sorted binomial trees of SBN/BSBN scatter and
 * gather (see sorted_tree.h for the tree, the rankings and why). */
#include <stdlib.h>
#include "sorted_tree.h"

static int lowbit(int v) { return v & -v; }

int papc_stree_parent(int v) { return v == 0 ? -1 : v - lowbit(v); }

int papc_stree_span(int v, int size) {
    int span = v == 0 ? size : lowbit(v);
    return span > size - v ? size - v : span;
}

int papc_stree_children(int v, int size, int *children) {
    int limit = v == 0 ? size : lowbit(v), n = 0;
    int m = 1; /* the largest 2^j < limit with v + 2^j < size, then down */
    while (m <= (limit - 1) / 2 && m < size - v - m) m <<= 1;
    for (; m >= 1; m >>= 1)
        if (m < limit && m < size - v) children[n++] = v + m;
    /* Largest subtree first; only the last subtree of a non-power-of-two
     * P can be short, so one insertion pass keeps equal spans by distance,
     * farthest first. */
    for (int i = 1; i < n; i++) {
        int c = children[i], s = papc_stree_span(c, size), j = i;
        for (; j > 0 && papc_stree_span(children[j - 1], size) < s; j--)
            children[j] = children[j - 1];
        children[j] = c;
    }
    return n;
}

int papc_stree_scatter_step(int v, int size) {
    if (v == 0) return 0;
    int p = papc_stree_parent(v), kids[PAPC_STREE_MAX_CHILDREN];
    int n = papc_stree_children(p, size, kids), i = 0;
    while (i < n && kids[i] != v) i++;
    return papc_stree_scatter_step(p, size) + i + 1;
}

/* Steps are appended in rounds: at step t every node already ranked (all
 * have smaller steps), taken in ranking order, contributes its child that
 * receives at t, if any.  So the ranking is by (step, parent's rank). */
int papc_stree_scatter_seq(int size, int *seq) {
    if (size < 1) return -1;
    int *step = malloc((size_t)size * sizeof *step); /* by position in seq */
    if (!step) return -1;
    int n = 1, kids[PAPC_STREE_MAX_CHILDREN];
    seq[0] = 0;
    step[0] = 0;
    for (int t = 1; n < size; t++) {
        int ranked = n;
        for (int i = 0; i < ranked; i++) {
            int k = papc_stree_children(seq[i], size, kids);
            int idx = t - step[i]; /* 1-based index of the child sent at t */
            if (idx >= 1 && idx <= k) {
                seq[n] = kids[idx - 1];
                step[n++] = t;
            }
        }
    }
    free(step);
    return 0;
}

static int depth_of(int v) {
    int d = 0;
    for (; v > 0; v = papc_stree_parent(v)) d++;
    return d;
}

double papc_stree_gather_tail(int v, int size, double alpha,
                              double block_cost) {
    double tail = 0;
    for (; v > 0; v = papc_stree_parent(v))
        tail += alpha + (double)papc_stree_span(v, size) * block_cost;
    return tail;
}

typedef struct gkey {
    double tail;
    int depth, v;
} gkey;

static int gkey_cmp(const void *pa, const void *pb) {
    const gkey *a = pa, *b = pb;
    if (a->tail != b->tail) return a->tail < b->tail ? -1 : 1;
    if (a->depth != b->depth) return a->depth < b->depth ? -1 : 1;
    return (a->v > b->v) - (a->v < b->v);
}

int papc_stree_gather_seq(int size, double alpha, double block_cost,
                          int *seq) {
    if (size < 1) return -1;
    seq[0] = 0;
    if (size == 1) return 0;
    gkey *k = malloc((size_t)(size - 1) * sizeof *k);
    if (!k) return -1;
    for (int v = 1; v < size; v++)
        k[v - 1] = (gkey){papc_stree_gather_tail(v, size, alpha, block_cost),
                          depth_of(v), v};
    qsort(k, (size_t)(size - 1), sizeof *k, gkey_cmp);
    for (int i = 1; i < size; i++) seq[i] = k[i - 1].v;
    free(k);
    return 0;
}

/* 1 when order is a permutation of 0..size-1. */
static int is_permutation(int size, const int *order) {
    char *seen = calloc((size_t)size, 1);
    if (!seen) return 0;
    int ok = 1;
    for (int i = 0; i < size && ok; i++) {
        if (order[i] < 0 || order[i] >= size || seen[order[i]]) ok = 0;
        else seen[order[i]] = 1;
    }
    free(seen);
    return ok;
}

/* rank_of[seq[j]] = the j-th non-root rank of order, walked forward
 * (scatter: earliest first) or backward (gather: latest first). */
static int place(int size, const int *order, int root, const int *seq,
                 int backward, int *rank_of) {
    rank_of[0] = root;
    int j = 1;
    for (int i = 0; i < size; i++) {
        int r = order[backward ? size - 1 - i : i];
        if (r != root) rank_of[seq[j++]] = r;
    }
    return 0;
}

int papc_stree_scatter_map(int size, const int *order, int root,
                           int *rank_of) {
    if (size < 1 || root < 0 || root >= size || !is_permutation(size, order))
        return -1;
    int *seq = malloc((size_t)size * sizeof *seq);
    if (!seq || papc_stree_scatter_seq(size, seq) != 0) {
        free(seq);
        return -1;
    }
    place(size, order, root, seq, 0, rank_of);
    free(seq);
    return 0;
}

int papc_stree_gather_map(int size, const int *order, int root,
                          double alpha, double block_cost, int *rank_of) {
    if (size < 1 || root < 0 || root >= size || !is_permutation(size, order))
        return -1;
    int *seq = malloc((size_t)size * sizeof *seq);
    if (!seq || papc_stree_gather_seq(size, alpha, block_cost, seq) != 0) {
        free(seq);
        return -1;
    }
    place(size, order, root, seq, 1, rank_of);
    free(seq);
    return 0;
}

int papc_stree_invert(int size, const int *rank_of, int *nrank_of) {
    if (size < 1 || !is_permutation(size, rank_of)) return -1;
    for (int v = 0; v < size; v++) nrank_of[rank_of[v]] = v;
    return 0;
}
