#!/usr/bin/env bash
# netns.sh — "nodes" on one Linux machine for Open MPI across a network (issue 28): N network
# namespaces, each with its own address, host name and private folder, joined by veth pairs to a
# bridge (a switch); every node's link limited to RATE by a token bucket (tc tbf) in both
# directions; Open MPI launched across them with mpirun --hostfile, its rsh agent entering the
# node's namespace (ip netns exec) instead of ssh, and its TCP transport only on the veths.
#
#   netns.sh check                      exit 0 where namespaces can be made here; else one line
#                                       and exit 77 (not root, no ip/tc/unshare, not permitted)
#   netns.sh up DIR N [RATE]            N nodes (2..8), RATE for tc (default 1gbit); state in DIR
#   netns.sh mpirun DIR NP ARGS...      mpirun -np NP ARGS... across DIR's nodes (one slot each
#                                       node, filled round robin; run from the root namespace)
#   netns.sh bytes DIR                  "node I: sent S received R" bytes on each node's link
#   netns.sh down DIR                   removes the namespaces, the bridge and the veths
#   netns.sh run DIR N RATE ARGS...     up, mpirun -np N ARGS..., bytes, down; down also when the
#                                       job or the set-up fails, or on a signal (trap)
#
# Each node i (1..N) is namespace mbn<TAG>-<i> at 10.A.B.i/24 (the root namespace, where mpirun
# runs as a head node without slots, is 10.A.B.254 on the bridge); its processes run in their
# own UTS namespace (host name node<i>, so that Open MPI counts N hosts) and mount namespace,
# where DIR/local is DIR/node<i> bind-mounted: a folder no other node sees, for runs that must
# not share a filesystem (a checkpoint written as DIR/local/ck is node i's alone). Everything
# else (binaries, data) is the machine's one filesystem.
#
# Not modelled: latency. This kernel has no netem; the links add only the kernel's own
# veth/bridge/TCP path (tens of microseconds), not a real network's switch and wire delays. The
# nodes share the machine's CPU cores: compute does not scale with N.
set -u

die() { echo "netns.sh: $*" >&2; exit 1; }

usage() { sed -n '7,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# one line and 77 where the namespaces cannot be made (make check skips on 77)
check() {
  local t=mbnchk$$ m
  [ "$(id -u)" = 0 ] || { echo "netns.sh: skipped: not root (ip netns needs root)"; exit 77; }
  for m in ip tc unshare mpirun; do
    command -v $m > /dev/null || { echo "netns.sh: skipped: $m not found"; exit 77; }
  done
  if ! ip netns add $t 2> /dev/null; then
    echo "netns.sh: skipped: ip netns add is not permitted here"; exit 77
  fi
  ip netns del $t
  if ! ip link add ${t}a type veth peer name ${t}b 2> /dev/null; then
    echo "netns.sh: skipped: veth pairs cannot be made here"; exit 77
  fi
  ip link del ${t}a
}

# state: DIR/state holds TAG, N, NET (the first three octets), RATE
load() {
  [ -f "$1/state" ] || die "$1: no nodes there (netns.sh up $1 N first)"
  # shellcheck disable=SC1091
  . "$1/state"
}

down() {
  local dir=$1 i
  [ -f "$dir/state" ] || return 0
  load "$dir"
  # a job that failed may leave its daemons or ranks behind in a node: they are ended first
  # (by their ids), or the namespace would outlive its name
  local pids k
  for i in $(seq "$N"); do
    pids=$(ip netns pids "mbn$TAG-$i" 2> /dev/null)
    [ -n "$pids" ] && kill $pids 2> /dev/null
  done
  for i in $(seq "$N"); do
    for k in 1 2 3 4 5 6 7 8 9 10; do
      pids=$(ip netns pids "mbn$TAG-$i" 2> /dev/null)
      [ -z "$pids" ] && break
      [ $k = 5 ] && kill -9 $pids 2> /dev/null
      sleep 0.2
    done
    ip netns del "mbn$TAG-$i" 2> /dev/null ||
      { [ -e "/run/netns/mbn$TAG-$i" ] && echo "netns.sh: could not remove namespace mbn$TAG-$i" >&2; }
    ip link del "mb${TAG}v$i" 2> /dev/null
  done
  ip link del "mb${TAG}br" 2> /dev/null
  rm -f "$dir/state"
  return 0
}

# a token bucket of RATE on DEV's egress (in namespace NS, or the root one when NS is empty):
# burst is two jiffies' worth at 1 Gbit/s and at least 64 KiB (a GSO segment)
shape() {
  local ns=$1 dev=$2 rate=$3
  ${ns:+ip netns exec "$ns"} tc qdisc add dev "$dev" root tbf rate "$rate" burst 256kb \
    latency 50ms
}

up() {
  local dir=$1 n=$2 rate=${3:-1gbit} i
  case $n in [2-8]) ;; *) die "up: N = '$n': 2 to 8 nodes" ;; esac
  mkdir -p "$dir" || die "cannot make $dir"
  dir=$(cd "$dir" && pwd)
  [ -f "$dir/state" ] && die "$dir: nodes are up already (netns.sh down $dir)"
  check > /dev/null || die "namespaces cannot be made here ($(check))"
  # a tag and a /24 of this process's own: two harnesses at once do not meet
  local tag net
  tag=$(printf '%04x' $(($$ % 65536)))
  net="10.$((100 + $$ % 100)).$((($$ / 100) % 250))"
  printf 'TAG=%s\nN=%s\nNET=%s\nRATE=%s\nDIR=%s\n' "$tag" "$n" "$net" "$rate" "$dir" > "$dir/state"
  load "$dir"
  trap 'down "$dir"; exit 1' INT TERM
  ip link add "mb${TAG}br" type bridge || { down "$dir"; die "cannot make the bridge"; }
  ip addr add "$NET.254/24" dev "mb${TAG}br" && ip link set "mb${TAG}br" up ||
    { down "$dir"; die "cannot address the bridge"; }
  : > "$dir/hostfile"
  : > "$dir/nodes"
  mkdir -p "$dir/local"
  for i in $(seq "$n"); do
    local ns="mbn$TAG-$i" v="mb${TAG}v$i"
    mkdir -p "$dir/node$i"
    if ! { ip netns add "$ns" && ip link add "$v" type veth peer name mbnet0 netns "$ns" &&
           ip link set "$v" master "mb${TAG}br" && ip link set "$v" up &&
           ip netns exec "$ns" ip addr add "$NET.$i/24" dev mbnet0 &&
           ip netns exec "$ns" ip link set mbnet0 up && ip netns exec "$ns" ip link set lo up &&
           shape "$ns" mbnet0 "$rate" && shape "" "$v" "$rate"; }; then
      down "$dir"; die "cannot make node $i"
    fi
    echo "$NET.$i slots=1" >> "$dir/hostfile"
    echo "$NET.$i $i" >> "$dir/nodes"
  done
  # Open MPI's rsh agent: HOST COMMAND... runs COMMAND (a shell line, as ssh would) as node HOST
  cat > "$dir/agent" <<AGENT
#!/usr/bin/env bash
# netns.sh's rsh agent for Open MPI (plm_rsh_agent): HOST COMMAND... in HOST's namespace
while [ \$# -gt 0 ] && [ "\${1#-}" != "\$1" ]; do shift; done
i=\$(awk -v h="\$1" '\$1 == h { print \$2 }' "$dir/nodes")
[ -n "\$i" ] || { echo "netns agent: \$1 is not a node of $dir" >&2; exit 1; }
shift
exec ip netns exec "mbn$TAG-\$i" unshare --uts --mount /bin/sh -c \
  "hostname node\$i && mount --bind $dir/node\$i $dir/local && \$*"
AGENT
  chmod +x "$dir/agent"
  trap - INT TERM
  echo "netns.sh: $n nodes up ($NET.1..$NET.$n, links $rate each way, no added latency; $dir)"
}

mpirun_nodes() {
  local dir=$1 np=$2
  shift 2
  load "$dir"
  # the nodes share the machine's cores, which Open MPI cannot see (one slot a node): ranks
  # that wait must yield the core (mpi_yield_when_idle), or a busy-polling rank starves the one
  # it waits for (a 1 KiB allreduce took 8 ms instead of 17 us on 2 loaded cores)
  exec mpirun --allow-run-as-root --hostfile "$DIR/hostfile" -np "$np" --map-by node \
    --mca plm_rsh_agent "$DIR/agent" --mca mpi_yield_when_idle 1 --mca pml ob1 --mca btl tcp,self \
    --mca btl_tcp_if_include "$NET.0/24" --mca oob_tcp_if_include "$NET.0/24" "$@"
}

bytes() {
  local dir=$1 i
  load "$dir"
  for i in $(seq "$N"); do
    local s=/sys/class/net/mb${TAG}v$i/statistics
    # the root side's veth: what it received the node sent
    echo "node $i: sent $(cat "$s/rx_bytes") received $(cat "$s/tx_bytes")"
  done
}

run() {
  local dir=$1 n=$2 rate=$3 rc
  shift 3
  up "$dir" "$n" "$rate" > /dev/null || exit 1
  CLEAN=$(cd "$dir" && pwd)
  trap 'down "$CLEAN"' EXIT
  trap 'exit 1' INT TERM
  ( mpirun_nodes "$CLEAN" "$n" "$@" )
  rc=$?
  bytes "$CLEAN"
  return $rc
}

case ${1:-} in
check) check ;;
up) [ $# -ge 3 ] || usage; up "$2" "$3" "${4:-1gbit}" ;;
mpirun) [ $# -ge 4 ] || usage; mpirun_nodes "${@:2}" ;;
bytes) [ $# -eq 2 ] || usage; bytes "$2" ;;
down) [ $# -eq 2 ] || usage; down "$2" ;;
run) [ $# -ge 5 ] || usage; run "${@:2}"; exit $? ;;
*) usage ;;
esac
