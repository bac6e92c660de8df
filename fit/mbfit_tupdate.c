/* mbfit_tupdate.c — `mbfit tupdate`: a step probe table (and run logs that calibrate it) ->
 * T_update = gamma max(M/P, M_T) + delta per learner count (fit/tupdate.c).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbfit_cli.h"
#include "../data/mb_cli.h"
#include "../data/mb_format.h"
#include "../data/mb_json.h"
#include "../data/mb_output.h"
#include "../data/mb_parse.h"
#include "../data/mb_table.h"

/* ---- tupdate ---------------------------------------------------------------------------------- */

static void tupdate_help(void)
{
    printf("Usage: mbfit tupdate [OPTION]... STEP.csv [LOG...]\n"
           "Fits T_update = gamma * max(M/P, M_T) + delta (Perrone et al. 2019, eq. 3-4) to a\n"
           "step probe table (mbprobe step: batch = total M, learners = P, t_median_s), once per\n"
           "learner count. The knee is found exactly: every interval between measured M/P is\n"
           "solved as two linear pieces, the best wins, and GSL refines gamma, M_T and delta.\n"
           "When the table has t_compute_s and t_comm_s columns the smooth overlap form\n"
           "T = (T_compute^g + T_comm^g)^(1/g) (Pollux) is fitted too. JSON params are for the\n"
           "smallest learner count, the rest under 'by_learners'.\n\n"
           "With run logs (mbtrain, any M) after the table, the runs calibrate the fit of\n"
           "their learner count (one-learner runs are needed; runs of P learners, e.g.\n"
           "mpirun -np 2 mbtrain --algo sgd-sync, calibrate P's rows): at every M/P they\n"
           "trained, the point is the lower quartile of their seconds per update (training\n"
           "only, what an update costs when the machine is steady; at P > 1 communication\n"
           "too), the probe's points beyond\n"
           "the runs' are scaled to meet them, and the knee is refitted. The probe's own points\n"
           "stay in the JSON ('probe_points') for mbopt validate to report against the runs.\n\n"
           "A learner count is fitted at one thread count: a table of several (mbprobe step\n"
           "--threads 1,2) is refused unless --threads picks one.\n\n"
           "      --threads N      fit the rows of N threads only\n"
           "      --weights W      none or relative (sigma_i = t_median_s; default relative)\n"
           "      --json           write the fit as JSON\n"
           "  -o, --output FILE    write to FILE (atomically) instead of standard output\n"
           "  -h, --help           show this help and exit\n\n"
           "Example:\n"
           "  mbfit tupdate data/examples/step.csv --json > t.json\n"
           "  mbfit tupdate out/step.csv out/runs/lr0.02/*.csv out/par/lr0.02/*.csv --json\n");
}

typedef struct tup_print {
    const mb_fit_tupdate *f;
    size_t n;
} tup_print;

static void tupdate_print(FILE *f, const void *arg)
{
    const tup_print *tp = arg;
    char a[32], b[32];
    for (size_t k = 0; k < tp->n; k++) {
        const mb_fit_tupdate *r = &tp->f[k];
        fprintf(f, "%s# P = %g: T_update = gamma * max(M/P, M_T) + delta, %zu points\n",
                k ? "\n" : "", r->learners, r->n_points);
        fprintf(f, "%-12s %-13s %13s %12s  %s\n", "model", "param", "value", "stderr", "ci95");
        print_fit(f, "update-time", &r->knee);
        fprintf(f, "knee M_T between measured M/P %s and %s\n", num(a, sizeof a, r->knee_lo),
                num(b, sizeof b, r->knee_hi));
        if (r->have_overlap)
            print_fit(f, "overlap", &r->overlap);
        if (r->n_run_points) {
            fprintf(f, "calibrated by runs: M/P, the runs' median s/update (runs), the probe's, "
                       "its error\n");
            for (size_t j = 0; j < r->n_run_points; j++) {
                double tp = r->run_probe[j];
                fprintf(f, "  %8g %12.6g (%zu) %12.6g %+7.1f%%\n", r->run_m[j], r->run_t[j],
                        r->run_n[j], tp, 100 * (tp - r->run_t[j]) / r->run_t[j]);
            }
            fprintf(f, "the probe's points scaled by %.4g below M/P = %g and %.4g above M/P = %g\n",
                    r->scale_below, r->run_m[0], r->scale_above, r->run_m[r->n_run_points - 1]);
        }
        print_warnings(f, &r->warn);
    }
}

/* Calibrates each learner count's fit that has runs of as many learners; the one-learner fit
 * must have some (it is what T_update rests on). A run of a learner count the table does not
 * time is refused: it would calibrate nothing, and was dropped without a word (campaign 15). */
static int calibrate_by_runs(mb_fit_tupdate *fits, size_t n, const mb_fit_runs *runs,
                             const char *const *logs, mb_fit_weighting w, const char *path,
                             mb_error *err)
{
    if (fits[0].learners != 1)
        return mb_error_set(err, MB_EINVAL, "%s: no one-learner rows for the runs to calibrate",
                            path);
    for (size_t i = 0; i < runs->n; i++) {
        size_t k = 0;
        while (k < n && fits[k].learners != runs->procs[i])
            k++;
        if (k == n)
            return mb_error_set(err, MB_EINVAL, "%s: metadata 'learners': %g, but %s times no "
                                "step of %g learners (mbprobe step --learners): nothing for its "
                                "seconds per update to calibrate", logs[i], runs->procs[i],
                                path, runs->procs[i]);
    }
    for (size_t k = 0; k < n; k++) {
        int any = k == 0; /* P = 1 says when it has none */
        for (size_t i = 0; i < runs->n && !any; i++)
            any = runs->procs[i] == fits[k].learners && isfinite(runs->t_step[i]);
        int rc = any ? mb_fit_tupdate_calibrate(&fits[k], runs, logs, w, err) : MB_OK;
        if (rc != MB_OK)
            return rc;
    }
    return MB_OK;
}

int cmd_tupdate(int argc, char **argv)
{
    const char *sub = "tupdate";
    common cm = {0, "-", MB_FIT_W_RELATIVE, 0};
    mb_error err = {0};
    const char *path = NULL;
    int n_logs = 0;
    int st = one_table_args(sub, argc, argv, tupdate_help, "give one step probe table%s", &cm,
                            &path, &n_logs);
    if (st >= 0)
        return st;
    const char *const *logs = (const char *const *)argv + argc - n_logs;
    mb_fit_tupdate *fits;
    size_t n;
    if (mb_fit_tupdate_table(path, cm.weights, cm.threads, &fits, &n, &err) != MB_OK)
        return mb_cli_fail("mbfit", sub, &err);
    char data[MB_FIT_SETTING_LEN] = ""; /* the runs' data set, where they say */
    if (n_logs > 0) { /* the runs' seconds per update calibrate the fit of their P */
        mb_fit_runs runs;
        const double never = 0.0; /* thresholds do not matter here: no loss reaches 0 */
        int rc = mb_fit_runs_read_logs(logs, (size_t)n_logs, &never, 1, 1, &runs, &err);
        if (rc == MB_OK) {
            /* one data set, recorded for mbopt (campaign 21, N4) */
            rc = mb_fit_runs_same_settings(&runs, logs, "data", &err);
            /* and one network's size: runs of another time another step (campaign 31's N4) */
            if (rc == MB_OK)
                rc = mb_fit_runs_same_settings(&runs, logs, "params", &err);
            for (size_t i = 0; rc == MB_OK && i < runs.n && !data[0]; i++)
                snprintf(data, sizeof data, "%s", mb_fit_runs_setting(&runs, i, "data"));
            if (rc == MB_OK)
                rc = calibrate_by_runs(fits, n, &runs, logs, cm.weights, path, &err);
            mb_fit_runs_free(&runs);
        }
        if (rc != MB_OK) {
            mb_fit_tupdate_free_all(fits, n);
            return mb_cli_fail("mbfit", sub, &err);
        }
    }
    cJSON *root = NULL;
    if (cm.json) {
        root = mb_fit_tupdate_json(fits, n, path, cm.weights);
        /* the runs' data set where the table named none (the same where both do: run_matches) */
        if (root && data[0] && !cJSON_HasObjectItem(root, "data"))
            cJSON_AddStringToObject(root, "data", data);
        cJSON *in = root ? cJSON_GetObjectItemCaseSensitive(root, "inputs") : NULL;
        cJSON *fl = in && n_logs ? cJSON_AddArrayToObject(in, "runs") : NULL;
        for (int i = 0; fl && i < n_logs; i++)
            cJSON_AddItemToArray(fl, cJSON_CreateString(logs[i]));
        for (size_t k = 0; k < n; k++)
            for (size_t i = 0; i < fits[k].warn.n; i++)
                mb_cli_say("mbfit", "tupdate", "warning: %s", fits[k].warn.msg[i]);
    }
    tup_print tp = {fits, n};
    int status = emit(sub, &cm, root, tupdate_print, &tp);
    mb_fit_tupdate_free_all(fits, n);
    return status;
}
