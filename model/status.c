/* status.c — mbkit's status codes and the caller-owned error record (mb_error).
 *
 * Formatting a message into the caller's buffer is the only work done here: no I/O, no
 * allocation, no global state.
 */
#include "mb_model.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#ifndef MB_VERSION
#define MB_VERSION "0.1.0"
#endif

const char *mb_strerror(int status)
{
    switch (status) {
    case MB_OK: return "success";
    case MB_EINVAL: return "invalid argument";
    case MB_EDOM: return "value outside the model's domain";
    case MB_ENOMEM: return "out of memory";
    case MB_EIO: return "input/output error";
    case MB_EFORMAT: return "malformed input";
    case MB_ENOCONV: return "did not converge";
    case MB_ENOTSUP: return "not supported";
    case MB_EDEVICE: return "device error";
    case MB_EMPI: return "MPI error";
    case MB_ESOLVER: return "solver error";
    case MB_ENODATA: return "not enough data";
    case MB_EUSAGE: return "usage error";
    }
    return "unknown error";
}

void mb_error_one_line(char *msg, size_t size)
{
    char in[1024];
    if (size == 0)
        return;
    snprintf(in, sizeof in, "%s", msg);
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p && k + 1 < size; p++) {
        char esc[8] = "";
        if (*p == '\n' || *p == '\r' || *p == '\t')
            snprintf(esc, sizeof esc, "\\%c", *p == '\n' ? 'n' : *p == '\r' ? 'r' : 't');
        else if (*p < 0x20 || *p == 0x7f)
            snprintf(esc, sizeof esc, "\\x%02x", *p);
        if (!*esc) {
            msg[k++] = (char)*p;
            continue;
        }
        size_t n = strlen(esc);
        if (k + n + 1 > size)
            break;
        memcpy(msg + k, esc, n);
        k += n;
    }
    msg[k] = '\0';
}

int mb_error_set(mb_error *err, int status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->status = status;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        mb_error_one_line(err->msg, sizeof err->msg); /* a file name or value with a newline */
    }
    return status;
}

void mb_error_clear(mb_error *err)
{
    if (err) {
        err->status = MB_OK;
        err->msg[0] = '\0';
    }
}

const char *mb_version(void) { return MB_VERSION; }
