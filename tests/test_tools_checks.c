/* test_tools_checks.c — the structure checkers of tests/tools/ (docs/style.md, "Checkers"):
 * deps.sh (no cycle among files or folders of the built objects), funclen.sh (no function
 * outside tests/ over 150 lines) and links.sh (every link in README and docs/ resolves), each
 * run on the real tree, which must pass, and on a deliberate offender, which must fail naming
 * it.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mb_test.h"

/* The objects of the build under test: MB_TEST_BIN/../obj (build/release/obj, build/san/obj). */
#define OBJ_DIR MB_TEST_BIN "/../obj"

static void test_deps_tree(void)
{
    mb_test_run r;
    if (mb_test_sh_ok(&r, "sh tests/tools/deps.sh %s .", OBJ_DIR))
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "deps.sh: no cycle:"));
    mb_test_run_free(&r);
}

/* Compiles src into dir/obj/name.o. */
static void cc(const char *dir, const char *name, const char *src)
{
    char path[512], c[512];
    snprintf(c, sizeof c, "%s.c", strrchr(name, '/') + 1);
    char sub[512];
    snprintf(sub, sizeof sub, "%s/obj/%.*s", dir, (int)(strrchr(name, '/') - name), name);
    mb_test_run r;
    mb_test_write(path, sizeof path, dir, c, src);
    CU_ASSERT(mb_test_sh_ok(&r, "mkdir -p %s && cc -c %s -o %s/obj/%s.o", sub, path, dir, name));
    mb_test_run_free(&r);
}

/* Two objects in two folders that use each other: a cycle among files and among folders; the
 * same pair without the back edge: none. */
static void test_deps_cycle(void)
{
    char dir[256];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    cc(dir, "lo/a", "int b_f(int);\nint a_f(int x) { return x > 0 ? b_f(x - 1) : 0; }\n");
    cc(dir, "hi/b", "int a_f(int);\nint b_f(int x) { return a_f(x) + 1; }\n");
    cc(dir, "hi/c", "int b_f(int);\nint c_f(void) { return b_f(3); }\n");
    mb_test_run r;
    CU_ASSERT_EQUAL(mb_test_sh(&r, "sh tests/tools/deps.sh %s/obj", dir), 0);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "a cycle among files:"));
    CU_ASSERT(strstr(r.out, "lo/a -> hi/b -> lo/a") || strstr(r.out, "hi/b -> lo/a -> hi/b"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "a cycle among folders:"));
    CU_ASSERT(strstr(r.out, "lo -> hi -> lo") || strstr(r.out, "hi -> lo -> hi"));
    CU_ASSERT_PTR_NULL(strstr(r.out, "hi/c ->"));
    mb_test_run_free(&r);

    /* without the back edge (a no longer calls b): no cycle, and the edges are counted */
    cc(dir, "lo/a", "int a_f(int x) { return x; }\n");
    if (mb_test_sh_ok(&r, "sh tests/tools/deps.sh %s/obj", dir))
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "no cycle: 3 files, 2 file edges, 1 folder edges"));
    mb_test_run_free(&r);
    mb_test_rmdir(dir);
}

static void test_funclen_tree(void)
{
    mb_test_run r;
    if (mb_test_sh_ok(&r, "sh tests/tools/funclen.sh"))
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "none over 150 lines"));
    mb_test_run_free(&r);
}

/* A file with a function of n lines whose body holds braces in strings, characters and comments
 * (which must not count), after a struct and an initialiser (which are not functions); inside
 * an extern "C" block when wrap is 1. */
static const char *long_fn(char *buf, size_t size, const char *dir, const char *name, int n,
                           int wrap)
{
    size_t cap = 4096 + (size_t)n * 64;
    char *s = malloc(cap);
    CU_ASSERT_FATAL(s != NULL);
    int k = snprintf(s, cap,
                     "%sstruct p { int x; };\nstatic const struct p tab[] = {\n    {1},\n};\n"
                     "int\nfn_%d(int x,\n      int y)\n{\n",
                     wrap ? "extern \"C\" {\n" : "", n);
    for (int i = 0; i < n - 6; i++)
        k += snprintf(s + k, cap - (size_t)k,
                      i % 3 == 0   ? "    x += '{' + y; /* } */\n"
                      : i % 3 == 1 ? "    if (x) { y += (int)sizeof \"}}\"; } // {\n"
                                   : "    x -= '\\'';\n");
    snprintf(s + k, cap - (size_t)k, "    return x;\n}\n%s", wrap ? "}\n" : "");
    const char *p = mb_test_write(buf, size, dir, name, s);
    free(s);
    return p;
}

static void test_funclen_offender(void)
{
    char dir[256], ok[512], bad[512];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    char cu[512];
    long_fn(ok, sizeof ok, dir, "ok.c", 150, 0);
    long_fn(bad, sizeof bad, dir, "bad.c", 151, 0);
    long_fn(cu, sizeof cu, dir, "bad.cu", 152, 1);
    mb_test_run r;
    if (mb_test_sh_ok(&r, "sh tests/tools/funclen.sh %s", ok))
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "1 functions in 1 files, none over 150 lines"));
    mb_test_run_free(&r);
    CU_ASSERT_EQUAL(mb_test_sh(&r, "sh tests/tools/funclen.sh %s %s", ok, bad), 0);
    CU_ASSERT_EQUAL(r.status, 1);
    char want[600];
    snprintf(want, sizeof want, "%s:5: fn_151 is 151 lines (over 150)", bad);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
    CU_ASSERT_EQUAL(mb_test_lines(r.out), 1);
    mb_test_run_free(&r);
    /* inside an extern "C" block: still a function (line 6: after the block's opening line) */
    CU_ASSERT_EQUAL(mb_test_sh(&r, "sh tests/tools/funclen.sh %s", cu), 0);
    CU_ASSERT_EQUAL(r.status, 1);
    snprintf(want, sizeof want, "%s:6: fn_152 is 152 lines (over 150)", cu);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
    mb_test_run_free(&r);
    /* -m sets the limit */
    CU_ASSERT_EQUAL(mb_test_sh(&r, "sh tests/tools/funclen.sh -m 149 %s", ok), 0);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "fn_150 is 150 lines (over 149)"));
    mb_test_run_free(&r);
    mb_test_rmdir(dir);
}

static void test_links_tree(void)
{
    mb_test_run r;
    if (mb_test_sh_ok(&r, "sh tests/tools/links.sh"))
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "all resolve"));
    mb_test_run_free(&r);
}

/* A page with a good link, a good anchor (a repeated heading's second slug), a link in a code
 * block (not followed), a missing file and a missing anchor. */
static void test_links_broken(void)
{
    char dir[256], p[512];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    mb_test_write(p, sizeof p, dir, "b.md",
                  "# B\n\n## Step `table`, in order\n\n## Notes\n\n## Notes\n");
    mb_test_write(p, sizeof p, dir, "a.md",
                  "# A\n\nSee [b](b.md), [the table](b.md#step-table-in-order) and\n"
                  "[notes](b.md#notes-1), [web](https://example.org/x.md).\n\n"
                  "    [code](nowhere.md)\n\n"
                  "Broken: [c](c.md) and [gone](b.md#gone).\n");
    mb_test_run r;
    CU_ASSERT_EQUAL(mb_test_sh(&r, "sh tests/tools/links.sh %s", p), 0);
    CU_ASSERT_EQUAL(r.status, 1);
    char want[700];
    snprintf(want, sizeof want, "%s:8: c.md: no such file", p);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
    snprintf(want, sizeof want, "%s:8: b.md#gone: no heading '#gone'", p);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
    CU_ASSERT_EQUAL(mb_test_lines(r.out), 2);
    mb_test_run_free(&r);
    mb_test_rmdir(dir);
}

int mb_test_suite_tools_checks(void)
{
    CU_pSuite s = CU_add_suite("tools_checks", NULL, NULL);
    if (!s)
        return -1;
    return !CU_add_test(s, "deps.sh: no cycle in the built tree", test_deps_tree) ||
           !CU_add_test(s, "deps.sh: a deliberate two-object cycle fails", test_deps_cycle) ||
           !CU_add_test(s, "funclen.sh: no function over 150 lines", test_funclen_tree) ||
           !CU_add_test(s, "funclen.sh: a 151-line function fails", test_funclen_offender) ||
           !CU_add_test(s, "links.sh: every link in README and docs/ resolves", test_links_tree) ||
           !CU_add_test(s, "links.sh: a missing file and anchor fail", test_links_broken);
}
