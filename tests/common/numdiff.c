/* numdiff - compare two text files token by token; numbers may differ by a tolerance.
 *
 *   numdiff RTOL ATOL FILE1 FILE2
 *
 * Numbers a, b match when |a - b| <= ATOL + RTOL * max(|a|, |b|); other tokens must be equal.
 * Prints the first mismatch (line and token) and the largest differences; exit 0 on a match. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int next_token(FILE *fp, char *buf, size_t size, long *line) {
  int c;
  while ((c = fgetc(fp)) != EOF && (c == ' ' || c == '\t' || c == '\n' || c == '\r'))
    if (c == '\n') (*line)++;
  if (c == EOF) return 0;
  size_t n = 0;
  do {
    if (n + 1 < size) buf[n++] = (char)c;
  } while ((c = fgetc(fp)) != EOF && c != ' ' && c != '\t' && c != '\n' && c != '\r');
  if (c == '\n') ungetc(c, fp);
  buf[n] = '\0';
  return 1;
}

static int number(const char *s, double *v) {
  char *end;
  *v = strtod(s, &end);
  return end != s && *end == '\0';
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: numdiff RTOL ATOL FILE1 FILE2\n");
    return 2;
  }
  double rtol = atof(argv[1]), atol = atof(argv[2]), maxabs = 0, maxrel = 0;
  FILE *a = fopen(argv[3], "r"), *b = fopen(argv[4], "r");
  if (!a || !b) {
    fprintf(stderr, "numdiff: cannot open %s\n", !a ? argv[3] : argv[4]);
    return 2;
  }
  char ta[256], tb[256];
  long la = 1, lb = 1, count = 0;
  int bad = 0;
  for (;;) {
    int ha = next_token(a, ta, sizeof ta, &la), hb = next_token(b, tb, sizeof tb, &lb);
    if (!ha && !hb) break;
    if (ha != hb) {
      fprintf(stderr, "numdiff: %s ends first (line %ld)\n", ha ? argv[4] : argv[3], ha ? lb : la);
      return 1;
    }
    count++;
    double x, y;
    if (number(ta, &x) && number(tb, &y)) {
      double d = fabs(x - y), m = fmax(fabs(x), fabs(y));
      if (d > maxabs) maxabs = d;
      if (m > 0 && d / m > maxrel) maxrel = d / m;
      if (!(d <= atol + rtol * m) && !bad) {
        fprintf(stderr, "numdiff: line %ld/%ld: %s vs %s differ by %.3e (rtol %.1e, atol %.1e)\n", la, lb, ta, tb, d,
                rtol, atol);
        bad = 1;
      }
    } else if (strcmp(ta, tb) != 0 && !bad) {
      fprintf(stderr, "numdiff: line %ld/%ld: '%s' vs '%s'\n", la, lb, ta, tb);
      bad = 1;
    }
  }
  printf("numdiff: %ld tokens, max abs diff %.3e, max rel diff %.3e: %s\n", count, maxabs, maxrel,
         bad ? "DIFFERENT" : "match");
  return bad;
}
