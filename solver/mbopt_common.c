/* mbopt_common.c — mbopt's shared option handling: JSON output, the model flags (reading
 * --nfit, --tfit, --cfit and the flags that override them into one model), and run logs.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mbopt_cli.h"
#include "../data/mb_cli.h"
#include "../data/mb_json.h"
#include "../data/mb_output.h"
#include "../data/mb_parse.h"
#include "../data/mb_table.h"
#include "../data/mb_format.h"

int emit_json(const char *sub, cJSON *root, const out_opts *o)
{
    mb_error err = {0};
    if (!root) {
        fprintf(stderr, "%s %s: out of memory\n", prog, sub);
        return 1;
    }
    char kind[48]; /* scale and validate have their kinds; other subcommands mbopt-SUB */
    snprintf(kind, sizeof kind, "%s%s", strcmp(sub, MB_FORMAT_SCALE) == 0 ||
             strcmp(sub, MB_FORMAT_VALIDATE) == 0 ? "" : "mbopt-", sub);
    int rc = mb_format_add_json(root, kind) != MB_OK
                 ? mb_error_set(&err, MB_ENOMEM, "out of memory")
                 : mb_json_write(o->output, root, &err);
    cJSON_Delete(root);
    return rc == MB_OK ? 0 : mb_cli_fail(prog, sub, &err);
}

/* One P:SECONDS item of --delta into m->t's list. */
static int delta_item(model_opts *m, char *item, const char *arg, double *lo, mb_error *err)
{
    char *colon = strchr(item, ':');
    double p, d;
    if (!colon)
        return mb_error_set(err, MB_EINVAL, "--delta: '%s' is not P:SECONDS (in '%s')", item,
                            arg);
    *colon = '\0';
    int rc = mb_data_flag_whole("--delta (its P)", item, 0, 2, 1 << 20, &p, err);
    if (rc == MB_OK)
        rc = mb_data_flag_double("--delta", colon + 1, 0, MB_NONNEG, &d, err);
    if (rc != MB_OK)
        return MB_EINVAL;
    for (size_t k = 0; k < m->t.n_pdelta; k++)
        if (m->t.pdelta_p[k] == p)
            return mb_error_set(err, MB_EINVAL, "--delta: P = %g given twice", p);
    if (m->t.n_pdelta == MB_MODEL_PDELTAS)
        return mb_error_set(err, MB_EINVAL, "--delta: at most %d learner counts",
                            MB_MODEL_PDELTAS);
    m->t.pdelta_p[m->t.n_pdelta] = p;
    m->t.pdelta[m->t.n_pdelta++] = d;
    if (p < *lo)
        *lo = p, m->t.delta = d;
    return MB_OK;
}

/* --delta S (one Delta for every P > 1) or --delta P:S,P:S,... (Delta(P) measured at each P,
 * mbopt validate --comm-from-runs with runs at several P): the list into m->t.pdelta, the
 * smallest P's as m->t.delta. */
static int delta_flag(model_opts *m, const char *arg, mb_error *err)
{
    m->t.n_pdelta = 0;
    if (!strchr(arg, ':'))
        return mb_data_flag_double("--delta", arg, 0, MB_NONNEG, &m->t.delta, err);
    /* the one list splitter: an empty item ("2:0.1,") is refused there */
    char **items;
    size_t n;
    if (mb_data_split_list(arg, "--delta", 0, &items, &n, err) != MB_OK)
        return MB_EINVAL;
    double lo = INFINITY;
    int rc = MB_OK;
    for (size_t i = 0; rc == MB_OK && i < n; i++)
        rc = delta_item(m, items[i], arg, &lo, err);
    free(items);
    return rc;
}

int model_check_procs(const model_opts *m, const double *p, size_t n, const char *what,
                      mb_error *err)
{
    if (m->t.n_pdelta == 0 || m->t.comm == MB_COMM_NONE || m->t.comm == MB_COMM_ALPHA_BETA)
        return MB_OK;
    for (size_t i = 0; i < n; i++) {
        double d;
        if (p[i] > 1 && mb_model_comm_time(&m->t, p[i], &d) != MB_OK) {
            char have[160];
            size_t k = 0;
            have[0] = '\0';
            for (size_t j = 0; j < m->t.n_pdelta && k < sizeof have - 16; j++)
                k += (size_t)snprintf(have + k, sizeof have - k, "%s%g", j ? ", " : "",
                                      m->t.pdelta_p[j]);
            return mb_error_set(err, MB_EINVAL, "%s asks for P = %g, but --delta measured "
                                "Delta(P) at P = %s only: train runs at P = %g (mbopt validate "
                                "--comm-from-runs) or leave it out", what, p[i], have, p[i]);
        }
    }
    return MB_OK;
}

/* The run log of folder `dir` (its *.csv, as collect_logs reads it) that writing `output` would
 * overwrite, compared by device and inode as mbfit compares its inputs (mb_data_same_file: a
 * hard link outside the folder counts, campaign 19's M1), into hit; 0 when none. */
static int over_folder_log(const char *output, const char *dir, char *hit, size_t n)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return 0;
    char pat[4096];
    snprintf(pat, sizeof pat, "%s/*.csv", dir);
    glob_t g;
    int found = 0;
    if (glob(pat, 0, NULL, &g) == 0)
        for (size_t i = 0; !found && i < g.gl_pathc; i++)
            if (mb_data_same_file(output, g.gl_pathv[i])) {
                snprintf(hit, n, "%s", g.gl_pathv[i]);
                found = 1;
            }
    globfree(&g);
    return found;
}

int output_over_inputs(const char *output, const model_opts *m, int argc, char *const *argv,
                       mb_error *err)
{
    const char *in[MAX_NFIT + 2];
    size_t n = 0;
    for (size_t i = 0; m && i < m->n_nfit; i++)
        in[n++] = m->nfits[i];
    if (m && m->tfit)
        in[n++] = m->tfit;
    if (m && m->cfit)
        in[n++] = m->cfit;
    for (int k = -(int)n; k < argc; k++) {
        const char *path = k < 0 ? in[n + (size_t)k] : argv[k];
        char log[4096];
        if (output && path && (mb_data_same_file(output, path) ||
                                mb_data_in_folder(output, path, ".csv")))
            return mb_error_set(err, MB_EINVAL, "-o %s would overwrite the input %s", output,
                                path);
        if (output && path && over_folder_log(output, path, log, sizeof log))
            return mb_error_set(err, MB_EINVAL, "-o %s would overwrite the input %s (a link to "
                                "it)", output, log);
    }
    return MB_OK;
}

const char *fmt(char *buf, size_t n, const char *f, double v)
{
    if (!isfinite(v)) /* not a result: NaN, or inf from a ratio over nothing */
        snprintf(buf, n, "-");
    else /* the value --json writes, which mbplot formats again (campaign 41's B-F3) */
        snprintf(buf, n, f, mb_json_written(v));
    return buf;
}

int model_option(model_opts *m, int c, const char *arg, mb_error *err)
{
    int rc = MB_OK;
    switch (c) {
    case OPT_N_INF: rc = mb_data_flag_double("--n-inf", arg, 0, MB_POSITIVE, &m->law.n_inf, err);
        m->have_n_inf = 1; break;
    case OPT_ALPHA: rc = mb_data_flag_double("--alpha", arg, 0, MB_NONNEG, &m->law.a, err);
        m->have_alpha = 1; break;
    case OPT_T0: rc = mb_data_flag_double("--t0", arg, 0, MB_NONNEG, &m->t.t0, err);
        m->have_t0 = 1; break;
    case OPT_LAW: {
        mb_law_kind k;
        if (mb_model_law_parse(arg, &k) != MB_OK)
            rc = mb_error_set(err, MB_EINVAL, "--law: '%s' is not " MB_MODEL_LAW_NAMES, arg);
        m->law_name = arg;
        break;
    }
    case OPT_RANGE: { /* the ends as given (not a doubling range: 8:48 searches up to 48) */
        char lo[64], hi[64];
        const char *colon = strchr(arg, ':');
        double a = 0, b = 0;
        if (!colon || (size_t)(colon - arg) >= sizeof lo || strlen(colon + 1) >= sizeof hi) {
            rc = mb_error_set(err, MB_EINVAL, "--batch-range: '%s' is not LO:HI", arg);
            break;
        }
        snprintf(lo, sizeof lo, "%.*s", (int)(colon - arg), arg);
        snprintf(hi, sizeof hi, "%s", colon + 1);
        /* mini-batch sizes in digits, as --batch (campaign 23's R14: 1e1 was read as 10) */
        if ((rc = mb_data_flag_whole("--batch-range", lo, 0, 1, MB_DATA_RANGE_MAX, &a, err)) == MB_OK &&
            (rc = mb_data_flag_whole("--batch-range", hi, 0, 1, MB_DATA_RANGE_MAX, &b, err)) == MB_OK &&
            !(b >= a))
            rc = mb_error_set(err, MB_EINVAL, "--batch-range: '%s' is not LO:HI with LO <= HI",
                              arg);
        if (rc == MB_OK)
            m->m_lo = a, m->m_hi = b, m->have_range = 1;
        break;
    }
    case OPT_EXTRAPOLATE: m->extrapolate = 1; break;
    case OPT_GAMMA: rc = mb_data_flag_double("--gamma", arg, 0, MB_POSITIVE, &m->t.gamma, err);
        m->have_gamma = 1; break;
    case OPT_M_T: rc = mb_data_flag_double("--m-t", arg, 1, MB_POSITIVE, &m->t.m_t, err);
        /* a mini-batch size (the knee): past 2^53 samples the search's range overflowed and
         * the refusal blamed P = 2 (campaign 19's M4) */
        if (rc == MB_OK && m->t.m_t > MB_DATA_RANGE_MAX)
            rc = mb_error_set(err, MB_EINVAL, "--m-t: %g samples is past 2^53: no mini-batch "
                              "size (M_T is where the step stops being flat)", m->t.m_t);
        m->have_m_t = 1; break;
    case OPT_DELTA: rc = delta_flag(m, arg, err); m->have_delta = 1; break;
    case OPT_LATENCY:
        rc = mb_data_flag_double("--latency", arg, 0, MB_NONNEG, &m->t.latency_s, err);
        m->have_latency = 1; break;
    case OPT_SPB: rc = mb_data_flag_double("--s-per-byte", arg, 0, MB_NONNEG, &m->t.s_per_byte, err);
        m->have_spb = 1; break;
    case OPT_BYTES: /* 0 bytes exchanged is no alpha-beta model (issue #25, H14) */
        rc = mb_data_flag_whole("--bytes", arg, 1, 1, MB_DATA_RANGE_MAX, &m->t.bytes, err);
        m->have_bytes = 1; break;
    case OPT_COMM:
        if (mb_model_comm_parse(arg, &m->t.comm) != MB_OK)
            rc = mb_error_set(err, MB_EINVAL,
                              "--comm: '%s' is not one of none, allreduce, ps, alpha-beta", arg);
        m->have_comm = 1;
        break;
    case OPT_NFIT:
        if (m->n_nfit == MAX_NFIT)
            rc = mb_error_set(err, MB_EINVAL, "--nfit: at most %d files (one per learning rate)",
                              MAX_NFIT);
        else
            m->nfits[m->n_nfit++] = m->nfit = arg;
        break;
    case OPT_TFIT: m->tfit = arg; break;
    case OPT_CFIT: m->cfit = arg; break;
    default: return 0;
    }
    return rc == MB_OK ? 1 : -1;
}

void model_select(model_opts *m, size_t i)
{
    if (i < m->n_nfit) {
        m->nfit = m->nfits[i];
        m->nf = m->nfs[i];
        m->law = m->nf.law;
    }
    if (m->extrapolate || (!m->have_range && isnan(m->nf.m_lo)))
        m->m_lo = 1.0, m->m_hi = INFINITY;
    else if (!m->have_range)
        m->m_lo = m->nf.m_lo, m->m_hi = m->nf.m_hi;
}

/* A communication flag the chosen form does not read is refused, not ignored (issue #25, H8):
 * --delta goes with allreduce and ps, --latency, --s-per-byte, --bytes and --cfit with
 * alpha-beta (campaign 9, L14: --cfit with --comm none was read and not used). */
static int comm_flags_used(const model_opts *flags, mb_comm comm, mb_error *err)
{
    const char *form = mb_model_comm_name(comm);
    const char *dflt = flags->have_comm && !flags->comm_implied ? "" : " (the default)";
    if (flags->have_delta && comm != MB_COMM_ALLREDUCE && comm != MB_COMM_PS)
        return mb_error_set(err, MB_EUSAGE, "--delta has no effect with --comm %s%s: it goes "
                            "with allreduce or ps", form, dflt);
    const char *ab = flags->have_latency ? "--latency" : flags->have_spb ? "--s-per-byte"
                   : flags->have_bytes ? "--bytes" : flags->cfit ? "--cfit" : NULL;
    if (ab && comm != MB_COMM_ALPHA_BETA)
        return mb_error_set(err, MB_EUSAGE, "%s has no effect with --comm %s%s: it goes with "
                            "alpha-beta", ab, form, dflt);
    return MB_OK;
}

int model_same_workload(const char *what, const char *path, const char *v, char *ref,
                         size_t n, const char **ref_from, mb_error *err)
{
    if (!*v)
        return MB_OK;
    if (!*ref_from) {
        snprintf(ref, n, "%s", v);
        *ref_from = path;
        return MB_OK;
    }
    if (strcmp(v, ref) == 0)
        return MB_OK;
    return mb_error_set(err, MB_EINVAL, "%s: %s '%s', but %s's is '%s': give the fits of one "
                        "workload", path, what, v, *ref_from, ref);
}

/* Every --nfit and the --tfit of one network and data set, where they say (model_opts.net). */
static int fits_workload(model_opts *m, mb_error *err)
{
    int rc = MB_OK;
    m->net[0] = m->data[0] = '\0';
    m->net_from = m->data_from = NULL;
    for (size_t i = 0; i <= m->n_nfit && rc == MB_OK; i++) {
        const char *path = i < m->n_nfit ? m->nfits[i] : m->tfit;
        if (!path)
            break;
        const char *net = i < m->n_nfit ? m->nfs[i].net : m->tcal.net;
        const char *data = i < m->n_nfit ? m->nfs[i].data : m->tcal.data;
        if ((rc = model_same_workload("net", path, net, m->net, sizeof m->net, &m->net_from, err)) ==
            MB_OK)
            rc = model_same_workload("data", path, data, m->data, sizeof m->data, &m->data_from,
                               err);
    }
    return rc;
}

int model_resolve(model_opts *m, mb_error *err)
{
    model_opts flags = *m;
    int rc;
    m->law.kind = MB_LAW_INVERSE;
    m->law.b = 1.0;
    m->nf.m_lo = m->nf.m_hi = m->nf.m_diverged = m->nf.target_loss = m->nf.lr = NAN;
    for (size_t i = 0; i < m->n_nfit; i++) {
        if ((rc = mb_solver_read_nfit(m->nfits[i], m->law_name, &m->nfs[i], err)) != MB_OK)
            return rc;
        /* several fits are several learning rates of one job: each must say its own */
        for (size_t j = 0; m->n_nfit > 1 && j <= i; j++)
            if (isnan(m->nfs[i].lr) || (j < i && mb_solver_same_rate(m->nfs[j].lr,
                                                                     m->nfs[i].lr)))
                return mb_error_set(err, MB_EINVAL,
                                    "%s: %s; several --nfit must be fits of different learning "
                                    "rates (mbfit nupdate --lr RATE)",
                                    m->nfits[i], isnan(m->nfs[i].lr) ? "no 'lr'" :
                                    "the same lr as another --nfit");
        if (i > 0 && !(m->nfs[i].target_loss == m->nfs[0].target_loss ||
                       (isnan(m->nfs[i].target_loss) && isnan(m->nfs[0].target_loss))))
            return mb_error_set(err, MB_EINVAL, "%s: target loss %g, but %s's is %g: compare "
                                                "learning rates at one target", m->nfits[i],
                                m->nfs[i].target_loss, m->nfits[0], m->nfs[0].target_loss);
    }
    if (m->n_nfit) {
        m->nf = m->nfs[0];
        m->nfit = m->nfits[0];
        m->law = m->nf.law;
    } else if (m->law_name) {
        return mb_error_set(err, MB_EUSAGE, "--law needs --nfit");
    }
    int file_delta = 0;
    if (m->tfit &&
        (rc = mb_solver_read_tfit_cal(m->tfit, &m->t, &file_delta, &m->tcal, err)) != MB_OK)
        return rc;
    if (m->cfit && (rc = mb_solver_read_cfit(m->cfit, &m->t, err)) != MB_OK)
        return rc;
    if ((rc = fits_workload(m, err)) != MB_OK)
        return rc;
    /* --n-inf and --alpha are the law without --nfit (mb_cli_getopt refuses both together) */
    if ((flags.have_n_inf || flags.have_alpha) && m->n_nfit)
        return mb_error_set(err, MB_EUSAGE, "give --nfit or --n-inf and --alpha, not both");
    if (flags.have_n_inf) m->law.n_inf = flags.law.n_inf;
    if (flags.have_alpha) m->law.a = flags.law.a;
    if (flags.have_t0) m->t.t0 = flags.t.t0;
    if (flags.have_gamma || flags.have_m_t || flags.have_t0) {
        m->t.n_table = m->t.n_by_p = 0; /* the closed form was asked for: it replaces the
                                           measured tables */
        m->tcal.on = 0;
    }
    if (flags.have_gamma) m->t.gamma = flags.t.gamma;
    if (flags.have_m_t) m->t.m_t = flags.t.m_t;
    if (flags.have_delta) {
        m->t.delta = flags.t.delta;
        m->t.n_pdelta = flags.t.n_pdelta;
        memcpy(m->t.pdelta_p, flags.t.pdelta_p, sizeof m->t.pdelta_p);
        memcpy(m->t.pdelta, flags.t.pdelta, sizeof m->t.pdelta);
    }
    if (flags.have_latency) m->t.latency_s = flags.t.latency_s;
    if (flags.have_spb) m->t.s_per_byte = flags.t.s_per_byte;
    if (!flags.have_comm)
        m->t.comm = m->cfit ? MB_COMM_ALPHA_BETA : MB_COMM_ALLREDUCE;
    if ((rc = comm_flags_used(&flags, m->t.comm, err)) != MB_OK)
        return rc;

    if (!m->nfit && !flags.have_n_inf)
        return mb_error_set(err, MB_EUSAGE, "N_inf unknown: give --n-inf or --nfit");
    if (!m->nfit && !flags.have_alpha)
        return mb_error_set(err, MB_EUSAGE, "alpha unknown: give --alpha or --nfit");
    if (!m->tfit && !flags.have_gamma)
        return mb_error_set(err, MB_EUSAGE, "gamma unknown: give --gamma or --tfit");
    if (!m->tfit && !flags.have_m_t)
        return mb_error_set(err, MB_EUSAGE, "M_T unknown: give --m-t or --tfit");
    if ((m->t.comm == MB_COMM_ALLREDUCE || m->t.comm == MB_COMM_PS) && !flags.have_delta &&
        !file_delta)
        return mb_error_set(err, MB_EUSAGE, m->t.n_by_p
                            ? "delta unknown: --tfit's P > 1 rows time the learners' compute "
                              "side by side, not their communication: give --delta, --cfit or "
                              "--comm none"
                            : "delta unknown: give --delta (or a --tfit with delta)");
    if (m->t.comm == MB_COMM_ALPHA_BETA && !m->cfit && !(flags.have_latency && flags.have_spb))
        return mb_error_set(err, MB_EUSAGE,
                            "alpha-beta needs --cfit or both --latency and --s-per-byte");
    if (m->t.comm == MB_COMM_ALPHA_BETA && !(m->t.bytes > 0))
        return mb_error_set(err, MB_EUSAGE, "alpha-beta needs --bytes, the bytes exchanged per "
                            "update (the parameters' size)");
    if (m->extrapolate && m->have_range)
        return mb_error_set(err, MB_EUSAGE, "--extrapolate and --batch-range: give one");
    rc = MB_OK;
    for (size_t i = m->n_nfit ? m->n_nfit : 1; i-- > 0 && rc == MB_OK;) { /* ends on the first */
        model_select(m, i);
        rc = mb_solver_check_models(&m->law, &m->t, err);
    }
    return rc;
}

const char *range_source(const model_opts *m)
{
    if (m->have_range)
        return "--batch-range";
    if (!isfinite(m->m_hi))
        return m->extrapolate ? "--extrapolate" : "no converged range in the fit";
    return "the runs that reached the target";
}

cJSON *model_json(const model_opts *m)
{
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    cJSON_AddStringToObject(j, "law", mb_model_law_name(m->law.kind));
    cJSON_AddStringToObject(j, "law_why", m->nfit ? m->nf.why : "given with --n-inf, --alpha");
    mb_solver_law_json(j, &m->law);
    mb_json_add_number(j, "gamma", m->t.gamma);
    mb_json_add_count(j, "m_t", m->t.m_t);
    mb_json_add_number(j, "t0", m->t.t0);
    if (m->t.n_table >= 2) {
        cJSON *tab = cJSON_AddArrayToObject(j, "t_table");
        for (size_t i = 0; tab && i < m->t.n_table; i++) {
            cJSON *pt = cJSON_CreateArray();
            cJSON_AddItemToArray(pt, cJSON_CreateNumber(m->t.table_m[i]));
            cJSON_AddItemToArray(pt, cJSON_CreateNumber(m->t.table_t[i]));
            cJSON_AddItemToArray(tab, pt);
        }
        cJSON_AddStringToObject(j, "t_source", m->tcal.on ? "runs' seconds per update, the "
                                "probe's step beyond" : "the probe's step");
    }
    cJSON *byp = m->t.n_by_p ? cJSON_AddArrayToObject(j, "t_tables_by_p") : NULL;
    for (size_t k = 0; byp && k < m->t.n_by_p; k++) {
        const mb_step_table *s = &m->t.by_p[k];
        cJSON *o = cJSON_CreateObject(), *pts = cJSON_AddArrayToObject(o, "points");
        mb_json_add_number(o, "learners", s->p);
        if (s->runs > 0) { /* the runs' own seconds per update there: Delta(P) inside */
            mb_json_add_number(o, "runs", s->runs);
            mb_json_add_number(o, "run_lo", s->run_lo);
            mb_json_add_number(o, "run_hi", s->run_hi);
        }
        for (size_t i = 0; pts && i < s->n; i++) {
            cJSON *pt = cJSON_CreateArray();
            cJSON_AddItemToArray(pt, cJSON_CreateNumber(s->m[i]));
            cJSON_AddItemToArray(pt, cJSON_CreateNumber(s->t[i]));
            cJSON_AddItemToArray(pts, pt);
        }
        cJSON_AddItemToArray(byp, o);
    }
    mb_json_add_count(j, "m_lo", m->m_lo);
    mb_json_add_count(j, "m_hi", isfinite(m->m_hi) ? m->m_hi : NAN);
    cJSON_AddStringToObject(j, "range_source", range_source(m));
    cJSON_AddStringToObject(j, "comm", mb_model_comm_name(m->t.comm));
    if (m->t.comm == MB_COMM_ALPHA_BETA) {
        mb_json_add_number(j, "latency_s", m->t.latency_s);
        mb_json_add_number(j, "s_per_byte", m->t.s_per_byte);
        mb_json_add_number(j, "bytes", m->t.bytes);
    } else if (m->t.comm != MB_COMM_NONE) {
        mb_json_add_number(j, "delta", m->t.delta);
        if (m->t.n_pdelta > 0) {
            cJSON *a = cJSON_AddArrayToObject(j, "delta_by_procs");
            for (size_t k = 0; a && k < m->t.n_pdelta; k++) {
                cJSON *o = cJSON_CreateObject();
                mb_json_add_number(o, "procs", m->t.pdelta_p[k]);
                mb_json_add_number(o, "delta", m->t.pdelta[k]);
                cJSON_AddItemToArray(a, o);
            }
        }
    }
    return j;
}

void model_print(FILE *f, const model_opts *m)
{
    if (m->law.kind == MB_LAW_INVERSE)
        fprintf(f, "# N_update(M) = %.6g + %.6g / M (inverse law: %s)\n", m->law.n_inf, m->law.a,
                m->nfit ? m->nf.why : "given");
    else if (m->law.kind == MB_LAW_SHIFTED)
        fprintf(f, "# N_update(M) = %.6g + %.6g / (M - %.4g) (shifted inverse law: %s)\n",
                m->law.n_inf, m->law.a, m->law.m0, m->nf.why);
    else
        fprintf(f, "# N_update(M) = %.6g + %.6g M^-%.4g (power law: %s)\n", m->law.n_inf, m->law.a,
                m->law.b, m->nf.why);
    if (m->tcal.on)
        fprintf(f, "# T_update(M,P) = the runs' seconds per update at M/P = %g .. %g (%.0f runs; "
                   "the probe's step beyond, scaled by %.3g below and %.3g above; explained by "
                   "%.6g s * max(M/P, %.6g) + %.6g s) + Delta(P), Delta: ",
                m->tcal.m_lo, m->tcal.m_hi, m->tcal.runs, m->tcal.scale_below,
                m->tcal.scale_above, m->t.gamma, m->t.m_t, m->t.t0);
    else if (m->t.n_table >= 2)
        fprintf(f, "# T_update(M,P) = the measured step at M/P (%zu points, M/P = %g .. %g; "
                   "explained by %.6g s * max(M/P, %.6g) + %.6g s) + Delta(P), Delta: ",
                m->t.n_table, m->t.table_m[0], m->t.table_m[m->t.n_table - 1], m->t.gamma,
                m->t.m_t, m->t.t0);
    else
        fprintf(f, "# T_update(M,P) = %.6g s * max(M/P, %.6g) + %.6g s + Delta(P), Delta: ",
                m->t.gamma, m->t.m_t, m->t.t0);
    if (m->t.n_pdelta > 0 && (m->t.comm == MB_COMM_ALLREDUCE || m->t.comm == MB_COMM_PS)) {
        fprintf(f, "measured per P:");
        for (size_t k = 0; k < m->t.n_pdelta; k++)
            fprintf(f, "%s P = %g: %.6g s", k ? "," : "", m->t.pdelta_p[k], m->t.pdelta[k]);
        fprintf(f, "\n");
    } else switch (m->t.comm) {
    case MB_COMM_NONE: fprintf(f, "none\n"); break;
    case MB_COMM_ALLREDUCE: fprintf(f, "allreduce, %.6g s for P > 1\n", m->t.delta); break;
    case MB_COMM_PS: fprintf(f, "parameter server, %.6g s * P\n", m->t.delta); break;
    case MB_COMM_ALPHA_BETA:
        fprintf(f, "ring allreduce of %.6g bytes, %.6g s/message, %.6g s/byte\n", m->t.bytes,
                m->t.latency_s, m->t.s_per_byte);
        break;
    }
    for (size_t k = 0; k < m->t.n_by_p; k++) {
        const mb_step_table *s = &m->t.by_p[k];
        if (s->runs > 0)
            fprintf(f, "#   at P = %g T_update is the runs' own seconds per update at M/P = %g "
                       ".. %g (%.0f runs of %g learners: communication included, Delta(%g) not "
                       "added), the probe's step of %g learners side by side beyond, scaled\n",
                    s->p, s->run_lo, s->run_hi, s->runs, s->p, s->p, s->p);
        else
            fprintf(f, "#   at P = %g the compute part is the measured step of %g learners side "
                       "by side on one host (%zu points, M/P = %g .. %g), not the one-learner "
                       "table\n", s->p, s->p, s->n, s->m[0], s->m[s->n - 1]);
    }
}

/* ---- run logs: the ground truth, shared by scale and validate ------------------------------ */

int folders_have_logs(const char *flag, char **dirs, size_t n, mb_error *err)
{
    for (size_t i = 0; i < n; i++) {
        glob_t one;
        if (collect_logs(1, &dirs[i], &one, err) != MB_OK)
            return mb_error_set(err, MB_ENODATA, "%s %s: no run logs (*.csv)", flag, dirs[i]);
        globfree(&one);
    }
    return MB_OK;
}

int collect_logs(int argc, char **argv, glob_t *g, mb_error *err)
{
    memset(g, 0, sizeof *g);
    int flags = 0;
    for (int i = 0; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0)
            return mb_error_set(err, MB_EIO, "%s: %s", argv[i], strerror(errno));
        char pat[4096];
        if (S_ISDIR(st.st_mode))
            snprintf(pat, sizeof pat, "%s/*.csv", argv[i]);
        else
            snprintf(pat, sizeof pat, "%s", argv[i]);
        int rc = glob(pat, flags | GLOB_NOCHECK * !S_ISDIR(st.st_mode), NULL, g);
        if (rc != 0 && rc != GLOB_NOMATCH)
            return mb_error_set(err, MB_ENOMEM, "out of memory listing %s", argv[i]);
        flags = GLOB_APPEND;
    }
    if (g->gl_pathc == 0)
        return mb_error_set(err, MB_ENODATA, "no run logs (*.csv) in %s", argv[0]);
    return MB_OK;
}

size_t model_laws(const model_opts *m, mb_law *laws, double *lrs)
{
    const size_t n = m->n_nfit ? m->n_nfit : 1;
    for (size_t i = 0; i < n; i++) {
        laws[i] = m->n_nfit ? m->nfs[i].law : m->law;
        lrs[i] = m->n_nfit ? m->nfs[i].lr : NAN;
    }
    return n;
}

/* Whether run i is of the algorithm fit f was made of (campaign 16, S7: runs of adam graded
 * and settled a fit of sgd runs). At the fit's learner count, its `# algo=`; at another, where
 * the fit is of one learner's runs (its algo an optimiser: sgd, momentum, nesterov), a parallel
 * run's optimiser, `# optim=` (sgd-sync's P learners compute one learner's updates on M; make
 * run's runs/ holds momentum at P = 1 and sgd-sync with --optim momentum beside it). A fit of
 * parallel runs against runs at another P, or a fit that does not say, is not checked; a log
 * without `# algo=` (hand-made) only goes with a fit that does not say either (campaign 17, F4:
 * such logs graded and settled a fit of sgd runs). */
static int run_of_fit(const mb_solver_nfit *f, const mb_fit_runs *runs, size_t i,
                      const char **key, const char **val)
{
    const double fp = isnan(f->procs) ? 1.0 : f->procs;
    *key = "algo", *val = runs->algo[i];
    if (!f->algo[0])
        return 1;
    if (!runs->algo[i][0])
        return 0;
    if (runs->procs[i] == fp)
        return strcmp(runs->algo[i], f->algo) == 0;
    *key = "optim", *val = runs->optim[i];
    return fp != 1 || !runs->optim[i][0] || strcmp(runs->optim[i], f->algo) == 0;
}

/* Every run of `runs` (paths) is of an algorithm one of m's fits was made of (run_of_fit). */
static int runs_of_fits(const model_opts *m, const mb_fit_runs *runs, const char *const *paths,
                        mb_error *err)
{
    for (size_t i = 0; i < runs->n; i++) {
        const char *key = "", *val = "";
        int ok = m->n_nfit == 0;
        for (size_t k = 0; k < m->n_nfit && !ok; k++)
            ok = run_of_fit(&m->nfs[k], runs, i, &key, &val);
        if (!ok && !runs->algo[i][0])
            return mb_error_set(err, MB_EINVAL, "%s: metadata 'algo': missing, but %s fits runs "
                                "of %s: a log that does not say its algorithm cannot grade or "
                                "settle it", paths[i], m->nfits[0], m->nfs[0].algo);
        if (!ok)
            return mb_error_set(err, MB_EINVAL, "%s: metadata '%s': '%s' (P = %g), but %s fits "
                                "runs of %s at P = %g: another algorithm's N_update cannot "
                                "grade or settle it", paths[i], key, val, runs->procs[i],
                                m->nfits[0], m->nfs[0].algo,
                                isnan(m->nfs[0].procs) ? 1.0 : m->nfs[0].procs);
    }
    return MB_OK;
}

/* Every run of `runs` (paths) trained the fits' network and data set, where both say
 * (campaign 21, N4: runs of alexnet graded a fit of lenet5). */
static int runs_of_workload(const model_opts *m, const mb_fit_runs *runs,
                            const char *const *paths, mb_error *err)
{
    for (size_t i = 0; i < runs->n; i++) {
        const char *data = mb_fit_runs_setting(runs, i, "data");
        if (m->net_from && runs->net[i][0] && strcmp(runs->net[i], m->net) != 0)
            return mb_error_set(err, MB_EINVAL, "%s: metadata 'net': '%s', but %s fits net "
                                "'%s': runs of another network cannot grade or settle it",
                                paths[i], runs->net[i], m->net_from, m->net);
        if (m->data_from && *data && strcmp(data, m->data) != 0)
            return mb_error_set(err, MB_EINVAL, "%s: metadata 'data': '%s', but %s fits data "
                                "'%s': runs of another data set cannot grade or settle it",
                                paths[i], data, m->data_from, m->data);
    }
    return MB_OK;
}

int read_runs(const model_opts *m, int argc, char **argv, double target, glob_t *g,
              mb_fit_runs *runs, mb_error *err)
{
    memset(runs, 0, sizeof *runs);
    int rc = collect_logs(argc, argv, g, err);
    if (rc == MB_OK && isnan(target))
        rc = mb_error_set(err, MB_EUSAGE, "run logs given but no target loss to read them at: "
                          "give --nfit (its target_loss)");
    if (rc == MB_OK)
        rc = mb_fit_runs_read_logs((const char *const *)g->gl_pathv, g->gl_pathc, &target, 1, 1,
                                   runs, err);
    if (rc == MB_OK)
        rc = runs_of_fits(m, runs, (const char *const *)g->gl_pathv, err);
    if (rc == MB_OK)
        rc = runs_of_workload(m, runs, (const char *const *)g->gl_pathv, err);
    /* trained alike, as mbfit's runs are (campaign 31's N2: another momentum, weight decay,
     * network size or data seed graded and settled a fit); eval_frac may differ (make run's
     * P = 2 and held-out runs evaluate on another fraction than its calibration runs) */
    if (rc == MB_OK)
        rc = mb_fit_runs_trained_as(runs, (const char *const *)g->gl_pathv, runs,
                                    (const char *const *)g->gl_pathv, NULL, "eval_frac",
                                    "runs that grade or settle a fit must be trained alike, on "
                                    "one backend and device, whose wall times the fit's T_C is "
                                    "(only batch, seed, learners, lr and eval_frac may differ)",
                                    err);
    return rc;
}

