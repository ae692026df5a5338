/* error.c — MPI error classes with a one-line, per-thread detail message. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "core.h"

static _Thread_local int last_code = MPI_SUCCESS;
static _Thread_local char last_msg[256];
static _Thread_local char generic_msg[MPI_MAX_ERROR_STRING + 64];

static const char *class_name(int cls) {
    switch (cls) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_TAG: return "MPI_ERR_TAG";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_RANK: return "MPI_ERR_RANK";
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT";
    case MPI_ERR_OP: return "MPI_ERR_OP";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
    case MPI_ERR_NO_MEM: return "MPI_ERR_NO_MEM";
    case MPI_ERR_INTERN: return "MPI_ERR_INTERN";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER";
    case MPI_ERR_UNSUPPORTED_OPERATION: return "MPI_ERR_UNSUPPORTED_OPERATION";
    default: return "MPI error";
    }
}

int papc_error(int cls, const char *fmt, ...) {
    va_list ap;
    int n = snprintf(last_msg, sizeof last_msg, "%s: ", class_name(cls));
    va_start(ap, fmt);
    vsnprintf(last_msg + n, sizeof last_msg - (size_t)n, fmt, ap);
    va_end(ap);
    last_code = cls;
    return cls;
}

int papc_mpi_error(int code, const char *where) {
    int cls = MPI_ERR_OTHER, len = 0;
    char text[MPI_MAX_ERROR_STRING];
    if (MPI_Error_class(code, &cls) != MPI_SUCCESS) cls = MPI_ERR_OTHER;
    if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) text[0] = '\0';
    return papc_error(cls, "%s (in %s)", text, where);
}

const char *papc_strerror(int err) {
    int len = 0;
    char text[MPI_MAX_ERROR_STRING];
    if (err == MPI_SUCCESS) return "MPI_SUCCESS: no error";
    if (err == last_code) return last_msg;
    if (MPI_Error_string(err, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "error %d", err);
    snprintf(generic_msg, sizeof generic_msg, "%s: %s", class_name(err), text);
    return generic_msg;
}
