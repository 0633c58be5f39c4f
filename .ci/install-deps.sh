#!/bin/sh
# Install what pmesh needs on Debian 12 (as root): compiler, CMake, MPICH, METIS, parallel HDF5
# for MPICH, libmatheval; plus what the tests use (h5py for reading results back, clang's
# libFuzzer runtime for the fuzz harnesses, valgrind).  No OpenMPI: pmesh is built on MPICH.
set -eu
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends \
  gcc make cmake pkg-config libc6-dev \
  mpich libmpich-dev libmetis-dev libhdf5-mpich-dev hdf5-tools libmatheval-dev \
  python3 python3-numpy python3-h5py \
  clang libclang-rt-14-dev valgrind
