#!/usr/bin/env bash
# heldout_again.sh — grade a finished make run's answer on a second, independent set of fresh
# seeds, then on both sets together. CPU training repeats bit for bit, so a rerun on the same
# held-out seeds measures nothing new; HOLDOUT_SEED0 starts the set elsewhere.
#
#   bash tests/bench/heldout_again.sh OUT SEED0 [make run knobs of that run ...]
#
# OUT is the make run's output folder (its knobs must be given again: NET, LR, TARGET_LOSS,
# ...). The first set is kept as OUT/holdout-sS (S its first seed) with its validate.txt as
# OUT/validate-sS.txt; make run then trains the held-out stage again from SEED0 (its knob stamp
# tells it to) and the stages after it; the last lines are the check on each set and on the two
# pooled (mbopt validate given both folders). SEED0 must start past the first set's seeds, so
# the two share none. On a failure OUT is left as it was. Needs a quiet machine: these are
# timings.
set -euo pipefail
fail() { echo "heldout_again: $*" >&2; exit 1; }
[ $# -ge 2 ] || { echo "usage: $0 OUT SEED0 [make run knobs ...]" >&2; exit 2; }
out=$1 s0=$2; shift 2
[[ $s0 =~ ^[0-9]{4,10}$ ]] && [ "$s0" -le 1000000000 ] ||
    { echo "heldout_again: SEED0=$s0: a whole number from 1000 to 1000000000" >&2; exit 2; }
[ -d "$out" ] || fail "$out: no such folder (a make run's OUT)"
out=$(cd "$out" && pwd) # make runs from the repository's root, OUT may be relative to here
cd "$(dirname "$0")/../.."
[ -f "$out/holdout/.done" ] || fail "$out/holdout/.done: no finished held-out stage"
[ -f "$out/validate.txt" ] || fail "$out/validate.txt: no finished validate stage"
seeds=$(find "$out/holdout" -path '*/lr*/*.csv' | sed -n 's/.*-s\([0-9]*\)\.csv$/\1/p' | sort -n -u)
[ -n "$seeds" ] || fail "$out/holdout: no held-out run logs (lr*/*.csv)"
first=$(head -n 1 <<< "$seeds") last=$(tail -n 1 <<< "$seeds")
[ "$s0" -gt "$last" ] || fail "SEED0=$s0 is not past the first set's seeds ($first..$last): the sets would share seeds"
rm -rf "$out/holdout-s$first"
cp -a "$out/holdout" "$out/holdout-s$first"
cp "$out/validate.txt" "$out/validate-s$first.txt"
if ! make run OUT="$out" HOLDOUT_SEED0="$s0" "$@" > "$out/logs/heldout-again-$s0.log" 2>&1; then
    tail -n 5 "$out/logs/heldout-again-$s0.log"
    rm -rf "$out/holdout" && mv "$out/holdout-s$first" "$out/holdout" # the first set back
    fail "make run failed (whole log: $out/logs/heldout-again-$s0.log); $out/holdout is the first set again"
fi
echo "seeds from $first:"; grep '^check:' "$out/validate-s$first.txt"
echo "seeds from $s0:"; grep '^check:' "$out/validate.txt"
# the validate stage's first command, both sets' folders given
cmd=$(grep -m1 '^mbopt validate' "$out/logs/validate.cmd" | sed 's/ -o [^ ]*$//')
pooled=$(printf '%s\n' "$cmd" | sed "s#--holdout $out/holdout/\([^ ]*\)#--holdout $out/holdout-s$first/\1 --holdout $out/holdout/\1#g")
echo "both sets:"; PATH="$PWD/build/release/bin:$PATH" $pooled | grep '^check:'
