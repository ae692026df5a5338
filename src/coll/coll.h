/* coll.h — run functions of every algorithm (one per table row). */
#ifndef PAPC_COLL_H
#define PAPC_COLL_H
#include "../core/core.h"

int papc_gather_basic_linear(const papc_call *c);
int papc_gather_linear_sync(const papc_call *c);
int papc_gather_binomial(const papc_call *c);
int papc_gather_sorted_linear_sync(const papc_call *c);
int papc_gather_background_sorted_linear_sync(const papc_call *c);
int papc_gather_sorted_binomial(const papc_call *c);
int papc_gather_background_sorted_binomial(const papc_call *c);
/* Their cost models (issue 12; model/model.h), beside each run function. */
papc_terms papc_gather_basic_linear_model(const papc_model_in *in);
papc_terms papc_gather_linear_sync_model(const papc_model_in *in);
papc_terms papc_gather_binomial_model(const papc_model_in *in);
papc_terms papc_gather_sorted_linear_sync_model(const papc_model_in *in);
papc_terms papc_gather_background_sorted_linear_sync_model(
    const papc_model_in *in);
papc_terms papc_gather_sorted_binomial_model(const papc_model_in *in);
papc_terms papc_gather_background_sorted_binomial_model(
    const papc_model_in *in);

int papc_scatter_basic_linear(const papc_call *c);
int papc_scatter_binomial(const papc_call *c);
int papc_scatter_linear_nb(const papc_call *c);
int papc_scatter_sorted_linear(const papc_call *c);
int papc_scatter_background_sorted_linear(const papc_call *c);
int papc_scatter_sorted_binomial(const papc_call *c);
int papc_scatter_background_sorted_binomial(const papc_call *c);
/* Their cost models (issue 12). */
papc_terms papc_scatter_basic_linear_model(const papc_model_in *in);
papc_terms papc_scatter_binomial_model(const papc_model_in *in);
papc_terms papc_scatter_linear_nb_model(const papc_model_in *in);
papc_terms papc_scatter_sorted_linear_model(const papc_model_in *in);
papc_terms papc_scatter_background_sorted_linear_model(const papc_model_in *in);
papc_terms papc_scatter_sorted_binomial_model(const papc_model_in *in);
papc_terms papc_scatter_background_sorted_binomial_model(
    const papc_model_in *in);

int papc_bcast_basic_linear(const papc_call *c);
int papc_bcast_chain(const papc_call *c);
int papc_bcast_k_chain(const papc_call *c);
int papc_bcast_binary(const papc_call *c);
int papc_bcast_split_binary(const papc_call *c);
int papc_bcast_binomial(const papc_call *c);
int papc_bcast_knomial(const papc_call *c);
/* Their cost models (issue 12). */
papc_terms papc_bcast_basic_linear_model(const papc_model_in *in);
papc_terms papc_bcast_chain_model(const papc_model_in *in);
papc_terms papc_bcast_k_chain_model(const papc_model_in *in);
papc_terms papc_bcast_binary_model(const papc_model_in *in);
papc_terms papc_bcast_split_binary_model(const papc_model_in *in);
papc_terms papc_bcast_binomial_model(const papc_model_in *in);
papc_terms papc_bcast_knomial_model(const papc_model_in *in);

int papc_reduce_basic_linear(const papc_call *c);
int papc_reduce_binomial(const papc_call *c);
int papc_reduce_rabenseifner(const papc_call *c);
int papc_reduce_ring(const papc_call *c);
int papc_reduce_radix_k(const papc_call *c);
int papc_reduce_clairvoyant(const papc_call *c);
int papc_reduce_clairvoyant_node(const papc_call *c);
/* Their cost models (issue 12; model/model.h), beside each run function. */
papc_terms papc_reduce_basic_linear_model(const papc_model_in *in);
papc_terms papc_reduce_binomial_model(const papc_model_in *in);
papc_terms papc_reduce_rabenseifner_model(const papc_model_in *in);
papc_terms papc_reduce_ring_model(const papc_model_in *in);
papc_terms papc_reduce_radix_k_model(const papc_model_in *in);
papc_terms papc_reduce_clairvoyant_model(const papc_model_in *in);
papc_terms papc_reduce_clairvoyant_node_model(const papc_model_in *in);

int papc_allreduce_basic_linear(const papc_call *c);
int papc_allreduce_recursive_doubling(const papc_call *c);
int papc_allreduce_ring(const papc_call *c);
int papc_allreduce_segmented_ring(const papc_call *c);
int papc_allreduce_rabenseifner(const papc_call *c);
int papc_allreduce_sorted_linear_tree(const papc_call *c);
int papc_allreduce_pre_reduced_ring(const papc_call *c);
int papc_allreduce_pre_reduced_ring_published(const papc_call *c);
int papc_allreduce_clairvoyant(const papc_call *c);
/* Their cost models (issue 12). */
papc_terms papc_allreduce_basic_linear_model(const papc_model_in *in);
papc_terms papc_allreduce_recursive_doubling_model(const papc_model_in *in);
papc_terms papc_allreduce_ring_model(const papc_model_in *in);
papc_terms papc_allreduce_segmented_ring_model(const papc_model_in *in);
papc_terms papc_allreduce_rabenseifner_model(const papc_model_in *in);
papc_terms papc_allreduce_sorted_linear_tree_model(const papc_model_in *in);
papc_terms papc_allreduce_pre_reduced_ring_model(const papc_model_in *in);
papc_terms papc_allreduce_pre_reduced_ring_published_model(
    const papc_model_in *in);
papc_terms papc_allreduce_clairvoyant_model(const papc_model_in *in);

int papc_gatherv_basic_linear(const papc_call *c);
int papc_gatherv_size_aware_binomial(const papc_call *c);
int papc_scatterv_basic_linear(const papc_call *c);
int papc_scatterv_size_aware_binomial(const papc_call *c);
/* Their cost models (issue 12). */
papc_terms papc_gatherv_basic_linear_model(const papc_model_in *in);
papc_terms papc_gatherv_size_aware_binomial_model(const papc_model_in *in);
papc_terms papc_scatterv_basic_linear_model(const papc_model_in *in);
papc_terms papc_scatterv_size_aware_binomial_model(const papc_model_in *in);

#endif
