#!/usr/bin/env python3
"""settle_vs_model.py — for make run outputs with a held-out check, the held-out ratio of the
answer against that of the model's own optimum: did letting the runs settle a near tie help?

    python3 tests/bench/settle_vs_model.py OUT [OUT ...]

Reads each OUT's validate.txt (the held-out table's vs_best column), logs/holdout.log (which
held-out M was the recommendation and which the model's optimum) and scale.txt (whether the
runs settled the answer). Prints one line an OUT, then the count of runs-settled answers held
out faster, equal and slower than the model's optimum. Reads only; an OUT without a held-out
check is skipped with a note on stderr.
"""
import os
import re
import sys


def plan_of(path):
    """{why: M} from the first line of logs/holdout.log."""
    first = open(path).readline()
    m = re.search(r"held out at P = 1: (.*) on seeds", first)
    plan = {}
    for item in (m.group(1).split(", ") if m else []):
        mm = re.match(r"(?:M = )?(\d+) \((.*)\)", item)
        if mm and mm.group(2) not in plan:
            plan[mm.group(2)] = int(mm.group(1))
    return plan


def ratios_of(path):
    """{M: vs_best} from the held-out table of validate.txt."""
    out, inside = {}, False
    for line in open(path):
        if line.startswith("held-out "):
            inside = True
            continue
        if inside:
            t = line.split("#")[0].split()
            if len(t) < 9 or not t[-1].endswith("x"):
                break
            out[int(t[2])] = float(t[-1][:-1])
    return out


def main(dirs):
    tally = {"faster": 0, "equal": 0, "slower": 0}
    for d in dirs:
        need = [os.path.join(d, f) for f in ("validate.txt", "logs/holdout.log", "scale.txt")]
        if not all(os.path.isfile(f) for f in need):
            print(f"{d}: no held-out check here, skipped", file=sys.stderr)
            continue
        plan, ratio = plan_of(need[1]), ratios_of(need[0])
        rec = plan.get("recommended")
        opt = plan.get("model's optimum", rec)
        settled = "settled:        by the runs" in open(need[2]).read()
        if rec not in ratio or opt not in ratio:
            print(f"{d}: the recommendation or the model's optimum was not held out, skipped",
                  file=sys.stderr)
            continue
        print(f"{d}: answer M = {rec} {ratio[rec]:.2f}x, model's optimum M = {opt} "
              f"{ratio[opt]:.2f}x, {'settled by the runs' if settled else 'the runs agree'}")
        if settled:
            key = ("equal" if rec == opt or ratio[rec] == ratio[opt] else
                   "faster" if ratio[rec] < ratio[opt] else "slower")
            tally[key] += 1
    print(f"settled by the runs: {tally['faster']} held out faster than the model's optimum, "
          f"{tally['equal']} equal, {tally['slower']} slower")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: settle_vs_model.py OUT [OUT ...]")
    main(sys.argv[1:])
