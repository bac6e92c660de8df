#!/bin/bash
# host_steadiness.sh — does this machine keep its speed? Steps lenet5 at one batch size for
# SECONDS, first with mbkit (tests/bench/lenet5_step --trace), then with PyTorch on the same net,
# and cuts each trace into half-second windows. Per peer it prints the best window's median
# s/update, the share of windows within 8% of it ("quiet"), the longest stretch of windows that are
# not, the slowest window against the best, and the windows themselves (percent of the best). When
# both peers show the same slow phases, they are the host's, not the code's: the reason two
# `mbprobe step` sweeps can disagree however the harness samples (see docs/results.md, "Probe
# steadiness").
#   SECONDS_EACH=30 BATCH=128 THREADS=2 bash tests/bench/host_steadiness.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH=${SECONDS_EACH:-30}
BATCH=${BATCH:-128}
THREADS=${THREADS:-2}
PY=/usr/bin/python3
if ! [ -x "$PY" ]; then
    echo "host_steadiness: skipped: no $PY to summarise the traces"
    exit 0
fi
BENCH=build/release/bench/lenet5_step
make -s "$BENCH"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
OPENBLAS_NUM_THREADS=1 "$BENCH" --trace "$SECONDS_EACH" --batch "$BATCH" --threads "$THREADS" \
    > "$tmp/mbkit.csv"
peers=mbkit
if "$PY" -c 'import torch' 2>/dev/null; then
    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=$THREADS PYTHONPATH=tests/bench "$PY" - "$THREADS" "$BATCH" "$SECONDS_EACH" \
        > "$tmp/torch.csv" <<'PYEOF'
import sys, time
import torch
from torch_lenet5 import lenet5_step
threads, m, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
train = lenet5_step(threads)
x, y = torch.rand(m, 1, 28, 28), torch.randint(0, 10, (m,))
def step():
    train(x, y)
t0 = time.perf_counter()
while time.perf_counter() - t0 < 0.2:
    step()
print("t_s,s_per_update")
t0 = time.perf_counter()
t = t0
while t - t0 < seconds:
    step()
    t1 = time.perf_counter()
    print(f"{t - t0:.4f},{t1 - t:.6e}")
    t = t1
PYEOF
    peers="mbkit torch"
else
    echo "(torch not importable by $PY: mbkit's trace only)"
fi
echo "lenet5 batch $BATCH, $THREADS threads, $SECONDS_EACH s each, half-second windows"
for p in $peers; do
    "$PY" - "$p" "$tmp/$p.csv" <<'PYEOF'
import statistics, sys
name, path = sys.argv[1], sys.argv[2]
windows = {}
with open(path) as f:
    next(f)
    for line in f:
        t, s = map(float, line.split(","))
        windows.setdefault(int(t * 2), []).append(s)
med = [statistics.median(windows[k]) for k in sorted(windows)]
best = min(med)
rel = [m / best for m in med]
quiet = [r <= 1.08 for r in rel]
longest = run = 0
for q in quiet:
    run = 0 if q else run + 1
    longest = max(longest, run)
print(f"{name:6s} best {best:.4g} s/update  quiet {100 * sum(quiet) / len(quiet):.0f}% of "
      f"the time  longest disturbed stretch {longest / 2:.1f} s  slowest window "
      f"{max(rel):.2f}x the best")
print("       " + " ".join(f"{100 * r:.0f}" for r in rel))
PYEOF
done
