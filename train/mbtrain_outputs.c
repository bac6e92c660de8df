/* mbtrain_outputs.c — mbtrain's outputs checked before any run trains: --resume names a
 * checkpoint file, and no output (--log, --checkpoint, a checkpoint's companions and their .prev
 * links) lands on an input (--net, --data's files), on another output, or on the process's own
 * standard streams. Links are resolved, and a link is written through, never replaced.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../data/mb_dataset.h"
#include "../data/mb_output.h"
#include "../net/mb_net.h"
#include "par/mb_par.h"
#include "mbtrain_cli.h"

/* --resume names a checkpoint that mbtrain wrote: a regular file that can be read (a FIFO
 * would be opened more than once and block, a device such as /dev/zero never ends). */
static int resume_file(const char *path, mb_error *err)
{
    struct stat sb;
    if (!*path) /* the reader's line, for the parallel algorithms too (they read PATH.learners,
                 * here ".learners": campaign 35's E8) */
        return mb_error_set(err, MB_EIO, "'': cannot open: an empty file name (the checkpoint "
                            "to resume)");
    if (stat(path, &sb) != 0) /* not here: under mpirun, a rank's node may hold only its part */
        return MB_OK;         /* (PATH.learners.rankR), which the trainer reads and names */
    const char *kind = mb_data_not_regular(path);
    if (kind)
        return mb_error_set(err, MB_EIO, "--resume %s: %s, not a regular file: a checkpoint is "
                            "the file mbtrain --checkpoint wrote", path, kind);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return mb_error_set(err, MB_EIO, "--resume %s: cannot open: %s", path, strerror(errno));
    close(fd);
    return MB_OK;
}

/* A file that would overwrite a checkpoint set's companion (PATH.learners[.rankR][.prev]):
 * `out` (the flag `oflag`) against the set of `ckpt` (the flag `cflag`), links resolved
 * (campaign 9, L3: --log c.learners.rank1 destroyed the set). */
static int over_companion(const char *oflag, const char *out, const char *cflag,
                          const char *ckpt, mb_error *err)
{
    char rest[4096], part[48];
    int rank, prev;
    if (!out || !ckpt || !mb_data_path_extends(out, ckpt, rest, sizeof rest) ||
        !mb_par_ckpt_companion(rest, &rank, &prev))
        return MB_OK;
    if (rank >= 0)
        snprintf(part, sizeof part, "part for rank %d", rank);
    else
        snprintf(part, sizeof part, "learners file");
    return mb_error_set(err, MB_EINVAL, "%s %s is %s %s's %s%s: one would overwrite the other",
                        oflag, out, cflag, ckpt, part, prev ? " (its .prev copy)" : "");
}

/* An output over one of --data's files (campaign 11's N1): 1 with the line in err. */
int mbtrain_over_data(const char *flag, const char *out, const char *data, mb_error *err)
{
    char which[4096];
    if (!out || !mb_data_spec_holds(data, out, which, sizeof which))
        return 0;
    mb_error_set(err, MB_EINVAL, "%s %s would overwrite %s, a file of --data %s", flag, out,
                 which, data);
    return 1;
}

/* A companion link `l` of --checkpoint (written through: its target is rewritten, and the
 * target kept as TARGET.prev) over an input or another output: 1 with the line in err. */
static int link_clash(const mb_run_options *o, char **links, int n, int i, mb_error *err)
{
    const char *l = links[i], *cp = o->checkpoint_path;
    char *t = NULL, rest[4096];
    int rank, prev, hit = 0;
    if (!cp || !o->net)
        return 0;
    if (mb_out_target(l, &t, err) != MB_OK || !t) {
        err->msg[0] = '\0'; /* a loop: the write names it */
        return 0;
    }
    /* a companion's target is kept as TARGET.prev; a .prev link's target is all it writes */
    size_t tn = strlen(t) + sizeof ".prev", ln = strlen(l);
    int is_prev = ln > 5 && strcmp(l + ln - 5, ".prev") == 0;
    char *tp = is_prev ? NULL : malloc(tn);
    if (tp)
        snprintf(tp, tn, "%s.prev", t);
    char nb[4096 + 64];
    const char *file[] = {mb_net_desc_file(o->net, nb, sizeof nb), o->log_path, cp, o->resume_path};
    const char *flag[] = {"--net", "--log", "--checkpoint", "--resume"};
    for (int k = 0; !hit && k < 4; k++)
        if (file[k] && (mb_data_same_file(l, file[k]) || (tp && mb_data_same_file(tp, file[k]))))
            hit = mb_error_set(err, MB_EINVAL, "--checkpoint %s: its companion %s is a link onto "
                               "%s, %s %s: one would overwrite the other", cp, l, t, flag[k],
                               file[k]) != MB_OK;
    for (int k = 0; !hit && k < 2; k++) {
        const char *c = k ? o->resume_path : cp;
        if (c && mb_data_path_extends(l, c, rest, sizeof rest) &&
            mb_par_ckpt_companion(rest, &rank, &prev))
            hit = mb_error_set(err, MB_EINVAL, "--checkpoint %s: its companion %s is a link onto "
                               "%s, a companion of %s %s: one would overwrite the other", cp, l,
                               t, k ? "--resume" : "--checkpoint", c) != MB_OK;
    }
    for (int j = 0; !hit && j < n; j++)
        if (j != i && mb_data_same_file(l, links[j]))
            hit = mb_error_set(err, MB_EINVAL, "--checkpoint %s: its companions %s and %s are "
                               "links onto one file, %s: one would overwrite the other", cp, l,
                               links[j], t) != MB_OK;
    if (!hit && mbtrain_over_data("--checkpoint's companion", l, o->data, err))
        hit = 1;
    free(tp);
    free(t);
    return hit;
}

/* A companion's NAME.prev that is a symbolic link: its target is written at every checkpoint
 * after the first and read back by --resume, so one that cannot be written (a loop, a link
 * into no folder, a folder) or cannot be read back (a FIFO, a socket) is refused before any
 * training (campaign 27's X7, X8, X10: the set was never kept, the loop replaced by a file, a
 * late "Input/output error"). MB_OK, or the line naming the link. */
static int prev_link_check(const char *l, mb_error *err)
{
    char *t = NULL;
    struct stat sb;
    if (mb_out_target(l, &t, err) != MB_OK)
        return MB_EINVAL;
    int rc = MB_OK;
    const char *slash = strrchr(t, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash == t ? 1 : slash - t) : 1,
             slash ? t : ".");
    if (stat(t, &sb) == 0 && (S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode)))
        rc = mb_error_set(err, MB_EINVAL, "%s: a link onto %s, a FIFO or socket; the previous "
                          "checkpoint is kept there and read back: give a regular file", l, t);
    else if (stat(t, &sb) != 0 && stat(dir, &sb) != 0)
        rc = mb_error_set(err, MB_EINVAL, "%s: a link into no folder, %s", l, dir);
    else if (mb_out_check(l, err) != MB_OK)
        rc = MB_EINVAL;
    free(t);
    return rc;
}

/* A companion link whose target is the regular file this command's standard output or error
 * goes to (a link onto /proc/self/fd/1, campaign 28's Z2: the previous checkpoint was written
 * into it, the summary line lost): refused, naming the stream. */
static int std_clash(const char *l, mb_error *err)
{
    struct stat t, f;
    if (stat(l, &t) != 0 || !S_ISREG(t.st_mode))
        return 0;
    for (int fd = 1; fd <= 2; fd++)
        if (fstat(fd, &f) == 0 && S_ISREG(f.st_mode) && f.st_dev == t.st_dev &&
            f.st_ino == t.st_ino)
            return mb_error_set(err, MB_EINVAL, "%s: a link onto the file this command's "
                                "standard %s goes to: the checkpoint would be written into it",
                                l, fd == 1 ? "output" : "error") != MB_OK;
    return 0;
}

/* The companions of a parallel run's --checkpoint PATH that are symbolic links
 * (PATH.learners, PATH.learners.rankR, found in PATH's folder; campaign 24's U1: one onto
 * --net overwrote it), and their NAME.prev where that is a link (campaign 25's V6: the
 * rotation replaced it by a file): each is written through, so its target must be no input
 * and no other output of the run. */
static int companion_links(const mb_run_options *o, mb_error *err)
{
    const char *cp = o->checkpoint_path, *slash = cp ? strrchr(cp, '/') : NULL;
    if (!cp || o->par == MB_PAR_NONE)
        return MB_OK;
    char dir[4096], path[8192];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash == cp ? 1 : slash - cp) : 1,
             slash ? cp : ".");
    const char *base = slash ? slash + 1 : cp;
    size_t k = strlen(base);
    DIR *d = opendir(dir);
    if (!d || !k)
        return d ? (closedir(d), MB_OK) : MB_OK;
    char *links[64];
    int n = 0, rank, prev;
    struct dirent *e;
    struct stat sb;
    while (n < 64 && (e = readdir(d))) {
        if (strncmp(e->d_name, base, k) != 0 || !mb_par_ckpt_companion(e->d_name + k, &rank,
                                                                         &prev))
            continue;
        snprintf(path, sizeof path, "%.*s%s", slash ? (int)(slash - cp + 1) : 0, cp, e->d_name);
        if (lstat(path, &sb) != 0 || !S_ISLNK(sb.st_mode))
            continue;
        /* NAME.prev is written through when NAME is no link (a link's is TARGET.prev) */
        if (prev) {
            path[strlen(path) - strlen(".prev")] = '\0';
            int named = lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode);
            strcat(path, ".prev");
            if (named)
                continue;
        }
        if ((links[n] = strdup(path)))
            n++;
    }
    closedir(d);
    int hit = 0;
    for (int i = 0; !hit && i < n; i++) {
        size_t ln = strlen(links[i]);
        hit = (ln > 5 && strcmp(links[i] + ln - 5, ".prev") == 0 &&
               prev_link_check(links[i], err) != MB_OK) ||
              std_clash(links[i], err) || link_clash(o, links, n, i, err);
    }
    for (int i = 0; i < n; i++)
        free(links[i]);
    return hit ? MB_EINVAL : MB_OK;
}

/* --checkpoint names a file that is rewritten every N updates and read back by --resume: '-'
 * (standard output, campaign 39's F1 and F2: the checkpoints went to stdout back to back and a
 * parallel run made '-.learners' companions) and an existing target that is not a regular file
 * (a FIFO or socket would be opened again at each rewrite; a device such as /dev/null keeps
 * nothing to resume from, campaign 39's D5; a directory) are refused before any work. */
static int checkpoint_file(const char *path, mb_error *err)
{
    const char *kind = strcmp(path, "-") == 0 ? "standard output" : mb_data_not_regular(path);
    if (!kind)
        return MB_OK;
    return mb_error_set(err, MB_EINVAL, "--checkpoint %s: %s; a checkpoint is rewritten and read "
                        "back: give a regular file", path, kind);
}

/* Outputs that would overwrite each other or an input, refused before any work: --log over
 * --checkpoint or the checkpoint being resumed, or over either's companion files; a checkpoint
 * that cannot be rewritten and read back (checkpoint_file). */
int mbtrain_output_clash(const mb_run_options *o, mb_error *err)
{
    if (o->resume_path && resume_file(o->resume_path, err) != MB_OK)
        return MB_EIO;
    if (o->checkpoint_path && checkpoint_file(o->checkpoint_path, err) != MB_OK)
        return MB_EINVAL;
    if (o->log_path && mb_data_same_file(o->log_path, o->checkpoint_path))
        return mb_error_set(err, MB_EINVAL, "--log %s and --checkpoint %s are the same file",
                            o->log_path, o->checkpoint_path);
    if (o->log_path && mb_data_same_file(o->log_path, o->resume_path))
        return mb_error_set(err, MB_EINVAL, "--log %s would overwrite --resume %s", o->log_path,
                            o->resume_path);
    if (over_companion("--log", o->log_path, "--checkpoint", o->checkpoint_path, err) ||
        over_companion("--log", o->log_path, "--resume", o->resume_path, err) ||
        over_companion("--checkpoint", o->checkpoint_path, "--resume", o->resume_path, err) ||
        over_companion("--resume", o->resume_path, "--checkpoint", o->checkpoint_path, err))
        return MB_EINVAL;
    /* the description, a path or the file a bare name resolves to */
    if (mb_net_desc_overwritten("--log", o->log_path, o->net, err) ||
        mb_net_desc_overwritten("--checkpoint", o->checkpoint_path, o->net, err))
        return MB_EINVAL;
    return mbtrain_over_data("--log", o->log_path, o->data, err) ||
                   mbtrain_over_data("--checkpoint", o->checkpoint_path, o->data, err)
               ? MB_EINVAL
               : companion_links(o, err);
}
