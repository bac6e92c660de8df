#!/usr/bin/env bash
# ckpt_kill.sh — kill -9 during checkpoint writes, N times (default 20), and check what --resume
# makes of the file left behind.
#
# Each round starts a run that writes a checkpoint after every update and kills it with SIGKILL
# after a random 50-400 ms (odd rounds), or at the moment a checkpoint's temporary file is seen
# (even rounds: the kill lands inside a write), then:
#   - the checkpoint path holds either nothing (killed before the first checkpoint) or a
#     whole checkpoint: --resume must accept it (a refusal of a whole file is a failure) and
#     finish the run, and a straight run to the same update must log the same losses
#     (accepting a wrong file would show here);
#   - every temporary the kill left ("ck.bin.tmp.PID.*") is gone after the resumed run's first
#     checkpoint write (stale temporaries of dead writers are removed);
#   - a copy of the checkpoint cut at a random length is refused (a torn file never passes).
# Usage: tests/ckpt_kill.sh [ROUNDS]   (BIN=build/release/bin by default)
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-build/release/bin}
ROUNDS=${1:-20}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/net.cfg" <<'CFG'
[net]
name=killnet
channels=1
height=12
width=12
[conv]
filters=8
size=3
activation=relu
[maxpool]
size=2
[fc]
outputs=1024
activation=relu
[fc]
outputs=4
[softmax]
CFG
common=(--net "$dir/net.cfg" --data "synthetic:n=20000,test=100,c=1,h=12,w=12,classes=4,seed=2"
        --algo momentum --lr 0.02 --batch 16 --seed 5 --threads 1 --eval-every 50 --no-test-eval)
accepted=0 empty=0 stale_seen=0 fail=0
for round in $(seq 1 "$ROUNDS"); do
  rm -f "$dir"/ck.bin* "$dir"/*.csv
  "$BIN/mbtrain" "${common[@]}" --max-updates 100000 --checkpoint "$dir/ck.bin" \
    --checkpoint-every 1 > /dev/null 2>&1 &
  pid=$!
  sleep "0.$(( RANDOM % 350 + 50 ))"
  if [ $(( round % 2 )) -eq 0 ]; then
    # even rounds: wait (busily, with a shell builtin) until a checkpoint write is under way
    for _ in $(seq 1 200000); do compgen -G "$dir/ck.bin.tmp.*" > /dev/null && break; done
  fi
  kill -9 "$pid"
  wait "$pid" 2> /dev/null
  stale=$(ls "$dir"/ck.bin.tmp.* 2> /dev/null | wc -l)
  stale_seen=$(( stale_seen + (stale > 0) ))
  if [ ! -e "$dir/ck.bin" ]; then
    empty=$(( empty + 1 )); echo "round $round: killed before the first checkpoint"; continue
  fi
  u=$(od -An -t d8 -j $(( 8 + 16 + 64 + 8 * 6 )) -N 8 "$dir/ck.bin" | tr -d ' ')
  # a torn copy is refused
  size=$(stat -c %s "$dir/ck.bin")
  head -c $(( RANDOM * size / 32768 )) "$dir/ck.bin" > "$dir/torn.bin"
  if "$BIN/mbtrain" "${common[@]}" --max-updates $(( u + 3 )) --resume "$dir/torn.bin" \
       > /dev/null 2> "$dir/torn.err"; then
    echo "round $round: FAIL: a torn checkpoint was accepted"; fail=$(( fail + 1 ))
  fi
  # the whole file is accepted; the resumed run writes a checkpoint (clearing stale temporaries)
  if ! "$BIN/mbtrain" "${common[@]}" --max-updates $(( u + 3 )) --resume "$dir/ck.bin" \
         --checkpoint "$dir/ck.bin" --checkpoint-every 1 --log "$dir/resumed.csv" \
         > /dev/null 2> "$dir/err"; then
    echo "round $round: FAIL: the checkpoint at update $u was refused: $(cat "$dir/err")"
    fail=$(( fail + 1 )); continue
  fi
  left=$(ls "$dir"/ck.bin.tmp.* 2> /dev/null | wc -l)
  if [ "$left" -ne 0 ]; then
    echo "round $round: FAIL: $left stale temporaries left"; fail=$(( fail + 1 ))
  fi
  "$BIN/mbtrain" "${common[@]}" --max-updates $(( u + 3 )) --log "$dir/straight.csv" > /dev/null 2>&1
  if ! cmp -s <(grep -v '^#' "$dir/resumed.csv" | cut -d, -f1-3,5-) \
              <(grep -v '^#' "$dir/straight.csv" | cut -d, -f1-3,5-); then
    echo "round $round: FAIL: the resumed run differs from the straight one"; fail=$(( fail + 1 ))
    continue
  fi
  accepted=$(( accepted + 1 ))
  echo "round $round: killed at update $u ($stale temporary left by the kill): resumed, same losses"
done
echo "ckpt_kill: $ROUNDS kills: $accepted checkpoints resumed correctly, $empty killed before the" \
     "first checkpoint, $stale_seen kills left a temporary (all removed by the next write)," \
     "$fail failures"
[ "$fail" -eq 0 ]
