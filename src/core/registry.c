/* registry.c — the algorithm tables of all collectives behind one lookup. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "core.h"

typedef struct table {
    const char *name;
    const papc_alg_desc *rows;
    const int *n;
} table;

static const table tables[PAPC_NUM_COLLECTIVES] = {
    [PAPC_GATHER] = {"gather", papc_gather_algs, &papc_gather_nalgs},
    [PAPC_SCATTER] = {"scatter", papc_scatter_algs, &papc_scatter_nalgs},
    [PAPC_BCAST] = {"bcast", papc_bcast_algs, &papc_bcast_nalgs},
    [PAPC_REDUCE] = {"reduce", papc_reduce_algs, &papc_reduce_nalgs},
    [PAPC_ALLREDUCE] = {"allreduce", papc_allreduce_algs,
                        &papc_allreduce_nalgs},
    [PAPC_GATHERV] = {"gatherv", papc_gatherv_algs, &papc_gatherv_nalgs},
    [PAPC_SCATTERV] = {"scatterv", papc_scatterv_algs, &papc_scatterv_nalgs},
};

static int valid(papc_collective coll) {
    return (int)coll >= 0 && coll < PAPC_NUM_COLLECTIVES;
}

const char *papc_collective_name(papc_collective coll) {
    return valid(coll) ? tables[coll].name : NULL;
}

int papc_collective_from_name(const char *name) {
    if (!name) return -1;
    for (int i = 0; i < PAPC_NUM_COLLECTIVES; i++)
        if (strcasecmp(name, tables[i].name) == 0) return i;
    return -1;
}

int papc_registry_count(papc_collective coll) {
    return valid(coll) ? *tables[coll].n : 0;
}

const papc_alg_desc *papc_registry_row(papc_collective coll, int index) {
    if (!valid(coll) || index < 0 || index >= *tables[coll].n) return NULL;
    return &tables[coll].rows[index];
}

/* 1 when name equals one of the space-separated words of list. */
static int in_word_list(const char *list, const char *name) {
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        while (*p == ' ') p++;
        const char *e = p;
        while (*e && *e != ' ') e++;
        if ((size_t)(e - p) == n && strncasecmp(p, name, n) == 0) return 1;
        p = e;
    }
    return 0;
}

const papc_alg_desc *papc_registry_find(papc_collective coll,
                                        const char *name) {
    if (!valid(coll) || !name) return NULL;
    for (int i = 0; i < *tables[coll].n; i++) {
        const papc_alg_desc *a = &tables[coll].rows[i];
        if (strcasecmp(a->info.name, name) == 0 ||
            in_word_list(a->info.aliases, name))
            return a;
    }
    return NULL;
}

int papc_algorithm_count(papc_collective coll) {
    return papc_registry_count(coll);
}

const papc_algorithm_info *papc_algorithm_get(papc_collective coll,
                                              int index) {
    const papc_alg_desc *a = papc_registry_row(coll, index);
    return a ? &a->info : NULL;
}

const papc_algorithm_info *papc_algorithm_find(papc_collective coll,
                                               const char *name) {
    const papc_alg_desc *a = papc_registry_find(coll, name);
    return a ? &a->info : NULL;
}

static const char *bits_string(unsigned bits, const char *const names[],
                               int nnames, char *buf, int len) {
    int used = 0;
    if (len <= 0) return buf;
    buf[0] = '\0';
    for (int i = 0; i < nnames; i++) {
        if (!(bits & (1u << i))) continue;
        int w = snprintf(buf + used, (size_t)(len - used), "%s%s",
                         used ? " " : "", names[i]);
        if (w < 0 || w >= len - used) break;
        used += w;
    }
    return buf;
}

const char *papc_restrictions_string(unsigned restrictions, char *buf,
                                     int len) {
    static const char *const names[] = {"commutative"};
    return bits_string(restrictions, names, 1, buf, len);
}

const char *papc_flags_string(unsigned flags, char *buf, int len) {
    static const char *const names[] = {"segmented", "nonblocking",
                                        "arrival-aware", "background"};
    return bits_string(flags, names, 4, buf, len);
}
