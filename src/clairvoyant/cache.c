/*
 * cache.c — quantised arrivals, one rank's plan, and the per-communicator
 * cache of plans (cache.h: why the cache cannot make ranks diverge, what
 * it holds, its bounds).  Pure C, no MPI.
 *
 * The cache is two small arrays searched linearly (a handful of sites, a
 * handful of entries each: comparing 4 P bytes of key costs microseconds
 * against the tens of milliseconds a schedule takes at P = N = 512).
 * Recency is a counter bumped by every lookup and store, so eviction is
 * a function of the sequence of operations alone.
 */
#include "cache.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "schedule_build.h"

/* ---------------------------------------------------------------- plan */

int papc_clv_plan_from(const papc_clv_schedule *s, int rank,
                       papc_clv_plan *out) {
    memset(out, 0, sizeof *out);
    if (!s || !s->first || rank < 0 || rank >= s->P) return -1;
    const size_t lo = s->first[rank], n = s->first[rank + 1] - lo;
    out->ev = malloc((n ? n : 1) * sizeof *out->ev);
    if (!out->ev) return -1;
    if (n) memcpy(out->ev, s->events + lo, n * sizeof *out->ev);
    out->P = s->P;
    out->N = s->N;
    out->root = s->root;
    out->rank = rank;
    out->rounds = s->rounds;
    out->nevents_total = s->nevents;
    out->n = n;
    return 0;
}

void papc_clv_plan_free(papc_clv_plan *p) {
    if (!p) return;
    free(p->ev);
    memset(p, 0, sizeof *p);
}

size_t papc_clv_plan_bytes(const papc_clv_plan *p) {
    return sizeof *p + (size_t)p->P * sizeof(int32_t) +
           p->n * sizeof *p->ev;
}

/* ------------------------------------------------------- quantisation */

int papc_clv_quantise(const double *arrival, int P, double quantum,
                      int32_t *q) {
    if (!arrival || !q || P < 1 || !(quantum > 0.0) || !isfinite(quantum))
        return -1;
    double amin = INFINITY;
    for (int p = 0; p < P; p++) {
        if (!isfinite(arrival[p])) return -1;
        if (arrival[p] < amin) amin = arrival[p];
    }
    for (int p = 0; p < P; p++) {
        const double x = (arrival[p] - amin) / quantum;
        if (!isfinite(x) || x > (double)PAPC_CLV_MAX_QUANTUM) return -1;
        q[p] = (int32_t)llround(x);
    }
    return 0;
}

int papc_clv_fast_quantised(const int32_t *q, int P, int N, int root,
                            papc_clv_schedule *out) {
    if (!out) return -1;
    memset(out, 0, sizeof *out);
    if (!q || P < 1) return -1;
    double *a = malloc((size_t)P * sizeof *a);
    if (!a) return -1;
    for (int p = 0; p < P; p++) a[p] = (double)q[p];
    const int rc = papc_clv_fast(a, P, N, root, 1.0, out);
    free(a);
    return rc;
}

int papc_clv_plan_quantised(const int32_t *q, int P, int N, int root,
                            int rank, papc_clv_plan *out) {
    memset(out, 0, sizeof *out);
    if (!q || P < 1 || rank < 0 || rank >= P) return -1;
    double *a = malloc((size_t)P * sizeof *a);
    if (!a) return -1;
    for (int p = 0; p < P; p++) a[p] = (double)q[p];
    papc_clv_schedule s;
    size_t total = 0;
    int rc = papc_clv_fast_only(a, P, N, root, 1.0, rank, &s, &total);
    free(a);
    if (rc == 0) rc = papc_clv_plan_from(&s, rank, out);
    if (rc == 0) out->nevents_total = total;
    papc_clv_free(&s);
    return rc;
}

/* --------------------------------------------------------------- cache */

typedef struct cache_entry {
    int used, root;
    int32_t *q;                /* [P] */
    papc_clv_plan plan;
    unsigned long long last;   /* recency: the counter at the last use */
} cache_entry;

typedef struct cache_site {
    int used;
    papc_clv_site_key key;
    cache_entry *e;            /* [entries] */
    unsigned long long last;
} cache_site;

struct papc_clv_cache {
    int nsites, nentries;
    cache_site *site;          /* [nsites] */
    unsigned long long tick;
    long long hits, misses, stores, evictions;
};

static int site_equal(const papc_clv_site_key *a,
                      const papc_clv_site_key *b) {
    return a->coll == b->coll && a->P == b->P && a->N == b->N &&
           a->bytes == b->bytes;
}

static void entry_clear(cache_entry *e) {
    free(e->q);
    papc_clv_plan_free(&e->plan);
    memset(e, 0, sizeof *e);
}

/* Empties a site; returns how many entries it held. */
static int site_clear(papc_clv_cache *c, cache_site *s) {
    int held = 0;
    for (int k = 0; k < c->nentries; k++)
        if (s->e[k].used) {
            entry_clear(&s->e[k]);
            held++;
        }
    s->used = 0;
    s->last = 0;
    return held;
}

papc_clv_cache *papc_clv_cache_new(int sites, int entries) {
    if (sites < 1 || entries < 1) return NULL;
    papc_clv_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->nsites = sites;
    c->nentries = entries;
    c->site = calloc((size_t)sites, sizeof *c->site);
    if (!c->site) {
        free(c);
        return NULL;
    }
    for (int i = 0; i < sites; i++) {
        c->site[i].e = calloc((size_t)entries, sizeof *c->site[i].e);
        if (!c->site[i].e) {
            papc_clv_cache_free(c);
            return NULL;
        }
    }
    return c;
}

void papc_clv_cache_free(papc_clv_cache *c) {
    if (!c) return;
    for (int i = 0; i < c->nsites; i++) {
        if (!c->site[i].e) continue;
        site_clear(c, &c->site[i]);
        free(c->site[i].e);
    }
    free(c->site);
    free(c);
}

static cache_site *find_site(papc_clv_cache *c,
                             const papc_clv_site_key *key) {
    for (int i = 0; i < c->nsites; i++)
        if (c->site[i].used && site_equal(&c->site[i].key, key))
            return &c->site[i];
    return NULL;
}

static cache_entry *find_entry(const papc_clv_cache *c, cache_site *s,
                               int root, const int32_t *q) {
    const size_t bytes = (size_t)s->key.P * sizeof *q;
    for (int k = 0; k < c->nentries; k++) {
        cache_entry *e = &s->e[k];
        if (e->used && e->root == root && !memcmp(e->q, q, bytes)) return e;
    }
    return NULL;
}

const papc_clv_plan *papc_clv_cache_find(papc_clv_cache *c,
                                         const papc_clv_site_key *site,
                                         int root, const int32_t *q) {
    if (!c || !site || !q) return NULL;
    c->tick++;
    cache_site *s = find_site(c, site);
    cache_entry *e = s ? find_entry(c, s, root, q) : NULL;
    if (!e) {
        c->misses++;
        return NULL;
    }
    c->hits++;
    e->last = s->last = c->tick;
    return &e->plan;
}

/* The unused slot, else the least recently used one (ties: the first). */
static cache_site *site_slot(papc_clv_cache *c) {
    cache_site *best = &c->site[0];
    for (int i = 0; i < c->nsites; i++) {
        if (!c->site[i].used) return &c->site[i];
        if (c->site[i].last < best->last) best = &c->site[i];
    }
    return best;
}

static cache_entry *entry_slot(papc_clv_cache *c, cache_site *s) {
    cache_entry *best = &s->e[0];
    for (int k = 0; k < c->nentries; k++) {
        if (!s->e[k].used) return &s->e[k];
        if (s->e[k].last < best->last) best = &s->e[k];
    }
    return best;
}

const papc_clv_plan *papc_clv_cache_put(papc_clv_cache *c,
                                        const papc_clv_site_key *site,
                                        int root, const int32_t *q,
                                        papc_clv_plan *plan) {
    if (!c || !site || !q || !plan || site->P < 1) return NULL;
    int32_t *key = malloc((size_t)site->P * sizeof *key);
    if (!key) return NULL;
    memcpy(key, q, (size_t)site->P * sizeof *key);
    c->tick++;
    cache_site *s = find_site(c, site);
    if (!s) {
        s = site_slot(c);
        if (s->used) c->evictions += site_clear(c, s);
        s->used = 1;
        s->key = *site;
    }
    cache_entry *e = entry_slot(c, s);
    if (e->used) {
        entry_clear(e);
        c->evictions++;
    }
    e->used = 1;
    e->root = root;
    e->q = key;
    e->plan = *plan;
    memset(plan, 0, sizeof *plan);
    e->last = s->last = c->tick;
    c->stores++;
    return &e->plan;
}

void papc_clv_cache_get_stats(const papc_clv_cache *c,
                              papc_clv_cache_stats *out) {
    memset(out, 0, sizeof *out);
    if (!c) return;
    out->hits = c->hits;
    out->misses = c->misses;
    out->stores = c->stores;
    out->evictions = c->evictions;
    for (int i = 0; i < c->nsites; i++) {
        if (!c->site[i].used) continue;
        out->sites++;
        for (int k = 0; k < c->nentries; k++)
            if (c->site[i].e[k].used) {
                out->entries++;
                out->bytes += papc_clv_plan_bytes(&c->site[i].e[k].plan);
            }
    }
}
