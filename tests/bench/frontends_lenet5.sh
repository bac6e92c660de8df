#!/bin/bash
# frontends_lenet5.sh — the C trainer as the reference for the PyTorch front end: N_update(M) of
# lenet5 on Fashion-MNIST trained by mbtrain and by mbkit_torch runs (frontends/torch/examples/
# lenet5.py, initialised as mbkit initialises) with the same network, data, optimiser (momentum
# 0.9), lr, target eval loss, evaluation subset size and M x seeds; each set fitted by mbfit
# nupdate --weights pooled, the two inverse laws printed with their 95% intervals and whether
# they overlap. The shuffles and evaluation subsets are each front end's own: the same
# distribution of runs, not the same runs. Skips with one line when torch is not installed.
#   THREADS=2 BATCHES=16,32,64,128 SEEDS=0:2 LR=0.02 TARGET=0.5 bash tests/bench/frontends_lenet5.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
THREADS=${THREADS:-2}
BATCHES=${BATCHES:-16,32,64,128}
SEEDS=${SEEDS:-0:2}
LR=${LR:-0.02}
TARGET=${TARGET:-0.5}
EVAL_FRAC=${EVAL_FRAC:-0.2}
NAME=frontends_lenet5
. tests/bench/torch_peer.bash
make -s build
B=build/release/bin
out=${OUT_DIR:-$(mktemp -d)}
mkdir -p "$out"
echo "$NAME: M = $BATCHES, seeds $SEEDS, lr $LR, target $TARGET, eval-frac $EVAL_FRAC, $THREADS threads, into $out"
for m in ${BATCHES//,/ }; do
    e=$(( 400 / m > 5 ? 400 / m : 5 ))
    OPENBLAS_NUM_THREADS=1 $B/mbtrain --net lenet5 --data fashion-mnist --algo momentum \
        --momentum 0.9 --lr "$LR" --batch "$m" --seeds "$SEEDS" --target-loss "$TARGET" \
        --eval-frac "$EVAL_FRAC" --eval-every "$e" --check-frac 0.0625 --no-test-eval \
        --max-updates 20000 --threads "$THREADS" --log-dir "$out/c" > /dev/null
done
$PY frontends/torch/mbkit_torch.py runs --model frontends/torch/examples/lenet5.py \
    --batch "$BATCHES" --seeds "$SEEDS" --lr "$LR" --target-loss "$TARGET" \
    --eval-frac "$EVAL_FRAC" --max-updates 20000 --threads "$THREADS" --log-dir "$out/torch" > /dev/null
for fe in c torch; do
    $B/mbfit nupdate --target-loss "$TARGET" --weights pooled "$out/$fe"/*.csv --json -o "$out/$fe.json"
    $B/mbfit nupdate --target-loss "$TARGET" --weights pooled "$out/$fe"/*.csv > "$out/$fe.txt"
done
$PY - "$out/c.json" "$out/torch.json" <<'PYEOF'
import json, sys
c, t = (json.load(open(p)) for p in sys.argv[1:3])
print(f"{'':8s} {'n_inf [95%]':>26s} {'alpha [95%]':>30s}")
for name, f in (("mbtrain", c), ("torch", t)):
    p, ci = f["params"], f["ci95"]
    print(f"{name:8s} {p['n_inf']:8.0f} [{ci['n_inf'][0]:6.0f}, {ci['n_inf'][1]:6.0f}] "
          f"{p['alpha']:10.0f} [{ci['alpha'][0]:7.0f}, {ci['alpha'][1]:7.0f}]")
for k in ("n_inf", "alpha"):
    a, b = c["ci95"][k], t["ci95"][k]
    inside = a[0] <= t["params"][k] <= a[1] and b[0] <= c["params"][k] <= b[1]
    print(f"{k}: the intervals {'overlap' if a[0] <= b[1] and b[0] <= a[1] else 'do NOT overlap'}"
          f"; each estimate {'lies' if inside else 'does NOT lie'} inside the other's interval")
for g in c.get("per_m", []):
    h = next((x for x in t.get("per_m", []) if x["batch"] == g["batch"]), None)
    if h:
        print(f"M = {g['batch']:4g}: mean N {g['mean']:7.0f} (mbtrain, {g['reached']} runs) "
              f"{h['mean']:7.0f} (torch, {h['reached']} runs)")
PYEOF
