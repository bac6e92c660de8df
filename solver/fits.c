/* fits.c — reads the model parameters that mbfit writes (DESIGN.md, "Fits": an object whose
 * `params` maps parameter names to values) into the structs of mb_model.h.
 */
#include "mb_solver.h"

#include <math.h>

/* Opens `path` and returns its `params` object (and the root, for cJSON_Delete). */
static int read_params(const char *path, cJSON **root, const cJSON **params, mb_error *err)
{
    int rc = mb_json_read(path, root, err);
    if (rc != MB_OK)
        return rc;
    *params = cJSON_GetObjectItemCaseSensitive(*root, "params");
    if (!cJSON_IsObject(*params)) {
        cJSON_Delete(*root);
        *root = NULL;
        return mb_error_set(err, MB_EFORMAT, "%s: no 'params' object (is this an mbfit --json file?)",
                            path);
    }
    return MB_OK;
}

int mb_solver_read_nfit(const char *path, mb_inverse_law *law, mb_error *err)
{
    cJSON *root;
    const cJSON *params;
    int rc = read_params(path, &root, &params, err);
    if (rc != MB_OK)
        return rc;
    mb_inverse_law l;
    if ((rc = mb_json_number(params, "n_inf", path, &l.n_inf, err)) == MB_OK &&
        (rc = mb_json_number(params, "alpha", path, &l.alpha, err)) == MB_OK)
        *law = l;
    cJSON_Delete(root);
    return rc;
}

/* The smallest learner count above 1 in a tupdate fit's by_learners, and its params. */
static const cJSON *first_multi_learner(const cJSON *root)
{
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(root, "by_learners"), *e, *best = NULL;
    double best_p = INFINITY;
    cJSON_ArrayForEach(e, by)
    {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(e, "learners");
        if (cJSON_IsNumber(l) && l->valuedouble > 1 && l->valuedouble < best_p) {
            best_p = l->valuedouble;
            best = e;
        }
    }
    return best ? cJSON_GetObjectItemCaseSensitive(best, "params") : NULL;
}

int mb_solver_read_tfit(const char *path, mb_update_time *t, int *has_delta, mb_error *err)
{
    cJSON *root;
    const cJSON *params;
    int rc = read_params(path, &root, &params, err);
    if (rc != MB_OK)
        return rc;
    double gamma, m_t, delta = 0.0;
    *has_delta = 0;
    if ((rc = mb_json_number(params, "gamma", path, &gamma, err)) == MB_OK &&
        (rc = mb_json_number(params, "m_t", path, &m_t, err)) == MB_OK &&
        cJSON_GetObjectItemCaseSensitive(params, "delta") &&
        (rc = mb_json_number(params, "delta", path, &delta, err)) == MB_OK) {
        const cJSON *learners = cJSON_GetObjectItemCaseSensitive(root, "learners");
        if (!learners) {
            *has_delta = 1; /* a plain parameter file: delta is the communication time */
        } else if (cJSON_IsNumber(learners) && learners->valuedouble == 1) {
            const cJSON *multi = first_multi_learner(root);
            double d_multi;
            if (multi && (rc = mb_json_number(multi, "delta", path, &d_multi, err)) == MB_OK) {
                delta = fmax(0.0, d_multi - delta);
                *has_delta = 1;
            }
        }
    }
    if (rc == MB_OK) {
        t->gamma = gamma;
        t->m_t = m_t;
        if (*has_delta)
            t->delta = delta;
    }
    cJSON_Delete(root);
    return rc;
}

int mb_solver_read_cfit(const char *path, mb_update_time *t, mb_error *err)
{
    cJSON *root;
    const cJSON *params;
    int rc = read_params(path, &root, &params, err);
    if (rc != MB_OK)
        return rc;
    double a, b;
    if ((rc = mb_json_number(params, "latency_s", path, &a, err)) == MB_OK &&
        (rc = mb_json_number(params, "s_per_byte", path, &b, err)) == MB_OK) {
        t->latency_s = a;
        t->s_per_byte = b;
    }
    cJSON_Delete(root);
    return rc;
}

int mb_solver_read_model(const cJSON *model, const char *path, mb_inverse_law *law,
                         mb_update_time *t, mb_error *err)
{
    if (!cJSON_IsObject(model))
        return mb_error_set(err, MB_EFORMAT, "%s: no 'model' object (is this mbopt scale --json?)",
                            path);
    mb_inverse_law l;
    mb_update_time u = {0};
    int rc;
    if ((rc = mb_json_number(model, "n_inf", path, &l.n_inf, err)) != MB_OK ||
        (rc = mb_json_number(model, "alpha", path, &l.alpha, err)) != MB_OK ||
        (rc = mb_json_number(model, "gamma", path, &u.gamma, err)) != MB_OK ||
        (rc = mb_json_number(model, "m_t", path, &u.m_t, err)) != MB_OK)
        return rc;
    const cJSON *comm = cJSON_GetObjectItemCaseSensitive(model, "comm");
    if (!cJSON_IsString(comm) || mb_model_comm_parse(comm->valuestring, &u.comm) != MB_OK)
        return mb_error_set(err, MB_EFORMAT, "%s: 'comm' is not one of none, allreduce, ps, "
                                             "alpha-beta", path);
    if (u.comm == MB_COMM_ALLREDUCE || u.comm == MB_COMM_PS)
        rc = mb_json_number(model, "delta", path, &u.delta, err);
    else if (u.comm == MB_COMM_ALPHA_BETA &&
             ((rc = mb_json_number(model, "latency_s", path, &u.latency_s, err)) != MB_OK ||
              (rc = mb_json_number(model, "s_per_byte", path, &u.s_per_byte, err)) != MB_OK))
        return rc;
    else if (u.comm == MB_COMM_ALPHA_BETA)
        rc = mb_json_number(model, "bytes", path, &u.bytes, err);
    if (rc != MB_OK)
        return rc;
    if ((rc = mb_solver_check_models(&l, &u, err)) != MB_OK)
        return rc;
    *law = l;
    *t = u;
    return MB_OK;
}
