/* mbfit_comm.c — `mbfit comm`: a collective probe table -> alpha-beta lines and the pooled ring
 * allreduce (fit/comm.c).
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

/* ---- comm ------------------------------------------------------------------------------------- */

static void comm_help(void)
{
    printf("Usage: mbfit comm [OPTION]... COMM.csv\n"
           "Fits collective timings (mbprobe comm: op,procs,bytes,t_median_s): the line\n"
           "t = a + b * bytes for each (op, procs), and one pooled ring-allreduce model\n"
           "t = 2(P-1) latency_s + 2(P-1)/P bytes s_per_byte over the allreduce rows with\n"
           "procs >= 2, which 'mbopt --cfit' reads. Coefficients are kept >= 0: a negative one\n"
           "is shown as a warning with its unconstrained value, then held at 0.\n\n"
           "      --weights W      none or relative (sigma_i = t_median_s; default relative)\n"
           "      --json           write the fits as JSON\n"
           "  -o, --output FILE    write to FILE (atomically) instead of standard output\n"
           "  -h, --help           show this help and exit\n\n"
           "Example:\n"
           "  mbfit comm comm.csv --json > c.json\n");
}

static void comm_print(FILE *f, const void *arg)
{
    const mb_fit_comm *c = arg;
    fprintf(f, "# t = a + b * bytes per (op, procs)\n");
    fprintf(f, "%-12s %-13s %13s %12s  %s\n", "model", "param", "value", "stderr", "ci95");
    for (size_t i = 0; i < c->n_fits; i++) {
        char label[64];
        snprintf(label, sizeof label, "%s P=%g", c->fits[i].op, c->fits[i].procs);
        print_fit(f, label, &c->fits[i].fit);
    }
    fprintf(f, "# ring allreduce, pooled: t = 2(P-1) latency_s + 2(P-1)/P bytes s_per_byte\n");
    print_fit(f, "ring", &c->ring);
    print_warnings(f, &c->warn);
}

int cmd_comm(int argc, char **argv)
{
    const char *sub = "comm";
    common cm = {0, "-", MB_FIT_W_RELATIVE, NAN};
    mb_error err = {0};
    const char *path = NULL;
    int st = one_table_args(sub, argc, argv, comm_help,
                            "give exactly one collective probe table%s", &cm, &path, NULL);
    if (st >= 0)
        return st;
    mb_fit_comm fc;
    if (mb_fit_comm_table(path, cm.weights, &fc, &err) != MB_OK)
        return mb_cli_fail("mbfit", sub, &err);
    cJSON *root = NULL;
    if (cm.json) {
        root = mb_fit_comm_json(&fc, path, cm.weights);
        for (size_t i = 0; i < fc.warn.n; i++)
            mb_cli_say("mbfit", "comm", "warning: %s", fc.warn.msg[i]);
    }
    int status = emit(sub, &cm, root, comm_print, &fc);
    mb_fit_comm_free(&fc);
    return status;
}
