/* file.c — whole-file input, atomic output files, and the metadata lines every mbkit output
 * starts with.
 *
 * A file is written under a temporary name in its final folder (so rename stays on one file
 * system) and renamed into place only after every byte reached the disk cache without error.
 */
#include "mb_data.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int mb_data_read_file(const char *path, char **buf, size_t *len, mb_error *err)
{
    *buf = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return mb_error_set(err, MB_EIO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    while (b) {
        n += fread(b + n, 1, cap - n - 1, f);
        if (n < cap - 1 || ferror(f))
            break;
        char *nb = realloc(b, 2 * cap);
        if (!nb)
            free(b);
        b = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!b)
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
    if (bad) {
        free(b);
        return mb_error_set(err, MB_EIO, "%s: read error", path);
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return MB_OK;
}

int mb_out_open(mb_out *o, const char *path, mb_error *err)
{
    memset(o, 0, sizeof *o);
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return MB_OK;
    }
    size_t n = strlen(path);
    o->path = malloc(n + 1);
    o->tmp = malloc(n + 16);
    if (!o->path || !o->tmp) {
        mb_out_abort(o);
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
    }
    memcpy(o->path, path, n + 1);
    snprintf(o->tmp, n + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        mb_out_abort(o);
        return mb_error_set(err, MB_EIO, "%s: cannot write: %s", path, strerror(e));
    }
    mb_data_default_mode(fd);
    o->f = fdopen(fd, "w");
    if (!o->f) {
        close(fd);
        mb_out_abort(o);
        return mb_error_set(err, MB_EIO, "%s: cannot write", path);
    }
    return MB_OK;
}

int mb_out_commit(mb_out *o, mb_error *err)
{
    if (o->f == stdout) {
        o->f = NULL;
        if (fflush(stdout) != 0 || ferror(stdout))
            return mb_error_set(err, MB_EIO, "standard output: write error");
        return MB_OK;
    }
    if (!o->f)
        return mb_error_set(err, MB_EIO, "output already closed");
    int bad = ferror(o->f) != 0;
    bad |= fclose(o->f) != 0;
    o->f = NULL;
    if (bad || rename(o->tmp, o->path) != 0) {
        int e = errno;
        char path[512];
        snprintf(path, sizeof path, "%s", o->path);
        mb_out_abort(o);
        return mb_error_set(err, MB_EIO, "%s: write failed: %s", path, strerror(e));
    }
    free(o->tmp);
    free(o->path);
    o->tmp = o->path = NULL;
    return MB_OK;
}

void mb_out_abort(mb_out *o)
{
    if (o->f && o->f != stdout)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp)
        remove(o->tmp);
    free(o->tmp);
    free(o->path);
    o->tmp = o->path = NULL;
}

void mb_data_default_mode(int fd)
{
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0) {
        /* the file stays private; nothing is lost but its readability to others */
    }
}

void mb_data_write_common_meta(FILE *f, const char *tool, int argc, char **argv)
{
    char host[256] = "unknown";
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "unknown");
    host[sizeof host - 1] = '\0';
    char date[64] = "";
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(f, "# tool=%s\n# version=%s\n# host=%s\n# date=%s\n# command=", tool, mb_version(),
            host, date);
    for (int i = 0; i < argc; i++)
        fprintf(f, "%s%s", i ? " " : "", argv[i]);
    fputc('\n', f);
}
