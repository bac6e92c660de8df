#!/bin/bash
# lenet5_vs_torch.sh — mbkit against PyTorch 1.13 on the same lenet5 step (forward + backward +
# SGD update, batch M = 1 .. 1024, 2 threads), in the same run: prints M, mbkit s/update, torch
# s/update, ratio (mbkit / torch; below 1 means mbkit is faster). Medians over repetitions of
# about 0.4 s per M, each after a warm-up of at least 0.2 s (torch's first steps allocate and pick
# kernels). Run by `make bench`; skips with a message when torch is not installed.
#   THREADS=2 MAX_M=1024 bash tests/bench/lenet5_vs_torch.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
THREADS=${THREADS:-2}
MAX_M=${MAX_M:-1024}
NAME=lenet5_vs_torch
. tests/bench/torch_peer.bash
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
OPENBLAS_NUM_THREADS=1 "$BENCH" --threads "$THREADS" --max-batch "$MAX_M" --csv > "$tmp/mbkit.csv"
OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=$THREADS PYTHONPATH=tests/bench $PY - "$THREADS" "$MAX_M" > "$tmp/torch.csv" <<'PYEOF'
import sys, time
import torch
from torch_lenet5 import lenet5_step
threads, max_m = int(sys.argv[1]), int(sys.argv[2])
train = lenet5_step(threads)
print("M,s_per_update")
m = 1
while m <= max_m:
    x = torch.rand(m, 1, 28, 28)
    y = torch.randint(0, 10, (m,))
    def step():
        return train(x, y)
    l0 = step()
    for _ in range(4):
        l1 = step()
    assert l1 == l1 and l1 < l0 + 1.0, (m, l0, l1)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 0.2:
        step()
    t0 = time.perf_counter(); step(); one = time.perf_counter() - t0
    reps = min(201, max(7, int(0.4 / max(one, 1e-6))))
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter(); step(); ts.append(time.perf_counter() - t0)
    ts.sort()
    print(f"{m},{ts[reps // 2]:.6e}", flush=True)
    m *= 2
PYEOF
echo "# lenet5 1x28x28, forward+backward+SGD, $THREADS threads; median s/update; ratio = mbkit/torch"
printf "%6s %14s %14s %8s\n" M mbkit_s torch_s ratio
join -t, <(tail -n +2 "$tmp/mbkit.csv" | cut -d, -f1,2 | sort -t, -k1,1) \
         <(tail -n +2 "$tmp/torch.csv" | sort -t, -k1,1) | sort -t, -k1,1n |
    awk -F, '{ printf "%6d %14.6e %14.6e %8.3f\n", $1, $2, $3, $2 / $3 }'
