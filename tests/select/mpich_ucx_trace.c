/*
 * mpich_ucx_trace.c — LD_PRELOAD library that counts the messages an MPICH
 * process sends through UCX while the program has profiling switched on
 * (MPI_Pcontrol(1) ... MPI_Pcontrol(0)), for check-export-mpich.sh (issue
 * 12, item 6): the only view of which algorithm Debian's MPICH 4.0.2 ran.
 *
 * Why: MPICH's collective algorithms are hidden symbols of libmpich.so and
 * it prints nothing about its choice, but every point-to-point message of
 * an algorithm leaves the process through ucp_tag_send_nbx (libucp.so,
 * called through the PLT) when MPIR_CVAR_NOLOCAL=1 keeps MPICH's shared
 * memory path out.  Algorithms differ in how many messages each rank
 * sends, to how many peers, with how many bytes.
 *
 * At MPI_Finalize each rank prints one line on stderr:
 *   ucx-trace: rank R sends N bytes B peers K
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucp/api/ucp.h>
#include <mpi.h>

#define MAX_PEERS 256

static int counting;
static long sends, bytes;
static int npeers;
static ucp_ep_h peers[MAX_PEERS];

static void *next_symbol(const char *sym) {
    void *f = dlsym(RTLD_NEXT, sym);
    if (!f) {
        fprintf(stderr, "ucx-trace: %s not found in the next library\n", sym);
        abort();
    }
    return f;
}

static void count(ucp_ep_h ep, size_t n) {
    if (!counting) return;
    sends++;
    bytes += (long)n;
    for (int i = 0; i < npeers; i++)
        if (peers[i] == ep) return;
    if (npeers < MAX_PEERS) peers[npeers++] = ep;
}

/* MPICH sends contiguous data as bytes (count = bytes). */
ucs_status_ptr_t ucp_tag_send_nbx(ucp_ep_h ep, const void *buf, size_t n,
                                  ucp_tag_t tag,
                                  const ucp_request_param_t *param) {
    typedef ucs_status_ptr_t (*fn)(ucp_ep_h, const void *, size_t,
                                   ucp_tag_t, const ucp_request_param_t *);
    static fn real;
    if (!real) real = (fn)next_symbol("ucp_tag_send_nbx");
    count(ep, n);
    return real(ep, buf, n, tag, param);
}

ucs_status_ptr_t ucp_tag_send_sync_nbx(ucp_ep_h ep, const void *buf,
                                       size_t n, ucp_tag_t tag,
                                       const ucp_request_param_t *param) {
    typedef ucs_status_ptr_t (*fn)(ucp_ep_h, const void *, size_t,
                                   ucp_tag_t, const ucp_request_param_t *);
    static fn real;
    if (!real) real = (fn)next_symbol("ucp_tag_send_sync_nbx");
    count(ep, n);
    return real(ep, buf, n, tag, param);
}

/* The program brackets the call it wants counted. */
int MPI_Pcontrol(const int level, ...) {
    counting = level != 0;
    return MPI_SUCCESS;
}

int MPI_Finalize(void) {
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "ucx-trace: rank %d sends %ld bytes %ld peers %d\n", rank,
            sends, bytes, npeers);
    fflush(stderr);
    return PMPI_Finalize();
}
