/* mb_json.h — mbkit's JSON files (fits, recommendations) read and written with cJSON, written
 * atomically as every output is (json.c).
 */
#ifndef MB_JSON_H
#define MB_JSON_H

#include <cjson/cJSON.h>

#include "../model/mb_model.h"

/* ---- JSON ---------------------------------------------------------------------------------- */

/* Reads and parses a JSON file. MB_EIO when it cannot be read, MB_EFORMAT when it is not JSON
 * (with the byte offset of the error). *root is owned by the caller (cJSON_Delete). */
int mb_json_read(const char *path, cJSON **root, struct mb_error *err);

/* Writes `root` (pretty-printed, trailing newline) atomically to `path` ("-" for stdout). */
int mb_json_write(const char *path, const cJSON *root, struct mb_error *err);

/* Reads the number at object[key] (a finite number), or MB_EFORMAT naming `path` and `key`. */
int mb_json_number(const cJSON *object, const char *key, const char *path, double *v,
                   struct mb_error *err);

/* The number at object[key] checked like mb_table_double_in: in [lo, hi], whole when `whole`
 * holds MB_JSON_WHOLE (or is 1), in (lo, hi] when it holds MB_JSON_ABOVE_LO (a value a log axis
 * draws: lo 0 refuses 0). Absent or null gives NAN and MB_OK unless `required`; text, or a value
 * out of range, is an MB_EFORMAT error naming `path`, `where` (a prefix such as "rows[3]: ", may
 * be "") and key. */
#define MB_JSON_WHOLE 1
#define MB_JSON_ABOVE_LO 2
int mb_json_number_in(const cJSON *object, const char *key, const char *path, const char *where,
                      double lo, double hi, int whole, int required, double *v,
                      struct mb_error *err);

/* The number at object[key], or NAN when it is absent, null or not a number (for readers that
 * have validated the object already, or treat a missing value as "not known"). */
double mb_json_get(const cJSON *object, const char *key);

/* The double a reader gets back for v from the JSON mb_json_add_number writes: cJSON prints 15
 * significant digits, and 17 only when those 15 read back further than its epsilon from v, so a
 * figure printed from v ("%.3g" of 3.1250000000000004: 3.13) and from what a reader gets (3.125:
 * 3.12) can differ; a sentence another program recomposes from the JSON formats this value
 * (campaign 41's B-F3). NaN and inf as they are. */
double mb_json_written(double v);

/* Adds a number to an object, writing null for a non-finite value (JSON has no NaN). Returns
 * MB_ENOMEM when cJSON cannot allocate. */
int mb_json_add_number(cJSON *object, const char *key, double v);
/* The same for a count (learners, processes): a whole number is written in full digits up to
 * 2^53 (cJSON writes 15 significant digits: 9007199254740991 would read back as
 * 9007199254740990). */
int mb_json_add_count(cJSON *object, const char *key, double v);

#endif /* MB_JSON_H */
