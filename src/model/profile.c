/*
 * profile.c — a machine's model parameters, in and out of JSON (jansson).
 *
 * The file papc-tune writes and the selector reads, version 1:
 *
 *   {
 *     "papcoll_profile": 1,                  integer, PAPC_PROFILE_VERSION
 *     "papcoll_version": "0.1.0",            the library that wrote it
 *     "machine": "host, CPU model, cores",
 *     "mpi_library": "Open MPI v4.1.4, ...", MPI_Get_library_version, line 1
 *     "date": "2024-05-01T12:00:00Z",        ISO 8601, UTC
 *     "p_range": [2, 64],                    integers, 1 <= pmin <= pmax
 *     "eager_limit": 65536,                  bytes
 *     "p2p": {"alpha": 1.2e-06, "beta": 3.1e-10},
 *     "gamma": {"2": 1.0, "3": 1.11, ...},   γ(p), keys "2".."n" without
 *                                            gaps, n <= PAPC_GAMMA_MAX;
 *                                            {} for γ ≡ 1
 *     "gamma_op": {"float": .., "int": .., "other": ..},  s/byte
 *     "copy": 1.0e-10,                       δ, s/byte
 *     "algorithms": [                        at most PAPC_PROFILE_MAX_ALGS
 *       {"collective": "bcast", "name": "binomial", "alpha": .., "beta": ..,
 *        "sigma": .., "rel": .., "points": 40, "p": 8}, ...]
 *                                            "nu_msg", "nu_byte" (optional,
 *                                            default 0): the contention
 *                                            parameters (model.h);
 *                                            "p" (optional, default 0): the
 *                                            P the fit is for, 0 = every P;
 *                                            "segsize" (optional): the
 *                                            fit is for this segment size
 *                                            alone (0 = whole message);
 *                                            one entry per (collective,
 *                                            name, p, segsize)
 *     "arrival": [                           optional (issue 15 calibration;
 *       {"collective": "gather",             papc-tune --arrival-refit), at
 *        "name": "binomial", "a": 1.1,       most PAPC_PROFILE_MAX_ARRIVAL:
 *        "c": 0.3, "rel": 0.08,              the row's arrival correction
 *        "points": 32, "p": 8}, ...]         ē ≈ a·(ē_model − t0) + c·t0
 *                                            (model.h); a >= 0, c > 0; "p"
 *                                            optional as above;
 *                                            "bytes_min", "bytes_max"
 *                                            (optional): the calls it is
 *                                            for, by their bytes' size
 *                                            class (no bytes_max: no
 *                                            upper bound; neither: every
 *                                            size); one entry per
 *                                            (collective, name, p) and
 *                                            byte range, ranges apart;
 *                                            "a_above_wait" instead of "a":
 *                                            the form anchored at the
 *                                            unavoidable wait w,
 *                                            ē − w ≈ a·(ē_model − t0 − w)
 *                                            + c·t0 (model.h)
 *   }
 *
 * Every field is required; keys the reader does not know are ignored (a
 * change of meaning takes a new version number).  Numbers must be finite
 * and >= 0; integers may be written where reals are expected, not the
 * other way round; strings must fit their fields in papc_profile (no
 * silent truncation: what is read is what was written).
 *
 * Reading refuses anything else with one line "PATH: problem" and a zeroed
 * profile: the selector falls back on its fixed rules rather than choose
 * from half a profile.  Writing builds the JSON, checks it with the
 * reader's own checks (papc-tune can never write a file papcoll refuses),
 * and replaces the file atomically (temporary file in the same directory,
 * fsync, rename), reals with 17 significant digits so that every double
 * reads back bit for bit.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "model.h"

/* A problem found in a profile, before the path is put in front. */
typedef struct problem {
    char text[384];
} problem;

static int complain(problem *pb, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pb->text, sizeof pb->text, fmt, ap);
    va_end(ap);
    return -1;
}

/* "PATH: <prefix><problem>" as one line: control characters (a newline in
 * a name read from the file, say) become '?'. */
static void report(char *err, size_t errlen, const char *path,
                   const char *prefix, const char *text) {
    if (!err || errlen == 0) return;
    snprintf(err, errlen, "%s: %s%s", path ? path : "(null)", prefix, text);
    for (char *c = err; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
}

static const char *type_name(const json_t *v) {
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "?";
}

/* ---- reading: one checked getter per kind of field ---- */

/* The field `key` of obj, named `where` + key in messages. */
static json_t *field(problem *pb, const json_t *obj, const char *where,
                     const char *key) {
    json_t *v = json_object_get(obj, key);
    if (!v) complain(pb, "missing field %s%s", where, key);
    return v;
}

static int get_number(problem *pb, const json_t *obj, const char *where,
                      const char *key, double *out) {
    json_t *v = field(pb, obj, where, key);
    if (!v) return -1;
    if (!json_is_number(v))
        return complain(pb, "field %s%s must be a number, not %s", where, key,
                        type_name(v));
    double x = json_number_value(v);
    if (!isfinite(x))
        return complain(pb, "field %s%s is not finite", where, key);
    if (x < 0)
        return complain(pb, "field %s%s is negative (%g)", where, key, x);
    *out = x;
    return 0;
}

static int get_int(problem *pb, const json_t *obj, const char *where,
                   const char *key, int *out) {
    json_t *v = field(pb, obj, where, key);
    if (!v) return -1;
    if (!json_is_integer(v))
        return complain(pb, "field %s%s must be an integer, not %s", where,
                        key, type_name(v));
    json_int_t x = json_integer_value(v);
    if (x < 0)
        return complain(pb, "field %s%s is negative (%lld)", where, key,
                        (long long)x);
    if (x > INT_MAX)
        return complain(pb, "field %s%s is too large (%lld)", where, key,
                        (long long)x);
    *out = (int)x;
    return 0;
}

/* A string that fits buf (cap bytes with the NUL); empty refused when
 * nonempty is set. */
static int get_string(problem *pb, const json_t *obj, const char *where,
                      const char *key, char *buf, size_t cap, int nonempty) {
    json_t *v = field(pb, obj, where, key);
    if (!v) return -1;
    if (!json_is_string(v))
        return complain(pb, "field %s%s must be a string, not %s", where, key,
                        type_name(v));
    size_t len = json_string_length(v);
    if (len >= cap)
        return complain(pb, "field %s%s is longer than %zu bytes", where, key,
                        cap - 1);
    if (nonempty && len == 0)
        return complain(pb, "field %s%s is empty", where, key);
    memcpy(buf, json_string_value(v), len + 1);
    return 0;
}

static json_t *get_typed(problem *pb, const json_t *obj, const char *key,
                         int want_object) {
    json_t *v = field(pb, obj, "", key);
    if (!v) return NULL;
    if (want_object ? !json_is_object(v) : !json_is_array(v)) {
        complain(pb, "field %s must be %s, not %s", key,
                 want_object ? "an object" : "an array", type_name(v));
        return NULL;
    }
    return v;
}

/* ---- reading: the sections ---- */

static int read_version(problem *pb, const json_t *root, papc_profile *out) {
    json_t *v = json_object_get(root, "papcoll_profile");
    if (!v)
        return complain(pb, "missing field papcoll_profile (not a papcoll "
                            "profile)");
    if (!json_is_integer(v))
        return complain(pb, "field papcoll_profile must be an integer, not %s",
                        type_name(v));
    if (json_integer_value(v) != PAPC_PROFILE_VERSION)
        return complain(pb, "profile version %lld, this papcoll reads version "
                            "%d",
                        (long long)json_integer_value(v),
                        PAPC_PROFILE_VERSION);
    out->version = PAPC_PROFILE_VERSION;
    return 0;
}

static int read_strings(problem *pb, const json_t *root, papc_profile *out) {
    if (get_string(pb, root, "", "papcoll_version", out->papcoll_version,
                   sizeof out->papcoll_version, 0) ||
        get_string(pb, root, "", "machine", out->machine, sizeof out->machine,
                   0) ||
        get_string(pb, root, "", "mpi_library", out->mpi_library,
                   sizeof out->mpi_library, 0) ||
        get_string(pb, root, "", "date", out->date, sizeof out->date, 0))
        return -1;
    return 0;
}

static int read_p_range(problem *pb, const json_t *root, papc_profile *out) {
    json_t *r = get_typed(pb, root, "p_range", 0);
    if (!r) return -1;
    if (json_array_size(r) != 2)
        return complain(pb, "field p_range must hold 2 integers [pmin, pmax], "
                            "not %zu values",
                        json_array_size(r));
    json_t *lo = json_array_get(r, 0), *hi = json_array_get(r, 1);
    if (!json_is_integer(lo) || !json_is_integer(hi))
        return complain(pb, "field p_range must hold integers");
    json_int_t pmin = json_integer_value(lo), pmax = json_integer_value(hi);
    if (pmin < 1 || pmax < pmin || pmax > INT_MAX)
        return complain(pb, "field p_range [%lld, %lld] is not a range of "
                            "process counts (1 <= pmin <= pmax)",
                        (long long)pmin, (long long)pmax);
    out->pmin = (int)pmin;
    out->pmax = (int)pmax;
    return 0;
}

static int read_p2p(problem *pb, const json_t *root, papc_profile *out) {
    json_t *o = get_typed(pb, root, "p2p", 1);
    if (!o) return -1;
    return get_number(pb, o, "p2p.", "alpha", &out->p2p.alpha) ||
                   get_number(pb, o, "p2p.", "beta", &out->p2p.beta)
               ? -1
               : 0;
}

/* A key "2".."PAPC_GAMMA_MAX" in canonical decimal; 0 otherwise. */
static int gamma_key(const char *key) {
    size_t len = strlen(key);
    if (len == 0 || len > 3 || key[0] == '0') return 0;
    int p = 0;
    for (size_t i = 0; i < len; i++) {
        if (key[i] < '0' || key[i] > '9') return 0;
        p = p * 10 + (key[i] - '0');
    }
    return p >= 2 && p <= PAPC_GAMMA_MAX ? p : 0;
}

static int read_gamma(problem *pb, const json_t *root, papc_profile *out) {
    json_t *o = get_typed(pb, root, "gamma", 1);
    if (!o) return -1;
    int seen[PAPC_GAMMA_MAX + 1] = {0}, n = 0;
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        int p = gamma_key(key);
        if (!p)
            return complain(pb, "gamma key \"%s\" is not a process count in "
                                "2..%d",
                            key, PAPC_GAMMA_MAX);
        if (get_number(pb, o, "gamma.", key, &out->gamma.g[p])) return -1;
        seen[p] = 1;
        if (p > n) n = p;
    }
    for (int p = 2; p <= n; p++)
        if (!seen[p])
            return complain(pb, "gamma has no entry for p = %d (entries must "
                                "run from 2 to the largest p without gaps)",
                            p);
    out->gamma.n = n;
    return 0;
}

static int read_gamma_op(problem *pb, const json_t *root, papc_profile *out) {
    json_t *o = get_typed(pb, root, "gamma_op", 1);
    if (!o) return -1;
    for (int k = 0; k < PAPC_OPCLASS_COUNT; k++)
        if (get_number(pb, o, "gamma_op.", papc_opclass_name((papc_opclass)k),
                       &out->gamma_op[k]))
            return -1;
    return 0;
}

static int read_alg(problem *pb, const json_t *a, int i,
                    papc_profile_alg *alg) {
    char where[32];
    snprintf(where, sizeof where, "algorithms[%d].", i);
    if (!json_is_object(a))
        return complain(pb, "field algorithms[%d] must be an object, not %s",
                        i, type_name(a));
    if (get_string(pb, a, where, "collective", alg->collective,
                   sizeof alg->collective, 1) ||
        get_string(pb, a, where, "name", alg->name, sizeof alg->name, 1) ||
        get_number(pb, a, where, "alpha", &alg->ab.alpha) ||
        get_number(pb, a, where, "beta", &alg->ab.beta) ||
        get_number(pb, a, where, "sigma", &alg->sigma) ||
        get_number(pb, a, where, "rel", &alg->rel) ||
        get_int(pb, a, where, "points", &alg->points))
        return -1;
    alg->p = 0;
    if (json_object_get(a, "p") && get_int(pb, a, where, "p", &alg->p))
        return -1;
    alg->ab.nu_msg = alg->ab.nu_byte = 0;
    if (json_object_get(a, "nu_msg") &&
        get_number(pb, a, where, "nu_msg", &alg->ab.nu_msg))
        return -1;
    if (json_object_get(a, "nu_byte") &&
        get_number(pb, a, where, "nu_byte", &alg->ab.nu_byte))
        return -1;
    alg->per_seg = 0, alg->segsize = 0;
    if (json_object_get(a, "segsize")) {
        if (get_number(pb, a, where, "segsize", &alg->segsize)) return -1;
        alg->per_seg = 1;
    }
    return 0;
}

static int same_entry(const papc_profile_alg *a, const papc_profile_alg *b) {
    return strncmp(a->collective, b->collective, sizeof a->collective) == 0 &&
           strncmp(a->name, b->name, sizeof a->name) == 0 && a->p == b->p &&
           a->per_seg == b->per_seg &&
           (!a->per_seg || a->segsize == b->segsize);
}

static int listed_before(const papc_profile *p, int i) {
    for (int j = 0; j < i; j++)
        if (same_entry(&p->algs[j], &p->algs[i])) return 1;
    return 0;
}

static int read_algorithms(problem *pb, const json_t *root,
                           papc_alg_exists_fn exists, papc_profile *out) {
    json_t *arr = get_typed(pb, root, "algorithms", 0);
    if (!arr) return -1;
    size_t n = json_array_size(arr);
    if (n > PAPC_PROFILE_MAX_ALGS)
        return complain(pb, "%zu algorithms, this papcoll reads at most %d", n,
                        PAPC_PROFILE_MAX_ALGS);
    for (size_t i = 0; i < n; i++) {
        papc_profile_alg *alg = &out->algs[i];
        if (read_alg(pb, json_array_get(arr, i), (int)i, alg)) return -1;
        if (listed_before(out, (int)i))
            return complain(pb, "algorithm %s/%s is listed twice%s",
                            alg->collective, alg->name,
                            alg->p ? " for the same p" : "");
        if (exists && !exists(alg->collective, alg->name))
            return complain(pb, "algorithm %s/%s does not exist in this "
                                "papcoll",
                            alg->collective, alg->name);
        out->nalgs = (int)i + 1;
    }
    return 0;
}

static int read_arrival_entry(problem *pb, const json_t *a, int i,
                              papc_profile_arrival *k) {
    char where[32];
    snprintf(where, sizeof where, "arrival[%d].", i);
    if (!json_is_object(a))
        return complain(pb, "field arrival[%d] must be an object, not %s", i,
                        type_name(a));
    if (get_string(pb, a, where, "collective", k->collective,
                   sizeof k->collective, 1) ||
        get_string(pb, a, where, "name", k->name, sizeof k->name, 1))
        return -1;
    /* "a_above_wait": the anchored form (model.h); a reader that knows
     * only "a" refuses such an entry instead of misreading it */
    int has_a = json_object_get(a, "a") != NULL;
    k->anchored = json_object_get(a, "a_above_wait") != NULL;
    if (has_a && k->anchored)
        return complain(pb, "field %sa and %sa_above_wait are both given",
                        where, where);
    if (get_number(pb, a, where, k->anchored ? "a_above_wait" : "a", &k->a) ||
        get_number(pb, a, where, "c", &k->c) ||
        get_number(pb, a, where, "rel", &k->rel) ||
        get_int(pb, a, where, "points", &k->points))
        return -1;
    k->p = 0;
    if (json_object_get(a, "p") && get_int(pb, a, where, "p", &k->p))
        return -1;
    k->bytes_min = k->bytes_max = 0;
    if (json_object_get(a, "bytes_min") &&
        get_number(pb, a, where, "bytes_min", &k->bytes_min))
        return -1;
    if (json_object_get(a, "bytes_max")) {
        if (get_number(pb, a, where, "bytes_max", &k->bytes_max)) return -1;
        if (!(k->bytes_max >= k->bytes_min) || k->bytes_max == 0)
            return complain(pb, "field %sbytes_max (%g) is not above "
                                "bytes_min (%g)",
                            where, k->bytes_max, k->bytes_min);
    }
    /* c = 0 would predict a balanced call to cost nothing: that row would
     * win every arrival-aware choice */
    if (k->c == 0) return complain(pb, "field %sc is 0", where);
    return 0;
}

/* Would two entries of one (collective, name, p) both claim a call?  The
 * entry for every size claims only what no sized one does. */
static int ranges_overlap(const papc_profile_arrival *x,
                          const papc_profile_arrival *y) {
    if (papc_arrival_sized(x) != papc_arrival_sized(y)) return 0;
    if (!papc_arrival_sized(x)) return 1;
    double xmax = x->bytes_max > 0 ? x->bytes_max : INFINITY;
    double ymax = y->bytes_max > 0 ? y->bytes_max : INFINITY;
    return x->bytes_min <= ymax && y->bytes_min <= xmax;
}

/* The optional section "arrival" (absent in profiles before it). */
static int read_arrival(problem *pb, const json_t *root,
                        papc_alg_exists_fn exists, papc_profile *out) {
    if (!json_object_get(root, "arrival")) return 0;
    json_t *arr = get_typed(pb, root, "arrival", 0);
    if (!arr) return -1;
    size_t n = json_array_size(arr);
    if (n > PAPC_PROFILE_MAX_ARRIVAL)
        return complain(pb, "%zu arrival corrections, this papcoll reads at "
                            "most %d",
                        n, PAPC_PROFILE_MAX_ARRIVAL);
    for (size_t i = 0; i < n; i++) {
        papc_profile_arrival *k = &out->arrival[i];
        if (read_arrival_entry(pb, json_array_get(arr, i), (int)i, k))
            return -1;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(out->arrival[j].collective, k->collective) &&
                !strcmp(out->arrival[j].name, k->name) &&
                out->arrival[j].p == k->p &&
                ranges_overlap(&out->arrival[j], k))
                return complain(pb, "arrival correction %s/%s is listed "
                                    "twice%s",
                                k->collective, k->name,
                                papc_arrival_sized(k)
                                    ? " for overlapping byte ranges"
                                    : "");
        if (exists && !exists(k->collective, k->name))
            return complain(pb, "arrival correction for %s/%s: no such "
                                "algorithm in this papcoll",
                            k->collective, k->name);
        out->narrival = (int)i + 1;
    }
    return 0;
}

/* Every check of the reader, on a parsed document. */
static int profile_from_json(problem *pb, const json_t *root,
                             papc_alg_exists_fn exists, papc_profile *out) {
    memset(out, 0, sizeof *out);
    if (!json_is_object(root))
        return complain(pb, "not a papcoll profile (the top level is %s, not "
                            "an object)",
                        type_name(root));
    double eager = 0, copy = 0;
    if (read_version(pb, root, out) || read_strings(pb, root, out) ||
        read_p_range(pb, root, out) ||
        get_number(pb, root, "", "eager_limit", &eager) ||
        read_p2p(pb, root, out) || read_gamma(pb, root, out) ||
        read_gamma_op(pb, root, out) ||
        get_number(pb, root, "", "copy", &copy) ||
        read_algorithms(pb, root, exists, out) ||
        read_arrival(pb, root, exists, out))
        return -1;
    out->eager = eager;
    out->copy = copy;
    return 0;
}

/* Opens path for reading, refusing what is not a regular file. */
static FILE *open_profile(problem *pb, const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        complain(pb, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        complain(pb, "cannot open: %s", strerror(EISDIR));
        return NULL;
    }
    return f;
}

int papc_profile_read(const char *path, papc_alg_exists_fn exists,
                      papc_profile *out, char *err, size_t errlen) {
    problem pb = {{0}};
    if (!out) {
        report(err, errlen, path, "", "no profile to read into");
        return -1;
    }
    memset(out, 0, sizeof *out);
    FILE *f = path ? open_profile(&pb, path) : NULL;
    if (!path) complain(&pb, "no path given");
    if (!f) {
        report(err, errlen, path, "", pb.text);
        return -1;
    }
    json_error_t jerr;
    json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
    fclose(f);
    int rc;
    if (!root)
        rc = complain(&pb, "line %d, column %d: %s", jerr.line, jerr.column,
                      jerr.text);
    else
        rc = profile_from_json(&pb, root, exists, out);
    json_decref(root);
    if (rc != 0) {
        memset(out, 0, sizeof *out);
        report(err, errlen, path, "", pb.text);
    }
    return rc;
}

/* ---- writing ---- */

/* Builds the document; a double JSON cannot hold (NaN, inf) or a string
 * that is not UTF-8 is named in pb. */
typedef struct builder {
    problem *pb;
    int failed;
} builder;

static void put(builder *b, json_t *obj, const char *key, json_t *v,
                const char *what) {
    if (b->failed) {
        json_decref(v);
        return;
    }
    if (!v || json_object_set_new(obj, key, v) != 0) {
        b->failed = 1;
        complain(b->pb, "%s", what);
    }
}

static void put_real(builder *b, json_t *obj, const char *where,
                     const char *key, double x) {
    char what[96];
    snprintf(what, sizeof what, "field %s%s is not finite", where, key);
    put(b, obj, key, isfinite(x) ? json_real(x) : NULL, what);
}

static void put_string(builder *b, json_t *obj, const char *where,
                       const char *key, const char *s, size_t cap) {
    char what[96];
    snprintf(what, sizeof what, "field %s%s is not valid UTF-8", where, key);
    put(b, obj, key, json_stringn(s, strnlen(s, cap)), what);
}

static json_t *build_alg(builder *b, const papc_profile_alg *a, int i) {
    char where[32];
    snprintf(where, sizeof where, "algorithms[%d].", i);
    json_t *o = json_object();
    put_string(b, o, where, "collective", a->collective, sizeof a->collective);
    put_string(b, o, where, "name", a->name, sizeof a->name);
    put_real(b, o, where, "alpha", a->ab.alpha);
    put_real(b, o, where, "beta", a->ab.beta);
    put_real(b, o, where, "sigma", a->sigma);
    put_real(b, o, where, "rel", a->rel);
    put(b, o, "points", json_integer(a->points), "out of memory");
    if (a->p) put(b, o, "p", json_integer(a->p), "out of memory");
    if (a->ab.nu_msg) put_real(b, o, where, "nu_msg", a->ab.nu_msg);
    if (a->ab.nu_byte) put_real(b, o, where, "nu_byte", a->ab.nu_byte);
    if (a->per_seg) put_real(b, o, where, "segsize", a->segsize);
    return o;
}

static json_t *build_arrival(builder *b, const papc_profile_arrival *k,
                             int i) {
    char where[32];
    snprintf(where, sizeof where, "arrival[%d].", i);
    json_t *o = json_object();
    put_string(b, o, where, "collective", k->collective,
               sizeof k->collective);
    put_string(b, o, where, "name", k->name, sizeof k->name);
    put_real(b, o, where, k->anchored ? "a_above_wait" : "a", k->a);
    put_real(b, o, where, "c", k->c);
    put_real(b, o, where, "rel", k->rel);
    put(b, o, "points", json_integer(k->points), "out of memory");
    if (k->p) put(b, o, "p", json_integer(k->p), "out of memory");
    if (k->bytes_min > 0) put_real(b, o, where, "bytes_min", k->bytes_min);
    if (k->bytes_max > 0) put_real(b, o, where, "bytes_max", k->bytes_max);
    return o;
}

/* The section only when there are corrections: a profile without them
 * reads as before. */
static void put_arrival(builder *b, json_t *root, const papc_profile *p) {
    int n = p->narrival;
    if (n == 0) return;
    if (n < 0 || n > PAPC_PROFILE_MAX_ARRIVAL) {
        b->failed = 1;
        complain(b->pb, "narrival = %d is not in 0..%d", n,
                 PAPC_PROFILE_MAX_ARRIVAL);
        return;
    }
    json_t *arr = json_array();
    for (int i = 0; i < n && !b->failed; i++)
        if (json_array_append_new(arr, build_arrival(b, &p->arrival[i], i))) {
            b->failed = 1;
            complain(b->pb, "out of memory");
        }
    put(b, root, "arrival", arr, "out of memory");
}

static json_t *build_gamma(builder *b, const papc_gamma *g) {
    json_t *o = json_object();
    if (g->n < 0 || g->n == 1 || g->n > PAPC_GAMMA_MAX) {
        b->failed = 1;
        complain(b->pb, "gamma.n = %d is not 0 or in 2..%d", g->n,
                 PAPC_GAMMA_MAX);
        return o;
    }
    for (int p = 2; p <= g->n; p++) {
        char key[16];
        snprintf(key, sizeof key, "%d", p);
        put_real(b, o, "gamma.", key, g->g[p]);
    }
    return o;
}

static json_t *build_json(builder *b, const papc_profile *p) {
    json_t *root = json_object(), *o;
    put(b, root, "papcoll_profile", json_integer(PAPC_PROFILE_VERSION),
        "out of memory");
    put_string(b, root, "", "papcoll_version", p->papcoll_version,
               sizeof p->papcoll_version);
    put_string(b, root, "", "machine", p->machine, sizeof p->machine);
    put_string(b, root, "", "mpi_library", p->mpi_library,
               sizeof p->mpi_library);
    put_string(b, root, "", "date", p->date, sizeof p->date);
    put(b, root, "p_range", json_pack("[ii]", p->pmin, p->pmax),
        "out of memory");
    put_real(b, root, "", "eager_limit", p->eager);
    o = json_object();
    put_real(b, o, "p2p.", "alpha", p->p2p.alpha);
    put_real(b, o, "p2p.", "beta", p->p2p.beta);
    put(b, root, "p2p", o, "out of memory");
    put(b, root, "gamma", build_gamma(b, &p->gamma), "out of memory");
    o = json_object();
    for (int k = 0; k < PAPC_OPCLASS_COUNT; k++)
        put_real(b, o, "gamma_op.", papc_opclass_name((papc_opclass)k),
                 p->gamma_op[k]);
    put(b, root, "gamma_op", o, "out of memory");
    put_real(b, root, "", "copy", p->copy);
    json_t *arr = json_array();
    int n = p->nalgs;
    if (n < 0 || n > PAPC_PROFILE_MAX_ALGS) {
        b->failed = 1;
        complain(b->pb, "nalgs = %d is not in 0..%d", n, PAPC_PROFILE_MAX_ALGS);
        n = 0;
    }
    for (int i = 0; i < n && !b->failed; i++)
        if (json_array_append_new(arr, build_alg(b, &p->algs[i], i)) != 0) {
            b->failed = 1;
            complain(b->pb, "out of memory");
        }
    put(b, root, "algorithms", arr, "out of memory");
    put_arrival(b, root, p);
    return root;
}

/* Writes doc to tmp, flushed to the disk. */
static int write_file(problem *pb, const char *tmp, const json_t *doc) {
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0) return complain(pb, "cannot create %s: %s", tmp,
                                strerror(errno));
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        return complain(pb, "cannot write %s: %s", tmp, strerror(e));
    }
    int bad = json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) ||
              fputc('\n', f) == EOF || fflush(f) != 0 || fsync(fd) != 0;
    int e = errno;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    return bad ? complain(pb, "cannot write %s: %s", tmp, strerror(e)) : 0;
}

int papc_profile_write(const char *path, const papc_profile *p, char *err,
                       size_t errlen) {
    problem pb = {{0}};
    if (!path || !p) {
        report(err, errlen, path, "", "no profile to write");
        return -1;
    }
    builder b = {&pb, 0};
    json_t *doc = build_json(&b, p);
    papc_profile *check = b.failed ? NULL : malloc(sizeof *check);
    int rc = -1;
    if (b.failed)
        report(err, errlen, path, "refusing to write: ", pb.text);
    else if (!check)
        report(err, errlen, path, "", "out of memory");
    else if (profile_from_json(&pb, doc, NULL, check) != 0)
        report(err, errlen, path, "refusing to write: ", pb.text);
    else {
        size_t cap = strlen(path) + 32;
        char *tmp = malloc(cap);
        if (tmp) snprintf(tmp, cap, "%s.tmp.%ld", path, (long)getpid());
        if (!tmp)
            report(err, errlen, path, "", "out of memory");
        else if (write_file(&pb, tmp, doc) != 0) {
            unlink(tmp);
            report(err, errlen, path, "", pb.text);
        } else if (rename(tmp, path) != 0) {
            int e = errno;
            unlink(tmp);
            complain(&pb, "cannot rename %s to it: %s", tmp, strerror(e));
            report(err, errlen, path, "", pb.text);
        } else
            rc = 0;
        free(tmp);
    }
    free(check);
    json_decref(doc);
    return rc;
}

/* ---- lookup and hash ---- */

static int same_alg(const papc_profile_alg *a, const char *collective,
                    const char *name) {
    return strlen(collective) < sizeof a->collective &&
           strlen(name) < sizeof a->name &&
           strncmp(a->collective, collective, sizeof a->collective) == 0 &&
           strncmp(a->name, name, sizeof a->name) == 0;
}

static int alg_count(const papc_profile *p) {
    return p->nalgs < 0 ? 0 : p->nalgs < PAPC_PROFILE_MAX_ALGS
                                  ? p->nalgs : PAPC_PROFILE_MAX_ALGS;
}

const papc_profile_alg *papc_profile_find_p(const papc_profile *p,
                                            const char *collective,
                                            const char *name, int at) {
    if (!p || !collective || !name) return NULL;
    for (int i = 0; i < alg_count(p); i++)
        if (same_alg(&p->algs[i], collective, name) && p->algs[i].p == at &&
            !p->algs[i].per_seg)
            return &p->algs[i];
    return NULL;
}

/* The every-P entry, else the first. */
const papc_profile_alg *papc_profile_find(const papc_profile *p,
                                          const char *collective,
                                          const char *name) {
    const papc_profile_alg *a = papc_profile_find_p(p, collective, name, 0);
    if (a || !p || !collective || !name) return a;
    for (int i = 0; i < alg_count(p); i++)
        if (same_alg(&p->algs[i], collective, name) && !p->algs[i].per_seg)
            return &p->algs[i];
    return NULL;
}

const papc_profile_arrival *papc_profile_find_arrival(const papc_profile *p,
                                                      const char *collective,
                                                      const char *name,
                                                      int P, double bytes) {
    if (!p || !collective || !name) return NULL;
    int n = p->narrival < 0 ? 0 : p->narrival > PAPC_PROFILE_MAX_ARRIVAL
                                      ? PAPC_PROFILE_MAX_ARRIVAL
                                      : p->narrival;
    /* best[0..3]: this P sized, this P every size, every P sized, every P
     * every size -- the first found in that order wins */
    const papc_profile_arrival *best[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < n; i++) {
        const papc_profile_arrival *k = &p->arrival[i];
        if (strncmp(k->collective, collective, sizeof k->collective) ||
            strncmp(k->name, name, sizeof k->name) ||
            (k->p != P && k->p != 0))
            continue;
        int sized = papc_arrival_sized(k);
        if (sized && (bytes < k->bytes_min ||
                      (k->bytes_max > 0 && bytes > k->bytes_max)))
            continue;
        int slot = (k->p == P ? 0 : 2) + !sized;
        if (!best[slot]) best[slot] = k;
    }
    for (int s = 0; s < 4; s++)
        if (best[s]) return best[s];
    return NULL;
}

/* Does entry a belong to the set asked for: the pooled entries (seg < 0)
 * or those fitted to segment size seg alone? */
static int in_set(const papc_profile_alg *a, double seg) {
    return seg < 0 ? !a->per_seg : a->per_seg && a->segsize == seg;
}

/* The nearest per-P entries of one set around P; the every-P entry of the
 * set when it has no per-P ones. */
static int bracket_in(const papc_profile *p, const char *collective,
                      const char *name, int P, double seg,
                      const papc_profile_alg **lo,
                      const papc_profile_alg **hi) {
    const papc_profile_alg *below = NULL, *above = NULL, *every = NULL;
    for (int i = 0; i < alg_count(p); i++) {
        const papc_profile_alg *a = &p->algs[i];
        if (!same_alg(a, collective, name) || !in_set(a, seg)) continue;
        if (a->p <= 0) {
            if (!every) every = a;
            continue;
        }
        if (a->p <= P && (!below || a->p > below->p)) below = a;
        if (a->p >= P && (!above || a->p < above->p)) above = a;
    }
    if (!below && !above) {
        *lo = *hi = every;
        return every != NULL;
    }
    *lo = below ? below : above;
    *hi = above ? above : below;
    return 1;
}

void papc_profile_bracket(const papc_profile *p, const char *collective,
                          const char *name, int P,
                          const papc_profile_alg **lo,
                          const papc_profile_alg **hi) {
    *lo = *hi = NULL;
    if (!p || !collective || !name) return;
    if (!bracket_in(p, collective, name, P, -1, lo, hi))
        *lo = *hi = papc_profile_find(p, collective, name);
}

void papc_profile_bracket_seg(const papc_profile *p, const char *collective,
                              const char *name, int P, double seg,
                              const papc_profile_alg **lo,
                              const papc_profile_alg **hi) {
    *lo = *hi = NULL;
    if (!p || !collective || !name) return;
    if (seg < 0 || !bracket_in(p, collective, name, P, seg, lo, hi))
        papc_profile_bracket(p, collective, name, P, lo, hi);
}

/* 64-bit FNV-1a. */
#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static uint64_t fnv_bytes(uint64_t h, const void *data, size_t len) {
    const unsigned char *c = data;
    for (size_t i = 0; i < len; i++) {
        h ^= c[i];
        h *= FNV_PRIME;
    }
    return h;
}

static uint64_t fnv_int(uint64_t h, int64_t x) {
    return fnv_bytes(h, &x, sizeof x);
}

/* By value: -0.0 hashes as 0.0. */
static uint64_t fnv_double(uint64_t h, double x) {
    if (x == 0) x = 0;
    return fnv_bytes(h, &x, sizeof x);
}

/* The terminating NUL too, so that ("ab", "c") and ("a", "bc") differ. */
static uint64_t fnv_string(uint64_t h, const char *s, size_t cap) {
    size_t len = strnlen(s, cap);
    h = fnv_bytes(h, s, len);
    return fnv_bytes(h, "", 1);
}

/* Everything the selector reads: the version, P range, eager limit, p2p,
 * γ table, γ_op, δ and each algorithm's collective, name, α, β in file
 * order, and the arrival corrections' a, c; not the descriptive strings
 * (machine, date, ...) nor the fit statistics (sigma, rel, points), which
 * do not change a decision. */
uint64_t papc_profile_hash(const papc_profile *p) {
    if (!p) return 0;
    uint64_t h = FNV_OFFSET;
    h = fnv_int(h, p->version);
    h = fnv_int(h, p->pmin);
    h = fnv_int(h, p->pmax);
    h = fnv_double(h, p->eager);
    h = fnv_double(h, p->p2p.alpha);
    h = fnv_double(h, p->p2p.beta);
    int gn = p->gamma.n < 0 ? 0 : p->gamma.n > PAPC_GAMMA_MAX ? PAPC_GAMMA_MAX
                                                              : p->gamma.n;
    h = fnv_int(h, gn);
    for (int q = 2; q <= gn; q++) h = fnv_double(h, p->gamma.g[q]);
    for (int k = 0; k < PAPC_OPCLASS_COUNT; k++)
        h = fnv_double(h, p->gamma_op[k]);
    h = fnv_double(h, p->copy);
    int n = p->nalgs < 0 ? 0 : p->nalgs > PAPC_PROFILE_MAX_ALGS
                                   ? PAPC_PROFILE_MAX_ALGS
                                   : p->nalgs;
    h = fnv_int(h, n);
    for (int i = 0; i < n; i++) {
        const papc_profile_alg *a = &p->algs[i];
        h = fnv_string(h, a->collective, sizeof a->collective);
        h = fnv_string(h, a->name, sizeof a->name);
        h = fnv_int(h, a->p);
        h = fnv_int(h, a->per_seg);
        h = fnv_double(h, a->per_seg ? a->segsize : 0);
        h = fnv_double(h, a->ab.alpha);
        h = fnv_double(h, a->ab.beta);
        h = fnv_double(h, a->ab.nu_msg);
        h = fnv_double(h, a->ab.nu_byte);
    }
    /* only when present, so a profile without corrections keeps its hash */
    int na = p->narrival < 0 ? 0 : p->narrival > PAPC_PROFILE_MAX_ARRIVAL
                                       ? PAPC_PROFILE_MAX_ARRIVAL
                                       : p->narrival;
    if (na > 0) h = fnv_int(h, na);
    for (int i = 0; i < na; i++) {
        const papc_profile_arrival *k = &p->arrival[i];
        h = fnv_string(h, k->collective, sizeof k->collective);
        h = fnv_string(h, k->name, sizeof k->name);
        h = fnv_int(h, k->p);
        h = fnv_double(h, k->a);
        h = fnv_double(h, k->c);
        if (k->anchored) h = fnv_int(h, 2);   /* the first form's hash kept */
        if (papc_arrival_sized(k)) {          /* the pooled entry's kept */
            h = fnv_double(h, k->bytes_min);
            h = fnv_double(h, k->bytes_max);
        }
    }
    return h ? h : 1;
}
