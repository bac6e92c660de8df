#!/usr/bin/env bash
# zoo.sh — `make zoo`: the whole pipeline (make run, held-out check included) on every workload
# of data/zoo.txt (or ZOO=FILE), each into $ZOO_OUT/NAME, then one table of what each answered
# and how it held on fresh seeds: $ZOO_OUT/zoo.md, written only when every workload ran.
# ZOO_MAKE_ARGS adds make variables to every make run (the test suite passes its own BUILD).
# ZOO_TABLE_ONLY=1 trains nothing: it writes the table from the workloads' outputs already in
# $ZOO_OUT (a zoo whose table step failed, or one run by hand workload by workload).
#
# A bad line (not NAME NET DATA LR TARGET, a repeated NAME) stops it before anything trains; a
# workload whose pipeline fails (a network that does not fit its data, a target no run reaches)
# stops it with one line naming the zoo line and the stage's log. Exit 1 either way.
set -uo pipefail
cd "$(dirname "$0")/../.."
zoo=${ZOO:-data/zoo.txt}
out=${ZOO_OUT:-out/zoo}
fail() { echo "make zoo: $*" >&2; exit 1; }
[ -r "$zoo" ] || fail "$zoo: cannot read the workload list"

# every line checked before any training
names=() nets=() datas=() lrs=() targets=() lines=()
n=0
while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    line=${line%%#*}
    [ -n "${line//[[:space:]]/}" ] || continue
    read -r name net data lr target extra <<< "$line"
    [ -n "$target" ] && [ -z "${extra:-}" ] ||
        fail "$zoo:$n: expected 'NAME NET DATA LR TARGET_LOSS', got '$line'"
    [[ $name =~ ^[A-Za-z0-9_.-]+$ ]] || fail "$zoo:$n: name '$name': letters, digits, . _ - only"
    for x in "$lr" "$target"; do
        [[ $x =~ ^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$ ]] && awk -v v="$x" 'BEGIN { exit !(v > 0) }' ||
            fail "$zoo:$n: '$x' is not a positive number (LR and TARGET_LOSS)"
    done
    for seen in "${names[@]}"; do [ "$seen" != "$name" ] || fail "$zoo:$n: name '$name' repeated"; done
    names+=("$name") nets+=("$net") datas+=("$data") lrs+=("$lr") targets+=("$target") lines+=("$n")
done < "$zoo"
[ ${#names[@]} -gt 0 ] || fail "$zoo: no workload in it"

mkdir -p "$out"
for i in "${!names[@]}"; do
    name=${names[$i]} dir=$out/${names[$i]}
    if [ -n "${ZOO_TABLE_ONLY:-}" ]; then
        [ -f "$dir/validate.txt" ] || fail "$zoo:${lines[$i]}: $name: no $dir/validate.txt (ZOO_TABLE_ONLY reads the outputs of a zoo that ran)"
        continue
    fi
    echo "== zoo: $name (net ${nets[$i]}, ${datas[$i]}, lr ${lrs[$i]}, target ${targets[$i]})"
    rm -rf "$dir"
    # shellcheck disable=SC2086 # ZOO_MAKE_ARGS: make variables, e.g. the test suite's BUILD
    if ! make --no-print-directory run ${ZOO_MAKE_ARGS:-} OUT="$dir" NET="${nets[$i]}" DATA="${datas[$i]}" \
            LR="${lrs[$i]}" TARGET_LOSS="${targets[$i]}" > "$dir.log" 2>&1; then
        why=$(grep -h "^make run: stage" "$dir.log" | tail -n 1)
        fail "$zoo:${lines[$i]}: $name: ${why:-make run failed} (all of it: $dir.log)"
    fi
done

# one row a workload, from each run's own outputs
tmp=$(mktemp "$out/.zoo.md.XXXXXX")
{
    echo "| workload | net | lr | target | recommended M | held out: over the best held-out M (95% interval) | against its best rival | median abs error of predicted T_C, held out (95% interval) | held-out medians inside the predicted 95% interval | flat, predicted | flat, held out | make run |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    for i in "${!names[@]}"; do
        d=$out/${names[$i]}
        check=$(grep -h '^check: held out' "$d/validate.txt")
        ins=$(grep -h '^in-sample:' "$d/validate.txt" | sed -n 's/.*median |error| of predicted T_C \([0-9.]*\)%.*/\1%/p')
        flat=$(sed -n 's/^flat: *M = \([0-9.]*\.\.[0-9.]*\) at P = \([0-9]*\) .*/\1 (P = \2)/p' "$d/scale.txt")
        total=$(sed -n 's/^total: //p' "$out/${names[$i]}.log")
        re='the recommended M = ([^ ]+) trained in [^ ]+ s \(median\), ([^ ]+)x the best held-out M \(M = ([^,]+), [^;]+; 95% interval ([^)]+)x\); against its best rival, M = ([^ ]+) [^:]+: ([^ ]+)x \(95% interval ([^)]+)\): ([a-z]+); median \|error\| of predicted T_C on the held-out runs ([^%]+)% over [0-9]+ settings \(95% interval over their seeds ([^;]+); of N_update ([^%]+)%, of T_update ([^%]+)%[^)]*\)(; the prediction.s [^;]* at ([0-9]+ of [0-9]+) settings)?; flat \(held out\): M = ([^ ]+) '
        [[ $check =~ $re ]] || fail "$d/validate.txt: no held-out check line to read"
        m=("${BASH_REMATCH[@]}")
        echo "| ${names[$i]} | ${nets[$i]} | ${lrs[$i]} | ${targets[$i]} | ${m[1]} | **${m[2]}x** of M = ${m[3]} (${m[4]}) | ${m[6]}x of M = ${m[5]} (${m[7]}): ${m[8]} | ${m[9]}% (${m[10]} over the held-out seeds; N_update ${m[11]}%, T_update ${m[12]}%; in-sample $ins) | ${m[14]:--} | $flat | ${m[15]} | $total |"
    done
} > "$tmp" && mv "$tmp" "$out/zoo.md" || { rm -f "$tmp"; fail "could not write $out/zoo.md"; }
echo
cat "$out/zoo.md"
