/* test_data_format.c — the format version of mbkit's files (data/format.c, docs/formats.md):
 * the writers put "# format=mbkit-KIND/1" first (CSV) or "format": "mbkit-KIND/1" (JSON); the
 * readers accept a file without it (read as version 1) and the PyTorch front end's older bare
 * "1", and refuse another kind, a newer version or a malformed value with one line naming the
 * file, the line and the field, exit 1, nothing written.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../data/mb_format.h"
#include "../data/mb_output.h"
#include "../data/mb_parse.h"
#include "mb_test.h"

static char dir[256];

static int suite_init(void) { return mb_test_tmpdir(dir, sizeof dir); }
static int suite_clean(void)
{
    mb_test_rmdir(dir);
    return 0;
}

/* A run log of M = m whose eval loss first reaches 0.5 at update n, with `format` as its first
 * metadata line (none when NULL), ending as mbtrain's do with a summary line. */
static const char *log_with(char *path, size_t n, const char *name, const char *format, int m,
                            int upd)
{
    char text[1024];
    snprintf(text, sizeof text, "%s%s%s# tool=mbtrain\n# batch=%d\n# seed=0\n"
             "update,wall_s,eval_loss\n1,0.1,\n%d,0.5,0.9\n%d,0.9,0.45\n"
             "# net=t algo=sgd batch=%d seed=0 updates=%d reached=yes epochs=1 samples=%d "
             "wall_s=0.9 eval_s=0 loss=0.4 eval_loss=0.45 eval_acc=0.9 test_loss=0.4 "
             "test_acc=0.9 reached_update=%d reached_wall_s=0.9 evals=2 checks=0 eval_samples=4 "
             "snap_s=0 diverged=no diverged_update=0\n",
             format ? "# format=" : "", format ? format : "", format ? "\n" : "", m, upd / 2,
             upd, m, upd, m * upd, upd);
    return mb_test_write(path, n, dir, name, text);
}

/* The check itself: kinds, versions, forms; the line named is the format line's. */
static void test_check_table(void)
{
    static const struct {
        const char *value; /* NULL: no format line */
        const char *kind;
        int ok;
        const char *needle;
    } cases[] = {
        {NULL, MB_FORMAT_RUNLOG, 1, ""},
        {"mbkit-runlog/1", MB_FORMAT_RUNLOG, 1, ""},
        {"1", MB_FORMAT_STEP, 1, ""}, /* the PyTorch front end's first files */
        {"mbkit-runlog/2", MB_FORMAT_RUNLOG, 0, "mbkit-runlog/2 is newer than this mbkit"},
        {"mbkit-step/1", MB_FORMAT_RUNLOG, 0, "is a step table, not a run log (mbkit-runlog)"},
        {"mbkit-runlog/0", MB_FORMAT_RUNLOG, 0, "is not a format version"},
        {"2", MB_FORMAT_RUNLOG, 0, "'2' is not a format version"},
        {"runlog/1", MB_FORMAT_RUNLOG, 0, "is not a format version"},
        {"mbkit-runlog/1.5", MB_FORMAT_RUNLOG, 0, "is not a format version"},
        {"mbkit-Run log/1", MB_FORMAT_RUNLOG, 0, "is not a format version"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[512], name[32];
        mb_test_run r = {0};
        snprintf(name, sizeof name, "c%zu.csv", i);
        log_with(path, sizeof path, name, cases[i].value, 8, 100);
        mb_table *t = NULL;
        mb_error err = {0};
        /* the fixture is mbtrain's log: checked as a step table it is the front end's probe
         * table's (a `# tool=` of another kind's writer is refused, campaign 39's D6) */
        if (strcmp(cases[i].kind, MB_FORMAT_STEP) == 0) {
            int done = mb_test_sh_ok(&r, "sed -i 's/^# tool=mbtrain$/# tool=mbkit_torch probe/' "
                                     "%s", path);
            mb_test_run_free(&r);
            if (!done)
                continue;
        }
        CU_ASSERT_EQUAL_FATAL(mb_table_read(path, &t, &err), MB_OK);
        int rc = mb_format_check_table(t, cases[i].kind, &err);
        int ok = cases[i].ok ? rc == MB_OK
                             : rc == MB_EFORMAT && strstr(err.msg, cases[i].needle) &&
                                   strstr(err.msg, ":1: field 'format'") &&
                                   strstr(err.msg, name);
        if (!ok)
            fprintf(stderr, "\n  format '%s' as %s: rc %d, '%s'\n", cases[i].value,
                    cases[i].kind, rc, err.msg);
        CU_ASSERT(ok);
        mb_table_free(t);
    }
}

/* The writers: a run log, a step table and a validation CSV name their kind first; a fit's and
 * mbopt's JSON carry it at the top. */
static void test_writers(void)
{
    char path[512];
    FILE *f = fopen(strcat(strcpy(path, dir), "/meta.txt"), "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char *argv[] = {"mbtrain", "--batch", "8"};
    mb_data_write_common_meta(f, "mbtrain", 3, argv);
    mb_data_write_common_meta(f, "mbprobe step", 3, argv);
    mb_data_write_common_meta(f, "mbprobe learners", 3, argv);
    mb_data_write_common_meta(f, "mbprobe comm", 3, argv);
    mb_data_write_common_meta(f, "mbtest", 3, argv); /* no kind: no line */
    fclose(f);
    mb_test_run r;
    if (mb_test_sh_ok(&r, "grep '^# format=' %s", path))
        CU_ASSERT_STRING_EQUAL(r.out, "# format=mbkit-runlog/1\n# format=mbkit-step/1\n"
                                      "# format=mbkit-step/1\n# format=mbkit-comm/1\n");
    mb_test_run_free(&r);
    if (mb_test_sh_ok(&r, "mbfit nupdate data/examples/nupdate_points.csv --json -o %s/n.json "
                      "&& grep '\"format\"' %s/n.json", dir, dir))
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"mbkit-fit/1\""));
    mb_test_run_free(&r);
}

/* End to end: mbfit refuses a run log of another kind or a newer version in one line, exit 1,
 * and writes nothing; a log without the line is read; mbopt refuses a fit of a newer version
 * and a scale file given as --nfit. */
static void test_readers(void)
{
    char a[512], b[512], c[512];
    log_with(a, sizeof a, "a.csv", NULL, 8, 100);
    log_with(b, sizeof b, "b.csv", "mbkit-runlog/1", 16, 60);
    log_with(c, sizeof c, "c.csv", "mbkit-runlog/1", 32, 40);
    mb_test_run r;
    mb_test_sh_ok(&r, "mbfit nupdate --target-loss 0.5 %s %s %s", a, b, c);
    mb_test_run_free(&r);
    char args[2048];
    log_with(c, sizeof c, "newer.csv", "mbkit-runlog/9", 32, 40);
    snprintf(args, sizeof args, "nupdate --target-loss 0.5 %s %s %s --json -o %s/out.json", a,
             b, c, dir);
    mb_test_expect_failure("mbfit", args, 1, "newer.csv:1: field 'format': mbkit-runlog/9 is "
                                             "newer than this mbkit");
    log_with(c, sizeof c, "step.csv", "mbkit-step/1", 32, 40);
    snprintf(args, sizeof args, "nupdate --target-loss 0.5 %s %s %s --json -o %s/out.json", a,
             b, c, dir);
    mb_test_expect_failure("mbfit", args, 1, "step.csv:1: field 'format': mbkit-step/1 is a "
                                             "step table, not a run log");
    snprintf(args, sizeof args, "%s/out.json", dir);
    CU_ASSERT_NOT_EQUAL(access(args, F_OK), 0); /* nothing half-written */

    char nfit[512], scale[512];
    mb_test_write(nfit, sizeof nfit, dir, "nfit2.json",
                  "{\"format\": \"mbkit-fit/2\", \"model\": \"inverse-law\", "
                  "\"params\": {\"n_inf\": 100, \"alpha\": 6400}}\n");
    mb_test_write(scale, sizeof scale, dir, "scale.json",
                  "{\"format\": \"mbkit-scale/1\", \"model\": \"inverse-law\", "
                  "\"params\": {\"n_inf\": 100, \"alpha\": 6400}}\n");
    snprintf(args, sizeof args, "scale --nfit %s --gamma 1e-4 --m-t 16 --comm none --procs 1",
             nfit);
    mb_test_expect_failure("mbopt", args, 1, "nfit2.json: key 'format': mbkit-fit/2 is newer");
    snprintf(args, sizeof args, "scale --nfit %s --gamma 1e-4 --m-t 16 --comm none --procs 1",
             scale);
    mb_test_expect_failure("mbopt", args, 1, "scale.json: key 'format': mbkit-scale/1 is a "
                                             "scale file");
}

int mb_test_suite_data_format(void)
{
    CU_pSuite s = CU_add_suite("data_format", suite_init, suite_clean);
    if (!s)
        return -1;
    return !CU_add_test(s, "format check: kinds, versions, forms, the line", test_check_table) ||
           !CU_add_test(s, "writers: CSV and JSON carry their kind and version", test_writers) ||
           !CU_add_test(s, "readers: another kind or a newer version refused", test_readers);
}
