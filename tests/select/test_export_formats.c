/*
 * test_export_formats.c — the export writers of tools/tune_export.h on a
 * fake prediction function whose boundaries are known by hand (issue 12,
 * item 6).  The files are read back the way their readers read them:
 *   - Open MPI: whitespace integers with '#' comments; a communicator takes
 *     the rule of the largest size <= its own (the first when smaller),
 *     a message the rule of the largest bytes <= its own, and the message
 *     list must start at 0 (Open MPI 4.1's coll_tuned_dynamic_file.c);
 *     algorithm numbers come from a fake ompi_info whose numbers differ from
 *     Open MPI's, so a number written by position and not by name fails;
 *   - MPICH: jansson, then MPICH 4.0's csel walk (first key that holds,
 *     "algorithm=" leaves), with MPICH's own checks: every non-boolean level
 *     ends in "=any", no unknown keys, every collective present.
 * Whether the real libraries APPLY the files is check-export-ompi.sh's and
 * check-export-mpich.sh's business.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>
#include "../../tools/tune_export.h"

/* ---- the fake predictions ------------------------------------------------ */

/* Seconds as simple lines in m, so that every boundary is hand-computed:
 *   bcast:     basic_linear 10 + m·P, chain 100 + m (1024 B segments),
 *              k_chain 150 + 0.9 m (2048 B segments below 1000 B, 8192 B
 *              from it), binomial 1e9 (MPICH's only one),
 *              sorted_fake 0 (not in any library: never exported),
 *              split_binary not a candidate (seconds < 0)
 *   gather:    basic_linear 5 + m, binomial 20 + m/2      -> binomial from 31
 *   scatter:   basic_linear 2, binomial 1                  -> binomial
 *   reduce:    binomial 1 + m, rabenseifner 500 + m/4      -> from 666
 *   allreduce: recursive_doubling 1 + m·P/4, ring 300 + m/8,
 *              rabenseifner 400 + m/8
 *              Open MPI (ring wins over rabenseifner): ring from
 *              ceil(299 / (P/4 - 1/8)); MPICH (no ring): rabenseifner from
 *              ceil(399 / (P/4 - 1/8)). */
typedef struct fake_row {
    const char *name;
    double seconds;
    size_t seg;
} fake_row;

static int fake_rows(papc_collective coll, int P, double m, fake_row *r) {
    int n = 0;
    switch (coll) {
    case PAPC_BCAST:
        r[n++] = (fake_row){"basic_linear", 10 + m * P, 0};
        r[n++] = (fake_row){"chain", 100 + m, 1024};
        r[n++] = (fake_row){"k_chain", 150 + 0.9 * m, m < 1000 ? 2048 : 8192};
        r[n++] = (fake_row){"split_binary", -1, 0};
        r[n++] = (fake_row){"binomial", 1e9, 8192};
        r[n++] = (fake_row){"sorted_fake", 0, 0};
        break;
    case PAPC_GATHER:
        r[n++] = (fake_row){"basic_linear", 5 + m, 0};
        r[n++] = (fake_row){"binomial", 20 + m / 2, 0};
        break;
    case PAPC_SCATTER:
        r[n++] = (fake_row){"basic_linear", 2, 0};
        r[n++] = (fake_row){"binomial", 1, 0};
        break;
    case PAPC_REDUCE:
        r[n++] = (fake_row){"binomial", 1 + m, 4096};
        r[n++] = (fake_row){"rabenseifner", 500 + m / 4, 0};
        break;
    case PAPC_ALLREDUCE:
        r[n++] = (fake_row){"recursive_doubling", 1 + m * P / 4, 0};
        r[n++] = (fake_row){"ring", 300 + m / 8, 0};
        r[n++] = (fake_row){"rabenseifner", 400 + m / 8, 0};
        break;
    default:
        break;
    }
    return n;
}

static int fake_calls;

static int fake_explain(papc_collective coll, int P, size_t bytes,
                        MPI_Datatype dtype, MPI_Op op, papc_prediction *rows,
                        int max, int *n, int *chosen) {
    (void)dtype;
    (void)op;
    fake_row r[8];
    int k = fake_rows(coll, P, (double)bytes, r);
    fake_calls++;
    for (int i = 0; i < k && i < max; i++)
        rows[i] = (papc_prediction){r[i].name, r[i].seg, r[i].seconds * 1e-6,
                                    ""};
    *n = k;
    *chosen = -1;
    return MPI_SUCCESS;
}

/* fake_explain plus a bcast knomial row, 120 + m/2 with 4 KiB segments:
 * the fastest from 64 B on at P <= 6. */
static int fake_explain_knomial(papc_collective coll, int P, size_t bytes,
                                MPI_Datatype dtype, MPI_Op op,
                                papc_prediction *rows, int max, int *n,
                                int *chosen) {
    int rc = fake_explain(coll, P, bytes, dtype, op, rows, max, n, chosen);
    if (rc == MPI_SUCCESS && coll == PAPC_BCAST && *n < max)
        rows[(*n)++] = (papc_prediction){"knomial", 4096,
                                         (120 + 0.5 * (double)bytes) * 1e-6,
                                         ""};
    return rc;
}

static int no_prediction(papc_collective coll, int P, size_t bytes,
                         MPI_Datatype dtype, MPI_Op op,
                         papc_prediction *rows, int max, int *n,
                         int *chosen) {
    (void)coll, (void)P, (void)bytes, (void)dtype, (void)op, (void)rows;
    (void)max;
    *n = 0;
    *chosen = -1;
    return MPI_SUCCESS;
}

/* The first whole m with m·b > a: where a line of slope b overtakes a
 * head start a (a tie keeps the earlier row). */
static size_t first_above(double a, double b) {
    return (size_t)(a / b) + 1;
}

/* fake_explain without any bcast prediction (no cost models yet). */
static int fake_no_bcast(papc_collective coll, int P, size_t bytes,
                         MPI_Datatype dtype, MPI_Op op, papc_prediction *rows,
                         int max, int *n, int *chosen) {
    if (coll == PAPC_BCAST) {
        *n = 0;
        *chosen = -1;
        return MPI_SUCCESS;
    }
    return fake_explain(coll, P, bytes, dtype, op, rows, max, n, chosen);
}

/* ---- Open MPI: a reader with 4.1's semantics -------------------------- */

typedef struct om_msg {
    long bytes, alg, fan, seg;
} om_msg;
typedef struct om_com {
    long size;
    int n;
    om_msg msg[512];
} om_com;
typedef struct om_coll {
    long id;
    int n;
    om_com com[64];
} om_coll;
typedef struct om_file {
    int n;
    om_coll coll[8];
} om_file;

/* The next integer, '#' to the end of the line skipped (as Open MPI's
 * ompi_coll_base_file_getnext_long); 0 at the end of the file. */
static int om_next(FILE *f, long *v) {
    for (;;) {
        int rc = fscanf(f, "%li", v);
        if (rc == 1) return 1;
        if (rc == EOF) return 0;
        int c = fgetc(f);
        if (c == EOF) return 0;
        if (c == '#')
            while ((c = fgetc(f)) != EOF && c != '\n') {}
    }
}

static void om_read(const char *path, om_file *o) {
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    long n;
    assert_true(om_next(f, &n));
    assert_true(n >= 1 && n <= 8);
    o->n = (int)n;
    for (int c = 0; c < o->n; c++) {
        om_coll *oc = &o->coll[c];
        long ncom;
        assert_true(om_next(f, &oc->id) && om_next(f, &ncom));
        assert_true(ncom >= 1 && ncom <= 64);
        oc->n = (int)ncom;
        for (int s = 0; s < oc->n; s++) {
            om_com *cm = &oc->com[s];
            long nmsg;
            assert_true(om_next(f, &cm->size) && om_next(f, &nmsg));
            assert_true(nmsg >= 1 && nmsg <= 512);
            if (s > 0) assert_true(cm->size > oc->com[s - 1].size);
            cm->n = (int)nmsg;
            for (int m = 0; m < cm->n; m++) {
                om_msg *mm = &cm->msg[m];
                assert_true(om_next(f, &mm->bytes) && om_next(f, &mm->alg) &&
                            om_next(f, &mm->fan) && om_next(f, &mm->seg));
                /* The reader drops a file whose first rule is not 0. */
                if (m == 0) assert_int_equal(mm->bytes, 0);
                else assert_true(mm->bytes > cm->msg[m - 1].bytes);
                assert_true(mm->alg >= 0 && mm->fan >= 0 && mm->seg >= 0);
            }
        }
    }
    long extra;
    assert_false(om_next(f, &extra));
    fclose(f);
}

static const om_msg *om_lookup(const om_file *o, long id, long P,
                               long bytes) {
    for (int c = 0; c < o->n; c++) {
        if (o->coll[c].id != id) continue;
        const om_coll *oc = &o->coll[c];
        const om_com *cm = &oc->com[0];
        for (int s = 1; s < oc->n; s++)
            if (oc->com[s].size <= P) cm = &oc->com[s];
        const om_msg *best = &cm->msg[0];
        for (int m = 1; m < cm->n; m++)
            if (cm->msg[m].bytes <= bytes) best = &cm->msg[m];
        return best;
    }
    return NULL;
}

/* The fake ompi_info's numbers (tests/select/fake-ompi-info.sh). */
static long fake_number(const char *coll, const char *name) {
    static const struct {
        const char *coll, *name;
        long n;
    } t[] = {{"allreduce", "basic_linear", 11},
             {"allreduce", "recursive_doubling", 13},
             {"allreduce", "ring", 14},
             {"allreduce", "segmented_ring", 15},
             {"allreduce", "rabenseifner", 16},
             {"bcast", "basic_linear", 21},
             {"bcast", "chain", 22},
             {"bcast", "pipeline", 23},
             {"bcast", "split_binary_tree", 24},
             {"bcast", "binary_tree", 25},
             {"bcast", "binomial", 26},
             {"gather", "basic_linear", 31},
             {"gather", "binomial", 32},
             {"gather", "linear_sync", 33},
             {"reduce", "linear", 41},
             {"reduce", "binomial", 45},
             {"reduce", "rabenseifner", 47},
             {"scatter", "basic_linear", 51},
             {"scatter", "binomial", 52}};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (!strcmp(t[i].coll, coll) && !strcmp(t[i].name, name))
            return t[i].n;
    fail_msg("no fake number for %s %s", coll, name);
    return -1;
}

static void expect_ompi(const om_file *o, long id, const char *coll, long P,
                        long bytes, const char *alg, long fan, long seg) {
    const om_msg *m = om_lookup(o, id, P, bytes);
    assert_non_null(m);
    long want = alg ? fake_number(coll, alg) : 0;
    if (m->alg != want || m->fan != fan || m->seg != seg)
        fail_msg("%s P %ld %ld B: got alg %ld fan %ld seg %ld, want %s (%ld) "
                 "fan %ld seg %ld", coll, P, bytes, m->alg, m->fan, m->seg,
                 alg ? alg : "fixed", want, fan, seg);
}

static char tmpdir[256];

static void path_in_tmp(char *buf, size_t len, const char *name) {
    snprintf(buf, len, "%s/%s", tmpdir, name);
}

static void test_ompi_rules(void **state) {
    (void)state;
    char path[512], err[512];
    path_in_tmp(path, sizeof path, "rules.txt");
    setenv("PAPC_OMPI_INFO", FAKE_OMPI_INFO, 1);
    tune_export_explain = fake_explain;
    assert_int_equal(tune_export_ompi(path, 3, 6, err, sizeof err), 0);
    static om_file o;
    om_read(path, &o);
    assert_int_equal(o.n, 5);
    for (long P = 3; P <= 6; P++) {
        /* bcast: basic_linear below 90/(P-1) B, papcoll chain (Open MPI
         * pipeline) up to 500 B (a tie keeps the earlier row), then
         * k_chain (Open MPI chain, fan-out 4) whose segment grows at
         * 1000 B: a rule of its own */
        size_t b = first_above(90.0, (double)(P - 1));
        expect_ompi(&o, 7, "bcast", P, 0, "basic_linear", 0, 0);
        expect_ompi(&o, 7, "bcast", P, (long)b - 1, "basic_linear", 0, 0);
        expect_ompi(&o, 7, "bcast", P, (long)b, "pipeline", 0, 1024);
        expect_ompi(&o, 7, "bcast", P, 500, "pipeline", 0, 1024);
        expect_ompi(&o, 7, "bcast", P, 501, "chain", 4, 2048);
        expect_ompi(&o, 7, "bcast", P, 999, "chain", 4, 2048);
        expect_ompi(&o, 7, "bcast", P, 1000, "chain", 4, 8192);
        expect_ompi(&o, 7, "bcast", P, 64L << 20, "chain", 4, 8192);
        /* gather: P x block; binomial from a 31 B block */
        expect_ompi(&o, 9, "gather", P, 30 * P, "basic_linear", 0, 0);
        expect_ompi(&o, 9, "gather", P, 31 * P, "binomial", 0, 0);
        expect_ompi(&o, 15, "scatter", P, 0, "binomial", 0, 0);
        expect_ompi(&o, 15, "scatter", P, 1L << 30, "binomial", 0, 0);
        /* reduce: binomial carries its segment size */
        expect_ompi(&o, 11, "reduce", P, 665, "binomial", 0, 4096);
        expect_ompi(&o, 11, "reduce", P, 666, "rabenseifner", 0, 0);
        size_t r = first_above(299.0, P / 4.0 - 0.125);
        expect_ompi(&o, 2, "allreduce", P, (long)r - 1, "recursive_doubling",
                    0, 0);
        expect_ompi(&o, 2, "allreduce", P, (long)r, "ring", 0, 0);
    }
    /* Outside the profile's P range: Open MPI's fixed rules. */
    for (long P = 1; P <= 9; P += (P == 2 ? 5 : 1)) {
        if (P >= 3 && P <= 6) continue;
        expect_ompi(&o, 7, "bcast", P, 100000, NULL, 0, 0);
        expect_ompi(&o, 9, "gather", P, 100000, NULL, 0, 0);
    }
}

/* papcoll's knomial goes out as Open MPI's knomial at radix 4 only: Open
 * MPI takes the radix from an MCA parameter, not from the rules. */
static void test_ompi_knomial(void **state) {
    (void)state;
    char path[512], err[512];
    path_in_tmp(path, sizeof path, "rules-knomial.txt");
    setenv("PAPC_OMPI_INFO", FAKE_OMPI_INFO, 1);
    tune_export_explain = fake_explain_knomial;
    static om_file o;
    unsetenv("PAPC_KNOMIAL_RADIX");
    assert_int_equal(tune_export_ompi(path, 3, 6, err, sizeof err), 0);
    om_read(path, &o);
    for (long P = 3; P <= 6; P++) {
        expect_ompi(&o, 7, "bcast", P, 0, "basic_linear", 0, 0);
        const om_msg *m = om_lookup(&o, 7, P, 65536);
        assert_non_null(m);
        assert_int_equal(m->alg, 27);     /* the fake ompi_info's knomial */
        assert_int_equal(m->seg, 4096);
    }
    setenv("PAPC_KNOMIAL_RADIX", "8", 1);
    assert_int_equal(tune_export_ompi(path, 3, 6, err, sizeof err), 0);
    om_read(path, &o);
    for (long P = 3; P <= 6; P++)   /* the next best: k_chain, Open MPI chain */
        expect_ompi(&o, 7, "bcast", P, 65536, "chain", 4, 8192);
    unsetenv("PAPC_KNOMIAL_RADIX");
    tune_export_explain = fake_explain;
}

static void test_ompi_merges_equal_sizes(void **state) {
    (void)state;
    char path[512], err[512];
    path_in_tmp(path, sizeof path, "rules-merged.txt");
    setenv("PAPC_OMPI_INFO", FAKE_OMPI_INFO, 1);
    tune_export_explain = fake_explain;
    assert_int_equal(tune_export_ompi(path, 2, 8, err, sizeof err), 0);
    static om_file o;
    om_read(path, &o);
    for (int c = 0; c < o.n; c++) {
        /* reduce and scatter rules do not depend on P: one group, plus
         * the fixed-rules entry above P 8; gather's do (P x block): one
         * per P; the first profiled P is 2, so nothing below it. */
        if (o.coll[c].id == 11 || o.coll[c].id == 15)
            assert_int_equal(o.coll[c].n, 2);
        if (o.coll[c].id == 9) assert_int_equal(o.coll[c].n, 7 + 1);
        assert_int_equal(o.coll[c].com[0].size, 2);
        assert_int_equal(o.coll[c].com[o.coll[c].n - 1].size, 9);
    }
}

static void test_ompi_errors(void **state) {
    (void)state;
    char path[512], err[512];
    path_in_tmp(path, sizeof path, "rules-err.txt");
    tune_export_explain = fake_explain;
    setenv("PAPC_OMPI_INFO", "/nonexistent/ompi_info", 1);
    assert_int_equal(tune_export_ompi(path, 2, 4, err, sizeof err), -1);
    assert_non_null(strstr(err, "not found"));
    assert_null(strchr(err, '\n'));
    assert_int_equal(access(path, F_OK), -1); /* nothing half-written */
    setenv("PAPC_OMPI_INFO", FAKE_OMPI_INFO, 1);
    tune_export_explain = no_prediction;
    assert_int_equal(tune_export_ompi(path, 2, 4, err, sizeof err), -1);
    assert_non_null(strstr(err, "predicts none"));
    tune_export_explain = fake_explain;
    assert_int_equal(tune_export_ompi("/nonexistent/dir/rules", 2, 4, err,
                                      sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/dir/rules"));
    assert_int_equal(tune_export_ompi(path, 1, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "P range"));
}

/* ---- MPICH: MPICH 4.0's checks and walk ---------------------------------- */

static const char *const mpich_colls[] = {
    "allgather", "allgatherv", "allreduce", "alltoall", "alltoallv",
    "alltoallw", "barrier", "bcast", "exscan", "gather", "gatherv",
    "iallgather", "iallgatherv", "iallreduce", "ialltoall", "ialltoallv",
    "ialltoallw", "ibarrier", "ibcast", "iexscan", "igather", "igatherv",
    "ineighbor_allgather", "ineighbor_allgatherv", "ineighbor_alltoall",
    "ineighbor_alltoallv", "ineighbor_alltoallw", "ireduce",
    "ireduce_scatter", "ireduce_scatter_block", "iscan", "iscatter",
    "iscatterv", "neighbor_allgather", "neighbor_allgatherv",
    "neighbor_alltoall", "neighbor_alltoallv", "neighbor_alltoallw",
    "reduce", "reduce_scatter", "reduce_scatter_block", "scan", "scatter",
    "scatterv"};
#define N_MPICH_COLLS (int)(sizeof mpich_colls / sizeof *mpich_colls)

static int prefixed(const char *s, const char *p) {
    return !strncmp(s, p, strlen(p));
}

/* Boolean keys may end a level without "=any" (MPICH's validate_tree). */
static int boolean_key(const char *k) {
    static const char *const b[] = {"comm_type=", "is_op_built_in=",
                                    "is_commutative=", "is_sendbuf_inplace=",
                                    "collective="};
    for (size_t i = 0; i < sizeof b / sizeof *b; i++)
        if (prefixed(k, b[i])) return 1;
    return 0;
}

static int known_key(const char *k) {
    static const char *const exact[] = {
        "comm_type=intra", "comm_type=inter", "is_op_built_in=yes",
        "is_op_built_in=no", "is_commutative=yes", "is_commutative=no",
        "is_sendbuf_inplace=yes", "is_sendbuf_inplace=no", "count<pow2",
        "count=any", "comm_size=any", "avg_msg_size=any",
        "total_msg_size=any"};
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
        if (!strcmp(k, exact[i])) return 1;
    return prefixed(k, "comm_size<=") || prefixed(k, "avg_msg_size<=") ||
           prefixed(k, "total_msg_size<=") || prefixed(k, "collective=");
}

/* Every level is an object; a leaf holds one "algorithm=" key; other keys
 * are known; a level of non-boolean keys ends in "=any"; a boolean level
 * lists both values. */
static void mpich_check_level(json_t *obj, const char *where) {
    assert_true(json_is_object(obj));
    size_t n = json_object_size(obj);
    assert_true(n >= 1);
    const char *key, *first = NULL, *last = NULL;
    json_t *val;
    int booleans = 0;
    json_object_foreach(obj, key, val) {
        if (!first) first = key;
        if (prefixed(key, "algorithm=")) {
            assert_int_equal(n, 1);
            assert_true(prefixed(key, "algorithm=MPIR_"));
            assert_int_equal(json_object_size(val), 0);
            return;
        }
        if (!known_key(key)) fail_msg("%s: unknown key %s", where, key);
        booleans += boolean_key(key);
        mpich_check_level(val, key);
        last = key;
    }
    if (booleans == (int)n) {
        /* a boolean level: the collectives, or both values of one test */
        if (prefixed(first, "collective=")) return;
        assert_int_equal(n, 2);
        size_t stem = strchr(first, '=') - first + 1;
        assert_memory_equal(first, last, stem);
        assert_true((!strcmp(first + stem, "intra") &&
                     !strcmp(last + stem, "inter")) ||
                    (!strcmp(first + stem, "yes") &&
                     !strcmp(last + stem, "no")) ||
                    (!strcmp(first + stem, "no") &&
                     !strcmp(last + stem, "yes")));
    } else {
        assert_int_equal(booleans, 0);
        if (strcmp(last + strlen(last) - 4, "=any"))
            fail_msg("%s: level ends in %s, not in =any", where, last);
    }
}

typedef struct mpich_call {
    int P;
    long avg;      /* count x type size */
    long total;    /* gather, scatter: P x block */
    long count;
    int builtin, commutative, inplace, inter;
} mpich_call;

static int pof2_below(int P) {
    int p = 1;
    while (p * 2 <= P) p *= 2;
    return p;
}

static int key_holds(const char *k, const mpich_call *c) {
    long v;
    if (!strcmp(k, "comm_type=intra")) return !c->inter;
    if (!strcmp(k, "comm_type=inter")) return c->inter;
    if (!strcmp(k, "is_op_built_in=yes")) return c->builtin;
    if (!strcmp(k, "is_op_built_in=no")) return !c->builtin;
    if (!strcmp(k, "is_commutative=yes")) return c->commutative;
    if (!strcmp(k, "is_commutative=no")) return !c->commutative;
    if (!strcmp(k, "is_sendbuf_inplace=yes")) return c->inplace;
    if (!strcmp(k, "is_sendbuf_inplace=no")) return !c->inplace;
    if (!strcmp(k, "count<pow2")) return c->count < pof2_below(c->P);
    if (sscanf(k, "comm_size<=%ld", &v) == 1) return c->P <= v;
    if (sscanf(k, "avg_msg_size<=%ld", &v) == 1) return c->avg <= v;
    if (sscanf(k, "total_msg_size<=%ld", &v) == 1) return c->total <= v;
    return !strcmp(k + strlen(k) - 4, "=any");
}

static const char *mpich_walk(json_t *root, const char *coll,
                              const mpich_call *c) {
    char ck[64];
    snprintf(ck, sizeof ck, "collective=%s", coll);
    json_t *node = json_object_get(root, ck);
    assert_non_null(node);
    for (;;) {
        const char *key;
        json_t *val, *next = NULL;
        json_object_foreach(node, key, val) {
            if (prefixed(key, "algorithm=")) return key + strlen("algorithm=");
            if (key_holds(key, c)) {
                next = val;
                break;
            }
        }
        assert_non_null(next);
        node = next;
    }
}

static void expect_mpich(json_t *root, const char *coll, mpich_call c,
                         const char *alg) {
    const char *got = mpich_walk(root, coll, &c);
    if (strcmp(got, alg))
        fail_msg("%s P %d avg %ld: got %s, want %s", coll, c.P, c.avg, got,
                 alg);
}

static void test_mpich_json(void **state) {
    (void)state;
    char path[512], err[512];
    path_in_tmp(path, sizeof path, "csel.json");
    tune_export_explain = fake_explain;
    assert_int_equal(tune_export_mpich(path, 3, 6, err, sizeof err), 0);
    json_error_t jerr;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) fail_msg("%s: line %d: %s", path, jerr.line, jerr.text);
    mpich_check_level(root, "top");
    assert_int_equal(json_object_size(root), N_MPICH_COLLS);
    for (int i = 0; i < N_MPICH_COLLS; i++) {
        char k[64];
        snprintf(k, sizeof k, "collective=%s", mpich_colls[i]);
        if (!json_object_get(root, k)) fail_msg("%s missing", k);
    }
    for (int P = 2; P <= 9; P++) {
        /* nearest profiled P outside 3..6 */
        int Pp = P < 3 ? 3 : P > 6 ? 6 : P;
        size_t r = first_above(399.0, Pp / 4.0 - 0.125);
        long big = 1L << 20, cnt = big / 8;
        mpich_call base = {P, 0, 0, 0, 1, 1, 0, 0};
        mpich_call c = base;
        c.avg = (long)r - 1, c.count = c.avg / 8 + 64;
        expect_mpich(root, "allreduce", c,
                     "MPIR_Allreduce_intra_recursive_doubling");
        c.avg = (long)r, c.count = c.avg / 8 + 64;
        expect_mpich(root, "allreduce", c,
                     "MPIR_Allreduce_intra_reduce_scatter_allgather");
        c.avg = big, c.count = cnt, c.builtin = 0;
        expect_mpich(root, "allreduce", c,
                     "MPIR_Allreduce_intra_recursive_doubling");
        c = base, c.avg = big, c.count = 1;
        expect_mpich(root, "allreduce", c,
                     "MPIR_Allreduce_intra_recursive_doubling");
        c = base, c.avg = 665, c.count = 665;
        expect_mpich(root, "reduce", c, "MPIR_Reduce_intra_binomial");
        c.avg = 666;
        expect_mpich(root, "reduce", c,
                     "MPIR_Reduce_intra_reduce_scatter_gather");
        c = base, c.avg = big, c.total = big * P;
        expect_mpich(root, "bcast", c, "MPIR_Bcast_intra_binomial");
        expect_mpich(root, "gather", c, "MPIR_Gather_intra_binomial");
        expect_mpich(root, "scatter", c, "MPIR_Scatter_intra_binomial");
        c.inter = 1;
        expect_mpich(root, "bcast", c,
                     "MPIR_Bcast_inter_remote_send_local_bcast");
        expect_mpich(root, "allreduce", c,
                     "MPIR_Allreduce_inter_reduce_exchange_bcast");
        c = base, c.inplace = 1;
        expect_mpich(root, "alltoall", c,
                     "MPIR_Alltoall_intra_pairwise_sendrecv_replace");
        c = base, c.commutative = 0;
        expect_mpich(root, "reduce_scatter", c,
                     "MPIR_Reduce_scatter_intra_recursive_doubling");
    }
    json_decref(root);
}

/* A collective without predictions is left to the library, not failed. */
static void test_collective_without_models(void **state) {
    (void)state;
    char path[512], err[512];
    path_in_tmp(path, sizeof path, "rules-nobcast.txt");
    setenv("PAPC_OMPI_INFO", FAKE_OMPI_INFO, 1);
    tune_export_explain = fake_no_bcast;
    assert_int_equal(tune_export_ompi(path, 2, 4, err, sizeof err), 0);
    static om_file o;
    om_read(path, &o);
    assert_int_equal(o.n, 4);
    assert_null(om_lookup(&o, 7, 4, 1000));
    expect_ompi(&o, 11, "reduce", 4, 666, "rabenseifner", 0, 0);
    path_in_tmp(path, sizeof path, "csel-nobcast.json");
    assert_int_equal(tune_export_mpich(path, 2, 4, err, sizeof err), 0);
    json_error_t jerr;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    assert_non_null(root);
    mpich_check_level(root, "top");
    mpich_call c = {4, 1 << 20, 4 << 20, 1 << 17, 1, 1, 0, 0};
    expect_mpich(root, "bcast", c, "MPIR_Bcast_intra_binomial");
    json_decref(root);
}

static void test_grid_is_cheap(void **state) {
    (void)state;
    char path[512], err[512];
    path_in_tmp(path, sizeof path, "csel-cost.json");
    tune_export_explain = fake_explain;
    fake_calls = 0;
    assert_int_equal(tune_export_mpich(path, 2, 16, err, sizeof err), 0);
    /* 5 collectives x 15 P x (~108 grid points + bisections) */
    assert_true(fake_calls < 5 * 15 * 250);
}

static int make_tmpdir(void **state) {
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/papc-export-test-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

/* PAPC_EXPORT_TEST_KEEP=1 keeps the files written, to look at. */
static int remove_tmpdir(void **state) {
    (void)state;
    if (getenv("PAPC_EXPORT_TEST_KEEP")) {
        printf("files kept in %s\n", tmpdir);
        return 0;
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ompi_rules),
        cmocka_unit_test(test_ompi_knomial),
        cmocka_unit_test(test_ompi_merges_equal_sizes),
        cmocka_unit_test(test_ompi_errors),
        cmocka_unit_test(test_mpich_json),
        cmocka_unit_test(test_collective_without_models),
        cmocka_unit_test(test_grid_is_cheap),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
