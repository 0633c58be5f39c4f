/* pm_fp.h - the mesh fingerprint's hash: a commutative sum of per-entity hashes (position in the
 * global order, Gmsh tag, coordinates; element type and node tags), so that any partition of the
 * same mesh gives the same value.  Private: shared by pm_check (partition --check verifies the
 * value partition.meta stores) and pm_h5 (result files, restarts). */
#ifndef PMESH_PM_FP_H
#define PMESH_PM_FP_H

#include <stdint.h>
#include <string.h>

#include "pmesh/pm_local.h"

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

/* Add local mesh l's share (its internal nodes, the elements rank `owner` owns) to sums[0]
 * (nodes) and sums[1] (elements); counts[0], counts[1] (NULL to skip) count them. */
static inline void pm_fp_local(const pm_local_t *l, int owner, uint64_t sums[2], uint64_t *counts) {
  for (int32_t i = 0; i < l->n_internal; i++)
    sums[0] += pm_fp_node(l->node_index[i], l->gid[i], &l->xyz[3 * (int64_t)i]);
  uint64_t ne = 0;
  for (int32_t e = 0; e < l->n_elems; e++) {
    if (l->elem_owner[e] != owner) continue;
    int64_t vg[4] = {0, 0, 0, 0};
    int nv = l->elem_ptr[e + 1] - l->elem_ptr[e];
    for (int k = 0; k < nv && k < 4; k++) vg[k] = l->gid[l->elem_node[l->elem_ptr[e] + k]];
    sums[1] += pm_fp_elem(l->elem_index[e], l->elem_type[e], nv, vg);
    ne++;
  }
  if (counts) {
    counts[0] += (uint64_t)l->n_internal;
    counts[1] += ne;
  }
}

/* sums[0]: nodes' hashes, sums[1]: elements' hashes. */
static inline uint64_t pm_fp_final(int64_t nodes, int64_t elems, int dim, const uint64_t sums[2]) {
  uint64_t w[5] = {(uint64_t)nodes, (uint64_t)elems, (uint64_t)dim, sums[0], sums[1]};
  return pm_fp_words(w, 5, 0x6d657368ULL);
}

#endif
