/* fuzz_table.c — CSV tables (data/table.c): mb_table_read and every accessor on what it read,
 * and the points-file reader of mbfit nupdate (fit/runs.c). */
#include "fuzz_common.h"

#include "../../data/mb_table.h"
#include "../../fit/mb_fit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    mb_table *t;
    mb_error err = {0};
    if (mb_table_read(path, &t, &err) == MB_OK) {
        for (size_t r = 0; r < mb_table_rows(t); r++)
            for (size_t c = 0; c < mb_table_cols(t); c++) {
                double v;
                (void)mb_table_line(t, r);
                (void)mb_table_col_name(t, c);
                (void)mb_table_double_in(t, r, c, 0, 1e9, 1, &v, &err);
            }
        (void)mb_table_meta(t, "batch");
        for (size_t i = 0; i < mb_table_trailers(t); i++)
            (void)mb_table_trailer(t, i);
        mb_table_free(t);
    }
    mb_fit_runs runs;
    if (mb_fit_runs_read_points(path, &runs, &err) == MB_OK)
        mb_fit_runs_free(&runs);
    fuzz_close(fd);
    return 0;
}
