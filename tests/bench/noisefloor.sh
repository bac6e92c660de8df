#!/usr/bin/env bash
# noisefloor.sh — how well the held-out runs of a finished make run can judge a prediction at
# all: the seed-to-seed spread of ln N_update, pooled over the held-out M, and the median
# |error| that spread alone gives a median of k seeds (0.6745 x 1.2533 sd / sqrt(k): the median's
# standard error for a normal spread, and the median of a half-normal). A held-out error near
# this floor is noise, not the law's (docs/results.md, "noise floor").
#
#   tests/bench/noisefloor.sh OUT        OUT: a make run output folder holding holdout/
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: noisefloor.sh OUT" >&2; exit 2; }
ls "$1"/holdout/lr*/*.csv > /dev/null 2>&1 || { echo "noisefloor.sh: $1/holdout: no held-out runs" >&2; exit 1; }
cat "$1"/holdout/lr*/*.csv | grep '^# net=.*reached=yes' | awk '{
  for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "batch") b = kv[2]; if (kv[1] == "reached_update") u = kv[2] }
  n[b]++; s[b] += log(u); q[b] += log(u) * log(u) }
  END { for (b in n) if (n[b] > 1) { ss += q[b] - s[b] * s[b] / n[b]; dof += n[b] - 1; k = n[b] }
        if (dof == 0) { print "noisefloor.sh: fewer than two held-out runs at any M" > "/dev/stderr"; exit 1 }
        sd = sqrt(ss / dof)
        printf "pooled sd of ln N_update %.3f over %d dof; a %d-seed median is off by a median %.1f%% from noise alone\n", sd, dof, k, 100 * 0.6745 * 1.2533 * sd / sqrt(k) }'
