/*
 * tune_arrival.h — papc-tune --arrival-refit: each row's arrival
 * correction (model.h, papc_profile_arrival) fitted from papc-bench runs
 * with late processes.  Header-only: papc-tune's own part (every .c in
 * tools/ is its own program).
 *
 * Why a correction.  The arrival models (src/model/arrival_model.c) follow
 * each algorithm's code with Hockney costs from the balanced fit; on a
 * real machine a row with processes arriving apart can cost more or less
 * than that: a background row's monitor threads starve when 8 emulated
 * hosts share 2 cores, clairvoyant pays its schedule, a linear row's
 * fan-in contends.  The model-based-selection paper fits α, β per
 * algorithm because one Hockney pair does not describe them all; here
 * each row gets its own a, c in  ē ≈ a·(ē_model − t0) + c·t0, fitted by
 * the same Huber regression (papc_arrival_fit).  --arrival-form anchored
 * fits ē − w ≈ a·(ē_model − t0 − w) + c·t0 instead, w the wait no
 * algorithm avoids at the measured offsets (papc_arrival_wait_floor), so
 * that a slope under 1 cannot price a row under that wait; on sweep 4's
 * held-out traces it chose worse (37 of 48 settings within 5 % against
 * 40, --arrival-check; docs/performance.md), so it is not the default.
 *
 * Input: papc-bench files of delayed settings (max delay > 0), either
 *   --trace files (coll,algorithm,count,mode,max_delay_ms,iteration,rank,
 *     arrive_ms,finish_ms[,ran[,watched]]): one point per measured iteration, the model
 *     at that iteration's measured arrival offsets; or
 *   --csv files (e_mean_ms per setting): one point per setting, the model
 *     at the nominal offsets (one-late: rank 1 late by the delay;
 *     rand-late: papc-bench's own per-iteration delays, recomputed from
 *     the seed, -i and -x of the file's "# command:" line, the model's ē
 *     averaged over the measured iterations).
 * Rows other than papcoll's (native, auto, auto_classic) are skipped; the
 * root is papc-bench's default 0 (rooted collectives), the op MPI_SUM on
 * floats (commutative), t0 the profile's prediction at the call's size
 * class exactly as the plain call predicts it (papc_select_predict_with),
 * the background channel running (papc-bench runs the monitor).
 */
#ifndef PAPC_TUNE_ARRIVAL_H
#define PAPC_TUNE_ARRIVAL_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/core.h"
#include "model/arrival_model.h"

#define TA_MAX_P 1024
#define TA_MIN_POINTS 4 /* per row: fewer is no fit */

typedef struct ta_point {
    const papc_alg_desc *row;
    int P;
    double bytes;          /* papc_call_bytes of the call */
    int one_late;
    double delay_ms;
    double e, model, t0;   /* measured ē, model ē, balanced t0 (s) */
    double w;              /* the wait no algorithm avoids (s) */
} ta_point;

typedef struct ta_set {
    ta_point *pt;
    int n, cap;
    int skipped;           /* rows without a model/prediction */
} ta_set;

static void ta_add(ta_set *s, ta_point p) {
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 256;
        ta_point *q = realloc(s->pt, (size_t)cap * sizeof *q);
        if (!q) {
            fprintf(stderr, "papc-tune: out of memory\n");
            exit(1);
        }
        s->pt = q;
        s->cap = cap;
    }
    s->pt[s->n++] = p;
}

/* papc-bench's generator (tools/papc-bench.c), for its rand-late delays. */
static uint64_t ta_splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static double ta_bench_delay(unsigned long long seed, int it, int r,
                             double max_s) {
    uint64_t s = seed * 0x9e3779b97f4a7c15ULL;
    s ^= (uint64_t)(it + 1) * 0xc2b2ae3d27d4eb4fULL;
    s ^= (uint64_t)(r + 1) * 0x165667b19e3779f9ULL;
    s ^= (uint64_t)(2 + 1) * 0x27d4eb2f165667c5ULL;
    ta_splitmix(&s);
    return (double)(ta_splitmix(&s) >> 11) * (1.0 / 9007199254740992.0) *
           max_s;
}

/* The row's model ē, t0 and unavoidable wait w at the offsets; 0 when it
 * has no model. */
static int ta_model(const papc_profile *prof, const papc_alg_desc *row,
                    int P, double bytes, const double *offset, double *e,
                    double *t0, double *w) {
    papc_row_prediction p;
    if (!papc_select_predict_with(prof, row, P,
                                  papc_select_class_bytes((size_t)bytes), 1,
                                  PAPC_OPCLASS_FLOAT, &p))
        return 0;
    /* A row priced by its node grouping (reduce clairvoyant_node): the
     * traces do not carry the grouping, and priced as one node per rank it
     * is plain Clairvoyant's model, which a correction fitted to the
     * node row's measurements would bend -- no model here. */
    if (papc_arrival_row_nodes(papc_collective_name(row->info.collective),
                               row->info.name))
        return 0;
    papc_arrival_case k = {
        papc_collective_name(row->info.collective), row->info.name, P, 0,
        bytes, (double)p.segsize, offset, p.seconds, p.alpha, p.beta,
        p.gamma_op, 1, 0, 0, prof ? prof->eager : 0, NULL};
    *e = papc_arrival_model_mean(&k);
    *t0 = p.seconds;
    *w = papc_arrival_wait_floor(k.collective, P, 0, offset);
    return *e > 0 && isfinite(*e) && *w >= 0;
}

/* Splits a CSV line in place; returns the number of fields. */
static int ta_split(char *line, char **f, int max) {
    int n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *s = line; n < max;) {
        f[n++] = s;
        char *c = strchr(s, ',');
        if (!c) break;
        *c = '\0';
        s = c + 1;
    }
    return n;
}

static int ta_column(char **h, int nh, const char *name) {
    for (int i = 0; i < nh; i++)
        if (!strcmp(h[i], name)) return i;
    return -1;
}

static const papc_alg_desc *ta_row(const char *coll, const char *name) {
    int c = papc_collective_from_name(coll);
    if (c < 0) return NULL;
    return papc_registry_find((papc_collective)c, name);
}

/* The value after flag in papc-bench's "# command:" line, or dflt. */
static double ta_flag(const char *cmd, const char *flag, double dflt) {
    size_t n = strlen(flag);
    for (const char *s = cmd; (s = strstr(s, flag)); s += n)
        if ((s == cmd || s[-1] == ' ') && s[n] == ' ')
            return strtod(s + n + 1, NULL);
    return dflt;
}

/* One trace iteration (P ranks' arrive, finish in ms) as a point. */
static void ta_trace_point(ta_set *s, const papc_profile *prof,
                           const papc_alg_desc *row, int P, double bytes,
                           int one_late, double delay, const double *a,
                           const double *f) {
    double off[TA_MAX_P], lo = a[0], sum = 0;
    for (int r = 0; r < P; r++) lo = a[r] < lo ? a[r] : lo;
    for (int r = 0; r < P; r++) {
        off[r] = (a[r] - lo) * 1e-3;
        sum += (f[r] - a[r]) * 1e-3;
    }
    ta_point p = {row, P, bytes, one_late, delay, sum / P, 0, 0, 0};
    if (p.e > 0 &&
        ta_model(prof, row, P, bytes, off, &p.model, &p.t0, &p.w))
        ta_add(s, p);
    else
        s->skipped++;
}

static int ta_read_trace(FILE *in, const char *path, const papc_profile *prof,
                         ta_set *s) {
    char line[1024], key[1024] = "", *f[16];
    double a[TA_MAX_P], fin[TA_MAX_P], bytes = 0, delay = 0;
    int P = 0, one_late = 0;
    const papc_alg_desc *row = NULL;
    while (fgets(line, sizeof line, in)) {
        if (line[0] == '#') continue;
        /* the iteration's key: the line up to its sixth comma */
        size_t klen = 0;
        for (int commas = 0; line[klen] && commas < 6; klen++)
            commas += line[klen] == ',';
        char k[1024];
        memcpy(k, line, klen);
        k[klen] = '\0';
        int nf = ta_split(line, f, 16);
        /* 10: with the plain call's "ran", 11: and "watched" */
        if (nf < 9 || nf > 11) {
            fprintf(stderr, "papc-tune: %s: not a papc-bench trace line\n",
                    path);
            return -1;
        }
        if (strcmp(k, key)) {
            if (row && P > 1 && delay > 0)
                ta_trace_point(s, prof, row, P, bytes, one_late, delay, a,
                               fin);
            memcpy(key, k, klen + 1);
            row = ta_row(f[0], f[1]);
            bytes = strtod(f[2], NULL) * sizeof(float);
            one_late = !strcmp(f[3], "one-late");
            delay = strtod(f[4], NULL);
            P = 0;
        }
        int r = atoi(f[6]);
        if (r < 0 || r >= TA_MAX_P) {
            fprintf(stderr, "papc-tune: %s: rank %d out of range\n", path, r);
            return -1;
        }
        a[r] = strtod(f[7], NULL);
        fin[r] = strtod(f[8], NULL);
        if (r + 1 > P) P = r + 1;
    }
    if (row && P > 1 && delay > 0)
        ta_trace_point(s, prof, row, P, bytes, one_late, delay, a, fin);
    return 0;
}

/* The model ē of a summary row: one-late exact, rand-late averaged over
 * the measured iterations' delays. */
static int ta_summary_model(const papc_profile *prof, const papc_alg_desc *row,
                            int P, double bytes, int one_late, double delay,
                            const char *cmd, double *e, double *t0,
                            double *w) {
    double off[TA_MAX_P];
    if (one_late) {
        for (int r = 0; r < P; r++) off[r] = r == 1 ? delay * 1e-3 : 0;
        return ta_model(prof, row, P, bytes, off, e, t0, w);
    }
    int iters = (int)ta_flag(cmd, "-i", 20), warm = (int)ta_flag(cmd, "-x", 2);
    unsigned long long seed = (unsigned long long)ta_flag(cmd, "--seed", 1);
    double sum = 0, wsum = 0;
    for (int it = warm; it < warm + iters; it++) {
        double lo = INFINITY, one, wone;
        for (int r = 0; r < P; r++) {
            off[r] = ta_bench_delay(seed, it, r, delay * 1e-3);
            lo = off[r] < lo ? off[r] : lo;
        }
        for (int r = 0; r < P; r++) off[r] -= lo;
        if (!ta_model(prof, row, P, bytes, off, &one, t0, &wone)) return 0;
        sum += one;
        wsum += wone;
    }
    *e = sum / iters;
    *w = wsum / iters;   /* ē and w are means alike */
    return iters > 0;
}

static int ta_read_summary(FILE *in, const char *path,
                           const papc_profile *prof, char *header,
                           const char *cmd, ta_set *s) {
    char *h[32], line[1024], *f[32];
    int nh = ta_split(header, h, 32);
    int ic = ta_column(h, nh, "coll"), ia = ta_column(h, nh, "algorithm"),
        ip = ta_column(h, nh, "P"), ib = ta_column(h, nh, "bytes"),
        im = ta_column(h, nh, "mode"), id = ta_column(h, nh, "max_delay_ms"),
        ie = ta_column(h, nh, "e_mean_ms"), icount = ta_column(h, nh, "count");
    if (ic < 0 || ia < 0 || ip < 0 || ib < 0 || im < 0 || id < 0 || ie < 0 ||
        icount < 0) {
        fprintf(stderr, "papc-tune: %s: not a papc-bench --csv or --trace "
                "file\n", path);
        return -1;
    }
    while (fgets(line, sizeof line, in)) {
        if (line[0] == '#') continue;
        if (ta_split(line, f, 32) < nh) continue;
        const papc_alg_desc *row = ta_row(f[ic], f[ia]);
        double delay = strtod(f[id], NULL);
        int P = atoi(f[ip]);
        if (!row || delay <= 0 || P < 2 || P > TA_MAX_P) continue;
        /* papc_call_bytes: the block for gather/scatter, the vector else */
        double bytes = strtod(f[icount], NULL) * sizeof(float);
        ta_point p = {row, P, bytes, !strcmp(f[im], "one-late"), delay,
                      strtod(f[ie], NULL) * 1e-3, 0, 0, 0};
        if (p.e > 0 && ta_summary_model(prof, row, P, bytes, p.one_late,
                                        delay, cmd, &p.model, &p.t0, &p.w))
            ta_add(s, p);
        else
            s->skipped++;
    }
    return 0;
}

/* Reads one papc-bench file of either kind into s. */
static int ta_read_file(const char *path, const papc_profile *prof,
                        ta_set *s) {
    FILE *in = fopen(path, "r");
    if (!in) {
        fprintf(stderr, "papc-tune: %s: cannot open: %s\n", path,
                strerror(errno));
        return -1;
    }
    char line[4096], cmd[4096] = "";
    int rc = -1, header = 0;
    while (fgets(line, sizeof line, in)) {
        if (!strncmp(line, "# command:", 10)) {
            snprintf(cmd, sizeof cmd, "%s", line + 10);
            cmd[strcspn(cmd, "\r\n")] = '\0';
            strcat(cmd, " ");
        }
        if (line[0] == '#') continue;
        header = 1;
        if (!strncmp(line, "coll,algorithm,count,mode,max_delay_ms,iteration,",
                     49))
            rc = ta_read_trace(in, path, prof, s);
        else
            rc = ta_read_summary(in, path, prof, line, cmd, s);
        break;
    }
    if (!header)
        fprintf(stderr, "papc-tune: %s: no papc-bench header\n", path);
    fclose(in);
    return rc;
}

static int ta_same_row(const ta_point *a, const ta_point *b) {
    return a->row == b->row && a->P == b->P;
}

/* Is point q in the group of (row, P) of first, at bytes (< 0: any)? */
static int ta_in_group(const ta_point *q, const ta_point *first,
                       double bytes) {
    return ta_same_row(q, first) && (bytes < 0 || q->bytes == bytes);
}

/* Median of |log(e / pred)| over the group's points: the typical error. */
static double ta_median_err(const ta_set *s, const ta_point *first,
                            double bytes, const papc_profile_arrival *k) {
    double *v = malloc((size_t)s->n * sizeof *v);
    int n = 0;
    for (int i = 0; v && i < s->n; i++)
        if (ta_in_group(&s->pt[i], first, bytes))
            v[n++] = fabs(log(s->pt[i].e /
                              papc_arrival_corrected(k, s->pt[i].model,
                                                     s->pt[i].t0,
                                                     s->pt[i].w)));
    double m = NAN;
    if (n) {
        for (int i = 1; i < n; i++)  /* insertion sort: n is small */
            for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
                double t = v[j]; v[j] = v[j - 1]; v[j - 1] = t;
            }
        m = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    }
    free(v);
    return m;
}

/* Puts k into prof, replacing an entry of the same (collective, name, p)
 * and byte range. */
static int ta_store(papc_profile *prof, const papc_profile_arrival *k) {
    for (int i = 0; i < prof->narrival; i++) {
        papc_profile_arrival *o = &prof->arrival[i];
        if (!strcmp(o->collective, k->collective) &&
            !strcmp(o->name, k->name) && o->p == k->p &&
            o->bytes_min == k->bytes_min && o->bytes_max == k->bytes_max) {
            *o = *k;
            return 0;
        }
    }
    if (prof->narrival >= PAPC_PROFILE_MAX_ARRIVAL) return -1;
    prof->arrival[prof->narrival++] = *k;
    return 0;
}

/* Fits one group -- the (row, P) of first at bytes, or at every size when
 * bytes < 0 -- for calls of lo..hi bytes (both 0: every size; hi 0: no
 * upper bound), stores it in prof and prints its line.  m: scratch of
 * 4 (s->n + 1) doubles.  Returns 1 when stored. */
static int ta_fit_group(const ta_set *s, papc_profile *prof, double *m,
                        int anchored, const ta_point *first, double bytes,
                        double lo, double hi) {
    int n = 0, w = s->n + 1;
    for (int j = 0; j < s->n; j++)
        if (ta_in_group(&s->pt[j], first, bytes)) {
            m[n] = s->pt[j].model;
            m[w + n] = s->pt[j].t0;
            m[2 * w + n] = s->pt[j].e;
            m[3 * w + n] = s->pt[j].w;
            n++;
        }
    papc_profile_arrival k;
    memset(&k, 0, sizeof k);
    snprintf(k.collective, sizeof k.collective, "%s",
             papc_collective_name(first->row->info.collective));
    snprintf(k.name, sizeof k.name, "%s", first->row->info.name);
    k.p = first->P;
    k.bytes_min = lo;
    k.bytes_max = hi;
    int ok = n >= TA_MIN_POINTS &&
             papc_arrival_fit(n, m, m + w, anchored ? m + 3 * w : NULL,
                              m + 2 * w, &k) == 0;
    int stored = ok && ta_store(prof, &k) == 0;
    char size[32] = "every";
    if (bytes >= 0) snprintf(size, sizeof size, "%.0f", bytes);
    if (ok)
        fprintf(stderr, "papc-tune: %-9s %-32s %3d %9s %4d %7.3f %7.3f "
                "%6.3f %8.1f%% %8.1f%%\n", k.collective, k.name, k.p, size,
                n, k.a, k.c, k.rel,
                100 * expm1(ta_median_err(s, first, bytes, NULL)),
                100 * expm1(ta_median_err(s, first, bytes, &k)));
    else
        fprintf(stderr, "papc-tune: %-9s %-32s %3d %9s %4d no fit (%s)\n",
                k.collective, k.name, k.p, size, n,
                n < TA_MIN_POINTS ? "too few points"
                                  : "model and t0 proportional");
    return stored;
}

/* Drops prof's corrections by size of (row, P) of first: a refit replaces
 * the row's corrections, and sizes fitted before would shadow it. */
static void ta_drop_sized(papc_profile *prof, const ta_point *first) {
    const char *coll = papc_collective_name(first->row->info.collective);
    int n = 0;
    for (int i = 0; i < prof->narrival; i++) {
        const papc_profile_arrival *o = &prof->arrival[i];
        if (!strcmp(o->collective, coll) &&
            !strcmp(o->name, first->row->info.name) && o->p == first->P &&
            papc_arrival_sized(o))
            continue;
        prof->arrival[n++] = *o;
    }
    prof->narrival = n;
}

static int ta_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Fits every (row, P) of s into prof: its correction for every size, and
 * with per_size also one per size the files hold (when they hold two or
 * more), each for the calls nearer its size than the next one's on a log
 * scale (boundaries at the geometric means), so that every size has the
 * correction of the size nearest it.  Prints one line per fit; csv (NULL:
 * none) gets every point with the correction the plain call would use.
 * Returns the number of corrections stored. */
static int ta_fit_all(const ta_set *s, papc_profile *prof, FILE *csv,
                      int anchored, int per_size) {
    int stored = 0;
    char *done = calloc((size_t)s->n + 1, 1);
    double *m = malloc(4 * ((size_t)s->n + 1) * sizeof *m);
    double *sizes = malloc(((size_t)s->n + 1) * sizeof *sizes);
    if (!done || !m || !sizes) {
        free(done);
        free(m);
        free(sizes);
        return -1;
    }
    fprintf(stderr, "papc-tune: %-9s %-32s %3s %9s %4s %7s %7s %6s %9s "
            "%9s\n", "coll", "algorithm", "P", "bytes", "n", "a", "c", "rel",
            "err model", "err fit");
    for (int i = 0; i < s->n; i++) {
        if (done[i]) continue;
        const ta_point *first = &s->pt[i];
        int ns = 0;
        for (int j = i; j < s->n; j++)
            if (!done[j] && ta_same_row(&s->pt[j], first)) {
                done[j] = 1;
                int seen = 0;
                for (int q = 0; q < ns; q++) seen |= sizes[q] == s->pt[j].bytes;
                if (!seen) sizes[ns++] = s->pt[j].bytes;
            }
        ta_drop_sized(prof, first);
        stored += ta_fit_group(s, prof, m, anchored, first, -1, 0, 0);
        if (!per_size || ns < 2) continue;
        qsort(sizes, (size_t)ns, sizeof *sizes, ta_cmp_double);
        for (int q = 0; q < ns; q++) {
            double lo = q ? floor(sqrt(sizes[q - 1] * sizes[q])) + 1 : 0;
            double hi = q + 1 < ns ? floor(sqrt(sizes[q] * sizes[q + 1])) : 0;
            stored += ta_fit_group(s, prof, m, anchored, first, sizes[q],
                                   lo, hi);
        }
    }
    for (int j = 0; csv && j < s->n; j++) {
        const ta_point *q = &s->pt[j];
        const char *coll = papc_collective_name(q->row->info.collective);
        const papc_profile_arrival *k = papc_profile_find_arrival(
            prof, coll, q->row->info.name, q->P,
            (double)papc_select_class_bytes((size_t)q->bytes));
        if (!k) continue;
        fprintf(csv, "%s,%s,%d,%.0f,%s,%g,%.6g,%.6g,%.6g,%.6g\n", coll,
                q->row->info.name, q->P, q->bytes,
                q->one_late ? "one-late" : "rand-late", q->delay_ms,
                q->e * 1e3, q->model * 1e3, q->t0 * 1e3,
                papc_arrival_corrected(k, q->model, q->t0, q->w) * 1e3);
    }
    free(done);
    free(m);
    free(sizes);
    return stored;
}

/* ---- --arrival-check: how the profile's corrections choose ----
 * Per setting (collective, P, bytes, mode, delay) of the files: every row's
 * measured ē and its corrected prediction at the measured offsets (means
 * over the setting's points), the row the prediction picks (the plain
 * call's rule, papc_arrival_pick: an arrival-aware row must beat the best
 * classic one by the margin of ē above the mean wait no row avoids) and its measured ē against the best row's.
 * The choice with exact offsets: the plain call's own views add their
 * errors (docs/arrival.md).  Returns the settings checked; *within: how
 * many of them the pick is within 5 % of the best row. */
static int ta_same_setting(const ta_point *a, const ta_point *b) {
    return a->row->info.collective == b->row->info.collective &&
           a->P == b->P && a->bytes == b->bytes &&
           a->one_late == b->one_late && a->delay_ms == b->delay_ms;
}

/* csv (NULL: none): every point of the checked settings, for the offline
 * study of an online policy (scripts/learn-policy-sim.py): its row, the
 * iteration (order in the files per setting and row), the measured ē, the
 * profile's corrected model at the measured arrivals, the wait no row
 * avoids (seconds). */
#define TA_CHECK_CSV_HEADER                                                   \
    "collective,P,bytes,mode,delay_ms,row,aware,iteration,e_s,pred_s,wait_s\n"
static int ta_check(const ta_set *s, const papc_profile *prof, int *within,
                    FILE *csv) {
    int settings = 0;
    *within = 0;
    char *done = calloc((size_t)s->n + 1, 1);
    const papc_alg_desc **rows = malloc(((size_t)s->n + 1) * sizeof *rows);
    double *acc = malloc(3 * ((size_t)s->n + 1) * sizeof *acc);
    papc_arrival_candidate *cand = malloc(((size_t)s->n + 1) * sizeof *cand);
    if (!done || !rows || !acc || !cand) {
        free(done); free(rows); free(acc); free(cand);
        return -1;
    }
    for (int i = 0; i < s->n; i++) {
        if (done[i]) continue;
        const ta_point *first = &s->pt[i];
        int nr = 0, waits = 0;
        double wait = 0;
        double *e = acc, *pred = acc + s->n + 1, *cnt = acc + 2 * (s->n + 1);
        for (int j = i; j < s->n; j++) {
            const ta_point *q = &s->pt[j];
            if (done[j] || !ta_same_setting(q, first)) continue;
            done[j] = 1;
            int r = 0;
            while (r < nr && rows[r] != q->row) r++;
            if (r == nr) {
                rows[nr] = q->row;
                e[nr] = pred[nr] = cnt[nr] = 0;
                nr++;
            }
            const papc_profile_arrival *k = papc_profile_find_arrival(
                prof, papc_collective_name(q->row->info.collective),
                q->row->info.name, q->P,
                (double)papc_select_class_bytes((size_t)q->bytes));
            double corrected = papc_arrival_corrected(k, q->model, q->t0,
                                                      q->w);
            if (csv)
                fprintf(csv, "%s,%d,%.0f,%s,%g,%s,%d,%.0f,%.6g,%.6g,%.6g\n",
                        papc_collective_name(q->row->info.collective), q->P,
                        q->bytes, q->one_late ? "one-late" : "rand-late",
                        q->delay_ms, q->row->info.name,
                        (q->row->info.flags & PAPC_FLAG_ARRIVAL_AWARE) != 0,
                        cnt[r], q->e, corrected, q->w);
            e[r] += q->e;
            pred[r] += corrected;
            cnt[r] += 1;
            wait += q->w;
            waits++;
        }
        int best = 0, base = -1;
        for (int r = 0; r < nr; r++) {
            e[r] /= cnt[r];
            pred[r] /= cnt[r];
            if (e[r] < e[best]) best = r;
            int aware = (rows[r]->info.flags & PAPC_FLAG_ARRIVAL_AWARE) != 0;
            cand[r] = (papc_arrival_candidate){aware, first->t0, pred[r]};
            if (!aware && (base < 0 || pred[r] < pred[base])) base = r;
        }
        if (base < 0) base = 0;
        int pick = papc_arrival_pick(cand, nr, base, INFINITY,
                                     waits ? wait / waits : 0);
        settings++;
        int ok = e[pick] <= 1.05 * e[best];
        *within += ok;
        printf("%-9s P=%-4d %9.0f B %-9s %5g ms: best %-28s %8.2f | pick "
               "%-28s %8.2f (%.3f)%s\n",
               papc_collective_name(first->row->info.collective), first->P,
               first->bytes, first->one_late ? "one-late" : "rand-late",
               first->delay_ms, rows[best]->info.name, e[best] * 1e3,
               rows[pick]->info.name, e[pick] * 1e3, e[pick] / e[best],
               ok ? "" : "  MISS");
    }
    free(done); free(rows); free(acc); free(cand);
    return settings;
}

#endif
