#!/usr/bin/env bash
# campaign.sh — a hostile user's campaign against the five commands and their readers (issue
# #25, the third round): cases that tests/test_hostile.c did not hold when it was written, each
# run from the source tree under `timeout -k 1 10` and `ulimit -v` (4 GiB), one at a time, and
# each outcome classified:
#
#   crash     killed by a signal other than the timeout's, or a sanitizer's report
#   hang      the timeout fired (exit 124 or 137)
#   silent    a case that should be refused exited 0 (or a check of what it wrote failed)
#   status    refused with the wrong exit status (1 bad data, 2 usage)
#   message   refused, but not with the one line (two for usage) naming what the case needs
#   touched   refused, but the output it named (holding "sentinel") changed, or a temporary was
#             left beside it
#   nan       exited 0 with nan or inf in what it printed or wrote
#   symlink   a case about a symbolic link whose link was replaced (its own check failed)
#   refused   a valid case that failed
#   ok        as wanted
#
# Usage: tests/hostile/campaign.sh [PATTERN]   (from the source tree after `make build`; cases
# whose command matches PATTERN only). Prints one line per failing case and the counts per
# category and class; exit 1 when any case failed. Needs bash, coreutils, sed, awk, gnuplot.
set -u
cd "$(dirname "$0")/../.." || exit 2
SRC=$PWD
export PATH="$SRC/build/release/bin:$PATH" OPENBLAS_NUM_THREADS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
PATTERN=${1:-}
D=$(mktemp -d /tmp/mbcampaign.XXXXXX) || exit 2
trap 'rm -rf "$D"' EXIT
E=data/examples
T='timeout -k 1 10'
export D E T

# ---- fixtures -------------------------------------------------------------------------------
cat > "$D/tiny.cfg" <<'EOF'
[net]
name=tiny
channels=1
height=8
width=8
[conv]
filters=2
size=3
activation=relu
[maxpool]
size=2
[fc]
outputs=4
[softmax]
EOF
mkdir -p "$D/logs" && cp $E/fit_runs/*.csv "$D/logs/"
mbfit nupdate --target-loss 0.5 $E/fit_runs/*.csv --json -o "$D/nf.json" 2>/dev/null
mbfit tupdate $E/step.csv --json -o "$D/tf.json" 2>/dev/null
mbfit comm $E/comm.csv --json -o "$D/cf.json" 2>/dev/null
mbopt scale --nfit "$D/nf.json" --tfit "$D/tf.json" --procs 1:4 --comm none --json \
    -o "$D/scale.json" 2>/dev/null
mbopt validate --target-loss 0.5 --nfit "$D/nf.json" --tfit "$D/tf.json" $E/fit_runs --json \
    -o "$D/v.json" 2>/dev/null
mbprobe conv --net "$D/tiny.cfg" --batch 2,4 --no-cache --budget 0.01 --algos gemm \
    -o "$D/conv.csv" 2>/dev/null
for f in nf.json tf.json cf.json scale.json v.json conv.csv; do
    test -s "$D/$f" || { echo "campaign: fixture $f not made" >&2; exit 2; }
done
# an IDX folder of 16 images 8x8 (plain), and a CIFAR folder of 2 records a file
python3 - "$D" <<'EOF' || exit 2
import os, struct, sys
d = sys.argv[1]
os.makedirs(d + "/idx"); os.makedirs(d + "/cifar")
for pre, n in (("train", 16), ("t10k", 8)):
    with open(f"{d}/idx/{pre}-images-idx3-ubyte", "wb") as f:
        f.write(struct.pack(">IIII", 0x803, n, 8, 8) + bytes((i * 7) % 256 for i in range(n * 64)))
    with open(f"{d}/idx/{pre}-labels-idx1-ubyte", "wb") as f:
        f.write(struct.pack(">II", 0x801, n) + bytes(i % 4 for i in range(n)))
rec = lambda k: bytes([k % 10]) + bytes((k * 3 + i) % 256 for i in range(3072))
for name in [f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]:
    with open(f"{d}/cifar/{name}", "wb") as f:
        f.write(rec(1) + rec(2))
EOF
sed 's/outputs=4/outputs=10/' "$D/tiny.cfg" > "$D/tiny10.cfg"
cat > "$D/cifar.cfg" <<'EOF'
[net]
name=c
channels=3
height=32
width=32
[fc]
outputs=10
[softmax]
EOF

# ---- the runner -----------------------------------------------------------------------------
declare -A COUNT
N=0
FAILED=0
# a value printed as nan or inf: the token, after a space or a separator (not n_inf, --n-inf)
nan_in() { grep -E -q -i '(^|[][[:space:]:=,(])[-+]?(nan|inf|infinity)([^a-z_]|$)' "$@" 2>/dev/null; }
nan_free() { ! nan_in "$@"; }
export -f nan_in nan_free
# whether a table, JSON or text file under $1 holds nan or inf
written_nan() {
    local f
    while IFS= read -r -d '' f; do nan_in "$f" && return 0; done < <(find "$1" -maxdepth 2 \
        -type f \( -name '*.csv' -o -name '*.json' -o -name '*.txt' -o -name r \) -print0)
    return 1
}

# c CATEGORY WANT NEEDLE COMMAND: WANT 0 (succeeds; COMMAND checks what it wrote), 1 or 2
c() {
    local cat=$1 want=$2 needle=$3 cmd=$4
    [ -n "$PATTERN" ] && [[ "$cmd" != *$PATTERN* ]] && return
    N=$((N + 1))
    local W="$D/w"
    rm -rf "$W" && mkdir "$W" && printf sentinel > "$W/o"
    ( ulimit -v 4194304; cd "$SRC" && W="$W" bash -c "$cmd" ) > "$D/out" 2> "$D/err" < /dev/null
    local rc=$? class=ok lines
    lines=$(wc -l < "$D/err")
    if [ $rc = 124 ] || [ $rc = 137 ]; then
        class=hang
    elif [ $rc -ge 128 ] || grep -q -E 'Sanitizer|runtime error:|Segmentation|core dumped' "$D/err"; then
        class=crash
    elif [ "$want" = 0 ]; then
        if [ $rc != 0 ]; then
            [ "$cat" = symlink ] && class=symlink || class=refused
        fi
    elif [ $rc = 0 ]; then
        class=silent
    elif [ $rc != "$want" ]; then
        class=status
    elif [ "$lines" != "$([ "$want" = 2 ] && echo 2 || echo 1)" ] || ! grep -q -F -- "$needle" "$D/err" \
         || [ -s "$D/out" ]; then
        class=message
    elif [ "$(cat "$W/o" 2>/dev/null)" != sentinel ] || ls "$W" | grep -q '^o\.tmp\.'; then
        class=touched
    fi
    if [ $class = ok ] && [ $rc = 0 ] && [ "$cat" != nan-ok ] && \
       { nan_in "$D/out" || written_nan "$W"; }; then
        class=nan
    fi
    COUNT["$cat $class"]=$(( ${COUNT["$cat $class"]:-0} + 1 ))
    if [ $class != ok ]; then
        FAILED=$((FAILED + 1))
        printf '%-8s %-8s rc=%-3s %s\n         -> %s\n' "$class" "$cat" "$rc" "$cmd" \
            "$(head -c 300 "$D/err" | tr '\n' '|')"
    fi
}

# drop "--a --b" "$MACRO": the macro without those flags and their values, for a case that
# gives them itself (a flag that takes a value is given once: a second is refused)
drop() {
    local s=" $2" f
    for f in $1; do s=$(sed -E "s/ $f [^ ]+//" <<< "$s"); done
    printf '%s' "${s# }"
}
NET="$D/tiny.cfg"
SYN="synthetic:n=64,test=16,c=1,h=8,w=8,classes=4,seed=3"
STEP="\$T mbprobe step --net $NET --batch 2 --threads 1 --rounds 1 --budget 0.01"
LRN="\$T mbprobe learners --net $NET --batch 2 --threads 1 --max-learners 2 --budget 0.01"
CONV="\$T mbprobe conv --net $NET --batch 2 --no-cache --budget 0.01 --algos gemm"
TRAIN="\$T mbtrain --net $NET --data $SYN --batch 8 --threads 1"
NU="\$T mbfit nupdate --target-loss 0.5"
LOGS="$E/fit_runs/*.csv"
SCALE="\$T mbopt scale --n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --m-t 32 --delta 0.004 --procs 1:4"
FITS="--nfit $D/nf.json --tfit $D/tf.json"

# ==== mbprobe ================================================================================
# every numeric flag of step, learners and conv against values that are not what it takes
for flag in --budget --rel-ci; do
    for v in nan -inf 1e400 -0.5 5e ' 0.1' '0.1 ' 0x1p-3 1,2; do
        c silent 1 "$flag" "$(drop "$flag" "$STEP") $flag '$v' -o \$W/o"
    done
done
for flag in --warmup --min-reps --max-reps --rounds; do
    for v in 1.5 -1 1e3x '' 0x4 99999999999999999999; do
        c silent 1 "$flag" "$(drop "$flag" "$STEP") $flag '$v' -o \$W/o"
    done
done
for v in 0 -2 1.5 2,0 2:1 1:0 ''; do c silent 1 "--learners" "$STEP --learners '$v' -o \$W/o"; done
c silent 2 "--learners" "$STEP --learners 3 -o \$W/o"
for v in 0 nan -1; do c silent 1 "--lr" "$STEP --lr '$v' -o \$W/o"; done
c silent 1 "lower the learning rate" "$STEP --lr 3e38 -o \$W/o"
for v in -0.1 1.5 nan; do c silent 1 "momentum" "$STEP --algo momentum --momentum '$v' -o \$W/o"; done
for v in -1 1.5 18446744073709551616 x; do c silent 1 "--seed" "$STEP --seed '$v' -o \$W/o"; done
c silent 1 "--algo" "$STEP --algo adam -o \$W/o"
c silent 1 "--conv-algo" "$STEP --conv-algo fastest -o \$W/o"
c silent 1 "--backend" "$STEP --backend tpu -o \$W/o"
c silent 1 "--device" "$STEP --device -1 -o \$W/o"
c silent 1 "--device" "$STEP --device 1.5 -o \$W/o"
c silent 1 "--threads" "$(drop "--threads" "$STEP") --threads 1,1 -o \$W/o"
c silent 1 "--threads" "$(drop "--threads" "$STEP") --threads 0 -o \$W/o"
c silent 1 "--batch" "$(drop "--batch" "$STEP") --batch 0 -o \$W/o"
c silent 1 "--batch" "$(drop "--batch" "$STEP") --batch 4:2 -o \$W/o"
c silent 1 "--batch" "$(drop "--batch" "$STEP") --batch 2, -o \$W/o"
c silent 1 "--batch" "$(drop "--batch" "$STEP") --batch 2,4:8,8 -o \$W/o"
c silent 1 "--min-reps 20 exceeds --max-reps 10" "$STEP --min-reps 20 --max-reps 10 -o \$W/o"
c silent 1 "do not fit" "$STEP --data synthetic:n=64,c=3,h=8,w=8 -o \$W/o"
c silent 1 "do not fit" "$STEP --data synthetic:n=1 -o \$W/o"
c silent 1 "no such data set" "$STEP --data $D/nonexistent -o \$W/o"
c silent 1 "no such data set" "$STEP --data $D/idx,extra -o \$W/o"
for v in 0 -1 1.5 nan 1e9; do c silent 1 "--max-learners" "$(drop "--max-learners" "$LRN") --max-learners '$v' -o \$W/o"; done
for v in -0.1 nan inf 2x; do c silent 1 "--threshold" "$LRN --threshold '$v' -o \$W/o"; done
c silent 1 "--batch" "$(drop "--batch" "$LRN") --batch 2,4 -o \$W/o"
c silent 1 "--batch" "$(drop "--batch" "$LRN") --batch 0 -o \$W/o"
c silent 1 "--batch" "$(drop "--batch" "$LRN") --batch 1e12 -o \$W/o"
c silent 1 "would overwrite --net" "cp $NET \$W/n.cfg && \$T mbprobe learners --net \$W/n.cfg --batch 2 -o \$W/n.cfg"
for v in 0 -1 1.5 nan 1,2; do c silent 1 "--threads" "$CONV --threads '$v' -o \$W/o"; done
c silent 1 "--algos" "$(drop "--algos" "$CONV") --algos '' -o \$W/o"
c silent 1 "--algos" "$(drop "--algos" "$CONV") --algos gemm, -o \$W/o"
c silent 1 "--algos" "$(drop "--algos" "$CONV") --algos ,gemm -o \$W/o"
c silent 1 "--algos" "$(drop "--algos" "$CONV") --algos GEMM -o \$W/o"
c silent 1 "--batch" "$(drop "--batch" "$CONV") --batch 2,2 -o \$W/o"
c silent 1 "--batch" "$(drop "--batch" "$CONV") --batch 2.5 -o \$W/o"
c silent 1 "--budget" "$(drop "--budget" "$CONV") --budget -1 -o \$W/o"
c silent 1 "--budget" "$(drop "--budget" "$CONV") --budget nan -o \$W/o"
c silent 1 "conv.csv" "printf 'key,reps,t_median_s,t_min_s,t_p25_s,t_p75_s,t_max_s\nk,5,1,2,1,1,1\n' > \$W/conv.csv && \$T mbprobe conv --net $NET --batch 2 --budget 0.01 --algos gemm --cache \$W/conv.csv -o \$W/o"
c silent 1 "cache.csv" "printf 'key,reps,t_median_s,t_min_s,t_p25_s,t_p75_s,t_max_s\nk,5,nan,1,1,1,1\n' > \$W/cache.csv && \$T mbprobe conv --net $NET --batch 2 --budget 0.01 --algos gemm --cache \$W/cache.csv -o \$W/o"
c silent 1 "cache.csv" "printf 'key,reps,t_median_s,t_min_s,t_p25_s,t_p75_s,t_max_s\nk,2.5,1,1,1,1,1\n' > \$W/cache.csv && \$T mbprobe conv --net $NET --batch 2 --budget 0.01 --algos gemm --cache \$W/cache.csv -o \$W/o"
c silent 1 "cache.csv" "printf 'key,reps\nk,5\n' > \$W/cache.csv && \$T mbprobe conv --net $NET --batch 2 --budget 0.01 --algos gemm --cache \$W/cache.csv -o \$W/o"
c usage 2 "--no-cache" "$CONV --cache \$W/c.csv -o \$W/o"
c silent 0 "" "\$T mbprobe conv --net $NET --batch 2 --budget 0.01 --algos gemm --cache \$W/c.csv -o \$W/r 2>/dev/null && grep -q gemm \$W/c.csv"
c usage 2 "unexpected argument" "$CONV extra -o \$W/o"
c usage 2 "--net" "\$T mbprobe conv --net"
c usage 2 "unknown option" "\$T mbprobe learners --frobnicate"
c usage 2 "unknown option" "\$T mbprobe overhead --frob"
c silent 0 "" "\$T mbprobe overhead --min-reps 0 --budget 0.01 | grep -q overhead"
MPI="\$T mpirun -np 2 --oversubscribe mbprobe comm --budget 0.01"
MPIERR="2>\$W/e; s=\$?; grep '^mbprobe' \$W/e >&2; exit \$s"
c silent 1 "--bytes" "$MPI --bytes 0 -o \$W/o $MPIERR"
c silent 1 "--ops" "$MPI --ops bogus -o \$W/o $MPIERR"
c silent 1 "--ops" "$MPI --ops allreduce,allreduce -o \$W/o $MPIERR"
c silent 1 "--ops" "$MPI --ops allreduce, -o \$W/o $MPIERR"
c silent 1 "--bytes" "$MPI --bytes 4,4 -o \$W/o $MPIERR"
c silent 1 "--bytes" "$MPI --bytes 1e30 -o \$W/o $MPIERR"
c silent 0 "" "$MPI --bytes 4 --ops ps -o \$W/r >/dev/null && grep -q '^ps,2,4,' \$W/r"
# network descriptions, read by every --net
cfg() { printf "$2" > "$D/$1.cfg"; }
cfg nul '[net]\nname=n\nchannels=1\nheight=8\x00\nwidth=8\n[fc]\noutputs=4\n[softmax]\n'
cfg neg '[net]\nname=n\nchannels=1\nheight=-8\nwidth=8\n[fc]\noutputs=4\n[softmax]\n'
cfg zero '[net]\nname=n\nchannels=0\nheight=8\nwidth=8\n[fc]\noutputs=4\n[softmax]\n'
cfg big '[net]\nname=n\nchannels=1\nheight=99999999999999999999\nwidth=8\n[fc]\noutputs=4\n[softmax]\n'
cfg hex '[net]\nname=n\nchannels=1\nheight=0x8\nwidth=8\n[fc]\noutputs=4\n[softmax]\n'
cfg plus '[net]\nname=n\nchannels=1\nheight=8\nwidth=8\n[conv]\nfilters=2\nsize=3\nstride=0\n[fc]\noutputs=4\n[softmax]\n'
cfg pad '[net]\nname=n\nchannels=1\nheight=8\nwidth=8\n[conv]\nfilters=2\nsize=3\npad=-1\n[fc]\noutputs=4\n[softmax]\n'
cfg ksize '[net]\nname=n\nchannels=1\nheight=8\nwidth=8\n[conv]\nfilters=2\nsize=9\n[fc]\noutputs=4\n[softmax]\n'
cfg pool '[net]\nname=n\nchannels=1\nheight=8\nwidth=8\n[maxpool]\nsize=16\n[fc]\noutputs=4\n[softmax]\n'
cfg drop '[net]\nname=n\nchannels=1\nheight=8\nwidth=8\n[fc]\noutputs=4\n[dropout]\nprobability=1.5\n[softmax]\n'
cfg unknownsec '[net]\nname=n\nchannels=1\nheight=8\nwidth=8\n[lstm]\nunits=4\n[fc]\noutputs=4\n[softmax]\n'
cfg unknownkey '[net]\nname=n\nchannels=1\nheight=8\nwidth=8\n[fc]\noutputs=4\ncolour=blue\n[softmax]\n'
cfg noval '[net]\nname=n\nchannels=1\nheight=\nwidth=8\n[fc]\noutputs=4\n[softmax]\n'
cfg twonets '[net]\nname=n\nchannels=1\nheight=8\nwidth=8\n[net]\nname=m\n[fc]\noutputs=4\n[softmax]\n'
cfg empty ''
cfg onlynet '[net]\nname=n\nchannels=1\nheight=8\nwidth=8\n'
cfg fc0 '[net]\nname=n\nchannels=1\nheight=8\nwidth=8\n[fc]\noutputs=0\n[softmax]\n'
cfg fchuge '[net]\nname=n\nchannels=1\nheight=8\nwidth=8\n[fc]\noutputs=3000000000\n[softmax]\n'
cfg fcwide '[net]\nname=n\nchannels=64\nheight=256\nwidth=256\n[fc]\noutputs=100000\n[softmax]\n'
cfg longname '[net]\nname=nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn\nchannels=1\nheight=8\nwidth=8\n[fc]\noutputs=4\n[softmax]\n'
cfg comma '[net]\nname=a,b\nchannels=1\nheight=8\nwidth=8\n[fc]\noutputs=4\n[softmax]\n'
cfg newline_name '[net]\nname=a\\nb\nchannels=1\nheight=8\nwidth=8\n[fc]\noutputs=4\n[softmax]\n'
cfg softmax2 '[net]\nname=n\nchannels=1\nheight=8\nwidth=8\n[fc]\noutputs=4\n[softmax]\n[softmax]\n'
cfg act '[net]\nname=n\nchannels=1\nheight=8\nwidth=8\n[fc]\noutputs=4\nactivation=swish\n[softmax]\n'
cfg algo '[net]\nname=n\nchannels=1\nheight=8\nwidth=8\n[conv]\nfilters=2\nsize=3\nalgo=magic\n[fc]\noutputs=4\n[softmax]\n'
cfg classes1 '[net]\nname=n\nchannels=1\nheight=8\nwidth=8\n[fc]\noutputs=1\n[softmax]\n'
cfg stride_big '[net]\nname=n\nchannels=1\nheight=8\nwidth=8\n[conv]\nfilters=2\nsize=3\nstride=99999999999\n[fc]\noutputs=4\n[softmax]\n'
cfg crlf '[net]\r\nname=n\r\nchannels=1\r\nheight=8\r\nwidth=8\r\n[fc]\r\noutputs=4\r\n[softmax]\r\n'
for f in nul neg zero big hex plus pad ksize pool drop unknownsec unknownkey noval twonets empty \
         onlynet fc0 fchuge fcwide longname comma softmax2 act algo stride_big classes1; do
    c silent 1 "$f.cfg" "$(drop "--net" "$STEP") --net \$D/$f.cfg -o \$W/o"
done
for f in nul neg hex fc0 fchuge twonets softmax2 stride_big; do
    c silent 1 "$f.cfg" "\$T mbtrain --net \$D/$f.cfg --data $SYN --batch 8 --max-updates 2 --log \$W/o"
    c silent 1 "$f.cfg" "\$T mbopt mem --net \$D/$f.cfg --mem 1G --batch 8 -o \$W/o"
done
c silent 0 "" "$(drop "--net" "$STEP") --net \$D/crlf.cfg -o \$W/r >/dev/null 2>&1 && grep -q t_median_s \$W/r"
c fifo 1 "/dev/stdin" "echo '[net]' | $(drop "--net" "$STEP") --net /dev/stdin -o \$W/o"
c size 1 "tiny.cfg" "\$T mbprobe step --net $NET/ --batch 2 -o \$W/o"
c size 1 "random" "\$T mbprobe step --net /dev/urandom --batch 2 -o \$W/o"
# outputs
c symlink 0 "" "mkdir \$W/d && ln -s d/t \$W/l && ln -s l \$W/l2 && $STEP -o \$W/l2 >/dev/null 2>&1 && test -L \$W/l2 && test -L \$W/l && grep -q t_median_s \$W/d/t"
c symlink 0 "" "ln -s \$W/abs \$W/l && $CONV -o \$W/l >/dev/null 2>&1 && test -L \$W/l && grep -q workspace \$W/abs"
c symlink 0 "" "echo old > \$W/t && ln -s t \$W/l && $LRN -o \$W/l >/dev/null 2>&1 && test -L \$W/l && grep -q samples_per_s \$W/t"
c symlink 1 "cannot write" "ln -s nodir/t \$W/l && $STEP -o \$W/l"
c symlink 1 "cannot write" "ln -s $D \$W/l && $STEP -o \$W/l"
c symlink 0 "" "echo 'key,reps,t_median_s,t_min_s,t_p25_s,t_p75_s,t_max_s' > \$W/c && ln -s c \$W/l && \$T mbprobe conv --net $NET --batch 2 --budget 0.01 --algos gemm --cache \$W/l -o \$W/r >/dev/null 2>&1 && test -L \$W/l && grep -q gemm \$W/c"
c io 1 "cannot write" "$STEP -o /proc/version"
c fifo 0 "" "mkfifo \$W/f && { \$T cat \$W/f > \$W/got & r=\$!; $LRN -o \$W/f >/dev/null 2>&1; s=\$?; wait \$r; test \$s = 0 && grep -q samples_per_s \$W/got; }"
c fifo 0 "" "mkfifo \$W/n.cfg && { \$T cat $NET > \$W/n.cfg & $(drop "--net" "$CONV") --net \$W/n.cfg -o \$W/r >/dev/null 2>&1; s=\$?; wait; test \$s = 0 && grep -q gemm \$W/r; }"
c fifo 0 "" "mkfifo \$W/n.cfg && { \$T cat $NET > \$W/n.cfg & \$T mbopt mem --net \$W/n.cfg --mem 1G --batch 8 -o \$W/r >/dev/null 2>&1; s=\$?; wait; test \$s = 0; }"
c io 1 "/dev/full: write error" "$CONV -o /dev/full 2>\$W/e; s=\$?; tail -n 1 \$W/e >&2; exit \$s"
c io 1 "write error" "$STEP -o \$W/r >&-"
c io 0 "" "$STEP -o - 2>/dev/null | head -c 1 >/dev/null"
c silent 1 "n.cfg" "cp $NET \$W/n.cfg && \$T mbprobe conv --net \$W/n.cfg --batch 2 --budget 0.01 --algos gemm --cache \$W/n.cfg -o \$W/o"

# ==== mbtrain ================================================================================
for flag in --lr --momentum --weight-decay --lr-gamma --eval-frac --target-loss; do
    for v in nan -1 inf 1e400 '' 1x; do c silent 1 "$flag" "$(drop "$flag" "$TRAIN") $flag '$v' --max-updates 2 --log \$W/o"; done
done
for flag in --eval-every --lr-step --max-updates --threads --data-seed; do
    for v in 0.5 -3 1e30 ''; do c silent 1 "$flag" "$(drop "$flag" "$TRAIN") $flag '$v' $([ "$flag" = --max-updates ] || echo --max-updates 2) --log \$W/o"; done
done
for v in 1.5 0 -1 1,2; do c silent 1 "--learners" "$TRAIN --learners '$v' --max-updates 2 --log \$W/o"; done
c silent 1 "--algo" "$TRAIN --algo adamw --max-updates 2 --log \$W/o"
c silent 1 "--conv-algo" "$TRAIN --conv-algo best --max-updates 2 --log \$W/o"
c silent 1 "--seeds" "$TRAIN --seeds 4:1 --log-dir \$W/d"
c silent 1 "--seeds" "$TRAIN --seeds 1.5,2 --log-dir \$W/d"
c silent 1 "--seeds" "$TRAIN --seeds -1:2 --log-dir \$W/d"
c silent 1 "--seeds" "$TRAIN --seeds 0:2, --log-dir \$W/d"
c silent 1 "batch 65" "\$T mbtrain --net $NET --data $SYN --batch 65 --max-updates 2 --log \$W/o"
c silent 1 "--batch" "\$T mbtrain --net $NET --data $SYN --batch 0 --max-updates 2 --log \$W/o"
c silent 1 "--batch" "\$T mbtrain --net $NET --data $SYN --batch 8:4 --log-dir \$W/d"
c silent 1 "synthetic" "\$T mbtrain --net $NET --data synthetic:n=64,n=32 --batch 8 --log \$W/o"
c silent 1 "synthetic" "\$T mbtrain --net $NET --data synthetic:n=64,bogus=1 --batch 8 --log \$W/o"
c silent 1 "synthetic" "\$T mbtrain --net $NET --data synthetic:n=64,classes=1 --batch 8 --log \$W/o"
c silent 1 "synthetic" "\$T mbtrain --net $NET --data synthetic:n=64,noise=nan --batch 8 --log \$W/o"
c silent 1 "synthetic" "\$T mbtrain --net $NET --data synthetic:n=64,noise=-1 --batch 8 --log \$W/o"
c silent 1 "synthetic" "\$T mbtrain --net $NET --data synthetic:n=64,c=1.5 --batch 8 --log \$W/o"
c silent 1 "synthetic" "\$T mbtrain --net $NET --data synthetic:n=64,test=0.5 --batch 8 --log \$W/o"
c silent 1 "synthetic" "\$T mbtrain --net $NET --data synthetic:n=64,seed=-1 --batch 8 --log \$W/o"
c silent 1 "synthetic" "\$T mbtrain --net $NET --data 'synthetic:' --batch 8 --log \$W/o"
c silent 1 "synthetic" "\$T mbtrain --net $NET --data synthetic:n=64,c=100000,h=100000,w=100000 --batch 8 --log \$W/o"
c silent 1 "classes" "\$T mbtrain --net $NET --data synthetic:n=64,h=8,w=8,classes=10 --batch 8 --log \$W/o"
c silent 1 "--wait-timeout" "$TRAIN --algo sgd-sync --learners 2 --wait-timeout -1 --max-updates 2 --log \$W/o"
c silent 1 "--tau" "$TRAIN --algo easgd-sync --learners 2 --tau 0 --max-updates 2 --log \$W/o"
c silent 1 "--tau" "$TRAIN --algo easgd-sync --learners 2 --tau 1.5 --max-updates 2 --log \$W/o"
c silent 1 "--elastic-alpha" "$TRAIN --algo easgd-sync --learners 2 --elastic-alpha 1.5 --max-updates 2 --log \$W/o"
c silent 1 "--elastic-alpha" "$TRAIN --algo easgd-sync --learners 2 --elastic-alpha nan --max-updates 2 --log \$W/o"
c silent 1 "--n-push" "$TRAIN --algo downpour --learners 2 --n-push 0 --max-updates 2 --log \$W/o"
c silent 1 "--delta" "$TRAIN --algo eamsgd --learners 2 --delta 1.5 --max-updates 2 --log \$W/o"
c silent 1 "--sma-momentum" "$TRAIN --algo sma --learners 2 --sma-momentum -1 --max-updates 2 --log \$W/o"
c silent 1 "--sma-tune-window" "$TRAIN --algo sma --learners 2 --sma-tune --sma-tune-window 0 --max-updates 2 --log \$W/o"
c silent 1 "--eval-threads" "$TRAIN --eval-threads 0 --max-updates 2 --log \$W/o"
c silent 1 "--learners" "$TRAIN --learners 100000 --algo sgd-sync --max-updates 2 --log \$W/o"
c usage 2 "--batch 8" "$TRAIN --algo sgd-sync --learners 3 --max-updates 2 --log \$W/o"
c usage 2 "unexpected argument" "$TRAIN extra --log \$W/o"
c usage 2 "--net" "\$T mbtrain --data $SYN --log \$W/o"
c usage 2 "--data" "\$T mbtrain --net $NET --log \$W/o"
# data folders: IDX and CIFAR read through --data
c silent 0 "" "\$T mbtrain --net \$D/tiny10.cfg --data \$D/idx --batch 4 --max-updates 2 --log \$W/r >/dev/null && grep -q update \$W/r"
c silent 0 "" "\$T mbtrain --net \$D/cifar.cfg --data \$D/cifar --batch 2 --max-updates 2 --log \$W/r >/dev/null && grep -q update \$W/r"
idxcase() { # name, python that mutates bytes b of train-images, or of labels with L
    local n=$1 py=$2
    mkdir -p "$D/idx_$n" && cp "$D"/idx/* "$D/idx_$n/"
    python3 -c "
import sys; p='$D/idx_$n/'+sys.argv[1]; b=bytearray(open(p,'rb').read())
$py
open(p,'wb').write(b)" "$3"
    c size 1 "idx_$n" "\$T mbtrain --net \$D/tiny10.cfg --data \$D/idx_$n --batch 4 --max-updates 2 --log \$W/o"
}
idxcase magic 'b[3]=0x08' train-images-idx3-ubyte
idxcase dims 'b[2:4]=bytes([8,4])' train-images-idx3-ubyte
idxcase count 'b[4:8]=(17).to_bytes(4,"big")' train-images-idx3-ubyte
idxcase countlab 'b[4:8]=(15).to_bytes(4,"big")' train-labels-idx1-ubyte
idxcase short 'del b[-10:]' train-images-idx3-ubyte
idxcase long 'b += bytes(64)' train-images-idx3-ubyte
idxcase label 'b[8]=200' train-labels-idx1-ubyte
idxcase rows0 'b[8:12]=(0).to_bytes(4,"big")' train-images-idx3-ubyte
idxcase rowsbig 'b[8:12]=(0xffffffff).to_bytes(4,"big")' train-images-idx3-ubyte
idxcase side 'b[8:16]=(4).to_bytes(4,"big")+(16).to_bytes(4,"big")' t10k-images-idx3-ubyte
idxcase empty 'b[:]=b""' t10k-labels-idx1-ubyte
mkdir -p "$D/idx_gzbad" && cp "$D"/idx/* "$D/idx_gzbad/" && printf '\037\213garbage' > "$D/idx_gzbad/train-images-idx3-ubyte.gz" && rm "$D/idx_gzbad/train-images-idx3-ubyte"
c size 1 "idx_gzbad" "\$T mbtrain --net \$D/tiny10.cfg --data \$D/idx_gzbad --batch 4 --max-updates 2 --log \$W/o"
mkdir -p "$D/idx_both" && cp "$D"/idx/* "$D/idx_both/" && gzip -k "$D/idx_both/train-images-idx3-ubyte"
c silent 0 "" "\$T mbtrain --net \$D/tiny10.cfg --data \$D/idx_both --batch 4 --max-updates 2 --log \$W/r >/dev/null" # the plain file is read (docs)
mkdir -p "$D/idx_fifo" && cp "$D"/idx/* "$D/idx_fifo/" && rm "$D/idx_fifo/train-labels-idx1-ubyte"
c fifo 0 "" "mkfifo \$D/idx_fifo/train-labels-idx1-ubyte 2>/dev/null; { \$T cat \$D/idx/train-labels-idx1-ubyte > \$D/idx_fifo/train-labels-idx1-ubyte & \$T mbtrain --net \$D/tiny10.cfg --data \$D/idx_fifo --batch 4 --max-updates 2 --log \$W/r >/dev/null; s=\$?; kill \$! 2>/dev/null; wait; test \$s = 0; }"
c silent 1 "takes 3x32x32" "\$T mbtrain --net \$D/cifar.cfg --data \$D/idx --batch 4 --max-updates 2 --log \$W/o"
c silent 1 "batch 32" "\$T mbtrain --net \$D/tiny10.cfg --data \$D/idx --batch 32 --max-updates 2 --log \$W/o"
cifarcase() {
    local n=$1 cmd=$2
    mkdir -p "$D/cifar_$n" && cp "$D"/cifar/* "$D/cifar_$n/" && (cd "$D/cifar_$n" && eval "$cmd")
    c size 1 "cifar_$n" "\$T mbtrain --net \$D/cifar.cfg --data \$D/cifar_$n --batch 2 --max-updates 2 --log \$W/o"
}
cifarcase short 'head -c 6000 data_batch_1.bin > x && mv x data_batch_1.bin'
cifarcase label "printf '\\377' | dd of=data_batch_2.bin bs=1 count=1 conv=notrunc 2>/dev/null"
cifarcase missing 'rm data_batch_3.bin'
cifarcase empty ': > test_batch.bin'
cifarcase dir 'rm data_batch_4.bin && mkdir data_batch_4.bin'
cifarcase zero 'rm data_batch_5.bin && ln -s /dev/zero data_batch_5.bin'
cifarcase gzbomb 'rm data_batch_1.bin && head -c 300000000 /dev/zero | gzip -1 > data_batch_1.bin.gz'
# checkpoints and resume
$TRAIN --max-updates 4 --checkpoint "$D/ck" --checkpoint-every 2 > /dev/null 2>&1 || true
(cd "$SRC" && eval "timeout 10 mbtrain --net $NET --data $SYN --batch 8 --threads 1 --max-updates 4 --checkpoint $D/ck --checkpoint-every 2" > /dev/null 2>&1)
c silent 1 "ck" "$(drop "--batch" "$TRAIN") --batch 16 --max-updates 6 --resume \$D/ck --log \$W/o"
c silent 0 "" "$TRAIN --lr 0.1 --max-updates 6 --resume \$D/ck --log \$W/r >/dev/null" # lr is not carried (docs)
c silent 1 "ck" "\$T mbtrain --net \$D/cifar.cfg --data \$D/cifar --batch 8 --max-updates 6 --resume \$D/ck --log \$W/o"
c silent 1 "x" "cp \$D/ck \$W/x && printf 'X' | dd of=\$W/x bs=1 seek=100 count=1 conv=notrunc 2>/dev/null && $TRAIN --max-updates 6 --resume \$W/x --log \$W/o"
c silent 1 "x" "head -c 50 \$D/ck > \$W/x && $TRAIN --max-updates 6 --resume \$W/x --log \$W/o"
c silent 1 "x" "cp \$D/ck \$W/x && cat \$D/ck >> \$W/x && $TRAIN --max-updates 6 --resume \$W/x --log \$W/o"
c size 1 "/dev/null" "$TRAIN --max-updates 6 --resume /dev/null --log \$W/o"
c size 1 "a directory, not a regular file" "$TRAIN --max-updates 6 --resume \$D --log \$W/o"
c fifo 0 "" "mkfifo \$W/f && { \$T cat \$D/ck > \$W/f & $TRAIN --max-updates 6 --resume \$W/f --log \$W/r >/dev/null 2>&1; s=\$?; kill \$! 2>/dev/null; wait; test \$s = 0 -o \$s = 1; }"
c silent 1 "would overwrite" "cp \$D/ck \$W/c && $TRAIN --max-updates 6 --resume \$W/c --log \$W/c"
c usage 2 "--checkpoint" "$TRAIN --max-updates 2 --checkpoint-every 1 --log \$W/o"
c silent 1 "--checkpoint-every" "$TRAIN --max-updates 2 --checkpoint \$W/c --checkpoint-every 0"
c silent 1 "--checkpoint-every" "$TRAIN --max-updates 2 --checkpoint \$W/c --checkpoint-every 1.5"
c silent 1 "Not a directory" "$TRAIN --seeds 0,1 --log-dir $E/fit_runs/run_M16_s0.csv"
c silent 0 "" "mkdir \$W/d && $TRAIN --seeds 0,1 --max-updates 2 --log-dir \$W/d >/dev/null && test \$(ls \$W/d | wc -l) = 2"
c symlink 0 "" "mkdir \$W/real && ln -s real \$W/d && $TRAIN --seeds 0,1 --max-updates 2 --log-dir \$W/d >/dev/null && test -L \$W/d && test \$(ls \$W/real | wc -l) = 2"
c symlink 0 "" "ln -s ck2 \$W/l && $TRAIN --max-updates 4 --checkpoint \$W/l --checkpoint-every 2 >/dev/null && $TRAIN --max-updates 6 --resume \$W/l --checkpoint \$W/l --checkpoint-every 2 >/dev/null && test -L \$W/l && test -s \$W/ck2"
c io 1 "write error" "$TRAIN --max-updates 2 --log /dev/full"
c io 1 "write error" "$TRAIN --max-updates 2 --checkpoint /dev/full --checkpoint-every 1"
c io 1 "write error" "$TRAIN --max-updates 2 --log \$W/r >&-"
c nan 0 "" "$TRAIN --lr 1e30 --max-updates 20 --eval-every 5 --log \$W/r > \$W/s 2>/dev/null; nan_free \$W/s"
c nan 0 "" "$TRAIN --lr 1e30 --max-updates 20 --eval-every 5 --log \$W/r >/dev/null 2>&1; nan_free \$W/r"
c nan 0 "" "$TRAIN --max-updates 3 --eval-every 100 --log \$W/r >/dev/null 2>&1 && nan_free \$W/r"
c runaway 0 "" "$TRAIN --epochs 1e-10 --log \$W/r >/dev/null && grep -q 'updates=1 ' \$W/r"
c runaway 1 "--eval-every" "$TRAIN --eval-every 1e20 --log \$W/o"
c runaway 1 "--lr-step" "$TRAIN --lr-step 1e20 --log \$W/o"
c runaway 1 "--learners" "$TRAIN --algo easgd-sync --learners 1e9 --log \$W/o"
c runaway 1 "--sma-tune-window" "$TRAIN --algo sma --learners 2 --sma-tune --sma-tune-window 1e20 --log \$W/o"
c runaway 1 "--wait-timeout" "$TRAIN --algo sgd-sync --learners 2 --wait-timeout 1e300 --max-updates 2 --log \$W/o"

# ==== mbfit ==================================================================================
for v in nan -0.5 0 inf '' x 1e400; do c silent 1 "--target-loss" "$(drop "--target-loss" "$NU") --target-loss '$v' $LOGS -o \$W/o"; done
for flag in --bootstrap --smooth --seed; do
    for v in -1 1e30 nan x; do c silent 1 "$flag" "$(drop "$flag" "$NU") $flag '$v' $LOGS -o \$W/o"; done
done
c runaway 1 "--bootstrap" "$NU --bootstrap 1e9 $LOGS -o \$W/o"
for v in x 0 -0.1 nan; do c silent 1 "--lr" "$NU --lr '$v' $LOGS -o \$W/o"; done
c silent 1 "--weights" "$NU --weights bogus $LOGS -o \$W/o"
c silent 1 "--weights" "\$T mbfit tupdate --weights seeds $E/step.csv -o \$W/o"
c silent 1 "--procs" "$NU --procs 0 $LOGS -o \$W/o"
c silent 1 "--algo" "$NU --algo frob $LOGS -o \$W/o"
c usage 2 "collective probe table" "\$T mbfit comm $E/comm.csv $E/comm.csv -o \$W/o"
c usage 2 "unknown option" "\$T mbfit tupdate --frob $E/step.csv"
c usage 2 "collective probe table" "\$T mbfit comm -o \$W/o"
# run logs
logmut() { # name, sed script on a copy of run_M16_s0.csv
    sed "$2" $E/fit_runs/run_M16_s0.csv > "$D/log_$1.csv"
    c silent 1 "log_$1.csv" "$NU \$D/log_$1.csv $E/fit_runs/run_M32_s0.csv $E/fit_runs/run_M64_s0.csv $E/fit_runs/run_M128_s0.csv -o \$W/o"
}
sed '/^# lr=/d' $E/fit_runs/run_M16_s0.csv > "$D/log_nolr.csv"
c silent 0 "" "$NU \$D/log_nolr.csv $E/fit_runs/run_M32_s0.csv $E/fit_runs/run_M64_s0.csv -o \$W/r 2>/dev/null" # lr is optional metadata
logmut nobatch '/^# batch=/d'
logmut batch0 's/^# batch=.*/# batch=0/'
logmut batchneg 's/^# batch=.*/# batch=-16/'
logmut batchx 's/^# batch=.*/# batch=sixteen/'
logmut lrnan 's/^# lr=.*/# lr=nan/'
logmut seedhalf 's/^# seed=.*/# seed=0.5/'
logmut upddec '0,/^[1-9][0-9]*,/s/^\([1-9][0-9]*\),/0,/'
logmut updneg '0,/^[1-9][0-9]*,/s/^\([1-9][0-9]*\),/-\1,/'
logmut lossnan '0,/^[1-9][0-9]*,/s/^\([0-9]*,[^,]*,[^,]*,[^,]*\),[^,]*,/\1,nan,/'
logmut wallneg '0,/^[1-9][0-9]*,/s/^\([0-9]*,[^,]*,[^,]*\),[^,]*,/\1,-5,/'
logmut ragged '0,/^[1-9][0-9]*,/s/$/,extra/'
logmut quoted '0,/^[1-9][0-9]*,/s/^\([0-9]*\),/"\1",/'
logmut nohead '/^update,/d'
logmut headtwice '/^update,/p'
logmut nul '0,/^[1-9][0-9]*,/s/,/\x00,/'
logmut algo2 's/^# algo=.*/# algo=sgd\n# algo=momentum/'
logmut learners0 's/^# batch=/# learners=0\n# batch=/'
logmut acc2 '0,/^[1-9][0-9]*,/s/^\([0-9]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*\),[^,]*/\1,2/'
logmut evalinf '0,/^[1-9][0-9]*,/s/^\([0-9]*,[^,]*,[^,]*,[^,]*,[^,]*\),[^,]*,/\1,inf,/'
c silent 1 "given twice" "$NU $LOGS $E/fit_runs/../fit_runs/run_M16_s0.csv -o \$W/o"
c silent 1 "dir" "mkdir \$W/dir.csv && $NU $LOGS \$W/dir.csv -o \$W/o"
c size 1 "/dev/zero" "$NU $LOGS /dev/zero -o \$W/o"
c size 1 "/dev/null" "$NU $LOGS /dev/null -o \$W/o"
c silent 1 "overwrite" "cp $E/fit_runs/run_M16_s0.csv \$W/a.csv && $NU \$W/a.csv $E/fit_runs/run_M32_s0.csv $E/fit_runs/run_M64_s0.csv --json -o \$W/a.csv"
c symlink 1 "overwrite" "cp $E/fit_runs/run_M16_s0.csv \$W/a.csv && ln -s a.csv \$W/l && $NU \$W/a.csv $E/fit_runs/run_M32_s0.csv $E/fit_runs/run_M64_s0.csv -o \$W/l"
c symlink 0 "" "echo OLDMARK > \$W/t && ln -s t \$W/l && $NU $LOGS -o \$W/l 2>/dev/null && test -L \$W/l && ! grep -q OLDMARK \$W/t"
c symlink 0 "" "ln -s t \$W/l && $NU $LOGS --json -o \$W/l 2>/dev/null && test -L \$W/l && grep -q n_inf \$W/t"
c symlink 0 "" "ln -s t \$W/l && \$T mbfit nupdate $E/nupdate_points.csv -o \$W/l 2>/dev/null && test -L \$W/l && test -s \$W/t"
c io 1 "/dev/full" "$NU $LOGS -o /dev/full"
c io 1 "/dev/full" "\$T mbfit tupdate $E/step.csv -o /dev/full"
c io 1 "empty file name" "\$T mbfit comm $E/comm.csv -o ''"
c io 1 "write error" "$NU $LOGS -o \$W/r >&-"
c fifo 0 "" "mkfifo \$W/f && { \$T cat \$W/f > \$W/got & r=\$!; $NU $LOGS --json -o \$W/f 2>/dev/null; s=\$?; wait \$r; test \$s = 0 && grep -q n_inf \$W/got; }"
c fifo 0 "" "mkfifo \$W/f && { \$T cat $E/comm.csv > \$W/f & \$T mbfit comm \$W/f -o \$W/r; s=\$?; wait; test \$s = 0 && test -s \$W/r; }"
# points, step and collective tables
pts() { printf "$2" > "$D/pts_$1.csv"; c silent 1 "pts_$1.csv" "\$T mbfit nupdate \$D/pts_$1.csv -o \$W/o"; }
pts neg 'batch,n_update\n8,100\n16,-80\n32,70\n'
pts zero 'batch,n_update\n0,100\n16,80\n32,70\n'
pts nan 'batch,n_update\n8,nan\n16,80\n32,70\n'
c silent 0 "" "printf 'batch,n_update\\n8,100.5\\n16,80\\n32,70\\n' > \$W/p.csv && \$T mbfit nupdate \$W/p.csv -o \$W/r" # an interpolated crossing (the shipped example has them)
printf 'batch,n_update\n8,100\n' > "$D/pts_one.csv"; c silent 1 "single mini-batch size" "\$T mbfit nupdate \$D/pts_one.csv -o \$W/o"
printf 'batch,n_update\n8,100\n8,110\n8,90\n' > "$D/pts_onem.csv"; c silent 1 "single mini-batch size" "\$T mbfit nupdate \$D/pts_onem.csv -o \$W/o"
pts nohead '8,100\n16,80\n32,70\n'
pts nobatch 'm,n_update\n8,100\n16,80\n32,70\n'
pts seed 'batch,n_update,seed\n8,100,0\n8,110,0\n16,80,0\n32,70,0\n'
pts big 'batch,n_update\n8,1e300\n16,1e300\n32,1e300\n'
pts hugebatch 'batch,n_update\n8,100\n16,80\n1e300,70\n'
step() { { grep '^#\|^backend' $E/step.csv; printf "$2"; } > "$D/step_$1.csv"
    c silent 1 "step_$1.csv" "\$T mbfit tupdate \$D/step_$1.csv -o \$W/o"
    c silent 1 "step_$1.csv" "\$T mbplot step \$D/step_$1.csv -o \$W/o"; }
step neg 'cpu,lenet5,8,1,2,15,-0.001,0.001,0.001,0.001,0.001,1\ncpu,lenet5,16,1,2,15,0.002,0.002,0.002,0.002,0.002,1\n'
step nan 'cpu,lenet5,8,1,2,15,nan,0.001,0.001,0.001,0.001,1\ncpu,lenet5,16,1,2,15,0.002,0.002,0.002,0.002,0.002,1\n'
step p25 'cpu,lenet5,8,1,2,15,0.001,0.001,0.002,0.001,0.002,1\ncpu,lenet5,16,1,2,15,0.002,0.002,0.002,0.002,0.002,1\n'
step reps0 'cpu,lenet5,8,1,2,0,0.001,0.001,0.001,0.001,0.001,1\ncpu,lenet5,16,1,2,15,0.002,0.002,0.002,0.002,0.002,1\n'
step thr0 'cpu,lenet5,8,1,0,15,0.001,0.001,0.001,0.001,0.001,1\ncpu,lenet5,16,1,2,15,0.002,0.002,0.002,0.002,0.002,1\n'
step lrn 'cpu,lenet5,8,3,2,15,0.001,0.001,0.001,0.001,0.001,1\ncpu,lenet5,16,1,2,15,0.002,0.002,0.002,0.002,0.002,1\n'
step ragged 'cpu,lenet5,8,1,2,15,0.001,0.001,0.001,0.001,0.001\n'
step twonets 'cpu,lenet5,8,1,2,15,0.001,0.001,0.001,0.001,0.001,1\ncpu,vgg,16,1,2,15,0.002,0.002,0.002,0.002,0.002,1\n'
comm() { printf "op,procs,bytes,reps,t_median_s,t_min_s,t_max_s\n$2" > "$D/comm_$1.csv"
    c silent 1 "comm_$1.csv" "\$T mbfit comm \$D/comm_$1.csv -o \$W/o"
    c silent 1 "comm_$1.csv" "\$T mbplot comm \$D/comm_$1.csv -o \$W/o"; }
comm neg 'allreduce,2,4,5,-1e-5,1e-5,1e-5\nallreduce,2,8,5,2e-5,2e-5,2e-5\n'
comm maxlow 'allreduce,2,4,5,1e-5,1e-5,1e-6\nallreduce,2,8,5,2e-5,2e-5,2e-5\n'
comm dup 'allreduce,2,4,5,1e-5,1e-5,1e-5\nallreduce,2,4,5,1e-5,1e-5,1e-5\nallreduce,2,8,5,2e-5,2e-5,2e-5\n'
comm reps 'allreduce,2,4,2.5,1e-5,1e-5,1e-5\nallreduce,2,8,5,2e-5,2e-5,2e-5\n'
comm procs1 'ps,1,4,5,1e-5,1e-5,1e-5\nps,1,8,5,2e-5,2e-5,2e-5\n'
comm empty_op ',2,4,5,1e-5,1e-5,1e-5\n,2,8,5,2e-5,2e-5,2e-5\n'
comm bytes 'allreduce,2,1e300,5,1e-5,1e-5,1e-5\nallreduce,2,8,5,2e-5,2e-5,2e-5\n'
c silent 1 "given twice" "{ cat $E/comm.csv; grep '^allreduce' $E/comm.csv | head -1; } > \$W/c.csv && \$T mbfit comm \$W/c.csv -o \$W/o"
c silent 1 "overwrite" "cp $E/step.csv \$W/s.csv && \$T mbfit tupdate \$W/s.csv $E/fit_runs/run_M16_s0.csv --json -o $E/fit_runs/run_M16_s0.csv"
c silent 1 "given twice" "\$T mbfit tupdate $E/step.csv $E/fit_runs/run_M16_s0.csv $E/fit_runs/run_M16_s0.csv -o \$W/o"
c nan 0 "" "\$T mbfit tupdate $E/step.csv --json -o \$W/r.json 2>/dev/null && nan_free \$W/r.json"
c nan 0 "" "\$T mbfit comm $E/comm.csv 2>/dev/null > \$W/r.txt && nan_free \$W/r.txt"
c nan 0 "" "printf 'batch,n_update\n8,2000\n16,1000\n32,500\n64,250\n' > \$W/p.csv && \$T mbfit nupdate \$W/p.csv --json -o \$W/r.json 2>/dev/null; nan_free \$W/r.json"
c nan 0 "" "printf 'batch,n_update\n8,100\n16,100\n32,100\n64,100\n' > \$W/p.csv && \$T mbfit nupdate \$W/p.csv > \$W/r.txt 2>/dev/null; nan_free \$W/r.txt"
c nan 0 "" "printf 'op,procs,bytes,reps,t_median_s,t_min_s,t_max_s\nallreduce,2,4,5,1e-5,1e-5,1e-5\nallreduce,2,8,5,1e-5,1e-5,1e-5\n' > \$W/c.csv && \$T mbfit comm \$W/c.csv --json -o \$W/r.json 2>/dev/null; nan_free \$W/r.json"

# ==== mbopt ==================================================================================
for flag in --n-inf --alpha --gamma --m-t --delta --t0; do
    for v in nan -1 inf 1e400 x ''; do c silent 1 "$flag" "$(drop "$flag" "$SCALE") $flag '$v' -o \$W/o"; done
done
for v in 0 -1 x 1:0 4:1; do c silent 1 "--procs" "$(drop "--procs" "$SCALE") --procs '$v' -o \$W/o"; done
for v in 0 -5 nan 1:0 x; do c silent 1 "--batch-range" "$SCALE --batch-range '$v' -o \$W/o"; done
c silent 1 "--law" "\$T mbopt scale $FITS --law quadratic-law --procs 1:4 --comm none -o \$W/o"
c silent 1 "--comm" "$SCALE --comm ALLREDUCE -o \$W/o"
c silent 1 "--latency" "\$T mbopt scale --n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --m-t 32 --comm alpha-beta --latency -1 --s-per-byte 1e-9 --bytes 4M --procs 1:4 -o \$W/o"
c silent 1 "--s-per-byte" "\$T mbopt scale --n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --m-t 32 --comm alpha-beta --latency 1e-5 --s-per-byte nan --bytes 4M --procs 1:4 -o \$W/o"
c silent 1 "--bytes" "\$T mbopt scale --n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --m-t 32 --comm alpha-beta --latency 1e-5 --s-per-byte 1e-9 --bytes 0 --procs 1:4 -o \$W/o"
c silent 1 "--procs-available" "$SCALE --procs-available 0 -o \$W/o"
c silent 1 "--m-weak" "$SCALE --m-weak 0 -o \$W/o"
c silent 1 "--m-strong" "$SCALE --m-strong -4 -o \$W/o"
c silent 1 "is this the right" "\$T mbopt scale $FITS --cfit \$D/nf.json --procs 1:4 --comm alpha-beta --bytes 4M -o \$W/o"
c silent 1 "is this the right" "\$T mbopt scale --nfit \$D/cf.json --tfit \$D/tf.json --procs 1:4 --comm none -o \$W/o"
c silent 1 "not a fit" "\$T mbopt scale --nfit \$D/scale.json --tfit \$D/tf.json --procs 1:4 --comm none -o \$W/o"
c silent 2 "not both" "\$T mbopt scale $FITS --n-inf 100 --procs 1:4 --comm none -o \$W/o" # the law is fitted or given (docs)
jmut() { # name, file, python expression on d
    python3 -c "
import json; d=json.load(open('$D/$2'))
$3
json.dump(d, open('$D/j_$1.json','w'))"
}
jmut ninfneg nf.json 'd["params"]["n_inf"]=-5'
jmut alphastr nf.json 'd["params"]["alpha"]="lots"'
jmut nobest nf.json 'd["best"]="mystery-law"'
jmut rangebad nf.json 'd["converged_range"]=[64,8]'
jmut gammaneg tf.json 'd["params"]["gamma"]=-1e-5'
jmut notobj nf.json 'd=[d]'
printf '%0.s[' $(seq 2000) > "$D/j_deep.json"; printf '%0.s]' $(seq 2000) >> "$D/j_deep.json"
jmut bigint nf.json 'd["params"]["n_inf"]=1e400 if False else 10**400'
for j in ninfneg alphastr nobest rangebad notobj deep bigint; do
    c silent 1 "j_$j.json" "\$T mbopt scale --nfit \$D/j_$j.json --tfit \$D/tf.json --procs 1:4 --comm none -o \$W/o"
done
c silent 1 "j_gammaneg.json" "\$T mbopt scale --nfit \$D/nf.json --tfit \$D/j_gammaneg.json --procs 1:4 --comm none -o \$W/o"
c silent 1 "j_ninfneg.json" "\$T mbplot tc \$D/j_ninfneg.json -o \$W/o"
c size 1 "big.json" "python3 -c \"print('[' + '1,'*20000000 + '1]')\" > \$W/big.json && \$T mbopt scale --nfit \$W/big.json --tfit \$D/tf.json --procs 1:4 --comm none -o \$W/o"
c size 1 "/dev/zero" "\$T mbopt scale --nfit \$D/nf.json --tfit /dev/zero --procs 1:4 --comm none -o \$W/o"
c size 1 "/dev/urandom" "\$T mbopt scale --nfit /dev/urandom --tfit \$D/tf.json --procs 1:4 --comm none -o \$W/o"
c fifo 0 "" "mkfifo \$W/f && { \$T cat \$D/nf.json > \$W/f & \$T mbopt validate --nfit \$W/f --tfit \$D/tf.json $E/fit_runs -o \$W/r >/dev/null 2>&1; s=\$?; wait; test \$s = 0; }"
c fifo 0 "" "mkfifo \$W/f && { \$T cat \$D/cf.json > \$W/f & \$T mbopt scale $FITS --cfit \$W/f --comm alpha-beta --bytes 4M --procs 1:4 -o \$W/r; s=\$?; wait; test \$s = 0; }"
c silent 1 "--holdout" "\$T mbopt validate $FITS --holdout $E/fit_runs $E/fit_runs -o \$W/o"
c silent 1 "No such file" "\$T mbopt validate $FITS --holdout \$W/nope $E/fit_runs -o \$W/o"
c silent 1 "--max-seeds" "\$T mbopt validate $FITS --more-seeds --max-seeds 0 $E/fit_runs -o \$W/o"
c silent 1 "--max-seeds" "\$T mbopt validate $FITS --more-seeds --max-seeds 2.5 $E/fit_runs -o \$W/o"
c silent 1 "--target-loss" "\$T mbopt validate $FITS --target-loss -1 $E/fit_runs -o \$W/o"
c silent 1 "no 'enough' object" "\$T mbopt validate $FITS --recommend \$D/nf.json $E/fit_runs -o \$W/o"
c usage 2 "--json and --csv" "\$T mbopt validate $FITS --json --csv $E/fit_runs -o \$W/o"
c silent 1 "no run" "mkdir \$W/empty && \$T mbopt validate $FITS \$W/empty -o \$W/o"
c silent 1 "given twice" "\$T mbopt validate $FITS $E/fit_runs $E/fit_runs -o \$W/o"
c silent 1 "overwrite" "cp -r $E/fit_runs \$W/runs && \$T mbopt validate $FITS \$W/runs -o \$W/runs/run_M16_s0.csv"
c silent 1 "overwrite" "cp -r $E/fit_runs \$W/runs && \$T mbopt validate $FITS --holdout \$W/runs $E/fit_runs -o \$W/runs/run_M16_s0.csv"
c symlink 0 "" "echo old > \$W/t && ln -s t \$W/l && \$T mbopt validate $FITS $E/fit_runs --json -o \$W/l >/dev/null 2>&1 && test -L \$W/l && grep -q rows \$W/t"
c symlink 0 "" "ln -s t \$W/l && \$T mbopt mem --net $NET --mem 1G --batch 8 -o \$W/l && test -L \$W/l && test -s \$W/t"
c symlink 0 "" "ln -s t \$W/l && \$T mbopt ps --compute-time 0.2 --workers 16 --bandwidth 10G --param-bytes 240M -o \$W/l && test -L \$W/l && test -s \$W/t"
c symlink 1 "would overwrite" "cp $NET \$W/n.cfg && ln -s n.cfg \$W/l && \$T mbopt mem --net \$W/n.cfg --mem 1G --batch 8 -o \$W/l"
c silent 1 "would overwrite" "cp \$D/conv.csv \$W/c.csv && \$T mbopt conv --net $NET --probe \$W/c.csv --mem 1G --batch 2 -o \$W/c.csv"
for v in 0 -1 nan 1,2; do c silent 1 "compute" "\$T mbopt ps --compute-time '$v' --workers 16 --bandwidth 10G --param-bytes 240M -o \$W/o"; done
for v in 0 -1 nan; do c silent 1 "--bandwidth" "\$T mbopt ps --compute-time 0.2 --workers 16 --bandwidth '$v' --param-bytes 240M -o \$W/o"; done
c silent 1 "--workers" "\$T mbopt ps --compute-time 0.2 --workers 0 --bandwidth 10G --param-bytes 240M -o \$W/o"
c silent 1 "--param-bytes" "\$T mbopt ps --compute-time 0.2 --workers 4 --bandwidth 10G --param-bytes 0 -o \$W/o"
c runaway 1 "--workers" "\$T mbopt ps --compute-time 0.2 --workers 1e300 --bandwidth 10G --param-bytes 240M -o \$W/o"
c silent 1 "--overhead-ratio" "\$T mbopt amdahl --overhead-ratio -0.1 --gpus 4 -o \$W/o"
c silent 1 "--overhead-ratio" "\$T mbopt amdahl --overhead-ratio nan --gpus 4 -o \$W/o"
c silent 1 "--speedup" "\$T mbopt amdahl --speedup 0.5 --gpus 4 -o \$W/o"
c silent 1 "speed-up must be" "\$T mbopt amdahl --speedup 8 --gpus 4 -o \$W/o"
c silent 1 "--gpus" "\$T mbopt amdahl --gpus 0 --efficiency 0.5 -o \$W/o"
c silent 1 "--efficiency" "\$T mbopt amdahl --gpus 4 --efficiency 0 -o \$W/o"
c usage 2 "two of" "\$T mbopt amdahl --gpus 4 --efficiency 0.5 --speedup 2 -o \$W/o"
c silent 1 "--mem" "\$T mbopt mem --net $NET --mem 0 --batch 8 -o \$W/o"
c silent 1 "--mem" "\$T mbopt mem --net $NET --mem 1T --batch 8 -o \$W/o"
c silent 1 "--mem" "\$T mbopt mem --net $NET --mem 1e400 --batch 8 -o \$W/o"
c silent 1 "--batch" "\$T mbopt mem --net $NET --mem 1G --batch 0 -o \$W/o"
c silent 1 "--grad-copies" "\$T mbopt mem --net $NET --mem 1G --batch 8 --grad-copies -1 -o \$W/o"
c silent 1 "--state-copies" "\$T mbopt mem --net $NET --mem 1G --batch 8 --state-copies 65 -o \$W/o"
c nan 0 "" "\$T mbopt mem --net $NET --mem 1 --batch 8 -o \$W/r; nan_free \$W/r"
c silent 1 "not a convolution table" "\$T mbopt conv --net $NET --probe $E/step.csv --mem 1G --batch 2 -o \$W/o"
c silent 1 "--workspace" "\$T mbopt conv --net $NET --probe \$D/conv.csv --mem 1G --batch 2 --workspace both -o \$W/o"
c silent 1 "--ws-limit" "\$T mbopt conv --net $NET --probe \$D/conv.csv --mem 1G --batch 2 --ws-limit -1 -o \$W/o"
c silent 1 "no rows for backend" "\$T mbopt conv --net $NET --probe \$D/conv.csv --mem 1G --batch 2 --backend cuda -o \$W/o"
c silent 1 "--batch" "\$T mbopt conv --net $NET --probe \$D/conv.csv --mem 1G --batch 2,2 -o \$W/o"
c silent 1 "'magic'" "sed 's/,gemm,/,magic,/' \$D/conv.csv > \$W/c.csv && \$T mbopt conv --net $NET --probe \$W/c.csv --mem 1G --batch 2 -o \$W/o"
c silent 1 "c.csv" "awk -F, 'BEGIN{OFS=\",\"} /^[^#]/ && NR>1 && \$5 ~ /^[0-9]/ {\$5=-1} {print}' \$D/conv.csv > \$W/c.csv && \$T mbopt conv --net $NET --probe \$W/c.csv --mem 1G --batch 2 -o \$W/o"
c silent 1 "--price-bandwidth" "\$T mbopt design --n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --m-t 32 --delta 0.004 --budget 1e5 --price-learner 1 --price-bandwidth -1 --bandwidth-ref 1G -o \$W/o"
c silent 1 "--bandwidth-ref" "\$T mbopt design --n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --m-t 32 --delta 0.004 --budget 1e5 --price-learner 1 --price-bandwidth 1e-5 --bandwidth-ref 0 -o \$W/o"
c silent 1 "cannot buy" "\$T mbopt design --n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --m-t 32 --delta 0.004 --budget 0.5 --price-learner 1 --price-bandwidth 1e-5 --bandwidth-ref 1G -o \$W/o"
c io 1 "/dev/full" "$SCALE -o /dev/full"
c io 1 "write error" "$SCALE >&-"
c io 1 "empty file name" "$SCALE -o ''"
c nan 0 "" "$(drop "--alpha" "$SCALE") --alpha 0 --json -o \$W/r.json && nan_free \$W/r.json"
c nan 0 "" "$(drop "--delta" "$SCALE") --delta 0 --json -o \$W/r.json && nan_free \$W/r.json"
c nan 0 "" "\$T mbopt scale --n-inf 1e-300 --alpha 1e300 --gamma 1e-300 --m-t 1 --delta 0 --procs 1:4 -o \$W/r; s=\$?; test \$s = 1 || nan_free \$W/r"
c nan 0 "" "\$T mbopt amdahl --overhead-ratio 0 --gpus 4 --json -o \$W/r.json && nan_free \$W/r.json"

# ==== mbplot =================================================================================
for sub in scale tc; do
    c silent 1 "nf.json" "\$T mbplot $sub \$D/nf.json -o \$W/o.png"
    c silent 1 "j_notobj.json" "\$T mbplot $sub \$D/j_notobj.json -o \$W/o.png"
done
c silent 1 "v.json" "\$T mbplot nupdate \$D/v.json -o \$W/o.png"
c silent 1 "scale.json" "\$T mbplot validate \$D/scale.json -o \$W/o.png"
c silent 1 "conv.csv" "\$T mbplot conv \$D/conv.csv -o \$W/o.png"
c silent 1 "step.csv" "\$T mbplot comm $E/step.csv -o \$W/o.png"
c silent 1 "comm.csv" "\$T mbplot step $E/comm.csv -o \$W/o.png"
c silent 1 "missing 'gamma'" "\$T mbplot step $E/step.csv --tfit \$D/nf.json -o \$W/o.png"
c silent 1 "is this the right" "\$T mbplot comm $E/comm.csv --cfit \$D/tf.json -o \$W/o.png"
c usage 2 "--tfit" "\$T mbplot comm $E/comm.csv --tfit \$D/tf.json -o \$W/o.png"
c usage 2 "--curves" "\$T mbplot step $E/step.csv --curves 3 -o \$W/o.png"
c usage 2 "--gpus" "\$T mbplot step $E/step.csv --gpus 8 -o \$W/o.png"
for v in 0 -1 1e300 13 2.5; do c silent 1 "--curves" "\$T mbplot tc \$D/scale.json --curves '$v' -o \$W/o.png"; done
for v in 1 0 nan 1,2; do c silent 1 "--gpus" "\$T mbplot amdahl --gpus '$v' -o \$W/o.png"; done
for v in 99x600 900x10001 0x0 900X600 '' 9e2x600; do c silent 1 "--size" "\$T mbplot amdahl --size '$v' -o \$W/o.png"; done
c silent 1 "--format" "\$T mbplot amdahl --format PNG -o \$W/o"
c silent 2 "option '--format' given twice" "\$T mbplot amdahl --format svg --format gif -o \$W/o"
c silent 1 "the extension says" "\$T mbplot scale \$D/scale.json --format png -o \$W/x.svg"
c silent 0 "" "\$T mbplot amdahl -o \$W/a.SVG >/dev/null && test -s \$W/a.SVG"
vmut() { jmut "$1" v.json "$2"; c silent 1 "j_$1.json" "\$T mbplot validate \$D/j_$1.json -o \$W/o.png"; }
vmut vprocs 'd["rows"][0]["procs"]=1.5'
vmut vreached 'd["rows"][0]["reached"]=d["rows"][0]["runs"]+1'
vmut vneg 'd["rows"][0]["t_pred_s"]=-1'
vmut vnorows 'd["rows"]=[]'
vmut vcurve 'd["curve"]="none"'
vmut vtarget 'd["target_loss"]=0'
vmut vbest 'd["measured_best"]={"batch": 0}'
vmut vruns 'd["rows"][0]["t_runs_s"]=[-1]'
vmut vverdict 'd["verdict"]=5'
smut() { jmut "$1" scale.json "$2"; c silent 1 "j_$1.json" "\$T mbplot scale \$D/j_$1.json -o \$W/o.png"; }
smut sprocs 'd["rows"][0]["procs"]=1.5'
smut sneg 'd["rows"][0]["t_c_opt"]=-1'
smut snan 'd["rows"][0]["m_opt"]="x"'
smut sempty 'd["rows"]=[]'
smut sdup 'd["rows"].append(d["rows"][0])'
c silent 1 "j_sdup.json" "\$T mbplot tc \$D/j_sdup.json -o \$W/o.png"
nmut() { jmut "$1" nf.json "$2"; c silent 1 "j_$1.json" "\$T mbplot nupdate \$D/j_$1.json -o \$W/o.png"; }
nmut nalpha 'd["params"]["alpha"]=-1'
nmut npoints 'd["points"][0]["batch"]=0'
nmut npm 'd["per_m"][0]["mean"]=-3'
nmut nse 'd["per_m"][0]["se"]=-3'
nmut ncov 'd["covariance"]="x"'
c size 1 "/dev/zero" "\$T mbplot validate /dev/zero -o \$W/o.png"
c size 1 "/dev/zero" "\$T mbplot scale /dev/zero -o \$W/o.png"
c size 1 "/dev/zero" "\$T mbplot comm /dev/zero -o \$W/o.png"
c size 1 "cannot read" "\$T mbplot amdahl -o \$W/o.png --gpus 8 >/dev/null && \$T mbplot tc $D -o \$W/o"
c fifo 0 "" "mkfifo \$W/f && { \$T cat \$D/scale.json > \$W/f & \$T mbplot scale \$W/f -o \$W/p.png >/dev/null; s=\$?; wait; test \$s = 0 && test -s \$W/p.png; }"
c fifo 0 "" "mkfifo \$W/f && { \$T cat \$D/tf.json > \$W/f & \$T mbplot step $E/step.csv --tfit \$W/f -o \$W/p.png >/dev/null; s=\$?; wait; test \$s = 0 && test -s \$W/p.png; }"
c fifo 0 "" "mkfifo \$W/f && { \$T cat \$W/f > \$W/got.png & r=\$!; \$T mbplot amdahl -o \$W/f >/dev/null; s=\$?; wait \$r; test \$s = 0 && test -s \$W/got.png && test -p \$W/f; }"
c fifo 0 "" "mkdir \$W/r && cp \$D/scale.json \$W/r/ && mkfifo \$W/r/nfit.json \$W/r/validate.json && { \$T cat \$D/nf.json > \$W/r/nfit.json & \$T cat \$D/v.json > \$W/r/validate.json & \$T mbplot report \$W/r >/dev/null 2>&1; s=\$?; wait; test \$s = 0 && test -s \$W/r/validate.png && test -s \$W/r/report.html; }"
c silent 1 "/r/nfit.json" "mkdir \$W/r && cp \$D/scale.json \$W/r/ && echo '{' > \$W/r/nfit.json && \$T mbplot report \$W/r"
c silent 1 "/r/step.csv" "mkdir \$W/r && cp \$D/scale.json \$W/r/ && echo 'x' > \$W/r/step.csv && \$T mbplot report \$W/r"
c silent 0 "" "mkdir \$W/r && cp \$D/scale.json \$W/r/ && \$T mbplot report \$W/r/ 2>/dev/null >/dev/null && test -s \$W/r/report.html"
c symlink 0 "" "mkdir \$W/r && cp \$D/scale.json \$W/t.json && ln -s ../t.json \$W/r/scale.json && \$T mbplot report \$W/r >/dev/null 2>&1 && test -L \$W/r/scale.json && test -s \$W/r/report.html"
c symlink 0 "" "mkdir \$W/r && cp \$D/scale.json \$W/r/ && echo old > \$W/h && ln -s ../h \$W/r/report.html && \$T mbplot report \$W/r >/dev/null 2>&1 && test -L \$W/r/report.html && grep -q html \$W/h"
c symlink 0 "" "mkdir \$W/r && cp \$D/scale.json \$W/r/ && ln -s ../img.png \$W/r/scale.png && \$T mbplot report \$W/r >/dev/null 2>&1 && test -L \$W/r/scale.png && test -s \$W/img.png"
c symlink 0 "" "ln -s t.png \$W/l && \$T mbplot scale \$D/scale.json -o \$W/l >/dev/null && test -L \$W/l && test -s \$W/t.png"
c io 1 "cannot write" "mkdir \$W/r && cp \$D/scale.json \$W/r/ && mkdir \$W/r/report.html && \$T mbplot report \$W/r 2>&1 >/dev/null | grep -v note >&2; exit 1"
c io 1 "/dev/full" "\$T mbplot amdahl -o /dev/full"
c io 1 "empty file name" "\$T mbplot amdahl -o ''"
c io 1 "write error" "\$T mbplot scale \$D/scale.json -o \$W/q.png >&- ; s=\$?; test ! -e \$W/q.png && exit \$s"
c io 1 "gnuplot" "mkdir \$W/bin && ln -s /bin/sh \$W/bin/sh && PATH=\$W/bin /usr/bin/timeout 10 $SRC/build/release/bin/mbplot amdahl -o \$W/o.png"
c silent 1 "overwrite" "cp \$D/tf.json \$W/t.json && \$T mbplot step $E/step.csv --tfit \$W/t.json -o \$W/t.json"
c silent 1 "overwrite" "cp \$D/scale.json \$W/s.json && ln -s s.json \$W/l && \$T mbplot scale \$W/s.json -o \$W/l"
c nan 0 "" "\$T mbplot amdahl --overhead-ratio 0.001 --format svg -o \$W/a.svg >/dev/null && nan_free \$W/a.svg"

# ---- the counts -----------------------------------------------------------------------------
echo
echo "campaign: $N cases, $FAILED not as wanted"
for k in "${!COUNT[@]}"; do echo "$k ${COUNT[$k]}"; done | sort | awk '
    { cat[$1] += $3; cls[$2] += $3; if ($2 != "ok") bad[$1 " " $2] = $3 }
    END { printf "by category:"; for (c in cat) printf " %s %d", c, cat[c]; print "";
          printf "by class:"; for (c in cls) printf " %s %d", c, cls[c]; print "" }'
[ $FAILED = 0 ]
