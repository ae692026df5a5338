/*
 * model.h — what every algorithm's cost model shares (issue 12, after
 * Nuriyev & Lastovetsky 2021, "model-based-selection.md").  Pure: no MPI.
 *
 * A model is derived from the code of its algorithm: the point-to-point
 * steps it really posts.  It does not return seconds but the coefficients
 * of the platform parameters, so that one function serves both the fit
 * (papc-tune finds the algorithm's own α and β by robust regression over
 * measured times, Sect. IV-C) and the prediction (the selector):
 *
 *     T = alpha·α + beta·β + gamma_op·γ_op + copy·δ
 *
 * α, β   Hockney latency (s) and reciprocal bandwidth (s/byte), per algorithm
 * γ_op   seconds per byte of one MPI_Reduce_local, per datatype/op class
 * δ      seconds per byte of a local copy (the root's own block, packing)
 * γ(p)   the paper's slowdown of a non-blocking linear fan-out/fan-in to
 *        p−1 peers against one message (Formula 4); it multiplies terms and
 *        is measured apart (Sect. IV-B), so models read it from `in->gamma`.
 */
#ifndef PAPC_MODEL_H
#define PAPC_MODEL_H

#include <stddef.h>
#include <stdint.h>

typedef struct papc_terms {
    double alpha;     /* number of latencies */
    double beta;      /* bytes on the critical path */
    double gamma_op;  /* bytes reduced on the critical path */
    double copy;      /* bytes copied locally on the critical path */
    /* Contention: what every rank does, summed, whether on the critical
     * path or not.  Hockney assumes every transfer has its own link and
     * CPU; where ranks share cores (or a switch), the work of the whole
     * collective competes, and a pipeline's promise of parallel hops does
     * not hold (the paper, Sects. III and VI, names congestion as
     * Hockney's limit).  Fitted per algorithm like α and β; 0 where the
     * machine has a core and a link per rank. */
    double msgs;      /* messages sent by all ranks */
    double volume;    /* bytes sent plus bytes reduced by all ranks */
} papc_terms;

#define PAPC_GAMMA_MAX 64

/* γ(p) for p = 2..n measured; γ(1) = γ(2) = 1; beyond n the line through
 * the last points (the paper finds it near linear). */
typedef struct papc_gamma {
    int n;                          /* largest p measured (0: γ ≡ 1) */
    double g[PAPC_GAMMA_MAX + 1];   /* g[p] for 2 <= p <= n */
} papc_gamma;

double papc_gamma_of(const papc_gamma *g, int p);
/* γ(p) of a measured curve (g->n >= 3: a profile's fit, as papc_gamma_of);
 * without one (g NULL or n < 3) p - 1, not 1: the p - 1 messages one
 * process receives (or sends) at once all pass its one link, so their
 * bytes take p - 1 times one message's.  For the models whose whole volume
 * moves in such exchanges (reduce radix_k), where γ ≡ 1 would price them
 * below what the link can carry. */
double papc_gamma_or_link(const papc_gamma *g, int p);

/* What a model may know of a call: only what every rank knows. */
typedef struct papc_model_in {
    int P;                    /* communicator size */
    double m;                 /* bytes: gather/scatter one rank's block;
                                 bcast/reduce/allreduce the vector;
                                 gatherv/scatterv the total */
    double segsize;           /* bytes per segment, 0 = unsegmented */
    double eager;             /* eager limit of the MPI library, bytes */
    int commutative;          /* reduce-likes: 1 when the op commutes */
    const papc_gamma *gamma;  /* NULL means γ ≡ 1 */
} papc_model_in;

typedef papc_terms (*papc_model_fn)(const papc_model_in *in);

/* ---- Hockney building blocks ---- */
papc_terms papc_terms_zero(void);
/* One message of m bytes: α + mβ. */
papc_terms papc_msg(double m);
papc_terms papc_terms_add(papc_terms a, papc_terms b);
papc_terms papc_terms_scale(papc_terms a, double k);
/* a + k·b */
papc_terms papc_terms_axpy(papc_terms a, double k, papc_terms b);
/* t with n more messages and bytes more bytes (sent or reduced) added to
 * the whole collective's work (the contention terms). */
papc_terms papc_terms_traffic(papc_terms t, double n, double bytes);
/* Segments of a pipelined message: ceil(m / segsize), at least 1. */
double papc_model_segments(double m, double segsize);
/* ⌊log2 p⌋ and ⌈log2 p⌉ for p >= 1 (0 for p <= 1). */
int papc_model_floor_log2(int p);
int papc_model_ceil_log2(int p);

/* ---- Parameters ---- */

/* Datatype/op classes with their own γ_op. */
typedef enum papc_opclass {
    PAPC_OPCLASS_FLOAT = 0,   /* predefined op on float/double types */
    PAPC_OPCLASS_INT,         /* predefined op on integer/byte types */
    PAPC_OPCLASS_OTHER,       /* user ops, derived or pair types */
    PAPC_OPCLASS_COUNT
} papc_opclass;
const char *papc_opclass_name(papc_opclass k);

typedef struct papc_params {
    double alpha, beta;
    double nu_msg;    /* s per message of the whole collective */
    double nu_byte;   /* s per byte of the whole collective */
} papc_params;

/* Predicted seconds of terms t under (α, β) and the shared parameters. */
double papc_model_time(papc_terms t, papc_params ab, double gamma_op,
                       double copy);

/* ---- Fitting (GSL robust regression, Huber weights) ----
 * Fits t_i − gamma_op·G_i − copy·C_i = α·A_i + β·B_i (no intercept) over n
 * experiments.  Returns 0 and α, β >= 0 (a negative estimate is refitted
 * with that parameter fixed at 0) and the robust residual standard
 * deviation in seconds (*sigma) and relative (*rel: median |resid|/t);
 * sigma and rel may be NULL.  -1 (and *out zeroed) when n < 2, an input is
 * NaN/inf, a t_i <= 0, a column is all zero or the two are proportional,
 * or no non-negative (α, β) other than (0, 0) fits.  Residuals are
 * weighted as relative errors (see fit.c for why). */
int papc_fit_huber(int n, const papc_terms *x, const double *t,
                   double gamma_op, double copy, papc_params *out,
                   double *sigma, double *rel);

/* ---- Profiles (JSON through jansson) ---- */

#define PAPC_PROFILE_VERSION 1
#define PAPC_PROFILE_MAX_ALGS 1024

typedef struct papc_profile_alg {
    char collective[16];      /* "bcast", ... */
    char name[48];            /* the table row's name */
    int p;                    /* the P these parameters were fitted at;
                                 0: over every P of the design */
    int per_seg;              /* 1: fitted to one segment size only */
    double segsize;           /* that segment size, bytes (0 = whole
                                 message); only when per_seg */
    papc_params ab;
    double sigma, rel;        /* the fit's residual (s; relative) */
    int points;               /* experiments it was fitted from */
} papc_profile_alg;

/* The arrival correction of one row (issue 15, calibration): the measured
 * ē of the row with processes arriving at different times, fitted as
 *     ē ≈ a·(ē_model − t0) + c·t0
 * over delayed-arrival runs (papc-tune --arrival-refit), ē_model the row's
 * arrival model (arrival_model.h) at the measured offsets and t0 its
 * balanced prediction (so ē_model − t0 is what the model says the offsets
 * cost the row).  c is the row's balanced ē against t0: t0 is fitted to
 * the slowest rank's time, ē is the mean over the ranks (a reduce tree's
 * leaves leave early), and the balanced fit itself errs.  a scales the
 * offsets' cost: a binomial reduce waits for a late rank on one path only,
 * a background row whose monitor threads starve pays more.  With no entry
 * the model's ē stands (a = c = 1). */
#define PAPC_PROFILE_MAX_ARRIVAL 256
typedef struct papc_profile_arrival {
    char collective[16];
    char name[48];
    int p;                    /* the P it was fitted at; 0: every P */
    double a, c;              /* >= 0, c > 0 */
    int anchored;             /* 1: fitted above the unavoidable wait w
                                 (papc_arrival_wait_floor):
                                 ē − w ≈ a·(ē_model − t0 − w) + c·t0, JSON
                                 key "a_above_wait" for a; 0: the first
                                 form above (w taken as 0), key "a" */
    double rel;               /* the fit's median |resid|/ē */
    int points;               /* iterations it was fitted from */
    double bytes_min, bytes_max; /* the calls it is for, by
                                 papc_call_bytes' size class, inclusive;
                                 bytes_max 0: no upper bound; both 0: every
                                 size (the pooled fit, the fallback).  One
                                 correction per size, because what a row
                                 costs above its model changes with the
                                 size (binomial reduce: ē 0.22 t0 at 1 MiB
                                 and 0.52 t0 at 8 MiB on the emulated
                                 cluster) */
} papc_profile_arrival;

/* Is k fitted for a byte range (not every size)? */
static inline int papc_arrival_sized(const papc_profile_arrival *k) {
    return k->bytes_min > 0 || k->bytes_max > 0;
}

typedef struct papc_profile {
    int version;              /* PAPC_PROFILE_VERSION */
    char papcoll_version[16]; /* the library that wrote it */
    char machine[128];        /* host name, CPU model, cores */
    char mpi_library[256];    /* MPI_Get_library_version, first line */
    char date[32];            /* ISO 8601, UTC */
    int pmin, pmax;           /* P range the experiments ran over */
    double eager;             /* eager limit used by the models, bytes */
    papc_params p2p;          /* ping-pong α, β (for rows without a fit) */
    papc_gamma gamma;
    double gamma_op[PAPC_OPCLASS_COUNT];
    double copy;              /* δ, s/byte */
    int nalgs;
    papc_profile_alg algs[PAPC_PROFILE_MAX_ALGS];
    int narrival;             /* optional section "arrival": 0 = none */
    papc_profile_arrival arrival[PAPC_PROFILE_MAX_ARRIVAL];
} papc_profile;

/* Answers whether (collective, name) is a row papcoll has; used to refuse
 * profiles naming algorithms that do not exist. */
typedef int (*papc_alg_exists_fn)(const char *collective, const char *name);

/* Reads path (the JSON layout is documented in profile.c).  On failure
 * returns -1 and writes one line to err naming the file and the problem
 * ("PATH: cannot open: No such file or directory", "PATH: line 3, column
 * 7: ...", "PATH: profile version 7, this papcoll reads version 1",
 * "PATH: missing field p2p.beta", "PATH: algorithm bcast/foo does not
 * exist in this papcoll"); *out is then zeroed.  exists may be NULL (any
 * name accepted). */
int papc_profile_read(const char *path, papc_alg_exists_fn exists,
                      papc_profile *out, char *err, size_t errlen);
/* Writes atomically (temporary file, rename), doubles round-tripping;
 * refuses (-1, one line in err) a profile papc_profile_read would refuse. */
int papc_profile_write(const char *path, const papc_profile *p, char *err,
                       size_t errlen);
const papc_profile_alg *papc_profile_find(const papc_profile *p,
                                          const char *collective,
                                          const char *name);
/* A hash of everything the selector reads, to check that every rank of a
 * communicator has the same profile (0 only for p == NULL, "no profile";
 * machine, date and the fit statistics are left out). */
uint64_t papc_profile_hash(const papc_profile *p);
/* The entry of (collective, name) fitted at exactly p (0: over every P)
 * over every segment size (per_seg == 0). */
const papc_profile_alg *papc_profile_find_p(const papc_profile *p,
                                            const char *collective,
                                            const char *name, int at);
/* The entries of (collective, name) fitted at the nearest P at or below
 * and at or above P (*lo == *hi when P was measured or lies outside the
 * measured range: then the nearest); without per-P entries both are the
 * every-P entry; both NULL when the profile has no entry at all.  The
 * paper (Sect. VI) proposes parameters per range of P where one pair
 * does not fit every P. */
void papc_profile_bracket(const papc_profile *p, const char *collective,
                          const char *name, int P,
                          const papc_profile_alg **lo,
                          const papc_profile_alg **hi);
/* As papc_profile_bracket among the entries fitted to segment size seg
 * alone (per_seg); without any, the entries fitted over every segment
 * size.  Each (algorithm, segment size) of a segmented row is then its own
 * algorithm in the paper's sense, with its own α, β. */
void papc_profile_bracket_seg(const papc_profile *p, const char *collective,
                              const char *name, int P, double seg,
                              const papc_profile_alg **lo,
                              const papc_profile_alg **hi);

/* The arrival correction for (collective, name) at P and a call of bytes
 * (papc_call_bytes, as the plain call classes it): the entry fitted at
 * exactly P, else the every-P one (p = 0) -- among those of one P the one
 * whose byte range holds bytes, else the one for every size; NULL when
 * there is none (no correction: one fitted at another P is not carried
 * over, what waiting costs changes with P). */
const papc_profile_arrival *papc_profile_find_arrival(const papc_profile *p,
                                                      const char *collective,
                                                      const char *name,
                                                      int P, double bytes);
/* The corrected ē of model ē e, balanced t0 and unavoidable wait w
 * (papc_arrival_wait_floor; ignored, i.e. 0, when k is not anchored):
 * w + a·(e − t0 − w) + c·t0 with entry k, never below w plus a tenth of
 * the lesser of e − w and c·t0 (a guard against a slope extrapolated far
 * below both); e itself when k is NULL.  Why a tenth, not the half it
 * was: at half it bound at every spread point of gather's BSLS (whose
 * senders leave at their GO, so ē falls to about w plus a block as the
 * arrivals spread) and priced it 1.2-1.9 x its measured ē, under BSBN;
 * at a tenth the held-out check (papc-tune --arrival-check, 10/50/200 ms)
 * picks within 5 % in 43 of 48 settings against 42, with no new miss
 * (docs/performance.md, twenty-first session).  Why the anchor: the
 * first form scaled all of ē_model − t0 by a, and a < 1 (fitted at 20
 * and 100 ms, where c·t0 can make up for it) priced the segmented ring
 * under the wait for a rank 200 ms late, which no allreduce avoids
 * (sweep 4: it ran, 1.21 x SLT). */
double papc_arrival_corrected(const papc_profile_arrival *k, double e,
                              double t0, double w);
/* Fits e_i − w_i ≈ a·(model_i − t0_i − w_i) + c·t0_i over n measured
 * calls (Huber, residuals weighted as relative errors, a, c >= 0:
 * papc_fit_huber); w NULL: all 0 (the first form, out->anchored = 0).
 * Returns 0 and fills out's a, c, anchored, rel, points; -1 (out
 * untouched) when n < 2, an input is not finite or e_i, t0_i <= 0 or
 * e_i <= w_i or model_i < w_i, every model_i − w_i equals t0_i (only
 * balanced calls: nothing tells a from c), or the fit gives c = 0. */
int papc_arrival_fit(int n, const double *model, const double *t0,
                     const double *w, const double *e,
                     papc_profile_arrival *out);

#endif
