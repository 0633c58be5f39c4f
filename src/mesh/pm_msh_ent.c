/* pm_msh_ent.c - the Gmsh reader's entities and the references to them (pm_msh_ent.h): MSH 4.1
 * $Entities and $PartitionedEntities, the entities that node and element blocks name, the
 * physical groups of elements and the names $PhysicalNames gives them.
 *
 * Gmsh 4.8 itself refuses an element block whose entity it does not know ("Unknown entity"), but
 * takes a node block's unknown entity as a new discrete one, warns about an unknown bounding
 * entity, and ignores a partitioned entity's unknown parent and names given to the wrong
 * dimension.  pmesh refuses them all when the file has $Entities: each one is a file that refers
 * to what it does not define, and pmesh's groups come from entities and names. */
#include "pm_msh_ent.h"

#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_error.h"

static const char *const msh_kind[4] = {"point", "curve", "surface", "volume"};

static int msh_ent_cmp(const void *a, const void *b) {
  const msh_ent_t *x = a, *y = b;
  if (x->dim != y->dim) return x->dim < y->dim ? -1 : 1;
  return (x->tag > y->tag) - (x->tag < y->tag);
}

/* Entity (dim, tag) among ent[0, n) sorted by msh_ent_cmp, or NULL. */
static const msh_ent_t *msh_ent_find(const msh_ent_t *ent, int64_t n, int64_t dim, int64_t tag) {
  if (n == 0 || tag < INT32_MIN || tag > INT32_MAX || dim < 0 || dim > 3) return NULL;
  msh_ent_t key = {(int32_t)dim, (int32_t)tag, 0, 0, 0};
  return bsearch(&key, ent, (size_t)n, sizeof *ent, msh_ent_cmp);
}

static int msh_push_phys(msh_rd_t *r, int32_t phys) {
  if (r->n_ent_phys == r->ent_phys_cap) {
    int64_t cap = r->ent_phys_cap ? 2 * r->ent_phys_cap : 64;
    PM_CALL(PM_REALLOC(r->ent_phys, cap, "physical tags of entities"));
    r->ent_phys_cap = cap;
  }
  r->ent_phys[r->n_ent_phys++] = phys;
  return PM_OK;
}

/* Sort the entities of one dimension, ent[lo, hi); a tag listed twice is an error. */
static int msh_ent_sort(msh_rd_t *r, int64_t lo, int64_t hi) {
  msh_ent_t *e = r->ent + lo;
  qsort(e, (size_t)(hi - lo), sizeof *e, msh_ent_cmp);
  for (int64_t i = 1; i < hi - lo; i++)
    if (msh_ent_cmp(&e[i - 1], &e[i]) == 0)
      return MSH_FAIL_AT(r, e[i].at > e[i - 1].at ? e[i].at : e[i - 1].at, PM_ERR_FORMAT,
                         "entity (dimension %d, tag %d) is listed twice in $Entities", (int)e[i].dim, (int)e[i].tag);
  return PM_OK;
}

/* A physical tag (ASCII int or binary int) of an entity. */
static int msh_ent_int(msh_rd_t *r, const char *what, int32_t *v) {
  return r->binary ? pm_msh_rd_bint(r, v) : pm_msh_rd_int32(r, what, v);
}

/* The physical tags of an entity: a count, then that many ints, appended to r->ent_phys. */
static int msh_ent_phys(msh_rd_t *r, int64_t *n) {
  PM_CALL(pm_msh_rd_count(r, r->binary, r->binary ? 4 : 2, "number of physical tags of an entity", n));
  for (int64_t k = 0; k < *n; k++) {
    int32_t p;
    PM_CALL(msh_ent_int(r, "a physical tag", &p));
    /* A negative tag puts the entity in group -p with its orientation reversed (Gmsh writes it
     * for `Physical Surface(80) = {-5, ...}`; its MSH 2.2 writer folds it into group 80). */
    PM_CALL(msh_push_phys(r, p < 0 && p != INT32_MIN ? -p : p));
  }
  return PM_OK;
}

/* The bounding entities of an entity of dimension d >= 1: each must be an entity of dimension
 * d - 1 among below[0, nbelow) (sorted); their sign is an orientation.  `space` says where they
 * are looked up, for the message. */
static int msh_ent_bounds(msh_rd_t *r, int d, int32_t tag, const msh_ent_t *below, int64_t nbelow, const char *space) {
  int64_t nb;
  PM_CALL(pm_msh_rd_count(r, r->binary, r->binary ? 4 : 2, "number of bounding entities", &nb));
  for (int64_t k = 0; k < nb; k++) {
    int64_t at = msh_where(r);
    int32_t b;
    PM_CALL(msh_ent_int(r, "a bounding entity tag", &b));
    if (!r->binary) at = msh_where(r);
    int64_t ab = b < 0 ? -(int64_t)b : b;
    if (!msh_ent_find(below, nbelow, d - 1, ab))
      return MSH_FAIL_AT(r, at, PM_ERR_FORMAT, "%s %d in %s is bounded by %s %lld, which %s does not list", msh_kind[d],
                         (int)tag, space, msh_kind[d - 1], (long long)ab, space);
  }
  return PM_OK;
}

int pm_msh_ent_read(msh_rd_t *r) {
  int bin = r->binary, sz = r->szt;
  int64_t cnt[4], total = 0;
  r->sect = "$Entities";
  static const char *const what[4] = {"number of points", "number of curves", "number of surfaces",
                                      "number of volumes"};
  for (int d = 0; d < 4; d++) {
    PM_CALL(pm_msh_rd_count(r, bin, bin ? 4 + 24 + sz : 10, what[d], &cnt[d]));
    total += cnt[d];
  }
  PM_CALL(pm_msh_rd_check_count(r, total, bin ? 4 + 24 + sz : 10, "number of entities"));
  PM_CALL(PM_MALLOC(r->ent, total, "entities"));
  int64_t lo = 0; /* the entities of dimension d - 1 are ent[lo, r->n_ent) */
  for (int d = 0; d < 4; d++) {
    int64_t start = r->n_ent;
    if (d > 0) PM_CALL(msh_ent_sort(r, lo, start));
    for (int64_t i = 0; i < cnt[d]; i++) {
      msh_ent_t *e = &r->ent[r->n_ent];
      e->dim = d;
      e->off = r->n_ent_phys;
      e->at = msh_where(r);
      if (bin) {
        unsigned char b[4 + 48];
        PM_CALL(msh_raw(r, b, d ? 4 + 48 : 4 + 24));
        e->tag = msh_get_i32(r, b);
      } else {
        double x;
        PM_CALL(pm_msh_rd_int32(r, "an entity tag", &e->tag));
        e->at = msh_where(r);
        for (int k = 0; k < (d ? 6 : 3); k++)
          PM_CALL(pm_msh_rd_real(r, "a coordinate of an entity's bounding box", &x));
      }
      PM_CALL(msh_ent_phys(r, &e->n));
      if (d) PM_CALL(msh_ent_bounds(r, d, e->tag, r->ent + lo, start - lo, "$Entities"));
      r->n_ent++;
    }
    lo = start;
  }
  PM_CALL(msh_ent_sort(r, lo, r->n_ent));
  return pm_msh_rd_end(r, "$EndEntities", ": $Entities holds more entities than its header announces");
}

/* A partition number of $PartitionedEntities, in [1, npart]. */
static int msh_partition(msh_rd_t *r, int64_t npart, const char *what) {
  int64_t at = msh_where(r);
  int32_t p;
  PM_CALL(msh_ent_int(r, what, &p));
  if (!r->binary) at = msh_where(r);
  if (p < 1 || p > npart)
    return MSH_FAIL_AT(r, at, PM_ERR_FORMAT, "%s is %d, but $PartitionedEntities announces %lld partitions", what,
                       (int)p, (long long)npart);
  return PM_OK;
}

int pm_msh_ent_read_partitioned(msh_rd_t *r) {
  int bin = r->binary, sz = r->szt;
  int64_t npart, nghost, cnt[4], total = 0;
  r->sect = "$PartitionedEntities";
  if (bin)
    PM_CALL(pm_msh_rd_bsize(r, 0, "the number of partitions", &npart));
  else
    PM_CALL(pm_msh_rd_int(r, 0, INT64_MAX, "the number of partitions", &npart));
  PM_CALL(pm_msh_rd_count(r, bin, bin ? 8 : 4, "number of ghost entities", &nghost));
  for (int64_t i = 0; i < nghost; i++) {
    int32_t g;
    PM_CALL(msh_ent_int(r, "a ghost entity tag", &g));
    PM_CALL(msh_partition(r, npart, "the partition of a ghost entity"));
  }
  static const char *const what[4] = {"number of partitioned points", "number of partitioned curves",
                                      "number of partitioned surfaces", "number of partitioned volumes"};
  for (int d = 0; d < 4; d++) {
    PM_CALL(pm_msh_rd_count(r, bin, bin ? 12 + sz + 24 + sz : 14, what[d], &cnt[d]));
    total += cnt[d];
  }
  PM_CALL(pm_msh_rd_check_count(r, total, bin ? 12 + sz + 24 + sz : 14, "number of partitioned entities"));
  /* Their own tags and bounding entities (which name partitioned entities), for the bounds. */
  msh_ent_t *pe = NULL;
  int ierr = PM_OK;
  PM_TRY(PM_MALLOC(pe, total, "partitioned entities"));
  int64_t n = 0, lo = 0, nphys0 = r->n_ent_phys;
  for (int d = 0; d < 4; d++) {
    int64_t start = n;
    if (d > 0) qsort(pe + lo, (size_t)(start - lo), sizeof *pe, msh_ent_cmp);
    for (int64_t i = 0; i < cnt[d]; i++) {
      msh_ent_t *e = &pe[n];
      int32_t pdim, ptag;
      int64_t nparts, nphys;
      memset(e, 0, sizeof *e);
      e->dim = d;
      e->at = msh_where(r);
      PM_TRY(msh_ent_int(r, "a partitioned entity tag", &e->tag));
      if (!bin) e->at = msh_where(r);
      PM_TRY(msh_ent_int(r, "the dimension of a parent entity", &pdim));
      PM_TRY(msh_ent_int(r, "the tag of a parent entity", &ptag));
      /* Gmsh writes 0 0 for a partitioned entity without a parent; entity tags start at 1. */
      if (ptag != 0 && !msh_ent_find(r->ent, r->n_ent, pdim, ptag)) {
        ierr = MSH_FAIL_AT(r, e->at, PM_ERR_FORMAT,
                           "partitioned %s %d has parent entity (dimension %d, tag %d), which $Entities does not "
                           "list%s",
                           msh_kind[d], (int)e->tag, (int)pdim, (int)ptag,
                           r->have_entities ? "" : " (the file has no $Entities before $PartitionedEntities)");
        goto cleanup;
      }
      PM_TRY(pm_msh_rd_count(r, bin, bin ? 4 : 2, "number of partitions of an entity", &nparts));
      for (int64_t k = 0; k < nparts; k++) PM_TRY(msh_partition(r, npart, "the partition of an entity"));
      if (bin) {
        unsigned char b[48];
        PM_TRY(msh_raw(r, b, d ? 48 : 24));
      } else {
        double x;
        for (int k = 0; k < (d ? 6 : 3); k++)
          PM_TRY(pm_msh_rd_real(r, "a coordinate of a partitioned entity's bounding box", &x));
      }
      PM_TRY(msh_ent_phys(r, &nphys));
      if (d) PM_TRY(msh_ent_bounds(r, d, e->tag, pe + lo, start - lo, "$PartitionedEntities"));
      n++;
    }
    lo = start;
  }
  r->n_ent_phys = nphys0; /* their physical tags are not used */
  PM_TRY(pm_msh_rd_end(r, "$EndPartitionedEntities",
                       ": $PartitionedEntities holds more entities than its header announces"));
  ierr = MSH_FAIL_AT(r, r->sect_at, PM_ERR_UNSUPPORTED, MSH_PARTITIONED);
cleanup:
  free(pe);
  return ierr;
}

int pm_msh_ent_check_blocks(msh_rd_t *r) {
  if (!r->have_entities) return PM_OK;
  const msh_blk_t *bad_node = NULL, *bad_elem = NULL;
  int64_t i_node = 0, i_elem = 0;
  for (int64_t b = 0; b < r->n_nblk && !bad_node; b++)
    if (!msh_ent_find(r->ent, r->n_ent, r->nblk[b].dim, r->nblk[b].tag)) bad_node = &r->nblk[i_node = b];
  for (int64_t b = 0; b < r->n_blk && !bad_elem; b++)
    if (!msh_ent_find(r->ent, r->n_ent, r->blk[b].dim, r->blk[b].tag)) bad_elem = &r->blk[i_elem = b];
  /* The first in the file (line numbers and byte offsets both grow along it). */
  if (bad_node && (!bad_elem || bad_node->at <= bad_elem->at))
    return MSH_FAIL_AT(r, bad_node->at, PM_ERR_FORMAT,
                       "node block %lld belongs to entity (dimension %d, tag %d), which $Entities does not list; "
                       "correct the block's entity or add the entity to $Entities",
                       (long long)i_node + 1, (int)bad_node->dim, (int)bad_node->tag);
  if (bad_elem)
    return MSH_FAIL_AT(r, bad_elem->at, PM_ERR_FORMAT,
                       "element block %lld (type %d, %s; %lld element%s) belongs to entity (dimension %d, tag %d), "
                       "which $Entities does not list, so its elements' physical groups are unknown; correct the "
                       "block's entity or add the entity to $Entities",
                       (long long)i_elem + 1, (int)bad_elem->type, pm_msh_rd_type_name(bad_elem->type),
                       (long long)bad_elem->count, bad_elem->count == 1 ? "" : "s", (int)bad_elem->dim,
                       (int)bad_elem->tag);
  return PM_OK;
}

int pm_msh_ent_members(msh_rd_t *r) {
  pm_msh_t *m = r->m;
  int64_t total = 0, limit = 16 * m->n_elems + (1 << 20);
  for (int pass = 0; pass < 2; pass++) {
    for (int64_t b = 0; b < r->n_blk; b++) {
      msh_blk_t *blk = &r->blk[b];
      const msh_ent_t *e = msh_ent_find(r->ent, r->n_ent, blk->dim, blk->tag);
      if (!e || e->n == 0 || blk->count == 0) continue; /* no $Entities (meshio), or no group */
      if (pass == 0) {
        if (e->n > (limit - total) / blk->count)
          return MSH_FAIL_AT(r, r->elems_at, PM_ERR_UNSUPPORTED,
                             "too many physical-group memberships: entity (dimension %d, tag %d) "
                             "has %lld physical tags for %lld elements",
                             (int)e->dim, (int)e->tag, (long long)e->n, (long long)blk->count);
        total += e->n * blk->count;
        continue;
      }
      for (int64_t p = 0; p < e->n; p++) {
        for (int64_t i = 0; i < blk->count; i++) {
          m->member_elem[m->n_member] = blk->first + i;
          m->member_phys[m->n_member] = r->ent_phys[e->off + p];
          m->n_member++;
        }
      }
    }
    if (pass == 0) {
      PM_CALL(PM_MALLOC(m->member_elem, total, "physical memberships"));
      PM_CALL(PM_MALLOC(m->member_phys, total, "physical memberships"));
    }
  }
  return PM_OK;
}
