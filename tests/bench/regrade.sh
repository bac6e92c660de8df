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
# the law across levels (mbfit nupdate --extrapolate) instead of the direct law. Prints the held-out check line. The held-out runs cover the M the plan of the
# time chose: an answer that is not among them cannot be graded (mbopt says so).
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: regrade.sh OUT LR TARGET [NUPDATE_FLAG...]" >&2; exit 2; }
out=$1 lr=$2 target=$3
shift 3
bin=${BIN:-build/release/bin}
bin=$(cd "$bin" && pwd)
[ -d "$out/holdout/lr$lr" ] || { echo "regrade.sh: $out/holdout/lr$lr: no held-out runs" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$out"
mkdir "$tmp/in"
cp $(ls runs/lr"$lr"/*.csv check/lr"$lr"/*.csv seeds/lr"$lr"/*.csv 2>/dev/null) "$tmp/in/"
if [ -n "${EXTRAPOLATE:-}" ]; then law=(--extrapolate --bootstrap 200); else law=(--weights pooled --bootstrap 200); fi
"$bin/mbfit" nupdate --target-loss "$target" --lr "$lr" "${law[@]}" "$@" \
    "$tmp"/in/*.csv --json -o "$tmp/n.json"
"$bin/mbfit" tupdate step.csv "$tmp"/in/*.csv $(ls par/lr*/*.csv 2>/dev/null) --json \
    -o "$tmp/t.json" 2>/dev/null
"$bin/mbopt" validate --nfit "$tmp/n.json" --tfit "$tmp/t.json" --holdout "holdout/lr$lr" \
    "$tmp/in" | grep -A8 "^held-out\|^check:" | grep -v "^#"
