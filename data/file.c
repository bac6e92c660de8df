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
 * A symbolic link (a dangling one too) is written through: the temporary goes beside the file
 * the link's chain ends at and is renamed onto it, so the link stays a link.
 *
 * Inputs (mb_data_read_file) are opened once and read as a stream, so a FIFO works; a regular
 * file may hold MB_DATA_FILE_MAX bytes, a device or pipe, which has no size, is read up to
 * MB_DATA_STREAM_MAX (/dev/zero is refused, not read until memory runs out).
 *
 * Temporary names carry the writing process's id ("PATH.tmp.PID.XXXXXX"; a name whose
 * temporary's would pass the folder's limit on names, 255 bytes, is cut short before the
 * suffix): a write killed half-way (kill -9, a crash, a power cut) leaves its temporary behind,
 * and the next write to the same path removes every temporary of it whose process is gone.
 * SIGTERM, SIGINT and SIGHUP can be caught: from mb_cli_start on, a handler removes the
 * temporaries open (a fixed record, written by mb_out_open and cleared at the commit or
 * abort), says one line ("mbtrain:
 * interrupted (SIGTERM): nothing half-written"; none under mpirun, which ends the other ranks
 * by SIGTERM when one fails and says itself how a signal ended the job) and ends the process
 * by the signal (exit 128 + N), as before (campaign 29's A4: a checkpoint's temporary was left
 * and nothing said). The record also holds the drafts a command fills through another program
 * (mb_out_mktemp, mb_out_mkstemp: gnuplot's image and script) and the children writing them
 * (mb_out_spawn, mb_out_wait): the handler ends those children (SIGTERM, then SIGKILL) before
 * it removes the names, so none writes a file again after it (campaign 30's C1), and draft
 * folders (mb_out_mkdtemp: the report's copies of its FIFO inputs), emptied and removed.
 *
 * Standard output is checked at exit as well (GNU's close_stdout): text a command printf'd
 * and never flushed fails only when the process exits, and a command must not exit 0 then.
 */
#define _GNU_SOURCE /* program_invocation_short_name, for the exit-time message */
#include "mb_cli.h"
#include "mb_output.h"
#include "mb_parse.h"

#include <stdint.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h> /* FS_IOC_GETFLAGS: immutable and append-only files */
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int mb_data_fifo_wait(double *s, mb_error *err)
{
    return mb_data_env_seconds("MBKIT_FIFO_WAIT", MB_DATA_FIFO_WAIT, 0, 0, 3600, s, err);
}

/* How long a FIFO's reader waits for a writer (mb_data_fifo_wait). A bad value never gets here
 * from a command: mb_cli_start refused it before anything was opened. */
static double fifo_wait_s(void)
{
    double w;
    mb_error err = {0};
    mb_data_fifo_wait(&w, &err);
    return w;
}

/* A FIFO opened without blocking (fd): waits for a writer's first bytes or its end, at most
 * fifo_wait_s(); then one read without blocking tells a writer that has not written yet (EAGAIN)
 * from none (0 bytes). 0, or an errno (ETIMEDOUT: no writer). */
static int fifo_writer(int fd, unsigned char *first, int *have_first)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const double wait = fifo_wait_s();
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        double left = wait - (double)(t.tv_sec - t0.tv_sec) - 1e-9 * (double)(t.tv_nsec - t0.tv_nsec);
        int k = poll(&p, 1, left > 0 ? (int)(left * 1000) + 1 : 0);
        if (k > 0)
            return 0; /* bytes, or a writer that came and went: the stream says which */
        if (k < 0 && errno != EINTR)
            return errno;
        if (k == 0)
            break;
    }
    ssize_t r = read(fd, first, 1);
    if (r == 1)
        *have_first = 1;
    return r == 1 || (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) ? 0
           : r == 0                                                    ? ETIMEDOUT
                                                                       : errno;
}

int mb_data_open_read(const char *path, int *fd, struct stat *st, unsigned char *first,
                      int *have_first, mb_error *err)
{
    *have_first = 0;
    if (!*path) /* as an output's: open("") says ENOENT of a name never shown (campaign 35's E8) */
        return mb_error_set(err, MB_EIO, "'': cannot open: an empty file name");
    /* without blocking: a FIFO's open would otherwise wait for a writer forever */
    *fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (*fd < 0)
        return mb_error_set(err, MB_EIO, "%s: cannot open: %s", path, strerror(errno));
    int e = fstat(*fd, st) != 0 ? errno : S_ISDIR(st->st_mode) ? EISDIR : 0;
    if (!e && S_ISFIFO(st->st_mode))
        e = fifo_writer(*fd, first, have_first);
    if (!e) { /* read as usual from here: blocking, at the writer's pace */
        int fl = fcntl(*fd, F_GETFL);
        if (fl == -1 || fcntl(*fd, F_SETFL, fl & ~O_NONBLOCK) == -1)
            e = errno;
    }
    if (!e)
        return MB_OK;
    close(*fd);
    *fd = -1;
    if (e == ETIMEDOUT)
        return mb_error_set(err, MB_EIO, "%s: a FIFO with no writer after %g s: start its "
                            "writer first, or give a regular file", path, fifo_wait_s());
    return mb_error_set(err, MB_EIO, "%s: cannot read: %s", path, strerror(e));
}

int mb_data_cr_inside(const char *path, long lineno, const char *line, size_t len, mb_error *err)
{
    if (len && line[len - 1] == '\r')
        len--;
    if (!memchr(line, '\r', len))
        return MB_OK;
    return mb_error_set(err, MB_EFORMAT, "%s:%ld: a carriage return inside the line: line ends "
                        "of CR alone (old Mac text) are not read; convert them to LF", path,
                        lineno);
}

int mb_data_read_file(const char *path, char **buf, size_t *len, mb_error *err)
{
    *buf = NULL;
    *len = 0;
    /* one open, one stream of reads: a FIFO is read once, as a pipe would be */
    int fd, have_first;
    unsigned char first;
    struct stat st;
    int rc = mb_data_open_read(path, &fd, &st, &first, &have_first, err);
    if (rc != MB_OK)
        return rc;
    int reg = S_ISREG(st.st_mode);
    size_t max = reg ? MB_DATA_FILE_MAX : MB_DATA_STREAM_MAX;
    if (reg && (uintmax_t)st.st_size > max) {
        close(fd);
        return mb_error_set(err, MB_EFORMAT, "%s: %jd bytes, more than the %zu MiB an input may "
                            "hold", path, (intmax_t)st.st_size, max >> 20);
    }
    /* a regular file's size is known; a device or pipe has none and is read up to `max` */
    size_t cap = reg ? (size_t)st.st_size + 1 : (size_t)1 << 16, n = 0;
    char *b = malloc(cap);
    if (b && have_first)
        b[n++] = (char)first;
    int e = 0, big = 0;
    while (b) {
        if (n == cap - 1) {
            if (n >= max) {
                big = 1;
                break;
            }
            size_t nc = cap - 1 > max / 2 ? max + 1 : 2 * cap;
            char *nb = realloc(b, nc);
            if (!nb)
                free(b);
            b = nb;
            cap = nc;
            continue;
        }
        ssize_t k = read(fd, b + n, cap - 1 - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            e = errno;
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    close(fd);
    if (!b)
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
    if (e || big) {
        free(b);
        if (big)
            return mb_error_set(err, MB_EFORMAT, "%s: more than %zu MiB without an end (%s): "
                                "refused", path, max >> 20, reg ? "a growing file" :
                                "a device or pipe");
        return mb_error_set(err, MB_EIO, "%s: read error: %s", path, strerror(e));
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return MB_OK;
}

/* ---- temporaries a caught signal removes ----------------------------------------------------- */

/* The record of the temporaries open in this process: a slot is free (0), being filled (1) or
 * names one (2); filled under the mutex, read by the handler without it (atomic loads, then
 * unlink: both async-signal-safe). A path too long for a slot, or a 33rd temporary, is not
 * recorded (a kill -9 leaves it, as it would any). */
enum { OUT_SLOTS = 32, OUT_NAME = PATH_MAX + 64 };
static char out_names[OUT_SLOTS][OUT_NAME];
static int out_state[OUT_SLOTS];
static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;
static int out_say = 1; /* 0 under mpirun: it ends the other ranks with SIGTERM when one
                           fails, whose line is the job's (and says how a signal ended it) */
/* Set by the handler before it unlinks; `out_busy` counts the threads between making a
 * temporary (or a child) and recording it. The handler waits for them to finish, and a thread
 * that starts after it began makes none, so no temporary appears after the unlinks while another
 * thread runs on for the moment the process takes to end (seen under mpirun: a rank's checkpoint
 * thread made one as its main thread took the signal). */
static int out_dying, out_busy;
static const int out_sigs[3] = {SIGTERM, SIGINT, SIGHUP};
/* The children writing drafts (gnuplot): a pid, or 0 for a free slot; set with the signals
 * held, read by the handler (kill, waitpid: async-signal-safe). */
enum { OUT_KIDS = 8, OUT_LINGER_MS = 300 };
static pid_t out_kids[OUT_KIDS];

/* Blocks the three signals in this thread (restored by out_unblock), so that one cannot land
 * between making a temporary and recording it, or renaming it and clearing it. */
static void out_block(sigset_t *old)
{
    sigset_t s;
    sigemptyset(&s);
    for (int k = 0; k < 3; k++)
        sigaddset(&s, out_sigs[k]);
    pthread_sigmask(SIG_BLOCK, &s, old);
}

static void out_unblock(const sigset_t *old) { pthread_sigmask(SIG_SETMASK, old, NULL); }

/* Records `tmp`, a file (kind 2) or a folder (3): its slot + 1, or 0 when it could not be. */
static int out_track_as(const char *tmp, int kind)
{
    size_t n = strlen(tmp);
    int slot = 0;
    if (n >= OUT_NAME)
        return 0;
    pthread_mutex_lock(&out_mu);
    for (int i = 0; i < OUT_SLOTS && !slot; i++)
        if (__atomic_load_n(&out_state[i], __ATOMIC_ACQUIRE) == 0) {
            __atomic_store_n(&out_state[i], 1, __ATOMIC_RELEASE);
            memcpy(out_names[i], tmp, n + 1);
            __atomic_store_n(&out_state[i], kind, __ATOMIC_RELEASE);
            slot = i + 1;
        }
    pthread_mutex_unlock(&out_mu);
    return slot;
}

static int out_track(const char *tmp) { return out_track_as(tmp, 2); }

static void out_untrack(int slot)
{
    if (slot < 1 || slot > OUT_SLOTS)
        return;
    pthread_mutex_lock(&out_mu);
    __atomic_store_n(&out_state[slot - 1], 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&out_mu);
}

/* Forgets the record of `tmp` (a draft renamed or removed), wherever it is. */
static void out_untrack_name(const char *tmp)
{
    pthread_mutex_lock(&out_mu);
    for (int i = 0; i < OUT_SLOTS; i++)
        if (__atomic_load_n(&out_state[i], __ATOMIC_ACQUIRE) >= 2 && !strcmp(out_names[i], tmp))
            __atomic_store_n(&out_state[i], 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&out_mu);
}

/* Begins a section that makes a temporary or a child and records it: the three signals held in
 * this thread and the handler, in another, waiting (out_busy). Whether the process is already
 * ending (then make nothing; out_leave waits for the end). */
static int out_enter(sigset_t *old)
{
    out_block(old);
    __atomic_add_fetch(&out_busy, 1, __ATOMIC_SEQ_CST);
    return __atomic_load_n(&out_dying, __ATOMIC_SEQ_CST);
}

static void out_leave(const sigset_t *old, int dying)
{
    __atomic_sub_fetch(&out_busy, 1, __ATOMIC_SEQ_CST);
    out_unblock(old);
    if (dying)
        for (;;) /* the handler, in another thread, is ending the process and says so: no
                    second line from here (a checkpoint begun as SIGTERM came printed "cannot
                    write: Interrupted system call" before the handler's line) */
            pause();
}

void mb_out_hold(void)
{
    if (__atomic_load_n(&out_dying, __ATOMIC_SEQ_CST))
        for (;;)
            pause();
}

/* n bytes of s to standard error (async-signal-safe). */
static void say_raw(const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

/* The entries of the folder `dir` unlinked, then the folder (async-signal-safe: open, the
 * getdents64 system call, unlinkat, rmdir). One level: a draft folder holds files and links. */
static void out_remove_folder(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        char buf[4096];
        long n;
        while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
            for (long at = 0; at < n;) {
                const struct { uint64_t ino; int64_t off; unsigned short len; unsigned char type;
                               char name[]; } *e = (const void *)(buf + at);
                if (strcmp(e->name, ".") && strcmp(e->name, ".."))
                    unlinkat(fd, e->name, 0);
                at += e->len;
            }
        close(fd);
    }
    rmdir(dir);
}

/* Every recorded temporary unlinked, every draft folder emptied and removed (async-signal-safe). */
static void out_unlink_all(void)
{
    for (int i = 0; i < OUT_SLOTS; i++) {
        int st = __atomic_load_n(&out_state[i], __ATOMIC_ACQUIRE);
        if (st == 2)
            unlink(out_names[i]);
        else if (st == 3)
            out_remove_folder(out_names[i]);
    }
}

/* Every recorded child ended: SIGTERM, reaped within about a second, else SIGKILL and reaped
 * (async-signal-safe: kill, waitpid, nanosleep). */
static void out_end_kids(void)
{
    struct timespec nap = {0, 1000000};
    for (int k = 0; k < OUT_KIDS; k++) {
        pid_t p = __atomic_load_n(&out_kids[k], __ATOMIC_ACQUIRE);
        if (p <= 0)
            continue;
        int gone = 0, st;
        for (int t = 0; !gone && t < 1000; t++) {
            pid_t w = waitpid(p, &st, WNOHANG);
            gone = w == p || (w < 0 && errno == ECHILD);
            if (!gone)
                nanosleep(&nap, NULL);
        }
        if (!gone) {
            kill(p, SIGKILL);
            while (waitpid(p, &st, 0) < 0 && errno == EINTR)
                ;
        }
    }
}

/* The handler: the children writing drafts ended, every recorded temporary unlinked, one line,
 * then the signal again with its default action, so that the process ends by it (128 + N) as it
 * would have. The names are unlinked first, before any wait: under mpirun a rank's SIGKILL may
 * follow its SIGTERM within milliseconds (campaign 30's A-C2). */
static void out_on_signal(int sig)
{
    int e = errno;
    if (__atomic_exchange_n(&out_dying, 1, __ATOMIC_SEQ_CST))
        for (;;) /* a second delivery, in another thread (timeout signals the child and then
                    its group): the first says the line and ends the process */
            pause();
    for (int k = 0; k < OUT_KIDS; k++) { /* told first: they end while the rest is done */
        pid_t p = __atomic_load_n(&out_kids[k], __ATOMIC_ACQUIRE);
        if (p > 0)
            kill(p, SIGTERM);
    }
    out_unlink_all();
    struct timespec nap = {0, 1000000}; /* at most 2 s: a thread that holds the slot forever */
    for (int t = 0; t < 2000 && __atomic_load_n(&out_busy, __ATOMIC_SEQ_CST) > 0; t++)
        nanosleep(&nap, NULL);
    out_end_kids();
    out_unlink_all(); /* what a writer recorded meanwhile, or a child wrote again */
    if (out_say) {
        say_raw(program_invocation_short_name);
        say_raw(sig == SIGTERM ? ": interrupted (SIGTERM)" : sig == SIGINT ? ": interrupted "
                "(SIGINT)" : ": interrupted (SIGHUP)");
        say_raw(": nothing half-written\n");
    } else { /* a rank: Open MPI's mpirun sends SIGKILL to every rank as soon as the first one
              * it signalled has ended (its wait between SIGTERM and SIGKILL is cut short by
              * SIGCHLD), so a rank that ended at once left the others no time to clean up
              * (campaign 30's A-C2: 5 runs of 20 left a checkpoint's temporary). Each rank
              * stays OUT_LINGER_MS, the writers held (mb_out_hold), before it ends. */
        struct timespec linger = {0, OUT_LINGER_MS * 1000000L};
        while (nanosleep(&linger, &linger) != 0 && errno == EINTR)
            ;
    }
    signal(sig, SIG_DFL);
    raise(sig); /* delivered once this handler returns: it is blocked inside it */
    errno = e;
}

/* Installs out_on_signal for SIGTERM, SIGINT and SIGHUP, except where one is ignored (nohup,
 * a shell's background job: they stay ignored). */
static void out_signals_install(void)
{
    const char *rk[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (int k = 0; k < 3; k++)
        if (getenv(rk[k]))
            out_say = 0;
    /* a rank ends by SIGTERM, and its handler runs, when its launcher ends: Open MPI's mpirun,
     * given a second SIGTERM while it ends the job (timeout signals it and then its group),
     * exits at once without signalling the ranks, which then end by _exit a second later when
     * they find it gone, the handler never run (campaign 30's A-C2) */
    if (!out_say)
        prctl(PR_SET_PDEATHSIG, SIGTERM);
    for (int k = 0; k < 3; k++) {
        struct sigaction old, sa;
        if (sigaction(out_sigs[k], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = out_on_signal;
        sigfillset(&sa.sa_mask); /* the three, and the rest, wait while it runs */
        sigaction(out_sigs[k], &sa, NULL);
    }
}

/* ---- standard output, checked at exit ------------------------------------------------------ */

/* Set once an error on standard output has been reported (by mb_out_commit), so that the exit
 * check does not say it twice. Standard output is itself process-wide state; this flag only
 * remembers what was said about it. */
static int stdout_reported;

int mb_cli_start(void)
{
    double wait;
    mb_error err = {0};
    /* a write to a pipe or FIFO whose reader has gone returns EPIPE, said as any write error
     * (exit 1, the temporaries removed), rather than killing the command unsaid (campaign 27's
     * X1: exit 141, *.tmp.* left); a write past the file size limit (ulimit -f) likewise
     * returns EFBIG, "PATH: write error: File too large" (campaign 33's D1: exit 153 by
     * SIGXFSZ, no line, the temporary left); a child spawned (gnuplot) gets both defaults back */
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
    out_signals_install(); /* a caught signal removes the temporaries open (campaign 29's A4) */
    /* checked once, before any input opens or MPI starts, under mpirun or not (campaign 21's
     * N2: a bad MBKIT_MPI_START_WAIT was said by every rank, and without mpirun not at all) */
    if (mb_data_fifo_wait(&wait, &err) != MB_OK || mb_data_mpi_start_wait(&wait, &err) != MB_OK) {
        /* said once under mpirun, by rank 0, as a bad flag is (campaign 17's M2: once a rank) */
        mb_cli_hold hold;
        mb_cli_hold_begin(&hold);
        return mb_cli_hold_end(&hold, mb_cli_usage(program_invocation_short_name, NULL, "%s",
                                                   err.msg));
    }
    if (fcntl(STDOUT_FILENO, F_GETFL) != -1 || errno != EBADF)
        return 0;
    /* closed: the next file opened would get descriptor 1, and what the command prints would go
     * into it (a temporary that becomes the output); /dev/null holds the place instead */
    int fd; /* the lowest free descriptor: 0 first when standard input is closed too */
    while ((fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) >= 0 && fd < STDOUT_FILENO)
        ;
    if (fd > STDOUT_FILENO)
        close(fd);
    fprintf(stderr, "%s: standard output: write error: %s (closed): nothing done\n",
            program_invocation_short_name, strerror(EBADF));
    stdout_reported = 1;
    return MB_EXIT_DATA;
}

/* Why an earlier write to standard output failed, its errno long gone: a file at the file-size
 * limit (EFBIG) or on a full filesystem (ENOSPC); 0 when neither shows (campaign 34's E14:
 * "standard output: write error" without its reason). */
static int stdout_why(void)
{
    struct stat sb;
    struct rlimit rl;
    struct statvfs fs;
    if (fstat(STDOUT_FILENO, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0;
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (rlim_t)sb.st_size >= rl.rlim_cur)
        return EFBIG;
    if (fstatvfs(STDOUT_FILENO, &fs) == 0 && fs.f_bavail == 0)
        return ENOSPC;
    return 0;
}

int mb_cli_exit(int status)
{
    int bad = ferror(stdout) != 0, why = bad ? stdout_why() : 0;
    errno = 0;
    bad |= fclose(stdout) != 0;
    if (!bad)
        return status;
    why = errno ? errno : why;
    if (!stdout_reported)
        fprintf(stderr, "%s: standard output: write error%s%s\n", program_invocation_short_name,
                why ? ": " : "", why ? strerror(why) : "");
    return status ? status : MB_EXIT_DATA;
}

/* ---- temporary names and their clean-up ---------------------------------------------------- */

/* The folder `path` names a file in, into dir (n bytes): "." for a bare name, "/" at the root. */
static void folder_of(const char *path, char *dir, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, n, ".");
    else
        snprintf(dir, n, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

/* The most bytes one name in the folder of `path` may hold: pathconf's _PC_NAME_MAX of the
 * folder, NAME_MAX (255) where it cannot be asked (a folder not there). */
static long name_max_of(const char *path)
{
    char dir[4096];
    folder_of(path, dir, sizeof dir);
    errno = 0;
    long m = pathconf(dir, _PC_NAME_MAX);
    return m > 0 ? m : NAME_MAX;
}

/* The most bytes a temporary's name beside `path` may have: what a name in its folder may
 * hold, less where the whole path would pass PATH_MAX (a folder of 4,000 bytes). */
static long temp_cap(const char *path)
{
    const char *slash = strrchr(path, '/');
    const long dlen = slash ? (long)(slash - path) + 1 : 0, max = name_max_of(path);
    return PATH_MAX - 1 - dlen < max ? PATH_MAX - 1 - dlen : max;
}

/* How many bytes of the name `base` (blen bytes) a temporary of it keeps before its suffix of
 * slen bytes (".tmp.PID.XXXXXX") where its name may hold `max` (temp_cap): all of it when the
 * two fit (the usual case), else as many as fit, cut back to the start of a UTF-8 character
 * (campaign 33's D7: a legal name of 240 bytes was refused, its temporary's 259 too long). */
static size_t temp_keep(const char *base, size_t blen, size_t slen, long max)
{
    if ((long)(blen + slen) <= max)
        return blen;
    size_t keep = max > (long)slen + 1 ? (size_t)max - slen : 1;
    while (keep > 1 && ((unsigned char)base[keep] & 0xC0) == 0x80)
        keep--;
    return keep;
}

/* Removes "PATH.tmp.PID.XXXXXX" files whose process PID no longer runs: what a killed write
 * left. Nothing else: a "PATH.tmp.XXXXXX" without a PID (what versions before the first
 * hardening round left) may as well be a user's own file (campaign 34's R2: PATH.tmp.backup was
 * removed by the next write of PATH). A name too long for its
 * temporary's is cut (temp_keep): a cut temporary is one whose stem is the start of PATH's name
 * just where temp_keep cuts it for that PID's suffix (two names alike in their first 230 bytes
 * share their cut temporaries: a dead process's are removed by a write to either). Best
 * effort: a folder that cannot be listed is left as it is. */
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
    const long max = temp_cap(path);
    DIR *d = opendir(dlen ? dir : ".");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *s = e->d_name;
        size_t n = strlen(s), k = n;
        /* from the end: ".tmp." PID "." and six characters */
        if (n < 12 || strchr(s + n - 6, '.'))
            continue;
        k = n - 6;
        size_t stem = 0;
        long pid = 0;
        if (s[k - 1] == '.') {
            size_t q = k - 1;
            while (q > 0 && s[q - 1] >= '0' && s[q - 1] <= '9')
                q--;
            if (q < k - 1 && k - 1 - q <= 9 && q >= 5 && strncmp(s + q - 5, ".tmp.", 5) == 0 &&
                s[q] != '0') {
                stem = q - 5;
                pid = strtol(s + q, NULL, 10);
            }
        }
        if (pid <= 0)
            continue;
        int ours = stem == blen && strncmp(s, base, blen) == 0;
        if (!ours && stem < blen && strncmp(s, base, stem) == 0)
            ours = temp_keep(base, blen, n - stem, max) == stem;
        if (!ours || !(kill((pid_t)pid, 0) != 0 && errno == ESRCH))
            continue;
        char full[4096 + 256];
        snprintf(full, sizeof full, "%s%s", dir, e->d_name);
        unlink(full);
    }
    closedir(d);
}

/* ---- symbolic links: written through, never replaced ------------------------------------- */

/* The file a write to `path` reaches, in out (n bytes): `path` itself, or for a symbolic link
 * (a dangling one too) the end of its chain, a relative link read from the link's own folder.
 * Links in the folders above are the kernel's to follow. 0, or an errno (ELOOP past 40 links,
 * as the kernel counts; ENAMETOOLONG). */
static int resolve_link(const char *path, char *out, size_t n)
{
    size_t len = strlen(path);
    if (len >= n)
        return ENAMETOOLONG;
    memcpy(out, path, len + 1);
    for (int hops = 0;; hops++) {
        struct stat sb;
        if (lstat(out, &sb) != 0 || !S_ISLNK(sb.st_mode))
            return 0;
        if (hops == 40)
            return ELOOP;
        char link[4096];
        ssize_t k = readlink(out, link, sizeof link - 1);
        if (k < 0)
            return errno;
        link[k] = '\0';
        const char *slash = strrchr(out, '/');
        size_t dir = link[0] == '/' || !slash ? 0 : (size_t)(slash - out) + 1;
        if (dir + (size_t)k >= n)
            return ENAMETOOLONG;
        memmove(out + dir, link, (size_t)k + 1);
    }
}

/* resolve_link into a new string (*target, owned by the caller); MB_EIO naming `path`. */
static int target_of(const char *path, char **target, mb_error *err)
{
    char buf[4096];
    int e = resolve_link(path, buf, sizeof buf);
    if (e)
        return mb_error_set(err, MB_EIO, "%s: cannot write: %s", path, strerror(e));
    if (!(*target = strdup(buf)))
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
    return MB_OK;
}

int mb_out_target(const char *path, char **target, mb_error *err)
{
    return target_of(path, target, err);
}

/* `t` with its folder made absolute (realpath) when it exists; the file name as written. */
static void canonical_folder(const char *t, char *out, size_t n)
{
    char dir[4096], real[4096];
    const char *slash = strrchr(t, '/');
    const char *base = slash ? slash + 1 : t;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else /* "/x" keeps its root */
        snprintf(dir, sizeof dir, "%.*s", slash == t ? 1 : (int)(slash - t), t);
    if (realpath(dir, real))
        snprintf(out, n, "%s/%s", strcmp(real, "/") ? real : "", base);
    else
        snprintf(out, n, "%s", t);
}

/* A canonical name for what `path` names, for comparing outputs with inputs: the link chain
 * resolved, then the folder made absolute (realpath) when it exists. */
static void canonical(const char *path, char *out, size_t n)
{
    char t[4096];
    if (resolve_link(path, t, sizeof t) != 0)
        snprintf(t, sizeof t, "%s", path);
    canonical_folder(t, out, n);
}

const char *mb_data_not_regular(const char *path)
{
    struct stat sb;
    if (!path || stat(path, &sb) != 0 || S_ISREG(sb.st_mode))
        return NULL;
    mode_t m = sb.st_mode;
    return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
           : S_ISCHR(m) || S_ISBLK(m) ? "a device" : "not a regular file";
}

int mb_data_same_file(const char *a, const char *b)
{
    if (!a || !b || strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
        return 0;
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && S_ISREG(sa.st_mode);
    if (ea != eb)
        return 0;
    char ca[8192], cb[8192];
    canonical(a, ca, sizeof ca);
    canonical(b, cb, sizeof cb);
    return strcmp(ca, cb) == 0;
}

int mb_data_path_extends(const char *path, const char *stem, char *rest, size_t n)
{
    if (!path || !stem || strcmp(path, "-") == 0 || strcmp(stem, "-") == 0)
        return 0;
    char cp[8192], cs[8192];
    canonical(path, cp, sizeof cp);
    canonical_folder(stem, cs, sizeof cs);
    size_t k = strlen(cs);
    if (strncmp(cp, cs, k) != 0 || cp[k] == '\0')
        return 0;
    snprintf(rest, n, "%s", cp + k);
    return 1;
}

int mb_data_in_folder(const char *path, const char *dir, const char *suffix)
{
    struct stat sd, so, sp;
    if (!path || !dir || stat(dir, &sd) != 0 || !S_ISDIR(sd.st_mode) || stat(path, &so) != 0 ||
        !S_ISREG(so.st_mode))
        return 0;
    char *real = realpath(path, NULL); /* every link resolved: the file that would be written */
    size_t n = real ? strlen(real) : 0, k = suffix ? strlen(suffix) : 0;
    int in = 0;
    if (real && n > k && (!suffix || strcmp(real + n - k, suffix) == 0))
        for (int up = 0; !in && up < 4; up++) { /* runs/, runs/lrX/ ... */
            char *slash = strrchr(real, '/');
            if (!slash || slash == real)
                break;
            *slash = '\0';
            in = stat(real, &sp) == 0 && sp.st_dev == sd.st_dev && sp.st_ino == sd.st_ino;
        }
    free(real);
    return in;
}

/* 1 when the regular file `target` (sb its stat, dir its folder) is the root of a mount (a
 * file bind-mounted onto it), which rename(2) will not replace (EBUSY): asked of the kernel
 * (statx's STATX_ATTR_MOUNT_ROOT, Linux 5.8 on: a bind mount from the same file system has the
 * folder's st_dev), else a file on another device than its folder. */
static int mount_point(const char *target, const struct stat *sb, const char *dir)
{
#ifdef STATX_ATTR_MOUNT_ROOT
    struct statx sx;
    if (statx(AT_FDCWD, target, AT_NO_AUTOMOUNT, STATX_TYPE, &sx) == 0 &&
        (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT))
        return (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
#endif
    struct stat sd;
    return stat(dir, &sd) == 0 && sd.st_dev != sb->st_dev;
}

/* Why renaming a temporary made beside `target` onto it would be refused although the
 * temporary can be made (0 when it would not): the folder append-only (chattr +a: nothing in
 * it can be renamed or removed, the temporary neither), or an existing `target` immutable or
 * append-only (access(W_OK) says EPERM for the first, the inode flags say both), or another
 * user's in a sticky folder (/tmp; to all but root). EPERM then, as the rename would say;
 * EBUSY for an existing `target` that is a mount point (a file bind-mounted there: rename(2)
 * refuses to replace it), *what then "a mount point". Asked before anything is written, so
 * that a command or a batch (the report's figures) replaces nothing when one place refuses
 * (campaign 31's N8: nupdate.png and step.png were replaced, then tc.png, an immutable file,
 * refused; campaign 32's P6: the same with a bind-mounted tc.png). */
static int replace_refused(const char *target, const char **what)
{
    struct stat sb, sd;
    const int is_file = stat(target, &sb) == 0 && S_ISREG(sb.st_mode);
    if (is_file && access(target, W_OK) != 0 && errno == EPERM)
        return EPERM;
    char dir[4096];
    folder_of(target, dir, sizeof dir);
    int e = 0;
    for (int k = !is_file; k < 2 && !e; k++) { /* the file's flags, then its folder's */
        int fd = open(k ? dir : target, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
                      (k ? O_DIRECTORY : O_NOFOLLOW)), fl = 0;
        if (fd < 0)
            continue; /* unreadable: the rename says */
        if (ioctl(fd, FS_IOC_GETFLAGS, &fl) == 0 && (fl & (FS_APPEND_FL | FS_IMMUTABLE_FL)))
            e = EPERM;
        close(fd);
    }
    const uid_t me = geteuid();
    if (!e && is_file && me != 0 && stat(dir, &sd) == 0 && (sd.st_mode & S_ISVTX) &&
        sb.st_uid != me && sd.st_uid != me)
        e = EPERM;
    if (!e && is_file && mount_point(target, &sb, dir)) {
        e = EBUSY;
        *what = "a mount point";
    }
    return e;
}

/* Whether `target`, what a write to `path` reaches, has a name its folder can hold: MB_OK, or
 * MB_EIO naming `path` (its temporary always fits then: temp_keep). */
static int name_fits(const char *path, const char *target, mb_error *err)
{
    const char *slash = strrchr(target, '/');
    const size_t len = strlen(slash ? slash + 1 : target);
    const long max = name_max_of(target);
    if ((long)len <= max)
        return MB_OK;
    return mb_error_set(err, MB_EIO, "%s: cannot write: %s (a name of %zu bytes, more than the "
                        "%ld its folder holds)", path, strerror(ENAMETOOLONG), len, max);
}

int mb_out_name_check(const char *path, mb_error *err)
{
    if (strcmp(path, "-") == 0)
        return MB_OK;
    char *target;
    int rc = target_of(path, &target, err);
    if (rc != MB_OK)
        return rc;
    rc = name_fits(path, target, err);
    free(target);
    return rc;
}

/* The file a temporary replaces keeps its permission bits and, where this process may give
 * them (root, or a group it is in), its owner and group, as `sed -i` keeps them (campaign 33's
 * Q11: a 664 file came back 644, a file of nobody came back root's). The owner first: a chown
 * clears the set-id bits, which outputs never keep anyway. */
static void keep_attributes(int fd, const struct stat *was)
{
    if (fchown(fd, was->st_uid, was->st_gid) != 0 && fchown(fd, (uid_t)-1, was->st_gid) != 0) {
        /* not allowed: the new file is this process's, as any new output is */
    }
    if (fchmod(fd, was->st_mode & 0777) != 0)
        mb_data_default_mode(fd);
}

/* mb_out_mktemp's temporary, not recorded: mb_out_open records it with its slot, mb_out_check
 * removes it at once. A target that could not be replaced (replace_refused) gets none. */
static int make_temp(const char *path, char **tmp, int *fd, mb_error *err)
{
    *tmp = NULL;
    *fd = -1;
    if (!*path)
        return mb_error_set(err, MB_EIO, "'': cannot write: an empty file name");
    char *target;
    int rc = target_of(path, &target, err);
    if (rc != MB_OK)
        return rc;
    const char *what = NULL;
    int e = replace_refused(target, &what);
    if (e) {
        free(target);
        return what ? mb_error_set(err, MB_EIO, "%s: cannot write: %s (%s)", path, what,
                                   strerror(e))
                    : mb_error_set(err, MB_EIO, "%s: cannot write: %s", path, strerror(e));
    }
    if ((rc = name_fits(path, target, err)) != MB_OK) {
        free(target);
        return rc;
    }
    remove_stale(target);
    char suffix[48];
    const int slen = snprintf(suffix, sizeof suffix, ".tmp.%ld.XXXXXX", (long)getpid());
    const char *slash = strrchr(target, '/');
    const size_t dlen = slash ? (size_t)(slash - target) + 1 : 0, blen = strlen(target) - dlen;
    const size_t keep = temp_keep(target + dlen, blen, (size_t)slen, temp_cap(target));
    size_t n = dlen + keep + (size_t)slen + 1;
    char *t = malloc(n);
    if (!t) {
        free(target);
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
    }
    snprintf(t, n, "%.*s%s", (int)(dlen + keep), target, suffix);
    struct stat was;
    const int replaces = stat(target, &was) == 0 && S_ISREG(was.st_mode);
    free(target);
    int f = mkstemp(t);
    if (f < 0) {
        int e = errno;
        free(t);
        return mb_error_set(err, MB_EIO, "%s: cannot write: %s", path, strerror(e));
    }
    if (replaces)
        keep_attributes(f, &was);
    else
        mb_data_default_mode(f);
    *tmp = t;
    *fd = f;
    return MB_OK;
}

int mb_out_mktemp(const char *path, char **tmp, int *fd, mb_error *err)
{
    sigset_t old; /* no signal between making the draft and recording it */
    const int dying = out_enter(&old);
    int rc = dying ? MB_EIO : make_temp(path, tmp, fd, err);
    if (rc == MB_OK)
        out_track(*tmp); /* 0 when the record is full: a kill -9 would leave it as well */
    out_leave(&old, dying);
    return rc;
}

int mb_out_mkstemp(char *templ)
{
    sigset_t old;
    const int dying = out_enter(&old);
    int fd = dying ? -1 : mkstemp(templ), e = errno;
    if (fd >= 0)
        out_track(templ);
    out_leave(&old, dying);
    errno = e;
    return fd;
}

int mb_out_mkdtemp(char *templ)
{
    sigset_t old;
    const int dying = out_enter(&old);
    char *d = dying ? NULL : mkdtemp(templ);
    int e = errno;
    if (d)
        out_track_as(templ, 3);
    out_leave(&old, dying);
    errno = e;
    return d ? 0 : -1;
}

void mb_out_drop(const char *path)
{
    sigset_t old;
    out_block(&old);
    remove(path);
    out_untrack_name(path);
    out_unblock(&old);
}

int mb_out_is_draft(const char *path)
{
    int is = 0;
    pthread_mutex_lock(&out_mu);
    for (int i = 0; i < OUT_SLOTS && !is; i++)
        is = __atomic_load_n(&out_state[i], __ATOMIC_ACQUIRE) == 2 && !strcmp(out_names[i], path);
    pthread_mutex_unlock(&out_mu);
    return is;
}

int mb_out_spawn(pid_t *pid, const char *prog, const posix_spawn_file_actions_t *fa,
                 posix_spawnattr_t *at, char *const argv[])
{
    extern char **environ;
    sigset_t old;
    short fl = 0;
    const int dying = out_enter(&old); /* the child starts with the caller's mask, not these */
    posix_spawnattr_getflags(at, &fl);
    posix_spawnattr_setflags(at, fl | POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setsigmask(at, &old);
    int rc = dying ? EINTR : posix_spawnp(pid, prog, fa, at, argv, environ), slot = 0;
    for (int k = 0; rc == 0 && k < OUT_KIDS && !slot; k++)
        if (__atomic_load_n(&out_kids[k], __ATOMIC_ACQUIRE) == 0) {
            __atomic_store_n(&out_kids[k], *pid, __ATOMIC_RELEASE);
            slot = 1;
        } /* the table full: the child is not ended by a signal, as before */
    out_leave(&old, dying);
    return rc;
}

int mb_out_wait(pid_t pid, int *st)
{
    siginfo_t si; /* waited for without reaping: the pid stays this child's while it is recorded */
    while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) != 0)
        if (errno != EINTR)
            break;
    sigset_t old;
    const int dying = out_enter(&old);
    for (int k = 0; k < OUT_KIDS; k++)
        if (__atomic_load_n(&out_kids[k], __ATOMIC_ACQUIRE) == pid)
            __atomic_store_n(&out_kids[k], 0, __ATOMIC_RELEASE);
    pid_t w;
    while ((w = waitpid(pid, st, 0)) < 0 && errno == EINTR)
        ;
    int e = w == pid ? 0 : errno;
    out_leave(&old, dying); /* the handler reaped it, and ends the process */
    return e;
}

/* 1 when `path` names something that exists and is not a regular file (a device, a FIFO, a
 * socket; a symbolic link counts as what it points to): written in place, never replaced. */
static int is_special(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && !S_ISREG(sb.st_mode);
}

int mb_out_check(const char *path, mb_error *err)
{
    if (strcmp(path, "-") == 0)
        return MB_OK;
    if (!*path)
        return mb_error_set(err, MB_EIO, "'': cannot write: an empty file name");
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return mb_error_set(err, MB_EIO, "%s: cannot write: %s", path, strerror(EISDIR));
    if (is_special(path)) /* asked, not opened: a FIFO's reader would see an end of file */
        return access(path, W_OK) == 0
                   ? MB_OK
                   : mb_error_set(err, MB_EIO, "%s: cannot write: %s", path, strerror(errno));
    char *tmp;
    sigset_t old; /* made and removed with the signals held, and the handler waiting */
    const int dying = out_enter(&old);
    int fd, rc = dying ? MB_EIO : make_temp(path, &tmp, &fd, err);
    if (rc == MB_OK) {
        close(fd);
        remove(tmp);
        free(tmp);
    }
    out_leave(&old, dying);
    return rc;
}

/* ---- the writer ---------------------------------------------------------------------------- */

static int out_fail(mb_out *o, const char *path, const char *what, int e, mb_error *err)
{
    char p[sizeof err->msg]; /* a long path whole (campaign 29's A5) */
    snprintf(p, sizeof p, "%s", o->f == stdout ? "standard output" : path);
    if (o->f == stdout) /* said here: the exit check does not say it again */
        stdout_reported = 1;
    mb_out_abort(o);
    return mb_error_set(err, MB_EIO, "%s: %s%s%s", p, what, e ? ": " : "", e ? strerror(e) : "");
}

int mb_out_write_failed(mb_out *o, int e, mb_error *err)
{
    return out_fail(o, o->path, "write error", e ? e : EIO, err);
}

/* Opens an existing device, FIFO or socket for writing (no O_CREAT: it exists; O_TRUNC is
 * ignored by devices and FIFOs), into *fd, blocking from then on. A FIFO is opened without
 * blocking, which fails (ENXIO) while it has no reader: retried until fifo_wait_s() has passed,
 * the inputs' wait, then ETIMEDOUT. 0 or an errno. */
static int open_special(const char *path, int *fd)
{
    struct timespec t0, t, nap = {.tv_sec = 0, .tv_nsec = 20000000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const double wait = fifo_wait_s();
    struct stat sb; /* ENXIO from a device (a /dev/tty with no terminal) is its own reason,
                     * said at once (campaign 27's X14: read as a FIFO's, after 5 s) */
    const int fifo = stat(path, &sb) == 0 && S_ISFIFO(sb.st_mode);
    for (;;) {
        *fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NONBLOCK);
        if (*fd >= 0 || errno != ENXIO || !fifo)
            break;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) >= wait)
            return ETIMEDOUT;
        nanosleep(&nap, NULL);
    }
    if (*fd < 0)
        return errno;
    int fl = fcntl(*fd, F_GETFL);
    if (fl == -1 || fcntl(*fd, F_SETFL, fl & ~O_NONBLOCK) == -1) {
        int e = errno;
        close(*fd);
        *fd = -1;
        return e;
    }
    return 0;
}

int mb_out_open(mb_out *o, const char *path, mb_error *err)
{
    memset(o, 0, sizeof *o);
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return MB_OK;
    }
    if (!*path)
        return mb_error_set(err, MB_EIO, "'': cannot write: an empty file name");
    size_t n = strlen(path);
    o->path = malloc(n + 1);
    if (!o->path)
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
    memcpy(o->path, path, n + 1);
    if (is_special(path)) {
        int fd, e = open_special(path, &fd);
        o->f = !e ? fdopen(fd, "w") : NULL;
        if (!o->f && !e) { /* fdopen failed: fd is still open */
            e = errno;
            close(fd);
        }
        if (!o->f) {
            if (e == ETIMEDOUT) {
                mb_out_abort(o);
                return mb_error_set(err, MB_EIO, "%s: a FIFO with no reader after %g s: start "
                                    "its reader first, or give a regular file", path,
                                    fifo_wait_s());
            }
            return out_fail(o, path, "cannot write", e, err);
        }
        return MB_OK;
    }
    int fd = -1, rc = target_of(path, &o->target, err);
    sigset_t old; /* no signal between making the temporary and recording it (out_busy) */
    const int dying = out_enter(&old);
    if (rc == MB_OK && !dying)
        rc = make_temp(path, &o->tmp, &fd, err);
    if (rc == MB_OK && !dying)
        o->slot = out_track(o->tmp);
    out_leave(&old, dying);
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
    /* onto the link's target: a symbolic link stays a link */
    sigset_t old;
    out_block(&old);
    mb_out_hold(); /* the handler unlinked the temporary: no rename, no "cannot write" line */
    int moved = !o->tmp || rename(o->tmp, o->target) == 0, e2 = errno;
    if (moved) {
        out_untrack(o->slot);
        o->slot = 0;
    }
    out_unblock(&old);
    if (!moved)
        return out_fail(o, o->path, "cannot write", e2, err);
    free(o->tmp);
    free(o->path);
    free(o->target);
    o->tmp = o->path = o->target = NULL;
    return MB_OK;
}

void mb_out_abort(mb_out *o)
{
    if (o->f && o->f != stdout)
        fclose(o->f);
    o->f = NULL;
    sigset_t old;
    out_block(&old);
    if (o->tmp)
        remove(o->tmp);
    out_untrack(o->slot);
    o->slot = 0;
    out_unblock(&old);
    free(o->tmp);
    free(o->path);
    free(o->target);
    o->tmp = o->path = o->target = NULL;
}

int mb_out_place(const char *src, const char *path, mb_error *err)
{
    if (strcmp(path, "-") != 0 && !is_special(path)) {
        char *target = NULL;
        int rc = target_of(path, &target, err);
        sigset_t old; /* renamed and forgotten with the signals held, as mb_out_commit does */
        out_block(&old);
        if (rc == MB_OK && rename(src, target) != 0)
            rc = mb_error_set(err, MB_EIO, "%s: cannot write: %s", path, strerror(errno));
        if (rc != MB_OK)
            remove(src);
        out_untrack_name(src);
        out_unblock(&old);
        free(target);
        return rc;
    }
    FILE *in = fopen(src, "rb");
    if (!in) {
        int e = errno;
        mb_out_drop(src);
        return mb_error_set(err, MB_EIO, "%s: cannot read: %s", src, strerror(e));
    }
    mb_out o;
    int rc = mb_out_open(&o, path, err);
    char buf[1 << 15];
    size_t k;
    int we = 0; /* a write's reason, kept: the commit's flush finds nothing left to say it */
    while (rc == MB_OK && !we && (k = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, k, o.f) != k)
            we = errno ? errno : EIO;
    if (rc == MB_OK && we)
        rc = out_fail(&o, path, "write error", we, err);
    else if (rc == MB_OK)
        rc = ferror(in) ? (mb_out_abort(&o),
                           mb_error_set(err, MB_EIO, "%s: read error", src))
                        : mb_out_commit(&o, err);
    fclose(in);
    mb_out_drop(src);
    return rc;
}

/* ---- batches: drafts put in place together ------------------------------------------------ */

int mb_out_batch_add(mb_out_batch *b, const char *dest, const char **tmp, mb_error *err)
{
    if (b->n == MB_OUT_BATCH_MAX)
        return mb_error_set(err, MB_EINVAL, "%s: more than %d files in one batch", dest,
                            MB_OUT_BATCH_MAX);
    char *t;
    int fd, rc = mb_out_mktemp(dest, &t, &fd, err);
    if (rc != MB_OK)
        return rc;
    close(fd);
    if (!(b->dest[b->n] = strdup(dest))) {
        mb_out_drop(t);
        free(t);
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", dest);
    }
    b->tmp[b->n++] = t;
    *tmp = t;
    return MB_OK;
}

void mb_out_batch_drop_last(mb_out_batch *b)
{
    if (b->n == 0)
        return;
    b->n--;
    if (b->tmp[b->n])
        mb_out_drop(b->tmp[b->n]);
    free(b->tmp[b->n]);
    free(b->dest[b->n]);
    b->tmp[b->n] = b->dest[b->n] = NULL;
}

void mb_out_batch_drop(mb_out_batch *b)
{
    while (b->n)
        mb_out_batch_drop_last(b);
}

int mb_out_batch_check(const mb_out_batch *b, mb_error *err)
{
    int rc = MB_OK;
    for (size_t i = 0; rc == MB_OK && i < b->n; i++)
        if (b->tmp[i])
            rc = mb_out_check(b->dest[i], err);
    return rc;
}

void mb_out_batch_unname(const mb_out_batch *b, mb_error *err)
{
    if (!err)
        return;
    /* both as the message holds them: escaped one line (a folder with a newline: campaign
     * 33's Q9, where the draft's raw name was not found and stayed) */
    char t[sizeof err->msg], dest[sizeof err->msg], msg[sizeof err->msg];
    for (size_t i = 0; i < b->n; i++) {
        const char *at;
        if (!b->tmp[i] || !*b->tmp[i])
            continue;
        snprintf(t, sizeof t, "%s", b->tmp[i]);
        snprintf(dest, sizeof dest, "%s", b->dest[i]);
        mb_error_one_line(t, sizeof t);
        mb_error_one_line(dest, sizeof dest);
        size_t tl = strlen(t), dl = strlen(dest);
        while ((at = strstr(err->msg, t)) != NULL) {
            size_t pre = (size_t)(at - err->msg), rest = strlen(at + tl);
            if (pre + dl + rest >= sizeof msg) /* no shorter: left as it is */
                break;
            memcpy(msg, err->msg, pre);
            memcpy(msg + pre, dest, dl);
            memcpy(msg + pre + dl, at + tl, rest + 1);
            memcpy(err->msg, msg, pre + dl + rest + 1);
        }
    }
}

/* `name`'s last component added to a list of names ("a.png, b.png"), for a batch's message. */
static void name_list_add(char *list, size_t n, const char *name)
{
    const char *slash = strrchr(name, '/');
    const char *base = slash && slash[1] ? slash + 1 : name;
    size_t k = strlen(list);
    if (k + 1 < n)
        snprintf(list + k, n - k, "%s%s", k ? ", " : "", base);
}

/* Puts the drafts of one kind in place (specials: those whose place is a device, FIFO or "-";
 * else the files), or, after a failure (rc), removes them; names each in done or left. */
static int batch_place(mb_out_batch *b, int specials, int rc, char *done, char *left, size_t n,
                       mb_error *err)
{
    for (size_t i = 0; i < b->n; i++) {
        if (!b->tmp[i])
            continue;
        if ((strcmp(b->dest[i], "-") == 0 || is_special(b->dest[i])) != specials)
            continue;
        if (rc != MB_OK) {
            name_list_add(left, n, b->dest[i]);
            mb_out_drop(b->tmp[i]);
        } else if ((rc = mb_out_place(b->tmp[i], b->dest[i], err)) == MB_OK)
            name_list_add(done, n, b->dest[i]); /* the draft is gone either way */
        free(b->tmp[i]);
        b->tmp[i] = NULL;
    }
    return rc;
}

int mb_out_batch_commit(mb_out_batch *b, mb_out *last, mb_error *err)
{
    char done[2048] = "", left[2048] = "", lname[4096];
    snprintf(lname, sizeof lname, "%s", last && last->path ? last->path : "standard output");
    const int direct = last && !last->tmp; /* a device, a FIFO, standard output: written whole
                                              before any draft is placed */
    int rc = direct ? mb_out_commit(last, err) : MB_OK;
    if (direct && rc != MB_OK) {
        mb_out_batch_drop(b);
        return rc;
    }
    if (direct)
        name_list_add(done, sizeof done, lname);
    rc = batch_place(b, 1, rc, done, left, sizeof done, err);
    rc = batch_place(b, 0, rc, done, left, sizeof done, err);
    if (last && !direct) {
        if (rc == MB_OK)
            rc = mb_out_commit(last, err);
        else {
            name_list_add(left, sizeof left, lname);
            mb_out_abort(last);
        }
    }
    mb_out_batch_drop(b);
    if (rc != MB_OK && done[0] && err) { /* refused only now, after the check: said as it is */
        size_t k = strlen(err->msg);
        snprintf(err->msg + k, sizeof err->msg - k, " (only part was put in place: %s new%s%s%s)",
                 done, left[0] ? "; " : "", left, left[0] ? " left as they were" : "");
    }
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
