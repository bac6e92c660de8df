/* test_data.c — data/: strict parsing of numbers, sizes and ranges; CSV tables with metadata and
 * every malformed-file error; atomic output; JSON files.
 */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../data/mb_cli.h"
#include "../data/mb_parse.h"
#include "../data/mb_table.h"
#include "../data/mb_output.h"
#include "../data/mb_format.h"
#include "../data/mb_json.h"
#include "../data/mb_hostload.h"
#include "mb_test.h"

static void test_parse_numbers(void)
{
    double v = 0;
    long l = 0;
    CU_ASSERT_EQUAL(mb_data_parse_double("0.05", &v), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(v, 0.05, 0);
    CU_ASSERT_EQUAL(mb_data_parse_double("-3.5e-2", &v), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(v, -3.5e-2, 0);
    const char *bad[] = {"", " 1", "1x", "nan", "inf", "-inf", "1e999", "abc", "1,5", NULL};
    for (int i = 0; bad[i]; i++)
        CU_ASSERT_EQUAL(mb_data_parse_double(bad[i], &v), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_data_parse_long("42", 1, 100, &l), MB_OK);
    CU_ASSERT_EQUAL(l, 42);
    CU_ASSERT_EQUAL(mb_data_parse_long("0", 1, 100, &l), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_data_parse_long("4.5", 1, 100, &l), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_data_parse_long("99999999999999999999", 1, 100, &l), MB_EINVAL);
    /* mb_data_typed: the shortest text that reads back as the double (campaign 42's F1: %g
     * wrote 1.500001 and 1.500004 both as 1.5), the exponent without leading zeros */
    char t[MB_DATA_TYPED_LEN];
    const char *const typed[] = {"1.500001", "1.500004", "1.1000001", "9.9999995", "10.000001",
                                 "0.5", "1e-9", "2.5e+20", "0.30000000000000004", NULL};
    for (int i = 0; typed[i]; i++)
        CU_ASSERT_STRING_EQUAL(mb_data_typed(t, strtod(typed[i], NULL)), typed[i]);
}

static void test_parse_sizes(void)
{
    double v;
    CU_ASSERT_EQUAL(mb_data_parse_size("4096", &v), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(v, 4096, 0);
    CU_ASSERT_EQUAL(mb_data_parse_size("256M", &v), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(v, 256.0 * 1048576, 0);
    CU_ASSERT_EQUAL(mb_data_parse_size("1.5GiB", &v), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(v, 1.5 * 1073741824, 0);
    CU_ASSERT_EQUAL(mb_data_parse_size("10g", &v), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(v, 10.0 * 1073741824, 0);
    CU_ASSERT_EQUAL(mb_data_parse_size("3K", &v), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(v, 3072, 0);
    CU_ASSERT_EQUAL(mb_data_parse_size("12B", &v), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(v, 12, 0);
    const char *bad[] = {"", "-1", "1T", "1MM", "M", "1 M", "nanK", "1iB", "1GIB", "1e308K", NULL};
    for (int i = 0; bad[i]; i++)
        CU_ASSERT_EQUAL(mb_data_parse_size(bad[i], &v), MB_EINVAL);
    /* a lower-case b is bits (campaign 36's R7): 10Gb/s is 1.25 GB/s, not 10 */
    CU_ASSERT_EQUAL(mb_data_parse_size("10gB", &v), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(v, 10.0 * 1073741824, 0);
    const char *bits[] = {"10Gb", "10gb", "240Mb", "10Gib", "1GIb", "1.5kb", "8b", "-1Gb", NULL};
    for (int i = 0; bits[i]; i++) {
        CU_ASSERT_EQUAL(mb_data_parse_size(bits[i], &v), MB_EINVAL);
        CU_ASSERT_TRUE(mb_data_size_in_bits(bits[i]));
    }
    const char *not_bits[] = {"10G", "10GB", "b", "1Tb", "xb", NULL};
    for (int i = 0; not_bits[i]; i++)
        CU_ASSERT_FALSE(mb_data_size_in_bits(not_bits[i]));
    mb_error e = {0};
    CU_ASSERT_EQUAL(mb_data_flag_double("--bandwidth", "10Gb", 1, MB_POSITIVE, &v, &e), MB_EINVAL);
    CU_ASSERT_STRING_EQUAL(e.msg, "--bandwidth: '10Gb' is in bits (a lower-case b): give bytes, "
                                  "with B or none (8 bits a byte)");
    CU_ASSERT_EQUAL(mb_data_flag_whole("--mem", "1Gb", 1, 1, 1e15, &v, &e), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "--mem: '1Gb' is in bits"));
    mb_range r;
    CU_ASSERT_EQUAL(mb_data_parse_range("4:4Mb", "--bytes", &r, &e), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "--bytes: '4:4Mb' is in bits"));
    CU_ASSERT_EQUAL(mb_data_parse_range("4,8b", "--bytes", &r, &e), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "--bytes: '8b' is in bits"));
}

static void test_flag_double(void)
{
    double v = 7;
    mb_error e = {0};
    CU_ASSERT_EQUAL(mb_data_flag_double("--alpha", "-1", 0, MB_NONNEG, &v, &e), MB_EINVAL);
    CU_ASSERT_STRING_EQUAL(e.msg, "--alpha: must be >= 0, got '-1'");
    CU_ASSERT_EQUAL(mb_data_flag_double("--gamma", "0", 0, MB_POSITIVE, &v, &e), MB_EINVAL);
    CU_ASSERT_STRING_EQUAL(e.msg, "--gamma: must be > 0, got '0'");
    CU_ASSERT_EQUAL(mb_data_flag_double("--m-t", "lots", 1, MB_POSITIVE, &v, &e), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "--m-t: 'lots' is not a size"));
    CU_ASSERT_EQUAL(mb_data_flag_double("--bytes", "-4K", 1, MB_NONNEG, &v, &e), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "must be >= 0"));
    CU_ASSERT_DOUBLE_EQUAL(v, 7, 0); /* untouched on error */
    CU_ASSERT_EQUAL(mb_data_flag_double("--bytes", "2K", 1, MB_NONNEG, &v, &e), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(v, 2048, 0);
    /* a rate is a float both ways (campaign 36's E3): above FLT_MAX it was inf */
    v = 7;
    CU_ASSERT_EQUAL(mb_data_flag_lr("--lr", "1e39", &v, &e), MB_EINVAL);
    CU_ASSERT_STRING_EQUAL(e.msg, "--lr: '1e39' is above the largest float (3.4e+38), the type "
                                  "training takes it in");
    CU_ASSERT_EQUAL(mb_data_flag_lr("--lr", "3.4028236e38", &v, &e), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_data_flag_lr("--lr", "1e-39", &v, &e), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "below the least rate"));
    CU_ASSERT_DOUBLE_EQUAL(v, 7, 0);
    CU_ASSERT_EQUAL(mb_data_flag_lr("--lr", "3.4028234e38", &v, &e), MB_OK);
    CU_ASSERT_EQUAL(mb_data_flag_lr("--lr", "1.1754944e-38", &v, &e), MB_OK);
    /* --lr-gamma through the float check (campaign 36's E2) */
    CU_ASSERT_EQUAL(mb_data_flag_float("--lr-gamma", "1e-46", MB_POSITIVE, &v, &e), MB_EINVAL);
    CU_ASSERT_STRING_EQUAL(e.msg, "--lr-gamma: '1e-46' is below the least normal float "
                                  "(1.2e-38), the type training takes it in");
    CU_ASSERT_EQUAL(mb_data_flag_float("--lr-gamma", "1e39", MB_POSITIVE, &v, &e), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_data_flag_float("--lr-gamma", "0", MB_POSITIVE, &v, &e), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_data_flag_float("--lr-gamma", "0.5", MB_POSITIVE, &v, &e), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(v, 0.5, 0);
}

static void test_parse_ranges(void)
{
    mb_range r;
    mb_error e = {0};
    CU_ASSERT_EQUAL_FATAL(mb_data_parse_range("1:1024", "--procs", &r, &e), MB_OK);
    CU_ASSERT_EQUAL(r.n, 11);
    for (size_t i = 0; i < r.n; i++)
        CU_ASSERT_DOUBLE_EQUAL(r.v[i], ldexp(1, (int)i), 0);
    mb_data_range_free(&r);
    CU_ASSERT_EQUAL_FATAL(mb_data_parse_range("4:256M", "--bytes", &r, &e), MB_OK);
    CU_ASSERT_EQUAL(r.n, 27); /* 2^2 .. 2^28 */
    CU_ASSERT_DOUBLE_EQUAL(r.v[r.n - 1], 268435456.0, 0);
    mb_data_range_free(&r);
    CU_ASSERT_EQUAL_FATAL(mb_data_parse_range("3:100", "--batch", &r, &e), MB_OK);
    CU_ASSERT_EQUAL(r.n, 6); /* 3 6 12 24 48 96 */
    CU_ASSERT_DOUBLE_EQUAL(r.v[5], 96, 0);
    mb_data_range_free(&r);
    CU_ASSERT_EQUAL_FATAL(mb_data_parse_range("1,3,8:32", "--procs", &r, &e), MB_OK);
    CU_ASSERT_EQUAL(r.n, 5);
    CU_ASSERT_DOUBLE_EQUAL(r.v[1], 3, 0);
    CU_ASSERT_DOUBLE_EQUAL(r.v[4], 32, 0);
    mb_data_range_free(&r);

    CU_ASSERT_EQUAL(mb_data_parse_range("0", "--procs", &r, &e), MB_EINVAL);
    CU_ASSERT_STRING_EQUAL(e.msg, "--procs: '0' is not a positive number");
    CU_ASSERT_EQUAL(mb_data_parse_range("64:8", "--batch", &r, &e), MB_EINVAL);
    CU_ASSERT_STRING_EQUAL(e.msg, "--batch: range '64:8' has lo > hi");
    CU_ASSERT_EQUAL(mb_data_parse_range("1,,2", "--procs", &r, &e), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_data_parse_range("a:b", "--procs", &r, &e), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_data_parse_range("", "--procs", &r, &e), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_data_parse_range("0:8", "--procs", &r, &e), MB_EINVAL);
    CU_ASSERT_PTR_NULL(r.v); /* nothing left to free after an error */

    /* counts (mbopt scale --procs): each end a count as written, so 2^53 + 1 (which a double
     * rounds to 2^53) is refused from its text, with the range */
    CU_ASSERT_EQUAL_FATAL(mb_data_parse_counts("1,3,8:32", "--procs", 1, MB_DATA_RANGE_MAX, &r,
                                               &e), MB_OK);
    CU_ASSERT_EQUAL(r.n, 5);
    mb_data_range_free(&r);
    CU_ASSERT_EQUAL(mb_data_parse_counts("2:9007199254740993", "--procs", 1, MB_DATA_RANGE_MAX,
                                         &r, &e), MB_EINVAL);
    CU_ASSERT_STRING_EQUAL(e.msg, "--procs: '2:9007199254740993' is not a whole number in [1, "
                                  "9007199254740992]");
    CU_ASSERT_EQUAL(mb_data_parse_counts("1.5", "--procs", 1, 64, &r, &e), MB_EINVAL);
    CU_ASSERT_STRING_EQUAL(e.msg, "--procs: '1.5' is not a whole number in [1, 64]");
    CU_ASSERT_EQUAL(mb_data_parse_counts("2,2", "--procs", 1, 64, &r, &e), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_data_parse_counts("8:2", "--procs", 1, 64, &r, &e), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_data_parse_counts("2:", "--procs", 1, 64, &r, &e), MB_EINVAL);
    /* campaign 10's M6: a text past 63 characters was checked on its first 63 only */
    CU_ASSERT_EQUAL(mb_data_parse_counts("2.0000000000000000000000000000000000000000000000000000000000"
                                         "00000000001", "--procs", 1, 64, &r, &e), MB_EINVAL);
    CU_ASSERT_PTR_NULL(r.v);
}

/* Counts are written in digits alone: a text a double rounds to a
 * whole number is not one (campaign 9, L9), nor an exponent or a sign, as mbtrain reads its
 * counts (campaign 17's M1: mbprobe step --batch 1e1 ran M = 10 where mbtrain refused it). */
static void test_parse_counts(void)
{
    mb_range r;
    mb_error e = {0};
    double v;
    CU_ASSERT_EQUAL_FATAL(mb_data_parse_counts("8,16,32:64,1024", "--batch", 1, 4096, &r, &e),
                          MB_OK);
    CU_ASSERT_EQUAL(r.n, 5);
    CU_ASSERT_DOUBLE_EQUAL(r.v[4], 1024, 0);
    mb_data_range_free(&r);
    static const char *const not_digits[] = {"1e1", "1.6e1", "8,3.2e+1:64", "+2", "8.0", "2:4e0"};
    for (size_t i = 0; i < sizeof not_digits / sizeof *not_digits; i++) {
        CU_ASSERT_EQUAL(mb_data_parse_counts(not_digits[i], "--batch", 1, 4096, &r, &e),
                        MB_EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "is not a whole number in [1, 4096]"));
        CU_ASSERT_EQUAL(mb_data_flag_whole("--gpus", not_digits[i], 0, 1, 64, &v, &e),
                        MB_EINVAL);
    }
    /* campaign 38's D1: counts take no K, M or G (mbprobe step --batch 2k ran M = 2048 where
     * mbtrain --batch 2k is refused; mbopt's --batch and --procs took 1K too) */
    CU_ASSERT_EQUAL(mb_data_parse_counts("8,16,32:64,1K", "--batch", 1, 4096, &r, &e),
                    MB_EINVAL);
    CU_ASSERT_STRING_EQUAL(e.msg, "--batch: '1K' is not a whole number in [1, 4096]");
    CU_ASSERT_PTR_NULL(r.v);
    CU_ASSERT_EQUAL(mb_data_parse_counts("2:2k", "--batch", 1, 4096, &r, &e), MB_EINVAL);
    CU_ASSERT_STRING_EQUAL(e.msg, "--batch: '2:2k' is not a whole number in [1, 4096]");
    CU_ASSERT_EQUAL_FATAL(mb_data_parse_counts("8,16:32", "--batch", 1, 4096, &r, &e),
                          MB_OK);
    CU_ASSERT_EQUAL(r.n, 3);
    mb_data_range_free(&r);
    CU_ASSERT_EQUAL(mb_data_flag_whole("--gpus", "1e1", 0, 2, 64, &v, &e), MB_EINVAL);
    CU_ASSERT_STRING_EQUAL(e.msg, "--gpus: must be a whole number in [2, 64] written in digits "
                                  "alone ('1e1' is 10: write that), got '1e1'");
    /* campaign 42's B-F5: the note only where the notation is the sole fault */
    CU_ASSERT_EQUAL(mb_data_flag_whole("--gpus", "1e3", 0, 2, 64, &v, &e), MB_EINVAL);
    CU_ASSERT_STRING_EQUAL(e.msg, "--gpus: must be a whole number in [2, 64], got '1e3'");
    CU_ASSERT_EQUAL(mb_data_flag_whole("--gpus", "4.5", 0, 2, 64, &v, &e), MB_EINVAL);
    CU_ASSERT_STRING_EQUAL(e.msg, "--gpus: must be a whole number in [2, 64], got '4.5'");
    /* campaign 17's M3: a negative value is out of the range stated, not "must be >= 0" */
    CU_ASSERT_EQUAL(mb_data_flag_whole("--gpus", "-1", 0, 2, 64, &v, &e), MB_EINVAL);
    CU_ASSERT_STRING_EQUAL(e.msg, "--gpus: must be a whole number in [2, 64], got '-1'");
    CU_ASSERT_EQUAL(mb_data_flag_whole("--mem", "-1K", 1, 1, 1e9, &v, &e), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "must be a whole number in [1, "));
    CU_ASSERT_EQUAL(mb_data_parse_counts("2.0000000000000001", "--batch", 1, 64, &r, &e),
                    MB_EINVAL);
    CU_ASSERT_STRING_EQUAL(e.msg, "--batch: '2.0000000000000001' is not a whole number in [1, 64]");
    CU_ASSERT_EQUAL(mb_data_parse_counts("2:4.5", "--procs", 1, 64, &r, &e), MB_EINVAL);
    CU_ASSERT_STRING_EQUAL(e.msg, "--procs: '2:4.5' is not a whole number in [1, 64]");
    CU_ASSERT_EQUAL(mb_data_parse_counts("8,128", "--batch", 1, 64, &r, &e), MB_EINVAL);
    CU_ASSERT_STRING_EQUAL(e.msg, "--batch: 128 (in '8,128') is not a whole number in [1, 64]");
    CU_ASSERT_EQUAL(mb_data_parse_counts("1250e-3", "--batch", 1, 64, &r, &e), MB_EINVAL);
    CU_ASSERT_PTR_NULL(r.v);
    CU_ASSERT_EQUAL(mb_data_flag_whole("--n", "1200e-2", 0, 1, 64, &v, &e), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_data_flag_whole("--n", "12", 0, 1, 64, &v, &e), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(v, 12, 0);
    CU_ASSERT_EQUAL(mb_data_flag_whole("--n", "4.0000000000000001", 0, 1, 64, &v, &e), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_data_flag_whole("--mem", "1.5K", 1, 1, 1e9, &v, &e), MB_OK);
}

static void test_table_read(void)
{
    char dir[256], path[512];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    mb_test_write(path, sizeof path, dir, "run.csv",
                  "# net=lenet5\n# batch = 64\n# a comment without a key\n"
                  "update,loss,eval_loss\r\n"
                  "1,2.30,\n"
                  "\n"
                  "2, 1.75 ,1.9\n"
                  "# updates=2 reached=no\n");
    mb_table *t;
    mb_error e = {0};
    CU_ASSERT_EQUAL_FATAL(mb_table_read(path, &t, &e), MB_OK);
    CU_ASSERT_EQUAL(mb_table_rows(t), 2);
    CU_ASSERT_EQUAL(mb_table_cols(t), 3);
    CU_ASSERT_STRING_EQUAL(mb_table_meta(t, "net"), "lenet5");
    CU_ASSERT_STRING_EQUAL(mb_table_meta(t, "batch"), "64");
    CU_ASSERT_PTR_NULL(mb_table_meta(t, "seed"));
    CU_ASSERT_EQUAL(mb_table_col(t, "eval_loss"), 2);
    CU_ASSERT_EQUAL(mb_table_col(t, "nope"), -1);
    CU_ASSERT_STRING_EQUAL(mb_table_cell(t, 0, 2), "");
    CU_ASSERT_EQUAL(mb_table_line(t, 1), 7);
    double v;
    /* a cell is read as written: a number with a space around it is refused, as the flags
     * refuse ' 0.1' (campaign 5, F18), saying so */
    CU_ASSERT_EQUAL(mb_table_double(t, 1, 1, &v, &e), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "' 1.75 ' is not a finite number (a space before it)"));
    CU_ASSERT_EQUAL(mb_table_double(t, 1, 2, &v, &e), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(v, 1.9, 0);
    CU_ASSERT_EQUAL(mb_table_double(t, 0, 2, &v, &e), MB_EFORMAT);
    char want[600];
    snprintf(want, sizeof want, "%s:5: field 'eval_loss': '' is not a finite number", path);
    CU_ASSERT_STRING_EQUAL(e.msg, want);
    size_t col;
    CU_ASSERT_EQUAL(mb_table_require_col(t, "wall_s", &col, &e), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "no column 'wall_s'"));
    CU_ASSERT_EQUAL(mb_table_trailers(t), 1);
    CU_ASSERT_STRING_EQUAL(mb_table_trailer(t, 0), "updates=2 reached=no");
    CU_ASSERT_EQUAL(mb_table_trailer_line(t, 0), 8); /* the blank line counts */
    mb_table_free(t);
    mb_test_rmdir(dir);
}

/* Each malformed file gives MB_EFORMAT or MB_EIO and a message that names the file (and the
 * line where there is one). */
static void test_table_errors(void)
{
    char dir[256], path[512];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    static const struct {
        const char *name, *text, *needle;
        int code;
    } cases[] = {
        {"empty.csv", "", "empty file", MB_EFORMAT},
        {"meta-only.csv", "# batch=4\n\n", "empty file", MB_EFORMAT},
        {"ragged.csv", "a,b\n1,2\n3\n", ":3: 1 fields, but the header (line 1) has 2",
         MB_EFORMAT},
        /* a line that only looks blank above the header is the header (campaign 25's B012:
         * '\\t' as two characters): the message names the line it took */
        {"stray.csv", "# a=1\n\\t\na,b\n1,2\n", ":3: 2 fields, but the header (line 2) has 1",
         MB_EFORMAT},
        {"quoted.csv", "a,b\n\"1\",2\n", ":2: quoted fields", MB_EFORMAT},
        {"noname.csv", "a,,c\n", ":1: header column 2 has no name", MB_EFORMAT},
        {"binary.csv", "a,b\n1,\0012\n", NULL, MB_OK}, /* control bytes other than NUL pass */
        /* keys and names given twice, found by sorting (campaign 33's Q4): the first line that
         * contradicts an earlier one, against the first of those; the first column that repeats
         * an earlier one, against the earliest; a conflict above a bad row is met first */
        {"meta-twice.csv", "# a=1\n# b=2\n# a=1\n# b=3\n# a=4\nx\n",
         ":4: metadata 'b' given twice with different values ('2', then '3')", MB_EFORMAT},
        {"meta-first.csv", "# k=1\n# k=1\n# k=2\n# k=3\nx\n",
         ":3: metadata 'k' given twice with different values ('1', then '2')", MB_EFORMAT},
        {"meta-above.csv", "# a=1\n# a=2\na,b\n1\n", ":2: metadata 'a' given twice", MB_EFORMAT},
        {"meta-same.csv", "# a=1\n# b=2\n# a=1\nx\n", NULL, MB_OK},
        {"cols-twice.csv", "a,b,c,b,a\n", ":1: header column 'b' given twice (columns 2 and 4)",
         MB_EFORMAT},
        {"cols-three.csv", "x,a,a,a\n", ":1: header column 'a' given twice (columns 2 and 3)",
         MB_EFORMAT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mb_test_write(path, sizeof path, dir, cases[i].name, cases[i].text);
        mb_table *t = NULL;
        mb_error e = {0};
        int rc = mb_table_read(path, &t, &e);
        CU_ASSERT_EQUAL(rc, cases[i].code);
        if (cases[i].needle) {
            CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, path));
            CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, cases[i].needle));
            CU_ASSERT_PTR_NULL(t);
        }
        mb_table_free(t);
    }
    /* a header with no rows is a valid, empty table */
    mb_test_write(path, sizeof path, dir, "header.csv", "batch,n_update\n");
    mb_table *t;
    mb_error e = {0};
    CU_ASSERT_EQUAL(mb_table_read(path, &t, &e), MB_OK);
    CU_ASSERT_EQUAL(mb_table_rows(t), 0);
    mb_table_free(t);
    /* lines of tabs and spaces (a '\r' at the end too) are blank wherever they are, above the
     * header as between rows (campaign 25's B012) */
    mb_test_write(path, sizeof path, dir, "blank.csv", "# a=1\n\t\n \t \r\nbatch,n\n\t\n1,2\n");
    CU_ASSERT_EQUAL_FATAL(mb_table_read(path, &t, &e), MB_OK);
    CU_ASSERT_EQUAL(mb_table_cols(t), 2);
    CU_ASSERT_EQUAL(mb_table_rows(t), 1);
    mb_table_free(t);
    /* a NUL byte means this is not text */
    snprintf(path, sizeof path, "%s/nul.csv", dir);
    FILE *f = fopen(path, "wb");
    fwrite("a,b\n1,\0", 1, 7, f);
    fclose(f);
    CU_ASSERT_EQUAL(mb_table_read(path, &t, &e), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "binary data"));
    snprintf(path, sizeof path, "%s/missing.csv", dir);
    CU_ASSERT_EQUAL(mb_table_read(path, &t, &e), MB_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "missing.csv: cannot open"));
    mb_test_rmdir(dir);
}

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static size_t files_in(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    size_t n = 0;
    if (p) {
        if (fscanf(p, "%zu", &n) != 1)
            n = 0;
        pclose(p);
    }
    return n;
}

/* Campaign 29's A4: SIGTERM, SIGINT or SIGHUP while an output's temporary is open (a child that
 * started as a command does, mb_cli_start, then signals itself mid-write): the temporary
 * removed, one line naming the signal, and the process ended by that signal (128 + N). */
static void test_atomic_output_signal(void)
{
    const int sigs[3] = {SIGTERM, SIGINT, SIGHUP};
    const char *names[3] = {"(SIGTERM)", "(SIGINT)", "(SIGHUP)"};
    for (int k = 0; k < 3; k++) {
        char dir[256], path[512], errf[512];
        CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
        snprintf(path, sizeof path, "%s/c", dir);
        snprintf(errf, sizeof errf, "%s/err", dir);
        fflush(NULL);
        pid_t pid = fork();
        CU_ASSERT_FATAL(pid >= 0);
        if (pid == 0) {
            int fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
                _exit(90);
            signal(sigs[k], SIG_DFL); /* as a command started from a terminal has it */
            sigset_t none;
            sigemptyset(&none);
            sigprocmask(SIG_SETMASK, &none, NULL);
            if (mb_cli_start() != 0)
                _exit(91);
            mb_out o;
            mb_error e = {0};
            if (mb_out_open(&o, path, &e) != MB_OK)
                _exit(92);
            fprintf(o.f, "half a checkpoint");
            fflush(o.f);
            kill(getpid(), sigs[k]);
            _exit(93); /* not reached: the signal ends the process */
        }
        int st = 0;
        CU_ASSERT_EQUAL_FATAL(waitpid(pid, &st, 0), pid);
        CU_ASSERT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == sigs[k]);
        CU_ASSERT_EQUAL(files_in(dir), 1); /* err only: no c, no c.tmp.PID.* */
        char *said = NULL;
        size_t n = 0;
        mb_error e = {0};
        CU_ASSERT_EQUAL_FATAL(mb_data_read_file(errf, &said, &n, &e), MB_OK);
        CU_ASSERT_EQUAL(mb_test_lines(said), 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(said, names[k]));
        CU_ASSERT_PTR_NOT_NULL(strstr(said, ": interrupted "));
        CU_ASSERT_PTR_NOT_NULL(strstr(said, ": nothing half-written"));
        if (!WIFSIGNALED(st) || files_in(dir) != 1)
            fprintf(stderr, "\n  %s: status %#x, said: %s", names[k], st, said ? said : "");
        free(said);
    }
}

static void test_atomic_output(void)
{
    char dir[256], path[512];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    snprintf(path, sizeof path, "%s/out.csv", dir);
    mb_out o;
    mb_error e = {0};
    CU_ASSERT_EQUAL_FATAL(mb_out_open(&o, path, &e), MB_OK);
    fprintf(o.f, "a,b\n1,2\n");
    CU_ASSERT_FALSE(exists(path)); /* nothing at the final path until commit */
    CU_ASSERT_EQUAL(mb_out_commit(&o, &e), MB_OK);
    CU_ASSERT_TRUE(exists(path));
    CU_ASSERT_EQUAL(files_in(dir), 1); /* no temporary left behind */

    snprintf(path, sizeof path, "%s/aborted.csv", dir);
    CU_ASSERT_EQUAL_FATAL(mb_out_open(&o, path, &e), MB_OK);
    fprintf(o.f, "half a fil");
    mb_out_abort(&o);
    CU_ASSERT_FALSE(exists(path));
    CU_ASSERT_EQUAL(files_in(dir), 1);

    CU_ASSERT_EQUAL(mb_out_open(&o, "/nonexistent-dir/x.csv", &e), MB_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "/nonexistent-dir/x.csv: cannot write"));

    /* the common metadata is parsed back as metadata */
    snprintf(path, sizeof path, "%s/meta.csv", dir);
    CU_ASSERT_EQUAL_FATAL(mb_out_open(&o, path, &e), MB_OK);
    char *argv[] = {"mbtest", "--flag", "x"};
    mb_data_write_common_meta(o.f, "mbtest", 3, argv);
    fprintf(o.f, "c\n1\n");
    CU_ASSERT_EQUAL(mb_out_commit(&o, &e), MB_OK);
    mb_table *t;
    CU_ASSERT_EQUAL_FATAL(mb_table_read(path, &t, &e), MB_OK);
    CU_ASSERT_STRING_EQUAL(mb_table_meta(t, "tool"), "mbtest");
    CU_ASSERT_STRING_EQUAL(mb_table_meta(t, "command"), "mbtest --flag x");
    CU_ASSERT_STRING_EQUAL(mb_table_meta(t, "version"), mb_version());
    CU_ASSERT_PTR_NOT_NULL(mb_table_meta(t, "host"));
    CU_ASSERT_EQUAL(strlen(mb_table_meta(t, "date")), 20);
    mb_table_free(t);
    mb_test_rmdir(dir);
}

static void test_json_files(void)
{
    char dir[256], path[512];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    cJSON *j = cJSON_CreateObject();
    mb_json_add_number(j, "x", 1.25);
    mb_json_add_number(j, "bad", NAN);
    snprintf(path, sizeof path, "%s/a.json", dir);
    mb_error e = {0};
    CU_ASSERT_EQUAL(mb_json_write(path, j, &e), MB_OK);
    cJSON_Delete(j);
    CU_ASSERT_EQUAL_FATAL(mb_json_read(path, &j, &e), MB_OK);
    double v;
    CU_ASSERT_EQUAL(mb_json_number(j, "x", path, &v, &e), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(v, 1.25, 0);
    CU_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItem(j, "bad"))); /* never a NaN in JSON */
    CU_ASSERT_EQUAL(mb_json_number(j, "bad", path, &v, &e), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "'bad' is not a finite number"));
    CU_ASSERT_EQUAL(mb_json_number(j, "y", path, &v, &e), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "missing 'y'"));
    cJSON_Delete(j);
    mb_test_write(path, sizeof path, dir, "broken.json", "{\"params\": {\"n_inf\": 12,}");
    CU_ASSERT_EQUAL(mb_json_read(path, &j, &e), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "not valid JSON (at byte"));
    mb_test_rmdir(dir);
}

/* Issue #25 at the data layer: links written through (dangling ones and chains too), the
 * same-file test, the caps on inputs without a size, subnormals, a byte-order mark, a JSON key
 * given twice. */
static void test_hostile_data(void)
{
    char dir[256], path[512], link[512], target[600];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    mb_error e = {0};
    mb_out o;
    /* a link to a file, then a dangling link two hops long into a subfolder */
    mb_test_write(target, sizeof target, dir, "t.csv", "old\n");
    snprintf(link, sizeof link, "%s/l.csv", dir);
    CU_ASSERT_EQUAL_FATAL(symlink("t.csv", link), 0);
    CU_ASSERT_EQUAL_FATAL(mb_out_open(&o, link, &e), MB_OK);
    fputs("new\n", o.f);
    CU_ASSERT_EQUAL(mb_out_commit(&o, &e), MB_OK);
    struct stat st;
    CU_ASSERT_TRUE(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    char *buf = NULL;
    size_t n = 0;
    CU_ASSERT_EQUAL(mb_data_read_file(target, &buf, &n, &e), MB_OK);
    CU_ASSERT_STRING_EQUAL(buf ? buf : "", "new\n");
    free(buf);
    snprintf(path, sizeof path, "%s/sub", dir);
    CU_ASSERT_EQUAL_FATAL(mkdir(path, 0777), 0);
    snprintf(path, sizeof path, "%s/hop1", dir);
    CU_ASSERT_EQUAL_FATAL(symlink("hop2", path), 0);
    snprintf(link, sizeof link, "%s/hop2", dir);
    CU_ASSERT_EQUAL_FATAL(symlink("sub/end.csv", link), 0);
    CU_ASSERT_EQUAL_FATAL(mb_out_open(&o, path, &e), MB_OK);
    fputs("x\n", o.f);
    CU_ASSERT_EQUAL(mb_out_commit(&o, &e), MB_OK);
    CU_ASSERT_TRUE(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
    snprintf(path, sizeof path, "%s/sub/end.csv", dir);
    CU_ASSERT_TRUE(stat(path, &st) == 0 && S_ISREG(st.st_mode));
    /* same files: a link and its target, two spellings of a new path; not /dev/null twice */
    snprintf(link, sizeof link, "%s/l.csv", dir);
    CU_ASSERT_TRUE(mb_data_same_file(link, target));
    snprintf(path, sizeof path, "%s/sub/../new.csv", dir);
    snprintf(link, sizeof link, "%s/new.csv", dir);
    CU_ASSERT_TRUE(mb_data_same_file(path, link));
    CU_ASSERT_FALSE(mb_data_same_file("/dev/null", "/dev/null"));
    CU_ASSERT_FALSE(mb_data_same_file("-", "-"));
    CU_ASSERT_FALSE(mb_data_same_file(target, link));
    /* a writability check never opens (a directory is refused) */
    CU_ASSERT_EQUAL(mb_out_check(dir, &e), MB_EIO);
    CU_ASSERT_EQUAL(mb_out_check(target, &e), MB_OK);
    CU_ASSERT_EQUAL(mb_out_check("/dev/null", &e), MB_OK);
    /* no end: /dev/zero is refused at the cap, a folder at once */
    CU_ASSERT_EQUAL(mb_data_read_file("/dev/zero", &buf, &n, &e), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "/dev/zero: more than 64 MiB"));
    CU_ASSERT_EQUAL(mb_data_read_file(dir, &buf, &n, &e), MB_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "Is a directory"));
    /* numbers: a subnormal is one, an overflow is not */
    double v = 0;
    CU_ASSERT_EQUAL(mb_data_parse_double("1e-308", &v), MB_OK);
    CU_ASSERT_TRUE(v > 0 && v < 1.1e-308);
    CU_ASSERT_EQUAL(mb_data_parse_double("4.9e-324", &v), MB_OK);
    CU_ASSERT_EQUAL(mb_data_parse_double("1e309", &v), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_data_parse_double("-1e309", &v), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_data_parse_size("1e-308", &v), MB_OK);
    /* a byte-order mark before the metadata */
    mb_test_write(path, sizeof path, dir, "bom.csv", "\xEF\xBB\xBF# batch=8\na,b\n1,2\n");
    mb_table *t;
    CU_ASSERT_EQUAL_FATAL(mb_table_read(path, &t, &e), MB_OK);
    CU_ASSERT_STRING_EQUAL(mb_table_meta(t, "batch"), "8");
    CU_ASSERT_EQUAL(mb_table_cols(t), 2);
    mb_table_free(t);
    /* JSON: a key twice, at any depth */
    cJSON *j;
    mb_test_write(path, sizeof path, dir, "dup.json", "{\"a\": 1, \"b\": {\"c\": 1, \"c\": 2}}");
    CU_ASSERT_EQUAL(mb_json_read(path, &j, &e), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "key 'c' given twice"));
    mb_test_write(path, sizeof path, dir, "ok.json", "{\"a\": [{\"c\": 1}, {\"c\": 2}]}");
    CU_ASSERT_EQUAL(mb_json_read(path, &j, &e), MB_OK);
    cJSON_Delete(j);
    mb_test_rmdir(dir);
}

/* mb_data_first_repeat: the earliest row that repeats an earlier one, and the earliest it
 * repeats; NaN equal to NaN (campaign 29's B1: the sort that replaced every pair compared). */
static void test_first_repeat(void)
{
    size_t at = 99, first = 99;
    const double none[] = {1, 2, 2, 1, 3, 3};
    CU_ASSERT_EQUAL(mb_data_first_repeat(none, 3, 2, &at, &first), 0);
    CU_ASSERT_EQUAL(mb_data_first_repeat(none, 1, 2, &at, &first), 0);
    const double two[] = {5, 1, 4, 1, 5, 4, 4};
    CU_ASSERT_EQUAL(mb_data_first_repeat(two, 7, 1, &at, &first), 1);
    CU_ASSERT_EQUAL(at, 3); /* 1 again before 5 or 4 again */
    CU_ASSERT_EQUAL(first, 1);
    const double pairs[] = {8, 0, 8, 1, 16, 0, 8, NAN, 8, 1, 8, NAN};
    CU_ASSERT_EQUAL(mb_data_first_repeat(pairs, 6, 2, &at, &first), 1);
    CU_ASSERT_EQUAL(at, 4);
    CU_ASSERT_EQUAL(first, 1);
    CU_ASSERT_EQUAL(mb_data_first_repeat(pairs + 4, 4, 2, &at, &first), 1);
    CU_ASSERT_EQUAL(at, 3); /* (8, NaN) twice */
    CU_ASSERT_EQUAL(first, 1);
    /* names (campaign 33's Q4): the same rule, and their sorted order, equal names in place */
    const char *const names[] = {"b", "a", "c", "a", "b", "a"};
    CU_ASSERT_EQUAL(mb_data_first_repeat_name(names, 3, &at, &first), 0);
    CU_ASSERT_EQUAL(mb_data_first_repeat_name(names, 6, &at, &first), 1);
    CU_ASSERT_EQUAL(at, 3);
    CU_ASSERT_EQUAL(first, 1);
    size_t o[6];
    CU_ASSERT_EQUAL_FATAL(mb_data_sort_names(names, 6, o), 0);
    const size_t want[] = {1, 3, 5, 0, 4, 2};
    for (size_t i = 0; i < 6; i++)
        CU_ASSERT_EQUAL(o[i], want[i]);
}

/* Spin until this process has used s seconds of CPU (however loaded the machine is). */
static void spin(double s)
{
    struct timespec a, b;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    volatile double x = 0;
    do {
        for (int i = 0; i < 100000; i++)
            x += 1e-9 * i;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    } while ((double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec) < s);
}

/* The machine's load between two marks: this process's own work is not "others" (its CPU
 * seconds are counted), a child's busy loop is; a mark that could not read /proc says nothing. */
static void test_hostload(void)
{
    mb_hostload_mark a, b;
    double others, steal;
    mb_hostload_mark_now(&a);
    CU_ASSERT_TRUE_FATAL(a.ok); /* Linux: /proc is there */
    spin(0.3);
    mb_hostload_mark_now(&b);
    CU_ASSERT_TRUE(b.own_s - a.own_s >= 0.2); /* the spin counted as this process's */
    mb_hostload_between(&a, &b, &others, &steal);
    CU_ASSERT_TRUE(others >= 0 && isfinite(others) && steal >= 0 && isfinite(steal));
    pid_t pid = fork();
    CU_ASSERT_TRUE_FATAL(pid >= 0);
    if (pid == 0) {
        spin(0.6);
        _exit(0);
    }
    mb_hostload_mark_now(&a);
    usleep(500000); /* the child spins meanwhile: another process's work */
    mb_hostload_mark_now(&b);
    waitpid(pid, NULL, 0);
    mb_hostload_between(&a, &b, &others, &steal);
    CU_ASSERT_TRUE(others >= 0.3);
    CU_ASSERT_TRUE(others <= (double)sysconf(_SC_NPROCESSORS_ONLN));
    b.ok = 0;
    mb_hostload_between(&a, &b, &others, &steal);
    CU_ASSERT_TRUE(isnan(others) && isnan(steal));
    mb_hostload_mark_now(&a); /* under a tenth of a second: a tick would read as cores */
    mb_hostload_mark_now(&b);
    mb_hostload_between(&a, &b, &others, &steal);
    CU_ASSERT_TRUE(isnan(others) && isnan(steal));
}

int mb_test_suite_data(void)
{
    CU_pSuite s = CU_add_suite("data", NULL, NULL);
    return !s || !CU_add_test(s, "numbers", test_parse_numbers) ||
           !CU_add_test(s, "sizes", test_parse_sizes) ||
           !CU_add_test(s, "flag values", test_flag_double) ||
           !CU_add_test(s, "ranges", test_parse_ranges) ||
           !CU_add_test(s, "count lists", test_parse_counts) ||
           !CU_add_test(s, "tables", test_table_read) ||
           !CU_add_test(s, "malformed tables", test_table_errors) ||
           !CU_add_test(s, "atomic output", test_atomic_output) ||
           !CU_add_test(s, "atomic output: a signal mid-write", test_atomic_output_signal) ||
           !CU_add_test(s, "JSON files", test_json_files) ||
           !CU_add_test(s, "hostile inputs: links, caps, numbers", test_hostile_data) ||
           !CU_add_test(s, "the first row repeated", test_first_repeat) ||
           !CU_add_test(s, "the machine's load between two marks", test_hostload);
}
