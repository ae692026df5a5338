/*
 * pmpi.h — internal interface of the drop-in layer (libpapcoll-pmpi.so).
 *
 * One function per intercepted MPI call, with MPI's C signature.  The C
 * entry points (MPI_Gather, ... in pmpi.c) and the Fortran ones
 * (mpi_gather_ and friends in fortran.c, when present) both call these,
 * so the routing rules live in one place:
 *
 *   - the layer is off (PAPC_PMPI=0, read once), MPI is not initialized or
 *     already finalized: the call goes to PMPI_* unchanged;
 *   - otherwise papcoll's plain call runs it (PAPC_<COLL>_ALGORITHM
 *     forces an algorithm);
 *   - papcoll refused it before starting (intercommunicator, an argument
 *     it does not serve: papc_last_call_started() == 0): PMPI_* runs it,
 *     so the program gets MPI's own answer;
 *   - papcoll failed after starting: the code goes through the
 *     communicator's error handler (MPI_Comm_call_errhandler), then back
 *     to the program, as MPI would do it.
 *
 * Fortran callers convert their handles (MPI_Comm_f2c, ...) and their
 * MPI_IN_PLACE / MPI_BOTTOM sentinels to C ones before calling.
 * Uses papcoll's public API only.
 */
#ifndef PAPC_PMPI_H
#define PAPC_PMPI_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MPI_Init / MPI_Init_thread: read the layer's environment once; ask MPI
 * for MPI_THREAD_MULTIPLE when the arrival monitor may run (PAPC_MONITOR
 * not 0); report to the program min(level it asked for, level MPI gave). */
int papc_pmpi_init(int *argc, char ***argv);
int papc_pmpi_init_thread(int *argc, char ***argv, int required,
                          int *provided);
/* MPI_Query_thread: the level reported by the layer's init (the program's
 * view), MPI's own when the layer did not raise it. */
int papc_pmpi_query_thread(int *provided);
/* MPI_Finalize. */
int papc_pmpi_finalize(void);

int papc_pmpi_gather(const void *sendbuf, int sendcount,
                     MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm);
int papc_pmpi_scatter(const void *sendbuf, int sendcount,
                      MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm);
int papc_pmpi_bcast(void *buffer, int count, MPI_Datatype datatype, int root,
                    MPI_Comm comm);
int papc_pmpi_reduce(const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, int root,
                     MPI_Comm comm);
int papc_pmpi_allreduce(const void *sendbuf, void *recvbuf, int count,
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int papc_pmpi_gatherv(const void *sendbuf, int sendcount,
                      MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[],
                      MPI_Datatype recvtype, int root, MPI_Comm comm);
int papc_pmpi_scatterv(const void *sendbuf, const int sendcounts[],
                       const int displs[], MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm);

/* The finalize report (report.c, PAPC_REPORT=<file>).  The flag is read
 * once per call by the C entry points; it is set by
 * papc_pmpi_report_init (at MPI_Init, when PAPC_REPORT is set) and
 * cleared by papc_pmpi_report_finalize (at MPI_Finalize, which writes the
 * report; collective over MPI_COMM_WORLD). */
extern int papc_pmpi_report_on __attribute__((visibility("hidden")));
void papc_pmpi_report_init(void) __attribute__((visibility("hidden")));
void papc_pmpi_report_finalize(void) __attribute__((visibility("hidden")));
/* After a call from return address ra entered at t0 (PMPI_Wtime). */
void papc_pmpi_report_leave(void *ra, int coll, double t0, double bytes)
    __attribute__((visibility("hidden")));
/* This rank's send + receive payload of a call, in bytes (report.c). */
double papc_pmpi_bytes(int coll, int root, MPI_Comm comm, const void *sbuf,
                       int scount, MPI_Datatype stype, const void *rbuf,
                       int rcount, MPI_Datatype rtype, const int *counts)
    __attribute__((visibility("hidden")));

#ifdef __cplusplus
}
#endif
#endif /* PAPC_PMPI_H */
