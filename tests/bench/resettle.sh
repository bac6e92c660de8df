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
# held-out M, interpolated in log M; "?" outside them), then the held-out medians (M, seconds);
# "-" for both ratios and a line "no best to grade" where mbopt graded nothing or a held-out run
# did not reach the target (the medians are of the runs that reached).
# A calibrated run (no in-sample run reached the target) has nothing to settle and is skipped;
# a folder without a held-out validate line, one whose line cannot be read word by word (a form
# of -o other than -o X, -oX, --output X, --output=X) or whose rerun fails ends the script with
# one line (mbopt's own for a rerun) and exit 1. The rerun writes no file: its table goes to
# standard output (-o -), so validate.txt is never written over.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: resettle.sh OUT [OUT...]" >&2; exit 2; }
bin=$(cd "${BIN:-build/release/bin}" 2>/dev/null && pwd) ||
    { echo "resettle.sh: BIN=${BIN:-build/release/bin}: no such folder (the built commands)" >&2; exit 1; }
# absolute, since the rerun runs in another folder (a relative TMPDIR: campaign 37's R4)
tmp=$(mktemp) && tmp=$(realpath -- "$tmp") && trap 'rm -f "$tmp"' EXIT
# The recorded line, word by word as make run's run() wrote it ("$*": words joined by spaces),
# into args: without --holdout (and --repeats, the check's) and the line's output, and with -o -
# first, so the rerun writes to standard output only (an -o in a form not read here would be
# given twice, which mbopt refuses: nothing is written); a word it cannot read ends the script
# in one line. root: the
# folder the line's relative paths start from, where OUT is the folder of the recorded
# validate.txt (out/zoo/outnet's root is the folder above out/, whatever its workloads' names).
rerun_words() {
    local out=$1 w i=2 a o=''
    read -ra w <<< "$2"
    args=(validate -o -)
    while [ "$i" -lt "${#w[@]}" ]; do
        a=${w[i]}
        i=$((i + 1))
        case $a in
            --) args+=("${w[@]:i-1}"); break ;;
            -o | --output) o=${w[i]:-}; i=$((i + 1)) ;;
            -o?*) o=${a#-o} ;;
            --output=*) o=${a#*=} ;;
            --holdout | --repeats) i=$((i + 1)) ;; # --repeats is the check's (campaign 41's B-F9)
            --holdout=* | --repeats=*) ;;
            --missing | --comm-from-runs | --holdout-beyond | --more-seeds | --extrapolate)
                args+=("$a") ;;
            --o | --ou | --out | --outp | --outpu | --o=* | --ou=* | --out=* | --outp=* | \
                --outpu=* | -?*)
                [[ $a == --?* && $a != --o* ]] || {
                    echo "resettle.sh: $out: cannot read the validate line of commands.txt: its word '$a'" >&2
                    exit 1
                }
                if [[ $a == *=* ]]; then args+=("$a"); else args+=("$a" "${w[i]:-}"); i=$((i + 1)); fi ;;
            *) args+=("$a") ;;
        esac
    done
    [[ $o == */validate.txt || $o == validate.txt ]] ||
        { echo "resettle.sh: $out: the validate line of commands.txt writes no validate.txt (-o '$o')" >&2; exit 1; }
    o=$(dirname "$o")
    local abs
    abs=$(cd "$out" && pwd)
    if [[ $o == /* ]]; then
        root=/
    elif [ "$o" = . ]; then
        root=$abs
    elif [[ $abs == */"$o" ]]; then
        root=${abs%/"$o"}
        root=${root:-/}
    else
        echo "resettle.sh: $out: commands.txt wrote its validate.txt into $o, not a folder that ends OUT" >&2
        exit 1
    fi
}
for out in "$@"; do
    out=${out%/}
    [ -f "$out/commands.txt" ] && [ -f "$out/validate.txt" ] ||
        { echo "resettle.sh: $out: no commands.txt or validate.txt (a make run output folder?)" >&2; exit 1; }
    grep -q '# recommended' "$out/validate.txt" || { echo "$out: calibrated, nothing to settle"; continue; }
    line=$(grep -E '^mbopt validate .* --holdout[ =]' "$out/commands.txt" | grep -v -- '--csv\|--json' | head -1) || true
    [ -n "$line" ] || { echo "resettle.sh: $out: no held-out validate line in commands.txt" >&2; exit 1; }
    rerun_words "$out" "${line%$'\r'}"
    table=$(cd "$root" && "$bin"/mbopt "${args[@]}" 2>"$tmp") ||
        { echo "resettle.sh: $out: the validate rerun failed (in $root): $(head -1 "$tmp")" >&2; exit 1; }
    new=$(echo "$table" | awk '/# recommended/ {print $3; exit}')
    [ -n "$new" ] || { echo "resettle.sh: $out: the validate rerun recommends nothing" >&2; exit 1; }
    old=$(awk '/# recommended/ {print $3; exit}' "$out/validate.txt")
    held=$(awk '/^held-out /{f=1; next} f && $2 == 1 {print $3, $6} /^check:/{f=0}' "$out/validate.txt")
    # mbopt grades a pick only where every run counts (an unreached one as infinitely slow:
    # solver/holdout.c); the table's medians are of the runs that reached, so a ratio is
    # printed only where every held-out run reached the target and mbopt's check line graded
    # (campaign 39's B-F11: a ratio from 1 of 3 runs, where mbopt said "no best to grade")
    short=$(awk '/^held-out /{f=1; next} f && $2 == 1 {split($5, r, "/"); if (r[1] != r[2]) {
                   printf "M = %s reached %s", $3, $5; exit}} /^check:/{f=0}' "$out/validate.txt")
    ungraded=
    if ! grep -q '^check: held out.*x the best held-out' "$out/validate.txt"; then
        ungraded="mbopt's check graded nothing"
    elif [ -n "$short" ]; then
        ungraded="not every held-out run reached the target: $short"
    fi
    grade() {
        [ -z "$ungraded" ] || { printf -- -; return; }
        echo "$held" | awk -v m="$1" '{M[NR]=$1; T[NR]=$2; if (!b || $2 < b) b=$2}
            END {for (i=1;i<=NR;i++) if (M[i]==m) {printf "%.3f", T[i]/b; exit}
                 for (i=1;i<NR;i++) if (M[i]<m && m<M[i+1]) {f=log(m/M[i])/log(M[i+1]/M[i]);
                     printf "~%.3f", (T[i]*(1-f)+T[i+1]*f)/b; exit}
                 printf "?"}'
    }
    printf '%-40s then M = %-5s %-7s now M = %-5s %-7s held out: %s\n' "$out" "$old" "$(grade "$old")" \
        "${new:--}" "$(grade "$new")" "$(echo $held)"
    [ -z "$ungraded" ] || printf '%-40s no best to grade (%s)\n' "" "$ungraded"
done
