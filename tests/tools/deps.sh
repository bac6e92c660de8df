#!/bin/sh
# deps.sh — the file- and folder-level dependency graph of mbkit's built objects, and its cycles.
#
#   tests/tools/deps.sh OBJDIR [SRCROOT]     e.g. tests/tools/deps.sh build/release/obj .
#
# Every OBJDIR/**/*.o except tests/ is one source file (OBJDIR/train/learner/net.o is
# train/learner/net.c or .cu); with SRCROOT, an object whose source is not there (left over from
# a file moved or removed) is left out. File A depends on file B when A's object uses a symbol
# (nm: undefined) that B's object defines; a folder depends on another when one of its files
# depends on one of the other's. Header-only code (static inline) leaves no symbol and so no
# edge. Prints each cycle among files and among folders (GNU tsort's loops, "a -> b -> a") and
# exits 1 when there is one,
# 0 with one summary line when there is none (docs/style.md, "Checkers"). Needs nm, awk, tsort.
set -eu
obj=${1:?usage: deps.sh OBJDIR}
[ -d "$obj" ] || { echo "deps.sh: $obj: no such folder (build first)" >&2; exit 2; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT

find "$obj" -name '*.o' ! -path "$obj/tests/*" | sort |
    while read -r o; do
        f=${o#"$obj"/}; f=${f%.o}
        [ -z "${2:-}" ] || [ -e "$2/$f.c" ] || [ -e "$2/$f.cu" ] && echo "$o"
    done > "$tmp/objs"
[ -s "$tmp/objs" ] || { echo "deps.sh: no objects under $obj" >&2; exit 2; }
# "file kind symbol": D for defined (global), U for used, file named by its path under OBJDIR.
while read -r o; do
    f=${o#"$obj"/}; f=${f%.o}
    nm -g --defined-only "$o" | awk -v f="$f" 'NF >= 3 { print f, "D", $3 }'
    nm -u "$o" | awk -v f="$f" '{ print f, "U", $NF }'
done < "$tmp/objs" > "$tmp/syms"

# file -> file edges (each once), and folder -> folder edges between different folders.
awk '$2 == "D" && !($3 in def) { def[$3] = $1 }
     $2 == "U" { use[++n] = $1 " " $3 }
     END { for (i = 1; i <= n; i++) { split(use[i], u, " ");
             if ((u[2] in def) && def[u[2]] != u[1]) print u[1], def[u[2]] } }' "$tmp/syms" |
    sort -u > "$tmp/files"
awk 'function dir(p) { return sub(/\/[^\/]*$/, "", p) ? p : "." }
     { a = dir($1); b = dir($2); if (a != b) print a, b }' "$tmp/files" | sort -u > "$tmp/dirs"

status=0
for level in files dirs; do
    # every node as a self-pair so isolated files still count; tsort names each loop it breaks
    awk '{ print $1, $1; print $2, $2; print }' "$tmp/$level" |
        tsort > /dev/null 2> "$tmp/loop" || true
    if [ -s "$tmp/loop" ]; then
        status=1
        name=$([ "$level" = files ] && echo files || echo folders)
        echo "deps.sh: a cycle among $name:"
        awk '/input contains a loop/ { if (l != "") print "  " l " -> " first; l = ""; next }
             { sub(/^tsort: /, ""); if (l == "") { l = $0; first = $0 } else l = l " -> " $0 }
             END { if (l != "") print "  " l " -> " first }' "$tmp/loop"
    fi
done
if [ "$status" = 0 ]; then
    echo "deps.sh: no cycle: $(wc -l < "$tmp/objs") files, $(wc -l < "$tmp/files") file edges," \
         "$(wc -l < "$tmp/dirs") folder edges"
fi
[ -z "${DEPS_DUMP:-}" ] || cat "$tmp/$DEPS_DUMP"
exit "$status"
