/* knomial.c — segmented k-nomial tree broadcast (Open MPI coll/base
 * ompi_coll_base_bcast_intra_knomial, tuned id 7, radix
 * coll_tuned_bcast_algorithm_knomial_radix = 4; the k-nomial bcast of
 * MVAPICH2, which SMPI runs for Open MPI's "knomial" rule).
 *
 * Pattern: the k-nomial tree of topo/ (papc_tree_node, PAPC_TREE_KNOMIAL):
 * vrank v's parent is v with its lowest nonzero base-k digit cleared, its
 * children v + d k^j (d = 1..k-1) for every place k^j below that digit, the
 * largest subtree first.  The root has up to (k-1) ceil(log_k P) children
 * and the tree is ceil(log_k P) deep at most: fewer rounds than the
 * binomial tree (k = 2, the same tree), more sends per node.  It runs on
 * the generic tree engine, as the other trees (Algorithm 1 of
 * model-based-selection.md §III-A): a node sends each segment of
 * PAPC_SEGSIZE bytes to all its children with non-blocking sends and waits
 * for them, the next segment's receive already posted.
 *
 * Cost with n_s segments, a node spanning n having f(n) children (f(n) =
 * Σ_{k^j < n} min(k-1, ceil(n/k^j) - 1)) and the path following the largest
 * child from the root (spans P = n_0 > n_1 > ... >= 2):
 *     T = (Σ_h γ(f(n_h)+1) + (n_s - 1) γ(f(P)+1)) (α + m/n_s β)
 * (γ ≡ 1: (depth + n_s - 1)(α + m/n_s β), depth <= ceil(log_k P)).
 *
 * Radix: PAPC_KNOMIAL_RADIX (2..PAPC_KNOMIAL_MAX_RADIX, default 4, Open
 * MPI's default), read once per call by the run and by the model alike; it
 * must be the same on every rank (the ranks' trees must agree), as
 * PAPC_SEGSIZE must.  Anything else (unset, empty, not a number, out of
 * range) is the default.
 *
 * Departures from Open MPI: the engine's (tree_engine.c: all receives of a
 * segment posted together, non-blocking sends); children ordered by
 * subtree size (a cut-short subtree after the full ones of the next lower
 * place), where Open MPI lists them by place alone.  MVAPICH2's k-nomial
 * (SMPI's bcast__mvapich2_knomial_intra_node) is unsegmented and sends one
 * place at a time (k-1 isends, wait, next place); here a segment goes to
 * all the children at once. */
#include <stdlib.h>
#include "../coll.h"
#include "../tree_engine.h"
#include "model_bgs.h"

#define DEFAULT_RADIX 4
/* Largest radix taken from PAPC_KNOMIAL_RADIX (a radix >= P is the linear
 * tree already). */
#define PAPC_KNOMIAL_MAX_RADIX 65536

static int knomial_radix(void) {
    const char *s = papc_getenv("PAPC_KNOMIAL_RADIX");
    if (!s || !*s) return DEFAULT_RADIX;
    char *end;
    long k = strtol(s, &end, 10);
    if (*end || k < 2 || k > PAPC_KNOMIAL_MAX_RADIX) return DEFAULT_RADIX;
    return (int)k;
}

int papc_bcast_knomial(const papc_call *c) {
    return papc_tree_bcast(c, PAPC_TREE_KNOMIAL, knomial_radix(),
                           c->recvbuf, c->recvcount, c->recvtype, c->root,
                           c->segsize, 0);
}

/* ---- cost model (issue 12) ---- */

/* Children of the root of a k-nomial tree over n nodes: d k^j < n for
 * d = 1..k-1 at every place k^j < n (topo.c knomial_node). */
static int knomial_fanout(int k, int n) {
    int f = 0;
    for (long long place = 1; place < n; place *= k) {
        long long more = (n - 1) / place; /* d with d place < n */
        f += (int)(more < k - 1 ? more : k - 1);
    }
    return f;
}

/* Span of the root's largest child: child d k^j spans min(k^j, n - d k^j)
 * nodes; 1 for n <= 2. */
static int knomial_big_child(int k, int n) {
    long long best = 1;
    for (long long place = 1; place < n; place *= k)
        for (long long d = 1; d < k && d * place < n; d++) {
            long long s = n - d * place < place ? n - d * place : place;
            if (s > best) best = s;
        }
    return (int)best;
}

/* Model (see the top): papc_bgs_pipeline down the path of largest
 * children (a node's fan-out and its largest child's span both grow with
 * its span, so this path is the deepest and at every level the widest,
 * as binomial's), each node with f(n) children; m = 0 and P = 1 cost
 * nothing (call.c).  No copy (a non-contiguous type's pack and unpack are
 * not modelled, as for the other trees).
 * Traffic: each of the P - 1 others receives every segment once: (P-1) n_s
 * messages, (P-1) m bytes. */
papc_terms papc_bcast_knomial_model(const papc_model_in *in) {
    if (in->P <= 1 || in->m <= 0) return papc_terms_zero();
    int k = knomial_radix();
    papc_bgs_run path[64];
    int n = 0;
    for (int span = in->P; span >= 2 && n < 64;
         span = knomial_big_child(k, span))
        path[n++] = (papc_bgs_run){knomial_fanout(k, span), 1};
    papc_terms t = papc_bgs_pipeline(in, path, n, in->m, in->segsize);
    return papc_terms_traffic(
        t, (in->P - 1) * papc_bgs_bcast_nseg(in->segsize, in->m),
        (in->P - 1) * in->m);
}
