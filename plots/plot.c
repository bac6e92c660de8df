/* plot.c — the figure builder of mb_plot.h: a gnuplot script with inline data blocks, run by
 * gnuplot, whose image (its standard output) this process writes into a temporary that is
 * renamed into place only when gnuplot succeeded and every byte was written.
 *
 * It does not decide what a figure shows: figures.c does.
 */
#include "mb_plot.h"
#include "../data/mb_output.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_BLOCKS 64

struct mb_plot {
    mb_plot_options opts;
    char *out;              /* final image path */
    const char *input;      /* the input the data came from (mb_plot_input), or NULL */
    char *script;           /* the script text, grown by open_memstream */
    size_t script_len;
    FILE *f;                /* writes into script */
    int in_block;           /* a data block is open */
    int n_blocks;
    struct {
        char name[32];
        long points;        /* rows with every value finite */
    } blocks[MAX_BLOCKS];
};

void mb_plot_options_init(mb_plot_options *o)
{
    o->format = MB_PLOT_PNG;
    o->width = 900;
    o->height = 600;
    o->gnuplot = "gnuplot";
}

int mb_plot_format_parse(const char *name, mb_plot_format *format)
{
    if (strcmp(name, "png") == 0)
        *format = MB_PLOT_PNG;
    else if (strcmp(name, "svg") == 0)
        *format = MB_PLOT_SVG;
    else
        return MB_EINVAL;
    return MB_OK;
}

void mb_plot_input(mb_plot *p, const char *path)
{
    p->input = path;
}

int mb_plot_begin(mb_plot **pp, const mb_plot_options *o, const char *out_path, mb_error *err)
{
    *pp = NULL;
    if (strchr(out_path, '\'') || strchr(out_path, '\n'))
        return mb_error_set(err, MB_EINVAL, "%s: quotes and newlines are not allowed in a figure path",
                            out_path);
    mb_plot *p = calloc(1, sizeof *p);
    if (!p || !(p->out = strdup(out_path)) ||
        !(p->f = open_memstream(&p->script, &p->script_len))) {
        mb_plot_abort(p);
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", out_path);
    }
    p->opts = *o;
    *pp = p;
    return MB_OK;
}

static void end_block(mb_plot *p)
{
    if (p->in_block) {
        fputs("EOD\n", p->f);
        p->in_block = 0;
    }
}

void mb_plot_block(mb_plot *p, const char *name)
{
    end_block(p);
    if (p->n_blocks < MAX_BLOCKS) {
        snprintf(p->blocks[p->n_blocks].name, sizeof p->blocks[0].name, "%s", name);
        p->blocks[p->n_blocks].points = 0;
        p->n_blocks++;
    }
    fprintf(p->f, "$%s << EOD\n", name);
    p->in_block = 1;
}

void mb_plot_row(mb_plot *p, const double *v, int n)
{
    int finite = 1;
    for (int i = 0; i < n; i++) {
        if (isfinite(v[i]))
            fprintf(p->f, "%s%.10g", i ? " " : "", v[i]);
        else {
            fprintf(p->f, "%sNaN", i ? " " : "");
            finite = 0;
        }
    }
    fputc('\n', p->f);
    if (finite && p->n_blocks > 0)
        p->blocks[p->n_blocks - 1].points++;
}

long mb_plot_block_points(const mb_plot *p, const char *name)
{
    for (int i = 0; i < p->n_blocks; i++)
        if (strcmp(p->blocks[i].name, name) == 0)
            return p->blocks[i].points;
    return 0;
}

void mb_plot_cmd(mb_plot *p, const char *fmt, ...)
{
    end_block(p);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(p->f, fmt, ap);
    va_end(ap);
    fputc('\n', p->f);
}

void mb_plot_abort(mb_plot *p)
{
    if (!p)
        return;
    if (p->f)
        fclose(p->f);
    free(p->script);
    free(p->out);
    free(p);
}

/* gnuplot's image, read from the pipe `in` until its end, into img (a draft); *werr the errno
 * of the first write that failed (0: none), after which the pipe is closed (gnuplot then ends
 * by SIGPIPE); *bytes what was written. */
static void copy_image(int in, int img, int *werr, size_t *bytes)
{
    char buf[1 << 16];
    *werr = 0;
    *bytes = 0;
    for (;;) {
        ssize_t k = read(in, buf, sizeof buf);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        for (ssize_t off = 0; off < k && !*werr;) {
            ssize_t w = write(img, buf + off, (size_t)(k - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                *werr = w < 0 ? errno : EIO;
            else
                off += w;
        }
        if (*werr)
            break;
        *bytes += (size_t)k;
    }
    close(in);
}

/* Runs `gnuplot script` with its messages in errpath and its image on its standard output, a
 * pipe this process copies into img (copy_image): gnuplot ignores a failed write of its own
 * (campaign 31's N9: on a full disk it exited 0 with a truncated image, or failed with no
 * reason), this process sees and says it (*werr). Returns gnuplot's exit status, or -1 when it
 * could not run or was ended by a signal. The child is the writer's (mb_out_spawn): a caught
 * signal ends it before the drafts are removed (campaign 30's C1). */
static int run_gnuplot(const char *prog, const char *script, const char *errpath, int img,
                       int *werr, size_t *bytes)
{
    int pfd[2];
    *werr = 0;
    *bytes = 0;
    if (pipe(pfd) != 0)
        return -1;
    fcntl(pfd[0], F_SETFD, FD_CLOEXEC); /* the child's end is dup'ed onto its descriptor 1 */
    fcntl(pfd[1], F_SETFD, FD_CLOEXEC);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    char *argv[] = {(char *)prog, (char *)script, NULL};
    pid_t pid;
    posix_spawnattr_t at; /* SIGPIPE and SIGXFSZ as by default: the command ignores them
                             (mb_cli_start) */
    sigset_t pipe;
    posix_spawnattr_init(&at);
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    sigaddset(&pipe, SIGXFSZ);
    posix_spawnattr_setsigdefault(&at, &pipe);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
    int rc = mb_out_spawn(&pid, prog, &fa, &at, argv);
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    close(pfd[1]);
    if (rc != 0) {
        close(pfd[0]);
        return -1;
    }
    copy_image(pfd[0], img, werr, bytes);
    int st;
    if (mb_out_wait(pid, &st) != 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The first non-empty line of a file, for error messages. */
static void first_line(const char *path, char *buf, size_t n)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[strspn(line, " \t^")]) {
            snprintf(buf, n, "%s", line + strspn(line, " \t"));
            break;
        }
    }
    fclose(f);
}

/* The script into fd (closed here): the terminal, gnuplot's output on its standard output (a
 * pipe, run_gnuplot), the figure's commands and data. MB_EIO with the reason otherwise. */
static int write_script(const mb_plot *p, int fd, mb_error *err)
{
    FILE *sf = fdopen(fd, "w");
    if (!sf) {
        int e = errno;
        close(fd);
        return mb_error_set(err, MB_EIO, "%s: cannot write the gnuplot script: %s", p->out,
                            strerror(e));
    }
    if (p->opts.format == MB_PLOT_SVG)
        fprintf(sf, "set terminal svg size %d,%d dynamic enhanced background rgb 'white'\n",
                p->opts.width, p->opts.height);
    else
        fprintf(sf, "set terminal pngcairo size %d,%d enhanced\n", p->opts.width, p->opts.height);
    fprintf(sf, "set output\n"); /* standard output */
    fwrite(p->script, 1, p->script_len, sf);
    fprintf(sf, "unset output\n");
    errno = 0;
    int bad = fflush(sf) != 0 || ferror(sf), e = errno;
    if (fclose(sf) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (bad)
        return mb_error_set(err, MB_EIO, "%s: cannot write the gnuplot script: %s", p->out,
                            strerror(e ? e : EIO));
    return MB_OK;
}

int mb_plot_finish(mb_plot *p, const char *const *required, mb_error *err)
{
    end_block(p);
    for (const char *const *r = required; r && *r; r++)
        if (mb_plot_block_points(p, *r) == 0) {
            int rc = mb_error_set(err, MB_ENODATA, "%s: nothing to draw (no finite data for series '%s')",
                                  p->input ? p->input : p->out, *r);
            mb_plot_abort(p);
            return rc;
        }
    fclose(p->f);
    p->f = NULL;

    /* The image goes to a temporary name beside its final path, or straight into the path when
     * that is a draft already (the report's: one temporary, not a temporary's temporary),
     * written by this process from gnuplot's standard output (run_gnuplot); the script and
     * gnuplot's messages go to the temporary folder. All are drafts (mb_out_mktemp,
     * mb_out_mkstemp) that a caught signal removes. */
    char *img = NULL; /* the temporary, NULL when drawn into the draft directly */
    char script[] = "/tmp/mbplot.XXXXXX", errpath[] = "/tmp/mbplot-err.XXXXXX";
    int fd_img = -1, fd_s = -1, fd_e = -1, rc = MB_OK;
    if (mb_out_is_draft(p->out)) {
        if ((fd_img = open(p->out, O_WRONLY | O_TRUNC | O_CLOEXEC)) < 0)
            rc = mb_error_set(err, MB_EIO, "%s: cannot write: %s", p->out, strerror(errno));
    } else if ((rc = mb_out_mktemp(p->out, &img, &fd_img, err)) == MB_OK)
        fcntl(fd_img, F_SETFD, FD_CLOEXEC); /* not gnuplot's */
    if (rc != MB_OK) {
        mb_plot_abort(p);
        return rc;
    }
    fd_s = mb_out_mkstemp(script);
    int e_s = errno;
    fd_e = mb_out_mkstemp(errpath);
    if (fd_s < 0 || fd_e < 0) {
        rc = mb_error_set(err, MB_EIO, "%s: cannot write: %s", p->out,
                          strerror(fd_s < 0 ? e_s : errno));
        goto done;
    }
    rc = write_script(p, fd_s, err);
    fd_s = -1;
    if (rc != MB_OK)
        goto done;
    int werr;
    size_t bytes;
    int st = run_gnuplot(p->opts.gnuplot, script, errpath, fd_img, &werr, &bytes);
    if (close(fd_img) != 0 && !werr) /* a file system that says a full disk only now */
        werr = errno;
    fd_img = -1;
    if (werr) { /* the figure named, not its temporary */
        rc = mb_error_set(err, MB_EIO, "%s: write error: %s", p->out, strerror(werr));
        goto done;
    }
    if (st != 0 || bytes == 0) {
        char line[400];
        first_line(errpath, line, sizeof line);
        rc = mb_error_set(err, MB_EIO, "%s: gnuplot %s%s%s", p->out,
                          st < 0 ? "could not run" : "failed", line[0] ? ": " : "", line);
        goto done;
    }
    if (img) {
        rc = mb_out_place(img, p->out, err); /* renamed, or copied into a device or FIFO */
        free(img);
        img = NULL; /* gone either way */
    }
done:
    if (fd_img >= 0)
        close(fd_img);
    if (img) /* a draft drawn into directly stays its owner's, who drops it when the figure
                failed */
        mb_out_drop(img);
    if (fd_s >= 0)
        close(fd_s);
    if (fd_e >= 0)
        close(fd_e);
    mb_out_drop(script);
    mb_out_drop(errpath);
    free(img);
    mb_plot_abort(p);
    return rc;
}
