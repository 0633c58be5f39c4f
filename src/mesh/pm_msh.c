/* pm_msh.c - Gmsh MSH reader: versions 2.2 and 4.1, ASCII and binary (either endianness).  This
 * file parses the sections; $Entities, $PartitionedEntities and the checks of what refers to
 * them are in pm_msh_ent.c; the node-tag set, the messages and the readers of single items are
 * in pm_msh_rd.c.
 *
 * One streaming pass through pm_scan's fixed window.  Every count read from a header is checked
 * against the bytes left in the file before anything is allocated, so a corrupt or hostile
 * header gives a message instead of a giant allocation.  Node tags go into a bitmap (dense
 * tags, the usual case) or a hash set (sparse tags) after $EndNodes, so duplicate tags and
 * elements that name missing nodes are found in linear time. */
#include "pmesh/pm_msh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pm_scan.h"
#include "pm_msh_ent.h"
#include "pm_msh_rd.h"
#include "pmesh/pm_cell.h"
#include "pmesh/pm_error.h"

#define MSH_CONVERT "convert it with 'gmsh FILE -format msh41 -save -o out.msh'"

int pm_msh_type_nodes(int type) {
  const pm_cell_t *c = pm_cell_gmsh(type);
  return c ? c->n_verts : -1;
}

int pm_msh_type_dim(int type) {
  const pm_cell_t *c = pm_cell_gmsh(type);
  return c ? c->dim : -1;
}

/* ---- sections ---- */

static int msh_read_format(msh_rd_t *r) {
  pm_msh_t *m = r->m;
  const char *t;
  size_t n;
  r->sect = "$MeshFormat";
  PM_CALL(pm_msh_rd_tok(r, "the version number", &t, &n));
  if (n == 3 && memcmp(t, "2.2", 3) == 0) {
    m->version_major = 2;
    m->version_minor = 2;
  } else if (n == 3 && memcmp(t, "4.1", 3) == 0) {
    m->version_major = 4;
    m->version_minor = 1;
    r->v41 = 1;
  } else {
    return MSH_FAIL(r, PM_ERR_UNSUPPORTED,
                    "MSH version '%s' is not supported: pmesh reads MSH 2.2 and 4.1; " MSH_CONVERT,
                    pm_msh_rd_show(r, t, n));
  }
  int64_t ftype, dsize;
  PM_CALL(pm_msh_rd_int(r, 0, 1, "the file type (0 for ASCII, 1 for binary)", &ftype));
  PM_CALL(pm_msh_rd_int(r, INT64_MIN, INT64_MAX, "the data size", &dsize));
  if (r->v41) {
    if (dsize != 8 && dsize != 4)
      return MSH_FAIL(r, PM_ERR_UNSUPPORTED,
                      "the data size (sizeof(size_t)) of an MSH 4.1 file must be 8 or 4, found "
                      "%lld",
                      (long long)dsize);
    r->szt = (int)dsize;
  } else if (dsize != 8) {
    return MSH_FAIL(r, PM_ERR_UNSUPPORTED, "the data size (sizeof(double)) of an MSH 2.2 file must be 8, found %lld",
                    (long long)dsize);
  }
  if (ftype == 1) {
    PM_CALL(pm_msh_rd_eol(r));
    r->binary = 1;
    r->s.offsets = 1;
    int64_t at = pm_scan_offset(&r->s);
    unsigned char b[4];
    PM_CALL(msh_raw(r, b, 4));
    uint32_t one;
    memcpy(&one, b, 4);
    if (one == 0x01000000u) {
      r->swap = 1;
    } else if (one != 1) {
      return MSH_FAIL_AT(r, at, PM_ERR_FORMAT,
                         "bad endianness marker: expected the int 1 after the $MeshFormat line, "
                         "found bytes %02x %02x %02x %02x",
                         b[0], b[1], b[2], b[3]);
    }
    m->binary = 1;
  }
  return pm_msh_rd_end(r, "$EndMeshFormat", "");
}

static int msh_read_names(msh_rd_t *r) {
  pm_msh_t *m = r->m;
  int64_t n;
  r->sect = "$PhysicalNames";
  PM_CALL(pm_msh_rd_count(r, 0, 6, "number of physical names", &n));
  if (n > INT32_MAX)
    return MSH_FAIL(r, PM_ERR_UNSUPPORTED, "%lld physical names: pmesh reads at most %d", (long long)n, (int)INT32_MAX);
  PM_CALL(PM_CALLOC(m->phys_names, n, "physical names"));
  PM_CALL(PM_MALLOC(r->name_at, n, "physical name positions"));
  for (int64_t i = 0; i < n; i++) {
    pm_msh_phys_name_t *p = &m->phys_names[i];
    int64_t dim;
    PM_CALL(pm_msh_rd_int(r, 0, 3, "the dimension of a physical name", &dim));
    r->name_at[i] = msh_where(r);
    PM_CALL(pm_msh_rd_int32(r, "a physical tag", &p->tag));
    p->dim = (int)dim;
    m->n_phys_names = (int)(i + 1);
    const char *l;
    size_t len;
    PM_CALL(pm_scan_line(&r->s, &l, &len));
    while (len > 0 && (*l == ' ' || *l == '\t')) l++, len--;
    while (len > 0 && (l[len - 1] == ' ' || l[len - 1] == '\t')) len--;
    if (len >= 2 && l[0] == '"' && l[len - 1] == '"') {
      l++;
      len -= 2;
    } else if (len == 0 || l[0] == '"') {
      /* the line counter has moved past this line already */
      return MSH_FAIL_AT(r, r->binary ? pm_scan_offset(&r->s) : r->s.line - 1, PM_ERR_FORMAT,
                         "expected a quoted physical name after '%d %d', found '%s'", p->dim, p->tag,
                         pm_msh_rd_show(r, l, len));
    }
    PM_CALL(PM_MALLOC(p->name, len + 1, "a physical name"));
    memcpy(p->name, l, len);
    p->name[len] = '\0';
  }
  return pm_msh_rd_end(r, "$EndPhysicalNames", ": $PhysicalNames holds more names than its header announces");
}

/* A physical tag that $PhysicalNames names: which dimensions name it and which use it (an entity
 * in 4.1, an element in 2.2), with the first name and the first user of each. */
typedef struct msh_named {
  int32_t tag;
  int named, used; /* bit d: dimension d */
  int64_t namer[4], user[4];
} msh_named_t;

static int msh_named_cmp(const void *a, const void *b) {
  const msh_named_t *x = a, *y = b;
  return (x->tag > y->tag) - (x->tag < y->tag);
}

/* Record that `who` (entity or element index) of dimension dim has physical tag `tag`. */
static void msh_use(msh_named_t *t, int64_t nt, int32_t tag, int dim, int64_t who) {
  msh_named_t key = {.tag = tag};
  msh_named_t *s = bsearch(&key, t, (size_t)nt, sizeof *t, msh_named_cmp);
  if (s && !(s->used >> dim & 1)) {
    s->used |= 1 << dim;
    s->user[dim] = who;
  }
}

/* After the memberships (2.2 and 4.1): a $PhysicalNames entry (dimension d', tag p) is an error
 * when no entity (4.1) or element (2.2) of dimension d' has physical tag p while one of another
 * dimension d has it and no name is given to (d, p): the name was written with the wrong
 * dimension, and the group would be known by its number only. */
static int msh_check_names(msh_rd_t *r) {
  const pm_msh_t *m = r->m;
  int64_t nn = m->n_phys_names, nt = 0;
  if (nn == 0) return PM_OK;
  msh_named_t *t = NULL;
  PM_CALL(PM_CALLOC(t, nn, "named physical tags"));
  /* The distinct named tags, sorted; then one lookup per use (linear in the uses). */
  for (int64_t i = 0; i < nn; i++) t[i].tag = m->phys_names[i].tag;
  qsort(t, (size_t)nn, sizeof *t, msh_named_cmp);
  for (int64_t i = 0; i < nn; i++)
    if (nt == 0 || t[nt - 1].tag != t[i].tag) t[nt++].tag = t[i].tag;
  for (int64_t i = nn - 1; i >= 0; i--) { /* backwards: the first name of each dimension stays */
    msh_named_t key = {.tag = m->phys_names[i].tag}, *s = bsearch(&key, t, (size_t)nt, sizeof *t, msh_named_cmp);
    s->named |= 1 << m->phys_names[i].dim;
    s->namer[m->phys_names[i].dim] = i;
  }
  if (r->v41) {
    for (int64_t i = 0; i < r->n_ent; i++)
      for (int64_t p = 0; p < r->ent[i].n; p++) msh_use(t, nt, r->ent_phys[r->ent[i].off + p], r->ent[i].dim, i);
  } else {
    for (int64_t i = 0; i < m->n_member; i++)
      msh_use(t, nt, m->member_phys[i], pm_msh_type_dim(m->elem_type[m->member_elem[i]]), m->member_elem[i]);
  }
  int ierr = PM_OK;
  for (int64_t k = 0; k < nt && ierr == PM_OK; k++) {
    int lost = t[k].named & ~t[k].used, unnamed = t[k].used & ~t[k].named;
    if (!lost || !unnamed) continue;
    int dn = 0, du = 0;
    while (!(lost >> dn & 1)) dn++;
    while (!(unnamed >> du & 1)) du++;
    char by[128];
    if (r->v41)
      snprintf(by, sizeof by, "entity (dimension %d, tag %d)", du, (int)r->ent[t[k].user[du]].tag);
    else
      snprintf(by, sizeof by, "element %lld (dimension %d)", (long long)m->elem_tag[t[k].user[du]], du);
    ierr = MSH_FAIL_AT(r, r->name_at[t[k].namer[dn]], PM_ERR_FORMAT,
                       "$PhysicalNames names physical group (dimension %d, tag %d) \"%s\", but no %s of dimension %d "
                       "has physical tag %d; %s has it, and no name is given to dimension %d: a physical group is "
                       "its dimension and tag, so the name was probably written with the wrong dimension",
                       dn, (int)t[k].tag, m->phys_names[t[k].namer[dn]].name, r->v41 ? "entity" : "element", dn,
                       (int)t[k].tag, by, du);
  }
  free(t);
  return ierr;
}

static int msh_alloc_nodes(msh_rd_t *r, int64_t n) {
  pm_msh_t *m = r->m;
  PM_CALL(PM_MALLOC(m->node_tag, n, "node tags"));
  PM_CALL(PM_MALLOC(m->xyz, 3 * n, "node coordinates"));
  return PM_OK;
}

static int msh_bad_coord(msh_rd_t *r, int64_t at, int64_t tag, double x) {
  return MSH_FAIL_AT(r, at, PM_ERR_FORMAT, "node %lld has a coordinate that is not finite (%g)", (long long)tag, x);
}

/* MSH 4.1 $Nodes: entity blocks of tags, then coordinates (and parametric ones, discarded). */
static int msh_read_nodes41(msh_rd_t *r) {
  pm_msh_t *m = r->m;
  int bin = r->binary, sz = r->szt;
  int64_t nblk, nn, dummy;
  PM_CALL(pm_msh_rd_count(r, bin, bin ? 12 + sz : 8, "number of entity blocks", &nblk));
  PM_CALL(pm_msh_rd_count(r, bin, bin ? sz + 24 : 8, "number of nodes", &nn));
  if (bin) {
    PM_CALL(pm_msh_rd_bsize(r, 0, "the minimum node tag", &dummy));
    PM_CALL(pm_msh_rd_bsize(r, 0, "the maximum node tag", &dummy));
  } else {
    PM_CALL(pm_msh_rd_int(r, 0, INT64_MAX, "the minimum node tag", &dummy));
    PM_CALL(pm_msh_rd_int(r, 0, INT64_MAX, "the maximum node tag", &dummy));
  }
  PM_CALL(msh_alloc_nodes(r, nn));
  PM_CALL(PM_MALLOC(r->nblk, nblk, "node blocks"));
  int64_t got = 0;
  for (int64_t b = 0; b < nblk; b++) {
    int32_t edim, etag, param;
    int64_t cnt, at = pm_scan_offset(&r->s), where = at;
    if (bin) {
      unsigned char h[12];
      PM_CALL(msh_raw(r, h, 12));
      edim = msh_get_i32(r, h);
      etag = msh_get_i32(r, h + 4);
      param = msh_get_i32(r, h + 8);
      if (edim < 0 || edim > 3 || param < 0 || param > 1)
        return MSH_FAIL_AT(r, at, PM_ERR_FORMAT,
                           "node block %lld: expected an entity dimension in [0, 3] and a "
                           "parametric flag 0 or 1, found %d and %d",
                           (long long)b + 1, (int)edim, (int)param);
      PM_CALL(pm_msh_rd_count(r, 1, sz + 24, "number of nodes in a block", &cnt));
    } else {
      int64_t x;
      PM_CALL(pm_msh_rd_int(r, 0, 3, "the entity dimension of a node block", &x));
      edim = (int32_t)x;
      where = msh_where(r);
      PM_CALL(pm_msh_rd_int32(r, "the entity tag of a node block", &etag));
      PM_CALL(pm_msh_rd_int(r, 0, 1, "the parametric flag of a node block", &x));
      param = (int32_t)x;
      PM_CALL(pm_msh_rd_count(r, 0, 8, "number of nodes in a block", &cnt));
    }
    if (cnt > nn - got)
      return MSH_FAIL(r, PM_ERR_FORMAT,
                      "the node blocks hold more than the %lld nodes announced in the $Nodes "
                      "header",
                      (long long)nn);
    r->nblk[r->n_nblk++] = (msh_blk_t){edim, etag, 0, got, cnt, where};
    int npar = param ? edim : 0;
    int64_t *tag = m->node_tag + got;
    double *xyz = m->xyz + 3 * got;
    if (bin) {
      int64_t done = 0, per = MSH_SCRATCH / sz;
      while (done < cnt) {
        int64_t k = cnt - done < per ? cnt - done : per;
        int64_t at0 = pm_scan_offset(&r->s);
        PM_CALL(msh_raw(r, r->scratch, (size_t)(k * sz)));
        pm_msh_rd_decode_szt(r, r->scratch, tag + done, k);
        for (int64_t i = 0; i < k; i++)
          if (tag[done + i] < 1)
            return MSH_FAIL_AT(r, at0 + i * sz, PM_ERR_FORMAT, "node tags must be in [1, %lld], found %llu",
                               (long long)INT64_MAX, (unsigned long long)tag[done + i]);
        done += k;
      }
      int64_t rec = 8 * (3 + npar);
      per = MSH_SCRATCH / rec;
      done = 0;
      while (done < cnt) {
        int64_t k = cnt - done < per ? cnt - done : per;
        int64_t at0 = pm_scan_offset(&r->s);
        PM_CALL(msh_raw(r, r->scratch, (size_t)(k * rec)));
        for (int64_t i = 0; i < k; i++) {
          for (int c = 0; c < 3; c++) {
            double x = msh_get_f64(r, r->scratch + i * rec + 8 * c);
            if (!isfinite(x)) return msh_bad_coord(r, at0 + i * rec + 8 * c, tag[done + i], x);
            xyz[3 * (done + i) + c] = x;
          }
        }
        done += k;
      }
    } else {
      for (int64_t i = 0; i < cnt; i++) PM_CALL(pm_msh_rd_int(r, 1, INT64_MAX, "a node tag", &tag[i]));
      for (int64_t i = 0; i < cnt; i++) {
        for (int c = 0; c < 3; c++) PM_CALL(pm_msh_rd_real(r, "a node coordinate", &xyz[3 * i + c]));
        for (int c = 0; c < npar; c++) {
          double u;
          PM_CALL(pm_msh_rd_real(r, "a parametric node coordinate", &u));
        }
      }
    }
    got += cnt;
  }
  if (got != nn)
    return MSH_FAIL(r, PM_ERR_FORMAT, "the $Nodes header announces %lld nodes but its %lld blocks hold %lld",
                    (long long)nn, (long long)nblk, (long long)got);
  m->n_nodes = nn;
  return pm_msh_rd_end(r, "$EndNodes", ": $Nodes holds more blocks than its header announces");
}

/* MSH 2.2 $Nodes: "tag x y z" lines, or binary records of int tag and 3 doubles. */
static int msh_read_nodes22(msh_rd_t *r) {
  pm_msh_t *m = r->m;
  int64_t nn;
  PM_CALL(pm_msh_rd_count(r, 0, r->binary ? 28 : 8, "number of nodes", &nn));
  PM_CALL(msh_alloc_nodes(r, nn));
  if (r->binary) {
    PM_CALL(pm_msh_rd_eol(r));
    int64_t done = 0, per = MSH_SCRATCH / 28;
    while (done < nn) {
      int64_t k = nn - done < per ? nn - done : per;
      int64_t at0 = pm_scan_offset(&r->s);
      PM_CALL(msh_raw(r, r->scratch, (size_t)(k * 28)));
      for (int64_t i = 0; i < k; i++) {
        const unsigned char *p = r->scratch + 28 * i;
        int32_t tag = msh_get_i32(r, p);
        if (tag < 1)
          return MSH_FAIL_AT(r, at0 + 28 * i, PM_ERR_FORMAT, "node tags must be positive, found %d", (int)tag);
        m->node_tag[done + i] = tag;
        for (int c = 0; c < 3; c++) {
          double x = msh_get_f64(r, p + 4 + 8 * c);
          if (!isfinite(x)) return msh_bad_coord(r, at0 + 28 * i + 4 + 8 * c, tag, x);
          m->xyz[3 * (done + i) + c] = x;
        }
      }
      done += k;
    }
  } else {
    for (int64_t i = 0; i < nn; i++) {
      PM_CALL(pm_msh_rd_int(r, 1, INT64_MAX, "a node tag", &m->node_tag[i]));
      for (int c = 0; c < 3; c++) PM_CALL(pm_msh_rd_real(r, "a node coordinate", &m->xyz[3 * i + c]));
    }
  }
  m->n_nodes = nn;
  return pm_msh_rd_end(r, "$EndNodes", ": $Nodes holds more nodes than its header announces");
}

/* After $EndNodes: the set of node tags; a repeated tag is an error. */
static int msh_build_node_set(msh_rd_t *r) {
  pm_msh_t *m = r->m;
  int64_t dup;
  PM_CALL(pm_msh_rd_set_build(&r->nodes, m->node_tag, m->n_nodes, &dup));
  r->have_set = 1;
  if (dup >= 0) {
    int64_t first = 0;
    while (m->node_tag[first] != m->node_tag[dup]) first++;
    return MSH_FAIL_AT(r, r->sect_at, PM_ERR_FORMAT,
                       "node tag %lld appears twice in the $Nodes section starting here (nodes "
                       "number %lld and %lld in file order); node tags must be unique",
                       (long long)m->node_tag[dup], (long long)first + 1, (long long)dup + 1);
  }
  return PM_OK;
}

static int msh_alloc_elems(msh_rd_t *r, int64_t n) {
  pm_msh_t *m = r->m;
  PM_CALL(PM_MALLOC(m->elem_type, n, "element types"));
  PM_CALL(PM_MALLOC(m->elem_tag, n, "element tags"));
  PM_CALL(PM_MALLOC(m->elem_entity, n, "element entities"));
  PM_CALL(PM_MALLOC(m->elem_ptr, n + 1, "element offsets"));
  PM_CALL(PM_MALLOC(m->elem_node, 0, "element nodes")); /* grown by msh_reserve_enode */
  m->elem_ptr[0] = 0;
  return PM_OK;
}

/* Room for `more` node tags in elem_node (geometric growth, at most 4 per element). */
static int msh_reserve_enode(msh_rd_t *r, int64_t used, int64_t more, int64_t n_elems) {
  if (used + more <= r->enode_cap) return PM_OK;
  int64_t cap = r->enode_cap + r->enode_cap / 2;
  if (cap < used + more) cap = used + more;
  if (cap > 4 * n_elems) cap = 4 * n_elems;
  if (cap < used + more) cap = used + more;
  PM_CALL(PM_REALLOC(r->m->elem_node, cap, "element nodes"));
  r->enode_cap = cap;
  return PM_OK;
}

static int msh_unsupported_type(msh_rd_t *r, int64_t at, int64_t type, int64_t etag) {
  char tagbuf[64] = "";
  if (etag > 0) snprintf(tagbuf, sizeof tagbuf, " (element %lld)", (long long)etag);
  /* What to do instead, for the kind of element Gmsh makes that pmesh does not read. */
  const char *hint = strstr(pm_msh_rd_type_name(type), "order") ? "; pmesh's elements are first order: mesh "
                                                                  "with -order 1 (Mesh.ElementOrder = 1)"
                                                                : "";
  return MSH_FAIL_AT(r, at, PM_ERR_UNSUPPORTED,
                     "element type %lld (%s)%s is not supported: pmesh reads points (15), lines (1), triangles (2), "
                     "quadrangles (3), tetrahedra (4), hexahedra (5), prisms (6) and pyramids (7)%s",
                     (long long)type, pm_msh_rd_type_name(type), tagbuf, hint);
}

static int msh_missing_node(msh_rd_t *r, int64_t at, int64_t etag, int64_t ntag) {
  return MSH_FAIL_AT(r, at, PM_ERR_FORMAT, "element %lld refers to node %lld, which is not in the $Nodes section",
                     (long long)etag, (long long)ntag);
}

/* MSH 4.1 $Elements: blocks of one type, one entity. */
static int msh_read_elems41(msh_rd_t *r) {
  pm_msh_t *m = r->m;
  int bin = r->binary, sz = r->szt;
  int64_t nblk, ne, dummy;
  PM_CALL(pm_msh_rd_count(r, bin, bin ? 12 + sz : 8, "number of entity blocks", &nblk));
  PM_CALL(pm_msh_rd_count(r, bin, bin ? 2 * sz : 4, "number of elements", &ne));
  if (bin) {
    PM_CALL(pm_msh_rd_bsize(r, 0, "the minimum element tag", &dummy));
    PM_CALL(pm_msh_rd_bsize(r, 0, "the maximum element tag", &dummy));
  } else {
    PM_CALL(pm_msh_rd_int(r, 0, INT64_MAX, "the minimum element tag", &dummy));
    PM_CALL(pm_msh_rd_int(r, 0, INT64_MAX, "the maximum element tag", &dummy));
  }
  PM_CALL(msh_alloc_elems(r, ne));
  PM_CALL(PM_MALLOC(r->blk, nblk, "element blocks"));
  int64_t got = 0, used = 0;
  for (int64_t b = 0; b < nblk; b++) {
    int32_t edim, etag, type;
    int64_t cnt, at = msh_where(r), where = at;
    if (bin) {
      unsigned char h[12];
      PM_CALL(msh_raw(r, h, 12));
      edim = msh_get_i32(r, h);
      etag = msh_get_i32(r, h + 4);
      type = msh_get_i32(r, h + 8);
      PM_CALL(pm_msh_rd_count(r, 1, 2 * sz, "number of elements in a block", &cnt));
    } else {
      int64_t x;
      PM_CALL(pm_msh_rd_int(r, 0, 3, "the entity dimension of an element block", &x));
      edim = (int32_t)x;
      where = msh_where(r);
      PM_CALL(pm_msh_rd_int32(r, "the entity tag of an element block", &etag));
      PM_CALL(pm_msh_rd_int32(r, "an element type", &type));
      at = msh_where(r);
      PM_CALL(pm_msh_rd_count(r, 0, 4, "number of elements in a block", &cnt));
    }
    int k = pm_msh_type_nodes(type);
    if (k < 0) {
      int64_t first = 0;
      if (cnt > 0) {
        if (bin)
          PM_CALL(pm_msh_rd_bsize(r, 0, "an element tag", &first));
        else
          PM_CALL(pm_msh_rd_int(r, 0, INT64_MAX, "an element tag", &first));
      }
      return msh_unsupported_type(r, at, type, first);
    }
    if (pm_msh_type_dim(type) != edim)
      return MSH_FAIL_AT(r, at, PM_ERR_FORMAT, "element type %d (%s) in a block of entity dimension %d", (int)type,
                         pm_msh_rd_type_name(type), (int)edim);
    if (cnt > ne - got)
      return MSH_FAIL(r, PM_ERR_FORMAT,
                      "the element blocks hold more than the %lld elements announced in the "
                      "$Elements header",
                      (long long)ne);
    PM_CALL(msh_reserve_enode(r, used, cnt * k, ne));
    r->blk[r->n_blk++] = (msh_blk_t){edim, etag, type, got, cnt, where};
    int64_t rec = (int64_t)(1 + k) * sz, per = MSH_SCRATCH / rec, done = 0;
    while (done < cnt) {
      int64_t nk = bin ? (cnt - done < per ? cnt - done : per) : 1;
      int64_t at0 = msh_where(r);
      if (bin) {
        PM_CALL(msh_raw(r, r->scratch, (size_t)(nk * rec)));
        pm_msh_rd_decode_szt(r, r->scratch, r->vals, nk * (1 + k));
      }
      for (int64_t i = 0; i < nk; i++) {
        int64_t e = got + done + i, v[1 + PM_CELL_MAX_VERTS];
        if (bin) {
          const int64_t *w = r->vals + i * (1 + k);
          for (int c = 0; c <= k; c++) {
            if (w[c] < 1)
              return MSH_FAIL_AT(r, at0 + i * rec + c * sz, PM_ERR_FORMAT,
                                 "element and node tags must be in [1, %lld], found %llu", (long long)INT64_MAX,
                                 (unsigned long long)w[c]);
            v[c] = w[c];
          }
        } else {
          PM_CALL(pm_msh_rd_int(r, 1, INT64_MAX, "an element tag", &v[0]));
          for (int c = 1; c <= k; c++) PM_CALL(pm_msh_rd_int(r, 1, INT64_MAX, "a node tag", &v[c]));
        }
        m->elem_type[e] = (int8_t)type;
        m->elem_tag[e] = v[0];
        m->elem_entity[e] = etag;
        for (int c = 1; c <= k; c++) {
          if (r->have_set && !msh_set_has(&r->nodes, v[c]))
            return msh_missing_node(r, bin ? at0 + i * rec : msh_where(r), v[0], v[c]);
          m->elem_node[used++] = v[c];
        }
        m->elem_ptr[e + 1] = used;
      }
      done += nk;
    }
    got += cnt;
  }
  if (got != ne)
    return MSH_FAIL(r, PM_ERR_FORMAT, "the $Elements header announces %lld elements but its %lld blocks hold %lld",
                    (long long)ne, (long long)nblk, (long long)got);
  m->n_elems = ne;
  return pm_msh_rd_end(r, "$EndElements", ": $Elements holds more blocks than its header announces");
}

/* Room for one membership per element (MSH 2.2 gives at most one). */
static int msh_add_member22(msh_rd_t *r, int64_t e, int64_t phys) {
  pm_msh_t *m = r->m;
  if (phys == 0) return PM_OK; /* Gmsh writes 0 for "no physical group" */
  m->member_elem[m->n_member] = e;
  m->member_phys[m->n_member] = (int32_t)phys;
  m->n_member++;
  return PM_OK;
}

/* MSH 2.2 ASCII $Elements: "tag type ntags tags... nodes..." lines. */
static int msh_read_elems22_ascii(msh_rd_t *r, int64_t ne) {
  pm_msh_t *m = r->m;
  int64_t used = 0;
  for (int64_t e = 0; e < ne; e++) {
    int64_t etag, type, ntags, phys = 0, ent = 0, x;
    PM_CALL(pm_msh_rd_int(r, 1, INT64_MAX, "an element tag", &etag));
    int64_t at = msh_where(r);
    PM_CALL(pm_msh_rd_int(r, INT64_MIN, INT64_MAX, "an element type", &type));
    int k = type >= INT32_MIN && type <= INT32_MAX ? pm_msh_type_nodes((int)type) : -1;
    if (k < 0) return msh_unsupported_type(r, at, type, etag);
    PM_CALL(pm_msh_rd_int(r, 0, INT32_MAX, "the number of tags of an element", &ntags));
    for (int64_t t = 0; t < ntags; t++) {
      if (t < 2) {
        PM_CALL(pm_msh_rd_int(r, INT32_MIN, INT32_MAX, t ? "an elementary entity tag" : "a physical tag", &x));
        *(t ? &ent : &phys) = x;
      } else {
        PM_CALL(pm_msh_rd_int(r, INT64_MIN, INT64_MAX, "an element tag", &x));
      }
    }
    PM_CALL(msh_reserve_enode(r, used, k, ne));
    for (int c = 0; c < k; c++) {
      PM_CALL(pm_msh_rd_int(r, 1, INT64_MAX, "a node tag", &x));
      if (r->have_set && !msh_set_has(&r->nodes, x)) return msh_missing_node(r, msh_where(r), etag, x);
      m->elem_node[used++] = x;
    }
    m->elem_type[e] = (int8_t)type;
    m->elem_tag[e] = etag;
    m->elem_entity[e] = (int32_t)ent;
    m->elem_ptr[e + 1] = used;
    PM_CALL(msh_add_member22(r, e, phys));
  }
  return PM_OK;
}

/* MSH 2.2 binary $Elements: blocks "type count ntags" then count records of ints. */
static int msh_read_elems22_bin(msh_rd_t *r, int64_t ne) {
  pm_msh_t *m = r->m;
  int64_t used = 0, got = 0;
  PM_CALL(pm_msh_rd_eol(r));
  while (got < ne) {
    int64_t at = pm_scan_offset(&r->s);
    unsigned char h[12];
    PM_CALL(msh_raw(r, h, 12));
    int32_t type = msh_get_i32(r, h), cnt = msh_get_i32(r, h + 4), ntags = msh_get_i32(r, h + 8);
    int k = pm_msh_type_nodes(type);
    if (k < 0) {
      int32_t first = 0;
      if (cnt > 0) PM_CALL(pm_msh_rd_bint(r, &first));
      return msh_unsupported_type(r, at, type, first);
    }
    if (cnt < 0 || ntags < 0)
      return MSH_FAIL_AT(r, at, PM_ERR_FORMAT, "element block header: negative count (%d) or number of tags (%d)",
                         (int)cnt, (int)ntags);
    if (cnt > ne - got)
      return MSH_FAIL_AT(r, at, PM_ERR_FORMAT,
                         "the element blocks hold more than the %lld elements announced in the "
                         "$Elements header",
                         (long long)ne);
    int64_t rec = 4 * ((int64_t)ntags + 1 + k);
    if (rec > MSH_SCRATCH)
      return MSH_FAIL_AT(r, at, PM_ERR_UNSUPPORTED, "elements with %d tags: pmesh reads at most %d tags per element",
                         (int)ntags, MSH_SCRATCH / 4 - 5);
    PM_CALL(pm_msh_rd_check_count(r, cnt, rec, "number of elements in a block"));
    PM_CALL(msh_reserve_enode(r, used, (int64_t)cnt * k, ne));
    int64_t per = MSH_SCRATCH / rec, done = 0;
    while (done < cnt) {
      int64_t nk = cnt - done < per ? cnt - done : per;
      int64_t at0 = pm_scan_offset(&r->s);
      PM_CALL(msh_raw(r, r->scratch, (size_t)(nk * rec)));
      for (int64_t i = 0; i < nk; i++) {
        const unsigned char *p = r->scratch + i * rec;
        int64_t e = got + done + i;
        int32_t etag = msh_get_i32(r, p);
        if (etag < 1)
          return MSH_FAIL_AT(r, at0 + i * rec, PM_ERR_FORMAT, "element tags must be positive, found %d", (int)etag);
        int32_t phys = ntags > 0 ? msh_get_i32(r, p + 4) : 0;
        int32_t ent = ntags > 1 ? msh_get_i32(r, p + 8) : 0;
        const unsigned char *nodes = p + 4 + 4 * (int64_t)ntags;
        for (int c = 0; c < k; c++) {
          int32_t v = msh_get_i32(r, nodes + 4 * c);
          if (v < 1 || (r->have_set && !msh_set_has(&r->nodes, v))) return msh_missing_node(r, at0 + i * rec, etag, v);
          m->elem_node[used++] = v;
        }
        m->elem_type[e] = (int8_t)type;
        m->elem_tag[e] = etag;
        m->elem_entity[e] = ent;
        m->elem_ptr[e + 1] = used;
        PM_CALL(msh_add_member22(r, e, phys));
      }
      done += nk;
    }
    got += cnt;
  }
  return PM_OK;
}

static int msh_read_elems22(msh_rd_t *r) {
  pm_msh_t *m = r->m;
  int64_t ne;
  PM_CALL(pm_msh_rd_count(r, 0, 8, "number of elements", &ne));
  PM_CALL(msh_alloc_elems(r, ne));
  PM_CALL(PM_MALLOC(m->member_elem, ne, "physical memberships"));
  PM_CALL(PM_MALLOC(m->member_phys, ne, "physical memberships"));
  PM_CALL(msh_reserve_enode(r, 0, 3 * ne, ne)); /* triangles; grows for quadrangles */
  if (r->binary)
    PM_CALL(msh_read_elems22_bin(r, ne));
  else
    PM_CALL(msh_read_elems22_ascii(r, ne));
  m->n_elems = ne;
  return pm_msh_rd_end(r, "$EndElements", ": $Elements holds more elements than its header announces");
}

/* Elements read before $Nodes: check their node tags now. */
static int msh_check_late(msh_rd_t *r) {
  pm_msh_t *m = r->m;
  for (int64_t e = 0; e < m->n_elems; e++)
    for (int64_t j = m->elem_ptr[e]; j < m->elem_ptr[e + 1]; j++)
      if (!msh_set_has(&r->nodes, m->elem_node[j]))
        return MSH_FAIL_AT(r, r->elems_at, PM_ERR_FORMAT,
                           "element %lld of the $Elements section starting here refers to node "
                           "%lld, which is not in the $Nodes section",
                           (long long)m->elem_tag[e], (long long)m->elem_node[j]);
  return PM_OK;
}

static int msh_dup_section(msh_rd_t *r, const char *name) {
  return MSH_FAIL(r, PM_ERR_FORMAT, "a second %s section; an MSH file has at most one", name);
}

static int msh_read_sections(msh_rd_t *r) {
  const char *t;
  size_t n;
  r->sect = "the file";
  PM_CALL(pm_scan_token(&r->s, &t, &n));
  if (!t) return MSH_FAIL(r, PM_ERR_FORMAT, "no '$MeshFormat': the file holds only white space");
  if (n == 4 && memcmp(t, "$NOD", 4) == 0)
    return MSH_FAIL(r, PM_ERR_UNSUPPORTED,
                    "this is an MSH version 1 file ($NOD): pmesh reads MSH 2.2 and 4.1; " MSH_CONVERT);
  if (n != 11 || memcmp(t, "$MeshFormat", 11) != 0)
    return MSH_FAIL(r, PM_ERR_FORMAT, "not a Gmsh MSH file: expected '$MeshFormat' at the start, found '%s'",
                    pm_msh_rd_show(r, t, n));
  PM_CALL(msh_read_format(r));
  PM_CALL(PM_MALLOC(r->scratch, MSH_SCRATCH, "read buffer"));
  PM_CALL(PM_MALLOC(r->vals, MSH_SCRATCH / 4, "read buffer"));
  for (;;) {
    r->sect = "the file";
    PM_CALL(pm_scan_token(&r->s, &t, &n));
    if (!t) break;
    r->sect_at = msh_where(r);
    char name[64];
    if (t[0] != '$' || n < 2 || n >= sizeof name || strncmp(t, "$End", 4) == 0)
      return MSH_FAIL(r, PM_ERR_FORMAT, "expected a section such as '$Nodes', found '%s'", pm_msh_rd_show(r, t, n));
    memcpy(name, t, n);
    name[n] = '\0';
    if (strcmp(name, "$MeshFormat") == 0) return msh_dup_section(r, name);
    int binary_header = r->binary && r->v41; /* 4.1 binary headers follow the name's line */
    if (binary_header && (strcmp(name, "$Entities") == 0 || strcmp(name, "$PartitionedEntities") == 0 ||
                          strcmp(name, "$Nodes") == 0 || strcmp(name, "$Elements") == 0))
      PM_CALL(pm_msh_rd_eol(r));
    /* Always an error: a broken section's own problem, else that pmesh partitions meshes itself. */
    if (strcmp(name, "$PartitionedEntities") == 0)
      return r->v41 ? pm_msh_ent_read_partitioned(r) : MSH_FAIL(r, PM_ERR_UNSUPPORTED, MSH_PARTITIONED);
    if (strcmp(name, "$PhysicalNames") == 0) {
      if (r->have_names) return msh_dup_section(r, name);
      r->have_names = 1;
      PM_CALL(msh_read_names(r));
    } else if (strcmp(name, "$Entities") == 0 && r->v41) {
      if (r->have_entities) return msh_dup_section(r, name);
      r->have_entities = 1;
      PM_CALL(pm_msh_ent_read(r));
    } else if (strcmp(name, "$Nodes") == 0) {
      if (r->have_nodes) return msh_dup_section(r, name);
      r->have_nodes = 1;
      r->sect = "$Nodes";
      PM_CALL(r->v41 ? msh_read_nodes41(r) : msh_read_nodes22(r));
      PM_CALL(msh_build_node_set(r));
    } else if (strcmp(name, "$Elements") == 0) {
      if (r->have_elems) return msh_dup_section(r, name);
      r->have_elems = 1;
      r->sect = "$Elements";
      r->elems_at = r->sect_at;
      r->unchecked = !r->have_set;
      PM_CALL(r->v41 ? msh_read_elems41(r) : msh_read_elems22(r));
    } else {
      /* $Comments, $Periodic, $NodeData, ... and sections of later Gmsh versions. */
      char end[72];
      snprintf(end, sizeof end, "$End%s", name + 1);
      r->sect = name;
      PM_CALL(pm_scan_skip_to(&r->s, end));
    }
  }
  r->sect = "the file";
  if (!r->have_nodes && !r->have_elems) /* what Gmsh writes when it meshed nothing */
    return MSH_FAIL(r, PM_ERR_FORMAT,
                    "the file has no $Nodes section and no $Elements section: an empty mesh (did Gmsh mesh "
                    "anything? gmsh -2 or -3 on a geometry with surfaces or volumes)");
  if (!r->have_nodes) return MSH_FAIL(r, PM_ERR_FORMAT, "the file has no $Nodes section");
  if (!r->have_elems) return MSH_FAIL(r, PM_ERR_FORMAT, "the file has no $Elements section");
  if (r->unchecked) PM_CALL(msh_check_late(r));
  if (r->v41) {
    PM_CALL(pm_msh_ent_check_blocks(r));
    PM_CALL(pm_msh_ent_members(r));
  }
  return msh_check_names(r);
}

int pm_msh_read(const char *path, pm_msh_t **msh) {
  int ierr = PM_OK;
  msh_rd_t r;
  memset(&r, 0, sizeof r);
  PM_TRY_CHECK(msh != NULL && path != NULL, PM_ERR_ARG, "pm_msh_read: NULL argument");
  *msh = NULL;
  PM_TRY(PM_CALLOC(r.m, 1, "mesh"));
  PM_TRY(pm_scan_open(&r.s, path));
  PM_TRY(msh_read_sections(&r));
  PM_TRY(pm_scan_finish(&r.s));
  r.m->checksum = r.s.hash;
  r.m->file_bytes = pm_scan_offset(&r.s);
  *msh = r.m;
  r.m = NULL;
cleanup:
  pm_scan_close(&r.s);
  free(r.scratch);
  free(r.vals);
  free(r.ent);
  free(r.ent_phys);
  free(r.blk);
  free(r.nblk);
  free(r.name_at);
  pm_msh_rd_set_free(&r.nodes);
  pm_msh_destroy(&r.m);
  return ierr;
}

void pm_msh_destroy(pm_msh_t **msh) {
  if (!msh || !*msh) return;
  pm_msh_t *m = *msh;
  free(m->node_tag);
  free(m->xyz);
  free(m->elem_type);
  free(m->elem_tag);
  free(m->elem_entity);
  free(m->elem_ptr);
  free(m->elem_node);
  free(m->member_elem);
  free(m->member_phys);
  for (int i = 0; i < m->n_phys_names; i++) free(m->phys_names[i].name);
  free(m->phys_names);
  free(m);
  *msh = NULL;
}
