"""lenet5.py — mbkit's lenet5 (data/nets/lenet5.cfg) as a PyTorch model file, for comparing the
PyTorch front end with mbkit's C trainer on the same network and data (the twin of
tests/parity_lenet5.py): conv 6@5x5 pad 2, ReLU, max pool 2; conv 16@5x5, ReLU, max pool 2;
fc 120, ReLU; fc 84, ReLU; fc 10; softmax cross-entropy. 61,706 parameters.

Its initialisation is PyTorch's default, not mbkit's, and its shuffle and evaluation subset are
the front end's: the two front ends train the same network on the same data, not the same runs.
"""
import os
import sys

from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fashion_cnn import dataset  # noqa: E402,F401  (Fashion-MNIST from Debian's package)

NAME = "lenet5"
DATA = "fashion-mnist"


def model():
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
        nn.Linear(84, 10))
