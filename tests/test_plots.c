/* test_plots.c — plots/ and mbplot: every figure renders a real image through gnuplot from the
 * stage files, an empty series is an error rather than an empty picture, and bad input gives one
 * line and a non-zero exit with nothing left behind.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../plots/mb_plot.h"
#include "mb_test.h"
#include "../data/mb_json.h"
#include "../solver/mb_solver.h"

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

/* A command line, what its stderr must contain, and its exit status. */
typedef struct cli_case {
    const char *args, *needle;
    int status;
} cli_case;

/* Runs each case in dir: the status, the message, and one line (two with "Try ... --help" for
 * usage errors, status 2). */
static void check_cli(const char *dir, const cli_case *cli, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        mb_test_run r;
        CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "cd %s && %s", dir, cli[i].args), 0);
        CU_ASSERT_EQUAL(r.status, cli[i].status);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, cli[i].needle));
        CU_ASSERT_EQUAL(mb_test_lines(r.err), cli[i].status == 2 ? 2u : 1u);
        mb_test_run_free(&r);
    }
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
    /* a fit whose best law is the shifted law: drawn beside the inverse law; its parameters
     * are read as mbopt reads them, so a bad m_0 is refused naming the file */
    static const char *const nfit =
        "{\"params\":{\"n_inf\":32.5,\"alpha\":5788},\"per_m\":[{\"batch\":16,\"mean\":817,"
        "\"se\":10},{\"batch\":64,\"mean\":120,\"se\":5},{\"batch\":512,\"mean\":52,\"se\":1}],"
        "\"best\":{\"model\":\"shifted-law\",\"params\":{\"n_inf\":40.9,\"alpha\":3815,"
        "\"m_0\":%s}}}";
    char json[512];
    snprintf(json, sizeof json, nfit, "11.3");
    mb_test_write(out, sizeof out, dir, "ns.json", json);
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "mbplot nupdate %s/ns.json -o %s/ns.png", dir, dir), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    mb_test_run_free(&r);
    snprintf(out, sizeof out, "%s/ns.png", dir);
    CU_ASSERT_TRUE(is_png(out));
    snprintf(json, sizeof json, nfit, "\"x\"");
    mb_test_write(out, sizeof out, dir, "nb.json", json);
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "mbplot nupdate %s/nb.json -o %s/nb.png", dir, dir), 0);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "nb.json"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "m_0"));
    mb_test_run_free(&r);
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
    /* the step figure's fitted lines come from by_learners when the fit has it: a learner
     * count there without gamma is an error naming the file and the key */
    char step[512], tfit[512];
    mb_test_write(step, sizeof step, dir, "step.csv", STEP);
    mb_test_write(tfit, sizeof tfit, dir, "t.json",
                  "{\"learners\":1,\"params\":{\"gamma\":1.4e-4,\"m_t\":8.7},"
                  "\"by_learners\":[{\"learners\":1,\"params\":{\"m_t\":8.7}}]}");
    CU_ASSERT_EQUAL(mb_plot_step(step, tfit, out, &o, &e), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "t.json"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "gamma"));
    CU_ASSERT_NOT_EQUAL(stat(out, &st), 0);
    /* a missing column names the file and column */
    mb_test_write(path, sizeof path, dir, "cols.csv", "op,procs,bytes\nallreduce,2,4\n");
    CU_ASSERT_EQUAL(mb_plot_comm(path, NULL, out, &o, &e), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "no column 't_median_s'"));

    static const cli_case cli[] = {
        {"mbplot", "missing command", 2},
        {"mbplot draw x", "unknown command 'draw'", 2},
        {"mbplot step", "missing the input file", 2},
        {"mbplot step --bogus x.csv", "unknown option '--bogus'", 2},
        {"mbplot step /no/such.csv", "/no/such.csv: cannot open", 1},
        {"mbplot amdahl --format jpeg", "--format: 'jpeg' is not png or svg", 1},
        {"mbplot amdahl --overhead-ratio 0", "'0' is not a positive number", 1},
        {"mbplot amdahl --gpus 1", "--gpus: must be a whole number in [2, 9007199254740992]", 1},
        {"mbplot scale " MB_TEST_SRC "/data/examples/nfit.json", "no 'rows' array", 1},
    };
    check_cli(dir, cli, sizeof cli / sizeof cli[0]);
    mb_test_rmdir(dir);
}

/* ---- mbplot report ------------------------------------------------------------------------- */

#define PNG_SIG "\x89PNG\r\n\x1a\n"
#define PNG_END "IEND\xae\x42\x60\x82" /* the IEND chunk's type and CRC: a PNG's last 8 bytes */

/* Decodes base64 (RFC 4648) from s up to the first character outside the alphabet; returns the
 * bytes (malloc'd, *n of them) or NULL on a malformed length. Written here, apart from the
 * encoder in plots/report.c, so the test does not check the encoder against itself. */
static unsigned char *unbase64(const char *s, size_t *n)
{
    static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t len = 0;
    while (s[len] && (strchr(A, s[len]) || s[len] == '='))
        len++;
    if (len == 0 || len % 4)
        return NULL;
    unsigned char *out = malloc(len / 4 * 3);
    size_t o = 0;
    for (size_t i = 0; out && i < len; i += 4) {
        unsigned long v = 0;
        int pad = 0;
        for (int k = 0; k < 4; k++) {
            v <<= 6;
            if (s[i + k] == '=')
                pad++;
            else
                v |= (unsigned long)(strchr(A, s[i + k]) - A);
        }
        out[o++] = (unsigned char)(v >> 16);
        if (pad < 2)
            out[o++] = (unsigned char)(v >> 8);
        if (pad < 1)
            out[o++] = (unsigned char)v;
    }
    *n = o;
    return out;
}

/* Counts the embedded images of `mime` in html whose decoded bytes start with `magic`, end with
 * `tail` before any trailing newlines (a PNG's IEND chunk, an SVG's closing tag: so a wrong byte
 * count or padding shows) and are more than 1000 bytes. Returns -1 when one does not. */
static int embedded(const char *html, const char *mime, const char *magic, const char *tail,
                    size_t tail_len)
{
    const size_t at = 0;
    char key[64];
    snprintf(key, sizeof key, "src=\"data:%s;base64,", mime);
    int count = 0;
    for (const char *q = strstr(html, key); q; q = strstr(q + 1, key)) {
        size_t n;
        unsigned char *b = unbase64(q + strlen(key), &n);
        size_t end = n;
        while (b && end > 0 && b[end - 1] == '\n')
            end--;
        int ok = b && n > 1000 && n > at + strlen(magic) &&
                 memcmp(b + at, magic, strlen(magic)) == 0 &&
                 end > tail_len && memcmp(b + end - tail_len, tail, tail_len) == 0 &&
                 q[strlen(key) + (n + 2) / 3 * 4] == '"';
        free(b);
        if (!ok)
            return -1;
        count++;
    }
    return count;
}

/* The number in data-value="..." of the element with id `id`, NAN when absent. */
static double data_value(const char *html, const char *id)
{
    char key[64];
    snprintf(key, sizeof key, "id=\"%s\" data-value=\"", id);
    const char *q = strstr(html, key);
    return q ? strtod(q + strlen(key), NULL) : 0.0 / 0.0;
}

static char *slurp(const char *dir, const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    if (b)
        b[n] = '\0';
    fclose(f);
    return b;
}

/* A fit whose best law is the shifted law: the report's parameters show that law (with M_0)
 * beside the inverse law, and the model mbopt solved names it, not the inverse law's numbers. */
static void test_report_shifted(void)
{
    char dir[256], path[600];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    mb_test_write(path, sizeof path, dir, "nfit.json",
                  "{\"model\":\"inverse-law\",\"params\":{\"n_inf\":91.5,\"alpha\":9874.8},"
                  "\"converged_range\":[8,512],\"per_m\":[{\"batch\":16,\"mean\":700,\"se\":9},"
                  "{\"batch\":64,\"mean\":250,\"se\":5}],\"best\":{\"model\":\"shifted-law\","
                  "\"params\":{\"n_inf\":105.2,\"alpha\":5530.9,\"m_0\":5.25}},\"laws\":{"
                  "\"shifted-law\":{\"model\":\"shifted-law\",\"params\":{\"n_inf\":105.2,"
                  "\"alpha\":5530.9,\"m_0\":5.25}}}}");
    mb_test_run r;
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "cd %s && mbopt scale --nfit nfit.json --gamma 2e-5 "
                                         "--m-t 8 --comm none --procs 1 --json -o scale.json && "
                                         "mbplot report . 2>/dev/null", dir), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    mb_test_run_free(&r);
    char *html = slurp(dir, "report.html");
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "The law mbopt optimised: N<sub>update</sub>(M) = "));
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "M<sub>0</sub>: the shifted law's pole"));
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "the shifted law: N<sub>&infin;</sub> = 105.2, &alpha; = "
                                        "5530.9, M<sub>0</sub> = 5.25"));
    free(html);
    mb_test_rmdir(dir);
}

/* The whole pipeline's folder, made by the real commands on the shipped examples. */
static void test_report_full(void)
{
    char dir[256], cmds[4096], path[600];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    const char *const steps[] = {
        "mkdir -p %1$s/runs/lr0.05", /* make run's layout: a folder per learning rate */
        "cp data/examples/fit_runs/run_M*.csv %1$s/runs/lr0.05/",
        "cp data/examples/step.csv data/examples/comm.csv %1$s/",
        "mbfit nupdate --target-loss 0.5 %1$s/runs/lr0.05/*.csv --json -o %1$s/nfit.json "
        "2>/dev/null",
        "mbfit tupdate %1$s/step.csv %1$s/runs/lr0.05/*.csv --json -o %1$s/tfit.json 2>/dev/null",
        "mbfit comm %1$s/comm.csv --json -o %1$s/cfit.json 2>/dev/null",
        "mbopt scale --nfit %1$s/nfit.json --tfit %1$s/tfit.json --cfit %1$s/cfit.json "
        "--bytes 241K --procs 1:64 -o %1$s/scale.txt",
        "mbopt scale --nfit %1$s/nfit.json --tfit %1$s/tfit.json --cfit %1$s/cfit.json "
        "--bytes 241K --procs 1:64 --json -o %1$s/scale.json",
    };
    size_t used = 0;
    cmds[0] = '\0';
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        char line[600];
        snprintf(line, sizeof line, steps[i], dir);
        used += (size_t)snprintf(cmds + used, sizeof cmds - used, "%s\n", line);
    }
    mb_test_run r;
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "set -e\n%s", cmds), 0);
    CU_ASSERT_EQUAL_FATAL(r.status, 0);
    mb_test_run_free(&r);
    mb_test_write(path, sizeof path, dir, "commands.txt", cmds);

    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "mbplot report %s", dir), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    snprintf(path, sizeof path, "%s/report.html\n", dir);
    CU_ASSERT_STRING_EQUAL(r.out, path); /* the report's path, and nothing else */
    CU_ASSERT_STRING_EQUAL(r.err, "");   /* nothing missing, nothing to note */
    mb_test_run_free(&r);
    char *html = slurp(dir, "report.html");
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);

    /* every section, in the order the brief asks for */
    const char *const ids[] = {"id=\"recommendation\"", "id=\"parameters\"", "id=\"figures\"",
                               "id=\"inputs\"", "id=\"reproduce\""};
    const char *prev = html;
    for (size_t i = 0; i < 5; i++) {
        const char *q = strstr(html, ids[i]);
        CU_ASSERT_PTR_NOT_NULL(q);
        CU_ASSERT_TRUE(q && q > prev);
        prev = q ? q : prev;
    }
    /* six figures, each a decodable PNG; self-contained: no scripts, nothing fetched */
    CU_ASSERT_EQUAL(embedded(html, "image/png", PNG_SIG, PNG_END, 8), 6);
    CU_ASSERT_PTR_NULL(strstr(html, "<script"));
    CU_ASSERT_PTR_NULL(strstr(html, "http://"));
    CU_ASSERT_PTR_NULL(strstr(html, "https://"));
    CU_ASSERT_PTR_NULL(strstr(html, "missing: no file from"));

    /* the recommendation is scale.json's "enough" row, to the last bit (written with %.17g) */
    snprintf(path, sizeof path, "%s/scale.json", dir);
    cJSON *scale;
    mb_error e = {0};
    CU_ASSERT_EQUAL_FATAL(mb_json_read(path, &scale, &e), MB_OK);
    const cJSON *rec = cJSON_GetObjectItemCaseSensitive(scale, "enough");
    const char *const keys[][2] = {{"rec-procs", "procs"}, {"rec-m", "m_opt"}, {"rec-tc", "t_c"},
                                   {"rec-speedup", "speedup"}, {"rec-efficiency", "efficiency"}};
    for (size_t i = 0; i < 5; i++) {
        double want = cJSON_GetObjectItemCaseSensitive(rec, keys[i][1])->valuedouble;
        CU_ASSERT_EQUAL(data_value(html, keys[i][0]), want);
    }
    /* and the shown text agrees with it: "M = <span ...>NNN</span>" rounded to a sample */
    char shown[96];
    snprintf(shown, sizeof shown, "\">%.0f</span></b> samples",
             cJSON_GetObjectItemCaseSensitive(rec, "m_opt")->valuedouble);
    CU_ASSERT_PTR_NOT_NULL(strstr(html, shown));
    cJSON_Delete(scale);

    /* the fitted parameters' 95% intervals, as nfit.json gives them */
    snprintf(path, sizeof path, "%s/nfit.json", dir);
    cJSON *nfit;
    CU_ASSERT_EQUAL_FATAL(mb_json_read(path, &nfit, &e), MB_OK);
    const cJSON *ci = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(nfit, "ci95"), "alpha");
    snprintf(shown, sizeof shown, "[%.5g, %.5g]", cJSON_GetArrayItem(ci, 0)->valuedouble,
             cJSON_GetArrayItem(ci, 1)->valuedouble);
    CU_ASSERT_PTR_NOT_NULL(strstr(html, shown));
    cJSON_Delete(nfit);
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "latency_s")); /* the collective fit is there too */

    /* How to reproduce: commands.txt verbatim (HTML-escaped), and the inputs' metadata */
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "--json -o "));
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "2&gt;/dev/null"));
    CU_ASSERT_PTR_NULL(strstr(html, "2>/dev/null"));
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "# from runs/lr0.05/run_M16_s0.csv"));
    /* T_update calibrated by the runs: the report says so, with the probe beside them */
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "is what 18 training runs measured"));
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "<th>probe's error</th>"));
    free(html);
    mb_test_rmdir(dir);
}

/* A lenet5 convolution table: conv1 and conv2, three passes, gemm (workspace) and direct (none)
 * at batches 4 and 16; the times are invented, not measured. */
static const char CONV_TABLE[] =
    "layer,algo,pass,batch,t_median_s,workspace_bytes,status\n"
    "conv1,gemm,forward,4,2.71e-05,313600,measured\nconv1,direct,forward,4,9.3e-05,0,measured\n"
    "conv1,gemm,backward_data,4,2.9e-05,313600,measured\n"
    "conv1,direct,backward_data,4,9.9e-05,0,measured\n"
    "conv1,gemm,backward_filter,4,3.1e-05,313600,measured\n"
    "conv1,direct,backward_filter,4,8.8e-05,0,cached\n"
    "conv2,gemm,forward,4,5.3e-05,240000,measured\nconv2,direct,forward,4,2.1e-04,0,measured\n"
    "conv2,gemm,backward_data,4,5.1e-05,240000,measured\n"
    "conv2,direct,backward_data,4,2.3e-04,0,measured\n"
    "conv2,gemm,backward_filter,4,7.5e-05,240000,measured\n"
    "conv2,direct,backward_filter,4,2.2e-04,0,measured\n"
    "conv1,gemm,forward,16,9.71e-05,1254400,measured\nconv1,direct,forward,16,3.3e-04,0,measured\n"
    "conv1,gemm,backward_data,16,9.9e-05,1254400,measured\n"
    "conv1,direct,backward_data,16,3.9e-04,0,measured\n"
    "conv1,gemm,backward_filter,16,1.1e-04,1254400,measured\n"
    "conv1,direct,backward_filter,16,3.8e-04,0,measured\n"
    "conv2,gemm,forward,16,1.9e-04,960000,measured\nconv2,direct,forward,16,8.1e-04,0,measured\n"
    "conv2,gemm,backward_data,16,1.8e-04,960000,measured\n"
    "conv2,direct,backward_data,16,8.3e-04,0,measured\n"
    "conv2,gemm,backward_filter,16,2.5e-04,960000,measured\n"
    "conv2,direct,backward_filter,16,8.2e-04,0,measured\n";

/* scale given the runs: the report recommends what they settled on (scale.json's "settled"),
 * says how, and says so when they could not settle it. */
static void test_report_settled(void)
{
    char dir[256];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    mb_test_run r;
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "cd %s && mkdir -p runs && cp %s/data/examples/fit_runs/"
                                         "run_M*.csv %s/data/examples/step.csv . && mbfit nupdate "
                                         "--target-loss 0.5 run_M*.csv --json -o nfit.json && "
                                         "mbfit tupdate step.csv run_M*.csv --json -o tfit.json && "
                                         "mbopt scale --nfit nfit.json --tfit tfit.json "
                                         "--comm none "
                                         "--procs 1 --json -o scale.json run_M*.csv && "
                                         "mbplot report .", dir, MB_TEST_SRC, MB_TEST_SRC), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    mb_test_run_free(&r);
    char *html = slurp(dir, "report.html");
    char path[600];
    snprintf(path, sizeof path, "%s/scale.json", dir);
    cJSON *scale = NULL;
    mb_error e = {0};
    CU_ASSERT_EQUAL_FATAL(mb_json_read(path, &scale, &e), MB_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    const cJSON *st = cJSON_GetObjectItem(scale, "settled");
    CU_ASSERT_TRUE_FATAL(cJSON_IsNumber(cJSON_GetObjectItem(st, "batch")));
    CU_ASSERT_EQUAL(data_value(html, "rec-m"), mb_json_get(st, "batch"));
    CU_ASSERT_EQUAL(data_value(html, "rec-tc"), mb_json_get(st, "t_pred_s"));
    CU_ASSERT_EQUAL(data_value(html, "rec-tc-measured"), mb_json_get(st, "t_train_median_s"));
    CU_ASSERT_EQUAL(data_value(html, "settle-band"), 100 * mb_json_get(st, "band"));
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "so it cannot tell them apart"));
    free(html);
    /* settled by the runs where no trained M stood for the model's optimum: mbopt writes no
     * model run then (the zoo's lenet5, 2026-11-26: the report refused such a scale.json) */
    cJSON *sto = cJSON_GetObjectItem(scale, "settled");
    cJSON_ReplaceItemInObject(sto, "by", cJSON_CreateString("runs"));
    cJSON_DeleteItemFromObject(sto, "model_batch_run");
    cJSON_DeleteItemFromObject(sto, "model_t_train_median_s");
    char *text = cJSON_Print(scale);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    FILE *sf = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(sf);
    fputs(text, sf);
    fclose(sf);
    free(text);
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "cd %s && mbplot report .", dir), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    mb_test_run_free(&r);
    html = slurp(dir, "report.html");
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "no run trained the model's optimum itself"));
    free(html);
    cJSON_Delete(scale);
    /* a recommendation no run came near: the model's answer, and why the runs did not settle */
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "cd %s && mbopt scale --nfit nfit.json --tfit tfit.json "
                                         "--comm none --procs 1 --batch-range 1000:4000 --json -o "
                                         "scale.json run_M*.csv && mbplot report .", dir), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    mb_test_run_free(&r);
    html = slurp(dir, "report.html");
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(html, "The runs did not settle it: no trained setting at P = 1 in the range"));
    CU_ASSERT_TRUE(data_value(html, "rec-m") >= 1000);
    free(html);
    mb_test_rmdir(dir);
}

/* mbplot conv, and the report's convolution section: present with conv.json, a note with the
 * table alone, absent without either. */
static void test_report_conv(void)
{
    char dir[256], path[600];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    mb_test_write(path, sizeof path, dir, "conv.csv", CONV_TABLE);
    mb_test_run r;
    /* 2M: at M = 16 gemm's workspace no longer fits beside the model, so the choice changes */
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "cd %s && mbopt scale --n-inf 950 --alpha 2.2e5 "
                                         "--gamma 3e-5 --m-t 24 --delta 3e-3 --procs 1:4 --json "
                                         "-o scale.json && mbplot report . >/dev/null 2>&1 && "
                                         "grep -c 'conv.csv is here but conv.json is not' "
                                         "report.html && mbopt conv --net lenet5 --probe conv.csv "
                                         "--mem 2M --batch 4,16 --json -o conv.json && mbopt conv "
                                         "--net lenet5 --probe conv.csv --mem 2M --batch 4,16 -o "
                                         "conv.txt && mbplot conv conv.json -o c.png", dir), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    mb_test_run_free(&r);
    snprintf(path, sizeof path, "%s/c.png", dir);
    CU_ASSERT_TRUE(is_png(path));
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "mbplot report %s", dir), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    mb_test_run_free(&r);
    char *html = slurp(dir, "report.html");
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "id=\"conv\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "id=\"fig-conv\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "where the choice changes as M grows"));
    CU_ASSERT_PTR_NULL(strstr(html, "conv.json is not"));
    free(html);
    /* a JSON that is not mbopt conv's */
    mb_plot_options o;
    mb_plot_options_init(&o);
    mb_error e = {0};
    snprintf(path, sizeof path, "%s/x.png", dir);
    CU_ASSERT_EQUAL(mb_plot_conv("data/examples/nfit.json", path, &o, &e), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "no 'batches'"));
    mb_test_rmdir(dir);
}

/* mbplot conv checks every value it draws, as mbplot validate does (issue #25, campaign 19's
 * G2): an edit of mbopt conv's own JSON is refused with one line naming the file and the field,
 * and no image is left. */
static void test_conv_checked(void)
{
    char dir[256], path[600], out[600];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    mb_test_write(path, sizeof path, dir, "conv.csv", CONV_TABLE);
    mb_test_run r;
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "cd %s && mbopt conv --net lenet5 --probe conv.csv "
                                         "--mem 2M --batch 4,16 --json -o conv.json", dir), 0);
    CU_ASSERT_EQUAL_FATAL(r.status, 0);
    mb_test_run_free(&r);
    static const struct {
        int row;          /* -1: the top level */
        const char *key;  /* NULL: the row given twice */
        const char *json; /* the value (NULL: deleted) */
        const char *needle;
    } bad[] = {
        {0, "t_update", "-1", "field 'batches[0].t_update': must be > 0, got -1"},
        {1, "batch", "2.5", "field 'batches[1].batch': must be a whole number, got 2.5"},
        {0, "batch", "0", "field 'batches[0].batch': must be > 0, got 0"},
        {0, "mem_used", "\"x\"", "field 'batches[0].mem_used': not a finite number"},
        {1, "mem_used", "-5", "field 'batches[1].mem_used': must be >= 0, got -5"},
        {0, "model_bytes", NULL, "field 'batches[0].model_bytes': missing"},
        {0, "feasible", "\"yes\"", "field 'batches[0].feasible': not true or false"},
        {1, "t_c", "-0.5", "field 'batches[1].t_c': must be > 0, got -0.5"},
        {-1, "device_bytes", "-1", "field 'device_bytes': must be > 0, got -1"},
        {-1, "net", "\"a\\\"b\"", "field 'net': not a string, or one with a quote"},
        {1, NULL, NULL, "field 'batches[2].batch': M = 16 is also batches[1]'s"},
    };
    mb_plot_options o;
    mb_plot_options_init(&o);
    snprintf(out, sizeof out, "%s/bad.png", dir);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *root;
        mb_error e = {0};
        snprintf(path, sizeof path, "%s/conv.json", dir);
        CU_ASSERT_EQUAL_FATAL(mb_json_read(path, &root, &e), MB_OK);
        cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "batches");
        cJSON *obj = bad[i].row < 0 ? root : cJSON_GetArrayItem(rows, bad[i].row);
        CU_ASSERT_PTR_NOT_NULL_FATAL(obj);
        if (!bad[i].key)
            cJSON_AddItemToArray(rows, cJSON_Duplicate(obj, 1));
        else if (!bad[i].json)
            cJSON_DeleteItemFromObjectCaseSensitive(obj, bad[i].key);
        else if (cJSON_GetObjectItemCaseSensitive(obj, bad[i].key))
            cJSON_ReplaceItemInObjectCaseSensitive(obj, bad[i].key, cJSON_Parse(bad[i].json));
        else /* t_c: written with --nfit */
            cJSON_AddItemToObject(obj, bad[i].key, cJSON_Parse(bad[i].json));
        snprintf(path, sizeof path, "%s/bad.json", dir);
        CU_ASSERT_EQUAL_FATAL(mb_json_write(path, root, &e), MB_OK);
        cJSON_Delete(root);
        CU_ASSERT_EQUAL(mb_plot_conv(path, out, &o, &e), MB_EFORMAT);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "bad.json: "));
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, bad[i].needle));
        if (!strstr(e.msg, bad[i].needle))
            fprintf(stderr, "\n  case %zu: got: %s\n", i, e.msg);
        struct stat st;
        CU_ASSERT_NOT_EQUAL(stat(out, &st), 0);
    }
    /* the command: exit 1, one line */
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "cd %s && mbplot conv bad.json -o bad.png", dir), 0);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_EQUAL(mb_test_lines(r.err), 1u);
    mb_test_run_free(&r);
    /* the file as written draws */
    snprintf(path, sizeof path, "%s/conv.json", dir);
    mb_error e = {0};
    CU_ASSERT_EQUAL(mb_plot_conv(path, out, &o, &e), MB_OK);
    CU_ASSERT_TRUE(is_png(out));
    mb_test_rmdir(dir);
}

/* A folder with scale.json alone, then with broken inputs, then without scale.json. */
static void test_report_missing(void)
{
    char dir[256], path[600];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    mb_test_run r;
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "mbopt scale --n-inf 950 --alpha 2.2e5 --gamma 3e-5 "
                                         "--m-t 24 --delta 3e-3 --procs 1:256 --json -o "
                                         "%s/scale.json", dir), 0);
    CU_ASSERT_EQUAL_FATAL(r.status, 0);
    mb_test_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "mbplot report %s/", dir), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    /* one note per missing input on stderr, naming the stage that writes it */
    CU_ASSERT_EQUAL(mb_test_lines(r.err), 8u);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "nfit.json is missing (written by mbfit nupdate --json)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "step.csv is missing (written by mbprobe step)"));
    mb_test_run_free(&r);
    char *html = slurp(dir, "report.html");
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    const char *const stages[] = {"mbprobe step", "mbtrain", "mbfit nupdate --json",
                                  "mbfit tupdate --json", "mbprobe comm (optional)",
                                  "mbfit comm --json (optional)", "mbopt scale",
                                  "the pipeline (make run)"};
    for (size_t i = 0; i < 8; i++) {
        char needle[128];
        snprintf(needle, sizeof needle, "missing: no file from %s here", stages[i]);
        CU_ASSERT_PTR_NOT_NULL(strstr(html, needle));
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "8 inputs of the pipeline are missing"));
    CU_ASSERT_EQUAL(embedded(html, "image/png", PNG_SIG, PNG_END, 8), 3); /* tc, scale, amdahl */
    /* no check against real runs: one line says so and names the command */
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "id=\"no-validation\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "mbopt validate --json -o "));
    CU_ASSERT_PTR_NULL(strstr(html, "id=\"validation\""));
    /* this model recommends more than one learner */
    CU_ASSERT_TRUE(data_value(html, "rec-procs") > 1);
    free(html);

    /* SVG figures are embedded as SVG; commands are escaped */
    mb_test_write(path, sizeof path, dir, "commands.txt", "echo '<b>&' > x\n");
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "mbplot report --format svg %s", dir), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    mb_test_run_free(&r);
    html = slurp(dir, "report.html");
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    CU_ASSERT_EQUAL(embedded(html, "image/svg+xml", "<?xml", "</svg>", 6), 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "echo &#39;&lt;b&gt;&amp;&#39; &gt; x"));
    free(html);

    /* a present input with nothing to draw, or not JSON, is an error naming it; no report */
    static const struct {
        const char *name, *text, *needle;
    } bad[] = {
        {"step.csv", "backend,net,batch,learners,threads,reps,t_median_s,t_min_s,t_p25_s,"
                     "t_p75_s,t_max_s,samples_per_s\n", "step.csv: no rows"},
        {"nfit.json", "{\"params\": ", "nfit.json"},
        {"nfit.json", "{\"params\":{\"n_inf\":950,\"alpha\":2.2e5},\"per_m\":[]}",
         "nfit.json: nothing to draw"}, /* scale.json's law: of its run (campaign 21's N7) */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char keep[600];
        mb_test_write(path, sizeof path, dir, bad[i].name, bad[i].text);
        snprintf(keep, sizeof keep, "%s/report.html", dir);
        remove(keep);
        CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "mbplot report %s", dir), 0);
        CU_ASSERT_EQUAL(r.status, 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, bad[i].needle));
        CU_ASSERT_EQUAL(mb_test_lines(r.err), 1u);
        CU_ASSERT_STRING_EQUAL(r.out, "");
        mb_test_run_free(&r);
        struct stat st;
        CU_ASSERT_NOT_EQUAL(stat(keep, &st), 0);
        remove(path);
    }

    /* usage and the one required input */
    snprintf(path, sizeof path, "%s/scale.json", dir);
    remove(path);
    static const cli_case cli[] = {
        {"mbplot report", "missing the input file", 2},
        {"mbplot report -o x.html .", "-o is not used", 2},
        {"mbplot report /no/such/folder", "/no/such/folder: not a folder", 1},
        {"mbplot report .", "scale.json: missing; the report needs the recommendation", 1},
    };
    check_cli(dir, cli, sizeof cli / sizeof cli[0]);
    mb_test_rmdir(dir);
}

/* ---- mbplot validate and the report's check ------------------------------------------------ */

#define VALIDATE_FIXTURE MB_TEST_SRC "/tests/fixtures/plots/validate.json"
#define VALIDATE_REC_FIXTURE MB_TEST_SRC "/tests/fixtures/plots/validate-rec.json"

/* The fixture with one change: the field at `where` (an object path of one or two keys, and an
 * optional row index >= 0 into 'rows' first) replaced by `value` (NULL deletes it); written to
 * dir/name, its path in buf. */
static void fixture_with(char *buf, size_t n, const char *dir, const char *name, int row,
                         const char *key1, const char *key2, cJSON *value)
{
    cJSON *root;
    mb_error e = {0};
    CU_ASSERT_EQUAL_FATAL(mb_json_read(VALIDATE_FIXTURE, &root, &e), MB_OK);
    cJSON *o = row >= 0 ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "rows"), row)
                        : root;
    const char *key = key1;
    if (key2) {
        o = cJSON_GetObjectItemCaseSensitive(o, key1);
        key = key2;
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    if (value && !cJSON_ReplaceItemInObjectCaseSensitive(o, key, value))
        cJSON_AddItemToObject(o, key, value);
    else if (!value)
        cJSON_DeleteItemFromObjectCaseSensitive(o, key);
    snprintf(buf, n, "%s/%s", dir, name);
    CU_ASSERT_EQUAL(mb_json_write(buf, root, &e), MB_OK);
    cJSON_Delete(root);
}

static void test_validate_figure(void)
{
    char dir[256], out[600], path[600];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    mb_test_run r;
    /* the command, with its default name and with -o, PNG and SVG */
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "cd %s && mbplot validate %s && mbplot validate %s "
                                         "--format svg -o v.svg", dir, VALIDATE_FIXTURE,
                                     VALIDATE_FIXTURE), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_STRING_EQUAL(r.out, "validate.png\nv.svg\n");
    mb_test_run_free(&r);
    snprintf(out, sizeof out, "%s/validate.png", dir);
    CU_ASSERT_TRUE(is_png(out));
    CU_ASSERT_EQUAL(mb_test_sh(&r, "grep -c 'recommended M = 24.6 (run at M = 32)' %s/v.svg",
                               dir), 0);
    CU_ASSERT_STRING_EQUAL(r.out, "1\n"); /* the vertical line's label */
    mb_test_run_free(&r);
    CU_ASSERT_EQUAL(mb_test_sh(&r, "grep -c \"the model's optimum\" %s/v.svg", dir), 0);
    CU_ASSERT_STRING_EQUAL(r.out, "0\n"); /* the fixture's runs did not overrule the model */
    mb_test_run_free(&r);
    /* where they did, the model's own optimum is drawn beside the recommendation */
    {
        mb_error e = {0};
        cJSON *root;
        CU_ASSERT_EQUAL_FATAL(mb_json_read(VALIDATE_FIXTURE, &root, &e), MB_OK);
        cJSON_AddStringToObject(root, "settled_by", "runs");
        cJSON_AddItemToObject(root, "model_optimum", cJSON_CreateObject());
        /* inside flat_pred (20.5..41): a range is the model optimum's (campaign 38) */
        cJSON_AddNumberToObject(cJSON_GetObjectItem(root, "model_optimum"), "batch", 40);
        snprintf(path, sizeof path, "%s/runs.json", dir);
        CU_ASSERT_EQUAL_FATAL(mb_json_write(path, root, &e), MB_OK);
        cJSON_Delete(root);
    }
    CU_ASSERT_EQUAL(mb_test_sh(&r, "cd %s && mbplot validate runs.json --format svg -o r.svg && "
                                   "grep -c \"the model's optimum M = 40\" r.svg", dir), 0);
    CU_ASSERT_STRING_EQUAL(r.out, "r.svg\n1\n");
    mb_test_run_free(&r);

    /* the recommended M not among the runs: no batch_run, no measured time, no ratio, and no
     * measured best either */
    mb_plot_options o;
    mb_plot_options_init(&o);
    mb_error e = {0};
    cJSON *root;
    CU_ASSERT_EQUAL_FATAL(mb_json_read(VALIDATE_FIXTURE, &root, &e), MB_OK);
    cJSON *rec = cJSON_GetObjectItemCaseSensitive(root, "recommended");
    cJSON_ReplaceItemInObjectCaseSensitive(rec, "measured", cJSON_CreateFalse());
    cJSON_DeleteItemFromObjectCaseSensitive(rec, "batch_run");
    cJSON_DeleteItemFromObjectCaseSensitive(rec, "t_train_median_s");
    cJSON_ReplaceItemInObjectCaseSensitive(root, "in_sample_ratio", cJSON_CreateNull());
    cJSON_ReplaceItemInObjectCaseSensitive(root, "holdout", cJSON_CreateNull());
    /* and the sentence mbopt writes then (a held-out one beside no object is refused) */
    cJSON_ReplaceItemInObjectCaseSensitive(root, "verdict",
                                           cJSON_CreateString("not held out: no held-out runs"));
    cJSON_DeleteItemFromObjectCaseSensitive(root, "measured_best");
    snprintf(path, sizeof path, "%s/unmeasured.json", dir);
    CU_ASSERT_EQUAL_FATAL(mb_json_write(path, root, &e), MB_OK);
    cJSON_Delete(root);
    snprintf(out, sizeof out, "%s/unmeasured.png", dir);
    CU_ASSERT_EQUAL(mb_plot_validate(path, out, &o, &e), MB_OK);
    CU_ASSERT_TRUE(is_png(out));

    /* bad data: exit 1, one line naming the file and the field, no image left behind */
    static const struct {
        int row;
        const char *key1, *key2;
        double value; /* NAN: delete the field; INFINITY: null */
        const char *needle;
    } bad[] = {
        {-1, "rows", NULL, NAN, "field 'rows': missing"},
        {1, "t_train_median_s", NULL, -2.7624, "field 'rows[1].t_train_median_s': must be >= 0"},
        {2, "batch", NULL, -32, "field 'rows[2].batch': must be > 0"},
        {3, "t_train_median_s", NULL, INFINITY, "field 'rows[3].t_train_median_s': null"},
        {7, "t_train_median_s", NULL, 11.73, "no run reached the target (reached = 0)"},
        {4, "reached", NULL, 6, "field 'rows[4].reached': 6 of 5 runs"},
        {0, "t_train_min_s", NULL, 4.91, "field 'rows[0].t_train_min_s': min 4.91"},
        {-1, "recommended", "batch_run", NAN, "field 'recommended.batch_run': missing"},
        {-1, "recommended", "batch", -24.6, "field 'recommended.batch': must be > 0"},
        {-1, "target_loss", NULL, NAN, "field 'target_loss': missing"},
        {-1, "holdout", "ratio_lo", -1, "field 'holdout.ratio_lo': must be > 0"},
        {-1, "holdout", "rival_batch", NAN, "field 'holdout.rival_batch': missing"},
        /* campaign 36's R1-R3: the held-out figures held to the held-out rows */
        {-1, "holdout", "best_t_train_median_s", 0.1,
         "field 'holdout.best_t_train_median_s': 0.1, but the best row's t_train_median_s is 2.41"},
        {-1, "holdout", "t_train_median_s", 0.2, "field 'holdout.t_train_median_s': 0.2, but"},
        {-1, "holdout", "ratio", 1.3, "field 'holdout.ratio': 1.3, but the rows' medians give"},
        {-1, "holdout", "rival_ratio", 5, "field 'holdout.rival_ratio': 5, but"},
        {-1, "holdout", "best_batch", 32, "field 'holdout.best_batch': M 32's held-out median"},
        {-1, "holdout", "seeds_max", 1000, "field 'holdout.seeds_max': 1000, but the most runs"},
        {-1, "holdout", "flat_lo", 32, "field 'holdout.flat_lo': M 32..32, but the rows at the rivals' P"},
        {-1, "holdout", "median_abs_rel_err", 0.5, "field 'holdout.median_abs_rel_err': 0.5, but"},
        {-1, "holdout", "rival_ratio_lo", 1.1, "field 'holdout.verdict': \"tied\", but the "
                                               "rival's interval 1.1-1.15 makes it \"behind\""},
        {-1, "holdout", "pred_interval_holds", 2, "field 'holdout.pred_interval_holds': 2, but"},
        {-1, "holdout", "t_update_level", 1.2, "field 'holdout.t_update_side': missing beside"},
        {-1, "recommended", "batch_run", 24,
         "field 'holdout.batch': M 32, but the recommendation's is M 24"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *v = isnan(bad[i].value)      ? NULL
                   : isinf(bad[i].value)    ? cJSON_CreateNull()
                                            : cJSON_CreateNumber(bad[i].value);
        fixture_with(path, sizeof path, dir, "bad.json", bad[i].row, bad[i].key1, bad[i].key2,
                     v);
        CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "cd %s && mbplot validate bad.json -o bad.png", dir),
                              0);
        CU_ASSERT_EQUAL(r.status, 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "bad.json: "));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, bad[i].needle));
        if (!strstr(r.err, bad[i].needle))
            fprintf(stderr, "\n  case %zu: got: %s", i, r.err);
        CU_ASSERT_EQUAL(mb_test_lines(r.err), 1u);
        mb_test_run_free(&r);
        struct stat st;
        snprintf(out, sizeof out, "%s/bad.png", dir);
        CU_ASSERT_NOT_EQUAL(stat(out, &st), 0);
    }
    /* a negative time inside the runs' list, and an empty rows array */
    mb_test_write(path, sizeof path, dir, "bad.json",
                  "{\"target_loss\":0.437,\"verdict\":\"v\",\"curve\":[],\"recommended\":"
                  "{\"batch\":24.6},\"rows\":[{\"batch\":8,\"procs\":1,\"lr\":0.0173,\"runs\":2,"
                  "\"reached\":2,\"t_train_median_s\":4.45,\"t_runs_s\":[4.3,-4.6]}]}");
    CU_ASSERT_EQUAL(mb_plot_read_validate(path, &root, &e), MB_EFORMAT);
    CU_ASSERT_PTR_NULL(root);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "field 'rows[0].t_runs_s[1]'"));
    mb_test_write(path, sizeof path, dir, "bad.json",
                  "{\"target_loss\":0.437,\"verdict\":\"v\",\"curve\":[],\"recommended\":"
                  "{\"batch\":24.6},\"rows\":[]}");
    CU_ASSERT_EQUAL(mb_plot_read_validate(path, &root, &e), MB_ENODATA);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "field 'rows': empty"));
    mb_test_rmdir(dir);
}

/* dir/scale.json as the stored P = 2 run's scale would be where the report reads it (that run
 * kept no scale.json): flag-made rows for P = 1 and 2 (a small Delta: P = 2 recommended), with
 * validate-rec.json's model, its rate 0.02 and its M = 19.28 put in, and the P = 1 fixture's
 * rate 0.0173 among the rates weighed (by_lr), so that both fixtures are checks of this scale's
 * recommendation. */
static void scale_of_rec(const char *dir)
{
    mb_test_run r;
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "mbopt scale --n-inf 950 --alpha 2.2e5 --gamma 3e-5 "
                                         "--m-t 24 --delta 1e-5 --procs 1:2 --json -o "
                                         "%s/scale.json", dir), 0);
    CU_ASSERT_EQUAL_FATAL(r.status, 0);
    mb_test_run_free(&r);
    char path[600];
    cJSON *scale, *rec;
    mb_error e = {0};
    snprintf(path, sizeof path, "%s/scale.json", dir);
    CU_ASSERT_EQUAL_FATAL(mb_json_read(path, &scale, &e), MB_OK);
    CU_ASSERT_EQUAL_FATAL(mb_json_read(VALIDATE_REC_FIXTURE, &rec, &e), MB_OK);
    const cJSON *opt = cJSON_GetObjectItemCaseSensitive(rec, "model_optimum");
    const double m = mb_json_get(opt, "batch");
    cJSON_ReplaceItemInObjectCaseSensitive(
        scale, "model", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(rec, "model"), 1));
    cJSON_ReplaceItemInObjectCaseSensitive(scale, "lr", cJSON_CreateNumber(0.02));
    /* each row's optimum that model's over its range (mbplot holds them to it: campaign 40's
     * B-F3), P = 2's at the recommendation's M */
    mb_law law;
    mb_update_time t;
    CU_ASSERT_EQUAL_FATAL(mb_solver_read_model(cJSON_GetObjectItemCaseSensitive(scale, "model"),
                                               path, &law, &t, NULL, &e), MB_OK);
    const double lo = mb_json_get(cJSON_GetObjectItemCaseSensitive(scale, "model"), "m_lo");
    const double hi = mb_json_get(cJSON_GetObjectItemCaseSensitive(scale, "model"), "m_hi");
    double tc[2];
    cJSON *row = NULL;
    for (int k = 0; k < 2; k++) {
        mb_solver_optimum_result o;
        row = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(scale, "rows"), k);
        CU_ASSERT_EQUAL_FATAL(mb_json_get(row, "procs"), k + 1);
        CU_ASSERT_EQUAL_FATAL(mb_solver_optimum(&law, &t, k + 1, lo, hi, &o, &e), MB_OK);
        const double mk = k ? m : o.opt.m_opt;
        CU_ASSERT_EQUAL_FATAL(mb_model_law_tc(&law, &t, mk, k + 1, &tc[k]), MB_OK);
        cJSON_ReplaceItemInObjectCaseSensitive(row, "m_opt", cJSON_CreateNumber(mk));
        cJSON_ReplaceItemInObjectCaseSensitive(row, "t_c_opt", cJSON_CreateNumber(tc[k]));
        cJSON_ReplaceItemInObjectCaseSensitive(row, "m_lo", cJSON_CreateNumber(lo));
        cJSON_ReplaceItemInObjectCaseSensitive(row, "m_hi", cJSON_CreateNumber(hi));
        cJSON_ReplaceItemInObjectCaseSensitive(row, "speedup_opt",
                                               cJSON_CreateNumber(tc[0] / tc[k]));
        cJSON_ReplaceItemInObjectCaseSensitive(row, "efficiency_opt",
                                               cJSON_CreateNumber(tc[0] / tc[k] / (k + 1)));
    }
    CU_ASSERT_TRUE(tc[1] < tc[0]); /* P = 2 the fastest still */
    /* the strong and weak columns that model's too (mbplot holds them to it: campaign 43's
     * B-F4): T_C at m_strong and at m_weak x P, speed-ups over P = 1's */
    static const char *const pol[2][4] = {{"m_strong", "t_c_strong", "speedup_strong",
                                           "efficiency_strong"},
                                          {"m_weak", "t_c_weak", "speedup_weak",
                                           "efficiency_weak"}};
    for (int j = 0; j < 2; j++) {
        const double mp = mb_json_get(scale, pol[j][0]);
        double base = NAN;
        for (int k = 0; k < 2; k++) {
            double v;
            row = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(scale, "rows"), k);
            CU_ASSERT_EQUAL_FATAL(mb_model_law_tc(&law, &t, j ? mp * (k + 1) : mp, k + 1, &v),
                                  MB_OK);
            base = k ? base : v;
            cJSON_ReplaceItemInObjectCaseSensitive(row, pol[j][1], cJSON_CreateNumber(v));
            cJSON_ReplaceItemInObjectCaseSensitive(row, pol[j][2], cJSON_CreateNumber(base / v));
            cJSON_ReplaceItemInObjectCaseSensitive(row, pol[j][3],
                                                   cJSON_CreateNumber(base / v / (k + 1)));
        }
    }
    static const char *const picks[] = {"best", "enough"};
    for (int k = 0; k < 2; k++) {
        cJSON *c = cJSON_GetObjectItemCaseSensitive(scale, picks[k]);
        CU_ASSERT_EQUAL(mb_json_get(c, "procs"), 2);
        cJSON_ReplaceItemInObjectCaseSensitive(c, "m_opt", cJSON_CreateNumber(m));
        /* P round(M / P), as mbopt writes it (scale_check.c holds it to m_opt) */
        cJSON_ReplaceItemInObjectCaseSensitive(c, "m_run", cJSON_CreateNumber(2 * round(m / 2)));
        cJSON_ReplaceItemInObjectCaseSensitive(c, "t_c", cJSON_CreateNumber(tc[1]));
        cJSON_ReplaceItemInObjectCaseSensitive(c, "speedup", cJSON_CreateNumber(tc[0] / tc[1]));
        cJSON_ReplaceItemInObjectCaseSensitive(c, "efficiency",
                                               cJSON_CreateNumber(tc[0] / tc[1] / 2));
    }
    cJSON *by = cJSON_AddArrayToObject(scale, "by_lr");
    static const double rates[][3] = {{0.02, 2, 19.284054102633128}, {0.0173, 1, 24.6}};
    for (int k = 0; k < 2; k++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "lr", rates[k][0]);
        cJSON_AddNumberToObject(o, "procs", rates[k][1]);
        cJSON_AddNumberToObject(o, "m_opt", rates[k][2]);
        cJSON_AddItemToArray(by, o);
    }
    CU_ASSERT_EQUAL(mb_json_write(path, scale, &e), MB_OK);
    cJSON_Delete(scale);
    cJSON_Delete(rec);
}

/* A P = 2 answer held out against one learner (validate-rec.json, written by mbopt validate
 * --recommend from the stored runs of a make run that recommended P = 2, M = 20): the report
 * shows its verdict and every held-out setting with its P, after the P = 1 check; a file whose
 * check is not across learner counts adds nothing, and a damaged one is refused by name. */
static void test_report_validate_across(void)
{
    char dir[256];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    mb_test_run r;
    scale_of_rec(dir);
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "cp %s %s/ && cp %s %s/validate-rec.json && mbplot "
                                         "report %s", VALIDATE_FIXTURE, dir,
                                     VALIDATE_REC_FIXTURE, dir, dir), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    mb_test_run_free(&r);
    char *html = slurp(dir, "report.html");
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    const char *check = strstr(html, "<section id=\"validation\">");
    const char *across = strstr(html, "<section id=\"validation-procs\">");
    const char *rec = strstr(html, "<section id=\"recommendation\">");
    CU_ASSERT_TRUE(check && across && rec && check < across && across < rec);
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "<h2>Check: P = 2 learners against one, held out</h2>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "id=\"verdict-procs\">held out (10 fresh seeds a setting"));
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "1.08x the best held-out setting (P = 1, M = 29"));
    CU_ASSERT_PTR_NOT_NULL(strstr(
        html, "<tr class=\"row-rec\"><td class=\"n\">2</td><td class=\"n\">20 <span "
              "class=\"tag\">recommended</span></td><td class=\"n\">10 / 10</td><td "
              "class=\"n\">0.501 s</td><td class=\"n\">1.08&times;</td>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "<td class=\"n\">1</td><td class=\"n\">29</td><td "
                                        "class=\"n\">10 / 10</td><td class=\"n\">0.466 s</td><td "
                                        "class=\"n\">1.00&times;</td>"));
    free(html);
    /* the P = 1 check given as validate-rec.json (campaign 20's M2: read, then left off the
     * page without a word): refused by name, the page before it untouched */
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "cd %s && cp report.html before.html && cp %s "
                                         "validate-rec.json && mbplot report . ; s=$?; cmp -s "
                                         "report.html before.html || s=99; exit $s",
                                     dir, VALIDATE_FIXTURE), 0);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "validate-rec.json: field 'holdout.procs': not a check "
                                         "across learner counts"));
    CU_ASSERT_EQUAL(mb_test_lines(r.err), 1u);
    mb_test_run_free(&r);
    /* a damaged one: refused by name, the page before it untouched */
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "cd %s && cp report.html before.html && sed "
                                         "'s/\"verdict\":\\t\"tied\"/\"verdict\":\\t\"maybe\"/' "
                                         "%s > validate-rec.json && ! grep -q '\"tied\"' "
                                         "validate-rec.json && mbplot report . ; s=$?; "
                                         "cmp -s report.html before.html || s=99; exit $s",
                                     dir, VALIDATE_REC_FIXTURE), 0);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "validate-rec.json: field 'holdout.verdict'"));
    CU_ASSERT_EQUAL(mb_test_lines(r.err), 1u);
    mb_test_run_free(&r);
    mb_test_rmdir(dir);
}

/* A validation file of another run than scale.json's is refused before anything is drawn, one
 * line naming both files (issue #25, campaign 19's G3): a P > 1 check of another answer, of
 * another rate, of another model; a P = 1 optimum that is not scale's P = 1 row; a settled M
 * that is not scale's. */
static void test_report_validate_mixed(void)
{
    char dir[256], path[600];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    mb_test_run r;
    scale_of_rec(dir);
    snprintf(path, sizeof path, "%s/scale.json", dir);
    static const struct {
        const char *edit; /* a sed script on scale.json ("" none) */
        const char *file; /* the fixture given as validate-rec.json */
        const char *needle;
    } bad[] = {
        /* the P = 2 check beside a scale that recommends one learner */
        {"", NULL, "validate-rec.json: field 'model_optimum.procs': the check is of P = 2, "
                   "M = 19.28, but "},
        {"s/\"lr\":\t0.02,/\"lr\":\t0.03,/", VALIDATE_REC_FIXTURE,
         "validate-rec.json: field 'model_optimum.lr': 0.02, but "},
        {"/\"model\":/,/}/ s/\"alpha\":\t[0-9.]*,/\"alpha\":\t4000,/", VALIDATE_REC_FIXTURE,
         "validate-rec.json: field 'model.alpha': 4743.28, but "},
        {"/\"model\":/,/range_source/ s/\"m_lo\":\t[0-9.]*,/\"m_lo\":\t32,/", VALIDATE_REC_FIXTURE,
         "validate-rec.json: field 'model.m_lo': 16, but "},
        /* the P = 1 fixture's rate is none scale weighed */
        {"/\"by_lr\":/,$ s/0.0173/0.0175/", VALIDATE_FIXTURE,
         "validate-rec.json: field 'recommended.lr': 0.0173, but "},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc;
        if (!bad[i].file) /* the flag-made scale as it was: P = 1 recommended */
            rc = mb_test_sh(&r, "mbopt scale --n-inf 950 --alpha 2.2e5 --gamma 3e-5 --m-t 24 "
                                "--delta 3e-3 --procs 1:2 --json -o %s/s.json && cp %s "
                                "%s/validate-rec.json", dir, VALIDATE_REC_FIXTURE, dir);
        else
            rc = mb_test_sh(&r, "sed '%s' %s > %s/s.json && ! cmp -s %s %s/s.json && cp %s "
                                "%s/validate-rec.json", bad[i].edit, path, dir, path, dir,
                            bad[i].file, dir);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        CU_ASSERT_EQUAL_FATAL(r.status, 0);
        mb_test_run_free(&r);
        CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "cd %s && mkdir -p m && cp s.json m/scale.json && "
                                             "cp validate-rec.json m/ && rm -f m/report.html && "
                                             "mbplot report m; s=$?; test -e m/report.html && "
                                             "exit 99; exit $s", dir), 0);
        CU_ASSERT_EQUAL(r.status, 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, bad[i].needle));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "m/scale.json"));
        if (!strstr(r.err, bad[i].needle))
            fprintf(stderr, "\n  case %zu: got: %s\n", i, r.err);
        CU_ASSERT_EQUAL(mb_test_lines(r.err), 1u);
        mb_test_run_free(&r);
    }
    /* P = 1: the optimum validate checked (model_optimum) is scale's P = 1 row's M; the M the
     * runs settled on is scale's settled M. Flag-made scales (no rate), M_T 24.6 giving 24.6. */
    cJSON *opt = cJSON_CreateObject();
    cJSON_AddNumberToObject(opt, "batch", 24.6);
    cJSON_AddNumberToObject(opt, "lr", 0.0173);
    cJSON_AddNumberToObject(opt, "procs", 1);
    fixture_with(path, sizeof path, dir, "validate.json", -1, "model_optimum", NULL, opt);
    static const struct {
        const char *m_t, *settled; /* settled's batch ("" no settled) */
        int status;
        const char *needle;
    } p1[] = {
        {"24.6", "", 0, NULL},
        {"24", "", 1, "validate.json: field 'model_optimum.batch': the P = 1 optimum checked is "
                      "M = 24.6, but "},
        {"24.6", "32", 0, NULL},
        {"24.6", "16", 1, "validate.json: field 'recommended.batch_run': M = 32 (lr 0.0173), but "},
    };
    for (size_t i = 0; i < sizeof p1 / sizeof p1[0]; i++) {
        char settled[512] = "";
        if (*p1[i].settled)
            snprintf(settled, sizeof settled,
                     " && sed -i 's/^\t\"enough_slack\":/\t\"settled\": {\"by\": \"runs\", "
                     "\"band\": 0.1, \"candidates\": [{\"batch\": 16, \"lr\": 0.0173}, "
                     "{\"batch\": 32, \"lr\": 0.0173}], \"procs\": 1, \"batch\": %s, "
                     "\"lr\": 0.0173, \"t_pred_s\": 2.1, \"t_train_median_s\": 2.2, "
                     "\"model_m_opt\": 24.6, \"model_batch_run\": 32, "
                     "\"model_t_train_median_s\": 2.4633},\\n&/' p1/scale.json",
                     p1[i].settled);
        CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "cd %s && rm -rf p1 && mkdir p1 && cp validate.json "
                                             "p1/ && mbopt scale --n-inf 950 --alpha 2.2e5 "
                                             "--gamma 3e-5 --m-t %s --delta 3e-3 --procs 1:2 "
                                             "--json -o p1/scale.json%s && grep -q '\"by\": "
                                             "\"runs\"' p1/scale.json%s && mbplot report p1 "
                                             ">/dev/null", dir, p1[i].m_t, settled,
                                         *p1[i].settled ? "" : " || true"), 0);
        CU_ASSERT_EQUAL(r.status, p1[i].status);
        if (p1[i].needle)
            CU_ASSERT_PTR_NOT_NULL(strstr(r.err, p1[i].needle));
        if (p1[i].needle && !strstr(r.err, p1[i].needle))
            fprintf(stderr, "\n  P = 1 case %zu: got: %s\n", i, r.err);
        mb_test_run_free(&r);
    }
    mb_test_rmdir(dir);
}

/* A folder with scale.json and validate.json: the report opens with the check. */
static void test_report_validate(void)
{
    char dir[256], path[600];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    mb_test_run r;
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "mbopt scale --n-inf 950 --alpha 2.2e5 --gamma 3e-5 "
                                         "--m-t 24 --delta 3e-3 --procs 1:256 --json -o "
                                         "%s/scale.json && cp %s %s/", dir, VALIDATE_FIXTURE,
                                     dir), 0);
    CU_ASSERT_EQUAL_FATAL(r.status, 0);
    mb_test_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "mbplot report %s", dir), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NULL(strstr(r.err, "validate.json")); /* optional: never noted as missing */
    mb_test_run_free(&r);
    char *html = slurp(dir, "report.html");
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    /* the check comes first, before the recommendation */
    const char *check = strstr(html, "<section id=\"validation\">");
    const char *rec = strstr(html, "<section id=\"recommendation\">");
    CU_ASSERT_PTR_NOT_NULL(check);
    CU_ASSERT_TRUE(check && rec && check < rec);
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "Check: the recommendation on held-out training runs"));
    /* the held-out runs get a table of their own, the in-sample ratio is labelled as such */
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "<table id=\"holdout-rows\">"));
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "in-sample: no check"));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(html, "<p id=\"flat\">The model predicts M = 21 to 41 within 5%"));
    CU_ASSERT_PTR_NULL(strstr(html, "id=\"no-validation\""));
    /* the verdict as the file gives it, the ratio to the last bit, and the figure embedded */
    cJSON *val;
    mb_error e = {0};
    CU_ASSERT_EQUAL_FATAL(mb_json_read(VALIDATE_FIXTURE, &val, &e), MB_OK);
    char needle[512];
    snprintf(needle, sizeof needle, "id=\"verdict\">%s</p>",
             cJSON_GetObjectItemCaseSensitive(val, "verdict")->valuestring);
    CU_ASSERT_PTR_NOT_NULL(strstr(html, needle));
    CU_ASSERT_EQUAL(data_value(html, "val-ratio"),
                    cJSON_GetObjectItemCaseSensitive(val, "in_sample_ratio")->valuedouble);
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "<figure id=\"fig-validate\">"));
    CU_ASSERT_EQUAL(embedded(html, "image/png", PNG_SIG, PNG_END, 8), 4); /* + tc, scale, amdahl */
    /* the table: one row per validation row, reached and not reached */
    const char *tab = strstr(html, "<table id=\"validation-rows\">");
    CU_ASSERT_PTR_NOT_NULL_FATAL(tab);
    const char *end = strstr(tab, "</table>");
    int trs = 0;
    for (const char *q = strstr(tab, "<tr"); q && q < end; q = strstr(q + 1, "<tr"))
        trs++;
    CU_ASSERT_EQUAL(trs, cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(val, "rows")) + 1);
    cJSON_Delete(val);
    const char *const rows[] = {
        "<td class=\"n\">4.45 s (4.3&ndash;5.05)</td><td class=\"n\">4.27 s</td>"
        "<td class=\"n\">-4.1%</td><td class=\"n\">1.81 ms</td><td class=\"n\">1.81 ms</td>",
        "<tr class=\"row-rec\"><td class=\"n\">32 <span class=\"tag\">recommended</span>",
        "<tr class=\"row-best\"><td class=\"n\">24 <span class=\"tag\">measured best</span>",
        "<td class=\"n\">0 / 3</td><td class=\"missing\">not reached: 3 of 3 diverged</td>",
        "<td class=\"n\">0 / 3</td><td class=\"missing\">not reached</td>",
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *q = strstr(tab, rows[i]);
        CU_ASSERT_TRUE(q && q < end);
    }
    free(html);

    /* a bad validate.json stops the report, naming the file and the field */
    fixture_with(path, sizeof path, dir, "validate.json", 5, "t_train_max_s", NULL,
                 cJSON_CreateNumber(-5.37));
    snprintf(path, sizeof path, "%s/report.html", dir);
    remove(path);
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "mbplot report %s", dir), 0);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "validate.json: field 'rows[5].t_train_max_s': must "
                                         "be >= 0"));
    CU_ASSERT_EQUAL(mb_test_lines(r.err), 1u);
    mb_test_run_free(&r);
    struct stat st;
    CU_ASSERT_NOT_EQUAL(stat(path, &st), 0);
    mb_test_rmdir(dir);
}

int mb_test_suite_plots(void)
{
    CU_pSuite s = CU_add_suite("plots", NULL, NULL);
    return !s || !CU_add_test(s, "figures render", test_figures_render) ||
           !CU_add_test(s, "errors", test_plot_errors) ||
           !CU_add_test(s, "report on the pipeline's folder", test_report_full) ||
           !CU_add_test(s, "report: the shifted law is the law shown", test_report_shifted) ||
           !CU_add_test(s, "report with missing inputs", test_report_missing) ||
           !CU_add_test(s, "validate figure and its errors", test_validate_figure) ||
           !CU_add_test(s, "report opens with the check against runs", test_report_validate) ||
           !CU_add_test(s, "report: a P > 1 answer held out", test_report_validate_across) ||
           !CU_add_test(s, "report: a validation of another run refused",
                        test_report_validate_mixed) ||
           !CU_add_test(s, "report recommends what the runs settled", test_report_settled) ||
           !CU_add_test(s, "conv figure and the report's convolution section", test_report_conv) ||
           !CU_add_test(s, "conv figure: every value drawn is checked", test_conv_checked);
}
