/*
 * radix_k.h — the arithmetic of Radix-k (Peterka, Goodell, Ross, Shen,
 * Thakur, "A configurable algorithm for parallel image-compositing
 * applications", SC'09) as pure functions, no MPI; run by
 * src/coll/reduce/radix_k.c, unit-tested by tests/unit/test_radix_k.c.
 *
 * P is factored as k_0 * k_1 * ... * k_{r-1} (every k_i >= 2).  Process v
 * (a virtual rank, 0..P-1) has the mixed-radix digits
 *     d_i = (v / s_i) mod k_i,   s_i = k_0 * ... * k_{i-1}  (s_0 = 1),
 * and in round i its group is the k_i processes that differ from it in
 * digit i only: member j of the group is v + (j - d_i) s_i.
 *
 * The vector is cut into P near-equal blocks of whole elements (the first
 * count mod P one element longer; empty when count < P).  At the start of
 * round i every member of a group holds the same range of P / s_i blocks;
 * the range is cut into k_i equal parts of P / s_{i+1} blocks and member j
 * keeps part j.  After the r rounds process v holds one block, and the P
 * blocks are each held by exactly one process.
 *
 * The factorisation (papc_radix_factor) is the RXX rule of the
 * Clairvoyant-reduce paper's §6 baseline: divide the processes into groups
 * of one of a few preferred sizes, in order of preference, as often as
 * they divide P; what is left is split into its prime factors, each its own
 * group (P = 13 is one group of 13, a direct send).
 */
#ifndef PAPC_RADIX_K_H
#define PAPC_RADIX_K_H

/* Every factor is >= 2 and P < 2^31. */
#define PAPC_RADIX_MAX_ROUNDS 31
/* Most preferred sizes a list may hold (more are refused). */
#define PAPC_RADIX_MAX_PREFS 8
/* Largest preferred size accepted from a list. */
#define PAPC_RADIX_MAX_K 4096

typedef struct papc_radix {
    int size;                          /* P */
    int nrounds;                       /* r (0 when P = 1) */
    int k[PAPC_RADIX_MAX_ROUNDS];      /* group size of round i */
    int stride[PAPC_RADIX_MAX_ROUNDS + 1]; /* s_i; s_r = P */
} papc_radix;

/* The default preference list {8, 4, 2} and its length. */
extern const int papc_radix_default_prefs[];
extern const int papc_radix_default_nprefs;

/* Parses a preference list "8" or "4,2" (decimal sizes 2..PAPC_RADIX_MAX_K
 * separated by commas, at most PAPC_RADIX_MAX_PREFS of them) into prefs;
 * returns how many, or 0 when s is NULL, empty or not such a list (the
 * caller then uses the default: a half-understood list is not used). */
int papc_radix_parse_prefs(const char *s, int *prefs);

/* Factors P >= 1: for each preferred size in list order, as many groups of
 * it as divide what is left of P; then the prime factors of the rest in
 * ascending order.  Sizes < 2 in prefs are skipped. */
void papc_radix_factor(papc_radix *r, int P, const int *prefs, int nprefs);

/* Digit i of virtual rank v. */
int papc_radix_digit(const papc_radix *r, int v, int i);
/* Virtual rank of member j (digit j) of v's group in round i. */
int papc_radix_member(const papc_radix *r, int v, int i, int j);
/* Blocks [*blo, *blo + *nblocks) held by v at the start of round i
 * (0 <= i <= nrounds; i = nrounds: the one block v ends with). */
void papc_radix_blocks(const papc_radix *r, int v, int i, int *blo,
                       int *nblocks);
/* Elements [*off, *off + *len) of blocks [blo, blo + nblocks) when count
 * elements are cut into P blocks. */
void papc_radix_elems(int count, int P, int blo, int nblocks, int *off,
                      int *len);
/* Elements of part j of the range v's group holds at the start of round i
 * (what member j keeps and receives from the others). */
void papc_radix_part(const papc_radix *r, int count, int v, int i, int j,
                     int *off, int *len);

#endif /* PAPC_RADIX_K_H */
