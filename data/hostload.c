/* hostload.c — mb_hostload: marks of the machine's CPU counters (/proc/stat's "cpu" line and
 * this process's utime and stime in /proc/self/stat, both in USER_HZ ticks) and what other
 * processes and the hypervisor took between two of them.
 */
#include "mb_hostload.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The aggregate "cpu" line: busy and steal ticks. 0 when it cannot be read. */
static int read_stat(double *busy, double *steal)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return 0;
    unsigned long long v[8] = {0};
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    if (n < 7)
        return 0;
    /* user nice system idle iowait irq softirq steal: guest time is inside user already */
    *busy = (double)v[0] + (double)v[1] + (double)v[2] + (double)v[5] + (double)v[6];
    *steal = n >= 8 ? (double)v[7] : 0;
    return 1;
}

/* This process's utime + stime ticks (fields 14 and 15 of /proc/self/stat, after the command
 * name in parentheses, which may hold spaces). 0 when it cannot be read. */
static int read_self(double *ticks)
{
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    unsigned long long ut, st;
    /* after ")": state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
     * utime stime */
    if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
                     &st) != 2)
        return 0;
    *ticks = (double)ut + (double)st;
    return 1;
}

void mb_hostload_mark_now(mb_hostload_mark *m)
{
    struct timespec ts;
    double busy = 0, steal = 0, own = 0;
    long hz = sysconf(_SC_CLK_TCK);
    memset(m, 0, sizeof *m);
    if (hz <= 0 || clock_gettime(CLOCK_MONOTONIC, &ts) != 0 || !read_stat(&busy, &steal) ||
        !read_self(&own))
        return;
    m->t = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    m->busy_s = busy / (double)hz;
    m->steal_s = steal / (double)hz;
    m->own_s = own / (double)hz;
    m->ok = 1;
}

void mb_hostload_between(const mb_hostload_mark *a, const mb_hostload_mark *b, double *others,
                         double *steal)
{
    *others = *steal = NAN;
    const double wall = b->t - a->t;
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    /* under MB_HOSTLOAD_MIN_S one tick of the counters is more than a core: nothing said */
    if (!a->ok || !b->ok || !(wall >= MB_HOSTLOAD_MIN_S) || cpus < 1)
        return;
    const double o = (b->busy_s - a->busy_s) - (b->own_s - a->own_s);
    *others = fmin(o > 0 ? o / wall : 0, (double)cpus); /* the ticks' rounding: never more */
    const double s = b->steal_s - a->steal_s;
    *steal = fmin(s > 0 ? s / wall : 0, (double)cpus);
}
