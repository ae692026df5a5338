/* comm.c — the private duplicate of each user communicator, cached as an
 * attribute so it is created once and freed with the user's communicator,
 * plus the per-communicator call counter that keeps calls' tags apart. */
#include <stdlib.h>
#include "core.h"

typedef struct papc_comm_state {
    MPI_Comm priv;
    unsigned seq;
    int agreed;           /* 0 until the first agreement */
    unsigned agreed_gen;  /* profile generation last agreed on */
    int agreed_same;      /* 1 when every rank had the same profile then */
    uint64_t local;       /* this process' settings hash then */
    uint64_t differs;     /* settings the ranks disagreed on then */
    uint64_t effective;   /* hash of what every rank uses */
} papc_comm_state;

static int keyval = MPI_KEYVAL_INVALID;

/* The profile and the settings (settings.c) in one PMPI_Allreduce of
 * four words, (h, ~h) for each under MPI_MAX: a rank sees its own pair
 * come back only if h is both the largest and the smallest hash, so every
 * rank reaches the same verdict.  Only when the settings differ does a
 * second allreduce find which (the same verdict everywhere, so every rank
 * takes it or none). */
static int agree(papc_comm_state *s, unsigned gen, uint64_t phash,
                 const uint64_t *each, uint64_t local) {
    uint64_t mine[4] = {phash, ~phash, local, ~local}, top[4];
    int rc = PMPI_Allreduce(mine, top, 4, MPI_UINT64_T, MPI_MAX, s->priv);
    if (rc != MPI_SUCCESS) return papc_mpi_error(rc, "MPI_Allreduce");
    s->agreed_same = top[0] == mine[0] && top[1] == mine[1];
    uint64_t differs = 0;
    if (top[2] != mine[2] || top[3] != mine[3]) {
        rc = papc_settings_differ(s->priv, each, &differs);
        if (rc != MPI_SUCCESS) return rc;
        int rank = 0, size = 0;
        MPI_Comm_rank(s->priv, &rank);
        MPI_Comm_size(s->priv, &size);
        papc_settings_report(differs, rank, size);
    }
    s->differs = differs;
    s->effective = papc_settings_effective(each, differs);
    s->local = local;
    s->agreed_gen = gen;
    s->agreed = 1;
    return MPI_SUCCESS;
}

/* Agrees again when this process' settings or profile changed since the
 * last agreement on s (always when force).  Collective only when they
 * changed: see settings.c for the contract. */
static int sync_settings(papc_comm_state *s, int force) {
    uint64_t each[PAPC_SETTINGS_MAX];
    uint64_t local = papc_settings_snapshot(each);
    unsigned gen;
    uint64_t phash;
    papc_select_profile_key(&gen, &phash);
    if (force || !s->agreed || local != s->local || gen != s->agreed_gen)
        return agree(s, gen, phash, each, local);
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
static int comm_state(MPI_Comm user, papc_comm_state **out, int *created) {
    papc_comm_state *s = NULL;
    int found = 0;
    if (created) *created = 0;
    PAPC_CHECK(ensure_keyval());
    PAPC_CHECK(MPI_Comm_get_attr(user, keyval, &s, &found));
    if (!found) {
        s = malloc(sizeof *s);
        if (!s) return papc_error(MPI_ERR_NO_MEM, "no memory for comm state");
        s->seq = 0;
        s->agreed = 0;
        s->agreed_gen = 0;
        s->agreed_same = 0;
        s->local = s->differs = s->effective = 0;
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
        /* The profile and the settings are agreed here, beside
         * MPI_Comm_dup (a collective itself), not at the first plain call:
         * there the allreduce ran before the call's arrival was stamped, so
         * a late process' wait hid in it and the arrival-aware choice saw
         * no one late (docs/scale.md, "At 512-4,096 processes", section
         * 9).  A later profile (papc_profile_load) or a changed setting is
         * agreed at the next call (papc_private_comm). */
        rc = sync_settings(s, 1);
        if (rc != MPI_SUCCESS) return rc;
        if (created) *created = 1;
    }
    *out = s;
    return MPI_SUCCESS;
}

int papc_private_comm(MPI_Comm user, MPI_Comm *priv, unsigned *seq) {
    papc_comm_state *s = NULL;
    int rc = comm_state(user, &s, NULL);
    if (rc == MPI_SUCCESS) rc = sync_settings(s, 0);
    if (rc != MPI_SUCCESS) return rc;
    papc_settings_enter(s->differs, s->effective);
    *priv = s->priv;
    *seq = s->seq++;
    return MPI_SUCCESS;
}

int papc_private_comm_peek(MPI_Comm user, MPI_Comm *priv) {
    papc_comm_state *s = NULL;
    int rc = comm_state(user, &s, NULL);
    if (rc != MPI_SUCCESS) return rc;
    *priv = s->priv;
    return MPI_SUCCESS;
}

int papc_comm_profile_agreed(MPI_Comm user, unsigned gen, int *same) {
    papc_comm_state *s = NULL;
    int rc = comm_state(user, &s, NULL);
    if (rc != MPI_SUCCESS) return rc;
    if (s->agreed_gen != gen) {
        /* A profile loaded since the call started (papc_private_comm
         * agreed what it had then). */
        rc = sync_settings(s, 1);
        if (rc != MPI_SUCCESS) return rc;
        papc_settings_enter(s->differs, s->effective);
    }
    *same = s->agreed_same;
    return MPI_SUCCESS;
}

int papc_settings_agree(MPI_Comm comm) {
    int rank, size, created = 0;
    int rc = papc_check_comm(comm, &rank, &size);
    if (rc != MPI_SUCCESS) return rc;
    papc_comm_state *s = NULL;
    rc = comm_state(comm, &s, &created);
    if (rc == MPI_SUCCESS && !created) rc = sync_settings(s, 1);
    return rc;
}

int papc_call_tag(unsigned seq) {
    /* 4096 calls x 8 tags = 32768 tags: within the MPI-guaranteed 32767
     * after the -1 below; a stale message of a failed call cannot match a
     * call for the next 4095 calls. */
    return (int)((seq % 4095u) * PAPC_TAGS_PER_CALL) + 1;
}

/* The lowest comm rank of this rank's node, -1 when MPI gives none. */
static int node_lead(MPI_Comm comm, int size) {
    MPI_Comm node = MPI_COMM_NULL;
    int lead = MPI_UNDEFINED, zero = 0;
    if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                             &node) != MPI_SUCCESS ||
        node == MPI_COMM_NULL)
        return -1;
    MPI_Group gc, gn;
    if (MPI_Comm_group(comm, &gc) == MPI_SUCCESS) {
        if (MPI_Comm_group(node, &gn) == MPI_SUCCESS) {
            MPI_Group_translate_ranks(gn, 1, &zero, gc, &lead);
            MPI_Group_free(&gn);
        }
        MPI_Group_free(&gc);
    }
    MPI_Comm_free(&node);
    return lead != MPI_UNDEFINED && lead >= 0 && lead < size ? lead : -1;
}

int papc_node_labels(MPI_Comm comm, int rank, int size, int node_size,
                     int *lab, int *how) {
    int mine = node_size > 0 ? rank / node_size : node_lead(comm, size);
    *how = node_size > 0 ? 1 : 2;
    int rc = PMPI_Allgather(&mine, 1, MPI_INT, lab, 1, MPI_INT, comm);
    if (rc != MPI_SUCCESS) return rc;
    int known = 1;
    for (int r = 0; r < size; r++) known &= lab[r] >= 0;
    if (!known) {
        for (int r = 0; r < size; r++) lab[r] = r;
        *how = 3;
    }
    return MPI_SUCCESS;
}
