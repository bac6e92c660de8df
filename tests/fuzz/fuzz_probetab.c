/* fuzz_probetab.c — the probes' tables as their readers take them: a step table as mbfit
 * tupdate fits it (fit/tupdate.c), a collective table as mbfit comm fits it (fit/comm.c), a
 * convolution table as mbopt conv reads it (solver/conv.c) and a probe cache as mbprobe conv
 * opens it (probe/conv.c). One input, read as each. */
#include "fuzz_common.h"

#include "../../data/mb_parse.h"
#include "../../fit/mb_fit.h"
#include "../../probe/mb_probe.h"
#include "../../solver/mb_solver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    mb_error err = {0};
    mb_fit_tupdate *tf = NULL;
    size_t nt = 0;
    if (mb_fit_tupdate_table(path, MB_FIT_W_RELATIVE, 0, &tf, &nt, &err) == MB_OK)
        mb_fit_tupdate_free_all(tf, nt);
    mb_fit_comm c = {0};
    (void)mb_fit_comm_table(path, MB_FIT_W_NONE, &c, &err);
    mb_fit_comm_free(&c);
    mb_cilp_table *ct = NULL;
    if (mb_solver_conv_read(path, NULL, &ct, &err) == MB_OK)
        mb_solver_conv_free(ct);
    mb_probe_cache *pc = NULL;
    if (mb_probe_cache_open(path, &pc, &err) == MB_OK)
        mb_probe_cache_free(pc);
    fuzz_close(fd);
    return 0;
}
