/*
 * test_clv_cache_mpi.c — the Clairvoyant executor's schedule cache (issue 15,
 * part 4; src/clairvoyant/cache.h, src/coll/reduce/clairvoyant.c) under
 * MPI: reduce and allreduce `clairvoyant`, called again and again with a
 * stable late rank, against MPI_Reduce / MPI_Allreduce bit for bit (ints,
 * MPI_SUM), and the cache's counters (papc_clv_cache_counters) must show
 * the plans reused.  Run with 4 processes (any P >= 2 works).
 *
 * Phases:
 *   forced   a communicator the monitor does not serve (rank order), the
 *            predicted offsets forced by PAPC_CLV_TEST_OFFSETS (the last
 *            rank 5 rounds late, and late in fact: it sleeps), d forced by
 *            PAPC_CLV_ROUND: per site exactly one schedule generated, every
 *            other call a hit; offsets that move within half a round hit,
 *            7 rounds late misses once, back to 5 hits; another vector
 *            length is another site;
 *   mixed    PAPC_CLV_CACHE=0 on odd ranks: they generate every time, the
 *            others reuse, and the results are still right (a cached plan
 *            is the one generation gives, so ranks cannot diverge);
 *   monitor  MPI_COMM_WORLD under the monitor's real predictions: every
 *            rank computes 2 ms and reports half-way progress, the last
 *            one 30 ms more; rounds of 10 ms.  The late rank's predicted
 *            offset rounds to 3 rounds call after call, but now and then
 *            a rank's report comes after the decision (it is then planned
 *            late) or the allreduce's first rank changes: at least half of
 *            the calls must hit (about 47 of 60 seen), and every rank must
 *            hit equally often (the agreed vector is the same everywhere).
 * Exit status 0, or 1 with the failed check on stderr.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "papcoll.h"
#include "coll/reduce/clairvoyant.h"

static int rank, size;

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "rank %d: %s:%d: ", rank, __FILE__, __LINE__);  \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            MPI_Abort(MPI_COMM_WORLD, 1);                                   \
        }                                                                   \
    } while (0)

typedef struct counts {
    long long hits, misses, evictions, generated;
} counts;

static counts now(void) {
    counts c;
    papc_clv_cache_counters(&c.hits, &c.misses, &c.evictions, &c.generated);
    return c;
}

static counts since(counts a) {
    counts b = now();
    return (counts){b.hits - a.hits, b.misses - a.misses,
                    b.evictions - a.evictions, b.generated - a.generated};
}

/* One reduce (root 0) or allreduce `clairvoyant` of count ints on comm,
 * the last rank late by late_us, checked against the native collective. */
static int instrument; /* progress reports around the emulated compute */

static void one_call(MPI_Comm comm, int allreduce, int count, int late_us,
                     int iter) {
    int *in = malloc((size_t)count * sizeof *in);
    int *out = malloc((size_t)count * sizeof *out);
    int *want = malloc((size_t)count * sizeof *want);
    CHECK(in && out && want, "no memory");
    for (int i = 0; i < count; i++) {
        in[i] = (rank + 1) * 1000 + i * 7 + iter;
        out[i] = want[i] = -1;
    }
    if (instrument) {
        /* every rank computes 2 ms, the last late_us more, and says how
         * far it has got (the monitor's progress reports) */
        int us = 2000 + (rank == size - 1 ? late_us : 0);
        papc_processing_start();
        usleep((useconds_t)(us / 2));
        papc_progress(0.5);
        usleep((useconds_t)(us - us / 2));
        papc_processing_end();
    } else if (rank == size - 1 && late_us > 0) {
        usleep((useconds_t)late_us);
    }
    int rc = allreduce
        ? papc_allreduce_alg(in, out, count, MPI_INT, MPI_SUM, comm,
                             "clairvoyant")
        : papc_reduce_alg(in, out, count, MPI_INT, MPI_SUM, 0, comm,
                          "clairvoyant");
    CHECK(rc == MPI_SUCCESS, "%s failed: %s", allreduce ? "allreduce"
          : "reduce", papc_strerror(rc));
    if (allreduce)
        MPI_Allreduce(in, want, count, MPI_INT, MPI_SUM, comm);
    else
        MPI_Reduce(in, want, count, MPI_INT, MPI_SUM, 0, comm);
    if (allreduce || rank == 0)
        for (int i = 0; i < count; i++)
            CHECK(out[i] == want[i], "%s iteration %d: element %d is %d, "
                  "native %d", allreduce ? "allreduce" : "reduce", iter, i,
                  out[i], want[i]);
    free(in);
    free(out);
    free(want);
}

/* Sets PAPC_CLV_TEST_OFFSETS to 0 for every rank but the last, which gets
 * late seconds (the same string on every rank). */
static void force_offsets(double late) {
    char buf[256] = "";
    size_t n = 0;
    for (int r = 0; r < size && n < sizeof buf - 32; r++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%.6f",
                              r ? "," : "", r == size - 1 ? late : 0.0);
    setenv("PAPC_CLV_TEST_OFFSETS", buf, 1);
}

static void phase_forced(MPI_Comm comm) {
    setenv("PAPC_CLV_ROUND", "0.001", 1);
    setenv("PAPC_CLV_SEGMENTS", "6", 1);
    for (int allreduce = 0; allreduce < 2; allreduce++) {
        counts c0 = now();
        force_offsets(0.005); /* 5 rounds */
        for (int it = 0; it < 10; it++) one_call(comm, allreduce, 600, 5000, it);
        counts c = since(c0);
        CHECK(c.generated == 1 && c.misses == 1 && c.hits == 9,
              "%s, 10 calls at 5 rounds: generated %lld, misses %lld, hits "
              "%lld (want 1, 1, 9)", allreduce ? "allreduce" : "reduce",
              c.generated, c.misses, c.hits);
        /* within half a round of 5: the same schedule */
        c0 = now();
        force_offsets(0.0053);
        one_call(comm, allreduce, 600, 5000, 10);
        force_offsets(0.0047);
        one_call(comm, allreduce, 600, 5000, 11);
        c = since(c0);
        CHECK(c.generated == 0 && c.hits == 2, "%s, 5 +- 0.3 rounds: "
              "generated %lld, hits %lld (want 0, 2)",
              allreduce ? "allreduce" : "reduce", c.generated, c.hits);
        /* 7 rounds: a new schedule once; back at 5 still cached */
        c0 = now();
        force_offsets(0.007);
        one_call(comm, allreduce, 600, 7000, 12);
        one_call(comm, allreduce, 600, 7000, 13);
        force_offsets(0.005);
        one_call(comm, allreduce, 600, 5000, 14);
        c = since(c0);
        CHECK(c.generated == 1 && c.hits == 2 && c.evictions == 0,
              "%s, 7, 7, 5 rounds: generated %lld, hits %lld, evictions "
              "%lld (want 1, 2, 0)", allreduce ? "allreduce" : "reduce",
              c.generated, c.hits, c.evictions);
        /* another length is another site */
        c0 = now();
        one_call(comm, allreduce, 601, 5000, 15);
        one_call(comm, allreduce, 601, 5000, 16);
        c = since(c0);
        CHECK(c.generated == 1 && c.hits == 1, "%s, 601 ints: generated "
              "%lld, hits %lld (want 1, 1)",
              allreduce ? "allreduce" : "reduce", c.generated, c.hits);
    }
    unsetenv("PAPC_CLV_TEST_OFFSETS");
}

static void phase_mixed(MPI_Comm comm) {
    force_offsets(0.003);
    if (rank % 2) setenv("PAPC_CLV_CACHE", "0", 1);
    counts c0 = now();
    for (int it = 0; it < 6; it++) one_call(comm, it % 2, 500, 3000, it);
    counts c = since(c0);
    if (rank % 2)
        CHECK(c.generated == 6 && c.hits == 0, "no cache: generated %lld, "
              "hits %lld (want 6, 0)", c.generated, c.hits);
    else
        CHECK(c.generated == 2 && c.hits == 4, "cache: generated %lld, hits "
              "%lld (want 2, 4)", c.generated, c.hits);
    unsetenv("PAPC_CLV_CACHE");
    unsetenv("PAPC_CLV_TEST_OFFSETS");
}

static void phase_monitor(void) {
    setenv("PAPC_CLV_ROUND", "0.01", 1);
    setenv("PAPC_CLV_SEGMENTS", "6", 1);
    const int calls = 30;
    instrument = 1;
    counts c0 = now();
    for (int it = 0; it < calls; it++) {
        one_call(MPI_COMM_WORLD, 0, 400, 30000, it);
        one_call(MPI_COMM_WORLD, 1, 400, 30000, it);
    }
    counts c = since(c0);
    long long hits = c.hits, all[2] = {c.hits, c.generated}, sum[2];
    MPI_Allreduce(all, sum, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("monitor phase: %d calls per rank, hits %lld, generated %lld "
               "(all ranks)\n", 2 * calls, sum[0], sum[1]);
    /* the same vector on every rank, so the same decisions */
    long long lo, hi;
    MPI_Allreduce(&hits, &lo, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&hits, &hi, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == hi, "ranks hit the cache unequally (%lld..%lld times)", lo,
          hi);
    CHECK(hits >= calls, "only %lld of %d calls found their schedule "
          "cached", hits, 2 * calls);
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsetenv("PAPC_CLV_CACHE");
    int rc = papc_monitor_init(MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "papc_monitor_init: %s", papc_strerror(rc));
    MPI_Comm other;
    MPI_Comm_dup(MPI_COMM_WORLD, &other);
    phase_forced(other);
    phase_mixed(other);
    MPI_Comm_free(&other);
    if (provided == MPI_THREAD_MULTIPLE) phase_monitor();
    papc_monitor_finalize();
    if (rank == 0) printf("test_clv_cache: passed (P = %d)\n", size);
    MPI_Finalize();
    return 0;
}
