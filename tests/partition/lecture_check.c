/* lecture_check.c - compare pmesh's local meshes with the lecture's published tables.
 *
 *   lecture_check 2d DIR LECTURE_DIR   8x8 grid on 4 ranks: sqm.R / sq.R / test.lst
 *   lecture_check 1d DIR NPARTS        1D bar: the lecture's neighbour and import/export pattern
 *
 * The expected values come from the lecture's files (or, in 1D, from the lecture's rules), never
 * from pmesh itself.  The exchange of global ids is simulated from the tables alone. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_error.h"
#include "pmesh/pm_local.h"
#include "tu_check.h"

static pm_local_t *load(const char *path, int rank) {
  pm_local_t *l = NULL;
  int ierr = pm_local_read(path, rank, &l);
  if (ierr) {
    fprintf(stderr, "FAIL: %s: %s\n", path, pm_error_message());
    exit(1);
  }
  return l;
}

static int neib_slot(const pm_local_t *l, int q) {
  for (int k = 0; k < l->n_neib; k++)
    if (l->neib[k] == q) return k;
  return -1;
}

/* Simulated lecture exchange: fill the external part of val[r] from the neighbours' exports. */
static void exchange(pm_local_t **l, int64_t **val, int P) {
  for (int r = 0; r < P; r++)
    for (int k = 0; k < l[r]->n_neib; k++) {
      int q = l[r]->neib[k], kq = neib_slot(l[q], r);
      EXPECT(kq >= 0, "rank %d lists %d as neighbour but not vice versa", r, q);
      if (kq < 0) continue;
      int32_t ni = l[r]->import_index[k + 1] - l[r]->import_index[k];
      int32_t ne = l[q]->export_index[kq + 1] - l[q]->export_index[kq];
      EXPECT(ni == ne, "rank %d imports %d from %d, which exports %d", r, ni, q, ne);
      for (int32_t j = 0; j < ni && j < ne; j++)
        val[r][l[r]->import_item[l[r]->import_index[k] + j]] = val[q][l[q]->export_item[l[q]->export_index[kq] + j]];
    }
}

typedef struct line3 {
  int r, q;
  int64_t v;
} line3_t;

static int cmp_line(const void *a, const void *b) {
  const line3_t *x = a, *y = b;
  if (x->r != y->r) return x->r - y->r;
  if (x->q != y->q) return x->q - y->q;
  return (x->v > y->v) - (x->v < y->v);
}

static int recv_lines(pm_local_t **l, int64_t **val, int P, line3_t *out) {
  int n = 0;
  for (int r = 0; r < P; r++)
    for (int k = 0; k < l[r]->n_neib; k++)
      for (int32_t j = l[r]->import_index[k]; j < l[r]->import_index[k + 1]; j++)
        out[n++] = (line3_t){r, l[r]->neib[k], val[r][l[r]->import_item[j]]};
  qsort(out, (size_t)n, sizeof *out, cmp_line);
  return n;
}

static int check2d(const char *dir, const char *lect) {
  enum { P = 4 };
  pm_local_t *ours[P], *ref[P];
  int64_t *vo[P], *vr[P];
  char path[4096];
  for (int r = 0; r < P; r++) {
    snprintf(path, sizeof path, "%s/local.%d", dir, r);
    ours[r] = load(path, r);
    snprintf(path, sizeof path, "%s/sqm.%d", lect, r);
    ref[r] = load(path, r);
    EXPECT(ours[r]->n_total == 24 && ours[r]->n_internal == 16, "rank %d: #NODE %d %d, lecture 24 16", r,
           ours[r]->n_total, ours[r]->n_internal);
    EXPECT(ref[r]->n_total == 24 && ref[r]->n_internal == 16, "lecture sqm.%d: #NODE %d %d", r, ref[r]->n_total,
           ref[r]->n_internal);
    EXPECT(ours[r]->n_neib == ref[r]->n_neib, "rank %d: %d neighbours, lecture %d", r, ours[r]->n_neib, ref[r]->n_neib);
    for (int k = 0; k < ref[r]->n_neib; k++)
      EXPECT(neib_slot(ours[r], ref[r]->neib[k]) >= 0, "rank %d: lecture neighbour %d missing", r, ref[r]->neib[k]);
    /* Values: internal nodes carry their global ids (ours: #GLOBALID; lecture: sq.R). */
    vo[r] = calloc((size_t)ours[r]->n_total, sizeof(int64_t));
    vr[r] = calloc((size_t)ref[r]->n_total, sizeof(int64_t));
    for (int32_t i = 0; i < ours[r]->n_internal; i++) vo[r][i] = ours[r]->gid[i];
    snprintf(path, sizeof path, "%s/sq.%d", lect, r);
    FILE *fp = fopen(path, "r");
    EXPECT(fp, "cannot open %s", path);
    for (int32_t i = 0; fp && i < ref[r]->n_internal; i++) {
      long long x;
      EXPECT(fscanf(fp, "%lld", &x) == 1, "%s: line %d", path, i + 1);
      vr[r][i] = x;
      EXPECT(vr[r][i] == vo[r][i], "rank %d: internal node %d is global %lld, lecture %lld", r, i + 1,
             (long long)vo[r][i], (long long)vr[r][i]);
    }
    if (fp) fclose(fp);
  }
  exchange(ours, vo, P);
  exchange(ref, vr, P);
  /* Per neighbour: the same ordered lists of imported and exported global ids. */
  for (int r = 0; r < P; r++) {
    for (int32_t i = ours[r]->n_internal; i < ours[r]->n_total; i++)
      EXPECT(vo[r][i] == ours[r]->gid[i], "rank %d: external node %d received %lld, #GLOBALID says %lld", r, i + 1,
             (long long)vo[r][i], (long long)ours[r]->gid[i]);
    for (int k = 0; k < ref[r]->n_neib; k++) {
      int q = ref[r]->neib[k], ko = neib_slot(ours[r], q);
      if (ko < 0) continue;
      int32_t n = ref[r]->import_index[k + 1] - ref[r]->import_index[k];
      EXPECT(n == ours[r]->import_index[ko + 1] - ours[r]->import_index[ko], "rank %d: import count from %d", r, q);
      for (int32_t j = 0; j < n; j++) {
        int64_t a = vr[r][ref[r]->import_item[ref[r]->import_index[k] + j]];
        int64_t b = vo[r][ours[r]->import_item[ours[r]->import_index[ko] + j]];
        EXPECT(a == b, "rank %d: import %d from %d is global %lld, lecture %lld", r, j + 1, q, (long long)b,
               (long long)a);
      }
      n = ref[r]->export_index[k + 1] - ref[r]->export_index[k];
      EXPECT(n == ours[r]->export_index[ko + 1] - ours[r]->export_index[ko], "rank %d: export count to %d", r, q);
      for (int32_t j = 0; j < n; j++) {
        int64_t a = vr[r][ref[r]->export_item[ref[r]->export_index[k] + j]];
        int64_t b = vo[r][ours[r]->export_item[ours[r]->export_index[ko] + j]];
        EXPECT(a == b, "rank %d: export %d to %d is global %lld, lecture %lld", r, j + 1, q, (long long)b,
               (long long)a);
      }
    }
  }
  /* The exchange's RECVbuf lines equal test.lst as a set. */
  line3_t lo[256], lt[256];
  int no = recv_lines(ours, vo, P, lo), nt = 0;
  snprintf(path, sizeof path, "%s/test.lst", lect);
  FILE *fp = fopen(path, "r");
  EXPECT(fp, "cannot open %s", path);
  char word[64];
  long long a, b, c;
  while (fp && fscanf(fp, "%63s %lld %lld %lld", word, &a, &b, &c) == 4 && nt < 256)
    lt[nt++] = (line3_t){(int)a, (int)b, c};
  if (fp) fclose(fp);
  qsort(lt, (size_t)nt, sizeof *lt, cmp_line);
  EXPECT(no == nt && nt == 32, "%d RECVbuf lines, test.lst has %d", no, nt);
  for (int i = 0; i < no && i < nt; i++)
    EXPECT(cmp_line(&lo[i], &lt[i]) == 0, "RECVbuf %d %d %lld, test.lst %d %d %lld", lo[i].r, lo[i].q,
           (long long)lo[i].v, lt[i].r, lt[i].q, (long long)lt[i].v);
  for (int i = 0; i < no; i++) printf("RECVbuf %d %d %lld\n", lo[i].r, lo[i].q, (long long)lo[i].v);
  for (int r = 0; r < P; r++) {
    pm_local_destroy(&ours[r]);
    pm_local_destroy(&ref[r]);
    free(vo[r]);
    free(vr[r]);
  }
  return g_fail > 0;
}

static int check1d(const char *dir, int P) {
  char path[4096];
  for (int r = 0; r < P; r++) {
    snprintf(path, sizeof path, "%s/local.%d", dir, r);
    pm_local_t *l = load(path, r);
    int32_t N = l->n_internal;
    int first = r == 0, last = r == P - 1;
    int nn = (first ? 0 : 1) + (last ? 0 : 1);
    EXPECT(l->n_neib == nn, "rank %d: %d neighbours, expected %d", r, l->n_neib, nn);
    EXPECT(l->n_total == N + nn, "rank %d: NP %d, expected N + %d = %d", r, l->n_total, nn, N + nn);
    int k = 0;
    if (!first && l->n_neib > k) {
      /* left neighbour: import N+1 (its last node), export 1 (our first) */
      EXPECT(l->neib[k] == r - 1, "rank %d: neighbour %d is %d, expected %d", r, k, l->neib[k], r - 1);
      EXPECT(l->import_index[k + 1] - l->import_index[k] == 1 && l->import_item[l->import_index[k]] == N,
             "rank %d: import from %d is not node N+1", r, r - 1);
      EXPECT(l->export_index[k + 1] - l->export_index[k] == 1 && l->export_item[l->export_index[k]] == 0,
             "rank %d: export to %d is not node 1", r, r - 1);
      EXPECT(l->gid[N] == l->gid[0] - 1, "rank %d: node N+1 is global %lld, expected %lld", r, (long long)l->gid[N],
             (long long)(l->gid[0] - 1));
      k++;
    }
    if (!last && l->n_neib > k) {
      int32_t imp = first ? N : N + 1; /* N+1 on the first rank, N+2 in the middle */
      EXPECT(l->neib[k] == r + 1, "rank %d: neighbour %d is %d, expected %d", r, k, l->neib[k], r + 1);
      EXPECT(l->import_index[k + 1] - l->import_index[k] == 1 && l->import_item[l->import_index[k]] == imp,
             "rank %d: import from %d is not node %d", r, r + 1, imp + 1);
      EXPECT(l->export_index[k + 1] - l->export_index[k] == 1 && l->export_item[l->export_index[k]] == N - 1,
             "rank %d: export to %d is not node N", r, r + 1);
      EXPECT(l->gid[imp] == l->gid[N - 1] + 1, "rank %d: node %d is global %lld, expected %lld", r, imp + 1,
             (long long)l->gid[imp], (long long)(l->gid[N - 1] + 1));
    }
    for (int32_t i = 1; i < N; i++) EXPECT(l->gid[i] == l->gid[i - 1] + 1, "rank %d: internal ids not contiguous", r);
    printf("rank %d: N %d NP %d neighbours", r, N, l->n_total);
    for (int j = 0; j < l->n_neib; j++) printf(" %d", l->neib[j]);
    printf(" imports");
    for (int32_t j = 0; j < l->import_index[l->n_neib]; j++) printf(" %d", l->import_item[j] + 1);
    printf(" exports");
    for (int32_t j = 0; j < l->export_index[l->n_neib]; j++) printf(" %d", l->export_item[j] + 1);
    printf("\n");
    pm_local_destroy(&l);
  }
  return g_fail > 0;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "2d") == 0) return check2d(argv[2], argv[3]) ? 1 : 0;
  if (argc == 4 && strcmp(argv[1], "1d") == 0) return check1d(argv[2], atoi(argv[3])) ? 1 : 0;
  fprintf(stderr, "usage: lecture_check 2d DIR LECTURE_DIR | 1d DIR NPARTS\n");
  return 2;
}
