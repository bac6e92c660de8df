/* desc_read.c — mb_net_desc_read: network descriptions from INI-style .cfg files
 * (data/nets/NAME.cfg), and where bare names are looked up.
 *
 * The format, one item per line ('#' or ';' starts a comment, blank lines are ignored):
 *     [net]      name=, channels=, height=, width=   (first section, exactly once)
 *     [conv]     filters=, size=, stride=1, pad=0, activation=, algo=gemm|direct|fft|winograd
 *     [maxpool]  size=, stride=size, pad=0            [avgpool] likewise
 *     [fc]       outputs= (or filters=), activation=
 *     [dropout]  p=0.5
 *     [relu] [tanh] [sigmoid] [softmax]               (softmax: the last layer, exactly once)
 *     [batchnorm] activation=                         (per channel; per feature after fc)
 *     [add] from=, activation=     [concat] from=, activation=
 * A graph: any layer but softmax may take from=NAME[,NAME...], the earlier layers whose outputs
 * it reads (`input`: the network's input) instead of the previous layer's; add and concat need
 * from=, and with one name read the previous layer and that one.
 * A layer list ([net] graph=none) describes shapes without a trainable graph (ResNet's residual
 * branches): conv, pool and fc layers may give input=CxHxW (else they follow the previous
 * layer), and no softmax is needed. mb_net_create refuses such a description.
 * Every layer section takes name=. activation=relu|tanh|sigmoid|linear on conv or fc appends that
 * activation layer (linear: none). Unknown sections or keys, repeated keys, bad values and a
 * missing final softmax are MB_EFORMAT with "file:line: ..."; shapes are filled and checked by
 * mb_net_desc_infer (train/desc.c), whose message is prefixed with the file name.
 *
 * mb_net_desc_free is here too: it frees what the reader allocates (the description and its
 * layer array, two blocks).
 *
 * Not here: shape inference itself, building networks, writing cfg files.
 */
#include "layer_kind.h"
#include "mb_net.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../data/mb_parse.h"
#include "../data/mb_output.h"

#define MAX_SIDE 1000000L /* the largest filters/size/stride/pad/side a cfg may give */

enum { N_KINDS = MB_LAYER_N_TYPES };

static const char *type_name(mb_layer_type t) { return mb_layer_type_name(t); }

/* The parser's state: the description being built and what the current section has seen. */
typedef struct parser {
    const char *path;
    mb_net_desc *d;
    size_t cap;            /* allocated entries of d->layers */
    int in_net;            /* current section is [net] */
    int seen_net;          /* [net] was given */
    int net_line;          /* its line */
    int have_c, have_h, have_w, have_name;
    int have_size, have_filters, have_stride, have_p, have_from; /* current layer's keys */
    char keys[16][16];     /* keys seen in the current section, for duplicates */
    int n_keys;
    int act_pending;       /* activation layer to append after the current one, or -1 */
    int act_line;
    int counts[N_KINDS];   /* per type, for generated names */
} parser;

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

static mb_layer_desc *push_layer(parser *p, mb_layer_type type, int line, mb_error *err)
{
    mb_net_desc *d = p->d;
    if (d->n_layers == MB_NET_LAYERS_MAX) { /* each 'from' name is looked up among the earlier */
        mb_error_set(err, MB_EFORMAT, "%s:%d: layer %d, more than a network description holds "
                     "(at most %d)", p->path, line, MB_NET_LAYERS_MAX + 1, MB_NET_LAYERS_MAX);
        return NULL;
    }
    if (d->n_layers == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        mb_layer_desc *l = realloc(d->layers, cap * sizeof *l);
        if (!l) {
            mb_error_set(err, MB_ENOMEM, "%s: out of memory", p->path);
            return NULL;
        }
        d->layers = l;
        p->cap = cap;
    }
    mb_layer_desc *l = &d->layers[d->n_layers++];
    memset(l, 0, sizeof *l);
    l->type = type;
    l->algo = MB_CONV_AUTO;
    l->stride = 1;
    l->p = 0.5f;
    l->line = line;
    snprintf(l->name, sizeof l->name, "%s%d", type_name(type), ++p->counts[type]);
    return l;
}

/* Closes the current section: required keys, defaults, and the pending activation layer. */
static int end_section(parser *p, mb_error *err)
{
    if (p->in_net) {
        const char *missing = !p->have_c ? "channels" : !p->have_h ? "height" : !p->have_w ? "width" : NULL;
        if (missing)
            return mb_error_set(err, MB_EFORMAT, "%s:%d: [net] needs '%s'", p->path, p->net_line,
                                missing);
    } else if (p->d->n_layers > 0) {
        mb_layer_desc *l = &p->d->layers[p->d->n_layers - 1];
        const mb_layer_kind *k = mb_layer_kind_of(l->type);
        const char *missing = (k->needs & LK_FILTERS) && !p->have_filters ? "filters"
                              : (k->needs & LK_OUTPUTS) && !p->have_filters ? "outputs"
                              : (k->needs & LK_SIZE) && !p->have_size       ? "size"
                              : (k->needs & LK_FROM) && !p->have_from       ? "from"
                                                                            : NULL;
        if (k->stride_is_size && !p->have_stride)
            l->stride = l->size;
        if (missing)
            return mb_error_set(err, MB_EFORMAT, "%s:%d: [%s] needs '%s'", p->path, l->line,
                                type_name(l->type), missing);
        if (p->act_pending >= 0 && !push_layer(p, (mb_layer_type)p->act_pending, p->act_line, err))
            return err ? err->status : MB_ENOMEM; /* out of memory, or past MB_NET_LAYERS_MAX */
    }
    p->in_net = 0;
    p->have_size = p->have_filters = p->have_stride = p->have_p = p->have_from = 0;
    p->n_keys = 0;
    p->act_pending = -1;
    return MB_OK;
}

static int int_value(parser *p, int line, const char *key, const char *v, long lo, int *out,
                     mb_error *err)
{
    long x;
    /* in digits, as the command line's counts (campaign 21's N19: outputs=+4 was 4) */
    if (mb_data_parse_digits(v, lo, MAX_SIDE, &x) != MB_OK)
        return mb_error_set(err, MB_EFORMAT, "%s:%d: '%s': '%s' is not a whole number in [%ld, %ld]",
                            p->path, line, key, v, lo, MAX_SIDE);
    *out = (int)x;
    return MB_OK;
}

/* input=CxHxW of a layer list: the layer's own input shape. */
static int input_shape(parser *p, int line, const char *val, mb_layer_desc *l, mb_error *err)
{
    if (!p->d->layer_list)
        return mb_error_set(err, MB_EFORMAT,
                            "%s:%d: 'input' needs [net] graph=none (in a chain each layer's input "
                            "is the previous layer's output)", p->path, line);
    long v[3];
    char buf[64];
    snprintf(buf, sizeof buf, "%s", val);
    char *save = NULL, *tok = strtok_r(buf, "x", &save);
    int n = 0;
    for (; tok && n < 3; tok = strtok_r(NULL, "x", &save))
        if (mb_data_parse_digits(tok, 1, MAX_SIDE, &v[n++]) != MB_OK)
            break;
    if (n != 3 || tok || strlen(val) >= sizeof buf)
        return mb_error_set(err, MB_EFORMAT,
                            "%s:%d: 'input': '%s' is not CxHxW (three whole numbers in [1, %ld])",
                            p->path, line, val, MAX_SIDE);
    l->given_c = (int)v[0], l->given_h = (int)v[1], l->given_w = (int)v[2];
    return MB_OK;
}

/* from=NAME[,NAME...]: the earlier layers (by name; `input`, the network's input, unless a
 * layer has that name) whose outputs layer l reads. add and concat given one name read the
 * previous layer first, then that one. */
static int from_inputs(parser *p, int line, const char *val, mb_layer_desc *l, mb_error *err)
{
    const char *sect = type_name(l->type);
    const size_t me = p->d->n_layers - 1;
    if (strlen(val) >= 256)
        return mb_error_set(err, MB_EFORMAT, "%s:%d: [%s] 'from' is longer than 255 characters",
                            p->path, line, sect);
    /* the one splitter of comma lists: no empty item ("c1,"); no name twice ("c1,c1", below) */
    char what[512], **items;
    size_t ni;
    snprintf(what, sizeof what, "%s:%d: [%s] 'from'", p->path, line, sect);
    int rc = mb_data_split_list(val, what, 0, &items, &ni, err), n = 0;
    for (size_t t = 0; rc == MB_OK && t < ni; t++) {
        char *name = trim(items[t]);
        if (n == MB_LAYER_MAX_INPUTS)
            rc = mb_error_set(err, MB_EFORMAT, "%s: more than %d inputs", what,
                              MB_LAYER_MAX_INPUTS);
        int found = -2;
        for (size_t i = me; rc == MB_OK && i-- > 0;)
            if (strcmp(p->d->layers[i].name, name) == 0) {
                if (found != -2)
                    rc = mb_error_set(err, MB_EFORMAT, "%s: '%s' names the layers of lines %d "
                                      "and %d", what, name, p->d->layers[i].line,
                                      p->d->layers[found].line);
                found = (int)i;
            }
        if (found == -2 && strcmp(name, "input") == 0)
            found = -1;
        if (rc == MB_OK && found == -2)
            rc = mb_error_set(err, MB_EFORMAT, "%s: no earlier layer is named '%s'", what, name);
        if (rc == MB_OK)
            l->inputs[n++] = found;
    }
    free(items); /* NULL when the list was refused */
    if (rc != MB_OK) {
        err->status = MB_EFORMAT;
        return MB_EFORMAT;
    }
    if (n == 0)
        return mb_error_set(err, MB_EFORMAT, "%s:%d: [%s] 'from' names no layer", p->path, line,
                            sect);
    const mb_layer_kind *k = mb_layer_kind_of(l->type);
    if (n == 1 && k->min_inputs > 1) { /* the previous layer, then the one named */
        l->inputs[1] = l->inputs[0];
        l->inputs[0] = (int)me - 1;
        n = 2;
    }
    if (n > k->max_inputs)
        return mb_error_set(err, MB_EFORMAT, "%s:%d: [%s] 'from': %d layers named; it reads %d",
                            p->path, line, sect, n, k->max_inputs);
    for (int i = 0; i < n; i++) /* a layer named twice would be summed or joined twice */
        for (int j = 0; j < i; j++)
            if (l->inputs[i] == l->inputs[j] && ni > 1)
                return mb_error_set(err, MB_EFORMAT, "%s: '%s' given twice", what,
                                    l->inputs[i] < 0 ? "input" : p->d->layers[l->inputs[i]].name);
    l->n_inputs = n;
    p->have_from = 1;
    return MB_OK;
}

/* One key=value inside the current section. */
/* A name goes into CSV cells and metadata lines, a net's into file names (mbtrain's logs):
 * letters, digits and . _ + - only, and / in a layer's (a comma would break the table, a slash
 * the path). */
static int name_ok(const char *v, const char *more)
{
    for (; *v; v++)
        if (!isalnum((unsigned char)*v) && !strchr("._+-", *v) && !strchr(more, *v))
            return 0;
    return 1;
}

static int set_key(parser *p, int line, const char *key, const char *val, mb_error *err)
{
    const char *sect = p->in_net ? "net" : type_name(p->d->layers[p->d->n_layers - 1].type);
    for (int i = 0; i < p->n_keys; i++)
        if (strcmp(p->keys[i], key) == 0)
            return mb_error_set(err, MB_EFORMAT, "%s:%d: [%s] '%s' given twice", p->path, line,
                                sect, key);
    if (p->n_keys < 16 && strlen(key) < sizeof p->keys[0])
        strcpy(p->keys[p->n_keys++], key);
    if (*val == '\0')
        return mb_error_set(err, MB_EFORMAT, "%s:%d: [%s] '%s' has no value", p->path, line, sect,
                            key);
    if (p->in_net) {
        mb_net_desc *d = p->d;
        if (strcmp(key, "name") == 0) {
            if (strlen(val) >= sizeof d->name)
                return mb_error_set(err, MB_EFORMAT, "%s:%d: [net] name longer than %zu characters",
                                    p->path, line, sizeof d->name - 1);
            if (!name_ok(val, ""))
                return mb_error_set(err, MB_EFORMAT, "%s:%d: [net] name '%s': only letters, "
                                    "digits and . _ + -", p->path, line, val);
            if (!isalnum((unsigned char)val[0])) /* `.hid-...csv` is skipped by *.csv, `-rf-...`
                                                    read as an option (campaign 29's A8) */
                return mb_error_set(err, MB_EFORMAT, "%s:%d: [net] name '%s': must start with a "
                                    "letter or digit (it begins the run logs' names)", p->path,
                                    line, val);
            strcpy(d->name, val);
            p->have_name = 1;
            return MB_OK;
        }
        if (strcmp(key, "channels") == 0)
            return p->have_c = 1, int_value(p, line, key, val, 1, &d->in_c, err);
        if (strcmp(key, "height") == 0)
            return p->have_h = 1, int_value(p, line, key, val, 1, &d->in_h, err);
        if (strcmp(key, "width") == 0)
            return p->have_w = 1, int_value(p, line, key, val, 1, &d->in_w, err);
        if (strcmp(key, "graph") == 0) {
            if (strcmp(val, "none") != 0 && strcmp(val, "chain") != 0)
                return mb_error_set(err, MB_EFORMAT,
                                    "%s:%d: [net] graph '%s' is not one of chain, none", p->path,
                                    line, val);
            d->layer_list = strcmp(val, "none") == 0;
            return MB_OK;
        }
        return mb_error_set(err, MB_EFORMAT,
                            "%s:%d: [net] unknown key '%s' (name, channels, height, width, graph)",
                            p->path, line, key);
    }
    mb_layer_desc *l = &p->d->layers[p->d->n_layers - 1];
    mb_layer_type t = l->type;
    const unsigned keys = mb_layer_kind_of(t)->keys;
    if (strcmp(key, "name") == 0) {
        if (strlen(val) >= sizeof l->name)
            return mb_error_set(err, MB_EFORMAT, "%s:%d: [%s] name longer than %zu characters",
                                p->path, line, sect, sizeof l->name - 1);
        if (!name_ok(val, "/"))
            return mb_error_set(err, MB_EFORMAT, "%s:%d: [%s] name '%s': only letters, digits "
                                "and . _ + - /", p->path, line, sect, val);
        strcpy(l->name, val);
        return MB_OK;
    }
    if (((keys & LK_FILTERS) && strcmp(key, "filters") == 0) ||
        ((keys & LK_OUTPUTS) && (strcmp(key, "outputs") == 0 || strcmp(key, "filters") == 0))) {
        if (p->have_filters) /* the other name (fc's alias): the same key given as written
                                (campaign 38's D6: 'filters' after 'outputs' was "'outputs'
                                given twice") */
            return mb_error_set(err, MB_EFORMAT, "%s:%d: [%s] '%s' given, and '%s' before it: "
                                "one key under two names", p->path, line, sect, key,
                                strcmp(key, "filters") == 0 ? "outputs" : "filters");
        p->have_filters = 1;
        return int_value(p, line, key, val, 1, &l->filters, err);
    }
    if ((keys & LK_SIZE) && strcmp(key, "size") == 0)
        return p->have_size = 1, int_value(p, line, key, val, 1, &l->size, err);
    if ((keys & LK_STRIDE) && strcmp(key, "stride") == 0)
        return p->have_stride = 1, int_value(p, line, key, val, 1, &l->stride, err);
    if ((keys & LK_PAD) && strcmp(key, "pad") == 0)
        return int_value(p, line, key, val, 0, &l->pad, err);
    if ((keys & LK_INPUT) && strcmp(key, "input") == 0)
        return input_shape(p, line, val, l, err);
    if ((keys & LK_FROM) && strcmp(key, "from") == 0)
        return from_inputs(p, line, val, l, err);
    if ((keys & LK_ALGO) && strcmp(key, "algo") == 0) {
        mb_conv_algo a;
        if (mb_conv_algo_parse(val, &a) != MB_OK)
            return mb_error_set(err, MB_EFORMAT,
                                "%s:%d: [conv] algo '%s' is not one of gemm, direct, fft, winograd",
                                p->path, line, val);
        l->algo = a;
        return MB_OK;
    }
    if ((keys & LK_ACTIVATION) && strcmp(key, "activation") == 0) {
        static const struct { const char *n; int t; } acts[] = {
            {"relu", MB_LAYER_RELU}, {"tanh", MB_LAYER_TANH}, {"sigmoid", MB_LAYER_SIGMOID},
            {"linear", -1}};
        for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++)
            if (strcmp(val, acts[i].n) == 0) {
                p->act_pending = acts[i].t;
                p->act_line = line;
                return MB_OK;
            }
        return mb_error_set(err, MB_EFORMAT,
                            "%s:%d: [%s] activation '%s' is not one of relu, tanh, sigmoid, linear",
                            p->path, line, sect, val);
    }
    if ((keys & LK_P) && strcmp(key, "p") == 0) {
        double x;
        if (mb_data_parse_double(val, &x) != MB_OK || x < 0 || x >= 1)
            return mb_error_set(err, MB_EFORMAT, "%s:%d: [dropout] p: '%s' is not in [0, 1)",
                                p->path, line, val);
        /* the layer keeps it in float, where 0.99999999999 is 1: said here with the text as
         * written, as mb_data_flag_momentum says it (campaign 40's D1: the layer check said
         * "p = 1", a number the file does not hold) */
        if (!((float)x < 1.0f))
            return mb_error_set(err, MB_EFORMAT, "%s:%d: [dropout] p: '%s' is 1 in float, the "
                                "type the layer keeps it in: at most %.8g", p->path, line, val,
                                (double)nextafterf(1.0f, 0.0f));
        l->p = (float)x;
        return MB_OK;
    }
    return mb_error_set(err, MB_EFORMAT, "%s:%d: [%s] unknown key '%s'", p->path, line, sect, key);
}

/* Two layers of one name, given (name=) or made (section and count: an unnamed [conv] after a
 * [conv] name=conv2 is conv2 too), would be two rows of one name in every table and an ambiguous
 * from= (campaign 39's D3): MB_EFORMAT naming the second's line and the first's. */
static int names_once(const parser *p, mb_error *err)
{
    const mb_net_desc *d = p->d;
    const char **names = malloc((d->n_layers ? d->n_layers : 1) * sizeof *names);
    if (!names)
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", p->path);
    for (size_t i = 0; i < d->n_layers; i++)
        names[i] = d->layers[i].name;
    size_t at, first;
    int rep = mb_data_first_repeat_name(names, d->n_layers, &at, &first);
    free(names);
    if (rep < 0)
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", p->path);
    if (rep == 0)
        return MB_OK;
    const mb_layer_desc *a = &d->layers[first], *b = &d->layers[at];
    return mb_error_set(err, MB_EFORMAT, "%s:%d: [%s] named '%s', as the [%s] of line %d is: "
                        "two layers of one name (a layer without name= is named by its section "
                        "and count)", p->path, b->line, type_name(b->type), b->name,
                        type_name(a->type), a->line);
}

/* Parses the text of a cfg file into d (layers without shapes). */
static int parse(parser *p, char *text, mb_error *err)
{
    int line = 0, rc;
    char *save = NULL;
    int last_line = 0;
    for (char *s = text; s; s = save) {
        char *nl = strchr(s, '\n');
        if (!nl && *s == '\0')
            break; /* the empty tail after the last newline is not a line */
        save = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        line++;
        if ((rc = mb_data_cr_inside(p->path, line, s, strlen(s), err)) != MB_OK)
            return rc; /* a CR alone read as a line end would end a comment: asked first */
        char *c = strpbrk(s, "#;");
        if (c)
            *c = '\0';
        char *t = trim(s);
        if (*t == '\0')
            continue;
        last_line = line;
        if (*t == '[') {
            char *e = strchr(t, ']');
            if (!e || e[1] != '\0')
                return mb_error_set(err, MB_EFORMAT, "%s:%d: malformed section header '%s'",
                                    p->path, line, t);
            *e = '\0';
            char *name = trim(t + 1);
            if ((rc = end_section(p, err)) != MB_OK)
                return rc;
            if (strcmp(name, "net") == 0) {
                if (p->seen_net)
                    return mb_error_set(err, MB_EFORMAT, "%s:%d: [net] given twice", p->path, line);
                p->seen_net = p->in_net = 1;
                p->net_line = line;
                continue;
            }
            int k = mb_layer_kind_find(name);
            if (k < 0)
                return mb_error_set(err, MB_EFORMAT, "%s:%d: unknown section '[%s]' (%s)",
                                    p->path, line, name, mb_layer_kind_list());
            if (!p->seen_net)
                return mb_error_set(err, MB_EFORMAT, "%s:%d: the first section must be [net]",
                                    p->path, line);
            if (p->d->n_layers > 0 && p->d->layers[p->d->n_layers - 1].type == MB_LAYER_SOFTMAX)
                return mb_error_set(err, MB_EFORMAT,
                                    "%s:%d: [%s] after [softmax] (softmax must be the last layer)",
                                    p->path, line, name);
            if (!push_layer(p, (mb_layer_type)k, line, err))
                return err ? err->status : MB_ENOMEM;
            continue;
        }
        char *eq = strchr(t, '=');
        if (!eq)
            return mb_error_set(err, MB_EFORMAT, "%s:%d: expected 'key=value' or '[section]', got '%s'",
                                p->path, line, t);
        *eq = '\0';
        char *key = trim(t), *val = trim(eq + 1);
        if (!p->seen_net)
            return mb_error_set(err, MB_EFORMAT, "%s:%d: '%s' outside a section", p->path, line, key);
        if ((rc = set_key(p, line, key, val, err)) != MB_OK)
            return rc;
    }
    if ((rc = end_section(p, err)) != MB_OK)
        return rc;
    if (!p->seen_net)
        return mb_error_set(err, MB_EFORMAT, "%s:%d: no [net] section", p->path, line > 0 ? line : 1);
    size_t n = p->d->n_layers;
    if (n == 0 || (!p->d->layer_list && p->d->layers[n - 1].type != MB_LAYER_SOFTMAX))
        return mb_error_set(err, MB_EFORMAT, "%s:%d: the last layer must be [softmax]", p->path,
                            last_line > 0 ? last_line : 1);
    return names_once(p, err);
}

/* Resolves a bare name to an existing file: data/nets/NAME.cfg from the current folder, then
 * $MBKIT_NETS/NAME.cfg, then beside the running program (the build tree's bin/../../../data/nets
 * and the installed bin/../share/mbkit/nets). */
static int resolve(const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "data/nets/%s.cfg", name);
    if (access(buf, R_OK) == 0)
        return 1;
    const char *env = getenv("MBKIT_NETS");
    if (env && *env) {
        snprintf(buf, n, "%s/%s.cfg", env, name);
        if (access(buf, R_OK) == 0)
            return 1;
    }
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            static const char *rel[] = {"../../../data/nets", "../share/mbkit/nets"};
            for (size_t i = 0; i < 2; i++) {
                snprintf(buf, n, "%s/%s/%s.cfg", exe, rel[i], name);
                if (access(buf, R_OK) == 0)
                    return 1;
            }
        }
    }
    return 0;
}

/* A bare name: no '/' and no .cfg ending (data/nets/NAME.cfg, $MBKIT_NETS/NAME.cfg, ...). */
static int is_bare(const char *name_or_path)
{
    size_t len = strlen(name_or_path);
    return !strchr(name_or_path, '/') && !(len > 4 && strcmp(name_or_path + len - 4, ".cfg") == 0);
}

const char *mb_net_desc_file(const char *name_or_path, char *buf, size_t n)
{
    if (!name_or_path || !*name_or_path)
        return NULL;
    if (!is_bare(name_or_path))
        return name_or_path;
    return strlen(name_or_path) <= 64 && resolve(name_or_path, buf, n) ? buf : NULL;
}

int mb_net_desc_overwritten(const char *flag, const char *out, const char *net, mb_error *err)
{
    char buf[PATH_MAX + 64];
    const char *file = out ? mb_net_desc_file(net, buf, sizeof buf) : NULL;
    if (!file || !mb_data_same_file(out, file))
        return 0;
    if (file == net) /* a path is named as it was given */
        mb_error_set(err, MB_EINVAL, "%s %s would overwrite --net %s", flag, out, net);
    else
        mb_error_set(err, MB_EINVAL, "%s %s would overwrite --net %s (%s)", flag, out, net, file);
    return 1;
}

int mb_net_desc_read(const char *name_or_path, mb_net_desc **desc, mb_error *err)
{
    *desc = NULL;
    char path[PATH_MAX + 64];
    size_t len = strlen(name_or_path);
    int bare = is_bare(name_or_path);
    if (len == 0)
        return mb_error_set(err, MB_EINVAL, "network: empty name");
    if (bare) {
        if (len > 64 || !resolve(name_or_path, path, sizeof path))
            return mb_error_set(err, MB_EIO,
                                "network '%s': no data/nets/%s.cfg here, in $MBKIT_NETS or installed",
                                name_or_path, name_or_path);
    } else {
        snprintf(path, sizeof path, "%s", name_or_path);
    }
    char *text = NULL;
    size_t n;
    int rc = mb_data_read_file(path, &text, &n, err);
    if (rc != MB_OK)
        return rc;
    mb_net_desc *d = calloc(1, sizeof *d);
    if (!d) {
        free(text);
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
    }
    if (strlen(path) < sizeof d->file)
        memcpy(d->file, path, strlen(path) + 1);
    parser p = {.path = path, .d = d, .act_pending = -1};
    if (strlen(text) != n)
        rc = mb_error_set(err, MB_EFORMAT, "%s: not a text file (NUL byte)", path);
    else /* a UTF-8 byte-order mark before the first line is skipped, as the CSV readers do */
        rc = parse(&p, text + (strncmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0), err);
    free(text);
    if (rc == MB_OK && !p.have_name) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        size_t bl = strlen(base);
        if (bl > 4 && strcmp(base + bl - 4, ".cfg") == 0)
            bl -= 4;
        if (bl >= sizeof d->name)
            bl = sizeof d->name - 1;
        memcpy(d->name, base, bl);
        d->name[bl] = '\0';
        if (!name_ok(d->name, ""))
            rc = mb_error_set(err, MB_EFORMAT, "%s: the net takes the file's name '%s', which "
                              "holds more than letters, digits and . _ + -: give [net] name=",
                              path, d->name);
    }
    if (rc == MB_OK) {
        mb_error inner = {0};
        rc = mb_net_desc_infer_list(d, &inner);
        if (rc != MB_OK) {
            /* "line N: rest" from the shape checks becomes "path:N: rest" */
            int ln = 0, k = 0;
            rc = rc == MB_ENOMEM ? MB_ENOMEM : MB_EFORMAT;
            if (sscanf(inner.msg, "line %d: %n", &ln, &k) == 1 && k > 0)
                mb_error_set(err, rc, "%s:%d: %s", path, ln, inner.msg + k);
            else
                mb_error_set(err, rc, "%s: %s", path, inner.msg);
        }
    }
    if (rc != MB_OK) {
        free(d->layers);
        free(d);
        return rc;
    }
    *desc = d;
    return MB_OK;
}

void mb_net_desc_free(mb_net_desc *desc)
{
    if (!desc)
        return;
    free(desc->layers);
    free(desc);
}
