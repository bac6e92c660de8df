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
Exit status: 0 done; 1 bad input (a bad flag value, a model file that does not import, a
factory that raises, bad data, a run that never reached the target, a write error), one line,
never a traceback; 2 usage (an unknown flag, a flag given twice or one the mode ignores).
"""
import argparse
import copy
import errno
import importlib
import importlib.util
import math
import os
import platform
import resource
import signal
import socket
import struct
import sys
import time

import mbkit_streams as streams
from mbkit_streams import ERR, Fail, quiet_stdout, say_err, user_stdout
from mbkit_output import Output, fifo_wait, not_regular, same_file, say_out, stdout_closed

PROG = "mbkit_torch"
VERSION = "0.1.0"
FORMAT = 1  # the format version: '# format=mbkit-runlog/1', 'mbkit-step/1' (docs/formats.md)


# ---- command line ------------------------------------------------------------------------------

class Parser(argparse.ArgumentParser):
    """argparse with mbkit's usage errors: one line, then "Try '... --help'", exit 2; a flag
    given twice is one of them (the last value winning silently is how "--lr 0.1 ... --lr 0.2"
    trains at 0.2: data/cli.c)."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.register("action", None, _Once)
        self.register("action", "store", _Once)
        self.register("action", "store_true", _OnceTrue)

    def error(self, message):
        sys.stderr.write(f"{self.prog}: {meta_text(message)}\nTry '{self.prog} --help'\n")
        sys.exit(2)


def _given_once(parser, namespace, action, option_string):
    """Records that action's flag was given; a second time is a usage error."""
    seen = getattr(namespace, "given", None)
    if seen is None:
        seen = set()
        setattr(namespace, "given", seen)
    if action.dest in seen:
        parser.error(f"option '{option_string}' given twice"
                     + (": it takes one value" if action.nargs != 0 else ""))
    seen.add(action.dest)


class _Once(argparse._StoreAction):
    def __call__(self, parser, namespace, values, option_string=None):
        _given_once(parser, namespace, self, option_string)
        super().__call__(parser, namespace, values, option_string)


class _OnceTrue(argparse._StoreTrueAction):
    def __call__(self, parser, namespace, values, option_string=None):
        _given_once(parser, namespace, self, option_string)
        super().__call__(parser, namespace, values, option_string)


THREADS_MAX = 256        # mbtrain's --threads (MB_CTX_MAX_THREADS, train/backend/mb_backend.h)
SEEDS_MAX = 1000         # seeds in one --seeds list (mbtrain's MAX_SWEEP_SEEDS)
SEED_MAX = 1 << 40       # a seed or --data-seed, as mbtrain takes them
SEED_SPAN = 100000       # a seed range lo:hi spans at most this (mbtrain's parse_seeds)
REPS_MAX = 10 ** 6       # --warmup, --min-reps, --max-reps (docs/commands.md, "Numbers")
BUDGET_MAX = 3600.0      # --budget, seconds a point (mbprobe's)
UPDATES_MAX = 1 << 40    # --max-updates (mbtrain's bound on a run)
EVAL_MIN = 10            # the fewest samples an evaluation subset holds (mbtrain's EVAL_MIN)
STEP_QUICK = 2           # a probe's divergence within this many finite updates of a restart ...
STEP_QUICK_TIMES = 10    # ... this many times in a row is a bad rate (probe/mb_probe.h's)
WAIT_MAX = 1e9           # --wait-timeout, as mbtrain's
WAIT_MIN = 1.0           # ... and its floor when not 0 (MB_RUN_WAIT_MIN: the first wait spans
                         # the others' start)


def count_notation(text, lo, hi):
    """The note mbkit's C counts give (data/parse.c: mb_data_count_notation, campaign 44 A's F7)
    on a whole number in [lo, hi] written in another notation than digits alone (1e1, 16.0):
    " written in digits alone ('1e1' is 10: write that)", else ""."""
    d = len(text) - len(text.lstrip("0123456789"))
    rest = text[d:]
    if d == 0 or not text.isascii() or "_" in text or text != text.strip() or not (rest[:1] in ("e", "E") or
                                            rest[:1] == "." and
                                            rest[1:].lstrip("0")[:1] in ("", "e", "E")):
        return ""
    try:
        v = float(text)
    except ValueError:
        return ""
    if not (math.isfinite(v) and v == math.floor(v) and lo <= v <= hi):
        return ""
    return f" written in digits alone ('{text}' is {v:.0f}: write that)"


def whole(text, name, lo=0, hi=1 << 53):
    """A whole number as mbtrain reads counts: digits only (no '+', '_', '1e1', spaces), in
    [lo, hi]; Fail naming the flag otherwise. A bad value is exit 1, as the C tools': the
    converters raise Fail, which argparse does not catch (its own errors are usage, exit 2)."""
    if not (text.isascii() and text.isdigit()):
        raise Fail(f"{name}: '{text}' is not a whole number{count_notation(text, lo, hi)}")
    v = int(text)
    if not lo <= v <= hi:
        raise Fail(f"{name}: {v} is not in [{lo}, {hi}]")
    return v


def parse_list(text, name, lo=1, hi=1 << 20):
    """mbkit's lists: '8,16,32', 'lo:hi' (doubling from lo to hi) or both: '1,3,8:64'."""
    out = []
    for item in text.split(","):
        if not item:
            raise Fail(f"{name}: empty item in '{text}'")
        if ":" in item:
            a, b = item.split(":", 1)
            a, b = whole(a, name, lo, hi), whole(b, name, lo, hi)
            if b < a:
                raise Fail(f"{name}: '{item}' is not lo:hi with lo <= hi")
            v = a
            while v <= b:
                out.append(v)
                v *= 2
        else:
            out.append(whole(item, name, lo, hi))
    return out


def seed_list(text):
    """Seeds: '0:4' is 0, 1, 2, 3, 4 (a range, not doubling, as mbtrain --seeds), or a list;
    ranges (range objects), counted and expanded by check_args (at most SEEDS_MAX seeds)."""
    out = []
    for item in text.split(","):
        if not item:
            raise Fail(f"--seeds: empty item in '{text}'")
        a, _, b = item.partition(":")
        lo = whole(a, "--seeds", 0, SEED_MAX)
        hi = whole(b, "--seeds", 0, SEED_MAX) if b else lo
        if hi < lo or hi - lo >= SEED_SPAN:
            raise Fail(f"--seeds: '{item}' is not a range lo:hi of lo <= hi and at most "
                       f"{SEED_SPAN} seeds")
        out.append(range(lo, hi + 1))
    return out


def plan_list(text):
    """M,LR,SEED tokens separated by white space (mbopt validate --holdout-plan)."""
    out = []
    for tok in text.split():
        try:
            m, lr, seed = tok.split(",")
            mv, lv = whole(m, "M", 1, 1 << 20), float(lr)
            sv = whole(seed, "SEED", 0, SEED_MAX)
            if not (lv > 0) or not math.isfinite(lv) or "_" in lr:
                raise ValueError
        except (ValueError, Fail):
            raise Fail(f"--plan: '{tok}' is not an M,LR,SEED token (M >= 1, a finite LR > 0, "
                       f"SEED >= 0)")
        rate(lr, f"--plan: '{tok}': LR")  # as --lr's (campaign 35's E7: 1e-300 stepped by 0)
        out.append((mv, lr, lv, sv))
    if not out:
        raise Fail("--plan: no M,LR,SEED token")
    return out


def count(name, lo=1, hi=1 << 53):
    return lambda text: whole(text, name, lo, hi)


FLOAT32_MIN = 1.1754943508222875e-38  # the least normal float32: the parameters' type
FLOAT32_MAX = 3.4028234663852886e38  # the largest float32


def rate(text, name="--lr"):
    """--lr: > 0 and within float32's normal range, the parameters' type (a rate of 1e-300 was
    logged as given and stepped by 0: campaign 34's E10; 1e39 ended in torch's own overflow error,
    no flag named: campaign 36's E3). The rate rule mbtrain's mb_data_flag_lr (data/parse.c) and
    make's floatrate (run.mk, TORCH_LR and LR/LRS) share: FLOAT32_MIN <= rate <= FLOAT32_MAX."""
    v = real(name, 0)(text)
    if v > FLOAT32_MAX:
        raise Fail(f"{name}: '{text}' is above the largest float ({FLOAT32_MAX:.2g}), the type "
                   f"training takes it in")
    if v < FLOAT32_MIN:
        raise Fail(f"{name}: '{text}' is below the least rate a step in float can take "
                   f"({FLOAT32_MIN:.2g})")
    return v


def momentum(text):
    """--momentum: in [0, 1), and below 1 as the float32 the step takes it in (0.99999999999 is
    1 there: campaign 35's E1), as mbtrain's mb_data_flag_momentum."""
    v = real("--momentum", 0, 1, False, True)(text)
    if struct.unpack("f", struct.pack("f", v))[0] >= 1:
        raise Fail(f"--momentum: '{text}' is 1 in float, the type the step takes it in (a "
                   f"momentum of 1 never decays): at most 0.99999994")
    return v


def float32(name):
    """A real flag >= 0 that the step takes as a float32 (--weight-decay): refused above float32's
    largest number (inf there) or, not 0, below its least normal one (campaign 35's E1: 1e39 was
    inf), as mbtrain's mb_data_flag_float."""
    def conv(text):
        v = real(name, 0, lo_open=False)(text)
        if v > FLOAT32_MAX:
            raise Fail(f"{name}: '{text}' is above the largest float ({FLOAT32_MAX:.2g}), the "
                       f"type training takes it in")
        if 0 < v < FLOAT32_MIN:
            raise Fail(f"{name}: '{text}' is below the least normal float ({FLOAT32_MIN:.2g}), "
                       f"the type training takes it in")
        return v
    return conv


def real(name, lo, hi=math.inf, lo_open=True, hi_open=False):
    """A finite number in the interval lo..hi (open or closed at each end), as the C tools'
    mb_data_flag_double: 'nan', 'inf', '1_0' and hex are not; Fail naming the flag otherwise."""
    def conv(text):
        try:  # ASCII only: float() reads full-width digits ('５') too (campaign 25's V8)
            ok = "_" not in text and text.strip() == text and text.isascii()
            v = float(text) if ok else math.nan
        except ValueError:
            v = math.nan
        if not math.isfinite(v):
            raise Fail(f"{name}: '{text}' is not a finite number")
        if v == 0 and any(c in "123456789" for c in text.lower().split("e")[0]):
            # '1e-400' reads as 0, which for --wait-timeout is no limit at all
            raise Fail(f"{name}: '{text}' is too small a number: it reads as 0")
        if v < lo or (lo_open and v == lo) or v > hi or (hi_open and v == hi):
            if math.isinf(hi):  # no upper bound but finiteness: '(0, inf]' would invite 'inf'
                raise Fail(f"{name}: must be {'>' if lo_open else '>='} {lo:g}, got '{text}'")
            rng = f"{'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"
            raise Fail(f"{name}: must be in {rng}, got '{text}'")
        return v
    return conv


def common_args(p):
    p.add_argument("--model", required=True, metavar="FILE",
                   help="the model file (a .py path or a module name): model(), dataset(), "
                        "optionally loss(), NAME, DATA")
    p.add_argument("--batch", type=lambda s: parse_list(s, "--batch"),
                   metavar="LIST", help="mini-batch sizes M: 16,32,64 or 16:128 (doubling)")
    p.add_argument("--algo", choices=["sgd", "momentum", "nesterov"], default="momentum",
                   help="optimiser, as mbtrain names it (default momentum)")
    p.add_argument("--lr", type=rate, default=0.02, help="learning rate (0.02)")
    p.add_argument("--momentum", type=momentum, default=0.9,
                   help="momentum, in [0, 1) (0.9)")
    p.add_argument("--weight-decay", type=float32("--weight-decay"), default=0.0,
                   help="weight decay (0)")
    p.add_argument("--threads", type=count("--threads", 1, THREADS_MAX),
                   default=min(os.cpu_count() or 1, THREADS_MAX),
                   help="torch intra-op threads (default: the CPUs)")
    p.add_argument("--device", default="auto",
                   help="cpu, cuda, cuda:N, or auto (cuda when available, default)")
    p.add_argument("--data-seed", type=count("--data-seed", 0, SEED_MAX), default=0,
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
    p.add_argument("--rounds", type=count("--rounds", 1, 1000), default=3,
                   help="interleaved passes (3)")
    p.add_argument("--budget", type=real("--budget", 0, BUDGET_MAX), default=1.0,
                   help="seconds per M, warm-up included (1)")
    p.add_argument("--warmup", type=count("--warmup", 0, REPS_MAX), default=3,
                   help="untimed calls first (3)")
    p.add_argument("--min-reps", type=count("--min-reps", 1, REPS_MAX), default=10,
                   help="samples at least (10)")
    p.add_argument("--max-reps", type=count("--max-reps", 1, REPS_MAX), default=10000,
                   help="samples at most")
    p.add_argument("--rel-ci", type=real("--rel-ci", 0, 1, True, True), default=0.02,
                   help="stop when the median's 95%% interval is within this of it (0.02)")
    p.add_argument("--procs", type=lambda s: parse_list(s, "--procs", 1, 64), default=[1],
                   metavar="LIST", help="learner counts P: 1,2 (default 1); P > 1 runs P "
                   "processes data-parallel through torch.distributed (gloo on CPU, NCCL on "
                   "CUDA), M / P samples each")
    p.add_argument("--wait-timeout", type=real("--wait-timeout", 0, WAIT_MAX, False),
                   default=600.0, metavar="S",
                   help="with --procs above 1, a rank that waits S seconds for the others "
                        "(a stalled rank) ends the job (600; 0: no limit; else at least 1, "
                        "as mbtrain's)")
    p.add_argument("-o", "--output", default="-", help="the step table (default stdout)")

    r = sub.add_parser("runs", prog=f"{PROG} runs",
                       help="train to a target loss at M x seeds: mbkit's run logs",
                       description="Trains at every M x seed until the evaluation loss on a "
                       "fixed subset of the training data is at or under --target-loss, finds "
                       "the exact first update that got there (snapshots and bisection), and "
                       "writes one run log per run (NET-ALGO-bM-sS.csv in --log-dir). A run "
                       "that stops short of the target (--max-updates, --epochs) makes the exit "
                       "status 1 once all are trained (--allow-unreached: 0). A run whose loss "
                       "becomes non-finite, or whose eval loss is above 100 ln(classes), has "
                       "diverged, as mbtrain's: its log is written with '# diverged=U' "
                       "(diverged=yes), one line on stderr says so, the sweep goes on, and the "
                       "exit status stays 0.")
    common_args(r)
    r.add_argument("--seeds", type=seed_list, default=[range(0, 1)], help="seeds: 0:2 or 0,5 (0)")
    r.add_argument("--plan", type=plan_list, default=None, metavar="TOKENS",
                   help="train exactly these M,LR,SEED tokens, in order (what 'mbopt validate "
                        "--holdout-plan' prints), instead of --batch x --seeds at --lr; "
                        "'{lr}' in --log-dir becomes each token's LR")
    r.add_argument("--target-loss", type=real("--target-loss", 0), required=True,
                   help="the evaluation loss to reach")
    r.add_argument("--eval-every", type=count("--eval-every", 1, UPDATES_MAX), default=None,
                   help="evaluate every E updates (default max(5, 400/M)); 1 evaluates every "
                        "update (no bisection needed)")
    r.add_argument("--eval-frac", type=real("--eval-frac", 0, 1), default=0.2,
                   help="the evaluation subset, a fraction of the training set (0.2)")
    r.add_argument("--check-sigmas", type=real("--check-sigmas", 0), default=4.0,
                   help="a staged check rules the target out when the estimate is this many "
                        "standard errors above it (4)")
    r.add_argument("--no-check", action="store_true",
                   help="every evaluation sees the whole subset")
    r.add_argument("--no-bisect", action="store_true",
                   help="keep the first evaluated update at or under the target")
    r.add_argument("--max-updates", type=count("--max-updates", 1, UPDATES_MAX), default=20000,
                   help="stop a run after this many updates (20000)")
    r.add_argument("--epochs", type=real("--epochs", 0), default=10.0, help="or epochs (10)")
    r.add_argument("--log-dir", required=True, help="one run log per run")
    r.add_argument("--allow-unreached", action="store_true",
                   help="exit 0 even when a run stopped short of the target (a diverged run "
                        "leaves the exit status 0 without it)")
    return top


def common_meta(tool, kind, argv):
    """The lines every mbkit output opens with (data/file.c): the format version of this kind
    of file first (data/format.c), then the tool, and the front end."""
    date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    cmd = " ".join(meta_text(w) for w in [PROG] + argv)  # argv names the command: probe, runs
    return [f"format=mbkit-{kind}/{FORMAT}", f"tool={tool}", f"version={VERSION}",
            f"host={meta_text(socket.gethostname())}",
            f"date={date}", f"command={cmd}", "frontend=torch"]


META_ESC = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def meta_text(s):
    """Text of the user's (argv, a path) as a metadata value, on one line: each control
    character escaped as \\n, \\r, \\t or \\xHH, as data/format.c's mb_format_meta_text
    writes it (a newline in --log-dir writes no metadata line of its own)."""
    return "".join(c if ord(c) >= 32 and ord(c) != 127 else META_ESC.get(c, f"\\x{ord(c):02x}")
                   for c in s)


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
    if not spec.strip():  # campaign 28's Z3: "mbkit_torch probe: : ... Empty module name"
        raise Fail("--model: empty (a model file, FILE.py, or a module name)")
    try:
        if spec.endswith(".py") or os.sep in spec:
            if not os.path.exists(spec):
                raise Fail(f"{spec}: no such model file")
            if not_regular(spec):
                raise Fail(f"{spec}: not a model file: {not_regular(spec)}")
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
    for fn in ("model", "dataset", "loss"):  # loss is optional, but not ignored when wrong
        v = user_attr(mod, spec, fn)
        if v is MISSING:
            if fn == "loss":
                continue
            raise Fail(f"{spec}: no function {fn}() (a model file defines model() and dataset())")
        if not callable(v):
            raise Fail(f"{spec}: {fn} is not a function ({fn} = {clean(repr(v))[:40]}, "
                       f"{type(v).__name__})")
    mod.mb_name = plain_name(spec, user_attr(mod, spec, "NAME", stem))
    data = user_attr(mod, spec, "DATA", "user")
    if not isinstance(data, str) or not data or any(ord(c) < 32 or ord(c) == 127 for c in data) \
            or data.strip() != data:
        raise Fail(f"{spec}: DATA {data!r} is not a data set's name (one line of text, no "
                   f"control characters)")
    mod.mb_data = data
    return mod


def plain_name(spec, name):
    """The net's NAME: it names every run log (NAME-ALGO-bM-sS.csv in --log-dir) and fills
    metadata, so one file-name word that starts with a letter or digit (not a dot-file that
    '*.csv' skips, nor '-rf', a log name a reader takes for an option): no '/', ',', '=',
    white space or control characters."""
    if not isinstance(name, str) or not name or not ("0" <= name[0] <= "9" or
                                                     "a" <= name[0].lower() <= "z") or \
            any(c in name for c in "/\\,=") or \
            any(ord(c) <= 32 or c.isspace() or not c.isprintable() for c in name):
        raise Fail(f"{spec}: NAME {name!r} is not a plain name (one file-name word that starts "
                   f"with a letter or digit: no '/', ',', '=', white space or control "
                   f"characters)")
    return name


# What the user's code (model(), dataset(), loss(), a forward pass, an update) may raise that ends
# the command with one line naming the model file, exit 1: anything, SystemExit too (sys.exit()
# in a model file is not the command's exit status, nor a quiet end without a log) and a
# BaseException of the user's own or GeneratorExit (campaign 28's Z1: a traceback). Each site
# lets KeyboardInterrupt through first (an interrupt: main's exit 130), as load_user does.
USER_RAISES = BaseException


def one_line(e):
    s = str(e).strip().splitlines()
    return s[0] if s else "(no message)"


MISSING = object()  # user_attr's default: the model file has no such name


def user_attr(mod, spec, name, default=MISSING):
    """The model file's `name`, or default when it has none; what reading it raises (a
    module-level __getattr__ of the file's own) is one line naming the file and the name."""
    try:
        return getattr(mod, name, default)
    except (Fail, KeyboardInterrupt):
        raise
    except USER_RAISES as e:
        raise Fail(f"{spec}: reading {name} raised {type(e).__name__}: {one_line(e)}")


def guarded(spec, what, call):
    """call(): a call into the user's code or what it built (model()'s parameters(), buffers(),
    state_dict(), a move to the device); what it raises is Fail, one line naming the model file
    and `what` ("model() raised": "m.py: model() raised ValueError: ...")."""
    try:
        return call()
    except (Fail, KeyboardInterrupt):
        raise
    except USER_RAISES as e:
        raise Fail(f"{spec}: {what} {type(e).__name__}: {one_line(e)}")


def call_user(mod, spec, fn, *args):
    """Calls the model file's fn; Fail naming the file and the function when it raises."""
    return guarded(spec, f"{fn}() raised", lambda: getattr(mod, fn)(*args))


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
    for t, what in ((x, "x"), (y, "y")):
        if t.device.type == "meta":  # shapes without values: nothing to check or train on
            raise Fail(f"{spec}: dataset(): {what} is on device meta (cpu or the --device)")
    try:
        return data_values(spec, torch, x, y)
    except (Fail, KeyboardInterrupt):
        raise
    except USER_RAISES as e:  # a tensor whose values torch cannot read (a layout of its own)
        raise Fail(f"{spec}: dataset(): x and y cannot be read: {type(e).__name__}: "
                   f"{one_line(e)}")


def data_values(spec, torch, x, y):
    """dataset()'s x finite and y whole class labels >= 0 (y as int64), or Fail."""
    bad = (~torch.isfinite(x)).reshape(x.shape[0], -1).any(1).nonzero()
    if bad.numel():
        i = int(bad[0])
        v = x[i].reshape(-1)[~torch.isfinite(x[i].reshape(-1))][0].item()
        raise Fail(f"{spec}: dataset(): x holds {v} at sample {i} (inputs must be finite)")
    if y.is_complex() or y.dtype == torch.bool:
        raise Fail(f"{spec}: dataset(): y must hold integer class labels, got {y.dtype}")
    if y.is_floating_point():  # whole numbers in a float tensor are labels; 2.7 is not
        frac = (~torch.isfinite(y) | (y != torch.floor(y))).nonzero()
        if frac.numel():
            i = int(frac[0])
            raise Fail(f"{spec}: dataset(): label {y[i].item():g} at sample {i} is not a whole "
                       f"number (y holds integer class labels)")
    y = y.long()
    neg = (y < 0).nonzero()
    if neg.numel():
        i = int(neg[0])
        raise Fail(f"{spec}: dataset(): label {int(y[i])} at sample {i} is negative (classes "
                   f"are 0, 1, ...)")
    return x, y


def user_classes(mod, spec, y):
    """The number of classes: CLASSES (a whole number above every label) or the labels' largest
    plus one."""
    top = int(y.max()) + 1
    c = user_attr(mod, spec, "CLASSES", top)
    if isinstance(c, bool) or not isinstance(c, int) or c < 1:
        raise Fail(f"{spec}: CLASSES {c!r} is not a whole number of classes >= 1")
    if top > c:
        raise Fail(f"{spec}: dataset(): label {top - 1} is past CLASSES = {c} (labels are 0 .. "
                   f"{c - 1})")
    return c


def check_outputs(torch, net, x, y, spec, dev):
    """One forward pass of two samples before any training: a model whose input does not fit
    the data, or that gives fewer outputs than there are classes, fails here in one line; so
    does a train() or eval() that raises, named as such (campaign 33's D13), not the input."""
    for mode in ("train", "eval"):  # train() first: Module.eval() calls train(False)
        guarded(spec, f"model().{mode}() raised", lambda: getattr(net, mode)())
    try:
        with torch.no_grad():
            out = net(x[:2].to(dev))
    except KeyboardInterrupt:
        raise
    except USER_RAISES as e:
        raise Fail(f"{spec}: model() does not take dataset()'s x {tuple(x.shape[1:])}: "
                   f"{type(e).__name__}: {one_line(e)}")
    guarded(spec, "model().train() raised", net.train)
    if torch.is_tensor(out) and out.dim() == 2 and int(y.max()) >= out.shape[1]:
        raise Fail(f"{spec}: dataset(): label {int(y.max())} but model() gives "
                   f"{out.shape[1]} outputs (classes 0 .. {out.shape[1] - 1})")


def model_tensors(torch, m):
    """(the first of m's parameters and buffers on the meta device, as 'parameter NAME' or
    'buffer NAME', or None; whether a parameter requires grad; what of parameters() is not one
    of m's own dense parameters, as text, or None)."""
    meta, own = None, {}
    for kind, named in (("parameter", m.named_parameters()), ("buffer", m.named_buffers())):
        for name, t in named:
            if meta is None and t.device.type == "meta":
                meta = f"{kind} {name}"
            if kind == "parameter":
                own[id(t)] = (name, t)  # the tensor kept: its id stays its own
    params = list(m.parameters())  # what the optimiser gets, which a model may give otherwise
    for i, p in enumerate(params):
        if meta is None and p.device.type == "meta":
            meta = f"parameter {i} of parameters()"
    # campaign 33's D12: copies, tensors computed from the parameters, another module's, which
    # the optimiser would update and the model never use; a sparse one takes no dense update
    strays = sum(id(p) not in own for p in params)
    sparse = [(own[id(p)][0], p.layout) for p in params
              if id(p) in own and p.layout != torch.strided]
    stray = None
    if strays:
        stray = (f"{strays} tensors (of {len(params)}) that are not among model()'s named "
                 f"parameters (the optimiser would update them, not the model's own)")
    elif sparse:
        stray = (f"parameter {sparse[0][0]}, a sparse tensor ({sparse[0][1]}): the optimiser's "
                 f"tensors must be dense")
    return meta, any(p.requires_grad for p in params), stray


def user_model(mod, spec, torch, seed, dev):
    """model()'s module, checked (a parameter to train; none on the meta device, shapes without
    values that no move can copy) and moved to dev, probe and runs alike, before any work: what
    reading its parameters or the move raises is one line naming the model file."""
    torch.manual_seed(seed)
    m = call_user(mod, spec, "model")
    if not isinstance(m, torch.nn.Module):
        raise Fail(f"{spec}: model() must return a torch.nn.Module, got {type(m).__name__}")
    meta, trainable, _ = guarded(spec, "reading model()'s parameters and buffers raised",
                                 lambda: model_tensors(torch, m))
    if meta is not None:
        raise Fail(f"{spec}: model() returned parameters or buffers on the meta device (no "
                   f"data): {meta} (build the model on cpu; the front end moves it to the "
                   f"--device)")
    if not trainable:
        raise Fail(f"{spec}: model() has no parameters to train (none that requires grad)")
    moved = guarded(spec, f"moving model() to {dev.type} raised", lambda: m.to(dev))
    if not isinstance(moved, torch.nn.Module):  # a to() of the user's own (campaign 32's B5)
        raise Fail(f"{spec}: moving model() to {dev.type} returned {type(moved).__name__}, not "
                   f"a torch.nn.Module")
    meta, _, stray = guarded(spec, f"reading model()'s parameters and buffers after the move "
                             f"to {dev.type} raised", lambda: model_tensors(torch, moved))
    if meta is not None:  # a to() that gives a copy without data (campaign 32's B1)
        raise Fail(f"{spec}: moving model() to {dev.type} left parameters or buffers on the meta "
                   f"device (no data): {meta}")
    if stray is not None:  # the optimiser's tensors (make_optim) are the moved module's own
        raise Fail(f"{spec}: model()'s parameters() gives {stray}")
    return moved


def user_loss(mod, spec, torch):
    """The model file's loss() (load_user refused one that is not a function), called through
    call_user (what it raises is one line naming it), or the default."""
    if user_attr(mod, spec, "loss") is MISSING:
        return torch.nn.functional.cross_entropy
    return lambda out, y: call_user(mod, spec, "loss", out, y)


def make_optim(torch, net, a):
    """The optimiser over net's parameters (the user's parameters() run): one line naming the
    model file when it fails."""
    mom = 0.0 if a.algo == "sgd" else a.momentum
    return guarded(a.model, "making the optimiser over model()'s parameters raised",
                   lambda: torch.optim.SGD(net.parameters(), lr=a.lr, momentum=mom,
                                           nesterov=a.algo == "nesterov",
                                           weight_decay=a.weight_decay))


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

    def __init__(self, torch, net, opt, lossf, x, y, seed, dev, spec):
        self.torch, self.net, self.opt, self.lossf, self.spec = torch, net, opt, lossf, spec
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
        if not torch.is_tensor(loss) or loss.dim() != 0:
            what = f"shape {tuple(loss.shape)}" if torch.is_tensor(loss) else type(loss).__name__
            raise Fail(f"{self.spec}: loss() returned {what}, not a scalar tensor (the mean "
                       f"over the batch)")
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

    restart_s = getattr(call, "restart_s", lambda: 0.0)  # probe_setup's call: its restarts' s

    def block(k):
        r0 = restart_s()
        dt = clock.block(call, k)
        getattr(call, "check", lambda: None)()  # the timed losses finite (probe_setup's call)
        # a restart after a divergence (load_state_dict) is not the step: its seconds are taken
        # out, so the rows time the update alone (campaign 39's D4: medians rose by half)
        return max(dt - (restart_s() - r0), 0.0)

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
    user_classes(mod, a.model, y)
    net = user_model(mod, a.model, torch, a.data_seed, dev)
    check_outputs(torch, net, x, y, a.model, dev)
    if procs > 1:  # torch.distributed data parallel: gradients averaged over the ranks
        net = guarded(a.model, "wrapping model() in DistributedDataParallel raised",
                      lambda: torch.nn.parallel.DistributedDataParallel(
                          net, device_ids=[dev.index] if dev.type == "cuda" else None))
    lossf = user_loss(mod, a.model, torch)
    opt = make_optim(torch, net, a)
    lr_ = Learner(torch, net, opt, lossf, x, y, a.data_seed + 1000003 * rank, dev, a.model)
    # one learner that diverges goes back to its first parameters and an empty optimiser state
    # and the timing goes on, as mbprobe step's (probe/step.c); P > 1 learners of one DDP model
    # would each have to agree to restart: there a divergence stays the one-line error
    first = (copy.deepcopy(net.state_dict()), copy.deepcopy(opt.state_dict())) \
        if procs == 1 else None
    div = {"since": 0, "quick": 0, "restarts": 0, "restart_s": 0.0}

    def restart(m, loss):
        div["quick"] = div["quick"] + 1 if div["since"] <= STEP_QUICK else 1
        if div["quick"] > STEP_QUICK_TIMES:
            raise Fail(f"{a.model}: the loss at M = {m} is {float(loss):g}: the timed training "
                       f"diverged, again right after each of {STEP_QUICK_TIMES} restarts "
                       f"(lower --lr {a.lr:g})")
        s0 = time.perf_counter()
        net.load_state_dict(first[0])
        opt.load_state_dict(copy.deepcopy(first[1]))
        sync(torch, dev)
        div["restart_s"] += time.perf_counter() - s0
        div["since"] = 0
        div["restarts"] += 1

    def call_for(m):
        last = [None]

        def call():  # the user's forward and loss(): what they raise, in one line (the timing too)
            try:
                last[0] = loss = lr_.step(m // procs)
                sync(torch, dev)
            except (Fail, KeyboardInterrupt):
                raise
            except USER_RAISES as e:
                raise Fail(f"{a.model}: the update step failed at M = {m}: "
                           f"{type(e).__name__}: {one_line(e)}")
            if first is not None:
                if bool(torch.isfinite(loss.detach()).all()):
                    div["since"] += 1
                else:
                    restart(m, loss.detach())
            return loss

        def check():  # after each timed block, its last loss (a NaN stays: the weights hold it)
            if last[0] is not None and not bool(torch.isfinite(last[0].detach()).all()):
                raise Fail(f"{a.model}: the loss at M = {m} is not finite: the timed training "
                           f"diverged, and {procs} learners cannot restart (lower --lr "
                           f"{a.lr:g})")
        if first is None:
            call.check = check
        call.restart_s = lambda: div["restart_s"]
        return call
    call_for.diverged = div

    # only the first call's loss is at the model's first parameters, before any update: a loss
    # that is not finite there is the model's (or loss()'s). At a later M the weights were
    # trained by the calls before it, and a loss that is not finite is a divergence: one learner
    # restarted in call() and goes on, as at any other update; P learners cannot restart, and
    # say so naming --lr (campaign 39's F5: "the loss at M = 8 is not finite" blamed the model)
    for i, m in enumerate(a.batch):
        l0 = call_for(m)()
        if bool(torch.isfinite(l0.detach()).all()):
            continue
        if i == 0:
            raise Fail(f"{a.model}: the loss at M = {m} is not finite at the model's first "
                       f"parameters, before any update")
        if first is None:
            raise Fail(f"{a.model}: the loss at M = {m} is not finite: the training diverged "
                       f"in the updates before it (lower --lr {a.lr:g})")
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
    torch = import_torch()
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
    # --model given as a module name: its file is known once imported
    if same_file(a.output, user_attr(mod, a.model, "__file__", None)):
        raise Fail(f"-o {a.output} would overwrite --model {a.model}")
    say = ERR if a.output == "-" else streams.STDOUT or sys.stdout
    dname = device_name(torch, dev)
    backend = "cuda" if dev.type == "cuda" else "cpu"
    rows, worst, shown, full = [], None, [], True
    for p in a.procs:
        if p == 1:
            pts, threads = probe_points(a, call_for), a.threads
        else:
            import mbkit_dist
            try:
                pts, threads = mbkit_dist.probe(a, p, dev), mbkit_dist.threads(a, p, dev)
            except mbkit_dist.fe.Fail as e:  # that module's copy of this one's Fail
                raise Fail(str(e))
        restarts = call_for.diverged["restarts"] if p == 1 else 0
        if restarts:  # as mbprobe step's summary says it
            shown.append(f"(the timed training diverged {restarts} time"
                         f"{'' if restarts == 1 else 's'} with 1 learner: each time the model "
                         f"went back to its first parameters and the timing went on; the rows "
                         f"time the step, not the training at this learning rate)")
        # a pass after the first times a sample unless the point holds --max-reps already
        full = full and all(len(pt.starts) > 1 and pt.starts[1] >= a.max_reps for pt in pts)
        r, w = point_rows(a, pts, backend, mod.mb_name, p, threads, dname, shown)
        rows += r
        if w is not None and (worst is None or w[0] > worst[0]):
            worst = w
    dist = [f"# dist_backend={'nccl' if dev.type == 'cuda' else 'gloo'}",
            "# dist=torch.distributed data parallel (DistributedDataParallel), one process a "
            "learner, M / P samples each; t_median_s is the slowest rank's"] \
        if max(a.procs) > 1 else []
    lines = ["# " + kv for kv in common_meta(f"{PROG} probe", "step", argv)]
    lines += [f"# source={source(torch, dev, dname, a.threads)}",
              f"# torch={torch.__version__}", f"# device={dev.type}", f"# device_name={dname}",
              f"# cpu_model={clean(cpu_model())}", f"# threads={a.threads}",
              "# clock=time.perf_counter" + ("+torch.cuda.synchronize" if dev.type == "cuda"
                                             else ""),
              "# probe=step", f"# net={mod.mb_name}", f"# data={mod.mb_data}",
              f"# algo={a.algo}", f"# lr={a.lr:g}",
              f"# momentum={a.momentum if a.algo != 'sgd' else 0:g}",
              f"# model_file={clean(a.model)}", f"# seed={a.data_seed}",
              "# timing=one update = next shuffled batch gathered, forward, loss, backward, "
              "optimiser step" + (", torch.cuda.synchronize()" if dev.type == "cuda" else ""),
              f"# warmup={a.warmup}", f"# min_reps={a.min_reps}", f"# max_reps={a.max_reps}",
              f"# rel_ci={a.rel_ci:g}", f"# budget_s={a.budget:g}", f"# rounds={a.rounds}",
              f"# procs={','.join(str(p) for p in a.procs)}"] + dist + [
              "backend,net,batch,learners,threads,reps,t_median_s,t_min_s,t_p25_s,t_p75_s,"
              "t_max_s,samples_per_s,wide,stop,drift,device"] + rows
    a.out.write("\n".join(lines) + "\n")
    if worst is None and a.rounds < 2:
        shown.append("steadiness: not measured (it needs --rounds 2 or more)")
    elif worst is None and full:  # campaign 40's F2: "it needs --rounds 2" at --rounds 2
        shown.append(f"steadiness: not measured: the first of the {a.rounds} passes took all "
                     f"--max-reps {a.max_reps} samples at every point, leaving the others none "
                     f"to time (raise --max-reps above what a pass's share of --budget takes)")
    elif worst is None:
        shown.append(f"steadiness: not measured: no point holds timings above 0 s from two of "
                     f"the {a.rounds} passes")
    elif worst[0] <= 0.05:
        shown.append(f"steadiness: the {a.rounds} passes agree within {100 * worst[0]:.1f}% at "
                     f"every point")
    else:
        shown.append(f"steadiness: the {a.rounds} passes disagree by up to "
                     f"{100 * worst[0]:.0f}% (batch {worst[1]}): the machine changed speed "
                     f"during the sweep")
    say_out("\n".join(shown) + "\n", say)
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


def host_mark():
    """The machine's CPU counters now, as data/hostload.c reads them: (monotonic s, every CPU's
    busy s, stolen s, this process's CPU s), or None where /proc/stat cannot be read."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            v = f.readline().split()
        hz = os.sysconf("SC_CLK_TCK")
        n = [int(k) for k in v[1:9]]
        if v[0] != "cpu" or len(n) < 7 or hz <= 0:
            return None
        t = os.times()
        return (time.monotonic(), (n[0] + n[1] + n[2] + n[5] + n[6]) / hz,
                (n[7] if len(n) > 7 else 0) / hz, t.user + t.system)
    except (OSError, ValueError, IndexError):
        return None


def host_load(a0, a1):
    """The log's others_cores and steal_cores lines between two host_mark()s (none when either
    is None): the cores other processes kept busy and the hypervisor took, on average."""
    if a0 is None or a1 is None or a1[0] - a0[0] < 0.1:  # a tick is more than a core below
        return []
    wall = a1[0] - a0[0]
    cpus = os.cpu_count() or 1
    others = min(max(0.0, (a1[1] - a0[1]) - (a1[3] - a0[3])) / wall, cpus)
    steal = min(max(0.0, a1[2] - a0[2]) / wall, cpus)
    return [f"others_cores={others:.3f}", f"steal_cores={steal:.3f}"]


def train_one(torch, mod, a, x, y, ex, ey, m, seed, dev, argv, dname, classes, out):
    """One run at M = m and `seed`; writes its log to `out` (an Output); returns (reached,
    diverged)."""
    mark0 = host_mark()
    net = user_model(mod, a.model, torch, seed, dev)
    check_outputs(torch, net, x, y, a.model, dev)
    lossf = user_loss(mod, a.model, torch)
    opt = make_optim(torch, net, a)
    lrn = Learner(torch, net, opt, lossf, x, y, seed, dev, a.model)
    E = a.eval_every or max(5, 400 // m)
    bisect = not a.no_bisect
    judge = Judge(torch, net, lossf, ex, ey, dev, a.target_loss, a.check_sigmas, not a.no_check)
    blowup = 100.0 * math.log(max(classes, 2))
    per_epoch = x.shape[0] // m
    bound = a.max_updates
    if a.epochs * per_epoch < bound:  # in floating point first: --epochs 1e308 is no overflow
        bound = max(1, int(math.ceil(a.epochs * per_epoch)))
    params = guarded(a.model, "counting model()'s parameters raised",
                     lambda: sum(p.numel() for p in net.parameters()))
    rows = []          # the log's rows, as text
    win = []           # the window: (row fields, snapshot) since the last evaluation
    wall = snap_s = 0.0
    u = 0
    reached_u = diverged_u = 0  # none, as mbtrain writes it (train/run/run_mon.c)
    reached_wall = 0.0
    eval_loss = eval_acc = float("nan")
    loss_v = float("nan")
    next_eval = E

    def snapshot():  # the user's state_dict() (an override, its hooks) named when it fails
        return guarded(a.model, "model()'s state_dict() (a snapshot) raised",
                       lambda: [t.detach().clone() for t in net.state_dict().values()])

    def restore(snap):
        def put():
            with torch.no_grad():
                for t, s in zip(net.state_dict().values(), snap):
                    t.copy_(s)
        guarded(a.model, "model()'s state_dict() (restoring a snapshot) raised", put)

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
        f"source={source(torch, dev, dname, a.threads)}", f"torch={torch.__version__}",
        f"net={mod.mb_name}", f"params={params}",
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
    meta += host_load(mark0, host_mark())
    out.write("".join(f"# {kv}\n" for kv in meta) +
              "update,epoch,samples,wall_s,loss,eval_loss,eval_acc\n" +
              "".join(r + "\n" for r in rows) + f"# {summary}\n")
    say_out(summary + "\n", streams.STDOUT or sys.stdout)
    if diverged_u > 0:
        print(f"{PROG} runs: M = {m}, seed {seed}: diverged at update {diverged_u} (lower "
              f"--lr); the log says so", file=ERR)
    elif not reached:
        last = f"{eval_loss:.4g}" if math.isfinite(eval_loss) else "-"
        print(f"{PROG} runs: M = {m}, seed {seed}: did not reach target loss "
              f"{a.target_loss:g} in {u} updates (last eval loss {last}); the log "
              f"says so ({out.path})", file=ERR)
    return reached, diverged_u > 0


def log_outputs(a, mod):
    """Every run's (M, LR text, LR, seed, log folder, Output), checked before any training: the
    folders made, no two runs writing one log, none the model file, each log writable (a
    folder or a FIFO without a reader found before hours of training, not after)."""
    todo = a.plan or [(m, f"{a.lr:g}", a.lr, seed) for seed in a.seeds for m in a.batch]
    seen, out = {}, []
    model_file = user_attr(mod, a.model, "__file__", None) or a.model
    for m, lr_text, lr, seed in todo:  # seed by seed over M, as make run's sweep
        folder = a.log_dir.replace("{lr}", lr_text)
        path = os.path.join(folder, f"{mod.mb_name}-{a.algo}-b{m}-s{seed}.csv")
        key = os.path.realpath(path)
        if key in seen:
            raise Fail(f"--plan: '{seen[key]}' and '{m},{lr_text},{seed}' would both write "
                       f"{path} (put {{lr}} in --log-dir, or give each M,SEED once)")
        seen[key] = f"{m},{lr_text},{seed}"
        if same_file(path, model_file):
            raise Fail(f"--log-dir: {path} would overwrite --model {a.model}")
        if not os.path.isdir(folder):
            if os.path.exists(folder):
                raise Fail(f"--log-dir {folder}: not a folder: {not_regular(folder) or 'a file'}")
            dangling = missing_link(folder)
            if dangling:  # makedirs would say only 'File exists'
                what = "" if dangling == os.path.normpath(folder) else f"{dangling} is "
                raise Fail(f"--log-dir {folder}: {what}a link to a missing folder "
                           f"({os.readlink(dangling)})")
            try:
                os.makedirs(folder, exist_ok=True)
            except OSError as e:
                raise Fail(f"--log-dir {folder}: {e.strerror}")
        out.append((m, lr_text, lr, seed, folder, Output(path, "--log-dir")))
    return out


def missing_link(folder):
    """The first part of folder's path that is a symbolic link to nothing, or None."""
    parts, p = [], os.path.normpath(folder)
    while p and p not in (os.sep, ".", ".."):
        parts.append(p)
        p = os.path.dirname(p)
    for q in reversed(parts):
        if os.path.islink(q) and not os.path.exists(q):
            return q
    return None


def cmd_runs(a, argv):
    torch = import_torch()
    torch.set_num_threads(a.threads)
    dev = pick_device(torch, a.device)
    here = cwd()  # --log-dir is relative to it, as -o (check_args): the model file may chdir
    mod = load_user(a.model)
    x, y = user_data(mod, a.model, torch)
    if here is not None and cwd() != here:
        a.log_dir = os.path.join(here, a.log_dir)
    n = x.shape[0]
    biggest = max(t[0] for t in a.plan) if a.plan else max(a.batch)
    if biggest > n:
        raise Fail(f"--batch {biggest}: more than the {n} training samples")
    classes = user_classes(mod, a.model, y)
    ne = int(round(a.eval_frac * n))
    if ne < min(n, EVAL_MIN):  # a target judged on fewer is judged on noise (mbtrain's rule)
        raise Fail(f"--eval-frac {a.eval_frac!r} draws {ne} of the {n} training samples of "
                   f"{a.model}: the evaluation subset needs {EVAL_MIN} at least (all of a "
                   f"smaller set)")
    todo = log_outputs(a, mod)
    g = torch.Generator().manual_seed(int(a.data_seed))
    eidx = torch.randperm(n, generator=g)[:ne]
    ex, ey = x.index_select(0, eidx).to(dev), y.index_select(0, eidx).to(dev)
    dname = device_name(torch, dev)
    unreached = []
    for m, lr_text, lr, seed, folder, out in todo:
        a.lr, a.log_dir = lr, folder
        try:
            ok, div = train_one(torch, mod, a, x, y, ex, ey, m, seed, dev, argv, dname,
                                classes, out)
        except (Fail, KeyboardInterrupt):
            raise
        except USER_RAISES as e:  # the user's model, loss or data in an update or evaluation
            raise Fail(f"{a.model}: M = {m}, seed {seed}: training failed: "
                       f"{type(e).__name__}: {one_line(e)}")
        if not ok and not div:  # a diverged run is a result, as mbtrain's: said, logged, exit 0
            unreached.append(f"M = {m} seed {seed}")
    if unreached and not a.allow_unreached:
        raise Fail(f"{len(unreached)} of {len(todo)} runs did not reach "
                   f"target loss {a.target_loss:g} ({', '.join(unreached[:6])}"
                   f"{', ...' if len(unreached) > 6 else ''}): raise --target-loss or "
                   f"--max-updates; their logs are written")
    return 0


def cwd():
    """The working folder, or None when it is gone."""
    try:
        return os.getcwd()
    except OSError:
        return None


def once_each(values, flag):
    """A list names each value once (--batch 8,8 would train, and write, one run twice)."""
    seen = set()
    for v in values:
        if v in seen:
            raise Fail(f"{flag}: {v} given twice")
        seen.add(v)


def check_args(a):
    """What argparse does not: flags the mode would ignore (usage, exit 2), values repeated in
    a list, too many seeds, and the output checked and compared with the model file before any
    work (Fail, exit 1)."""
    usage = Parser(prog=f"{PROG} {a.cmd}").error
    given = getattr(a, "given", set())
    if fifo_wait() is None:  # read now: a bad value is refused before any work
        usage(f"MBKIT_FIFO_WAIT={os.environ['MBKIT_FIFO_WAIT']}: seconds from 0 to 3600")
    plan = a.cmd == "runs" and a.plan
    if plan:
        for flag in ("batch", "seeds", "lr"):
            if flag in given:
                usage(f"--{flag} with --plan: the plan's M,LR,SEED tokens give every run's "
                      f"batch, rate and seed")
    elif a.batch is None:
        usage("the following arguments are required: --batch")
    if a.algo == "sgd" and "momentum" in given:
        usage("--momentum with --algo sgd: sgd has no momentum")
    if a.cmd == "probe" and a.min_reps > a.max_reps:
        usage(f"--min-reps {a.min_reps} above --max-reps {a.max_reps}")
    if a.batch:
        once_each(a.batch, "--batch")
    if a.cmd == "probe":
        once_each(a.procs, "--procs")
        if "wait_timeout" in given and max(a.procs) == 1:
            usage("--wait-timeout without --procs above 1: one learner waits on no other")
        if 0 < a.wait_timeout < WAIT_MIN:
            raise Fail(f"--wait-timeout: {a.wait_timeout:g} s is too short for the learners "
                       f"to start: 0 (no limit) or at least {WAIT_MIN:g} s")
        if same_file(a.output, a.model):
            raise Fail(f"-o {a.output} would overwrite --model {a.model}")
        a.out = Output(a.output, "-o")
        return
    k = sum(len(r) for r in a.seeds)
    if k > SEEDS_MAX:  # a bound no typo removes: every seed is a run (mbtrain's)
        raise Fail(f"--seeds: {k} seeds, more than {SEEDS_MAX} in one sweep")
    a.seeds = [v for r in a.seeds for v in r]
    once_each(a.seeds, "--seeds")
    if plan:
        seen = {}
        for m, lr_text, lv, sd in a.plan:  # '8,0.05,0' and '8,5e-2,0' are one run
            if (m, lv, sd) in seen:
                raise Fail(f"--plan: '{m},{lr_text},{sd}' given twice (as "
                           f"'{seen[m, lv, sd]}')")
            seen[m, lv, sd] = f"{m},{lr_text},{sd}"


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the command is: an interrupt as Ctrl-C's, which every
    site lets through (the ranks of --procs killed, the output not written), with its own line
    and exit status (128 + N) in main."""

    def __init__(self, signum):
        super().__init__()
        self.signum = signum


ENDS = {signal.SIGTERM: "terminated (SIGTERM)", signal.SIGHUP: "hung up (SIGHUP)"}
HELD = None  # while torch imports (import_torch): the signals that came, acted on after it


def on_signal(signum, frame):
    if HELD is not None:
        HELD.append(signum)
        return
    end_by(signum)


def end_by(signum):
    """The interrupt a signal makes: KeyboardInterrupt for SIGINT, else Terminated. SIGTERM,
    SIGHUP and SIGINT are ignored from now: a second one cuts no cleanup, and the line and the
    exit status both name the first (campaign 34's E6: TERM then INT said SIGTERM, exit 130)."""
    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(s, signal.SIG_IGN)
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


def catch_signals():
    """on_signal for SIGTERM, SIGHUP and SIGINT; one ignored when the command started (nohup's
    SIGHUP, a background job's SIGINT) stays ignored."""
    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        if signal.getsignal(s) != signal.SIG_IGN:
            signal.signal(s, on_signal)


TORCH_AS_MIN = 1 << 30  # Debian's torch maps about 900 MiB to import (measured: 800 MB fails)


def import_torch():
    """torch, imported with the signals held: a handler's exception raised inside torch's C
    initialisation came out as "RuntimeError: Terminated" (campaign 33's D3), so a signal that
    comes during the import ends the command after it. A Python that cannot import torch is one
    line naming it (D4)."""
    global HELD
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit != resource.RLIM_INFINITY and limit < TORCH_AS_MIN:
        raise Fail(f"the memory limit (ulimit -v) is {limit >> 20} MiB: torch needs about "
                   f"{TORCH_AS_MIN >> 20} MiB of address space to load and train (under less "
                   f"its libraries fail to map, or libtorch ends in std::bad_alloc); raise it")
    HELD, err = [], None
    try:
        import torch
    except Exception as e:  # ModuleNotFoundError; ImportError of a library that does not map
        err = e
    finally:
        got, HELD = HELD, None
    if got:
        end_by(got[0])
    if err is not None:
        spec = importlib.util.find_spec("torch")
        where = spec.origin if spec is not None and spec.origin else None
        raise Fail(f"cannot import torch with {sys.executable}"
                   f"{' -S (no site packages)' if sys.flags.no_site else ''} "
                   f"({type(err).__name__}: {one_line(err)}): "
                   + (f"it is installed ({where}) but did not load" if where else
                      "'make deps-peers' installs Debian's python3-torch for /usr/bin/python3; "
                      "or run the front end with a Python that has torch"))
    return torch


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    catch_signals()
    prog = f"{PROG} {argv[0]}" if argv and argv[0] in ("probe", "runs") else PROG
    if stdout_closed():
        say_err(f"{prog}: standard output: write error: "
                f"{os.strerror(errno.EBADF)} (closed): nothing done\n")
        return 1
    try:
        a = build_parser().parse_args(argv)
        check_args(a)
        with user_stdout(a.model):  # what the user's code writes: not in the table
            rc = cmd_probe(a, argv) if a.cmd == "probe" else cmd_runs(a, argv)
        say_out("", sys.stdout)  # flushed here: a write error is reported, not lost at exit
        return rc
    except Fail as e:
        say_err(f"{prog}: {meta_text(str(e))}\n")  # one line whatever a path held (A-C4)
        return 1
    except KeyboardInterrupt as e:
        if isinstance(e, Terminated):
            say_err(f"{prog}: {ENDS[e.signum]}; nothing half-written\n")
            return 128 + e.signum
        say_err(f"{prog}: interrupted; nothing half-written\n")
        return 130
    finally:
        # the command is over (its outputs whole, its line said): a signal from here to the exit
        # would end it with no line of its own (campaign 33), and cuts nothing now
        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(s, signal.SIG_IGN)
        quiet_stdout()


if __name__ == "__main__":
    sys.exit(main())
