/* mbopt.c — the `mbopt` command: recommendations from the models.
 *
 *   mbopt scale   M_opt, T_C and speed-up per learner count under optimal, strong, weak scaling
 *   mbopt amdahl  Amdahl efficiency on G devices and its inversions (Zou et al., Lemma 3.1)
 *   mbopt ps      parameter servers needed to hide push and pull (Zou et al., Lemma 3.2)
 *   mbopt design  the budget split between learners and bandwidth (Perrone et al., eq. 11-12)
 *   mbopt validate  predicted against measured training time, from run logs
 *   mbopt mem     the memory a network holds at each M (Zou et al., eq. 1-5)
 *   mbopt conv    convolution algorithms per layer and pass for each M: the GLPK ILP (eq. 6)
 *
 * Thin: this file dispatches; each subcommand is solver/mbopt_NAME.c (parse options, call
 * solver/ and model/, print a table or JSON) over the shared options of mbopt_cli.h. Usage
 * errors exit 2, bad values or files exit 1 with one line naming the flag or file.
 */
#include <string.h>

#include "mbopt_cli.h"
#include "../data/mb_cli.h"

/* ---- main ------------------------------------------------------------------------------------ */

static void help(void)
{
    printf("Usage: mbopt COMMAND [OPTION]...\n"
           "Recommendations from mbkit's models: which mini-batch size and how many learners\n"
           "train soonest, and what the hardware needs.\n\n"
           "Commands:\n"
           "  scale    M_opt and T_C per learner count: optimal, strong and weak scaling\n"
           "  validate predicted against measured training time, from run logs\n"
           "  amdahl   efficiency, speed-up, devices and overhead ratio (any two give the rest)\n"
           "  ps       parameter servers needed to hide communication\n"
           "  design   the budget split between learners and bandwidth\n"
           "  mem      the memory a network needs at each M, and the largest M that fits\n"
           "  conv     convolution algorithms per layer and M (GLPK ILP), with T_C\n\n"
           "  -h, --help     show this help and exit\n"
           "  -V, --version  show the version and exit\n\n"
           "'mbopt COMMAND --help' describes each command.\n");
}

static int run_command(int argc, char **argv)
{
    if (argc < 2)
        return mb_cli_usage(prog, NULL, "missing command (scale, validate, amdahl, ps, design, mem, conv)");
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        help();
        return 0;
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("mbopt (mbkit) %s\n", mb_version());
        return 0;
    }
    opterr = 0;
    if (strcmp(cmd, "scale") == 0) return mbopt_scale(argc - 1, argv + 1);
    if (strcmp(cmd, "amdahl") == 0) return mbopt_amdahl(argc - 1, argv + 1);
    if (strcmp(cmd, "ps") == 0) return mbopt_ps(argc - 1, argv + 1);
    if (strcmp(cmd, "design") == 0) return mbopt_design(argc - 1, argv + 1);
    if (strcmp(cmd, "validate") == 0) return mbopt_validate(argc - 1, argv + 1);
    if (strcmp(cmd, "mem") == 0) return mbopt_mem(argc - 1, argv + 1);
    if (strcmp(cmd, "conv") == 0) return mbopt_conv(argc - 1, argv + 1);
    return mb_cli_usage(prog, NULL, "unknown command '%s'", cmd);
}

int main(int argc, char **argv)
{
    mb_cli_one_blas_thread(argv); /* under a memory limit, one BLAS thread */
    int start = mb_cli_start();
    return mb_cli_exit(start ? start : run_command(argc, argv));
}
