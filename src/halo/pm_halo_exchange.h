/* pm_halo_exchange.h - private to the halo: the back-ends of pm_halo_exchange.c (the datatype
 * analysis, packing and the six ways to exchange), and the object they share with pm_halo.c
 * (construction, checks, begin/end, self-test). */
#ifndef PMESH_PM_HALO_EXCHANGE_H
#define PMESH_PM_HALO_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>

#include "pmesh/pm_halo.h"

enum { OP_NONE = 0, OP_UPDATE = 1, OP_ACCUMULATE = 2 };

/* Datatype and pack back-ends: one indexed datatype per neighbour and (type, bs). */
typedef struct dtype_entry {
  MPI_Datatype type;
  int bs;
  MPI_Datatype *exp; /* [n_neib] export items */
  MPI_Datatype *imp; /* [n_neib] import items; MPI_DATATYPE_NULL where the block is contiguous */
  struct dtype_entry *next;
} dtype_entry_t;

/* Persistent back-end: requests bound to packed buffers, per (operation, type, bs). */
typedef struct persist_entry {
  int op;
  MPI_Datatype type;
  int bs;
  char *sbuf, *rbuf;
  int n_req;
  MPI_Request *req;
  struct persist_entry *next;
} persist_entry_t;

struct pm_halo {
  MPI_Comm comm;  /* duplicate, MPI_ERRORS_RETURN */
  MPI_Comm graph; /* neighbor back-end: distributed graph over comm */
  int rank, size;
  pm_exchange_t kind;
  int n_neib, *neib;
  int *order; /* neighbour positions by ascending rank (sendrecv schedule) */
  int32_t n_internal, n_total;
  int32_t *import_index, *import_item, *export_index, *export_item;
  int *import_contig;  /* [n_neib]: 1 when neighbour k's externals are one ascending block */
  int import_identity; /* import_item[i] == N + i for every i */

  char *sbuf, *rbuf; /* buffers (isend, sendrecv, neighbor, pack; rbuf also datatype) */
  size_t sbuf_size, rbuf_size;
  MPI_Request *req;   /* [2 n_neib] */
  MPI_Status *status; /* [2 n_neib + 1] (MPI_STATUSES_IGNORE upsets GCC's -Wstringop-overflow) */
  int *counts;        /* neighbor: scounts, sdispls, rcounts, rdispls; pack: send, receive bytes */
  size_t *offsets;    /* pack: [2 n_neib] send, receive offsets of each neighbour's bytes */
  dtype_entry_t *dtypes;
  persist_entry_t *persist;

  /* the exchange in flight */
  int op;
  void *data;
  MPI_Datatype type;
  int bs;
  MPI_Aint extent; /* of type: the stride between items */
  size_t item;     /* bytes per node: bs * extent */
  int derived;     /* not a predefined datatype: nothing is cached under its handle */
  int dense;       /* the type's data fills its extent (memcpy copies exactly what MPI would) */
  int n_runs;      /* otherwise: the byte runs of one item that its typemap covers */
  MPI_Aint *runs;  /* [2 n_runs] offset, length */
  int runs_cap;
  int n_active;
  MPI_Request *active;
  char *arbuf;               /* the receive buffer of the exchange in flight */
  dtype_entry_t *adtype;     /* datatype, pack: the types in use */
  persist_entry_t *apersist; /* persistent: the requests in use */
  int owned;                 /* adtype / apersist were built for this exchange only (derived type) */
};

/* Begin checks what the exchange needs of `type` (committed, its data within its extent,
 * summable for accumulate) and records extent, item, dense and runs.  PM_ERR_ARG names the call
 * `what`.  Not collective. */
int pm_halo_type_layout(pm_halo_t *h, int op, MPI_Datatype type, int bs, const char *what);

/* The back-end halves of begin (sizes the buffers, posts the messages) and end (completes them,
 * unpacks or adds), once the checks are done.  Neighbour collective. */
int pm_halo_backend_begin(pm_halo_t *h, char *data);
int pm_halo_backend_end(pm_halo_t *h, char *data);

/* Free what the exchange in flight built for itself, and every cache.  Not collective. */
void pm_halo_backend_release(pm_halo_t *h);
void pm_halo_backend_free(pm_halo_t *h);

#endif
