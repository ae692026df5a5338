/* call.c — the public entry points: validate the arguments as MPI would,
 * fill one papc_call descriptor and hand it to dispatch.  Nothing is sent
 * and no user buffer is touched before validation has passed. */
#include <stdlib.h>
#include <string.h>
#include "core.h"

#define DEFAULT_SEGSIZE 8192
#define DEFAULT_FIRST_SEGMENT 1024

size_t papc_env_size(const char *name, size_t dflt) {
    const char *v = papc_getenv(name);
    if (!v || !*v) return dflt;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (end == v) return dflt;
    if (*end == 'k' || *end == 'K') x <<= 10;
    else if (*end == 'm' || *end == 'M') x <<= 20;
    return (size_t)x;
}

size_t papc_pipeline_max_segment(void) {
    return papc_env_size("PAPC_PIPELINE_MAX_SEGMENT", 64512);
}

/* ---- argument checks; each returns MPI_SUCCESS or an error class ---- */

int papc_check_comm(MPI_Comm comm, int *rank, int *size) {
    int init = 0, fin = 0, inter = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (!init || fin)
        return papc_error(MPI_ERR_OTHER, "MPI is not initialized");
    if (comm == MPI_COMM_NULL)
        return papc_error(MPI_ERR_COMM, "communicator is MPI_COMM_NULL");
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return papc_error(MPI_ERR_COMM, "invalid communicator");
    if (inter)
        return papc_error(MPI_ERR_COMM, "intercommunicators are not "
                          "supported; use an intracommunicator");
    MPI_Comm_rank(comm, rank);
    MPI_Comm_size(comm, size);
    return MPI_SUCCESS;
}

static int check_root(int root, int size) {
    if (root < 0 || root >= size)
        return papc_error(MPI_ERR_ROOT, "root %d is not a rank of a "
                          "communicator of size %d", root, size);
    return MPI_SUCCESS;
}

static int check_type(MPI_Datatype t, const char *what) {
    if (t == MPI_DATATYPE_NULL)
        return papc_error(MPI_ERR_TYPE, "%s is MPI_DATATYPE_NULL", what);
    return MPI_SUCCESS;
}

static int check_count(int count, const char *what) {
    if (count < 0)
        return papc_error(MPI_ERR_COUNT, "%s is negative (%d)", what, count);
    return MPI_SUCCESS;
}

/* NULL with data to move is an error, unless the type carries absolute
 * addresses (NULL is then MPI_BOTTOM, which MPI allows). */
static int check_buffer(const void *buf, int count, MPI_Datatype t,
                        const char *what) {
    if (buf == MPI_IN_PLACE)
        return papc_error(MPI_ERR_BUFFER, "%s cannot be MPI_IN_PLACE here",
                          what);
    if (buf != NULL || count == 0 || papc_type_size(t) == 0)
        return MPI_SUCCESS;
    MPI_Aint tlb, text;
    MPI_Type_get_true_extent(t, &tlb, &text);
    if (tlb != 0) return MPI_SUCCESS;
    return papc_error(MPI_ERR_BUFFER, "%s is NULL but count is %d", what,
                      count);
}

/* A (count, type) argument significant on this rank. */
static int check_data(const void *buf, int count, MPI_Datatype t,
                      const char *what) {
    int rc = check_count(count, what);
    if (rc == MPI_SUCCESS) rc = check_type(t, what);
    if (rc == MPI_SUCCESS) rc = check_buffer(buf, count, t, what);
    return rc;
}

static int check_signatures(int scount, MPI_Datatype stype, int rcount,
                            MPI_Datatype rtype) {
    size_t s = (size_t)scount * papc_type_size(stype);
    size_t r = (size_t)rcount * papc_type_size(rtype);
    if (s != r)
        return papc_error(s > r ? MPI_ERR_TRUNCATE : MPI_ERR_TYPE,
                          "type signatures differ: %zu bytes sent, %zu bytes "
                          "expected", s, r);
    return MPI_SUCCESS;
}

static int is_predefined_op(MPI_Op op) {
    static const MPI_Op ops[] = {MPI_MAX,  MPI_MIN,  MPI_SUM,    MPI_PROD,
                                 MPI_LAND, MPI_BAND, MPI_LOR,    MPI_BOR,
                                 MPI_LXOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC,
                                 MPI_REPLACE, MPI_NO_OP};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (op == ops[i]) return 1;
    return 0;
}

/* The MPI standard defines predefined ops on predefined datatypes only;
 * Open MPI refuses derived ones deep inside the reduction, on the ranks
 * that reduce, which would leave the others waiting: refuse up front, the
 * same way on every rank. */
static int check_op(MPI_Op op, MPI_Datatype t, int *commutative) {
    int nint, nadd, ntype, combiner;
    if (op == MPI_OP_NULL) return papc_error(MPI_ERR_OP, "op is MPI_OP_NULL");
    if (MPI_Op_commutative(op, commutative) != MPI_SUCCESS)
        return papc_error(MPI_ERR_OP, "invalid op");
    if (is_predefined_op(op) &&
        MPI_Type_get_envelope(t, &nint, &nadd, &ntype, &combiner) ==
            MPI_SUCCESS &&
        combiner != MPI_COMBINER_NAMED)
        return papc_error(MPI_ERR_OP, "a predefined op needs a predefined "
                          "datatype; use a user-defined op for derived ones");
    return MPI_SUCCESS;
}

static int check_vector(const int *counts, const int *displs, int size,
                        const char *what) {
    if (!counts || !displs)
        return papc_error(MPI_ERR_ARG, "%s or displs is NULL at the root",
                          what);
    for (int i = 0; i < size; i++)
        if (counts[i] < 0)
            return papc_error(MPI_ERR_COUNT, "%s[%d] is negative (%d)", what,
                              i, counts[i]);
    return MPI_SUCCESS;
}

/* ---- the common path ---- */

/* Fills the communicator part of c, advancing the call counter on every
 * rank even when this rank's arguments turn out to be bad, so later calls'
 * tags stay in step. */
static int begin(papc_call *c, papc_collective coll, MPI_Comm comm) {
    unsigned seq;
    papc_call_started = 0;
    memset(c, 0, sizeof *c);
    c->coll = coll;
    c->op = MPI_OP_NULL;
    c->commutative = 1;
    c->root = -1;
    int rc = papc_check_comm(comm, &c->rank, &c->size);
    if (rc != MPI_SUCCESS) return rc;
    rc = papc_private_comm(comm, &c->comm, &seq);
    if (rc != MPI_SUCCESS) return rc;
    c->user_comm = comm;
    c->tag = papc_call_tag(seq);
    c->segsize = papc_env_size("PAPC_SEGSIZE", DEFAULT_SEGSIZE);
    c->first_segment =
        papc_env_size("PAPC_GATHER_FIRST_SEGMENT", DEFAULT_FIRST_SEGMENT);
    return MPI_SUCCESS;
}

#define TRY(expr)                                                             \
    do {                                                                      \
        int rc_ = (expr);                                                     \
        if (rc_ != MPI_SUCCESS) return rc_;                                   \
    } while (0)

/* The end of a public call: the settings mask of the call's
 * communicator (papc_private_comm) stops applying. */
static int done(int rc) {
    papc_settings_leave();
    return rc;
}

/* ---- gather / scatter and their v variants ---- */

/* Starts a rooted data-movement call: begin(), the root checked, the
 * descriptor filled as passed, and the side every rank has (gather and
 * gatherv send, scatter and scatterv receive) checked unless the root
 * passed MPI_IN_PLACE there (*in_place).  The root's other side, one
 * block per rank or counts and displacements, is the caller's to check. */
static int begin_rooted(papc_call *c, papc_collective coll,
                        const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm,
                        int *in_place) {
    TRY(begin(c, coll, comm));
    TRY(check_root(root, c->size));
    c->sendbuf = sendbuf;
    c->recvbuf = recvbuf;
    c->sendcount = sendcount;
    c->recvcount = recvcount;
    c->sendtype = sendtype;
    c->recvtype = recvtype;
    c->root = root;
    int gather = coll == PAPC_GATHER || coll == PAPC_GATHERV;
    const void *mine = gather ? sendbuf : recvbuf;
    *in_place = c->rank == root && mine == MPI_IN_PLACE;
    if (*in_place) return MPI_SUCCESS;
    return check_data(mine, gather ? sendcount : recvcount,
                      gather ? sendtype : recvtype,
                      gather ? "sendbuf" : "recvbuf");
}

static int gather_like_(papc_collective coll, const void *sendbuf,
                       int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, const char *alg) {
    papc_call c;
    int in_place;
    TRY(begin_rooted(&c, coll, sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, root, comm, &in_place));
    int is_root = c.rank == root;
    int gather = coll == PAPC_GATHER;
    /* The root's side: gather receives, scatter sends. */
    const void *all = gather ? recvbuf : sendbuf;
    int acount = gather ? recvcount : sendcount;
    MPI_Datatype atype = gather ? recvtype : sendtype;
    if (is_root) {
        TRY(check_data(all, acount, atype, gather ? "recvbuf" : "sendbuf"));
        if (!in_place)
            TRY(check_signatures(sendcount, sendtype, recvcount, recvtype));
    }
    /* A bad name is an error even when there is nothing to move. */
    if (alg) TRY(papc_check_named(&c, alg, NULL));
    /* Every rank moves one block of the same number of bytes (at the root
     * a block of its side, equal to its own unless in place): zero means
     * nothing to do. */
    size_t bytes = is_root  ? (size_t)acount * papc_type_size(atype)
                   : gather ? (size_t)sendcount * papc_type_size(sendtype)
                            : (size_t)recvcount * papc_type_size(recvtype);
    if (bytes == 0) return MPI_SUCCESS;
    return papc_dispatch(&c, alg);
}

int papc_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
    return done(gather_like_(PAPC_GATHER, sendbuf, sendcount, sendtype,
                             recvbuf, recvcount, recvtype, root, comm, NULL));
}

int papc_gather_alg(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm, const char *algorithm) {
    if (!algorithm) return papc_error(MPI_ERR_ARG, "algorithm name is NULL");
    return done(gather_like_(PAPC_GATHER, sendbuf, sendcount, sendtype,
                             recvbuf, recvcount, recvtype, root, comm,
                             algorithm));
}

int papc_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm) {
    return done(gather_like_(PAPC_SCATTER, sendbuf, sendcount, sendtype,
                             recvbuf, recvcount, recvtype, root, comm, NULL));
}

int papc_scatter_alg(const void *sendbuf, int sendcount,
                     MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm,
                     const char *algorithm) {
    if (!algorithm) return papc_error(MPI_ERR_ARG, "algorithm name is NULL");
    return done(gather_like_(PAPC_SCATTER, sendbuf, sendcount, sendtype,
                             recvbuf, recvcount, recvtype, root, comm,
                             algorithm));
}

/* ---- bcast ---- */

static int bcast_call_(void *buffer, int count, MPI_Datatype datatype,
                      int root, MPI_Comm comm, const char *alg) {
    papc_call c;
    TRY(begin(&c, PAPC_BCAST, comm));
    TRY(check_root(root, c.size));
    TRY(check_data(buffer, count, datatype, "buffer"));
    c.sendbuf = buffer;
    c.recvbuf = buffer;
    c.sendcount = c.recvcount = count;
    c.sendtype = c.recvtype = datatype;
    c.root = root;
    if (alg) TRY(papc_check_named(&c, alg, NULL));
    if ((size_t)count * papc_type_size(datatype) == 0 || c.size == 1)
        return MPI_SUCCESS;
    return papc_dispatch(&c, alg);
}

int papc_bcast(void *buffer, int count, MPI_Datatype datatype, int root,
               MPI_Comm comm) {
    return done(bcast_call_(buffer, count, datatype, root, comm, NULL));
}

int papc_bcast_alg(void *buffer, int count, MPI_Datatype datatype, int root,
                   MPI_Comm comm, const char *algorithm) {
    if (!algorithm) return papc_error(MPI_ERR_ARG, "algorithm name is NULL");
    return done(bcast_call_(buffer, count, datatype, root, comm, algorithm));
}

/* ---- reduce / allreduce ---- */

static int reduce_like_(papc_collective coll, const void *sendbuf,
                       void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, int root, MPI_Comm comm, const char *alg) {
    papc_call c;
    TRY(begin(&c, coll, comm));
    int all = coll == PAPC_ALLREDUCE;
    if (!all) TRY(check_root(root, c.size));
    int receives = all || c.rank == root;
    int in_place = receives && sendbuf == MPI_IN_PLACE;
    TRY(check_count(count, "count"));
    TRY(check_type(datatype, "datatype"));
    TRY(check_op(op, datatype, &c.commutative));
    if (!in_place) TRY(check_buffer(sendbuf, count, datatype, "sendbuf"));
    if (receives) TRY(check_buffer(recvbuf, count, datatype, "recvbuf"));
    c.sendbuf = sendbuf;
    c.recvbuf = recvbuf;
    c.sendcount = c.recvcount = count;
    c.sendtype = c.recvtype = datatype;
    c.op = op;
    c.root = all ? -1 : root;
    if (alg) TRY(papc_check_named(&c, alg, NULL));
    if ((size_t)count * papc_type_size(datatype) == 0) return MPI_SUCCESS;
    if (c.size == 1) /* the result is this process's own data */
        return in_place ? MPI_SUCCESS
                        : papc_copy(sendbuf, count, datatype, recvbuf, count,
                                    datatype);
    return papc_dispatch(&c, alg);
}

int papc_reduce(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
    return done(reduce_like_(PAPC_REDUCE, sendbuf, recvbuf, count, datatype,
                             op, root, comm, NULL));
}

int papc_reduce_alg(const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                    const char *algorithm) {
    if (!algorithm) return papc_error(MPI_ERR_ARG, "algorithm name is NULL");
    return done(reduce_like_(PAPC_REDUCE, sendbuf, recvbuf, count, datatype,
                             op, root, comm, algorithm));
}

int papc_allreduce(const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return done(reduce_like_(PAPC_ALLREDUCE, sendbuf, recvbuf, count, datatype,
                             op, 0, comm, NULL));
}

int papc_allreduce_alg(const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                       const char *algorithm) {
    if (!algorithm) return papc_error(MPI_ERR_ARG, "algorithm name is NULL");
    return done(reduce_like_(PAPC_ALLREDUCE, sendbuf, recvbuf, count, datatype,
                             op, 0, comm, algorithm));
}

/* ---- gatherv / scatterv ---- */

static int vector_like_(papc_collective coll, const void *sendbuf,
                       int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype,
                       const int *counts, const int *displs, int root,
                       MPI_Comm comm, const char *alg) {
    papc_call c;
    int in_place;
    TRY(begin_rooted(&c, coll, sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, root, comm, &in_place));
    int gather = coll == PAPC_GATHERV;
    if (c.rank == root) {
        const char *cname = gather ? "recvcounts" : "sendcounts";
        const void *all = gather ? recvbuf : sendbuf;
        MPI_Datatype atype = gather ? recvtype : sendtype;
        TRY(check_type(atype, gather ? "recvtype" : "sendtype"));
        TRY(check_vector(counts, displs, c.size, cname));
        for (int i = 0; i < c.size; i++)
            TRY(check_buffer(all, counts[i], atype,
                             gather ? "recvbuf" : "sendbuf"));
        if (!in_place)
            TRY(gather ? check_signatures(sendcount, sendtype, counts[root],
                                          recvtype)
                       : check_signatures(counts[root], sendtype, recvcount,
                                          recvtype));
    }
    c.counts = counts;
    c.displs = displs;
    return papc_dispatch(&c, alg);
}

int papc_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, const int recvcounts[], const int displs[],
                 MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return done(vector_like_(PAPC_GATHERV, sendbuf, sendcount, sendtype,
                             recvbuf, 0, recvtype, recvcounts, displs, root,
                             comm, NULL));
}

int papc_gatherv_alg(const void *sendbuf, int sendcount,
                     MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype, int root, MPI_Comm comm,
                     const char *algorithm) {
    if (!algorithm) return papc_error(MPI_ERR_ARG, "algorithm name is NULL");
    return done(vector_like_(PAPC_GATHERV, sendbuf, sendcount, sendtype,
                             recvbuf, 0, recvtype, recvcounts, displs, root,
                             comm, algorithm));
}

int papc_scatterv(const void *sendbuf, const int sendcounts[],
                  const int displs[], MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root,
                  MPI_Comm comm) {
    return done(vector_like_(PAPC_SCATTERV, sendbuf, 0, sendtype, recvbuf,
                             recvcount, recvtype, sendcounts, displs, root,
                             comm, NULL));
}

int papc_scatterv_alg(const void *sendbuf, const int sendcounts[],
                      const int displs[], MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm, const char *algorithm) {
    if (!algorithm) return papc_error(MPI_ERR_ARG, "algorithm name is NULL");
    return done(vector_like_(PAPC_SCATTERV, sendbuf, 0, sendtype, recvbuf,
                             recvcount, recvtype, sendcounts, displs, root,
                             comm, algorithm));
}

const char *papc_mpi_library(void) {
    static char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (!version[0]) {
        MPI_Get_library_version(version, &len);
        char *nl = strchr(version, '\n');
        if (nl) *nl = '\0';
        /* MPICH prints several lines; keep the first. */
    }
    return version;
}
