#!/usr/bin/env bash
# resettle.sh — rerun the final in-sample `mbopt validate` of finished make runs with the current
# binaries and grade each new pick on that run's own held-out table: how a change to settling
# (solver/settle.c) would have answered on runs already paid for, without training or refitting
# anything (docs/design.md, "Seeds paired in settling"; tests/bench/regrade.sh refits too).
#
#   BIN=build/release/bin tests/bench/resettle.sh OUT [OUT...]
#
# OUT is a make run output folder (out/, out/zoo/NAME) with commands.txt, validate.txt and its
# run folders, its paths as make run wrote them (relative to the folder above out/). Prints, per
# OUT: the answer then and its held-out ratio, the answer now and its ratio ("~" between two
# held-out M, interpolated in log M; "?" outside them), then the held-out medians (M, seconds).
# A calibrated run (no in-sample run reached the target) has nothing to settle and is skipped;
# a folder without a held-out validate line, or whose rerun fails, ends the script with one line
# (mbopt's own) and exit 1.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: resettle.sh OUT [OUT...]" >&2; exit 2; }
bin=$(cd "${BIN:-build/release/bin}" && pwd)
tmp=$(mktemp) && trap 'rm -f "$tmp"' EXIT
for out in "$@"; do
    out=${out%/}
    [ -f "$out/commands.txt" ] && [ -f "$out/validate.txt" ] ||
        { echo "resettle.sh: $out: no commands.txt or validate.txt (a make run output folder?)" >&2; exit 1; }
    grep -q '# recommended' "$out/validate.txt" || { echo "$out: calibrated, nothing to settle"; continue; }
    root=${out%/out*}
    [ "$root" != "$out" ] || root=.
    line=$(grep '^mbopt validate .*--holdout' "$out/commands.txt" | grep -v -- '--csv\|--json' | head -1) || true
    [ -n "$line" ] || { echo "resettle.sh: $out: no held-out validate line in commands.txt" >&2; exit 1; }
    cmd=$(echo "$line" | sed -E 's/--holdout [^ ]+ //; s/ -o [^ ]+$//')
    # shellcheck disable=SC2086
    table=$(cd "$root" && "$bin"/$cmd 2>"$tmp") ||
        { echo "resettle.sh: $out: the validate rerun failed: $(head -1 "$tmp")" >&2; exit 1; }
    new=$(echo "$table" | awk '/# recommended/ {print $3; exit}')
    [ -n "$new" ] || { echo "resettle.sh: $out: the validate rerun recommends nothing" >&2; exit 1; }
    old=$(awk '/# recommended/ {print $3; exit}' "$out/validate.txt")
    held=$(awk '/^held-out /{f=1; next} f && $2 == 1 {print $3, $6} /^check:/{f=0}' "$out/validate.txt")
    grade() {
        echo "$held" | awk -v m="$1" '{M[NR]=$1; T[NR]=$2; if (!b || $2 < b) b=$2}
            END {for (i=1;i<=NR;i++) if (M[i]==m) {printf "%.3f", T[i]/b; exit}
                 for (i=1;i<NR;i++) if (M[i]<m && m<M[i+1]) {f=log(m/M[i])/log(M[i+1]/M[i]);
                     printf "~%.3f", (T[i]*(1-f)+T[i+1]*f)/b; exit}
                 printf "?"}'
    }
    printf '%-40s then M = %-5s %-7s now M = %-5s %-7s held out: %s\n' "$out" "$old" "$(grade "$old")" \
        "${new:--}" "$(grade "$new")" "$(echo $held)"
done
