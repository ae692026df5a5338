/*
 * clairvoyant.c — reduce clairvoyant: the Clairvoyant schedule over
 * segments (Marendic, Lemeire, Vucinic, Schelkens, "A novel MPI reduction
 * algorithm resilient to imbalances in process arrival times", J.
 * Supercomput. 2016; with the fixes of Proficz & Ocetkiewicz, "Improving
 * Clairvoyant", clairvoyant-reduce.md), run on the agreed predicted
 * arrivals.
 *
 * Every rank builds the same schedule (papc_clv_fast, src/clairvoyant/)
 * from the same inputs: the agreed arrival offsets, P, N segments of about
 * PAPC_SEGSIZE bytes, the root and the round length d = alpha + s (beta +
 * gamma) of the agreed cost model (s = segment bytes).  It then runs its
 * own events round by round: in a round it receives at most one segment
 * and sends at most one (both non-blocking, then waited), and combines the
 * received segment into its own, received op own -- or, when it has
 * already sent that segment away (the root, and the head before the root
 * comes, may send a segment and get it back later as the sink), replaces
 * its own with it.
 *
 * Cost: R rounds of at most alpha + s beta + s gamma each, R the rounds
 * of the schedule: with balanced arrivals about N + ceil(log2 P) rounds
 * (a segmented reduction whose segments overlap); with a late process,
 * the work before it comes is done by the early ones, and about N rounds
 * follow its arrival.  Memory: a copy of the vector and one segment.
 *
 * Departures from the papers: (1) rounds are not timed: a process runs its
 * next event as soon as its peer is there, so a wrong prediction (or a
 * wrong d) costs time only, never correctness; the round numbers only
 * order each process' events, and both sides of a pair see their common
 * messages in the same round order, so one sub-tag suffices.  (2) Unknown
 * arrivals (INFINITY) count as max known offset + d (0 when none is
 * known: then every process is taken as arriving together).  (3) Every
 * rank works in a temporary accumulator, so the user's buffers are
 * untouched on error; the root copies the result at the end.  Commutative
 * ops only (the schedule combines partial sums in arrival order).
 *
 * Knobs (same value on every rank): PAPC_CLV_ROUND=<seconds> replaces d
 * (ignored unless finite and > 0); for tests, PAPC_CLV_TEST_OFFSETS=
 * "0,0.001,,..." replaces the predicted offsets by rank (empty/"-"/"inf":
 * unknown).  PAPC_VERBOSE=1 prints N, d and the rounds on the root.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clairvoyant.h"
#include "clairvoyant/schedule.h"
#include "topo/prr.h"

/* Round length in seconds: the agreed model, or PAPC_CLV_ROUND. */
static double round_length(const papc_arrival *a, double seg_bytes) {
    const char *knob = getenv("PAPC_CLV_ROUND");
    if (knob && *knob) {
        char *end;
        double v = strtod(knob, &end);
        if (end != knob && isfinite(v) && v > 0) return v;
    }
    double d = a->alpha + seg_bytes * (a->beta + a->gamma);
    if (!isfinite(d) || d <= 0) d = 1e-6; /* any positive length will do */
    return d;
}

/* arrival[0..P) by rank from the agreed offsets (or the test knob),
 * unknown ones at the latest known + d (0 when none is known). */
static int arrival_vector(const papc_call *c, const papc_arrival *a,
                          double d, double *arrival) {
    int P = c->size;
    const char *knob = getenv("PAPC_CLV_TEST_OFFSETS");
    if (knob && *knob) papc_parse_offsets(knob, P, arrival);
    else if (a->offset)
        for (int i = 0; i < P; i++) arrival[i] = a->offset[i];
    else
        for (int i = 0; i < P; i++) arrival[i] = INFINITY;
    double latest = -INFINITY;
    for (int i = 0; i < P; i++)
        if (isfinite(arrival[i]) && arrival[i] > latest) latest = arrival[i];
    for (int i = 0; i < P; i++)
        if (!isfinite(arrival[i]) || arrival[i] < 0)
            arrival[i] = isfinite(latest) ? latest + d : 0.0;
    /* A prediction far beyond the schedule's length (a wild or stale
     * estimate, a tiny d) would only make the generator count idle rounds
     * past its integer range: arrivals beyond 256(P + 1) rounds are all taken
     * as that late (ties by rank).  Identical on every rank. */
    double cap = 256.0 * (double)(P + 1) * d;
    for (int i = 0; i < P; i++)
        if (arrival[i] > cap) arrival[i] = cap;
    return MPI_SUCCESS;
}

static void print_view(const papc_call *c, int root, int N, double d,
                       const papc_clv_schedule *s) {
    const char *v = getenv("PAPC_VERBOSE");
    if (!v || !*v || *v == '0' || c->rank != root) return;
    fprintf(stderr, "papcoll: clairvoyant P=%d N=%d d=%g rounds=%d "
            "events=%zu\n", c->size, N, d, s->rounds, s->nevents);
}

/* Runs this rank's events; acc holds its vector and ends, at the root,
 * with the result.  held[j]: this rank holds a (partial) value of segment
 * j.  slot: one segment, for receives. */
static int run_events(const papc_call *c, const papc_clv_schedule *s,
                      int elems, char *acc, char *slot, unsigned char *held,
                      int sub) {
    MPI_Datatype t = c->sendtype;
    int count = c->sendcount, rc = MPI_SUCCESS;
    const papc_clv_event *ev = s->events;
    size_t i = s->first[c->rank], end = s->first[c->rank + 1];
    while (i < end && rc == MPI_SUCCESS) {
        int round = ev[i].round;
        const papc_clv_event *snd = NULL, *rcv = NULL;
        for (; i < end && ev[i].round == round; i++) {
            const papc_clv_event *e = &ev[i];
            if (e->kind == PAPC_CLV_SEND && !snd) snd = e;
            else if (e->kind == PAPC_CLV_RECV && !rcv) rcv = e;
            else return papc_error(MPI_ERR_INTERN,
                                   "clairvoyant: two %s in round %d",
                                   e->kind == PAPC_CLV_SEND ? "sends"
                                                            : "receives",
                                   round);
        }
        MPI_Request reqs[2];
        int n = 0, rlen = 0;
        if (rcv) {
            int off = rcv->segment * elems;
            rlen = count - off < elems ? count - off : elems;
            rc = papc_irecv(c, slot, rlen, t, rcv->peer, sub, &reqs[n]);
            if (rc == MPI_SUCCESS) n++;
        }
        if (snd && rc == MPI_SUCCESS) {
            int off = snd->segment * elems;
            int len = count - off < elems ? count - off : elems;
            if (!held[snd->segment])
                rc = papc_error(MPI_ERR_INTERN, "clairvoyant: sends segment "
                                "%d it does not hold", snd->segment);
            else
                rc = papc_isend(c, papc_elem(acc, t, off), len, t, snd->peer,
                                sub, &reqs[n]);
            if (rc == MPI_SUCCESS) {
                n++;
                held[snd->segment] = 0;
            }
        }
        if (rc != MPI_SUCCESS) {
            papc_cleanup_requests(n, reqs);
            break;
        }
        rc = papc_waitall(n, reqs);
        if (rc == MPI_SUCCESS && rcv) {
            char *seg = papc_elem(acc, t, (MPI_Aint)rcv->segment * elems);
            if (held[rcv->segment])
                rc = papc_reduce_local(slot, seg, rlen, t, c->op);
            else
                rc = papc_copy(slot, rlen, t, seg, rlen, t);
            held[rcv->segment] = 1;
        }
    }
    return rc;
}

int papc_clv_reduce_exec(const papc_call *c, const papc_arrival *a, int root,
                         const void *input, void *output, int sub) {
    MPI_Datatype t = c->sendtype;
    int P = c->size, count = c->sendcount;
    if (count <= 0) return MPI_SUCCESS;
    int elems = papc_segment_count(c->segsize, t, count);
    if (elems < 1 || elems > count) elems = count;
    int N = count / elems + (count % elems != 0);
    double d = round_length(a, (double)elems * (double)papc_type_size(t));

    papc_tmpbuf acc = {NULL, NULL}, slot = {NULL, NULL};
    papc_clv_schedule s;
    memset(&s, 0, sizeof s);
    double *arrival = malloc((size_t)P * sizeof *arrival);
    unsigned char *held = malloc((size_t)N);
    int rc = MPI_SUCCESS;
    if (!arrival || !held)
        rc = papc_error(MPI_ERR_NO_MEM, "clairvoyant schedule inputs");
    if (rc == MPI_SUCCESS) rc = arrival_vector(c, a, d, arrival);
    if (rc == MPI_SUCCESS && papc_clv_fast(arrival, P, N, root, d, &s) != 0) {
        /* Inputs the generator refuses: every rank sees the same ones, so
         * every rank falls back to equal arrivals alike. */
        for (int i = 0; i < P; i++) arrival[i] = 0.0;
        if (papc_clv_fast(arrival, P, N, root, d, &s) != 0)
            rc = papc_error(MPI_ERR_NO_MEM, "clairvoyant schedule (P=%d "
                            "N=%d)", P, N);
    }
    if (rc == MPI_SUCCESS) print_view(c, root, N, d, &s);
    if (rc == MPI_SUCCESS) rc = papc_tmpbuf_alloc(&acc, t, (size_t)count);
    if (rc == MPI_SUCCESS) rc = papc_tmpbuf_alloc(&slot, t, (size_t)elems);
    if (rc == MPI_SUCCESS) rc = papc_copy(input, count, t, acc.ptr, count, t);
    if (rc == MPI_SUCCESS) {
        memset(held, 1, (size_t)N);
        rc = run_events(c, &s, elems, acc.ptr, slot.ptr, held, sub);
    }
    if (rc == MPI_SUCCESS && c->rank == root) {
        for (int j = 0; j < N && rc == MPI_SUCCESS; j++)
            if (!held[j])
                rc = papc_error(MPI_ERR_INTERN, "clairvoyant: the root ends "
                                "without segment %d", j);
        if (rc == MPI_SUCCESS)
            rc = papc_copy(acc.ptr, count, t, output, count, t);
    }
    papc_clv_free(&s);
    papc_tmpbuf_free(&acc);
    papc_tmpbuf_free(&slot);
    free(arrival);
    free(held);
    return rc;
}

#define CLV_SUB 0

int papc_reduce_clairvoyant(const papc_call *c) {
    papc_arrival a;
    int rc = papc_arrival_begin(c, PAPC_ORDER_AGREED, c->root, &a);
    if (rc != MPI_SUCCESS) return rc;
    int in_place = c->rank == c->root && c->sendbuf == MPI_IN_PLACE;
    const void *input = in_place ? c->recvbuf : c->sendbuf;
    rc = papc_clv_reduce_exec(c, &a, c->root, input, c->recvbuf, CLV_SUB);
    return papc_arrival_end(c, &a, rc);
}
