/*
 * papc-info — what this papcoll is: its version, the MPI it was built with
 * and runs on, and (with --algorithms) every registered algorithm with its
 * restrictions and flags.  Uses the public API only.
 *
 *   papc-info                       version and MPI
 *   papc-info --algorithms [COLL]   one line per algorithm:
 *                                   <collective> <name> <restrictions/flags>
 *                                   [aliases=a,b]
 *   papc-info --explain COLL P SIZE [--op sum|max|user]
 *                                   every algorithm's predicted time for
 *                                   that call under the loaded profile
 *                                   (PAPC_PROFILE or the default place),
 *                                   and the plain call's choice
 *   papc-info --help
 *
 * Runs with or without mpirun (singleton init); only rank 0 prints.
 * Exit status: 0 ok, 2 bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "papcoll.h"

enum { EXIT_OK = 0, EXIT_USAGE = 2 };

typedef struct options {
    int help;
    int algorithms;
    int only_coll;      /* -1: every collective */
    const char *error;  /* non-NULL: bad usage, with this message */
    const char *bad_arg;
    int explain;        /* --explain COLL P SIZE */
    int ex_coll, ex_P;
    size_t ex_bytes;
    const char *ex_op;  /* "sum" (default), "max", "user" */
} options;

static void usage(FILE *out) {
    fprintf(out,
            "usage: papc-info [--algorithms [COLLECTIVE]] [--help]\n"
            "       papc-info --explain COLLECTIVE P SIZE [--op sum|max|user]"
            "\n"
            "\n"
            "Prints papcoll's version and the MPI library it was built with.\n"
            "\n"
            "  --algorithms [COLLECTIVE]  list the registered algorithms, one "
            "per line:\n"
            "                             <collective> <name> <restrictions "
            "and flags> [aliases=...]\n"
            "                             (only COLLECTIVE's when given: "
            "gather, scatter, bcast,\n"
            "                             reduce, allreduce, gatherv, "
            "scatterv)\n"
            "  --explain COLLECTIVE P SIZE  every algorithm's predicted time "
            "for a call of\n"
            "                             P processes and SIZE bytes (gather/"
            "scatter: one\n"
            "                             rank's block; K/M/G suffixes) under "
            "the profile\n"
            "                             (PAPC_PROFILE, else ~/.config/"
            "papcoll/profile.json),\n"
            "                             and the algorithm the plain call "
            "runs; --op picks\n"
            "                             the reduction (double sum, max, or "
            "a user op)\n"
            "  -h, --help                 this text\n"
            "\n"
            "Restrictions: commutative (needs a commutative op; the plain call "
            "falls back).\n"
            "Flags: segmented (pipelines PAPC_SEGSIZE segments), nonblocking, "
            "arrival-aware,\n"
            "       background (runs parts in the monitor thread).\n"
            "Force the plain call's algorithm with "
            "PAPC_<COLLECTIVE>_ALGORITHM=<name>.\n");
}

/* "64K" -> 65536; 0 on a malformed size. */
static int parse_size(const char *s, size_t *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0) return 0;
    double k = 1;
    if (*end == 'K' || *end == 'k') k = 1024, end++;
    else if (*end == 'M' || *end == 'm') k = 1048576, end++;
    else if (*end == 'G' || *end == 'g') k = 1073741824.0, end++;
    if (*end == 'i') end++;
    if (*end == 'B') end++;
    if (*end) return 0;
    *out = (size_t)(v * k);
    return 1;
}

static options parse(int argc, char **argv) {
    options o = {0, 0, -1, NULL, NULL, 0, 0, 0, 0, "sum"};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            o.help = 1;
        } else if (strcmp(a, "--algorithms") == 0 || strcmp(a, "-a") == 0) {
            o.algorithms = 1;
            /* An optional collective name may follow. */
            if (i + 1 < argc && argv[i + 1][0] != '-') {
                o.only_coll = papc_collective_from_name(argv[++i]);
                if (o.only_coll < 0) {
                    o.error = "unknown collective";
                    o.bad_arg = argv[i];
                    return o;
                }
            }
        } else if (strcmp(a, "--explain") == 0) {
            o.explain = 1;
            if (i + 3 >= argc) {
                o.error = "--explain needs COLLECTIVE P SIZE after";
                o.bad_arg = a;
                return o;
            }
            o.ex_coll = papc_collective_from_name(argv[++i]);
            char *end;
            o.ex_P = (int)strtol(argv[i + 1], &end, 10);
            if (o.ex_coll < 0) {
                o.error = "unknown collective";
                o.bad_arg = argv[i];
                return o;
            }
            if (*end || o.ex_P < 1) {
                o.error = "P must be a positive integer, not";
                o.bad_arg = argv[i + 1];
                return o;
            }
            if (!parse_size(argv[i + 2], &o.ex_bytes)) {
                o.error = "SIZE must be bytes (e.g. 4096, 64K, 4M), not";
                o.bad_arg = argv[i + 2];
                return o;
            }
            i += 2;
        } else if (strcmp(a, "--op") == 0 && i + 1 < argc) {
            o.ex_op = argv[++i];
            if (strcmp(o.ex_op, "sum") && strcmp(o.ex_op, "max") &&
                strcmp(o.ex_op, "user")) {
                o.error = "--op must be sum, max or user, not";
                o.bad_arg = o.ex_op;
                return o;
            }
        } else {
            o.error = "unknown argument";
            o.bad_arg = a;
            return o;
        }
    }
    return o;
}

/* Restrictions first, then flags: "commutative segmented nonblocking". */
static void describe(const papc_algorithm_info *a, char *out, size_t len) {
    char r[128], f[128];
    papc_restrictions_string(a->restrictions, r, sizeof r);
    papc_flags_string(a->flags, f, sizeof f);
    snprintf(out, len, "%s%s%s", r, (r[0] && f[0]) ? " " : "", f);
}

/* "a b" -> "aliases=a,b"; "" when there are none. */
static void alias_field(const char *aliases, char *out, size_t len) {
    size_t n = 0;
    out[0] = '\0';
    for (const char *p = aliases; p && *p;) {
        while (*p == ' ') p++;
        const char *e = p;
        while (*e && *e != ' ') e++;
        if (e > p) {
            int w = snprintf(out + n, len - n, "%s%.*s",
                             n ? "," : "aliases=", (int)(e - p), p);
            if (w < 0 || (size_t)w >= len - n) break;
            n += (size_t)w;
        }
        p = e;
    }
}

static void list_algorithms(int only_coll) {
    int width_name = 0;
    for (int c = 0; c < PAPC_NUM_COLLECTIVES; c++)
        for (int i = 0; i < papc_algorithm_count((papc_collective)c); i++) {
            int w = (int)strlen(papc_algorithm_get((papc_collective)c, i)->name);
            if (w > width_name) width_name = w;
        }
    for (int c = 0; c < PAPC_NUM_COLLECTIVES; c++) {
        if (only_coll >= 0 && c != only_coll) continue;
        papc_collective coll = (papc_collective)c;
        for (int i = 0; i < papc_algorithm_count(coll); i++) {
            const papc_algorithm_info *a = papc_algorithm_get(coll, i);
            char what[256], al[256], line[640];
            describe(a, what, sizeof what);
            alias_field(a->aliases, al, sizeof al);
            snprintf(line, sizeof line, "%-9s %-*s %s%s%s",
                     papc_collective_name(coll), width_name, a->name, what,
                     (what[0] && al[0]) ? " " : "", al);
            /* No trailing blanks when an algorithm has nothing to declare. */
            size_t n = strlen(line);
            while (n > 0 && line[n - 1] == ' ') line[--n] = '\0';
            puts(line);
        }
    }
}

static const char *thread_level_name(int level) {
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "unknown";
    }
}

static void print_info(int provided, int nprocs) {
    int major = 0, minor = 0, total = 0;
    MPI_Get_version(&major, &minor);
    for (int c = 0; c < PAPC_NUM_COLLECTIVES; c++)
        total += papc_algorithm_count((papc_collective)c);
    printf("papcoll %s\n", PAPC_VERSION_STRING);
    printf("MPI library:   %s\n", papc_mpi_library());
    printf("MPI standard:  built against %d.%d (MPI_VERSION.MPI_SUBVERSION), "
           "runtime %d.%d\n", MPI_VERSION, MPI_SUBVERSION, major, minor);
    printf("Threads:       MPI_THREAD_MULTIPLE %s (provided %s)\n",
           provided >= MPI_THREAD_MULTIPLE ? "available" : "NOT available",
           thread_level_name(provided));
    printf("Processes:     %d in MPI_COMM_WORLD\n", nprocs);
    printf("Algorithms:    %d in %d collectives (papc-info --algorithms)\n",
           total, (int)PAPC_NUM_COLLECTIVES);
    const char *prof = papc_profile_path();
    printf("Selection:     %s\n",
           prof ? "by cost models under the profile (papc-info --explain)"
                : "fixed rules (no profile: run papc-tune)");
    if (prof) printf("Profile:       %s\n", prof);
    static const char *const vars[] = {"PAPC_PROFILE", "PAPC_SELECT",
                                       "PAPC_SEGSIZE",
                                       "PAPC_GATHER_FIRST_SEGMENT",
                                       "PAPC_VERBOSE"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v) printf("Environment:   %s=%s\n", vars[i], v);
    }
    for (int c = 0; c < PAPC_NUM_COLLECTIVES; c++) {
        char var[64];
        const char *n = papc_collective_name((papc_collective)c);
        int k = snprintf(var, sizeof var, "PAPC_");
        for (const char *p = n; *p && k < 40; p++)
            var[k++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
        snprintf(var + k, sizeof var - (size_t)k, "_ALGORITHM");
        const char *v = getenv(var);
        if (v) printf("Environment:   %s=%s\n", var, v);
    }
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *t) {
    (void)t;
    for (int i = 0; i < *len; i++) ((double *)inout)[i] += ((double *)in)[i];
}

/* One line per algorithm, fastest first is not needed: table order, the
 * choice marked, so the reader sees every row and why it lost. */
static int explain(const options *o) {
    papc_prediction rows[64];
    int n = 0, chosen = -1;
    MPI_Op op = MPI_SUM, user = MPI_OP_NULL;
    papc_collective coll = (papc_collective)o->ex_coll;
    int reduces = coll == PAPC_REDUCE || coll == PAPC_ALLREDUCE;
    if (strcmp(o->ex_op, "max") == 0) op = MPI_MAX;
    if (strcmp(o->ex_op, "user") == 0) {
        MPI_Op_create(user_sum, 1, &user);
        op = user;
    }
    int rc = papc_explain(coll, o->ex_P, o->ex_bytes,
                          reduces ? MPI_DOUBLE : MPI_DATATYPE_NULL,
                          reduces ? op : MPI_OP_NULL, rows, 64, &n, &chosen);
    if (user != MPI_OP_NULL) MPI_Op_free(&user);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "papc-info: %s\n", papc_strerror(rc));
        return EXIT_USAGE;
    }
    const char *file = papc_profile_path();
    printf("%s, P = %d, %zu bytes%s%s; profile: %s\n",
           papc_collective_name(coll), o->ex_P, o->ex_bytes,
           reduces ? ", MPI_DOUBLE " : "", reduces ? o->ex_op : "",
           file ? file : "none (the fixed rules choose)");
    printf("  %-32s %10s %14s  %s\n", "algorithm", "segment", "predicted",
           "note");
    for (int i = 0; i < n && i < 64; i++) {
        char seg[24] = "-", t[24] = "-";
        if (rows[i].segsize) snprintf(seg, sizeof seg, "%zu", rows[i].segsize);
        if (rows[i].seconds >= 0)
            snprintf(t, sizeof t, "%.3f us", rows[i].seconds * 1e6);
        printf("%s %-32s %10s %14s  %s\n", i == chosen ? "*" : " ",
               rows[i].algorithm, seg, t, rows[i].note);
    }
    if (chosen >= 0 && chosen < n)
        printf("choice: %s%s\n", rows[chosen].algorithm,
               file ? " (least predicted time at this size class)"
                    : " (fixed rules)");
    return EXIT_OK;
}

int main(int argc, char **argv) {
    int provided = MPI_THREAD_SINGLE, rank = 0, nprocs = 1;
    /* Asking for MPI_THREAD_MULTIPLE is how we learn whether the runtime
     * offers it (the arrival monitor thread will need it). */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    /* Every rank parses the same argv, so every rank agrees on the exit
     * status; only rank 0 speaks. */
    options o = parse(argc, argv);
    int status = EXIT_OK;
    if (o.error) {
        if (rank == 0) {
            fprintf(stderr, "papc-info: %s '%s' (try papc-info --help)\n",
                    o.error, o.bad_arg);
        }
        status = EXIT_USAGE;
    } else if (rank == 0) {
        if (o.help)
            usage(stdout);
        else if (o.explain)
            status = explain(&o);
        else if (o.algorithms)
            list_algorithms(o.only_coll);
        else
            print_info(provided, nprocs);
        fflush(stdout);
    }
    MPI_Finalize();
    return status;
}
