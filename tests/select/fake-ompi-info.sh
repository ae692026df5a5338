#!/bin/sh
# fake-ompi-info.sh — stands in for `ompi_info --param coll tuned --level 9
# --parsable` in test_export_formats: the same line format, but numbers
# unlike Open MPI's, so that an export writing numbers by position instead
# of looking them up by name fails the test.
cat <<'LIST'
mca:coll:tuned:param:coll_tuned_priority:value:30
mca:coll:tuned:param:coll_tuned_allreduce_algorithm:value:ignore
mca:coll:tuned:param:coll_tuned_allreduce_algorithm:enumerator:value:0:ignore
mca:coll:tuned:param:coll_tuned_allreduce_algorithm:enumerator:value:11:basic_linear
mca:coll:tuned:param:coll_tuned_allreduce_algorithm:enumerator:value:12:nonoverlapping
mca:coll:tuned:param:coll_tuned_allreduce_algorithm:enumerator:value:13:recursive_doubling
mca:coll:tuned:param:coll_tuned_allreduce_algorithm:enumerator:value:14:ring
mca:coll:tuned:param:coll_tuned_allreduce_algorithm:enumerator:value:15:segmented_ring
mca:coll:tuned:param:coll_tuned_allreduce_algorithm:enumerator:value:16:rabenseifner
mca:coll:tuned:param:coll_tuned_allreduce_algorithm_segmentsize:value:0
mca:coll:tuned:param:coll_tuned_bcast_algorithm:enumerator:value:0:ignore
mca:coll:tuned:param:coll_tuned_bcast_algorithm:enumerator:value:21:basic_linear
mca:coll:tuned:param:coll_tuned_bcast_algorithm:enumerator:value:22:chain
mca:coll:tuned:param:coll_tuned_bcast_algorithm:enumerator:value:23:pipeline
mca:coll:tuned:param:coll_tuned_bcast_algorithm:enumerator:value:24:split_binary_tree
mca:coll:tuned:param:coll_tuned_bcast_algorithm:enumerator:value:25:binary_tree
mca:coll:tuned:param:coll_tuned_bcast_algorithm:enumerator:value:26:binomial
mca:coll:tuned:param:coll_tuned_bcast_algorithm:enumerator:value:27:knomial
mca:coll:tuned:param:coll_tuned_reduce_algorithm:enumerator:value:0:ignore
mca:coll:tuned:param:coll_tuned_reduce_algorithm:enumerator:value:41:linear
mca:coll:tuned:param:coll_tuned_reduce_algorithm:enumerator:value:42:chain
mca:coll:tuned:param:coll_tuned_reduce_algorithm:enumerator:value:45:binomial
mca:coll:tuned:param:coll_tuned_reduce_algorithm:enumerator:value:47:rabenseifner
mca:coll:tuned:param:coll_tuned_reduce_scatter_algorithm:enumerator:value:3:ring
mca:coll:tuned:param:coll_tuned_gather_algorithm:enumerator:value:0:ignore
mca:coll:tuned:param:coll_tuned_gather_algorithm:enumerator:value:31:basic_linear
mca:coll:tuned:param:coll_tuned_gather_algorithm:enumerator:value:32:binomial
mca:coll:tuned:param:coll_tuned_gather_algorithm:enumerator:value:33:linear_sync
mca:coll:tuned:param:coll_tuned_scatter_algorithm:enumerator:value:0:ignore
mca:coll:tuned:param:coll_tuned_scatter_algorithm:enumerator:value:51:basic_linear
mca:coll:tuned:param:coll_tuned_scatter_algorithm:enumerator:value:52:binomial
mca:coll:tuned:param:coll_tuned_scatter_algorithm:enumerator:value:53:linear_nb
LIST
