/* testbed/pingpong.c — MPI ping-pong between ranks 0 and 1: the one-way time
 * (round trip / 2) and the bandwidth of a link, as MPI sees it. Used to
 * measure the emulated cluster (testbed/README.md); other ranks only wait.
 *
 *   mpicc -O2 -o /tmp/pingpong testbed/pingpong.c
 *   testbed/run -n 2 -- /tmp/pingpong [-i ITER] [SIZE...]
 *
 * SIZE in bytes (K/M suffixes); default 1 1K 64K 1M 8M. For each size:
 * median and minimum one-way time in us and the rate in Mbit/s of the median.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static long parse_size(const char *s) {
    char *end;
    long v = strtol(s, &end, 10);
    if (*end == 'k' || *end == 'K') v <<= 10;
    else if (*end == 'm' || *end == 'M') v <<= 20;
    return v;
}

int main(int argc, char **argv) {
    int rank, size, iters = 200;
    long sizes[32];
    int nsizes = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-i") && a + 1 < argc) iters = atoi(argv[++a]);
        else if (nsizes < 32) sizes[nsizes++] = parse_size(argv[a]);
    }
    if (nsizes == 0) {
        long d[] = {1, 1 << 10, 64 << 10, 1 << 20, 8 << 20};
        for (nsizes = 0; nsizes < 5; nsizes++) sizes[nsizes] = d[nsizes];
    }
    if (size < 2) {
        if (rank == 0) fprintf(stderr, "pingpong: needs 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    if (rank == 0) printf("# %10s %6s %12s %12s %12s\n", "bytes", "iters", "median_us", "min_us", "Mbit/s");
    for (int s = 0; s < nsizes; s++) {
        long n = sizes[s];
        int it = n >= (1 << 20) ? (iters < 20 ? iters : 20) : iters;
        char *buf = calloc((size_t)n + 1, 1);
        double *t = malloc(sizeof(double) * (size_t)it);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = -5; i < it; i++) {             /* 5 warm-up round trips */
            double t0 = MPI_Wtime();
            if (rank == 0) {
                MPI_Send(buf, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
            if (i >= 0) t[i] = (MPI_Wtime() - t0) / 2 * 1e6;
        }
        if (rank == 0) {
            qsort(t, (size_t)it, sizeof *t, cmp);
            double med = t[it / 2];
            printf("  %10ld %6d %12.1f %12.1f %12.1f\n", n, it, med, t[0], n * 8.0 / med);
            fflush(stdout);
        }
        free(buf);
        free(t);
    }
    MPI_Finalize();
    return 0;
}
