/*
 * guess.h — how much a prediction of an arrival is worth (issue 16):
 * pure functions, unit-tested in tests/unit/test_guess.c.
 *
 * The history predictor's guess of a rank's next arrival carries its own
 * typical error (measured by that rank, relative to the horizon it
 * predicted over, src/arrival/history.c).  papc_guess_shrink weighs each
 * guess by that error against the spread of the arrivals the decider is
 * sure of; papc_spread_floor is the plain call's learnt floor under which
 * a spread is taken for noise (src/arrival/choose.c).  docs/arrival.md,
 * "How much a guess is worth", derives both.
 */
#ifndef PAPC_TOPO_GUESS_H
#define PAPC_TOPO_GUESS_H

#include "order.h"

/* The relative error of a guess made `horizon` seconds ahead that said
 * `guess` and saw `actual` (same clock): |actual - guess| / horizon;
 * NAN when the horizon is not positive. */
double papc_guess_relerr(double actual, double guess, double horizon);

/* The earliest a rank can still arrive when its progress report is
 * overdue: it began its phase at `started` and, in its previous phase,
 * first reported progress at fraction `frac` of it; no report of this
 * phase by `now` means frac * T > now - started, so its arrival is after
 * started + (now - started) / frac.  -INFINITY when nothing is known
 * (started not finite, frac not in (0, 1), now not after started).  Same
 * clock for started and now (the receiver's: it stamps the notice). */
double papc_overdue_bound(double started, double frac, double now);

/* The weight (0..1) of a guess of typical error sigma against a pattern of
 * mean square tau2 (both in seconds, squared for tau2): tau2 / (tau2 +
 * sigma^2), the shrinkage factor of a normal guess toward the pattern's
 * centre.  1 when sigma is 0 or unknown (NAN): a guess of unknown error
 * counts in full, as before issue 16. */
double papc_guess_weight(double tau2, double sigma);

/* Shrinks the history guesses among t[0..n) in place.  t[r]: an arrival
 * time (arrived, or a progress prediction: trusted), a history guess
 * (guess[r] != 0) or not finite (unknown, left alone); sigma[r] the
 * guess's typical error at its horizon (NAN: unknown).  The centre m is
 * the latest trusted time, at least now (a rank with no trusted news is
 * not expected before the ranks that sent some); each guess g becomes
 * m + w (g - m) with w = papc_guess_weight(tau2, sigma) and tau2 the mean
 * square distance from m of the trusted times and g.  Deterministic: the
 * same inputs give the same doubles.  Returns how many guesses moved. */
int papc_guess_shrink(int n, double *t, const int *guess,
                      const double *sigma, double now);

/* How far two consecutive views' spreads disagree, as noise: |now - prev|;
 * NAN (no sample) when either is under `floor`.  A view whose spread
 * vanished (a late rank's report came after the decision, so it counted
 * as on time) says that a prediction was missing, not how noisy spreads
 * that could pass the floor are: a late rank decided on time every other
 * call must not raise the floor over its own lateness. */
double papc_spread_change(double prev, double now, double floor);

/* The spread that lasted over a site's latest two views: the smaller of
 * the two; 0 while there is only one (prev NAN).  A pattern is what
 * repeats: balanced jitter rarely passes the floor twice in a row, a late
 * rank or random delays do; and unlike a floor learnt from the spread's
 * changes it does not rise when the imbalance itself grows (10 -> 50 ms
 * raised that floor to 133 ms for two calls on the emulated cluster). */
double papc_spread_lasting(double now, double prev);

/* The spread a site must have stayed under, over its latest two views, to
 * count as quiet (choose.c's sparse watching): the larger of the two;
 * INFINITY while there is only one, or a spread is not a number.  The
 * larger, not the lasting smaller: one view of a late pattern with the late
 * rank mispredicted on time must not leave the next calls unwatched. */
double papc_spread_quiet(double now, double prev);

/* What a call site's plain call picked from its latest two views, for
 * sparse watching of a settled site (choose.c): a site whose choice from
 * each of its latest two views was the same classic row needs a new view
 * no more often than a quiet one.  gen: the generation of the view a
 * pick was made from (views kept at the site so far); row: the pick's
 * registry index, -1 for none. */
typedef struct papc_pick_memory {
    unsigned long gen;
    int row, prev;    /* from view gen and from view gen - 1 (-1: none) */
} papc_pick_memory;
#define PAPC_PICK_MEMORY_INIT {0, -1, -1}

/* Notes that the choice made from view generation gen picked row, and
 * returns 1 when the picks from views gen and gen - 1 were both row
 * (row >= 0).  A pick from a view that is not the next one (a generation
 * skipped, or an older view) forgets the earlier pick; a different pick
 * from the same view (an exploring choice) replaces it and is not settled. */
int papc_pick_settled(papc_pick_memory *m, unsigned long gen, int row);

/* The learnt spread floor of a call site: k times the site's typical
 * change of the spread from one call to the next (err), never under
 * `floor`; `floor` alone until err has min_n samples. */
double papc_spread_floor(double floor, double k, const papc_mean *err,
                         long min_n);

#endif
