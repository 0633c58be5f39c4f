/* struct_halo.c - a user's struct per node through the halo, with an MPI derived datatype.
 *
 *   partition MESH P -o part && mpiexec -n P struct_halo part [isend|sendrecv|datatype|persistent|neighbor|pack]
 *
 * The lecture's exchange of global ids, with a record instead of a number: each rank fills the
 * records of its internal nodes, one update brings every external node its owner's record, and
 * each rank checks what arrived against what its local file says of those nodes (global id,
 * coordinates, the neighbour it imports them from).  The record's datatype is the lecture's
 * MPI_Type_create_struct, resized so that record i starts at &rec[i].  Then the other direction:
 * accumulate counts the copies of each node.  MPI has no sum for a user's type, so the halo
 * refuses to accumulate a derived one: the count travels as a plain MPI_INT. */
#include <mpi.h>
#include <pmesh/pm_comm.h>
#include <pmesh/pm_error.h>
#include <pmesh/pm_halo.h>
#include <pmesh/pm_local.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct node_rec {
  int64_t gid;   /* global id (the Gmsh node tag) */
  double xyz[3]; /* coordinates */
  int owner;     /* the rank that owns the node */
  float scratch; /* this rank's own: not in the datatype, so no exchange touches it */
} node_rec_t;

static int rank;

/* A failure on any rank ends every rank (pm_comm_agree: one reduction), with its message. */
static void check(int ierr, const char *what) {
  if (pm_comm_agree(MPI_COMM_WORLD, ierr) == PM_OK) return;
  if (ierr) fprintf(stderr, "struct_halo: rank %d: %s: %s\n", rank, what, pm_error_message());
  MPI_Finalize();
  exit(EXIT_FAILURE);
}

/* gid, xyz and owner of a node_rec_t; extent sizeof(node_rec_t), so that item i is rec[i]. */
static MPI_Datatype node_rec_type(void) {
  int len[3] = {1, 3, 1};
  MPI_Aint disp[3] = {offsetof(node_rec_t, gid), offsetof(node_rec_t, xyz), offsetof(node_rec_t, owner)};
  MPI_Datatype types[3] = {MPI_INT64_T, MPI_DOUBLE, MPI_INT}, fields, rec;
  MPI_Type_create_struct(3, len, disp, types, &fields);
  MPI_Type_create_resized(fields, 0, sizeof(node_rec_t), &rec);
  MPI_Type_commit(&rec);
  MPI_Type_free(&fields);
  return rec;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  pm_exchange_t kind = pm_exchange_default();
  if (argc < 2 || argc > 3 || (argc == 3 && pm_exchange_parse(argv[2], &kind))) {
    if (rank == 0)
      fprintf(stderr, "usage: mpiexec -n P struct_halo PARTITION_DIR [BACKEND]\n%s\n",
              argc == 3 ? pm_error_message() : "");
    MPI_Finalize();
    return EXIT_FAILURE;
  }
  char path[4096];
  pm_local_t *l = NULL;
  int ierr = pm_local_path(argv[1], rank, path, sizeof path);
  if (!ierr) ierr = pm_local_read(path, rank, &l);
  if (!ierr && !l->has_mesh) ierr = pm_error_set(PM_ERR_FORMAT, __FILE__, __LINE__, "%s has no coordinates", path);
  check(ierr, "local mesh");
  pm_halo_t *halo = NULL;
  check(pm_halo_create(MPI_COMM_WORLD, l, kind, &halo), "halo");
  int32_t N = l->n_internal, NP = l->n_total;

  /* Internal nodes: what this rank knows of them.  External nodes: nothing yet. */
  node_rec_t *rec = calloc((size_t)NP + 1, sizeof *rec);
  for (int32_t i = 0; i < NP; i++) {
    if (i < N) {
      rec[i].gid = l->gid[i];
      memcpy(rec[i].xyz, l->xyz + 3 * i, sizeof rec[i].xyz);
      rec[i].owner = rank;
    } else {
      rec[i].gid = -1;
      rec[i].owner = -1;
    }
    rec[i].scratch = (float)i;
  }
  MPI_Datatype rec_type = node_rec_type();
  check(pm_halo_update(halo, rec, rec_type, 1), "update");
  MPI_Type_free(&rec_type);

  /* Every external came from the neighbour it is imported from, with its own id and place. */
  long long wrong = 0, externals = NP - N;
  for (int k = 0; k < l->n_neib; k++)
    for (int32_t j = l->import_index[k]; j < l->import_index[k + 1]; j++) {
      const node_rec_t *r = &rec[l->import_item[j]];
      int32_t i = l->import_item[j];
      wrong += r->gid != l->gid[i] || memcmp(r->xyz, l->xyz + 3 * i, sizeof r->xyz) || r->owner != l->neib[k] ||
               r->scratch != (float)i;
    }

  /* The other direction, summed: every local copy of a node counts 1 at its owner. */
  int *copies = malloc(((size_t)NP + 1) * sizeof *copies);
  for (int32_t i = 0; i < NP; i++) copies[i] = 1;
  check(pm_halo_accumulate(halo, copies, MPI_INT, 1), "accumulate");
  long long mine[4] = {wrong, externals, 0, NP}, all[4];
  for (int32_t i = 0; i < N; i++) mine[2] += copies[i];
  MPI_Allreduce(mine, all, 4, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("struct_halo (%s): %lld external records, %lld wrong\n", pm_exchange_name(kind), all[1], all[0]);
    printf("struct_halo: %lld copies counted at the owners, %lld local nodes on all ranks\n", all[2], all[3]);
  }
  free(rec);
  free(copies);
  pm_halo_destroy(&halo);
  pm_local_destroy(&l);
  MPI_Finalize();
  return all[0] == 0 && all[2] == all[3] ? EXIT_SUCCESS : EXIT_FAILURE;
}
