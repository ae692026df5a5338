/*
 * test_fortran_names.c — every name mangling of fortran.c's entry points
 * (mpi_allreduce_, mpi_allreduce__, mpi_allreduce, MPI_ALLREDUCE; the
 * same macro makes all seven collectives' names), called from C the way a
 * Fortran compiler would: by reference, MPI_Fint handles, ierror last, and
 * Open MPI's Fortran MPI_IN_PLACE (the common block mpi_fortran_in_place_)
 * as the send buffer.  Linked with libpapc-ftest.so, whose counts are
 * checked at exit (PAPC_FTEST_EXPECT).  Prints PASS or FAIL.
 */
#include <mpi.h>

#include <stdio.h>

typedef void f_allreduce(void *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                         MPI_Fint *, MPI_Fint *);
f_allreduce mpi_allreduce_, mpi_allreduce__, mpi_allreduce, MPI_ALLREDUCE;
extern int mpi_fortran_in_place_; /* Open MPI's Fortran MPI_IN_PLACE */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    f_allreduce *const fns[] = {mpi_allreduce_, mpi_allreduce__, mpi_allreduce,
                                MPI_ALLREDUCE};
    MPI_Fint count = 2, type = MPI_Type_c2f(MPI_INT), op = MPI_Op_c2f(MPI_SUM),
             comm = MPI_Comm_c2f(MPI_COMM_WORLD);
    for (int i = 0; i < 4; i++) {
        int buf[2] = {rank, i};
        MPI_Fint ierr = -1;
        fns[i](&mpi_fortran_in_place_, buf, &count, &type, &op, &comm, &ierr);
        if (ierr != MPI_SUCCESS || buf[0] != size * (size - 1) / 2 ||
            buf[1] != size * i) {
            printf("test_fortran_names: FAIL rank %d variant %d\n", rank, i);
            bad = 1;
        }
    }
    if (!bad)
        printf("test_fortran_names: PASS rank %d\n", rank);
    MPI_Finalize();
    return bad;
}
