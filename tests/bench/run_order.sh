#!/bin/bash
# run_order.sh — do held-out runs cost more an update than the sweep's because of how they are
# trained? The sweep's sequential sampling trains one M back to back; the held-out plan trains
# its M interleaved, one seed at a time. This trains one workload's M = MID back to back on 10
# seeds (A), then MID and four neighbours interleaved per seed (B), then MID back to back again
# (C), each run as make run trains it (mbtrain, its evaluation rule), and prints every run's
# seconds per update and the medians: MID in A, C, and B's first and second five seeds. A
# difference between the regimes is the order's; one between B's halves is the machine's
# (docs/results.md, "What the tiny MLPs' T_update error is").
#   NET=tests/bench/unseen/mlp6.cfg LR=0.06 TARGET_LOSS=0.48 MID=128 bash tests/bench/run_order.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
NET=${NET:-tests/bench/unseen/mlp6.cfg}
LR=${LR:-0.06}
TARGET_LOSS=${TARGET_LOSS:-0.48}
MID=${MID:-128}
THREADS=${THREADS:-2}
make -s build/release/bin/mbtrain
export PATH=$PWD/build/release/bin:$PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
train() { # M SEED FOLDER
    mbtrain --net "$NET" --data fashion-mnist --momentum 0.9 --max-updates 20000 \
        --target-loss "$TARGET_LOSS" --eval-frac 0.1 --algo momentum --threads "$THREADS" \
        --lr "$LR" --check-frac 0.0625 --check-sigmas 3 --no-test-eval \
        --eval-every $((400 / $1 > 5 ? 400 / $1 : 5)) --batch "$1" --seed "$2" \
        --log "$tmp/$3-b$1-s$2.csv" > /dev/null
}
neighbours="$((MID / 2)) $((MID * 3 / 5)) $((MID * 4 / 5)) $((MID * 5 / 4))"
for s in $(seq 1000 1009); do train "$MID" "$s" A; done
for s in $(seq 1000 1009); do for m in $neighbours $MID; do train "$m" "$s" B; done; done
for s in $(seq 1000 1009); do train "$MID" "$s" C; done
per_update() { # FILES...: seconds per update of each run, from its summary line
    for f in "$@"; do
        tail -n 1 "$f" | tr ' ' '\n' | awk -F= '{k[$1] = $2} END {printf "%.4g\n", k["wall_s"] / k["updates"]}'
    done
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }
echo "run_order: $(basename "$NET") lr $LR target $TARGET_LOSS, s per update at M = $MID (median of the runs)"
echo "  A, back to back:            $(per_update "$tmp"/A-b"$MID"-s*.csv | median)"
echo "  B, interleaved, seeds 0-4:  $(per_update "$tmp"/B-b"$MID"-s100[0-4].csv | median)"
echo "  B, interleaved, seeds 5-9:  $(per_update "$tmp"/B-b"$MID"-s100[5-9].csv | median)"
echo "  C, back to back again:      $(per_update "$tmp"/C-b"$MID"-s*.csv | median)"
echo "every M of B, seed by seed (s per update):"
for m in $neighbours $MID; do
    printf '  M = %-4s' "$m"
    for s in $(seq 1000 1009); do printf ' %s' "$(per_update "$tmp/B-b$m-s$s.csv")"; done
    echo
done
