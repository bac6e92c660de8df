"""fashion_cnn.py — an example model file for mbkit's PyTorch front end: a small CNN on
Fashion-MNIST, read from Debian's dataset-fashion-mnist (IDX files, gzip; no download).

    mbkit_torch.py runs --model frontends/torch/examples/fashion_cnn.py --batch 16:128 ...

A model file defines model() (the factory), dataset() (training inputs and labels) and, if the
loss is not cross-entropy, loss(output, y); NAME and DATA name them in mbkit's outputs.
"""
import gzip
import os

import numpy as np
import torch
from torch import nn

NAME = "fashion_cnn"
DATA = "fashion-mnist"
FOLDER = os.environ.get("FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist")


def read_idx(path, magic):
    """An IDX file (big-endian header: magic, counts, then unsigned bytes), plain or .gz."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8 or int.from_bytes(raw[:4], "big") != magic:
        raise ValueError(f"{path}: not an IDX file with magic {magic:#010x}")
    dims = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims)
    if data.size != int(np.prod(shape)):
        raise ValueError(f"{path}: {data.size} bytes of data, the header promises {shape}")
    return data.reshape(shape)


def dataset():
    """The 60,000 training images as (N, 1, 28, 28) floats in [0, 1] and their labels."""
    x = read_idx(os.path.join(FOLDER, "train-images-idx3-ubyte.gz"), 0x803)
    y = read_idx(os.path.join(FOLDER, "train-labels-idx1-ubyte.gz"), 0x801)
    x = torch.from_numpy(x.astype(np.float32) / 255.0).unsqueeze(1)
    return x, torch.from_numpy(y.astype(np.int64))


def model():
    """Two 3x3 convolutions (8 and 16 filters) with ReLU and 2x2 max pooling, then 64 hidden
    units: 52,138 parameters."""
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * 7 * 7, 64), nn.ReLU(), nn.Linear(64, 10))


def loss(output, y):
    return nn.functional.cross_entropy(output, y)
