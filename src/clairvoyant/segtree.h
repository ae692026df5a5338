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
 * Layout: node by node — node i's column is the C chunks
 * node[i C .. i C + C - 1].  Per round the tree is rebuilt from the
 * processes' columns (fast.c), so laying a leaf out is one copy of C
 * contiguous chunks and each level of the rebuild one sequential pass;
 * zeroing a sender's leaf fixes all its non-zero chunks together, level
 * by level, on contiguous memory with one branch per level.  The former
 * chunk-plane layout (chunk c of node i at node[c 2m + i]) kept one
 * chunk's path in fewer cache lines, but at P = N = 2048 (C = 16) it
 * gathered every leaf from 16 planes and zeroed a leaf plane by plane,
 * climbing and mispredicting once per chunk: about 40 % of the time.
 * The price of this layout is a cache line per level on a single-chunk
 * path; find-leftmost hides it by reading two levels a step (the left
 * child and the four grandchildren, independent loads).
 *
 * The leaves are the columns of the processes taking part in the current
 * round, in the order of the round (see fast.c); unused leaves are zero.
 * Queries (leaf numbers 0..m-1, segment numbers 0..N-1):
 *   all-except-one (Listing 3)  OR of every leaf but one;
 *   first-except                the first segment set in mask AND
 *                               all-except-one, chunk by chunk with an
 *                               early exit, climbing only for the leaf's
 *                               own bits (FIND-PEER-SEGMENT);
 *   find-leftmost (Listing 4)   the leftmost leaf with a segment's bit;
 *   find-leftmost-from (Lst. 5) the same, strictly right of a leaf;
 *   find-peer                   the leftmost leaf but k with the bit
 *                               (Listing 7: find-leftmost, and
 *                               find-leftmost-from k when that is k);
 * and updates: clear a leaf (the process has sent this round), clear or
 * set one bit of a leaf, each fixing the path to the root in O(log m)
 * (early exit when an ancestor does not change), or rebuild the internal
 * nodes at once in O(m C) — build_live only over the leaves that were or
 * are non-zero, since the tree only loses bits between rebuilds.
 *
 * The hot operations are static inline here, always inlined
 * (PAPC_CLV_HOT) so that fast.c's per-C copies of its round loop see C as
 * a constant; allocation lives in segtree.c.
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
    int n;             /* leaves 0..n-1 set by the caller this round */
    int span;          /* papc_clv_segtree_build_live rebuilds the nodes
                          over leaves 0..span-1 */
    int zero_from;     /* leaves >= zero_from, and every node over them
                          only, are 0 (for this m) */
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

/* The queries and updates below run in fast.c's innermost loop, which is
 * compiled once per common column width C (fast.c, rounds_c): always
 * inlined, so that C is a constant in them and their chunk loops unroll. */
#define PAPC_CLV_HOT static inline __attribute__((always_inline))

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
 * and build.  Only the leaves that may be non-zero are zeroed: with the
 * same m as the last round, those below zero_from. */
PAPC_CLV_HOT void papc_clv_segtree_reset(papc_clv_segtree *t, int n) {
    int m = 2;
    while (m < n) m <<= 1;
    const int from = m == t->m && t->zero_from < m ? t->zero_from : m;
    t->m = m;
    t->n = n;
    t->span = from > n ? from : n;
    if (from > n)
        memset(papc_clv_segtree_col(t, (size_t)m + (size_t)n), 0,
               (size_t)(from - n) * (size_t)t->C * sizeof(papc_clv_vec));
}

/* Leaf k = col (C chunks); the internal nodes are not updated. */
PAPC_CLV_HOT void papc_clv_segtree_set_leaf(papc_clv_segtree *t, int k,
                                            const papc_clv_vec *col) {
    memcpy(papc_clv_segtree_col(t, (size_t)t->m + (size_t)k), col,
           (size_t)t->C * sizeof *col);
}

/* The internal nodes over leaves 0..L-1 (others are left alone), level
 * by level: the children of a level's nodes are adjacent, so each level
 * is one sequential pass. */
PAPC_CLV_HOT void papc_clv_segtree_build_prefix(papc_clv_segtree *t,
                                                int L) {
    const size_t C = (size_t)t->C;
    papc_clv_vec *const b = t->node;
    size_t first = (size_t)t->m, count = (size_t)L;
    while (first > 1) {
        first >>= 1;
        count = (count + 1) >> 1;
        papc_clv_vec *x = b + first * C;
        const papc_clv_vec *y = b + 2 * first * C;
        for (size_t i = 0; i < count; i++, x += C, y += 2 * C)
#pragma GCC unroll 4
            for (size_t c = 0; c < C; c++) x[c] = y[c] | y[C + c];
    }
}

/* Every internal node from the leaves (O(m C)).  The caller may have
 * written any leaf, so nothing is known to be zero afterwards. */
static inline void papc_clv_segtree_build(papc_clv_segtree *t) {
    papc_clv_segtree_build_prefix(t, t->m);
    t->zero_from = t->m;
}

/* The internal nodes after papc_clv_segtree_reset(t, n) and leaves
 * 0..n-1 set: only those over the leaves that were or are non-zero
 * (span); the nodes over leaves >= span are 0 already.  Afterwards the
 * tree may only lose bits until the next reset (clear-leaf, clear-bit),
 * so everything over leaves >= n stays 0. */
PAPC_CLV_HOT void papc_clv_segtree_build_live(papc_clv_segtree *t) {
    papc_clv_segtree_build_prefix(t, t->span);
    t->zero_from = t->n;
}

/* Chunk c of all-except-one(leaf k) (Listing 3 on one chunk). */
PAPC_CLV_HOT papc_clv_vec papc_clv_segtree_except_chunk(
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
 * an answer.  The climb of Listing 3 is needed only for the bits leaf k
 * holds itself: every other leaf holds a bit iff the root does, so
 * all-except-one = (root AND NOT leaf) OR (climb AND leaf).  A chunk the
 * root lacks is skipped with one load, and a receiver that has sent this
 * round (its leaf is zero) never climbs.  At P = N = 2048 uniform 70 % of
 * the chunks scanned were skipped so, and every chunk climbed 11 levels
 * before. */
PAPC_CLV_HOT int papc_clv_segtree_first_except(const papc_clv_segtree *t,
                                               int k,
                                               const papc_clv_vec *mask,
                                               int c0) {
    const papc_clv_vec *root = papc_clv_segtree_col(t, 1);
    const papc_clv_vec *leaf =
        papc_clv_segtree_col(t, (size_t)t->m + (size_t)k);
    for (int c = c0; c < t->C; c++) {
        const papc_clv_vec want = mask ? mask[c] : ~(papc_clv_vec){0, 0};
        papc_clv_vec v = root[c] & want;
        if (!papc_clv_vec_any(v)) continue;
        const papc_clv_vec own = leaf[c];
        if (papc_clv_vec_any(v & own))
            v = (v & ~own) | (v & own & papc_clv_segtree_except_chunk(t, k, c));
        if (papc_clv_vec_any(v)) return c * 128 + papc_clv_vec_ffs(v);
    }
    return -1;
}

/* Listing 4: the leftmost leaf under node n with segment s set, -1 if
 * none. */
PAPC_CLV_HOT int papc_clv_segtree_find_leftmost(const papc_clv_segtree *t,
                                                size_t n, int s) {
    const uint64_t *b = papc_clv_segtree_sword(t, s);
    const size_t ws = papc_clv_segtree_wstride(t);
    const uint64_t bit = UINT64_C(1) << (s & 63);
    const size_t m = (size_t)t->m;
    if (!(b[n * ws] & bit)) return -1;
    /* two levels a step: the left child and two grandchildren are
     * loaded at once (independent loads), so a descent waits for memory
     * half as often */
    const int sh = s & 63;
    while (2 * n < m) { /* the children are internal nodes */
        const size_t g = 4 * n;
        /* 1 = go right, chosen by arithmetic, not a branch: the way
         * down is data, and a branch on it mispredicted about every other
         * step (cachegrind: 1.6 M of 6.5 M mispredictions in 3 runs at
         * P = N = 512 went away; about 5 % faster) */
        const size_t r = ~(b[2 * n * ws] >> sh) & 1;
        const size_t r0 = ~(b[g * ws] >> sh) & 1;
        const size_t r2 = ~(b[(g + 2) * ws] >> sh) & 1;
        n = g + 2 * r + (r0 ^ ((r0 ^ r2) & (0 - r)));
    }
    if (n < m) {
        n <<= 1;
        n += ~(b[n * ws] >> sh) & 1;
    }
    return (int)(n - m);
}

/* Listing 5: the leftmost leaf right of leaf k with segment s set, -1 if
 * none. */
PAPC_CLV_HOT int papc_clv_segtree_find_leftmost_from(
    const papc_clv_segtree *t, int k, int s) {
    const uint64_t *b = papc_clv_segtree_sword(t, s);
    const size_t ws = papc_clv_segtree_wstride(t);
    const uint64_t bit = UINT64_C(1) << (s & 63);
    for (size_t n = (size_t)t->m + (size_t)k; n > 1; n >>= 1)
        if (!(n & 1) && (b[(n + 1) * ws] & bit))
            return papc_clv_segtree_find_leftmost(t, n + 1, s);
    return -1;
}

/* FIND-PEER (Sect. 5.4.2, Listing 7): the leftmost leaf other than k with
 * segment s set, -1 if none — find-leftmost from the root, and
 * find-leftmost-from k when that finds k itself.  (A one-pass variant —
 * read all of k's path siblings, then descend from the right one — ran
 * 6 % more instructions at P = N = 512 under cachegrind.) */
PAPC_CLV_HOT int papc_clv_segtree_find_peer(const papc_clv_segtree *t,
                                            int k, int s) {
    const int z = papc_clv_segtree_find_leftmost(t, 1, s);
    return z != k ? z : papc_clv_segtree_find_leftmost_from(t, k, s);
}

/* Zero chunks c0..c1 of leaf k and fix its ancestors, all of those
 * chunks together level by level (contiguous memory, no branch per
 * chunk), until a level where none changes. */
PAPC_CLV_HOT void papc_clv_segtree_clear_leaf_range(papc_clv_segtree *t,
                                                    int k, int c0, int c1) {
    const size_t C = (size_t)t->C;
    papc_clv_vec *const b = t->node;
    size_t n = (size_t)t->m + (size_t)k;
#pragma GCC unroll 4
    for (int c = c0; c <= c1; c++) b[n * C + c] = (papc_clv_vec){0, 0};
    for (; n > 1; n >>= 1) {
        const papc_clv_vec *x = b + (n & ~(size_t)1) * C;
        papc_clv_vec *up = b + (n >> 1) * C;
        papc_clv_vec d = {0, 0};
#pragma GCC unroll 4
        for (int c = c0; c <= c1; c++) {
            const papc_clv_vec v = x[c] | x[C + c];
            d |= up[c] ^ v;
            up[c] = v;
        }
        if (!papc_clv_vec_any(d)) break;
    }
}

/* CLEAR(M, p): zero leaf k and fix its ancestors (only the chunks from
 * the leaf's first to its last non-zero one).  Up to 4 chunks all are
 * fixed, without looking for the non-zero ones: a zero chunk's parent is
 * rewritten with the value it has, and with C known at compile time
 * (fast.c) the loops unroll into straight code. */
PAPC_CLV_HOT void papc_clv_segtree_clear_leaf(papc_clv_segtree *t, int k) {
    if (t->C <= 4) {
        papc_clv_segtree_clear_leaf_range(t, k, 0, t->C - 1);
        return;
    }
    const papc_clv_vec *x =
        papc_clv_segtree_col(t, (size_t)t->m + (size_t)k);
    int c0 = 0, c1 = t->C - 1;
    while (c0 <= c1 && !papc_clv_vec_any(x[c0])) c0++;
    while (c1 > c0 && !papc_clv_vec_any(x[c1])) c1--;
    if (c0 <= c1) papc_clv_segtree_clear_leaf_range(t, k, c0, c1);
}

/* CLEAR(M, p, s): clear segment s of leaf k and fix the ancestors. */
PAPC_CLV_HOT void papc_clv_segtree_clear_bit(papc_clv_segtree *t, int k,
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
