/* solve_refine.c - solve's steps before the run on a refined mesh: the finest level's operator
 * chosen (--fine-operator auto), the partition refined in parallel (--refine K, --dump-local) and
 * the note on a partition whose node order would slow the refined run. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_partition.h"
#include "pmesh/pm_refine_run.h"
#include "solve.h"

/* Whether every cell of the mesh is one the matrix-free level takes (tetrahedra, hexahedra,
 * prisms: Gmsh's 4, 5, 6), and whether some are hexahedra or prisms (*stored: their children's
 * weights are kept, pm_fine_cells.h).  Collective. */
static int matrix_free_cells(const pm_partition_t *part, int *all, int *stored) {
  const pm_local_t *l = part->local;
  int v[2] = {l->has_mesh, 0}; /* a rank without elements agrees */
  for (int32_t e = 0; e < l->n_elems; e++) {
    v[0] &= l->elem_type[e] >= 4 && l->elem_type[e] <= 6;
    v[1] |= l->elem_type[e] == 5 || l->elem_type[e] == 6;
  }
  v[1] = -v[1];
  PM_CALL_MPI(pm_comm_allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MIN, part->comm));
  *all = v[0];
  *stored = -v[1];
  return PM_OK;
}

/* --fine-operator auto, the options allowing it (solve_args.c): matrix-free when every cell of
 * the mesh is a tetrahedron, hexahedron or prism, else assembled.  Collective. */
int solve_choose_fine_operator(params_t *p, const pm_partition_t *part) {
  if (p->fine_operator != FINE_AUTO) return PM_OK;
  int all = 0, stored = 0;
  PM_CALL(matrix_free_cells(part, &all, &stored));
  p->fine_operator = all ? FINE_MATRIX_FREE : FINE_ASSEMBLED;
  return PM_OK;
}

/* --refine of a partition in its mesh file's order: the refined mesh inherits the order, and a
 * large one then runs up to twice as slowly as after partition --order hilbert (docs/solve.md,
 * "Refinement").  An element's nodes are on average about n^((d-1)/d) positions apart in a local
 * order (a layer of a rank's n nodes: 1 to 2.4 times that in Hilbert's and meshgen's orders) and
 * a fair part of n in Gmsh's (3.5 to 43 times on the bundled cube_hole and disk_hole, the 13k
 * bracket and a finer disk; refined, cube_hole, the bracket and the finer disk ran 1.5-2.4x
 * slower than in Hilbert's order).  *spread and *local: the average and that scale over the
 * ranks' elements when the refined run reaches NOTE_UNKNOWNS, the partition is not itself a
 * refinement's (whose numbering is as fast as Hilbert's, docs/benchmarks.md) and the average
 * exceeds NOTE_FACTOR times the scale; else 0 (and always without --refine).  Collective. */
enum { NOTE_UNKNOWNS = 1000000, NOTE_FACTOR = 3 };
static int order_spread(const params_t *p, const pm_partition_t *part, double *spread, double *local) {
  *spread = *local = 0.0;
  if (p->refine <= 0) return PM_OK; /* every rank has the same options */
  const pm_local_t *l = part->local;
  int d = part->meta->dim;
  pm_refine_estimate_t est;
  pm_refine_estimate(l, p->refine, &est);
  double n = (double)l->n_total + l->n_aux;
  /* the elements' node spreads, the elements, their ranks' local-order scales, the fine nodes */
  double v[4] = {0.0, l->has_mesh ? l->n_elems : 0, 0.0, est.nodes};
  for (int32_t e = 0; l->has_mesh && e < l->n_elems; e++) {
    int32_t lo = INT32_MAX, hi = -1;
    for (int32_t k = l->elem_ptr[e]; k < l->elem_ptr[e + 1]; k++) {
      lo = l->elem_node[k] < lo ? l->elem_node[k] : lo;
      hi = l->elem_node[k] > hi ? l->elem_node[k] : hi;
    }
    v[0] += hi >= lo ? hi - lo : 0;
  }
  v[2] = v[1] * pow(n, (d - 1.0) / d);
  PM_CALL_MPI(pm_comm_allreduce(MPI_IN_PLACE, v, 4, MPI_DOUBLE, MPI_SUM, part->comm));
  if (v[3] >= NOTE_UNKNOWNS && part->meta->refine_levels == 0 && v[1] > 0 && v[0] > NOTE_FACTOR * v[2]) {
    *spread = v[0] / v[1];
    *local = v[2] / v[1];
  }
  return PM_OK;
}

/* --refine: every rank refines its own part (mg keeps the levels), then --dump-local.  Errors
 * agreed. */
int solve_refine(const params_t *p, pm_partition_t *part) {
  /* The run's own memory per fine node besides the meshes, which pm_refine_estimate puts at
   * about 175 bytes per node for triangles: solve --refine 2 peaks at about 270 (mg), 290 (amg)
   * and 260 (jacobi) bytes per unknown in all, the meshes included, when the run releases the
   * elements after the assembly; with --exact or time steps it keeps them, about 80 bytes more.
   * In 3D a row has 15 (tetrahedra) to 27 (hexahedra) entries instead of 7 to 9: about 2.5 times
   * that (solve --refine 2 of meshgen box 13 13 13 --tet peaks at about 750 bytes per unknown,
   * the MPI processes' base included).  Refuse before refining what would not fit, rather than
   * be killed halfway. */
  double spread = 0.0, local = 0.0;
  PM_CALL(order_spread(p, part, &spread, &local));
  if (spread > 0 && part->rank == 0) /* before the sizes are checked: a refused run gets it too */
    fprintf(stderr,
            "%s: note: an element's nodes are %.0f positions apart in the numbering on average (about %.0f in a "
            "local order: the mesh file's order?); the refined mesh inherits it, which can halve the run's "
            "speed: partition with --order hilbert (docs/solve.md, \"Refinement\")\n",
            tool, spread, local);
  double keep = p->exact[0] || p->steps > 0 ? 80.0 : 0.0;
  double run_bytes = keep + (p->precond == PRECOND_MG    ? 120.0
                             : p->precond == PRECOND_AMG ? 150.0
                                                         : 110.0) *
                                (p->dim == 3 ? 2.5 : 1.0);
  /* matrix-free (no fine elements, no fine matrix): CG's and the run's vectors, the marks, the
   * finest cycle level and its P, the levels below; 160 bytes per fine node besides the meshes
   * (measured: 264 in all on the 125k-node bracket refined twice); hexahedra and prisms keep
   * their children's weights, about 80 more (a hexahedron's 158 floats per 8 fine nodes; measured:
   * 305 in all on meshgen box 25 25 25 refined 3 times) */
  if (p->fine_operator == FINE_MATRIX_FREE) {
    int all = 0, stored = 0;
    PM_CALL(matrix_free_cells(part, &all, &stored));
    PM_CALL(pm_refine_check_run_points(part->comm, part->local, p->refine, keep + 160.0 + (stored ? 80.0 : 0.0)));
  } else
    PM_CALL(pm_refine_check_run(part->comm, part->local, p->refine, run_bytes));
  if (p->fine_operator == FINE_MATRIX_FREE) /* the levels and the last level's refinement points */
    PM_CALL(pm_partition_refine_points(part, p->refine));
  else
    PM_CALL(pm_partition_refine(part, p->refine, p->precond == PRECOND_MG));
  return p->dump_local[0] ? pm_partition_dump(part, p->dump_local) : PM_OK;
}
