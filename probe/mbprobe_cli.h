/* mbprobe_cli.h — what mbprobe's subcommands share (probe/mbprobe_*.c): the option numbers and
 * long options of the timing harness, the device and the workload, their help and parsing, the
 * metadata every table starts with, and the checks before a sweep. Private to the mbprobe
 * command: the library's interface is mb_probe.h.
 */
#ifndef MBPROBE_CLI_H
#define MBPROBE_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "mb_probe.h"
#include "../data/mb_cli.h"
#include "../data/mb_dataset.h"
#include "../train/backend/mb_backend.h"

static const char *const prog = "mbprobe";

enum {
    OPT_BYTES = 256, OPT_OPS, OPT_WARMUP, OPT_MIN_REPS, OPT_MAX_REPS, OPT_REL_CI, OPT_BUDGET,
    OPT_NET, OPT_BATCH, OPT_THREADS, OPT_LEARNERS, OPT_DATA, OPT_ALGO, OPT_SEED, OPT_LR,
    OPT_MOMENTUM, OPT_CONV_ALGO,
    OPT_ALGOS, OPT_CACHE, OPT_NO_CACHE, OPT_THRESHOLD, OPT_MAX_LEARNERS, OPT_ROUNDS,
    OPT_BACKEND, OPT_DEVICE
};

#define HARNESS_LONGOPTS                                                                          \
    {"warmup", required_argument, 0, OPT_WARMUP},                                                \
        {"min-reps", required_argument, 0, OPT_MIN_REPS},                                        \
        {"max-reps", required_argument, 0, OPT_MAX_REPS},                                        \
        {"rel-ci", required_argument, 0, OPT_REL_CI}, {"budget", required_argument, 0, OPT_BUDGET}

/* The device's options, shared by step, learners and conv: --backend cpu|cuda and --device N.
 * 1 if `c` was one, -1 on a bad value (err filled), 0 if not. */
#define DEVICE_LONGOPTS                                                                           \
    {"backend", required_argument, 0, OPT_BACKEND}, {"device", required_argument, 0, OPT_DEVICE}

/* The stepped workload's options, shared by step and learners, spelt as mbtrain spells them
 * (--net, --data, --algo, --lr, --momentum, --conv-algo, --seed): 1 if `c` was one, -1 on a bad
 * value (err filled), 0 if not. */
#define WORKLOAD_LONGOPTS                                                                         \
    {"net", required_argument, 0, OPT_NET}, {"data", required_argument, 0, OPT_DATA},            \
        {"algo", required_argument, 0, OPT_ALGO}, {"lr", required_argument, 0, OPT_LR},          \
        {"momentum", required_argument, 0, OPT_MOMENTUM},                                        \
        {"conv-algo", required_argument, 0, OPT_CONV_ALGO},                                      \
        {"seed", required_argument, 0, OPT_SEED}, DEVICE_LONGOPTS

/* ---- harness options shared by the probes ---------------------------------------------------- */
void harness_help(const mb_probe_options *d);
/* Handles one harness option: 1 if `c` was one, -1 on a bad value (err filled), 0 if not. */
int harness_option(mb_probe_options *o, int c, const char *arg, mb_error *err);
/* An option that is not the subcommand's own: a harness option, or a usage error. Returns -1
 * when handled, else the exit status to return. */
int other_option(const char *sub, mb_probe_options *o, int c, char **argv);
void harness_meta(FILE *f, const mb_probe_options *o);
/* ---- shared by step, conv and learners ------------------------------------------------------- */
int online_cpus(void);
/* A range flag ("lo:hi" doubling or a comma list) as whole numbers in [1, hi] written in digits
 * (no K, M or G: counts, as mbtrain reads them), sorted, without repeats. *v is allocated here. */
int int_list(const char *arg, const char *flag, int hi, int **v, size_t *n, mb_error *err);
/* The output must be writable before minutes of timing are spent (asked, not opened: a FIFO
 * is opened once, when the table is written), and must not be the network description or a
 * file of the data set (data: the --data spec, or NULL) read. */
int check_output(const char *output, const char *net, const char *data, mb_error *err);
/* MB_EINVAL when the file `flag` names (path) is --net's file or one of --data's. */
int check_not_input(const char *flag, const char *path, const char *net, const char *data,
                    mb_error *err);
void device_help(void);
int device_option(mb_backend_kind *backend, int *device, int c, const char *arg,
                  mb_error *err);
/* Whether the backend can run here, before any data are loaded or anything is timed: one line
 * ("backend cuda: CUDA runtime: no device") when not. */
int backend_check(mb_backend_kind backend, mb_error *err);
/* OpenBLAS's room under ulimit -v or -d for callers threads calling it at once and started
 * threads besides the main one (mb_backend_blas_room), checked once the flags are read: -1 to
 * go on, else the exit status (its line said). The step's workload (step, learners) needs
 * STEP_ROOM_MIB besides (measured: mbprobe step --threads 1 ran from 246 MiB of address space,
 * 195 of data, mbtrain from 177 and 129). */
enum { STEP_ROOM_MIB = 72 };
int blas_room(const char *sub, int callers, int started, int extra_mib);
/* The workload's defaults: lenet5, mbtrain's optimiser (SGD, momentum 0.9 for momentum and
 * nesterov) with a learning rate of 0.01, the net's convolution algorithms. */
mb_probe_step_config workload_defaults(void);
/* The workload's help lines (what is stepped, after --net and --batch). */
void workload_help(const mb_probe_step_config *d);
int workload_option(mb_probe_step_config *cfg, const char **data_spec, int c,
                    const char *arg, mb_error *err);
/* A flag the workload or device chosen would ignore (--momentum with --algo sgd, --device with
 * --backend cpu): a usage error naming it (the exit status); -1 when every flag given acts. */
int workload_ignored(const char *sub, const mb_probe_step_config *cfg, const mb_cli_seen *s);
/* The net's name and the data set named by --data, loaded once. */
int load_data(const char *spec, mb_data_splits *d, mb_error *err);

/* The subcommands (probe/mbprobe_overhead.c, _comm.c, _step.c, _learners.c, _conv.c); those that
 * write a table take the whole command line for its metadata. */
int cmd_overhead(int argc, char **argv);
int cmd_comm(int argc, char **argv, int full_argc, char **full_argv);
int cmd_step(int argc, char **argv, int full_argc, char **full_argv);
int cmd_learners(int argc, char **argv, int full_argc, char **full_argv);
int cmd_conv(int argc, char **argv, int full_argc, char **full_argv);

#endif /* MBPROBE_CLI_H */
