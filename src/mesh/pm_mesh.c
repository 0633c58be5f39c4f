/* pm_mesh.c - build the global mesh (sorted nodes, top-dimension cells, faces, groups) from
 * the raw content of an MSH file. */
#include "pmesh/pm_mesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pm_util.h"
#include "pm_mesh_int.h"
#include "pmesh/pm_cell.h"
#include "pmesh/pm_error.h"

void pm_mesh_destroy(pm_mesh_t **mesh) {
  if (!mesh || !*mesh) return;
  pm_mesh_t *m = *mesh;
  free(m->node_gid);
  free(m->xyz);
  free(m->elem_type);
  free(m->elem_gid);
  free(m->elem_ptr);
  free(m->elem_node);
  free(m->face_type);
  free(m->face_gid);
  free(m->face_ptr);
  free(m->face_node);
  for (int g = 0; g < m->n_groups; g++) {
    free(m->groups[g].name);
    free(m->groups[g].nodes);
    free(m->groups[g].faces);
    free(m->groups[g].elems);
  }
  free(m->groups);
  free(m);
  *mesh = NULL;
}

int64_t pm_mesh_find_node(const pm_mesh_t *mesh, int64_t gid) {
  int64_t lo = 0, hi = mesh->n_nodes - 1;
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (mesh->node_gid[mid] == gid) return mid;
    if (mesh->node_gid[mid] < gid)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* Map from node tag to the index of the node in sorted-tag order: the tag minus the first one
 * when the tags are consecutive (Gmsh's usual 1..n, no table), a direct table when they are
 * dense, binary search in the sorted tags otherwise. */
typedef struct tag_map {
  const int64_t *sorted; /* sorted tags [n] */
  int64_t n, lo;
  int ident;             /* sorted[i] == lo + i */
  int64_t *table;        /* [hi-lo+1] or NULL */
  const int64_t *newidx; /* set once the kept nodes are numbered: table holds new indices */
  int newidx_ident;      /* newidx[i] == i (no node dropped) */
} tag_map_t;

static int tag_map_init(tag_map_t *tm, const int64_t *sorted, int64_t n, int ident) {
  tm->sorted = sorted;
  tm->n = n;
  tm->table = NULL;
  tm->ident = ident;
  tm->lo = n ? sorted[0] : 0;
  if (n == 0 || ident) return PM_OK;
  uint64_t range = (uint64_t)sorted[n - 1] - (uint64_t)sorted[0] + 1;
  if (range <= (uint64_t)n * 4 + 1024) {
    PM_CALL(PM_MALLOC(tm->table, range, "node tag table"));
    for (uint64_t i = 0; i < range; i++) tm->table[i] = -1;
    for (int64_t i = 0; i < n; i++) tm->table[sorted[i] - tm->lo] = i;
  }
  return PM_OK;
}

/* Renumber the table in place: from then on it maps a tag straight to the new node index. */
static void tag_map_renumber(tag_map_t *tm, const int64_t *newidx, int newidx_ident) {
  tm->newidx = newidx;
  tm->newidx_ident = newidx_ident;
  if (!tm->table) return;
  uint64_t range = (uint64_t)tm->sorted[tm->n - 1] - (uint64_t)tm->lo + 1;
  for (uint64_t i = 0; i < range; i++)
    if (tm->table[i] >= 0) tm->table[i] = newidx[tm->table[i]];
}

static int64_t tag_map_find(const tag_map_t *tm, int64_t tag);

/* New index of a node tag (after tag_map_renumber), -1 for a dropped or unknown node. */
static int64_t tag_map_new(const tag_map_t *tm, int64_t tag) {
  if (tm->ident) {
    if (tag < tm->lo || tag - tm->lo >= tm->n) return -1;
    return tm->newidx_ident ? tag - tm->lo : tm->newidx[tag - tm->lo];
  }
  if (tm->table) {
    if (tag < tm->lo || tag > tm->sorted[tm->n - 1]) return -1;
    return tm->table[tag - tm->lo];
  }
  int64_t s = tag_map_find(tm, tag);
  return s < 0 ? -1 : tm->newidx[s];
}

static int64_t tag_map_find(const tag_map_t *tm, int64_t tag) {
  if (tm->ident) return tag < tm->lo || tag - tm->lo >= tm->n ? -1 : tag - tm->lo;
  if (tm->table) {
    if (tag < tm->lo || tag > tm->sorted[tm->n - 1]) return -1;
    return tm->table[tag - tm->lo];
  }
  int64_t lo = 0, hi = tm->n - 1;
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (tm->sorted[mid] == tag) return mid;
    if (tm->sorted[mid] < tag)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

typedef struct phys_key {
  int dim, tag;
  int64_t i; /* position of a membership (ignored by cmp_phys) */
} phys_key_t;

static int cmp_phys(const void *a, const void *b) {
  const phys_key_t *x = a, *y = b;
  if (x->dim != y->dim) return x->dim < y->dim ? -1 : 1;
  return (x->tag > y->tag) - (x->tag < y->tag);
}

static int cmp_member(const void *a, const void *b) {
  int c = cmp_phys(a, b);
  if (c) return c;
  const phys_key_t *x = a, *y = b;
  return (x->i > y->i) - (x->i < y->i);
}

static int keys_dim_of(const pm_msh_t *msh, int64_t i) {
  return pm_msh_type_dim(msh->elem_type[msh->member_elem[i]]);
}

/* When pm_mesh_read hands its raw file over, the raw connectivity becomes the mesh's own arrays:
 * the node tags of the group members that are neither cells nor faces (points of a 2D mesh's
 * physical points, faces dropped with an orphan node) are kept aside here, by raw index. */
typedef struct other {
  int64_t n, *raw; /* ascending raw element indices */
  int64_t *ptr;    /* [n+1] */
  int64_t *node;   /* node tags */
} other_t;

/* The nodes (new indices, -1 for dropped ones) of raw element e: the converted connectivity of a
 * cell or face, or a lookup for other elements (e.g. points of a 2D mesh) into `conv`. */
static const int64_t *member_nodes(const pm_msh_t *msh, const pm_mesh_t *m, const tag_map_t *tm,
                                   const other_t *oth, const int64_t *raw2elem, const int64_t *raw2face, int64_t e,
                                   int64_t *conv, int64_t *nv) {
  if (raw2elem[e] >= 0) {
    *nv = m->elem_ptr[raw2elem[e] + 1] - m->elem_ptr[raw2elem[e]];
    return m->elem_node + m->elem_ptr[raw2elem[e]];
  }
  if (raw2face[e] >= 0) {
    *nv = m->face_ptr[raw2face[e] + 1] - m->face_ptr[raw2face[e]];
    return m->face_node + m->face_ptr[raw2face[e]];
  }
  const int64_t *raw = NULL;
  if (oth && oth->n) { /* the raw connectivity was consumed: the kept copy of this element's tags */
    int64_t lo = 0, hi = oth->n - 1;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (oth->raw[mid] < e)
        lo = mid + 1;
      else
        hi = mid;
    }
    *nv = oth->ptr[lo + 1] - oth->ptr[lo];
    raw = oth->node + oth->ptr[lo];
  } else {
    *nv = msh->elem_ptr[e + 1] - msh->elem_ptr[e];
    raw = msh->elem_node + msh->elem_ptr[e];
  }
  for (int64_t k = 0; k < *nv; k++) conv[k] = tag_map_new(tm, raw[k]);
  return conv;
}

/* dup[e] = the first raw element with e's tag, type and nodes, or -1 if e is the first; *dup_out
 * stays NULL when the tags increase (then no element is a copy). */
static int find_copies(const pm_msh_t *msh, int64_t **dup_out) {
  int64_t n = msh->n_elems, *perm = NULL, *dup = NULL;
  int ierr = PM_OK;
  *dup_out = NULL;
  int64_t i_up = 1;
  while (i_up < n && msh->elem_tag[i_up] > msh->elem_tag[i_up - 1]) i_up++;
  if (i_up >= n) return PM_OK; /* increasing tags (Gmsh's usual order): no copies, no sort, no array */
  PM_TRY(PM_MALLOC(dup, n + 1, "element copies"));
  for (int64_t i = 0; i < n; i++) dup[i] = -1;
  PM_TRY(PM_MALLOC(perm, n + 1, "element copies"));
  PM_TRY(pm_argsort_i64(msh->elem_tag, n, perm)); /* stable: the first copy comes first */
  for (int64_t i = 1; i < n; i++) {
    int64_t a = perm[i], first = perm[i - 1];
    if (msh->elem_tag[a] != msh->elem_tag[first]) continue;
    if (dup[first] >= 0) first = dup[first];
    int64_t na = msh->elem_ptr[a + 1] - msh->elem_ptr[a], nf = msh->elem_ptr[first + 1] - msh->elem_ptr[first];
    if (msh->elem_type[a] != msh->elem_type[first] || na != nf ||
        memcmp(msh->elem_node + msh->elem_ptr[a], msh->elem_node + msh->elem_ptr[first], (size_t)na * sizeof(int64_t)))
      continue; /* a different element that reuses a tag: kept as it is */
    dup[a] = first;
  }
  *dup_out = dup;
  dup = NULL;
cleanup:
  free(perm);
  free(dup);
  return ierr;
}

/* The state of pm_mesh_from_msh between its steps: the mesh being built and the work arrays,
 * all freed by build_free. */
typedef struct build {
  const pm_msh_t *msh;
  pm_msh_t *own; /* msh when the caller hands it over (pm_mesh_read): its arrays are reused or freed */
  pm_mesh_t *m;
  int dim;
  int ident;                    /* the raw node tags are lo, lo+1, ... in file order */
  const int64_t *tags;          /* node tags in ascending order: msh->node_tag or sorted */
  int64_t *perm, *sorted;       /* the sort of the raw tags (NULL when ident) */
  tag_map_t tm;                 /* tag -> sorted node, then -> new node */
  int64_t *dup;                 /* find_copies */
  int64_t *newidx;              /* [n_nodes of msh] new index of a sorted node, -1 if dropped */
  int64_t *raw2elem, *raw2face; /* [n_elems of msh] the cell or face of a raw element, or -1 */
  phys_key_t *mkey, *keys;      /* memberships sorted by group; the distinct groups */
  int64_t n_mkey;               /* memberships kept (in 3D, those of curves and points are not) */
  int64_t *stamp, *order;       /* group_nodes' marks; the members of one group */
  uint64_t *gbits;              /* group_nodes' bitmap, allocated for the first large group */
  other_t oth;                  /* with own: the members that are neither cells nor faces */
} build_t;

static int is_copy(const build_t *b, int64_t e) {
  return b->dup && b->dup[e] >= 0;
}

/* The work arrays, freed as soon as the groups are built (before the boundary's facet table). */
static void build_free_work(build_t *b) {
  free(b->perm);
  free(b->sorted);
  free(b->newidx);
  free(b->raw2face);
  free(b->raw2elem);
  free(b->stamp);
  free(b->gbits);
  free(b->order);
  free(b->dup);
  free(b->keys);
  free(b->mkey);
  free(b->tm.table);
  free(b->oth.raw);
  free(b->oth.ptr);
  free(b->oth.node);
  build_t keep = {.msh = b->msh, .own = b->own, .m = b->m, .dim = b->dim};
  *b = keep;
}

static void build_free(build_t *b) {
  pm_mesh_destroy(&b->m);
  build_free_work(b);
}

/* With own: the raw arrays nothing reads any more (the raw nodes, elements and memberships). */
static void free_raw(build_t *b) {
  pm_msh_t *o = b->own;
  if (!o) return;
  free(o->node_tag);
  free(o->xyz);
  free(o->elem_type);
  free(o->elem_tag);
  free(o->elem_entity);
  free(o->elem_ptr);
  free(o->elem_node);
  free(o->member_elem);
  free(o->member_phys);
  o->node_tag = o->elem_tag = o->elem_ptr = o->elem_node = o->member_elem = NULL;
  o->xyz = NULL;
  o->elem_type = NULL;
  o->elem_entity = o->member_phys = NULL;
}

/* The mesh dimension: the highest of its elements (1, 2 or 3).  A 2D mesh must lie in a plane
 * z = constant: a surface in 3D space (what `gmsh -2` makes of a solid) is not a 2D domain. */
static int mesh_dim(const pm_msh_t *msh, int *dim_out) {
  int dim = 0;
  for (int64_t e = 0; e < msh->n_elems; e++) {
    int d = pm_msh_type_dim(msh->elem_type[e]);
    if (d > dim) dim = d;
  }
  PM_CHECK(dim >= 1, PM_ERR_FORMAT,
           "the mesh has no lines, surfaces or volumes: nothing to partition (pmesh reads 1D meshes of lines, "
           "2D meshes of triangles/quadrangles and 3D meshes of tetrahedra/hexahedra/prisms/pyramids)");
  if (dim == 2 && msh->n_nodes > 0) {
    double lo[3], hi[3];
    for (int d = 0; d < 3; d++) lo[d] = hi[d] = msh->xyz[d];
    for (int64_t i = 1; i < msh->n_nodes; i++)
      for (int d = 0; d < 3; d++) {
        double c = msh->xyz[3 * i + d];
        lo[d] = c < lo[d] ? c : lo[d];
        hi[d] = c > hi[d] ? c : hi[d];
      }
    double zlo = lo[2], zhi = hi[2], extent = fmax(hi[0] - lo[0], hi[1] - lo[1]);
    PM_CHECK(zhi - zlo <= 1e-12 * extent, PM_ERR_FORMAT,
             "a surface mesh in 3D space (its nodes have z from %g to %g): pmesh solves on 2D meshes in a "
             "plane z = constant and on 3D volume meshes; make the volume mesh with 'gmsh -3' (and, when the .geo "
             "defines physical groups, give the volume a Physical Volume: Gmsh saves only the elements of "
             "physical groups)",
             zlo, zhi);
  }
  *dim_out = dim;
  return PM_OK;
}

/* The raw nodes in ascending tag order, and the tag map over them. */
static int sort_nodes(build_t *b) {
  const pm_msh_t *msh = b->msh;
  int64_t nraw = msh->n_nodes;
  /* Tags lo, lo+1, ... in file order (what Gmsh writes): already sorted, no permutation. */
  b->ident = 1;
  for (int64_t i = 1; i < nraw && b->ident; i++) b->ident = msh->node_tag[i] == msh->node_tag[i - 1] + 1;
  if (b->ident) {
    b->tags = msh->node_tag;
  } else {
    PM_CALL(PM_MALLOC(b->perm, nraw, "node order"));
    PM_CALL(pm_argsort_i64(msh->node_tag, nraw, b->perm));
    PM_CALL(PM_MALLOC(b->sorted, nraw, "sorted node tags"));
    int64_t *sorted = b->sorted;
    for (int64_t i = 0; i < nraw; i++) sorted[i] = msh->node_tag[b->perm[i]];
    for (int64_t i = 1; i < nraw; i++)
      PM_CHECK(sorted[i] != sorted[i - 1], PM_ERR_FORMAT, "node tag %lld appears twice", (long long)sorted[i]);
    b->tags = sorted;
  }
  return tag_map_init(&b->tm, b->tags, nraw, b->ident);
}

/* Keep the sorted nodes that a top-dimension cell uses, numbered in tag order, with their ids
 * and coordinates; count the cells (*ne) and their node references (*nen). */
static int number_nodes(build_t *b, int64_t *ne_out, int64_t *nen_out) {
  const pm_msh_t *msh = b->msh;
  pm_mesh_t *m = b->m;
  int64_t nraw = msh->n_nodes, ne = 0, nen = 0;
  PM_CALL(PM_CALLOC(b->newidx, nraw, "node numbering"));
  int64_t *newidx = b->newidx;
  for (int64_t e = 0; e < msh->n_elems; e++) {
    if (pm_msh_type_dim(msh->elem_type[e]) != b->dim || is_copy(b, e)) continue;
    ne++;
    for (int64_t k = msh->elem_ptr[e]; k < msh->elem_ptr[e + 1]; k++) {
      int64_t s = tag_map_find(&b->tm, msh->elem_node[k]);
      PM_CHECK(s >= 0, PM_ERR_FORMAT, "element %lld uses node %lld, which is not in $Nodes",
               (long long)msh->elem_tag[e], (long long)msh->elem_node[k]);
      newidx[s] = 1;
      nen++;
    }
  }
  int64_t nn = 0;
  for (int64_t s = 0; s < nraw; s++) {
    if (newidx[s]) {
      newidx[s] = nn++;
    } else {
      if (!m->first_dropped_gid) m->first_dropped_gid = b->tags[s];
      newidx[s] = -1;
    }
  }
  m->n_dropped_nodes = nraw - nn;
  tag_map_renumber(&b->tm, newidx, nn == nraw);
  m->n_nodes = nn;
  PM_CALL(PM_MALLOC(m->node_gid, nn, "node ids"));
  if (b->ident && nn == nraw && b->own) { /* the raw coordinates are the mesh's, in order */
    memcpy(m->node_gid, b->tags, (size_t)nn * sizeof *b->tags);
    m->xyz = b->own->xyz;
    b->own->xyz = NULL;
  } else if (b->ident && nn == nraw) {
    PM_CALL(PM_MALLOC(m->xyz, 3 * nn, "coordinates"));
    memcpy(m->node_gid, b->tags, (size_t)nn * sizeof *b->tags);
    memcpy(m->xyz, msh->xyz, 3 * (size_t)nn * sizeof(double));
  } else {
    PM_CALL(PM_MALLOC(m->xyz, 3 * nn, "coordinates"));
    for (int64_t s = 0; s < nraw; s++) {
      int64_t i = newidx[s];
      if (i < 0) continue;
      m->node_gid[i] = b->tags[s];
      memcpy(m->xyz + 3 * i, msh->xyz + 3 * (b->perm ? b->perm[s] : s), 3 * sizeof(double));
    }
  }
  *ne_out = ne;
  *nen_out = nen;
  return PM_OK;
}

/* Faces: (dim-1)-dimensional elements that belong to a physical group and whose nodes are all
 * kept (raw2face[e] = 0 for them, -1 otherwise); count them (*nf) and their nodes (*nfn). */
static int select_faces(build_t *b, int64_t *nf_out, int64_t *nfn_out) {
  const pm_msh_t *msh = b->msh;
  int64_t nf = 0, nfn = 0;
  PM_CALL(PM_MALLOC(b->raw2face, msh->n_elems, "face numbering"));
  PM_CALL(PM_MALLOC(b->raw2elem, msh->n_elems, "element numbering"));
  int64_t *raw2face = b->raw2face;
  for (int64_t e = 0; e < msh->n_elems; e++) raw2face[e] = b->raw2elem[e] = -1;
  for (int64_t i = 0; i < msh->n_member; i++) {
    int64_t e = msh->member_elem[i];
    if (pm_msh_type_dim(msh->elem_type[e]) == b->dim - 1) raw2face[e] = 0;
  }
  for (int64_t e = 0; e < msh->n_elems; e++) {
    if (is_copy(b, e)) raw2face[e] = -1;
    if (b->dim == 3 && !is_copy(b, e)) { /* lines and points: reported, not used */
      int d = pm_msh_type_dim(msh->elem_type[e]);
      b->m->n_ignored_lines += d == 1;
      b->m->n_ignored_points += d == 0;
    }
    if (raw2face[e] != 0) continue;
    int keep = 1;
    for (int64_t k = msh->elem_ptr[e]; k < msh->elem_ptr[e + 1]; k++)
      if (tag_map_new(&b->tm, msh->elem_node[k]) < 0) keep = 0;
    if (!keep) {
      raw2face[e] = -1;
      b->m->n_dropped_entries++;
      continue;
    }
    nf++;
    nfn += msh->elem_ptr[e + 1] - msh->elem_ptr[e];
  }
  *nf_out = nf;
  *nfn_out = nfn;
  return PM_OK;
}

/* With own: keep aside the node tags of the group members that will be neither cells nor faces
 * (member_nodes reads them), before copy_cells overwrites the raw connectivity. */
static int keep_others(build_t *b) {
  const pm_msh_t *msh = b->msh;
  other_t *o = &b->oth;
  int64_t n = 0, nn = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (int64_t i = 0; i < msh->n_member; i++) {
      int64_t e = msh->member_elem[i];
      int d = pm_msh_type_dim(msh->elem_type[e]);
      if (d == b->dim || b->raw2face[e] == 0 || (b->dim == 3 && d < 2)) continue;
      if (pass == 0) {
        n++;
      } else {
        o->raw[o->n++] = e;
      }
    }
    if (pass == 0) PM_CALL(PM_MALLOC(o->raw, n + 1, "group members"));
  }
  PM_CALL(pm_sort_i64(o->raw, o->n));
  o->n = pm_unique_i64(o->raw, o->n);
  PM_CALL(PM_MALLOC(o->ptr, o->n + 1, "group members"));
  o->ptr[0] = 0;
  for (int64_t j = 0; j < o->n; j++) o->ptr[j + 1] = nn += msh->elem_ptr[o->raw[j] + 1] - msh->elem_ptr[o->raw[j]];
  PM_CALL(PM_MALLOC(o->node, nn + 1, "group members"));
  for (int64_t j = 0; j < o->n; j++)
    memcpy(o->node + o->ptr[j], msh->elem_node + msh->elem_ptr[o->raw[j]],
           (size_t)(o->ptr[j + 1] - o->ptr[j]) * sizeof *o->node);
  return PM_OK;
}

/* The cells and faces with their new node indices, in file order; raw2elem and raw2face then
 * give the cell or face of every raw element (a copy shares its first's).  With own, the cells
 * are compacted in place in the raw connectivity, tags and offsets (the k-th cell is written at
 * or before the position it is read from), which then become the mesh's arrays: the file's
 * connectivity is never held twice. */
static int copy_cells(build_t *b, int64_t ne, int64_t nen, int64_t nf, int64_t nfn) {
  const pm_msh_t *msh = b->msh;
  pm_mesh_t *m = b->m;
  int64_t *raw2elem = b->raw2elem, *raw2face = b->raw2face;
  int64_t *eptr = NULL, *enode = NULL, *egid = NULL;
  if (b->own) {
    eptr = b->own->elem_ptr;
    enode = b->own->elem_node;
    egid = b->own->elem_tag;
  } else {
    PM_CALL(PM_MALLOC(m->elem_gid, ne, "elements"));
    PM_CALL(PM_MALLOC(m->elem_ptr, ne + 1, "elements"));
    PM_CALL(PM_MALLOC(m->elem_node, nen, "element nodes"));
    eptr = m->elem_ptr;
    enode = m->elem_node;
    egid = m->elem_gid;
  }
  PM_CALL(PM_MALLOC(m->elem_type, ne, "elements"));
  PM_CALL(PM_MALLOC(m->face_type, nf, "faces"));
  PM_CALL(PM_MALLOC(m->face_gid, nf, "faces"));
  PM_CALL(PM_MALLOC(m->face_ptr, nf + 1, "faces"));
  PM_CALL(PM_MALLOC(m->face_node, nfn, "face nodes"));
  m->face_ptr[0] = 0;
  int64_t ie = 0, jf = 0, k0 = 0;
  for (int64_t e = 0; e < msh->n_elems; e++) {
    int d = pm_msh_type_dim(msh->elem_type[e]);
    if (is_copy(b, e)) continue;
    int64_t r0 = msh->elem_ptr[e], r1 = msh->elem_ptr[e + 1], tag = msh->elem_tag[e];
    if (d == b->dim) {
      m->elem_type[ie] = msh->elem_type[e];
      egid[ie] = tag;
      eptr[ie] = k0;
      for (int64_t k = r0; k < r1; k++) enode[k0++] = tag_map_new(&b->tm, msh->elem_node[k]);
      raw2elem[e] = ie++;
    } else if (raw2face[e] == 0) {
      m->face_type[jf] = msh->elem_type[e];
      m->face_gid[jf] = tag;
      int64_t f0 = m->face_ptr[jf];
      for (int64_t k = r0; k < r1; k++) m->face_node[f0++] = tag_map_new(&b->tm, msh->elem_node[k]);
      m->face_ptr[jf + 1] = f0;
      raw2face[e] = jf++;
    }
  }
  eptr[ne] = k0;
  if (b->own) { /* shrink the raw arrays to the cells and hand them to the mesh */
    m->elem_ptr = eptr;
    m->elem_node = enode;
    m->elem_gid = egid;
    b->own->elem_ptr = b->own->elem_node = b->own->elem_tag = NULL;
    PM_CALL(PM_REALLOC(m->elem_ptr, ne + 1, "elements"));
    PM_CALL(PM_REALLOC(m->elem_node, nen + 1, "element nodes"));
    PM_CALL(PM_REALLOC(m->elem_gid, ne + 1, "elements"));
  }
  m->n_elems = ne;
  m->n_faces = nf;
  for (int64_t e = 0; b->dup && e < msh->n_elems; e++) /* copies share their first's numbers */
    if (b->dup[e] >= 0) {
      raw2elem[e] = raw2elem[b->dup[e]];
      raw2face[e] = raw2face[b->dup[e]];
    }
  return PM_OK;
}

/* Physical groups: distinct (dim, tag) pairs in order.  Memberships sorted by group (ties by
 * position, so the file order is kept within a group) into b->mkey; the distinct groups from
 * them into b->keys (*ng of them). */
static int group_keys(build_t *b, int64_t *ng_out) {
  const pm_msh_t *msh = b->msh;
  PM_CALL(PM_MALLOC(b->mkey, msh->n_member + 1, "group members"));
  phys_key_t *mkey = b->mkey;
  int64_t nm = 0;
  for (int64_t i = 0; i < msh->n_member; i++) {
    /* In 3D, boundary conditions go on physical surfaces: physical curves and points name no
     * cells or faces and are ignored (the lines and points are counted by select_faces). */
    if (b->dim == 3 && keys_dim_of(msh, i) < 2) continue;
    mkey[nm].dim = keys_dim_of(msh, i);
    mkey[nm].tag = msh->member_phys[i];
    mkey[nm++].i = i;
  }
  b->n_mkey = nm;
  int64_t i_up = 1;
  while (i_up < nm && cmp_member(&mkey[i_up - 1], &mkey[i_up]) < 0) i_up++;
  if (i_up < nm) qsort(mkey, (size_t)nm, sizeof *mkey, cmp_member);
  int64_t ng = 0;
  for (int64_t i = 0; i < nm; i++) ng += i == 0 || cmp_phys(&mkey[i], &mkey[i - 1]) != 0;
  PM_CALL(PM_MALLOC(b->keys, ng + 1, "groups"));
  ng = 0;
  for (int64_t i = 0; i < nm; i++)
    if (i == 0 || cmp_phys(&mkey[i], &mkey[i - 1]) != 0) b->keys[ng++] = mkey[i];
  PM_CHECK(ng < 100000, PM_ERR_UNSUPPORTED, "the mesh has %lld physical groups; pmesh takes at most 99999",
           (long long)ng);
  *ng_out = ng;
  return PM_OK;
}

/* Group g's name: from $PhysicalNames or made up from its dimension and tag, as a single word,
 * checked to be valid and unique among the groups before it. */
static int group_name(const pm_msh_t *msh, pm_mesh_t *m, int64_t g, const phys_key_t *key) {
  pm_group_t *grp = &m->groups[g];
  const char *name = NULL;
  for (int k = 0; k < msh->n_phys_names; k++)
    if (msh->phys_names[k].dim == key->dim && msh->phys_names[k].tag == key->tag) name = msh->phys_names[k].name;
  char fallback[64];
  if (!name) {
    snprintf(fallback, sizeof fallback, "physical%dd_%d", key->dim, key->tag);
    name = fallback;
  }
  PM_CALL(pm_strdup(name, &grp->name));
  /* Names are single words in pmesh's files: white space and control characters become '_'. */
  for (char *c = grp->name; *c; c++)
    if ((unsigned char)*c <= ' ' || *c == 127) *c = '_';
  PM_CHECK(grp->name[0] != '\0' && grp->name[0] != '#' && strlen(grp->name) < 256, PM_ERR_FORMAT,
           "physical group (dim %d, tag %d) is named '%s'; names must be 1 to 255 characters, not starting "
           "with '#'",
           grp->dim, key->tag, grp->name);
  for (int64_t h = 0; h < g; h++)
    PM_CHECK(strcmp(m->groups[h].name, grp->name) != 0, PM_ERR_FORMAT,
             "two physical groups are named '%s' (dimensions %d and %d): names must be unique", grp->name,
             m->groups[h].dim, grp->dim);
  return PM_OK;
}

/* Group g's nodes, faces and cells (each sorted, without repeats) from its nm member elements
 * b->order.  A large group (e.g. the domain: every cell) marks its nodes in a bitmap, read back
 * in ascending order; a small one stamps them and sorts the few it collects. */
static int group_members(build_t *b, int64_t g, int64_t nm) {
  const pm_msh_t *msh = b->msh;
  pm_mesh_t *m = b->m;
  pm_group_t *grp = &m->groups[g];
  const int64_t *order = b->order, *raw2elem = b->raw2elem, *raw2face = b->raw2face;
  int64_t nn = m->n_nodes, *stamp = b->stamp;
  int64_t conv[8];
  int dense = nm >= nn / 32;
  if (dense && !b->gbits) PM_CALL(PM_CALLOC(b->gbits, nn / 64 + 1, "group node bitmap"));
  uint64_t *gbits = b->gbits;
  int64_t cn = 0, cf = 0, ce = 0;
  for (int64_t i = 0; i < nm; i++) {
    int64_t e = order[i], nv;
    const int64_t *nodes = member_nodes(msh, m, &b->tm, &b->oth, raw2elem, raw2face, e, conv, &nv);
    for (int64_t k = 0; k < nv; k++) {
      int64_t v = nodes[k];
      if (v < 0) continue;
      if (dense) {
        uint64_t bit = UINT64_C(1) << (v & 63);
        cn += !(gbits[v >> 6] & bit);
        gbits[v >> 6] |= bit;
      } else if (stamp[v] != g) {
        stamp[v] = g;
        cn++;
      }
    }
    cf += raw2face[e] >= 0;
    ce += raw2elem[e] >= 0;
  }
  PM_CALL(PM_MALLOC(grp->nodes, cn, "group nodes"));
  PM_CALL(PM_MALLOC(grp->faces, cf, "group faces"));
  PM_CALL(PM_MALLOC(grp->elems, ce, "group elements"));
  if (dense) {
    for (int64_t w = 0; w <= nn / 64; w++) {
      for (uint64_t bits = gbits[w]; bits; bits &= bits - 1) {
        int t = 0;
        while (!(bits >> t & 1)) t++;
        grp->nodes[grp->n_nodes++] = 64 * w + t;
      }
      gbits[w] = 0;
    }
  }
  for (int64_t i = 0; i < nm; i++) {
    int64_t e = order[i], nv;
    if (!dense) {
      const int64_t *nodes = member_nodes(msh, m, &b->tm, &b->oth, raw2elem, raw2face, e, conv, &nv);
      for (int64_t k = 0; k < nv; k++) {
        int64_t v = nodes[k];
        if (v >= 0 && stamp[v] == g) {
          stamp[v] = -2 - g; /* collected */
          grp->nodes[grp->n_nodes++] = v;
        }
      }
    }
    if (raw2face[e] >= 0) grp->faces[grp->n_faces++] = raw2face[e];
    if (raw2elem[e] >= 0) grp->elems[grp->n_elems++] = raw2elem[e];
  }
  PM_CALL(pm_sort_i64(grp->nodes, grp->n_nodes));
  PM_CALL(pm_sort_i64(grp->faces, grp->n_faces));
  grp->n_faces = pm_unique_i64(grp->faces, grp->n_faces);
  PM_CALL(pm_sort_i64(grp->elems, grp->n_elems));
  grp->n_elems = pm_unique_i64(grp->elems, grp->n_elems);
  return PM_OK;
}

/* The physical groups, each a contiguous run of the sorted memberships. */
static int build_groups(build_t *b) {
  const pm_msh_t *msh = b->msh;
  pm_mesh_t *m = b->m;
  int64_t ng = 0, mpos = 0, nn = m->n_nodes;
  PM_CALL(group_keys(b, &ng));
  PM_CALL(PM_CALLOC(m->groups, ng + 1, "groups"));
  PM_CALL(PM_MALLOC(b->stamp, nn + 1, "group marks"));
  for (int64_t i = 0; i < nn; i++) b->stamp[i] = -1;
  PM_CALL(PM_MALLOC(b->order, msh->n_member + 1, "group members"));
  for (int64_t g = 0; g < ng; g++) {
    pm_group_t *grp = &m->groups[g];
    m->n_groups = (int)g + 1;
    grp->dim = b->keys[g].dim;
    PM_CALL(group_name(msh, m, g, &b->keys[g]));
    int64_t nm = 0;
    while (mpos < b->n_mkey && cmp_phys(&b->mkey[mpos], &b->keys[g]) == 0)
      b->order[nm++] = msh->member_elem[b->mkey[mpos++].i];
    PM_CALL(group_members(b, g, nm));
  }
  return PM_OK;
}

/* Build the mesh from msh; with own (== msh, handed over by pm_mesh_read) the raw arrays are
 * reused or freed as soon as they are read, so the file's content and the mesh are not held
 * twice and the boundary's facet table comes after both are trimmed. */
static int mesh_build(const pm_msh_t *msh, pm_msh_t *own, pm_mesh_t **mesh) {
  int ierr = PM_OK;
  build_t b = {.msh = msh, .own = own};
  *mesh = NULL;
  PM_TRY(PM_CALLOC(b.m, 1, "mesh"));
  PM_TRY(mesh_dim(msh, &b.dim));
  b.m->dim = b.dim;
  if (own) { /* entities are the reader's business; the mesh does not use them */
    free(own->elem_entity);
    own->elem_entity = NULL;
  }
  PM_TRY(sort_nodes(&b));
  /* MSH 2.2 writes an element that is in several physical groups once per group, with the same
   * tag: such copies (same tag, type and nodes) become one element with all the memberships. */
  PM_TRY(find_copies(msh, &b.dup));
  int64_t ne = 0, nen = 0, nf = 0, nfn = 0;
  PM_TRY(number_nodes(&b, &ne, &nen));
  PM_TRY(select_faces(&b, &nf, &nfn));
  if (own) PM_TRY(keep_others(&b));
  PM_TRY(copy_cells(&b, ne, nen, nf, nfn));
  PM_TRY(build_groups(&b));
  build_free_work(&b);
  free_raw(&b);
  PM_TRY(pm_mesh_check_cells(b.m));
  PM_TRY(pm_mesh_add_boundary(b.m));
  *mesh = b.m;
  b.m = NULL;
cleanup:
  build_free(&b);
  return ierr;
}

int pm_mesh_from_msh(const pm_msh_t *msh, pm_mesh_t **mesh) {
  return mesh_build(msh, NULL, mesh);
}

int pm_mesh_read(const char *path, pm_mesh_t **mesh, uint64_t *checksum) {
  pm_msh_t *msh = NULL;
  PM_CALL(pm_msh_read(path, &msh));
  int ierr = mesh_build(msh, msh, mesh);
  if (ierr) {
    char prefix[1100];
    snprintf(prefix, sizeof prefix, "%s: ", path);
    pm_error_prefix(prefix);
    pm_error_trace(__FILE__, __LINE__);
  } else if (checksum) {
    *checksum = msh->checksum;
  }
  pm_msh_destroy(&msh);
  return ierr;
}
