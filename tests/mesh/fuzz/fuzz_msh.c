/* fuzz_msh.c - libFuzzer harness of the Gmsh reader.  Each input is written to one temporary
 * file per process and read with pm_msh_read(); a success must give a consistent mesh, a
 * failure a message and a NULL handle.  A file that reads is also built into the global mesh
 * twice, by pm_mesh_from_msh() (copying) and pm_mesh_read() (handing the arrays over, compacted
 * in place): both must succeed or fail together and agree.  Sanitizers catch the rest.  Built with -DPMESH_FUZZ=ON
 * and clang (tests/mesh/CMakeLists.txt). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmesh/pm_error.h"
#include "pmesh/pm_mesh.h"
#include "pmesh/pm_msh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_path[64];

static void fuzz_cleanup(void) {
  if (fuzz_path[0]) unlink(fuzz_path);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* What a successful read promises (pm_msh.h). */
static void check_mesh(const pm_msh_t *m, size_t size) {
  if (m->n_nodes < 0 || m->n_elems < 0 || m->n_member < 0) abort();
  if (m->file_bytes != (int64_t)size) abort();
  int64_t *tags = malloc((size_t)(m->n_nodes + 1) * sizeof *tags);
  if (!tags) abort();
  memcpy(tags, m->node_tag, (size_t)m->n_nodes * sizeof *tags);
  qsort(tags, (size_t)m->n_nodes, sizeof *tags, cmp_i64);
  for (int64_t i = 0; i < m->n_nodes; i++) {
    if (tags[i] < 1 || (i > 0 && tags[i] == tags[i - 1])) abort(); /* positive, unique */
    for (int c = 0; c < 3; c++)
      if (!(m->xyz[3 * i + c] - m->xyz[3 * i + c] == 0)) abort(); /* finite */
  }
  if (m->elem_ptr[0] != 0) abort();
  for (int64_t e = 0; e < m->n_elems; e++) {
    int k = pm_msh_type_nodes(m->elem_type[e]);
    if (k < 0 || m->elem_ptr[e + 1] - m->elem_ptr[e] != k) abort();
    for (int64_t j = m->elem_ptr[e]; j < m->elem_ptr[e + 1]; j++)
      if (!bsearch(&m->elem_node[j], tags, (size_t)m->n_nodes, sizeof *tags, cmp_i64)) abort();
  }
  for (int64_t i = 0; i < m->n_member; i++)
    if (m->member_elem[i] < 0 || m->member_elem[i] >= m->n_elems) abort();
  for (int i = 0; i < m->n_phys_names; i++)
    if (!m->phys_names[i].name || m->phys_names[i].dim < 0 || m->phys_names[i].dim > 3) abort();
  free(tags);
}

#define SAME(a, b, n) ((n) == 0 || memcmp((a), (b), (size_t)(n) * sizeof *(a)) == 0)

/* The two ways of building the global mesh agree (see the head comment). */
static void check_build(const pm_msh_t *msh) {
  pm_mesh_t *a = NULL, *b = NULL;
  int ra = pm_mesh_from_msh(msh, &a);
  pm_error_clear();
  int rb = pm_mesh_read(fuzz_path, &b, NULL);
  pm_error_clear();
  if ((ra == PM_OK) != (rb == PM_OK)) abort();
  if (ra == PM_OK) {
    int64_t ne = a->n_elems, nf = a->n_faces;
    if (a->n_nodes != b->n_nodes || ne != b->n_elems || nf != b->n_faces || a->n_groups != b->n_groups) abort();
    if (!SAME(a->node_gid, b->node_gid, a->n_nodes) || !SAME(a->elem_gid, b->elem_gid, ne) ||
        !SAME(a->elem_ptr, b->elem_ptr, ne + 1) || !SAME(a->elem_node, b->elem_node, a->elem_ptr[ne]) ||
        !SAME(a->face_ptr, b->face_ptr, nf + 1) || !SAME(a->face_node, b->face_node, a->face_ptr[nf]))
      abort();
    for (int g = 0; g < a->n_groups; g++)
      if (a->groups[g].n_nodes != b->groups[g].n_nodes ||
          !SAME(a->groups[g].nodes, b->groups[g].nodes, a->groups[g].n_nodes))
        abort();
  }
  pm_mesh_destroy(&a);
  pm_mesh_destroy(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!fuzz_path[0]) {
    /* a RAM-backed folder when there is one: one small file is rewritten per input */
    const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(fuzz_path, sizeof fuzz_path, "%s/fuzz_msh_XXXXXX", tmp);
    int fd = mkstemp(fuzz_path);
    if (fd < 0) abort();
    close(fd);
    atexit(fuzz_cleanup);
  }
  FILE *fp = fopen(fuzz_path, "wb");
  if (!fp) abort();
  if (size && fwrite(data, 1, size, fp) != size) abort();
  fclose(fp);
  pm_msh_t *m = NULL;
  int rc = pm_msh_read(fuzz_path, &m);
  if (rc == PM_OK) {
    if (!m) abort();
    check_mesh(m, size);
    check_build(m);
  } else if (m != NULL || pm_error_message()[0] == '\0') {
    abort();
  }
  pm_msh_destroy(&m);
  pm_error_clear();
  return 0;
}
