/* pm_fp.h - the mesh fingerprint's hash: a commutative sum of per-entity hashes (position in the
 * global order, Gmsh tag, coordinates; element type and node tags), so that any partition of the
 * same mesh gives the same value.  Private: shared by pm_check (partition --check verifies the
 * value partition.meta stores) and pm_h5 (result files, restarts). */
#ifndef PMESH_PM_FP_H
#define PMESH_PM_FP_H

#include <stdint.h>
#include <string.h>

static inline uint64_t pm_fp_mix64(uint64_t h) { /* splitmix64 finalizer */
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return h;
}

/* Word-wise hash (each word mixed in with splitmix64). */
static inline uint64_t pm_fp_words(const uint64_t *w, int n, uint64_t seed) {
  uint64_t h = pm_fp_mix64(seed);
  for (int i = 0; i < n; i++) h = pm_fp_mix64(h ^ (w[i] + 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1)));
  return h;
}

static inline uint64_t pm_fp_node(int64_t index, int64_t gid, const double *xyz) {
  uint64_t w[5];
  w[0] = (uint64_t)index;
  w[1] = (uint64_t)gid;
  for (int d = 0; d < 3; d++) {
    double x = xyz[d] == 0.0 ? 0.0 : xyz[d]; /* -0 == +0 */
    memcpy(&w[2 + d], &x, sizeof x);
  }
  return pm_fp_words(w, 5, 0x6e6f6465ULL);
}

static inline uint64_t pm_fp_elem(int64_t index, int type, int nv, const int64_t *vgid) {
  uint64_t w[6] = {(uint64_t)index, (uint64_t)type, 0, 0, 0, 0};
  for (int k = 0; k < nv && k < 4; k++) w[2 + k] = (uint64_t)vgid[k];
  return pm_fp_words(w, 6, 0x656c656dULL);
}

/* sums[0]: nodes' hashes, sums[1]: elements' hashes. */
static inline uint64_t pm_fp_final(int64_t nodes, int64_t elems, int dim, const uint64_t sums[2]) {
  uint64_t w[5] = {(uint64_t)nodes, (uint64_t)elems, (uint64_t)dim, sums[0], sums[1]};
  return pm_fp_words(w, 5, 0x6d657368ULL);
}

#endif
