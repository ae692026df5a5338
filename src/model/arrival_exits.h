/*
 * arrival_exits.h — what lies under papc_arrival_model_mean (arrival_
 * model.h, issue 15): every rank's implied exit, and the closed forms of
 * the two arrival-aware allreduce schedules, for the tests, papc-bench's
 * comparisons and the choice of PRR's pre-steps.  Pure: no MPI.
 */
#ifndef PAPC_ARRIVAL_EXITS_H
#define PAPC_ARRIVAL_EXITS_H

#include "arrival_model.h"

/* F[0..P): the exit of every rank (seconds from the earliest arrival)
 * that papc_arrival_model_mean's ē is the mean elapsed time of: mean_r
 * (F[r] - offset[r]) = ē.  0, or -1 (F untouched) when the row has no
 * model or the case is invalid. */
int papc_arrival_model_exits(const papc_arrival_case *c, double *F);

/* The run time the row's structure gives with every offset 0 and its own
 * α, β, γ_op as they are (λ = 1; t0 is ignored): what t0 is scaled
 * against.  A row whose balanced model predicts less than this leaves
 * out part of what its code does (see the unit test); -1 when invalid. */
double papc_arrival_model_structure(const papc_arrival_case *c);

/* sorted_linear_tree (papc_slt_schedule): exits F[j] of the processes by
 * position j in the chain, o[j] their arrivals (sorted or not), S
 * segments, cr the reduce hop (α + s(β+γ)), co the override hop (α + sβ),
 * cr >= co.  Small segments: sends complete at once. */
void papc_slt_model_exits(int P, int S, const double *o, double cr, double co,
                          double *F);

/* pre_reduced_ring (papc_prr_schedule) with pre-steps k (valid, as
 * papc_prr_k_valid): exits F[j] by position j, o[j] the arrivals by
 * position, cr = α + s(β+γ) a receive-and-reduce, co = α + sβ a receive
 * in place (cr >= co), sends complete when taken (rendezvous). */
void papc_prr_model_exits(int P, const double *o, const int *k, double cr,
                          double co, double *F);

/* The published pre-step rule (Fig. 7 lines 1-6, papc_prr_presteps) for
 * known arrivals a[0..P) by position. */
void papc_prr_published_presteps(int P, const double *a, double tau, int *k);

/* Clairvoyant's schedule length (the root's finish, from the earliest
 * arrival) for N segments, rounds of d seconds and the arrivals o[0..P)
 * SORTED ascending: max_j o_j + (N + ceil(log2 n_j) - 1) d, n_0 = P,
 * n_j = P - j + 1 (see arrival_model.c). */
double papc_clv_model_length(int P, double N, const double *o, double d);

#endif
