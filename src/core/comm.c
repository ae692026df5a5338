/* comm.c — the private duplicate of each user communicator, cached as an
 * attribute so it is created once and freed with the user's communicator,
 * plus the per-communicator call counter that keeps calls' tags apart. */
#include <stdlib.h>
#include "core.h"

typedef struct papc_comm_state {
    MPI_Comm priv;
    unsigned seq;
    unsigned agreed_gen;  /* profile generation last agreed on (0: never) */
    int agreed_same;      /* 1 when every rank had the same profile then */
} papc_comm_state;

static int keyval = MPI_KEYVAL_INVALID;

/* One MAX allreduce of (h, ~h) on s's private comm: a rank sees its own
 * pair come back only if h is both the largest and the smallest hash, so
 * every rank reaches the same verdict. */
static int agree_profile(papc_comm_state *s, unsigned gen, uint64_t hash) {
    uint64_t mine[2] = {hash, ~hash}, top[2];
    int rc = PMPI_Allreduce(mine, top, 2, MPI_UINT64_T, MPI_MAX, s->priv);
    if (rc != MPI_SUCCESS) return papc_mpi_error(rc, "MPI_Allreduce");
    s->agreed_same = top[0] == mine[0] && top[1] == mine[1];
    s->agreed_gen = gen;
    return MPI_SUCCESS;
}

static int delete_state(MPI_Comm comm, int key, void *attr, void *extra) {
    papc_comm_state *s = attr;
    (void)comm; (void)key; (void)extra;
    if (s->priv != MPI_COMM_NULL) MPI_Comm_free(&s->priv);
    free(s);
    return MPI_SUCCESS;
}

static int ensure_keyval(void) {
    /* Racy only if two threads make their first call at once; the monitor
     * thread never calls here. */
    if (keyval != MPI_KEYVAL_INVALID) return MPI_SUCCESS;
    return MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &keyval,
                                  NULL);
}

/* The state of user, created at the first call. */
static int comm_state(MPI_Comm user, papc_comm_state **out) {
    papc_comm_state *s = NULL;
    int found = 0;
    PAPC_CHECK(ensure_keyval());
    PAPC_CHECK(MPI_Comm_get_attr(user, keyval, &s, &found));
    if (!found) {
        s = malloc(sizeof *s);
        if (!s) return papc_error(MPI_ERR_NO_MEM, "no memory for comm state");
        s->seq = 0;
        s->agreed_gen = 0;
        s->agreed_same = 0;
        int rc = MPI_Comm_dup(user, &s->priv);
        if (rc != MPI_SUCCESS) {
            free(s);
            return papc_mpi_error(rc, "MPI_Comm_dup");
        }
        /* Errors on our messages come back as codes, never abort. */
        MPI_Comm_set_errhandler(s->priv, MPI_ERRORS_RETURN);
        rc = MPI_Comm_set_attr(user, keyval, s);
        if (rc != MPI_SUCCESS) {
            MPI_Comm_free(&s->priv);
            free(s);
            return papc_mpi_error(rc, "MPI_Comm_set_attr");
        }
        /* The profile is agreed here, beside MPI_Comm_dup (a collective
         * itself), not at the first plain call: there the
         * allreduce ran before the call's arrival was stamped, so a late
         * process' wait hid in it and the arrival-aware choice saw no
         * one late (docs/scale.md, "At 512-4,096 processes", section 9).
         * A later profile (papc_profile_load), or the first model choice
         * on a comm set up under PAPC_SELECT=fixed, is still agreed at
         * the next plain call (papc_comm_profile_agreed). */
        unsigned gen;
        uint64_t hash;
        if (papc_select_profile_key(&gen, &hash)) {
            rc = agree_profile(s, gen, hash);
            if (rc != MPI_SUCCESS) return rc;
        }
    }
    *out = s;
    return MPI_SUCCESS;
}

int papc_private_comm(MPI_Comm user, MPI_Comm *priv, unsigned *seq) {
    papc_comm_state *s = NULL;
    int rc = comm_state(user, &s);
    if (rc != MPI_SUCCESS) return rc;
    *priv = s->priv;
    *seq = s->seq++;
    return MPI_SUCCESS;
}

int papc_private_comm_peek(MPI_Comm user, MPI_Comm *priv) {
    papc_comm_state *s = NULL;
    int rc = comm_state(user, &s);
    if (rc != MPI_SUCCESS) return rc;
    *priv = s->priv;
    return MPI_SUCCESS;
}

int papc_comm_profile_agreed(MPI_Comm user, unsigned gen, uint64_t hash,
                             int *same) {
    papc_comm_state *s = NULL;
    int rc = comm_state(user, &s);
    if (rc != MPI_SUCCESS) return rc;
    if (s->agreed_gen != gen) {
        rc = agree_profile(s, gen, hash);
        if (rc != MPI_SUCCESS) return rc;
    }
    *same = s->agreed_same;
    return MPI_SUCCESS;
}

int papc_call_tag(unsigned seq) {
    /* 4096 calls x 8 tags = 32768 tags: within the MPI-guaranteed 32767
     * after the -1 below; a stale message of a failed call cannot match a
     * call for the next 4095 calls. */
    return (int)((seq % 4095u) * PAPC_TAGS_PER_CALL) + 1;
}
