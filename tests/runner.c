/* runner.c — the single CUnit runner behind `make check`.
 *
 * Every tests/test_NAME.c defines `int mb_test_suite_NAME(void)`, which adds its suite to the
 * registry; the Makefile lists them in suites.h, so adding a test file needs no edit here.
 * `mbtest NAME...` runs only the named suites. Exit status 0 only when every test passed.
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#define MB_SUITE(name) int mb_test_suite_##name(void);
#include "suites.h"
#undef MB_SUITE

static const struct {
    const char *name;
    int (*add)(void);
} suites[] = {
#define MB_SUITE(name) {#name, mb_test_suite_##name},
#include "suites.h"
#undef MB_SUITE
};

int main(int argc, char **argv)
{
    if (CU_initialize_registry() != CUE_SUCCESS) {
        fprintf(stderr, "mbtest: cannot initialise CUnit: %s\n", CU_get_error_msg());
        return 1;
    }
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++) {
        int wanted = argc < 2;
        for (int a = 1; a < argc; a++)
            wanted |= strcmp(argv[a], suites[i].name) == 0;
        if (wanted && suites[i].add() != 0) {
            fprintf(stderr, "mbtest: cannot add suite %s: %s\n", suites[i].name,
                    CU_get_error_msg());
            CU_cleanup_registry();
            return 1;
        }
    }
    CU_basic_set_mode(CU_BRM_NORMAL);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    unsigned run = CU_get_number_of_tests_run();
    CU_cleanup_registry();
    return failed == 0 && run > 0 ? 0 : 1;
}
