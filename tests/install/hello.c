/* A program that links papcoll directly (pkg-config or find_package). */
#include <stdio.h>
#include <mpi.h>
#include <papcoll.h>

int main(int argc, char **argv) {
    int rank, size, one = 1, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rc = papc_allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("papcoll %s: allreduce %s gave %d of %d\n", PAPC_VERSION_STRING,
               papc_last_algorithm(PAPC_ALLREDUCE), sum, size);
    MPI_Finalize();
    return rc != MPI_SUCCESS || sum != size;
}
