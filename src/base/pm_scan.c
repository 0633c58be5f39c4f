/* pm_scan.c - streaming scanner: a fixed window over a FILE, tokens, numbers, lines. */
#include "pm_scan.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pmesh/pm_error.h"

/* The window size may be shrunk at compile time (the fuzzer uses a few KiB, which also drives
 * the refill paths with small inputs); a token or line may use up to 1/16 of it. */
#ifndef PM_SCAN_WINDOW_BYTES
#define PM_SCAN_WINDOW_BYTES (1 << 20)
#endif
enum { PM_SCAN_WINDOW = PM_SCAN_WINDOW_BYTES, PM_SCAN_MAXTOK = PM_SCAN_WINDOW_BYTES / 16 };

uint64_t pm_fnv1a(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

int pm_scan_open(pm_scan_t *s, const char *path) {
  memset(s, 0, sizeof *s);
  s->hash = PM_FNV_OFFSET;
  s->line = 1;
  struct stat st;
  PM_CHECK(stat(path, &st) == 0, PM_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  PM_CHECK(!S_ISDIR(st.st_mode), PM_ERR_IO, "%s: is a directory, expected a file", path);
  size_t plen = strlen(path);
  PM_CALL(PM_MALLOC(s->path, plen + 1, "file name"));
  memcpy(s->path, path, plen + 1);
  s->fp = fopen(path, "rb");
  if (!s->fp) {
    int e = errno;
    pm_scan_close(s);
    return pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "%s: cannot open: %s", path, strerror(e));
  }
  s->size = (int64_t)st.st_size;
  if (PM_MALLOC(s->buf, PM_SCAN_WINDOW + 1, "read buffer")) {
    pm_scan_close(s);
    return PM_ERR_MEMORY;
  }
  s->cap = PM_SCAN_WINDOW;
  s->buf[0] = '\0';
  if (S_ISREG(st.st_mode) && st.st_size == 0) {
    pm_scan_close(s);
    return pm_error_set(PM_ERR_FORMAT, __FILE__, __LINE__, "%s: the file is empty", path);
  }
  return PM_OK;
}

void pm_scan_close(pm_scan_t *s) {
  if (s->fp) fclose(s->fp);
  free(s->buf);
  free(s->path);
  s->fp = NULL;
  s->buf = NULL;
  s->path = NULL;
}

/* Make at least `need` unread bytes available (fewer only at end of file). */
static int pm_scan_fill(pm_scan_t *s, size_t need) {
  if (s->len - s->pos >= need || s->eof) return PM_OK;
  size_t keep = s->len - s->pos;
  memmove(s->buf, s->buf + s->pos, keep);
  s->base += (int64_t)s->pos;
  s->pos = 0;
  s->len = keep;
  while (s->len < s->cap && !s->eof) {
    size_t got = fread(s->buf + s->len, 1, s->cap - s->len, s->fp);
    if (got == 0) {
      if (ferror(s->fp))
        return pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "%s: read error at byte %lld: %s", s->path,
                            (long long)(s->base + (int64_t)s->len), strerror(errno));
      s->eof = 1;
    }
    s->hash = pm_fnv1a(s->hash, s->buf + s->len, got);
    s->len += got;
    if (s->len - s->pos >= need) break;
  }
  s->buf[s->len] = '\0';
  return PM_OK;
}

static int pm_is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

int pm_scan_token(pm_scan_t *s, const char **tok, size_t *len) {
  *tok = NULL;
  *len = 0;
  for (;;) {
    while (s->pos < s->len && pm_is_space(s->buf[s->pos])) {
      if (s->buf[s->pos] == '\n') s->line++;
      s->pos++;
    }
    if (s->pos < s->len) break;
    PM_CALL(pm_scan_fill(s, PM_SCAN_MAXTOK));
    if (s->pos >= s->len) {
      s->tok[0] = '\0';
      return PM_OK; /* end of file */
    }
  }
  PM_CALL(pm_scan_fill(s, PM_SCAN_MAXTOK));
  size_t b = s->pos, e = b;
  while (e < s->len && !pm_is_space(s->buf[e]) && s->buf[e] != '\0') e++;
  if (e < s->len && s->buf[e] == '\0') return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "unexpected NUL byte in a text section");
  if (e == s->len && !s->eof) return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "a token longer than %d bytes", PM_SCAN_MAXTOK);
  s->pos = e;
  *tok = s->buf + b;
  *len = e - b;
  size_t n = *len < sizeof s->tok - 1 ? *len : sizeof s->tok - 1;
  memcpy(s->tok, *tok, n);
  s->tok[n] = '\0';
  return PM_OK;
}

int pm_scan_int64(pm_scan_t *s, int64_t lo, int64_t hi, const char *what, int64_t *v) {
  const char *t;
  size_t n;
  PM_CALL(pm_scan_token(s, &t, &n));
  if (!t) return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "expected %s, found the end of the file", what);
  size_t i = 0;
  int neg = 0;
  if (t[0] == '-' || t[0] == '+') {
    neg = t[0] == '-';
    i = 1;
  }
  if (i == n) return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "expected %s (an integer), found '%s'", what, s->tok);
  uint64_t acc = 0;
  for (; i < n; i++) {
    unsigned d = (unsigned)(t[i] - '0');
    if (d > 9) return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "expected %s (an integer), found '%s'", what, s->tok);
    if (acc > (UINT64_C(1) << 63) / 10) return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "%s '%s' is out of range", what, s->tok);
    acc = acc * 10 + d;
    if (acc > (UINT64_C(1) << 63)) return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "%s '%s' is out of range", what, s->tok);
  }
  if (!neg && acc > (uint64_t)INT64_MAX) return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "%s '%s' is out of range", what, s->tok);
  int64_t x = neg ? (int64_t)(0 - acc) : (int64_t)acc;
  if (x < lo || x > hi)
    return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "%s must be in [%lld, %lld], found %lld", what, (long long)lo, (long long)hi,
                        (long long)x);
  *v = x;
  return PM_OK;
}

int pm_scan_double(pm_scan_t *s, const char *what, double *v) {
  const char *t;
  size_t n;
  PM_CALL(pm_scan_token(s, &t, &n));
  if (!t) return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "expected %s, found the end of the file", what);
  char *end;
  errno = 0;
  double x = strtod(t, &end); /* stops at the whitespace or the sentinel after the token */
  if (end != t + n) return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "expected %s (a number), found '%s'", what, s->tok);
  if (!isfinite(x)) return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "%s is not finite: '%s'", what, s->tok);
  *v = x;
  return PM_OK;
}

int pm_scan_expect(pm_scan_t *s, const char *word) {
  const char *t;
  size_t n;
  PM_CALL(pm_scan_token(s, &t, &n));
  if (!t) return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "expected '%s', found the end of the file", word);
  if (n != strlen(word) || memcmp(t, word, n) != 0)
    return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "expected '%s', found '%s'", word, s->tok);
  return PM_OK;
}

int pm_scan_line(pm_scan_t *s, const char **line, size_t *len) {
  PM_CALL(pm_scan_fill(s, PM_SCAN_MAXTOK));
  size_t b = s->pos, e = b;
  while (e < s->len && s->buf[e] != '\n') e++;
  if (e == s->len && !s->eof) return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "a line longer than %d bytes", PM_SCAN_MAXTOK);
  s->pos = e < s->len ? e + 1 : e;
  if (e < s->len) s->line++;
  size_t n = e - b;
  if (n > 0 && s->buf[b + n - 1] == '\r') n--;
  *line = s->buf + b;
  *len = n;
  return PM_OK;
}

int pm_scan_bytes(pm_scan_t *s, void *dst, size_t n, const char *what) {
  char *d = dst;
  while (n > 0) {
    if (s->pos == s->len) {
      PM_CALL(pm_scan_fill(s, 1));
      if (s->pos == s->len) return PM_SCAN_FAIL_AT(s, PM_ERR_FORMAT, "the file ends inside %s", what);
    }
    size_t k = s->len - s->pos < n ? s->len - s->pos : n;
    memcpy(d, s->buf + s->pos, k);
    if (!s->offsets)
      for (size_t i = 0; i < k; i++) s->line += d[i] == '\n';
    s->pos += k;
    d += k;
    n -= k;
  }
  return PM_OK;
}

int pm_scan_skip_to(pm_scan_t *s, const char *marker) {
  size_t m = strlen(marker);
  /* At buf[0] the previous byte is gone unless this is the start of the file. */
  int at_line_start = s->pos > 0 ? s->buf[s->pos - 1] == '\n' : s->base == 0;
  for (;;) {
    PM_CALL(pm_scan_fill(s, m + 2));
    if (s->pos >= s->len) return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "the file ends before '%s'", marker);
    if (!at_line_start) { /* jump to the next line (skipped sections can be large) */
      const char *nl = memchr(s->buf + s->pos, '\n', s->len - s->pos);
      if (!nl) {
        s->pos = s->len;
        continue;
      }
      s->pos = (size_t)(nl - s->buf) + 1;
      s->line++;
      at_line_start = 1;
      continue;
    }
    if (at_line_start && s->len - s->pos >= m && memcmp(s->buf + s->pos, marker, m) == 0) {
      const char *l;
      size_t n;
      return pm_scan_line(s, &l, &n);
    }
    char c = s->buf[s->pos++];
    if (c == '\n') s->line++;
    at_line_start = c == '\n';
  }
}

int pm_scan_finish(pm_scan_t *s) {
  while (!s->eof) {
    s->pos = s->len;
    PM_CALL(pm_scan_fill(s, s->cap));
  }
  s->pos = s->len;
  return PM_OK;
}

int64_t pm_scan_remaining(const pm_scan_t *s) {
  return s->size - pm_scan_offset(s);
}

static int pm_scan_verror(pm_scan_t *s, int code, const char *file, int line, int at, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 0)))
#endif
    ;
static int pm_scan_verror(pm_scan_t *s, int code, const char *file, int line, int at, const char *fmt, va_list ap) {
  char msg[1536];
  vsnprintf(msg, sizeof msg, fmt, ap);
  if (at || s->offsets)
    return pm_error_set(code, file, line, "%s: byte offset %lld: %s", s->path, (long long)pm_scan_offset(s), msg);
  return pm_error_set(code, file, line, "%s:%lld: %s", s->path, (long long)s->line, msg);
}

int pm_scan_error(pm_scan_t *s, int code, const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = pm_scan_verror(s, code, file, line, 0, fmt, ap);
  va_end(ap);
  return r;
}

int pm_scan_error_at(pm_scan_t *s, int code, const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = pm_scan_verror(s, code, file, line, 1, fmt, ap);
  va_end(ap);
  return r;
}
