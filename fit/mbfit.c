/* mbfit.c — the `mbfit` command: fits mbkit's models to measurements (fit/).
 *
 *   mbfit nupdate  run logs or a points file -> N_update(M) = N_inf + alpha / M (+ alternatives)
 *   mbfit tupdate  step probe table -> T_update = gamma max(M/P, M_T) + delta per learner count
 *   mbfit comm     collective probe table -> alpha-beta lines and the pooled ring allreduce
 *
 * Thin: the subcommands (fit/mbfit_nupdate.c, mbfit_tupdate.c, mbfit_comm.c; what they share in
 * mbfit_cli.h) parse options, call fit/, print a table or write JSON (atomically: all or
 * nothing); this file dispatches.
 * Usage errors exit 2; bad files or values exit 1 with one line naming the file, line and field.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbfit_cli.h"
#include "../data/mb_cli.h"

/* ---- main ------------------------------------------------------------------------------------- */

static void help(void)
{
    printf("Usage: mbfit COMMAND [OPTION]... FILE...\n"
           "Fits mbkit's models to measurements with GSL (trust-region Levenberg-Marquardt),\n"
           "with standard errors, 95%% intervals, R^2 and the solver's status.\n\n"
           "Commands:\n"
           "  nupdate  N_update(M) = N_inf + alpha / M from run logs or a points file\n"
           "  tupdate  T_update = gamma * max(M/P, M_T) + delta from a step probe table\n"
           "  comm     alpha-beta collective costs from a collective probe table\n\n"
           "  -h, --help     show this help and exit\n"
           "  -V, --version  show the version and exit\n\n"
           "'mbfit COMMAND --help' describes each command.\n");
}

static int run_command(int argc, char **argv)
{
    if (argc < 2)
        return mb_cli_usage("mbfit", NULL, "missing command (nupdate, tupdate, comm)");
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        help();
        return 0;
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("mbfit (mbkit) %s\n", mb_version());
        return 0;
    }
    opterr = 0;
    if (strcmp(cmd, "nupdate") == 0) return cmd_nupdate(argc - 1, argv + 1);
    if (strcmp(cmd, "tupdate") == 0) return cmd_tupdate(argc - 1, argv + 1);
    if (strcmp(cmd, "comm") == 0) return cmd_comm(argc - 1, argv + 1);
    return mb_cli_usage("mbfit", NULL, "unknown command '%s'", cmd);
}

int main(int argc, char **argv)
{
    mb_cli_one_blas_thread(argv); /* under a memory limit, one BLAS thread */
    int start = mb_cli_start();
    return mb_cli_exit(start ? start : run_command(argc, argv));
}
