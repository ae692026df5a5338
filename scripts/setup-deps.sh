#!/usr/bin/env bash
# Installs what papcoll needs on Debian 12, only what is missing; quiet when
# everything is there.  Usage: scripts/setup-deps.sh [extra packages...]
set -euo pipefail
pkgs=(build-essential cmake pkg-config openmpi-bin libopenmpi-dev libcmocka-dev gfortran
      libgsl-dev libjansson-dev python3 python3-matplotlib hpcc lammps lammps-examples python3-mpi4py python3-numpy
      python3-sklearn libfftw3-dev
      libsimgrid-dev
      "$@")
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "papcoll: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null || true
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
