/*
 * arrival_model.h — the cost of a call whose processes arrive at different
 * times (issue 15).  Pure: no MPI.
 *
 * The models of model.h predict a call in which every process arrives at
 * once: their coefficients times the row's fitted α, β give t0.  With an
 * arrival vector the cost is no longer linear in α and β (it is a max of
 * sums: who waits for whom), so these functions return seconds, from t0,
 * the row's own parameters and the offsets.  The selector (src/arrival/
 * choose.c) evaluates every candidate row with the agreed offsets and runs
 * the cheapest; papc-bench measures the same quantity.
 *
 * The quantity is the papers' ē (pap-scatter-gather.md eqs. 1-2): the mean
 * over the processes of (exit − arrival).  With every offset 0 every
 * function returns t0 exactly, so a balanced call is chosen as the classic
 * selection chooses it.
 */
#ifndef PAPC_ARRIVAL_MODEL_H
#define PAPC_ARRIVAL_MODEL_H

typedef struct papc_arrival_case {
    const char *collective;  /* "gather", "scatter", "reduce", "allreduce" */
    const char *name;        /* the table row's name ("ring", "sorted_linear_tree", ...) */
    int P;
    int root;                /* rooted collectives; 0 for allreduce */
    double m;                /* bytes, as papc_model_in.m: gather/scatter one
                                rank's block, reduce/allreduce the vector */
    double segsize;          /* bytes per segment the row runs with; 0 = its default */
    const double *offset;    /* [P]: rank r arrives offset[r] s after the
                                earliest (>= 0, finite) */
    double t0;               /* the row's balanced prediction, seconds (> 0) */
    double alpha, beta;      /* the row's latency (s) and s/byte of one transfer */
    double gamma_op;         /* s per byte reduced */
    int bg;                  /* 1: the monitor's background channel runs (the
                                B* rows receive before their process arrives) */
    /* Rows that run a plan of rounds (Clairvoyant: papc_arrival_row_planned):
     * the plan the executor makes, N segments and the planned round d in
     * seconds (papc_clv_round_plan, on the agreed busy terms), so that the
     * price is the executor's plan; t0 must then count the same rounds
     * (papc_arrival_planned_t0).  0: the model's default N under the
     * arrival runtime's default terms, rounds of alpha + (m/N)(beta +
     * gamma_op) -- what the row's balanced model counts, and the only
     * choice before issue 16's s10 fix.  Trailing, so initialisers that
     * leave them out mean "no plan". */
    double plan_segments;
    double plan_round;
    /* The largest message, in bytes, that goes eagerly: its send completes
     * at the sender without the receiver (Open MPI's TCP eager limit, 64
     * KiB; SMPI's detached sends below smpi/send-is-detached-thresh), so a
     * sender of such a message does not wait for a late receiver (a leaf
     * of a segmented reduce tree leaves when it has sent); the receiver
     * still waits for the data.  Must be equal on every rank: the agreed
     * profile's "eager_limit", else papc_pipeline_max_segment() (the
     * agreed PAPC_PIPELINE_MAX_SEGMENT).  0: every transfer a rendezvous
     * (the models before issue 16's s11 change; trailing, so initialisers
     * that leave it out keep them).  Which rows it changes:
     * arrival_model.c, "Eager messages". */
    double eager;
    /* The node grouping, for the rows whose code groups ranks by node
     * (papc_arrival_row_nodes: reduce clairvoyant_node): node[r] is rank
     * r's node label, equal labels one node (any ints; the labels of
     * papc_node_labels, src/core/comm.c, which the row's executor groups
     * by).  Must be equal on every rank (agreed: the monitor's allgather
     * of the labels, papc_mon.node_label).  NULL: every rank a node of its
     * own (trailing, so initialisers that leave it out mean that; the
     * row's price is then plain Clairvoyant's).  Other rows ignore it. */
    const int *node;
} papc_arrival_case;

/* Predicted ē in seconds; < 0 when the row has no arrival model (it is then
 * not a candidate). */
double papc_arrival_model_mean(const papc_arrival_case *c);

/* 1 when the row's model takes a plan (plan_segments, plan_round): the
 * Clairvoyant rows of reduce and allreduce; 0 otherwise or unknown. */
int papc_arrival_row_planned(const char *collective, const char *name);

/* 1 when the row's model reads the case's node grouping (node): reduce
 * clairvoyant_node; 0 otherwise or unknown. */
int papc_arrival_row_nodes(const char *collective, const char *name);

/* The shape of a grouping by labels (as papc_arrival_case.node): *groups
 * the number of distinct labels, *largest the ranks of the largest group.
 * NULL label: one group per rank.  O(P log P).  0, or -1 (P < 1, no
 * memory; outputs 0). */
int papc_arrival_node_shape(int P, const int *label, int *groups,
                            int *largest);

/* The row's balanced prediction when it runs the case's plan: t0 (counted,
 * as the row's balanced model counts it, with the model's default N and
 * rounds under the case's alpha, beta, gamma_op) with those rounds
 * replaced by the plan's, t0 - R_model + R_plan, R the row's balanced
 * structure (papc_arrival_model_structure; the agreement and copies that
 * t0 counts besides stay as they are).  With it as t0, the scale lambda
 * of papc_arrival_model_mean is t0 / R_plan, about 1, and the priced
 * rounds are the plan's.  t0 itself for a row without a plan or a case
 * without one (plan_segments or plan_round 0); -1 for a bad case or when
 * the result would not be positive. */
double papc_arrival_planned_t0(const papc_arrival_case *c);

/* ---- Clairvoyant's plan: one function for the executor and the price ----
 *
 * The segments and the round Clairvoyant's executor plans its schedule
 * with (src/coll/reduce/clairvoyant.c, through papc_clv_plan_for of
 * src/arrival/clv_plan.c) and the plain call prices it with
 * (src/arrival/choose.c): one function, so the two cannot drift (until
 * issue 16's s10 fix the price used the model's default N, 47 segments at
 * P = 512 and 512 KiB, and the monitor's quiet terms, a 3.7 us round,
 * where the executor ran N = 112 and d = 68 us: predicted 0.215 ms in the
 * call, measured 7.11).  Pure; the caller reads the knobs. */
typedef struct papc_clv_plan_in {
    int P;
    double count;            /* elements of the vector (>= 1) */
    double elem;             /* bytes per element (>= 0) */
    double alpha, beta, gamma; /* a round's terms: the agreed busy alpha,
                                  beta and gamma (arrival.h) */
    double eager;            /* largest eager segment, bytes (0: no limit;
                                papc_pipeline_max_segment) */
    double segments;         /* PAPC_CLV_SEGMENTS (0 or above 4096: the
                                model's N) */
    int segsize_set;         /* PAPC_SEGSIZE is set: segments of seg_elems */
    double seg_elems;        /* elements per segment at the call's segment
                                size (papc_segment_count): used when
                                segsize_set, or the model is unusable */
    double round;            /* PAPC_CLV_ROUND, seconds (0: unset) */
    double slack;            /* PAPC_CLV_SLACK, 1..64 (else 1) */
} papc_clv_plan_in;

typedef struct papc_clv_round {
    int N;                   /* segments: ceil(count / elems) */
    double elems;            /* elements of a full segment */
    double seg;              /* its bytes */
    double d;                /* the model's round, alpha + seg (beta +
                                gamma) (1 us when that is not positive) */
    double d_plan;           /* the planned round: PAPC_CLV_ROUND, else
                                slack x d */
} papc_clv_round;

/* N: segments, else the model's sqrt(L m (beta + gamma) / alpha) (L =
 * ceil(log2 P), m = count x elem: a balanced Clairvoyant takes about N + L
 * rounds of alpha + (m/N)(beta + gamma)), at least ceil(m / eager), at
 * most 4096, rounded; 0 (unusable terms) or segsize_set: seg_elems.  The
 * segments are whole elements, ceil(count / N) each.  Returns 0, or -1
 * (out zeroed) for P < 1, count < 1 or elem < 0. */
int papc_clv_round_plan(const papc_clv_plan_in *in, papc_clv_round *out);

/* The beta clairvoyant_node's plan takes (src/coll/reduce/clairvoyant.c
 * plans with it, choose.c prices with it): the busy beta over the largest
 * node's ranks when there is more than one node and a node of more than
 * one rank, else the busy beta (clairvoyant_node.c says why: the busy fit
 * loads every node link with all its ranks at once, stage 2 with one
 * leader).  One function, so the executor's plan and the price agree. */
double papc_clv_node_beta(double beta_busy, int groups, int largest);

/* The part of ē no algorithm of the collective can avoid at these offsets
 * (seconds, >= 0): what the processes that need a late one's data wait
 * for it, whatever the schedule.  allreduce: every rank's result depends
 * on every rank's vector, so rank r waits max offset - offset[r]; reduce
 * and gather: the root waits for the last other rank; scatter and bcast:
 * every other rank waits for the root.  Summed and divided by P (ē is a
 * mean over the ranks).  The arrival correction (model.h) scales only
 * what a row's model adds above it, so a fitted slope below 1 cannot
 * price a row under this wait however late a process is.  Transfers are
 * left out (the bound is of waiting only).  -1 for an unknown collective,
 * P < 1, a root out of range or a NULL offset. */
double papc_arrival_wait_floor(const char *collective, int P, int root,
                               const double *offset);

/* ---- the choice among the rows (src/arrival/choose.c) ---- */

typedef struct papc_arrival_candidate {
    int aware;       /* an arrival-aware row */
    double t0;       /* its balanced prediction, s */
    double mean;     /* its predicted ē at the offsets, s */
} papc_arrival_candidate;

/* A spread under PAPC_ARRIVAL_SPREAD_FLOOR seconds or under
 * PAPC_ARRIVAL_SPREAD_MIN of the size-based row's t0 keeps that row: the
 * decisions' arrival times err by 0.2-0.6 ms here (docs/arrival.md), so a
 * smaller spread is noise; an arrival-aware row must beat the best classic
 * one by PAPC_ARRIVAL_MARGIN of its ē. */
#define PAPC_ARRIVAL_SPREAD_FLOOR 1e-3
#define PAPC_ARRIVAL_SPREAD_MIN 0.05
#define PAPC_ARRIVAL_MARGIN 0.05

/* Whether the prices are compared at all for a spread (the largest
 * offset, s) and the classic row's balanced prediction t0: the spread at
 * least the floor and at least PAPC_ARRIVAL_SPREAD_MIN of t0 (a smaller
 * one keeps the classic row unpriced: nothing to gain). */
int papc_arrival_priced(double spread, double t0);

/* The index of the row to run among c[0..n): base is the size-based
 * (classic) row's index, spread the largest offset (s), wait the wait no
 * row avoids at the offsets the prices are for (papc_arrival_wait_floor;
 * 0: none known).  The least ē among the classic rows (base on a tie),
 * unless an arrival-aware row's is lower by the margin -- a margin of
 * what the rows can change, ē above the wait: with one process 200 ms
 * late the wait is most of every row's ē, and 5 % of the whole asked
 * the arrival-aware row to save 5x what any row can.  Returns base when
 * n <= 0 or base is out of range. */
int papc_arrival_pick(const papc_arrival_candidate *c, int n, int base,
                      double spread, double wait);

/* ---- prices over several views (choose.c, PAPC_ARRIVAL_VIEWS) ---- */

/* The rows' prices at a site's latest views, kept in a ring: slot j holds
 * rows values (NAN: the row was no candidate) for view generation gen[j]
 * (0: empty).  papc_price_ring_keep stores now[rows], the prices at view
 * generation g (>= 1), unless g is stored already; papc_price_ring_mean
 * gives each row's mean over the generations in (g - k, g] it has a price
 * at (NAN where now[i] is NAN), and returns how many views the means
 * span (>= 1).  Pure: a call site's state is the caller's. */
typedef struct papc_price_ring {
    int slots, rows;
    double *price;           /* [slots][rows] */
    unsigned long *gen;      /* [slots] */
} papc_price_ring;

void papc_price_ring_keep(papc_price_ring *ring, unsigned long g,
                          const double *now);
int papc_price_ring_mean(const papc_price_ring *ring, unsigned long g, int k,
                         const double *now, double *mean);
/* Whether a view's value in column col (its spread: choose.c keeps it
 * last) marks a new pattern against the views kept before generation
 * `before` within the latest k, (before − k, before): +1 when it is at
 * least `ratio` times their mean, −1 when at most 1/ratio of it, 0
 * otherwise or when no such view has a positive finite value. */
int papc_price_ring_jump(const papc_price_ring *ring, unsigned long before,
                         int k, int col, double value, double ratio);
/* Forgets every view of a generation under g (the pattern they priced is
 * gone). */
void papc_price_ring_drop_before(papc_price_ring *ring, unsigned long g);
/* A new pattern at view g (its column col, the spread, is `value`): a
 * view whose value jumps (papc_price_ring_jump) against the views before
 * it, followed by the next view jumping the same way against the same
 * views, drops them (papc_price_ring_drop_before(g - 1)), so the two new
 * views alone price the rows.  *jump_gen, *jump_dir: the caller's memory
 * of the latest priced view (0, 0 at first): its generation and +1 / -1
 * (it jumped up / down), 2 (it confirmed a jump) or 0.  Call before
 * keeping view g; a second call at the same g (a pick made again,
 * PAPC_ARRIVAL_PICK_CHECK) changes nothing and returns the same.
 * Returns 1 when view g jumped or confirmed a jump, else 0. */
int papc_price_ring_new_pattern(papc_price_ring *ring, unsigned long g, int k,
                                int col, double value, double ratio,
                                unsigned long *jump_gen, int *jump_dir);

/* ---- what the rows cost when they ran (choose.c, PAPC_ARRIVAL_LEARN) ----
 *
 * The models' pick is within 5 % of the measured best row in ~83 % of the
 * emulated cluster's delayed settings however they are calibrated
 * (docs/performance.md, eighth session): the rest is model error that only
 * running a row reveals.  A call site keeps, per row, how much the row's
 * measured ē exceeded its model at the arrivals measured in the same call
 * (the residual; agreed data: the decisions carry both, exchange.c).
 * Pure: the site's state is the caller's. */
typedef struct papc_row_learning {
    double bias;     /* robust weighted mean of measured ē - model ē, s */
    double dev;      /* weighted mean of |residual - bias|, s */
    long n;          /* residuals taken in the current regime (0: none) */
    double spread;   /* the views' spread (s) when the latest was taken */
    long ran_at;     /* the site's plain-call count when it last ran (0:
                        never) */
} papc_row_learning;

/* Weight of a new residual in the row's mean (the offline policy study
 * in docs/arrival.md: 0.25 beats 0.5 on both sweeps). */
#define PAPC_LEARN_WEIGHT 0.25
/* A row without a residual in the current regime whose price is within
 * this fraction of the chosen row's (above the wait no row avoids) is run
 * once to learn one (PAPC_ARRIVAL_EXPLORE). */
#define PAPC_LEARN_EXPLORE 0.2
/* Calls after a row ran during which its residual is still to come (it
 * comes with the decision two calls later, read at the third). */
#define PAPC_LEARN_LAG 3

void papc_learn_init(papc_row_learning *l, int rows);
/* Whether the row's residuals were taken at a spread like this one (both
 * under 1 ms, or within a factor 2): what a row costs above its model
 * changes with the pattern (the emulated cluster's SLT: right at 10-50 ms,
 * 10 % dear at 200), so a residual of another regime is not used. */
int papc_learn_valid(const papc_row_learning *l, double spread);
/* One residual (finite) of the row, taken at the views' spread, the row's
 * price then being price (s).  Robust: the first of a regime counts at
 * most price (one call cannot make a row more than twice as dear as its
 * model); later ones are clipped to 3 deviations (plus 10 % of the price
 * and 0.1 ms) around the mean -- a multi-second stall in one call (the
 * emulated cluster has them, docs/performance.md) must not bar a row for
 * good; a residual of another regime restarts the row's mean. */
void papc_learn_add(papc_row_learning *l, double residual, double w,
                    double price, double spread);
/* price[rows] (NAN: no candidate) corrected into out[rows]: a row's own
 * mean residual where it has one of this regime, else the mean of those
 * the rows with one have (the models' common error), else none. */
void papc_learn_prices(const papc_row_learning *l, int rows,
                       const double *price, double spread, double *out);
/* The row to run given the pick (an index of price[]) at the site's call
 * count now: once the pick has a residual of this regime or is waiting
 * for one, the cheapest row with neither whose price above the wait no
 * algorithm avoids (floor, s: papc_arrival_wait_floor; 0: none) is at most
 * (1 + explore) times the pick's; else the pick.  Why above the wait:
 * when one process is late by far more than any row's own cost, every
 * row's ē is that wait plus a little, and a band on the whole price would
 * try every row; what the rows differ in is what they add to it. */
int papc_learn_explore(const papc_row_learning *l, int rows,
                       const double *price, int pick, double explore,
                       double floor, double spread, long now);

#endif
