/*
 * node.c — the two-stage plan of reduce clairvoyant_node (node.h).
 * O(P log P) to group the ranks; per call two generations, one of at most
 * nmax ranks and one of G leaders (papc_clv_plan_quantised), and O(P)
 * around them.
 */
#include "node.h"
#include "pairs.h"

#include <stdlib.h>
#include <string.h>

void papc_clv_nodes_free(papc_clv_nodes *n) {
    if (!n) return;
    free(n->node);
    free(n->start);
    free(n->member);
    memset(n, 0, sizeof *n);
}

int papc_clv_nodes_make(int P, const int *label, papc_clv_nodes *out) {
    memset(out, 0, sizeof *out);
    if (P < 1 || !label) return -1;
    int *s = malloc((size_t)P * sizeof *s); /* ranks by (label, rank) */
    int *first = malloc((size_t)P * sizeof *first); /* per sorted block */
    out->node = malloc((size_t)P * sizeof *out->node);
    out->member = malloc((size_t)P * sizeof *out->member);
    out->start = malloc(((size_t)P + 1) * sizeof *out->start);
    if (!s || !first || !out->node || !out->member || !out->start) {
        free(s);
        free(first);
        papc_clv_nodes_free(out);
        return -1;
    }
    if (papc_ranks_by_label(P, label, s) != 0) {
        free(s);
        free(first);
        papc_clv_nodes_free(out);
        return -1;
    }
    /* Blocks of equal labels, each ascending by rank; a block's lowest
     * rank is its first.  Number the nodes by their lowest ranks: scan the
     * ranks ascending, a rank whose block has no number yet opens the next
     * one. */
    int *block_of = out->node; /* [rank]: its block's first position */
    for (int i = 0; i < P;) {
        int j = i;
        while (j < P && label[s[j]] == label[s[i]]) j++;
        for (int t = i; t < j; t++) block_of[s[t]] = i;
        i = j;
    }
    for (int i = 0; i < P; i++) first[i] = -1; /* block position -> node */
    int G = 0;
    for (int r = 0; r < P; r++) {
        int b = block_of[r];
        if (first[b] < 0) first[b] = G++;
    }
    /* node numbers, sizes, members */
    for (int k = 0; k <= G; k++) out->start[k] = 0;
    for (int r = 0; r < P; r++) {
        out->node[r] = first[block_of[r]];
        out->start[out->node[r] + 1]++;
    }
    out->nmax = 0;
    for (int k = 0; k < G; k++) {
        int size = out->start[k + 1];
        if (size > out->nmax) out->nmax = size;
        out->start[k + 1] += out->start[k];
    }
    int *fill = first; /* reuse: next free place per node */
    for (int k = 0; k < G; k++) fill[k] = out->start[k];
    for (int r = 0; r < P; r++) out->member[fill[out->node[r]]++] = r;
    out->P = P;
    out->G = G;
    free(s);
    free(first);
    return 0;
}

int papc_clv_node_leader(const papc_clv_nodes *n, int k, int root) {
    if (root >= 0 && root < n->P && n->node[root] == k) return root;
    return n->member[n->start[k]];
}

static int ceil_log2(int n) {
    int l = 0;
    while ((1LL << l) < n) l++;
    return l;
}

int papc_clv_node_ready(const papc_clv_nodes *n, const int32_t *q, int N,
                        int32_t *ready) {
    if (!n || !q || !ready || N < 1) return -1;
    for (int k = 0; k < n->G; k++) {
        int b = n->start[k], e = n->start[k + 1];
        int32_t lo = q[n->member[b]], hi = lo;
        for (int i = b + 1; i < e; i++) {
            int32_t v = q[n->member[i]];
            if (v < lo) lo = v;
            if (v > hi) hi = v;
        }
        if (e - b == 1) {
            ready[k] = lo;
            continue;
        }
        int64_t bal = (int64_t)lo + N + ceil_log2(e - b) - 1;
        int64_t tail = (int64_t)hi + N;
        ready[k] = (int32_t)(bal > tail ? bal : tail);
    }
    return 0;
}

/* Generates the schedule of nq processes with whole-round arrivals
 * qs[nq] (made relative to their earliest here) for index `me`, and
 * appends its events to *out with peers mapped through map[] and rounds
 * shifted back to the common time base; *last is raised to the schedule's
 * last round there.  0 or -1. */
static int append_stage(int32_t *qs, int nq, int N, int root, int me,
                        const int *map, papc_clv_plan *out, int64_t *last) {
    int32_t base = qs[0];
    for (int i = 1; i < nq; i++)
        if (qs[i] < base) base = qs[i];
    for (int i = 0; i < nq; i++) qs[i] -= base;
    papc_clv_plan p;
    if (papc_clv_plan_quantised(qs, nq, N, root, me, &p) != 0) return -1;
    if (p.n) {
        papc_clv_event *ev =
            realloc(out->ev, (out->n + p.n) * sizeof *out->ev);
        if (!ev) {
            papc_clv_plan_free(&p);
            return -1;
        }
        out->ev = ev;
        for (size_t i = 0; i < p.n; i++) {
            papc_clv_event e = p.ev[i];
            e.peer = map[e.peer];
            e.round += base;
            out->ev[out->n++] = e;
        }
    }
    out->nevents_total += p.nevents_total;
    if ((int64_t)base + p.rounds > *last) *last = (int64_t)base + p.rounds;
    papc_clv_plan_free(&p);
    return 0;
}

int papc_clv_node_plan(const papc_clv_nodes *n, const int32_t *q, int N,
                       int root, int rank, papc_clv_plan *out) {
    memset(out, 0, sizeof *out);
    if (!n || !q || N < 1 || root < 0 || root >= n->P || rank < 0 ||
        rank >= n->P)
        return -1;
    int P = n->P, G = n->G, k = n->node[rank];
    int b = n->start[k], nk = n->start[k + 1] - b;
    int leader = papc_clv_node_leader(n, k, root);
    int rc = 0;
    int64_t last = 0;
    size_t need = (size_t)(nk > G ? nk : G);
    int32_t *qs = malloc(need * sizeof *qs);
    int *map = malloc(need * sizeof *map);
    if (!qs || !map) rc = -1;
    /* stage 1: within the node, to its leader */
    if (rc == 0 && nk > 1) {
        int me = -1, lead = -1;
        for (int i = 0; i < nk; i++) {
            int r = n->member[b + i];
            map[i] = r;
            qs[i] = q[r];
            if (r == rank) me = i;
            if (r == leader) lead = i;
        }
        rc = append_stage(qs, nk, N, lead, me, map, out, &last);
    }
    /* stage 2: the leaders, to the root */
    if (rc == 0 && G > 1 && rank == leader) {
        rc = papc_clv_node_ready(n, q, N, qs);
        for (int j = 0; j < G && rc == 0; j++)
            map[j] = papc_clv_node_leader(n, j, root);
        if (rc == 0)
            rc = append_stage(qs, G, N, n->node[root], k, map, out, &last);
    }
    free(qs);
    free(map);
    if (rc == 0 && !out->ev && !(out->ev = malloc(sizeof *out->ev)))
        rc = -1; /* as papc_clv_plan_from: never NULL */
    if (rc != 0) {
        papc_clv_plan_free(out);
        memset(out, 0, sizeof *out);
        return -1;
    }
    out->P = P;
    out->N = N;
    out->root = root;
    out->rank = rank;
    out->rounds = (int)last;
    return 0;
}
