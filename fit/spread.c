/* spread.c — the seed-to-seed spread of log values pooled over groups (settings, batch sizes):
 * one accumulator that the T_update calibration (tupdate.c), settling (solver/validate.c) and
 * sequential sampling (solver/holdout.c) share, each pooling its own groups.
 */
#include "mb_fit.h"

#include <math.h>

void mb_fit_log_spread_add(const double *x, size_t n, double *ss, double *dof)
{
    double sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && x[i] > 0)
            sum += log(x[i]), k++;
    if (k < 2)
        return;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && x[i] > 0)
            *ss += pow(log(x[i]) - sum / (double)k, 2);
    *dof += (double)k - 1;
}
