#!/usr/bin/env python3
"""seed_balance.py — would correcting each M's in-sample mean for the luck of its seeds bring
N_update's level nearer the held-out runs? (docs/results.md, "Seed blocks and a balanced
level").

    python3 tests/bench/seed_balance.py OUT [OUT...]

OUT is a finished make run's folder (runs/, seeds/, check/ in-sample; holdout/ and any
holdout-sS/ held out). The in-sample runs train seeds 0-2 at every M and more seeds only where
the decision is close, so an M's mean carries the luck of its own few seeds. A two-way fit
ln N(M, s) = mu_M + b_s (seed effects b over the seeds that trained two or more M, centred on
their mean) says how lucky each M's seeds were; the balanced mean is the plain mean times
exp(-mean b of its seeds). For every M that trained 3 or more in-sample runs and was held out,
one line: the plain and balanced in-sample means against the held-out median (as percentages),
then the median and mean |ln(in-sample / held-out)| of each over all of them. Reads only.
"""
import glob
import math
import re
import statistics as st
import sys


def updates(folders):
    """{(M, seed): N_update} of the runs in folders' lr*/ logs that reached the target."""
    runs = {}
    for d in folders:
        for f in glob.glob(d + '/lr*/*.csv'):
            m = re.search(r'-b(\d+)-s(\d+)\.csv$', f)
            if not m:
                continue
            with open(f) as fh:
                last = fh.read().strip().splitlines()[-1]
            kv = dict(x.split('=', 1) for x in last[2:].split() if '=' in x)
            if kv.get('reached') == 'yes':
                runs[(int(m.group(1)), int(m.group(2)))] = int(kv['reached_update'])
    return runs


def seed_effects(runs, rounds=300):
    """{seed: b} by backfitting ln N = mu_M + b_s over the seeds at two or more M."""
    logs = {k: math.log(v) for k, v in runs.items()}
    batches = sorted({k[0] for k in logs})
    seeds = [s for s in sorted({k[1] for k in logs})
             if len({k[0] for k in logs if k[1] == s}) >= 2]
    b = {s: 0.0 for s in seeds}
    for _ in range(rounds):
        mu = {m: st.mean(logs[k] - b.get(k[1], 0.0) for k in logs if k[0] == m)
              for m in batches}
        b = {s: st.mean(logs[k] - mu[k[0]] for k in logs if k[1] == s) for s in seeds}
        centre = st.mean(b.values()) if b else 0.0
        b = {s: v - centre for s, v in b.items()}
    return b


def main(outs):
    if not outs:
        print(__doc__.strip().splitlines()[4].strip(), file=sys.stderr)
        return 2
    plain, balanced = [], []
    for out in outs:
        ins = updates([out + '/runs', out + '/seeds', out + '/check'])
        b = seed_effects(ins)
        for held in sorted(glob.glob(out + '/holdout') + glob.glob(out + '/holdout-s*')):
            ho = updates([held])
            row = []
            for m in sorted({k[0] for k in ho}):
                mine = [k[1] for k in ins if k[0] == m]
                if len(mine) < 3:
                    continue
                med = st.median(v for k, v in ho.items() if k[0] == m)
                mean = st.mean(ins[(m, s)] for s in mine)
                bal = mean * math.exp(-st.mean(b.get(s, 0.0) for s in mine))
                plain.append(abs(math.log(mean / med)))
                balanced.append(abs(math.log(bal / med)))
                row.append('M=%d %+.0f%%/%+.0f%% (%d runs)' % (m, 100 * (mean / med - 1),
                                                               100 * (bal / med - 1), len(mine)))
            if row:
                print('%s %s: %s' % (out, held.rsplit('/', 1)[1], ', '.join(row)))
    if not plain:
        print('seed_balance.py: no M both trained 3 or more in-sample runs and was held out',
              file=sys.stderr)
        return 1
    print('median |ln error| plain %.3f, balanced %.3f; mean %.3f, %.3f; over %d' % (
        st.median(plain), st.median(balanced), st.mean(plain), st.mean(balanced), len(plain)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
