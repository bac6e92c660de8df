/* json.c — reading and writing the JSON files of mbkit (fits, recommendations) with cJSON.
 *
 * Reading names the file and, for a syntax error, the byte offset; writing is atomic.
 */
#include "mb_data.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int mb_json_read(const char *path, cJSON **root, mb_error *err)
{
    *root = NULL;
    char *buf;
    size_t n;
    int rc = mb_data_read_file(path, &buf, &n, err);
    if (rc != MB_OK)
        return rc;
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithOpts(buf, &end, 1);
    if (!j) {
        long at = end ? (long)(end - buf) : 0;
        free(buf);
        return mb_error_set(err, MB_EFORMAT, "%s: not valid JSON (at byte %ld)", path, at);
    }
    free(buf);
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
    if (x < lo || x > hi || (whole && x != floor(x)))
        return mb_error_set(err, MB_EFORMAT, "%s: %s'%s': %g is not %s in [%g, %g]", path, where,
                            key, x, whole ? "a whole number" : "a number", lo, hi);
    *v = x;
    return MB_OK;
}

int mb_json_add_number(cJSON *object, const char *key, double v)
{
    cJSON *item = isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
    if (!item)
        return MB_ENOMEM;
    if (!cJSON_AddItemToObject(object, key, item)) {
        cJSON_Delete(item);
        return MB_ENOMEM;
    }
    return MB_OK;
}

double mb_json_get(const cJSON *object, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(object, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}
