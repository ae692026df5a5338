/* dtype.c — temporaries sized by true extent, contiguity, copies between
 * datatypes, packed byte views, segmentation of a count into pieces of
 * about a segment size. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "core.h"

MPI_Aint papc_extent(MPI_Datatype t) {
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    return ext;
}

size_t papc_type_size(MPI_Datatype t) {
    int sz = 0;
    MPI_Type_size(t, &sz);
    return (size_t)sz;
}

int papc_tmpbuf_alloc(papc_tmpbuf *b, MPI_Datatype t, size_t count) {
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    size_t bytes = count ? (size_t)text + (count - 1) * (size_t)ext : 0;
    b->mem = malloc(bytes ? bytes : 1);
    if (!b->mem) {
        b->ptr = NULL;
        return papc_error(MPI_ERR_NO_MEM, "cannot allocate %zu bytes", bytes);
    }
    b->ptr = (char *)b->mem - tlb;
    return MPI_SUCCESS;
}

void papc_tmpbuf_free(papc_tmpbuf *b) {
    free(b->mem);
    b->mem = NULL;
    b->ptr = NULL;
}

/* ---- contiguity --------------------------------------------------------
 * memcpy may stand for MPI's pack/unpack only when the typemap is the
 * bytes in memory order: size = extent = true extent is not enough (a
 * dense struct whose typemap runs out of memory order packs its bytes in
 * another order, issue 11).  The answer comes from the type's constructor
 * tree (MPI_Type_get_envelope / MPI_Type_get_contents); an unknown
 * constructor counts as not contiguous, which only costs a pack. */

/* Data of one element of t: its typemap read in order visits the bytes
 * [true_lb, true_lb + size) in increasing order without a gap. */
static int in_order(MPI_Datatype t);

typedef struct type_geom {
    MPI_Aint lb, ext, tlb, text;
    size_t size;
} type_geom;

static void geom(MPI_Datatype t, type_geom *g) {
    MPI_Type_get_extent(t, &g->lb, &g->ext);
    MPI_Type_get_true_extent(t, &g->tlb, &g->text);
    g->size = papc_type_size(t);
}

/* A run of n elements of t starting at byte disp: whether it is in order
 * and gapless; *start and *end receive the bytes its data spans. */
static int run_in_order(MPI_Datatype t, MPI_Aint n, MPI_Aint disp,
                        MPI_Aint *start, MPI_Aint *end) {
    type_geom g;
    geom(t, &g);
    *start = disp + g.tlb;
    *end = *start + n * (MPI_Aint)g.size;
    if (n <= 0 || g.size == 0) return 1;
    return in_order(t) && (n == 1 || g.ext == (MPI_Aint)g.size);
}

/* Blocks (count, blocklength, displacement in bytes) of one old type, or
 * of per-block types (struct): in order when each block is and each
 * non-empty block's data starts where the previous one's ended. */
typedef struct blocks {
    int count;
    const int *bl;      /* NULL: every block has length bl1 */
    int bl1;
    const MPI_Aint *disp;
    MPI_Aint unit;      /* disp multiplier (old extent for indexed) */
    const int *idisp;   /* int displacements (indexed), else NULL */
    const MPI_Datatype *types; /* NULL: every block is old */
    MPI_Datatype old;
} blocks;

static int blocks_in_order(const blocks *b) {
    MPI_Aint prev_end = 0;
    int seen = 0;
    for (int i = 0; i < b->count; i++) {
        MPI_Datatype t = b->types ? b->types[i] : b->old;
        MPI_Aint n = b->bl ? b->bl[i] : b->bl1;
        MPI_Aint d = b->idisp ? (MPI_Aint)b->idisp[i] * b->unit
                              : b->disp[i] * b->unit;
        MPI_Aint start, end;
        if (!run_in_order(t, n, d, &start, &end)) return 0;
        if (start == end) continue; /* empty block */
        if (seen && start != prev_end) return 0;
        prev_end = end;
        seen = 1;
    }
    return 1;
}

/* Evenly spaced blocks (vector, hvector): in order when one block is and
 * the stride (in bytes) is one block's data. */
static int vector_in_order(MPI_Datatype old, int count, int bl,
                           MPI_Aint stride) {
    MPI_Aint start, end;
    if (!run_in_order(old, bl, 0, &start, &end)) return 0;
    return count <= 1 || start == end || stride == end - start;
}

/* One constructor: whether the typemap it builds from its old type(s) is
 * in order (see in_order). */
static int contents_in_order(int combiner, const int *ints,
                             const MPI_Aint *addrs, const MPI_Datatype *types) {
    MPI_Aint start, end, ext = papc_extent(types[0]);
    blocks b = {0, NULL, 0, NULL, 1, NULL, NULL, types[0]};
    switch (combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: /* the typemap is the old one's */
        return in_order(types[0]);
    case MPI_COMBINER_CONTIGUOUS:
        return run_in_order(types[0], ints[0], 0, &start, &end);
    case MPI_COMBINER_VECTOR:
        return vector_in_order(types[0], ints[0], ints[1],
                               (MPI_Aint)ints[2] * ext);
    case MPI_COMBINER_HVECTOR:
        return vector_in_order(types[0], ints[0], ints[1], addrs[0]);
    case MPI_COMBINER_INDEXED:
        b.count = ints[0], b.bl = ints + 1, b.idisp = ints + 1 + ints[0];
        b.unit = ext;
        return blocks_in_order(&b);
    case MPI_COMBINER_INDEXED_BLOCK:
        b.count = ints[0], b.bl1 = ints[1], b.idisp = ints + 2, b.unit = ext;
        return blocks_in_order(&b);
    case MPI_COMBINER_HINDEXED:
        b.count = ints[0], b.bl = ints + 1, b.disp = addrs;
        return blocks_in_order(&b);
    case MPI_COMBINER_HINDEXED_BLOCK:
        b.count = ints[0], b.bl1 = ints[1], b.disp = addrs;
        return blocks_in_order(&b);
    case MPI_COMBINER_STRUCT:
        b.count = ints[0], b.bl = ints + 1, b.disp = addrs, b.types = types;
        return blocks_in_order(&b);
    default: /* subarray, darray, f90 parameterized, ...: not known */
        return 0;
    }
}

/* Frees the derived types MPI_Type_get_contents returned (named ones are
 * not the caller's to free). */
static void free_contents_types(MPI_Datatype *types, int n) {
    for (int i = 0; i < n; i++) {
        int ni, na, nt, comb;
        if (MPI_Type_get_envelope(types[i], &ni, &na, &nt, &comb) ==
                MPI_SUCCESS &&
            comb != MPI_COMBINER_NAMED)
            MPI_Type_free(&types[i]);
    }
}

static int in_order(MPI_Datatype t) {
    int ni, na, nt, comb;
    if (MPI_Type_get_envelope(t, &ni, &na, &nt, &comb) != MPI_SUCCESS)
        return 0;
    if (comb == MPI_COMBINER_NAMED) { /* MPI_SHORT_INT has a hole */
        type_geom g;
        geom(t, &g);
        return g.text == (MPI_Aint)g.size;
    }
    int *ints = malloc((size_t)(ni + 1) * sizeof *ints);
    MPI_Aint *addrs = malloc((size_t)(na + 1) * sizeof *addrs);
    MPI_Datatype *types = malloc((size_t)(nt + 1) * sizeof *types);
    int ok = 0;
    if (ints && addrs && types && nt >= 1 &&
        MPI_Type_get_contents(t, ni, na, nt, ints, addrs, types) ==
            MPI_SUCCESS) {
        ok = contents_in_order(comb, ints, addrs, types);
        free_contents_types(types, nt);
    }
    free(ints);
    free(addrs);
    free(types);
    return ok;
}

/* Whole contiguity: in order, data from the buffer's address on, elements
 * back to back. */
static int compute_contiguous(MPI_Datatype t) {
    type_geom g;
    geom(t, &g);
    if (g.size == 0) return 1;
    return g.tlb == 0 && g.ext == (MPI_Aint)g.size && in_order(t);
}

/* Derived types cache the answer as an attribute (value 1 + answer, so a
 * dup copies it without allocation and a free needs no callback). */
static int contig_key = MPI_KEYVAL_INVALID;

static int is_named(MPI_Datatype t) {
    int ni, na, nt, comb;
    return MPI_Type_get_envelope(t, &ni, &na, &nt, &comb) == MPI_SUCCESS &&
           comb == MPI_COMBINER_NAMED;
}

int papc_type_contiguous(MPI_Datatype t) {
    /* Predefined types cannot carry attributes in every MPI: computed. */
    if (is_named(t)) return compute_contiguous(t);
    /* Racy only if two threads make their first call at once, as comm.c. */
    if (contig_key == MPI_KEYVAL_INVALID &&
        MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN,
                               &contig_key, NULL) != MPI_SUCCESS)
        return compute_contiguous(t);
    void *val = NULL;
    int found = 0;
    if (MPI_Type_get_attr(t, contig_key, &val, &found) == MPI_SUCCESS &&
        found)
        return (int)((intptr_t)val - 1);
    int r = compute_contiguous(t);
    MPI_Type_set_attr(t, contig_key, (void *)(intptr_t)(r + 1));
    return r;
}

int papc_copy(const void *src, int scount, MPI_Datatype stype, void *dst,
              int rcount, MPI_Datatype rtype) {
    size_t ssz = papc_type_size(stype), rsz = papc_type_size(rtype);
    int scontig = papc_type_contiguous(stype);
    int rcontig = papc_type_contiguous(rtype);
    size_t sbytes = ssz * (size_t)scount, rbytes = rsz * (size_t)rcount;
    if (sbytes > rbytes)
        return papc_error(MPI_ERR_TRUNCATE, "copy of %zu bytes into %zu",
                          sbytes, rbytes);
    if (sbytes == 0 || src == dst) return MPI_SUCCESS;
    /* Unpack only as many receive elements as the data fills. */
    int relems = (int)(sbytes / rsz);
    if (scontig && rcontig) {
        memmove(dst, src, sbytes);
        return MPI_SUCCESS;
    }
    if (scontig) { /* unpack straight from the contiguous source */
        int pos = 0;
        PAPC_CHECK(MPI_Unpack(src, (int)sbytes, &pos, dst, relems, rtype,
                              MPI_COMM_SELF));
        return MPI_SUCCESS;
    }
    int packsz = 0;
    PAPC_CHECK(MPI_Pack_size(scount, stype, MPI_COMM_SELF, &packsz));
    char *tmp = malloc((size_t)packsz ? (size_t)packsz : 1);
    if (!tmp) return papc_error(MPI_ERR_NO_MEM, "copy buffer");
    int pos = 0, rc = MPI_Pack(src, scount, stype, tmp, packsz, &pos,
                               MPI_COMM_SELF);
    if (rc == MPI_SUCCESS) {
        int upos = 0;
        if (rcontig) {
            memcpy(dst, tmp, (size_t)pos);
        } else {
            rc = MPI_Unpack(tmp, pos, &upos, dst, relems, rtype,
                            MPI_COMM_SELF);
        }
    }
    free(tmp);
    if (rc != MPI_SUCCESS) return papc_mpi_error(rc, "papc_copy");
    return MPI_SUCCESS;
}

/* ---- packed byte views -------------------------------------------------
 * Ranks may describe the same bytes with different datatypes (one
 * signature, other element sizes or layouts), so whatever is cut into
 * segments or halves across ranks is cut in bytes of the packed stream. */

int papc_bytes_init(papc_bytes *b, void *buf, int count, MPI_Datatype t) {
    b->buf = buf;
    b->count = count > 0 ? count : 0;
    b->t = t;
    b->len = (size_t)b->count * papc_type_size(t);
    b->staged = b->len > 0 && !papc_type_contiguous(t);
    b->ptr = buf;
    if (b->staged) {
        b->ptr = malloc(b->len);
        if (!b->ptr) {
            b->staged = 0;
            return papc_error(MPI_ERR_NO_MEM, "cannot stage %zu bytes",
                              b->len);
        }
    }
    return MPI_SUCCESS;
}

/* MPI_Pack and MPI_Unpack take int sizes: elements go in chunks of at
 * most INT_MAX bytes, each chunk packing to exactly its signature's bytes
 * (a homogeneous run; anything else is reported, never sent). */
static int move_packed(papc_bytes *b, int unpack) {
    size_t sz = papc_type_size(b->t);
    int per = (int)(INT_MAX / sz);
    for (int i = 0; i < b->count; i += per) {
        int n = b->count - i < per ? b->count - i : per, pos = 0, rc;
        char *user = papc_elem(b->buf, b->t, i);
        char *bytes = b->ptr + (size_t)i * sz;
        int nbytes = (int)((size_t)n * sz);
        rc = unpack ? MPI_Unpack(bytes, nbytes, &pos, user, n, b->t,
                                 MPI_COMM_SELF)
                    : MPI_Pack(user, n, b->t, bytes, nbytes, &pos,
                               MPI_COMM_SELF);
        if (rc != MPI_SUCCESS)
            return papc_mpi_error(rc, unpack ? "MPI_Unpack" : "MPI_Pack");
        if (pos != nbytes)
            return papc_error(MPI_ERR_INTERN, "%d elements packed to %d "
                              "bytes, not %d", n, pos, nbytes);
    }
    return MPI_SUCCESS;
}

int papc_bytes_pack(papc_bytes *b) {
    return b->staged ? move_packed(b, 0) : MPI_SUCCESS;
}

int papc_bytes_unpack(papc_bytes *b) {
    return b->staged ? move_packed(b, 1) : MPI_SUCCESS;
}

void papc_bytes_free(papc_bytes *b) {
    if (b->staged) free(b->ptr);
    b->ptr = NULL;
    b->staged = 0;
}

int papc_segment_count(size_t segsize, MPI_Datatype t, int count) {
    size_t sz = papc_type_size(t);
    if (segsize == 0 || sz == 0 || count <= 0) return count > 0 ? count : 1;
    size_t n = segsize / sz;
    if (n < 1) n = 1;
    if (n > (size_t)count) n = (size_t)count;
    return (int)n;
}
