/* fuzz_parckpt.c — the companion checkpoint of parallel runs (PATH.learners, train/par/par_ckpt.c):
 * mb_par_ckpt_decode on the input as it is (almost always refused by the magic, the length or
 * the checksum) and, under the MBKPAR08 magic with its end marker and checksum repaired, so that
 * the head's ranges, the values' checks and the cursor checks behind the checksum are reached.
 * Record 0 and the log rows are asked for, as a resume does. */
#include "fuzz_common.h"

#include <string.h>
#include <zlib.h>

#include "../../train/par/par_impl.h"

static void decode(const uint8_t *b, size_t n)
{
    mb_par_ckpt_head h;
    mb_error err = {0};
    char *rows = NULL;
    float rec[64];
    /* record 0 only when it fits the buffer here (a real resume allocates rec_floats) */
    memcpy(&h, b + (n >= 8 + sizeof h ? 8 : 0), n >= 8 + sizeof h ? sizeof h : 0);
    int small = n >= 8 + sizeof h && h.rec_floats <= 64;
    if (mb_par_ckpt_decode(b, n, "fuzz", &h, &rows, 0, small ? rec : NULL, &err) == MB_OK)
        free(rows);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    decode(data, size);
    size_t n = 8 + size + 8 + 4;
    uint8_t *b = malloc(n);
    if (!b)
        return 0;
    memcpy(b, "MBKPAR08", 8);
    memcpy(b + 8, data, size);
    memcpy(b + 8 + size, "MBKPEND\n", 8);
    uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), b, (uInt)(8 + size + 8));
    memcpy(b + 16 + size, &crc, 4);
    decode(b, n);
    free(b);
    return 0;
}
