# torch_peer.bash — sourced (from the source tree's root) by the benchmarks that run PyTorch
# beside mbkit, with NAME set to the benchmark's name: sets PY (Debian's /usr/bin/python3, the
# one that loads python3-torch) and BENCH (lenet5_step, built here), or exits 0 with one line
# when torch cannot be imported. Not a benchmark itself (`make bench` runs tests/bench/*.sh).
PY=/usr/bin/python3
if ! $PY -c 'import torch' 2>/dev/null; then
    echo "$NAME: skipped: $PY cannot import torch"
    exit 0
fi
BENCH=build/release/bench/lenet5_step
make -s "$BENCH"
