/* test_pmpi.c — the drop-in layer (issue 13, items 2 and 3), run under
 * LD_PRELOAD=libpapcoll-pmpi.so (papc-run).  An unmodified-looking
 * program: it calls MPI_Gather, MPI_Scatter, MPI_Bcast, MPI_Reduce,
 * MPI_Allreduce, MPI_Gatherv and MPI_Scatterv by their MPI_ names and
 * compares every result with the same call by its PMPI_ name (native MPI),
 * bit for bit (integers).  It forces every registered algorithm of every
 * collective in turn through PAPC_<COLL>_ALGORITHM (the variable's text is
 * changed in place: papcoll reads it at every call), arrival-aware ones
 * included: they start the monitor, whose own collectives must not come
 * back through the layer (a recursion overflowed the stack before).  After
 * each call papc_last_algorithm() must name the forced algorithm: the call
 * really went through papcoll.
 *
 * Also: MPI_Query_thread gives the program the level it asked for (the
 * layer asked MPI for MPI_THREAD_MULTIPLE); intercommunicators go to MPI;
 * a bad root gives MPI's own MPI_ERR_ROOT through MPI_ERRORS_RETURN.
 * Exits 1 on the first mismatch (every rank prints what it saw). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <papcoll.h>

static int rank, size, failures;
static char env_text[PAPC_NUM_COLLECTIVES][128];

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "rank %d: FAIL %s:%d: ", rank, __FILE__,          \
                    __LINE__);                                                \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                            \
            failures++;                                                       \
        }                                                                     \
    } while (0)

static void env_name(papc_collective coll, char *buf, size_t n) {
    const char *c = papc_collective_name(coll);
    size_t k = (size_t)snprintf(buf, n, "PAPC_");
    for (; *c && k + 12 < n; c++) buf[k++] = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
    snprintf(buf + k, n - k, "_ALGORITHM");
}

/* Sets PAPC_<COLL>_ALGORITHM=name ("" = papcoll's choice) in place. */
static void force(papc_collective coll, const char *name) {
    char var[64];
    env_name(coll, var, sizeof var);
    snprintf(env_text[coll], sizeof env_text[coll], "%s=%s", var, name);
}

static void fill(int *buf, int n, int seed) {
    for (int i = 0; i < n; i++) buf[i] = seed * 100003 + i * 7 + 1;
}

static const char *forced; /* the algorithm expected, NULL: any */
static const char *what;   /* "gather root 2 count 7" */

static void expect_alg(papc_collective coll) {
    const char *last = papc_last_algorithm(coll);
    if (forced)
        CHECK(last && !strcmp(last, forced),
              "%s: papcoll ran %s, forced %s (did the call go through the "
              "layer?)", what, last ? last : "nothing", forced);
}

static void compare(const int *a, const int *b, int n) {
    for (int i = 0; i < n; i++)
        if (a[i] != b[i]) {
            CHECK(0, "%s [%s]: element %d: layer %d, native %d", what,
                  forced ? forced : "default", i, a[i], b[i]);
            return;
        }
}

static char what_buf[160];
#define WHAT(...) (snprintf(what_buf, sizeof what_buf, __VA_ARGS__), what = what_buf)

static void run_rooted(papc_collective coll, int root, int count) {
    int P = size, n = count * P;
    int *s = malloc(sizeof(int) * (size_t)(n + 1));
    int *a = malloc(sizeof(int) * (size_t)(n + 1));
    int *b = malloc(sizeof(int) * (size_t)(n + 1));
    int rc1 = MPI_SUCCESS, rc2 = MPI_SUCCESS;
    for (int inplace = 0; inplace < 2; inplace++) {
        if (inplace && (coll == PAPC_BCAST || coll == PAPC_ALLREDUCE)) break;
        WHAT("%s root %d count %d%s", papc_collective_name(coll), root, count,
             inplace ? " in place" : "");
        int ip = inplace && rank == root;
        switch (coll) {
        case PAPC_GATHER:
            fill(s, count, rank);
            fill(a, n, -1); fill(b, n, -1);
            if (ip) { memcpy(a + rank * count, s, sizeof(int) * (size_t)count);
                      memcpy(b + rank * count, s, sizeof(int) * (size_t)count); }
            rc1 = MPI_Gather(ip ? MPI_IN_PLACE : s, count, MPI_INT, a, count,
                             MPI_INT, root, MPI_COMM_WORLD);
            if (count) expect_alg(coll);
            rc2 = PMPI_Gather(ip ? MPI_IN_PLACE : s, count, MPI_INT, b, count,
                              MPI_INT, root, MPI_COMM_WORLD);
            if (rank == root) compare(a, b, n);
            break;
        case PAPC_SCATTER:
            fill(s, n, root + 5);
            fill(a, count, -1); fill(b, count, -1);
            rc1 = MPI_Scatter(s, count, MPI_INT, ip ? MPI_IN_PLACE : a, count,
                              MPI_INT, root, MPI_COMM_WORLD);
            if (count) expect_alg(coll);
            rc2 = PMPI_Scatter(s, count, MPI_INT, ip ? MPI_IN_PLACE : b, count,
                               MPI_INT, root, MPI_COMM_WORLD);
            if (!ip) compare(a, b, count);
            break;
        case PAPC_BCAST:
            if (rank == root) { fill(a, count, 9); fill(b, count, 9); }
            else { fill(a, count, -1); fill(b, count, -1); }
            rc1 = MPI_Bcast(a, count, MPI_INT, root, MPI_COMM_WORLD);
            if (count) expect_alg(coll);
            rc2 = PMPI_Bcast(b, count, MPI_INT, root, MPI_COMM_WORLD);
            compare(a, b, count);
            break;
        case PAPC_REDUCE:
            fill(s, count, rank + 3);
            memcpy(a, s, sizeof(int) * (size_t)count);
            memcpy(b, s, sizeof(int) * (size_t)count);
            rc1 = MPI_Reduce(ip ? MPI_IN_PLACE : s, a, count, MPI_INT,
                             MPI_SUM, root, MPI_COMM_WORLD);
            if (count) expect_alg(coll);
            rc2 = PMPI_Reduce(ip ? MPI_IN_PLACE : s, b, count, MPI_INT,
                              MPI_SUM, root, MPI_COMM_WORLD);
            if (rank == root) compare(a, b, count);
            break;
        case PAPC_ALLREDUCE:
            fill(s, count, rank + 11);
            rc1 = MPI_Allreduce(s, a, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            if (count) expect_alg(coll);
            rc2 = PMPI_Allreduce(s, b, count, MPI_INT, MPI_SUM,
                                 MPI_COMM_WORLD);
            compare(a, b, count);
            /* and in place */
            WHAT("allreduce count %d in place", count);
            fill(a, count, rank + 13); fill(b, count, rank + 13);
            rc1 |= MPI_Allreduce(MPI_IN_PLACE, a, count, MPI_INT, MPI_MAX,
                                 MPI_COMM_WORLD);
            if (count) expect_alg(coll);
            rc2 |= PMPI_Allreduce(MPI_IN_PLACE, b, count, MPI_INT, MPI_MAX,
                                  MPI_COMM_WORLD);
            compare(a, b, count);
            break;
        default: {
            /* v variants: rank i's block (i + count) % 5 + count/2 ints at
             * gapped displacements, in reverse rank order */
            int *cnt = malloc(sizeof(int) * (size_t)P);
            int *dsp = malloc(sizeof(int) * (size_t)P);
            int total = 0;
            for (int i = P - 1; i >= 0; i--) {
                cnt[i] = (i + count) % 5 + count / 2;
                dsp[i] = total + 1;
                total += cnt[i] + 2;
            }
            int *big1 = malloc(sizeof(int) * (size_t)(total + 1));
            int *big2 = malloc(sizeof(int) * (size_t)(total + 1));
            int *mine = malloc(sizeof(int) * (size_t)(cnt[rank] + 1));
            int *mine2 = malloc(sizeof(int) * (size_t)(cnt[rank] + 1));
            if (coll == PAPC_GATHERV) {
                fill(mine, cnt[rank], rank + 17);
                fill(big1, total, -1); fill(big2, total, -1);
                if (ip) { memcpy(big1 + dsp[rank], mine, sizeof(int) * (size_t)cnt[rank]);
                          memcpy(big2 + dsp[rank], mine, sizeof(int) * (size_t)cnt[rank]); }
                rc1 = MPI_Gatherv(ip ? MPI_IN_PLACE : mine, cnt[rank], MPI_INT,
                                  big1, cnt, dsp, MPI_INT, root,
                                  MPI_COMM_WORLD);
                expect_alg(coll);
                rc2 = PMPI_Gatherv(ip ? MPI_IN_PLACE : mine, cnt[rank],
                                   MPI_INT, big2, cnt, dsp, MPI_INT, root,
                                   MPI_COMM_WORLD);
                if (rank == root) compare(big1, big2, total);
            } else {
                fill(big1, total, root + 19);
                fill(mine, cnt[rank], -1); fill(mine2, cnt[rank], -1);
                rc1 = MPI_Scatterv(big1, cnt, dsp, MPI_INT,
                                   ip ? MPI_IN_PLACE : mine, cnt[rank],
                                   MPI_INT, root, MPI_COMM_WORLD);
                expect_alg(coll);
                rc2 = PMPI_Scatterv(big1, cnt, dsp, MPI_INT,
                                    ip ? MPI_IN_PLACE : mine2, cnt[rank],
                                    MPI_INT, root, MPI_COMM_WORLD);
                if (!ip) compare(mine, mine2, cnt[rank]);
            }
            free(cnt); free(dsp); free(big1); free(big2); free(mine);
            free(mine2);
        }
        }
        CHECK(rc1 == MPI_SUCCESS && rc2 == MPI_SUCCESS,
              "%s: rc layer %d native %d", what, rc1, rc2);
    }
    free(s); free(a); free(b);
}

static void run_collective(papc_collective coll, const char *alg) {
    static const int counts[] = {1, 7, 0, 5000};
    forced = alg;
    force(coll, alg ? alg : "");
    int roots[3] = {0, size - 1, size / 2};
    int nroots = coll == PAPC_ALLREDUCE ? 1 : 3;
    for (int r = 0; r < nroots; r++) {
        if (r > 0 && (roots[r] == roots[0] || roots[r] == roots[r - 1]))
            continue;
        for (size_t k = 0; k < sizeof counts / sizeof *counts; k++)
            run_rooted(coll, roots[r], counts[k]);
    }
    force(coll, "");
}

/* Intercommunicators are not papcoll's: the layer hands them to MPI. */
static void run_intercomm(void) {
    if (size < 2) return;
    MPI_Comm half, inter;
    int color = rank % 2, v = -1, sum = -1;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 99, &inter);
    int hr;
    MPI_Comm_rank(half, &hr);
    if (color == 0) {
        v = 42;
        int rc = MPI_Bcast(&v, 1, MPI_INT, hr == 0 ? MPI_ROOT : MPI_PROC_NULL,
                           inter);
        CHECK(rc == MPI_SUCCESS, "intercomm bcast (root side): rc %d", rc);
    } else {
        int rc = MPI_Bcast(&v, 1, MPI_INT, 0, inter);
        CHECK(rc == MPI_SUCCESS && v == 42,
              "intercomm bcast: rc %d, got %d, expected 42", rc, v);
    }
    /* allreduce over an intercomm: the sum of the remote group's values */
    int one = color + 1, remote = 0;
    MPI_Comm_remote_size(inter, &remote);
    int rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter);
    CHECK(rc == MPI_SUCCESS && sum == remote * (2 - color),
          "intercomm allreduce: rc %d, got %d, expected %d", rc, sum,
          remote * (2 - color));
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

/* A bad root: papcoll refuses it before starting, MPI answers. */
static void run_errors(void) {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int v = 1, cls = MPI_SUCCESS;
    int rc = MPI_Bcast(&v, 1, MPI_INT, size + 3, c);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ROOT, "bcast with root %d: error class %d, "
          "expected MPI_ERR_ROOT (%d)", size + 3, cls, MPI_ERR_ROOT);
    CHECK(v == 1, "bcast with a bad root changed the buffer");
    MPI_Comm_free(&c);
}

int main(int argc, char **argv) {
    /* The variables exist (empty: papcoll's choice) before MPI and the
     * monitor thread start; their text is rewritten in place later. */
    for (int c = 0; c < PAPC_NUM_COLLECTIVES; c++) {
        force((papc_collective)c, "");
        putenv(env_text[c]);
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mon = getenv("PAPC_MONITOR");
    int monitor_may_run = !(mon && !strcmp(mon, "0"));

    /* Threads: the program asked for MPI_THREAD_SINGLE (MPI_Init) and is
     * told so; MPI itself runs MPI_THREAD_MULTIPLE for the monitor. */
    int seen = -1, real = -1;
    MPI_Query_thread(&seen);
    PMPI_Query_thread(&real);
    CHECK(seen == MPI_THREAD_SINGLE, "MPI_Query_thread gave %d, the program "
          "asked for MPI_THREAD_SINGLE", seen);
    if (monitor_may_run)
        CHECK(real == MPI_THREAD_MULTIPLE, "the layer did not get "
              "MPI_THREAD_MULTIPLE from MPI (%d)", real);

    int nalgs = 0;
    for (int c = 0; c < PAPC_NUM_COLLECTIVES; c++) {
        papc_collective coll = (papc_collective)c;
        run_collective(coll, NULL);
        for (int i = 0; i < papc_algorithm_count(coll); i++) {
            const papc_algorithm_info *a = papc_algorithm_get(coll, i);
            run_collective(coll, a->name);
            nalgs++;
        }
        forced = NULL;
        int bad = failures, any = 0;
        PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (any) break;
    }
    forced = NULL;
    if (monitor_may_run)
        CHECK(papc_monitor_running(), "the arrival-aware algorithms ran but "
              "no monitor thread started");
    else
        CHECK(!papc_monitor_running(), "PAPC_MONITOR=0 but a monitor runs");
    run_intercomm();
    run_errors();

    int any = 0;
    PMPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_pmpi: P=%d, %d algorithms through the layer, thread "
               "level seen %d (MPI: %d), monitor %s: %s\n", size, nalgs, seen,
               real, papc_monitor_running() ? "running" : "off",
               any ? "FAILED" : "all equal to native");
    MPI_Finalize();
    return any ? 1 : 0;
}
