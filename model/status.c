/* status.c — mbkit's status codes and the caller-owned error record (mb_error).
 *
 * Formatting a message into the caller's buffer is the only work done here: no I/O, no global
 * state (a message longer than a page is formatted in a temporary block first, so that a value
 * it echoes can be cut short and what follows it kept).
 */
#include "mb_model.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

/* src into dst (size bytes) with every word (a run without spaces) longer than MB_WORD_MAX
 * cut to its first MB_WORD_KEEP bytes, "...", and its closing quote or punctuation: a value a
 * message echoes (a field of 100,000 digits) would fill the line and push out what it says
 * (campaign 17's M4). Paths (a word with a '/') and values of ordinary length are whole. */
enum { MB_WORD_MAX = 120, MB_WORD_KEEP = 40 };
static void cut_words(const char *src, char *dst, size_t size)
{
    size_t out = 0;
    while (*src && out + 1 < size) {
        size_t w = strcspn(src, " ");
        int path = memchr(src, '/', w) != NULL; /* a file is named whole */
        size_t keep = w > MB_WORD_MAX && !path ? MB_WORD_KEEP : w;
        for (size_t i = 0; i < keep && out + 1 < size; i++)
            dst[out++] = src[i];
        if (keep < w) {
            char tail[8];
            int t = snprintf(tail, sizeof tail, "...%s",
                             strchr("'\",:;)]", src[w - 1]) ? (char[]){src[w - 1], 0} : "");
            for (int i = 0; i < t && out + 1 < size; i++)
                dst[out++] = tail[i];
        }
        src += w;
        while (*src == ' ' && out + 1 < size)
            dst[out++] = *src++;
    }
    dst[out] = '\0';
}

void mb_error_vformat(char *dst, size_t size, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    char page[4096];
    int need = vsnprintf(page, sizeof page, fmt, ap);
    char *full = need >= (int)sizeof page ? malloc((size_t)need + 1) : NULL;
    if (full)
        vsnprintf(full, (size_t)need + 1, fmt, aq);
    va_end(aq);
    cut_words(full ? full : page, dst, size);
    free(full);
    mb_error_one_line(dst, size); /* a file name or value with a newline */
}

int mb_error_set(mb_error *err, int status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->status = status;
        mb_error_vformat(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
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
