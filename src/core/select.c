/* select.c — the plain call's choice (issue 12, after Nuriyev & Lastovetsky
 * 2021): with a profile from papc-tune, the row (and segment size) whose
 * cost model predicts the least time; without one, or when the ranks of a
 * communicator disagree on the profile, papcoll's fixed size rules.
 *
 * Every rank must choose alike, so the inputs are only what every rank
 * knows: the collective, P, the bytes of the call (the block or vector,
 * from arguments significant on every rank), op commutativity and the
 * datatype/op class.  Sizes are bucketed into classes (eight per octave)
 * and each class is predicted at its lower bound, a pure function of the
 * class: a process that meets 1000 B first and one that meets 1010 B first
 * cache the same choice.  Decisions are cached lock-free per (collective,
 * P, size class, op class, commutativity, mode, profile generation). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core.h"

/* ---- the fixed rules (before issue 12) ---- */

static unsigned size_class(size_t b);
static size_t class_size(unsigned k);

/* The ring allreduce's 2(P - 1) steps against Rabenseifner's 2 log2 P,
 * for the same bytes moved: the ring pays (P - 1 - log2 P) more step
 * latencies twice, which its pipelining hides only when the vector is long
 * against them -- b >= 2 (P - 1 - floor(log2 P)) alpha/beta.  alpha/beta
 * as the emulated 1 Gbit/s cluster measures it at P = 8: Rabenseifner
 * ahead of the ring up to 64 KiB (1.36 against 2.21 ms), the ring ahead
 * from 256 KiB (3.67 against 4.37), so alpha/beta lies between 8 and
 * 32 KiB: 16 KiB (docs/algorithms.md, "Default choice").  P = 8: the ring
 * from 128 KiB; P = 1,024: from 31.7 MiB.  Before, the rule ran the ring
 * at P = 1,024 and 256 KiB, 12 x Rabenseifner in SMPI. */
#define RING_ALPHA_OVER_BETA 16384.0

static int ring_pays(size_t b, int P) {
    int log2p = 0;
    while ((2ULL << log2p) <= (unsigned long long)P) log2p++;
    return (double)b >= 2.0 * (P - 1 - log2p) * RING_ALPHA_OVER_BETA;
}

/* After Open MPI 4.1's fixed decision rules, simplified.  b is the lower
 * bound of the call's size class (fixed_row), so every call of a class
 * gets the row a cached choice holds.  allreduce: the ring only where its
 * latency pays (ring_pays), else MPICH's Rabenseifner.  bcast above 16
 * processes: knomial below 16 KiB, binomial from there (Open MPI 4.1's
 * rules take knomial for most sizes from 32 processes): the breadth-first
 * binary trees of split_binary put nearly every edge across nodes when
 * consecutive ranks share one, 4.6-12.5 x binomial from 16 KiB at
 * P = 32-1,024 with 16 ranks per node in SMPI (docs/scale.md section 10). */
static const char *fixed_choice(papc_collective coll, size_t b, int P,
                                int commutative, int count_below_p) {
    switch (coll) {
    case PAPC_GATHER: return b >= 6000 ? "linear_sync" : "binomial";
    case PAPC_SCATTER: return b < 2048 ? "binomial" : "basic_linear";
    case PAPC_BCAST:
        if (P > 16) return b < 16384 ? "knomial" : "binomial";
        return b < 12288 ? "binomial" : "split_binary";
    case PAPC_REDUCE:
        return commutative && b >= 65536 ? "rabenseifner" : "binomial";
    case PAPC_ALLREDUCE:
        if (!commutative || b < 10240 || count_below_p)
            return "recursive_doubling";
        return ring_pays(b, P) ? "ring" : "rabenseifner";
    default: return "basic_linear";
    }
}

/* ---- the profile of this process ---- */

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static papc_profile *profile;        /* NULL: none loaded */
static char profile_file[4096];
static uint64_t profile_hash;
static atomic_uint generation = 1;   /* bumped by every (re)load */
static atomic_int tried;             /* the lazy load ran */
static atomic_int mode_fixed = -1;   /* -1: PAPC_SELECT not read yet */

static int alg_exists(const char *collective, const char *name) {
    int coll = papc_collective_from_name(collective);
    return coll >= 0 && papc_registry_find((papc_collective)coll, name);
}

static void default_path(char *buf, size_t len) {
    const char *env = getenv("PAPC_PROFILE");
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    if (env && *env) snprintf(buf, len, "%s", env);
    else if (xdg && *xdg)
        snprintf(buf, len, "%s/papcoll/profile.json", xdg);
    else if (home && *home)
        snprintf(buf, len, "%s/.config/papcoll/profile.json", home);
    else buf[0] = '\0';
}

static int world_rank0(void) {
    int init = 0, fin = 0, rank = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank == 0;
}

static int verbose(void) {
    const char *v = getenv("PAPC_VERBOSE");
    return v && *v && *v != '0';
}

/* Replaces the process's profile with the one at path; caller holds the
 * lock.  quiet_if_missing: the default location need not exist. */
static int load_locked(const char *path, int quiet_if_missing) {
    char err[512];
    papc_profile *p = malloc(sizeof *p);
    if (!p) return papc_error(MPI_ERR_NO_MEM, "no memory for a profile");
    papc_profile *old = profile;
    int rc = MPI_SUCCESS;
    if (papc_profile_read(path, alg_exists, p, err, sizeof err) != 0) {
        free(p);
        p = NULL;
        int missing = strstr(err, "No such file") != NULL;
        if (!(quiet_if_missing && missing)) {
            if (world_rank0() || verbose())
                fprintf(stderr, "papcoll: %s; using the fixed rules\n", err);
            rc = papc_error(MPI_ERR_FILE, "%s", err);
        }
    }
    profile = p;
    free(old);
    if (p) snprintf(profile_file, sizeof profile_file, "%s", path);
    else profile_file[0] = '\0';
    profile_hash = p ? papc_profile_hash(p) : 0;
    atomic_fetch_add(&generation, 1);
    atomic_store(&tried, 1);
    return rc;
}

static void ensure_loaded(void) {
    if (atomic_load_explicit(&tried, memory_order_acquire)) return;
    pthread_mutex_lock(&load_lock);
    if (!atomic_load(&tried)) {
        char path[4096];
        default_path(path, sizeof path);
        const char *env = getenv("PAPC_PROFILE");
        if (path[0]) load_locked(path, !(env && *env));
        else atomic_store(&tried, 1);
    }
    pthread_mutex_unlock(&load_lock);
}

int papc_profile_load(const char *path) {
    char buf[4096];
    if (!path) default_path(buf, sizeof buf), path = buf;
    pthread_mutex_lock(&load_lock);
    int rc = path[0] ? load_locked(path, 0)
                     : papc_error(MPI_ERR_FILE, "no profile path: set "
                                  "PAPC_PROFILE or HOME");
    pthread_mutex_unlock(&load_lock);
    return rc;
}

const char *papc_profile_path(void) {
    ensure_loaded();
    return profile ? profile_file : NULL;
}

static int fixed_mode_raw(void) {
    int m = atomic_load_explicit(&mode_fixed, memory_order_relaxed);
    if (m < 0) {
        const char *v = getenv("PAPC_SELECT");
        m = v && strcmp(v, "fixed") == 0;
        atomic_store(&mode_fixed, m);
    }
    return m;
}

const char *papc_select_mode_word(void) {
    return fixed_mode_raw() ? "fixed" : "model";
}

/* The mode as the call's communicator agreed it (settings.c): model
 * selection, the default, when the ranks differ. */
static int fixed_mode(void) {
    return papc_setting_differs("PAPC_SELECT") ? 0 : fixed_mode_raw();
}

/* The profile generation a choice is keyed on and agreed for, read after
 * the lazy load.  Read before it (until issue 16, session 7), the first
 * plain call on a communicator was keyed on generation 1, the load made it
 * 2, and the second call agreed again: two MPI_Allreduce, each inside a
 * plain call before its arrival was stamped, so the late process' wait
 * hid in them and the first two views saw every rank arrive together
 * (docs/scale.md, "At 512-4,096 processes", section 9). */
static unsigned current_generation(void) {
    ensure_loaded();
    return atomic_load_explicit(&generation, memory_order_acquire);
}

/* Loaded whatever the mode (session 8): the profile is agreed with the
 * settings when a communicator's duplicate is made, on every rank alike,
 * so a rank under PAPC_SELECT=fixed must not skip the load and its
 * generation step (its ranks would agree again at different calls). */
void papc_select_profile_key(unsigned *gen, uint64_t *hash) {
    ensure_loaded();
    *gen = atomic_load_explicit(&generation, memory_order_acquire);
    *hash = profile_hash;
}

int papc_set_selection(const char *mode) {
    if (!mode) return papc_error(MPI_ERR_ARG, "selection mode is NULL");
    if (strcmp(mode, "model") == 0) atomic_store(&mode_fixed, 0);
    else if (strcmp(mode, "fixed") == 0) atomic_store(&mode_fixed, 1);
    else return papc_error(MPI_ERR_ARG, "selection mode '%s' is neither "
                           "'model' nor 'fixed'", mode);
    return MPI_SUCCESS;
}

static atomic_int arrival_mode = -1; /* -1: PAPC_ARRIVAL_SELECT not read */

int papc_get_arrival_selection(void) {
    int m = atomic_load_explicit(&arrival_mode, memory_order_relaxed);
    if (m < 0) {
        const char *v = getenv("PAPC_ARRIVAL_SELECT");
        m = !(v && strcmp(v, "0") == 0);
        atomic_store(&arrival_mode, m);
    }
    return m;
}

const char *papc_arrival_mode_word(void) {
    return papc_get_arrival_selection() ? "on" : "off";
}

int papc_arrival_selection_agreed(void) {
    return papc_setting_differs("PAPC_ARRIVAL_SELECT")
               ? 1 : papc_get_arrival_selection();
}

int papc_set_arrival_selection(int on) {
    if (on != 0 && on != 1)
        return papc_error(MPI_ERR_ARG, "arrival selection must be 0 or 1, "
                          "not %d", on);
    atomic_store(&arrival_mode, on);
    return MPI_SUCCESS;
}

/* ---- size classes ---- */

/* Eight classes per octave: sizes below 8 are their own class; above, the
 * exponent and the three bits after the leading one.  A class is predicted
 * at its lower bound, so powers of two are predicted exactly. */
static unsigned size_class(size_t b) {
    if (b < 8) return (unsigned)b;
    int e = 63 - __builtin_clzll((unsigned long long)b);
    return (unsigned)(8 * e) + (unsigned)((b >> (e - 3)) & 7);
}

static size_t class_size(unsigned k) {
    if (k < 8) return k;
    int e = (int)k / 8;
    return (size_t)(8 + k % 8) << (e - 3);
}

/* ---- op classes ---- */

static papc_opclass op_class(MPI_Op op, MPI_Datatype t) {
    static const MPI_Op predefined[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN,
                                        MPI_LAND, MPI_LOR, MPI_LXOR,
                                        MPI_BAND, MPI_BOR, MPI_BXOR};
    int known = 0;
    for (size_t i = 0; i < sizeof predefined / sizeof *predefined; i++)
        if (op == predefined[i]) known = 1;
    if (!known) return PAPC_OPCLASS_OTHER;
    if (t == MPI_FLOAT || t == MPI_DOUBLE || t == MPI_LONG_DOUBLE ||
        t == MPI_C_FLOAT_COMPLEX || t == MPI_C_DOUBLE_COMPLEX)
        return PAPC_OPCLASS_FLOAT;
    static const MPI_Datatype ints[] = {
        MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_SHORT,
        MPI_UNSIGNED_SHORT, MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG,
        MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG, MPI_INT8_T, MPI_INT16_T,
        MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T,
        MPI_UINT64_T, MPI_C_BOOL, MPI_AINT, MPI_OFFSET};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        if (t == ints[i]) return PAPC_OPCLASS_INT;
    return PAPC_OPCLASS_OTHER;
}

/* ---- predictions ---- */

/* Segment sizes the selector tries for a segmented row: the ones
 * papc-tune measures (the paper's Sect. VI: a small discrete set, each
 * measured), the library's default first so that a tie keeps it; 64,512 B
 * is the largest under Open MPI's TCP eager limit with headers
 * (PAPC_PIPELINE_MAX_SEGMENT).  Sizes the fit never saw are not offered:
 * a model extrapolated to 1 KiB segments promised 4,096-segment pipelines
 * almost for free where each segment costs a context switch. */
static const size_t seg_candidates[] = {8192, 64512, 0};
#define NSEG (int)(sizeof seg_candidates / sizeof *seg_candidates)

typedef struct choice {
    int row;        /* -1: none */
    int seg;        /* index into seg_candidates; -1: not segmented */
    double seconds;
} choice;

static int same_row(const papc_profile_alg *e, const char *coll,
                    const char *name) {
    return strncmp(e->collective, coll, sizeof e->collective) == 0 &&
           strncmp(e->name, name, sizeof e->name) == 0;
}

/* The largest P a row was fitted at alone (0: none). */
static int row_pmax(const papc_profile *p, const char *coll,
                    const char *name) {
    int pmax = 0;
    for (int i = 0; i < p->nalgs && i < PAPC_PROFILE_MAX_ALGS; i++)
        if (same_row(&p->algs[i], coll, name) && p->algs[i].p > pmax)
            pmax = p->algs[i].p;
    return pmax;
}

/* Was the row fitted to segment size seg alone? -1: the profile has no
 * per-segment fits of the row at all. */
static int seg_measured(const papc_profile *p, const char *coll,
                        const char *name, double seg) {
    int any = 0;
    for (int i = 0; i < p->nalgs && i < PAPC_PROFILE_MAX_ALGS; i++) {
        const papc_profile_alg *e = &p->algs[i];
        if (!same_row(e, coll, name) || !e->per_seg) continue;
        if (e->segsize == seg) return 1;
        any = 1;
    }
    return any ? 0 : -1;
}

/* Offer segment candidate s?  Not when the profile fitted the row per
 * segment size but never at this one while it did at another candidate:
 * the size would borrow the pooled fit, which under-predicted 63 KiB
 * segments by 22-39 % at P = 64-128 (docs/scale.md). */
static int seg_offered(const papc_profile *p, const char *coll,
                       const char *name, int s) {
    if (seg_measured(p, coll, name, (double)seg_candidates[s]) != 0)
        return 1;
    for (int o = 0; o < NSEG; o++)
        if (seg_measured(p, coll, name, (double)seg_candidates[o]) == 1)
            return 0;
    return 1;
}

/* The profile row whose fitted parameters a's model takes: its own, else
 * the classic row its code runs as when every process is on time
 * (papc_alg_desc.fitted_as).  Why: papc-tune times classic rows only, and
 * the ping-pong beta of one pair is not what a gather's turns cost when
 * seven senders share the root's link (cluster, P = 8, 1 MiB blocks: 5.1
 * against linear_sync's 7.6 ns/B), so SLS was priced 35 % under the
 * linear_sync whose turns it takes, and the arrival model, scaled to that
 * t0, made each turn 5.4 ms where the link takes 8.4 ms: a late rank's
 * wait then looked less hidden behind the others' turns than it is (the
 * calibration's SLS one-late corrections 0.91 at 20 ms, 1.16 at 100 ms;
 * docs/performance.md, twenty-fifth session). */
static const char *fitted_name(const papc_profile *p, const papc_alg_desc *a) {
    const char *coll = papc_collective_name(a->info.collective);
    if (!a->fitted_as || papc_profile_find(p, coll, a->info.name))
        return a->info.name;
    return papc_profile_find(p, coll, a->fitted_as) ? a->fitted_as
                                                    : a->info.name;
}

/* One (row, segment size)'s predicted time: parameters fitted at the
 * measured P on either side of the call's (to this segment size alone when
 * the profile has such fits), the prediction interpolated linearly in P.
 * A segmented row above the largest P it was measured at takes its fit
 * over every P and segment size instead: at one P the traffic terms are
 * proportional to the latency and bandwidth terms (a tree's (P-1) n_s
 * messages and its Σγ + (n_s-1)γ rounds both grow with n_s alone), so each
 * segment size's single-P fit splits them its own way, and that split
 * decides how its prediction grows with P: the unsegmented binomial's fit
 * at 64 had no traffic term, the 8 KiB one half its time in it, and from
 * P = 256 the model took the whole message, 29-45 % slower (docs/scale.md,
 * "Bcast selection at P = 1,024").  One fit for every segment size leaves
 * the choice among them to the model.  Unsegmented rows keep the largest
 * P's fit: for gather it chose right at P = 512 and 1,024, where the
 * pooled fit would take basic_linear over binomial at 4 KiB (5-10 %). */
static double predict_at(const papc_profile *p, const papc_alg_desc *a,
                         const papc_model_in *in, papc_opclass k,
                         const char **note, papc_params *used) {
    const papc_profile_alg *lo, *hi;
    const char *coll = papc_collective_name(a->info.collective);
    const char *name = fitted_name(p, a);
    double seg = (a->info.flags & PAPC_FLAG_SEGMENTED) ? in->segsize : -1;
    papc_profile_bracket_seg(p, coll, name, in->P, seg, &lo, &hi);
    const papc_profile_alg *every = papc_profile_find_p(p, coll, name, 0);
    if (every && seg >= 0 && in->P > row_pmax(p, coll, name))
        lo = hi = every;
    papc_params ab_lo = lo ? lo->ab : p->p2p, ab_hi = hi ? hi->ab : p->p2p;
    double w = lo && hi && hi->p > lo->p
                   ? (double)(in->P - lo->p) / (double)(hi->p - lo->p) : 0;
    if (!lo) *note = "not in the profile: ping-pong alpha, beta";
    else if (name != a->info.name)
        *note = "not in the profile: the fitted parameters of the classic "
                "row it runs as when balanced";
    if (used) {
        used->alpha = (1 - w) * ab_lo.alpha + w * ab_hi.alpha;
        used->beta = (1 - w) * ab_lo.beta + w * ab_hi.beta;
        used->nu_msg = (1 - w) * ab_lo.nu_msg + w * ab_hi.nu_msg;
        used->nu_byte = (1 - w) * ab_lo.nu_byte + w * ab_hi.nu_byte;
    }
    papc_terms x = a->model(in);
    return (1 - w) * papc_model_time(x, ab_lo, p->gamma_op[k], p->copy) +
           w * papc_model_time(x, ab_hi, p->gamma_op[k], p->copy);
}

/* One row's best prediction, or seconds < 0 with *note saying why not. */
static choice predict_row(const papc_profile *p, const papc_alg_desc *a,
                          int row, int P, size_t bytes, int commutative,
                          papc_opclass k, const char **note, int aware,
                          papc_params *used) {
    choice best = {row, -1, -1};
    *note = "";
    if ((a->info.restrictions & PAPC_RESTRICT_COMMUTATIVE) && !commutative) {
        *note = "needs a commutative op";
        return best;
    }
    if ((a->info.flags & PAPC_FLAG_ARRIVAL_AWARE) && !aware) {
        *note = "arrival-aware: weighed by predicted arrivals "
                "(docs/arrival.md)";
        return best;
    }
    if (!a->model) {
        *note = "no cost model";
        return best;
    }
    papc_model_in in = {P, (double)bytes, 0, p->eager, commutative,
                        &p->gamma};
    int segmented = (a->info.flags & PAPC_FLAG_SEGMENTED) != 0;
    const char *coll = papc_collective_name(a->info.collective);
    for (int s = 0; s < (segmented ? NSEG : 1); s++) {
        in.segsize = segmented ? (double)seg_candidates[s] : 0;
        if (segmented && !seg_offered(p, coll, a->info.name, s)) continue;
        papc_params ab;
        double t = predict_at(p, a, &in, k, note, &ab);
        if (!isfinite(t) || t < 0) continue;
        if (best.seconds < 0 || t < best.seconds) {
            best.seconds = t;
            best.seg = segmented ? s : -1;
            if (used) *used = ab;
        }
    }
    return best;
}

static choice model_choice(const papc_profile *p, papc_collective coll,
                           int P, size_t bytes, int commutative,
                           papc_opclass k) {
    choice best = {-1, -1, -1};
    for (int i = 0; i < papc_registry_count(coll); i++) {
        const char *note;
        choice c = predict_row(p, papc_registry_row(coll, i), i, P, bytes,
                               commutative, k, &note, 0, NULL);
        if (c.seconds >= 0 && (best.row < 0 || c.seconds < best.seconds))
            best = c;
    }
    return best;
}

static int row_index(papc_collective coll, const char *name) {
    const papc_alg_desc *a = papc_registry_find(coll, name);
    for (int i = 0; a && i < papc_registry_count(coll); i++)
        if (papc_registry_row(coll, i) == a) return i;
    return 0;
}

/* ---- the decision cache ---- */

/* One 64-bit word per entry: key in the high 52 bits, the decision in the
 * low 12 (row + 1 in 8 bits, segment candidate + 1 in 2 bits, bit 0 set:
 * never 0, the empty slot). */
#define CACHE_SIZE 4096
static _Atomic uint64_t cache[CACHE_SIZE];
_Static_assert(NSEG <= 3, "a segment candidate + 1 in 2 bits");

static uint64_t cache_key(papc_collective coll, int P, unsigned sclass,
                          papc_opclass k, int commutative, int fixed,
                          int low, unsigned gen, unsigned settings) {
    uint64_t key = (uint64_t)(unsigned)P & 0xFFFFF;          /* 20 bits */
    key = key << 9 | (sclass & 0x1FF);
    key = key << 3 | ((unsigned)coll & 7);
    key = key << 2 | ((unsigned)k & 3);
    key = key << 1 | (unsigned)(commutative != 0);
    key = key << 1 | (unsigned)(fixed != 0);
    key = key << 1 | (unsigned)(low != 0);
    key = key << 11 | (gen & 0x7FF);
    key = key << 4 | (settings & 0xF);
    return key;                                              /* 52 bits */
}

static int cache_get(uint64_t key, int *row, int *seg) {
    unsigned h = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 52);
    for (int i = 0; i < 16; i++) {
        uint64_t e = atomic_load_explicit(&cache[(h + i) % CACHE_SIZE],
                                          memory_order_relaxed);
        if (e == 0) return 0;
        if (e >> 12 == key) {
            *row = (int)((e >> 4) & 0xFF) - 1;
            *seg = (int)((e >> 2) & 0x3) - 1;
            return 1;
        }
    }
    return 0;
}

/* A full neighbourhood just means the next call predicts again. */
static void cache_put(uint64_t key, int row, int seg) {
    uint64_t e = key << 12 | (uint64_t)(row + 1) << 4 |
                 (uint64_t)(seg + 1) << 2 | 1;
    unsigned h = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 52);
    for (int i = 0; i < 16; i++) {
        uint64_t expect = 0;
        _Atomic uint64_t *slot = &cache[(h + i) % CACHE_SIZE];
        if (atomic_compare_exchange_strong(slot, &expect, e)) return;
        if (expect >> 12 == key) return;
    }
}

/* A model's prediction reads settings (the k-nomial radix, whether
 * PAPC_SEGSIZE is set, PAPC_PIPELINE_MAX_SEGMENT, ...: settings.c's
 * "model" ones) as the call's communicator agreed them, so a cached
 * choice holds for one set of them.  Each set met gets a number 1-15 in
 * the key (a benchmark that sets and unsets PAPC_SEGSIZE between calls
 * keeps both sets' choices); a 16th set empties the cache and starts
 * again.  Two threads calling at once just then could meet each other's
 * entries. */
#define SETTINGS_SETS 15
static _Atomic uint64_t settings_set[SETTINGS_SETS];

static unsigned settings_number(void) {
    uint64_t h = papc_settings_effective_now() | 1; /* never 0: empty */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < SETTINGS_SETS; i++) {
            uint64_t v = atomic_load_explicit(&settings_set[i],
                                              memory_order_acquire);
            if (v == 0 && atomic_compare_exchange_strong(&settings_set[i],
                                                          &v, h))
                return (unsigned)i + 1;
            if (v == h) return (unsigned)i + 1;
        }
        for (int i = 0; i < CACHE_SIZE; i++)
            atomic_store_explicit(&cache[i], 0, memory_order_relaxed);
        for (int i = 0; i < SETTINGS_SETS; i++)
            atomic_store_explicit(&settings_set[i], 0, memory_order_release);
    }
    return 0;
}

/* ---- the call's choice ---- */

size_t papc_call_bytes(const papc_call *c) {
    switch (c->coll) {
    case PAPC_GATHER:
        return c->rank == c->root
                   ? (size_t)c->recvcount * papc_type_size(c->recvtype)
                   : (size_t)c->sendcount * papc_type_size(c->sendtype);
    case PAPC_SCATTER:
        return c->rank == c->root
                   ? (size_t)c->sendcount * papc_type_size(c->sendtype)
                   : (size_t)c->recvcount * papc_type_size(c->recvtype);
    case PAPC_BCAST:
    case PAPC_REDUCE:
    case PAPC_ALLREDUCE:
        return (size_t)c->sendcount * papc_type_size(c->sendtype);
    default:
        return 0;
    }
}

static int sized_collective(papc_collective coll) {
    return coll == PAPC_GATHER || coll == PAPC_SCATTER ||
           coll == PAPC_BCAST || coll == PAPC_REDUCE ||
           coll == PAPC_ALLREDUCE;
}

static void say_choice(const papc_call *c, size_t bytes, int fixed,
                       const papc_alg_desc *a, int seg, const char *why) {
    if (!verbose() || c->rank != 0) return;
    char segtext[48] = "";
    if (seg >= 0)
        snprintf(segtext, sizeof segtext, ", segments of %zu B",
                 seg_candidates[seg]);
    fprintf(stderr, "papcoll: %s P=%d %zu B: %s%s — %s\n",
            papc_collective_name(c->coll), c->size, bytes, a->info.name,
            segtext, fixed ? "fixed rules" : why);
}

static const papc_alg_desc *fixed_row(const papc_call *c, size_t bytes) {
    const papc_alg_desc *a = papc_registry_find(
        c->coll, fixed_choice(c->coll, class_size(size_class(bytes)),
                              c->size, c->commutative,
                              c->sendcount < c->size));
    return a ? a : papc_registry_row(c->coll, 0);
}

/* Uses the model when this process has a profile, selection is "model"
 * and every rank of the communicator has the same profile. */
static int use_model(papc_call *c, unsigned gen) {
    if (fixed_mode()) return 0;
    ensure_loaded();
    int same = 0;
    if (papc_comm_profile_agreed(c->user_comm, gen, &same) !=
        MPI_SUCCESS)
        return 0;
    if (!same) {
        static atomic_int said;
        if (c->rank == 0 && !atomic_exchange(&said, 1))
            fprintf(stderr, "papcoll: the ranks of a communicator of size %d "
                    "do not all have the same profile (%s here); every rank "
                    "uses the fixed rules on it\n", c->size,
                    profile ? profile_file : "none");
        return 0;
    }
    return profile != NULL;
}

const papc_alg_desc *papc_select(papc_call *c) {
    size_t bytes = papc_call_bytes(c);
    if (!sized_collective(c->coll)) return fixed_row(c, bytes);
    unsigned gen = current_generation();
    int model = use_model(c, gen);
    int fixed = !model;
    unsigned sclass = size_class(bytes);
    papc_opclass k = c->op == MPI_OP_NULL
                         ? PAPC_OPCLASS_FLOAT
                         : op_class(c->op, c->sendtype);
    /* count < P changes the fixed allreduce rule: keep it in the key. */
    int low = fixed && c->coll == PAPC_ALLREDUCE && c->sendcount < c->size;
    uint64_t key = cache_key(c->coll, c->size, sclass, k,
                             c->commutative, fixed, low, gen,
                             settings_number());
    int row = -1, seg = -1;
    if (!cache_get(key, &row, &seg)) {
        if (model) {
            choice ch = model_choice(profile, c->coll, c->size,
                                     class_size(sclass), c->commutative,
                                     k);
            row = ch.row;
            seg = ch.seg;
        }
        const papc_alg_desc *a = row >= 0 ? papc_registry_row(c->coll, row)
                                          : fixed_row(c, bytes);
        if (row < 0) row = row_index(c->coll, a->info.name), fixed = 1;
        cache_put(key, row, seg);
        say_choice(c, bytes, fixed, a, seg, "least predicted time under "
                   "the profile (papc-info --explain)");
    }
    if (seg >= 0 && !papc_getenv("PAPC_SEGSIZE"))
        c->segsize = seg_candidates[seg];
    return papc_registry_row(c->coll, row);
}

/* ---- the arrival-aware choice's balanced predictions ---- */

int papc_select_predict_with(const papc_profile *p, const papc_alg_desc *a,
                             int P, size_t bytes, int commutative,
                             papc_opclass k, papc_row_prediction *out) {
    memset(out, 0, sizeof *out);
    out->seconds = -1;
    if (!p || !sized_collective(a->info.collective) || !a->model) return 0;
    const char *note;
    papc_params ab;
    choice ch = predict_row(p, a, 0, P, bytes, commutative, k, &note, 1, &ab);
    if (ch.seconds <= 0) return 0;
    out->seconds = ch.seconds;
    out->segsize = ch.seg >= 0 ? seg_candidates[ch.seg] : 0;
    out->alpha = ab.alpha;
    out->beta = ab.beta;
    out->gamma_op = p->gamma_op[k];
    return 1;
}

const papc_profile *papc_select_agreed_profile(papc_call *c) {
    unsigned gen = current_generation();
    return use_model(c, gen) ? profile : NULL;
}

size_t papc_select_class_bytes(size_t bytes) {
    return class_size(size_class(bytes));
}

int papc_select_predict(papc_call *c, const papc_alg_desc *a,
                        size_t default_seg, papc_params p2p, double gamma_op,
                        papc_row_prediction *out) {
    memset(out, 0, sizeof *out);
    out->seconds = -1;
    if (!sized_collective(c->coll) || !a->model) return 0;
    if ((a->info.restrictions & PAPC_RESTRICT_COMMUTATIVE) && !c->commutative)
        return 0;
    unsigned gen = current_generation();
    size_t bytes = class_size(size_class(papc_call_bytes(c)));
    papc_opclass k = c->op == MPI_OP_NULL ? PAPC_OPCLASS_FLOAT
                                          : op_class(c->op, c->sendtype);
    if (use_model(c, gen))
        return papc_select_predict_with(profile, a, c->size, bytes,
                                        c->commutative, k, out);
    /* No agreed profile: the monitor's agreed ping-pong parameters, the
     * row's default segment size. */
    papc_model_in in = {c->size, (double)bytes, 0, 0, c->commutative, NULL};
    if (a->info.flags & PAPC_FLAG_SEGMENTED)
        in.segsize = (double)default_seg, out->segsize = default_seg;
    double t = papc_model_time(a->model(&in), p2p, gamma_op, 0);
    if (!isfinite(t) || t <= 0) return 0;
    out->seconds = t;
    out->alpha = p2p.alpha;
    out->beta = p2p.beta;
    out->gamma_op = gamma_op;
    return 1;
}

/* ---- explain ---- */

int papc_explain(papc_collective coll, int P, size_t bytes,
                 MPI_Datatype dtype, MPI_Op op, papc_prediction *rows,
                 int max, int *n, int *chosen) {
    if (papc_collective_name(coll) == NULL)
        return papc_error(MPI_ERR_ARG, "invalid collective %d", (int)coll);
    if (P < 1) return papc_error(MPI_ERR_ARG, "P must be at least 1, not %d",
                                 P);
    if (max < 0 || (max > 0 && !rows) || !n || !chosen)
        return papc_error(MPI_ERR_ARG, "papc_explain: NULL output");
    ensure_loaded();
    int commutative = 1;
    if (op != MPI_OP_NULL) MPI_Op_commutative(op, &commutative);
    papc_opclass k = op == MPI_OP_NULL ? PAPC_OPCLASS_FLOAT
                                       : op_class(op, dtype);
    /* What the plain call predicts: the size class's lower bound. */
    size_t at = class_size(size_class(bytes));
    int count = papc_registry_count(coll);
    int predicted = profile && sized_collective(coll);
    *n = count;
    *chosen = -1;
    double best = -1;
    for (int i = 0; i < count; i++) {
        const papc_alg_desc *a = papc_registry_row(coll, i);
        const char *note = sized_collective(coll)
                               ? "no profile"
                               : "not chosen by size (the fixed rules)";
        choice c = {i, -1, -1};
        if (predicted)
            c = predict_row(profile, a, i, P, at, commutative, k, &note, 0,
                            NULL);
        if (i < max) {
            rows[i].algorithm = a->info.name;
            rows[i].segsize = c.seg >= 0 ? seg_candidates[c.seg] : 0;
            rows[i].seconds = c.seconds;
            rows[i].note = note;
        }
        if (c.seconds >= 0 && (best < 0 || c.seconds < best)) {
            best = c.seconds;
            *chosen = i;
        }
    }
    if (*chosen < 0 || fixed_mode()) {
        int tsize = 1;
        if (dtype != MPI_DATATYPE_NULL) MPI_Type_size(dtype, &tsize);
        size_t elems = tsize > 0 ? bytes / (size_t)tsize : bytes;
        *chosen = row_index(coll,
                            fixed_choice(coll, class_size(size_class(bytes)),
                                         P, commutative, elems < (size_t)P));
        if (*chosen < max) rows[*chosen].note = "fixed rules";
    }
    return MPI_SUCCESS;
}
