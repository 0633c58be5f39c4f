/* tu_chain.h - a 1D chain of N points split into contiguous blocks, one per rank, described as
 * plain halo lists (pm_halo_lists_t) without a local mesh: the operator and halo-list tests'
 * common data.  Two layouts of a rank's vector:
 *   TU_OWNED_FIRST  owned points 0..n-1, then the left ghost (if any), then the right one
 *                   (pmesh's layout: the one a pm_csr_t needs);
 *   TU_GHOSTS_AROUND  slot 0 the left ghost, owned 1..n, slot n+1 the right ghost; a slot
 *                   without a neighbour is neither imported nor exported.
 * The neighbours are listed right first, then left (the lists need not be ascending). */
#ifndef PMESH_TU_CHAIN_H
#define PMESH_TU_CHAIN_H

#include <stdint.h>

#include "pmesh/pm_halo.h"

enum { TU_OWNED_FIRST, TU_GHOSTS_AROUND };

typedef struct tu_chain {
  int64_t N, r0; /* global points; this rank's first */
  int32_t n, np; /* owned points; vector length */
  int layout;
  int32_t own0;    /* position of the first owned point */
  int32_t gl, gr;  /* positions of the left and right ghost, -1 when there is no neighbour */
  int left, right; /* neighbour ranks, -1 when none */
  int n_neib, neib[2];
  int32_t imp_index[3], imp_item[2], exp_index[3], exp_item[2];
} tu_chain_t;

/* This rank's block of N points over `size` ranks (N >= size: every rank owns one or more). */
static inline void tu_chain_init(tu_chain_t *c, int64_t N, int rank, int size, int layout) {
  c->N = N;
  c->layout = layout;
  c->r0 = N * rank / size;
  c->n = (int32_t)(N * (rank + 1) / size - c->r0);
  c->left = rank > 0 ? rank - 1 : -1;
  c->right = rank + 1 < size ? rank + 1 : -1;
  if (layout == TU_OWNED_FIRST) {
    c->own0 = 0;
    c->gl = c->left >= 0 ? c->n : -1;
    c->gr = c->right >= 0 ? c->n + (c->left >= 0) : -1;
    c->np = c->n + (c->left >= 0) + (c->right >= 0);
  } else {
    c->own0 = 1;
    c->gl = c->left >= 0 ? 0 : -1;
    c->gr = c->right >= 0 ? c->n + 1 : -1;
    c->np = c->n + 2;
  }
  c->n_neib = 0;
  c->imp_index[0] = c->exp_index[0] = 0;
  if (c->right >= 0) {
    c->neib[c->n_neib] = c->right;
    c->imp_item[c->n_neib] = c->gr;
    c->exp_item[c->n_neib] = c->own0 + c->n - 1;
    c->n_neib++;
    c->imp_index[c->n_neib] = c->exp_index[c->n_neib] = c->n_neib;
  }
  if (c->left >= 0) {
    c->neib[c->n_neib] = c->left;
    c->imp_item[c->n_neib] = c->gl;
    c->exp_item[c->n_neib] = c->own0;
    c->n_neib++;
    c->imp_index[c->n_neib] = c->exp_index[c->n_neib] = c->n_neib;
  }
}

static inline pm_halo_lists_t tu_chain_lists(const tu_chain_t *c) {
  pm_halo_lists_t g = {c->np, c->n_neib, c->neib, c->imp_index, c->imp_item, c->exp_index, c->exp_item};
  return g;
}

/* The global id of position i, or -1 for a slot without a point. */
static inline int64_t tu_chain_gid(const tu_chain_t *c, int32_t i) {
  if (i >= c->own0 && i < c->own0 + c->n) return c->r0 + (i - c->own0);
  if (i == c->gl) return c->r0 - 1;
  if (i == c->gr) return c->r0 + c->n;
  return -1;
}

#endif
