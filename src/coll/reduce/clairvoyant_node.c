/*
 * clairvoyant_node.c — reduce clairvoyant_node: a Clairvoyant reduce that
 * reduces within each node first (issue 16; clairvoyant-reduce.md's
 * schedule, Listing 8, twice: within nodes, then among node leaders).
 *
 * Why.  Plain Clairvoyant (clairvoyant.c) sends every non-root's (partly
 * reduced) vector once to a partner chosen by arrival; with 16 ranks per
 * node under block placement (SMPI's fattree4096, Open MPI's --map-by
 * core) about 15/16 of them cross the node's link: 16 x 2 MiB per node
 * uplink per call, ~27 ms at 10 Gbit/s, where the ring keeps 15 of 16
 * hops on the loopback (docs/scale.md section 9, "Fig. 10's setting at
 * 512, 10 ms": Clairvoyant r 43.5 ms, the ring 14.7).  The paper ran one
 * rank per node and has no shared uplink.  Here only one partial vector
 * per node crosses the network.
 *
 * The plan (src/clairvoyant/node.h; pure, unit-tested):
 *  - Nodes: the grouping of the arrival monitor's busy fit, by the same
 *    function (papc_node_labels, core/comm.c): PAPC_FIT_NODE_SIZE=k (the least value over the ranks;
 *    unset on any rank: 0), blocks of k ranks; else the label of a rank is
 *    its node's lowest rank from PMPI_Comm_split_type(MPI_COMM_TYPE_SHARED);
 *    one allgather agrees the labels; if any rank got none, every rank is a
 *    node of its own.  Computed once per communicator (the first call of
 *    this row on it, collectively) and kept as an attribute of the private
 *    communicator, so the labels are fixed for its life.
 *  - Leaders: the root on the root's node (so the leaders' stage ends where
 *    the result is due, with no extra hop), else the node's lowest rank.
 *    Not the node's predicted-latest rank: the tail after a node's last
 *    arrival is one vector's N segments into the node's partial sum
 *    whoever is the sink (if the latest is the leader it receives N
 *    segments, if not it sends them), and a leader fixed per communicator
 *    keeps the leaders' set, their order and so the plan independent of
 *    which rank a prediction calls late.
 *  - Stage 1, within each node: a Clairvoyant schedule of the node's ranks
 *    to its leader on their agreed arrivals.  Clairvoyant rather than a
 *    sorted-by-arrival linear or binomial reduce: it is the same
 *    generator and executor, it keeps the early ranks of a node reducing
 *    among themselves while the late ones compute (a linear reduce makes
 *    the leader reduce n - 1 vectors alone: 15 x 2 MiB x gamma), its
 *    segments are the leaders' stage's segments (below), and with one
 *    node it is plain Clairvoyant.  The loopback's terms are not measured
 *    (the busy fit pairs ranks across nodes), so the stage is planned on
 *    the same round as the leaders' (below): the round only orders the
 *    schedule (the executor does not wait for rounds) and sets how
 *    arrivals are grouped.
 *  - Stage 2, among the leaders: a Clairvoyant schedule of the G leaders
 *    to the root, leader k "arriving" when its node's partial is predicted
 *    complete, ready_k = max(min q + N + ceil(log2 n_k) - 1, max q + N) in
 *    rounds (the balanced bound and a late rank's tail of the row's
 *    arrival model; papc_clv_node_ready), q the node's ranks' arrivals;
 *    a node of one rank: its arrival.
 *  - One run: a rank's events are its stage-1 events followed, on a
 *    leader, by its stage-2 events, executed by Clairvoyant's dataflow
 *    executor (clairvoyant.c, run_events) as one list.  A stage-2 send of
 *    segment j waits only for the stage-1 receives of j, so a leader
 *    forwards the first segments of its node's sum while later segments
 *    are still being reduced in the node (the stages overlap per
 *    segment).  Deadlock-free: stage 1 of a node depends on that node's
 *    ranks only, and a leader has posted all its stage-1 events before
 *    its first stage-2 event; stage-2 pairs are on different nodes, stage-
 *    1 pairs on one node, so one sub-tag keeps both in order.
 *  - Same plan on every rank without an extra round trip, as in
 *    clairvoyant.c: N and the round from papc_clv_plan_for on the agreed
 *    terms, the arrivals from the agreed view rounded to whole rounds
 *    (q), the labels agreed once; the plan is a function of (labels, N,
 *    root, q, rank), cached like the plain one under its own site.
 *  - N and the round: papc_clv_plan_for on the agreed busy alpha and gamma
 *    and the busy beta divided by the largest node's size n_max (when
 *    there is more than one node).  The busy fit times every rank
 *    exchanging with a partner on another node at once, so its beta is
 *    about n_max shares of a node's link (13.4 ns/B against the quiet
 *    0.80 at 16 per node on fattree4096); in stage 2 one leader per node
 *    sends.  With one rank per node n_max = 1: plain Clairvoyant's plan.
 *
 * With one rank per node (or labels unknown) stage 1 is empty and stage 2
 * is exactly plain Clairvoyant's schedule (same N, round, q, root); with
 * one node, stage 2 is empty and stage 1 is plain Clairvoyant's schedule
 * (the plan's beta is then the busy one too).
 *
 * Cost, balanced arrivals: stage 1 about ceil(log2 n) rounds before the
 * leaders' first segment, then the leaders' N + ceil(log2 G) - 1 rounds
 * overlapping the rest of stage 1: about N + ceil(log2 P) - 1 rounds, as
 * plain Clairvoyant (the model below).  What changes is the traffic a
 * node's link carries: (n_k - 1) m on its loopback and about m (its
 * leader's vector, plus what the root's leader receives) across its link,
 * instead of about n_k m across it.  Memory: as clairvoyant.c; the labels
 * 6 P ints per communicator.
 *
 * Measured (SMPI, fattree4096, 8 nodes x 16, 512 Ki floats, rand-late
 * 10 ms; docs/scale.md section 9, "A Clairvoyant that reduces within each
 * node first"): r 13.02 ms against plain Clairvoyant's 35.68 and the
 * ring's 12.94; mean elapsed 2.21 ms (plain Clairvoyant 28.66, the ring
 * 6.48).
 *
 * The plain call weighs this row (issue 16, s13): its arrival model
 * (src/model/arrival_model.c, reduce_clairvoyant_node) follows the two
 * stages on the node grouping the monitor's busy fit agreed (the same
 * papc_node_labels on the same ranks), with this executor's N and round
 * (papc_clv_node_beta); where the grouping is trivial (one node, one rank
 * per node) the row is plain Clairvoyant and only that row is weighed.
 *
 * Departures from the paper: the paper has no nodes (one rank per node);
 * everything else is clairvoyant.c's (its departures (1)-(5)).  Commutative
 * ops only.  Knobs: clairvoyant.c's, and PAPC_FIT_NODE_SIZE.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clairvoyant.h"
#include "clairvoyant/node.h"

/* ---- node labels, once per communicator -------------------------------- */

typedef struct node_attr {
    int usable;           /* 0: plain Clairvoyant (no memory on some rank) */
    papc_clv_nodes n;
} node_attr;

static int node_keyval = MPI_KEYVAL_INVALID;

static int delete_nodes(MPI_Comm comm, int key, void *attr, void *extra) {
    (void)comm, (void)key, (void)extra;
    node_attr *na = attr;
    if (na) papc_clv_nodes_free(&na->n);
    free(na);
    return MPI_SUCCESS;
}

/* PAPC_FIT_NODE_SIZE as this rank reads it (0: unset or bad). */
static int node_size_knob(void) {
    const char *v = getenv("PAPC_FIT_NODE_SIZE");
    if (!(v && *v)) return 0;
    char *end;
    long k = strtol(v, &end, 10);
    return *end || k < 0 || k > (1L << 30) ? 0 : (int)k;
}

/* c's node grouping, computed at the first call on c->comm (collective:
 * one allreduce, the split, one allgather, one allreduce) and kept with
 * it; *out NULL when it is not usable on some rank (then every rank runs
 * plain Clairvoyant). */
static int comm_nodes(const papc_call *c, const papc_clv_nodes **out) {
    *out = NULL;
    if (node_keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_nodes,
                               &node_keyval, NULL) != MPI_SUCCESS)
        return papc_error(MPI_ERR_INTERN, "clairvoyant_node: keyval");
    node_attr *na = NULL;
    int found = 0;
    if (MPI_Comm_get_attr(c->comm, node_keyval, &na, &found) != MPI_SUCCESS)
        return papc_error(MPI_ERR_INTERN, "clairvoyant_node: attribute");
    if (found) {
        *out = na && na->usable ? &na->n : NULL;
        return MPI_SUCCESS;
    }
    int P = c->size, rank = c->rank;
    int k = node_size_knob(), kall = 0;
    int rc = PMPI_Allreduce(&k, &kall, 1, MPI_INT, MPI_MIN, c->comm);
    if (rc != MPI_SUCCESS) return papc_mpi_error(rc, "clairvoyant_node");
    int *lab = malloc((size_t)P * sizeof *lab);
    na = calloc(1, sizeof *na);
    int ok = lab && na, all_ok = 0, how = 0;
    rc = PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c->comm);
    if (rc == MPI_SUCCESS && all_ok)  /* grouped as the busy fit groups */
        rc = papc_node_labels(c->comm, rank, P, kall, lab, &how);
    if (rc != MPI_SUCCESS) {
        free(lab);
        free(na);
        return papc_mpi_error(rc, "clairvoyant_node: labels");
    }
    if (all_ok) {
        ok = papc_clv_nodes_make(P, lab, &na->n) == 0;
        rc = PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c->comm);
        if (rc != MPI_SUCCESS) {
            papc_clv_nodes_free(&na->n);
            free(lab);
            free(na);
            return papc_mpi_error(rc, "clairvoyant_node: labels");
        }
    }
    free(lab);
    if (na) {
        na->usable = all_ok;
        if (!all_ok) papc_clv_nodes_free(&na->n);
        if (MPI_Comm_set_attr(c->comm, node_keyval, na) != MPI_SUCCESS) {
            /* not kept: this call still runs on it, the next one
             * recomputes (the same on every rank only if all fail alike:
             * set_attr does not fail but for memory, so fall back) */
            papc_clv_nodes_free(&na->n);
            free(na);
            return papc_error(MPI_ERR_NO_MEM, "clairvoyant_node: attribute");
        }
        *out = na->usable ? &na->n : NULL;
    }
    return MPI_SUCCESS;
}

#define CLV_NODE_SUB 0

/* The labels come after papc_arrival_begin: their first computation
 * synchronises the ranks (an allgather), which must not move the arrival
 * the call records. */
int papc_reduce_clairvoyant_node(const papc_call *c) {
    papc_arrival a;
    int rc = papc_arrival_begin(c, PAPC_ORDER_AGREED, c->root, &a);
    if (rc != MPI_SUCCESS) return rc;
    const papc_clv_nodes *nodes = NULL;
    rc = comm_nodes(c, &nodes);
    if (rc != MPI_SUCCESS) return papc_arrival_end(c, &a, rc);
    int in_place = c->rank == c->root && c->sendbuf == MPI_IN_PLACE;
    const void *input = in_place ? c->recvbuf : c->sendbuf;
    rc = nodes ? papc_clv_reduce_exec_nodes(c, &a, c->root, input,
                                            c->recvbuf, CLV_NODE_SUB, nodes)
               : papc_clv_reduce_exec(c, &a, c->root, input, c->recvbuf,
                                      CLV_NODE_SUB);
    return papc_arrival_end(c, &a, rc);
}

/* Model (issue 12), balanced arrivals: plain Clairvoyant's,
 *   T = γ(P)(α + 8(2P+1)β) + (N + L - 1)(α + s (β + γ_op)) + 2 m δ,
 * the agreement and about N + ceil(log2 P) - 1 rounds (header); the
 * traffic too is about plain Clairvoyant's (each stage sends about N per
 * non-sink process: N(P - 1) + a few segment messages in all).  What the
 * row saves, a node link's load, has no
 * term in papc_model_in (no node sizes; one α, β per row): a fitted
 * profile gives the row its own α and β. */
papc_terms papc_reduce_clairvoyant_node_model(const papc_model_in *in) {
    return papc_reduce_clairvoyant_model(in);
}
