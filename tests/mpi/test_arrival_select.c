/*
 * test_arrival_select.c — the plain call's arrival-aware choice (issue 15).

 * Usage: mpiexec -n P test_arrival_select MODE DIR (DIR: writable scratch)
 *   MODE "switch" (default): with a monitor, iterations of an instrumented
 *     loop (papc_processing_start / papc_progress) in which one rank
 *     computes D ms longer, for D = 0 (8 calls) then D > 0 (12 calls: a
 *     quiet site watches every PAPC_ARRIVAL_WATCH_EVERY-th call, so the
 *     late rank is seen up to 3 calls late), for gather, scatter and
 *     reduce (root 1 when P > 2; 64 KiB blocks; the rank after the root
 *     late by 60 ms, which the classic rows serve first) and allreduce
 *     (1 MiB; rank 1 late by 10 ms, a spread of the order of the call's
 *     own time, where the arrival-aware rows gain most).  Every rank must
 *     run the same algorithm in every iteration (papc_last_algorithm,
 *     gathered and compared: a divergence would also hang or corrupt,
 *     which the alarm and the result check catch); results equal the
 *     native collective's.  The choice must respond to the imbalance: over
 *     the four collectives, at least 8 of the 48 calls with a late
 *     rank run an arrival-aware row, and more than in the balanced loops
 *     (not every one: the models, under a profile of a 1 Gbit/s cluster
 *     written here, may rightly keep a classic row, and a loaded machine's
 *     jitter makes some balanced spreads exceed the 1 ms floor).
 *   MODE "off": papc_set_arrival_selection(0): never an arrival-aware row.
 *   MODE "nomonitor": no monitor (PAPC_MONITOR=0 in the environment):
 *     never an arrival-aware row, no hang.
 *   MODE "penalise": the arrival corrections of the profile (papc-tune
 *     --arrival-refit; model.h) reach the choice, alike on every rank:
 *     gather and allreduce with a late rank under the cluster profile (X
 *     the row run most); the same profile plus a correction that makes X
 *     cost 50 times its model: X no longer runs (a classic X may still
 *     where a call has no view of the offsets: at most a quarter); one
 *     that penalises every arrival-aware row: none runs; and when rank 0
 *     alone holds the
 *     penalising profile, the ranks' profiles differ, none is agreed, no
 *     correction applies and every rank still runs the same row.
 *   MODE "learn": what a row costs when it runs reaches the choice (the
 *     online refinement, PAPC_ARRIVAL_LEARN, choose.c): gather with a
 *     late rank under the cluster profile; X, the row run most, then
 *     counts 60 ms more in every rank's time in the call when it runs
 *     (PAPC_LEARN_TEST_SLOW, which the models do not see).  With learning
 *     on, X runs in at most 5 of the next 14 calls (its first residual
 *     comes three calls after it ran: it may run three times, whenever it
 *     is next chosen, before the choice knows) -- run with
 *     PAPC_ARRIVAL_LEARN=1; without it (learning is opt-in) that check must
 *     fail (X keeps running: the knob changes nothing else).  Every call
 *     agreed on every rank.
 *   MODE "watch": sparse watching (PAPC_ARRIVAL_WATCH_EVERY=k, default
 *     4; choose.c).  Gather, balanced then with a rank 20 ms late, at one
 *     site: every rank watched the same calls (papc_last_watched, gathered
 *     and compared); with k = 1 every call is watched; with k > 1 a
 *     balanced run of 24 calls leaves at least 6 unwatched (the ideal is
 *     24 (k - 1) / k; a loaded machine's jitter over the 1 ms floor
 *     watches some more), no k calls in a row go unwatched (balanced or
 *     late), the first watched call of the late loop (of 2k + 4 calls)
 *     comes within its first k calls; of its last 4 calls one goes
 *     unwatched only where the site is settled (it runs the row its
 *     latest watched call ran, chosen from two views: choose.c; a
 *     classic row then runs without an epoch, an arrival-aware one in
 *     its epoch without a view, 'a' in the printed pattern);
 *     at P = 4, where the models pick one, an arrival-aware row runs
 *     within 2k + 3 calls of the late loop's start, and with k = 1 every
 *     call is watched; at P = 5, where a classic row wins, the site
 *     settles (at least k - 1 late calls unwatched).  (The first watched
 *     call's view may still have the late rank on time, decided before
 *     its report came -- seen as ".W.......WWW" at k = 8 -- so the late
 *     rank may be seen only k calls later: a lag of up to 2k - 1.)
 * Run also under PAPC_ARRIVAL_FAULT=random: orders change, the choice is
 * still agreed.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "papcoll.h"

static int rank, size, failures;
static char where[128];

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            failures++;                                                       \
            fprintf(stderr, "FAIL rank %d (%s): ", rank, where);              \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
        }                                                                     \
    } while (0)

/* The call a rank is in (for a hang's message): the phase, the iteration
 * and what the plain call ran last; written before each call. */
static char in_call[256];

static void on_alarm(int sig) {
    (void)sig;
    static const char msg[] = "FAIL: HANG in test_arrival_select, in ";
    ssize_t w = write(2, msg, sizeof msg - 1);
    w = write(2, in_call, strnlen(in_call, sizeof in_call));
    w = write(2, "\n", 1);
    (void)w;
    _exit(1);
}

static void sleep_ms(double ms) {
    struct timespec ts = {(time_t)(ms / 1000),
                          (long)((ms - 1000 * (long)(ms / 1000)) * 1e6)};
    nanosleep(&ts, NULL);
}

static int is_aware(papc_collective coll, const char *name) {
    for (int i = 0; i < papc_algorithm_count(coll); i++) {
        const papc_algorithm_info *info = papc_algorithm_get(coll, i);
        if (info && strcmp(info->name, name) == 0)
            return (info->flags & PAPC_FLAG_ARRIVAL_AWARE) != 0;
    }
    return 0;
}

/* Every rank ran the same algorithm in this call. */
static void check_agreed(papc_collective coll) {
    char mine[64] = "", all[64 * 64];
    const char *a = papc_last_algorithm(coll);
    snprintf(mine, sizeof mine, "%s", a ? a : "(none)");
    MPI_Allgather(mine, 64, MPI_CHAR, all, 64, MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 0; r < size && r < 64; r++)
        CHECK(strcmp(all + 64 * r, mine) == 0, "rank %d ran %s, rank %d %s",
              r, all + 64 * r, rank, mine);
}

/* Every rank's plain call was watched alike in this call; returns it. */
static int check_watched_agreed(papc_collective coll) {
    int mine = papc_last_watched(coll), lo = 0, hi = 0;
    MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == hi, "watched on some ranks only (this rank %d)", mine);
    return mine;
}

/* Every rank's plain call reused a pick alike (papc_last_pick_reused);
 * a reused pick runs the row the previous call ran (prev: its algorithm,
 * NULL when unknown), the view being the same.  Returns it. */
static int check_reused(papc_collective coll, const char *prev) {
    int mine = papc_last_pick_reused(coll), lo = 0, hi = 0;
    MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == hi, "a pick reused on some ranks only (this rank %d)", mine);
    const char *alg = papc_last_algorithm(coll);
    CHECK(!mine || !prev || (alg && !strcmp(alg, prev)), "a reused pick ran "
          "%s after %s from the same view", alg ? alg : "(none)", prev);
    return mine;
}

/* One call of coll on n ints; compares with native; returns whether an
 * arrival-aware row ran. */
static int one_call(papc_collective coll, int n, int root, int iter) {
    const char *last = papc_last_algorithm(coll);
    snprintf(in_call, sizeof in_call, "rank %d: %s, iteration %d, the "
             "plain call's previous row %s", rank, where, iter,
             last ? last : "none");
    int *in = malloc((size_t)n * (size_t)size * sizeof *in);
    int *out = calloc((size_t)n * (size_t)size, sizeof *out);
    int *ref = calloc((size_t)n * (size_t)size, sizeof *ref);
    for (int i = 0; i < n * size; i++) in[i] = (rank + 1) * 1000 + i + iter;
    int rc = MPI_SUCCESS;
    switch (coll) {
    case PAPC_GATHER:
        rc = papc_gather(in, n, MPI_INT, out, n, MPI_INT, root,
                         MPI_COMM_WORLD);
        MPI_Gather(in, n, MPI_INT, ref, n, MPI_INT, root, MPI_COMM_WORLD);
        break;
    case PAPC_SCATTER:
        rc = papc_scatter(in, n, MPI_INT, out, n, MPI_INT, root,
                          MPI_COMM_WORLD);
        MPI_Scatter(in, n, MPI_INT, ref, n, MPI_INT, root, MPI_COMM_WORLD);
        break;
    case PAPC_REDUCE:
        rc = papc_reduce(in, out, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        MPI_Reduce(in, ref, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        break;
    default:
        rc = papc_allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(in, ref, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        break;
    }
    CHECK(rc == MPI_SUCCESS, "call failed: %s", papc_strerror(rc));
    int significant = coll == PAPC_ALLREDUCE || coll == PAPC_SCATTER ||
                      rank == root;
    size_t len = coll == PAPC_GATHER ? (size_t)n * (size_t)size : (size_t)n;
    if (significant)
        CHECK(memcmp(out, ref, len * sizeof *out) == 0,
              "result differs from native");
    check_agreed(coll);
    const char *a = papc_last_algorithm(coll);
    free(in);
    free(out);
    free(ref);
    return a && is_aware(coll, a);
}

/* iters instrumented iterations with rank `late` late by late_ms; returns
 * how many ran an arrival-aware row. */
static int loop(papc_collective coll, int n, int root, int late,
                double late_ms, int iters) {
    int aware = 0;
    for (int it = 0; it < iters; it++) {
        /* The late rank's work is longer before and after its progress
         * point alike, so its report predicts its arrival. */
        double work = 5 + (rank == late ? late_ms / 2 : 0);
        papc_processing_start();
        sleep_ms(work);
        papc_progress(0.5);
        sleep_ms(work);
        aware += one_call(coll, n, root, it);
    }
    return aware;
}

/* The fields of a 1 Gbit/s Ethernet cluster's profile (α 50 µs,
 * β 8 ns/B, no per-algorithm fits), without the closing brace. */
static void write_profile_fields(FILE *f) {
    fprintf(f, "{\"papcoll_profile\": 1, \"papcoll_version\": \"test\",\n"
               " \"machine\": \"test\", \"mpi_library\": \"test\",\n"
               " \"date\": \"2026-11-26T00:00:00Z\", \"p_range\": [1, 64],\n"
               " \"eager_limit\": 65536,\n"
               " \"p2p\": {\"alpha\": 5e-5, \"beta\": 8e-9},\n"
               " \"gamma\": {\"2\": 1.0},\n"
               " \"gamma_op\": {\"float\": 2.5e-10, \"int\": 2.5e-10, "
               "\"other\": 1e-9},\n"
               " \"copy\": 1e-10,\n \"algorithms\": []");
}

/* A profile of a 1 Gbit/s Ethernet cluster (α 50 µs, β 8 ns/B, every row
 * at the ping-pong parameters): the predictions, hence the choice, then
 * do not depend on this machine's load; only the offsets come from the
 * run. */
static void load_cluster_profile(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/arrival-select-profile.json", dir);
    if (rank == 0) {
        FILE *f = fopen(path, "w");
        if (!f) { perror(path); MPI_Abort(MPI_COMM_WORLD, 2); }
        write_profile_fields(f);
        fprintf(f, "}\n");
        fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int rc = papc_profile_load(path);
    CHECK(rc == MPI_SUCCESS, "profile: %s", papc_strerror(rc));
    /* nobody rewrites the file while another rank still reads it */
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The cluster profile of load_cluster_profile plus an "arrival" section
 * with, for each arrival-aware row of coll named in `only` (NULL: all),
 * a = c = 50; loaded by every rank, or by rank 0 alone (`alone`; the
 * others load the cluster profile itself).  By size (`sized`, calls of
 * `bytes`): 1, the penalty for a byte range that holds the call and a
 * neutral correction (a = c = 1) for every size; 2, the penalty for every
 * size and a neutral one for a range that does not hold the call. */
static void load_penalising_profile(const char *dir, papc_collective coll,
                                    const char *only, int alone, int sized,
                                    double bytes) {
    char path[512];
    snprintf(path, sizeof path, "%s/arrival-penalise-profile.json", dir);
    if (rank == 0) {
        FILE *f = fopen(path, "w");
        if (!f) { perror(path); MPI_Abort(MPI_COMM_WORLD, 2); }
        write_profile_fields(f);
        fprintf(f, ",\n \"arrival\": [");
        const char *sep = "";
        for (int i = 0; i < papc_algorithm_count(coll); i++) {
            const papc_algorithm_info *info = papc_algorithm_get(coll, i);
            if (!(info->flags & PAPC_FLAG_ARRIVAL_AWARE) ||
                (only && strcmp(only, info->name)))
                continue;
            const char *cn = papc_collective_name(coll);
            double ka = sized == 1 ? 1 : 50;
            fprintf(f, "%s\n  {\"collective\": \"%s\", \"name\": \"%s\", "
                       "\"a\": %g, \"c\": %g, \"rel\": 0, \"points\": 8}",
                    sep, cn, info->name, ka, ka);
            sep = ",";
            if (sized)
                fprintf(f, ",\n  {\"collective\": \"%s\", \"name\": \"%s\", "
                           "\"a\": %g, \"c\": %g, \"rel\": 0, \"points\": 8, "
                           "\"bytes_min\": %.0f, \"bytes_max\": %.0f}",
                        cn, info->name, sized == 1 ? 50.0 : 1.0,
                        sized == 1 ? 50.0 : 1.0,
                        sized == 1 ? bytes / 2 : 4 * bytes,
                        sized == 1 ? 2 * bytes : 64 * bytes);
        }
        fprintf(f, "]}\n");
        fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* every rank loads once (papc_profile_load: "on every rank alike");
     * alone: the others load the cluster profile without the section */
    if (alone && rank != 0)
        snprintf(path, sizeof path, "%s/arrival-select-profile.json", dir);
    int rc = papc_profile_load(path);
    CHECK(rc == MPI_SUCCESS, "profile: %s", papc_strerror(rc));
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Late-rank loop that also counts how often `name` ran. */
static int loop_counting(papc_collective coll, int n, int root, int late,
                         double late_ms, int iters, const char *name,
                         int *named) {
    int aware = 0;
    *named = 0;
    for (int it = 0; it < iters; it++) {
        aware += loop(coll, n, root, late, late_ms, 1);
        const char *a = papc_last_algorithm(coll);
        *named += a && name && strcmp(a, name) == 0;
    }
    return aware;
}

/* MODE penalise, for one collective (failures counted by CHECK). */
static void penalise(const char *dir, papc_collective coll, const char *cname,
                     int n, int root, int late, double late_ms) {
    const int iters = 8;
    char top_name[64] = "";
    int counts[64] = {0};
    load_cluster_profile(dir);
    snprintf(where, sizeof where, "%s late, cluster profile", cname);
    loop(coll, n, root, late, late_ms, 2); /* the site learns the offsets */
    int aware = 0;
    for (int it = 0; it < iters; it++) {
        aware += loop(coll, n, root, late, late_ms, 1);
        const char *a = papc_last_algorithm(coll);
        for (int i = 0; a && i < papc_algorithm_count(coll) && i < 64; i++)
            if (!strcmp(papc_algorithm_get(coll, i)->name, a)) counts[i]++;
    }
    /* X: the arrival-aware row run most (the profile's corrections are of
     * arrival-aware rows; the online refinement may have tried classic
     * rows more often), else the row run most */
    int top = 0, top_aware = -1;
    for (int i = 1; i < papc_algorithm_count(coll) && i < 64; i++)
        if (counts[i] > counts[top]) top = i;
    for (int i = 0; i < papc_algorithm_count(coll) && i < 64; i++)
        if (counts[i] > 0 &&
            (papc_algorithm_get(coll, i)->flags & PAPC_FLAG_ARRIVAL_AWARE) &&
            (top_aware < 0 || counts[i] > counts[top_aware]))
            top_aware = i;
    if (top_aware >= 0) top = top_aware;
    snprintf(top_name, sizeof top_name, "%s",
             papc_algorithm_get(coll, top)->name);
    top_aware = is_aware(coll, top_name);

    /* X, the row run most, made 50 x dearer: an arrival-aware X never
     * runs again; a classic X may still run where a call has no view of
     * the offsets (it is then the size-based row), at most a quarter */
    snprintf(where, sizeof where, "%s late, %s penalised", cname, top_name);
    load_penalising_profile(dir, coll, top_name, 0, 0, 0);
    int named = 0;
    int aware_x = loop_counting(coll, n, root, late, late_ms, iters,
                                top_name, &named);
    if (top_aware)
        CHECK(named == 0, "%s ran %d of %d times though its correction "
              "makes it cost 50 x its model", top_name, named, iters);
    else
        CHECK(named <= iters / 4 && named < counts[top], "%s ran %d of %d "
              "times (%d before) though its correction makes it cost 50 x "
              "its model", top_name, named, iters, counts[top]);

    /* by size: the correction whose range holds the call wins over the
     * one for every size, and one whose range does not is not used */
    if (top_aware) {
        for (int sized = 1; sized <= 2; sized++) {
            snprintf(where, sizeof where, "%s late, %s penalised %s", cname,
                     top_name, sized == 1 ? "for the call's size"
                                          : "for every size");
            load_penalising_profile(dir, coll, top_name, 0, sized,
                                    4.0 * n);
            int ran = 0;
            loop_counting(coll, n, root, late, late_ms, iters, top_name,
                          &ran);
            CHECK(ran == 0, "%s ran %d of %d times though its correction "
                  "for this size makes it cost 50 x its model", top_name,
                  ran, iters);
        }
    }

    snprintf(where, sizeof where, "%s late, every arrival-aware row "
             "penalised", cname);
    load_penalising_profile(dir, coll, NULL, 0, 0, 0);
    int named_x = named;
    int aware_all = loop_counting(coll, n, root, late, late_ms, iters, NULL,
                                  &named);
    CHECK(aware_all == 0, "%d calls ran an arrival-aware row though every "
          "one is penalised", aware_all);

    /* rank 0 alone penalises: the profiles differ, none is agreed, no
     * correction applies; every rank must still run the same row
     * (check_agreed in every call) */
    snprintf(where, sizeof where, "%s late, profiles differ", cname);
    load_penalising_profile(dir, coll, NULL, 1, 0, 0);
    loop(coll, n, root, late, late_ms, iters);
    load_cluster_profile(dir);
    if (rank == 0)
        printf("%s: cluster profile: %d/%d arrival-aware, most %s %d; %s "
               "penalised: it ran %d, %d arrival-aware; every "
               "arrival-aware row penalised: %d arrival-aware\n", cname,
               aware, iters, top_name, counts[top], top_name, named_x,
               aware_x, aware_all);
}

/* MODE learn (header comment). */
static void learn_mode(void) {
    papc_collective coll = PAPC_GATHER;
    int root = size > 2 ? 1 : 0, late = (root + 1) % size, n = 65536;
    const int iters = 14;
    int counts[64] = {0};
    snprintf(where, sizeof where, "gather late, learning");
    loop(coll, n, root, late, 20, 3);  /* the site learns the offsets */
    for (int it = 0; it < 8; it++) {
        loop(coll, n, root, late, 20, 1);
        const char *a = papc_last_algorithm(coll);
        for (int i = 0; a && i < papc_algorithm_count(coll) && i < 64; i++)
            if (!strcmp(papc_algorithm_get(coll, i)->name, a)) counts[i]++;
    }
    int top = 0;
    for (int i = 1; i < papc_algorithm_count(coll) && i < 64; i++)
        if (counts[i] > counts[top]) top = i;
    const char *x = papc_algorithm_get(coll, top)->name;
    char knob[96];
    snprintf(knob, sizeof knob, "%s:60", x);
    setenv("PAPC_LEARN_TEST_SLOW", knob, 1);
    snprintf(where, sizeof where, "gather late, %s 60 ms slower", x);
    int ran = 0, ran_late = 0;
    for (int it = 0; it < iters; it++) {
        loop(coll, n, root, late, 20, 1);
        const char *a = papc_last_algorithm(coll);
        int is_x = a && !strcmp(a, x);
        ran += is_x;
        ran_late += is_x && it >= iters - 6;
    }
    unsetenv("PAPC_LEARN_TEST_SLOW");
    const char *lv = getenv("PAPC_ARRIVAL_LEARN");
    int on = lv && !strcmp(lv, "1");
    if (on)
        CHECK(ran <= 5, "%s ran %d of %d calls (%d of the last 6) though it "
              "took 60 ms more each time", x, ran, iters, ran_late);
    else if (counts[top] >= 6)  /* X keeps running: overall, or still at
           * the end (learning stops it within 3 calls).  Only where X
           * clearly won the 8 calls before: in a near-tie with another row
           * (4 or 5 of 8) a loaded machine's drift alone moved all 14
           * calls to the other row (0 of 14, about 1 run in 25). */
        CHECK(ran > 5 || ran_late >= 3, "with learning off %s ran only %d "
              "of %d calls (%d of the last 6): the models do not see the "
              "slowdown", x, ran, iters, ran_late);
    if (rank == 0)
        printf("learn %s: %s ran %d of 8, slowed: %d of %d (last 6: %d)%s\n",
               on ? "on" : "off", x, counts[top], ran, iters, ran_late,
               !on && counts[top] < 6 ? " (a near-tie: not judged)" : "");
}

/* MODE watch (header comment). */
static void watch_mode(void) {
    papc_collective coll = PAPC_GATHER;
    int root = size > 2 ? 1 : 0, late = (root + 1) % size, n = 65536;
    const char *kv = getenv("PAPC_ARRIVAL_WATCH_EVERY");
    int k = kv && *kv ? atoi(kv) : 4;
    if (k < 1) k = 1;
    const int balanced = 24, lateloop = 2 * k + 4;
    char seen[64] = "";
    int unwatched = 0, run = 0, longest = 0, reused = 0;
    char prev[64] = "";
    snprintf(where, sizeof where, "gather balanced, watch every %d", k);
    for (int it = 0; it < balanced; it++) {
        loop(coll, n, root, late, 0, 1);
        int w = check_watched_agreed(coll);
        reused += check_reused(coll, it ? prev : NULL);
        snprintf(prev, sizeof prev, "%s", papc_last_algorithm(coll));
        if (it < (int)sizeof seen - 1) seen[it] = w ? 'W' : '.';
        unwatched += !w;
        run = w ? 0 : run + 1;
        if (run > longest) longest = run;
    }
    if (k == 1)
        CHECK(unwatched == 0, "%d of %d calls unwatched with "
              "PAPC_ARRIVAL_WATCH_EVERY=1 (%s)", unwatched, balanced, seen);
    else
        CHECK(unwatched >= balanced / 4, "only %d of %d balanced calls "
              "unwatched (%s)", unwatched, balanced, seen);
    CHECK(longest <= k - 1, "%d calls in a row unwatched, at most %d "
          "allowed (%s)", longest, k - 1, seen);
    /* An unwatched call brings no view: the call after it chooses from
     * the view it had (choose.c, cheapest_for_view). */
    if (k > 1)
        CHECK(reused > 0, "no pick reused in %d balanced calls with %d "
              "unwatched (%s)", balanced, unwatched, seen);

    snprintf(where, sizeof where, "gather rank %d late 20 ms, watch every %d",
             late, k);
    char seen_late[160] = "";
    int first = -1, aware_at = -1, tail_unwatched = 0, after_first = 0;
    int unsettled = 0, reused_late = 0, aware_unwatched = 0;
    const char *watched_alg = NULL;
    run = longest = 0;
    for (int it = 0; it < lateloop && it < (int)sizeof seen_late - 1; it++) {
        int aware = loop(coll, n, root, late, 20, 1);
        int w = check_watched_agreed(coll);
        reused_late += check_reused(coll, prev);
        const char *alg = papc_last_algorithm(coll);
        snprintf(prev, sizeof prev, "%s", alg ? alg : "");
        seen_late[it] = aware ? (w ? 'A' : 'a') : w ? 'W' : '.';
        if (w && first < 0) first = it;
        if (aware && aware_at < 0) aware_at = it;
        run = w ? 0 : run + 1;
        if (run > longest) longest = run;
        tail_unwatched += !w && it >= lateloop - 4;
        after_first += !w && first >= 0;
        /* Unwatched once the late rank is seen (by the last 4 calls) only
         * where the site is settled: the picks from the latest two views,
         * the latest watched call's row and this one's, the same row (a
         * classic one runs without an epoch, an arrival-aware one in its
         * epoch without a view). */
        if (!w && it >= lateloop - 4 &&
            (!alg || !watched_alg || strcmp(alg, watched_alg)))
            unsettled++;
        aware_unwatched += aware && !w;
        if (w) watched_alg = alg;
    }
    CHECK(first >= 0 && first < k, "first watched call of the late loop: "
          "%d (%s)", first, seen_late);
    CHECK(longest <= k - 1, "%d late calls in a row unwatched (%s)", longest,
          seen_late);
    /* The first watched call's view may still have the late rank on time
     * (decided before its report came): one more quiet stretch, at most
     * k - 1 calls; after that the late rank is seen and every call is
     * watched -- unless the same classic row wins on two views in a row
     * (a settled site, watched every k-th call like a quiet one). */
    CHECK(unsettled == 0, "%d of the late loop's last 4 calls ran unwatched "
          "though the site was not settled (%s)", unsettled, seen_late);
    /* At P = 4 the test's cluster profile prices an arrival-aware row
     * first (with k = 1 from late call 3 on); once two views chose it the
     * site is settled and only every k-th call takes a view (choose.c,
     * aware_views), so with k = 1 every call is watched; at P = 5 a
     * classic row wins, and settles. */
    if (size == 4) {
        CHECK(aware_at >= 0 && aware_at < 2 * k + 3, "first arrival-aware "
              "row at late call %d (%s)", aware_at, seen_late);
        if (k == 1)
            CHECK(tail_unwatched == 0, "%d of the late loop's last 4 calls "
                  "unwatched with k = 1 (%s)", tail_unwatched, seen_late);
    }
    CHECK(k > 1 || aware_unwatched == 0, "%d arrival-aware calls without a "
          "view with k = 1 (%s)", aware_unwatched, seen_late);
    if (size == 5 && k > 1) {
        CHECK(after_first >= k - 1, "only %d late calls unwatched once the "
              "late rank was seen: a classic row's site does not settle (%s)",
              after_first, seen_late);
        CHECK(reused_late > 0, "no pick reused at the settled site (%s)",
              seen_late);
    }
    if (rank == 0)
        printf("watch every %d: balanced %s (%d of %d unwatched, %d picks "
               "reused), late %s (%d reused)\n", k, seen, unwatched,
               balanced, reused, seen_late, reused_late);
}

/* Every rank's failures summed; the monitor (if started) and MPI ended;
 * "ok" or "FAILED" on rank 0; the exit code. */
static int finish(int monitor) {
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (monitor) papc_monitor_finalize();
    MPI_Finalize();
    if (rank == 0) printf("%s\n", total ? "FAILED" : "ok");
    return total ? 1 : 0;
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    signal(SIGALRM, on_alarm);
    alarm(100);
    const char *mode = argc > 1 ? argv[1] : "switch";
    load_cluster_profile(argc > 2 ? argv[2] : ".");
    if (strcmp(mode, "penalise") == 0) {
        papc_monitor_init(MPI_COMM_WORLD);
        int root = size > 2 ? 1 : 0;
        penalise(argc > 2 ? argv[2] : ".", PAPC_GATHER, "gather", 65536,
                 root, (root + 1) % size, 20);
        penalise(argc > 2 ? argv[2] : ".", PAPC_ALLREDUCE, "allreduce",
                 262144, 0, 1 % size, 10);
        return finish(1);
    }
    if (strcmp(mode, "watch") == 0) {
        papc_monitor_init(MPI_COMM_WORLD);
        watch_mode();
        return finish(1);
    }
    if (strcmp(mode, "learn") == 0) {
        papc_monitor_init(MPI_COMM_WORLD);
        learn_mode();
        return finish(1);
    }
    int monitor = strcmp(mode, "nomonitor") != 0;
    if (monitor) papc_monitor_init(MPI_COMM_WORLD);
    if (strcmp(mode, "off") == 0) papc_set_arrival_selection(0);
    int expect_switch = strcmp(mode, "switch") == 0 && size > 1;
    static const papc_collective colls[] = {PAPC_GATHER, PAPC_SCATTER,
                                            PAPC_REDUCE, PAPC_ALLREDUCE};
    static const char *names[] = {"gather", "scatter", "reduce",
                                  "allreduce"};
    const int iters = 8;
    int sum0 = 0, sum1 = 0;
    for (int k = 0; k < 4; k++) {
        int all = colls[k] == PAPC_ALLREDUCE;
        int root = size > 2 && !all ? 1 : 0;
        int late = all ? 1 % size : (root + 1) % size;
        int n = all ? 262144 : 65536;  /* 1 MiB vector, 256 KiB blocks */
        double late_ms = all ? 10 : 20;
        snprintf(where, sizeof where, "%s balanced", names[k]);
        int aware0 = loop(colls[k], n, root, late, 0, iters);
        sum0 += aware0;
        if (strcmp(mode, "switch") != 0)
            CHECK(aware0 == 0, "%d balanced calls ran an arrival-aware row "
                  "with the choice off", aware0);
        snprintf(where, sizeof where, "%s rank %d late %g ms", names[k],
                 late, late_ms);
        /* 4 more: a quiet site sees the late rank up to
         * PAPC_ARRIVAL_WATCH_EVERY - 1 calls late (mode watch) */
        int aware1 = loop(colls[k], n, root, late, late_ms, iters + 4);
        sum1 += aware1;
        if (!expect_switch)
            CHECK(aware1 == 0, "%d calls ran an arrival-aware row with the "
                  "choice off", aware1);
        if (rank == 0)
            printf("%s: balanced %d/%d arrival-aware, late %d/%d (last %s)\n",
                   names[k], aware0, iters, aware1, iters + 4,
                   papc_last_algorithm(colls[k]));
    }
    snprintf(where, sizeof where, "all collectives");
    if (expect_switch)
        CHECK(sum1 >= iters && sum1 > sum0, "%d of %d calls with a late rank "
              "and %d of %d balanced ones ran an arrival-aware row", sum1,
              4 * (iters + 4), sum0, 4 * iters);
    return finish(monitor);
}
