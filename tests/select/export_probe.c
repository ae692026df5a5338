/*
 * export_probe.c — one native MPI collective, for the tests that prove an
 * exported rules file is applied (check-export-ompi.sh, check-export-mpich.sh).
 * Plain MPI, no papcoll: it is built against Open MPI and against MPICH.
 *
 *   export_probe COLL BYTES
 *   export_probe others
 *
 * COLL is gather, scatter, bcast, reduce or allreduce; BYTES is, as in
 * papc_explain, one rank's block (gather, scatter) or the vector (the
 * others), a multiple of 8: the call moves BYTES/8 MPI_DOUBLEs, root 0,
 * MPI_SUM.  Every rank passes significant counts on both sides, so that
 * a library keying its choice on a send count decides alike everywhere.
 * It checks the result and rank 0 prints
 *   probe: COLL P bytes BYTES ok [fingerprint HEX]
 * The fingerprint (reductions) hashes the bits of the result: the values
 * span 60 binary orders of magnitude, so the rounding of each element's
 * sum depends on the order in which the algorithm combined the ranks, and
 * algorithms that combine in different orders give different hashes.
 * The probed call runs between MPI_Pcontrol(1) and MPI_Pcontrol(0), for
 * the tracing preloads.  Exit status 1 when the data are wrong.
 *
 * "others" calls every other collective MPI has once, blocking and
 * non-blocking, in place and not, with a non-commutative user op, on
 * MPI_COMM_WORLD, on an intercommunicator between the even and the odd
 * ranks and on a ring topology (neighbourhood collectives): an exported
 * MPICH table must hold an entry that serves each of them (MPICH aborts
 * on a collective missing from its table).  Rank 0 prints
 *   probe: others P ok
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

/* Rank r's element i: distinct, order-sensitive under rounding. */
static double value(int r, long i) {
    long k = (r * 1009L + i * 7919L) % 1000;
    int e = (int)((r * 37L + i * 11L) % 61) - 30;
    return ldexp(1.0 + (double)k / 1000.0, e) * ((r + i) % 3 ? 1 : -1);
}

static uint64_t fnv1a(const void *p, size_t n) {
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

/* |got - exact sum| within what any order of P double additions allows. */
static int sum_ok(double got, long i, int P) {
    long double exact = 0, mag = 0;
    for (int r = 0; r < P; r++) {
        exact += value(r, i);
        mag += fabs(value(r, i));
    }
    return fabsl((long double)got - exact) <= 1e-13L * mag * P;
}

static int run(const char *coll, long n, int rank, int P, double *out) {
    double *a = malloc((size_t)n * P * sizeof *a);
    double *b = malloc((size_t)n * P * sizeof *b);
    int bad = 0;
    if (!a || !b) return 1;
    for (long i = 0; i < n * P; i++) a[i] = value(rank, i), b[i] = -1;
    if (!strcmp(coll, "bcast")) {
        if (rank != 0) for (long i = 0; i < n; i++) a[i] = 0;
        MPI_Bcast(a, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        for (long i = 0; i < n; i++) bad |= a[i] != value(0, i);
    } else if (!strcmp(coll, "gather")) {
        MPI_Gather(a, (int)n, MPI_DOUBLE, b, (int)n, MPI_DOUBLE, 0,
                   MPI_COMM_WORLD);
        for (int r = 0; rank == 0 && r < P; r++)
            for (long i = 0; i < n; i++) bad |= b[r * n + i] != value(r, i);
    } else if (!strcmp(coll, "scatter")) {
        MPI_Scatter(a, (int)n, MPI_DOUBLE, b, (int)n, MPI_DOUBLE, 0,
                    MPI_COMM_WORLD);
        for (long i = 0; i < n; i++) bad |= b[i] != value(0, rank * n + i);
    } else if (!strcmp(coll, "reduce") || !strcmp(coll, "allreduce")) {
        int all = coll[0] == 'a';
        if (all)
            MPI_Allreduce(a, b, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        else
            MPI_Reduce(a, b, (int)n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        for (long i = 0; (all || rank == 0) && i < n; i++)
            bad |= !sum_ok(b[i], i, P);
        if (rank == 0) memcpy(out, b, (size_t)n * sizeof *b);
    } else {
        bad = 2;
    }
    free(a);
    free(b);
    return bad;
}

/* A non-commutative op: a over b keeps a (MPI order: a from lower ranks). */
static void first_of(void *in, void *inout, int *len, MPI_Datatype *t) {
    (void)in, (void)inout, (void)len, (void)t;
}

#define K 4 /* elements per block in "others" */

/* (MPI_Wait each: GCC 12 misreads MPICH's MPI_STATUSES_IGNORE in
 * MPI_Waitall as a zero-size array.) */
static void wait_all(MPI_Request *r, int n) {
    for (int i = 0; i < n; i++) MPI_Wait(&r[i], MPI_STATUS_IGNORE);
}

/* Every collective on an intracommunicator, blocking then non-blocking. */
static void others_intra(MPI_Comm c, MPI_Op nc) {
    int P;
    MPI_Comm_size(c, &P);
    int *s = calloc((size_t)K * P, sizeof *s), *r = calloc((size_t)K * P,
                                                            sizeof *r);
    int *cnt = malloc(P * sizeof *cnt), *dis = malloc(P * sizeof *dis);
    MPI_Datatype *ty = malloc(P * sizeof *ty);
    for (int i = 0; i < P; i++) cnt[i] = K, dis[i] = K * i, ty[i] = MPI_INT;
    int *bd = malloc(P * sizeof *bd);
    for (int i = 0; i < P; i++) bd[i] = K * i * (int)sizeof(int);
    MPI_Request q[32];
    int n = 0;
    MPI_Barrier(c);
    MPI_Allgather(s, K, MPI_INT, r, K, MPI_INT, c);
    MPI_Allgatherv(s, K, MPI_INT, r, cnt, dis, MPI_INT, c);
    MPI_Alltoall(s, K, MPI_INT, r, K, MPI_INT, c);
    MPI_Alltoall(MPI_IN_PLACE, K, MPI_INT, r, K, MPI_INT, c);
    MPI_Alltoallv(s, cnt, dis, MPI_INT, r, cnt, dis, MPI_INT, c);
    MPI_Alltoallv(MPI_IN_PLACE, cnt, dis, MPI_INT, r, cnt, dis, MPI_INT, c);
    MPI_Alltoallw(s, cnt, bd, ty, r, cnt, bd, ty, c);
    MPI_Alltoallw(MPI_IN_PLACE, cnt, bd, ty, r, cnt, bd, ty, c);
    MPI_Reduce_scatter(s, r, cnt, MPI_INT, MPI_SUM, c);
    MPI_Reduce_scatter(s, r, cnt, MPI_INT, nc, c);
    MPI_Reduce_scatter_block(s, r, K, MPI_INT, MPI_SUM, c);
    MPI_Reduce_scatter_block(s, r, K, MPI_INT, nc, c);
    MPI_Gatherv(s, K, MPI_INT, r, cnt, dis, MPI_INT, 0, c);
    MPI_Scatterv(s, cnt, dis, MPI_INT, r, K, MPI_INT, 0, c);
    MPI_Scan(s, r, K, MPI_INT, MPI_SUM, c);
    MPI_Exscan(s, r, K, MPI_INT, MPI_SUM, c);
    MPI_Bcast(s, K, MPI_INT, 0, c);
    MPI_Gather(s, K, MPI_INT, r, K, MPI_INT, 0, c);
    MPI_Scatter(s, K, MPI_INT, r, K, MPI_INT, 0, c);
    MPI_Reduce(s, r, K, MPI_INT, nc, 0, c);
    MPI_Allreduce(s, r, K, MPI_INT, nc, c);
    /* one at a time: buffers are shared */
    MPI_Ibarrier(c, &q[n++]);
    wait_all(q, n), n = 0;
    MPI_Iallreduce(s, r, K, MPI_INT, MPI_SUM, c, &q[n++]), wait_all(q, 1);
    MPI_Iallgather(s, K, MPI_INT, r, K, MPI_INT, c, &q[0]), wait_all(q, 1);
    MPI_Iallgatherv(s, K, MPI_INT, r, cnt, dis, MPI_INT, c, &q[0]);
    wait_all(q, 1);
    MPI_Ibcast(s, K, MPI_INT, 0, c, &q[0]), wait_all(q, 1);
    MPI_Ireduce(s, r, K, MPI_INT, MPI_SUM, 0, c, &q[0]), wait_all(q, 1);
    MPI_Ireduce_scatter(s, r, cnt, MPI_INT, MPI_SUM, c, &q[0]);
    wait_all(q, 1);
    MPI_Ireduce_scatter(s, r, cnt, MPI_INT, nc, c, &q[0]), wait_all(q, 1);
    MPI_Ireduce_scatter_block(s, r, K, MPI_INT, MPI_SUM, c, &q[0]);
    wait_all(q, 1);
    MPI_Ireduce_scatter_block(s, r, K, MPI_INT, nc, c, &q[0]);
    wait_all(q, 1);
    MPI_Igather(s, K, MPI_INT, r, K, MPI_INT, 0, c, &q[0]), wait_all(q, 1);
    MPI_Iscatter(s, K, MPI_INT, r, K, MPI_INT, 0, c, &q[0]), wait_all(q, 1);
    MPI_Igatherv(s, K, MPI_INT, r, cnt, dis, MPI_INT, 0, c, &q[0]);
    wait_all(q, 1);
    MPI_Iscatterv(s, cnt, dis, MPI_INT, r, K, MPI_INT, 0, c, &q[0]);
    wait_all(q, 1);
    MPI_Iexscan(s, r, K, MPI_INT, MPI_SUM, c, &q[0]), wait_all(q, 1);
    MPI_Iscan(s, r, K, MPI_INT, MPI_SUM, c, &q[0]), wait_all(q, 1);
    MPI_Ialltoall(s, K, MPI_INT, r, K, MPI_INT, c, &q[0]), wait_all(q, 1);
    MPI_Ialltoall(MPI_IN_PLACE, K, MPI_INT, r, K, MPI_INT, c, &q[0]);
    wait_all(q, 1);
    MPI_Ialltoallv(s, cnt, dis, MPI_INT, r, cnt, dis, MPI_INT, c, &q[0]);
    wait_all(q, 1);
    MPI_Ialltoallv(MPI_IN_PLACE, cnt, dis, MPI_INT, r, cnt, dis, MPI_INT, c,
                   &q[0]);
    wait_all(q, 1);
    MPI_Ialltoallw(s, cnt, bd, ty, r, cnt, bd, ty, c, &q[0]), wait_all(q, 1);
    MPI_Ialltoallw(MPI_IN_PLACE, cnt, bd, ty, r, cnt, bd, ty, c, &q[0]);
    wait_all(q, 1);
    free(s), free(r), free(cnt), free(dis), free(ty), free(bd);
}

/* The collectives defined on intercommunicators (not scan, exscan). */
static void others_inter(MPI_Comm c) {
    int R, P;
    MPI_Comm_remote_size(c, &R);
    MPI_Comm_size(c, &P);
    int N = R > P ? R : P, rank;
    MPI_Comm_rank(c, &rank);
    int *s = calloc((size_t)K * N, sizeof *s), *r = calloc((size_t)K * N,
                                                            sizeof *r);
    int *cnt = malloc(N * sizeof *cnt), *dis = malloc(N * sizeof *dis);
    MPI_Datatype *ty = malloc(N * sizeof *ty);
    int *bd = malloc(N * sizeof *bd);
    for (int i = 0; i < N; i++)
        cnt[i] = K, dis[i] = K * i, ty[i] = MPI_INT,
        bd[i] = K * i * (int)sizeof(int);
    /* group A (even world ranks, local leader 0) is the root side */
    int wr;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    int root = wr % 2 == 0 ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Request q[1];
    MPI_Barrier(c);
    MPI_Bcast(s, K, MPI_INT, root, c);
    MPI_Gather(s, K, MPI_INT, r, K, MPI_INT, root, c);
    MPI_Scatter(s, K, MPI_INT, r, K, MPI_INT, root, c);
    MPI_Gatherv(s, K, MPI_INT, r, cnt, dis, MPI_INT, root, c);
    MPI_Scatterv(s, cnt, dis, MPI_INT, r, K, MPI_INT, root, c);
    MPI_Reduce(s, r, K, MPI_INT, MPI_SUM, root, c);
    MPI_Allreduce(s, r, K, MPI_INT, MPI_SUM, c);
    MPI_Allgather(s, K, MPI_INT, r, K, MPI_INT, c);
    MPI_Allgatherv(s, K, MPI_INT, r, cnt, dis, MPI_INT, c);
    MPI_Alltoall(s, K, MPI_INT, r, K, MPI_INT, c);
    MPI_Alltoallv(s, cnt, dis, MPI_INT, r, cnt, dis, MPI_INT, c);
    MPI_Alltoallw(s, cnt, bd, ty, r, cnt, bd, ty, c);
    /* reduce_scatter on an intercommunicator: counts over the local group */
    MPI_Reduce_scatter(s, r, cnt, MPI_INT, MPI_SUM, c);
    MPI_Reduce_scatter_block(s, r, K, MPI_INT, MPI_SUM, c);
    MPI_Ibarrier(c, q), wait_all(q, 1);
    MPI_Ibcast(s, K, MPI_INT, root, c, q), wait_all(q, 1);
    MPI_Igather(s, K, MPI_INT, r, K, MPI_INT, root, c, q), wait_all(q, 1);
    MPI_Iscatter(s, K, MPI_INT, r, K, MPI_INT, root, c, q), wait_all(q, 1);
    MPI_Igatherv(s, K, MPI_INT, r, cnt, dis, MPI_INT, root, c, q);
    wait_all(q, 1);
    MPI_Iscatterv(s, cnt, dis, MPI_INT, r, K, MPI_INT, root, c, q);
    wait_all(q, 1);
    MPI_Ireduce(s, r, K, MPI_INT, MPI_SUM, root, c, q), wait_all(q, 1);
    MPI_Iallreduce(s, r, K, MPI_INT, MPI_SUM, c, q), wait_all(q, 1);
    MPI_Iallgather(s, K, MPI_INT, r, K, MPI_INT, c, q), wait_all(q, 1);
    MPI_Iallgatherv(s, K, MPI_INT, r, cnt, dis, MPI_INT, c, q);
    wait_all(q, 1);
    MPI_Ialltoall(s, K, MPI_INT, r, K, MPI_INT, c, q), wait_all(q, 1);
    MPI_Ialltoallv(s, cnt, dis, MPI_INT, r, cnt, dis, MPI_INT, c, q);
    wait_all(q, 1);
    MPI_Ialltoallw(s, cnt, bd, ty, r, cnt, bd, ty, c, q), wait_all(q, 1);
    MPI_Ireduce_scatter(s, r, cnt, MPI_INT, MPI_SUM, c, q), wait_all(q, 1);
    MPI_Ireduce_scatter_block(s, r, K, MPI_INT, MPI_SUM, c, q);
    wait_all(q, 1);
    free(s), free(r), free(cnt), free(dis), free(ty), free(bd);
}

/* Neighbourhood collectives on a ring. */
static void others_neighbors(void) {
    int P, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int nb[2] = {(rank + P - 1) % P, (rank + 1) % P}, w[2] = {1, 1};
    MPI_Comm g;
    /* weights, not MPI_UNWEIGHTED: GCC 12 misreads Open MPI's as empty */
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nb, w, 2, nb, w,
                                   MPI_INFO_NULL, 0, &g);
    int s[2 * K] = {0}, r[2 * K], cnt[2] = {K, K}, dis[2] = {0, K};
    MPI_Aint bd[2] = {0, K * sizeof(int)};
    MPI_Datatype ty[2] = {MPI_INT, MPI_INT};
    MPI_Request q[1];
    MPI_Neighbor_allgather(s, K, MPI_INT, r, K, MPI_INT, g);
    MPI_Neighbor_allgatherv(s, K, MPI_INT, r, cnt, dis, MPI_INT, g);
    MPI_Neighbor_alltoall(s, K, MPI_INT, r, K, MPI_INT, g);
    MPI_Neighbor_alltoallv(s, cnt, dis, MPI_INT, r, cnt, dis, MPI_INT, g);
    MPI_Neighbor_alltoallw(s, cnt, bd, ty, r, cnt, bd, ty, g);
    MPI_Ineighbor_allgather(s, K, MPI_INT, r, K, MPI_INT, g, q);
    wait_all(q, 1);
    MPI_Ineighbor_allgatherv(s, K, MPI_INT, r, cnt, dis, MPI_INT, g, q);
    wait_all(q, 1);
    MPI_Ineighbor_alltoall(s, K, MPI_INT, r, K, MPI_INT, g, q);
    wait_all(q, 1);
    MPI_Ineighbor_alltoallv(s, cnt, dis, MPI_INT, r, cnt, dis, MPI_INT, g, q);
    wait_all(q, 1);
    MPI_Ineighbor_alltoallw(s, cnt, bd, ty, r, cnt, bd, ty, g, q);
    wait_all(q, 1);
    MPI_Comm_free(&g);
}

static int others(int rank, int P) {
    MPI_Op nc;
    MPI_Op_create(first_of, 0, &nc);
    others_intra(MPI_COMM_WORLD, nc);
    others_neighbors();
    if (P >= 2) {
        MPI_Comm half, inter;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7,
                             &inter);
        others_inter(inter);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    MPI_Op_free(&nc);
    if (rank == 0) printf("probe: others %d ok\n", P);
    return 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc == 2 && !strcmp(argv[1], "others")) {
        int rc = others(rank, P);
        MPI_Finalize();
        return rc;
    }
    long bytes = argc == 3 ? atol(argv[2]) : 0;
    if (bytes < 8 || bytes % 8) {
        if (rank == 0)
            fprintf(stderr, "usage: export_probe gather|scatter|bcast|"
                    "reduce|allreduce BYTES (a multiple of 8) | others\n");
        MPI_Finalize();
        return 2;
    }
    long n = bytes / 8;
    double *res = calloc((size_t)n, sizeof *res);
    /* Profiling on for the probed call only (a tracing preload counts what
     * happens in between; MPI_Pcontrol does nothing otherwise). */
    MPI_Pcontrol(1);
    int bad = run(argv[1], n, rank, P, res), anybad = 0;
    MPI_Pcontrol(0);
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
        if (anybad)
            printf("probe: %s %d bytes %ld WRONG DATA\n", argv[1], P, bytes);
        else if (strstr(argv[1], "reduce"))
            printf("probe: %s %d bytes %ld ok fingerprint %016llx\n",
                   argv[1], P, bytes,
                   (unsigned long long)fnv1a(res, (size_t)n * sizeof *res));
        else
            printf("probe: %s %d bytes %ld ok\n", argv[1], P, bytes);
        fflush(stdout);
    }
    free(res);
    MPI_Finalize();
    return anybad ? 1 : 0;
}
