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

/* The bytes that stand for c in a one-line message: c itself, or \n, \r, \t, \xHH. */
static size_t escape(unsigned char c, char out[5])
{
    if (c == '\n' || c == '\r' || c == '\t')
        return (size_t)snprintf(out, 5, "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
    if (c < 0x20 || c == 0x7f)
        return (size_t)snprintf(out, 5, "\\x%02x", c);
    out[0] = (char)c;
    return 1;
}

/* In place, from the end: the escaped text of msg[0..i) is at least i bytes long, so each byte
 * is read before anything is written over it. No copy, so no length limit but size. */
void mb_error_one_line(char *msg, size_t size)
{
    if (size == 0)
        return;
    char esc[5];
    size_t len = strnlen(msg, size - 1), n = 0, out = 0;
    for (; n < len; n++) { /* the bytes that fit escaped, and their escaped length */
        size_t w = escape((unsigned char)msg[n], esc);
        if (out + w + 1 > size)
            break;
        out += w;
    }
    msg[out] = '\0';
    for (size_t i = n; i-- > 0;) {
        size_t w = escape((unsigned char)msg[i], esc);
        out -= w;
        memcpy(msg + out, esc, w);
    }
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
