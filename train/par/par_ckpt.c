/* par_ckpt.c — the companion files of a parallel run's checkpoint (par_impl.h): every learner's
 * parameters, optimiser state, cursor and centre copy, beside run_ckpt.c's file of learner 0;
 * one file (PATH.learners), or one part per process (PATH.learners.rankR, each written and read
 * by its own rank on its own node).
 *
 * Layout (native byte order, same machine):
 *     "MBKPAR08"  magic
 *     head        mb_par_ckpt_head
 *     log rows    head.log_len bytes
 *     records     head.learners x head.rec_floats float32 (par_impl.h: par_pack): the job's
                 records head.first .. head.first + head.learners - 1 of head.total
 *     "MBKPEND\n" trailer
 *     crc32       of every byte before it (zlib), uint32
 * and believed only after checks, as the main checkpoint is (run_ckpt.c): the length the head
 * implies, the checksum, the head's values in range (counts, a finite wall time, alpha in
 * [0, 1], the records inside the job's total, ...), every parameter, velocity and centre finite
 * and within +-1e15 (far beyond any trained network's, short of the overflow a 1e30 would
 * bring), every cursor inside the data; the file's update and run (run_id) are chosen here
 * (mb_par_ckpt_read), the run's identity (algorithm, records, parameters, the net's structure,
 * data fingerprint, seed, batch, tau, and the settings a log states once: lr, optimiser,
 * momentum, schedule, target, evaluation, and the parallel algorithm's own: --elastic-alpha,
 * --sma-momentum or --delta, --n-push, --n-fetch, --grad-after-exchange, --no-overlap,
 * --sma-tune and --sma-tune-window) is compared by the caller (par.c). MBKPAR07 (not SMA's
 * tuning), MBKPAR06 (not the algorithm's own settings), MBKPAR05 (no
 * settings), MBKPAR04 (no net structure), MBKPAR03 (one file, no parts), MBKPAR02 (no checksum)
 * and MBKPAR01 are refused.
 *
 * The set is not written in one step: the companions first (every part, then a barrier), then
 * PATH. A job killed between the two (a rank that dies ends the job at any moment) would leave
 * a new companion beside the old PATH; so each writer first keeps the file it replaces as
 * NAME.prev (a hard link, the name keeping the file until the draft is renamed over it; a
 * companion that is a symbolic link: its target as TARGET.prev, the link kept, as every output
 * writes through links), and the reader takes whichever of the two is of PATH's update and
 * wall time (a part on a node that cannot see PATH: of the update rank 0 read there,
 * broadcast). At every moment one of them is: kill inside the write (the old set stands),
 * after the link (both are PATH's), after the new companion (.prev still is), after PATH (the
 * new set). A server algorithm writes no PATH: its set is PATH.learners alone, which the link
 * keeps in place throughout; where the filesystem has no hard links the file is renamed to
 * .prev (as before campaign 32's A-B2), a kill then leaves .prev alone, and the reader takes it
 * as the last whole set. A .prev beside a missing companion that is of no whole set is refused
 * in one line naming both. A resume that took .prev (the companion of no set) leaves it in place
 * at its first checkpoint to the same PATH (prev_stays): rotating the orphan companion into it
 * left no whole set where that checkpoint was killed in turn between its writes.
 */
#include "par_impl.h"
#include "../../data/mb_output.h"
#include "../comm/mb_comm.h"
#include "../learner/mb_learner.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>
#include <unistd.h>

static const char magic[8] = {'M', 'B', 'K', 'P', 'A', 'R', '0', '8'};
static const char trailer[8] = {'M', 'B', 'K', 'P', 'E', 'N', 'D', '\n'};

/* The largest |value| a stored parameter, velocity or centre may have. */
#define PAR_VALUE_MAX 1e15

static int value_ok(float v) { return isfinite(v) && fabsf(v) <= PAR_VALUE_MAX; }

int mb_par_ckpt_values_ok(const float *v, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (!value_ok(v[k]))
            return 0;
    return 1;
}

/* PATH.learners or PATH.learners.rank<part> (part >= 0) (malloc'd). */
static char *companion(const char *path, int part)
{
    size_t n = strlen(path) + sizeof ".learners.rank" + 12;
    char *p = malloc(n);
    if (p && part < 0)
        snprintf(p, n, "%s.learners", path);
    else if (p)
        snprintf(p, n, "%s.learners.rank%d", path, part);
    return p;
}

/* The .prev of the companion `name` (malloc'd): beside the file a write to `name` reaches
 * (mb_out_target), so that a companion that is a symbolic link is rotated at its target and
 * stays a link (campaign 23's R2: the link itself was moved to NAME.prev and replaced);
 * NAME.prev when the link cannot be followed (the write names why). */
static char *prev_of(const char *name)
{
    char *t = NULL;
    mb_error e = {0};
    const char *base = mb_out_target(name, &t, &e) == MB_OK ? t : name;
    size_t n = strlen(base) + sizeof ".prev";
    char *q = malloc(n);
    if (q)
        snprintf(q, n, "%s.prev", base);
    free(t);
    return q;
}

/* Copies the file `from` to `q` through the one writer (a link written through, a device or
 * FIFO written into): errno's reason, or 0; the writer's own line in *why when it refused
 * (campaign 27's X10: a FIFO without reader, a folder, a full device all read "Input/output
 * error"). */
static int copy_to(const char *from, const char *q, mb_error *why)
{
    FILE *in = fopen(from, "rb");
    if (!in)
        return errno;
    mb_out o;
    int rc = mb_out_open(&o, q, why), we = rc == MB_OK ? 0 : EIO;
    char buf[1 << 15];
    size_t k;
    while (!we && (k = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, k, o.f) != k)
            we = errno ? errno : EIO;
    if (!we && ferror(in))
        we = EIO;
    fclose(in);
    if (rc == MB_OK && we)
        mb_out_abort(&o);
    else if (rc == MB_OK && mb_out_commit(&o, why) != MB_OK)
        we = EIO;
    return we;
}

/* Keeps the file `from` as `to` as well, `from` staying at its name until the draft is renamed
 * over it: a hard link, onto `to` removed first (campaign 32's A-B2: `from` renamed to `to`
 * left the name empty until the draft's rename, and a job killed there kept `to` alone, which
 * an asynchronous job, whose set is PATH.learners alone, did not resume from); renamed where
 * the filesystem has no hard links. 0, or an errno. */
static int keep_as(const char *from, const char *to)
{
    if (unlink(to) != 0 && errno != ENOENT)
        return errno;
    if (link(from, to) == 0)
        return 0;
    int e = errno;
    if (e != EPERM && e != ENOTSUP && e != EOPNOTSUPP && e != EMLINK && e != ENOSYS &&
        e != EXDEV)
        return e;
    return rename(from, to) == 0 ? 0 : errno;
}

/* Keeps the companion file `from` (the file a write of it reaches) as its .prev `q`, which
 * stays a symbolic link when it is one (campaign 25's V6: the link was replaced by the file):
 * linked (keep_as) at the end of q's chain, or copied there (through mb_out) where it is not a
 * regular file (a device: never renamed over) or on another filesystem; `from` stays until the
 * draft replaces it. 0, or an errno (the writer's line in *why where it gave one); ENOENT when
 * there is no `from` (a first write). A .prev link that cannot be followed or leads into no
 * folder is refused before training (mbtrain's companion_links). */
static int keep_prev(const char *from, const char *q, mb_error *why)
{
    struct stat sb;
    char *t = NULL;
    if (access(from, F_OK) != 0)
        return errno;
    if (lstat(q, &sb) != 0 || !S_ISLNK(sb.st_mode))
        return keep_as(from, q);
    if (mb_out_target(q, &t, why) != MB_OK)
        return EIO;
    int special = stat(t, &sb) == 0 && !S_ISREG(sb.st_mode), r = 0;
    if (special || (r = keep_as(from, t)) != 0)
        r = !special && r != EXDEV ? r : copy_to(from, q, why);
    if (r == ENOENT) { /* `from` is there: the folder the link leads into is not */
        mb_error_set(why, MB_EIO, "%s: a link into no folder (%s)", q, t);
        r = EIO;
    }
    free(t);
    return r;
}

int mb_par_ckpt_companion(const char *suffix, int *rank, int *prev)
{
    const char *s = suffix;
    if (strncmp(s, ".learners", 9) != 0)
        return 0;
    s += 9;
    *rank = -1;
    if (strncmp(s, ".rank", 5) == 0 && s[5] >= '0' && s[5] <= '9') {
        char *end;
        long r = strtol(s + 5, &end, 10);
        *rank = r > INT_MAX ? INT_MAX : (int)r;
        s = end;
    }
    *prev = strcmp(s, ".prev") == 0;
    return *s == '\0' || *prev;
}

/* fwrite and the running checksum. */
static int put(FILE *f, uLong *crc, const void *p, size_t len)
{
    if (len == 0)
        return 1;
    const unsigned char *b = p;
    for (size_t left = len; left > 0;) {
        uInt k = left > (1u << 30) ? (1u << 30) : (uInt)left;
        *crc = crc32(*crc, b, k);
        b += k;
        left -= k;
    }
    return fwrite(p, len, 1, f) == 1;
}

int mb_par_ckpt_names_check(const char *path, int part, mb_error *err)
{
    char *p = companion(path, part), *q = p ? prev_of(p) : NULL;
    int rc = !q ? mb_error_set(err, MB_ENOMEM, "out of memory") : MB_OK;
    for (int k = 0; k < 2 && rc == MB_OK; k++)
        if ((rc = mb_out_name_check(k ? q : p, err)) != MB_OK) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            mb_error_set(err, rc, "--checkpoint's companion %s", msg);
        }
    free(p);
    free(q);
    return rc;
}

int mb_par_ckpt_write(const char *path, int part, const mb_par_ckpt_head *head,
                      const char *rows, int (*record)(uint64_t i, float *buf, void *ctx),
                      void *ctx, float *buf, int prev_stays, mb_error *err)
{
    char *p = companion(path, part);
    if (!p)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    mb_out out;
    int rc = mb_out_open(&out, p, err);
    if (rc != MB_OK) {
        free(p);
        return rc;
    }
    size_t rec = head->rec_floats;
    uLong crc = crc32(0L, Z_NULL, 0);
    int ok = put(out.f, &crc, magic, sizeof magic) && put(out.f, &crc, head, sizeof *head) &&
             put(out.f, &crc, rows, head->log_len);
    for (uint64_t i = head->first; ok && i < head->first + head->learners; i++) {
        if ((rc = record(i, buf, ctx)) != MB_OK)
            break;
        ok = put(out.f, &crc, buf, rec * sizeof *buf);
    }
    ok = ok && rc == MB_OK && put(out.f, &crc, trailer, sizeof trailer);
    uint32_t c32 = (uint32_t)crc;
    ok = ok && fwrite(&c32, sizeof c32, 1, out.f) == 1;
    if (!ok) { /* a write's reason said as the commit would ("write error: File too large") */
        if (rc == MB_OK)
            rc = mb_out_write_failed(&out, errno, err);
        else {
            mb_out_abort(&out);
            rc = mb_error_set(err, rc, "%s: cannot write the checkpoint", p);
        }
        free(p);
        return rc;
    }
    /* the file this one replaces stays as .prev, PATH's partner until PATH is rewritten (at
     * a link's target; a device or FIFO, written in place, is never moved); where .prev is
     * already PATH's partner and the file of no set, .prev stays */
    char *q = out.tmp && !prev_stays ? prev_of(p) : NULL;
    if (out.tmp && !prev_stays && !q) {
        mb_out_abort(&out);
        free(p);
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    }
    mb_error why = {0};
    mb_out_hold(); /* a signal's handler has removed the temporary: the checkpoint stays */
    int e = q ? keep_prev(out.target, q, &why) : 0;
    if (e && e != ENOENT) {
        if (why.msg[0]) /* the line names q */
            rc = mb_error_set(err, MB_EIO, "%s: cannot keep the previous checkpoint: %s", p,
                              why.msg);
        else
            rc = mb_error_set(err, MB_EIO, "%s: cannot keep the previous checkpoint as %s: %s",
                              p, q, strerror(e));
        mb_out_abort(&out);
    } else {
        rc = mb_out_commit(&out, err);
    }
    free(q);
    free(p);
    return rc;
}

/* The run record of the single-learner checkpoint at PATH, decoded and checked whole into *run;
 * 0 when it cannot be read (mb_ckpt_read will say why). */
static int main_run(const char *path, ckpt_run *run)
{
    FILE *f = mb_data_not_regular(path) ? NULL : fopen(path, "rb");
    long len;
    int got = 0;
    if (!f)
        return 0;
    char *b = NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (b = malloc((size_t)len)) && fread(b, 1, (size_t)len, f) == (size_t)len) {
        mb_ckpt c;
        mb_error e = {0};
        if (mb_ckpt_decode(b, (size_t)len, path, &c, &e) == MB_OK) {
            *run = c.run;
            got = 1;
            mb_ckpt_release(&c);
        }
    }
    free(b);
    fclose(f);
    return got;
}

/* A companion that cannot be opened, where PATH is a checkpoint of one learner: it never had
 * one, and that is what is wrong (campaign 21's N19: "PATH.learners.rank0: cannot open", not
 * "a checkpoint of one learner"). */
static int one_learner(const char *path, int rc, mb_error *err)
{
    ckpt_run run;
    if (!main_run(path, &run) || run.par != MB_PAR_NONE)
        return rc;
    return mb_error_set(err, MB_EINVAL, "%s: checkpoint of one learner (--algo %s, batch %d), "
                        "not of a parallel job: it has no learners' checkpoint to resume them "
                        "from; resume it as it was trained (one learner, no mpirun or "
                        "--learners)", path, mb_optim_kind_name((mb_optim_kind)run.algo),
                        (int)run.batch);
}

static int corrupt(mb_error *err, const char *name, const char *what)
{
    return mb_error_set(err, MB_EFORMAT, "%s: corrupt learners' checkpoint: %s", name, what);
}

/* The head's values, each in its range (the lengths are checked before). */
static const char *head_range(const mb_par_ckpt_head *h)
{
    if (h->algo <= MB_PAR_NONE || h->algo >= MB_PAR_N)
        return "no such algorithm";
    if (h->updates < 0 || h->updates > ((int64_t)1 << 50) || h->steps < 0)
        return "update or step count out of range";
    if (!(isfinite(h->wall_s) && h->wall_s >= 0 && h->wall_s <= 1e9))
        return "wall time is not in [0, 1e9] seconds";
    if (!(isfinite(h->alpha) && h->alpha >= 0 && h->alpha <= 1))
        return "elastic alpha is not in [0, 1]";
    if (h->tuning != 0 && h->tuning != 1)
        return "tuning flag is not 0 or 1";
    if (h->k_active < 1 || h->k_was < 1 || h->tune_u0 < 0 || h->tune_u0 > h->updates)
        return "tuning counts out of range";
    if (!isfinite(h->tune_t0) || !isfinite(h->tune_prev) || h->tune_t0 < 0 || h->tune_prev < 0)
        return "tuning times are not finite";
    if (h->batch < 1 || h->tau < 1 || h->n_train < 1 || h->n_train > UINT32_MAX)
        return "batch, tau or training-set size out of range";
    if (h->samples > (uint64_t)h->updates * (uint64_t)h->batch * 2 + (uint64_t)h->batch)
        return "more samples than the updates hold";
    if (h->total < h->learners || h->first > h->total - h->learners)
        return "its records are not inside the job's";
    return mb_ckpt_settings_range(&h->settings);
}

/* Record r's values: four blocks of finite floats within PAR_VALUE_MAX, and a cursor inside the
 * data (position and permutation entries below n_train). */
static const char *record_range(const unsigned char *rec, const mb_par_ckpt_head *h)
{
    size_t n4 = 4 * (size_t)h->params;
    for (size_t k = 0; k < n4; k++) {
        float v;
        memcpy(&v, rec + k * sizeof v, sizeof v);
        if (!value_ok(v))
            return "a parameter, velocity or centre value is not finite or beyond 1e15";
    }
    if (h->rec_floats == n4)
        return NULL;
    uint64_t head[5];
    memcpy(head, rec + n4 * sizeof(float), sizeof head);
    if (head[0] > h->n_train)
        return "a cursor position beyond the training set";
    const unsigned char *perm = rec + (n4 + PAR_CUR_WORDS) * sizeof(float);
    for (uint64_t k = 0; k < h->n_train; k++) {
        uint32_t x;
        memcpy(&x, perm + k * sizeof x, sizeof x);
        if (x >= h->n_train)
            return "a cursor's permutation points beyond the training set";
    }
    return NULL;
}

int mb_par_ckpt_decode(const unsigned char *b, size_t len, const char *name,
                       mb_par_ckpt_head *head, char **rows, uint64_t i, float *buf,
                       mb_error *err)
{
    if (rows)
        *rows = NULL;
    if (len < sizeof magic || memcmp(b, magic, 6) != 0)
        return mb_error_set(err, MB_EFORMAT, "%s: not a parallel checkpoint (PATH.learners)",
                            name);
    if (memcmp(b, magic, sizeof magic) != 0)
        return mb_error_set(err, MB_EFORMAT, "%s: learners' checkpoint format %.8s; this "
                            "mbtrain reads %.8s (with a checksum): write it again", name,
                            (const char *)b, magic);
    const size_t fixed = sizeof magic + sizeof *head + sizeof trailer + sizeof(uint32_t);
    if (len < fixed)
        return mb_error_set(err, MB_EFORMAT, "%s: truncated learners' checkpoint", name);
    uint32_t stored;
    memcpy(&stored, b + len - sizeof stored, sizeof stored);
    uLong crc = crc32(0L, Z_NULL, 0);
    for (size_t at = 0, left = len - sizeof stored; left > 0;) {
        uInt k = left > (1u << 30) ? (1u << 30) : (uInt)left;
        crc = crc32(crc, b + at, k);
        at += k;
        left -= k;
    }
    memcpy(head, b + sizeof magic, sizeof *head);
    /* the lengths first: a damaged head must not drive the arithmetic below */
    const mb_par_ckpt_head *h = head;
    if (h->params == 0 || h->params > ((uint64_t)1 << 34) || h->learners == 0 ||
        h->learners > 65536 || h->total > 65536 || h->log_len > ((uint64_t)1 << 34) ||
        (h->rec_floats != 4 * h->params &&
         h->rec_floats != 4 * h->params + PAR_CUR_WORDS + h->n_train) ||
        h->n_train > UINT32_MAX || memchr(h->trace, '\0', sizeof h->trace) == NULL)
        return corrupt(err, name, "its head's counts are out of range");
    uint64_t body = h->learners * h->rec_floats * sizeof(float);
    if (len != fixed + h->log_len + body)
        return mb_error_set(err, MB_EFORMAT, "%s: truncated or padded learners' checkpoint "
                            "(%zu bytes, its head implies %llu)", name, len,
                            (unsigned long long)(fixed + h->log_len + body));
    if ((uint32_t)crc != stored)
        return mb_error_set(err, MB_EFORMAT, "%s: checksum mismatch: the learners' checkpoint "
                            "is damaged", name);
    if (memcmp(b + len - sizeof stored - sizeof trailer, trailer, sizeof trailer) != 0)
        return corrupt(err, name, "no end marker");
    const char *bad = head_range(h);
    if (bad)
        return corrupt(err, name, bad);
    const unsigned char *r = b + sizeof magic + sizeof *head;
    if (memchr(r, '\0', h->log_len))
        return corrupt(err, name, "a NUL byte in the log rows");
    const unsigned char *recs = r + h->log_len;
    for (uint64_t k = 0; k < h->learners; k++)
        if ((bad = record_range(recs + k * h->rec_floats * sizeof(float), h)) != NULL) {
            char what[160];
            snprintf(what, sizeof what, "record %llu: %s", (unsigned long long)k, bad);
            return corrupt(err, name, what);
        }
    if (buf && i != MB_PAR_CKPT_ALL && (i < h->first || i - h->first >= h->learners))
        return mb_error_set(err, MB_EFORMAT, "%s: no record for learner %llu (it holds %llu to "
                            "%llu)", name, (unsigned long long)i, (unsigned long long)h->first,
                            (unsigned long long)(h->first + h->learners - 1));
    if (rows) {
        if (!(*rows = malloc(h->log_len + 1)))
            return mb_error_set(err, MB_ENOMEM, "out of memory for %s's log rows", name);
        memcpy(*rows, r, h->log_len);
        (*rows)[h->log_len] = '\0';
    }
    if (buf && i == MB_PAR_CKPT_ALL)
        memcpy(buf, recs, h->learners * h->rec_floats * sizeof(float));
    else if (buf)
        memcpy(buf, recs + (i - h->first) * h->rec_floats * sizeof(float),
               h->rec_floats * sizeof(float));
    return MB_OK;
}

/* Reads one companion file (par_impl.h: mb_par_ckpt_read): the whole file, then the checks. */
static int read_one(const char *p, mb_par_ckpt_head *head, char **rows, uint64_t i, float *buf,
                    mb_error *err)
{
    if (rows)
        *rows = NULL;
    /* a FIFO's open would wait for a writer forever, a device never end (campaign 11's N3) */
    const char *kind = mb_data_not_regular(p);
    if (kind)
        return mb_error_set(err, MB_EIO, "%s: %s, not a regular file: the learners' checkpoint "
                            "is the file mbtrain --checkpoint wrote", p, kind);
    FILE *f = fopen(p, "rb");
    if (!f)
        return mb_error_set(err, MB_EIO, "%s: cannot open the learners' checkpoint (a parallel "
                            "run's checkpoint is PATH and PATH.learners, or over ranks "
                            "PATH.learners.rankR on each rank's node): %s", p, strerror(errno));
    long len = -1;
    unsigned char *b = NULL;
    int rc;
    if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        rc = mb_error_set(err, MB_EIO, "%s: cannot read the learners' checkpoint", p);
    else if (!(b = malloc(len ? (size_t)len : 1)))
        rc = mb_error_set(err, MB_ENOMEM, "out of memory for %s (%ld bytes)", p, len);
    else if (len && fread(b, 1, (size_t)len, f) != (size_t)len)
        rc = mb_error_set(err, MB_EIO, "%s: cannot read the learners' checkpoint", p);
    else
        rc = mb_par_ckpt_decode(b, (size_t)len, p, head, rows, i, buf, err);
    free(b);
    fclose(f);
    return rc;
}

/* 1 when the companion head `h` is of the set wanted: of update u and wall time wall (PATH's,
 * where it was read: the two files of one checkpoint hold the same clock, so a .prev of another
 * set at the same update is not taken; wall < 0: any) and of run run_id (0: any). */
static int of_set(const mb_par_ckpt_head *h, long u, double wall, uint64_t run_id)
{
    return (u < 0 || h->updates == u) && (wall < 0 || h->wall_s == wall) &&
           (run_id == 0 || h->run_id == run_id);
}

/* The line where neither the companion p (not there) nor its .prev q (read into *hq, rq, *eq)
 * is of the set wanted: what is missing and what q is instead (u: PATH's update, or -1 where
 * PATH gave none). */
static int no_whole_set(mb_error *err, const char *path, const char *p, const char *q, int rq,
                        const mb_error *eq, const mb_par_ckpt_head *hq, long u)
{
    char what[sizeof eq->msg + 96];
    if (rq != MB_OK)
        snprintf(what, sizeof what, "is not whole either (%s)", eq->msg);
    else if (mb_par_algo_has_server(hq->algo))
        snprintf(what, sizeof what, "is of run %016llx, not this job's",
                 (unsigned long long)hq->run_id);
    else if (u < 0)
        snprintf(what, sizeof what, "is of a %s job, whose set is PATH and PATH.learners, and "
                 "%s is not there or not whole", mb_par_algo_name(hq->algo), path);
    else if (hq->updates == u)
        snprintf(what, sizeof what, "is of update %lld of another checkpoint (another wall "
                 "time) where %s is of update %ld", (long long)hq->updates, path, u);
    else
        snprintf(what, sizeof what, "is of update %lld where %s is of update %ld",
                 (long long)hq->updates, path, u);
    return mb_error_set(err, MB_EIO, "%s: not there, and %s %s: no whole checkpoint to resume "
                        "(a parallel run's is PATH and PATH.learners of one update, a server "
                        "algorithm's PATH.learners alone)", p, q, what);
}

/* The set is PATH and its companions (a lockstep algorithm's) or the companion alone (a server
 * algorithm's: no PATH is written, and PATH.learners.prev is the set before): the companion p,
 * unless it is not of PATH's update and wall time and its .prev q is, or unless p is not there
 * (a job killed as it rotated them, where the filesystem has no hard links, or by an mbtrain
 * before 32's A-B2) and q is a server algorithm's (or of PATH's update and wall time). */
int mb_par_ckpt_read(const char *path, int part, int64_t want, uint64_t run_id,
                     mb_par_ckpt_head *head, char **rows, uint64_t i, float *buf, int *took_prev,
                     mb_error *err)
{
    char *p = companion(path, part), *q = p ? prev_of(p) : NULL;
    int rc;
    if (took_prev)
        *took_prev = 0;
    if (!p || !q) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto out;
    }
    ckpt_run mr;
    int has_main = want < 0 && main_run(path, &mr);
    long u = want >= 0 ? (long)want : has_main ? (long)mr.updates : -1;
    double wall = has_main ? mr.wall_s : -1;
    mb_par_ckpt_head hq;
    mb_error eq = {0};
    rc = read_one(p, head, rows, i, buf, err);
    int gone = rc == MB_EIO && access(p, F_OK) != 0;
    if (gone)
        rc = one_learner(path, rc, err);
    int fits = rc == MB_OK && of_set(head, u, wall, run_id);
    if ((u >= 0 && !fits) || gone) {
        int rq = read_one(q, &hq, NULL, 0, NULL, &eq), rq_gone = rq == MB_EIO &&
                 access(q, F_OK) != 0;
        int alone = rq == MB_OK && gone && mb_par_algo_has_server(hq.algo);
        if (rq == MB_OK && (alone ? of_set(&hq, want >= 0 ? u : -1, -1, run_id)
                                  : u >= 0 && of_set(&hq, u, wall, run_id))) {
            if (rows) {
                free(*rows);
                *rows = NULL;
            }
            rc = read_one(q, head, rows, i, buf, err);
            if (took_prev)
                *took_prev = rc == MB_OK && !gone;
        } else if (rc == MB_OK && want >= 0) {
            /* a part on a node of its own, none of the checkpoint rank 0 resumes */
            if (rows) {
                free(*rows);
                *rows = NULL;
            }
            rc = mb_error_set(err, MB_EFORMAT, "%s: of update %lld of run %016llx, and %s %s; "
                              "the job resumes update %ld of run %016llx: the parts are of "
                              "different checkpoints", p, (long long)head->updates,
                              (unsigned long long)head->run_id, q,
                              rq == MB_OK ? "of another" : "is not there or not whole", u,
                              (unsigned long long)run_id);
        } else if (gone && !rq_gone && rc == MB_EIO) {
            rc = no_whole_set(err, path, p, q, rq, &eq, &hq, u);
        }
    }
out:
    free(p);
    free(q);
    return rc;
}
