/*
 * irregular_tree.c — Träff's ordered, size-aware binomial tree for
 * gatherv/scatterv (papers/irregular-gatherv-scatterv.md §2-3): the
 * distributed construction and the relaying at non-root processes, the
 * root's plan of messages, and the threshold of graceful degradation.
 * The algorithm files (gatherv/ and scatterv/size_aware_binomial.c) add the
 * root's own side.
 *
 * Construction (Lemma 3).  Sizes are bytes (count × type size: the type
 * signature, so processes may describe their blocks with different
 * types).  A non-root process knows only its own block.  In round k =
 * 0 .. ⌈log2 p⌉-1 the fixed roots (last ranks) of two sibling level-k cubes
 * exchange their cube's state — gather root, bytes M, gather root's own
 * bytes m_g (papc_itree_cube, three int64) — and apply the merge rule of
 * topo/irregular_tree.c; each then tells its cube's gather root, when that
 * is another process, the verdict: (its new parent, or itself plus the
 * child it gains and the child's bytes).  Gather roots learn nothing else,
 * so every round costs a fixed root one exchange and one small send, and a
 * gather root one small receive: 2⌈log2 p⌉ dependent steps in all.
 *
 * The given root (Lemma 2) always gathers the cubes it lies in, so these
 * merges need no message at all: the sibling cube's gather root knows it
 * loses to the root, and the root — which MPI gives every count — runs the
 * sequential builder (topo) over all sizes, O(p), and so knows every
 * message it will exchange before any arrives.  Departure from the paper:
 * there the root learns its children from its fixed roots round by round;
 * here it posts all its receives (gatherv) or starts all its sends
 * (scatterv) at once, so the scatter no longer waits for the construction
 * at the root (the drawback the paper notes in §3).
 *
 * Data.  Every message is a run of whole blocks in rank order; no process
 * reorders anything.  A leaf sends (receives) its block straight from
 * (into) the user's buffer with its own datatype.  A relaying process —
 * and only such a process — holds its subtree in an intermediate buffer of
 * bytes, allocated when it learns its parent (then its subtree is final):
 * the children's runs and its own block at their rank positions.
 * Relayed messages travel as MPI_PACKED.  Why: blocks of other processes
 * may not be a whole number of the relaying process's own datatype (its
 * type may be a 2-int contiguous type while a child holds 3 ints), and
 * MPI_BYTE does not match typed data under MPI's type-matching rules, but
 * MPI_PACKED matches any type on the other side (MPI-4.1 §3.3.1, §5.2).
 * So: a leaf sends typed and its parent receives MPI_PACKED; a relay
 * packs its own block in (MPI_Pack, the copy of Lemma 4's discussion) and
 * sends MPI_PACKED; the root receives typed, straight into its buffer.
 * This assumes packed data are the plain bytes of the type signature, as
 * on every homogeneous Open MPI and MPICH build; the relay checks that its
 * own block packs to exactly its size and fails with MPI_ERR_INTERN
 * otherwise.  Zero-byte messages are never sent: both ends know the size.
 *
 * Non-blocking: a relay posts its children's receives the moment it knows
 * its subtree and between construction rounds tests them, forwarding as
 * soon as they are in, so relaying overlaps the fixed-root duties a
 * process may still have and late children delay only their own subtree.
 *
 * Graceful degradation (§3, end; topo/irregular_tree.h): threshold T.
 * Forwarding m bytes once more costs β m; a message of its own costs the
 * root one start-up α.  A block, or a losing subtree, goes straight to the
 * root when β m > K α, i.e. m > T = K α / β, K = 2 (see below).
 * Every process decides from sizes it knows: its own block (non-root),
 * every block (root), a cube's M (the fixed roots and the gather root of
 * the loser, who learns it from the verdict).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "irregular_tree.h"

/* α and β of the development machine (2 cores shared with other jobs,
 * Open MPI 4.1.4 shared memory): P = 2 ping-pong, 2000 round trips per
 * size, best of 15 trials; α = one-way time of 0 bytes, β = slope over
 * 64 KiB - 1 MiB (MPI_Send/MPI_Recv of MPI_BYTE, 0 B - 1 MiB); 11 runs of
 *   mpirun --oversubscribe --allow-run-as-root --mca mpi_yield_when_idle 1 \
 *          -np 2 ./pingpong
 * gave α = 0.51 - 3.3 µs (median 0.78) and β = 0.088 - 0.30 ns/B (median
 * 0.13, i.e. 7.7 GB/s): α/β ≈ 6 KB (2.7 - 8.9 KB).  The medians: */
#define PAPC_ITREE_DEFAULT_ALPHA 0.8e-6
#define PAPC_ITREE_DEFAULT_BETA 1.3e-10
/* K: forwarding m bytes once more costs β m on that subtree's path (the
 * relay receives them and sends them again; above the eager limit each
 * hop also adds a rendezvous handshake), a direct message costs one α
 * at the root.  The α lands on the root's critical path, while Lemma 1
 * hides the forwarding behind the slower sibling subtree whenever that
 * exists, so ask for a clear saving: direct when β m > 2 α.  With the
 * defaults T = 2 α / β ≈ 12 KB (3000 ints). */
#define PAPC_ITREE_K 2.0
/* No relayed MPI_PACKED message may exceed an int count of bytes. */
#define PAPC_ITREE_CAP ((int64_t)INT_MAX)

#define MAX_CHILDREN 32 /* at most one per round: ⌈log2 p⌉ <= 31 */

static double env_double(const char *name, double dflt) {
    const char *s = papc_getenv(name);
    if (!s || !*s) return dflt;
    char *end;
    double v = strtod(s, &end);
    return end != s && v >= 0 ? v : dflt;
}

int64_t papc_itree_threshold(void) {
    const char *s = papc_getenv("PAPC_TUW_THRESHOLD");
    if (s && *s) {
        char *end;
        long long v = strtoll(s, &end, 10);
        if (end != s && v >= 0) return (int64_t)v;
    }
    double a = env_double("PAPC_ALPHA", PAPC_ITREE_DEFAULT_ALPHA);
    double b = env_double("PAPC_BETA", PAPC_ITREE_DEFAULT_BETA);
    if (a <= 0 || b <= 0) return 0;
    double t = PAPC_ITREE_K * a / b;
    return t >= 9.0e18 ? INT64_MAX : (int64_t)t;
}

/* ---- a non-root process ------------------------------------------------ */

typedef struct child {
    int src, lo, round; /* its gather root, first rank, merge level */
    int64_t bytes;
    int64_t off;        /* where its run sits in the relay buffer */
} child;

/* What a non-root process does with its data. */
typedef struct relay {
    const papc_call *c;
    papc_itree_dir dir;
    int64_t own;    /* own block in the tree, bytes (0 when sent alone) */
    int parent;     /* -1 until the process loses a merge */
    int64_t bytes;  /* its subtree: own + children */
    int nchild;
    child kid[MAX_CHILDREN];
    char *buf;      /* relay buffer (only with children) */
    MPI_Request in[MAX_CHILDREN];   /* children (gather) or parent (scatter) */
    MPI_Request out[MAX_CHILDREN + 1];
    int nin, nout;
    int forwarded;  /* outbound traffic posted */
} relay;

/* Children by rank, offsets in the buffer; returns the own block's
 * offset. */
static int64_t place_children(relay *R) {
    for (int i = 1; i < R->nchild; i++) { /* insertion sort, <= 31 */
        child x = R->kid[i];
        int j = i;
        for (; j > 0 && R->kid[j - 1].lo > x.lo; j--) R->kid[j] = R->kid[j - 1];
        R->kid[j] = x;
    }
    int64_t off = 0, own_off = -1;
    for (int i = 0; i < R->nchild; i++) {
        if (own_off < 0 && R->kid[i].lo > R->c->rank) {
            own_off = off;
            off += R->own;
        }
        R->kid[i].off = off;
        off += R->kid[i].bytes;
    }
    return own_off < 0 ? off : own_off;
}

/* Own block into (gather) or out of (scatter) the relay buffer. */
static int move_own(relay *R, int64_t own_off) {
    const papc_call *c = R->c;
    if (R->own == 0) return MPI_SUCCESS;
    int pos = (int)own_off;
    if (R->dir == PAPC_ITREE_GATHER)
        PAPC_CHECK(MPI_Pack(c->sendbuf, c->sendcount, c->sendtype, R->buf,
                            (int)R->bytes, &pos, c->comm));
    else
        PAPC_CHECK(MPI_Unpack(R->buf, (int)R->bytes, &pos, c->recvbuf,
                              c->recvcount, c->recvtype, c->comm));
    if (pos - own_off != R->own)
        return papc_error(MPI_ERR_INTERN,
                          "packed size of a block differs from its type "
                          "size (heterogeneous MPI?)");
    return MPI_SUCCESS;
}

/* The process has lost a merge: its subtree is final.  A leaf moves its
 * block straight between the user buffer and its parent; a relay sets up
 * its buffer and posts the inbound side. */
static int relay_start(relay *R) {
    const papc_call *c = R->c;
    if (R->bytes == 0) return MPI_SUCCESS; /* nothing below or here */
    if (R->nchild == 0) {
        R->forwarded = 1;
        if (R->dir == PAPC_ITREE_GATHER)
            return papc_isend(c, c->sendbuf, c->sendcount, c->sendtype,
                              R->parent, PAPC_ITREE_TAG_DATA,
                              &R->out[R->nout++]);
        return papc_irecv(c, c->recvbuf, c->recvcount, c->recvtype,
                          R->parent, PAPC_ITREE_TAG_DATA, &R->out[R->nout++]);
    }
    R->buf = malloc((size_t)R->bytes);
    if (!R->buf)
        return papc_error(MPI_ERR_NO_MEM, "relay buffer of %lld bytes",
                          (long long)R->bytes);
    int64_t own_off = place_children(R);
    if (R->dir == PAPC_ITREE_SCATTER)
        return papc_irecv(c, R->buf, (int)R->bytes, MPI_PACKED, R->parent,
                          PAPC_ITREE_TAG_DATA, &R->in[R->nin++]);
    for (int i = 0; i < R->nchild; i++) {
        int rc = papc_irecv(c, R->buf + R->kid[i].off, (int)R->kid[i].bytes,
                            MPI_PACKED, R->kid[i].src, PAPC_ITREE_TAG_DATA,
                            &R->in[R->nin++]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return move_own(R, own_off); /* copy while the children's data flow */
}

/* Inbound complete: a gather relay sends its subtree up; a scatter relay
 * takes its block and sends each child its run, the deepest subtree (the
 * latest merge) first, mirroring the gather. */
static int relay_forward(relay *R) {
    const papc_call *c = R->c;
    R->forwarded = 1;
    if (R->dir == PAPC_ITREE_GATHER)
        return papc_isend(c, R->buf, (int)R->bytes, MPI_PACKED, R->parent,
                          PAPC_ITREE_TAG_DATA, &R->out[R->nout++]);
    int rc = MPI_SUCCESS;
    for (int round = MAX_CHILDREN - 1; round >= 0 && rc == MPI_SUCCESS;
         round--)
        for (int i = 0; i < R->nchild && rc == MPI_SUCCESS; i++)
            if (R->kid[i].round == round)
                rc = papc_isend(c, R->buf + R->kid[i].off,
                                (int)R->kid[i].bytes, MPI_PACKED,
                                R->kid[i].src, PAPC_ITREE_TAG_DATA,
                                &R->out[R->nout++]);
    int64_t own_off = 0; /* own block last: the children wait for theirs */
    for (int i = 0; i < R->nchild && R->kid[i].lo < c->rank; i++)
        own_off += R->kid[i].bytes;
    return rc == MPI_SUCCESS ? move_own(R, own_off) : rc;
}

/* Between construction rounds: forward as soon as the inbound side is in. */
static int relay_poll(relay *R) {
    if (R->forwarded || R->nin == 0) return MPI_SUCCESS;
    int done = 0;
    int rc = papc_testall(R->nin, R->in, &done);
    if (rc != MPI_SUCCESS) return rc;
    return done ? relay_forward(R) : MPI_SUCCESS;
}

static int relay_finish(relay *R) {
    if (!R->forwarded && R->nin > 0) {
        int rc = papc_waitall(R->nin, R->in);
        if (rc == MPI_SUCCESS) rc = relay_forward(R);
        if (rc != MPI_SUCCESS) return rc;
    }
    return papc_waitall(R->nout, R->out);
}

/* The verdict a fixed root passes to its gather root: the gather root's
 * parent (itself when it wins), and the child it gains with its bytes. */
typedef struct verdict_msg {
    int64_t parent, child, bytes;
} verdict_msg;

/* Everything of the construction a non-root process keeps. */
typedef struct builder {
    relay R;
    int groot;            /* still the gather root of its cube */
    papc_itree_cube fs;   /* its cube's state while it is the fixed root */
    int64_t threshold;
    verdict_msg sent[MAX_CHILDREN]; /* verdicts in flight to gather roots */
    MPI_Request sreq[MAX_CHILDREN];
    int nsent;
} builder;

static int apply_verdict(builder *B, const verdict_msg *v, int k, int slo) {
    relay *R = &B->R;
    if (v->parent == R->c->rank) { /* won: a child's run to gather */
        if (v->bytes > 0)
            R->kid[R->nchild++] = (child){(int)v->child, slo, k, v->bytes, 0};
        R->bytes += v->bytes;
        return MPI_SUCCESS;
    }
    B->groot = 0;
    R->parent = (int)v->parent;
    return relay_start(R);
}

/* The fixed root's part of round k: exchange states with the sibling's
 * fixed root, decide, and pass the verdict to this cube's gather root (or
 * return it when that is this process). */
static int fixed_root_round(builder *B, int lower, int partner,
                            verdict_msg *mine, int *have_mine) {
    const papc_call *c = B->R.c;
    papc_itree_cube other;
    int rc = papc_sendrecv(c, &B->fs, 3, MPI_INT64_T, partner, &other, 3,
                           MPI_INT64_T, partner, PAPC_ITREE_TAG_STATE);
    if (rc != MPI_SUCCESS) return rc;
    const papc_itree_cube *lo = lower ? &B->fs : &other;
    const papc_itree_cube *up = lower ? &other : &B->fs;
    papc_itree_verdict v = papc_itree_decide(lo, up, -1, B->threshold,
                                             PAPC_ITREE_CAP);
    int mine_wins = v.upper_wins != lower;
    verdict_msg out;
    if (mine_wins)
        out = (verdict_msg){B->fs.groot, v.direct ? -1 : other.groot,
                            v.direct ? 0 : other.bytes};
    else
        out = (verdict_msg){v.direct ? c->root : other.groot, -1, 0};
    int64_t gr = B->fs.groot;
    B->fs = papc_itree_join(lo, up, v); /* kept by the upper fixed root */
    if (gr == c->rank) {
        *mine = out;
        *have_mine = 1;
        return MPI_SUCCESS;
    }
    int slot = B->nsent++;
    B->sent[slot] = out;
    return papc_isend(c, &B->sent[slot], 3, MPI_INT64_T, (int)gr,
                      PAPC_ITREE_TAG_INFO, &B->sreq[slot]);
}

/* Round k of the construction at this process. */
static int build_round(builder *B, int k) {
    const papc_call *c = B->R.c;
    int p = c->size, me = c->rank, r = c->root;
    int clo, chi, slo, shi;
    if (!papc_itree_sibling_range(p, k, me, &slo, &shi)) return MPI_SUCCESS;
    papc_itree_cube_range(p, k, me, &clo, &chi);
    if (r >= clo && r <= chi) return MPI_SUCCESS; /* the root gathers it */
    if (r >= slo && r <= shi) { /* Lemma 2: this cube goes to the root */
        if (!B->groot) return MPI_SUCCESS;
        verdict_msg v = {r, -1, 0};
        return apply_verdict(B, &v, k, slo);
    }
    verdict_msg v;
    int have = 0, rc = MPI_SUCCESS;
    if (me == chi) /* fixed root of this cube */
        rc = fixed_root_round(B, clo < slo, shi, &v, &have);
    if (rc != MPI_SUCCESS || !B->groot) return rc;
    if (!have)
        rc = papc_recv(c, &v, 3, MPI_INT64_T, chi, PAPC_ITREE_TAG_INFO);
    return rc == MPI_SUCCESS ? apply_verdict(B, &v, k, slo) : rc;
}

int papc_itree_nonroot(const papc_call *c, papc_itree_dir dir) {
    builder B;
    memset(&B, 0, sizeof B);
    relay *R = &B.R;
    R->c = c;
    R->dir = dir;
    R->parent = -1;
    B.groot = 1;
    B.threshold = papc_itree_threshold();
    int gather = dir == PAPC_ITREE_GATHER;
    int64_t m = gather ? (int64_t)c->sendcount * (int64_t)papc_type_size(c->sendtype)
                       : (int64_t)c->recvcount * (int64_t)papc_type_size(c->recvtype);
    MPI_Request lone = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS;
    if (m > 0 && papc_itree_block_direct(m, B.threshold, PAPC_ITREE_CAP)) {
        /* Too big for the tree: straight between the user buffer and the
         * root, posted first so it flows during the construction. */
        rc = gather ? papc_isend(c, c->sendbuf, c->sendcount, c->sendtype,
                                 c->root, PAPC_ITREE_TAG_BLOCK, &lone)
                    : papc_irecv(c, c->recvbuf, c->recvcount, c->recvtype,
                                 c->root, PAPC_ITREE_TAG_BLOCK, &lone);
        m = 0;
    }
    R->own = R->bytes = m;
    B.fs = (papc_itree_cube){c->rank, m, m};
    int d = papc_itree_rounds(c->size);
    for (int k = 0; k < d && rc == MPI_SUCCESS; k++) {
        rc = relay_poll(R);
        if (rc == MPI_SUCCESS) rc = build_round(&B, k);
    }
    if (rc == MPI_SUCCESS) rc = relay_finish(R);
    if (rc == MPI_SUCCESS) rc = papc_waitall(B.nsent, B.sreq);
    if (rc == MPI_SUCCESS) rc = papc_waitall(1, &lone);
    if (rc != MPI_SUCCESS) {
        papc_cleanup_requests(R->nin, R->in);
        papc_cleanup_requests(R->nout, R->out);
        papc_cleanup_requests(B.nsent, B.sreq);
        papc_cleanup_requests(1, &lone);
    }
    free(R->buf);
    return rc;
}

/* ---- the root ----------------------------------------------------------- */

static int msg_order(const void *a, const void *b) {
    const papc_itree_msg *x = a, *y = b;
    if (x->round != y->round) return x->round < y->round ? -1 : 1;
    return (x->peer > y->peer) - (x->peer < y->peer);
}

/* The root-child whose message carries rank j's block (j itself for a
 * lone block), -1 when the block is empty. */
static int carrier(const papc_itree_node *node, const int64_t *m, int root,
                   int j) {
    if (j == root || m[j] == 0) return -1;
    if (node[j].block_direct) return j;
    while (node[j].parent != root) j = node[j].parent;
    return j;
}

int papc_itree_root_plan(const papc_call *c, MPI_Datatype t,
                         papc_itree_root *plan) {
    int p = c->size, r = c->root, rc = MPI_SUCCESS;
    int64_t tsz = (int64_t)papc_type_size(t);
    int64_t *m = malloc((size_t)p * sizeof *m);
    papc_itree_node *node = malloc((size_t)p * sizeof *node);
    int *owner = malloc((size_t)p * sizeof *owner);
    int *pos = calloc((size_t)p + 1, sizeof *pos);
    plan->nmsg = 0;
    plan->msg = NULL;
    plan->ranks = malloc((size_t)p * sizeof *plan->ranks);
    if (!m || !node || !owner || !pos || !plan->ranks) {
        rc = papc_error(MPI_ERR_NO_MEM, "gatherv/scatterv plan for %d ranks", p);
        goto out;
    }
    for (int j = 0; j < p; j++) m[j] = (int64_t)c->counts[j] * tsz;
    if (papc_itree_build(p, r, m, papc_itree_threshold(), PAPC_ITREE_CAP,
                         node)) {
        rc = papc_error(MPI_ERR_NO_MEM, "gatherv/scatterv tree for %d ranks", p);
        goto out;
    }
    /* Bucket the ranks by carrier, rank order kept within a bucket. */
    for (int j = 0; j < p; j++) {
        owner[j] = carrier(node, m, r, j);
        if (owner[j] >= 0) {
            if (pos[owner[j] + 1]++ == 0) plan->nmsg++;
        }
    }
    plan->msg = malloc((size_t)(plan->nmsg ? plan->nmsg : 1) * sizeof *plan->msg);
    if (!plan->msg) {
        rc = papc_error(MPI_ERR_NO_MEM, "gatherv/scatterv plan");
        goto out;
    }
    int n = 0;
    for (int s = 0; s < p; s++) {
        int nblk = pos[s + 1];
        pos[s + 1] = pos[s] + nblk; /* pos[s]: first slot of bucket s */
        if (nblk == 0) continue;
        int lone = node[s].block_direct;
        plan->msg[n++] = (papc_itree_msg){
            s, lone ? -1 : node[s].round,
            lone ? PAPC_ITREE_TAG_BLOCK : PAPC_ITREE_TAG_DATA, pos[s], nblk};
    }
    for (int j = 0; j < p; j++)
        if (owner[j] >= 0) plan->ranks[pos[owner[j]]++] = j;
    qsort(plan->msg, (size_t)plan->nmsg, sizeof *plan->msg, msg_order);
out:
    free(m);
    free(node);
    free(owner);
    free(pos);
    if (rc != MPI_SUCCESS) papc_itree_root_free(plan);
    return rc;
}

void papc_itree_root_free(papc_itree_root *plan) {
    free(plan->msg);
    free(plan->ranks);
    plan->msg = NULL;
    plan->ranks = NULL;
    plan->nmsg = 0;
}

int papc_itree_layout(const papc_call *c, const papc_itree_root *plan,
                      const papc_itree_msg *msg, const void *buf,
                      MPI_Datatype t, char **addr, int *count,
                      MPI_Datatype *type, int *derived) {
    const int *rk = plan->ranks + msg->first;
    int n = msg->nblk;
    long long total = 0;
    int run = 1;
    for (int q = 0; q < n; q++) {
        total += c->counts[rk[q]];
        if (q > 0 && (long long)c->displs[rk[q]] !=
                         (long long)c->displs[rk[q - 1]] + c->counts[rk[q - 1]])
            run = 0;
    }
    *derived = 0;
    if (run && total <= INT_MAX) { /* straight into place, one run */
        *addr = papc_elem(buf, t, c->displs[rk[0]]);
        *count = (int)total;
        *type = t;
        return MPI_SUCCESS;
    }
    /* Gaps, reversed or interleaved displacements: the run's blocks are
     * placed by an indexed type over the root's displacements. */
    int *bl = malloc(2 * (size_t)n * sizeof *bl);
    if (!bl) return papc_error(MPI_ERR_NO_MEM, "indexed type of %d blocks", n);
    int *dp = bl + n;
    for (int q = 0; q < n; q++) {
        bl[q] = c->counts[rk[q]];
        dp[q] = c->displs[rk[q]];
    }
    int rc = MPI_Type_indexed(n, bl, dp, t, type);
    free(bl);
    if (rc != MPI_SUCCESS) return papc_mpi_error(rc, "MPI_Type_indexed");
    rc = MPI_Type_commit(type);
    if (rc != MPI_SUCCESS) {
        MPI_Type_free(type);
        return papc_mpi_error(rc, "MPI_Type_commit");
    }
    *addr = (char *)buf;
    *count = 1;
    *derived = 1;
    return MPI_SUCCESS;
}

/* ---- the root ---------------------------------------------------------- */

/* Posts one planned message: a receive into recvbuf (gatherv) or a send
 * from sendbuf (scatterv). */
static int root_post(const papc_call *c, papc_itree_dir dir,
                     const papc_itree_root *plan, const papc_itree_msg *msg,
                     MPI_Request *req) {
    int gather = dir == PAPC_ITREE_GATHER;
    const void *buf = gather ? c->recvbuf : c->sendbuf;
    MPI_Datatype t = gather ? c->recvtype : c->sendtype;
    char *addr;
    int count, derived;
    MPI_Datatype type;
    int rc = papc_itree_layout(c, plan, msg, buf, t, &addr, &count, &type,
                               &derived);
    if (rc != MPI_SUCCESS) return rc;
    rc = gather ? papc_irecv(c, addr, count, type, msg->peer, msg->sub, req)
                : papc_isend(c, addr, count, type, msg->peer, msg->sub, req);
    if (derived) MPI_Type_free(&type); /* the pending request keeps it */
    return rc;
}

/* Which plan entry to start i-th.  Gatherv: in plan order.  Scatterv:
 * lone blocks first, then subtrees backwards (highest merge level first),
 * so the deepest subtree starts relaying earliest. */
static int root_order(const papc_itree_root *plan, papc_itree_dir dir,
                      int nlone, int i) {
    if (dir == PAPC_ITREE_GATHER || i < nlone) return i;
    return plan->nmsg - 1 - (i - nlone);
}

static int root_own_block(const papc_call *c, papc_itree_dir dir) {
    if (dir == PAPC_ITREE_GATHER)
        return c->sendbuf == MPI_IN_PLACE
                   ? MPI_SUCCESS
                   : papc_copy(c->sendbuf, c->sendcount, c->sendtype,
                               papc_elem(c->recvbuf, c->recvtype,
                                         c->displs[c->root]),
                               c->counts[c->root], c->recvtype);
    return c->recvbuf == MPI_IN_PLACE
               ? MPI_SUCCESS
               : papc_copy(papc_elem(c->sendbuf, c->sendtype,
                                     c->displs[c->root]),
                           c->counts[c->root], c->sendtype, c->recvbuf,
                           c->recvcount, c->recvtype);
}

int papc_itree_root_run(const papc_call *c, papc_itree_dir dir) {
    papc_itree_root plan;
    int rc = papc_itree_root_plan(
        c, dir == PAPC_ITREE_GATHER ? c->recvtype : c->sendtype, &plan);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Request *reqs =
        malloc((size_t)(plan.nmsg ? plan.nmsg : 1) * sizeof *reqs);
    if (!reqs) {
        papc_itree_root_free(&plan);
        return papc_error(MPI_ERR_NO_MEM, "%d requests", plan.nmsg);
    }
    int nlone = 0, n = 0;
    while (nlone < plan.nmsg && plan.msg[nlone].round < 0) nlone++;
    for (; n < plan.nmsg && rc == MPI_SUCCESS; n++)
        rc = root_post(c, dir, &plan,
                       &plan.msg[root_order(&plan, dir, nlone, n)], &reqs[n]);
    /* The own block is copied while the messages are in flight. */
    if (rc == MPI_SUCCESS) rc = root_own_block(c, dir);
    if (rc == MPI_SUCCESS)
        rc = papc_waitall(n, reqs);
    else
        papc_cleanup_requests(n, reqs);
    free(reqs);
    papc_itree_root_free(&plan);
    return rc;
}
