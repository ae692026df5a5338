/*
 * test_errors.c — bad input to every collective: each must return the right
 * MPI error class with a one-line papc_strerror message naming it, leave the
 * user's buffers untouched, hang nobody, and leave the communicator usable
 * (the next valid collectives still give the right answer).
 *
 * Each case starts from a valid call of one collective (5 ints per block)
 * and spoils one argument on every rank — or, for inputs only the root can
 * see (mismatched signatures, bad count vectors), at the root while the
 * other ranks move no data.  Usage: mpiexec -n P test_errors
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "papcoll.h"

#define N 5           /* ints per block in the valid call */
#define SENTINEL 0x5a /* every byte of every user buffer */

static int rank, size, failures;

typedef enum {
    M_ROOT_NEG, M_ROOT_P, M_COUNT_NEG, M_NULLBUF, M_COMM_NULL, M_INTERCOMM,
    M_ALG_UNKNOWN, M_ALG_NULL, M_SIG_MORE, M_SIG_LESS, M_INPLACE,
    M_TYPE_NULL, M_OP_NULL, M_COUNTS_NEG, M_COUNTS_NULL, M_ALG_UNKNOWN_0,
    M_OP_DERIVED, NMUT
} mutation;

static const char *mut_names[NMUT] = {
    "root -1", "root P", "negative count", "NULL buffer, count > 0",
    "MPI_COMM_NULL", "intercommunicator", "unknown algorithm name",
    "NULL algorithm name", "root sends more than it receives",
    "root sends less than it receives", "MPI_IN_PLACE where not allowed",
    "MPI_DATATYPE_NULL", "MPI_OP_NULL", "negative count in the root's vector",
    "NULL count vector at the root", "unknown algorithm name, count 0",
    "predefined op on a derived datatype",
};

static MPI_Datatype int_pair; /* a derived type: 2 contiguous ints */

/* All arguments of any collective call. */
typedef struct args {
    papc_collective coll;
    const void *sendbuf;
    void *recvbuf;
    int sendcount, recvcount; /* bcast/reduce/allreduce: count = sendcount */
    MPI_Datatype sendtype, recvtype;
    const int *counts, *displs;
    MPI_Op op;
    int root;
    MPI_Comm comm;
    int use_alg;
    const char *alg;
} args;

static int call(const args *a) {
    const void *s = a->sendbuf;
    void *r = a->recvbuf;
    int sc = a->sendcount, rc = a->recvcount, root = a->root;
    MPI_Datatype st = a->sendtype, rt = a->recvtype;
    MPI_Comm comm = a->comm;
    const char *alg = a->alg;
    switch (a->coll) {
    case PAPC_GATHER:
        return a->use_alg
                   ? papc_gather_alg(s, sc, st, r, rc, rt, root, comm, alg)
                   : papc_gather(s, sc, st, r, rc, rt, root, comm);
    case PAPC_SCATTER:
        return a->use_alg
                   ? papc_scatter_alg(s, sc, st, r, rc, rt, root, comm, alg)
                   : papc_scatter(s, sc, st, r, rc, rt, root, comm);
    case PAPC_BCAST:
        return a->use_alg ? papc_bcast_alg(r, sc, st, root, comm, alg)
                          : papc_bcast(r, sc, st, root, comm);
    case PAPC_REDUCE:
        return a->use_alg
                   ? papc_reduce_alg(s, r, sc, st, a->op, root, comm, alg)
                   : papc_reduce(s, r, sc, st, a->op, root, comm);
    case PAPC_ALLREDUCE:
        return a->use_alg ? papc_allreduce_alg(s, r, sc, st, a->op, comm, alg)
                          : papc_allreduce(s, r, sc, st, a->op, comm);
    case PAPC_GATHERV:
        return a->use_alg
                   ? papc_gatherv_alg(s, sc, st, r, a->counts, a->displs, rt,
                                      root, comm, alg)
                   : papc_gatherv(s, sc, st, r, a->counts, a->displs, rt, root,
                                  comm);
    case PAPC_SCATTERV:
        return a->use_alg
                   ? papc_scatterv_alg(s, a->counts, a->displs, st, r, rc, rt,
                                       root, comm, alg)
                   : papc_scatterv(s, a->counts, a->displs, st, r, rc, rt,
                                   root, comm);
    default: return -1;
    }
}

static int is_scatter_like(papc_collective c) {
    return c == PAPC_SCATTER || c == PAPC_SCATTERV;
}
static int is_reduce_like(papc_collective c) {
    return c == PAPC_REDUCE || c == PAPC_ALLREDUCE;
}
static int is_vector(papc_collective c) {
    return c == PAPC_GATHERV || c == PAPC_SCATTERV;
}

/* The count of the side every rank has (gather sends, scatter receives). */
static int *own_count(args *a) {
    return is_scatter_like(a->coll) ? &a->recvcount : &a->sendcount;
}

/* Spoils a valid call with m on this rank; returns the error class this
 * rank must get (MPI_SUCCESS where the rank cannot see the bad input),
 * or -1 when m does not apply to the collective. */
static int spoil(args *a, mutation m, int *vcounts, MPI_Comm inter) {
    papc_collective c = a->coll;
    int root = rank == a->root;
    switch (m) {
    case M_ROOT_NEG:
    case M_ROOT_P:
        if (c == PAPC_ALLREDUCE) return -1;
        a->root = m == M_ROOT_NEG ? -1 : size;
        return MPI_ERR_ROOT;
    case M_COUNT_NEG:
        *own_count(a) = -1;
        return MPI_ERR_COUNT;
    case M_NULLBUF:
        if (is_scatter_like(c) || c == PAPC_BCAST) a->recvbuf = NULL;
        else a->sendbuf = NULL;
        return MPI_ERR_BUFFER;
    case M_COMM_NULL:
        a->comm = MPI_COMM_NULL;
        return MPI_ERR_COMM;
    case M_INTERCOMM:
        if (inter == MPI_COMM_NULL) return -1;
        a->comm = inter;
        a->root = 0;
        return MPI_ERR_COMM;
    case M_ALG_UNKNOWN_0: /* a typo must not pass when there is no data */
        a->sendcount = a->recvcount = 0;
        if (is_vector(c))
            for (int i = 0; i < size; i++) vcounts[i] = 0;
        /* fall through */
    case M_ALG_UNKNOWN:
    case M_ALG_NULL:
        a->use_alg = 1;
        a->alg = m == M_ALG_NULL ? NULL : "no_such_algorithm";
        return MPI_ERR_ARG;
    case M_SIG_MORE:
    case M_SIG_LESS: {
        /* Only the root sees both sides; the others move nothing. */
        if (is_reduce_like(c) || c == PAPC_BCAST) return -1;
        if (!root) {
            *own_count(a) = 0;
            return MPI_SUCCESS;
        }
        int more = m == M_SIG_MORE;
        if (c == PAPC_SCATTERV) vcounts[rank] = N + (more ? 1 : -1);
        else a->sendcount = N + (more ? 1 : -1);
        return more ? MPI_ERR_TRUNCATE : MPI_ERR_TYPE;
    }
    case M_INPLACE:
        /* Not allowed: a bcast buffer, a non-root's data, the root's other
         * buffer (so every rank errs and nobody waits). */
        if (c == PAPC_BCAST || c == PAPC_ALLREDUCE) a->recvbuf = MPI_IN_PLACE;
        else if (c == PAPC_REDUCE && root) a->recvbuf = MPI_IN_PLACE;
        else if (is_scatter_like(c)) {
            a->recvbuf = MPI_IN_PLACE;
            if (root) a->sendbuf = MPI_IN_PLACE;
        } else {
            a->sendbuf = MPI_IN_PLACE;
            if (root && c != PAPC_REDUCE) a->recvbuf = MPI_IN_PLACE;
        }
        return MPI_ERR_BUFFER;
    case M_TYPE_NULL:
        if (is_scatter_like(c)) a->recvtype = MPI_DATATYPE_NULL;
        else a->sendtype = MPI_DATATYPE_NULL;
        return MPI_ERR_TYPE;
    case M_OP_NULL:
        if (!is_reduce_like(c)) return -1;
        a->op = MPI_OP_NULL;
        return MPI_ERR_OP;
    case M_OP_DERIVED:
        if (!is_reduce_like(c)) return -1;
        a->sendtype = a->recvtype = int_pair;
        a->sendcount = a->recvcount = N / 2;
        return MPI_ERR_OP;
    case M_COUNTS_NEG:
    case M_COUNTS_NULL:
        if (!is_vector(c)) return -1;
        if (!root) {
            *own_count(a) = 0;
            return MPI_SUCCESS;
        }
        if (m == M_COUNTS_NULL) {
            a->counts = NULL;
            return MPI_ERR_ARG;
        }
        vcounts[(rank + 1) % size] = -1;
        return MPI_ERR_COUNT;
    default: return -1;
    }
}

static const struct { int cls; const char *name; } class_names[] = {
    {MPI_ERR_ROOT, "MPI_ERR_ROOT"},     {MPI_ERR_COUNT, "MPI_ERR_COUNT"},
    {MPI_ERR_BUFFER, "MPI_ERR_BUFFER"}, {MPI_ERR_COMM, "MPI_ERR_COMM"},
    {MPI_ERR_ARG, "MPI_ERR_ARG"},       {MPI_ERR_TRUNCATE, "MPI_ERR_TRUNCATE"},
    {MPI_ERR_TYPE, "MPI_ERR_TYPE"},     {MPI_ERR_OP, "MPI_ERR_OP"},
    {MPI_SUCCESS, "MPI_SUCCESS"},       {MPI_ERR_IN_STATUS, "MPI_ERR_IN_STATUS"},
};

static const char *class_name(int cls) {
    for (size_t i = 0; i < sizeof class_names / sizeof *class_names; i++)
        if (class_names[i].cls == cls) return class_names[i].name;
    return "another class";
}

static void fail(papc_collective c, mutation m, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(papc_collective c, mutation m, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    printf("FAIL errors %s (%s) P=%d rank=%d: %s\n", papc_collective_name(c),
           mut_names[m], size, rank, msg);
    fflush(stdout);
    failures++;
}

/* A one-line message naming the class. */
static void check_message(papc_collective c, mutation m, int rc, int cls) {
    const char *msg = papc_strerror(rc);
    if (!msg || !*msg || strchr(msg, '\n') ||
        !strstr(msg, class_name(cls)))
        fail(c, m, "papc_strerror(%d) = \"%s\": not one line naming %s", rc,
             msg ? msg : "(null)", class_name(cls));
}

/* The valid calls after an error still work: the private communicator's
 * tags are in step on every rank. */
static void check_still_works(papc_collective c, mutation m) {
    int in[N], out[N * 64], want;
    for (int i = 0; i < N; i++) in[i] = rank + i;
    int rc = papc_allreduce(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < N && rc == MPI_SUCCESS; i++)
        if (out[i] != (want = size * (size - 1) / 2 + size * i))
            fail(c, m, "allreduce afterwards: %d at %d, expected %d", out[i], i,
                 want);
    if (rc != MPI_SUCCESS) fail(c, m, "allreduce afterwards failed: %d", rc);
    int root = size - 1;
    rc = papc_gather(in, N, MPI_INT, out, N, MPI_INT, root, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) fail(c, m, "gather afterwards failed: %d", rc);
    else if (rank == root)
        for (int i = 0; i < N * size; i++)
            if (out[i] != i / N + i % N)
                fail(c, m, "gather afterwards: %d at %d", out[i], i);
    for (int i = 0; i < N; i++) out[i] = rank == 0 ? 100 + i : -1;
    rc = papc_bcast(out, N, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < N && rc == MPI_SUCCESS; i++)
        if (out[i] != 100 + i)
            fail(c, m, "bcast afterwards: %d at %d", out[i], i);
    if (rc != MPI_SUCCESS) fail(c, m, "bcast afterwards failed: %d", rc);
}

static int untouched(const unsigned char *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (b[i] != SENTINEL) return 0;
    return 1;
}

/* One collective with one bad input, by plain call and by named one. */
static void run_case(papc_collective c, mutation m, MPI_Comm inter) {
    size_t bytes = (size_t)size * N * 2 * sizeof(int);
    unsigned char *sbuf = malloc(bytes), *rbuf = malloc(bytes);
    int vcounts[64], vdispls[64];
    for (int pass = 0; pass < 2; pass++) {
        memset(sbuf, SENTINEL, bytes);
        memset(rbuf, SENTINEL, bytes);
        for (int i = 0; i < size; i++) {
            vcounts[i] = N;
            vdispls[i] = (size - 1 - i) * N;
        }
        const papc_algorithm_info *first = papc_algorithm_get(c, 0);
        args a = {c, sbuf, rbuf, N, N, MPI_INT, MPI_INT, vcounts, vdispls,
                  MPI_SUM, size / 2, MPI_COMM_WORLD, pass,
                  first ? first->name : "basic_linear"};
        int want = spoil(&a, m, vcounts, inter);
        if (want < 0) break;
        int names_alg =
            m == M_ALG_UNKNOWN || m == M_ALG_NULL || m == M_ALG_UNKNOWN_0;
        if (pass == 1 && names_alg) break; /* the plain pass was named */
        int rc = call(&a);
        if (rc != want)
            fail(c, m, "%s call returned %d (%s), expected %s",
                 a.use_alg ? "named" : "plain", rc, papc_strerror(rc),
                 class_name(want));
        else if (want != MPI_SUCCESS)
            check_message(c, m, rc, want);
        if (!untouched(sbuf, bytes) || !untouched(rbuf, bytes))
            fail(c, m, "user buffer written by a %s call",
                 a.use_alg ? "named" : "plain");
        check_still_works(c, m);
    }
    free(sbuf);
    free(rbuf);
}

/* Every class papcoll returns has a generic one-line message too. */
static void check_generic_messages(void) {
    for (size_t i = 0; i < sizeof class_names / sizeof *class_names; i++) {
        const char *msg = papc_strerror(class_names[i].cls);
        if (!msg || !*msg || strchr(msg, '\n') ||
            !strstr(msg, class_names[i].name)) {
            printf("FAIL errors P=%d rank=%d: papc_strerror(%s) = \"%s\"\n",
                   size, rank, class_names[i].name, msg ? msg : "(null)");
            failures++;
        }
    }
}

/* A receiver whose buffer is too small (an erroneous program MPI can only
 * detect at the receiver): the class must be MPI's, MPI_ERR_TRUNCATE, not
 * MPI_Waitall's MPI_ERR_IN_STATUS.  basic_linear: the root sends to every
 * rank itself, so no rank waits for a relay that the failed rank skips. */
static void check_truncated_bcast(void) {
    int buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int count = rank == 0 ? 8 : 7;
    int rc = papc_bcast_alg(buf, count, MPI_INT, 0, MPI_COMM_WORLD,
                            "basic_linear");
    int want = rank == 0 ? MPI_SUCCESS : MPI_ERR_TRUNCATE;
    if (rc != want) {
        failures++;
        printf("rank %d: truncated bcast returned %s, want %s\n", rank,
               class_name(rc), class_name(want));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 64) MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Type_contiguous(2, MPI_INT, &int_pair);
    MPI_Type_commit(&int_pair);
    /* An intercommunicator between the two halves of a split (P >= 2). */
    MPI_Comm half, inter = MPI_COMM_NULL;
    int low = rank < (size + 1) / 2;
    MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half);
    if (size > 1)
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD,
                             low ? (size + 1) / 2 : 0, 77, &inter);

    for (int c = 0; c < PAPC_NUM_COLLECTIVES; c++)
        for (int m = 0; m < NMUT; m++)
            run_case((papc_collective)c, (mutation)m, inter);
    check_generic_messages();
    check_truncated_bcast();

    if (inter != MPI_COMM_NULL) MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("errors P=%d: %d failure(s)\n", size, total);
    MPI_Type_free(&int_pair);
    MPI_Finalize();
    return total ? 1 : 0;
}
