/* mbprobe.c — the `mbprobe` command: timing sweeps.
 *
 *   mbprobe comm      collectives under mpirun (allreduce, reduce+bcast, gather+scatter)
 *   mbprobe overhead  the timing harness's own cost per sample and the clock's resolution
 *   mbprobe step      train/'s real update step per batch size, threads and learners per device
 *   mbprobe conv      every convolution algorithm per layer, pass and batch size (cached)
 *   mbprobe learners  Crossbow's learner-count auto-tuner on the real update step
 *
 * Thin: the subcommands (probe/mbprobe_*.c; what they share in mbprobe_cli.h) parse options,
 * call probe/, print; this file dispatches. Usage errors exit 2, bad values or files exit 1 with
 * one line naming the flag or file.
 */
#include <stdio.h>
#include <string.h>

#include "mbprobe_cli.h"
#include "../data/mb_cli.h"

static void help(void)
{
    printf("Usage: mbprobe COMMAND [OPTION]...\n"
           "Timing sweeps on this machine, written as the tables of docs/design.md.\n\n"
           "Commands:\n"
           "  step      time train/'s real forward, backward and update per batch size, threads\n"
           "            and learners per device, and find the knee M_T\n"
           "  comm      time MPI_Allreduce, MPI_Reduce+MPI_Bcast and MPI_Gather+MPI_Scatter per\n"
           "            message size; run it as 'mpirun -np N mbprobe comm ...' (N >= 2)\n"
           "  conv      time each convolution algorithm per layer, pass and batch size, with the\n"
           "            workspace each needs (cached per host and shape)\n"
           "  learners  Crossbow's auto-tuner: add learners per device while throughput rises by\n"
           "            more than a threshold\n"
           "  overhead  the timing harness's own cost per sample, and the clock's resolution\n\n"
           "  -h, --help      show this help and exit\n"
           "  -V, --version   show the version and exit\n\n"
           "'mbprobe COMMAND --help' describes each command.\n");
}

static int run_command(int argc, char **argv)
{
    if (argc < 2)
        return mb_cli_usage(prog, NULL, "missing command (step, comm, conv, learners, overhead)");
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        help();
        return 0;
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("mbprobe (mbkit) %s\n", mb_version());
        return 0;
    }
    opterr = 0;
    if (strcmp(cmd, "comm") == 0) return cmd_comm(argc - 1, argv + 1, argc, argv);
    if (strcmp(cmd, "overhead") == 0) return cmd_overhead(argc - 1, argv + 1);
    if (strcmp(cmd, "step") == 0) return cmd_step(argc - 1, argv + 1, argc, argv);
    if (strcmp(cmd, "conv") == 0) return cmd_conv(argc - 1, argv + 1, argc, argv);
    if (strcmp(cmd, "learners") == 0) return cmd_learners(argc - 1, argv + 1, argc, argv);
    return mb_cli_usage(prog, NULL, "unknown command '%s'", cmd);
}

int main(int argc, char **argv)
{
    int start = mb_cli_start();
    return mb_cli_exit(start ? start : run_command(argc, argv));
}
