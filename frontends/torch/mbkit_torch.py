#!/usr/bin/python3
"""mbkit_torch.py — mbkit's PyTorch front end: the two measurements mbkit needs, taken on the
user's own PyTorch model, written in mbkit's open formats (docs/formats.md).

    mbkit_torch.py probe --model FILE.py --batch 16,32,64 -o step.csv
    mbkit_torch.py runs  --model FILE.py --batch 16,32,64 --seeds 0:2 --lr 0.02 \
        --target-loss 0.6 --log-dir runs

`probe` times one update of the user's model (the next shuffled mini-batch gathered, forward,
loss, backward, optimiser step) at each M, as `mbprobe step` does: warm-up, then the batch
sizes measured interleaved in R passes, samples until the median's 95% interval lies within
2% of it or the per-point budget is spent, medians; on CUDA each call ends with
torch.cuda.synchronize(). It writes mbkit's step table (the columns of probe/step.c), which
`mbfit tupdate` reads.

`runs` trains the model to a target loss on a fixed evaluation subset of the training data at
each M x seed, with mbkit's exact first-crossing rule (train/run/run.c): evaluate every E updates
(a staged check that stops as soon as the samples seen rule the target out), keep a parameter
snapshot after every update of the window since the last evaluation, and when an evaluation
reaches the target, bisect over the snapshots to the first update at or under it. wall_s is
training time only (evaluations and snapshot copies are timed apart). One run log per run
(the metadata and columns of train/run/run.c), which `mbfit nupdate`, `mbfit tupdate` and
`mbopt validate` read.

The model file (a path or a module name) defines:

    model()             -> torch.nn.Module      the factory (called after torch.manual_seed(seed))
    dataset()           -> (x, y)               training inputs (float tensor, N first) and
                                                integer class labels (N,)
    loss(output, y)     -> scalar tensor        optional; default cross-entropy (mean over batch)
    NAME = "..."                                optional; the net's name (default: file stem)
    DATA = "..."                                optional; the data set's name (default: "user")

`probe --procs 1,2` adds P data-parallel learners through torch.distributed (mbkit_dist.py:
gloo on CPU, NCCL on CUDA; the step table's `learners` column is P).

Not here: training several learners (runs trains one), learning-rate schedules, the C
pipeline's stages (frontends/torch/torch.mk runs mbfit, mbopt and mbplot on what this writes).
Exit status: 0 done; 1 bad input (a model file that does not import, a factory that raises,
a run that never reached the target, a write error); 2 usage.
"""
import argparse
import importlib
import importlib.util
import math
import os
import platform
import socket
import sys
import tempfile
import time

PROG = "mbkit_torch"
VERSION = "0.1.0"
FORMAT = 1  # the format version: '# format=mbkit-runlog/1', 'mbkit-step/1' (docs/formats.md)


class Fail(Exception):
    """A one-line error for the user: bad input, exit 1."""


# ---- command line ------------------------------------------------------------------------------

class Parser(argparse.ArgumentParser):
    """argparse with mbkit's usage errors: one line, then "Try '... --help'", exit 2."""

    def error(self, message):
        sys.stderr.write(f"{self.prog}: {message}\nTry '{self.prog} --help'\n")
        sys.exit(2)


def parse_list(text, name, lo=1, hi=1 << 20):
    """mbkit's lists: '8,16,32', 'lo:hi' (doubling from lo to hi) or both: '1,3,8:64'."""
    out = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            raise argparse.ArgumentTypeError(f"{name}: empty item in '{text}'")
        try:
            if ":" in item:
                a, b = (int(v) for v in item.split(":", 1))
                if a < lo or b < a:
                    raise ValueError
                v = a
                while v <= b:
                    out.append(v)
                    v *= 2
            else:
                out.append(int(item))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name}: '{item}' is not a whole number or lo:hi")
    for v in out:
        if v < lo or v > hi:
            raise argparse.ArgumentTypeError(f"{name}: {v} is not in [{lo}, {hi}]")
    return out


def seed_list(text):
    """Seeds: '0:4' is 0, 1, 2, 3, 4 (a range, not doubling, as mbtrain --seeds), or a list."""
    out = []
    for item in text.split(","):
        try:
            if ":" in item:
                a, b = (int(v) for v in item.split(":", 1))
                if a < 0 or b < a:
                    raise ValueError
                out.extend(range(a, b + 1))
            else:
                v = int(item)
                if v < 0:
                    raise ValueError
                out.append(v)
        except ValueError:
            raise argparse.ArgumentTypeError(f"--seeds: '{item}' is not a seed >= 0 or lo:hi")
    return out


def plan_list(text):
    """M,LR,SEED tokens separated by white space (mbopt validate --holdout-plan)."""
    out = []
    for tok in text.split():
        try:
            m, lr, seed = tok.split(",")
            mv, lv, sv = int(m), float(lr), int(seed)
            if mv < 1 or not (lv > 0) or not math.isfinite(lv) or sv < 0:
                raise ValueError
        except ValueError:
            raise argparse.ArgumentTypeError(f"--plan: '{tok}' is not an M,LR,SEED token")
        out.append((mv, lr, lv, sv))
    if not out:
        raise argparse.ArgumentTypeError("--plan: no M,LR,SEED token")
    return out


def positive(kind):
    def conv(text):
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a number")
        if not (v > 0) or (isinstance(v, float) and not math.isfinite(v)):
            raise argparse.ArgumentTypeError(f"'{text}' must be > 0")
        return v
    return conv


def fraction(text):
    v = positive(float)(text)
    if v > 1:
        raise argparse.ArgumentTypeError(f"'{text}' must be in (0, 1]")
    return v


def common_args(p):
    p.add_argument("--model", required=True, metavar="FILE",
                   help="the model file (a .py path or a module name): model(), dataset(), "
                        "optionally loss(), NAME, DATA")
    p.add_argument("--batch", type=lambda s: parse_list(s, "--batch"),
                   metavar="LIST", help="mini-batch sizes M: 16,32,64 or 16:128 (doubling)")
    p.add_argument("--algo", choices=["sgd", "momentum", "nesterov"], default="momentum",
                   help="optimiser, as mbtrain names it (default momentum)")
    p.add_argument("--lr", type=positive(float), default=0.02, help="learning rate (0.02)")
    p.add_argument("--momentum", type=float, default=0.9, help="momentum (0.9)")
    p.add_argument("--weight-decay", type=float, default=0.0, help="weight decay (0)")
    p.add_argument("--threads", type=positive(int), default=os.cpu_count() or 1,
                   help="torch intra-op threads (default: the CPUs)")
    p.add_argument("--device", default="auto",
                   help="cpu, cuda, cuda:N, or auto (cuda when available, default)")
    p.add_argument("--data-seed", type=int, default=0,
                   help="seed of the evaluation subset and of the probe's shuffle (0)")


def build_parser():
    top = Parser(prog=PROG, description="mbkit's PyTorch front end: time the user's update "
                 "step (probe) and train to a target loss with the exact first crossing (runs), "
                 "writing mbkit's step table and run logs (docs/formats.md).")
    top.add_argument("--version", action="version", version=f"{PROG} {VERSION}")
    sub = top.add_subparsers(dest="cmd", metavar="COMMAND", parser_class=Parser)
    sub.required = True

    p = sub.add_parser("probe", prog=f"{PROG} probe",
                       help="time the model's update step per M: mbkit's step table",
                       description="Times one update (next shuffled batch, forward, loss, "
                       "backward, optimiser step) per M, the batch sizes interleaved in "
                       "--rounds passes; writes the step table mbfit tupdate reads.")
    common_args(p)
    p.add_argument("--rounds", type=positive(int), default=3, help="interleaved passes (3)")
    p.add_argument("--budget", type=positive(float), default=1.0,
                   help="seconds per M, warm-up included (1)")
    p.add_argument("--warmup", type=int, default=3, help="untimed calls first (3)")
    p.add_argument("--min-reps", type=positive(int), default=10, help="samples at least (10)")
    p.add_argument("--max-reps", type=positive(int), default=10000, help="samples at most")
    p.add_argument("--rel-ci", type=float, default=0.02,
                   help="stop when the median's 95%% interval is within this of it (0.02)")
    p.add_argument("--procs", type=lambda s: parse_list(s, "--procs", 1, 64), default=[1],
                   metavar="LIST", help="learner counts P: 1,2 (default 1); P > 1 runs P "
                   "processes data-parallel through torch.distributed (gloo on CPU, NCCL on "
                   "CUDA), M / P samples each")
    p.add_argument("-o", "--output", default="-", help="the step table (default stdout)")

    r = sub.add_parser("runs", prog=f"{PROG} runs",
                       help="train to a target loss at M x seeds: mbkit's run logs",
                       description="Trains at every M x seed until the evaluation loss on a "
                       "fixed subset of the training data is at or under --target-loss, finds "
                       "the exact first update that got there (snapshots and bisection), and "
                       "writes one run log per run (NET-ALGO-bM-sS.csv in --log-dir).")
    common_args(r)
    r.add_argument("--seeds", type=seed_list, default=[0], help="seeds: 0:2 or 0,5 (0)")
    r.add_argument("--plan", type=plan_list, default=None, metavar="TOKENS",
                   help="train exactly these M,LR,SEED tokens, in order (what 'mbopt validate "
                        "--holdout-plan' prints), instead of --batch x --seeds at --lr; "
                        "'{lr}' in --log-dir becomes each token's LR")
    r.add_argument("--target-loss", type=positive(float), required=True,
                   help="the evaluation loss to reach")
    r.add_argument("--eval-every", type=positive(int), default=None,
                   help="evaluate every E updates (default max(5, 400/M)); 1 evaluates every "
                        "update (no bisection needed)")
    r.add_argument("--eval-frac", type=fraction, default=0.2,
                   help="the evaluation subset, a fraction of the training set (0.2)")
    r.add_argument("--check-sigmas", type=positive(float), default=4.0,
                   help="a staged check rules the target out when the estimate is this many "
                        "standard errors above it (4)")
    r.add_argument("--no-check", action="store_true",
                   help="every evaluation sees the whole subset")
    r.add_argument("--no-bisect", action="store_true",
                   help="keep the first evaluated update at or under the target")
    r.add_argument("--max-updates", type=positive(int), default=20000,
                   help="stop a run after this many updates (20000)")
    r.add_argument("--epochs", type=positive(float), default=10.0, help="or epochs (10)")
    r.add_argument("--log-dir", required=True, help="one run log per run")
    r.add_argument("--allow-unreached", action="store_true",
                   help="exit 0 even when a run did not reach the target")
    return top


# ---- outputs, written atomically ---------------------------------------------------------------

class AtomicOut:
    """A regular file (or a new path) is written to PATH.tmp.PID.XXXXXX beside it and renamed
    into place when complete (docs/style.md, habit 11); '-' is standard output."""

    def __init__(self, path):
        self.path = path
        self.tmp = None
        if path == "-":
            self.f = sys.stdout
            return
        d = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(d):
            raise Fail(f"{path}: no such folder '{d}'")
        try:
            fd, self.tmp = tempfile.mkstemp(prefix=os.path.basename(path) + f".tmp.{os.getpid()}.",
                                            dir=d)
        except OSError as e:
            raise Fail(f"{path}: {e.strerror}")
        self.f = os.fdopen(fd, "w", encoding="utf-8")

    def commit(self):
        if self.tmp is None:
            try:
                self.f.flush()
            except OSError as e:
                raise Fail(f"standard output: write error: {e.strerror}")
            return
        try:
            self.f.flush()
            os.fsync(self.f.fileno())
            self.f.close()
            os.replace(self.tmp, self.path)
            self.tmp = None
        except OSError as e:
            self.abort()
            raise Fail(f"{self.path}: write error: {e.strerror}")

    def abort(self):
        if self.tmp is not None:
            try:
                self.f.close()
            except OSError:
                pass
            try:
                os.unlink(self.tmp)
            except OSError:
                pass
            self.tmp = None


def common_meta(tool, kind, argv):
    """The lines every mbkit output opens with (data/file.c): the format version of this kind
    of file first (data/format.c), then the tool, and the front end."""
    date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    cmd = " ".join([tool] + argv).replace("\n", " ")
    return [f"format=mbkit-{kind}/{FORMAT}", f"tool={tool}", f"version={VERSION}", f"host={socket.gethostname()}",
            f"date={date}", f"command={cmd}", "frontend=torch"]


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip().replace(",", ";")
    except OSError:
        pass
    return platform.processor() or "unknown"


def clean(s):
    """A CSV-safe cell (commas and newlines out), as probe/step.c's csv_clean."""
    return str(s).replace(",", ";").replace("\n", " ").replace("\r", " ")


# ---- the user's model file ---------------------------------------------------------------------

def load_user(spec):
    """Imports the model file (a path to a .py file, or a module name); Fail with one line
    naming what is wrong."""
    try:
        if spec.endswith(".py") or os.sep in spec:
            if not os.path.isfile(spec):
                raise Fail(f"{spec}: no such model file")
            name = "mbkit_user_" + os.path.splitext(os.path.basename(spec))[0].replace("-", "_")
            s = importlib.util.spec_from_file_location(name, spec)
            if s is None or s.loader is None:
                raise Fail(f"{spec}: not a Python file")
            mod = importlib.util.module_from_spec(s)
            sys.modules[name] = mod
            s.loader.exec_module(mod)
            stem = os.path.splitext(os.path.basename(spec))[0]
        else:
            mod = importlib.import_module(spec)
            stem = spec.rsplit(".", 1)[-1]
    except Fail:
        raise
    except BaseException as e:  # SyntaxError, ImportError, anything its top level raises
        if isinstance(e, KeyboardInterrupt):
            raise
        raise Fail(f"{spec}: the model file does not import: {type(e).__name__}: "
                   f"{one_line(e)}")
    for fn in ("model", "dataset"):
        if not callable(getattr(mod, fn, None)):
            raise Fail(f"{spec}: no function {fn}() (a model file defines model() and dataset())")
    name = str(getattr(mod, "NAME", stem))
    if not name or any(c in name for c in ",\n\r=") or name.strip() != name:
        raise Fail(f"{spec}: NAME '{name}' is not a plain name")
    mod.mb_name = name
    mod.mb_data = str(getattr(mod, "DATA", "user"))
    return mod


def one_line(e):
    s = str(e).strip().splitlines()
    return s[0] if s else "(no message)"


def call_user(mod, spec, fn, *args):
    """Calls the model file's fn; Fail naming the file and the function when it raises."""
    try:
        return getattr(mod, fn)(*args)
    except Fail:
        raise
    except Exception as e:
        raise Fail(f"{spec}: {fn}() raised {type(e).__name__}: {one_line(e)}")


def user_data(mod, spec, torch):
    out = call_user(mod, spec, "dataset")
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise Fail(f"{spec}: dataset() must return (x, y), got {type(out).__name__}")
    x, y = out
    if not (torch.is_tensor(x) and torch.is_tensor(y)):
        raise Fail(f"{spec}: dataset() must return two tensors (x, y)")
    if x.dim() < 2 or y.dim() != 1 or x.shape[0] != y.shape[0] or x.shape[0] < 1:
        raise Fail(f"{spec}: dataset(): x must be (N, ...) and y (N,), got {tuple(x.shape)} "
                   f"and {tuple(y.shape)}")
    if not x.is_floating_point():
        raise Fail(f"{spec}: dataset(): x must be a floating-point tensor, got {x.dtype}")
    return x, y.long()


def user_model(mod, spec, torch, seed, dev):
    torch.manual_seed(seed)
    m = call_user(mod, spec, "model")
    if not isinstance(m, torch.nn.Module):
        raise Fail(f"{spec}: model() must return a torch.nn.Module, got {type(m).__name__}")
    return m.to(dev)


def user_loss(mod, torch):
    f = getattr(mod, "loss", None)
    return f if callable(f) else torch.nn.functional.cross_entropy


def make_optim(torch, params, a):
    mom = 0.0 if a.algo == "sgd" else a.momentum
    return torch.optim.SGD(params, lr=a.lr, momentum=mom, nesterov=a.algo == "nesterov",
                           weight_decay=a.weight_decay)


def pick_device(torch, want):
    if want == "auto":
        want = "cuda" if torch.cuda.is_available() else "cpu"
    try:
        dev = torch.device(want)
    except (RuntimeError, ValueError):
        raise Fail(f"--device: '{want}' is not a device (cpu, cuda, cuda:N, auto)")
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise Fail(f"--device {want}: CUDA is not available here (torch "
                       f"{torch.__version__}, {torch.cuda.device_count()} devices)")
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise Fail(f"--device {want}: only {torch.cuda.device_count()} CUDA devices")
    elif dev.type != "cpu":
        raise Fail(f"--device: '{want}' is not supported (cpu, cuda, cuda:N, auto)")
    return dev


def device_name(torch, dev):
    if dev.type == "cuda":
        return clean(torch.cuda.get_device_name(dev))
    return clean(cpu_model())


def source(torch, dev, dname, threads):
    """The '# source=' line: the front end and the device, one line (mbplot report shows it)."""
    where = dname if dev.type == "cuda" else f"{dname}, {threads} threads"
    return f"PyTorch front end (mbkit_torch {VERSION}, torch {torch.__version__}) on " \
           f"{dev.type}: {where}".replace(",", ";")


def sync(torch, dev):
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


# ---- the step: one update of the user's model --------------------------------------------------

class Learner:
    """A model, its optimiser and a cursor over a seeded shuffle of the training set: the next
    mini-batch is the next consecutive slice of the epoch's permutation, the incomplete tail of
    an epoch dropped (as mbtrain's learner)."""

    def __init__(self, torch, net, opt, lossf, x, y, seed, dev):
        self.torch, self.net, self.opt, self.lossf = torch, net, opt, lossf
        self.x, self.y, self.dev = x, y, dev
        self.gen = torch.Generator().manual_seed(int(seed) + 0x6d626b)
        self.perm = None
        self.pos = 0
        self.epoch = -1
        self.samples = 0

    def step(self, m):
        torch = self.torch
        n = self.x.shape[0]
        if self.perm is None or self.pos + m > n:
            self.perm = torch.randperm(n, generator=self.gen)
            self.pos = 0
            self.epoch += 1
        idx = self.perm[self.pos:self.pos + m]
        self.pos += m
        xb = self.x.index_select(0, idx).to(self.dev, non_blocking=True)
        yb = self.y.index_select(0, idx).to(self.dev, non_blocking=True)
        self.net.train()
        self.opt.zero_grad(set_to_none=True)
        loss = self.lossf(self.net(xb), yb)
        loss.backward()
        self.opt.step()
        self.samples += m
        return loss


# ---- probe: the step table ---------------------------------------------------------------------

def ci_median(xs):
    """The distribution-free 95% interval of the median (probe/harness.c): [x_(k), x_(n+1-k)]
    with the largest k for which 1 - 2 P(Binomial(n, 1/2) <= k - 1) >= 0.95."""
    n = len(xs)
    s = sorted(xs)
    best = 0
    cdf = 0.0
    logh = n * math.log(0.5)
    for k in range(1, n // 2 + 1):
        cdf += math.exp(math.lgamma(n + 1) - math.lgamma(k) - math.lgamma(n - k + 2) + logh)
        if 1 - 2 * cdf >= 0.95:
            best = k
        else:
            break
    if best == 0:
        return float("nan"), float("nan")
    return s[best - 1], s[n - best]


def quantile(s, f):
    """GSL's gsl_stats_quantile_from_sorted_data: linear between order statistics."""
    if not s:
        return float("nan")
    d = (len(s) - 1) * f
    i = int(math.floor(d))
    if i + 1 >= len(s):
        return s[-1]
    return s[i] + (d - i) * (s[i + 1] - s[i])


def stats(xs):
    s = sorted(xs)
    med = quantile(s, 0.5)
    return {"reps": len(s), "median": med, "min": s[0], "max": s[-1], "p25": quantile(s, 0.25),
            "p75": quantile(s, 0.75)}


class Point:
    """One M's samples, its passes and its stop reason (probe/harness.c's measure_share)."""

    def __init__(self, m):
        self.m, self.x, self.starts, self.block, self.why, self.elapsed = m, [], [], 0, "", 0.0


class Clock:
    """The probe's clock: time.perf_counter, and a block of k calls timed by it. The
    distributed probe (mbkit_dist.py) replaces it with one that every rank reads alike."""

    def now(self):
        return time.perf_counter()

    def block(self, call, k):
        s = time.perf_counter()
        for _ in range(k):
            call()
        return time.perf_counter() - s


def measure_share(pt, call, a, budget, min_reps, clock=None):
    clock = clock or Clock()
    t0 = clock.now()

    def block(k):
        return clock.block(call, k)

    if pt.block == 0:
        for i in range(a.warmup):
            if i > 0 and clock.now() - t0 >= budget:
                break
            block(1)
        pt.block = 1
        if clock.now() - t0 < budget:  # blocked autorange: a sample lasts >= 2e-4 s
            dt = block(1)
            while dt < 2e-4 and pt.block < (1 << 30) and clock.now() - t0 < budget:
                pt.block *= 2
                dt = block(pt.block)
    else:
        block(pt.block)  # caches warm again after the other points ran
    taken = 0
    while True:
        if len(pt.x) >= a.max_reps:
            pt.why = "max-reps"
            return
        pt.x.append(block(pt.block) / pt.block)
        taken += 1
        el = clock.now() - t0
        if taken >= 1 and el >= budget:
            pt.why = "budget"
            return
        if taken >= min_reps:
            st = stats(pt.x)
            lo, hi = ci_median(pt.x)
            med = st["median"]
            if math.isfinite(lo) and med - lo <= a.rel_ci * med and hi - med <= a.rel_ci * med:
                pt.why = "ci"
                return


def probe_setup(torch, a, dev, threads, rank=0, procs=1):
    """The model file loaded, its data, and one learner's update at each M (M / procs samples
    on each of procs ranks), each M tried once: a bad model or loss fails here, in one line."""
    torch.set_num_threads(threads)
    mod = load_user(a.model)
    x, y = user_data(mod, a.model, torch)
    if max(a.batch) > x.shape[0]:
        raise Fail(f"--batch {max(a.batch)}: more than the {x.shape[0]} training samples")
    net = user_model(mod, a.model, torch, a.data_seed, dev)
    if procs > 1:  # torch.distributed data parallel: gradients averaged over the ranks
        net = torch.nn.parallel.DistributedDataParallel(
            net, device_ids=[dev.index] if dev.type == "cuda" else None)
    lossf = user_loss(mod, torch)
    opt = make_optim(torch, net.parameters(), a)
    lr_ = Learner(torch, net, opt, lossf, x, y, a.data_seed + 1000003 * rank, dev)

    def call_for(m):
        def call():
            loss = lr_.step(m // procs)
            sync(torch, dev)
            return loss
        return call

    try:
        for m in a.batch:
            l0 = call_for(m)()
            if not torch.isfinite(l0).all():
                raise Fail(f"{a.model}: the loss at M = {m} is not finite")
    except Fail:
        raise
    except Exception as e:
        raise Fail(f"{a.model}: the update step failed at M = {m}: {type(e).__name__}: "
                   f"{one_line(e)}")
    return mod, call_for


def probe_points(a, call_for, clock=None):
    """The batch sizes measured interleaved in --rounds passes (mbprobe step's harness)."""
    pts = [Point(m) for m in a.batch]
    share_min = (a.min_reps + a.rounds - 1) // a.rounds
    for _ in range(a.rounds):
        for pt in pts:
            pt.starts.append(len(pt.x))
            measure_share(pt, call_for(pt.m), a, a.budget / a.rounds, share_min, clock)
    return pts


def point_rows(a, pts, backend, name, procs, threads, dname, say):
    """The step table's rows of one learner count, and the largest drift (drift, M); the
    summary lines for the terminal go to the list `say`."""
    lines, worst = [], None
    for pt in pts:
        st = stats(pt.x)
        meds = []
        bounds = pt.starts + [len(pt.x)]
        for p in range(a.rounds):
            seg = pt.x[bounds[p]:bounds[p + 1]]
            if seg:
                meds.append(quantile(sorted(seg), 0.5))
        drift = (max(meds) - min(meds)) / min(meds) if len(meds) >= 2 and min(meds) > 0 else None
        if drift is not None and (worst is None or drift > worst[0]):
            worst = (drift, pt.m)
        wide = int((st["p75"] - st["p25"]) / st["median"] > 0.10)
        lines.append(f"{backend},{name},{pt.m},{procs},{threads},{st['reps']},"
                     f"{st['median']:.6g},{st['min']:.6g},{st['p25']:.6g},{st['p75']:.6g},"
                     f"{st['max']:.6g},{pt.m / st['median']:.6g},{wide},{pt.why},"
                     f"{'' if drift is None else format(drift, '.3g')},{dname}")
        say.append(f"P={procs:<3d} {pt.m:<5d} {st['reps']:6d} {st['median']:12.4g} "
                   f"{st['p25']:12.4g} {st['p75']:12.4g} {pt.m / st['median']:12.4g} "
                   f"{'-' if drift is None else format(100 * drift, '.1f') + '%':>7} {pt.why}")
    return lines, worst


def cmd_probe(a, argv):
    import torch
    dev = pick_device(torch, a.device)
    for p in a.procs:
        bad = [m for m in a.batch if m % p]
        if bad:
            raise Fail(f"--procs {p}: M = {bad[0]} is not a multiple of {p} (every learner "
                       f"computes M / P samples)")
    if max(a.procs) > 1 and dev.type == "cuda" and max(a.procs) > torch.cuda.device_count():
        raise Fail(f"--procs {max(a.procs)}: only {torch.cuda.device_count()} CUDA devices "
                   f"(one learner a GPU)")
    mod, call_for = probe_setup(torch, a, dev, a.threads)
    out = AtomicOut(a.output) if a.output != "-" else None  # the folder is checked before timing
    say = sys.stderr if a.output == "-" else sys.stdout
    dname = device_name(torch, dev)
    backend = "cuda" if dev.type == "cuda" else "cpu"
    rows, worst, shown = [], None, []
    try:
        for p in a.procs:
            if p == 1:
                pts, threads = probe_points(a, call_for), a.threads
            else:
                import mbkit_dist
                try:
                    pts, threads = mbkit_dist.probe(a, p, dev), mbkit_dist.threads(a, p, dev)
                except mbkit_dist.fe.Fail as e:  # that module's copy of this one's Fail
                    raise Fail(str(e))
            r, w = point_rows(a, pts, backend, mod.mb_name, p, threads, dname, shown)
            rows += r
            if w is not None and (worst is None or w[0] > worst[0]):
                worst = w
    except BaseException:  # a learner process failed, or ^C: no half-written table
        if out is not None:
            out.abort()
        raise
    dist = [f"# dist_backend={'nccl' if dev.type == 'cuda' else 'gloo'}",
            "# dist=torch.distributed data parallel (DistributedDataParallel), one process a "
            "learner, M / P samples each; t_median_s is the slowest rank's"] \
        if max(a.procs) > 1 else []
    lines = ["# " + kv for kv in common_meta(f"{PROG} probe", "step", argv)]
    lines += [f"# source={source(torch, dev, dname, a.threads)}",
              f"# torch={torch.__version__}", f"# device={dev.type}", f"# device_name={dname}",
              f"# cpu_model={clean(cpu_model())}", f"# threads={a.threads}",
              f"# clock=time.perf_counter" + ("+torch.cuda.synchronize" if dev.type == "cuda" else ""),
              "# probe=step", f"# net={mod.mb_name}", f"# data={mod.mb_data}",
              f"# algo={a.algo}", f"# lr={a.lr:g}", f"# momentum={a.momentum if a.algo != 'sgd' else 0:g}",
              f"# model_file={clean(a.model)}", f"# seed={a.data_seed}",
              "# timing=one update = next shuffled batch gathered, forward, loss, backward, "
              "optimiser step" + (", torch.cuda.synchronize()" if dev.type == "cuda" else ""),
              f"# warmup={a.warmup}", f"# min_reps={a.min_reps}", f"# max_reps={a.max_reps}",
              f"# rel_ci={a.rel_ci:g}", f"# budget_s={a.budget:g}", f"# rounds={a.rounds}",
              f"# procs={','.join(str(p) for p in a.procs)}"] + dist + [
              "backend,net,batch,learners,threads,reps,t_median_s,t_min_s,t_p25_s,t_p75_s,"
              "t_max_s,samples_per_s,wide,stop,drift,device"] + rows
    if out is None:
        out = AtomicOut("-")
    try:
        out.f.write("\n".join(lines) + "\n")
    except OSError as e:
        out.abort()
        raise Fail(f"{a.output}: write error: {e.strerror}")
    out.commit()
    print("\n".join(shown), file=say)
    if worst is None:
        print("steadiness: not measured (it needs --rounds 2 or more)", file=say)
    elif worst[0] <= 0.05:
        print(f"steadiness: the {a.rounds} passes agree within {100 * worst[0]:.1f}% at every "
              f"point", file=say)
    else:
        print(f"steadiness: the {a.rounds} passes disagree by up to {100 * worst[0]:.0f}% "
              f"(batch {worst[1]}): the machine changed speed during the sweep", file=say)
    return 0


# ---- runs: training to a target with the exact first crossing ----------------------------------

class Judge:
    """Evaluates the model on the fixed evaluation subset (mean loss and accuracy), by stages
    when checking: chunks in a fixed order, and after each (from the 4th) the target is ruled
    out when the mean so far is check_sigmas standard errors (of the chunk means) above it, or
    the losses seen already sum past target x subset size (losses are >= 0). A check that is not
    ruled out has seen every sample. Deterministic: the same parameters give the same verdict."""

    def __init__(self, torch, net, lossf, ex, ey, dev, target, sigmas, check):
        self.torch, self.net, self.lossf, self.dev = torch, net, lossf, dev
        n = ex.shape[0]
        self.chunk = max(32, min(256, n // 64))  # 4 chunks: a check's least look
        self.ex, self.ey, self.n = ex, ey, n
        self.target, self.sigmas, self.check = target, sigmas, check
        self.seconds = 0.0
        self.evals = self.checks = self.samples = 0

    def __call__(self, full=False):
        """(loss, acc) of a full evaluation, or (None, None) when a check ruled the target out."""
        torch = self.torch
        t0 = time.perf_counter()
        self.net.eval()
        total, correct, seen, means = 0.0, 0, 0, []
        ruled = False
        with torch.no_grad():
            for s in range(0, self.n, self.chunk):
                xb = self.ex[s:s + self.chunk].to(self.dev, non_blocking=True)
                yb = self.ey[s:s + self.chunk].to(self.dev, non_blocking=True)
                out = self.net(xb)
                k = yb.shape[0]
                l = float(self.lossf(out, yb)) * k
                total += l
                correct += int((out.argmax(1) == yb).sum()) if out.dim() == 2 else 0
                seen += k
                means.append(l / k)
                if full or not self.check or seen >= self.n or not math.isfinite(total):
                    continue
                if total > self.target * self.n:
                    ruled = True
                elif len(means) >= 4:
                    mu = total / seen
                    var = sum((v - mu) ** 2 for v in means) / (len(means) - 1)
                    se = math.sqrt(var / len(means)) * math.sqrt(1 - seen / self.n)
                    ruled = mu - self.sigmas * se > self.target
                if ruled:
                    break
        self.seconds += time.perf_counter() - t0
        self.samples += seen
        if ruled:
            self.checks += 1
            return None, None
        self.evals += 1
        return total / self.n, correct / self.n


def fmt_row(u, epoch, samples, wall, loss, el, ea):
    if el is None or not math.isfinite(el):
        return f"{u},{epoch},{samples},{wall:.6f},{loss:.7g},,"
    return f"{u},{epoch},{samples},{wall:.6f},{loss:.7g},{el:.7g},{ea:.6g}"


def train_one(torch, mod, a, x, y, ex, ey, m, seed, dev, argv, dname, classes):
    """One run at M = m and `seed`; writes its log; returns (reached, summary dict)."""
    net = user_model(mod, a.model, torch, seed, dev)
    lossf = user_loss(mod, torch)
    opt = make_optim(torch, net.parameters(), a)
    lrn = Learner(torch, net, opt, lossf, x, y, seed, dev)
    E = a.eval_every or max(5, 400 // m)
    bisect = not a.no_bisect
    judge = Judge(torch, net, lossf, ex, ey, dev, a.target_loss, a.check_sigmas, not a.no_check)
    blowup = 100.0 * math.log(max(classes, 2))
    per_epoch = x.shape[0] // m
    bound = a.max_updates
    if a.epochs > 0:
        bound = min(bound, int(math.ceil(a.epochs * per_epoch)))
    params = sum(p.numel() for p in net.parameters())
    rows = []          # the log's rows, as text
    win = []           # the window: (row fields, snapshot) since the last evaluation
    wall = snap_s = 0.0
    u = 0
    reached_u = diverged_u = -1
    reached_wall = float("nan")
    eval_loss = eval_acc = float("nan")
    loss_v = float("nan")
    next_eval = E

    def snapshot():
        return [t.detach().clone() for t in net.state_dict().values()]

    def restore(snap):
        with torch.no_grad():
            for t, s in zip(net.state_dict().values(), snap):
                t.copy_(s)

    while u < bound:
        t0 = time.perf_counter()
        loss = lrn.step(m)
        loss_v = loss.detach().item()  # waits for the device: the update is done
        wall += time.perf_counter() - t0
        u += 1
        if not math.isfinite(loss_v):
            diverged_u = u
            break
        last = u == bound
        row = [u, lrn.epoch, lrn.samples, wall, loss_v, None, None]
        if u == next_eval or last:
            el, ea = judge(full=last)
            if el is not None:
                eval_loss, eval_acc = el, ea
                row[5], row[6] = el, ea
                if not math.isfinite(el) or el > blowup:
                    diverged_u = u
                elif el <= a.target_loss:
                    reached_u, reached_wall = u, wall
            next_eval = u + E
            if reached_u == u and bisect and win:
                # bisection over the window's snapshots: lo above the target (or the window's
                # start), hi at or under it; the first update at or under it is hi
                t1 = time.perf_counter()
                live = snapshot()
                snap_s += time.perf_counter() - t1
                u0 = win[0][0][0] - 1
                lo, hi = u0, u
                while hi - lo > 1:
                    mid = lo + (hi - lo) // 2
                    k = mid - u0 - 1
                    t1 = time.perf_counter()
                    restore(win[k][1])
                    snap_s += time.perf_counter() - t1
                    el2, ea2 = judge()
                    if el2 is not None:
                        win[k][0][5], win[k][0][6] = el2, ea2
                    if el2 is not None and el2 <= a.target_loss:
                        hi = mid
                    else:
                        lo = mid
                t1 = time.perf_counter()
                restore(live)
                snap_s += time.perf_counter() - t1
                reached_u = hi
                reached_wall = win[hi - u0 - 1][0][3] if hi < u else wall
            rows.extend(fmt_row(*w[0]) for w in win)
            rows.append(fmt_row(*row))
            win = []
            if reached_u > 0 or diverged_u > 0:
                break
        elif bisect:
            t1 = time.perf_counter()
            win.append((row, snapshot()))
            snap_s += time.perf_counter() - t1
        else:
            rows.append(fmt_row(*row))
    rows.extend(fmt_row(*w[0]) for w in win)
    if math.isnan(eval_loss) and diverged_u < 0:
        eval_loss, eval_acc = judge(full=True)
    reached = reached_u > 0
    algo = a.algo
    summary = (f"net={mod.mb_name} algo={algo} batch={m} seed={seed} updates={u} "
               f"epochs={lrn.samples / x.shape[0]:.4f} samples={lrn.samples} wall_s={wall:.3f} "
               f"eval_s={judge.seconds:.3f} loss={loss_v:.6g} eval_loss={eval_loss:.6g} "
               f"eval_acc={eval_acc:.4f} reached={'yes' if reached else 'no'} "
               f"reached_update={reached_u} reached_wall_s={reached_wall:.3f} "
               f"evals={judge.evals} checks={judge.checks} eval_samples={judge.samples} "
               f"snap_s={snap_s:.3f} diverged={'yes' if diverged_u > 0 else 'no'} "
               f"diverged_update={diverged_u}")
    # a value that is none (reached_wall_s of a run that did not reach) is "-", as mbtrain's
    summary = " ".join(k + "=-" if v in ("nan", "-nan", "inf", "-inf") else k + "=" + v
                       for k, v in (t.split("=", 1) for t in summary.split()))
    meta = common_meta(f"{PROG} runs", "runlog", argv) + [
        f"source={source(torch, dev, dname, a.threads)}", f"torch={torch.__version__}", f"net={mod.mb_name}", f"params={params}",
        f"data={mod.mb_data}", f"algo={algo}", f"batch={m}", "learners=1", f"lr={a.lr:.9g}",
        f"momentum={0.0 if algo == 'sgd' else a.momentum:.9g}",
        f"weight_decay={a.weight_decay:.9g}", "lr_step=0", "lr_gamma=0.1", f"seed={seed}",
        f"threads={a.threads}", f"eval_frac={a.eval_frac:.9g}", f"data_seed={a.data_seed}",
        f"eval_every={E}", f"backend={'cuda' if dev.type == 'cuda' else 'cpu'}",
        f"device={dev.type}", f"device_name={dname}", f"model_file={clean(a.model)}"]
    if not a.no_check:
        meta += [f"check_sigmas={a.check_sigmas:.9g}"]
    meta += [f"target_loss={a.target_loss:.9g}",
             f"crossing={'evaluated' if a.no_bisect else 'bisect'}"]
    if diverged_u > 0:
        meta.append(f"diverged={diverged_u}")
    name = f"{mod.mb_name}-{algo}-b{m}-s{seed}.csv"
    path = os.path.join(a.log_dir, name)
    out = AtomicOut(path)
    try:
        out.f.write("".join(f"# {kv}\n" for kv in meta))
        out.f.write("update,epoch,samples,wall_s,loss,eval_loss,eval_acc\n")
        out.f.write("".join(r + "\n" for r in rows))
        out.f.write(f"# {summary}\n")
    except OSError as e:
        out.abort()
        raise Fail(f"{path}: write error: {e.strerror}")
    out.commit()
    print(summary, flush=True)
    if diverged_u > 0:
        print(f"{PROG} runs: M = {m}, seed {seed}: diverged at update {diverged_u} (lower "
              f"--lr); the log says so", file=sys.stderr)
    elif not reached:
        print(f"{PROG} runs: M = {m}, seed {seed}: did not reach target loss "
              f"{a.target_loss:g} in {u} updates (last eval loss {eval_loss:.4g}); the log "
              f"says so ({path})", file=sys.stderr)
    return reached, diverged_u > 0, path


def cmd_runs(a, argv):
    import torch
    torch.set_num_threads(a.threads)
    dev = pick_device(torch, a.device)
    mod = load_user(a.model)
    x, y = user_data(mod, a.model, torch)
    n = x.shape[0]
    biggest = max(t[0] for t in a.plan) if a.plan else max(a.batch)
    if biggest > n:
        raise Fail(f"--batch {biggest}: more than the {n} training samples")
    classes = int(getattr(mod, "CLASSES", int(y.max()) + 1))
    ne = max(1, int(round(a.eval_frac * n)))
    g = torch.Generator().manual_seed(int(a.data_seed))
    eidx = torch.randperm(n, generator=g)[:ne]
    ex, ey = x.index_select(0, eidx).to(dev), y.index_select(0, eidx).to(dev)
    dname = device_name(torch, dev)
    unreached = []
    if a.plan:
        todo = a.plan
    else:  # seed by seed over M, as make run's sweep
        todo = [(m, f"{a.lr:g}", a.lr, seed) for seed in a.seeds for m in a.batch]
    base_dir = a.log_dir
    for m, lr_text, lr, seed in todo:
        a.lr = lr
        a.log_dir = base_dir.replace("{lr}", lr_text)
        try:
            os.makedirs(a.log_dir, exist_ok=True)
        except OSError as e:
            raise Fail(f"--log-dir {a.log_dir}: {e.strerror}")
        ok, div, path = train_one(torch, mod, a, x, y, ex, ey, m, seed, dev, argv, dname,
                                  classes)
        if not ok and not div:
            unreached.append(f"M = {m} seed {seed}")
    if unreached and not a.allow_unreached:
        raise Fail(f"{len(unreached)} of {len(todo)} runs did not reach "
                   f"target loss {a.target_loss:g} ({', '.join(unreached[:6])}"
                   f"{', ...' if len(unreached) > 6 else ''}): raise --target-loss or "
                   f"--max-updates; their logs are written")
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a = build_parser().parse_args(argv)
    if a.batch is None and not (a.cmd == "runs" and a.plan):
        Parser(prog=f"{PROG} {a.cmd}").error("the following arguments are required: --batch")
    if a.cmd == "probe" and (a.min_reps > a.max_reps or a.rel_ci < 0 or a.warmup < 0):
        Parser(prog=f"{PROG} probe").error("--min-reps above --max-reps, or a negative "
                                           "--rel-ci or --warmup")
    if a.momentum < 0 or a.weight_decay < 0:
        Parser(prog=f"{PROG} {a.cmd}").error("--momentum and --weight-decay must be >= 0")
    try:
        return cmd_probe(a, argv) if a.cmd == "probe" else cmd_runs(a, argv)
    except Fail as e:
        sys.stderr.write(f"{PROG} {a.cmd}: {e}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG} {a.cmd}: interrupted; nothing half-written\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
