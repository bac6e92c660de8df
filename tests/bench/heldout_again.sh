#!/usr/bin/env bash
# heldout_again.sh — grade a finished make run's answer on a second, independent set of fresh
# seeds, then on both sets together. CPU training repeats bit for bit, so a rerun on the same
# held-out seeds measures nothing new; HOLDOUT_SEED0 starts the set elsewhere.
#
#   bash tests/bench/heldout_again.sh OUT SEED0 [make run knobs of that run ...]
#
# OUT is the make run's output folder (its knobs must be given again: NET, LR, TARGET_LOSS,
# ...). The first set is kept as OUT/holdout-sS (S its first seed) with its validate.txt as
# OUT/validate-sS.txt; the held-out stage and the stages after it run again from SEED0; the last
# lines are the check on the new set and on the two sets pooled (mbopt validate given both
# folders). Needs a quiet machine: these are timings.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 2 ] || { echo "usage: $0 OUT SEED0 [make run knobs ...]" >&2; exit 2; }
out=$1 s0=$2; shift 2
[ -f "$out/holdout/.done" ] || { echo "heldout_again: $out/holdout/.done: no finished held-out stage" >&2; exit 1; }
first=$(ls "$out"/holdout/lr*/ | sed -n 's/.*-s\([0-9]*\)\.csv$/\1/p' | sort -n | head -1)
[ -n "$first" ] || { echo "heldout_again: $out/holdout: no held-out run logs" >&2; exit 1; }
[ "$first" != "$s0" ] || { echo "heldout_again: SEED0=$s0 is the first set's own first seed" >&2; exit 1; }
rm -rf "$out/holdout-s$first"
cp -a "$out/holdout" "$out/holdout-s$first"
cp "$out/validate.txt" "$out/validate-s$first.txt"
rm -f "$out/holdout/.done"
make run OUT="$out" HOLDOUT_SEED0="$s0" "$@" > "$out/logs/heldout-again-$s0.log" 2>&1 ||
    { tail -n 5 "$out/logs/heldout-again-$s0.log"; exit 1; }
echo "seeds from $first:"; grep '^check:' "$out/validate-s$first.txt"
echo "seeds from $s0:"; grep '^check:' "$out/validate.txt"
# the validate stage's first command, both sets' folders given
cmd=$(grep -m1 '^mbopt validate' "$out/logs/validate.cmd" | sed 's/ -o [^ ]*$//')
pooled=$(printf '%s\n' "$cmd" | sed "s#--holdout $out/holdout/\([^ ]*\)#--holdout $out/holdout-s$first/\1 --holdout $out/holdout/\1#g")
echo "both sets:"; PATH="$PWD/build/release/bin:$PATH" $pooled | grep '^check:'
