/* mb_output.h — whole-file input, the one output writer (atomic: a temporary file in the same
 * folder, then rename, so no reader ever sees a half-written file) and the metadata lines every
 * output starts with (file.c).
 */
#ifndef MB_OUTPUT_H
#define MB_OUTPUT_H

#include <spawn.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "../model/mb_model.h"

/* ---- whole files and atomic output --------------------------------------------------------- */

/* The most bytes mb_data_read_file takes from a regular file, and from anything without a size
 * (a device, a FIFO, a pipe: /dev/zero never ends). */
#define MB_DATA_FILE_MAX ((size_t)1 << 30)
#define MB_DATA_STREAM_MAX ((size_t)64 << 20)

/* The one open-for-read every input goes through: a descriptor of `path` (O_CLOEXEC, blocking)
 * in *fd and its fstat in *st. A folder is MB_EIO "PATH: cannot read: Is a directory"; a FIFO is opened
 * without blocking and waits for a writer at most MB_DATA_FIFO_WAIT seconds (the environment's
 * MBKIT_FIFO_WAIT, 0 to 3600, when set): no writer by then is MB_EIO "PATH: a FIFO with no
 * writer after N s", never a hang. A writer that opened but has not written yet is waited for
 * as a pipe is. When a byte had to be read to tell a writer from none, it is *first (*have_first
 * = 1) and comes before the rest of the stream. */
#define MB_DATA_FIFO_WAIT 5.0

/* The one reader of MBKIT_FIFO_WAIT: *s its seconds, MB_DATA_FIFO_WAIT when unset. A value that
 * is not a number from 0 to 3600 is MB_EUSAGE "MBKIT_FIFO_WAIT='abc': must be a number of
 * seconds from 0 to 3600 (unset: 5)" (*s then MB_DATA_FIFO_WAIT), which mb_cli_start says
 * before any command does anything (exit 2). */
int mb_data_fifo_wait(double *s, struct mb_error *err);
int mb_data_open_read(const char *path, int *fd, struct stat *st, unsigned char *first,
                      int *have_first, struct mb_error *err);

/* Reads all of `path` into a new NUL-terminated buffer (*buf, owned by the caller; *len bytes
 * before the NUL), opening it once (a FIFO is read as a stream). MB_EIO with a message naming
 * the file when it cannot be opened or read (a folder included), MB_EFORMAT past the limits
 * above. */
int mb_data_read_file(const char *path, char **buf, size_t *len, struct mb_error *err);

/* The one check of text read line by line (the CSV tables, network .cfg files, hparams.yaml)
 * for line ends of CR alone (old Mac text), which would be read as one long line: MB_EFORMAT
 * "PATH:LINE: a carriage return inside the line: line ends of CR alone (old Mac text) are not
 * read; convert them to LF" when the `len` bytes of `line` hold a CR before their last byte (a
 * CR LF line end is read), MB_OK otherwise. */
int mb_data_cr_inside(const char *path, long lineno, const char *line, size_t len,
                      struct mb_error *err);

/* What `path` is when it is there but not a regular file, links followed: "a directory", "a
 * FIFO", "a socket", "a device" or "not a regular file", for a message ("PATH: a FIFO, not a
 * regular file: ..."); NULL for a regular file, and for a path that cannot be looked at (its
 * opener says why). For the files a command rewrites and reads back (checkpoints), where a FIFO
 * would block the open and a device would never end. */
const char *mb_data_not_regular(const char *path);

/* 1 when writing `a` would overwrite `b` (or the reverse): the same regular file (by device and
 * inode, so links and other spellings count), or two paths that do not exist yet and name the
 * same place. Devices and FIFOs (/dev/null twice) and "-" are never the same file. */
int mb_data_same_file(const char *a, const char *b);

/* 1 when writing `path` (its links resolved) would write the file named `stem` followed by more
 * characters, `stem`'s folder resolved but not the name itself (a file named after another, as
 * a checkpoint's companions PATH.learners are after PATH); those characters go to rest (n
 * bytes). 0 otherwise, and for "-". */
int mb_data_path_extends(const char *path, const char *stem, char *rest, size_t n);

/* 1 when writing `path` would overwrite a file a command reads from the folder `dir` (or a
 * folder up to 3 levels under it): `path`, its links resolved, is an existing regular file
 * under `dir` whose resolved name ends in `suffix` (".csv": the run logs of a folder; NULL: any
 * file). Checked on the resolved name, so a link named "l" onto dir/run.csv counts. 0 when
 * `dir` is not a folder or `path` does not exist. */
int mb_data_in_folder(const char *path, const char *dir, const char *suffix);

/* The one output writer every command uses. A regular file, or a path that does not exist yet,
 * is written to a temporary file beside it ("PATH.tmp.PID.XXXXXX", PATH's name cut short where
 * the whole would be longer than a name in its folder may be: whenever the name fits, its
 * temporary does) and appears at `path` only when committed; a symbolic link is written
 * through (the temporary beside its target, renamed onto the target). Anything else that exists at `path` (a device, a FIFO, a socket) and "-"
 * (standard output) is written directly and never renamed over; a FIFO waits for a reader at
 * most as long as an input FIFO waits for a writer (MBKIT_FIFO_WAIT), then is MB_EIO "PATH: a
 * FIFO with no reader after N s", never a hang. Temporaries that a killed
 * write left at the same path are removed when the next write to it opens. Every program
 * linked with the writer also checks standard output at exit: a write or close error there is
 * one line on stderr and exit status 1 (MB_EXIT_DATA). */
typedef struct mb_out {
    FILE *f;          /* write here */
    char *path;       /* final path as given (NULL for stdout), for messages */
    char *target;     /* what the temporary is renamed onto: `path`, or the end of its chain of
                         symbolic links (a link is written through, never replaced) */
    char *tmp;        /* temporary path beside target (NULL for stdout and direct writes) */
    int slot;         /* its place + 1 in the record a SIGTERM, SIGINT or SIGHUP removes
                         temporaries by (file.c), 0 for none */
} mb_out;

/* Opens `path` as above. MB_EIO with a message naming `path` on failure. */
int mb_out_open(mb_out *o, const char *path, struct mb_error *err);

/* Whether `path` could be written, asked before long work without opening it: "-" is; an
 * existing device or FIFO when access(W_OK) says so (opening and closing a FIFO would hand its
 * reader an end of file); a folder never; a regular file or new path when a temporary can be
 * made beside its target (made and removed) and renamed onto it: an immutable or append-only
 * file, another user's file in a sticky folder and an append-only folder are refused (EPERM,
 * as the rename would be; mb_out_open and mb_out_mktemp refuse them too). MB_EIO naming
 * `path` otherwise. */
int mb_out_check(const char *path, struct mb_error *err);

/* Whether the name a write to `path` reaches (its link chain followed) fits its folder
 * (pathconf's _PC_NAME_MAX, else 255): MB_OK, or MB_EIO "PATH: cannot write: File name too long
 * (a name of 258 bytes, more than the 255 its folder holds)". mb_out_open and mb_out_check ask
 * it; a writer asks it before any work of the names it will write only later (a checkpoint's
 * companions and their .prev). */
int mb_out_name_check(const char *path, struct mb_error *err);

/* Flushes and closes, then renames into place (atomic outputs). On any write or close error
 * the temporary file is removed and MB_EIO returned ("PATH: write error: REASON"): the final
 * path is never left half-written (a direct write may be, and says so the same way). */
int mb_out_commit(mb_out *o, struct mb_error *err);

/* A write into o->f that failed with errno `e` (0: not known, said as EIO), seen by its writer
 * before the commit: the temporary removed (mb_out_abort) and MB_EIO "PATH: write error:
 * REASON", the line mb_out_commit gives ("c: write error: File too large" past ulimit -f). */
int mb_out_write_failed(mb_out *o, int e, struct mb_error *err);

/* Waits for the end of the process when a caught SIGTERM, SIGINT or SIGHUP is ending it (its
 * handler has removed the temporaries; under mpirun it waits a moment before the process
 * ends); returns at once otherwise. For a writer about to change files outside mb_out (a
 * checkpoint's previous file kept as .prev), so that nothing is moved once the
 * temporaries are gone. */
void mb_out_hold(void);

/* Closes and removes the temporary file (safe to call after a failed commit, or twice). */
void mb_out_abort(mb_out *o);

/* The file a write to `path` reaches (mb_out_open's target), into *target (owned by the
 * caller, free): `path` itself, or for a symbolic link (a dangling one too) the end of its
 * chain. For a writer that moves the file it replaces aside first (a checkpoint's companion
 * kept as .prev), so that a link stays a link. MB_EIO naming `path` when the chain cannot be
 * followed (a loop, a name too long). */
int mb_out_target(const char *path, char **target, struct mb_error *err);

/* A new temporary file beside `path` for another program to fill (gnuplot's image): *tmp
 * (owned by the caller, free) and an open *fd, mode 0666 less the umask. Removes stale
 * temporaries of `path` first. MB_EIO naming `path` when it cannot be made. A draft: recorded,
 * so that a caught SIGTERM, SIGINT or SIGHUP removes it, until mb_out_place puts it in place or
 * mb_out_drop removes it. */
int mb_out_mktemp(const char *path, char **tmp, int *fd, struct mb_error *err);

/* mkstemp(templ), a draft as mb_out_mktemp's (gnuplot's script, its messages): the descriptor,
 * or -1 and errno. */
int mb_out_mkstemp(char *templ);

/* mkdtemp(templ), a draft folder (the report's copies of its FIFO inputs): a caught signal
 * removes it and the files in it. 0, or -1 and errno. */
int mb_out_mkdtemp(char *templ);

/* Removes a draft (mb_out_mktemp, mb_out_mkstemp; a folder of mb_out_mkdtemp once emptied) and
 * its record. */
void mb_out_drop(const char *path);

/* Whether `path` is a draft of this process not yet placed or dropped (a figure drawn into the
 * report's draft is drawn there directly, not into a draft of the draft). */
int mb_out_is_draft(const char *path);

/* posix_spawnp(pid, prog, fa, at, argv, environ) for a child that writes drafts (gnuplot): the
 * child recorded until mb_out_wait, so that a caught signal ends it (SIGTERM, SIGKILL after
 * about a second) before the drafts are removed, and it starts with the caller's signal mask
 * (`at` gets POSIX_SPAWN_SETSIGMASK). 0, or posix_spawnp's error. */
int mb_out_spawn(pid_t *pid, const char *prog, const posix_spawn_file_actions_t *fa,
                 posix_spawnattr_t *at, char *const argv[]);

/* Waits for mb_out_spawn's child and forgets it: its status in *st; 0, or an errno. */
int mb_out_wait(pid_t pid, int *st);

/* Puts the finished file `src` (made by mb_out_mktemp for `path`) at `path` as mb_out_commit
 * would: renamed when `path` is a regular file or new, copied into a device, FIFO or "-".
 * `src` is gone afterwards either way, and no longer a draft. */
int mb_out_place(const char *src, const char *path, struct mb_error *err);

/* A batch of drafts put in place together, all or none (the report's figures beside its page):
 * each draft made by mb_out_batch_add (a temporary beside its place, as mb_out_mktemp), filled
 * by the caller (or gnuplot), then every place checked (mb_out_batch_check) and only then all
 * put in place (mb_out_batch_commit). A place that refuses is found before anything is
 * replaced: a folder, a FIFO without a reader, a file that cannot be replaced (immutable,
 * append-only, another user's in a sticky folder), an append-only folder; mb_out_open,
 * mb_out_check and mb_out_mktemp refuse the same, with no temporary made. */
#define MB_OUT_BATCH_MAX 16
typedef struct mb_out_batch {
    char *dest[MB_OUT_BATCH_MAX]; /* where each goes */
    char *tmp[MB_OUT_BATCH_MAX];  /* its draft, NULL once placed or dropped */
    size_t n;
} mb_out_batch;

/* A new draft of the file at `dest`: *tmp, the draft's path (owned by the batch, a draft of
 * mb_out_mktemp's until placed or dropped). MB_EIO naming `dest` when its place refuses. */
int mb_out_batch_add(mb_out_batch *b, const char *dest, const char **tmp, struct mb_error *err);

/* Removes the newest draft (one that could not be filled). */
void mb_out_batch_drop_last(mb_out_batch *b);

/* Removes every draft left (safe on an empty or committed batch). */
void mb_out_batch_drop(mb_out_batch *b);

/* Whether every draft's place still takes it (mb_out_check), asked before anything is placed:
 * MB_EIO naming the first that does not. */
int mb_out_batch_check(const mb_out_batch *b, struct mb_error *err);

/* A message that names a draft of the batch (a figure gnuplot could not write) names the file
 * it was for instead: the temporary is no name the user gave (campaign 31's N9). */
void mb_out_batch_unname(const mb_out_batch *b, struct mb_error *err);

/* Puts every draft in place, the places checked (mb_out_batch_check), with `last` (an mb_out
 * opened and written, or NULL): a `last` written directly (a device, a FIFO) committed first,
 * then the drafts whose places are devices or FIFOs (written into, which may still fail), then
 * the files (renamed), then a `last` that is a file (renamed). After a failure the rest are
 * removed, not placed; the batch is empty afterwards. A place that refuses only now (changed
 * after the check) is said as it is, naming what was already put in place and what was left
 * as it was: "DIR/tc.png: cannot write: Operation not permitted (only part was put in place:
 * nupdate.png, step.png new; scale.png, report.html left as they were)". */
int mb_out_batch_commit(mb_out_batch *b, mb_out *last, struct mb_error *err);

/* Gives a file made by mkstemp (mode 0600) the mode an ordinary new file would get: 0666 less
 * the process umask. */
void mb_data_default_mode(int fd);


#endif /* MB_OUTPUT_H */
