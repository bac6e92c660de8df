#!/bin/bash
# probe_repeat.sh — is `mbprobe step` repeatable? Two back-to-back sweeps of lenet5's update step
# over M = 1 .. 1024 on this machine; prints per M both medians and their ratio, and the largest
# deviation at M >= 16 (the goal: under 5%), then the harness overhead against the smallest step
# and each sweep's steadiness line (whether the machine kept its speed through that sweep).
#   THREADS=2 BUDGET=1 bash tests/bench/probe_repeat.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
THREADS=${THREADS:-$(nproc)}
BUDGET=${BUDGET:-1}
BIN=${BIN:-build/release/bin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in 1 2; do
    "$BIN/mbprobe" step --net lenet5 --batch 1:1024 --threads "$THREADS" --budget "$BUDGET" \
        -o "$tmp/s$i.csv" > "$tmp/s$i.out"
done
grep -h '^harness overhead' "$tmp/s1.out" "$tmp/s2.out"
grep -h '^steadiness' "$tmp/s1.out" "$tmp/s2.out"
paste -d, <(grep -v '^#' "$tmp/s1.csv") <(grep -v '^#' "$tmp/s2.csv") | awk -F, '
    NR == 1 { for (i = 1; i <= NF / 2; i++) if ($i == "t_median_s") c = i; n = NF / 2
              printf "%6s %12s %12s %8s\n", "M", "sweep1_s", "sweep2_s", "ratio"; next }
    { r = $(c + n) / $c; printf "%6d %12.4g %12.4g %8.3f\n", $3, $c, $(c + n), r
      if ($3 >= 16) { d = r > 1 ? r - 1 : 1 - r; if (d > worst) worst = d } }
    END { printf "largest deviation at M >= 16: %.1f%%\n", 100 * worst }'
