#!/usr/bin/python3
"""fit_reference.py — an independent check of mbfit with Debian's python3-scipy.

Not part of `make check`. It redoes every fit mbfit makes, from the same input files, with code
that shares nothing with fit/ (its own CSV reading, threshold crossing and grouping; scipy's
curve_fit for the inverse law, power law and McCandlish form; a dense profile search plus
minimize_scalar for the knee; lsq_linear with bounds >= 0 for the collectives), runs
`mbfit ... --json`, and prints the largest relative difference of parameters and standard errors.

    /usr/bin/python3 tests/fit_reference.py [--mbfit build/release/bin/mbfit]

Exit status 1 when a parameter differs by more than 1e-6 relative or a standard error by more
than 1e-4 relative (curve_fit's Jacobian is a finite difference, good to about 1e-6..1e-8).
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys

import numpy as np
from scipy.optimize import curve_fit, lsq_linear, minimize_scalar

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_csv(path):
    meta, header, rows = {}, None, []
    for line in open(path):
        line = line.strip()
        if not line:
            continue
        if line.startswith("#"):
            if header is None and "=" in line:
                k, v = line[1:].split("=", 1)
                meta[k.strip()] = v.strip()
            continue
        f = [x.strip() for x in line.split(",")]
        if header is None:
            header = f
        else:
            rows.append(dict(zip(header, f)))
    return meta, header, rows


def crossing(path, thr, smooth):
    meta, header, rows = read_csv(path)
    evals = [r for r in rows if r.get("eval_loss", "") != ""]
    if evals:
        for r in evals:
            if float(r["eval_loss"]) <= thr:
                return float(meta["batch"]), float(r["update"])
        return float(meta["batch"]), None
    losses = [float(r["loss"]) for r in rows]
    for i in range(smooth - 1, len(rows)):
        if sum(losses[i - smooth + 1:i + 1]) / smooth <= thr:
            return float(meta["batch"]), float(rows[i]["update"])
    return float(meta["batch"]), None


def fit_n(points, weights):
    """points: {M: [N, ...]} -> dict of model -> (params, stderr)."""
    ms = np.array(sorted(m for m in points if points[m]))
    y = np.array([np.mean(points[m]) for m in ms])
    if weights == "relative":
        sig = y
    elif weights == "seeds":
        sig = np.array([np.std(points[m], ddof=1) / math.sqrt(len(points[m])) for m in ms])
    else:
        sig = None
    out = {}
    inv = lambda m, a, b: a + b / m
    p, c = curve_fit(inv, ms, y, p0=[y[-1], (y[0] - y[-1]) * ms[0]], sigma=sig,
                     absolute_sigma=False, xtol=1e-15, ftol=1e-15, gtol=1e-15)
    out["inverse-law"] = (dict(n_inf=p[0], alpha=p[1]), np.sqrt(np.diag(c)))
    if p[0] > 0:
        mcc = lambda m, s, bn: s * (1 + bn / m)
        q, c = curve_fit(mcc, ms, y, p0=[p[0], p[1] / p[0]], sigma=sig, absolute_sigma=False,
                         xtol=1e-15, ftol=1e-15, gtol=1e-15)
        out["mccandlish"] = (dict(s_min=q[0], b_noise=q[1]), np.sqrt(np.diag(c)))
    if len(ms) >= 4:
        pw = lambda m, a, k, b: a + k * m ** (-b)
        q, c = curve_fit(pw, ms, y, p0=[p[0], p[1], 1.0], sigma=sig, absolute_sigma=False,
                         xtol=1e-15, ftol=1e-15, gtol=1e-15, maxfev=20000)
        out["power-law"] = (dict(n_inf=q[0], a=q[1], b=q[2]), np.sqrt(np.diag(c)))
    return out


def knee(m, t, weights):
    m, t = np.array(m), np.array(t)
    w = 1 / t ** 2 if weights == "relative" else np.ones_like(t)
    sw = np.sqrt(w)

    def prof(mt):
        X = np.column_stack([np.maximum(m, mt), np.ones_like(m)])
        b, *_ = np.linalg.lstsq(X * sw[:, None], t * sw, rcond=None)
        r = t - X @ b
        return float(np.sum(w * r * r)), b

    u = np.unique(m)
    grid = np.exp(np.linspace(math.log(u[0]), math.log(u[-3]), 40001))
    vals = [prof(g)[0] for g in grid]
    i = int(np.argmin(vals))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    r = minimize_scalar(lambda x: prof(x)[0], bounds=(lo, hi), method="bounded",
                        options=dict(xatol=1e-12 * grid[i]))
    best = min([(vals[i], grid[i]), (r.fun, r.x)] + [(prof(x)[0], x) for x in u])
    b = prof(best[1])[1]
    return dict(gamma=b[0], m_t=best[1], delta=b[1])


def nonneg(X, y, weights):
    sw = 1 / y if weights == "relative" else np.ones_like(y)
    r = lsq_linear(X * sw[:, None], y * sw, bounds=(0, np.inf), tol=1e-15, method="bvls")
    return r.x


def rel(a, b):
    if a == b:
        return 0.0
    return abs(a - b) / max(abs(a), abs(b))


def run_mbfit(mbfit, args):
    out = subprocess.run([mbfit] + args + ["--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mbfit", default=os.path.join(ROOT, "build/release/bin/mbfit"))
    a = ap.parse_args()
    worst_p, worst_s, lines = 0.0, 0.0, []

    def compare(label, mine, ref_p, ref_se=None, names=None):
        nonlocal worst_p, worst_s
        names = names or list(ref_p)
        for j, k in enumerate(names):
            dp = rel(mine["params"][k], ref_p[k])
            worst_p = max(worst_p, dp)
            s = ""
            if ref_se is not None:
                ds = rel(mine["stderr"][k], ref_se[j])
                worst_s = max(worst_s, ds)
                s = f"  stderr {mine['stderr'][k]:.10g} vs {ref_se[j]:.10g} (rel {ds:.1e})"
            lines.append(f"{label:34s} {k:10s} {mine['params'][k]:.12g} vs {ref_p[k]:.12g} "
                         f"(rel {dp:.1e}){s}")

    # nupdate: shipped logs (two thresholds), shipped points (three weightings), fixtures
    logs = sorted(glob.glob(os.path.join(ROOT, "data/examples/fit_runs/*.csv")))
    cases = [("example logs eps=0.5", logs, [0.5], "relative"),
             ("example logs eps=0.4", logs, [0.4], "relative"),
             ("fixture logs eps=0.5", sorted(glob.glob(os.path.join(
                 ROOT, "tests/fixtures/fit/run_*.csv"))), [0.5], "none")]
    for label, files, thr, wt in cases:
        pts = {}
        for f in files:
            mm, n = crossing(f, thr[0], 10)
            pts.setdefault(mm, [])
            if n is not None:
                pts[mm].append(n)
        ref = fit_n(pts, wt)
        mine = run_mbfit(a.mbfit, ["nupdate", "--target-loss", str(thr[0]), "--weights", wt]
                         + files)
        compare(label + " inverse", mine, ref["inverse-law"][0], ref["inverse-law"][1])
        alts = mine["alternatives"]
        for mod in ("mccandlish", "power-law"):
            if mod in ref:
                compare(label + " " + mod, alts[mod], ref[mod][0], ref[mod][1])
    ptsf = os.path.join(ROOT, "data/examples/nupdate_points.csv")
    _, _, rows = read_csv(ptsf)
    pts = {}
    for r in rows:
        pts.setdefault(float(r["batch"]), []).append(float(r["n_update"]))
    for wt in ("relative", "none", "seeds"):
        ref = fit_n(pts, wt)
        mine = run_mbfit(a.mbfit, ["nupdate", "--weights", wt, ptsf])
        compare("example points " + wt, mine, ref["inverse-law"][0], ref["inverse-law"][1])
        for mod in ("mccandlish", "power-law"):
            compare("example points " + wt + " " + mod, mine["alternatives"][mod], ref[mod][0],
                    ref[mod][1])

    # tupdate
    stepf = os.path.join(ROOT, "data/examples/step.csv")
    _, _, rows = read_csv(stepf)
    for wt in ("relative", "none"):
        mine = run_mbfit(a.mbfit, ["tupdate", "--weights", wt, stepf])
        for fit in mine["by_learners"]:
            P = fit["learners"]
            sel = [r for r in rows if float(r["learners"]) == P]
            ref = knee([float(r["batch"]) / P for r in sel], [float(r["t_median_s"]) for r in sel],
                       wt)
            compare(f"example step P={P:g} {wt}", fit, ref)

    # comm
    commf = os.path.join(ROOT, "data/examples/comm.csv")
    _, _, rows = read_csv(commf)
    mine = run_mbfit(a.mbfit, ["comm", commf])
    ar = [r for r in rows if r["op"] == "allreduce" and float(r["procs"]) >= 2]
    P = np.array([float(r["procs"]) for r in ar])
    B = np.array([float(r["bytes"]) for r in ar])
    y = np.array([float(r["t_median_s"]) for r in ar])
    X = np.column_stack([2 * (P - 1), 2 * (P - 1) / P * B])
    x = nonneg(X, y, "relative")
    compare("example comm ring", mine, dict(latency_s=x[0], s_per_byte=x[1]))
    for fit in mine["fits"]:
        sel = [r for r in rows if r["op"] == fit["op"] and float(r["procs"]) == fit["procs"]]
        Bs = np.array([float(r["bytes"]) for r in sel])
        ys = np.array([float(r["t_median_s"]) for r in sel])
        x = nonneg(np.column_stack([np.ones_like(Bs), Bs]), ys, "relative")
        compare(f"example comm {fit['op']} P={fit['procs']:g}", fit,
                dict(a_s=x[0], b_s_per_byte=x[1]))

    print("\n".join(lines))
    print(f"max relative difference: params {worst_p:.2e}, stderr {worst_s:.2e}")
    return 0 if worst_p <= 1e-6 and worst_s <= 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
