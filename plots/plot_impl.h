/* plot_impl.h — what the figures' readers in plots/ share and users of mb_plot.h do not see: the
 * check of one number in a JSON object that the validation figure introduced (validate.c) and
 * the convolution figure reuses (conv.c), so that every refusal reads alike:
 * "FILE: field 'rows[2].batch': must be > 0, got -32".
 */
#ifndef MB_PLOT_IMPL_H
#define MB_PLOT_IMPL_H

#include <cjson/cJSON.h>

#include "../model/mb_model.h"

/* What a field may hold (flags of mb_plot_field, or'ed). */
enum {
    F_REQUIRED = 1, /* absent is an error */
    F_NULL = 2,     /* null is allowed (read as NaN) */
    F_POS = 4,      /* must be > 0 */
    F_NONNEG = 8,   /* must be >= 0 */
    F_INT = 16      /* must be a whole number (at most 2^53) */
};

/* Reads object[key] into *v as the flags allow (NaN when absent or null and allowed); text, a
 * non-finite number or a value the flags exclude is MB_EFORMAT naming the file `path` and the
 * field as a path into the file, `where` + key ("rows[2]." + "batch"). */
int mb_plot_field(const cJSON *o, const char *where, const char *key, int flags, const char *path,
                  double *v, mb_error *err);

#endif /* MB_PLOT_IMPL_H */
