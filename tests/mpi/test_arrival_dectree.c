/*
 * test_arrival_dectree.c — AGREED decisions down the binomial tree and the
 * shutdown's termination waves (issue 16, src/arrival/exchange.c and
 * monitor.c).
 *
 *   decisions  Two monitor lifetimes on MPI_COMM_WORLD, the flat path
 *              (PAPC_DECISION_TREE=0) then the tree (=1).  In each, ITERS
 *              AGREED epochs (papc_arrival_begin; the decider is rank 1,
 *              every fourth epoch another one, 0 among them) under random
 *              predictions (PAPC_ARRIVAL_FAULT=random, compute phases of
 *              rank-dependent length with a progress report): every rank's
 *              (known, order, offsets) must equal the decider's bit for
 *              bit; and plain-call views (arrival_view, not AGREED: the
 *              decision is taken in end or later), whose offsets
 *              papc_arrival_view must give identically on every rank.
 *              The finalize report (PAPC_ARRIVAL_STATS) must show exactly
 *              the decision messages each path sends: in total P - 1 per
 *              epoch in both; per rank, P - 1 per epoch it decided (flat)
 *              or its number of children in that epoch's tree (tree) --
 *              the largest per rank is compared with the test's own count.
 *              FINs: a positive multiple of 2(P - 1) (one reduction up
 *              and one verdict down per wave), at most 4 waves.
 *   lifecycle  LIVES monitor lifetimes, the path alternating, each with
 *              AGREED epochs, a background gather (BSLS) and staggered
 *              finalizes: rank 0 finalizes at once while the others still
 *              compute and send it progress estimates, so messages are in
 *              flight to a monitor that wants to leave; no hang (ctest
 *              timeout), results right, every lifetime's FINs as above.
 * Exit 0 and "test_arrival_dectree: passed", or "DECTREE FAIL: ..." and
 * MPI_Abort.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "papcoll.h"
#include "arrival/arrival.h"
#include "arrival/internal.h"
#include "core/core.h"

enum { ITERS = 24, LIVES = 6, COUNT = 64 };

static int rank, size;
static char stats_file[256];

#define FAIL(...)                                                           \
    do {                                                                    \
        fprintf(stderr, "DECTREE FAIL: rank %d: ", rank);                   \
        fprintf(stderr, __VA_ARGS__);                                       \
        fputc('\n', stderr);                                                \
        MPI_Abort(MPI_COMM_WORLD, 1);                                       \
    } while (0)

typedef struct stats {
    long long dec_msgs, dec_max, fin_msgs;
} stats;

/* The "decision" and "fin" rows of the PAPC_ARRIVAL_STATS file. */
static stats read_stats(const char *path) {
    stats s = {-1, -1, -1};
    FILE *f = fopen(path, "r");
    if (!f) FAIL("no stats file %s", path);
    char line[512], kind[32];
    long long msgs, bytes, max;
    double per_call, bytes_per_call;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%31s %lld %lld %lf %lf %lld", kind, &msgs, &bytes,
                   &per_call, &bytes_per_call, &max) != 6)
            continue;
        if (!strcmp(kind, "decision")) {
            s.dec_msgs = msgs;
            s.dec_max = max;
        }
        if (!strcmp(kind, "fin")) s.fin_msgs = msgs;
    }
    fclose(f);
    if (s.dec_msgs < 0 || s.fin_msgs < 0)
        FAIL("stats file %s lacks a field", path);
    return s;
}

/* Children of rank r in the binomial tree rooted at d (internal.h's). */
static int tree_children_of(int r, int d) {
    int child[32];
    return papc_arr_tree_children((r - d + size) % size, size, child);
}

static void start(int tree) {
    setenv("PAPC_DECISION_TREE", tree ? "1" : "0", 1);
    if (papc_monitor_init(MPI_COMM_WORLD) != MPI_SUCCESS)
        FAIL("papc_monitor_init");
    if (!papc_monitor_running()) FAIL("no monitor (MPI_THREAD_MULTIPLE?)");
}

static stats finish(void) {
    if (rank == 0) setenv("PAPC_ARRIVAL_STATS", stats_file, 1);
    if (papc_monitor_finalize() != MPI_SUCCESS) FAIL("finalize");
    stats s = {0, 0, 0};
    if (rank == 0) {
        s = read_stats(stats_file);
        remove(stats_file);
        unsetenv("PAPC_ARRIVAL_STATS");
    }
    return s;
}

static void compute(int iter) {
    papc_processing_start();
    usleep((useconds_t)(200 + 300 * ((rank * 7 + iter) % 5)));
    papc_progress(0.5);
    usleep((useconds_t)(200 + 300 * ((rank * 7 + iter) % 5)));
}

/* A call descriptor for the runtime: a gather of COUNT ints at root. */
static papc_call call_at(int root, int view) {
    papc_call c;
    memset(&c, 0, sizeof c);
    c.coll = PAPC_GATHER;
    c.sendcount = c.recvcount = COUNT;
    c.sendtype = c.recvtype = MPI_INT;
    c.root = root;
    c.user_comm = MPI_COMM_WORLD;
    if (papc_private_comm_peek(MPI_COMM_WORLD, &c.comm) != MPI_SUCCESS)
        FAIL("private comm");
    c.rank = rank;
    c.size = size;
    c.algorithm = "dectree_test";
    c.arrival_view = view;
    return c;
}

/* Every rank's vector v[n] must equal the one of rank from, bit for bit. */
static void check_same(const double *v, int n, int from, const char *what,
                       int iter) {
    double *all = malloc((size_t)n * size * sizeof *all);
    if (!all) FAIL("no memory");
    MPI_Allgather(v, n, MPI_DOUBLE, all, n, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        if (memcmp(all + (size_t)r * n, all + (size_t)from * n,
                   (size_t)n * sizeof *all))
            FAIL("%s %d: rank %d's decision differs from rank %d's", what,
                 iter, r, from);
    free(all);
}

/* One AGREED epoch decided by d: every rank must hold d's decision. */
static void agreed_epoch(int d, int iter) {
    papc_call c = call_at(d, 0);
    papc_arrival a;
    if (papc_arrival_begin(&c, PAPC_ORDER_AGREED, d, &a) != MPI_SUCCESS)
        FAIL("begin (AGREED, decider %d)", d);
    double *v = malloc((size_t)(1 + 2 * size) * sizeof *v);
    if (!v) FAIL("no memory");
    v[0] = a.known;
    for (int i = 0; i < size; i++) {
        v[1 + i] = a.order[i];
        v[1 + size + i] = a.offset[i];
    }
    papc_arrival_end(&c, &a, MPI_SUCCESS);
    check_same(v, 1 + 2 * size, d, "AGREED epoch", iter);
    free(v);
}

/* A plain call's view (not AGREED) decided by d, then read back as the
 * next choice would: the same offsets everywhere. */
static void view_epoch(int d, int iter) {
    papc_call c = call_at(d, 1);
    papc_arrival a;
    if (papc_arrival_begin(&c, PAPC_ORDER_NONE, d, &a) != MPI_SUCCESS)
        FAIL("begin (view, decider %d)", d);
    papc_arrival_end(&c, &a, MPI_SUCCESS);
    double *v = malloc((size_t)(1 + size) * sizeof *v);
    if (!v) FAIL("no memory");
    int known = 0;
    if (!papc_arrival_view(&c, v + 1, &known)) FAIL("no view at %d", iter);
    v[0] = known;
    check_same(v, 1 + size, d, "view", iter);
    free(v);
}

static void check_fins(const stats *s, const char *what) {
    long long wave = 2LL * (size - 1);
    if (s->fin_msgs <= 0 || s->fin_msgs % wave || s->fin_msgs > 4 * wave)
        FAIL("%s: %lld FIN messages, not 1 to 4 waves of %lld", what,
             s->fin_msgs, wave);
}

/* The decisions phase of one path; returns nothing, fails on error. */
static void decisions(int tree) {
    start(tree);
    long long *mine = calloc((size_t)size, sizeof *mine);
    if (!mine) FAIL("no memory");
    long long epochs = 0;
    for (int it = 0; it < ITERS; it++) {
        /* Mostly rank 1 (so the per-rank counts of the two paths
         * differ), every fourth epoch another decider. */
        int d = it % 4 == 3 ? (it / 4 * 5 + 2) % size : 1;
        compute(it);
        if (it % 3 == 2) view_epoch(d, it);
        else agreed_epoch(d, it);
        epochs++;
        for (int r = 0; r < size; r++)
            mine[r] += tree ? tree_children_of(r, d) : (r == d ? size - 1 : 0);
    }
    long long want_max = 0;
    for (int r = 0; r < size; r++)
        if (mine[r] > want_max) want_max = mine[r];
    free(mine);
    stats s = finish();
    if (rank == 0) {
        const char *name = tree ? "tree" : "flat";
        printf("%s: %lld decision messages (%lld epochs), largest per rank "
               "%lld (expected %lld), %lld FIN messages\n", name,
               s.dec_msgs, epochs, s.dec_max, want_max, s.fin_msgs);
        if (s.dec_msgs != epochs * (size - 1))
            FAIL("%s: %lld decision messages, expected %lld", name,
                 s.dec_msgs, epochs * (size - 1));
        if (s.dec_max != want_max)
            FAIL("%s: largest per rank %lld decision messages, expected "
                 "%lld", name, s.dec_max, want_max);
        check_fins(&s, name);
    }
}

static void gather_bsls(int root, int iter) {
    int send[COUNT], *recv = malloc((size_t)size * COUNT * sizeof *recv);
    if (!recv) FAIL("no memory");
    for (int i = 0; i < COUNT; i++) send[i] = rank * 1000 + i + iter;
    if (papc_gather_alg(send, COUNT, MPI_INT, recv, COUNT, MPI_INT, root,
                        MPI_COMM_WORLD, "background_sorted_linear_sync") !=
        MPI_SUCCESS)
        FAIL("gather BSLS failed");
    if (rank == root)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < COUNT; i++)
                if (recv[r * COUNT + i] != r * 1000 + i + iter)
                    FAIL("gather BSLS: wrong block of rank %d", r);
    free(recv);
}

static void lifecycle(void) {
    for (int life = 0; life < LIVES; life++) {
        int tree = life % 2;
        start(tree);
        for (int it = 0; it < 6; it++) {
            int d = (life + it) % size;
            compute(it);
            agreed_epoch(d, it);
            gather_bsls((d + 1) % size, it);
            if (it % 2) view_epoch(d, it);
        }
        /* Rank 0 leaves first; the others still report progress (to the
         * deciders, rank 0 among them) while its monitor wants to go. */
        if (rank != 0)
            for (int k = 0; k < 3; k++) compute(k + rank);
        stats s = finish();
        if (rank == 0) {
            printf("life %d (%s): %lld decision messages, %lld FIN "
                   "messages\n", life, tree ? "tree" : "flat", s.dec_msgs,
                   s.fin_msgs);
            check_fins(&s, "lifecycle");
        }
    }
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "decisions";
    snprintf(stats_file, sizeof stats_file, "%s/papc_dectree_%d.txt",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    MPI_Bcast(stats_file, sizeof stats_file, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!strcmp(mode, "decisions")) {
        decisions(0);
        decisions(1);
    } else if (!strcmp(mode, "lifecycle")) {
        lifecycle();
    } else {
        FAIL("unknown mode %s", mode);
    }
    if (rank == 0) printf("test_arrival_dectree: passed\n");
    MPI_Finalize();
    return 0;
}
