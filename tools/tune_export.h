/*
 * tune_export.h — papc-tune's exports for people who will not link
 * papcoll (issue 12, item 6): the loaded profile's choices, per collective,
 * communicator size P and message size, written as
 *   - Open MPI 4.1's classic dynamic rules file for coll/tuned
 *     (--mca coll_tuned_use_dynamic_rules 1
 *      --mca coll_tuned_dynamic_rules_filename FILE), and
 *   - MPICH 4's collective-selection JSON for the MPIR layer
 *     (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=FILE).
 * Static functions, included by tools/papc-tune.c (and by the format test
 * tests/select/test_export_formats.c).  Both writers return 0, or -1 with
 * a one-line message in err; they need a loaded profile (papc_profile_load)
 * and MPI initialised (papc_explain asks MPI whether MPI_SUM commutes).
 *
 * The choice.  For gather, scatter, bcast, reduce and allreduce, every P in
 * [max(pmin, 2), pmax] and message sizes from 1 B to 64 MiB (four points
 * per octave), papc_explain(coll, P, bytes, MPI_DOUBLE, MPI_SUM) predicts
 * every papcoll algorithm; the export takes the fastest among those the
 * target library HAS (same pattern, by name: tables below), with the
 * segment size the prediction picked.  Where two neighbouring grid points
 * choose differently the boundary is found by bisection on the bytes, so
 * each rule starts exactly where the predicted choice changes.
 *
 * Open MPI 4.1 (ompi/mca/coll/tuned/coll_tuned_dynamic_file.c and
 * coll_base_util.c's reader; checked against 4.1.4 with
 * tests/select/check-export-ompi.sh):
 *   - whitespace-separated integers ("%li": no leading zeros, they would
 *     read as octal), '#' skips to the end of the line;
 *   - number of collectives; per collective: its COLLTYPE id (allreduce 2,
 *     bcast 7, gather 9, reduce 11, scatter 15), number of communicator
 *     sizes; per communicator size: the size and the number of message
 *     sizes; per message size: bytes, algorithm, fan-in/out, segment size;
 *   - a communicator uses the rule of the largest size <= its own (the
 *     first rule when it is smaller than all), a message the rule of the
 *     largest bytes <= its own, so both lists ascend, and the message list
 *     must start at 0 or the reader drops the whole file, silently;
 *   - algorithm 0 means "Open MPI's fixed rules": the export writes it for
 *     P outside the profile's range;
 *   - message size: gather and scatter P x one rank's block
 *     (dtype size x count x comm size), bcast, reduce, allreduce the vector;
 *   - algorithm numbers are looked up by name in `ompi_info --param coll
 *     tuned --level 9 --parsable` at export time (PAPC_OMPI_INFO names
 *     another ompi_info), as scripts/bench-classic.sh does;
 *   - segment size: the one the prediction picked for segmented rows (0:
 *     whole message); gather linear_sync's first part (Open MPI's segsize
 *     column) is papcoll's PAPC_GATHER_FIRST_SEGMENT, default 1024; bcast
 *     chain (papcoll k_chain) gets fan-out 4;
 *   - bcast knomial (4.1's algorithm 7) is exported only where ompi_info
 *     lists it and papcoll's radix is 4: Open MPI reads its radix from
 *     coll_tuned_bcast_algorithm_knomial_radix (default 4), not from the
 *     rules file.
 *
 * MPICH 4.0 (src/mpi/coll/src/csel.c; checked against Debian 12's 4.0.2
 * with tests/select/check-export-mpich.sh):
 *   - one JSON object; in every object the keys are tried in order and the
 *     first that holds is followed; a key "algorithm=NAME" makes a leaf;
 *   - the file replaces MPICH's whole MPIR-level table, and a collective
 *     missing from it aborts when called, so the export writes every
 *     collective MPICH 4.0 selects for: the five tuned ones, and one
 *     general algorithm (split only where MPICH needs it: in place,
 *     non-commutative, intercommunicator) for each other;
 *   - every size level ends in "comm_size=any" / "avg_msg_size=any" (an
 *     unguarded non-boolean level aborts MPI_Init); boolean levels list
 *     both values ("comm_type=intra" then "comm_type=inter", "...=yes"
 *     then "...=no");
 *   - comm_size<=N and avg_msg_size<=N (bytes: count x type size, as
 *     papcoll's bytes for bcast, reduce, allreduce) are inclusive;
 *   - MPICH's reduce_scatter_gather / reduce_scatter_allgather serve only
 *     built-in ops with count >= the power of two below P, so the tuned
 *     reduce and allreduce trees sit under "is_op_built_in=yes" and
 *     "count<pow2" guards, as MPICH's own table does;
 *   - boolean levels cannot end in "=any": 4.0.2 rejects "comm_type=any",
 *     "is_op_built_in=any" and "is_commutative=any" as unknown keys;
 *   - papcoll and MPICH 4.0 share only binomial for bcast, gather and
 *     scatter, so those trees are a single leaf; a papcoll prediction of a
 *     segmented binomial stands for MPICH's unsegmented one (papc_explain
 *     gives only each row's best segment size);
 *   - P outside [pmin, pmax] takes the nearest profiled P's rules: MPICH
 *     has no leaf meaning "your own table";
 *   - gather and scatter would be keyed on total_msg_size (P x block), but
 *     with binomial alone no size level is ever written: unverified.
 * A collective whose rows have no cost model (papc_explain predicts none
 * of the library's algorithms) is left to the library with a warning on
 * stderr: Open MPI's fixed rules, MPICH's general algorithm.
 */
#ifndef PAPC_TOOLS_TUNE_EXPORT_H
#define PAPC_TOOLS_TUNE_EXPORT_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <mpi.h>
#include "papcoll.h"

/* The selector (src/core/select.c) may not be linked into every build of
 * the tools yet: weak references, checked before use. */
#pragma weak papc_explain
#pragma weak papc_profile_path

typedef int (*tune_export_explain_fn)(papc_collective coll, int P,
                                      size_t bytes, MPI_Datatype dtype,
                                      MPI_Op op, papc_prediction *rows,
                                      int max, int *n, int *chosen);
/* The predictions the exports read; the format test swaps in its own. */
static tune_export_explain_fn tune_export_explain = papc_explain;

/* ---- what the target libraries have ---------------------------------- */

typedef struct tx_alg {
    const char *papc;    /* papcoll's row name */
    const char *target;  /* the library's name for the same pattern */
    int segmented;       /* carry the predicted segment size */
    int faninout;        /* Open MPI's fan-in/out column */
    int optional;        /* left out where the library lacks it (below) */
} tx_alg;

static const tx_alg tx_ompi_gather[] = {
    {"basic_linear", "basic_linear", 0, 0, 0},
    {"binomial", "binomial", 0, 0, 0},
    {"linear_sync", "linear_sync", 0, 0, 0}, {NULL, NULL, 0, 0, 0}};
static const tx_alg tx_ompi_scatter[] = {
    {"basic_linear", "basic_linear", 0, 0, 0},
    {"binomial", "binomial", 0, 0, 0},
    {"linear_nb", "linear_nb", 0, 0, 0}, {NULL, NULL, 0, 0, 0}};
static const tx_alg tx_ompi_bcast[] = {
    {"basic_linear", "basic_linear", 0, 0, 0}, {"chain", "pipeline", 1, 0, 0},
    {"k_chain", "chain", 1, 4, 0}, {"binary", "binary_tree", 1, 0, 0},
    {"split_binary", "split_binary_tree", 1, 0, 0},
    {"binomial", "binomial", 1, 0, 0}, {"knomial", "knomial", 1, 0, 1},
    {NULL, NULL, 0, 0, 0}};
static const tx_alg tx_ompi_reduce[] = {
    {"basic_linear", "linear", 0, 0, 0}, {"binomial", "binomial", 1, 0, 0},
    {"rabenseifner", "rabenseifner", 0, 0, 0}, {NULL, NULL, 0, 0, 0}};
static const tx_alg tx_ompi_allreduce[] = {
    {"basic_linear", "basic_linear", 0, 0, 0},
    {"recursive_doubling", "recursive_doubling", 0, 0, 0},
    {"ring", "ring", 0, 0, 0}, {"segmented_ring", "segmented_ring", 1, 0, 0},
    {"rabenseifner", "rabenseifner", 0, 0, 0}, {NULL, NULL, 0, 0, 0}};

static const tx_alg tx_mpich_gather[] = {
    {"binomial", "MPIR_Gather_intra_binomial", 0, 0, 0}, {NULL, NULL, 0, 0, 0}};
static const tx_alg tx_mpich_scatter[] = {
    {"binomial", "MPIR_Scatter_intra_binomial", 0, 0, 0},
    {NULL, NULL, 0, 0, 0}};
static const tx_alg tx_mpich_bcast[] = {
    {"binomial", "MPIR_Bcast_intra_binomial", 0, 0, 0}, {NULL, NULL, 0, 0, 0}};
static const tx_alg tx_mpich_reduce[] = {
    {"binomial", "MPIR_Reduce_intra_binomial", 0, 0, 0},
    {"rabenseifner", "MPIR_Reduce_intra_reduce_scatter_gather", 0, 0, 0},
    {NULL, NULL, 0, 0, 0}};
static const tx_alg tx_mpich_allreduce[] = {
    {"recursive_doubling", "MPIR_Allreduce_intra_recursive_doubling", 0, 0, 0},
    {"rabenseifner", "MPIR_Allreduce_intra_reduce_scatter_allgather", 0, 0, 0},
    {NULL, NULL, 0, 0, 0}};

typedef struct tx_coll {
    papc_collective coll;
    const char *name;
    int ompi_id;               /* Open MPI 4.1 COLLTYPE */
    int per_block;             /* bytes are one rank's block */
    const tx_alg *ompi, *mpich;
    const char *mpich_inter;   /* MPICH's intercommunicator algorithm */
    const char *mpich_general; /* serves every op and count (guards) */
} tx_coll;

/* In Open MPI's COLLTYPE order, which the rules file lists. */
static const tx_coll tx_colls[] = {
    {PAPC_ALLREDUCE, "allreduce", 2, 0, tx_ompi_allreduce,
     tx_mpich_allreduce, "MPIR_Allreduce_inter_reduce_exchange_bcast",
     "MPIR_Allreduce_intra_recursive_doubling"},
    {PAPC_BCAST, "bcast", 7, 0, tx_ompi_bcast, tx_mpich_bcast,
     "MPIR_Bcast_inter_remote_send_local_bcast", NULL},
    {PAPC_GATHER, "gather", 9, 1, tx_ompi_gather, tx_mpich_gather,
     "MPIR_Gather_inter_linear", NULL},
    {PAPC_REDUCE, "reduce", 11, 0, tx_ompi_reduce, tx_mpich_reduce,
     "MPIR_Reduce_inter_local_reduce_remote_send",
     "MPIR_Reduce_intra_binomial"},
    {PAPC_SCATTER, "scatter", 15, 1, tx_ompi_scatter, tx_mpich_scatter,
     "MPIR_Scatter_inter_linear", NULL},
};
#define TX_NCOLLS (int)(sizeof tx_colls / sizeof *tx_colls)

/* ---- the choice per (collective, P, bytes) --------------------------- */

#define TX_MAX_ROWS 64
#define TX_MAX_PIECES 256
#define TX_MIN_BYTES ((size_t)1)
#define TX_MAX_BYTES ((size_t)64 << 20)

typedef struct tx_choice {
    int alg;          /* index into the target table; -1: none */
    size_t segsize;   /* bytes; 0 = whole message */
} tx_choice;

/* One communicator size's rules: piece i runs from start[i] bytes (of
 * papcoll: block or vector) up to the next piece. */
typedef struct tx_pieces {
    int n;
    size_t start[TX_MAX_PIECES];
    tx_choice ch[TX_MAX_PIECES];
} tx_pieces;

static void tx_err(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static int tx_find(const tx_alg *tab, const char *papc) {
    for (int j = 0; tab[j].papc; j++)
        if (!strcmp(tab[j].papc, papc)) return j;
    return -1;
}

/* The fastest predicted algorithm that the target library has. */
static int tx_best(const tx_coll *c, const tx_alg *tab, int P, size_t bytes,
                   tx_choice *out, char *err, size_t errlen) {
    papc_prediction rows[TX_MAX_ROWS];
    int n = 0, chosen = -1;
    int rc = tune_export_explain(c->coll, P, bytes, MPI_DOUBLE, MPI_SUM,
                                 rows, TX_MAX_ROWS, &n, &chosen);
    if (rc != MPI_SUCCESS) {
        tx_err(err, errlen, "papc_explain(%s, P %d, %zu B) failed: %s",
               c->name, P, bytes, papc_strerror(rc));
        return -1;
    }
    double best = -1;
    out->alg = -1;
    out->segsize = 0;
    for (int i = 0; i < n && i < TX_MAX_ROWS; i++) {
        int j = tx_find(tab, rows[i].algorithm);
        if (j < 0 || rows[i].seconds < 0) continue;
        if (best < 0 || rows[i].seconds < best) {
            best = rows[i].seconds;
            out->alg = j;
            out->segsize = tab[j].segmented ? rows[i].segsize : 0;
        }
    }
    if (out->alg < 0) {
        tx_err(err, errlen, "%s at P %d, %zu B: the profile predicts none "
               "of the algorithms the target library has (is a profile "
               "loaded?)", c->name, P, bytes);
        return -1;
    }
    return 0;
}

static int tx_same(tx_choice a, tx_choice b) {
    return a.alg == b.alg && a.segsize == b.segsize;
}

/* Appends the boundaries in (lo, hi] to p: while the choice at hi differs
 * from the current one, bisect for the first byte count that changes it
 * (choice(x - 1) is the current one, choice(x) is not) and go on from
 * there, so several changes between two grid points are all found. */
static int tx_split(const tx_coll *c, const tx_alg *tab, int P, size_t lo,
                    tx_choice at_lo, size_t hi, tx_choice at_hi,
                    tx_pieces *p, char *err, size_t errlen) {
    while (!tx_same(at_lo, at_hi)) {
        size_t a = lo, b = hi;
        tx_choice cb = at_hi;
        while (b - a > 1) {
            size_t mid = a + (b - a) / 2;
            tx_choice cm;
            if (tx_best(c, tab, P, mid, &cm, err, errlen)) return -1;
            if (tx_same(cm, at_lo)) a = mid;
            else b = mid, cb = cm;
        }
        if (p->n == TX_MAX_PIECES) {
            tx_err(err, errlen, "%s at P %d: more than %d rules", c->name,
                   P, TX_MAX_PIECES);
            return -1;
        }
        p->start[p->n] = b;
        p->ch[p->n++] = cb;
        lo = b;
        at_lo = cb;
    }
    return 0;
}

/* The rules of one communicator size, from 0 bytes up. */
static int tx_pieces_of(const tx_coll *c, const tx_alg *tab, int P,
                        tx_pieces *p, char *err, size_t errlen) {
    tx_choice prev;
    size_t at = TX_MIN_BYTES;
    if (tx_best(c, tab, P, at, &prev, err, errlen)) return -1;
    p->n = 1;
    p->start[0] = 0;
    p->ch[0] = prev;
    /* Four points per octave: 2^k, 2^k·1.19, 2^k·1.41, 2^k·1.68. */
    static const double step[4] = {1.0, 1.189207, 1.414214, 1.681793};
    for (size_t oct = TX_MIN_BYTES; oct < TX_MAX_BYTES; oct *= 2) {
        for (int s = 0; s < 4; s++) {
            size_t next = s + 1 < 4 ? (size_t)(oct * step[s + 1] + 0.5)
                                    : oct * 2;
            if (next <= at) continue;
            tx_choice cn;
            if (tx_best(c, tab, P, next, &cn, err, errlen)) return -1;
            if (tx_split(c, tab, P, at, prev, next, cn, p, err, errlen))
                return -1;
            at = next;
            prev = cn;
        }
    }
    return 0;
}

static int tx_pieces_equal(const tx_pieces *a, const tx_pieces *b) {
    if (a->n != b->n) return 0;
    for (int i = 0; i < a->n; i++)
        if (a->start[i] != b->start[i] || !tx_same(a->ch[i], b->ch[i]))
            return 0;
    return 1;
}

/* One collective's rules for P = p0..p1, consecutive sizes with the same
 * rules merged: group g covers P from first[g] to the next group's.
 * Gather and scatter rules with boundaries are not merged: the libraries
 * key them on P x block, so equal block boundaries are different rules at
 * different P. */
typedef struct tx_table {
    int ngroups;          /* 0: no predictions, the library chooses */
    int *first;
    tx_pieces *rules;
} tx_table;

static void tx_table_free(tx_table *t) {
    free(t->first);
    free(t->rules);
    t->first = NULL;
    t->rules = NULL;
    t->ngroups = 0;
}

/* Whether papcoll predicts any algorithm of tab for c at all: a papcoll
 * whose rows of c have no cost model yet leaves c to the library's own
 * choice (with a warning) instead of failing the whole export. */
static int tx_predicts_any(const tx_coll *c, const tx_alg *tab, int P) {
    papc_prediction rows[TX_MAX_ROWS];
    int n = 0, chosen = -1;
    if (tune_export_explain(c->coll, P, 1, MPI_DOUBLE, MPI_SUM, rows,
                            TX_MAX_ROWS, &n, &chosen) != MPI_SUCCESS)
        return 1; /* tx_best will say what failed */
    for (int i = 0; i < n && i < TX_MAX_ROWS; i++)
        if (rows[i].seconds >= 0 && tx_find(tab, rows[i].algorithm) >= 0)
            return 1;
    return 0;
}

static int tx_table_of(const tx_coll *c, const tx_alg *tab, int p0, int p1,
                       tx_table *t, char *err, size_t errlen) {
    int np = p1 - p0 + 1;
    t->ngroups = 0;
    if (!tx_predicts_any(c, tab, p0)) {
        fprintf(stderr, "papc-tune: warning: %s: papcoll predicts none of "
                "the algorithms the target library has (no cost models?); "
                "left to the library's own choice\n", c->name);
        return 0;
    }
    t->first = malloc((size_t)np * sizeof *t->first);
    t->rules = malloc((size_t)np * sizeof *t->rules);
    if (!t->first || !t->rules) {
        tx_table_free(t);
        tx_err(err, errlen, "no memory for the %s rules", c->name);
        return -1;
    }
    for (int P = p0; P <= p1; P++) {
        tx_pieces *r = &t->rules[t->ngroups];
        if (tx_pieces_of(c, tab, P, r, err, errlen)) {
            tx_table_free(t);
            return -1;
        }
        if ((!c->per_block || r->n == 1) && t->ngroups > 0 &&
            tx_pieces_equal(r, &t->rules[t->ngroups - 1]))
            continue;
        t->first[t->ngroups++] = P;
    }
    return 0;
}

/* ---- writing a file atomically ----------------------------------------- */

static FILE *tx_open(const char *path, char *tmp, size_t tmplen, char *err,
                     size_t errlen) {
    snprintf(tmp, tmplen, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) tx_err(err, errlen, "%s: %s", path, strerror(errno));
    return f;
}

static int tx_close(FILE *f, const char *path, const char *tmp, int failed,
                    char *err, size_t errlen) {
    int bad = ferror(f);
    if (fclose(f) != 0) bad = 1;
    if (failed || bad) {
        if (!failed) tx_err(err, errlen, "%s: write error", path);
        remove(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        tx_err(err, errlen, "%s: %s", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

static const char *tx_profile_name(void) {
    const char *p = papc_profile_path ? papc_profile_path() : NULL;
    return p ? p : "(the loaded profile)";
}

/* ---- Open MPI ------------------------------------------------------------- */

#define TX_OMPI_MAX_NAMES 128

typedef struct tx_ompi_names {
    int n;
    char coll[TX_OMPI_MAX_NAMES][64];
    char name[TX_OMPI_MAX_NAMES][64];
    int number[TX_OMPI_MAX_NAMES];
} tx_ompi_names;

/* Open MPI's algorithm numbers, by name, from ompi_info's parsable
 * listing: "mca:coll:tuned:param:coll_tuned_<coll>_algorithm:enumerator:
 * value:<number>:<name>". */
static int tx_ompi_read_names(tx_ompi_names *t, char *err, size_t errlen) {
    const char *bin = getenv("PAPC_OMPI_INFO");
    if (!bin || !*bin) bin = "ompi_info";
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "%s --param coll tuned --level 9 --parsable 2>/dev/null", bin);
    FILE *p = popen(cmd, "r");
    if (!p) {
        tx_err(err, errlen, "cannot run %s: %s", bin, strerror(errno));
        return -1;
    }
    char line[1024];
    t->n = 0;
    while (fgets(line, sizeof line, p)) {
        char coll[64], name[64];
        int num;
        if (sscanf(line, "mca:coll:tuned:param:coll_tuned_%63[^:]:enumerator:"
                   "value:%d:%63[^:\n]", coll, &num, name) != 3)
            continue;
        size_t len = strlen(coll);
        const char *suffix = "_algorithm";
        size_t sl = strlen(suffix);
        if (len <= sl || strcmp(coll + len - sl, suffix)) continue;
        coll[len - sl] = '\0';
        if (t->n == TX_OMPI_MAX_NAMES) break;
        snprintf(t->coll[t->n], sizeof t->coll[0], "%s", coll);
        snprintf(t->name[t->n], sizeof t->name[0], "%s", name);
        t->number[t->n++] = num;
    }
    int status = pclose(p);
    if (t->n == 0) {
        tx_err(err, errlen, "%s lists no coll/tuned algorithms (%s): the "
               "Open MPI export needs Open MPI's ompi_info (PAPC_OMPI_INFO "
               "names another)", bin,
               status == -1 ? strerror(errno)
               : WIFEXITED(status) && WEXITSTATUS(status) == 127
                   ? "not found" : "no enumerators");
        return -1;
    }
    return 0;
}

static int tx_ompi_number(const tx_ompi_names *t, const char *coll,
                          const char *name) {
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->coll[i], coll) && !strcmp(t->name[i], name))
            return t->number[i];
    return -1;
}

/* Open MPI's message size of piece start b (block or vector bytes). */
static size_t tx_ompi_bytes(const tx_coll *c, int P, size_t b) {
    return c->per_block ? (size_t)P * b : b;
}

static size_t tx_first_segment(void) {
    const char *e = getenv("PAPC_GATHER_FIRST_SEGMENT");
    long v = e && *e ? strtol(e, NULL, 10) : 1024;
    return v > 0 ? (size_t)v : 0;
}

/* One line of numbers, the comment aligned after them. */
static void tx_ompi_line(FILE *f, const char *comment, const char *fmt, ...) {
    char nums[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(nums, sizeof nums, fmt, ap);
    va_end(ap);
    if (*comment) fprintf(f, "%-22s # %s\n", nums, comment);
    else fprintf(f, "%s\n", nums);
}

static void tx_ompi_rule(FILE *f, const tx_coll *c, const tx_ompi_names *nm,
                         int P, const tx_pieces *r) {
    for (int i = 0; i < r->n; i++) {
        const tx_alg *a = &c->ompi[r->ch[i].alg];
        size_t seg = r->ch[i].segsize;
        if (!strcmp(a->target, "linear_sync")) seg = tx_first_segment();
        char what[160];
        int len = snprintf(what, sizeof what, "from %zu B%s: %s",
                           r->start[i], c->per_block ? " a rank" : "",
                           a->target);
        if (seg && len > 0 && (size_t)len < sizeof what)
            len += snprintf(what + len, sizeof what - (size_t)len,
                            ", %s %zu B", strcmp(a->target, "linear_sync")
                                              ? "segments" : "first part",
                            seg);
        if (strcmp(a->papc, a->target) && len > 0 &&
            (size_t)len < sizeof what)
            snprintf(what + len, sizeof what - (size_t)len, " (papcoll %s)",
                     a->papc);
        tx_ompi_line(f, what, "%zu %d %d %zu", tx_ompi_bytes(c, P,
                     r->start[i]), tx_ompi_number(nm, c->name, a->target),
                     a->faninout, seg);
    }
}

/* Every target name of every collective must have an Open MPI number
 * (an optional one is left out instead: tx_ompi_available). */
static int tx_ompi_check_names(const tx_ompi_names *nm, char *err,
                               size_t errlen) {
    for (int k = 0; k < TX_NCOLLS; k++)
        for (const tx_alg *a = tx_colls[k].ompi; a->papc; a++)
            if (!a->optional &&
                tx_ompi_number(nm, tx_colls[k].name, a->target) <= 0) {
                tx_err(err, errlen, "ompi_info lists no %s algorithm named "
                       "'%s'", tx_colls[k].name, a->target);
                return -1;
            }
    return 0;
}

/* papcoll's k-nomial radix as the bcast row reads it (PAPC_KNOMIAL_RADIX,
 * default 4; src/coll/bcast/knomial.c). */
static long tx_knomial_radix(void) {
    const char *v = getenv("PAPC_KNOMIAL_RADIX");
    if (!v || !*v) return 4;
    char *end;
    long k = strtol(v, &end, 10);
    return *end || k < 2 ? 4 : k;
}

/* Whether an optional row can be exported: Open MPI has it (knomial since
 * 4.1), and it runs as papcoll's row was predicted.  Open MPI's knomial
 * takes its radix from coll_tuned_bcast_algorithm_knomial_radix (default
 * 4), not from the rules file, so papcoll's knomial is exported only at
 * radix 4. */
static int tx_ompi_available(const tx_ompi_names *nm, const char *coll,
                             const tx_alg *a) {
    if (!a->optional) return 1;
    if (tx_ompi_number(nm, coll, a->target) <= 0) return 0;
    return strcmp(a->papc, "knomial") || tx_knomial_radix() == 4;
}

/* The collectives with their Open MPI tables cut to what can be exported
 * (into alg: TX_NCOLLS tables of up to TX_MAX_TABLE rows). */
#define TX_MAX_TABLE 16
static void tx_ompi_tables(const tx_ompi_names *nm, tx_coll *out,
                           tx_alg alg[][TX_MAX_TABLE]) {
    for (int k = 0; k < TX_NCOLLS; k++) {
        int n = 0;
        for (const tx_alg *a = tx_colls[k].ompi;
             a->papc && n < TX_MAX_TABLE - 1; a++)
            if (tx_ompi_available(nm, tx_colls[k].name, a)) alg[k][n++] = *a;
        alg[k][n] = (tx_alg){NULL, NULL, 0, 0, 0};
        out[k] = tx_colls[k];
        out[k].ompi = alg[k];
    }
}

static void tx_ompi_collective(FILE *f, const tx_coll *c,
                               const tx_ompi_names *nm, const tx_table *t,
                               int p0, int p1) {
    int below = p0 > 2, above = 1;
    char what[96];
    fprintf(f, "\n");
    tx_ompi_line(f, c->name, "%d", c->ompi_id);
    tx_ompi_line(f, "communicator sizes", "%d", t->ngroups + below + above);
    if (below) {
        snprintf(what, sizeof what, "P 1..%d: not profiled, Open MPI's "
                 "fixed rules", p0 - 1);
        tx_ompi_line(f, what, "1 1");
        tx_ompi_line(f, "", "0 0 0 0");
    }
    for (int g = 0; g < t->ngroups; g++) {
        int last = g + 1 < t->ngroups ? t->first[g + 1] - 1 : p1;
        if (last > t->first[g])
            snprintf(what, sizeof what, "P %d..%d", t->first[g], last);
        else
            snprintf(what, sizeof what, "P %d", last);
        tx_ompi_line(f, what, "%d %d", t->first[g], t->rules[g].n);
        tx_ompi_rule(f, c, nm, t->first[g], &t->rules[g]);
    }
    snprintf(what, sizeof what, "P %d and more: not profiled, Open MPI's "
             "fixed rules", p1 + 1);
    tx_ompi_line(f, what, "%d 1", p1 + 1);
    tx_ompi_line(f, "", "0 0 0 0");
}

static int tx_ncovered(const tx_table *t) {
    int n = 0;
    for (int k = 0; k < TX_NCOLLS; k++) n += t[k].ngroups > 0;
    return n;
}

static int tune_export_ompi(const char *path, int pmin, int pmax, char *err,
                            size_t errlen) {
    int p0 = pmin > 2 ? pmin : 2;
    if (!tune_export_explain) {
        tx_err(err, errlen, "%s: this papcoll has no papc_explain", path);
        return -1;
    }
    if (pmax < p0) {
        tx_err(err, errlen, "%s: the profile's P range %d..%d has no "
               "communicator of 2 or more", path, pmin, pmax);
        return -1;
    }
    static tx_ompi_names nm;
    if (tx_ompi_read_names(&nm, err, errlen) ||
        tx_ompi_check_names(&nm, err, errlen))
        return -1;
    static tx_coll cc[TX_NCOLLS];
    static tx_alg cc_alg[TX_NCOLLS][TX_MAX_TABLE];
    tx_ompi_tables(&nm, cc, cc_alg);
    tx_table t[TX_NCOLLS];
    memset(t, 0, sizeof t);
    int failed = 0;
    for (int k = 0; k < TX_NCOLLS && !failed; k++)
        failed = tx_table_of(&cc[k], cc[k].ompi, p0, pmax, &t[k],
                             err, errlen);
    if (!failed && tx_ncovered(t) == 0) {
        tx_err(err, errlen, "%s: papcoll predicts none of the target "
               "library's algorithms for any collective (is a profile "
               "loaded? do the rows have cost models?)", path);
        failed = -1;
    }
    char tmp[4096];
    FILE *f = failed ? NULL : tx_open(path, tmp, sizeof tmp, err, errlen);
    if (f) {
        fprintf(f,
                "# Open MPI coll/tuned dynamic rules written by papc-tune "
                "from the papcoll profile\n# %s, for P %d..%d: the "
                "algorithm papcoll's cost models predict fastest among\n"
                "# Open MPI's own.  Use with\n#   mpirun --mca "
                "coll_tuned_use_dynamic_rules 1 --mca "
                "coll_tuned_dynamic_rules_filename %s\n# Format (Open MPI "
                "4.1): collectives; per collective its id and number of\n"
                "# communicator sizes; per size P and number of message "
                "sizes; per message\n# size: bytes (gather, scatter: P x "
                "block), algorithm (0: Open MPI's fixed\n# rules), fan-in/"
                "out, segment size.\n",
                tx_profile_name(), pmin, pmax, path);
        tx_ompi_line(f, "collectives", "%d", tx_ncovered(t));
        for (int k = 0; k < TX_NCOLLS; k++) {
            if (t[k].ngroups)
                tx_ompi_collective(f, &cc[k], &nm, &t[k], p0, pmax);
            else
                fprintf(f, "\n# %s: no prediction, Open MPI's fixed rules\n",
                        tx_colls[k].name);
        }
        failed = tx_close(f, path, tmp, 0, err, errlen);
    } else {
        failed = -1;
    }
    for (int k = 0; k < TX_NCOLLS; k++) tx_table_free(&t[k]);
    return failed ? -1 : 0;
}

/* ---- MPICH ------------------------------------------------------------------ */

/* Collectives papcoll does not tune: one general MPICH 4.0 algorithm each,
 * split only where MPICH needs it.  inter NULL: "allcomm", one leaf. */
typedef struct tx_mpich_other {
    const char *coll;
    const char *intra;     /* the general intracommunicator algorithm */
    const char *inplace;   /* is_sendbuf_inplace=yes needs this one */
    const char *noncomm;   /* is_commutative=no needs this one */
    const char *inter;
} tx_mpich_other;

#define TX_M(x) "MPIR_" x
static const tx_mpich_other tx_mpich_others[] = {
    {"allgather", TX_M("Allgather_intra_brucks"), NULL, NULL,
     TX_M("Allgather_inter_local_gather_remote_bcast")},
    {"allgatherv", TX_M("Allgatherv_intra_brucks"), NULL, NULL,
     TX_M("Allgatherv_inter_remote_gather_local_bcast")},
    {"reduce_scatter", TX_M("Reduce_scatter_intra_recursive_halving"), NULL,
     TX_M("Reduce_scatter_intra_recursive_doubling"),
     TX_M("Reduce_scatter_inter_remote_reduce_local_scatter")},
    {"reduce_scatter_block",
     TX_M("Reduce_scatter_block_intra_recursive_halving"), NULL,
     TX_M("Reduce_scatter_block_intra_recursive_doubling"),
     TX_M("Reduce_scatter_block_inter_remote_reduce_local_scatter")},
    {"gatherv", TX_M("Gatherv_allcomm_linear"), NULL, NULL, NULL},
    {"scatterv", TX_M("Scatterv_allcomm_linear"), NULL, NULL, NULL},
    {"scan", TX_M("Scan_intra_recursive_doubling"), NULL, NULL, NULL},
    {"exscan", TX_M("Exscan_intra_recursive_doubling"), NULL, NULL, NULL},
    {"barrier", TX_M("Barrier_intra_dissemination"), NULL, NULL,
     TX_M("Barrier_inter_bcast")},
    {"alltoall", TX_M("Alltoall_intra_scattered"),
     TX_M("Alltoall_intra_pairwise_sendrecv_replace"), NULL,
     TX_M("Alltoall_inter_pairwise_exchange")},
    {"alltoallv", TX_M("Alltoallv_intra_scattered"),
     TX_M("Alltoallv_intra_pairwise_sendrecv_replace"), NULL,
     TX_M("Alltoallv_inter_pairwise_exchange")},
    {"alltoallw", TX_M("Alltoallw_intra_scattered"),
     TX_M("Alltoallw_intra_pairwise_sendrecv_replace"), NULL,
     TX_M("Alltoallw_inter_pairwise_exchange")},
    {"neighbor_allgather", TX_M("Neighbor_allgather_allcomm_nb"), NULL,
     NULL, NULL},
    {"neighbor_allgatherv", TX_M("Neighbor_allgatherv_allcomm_nb"), NULL,
     NULL, NULL},
    {"neighbor_alltoall", TX_M("Neighbor_alltoall_allcomm_nb"), NULL, NULL,
     NULL},
    {"neighbor_alltoallv", TX_M("Neighbor_alltoallv_allcomm_nb"), NULL,
     NULL, NULL},
    {"neighbor_alltoallw", TX_M("Neighbor_alltoallw_allcomm_nb"), NULL,
     NULL, NULL},
    {"ibarrier", TX_M("Ibarrier_intra_sched_recursive_doubling"), NULL, NULL,
     TX_M("Ibarrier_inter_sched_bcast")},
    {"iallreduce", TX_M("Iallreduce_intra_sched_recursive_doubling"), NULL,
     NULL, TX_M("Iallreduce_inter_sched_remote_reduce_local_bcast")},
    {"iallgather", TX_M("Iallgather_intra_sched_brucks"), NULL, NULL,
     TX_M("Iallgather_inter_sched_local_gather_remote_bcast")},
    {"iallgatherv", TX_M("Iallgatherv_intra_sched_brucks"), NULL, NULL,
     TX_M("Iallgatherv_inter_sched_remote_gather_local_bcast")},
    {"ibcast", TX_M("Ibcast_intra_sched_binomial"), NULL, NULL,
     TX_M("Ibcast_inter_sched_flat")},
    {"ireduce", TX_M("Ireduce_intra_sched_binomial"), NULL, NULL,
     TX_M("Ireduce_inter_sched_local_reduce_remote_send")},
    {"ireduce_scatter", TX_M("Ireduce_scatter_intra_sched_recursive_halving"),
     NULL, TX_M("Ireduce_scatter_intra_sched_recursive_doubling"),
     TX_M("Ireduce_scatter_inter_sched_remote_reduce_local_scatterv")},
    {"ireduce_scatter_block",
     TX_M("Ireduce_scatter_block_intra_sched_recursive_halving"), NULL,
     TX_M("Ireduce_scatter_block_intra_sched_recursive_doubling"),
     TX_M("Ireduce_scatter_block_inter_sched_remote_reduce_local_scatterv")},
    {"igather", TX_M("Igather_intra_sched_binomial"), NULL, NULL,
     TX_M("Igather_inter_sched_long")},
    {"iscatter", TX_M("Iscatter_intra_sched_binomial"), NULL, NULL,
     TX_M("Iscatter_inter_sched_linear")},
    {"igatherv", TX_M("Igatherv_allcomm_sched_linear"), NULL, NULL, NULL},
    {"iscatterv", TX_M("Iscatterv_allcomm_sched_linear"), NULL, NULL, NULL},
    {"iexscan", TX_M("Iexscan_intra_sched_recursive_doubling"), NULL, NULL,
     NULL},
    {"ialltoall", TX_M("Ialltoall_intra_sched_permuted_sendrecv"),
     TX_M("Ialltoall_intra_sched_inplace"), NULL,
     TX_M("Ialltoall_inter_sched_pairwise_exchange")},
    {"ialltoallv", TX_M("Ialltoallv_intra_sched_blocked"),
     TX_M("Ialltoallv_intra_sched_inplace"), NULL,
     TX_M("Ialltoallv_inter_sched_pairwise_exchange")},
    {"ialltoallw", TX_M("Ialltoallw_intra_sched_blocked"),
     TX_M("Ialltoallw_intra_sched_inplace"), NULL,
     TX_M("Ialltoallw_inter_sched_pairwise_exchange")},
    {"iscan", TX_M("Iscan_intra_sched_recursive_doubling"), NULL, NULL,
     NULL},
    {"ineighbor_allgather", TX_M("Ineighbor_allgather_allcomm_sched_linear"),
     NULL, NULL, NULL},
    {"ineighbor_allgatherv",
     TX_M("Ineighbor_allgatherv_allcomm_sched_linear"), NULL, NULL, NULL},
    {"ineighbor_alltoall", TX_M("Ineighbor_alltoall_allcomm_sched_linear"),
     NULL, NULL, NULL},
    {"ineighbor_alltoallv",
     TX_M("Ineighbor_alltoallv_allcomm_sched_linear"), NULL, NULL, NULL},
    {"ineighbor_alltoallw",
     TX_M("Ineighbor_alltoallw_allcomm_sched_linear"), NULL, NULL, NULL},
};
#undef TX_M
#define TX_NOTHERS (int)(sizeof tx_mpich_others / sizeof *tx_mpich_others)

static void tx_indent(FILE *f, int depth) {
    fprintf(f, "%*s", 2 * depth, "");
}

/* "KEY": {"algorithm=NAME": {}} */
static void tx_leaf(FILE *f, int depth, const char *key, const char *alg,
                    int comma) {
    tx_indent(f, depth);
    fprintf(f, "\"%s\": {\"algorithm=%s\": {}}%s\n", key, alg,
            comma ? "," : "");
}

static void tx_open_key(FILE *f, int depth, const char *key) {
    tx_indent(f, depth);
    fprintf(f, "\"%s\": {\n", key);
}

static void tx_close_key(FILE *f, int depth, int comma) {
    tx_indent(f, depth);
    fprintf(f, "}%s\n", comma ? "," : "");
}

/* The message-size level of one communicator size group, under key. */
static void tx_mpich_sizes(FILE *f, int depth, const char *key,
                           const tx_coll *c, const tx_pieces *r, int P,
                           int comma) {
    if (r->n == 1) {
        tx_leaf(f, depth, key, c->mpich[r->ch[0].alg].target, comma);
        return;
    }
    /* gather, scatter: MPICH keys them on total_msg_size. */
    const char *sk = c->per_block ? "total_msg_size" : "avg_msg_size";
    tx_open_key(f, depth, key);
    for (int i = 0; i < r->n; i++) {
        char k[64];
        if (i + 1 < r->n) {
            size_t upto = r->start[i + 1] - 1;
            snprintf(k, sizeof k, "%s<=%zu", sk,
                     c->per_block ? upto * (size_t)P : upto);
        } else {
            snprintf(k, sizeof k, "%s=any", sk);
        }
        tx_leaf(f, depth + 1, k, c->mpich[r->ch[i].alg].target,
                i + 1 < r->n);
    }
    tx_close_key(f, depth, comma);
}

/* The communicator-size level: one "comm_size<=N" per group, the last
 * one "comm_size=any" (it also serves P above the profile's range). */
static void tx_mpich_comm_sizes(FILE *f, int depth, const char *key,
                                const tx_coll *c, const tx_table *t,
                                int comma) {
    if (t->ngroups == 1) {
        tx_mpich_sizes(f, depth, key, c, &t->rules[0], t->first[0], comma);
        return;
    }
    tx_open_key(f, depth, key);
    for (int g = 0; g < t->ngroups; g++) {
        char k[64];
        if (g + 1 < t->ngroups)
            snprintf(k, sizeof k, "comm_size<=%d", t->first[g + 1] - 1);
        else
            snprintf(k, sizeof k, "comm_size=any");
        tx_mpich_sizes(f, depth + 1, k, c, &t->rules[g], t->first[g],
                       g + 1 < t->ngroups);
    }
    tx_close_key(f, depth, comma);
}

static void tx_mpich_tuned(FILE *f, const tx_coll *c, const tx_table *t,
                           int comma) {
    char key[64];
    snprintf(key, sizeof key, "collective=%s", c->name);
    tx_open_key(f, 1, key);
    if (t->ngroups == 0) {
        /* no prediction: the algorithm that serves every call */
        tx_leaf(f, 2, "comm_type=intra",
                c->mpich_general ? c->mpich_general : c->mpich[0].target, 1);
    } else if (c->mpich_general) {
        /* Rabenseifner in MPICH: built-in ops, count >= pof2 only. */
        tx_open_key(f, 2, "comm_type=intra");
        tx_open_key(f, 3, "is_op_built_in=yes");
        tx_leaf(f, 4, "count<pow2", c->mpich_general, 1);
        tx_mpich_comm_sizes(f, 4, "count=any", c, t, 0);
        tx_close_key(f, 3, 1);
        tx_leaf(f, 3, "is_op_built_in=no", c->mpich_general, 0);
        tx_close_key(f, 2, 1);
    } else {
        tx_mpich_comm_sizes(f, 2, "comm_type=intra", c, t, 1);
    }
    tx_leaf(f, 2, "comm_type=inter", c->mpich_inter, 0);
    tx_close_key(f, 1, comma);
}

static void tx_mpich_other_coll(FILE *f, const tx_mpich_other *o,
                                int comma) {
    char key[64];
    snprintf(key, sizeof key, "collective=%s", o->coll);
    if (!o->inter && !o->inplace && !o->noncomm) {
        tx_leaf(f, 1, key, o->intra, comma);
        return;
    }
    tx_open_key(f, 1, key);
    if (o->inplace) {
        tx_open_key(f, 2, "comm_type=intra");
        tx_leaf(f, 3, "is_sendbuf_inplace=yes", o->inplace, 1);
        tx_leaf(f, 3, "is_sendbuf_inplace=no", o->intra, 0);
        tx_close_key(f, 2, 1);
    } else if (o->noncomm) {
        tx_open_key(f, 2, "comm_type=intra");
        tx_leaf(f, 3, "is_commutative=yes", o->intra, 1);
        tx_leaf(f, 3, "is_commutative=no", o->noncomm, 0);
        tx_close_key(f, 2, 1);
    } else {
        tx_leaf(f, 2, "comm_type=intra", o->intra, 1);
    }
    tx_leaf(f, 2, "comm_type=inter", o->inter, 0);
    tx_close_key(f, 1, comma);
}

static int tune_export_mpich(const char *path, int pmin, int pmax,
                             char *err, size_t errlen) {
    int p0 = pmin > 2 ? pmin : 2;
    if (!tune_export_explain) {
        tx_err(err, errlen, "%s: this papcoll has no papc_explain", path);
        return -1;
    }
    if (pmax < p0) {
        tx_err(err, errlen, "%s: the profile's P range %d..%d has no "
               "communicator of 2 or more", path, pmin, pmax);
        return -1;
    }
    tx_table t[TX_NCOLLS];
    memset(t, 0, sizeof t);
    int failed = 0;
    for (int k = 0; k < TX_NCOLLS && !failed; k++)
        failed = tx_table_of(&tx_colls[k], tx_colls[k].mpich, p0, pmax,
                             &t[k], err, errlen);
    if (!failed && tx_ncovered(t) == 0) {
        tx_err(err, errlen, "%s: papcoll predicts none of the target "
               "library's algorithms for any collective (is a profile "
               "loaded? do the rows have cost models?)", path);
        failed = -1;
    }
    char tmp[4096];
    FILE *f = failed ? NULL : tx_open(path, tmp, sizeof tmp, err, errlen);
    if (f) {
        /* JSON has no comments, and MPICH aborts on a key it does not
         * know, so the file says nothing about itself. */
        fprintf(f, "{\n");
        for (int k = 0; k < TX_NCOLLS; k++) tx_mpich_tuned(f, &tx_colls[k],
                                                           &t[k], 1);
        for (int k = 0; k < TX_NOTHERS; k++)
            tx_mpich_other_coll(f, &tx_mpich_others[k], k + 1 < TX_NOTHERS);
        fprintf(f, "}\n");
        failed = tx_close(f, path, tmp, 0, err, errlen);
    } else {
        failed = -1;
    }
    for (int k = 0; k < TX_NCOLLS; k++) tx_table_free(&t[k]);
    return failed ? -1 : 0;
}

#endif /* PAPC_TOOLS_TUNE_EXPORT_H */
