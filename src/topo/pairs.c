/*
 * pairs.c — partners of the arrival monitor's busy fit (pairs.h).
 * O(P log P) time, O(P) memory; no MPI.
 */
#include "pairs.h"

#include <stdlib.h>

typedef struct lr {
    int label, rank;
} lr;

static int by_label_rank(const void *a, const void *b) {
    const lr *x = a, *y = b;
    if (x->label != y->label) return x->label < y->label ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

int papc_ranks_by_label(int P, const int *label, int *ranks) {
    lr *s = malloc((size_t)(P > 0 ? P : 1) * sizeof *s);
    if (!s) return -1;
    for (int r = 0; r < P; r++) s[r] = (lr){label[r], r};
    qsort(s, (size_t)P, sizeof *s, by_label_rank);
    for (int i = 0; i < P; i++) ranks[i] = s[i].rank;
    free(s);
    return 0;
}

int papc_busy_pairs(int P, const int *node, int *first, int *second,
                    int *intra) {
    if (intra) *intra = 0;
    if (P < 1 || !node || !first || !second) return -1;
    for (int r = 0; r < P; r++) first[r] = second[r] = -1;
    int one = 1;
    for (int r = 1; r < P && one; r++) one = node[r] == node[0];
    if (one) {
        for (int r = 0; r < P; r++)
            if ((r ^ 1) < P) first[r] = r ^ 1;
        return 1;
    }
    int *s = malloc((size_t)P * sizeof *s); /* ranks by (label, rank) */
    int *order = malloc((size_t)P * sizeof *order);
    if (!s || !order || papc_ranks_by_label(P, node, s) != 0) {
        free(s);
        free(order);
        return -1;
    }
    /* Blocks of equal labels; the largest (first of the largest) goes
     * first. */
    int nodes = 0, big0 = 0, bign = 0;
    for (int i = 0; i < P;) {
        int j = i;
        while (j < P && node[s[j]] == node[s[i]]) j++;
        if (j - i > bign) {
            bign = j - i;
            big0 = i;
        }
        nodes++;
        i = j;
    }
    int k = 0;
    for (int i = big0; i < big0 + bign; i++) order[k++] = s[i];
    for (int i = 0; i < P; i++)
        if (i < big0 || i >= big0 + bign) order[k++] = s[i];
    int h = P / 2;
    for (int i = 0; i < h; i++) {
        first[order[i]] = order[i + h];
        first[order[i + h]] = order[i];
    }
    if (P % 2) {
        second[order[P - 1]] = order[0];
        second[order[0]] = order[P - 1];
    }
    if (intra) *intra = bign > h ? bign - h : 0;
    free(s);
    free(order);
    return nodes;
}
