/* fuzz_ckpt.c — mbtrain checkpoints (train/run/run_ckpt.c): mb_ckpt_decode on the input as it is
 * (almost always refused by the checksum) and, when it is long enough, with the checksum
 * repaired, so that the section and value checks behind the checksum are reached too. */
#include "fuzz_common.h"

#include <string.h>
#include <zlib.h>

#include "../../train/run/run_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mb_ckpt c;
    mb_error err = {0};
    if (mb_ckpt_decode(data, size, "fuzz", &c, &err) == MB_OK)
        mb_ckpt_release(&c);
    /* the same bytes under a valid magic, end section and checksum */
    size_t n = 8 + size + 20;
    uint8_t *b = malloc(n);
    if (!b)
        return 0;
    memcpy(b, "MBKCKPT3", 8);
    memcpy(b + 8, data, size);
    uint64_t four = 4;
    memcpy(b + 8 + size, "END \0\0\0\0", 8);
    memcpy(b + 16 + size, &four, 8);
    uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), b, (uInt)(8 + size));
    memcpy(b + 24 + size, &crc, 4);
    if (mb_ckpt_decode(b, n, "fuzz", &c, &err) == MB_OK)
        mb_ckpt_release(&c);
    free(b);
    return 0;
}
