"""torch_lenet5.py: the PyTorch peer of mbkit's lenet5 (data/nets/lenet5.cfg), shared by the
benchmark scripts in tests/bench/: conv 6@5x5 pad 2, relu, maxpool 2; conv 16@5x5, relu,
maxpool 2; fc 120 relu; fc 84 relu; fc 10; softmax cross-entropy; plain SGD."""
import torch
import torch.nn as nn


def lenet5_step(threads, lr=0.01, device="cpu"):
    """Returns step(x, y): one forward + backward + SGD update on torch's lenet5, whose loss it
    returns as a float. Runs on `threads` intra-op threads, seeded, on `device` (x and y must be
    there: "cuda" runs the step with cuDNN and cuBLAS; loss.item() waits for the device)."""
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                        nn.Linear(84, 10)).to(device)
    opt = torch.optim.SGD(net.parameters(), lr=lr)
    lossf = nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad(set_to_none=True)
        loss = lossf(net(x), y)
        loss.backward()
        opt.step()
        return loss.item()
    return step


def lenet5_eval(threads):
    """Returns evaluate(x, y): torch's lenet5 in inference (no_grad, eval mode), each sample's
    cross-entropy loss as a tensor: what mbkit's mb_net_evaluate_each returns."""
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                        nn.Linear(84, 10)).eval()
    lossf = nn.CrossEntropyLoss(reduction="none")

    def evaluate(x, y):
        with torch.no_grad():
            return lossf(net(x), y)
    return evaluate
