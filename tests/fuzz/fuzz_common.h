/* fuzz_common.h — shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.c): mbkit's readers take
 * paths, so each input is put in an anonymous in-memory file (memfd) and read back through
 * /proc/self/fd/N: the real reader, its real fopen/gzopen, and no disk traffic per run.
 */
#ifndef MB_FUZZ_COMMON_H
#define MB_FUZZ_COMMON_H

#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* A file holding data[0..size); its path goes to path (>= 32 bytes). Returns the fd to close
 * (fuzz_close), -1 when no memfd could be made (the run is skipped). */
static inline int fuzz_file(const uint8_t *data, size_t size, char *path, size_t n)
{
    int fd = memfd_create("mbfuzz", 0);
    if (fd < 0)
        return -1;
    for (size_t off = 0; off < size;) {
        ssize_t k = write(fd, data + off, size - off);
        if (k <= 0) {
            close(fd);
            return -1;
        }
        off += (size_t)k;
    }
    snprintf(path, n, "/proc/self/fd/%d", fd);
    return fd;
}

static inline void fuzz_close(int fd)
{
    if (fd >= 0)
        close(fd);
}

/* Splits an input in two at the first "\n--\n" (IDX images and labels, a log and its points):
 * *a and *b point into data. Without the separator the whole input is a, b is empty. */
static inline void fuzz_split(const uint8_t *data, size_t size, const uint8_t **a, size_t *na,
                              const uint8_t **b, size_t *nb)
{
    for (size_t i = 0; i + 4 <= size; i++)
        if (data[i] == '\n' && data[i + 1] == '-' && data[i + 2] == '-' && data[i + 3] == '\n') {
            *a = data, *na = i, *b = data + i + 4, *nb = size - i - 4;
            return;
        }
    *a = data, *na = size, *b = data + size, *nb = 0;
}

#endif
