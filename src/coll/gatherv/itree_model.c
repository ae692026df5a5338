/* itree_model.c — the size-aware binomial tree as its cost models see it
 * (see itree_model.h).  Pure: no MPI call. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include "../irregular_tree.h"
#include "../bcast/model_bgs.h"
#include "itree_model.h"

void papc_bgs_itree_free(papc_bgs_itree *t) {
    free(t->node);
    free(t->busy);
    t->node = NULL;
    t->busy = NULL;
}

papc_terms papc_bgs_itree_busy(const papc_bgs_itree *t) {
    papc_terms end = papc_terms_zero();
    for (int i = 0; i < t->P; i++) end = papc_bgs_max(end, t->busy[i]);
    return end;
}

papc_terms papc_bgs_itree_traffic(const papc_bgs_itree *t, papc_terms x) {
    double msgs = t->ctl_msgs, bytes = t->ctl_bytes;
    for (int i = 1; i < t->P; i++) {
        const papc_bgs_inode *v = &t->node[i];
        double blocks = v->lone ? 1 : v->blocks;
        if (blocks <= 0 || t->b <= 0) continue;
        msgs += 1;
        bytes += blocks * t->b;
    }
    return papc_terms_traffic(x, msgs, bytes);
}

/* Last rank of the level-k cube number a (fixed root; P-1 for the
 * incomplete last cube). */
static int fixed_root(int P, int k, int a) {
    long long hi = ((long long)(a + 1) << k) - 1;
    return hi < P - 1 ? (int)hi : P - 1;
}

/* The verdict of a merge reaches a gather root that is not the fixed
 * root: it waits for it in build_round (papc_recv). */
static void tell(papc_bgs_itree *t, int groot, int fixed, papc_terms when) {
    if (groot == fixed) return;
    t->ctl_msgs += 1;
    t->ctl_bytes += 24;
    papc_terms got = papc_terms_add(when, papc_msg(24));
    t->busy[groot] = papc_bgs_max(t->busy[groot], got);
}

static void lose(papc_bgs_itree *t, int g, int parent, int k, int64_t blk) {
    t->node[g].parent = parent;
    t->node[g].round = k;
    t->node[g].blocks = (double)blk;
    t->node[g].learn = t->busy[g];
}

/* Level k: cube[a] are the level-k cubes (their sizes in blocks). */
static void merge_level(papc_bgs_itree *t, papc_itree_cube *cube, int n,
                        int k, int64_t thr, int64_t cap) {
    for (int a = 0; a < n; a += 2) {
        if (a + 1 == n) { /* the incomplete last cube moves up alone */
            cube[a / 2] = cube[a];
            continue;
        }
        papc_itree_cube lo = cube[a], up = cube[a + 1];
        if (a == 0) { /* Lemma 2: the root's cube gathers, no message */
            lose(t, (int)up.groot, 0, k, up.bytes);
            cube[0] = papc_itree_join(&lo, &up, (papc_itree_verdict){0, 0});
            continue;
        }
        int fl = fixed_root(t->P, k, a), fu = fixed_root(t->P, k, a + 1);
        papc_terms at = papc_bgs_max(t->busy[fl], t->busy[fu]);
        at = papc_terms_add(at, papc_msg(24)); /* the states swapped */
        t->ctl_msgs += 2;
        t->ctl_bytes += 48;
        t->busy[fl] = t->busy[fu] = at;
        tell(t, (int)lo.groot, fl, at);
        tell(t, (int)up.groot, fu, at);
        papc_itree_verdict v = papc_itree_decide(&lo, &up, -1, thr, cap);
        const papc_itree_cube *win = v.upper_wins ? &up : &lo;
        const papc_itree_cube *los = v.upper_wins ? &lo : &up;
        lose(t, (int)los->groot, v.direct ? 0 : (int)win->groot, k,
             los->bytes);
        cube[a / 2] = papc_itree_join(&lo, &up, v);
    }
}

int papc_bgs_itree_build(const papc_model_in *in, papc_bgs_itree *t) {
    int P = in->P > 1 ? in->P : 1;
    t->P = P;
    t->b = in->m > 0 ? in->m / P : 0;
    t->rounds = papc_itree_rounds(P);
    t->ctl_msgs = t->ctl_bytes = 0;
    t->node = malloc((size_t)P * sizeof *t->node);
    t->busy = malloc((size_t)P * sizeof *t->busy);
    papc_itree_cube *cube = malloc((size_t)P * sizeof *cube);
    if (!t->node || !t->busy || !cube) {
        free(cube);
        papc_bgs_itree_free(t);
        return -1;
    }
    /* Sizes in blocks keep every comparison of the code: k blocks exceed
     * T bytes iff k > floor(T / b).  A block above T (or above an int of
     * bytes) is sent alone, and then every block is. */
    double T = (double)papc_itree_threshold();
    int lone = t->b > 0 && ((T > 0 && t->b > T) || t->b > INT_MAX);
    int64_t thr = T > 0 && t->b > 0 ? (int64_t)floor(T / t->b) : 0;
    int64_t cap = t->b > 0 ? (int64_t)floor(INT_MAX / t->b) : INT64_MAX;
    for (int i = 0; i < P; i++) {
        int alone = i != 0 && lone;
        int64_t w = i == 0 || alone || t->b <= 0 ? 0 : 1;
        cube[i] = (papc_itree_cube){i, w, w};
        t->node[i] = (papc_bgs_inode){-1, -1, 0, alone, papc_terms_zero()};
        t->busy[i] = papc_terms_zero();
    }
    for (int k = 0, n = P; k < t->rounds; k++, n = (n + 1) / 2)
        merge_level(t, cube, n, k, thr, cap);
    free(cube);
    return 0;
}
