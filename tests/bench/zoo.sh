#!/usr/bin/env bash
# zoo.sh — `make zoo`: the whole pipeline (make run, held-out check included) on every workload
# of data/zoo.txt (or ZOO=FILE), each into $ZOO_OUT/NAME, then one table of what each answered
# and how it held on fresh seeds: $ZOO_OUT/zoo.md, written only when every workload ran.
# ZOO_MAKE_ARGS adds make variables to every make run (the test suite passes its own BUILD); not
# NET, DATA, LR, LRS, TARGET_LOSS or OUT, which are each line's, nor FINAL_LOSS or a CAL_* knob,
# which would answer for another loss than the line's TARGET_LOSS (refused). Under make zoo, ZOO_OUT
# is OUT/zoo (make zoo refuses a ZOO_OUT of its own).
# ZOO_TABLE_ONLY=1 trains nothing: it writes the table from the workloads' outputs already in
# $ZOO_OUT (a zoo whose table step failed, or one run by hand workload by workload), each held to
# its line's lr, target, net (a .cfg path's [net] name) and data (outputs of another line's are
# refused, naming the line).
#
# A bad line (not NAME NET DATA LR TARGET, a repeated NAME, a NAME that is no plain word, knobs
# make run refuses: `make -n run` with each line's, before anything trains) stops it before
# anything trains; a workload whose pipeline fails (a network that does not fit its data, a
# target no run reaches) stops it with one line naming the zoo line and the stage's log. Exit 1
# either way.
set -uo pipefail
cd "$(dirname "$0")/../.."
zoo=${ZOO:-data/zoo.txt}
out=${ZOO_OUT:-out/zoo}
fail() { echo "make zoo: $*" >&2; exit 1; }
# ZOO_MAKE_ARGS comes before each line's knobs, so a line knob there would be overridden without
# a word, and OUT is each workload's own folder (campaign 38's F4; make zoo refuses them first)
# make variables only, each once: an option (-k, -i, -f FILE) changes what every make run does
# and what the knob check below reads, and a variable given twice is make's last without a word
# (campaign 40's D7, D8)
declare -A given=()
for a in ${ZOO_MAKE_ARGS:-}; do
    [[ $a =~ ^([A-Za-z_][A-Za-z0-9_]*)(::|:|\+|\?|!)?= ]] ||
        fail "ZOO_MAKE_ARGS holds '$a': make variables only (NAME=VALUE), passed to every make run, not make's options"
    k=${BASH_REMATCH[1]}
    [ -z "${given[$k]:-}" ] ||
        fail "ZOO_MAKE_ARGS gives $k twice (${given[$k]} and $a): make would take the last without a word"
    given[$k]=$a
    [[ ! $a =~ ^(NET|DATA|LR|LRS|TARGET_LOSS|OUT)(::|:|\+|\?|!)?= ]] ||
        fail "ZOO_MAKE_ARGS holds $a: NET, DATA, LR and TARGET_LOSS are each line's, and each line writes into \$ZOO_OUT/NAME: give them there"
    # the loss the answer is for: each line's TARGET_LOSS, zoo.md's target column (campaign 39's
    # B-F8: FINAL_LOSS=0.3 answered for 0.3 under a column of each line's target)
    [[ ! $a =~ ^(FINAL_LOSS|CAL_[A-Z_]+)(::|:|\+|\?|!)?= ]] ||
        fail "ZOO_MAKE_ARGS holds $a: each line's TARGET_LOSS is the loss its answer is for (zoo.md's target column): FINAL_LOSS and the CAL_* knobs would answer for another"
done
# nor from the environment, where make run would read them as well
for k in FINAL_LOSS CAL_BUDGET CAL_BATCHES CAL_SEEDS CAL_EVAL_FRAC CAL_CHECK; do
    [ -z "${!k+x}" ] || fail "$k=${!k} in the environment: each line's TARGET_LOSS is the loss its answer is for (zoo.md's target column): FINAL_LOSS and the CAL_* knobs would answer for another"
done
[ -e "$zoo" ] || fail "$zoo: no such file (ZOO names the workload list)"
[ -f "$zoo" ] || fail "$zoo: not a regular file (ZOO names the workload list: NAME NET DATA LR TARGET_LOSS a line)"
[ -r "$zoo" ] || fail "$zoo: cannot read the workload list"
# each workload writes $out/NAME and $out/NAME.log beside the table $out/zoo.md
[ ! -e "$out" ] || [ -d "$out" ] || fail "$out: there and not a folder (make zoo writes each workload into $out/NAME)"

# a NUL byte: bash's read drops it ('fash\0ion-mnist' would train as fashion-mnist; campaign
# 24's U12), so it is refused first, as make run's HOSTFILE check refuses one
nul=$(tr -c '\000\n' x < "$zoo" | tr '\000' N | grep -n -m 1 N | cut -d: -f1)
[ -z "$nul" ] || fail "$zoo:$nul: not text (a NUL byte)"

# every line checked before any training
names=() nets=() datas=() lrs=() targets=() lines=()
n=0
while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    [[ $line != *$'\r'* ]] || fail "$zoo:$n: holds a carriage return (a DOS file: write its line ends as a line feed alone)"
    line=${line%%#*}
    [ -n "${line//[[:space:]]/}" ] || continue
    read -r name net data lr target extra <<< "$line"
    [ -n "$target" ] && [ -z "${extra:-}" ] ||
        fail "$zoo:$n: expected 'NAME NET DATA LR TARGET_LOSS', got '$line'"
    # a plain word: no '.', '..', hidden name, zoo.md or NAME.log of another workload, no option
    [[ $name =~ ^[A-Za-z0-9][A-Za-z0-9_-]*$ ]] ||
        fail "$zoo:$n: name '$name': a letter or digit, then letters, digits, _ or - (a plain word: NAME and NAME.log are written in $out beside zoo.md)"
    for x in "$lr" "$target"; do
        [[ $x =~ ^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$ ]] && awk -v v="$x" 'BEGIN { exit !(v > 0) }' ||
            fail "$zoo:$n: '$x' is not a positive number (LR and TARGET_LOSS)"
    done
    for seen in "${names[@]}"; do [ "$seen" != "$name" ] || fail "$zoo:$n: name '$name' repeated"; done
    names+=("$name") nets+=("$net") datas+=("$data") lrs+=("$lr") targets+=("$target") lines+=("$n")
done < "$zoo"
[ ${#names[@]} -gt 0 ] || fail "$zoo: no workload in it"

# nothing zoo.sh writes is one of its inputs (campaign 37's E2): the table $out/zoo.md, each
# workload's log $out/NAME.log and its folder $out/NAME (removed first) are not ZOO, nor a line's
# NET or DATA. Paths resolved (realpath -m: links, ..) and, where both are there, one file (-ef).
outr=$(realpath -m -- "$out")
# which of its outputs path $1 is (one phrase), or nothing
written() {
    local r j
    r=$(realpath -m -- "$1" 2>/dev/null) || r=$1
    if [ "$r" = "$outr/zoo.md" ] || [ "$1" -ef "$outr/zoo.md" ]; then echo "the table $outr/zoo.md"; return; fi
    for j in "${names[@]}"; do
        if [ "$r" = "$outr/$j.log" ] || [ "$1" -ef "$outr/$j.log" ]; then echo "workload $j's log $outr/$j.log"; return; fi
        case $r/ in "$outr/$j"/*) echo "in workload $j's folder $outr/$j (removed before it runs)"; return ;; esac
        if [ -d "$1" ] && [ "$1" -ef "$outr/$j" ]; then echo "workload $j's folder $outr/$j"; return; fi
    done
}
w=$(written "$zoo")
[ -z "$w" ] || fail "$zoo: the workload list is $w: make zoo writes over it (give ZOO a file of its own)"
if [ -z "${ZOO_TABLE_ONLY:-}" ]; then
    for i in "${!names[@]}"; do
        for k in NET DATA; do
            [ $k = NET ] && v=${nets[$i]} || v=${datas[$i]}
            w=$(written "$v")
            [ -z "$w" ] || fail "$zoo:${lines[$i]}: ${names[$i]}: $k=$v is $w: make zoo writes over it"
        done
    done
fi

# every line's knobs as make run checks them (make -n: nothing runs), before any line trains:
# a bad NET or DATA on the last line is not found after the first lines' whole pipelines
if [ -z "${ZOO_TABLE_ONLY:-}" ]; then
    for i in "${!names[@]}"; do
        # shellcheck disable=SC2086 # ZOO_MAKE_ARGS: make variables, e.g. the test suite's BUILD
        why=$(make -s -n --no-print-directory run ${ZOO_MAKE_ARGS:-} OUT="$out/${names[$i]}" NET="${nets[$i]}" \
                DATA="${datas[$i]}" LR="${lrs[$i]}" TARGET_LOSS="${targets[$i]}" 2>&1 >/dev/null) && continue
        # make's "Makefile:N: *** KNOB=V: why.  Stop." as "KNOB=V: why"
        why=$(printf '%s\n' "$why" | sed -n 's/^.*\*\*\* \(.*\)\.  Stop\.$/\1/p; t; $p' | head -n 1)
        fail "$zoo:${lines[$i]}: ${names[$i]}: ${why:-make -n run refused its knobs}"
    done
fi

# ZOO_TABLE_ONLY: the workload folder's outputs are of line $1's lr (runs/lrLR), target (validate.txt's
# "target loss") and net (its run logs' # net=), each compared as a number or a name (campaign 43's
# B-F7: a folder trained at lr 0.05 was tabled under a line of lr 0.02, target 0.3 or net mlp)
same_num() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 == b + 0) }'; }
table_only_of_line() {
    local i=$1 dir=$out/${names[$1]} at="$zoo:${lines[$1]}: ${names[$1]}" d lrdir="" found="" t got
    for d in "$dir"/runs/lr*; do
        [ -d "$d" ] || continue
        found="$found${found:+, }${d##*/lr}"
        same_num "${d##*/lr}" "${lrs[$i]}" && lrdir=$d
    done
    [ -n "$lrdir" ] || fail "$at: $dir was trained at lr ${found:-none} ($dir/runs/lr*), not ${lrs[$i]}"
    t=$(sed -n 's/^# .* runs against the model, target loss \([^;]*\);.*/\1/p' "$dir/validate.txt" | head -n 1)
    [ -n "$t" ] || fail "$at: $dir/validate.txt names no target loss (# ... target loss T;)"
    same_num "$t" "${targets[$i]}" || fail "$at: $dir was checked at target loss $t ($dir/validate.txt), not ${targets[$i]}"
    # a NET that is a .cfg path (make run takes one) is held to its [net] name, which mbtrain
    # writes as # net= (campaign 45's B-F4)
    local want=${nets[$i]}
    if [[ $want == */* || $want == *.cfg ]]; then
        [ -r "$want" ] || fail "$at: NET $want: no such readable network description"
        want=$(awk '/^[[:space:]]*\[/ { s = $0 ~ /^[[:space:]]*\[net\]/ }
            s && /^[[:space:]]*name[[:space:]]*=/ { sub(/^[^=]*=[[:space:]]*/, ""); sub(/[[:space:]]+$/, "");
            print; exit }' "$want")
        [ -n "$want" ] || fail "$at: NET ${nets[$i]}: no name= in its [net] section"
    fi
    got=$(sed -n 's/^# net=\([^ ]*\).*/\1/p' "$lrdir"/*.csv 2>/dev/null | sort -u | paste -sd, -)
    [ "$got" = "$want" ] || fail "$at: $dir's runs ($lrdir) are of net ${got:-none}, not ${nets[$i]}$([ "$want" = "${nets[$i]}" ] || echo " (its [net] name $want)")"
    # and of the line's data set (campaign 45's B-F3): # data= is make run's DATA as given
    got=$(sed -n 's/^# data=\(.*\)$/\1/p' "$lrdir"/*.csv 2>/dev/null | sort -u | paste -sd, -)
    [ "$got" = "${datas[$i]}" ] || fail "$at: $dir's runs ($lrdir) are of data ${got:-none}, not ${datas[$i]}"
}

mkdir -p "$out" 2>/dev/null || fail "$out: cannot create the folder"
for i in "${!names[@]}"; do
    name=${names[$i]} dir=$out/${names[$i]}
    if [ -n "${ZOO_TABLE_ONLY:-}" ]; then
        [ -f "$dir/validate.txt" ] || fail "$zoo:${lines[$i]}: $name: no $dir/validate.txt (ZOO_TABLE_ONLY reads the outputs of a zoo that ran)"
        table_only_of_line "$i"
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

# one row a workload, from each run's own outputs. Written as mbkit's C writers write (docs/style.md,
# habit 11): through a link to its target (the link kept), to a temporary beside the file it
# replaces, with that file's mode, or the umask's where there is none (campaign 42's B-F9:
# mktemp's 0600 and mv replaced a zoo.md link with a file only its owner could read)
table=$out/zoo.md
if [ -L "$table" ]; then
    table=$(readlink -f -- "$table") || fail "$out/zoo.md: a link that leads nowhere (a loop)"
fi
tmp=$(mktemp "$(dirname -- "$table")/.zoo.md.XXXXXX") || fail "could not write $out/zoo.md"
trap 'rm -f "$tmp"' EXIT
if [ -e "$table" ]; then
    chmod --reference="$table" -- "$tmp"
else
    chmod "$(printf '%o' $((0666 & ~0$(umask))))" -- "$tmp"
fi || fail "could not write $out/zoo.md"
# a figure the table shows: digits (with . e + - % and an interval's -), never nan or inf (an
# interval may say "paired by seed" before its figures)
figure() { [[ $1 =~ ^[-+0-9.e%]*[0-9][-+0-9.e%]*$ ]]; }
# a file the table reads beside validate.txt (scale.txt, NAME.log): where a workload was run by
# hand without it, its cell is '-' and one note says which file (campaign 39's B-F9: sed's own
# "can't read" lines), else the first line sed prints for script $2
cell() {
    if [ -r "$1" ]; then sed -n "$2" "$1" | head -n 1; else
        echo "make zoo: ${names[$i]}: note: $1 is missing (the table's '$3' cell is -)" >&2; echo -; fi
}
{
    echo "| workload | net | lr | target | recommended M | held out: over the best held-out M (95% interval) | against its best rival | median abs error of predicted T_C, held out (95% interval) | held-out medians inside the predicted 95% interval | flat, predicted | flat, held out | make run |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    for i in "${!names[@]}"; do
        d=$out/${names[$i]}
        check=$(grep -h '^check: held out' "$d/validate.txt")
        ins=$(grep -h '^in-sample:' "$d/validate.txt" | sed -n 's/.*median |error| of predicted T_C \([0-9.]*\)%.*/\1%/p')
        ins=${ins:--}
        # the machine's speed during the check (make run's SPEED_REPEATS) and the error at it (the
        # first machine: line: mbopt writes one, campaign 41's B-F11 forged two)
        speed=$(grep -h -m 1 '^machine:' "$d/validate.txt" | sed -n "s/.*took a median \([0-9.e+-]*\)x [a-z]* first seconds per update.*T_C's median |error| on the held-out runs is \([0-9.]*\)%.*/\2% at the machine's speed during the check (\1x)/p")
        flat=$(cell "$d/scale.txt" 's/^flat: *M = \([0-9.]*\.\.[0-9.]*\) at P = \([0-9]*\) .*/\1 (P = \2)/p' "flat, predicted")
        total=$(cell "$out/${names[$i]}.log" 's/^total: //p' "make run")
        re='the recommended M = ([^ ]+) trained in [^ ]+ s \(median\), ([^ ]+)x the best held-out M \(M = ([^,]+), [^;]+; 95% interval ([^)]+)x\); against its best rival, M = ([^ ]+) [^:]+: ([^ ]+)x \(95% interval ([^)]+)\): ([a-z]+); median \|error\| of predicted T_C on the held-out runs ([^%]+)% over [0-9]+ settings \(95% interval over their seeds ([^;]+); of N_update ([^%]+)%, of T_update ([^%]+)%(, every M.s runs [^;]*)?\)(; the prediction.s [^;]* at ([0-9]+ of [0-9]+) settings)?; flat \(held out\): M = ([^ ]+) '
        [[ $check =~ $re ]] || fail "$d/validate.txt: no held-out check line to read"
        m=("${BASH_REMATCH[@]}")
        # each figure copied into the table a number (campaign 39's B-F10: "nanx" was copied)
        for k in 1 2 3 4 5 6 7 9 10 11 12; do
            figure "${m[$k]#paired by seed }" || fail "$d/validate.txt: the held-out check line's figure '${m[$k]}' is not a number (no held-out check line to read)"
        done
        echo "| ${names[$i]} | ${nets[$i]} | ${lrs[$i]} | ${targets[$i]} | ${m[1]} | **${m[2]}x** of M = ${m[3]} (${m[4]}) | ${m[6]}x of M = ${m[5]} (${m[7]}): ${m[8]} | ${m[9]}% (${m[10]} over the held-out seeds; N_update ${m[11]}%, T_update ${m[12]}%${m[13]:+, a level alike at every M}${speed:+; $speed}; in-sample $ins) | ${m[15]:--} | $flat | ${m[16]} | $total |"
    done
} > "$tmp" && mv -- "$tmp" "$table" || { rm -f "$tmp"; fail "could not write $out/zoo.md"; }
echo
cat "$out/zoo.md"
