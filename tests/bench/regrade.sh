#!/usr/bin/env bash
# regrade.sh — refit a finished make run's in-sample runs with the current binaries and grade the
# answer on that run's own held-out runs: how a change to fitting or choosing would have done on
# runs already paid for, without training anything (docs/results.md, "Steady times and the
# inverse law").
#
#   BIN=build/release/bin tests/bench/regrade.sh OUT LR TARGET [NUPDATE_FLAG...]
#
# OUT is a make run output folder (out/, or out/zoo/NAME) holding runs/ check/ seeds/ holdout/
# and step.csv; LR and TARGET are that run's. Flags after TARGET go to mbfit nupdate (e.g.
# --choose aic). A calibrated run (make run FINAL_LOSS=L2): TARGET is L2 and EXTRAPOLATE=1 fits
# the law across levels (mbfit nupdate --extrapolate) instead of the direct law. Prints the
# held-out check line. The held-out runs cover the M the plan of the time chose: an answer that
# is not among them cannot be graded (mbopt says so). Any failure is one line naming its cause:
# the failing command's own (its exit status kept), or no runs at LR.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: regrade.sh OUT LR TARGET [NUPDATE_FLAG...]" >&2; exit 2; }
out=$1 lr=$2 target=$3
shift 3
bin=$(cd "${BIN:-build/release/bin}" 2>/dev/null && pwd) ||
    { echo "regrade.sh: BIN=${BIN:-build/release/bin}: no such folder (the built commands)" >&2; exit 1; }
[ -d "$out/holdout/lr$lr" ] || { echo "regrade.sh: $out/holdout/lr$lr: no held-out runs" >&2; exit 1; }
# absolute, since the script moves into OUT (a relative TMPDIR: campaign 37's R4)
tmp=$(mktemp -d) && tmp=$(realpath -- "$tmp") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$out"
mkdir "$tmp/in"
shopt -s nullglob
runs=(runs/lr"$lr"/*.csv check/lr"$lr"/*.csv seeds/lr"$lr"/*.csv)
[ ${#runs[@]} -gt 0 ] || { echo "regrade.sh: $out: no runs at lr $lr under runs/, check/ or seeds/" >&2; exit 1; }
# each command's failure is one line, its own; the warnings of the others (not mbfit tupdate's,
# as before) go to stderr once all have run
touch "$tmp/warn"
step() {
    local quiet=$1 rc=0 why
    shift
    "$@" 2>"$tmp/err" || rc=$?
    if [ "$rc" -eq 0 ]; then
        [ -n "$quiet" ] || cat "$tmp/err" >> "$tmp/warn"
        return 0
    fi
    why=$(grep "^${1##*/}[ :]" "$tmp/err" | tail -1) || why=$(tail -1 "$tmp/err")
    echo "regrade.sh: $out: ${why:-${1##*/} $2 failed (exit status $rc), saying nothing}" >&2
    exit "$rc"
}
cp "${runs[@]}" "$tmp/in/" # one folder of them for mbopt validate
if [ -n "${EXTRAPOLATE:-}" ]; then law=(--extrapolate --bootstrap 200); else law=(--weights pooled --bootstrap 200); fi
step '' "$bin/mbfit" nupdate --target-loss "$target" --lr "$lr" "${law[@]}" "$@" \
    "${runs[@]}" --json -o "$tmp/n.json"
step quiet "$bin/mbfit" tupdate step.csv "${runs[@]}" par/lr*/*.csv --json -o "$tmp/t.json"
step '' "$bin/mbopt" validate --nfit "$tmp/n.json" --tfit "$tmp/t.json" --holdout "holdout/lr$lr" \
    "$tmp/in" -o "$tmp/v.txt"
cat "$tmp/warn" >&2
grep -A8 "^held-out\|^check:" "$tmp/v.txt" | grep -v "^#" ||
    { echo "regrade.sh: $out: mbopt validate printed no held-out check" >&2; exit 1; }
