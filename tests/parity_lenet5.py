#!/usr/bin/python3
"""parity_lenet5.py — mbkit's lenet5 against PyTorch (run by hand, not by make check).

Builds tests/bench/lenet5_step, has it dump mbkit's initial parameters, a batch, the loss and
every gradient after one forward_backward (mb_net, GEMM convolutions), loads the same parameters
into the same network in PyTorch and compares the loss and each gradient tensor. Error measure per
tensor: max |mbkit - torch| / max |torch|. PyTorch runs in float64 (the oracle: its own rounding
is negligible, so the figure is mbkit's float32 error) and in float32 (like for like).
Passes when every figure is below 1e-4.

    /usr/bin/python3 tests/parity_lenet5.py [--batch 8] [--seed 1]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHAPES = [("conv1.w", (6, 1, 5, 5)), ("conv1.b", (6,)), ("conv2.w", (16, 6, 5, 5)),
          ("conv2.b", (16,)), ("fc1.w", (120, 400)), ("fc1.b", (120,)), ("fc2.w", (84, 120)),
          ("fc2.b", (84,)), ("fc3.w", (10, 84)), ("fc3.b", (10,))]


def lenet5(p, x):
    h = F.max_pool2d(F.relu(F.conv2d(x, p["conv1.w"], p["conv1.b"], padding=2)), 2)
    h = F.max_pool2d(F.relu(F.conv2d(h, p["conv2.w"], p["conv2.b"])), 2)
    h = h.flatten(1)
    h = F.relu(F.linear(h, p["fc1.w"], p["fc1.b"]))
    h = F.relu(F.linear(h, p["fc2.w"], p["fc2.b"]))
    return F.linear(h, p["fc3.w"], p["fc3.b"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    subprocess.run(["make", "-s", "-C", ROOT, "build/release/bench/lenet5_step"], check=True)
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([os.path.join(ROOT, "build/release/bench/lenet5_step"), "--dump", d,
                        "--batch", str(a.batch), "--seed", str(a.seed)], check=True)
        params = np.fromfile(os.path.join(d, "params.bin"), dtype=np.float32)
        grads = np.fromfile(os.path.join(d, "grads.bin"), dtype=np.float32)
        x = np.fromfile(os.path.join(d, "x.bin"), dtype=np.float32).reshape(a.batch, 1, 28, 28)
        y = np.fromfile(os.path.join(d, "y.bin"), dtype=np.int32)
        loss_mb = float(open(os.path.join(d, "loss.txt")).read())
    n = sum(int(np.prod(s)) for _, s in SHAPES)
    assert params.size == n == grads.size, (params.size, n, grads.size)
    worst = 0.0
    print(f"lenet5, batch {a.batch}, seed {a.seed}, {n} parameters, torch {torch.__version__}")
    for dtype in (torch.float64, torch.float32):
        p, g_mb, off = {}, {}, 0
        for name, shape in SHAPES:
            k = int(np.prod(shape))
            p[name] = torch.tensor(params[off:off + k].reshape(shape), dtype=dtype,
                                   requires_grad=True)
            g_mb[name] = grads[off:off + k].reshape(shape).astype(np.float64)
            off += k
        xt = torch.tensor(x, dtype=dtype)
        loss = F.cross_entropy(lenet5(p, xt), torch.tensor(y, dtype=torch.long))
        loss.backward()
        rel = abs(loss_mb - loss.item()) / abs(loss.item())
        print(f"  torch {str(dtype):14s} loss mbkit {loss_mb:.8f} torch {loss.item():.8f} "
              f"rel diff {rel:.2e}")
        worst = max(worst, rel)
        for name, _ in SHAPES:
            gt = p[name].grad.double().numpy()
            e = np.abs(g_mb[name] - gt).max() / max(np.abs(gt).max(), 1e-30)
            worst = max(worst, e)
            print(f"    grad {name:8s} max|diff|/max|torch| {e:.2e}")
    print(f"max relative difference: {worst:.2e} ({'PASS' if worst < 1e-4 else 'FAIL'}: < 1e-4)")
    return 0 if worst < 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
