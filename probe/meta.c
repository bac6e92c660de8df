/* meta.c — the "# key=value" lines that open every probe output: the common ones of data/
 * (tool, version, host, date, command line), then the CPU model, core and thread counts, the
 * frequency governor, the versions of Open MPI, OpenBLAS, FFTW and GSL, and the clock.
 *
 * Does not: fail. What cannot be read is written as "unknown" (or "unreadable" for the governor,
 * which containers and VMs often hide).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fftw3.h>
#include <gsl/gsl_version.h>

#include "../data/mb_output.h"
#include "../data/mb_format.h"
#include "mb_probe.h"

/* OpenBLAS's own query; declared here because <cblas.h> may be another BLAS's header. */
char *openblas_get_config(void);

/* Copies src into dst as one line: control characters become spaces, ends trimmed. */
static void one_line(char *dst, size_t n, const char *src)
{
    size_t j = 0;
    for (const char *p = src; *p && j + 1 < n; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '\n' && j > 0)
            break; /* first line only */
        dst[j++] = iscntrl(c) ? ' ' : (char)c;
    }
    while (j > 0 && dst[j - 1] == ' ')
        j--;
    dst[j] = '\0';
    size_t s = 0;
    while (dst[s] == ' ')
        s++;
    if (s)
        memmove(dst, dst + s, j - s + 1);
    if (!dst[0])
        snprintf(dst, n, "unknown");
}

static void read_cpuinfo(mb_probe_host *h)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    long phys = 0;
    /* distinct (physical id, core id) pairs, kept small: up to 1024 cores counted exactly */
    enum { MAXC = 1024 };
    long seen[MAXC];
    int nseen = 0;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        const char *val = colon + 1;
        if (strncmp(line, "model name", 10) == 0 && strcmp(h->cpu_model, "unknown") == 0)
            one_line(h->cpu_model, sizeof h->cpu_model, val);
        else if (strncmp(line, "physical id", 11) == 0)
            phys = strtol(val, NULL, 10);
        else if (strncmp(line, "core id", 7) == 0) {
            long key = phys * 100000 + strtol(val, NULL, 10);
            int dup = 0;
            for (int i = 0; i < nseen; i++)
                dup |= seen[i] == key;
            if (!dup && nseen < MAXC)
                seen[nseen++] = key;
        }
    }
    fclose(f);
    if (nseen > 0)
        h->cores = nseen;
}

void mb_probe_host_read(mb_probe_host *h)
{
    memset(h, 0, sizeof *h);
    snprintf(h->cpu_model, sizeof h->cpu_model, "unknown");
    long nt = sysconf(_SC_NPROCESSORS_ONLN);
    h->threads = nt > 0 ? (int)nt : 1;
    h->cores = 0;
    read_cpuinfo(h);
    if (h->cores <= 0 || h->cores > h->threads)
        h->cores = h->threads;

    snprintf(h->governor, sizeof h->governor, "unreadable");
    FILE *g = fopen("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "r");
    if (g) {
        char buf[64];
        if (fgets(buf, sizeof buf, g))
            one_line(h->governor, sizeof h->governor, buf);
        fclose(g);
    }

    char mpi[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (MPI_Get_library_version(mpi, &len) == MPI_SUCCESS)
        one_line(h->mpi, sizeof h->mpi, mpi);
    else
        snprintf(h->mpi, sizeof h->mpi, "unknown");
    const char *ob = openblas_get_config();
    one_line(h->openblas, sizeof h->openblas, ob ? ob : "");
    one_line(h->fftw, sizeof h->fftw, fftwf_version);
    one_line(h->gsl, sizeof h->gsl, gsl_version);
    h->clock_res_s = mb_probe_clock_resolution();
}

void mb_probe_write_meta(FILE *f, const char *tool, int argc, char **argv, const mb_probe_host *h)
{
    mb_data_write_common_meta(f, tool, argc, argv);
    fprintf(f, "# cpu_model=%s\n# cores=%d\n# threads=%d\n# governor=%s\n", h->cpu_model,
            h->cores, h->threads, h->governor);
    fprintf(f, "# mpi=%s\n# openblas=%s\n# fftw=%s\n# gsl=%s\n", h->mpi, h->openblas, h->fftw,
            h->gsl);
    fprintf(f, "# clock=CLOCK_MONOTONIC\n# clock_resolution_s=%.3g\n", h->clock_res_s);
}
