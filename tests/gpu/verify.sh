#!/bin/bash
# verify.sh — `make gpu-verify`: the CUDA backend checked on the GPU at hand, in one run, with one
# report (out/gpu-verify/report.md; the tables it quotes lie beside it). It runs
#   1. the suites that compare every CUDA operation with the CPU's (train_backend, train_cuda,
#      train_net, train_conv, probe), which skip nothing when a device is there;
#   2. bad input on the device: an out-of-range --device, a convolution algorithm cuDNN cannot do
#      for a layer (one line, exit 1 each);
#   3. mbprobe step --backend cuda on lenet5 (M = 1 .. 1024) against PyTorch + cuDNN's lenet5
#      step (tests/bench/torch_lenet5.py) on the same GPU, same run: median s/update, ratio;
#   4. mbtrain --backend cuda against --backend cpu: lenet5 on Fashion-MNIST to the same target;
#   5. mbprobe conv --backend cuda on lenet5 and AlexNet: every cuDNN algorithm per layer and pass;
#   6. the PyTorch front end on the GPU (frontends/torch, --device cuda): its step table and two
#      short runs of the lenet5 example on Fashion-MNIST (FASHION_MNIST_DIR, Debian's by default);
#   7. make run BACKEND=cuda: the main job on the device, held-out check included (OUT=DIR/run);
#      without gnuplot it stops before the figures and says so.
# Exits 1 when there is no usable device (the first line says why) or any check fails; the timing
# ratio is a figure, reported, never a pass/fail (docs/results.md, "The first GPU").
#   make gpu-verify                       (builds, then runs this)
#   BIN=dir PY=python3 DEVICE=0 bash tests/gpu/verify.sh   (BIN/.. is make's BUILD)
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN=$(cd "${BIN:-build/release/bin}" && pwd) || exit 1
DIR=${GPU_VERIFY_DIR:-out/gpu-verify}
PY=${PY:-python3}
DEVICE=${DEVICE:-0}
export PATH="$BIN:$PATH" OPENBLAS_NUM_THREADS=1 XDG_CACHE_HOME=${XDG_CACHE_HOME:-$PWD/$DIR/cache}
mkdir -p "$DIR" || exit 1
R=$DIR/report.md
failed=0
say() { printf '%s\n' "$@" >> "$R"; }

# ---- the device --------------------------------------------------------------------------------
: > "$R"
say "# mbkit gpu-verify, $(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD 2>/dev/null)"
if ! why=$(mbprobe step --net lenet5 --backend cuda --device "$DEVICE" --batch 1 --budget 0.01 \
               -o "$DIR/gate.csv" 2>&1 >/dev/null); then
    echo "gpu-verify: no usable CUDA device $DEVICE: $why" | tee -a "$R" >&2
    exit 1
fi
gpu=$(tail -n 1 "$DIR/gate.csv" | awk -F, '{ print $NF }')
ndev=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
say "" "device $DEVICE: $gpu; $ndev GPU(s) seen by nvidia-smi;" \
    "$(nvidia-smi -i "$DEVICE" --query-gpu=driver_version,memory.total --format=csv,noheader 2>/dev/null |
       sed 's/^/driver /')"

# ---- 1. the suites -----------------------------------------------------------------------------
say "" "## CUDA against the CPU (mbtest train_backend train_cuda train_net train_conv probe)" ""
mbtest train_backend train_cuda train_net train_conv probe > "$DIR/tests.txt" 2>&1
rc=$?
say '```'
grep -E '^\s+(cuda|cpu|\[skip\])|failures|CU_ASSERT|^\s+(suites|tests|asserts)' "$DIR/tests.txt" >> "$R"
say '```'
if [ $rc -ne 0 ] || grep -q '\[skip\] cuda' "$DIR/tests.txt"; then
    say "**FAILED** (exit $rc; $DIR/tests.txt)"
    failed=1
fi

# ---- 2. bad input on the device ----------------------------------------------------------------
say "" "## Bad input" ""
bad() { # want-status want-text command...
    local want=$1 text=$2 out st
    shift 2
    out=$("$@" 2>&1 >/dev/null)
    st=$?
    if [ $st -eq "$want" ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
       [[ $out == *"$text"* ]]; then
        say "- ok: \`${*#"$BIN/"}\`: exit $st: $out"
    else
        say "- **FAILED**: \`$*\`: exit $st (want $want, one line with '$text'): $out"
        failed=1
    fi
}
bad 1 "device" mbprobe step --net lenet5 --backend cuda --device "${ndev:-64}" --batch 2 \
    --budget 0.01 -o "$DIR/x.csv"
bad 1 "direct" mbprobe step --net lenet5 --backend cuda --conv-algo direct --batch 2 \
    --budget 0.01 -o "$DIR/x.csv"

# ---- 3. the lenet5 step against PyTorch + cuDNN ------------------------------------------------
say "" "## lenet5 step (forward, backward, SGD) against PyTorch + cuDNN, same GPU, same run" ""
mbprobe step --net lenet5 --backend cuda --device "$DEVICE" --batch 1:1024 --budget 0.4 \
    --rounds 2 -o "$DIR/step_cuda.csv" > "$DIR/step_cuda.txt" 2>&1 || {
    say "**FAILED**: mbprobe step: $(tail -n 1 "$DIR/step_cuda.txt")"
    failed=1
}
CUDA_VISIBLE_DEVICES=$DEVICE PYTHONPATH=tests/bench $PY - > "$DIR/torch_cuda.csv" 2> "$DIR/torch.txt" <<'PYEOF'
import time, torch
from torch_lenet5 import lenet5_step
torch.backends.cudnn.benchmark = True  # cuDNN's own timed choice per shape
print("M,s_per_update")
step = lenet5_step(1, device="cuda")
m = 1
while m <= 1024:
    x = torch.rand(m, 1, 28, 28, device="cuda")
    y = torch.randint(0, 10, (m,), device="cuda")
    for _ in range(20):
        step(x, y)
    ts, end = [], time.perf_counter() + 0.4
    while time.perf_counter() < end or len(ts) < 11:
        t0 = time.perf_counter(); step(x, y); ts.append(time.perf_counter() - t0)
    ts.sort()
    print(f"{m},{ts[len(ts) // 2]:.6e}", flush=True)
    m *= 2
PYEOF
if [ $? -ne 0 ]; then
    say "PyTorch + CUDA could not run ($PY): $(tail -n 1 "$DIR/torch.txt")"
else
    say "| M | mbkit s/update | torch s/update | mbkit / torch |" "|---|---|---|---|"
    join -t, <(grep -v '^#' "$DIR/step_cuda.csv" | tail -n +2 | cut -d, -f3,7 | sort -t, -k1,1) \
             <(tail -n +2 "$DIR/torch_cuda.csv" | sort -t, -k1,1) | sort -t, -k1,1n |
        awk -F, '{ printf "| %d | %.3e | %.3e | %.2f |\n", $1, $2, $3, $2 / $3;
                   if ($1 <= 64 && $2 / $3 > worst) worst = $2 / $3 }
                 END { printf "\nworst ratio at M <= 64: %.2f (goal <= 1.0)\n", worst }' >> "$R"
    say "" "mbkit's step draws each batch from a host copy of the data set and uploads it; the" \
        "forward and backward passes and the optimiser run on the device. torch's batch is" \
        "already on the device."
fi

# ---- 4. one learner trained on the device and on the CPU -------------------------------------
say "" "## mbtrain --backend cuda against --backend cpu (lenet5, Fashion-MNIST, M = 32, momentum" \
    "lr 0.05, to eval loss 0.6, seeds 0 and 1)" ""
DATA=${FASHION_MNIST_DIR:-fashion-mnist}
for be in cuda cpu; do
    for seed in 0 1; do
        if ! mbtrain --net lenet5 --data "$DATA" --backend $be --batch 32 --algo momentum \
                --lr 0.05 --target-loss 0.6 --eval-every 50 --max-updates 5000 --seed $seed \
                --log "$DIR/train_${be}_$seed.csv" > "$DIR/train_${be}_$seed.txt" 2>&1; then
            say "- **FAILED** $be seed $seed: $(tail -n 1 "$DIR/train_${be}_$seed.txt")"
            failed=1
            continue
        fi
        say "- $be seed $seed: $(tr ' ' '\n' < "$DIR/train_${be}_$seed.txt" |
            grep -E '^(reached|reached_update|reached_wall_s|eval_loss|device)=' | tr '\n' ' ')"
    done
done

# ---- 5. every cuDNN algorithm per layer --------------------------------------------------------
say "" "## cuDNN's algorithms (mbprobe conv --backend cuda)" ""
for net in lenet5:1,16,64,256 alexnet:1,16,64; do
    n=${net%%:*}
    if mbprobe conv --net "$n" --backend cuda --device "$DEVICE" --batch "${net#*:}" \
           --budget 0.1 --no-cache -o "$DIR/conv_$n.csv" > "$DIR/conv_$n.txt" 2>&1; then
        say "- $n: $(tail -n 1 "$DIR/conv_$n.txt")"
    else
        say "- **FAILED** $n: $(tail -n 1 "$DIR/conv_$n.txt")"
        failed=1
    fi
done

# ---- 6. the PyTorch front end on the GPU ------------------------------------------------------
say "" "## The PyTorch front end on the GPU (frontends/torch/mbkit_torch.py --device cuda)" ""
FE=frontends/torch/mbkit_torch.py
EX=frontends/torch/examples/lenet5.py
rm -rf "$DIR/fe_runs"
if $PY $FE probe --model $EX --device "cuda:$DEVICE" --batch 16:256 --rounds 1 --budget 0.2 \
       -o "$DIR/fe_step.csv" > "$DIR/fe.txt" 2>&1 &&
   $PY $FE runs --model $EX --device "cuda:$DEVICE" --batch 32,128 --seeds 0 --lr 0.05 \
       --target-loss 0.6 --max-updates 3000 --log-dir "$DIR/fe_runs" >> "$DIR/fe.txt" 2>&1; then
    say "- step table: $(grep -v '^#' "$DIR/fe_step.csv" | tail -n +2 |
                         awk -F, '{ printf "M=%s %.3g s  ", $3, $7 }')"
    say "- runs (lr 0.05 to eval loss 0.6):"
    grep '^net=' "$DIR/fe.txt" | awk '{ printf "  - %s %s %s %s %s\n", $3, $13, $14, $8, $11 }' >> "$R"
    say "- device: $(grep -h '^# device_name=' "$DIR/fe_step.csv" | head -1 | cut -d= -f2)"
else
    say "- **FAILED**: $(tail -n 2 "$DIR/fe.txt" | tr '\n' ' ')"
    failed=1
fi

# ---- 7. the main job on the device ------------------------------------------------------------
# make run's pipeline with the commands already built (-o: never remade here), on this device's
# Fashion-MNIST; the answer, its held-out check and the time in the report
say "" "## make run BACKEND=cuda (the main job on the device, lenet5 on Fashion-MNIST)" ""
RUN=$DIR/run
goal=$RUN/report.html
command -v gnuplot > /dev/null || goal="$RUN/scale.json $RUN/validate.json $RUN/conv.json"
rm -rf "$RUN"
t0=$(date +%s)
# shellcheck disable=SC2046,SC2086 # the -o list and the goals are words
if ${MAKE:-make} --no-print-directory $(for c in "$BIN"/mb*; do printf -- '-o %s ' "${c#"$PWD/"}"; done) \
       $goal OUT="$RUN" BUILD="$(dirname "${BIN#"$PWD/"}")" BACKEND=cuda DEVICE="$DEVICE" \
       DATA="$DATA" > "$DIR/run.txt" 2>&1; then
    say "- done in $(( $(date +%s) - t0 )) s$(command -v gnuplot > /dev/null ||
        echo '; gnuplot not found here, so the figures and report.html were not drawn')" ""
    say '```'
    grep -hE '^(fastest|recommendation|settled|level|flat):' "$RUN/scale.txt" >> "$R"
    sed -n '/^in-sample:/,$p' "$RUN/validate.txt" | grep -v '^#' >> "$R"
    awk '/^# .*eval_s=/ { for (i = 2; i <= NF; i++) { split($i, kv, "=");
           if (kv[1] == "wall_s") w += kv[2]; if (kv[1] == "eval_s") e += kv[2] } n++ }
         END { printf "%d runs: %.1f s training, %.1f s evaluating\n", n, w, e }' \
        "$RUN"/runs/lr*/*.csv "$RUN"/check/lr*/*.csv "$RUN"/seeds/lr*/*.csv \
        "$RUN"/holdout/lr*/*.csv 2>/dev/null >> "$R"
    say '```'
else
    say "- **FAILED** after $(( $(date +%s) - t0 )) s: $(tail -n 3 "$DIR/run.txt" | tr '\n' ' ')"
    failed=1
fi

say "" "## Not verified here" "" \
    "- mbtrain --backend cuda with several learners or checkpoints (refused)" \
    "- NCCL (mbkit has no NCCL communicator yet), so make run BACKEND=cuda answers P = 1"
say "" "$([ $failed -eq 0 ] && echo PASSED || echo FAILED)"
cat "$R"
exit $failed
