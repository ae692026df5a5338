/*
 * dataflow.c — a schedule's exits under the executor's dataflow
 * (dataflow.h says what is modelled and why).  O(P N + events) time and
 * memory: one ready time per (process, segment).
 */
#include "dataflow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double dmax(double a, double b) { return a > b ? a : b; }

typedef struct flow {
    int N;
    double link, apply;
    const double *arrival;
    double *ready;       /* P x N: when p's copy of segment j is complete */
    double *post, *up, *down, *exit;
} flow;

static int flow_alloc(flow *f, const papc_clv_schedule *s) {
    size_t cells = (size_t)s->P * (size_t)s->N;
    f->ready = malloc(cells * sizeof *f->ready);
    f->post = malloc(4 * (size_t)s->P * sizeof *f->post);
    if (!f->ready || !f->post) {
        free(f->ready);
        free(f->post);
        return -1;
    }
    f->up = f->post + s->P;
    f->down = f->up + s->P;
    f->exit = f->down + s->P;
    for (int p = 0; p < s->P; p++) {
        double a = f->arrival[p];
        for (int j = 0; j < s->N; j++) f->ready[(size_t)p * s->N + j] = a;
        f->post[p] = f->exit[p] = a;
        f->up[p] = f->down[p] = -INFINITY; /* a late receiver's buffers take data */
    }
    return 0;
}

/* p sends segment j to q: the send's completion at p, the receive's
 * application at q. */
static void flow_send(flow *f, int p, int q, int j) {
    double *rp = &f->ready[(size_t)p * f->N + j];
    double *rq = &f->ready[(size_t)q * f->N + j];
    f->post[p] = dmax(f->post[p], *rp);
    double start = dmax(f->post[p], dmax(f->up[p], f->down[q]));
    double done = start + f->link;
    f->up[p] = f->down[q] = done;
    f->exit[p] = dmax(f->exit[p], done);
    double applied = dmax(done, f->arrival[q]) + f->apply;
    *rq = dmax(*rq, applied);
    f->exit[q] = dmax(f->exit[q], applied);
}

static int valid(const papc_clv_schedule *s, const double *arrival,
                 double link, double apply) {
    if (!s || !s->first || !arrival || s->P < 1 || s->N < 1) return 0;
    if (!(link >= 0) || !(apply >= 0) || !isfinite(link) || !isfinite(apply))
        return 0;
    for (int p = 0; p < s->P; p++)
        if (!isfinite(arrival[p])) return 0;
    for (size_t i = 0; i < s->nevents; i++) {
        const papc_clv_event *e = &s->events[i];
        if (e->peer < 0 || e->peer >= s->P || e->segment < 0 ||
            e->segment >= s->N)
            return 0;
    }
    return 1;
}

int papc_clv_dataflow_exits(const papc_clv_schedule *s, const double *arrival,
                            double link, double apply, double *F) {
    if (!F || !valid(s, arrival, link, apply)) return -1;
    flow f = {s->N, link, apply, arrival, NULL, NULL, NULL, NULL, NULL};
    size_t *next = malloc((size_t)s->P * sizeof *next);
    if (!next || flow_alloc(&f, s) != 0) {
        free(next);
        return -1;
    }
    for (int p = 0; p < s->P; p++) next[p] = s->first[p];
    /* round by round over all processes: a topological order (dataflow.h) */
    for (int r = 0; r < s->rounds; r++)
        for (int p = 0; p < s->P; p++)
            for (; next[p] < s->first[p + 1] &&
                   s->events[next[p]].round <= r;
                 next[p]++) {
                const papc_clv_event *e = &s->events[next[p]];
                if (e->kind == PAPC_CLV_SEND) flow_send(&f, p, e->peer,
                                                        e->segment);
            }
    memcpy(F, f.exit, (size_t)s->P * sizeof *F);
    free(f.ready);
    free(f.post);
    free(next);
    return 0;
}
