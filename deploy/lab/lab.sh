#!/usr/bin/env bash
# lab.sh — a LAN of N hosts with working IP multicast, built from network namespaces on one machine.
#
# Each lab host is a network namespace ${P}1..${P}N whose only interface (eth0, a veth) plugs into a
# bridge that lives in a namespace of its own (${P}br). Nothing is created in, or changes, the
# machine's own network namespace: the lab's addresses and routes exist only inside the lab.
# The multi-process tests and benchmarks of hlamesh run their federates here with `lab.sh exec`.
# Needs root, iproute2 and nftables (python3 for `check`). `lab.sh help` lists the commands.
set -euo pipefail

readonly STATE_DIR=/run/hlamesh-lab   # one <prefix>.lab file per lab; /run empties at boot, like netns
readonly NETNS_DIR=/run/netns         # where `ip netns` keeps its names
readonly BR_DEV=br0                   # the bridge, inside ${P}br
readonly HOST_DEV=eth0                # each host's interface, inside ${P}i
readonly PREFIX_MAX=10                # ${P}p${i} with i <= 253 must fit IFNAMSIZ-1 = 15 characters
readonly HOSTS_MAX=253                # host i gets .i of a /24
readonly CHECK_GROUP=239.255.77.1     # administratively scoped; TTL 1 keeps it on the lab's bridge
readonly CHECK_PORT=47999
LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly LAB_DIR

PREFIX=${HLM_LAB_PREFIX:-hlm}
SUBNET=""          # A.B.C of the lab's /24
UP_IN_PROGRESS=0   # set while `up` builds, so the exit trap removes a half-built lab

usage() {
  cat <<'EOF'
usage: lab.sh COMMAND [ARGS] [--prefix P]

  up N [--subnet A.B.C]   build (or repair, or resize) a lab of N hosts; idempotent
  down                    remove the lab: namespaces (and the nft tables in them), state; idempotent
  loss HOST PERCENT [--port PORT | --all-udp] [--out]
                          drop PERCENT % of the UDP datagrams entering (--out: leaving) HOST;
                          PERCENT 0 removes that rule (without --port/--all-udp: every rule of
                          that direction)
  exec HOST CMD...        run CMD inside HOST's namespace (HOST is 1..N, or br for the bridge)
  addr HOST               print HOST's IPv4 address
  ns HOST                 print HOST's namespace name
  list                    print the labs present
  check                   verify multicast from host 1 reaches hosts 2..N; exit 1 on failure
  help                    this text

--prefix P   names the lab (default hlm, or $HLM_LAB_PREFIX): namespaces P1..PN and Pbr. Lowercase
             letters and digits, starting with a letter, at most 10 characters. Concurrent tests
             use one prefix each, e.g. t<pid>.
--subnet     the lab's private /24 (A.B.C or A.B.C.0/24); default 10.77.X.0/24 with X from the
             prefix. Host i is A.B.C.i. The subnet exists only inside the lab.
EOF
}

die() { echo "lab.sh: $*" >&2; exit 1; }
usage_error() { echo "lab.sh: $*" >&2; echo "lab.sh: run 'lab.sh help' for usage" >&2; exit 2; }
note() { echo "lab.sh: $*" >&2; }

require_root() {
  [[ $(id -u) -eq 0 ]] || die "must run as root (network namespaces need CAP_SYS_ADMIN and CAP_NET_ADMIN): try sudo $0 $*"
}
require_ip() {
  command -v ip >/dev/null 2>&1 || die "'ip' not found: install the Debian package iproute2 (apt-get install -y iproute2)"
}
require_nft() {
  command -v nft >/dev/null 2>&1 || die "'nft' not found: install the Debian package nftables (apt-get install -y nftables)"
}
require_python() {
  command -v python3 >/dev/null 2>&1 || die "'python3' not found (needed by check): install the Debian package python3"
}

validate_prefix() {
  local p=$1
  if (( ${#p} > PREFIX_MAX )); then
    die "prefix '$p' is too long (${#p} characters, at most $PREFIX_MAX): interface names like ${p}p${HOSTS_MAX} must fit Linux's 15-character limit"
  fi
  [[ $p =~ ^[a-z][a-z0-9]*$ ]] || die "prefix '$p' is invalid: use lowercase letters and digits, starting with a letter"
}

validate_host() {  # HOST [allow_br]
  local h=$1
  if [[ ${2:-} == allow_br && $h == br ]]; then return 0; fi
  [[ $h =~ ^[1-9][0-9]*$ ]] && (( h <= HOSTS_MAX )) || usage_error "HOST must be a number 1..$HOSTS_MAX, got '$h'"
}

derive_subnet() {  # a stable 10.77.X for the prefix; labs are isolated, so collisions do no harm
  local sum
  sum=$(printf '%s' "$PREFIX" | cksum)
  echo "10.77.$(( ${sum%% *} % 256 ))"
}

parse_subnet() {
  local s=${1%.0/24} o
  [[ $s =~ ^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$ ]] || usage_error "--subnet wants A.B.C or A.B.C.0/24, got '$1'"
  for o in "${BASH_REMATCH[@]:1}"; do (( 10#$o <= 255 )) || usage_error "--subnet: '$1' is not an address"; done
  local a=$((10#${BASH_REMATCH[1]})) b=$((10#${BASH_REMATCH[2]})) c=$((10#${BASH_REMATCH[3]}))
  if ! (( a == 10 || (a == 172 && b >= 16 && b <= 31) || (a == 192 && b == 168) )); then
    usage_error "--subnet must be private (10/8, 172.16/12, 192.168/16), got '$1'"
  fi
  echo "$a.$b.$c"
}

# --- names and state -------------------------------------------------------------------------

br_ns() { echo "${PREFIX}br"; }
host_ns() { echo "${PREFIX}$1"; }
port_dev() { echo "${PREFIX}p$1"; }   # bridge side of host $1's veth, inside ${P}br
state_file() { echo "$STATE_DIR/$1.lab"; }

ns_exists() { [[ -e $NETNS_DIR/$1 ]]; }

# Reads a lab's state file into STATE_HOSTS and STATE_SUBNET (empty when there is none).
read_state() {
  STATE_HOSTS="" STATE_SUBNET=""
  local f k v
  f=$(state_file "$1")
  [[ -f $f ]] || return 0
  while IFS='=' read -r k v; do
    case $k in
      hosts) [[ $v =~ ^[0-9]+$ ]] && STATE_HOSTS=$v ;;
      subnet) STATE_SUBNET=$v ;;
    esac
  done <"$f"
}

write_state() {  # HOSTS SUBNET
  mkdir -p "$STATE_DIR"
  local f tmp
  f=$(state_file "$PREFIX")
  tmp="$f.tmp.$$"
  printf 'hosts=%s\nsubnet=%s\n' "$1" "$2" >"$tmp"
  mv -f "$tmp" "$f"
}

# Serialises up/down/loss across all labs so the ownership checks below cannot race.
take_lock() {
  mkdir -p "$STATE_DIR"
  exec 9>"$STATE_DIR/.lock"
  flock -w 60 9 || die "another lab.sh has held $STATE_DIR/.lock for 60 s"
}

# Prints the prefix of the other lab whose host namespace is called $1, if any. Prefixes ending in
# digits can produce the same names (t1 host 23 and t12 host 3 are both t123).
owner_of() {
  local name=$1 f q rest
  for f in "$STATE_DIR"/*.lab; do
    [[ -e $f ]] || continue
    q=$(basename "$f" .lab)
    [[ $q == "$PREFIX" ]] && continue
    [[ $name == "$q"* ]] || continue
    rest=${name#"$q"}
    [[ $rest =~ ^[1-9][0-9]*$ ]] || continue
    read_state "$q"
    if [[ -n $STATE_HOSTS ]] && (( rest <= STATE_HOSTS )); then echo "$q"; return 0; fi
  done
  return 0
}

# Host namespaces of this lab: 1..hosts from the state file, plus any ${P}<number> that no other
# lab owns (what a lab built without a state file would have left).
lab_host_numbers() {
  local n=$1 i name rest
  declare -A seen=()
  for (( i = 1; i <= n; i++ )); do seen[$i]=1; done
  for name in "$NETNS_DIR"/"$PREFIX"*; do
    [[ -e $name ]] || continue
    name=$(basename "$name")
    rest=${name#"$PREFIX"}
    [[ $rest =~ ^[1-9][0-9]*$ ]] || continue
    [[ -z $(owner_of "$name") ]] && seen[$rest]=1
  done
  for i in "${!seen[@]}"; do echo "$i"; done | sort -n
}

# --- building --------------------------------------------------------------------------------

# A namespace that exists and works. A name left behind without its namespace is replaced.
ensure_ns() {
  local ns=$1
  if ns_exists "$ns"; then
    ip -n "$ns" link show lo >/dev/null 2>&1 && return 0
    note "namespace $ns is broken; recreating it"
    ip netns del "$ns" 2>/dev/null || rm -f "${NETNS_DIR:?}/$ns"
  fi
  ip netns add "$ns"
}

# IPv6 off (no router solicitations, DAD or MLD in captures); loopback up.
setup_ns_basics() {
  local ns=$1
  if [[ -d /proc/sys/net/ipv6 ]]; then
    ip netns exec "$ns" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6 &&
                               echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6'
  fi
  ip -n "$ns" link set lo up
}

ensure_bridge() {
  local b
  b=$(br_ns)
  ensure_ns "$b"
  setup_ns_basics "$b"
  # Snooping off: multicast floods to every port, so no IGMP querier is needed.
  if ip -n "$b" link show "$BR_DEV" >/dev/null 2>&1; then
    ip -n "$b" link set "$BR_DEV" type bridge mcast_snooping 0
  else
    ip -n "$b" link add "$BR_DEV" type bridge mcast_snooping 0
  fi
  ip -n "$b" link set "$BR_DEV" up
}

# "IFINDEX PEER_IFINDEX" of a veth end, or nothing when the device is absent.
veth_ends() {  # NS DEV
  local line
  line=$(ip -n "$1" -o link show dev "$2" 2>/dev/null) || return 0
  [[ $line =~ ^([0-9]+):\ [^@:]+@if([0-9]+): ]] && echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
  return 0
}

ensure_host() {  # I
  local i=$1 b h port want cur
  b=$(br_ns) h=$(host_ns "$i") port=$(port_dev "$i")
  ensure_ns "$h"
  setup_ns_basics "$h"

  # The veth pair is created inside the lab's namespaces, never in the machine's own.
  local pe he
  pe=$(veth_ends "$b" "$port") he=$(veth_ends "$h" "$HOST_DEV")
  if [[ -n $pe && -n $he && ${pe#* } == "${he% *}" && ${he#* } == "${pe% *}" ]]; then
    :  # both ends exist and are each other's peer
  else
    [[ -z $pe ]] || ip -n "$b" link del "$port"
    [[ -z $he ]] || ip -n "$h" link del "$HOST_DEV" 2>/dev/null || true
    ip -n "$b" link add "$port" type veth peer name "$HOST_DEV" netns "$h"
  fi
  ip -n "$b" link set "$port" master "$BR_DEV" up
  ip -n "$h" link set "$HOST_DEV" up

  want="$SUBNET.$i/24"
  cur=$(ip -n "$h" -4 -o addr show dev "$HOST_DEV" | while read -r _ _ _ a _; do echo "$a"; done)
  if [[ $cur != "$want" ]]; then
    ip -n "$h" addr flush dev "$HOST_DEV"
    ip -n "$h" addr add "$want" dev "$HOST_DEV"
  fi
  ip -n "$h" route replace 224.0.0.0/4 dev "$HOST_DEV"
  [[ ${HLM_LAB_TEST_FAIL_AT:-} != "host$i" ]] || die "failing on purpose after host $i (HLM_LAB_TEST_FAIL_AT)"
}

# Ends what still runs inside a namespace (stray federates of a crashed test), then deletes it.
remove_ns() {
  local ns=$1 pids tries
  ns_exists "$ns" || return 0
  pids=$(ip netns pids "$ns" 2>/dev/null || true)
  if [[ -n $pids ]]; then
    note "ending processes still in $ns: $(echo $pids)"
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null || true
    for (( tries = 0; tries < 20; tries++ )); do
      [[ -z $(ip netns pids "$ns" 2>/dev/null || true) ]] && break
      sleep 0.1
    done
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    # shellcheck disable=SC2086
    [[ -z $pids ]] || kill -KILL $pids 2>/dev/null || true
  fi
  ip netns del "$ns" 2>/dev/null || rm -f "${NETNS_DIR:?}/$ns"
}

teardown() {  # removes everything of lab $PREFIX; the lock must be held
  local n i
  read_state "$PREFIX"
  n=${STATE_HOSTS:-0}
  for i in $(lab_host_numbers "$n"); do remove_ns "$(host_ns "$i")"; done
  remove_ns "$(br_ns)"
  rm -f "$(state_file "$PREFIX")"
}

on_exit() {
  local rc=$?
  if (( UP_IN_PROGRESS )); then
    UP_IN_PROGRESS=0
    note "up of lab '$PREFIX' failed; removing what it built"
    teardown || note "cleanup of lab '$PREFIX' incomplete: run 'lab.sh down --prefix $PREFIX'"
  fi
  exit "$rc"
}

# --- commands --------------------------------------------------------------------------------

cmd_up() {
  local n=$1 i old
  [[ $n =~ ^[1-9][0-9]*$ ]] && (( n <= HOSTS_MAX )) || usage_error "up: N must be 1..$HOSTS_MAX, got '$n'"
  require_root up; require_ip; require_nft
  take_lock
  read_state "$PREFIX"
  old=${STATE_HOSTS:-0}
  [[ -n $SUBNET ]] || SUBNET=${STATE_SUBNET:-$(derive_subnet)}
  for (( i = 1; i <= n; i++ )); do
    local other
    other=$(owner_of "$(host_ns "$i")")
    [[ -z $other ]] || die "namespace $(host_ns "$i") belongs to lab '$other'; choose another prefix (one ending in a letter cannot collide)"
  done

  UP_IN_PROGRESS=1
  # The state names every namespace that may exist before any is created, so that `down` finds
  # them all even after an `up` that was killed half-way.
  write_state "$(( n > old ? n : old ))" "$SUBNET"
  ensure_bridge
  for (( i = 1; i <= n; i++ )); do ensure_host "$i"; done
  for i in $(lab_host_numbers "$old"); do
    (( i > n )) && remove_ns "$(host_ns "$i")"
  done
  write_state "$n" "$SUBNET"
  UP_IN_PROGRESS=0
  echo "lab $PREFIX up: $n host(s) $(host_ns 1)..$(host_ns "$n") at $SUBNET.1..$SUBNET.$n/24, bridge in $(br_ns)"
}

cmd_down() {
  require_root down; require_ip
  take_lock
  if [[ ! -f $(state_file "$PREFIX") ]] && ! ns_exists "$(br_ns)" && [[ -z $(lab_host_numbers 0) ]]; then
    echo "lab $PREFIX: nothing to remove"
    return 0
  fi
  teardown
  echo "lab $PREFIX down"
}

# Finds the handles of the rules whose comment is $3 in chain $2 of namespace $1.
rule_handles() {
  ip netns exec "$1" nft -a list chain inet "$PREFIX"chaos "$2" 2>/dev/null |
    while read -r line; do
      if [[ $line == *"comment \"$3\""* && $line =~ \#\ handle\ ([0-9]+)$ ]]; then echo "${BASH_REMATCH[1]}"; fi
    done
}

cmd_loss() {
  local host=$1 pct=$2 port=$3 all_udp=$4 out=$5
  validate_host "$host"
  [[ $pct =~ ^[0-9]+$ ]] && (( 10#$pct <= 100 )) || usage_error "loss: PERCENT must be an integer 0..100, got '$pct'"
  pct=$((10#$pct))
  [[ -z $port || $port =~ ^[0-9]+$ && $port -ge 1 && $port -le 65535 ]] || usage_error "loss: --port must be 1..65535"
  [[ -z $port || $all_udp -eq 0 ]] || usage_error "loss: give --port or --all-udp, not both"
  require_root loss; require_ip; require_nft
  local h table chain hook match key dir
  h=$(host_ns "$host")
  ns_exists "$h" || die "lab $PREFIX has no host $host (namespace $h): run 'lab.sh up N --prefix $PREFIX' first"
  table="${PREFIX}chaos"
  if (( out )); then chain=out hook=output dir=leaving; else chain=in hook=input dir=entering; fi
  if [[ -n $port ]]; then match="udp dport $port"; else match="meta l4proto udp"; fi
  key="hlm-loss $match"
  take_lock

  if (( pct == 0 )) && ! ip netns exec "$h" nft list table inet "$table" >/dev/null 2>&1; then
    echo "lab $PREFIX host $host: no loss rules"
    return 0
  fi
  local script handle
  script="table inet $table {
  chain in { type filter hook input priority 0; policy accept; }
  chain out { type filter hook output priority 0; policy accept; }
}"
  if (( pct == 0 )) && [[ -z $port && $all_udp -eq 0 ]]; then
    script+=$'\n'"flush chain inet $table $chain"
  else
    for handle in $(rule_handles "$h" "$chain" "$key"); do
      script+=$'\n'"delete rule inet $table $chain handle $handle"
    done
    if (( pct > 0 )); then
      # numgen's value is 0..99, so "< 100" is out of its range: 100 % is a plain drop.
      local chance="numgen random mod 100 < $pct "
      (( pct < 100 )) || chance=""
      script+=$'\n'"add rule inet $table $chain $match ${chance}counter drop comment \"$key\""
    fi
  fi
  # One transaction: the old rule goes and the new one comes at once.
  ip netns exec "$h" nft -f - <<<"$script"
  # No rules left: remove the table, so a lab without loss has no nft state at all.
  local rules
  rules=$(ip netns exec "$h" nft list table inet "$table")
  if [[ $rules != *hlm-loss* ]]; then
    ip netns exec "$h" nft delete table inet "$table"
  fi
  local what="all UDP"
  [[ -z $port ]] || what="UDP to port $port"
  if (( pct > 0 )); then
    echo "lab $PREFIX host $host: dropping $pct % of datagrams $dir ($what)"
  elif [[ -z $port && $all_udp -eq 0 ]]; then
    echo "lab $PREFIX host $host: every loss rule $dir removed"
  else
    echo "lab $PREFIX host $host: loss rule $dir ($what) removed"
  fi
}

cmd_exec() {
  local host=$1; shift
  validate_host "$host" allow_br
  (( $# > 0 )) || usage_error "exec: give a command to run"
  require_root exec; require_ip
  local ns
  if [[ $host == br ]]; then ns=$(br_ns); else ns=$(host_ns "$host"); fi
  ns_exists "$ns" || die "lab $PREFIX has no namespace $ns: run 'lab.sh up N --prefix $PREFIX' first"
  exec ip netns exec "$ns" "$@"
}

cmd_addr() {
  local host=$1 h a
  validate_host "$host"
  require_root addr; require_ip
  h=$(host_ns "$host")
  ns_exists "$h" || die "lab $PREFIX has no host $host (namespace $h)"
  a=$(ip -n "$h" -4 -o addr show dev "$HOST_DEV" 2>/dev/null | while read -r _ _ _ x _; do echo "${x%/*}"; break; done)
  [[ -n $a ]] || die "host $host of lab $PREFIX has no address: run 'lab.sh up N --prefix $PREFIX' to repair it"
  echo "$a"
}

cmd_list() {
  local f p n have i any=0
  printf '%-12s %-6s %-16s %s\n' PREFIX HOSTS SUBNET STATE
  for f in "$STATE_DIR"/*.lab; do
    [[ -e $f ]] || continue
    any=1
    p=$(basename "$f" .lab)
    read_state "$p"
    n=${STATE_HOSTS:-0} have=0
    for (( i = 1; i <= n; i++ )); do ns_exists "$p$i" && have=$((have + 1)); done
    local st="up"
    ns_exists "${p}br" && (( have == n )) || st="partial ($have/$n hosts, bridge $(ns_exists "${p}br" && echo present || echo missing)): 'lab.sh up $n --prefix $p' repairs"
    printf '%-12s %-6s %-16s %s\n' "$p" "$n" "${STATE_SUBNET:-?}.0/24" "$st"
  done
  for f in "$NETNS_DIR"/*br; do
    [[ -e $f ]] || continue
    p=$(basename "$f"); p=${p%br}
    [[ -f $(state_file "$p") || ! $p =~ ^[a-z][a-z0-9]*$ ]] && continue
    any=1
    printf '%-12s %-6s %-16s %s\n' "$p" "?" "?" "no state file: 'lab.sh down --prefix $p' removes it"
  done
  (( any )) || echo "(no labs)"
}

cmd_ns() {
  validate_host "$1" allow_br
  if [[ $1 == br ]]; then br_ns; else host_ns "$1"; fi
}

cmd_check() {
  require_root check; require_ip; require_python
  read_state "$PREFIX"
  local n=${STATE_HOSTS:-0} i h
  (( n >= 2 )) || die "check needs a lab of at least 2 hosts; lab '$PREFIX' has ${n}: run 'lab.sh up 3 --prefix $PREFIX'"
  local args=()
  for (( i = 1; i <= n; i++ )); do
    h=$(host_ns "$i")
    ns_exists "$h" || { echo "check FAIL: lab $PREFIX: namespace $h is missing ('lab.sh up $n --prefix $PREFIX' repairs)"; return 1; }
    local a
    a=$(cmd_addr "$i") || { echo "check FAIL: lab $PREFIX: host $i has no address"; return 1; }
    if (( i == 1 )); then args+=(--sender "$h,$a"); else args+=(--receiver "$h,$a"); fi
  done
  local count=200 out rc=0 line failed=0 ns addr got sent
  out=$(timeout 60 python3 "$LAB_DIR/mcast_probe.py" run --ip "$(command -v ip)" "${args[@]}" \
          --group "$CHECK_GROUP" --port "$CHECK_PORT" --count "$count" --min-ratio 1.0) || rc=$?
  while read -r line; do
    [[ $line == RESULT* ]] || continue
    read -r _ ns addr got sent <<<"$line"
    local verdict=ok
    (( got == sent )) || { verdict=MISSING; failed=1; }
    echo "  $ns ($addr): $got/$sent datagrams from host 1 — $verdict"
  done <<<"$out"
  if (( rc == 0 && failed == 0 )); then
    echo "check PASS: lab $PREFIX: multicast $CHECK_GROUP:$CHECK_PORT from host 1 reached hosts 2..$n ($count/$count each)"
  else
    echo "check FAIL: lab $PREFIX: multicast from host 1 did not reach every host 2..$n (probe exit $rc)"
    return 1
  fi
}

main() {
  # --prefix may also come before the command: lab.sh --prefix P exec 1 CMD...
  while (( $# > 0 )) && [[ $1 == --prefix || $1 == --prefix=* ]]; do
    if [[ $1 == --prefix ]]; then (( $# >= 2 )) || usage_error "--prefix needs a value"; PREFIX=$2; shift 2
    else PREFIX=${1#*=}; shift; fi
  done
  (( $# > 0 )) || { usage >&2; exit 2; }
  local cmd=$1; shift
  local pos=() port="" all_udp=0 out=0 subnet=""
  # Options come anywhere before the positionals end; for exec everything after HOST is the command.
  while (( $# > 0 )); do
    case $1 in
      --prefix) (( $# >= 2 )) || usage_error "--prefix needs a value"; PREFIX=$2; shift 2 ;;
      --prefix=*) PREFIX=${1#*=}; shift ;;
      --subnet) (( $# >= 2 )) || usage_error "--subnet needs a value"; subnet=$2; shift 2 ;;
      --port) (( $# >= 2 )) || usage_error "--port needs a value"; port=$2; shift 2 ;;
      --all-udp) all_udp=1; shift ;;
      --out) out=1; shift ;;
      --in) out=0; shift ;;
      --) shift; pos+=("$@"); break ;;
      -h|--help) usage; exit 0 ;;
      -*) if [[ $cmd == exec && ${#pos[@]} -ge 1 ]]; then pos+=("$@"); break; fi
          usage_error "unknown option '$1'" ;;
      *) pos+=("$1"); shift
         if [[ $cmd == exec && ${#pos[@]} -eq 1 ]]; then
           # exec HOST [--prefix P] CMD...: options may still come right after HOST.
           while (( $# > 0 )) && [[ $1 == --prefix || $1 == --prefix=* ]]; do
             if [[ $1 == --prefix ]]; then (( $# >= 2 )) || usage_error "--prefix needs a value"; PREFIX=$2; shift 2
             else PREFIX=${1#*=}; shift; fi
           done
           [[ ${1:-} == -- ]] && shift
           pos+=("$@"); break
         fi ;;
    esac
  done
  validate_prefix "$PREFIX"
  [[ -z $subnet ]] || SUBNET=$(parse_subnet "$subnet")
  trap on_exit EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM

  local np=${#pos[@]}
  case $cmd in
    up)    (( np == 1 )) || usage_error "usage: up N [--prefix P] [--subnet A.B.C]"; cmd_up "${pos[0]}" ;;
    down)  (( np == 0 )) || usage_error "usage: down [--prefix P]"; cmd_down ;;
    loss)  (( np == 2 )) || usage_error "usage: loss HOST PERCENT [--prefix P] [--port PORT|--all-udp] [--out]"
           cmd_loss "${pos[0]}" "${pos[1]}" "$port" "$all_udp" "$out" ;;
    exec)  (( np >= 2 )) || usage_error "usage: exec [--prefix P] HOST CMD..."; cmd_exec "${pos[@]}" ;;
    addr)  (( np == 1 )) || usage_error "usage: addr HOST [--prefix P]"; cmd_addr "${pos[0]}" ;;
    ns)    (( np == 1 )) || usage_error "usage: ns HOST [--prefix P]"; cmd_ns "${pos[0]}" ;;
    list)  (( np == 0 )) || usage_error "usage: list"; cmd_list ;;
    check) (( np == 0 )) || usage_error "usage: check [--prefix P]"; cmd_check ;;
    help)  usage ;;
    *)     usage_error "unknown command '$cmd'" ;;
  esac
}

main "$@"
