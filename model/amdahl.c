/* amdahl.c — device and server counts of Zou et al. 2017: Amdahl efficiency on G devices and
 * its inversions (Lemma 3.1), and the parameter-server bound (Lemma 3.2).
 *
 * Pure functions: no I/O, no allocation; MB_EDOM outside each formula's domain.
 */
#include "mb_model.h"

#include <math.h>

static int ratio_ok(double r) { return isfinite(r) && r >= 0.0; }
static int gpus_ok(double g) { return isfinite(g) && g >= 1.0; }
static int efficiency_ok(double e) { return isfinite(e) && e > 0.0 && e <= 1.0; }

int mb_model_amdahl_efficiency(double overhead_ratio, double gpus, double *efficiency)
{
    if (!ratio_ok(overhead_ratio) || !gpus_ok(gpus))
        return MB_EDOM;
    /* Above R = 1 the same fraction divided through by R: G R overflows for huge inputs
     * (R = G = 1e300), which would make E, and the speed-up G E, a plain 0. */
    const double r = overhead_ratio;
    *efficiency = r > 1.0 ? (1.0 / r + 1.0) / (1.0 / r + gpus) : (1.0 + r) / (1.0 + gpus * r);
    return MB_OK;
}

int mb_model_amdahl_speedup(double overhead_ratio, double gpus, double *speedup)
{
    double e;
    int rc = mb_model_amdahl_efficiency(overhead_ratio, gpus, &e);
    if (rc == MB_OK)
        *speedup = gpus * e;
    return rc;
}

int mb_model_amdahl_gpus_for_speedup(double overhead_ratio, double speedup, double *gpus)
{
    if (!ratio_ok(overhead_ratio) || !isfinite(speedup) || speedup < 1.0)
        return MB_EDOM;
    /* S = G (1 + R) / (1 + G R)  <=>  G = S / (1 + R - S R); the denominator vanishes at the
     * asymptotic speed-up (1 + R) / R. */
    const double den = 1.0 + overhead_ratio - speedup * overhead_ratio;
    if (!(den > 0.0))
        return MB_EDOM;
    *gpus = speedup / den;
    return isfinite(*gpus) ? MB_OK : MB_EDOM;
}

int mb_model_amdahl_gpus_for_efficiency(double overhead_ratio, double efficiency, double *gpus)
{
    if (!ratio_ok(overhead_ratio) || !efficiency_ok(efficiency))
        return MB_EDOM;
    if (overhead_ratio == 0.0)
        return MB_EDOM; /* no overhead: efficiency is 1 on any number of devices */
    /* E = (1 + R) / (1 + G R)  <=>  G = (1 + R - E) / (E R) */
    *gpus = (1.0 + overhead_ratio - efficiency) / efficiency / overhead_ratio;
    return isfinite(*gpus) ? MB_OK : MB_EDOM; /* E R can underflow */
}

int mb_model_amdahl_max_overhead(double gpus, double efficiency, double *overhead_ratio)
{
    if (!gpus_ok(gpus) || !efficiency_ok(efficiency))
        return MB_EDOM;
    /* E = (1 + R) / (1 + G R)  <=>  R = (1 - E) / (G E - 1) */
    const double den = gpus * efficiency - 1.0;
    if (!(den > 0.0))
        return MB_EDOM;
    *overhead_ratio = (1.0 - efficiency) / den;
    return isfinite(*overhead_ratio) ? MB_OK : MB_EDOM;
}

int mb_model_amdahl_overhead_for_speedup(double gpus, double speedup, double *overhead_ratio)
{
    if (!gpus_ok(gpus) || gpus == 1.0 || !isfinite(speedup) || speedup <= 1.0 || speedup > gpus)
        return MB_EDOM;
    /* S = G (1 + R) / (1 + G R)  <=>  R = (G - S) / (G (S - 1)) */
    /* divided by G first: G (S - 1) overflows for huge G and S */
    *overhead_ratio = (1.0 - speedup / gpus) / (speedup - 1.0);
    return isfinite(*overhead_ratio) ? MB_OK : MB_EDOM;
}

int mb_model_ps_count(double param_bytes, double workers, double compute_s, double bandwidth,
                      double *n_ps_exact, double *n_ps)
{
    if (!(isfinite(param_bytes) && param_bytes > 0.0) || !(isfinite(workers) && workers >= 1.0) ||
        !(isfinite(compute_s) && compute_s > 0.0) || !(isfinite(bandwidth) && bandwidth > 0.0))
        return MB_EDOM;
    /* Push and pull move 2 S_p N_w bytes a round; spread over N_ps servers of bandwidth B_ps
     * they must take no longer than the round's computation T_C (Lemma 3.2). */
    const double exact = 2.0 * param_bytes * workers / (compute_s * bandwidth);
    if (!isfinite(exact))
        return MB_EDOM;
    *n_ps_exact = exact;
    /* The ceiling, without letting rounding error in `exact` add a whole server. */
    *n_ps = fmax(1.0, ceil(exact - mb_model_whole_slack(exact)));
    return MB_OK;
}

double mb_model_whole_slack(double x)
{
    return fmin(1e-12 * fabs(x), 0.25);
}
