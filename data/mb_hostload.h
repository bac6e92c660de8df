/* mb_hostload.h — what else the machine did while mbkit timed something: between two marks,
 * the cores that other processes kept busy and the cores the hypervisor took (steal), from
 * Linux's /proc/stat and /proc/self/stat. A timing taken beside other work is of a loaded
 * machine; these say so in the outputs instead of leaving the reader to guess (docs/formats.md,
 * "Run logs": `# others_cores=`, `# steal_cores=`).
 */
#ifndef MB_HOSTLOAD_H
#define MB_HOSTLOAD_H

typedef struct mb_hostload_mark {
    int ok;         /* 0: /proc unreadable (not Linux, or hidden): the marks say nothing */
    double t;       /* CLOCK_MONOTONIC seconds */
    double busy_s;  /* every CPU's busy seconds so far (user, nice, system, irq, softirq) */
    double steal_s; /* every CPU's stolen seconds so far */
    double own_s;   /* this process's CPU seconds so far (every thread), on the same clock */
} mb_hostload_mark;

/* The machine's counters now. */
void mb_hostload_mark_now(mb_hostload_mark *m);

/* The shortest interval that says anything: the counters tick at the kernel's clock (USER_HZ,
 * 100 a second), so over a few milliseconds one tick read as 3-30 cores (campaign 32). */
#define MB_HOSTLOAD_MIN_S 0.1

/* Between a and b: *others the average number of cores busy with other processes' work (the
 * machine's busy seconds less this process's, over the wall seconds; from 0 to the online
 * CPUs), *steal the average number the hypervisor took. Both NAN when either mark is not ok or
 * less than MB_HOSTLOAD_MIN_S passed. An interval of a tenth of a second reads to about 0.1
 * cores; medians over runs are the figure to read. */
void mb_hostload_between(const mb_hostload_mark *a, const mb_hostload_mark *b, double *others,
                         double *steal);

#endif
