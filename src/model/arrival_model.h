/*
 * arrival_model.h — the cost of a call whose processes arrive at different
 * times (issue 15).  Pure: no MPI.
 *
 * The models of model.h predict a call in which every process arrives at
 * once: their coefficients times the row's fitted α, β give t0.  With an
 * arrival vector the cost is no longer linear in α and β (it is a max of
 * sums: who waits for whom), so these functions return seconds, from t0,
 * the row's own parameters and the offsets.  The selector (src/arrival/
 * choose.c) evaluates every candidate row with the agreed offsets and runs
 * the cheapest; papc-bench measures the same quantity.
 *
 * The quantity is the papers' ē (pap-scatter-gather.md eqs. 1-2): the mean
 * over the processes of (exit − arrival).  With every offset 0 every
 * function returns t0 exactly, so a balanced call is chosen as the classic
 * selection chooses it.
 */
#ifndef PAPC_ARRIVAL_MODEL_H
#define PAPC_ARRIVAL_MODEL_H

typedef struct papc_arrival_case {
    const char *collective;  /* "gather", "scatter", "reduce", "allreduce" */
    const char *name;        /* the table row's name ("ring", "sorted_linear_tree", ...) */
    int P;
    int root;                /* rooted collectives; 0 for allreduce */
    double m;                /* bytes, as papc_model_in.m: gather/scatter one
                                rank's block, reduce/allreduce the vector */
    double segsize;          /* bytes per segment the row runs with; 0 = its default */
    const double *offset;    /* [P]: rank r arrives offset[r] s after the
                                earliest (>= 0, finite) */
    double t0;               /* the row's balanced prediction, seconds (> 0) */
    double alpha, beta;      /* the row's latency (s) and s/byte of one transfer */
    double gamma_op;         /* s per byte reduced */
    int bg;                  /* 1: the monitor's background channel runs (the
                                B* rows receive before their process arrives) */
} papc_arrival_case;

/* Predicted ē in seconds; < 0 when the row has no arrival model (it is then
 * not a candidate). */
double papc_arrival_model_mean(const papc_arrival_case *c);

#endif
