/*
 * report.c — the straggler view (PAPC_REPORT=<file>).
 *
 * Every call site is accounted at its decider (the root, or rank 0 for
 * allreduce), which sees every rank's arrival notice in its own clock: per
 * site the number of calls it decided, the algorithm(s) that ran (the
 * name dispatch recorded, read at the decider's next call), the absolute
 * error of each predictor's latest prediction against the actual arrival
 * (progress: papc_progress; history: the call-site predictor), and which
 * rank arrived last, per call whose arrivals were all seen.  At finalize
 * every rank formats its own sites; rank 0 gathers the text and writes it
 * to <file>, plus one CSV line per site to <file>.csv.
 *
 * The traffic counters (PAPC_ARRIVAL_STATS=1: on stderr at rank 0; any
 * other value but 0: the file of that name): what every process sent,
 * per kind, summed over the ranks at finalize, per arrival-aware call and
 * the largest per rank -- so the fan-out of the estimates (exchange.c,
 * "who receives an estimate") can be measured at any P, natively or in
 * simulation.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static arr_epoch_rec *find_rec(int epoch) {
    for (arr_epoch_rec *r = papc_mon.recs; r; r = r->next)
        if (r->epoch == epoch) return r;
    return NULL;
}

static void drop_rec(arr_epoch_rec *rec) {
    for (arr_epoch_rec **p = &papc_mon.recs; *p; p = &(*p)->next)
        if (*p == rec) {
            *p = rec->next;
            free(rec);
            return;
        }
}

void papc_arr_rec_open(int epoch, int site) {
    /* Records of epochs long gone never completed (a notice was lost to
     * the window): drop them. */
    for (arr_epoch_rec **p = &papc_mon.recs; *p;) {
        if ((*p)->epoch < epoch - ARR_WINDOW) {
            arr_epoch_rec *r = *p;
            *p = r->next;
            free(r);
        } else {
            p = &(*p)->next;
        }
    }
    arr_epoch_rec *rec = calloc(1, sizeof *rec);
    if (!rec) return;
    rec->epoch = epoch;
    rec->site = site;
    rec->last_rank = -1;
    rec->last_time = -INFINITY;
    rec->next = papc_mon.recs;
    papc_mon.recs = rec;
    papc_mon.sites[site].calls++;
    for (int r = 0; r < papc_mon.size; r++) {
        arr_slot *s = papc_arr_slot(r, epoch, 0);
        if (s && !isnan(s->arrived)) papc_arr_rec_arrival(r, epoch, s->arrived);
    }
}

void papc_arr_rec_arrival(int rank, int epoch, double t) {
    arr_epoch_rec *rec = find_rec(epoch);
    arr_slot *s = papc_arr_slot(rank, epoch, 0);
    if (!rec || !s || s->accounted) return;
    s->accounted = 1;
    arr_site *site = &papc_mon.sites[rec->site];
    if (rank != papc_mon.rank)
        for (int p = 0; p < ERR_N; p++) {
            double v = p < PRED_N ? s->pred[p] : s->decided;
            if (!isnan(v)) {
                double e = fabs(t - v);
                site->err_sum[p] += e;
                if (e > site->err_max[p]) site->err_max[p] = e;
                site->err_n[p]++;
            }
        }
    if (t >= rec->last_time) {
        rec->last_time = t;
        rec->last_rank = rank;
    }
    if (++rec->seen == papc_mon.size) {
        site->last[rec->last_rank]++;
        site->complete++;
        drop_rec(rec);
    }
}

void papc_arr_note_algorithm(int s, const char *name) {
    if (s < 0 || s >= papc_mon.nsites || !name) return;
    papc_tr_lock();
    arr_site *site = &papc_mon.sites[s];
    for (int i = 0; i < 4; i++) {
        if (site->algs[i] && !strcmp(site->algs[i], name)) break;
        if (!site->algs[i]) {
            site->algs[i] = name;
            break;
        }
    }
    papc_tr_unlock();
}

void papc_arr_free_recs(void) {
    while (papc_mon.recs) {
        arr_epoch_rec *r = papc_mon.recs;
        papc_mon.recs = r->next;
        free(r);
    }
}

/* ---- traffic counters ---- */

void papc_arr_count(int kind, long long bytes) {
    if (kind < 0 || kind >= STAT_N) return;
    atomic_fetch_add_explicit(&papc_mon.sent_msgs[kind], 1,
                              memory_order_relaxed);
    atomic_fetch_add_explicit(&papc_mon.sent_bytes[kind], bytes,
                              memory_order_relaxed);
}

void papc_arr_count_reset(void) {
    for (int k = 0; k < STAT_N; k++) {
        atomic_store(&papc_mon.sent_msgs[k], 0);
        atomic_store(&papc_mon.sent_bytes[k], 0);
    }
    atomic_store(&papc_mon.estimates, 0);
    atomic_store(&papc_mon.thread_cpu_us, 0);
    for (int k = 0; k < 2; k++) {
        atomic_store(&papc_mon.picks[k], 0);
        atomic_store(&papc_mon.pick_cpu_ns[k], 0);
    }
}

static const char *stat_name[STAT_N] = {"estimate", "notice", "decision",
                                        "background", "fin"};

/* Sums (and maxima over the ranks) of the counters at rank 0, printed
 * there.  Collective over comm; rank 0's PAPC_ARRIVAL_STATS decides. */
static int stats_report(MPI_Comm comm) {
    const char *where = papc_mon.rank == 0 ? getenv("PAPC_ARRIVAL_STATS")
                                           : NULL;
    int want = where && *where && strcmp(where, "0") != 0;
    PAPC_CHECK(PMPI_Bcast(&want, 1, MPI_INT, 0, comm));
    if (!want) return MPI_SUCCESS;
    enum { NV = 2 * STAT_N + 6 };
    long long mine[NV], sum[NV], max[NV];
    for (int k = 0; k < STAT_N; k++) {
        mine[k] = atomic_load(&papc_mon.sent_msgs[k]);
        mine[STAT_N + k] = atomic_load(&papc_mon.sent_bytes[k]);
    }
    mine[2 * STAT_N] = atomic_load(&papc_mon.estimates);
    mine[2 * STAT_N + 1] = atomic_load(&papc_mon.thread_cpu_us);
    for (int k = 0; k < 2; k++) {
        mine[2 * STAT_N + 2 + k] = atomic_load(&papc_mon.picks[k]);
        mine[2 * STAT_N + 4 + k] = atomic_load(&papc_mon.pick_cpu_ns[k]);
    }
    PAPC_CHECK(PMPI_Reduce(mine, sum, NV, MPI_LONG_LONG, MPI_SUM, 0, comm));
    PAPC_CHECK(PMPI_Reduce(mine, max, NV, MPI_LONG_LONG, MPI_MAX, 0, comm));
    if (papc_mon.rank != 0) return MPI_SUCCESS;
    FILE *f = strcmp(where, "1") == 0 ? stderr : fopen(where, "w");
    if (!f)
        return papc_error(MPI_ERR_FILE, "cannot write PAPC_ARRIVAL_STATS %s",
                          where);
    double calls = papc_mon.epoch_next > 0 ? papc_mon.epoch_next : 1;
    fprintf(f, "papcoll arrival stats: P=%d calls=%d estimates=%lld "
            "(sent by all ranks; start-up not counted; total without fin)\n",
            papc_mon.size, papc_mon.epoch_next, sum[2 * STAT_N]);
    fprintf(f, "%-10s %12s %14s %12s %14s %14s\n", "kind", "messages",
            "bytes", "msgs/call", "bytes/call", "max_msgs/rank");
    long long tm = 0, tb = 0;
    for (int k = 0; k < STAT_N; k++) {
        fprintf(f, "%-10s %12lld %14lld %12.2f %14.1f %14lld\n",
                stat_name[k], sum[k], sum[STAT_N + k], sum[k] / calls,
                sum[STAT_N + k] / calls, max[k]);
        if (k != STAT_FIN) {
            tm += sum[k];
            tb += sum[STAT_N + k];
        }
    }
    fprintf(f, "%-10s %12lld %14lld %12.2f %14.1f %14s\n", "total", tm, tb,
            tm / calls, tb / calls, "-");
    fprintf(f, "monitor CPU: %.3f s over the ranks, %.3f s at most on one "
            "(0 in simulation)\n", 1e-6 * (double)sum[2 * STAT_N + 1],
            1e-6 * (double)max[2 * STAT_N + 1]);
    /* the plain call's choice, CPU per call averaged over the ranks */
    long long *picks = sum + 2 * STAT_N + 2, *ns = sum + 2 * STAT_N + 4;
    fprintf(f, "plain-call choice: %lld priced, %lld reused from the same "
            "view (over the ranks); CPU %.1f us per priced, %.1f us per "
            "reused (0 in simulation)\n", picks[0], picks[1],
            picks[0] ? 1e-3 * (double)ns[0] / (double)picks[0] : 0.0,
            picks[1] ? 1e-3 * (double)ns[1] / (double)picks[1] : 0.0);
    if (f != stderr) fclose(f);
    return MPI_SUCCESS;
}

/* ---- formatting ---- */

typedef struct strbuf {
    char *s;
    size_t n, cap;
} strbuf;

static void sb_printf(strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void sb_printf(strbuf *b, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->n : NULL,
                          b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) return;
        if (b->s && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = (b->cap ? b->cap * 2 : 1024) + (size_t)k;
        char *s = realloc(b->s, cap);
        if (!s) return;
        b->s = s;
        b->cap = cap;
    }
}

static const char *pred_name[ERR_N] = {"progress", "history", "decision"};

static void algs_text(const arr_site *s, char *out, size_t n) {
    out[0] = 0;
    for (int i = 0; i < 4 && s->algs[i]; i++) {
        if (i) strncat(out, "+", n - strlen(out) - 1);
        strncat(out, s->algs[i], n - strlen(out) - 1);
    }
    if (!out[0]) snprintf(out, n, "?");
}

/* The ranks that arrived last most often, up to 5, most often first. */
static void last_text(const arr_site *s, strbuf *b, const char *sep,
                      int human) {
    int shown = 0;
    int *used = calloc((size_t)s->size, sizeof *used);
    if (!used) return;
    for (int k = 0; k < 5; k++) {
        int best = -1;
        for (int r = 0; r < s->size; r++)
            if (!used[r] && s->last[r] > 0 &&
                (best < 0 || s->last[r] > s->last[best]))
                best = r;
        if (best < 0) break;
        used[best] = 1;
        if (human)
            sb_printf(b, "%srank %d (%d)", shown ? sep : "", best,
                      s->last[best]);
        else
            sb_printf(b, "%s%d:%d", shown ? sep : "", best, s->last[best]);
        shown++;
    }
    if (!shown && human) sb_printf(b, "-");
    free(used);
}

static void format_sites(strbuf *txt, strbuf *csv) {
    for (int i = 0; i < papc_mon.nsites; i++) {
        arr_site *s = &papc_mon.sites[i];
        if (s->calls == 0) continue;
        char algs[256];
        algs_text(s, algs, sizeof algs);
        const char *cname = papc_collective_name((papc_collective)s->coll);
        sb_printf(txt, "%s root=%d bytes=%lld P=%d", cname, s->root,
                  s->bytes, s->size);
        if (s->tag) sb_printf(txt, " tag=%d", s->tag);
        sb_printf(txt, " (decided at rank %d)\n", papc_mon.rank);
        sb_printf(txt, "  calls: %ld   algorithm: %s\n", s->calls, algs);
        sb_printf(txt, "  arrival prediction error:");
        for (int p = 0; p < ERR_N; p++) {
            if (s->err_n[p])
                sb_printf(txt, " %s mean %.3f ms max %.3f ms (n=%ld)%s",
                          pred_name[p], 1e3 * s->err_sum[p] / (double)s->err_n[p],
                          1e3 * s->err_max[p], s->err_n[p],
                          p + 1 < ERR_N ? ";" : "");
            else
                sb_printf(txt, " %s -%s", pred_name[p],
                          p + 1 < ERR_N ? ";" : "");
        }
        sb_printf(txt, "\n  arrived last most often (of %ld calls fully "
                  "seen): ", s->complete);
        last_text(s, txt, ", ", 1);
        sb_printf(txt, "\n\n");
        sb_printf(csv, "%s,%d,%lld,%d,%d,%ld,%s", cname, s->root, s->bytes,
                  s->size, papc_mon.rank, s->calls, algs);
        for (int p = 0; p < ERR_N; p++)
            sb_printf(csv, ",%ld,%.6f,%.6f", s->err_n[p],
                      s->err_n[p] ? 1e3 * s->err_sum[p] / (double)s->err_n[p] : 0.0,
                      1e3 * s->err_max[p]);
        sb_printf(csv, ",%ld,", s->complete);
        last_text(s, csv, ";", 0);
        sb_printf(csv, "\n");
    }
}

/* Gathers every rank's text to rank 0 (collective over comm). */
static int gather_text(const strbuf *b, MPI_Comm comm, char **all, int *len) {
    int n = (int)b->n, size = papc_mon.size, rank = papc_mon.rank;
    int *counts = NULL, *displs = NULL;
    *all = NULL;
    *len = 0;
    if (rank == 0) {
        counts = malloc((size_t)size * sizeof *counts);
        displs = malloc((size_t)size * sizeof *displs);
    }
    int ok = rank != 0 || (counts && displs);
    PMPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (!ok) {
        free(counts);
        free(displs);
        return papc_error(MPI_ERR_NO_MEM, "report");
    }
    PMPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    if (rank == 0) {
        for (int r = 0; r < size; r++) {
            displs[r] = *len;
            *len += counts[r];
        }
        *all = malloc((size_t)*len + 1);
    }
    PMPI_Gatherv(b->s ? b->s : "", n, MPI_CHAR, *all, counts, displs,
                MPI_CHAR, 0, comm);
    if (*all) (*all)[*len] = 0;
    free(counts);
    free(displs);
    return MPI_SUCCESS;
}

int papc_arr_report(void) {
    /* A stats file rank 0 cannot write must not skip the collective
     * steps below: its error is returned at the end. */
    int stats_rc = stats_report(papc_mon.ctl);
    const char *file = papc_mon.rank == 0 ? getenv("PAPC_REPORT") : NULL;
    int want = file && *file;
    PMPI_Bcast(&want, 1, MPI_INT, 0, papc_mon.ctl);
    if (!want) return stats_rc;
    strbuf txt = {0}, csv = {0};
    format_sites(&txt, &csv);
    char *t = NULL, *c = NULL;
    int tn = 0, cn = 0;
    int rc = gather_text(&txt, papc_mon.ctl, &t, &tn);
    if (rc == MPI_SUCCESS) rc = gather_text(&csv, papc_mon.ctl, &c, &cn);
    if (rc == MPI_SUCCESS && papc_mon.rank == 0) {
        FILE *f = fopen(file, "w");
        char cname[4096];
        snprintf(cname, sizeof cname, "%s.csv", file);
        FILE *g = fopen(cname, "w");
        if (f) {
            fprintf(f, "papcoll straggler view: %d processes, %d arrival-aware "
                    "calls on the monitor's communicator\n"
                    "(errors: |predicted - actual| arrival at the decider, in "
                    "its own clock)\n\n", papc_mon.size, papc_mon.epoch_next);
            if (tn) fputs(t, f);
            else fputs("no arrival-aware calls\n", f);
            fclose(f);
        }
        if (g) {
            fputs("collective,root,bytes,P,decider,calls,algorithms,"
                  "progress_n,progress_mean_ms,progress_max_ms,history_n,"
                  "history_mean_ms,history_max_ms,decision_n,"
                  "decision_mean_ms,decision_max_ms,complete,last_rank:count\n",
                  g);
            if (cn) fputs(c, g);
            fclose(g);
        }
        if (!f || !g)
            rc = papc_error(MPI_ERR_FILE, "cannot write PAPC_REPORT %s", file);
    }
    free(t);
    free(c);
    free(txt.s);
    free(csv.s);
    return rc != MPI_SUCCESS ? rc : stats_rc;
}
