/* fuzz_ckpt.c — mbtrain checkpoints (train/run/run_ckpt.c): mb_ckpt_decode on the input as it is
 * (almost always refused by the checksum) and, when it is long enough, with the checksum
 * repaired, so that the section and value checks behind the checksum are reached too: the input
 * as the sections of a checkpoint of the current format version (MB_CKPT_VERSION).
 *
 * Seeds (tests/fuzz/corpus/ckpt): `whole`, a version-11 checkpoint mbtrain wrote (the tiny net of
 * tests/test_hostile.c, synthetic:n=64,test=16,c=1,h=8,w=8,classes=4,seed=3, --batch 8
 * --threads 1 --algo momentum --max-updates 10 --eval-every 5 --checkpoint-every 10), and
 * `body_momentum`, `body_sgd`: such files (sgd for the second) without their magic and end
 * section, which the repaired path takes. tests/test_train_run.c checks that all three decode. */
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
    memcpy(b, "MBKCKPT", 7);
    b[7] = MB_CKPT_VERSION;
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
