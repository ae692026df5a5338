/*
 * export_probe.c — one native MPI collective, for the tests that prove an
 * exported rules file is applied (check-export-ompi.sh, check-export-mpich.sh).
 * Plain MPI, no papcoll: it is built against Open MPI and against MPICH.
 *
 *   export_probe COLL BYTES
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
 * Exit status 1 when the data are wrong.
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

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    long bytes = argc == 3 ? atol(argv[2]) : 0;
    if (bytes < 8 || bytes % 8) {
        if (rank == 0)
            fprintf(stderr, "usage: export_probe gather|scatter|bcast|"
                    "reduce|allreduce BYTES (a multiple of 8)\n");
        MPI_Finalize();
        return 2;
    }
    long n = bytes / 8;
    double *res = calloc((size_t)n, sizeof *res);
    int bad = run(argv[1], n, rank, P, res), anybad = 0;
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
