/* test_plots.c — plots/ and mbplot: every figure renders a real image through gnuplot from the
 * stage files, an empty series is an error rather than an empty picture, and bad input gives one
 * line and a non-zero exit with nothing left behind.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../plots/mb_plot.h"
#include "mb_test.h"

static const char STEP[] =
    "# source=test\n"
    "backend,net,batch,learners,threads,reps,t_median_s,t_min_s,t_p25_s,t_p75_s,t_max_s,"
    "samples_per_s\n"
    "cpu,tiny,1,1,2,9,0.00121,0.0011,0.00118,0.00125,0.0013,826\n"
    "cpu,tiny,8,1,2,9,0.00127,0.0012,0.00124,0.0013,0.0014,6299\n"
    "cpu,tiny,64,1,2,9,0.0093,0.0091,0.0092,0.0095,0.0101,6881\n"
    "cpu,tiny,512,1,2,9,0.0731,0.0722,0.0727,0.0736,0.0741,7004\n";

static const char COMM[] = "op,procs,bytes,reps,t_median_s,t_min_s,t_max_s\n"
                           "allreduce,2,4,100,2.1e-6,1.9e-6,3.3e-6\n"
                           "allreduce,2,65536,100,1.9e-5,1.7e-5,2.6e-5\n"
                           "allreduce,2,4194304,20,1.6e-3,1.5e-3,1.9e-3\n"
                           "ps,2,4,100,3.0e-6,2.7e-6,4.1e-6\n"
                           "ps,2,65536,100,3.3e-5,3.1e-5,4.0e-5\n";

/* A PNG starts with its 8-byte signature; a real figure is more than a few hundred bytes. */
static int is_png(const char *path)
{
    FILE *f = fopen(path, "rb");
    unsigned char sig[8] = {0};
    struct stat st;
    int ok = f && fread(sig, 1, 8, f) == 8 && memcmp(sig, "\x89PNG\r\n\x1a\n", 8) == 0 &&
             stat(path, &st) == 0 && st.st_size > 2000;
    if (f)
        fclose(f);
    return ok;
}

static void test_figures_render(void)
{
    char dir[256], step[512], comm[512], tfit[512], cfit[512], out[600];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    mb_test_write(step, sizeof step, dir, "step.csv", STEP);
    mb_test_write(comm, sizeof comm, dir, "comm.csv", COMM);
    mb_test_write(tfit, sizeof tfit, dir, "t.json",
                  "{\"params\":{\"gamma\":1.42e-4,\"m_t\":8.7,\"delta\":0}}");
    mb_test_write(cfit, sizeof cfit, dir, "c.json",
                  "{\"params\":{\"latency_s\":1.1e-6,\"s_per_byte\":3.7e-10}}");
    mb_plot_options o;
    mb_plot_options_init(&o);
    mb_error e = {0};
    snprintf(out, sizeof out, "%s/step.png", dir);
    CU_ASSERT_EQUAL(mb_plot_step(step, tfit, out, &o, &e), MB_OK);
    CU_ASSERT_TRUE(is_png(out));
    snprintf(out, sizeof out, "%s/comm.png", dir);
    CU_ASSERT_EQUAL(mb_plot_comm(comm, cfit, out, &o, &e), MB_OK);
    CU_ASSERT_TRUE(is_png(out));
    const double ratios[] = {0.02, 0.1};
    snprintf(out, sizeof out, "%s/amdahl.png", dir);
    CU_ASSERT_EQUAL(mb_plot_amdahl(ratios, 2, 128, out, &o, &e), MB_OK);
    CU_ASSERT_TRUE(is_png(out));
    o.format = MB_PLOT_SVG;
    snprintf(out, sizeof out, "%s/amdahl.svg", dir);
    CU_ASSERT_EQUAL(mb_plot_amdahl(ratios, 2, 16, out, &o, &e), MB_OK);
    mb_test_run r;
    CU_ASSERT_EQUAL(mb_test_sh(&r, "grep -c '<svg' %s", out), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    mb_test_run_free(&r);

    /* scale and tc from mbopt's own JSON, through the commands */
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "mbopt scale --n-inf 950 --alpha 2.2e5 --gamma 3e-5 "
                                         "--m-t 24 --delta 3e-3 --procs 1:256 --json -o %s/s.json"
                                         " && mbplot scale %s/s.json -o %s/scale.png"
                                         " && mbplot tc %s/s.json -o %s/tc.png --curves 3",
                                     dir, dir, dir, dir, dir), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    mb_test_run_free(&r);
    snprintf(out, sizeof out, "%s/scale.png", dir);
    CU_ASSERT_TRUE(is_png(out));
    snprintf(out, sizeof out, "%s/tc.png", dir);
    CU_ASSERT_TRUE(is_png(out));

    /* N_update from mbfit's JSON of the shipped example runs */
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "mbfit nupdate --target-loss 0.5 "
                                         "data/examples/fit_runs/*.csv --json -o %s/n.json "
                                         "2>/dev/null && mbplot nupdate %s/n.json -o %s/n.png",
                                     dir, dir, dir), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    mb_test_run_free(&r);
    snprintf(out, sizeof out, "%s/n.png", dir);
    CU_ASSERT_TRUE(is_png(out));
    mb_test_rmdir(dir);
}

static void test_plot_errors(void)
{
    char dir[256], path[512], out[600];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    mb_plot_options o;
    mb_plot_options_init(&o);
    mb_error e = {0};
    /* a header without rows: nothing to draw */
    mb_test_write(path, sizeof path, dir, "empty.csv",
                  "backend,net,batch,learners,threads,reps,t_median_s,t_min_s,t_p25_s,t_p75_s,"
                  "t_max_s,samples_per_s\n");
    snprintf(out, sizeof out, "%s/x.png", dir);
    CU_ASSERT_EQUAL(mb_plot_step(path, NULL, out, &o, &e), MB_ENODATA);
    /* a series whose every value is NaN is refused before gnuplot runs */
    mb_plot *p;
    CU_ASSERT_EQUAL_FATAL(mb_plot_begin(&p, &o, out, &e), MB_OK);
    mb_plot_block(p, "a");
    double v[2] = {1, 0.0 / 0.0};
    mb_plot_row(p, v, 2);
    mb_plot_cmd(p, "plot $a u 1:2");
    static const char *const need[] = {"a", NULL};
    CU_ASSERT_EQUAL(mb_plot_finish(p, need, &e), MB_ENODATA);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "no finite data for series 'a'"));
    /* gnuplot's own failure is reported with its message, and leaves no file */
    CU_ASSERT_EQUAL_FATAL(mb_plot_begin(&p, &o, out, &e), MB_OK);
    mb_plot_cmd(p, "plot $nosuchblock u 1:2");
    CU_ASSERT_EQUAL(mb_plot_finish(p, NULL, &e), MB_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "gnuplot failed"));
    struct stat st;
    CU_ASSERT_NOT_EQUAL(stat(out, &st), 0);
    mb_test_run r;
    CU_ASSERT_EQUAL(mb_test_sh(&r, "ls %s | grep -c tmp", dir), 0);
    CU_ASSERT_STRING_EQUAL(r.out, "0\n"); /* no temporary left behind */
    mb_test_run_free(&r);
    /* a missing column names the file and column */
    mb_test_write(path, sizeof path, dir, "cols.csv", "op,procs,bytes\nallreduce,2,4\n");
    CU_ASSERT_EQUAL(mb_plot_comm(path, NULL, out, &o, &e), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "no column 't_median_s'"));

    static const struct {
        const char *args, *needle;
        int status;
    } cli[] = {
        {"mbplot", "missing command", 2},
        {"mbplot draw x", "unknown command 'draw'", 2},
        {"mbplot step", "missing the input file", 2},
        {"mbplot step --bogus x.csv", "unknown option '--bogus'", 2},
        {"mbplot step /no/such.csv", "/no/such.csv: cannot open", 1},
        {"mbplot amdahl --format jpeg", "--format: 'jpeg' is not png or svg", 1},
        {"mbplot amdahl --overhead-ratio 0", "'0' is not a positive number", 1},
        {"mbplot amdahl --gpus 1", "--gpus: must be >= 2", 1},
        {"mbplot scale " MB_TEST_SRC "/data/examples/nfit.json", "no 'rows' array", 1},
    };
    for (size_t i = 0; i < sizeof cli / sizeof cli[0]; i++) {
        CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "cd %s && %s", dir, cli[i].args), 0);
        CU_ASSERT_EQUAL(r.status, cli[i].status);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, cli[i].needle));
        CU_ASSERT_EQUAL(mb_test_lines(r.err), cli[i].status == 2 ? 2u : 1u);
        mb_test_run_free(&r);
    }
    mb_test_rmdir(dir);
}

int mb_test_suite_plots(void)
{
    CU_pSuite s = CU_add_suite("plots", NULL, NULL);
    return !s || !CU_add_test(s, "figures render", test_figures_render) ||
           !CU_add_test(s, "errors", test_plot_errors);
}
