#!/usr/bin/python3
"""gen_fit_examples.py — writes the SYNTHETIC example inputs of `mbfit` into data/examples/.

mbtrain and mbprobe did not exist when these were made, so these are not measurements: they are
drawn from mbkit's own models with stated parameters and noise, from a fixed seed, and every file
says so in its metadata (`# source=synthetic ...`). Run it again and the bytes are the same:

    /usr/bin/python3 data/examples/gen_fit_examples.py

Files written:
  fit_runs/run_M<M>_s<seed>.csv  mbtrain-format run logs, M in 16..512, 3 seeds each. The
        loss falls as 0.3 + 2 exp(-u ln(10) / N_s), so eval_loss reaches 0.5 at u = N_s, where
        N_s = (N_inf + alpha / M) exp(0.05 z) with N_inf = 300, alpha = 20000. One run (M = 512,
        seed 2) stops before reaching 0.5, to show unreached runs being counted.
  nupdate_points.csv  batch,n_update,seed: the same law, 3 seeds per M, 5% lognormal noise, each
        run's N_update rounded to a whole number of updates (a row with a seed is one run).
  step.csv   mbprobe-format step table, P = 1 and 4: gamma = 2e-5 s, M_T = 32, delta = 1e-3 s
        (P = 1) and 4e-3 s (P = 4), 2% lognormal noise on t_median_s.
  comm.csv   mbprobe-format collective table: ring allreduce with latency 5e-6 s and 1e-9 s/byte,
        P = 2, 4, 8, bytes 4 B .. 64 MiB, 3% lognormal noise.
"""
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
META = "# source=synthetic generator=data/examples/gen_fit_examples.py (not a measurement)\n"


def write(path, text):
    with open(os.path.join(HERE, path), "w") as f:
        f.write(text)


def runs(rng):
    os.makedirs(os.path.join(HERE, "fit_runs"), exist_ok=True)
    n_inf, alpha = 300.0, 20000.0
    for m in (16, 32, 64, 128, 256, 512):
        for seed in range(3):
            n_s = (n_inf + alpha / m) * math.exp(0.05 * rng.gauss(0, 1))
            stop = 0.8 * n_s if (m == 512 and seed == 2) else 1.6 * n_s
            lines = ["# format=mbkit-runlog/1\n", META, "# net=lenet5\n# data=fashion-mnist\n# algo=sgd\n",
                     f"# batch={m}\n# learners=1\n# lr=0.05\n# seed={seed}\n",
                     "update,epoch,samples,wall_s,loss,eval_loss,eval_acc\n"]
            u, reached = 0, "no"
            while u <= stop:
                clean = 0.3 + 2.0 * math.exp(-u * math.log(10.0) / n_s)
                loss = clean * math.exp(0.05 * rng.gauss(0, 1))
                ev = acc = ""
                if u % 50 == 0:
                    ev = f"{clean * math.exp(0.002 * rng.gauss(0, 1)):.6f}"
                    acc = f"{min(0.99, 1.0 - clean / 3.0):.4f}"
                    if float(ev) <= 0.5:
                        reached = "yes"
                samples = u * m
                lines.append(f"{u},{samples / 60000:.4f},{samples},{u * 0.002 * m / 32:.3f},"
                             f"{loss:.6f},{ev},{acc}\n")
                u += 10
            lines.append(f"# updates={u - 10} reached={reached} target_loss=0.5\n")
            write(f"fit_runs/run_M{m}_s{seed}.csv", "".join(lines))


def points(rng):
    out = ["# format=mbkit-points/1\n", META, "# law=N_inf + alpha/M with N_inf=300 alpha=20000, 5% lognormal noise\n",
           "batch,n_update,seed\n"]
    for m in (8, 16, 32, 64, 128, 256, 512, 1024):
        for seed in range(3):
            n = (300.0 + 20000.0 / m) * math.exp(0.05 * rng.gauss(0, 1))
            out.append(f"{m},{n:.0f},{seed}\n")  # one run: a whole number of updates
    write("nupdate_points.csv", "".join(out))


def step(rng):
    out = ["# format=mbkit-step/1\n", META, "# law=gamma*max(M/P,M_T)+delta with gamma=2e-5 M_T=32 delta=1e-3 (P=1), "
                 "4e-3 (P=4), 2% lognormal noise\n",
           "backend,net,batch,learners,threads,reps,t_median_s,t_min_s,t_p25_s,t_p75_s,"
           "t_max_s,samples_per_s\n"]
    for p, delta in ((1, 1e-3), (4, 4e-3)):
        m = p
        while m <= 1024 * p:
            t = (2e-5 * max(m / p, 32) + delta) * math.exp(0.02 * rng.gauss(0, 1))
            out.append(f"cpu,lenet5,{m},{p},2,15,{t:.6g},{t * 0.97:.6g},{t * 0.99:.6g},"
                       f"{t * 1.01:.6g},{t * 1.08:.6g},{m / t:.6g}\n")
            m *= 2
    write("step.csv", "".join(out))


def comm(rng):
    out = ["# format=mbkit-comm/1\n", META, "# law=ring allreduce 2(P-1) 5e-6 + 2(P-1)/P bytes 1e-9, 3% lognormal noise\n",
           "op,procs,bytes,reps,t_median_s,t_min_s,t_max_s\n"]
    for p in (2, 4, 8):
        b = 4
        while b <= 64 << 20:
            t = (2 * (p - 1) * 5e-6 + 2 * (p - 1) / p * b * 1e-9) * math.exp(0.03 * rng.gauss(0, 1))
            out.append(f"allreduce,{p},{b},20,{t:.6g},{t * 0.95:.6g},{t * 1.2:.6g}\n")
            b *= 8
    write("comm.csv", "".join(out))


if __name__ == "__main__":
    rng = random.Random(20240607)
    runs(rng)
    points(rng)
    step(rng)
    comm(rng)
