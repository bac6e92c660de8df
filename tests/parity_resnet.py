#!/usr/bin/python3
"""parity_resnet.py — a graph network of mbkit's (data/nets/resnet-mini.cfg: BN, residual add)
against PyTorch; run by tests/test_train_parity.c, which writes the dump this reads.

The dump folder holds graph.txt (one line per layer: type, inputs (-1: the network input),
in_c, in_h, in_w, out_c, size, stride, pad, p), params.bin (mbkit's parameters before the step, float32:
per layer with parameters its weights then biases (BN: gamma, beta) in layer order, then per
BN layer its running mean and var), x.bin, y.bin (int32), loss.txt, grads.bin (the trainable
part), state.bin (the running statistics after the step) and eval.txt (the mean loss of an
evaluation after the step, with the running statistics). The same network is built here from
torch.nn.functional with the same parameters, one training step's forward and backward runs
in float64 (the oracle) and float32, and the script prints, per tensor, max |mbkit - torch|
and that over max |torch| (over the largest gradient for a tensor whose true gradient is zero:
a conv bias before BN). Passes (exit 0) when every relative figure is below 1e-4 (float32
rounding through ~20 layers; the lenet5 parity holds 1e-4 too).

    /usr/bin/python3 tests/parity_resnet.py DUMP_DIR
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

TOL = 1e-4


def read_graph(d):
    layers = []
    for line in open(os.path.join(d, "graph.txt")):
        f = line.split()
        layers.append({"type": f[0], "inputs": [int(v) for v in f[1].split(",")],
                       "in_c": int(f[2]), "in_h": int(f[3]), "in_w": int(f[4]),
                       "out_c": int(f[5]), "size": int(f[6]), "stride": int(f[7]),
                       "pad": int(f[8]), "p": float(f[9])})
    return layers


def param_shapes(layers):
    """(layer index, name, shape) of every trainable tensor, then of the state, in mbkit's order."""
    train, state = [], []
    for i, L in enumerate(layers):
        if L["type"] == "conv":
            k = L["size"]
            train += [(i, "w", (L["out_c"], L["in_c"], k, k)), (i, "b", (L["out_c"],))]
        elif L["type"] == "fc":
            train += [(i, "w", (L["out_c"], L["in_c"] * L["in_h"] * L["in_w"])),
                      (i, "b", (L["out_c"],))]
        elif L["type"] == "batchnorm":
            train += [(i, "gamma", (L["out_c"],)), (i, "beta", (L["out_c"],))]
            state += [(i, "mean", (L["out_c"],)), (i, "var", (L["out_c"],))]
    return train, state


def forward(layers, p, st, x, training):
    outs = []
    for i, L in enumerate(layers[:-1]):
        ins = [x if s < 0 else outs[s] for s in L["inputs"]]
        h, t = ins[0], L["type"]
        if t == "conv":
            h = F.conv2d(h, p[(i, "w")], p[(i, "b")], stride=L["stride"], padding=L["pad"])
        elif t == "fc":
            h = F.linear(h.flatten(1), p[(i, "w")], p[(i, "b")])
        elif t == "batchnorm":
            h = F.batch_norm(h, st[(i, "mean")], st[(i, "var")], p[(i, "gamma")],
                             p[(i, "beta")], training=training, momentum=0.1, eps=1e-5)
        elif t == "relu":
            h = F.relu(h)
        elif t == "tanh":
            h = torch.tanh(h)
        elif t == "sigmoid":
            h = torch.sigmoid(h)
        elif t == "maxpool":
            h = F.max_pool2d(h, L["size"], L["stride"], L["pad"])
        elif t == "avgpool":
            h = F.avg_pool2d(h, L["size"], L["stride"], L["pad"], count_include_pad=True)
        elif t == "add":
            h = sum(ins[1:], ins[0])
        elif t == "concat":
            h = torch.cat(ins, dim=1)
        elif t == "dropout":
            assert L["p"] == 0.0, "dropout with p > 0 draws mbkit's own masks"
        else:
            raise ValueError("layer type " + t)
        outs.append(h)
    return outs[-1]


def main():
    d = sys.argv[1]
    layers = read_graph(d)
    train, state = param_shapes(layers)
    params = np.fromfile(os.path.join(d, "params.bin"), dtype=np.float32)
    grads = np.fromfile(os.path.join(d, "grads.bin"), dtype=np.float32)
    state_after = np.fromfile(os.path.join(d, "state.bin"), dtype=np.float32)
    y = np.fromfile(os.path.join(d, "y.bin"), dtype=np.int32)
    x = np.fromfile(os.path.join(d, "x.bin"), dtype=np.float32)
    x = x.reshape(len(y), layers[0]["in_c"], layers[0]["in_h"], layers[0]["in_w"])
    loss_mb = float(open(os.path.join(d, "loss.txt")).read())
    eval_mb = float(open(os.path.join(d, "eval.txt")).read())
    n_train = sum(int(np.prod(s)) for _, _, s in train)
    n_state = sum(int(np.prod(s)) for _, _, s in state)
    assert params.size == n_train + n_state and grads.size == n_train, \
        (params.size, n_train, n_state, grads.size)
    assert state_after.size == n_state
    print(f"resnet parity: {len(layers)} layers, batch {len(y)}, {n_train} parameters, "
          f"{n_state} state, torch {torch.__version__}")
    worst, worst_abs = 0.0, 0.0
    for dtype in (torch.float64, torch.float32):
        p, st, off = {}, {}, 0
        for i, name, shape in train:
            k = int(np.prod(shape))
            p[(i, name)] = torch.tensor(params[off:off + k].reshape(shape), dtype=dtype,
                                        requires_grad=True)
            off += k
        for i, name, shape in state:
            k = int(np.prod(shape))
            st[(i, name)] = torch.tensor(params[off:off + k].reshape(shape), dtype=dtype)
            off += k
        xt = torch.tensor(x, dtype=dtype)
        yt = torch.tensor(y, dtype=torch.long)
        loss = F.cross_entropy(forward(layers, p, st, xt, True), yt)
        loss.backward()
        figures = [("loss", np.array([loss_mb]), np.array([loss.item()]))]
        goff = 0
        for i, name, shape in train:
            k = int(np.prod(shape))
            figures.append((f"grad {i}.{name}", grads[goff:goff + k].astype(np.float64),
                            p[(i, name)].grad.double().numpy().ravel()))
            goff += k
        soff = 0
        for i, name, shape in state:
            k = int(np.prod(shape))
            figures.append((f"state {i}.{name}", state_after[soff:soff + k].astype(np.float64),
                            st[(i, name)].double().numpy().ravel()))
            soff += k
        with torch.no_grad():
            ev = F.cross_entropy(forward(layers, p, st, xt, False), yt).item()
        figures.append(("eval loss", np.array([eval_mb]), np.array([ev])))
        print(f"  torch {str(dtype)}:")
        # a conv bias just before BN has a zero gradient (BN takes out any per-channel
        # constant): float64 torch gives ~1e-15, float32 noise ~1e-7; such a tensor (below
        # 1e-9 of the largest gradient in float64) is measured against the largest gradient
        gmax = max(float(np.abs(ref).max()) for name, _, ref in figures if name[:4] == "grad")
        if dtype == torch.float64:
            zero = {name for name, _, ref in figures
                    if name[:4] == "grad" and float(np.abs(ref).max()) < 1e-9 * gmax}
        for name, mine, ref in figures:
            a = float(np.abs(mine - ref).max())
            scale = float(np.abs(ref).max())
            if name in zero:
                scale, name = gmax, name + " (0)"
            r = a / max(scale, 1e-30)
            worst, worst_abs = max(worst, r), max(worst_abs, a)
            print(f"    {name:16s} max|diff| {a:.2e}  /max|torch| {r:.2e}")
    ok = worst < TOL
    print(f"max abs difference {worst_abs:.2e}, max relative difference {worst:.2e} "
          f"({'PASS' if ok else 'FAIL'}: < {TOL:g})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
