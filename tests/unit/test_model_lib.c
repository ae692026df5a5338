/*
 * test_model_lib.c — the pure library under every cost model (src/model/):
 *   - hockney.c: the term algebra, segments, logarithms, γ(p) from its
 *     table and beyond it, the predicted time;
 *   - fit.c: papc_fit_huber recovers α, β from exact synthetic times to
 *     1e-9, from times with 20 % of the points 10× too slow to 5 % (while
 *     ordinary least squares, computed here, is far off), refits a negative
 *     estimate with that parameter at 0, refuses degenerate input;
 *   - profile.c: write → read round trip bit for bit, the hash, every
 *     refusal of a broken profile (one line naming the path and the
 *     problem, a zeroed profile), and a valid profile cut at every byte
 *     offset refused without a crash.
 */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <jansson.h>

#include "model/model.h"

/* ---- hockney.c ------------------------------------------------------- */

static void assert_terms(papc_terms t, double a, double b, double g, double c) {
    assert_true(t.alpha == a && t.beta == b && t.gamma_op == g && t.copy == c);
}

static void test_terms(void **state) {
    (void)state;
    assert_terms(papc_terms_zero(), 0, 0, 0, 0);
    assert_terms(papc_msg(1024), 1, 1024, 0, 0);
    papc_terms a = {1, 2, 3, 4, 5, 6}, b = {10, 20, 30, 40, 50, 60};
    assert_terms(papc_terms_add(a, b), 11, 22, 33, 44);
    assert_true(papc_terms_add(a, b).msgs == 55 &&
                papc_terms_add(a, b).volume == 66);
    assert_true(papc_terms_scale(a, 2).volume == 12);
    papc_terms tr = papc_terms_traffic(a, 7, 1000);
    assert_true(tr.msgs == 12 && tr.volume == 1006 && tr.alpha == 1);
    assert_terms(papc_terms_scale(a, 2.5), 2.5, 5, 7.5, 10);
    assert_terms(papc_terms_axpy(a, 3, b), 31, 62, 93, 124);
    /* 3 latencies, 1 MB on the wire, 1 MB reduced, 4 KB copied */
    papc_terms t = {3, 1 << 20, 1 << 20, 4096, 0, 0};
    papc_params ab = {2e-6, 1e-9, 0, 0};
    double want = 3 * 2e-6 + (1 << 20) * 1e-9 + (1 << 20) * 5e-10 + 4096 * 1e-10;
    assert_true(fabs(papc_model_time(t, ab, 5e-10, 1e-10) - want) <=
                1e-15 * want);
}

static void test_segments_and_logs(void **state) {
    (void)state;
    assert_true(papc_model_segments(0, 0) == 1);
    assert_true(papc_model_segments(1e6, 0) == 1);
    assert_true(papc_model_segments(0, 8192) == 1);
    assert_true(papc_model_segments(8192, 8192) == 1);
    assert_true(papc_model_segments(8193, 8192) == 2);
    assert_true(papc_model_segments(1 << 20, 65536) == 16);
    static const int p[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 1023, 1024, 1025};
    static const int fl[] = {0, 0, 1, 1, 2, 2, 2, 3, 3, 9, 10, 10};
    static const int cl[] = {0, 0, 1, 2, 2, 3, 3, 3, 4, 10, 10, 11};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) {
        assert_int_equal(papc_model_floor_log2(p[i]), fl[i]);
        assert_int_equal(papc_model_ceil_log2(p[i]), cl[i]);
    }
}

static void test_gamma_of(void **state) {
    (void)state;
    assert_true(papc_gamma_of(NULL, 40) == 1.0);
    papc_gamma g = {0};
    for (int p = 0; p <= 100; p++) assert_true(papc_gamma_of(&g, p) == 1.0);

    g.n = 5;
    g.g[2] = 1.0;
    g.g[3] = 1.1;
    g.g[4] = 1.25;
    g.g[5] = 1.4;
    assert_true(papc_gamma_of(&g, 1) == 1.0);
    assert_true(papc_gamma_of(&g, 2) == 1.0);
    assert_true(papc_gamma_of(&g, 3) == 1.1);
    assert_true(papc_gamma_of(&g, 4) == 1.25);
    assert_true(papc_gamma_of(&g, 5) == 1.4);
    /* beyond the table: the line through the last two points */
    assert_true(fabs(papc_gamma_of(&g, 6) - 1.55) < 1e-12);
    assert_true(fabs(papc_gamma_of(&g, 8) - 1.85) < 1e-12);
    assert_true(fabs(papc_gamma_of(&g, 105) - (1.4 + 0.15 * 100)) < 1e-9);
    /* a falling last step is noise: flat, never below the table */
    g.g[4] = 1.5;
    assert_true(papc_gamma_of(&g, 9) == 1.4);
    /* two points measured are not enough for a line: γ ≡ 1 */
    g.n = 2;
    assert_true(papc_gamma_of(&g, 10) == 1.0);

    assert_string_equal(papc_opclass_name(PAPC_OPCLASS_FLOAT), "float");
    assert_string_equal(papc_opclass_name(PAPC_OPCLASS_INT), "int");
    assert_string_equal(papc_opclass_name(PAPC_OPCLASS_OTHER), "other");
    assert_string_equal(papc_opclass_name(PAPC_OPCLASS_COUNT), "?");
}

/* ---- fit.c ----------------------------------------------------------- */

#define ALPHA 2.5e-6
#define BETA 8.3e-10
#define NP 5
#define NM 10
#define NPTS (NP * NM)

/* A binomial-tree-like reduce over P in 4..64 and m in 1 KB..4 MB
 * (logarithmic steps, as the paper's experiments): latencies log2 P plus
 * the segments of a pipeline, bytes m·log2 P, m reduced, m/4 copied. */
static void design(papc_terms *x) {
    static const int P[NP] = {4, 8, 16, 32, 64};
    int i = 0;
    for (int a = 0; a < NP; a++)
        for (int b = 0; b < NM; b++, i++) {
            double m = 1024.0 * pow(4096.0, b / (NM - 1.0));
            double k = papc_model_ceil_log2(P[a]);
            x[i] = (papc_terms){k + papc_model_segments(m, 65536) - 1, m * k,
                                m, m / 4, 0, 0};
        }
}

static double true_time(papc_terms x, double gop, double cp) {
    return papc_model_time(x, (papc_params){ALPHA, BETA, 0, 0}, gop, cp);
}

/* Deterministic ±1 % noise: a small LCG, the same on every run. */
static double noise(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return ((*s >> 8) % 20001) / 1e6 - 0.01;
}

static double relerr(double got, double want) {
    return fabs(got - want) / fabs(want);
}

static void test_fit_exact(void **state) {
    (void)state;
    papc_terms x[NPTS];
    double t[NPTS];
    design(x);
    const double gop[2] = {0, 3e-10}, cp[2] = {0, 1.5e-10};
    for (int v = 0; v < 2; v++) {
        for (int i = 0; i < NPTS; i++) t[i] = true_time(x[i], gop[v], cp[v]);
        papc_params ab = {-1, -1, 0, 0};
        double sigma = -1, rel = -1;
        assert_int_equal(
            papc_fit_huber(NPTS, x, t, gop[v], cp[v], &ab, &sigma, &rel), 0);
        assert_true(relerr(ab.alpha, ALPHA) < 1e-9);
        assert_true(relerr(ab.beta, BETA) < 1e-9);
        assert_true(sigma >= 0 && sigma < 1e-15);
        assert_true(rel >= 0 && rel < 1e-12);
    }
    /* the smallest systems: n = 2 (exactly determined) and n = 3 */
    for (int n = 2; n <= 3; n++) {
        papc_terms xs[3] = {x[0], x[NPTS / 2 + 3], x[NPTS - 1]};
        double ts[3];
        for (int i = 0; i < n; i++) ts[i] = true_time(xs[i], 0, 0);
        papc_params ab;
        assert_int_equal(papc_fit_huber(n, xs, ts, 0, 0, &ab, NULL, NULL), 0);
        assert_true(relerr(ab.alpha, ALPHA) < 1e-9);
        assert_true(relerr(ab.beta, BETA) < 1e-9);
    }
}

/* Unweighted least squares of t on the two columns (normal equations on
 * normalised columns), what the paper's plain regression would give. */
static papc_params ols(int n, const papc_terms *x, const double *t) {
    double sa = 0, sb = 0;
    for (int i = 0; i < n; i++) {
        sa = fmax(sa, x[i].alpha);
        sb = fmax(sb, x[i].beta);
    }
    double aa = 0, ab = 0, bb = 0, ay = 0, by = 0;
    for (int i = 0; i < n; i++) {
        double a = x[i].alpha / sa, b = x[i].beta / sb;
        aa += a * a;
        ab += a * b;
        bb += b * b;
        ay += a * t[i];
        by += b * t[i];
    }
    double det = aa * bb - ab * ab;
    return (papc_params){(ay * bb - by * ab) / det / sa,
                         (aa * by - ab * ay) / det / sb, 0, 0};
}

/* 20 % of the points, spread over all P and m, `factor` times off, the
 * rest with ±1 % noise. */
static void corrupt(const papc_terms *x, double *t, double factor,
                    unsigned seed) {
    int corrupted = 0;
    for (int i = 0; i < NPTS; i++) {
        t[i] = true_time(x[i], 0, 0) * (1 + noise(&seed));
        if (i % 5 == (i / NM) % 5) {
            t[i] *= factor;
            corrupted++;
        }
    }
    assert_int_equal(corrupted, NPTS / 5);
}

static void test_fit_outliers(void **state) {
    (void)state;
    papc_terms x[NPTS];
    double t[NPTS];
    design(x);
    /* 10× too slow (a descheduled run) and 10× too fast (a broken timer) */
    const double factor[2] = {10, 0.1};
    for (int f = 0; f < 2; f++) {
        corrupt(x, t, factor[f], 12);
        papc_params ab;
        double sigma, rel;
        assert_int_equal(
            papc_fit_huber(NPTS, x, t, 0, 0, &ab, &sigma, &rel), 0);
        assert_true(relerr(ab.alpha, ALPHA) < 0.05);
        assert_true(relerr(ab.beta, BETA) < 0.05);
        /* the typical point is fitted to its noise, not to the outliers */
        assert_true(rel < 0.02);
        assert_true(sigma > 0);

        papc_params o = ols(NPTS, x, t);
        assert_true(relerr(o.alpha, ALPHA) > 0.5 ||
                    relerr(o.beta, BETA) > 0.5);
    }
    /* and the same OLS is right on clean data: it is the outliers */
    for (int i = 0; i < NPTS; i++) t[i] = true_time(x[i], 0, 0);
    papc_params o = ols(NPTS, x, t);
    assert_true(relerr(o.alpha, ALPHA) < 1e-6 && relerr(o.beta, BETA) < 1e-6);
}

/* Data that want a negative α (β): refitted with it at 0, the other
 * parameter still found. */
static void test_fit_negative(void **state) {
    (void)state;
    papc_terms x[NPTS];
    double t[NPTS];
    design(x);
    papc_params ab;
    /* t = β·B − a·A: a tiny negative latency term */
    for (int i = 0; i < NPTS; i++) t[i] = BETA * x[i].beta - 1e-8 * x[i].alpha;
    assert_int_equal(papc_fit_huber(NPTS, x, t, 0, 0, &ab, NULL, NULL), 0);
    assert_true(ab.alpha == 0.0);
    assert_true(relerr(ab.beta, BETA) < 0.05);

    /* t = α·A − b·B: a negative bandwidth term, small against α */
    for (int i = 0; i < NPTS; i++) {
        x[i].beta = 10.0 * (i % 7 + 1);
        t[i] = ALPHA * x[i].alpha - 1e-10 * x[i].beta;
    }
    assert_int_equal(papc_fit_huber(NPTS, x, t, 0, 0, &ab, NULL, NULL), 0);
    assert_true(ab.beta == 0.0);
    assert_true(relerr(ab.alpha, ALPHA) < 0.05);

    /* the shared terms exceed every time: no non-negative α, β explains it */
    design(x);
    for (int i = 0; i < NPTS; i++) t[i] = true_time(x[i], 0, 0);
    ab = (papc_params){1, 1, 0, 0};
    assert_int_equal(papc_fit_huber(NPTS, x, t, 1e-6, 0, &ab, NULL, NULL), -1);
    assert_true(ab.alpha == 0 && ab.beta == 0);
}

static void expect_refused(int n, const papc_terms *x, const double *t,
                           double gop, double cp) {
    papc_params ab = {1, 1, 0, 0};
    double sigma = 7, rel = 7;
    assert_int_equal(papc_fit_huber(n, x, t, gop, cp, &ab, &sigma, &rel), -1);
    assert_true(ab.alpha == 0 && ab.beta == 0);
}

static void test_fit_degenerate(void **state) {
    (void)state;
    papc_terms x[NPTS], y[NPTS];
    double t[NPTS], u[NPTS];
    design(x);
    for (int i = 0; i < NPTS; i++) t[i] = true_time(x[i], 0, 0);

    expect_refused(0, x, t, 0, 0);
    expect_refused(1, x, t, 0, 0);
    expect_refused(-3, x, t, 0, 0);
    expect_refused(NPTS, NULL, t, 0, 0);
    expect_refused(NPTS, x, NULL, 0, 0);
    assert_int_equal(papc_fit_huber(NPTS, x, t, 0, 0, NULL, NULL, NULL), -1);
    expect_refused(NPTS, x, t, NAN, 0);
    expect_refused(NPTS, x, t, 0, INFINITY);

    /* one bad value anywhere */
    double *fields[4];
    for (int f = 0; f < 5; f++)
        for (int bad = 0; bad < 3; bad++) {
            memcpy(y, x, sizeof x);
            memcpy(u, t, sizeof t);
            const double v[3] = {NAN, INFINITY, -INFINITY};
            fields[0] = &y[17].alpha;
            fields[1] = &y[17].beta;
            fields[2] = &y[17].gamma_op;
            fields[3] = &y[17].copy;
            if (f < 4) *fields[f] = v[bad];
            else u[17] = v[bad];
            expect_refused(NPTS, y, u, 0, 0);
        }
    /* a time that is not positive */
    memcpy(u, t, sizeof t);
    u[3] = 0;
    expect_refused(NPTS, x, u, 0, 0);
    u[3] = -1e-6;
    expect_refused(NPTS, x, u, 0, 0);

    /* a column all zero, or the two proportional: α, β not separable */
    memcpy(y, x, sizeof x);
    for (int i = 0; i < NPTS; i++) y[i].alpha = 0;
    expect_refused(NPTS, y, t, 0, 0);
    memcpy(y, x, sizeof x);
    for (int i = 0; i < NPTS; i++) y[i].beta = 0;
    expect_refused(NPTS, y, t, 0, 0);
    memcpy(y, x, sizeof x);
    for (int i = 0; i < NPTS; i++) y[i].beta = 4096 * y[i].alpha;
    expect_refused(NPTS, y, t, 0, 0);
    /* one point repeated: the same row twice is proportional too */
    papc_terms twice[2] = {x[5], x[5]};
    double tt[2] = {t[5], t[5]};
    expect_refused(2, twice, tt, 0, 0);
}

/* ---- profile.c ------------------------------------------------------- */

static char dir[64];

static int make_dir(void **state) {
    (void)state;
    strcpy(dir, "/tmp/papc_model_lib_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state) {
    (void)state;
    DIR *d = opendir(dir);
    if (!d) return -1;
    struct dirent *e;
    char f[512];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(f, sizeof f, "%s/%s", dir, e->d_name);
            unlink(f);
        }
    closedir(d);
    return rmdir(dir);
}

static const char *file(const char *name) {
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static void add_alg(papc_profile *p, const char *coll, const char *name,
                    double a, double b) {
    papc_profile_alg *g = &p->algs[p->nalgs++];
    snprintf(g->collective, sizeof g->collective, "%s", coll);
    snprintf(g->name, sizeof g->name, "%s", name);
    g->ab = (papc_params){a, b, 0, 0};
    g->sigma = a / 7;
    g->rel = 1.0 / 3;
    g->points = 40 + p->nalgs;
}

/* Doubles chosen to need all 17 digits (and one subnormal). */
static void make_profile(papc_profile *p) {
    memset(p, 0, sizeof *p);
    p->version = PAPC_PROFILE_VERSION;
    strcpy(p->papcoll_version, "0.1.0");
    strcpy(p->machine, "node17, Intel(R) Xeon(R) \"Gold\" 6130, 32 cores");
    strcpy(p->mpi_library, "Open MPI v4.1.4, package: Debian OpenMPI");
    strcpy(p->date, "2024-05-01T12:34:56Z");
    p->pmin = 2;
    p->pmax = 64;
    p->eager = 65536;
    p->p2p = (papc_params){1.0 / 3 * 1e-5, nextafter(1e-10, 1), 0, 0};
    p->gamma.n = 6;
    for (int q = 2; q <= 6; q++) p->gamma.g[q] = 1 + (q - 2) * 0.1100000001;
    p->gamma_op[PAPC_OPCLASS_FLOAT] = 2.0 / 3 * 1e-9;
    p->gamma_op[PAPC_OPCLASS_INT] = 4.9406564584124654e-324;
    p->gamma_op[PAPC_OPCLASS_OTHER] = 0;
    p->copy = 0.1 * 1e-9;
    add_alg(p, "bcast", "binomial", 2.5e-6, 8.3e-10);
    add_alg(p, "bcast", "split_binary", M_PI * 1e-6, M_E * 1e-10);
    add_alg(p, "gather", "linear_sync", 1e-5, 0);
    add_alg(p, "allreduce", "pre_reduced_ring", 0, 1e-9 / 7);
    /* fits of one segment size alone, the whole message (0) one of them */
    add_alg(p, "bcast", "binomial", 3.5e-6, 9.1e-10);
    p->algs[4].per_seg = 1, p->algs[4].segsize = 8192;
    add_alg(p, "bcast", "binomial", 1.5e-6, 7.7e-10);
    p->algs[5].per_seg = 1, p->algs[5].segsize = 0;
}

static void assert_profiles_equal(const papc_profile *a,
                                  const papc_profile *b) {
    assert_int_equal(a->version, b->version);
    assert_string_equal(a->papcoll_version, b->papcoll_version);
    assert_string_equal(a->machine, b->machine);
    assert_string_equal(a->mpi_library, b->mpi_library);
    assert_string_equal(a->date, b->date);
    assert_int_equal(a->pmin, b->pmin);
    assert_int_equal(a->pmax, b->pmax);
    assert_true(a->eager == b->eager);
    assert_true(a->p2p.alpha == b->p2p.alpha && a->p2p.beta == b->p2p.beta);
    assert_int_equal(a->gamma.n, b->gamma.n);
    for (int q = 2; q <= a->gamma.n; q++)
        assert_true(a->gamma.g[q] == b->gamma.g[q]);
    for (int k = 0; k < PAPC_OPCLASS_COUNT; k++)
        assert_true(a->gamma_op[k] == b->gamma_op[k]);
    assert_true(a->copy == b->copy);
    assert_int_equal(a->nalgs, b->nalgs);
    for (int i = 0; i < a->nalgs; i++) {
        assert_string_equal(a->algs[i].collective, b->algs[i].collective);
        assert_string_equal(a->algs[i].name, b->algs[i].name);
        assert_true(a->algs[i].ab.alpha == b->algs[i].ab.alpha);
        assert_true(a->algs[i].ab.beta == b->algs[i].ab.beta);
        assert_true(a->algs[i].sigma == b->algs[i].sigma);
        assert_true(a->algs[i].rel == b->algs[i].rel);
        assert_int_equal(a->algs[i].points, b->algs[i].points);
        assert_int_equal(a->algs[i].per_seg, b->algs[i].per_seg);
        assert_true(a->algs[i].segsize == b->algs[i].segsize);
    }
    /* and nothing else differs (both zero-filled outside the fields) */
    assert_memory_equal(a, b, sizeof *a);
}

static int known_alg(const char *coll, const char *name) {
    static const char *const rows[][2] = {
        {"bcast", "binomial"}, {"bcast", "split_binary"},
        {"gather", "linear_sync"}, {"allreduce", "pre_reduced_ring"}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (!strcmp(coll, rows[i][0]) && !strcmp(name, rows[i][1])) return 1;
    return 0;
}

/* Temporary files papc_profile_write left behind. */
static int count_tmp_files(void) {
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".tmp.")) n++;
    closedir(d);
    return n;
}

static void test_profile_round_trip(void **state) {
    (void)state;
    papc_profile *p = malloc(sizeof *p), *q = malloc(sizeof *q);
    char err[512] = "";
    make_profile(p);
    const char *path = file("rt.json");
    assert_int_equal(papc_profile_write(path, p, err, sizeof err), 0);
    assert_int_equal(count_tmp_files(), 0);
    memset(q, 0xab, sizeof *q);
    assert_int_equal(papc_profile_read(path, known_alg, q, err, sizeof err),
                     0);
    assert_profiles_equal(p, q);
    assert_int_equal(papc_profile_read(path, NULL, q, err, sizeof err), 0);
    assert_profiles_equal(p, q);
    assert_true(papc_profile_hash(p) == papc_profile_hash(q));

    /* rewriting replaces the file; empty γ and no algorithms read back */
    p->gamma.n = 0;
    memset(p->gamma.g, 0, sizeof p->gamma.g);
    p->nalgs = 0;
    memset(p->algs, 0, sizeof p->algs);
    assert_int_equal(papc_profile_write(path, p, err, sizeof err), 0);
    assert_int_equal(papc_profile_read(path, NULL, q, err, sizeof err), 0);
    assert_profiles_equal(p, q);
    assert_int_equal(count_tmp_files(), 0);
    unlink(path);
    free(p);
    free(q);
}

static void test_profile_find(void **state) {
    (void)state;
    papc_profile *p = malloc(sizeof *p);
    make_profile(p);
    const papc_profile_alg *a = papc_profile_find(p, "bcast", "split_binary");
    assert_non_null(a);
    assert_ptr_equal(a, &p->algs[1]);
    assert_null(papc_profile_find(p, "bcast", "split"));
    assert_null(papc_profile_find(p, "gather", "binomial"));
    assert_null(papc_profile_find(p, "bcast", NULL));
    assert_null(papc_profile_find(NULL, "bcast", "binomial"));
    free(p);
}

static void test_profile_hash(void **state) {
    (void)state;
    papc_profile *p = malloc(sizeof *p), *q = malloc(sizeof *q);
    make_profile(p);
    uint64_t h = papc_profile_hash(p);
    assert_true(h != 0);
    assert_true(papc_profile_hash(NULL) == 0);
    memset(q, 0, sizeof *q);
    assert_true(papc_profile_hash(q) != 0);

    /* descriptive fields and fit statistics: the same hash */
    make_profile(q);
    assert_true(papc_profile_hash(q) == h);
    strcpy(q->machine, "another host");
    strcpy(q->date, "2030-01-01T00:00:00Z");
    strcpy(q->mpi_library, "MPICH 4.1");
    strcpy(q->papcoll_version, "9.9.9");
    q->algs[0].sigma = 1;
    q->algs[0].rel = 0.5;
    q->algs[0].points = 3;
    assert_true(papc_profile_hash(q) == h);

    /* every field the selector reads: a different hash */
    for (int k = 0;; k++) {
        make_profile(q);
        switch (k) {
        case 0: q->version = 2; break;
        case 1: q->pmin = 3; break;
        case 2: q->pmax = 128; break;
        case 3: q->eager = 65537; break;
        case 4: q->p2p.alpha = nextafter(q->p2p.alpha, 1); break;
        case 5: q->p2p.beta *= 2; break;
        case 6: q->gamma.g[4] += 1e-12; break;
        case 7: q->gamma.n = 5; break;
        case 8: q->gamma_op[PAPC_OPCLASS_FLOAT] *= 1.5; break;
        case 9: q->gamma_op[PAPC_OPCLASS_INT] = 0; break;
        case 10: q->gamma_op[PAPC_OPCLASS_OTHER] = 1e-9; break;
        case 11: q->copy = 0; break;
        case 12: strcpy(q->algs[2].collective, "scatter"); break;
        case 13: strcpy(q->algs[1].name, "binary"); break;
        case 14: q->algs[3].ab.alpha = 1e-6; break;
        case 15: q->algs[0].ab.beta = 8.4e-10; break;
        case 16: q->nalgs = 3; break;
        case 17: { /* the order of the file */
            papc_profile_alg t = q->algs[0];
            q->algs[0] = q->algs[1];
            q->algs[1] = t;
            break;
        }
        case 19: q->algs[4].segsize = 64512; break;
        case 20: q->algs[5].per_seg = 0, q->algs[5].p = 8; break;
        case 18: /* the bytes move between the strings */
            strcpy(q->algs[0].collective, "bcastb");
            strcpy(q->algs[0].name, "inomial");
            break;
        default: goto done;
        }
        if (papc_profile_hash(q) == h) fail_msg("change %d keeps the hash", k);
    }
done:
    free(p);
    free(q);
}

/* ---- refusals ---- */

static void write_text(const char *path, const char *text, size_t len) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
}

/* Reads path, which must be refused: -1, a zeroed profile and one line
 * "PATH: ..." containing want (when not NULL). */
static void expect_refusal(const char *path, papc_alg_exists_fn exists,
                           const char *want) {
    static papc_profile out, zero;
    char err[512];
    memset(&out, 0x5a, sizeof out);
    memset(err, 'x', sizeof err);
    int rc = papc_profile_read(path, exists, &out, err, sizeof err);
    if (rc != -1) fail_msg("%s: accepted (want \"%s\")", path, want);
    assert_memory_equal(&out, &zero, sizeof out);
    size_t plen = strlen(path);
    if (strncmp(err, path, plen) != 0 || strncmp(err + plen, ": ", 2) != 0)
        fail_msg("error does not start with the path: \"%s\"", err);
    assert_null(strchr(err, '\n'));
    if (want && !strstr(err, want))
        fail_msg("error \"%s\" does not say \"%s\"", err, want);
}

/* A valid profile as a jansson document, to break in one place. */
static json_t *valid_doc(void) {
    static papc_profile p;
    char err[512];
    make_profile(&p);
    const char *path = file("valid.json");
    assert_int_equal(papc_profile_write(path, &p, err, sizeof err), 0);
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    assert_non_null(doc);
    return doc;
}

static void expect_doc_refused(json_t *doc, papc_alg_exists_fn exists,
                               const char *want) {
    const char *path = file("broken.json");
    assert_int_equal(json_dump_file(doc, path, JSON_REAL_PRECISION(17)), 0);
    json_decref(doc);
    expect_refusal(path, exists, want);
}

static json_t *alg(json_t *doc, int i) {
    return json_array_get(json_object_get(doc, "algorithms"), i);
}

static void test_profile_refuses_text(void **state) {
    (void)state;
    char want[512];
    const char *path = file("nothing-here.json");
    expect_refusal(path, NULL, "cannot open: No such file or directory");
    snprintf(want, sizeof want, "%s: cannot open: No such file or directory",
             path);
    {
        papc_profile *out = malloc(sizeof *out);
        char err[512];
        assert_int_equal(papc_profile_read(path, NULL, out, err, sizeof err),
                         -1);
        assert_string_equal(err, want);
        free(out);
    }
    expect_refusal(dir, NULL, "cannot open: Is a directory");

    path = file("text.json");
    write_text(path, "", 0);
    expect_refusal(path, NULL, "line ");
    write_text(path, "{\"papcoll_profile\": 1,", 22);
    expect_refusal(path, NULL, "end of file");
    write_text(path, "{\"papcoll_profile\": 1,,}", 24);
    expect_refusal(path, NULL, "line 1, column");
    write_text(path, "\n\n  [1, 2", 9);
    expect_refusal(path, NULL, "line 3");
    write_text(path, "[1, 2]", 6);
    expect_refusal(path, NULL, "not a papcoll profile");
    write_text(path, "{\"papcoll_profile\": 1e999}", 26);
    expect_refusal(path, NULL, "overflow");
    write_text(path, "{\"papcoll_profile\": 1, \"gamma\": {\"2\": 1, \"2\": 1}}",
               49);
    expect_refusal(path, NULL, "duplicate object key");
    /* binary garbage */
    write_text(path, "\x7f" "ELF\x02\x01\x01\0\0\0", 10);
    expect_refusal(path, NULL, "line 1");
    /* a profile of an unknown version */
    const char *v7 = "{\"papcoll_profile\": 7, \"machine\": \"x\"}";
    write_text(path, v7, strlen(v7));
    expect_refusal(path, NULL, NULL);
    {
        papc_profile *out = malloc(sizeof *out);
        char err[512];
        assert_int_equal(papc_profile_read(path, NULL, out, err, sizeof err),
                         -1);
        snprintf(want, sizeof want,
                 "%s: profile version 7, this papcoll reads version 1", path);
        assert_string_equal(err, want);
        free(out);
    }
}

static void test_profile_refuses_fields(void **state) {
    (void)state;
    json_t *d;

    d = valid_doc();
    json_object_del(d, "papcoll_profile");
    expect_doc_refused(d, NULL, "missing field papcoll_profile");
    d = valid_doc();
    json_object_set_new(d, "papcoll_profile", json_string("1"));
    expect_doc_refused(d, NULL, "papcoll_profile must be an integer");
    d = valid_doc();
    json_object_set_new(d, "papcoll_profile", json_integer(0));
    expect_doc_refused(d, NULL, "profile version 0, this papcoll reads");

    /* every top-level field is required */
    static const char *const top[] = {
        "papcoll_version", "machine", "mpi_library", "date", "p_range",
        "eager_limit", "p2p", "gamma", "gamma_op", "copy", "algorithms"};
    char want[128];
    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++) {
        d = valid_doc();
        json_object_del(d, top[i]);
        snprintf(want, sizeof want, "missing field %s", top[i]);
        expect_doc_refused(d, NULL, want);
        /* and has its type */
        d = valid_doc();
        json_object_set_new(d, top[i], json_true());
        snprintf(want, sizeof want, "field %s must be", top[i]);
        expect_doc_refused(d, NULL, want);
    }
    d = valid_doc();
    json_object_del(json_object_get(d, "p2p"), "beta");
    expect_doc_refused(d, NULL, "missing field p2p.beta");
    d = valid_doc();
    json_object_del(json_object_get(d, "gamma_op"), "int");
    expect_doc_refused(d, NULL, "missing field gamma_op.int");
    d = valid_doc();
    json_object_set_new(json_object_get(d, "p2p"), "alpha", json_string("1"));
    expect_doc_refused(d, NULL, "p2p.alpha must be a number, not a string");
    d = valid_doc();
    json_object_set_new(d, "eager_limit", json_null());
    expect_doc_refused(d, NULL, "eager_limit must be a number, not null");

    /* algorithm entries */
    static const char *const afield[] = {"collective", "name", "alpha",
                                         "beta", "sigma", "rel", "points"};
    for (size_t i = 0; i < sizeof afield / sizeof afield[0]; i++) {
        d = valid_doc();
        json_object_del(alg(d, 2), afield[i]);
        snprintf(want, sizeof want, "missing field algorithms[2].%s",
                 afield[i]);
        expect_doc_refused(d, NULL, want);
        d = valid_doc();
        json_object_set_new(alg(d, 1), afield[i], json_array());
        snprintf(want, sizeof want, "field algorithms[1].%s must be",
                 afield[i]);
        expect_doc_refused(d, NULL, want);
    }
    d = valid_doc();
    json_object_set_new(alg(d, 0), "points", json_real(40.5));
    expect_doc_refused(d, NULL, "algorithms[0].points must be an integer");
    d = valid_doc();
    json_object_set_new(alg(d, 0), "points", json_integer(1LL << 40));
    expect_doc_refused(d, NULL, "algorithms[0].points is too large");
    d = valid_doc();
    json_array_append_new(json_object_get(d, "algorithms"), json_integer(3));
    expect_doc_refused(d, NULL, "algorithms[6] must be an object");
    d = valid_doc();
    json_object_set_new(alg(d, 0), "name", json_string(""));
    expect_doc_refused(d, NULL, "algorithms[0].name is empty");
    d = valid_doc();
    json_object_set_new(alg(d, 0), "collective",
                        json_string("bcast_and_more_16"));
    expect_doc_refused(d, NULL, "algorithms[0].collective is longer than 15");

    /* strings longer than their fields */
    char longs[300];
    memset(longs, 'm', sizeof longs - 1);
    longs[sizeof longs - 1] = 0;
    d = valid_doc();
    json_object_set_new(d, "machine", json_string(longs));
    expect_doc_refused(d, NULL, "field machine is longer than 127 bytes");
    d = valid_doc();
    json_object_set_new(d, "date", json_string(longs + 260));
    expect_doc_refused(d, NULL, "field date is longer than 31 bytes");
}

static void test_profile_refuses_values(void **state) {
    (void)state;
    json_t *d;

    /* negative numbers, wherever they are */
    d = valid_doc();
    json_object_set_new(d, "copy", json_real(-1e-10));
    expect_doc_refused(d, NULL, "field copy is negative");
    d = valid_doc();
    json_object_set_new(d, "eager_limit", json_integer(-1));
    expect_doc_refused(d, NULL, "field eager_limit is negative");
    d = valid_doc();
    json_object_set_new(json_object_get(d, "p2p"), "beta", json_real(-1e-9));
    expect_doc_refused(d, NULL, "field p2p.beta is negative");
    d = valid_doc();
    json_object_set_new(json_object_get(d, "gamma_op"), "other",
                        json_real(-2));
    expect_doc_refused(d, NULL, "field gamma_op.other is negative");
    d = valid_doc();
    json_object_set_new(json_object_get(d, "gamma"), "4", json_real(-1.2));
    expect_doc_refused(d, NULL, "field gamma.4 is negative");
    d = valid_doc();
    json_object_set_new(alg(d, 3), "alpha", json_real(-1e-6));
    expect_doc_refused(d, NULL, "field algorithms[3].alpha is negative");
    d = valid_doc();
    json_object_set_new(alg(d, 1), "points", json_integer(-4));
    expect_doc_refused(d, NULL, "field algorithms[1].points is negative");

    /* the P range */
    d = valid_doc();
    json_object_set_new(d, "p_range", json_pack("[ii]", 16, 8));
    expect_doc_refused(d, NULL, "p_range [16, 8]");
    d = valid_doc();
    json_object_set_new(d, "p_range", json_pack("[iii]", 2, 8, 9));
    expect_doc_refused(d, NULL, "p_range must hold 2 integers");
    d = valid_doc();
    json_object_set_new(d, "p_range", json_pack("[if]", 2, 8.0));
    expect_doc_refused(d, NULL, "p_range must hold integers");

    /* γ keys */
    static const char *const bad_keys[] = {"1", "0", "65", "100", "02", "x",
                                           "3.0", "", "-2", " 3"};
    char want[64];
    for (size_t i = 0; i < sizeof bad_keys / sizeof bad_keys[0]; i++) {
        d = valid_doc();
        json_object_set_new(json_object_get(d, "gamma"), bad_keys[i],
                            json_real(1.5));
        snprintf(want, sizeof want, "gamma key \"%s\" is not a process count",
                 bad_keys[i]);
        expect_doc_refused(d, NULL, want);
    }
    d = valid_doc();
    json_object_del(json_object_get(d, "gamma"), "4");
    expect_doc_refused(d, NULL, "gamma has no entry for p = 4");
    d = valid_doc();
    json_object_set_new(json_object_get(d, "gamma"), "64", json_real(3));
    expect_doc_refused(d, NULL, "gamma has no entry for p = 7");

    /* algorithms: twice, too many, unknown to this papcoll */
    d = valid_doc();
    json_array_append(json_object_get(d, "algorithms"), alg(d, 1));
    expect_doc_refused(d, NULL, "algorithm bcast/split_binary is listed twice");
    d = valid_doc();
    json_t *arr = json_object_get(d, "algorithms");
    for (int i = 6; i <= PAPC_PROFILE_MAX_ALGS; i++) {
        json_t *a = json_deep_copy(alg(d, 0));
        char name[32];
        snprintf(name, sizeof name, "alg%d", i);
        json_object_set_new(a, "name", json_string(name));
        json_array_append_new(arr, a);
    }
    {
        char want[96];
        snprintf(want, sizeof want, "%d algorithms, this papcoll reads at most %d",
                 PAPC_PROFILE_MAX_ALGS + 1, PAPC_PROFILE_MAX_ALGS);
        expect_doc_refused(d, NULL, want);
    }
    d = valid_doc();
    json_object_set_new(alg(d, 2), "name", json_string("foo"));
    json_object_set_new(alg(d, 2), "collective", json_string("bcast"));
    const char *path = file("broken.json");
    json_dump_file(d, path, 0);
    json_decref(d);
    expect_refusal(path, known_alg,
                   "algorithm bcast/foo does not exist in this papcoll");
    {
        papc_profile *out = malloc(sizeof *out);
        char err[512], exact[512];
        assert_int_equal(
            papc_profile_read(path, known_alg, out, err, sizeof err), -1);
        snprintf(exact, sizeof exact,
                 "%s: algorithm bcast/foo does not exist in this papcoll",
                 path);
        assert_string_equal(err, exact);
        /* without a table to check against, any name is accepted */
        assert_int_equal(papc_profile_read(path, NULL, out, err, sizeof err),
                         0);
        assert_string_equal(out->algs[2].name, "foo");
        free(out);
    }
    /* a name with a newline still gives one line */
    d = valid_doc();
    json_object_set_new(alg(d, 0), "name", json_string("evil\nname"));
    expect_doc_refused(d, known_alg, "algorithm bcast/evil?name does not");

    /* a small error buffer is cut, not overrun */
    {
        papc_profile *out = malloc(sizeof *out);
        char err[8] = "abcdefg";
        assert_int_equal(papc_profile_read(file("missing"), NULL, out, err, 6),
                         -1);
        assert_int_equal(strlen(err), 5);
        assert_true(err[6] == 'g');
        assert_int_equal(papc_profile_read(file("missing"), NULL, out, NULL, 0),
                         -1);
        free(out);
    }
}

/* A valid profile cut at every byte: refused until the closing brace is
 * in, accepted from there on, never a crash. */
static void test_profile_truncated(void **state) {
    (void)state;
    papc_profile *p = malloc(sizeof *p), *out = malloc(sizeof *out);
    char err[512];
    make_profile(p);
    const char *full = file("full.json"), *cut = file("cut.json");
    assert_int_equal(papc_profile_write(full, p, err, sizeof err), 0);
    FILE *f = fopen(full, "r");
    assert_non_null(f);
    static char text[16384];
    size_t len = fread(text, 1, sizeof text, f);
    fclose(f);
    assert_true(len > 500 && len < sizeof text);
    size_t last = (size_t)(strrchr(text, '}') - text);
    for (size_t k = 0; k <= len; k++) {
        write_text(cut, text, k);
        if (k <= last) {
            expect_refusal(cut, known_alg, NULL);
        } else {
            assert_int_equal(papc_profile_read(cut, known_alg, out, err,
                                               sizeof err),
                             0);
            assert_profiles_equal(p, out);
        }
    }
    free(p);
    free(out);
}

/* Writing refuses what reading would refuse, and leaves the old file. */
static void test_profile_write_refuses(void **state) {
    (void)state;
    papc_profile *p = malloc(sizeof *p), *out = malloc(sizeof *out);
    char err[512];
    const char *path = file("w.json");
    make_profile(p);
    assert_int_equal(papc_profile_write(path, p, err, sizeof err), 0);
    uint64_t h = papc_profile_hash(p);
    for (int k = 0;; k++) {
        const char *want;
        make_profile(p);
        switch (k) {
        case 0: p->p2p.alpha = NAN; want = "field p2p.alpha is not finite"; break;
        case 1: p->algs[1].ab.beta = -1; want = "algorithms[1].beta is negative"; break;
        case 2: p->copy = INFINITY; want = "field copy is not finite"; break;
        case 3: p->gamma.n = 1; want = "gamma.n = 1"; break;
        case 4: p->gamma.n = PAPC_GAMMA_MAX + 1; want = "gamma.n = 65"; break;
        case 5: p->nalgs = PAPC_PROFILE_MAX_ALGS + 1; want = "nalgs = 1025"; break;
        case 6: p->algs[2] = p->algs[0]; want = "bcast/binomial is listed twice"; break;
        case 7: p->algs[0].name[0] = 0; want = "algorithms[0].name is empty"; break;
        case 8: p->pmin = 0; want = "p_range [0, 64]"; break;
        case 9: strcpy(p->machine, "caf\xe9"); want = "machine is not valid UTF-8"; break;
        case 10: memset(p->date, 'd', sizeof p->date); want = "date is longer than 31"; break;
        default: goto done;
        }
        err[0] = 0;
        assert_int_equal(papc_profile_write(path, p, err, sizeof err), -1);
        if (strncmp(err, path, strlen(path)) || !strstr(err, "refusing to write") ||
            !strstr(err, want))
            fail_msg("case %d: \"%s\" does not say \"%s\"", k, err, want);
    }
done:
    /* the file written first is still there, whole */
    assert_int_equal(papc_profile_read(path, NULL, out, err, sizeof err), 0);
    assert_true(papc_profile_hash(out) == h);
    assert_int_equal(count_tmp_files(), 0);
    /* a directory that does not exist */
    make_profile(p);
    assert_int_equal(
        papc_profile_write("/nonexistent-dir/p.json", p, err, sizeof err), -1);
    assert_true(strncmp(err, "/nonexistent-dir/p.json: cannot create", 38) == 0);
    assert_int_equal(papc_profile_write(NULL, p, err, sizeof err), -1);
    assert_int_equal(papc_profile_write(path, NULL, err, sizeof err), -1);
    unlink(path);
    free(p);
    free(out);
}


/* Contention columns: a pipelined design (segments vary the message count
 * independently of the critical path) whose time has a volume and a
 * per-message part recovers all four parameters; a design where volume is
 * proportional to the critical path's bytes leaves nu_byte at 0 and still
 * predicts exactly. */
static void test_fit_contention(void **state) {
    (void)state;
    enum { N = 80 };
    papc_terms x[N];
    double t[N];
    const double a = 3e-6, b = 2e-10, nm = 4e-6, nb = 5e-11;
    int k = 0;
    /* Two segment sizes: with one, msgs = alpha - beta/seg + volume/seg
     * exactly and the four columns are not separable. */
    for (int P = 4; P <= 16; P += 4)
        for (int j = 0; j < 20; j++, k++) {
            double m = 1024.0 * (1 << (j % 10)), seg = j < 10 ? 8192 : 32768;
            double ns = m > seg ? m / seg : 1;
            x[k] = papc_terms_zero();
            x[k].alpha = P + ns - 2;
            x[k].beta = (P + ns - 2) * (m / ns);
            x[k] = papc_terms_traffic(x[k], (P - 1) * ns, (P - 1) * m);
            t[k] = a * x[k].alpha + b * x[k].beta + nm * x[k].msgs +
                   nb * x[k].volume;
        }
    papc_params ab;
    double rel;
    assert_int_equal(papc_fit_huber(N, x, t, 0, 0, &ab, NULL, &rel), 0);
    assert_true(relerr(ab.alpha, a) < 1e-6 && relerr(ab.beta, b) < 1e-6);
    assert_true(relerr(ab.nu_msg, nm) < 1e-6 && relerr(ab.nu_byte, nb) < 1e-6);
    assert_true(rel < 1e-9);
    for (int i = 0; i < N; i++) { /* volume = (P-1)/(P+ns-2) beta: spanned? */
        x[i] = papc_terms_zero();
        x[i].alpha = 1 + i % 4;
        x[i].beta = 1000.0 * (i + 1);
        x[i] = papc_terms_traffic(x[i], 0, 2000.0 * (i + 1));
        t[i] = a * x[i].alpha + b * x[i].beta + nb * x[i].volume;
    }
    assert_int_equal(papc_fit_huber(N, x, t, 0, 0, &ab, NULL, &rel), 0);
    assert_true(ab.nu_byte == 0 && ab.nu_msg == 0);
    assert_true(relerr(ab.beta, b + 2 * nb) < 1e-6 && relerr(ab.alpha, a) < 1e-6);
}

/* Times that are not Hockney-shaped, as measured (select-bench runs of
 * 2026-11-26): bcast basic_linear at P = 8 on the emulated cluster, flat
 * 0.5 ms up to 12 KiB then linear; scatter basic_linear at P = 16 on
 * shared memory, 70 us up to 152 B, a step to 400 us, linear above.  No
 * α + mβ fits both sides, but the fit must not give up the large sizes to
 * fit the small ones exactly: a median-residual choice among column
 * subsets took α alone (the largest point predicted 100 x too fast).
 * Every point within a factor 4, the largest within 50 %. */
static void check_step_fit(const double *m, const double *t, int n,
                           double a_coef, double b_per_byte) {
    papc_terms x[16];
    for (int i = 0; i < n; i++) {
        x[i] = papc_terms_zero();
        x[i].alpha = a_coef;
        x[i].beta = b_per_byte * m[i];
    }
    papc_params ab;
    assert_int_equal(papc_fit_huber(n, x, t, 0, 0, &ab, NULL, NULL), 0);
    for (int i = 0; i < n; i++) {
        double pred = papc_model_time(x[i], ab, 0, 0);
        if (!(pred > t[i] / 4 && pred < t[i] * 4))
            fail_msg("point %d (m = %.0f): predicted %g s, measured %g s", i,
                     m[i], pred, t[i]);
    }
    double last = papc_model_time(x[n - 1], ab, 0, 0);
    assert_true(relerr(last, t[n - 1]) < 0.5);
}

static void test_fit_step(void **state) {
    (void)state;
    const double m1[] = {8, 32, 152, 648, 2784, 12040, 52016, 224720, 970848,
                         4194304};
    const double t1[] = {6.52504e-4, 5.0116e-4, 5.15668e-4, 5.03935e-4,
                         4.98034e-4, 5.02092e-4, 2.578968e-3, 1.301792e-2,
                         6.12045465e-2, 2.48405574e-1};
    check_step_fit(m1, t1, 10, 7.32061045, 7.32061045);
    const double m2[] = {8, 32, 152, 648, 2784, 12040, 52016, 224720, 970848};
    const double t2[] = {1.44612e-4, 7.9148e-5, 8.2906e-5, 4.23915e-4,
                         4.20158e-4, 4.76744e-4, 6.12669e-4, 1.111575e-3,
                         3.417741e-3};
    check_step_fit(m2, t2, 9, 15, 15);
}

/* Per-P entries: exact P, bracketing, outside the range, every-P only. */
static void test_profile_bracket(void **state) {
    (void)state;
    static papc_profile p;
    memset(&p, 0, sizeof p);
    const int ps[] = {0, 4, 8, 16};
    for (int i = 0; i < 4; i++) {
        snprintf(p.algs[i].collective, sizeof p.algs[i].collective, "bcast");
        snprintf(p.algs[i].name, sizeof p.algs[i].name, "chain");
        p.algs[i].p = ps[i];
    }
    snprintf(p.algs[4].collective, sizeof p.algs[4].collective, "bcast");
    snprintf(p.algs[4].name, sizeof p.algs[4].name, "binary");
    p.nalgs = 5;
    const papc_profile_alg *lo, *hi;
    papc_profile_bracket(&p, "bcast", "chain", 8, &lo, &hi);
    assert_true(lo == &p.algs[2] && hi == &p.algs[2]);
    papc_profile_bracket(&p, "bcast", "chain", 12, &lo, &hi);
    assert_true(lo == &p.algs[2] && hi == &p.algs[3]);
    papc_profile_bracket(&p, "bcast", "chain", 2, &lo, &hi);
    assert_true(lo == &p.algs[1] && hi == &p.algs[1]);
    papc_profile_bracket(&p, "bcast", "chain", 64, &lo, &hi);
    assert_true(lo == &p.algs[3] && hi == &p.algs[3]);
    papc_profile_bracket(&p, "bcast", "binary", 12, &lo, &hi);
    assert_true(lo == &p.algs[4] && hi == &p.algs[4]);
    papc_profile_bracket(&p, "bcast", "split_binary", 12, &lo, &hi);
    assert_true(lo == NULL && hi == NULL);
    assert_true(papc_profile_find(&p, "bcast", "chain") == &p.algs[0]);
    assert_true(papc_profile_find_p(&p, "bcast", "chain", 16) == &p.algs[3]);

    /* fits of one segment size: chain/8192 at P = 4 and 16, chain/0 at
     * every P; bracketing among them, the pooled entries otherwise */
    const struct { int p; double seg; } segs[] = {{4, 8192}, {16, 8192},
                                                  {0, 0}};
    for (int i = 0; i < 3; i++) {
        papc_profile_alg *a = &p.algs[5 + i];
        snprintf(a->collective, sizeof a->collective, "bcast");
        snprintf(a->name, sizeof a->name, "chain");
        a->p = segs[i].p, a->per_seg = 1, a->segsize = segs[i].seg;
    }
    p.nalgs = 8;
    papc_profile_bracket_seg(&p, "bcast", "chain", 8, 8192, &lo, &hi);
    assert_true(lo == &p.algs[5] && hi == &p.algs[6]);
    papc_profile_bracket_seg(&p, "bcast", "chain", 16, 8192, &lo, &hi);
    assert_true(lo == &p.algs[6] && hi == &p.algs[6]);
    papc_profile_bracket_seg(&p, "bcast", "chain", 12, 0, &lo, &hi);
    assert_true(lo == &p.algs[7] && hi == &p.algs[7]);
    papc_profile_bracket_seg(&p, "bcast", "chain", 12, 64512, &lo, &hi);
    assert_true(lo == &p.algs[2] && hi == &p.algs[3]);
    papc_profile_bracket_seg(&p, "bcast", "chain", 12, -1, &lo, &hi);
    assert_true(lo == &p.algs[2] && hi == &p.algs[3]);
    papc_profile_bracket_seg(&p, "bcast", "binary", 12, 8192, &lo, &hi);
    assert_true(lo == &p.algs[4] && hi == &p.algs[4]);
    /* the pooled lookups never return a one-segment-size fit */
    papc_profile_bracket(&p, "bcast", "chain", 12, &lo, &hi);
    assert_true(lo == &p.algs[2] && hi == &p.algs[3]);
    assert_true(papc_profile_find_p(&p, "bcast", "chain", 4) == &p.algs[1]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_terms),
        cmocka_unit_test(test_segments_and_logs),
        cmocka_unit_test(test_gamma_of),
        cmocka_unit_test(test_fit_exact),
        cmocka_unit_test(test_fit_outliers),
        cmocka_unit_test(test_fit_negative),
        cmocka_unit_test(test_fit_degenerate),
        cmocka_unit_test(test_fit_contention),
        cmocka_unit_test(test_fit_step),
        cmocka_unit_test(test_profile_bracket),
        cmocka_unit_test(test_profile_round_trip),
        cmocka_unit_test(test_profile_find),
        cmocka_unit_test(test_profile_hash),
        cmocka_unit_test(test_profile_refuses_text),
        cmocka_unit_test(test_profile_refuses_fields),
        cmocka_unit_test(test_profile_refuses_values),
        cmocka_unit_test(test_profile_truncated),
        cmocka_unit_test(test_profile_write_refuses),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
