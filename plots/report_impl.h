/* report_impl.h — what the two halves of `mbplot report` share: report_inputs.c reads and
 * checks the folder's inputs, report.c draws the figures and writes the page. Private to plots/.
 */
#ifndef MB_REPORT_IMPL_H
#define MB_REPORT_IMPL_H

#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "../model/mb_model.h"

/* dir/name into buf (n bytes), one slash between. */
static inline void path_join(char *buf, size_t n, const char *dir, const char *name)
{
    size_t l = strlen(dir);
    snprintf(buf, n, "%s%s%s", dir, l && dir[l - 1] == '/' ? "" : "/", name);
}

/* Whether path leads to something (links followed). */
static inline int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The inputs the page is made of, read and checked against each other (mb_report_inputs_read);
 * NULL where an optional one is absent. */
typedef struct mb_report_inputs {
    cJSON *scale;            /* scale.json: required */
    cJSON *nfit, *tfit, *cfit;
    cJSON *val, *val_rec;    /* validate.json, validate-rec.json */
    char *cmds;              /* commands.txt */
    glob_t runs;             /* the run logs (mb_report_glob_runs) */
    int globbed;             /* runs holds a glob to free */
} mb_report_inputs;

/* Reads and checks every input of in_dir (out_dir, or its staging folder) before anything is
 * drawn: one line naming the file at fault otherwise, and nothing kept. */
int mb_report_inputs_read(const char *in_dir, const char *out_dir, mb_report_inputs *in,
                          mb_error *err);
void mb_report_inputs_free(mb_report_inputs *in);

/* The run logs of out_dir: the .csv files of runs/ (one rate) and of its folders (one a rate). */
void mb_report_glob_runs(const char *out_dir, glob_t *runs);

/* Whether out is one of the report's inputs (a symbolic or hard link from one to the other):
 * MB_EINVAL naming both when it is. */
int mb_report_over_input(const char *out_dir, const char *out, const glob_t *runs,
                         mb_error *err);

/* When an input is a FIFO or another file without a size: a private folder `stage` where each
 * such input is a copy read once, each regular one a link to it (*staged 1); else *staged 0.
 * mb_report_unstage removes it. */
int mb_report_stage_inputs(const char *out_dir, char *stage, size_t n, int *staged,
                           mb_error *err);
void mb_report_unstage(const char *stage);

#endif /* MB_REPORT_IMPL_H */
