/* pm_partdir.c - a partition directory written beside the old one and swapped in when complete,
 * with the local files written on a second thread. */
#define _POSIX_C_SOURCE 200809L
#include "pmesh/pm_partdir.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmesh/pm_error.h"

enum { PATH_MAX_ = 4400 };

struct pm_partdir {
  char dir[PATH_MAX_], tmp[PATH_MAX_ + 64], old[PATH_MAX_ + 64];
  int committed, left_old;
  /* the writer thread */
  pthread_t th;
  int running;
  pm_local_t *local; /* owned while running */
  char path[PATH_MAX_ + 128];
  int ierr;
};

/* Files a partition run may have left in a directory; anything else means it is not ours. */
static int is_ours(const char *name) {
  if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strcmp(name, "partition.meta") == 0) return 1;
  if (strncmp(name, "local.", 6) == 0) {
    const char *p = name + 6;
    if (!*p) return 0;
    while (*p >= '0' && *p <= '9') p++;
    return *p == '\0' || strncmp(p, ".tmp.", 5) == 0;
  }
  return strncmp(name, "partition.meta.tmp.", 19) == 0;
}

/* Remove a directory that holds only a partition's files. */
static int remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  struct dirent *de;
  char path[PATH_MAX_ + 300];
  int rc = 0;
  while ((de = readdir(d))) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
    if (!is_ours(de->d_name)) {
      rc = -1;
      continue;
    }
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    if (remove(path) != 0) rc = -1;
  }
  closedir(d);
  if (rmdir(dir) != 0) rc = -1;
  return rc;
}

int pm_partdir_check(const char *dir) {
  struct stat sb;
  if (stat(dir, &sb) != 0) {
    PM_CHECK(errno == ENOENT, PM_ERR_IO, "%s: %s", dir, strerror(errno));
    return PM_OK;
  }
  PM_CHECK(S_ISDIR(sb.st_mode), PM_ERR_IO,
           "%s: exists and is not a directory; choose another output directory for the partition", dir);
  DIR *d = opendir(dir);
  PM_CHECK(d, PM_ERR_IO, "%s: cannot read: %s", dir, strerror(errno));
  struct dirent *de;
  int ierr = PM_OK;
  while ((de = readdir(d)))
    if (!is_ours(de->d_name)) {
      ierr = pm_error_set(PM_ERR_IO, __FILE__, __LINE__,
                          "%s: the directory holds '%s', which partition did not write; only partition directories "
                          "are replaced: choose another output directory or empty it",
                          dir, de->d_name);
      break;
    }
  closedir(d);
  return ierr;
}

int pm_partdir_create(const char *dir, pm_partdir_t **pd) {
  *pd = NULL;
  PM_CHECK(strlen(dir) + 64 < PATH_MAX_, PM_ERR_ARG, "partition directory path too long: %s", dir);
  PM_CALL(pm_partdir_check(dir));
  pm_partdir_t *p = NULL;
  PM_CALL(PM_CALLOC(p, 1, "partition directory"));
  snprintf(p->dir, sizeof p->dir, "%s", dir);
  snprintf(p->tmp, sizeof p->tmp, "%s.tmp.%ld", dir, (long)getpid());
  if (mkdir(p->tmp, 0777) != 0) {
    int ierr = pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "%s: cannot create directory: %s", p->tmp, strerror(errno));
    free(p);
    return ierr;
  }
  *pd = p;
  return PM_OK;
}

const char *pm_partdir_tmp(const pm_partdir_t *pd) {
  return pd->tmp;
}

static void *writer_main(void *arg) {
  pm_partdir_t *p = arg;
  p->ierr = pm_local_write(p->local, p->path);
  return NULL;
}

/* Wait for the file being written (if any); its error code. */
static int writer_wait(pm_partdir_t *p) {
  if (!p->running) return PM_OK;
  pthread_join(p->th, NULL);
  p->running = 0;
  pm_local_destroy(&p->local);
  return p->ierr;
}

int pm_partdir_write_local(pm_partdir_t *pd, int rank, pm_local_t **local) {
  PM_CALL(writer_wait(pd));
  PM_CHECK(!pd->committed, PM_ERR_ARG, "%s: the partition was committed already", pd->dir);
  PM_CALL(pm_local_path(pd->tmp, rank, pd->path, sizeof pd->path));
  pd->local = *local;
  *local = NULL;
  pd->ierr = PM_OK;
  if (pthread_create(&pd->th, NULL, writer_main, pd) == 0) {
    pd->running = 1;
    return PM_OK;
  }
  writer_main(pd);
  pm_local_destroy(&pd->local);
  return pd->ierr;
}

int pm_partdir_write_meta(pm_partdir_t *pd, const pm_meta_t *meta) {
  char path[PATH_MAX_ + 128];
  PM_CALL(writer_wait(pd));
  PM_CALL(pm_meta_path(pd->tmp, path, sizeof path));
  return pm_meta_write(meta, path);
}

int pm_partdir_commit(pm_partdir_t *pd) {
  PM_CALL(writer_wait(pd));
  struct stat sb;
  if (stat(pd->dir, &sb) == 0) {
    snprintf(pd->old, sizeof pd->old, "%s.old.%ld", pd->dir, (long)getpid());
    PM_CHECK(rename(pd->dir, pd->old) == 0, PM_ERR_IO, "%s: cannot move the previous partition aside: %s", pd->dir,
             strerror(errno));
    if (rename(pd->tmp, pd->dir) != 0) {
      int e = errno;
      rename(pd->old, pd->dir);
      return pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "%s: cannot move the new partition into place: %s", pd->dir,
                          strerror(e));
    }
    pd->committed = 1;
    pd->left_old = remove_dir(pd->old) != 0;
  } else {
    PM_CHECK(rename(pd->tmp, pd->dir) == 0, PM_ERR_IO, "%s: cannot move the partition into place: %s", pd->dir,
             strerror(errno));
    pd->committed = 1;
  }
  return PM_OK;
}

const char *pm_partdir_leftover(const pm_partdir_t *pd) {
  return pd->left_old ? pd->old : NULL;
}

void pm_partdir_destroy(pm_partdir_t **pd) {
  if (!pd || !*pd) return;
  pm_partdir_t *p = *pd;
  writer_wait(p); /* before its directory is removed */
  if (!p->committed) remove_dir(p->tmp);
  free(p);
  *pd = NULL;
}
