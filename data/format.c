/* format.c — the format version of mbkit's files (mb_format.h; docs/formats.md, "The format
 * version"): writing "# format=mbkit-KIND/N" (first of the common metadata every CSV output
 * starts with) or "format": "mbkit-KIND/N", and checking it on
 * reading, with one line naming the file, line and field when it is another kind or a newer
 * version (and, beside it, a `# tool=` that is a writer's name in other letters, an mbkit
 * program's that writes no table of the kind read, or empty).
 */
#include "mb_format.h"
#include "mb_cli.h"
#include "mb_parse.h"
#include "mb_output.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <time.h>
#include <unistd.h>

static const struct {
    const char *tool, *kind;
} tool_kinds[] = {
    {"mbtrain", MB_FORMAT_RUNLOG},      {"mbprobe step", MB_FORMAT_STEP},
    {"mbprobe learners", MB_FORMAT_STEP}, {"mbprobe comm", MB_FORMAT_COMM},
    {"mbprobe conv", MB_FORMAT_CONV},
    /* the PyTorch front end's (frontends/torch/mbkit_torch.py, which writes its own lines) */
    {"mbkit_torch runs", MB_FORMAT_RUNLOG}, {"mbkit_torch probe", MB_FORMAT_STEP},
};

static const struct {
    const char *kind, *name;
} kind_names[] = {
    {MB_FORMAT_RUNLOG, "a run log"},
    {MB_FORMAT_STEP, "a step table"},
    {MB_FORMAT_COMM, "a collective table"},
    {MB_FORMAT_CONV, "a convolution table"},
    {MB_FORMAT_POINTS, "a points table"},
    {MB_FORMAT_VALIDATE_CSV, "a validation table"},
    {MB_FORMAT_FIT, "a fit"},
    {MB_FORMAT_SCALE, "a scale file (mbopt scale --json)"},
    {MB_FORMAT_VALIDATE, "a validation file (mbopt validate --json)"},
};

const char *mb_format_kind_of_tool(const char *tool)
{
    for (size_t i = 0; tool && i < sizeof tool_kinds / sizeof *tool_kinds; i++)
        if (strcmp(tool, tool_kinds[i].tool) == 0)
            return tool_kinds[i].kind;
    return NULL;
}

const char *mb_format_kind_name(const char *kind)
{
    for (size_t i = 0; kind && i < sizeof kind_names / sizeof *kind_names; i++)
        if (strcmp(kind, kind_names[i].kind) == 0)
            return kind_names[i].name;
    return "a file of another kind";
}

void mb_format_write(FILE *f, const char *kind)
{
    fprintf(f, "# format=mbkit-%s/%d\n", kind, MB_FORMAT_VERSION);
}

int mb_format_add_json(cJSON *root, const char *kind)
{
    char v[64];
    snprintf(v, sizeof v, "mbkit-%s/%d", kind, MB_FORMAT_VERSION);
    return cJSON_AddStringToObject(root, "format", v) ? MB_OK : MB_ENOMEM;
}

/* Parses "mbkit-KIND/N" (kind into k) or a bare "1"; 0 when the value has neither form. */
static int parse(const char *v, char *k, size_t kn, long *n)
{
    if (strcmp(v, "1") == 0) {
        *k = '\0';
        *n = 1;
        return 1;
    }
    if (strncmp(v, "mbkit-", 6) != 0)
        return 0;
    const char *s = v + 6, *slash = strrchr(s, '/');
    if (!slash || slash == s || (size_t)(slash - s) >= kn)
        return 0;
    for (const char *p = s; p < slash; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
            return 0;
    if (mb_data_parse_long(slash + 1, 1, 1L << 30, n) != MB_OK)
        return 0;
    memcpy(k, s, (size_t)(slash - s));
    k[slash - s] = '\0';
    return 1;
}

/* The one check behind both readers; `where` is "path:line: field 'format'" or "path: key
 * 'format'". */
static int check(const char *v, const char *kind, const char *where, mb_error *err)
{
    char k[64];
    long n;
    if (!parse(v, k, sizeof k, &n))
        return mb_error_set(err, MB_EFORMAT, "%s: '%s' is not a format version (mbkit-KIND/N, "
                            "such as mbkit-%s/%d)", where, v, kind ? kind : "runlog",
                            MB_FORMAT_VERSION);
    if (kind && *k && strcmp(k, kind) != 0)
        return mb_error_set(err, MB_EFORMAT, "%s: %s is %s, not %s (mbkit-%s)", where, v,
                            mb_format_kind_name(k), mb_format_kind_name(kind), kind);
    if (n > MB_FORMAT_VERSION)
        return mb_error_set(err, MB_EFORMAT, "%s: %s is newer than this mbkit (%s) reads "
                            "(mbkit-%s/%d at most)", where, v, mb_version(), *k ? k : "KIND",
                            MB_FORMAT_VERSION);
    return MB_OK;
}

/* Whether `a` is `b` in other letters or spacing: case aside, and a run of spaces or tabs
 * read as one space. */
static int same_name(const char *a, const char *b)
{
    for (;;) {
        if ((*a == ' ' || *a == '\t') && *b == ' ') {
            a += strspn(a, " \t");
            b++;
            continue;
        }
        if (!*a || !*b || tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return !*a && !*b;
        a++, b++;
    }
}

/* `# tool=` a writer's name as it writes it, or another: one of them in other letters (MBTRAIN)
 * or spacing ("mbkit_torch  runs") would be a log of no known writer, whose summary goes
 * unchecked (campaign 22's Q9, campaign 24's U7: a cut log passed); a name with a control or
 * non-ASCII byte (a no-break space after mbtrain) is no writer's. */
static int check_tool(const mb_table *t, mb_error *err)
{
    const char *tool = mb_table_meta(t, "tool");
    for (const char *c = tool; c && *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
            return mb_error_set(err, MB_EFORMAT, "%s:%ld: metadata 'tool': a control or "
                                "non-ASCII byte (0x%02x) in the name: a writer's name is plain "
                                "ASCII", mb_table_path(t), mb_table_meta_line(t, "tool"),
                                (unsigned char)*c);
    for (size_t i = 0; tool && i < sizeof tool_kinds / sizeof *tool_kinds; i++)
        if (strcmp(tool, tool_kinds[i].tool) != 0 && same_name(tool, tool_kinds[i].tool))
            return mb_error_set(err, MB_EFORMAT, "%s:%ld: metadata 'tool': '%.64s' is not %s (a "
                                "writer's name is matched as it writes it)", mb_table_path(t),
                                mb_table_meta_line(t, "tool"), tool, tool_kinds[i].tool);
    return MB_OK;
}

/* "(mbtrain and 'mbkit_torch runs' write run logs)": the writers of `kind` in tool_kinds, a
 * name with a space quoted, into buf. */
static void writers_of(const char *kind, char *buf, size_t n)
{
    const char *noun = mb_format_kind_name(kind) + 2; /* "a run log" less its article */
    size_t k = 0, len = 0, count = 0;
    for (size_t i = 0; i < sizeof tool_kinds / sizeof *tool_kinds; i++)
        count += strcmp(tool_kinds[i].kind, kind) == 0;
    buf[0] = '\0';
    if (count == 0) {
        snprintf(buf, n, "(no mbkit program writes %s)", mb_format_kind_name(kind));
        return;
    }
    for (size_t i = 0; i < sizeof tool_kinds / sizeof *tool_kinds && len < n; i++) {
        const char *w = tool_kinds[i].tool;
        if (strcmp(tool_kinds[i].kind, kind) != 0)
            continue;
        const char *q = strchr(w, ' ') ? "'" : "";
        len += (size_t)snprintf(buf + len, n - len, "%s%s%s%s", k == 0 ? "(" : k + 1 == count
                                ? " and " : ", ", q, w, q);
        k++;
    }
    if (len < n)
        snprintf(buf + len, n - len, " write%s %ss)", count == 1 ? "s" : "", noun);
}

/* A table whose `# tool=` names one of mbkit's programs that writes no table of this kind
 * (`mbprobe`, `mbfit`, `mbprobe step` in a run log, campaign 38's D8; `mbtrain` in a collective
 * table, campaign 39's D6), or nothing at all (an empty `# tool=`, 39's D6: a writer's line that
 * names no writer): a file of another tool. A tool that is no mbkit program's (a hand-made
 * table's, another script's) is left alone. */
static int check_kind_tool(const mb_table *t, const char *kind, mb_error *err)
{
    static const char *const programs[] = {"mbtrain", "mbprobe", "mbfit", "mbopt", "mbplot",
                                            "mbkit_torch"};
    const char *tool = mb_table_meta(t, "tool"), *its = mb_format_kind_of_tool(tool);
    if (tool && !*tool)
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: metadata 'tool' is empty: a writer's "
                            "name, or no such line (a hand-made table)", mb_table_path(t),
                            mb_table_meta_line(t, "tool"));
    if (!tool || (its && strcmp(its, kind) == 0))
        return MB_OK;
    const size_t word = strcspn(tool, " ");
    char writers[160], none[64];
    writers_of(kind, writers, sizeof writers);
    snprintf(none, sizeof none, "no %s", mb_format_kind_name(kind) + 2);
    for (size_t i = 0; i < sizeof programs / sizeof *programs; i++)
        if (word == strlen(programs[i]) && strncmp(tool, programs[i], word) == 0)
            return mb_error_set(err, MB_EFORMAT, "%s:%ld: metadata 'tool': '%.64s' writes %s "
                                "%s: a file of another tool", mb_table_path(t),
                                mb_table_meta_line(t, "tool"), tool,
                                its ? mb_format_kind_name(its) : none, writers);
    return MB_OK;
}

int mb_format_check_table(const mb_table *t, const char *kind, mb_error *err)
{
    const char *v = mb_table_meta(t, "format");
    if (check_tool(t, err) != MB_OK)
        return MB_EFORMAT;
    if (check_kind_tool(t, kind, err) != MB_OK)
        return MB_EFORMAT;
    if (!v)
        return MB_OK;
    char where[1200];
    snprintf(where, sizeof where, "%s:%ld: field 'format'", mb_table_path(t),
             mb_table_meta_line(t, "format"));
    return check(v, kind, where, err);
}

int mb_format_check_json(const cJSON *root, const char *path, const char *kind, mb_error *err)
{
    const cJSON *f = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "format")
                                          : NULL;
    if (!f)
        return MB_OK;
    char where[1200];
    snprintf(where, sizeof where, "%s: key 'format'", path);
    if (!cJSON_IsString(f) || !f->valuestring)
        return mb_error_set(err, MB_EFORMAT, "%s: not a string (mbkit-KIND/N)", where);
    return check(f->valuestring, kind, where, err);
}

void mb_data_write_common_meta(FILE *f, const char *tool, int argc, char **argv)
{
    char host[256] = "unknown";
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "unknown");
    host[sizeof host - 1] = '\0';
    char date[64] = "";
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    const char *kind = mb_format_kind_of_tool(tool);
    if (kind) /* the format version first (docs/formats.md) */
        mb_format_write(f, kind);
    fprintf(f, "# tool=%s\n# version=%s\n# host=", tool, mb_version());
    mb_format_meta_text(f, host); /* a host name is text too (campaign 30's C1: a newline in it
                                     wrote a metadata line of its own) */
    fprintf(f, "\n# date=%s\n# command=", date);
    for (int i = 0; i < argc; i++) {
        if (i)
            fputc(' ', f);
        mb_format_meta_text(f, argv[i]);
    }
    fputc('\n', f);
}

void mb_format_meta_text(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p >= 0x20 && *p != 0x7f)
            fputc(*p, f);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\r')
            fputs("\\r", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else
            fprintf(f, "\\x%02x", *p);
    }
}

const char *mb_format_data_set(const mb_table *t)
{
    const char *d = mb_table_meta(t, "data");
    return d && *d && strcmp(d, "random") != 0 ? d : NULL;
}
