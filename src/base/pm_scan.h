/* pm_scan.h - private streaming scanner for pmesh's text and binary readers.
 *
 * Reads a file through a fixed window (no whole-file buffer), so memory stays constant and
 * time linear.  Tracks the line number (text) and byte offset (binary) for error messages
 * and an FNV-1a 64 checksum of every byte of the file. */
#ifndef PMESH_PM_SCAN_H
#define PMESH_PM_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct pm_scan {
  FILE *fp;
  char *path;    /* owned copy, for messages */
  char *buf;     /* window; buf[len] is always '\0' */
  size_t cap;    /* allocated bytes of buf minus the sentinel */
  size_t len;    /* valid bytes in buf */
  size_t pos;    /* next unread byte in buf */
  int64_t base;  /* file offset of buf[0] */
  int64_t line;  /* line number of buf[pos] (1-based) */
  int64_t size;  /* file size in bytes */
  int eof;       /* no more bytes to read from fp */
  uint64_t hash; /* FNV-1a 64 of all bytes read so far */
  int offsets;   /* set by binary readers: messages give byte offsets, not lines */
  char tok[128]; /* copy of the last token, for messages */
} pm_scan_t;

/** Open `path` for scanning.  Fails with a message for a missing, unreadable or directory path,
 *  or an empty file.  Not collective. */
int pm_scan_open(pm_scan_t *s, const char *path);
/** Close; safe on a zeroed or already closed scanner. */
void pm_scan_close(pm_scan_t *s);

/** Next whitespace-separated token (valid until the next call); *tok = NULL, *len = 0 at end. */
int pm_scan_token(pm_scan_t *s, const char **tok, size_t *len);
/** Next token as a decimal integer in [lo, hi]; `what` names it in messages. */
int pm_scan_int64(pm_scan_t *s, int64_t lo, int64_t hi, const char *what, int64_t *v);
/** Next token as a finite double. */
int pm_scan_double(pm_scan_t *s, const char *what, double *v);
/** Next token must be exactly `word`. */
int pm_scan_expect(pm_scan_t *s, const char *word);
/** The rest of the current line (without the newline, trailing '\r' stripped); valid until the
 *  next call.  Moves to the start of the next line. */
int pm_scan_line(pm_scan_t *s, const char **line, size_t *len);
/** Copy n raw bytes (binary sections).  Counts newlines in them only when !s->offsets. */
int pm_scan_bytes(pm_scan_t *s, void *dst, size_t n, const char *what);
/** Skip to just after the next line that begins with `marker` (e.g. "$EndNodeData"). */
int pm_scan_skip_to(pm_scan_t *s, const char *marker);
/** Read the rest of the file so that s->hash covers all of it. */
int pm_scan_finish(pm_scan_t *s);
/** Bytes of the file not read yet (for checking counts against the file size). */
int64_t pm_scan_remaining(const pm_scan_t *s);
/** Current byte offset in the file. */
static inline int64_t pm_scan_offset(const pm_scan_t *s) {
  return s->base + (int64_t)s->pos;
}

/** Record a message with `code` prefixed with "path:line: " (text), or with the byte offset when
 *  s->offsets is set -- returns the code. */
int pm_scan_error(pm_scan_t *s, int code, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/** Same, prefixed with "path: byte offset N: " (binary data). */
int pm_scan_error_at(pm_scan_t *s, int code, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
#define PM_SCAN_FAIL(s, code, ...) pm_scan_error((s), (code), __FILE__, __LINE__, __VA_ARGS__)
#define PM_SCAN_FAIL_AT(s, code, ...) pm_scan_error_at((s), (code), __FILE__, __LINE__, __VA_ARGS__)

/** FNV-1a 64 of a buffer, continuing from `h` (start with PM_FNV_OFFSET). */
#define PM_FNV_OFFSET 0xcbf29ce484222325ULL
uint64_t pm_fnv1a(uint64_t h, const void *data, size_t n);

#endif
