/*
 * test_select.c — the plain call's model-based choice (issue 12).
 * Usage: mpiexec -n P test_select DIR   (DIR: a writable scratch directory)
 *
 * Profiles are written here, by rank 0, with parameters that make one
 * known row the cheapest by far; the plain call must then run that row on
 * every rank (papc_last_algorithm, gathered and compared), give the native
 * result, and agree with papc_explain.  Also: no profile (the fixed rules),
 * a profile only some ranks have or a different one on one rank (every
 * rank falls back to the fixed rules, no hang), missing, truncated and
 * unknown-algorithm files (MPI_ERR_FILE naming the file, fixed rules after),
 * papc_set_selection, a non-commutative op whose cheapest row needs a
 * commutative one, and PAPC_<COLL>_ALGORITHM still forcing.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "papcoll.h"

static int rank, size, failures;
static const char *dir;
static char where[256];

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            failures++;                                                       \
            fprintf(stderr, "FAIL rank %d (%s): ", rank, where);              \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
        }                                                                     \
    } while (0)

static void on_alarm(int sig) {
    (void)sig;
    static const char msg[] = "FAIL: HANG in test_select\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(1);
}

/* ---- profiles ---- */

typedef struct row { const char *coll, *name; } row;

/* Every listed row is cheap (fast), every other row of those collectives
 * falls back to the profile's expensive ping-pong parameters. */
static void write_profile(const char *path, const row *cheap, int n,
                          const char *extra_alg) {
    if (rank != 0) return;
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(2); }
    fprintf(f, "{\"papcoll_profile\": 1, \"papcoll_version\": \"test\",\n"
               " \"machine\": \"test\", \"mpi_library\": \"test\",\n"
               " \"date\": \"2026-11-25T00:00:00Z\", \"p_range\": [1, 64],\n"
               " \"eager_limit\": 65536,\n"
               " \"p2p\": {\"alpha\": 1e-3, \"beta\": 1e-6},\n"
               " \"gamma\": {\"2\": 1.0, \"3\": 1.1, \"4\": 1.2},\n"
               " \"gamma_op\": {\"float\": 1e-10, \"int\": 1e-10, "
               "\"other\": 1e-9},\n"
               " \"copy\": 1e-10,\n \"algorithms\": [\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "  {\"collective\": \"%s\", \"name\": \"%s\", "
                   "\"alpha\": 1e-9, \"beta\": 1e-13, \"sigma\": 0, "
                   "\"rel\": 0, \"points\": 10}%s\n",
                cheap[i].coll, cheap[i].name,
                (i + 1 < n || extra_alg) ? "," : "");
    if (extra_alg)
        fprintf(f, "  {\"collective\": \"bcast\", \"name\": \"%s\", "
                   "\"alpha\": 1e-6, \"beta\": 1e-9, \"sigma\": 0, "
                   "\"rel\": 0, \"points\": 10}\n", extra_alg);
    fprintf(f, " ]}\n");
    fclose(f);
}

static void truncate_copy(const char *from, const char *to, long keep) {
    if (rank != 0) return;
    FILE *in = fopen(from, "r"), *out = fopen(to, "w");
    if (!in || !out) { perror(to); exit(2); }
    for (long i = 0; i < keep; i++) {
        int ch = fgetc(in);
        if (ch == EOF) break;
        fputc(ch, out);
    }
    fclose(in);
    fclose(out);
}

/* ---- calls ---- */

/* Runs one plain call of coll with bytes per block/vector on ints and
 * checks it against native MPI; returns the algorithm that ran. */
static const char *plain_call(papc_collective coll, int count, MPI_Op op) {
    int n = count > 0 ? count : 1;
    int *send = malloc(sizeof(int) * (size_t)n * (size_t)size);
    int *got = calloc((size_t)n * (size_t)size, sizeof(int));
    int *want = calloc((size_t)n * (size_t)size, sizeof(int));
    for (int i = 0; i < n * size; i++) send[i] = rank * 1000 + i % 97;
    int rc = MPI_SUCCESS;
    size_t bytes = sizeof(int) * (size_t)count;
    switch (coll) {
    case PAPC_GATHER:
        rc = papc_gather(send, count, MPI_INT, got, count, MPI_INT, 0,
                         MPI_COMM_WORLD);
        MPI_Gather(send, count, MPI_INT, want, count, MPI_INT, 0,
                   MPI_COMM_WORLD);
        if (rank == 0) bytes *= (size_t)size;
        else bytes = 0;
        break;
    case PAPC_SCATTER:
        rc = papc_scatter(send, count, MPI_INT, got, count, MPI_INT, 0,
                          MPI_COMM_WORLD);
        MPI_Scatter(send, count, MPI_INT, want, count, MPI_INT, 0,
                    MPI_COMM_WORLD);
        break;
    case PAPC_BCAST:
        memcpy(got, send, bytes);
        memcpy(want, send, bytes);
        rc = papc_bcast(got, count, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Bcast(want, count, MPI_INT, 0, MPI_COMM_WORLD);
        break;
    case PAPC_REDUCE:
        rc = papc_reduce(send, got, count, MPI_INT, op, 0, MPI_COMM_WORLD);
        MPI_Reduce(send, want, count, MPI_INT, op, 0, MPI_COMM_WORLD);
        if (rank != 0) bytes = 0;
        break;
    case PAPC_ALLREDUCE:
        rc = papc_allreduce(send, got, count, MPI_INT, op, MPI_COMM_WORLD);
        MPI_Allreduce(send, want, count, MPI_INT, op, MPI_COMM_WORLD);
        break;
    default: break;
    }
    CHECK(rc == MPI_SUCCESS, "%s returned %s", papc_collective_name(coll),
          papc_strerror(rc));
    CHECK(memcmp(got, want, bytes) == 0, "%s: result differs from native",
          papc_collective_name(coll));
    free(send);
    free(got);
    free(want);
    return papc_last_algorithm(coll);
}

/* Every rank ran the same algorithm (by its table index). */
static void check_same_everywhere(papc_collective coll, const char *alg) {
    int idx = -1;
    for (int i = 0; alg && i < papc_algorithm_count(coll); i++)
        if (strcmp(papc_algorithm_get(coll, i)->name, alg) == 0) idx = i;
    int lo = 0, hi = 0;
    MPI_Allreduce(&idx, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&idx, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == hi && lo >= 0, "ranks ran different %s algorithms",
          papc_collective_name(coll));
}

static void expect_alg(papc_collective coll, int count, MPI_Op op,
                       const char *want) {
    const char *got = plain_call(coll, count, op);
    /* A no-op (count 0) or P = 1 of bcast/reduce-likes: no algorithm runs. */
    if (count == 0 || (size == 1 && !got)) return;
    check_same_everywhere(coll, got);
    CHECK(got && strcmp(got, want) == 0, "%s of %d ints ran %s, want %s",
          papc_collective_name(coll), count, got ? got : "(null)", want);
}

/* The ring allreduce where b >= 2 (P - 1 - floor(log2 P)) x 16 KiB
 * (select.c's ring_pays): at P = 3 and 4 from 32 KiB, so 3000 ints run
 * Rabenseifner and 40000 the ring. */
static int ring_pays(size_t b) {
    int lg = 0;
    while ((2 << lg) <= size) lg++;
    return b >= (size_t)(2 * (size - 1 - lg)) * 16384;
}

/* The fixed rules of before issue 12 (dispatch's old default_choice),
 * allreduce's ring only where its 2 (P - 1) latencies pay. */
static const char *fixed(papc_collective coll, size_t b, int comm) {
    switch (coll) {
    case PAPC_GATHER: return b >= 6000 ? "linear_sync" : "binomial";
    case PAPC_SCATTER: return b < 2048 ? "binomial" : "basic_linear";
    case PAPC_BCAST: return b < 12288 ? "binomial" : "split_binary";
    case PAPC_REDUCE: return comm && b >= 65536 ? "rabenseifner" : "binomial";
    case PAPC_ALLREDUCE:
        return !comm || b < 10240 || b / 4 < (size_t)size
                   ? "recursive_doubling"
                   : ring_pays(b) ? "ring" : "rabenseifner";
    default: return "basic_linear";
    }
}

/* The fixed bcast rule for P the test cannot run (papc_explain takes any
 * P): above 16 processes knomial below 16 KiB, binomial from there; at 16
 * and below binomial below 12 KiB, split_binary from there. */
static void expect_fixed_bcast_by_p(void) {
    static const struct { int P; size_t b; const char *want; } cases[] = {
        {17, 8, "knomial"},          {64, 4096, "knomial"},
        {512, 16383, "knomial"},     {512, 16384, "binomial"},
        {1024, 65536, "binomial"},   {17, 1 << 20, "binomial"},
        {16, 8, "binomial"},         {16, 12288, "split_binary"},
        {4, 65536, "split_binary"},  {2, 100, "binomial"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        papc_prediction rows[64];
        int n = 0, chosen = -1;
        CHECK(papc_explain(PAPC_BCAST, cases[i].P, cases[i].b, MPI_CHAR,
                           MPI_OP_NULL, rows, 64, &n, &chosen) ==
                  MPI_SUCCESS, "papc_explain bcast P=%d failed", cases[i].P);
        const char *got = chosen >= 0 && chosen < n ? rows[chosen].algorithm
                                                    : "(none)";
        CHECK(strcmp(got, cases[i].want) == 0,
              "fixed bcast rule at P=%d, %zu B: %s, want %s", cases[i].P,
              cases[i].b, got, cases[i].want);
    }
}

static const papc_collective colls[] = {PAPC_GATHER, PAPC_SCATTER,
                                        PAPC_BCAST, PAPC_REDUCE,
                                        PAPC_ALLREDUCE};
static const int counts[] = {0, 1, 25, 3000, 40000};

static void expect_fixed_rules(void) {
    for (int c = 0; c < 5; c++)
        for (int k = 0; k < 5; k++)
            expect_alg(colls[c], counts[k], MPI_SUM,
                       fixed(colls[c], sizeof(int) * (size_t)counts[k], 1));
}

static void user_max(void *in, void *inout, int *len, MPI_Datatype *t) {
    (void)t;
    for (int i = 0; i < *len; i++)
        if (((int *)in)[i] > ((int *)inout)[i])
            ((int *)inout)[i] = ((int *)in)[i];
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    signal(SIGALRM, on_alarm);
    alarm(100);
    if (argc < 2) {
        if (rank == 0) fprintf(stderr, "usage: test_select DIR\n");
        MPI_Finalize();
        return 2;
    }
    dir = argv[1];
    char a[512], b[512], trunc[512], bogus[512], missing[512];
    snprintf(a, sizeof a, "%s/select-a.json", dir);
    snprintf(b, sizeof b, "%s/select-b.json", dir);
    snprintf(trunc, sizeof trunc, "%s/select-trunc.json", dir);
    snprintf(bogus, sizeof bogus, "%s/select-bogus.json", dir);
    snprintf(missing, sizeof missing, "%s/no-such-profile.json", dir);
    const row cheap_a[] = {{"gather", "basic_linear"},
                           {"scatter", "binomial"},
                           {"bcast", "chain"},
                           {"reduce", "basic_linear"},
                           {"allreduce", "ring"}};
    const row cheap_b[] = {{"gather", "binomial"},
                           {"scatter", "basic_linear"},
                           {"bcast", "basic_linear"},
                           {"reduce", "binomial"},
                           {"allreduce", "basic_linear"}};
    write_profile(a, cheap_a, 5, NULL);
    write_profile(b, cheap_b, 5, NULL);
    write_profile(bogus, cheap_a, 5, "no_such_algorithm");
    truncate_copy(a, trunc, 200);
    MPI_Barrier(MPI_COMM_WORLD);

    /* 1. No profile (the test runs with PAPC_PROFILE unset and HOME set to
     * DIR, where no .config/papcoll/profile.json exists). */
    snprintf(where, sizeof where, "no profile");
    CHECK(papc_profile_path() == NULL, "a profile was loaded: %s",
          papc_profile_path());
    expect_fixed_rules();
    expect_fixed_bcast_by_p();

    /* 2. Profile A: its cheap row wins at every size, on every rank. */
    snprintf(where, sizeof where, "profile A");
    CHECK(papc_profile_load(a) == MPI_SUCCESS, "cannot load %s", a);
    CHECK(papc_profile_path() && strcmp(papc_profile_path(), a) == 0,
          "papc_profile_path is not %s", a);
    for (int c = 0; c < 5; c++)
        for (int k = 0; k < 5; k++) {
            papc_prediction rows[64];
            int n, chosen;
            int reduce = colls[c] == PAPC_REDUCE || colls[c] == PAPC_ALLREDUCE;
            CHECK(papc_explain(colls[c], size, sizeof(int) * (size_t)counts[k],
                               reduce ? MPI_INT : MPI_DATATYPE_NULL,
                               reduce ? MPI_SUM : MPI_OP_NULL, rows, 64, &n,
                               &chosen) == MPI_SUCCESS, "papc_explain failed");
            /* At P = 1 every model is the local copy alone: a tie, which
             * the first row wins; the plain call must still follow it. */
            const char *want = size > 1 ? cheap_a[c].name
                                        : rows[chosen].algorithm;
            expect_alg(colls[c], counts[k], MPI_SUM, want);
            if (counts[k] == 0) continue;
            CHECK(chosen >= 0 && chosen < n &&
                      strcmp(rows[chosen].algorithm, want) == 0,
                  "papc_explain chose %s, want %s",
                  chosen >= 0 ? rows[chosen].algorithm : "-", want);
        }

    /* 3. A non-commutative op: ring (cheapest in A) cannot serve it. */
    snprintf(where, sizeof where, "profile A, non-commutative op");
    MPI_Op noncomm;
    MPI_Op_create(user_max, 0, &noncomm);
    const char *got = plain_call(PAPC_ALLREDUCE, 3000, noncomm);
    if (size > 1) { /* at P = 1 no algorithm runs */
        check_same_everywhere(PAPC_ALLREDUCE, got);
        CHECK(got && strcmp(got, "ring") != 0, "non-commutative op ran ring");
    }
    MPI_Op_free(&noncomm);

    /* 4. PAPC_<COLL>_ALGORITHM still forces. */
    snprintf(where, sizeof where, "profile A, forced");
    setenv("PAPC_BCAST_ALGORITHM", "binary", 1);
    expect_alg(PAPC_BCAST, 3000, MPI_SUM, "binary");
    unsetenv("PAPC_BCAST_ALGORITHM");

    /* 5. Selection "fixed" ignores the profile; "model" comes back. */
    snprintf(where, sizeof where, "selection fixed");
    CHECK(papc_set_selection("fixed") == MPI_SUCCESS, "set fixed");
    expect_fixed_rules();
    CHECK(papc_set_selection("sideways") == MPI_ERR_ARG,
          "a bad mode is not MPI_ERR_ARG");
    CHECK(papc_set_selection("model") == MPI_SUCCESS, "set model");
    if (size > 1) expect_alg(PAPC_BCAST, 3000, MPI_SUM, "chain");

    /* 6. The last rank has another profile: every rank uses the fixed
     * rules on the communicator, and nobody hangs. */
    snprintf(where, sizeof where, "profiles differ");
    CHECK(papc_profile_load(rank == size - 1 ? b : a) == MPI_SUCCESS,
          "cannot load");
    if (size > 1) expect_fixed_rules();
    else plain_call(PAPC_BCAST, 3000, MPI_SUM);

    /* 7. Bad files: MPI_ERR_FILE naming the file; fixed rules after. */
    const char *bad[] = {missing, trunc, bogus};
    const char *what[] = {"No such file", "", "does not exist"};
    for (int i = 0; i < 3; i++) {
        snprintf(where, sizeof where, "bad profile %s", bad[i]);
        int rc = papc_profile_load(bad[i]);
        CHECK(rc == MPI_ERR_FILE, "load returned %d, not MPI_ERR_FILE", rc);
        const char *msg = papc_strerror(rc);
        CHECK(strstr(msg, bad[i]) != NULL, "message does not name the file: "
              "%s", msg);
        CHECK(strstr(msg, what[i]) != NULL, "message does not say '%s': %s",
              what[i], msg);
        CHECK(strchr(msg, '\n') == NULL, "message is not one line: %s", msg);
        CHECK(papc_profile_path() == NULL, "a bad profile stays loaded");
        expect_fixed_rules();
    }

    /* 8. Back to a good profile on every rank. */
    snprintf(where, sizeof where, "profile B");
    CHECK(papc_profile_load(b) == MPI_SUCCESS, "cannot load %s", b);
    for (int c = 0; c < 5 && size > 1; c++)
        expect_alg(colls[c], 3000, MPI_SUM, cheap_b[c].name);

    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_select: %s (%d failures)\n", total ? "FAIL" : "ok",
               total);
    MPI_Finalize();
    return total ? 1 : 0;
}
