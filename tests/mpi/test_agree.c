/*
 * test_agree.c — settings that change what a call sends, read per process,
 * agreed per communicator (src/core/settings.c; session 8).
 * Usage: mpiexec -n P test_agree   (P = 3 or 4; the tree checks need 4)
 *
 * One rank sets a variable differently, as a per-node job script would,
 * before the first call on a fresh communicator: every rank must then use
 * the default (the bcast is correct, no hang, and the tree or the segments
 * are the default's), rank 0 must say so in one line naming the variable;
 * equal settings must still take effect, and a setting changed on every
 * rank between two calls must take effect at the next call.
 *   PAPC_KNOMIAL_RADIX  bcast knomial: 2 on most ranks, 8 on the last
 *                       (without the agreement rank 3 waits for the root
 *                       while its radix-2 parent, rank 2, sends to it: a
 *                       hang); the root's sends tell the tree.
 *   PAPC_SEGSIZE        bcast binomial: 1 KiB on most ranks, unset on the
 *                       last (MPI_ERR_TRUNCATE or a hang without it); the
 *                       root's sends count the segments.
 *   PAPC_BCAST_ALGORITHM  forced on most ranks, unset on the last: every
 *                       rank runs the plain call's own choice.
 *   papc_set_selection  "fixed" on one rank only (a PAPC_SELECT=fixed rank
 *                       skipped the profile's agreement and hung the
 *                       others before session 8).
 * The root's sends are counted by interposing MPI_Send and MPI_Isend (the
 * profiling interface: papcoll's point-to-point calls reach them).  A
 * watchdog names a hang.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "papcoll.h"

static int rank, size, failures;
static char where[160];

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
    static const char msg[] = "FAIL: HANG in test_agree: ";
    ssize_t w = write(2, msg, sizeof msg - 1);
    w = write(2, where, strlen(where));
    w = write(2, "\n", 1);
    (void)w;
    _exit(1);
}

/* ---- counting this rank's sends ---- */

static long sends;

int MPI_Send(const void *buf, int count, MPI_Datatype t, int dst, int tag,
             MPI_Comm comm) {
    sends++;
    return PMPI_Send(buf, count, t, dst, tag, comm);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype t, int dst, int tag,
              MPI_Comm comm, MPI_Request *req) {
    sends++;
    return PMPI_Isend(buf, count, t, dst, tag, comm, req);
}

/* ---- helpers ---- */

/* name=value on the ranks that differ (the last), else name=common;
 * NULL unsets. */
static void set_on(const char *name, const char *common, const char *last) {
    const char *v = rank == size - 1 ? last : common;
    if (v) setenv(name, v, 1);
    else unsetenv(name);
}

/* One bcast of n ints from root on comm (alg NULL: the plain call);
 * checks the result on every rank; returns this rank's sends in it. */
static long bcast(MPI_Comm comm, const char *alg, int n, int root) {
    int *buf = malloc((size_t)n * sizeof *buf);
    for (int i = 0; i < n; i++)
        buf[i] = rank == root ? i * 7 + root : -1;
    long before = sends;
    int rc = alg ? papc_bcast_alg(buf, n, MPI_INT, root, comm, alg)
                 : papc_bcast(buf, n, MPI_INT, root, comm);
    long mine = sends - before;
    CHECK(rc == MPI_SUCCESS, "bcast %s n=%d root %d: %s", alg ? alg : "plain",
          n, root, papc_strerror(rc));
    int bad = 0;
    for (int i = 0; i < n && !bad; i++) bad = buf[i] != i * 7 + root;
    CHECK(!bad, "bcast %s n=%d root %d: wrong data", alg ? alg : "plain", n,
          root);
    free(buf);
    return mine;
}

/* Every root and a few sizes (small, several segments, not a multiple of
 * any segment); returns root 0's sends at n = 16384 (64 KiB) on rank 0. */
static long bcast_all(MPI_Comm comm, const char *alg) {
    static const int ns[] = {1, 1000, 16384, 20001};
    long at64k = -1;
    for (int r = 0; r < size; r++)
        for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
            long s = bcast(comm, alg, ns[i], r);
            if (r == 0 && ns[i] == 16384) at64k = s;
        }
    return at64k;
}

static MPI_Comm fresh(void) {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    return c;
}

/* Rank 0's stderr goes to a file while a case runs, to count the lines
 * that name a variable. */
static FILE *capture_file;
static int saved_stderr = -1;

static void capture_start(void) {
    if (rank != 0) return;
    fflush(stderr);
    capture_file = tmpfile();
    saved_stderr = dup(2);
    dup2(fileno(capture_file), 2);
}

/* Lines of the capture containing text; the capture is echoed. */
static int capture_count(const char *text) {
    if (rank != 0) return 0;
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    rewind(capture_file);
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, capture_file)) {
        fputs(line, stderr);
        if (strstr(line, text)) n++;
    }
    fclose(capture_file);
    return n;
}

/* ---- cases ---- */

static void radix(void) {
    /* The default's tree (radix 4: at P <= 4 the root sends to all). */
    snprintf(where, sizeof where, "PAPC_KNOMIAL_RADIX unset");
    unsetenv("PAPC_KNOMIAL_RADIX");
    MPI_Comm c = fresh();
    long unset = bcast_all(c, "knomial");
    MPI_Comm_free(&c);

    snprintf(where, sizeof where, "PAPC_KNOMIAL_RADIX 2, 8 on rank %d",
             size - 1);
    set_on("PAPC_KNOMIAL_RADIX", "2", "8");
    capture_start();
    c = fresh();
    long differ = bcast_all(c, "knomial");
    MPI_Comm_free(&c);
    /* A second communicator with the same disagreement: no second line. */
    c = fresh();
    bcast(c, "knomial", 100, 0);
    MPI_Comm_free(&c);
    int lines = capture_count("PAPC_KNOMIAL_RADIX differs");
    if (rank == 0) {
        CHECK(lines == 1, "%d lines name PAPC_KNOMIAL_RADIX (1 expected)",
              lines);
        CHECK(differ == unset, "root sent %ld messages, the default's tree "
              "%ld", differ, unset);
    }

    snprintf(where, sizeof where, "PAPC_KNOMIAL_RADIX 2 on every rank");
    setenv("PAPC_KNOMIAL_RADIX", "2", 1);
    c = fresh();
    long equal = bcast_all(c, "knomial");
    /* 64 KiB: 8 segments to each of the root's children, 2 at radix 2
     * (binomial), 3 at radix 4 (P = 4). */
    if (rank == 0 && size == 4)
        CHECK(equal == 16 && unset == 24, "root sent %ld messages at radix "
              "2 (16 expected), %ld unset (24)", equal, unset);

    /* Changed on every rank between two calls on the same communicator:
     * the next call uses it. */
    snprintf(where, sizeof where, "PAPC_KNOMIAL_RADIX 2 then unset");
    unsetenv("PAPC_KNOMIAL_RADIX");
    long after = bcast(c, "knomial", 16384, 0);
    if (rank == 0) CHECK(after == unset, "root sent %ld, unset %ld", after,
                         unset);
    /* ... and papc_settings_agree agrees it before the call. */
    snprintf(where, sizeof where, "PAPC_KNOMIAL_RADIX 2 by "
             "papc_settings_agree");
    setenv("PAPC_KNOMIAL_RADIX", "2", 1);
    CHECK(papc_settings_agree(c) == MPI_SUCCESS, "papc_settings_agree");
    after = bcast(c, "knomial", 16384, 0);
    if (rank == 0) CHECK(after == equal, "root sent %ld, radix 2 %ld",
                         after, equal);
    MPI_Comm_free(&c);
    unsetenv("PAPC_KNOMIAL_RADIX");
}

static void segsize(void) {
    snprintf(where, sizeof where, "PAPC_SEGSIZE unset");
    unsetenv("PAPC_SEGSIZE");
    MPI_Comm c = fresh();
    long unset = bcast_all(c, "binomial");
    MPI_Comm_free(&c);

    snprintf(where, sizeof where, "PAPC_SEGSIZE 1024, unset on rank %d",
             size - 1);
    set_on("PAPC_SEGSIZE", "1024", NULL);
    capture_start();
    c = fresh();
    long differ = bcast_all(c, "binomial");
    /* The plain call too (whichever row it takes, segmented or not). */
    bcast_all(c, NULL);
    MPI_Comm_free(&c);
    int lines = capture_count("PAPC_SEGSIZE differs");
    if (rank == 0) {
        CHECK(lines == 1, "%d lines name PAPC_SEGSIZE (1 expected)", lines);
        CHECK(differ == unset, "root sent %ld messages, the default's "
              "segments %ld", differ, unset);
    }

    snprintf(where, sizeof where, "PAPC_SEGSIZE 1024 on every rank");
    setenv("PAPC_SEGSIZE", "1024", 1);
    c = fresh();
    long equal = bcast_all(c, "binomial");
    if (rank == 0)
        CHECK(equal == 8 * unset && unset > 0, "root sent %ld messages in "
              "1 KiB segments, %ld in the default 8 KiB ones", equal, unset);
    MPI_Comm_free(&c);
    unsetenv("PAPC_SEGSIZE");
}

/* The algorithm every rank ran, compared with rank 0's. */
static void same_algorithm(MPI_Comm c, const char *expect) {
    const char *mine = papc_last_algorithm(PAPC_BCAST);
    char name[64] = "", first[64] = "";
    snprintf(name, sizeof name, "%s", mine ? mine : "?");
    memcpy(first, name, sizeof first);
    MPI_Bcast(first, sizeof first, MPI_CHAR, 0, c);
    CHECK(!strcmp(name, first), "ran %s, rank 0 ran %s", name, first);
    if (expect) CHECK(!strcmp(name, expect), "ran %s, not %s", name, expect);
    else CHECK(strcmp(name, "basic_linear") != 0, "ran the forced row");
}

static void forced(void) {
    snprintf(where, sizeof where, "PAPC_BCAST_ALGORITHM basic_linear, unset "
             "on rank %d", size - 1);
    set_on("PAPC_BCAST_ALGORITHM", "basic_linear", NULL);
    capture_start();
    MPI_Comm c = fresh();
    bcast_all(c, NULL);
    same_algorithm(c, NULL);
    MPI_Comm_free(&c);
    int lines = capture_count("PAPC_BCAST_ALGORITHM differs");
    if (rank == 0)
        CHECK(lines == 1, "%d lines name PAPC_BCAST_ALGORITHM", lines);

    snprintf(where, sizeof where, "PAPC_BCAST_ALGORITHM basic_linear");
    setenv("PAPC_BCAST_ALGORITHM", "basic_linear", 1);
    c = fresh();
    bcast_all(c, NULL);
    same_algorithm(c, "basic_linear");
    MPI_Comm_free(&c);
    unsetenv("PAPC_BCAST_ALGORITHM");
}

static void selection(void) {
    snprintf(where, sizeof where, "papc_set_selection fixed on rank %d",
             size - 1);
    if (rank == size - 1)
        CHECK(papc_set_selection("fixed") == MPI_SUCCESS, "fixed");
    MPI_Comm c = fresh();
    bcast_all(c, NULL);
    int in[64], out[64];
    for (int i = 0; i < 64; i++) in[i] = rank * 64 + i;
    CHECK(papc_allreduce(in, out, 64, MPI_INT, MPI_SUM, c) == MPI_SUCCESS,
          "allreduce");
    int bad = 0;
    for (int i = 0; i < 64; i++)
        bad |= out[i] != 64 * size * (size - 1) / 2 + size * i;
    CHECK(!bad, "allreduce: wrong sum");
    MPI_Comm_free(&c);
    if (rank == size - 1) papc_set_selection("model");
}

int main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    signal(SIGALRM, on_alarm);
    alarm(30);
    radix();
    segsize();
    forced();
    selection();
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("test_agree P=%d: %s\n", size, all ? "FAIL" : "ok");
    MPI_Finalize();
    return all ? 1 : 0;
}
