/*
 * segtree.c — allocation and the naive helpers of the segment tree over the
 * columns of the Clairvoyant state matrix (segtree.h; clairvoyant-reduce.md
 * Sect. 5.4).  The queries and updates are static inline in segtree.h, as
 * the fast generator calls them in its innermost loop.
 */
#include "segtree.h"

#include <stdlib.h>

static int cap_of(int max_leaves) {
    int m = 2;
    while (m < max_leaves) m <<= 1;
    return m;
}

size_t papc_clv_segtree_bytes(int max_leaves, int nbits) {
    return 2 * (size_t)cap_of(max_leaves) * (size_t)papc_clv_chunks(nbits) *
           sizeof(papc_clv_vec);
}

int papc_clv_segtree_init(papc_clv_segtree *t, int max_leaves, int nbits) {
    memset(t, 0, sizeof *t);
    if (max_leaves < 1 || max_leaves > (1 << 29)) return -1;
    t->C = papc_clv_chunks(nbits);
    t->cap = cap_of(max_leaves);
    size_t bytes = papc_clv_segtree_bytes(max_leaves, nbits);
    t->node = aligned_alloc(sizeof(papc_clv_vec), bytes);
    if (!t->node) return -1;
    memset(t->node, 0, bytes);
    t->m = t->cap;
    t->n = t->span = t->zero_from = t->cap;
    return 0;
}

void papc_clv_segtree_free(papc_clv_segtree *t) {
    if (!t) return;
    free(t->node);
    memset(t, 0, sizeof *t);
}

void papc_clv_segtree_get(const papc_clv_segtree *t, size_t i,
                          uint64_t *out) {
    for (int c = 0; c < t->C; c++) {
        papc_clv_vec v = papc_clv_segtree_col(t, i)[c];
        out[2 * c] = v[0];
        out[2 * c + 1] = v[1];
    }
}

void papc_clv_segtree_naive_or(const papc_clv_segtree *t, int skip,
                               uint64_t *out) {
    const size_t W = 2 * (size_t)t->C;
    uint64_t *col = malloc(W * sizeof *col);
    memset(out, 0, W * sizeof *out);
    if (!col) return;
    for (int k = 0; k < t->m; k++) {
        if (k == skip) continue;
        papc_clv_segtree_get(t, (size_t)t->m + (size_t)k, col);
        for (size_t w = 0; w < W; w++) out[w] |= col[w];
    }
    free(col);
}
