#!/bin/sh
# Install what pmesh needs on Debian 12 (as root): compiler, CMake, MPICH, METIS, parallel HDF5
# for MPICH, libmatheval; plus what the tests use (h5py for reading results back, clang's
# libFuzzer runtime for the fuzz harnesses, valgrind), and ParaView's Python for h5_paraview.
# pmesh is built on MPICH.  python3-paraview brings OpenMPI, whose alternatives (mpicc, mpirun,
# h5pcc) outrank MPICH's: pmesh's CMake pins mpicc.mpich, h5pcc.mpich and mpiexec.mpich anyway,
# and the alternatives are set back to MPICH below so that plain mpicc/mpiexec stay MPICH too.
set -eu
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends \
  gcc make cmake pkg-config libc6-dev \
  mpich libmpich-dev libmetis-dev libhdf5-mpich-dev hdf5-tools libmatheval-dev \
  python3 python3-numpy python3-h5py \
  clang libclang-rt-14-dev valgrind
# ParaView (pvpython) for tests/io/paraview.sh; large, and it brings OpenMPI (see above).
apt-get install -y -q --no-install-recommends python3-paraview
for alt in mpi:/usr/bin/mpicc.mpich mpirun:/usr/bin/mpirun.mpich h5pcc:/usr/bin/h5pcc.mpich; do
  name=${alt%%:*} path=${alt#*:}
  if update-alternatives --list "$name" 2>/dev/null | grep -qx "$path"; then
    update-alternatives --set "$name" "$path"
  fi
done
