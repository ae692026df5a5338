/*
 * irregular_tree.c — the ordered, size-aware binomial tree (Träff, see
 * irregular_tree.h): cube geometry, fixed roots, the merge rule and the
 * sequential builder.  The distributed construction (src/coll/
 * irregular_tree.c) and the builder apply exactly these functions to the
 * same numbers, so every process reaches the builder's tree.
 */
#include <stdlib.h>
#include "irregular_tree.h"

int papc_itree_rounds(int p) {
    int d = 0;
    while ((1LL << d) < (long long)p) d++;
    return d;
}

void papc_itree_cube_range(int p, int k, int i, int *lo, int *hi) {
    long long first = ((long long)i >> k) << k;
    long long last = first + (1LL << k) - 1;
    *lo = (int)first;
    *hi = last < p - 1 ? (int)last : p - 1;
}

int papc_itree_sibling_range(int p, int k, int i, int *lo, int *hi) {
    long long first = ((long long)((i >> k) ^ 1)) << k;
    if (first >= p) return 0;
    papc_itree_cube_range(p, k, (int)first, lo, hi);
    return 1;
}

int papc_itree_fixed_root(int p, int k, int i) {
    int lo, hi;
    papc_itree_cube_range(p, k, i, &lo, &hi);
    return hi;
}

int papc_itree_block_direct(int64_t m, int64_t threshold, int64_t cap) {
    return (threshold > 0 && m > threshold) || m > cap;
}

papc_itree_verdict papc_itree_decide(const papc_itree_cube *lower,
                                     const papc_itree_cube *upper,
                                     int root_side, int64_t threshold,
                                     int64_t cap) {
    papc_itree_verdict v = {0, 0};
    if (root_side >= 0) { /* Lemma 2: the given root always gathers */
        v.upper_wins = root_side;
        return v;
    }
    /* Lemma 1: the gather time estimate of a cube is M - m_g (the bytes
     * its gather root had to receive); the faster cube sends. */
    int64_t tl = lower->bytes - lower->own, tu = upper->bytes - upper->own;
    v.upper_wins = tu > tl || (tu == tl && upper->bytes >= lower->bytes);
    const papc_itree_cube *win = v.upper_wins ? upper : lower;
    const papc_itree_cube *lose = v.upper_wins ? lower : upper;
    /* Relaying the loser's M bytes once more costs β M at the winner; a
     * message of its own costs the root one α: above the threshold the
     * loser goes straight to the root. */
    v.direct = lose->bytes > 0 &&
               ((threshold > 0 && lose->bytes > threshold) ||
                lose->bytes > cap - win->bytes);
    return v;
}

papc_itree_cube papc_itree_join(const papc_itree_cube *lower,
                                const papc_itree_cube *upper,
                                papc_itree_verdict v) {
    papc_itree_cube out = v.upper_wins ? *upper : *lower;
    const papc_itree_cube *lose = v.upper_wins ? lower : upper;
    if (!v.direct) out.bytes += lose->bytes;
    return out;
}

int papc_itree_build(int p, int root, const int64_t *m, int64_t threshold,
                     int64_t cap, papc_itree_node *out) {
    papc_itree_cube *cube = malloc((size_t)(p > 0 ? p : 1) * sizeof *cube);
    if (!cube) return -1;
    for (int i = 0; i < p; i++) {
        int direct = i != root && papc_itree_block_direct(m[i], threshold, cap);
        int64_t tree = direct || i == root ? 0 : m[i];
        cube[i] = (papc_itree_cube){i, tree, tree};
        out[i] = (papc_itree_node){-1, -1, 0, 0, direct};
    }
    int d = papc_itree_rounds(p);
    for (int k = 0, n = p; k < d; k++, n = (n + 1) / 2) {
        /* cube[a] is the level-k cube a; merged ones go to cube[a / 2]. */
        for (int a = 0; a < n; a += 2) {
            if (a + 1 == n) { /* the incomplete last cube moves up alone */
                cube[a / 2] = cube[a];
                continue;
            }
            long long lo = (long long)a << k, mid = (long long)(a + 1) << k;
            long long hi = mid + (1LL << k) - 1;
            int side = root >= lo && root < mid   ? 0
                       : root >= mid && root <= hi ? 1
                                                   : -1;
            papc_itree_cube lower = cube[a], upper = cube[a + 1];
            papc_itree_verdict v =
                papc_itree_decide(&lower, &upper, side, threshold, cap);
            const papc_itree_cube *win = v.upper_wins ? &upper : &lower;
            const papc_itree_cube *lose = v.upper_wins ? &lower : &upper;
            papc_itree_node *n_lose = &out[lose->groot];
            n_lose->parent = side >= 0 || v.direct ? root : (int)win->groot;
            n_lose->round = k;
            n_lose->bytes = lose->bytes;
            n_lose->to_root = v.direct;
            cube[a / 2] = papc_itree_join(&lower, &upper, v);
        }
    }
    free(cube);
    return 0;
}
