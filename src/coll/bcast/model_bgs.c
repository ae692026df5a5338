/* model_bgs.c — pieces of the bcast/gather/scatter/gatherv/scatterv cost
 * models (see model_bgs.h).  Pure: no MPI call. */
#include <limits.h>
#include <math.h>
#include "../../core/core.h"
#include "model_bgs.h"

double papc_bgs_g(const papc_model_in *in, int p) {
    return papc_gamma_of(in->gamma, p);
}

papc_terms papc_bgs_copy(double bytes) {
    return (papc_terms){0, 0, 0, bytes, 0, 0};
}

papc_terms papc_bgs_max(papc_terms a, papc_terms b) {
    return (papc_terms){fmax(a.alpha, b.alpha), fmax(a.beta, b.beta),
                        fmax(a.gamma_op, b.gamma_op), fmax(a.copy, b.copy),
                        fmax(a.msgs, b.msgs), fmax(a.volume, b.volume)};
}

papc_terms papc_bgs_fan(const papc_model_in *in, int k, double total) {
    if (k <= 0) return papc_terms_zero();
    return papc_terms_scale(papc_msg(total / k), papc_bgs_g(in, k + 1));
}

int papc_bgs_big_child(int n) {
    if (n <= 2) return 1;
    int L = papc_model_ceil_log2(n);
    int full = 1 << (L - 2), last = n - (1 << (L - 1));
    return last > full ? last : full;
}

papc_terms papc_bgs_decision(const papc_model_in *in) {
    if (in->P <= 1) return papc_terms_zero();
    double msg = 8.0 * (2.0 * in->P + 1);
    return papc_bgs_fan(in, in->P - 1, (in->P - 1) * msg);
}

double papc_bgs_first_segment(void) {
    return (double)papc_env_size("PAPC_GATHER_FIRST_SEGMENT", 1024);
}

/* ---- the segmented tree broadcast ---- */

#define SEG_MAX_BYTES 1073741824.0 /* tree_engine.c's SEG_MAX_BYTES, 2^30 */

/* ---- traffic ---- */

double papc_bgs_bcast_nseg(double segsize, double len) {
    if (len <= 0) return 0;
    return ceil(len / papc_bgs_bcast_seg(segsize, len));
}

/* Children of a node spanning n: 1, 2, ..., 2^(L-2) and n - 2^(L-1). */
double papc_bgs_binomial_span_sum(int n) {
    if (n <= 1) return 0;
    int L = papc_model_ceil_log2(n), last = n - (1 << (L - 1));
    double sum = last + papc_bgs_binomial_span_sum(last);
    for (int j = 0; j <= L - 2; j++)
        sum += (double)(1 << j) + papc_bgs_binomial_span_sum(1 << j);
    return sum;
}

papc_terms papc_bgs_notices_traffic(papc_terms t, int P) {
    if (P <= 1) return t;
    return papc_terms_traffic(t, P - 1, 32.0 * (P - 1));
}

papc_terms papc_bgs_agreed_traffic(papc_terms t, int P) {
    if (P <= 1) return t;
    t = papc_bgs_notices_traffic(t, P);
    return papc_terms_traffic(t, P - 1, 8.0 * (2.0 * P + 1) * (P - 1));
}

double papc_bgs_bcast_seg(double segsize, double len) {
    double seg = segsize <= 0 || segsize > len ? len : segsize;
    if (seg > SEG_MAX_BYTES) seg = SEG_MAX_BYTES;
    double least = floor(len / (double)(INT_MAX / 2));
    if (seg < least) seg = least;
    return seg > 0 ? seg : 1;
}

papc_terms papc_bgs_pipeline(const papc_model_in *in, const papc_bgs_run *run,
                             int nrun, double len, double segsize) {
    double total = 0; /* Σ g over the path */
    for (int r = 0; r < nrun; r++)
        if (run[r].count > 0)
            total += run[r].count * papc_bgs_g(in, run[r].fanout + 1);
    if (total <= 0 || len <= 0) return papc_terms_zero();
    double seg = papc_bgs_bcast_seg(segsize, len);
    double n = ceil(len / seg), last = len - (n - 1) * seg;
    if (n <= 1) return (papc_terms){total, len * total, 0, 0, 0, 0};
    /* Within a run the walk's terms are linear in h' (the running maximum
     * is constant there), so its two ends cover the maximum. */
    double best_a = 0, best_b = 0, before = 0, widest = 0;
    for (int r = 0; r < nrun; r++) {
        if (run[r].count <= 0) continue;
        double g = papc_bgs_g(in, run[r].fanout + 1);
        widest = fmax(widest, g);
        for (int end = 0; end < 2; end++) {
            double pre = before + (end ? run[r].count : 1) * g;
            double post = total - pre + g;
            double a = pre + (n - 2) * widest + post;
            double b = seg * (pre + (n - 2) * widest) + last * post;
            best_a = fmax(best_a, a);
            best_b = fmax(best_b, b);
        }
        before += run[r].count * g;
    }
    return (papc_terms){best_a, best_b, 0, 0, 0, 0};
}

/* The leftmost path of the breadth-first binary tree (topo.c kary_node,
 * children 2v+1, 2v+2): nodes 2^j - 1, j = 0..floor(log2 P) - 1, forward;
 * node 2^j - 1 has two children when 2^(j+1) < P, else one.  Also the
 * tree phase of split_binary. */
int papc_bgs_binary_path(int P, papc_bgs_run *run) {
    int D = papc_model_floor_log2(P);
    for (int j = 0; j < D; j++)
        run[j] = (papc_bgs_run){(1L << (j + 1)) < P ? 2 : 1, 1};
    return D;
}

/* ---- binomial gathers ---- */

#define MAX_LEVELS 32

typedef struct gather_ctx {
    const papc_model_in *in;
    const papc_bgs_gather_costs *k;
    papc_terms ready_pow[MAX_LEVELS]; /* ready(2^j) */
} gather_ctx;

static papc_terms child_ready(const gather_ctx *x, int s);

/* c children spanning s nodes each come in together after r. */
static papc_terms take_wave(const gather_ctx *x, papc_terms r, int s, int c) {
    double bytes = (double)s * x->in->m;
    r = papc_bgs_max(r, child_ready(x, s));
    r = papc_terms_add(r, papc_bgs_fan(x->in, c, c * (x->k->header + bytes)));
    if (x->k->receiver_copies)
        r = papc_terms_add(r, papc_bgs_copy(c * bytes));
    return r;
}

/* A node spanning n nodes, busy until r, takes all its children: spans 1,
 * 2, ..., 2^(L-2) and n - 2^(L-1), smallest first, equal ones together. */
static papc_terms take_children(const gather_ctx *x, int n, papc_terms r) {
    if (n <= 1) return r;
    int L = papc_model_ceil_log2(n), last = n - (1 << (L - 1)), placed = 0;
    for (int j = 0; j <= L - 2; j++) {
        int s = 1 << j;
        if (!placed && last <= s) {
            placed = 1;
            if (last == s) {
                r = take_wave(x, r, s, 2);
                continue;
            }
            r = take_wave(x, r, last, 1);
        }
        r = take_wave(x, r, s, 1);
    }
    if (!placed) r = take_wave(x, r, last, 1);
    return r;
}

/* When a node spanning s nodes starts sending its subtree to its parent
 * (relative to the start of the gather). */
static papc_terms relay_ready(const gather_ctx *x, int s) {
    double m = x->in->m;
    papc_terms r = papc_terms_zero();
    if (s > 1) {
        if (x->k->relay_copies_first) r = papc_bgs_copy(m);
        r = take_children(x, s, r);
    }
    if (x->k->sender_packs) r = papc_terms_add(r, papc_bgs_copy(s * m));
    return r;
}

static papc_terms child_ready(const gather_ctx *x, int s) {
    if ((s & (s - 1)) == 0) return x->ready_pow[papc_model_floor_log2(s)];
    return relay_ready(x, s);
}

papc_terms papc_bgs_gather_tree(const papc_model_in *in,
                                const papc_bgs_gather_costs *k) {
    gather_ctx x = {.in = in, .k = k};
    int L = papc_model_ceil_log2(in->P);
    /* Bottom-up: a subtree of 2^j nodes has children of 2^0..2^(j-1). */
    for (int j = 0; j < L && j < MAX_LEVELS; j++)
        x.ready_pow[j] = relay_ready(&x, 1 << j);
    return take_children(&x, in->P, papc_bgs_copy(in->m));
}
