/*
 * ring_exchange — every rank sends SIZE bytes to rank + 1 and receives
 * SIZE bytes from rank - 1 at the same time (MPI_Sendrecv), the traffic of
 * one ring-allreduce step with every link busy in both directions.  Prints
 * per size the median over the repetitions of the slowest rank's time, the
 * rate per rank and the aggregate rate (P x SIZE / time) in MB/s.
 *
 *   mpirun -np 8 ring_exchange [-i REPS] [SIZE...]   (default 64K 1M 8M)
 *
 * docs/scale.md uses it to calibrate the SMPI platform of the emulated
 * cluster: on one machine the emulated hosts share its cores, so the
 * cluster's total throughput is bounded by the machine, not by the links
 * (sim/platforms/calib8.xml's backbone), and the same probe under SMPI
 * checks that the platform reproduces it.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static long parse_size(const char *s) {
    char *end;
    long v = strtol(s, &end, 10);
    if (*end == 'k' || *end == 'K') v <<= 10;
    else if (*end == 'm' || *end == 'M') v <<= 20;
    return *end && !strchr("kKmM", *end) ? -1 : v;
}

/* The slowest rank's time of one simultaneous exchange, median of reps. */
static double exchange_time(char *out, char *in, long n, int reps, int rank,
                            int size) {
    double *t = malloc((size_t)reps * sizeof *t);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_Sendrecv(out, (int)n, MPI_CHAR, next, 0, in, (int)n, MPI_CHAR,
                     prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double mine = MPI_Wtime() - t0;
        MPI_Allreduce(&mine, &t[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    qsort(t, (size_t)reps, sizeof *t, by_value);
    double med = t[reps / 2];
    free(t);
    return med;
}

int main(int argc, char **argv) {
    int rank, size, reps = 20, nsizes = 0;
    long sizes[32], maxn = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-i") && a + 1 < argc) reps = atoi(argv[++a]);
        else if (nsizes < 32) sizes[nsizes++] = parse_size(argv[a]);
    }
    if (nsizes == 0) {
        long d[] = {64L << 10, 1L << 20, 8L << 20};
        for (; nsizes < 3; nsizes++) sizes[nsizes] = d[nsizes];
    }
    for (int i = 0; i < nsizes; i++) {
        if (sizes[i] <= 0 || sizes[i] > (1L << 30) || reps < 1) {
            if (rank == 0) fprintf(stderr, "ring_exchange: bad size or -i\n");
            MPI_Finalize();
            return 2;
        }
        if (sizes[i] > maxn) maxn = sizes[i];
    }
    char *out = calloc((size_t)maxn, 1), *in = calloc((size_t)maxn, 1);
    if (rank == 0)
        printf("# ring_exchange: P = %d, median of %d; bytes time_us "
               "per_rank_MBps aggregate_MBps\n", size, reps);
    for (int i = 0; i < nsizes; i++) {
        double t = exchange_time(out, in, sizes[i], reps, rank, size);
        if (rank == 0)
            printf("%10ld %12.1f %10.1f %10.1f\n", sizes[i], t * 1e6,
                   sizes[i] / t / 1e6, size * (double)sizes[i] / t / 1e6);
    }
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
