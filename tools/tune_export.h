/* tune_export.h — papc-tune's exports to Open MPI's dynamic rules file and
 * MPICH's csel JSON (issue 12, item 6).  TEMPORARY STUB so that papc-tune
 * builds: the export helper (branch issue12-export) replaces this file.
 * Both return 0, or -1 with a one-line message in err; they read the
 * profile papcoll has loaded (papc_profile_load) through papc_explain. */
#ifndef PAPC_TOOLS_TUNE_EXPORT_H
#define PAPC_TOOLS_TUNE_EXPORT_H
#include <stddef.h>
#include <stdio.h>

static int tune_export_ompi(const char *path, int pmin, int pmax, char *err,
                            size_t errlen) {
    (void)pmin;
    (void)pmax;
    snprintf(err, errlen, "%s: the Open MPI export is not yet built", path);
    return -1;
}

static int tune_export_mpich(const char *path, int pmin, int pmax, char *err,
                             size_t errlen) {
    (void)pmin;
    (void)pmax;
    snprintf(err, errlen, "%s: the MPICH export is not yet built", path);
    return -1;
}
#endif
