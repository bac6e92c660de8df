/* json.c — reading and writing the JSON files of mbkit (fits, recommendations) with cJSON.
 *
 * Reading names the file and, for a syntax error, the byte offset, and refuses an object holding
 * a key twice (cJSON would answer with the first) and a NUL, raw or escaped (it would end a
 * string); writing is atomic.
 */
#include "mb_output.h"
#include "mb_json.h"
#include "mb_parse.h"
#include "mb_format.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A key that some object of `j` holds twice, or NULL: cJSON keeps both and answers with the
 * first, so which one a reader meant cannot be known. Each object's keys are sorted (O(n log n)
 * however many there are); nesting is cJSON's, at most CJSON_NESTING_LIMIT deep. */
static const char *duplicate_key(const cJSON *j)
{
    if (!cJSON_IsObject(j) && !cJSON_IsArray(j))
        return NULL;
    size_t n = 0;
    const cJSON *c;
    for (c = j->child; c; c = c->next) {
        const char *d = duplicate_key(c);
        if (d)
            return d;
        n++;
    }
    if (!cJSON_IsObject(j) || n < 2)
        return NULL;
    const char **keys = malloc(n * sizeof *keys);
    if (!keys)
        return NULL; /* not known to be a duplicate */
    size_t k = 0;
    for (c = j->child; c; c = c->next)
        keys[k++] = c->string ? c->string : "";
    qsort(keys, n, sizeof *keys, cmp_key);
    const char *d = NULL;
    for (size_t i = 1; i < n && !d; i++)
        if (strcmp(keys[i - 1], keys[i]) == 0)
            d = keys[i];
    free(keys);
    return d;
}

/* The byte offset of the first `\u0000` escape in a string of the valid JSON text `s`, or -1:
 * cJSON decodes it into a NUL that ends the string where it stands ("lenet5\u0000other" read as
 * "lenet5", campaign 29's B4), so it is refused as a raw NUL byte is. Outside strings valid JSON
 * holds no backslash; inside, an escape is a backslash and the character after it. */
static long nul_escape(const char *s)
{
    int in = 0;
    for (const char *c = s; *c; c++) {
        if (*c == '"')
            in = !in;
        else if (in && *c == '\\') {
            if (c[1] == 'u' && strncmp(c + 2, "0000", 4) == 0)
                return (long)(c - s);
            if (c[1])
                c++; /* the escaped character: \" does not end the string */
        }
    }
    return -1;
}

int mb_json_read(const char *path, cJSON **root, mb_error *err)
{
    *root = NULL;
    char *buf;
    size_t n;
    int rc = mb_data_read_file(path, &buf, &n, err);
    if (rc != MB_OK)
        return rc;
    const char *end = NULL;
    size_t text = strlen(buf); /* a NUL byte ends cJSON's text: what follows would be unread */
    if (text != n) {
        free(buf);
        return mb_error_set(err, MB_EFORMAT, "%s: not valid JSON (a NUL byte at byte %zu)", path,
                            text);
    }
    cJSON *j = cJSON_ParseWithOpts(buf, &end, 1); /* skips a UTF-8 byte-order mark itself */
    if (!j) {
        long at = end ? (long)(end - buf) : 0;
        free(buf);
        return mb_error_set(err, MB_EFORMAT, "%s: not valid JSON (at byte %ld)", path, at);
    }
    long nul = nul_escape(buf);
    free(buf);
    if (nul >= 0) {
        cJSON_Delete(j);
        return mb_error_set(err, MB_EFORMAT, "%s: not valid JSON for mbkit (a \\u0000, a NUL "
                            "character, in a string at byte %ld)", path, nul);
    }
    const char *dup = duplicate_key(j);
    if (dup) {
        int rc = mb_error_set(err, MB_EFORMAT, "%s: key '%s' given twice in one object", path,
                              dup);
        cJSON_Delete(j);
        return rc;
    }
    if (mb_format_check_json(j, path, NULL, err) != MB_OK) { /* a newer or malformed version */
        cJSON_Delete(j);
        return MB_EFORMAT;
    }
    *root = j;
    return MB_OK;
}

int mb_json_write(const char *path, const cJSON *root, mb_error *err)
{
    char *text = cJSON_Print(root);
    if (!text)
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
    mb_out o;
    int rc = mb_out_open(&o, path, err);
    if (rc == MB_OK) {
        fputs(text, o.f);
        fputc('\n', o.f);
        rc = mb_out_commit(&o, err);
    }
    free(text);
    return rc;
}

int mb_json_number(const cJSON *object, const char *key, const char *path, double *v,
                   mb_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    if (!item)
        return mb_error_set(err, MB_EFORMAT, "%s: missing '%s'", path, key);
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble))
        return mb_error_set(err, MB_EFORMAT, "%s: '%s' is not a finite number", path, key);
    *v = item->valuedouble;
    return MB_OK;
}

int mb_json_number_in(const cJSON *object, const char *key, const char *path, const char *where,
                      double lo, double hi, int whole, int required, double *v, mb_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    *v = NAN;
    if (!item || cJSON_IsNull(item)) {
        if (!required)
            return MB_OK;
        return mb_error_set(err, MB_EFORMAT, "%s: %s'%s' is missing", path, where, key);
    }
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble))
        return mb_error_set(err, MB_EFORMAT, "%s: %s'%s' is not a number", path, where, key);
    double x = item->valuedouble;
    const int is_whole = whole & MB_JSON_WHOLE, open_lo = whole & MB_JSON_ABOVE_LO;
    if (x < lo || (open_lo && x == lo) || x > hi || (is_whole && x != floor(x))) {
        char xs[32], ls[32], hs[32]; /* exact: a count's range is [1, 9007199254740992] */
        return mb_error_set(err, MB_EFORMAT, "%s: %s'%s': %s is not %s in %c%s, %s]", path,
                            where, key, mb_data_fmt_exact(xs, sizeof xs, x),
                            is_whole ? "a whole number" : "a number", open_lo ? '(' : '[',
                            mb_data_fmt_exact(ls, sizeof ls, lo),
                            mb_data_fmt_exact(hs, sizeof hs, hi));
    }
    *v = x;
    return MB_OK;
}

/* Adds a new item (NULL: out of memory) to object under key; the item is freed on failure. */
static int add_item(cJSON *object, const char *key, cJSON *item)
{
    if (!item)
        return MB_ENOMEM;
    if (!cJSON_AddItemToObject(object, key, item)) {
        cJSON_Delete(item);
        return MB_ENOMEM;
    }
    return MB_OK;
}

double mb_json_written(double v)
{
    char d[32];
    snprintf(d, sizeof d, "%1.15g", v); /* as cJSON prints a number, and keeps it when it reads */
    const double t = strtod(d, NULL);     /* back within its epsilon; else 17 digits: v itself */
    return fabs(t - v) <= fmax(fabs(t), fabs(v)) * DBL_EPSILON ? t : v;
}

int mb_json_add_number(cJSON *object, const char *key, double v)
{
    return add_item(object, key, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

int mb_json_add_count(cJSON *object, const char *key, double v)
{
    if (!(v == floor(v) && fabs(v) >= 1e15 && fabs(v) <= 9007199254740992.0))
        return mb_json_add_number(object, key, v);
    char digits[32];
    snprintf(digits, sizeof digits, "%.0f", v);
    return add_item(object, key, cJSON_CreateRaw(digits));
}

double mb_json_get(const cJSON *object, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(object, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}
