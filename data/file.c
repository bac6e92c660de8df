/* file.c — whole-file input, the one output writer every command uses, and the metadata lines
 * every mbkit output starts with.
 *
 * Output (mb_out): a regular file, or a path that does not exist yet, is written under a
 * temporary name in its final folder (so rename stays on one file system) and renamed into
 * place only after every byte reached the file without error: no reader ever sees half a file.
 * Anything else that already exists at the path (a device such as /dev/null, a FIFO, a socket)
 * and "-" (standard output) is written directly and never renamed over: replacing /dev/null
 * with a regular file, as root may, breaks the system. Either way every write and close error
 * is an MB_EIO message naming the path.
 *
 * Temporary names carry the writing process's id ("PATH.tmp.PID.XXXXXX"): a write killed
 * half-way (kill -9, a crash, a power cut) leaves its temporary behind, and the next write to
 * the same path removes every temporary of it whose process is gone.
 *
 * Standard output is checked at exit as well (GNU's close_stdout): text a command printf'd
 * and never flushed fails only when the process exits, and a command must not exit 0 then.
 */
#define _GNU_SOURCE /* program_invocation_short_name, for the exit-time message */
#include "mb_data.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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

/* ---- standard output, checked at exit ------------------------------------------------------ */

/* Set once an error on standard output has been reported (by mb_out_commit), so that the exit
 * check does not say it twice. Standard output is itself process-wide state; this flag only
 * remembers what was said about it. */
static int stdout_reported;

int mb_cli_exit(int status)
{
    int bad = ferror(stdout) != 0;
    errno = 0;
    bad |= fclose(stdout) != 0;
    if (!bad)
        return status;
    if (!stdout_reported)
        fprintf(stderr, "%s: standard output: write error%s%s\n", program_invocation_short_name,
                errno ? ": " : "", errno ? strerror(errno) : "");
    return status ? status : MB_EXIT_DATA;
}

/* ---- temporary names and their clean-up ---------------------------------------------------- */

/* Removes "PATH.tmp.PID.XXXXXX" files whose process PID no longer runs (and the pid-less
 * "PATH.tmp.XXXXXX" of earlier versions): what a killed write left. Best effort: a folder that
 * cannot be listed is left as it is. */
static void remove_stale(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dlen = slash ? (size_t)(slash - path) + 1 : 0, blen = strlen(base);
    char dir[4096];
    if (dlen + 1 >= sizeof dir || blen == 0)
        return;
    memcpy(dir, path, dlen);
    dir[dlen] = '\0';
    DIR *d = opendir(dlen ? dir : ".");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *s = e->d_name;
        if (strncmp(s, base, blen) != 0 || strncmp(s + blen, ".tmp.", 5) != 0)
            continue;
        s += blen + 5;
        char *end;
        long pid = strtol(s, &end, 10);
        int stale;
        if (end != s && *end == '.' && strlen(end + 1) == 6 && pid > 0)
            stale = kill((pid_t)pid, 0) != 0 && errno == ESRCH;
        else
            stale = strlen(s) == 6; /* the old name, without a process id */
        if (!stale)
            continue;
        char full[4096 + 256];
        snprintf(full, sizeof full, "%s%s", dir, e->d_name);
        unlink(full);
    }
    closedir(d);
}

int mb_out_mktemp(const char *path, char **tmp, int *fd, mb_error *err)
{
    *tmp = NULL;
    *fd = -1;
    remove_stale(path);
    size_t n = strlen(path) + 48;
    char *t = malloc(n);
    if (!t)
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
    snprintf(t, n, "%s.tmp.%ld.XXXXXX", path, (long)getpid());
    int f = mkstemp(t);
    if (f < 0) {
        int e = errno;
        free(t);
        return mb_error_set(err, MB_EIO, "%s: cannot write: %s", path, strerror(e));
    }
    mb_data_default_mode(f);
    *tmp = t;
    *fd = f;
    return MB_OK;
}

/* 1 when `path` names something that exists and is not a regular file (a device, a FIFO, a
 * socket; a symbolic link counts as what it points to): written in place, never replaced. */
static int is_special(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && !S_ISREG(sb.st_mode);
}

/* ---- the writer ---------------------------------------------------------------------------- */

static int out_fail(mb_out *o, const char *path, const char *what, int e, mb_error *err)
{
    char p[512];
    snprintf(p, sizeof p, "%s", path);
    mb_out_abort(o);
    return mb_error_set(err, MB_EIO, "%s: %s%s%s", p, what, e ? ": " : "", e ? strerror(e) : "");
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
    if (!o->path)
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
    memcpy(o->path, path, n + 1);
    if (is_special(path)) {
        /* no O_CREAT: it exists; O_TRUNC is ignored by devices and FIFOs */
        int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        o->f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!o->f) {
            int e = errno;
            if (fd >= 0)
                close(fd);
            return out_fail(o, path, "cannot write", e, err);
        }
        return MB_OK;
    }
    int fd, rc = mb_out_mktemp(path, &o->tmp, &fd, err);
    if (rc != MB_OK) {
        mb_out_abort(o);
        return rc;
    }
    o->f = fdopen(fd, "w");
    if (!o->f) {
        int e = errno;
        close(fd);
        return out_fail(o, path, "cannot write", e, err);
    }
    return MB_OK;
}

int mb_out_commit(mb_out *o, mb_error *err)
{
    if (o->f == stdout) {
        o->f = NULL;
        errno = 0;
        if (fflush(stdout) != 0 || ferror(stdout)) {
            int e = errno;
            stdout_reported = 1;
            return mb_error_set(err, MB_EIO, "standard output: write error%s%s", e ? ": " : "",
                                e ? strerror(e) : "");
        }
        return MB_OK;
    }
    if (!o->f)
        return mb_error_set(err, MB_EIO, "output already closed");
    errno = 0;
    int bad = fflush(o->f) != 0 || ferror(o->f) != 0;
    int e = errno;
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    o->f = NULL;
    if (bad)
        return out_fail(o, o->path, "write error", e, err);
    if (o->tmp && rename(o->tmp, o->path) != 0)
        return out_fail(o, o->path, "cannot write", errno, err);
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

int mb_out_place(const char *src, const char *path, mb_error *err)
{
    if (strcmp(path, "-") != 0 && !is_special(path)) {
        if (rename(src, path) == 0)
            return MB_OK;
        int e = errno;
        remove(src);
        return mb_error_set(err, MB_EIO, "%s: cannot write: %s", path, strerror(e));
    }
    FILE *in = fopen(src, "rb");
    if (!in) {
        int e = errno;
        remove(src);
        return mb_error_set(err, MB_EIO, "%s: cannot read: %s", src, strerror(e));
    }
    mb_out o;
    int rc = mb_out_open(&o, path, err);
    char buf[1 << 15];
    size_t k;
    while (rc == MB_OK && (k = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, k, o.f) != k)
            break;
    if (rc == MB_OK)
        rc = ferror(in) ? (mb_out_abort(&o),
                           mb_error_set(err, MB_EIO, "%s: read error", src))
                        : mb_out_commit(&o, err);
    fclose(in);
    remove(src);
    return rc;
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
