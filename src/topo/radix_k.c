/*
 * radix_k.c — factorisation, digits, groups and block ranges of Radix-k
 * (Peterka et al., SC'09); see radix_k.h.
 *
 * Default preference list {8, 4, 2}: Peterka et al. found group sizes
 * around 8 best for their direct-send rounds (enough messages in flight to
 * use the network, few enough that a round's k-1 messages do not queue);
 * 4 and then 2 absorb the remaining powers of two, so a power of two never
 * needs more than one group smaller than 8 (16 = 8*2, 32 = 8*4, 64 = 8*8).
 * Greedy in list order, not balanced (16 = 8*2, not 4*4): that is the RXX
 * rule the Clairvoyant paper compares against, it never takes more rounds
 * than needed for the preferred size, and PAPC_RADIX_K=4 gives 4*4 for
 * whoever wants fewer messages per round (Σ (k_i - 1) = 6 instead of 8).
 */
#include <ctype.h>
#include <stdlib.h>

#include "radix_k.h"

const int papc_radix_default_prefs[] = {8, 4, 2};
const int papc_radix_default_nprefs =
    (int)(sizeof papc_radix_default_prefs / sizeof *papc_radix_default_prefs);

int papc_radix_parse_prefs(const char *s, int *prefs) {
    int n = 0;
    if (!s) return 0;
    while (isspace((unsigned char)*s)) s++;
    if (!*s) return 0;
    for (;;) {
        char *end;
        long x = strtol(s, &end, 10);
        if (end == s || x < 2 || x > PAPC_RADIX_MAX_K ||
            n == PAPC_RADIX_MAX_PREFS)
            return 0;
        prefs[n++] = (int)x;
        while (isspace((unsigned char)*end)) end++;
        if (!*end) return n;
        if (*end != ',') return 0;
        s = end + 1;
    }
}

static void push_factor(papc_radix *r, int k) {
    r->k[r->nrounds] = k;
    r->stride[r->nrounds + 1] = r->stride[r->nrounds] * k;
    r->nrounds++;
}

void papc_radix_factor(papc_radix *r, int P, const int *prefs, int nprefs) {
    int rest = P < 1 ? 1 : P;
    r->size = rest;
    r->nrounds = 0;
    r->stride[0] = 1;
    for (int p = 0; p < nprefs; p++) {
        if (prefs[p] < 2) continue;
        while (rest % prefs[p] == 0) {
            push_factor(r, prefs[p]);
            rest /= prefs[p];
        }
    }
    /* Trial division is enough: P < 2^31, so at most 46341 candidates. */
    for (int q = 2; (long long)q * q <= rest; q++)
        while (rest % q == 0) {
            push_factor(r, q);
            rest /= q;
        }
    if (rest > 1) push_factor(r, rest); /* no factor <= sqrt: a prime */
}

int papc_radix_digit(const papc_radix *r, int v, int i) {
    return v / r->stride[i] % r->k[i];
}

int papc_radix_member(const papc_radix *r, int v, int i, int j) {
    return v + (j - papc_radix_digit(r, v, i)) * r->stride[i];
}

/* Part d_l of round l's range starts P / s_{l+1} * d_l blocks into it. */
void papc_radix_blocks(const papc_radix *r, int v, int i, int *blo,
                       int *nblocks) {
    int lo = 0;
    for (int l = 0; l < i; l++)
        lo += r->size / r->stride[l + 1] * papc_radix_digit(r, v, l);
    *blo = lo;
    *nblocks = r->size / r->stride[i];
}

/* Block b starts at b*q + min(b, rem): the first rem blocks hold q + 1. */
static long long block_start(int count, int P, int b) {
    int q = count / P, rem = count % P;
    return (long long)b * q + (b < rem ? b : rem);
}

void papc_radix_elems(int count, int P, int blo, int nblocks, int *off,
                      int *len) {
    long long lo = block_start(count, P, blo);
    *off = (int)lo;
    *len = (int)(block_start(count, P, blo + nblocks) - lo);
}

void papc_radix_part(const papc_radix *r, int count, int v, int i, int j,
                     int *off, int *len) {
    int blo, nb;
    papc_radix_blocks(r, v, i, &blo, &nb);
    int part = nb / r->k[i];
    papc_radix_elems(count, r->size, blo + j * part, part, off, len);
}
