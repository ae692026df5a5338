/*
 * papc-info — what this papcoll is: its version, the MPI it was built with
 * and runs on, and (with --algorithms) every registered algorithm with its
 * restrictions and flags.  Uses the public API only.
 *
 *   papc-info                       version and MPI
 *   papc-info --algorithms [COLL]   one line per algorithm:
 *                                   <collective> <name> <restrictions/flags>
 *                                   [aliases=a,b]
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
} options;

static void usage(FILE *out) {
    fprintf(out,
            "usage: papc-info [--algorithms [COLLECTIVE]] [--help]\n"
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

static options parse(int argc, char **argv) {
    options o = {0, 0, -1, NULL, NULL};
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
    static const char *const vars[] = {"PAPC_SEGSIZE",
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
        else if (o.algorithms)
            list_algorithms(o.only_coll);
        else
            print_info(provided, nprocs);
        fflush(stdout);
    }
    MPI_Finalize();
    return status;
}
