/*
 * schedule.c — the Clairvoyant schedule: freeing, comparing, checking its
 * properties (schedule.h), and the helpers both generators share
 * (schedule_build.h: the exact round grid, the event-list builder).
 *
 * The checker replays the schedule as token flow: every (process, segment)
 * starts holding its own contribution; a SEND in round r moves every token
 * the sender held at the start of round r to the receiver, which combines
 * it (or, when it holds nothing, takes it as is).  Transfers of one round
 * are simultaneous, so a process may not send and receive the same
 * segment in one round (Sect. 4.2, the P' state) and may not send a
 * segment it does not hold (that would count data twice).  At the end the
 * root must hold all P tokens of every segment, each once.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "schedule_build.h"

/* ---------------------------------------------------------------- grid */

int papc_clv_grid(const double *arrival, int P, double d, int64_t *k,
                  double *f) {
    if (!arrival || P < 1 || !(d > 0.0) || !isfinite(d)) return -1;
    double amin = INFINITY;
    for (int p = 0; p < P; p++) {
        if (!isfinite(arrival[p])) return -1;
        if (arrival[p] < amin) amin = arrival[p];
    }
    for (int p = 0; p < P; p++) {
        double x = (arrival[p] - amin) / d;
        if (!isfinite(x) || x > PAPC_CLV_MAX_SPREAD) return -1;
        double fl = floor(x);
        k[p] = (int64_t)fl;
        f[p] = x - fl; /* exact, in [0, 1) */
    }
    return 0;
}

int papc_clv_inputs_ok(const double *arrival, int P, int N, int root,
                       double d) {
    if (!arrival || P < 1 || N < 1 || root < 0 || root >= P) return -1;
    if (!(d > 0.0) || !isfinite(d)) return -1;
    for (int p = 0; p < P; p++)
        if (!isfinite(arrival[p])) return -1;
    return 0;
}

/* ------------------------------------------------------------- builder */

void papc_clv_builder_init(papc_clv_builder *b) {
    b->x = NULL;
    b->n = b->cap = 0;
    b->count = NULL;
    b->P = 0;
    b->last = -1;
    b->only = -1;
    b->skipped = 0;
}

void papc_clv_builder_free(papc_clv_builder *b) {
    free(b->x);
    free(b->count);
    papc_clv_builder_init(b);
}

int papc_clv_builder_reserve(papc_clv_builder *b, int P, size_t cap) {
    if (P < 1 || b->n || b->count) return -1;
    size_t *count = calloc((size_t)P + 1, sizeof *count);
    papc_clv_xfer *x = realloc(b->x, (cap ? cap : 1) * sizeof *x);
    if (!count || !x) {
        free(count);
        if (x) b->x = x;
        return -1;
    }
    b->x = x;
    b->cap = cap ? cap : 1;
    b->count = count;
    b->P = P;
    return 0;
}

int papc_clv_builder_grow(papc_clv_builder *b) {
    size_t cap = b->cap ? 2 * b->cap : 256;
    papc_clv_xfer *x = realloc(b->x, cap * sizeof *x);
    if (!x) return -1;
    b->x = x;
    b->cap = cap;
    return 0;
}

int papc_clv_builder_add(papc_clv_builder *b, int64_t round, int from,
                         int to, int segment) {
    if (round < 0 || round > INT32_MAX - 1) return -1;
    if (b->count && (from < 0 || from >= b->P || to < 0 || to >= b->P))
        return -1;
    return papc_clv_builder_push(b, (int32_t)round, from, to, segment);
}

static int event_cmp(const papc_clv_event *a, const papc_clv_event *b) {
    if (a->round != b->round) return a->round < b->round ? -1 : 1;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    if (a->peer != b->peer) return a->peer < b->peer ? -1 : 1;
    if (a->segment != b->segment) return a->segment < b->segment ? -1 : 1;
    return 0;
}

/* (round, kind) as one number, ordered as event_cmp orders them. */
static inline int64_t event_key(const papc_clv_event *a) {
    return (int64_t)a->round * (INT64_C(1) << 32) +
           ((int64_t)a->kind + (INT64_C(1) << 31));
}

/* A process' list while the events are laid out: e[lo .. end), its
 * largest (round, kind) so far (INT64_MIN: none). */
typedef struct event_list {
    size_t lo, end;
    int64_t last;
} event_list;

/* Appends v to list l and inserts it in place: one step of insertion
 * sort.  Done as each event is laid out, it gives exactly the order an
 * insertion sort of the whole list would (the same steps in the same
 * order).  The generators add transfers round by round, so v mostly
 * belongs last: the common case is one comparison with l's largest key,
 * kept in l (no read of the events, which go out to megabytes of fresh
 * memory). */
static inline void place_event(papc_clv_event *e, event_list *l,
                               papc_clv_event v) {
    const int64_t key = event_key(&v);
    size_t j = l->end++;
    if (key > l->last) {
        e[j] = v;
        l->last = key;
        return;
    }
    while (j > l->lo && event_cmp(&e[j - 1], &v) > 0) {
        e[j] = e[j - 1];
        j--;
    }
    e[j] = v;
}

int papc_clv_builder_finish(const papc_clv_builder *b, int P, int N,
                            int root, papc_clv_schedule *out) {
    memset(out, 0, sizeof *out);
    out->P = P;
    out->N = N;
    out->root = root;
    out->first = malloc(((size_t)P + 1) * sizeof *out->first);
    out->nevents = 2 * b->n;
    out->events = malloc((out->nevents ? out->nevents : 1) *
                         sizeof *out->events);
    event_list *list = malloc(((size_t)P + 1) * sizeof *list);
    if (!out->first || !out->events || !list) {
        free(list);
        papc_clv_free(out);
        return -1;
    }
    /* events per process: kept by add when reserved, else counted */
    if (b->count && b->P == P) {
        memcpy(out->first, b->count, ((size_t)P + 1) * sizeof *out->first);
    } else {
        memset(out->first, 0, ((size_t)P + 1) * sizeof *out->first);
        for (size_t t = 0; t < b->n; t++) {
            out->first[b->x[t].from + 1]++;
            out->first[b->x[t].to + 1]++;
        }
    }
    out->first[0] = 0;
    for (int p = 0; p < P; p++) out->first[p + 1] += out->first[p];
    for (int p = 0; p < P; p++)
        list[p] = (event_list){out->first[p], out->first[p], INT64_MIN};
    /* per process sorted by (round, kind) as laid out (place_event) */
    papc_clv_event *const e = out->events;
    for (size_t t = 0; t < b->n; t++) {
        const papc_clv_xfer x = b->x[t];
        place_event(e, &list[x.from],
                    (papc_clv_event){x.round, x.to, x.segment,
                                     PAPC_CLV_SEND});
        place_event(e, &list[x.to],
                    (papc_clv_event){x.round, x.from, x.segment,
                                     PAPC_CLV_RECV});
    }
    free(list);
    out->rounds = b->last + 1;
    return 0;
}

/* ---------------------------------------------------- free and compare */

void papc_clv_free(papc_clv_schedule *s) {
    if (!s) return;
    free(s->first);
    free(s->events);
    memset(s, 0, sizeof *s);
}

int papc_clv_equal(const papc_clv_schedule *a, const papc_clv_schedule *b) {
    if (!a || !b) return 0;
    if (a->P != b->P || a->N != b->N || a->root != b->root ||
        a->rounds != b->rounds || a->nevents != b->nevents)
        return 0;
    if (a->P < 1 || !a->first || !b->first) return a->nevents == 0;
    if (memcmp(a->first, b->first, ((size_t)a->P + 1) * sizeof *a->first))
        return 0;
    for (size_t i = 0; i < a->nevents; i++)
        if (event_cmp(&a->events[i], &b->events[i]) != 0) return 0;
    return 1;
}

/* --------------------------------------------------------------- check */

static int fail(char *why, size_t len, const char *fmt, ...) {
    if (why && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Index of p's event of `kind` in `round`, or SIZE_MAX (binary search:
 * p's events are sorted by round). */
static size_t find_event(const papc_clv_schedule *s, int p, int32_t round,
                         int32_t kind) {
    size_t lo = s->first[p], hi = s->first[p + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->events[mid].round < round) lo = mid + 1;
        else hi = mid;
    }
    for (; lo < s->first[p + 1] && s->events[lo].round == round; lo++)
        if (s->events[lo].kind == kind) return lo;
    return SIZE_MAX;
}

typedef struct send_ref {
    int32_t round;
    int32_t proc;
    size_t ev;
} send_ref;

static int send_ref_cmp(const void *pa, const void *pb) {
    const send_ref *a = pa, *b = pb;
    if (a->round != b->round) return a->round < b->round ? -1 : 1;
    if (a->proc != b->proc) return a->proc < b->proc ? -1 : 1;
    return 0;
}

int papc_clv_check(const papc_clv_schedule *s, const double *arrival,
                   double d, char *why, size_t len) {
    if (why && len) why[0] = '\0';
    if (!s) return fail(why, len, "no schedule");
    const int P = s->P, N = s->N;
    if (P < 1 || N < 1 || s->root < 0 || s->root >= P)
        return fail(why, len, "bad header P=%d N=%d root=%d", P, N, s->root);
    if (s->rounds < 0) return fail(why, len, "rounds %d < 0", s->rounds);
    if (!s->first) return fail(why, len, "no offsets");
    if (s->nevents && !s->events) return fail(why, len, "no events");
    if (s->first[0] != 0 || s->first[P] != s->nevents)
        return fail(why, len, "offsets do not span the %zu events",
                    s->nevents);

    /* 1. shape: fields in range, round order, one send and one receive
     *    per process per round, nothing before arrival. */
    int64_t *k = malloc((size_t)P * sizeof *k);
    double *f = malloc((size_t)P * sizeof *f);
    if (!k || !f) {
        free(k);
        free(f);
        return fail(why, len, "no memory");
    }
    if (papc_clv_grid(arrival, P, d, k, f) != 0) {
        free(k);
        free(f);
        return fail(why, len, "bad arrival times or round length");
    }
    size_t nsend = 0, nrecv = 0;
    int rc = 0;
    for (int p = 0; p < P && !rc; p++) {
        if (s->first[p + 1] < s->first[p]) {
            rc = fail(why, len, "offsets of process %d decrease", p);
            break;
        }
        for (size_t i = s->first[p]; i < s->first[p + 1]; i++) {
            const papc_clv_event *e = &s->events[i];
            if (e->peer < 0 || e->peer >= P || e->peer == p ||
                e->segment < 0 || e->segment >= N || e->round < 0 ||
                e->round >= s->rounds ||
                (e->kind != PAPC_CLV_SEND && e->kind != PAPC_CLV_RECV)) {
                rc = fail(why, len,
                          "process %d event %zu out of range (round %d "
                          "peer %d segment %d kind %d)",
                          p, i - s->first[p], e->round, e->peer, e->segment,
                          e->kind);
                break;
            }
            if (i > s->first[p]) {
                const papc_clv_event *q = e - 1;
                if (q->round > e->round) {
                    rc = fail(why, len, "process %d: events not in round "
                              "order (round %d after %d)", p, e->round,
                              q->round);
                    break;
                }
                if (q->round == e->round && q->kind == e->kind) {
                    rc = fail(why, len, "process %d %s twice in round %d", p,
                              e->kind == PAPC_CLV_SEND ? "sends" : "receives",
                              e->round);
                    break;
                }
            }
            /* arrived by the end of the round's slot: a_p <= a_min +
             * (round + 1) d, exactly on the grid (schedule_build.h) */
            int64_t r1 = (int64_t)e->round + 1;
            if (k[p] > r1 || (k[p] == r1 && f[p] > 0.0)) {
                rc = fail(why, len, "process %d communicates in round %d "
                          "before it arrives (a=%g, round ends at %g)", p,
                          e->round, arrival[p],
                          arrival[p] - (k[p] + f[p] - (double)r1) * d);
                break;
            }
            if (e->kind == PAPC_CLV_SEND) nsend++;
            else nrecv++;
        }
    }
    free(k);
    free(f);
    if (rc) return rc;
    if (nsend != nrecv)
        return fail(why, len, "%zu sends but %zu receives", nsend, nrecv);

    /* 2. pairing: every send has its receive (same round, peer, segment);
     *    receives are unique per (process, round), so with equal counts
     *    the pairing is one to one. */
    send_ref *sends = malloc((nsend ? nsend : 1) * sizeof *sends);
    if (!sends) return fail(why, len, "no memory");
    size_t ns = 0;
    for (int p = 0; p < P && !rc; p++)
        for (size_t i = s->first[p]; i < s->first[p + 1]; i++) {
            const papc_clv_event *e = &s->events[i];
            if (e->kind != PAPC_CLV_SEND) continue;
            size_t j = find_event(s, e->peer, e->round, PAPC_CLV_RECV);
            if (j == SIZE_MAX || s->events[j].peer != p ||
                s->events[j].segment != e->segment) {
                rc = fail(why, len, "round %d: send %d -> %d of segment %d "
                          "has no matching receive", e->round, p, e->peer,
                          e->segment);
                break;
            }
            /* simultaneity: the sender must not also receive this segment
             * in this round (it would forward data it has not got yet). */
            j = find_event(s, p, e->round, PAPC_CLV_RECV);
            if (j != SIZE_MAX && s->events[j].segment == e->segment) {
                rc = fail(why, len, "round %d: process %d sends and "
                          "receives segment %d", e->round, p, e->segment);
                break;
            }
            sends[ns++] = (send_ref){e->round, p, i};
        }
    if (rc) {
        free(sends);
        return rc;
    }
    qsort(sends, ns, sizeof *sends, send_ref_cmp);

    /* 3. token flow: per (segment, process) a linked list of the
     *    contributions it holds. */
    size_t cells = (size_t)N * (size_t)P;
    int32_t *head = malloc(cells * sizeof *head);
    int32_t *tail = malloc(cells * sizeof *tail);
    int32_t *next = malloc(cells * sizeof *next);
    int32_t *count = malloc(cells * sizeof *count);
    if (!head || !tail || !next || !count) {
        rc = fail(why, len, "no memory");
        goto out;
    }
    for (size_t c = 0; c < cells; c++) {
        head[c] = tail[c] = (int32_t)(c % (size_t)P);
        next[c] = -1;
        count[c] = 1;
    }
    for (size_t t = 0; t < ns; t++) {
        const papc_clv_event *e = &s->events[sends[t].ev];
        int p = sends[t].proc, q = e->peer;
        size_t from = (size_t)e->segment * P + (size_t)p;
        size_t to = (size_t)e->segment * P + (size_t)q;
        if (count[from] == 0) {
            rc = fail(why, len, "round %d: process %d sends segment %d "
                      "it no longer holds (data would count twice)",
                      e->round, p, e->segment);
            goto out;
        }
        /* move p's list to the end of q's: the tokens node c of segment
         * s is next[s*P + c] */
        size_t base = (size_t)e->segment * P;
        if (count[to] == 0) {
            head[to] = head[from];
        } else {
            next[base + (size_t)tail[to]] = head[from];
        }
        tail[to] = tail[from];
        count[to] += count[from];
        count[from] = 0;
        head[from] = tail[from] = -1;
    }
    for (int sg = 0; sg < N; sg++)
        for (int p = 0; p < P; p++) {
            size_t c = (size_t)sg * P + (size_t)p;
            if (p != s->root && count[c] != 0) {
                rc = fail(why, len, "segment %d: process %d ends holding %d "
                          "contribution(s) that never reach the root %d",
                          sg, p, count[c], s->root);
                goto out;
            }
        }
    for (int sg = 0; sg < N; sg++) {
        size_t c = (size_t)sg * P + (size_t)s->root;
        if (count[c] != P) { /* cannot happen once the others are empty */
            rc = fail(why, len, "segment %d: the root %d ends with %d of "
                      "%d contributions", sg, s->root, count[c], P);
            goto out;
        }
    }
out:
    free(sends);
    free(head);
    free(tail);
    free(next);
    free(count);
    return rc;
}
