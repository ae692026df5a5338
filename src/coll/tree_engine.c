/*
 * tree_engine.c — the generic segmented tree broadcast and reduction (see
 * tree_engine.h), after Open MPI coll/base's generic bcast and generic
 * reduce.
 *
 * Broadcast: Algorithm 1 of model-based-selection.md §III-A.  The root
 * sends each segment to all its children with non-blocking sends and waits
 * for them; an inner node receives a segment, forwards it to its children
 * the same way; a leaf receives.  As in Open MPI, the receive of segment
 * i+1 is posted before segment i is forwarded, so the pipeline does not
 * stall on the parent.  Cost with n_s segments of m/n_s bytes and tree
 * height h: about (h + n_s - 1) * gamma(children+1) * (alpha + m/n_s beta).
 *
 * Reduction: every node receives a segment from each child (non-blocking,
 * two segments in flight), folds the children into its own contribution in
 * the tree's child order and sends the partial result to its parent, while
 * the next segment's receives are already posted.  Cost on a binomial tree:
 * about (log2 P + n_s - 1) * (alpha + m/n_s beta + m/n_s gamma) times the
 * fan-in.  Operand order is always "acc op child", with the child ranges in
 * increasing rank order, so the same code is exact for non-commutative ops
 * on a rank-ordered tree.
 *
 * Departures from Open MPI:
 *  - MPI_Reduce_local only computes inout = in op inout, so instead of a
 *    three-buffer op the accumulator moves: child j's segment buffer
 *    receives acc op child_j; the last child is received straight into the
 *    result (the root's recvbuf, or the inner node's result buffer), so no
 *    node copies its result.  The only copy left is an in-place root of a
 *    non-commutative op (the result cannot land on top of its own data).
 *  - All children's receives of a segment are posted together (Open MPI
 *    posts one child ahead), two segments deep.
 *  - Sends to the parent are non-blocking with up to SEND_WINDOW in flight
 *    (Open MPI's default is a blocking send per segment).
 * As in Open MPI, a non-commutative op with root != 0 reduces to rank 0,
 * which then sends the whole result to root.
 */
#include <limits.h>
#include <stdlib.h>
#include "tree_engine.h"

/* ---- segments ---------------------------------------------------------- */

typedef struct seg_layout {
    MPI_Aint count;    /* elements (bytes for a broadcast) in the message */
    MPI_Aint segcount; /* elements per segment (the last may be shorter) */
    int nseg;          /* number of segments */
    MPI_Aint extent;
} seg_layout;

/* Reductions: whole elements (every rank has the same datatype, as MPI
 * requires for reduce-like calls). */
static void seg_layout_init(seg_layout *l, size_t segsize, MPI_Datatype t,
                            int count) {
    l->count = count;
    l->segcount = papc_segment_count(segsize, t, count);
    l->nseg = count > 0 ? (int)((count + l->segcount - 1) / l->segcount) : 0;
    l->extent = papc_extent(t);
}

/* One message of a segment must fit an int; more segments than that
 * would not be a pipeline any more. */
#define SEG_MAX_BYTES ((size_t)1 << 30)

size_t papc_tree_seg_bytes(size_t segsize, size_t len) {
    size_t seg = segsize == 0 || segsize > len ? len : segsize;
    if (seg > SEG_MAX_BYTES) seg = SEG_MAX_BYTES;
    if (seg < len / ((size_t)INT_MAX / 2)) seg = len / ((size_t)INT_MAX / 2);
    return seg > 0 ? seg : 1;
}

/* Broadcasts: bytes of the packed stream. */
static void seg_layout_bytes(seg_layout *l, size_t segsize, size_t len) {
    l->count = (MPI_Aint)len;
    l->segcount = (MPI_Aint)papc_tree_seg_bytes(segsize, len);
    l->nseg = len > 0 ? (int)((len + (size_t)l->segcount - 1) /
                              (size_t)l->segcount)
                      : 0;
    l->extent = 1;
}

static int seg_len(const seg_layout *l, int s) {
    MPI_Aint rest = l->count - s * l->segcount;
    return (int)(rest < l->segcount ? rest : l->segcount);
}

static char *seg_addr(const void *buf, const seg_layout *l, int s) {
    return (char *)buf + (MPI_Aint)s * l->segcount * l->extent;
}

/* ---- tree places ------------------------------------------------------- */

/* Upper bound on the children of any node of the tree (the builders fill
 * at most this many). */
static int max_children(papc_tree_kind kind, int k, int size) {
    switch (kind) {
    case PAPC_TREE_CHAIN:
    case PAPC_TREE_KARY: return k < 1 ? 1 : k;
    case PAPC_TREE_BINOMIAL:
    case PAPC_TREE_INORDER_BINOMIAL: return papc_ceil_log2(size) + 1;
    case PAPC_TREE_KNOMIAL: return papc_knomial_max_children(k, size);
    case PAPC_TREE_LINEAR: break;
    }
    return size;
}

int papc_tree_place_init(papc_tree_place *p, papc_tree_kind kind, int k,
                         int rank, int root, int size) {
    p->children = p->inline_children;
    p->nchildren = 0;
    p->parent = -1;
    if (max_children(kind, k, size) > PAPC_TREE_INLINE_CHILDREN) {
        p->children = malloc((size_t)size * sizeof *p->children);
        if (!p->children) {
            p->children = p->inline_children;
            return papc_error(MPI_ERR_NO_MEM, "tree of %d children", size);
        }
    }
    int vparent;
    int n = papc_tree_node(kind, k, papc_vrank(rank, root, size), size,
                           &vparent, p->children);
    for (int i = 0; i < n; i++)
        p->children[i] = papc_real_rank(p->children[i], root, size);
    p->parent = vparent < 0 ? -1 : papc_real_rank(vparent, root, size);
    p->nchildren = n;
    return MPI_SUCCESS;
}

void papc_tree_place_free(papc_tree_place *p) {
    if (p->children != p->inline_children) free(p->children);
    p->children = p->inline_children;
    p->nchildren = 0;
}

/* Requests kept on the stack for small counts, on the heap otherwise. */
typedef struct req_array {
    MPI_Request *r;
    int n;
    MPI_Request inline_r[PAPC_TREE_INLINE_CHILDREN + 2];
} req_array;

static int req_array_init(req_array *a, int n) {
    a->n = n;
    a->r = a->inline_r;
    if (n > (int)(sizeof a->inline_r / sizeof *a->inline_r)) {
        a->r = malloc((size_t)n * sizeof *a->r);
        if (!a->r) {
            a->r = a->inline_r;
            a->n = 0;
            return papc_error(MPI_ERR_NO_MEM, "%d requests", n);
        }
    }
    for (int i = 0; i < n; i++) a->r[i] = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

/* Frees the array; on error first cancels what is still active. */
static void req_array_free(req_array *a, int rc) {
    if (rc != MPI_SUCCESS) papc_cleanup_requests(a->n, a->r);
    if (a->r != a->inline_r) free(a->r);
    a->r = a->inline_r;
    a->n = 0;
}

/* ---- broadcast ------------------------------------------------------- */

/* One step of the non-blocking linear broadcast: segment s to every child,
 * then wait for all of them (Algorithm 1's inner loop). */
static int forward_segment(const papc_call *c, const papc_tree_place *p,
                           const seg_layout *l, void *buf, MPI_Datatype t,
                           int s, int sub, MPI_Request *sreq) {
    char *addr = seg_addr(buf, l, s);
    int n = seg_len(l, s);
    for (int j = 0; j < p->nchildren; j++) {
        int rc = papc_isend(c, addr, n, t, p->children[j], sub, &sreq[j]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return papc_waitall(p->nchildren, sreq);
}

static int bcast_from_root(const papc_call *c, const papc_tree_place *p,
                           const seg_layout *l, void *buf, MPI_Datatype t,
                           int sub, MPI_Request *sreq) {
    for (int s = 0; s < l->nseg; s++) {
        int rc = forward_segment(c, p, l, buf, t, s, sub, sreq);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* Inner node or leaf: segment s+1's receive is posted before segment s is
 * waited for and forwarded, two receive requests alternating. */
static int bcast_below_root(const papc_call *c, const papc_tree_place *p,
                            const seg_layout *l, void *buf, MPI_Datatype t,
                            int sub, MPI_Request *rreq, MPI_Request *sreq) {
    int rc = papc_irecv(c, seg_addr(buf, l, 0), seg_len(l, 0), t, p->parent,
                        sub, &rreq[0]);
    for (int s = 0; rc == MPI_SUCCESS && s < l->nseg; s++) {
        if (s + 1 < l->nseg) {
            rc = papc_irecv(c, seg_addr(buf, l, s + 1), seg_len(l, s + 1), t,
                            p->parent, sub, &rreq[(s + 1) & 1]);
            if (rc != MPI_SUCCESS) break;
        }
        rc = papc_waitall(1, &rreq[s & 1]);
        if (rc == MPI_SUCCESS && p->nchildren > 0)
            rc = forward_segment(c, p, l, buf, t, s, sub, sreq);
    }
    return rc;
}

int papc_tree_bcast_bytes(const papc_call *c, const papc_tree_place *p,
                          char *bytes, size_t len, size_t segsize, int sub) {
    if (len == 0 || (p->parent < 0 && p->nchildren == 0))
        return MPI_SUCCESS;
    seg_layout l;
    seg_layout_bytes(&l, segsize, len);
    req_array reqs; /* [0, 2): receives, [2, 2 + children): sends */
    int rc = req_array_init(&reqs, p->nchildren + 2);
    if (rc != MPI_SUCCESS) return rc;
    if (p->parent < 0)
        rc = bcast_from_root(c, p, &l, bytes, MPI_BYTE, sub, reqs.r + 2);
    else
        rc = bcast_below_root(c, p, &l, bytes, MPI_BYTE, sub, reqs.r,
                              reqs.r + 2);
    req_array_free(&reqs, rc);
    return rc;
}

/* The tree's root packs a non-contiguous message before the first segment
 * leaves, the others unpack after the last one arrived; a contiguous one
 * travels from and into the user's buffer. */
int papc_tree_bcast(const papc_call *c, papc_tree_kind kind, int k,
                    void *buf, int count, MPI_Datatype t, int root,
                    size_t segsize, int sub) {
    if (count <= 0 || c->size == 1) return MPI_SUCCESS;
    papc_tree_place p;
    int rc = papc_tree_place_init(&p, kind, k, c->rank, root, c->size);
    if (rc != MPI_SUCCESS) return rc;
    papc_bytes b;
    rc = papc_bytes_init(&b, buf, count, t);
    if (rc == MPI_SUCCESS && p.parent < 0) rc = papc_bytes_pack(&b);
    if (rc == MPI_SUCCESS)
        rc = papc_tree_bcast_bytes(c, &p, b.ptr, b.len, segsize, sub);
    if (rc == MPI_SUCCESS && p.parent >= 0) rc = papc_bytes_unpack(&b);
    papc_bytes_free(&b);
    papc_tree_place_free(&p);
    return rc;
}

/* ---- reduction -------------------------------------------------------- */

/* Sends in flight to the parent: bounds the parent's unexpected messages
 * (and the requests) however many segments there are. */
#define SEND_WINDOW 4

/* How one process takes part in a tree reduction. */
typedef struct reduce_node {
    const papc_call *c;
    const papc_tree_place *p;
    seg_layout l;
    MPI_Datatype t;
    MPI_Op op;
    int sub;
    const char *mine;   /* this process's contribution */
    char *result;       /* where its folded segments end up */
    /* How the children are folded (see reduce_segment). */
    int last_into_result;  /* last child received straight into result */
    int fold_into_result;  /* in-place commutative root: result += child */
    int copy_to_result;    /* in-place non-commutative root */
    int nscratch;          /* scratch segment buffers per slot */
    char *scratch;
    MPI_Request *rreq;  /* 2 slots x children */
    MPI_Request *sreq;  /* SEND_WINDOW sends to the parent */
} reduce_node;

/* The buffer receiving child j's segment s (slot = s & 1). */
static char *child_buffer(const reduce_node *n, int j, int s) {
    if (n->last_into_result && j == n->p->nchildren - 1)
        return seg_addr(n->result, &n->l, s);
    int slot = n->l.nseg > 1 ? (s & 1) : 0;
    MPI_Aint index = ((MPI_Aint)slot * n->nscratch + j) * n->l.segcount;
    return n->scratch + index * n->l.extent;
}

static int post_child_receives(reduce_node *n, int s) {
    int k = n->p->nchildren;
    MPI_Request *slot = n->rreq + (s & 1) * k;
    for (int j = 0; j < k; j++) {
        int rc = papc_irecv(n->c, child_buffer(n, j, s), seg_len(&n->l, s),
                            n->t, n->p->children[j], n->sub, &slot[j]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* Folds the children's segment s into this process's contribution, in
 * child order: acc = mine; acc = acc op child_j, the result landing in
 * child j's buffer (MPI_Reduce_local's inout is the right operand).  The
 * last child's buffer is the result itself, so acc ends there. */
static int reduce_segment(reduce_node *n, int s) {
    int k = n->p->nchildren, len = seg_len(&n->l, s);
    MPI_Request *slot = n->rreq + (s & 1) * k;
    const char *acc = seg_addr(n->mine, &n->l, s);
    char *res = seg_addr(n->result, &n->l, s);
    for (int j = 0; j < k; j++) {
        int rc = papc_waitall(1, &slot[j]);
        if (rc != MPI_SUCCESS) return rc;
        char *b = child_buffer(n, j, s);
        if (n->fold_into_result) { /* commutative: res = child op res */
            rc = papc_reduce_local(b, res, len, n->t, n->op);
        } else {
            rc = papc_reduce_local(acc, b, len, n->t, n->op);
            acc = b;
        }
        if (rc != MPI_SUCCESS) return rc;
    }
    if (n->copy_to_result)
        return papc_copy(acc, len, n->t, res, len, n->t);
    return MPI_SUCCESS;
}

/* Sends segment s of buf to the parent, once send s - SEND_WINDOW is
 * done. */
static int send_to_parent(reduce_node *n, const char *buf, int s) {
    if (n->p->parent < 0) return MPI_SUCCESS;
    MPI_Request *r = &n->sreq[s % SEND_WINDOW];
    int rc = papc_waitall(1, r);
    if (rc != MPI_SUCCESS) return rc;
    return papc_isend(n->c, seg_addr(buf, &n->l, s), seg_len(&n->l, s),
                      n->t, n->p->parent, n->sub, r);
}

/* A node with children: segment s+1's receives are posted before segment
 * s is folded and sent on. */
static int reduce_inner(reduce_node *n) {
    int rc = post_child_receives(n, 0);
    for (int s = 0; rc == MPI_SUCCESS && s < n->l.nseg; s++) {
        if (s + 1 < n->l.nseg) rc = post_child_receives(n, s + 1);
        if (rc == MPI_SUCCESS) rc = reduce_segment(n, s);
        if (rc == MPI_SUCCESS) rc = send_to_parent(n, n->result, s);
    }
    return rc;
}

/* A leaf streams its own segments to the parent. */
static int reduce_leaf(reduce_node *n) {
    for (int s = 0; s < n->l.nseg; s++) {
        int rc = send_to_parent(n, n->mine, s);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* Subtrees are contiguous rank ranges with children in increasing rank
 * order: folding "acc op child" keeps MPI's operand order. */
static int keeps_rank_order(papc_tree_kind kind, int k) {
    return kind == PAPC_TREE_INORDER_BINOMIAL || kind == PAPC_TREE_LINEAR ||
           (kind == PAPC_TREE_CHAIN && k <= 1);
}

/* Decides buffers and roles; allocates the scratch and the requests. */
static int reduce_node_setup(reduce_node *n, const papc_tree_place *p,
                             int commutative, int root, const void *sendbuf,
                             void *recvbuf, papc_tmpbuf *result_tmp,
                             papc_tmpbuf *scratch, req_array *reqs) {
    const papc_call *c = n->c;
    int am_root = c->rank == root, am_tree_root = p->parent < 0;
    int in_place = am_root && sendbuf == MPI_IN_PLACE;
    int k = p->nchildren, rc;
    n->p = p;
    n->mine = in_place ? recvbuf : sendbuf;
    n->last_into_result = n->fold_into_result = n->copy_to_result = 0;
    n->nscratch = 0;
    n->scratch = NULL;
    if (k == 0) {
        n->result = (char *)n->mine; /* a leaf sends its own data */
    } else if (am_root && am_tree_root) {
        n->result = recvbuf;
        if (!in_place) n->last_into_result = 1;
        else if (commutative) n->fold_into_result = 1;
        else n->copy_to_result = 1; /* its own data is in the way */
    } else {
        rc = papc_tmpbuf_alloc(result_tmp, n->t, (size_t)n->l.count);
        if (rc != MPI_SUCCESS) return rc;
        n->result = result_tmp->ptr;
        n->last_into_result = 1;
    }
    if (k > 0) {
        int slots = n->l.nseg > 1 ? 2 : 1;
        n->nscratch = n->last_into_result ? k - 1 : k;
        size_t elems = (size_t)slots * n->nscratch * n->l.segcount;
        if (elems > 0) {
            rc = papc_tmpbuf_alloc(scratch, n->t, elems);
            if (rc != MPI_SUCCESS) return rc;
            n->scratch = scratch->ptr;
        }
    }
    rc = req_array_init(reqs, 2 * k + SEND_WINDOW);
    if (rc != MPI_SUCCESS) return rc;
    n->rreq = reqs->r;
    n->sreq = reqs->r + 2 * k;
    return MPI_SUCCESS;
}

/* The tree part, then, when the tree's root is not the call's root (a
 * non-commutative op with root != 0), the whole result from rank 0 to root
 * in one message, as Open MPI does.  An in-place root's contribution lives
 * in recvbuf until its own sends are complete, so the result is received
 * only after the tree part. */
static int reduce_run(reduce_node *n, int root, int tree_root,
                      const void *sendbuf, void *recvbuf) {
    const papc_call *c = n->c;
    int am_root = c->rank == root, am_tree_root = n->p->parent < 0;
    int rc = n->p->nchildren > 0 ? reduce_inner(n) : reduce_leaf(n);
    if (rc == MPI_SUCCESS) rc = papc_waitall(SEND_WINDOW, n->sreq);
    if (rc != MPI_SUCCESS) return rc;
    if (am_tree_root && !am_root)
        return papc_send(c, n->result, (int)n->l.count, n->t, root,
                         n->sub + 1);
    if (am_root && !am_tree_root)
        return papc_recv(c, recvbuf, (int)n->l.count, n->t, tree_root,
                         n->sub + 1);
    /* A single process: the result is its own data. */
    if (am_root && n->p->nchildren == 0 && sendbuf != MPI_IN_PLACE)
        return papc_copy(sendbuf, (int)n->l.count, n->t, recvbuf,
                         (int)n->l.count, n->t);
    return MPI_SUCCESS;
}

int papc_tree_reduce(const papc_call *c, papc_tree_kind kind, int k,
                     const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype t, MPI_Op op, int commutative, int root,
                     size_t segsize, int sub) {
    if (count <= 0) return MPI_SUCCESS;
    int tree_root = root;
    if (!commutative) {
        tree_root = 0;
        if (!keeps_rank_order(kind, k)) kind = PAPC_TREE_INORDER_BINOMIAL;
    }
    papc_tree_place p;
    int rc = papc_tree_place_init(&p, kind, k, c->rank, tree_root, c->size);
    if (rc != MPI_SUCCESS) return rc;
    reduce_node n = {.c = c, .t = t, .op = op, .sub = sub};
    seg_layout_init(&n.l, segsize, t, count);
    papc_tmpbuf result_tmp = {NULL, NULL}, scratch = {NULL, NULL};
    req_array reqs;
    reqs.r = reqs.inline_r;
    reqs.n = 0;
    rc = reduce_node_setup(&n, &p, commutative, root, sendbuf, recvbuf,
                           &result_tmp, &scratch, &reqs);
    if (rc == MPI_SUCCESS)
        rc = reduce_run(&n, root, tree_root, sendbuf, recvbuf);
    req_array_free(&reqs, rc);
    papc_tmpbuf_free(&scratch);
    papc_tmpbuf_free(&result_tmp);
    papc_tree_place_free(&p);
    return rc;
}
