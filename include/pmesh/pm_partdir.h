/* pm_partdir.h - writing a partition directory (DIR/local.R, DIR/partition.meta) so that readers
 * never see half of one: the files go to a temporary directory beside DIR ("DIR.tmp.PID"), which
 * replaces DIR in one rename when complete.  The previous partition is kept if anything fails.
 * A directory is only replaced when it holds nothing but a partition's files, so a mistyped
 * output path cannot wipe a user's directory.  Local meshes are written on a second thread, so
 * the caller can build the next rank's mesh meanwhile; each file is written from a finished local
 * mesh by one thread, so its bytes do not depend on the timing. */
#ifndef PMESH_PM_PARTDIR_H
#define PMESH_PM_PARTDIR_H

#include "pmesh/pm_export.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pm_partdir pm_partdir_t;

/** Whether `dir` may be replaced by a partition: it does not exist, or it is a directory holding
 *  only files a partition run writes (PM_ERR_IO naming the first foreign file otherwise).
 *  Not collective. */
PM_EXTERN int pm_partdir_check(const char *dir);

/** Start writing the partition that will replace `dir` (checked with pm_partdir_check): creates
 *  the temporary directory.  Not collective. */
PM_EXTERN int pm_partdir_create(const char *dir, pm_partdir_t **pd);

/** The temporary directory the files go to (for other files that belong beside them).  Not
 *  collective. */
PM_EXTERN const char *pm_partdir_tmp(const pm_partdir_t *pd);

/** Write rank r's local mesh as local.r, on the writer thread (or in this thread if no thread
 *  can be started).  Takes the local mesh (*local becomes NULL).  Waits for the previous file
 *  first and returns its error, if any.  Not collective. */
PM_EXTERN int pm_partdir_write_local(pm_partdir_t *pd, int rank, pm_local_t **local);

/** Wait for the local file being written, then write the metadata.  Not collective. */
PM_EXTERN int pm_partdir_write_meta(pm_partdir_t *pd, const pm_meta_t *meta);

/** Wait for the writes and swap the directory into place (the previous one is moved aside and
 *  removed).  Not collective. */
PM_EXTERN int pm_partdir_commit(pm_partdir_t *pd);

/** After a commit: the previous directory if it could not be removed (the caller may warn), else
 *  NULL.  Not collective. */
PM_EXTERN const char *pm_partdir_leftover(const pm_partdir_t *pd);

/** Wait for the writer; without a commit, remove the temporary directory (the previous partition
 *  stays).  NULL-safe, sets *pd to NULL.  Not collective. */
PM_EXTERN void pm_partdir_destroy(pm_partdir_t **pd);

#ifdef __cplusplus
}
#endif
#endif
