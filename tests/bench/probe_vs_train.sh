#!/bin/bash
# probe_vs_train.sh — does `mbprobe step` predict mbtrain's update time? At each M, one short
# mbtrain run (lenet5 on fashion-mnist, momentum as `make run` trains) and right after it the
# probe at that M alone with the run's optimiser and data, REPS times; prints per M the run's
# median and mean seconds per update (wall_s increments of its log, evaluation excluded, the
# first tenth dropped) and the median over repeats of probe t_median_s / run median (the goal:
# within 5%) and / run mean (what a training time sums). Pairs are taken seconds apart, so a
# host phase that outlasts them shifts both.
#   THREADS=2 REPS=3 BATCHES="8 32 128 512" bash tests/bench/probe_vs_train.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
THREADS=${THREADS:-$(nproc)}
REPS=${REPS:-3}
BATCHES=${BATCHES:-8 32 128 512}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-3}
BIN=${BIN:-build/release/bin}
OPT="--algo momentum --momentum 0.9 --lr 0.02"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the run's median and mean seconds per update, from its log
run_stats() {
    grep -v '^#' "$1" | awk -F, 'NR > 1 { print $4 - w } { w = (NR > 1 ? $4 : 0) }' > "$tmp/inc"
    n=$(wc -l < "$tmp/inc")
    tail -n +$((n / 10 + 1)) "$tmp/inc" | sort -g | awk '{ v[++m] = $1; s += $1 }
        END { printf "%.9g %.9g\n", (m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2), s / m }'
}
for r in $(seq 1 "$REPS"); do
    for M in $BATCHES; do
        # updates for about SECONDS_PER_RUN s, from a quick probe of this M
        "$BIN/mbprobe" step --net lenet5 --batch "$M" --threads "$THREADS" --budget 0.2 --rounds 1 \
            -o "$tmp/q.csv" > /dev/null 2>&1
        t=$(grep -v '^#' "$tmp/q.csv" | awk -F, 'NR == 2 { print $7 }')
        U=$(awk -v t="$t" -v s="$SECONDS_PER_RUN" 'BEGIN { u = int(s / t); print u < 50 ? 50 : u }')
        "$BIN/mbtrain" --net lenet5 --data fashion-mnist $OPT --batch "$M" --seed 0 --max-updates "$U" \
            --eval-every 100000000 --threads "$THREADS" --log "$tmp/run.csv" > /dev/null
        "$BIN/mbprobe" step --net lenet5 --data fashion-mnist $OPT --batch "$M" --threads "$THREADS" \
            --budget 1 -o "$tmp/p.csv" > /dev/null 2>&1
        p=$(grep -v '^#' "$tmp/p.csv" | awk -F, 'NR == 2 { print $7 }')
        echo "$M $p $(run_stats "$tmp/run.csv")" >> "$tmp/pairs"
    done
done
sort -n -k1,1 "$tmp/pairs" | awk '
    function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
        if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    function flush() { if (n) printf "%6d %12.4g %12.4g %14.3f %14.3f\n", m, med(rm, n), med(rs, n),
        med(a, n), med(b, n); n = 0 }
    BEGIN { printf "%6s %12s %12s %14s %14s\n", "M", "run_med_s", "run_mean_s", "probe/run_med",
        "probe/run_mean" }
    $1 != m { flush(); m = $1 }
    { n++; rm[n] = $3; rs[n] = $4; a[n] = $2 / $3; b[n] = $2 / $4 }
    END { flush() }'
