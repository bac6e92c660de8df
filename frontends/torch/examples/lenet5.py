"""lenet5.py — mbkit's lenet5 (data/nets/lenet5.cfg) as a PyTorch model file, for comparing the
PyTorch front end with mbkit's C trainer on the same network and data (the twin of
tests/parity_lenet5.py): conv 6@5x5 pad 2, ReLU, max pool 2; conv 16@5x5, ReLU, max pool 2;
fc 120, ReLU; fc 84, ReLU; fc 10; softmax cross-entropy. 61,706 parameters.

Initialised as mbkit initialises (train/learner/net.c): weights uniform in [-b, b] with b = sqrt(6 /
fan_in) (He) before a ReLU and sqrt(6 / (fan_in + fan_out)) (Glorot) for the last layer, biases
zero; MBKIT_INIT=torch keeps PyTorch's default (b = 1 / sqrt(fan_in), biases uniform too). The
shuffle and the evaluation subset are the front end's: the two front ends train the same network
on the same data from the same distribution of starts, not the same runs.
"""
import math
import os
import sys

from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fashion_cnn import dataset  # noqa: E402,F401  (Fashion-MNIST from Debian's package)

NAME = "lenet5"
DATA = "fashion-mnist"


def mbkit_init(net):
    layers = [m for m in net if isinstance(m, (nn.Conv2d, nn.Linear))]
    for i, m in enumerate(layers):
        fan_in = m.weight[0].numel()
        fan_out = m.weight.shape[0] * (m.weight[0, 0].numel() if m.weight.dim() > 2 else 1)
        last = i == len(layers) - 1  # no ReLU after it
        b = math.sqrt(6.0 / (fan_in + fan_out)) if last else math.sqrt(6.0 / fan_in)
        nn.init.uniform_(m.weight, -b, b)
        nn.init.zeros_(m.bias)
    return net


def model():
    net = nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
        nn.Linear(84, 10))
    return net if os.environ.get("MBKIT_INIT") == "torch" else mbkit_init(net)
