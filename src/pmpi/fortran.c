/*
 * fortran.c — the drop-in layer's Fortran entry points (issue 13, item 1).
 *
 * Open MPI's Fortran bindings (mpif.h and `use mpi`, libmpi_mpifh.so) call
 * PMPI_Gather and friends directly, so a layer that only defines the C
 * names never sees a Fortran program's collectives.  This file defines the
 * Fortran names of the seven collectives the layer serves, converts the
 * arguments the way Open MPI's own ompi_gather_f & co. do, and calls the C
 * entry point MPI_Gather & co.: inside libpapcoll-pmpi.so that call binds
 * to the layer's own definition (preloaded, so first in the lookup scope),
 * and so reaches papcoll; without the layer it would be MPI's.
 *
 * Fortran passes everything by reference: handles and integers as MPI_Fint,
 * the error code last (ierror).  Every name-mangling a Fortran compiler
 * may use is defined (mpi_gather_, mpi_gather__, mpi_gather, MPI_GATHER);
 * a gfortran program binds mpi_gather_, as libmpi_mpifh.so exports it
 * (weakly, so the preloaded strong definition wins either way).
 *
 * MPI_IN_PLACE and MPI_BOTTOM in Fortran are not C's values: Open MPI makes
 * each the address of a common block (mpi_fortran_in_place_,
 * mpi_fortran_bottom_ with gfortran; libmpi.so defines the variant its
 * Fortran compiler uses), and its bindings compare the buffer address with
 * every mangled variant (OMPI_F2C_IN_PLACE / OMPI_F2C_BOTTOM in
 * ompi/mpi/fortran/base/constants.h).  Here the variants are weak
 * references, so the ones this Open MPI does not define are NULL and never
 * match.  A program compiled against the module gets a copy of the common
 * block (copy relocation) and every library, this one included, binds to
 * that copy, so the addresses agree.  Buffers are translated exactly where
 * Open MPI 4.1 translates them: IN_PLACE on the buffer the standard allows
 * it for (sendbuf of gather/gatherv/reduce/allreduce, recvbuf of
 * scatter/scatterv), BOTTOM on every buffer.
 *
 * Open MPI only (#ifdef OPEN_MPI): MPICH's Fortran wrappers call MPI_Gather
 * (not PMPI_Gather), so the C layer already sees them there, and MPICH's
 * sentinels are its own; under another MPI this file compiles to nothing.
 *
 * The Fortran bindings of mpi_f08 (mpi_gather_f08_ in libmpi_usempif08) are
 * not intercepted: they call Open MPI's ompi_gather_f, which calls
 * PMPI_Gather.
 */
#include <mpi.h>

#include <stdlib.h>

#ifdef OPEN_MPI

#define PAPC_F_EXPORT __attribute__((visibility("default")))

/* Open MPI's Fortran sentinels, every mangling; weak: absent ones are NULL. */
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_in_place__ __attribute__((weak));
extern int mpi_fortran_in_place __attribute__((weak));
extern int MPI_FORTRAN_IN_PLACE __attribute__((weak));
extern int mpi_fortran_bottom_ __attribute__((weak));
extern int mpi_fortran_bottom__ __attribute__((weak));
extern int mpi_fortran_bottom __attribute__((weak));
extern int MPI_FORTRAN_BOTTOM __attribute__((weak));

static int is_addr(const void *buf, const void *sentinel)
{
    return sentinel != NULL && buf == sentinel;
}

static int f_is_in_place(const void *buf)
{
    return is_addr(buf, &mpi_fortran_in_place_) ||
           is_addr(buf, &mpi_fortran_in_place__) ||
           is_addr(buf, &mpi_fortran_in_place) ||
           is_addr(buf, &MPI_FORTRAN_IN_PLACE);
}

static int f_is_bottom(const void *buf)
{
    return is_addr(buf, &mpi_fortran_bottom_) ||
           is_addr(buf, &mpi_fortran_bottom__) ||
           is_addr(buf, &mpi_fortran_bottom) ||
           is_addr(buf, &MPI_FORTRAN_BOTTOM);
}

/* A buffer that may be MPI_IN_PLACE or MPI_BOTTOM. */
static void *f2c_in_place(void *buf)
{
    if (f_is_in_place(buf))
        return MPI_IN_PLACE;
    return f_is_bottom(buf) ? MPI_BOTTOM : buf;
}

/* A buffer that may be MPI_BOTTOM (never MPI_IN_PLACE). */
static void *f2c_bottom(void *buf)
{
    return f_is_bottom(buf) ? MPI_BOTTOM : buf;
}

static void set_ierror(MPI_Fint *ierror, int rc)
{
    if (ierror != NULL)
        *ierror = (MPI_Fint)rc;
}

/*
 * A Fortran integer array (counts, displacements) as a C int array.  Where
 * MPI_Fint is int (the default) this is a cast; otherwise (-fdefault-
 * integer-8 builds) a copy of the comm's size — remote size of an
 * intercommunicator — entries, made only where the array is significant
 * (the root; MPI_ROOT for an intercommunicator).  *tmp is to be freed.
 */
static int f2c_array(const MPI_Fint *a, MPI_Comm comm, int root,
                     const int **out, int **tmp)
{
    *tmp = NULL;
    if (sizeof(MPI_Fint) == sizeof(int)) {
        *out = (const int *)a;
        return MPI_SUCCESS;
    }
    *out = NULL;
    int inter = 0, n = 0, rank = -1;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return MPI_SUCCESS; /* MPI itself reports the bad communicator */
    if (inter) {
        if (root != MPI_ROOT)
            return MPI_SUCCESS;
        PMPI_Comm_remote_size(comm, &n);
    } else {
        PMPI_Comm_rank(comm, &rank);
        if (rank != root)
            return MPI_SUCCESS;
        PMPI_Comm_size(comm, &n);
    }
    *tmp = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (*tmp == NULL) {
        PMPI_Comm_call_errhandler(comm, MPI_ERR_NO_MEM);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < n; i++)
        (*tmp)[i] = (int)a[i];
    *out = *tmp;
    return MPI_SUCCESS;
}

/* ---- the conversions, one per collective ---- */

static void f_gather(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
                     void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype,
                     MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierror)
{
    set_ierror(ierror, MPI_Gather(f2c_in_place(sendbuf), (int)*sendcount,
                                  PMPI_Type_f2c(*sendtype), f2c_bottom(recvbuf),
                                  (int)*recvcount, PMPI_Type_f2c(*recvtype),
                                  (int)*root, PMPI_Comm_f2c(*comm)));
}

static void f_scatter(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
                      void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype,
                      MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierror)
{
    set_ierror(ierror, MPI_Scatter(f2c_bottom(sendbuf), (int)*sendcount,
                                   PMPI_Type_f2c(*sendtype),
                                   f2c_in_place(recvbuf), (int)*recvcount,
                                   PMPI_Type_f2c(*recvtype), (int)*root,
                                   PMPI_Comm_f2c(*comm)));
}

static void f_bcast(void *buffer, MPI_Fint *count, MPI_Fint *datatype,
                    MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierror)
{
    set_ierror(ierror, MPI_Bcast(f2c_bottom(buffer), (int)*count,
                                 PMPI_Type_f2c(*datatype), (int)*root,
                                 PMPI_Comm_f2c(*comm)));
}

static void f_reduce(void *sendbuf, void *recvbuf, MPI_Fint *count,
                     MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *root,
                     MPI_Fint *comm, MPI_Fint *ierror)
{
    set_ierror(ierror, MPI_Reduce(f2c_in_place(sendbuf), f2c_bottom(recvbuf),
                                  (int)*count, PMPI_Type_f2c(*datatype),
                                  PMPI_Op_f2c(*op), (int)*root,
                                  PMPI_Comm_f2c(*comm)));
}

static void f_allreduce(void *sendbuf, void *recvbuf, MPI_Fint *count,
                        MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm,
                        MPI_Fint *ierror)
{
    set_ierror(ierror, MPI_Allreduce(f2c_in_place(sendbuf),
                                     f2c_bottom(recvbuf), (int)*count,
                                     PMPI_Type_f2c(*datatype),
                                     PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm)));
}

static void f_gatherv(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
                      void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *displs,
                      MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm,
                      MPI_Fint *ierror)
{
    MPI_Comm c_comm = PMPI_Comm_f2c(*comm);
    const int *c_counts, *c_displs;
    int *t_counts, *t_displs = NULL;
    int rc = f2c_array(recvcounts, c_comm, (int)*root, &c_counts, &t_counts);
    if (rc == MPI_SUCCESS)
        rc = f2c_array(displs, c_comm, (int)*root, &c_displs, &t_displs);
    if (rc == MPI_SUCCESS)
        rc = MPI_Gatherv(f2c_in_place(sendbuf), (int)*sendcount,
                         PMPI_Type_f2c(*sendtype), f2c_bottom(recvbuf),
                         c_counts, c_displs, PMPI_Type_f2c(*recvtype),
                         (int)*root, c_comm);
    free(t_counts);
    free(t_displs);
    set_ierror(ierror, rc);
}

static void f_scatterv(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs,
                       MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                       MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm,
                       MPI_Fint *ierror)
{
    MPI_Comm c_comm = PMPI_Comm_f2c(*comm);
    const int *c_counts, *c_displs;
    int *t_counts, *t_displs = NULL;
    int rc = f2c_array(sendcounts, c_comm, (int)*root, &c_counts, &t_counts);
    if (rc == MPI_SUCCESS)
        rc = f2c_array(displs, c_comm, (int)*root, &c_displs, &t_displs);
    if (rc == MPI_SUCCESS)
        rc = MPI_Scatterv(f2c_bottom(sendbuf), c_counts, c_displs,
                          PMPI_Type_f2c(*sendtype), f2c_in_place(recvbuf),
                          (int)*recvcount, PMPI_Type_f2c(*recvtype),
                          (int)*root, c_comm);
    free(t_counts);
    free(t_displs);
    set_ierror(ierror, rc);
}

/* ---- every mangling of every name ---- */

/* Declares and defines lower_, lower__, lower and UPPER, each calling impl. */
#define PAPC_F_NAME(name, impl, params, args)                                 \
    PAPC_F_EXPORT void name params;                                           \
    void name params { impl args; }
#define PAPC_F_NAMES(lower, upper, impl, params, args)                        \
    PAPC_F_NAME(lower##_, impl, params, args)                                 \
    PAPC_F_NAME(lower##__, impl, params, args)                                \
    PAPC_F_NAME(lower, impl, params, args)                                    \
    PAPC_F_NAME(upper, impl, params, args)

PAPC_F_NAMES(mpi_gather, MPI_GATHER, f_gather,
             (void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc,
              MPI_Fint *rt, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),
             (sb, sc, st, rb, rc, rt, root, comm, ierr))

PAPC_F_NAMES(mpi_scatter, MPI_SCATTER, f_scatter,
             (void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc,
              MPI_Fint *rt, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),
             (sb, sc, st, rb, rc, rt, root, comm, ierr))

PAPC_F_NAMES(mpi_bcast, MPI_BCAST, f_bcast,
             (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root,
              MPI_Fint *comm, MPI_Fint *ierr),
             (buf, count, type, root, comm, ierr))

PAPC_F_NAMES(mpi_reduce, MPI_REDUCE, f_reduce,
             (void *sb, void *rb, MPI_Fint *count, MPI_Fint *type,
              MPI_Fint *op, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),
             (sb, rb, count, type, op, root, comm, ierr))

PAPC_F_NAMES(mpi_allreduce, MPI_ALLREDUCE, f_allreduce,
             (void *sb, void *rb, MPI_Fint *count, MPI_Fint *type,
              MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr),
             (sb, rb, count, type, op, comm, ierr))

PAPC_F_NAMES(mpi_gatherv, MPI_GATHERV, f_gatherv,
             (void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rcs,
              MPI_Fint *displs, MPI_Fint *rt, MPI_Fint *root, MPI_Fint *comm,
              MPI_Fint *ierr),
             (sb, sc, st, rb, rcs, displs, rt, root, comm, ierr))

PAPC_F_NAMES(mpi_scatterv, MPI_SCATTERV, f_scatterv,
             (void *sb, MPI_Fint *scs, MPI_Fint *displs, MPI_Fint *st,
              void *rb, MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *root,
              MPI_Fint *comm, MPI_Fint *ierr),
             (sb, scs, displs, st, rb, rc, rt, root, comm, ierr))

#else /* !OPEN_MPI */

/* Not Open MPI: its Fortran bindings reach the C layer's MPI_* already. */
typedef int papc_pmpi_fortran_unused;

#endif /* OPEN_MPI */
