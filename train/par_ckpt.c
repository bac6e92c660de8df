/* par_ckpt.c — the companion file of a parallel run's checkpoint (par_impl.h): every learner's
 * parameters, optimiser state and centre copy, beside run_ckpt.c's file of learner 0.
 *
 * Layout (native byte order, same machine):
 *     "MBKPAR02"  magic
 *     head        mb_par_ckpt_head
 *     log rows    head.log_len bytes
 *     records     head.learners x head.rec_floats float32 (par_impl.h: par_pack)
 *     "MBKPEND\n" trailer: a truncated file is detected.
 *
 * The pair is not written in one step: PATH.learners first, then PATH. A job killed between
 * the two (a rank that dies ends the job at any moment) would leave a new PATH.learners beside
 * the old PATH; so the writer first moves the PATH.learners it replaces to PATH.learners.prev,
 * and the reader takes whichever of the two is of PATH's update. At every moment one of them
 * is: kill inside the write (the old pair stands), after the move (.prev is PATH's), after the
 * new PATH.learners (.prev still is), after PATH (the new pair).
 */
#include "par_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char magic[8] = {'M', 'B', 'K', 'P', 'A', 'R', '0', '2'};
static const char trailer[8] = {'M', 'B', 'K', 'P', 'E', 'N', 'D', '\n'};

/* PATH.learners, or with prev PATH.learners.prev (malloc'd). */
static char *companion(const char *path, int prev)
{
    size_t n = strlen(path) + sizeof ".learners.prev";
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s.learners%s", path, prev ? ".prev" : "");
    return p;
}

int mb_par_ckpt_write(const char *path, const mb_par_ckpt_head *head, const char *rows,
                      int (*record)(uint64_t i, float *buf, void *ctx), void *ctx, float *buf,
                      mb_error *err)
{
    char *p = companion(path, 0);
    if (!p)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    mb_out out;
    int rc = mb_out_open(&out, p, err);
    if (rc != MB_OK) {
        free(p);
        return rc;
    }
    size_t rec = head->rec_floats;
    int ok = fwrite(magic, sizeof magic, 1, out.f) == 1 &&
             fwrite(head, sizeof *head, 1, out.f) == 1 &&
             (head->log_len == 0 || fwrite(rows, head->log_len, 1, out.f) == 1);
    for (uint64_t i = 0; ok && i < head->learners; i++) {
        if ((rc = record(i, buf, ctx)) != MB_OK)
            break;
        ok = fwrite(buf, sizeof *buf, rec, out.f) == rec;
    }
    ok = ok && rc == MB_OK && fwrite(trailer, sizeof trailer, 1, out.f) == 1;
    if (!ok) {
        mb_out_abort(&out);
        rc = mb_error_set(err, rc != MB_OK ? rc : MB_EIO, "%s: cannot write the checkpoint", p);
        free(p);
        return rc;
    }
    /* the file this one replaces stays as .prev, PATH's partner until PATH is rewritten */
    char *q = companion(path, 1);
    if (!q) {
        mb_out_abort(&out);
        free(p);
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    }
    if (rename(p, q) != 0 && errno != ENOENT) {
        rc = mb_error_set(err, MB_EIO, "%s: cannot keep the previous checkpoint as %s: %s", p, q,
                          strerror(errno));
        mb_out_abort(&out);
    } else {
        rc = mb_out_commit(&out, err);
    }
    free(q);
    free(p);
    return rc;
}

/* The update of the single-learner checkpoint at PATH, decoded and checked whole; -1 when it
 * cannot be read (mb_ckpt_read will say why). */
static long main_updates(const char *path)
{
    FILE *f = fopen(path, "rb");
    long u = -1, len;
    if (!f)
        return -1;
    char *b = NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (b = malloc((size_t)len)) && fread(b, 1, (size_t)len, f) == (size_t)len) {
        mb_ckpt c;
        mb_error e = {0};
        if (mb_ckpt_decode(b, (size_t)len, path, &c, &e) == MB_OK) {
            u = (long)c.run.updates;
            mb_ckpt_release(&c);
        }
    }
    free(b);
    fclose(f);
    return u;
}

/* Reads one companion file (par_impl.h: mb_par_ckpt_read). */
static int read_one(const char *p, mb_par_ckpt_head *head, char **rows, uint64_t i, float *buf,
                    mb_error *err)
{
    FILE *f = fopen(p, "rb");
    int rc = MB_OK;
    if (rows)
        *rows = NULL;
    if (!f)
        return mb_error_set(err, MB_EIO, "%s: cannot open the learners' checkpoint (a parallel "
                            "run's checkpoint is PATH and PATH.learners)", p);
    char m[8];
    if (fread(m, sizeof m, 1, f) != 1 || memcmp(m, magic, sizeof m) != 0 ||
        fread(head, sizeof *head, 1, f) != 1 || head->log_len > ((uint64_t)1 << 34) ||
        head->params == 0 || head->learners == 0 || head->learners > 65536 ||
        head->rec_floats < 4 * head->params || head->rec_floats > 4 * head->params + (1ull << 33) ||
        memchr(head->trace, '\0', sizeof head->trace) == NULL) {
        rc = mb_error_set(err, MB_EFORMAT, "%s: not a parallel checkpoint, or its head is "
                          "corrupt", p);
        goto done;
    }
    size_t rec = head->rec_floats;
    if (rows) {
        *rows = malloc(head->log_len + 1);
        if (!*rows || (head->log_len && fread(*rows, head->log_len, 1, f) != 1)) {
            rc = mb_error_set(err, MB_EFORMAT, "%s: truncated (log rows)", p);
            goto done;
        }
        (*rows)[head->log_len] = '\0';
    } else if (fseek(f, (long)head->log_len, SEEK_CUR) != 0) {
        rc = mb_error_set(err, MB_EFORMAT, "%s: truncated (log rows)", p);
        goto done;
    }
    /* the file must be whole: the trailer at the end of the last record */
    long base = ftell(f);
    char t[8];
    if (fseek(f, base + (long)(head->learners * rec * sizeof(float)), SEEK_SET) != 0 ||
        fread(t, sizeof t, 1, f) != 1 || memcmp(t, trailer, sizeof t) != 0 || fgetc(f) != EOF) {
        rc = mb_error_set(err, MB_EFORMAT, "%s: truncated or corrupt checkpoint", p);
        goto done;
    }
    if (buf) {
        if (i >= head->learners || fseek(f, base + (long)(i * rec * sizeof(float)), SEEK_SET) ||
            fread(buf, sizeof *buf, rec, f) != rec) {
            rc = mb_error_set(err, MB_EFORMAT, "%s: no record for learner %llu", p,
                              (unsigned long long)i);
            goto done;
        }
    }
done:
    if (rc != MB_OK && rows) {
        free(*rows);
        *rows = NULL;
    }
    fclose(f);
    return rc;
}

int mb_par_ckpt_read(const char *path, mb_par_ckpt_head *head, char **rows, uint64_t i,
                     float *buf, mb_error *err)
{
    char *p = companion(path, 0), *q = companion(path, 1);
    int rc;
    if (!p || !q) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto out;
    }
    /* PATH.learners, unless it is not PATH's partner and PATH.learners.prev is */
    long u = main_updates(path);
    mb_par_ckpt_head hq;
    mb_error eq = {0};
    rc = read_one(p, head, rows, i, buf, err);
    if (u >= 0 && (rc != MB_OK || head->updates != u) &&
        read_one(q, &hq, NULL, 0, NULL, &eq) == MB_OK && hq.updates == u) {
        if (rows) {
            free(*rows);
            *rows = NULL;
        }
        rc = read_one(q, head, rows, i, buf, err);
    }
out:
    free(p);
    free(q);
    return rc;
}
