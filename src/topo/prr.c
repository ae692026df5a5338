/*
 * prr.c — schedules of the pre-reduced ring (PRR) and sorted linear tree
 * (SLT) allreduce (Proficz, "Improving all-reduce collective operations
 * for imbalanced process arrival patterns", J. Supercomput. 2018, Figs. 5
 * and 7) as pure step lists; see prr.h.  The file comments of
 * src/coll/allreduce/pre_reduced_ring.c and sorted_linear_tree.c list the
 * corrections to the paper's pseudocode; the reasoning is repeated next to
 * the code it concerns.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prr.h"

void papc_seg_range(int count, int nseg, int j, int *off, int *len) {
    int q = count / nseg, r = count % nseg;
    *off = j * q + (j < r ? j : r);
    *len = q + (j < r);
}

/* ---- pre-reduced ring ------------------------------------------------- */

/* Fig. 7 lines 1-6: k[i] = k[i+1] + 1 when process i+1 can do k[i+1] + 1
 * steps before the last process arrives (a[P-1] - a[i+1] >= (k[i+1]+1)
 * tau), else k[i+1].  The recurrence measures every slack against the
 * LAST process: with several late processes the early ones ahead of them
 * get pre-steps only up to the first late one's predecessor (its
 * successor's slack is 0), and the late ones get none.  Unknown arrivals
 * take the latest known value: they are late, but not infinitely (an
 * infinite a[P-1] would give every process the most pre-steps, and
 * inf - inf is NaN). */
void papc_prr_presteps(int P, const double *a, double tau, int *k) {
    if (P <= 0) return;
    double latest = 0.0;
    int any = 0;
    for (int i = 0; i < P; i++)
        if (isfinite(a[i]) && a[i] >= 0.0 && (!any || a[i] > latest)) {
            latest = a[i];
            any = 1;
        }
    for (int i = 0; i < P; i++) k[i] = 0;
    if (!(isfinite(tau) && tau > 0.0)) return;
#define ARRIVAL(i) ((isfinite(a[i]) && a[i] >= 0.0) ? a[i] : latest)
    double last = ARRIVAL(P - 1);
    for (int i = P - 2; i >= 0; i--) {
        double slack = last - ARRIVAL(i + 1);
        k[i] = k[i + 1] + (slack >= (double)(k[i + 1] + 1) * tau);
    }
#undef ARRIVAL
}

int papc_prr_k_valid(int P, const int *k) {
    if (P <= 0) return 1;
    if (k[P - 1] != 0) return 0;
    for (int i = 0; i + 1 < P; i++)
        if (k[i] != k[i + 1] && k[i] != k[i + 1] + 1) return 0;
    return 1;
}

int papc_prr_k_normalise(int P, int *k) {
    int same = 1;
    if (P <= 0) return 1;
    if (k[P - 1] != 0) { k[P - 1] = 0; same = 0; }
    for (int i = P - 2; i >= 0; i--) {
        int lo = k[i + 1], hi = k[i + 1] + 1;
        if (k[i] < lo) { k[i] = lo; same = 0; }
        if (k[i] > hi) { k[i] = hi; same = 0; }
    }
    return same;
}

/* Fig. 7 lines 7-13 leave sp[j] unassigned when the else branch runs
 * (and advance i by one only); the intent, and what the reduce loop
 * needs, is the smallest i with i + k[i] >= j.  With a valid k, i + k[i]
 * is non-decreasing, so process i starts the segments
 * (i-1 + k[i-1], i + k[i]]: none when k[i-1] = k[i] + 1, one when equal,
 * and process 0 the k[0] + 1 segments 0..k[0]. */
void papc_prr_segment_ends(int P, const int *k, int *sp, int *rp) {
    int i = 0;
    for (int j = 0; j < P; j++) {
        while (i + k[i] < j) i++;   /* ends: (P-1) + k[P-1] = P-1 >= j */
        sp[j] = i;
        rp[j] = (i + P - 1) % P;
    }
}

/* sp of segment j by bisection (i + k[i] is non-decreasing). */
static int seg_start(int P, const int *k, int j) {
    int lo = 0, hi = P - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (mid + k[mid] >= j) hi = mid; else lo = mid + 1;
    }
    return lo;
}

static int add_step(papc_seg_step *s, int n, papc_seg_op op, int peer,
                    int sub, int seg) {
    s[n].op = op;
    s[n].peer = peer;
    s[n].sub = sub;
    s[n].seg = seg;
    return n + 1;
}

/* Process id at reduce iteration t handles segment id + k[id] - t (k[id]
 * steps ahead of a plain ring, where it handles id - t): it receives the
 * segment unless it starts it, and sends it on unless it is the
 * segment's last reducer rp (Fig. 7 line 19 tests "(rp + P - 1) mod P !=
 * is", a typo'd copy of line 25: with it a process would send on a
 * segment it finished and keep back one its successor waits for).
 *
 * The override loop starts with the segment the process finished last,
 * the highest of those with rp = id: id + 1 + k[id + 1] (mod P).  Fig. 7
 * starts it where the reduce loop ended, id + k[id], which is one below
 * the segments the process finished, and always one it must receive
 * (its sp is <= id, so its rp is not id): every process first waits for
 * a receive and the ring deadlocks, for every k and P >= 2.
 * With the corrected start the sends of process id and the receives of
 * id + 1 walk the same descending cycle from the same segment, on each
 * sub-tag, so messages between a pair come in the order they are
 * expected.  Before overwriting its segments with results a process waits
 * for its reduce-loop sends (they read those buffers). */
int papc_prr_schedule(int P, const int *k, int id, papc_seg_step *steps) {
    int n = 0, next = (id + 1) % P, prev = (id + P - 1) % P;
#define SP(j) seg_start(P, k, j)
#define RP(j) ((SP(j) + P - 1) % P)
    int si = (id + k[id]) % P;
    for (int t = 0; t < P; t++) {
        if (SP(si) != id)
            n = add_step(steps, n, PAPC_SEG_RECV_REDUCE, prev,
                         PAPC_SEG_SUB_REDUCE, si);
        if (RP(si) != id)
            n = add_step(steps, n, PAPC_SEG_SEND, next, PAPC_SEG_SUB_REDUCE,
                         si);
        si = (si + P - 1) % P;
    }
    n = add_step(steps, n, PAPC_SEG_WAIT_SENDS, -1, 0, -1);
    si = (id + 1 + k[next]) % P;
    for (int t = 0; t < P; t++) {
        if (RP(si) != id)
            n = add_step(steps, n, PAPC_SEG_RECV_COPY, prev,
                         PAPC_SEG_SUB_OVERRIDE, si);
        if ((RP(si) + P - 1) % P != id)
            n = add_step(steps, n, PAPC_SEG_SEND, next,
                         PAPC_SEG_SUB_OVERRIDE, si);
        si = (si + P - 1) % P;
    }
#undef SP
#undef RP
    return n;
}

/* ---- sorted linear tree ----------------------------------------------- */

/* Newton's square root (no libm: the pure library links without -lm). */
static double root2(double x) {
    if (!(x > 0.0) || !isfinite(x)) return 0.0;
    double r = x > 1.0 ? x : 1.0;
    for (int i = 0; i < 200; i++) {
        double nr = 0.5 * (r + x / r);
        if (nr >= r) break;
        r = nr;
    }
    return r;
}

/* A segment passes 2P - 2 hops (reduce chain 0..P-1, the result back to
 * 0, override chain 0..P-2); a stage costs about alpha + (n/S)(beta +
 * gamma), so the pipeline takes (2P - 3 + S)(alpha + n(beta + gamma)/S),
 * smallest at S = sqrt((2P - 3) n (beta + gamma) / alpha), capped at
 * 65536 (a model fit gone wrong must not allocate a huge schedule). */
int papc_slt_segments(int P, int count, double elem_bytes, double alpha,
                      double beta, double gamma, double max_seg_bytes) {
    if (count <= 0) return 1;
    double s = 0.0;
    if (P > 1 && alpha > 0.0 && isfinite(alpha))
        s = root2((2.0 * P - 3.0) * count * elem_bytes * (beta + gamma) /
                  alpha);
    if (!(s < 65536.0)) s = 65536.0;  /* NaN or silly: bounded schedule */
    long S = (long)(s + 0.5);
    if (S < P) S = P;
    if (max_seg_bytes > 0.0 && isfinite(elem_bytes)) {
        double eager = ceil((double)count * elem_bytes / max_seg_bytes);
        if (eager > 65536.0) eager = 65536.0;
        if (S < (long)eager) S = (long)eager;
    }
    if (S > count) S = count;
    return S < 1 ? 1 : (int)S;
}

/* Fig. 5 with its ring indices made explicit: the reduce chain runs
 * 0 -> 1 -> ... -> P-1 and P-1 sends each finished segment to (P-1+1)
 * mod P = 0 (line 6), where the override chain 0 -> ... -> P-2 receives it
 * (line 10); that message is sent in the reduce loop but received in the
 * override loop, so it carries the override sub-tag.  Process 0 sends in
 * the reduce loop without receiving (line 6 is outside line 3's test, or
 * nothing would ever leave it).  P = 1: line 6 would send to itself a
 * message nobody receives; nothing is sent.  P = 2: 0 -> 1, 1 -> 0, no
 * override forwarding (id < P - 2 never holds): correct as written. */
int papc_slt_schedule(int P, int S, int id, papc_seg_step *steps) {
    int n = 0;
    for (int s = 0; s < S; s++) {
        if (id != 0)
            n = add_step(steps, n, PAPC_SEG_RECV_REDUCE, id - 1,
                         PAPC_SEG_SUB_REDUCE, s);
        if (id < P - 1)
            n = add_step(steps, n, PAPC_SEG_SEND, id + 1,
                         PAPC_SEG_SUB_REDUCE, s);
        else if (P > 1)
            n = add_step(steps, n, PAPC_SEG_SEND, 0, PAPC_SEG_SUB_OVERRIDE,
                         s);
    }
    n = add_step(steps, n, PAPC_SEG_WAIT_SENDS, -1, 0, -1);
    if (id == P - 1) return n;
    for (int s = 0; s < S; s++) {
        n = add_step(steps, n, PAPC_SEG_RECV_COPY, (id + P - 1) % P,
                     PAPC_SEG_SUB_OVERRIDE, s);
        if (id < P - 2)
            n = add_step(steps, n, PAPC_SEG_SEND, id + 1,
                         PAPC_SEG_SUB_OVERRIDE, s);
    }
    return n;
}

/* ---- testing knobs ---------------------------------------------------- */

int papc_parse_offsets(const char *s, int P, double *offset) {
    int known = 0;
    for (int i = 0; i < P; i++) offset[i] = INFINITY;
    for (int i = 0; s && *s && i < P; i++) {
        char *end;
        double v = strtod(s, &end);
        if (end != s && (*end == ',' || *end == '\0') && isfinite(v) &&
            v >= 0.0) {
            offset[i] = v;
            known++;
        }
        const char *comma = strchr(s, ',');
        if (!comma) break;
        s = comma + 1;
    }
    return known;
}

int papc_parse_ints(const char *s, int P, int *v) {
    int n = 0;
    for (int i = 0; i < P; i++) v[i] = 0;
    for (int i = 0; s && *s && i < P; i++) {
        char *end;
        long x = strtol(s, &end, 10);
        if (end != s && x >= 0 && x < 1000000) v[i] = (int)x;
        n++;
        const char *comma = strchr(s, ',');
        if (!comma) break;
        s = comma + 1;
    }
    return n;
}

static int earlier(const double *offset, int x, int y) {
    int fx = isfinite(offset[x]), fy = isfinite(offset[y]);
    if (fx != fy) return fx;
    if (fx && offset[x] != offset[y]) return offset[x] < offset[y];
    return x < y;
}

void papc_order_by_offset(int P, const double *offset, int *order) {
    for (int i = 0; i < P; i++) {   /* insertion sort: stable, P small */
        int r = i, j = i;
        while (j > 0 && earlier(offset, r, order[j - 1])) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = r;
    }
}
