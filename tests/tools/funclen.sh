#!/bin/sh
# funclen.sh — mbkit's function-length rule: no function outside tests/ over MAX lines.
#
#   tests/tools/funclen.sh [-m MAX] [-a] [FILE...]     (default: MAX 150, every *.c, *.cu and
#                                                        *.h of the source folders, not tests/)
#
# A function is a top-level brace block whose opening statement has a '(' and is not a struct,
# union, enum or initialiser; its length runs from the first line of its signature to its closing
# brace, both counted. Strings, character literals and comments are blanked before braces are
# counted; an `extern "C" { ... }` block is looked into. Prints "FILE:LINE: NAME is N lines
# (over MAX)" for each offender and exits 1, or one summary line and exits 0 (docs/style.md,
# "Checkers"). -a prints every function's length.
set -eu
max=150 all=0
while getopts m:a o; do
    case $o in m) max=$OPTARG ;; a) all=1 ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
if [ $# -eq 0 ]; then
    set -- $(find model data net train probe fit solver plots \
                  \( -name '*.c' -o -name '*.cu' -o -name '*.h' \) 2>/dev/null | sort)
fi
awk -v max="$max" -v all="$all" '
FNR == 1 { depth = 0; incomment = 0; stmt = ""; start = 0; ext = 0 }
{
    # blank comments (a block comment may span lines), strings and character literals
    line = $0; out = ""; q = ""
    for (k = 1; k <= length(line); k++) {
        c = substr(line, k, 1); d = substr(line, k, 2)
        if (incomment) { if (d == "*/") { incomment = 0; k++ }; continue }
        if (q != "") { if (c == "\\") k++; else if (c == q) { q = ""; out = out "0" }; continue }
        if (d == "/*") { incomment = 1; k++; out = out " "; continue }
        if (d == "//") break
        if (c == "\"" || c == "\047") { q = c; continue }
        out = out c
    }
    if (out ~ /^[ \t]*#/) next
    for (k = 1; k <= length(out); k++) {
        c = substr(out, k, 1)
        if (depth == 0) {
            if (c == ";") { stmt = ""; start = 0; continue }
            if (c == "{" && stmt ~ /^[ \t]*extern[ \t]*0[ \t]*$/) { # extern "C" {
                ext++; stmt = ""; start = 0; continue
            }
            if (c == "}" && ext > 0) { ext--; stmt = ""; start = 0; continue }
            if (c == "{") {
                isfn = stmt ~ /\(/ && stmt !~ /=/ # a struct, enum or union head has no (
                if (isfn) {
                    fstart = start; fname = stmt
                    sub(/[ \t]*\(.*/, "", fname); sub(/.*[ \t*]/, "", fname)
                }
                depth = 1; infn = isfn; continue
            }
            if (c !~ /[ \t]/ && !start) start = FNR
            stmt = stmt c
        } else if (c == "{") depth++
        else if (c == "}") {
            depth--
            if (depth == 0) {
                if (infn) {
                    n = FNR - fstart + 1
                    if (all) printf "%d %s:%d: %s\n", n, FILENAME, fstart, fname
                    else if (n > max) {
                        printf "%s:%d: %s is %d lines (over %d)\n", FILENAME, fstart, fname, n, max
                        bad++
                    }
                    nfn++
                }
                stmt = ""; start = 0; infn = 0
            }
        }
    }
    if (depth == 0 && stmt != "") stmt = stmt " "
}
END {
    if (all) exit 0
    if (bad) exit 1
    printf "funclen.sh: %d functions in %d files, none over %d lines\n", nfn, ARGC - 1, max
}' "$@"
