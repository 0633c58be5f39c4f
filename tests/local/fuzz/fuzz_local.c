/* fuzz_local.c - libFuzzer harness of the local-mesh and partition.meta readers.  Each input is
 * written to one temporary file per process and read with pm_local_read() and pm_meta_read();
 * a success must give a structure that keeps every promise of pm_local.h, a failure a message
 * and a NULL handle.  While a reader runs, a malloc hook limits the bytes allocated to what the
 * file can justify (a fixed allowance plus a multiple of its size), so a forged count cannot
 * make it allocate gigabytes.  Sanitizers catch the rest (including leaks).  Built with
 * -DPMESH_FUZZ=ON and clang (tests/local/CMakeLists.txt). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmesh/pm_error.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_meta.h"
#include "pmesh/pm_msh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Sanitizer allocator hooks (compiler-rt): called on every malloc/free. */
void __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                               void (*free_hook)(const volatile void *));
void __sanitizer_print_stack_trace(void);

/* Allowance: the scan window (4 KiB in this build), the path and message copies, and per file
 * byte a generous factor (a 4-byte "#GLOBALID" line becomes 40 bytes of ids and coordinates,
 * a 10-byte element ~60, a 10-byte group header ~80, plus the doubling of the node list). */
enum { FUZZ_FIXED_BYTES = 64 << 10, FUZZ_BYTES_PER_BYTE = 64 };
static volatile size_t alloc_limit, alloc_total; /* limit 0: not measuring */

static void on_malloc(const volatile void *p, size_t n) {
  (void)p;
  if (!alloc_limit) return;
  alloc_total += n;
  if (alloc_total > alloc_limit) {
    size_t limit = alloc_limit;
    alloc_limit = 0;
    fprintf(stderr,
            "fuzz_local: the reader allocated %zu bytes in all (this one %zu), more than the %zu the input "
            "justifies\n",
            (size_t)alloc_total, n, limit);
    __sanitizer_print_stack_trace();
    abort();
  }
}
static void on_free(const volatile void *p) {
  (void)p;
}

static char fuzz_path[64];

static void fuzz_cleanup(void) {
  if (fuzz_path[0]) unlink(fuzz_path);
}

static void need(int cond) {
  if (!cond) abort();
}

static void check_items(const int32_t *v, int32_t n, int32_t lo, int32_t hi) {
  for (int32_t i = 0; i < n; i++) need(v[i] >= lo && v[i] < hi);
}

static void check_index(const int32_t *index, int n) {
  need(index[0] == 0);
  for (int k = 1; k <= n; k++) need(index[k] >= index[k - 1]);
}

static void check_node_list(const int8_t *type, const int32_t *ptr, const int32_t *node, int32_t n, int32_t nt) {
  need(ptr[0] == 0);
  for (int32_t e = 0; e < n; e++) {
    int k = pm_msh_type_nodes(type[e]);
    need(k > 0 && ptr[e + 1] - ptr[e] == k);
    check_items(node + ptr[e], k, 0, nt);
  }
}

/* What a successful pm_local_read promises (pm_local.h). */
static void check_local(const pm_local_t *l) {
  need(l->n_neib >= 0 && l->n_internal >= 0 && l->n_internal <= l->n_total && l->n_aux >= 0);
  for (int k = 0; k < l->n_neib; k++) {
    need(l->neib[k] >= 0 && l->neib[k] != l->rank);
    for (int j = 0; j < k; j++) need(l->neib[j] != l->neib[k]);
  }
  check_index(l->import_index, l->n_neib);
  check_index(l->export_index, l->n_neib);
  need(l->import_index[l->n_neib] == l->n_total - l->n_internal);
  check_items(l->import_item, l->import_index[l->n_neib], l->n_internal, l->n_total);
  for (int32_t i = 0; i < l->import_index[l->n_neib]; i++) /* each external exactly once */
    for (int32_t j = 0; j < i; j++) need(l->import_item[i] != l->import_item[j]);
  check_items(l->export_item, l->export_index[l->n_neib], 0, l->n_internal);
  if (!l->has_mesh) return;
  int32_t nt = l->n_total + l->n_aux;
  need(l->nparts >= 1 && l->rank >= 0 && l->rank < l->nparts);
  for (int k = 0; k < l->n_neib; k++) need(l->neib[k] < l->nparts);
  for (int32_t i = 0; i < nt; i++) {
    need(l->gid[i] >= 1 && l->node_index[i] >= 0);
    for (int c = 0; c < 3; c++) need(l->xyz[3 * i + c] - l->xyz[3 * i + c] == 0); /* finite */
  }
  need(l->n_elems >= 0);
  check_node_list(l->elem_type, l->elem_ptr, l->elem_node, l->n_elems, nt);
  for (int32_t e = 0; e < l->n_elems; e++) need(l->elem_owner[e] >= 0 && l->elem_owner[e] < l->nparts);
  need(l->n_groups >= 0);
  for (int g = 0; g < l->n_groups; g++) {
    const pm_local_group_t *gr = &l->groups[g];
    need(gr->name && gr->name[0] && gr->name[0] != '#' && gr->dim >= 0 && gr->dim <= 3);
    need(gr->n_nodes >= 0 && gr->n_faces >= 0 && gr->n_elems >= 0);
    check_items(gr->nodes, gr->n_nodes, 0, nt);
    check_node_list(gr->face_type, gr->face_ptr, gr->face_node, gr->n_faces, nt);
    check_items(gr->elems, gr->n_elems, 0, l->n_elems);
  }
}

static void check_meta(const pm_meta_t *m) {
  need((m->version == 1 || m->version == PM_META_VERSION) && m->has_mesh_fingerprint == (m->version >= 2));
  need(m->nparts >= 1 && m->dim >= 1 && m->dim <= 3);
  need(m->global_nodes >= 1 && m->global_elems >= 1 && m->method && m->halo && m->source && m->n_groups >= 0);
  for (int g = 0; g < m->n_groups; g++) need(m->group_name[g] && m->group_dim[g] >= 0 && m->group_dim[g] <= 3);
}

static void measure(size_t size) {
  alloc_total = 0;
  alloc_limit = FUZZ_FIXED_BYTES + FUZZ_BYTES_PER_BYTE * size;
}

static void failed(const void *handle) {
  need(handle == NULL && pm_error_message()[0] != '\0');
  pm_error_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!fuzz_path[0]) {
    /* a RAM-backed folder when there is one: one small file is rewritten per input */
    const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(fuzz_path, sizeof fuzz_path, "%s/fuzz_local_XXXXXX", tmp);
    int fd = mkstemp(fuzz_path);
    if (fd < 0) abort();
    close(fd);
    atexit(fuzz_cleanup);
    __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
  }
  FILE *fp = fopen(fuzz_path, "wb");
  if (!fp) abort();
  if (size && fwrite(data, 1, size, fp) != size) abort();
  fclose(fp);

  pm_local_t *l = NULL;
  measure(size);
  int rc = pm_local_read(fuzz_path, -1, &l);
  alloc_limit = 0;
  if (rc == PM_OK) {
    need(l != NULL);
    check_local(l);
    if (l->has_mesh) { /* the same file read for its own rank passes, for another rank fails */
      pm_local_t *again = NULL;
      int rank = l->rank;
      need(pm_local_read(fuzz_path, rank, &again) == PM_OK && again && again->rank == rank);
      pm_local_destroy(&again);
      need(pm_local_read(fuzz_path, rank + 1, &again) != PM_OK);
      failed(again);
    }
  } else {
    failed(l);
  }
  pm_local_destroy(&l);

  pm_meta_t *m = NULL;
  measure(size);
  rc = pm_meta_read(fuzz_path, &m);
  alloc_limit = 0;
  if (rc == PM_OK) {
    need(m != NULL);
    check_meta(m);
  } else {
    failed(m);
  }
  pm_meta_destroy(&m);
  pm_error_clear();
  return 0;
}
