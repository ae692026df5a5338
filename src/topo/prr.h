/*
 * prr.h — the schedules of the arrival-aware allreduce algorithms as pure
 * data (no MPI): pre-reduced ring (PRR, Proficz 2018 Fig. 7) and sorted
 * linear tree (SLT, Fig. 5).  Unit-tested by a message-passing simulator
 * in tests/unit/test_prr.c; executed by src/coll/allreduce/.
 *
 * Processes are numbered by "id" = position in the agreed arrival order
 * (0 = predicted earliest); the executor maps ids to ranks.  The vector is
 * cut into segments (papc_seg_range); a schedule is, per process, a list
 * of steps: send a segment, receive one and reduce it into the local one,
 * receive one and overwrite the local one, or wait until every send
 * posted so far has completed (before a buffer that was sent is
 * overwritten).  Receives block, sends do not.
 */
#ifndef PAPC_PRR_H
#define PAPC_PRR_H

/* Sub-tags of the schedules: the reduce loop and the override loop never
 * match each other's messages. */
enum { PAPC_SEG_SUB_REDUCE = 0, PAPC_SEG_SUB_OVERRIDE = 1 };

typedef enum papc_seg_op {
    PAPC_SEG_SEND,        /* non-blocking send of segment seg to peer */
    PAPC_SEG_RECV_REDUCE, /* blocking receive of seg from peer, reduced
                             into the local seg */
    PAPC_SEG_RECV_COPY,   /* blocking receive of seg from peer, replacing
                             the local seg (a final result) */
    PAPC_SEG_WAIT_SENDS   /* wait for every send posted so far */
} papc_seg_op;

typedef struct papc_seg_step {
    papc_seg_op op;
    int peer;   /* process id (position in the order); -1 for WAIT_SENDS */
    int sub;    /* PAPC_SEG_SUB_* */
    int seg;    /* segment index; -1 for WAIT_SENDS */
} papc_seg_step;

/* Elements [*off, *off + *len) of count make segment j of nseg: near-equal
 * whole-element parts, the first count % nseg one element longer (empty
 * segments when count < nseg). */
void papc_seg_range(int count, int nseg, int j, int *off, int *len);

/* ---- pre-reduced ring ------------------------------------------------- */

/* Most steps a PRR schedule has. */
#define PAPC_PRR_MAX_STEPS(P) (4 * (P) + 1)

/* Pre-steps k[0..P) from the predicted arrivals a[i] of the processes in
 * order (seconds, any origin) and tau (transfer and reduction time of one
 * segment): Fig. 7 lines 1-6.  Non-finite or negative a[i] are unknown and
 * treated as arriving with the latest known process (no pre-steps for
 * them, no infinite arithmetic); tau <= 0 or not finite gives no pre-steps.
 * The result is always valid (papc_prr_k_valid). */
void papc_prr_presteps(int P, const double *a, double tau, int *k);

/* ---- pre-step rule from the cost model (issue 15) ----------------------
 *
 * The cost of one call under the agreed Hockney model: a message of b
 * bytes from p to p+1 moves its first min(b, eager_bytes) bytes as soon as
 * it is sent (the transport's eager part: it waits in the receiver's
 * buffers), the rest only once the receive is posted (rendezvous: one
 * handshake alpha, then the bytes); reducing b bytes costs b gamma.  The
 * eager parts of one sender leave one after the other (one link).  Sends
 * do not block; a rendezvous send completes when its receive does. */
typedef struct papc_prr_cost {
    double alpha;       /* s per message */
    double beta;        /* s per byte sent */
    double gamma;       /* s per byte reduced */
    double seg_bytes;   /* bytes of one segment (the largest, count/P up) */
    double eager_bytes; /* bytes a send moves before its receive is posted
                           (0: pure rendezvous) */
} papc_prr_cost;

/* Predicted average elapsed time e = mean(f_i - a_i) of the PRR schedule
 * with pre-steps k (valid) when process i (by position in the order)
 * arrives at a[i] (finite, seconds, any origin): every process' step list
 * (papc_prr_schedule) timed under *c.  finish[i] gets f_i when finish is
 * not NULL.  Returns NAN for P < 1, a non-finite input, an invalid k, no
 * memory, or more than PAPC_PRR_PREDICT_MAXP processes. */
#define PAPC_PRR_PREDICT_MAXP 256
double papc_prr_predict(int P, const int *k, const double *a,
                        const papc_prr_cost *c, double *finish);

/* The pre-step rule of the pre_reduced_ring row: of the "capped
 * staircases" k(e, h) -- k_i = min(h, e - i) for i < e, 0 from e on
 * (1 <= h <= e <= P-1), the shape of every optimum an exhaustive search
 * over all valid k found (tests/unit/test_prr.c) -- and k = 0 (the ring in
 * arrival order), the one with the least predicted e (papc_prr_predict).
 * A staircase must beat k = 0 by more than PAPC_PRR_RULE_MARGIN of k = 0's
 * e (the model is approximate; without a clear gain the ring is safer);
 * ties go to fewer pre-steps.  k = 0 without any search when the known
 * arrivals lie within one hop (alpha + seg_bytes beta) of each other, for
 * P > PAPC_PRR_RULE_MAXP, or for a senseless cost.  Unknown arrivals
 * (not finite or negative) count as the latest known one, as in
 * papc_prr_presteps.  P <= 12: every (e, h), from e = P-1 and h = e
 * down; above, a coarse grid of (e, h) then a descent by single steps of
 * e and h.  The search stops when it has cost about
 * PAPC_PRR_RULE_SEARCH_SHARE of the call it optimises (the ring's e
 * estimated as 2(P-1) hops plus the mean wait for the last arrival, a
 * prediction as P(4P+2) positions of PAPC_PRR_RULE_POSITION_COST seconds,
 * this development machine's cost rounded up); with room for less than
 * the ring and one staircase it returns k = 0 without a search.
 * Deterministic: the same inputs give the same k on every rank.  The
 * result is valid. */
#define PAPC_PRR_RULE_MARGIN 0.01
#define PAPC_PRR_RULE_MAXP 128
#define PAPC_PRR_RULE_SEARCH_SHARE 0.01
#define PAPC_PRR_RULE_POSITION_COST 50e-9
void papc_prr_presteps_model(int P, const double *a, const papc_prr_cost *c,
                             int *k);
/* The capped staircase k(e, h) itself (e, h clamped to the valid range;
 * e = 0 or h = 0: k = 0). */
void papc_prr_staircase(int P, int e, int h, int *k);

/* A k vector is valid when k[P-1] = 0 and k[i] - k[i+1] is 0 or 1 (what
 * the recurrence produces).  Returns 1 when valid. */
int papc_prr_k_valid(int P, const int *k);
/* Makes k valid in place (k[P-1] := 0, then from the end each k[i]
 * clamped to [k[i+1], k[i+1] + 1]); returns 1 when nothing changed. */
int papc_prr_k_normalise(int P, int *k);

/* sp[j]: the process that starts segment j (the smallest i with
 * i + k[i] >= j); rp[j] = (sp[j] + P - 1) mod P: the process that reduces
 * it last (Fig. 7 lines 7-13, corrected).  k must be valid. */
void papc_prr_segment_ends(int P, const int *k, int *sp, int *rp);

/* The schedule of process id (P segments) into steps (room for
 * PAPC_PRR_MAX_STEPS(P)); returns the number of steps.  k must be valid. */
int papc_prr_schedule(int P, const int *k, int id, papc_seg_step *steps);

/* ---- sorted linear tree ----------------------------------------------- */

/* Most steps an SLT schedule with S segments has. */
#define PAPC_SLT_MAX_STEPS(S) (4 * (S) + 1)

/* Segment count of SLT for count elements of elem_bytes bytes each under
 * the Hockney model (alpha per message, beta per byte sent, gamma per
 * byte reduced): minimises (D + S - 1)(alpha + n (beta + gamma) / S) with
 * D = 2P - 2 pipeline stages, i.e. S = sqrt((2P - 3) n (beta + gamma) /
 * alpha), at most 65536; at least P (the paper's choice), at least enough
 * that no segment exceeds max_seg_bytes (0: no bound; the transport's
 * eager limit, see papc_pipeline_max_segment), at most count, at least 1. */
int papc_slt_segments(int P, int count, double elem_bytes, double alpha,
                      double beta, double gamma, double max_seg_bytes);

/* The schedule of process id with S segments; returns the step count. */
int papc_slt_schedule(int P, int S, int id, papc_seg_step *steps);

/* ---- testing knobs (parsed here, read from the environment by coll/) -- */

/* Parses "0,0,0.01,inf,..." into offset[0..P) (by rank): entries that are
 * empty, "-", "?", non-numeric, negative or not finite are unknown
 * (INFINITY); missing entries too.  Returns the number of known ones. */
int papc_parse_offsets(const char *s, int P, double *offset);
/* Parses "2,1,0,..." into v[0..P) (missing or bad entries: 0); returns
 * the number of entries parsed. */
int papc_parse_ints(const char *s, int P, int *v);
/* order[0..P): ranks by offset, known first (finite offsets), ties and
 * unknowns by rank. */
void papc_order_by_offset(int P, const double *offset, int *order);

#endif /* PAPC_PRR_H */
