/* topo.c — tree builders, pairings and block splits (see topo.h). */
#include "topo.h"

int papc_pof2_floor(int n) {
    int p = 1;
    while (p <= n / 2) p <<= 1;
    return p;
}

int papc_ceil_log2(int n) {
    int l = 0;
    while ((1 << l) < n) l++;
    return l;
}

static int lowbit(int v) { return v & -v; }

int papc_inorder_span(int vrank, int size) {
    int span = vrank == 0 ? size : lowbit(vrank);
    return vrank + span > size ? size - vrank : span;
}

/* Chain j of k chains over the size-1 non-root nodes: first node, length. */
static void chain_bounds(int k, int size, int j, int *first, int *len) {
    int n = size - 1, kk = k < n ? k : n;
    *first = 1 + j * (n / kk) + (j < n % kk ? j : n % kk);
    *len = n / kk + (j < n % kk ? 1 : 0);
}

/* Which chain vrank (>= 1) lies on and its position there. */
static void chain_locate(int k, int size, int vrank, int *first, int *len) {
    int n = size - 1, kk = k < n ? k : n;
    *first = vrank;
    *len = 1;
    for (int j = 0; j < kk; j++) {
        chain_bounds(k, size, j, first, len);
        if (vrank < *first + *len) return;
    }
}

static int chain_node(int k, int vrank, int size, int *parent, int *children) {
    int first, len, n = 0;
    if (vrank == 0) {
        int kk = k < size - 1 ? k : size - 1;
        *parent = -1;
        for (int j = 0; j < kk; j++) {
            chain_bounds(k, size, j, &first, &len);
            children[n++] = first;
        }
        return n;
    }
    chain_locate(k, size, vrank, &first, &len);
    *parent = vrank == first ? 0 : vrank - 1;
    if (vrank + 1 < first + len) children[n++] = vrank + 1;
    return n;
}

static int kary_node(int k, int vrank, int size, int *parent, int *children) {
    int n = 0;
    *parent = vrank == 0 ? -1 : (vrank - 1) / k;
    for (int i = 1; i <= k; i++) {
        long c = (long)vrank * k + i;
        if (c < size) children[n++] = (int)c;
    }
    return n;
}

/* Orders children by subtree size, largest first (stable).  When size is
 * not a power of two the nominally largest subtrees are cut short, so the
 * child vrank + m with the biggest m need not have the biggest subtree
 * (size 5: children 4, 2, 1 hold 1, 2, 1 nodes). */
static void sort_by_span_desc(int *children, int n, int size) {
    for (int i = 1; i < n; i++) {
        int c = children[i], s = papc_inorder_span(c, size), j = i;
        for (; j > 0 && papc_inorder_span(children[j - 1], size) < s; j--)
            children[j] = children[j - 1];
        children[j] = c;
    }
}

static int binomial_node(int ascending, int vrank, int size, int *parent,
                         int *children) {
    int n = 0, limit = vrank == 0 ? size : lowbit(vrank);
    *parent = vrank == 0 ? -1 : vrank - lowbit(vrank);
    if (ascending) {
        for (int m = 1; m < limit && vrank + m < size; m <<= 1)
            children[n++] = vrank + m;
    } else {
        int m = 1;
        while (m * 2 < limit) m <<= 1;
        for (; m >= 1; m >>= 1)
            if (m < limit && vrank + m < size) children[n++] = vrank + m;
        sort_by_span_desc(children, n, size);
    }
    return n;
}

/* ---- k-nomial (topo.h) ---- */

/* k^j of the lowest nonzero base-k digit of vrank >= 1; for the root, the
 * least power of k >= size (its children lie below it).  long long: with
 * size < 2^31 and k < 2^31 no product below overflows. */
static long long knomial_place(int k, int vrank, int size) {
    long long place = 1;
    if (vrank == 0) {
        while (place < size) place *= k;
        return place;
    }
    while ((vrank / place) % k == 0) place *= k;
    return place;
}

/* Nodes in the subtree of vrank: the range [vrank, vrank + place) cut at
 * size. */
static int knomial_span(int k, int vrank, int size) {
    if (vrank == 0) return size;
    long long place = knomial_place(k, vrank, size);
    return place < size - vrank ? (int)place : size - vrank;
}

int papc_knomial_max_children(int k, int size) {
    if (k < 2) k = 2;
    int levels = 0;
    for (long long p = 1; p < size; p *= k) levels++;
    long long n = (long long)(k - 1) * levels;
    return n < size - 1 ? (int)n : (size > 1 ? size - 1 : 0);
}

static int knomial_node(int k, int vrank, int size, int *parent,
                        int *children) {
    long long place = knomial_place(k, vrank, size);
    int n = 0;
    *parent = vrank == 0
                  ? -1
                  : (int)(vrank - (vrank / place) % k * place);
    for (long long m = place / k; m >= 1; m /= k)
        for (int d = 1; d < k; d++) {
            long long c = vrank + d * m;
            if (c >= size) break;
            children[n++] = (int)c;
        }
    /* Largest subtree first (stable): only a cut-short last child of a
     * level can be smaller than the next level's. */
    for (int i = 1; i < n; i++) {
        int c = children[i], s = knomial_span(k, c, size), j = i;
        for (; j > 0 && knomial_span(k, children[j - 1], size) < s; j--)
            children[j] = children[j - 1];
        children[j] = c;
    }
    return n;
}

int papc_tree_node(papc_tree_kind kind, int k, int vrank, int size,
                   int *parent, int *children) {
    if (size <= 1) {
        *parent = -1;
        return 0;
    }
    switch (kind) {
    case PAPC_TREE_LINEAR:
        if (vrank != 0) {
            *parent = 0;
            return 0;
        }
        *parent = -1;
        for (int i = 1; i < size; i++) children[i - 1] = i;
        return size - 1;
    case PAPC_TREE_CHAIN: return chain_node(k < 1 ? 1 : k, vrank, size,
                                            parent, children);
    case PAPC_TREE_KARY: return kary_node(k < 1 ? 1 : k, vrank, size, parent,
                                          children);
    case PAPC_TREE_BINOMIAL:
        return binomial_node(0, vrank, size, parent, children);
    case PAPC_TREE_INORDER_BINOMIAL:
        return binomial_node(1, vrank, size, parent, children);
    case PAPC_TREE_KNOMIAL:
        return knomial_node(k < 2 ? 2 : k, vrank, size, parent, children);
    }
    *parent = -1;
    return 0;
}

int papc_tree_subtree_size(papc_tree_kind kind, int k, int vrank, int size) {
    if (vrank == 0) return size;
    switch (kind) {
    case PAPC_TREE_LINEAR: return 1;
    case PAPC_TREE_CHAIN: {
        int first, len;
        chain_locate(k < 1 ? 1 : k, size, vrank, &first, &len);
        return first + len - vrank;
    }
    case PAPC_TREE_KARY: {
        long lo = vrank, hi = vrank, n = 0;
        if (k < 1) k = 1;
        while (lo < size) {
            n += (hi < size ? hi : size - 1) - lo + 1;
            lo = lo * k + 1;
            hi = hi * k + k;
        }
        return (int)n;
    }
    case PAPC_TREE_BINOMIAL:
    case PAPC_TREE_INORDER_BINOMIAL: return papc_inorder_span(vrank, size);
    case PAPC_TREE_KNOMIAL: return knomial_span(k < 2 ? 2 : k, vrank, size);
    }
    return 1;
}

/* Level of vrank in the breadth-first binary tree and the level's first. */
static int binary_level(int vrank, int *level_first) {
    int l = 0, first = 0;
    while (first + (1 << l) <= vrank) {
        first += 1 << l;
        l++;
    }
    *level_first = first;
    return l;
}

void papc_split_binary_pair(int vrank, int size, int *half, int *partner) {
    int first, l = binary_level(vrank, &first);
    if (vrank == 0) {
        *half = -1;
        *partner = -1;
        return;
    }
    int halfwidth = 1 << (l - 1), off = vrank - first;
    if (off < halfwidth) {
        *half = 0;
        *partner = vrank + halfwidth < size ? vrank + halfwidth : -1;
    } else {
        *half = 1;
        *partner = vrank - halfwidth;
    }
}

int papc_split_binary_unpaired(int size, int *list) {
    int n = 0;
    for (int v = 1; v < size; v++) {
        int half, partner;
        papc_split_binary_pair(v, size, &half, &partner);
        if (partner < 0) list[n++] = v;
    }
    return n;
}

void papc_block_range(int count, int n, int i, int *start, int *len) {
    int q = count / n, r = count % n;
    *start = i * q + (i < r ? i : r);
    *len = q + (i < r ? 1 : 0);
}
