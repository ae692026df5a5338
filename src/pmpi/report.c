/*
 * report.c — the drop-in layer's finalize report (PAPC_REPORT=<file>,
 * issue 13 item 5, in the manner of mpiP).
 *
 * On only when PAPC_REPORT is set and not empty at MPI_Init (one flag,
 * papc_pmpi_report_on, read once per call by the C entry points; off, the
 * layer does nothing more).  On, each intercepted C call records:
 *
 *   - its site: the collective and the return address of the program's
 *     MPI_* call, symbolized with dladdr as "function+0xoff (object)", or
 *     "object+0xoff" when the symbol is not exported (a program not linked
 *     with -rdynamic).  Sites are matched across ranks by this text and
 *     the collective, never by the raw address (address-space
 *     randomization).  At finalize rank 0 adds, for its own sites, the
 *     function and file:line from `addr2line` (when installed and the
 *     object has debug information);
 *   - bytes per call: this rank's send payload + receive payload as the
 *     arguments describe them (count x type size; a rooted call's root
 *     counts the P blocks; MPI_IN_PLACE counts no send);
 *   - the algorithm: papc_last_algorithm(), or "MPI" when papcoll did not
 *     start the call (handed to PMPI_*);
 *   - time in the call (MPI_Wtime around it);
 *   - the enter time, on a common time base: MPI_Wtime when
 *     MPI_WTIME_IS_GLOBAL is set, otherwise MPI_Wtime + an offset to
 *     rank 0 estimated once at MPI_Init by a ping-pong (PMPI_ only, 8
 *     rounds per rank, the offset of the round with the smallest
 *     round-trip).
 *
 * Memory is bounded: at most PAPC_REP_SITES sites per rank (calls of
 * further sites are counted in a site "(other sites)"), and per site a
 * ring of the last PAPC_REP_RING enter times.  At MPI_Finalize (before
 * PMPI_Finalize) every rank packs its sites and rank 0 gathers them
 * (PMPI_Gather/Gatherv on a duplicate of MPI_COMM_WORLD made at init).
 * Per site rank 0 writes: calls (per rank; "mismatch" when the ranks that
 * reached the site did not all call it as often, or not every rank of
 * MPI_COMM_WORLD reached it), bytes per call (mean over ranks), the
 * algorithm(s), the time in the call (mean over ranks and calls, and the
 * maximum of any rank's call), the arrival spread — per call index i
 * within the site, max over ranks of the i-th enter time minus min over
 * ranks, for the indices every rank that reached the site still holds in
 * its ring — mean and max, and the ranks that entered last most often.
 * Text to <file>, CSV to <file>.csv.  The monitor's straggler view, when
 * the monitor runs, goes to <file>.stragglers (and .stragglers.csv): the
 * layer sets PAPC_REPORT to that name in the process at MPI_Init.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <papcoll.h>
#include "pmpi.h"

#define PAPC_REP_SITES 256
#define PAPC_REP_RING 4096
#define NAME_N 192
#define ALGS_N 96

int papc_pmpi_report_on;

typedef struct rep_site {
    void *ra;
    int coll;
    long calls;
    double bytes, tsum, tmax;
    const char *algs[4];
    double *ring; /* PAPC_REP_RING enter times, call i at i % RING */
} rep_site;

static rep_site sites[PAPC_REP_SITES + 1]; /* the last: "(other sites)" */
static int nsites, last_hit = -1;
static char report_file[4096];
static double clock_offset; /* add to MPI_Wtime: rank 0's time base */
static int wtime_global;
static MPI_Comm rep_comm = MPI_COMM_NULL;
/* Programs may call collectives from several threads (MPI_THREAD_MULTIPLE). */
static pthread_mutex_t rep_mu = PTHREAD_MUTEX_INITIALIZER;

/* ---- at MPI_Init ---- */

static void estimate_offsets(void) {
    int rank, size, flag = 0, *g = NULL;
    PMPI_Comm_rank(rep_comm, &rank);
    PMPI_Comm_size(rep_comm, &size);
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &g, &flag);
    wtime_global = flag && g && *g;
    PMPI_Bcast(&wtime_global, 1, MPI_INT, 0, rep_comm); /* rank 0 decides */
    if (wtime_global) return;
    const int rounds = 8;
    for (int r = 1; r < size; r++) {
        if (rank == 0) {
            for (int k = 0; k < rounds; k++) {
                double t;
                PMPI_Recv(&t, 1, MPI_DOUBLE, r, 1, rep_comm,
                          MPI_STATUS_IGNORE);
                t = PMPI_Wtime();
                PMPI_Send(&t, 1, MPI_DOUBLE, r, 2, rep_comm);
            }
        } else if (rank == r) {
            double best_rtt = INFINITY;
            for (int k = 0; k < rounds; k++) {
                double t0 = PMPI_Wtime(), t;
                PMPI_Send(&t0, 1, MPI_DOUBLE, 0, 1, rep_comm);
                PMPI_Recv(&t, 1, MPI_DOUBLE, 0, 2, rep_comm,
                          MPI_STATUS_IGNORE);
                double t1 = PMPI_Wtime();
                if (t1 - t0 < best_rtt) {
                    best_rtt = t1 - t0;
                    clock_offset = t - 0.5 * (t0 + t1);
                }
            }
        }
    }
}

void papc_pmpi_report_init(void) {
    const char *f = getenv("PAPC_REPORT");
    if (!f || !*f || strlen(f) + 20 > sizeof report_file) return;
    snprintf(report_file, sizeof report_file, "%s", f);
    /* The monitor's straggler view: its own file of the family. */
    char st[sizeof report_file + 16];
    snprintf(st, sizeof st, "%s.stragglers", report_file);
    setenv("PAPC_REPORT", st, 1);
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &rep_comm) != MPI_SUCCESS) return;
    estimate_offsets();
    papc_pmpi_report_on = 1;
}

/* ---- per call ---- */

static int tsize(MPI_Datatype t) {
    int s = 0;
    if (t != MPI_DATATYPE_NULL) PMPI_Type_size(t, &s);
    return s;
}

double papc_pmpi_bytes(int coll, int root, MPI_Comm comm, const void *sbuf,
                       int scount, MPI_Datatype stype, const void *rbuf,
                       int rcount, MPI_Datatype rtype, const int *counts) {
    int rank = 0, size = 1, inter = 0;
    if (comm == MPI_COMM_NULL) return 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) return 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    double s = sbuf == MPI_IN_PLACE ? 0 : (double)scount * tsize(stype);
    double r = (double)rcount * tsize(rtype);
    switch (coll) {
    case PAPC_BCAST:
        return (double)scount * tsize(stype);
    case PAPC_GATHER:
        return s + (rank == root ? r * size : 0);
    case PAPC_GATHERV: {
        double sum = 0;
        if (rank == root && counts)
            for (int i = 0; i < size; i++) sum += counts[i];
        return s + sum * tsize(rtype);
    }
    case PAPC_SCATTER: /* the root sends P blocks of scount */
        return (rank == root ? (double)scount * tsize(stype) * size : 0) +
               (rbuf == MPI_IN_PLACE ? 0 : r);
    case PAPC_SCATTERV: {
        double sum = 0;
        if (rank == root && counts)
            for (int i = 0; i < size; i++) sum += counts[i];
        return sum * tsize(stype) + (rbuf == MPI_IN_PLACE ? 0 : r);
    }
    case PAPC_REDUCE:
        return s + (rank == root ? r : 0);
    default: /* allreduce */
        return s + r;
    }
}

static rep_site *find_site(void *ra, int coll) {
    if (last_hit >= 0 && sites[last_hit].ra == ra &&
        sites[last_hit].coll == coll)
        return &sites[last_hit];
    for (int i = 0; i < nsites; i++)
        if (sites[i].ra == ra && sites[i].coll == coll) {
            last_hit = i;
            return &sites[i];
        }
    if (nsites < PAPC_REP_SITES) {
        rep_site *s = &sites[nsites];
        s->ring = malloc(PAPC_REP_RING * sizeof *s->ring);
        if (s->ring) {
            s->ra = ra;
            s->coll = coll;
            last_hit = nsites++;
            return s;
        }
    }
    sites[PAPC_REP_SITES].coll = -1;
    return &sites[PAPC_REP_SITES];
}

void papc_pmpi_report_leave(void *ra, int coll, double t0, double bytes) {
    double t1 = PMPI_Wtime();
    const char *a = papc_last_call_started()
                        ? papc_last_algorithm((papc_collective)coll)
                        : "MPI";
    if (!a) a = "?";
    pthread_mutex_lock(&rep_mu);
    rep_site *s = find_site(ra, coll);
    if (s->ring) s->ring[s->calls % PAPC_REP_RING] = t0 + clock_offset;
    s->calls++;
    s->bytes += bytes;
    s->tsum += t1 - t0;
    if (t1 - t0 > s->tmax) s->tmax = t1 - t0;
    for (int i = 0; i < 4; i++) {
        if (s->algs[i] == a || (s->algs[i] && !strcmp(s->algs[i], a))) break;
        if (!s->algs[i]) {
            s->algs[i] = a;
            break;
        }
    }
    pthread_mutex_unlock(&rep_mu);
}

/* ---- at MPI_Finalize ---- */

typedef struct packed_site {
    char name[NAME_N];
    char algs[ALGS_N];
    int coll, nring;
    long calls;
    double bytes, tsum, tmax;
} packed_site;

static void site_name(const rep_site *s, char *out, size_t n) {
    if (s->coll < 0) {
        snprintf(out, n, "(other sites)");
        return;
    }
    Dl_info di;
    if (dladdr(s->ra, &di) && di.dli_fname) {
        const char *obj = strrchr(di.dli_fname, '/');
        obj = obj ? obj + 1 : di.dli_fname;
        if (!*obj) obj = "(program)";
        if (di.dli_sname && di.dli_saddr)
            snprintf(out, n, "%s+0x%lx (%s)", di.dli_sname,
                     (unsigned long)((char *)s->ra - (char *)di.dli_saddr),
                     obj);
        else
            snprintf(out, n, "%s+0x%lx", obj,
                     (unsigned long)((char *)s->ra - (char *)di.dli_fbase));
    } else {
        snprintf(out, n, "%p", s->ra);
    }
}

/* Source line of a site of rank 0's (by its name), with addr2line at
 * finalize, rank 0 only: "function file:line", or "" (no addr2line, no
 * debug information, or not a site of rank 0's). */
static void site_source(const char *name, int coll, char *out, size_t n) {
    out[0] = 0;
    for (int i = 0; i < nsites; i++) {
        char nm[NAME_N];
        if (sites[i].coll != coll) continue;
        site_name(&sites[i], nm, sizeof nm);
        if (strcmp(nm, name)) continue;
        Dl_info di;
        if (!dladdr(sites[i].ra, &di) || !di.dli_fname || !di.dli_fbase)
            return;
        const char *path = di.dli_fname;
        char self[4096];
        if (!*path) { /* the program itself */
            ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
            if (k <= 0) return;
            self[k] = 0;
            path = self;
        }
        if (strchr(path, '\'')) return;
        /* The call instruction (ra - 1): relative to the object's base,
         * absolute in a non-PIE executable. */
        const ElfW(Ehdr) *eh = di.dli_fbase;
        unsigned long a = (unsigned long)((char *)sites[i].ra - 1);
        if (eh->e_type != ET_EXEC) a -= (unsigned long)di.dli_fbase;
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "addr2line -f -C -e '%s' 0x%lx 2>/dev/null",
                 path, a);
        FILE *p = popen(cmd, "r");
        if (!p) return;
        char fn[256] = "", fl[512] = "";
        if (fgets(fn, sizeof fn, p) && fgets(fl, sizeof fl, p)) {
            fn[strcspn(fn, "\n")] = 0;
            fl[strcspn(fl, "\n")] = 0;
            const char *b = strrchr(fl, '/');
            if (strncmp(fl, "??", 2))
                snprintf(out, n, "%s %s", fn, b ? b + 1 : fl);
            else if (strcmp(fn, "??"))
                snprintf(out, n, "%s", fn);
        }
        pclose(p);
        for (char *c = out; *c; c++)
            if (*c == '"' || *c == ',') *c = ' ';
        return;
    }
}

/* Per rank: long long nsites (8 bytes: keeps what follows aligned), then per site a packed_site and nring doubles. */
static char *pack(int *len) {
    long long n = nsites + (sites[PAPC_REP_SITES].calls ? 1 : 0);
    size_t cap = sizeof n;
    for (int i = 0; i <= PAPC_REP_SITES; i++)
        if (sites[i].calls)
            cap += sizeof(packed_site) +
                   sizeof(double) * (size_t)(sites[i].calls < PAPC_REP_RING
                                                 ? sites[i].calls
                                                 : PAPC_REP_RING);
    char *buf = calloc(1, cap), *p = buf;
    if (!buf) {
        *len = 0;
        return NULL;
    }
    memcpy(p, &n, sizeof n);
    p += sizeof n;
    for (int i = 0; i <= PAPC_REP_SITES; i++) {
        rep_site *s = &sites[i];
        if (!s->calls) continue;
        packed_site ps;
        memset(&ps, 0, sizeof ps);
        site_name(s, ps.name, sizeof ps.name);
        for (int k = 0; k < 4 && s->algs[k]; k++) {
            if (k) strncat(ps.algs, "+", sizeof ps.algs - strlen(ps.algs) - 1);
            strncat(ps.algs, s->algs[k], sizeof ps.algs - strlen(ps.algs) - 1);
        }
        ps.coll = s->coll;
        ps.calls = s->calls;
        ps.bytes = s->bytes;
        ps.tsum = s->tsum;
        ps.tmax = s->tmax;
        ps.nring = s->ring ? (int)(s->calls < PAPC_REP_RING ? s->calls
                                                            : PAPC_REP_RING)
                           : 0;
        memcpy(p, &ps, sizeof ps);
        p += sizeof ps;
        /* In call order: calls - nring .. calls - 1. */
        for (long c = s->calls - ps.nring; c < s->calls; c++) {
            memcpy(p, &s->ring[c % PAPC_REP_RING], sizeof(double));
            p += sizeof(double);
        }
    }
    *len = (int)(p - buf);
    return buf;
}

typedef struct view {
    const packed_site *ps;
    const double *ring;
} view;

static void write_report(char *all, const int *displs, int size) {
    /* Per rank, its sites. */
    int *ns = calloc((size_t)size, sizeof *ns);
    view **v = calloc((size_t)size, sizeof *v);
    if (!ns || !v) goto out;
    for (int r = 0; r < size; r++) {
        char *p = all + displs[r];
        long long n;
        memcpy(&n, p, sizeof n);
        ns[r] = (int)n;
        p += sizeof n;
        v[r] = calloc((size_t)ns[r] + 1, sizeof **v);
        if (!v[r]) goto out;
        for (int i = 0; i < ns[r]; i++) {
            v[r][i].ps = (const packed_site *)p;
            p += sizeof(packed_site);
            v[r][i].ring = (const double *)p;
            p += sizeof(double) * (size_t)v[r][i].ps->nring;
        }
    }
    char csvname[sizeof report_file + 8];
    snprintf(csvname, sizeof csvname, "%s.csv", report_file);
    FILE *f = fopen(report_file, "w"), *g = fopen(csvname, "w");
    if (!f || !g) {
        fprintf(stderr, "papcoll: cannot write PAPC_REPORT %s\n", report_file);
        if (f) fclose(f);
        if (g) fclose(g);
        goto out;
    }
    fprintf(f, "papcoll finalize report: %d processes, time base: %s\n"
            "spread: per call, last enter - first enter over the ranks "
            "(the earliest rank's wait for the last);\n"
            "bytes: per call, this rank's send + receive payload, mean over "
            "ranks\n\n", size,
            wtime_global ? "MPI_Wtime (MPI_WTIME_IS_GLOBAL)"
                         : "MPI_Wtime + offset to rank 0 by ping-pong at "
                           "MPI_Init");
    fprintf(g, "collective,site,ranks,calls,calls_match,bytes_per_call,"
            "algorithms,time_mean_ms,time_max_ms,spread_n,spread_mean_ms,"
            "spread_max_ms,last_rank:count,source\n");
    int *idx = malloc((size_t)size * sizeof *idx);
    long *last = calloc((size_t)size, sizeof *last);
    int *used = calloc((size_t)size, sizeof *used);
    if (!idx || !last || !used) goto done;
    int nout = 0;
    /* Sites in the order rank 0, then other ranks, first met. */
    for (int r0 = 0; r0 < size; r0++)
        for (int i0 = 0; i0 < ns[r0]; i0++) {
            const packed_site *key = v[r0][i0].ps;
            int seen = 0;
            for (int r = 0; r < r0 && !seen; r++)
                for (int i = 0; i < ns[r]; i++)
                    if (v[r][i].ps->coll == key->coll &&
                        !strcmp(v[r][i].ps->name, key->name)) {
                        seen = 1;
                        break;
                    }
            if (seen) continue;
            int nr = 0, match = 1;
            long calls = -1, minc = 0, first = 0;
            double bytes = 0, tsum = 0, tmax = 0;
            char algs[ALGS_N * 2] = "";
            for (int r = 0; r < size; r++) {
                idx[r] = -1;
                for (int i = 0; i < ns[r]; i++)
                    if (v[r][i].ps->coll == key->coll &&
                        !strcmp(v[r][i].ps->name, key->name))
                        idx[r] = i;
                if (idx[r] < 0) {
                    match = 0;
                    continue;
                }
                const packed_site *ps = v[r][idx[r]].ps;
                nr++;
                if (calls >= 0 && ps->calls != calls) match = 0;
                if (calls < 0 || ps->calls > calls) calls = ps->calls;
                if (nr == 1 || ps->calls < minc) minc = ps->calls;
                if (ps->calls - ps->nring > first)
                    first = ps->calls - ps->nring;
                bytes += ps->bytes / (double)ps->calls;
                tsum += ps->tsum / (double)ps->calls;
                if (ps->tmax > tmax) tmax = ps->tmax;
                if (!strstr(algs, ps->algs)) {
                    if (algs[0]) strncat(algs, "+", sizeof algs - strlen(algs) - 1);
                    strncat(algs, ps->algs, sizeof algs - strlen(algs) - 1);
                }
            }
            /* The spread over the call indices every rank still holds. */
            memset(last, 0, (size_t)size * sizeof *last);
            long sn = 0;
            double ssum = 0, smax = 0;
            for (long c = first; c < minc && key->coll >= 0; c++) {
                double lo = INFINITY, hi = -INFINITY;
                int lr = -1;
                for (int r = 0; r < size; r++) {
                    if (idx[r] < 0) continue;
                    const view *w = &v[r][idx[r]];
                    double t = w->ring[c - (w->ps->calls - w->ps->nring)];
                    if (t < lo) lo = t;
                    if (t > hi) {
                        hi = t;
                        lr = r;
                    }
                }
                if (lr < 0) break;
                last[lr]++;
                sn++;
                ssum += hi - lo;
                if (hi - lo > smax) smax = hi - lo;
            }
            const char *cname =
                key->coll >= 0 ? papc_collective_name((papc_collective)key->coll)
                               : "other";
            char src[800];
            site_source(key->name, key->coll, src, sizeof src);
            fprintf(f, "%s at %s%s%s\n", cname, key->name,
                    src[0] ? ": " : "", src);
            fprintf(f, "  ranks %d of %d, calls %ld%s   bytes/call %.0f   "
                    "algorithm: %s\n", nr, size, calls,
                    match ? "" : " (mismatch: not the same on every rank)",
                    bytes / nr, algs[0] ? algs : "?");
            fprintf(f, "  time in call: mean %.3f ms  max %.3f ms\n",
                    1e3 * tsum / nr, 1e3 * tmax);
            fprintf(f, "  arrival spread (%ld calls matched): mean %.3f ms  "
                    "max %.3f ms\n", sn, sn ? 1e3 * ssum / sn : 0.0,
                    1e3 * smax);
            fprintf(f, "  entered last most often: ");
            fprintf(g, "%s,\"%s\",%d,%ld,%d,%.0f,%s,%.6f,%.6f,%ld,%.6f,%.6f,",
                    cname, key->name, nr, calls, match, bytes / nr,
                    algs[0] ? algs : "?", 1e3 * tsum / nr, 1e3 * tmax, sn,
                    sn ? 1e3 * ssum / sn : 0.0, 1e3 * smax);
            memset(used, 0, (size_t)size * sizeof *used);
            int shown = 0;
            for (int k = 0; k < 3; k++) {
                int best = -1;
                for (int r = 0; r < size; r++)
                    if (!used[r] && last[r] > 0 &&
                        (best < 0 || last[r] > last[best]))
                        best = r;
                if (best < 0) break;
                used[best] = 1;
                fprintf(f, "%srank %d (%ld)", shown ? ", " : "", best,
                        last[best]);
                fprintf(g, "%s%d:%ld", shown ? ";" : "", best, last[best]);
                shown++;
            }
            fprintf(f, "%s\n\n", shown ? "" : "-");
            fprintf(g, ",\"%s\"\n", src);
            nout++;
        }
    if (!nout) fprintf(f, "no intercepted collective calls\n");
done:
    free(idx);
    free(last);
    free(used);
    fclose(f);
    fclose(g);
out:
    if (v)
        for (int r = 0; r < size; r++) free(v[r]);
    free(v);
    free(ns);
}

void papc_pmpi_report_finalize(void) {
    if (!papc_pmpi_report_on) return;
    papc_pmpi_report_on = 0;
    int rank, size, len = 0;
    PMPI_Comm_rank(rep_comm, &rank);
    PMPI_Comm_size(rep_comm, &size);
    char *buf = pack(&len);
    int *counts = NULL, *displs = NULL;
    char *all = NULL;
    if (rank == 0) {
        counts = malloc((size_t)size * sizeof *counts);
        displs = malloc((size_t)size * sizeof *displs);
    }
    PMPI_Gather(&len, 1, MPI_INT, counts, 1, MPI_INT, 0, rep_comm);
    if (rank == 0 && counts && displs) {
        long total = 0;
        for (int r = 0; r < size; r++) {
            displs[r] = (int)total;
            total += counts[r];
        }
        all = malloc((size_t)total + 1);
    }
    PMPI_Gatherv(buf, len, MPI_BYTE, all, counts, displs, MPI_BYTE, 0,
                 rep_comm);
    if (rank == 0 && all) {
        int ok = 1;
        for (int r = 0; r < size; r++)
            if (counts[r] < (int)sizeof(long long)) ok = 0;
        if (ok) write_report(all, displs, size);
    }
    free(all);
    free(counts);
    free(displs);
    free(buf);
    for (int i = 0; i <= PAPC_REP_SITES; i++) {
        free(sites[i].ring);
        memset(&sites[i], 0, sizeof sites[i]);
    }
    nsites = 0;
    last_hit = -1;
    PMPI_Comm_free(&rep_comm);
}
