/* fuzz_desc.c — network descriptions (net/desc_read.c): the cfg reader and the shape
 * chaining it checks. */
#include "fuzz_common.h"

#include "../../net/mb_net.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    mb_net_desc *d = NULL;
    mb_error err = {0};
    if (mb_net_desc_read(path, &d, &err) == MB_OK)
        mb_net_desc_free(d);
    fuzz_close(fd);
    return 0;
}
