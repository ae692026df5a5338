#!/bin/sh
# Installs the build (cmake --install) into a temporary prefix, then builds
# a tiny program against it with `pkg-config --cflags --libs papcoll` and
# with find_package(papcoll), runs both, and runs an MPI program under the
# installed papc-run.  Usage: check.sh BUILD_DIR MPIEXEC [MPIEXEC FLAGS...]
set -eu
build=$1; mpiexec=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/papc-run include/papcoll.h lib/libpapcoll.so lib/libpapcoll-pmpi.so \
         lib/pkgconfig/papcoll.pc lib/cmake/papcoll/papcollConfig.cmake \
         lib/cmake/papcoll/papcollConfigVersion.cmake; do
    [ -e "$prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
# pkg-config (the .pc names the configured prefix: point it at the temporary one)
PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export PKG_CONFIG_PATH
flags=$(pkg-config --define-variable=prefix="$prefix" --cflags --libs papcoll)
cc -o "$tmp/hello-pc" "$here/hello.c" $flags
# find_package
cmake -S "$here" -B "$tmp/fp" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/fp" >/dev/null
"$mpiexec" -n 2 "$@" "$tmp/hello-pc"
"$mpiexec" -n 2 "$@" "$tmp/fp/hello"
# the installed papc-run finds the installed layer
lib=$("$prefix/bin/papc-run" --lib)
[ "$lib" = "$(readlink -f "$prefix/lib/libpapcoll-pmpi.so")" ] || {
    echo "papc-run --lib gave $lib"; exit 1; }
"$prefix/bin/papc-run" "$mpiexec" -n 2 "$@" \
    "$build/bin/test_pmpi" | grep "all equal to native"
echo "install check: passed"
