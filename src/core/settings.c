/* settings.c — the environment variables (and the two per-process modes)
 * that change what a call sends, agreed per communicator.
 *
 * Each process reads its own environment, yet these settings decide the
 * messages of a call: the k-nomial radix builds the bcast tree, the segment
 * size cuts every pipeline, PAPC_<COLL>_ALGORITHM picks the algorithm, the
 * arrival settings decide whether a plain call weighs arrivals.  Ranks that
 * disagree build different trees or run different algorithms: wrong
 * results, MPI_ERR_TRUNCATE or a hang.  Users set the environment per node
 * by mistake (module files, per-node job scripts), so it is checked.
 *
 * How: comm.c agrees them in the collective that agrees the profile, one
 * PMPI_Allreduce of four words (the profile's hash and one hash of every
 * setting below, each beside its complement under MPI_MAX: a rank sees its
 * own pair come back only if every rank had the same), when a
 * communicator's private duplicate is made and again at the first call
 * after this process' settings or profile changed -- no round trip in a
 * call whose settings did not change.  Only when the settings' hash
 * differs does a second PMPI_Allreduce (two words per setting) find which
 * ones; the verdict is the same on every rank, so is the second step.
 *
 * On disagreement every rank of that communicator behaves as if the
 * variable were unset -- the built-in default: radix 4, the default
 * segment size (or the profile's choice), the plain call's own choice
 * instead of a forced algorithm, model selection, arrival selection on --
 * and rank 0 of the communicator says so once per variable and process on
 * stderr.  Equal values take effect as before; a value is compared as the
 * text it is ("4" and "04" differ: both ranks then use the default, safe).
 *
 * Inside a call, papc_getenv() stands for getenv() for these names: it
 * answers from the snapshot the call started with (papc_settings_enter,
 * from comm.c at the call's start, until call.c's papc_settings_leave when
 * the call returns), NULL for one its communicator disagrees on; outside a
 * call (papc_explain, the tools, the monitor thread) it is getenv().  The
 * snapshot is one pass over the environment per call, and the call's own
 * reads of PAPC_SEGSIZE, ... then cost no getenv: a plain 64-B bcast at
 * P = 4 (Open MPI 4.1.4, shared memory, 2 cores, mpirun with 89
 * variables, quiet machine, 2026-11-27) took 1.08 us a call against 0.98
 * before (20,000 calls, the slowest rank's mean, twice each).
 *
 * A setting changed after a communicator's agreement is agreed again at the
 * next call on it, by every rank whose settings changed: change it on every
 * rank alike, between the same two calls (papc-tune, papc-select-bench and
 * the tests do, after a barrier); papc_settings_agree() does it outside a
 * timed call.  A change on some ranks only cannot be detected without a
 * round trip in every call: those ranks then wait in the agreement while
 * the others run the call, which hangs, as a collective called on some
 * ranks only does. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core.h"

extern char **environ;

typedef struct setting {
    const char *name;
    const char *dflt;  /* what every rank uses when the ranks differ */
    int model;         /* a cost model reads it: 1 its value, 2 whether it
                          is set (the selector's cache key, select.c) */
} setting;

/* Read through papc_getenv by the library; "PAPC_SELECT" and
 * "PAPC_ARRIVAL_SELECT" stand for the effective modes (the variable or
 * papc_set_selection / papc_set_arrival_selection), not for the text. */
static const setting table[] = {
    {"PAPC_SEGSIZE", "the default segment size (8192 B, or the profile's "
                     "choice)", 2},
    {"PAPC_GATHER_FIRST_SEGMENT", "the default 1024", 1},
    {"PAPC_PIPELINE_MAX_SEGMENT", "the default 64512", 1},
    {"PAPC_KNOMIAL_RADIX", "the default 4", 1},
    {"PAPC_RADIX_K", "the default 8,4,2", 1},
    {"PAPC_TUW_THRESHOLD", "the default threshold", 1},
    {"PAPC_ALPHA", "the default", 1},
    {"PAPC_BETA", "the default", 1},
    {"PAPC_CLV_SEGMENTS", "the default", 1},
    {"PAPC_CLV_ROUND", "the default", 1},
    {"PAPC_CLV_SLACK", "the default 1", 1},
    {"PAPC_PRR_EAGER_BYTES", "the default", 1},
    {"PAPC_GATHER_ALGORITHM", "the plain call's own choice", 0},
    {"PAPC_SCATTER_ALGORITHM", "the plain call's own choice", 0},
    {"PAPC_BCAST_ALGORITHM", "the plain call's own choice", 0},
    {"PAPC_REDUCE_ALGORITHM", "the plain call's own choice", 0},
    {"PAPC_ALLREDUCE_ALGORITHM", "the plain call's own choice", 0},
    {"PAPC_GATHERV_ALGORITHM", "the plain call's own choice", 0},
    {"PAPC_SCATTERV_ALGORITHM", "the plain call's own choice", 0},
    {"PAPC_SELECT", "model selection (the default)", 0},
    {"PAPC_ARRIVAL_SELECT", "arrival selection on (the default)", 0},
    {"PAPC_ARRIVAL_MIN_BYTES", "the default 16384", 0},
    {"PAPC_ARRIVAL_VIEWS", "the default 4", 0},
    {"PAPC_ARRIVAL_PERSIST", "the default (on)", 0},
    {"PAPC_ARRIVAL_NOISE_K", "the default 0", 0},
    {"PAPC_ARRIVAL_EXPLORE", "the default 0.2", 0},
    {"PAPC_ARRIVAL_WATCH_EVERY", "the default 4", 0},
    {"PAPC_MONITOR", "the default (unset)", 0},
    /* testing knobs that change a schedule */
    {"PAPC_CLV_TEST_OFFSETS", "none", 0},
    {"PAPC_PRR_TEST_OFFSETS", "none", 0},
    {"PAPC_PRR_TEST_COST", "none", 0},
    {"PAPC_PRR_TEST_K", "none", 0},
    {"PAPC_LEARN_TEST_SLOW", "none", 0},
};
#define NSET (int)(sizeof table / sizeof *table)
_Static_assert(sizeof table / sizeof *table <= PAPC_SETTINGS_MAX,
               "one bit per setting in a 64-bit mask");

/* This thread's call: inside one (papc_settings_enter), the settings its
 * communicator disagrees on, the effective hash, and the values of the
 * snapshot the call started with (pointers into the environment, valid
 * while it is not changed: during the call). */
typedef struct call_env {
    int in_call;
    uint64_t differs, effective;
    const char *val[PAPC_SETTINGS_MAX];
} call_env;
static _Thread_local call_env env_now;

int papc_settings_count(void) { return NSET; }

/* The index of the setting called name[0..len), -1 if none.  Lengths
 * first: a call looks up every PAPC_ variable of the environment. */
static int find(const char *name, size_t len) {
    static _Atomic size_t lens[NSET];
    if (!atomic_load_explicit(&lens[0], memory_order_acquire)) {
        for (int i = NSET - 1; i > 0; i--)
            atomic_store_explicit(&lens[i], strlen(table[i].name),
                                  memory_order_relaxed);
        atomic_store_explicit(&lens[0], strlen(table[0].name),
                              memory_order_release);
    }
    for (int i = 0; i < NSET; i++)
        if (lens[i] == len && memcmp(table[i].name, name, len) == 0)
            return i;
    return -1;
}

/* FNV-1a of the text; an unset variable has its own value. */
#define UNSET_HASH 0x9E3779B97F4A7C15ull
static uint64_t text_hash(const char *s) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001B3ull;
    return h == UNSET_HASH ? h + 1 : h;
}

static uint64_t combine(const uint64_t *each, uint64_t differs) {
    uint64_t h = 0x84222325CBF29CE4ull;
    for (int i = 0; i < NSET; i++) {
        uint64_t v = (differs >> i & 1) ? UNSET_HASH : each[i];
        h = (h ^ v) * 0x100000001B3ull;
        h ^= h >> 29;
    }
    return h;
}

uint64_t papc_settings_snapshot(uint64_t *each) {
    call_env *ce = &env_now;
    for (int i = 0; i < NSET; i++) {
        each[i] = UNSET_HASH;
        ce->val[i] = NULL;
    }
    /* One pass over the environment: a call pays a byte compare or two per
     * variable (OMPI_* and the rest fail at the first), not a getenv per
     * setting. */
    for (char **e = environ; e && *e; e++) {
        const char *x = *e;
        if (x[0] != 'P' || x[1] != 'A' || x[2] != 'P' || x[3] != 'C' ||
            x[4] != '_')
            continue;
        const char *eq = strchr(x, '=');
        if (!eq) continue;
        int i = find(x, (size_t)(eq - x));
        if (i < 0) continue;
        each[i] = text_hash(eq + 1);
        ce->val[i] = eq + 1;
    }
    static int sel = -1, arr = -1; /* found once (the same every time) */
    if (sel < 0) sel = find("PAPC_SELECT", 11);
    if (arr < 0) arr = find("PAPC_ARRIVAL_SELECT", 19);
    each[sel] = text_hash(papc_select_mode_word());
    each[arr] = text_hash(papc_arrival_mode_word());
    return combine(each, 0);
}

void papc_settings_enter(uint64_t differs, uint64_t effective) {
    call_env *ce = &env_now;
    ce->differs = differs;
    ce->effective = effective;
    ce->in_call = 1;
}

void papc_settings_leave(void) {
    call_env *ce = &env_now;
    ce->in_call = 0;
    ce->differs = 0;
    ce->effective = 0;
}

uint64_t papc_settings_effective_now(void) { return env_now.effective; }

uint64_t papc_settings_effective(const uint64_t *each, uint64_t differs) {
    uint64_t h = 0x84222325CBF29CE4ull;
    for (int i = 0; i < NSET; i++) {
        if (!table[i].model) continue;
        uint64_t v = (differs >> i & 1) ? UNSET_HASH : each[i];
        if (table[i].model == 2 && v != UNSET_HASH) v = 1;
        h = (h ^ v) * 0x100000001B3ull;
        h ^= h >> 29;
    }
    return h;
}

int papc_setting_differs(const char *name) {
    call_env *ce = &env_now;
    if (!ce->differs) return 0;
    int i = find(name, strlen(name));
    return i >= 0 && (ce->differs >> i & 1);
}

const char *papc_getenv(const char *name) {
    call_env *ce = &env_now;
    if (!ce->in_call) return getenv(name);
    int i = find(name, strlen(name));
    if (i < 0) return getenv(name);
    return (ce->differs >> i & 1) ? NULL : ce->val[i];
}

int papc_settings_differ(MPI_Comm priv, const uint64_t *each,
                         uint64_t *differs) {
    uint64_t mine[2 * PAPC_SETTINGS_MAX], top[2 * PAPC_SETTINGS_MAX];
    for (int i = 0; i < NSET; i++) {
        mine[2 * i] = each[i];
        mine[2 * i + 1] = ~each[i];
    }
    int rc = PMPI_Allreduce(mine, top, 2 * NSET, MPI_UINT64_T, MPI_MAX,
                            priv);
    if (rc != MPI_SUCCESS) return papc_mpi_error(rc, "MPI_Allreduce");
    *differs = 0;
    for (int i = 0; i < NSET; i++)
        if (top[2 * i] != mine[2 * i] || top[2 * i + 1] != mine[2 * i + 1])
            *differs |= 1ull << i;
    return MPI_SUCCESS;
}

void papc_settings_report(uint64_t differs, int rank, int size) {
    static _Atomic uint64_t said;
    if (rank != 0) return;
    for (int i = 0; i < NSET; i++) {
        uint64_t bit = 1ull << i;
        if (!(differs & bit) || (atomic_fetch_or(&said, bit) & bit))
            continue;
        const char *here = NULL;
        if (!strcmp(table[i].name, "PAPC_SELECT"))
            here = papc_select_mode_word();
        else if (!strcmp(table[i].name, "PAPC_ARRIVAL_SELECT"))
            here = papc_arrival_mode_word();
        else here = getenv(table[i].name);
        fprintf(stderr, "papcoll: %s differs across the ranks of a "
                "communicator of size %d (%s%s%s here); using %s on every "
                "rank of it\n", table[i].name, size, here ? "\"" : "",
                here ? here : "unset", here ? "\"" : "", table[i].dflt);
    }
}
