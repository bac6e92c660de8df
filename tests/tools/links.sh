#!/bin/sh
# links.sh — every relative link in README.md and docs/*.md resolves in the repository: the file
# exists, and a #anchor names a heading of it (GitHub's slugs: lower case, punctuation dropped,
# spaces to hyphens, -1, -2 ... for repeats).
#
#   tests/tools/links.sh [FILE.md...]      (default: README.md docs/*.md)
#
# Links to http(s) and mailto are not followed; code blocks (indented or fenced) are skipped.
# Prints "FILE:LINE: TARGET: why" for each broken link and exits 1, or one summary line and
# exits 0 (docs/style.md, "Checkers"). Needs awk.
set -eu
[ $# -gt 0 ] || set -- README.md docs/*.md
status=0 n=0
tmp=$(mktemp) && trap 'rm -f "$tmp"' EXIT
# "FILE LINE TARGET" for each link
awk '/^```/ { fence = !fence; next }
     fence || /^    / { next }
     { s = $0
       while (match(s, /\]\([^) ]+\)/)) {
           t = substr(s, RSTART + 2, RLENGTH - 3); s = substr(s, RSTART + RLENGTH)
           if (t !~ /^(https?|mailto):/) print FILENAME, FNR, t
       } }' "$@" > "$tmp"
# the anchors of FILE, one a line
anchors() {
    awk '/^```/ { fence = !fence; next }
         !fence && /^#+ / { h = $0; sub(/^#+ +/, "", h); h = tolower(h)
                  gsub(/[^a-z0-9 _-]/, "", h); gsub(/ /, "-", h)
                  if (h in seen) { seen[h]++; print h "-" seen[h] - 1 }
                  else { seen[h] = 1; print h } }' "$1"
}
while read -r file line target; do
    n=$((n + 1))
    path=${target%%#*}
    anchor=
    case $target in *'#'*) anchor=${target#*#} ;; esac
    if [ -z "$path" ]; then
        dest=$file
    else
        dest=$(dirname "$file")/$path
    fi
    if [ ! -e "$dest" ]; then
        echo "$file:$line: $target: no such file"; status=1; continue
    fi
    if [ -n "$anchor" ] && ! anchors "$dest" | grep -qxF -- "$anchor"; then
        echo "$file:$line: $target: no heading '#$anchor' in $dest"; status=1
    fi
done < "$tmp"
[ "$status" = 1 ] || echo "links.sh: $n links in $# files, all resolve"
exit "$status"
