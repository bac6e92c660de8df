#!/usr/bin/env bash
# levels_heldout.sh — how well `mbfit nupdate --extrapolate` predicts N_update at a target no
# calibration run reached, on runs that did reach it (docs/models.md, "N_update below the
# calibration's target").
#
#   BIN=build/release/bin tests/bench/levels_heldout.sh RUNS_DIR L1 L2 [EXTRAPOLATE_FLAG...]
#
# RUNS_DIR holds mbtrain logs trained to L2 or below without --check-frac (every evaluation
# row has its eval_loss). Each log is cut where a calibration run would have stopped: at its
# first evaluated update with eval_loss <= L1, its '# target_loss=' set to L1 and its summary
# dropped. The extrapolation is fitted to the cut logs (flags after L2 go to mbfit nupdate, e.g.
# --form noise --levels 0.8,0.7,0.6,0.5) and compared per M with the mean first crossing of L2
# in the whole logs (mbfit nupdate --target-loss L2). Prints one row per M and the median
# |error|; direct_fit_error_% is the error of the inverse law fitted to the whole logs at L2
# itself (what no extrapolation can do better than where the law does not hold).
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: levels_heldout.sh RUNS_DIR L1 L2 [EXTRAPOLATE_FLAG...]" >&2; exit 2; }
runs=$1 l1=$2 l2=$3
shift 3
bin=${BIN:-build/release/bin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$runs"/*.csv; do
    awk -F, -v l1="$l1" '
        done { next }
        /^# target_loss=/ { print "# target_loss=" l1; next }
        /^#/ { if (!header) print; next }
        !header { header = 1; print; next }
        { print; if ($6 != "" && $6 + 0 <= l1 + 0) done = 1 }' "$f" > "$tmp/$(basename "$f")"
done
"$bin/mbfit" nupdate --target-loss "$l2" "$runs"/*.csv --json -o "$tmp/truth.json"
"$bin/mbfit" nupdate --extrapolate --target-loss "$l2" "$@" "$tmp"/*.csv --json \
    -o "$tmp/pred.json"
jq -r --slurpfile t "$tmp/truth.json" '
    ($t[0].params) as $d
    | [ .extrapolated.per_m[] as $p
      | ($t[0].per_m[] | select(.batch == $p.batch) | .mean) as $m
      | ($d.n_inf + $d.alpha / $p.batch) as $dir
      | [$p.batch, $m, $p.predicted, $p.ci95[0], $p.ci95[1], (($p.predicted - $m) / $m * 100),
         (($dir - $m) / $m * 100)] ]
    | (["M", "measured", "predicted", "ci95_lo", "ci95_hi", "error_%", "direct_fit_error_%"] | @tsv),
      (.[] | map(if type == "number" then (. * 10 | round / 10) else . end) | @tsv),
      ("median |error| " + ([.[] | .[5] | fabs] | sort
        | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end
        | . * 10 | round / 10 | tostring) + "%")' "$tmp/pred.json"
