#!/bin/bash
# eval_vs_torch.sh — mbkit's evaluation (lenet5's forward pass and each sample's loss,
# mb_net_evaluate_each) against PyTorch 1.13's (no_grad, eval mode, per-sample cross-entropy) on
# the same 2048 samples in calls of B = 16 (the staged checks' chunk), 128 and 1024, 2 threads,
# in the same run: prints B, mbkit and torch microseconds per sample (median of 9 passes after a
# warm-up pass), ratio (mbkit / torch; below 1 means mbkit is faster). Evaluation is about half
# of `make run`'s training runs. Run by `make bench`; skips with a message without torch.
#   THREADS=2 bash tests/bench/eval_vs_torch.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
THREADS=${THREADS:-2}
NAME=eval_vs_torch
. tests/bench/torch_peer.bash
echo "# lenet5 1x28x28, evaluation (forward + per-sample loss), $THREADS threads; median us/sample; ratio = mbkit/torch"
printf "%6s %10s %10s %8s\n" B mbkit_us torch_us ratio
for b in 16 128 1024; do
    ours=$(OPENBLAS_NUM_THREADS=1 "$BENCH" --eval --batch "$b" --threads "$THREADS" | awk '/^us_per_sample/ { print $2 }')
    theirs=$(OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=$THREADS PYTHONPATH=tests/bench $PY - "$THREADS" "$b" <<'PYEOF'
import sys, time
import torch
from torch_lenet5 import lenet5_eval
threads, b = int(sys.argv[1]), int(sys.argv[2])
evaluate = lenet5_eval(threads)
n = 2048
x, y = torch.rand(n, 1, 28, 28), torch.randint(0, 10, (n,))
ts = []
for r in range(10):  # the first pass warms up
    t0 = time.perf_counter()
    for i in range(0, n, b):
        losses = evaluate(x[i:i + b], y[i:i + b])
        assert losses.shape[0] == min(b, n - i) and bool(torch.isfinite(losses).all())
    if r:
        ts.append((time.perf_counter() - t0) / n * 1e6)
ts.sort()
print(f"{ts[len(ts) // 2]:.3f}")
PYEOF
)
    awk -v b="$b" -v o="$ours" -v t="$theirs" 'BEGIN { printf "%6d %10.2f %10.2f %8.3f\n", b, o, t, o / t }'
done
