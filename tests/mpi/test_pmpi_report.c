/* test_pmpi_report.c — the finalize report's test program (PAPC_REPORT, issue 13
 * item 5), run under libpapcoll-pmpi.so: two call sites, an allreduce in a
 * loop (REPORT_ALLREDUCE_CALLS calls; the last rank sleeps
 * REPORT_SLEEP_MS before each) and a bcast (REPORT_BCAST_CALLS calls); a
 * third site, a bcast on MPI_COMM_SELF by rank 0 only, is a site not every
 * rank reached (reported as such). */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define REPORT_ALLREDUCE_CALLS 20
#define REPORT_BCAST_CALLS 5
#define REPORT_SLEEP_MS 5

static void sleep_ms(int ms) {
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double x[4] = {1, 2, 3, 4}, y[4];
    for (int i = 0; i < REPORT_ALLREDUCE_CALLS; i++) {
        if (rank == size - 1) sleep_ms(REPORT_SLEEP_MS);
        MPI_Allreduce(x, y, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (y[0] != size) {
            printf("FAIL allreduce: %g\n", y[0]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    int b[16] = {0};
    for (int i = 0; i < REPORT_BCAST_CALLS; i++) {
        if (rank == 0) b[0] = i + 1;
        MPI_Bcast(b, 16, MPI_INT, 0, MPI_COMM_WORLD);
        if (b[0] != i + 1) {
            printf("FAIL bcast\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    if (rank == 0) MPI_Bcast(b, 1, MPI_INT, 0, MPI_COMM_SELF);
    MPI_Finalize();
    return 0;
}
