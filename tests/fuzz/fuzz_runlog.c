/* fuzz_runlog.c — mbtrain run logs as mbfit nupdate reads them (fit/runs.c): metadata,
 * the update/loss/eval columns, the crossing of two thresholds, divergence markers. */
#include "fuzz_common.h"

#include "../../fit/mb_fit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    const char *paths[1] = {path};
    const double thr[2] = {0.5, 1.5};
    mb_fit_runs runs;
    mb_error err = {0};
    if (mb_fit_runs_read_logs(paths, 1, thr, 2, 3, &runs, &err) == MB_OK)
        mb_fit_runs_free(&runs);
    fuzz_close(fd);
    return 0;
}
