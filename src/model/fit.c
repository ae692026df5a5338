/*
 * fit.c — an algorithm's own α and β from measured times, by Huber
 * regression (Nuriyev & Lastovetsky 2021, Sect. IV-C and V: "We use the
 * Huber regressor"), through GSL's gsl_multifit_robust.
 *
 * The system is  y_i = t_i − γ_op·G_i − δ·C_i = α·A_i + β·B_i  (no
 * intercept), with A_i, B_i, G_i, C_i the terms the algorithm's model gives
 * for experiment i.
 *
 * Scale.  α ~ 1e-6 s against β ~ 1e-10 s/B, A_i ~ 1..100 against
 * B_i ~ 1..1e8: the columns are normalised to a largest entry of 1 before
 * the fit and the coefficients un-normalised after, so that the SVD inside
 * GSL sees a well-conditioned matrix.
 *
 * Relative rows.  Every equation is divided by its predicted time t̂_i, so
 * that the residuals are relative errors.  Why, rather than absolute
 * seconds or the paper's canonical form α + β·m_i = T_i/c_i (division by
 * the α coefficient): the experiments span message sizes on a logarithmic
 * scale, so times span orders of magnitude and timing noise grows with the
 * time (it is multiplicative: interference, frequency, cache effects).
 * Huber weights residuals against ONE scale estimate; in seconds (or per α
 * step) that scale is set by the largest messages, the small-message
 * points are never seen as outliers and barely constrain α, while the
 * selector compares candidates at the same (P, m) and needs every size
 * predicted to a similar relative accuracy.  Relative residuals are
 * homoscedastic under multiplicative noise and give each size an equal
 * voice.
 * Why the predicted t̂_i and not the measured t_i: a row divided by its
 * own t_i has response exactly 1 whenever γ_op·G = δ·C = 0, and GSL then
 * floors its scale estimate at 1.0 (1e-6 of sd(y), or 1 when sd(y) = 0),
 * i.e. 100 % — a point measured 10× too slow (relative residual 0.9)
 * would keep its full weight; and dividing by a measured outlier scales
 * its row by the error itself (10× too fast: a row 10× too heavy).  So: a
 * first fit with rows divided by the measured t_i (where the floor makes
 * it plain least squares on relative errors: a start, not the answer;
 * a first fit in seconds let the largest messages alone decide, see
 * fit_validated) gives t̂_i; the relative fit is then repeated
 * with t̂_i from the previous pass (iteratively reweighted least squares
 * for a variance proportional to the mean squared, as a gamma GLM does).
 * Measured on the design of tests/unit/test_model_lib.c (50 points, P 4..64,
 * m 1 KB..4 MB, ±1 % noise, 20 % of the points off by a factor f, worst of
 * 20 seeds), error of α / β:
 *     rows / t̂ (this code)       f = 10: 1.1 % / 0.5 %   f = 0.1: 0.9 % / 0.5 %
 *     rows / measured t_i         f = 10: 0.8 % / 0.2 %   f = 0.1:  87 % /  87 %
 *     seconds, no row weights     f = 10:  51 % / 0.9 %   f = 0.1: 100 % / 1.2 %
 *
 * Non-negativity.  A negative estimate is refitted with that parameter
 * fixed at 0 (a one-column robust fit); when both are negative, or the
 * refit is negative too, the other one-column fit is tried; the one with
 * the smaller mean |log(t̂_i / t_i)| wins.  Both fixed at 0 is refused:
 * an algorithm predicted to cost nothing would win every selection.
 *
 * Small systems.  GSL's robust fit needs residual degrees of freedom for
 * its scale estimate (n = p gives 0/0 in its statistics), so with
 * n <= p + 1 the fit is weighted ordinary least squares (exact for n = p).
 *
 * Outputs: sigma is the robust standard deviation of the residuals in
 * seconds, 1.4826·median|r_i| (the MAD about 0: without an intercept the
 * residuals of a correct model centre on 0); rel is median |r_i|/t_i.
 * sigma and rel may be NULL.
 *
 * Contention columns.  Where a model also gives the whole collective's
 * messages (msgs) and bytes (volume), their parameters ν_msg and ν_byte
 * join the fit.  A column that is zero, or that the columns before it
 * (α, β, then volume, then msgs) already span at the measured points (for
 * basic_linear at one P, msgs is a constant like α's coefficient), is left
 * out: its parameter stays 0.  Non-negativity: of the fits of every subset
 * of the columns (α or β always among them), the non-negative one with the
 * smallest mean |log(t̂_i / t_i)| (for α and β alone: the rule above).
 *
 * Refused (-1, *out zeroed): n < 2, NULL arrays, NaN/inf anywhere, a time
 * t_i <= 0 (rel and the relative rows divide by it), a column of A or B
 * all zero or the two columns proportional (α and β not separable), or no
 * non-negative fit.  GSL's error handler is switched off during the fit
 * (the library never aborts) and restored after; GSL_EMAXITER keeps the
 * last iterate (Huber's objective is convex: it is close).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <gsl/gsl_vector.h>

#include "model.h"

/* Passes of the relative fit, each with t̂ from the one before: the
 * weights move by the relative change of t̂, negligible after two. */
#define RELATIVE_PASSES 3

/* Columns whose normalised Gram determinant is below this are treated as
 * proportional: α and β cannot be told apart. */
#define COLLINEAR_TOL 1e-12

#define NCOL 4

typedef struct fit_data {
    int n;
    const double *col[NCOL]; /* α, β, ν_msg, ν_byte coefficients */
    double *y;               /* t − γ_op·G − δ·C */
    const double *t;         /* measured times */
    double *shared;          /* γ_op·G + δ·C, to predict the total time */
} fit_data;

/* Bits of the columns a fit estimates (the others are fixed at 0). */
enum { USE_ALPHA = 1, USE_BETA = 2, USE_MSGS = 4, USE_VOLUME = 8 };

static double median_of(double *v, int n) {
    gsl_sort(v, 1, (size_t)n);
    return gsl_stats_median_from_sorted_data(v, 1, (size_t)n);
}

static int column_all_zero(const double *c, int n) {
    for (int i = 0; i < n; i++)
        if (c[i] != 0) return 0;
    return 1;
}

/* cos² of the angle between the columns close to 1: proportional. */
static int columns_proportional(const double *a, const double *b, int n) {
    double sa = 0, sb = 0;
    for (int i = 0; i < n; i++) {
        sa = fmax(sa, fabs(a[i]));
        sb = fmax(sb, fabs(b[i]));
    }
    double aa = 0, bb = 0, ab = 0;
    for (int i = 0; i < n; i++) {
        double x = a[i] / sa, z = b[i] / sb;
        aa += x * x;
        bb += z * z;
        ab += x * z;
    }
    return aa * bb - ab * ab <= COLLINEAR_TOL * aa * bb;
}

/* 1 when column c lies (nearly) in the span of the columns in `use`:
 * Gram-Schmidt on normalised columns, the part of c left over is tiny. */
static int column_spanned(const fit_data *d, int use, int c, double *work) {
    int n = d->n;
    double *basis = malloc(sizeof(double) * (size_t)n * NCOL);
    if (!basis) return 1;
    int nb = 0;
    double *v = work;
    for (int k = 0; k <= NCOL; k++) {
        int which = k < NCOL ? k : c;
        if (k < NCOL && !(use & (1 << k))) continue;
        double s = 0;
        for (int i = 0; i < n; i++) s = fmax(s, fabs(d->col[which][i]));
        if (!(s > 0)) { if (k == NCOL) { free(basis); return 1; } continue; }
        for (int i = 0; i < n; i++) v[i] = d->col[which][i] / s;
        double before = 0, after = 0;
        for (int i = 0; i < n; i++) before += v[i] * v[i];
        for (int b = 0; b < nb; b++) {
            double dot = 0;
            for (int i = 0; i < n; i++) dot += v[i] * basis[b * n + i];
            for (int i = 0; i < n; i++) v[i] -= dot * basis[b * n + i];
        }
        for (int i = 0; i < n; i++) after += v[i] * v[i];
        if (k == NCOL) {
            free(basis);
            return after <= 1e-8 * before;
        }
        if (after <= 1e-8 * before) continue;
        double norm = sqrt(after);
        for (int i = 0; i < n; i++) basis[nb * n + i] = v[i] / norm;
        nb++;
    }
    free(basis);
    return 1;
}

static int inputs_valid(int n, const papc_terms *x, const double *t,
                        double gamma_op, double copy) {
    if (n < 2 || !x || !t || !isfinite(gamma_op) || !isfinite(copy))
        return 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(x[i].alpha) || !isfinite(x[i].beta) ||
            !isfinite(x[i].gamma_op) || !isfinite(x[i].copy) ||
            !isfinite(x[i].msgs) || !isfinite(x[i].volume) ||
            !isfinite(t[i]) || t[i] <= 0)
            return 0;
        double s = gamma_op * x[i].gamma_op + copy * x[i].copy;
        if (!isfinite(s) || !isfinite(t[i] - s)) return 0;
    }
    return 1;
}

static int ncols(int use) { return __builtin_popcount((unsigned)use); }

/* Weighted, column-normalised system of the parameters in `use`: row i is
 * multiplied by w[i], column j divided by its largest entry scale[j]. */
static void build_system(const fit_data *d, const double *w, int use,
                         gsl_matrix *X, gsl_vector *y, double *scale) {
    int j = 0;
    for (int k = 0; k < NCOL; k++) {
        if (!(use & (1 << k))) continue;
        double s = 0;
        for (int i = 0; i < d->n; i++)
            s = fmax(s, fabs(d->col[k][i] * w[i]));
        scale[j] = s;
        for (int i = 0; i < d->n; i++)
            gsl_matrix_set(X, i, j, s > 0 ? d->col[k][i] * w[i] / s : 0);
        j++;
    }
    for (int i = 0; i < d->n; i++) gsl_vector_set(y, i, d->y[i] * w[i]);
}

static double param(const papc_params *p, int k) {
    switch (k) {
    case 0: return p->alpha;
    case 1: return p->beta;
    case 2: return p->nu_msg;
    default: return p->nu_byte;
    }
}

static void set_param(papc_params *p, int k, double v) {
    switch (k) {
    case 0: p->alpha = v; break;
    case 1: p->beta = v; break;
    case 2: p->nu_msg = v; break;
    default: p->nu_byte = v; break;
    }
}

/* Huber fit (or least squares on a tiny system) of the parameters in
 * `use` on rows weighted by w.  0 and *out, or -1. */
static int weighted_fit(const fit_data *d, const double *w, int use,
                        papc_params *out) {
    const size_t n = (size_t)d->n, p = (size_t)ncols(use);
    if (p == 0 || n < p) return -1;
    double scale[NCOL];
    gsl_matrix *X = gsl_matrix_alloc(n, p);
    gsl_vector *y = gsl_vector_alloc(n), *c = gsl_vector_alloc(p);
    gsl_matrix *cov = gsl_matrix_alloc(p, p);
    int rc = -1;
    if (!X || !y || !c || !cov) goto done;
    build_system(d, w, use, X, y, scale);
    for (size_t j = 0; j < p; j++)
        if (!(scale[j] > 0) || !isfinite(scale[j])) goto done;

    int status;
    if (n <= p + 1) {
        gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(n, p);
        double chisq;
        if (!ws) goto done;
        status = gsl_multifit_linear(X, y, c, cov, &chisq, ws);
        gsl_multifit_linear_free(ws);
    } else {
        gsl_multifit_robust_workspace *ws =
            gsl_multifit_robust_alloc(gsl_multifit_robust_huber, n, p);
        if (!ws) goto done;
        status = gsl_multifit_robust(X, y, c, cov, ws);
        gsl_multifit_robust_free(ws);
        if (status == GSL_EMAXITER) status = GSL_SUCCESS;
    }
    if (status != GSL_SUCCESS) goto done;

    papc_params v = {0, 0, 0, 0};
    int j = 0;
    for (int k = 0; k < NCOL; k++) {
        if (!(use & (1 << k))) continue;
        double x = gsl_vector_get(c, (size_t)j) / scale[j];
        if (!isfinite(x)) goto done;
        set_param(&v, k, x);
        j++;
    }
    *out = v;
    rc = 0;
done:
    gsl_matrix_free(X);
    gsl_vector_free(y);
    gsl_vector_free(c);
    gsl_matrix_free(cov);
    return rc;
}

static double residual(const fit_data *d, int i, papc_params ab) {
    double r = d->y[i];
    for (int k = 0; k < NCOL; k++) r -= param(&ab, k) * d->col[k][i];
    return r;
}

/* The criterion between candidate column sets: the mean of |log(t̂_i /
 * t_i)| over every point, symmetric in over- and under-prediction and
 * blind to scale.  Not the median residual it was: a median lets a fit
 * ignore half the points, and on the emulated cluster bcast basic_linear
 * at P = 8 (flat 0.5 ms up to 12 KiB, then 61 ms at 1 MiB) got α alone,
 * exact on the six small points and 100 x too fast at 1 MiB. */
static double mean_log_error(const fit_data *d, papc_params ab) {
    double sum = 0;
    for (int i = 0; i < d->n; i++) {
        double pred = d->y[i] - residual(d, i, ab) + d->shared[i];
        sum += fabs(log(fmax(pred, 1e-3 * d->t[i]) / d->t[i]));
    }
    return sum / d->n;
}

/* Index of the most negative parameter of the fit (relative to the scale
 * of its column), -1 when none is negative. */
static int most_negative(const fit_data *d, int use, papc_params ab) {
    int worst = -1;
    double wv = 0;
    for (int k = 0; k < NCOL; k++) {
        if (!(use & (1 << k))) continue;
        double s = 0;
        for (int i = 0; i < d->n; i++) s = fmax(s, fabs(d->col[k][i]));
        double v = param(&ab, k) * s;
        if (v < wv) { wv = v; worst = k; }
    }
    return worst;
}

static int positive(papc_params ab) {
    return ab.alpha > 0 || ab.beta > 0 || ab.nu_msg > 0 || ab.nu_byte > 0;
}

/* The non-negative fit: every subset of the columns in `use` is fitted,
 * and of the fits whose estimates are all non-negative (and not all 0)
 * the one with the smallest mean log error wins.  At most 15
 * small fits; dropping the most negative column one at a time instead
 * went astray where the message count and the latency count are nearly
 * proportional (a segmented tree at one P): it dropped α and kept β,
 * predicting small messages at 1 % of their time. */
static int nonneg_fit(const fit_data *d, const double *w, int use,
                      papc_params *out) {
    int found = 0;
    double best = 0;
    for (int sub = 1; sub < 1 << NCOL; sub++) {
        if ((sub & ~use) || !(sub & (USE_ALPHA | USE_BETA))) continue;
        papc_params ab;
        if (weighted_fit(d, w, sub, &ab) != 0 ||
            most_negative(d, sub, ab) >= 0 || !positive(ab))
            continue;
        double r = mean_log_error(d, ab);
        if (!found || r < best) {
            found = 1;
            best = r;
            *out = ab;
        }
    }
    return found ? 0 : -1;
}

/* Weights 1/t̂_i of the relative fit; the measured time where the
 * prediction is not positive. */
static void relative_weights(const fit_data *d, papc_params ab, double *w) {
    for (int i = 0; i < d->n; i++) {
        double pred = d->y[i] - residual(d, i, ab) + d->shared[i];
        w[i] = 1.0 / (pred > 0 && isfinite(pred) ? pred : d->t[i]);
    }
}

/* The first pass weighs rows by their measured times (least squares on
 * relative errors: GSL's scale floor makes it one, see above), the later
 * ones by the previous pass's predictions.  A first pass in seconds let
 * the largest messages alone decide: on shared memory, scatter
 * basic_linear at P = 16 (70 us flat up to 152 B, then a step to 400 us)
 * got a negative α there, the α-only fit won the first pass, its constant
 * prediction weighed every later pass equally, and the profile predicted
 * 72 us for 1 MiB (measured 3.5 ms). */
static int fit_validated(const fit_data *d, int use, papc_params *out,
                         double *w) {
    for (int i = 0; i < d->n; i++) w[i] = 1.0 / d->t[i];
    papc_params ab;
    if (nonneg_fit(d, w, use, &ab) != 0) return -1;
    for (int pass = 0; pass < RELATIVE_PASSES; pass++) {
        relative_weights(d, ab, w);
        if (nonneg_fit(d, w, use, &ab) != 0) return -1;
    }
    *out = ab;
    return 0;
}

static void residual_stats(const fit_data *d, papc_params ab, double *work,
                           double *sigma, double *rel) {
    if (sigma) {
        for (int i = 0; i < d->n; i++) work[i] = fabs(residual(d, i, ab));
        *sigma = 1.4826 * median_of(work, d->n);
    }
    if (rel) {
        for (int i = 0; i < d->n; i++)
            work[i] = fabs(residual(d, i, ab)) / d->t[i];
        *rel = median_of(work, d->n);
    }
}

/* α and β always (when separable); then volume and msgs where they add a
 * direction the columns before them do not span. */
static int columns_to_fit(const fit_data *d, double *work) {
    int use = USE_ALPHA | USE_BETA;
    const int extra[2] = {3, 2};
    for (int e = 0; e < 2; e++) {
        int k = extra[e];
        if (!column_all_zero(d->col[k], d->n) &&
            d->n > ncols(use) + 1 && !column_spanned(d, use, k, work))
            use |= 1 << k;
    }
    return use;
}

int papc_fit_huber(int n, const papc_terms *x, const double *t,
                   double gamma_op, double copy, papc_params *out,
                   double *sigma, double *rel) {
    if (!out) return -1;
    *out = (papc_params){0, 0, 0, 0};
    if (!inputs_valid(n, x, t, gamma_op, copy)) return -1;

    double *buf = malloc(sizeof(double) * (size_t)n * 8);
    if (!buf) return -1;
    double *A = buf, *B = buf + n, *M = buf + 2 * n, *V = buf + 3 * n;
    double *y = buf + 4 * n, *shared = buf + 5 * n;
    double *w = buf + 6 * n, *work = buf + 7 * n;
    for (int i = 0; i < n; i++) {
        A[i] = x[i].alpha;
        B[i] = x[i].beta;
        M[i] = x[i].msgs;
        V[i] = x[i].volume;
        shared[i] = gamma_op * x[i].gamma_op + copy * x[i].copy;
        y[i] = t[i] - shared[i];
    }
    fit_data d = {n, {A, B, M, V}, y, t, shared};

    int rc = -1;
    if (!column_all_zero(A, n) && !column_all_zero(B, n) &&
        !columns_proportional(A, B, n)) {
        gsl_error_handler_t *old = gsl_set_error_handler_off();
        papc_params ab;
        rc = fit_validated(&d, columns_to_fit(&d, work), &ab, w);
        gsl_set_error_handler(old);
        if (rc == 0) {
            *out = ab;
            residual_stats(&d, ab, work, sigma, rel);
        }
    }
    free(buf);
    return rc;
}

/* ---- the arrival correction (issue 15 calibration) ----
 * The same robust fit with what the arrival model says the offsets cost
 * (ē_model − t0) as the "α" column and the balanced prediction t0 as the
 * "β" column: relative residuals (the delayed calls span 2 ms to 400 ms),
 * Huber weights (a call a machine-wide stall slowed tenfold must not set
 * the slope), both >= 0 (a row cannot gain from a late process, nor cost
 * less than nothing when all arrive together). */
/* An anchored slope above this is not trusted (papc_arrival_fit). */
#define ARRIVAL_A_MAX 3.0

/* Whether the above-wait column is round-off or under 1 % of the values
 * fitted: nothing to fit a slope to. */
static int column_negligible(const papc_terms *x, const double *y, int n) {
    double xm = 0, ym = 0;
    for (int i = 0; i < n; i++) {
        xm = fmax(xm, fabs(x[i].alpha));
        ym = fmax(ym, fabs(y[i]));
    }
    return xm <= 0.01 * ym;
}

int papc_arrival_fit(int n, const double *model, const double *t0,
                     const double *w, const double *e,
                     papc_profile_arrival *out) {
    if (!out || n < 2 || !model || !t0 || !e) return -1;
    papc_terms *x = malloc(sizeof *x * (size_t)n);
    double *y = malloc(sizeof *y * (size_t)n);
    if (!x || !y) {
        free(x);
        free(y);
        return -1;
    }
    int ok = 1;
    for (int i = 0; i < n; i++) {
        double wi = w ? w[i] : 0;
        ok &= isfinite(model[i]) && isfinite(t0[i]) && isfinite(e[i]) &&
              isfinite(wi) && wi >= 0 && model[i] >= wi && t0[i] > 0 &&
              e[i] > wi;
        x[i] = papc_terms_zero();
        x[i].alpha = model[i] - t0[i] - wi;
        x[i].beta = t0[i];
        y[i] = e[i] - wi;
    }
    papc_params ab;
    double rel = 0;
    int rc = ok ? papc_fit_huber(n, x, y, 0, 0, &ab, NULL, &rel) : -1;
    /* Anchored, the slope is not always there to fit: a classic allreduce's
     * model is the wait plus t0 exactly (its column is round-off), and a
     * column small against t0 gives slopes of 6-40 that c offsets (the
     * calibration at 20/100 ms).  Then the model's own term stands (a = 1)
     * and c alone is fitted: the median of (y − x)/t0, robust as Huber. */
    if (ok && w && (rc != 0 || !(ab.alpha <= ARRIVAL_A_MAX) ||
                    column_negligible(x, y, n))) {
        double *r = malloc(sizeof *r * (size_t)n);
        rc = -1;
        if (r) {
            for (int i = 0; i < n; i++) r[i] = (y[i] - x[i].alpha) / t0[i];
            ab.alpha = 1;
            ab.beta = median_of(r, n);
            for (int i = 0; i < n; i++)   /* as papc_fit_huber's rel */
                r[i] = fabs(y[i] - x[i].alpha - ab.beta * t0[i]) / y[i];
            rel = median_of(r, n);
            rc = 0;
            free(r);
        }
    }
    free(x);
    free(y);
    if (rc != 0 || !(ab.beta > 0)) return -1;
    out->a = ab.alpha;
    out->c = ab.beta;
    out->anchored = w != NULL;
    out->rel = rel;
    out->points = n;
    return 0;
}

/* The guard's share of min(e − w, c·t0) (model.h says why a tenth). */
#define ARRIVAL_GUARD_SHARE 0.1

double papc_arrival_corrected(const papc_profile_arrival *k, double e,
                              double t0, double w) {
    if (!k) return e;
    if (!k->anchored || !(w > 0) || !isfinite(w)) w = 0;
    double above = fmax(e - w, 0);
    double v = w + k->a * (above - t0) + k->c * t0;
    double floor = w + ARRIVAL_GUARD_SHARE * fmin(above, k->c * t0);
    return v > floor ? v : floor;
}
