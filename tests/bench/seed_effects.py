#!/usr/bin/env python3
"""seed_effects.py — how much of the run-to-run spread of N_update is the seed's, shared by its
runs at every M, in finished make runs' held-out runs (docs/results.md, "Seeds shared across M").

    python3 tests/bench/seed_effects.py OUT [OUT...]

OUT is a make run output folder holding holdout/. For each, the per-seed mean of ln N_update
about each M's median (M with 8 or more runs that reached the target), and the share of the
variance that mean explains; then the correlation of the per-seed effects between every two
OUTs whose held-out runs share 8 or more seeds (the held-out seeds are the same numbers on
every workload).
"""
import glob
import itertools
import math
import statistics as st
import sys


def held_out(out):
    """{M: {seed: ln N_update}} of the held-out runs that reached the target."""
    runs = {}
    for f in glob.glob(out + '/holdout/*/*.csv'):
        with open(f) as fh:
            for line in fh:
                if line.startswith('# net='):
                    kv = dict(x.split('=', 1) for x in line[2:].split() if '=' in x)
                    if kv.get('reached') == 'yes':
                        runs.setdefault(int(kv['batch']), {})[int(kv['seed'])] = \
                            math.log(float(kv['reached_update']))
    return runs


def main(outs):
    if not outs:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    effects = {}
    for out in outs:
        dev = {}
        for v in held_out(out).values():
            if len(v) >= 8:
                md = st.median(v.values())
                for s, x in v.items():
                    dev.setdefault(s, []).append(x - md)
        if len(dev) < 3:
            print(f'{out}: fewer than 3 seeds with runs at an M of 8 or more runs', file=sys.stderr)
            continue
        fx = {s: st.mean(x) for s, x in dev.items()}
        total = [y for x in dev.values() for y in x]
        share = st.pvariance(list(fx.values())) / st.pvariance(total)
        effects[out] = fx
        print(f'{out}: the seed explains {share:.2f} of the variance; per seed (%): ' +
              ' '.join(f'{s}:{100 * e:+.0f}' for s, e in sorted(fx.items())))
    cors = []
    for a, b in itertools.combinations(sorted(effects), 2):
        seeds = sorted(set(effects[a]) & set(effects[b]))
        if len(seeds) < 8:
            continue
        x = [effects[a][s] for s in seeds]
        y = [effects[b][s] for s in seeds]
        mx, my = st.mean(x), st.mean(y)
        den = math.sqrt(sum((p - mx) ** 2 for p in x) * sum((q - my) ** 2 for q in y))
        if den > 0:
            cors.append(sum((p - mx) * (q - my) for p, q in zip(x, y)) / den)
    if cors:
        print(f'per-seed effects across workloads: {len(cors)} pairs, median correlation '
              f'{st.median(cors):.2f}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
