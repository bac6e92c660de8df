"""mbkit_dist.py — the PyTorch front end's probe of P data-parallel learners through
torch.distributed (mbkit_torch.py probe --procs 1,2): P processes (torch.multiprocessing,
spawned), one learner each, the model wrapped in DistributedDataParallel (gradients averaged
over the ranks by allreduce: gloo on CPU, NCCL on CUDA, one GPU a rank), every rank computing
M / P samples of each update. The update is timed as mbkit_torch's probe times one learner's
(the same harness: warm-up, interleaved passes, the stop rule), with a clock every rank reads
alike: each block of calls is timed on every rank and the slowest rank's time is the sample
(an allreduce MAX), so all ranks take the same decisions and stop together. Rank 0 hands its
samples back to the parent through a file. Every wait on the other ranks (the rendezvous, an
allreduce, the barrier) ends after --wait-timeout seconds (torch.distributed's timeout; 0: no
limit), and the rank that waited ends the job with one line naming itself and the limit. A
rank's standard output is its standard error: the user's prints never reach the step table.
The CUDA path (NCCL) has not run on a GPU.
"""
import datetime
import json
import os
import sys
import tempfile
import time

import mbkit_torch as fe


def threads(a, procs, dev):
    """Threads in all: each rank gets max(1, threads / P) on CPU (one on CUDA)."""
    return procs * (1 if dev.type == "cuda" else max(1, a.threads // procs))


class SyncClock(fe.Clock):
    """Blocks timed on every rank, the slowest rank's seconds kept; now() is the sum of the
    blocks so far, the same number on every rank."""

    def __init__(self, torch, dist):
        self.torch, self.dist, self.total = torch, dist, 0.0

    def now(self):
        return self.total

    def block(self, call, k):
        s = time.perf_counter()
        for _ in range(k):
            call()
        t = self.torch.tensor([time.perf_counter() - s], dtype=self.torch.float64)
        self.dist.all_reduce(t, op=self.dist.ReduceOp.MAX)
        dt = float(t.item())
        self.total += dt
        return dt


WAIT_NONE = 1e9  # --wait-timeout 0: no limit (about 31 years; torch takes no infinite timeout)


def stalled(e):
    """1 when e is torch.distributed's end of a wait (gloo: 'Timed out waiting 2000ms ...')."""
    return "timed out" in str(e).lower() or "timeout" in type(e).__name__.lower()


def _worker(rank, a, procs, dev_type, init, result):
    os.dup2(2, 1)  # the user's prints (import, loss(), ...) go to stderr, whatever the rank
    import torch
    import torch.distributed as dist
    dev = torch.device(f"cuda:{rank}" if dev_type == "cuda" else "cpu")
    limit = datetime.timedelta(seconds=a.wait_timeout or WAIT_NONE)
    try:
        if dev_type == "cuda":
            torch.cuda.set_device(dev)
        dist.init_process_group("nccl" if dev_type == "cuda" else "gloo", init_method=init,
                                rank=rank, world_size=procs, timeout=limit)
        _, call_for = fe.probe_setup(torch, a, dev, max(1, a.threads // procs), rank, procs)
        # the clock's allreduce is on CPU tensors: gloo serves them; with NCCL a CPU group
        clock = SyncClock(torch, dist)
        if dev_type == "cuda":
            clock.dist = _CpuGroup(dist, limit)
        pts = fe.probe_points(a, call_for, clock)
        dist.barrier()  # every rank has measured
        if rank == 0:  # written whole, then renamed: the parent reads a complete file
            with open(result + ".tmp", "w") as f:
                json.dump([{"m": p.m, "x": p.x, "starts": p.starts, "why": p.why} for p in pts],
                          f)
            os.replace(result + ".tmp", result)
    except Exception as e:  # its one line for the parent, with the time it failed: the rank
        # that failed first holds the cause (rank 1's loss() raising); the others then see
        # only their peer gone ("Connection closed by peer")
        msg = str(e) if isinstance(e, fe.Fail) else f"{type(e).__name__}: {fe.one_line(e)}"
        if a.wait_timeout and stalled(e):  # as mbtrain's watchdog says it (comm_mpi.c)
            msg = (f"waited {a.wait_timeout:g} s for the other ranks (--wait-timeout "
                   f"{a.wait_timeout:g}): a rank has stalled or is lost; ending the job")
        with open(f"{result}.tmp{rank}", "w") as f:
            f.write(f"{time.monotonic_ns()}\nrank {rank}: {msg}")
        os.replace(f"{result}.tmp{rank}", f"{result}.fail{rank}")
        raise SystemExit(1)
    # no destroy_process_group(): with a file rendezvous it could wait on a rank already gone
    # (seen once on this host); the process's exit closes the group


class _CpuGroup:
    """all_reduce on a gloo group beside the NCCL one, for the CPU tensors of the clock."""

    def __init__(self, dist, limit):
        self.dist, self.ReduceOp = dist, dist.ReduceOp
        self.group = dist.new_group(backend="gloo", timeout=limit)

    def all_reduce(self, t, op):
        self.dist.all_reduce(t, op=op, group=self.group)


def first_failure(result, procs):
    """The line of the rank that failed first (each wrote 'TIME\\nrank R: LINE'), or None."""
    got = []
    for r in range(procs):
        try:
            with open(f"{result}.fail{r}") as f:
                t, _, msg = f.read().partition("\n")
            got.append((int(t), msg.strip()))
        except (OSError, ValueError):
            pass
    return min(got)[1] if got else None


def probe(a, procs, dev):
    """The points (mbkit_torch.Point) of P = procs learners, measured by rank 0."""
    import torch.multiprocessing as mp
    d = tempfile.mkdtemp(prefix="mbkit_dist.")
    init = "file://" + os.path.join(d, "rendezvous")
    result = os.path.join(d, "rank0.json")
    try:
        try:
            ctx = mp.spawn(_worker, args=(a, procs, dev.type, init, result), nprocs=procs,
                           join=False)
            done_at = None
            while not ctx.join(1.0):
                # rank 0 has handed its samples back: the others get 30 s to end, then stop
                if done_at is None and os.path.exists(result):
                    done_at = time.monotonic()
                if done_at is not None and time.monotonic() - done_at > 30:
                    for pr in ctx.processes:
                        if pr.is_alive():
                            pr.terminate()
                    break
        except Exception as e:  # a rank failed: the one line of the rank that failed first,
            # unless the rank seen dead left none (os._exit, a signal): then its exit is the cause
            idx = getattr(e, "error_index", None)
            said = first_failure(result, procs)
            if idx is not None and not os.path.exists(f"{result}.fail{idx}"):
                said = None
            raise fe.Fail(said or f"--procs {procs}: a learner process failed "
                                  f"({fe.one_line(e)})")
        with open(result) as f:
            got = json.load(f)
    finally:
        for name in os.listdir(d):
            os.unlink(os.path.join(d, name))
        os.rmdir(d)
    pts = []
    for g in got:
        p = fe.Point(g["m"])
        p.x, p.starts, p.why = g["x"], g["starts"], g["why"]
        pts.append(p)
    return pts


if __name__ == "__main__":
    sys.stderr.write("mbkit_dist.py is used by mbkit_torch.py probe --procs; run that\n")
    sys.exit(2)
