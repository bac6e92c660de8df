/* fuzz_list.c — what users type on command lines (data/parse.c, data/synthetic.c): numbers,
 * sizes, comma lists and lo:hi ranges, key=value lists, synthetic data specs. */
#include "fuzz_common.h"

#include <string.h>

#include "../../data/mb_parse.h"
#include "../../data/mb_dataset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    mb_error err = {0};
    double v;
    long l;
    (void)mb_data_parse_double(s, &v);
    (void)mb_data_parse_size(s, &v);
    (void)mb_data_parse_long(s, 0, 1L << 40, &l);
    (void)mb_data_flag_double("--x", s, 1, MB_POSITIVE, &v, &err);
    (void)mb_data_flag_whole("--x", s, 0, 1, 1e15, &v, &err);
    (void)mb_data_flag_whole("--x", s, 1, 0, 1e15, &v, &err);
    (void)mb_data_flag_momentum("--x", s, &v, &err);
    (void)mb_data_whole_as_written(s);
    mb_range r;
    if (mb_data_parse_range(s, "--x", &r, &err) == MB_OK)
        mb_data_range_free(&r);
    if (mb_data_parse_counts(s, "--x", 1, 9007199254740992.0, &r, &err) == MB_OK)
        mb_data_range_free(&r);
    char **items;
    size_t n;
    for (int keyed = 0; keyed < 2; keyed++)
        if (mb_data_split_list(s, "--x", keyed, &items, &n, &err) == MB_OK)
            free(items);
    mb_synthetic p;
    char spec[4200];
    snprintf(spec, sizeof spec, "synthetic:%.4096s", s);
    (void)mb_synthetic_parse(spec, &p, &err);
    free(s);
    return 0;
}
