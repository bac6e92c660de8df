/* mbprobe_overhead.c — `mbprobe overhead`: the timing harness's own cost per sample and the
 * clock's resolution (probe/harness.c).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../data/mb_parse.h"
#include "../data/mb_cli.h"
#include "../data/mb_output.h"
#include "../data/mb_dataset.h"
#include "mbprobe_cli.h"
#include "../train/backend/mb_backend.h"
#include "../train/run/mb_run.h"

/* ---- mbprobe overhead -------------------------------------------------------------------------- */

int cmd_overhead(int argc, char **argv)
{
    const char *sub = "overhead";
    mb_probe_options o;
    mb_probe_options_init(&o);
    o.budget_s = 0.5;
    o.min_reps = 1000; /* many samples: the overhead is near the clock's resolution */
    o.max_reps = 100000;
    static const struct option longopts[] = {HARNESS_LONGOPTS, {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    mb_error err = {0};
    int c;
    optind = 1;
    mb_cli_seen seen = {prog, sub, NULL, {0}, NULL};
    while ((c = mb_cli_getopt(argc, argv, ":h", longopts, &seen)) != -1) {
        if (c == 'h') {
            printf("Usage: mbprobe overhead [OPTION]...\n"
                   "Times an empty callback one call per sample with the harness: its median is\n"
                   "what reading the clock twice and one indirect call add to every sample.\n\n");
            harness_help(&o);
            return 0;
        }
        int rc = other_option(sub, &o, c, argv);
        if (rc >= 0)
            return rc;
    }
    if (optind < argc)
        return mb_cli_usage(prog, sub, "unexpected argument '%s'", argv[optind]);
    mb_probe_stats st;
    if (mb_probe_overhead(&o, &st, &err) != MB_OK)
        return mb_cli_fail(prog, sub, &err);
    printf("harness overhead per sample: median %.3g s (p25 %.3g, p75 %.3g, min %.3g, max %.3g; "
           "%zu reps, stopped by %s)\n", st.median, st.p25, st.p75, st.min, st.max, st.reps,
           mb_probe_stop_name(st.why));
    printf("CLOCK_MONOTONIC resolution: %.3g s (clock_getres); smallest step seen: %.3g s\n",
           mb_probe_clock_resolution(), mb_probe_clock_step());
    return 0;
}
