/* dtype.c — temporaries sized by true extent, copies between datatypes,
 * segmentation of a count into pieces of about a segment size. */
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

static int is_contiguous(MPI_Datatype t, size_t *size_out) {
    MPI_Aint lb, ext, tlb, text;
    size_t sz = papc_type_size(t);
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    *size_out = sz;
    return (MPI_Aint)sz == ext && (MPI_Aint)sz == text && tlb == 0 && lb == 0;
}

int papc_copy(const void *src, int scount, MPI_Datatype stype, void *dst,
              int rcount, MPI_Datatype rtype) {
    size_t ssz, rsz;
    int scontig = is_contiguous(stype, &ssz);
    int rcontig = is_contiguous(rtype, &rsz);
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

int papc_segment_count(size_t segsize, MPI_Datatype t, int count) {
    size_t sz = papc_type_size(t);
    if (segsize == 0 || sz == 0 || count <= 0) return count > 0 ? count : 1;
    size_t n = segsize / sz;
    if (n < 1) n = 1;
    if (n > (size_t)count) n = (size_t)count;
    return (int)n;
}
