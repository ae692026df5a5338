#!/bin/sh
# Inside the library MPI's collectives are called by their PMPI_ names
# (DESIGN.md, conventions): an interposed MPI_Allreduce -- papcoll's own
# drop-in layer or a user's profiling tool -- must never re-enter papcoll.
# Lists every call of an MPI collective by its MPI_ name in src/ and fails
# when there is one.  Definitions (`int MPI_Gather(` at the start of a
# line: the drop-in layer in src/pmpi/) are not calls.
# Usage: scripts/check-pmpi.sh [SRCDIR]
src=${1:-$(dirname "$0")/../src}
colls='Allgather|Allgatherv|Allreduce|Alltoall|Alltoallv|Alltoallw|Barrier|Bcast|Exscan|Gather|Gatherv|Reduce|Reduce_scatter|Reduce_scatter_block|Scan|Scatter|Scatterv'
hits=$(grep -rnE "(^|[^P_A-Za-z0-9])MPI_($colls)[[:space:]]*\(" "$src" \
       --include='*.c' --include='*.h' | grep -vE ':[0-9]+:[[:space:]]*(\*|/\*|//)' \
       | grep -vE ':[0-9]+:int MPI_[A-Za-z_]+\(')
if [ -n "$hits" ]; then
    echo "check-pmpi: MPI collectives called by their MPI_ names (use PMPI_):"
    echo "$hits"
    exit 1
fi
echo "check-pmpi: every collective in $src goes through its PMPI_ name"
