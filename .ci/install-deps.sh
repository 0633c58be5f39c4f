#!/bin/sh
# Install what pmesh needs on Debian 12 (as root): compiler, CMake, MPICH, METIS, parallel HDF5
# for MPICH, libmatheval; plus what the tests use (h5py for reading results back, clang's
# libFuzzer runtime for the fuzz harnesses, valgrind), and ParaView's Python for h5_paraview.
# pmesh is built on MPICH.  python3-paraview brings OpenMPI, whose alternatives (mpicc, mpirun,
# h5pcc) outrank MPICH's: pmesh's CMake pins mpicc.mpich, h5pcc.mpich and mpiexec.mpich anyway,
# and the alternatives are set back to MPICH below so that plain mpicc/mpiexec stay MPICH too.
# PMESH_CI=1 (set by .ci/run, for a throwaway machine): dpkg skips its fsyncs and leaves out
# documentation, manual pages and translations, which CI never reads (ParaView's are large).
set -eu
export DEBIAN_FRONTEND=noninteractive
set --
if [ "${PMESH_CI:-0}" = 1 ]; then
  set -- -o Dpkg::Options::=--force-unsafe-io
  for d in doc man info locale; do
    set -- "$@" -o "Dpkg::Options::=--path-exclude=/usr/share/$d/*"
  done
  set -- "$@" -o "Dpkg::Options::=--path-include=/usr/share/doc/*/copyright"
fi
apt-get update -q
# One call: one dependency resolution and one unpack/configure pass for everything.
apt-get install -y -q --no-install-recommends "$@" \
  gcc make cmake pkg-config libc6-dev \
  mpich libmpich-dev libmetis-dev libhdf5-mpich-dev hdf5-tools libmatheval-dev \
  python3 python3-numpy python3-h5py \
  clang libclang-rt-14-dev valgrind \
  python3-paraview
for alt in mpi:/usr/bin/mpicc.mpich mpirun:/usr/bin/mpirun.mpich h5pcc:/usr/bin/h5pcc.mpich; do
  name=${alt%%:*} path=${alt#*:}
  if update-alternatives --list "$name" 2>/dev/null | grep -qx "$path"; then
    update-alternatives --set "$name" "$path"
  fi
done
