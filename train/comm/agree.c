/* agree.c — the ranks' check that they were started with the same settings (mb_comm_agree):
 * one broadcast and one allreduce before any other collective, shared by mbtrain's parallel
 * algorithms (train/par/par.c) and mbprobe comm (probe/mbprobe_comm.c), so that ranks started
 * with other flags refuse together with one line from rank 0 instead of pairing collectives
 * that do not match (a hang, or a truncated message; campaign 17's F1). Before it, at the
 * start of MPI (mb_comm_mpi_create), the ranks' check that they run one program
 * (mb_comm_agree_program): the settings two programs compare differ in number, so their first
 * collectives would not pair either (campaign 18's M6).
 */
#include "mb_comm.h"
#include "../../data/mb_parse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t mb_comm_dbits(double x)
{
    uint64_t v;
    memcpy(&v, &x, sizeof v);
    return v;
}

uint64_t mb_comm_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* A setting's value as the message quotes it: what the rank uses, its default resolved. */
static void setting_text(const mb_comm_setting *s, char *v, size_t n)
{
    double x;
    memcpy(&x, &s->v, sizeof x);
    char e[32];
    if (s->kind == MB_COMM_SET_HASH && s->text)
        snprintf(v, n, "'%s'", s->text);
    else if (s->kind == MB_COMM_SET_HASH)
        snprintf(v, n, s->dflt ? "none" : "fingerprint %016llx", (unsigned long long)s->v);
    else if (s->text)
        snprintf(v, n, "%s", s->text);
    else if (s->kind == MB_COMM_SET_DOUBLE)
        snprintf(v, n, "%s", isnan(x) ? "none" : mb_data_fmt_exact(e, sizeof e, x));
    else
        snprintf(v, n, "%llu", (unsigned long long)s->v);
    if (s->dflt && s->kind != MB_COMM_SET_HASH)
        snprintf(v + strlen(v), n - strlen(v), " (the default)");
}

/* Every rank takes rank 0's settings (a broadcast) and says which of its own differ (an
 * allreduce of one flag per setting), so that every rank knows, and all refuse together: rank
 * 0 with one line naming the first difference, the others silently (nobody is left waiting,
 * nothing need be aborted). Rank 0's own set-up verdict rc0 travels along, so that a failure
 * there ends every rank the same way. */
int mb_comm_agree(mb_communicator *c, const mb_comm_setting *s, int n, int rc0, int *together,
                  int *disagree, mb_error *err)
{
    if (together)
        *together = 0;
    if (disagree)
        *disagree = 0;
    float *mine = malloc((size_t)(5 * n + 2) * sizeof *mine); /* mine, theirs, diff */
    if (!mine)
        return mb_error_set(err, MB_ENOMEM, "out of memory to compare the ranks' settings");
    float *theirs = mine + 2 * n + 1, *diff = theirs + 2 * n + 1;
    for (int k = 0; k < n; k++)
        memcpy(&mine[2 * k], &s[k].v, sizeof s[k].v);
    mine[2 * n] = (float)rc0;
    memcpy(theirs, mine, (size_t)(2 * n + 1) * sizeof *mine);
    int rank = mb_comm_rank(c), P = mb_comm_size(c), rc;
    if ((rc = mb_comm_bcast(c, theirs, (size_t)(2 * n + 1), 0)) != MB_OK) {
        free(mine);
        return mb_error_set(err, rc, "the ranks could not exchange their settings");
    }
    for (int k = 0; k < n; k++)
        diff[k] = memcmp(&mine[2 * k], &theirs[2 * k], sizeof s[k].v) != 0;
    if ((rc = mb_comm_allreduce_sum(c, diff, (size_t)n)) != MB_OK) {
        free(mine);
        return mb_error_set(err, rc, "the ranks could not compare their settings");
    }
    if (together)
        *together = 1;
    rc = (int)theirs[2 * n];
    for (int k = 0; k < n; k++) {
        if (diff[k] == 0)
            continue;
        if (disagree)
            *disagree = 1;
        int others = (int)diff[k];
        free(mine);
        if (rank != 0) { /* rank 0 says it */
            mb_error_clear(err);
            if (err)
                err->status = MB_EINVAL;
            return MB_EINVAL;
        }
        char v[96];
        setting_text(&s[k], v, sizeof v);
        return mb_error_set(err, MB_EINVAL, "ranks disagree on %s: rank 0 has %s, %d of the "
                            "other %d rank%s another value: start every rank with the same "
                            "settings", s[k].flag, v, others, P - 1, P > 2 ? "s have" : " has");
    }
    free(mine);
    if (rc != 0) { /* rank 0 failed its set-up: its message is the one */
        if (rank != 0) {
            mb_error_clear(err);
            if (err)
                err->status = rc;
        }
        return rc;
    }
    if (together)
        *together = 0;
    return MB_OK;
}

/* Rank r's program name out of the exchange's slots (at most MB_COMM_PROGRAM_MAX bytes). */
static void slot_name(const float *all, int r, char *out)
{
    for (size_t k = 0; k < MB_COMM_PROGRAM_MAX; k++)
        out[k] = (char)(unsigned char)all[(size_t)r * MB_COMM_PROGRAM_MAX + k];
    out[MB_COMM_PROGRAM_MAX - 1] = '\0';
}

/* Every rank's program name in its own slot of one allreduce (a name's bytes as floats, exact:
 * 0..255; the other ranks add zeros), so that the exchange has the same size in every program
 * (P x MB_COMM_PROGRAM_MAX floats) and pairs whichever programs the ranks run. Each rank then
 * holds every name, compares them with rank 0's alike, and all refuse together: rank 0 with one
 * line naming its program and the first other, the others silently (as mb_comm_agree). */
int mb_comm_agree_program(mb_communicator *c, const char *program, mb_error *err)
{
    const int rank = mb_comm_rank(c), P = mb_comm_size(c);
    const size_t w = MB_COMM_PROGRAM_MAX;
    if (P < 2)
        return MB_OK;
    float *all = calloc((size_t)P * w, sizeof *all);
    if (!all)
        return mb_error_set(err, MB_ENOMEM, "out of memory to compare the ranks' programs");
    for (size_t k = 0; program && program[k] && k < w - 1; k++)
        all[(size_t)rank * w + k] = (float)(unsigned char)program[k];
    int rc = mb_comm_allreduce_sum(c, all, (size_t)P * w);
    if (rc != MB_OK) {
        free(all);
        return mb_error_set(err, rc, "the ranks could not exchange their programs");
    }
    char first[MB_COMM_PROGRAM_MAX], one[MB_COMM_PROGRAM_MAX], other[MB_COMM_PROGRAM_MAX] = "";
    int at = -1, others = 0;
    slot_name(all, 0, first);
    for (int r = 1; r < P; r++) {
        slot_name(all, r, one);
        if (strcmp(one, first) != 0 && others++ == 0) {
            at = r;
            memcpy(other, one, sizeof one);
        }
    }
    free(all);
    if (!others)
        return MB_OK;
    if (rank != 0) { /* rank 0 says it */
        mb_error_clear(err);
        if (err)
            err->status = MB_EINVAL;
        return MB_EINVAL;
    }
    return mb_error_set(err, MB_EINVAL, "ranks disagree on the program: rank 0 runs %s, rank %d "
                        "runs %s (%d of the other %d rank%s another): start every rank of the "
                        "mpirun with the same program", first, at, other[0] ? other : "none named",
                        others, P - 1, P > 2 ? "s run" : " runs");
}
