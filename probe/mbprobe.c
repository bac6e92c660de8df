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
#include <unistd.h>

#include "mbprobe_cli.h"
#include "../data/mb_cli.h"
#include "../train/comm/mb_comm.h"

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

/* Under mpirun, a command that does not use MPI starts it all the same, for the ranks' first
 * exchange (mb_comm_mpi_create: which program each runs), and ends it again: beside another
 * program (`mpirun -np 1 mbtrain ... : -np 1 mbprobe step ...`) every rank then ends with one
 * line from rank 0, where this one used to leave without MPI and Open MPI's lines were all
 * (campaign 18's M6). Beside copies of itself it is refused as mbtrain refuses a one-learner
 * algorithm (start_mpi): every rank would time on the same cores and write the same -o
 * (campaign 33's D11); one rank goes on. -1 to go on, else the exit status. */
static int join_mpi(int *argc, char ***argv, const char *cmd)
{
    if (!mb_comm_mpi_launched())
        return -1;
    char name[MB_COMM_PROGRAM_MAX];
    snprintf(name, sizeof name, "%s %s", prog, cmd);
    mb_communicator *world = NULL;
    mb_error err = {0};
    int status = -1;
    if (mb_comm_mpi_create(argc, argv, name, &world, &err) != MB_OK) {
        status = !world || err.msg[0] ? mb_cli_fail(prog, NULL, &err) : 1; /* rank 0 says it */
    } else if (mb_comm_size(world) > 1) {
        if (mb_comm_rank(world) == 0)
            fprintf(stderr, "%s: runs in one process, but mpirun started %d ranks: run it "
                    "without mpirun (only mbprobe comm uses the ranks)\n", name,
                    mb_comm_size(world));
        status = MB_EXIT_USAGE;
    }
    mb_comm_free(world); /* after the line: every rank waits here for the others */
    return status;
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
    int joined = join_mpi(&argc, &argv, cmd);
    if (joined >= 0)
        return joined;
    if (strcmp(cmd, "overhead") == 0) return cmd_overhead(argc - 1, argv + 1);
    if (strcmp(cmd, "step") == 0) return cmd_step(argc - 1, argv + 1, argc, argv);
    if (strcmp(cmd, "conv") == 0) return cmd_conv(argc - 1, argv + 1, argc, argv);
    if (strcmp(cmd, "learners") == 0) return cmd_learners(argc - 1, argv + 1, argc, argv);
    return mb_cli_usage(prog, NULL, "unknown command '%s'", cmd);
}

int main(int argc, char **argv)
{
    mb_cli_one_blas_thread(argv); /* under a memory limit, one BLAS thread of its own */
    int start = mb_cli_start();
    return mb_cli_exit(start ? start : run_command(argc, argv));
}
