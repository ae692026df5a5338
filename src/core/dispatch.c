/* dispatch.c — picks the algorithm of a call: an explicit name, else
 * PAPC_<COLLECTIVE>_ALGORITHM, else the selector (select.c); restrictions are
 * checked from data every rank shares (op, P), so every rank picks the same
 * algorithm. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include "core.h"

static _Thread_local const char *last_alg[PAPC_NUM_COLLECTIVES];
static _Thread_local int last_watched[PAPC_NUM_COLLECTIVES];
static _Thread_local int last_reused[PAPC_NUM_COLLECTIVES];
_Thread_local int papc_call_started;

int papc_last_call_started(void) { return papc_call_started; }

const char *papc_last_algorithm(papc_collective coll) {
    if ((int)coll < 0 || coll >= PAPC_NUM_COLLECTIVES) return NULL;
    return last_alg[coll];
}

int papc_last_watched(papc_collective coll) {
    if ((int)coll < 0 || coll >= PAPC_NUM_COLLECTIVES) return 0;
    return last_watched[coll];
}

int papc_last_pick_reused(papc_collective coll) {
    if ((int)coll < 0 || coll >= PAPC_NUM_COLLECTIVES) return 0;
    return last_reused[coll];
}

int papc_alg_can_run(const papc_alg_desc *a, const papc_call *c) {
    if ((a->info.restrictions & PAPC_RESTRICT_COMMUTATIVE) && !c->commutative)
        return 0;
    return 1;
}

static int verbose(void) {
    const char *v = getenv("PAPC_VERBOSE");
    return v && *v && *v != '0';
}

static const papc_alg_desc *forced_by_env(const papc_call *c) {
    char var[64];
    const char *cname = papc_collective_name(c->coll);
    int n = snprintf(var, sizeof var, "PAPC_");
    for (const char *p = cname; *p && n < (int)sizeof var - 11; p++)
        var[n++] = (char)toupper((unsigned char)*p);
    snprintf(var + n, sizeof var - (size_t)n, "_ALGORITHM");
    const char *name = papc_getenv(var);
    if (!name || !*name) return NULL;
    const papc_alg_desc *a = papc_registry_find(c->coll, name);
    if (!a) {
        if (verbose() && c->rank == 0)
            fprintf(stderr, "papcoll: %s=%s is not a %s algorithm; using the "
                    "default choice\n", var, name, cname);
        return NULL;
    }
    if (!papc_alg_can_run(a, c)) {
        if (verbose() && c->rank == 0)
            fprintf(stderr, "papcoll: %s=%s cannot serve this call (needs a "
                    "commutative op); using the default choice\n", var, name);
        return NULL;
    }
    return a;
}

int papc_check_named(const papc_call *c, const char *name,
                     const papc_alg_desc **out) {
    const papc_alg_desc *a = papc_registry_find(c->coll, name);
    if (!a) return papc_error(MPI_ERR_ARG, "unknown %s algorithm '%s'",
                              papc_collective_name(c->coll), name);
    if (!papc_alg_can_run(a, c))
        return papc_error(MPI_ERR_OP, "%s algorithm '%s' needs a commutative "
                          "op", papc_collective_name(c->coll), a->info.name);
    if (out) *out = a;
    return MPI_SUCCESS;
}

int papc_dispatch(papc_call *c, const char *explicit_name) {
    const papc_alg_desc *a = NULL;
    if (explicit_name) {
        int rc = papc_check_named(c, explicit_name, &a);
        if (rc != MPI_SUCCESS) return rc;
    } else {
        size_t seg0 = c->segsize;
        a = forced_by_env(c);
        if (!a) {
            a = papc_select(c);
            if (!a || !papc_alg_can_run(a, c))
                a = papc_registry_row(c->coll, 0);
            int handled = 0;
            int rc = papc_arrival_plain(c, a, seg0, &handled);
            if (handled && rc == MPI_SUCCESS) {
                last_alg[c->coll] = c->algorithm;
                last_watched[c->coll] = c->arrival_view;
                last_reused[c->coll] = c->pick_reused;
            }
            if (handled || rc != MPI_SUCCESS) return rc;
        }
    }
    c->algorithm = a->info.name;
    papc_call_started = 1;
    int rc = a->run(c);
    if (rc == MPI_SUCCESS) {
        last_alg[c->coll] = a->info.name;
        last_watched[c->coll] = 0;
        last_reused[c->coll] = 0;
    }
    return rc;
}
