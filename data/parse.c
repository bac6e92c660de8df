/* parse.c — strict parsing of the numbers, sizes and ranges users type on command lines, and
 * a number written back as typed (mb_data_typed, for messages).
 *
 * Strict means: the whole string is the number (no trailing junk), NaN and infinities are
 * rejected, and errors name the flag and the item at fault.
 */
#include "mb_parse.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Only decimal numbers: strtod also reads hexadecimal ("0x10") and "infinity", which no user
 * of mbkit means by a count or a time. */
static int not_decimal(const char *s)
{
    return strpbrk(s, "xX") != NULL;
}

int mb_data_non_finite(const char *s)
{
    const char *p = *s == '-' || *s == '+' ? s + 1 : s;
    return strncasecmp(p, "nan", 3) == 0 || strncasecmp(p, "inf", 3) == 0;
}

int mb_data_parse_double(const char *s, double *v)
{
    if (!s || !*s || isspace((unsigned char)*s) || not_decimal(s))
        return MB_EINVAL;
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    /* ERANGE with a finite result is an underflow: 1e-308 is a (subnormal) number, 1e-400 is
     * 0 to double precision; only an overflow is not a number */
    if (end == s || *end != '\0' || !isfinite(x) || (errno == ERANGE && fabs(x) > 1.0))
        return MB_EINVAL;
    *v = x;
    return MB_OK;
}

const char *mb_data_typed(char *buf, double v)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, MB_DATA_TYPED_LEN, "%.*g", prec, v);
        if (!isfinite(v) || strtod(buf, NULL) == v)
            break;
    }
    char *e = strchr(buf, 'e'); /* "1e-09" -> "1e-9", "1e+20" -> "1e+20" */
    if (e) {
        char *d = e + 1 + (e[1] == '-' || e[1] == '+'), *z = d;
        while (*z == '0' && z[1])
            z++;
        memmove(d, z, strlen(z) + 1);
    }
    return buf;
}

int mb_data_past_2_53(const char *s, double v)
{
    if (v != MB_DATA_RANGE_MAX)
        return v > MB_DATA_RANGE_MAX;
    /* the text's own value: plain digits compared as digits, other forms (1e16, 9.007e15) in
     * long double, which holds 2^53 + 1 where long double is wider than double */
    while (*s == '+' || (*s == '0' && s[1]))
        s++;
    size_t n = strspn(s, "0123456789");
    if (s[n] == '\0' || (s[n] == '.' && strspn(s + n + 1, "0") == strlen(s + n + 1)))
        return n != 16 || strncmp(s, "9007199254740992", 16) != 0;
    return strtold(s, NULL) != (long double)MB_DATA_RANGE_MAX;
}

int mb_data_parse_long(const char *s, long lo, long hi, long *v)
{
    if (!s || !*s || isspace((unsigned char)*s))
        return MB_EINVAL;
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE || x < lo || x > hi)
        return MB_EINVAL;
    *v = x;
    return MB_OK;
}

int mb_data_parse_digits(const char *s, long lo, long hi, long *v)
{
    if (!s || !*s || strspn(s, "0123456789") != strlen(s))
        return MB_EINVAL;
    return mb_data_parse_long(s, lo, hi, v);
}

int mb_data_parse_size(const char *s, double *v)
{
    if (!s || !*s || isspace((unsigned char)*s) || not_decimal(s))
        return MB_EINVAL;
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || !isfinite(x) || (errno == ERANGE && x > 1.0) || x < 0.0)
        return MB_EINVAL;
    double scale = 1.0;
    switch (toupper((unsigned char)*end)) {
    case 'K': scale = 1024.0; end++; break;
    case 'M': scale = 1024.0 * 1024.0; end++; break;
    case 'G': scale = 1024.0 * 1024.0 * 1024.0; end++; break;
    default: break;
    }
    /* bytes are an upper-case B: "Gb" and "Mb" are bits, 8 times less (campaign 36's R7) */
    if (scale > 1.0 && strcmp(end, "iB") == 0)
        end += 2;
    else if (strcmp(end, "B") == 0)
        end++;
    if (*end != '\0' || !isfinite(x * scale)) /* 1e308K: past a double (campaign 37's R3) */
        return MB_EINVAL;
    *v = x * scale;
    return MB_OK;
}

int mb_data_size_in_bits(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n < 2 || n > 63 || s[n - 1] != 'b')
        return 0;
    char t[64];
    memcpy(t, s, n + 1);
    t[n - 1] = 'B';
    if (n >= 3 && t[n - 2] == 'I')
        t[n - 2] = 'i';
    double v;
    return mb_data_parse_size(t + (t[0] == '-'), &v) == MB_OK;
}

/* Whether the decimal text at s (sign, digits, point, exponent, as strtod reads it) is a whole
 * number as written: no nonzero digit after the point once the exponent has moved it.
 * "2.0000000000000001" is not, though a double rounds it to 2; "8.0" and "1.5e3" are. *end
 * gets the first character past the number. */
static int text_whole(const char *s, const char **end)
{
    s += *s == '+' || *s == '-';
    const char *in = s, *fr = "";
    size_t ni = strspn(s, "0123456789"), nf = 0;
    s += ni;
    if (*s == '.') {
        fr = s + 1;
        nf = strspn(fr, "0123456789");
        s = fr + nf;
    }
    long e = 0;
    if ((*s == 'e' || *s == 'E') && strchr("+-0123456789", s[1])) {
        char *ee;
        e = strtol(s + 1, &ee, 10);
        s = ee;
    }
    *end = s;
    e = e > 100000 ? 100000 : e < -100000 ? -100000 : e;
    /* the digits left after the moved point: fractional ones from e on, integer ones too when
     * the point moves left */
    for (size_t i = e > 0 ? (size_t)e : 0; i < nf; i++)
        if (fr[i] != '0')
            return 0;
    for (size_t i = e < 0 && (size_t)-e < ni ? ni - (size_t)-e : 0; e < 0 && i < ni; i++)
        if (in[i] != '0')
            return 0;
    return 1;
}

int mb_data_whole_as_written(const char *s)
{
    const char *end;
    int whole = text_whole(s, &end);
    return whole || (*end && strchr("kKmMgG", *end));
}

int mb_data_flag_double(const char *flag, const char *arg, int size, mb_sign sign, double *v,
                        mb_error *err)
{
    double x;
    int rc = size ? mb_data_parse_size(arg, &x) : mb_data_parse_double(arg, &x);
    if (rc != MB_OK) {
        /* a size parser rejects negatives; say so rather than "not a number" */
        double y;
        if (size && arg[0] == '-' && mb_data_parse_size(arg + 1, &y) == MB_OK)
            return mb_error_set(err, MB_EINVAL, "%s: must be >= 0, got '%s'", flag, arg);
        if (size && mb_data_size_in_bits(arg))
            return mb_error_set(err, MB_EINVAL, MB_DATA_BITS_LINE, flag, arg);
        return mb_error_set(err, MB_EINVAL, "%s: '%s' is not a %s", flag, arg,
                            size ? "size (a number with optional K, M or G)" : "number");
    }
    if (sign == MB_POSITIVE && !(x > 0))
        return mb_error_set(err, MB_EINVAL, "%s: must be > 0, got '%s'", flag, arg);
    if (sign == MB_NONNEG && !(x >= 0))
        return mb_error_set(err, MB_EINVAL, "%s: must be >= 0, got '%s'", flag, arg);
    *v = x;
    return MB_OK;
}

int mb_data_flag_fraction(const char *flag, const char *arg, double *v, mb_error *err)
{
    double x = NAN;
    if (mb_data_flag_double(flag, arg, 0, MB_ANY, &x, err) != MB_OK)
        return MB_EINVAL;
    if (!(x >= 0 && x < 1))
        return mb_error_set(err, MB_EINVAL, "%s: must be in [0, 1), got '%s'", flag, arg);
    *v = x;
    return MB_OK;
}

int mb_data_flag_momentum(const char *flag, const char *arg, double *v, mb_error *err)
{
    double x = NAN;
    if (mb_data_flag_fraction(flag, arg, &x, err) != MB_OK) /* 1 or more never decays */
        return MB_EINVAL;
    /* the step takes it in float, where 0.99999999999 is 1 (campaign 35's E1) */
    if (!((float)x < 1.0f))
        return mb_error_set(err, MB_EINVAL, "%s: '%s' is 1 in float, the type the step takes it "
                            "in (a momentum of 1 never decays): at most %.8g", flag, arg,
                            (double)nextafterf(1.0f, 0.0f));
    *v = x;
    return MB_OK;
}

int mb_data_flag_float(const char *flag, const char *arg, mb_sign sign, double *v, mb_error *err)
{
    double x = NAN;
    if (mb_data_flag_double(flag, arg, 0, sign, &x, err) != MB_OK)
        return MB_EINVAL;
    /* the value the log states is the one training takes (campaign 35's E1: --weight-decay
     * 1e39 was inf, --elastic-alpha 1e-46 was 0) */
    if (fabs(x) > FLT_MAX)
        return mb_error_set(err, MB_EINVAL, "%s: '%s' is above the largest float (%.2g), the type "
                            "training takes it in", flag, arg, (double)FLT_MAX);
    if (x != 0 && fabs(x) < FLT_MIN)
        return mb_error_set(err, MB_EINVAL, "%s: '%s' is below the least normal float (%.2g), the "
                            "type training takes it in", flag, arg, (double)FLT_MIN);
    *v = x;
    return MB_OK;
}

int mb_data_flag_lr(const char *flag, const char *arg, double *v, mb_error *err)
{
    double x = NAN;
    if (mb_data_flag_double(flag, arg, 0, MB_POSITIVE, &x, err) != MB_OK)
        return MB_EINVAL;
    /* the step is taken in float: a rate below float's least normal one is a step of 0 (or
     * denormal), a rate the log would state and training never used (campaign 34's E10) */
    if (x < FLT_MIN)
        return mb_error_set(err, MB_EINVAL, "%s: '%s' is below the least rate a step in float "
                            "can take (%.2g)", flag, arg, (double)FLT_MIN);
    /* and above float's largest it is inf: the run diverged at once and exited 0 (campaign
     * 36's E3) */
    if (x > FLT_MAX)
        return mb_error_set(err, MB_EINVAL, "%s: '%s' is above the largest float (%.2g), the type "
                            "training takes it in", flag, arg, (double)FLT_MAX);
    *v = x;
    return MB_OK;
}

/* A count as a flag gives it: digits only, as mbtrain reads every count (campaign 17's M1:
 * 1e1 and +2 were whole numbers to some flags and not to others). */
static int digits_only(const char *s)
{
    return *s && strspn(s, "0123456789") == strlen(s);
}

const char *mb_data_count_notation(const char *t, double lo, double hi, char *note, size_t n)
{
    note[0] = '\0';
    if (!*t || strspn(t, "0123456789") == strlen(t))
        return note;
    char *end;
    const double v = strtod(t, &end);
    /* only a notation that is exactly that whole number: digits, a point and zeros, an
     * exponent (2.0000000000000001 is not 2, though a double reads it so) */
    const size_t d = strspn(t, "0123456789"), z = t[d] == '.' ? strspn(t + d + 1, "0") : 0;
    const int exact = (t[d] == '.' && (t[d + 1 + z] == '\0' || t[d + 1 + z] == 'e' ||
                                       t[d + 1 + z] == 'E')) || t[d] == 'e' || t[d] == 'E';
    if (exact && d > 0 && *end == '\0' && v == floor(v) && v >= lo && v <= hi)
        snprintf(note, n, " written in digits alone ('%s' is %.0f: write that)", t, v);
    return note;
}

int mb_data_flag_whole(const char *flag, const char *arg, int size, double lo, double hi,
                       double *v, mb_error *err)
{
    /* a size's text is not a count's digits (8388608G is 2^53): stop one short of 2^53 there */
    hi = fmin(hi, size ? MB_DATA_RANGE_MAX - 1 : MB_DATA_RANGE_MAX);
    double x = NAN;
    /* a negative value is out of the range the message states (campaign 17's M3: "must be >=
     * 0" where 0 is refused too) */
    if (arg[0] != '-' && mb_data_flag_double(flag, arg, size, MB_NONNEG, &x, err) != MB_OK)
        return MB_EINVAL;
    if (arg[0] == '-' || x != floor(x) || !mb_data_whole_as_written(arg) || x < lo || x > hi ||
        (!size && (!digits_only(arg) || mb_data_past_2_53(arg, x)))) {
        char note[160]; /* 1e1 is one: the notation is the fault (campaign 42's B-F5) */
        return mb_error_set(err, MB_EINVAL, "%s: must be a whole number in [%.0f, %.0f]%s, got "
                            "'%s'", flag, lo, hi,
                            size ? "" : mb_data_count_notation(arg, lo, hi, note, sizeof note),
                            arg);
    }
    *v = x;
    return MB_OK;
}

int mb_data_split_list(const char *s, const char *what, int keyed, char ***items, size_t *n,
                       mb_error *err)
{
    *items = NULL;
    *n = 0;
    if (!s || !*s)
        return mb_error_set(err, MB_EINVAL, "%s: empty list", what);
    size_t len = strlen(s), k = 1;
    for (const char *p = s; *p; p++)
        k += *p == ',';
    /* one block: k pointers, then the copy they point into */
    char **v = malloc(k * sizeof *v + len + 1);
    if (!v)
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", what);
    char *copy = (char *)(v + k);
    memcpy(copy, s, len + 1);
    size_t m = 0;
    for (char *item = copy;;) {
        char *comma = strchr(item, ',');
        if (comma)
            *comma = '\0';
        if (!*item) {
            free(v);
            return mb_error_set(err, MB_EINVAL, "%s: empty item in '%s'", what, s);
        }
        if (keyed) {
            char *eq = strchr(item, '=');
            if (!eq || eq == item) {
                int rc = mb_error_set(err, MB_EINVAL, "%s: '%s' is not key=value", what, item);
                free(v);
                return rc;
            }
            size_t kl = (size_t)(eq - item);
            for (size_t j = 0; j < m; j++)
                if (strncmp(v[j], item, kl + 1) == 0) {
                    int rc = mb_error_set(err, MB_EINVAL, "%s: '%.*s' given twice in '%s'", what,
                                          (int)kl, item, s);
                    free(v);
                    return rc;
                }
        }
        v[m++] = item;
        if (!comma)
            break;
        item = comma + 1;
    }
    *items = v;
    *n = m;
    return MB_OK;
}

static int range_push(mb_range *r, size_t *cap, double x)
{
    if (r->n == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        double *nv = realloc(r->v, nc * sizeof *nv);
        if (!nv)
            return MB_ENOMEM;
        r->v = nv;
        *cap = nc;
    }
    r->v[r->n++] = x;
    return MB_OK;
}

/* Parses one comma-separated item, "x" or "lo:hi", appending its values. */
static int range_item(const char *item, const char *what, mb_range *r, size_t *cap,
                      mb_error *err)
{
    const char *colon = strchr(item, ':');
    if (!colon) {
        double x;
        if (mb_data_size_in_bits(item))
            return mb_error_set(err, MB_EINVAL, MB_DATA_BITS_LINE, what, item);
        if (mb_data_parse_size(item, &x) != MB_OK || !(x > 0.0))
            return mb_error_set(err, MB_EINVAL, "%s: '%s' is not a positive number", what, item);
        if (x > MB_DATA_RANGE_MAX)
            return mb_error_set(err, MB_EINVAL, "%s: '%s' is past %.0f (2^53)", what, item,
                                MB_DATA_RANGE_MAX);
        return range_push(r, cap, x);
    }
    char lo_s[64];
    size_t len = (size_t)(colon - item);
    if (len >= sizeof lo_s)
        return mb_error_set(err, MB_EINVAL, "%s: '%s' is not a range lo:hi", what, item);
    memcpy(lo_s, item, len);
    lo_s[len] = '\0';
    double lo, hi;
    if (mb_data_size_in_bits(lo_s) || mb_data_size_in_bits(colon + 1))
        return mb_error_set(err, MB_EINVAL, MB_DATA_BITS_LINE, what, item);
    if (mb_data_parse_size(lo_s, &lo) != MB_OK || mb_data_parse_size(colon + 1, &hi) != MB_OK ||
        !(lo > 0.0))
        return mb_error_set(err, MB_EINVAL, "%s: '%s' is not a range lo:hi of positive numbers",
                            what, item);
    if (lo > hi)
        return mb_error_set(err, MB_EINVAL, "%s: range '%s' has lo > hi", what, item);
    if (hi > MB_DATA_RANGE_MAX)
        return mb_error_set(err, MB_EINVAL, "%s: range '%s' goes past %.0f (2^53)", what, item,
                            MB_DATA_RANGE_MAX);
    for (double x = lo; x <= hi * (1.0 + 1e-12); x *= 2.0)
        if (range_push(r, cap, x) != MB_OK)
            return mb_error_set(err, MB_ENOMEM, "%s: out of memory", what);
    return MB_OK;
}

int mb_data_parse_range(const char *s, const char *what, mb_range *r, mb_error *err)
{
    r->v = NULL;
    r->n = 0;
    char **items;
    size_t n, cap = 0;
    int rc = mb_data_split_list(s, what, 0, &items, &n, err);
    for (size_t i = 0; rc == MB_OK && i < n; i++)
        rc = range_item(items[i], what, r, &cap, err);
    free(items);
    /* a value given twice would be run, timed or drawn twice */
    for (size_t i = 0; rc == MB_OK && i < r->n; i++)
        for (size_t j = 0; rc == MB_OK && j < i; j++)
            if (r->v[i] == r->v[j])
            {
                char v[32];
                rc = mb_error_set(err, MB_EINVAL, "%s: %s given twice in '%s'", what,
                                  mb_data_fmt_exact(v, sizeof v, r->v[i]), s);
            }
    if (rc != MB_OK)
        mb_data_range_free(r);
    return rc;
}

/* One end of a counts item ("8", or "8" and "64" of "8:64"), n characters at s, written as a
 * whole number in digits alone. */
static int count_text(const char *s, size_t n, const char *what, const char *item, double lo,
                      double hi, mb_error *err)
{
    char t[64]; /* a count's text is shorter: a longer one is refused, never cut (M6) */
    if (n < sizeof t) {
        memcpy(t, s, n);
        t[n] = '\0';
        const int text = n > 0 && strspn(t, "0123456789") == n;
        /* the end as written, against hi: lo:hi doubles up to hi and may stop below it, so the
         * list's values alone let 8:2000000000 through as 8..2^30 (campaign 26's W3) */
        if (text && strtod(t, NULL) > hi && strcmp(t, item) != 0)
            return mb_error_set(err, MB_EINVAL, "%s: %s (in '%s') is not a whole number in "
                                "[%.0f, %.0f]", what, t, item, lo, hi);
        if (text && !mb_data_past_2_53(t, strtod(t, NULL)))
            return MB_OK; /* 2^53 + 1 is refused from its text: a double reads it as 2^53 */
        /* a whole number in range in another notation (1e9, 16.0): the line says that the
         * notation is the fault (campaign 41's B-F5: "'1e9' is not a whole number in [1, 2^30]") */
        char note[160];
        if (*mb_data_count_notation(t, lo, hi, note, sizeof note))
            return mb_error_set(err, MB_EINVAL, "%s: '%s' is not a whole number in [%.0f, %.0f]%s",
                                what, item, lo, hi, note);
    }
    return mb_error_set(err, MB_EINVAL, "%s: '%s' is not a whole number in [%.0f, %.0f]", what,
                        item, lo, hi);
}

/* Each item of a list as written (lim: the bounds its message states), before the list is
 * read as ranges. */
typedef int (*item_check)(const char *item, const char *what, const double *lim, mb_error *err);

/* A count item: each end of "lo:hi" a whole number as written (count_text); lim: lo and hi. */
static int count_item(const char *item, const char *what, const double *lim, mb_error *err)
{
    const char *colon = strchr(item, ':');
    size_t n0 = colon ? (size_t)(colon - item) : strlen(item);
    int rc = count_text(item, n0, what, item, lim[0], lim[1], err);
    if (rc == MB_OK && colon)
        rc = count_text(colon + 1, strlen(colon + 1), what, item, lim[0], lim[1], err);
    return rc;
}

/* A mini-batch item: plain digits and ':' only, and the end of "lo:hi" as written at most
 * lim[0] (the doubling from lo may stop below hi: 8:2000000000 made 8..2^30, campaign 26's W3). */
static int batch_item(const char *item, const char *what, const double *lim, mb_error *err)
{
    if (strspn(item, "0123456789:") != strlen(item)) {
        /* 1e1 is a whole number in another notation: the note every count list gives
         * (mb_data_count_notation; campaign 43's B-F2), on the part of "lo:hi" at fault */
        char part[64], note[160];
        const char *colon = strchr(item, ':');
        const int bad_lo = !colon || strspn(item, "0123456789") < (size_t)(colon - item);
        snprintf(part, sizeof part, "%.*s", bad_lo && colon ? (int)(colon - item) : 63,
                 bad_lo ? item : colon + 1);
        mb_data_count_notation(part, 1, lim[0], note, sizeof note);
        return mb_error_set(err, MB_EINVAL, "%s: '%s' is not a whole number >= 1 (a mini-batch "
                            "size%s)%s", what, item, *note ? "" : ", in digits", note);
    }
    const char *hi = strrchr(item, ':');
    if (hi && strtod(hi + 1, NULL) > lim[0])
        return mb_error_set(err, MB_EINVAL, "%s: %s: %s is past the largest mini-batch, %.0f",
                            what, item, hi + 1, lim[0]);
    return MB_OK;
}

/* mb_data_parse_range of s once every item passed `ok` (r empty on error). */
static int checked_range(const char *s, const char *what, item_check ok, const double *lim,
                         mb_range *r, mb_error *err)
{
    r->v = NULL;
    r->n = 0;
    char **items;
    size_t n;
    int rc = mb_data_split_list(s, what, 0, &items, &n, err);
    for (size_t i = 0; rc == MB_OK && i < n; i++)
        rc = ok(items[i], what, lim, err);
    free(items);
    return rc == MB_OK ? mb_data_parse_range(s, what, r, err) : rc;
}

int mb_data_parse_counts(const char *s, const char *what, double lo, double hi, mb_range *r,
                         mb_error *err)
{
    const double lim[2] = {lo, hi};
    int rc = checked_range(s, what, count_item, lim, r, err);
    for (size_t i = 0; rc == MB_OK && i < r->n; i++)
        if (r->v[i] != floor(r->v[i]) || r->v[i] < lo || r->v[i] > hi) {
            char v[32]; /* the value as written, or as the list made it */
            if (strcmp(mb_data_fmt_exact(v, sizeof v, r->v[i]), s) == 0)
                rc = mb_error_set(err, MB_EINVAL, "%s: '%s' is not a whole number in [%.0f, "
                                  "%.0f]", what, s, lo, hi);
            else
                rc = mb_error_set(err, MB_EINVAL, "%s: %s (in '%s') is not a whole number in "
                                  "[%.0f, %.0f]", what, v, s, lo, hi);
            mb_data_range_free(r);
        }
    return rc;
}

int mb_data_parse_batches(const char *s, const char *what, double max, mb_range *r,
                          mb_error *err)
{
    int rc = checked_range(s, what, batch_item, &max, r, err);
    for (size_t i = 0; rc == MB_OK && i < r->n; i++)
        if (r->v[i] > max) {
            char v[32];
            rc = mb_error_set(err, MB_EINVAL, "%s: %s is past the largest mini-batch, %.0f",
                              what, mb_data_fmt_exact(v, sizeof v, r->v[i]), max);
            mb_data_range_free(r);
        }
    return rc;
}

const char *mb_data_fmt_exact(char *buf, size_t n, double v)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    /* whole numbers below 2^53 without an exponent: "1099511627776", not "1.09951e+12" */
    if (v == floor(v) && fabs(v) < 9007199254740992.0 && strchr(buf, 'e'))
        snprintf(buf, n, "%.0f", v);
    return buf;
}

void mb_data_range_free(mb_range *r)
{
    if (r) {
        free(r->v);
        r->v = NULL;
        r->n = 0;
    }
}

int mb_data_env_seconds(const char *name, double unset, double lo, int lo_open, double hi,
                        double *s, mb_error *err)
{
    const char *e = getenv(name);
    double w;
    *s = unset;
    if (!e)
        return MB_OK;
    if (mb_data_parse_double(e, &w) != MB_OK || !(lo_open ? w > lo : w >= lo) || !(w <= hi))
        return mb_error_set(err, MB_EUSAGE, lo_open ? "%s='%s': must be a number of seconds "
                            "above %g, at most %g (unset: %g)" : "%s='%s': must be a number of "
                            "seconds from %g to %g (unset: %g)", name, e, lo, hi, unset);
    *s = w;
    return MB_OK;
}

int mb_data_mpi_start_wait(double *s, mb_error *err)
{
    return mb_data_env_seconds("MBKIT_MPI_START_WAIT", MB_DATA_MPI_START_WAIT,
                               MB_DATA_MPI_START_WAIT_MIN, 0, 3600, s, err);
}
