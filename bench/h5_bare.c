/* h5_bare.c - the floor for bench/bench_h5.sh: one dataset of doubles written collectively by
 * all ranks (each its contiguous slab), from one warm buffer, then H5Fflush (MPI_File_sync).
 *
 *   mpiexec.mpich -n P h5_bare FILE MIB [CHUNK_MIB]
 *
 * CHUNK_MIB 0 (the default) writes each slab in one H5Dwrite; otherwise in chunks of that size
 * (every rank makes the same number of calls).  Prints the seconds from before H5Fcreate to
 * after H5Fclose (max over ranks), and of the writes and the flush. */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what) {
  fprintf(stderr, "h5_bare: %s failed\n", what);
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: h5_bare FILE MIB [CHUNK_MIB]\n");
    MPI_Finalize();
    return 2;
  }
  hsize_t n = (hsize_t)atol(argv[2]) << 17; /* doubles */
  hsize_t lo = n / p * rank, cnt = rank == p - 1 ? n - lo : n / p;
  hsize_t chunk = argc > 3 ? (hsize_t)(atof(argv[3]) * (1 << 17)) : 0;
  if (chunk == 0 || chunk > cnt) chunk = cnt > 0 ? cnt : 1;
  double *buf = malloc(chunk * sizeof *buf);
  if (!buf) return fail("malloc");
  for (hsize_t i = 0; i < chunk; i++) buf[i] = (double)i; /* warm */
  hsize_t nch = (cnt + chunk - 1) / chunk, most = 0;
  MPI_Allreduce(&nch, &most, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0 || H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL) < 0) return fail("H5Pset_fapl_mpio");
  hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  if (f < 0) return fail("H5Fcreate");
  hid_t dx = H5Pcreate(H5P_DATASET_XFER);
  if (dx < 0 || H5Pset_dxpl_mpio(dx, H5FD_MPIO_COLLECTIVE) < 0) return fail("H5Pset_dxpl_mpio");
  hid_t fs = H5Screate_simple(1, &n, NULL), dc = H5Pcreate(H5P_DATASET_CREATE);
  if (fs < 0 || dc < 0 || H5Pset_fill_time(dc, H5D_FILL_TIME_NEVER) < 0) return fail("dataset properties");
  hid_t ds = H5Dcreate2(f, "x", H5T_IEEE_F64LE, fs, H5P_DEFAULT, dc, H5P_DEFAULT);
  if (ds < 0) return fail("H5Dcreate2");
  double tw = MPI_Wtime();
  for (hsize_t c = 0; c < most; c++) {
    hsize_t at = lo + c * chunk, m = c < nch ? (cnt - c * chunk < chunk ? cnt - c * chunk : chunk) : 0;
    hid_t ms = H5Screate_simple(1, m ? &m : &chunk, NULL);
    if (m) {
      H5Sselect_hyperslab(fs, H5S_SELECT_SET, &at, NULL, &m, NULL);
    } else {
      H5Sselect_none(fs);
      H5Sselect_none(ms);
    }
    if (H5Dwrite(ds, H5T_NATIVE_DOUBLE, ms, fs, dx, buf) < 0) return fail("H5Dwrite");
    H5Sclose(ms);
  }
  double tf = MPI_Wtime();
  H5Dclose(ds);
  if (H5Fflush(f, H5F_SCOPE_GLOBAL) < 0) return fail("H5Fflush");
  double tc = MPI_Wtime();
  if (H5Fclose(f) < 0) return fail("H5Fclose");
  double t = MPI_Wtime() - t0, tmax = 0;
  MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("bare seconds %.6f writes %.4f flush %.4f\n", tmax, tf - tw, tc - tf);
  H5Sclose(fs);
  H5Pclose(dc);
  H5Pclose(dx);
  H5Pclose(fapl);
  free(buf);
  MPI_Finalize();
  return 0;
}
