/* fuzz_json.c — the JSON fits and results (data/json.c, solver/fits.c, plots/validate.c):
 * one input read as an mbfit nupdate, tupdate and comm fit, an mbopt scale model and an mbopt
 * validate file. */
#include "fuzz_common.h"

#include <math.h>

#include "../../data/mb_json.h"
#include "../../plots/mb_plot.h"
#include "../../solver/mb_solver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    mb_error err = {0};
    mb_solver_nfit nf;
    (void)mb_solver_read_nfit(path, "best", &nf, &err);
    mb_update_time t = {0};
    int has_delta;
    (void)mb_solver_read_tfit(path, &t, &has_delta, &err);
    (void)mb_solver_read_cfit(path, &t, &err);
    cJSON *root;
    if (mb_json_read(path, &root, &err) == MB_OK) {
        mb_law law;
        double range[2];
        (void)mb_solver_read_model(cJSON_GetObjectItemCaseSensitive(root, "model"), path, &law,
                                   &t, range, &err);
        double v;
        (void)mb_json_number_in(root, "procs", path, "", 1, 1e9, 1, 0, &v, &err);
        cJSON_Delete(root);
    }
    if (mb_plot_read_validate(path, &root, &err) == MB_OK)
        cJSON_Delete(root);
    fuzz_close(fd);
    return 0;
}
