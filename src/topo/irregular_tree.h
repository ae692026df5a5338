/*
 * irregular_tree.h — the ordered, size-aware binomial tree of Träff's
 * irregular gather/scatter (papers/irregular-gatherv-scatterv.md §2,
 * Lemmas 1-3), as pure functions over ranks and byte counts (no MPI).
 *
 * Ordered hypercube: at level k (k = 0 .. ⌈log2 p⌉-1) the ranks fall into
 * cubes of 2^k consecutive ranks, [a 2^k, (a+1) 2^k) cut at p; cubes 2a and
 * 2a+1 merge into cube a of level k+1.  Every cube has a *fixed root*, its
 * last rank (p-1 for the incomplete last cube), and a *gather root*, the
 * rank that holds (gather) or will hold (scatter) the cube's data.  At each
 * merge the two fixed roots exchange their cube's state and both apply the
 * same decision (papc_itree_decide): the gather root with the larger
 * gather-time estimate M - m_g wins (Lemma 1), unless the externally given
 * root lies in one of the cubes, which then always wins (Lemma 2).  The
 * loser hands its whole cube's data, a run of blocks in rank order, to the
 * winner — or, by the threshold rule below, straight to the given root.
 *
 * Graceful degradation (the paper's open item, end of §3): with a
 * threshold T > 0 (bytes), a block larger than T never enters the tree (it
 * travels alone between its process and the root), and a losing subtree
 * holding more than T bytes goes straight to the given root instead of
 * being relayed once more.  Independently of T, no relayed message may
 * exceed `cap` bytes (the MPI code passes INT_MAX, the largest count of a
 * byte message): a block above cap is sent alone, a loser whose data would
 * push the winner's subtree above cap goes straight to the root.
 */
#ifndef PAPC_IRREGULAR_TREE_H
#define PAPC_IRREGULAR_TREE_H

#include <stdint.h>

/* What a cube's fixed root knows of its cube, and what two fixed roots
 * exchange before a merge (three integers: constant-size messages). */
typedef struct papc_itree_cube {
    int64_t groot; /* gather root */
    int64_t bytes; /* M: bytes that reach the gather root through the tree */
    int64_t own;   /* m_g: the gather root's own block (tree bytes) */
} papc_itree_cube;

/* The outcome of one merge. */
typedef struct papc_itree_verdict {
    int upper_wins; /* 1: the upper cube's gather root gathers both */
    int direct;     /* 1: the loser's data goes straight to the given root */
} papc_itree_verdict;

/* Number of merge levels, ⌈log2 p⌉ (0 for p = 1). */
int papc_itree_rounds(int p);

/* The level-k cube holding rank i: [*lo, *hi]. */
void papc_itree_cube_range(int p, int k, int i, int *lo, int *hi);

/* The cube that merges with i's cube at level k: [*lo, *hi]; returns 0
 * when there is none (i's cube is the last, incomplete one and has no
 * upper partner: it moves up a level unchanged). */
int papc_itree_sibling_range(int p, int k, int i, int *lo, int *hi);

/* Fixed root of the level-k cube holding rank i: the cube's last rank,
 * p-1 for the incomplete last cube (the paper's special treatment of p-1:
 * flipping bit k of a fixed root may give a rank >= p; p-1 stands in). */
int papc_itree_fixed_root(int p, int k, int i);

/* 1 when a block of m bytes is kept out of the tree and moves alone
 * between its process and the root (m > threshold > 0, or m > cap). */
int papc_itree_block_direct(int64_t m, int64_t threshold, int64_t cap);

/* The merge rule.  root_side: 0 when the given root lies in the lower
 * cube, 1 in the upper one, -1 in neither.  Ties of the estimate go to the
 * cube with more data (the smaller one sends, Lemma 1), then to the upper
 * cube: its gather root is then its fixed root (the last rank), so with
 * equal blocks no fixed root ever has to tell its gather root the verdict
 * (one message step less per round).  Any rule works as long as every
 * process applies the same one. */
papc_itree_verdict papc_itree_decide(const papc_itree_cube *lower,
                                     const papc_itree_cube *upper,
                                     int root_side, int64_t threshold,
                                     int64_t cap);

/* The merged cube's state after a verdict. */
papc_itree_cube papc_itree_join(const papc_itree_cube *lower,
                                const papc_itree_cube *upper,
                                papc_itree_verdict v);

/* One rank's place in the whole tree, as the sequential builder sees it. */
typedef struct papc_itree_node {
    int parent;     /* rank its tree message goes to (the root: -1) */
    int round;      /* level at which it lost and sent (-1 at the root) */
    int64_t bytes;  /* bytes of that message (0: nothing is sent) */
    int to_root;    /* 1: the threshold/cap rule sends it to the root */
    int block_direct; /* 1: its own block goes to the root alone (it is
                         then a size-0 block in the tree) */
} papc_itree_node;

/* Builds the whole tree from all block sizes m[0..p) (bytes) for the
 * given root: exactly what the distributed construction computes, rank by
 * rank, from local knowledge.  The root uses it (MPI gives the root all
 * counts) and the unit tests compare against it.  O(p) time and a
 * temporary of p cube states; returns 0, or -1 when that cannot be
 * allocated. */
int papc_itree_build(int p, int root, const int64_t *m, int64_t threshold,
                      int64_t cap, papc_itree_node *out);

#endif /* PAPC_IRREGULAR_TREE_H */
