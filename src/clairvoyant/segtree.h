/*
 * segtree.h — the segment tree over the columns of the Clairvoyant state
 * matrix M (clairvoyant-reduce.md Sect. 5.4, Listings 3-5, Fig. 4/6):
 * pure C, no MPI, internal to src/clairvoyant/.
 *
 * A column is one bit per segment (1 = state A/P, 0 = E or P'), cut into
 * C chunks of 128 bits (papc_clv_vec, a GCC/Clang vector of two 64-bit
 * words: one SSE2/NEON instruction per OR/AND, kept in registers — a
 * 256-bit type is lowered through the stack without -mavx2), so OR/AND of
 * columns run 128 segments per instruction and find-first-set is one
 * count-trailing-zeros.  The tree is the usual implicit binary tree (root
 * at node 1, children 2i and 2i + 1, leaf k at node m + k, m a power of
 * two); every internal node holds the bitwise OR of its two children.
 *
 * Layout: chunk plane by chunk plane — chunk c of node i is
 * node[c * 2m + i].  Every query and update works on one chunk along a
 * path (Listings 3-5, the updates) or one chunk of a whole level (the
 * rebuild), so it stays inside one plane of 2m chunks, whose top levels
 * are a few cache lines; storing whole columns contiguously (Sect. 5.4.2)
 * puts every level of a path in a different cache line, 16 to 256 bytes
 * apart per node, which costs a cache miss per level at N = 2048.
 *
 * The leaves are the columns of the processes taking part in the current
 * round, in the order of the round (see fast.c); unused leaves are zero.
 * Queries (leaf numbers 0..m-1, segment numbers 0..N-1):
 *   all-except-one (Listing 3)  OR of every leaf but one;
 *   first-except                the first segment set in mask AND
 *                               all-except-one, chunk by chunk with an
 *                               early exit (FIND-PEER-SEGMENT);
 *   find-leftmost (Listing 4)   the leftmost leaf with a segment's bit;
 *   find-leftmost-from (Lst. 5) the same, strictly right of a leaf;
 *   find-peer                   the leftmost leaf but k with the bit (the
 *                               two above in one pass, Listing 7);
 * and updates: clear a leaf (the process has sent this round), clear or
 * set one bit of a leaf, each fixing the path to the root in O(log m)
 * (early exit when an ancestor does not change), or rebuild every
 * internal node at once in O(m C).
 *
 * The hot operations are static inline here; allocation lives in
 * segtree.c.
 */
#ifndef PAPC_CLV_SEGTREE_H
#define PAPC_CLV_SEGTREE_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint64_t papc_clv_vec __attribute__((vector_size(16)));

typedef struct papc_clv_segtree {
    int C;             /* 128-bit chunks per column */
    int cap;           /* leaves allocated (a power of two) */
    int m;             /* leaves in use this round (a power of two <= cap) */
    papc_clv_vec *node; /* node i's column at node[i * C .. i * C + C - 1];
                           node 0 unused */
} papc_clv_segtree;

/* Chunks for an nbits-bit column. */
static inline int papc_clv_chunks(int nbits) {
    return nbits <= 0 ? 1 : (nbits + 127) / 128;
}
/* Room for up to max_leaves leaves of nbits-bit columns.  0, or -1 when
 * out of memory (t is then empty and safe to free). */
int papc_clv_segtree_init(papc_clv_segtree *t, int max_leaves, int nbits);
void papc_clv_segtree_free(papc_clv_segtree *t);
/* Bytes the tree holds for max_leaves leaves of nbits bits. */
size_t papc_clv_segtree_bytes(int max_leaves, int nbits);
/* For the tests: node i's column as 2 C words (word w = segments
 * 64w..64w+63), and the naive OR of every leaf but `skip` (a scan). */
void papc_clv_segtree_get(const papc_clv_segtree *t, size_t i,
                          uint64_t *out);
void papc_clv_segtree_naive_or(const papc_clv_segtree *t, int skip,
                               uint64_t *out);

static inline int papc_clv_ctz64(uint64_t v) { return __builtin_ctzll(v); }

static inline int papc_clv_vec_any(papc_clv_vec v) {
    return (v[0] | v[1]) != 0;
}

/* The lowest set bit of a non-zero chunk. */
static inline int papc_clv_vec_ffs(papc_clv_vec v) {
    return v[0] ? papc_clv_ctz64(v[0]) : 64 + papc_clv_ctz64(v[1]);
}

/* Node i's column (C chunks). */
static inline papc_clv_vec *papc_clv_segtree_col(const papc_clv_segtree *t,
                                                 size_t i) {
    return t->node + i * (size_t)t->C;
}

/* The words holding segment s, one per node: word s of node i is
 * papc_clv_segtree_sword(t, s)[i * papc_clv_segtree_wstride(t)]. */
static inline uint64_t *papc_clv_segtree_sword(const papc_clv_segtree *t,
                                               int s) {
    return (uint64_t *)t->node + (s >> 6);
}
static inline size_t papc_clv_segtree_wstride(const papc_clv_segtree *t) {
    return 2 * (size_t)t->C;
}

/* Segment s of node i (0 or 1). */
static inline int papc_clv_segtree_bit(const papc_clv_segtree *t, size_t i,
                                       int s) {
    const uint64_t w =
        papc_clv_segtree_sword(t, s)[i * papc_clv_segtree_wstride(t)];
    return (int)((w >> (s & 63)) & 1u);
}

/* Start a round with n leaves (1 <= n <= cap): m = the smallest power of
 * two >= max(n, 2), leaves n..m-1 zeroed.  Then fill leaves 0..n-1
 * (papc_clv_segtree_set_leaf, or write papc_clv_segtree_col(t, m + k))
 * and build. */
static inline void papc_clv_segtree_reset(papc_clv_segtree *t, int n) {
    int m = 2;
    while (m < n) m <<= 1;
    t->m = m;
    memset(papc_clv_segtree_col(t, (size_t)m + (size_t)n), 0,
           (size_t)(m - n) * (size_t)t->C * sizeof(papc_clv_vec));
}

/* Leaf k = col (C chunks); the internal nodes are not updated. */
static inline void papc_clv_segtree_set_leaf(papc_clv_segtree *t, int k,
                                             const papc_clv_vec *col) {
    memcpy(papc_clv_segtree_col(t, (size_t)t->m + (size_t)k), col,
           (size_t)t->C * sizeof *col);
}

/* Every internal node from the leaves (O(m C)): children 2i and 2i + 1
 * are adjacent, so each level is one sequential pass. */
static inline void papc_clv_segtree_build(papc_clv_segtree *t) {
    const size_t C = (size_t)t->C;
    papc_clv_vec *b = t->node;
    for (size_t i = (size_t)t->m - 1; i >= 1; i--) {
        papc_clv_vec *x = b + i * C;
        const papc_clv_vec *l = b + 2 * i * C, *r = l + C;
        for (size_t c = 0; c < C; c++) x[c] = l[c] | r[c];
    }
}

/* Chunk c of all-except-one(leaf k) (Listing 3 on one chunk). */
static inline papc_clv_vec papc_clv_segtree_except_chunk(
    const papc_clv_segtree *t, int k, int c) {
    const size_t C = (size_t)t->C;
    const papc_clv_vec *b = t->node + c;
    papc_clv_vec v = {0, 0};
    for (size_t n = (size_t)t->m + (size_t)k; n > 1; n >>= 1)
        v |= b[(n ^ 1) * C];
    return v;
}

/* Listing 3: out = init OR (every leaf but leaf k), C chunks.  out may be
 * init. */
static inline void papc_clv_segtree_all_except_one(const papc_clv_segtree *t,
                                                   int k,
                                                   const papc_clv_vec *init,
                                                   papc_clv_vec *out) {
    for (int c = 0; c < t->C; c++)
        out[c] = init[c] | papc_clv_segtree_except_chunk(t, k, c);
}

/* FIND-PEER-SEGMENT: the first segment s >= 128 * c0 set both in mask (C
 * chunks; NULL: every segment) and in some leaf other than k; -1 if none.
 * Listing 3 and the AND chunk by chunk, stopping at the first chunk with
 * an answer. */
static inline int papc_clv_segtree_first_except(const papc_clv_segtree *t,
                                                int k,
                                                const papc_clv_vec *mask,
                                                int c0) {
    for (int c = c0; c < t->C; c++) {
        const papc_clv_vec want = mask ? mask[c] : ~(papc_clv_vec){0, 0};
        if (!papc_clv_vec_any(want)) continue;
        const papc_clv_vec v = papc_clv_segtree_except_chunk(t, k, c) & want;
        if (papc_clv_vec_any(v)) return c * 128 + papc_clv_vec_ffs(v);
    }
    return -1;
}

/* Listing 4: the leftmost leaf under node n with segment s set, -1 if
 * none. */
static inline int papc_clv_segtree_find_leftmost(const papc_clv_segtree *t,
                                                 size_t n, int s) {
    const uint64_t *b = papc_clv_segtree_sword(t, s);
    const size_t ws = papc_clv_segtree_wstride(t);
    const uint64_t bit = UINT64_C(1) << (s & 63);
    if (!(b[n * ws] & bit)) return -1;
    while (n < (size_t)t->m) {
        n <<= 1;
        n += !(b[n * ws] & bit);
    }
    return (int)(n - (size_t)t->m);
}

/* Listing 5: the leftmost leaf right of leaf k with segment s set, -1 if
 * none. */
static inline int papc_clv_segtree_find_leftmost_from(
    const papc_clv_segtree *t, int k, int s) {
    const uint64_t *b = papc_clv_segtree_sword(t, s);
    const size_t ws = papc_clv_segtree_wstride(t);
    const uint64_t bit = UINT64_C(1) << (s & 63);
    for (size_t n = (size_t)t->m + (size_t)k; n > 1; n >>= 1)
        if (!(n & 1) && (b[(n + 1) * ws] & bit))
            return papc_clv_segtree_find_leftmost(t, n + 1, s);
    return -1;
}

/* FIND-PEER (Sect. 5.4.2): the leftmost leaf other than k with segment s
 * set, -1 if none — find-leftmost from the root, and find-leftmost-from
 * k when that finds k itself, in one pass: the siblings along k's path
 * (just read by first-except, and independent loads) tell which subtree
 * holds the answer — the highest left sibling with s, else the lowest
 * right sibling with s — and Listing 4 descends from it. */
static inline int papc_clv_segtree_find_peer(const papc_clv_segtree *t,
                                             int k, int s) {
    const uint64_t *b = papc_clv_segtree_sword(t, s);
    const size_t ws = papc_clv_segtree_wstride(t);
    const uint64_t bit = UINT64_C(1) << (s & 63);
    size_t left = 0, right = 0;
    for (size_t n = (size_t)t->m + (size_t)k; n > 1; n >>= 1)
        if (b[(n ^ 1) * ws] & bit) {
            if (n & 1) left = n ^ 1;
            else if (!right) right = n ^ 1;
        }
    if (left) return papc_clv_segtree_find_leftmost(t, left, s);
    if (right) return papc_clv_segtree_find_leftmost(t, right, s);
    return -1;
}

/* Zero chunks c0..c1 of leaf k and fix its ancestors level by level,
 * climbing until no chunk of an ancestor changes; each level narrows
 * c0..c1 to the chunks that did change. */
static inline void papc_clv_segtree_clear_leaf_range(papc_clv_segtree *t,
                                                     int k, int c0, int c1) {
    const size_t C = (size_t)t->C;
    papc_clv_vec *b = t->node;
    size_t n = (size_t)t->m + (size_t)k;
    for (int c = c0; c <= c1; c++) b[n * C + c] = (papc_clv_vec){0, 0};
    for (; n > 1 && c0 <= c1; n >>= 1) {
        const papc_clv_vec *x = b + (n & ~(size_t)1) * C; /* both children */
        papc_clv_vec *up = b + (n >> 1) * C;
        int lo = c1 + 1, hi = c0 - 1;
        for (int c = c1; c >= c0; c--) {
            /* branch-free: store the OR whether or not it changed */
            const papc_clv_vec v = x[c] | x[C + c];
            const int changed = papc_clv_vec_any(up[c] ^ v);
            up[c] = v;
            lo = changed ? c : lo;
            hi = changed && hi < c0 ? c : hi;
        }
        c0 = lo;
        c1 = hi;
    }
}

/* Zero chunk c of leaf k and fix its ancestors. */
static inline void papc_clv_segtree_clear_leaf_chunk(papc_clv_segtree *t,
                                                     int k, int c) {
    papc_clv_segtree_clear_leaf_range(t, k, c, c);
}

/* CLEAR(M, p): zero leaf k and fix its ancestors. */
static inline void papc_clv_segtree_clear_leaf(papc_clv_segtree *t, int k) {
    papc_clv_segtree_clear_leaf_range(t, k, 0, t->C - 1);
}

/* CLEAR(M, p, s): clear segment s of leaf k and fix the ancestors. */
static inline void papc_clv_segtree_clear_bit(papc_clv_segtree *t, int k,
                                              int s) {
    uint64_t *b = papc_clv_segtree_sword(t, s);
    const size_t ws = papc_clv_segtree_wstride(t);
    const uint64_t bit = UINT64_C(1) << (s & 63);
    size_t n = (size_t)t->m + (size_t)k;
    if (!(b[n * ws] & bit)) return;
    b[n * ws] &= ~bit;
    for (; n > 1; n >>= 1) {
        if (b[(n ^ 1) * ws] & bit) break; /* the sibling keeps it set */
        b[(n >> 1) * ws] &= ~bit;
    }
}

/* SET(M, p, s): set segment s of leaf k and its ancestors. */
static inline void papc_clv_segtree_set_bit(papc_clv_segtree *t, int k,
                                            int s) {
    uint64_t *b = papc_clv_segtree_sword(t, s);
    const size_t ws = papc_clv_segtree_wstride(t);
    const uint64_t bit = UINT64_C(1) << (s & 63);
    for (size_t n = (size_t)t->m + (size_t)k; n >= 1; n >>= 1) {
        if (b[n * ws] & bit) break;
        b[n * ws] |= bit;
    }
}

#endif /* PAPC_CLV_SEGTREE_H */
