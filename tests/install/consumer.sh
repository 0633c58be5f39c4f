# Install pmesh into a scratch prefix, then build and run a consumer with find_package(pmesh)
# and another with pkg-config, and build the installed examples (share/doc/pmesh/examples, with
# their own CMakeLists.txt) through find_package(pmesh) and run the lecture's 1D example; then
# build the consumer from the build tree itself (pmesh_DIR=BUILD, PKG_CONFIG_PATH=BUILD).
set -eu
src=$1; build=$2; mesh=$3
work="$PWD/work.install"
rm -rf "$work"; mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
test -x "$work/prefix/bin/partition" && test -x "$work/prefix/bin/meshgen"
test -f "$work/prefix/include/pmesh/pm_part.h" && test -f "$work/prefix/include/pmesh/pm_version.h"
test -f "$work/prefix/include/pmesh/pm_redist.h" && test -f "$work/prefix/include/pmesh/pm_alloc.h"
# In a sanitizer build the consumer must be built with the same compiler and flags.
cc=${CONSUMER_CC:-cc}; cflags=${CONSUMER_CFLAGS:-}
cmake -S "$src/tests/install/consumer" -B "$work/cbuild" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags" -DCMAKE_EXE_LINKER_FLAGS="$cflags" > "$work/cfg.log"
cmake --build "$work/cbuild" > "$work/build.log"
LD_LIBRARY_PATH="$work/prefix/lib:$work/prefix/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}" "$work/cbuild/consumer" "$mesh"
pc=$(ls "$work"/prefix/lib*/pkgconfig/pmesh.pc "$work"/prefix/lib/*/pkgconfig/pmesh.pc 2>/dev/null | head -n 1)
PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --exists pmesh
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs pmesh)
MPICH_CC="$cc" mpicc.mpich -std=c11 $cflags "$src/tests/install/consumer/consumer.c" $flags -o "$work/consumer_pc"
LD_LIBRARY_PATH="$(dirname "$(dirname "$pc")"):${LD_LIBRARY_PATH:-}" "$work/consumer_pc" "$mesh"
examples=$(ls -d "$work"/prefix/share/doc/*/examples)
test -f "$examples/lecture_heat1d.c" && test -f "$examples/struct_halo.c" && test -f "$examples/heat_explicit.c"
cmake -S "$examples" -B "$work/ebuild" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags" -DCMAKE_EXE_LINKER_FLAGS="$cflags" > "$work/ecfg.log"
cmake --build "$work/ebuild" > "$work/ebuild.log"
libs="$work/prefix/lib:$work/prefix/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
LD_LIBRARY_PATH="$libs" "$work/prefix/bin/meshgen" line 15 1.0 -o "$work/bar.msh" > /dev/null
LD_LIBRARY_PATH="$libs" "$work/prefix/bin/partition" "$work/bar.msh" 2 --method rcb -o "$work/bar" --quiet
sed '1s/.*/15/' "$src/tests/lecture/input.dat" > "$work/in15.dat"
# (MPICH's start-up leaks in a sanitizer build: see tests/halo/CMakeLists.txt.)
LD_LIBRARY_PATH="$libs" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
  ${MPIEXEC:-mpiexec.mpich} -n 2 "$work/ebuild/lecture_heat1d" "$work/bar" "$work/in15.dat" > "$work/heat1d.out"
cat "$work/heat1d.out"
grep -q "^T(15) = 112.5 " "$work/heat1d.out"
# The build tree as a package: find_package with pmesh_DIR, and pkg-config with PKG_CONFIG_PATH.
cmake -S "$src/tests/install/consumer" -B "$work/tbuild" -Dpmesh_DIR="$build" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags" -DCMAKE_EXE_LINKER_FLAGS="$cflags" > "$work/tcfg.log"
cmake --build "$work/tbuild" > "$work/tbuild.log"
"$work/tbuild/consumer" "$mesh"
flags=$(PKG_CONFIG_PATH="$build" pkg-config --cflags --libs pmesh)
MPICH_CC="$cc" mpicc.mpich -std=c11 $cflags "$src/tests/install/consumer/consumer.c" $flags -o "$work/consumer_tpc"
"$work/consumer_tpc" "$mesh"
echo "installed package works with find_package and pkg-config; its examples build and run; so does the build tree"
