/* cli.h — number parsing shared by the tools' command lines (header only:
 * each tool is one executable).  Each returns 0, or -1 when s is not a
 * whole number in range, leaving *out unchanged. */
#ifndef PAPC_TOOLS_CLI_H
#define PAPC_TOOLS_CLI_H
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

/* An int >= min. */
static inline int papc_cli_int(const char *s, int min, int *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < min || v > INT_MAX) return -1;
    *out = (int)v;
    return 0;
}

/* A finite double, the whole string. */
static inline int papc_cli_double(const char *s, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v)) return -1;
    *out = v;
    return 0;
}
#endif
