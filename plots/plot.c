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
    *pp = NULL; /* any name: the path is no part of the script (the image comes through
                   gnuplot's standard output), so a quote or newline in it is drawn */
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

/* What run_gnuplot saw: the errno of the first write into the image that failed (0: none),
 * the bytes written, and the first of them (to check that they begin an image). */
typedef struct image_copy {
    int werr;
    size_t bytes;
    unsigned char head[32];
    unsigned char tail[32]; /* the last bytes written, at its end (the last `bytes` of it, while
                               fewer) */
} image_copy;

/* gnuplot's image, read from the pipe `in` until its end, into img (a draft); after a failed
 * write the pipe is closed (gnuplot then ends by SIGPIPE). */
static void copy_image(int in, int img, image_copy *c)
{
    char buf[1 << 16];
    int *werr = &c->werr;
    size_t *bytes = &c->bytes;
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
        if (*bytes < sizeof c->head)
            memcpy(c->head + *bytes, buf,
                   (size_t)k < sizeof c->head - *bytes ? (size_t)k : sizeof c->head - *bytes);
        const size_t t = sizeof c->tail; /* the last t bytes: the old ones kept, then these */
        if ((size_t)k >= t) {
            memcpy(c->tail, buf + k - t, t);
        } else {
            memmove(c->tail, c->tail + k, t - (size_t)k);
            memcpy(c->tail + t - (size_t)k, buf, (size_t)k);
        }
        *bytes += (size_t)k;
    }
    close(in);
}

/* Runs `gnuplot --default-settings script` (no ~/.gnuplot or system init file: a user's `set
 * print "-"` wrote text into every image, a `set logscale y` changed every figure, campaign
 * 33's Q3) with its messages in errpath and its image on its standard output, a pipe this
 * process copies into img (copy_image): gnuplot ignores a failed write of its own (campaign
 * 31's N9: on a full disk it exited 0 with a truncated image, or failed with no reason), this
 * process sees and says it (c->werr). Returns 0 with gnuplot's wait status in *st, or the
 * errno that kept it from running (posix_spawn's, the pipe's: ENOENT, EMFILE, EAGAIN; campaign
 * 33's Q10). The child is the writer's (mb_out_spawn): a caught signal ends it before the
 * drafts are removed (campaign 30's C1). */
static int run_gnuplot(const char *prog, const char *script, const char *errpath, int img,
                       image_copy *c, int *st)
{
    int pfd[2];
    memset(c, 0, sizeof *c);
    if (pipe(pfd) != 0)
        return errno;
    fcntl(pfd[0], F_SETFD, FD_CLOEXEC); /* the child's end is dup'ed onto its descriptor 1 */
    fcntl(pfd[1], F_SETFD, FD_CLOEXEC);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    char *argv[] = {(char *)prog, (char *)"--default-settings", (char *)script, NULL};
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
        return rc;
    }
    copy_image(pfd[0], img, c);
    return mb_out_wait(pid, st);
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

/* The first bytes of an image, for a message: up to the first line's end, at most 24, a byte
 * that is no printable ASCII as '?'. */
static void head_text(const image_copy *c, char *buf, size_t n)
{
    size_t k = 0, have = c->bytes < sizeof c->head ? c->bytes : sizeof c->head;
    for (size_t i = 0; i < have && i < 24 && k + 1 < n && c->head[i] != '\n'; i++)
        buf[k++] = c->head[i] >= 0x20 && c->head[i] < 0x7f ? (char)c->head[i] : '?';
    buf[k] = '\0';
}

/* Whether the image c begins as the format's files do: PNG's signature and its IHDR chunk
 * (13 bytes of header), ending in the IEND chunk (a signature alone was taken for a figure,
 * campaign 35's R10), or an SVG's XML declaration or <svg> element (gnuplot's own output;
 * anything before it, a wrapper's or an init file's text, makes a file no viewer opens) ending
 * in </svg> and white space (one cut short is no figure). 0: it does; 1: it does not (its
 * head is printed); 2: an SVG's head cut short before its end. */
static int image_fault(const image_copy *c, mb_plot_format format)
{
    static const unsigned char png[16] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
                                          0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
    size_t have = c->bytes < sizeof c->head ? c->bytes : sizeof c->head;
    const size_t t = sizeof c->tail, n = c->bytes < t ? c->bytes : t;
    if (format == MB_PLOT_PNG) { /* signature, IHDR (8 + 25 bytes), IEND (12) at the least */
        return c->bytes >= 8 + 25 + sizeof iend && memcmp(c->head, png, sizeof png) == 0 &&
                       memcmp(c->tail + t - sizeof iend, iend, sizeof iend) == 0
                   ? 0
                   : 1; /* its head printed, as campaign 35's R10 has it */
    }
    if (!((have >= 5 && memcmp(c->head, "<?xml", 5) == 0) ||
          (have >= 4 && memcmp(c->head, "<svg", 4) == 0)))
        return 1;
    size_t end = t; /* the closing tag, white space after it (an SVG cut short: campaign 36's R8) */
    while (end > t - n && c->tail[end - 1] && strchr(" \t\r\n", c->tail[end - 1]))
        end--;
    return end - (t - n) >= 6 && memcmp(c->tail + end - 6, "</svg>", 6) == 0 ? 0 : 2;
}

/* How gnuplot's run went, as one line naming the figure (p->out: a report's draft is renamed
 * to its figure by the report, mb_out_batch_unname), MB_EIO; MB_OK when it drew an image. why:
 * run_gnuplot's errno, st: gnuplot's wait status, c: what it wrote. */
static int gnuplot_result(const mb_plot *p, int why, int st, const image_copy *c,
                          const char *errpath, mb_error *err)
{
    if (why)
        return mb_error_set(err, MB_EIO, "%s: gnuplot could not run: %s%s", p->out, strerror(why),
                            why == ENOENT ? " (is gnuplot installed and on PATH? make deps "
                                            "installs it)" : "");
    if (c->werr) /* the figure named, not its temporary */
        return mb_error_set(err, MB_EIO, "%s: write error: %s", p->out, strerror(c->werr));
    const char *kind = p->opts.format == MB_PLOT_SVG ? "an SVG" : "a PNG";
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || c->bytes == 0) {
        char line[400];
        first_line(errpath, line, sizeof line);
        if (!line[0] && WIFSIGNALED(st))
            snprintf(line, sizeof line, "ended by signal %d (%s)", WTERMSIG(st),
                     strsignal(WTERMSIG(st)));
        else if (!line[0] && WIFEXITED(st) && WEXITSTATUS(st) == 0)
            snprintf(line, sizeof line, "it wrote no image");
        return mb_error_set(err, MB_EIO, "%s: gnuplot failed%s%s", p->out, line[0] ? ": " : "",
                            line);
    }
    const int fault = image_fault(c, p->opts.format);
    if (fault == 2)
        return mb_error_set(err, MB_EIO, "%s: gnuplot's output is not a whole %s image (%zu "
                            "bytes, cut short before its </svg>)", p->out, "SVG", c->bytes);
    if (fault) {
        char head[32];
        head_text(c, head, sizeof head);
        return mb_error_set(err, MB_EIO, "%s: gnuplot's output is not %s image (it begins "
                            "\"%s\")", p->out, kind, head);
    }
    return MB_OK;
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
    image_copy c;
    int st = 0, why = run_gnuplot(p->opts.gnuplot, script, errpath, fd_img, &c, &st);
    if (close(fd_img) != 0 && !c.werr) /* a file system that says a full disk only now */
        c.werr = errno;
    fd_img = -1;
    if ((rc = gnuplot_result(p, why, st, &c, errpath, err)) != MB_OK)
        goto done;
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
