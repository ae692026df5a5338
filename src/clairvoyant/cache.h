/*
 * cache.h — Clairvoyant schedules without regenerating (issue 15, part 4):
 * pure C, no MPI, internal to papcoll's Clairvoyant executor
 * (src/coll/reduce/clairvoyant.c).
 *
 * Quantisation.  The executor no longer builds its schedule from the
 * agreed offsets as they are but from the offsets in whole rounds,
 *
 *     q_p = round((a_p - min a) / d)        (papc_clv_quantise)
 *
 * generated with arrivals q_p and round length 1 (exact integers: the
 * generator's grid gives k_p = q_p, f_p = 0).  The schedule is then a
 * function of (P, N, root, q) alone, so two calls whose agreed vectors
 * round to the same q need the same schedule, and a cached one IS the one
 * generation would give: the cache is pure memoisation.  Its content,
 * eviction order, size, a failed allocation or a rank that has it switched
 * off can change how often a rank generates, never which schedule it runs,
 * so ranks cannot diverge through it.  Rounding moves a planned arrival
 * by at most d / 2, inside the window of one round that Clairvoyant
 * already treats as "together" (a process joins a round that began up to
 * d before it arrives).
 *
 * The cache.  Per communicator (the executor hangs one on its private
 * communicator), up to `sites` call sites — (collective, P, N, bytes) —
 * each with up to `entries` plans keyed by (root, q).  A plan is one
 * rank's part of a schedule (its events, in order) plus the schedule's
 * round and event counts: the executor runs nothing else, and it is about
 * 1/P of the schedule (at P = N = 512: 16 KB instead of 8 MB).  Both
 * levels evict the least recently used (a counter of lookups, no clock):
 * what the cache holds depends only on the sequence of lookups and
 * stores, the same on every rank of a communicator.
 *
 * Memory: at most sites x entries plans, each 4 P bytes of key plus
 * 16 bytes per event of its rank (papc_clv_plan_bytes).
 */
#ifndef PAPC_CLV_CACHE_H
#define PAPC_CLV_CACHE_H
#include <stddef.h>
#include <stdint.h>
#include "schedule.h"

/* One rank's part of a schedule. */
typedef struct papc_clv_plan {
    int P, N, root, rank;
    int rounds;             /* of the whole schedule */
    size_t nevents_total;   /* of the whole schedule */
    size_t n;               /* this rank's events */
    papc_clv_event *ev;     /* in schedule order (round, SEND before RECV) */
} papc_clv_plan;

/* Rank's events of s into *out (a copy).  0, or -1 (bad rank, no memory:
 * *out is then empty and safe to free). */
int papc_clv_plan_from(const papc_clv_schedule *s, int rank,
                       papc_clv_plan *out);
void papc_clv_plan_free(papc_clv_plan *p);
/* Bytes a cache entry of this plan holds (the key included). */
size_t papc_clv_plan_bytes(const papc_clv_plan *p);

/* q[p] = round((arrival[p] - min arrival) / quantum), halves away from
 * zero.  0, or -1 when P < 1, quantum is not finite and > 0, an arrival
 * is not finite or a q would pass PAPC_CLV_MAX_QUANTUM. */
#define PAPC_CLV_MAX_QUANTUM 1000000000
int papc_clv_quantise(const double *arrival, int P, double quantum,
                      int32_t *q);

/* The schedule for whole-round arrivals q (papc_clv_fast with d = 1). */
int papc_clv_fast_quantised(const int32_t *q, int P, int N, int root,
                            papc_clv_schedule *out);
/* Rank's plan of that schedule, generated for rank alone
 * (papc_clv_fast_only: the events of the others are never laid out);
 * equal to papc_clv_plan_from of the whole schedule.  0 or -1 (bad
 * input, no memory: *out is then empty). */
int papc_clv_plan_quantised(const int32_t *q, int P, int N, int root,
                            int rank, papc_clv_plan *out);

typedef struct papc_clv_site_key {
    int coll, P, N;
    long long bytes;
} papc_clv_site_key;

typedef struct papc_clv_cache_stats {
    long long hits, misses, stores, evictions;
    int sites, entries;      /* held now */
    size_t bytes;            /* held now (plans and keys) */
} papc_clv_cache_stats;

typedef struct papc_clv_cache papc_clv_cache;

/* A cache of up to sites x entries plans (both >= 1); NULL when out of
 * memory or a bound is < 1. */
papc_clv_cache *papc_clv_cache_new(int sites, int entries);
void papc_clv_cache_free(papc_clv_cache *c);
/* The plan for (site, root, q[site->P]), or NULL (a miss).  A hit makes
 * the entry and its site the most recently used.  The plan stays valid
 * until the next papc_clv_cache_put or papc_clv_cache_free. */
const papc_clv_plan *papc_clv_cache_find(papc_clv_cache *c,
                                         const papc_clv_site_key *site,
                                         int root, const int32_t *q);
/* Stores *plan (moved in: *plan is emptied) for (site, root, q),
 * evicting the site's least recently used entry when it is full, and the
 * least recently used site when a new site finds every place taken.
 * Returns the stored plan, or NULL when out of memory (*plan is then left
 * as it was, still the caller's).  (site, root, q) must not be cached. */
const papc_clv_plan *papc_clv_cache_put(papc_clv_cache *c,
                                        const papc_clv_site_key *site,
                                        int root, const int32_t *q,
                                        papc_clv_plan *plan);
void papc_clv_cache_get_stats(const papc_clv_cache *c,
                              papc_clv_cache_stats *out);

#endif /* PAPC_CLV_CACHE_H */
