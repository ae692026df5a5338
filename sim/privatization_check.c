/*
 * privatization_check — does each simulated rank have its own copy of
 * papcoll's globals?  (issue 16, item 1; run under smpirun by ctest.)
 *
 * SMPI privatizes the globals of the simulated program (the tool's shared
 * object, copied once per rank) but not those of the shared libraries it
 * loads.  papcoll keeps per-process state in globals (the selection mode,
 * the last algorithm, the private-communicator cache, the monitor), so the
 * SMPI build links it statically into each tool.  Every rank writes its
 * own value into one such global (papc_set_arrival_selection: rank parity),
 * all ranks pass a barrier, then each reads it back: with private globals
 * every rank finds its own value; with one shared copy the odd or the even
 * ranks find the other's.  Prints "private globals: ok" or "SHARED globals:
 * N of P ranks saw another rank's value" and exits 1.
 */
#include <stdio.h>
#include <mpi.h>
#include "papcoll.h"

int main(int argc, char **argv) {
    int rank, size, wrong, total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    papc_set_arrival_selection(rank % 2);
    MPI_Barrier(MPI_COMM_WORLD);
    wrong = papc_get_arrival_selection() != rank % 2;
    MPI_Reduce(&wrong, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total)
            printf("SHARED globals: %d of %d ranks saw another rank's "
                   "value\n", total, size);
        else
            printf("private globals: ok (%d ranks)\n", size);
    }
    MPI_Finalize();
    return total ? 1 : 0;
}
