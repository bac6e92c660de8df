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
limit), and the rank that waited ends the job with one line naming itself and the limit; the
parent then kills the ranks left (SIGKILL: a stopped rank takes no other), and itself ends a
job whose ranks are all stopped. A rank's end is seen by its exit (waitpid), not only its pipe
(which a child it forked may hold); one that exits 0 before the job ended is named first
("rank 1 exited (status 0) before the job ended"), a signal without a name by its number.
A rank's standard output (fd 1) is its standard error: what
the user's code writes never reaches the step table.
The CUDA path (NCCL) has not run on a GPU.
"""
import datetime
import json
import multiprocessing.connection as mpc
import os
import signal
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


INTERRUPTED = 130  # a rank's exit status after KeyboardInterrupt: the parent's is an interrupt too
WAIT_GRACE = 10  # s past --wait-timeout before the parent ends a job whose ranks are all stopped
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
    except KeyboardInterrupt:  # Ctrl-C, or the user's code raising it: the parent's too
        raise SystemExit(INTERRUPTED)
    except fe.USER_RAISES as e:  # its one line for the parent, with the time it failed: the
        # rank that failed first holds the cause (rank 1's loss() raising); the others then
        # see only their peer gone ("Connection closed by peer")
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


def _rank(rank, a, procs, dev_type, init, result):
    """One rank: _worker, then its mark that it ended the job's way (result.okR): a rank that
    exits 0 without it (os._exit(0) in the user's code) ended before the job did."""
    _worker(rank, a, procs, dev_type, init, result)
    open(f"{result}.ok{rank}", "w").close()
    # ended here, its files written: a spawned rank's interpreter teardown destroys the gloo
    # group, whose threads, still joinable when the peer has gone, end the rank in
    # std::terminate now and then ("terminate called without an active exception", SIGABRT)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def signame(n):
    """SIGKILL, or the number of a signal that signal.Signals does not name (SIGRTMIN + 6)."""
    try:
        return signal.Signals(n).name
    except ValueError:
        return str(n)


def _early(ps, result):
    """The parent's line for a rank that exited 0 without its mark (ended before the job did),
    or None."""
    for r, pr in enumerate(ps):
        if pr.exitcode == 0 and not os.path.exists(f"{result}.ok{r}"):
            return (f"--procs {len(ps)}: rank {r} exited (status 0) before the job ended")
    return None


def _ended(ps, live, timeout):
    """The sentinels of live ranks that ended within timeout s: the sentinel pipe's end, or the
    process's exit (waitpid) once a second: a child the rank forked holds the pipe open."""
    got = set(mpc.wait(list(live), timeout=timeout))
    return got | {s for s, r in live.items() if ps[r].exitcode is not None}


def _kill(ps):
    """SIGKILL to the ranks still alive, and their ends waited for: SIGTERM (what
    torch.multiprocessing's join sends) stays pending on a stopped rank (SIGSTOP), and the
    join after it waited for ever."""
    for pr in ps:
        if pr.exitcode is None:
            try:
                os.kill(pr.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    for pr in ps:
        pr.join()


def _stopped(pid):
    """1 when the process is stopped (SIGSTOP, SIGTSTP: state T in /proc/PID/stat)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] in ("T", "t")
    except (OSError, IndexError):
        return False


def _join(ps, result, wait):
    """Waits for the ranks, the parent's own watch over them: None when all end well, else
    (rank, why) of the first seen to fail; the others get a second to end on their own (the
    rank that failed first writes its cause) and are then killed. A rank stopped for longer
    than the --wait-timeout (and a grace) ends the job too: its peers' waits end it sooner
    unless all are stopped. Once rank 0 has handed its samples back the others get 30 s."""
    live = {pr.sentinel: r for r, pr in enumerate(ps)}
    done_at, since = None, {}
    while live:
        for s in _ended(ps, live, 1.0):
            r = live.pop(s)
            ps[r].join()
            code = ps[r].exitcode
            if code == 0 and _early(ps, result):
                return None, _early(ps, result)
            if code != 0:
                end = time.monotonic() + 1.0
                while live and time.monotonic() < end:
                    for s2 in _ended(ps, live, min(0.2, max(0.0, end - time.monotonic()))):
                        live.pop(s2)
                if _early(ps, result):  # a rank gone early: the others' errors follow from it
                    return None, _early(ps, result)
                why = (f"process {r} terminated with signal {signame(-code)}"
                       if code < 0 else f"process {r} terminated with exit code {code}")
                return r, why
        now = time.monotonic()
        if done_at is None and os.path.exists(result):
            done_at = now
        if done_at is not None and now - done_at > 30:
            return None
        for s, r in live.items():
            if not wait or not _stopped(ps[r].pid):
                since.pop(r, None)
            elif now - since.setdefault(r, now) > wait + WAIT_GRACE:
                return None, (f"rank {r} stopped (a signal) for {wait + WAIT_GRACE:g} s, beyond "
                              f"--wait-timeout {wait:g}: a rank has stalled; ending the job")
    return None


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


def tracker():
    """multiprocessing's resource tracker (the spawned ranks' semaphores) started with SIGHUP
    blocked, as it ignores SIGINT and SIGTERM: a hangup of the whole process group (a closed
    terminal, timeout -s HUP) killed it, and the parent's exit then warned and printed its
    traceback after the front end's one line."""
    from multiprocessing import resource_tracker
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
    try:
        resource_tracker.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def probe(a, procs, dev):
    """The points (mbkit_torch.Point) of P = procs learners, measured by rank 0."""
    import torch.multiprocessing as mp
    try:
        d = tempfile.mkdtemp(prefix="mbkit_dist.")
    except OSError as e:  # no folder Python finds writable (ulimit -f 0, /tmp read-only)
        raise fe.Fail(f"--procs {procs}: no folder for the learners' rendezvous (TMPDIR="
                      f"{os.environ.get('TMPDIR', '(unset)')}: {e.strerror or e}"
                      f"{': ' + str(e.filename) if e.filename else ''}): set TMPDIR to a "
                      f"writable folder")
    init = "file://" + os.path.join(d, "rendezvous")
    result = os.path.join(d, "rank0.json")
    try:
        tracker()
        try:
            ctx = mp.spawn(_rank, args=(a, procs, dev.type, init, result), nprocs=procs,
                           join=False)
        except Exception as e:  # no process to start (EAGAIN, ENOMEM)
            raise fe.Fail(f"--procs {procs}: the learner processes did not start "
                          f"({type(e).__name__}: {fe.one_line(e)})")
        try:
            bad = _join(ctx.processes, result, a.wait_timeout)
        finally:  # Ctrl-C, or anything raised here: no rank outlives the parent
            _kill(ctx.processes)
        if bad is not None:  # a rank failed: the one line of the rank that failed first,
            # unless the rank seen dead left none (os._exit, a signal): then its exit is the cause
            idx, why = bad
            if any(pr.exitcode == INTERRUPTED for pr in ctx.processes):
                raise KeyboardInterrupt  # main's line, exit 130, as an interrupt of one learner
            if idx is None:  # the parent's own line: every rank stopped, a rank gone early
                raise fe.Fail(why)
            said = first_failure(result, procs)
            if idx is not None and not os.path.exists(f"{result}.fail{idx}"):
                said = None
            raise fe.Fail(said or f"--procs {procs}: a learner process failed ({why})")
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
