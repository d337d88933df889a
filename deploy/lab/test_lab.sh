#!/usr/bin/env bash
# test_lab.sh — self-test of lab.sh: builds a 3-host lab, proves multicast crosses it, measures the
# nftables loss rule, repairs a damaged lab, and proves that down leaves nothing behind.
# Run as root. Every command runs under `timeout`; every loop is over a fixed, small range.
# The last line is "N passed, M failed"; the exit status is 0 only when nothing failed.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LAB="$HERE/lab.sh"
PROBE="$HERE/mcast_probe.py"
P="l$$t"   # this run's own lab; ends in a letter so it cannot collide with another lab's names
LOSS_PORT=47001
COUNT=2000

passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   - $*"; }
bad() { failed=$((failed + 1)); echo "FAIL - $*"; }
check_that() {  # DESCRIPTION COMMAND...: passes when COMMAND succeeds
  local d=$1; shift
  if "$@"; then ok "$d"; else bad "$d"; fi
}
lab() { timeout 60 "$LAB" "$@" --prefix "$P"; }
quiet() { "$@" >/dev/null; }
lab_exec() { local h=$1; shift; timeout 60 "$LAB" exec --prefix "$P" "$h" "$@"; }

finish() {
  local rc=$?
  # Whatever happened, leave no lab behind.
  timeout 60 "$LAB" down --prefix "$P" >/dev/null 2>&1 || echo "warning: cleanup of lab $P failed"
  (( rc == 0 || failed > 0 )) || bad "test script aborted (exit $rc)"
  echo "$passed passed, $failed failed"
  if (( failed == 0 )); then exit 0; else exit 1; fi
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [[ $(id -u) -ne 0 ]]; then bad "must run as root"; exit 1; fi

host_links() { ip -o link show | while read -r _ name _; do echo "${name%%@*}"; done | sort; }
host_links_before=$(host_links)
host_routes_before=$(ip route show table all | sort)

lab_namespaces() { ip netns list | while read -r name _; do [[ $name == "$P"* ]] && echo "$name"; done; return 0; }

# --- up, twice -------------------------------------------------------------------------------
check_that "up 3 builds the lab" quiet lab up 3
port2_before=$(ip -n "${P}br" -o link show dev "${P}p2" | cut -d: -f1)
check_that "up 3 a second time is harmless" quiet lab up 3
port2_after=$(ip -n "${P}br" -o link show dev "${P}p2" | cut -d: -f1)
check_that "second up leaves the existing links alone" test "$port2_before" = "$port2_after"
check_that "namespaces ${P}1..${P}3 and ${P}br exist" \
  test "$(lab_namespaces | sort | tr '\n' ' ')" = "${P}1 ${P}2 ${P}3 ${P}br "

check_that "the machine's own interfaces are unchanged" test "$(host_links)" = "$host_links_before"
check_that "the machine's own routes are unchanged" test "$(ip route show table all | sort)" = "$host_routes_before"
check_that "bridge has multicast snooping off" \
  bash -c "ip -n '${P}br' -d link show br0 | grep -q 'mcast_snooping 0'"

declare -a addr=()
for i in 1 2 3; do
  addr[i]=$(lab addr "$i")
  check_that "host $i has address ${addr[i]} on eth0" \
    bash -c "ip -n '${P}$i' -4 -o addr show dev eth0 | grep -q ' ${addr[i]}/24 '"
  check_that "host $i routes 224.0.0.0/4 via eth0" \
    bash -c "ip -n '${P}$i' route show 224.0.0.0/4 | grep -q 'dev eth0'"
  check_that "host $i has loopback up" bash -c "ip -n '${P}$i' link show lo | grep -q 'UP'"
  if [[ -d /proc/sys/net/ipv6 ]]; then
    check_that "host $i has IPv6 off" test "$(lab_exec "$i" cat /proc/sys/net/ipv6/conf/all/disable_ipv6)" = 1
  fi
done
check_that "addresses share one /24 and host i is .i" \
  test "${addr[1]%.*}.2" = "${addr[2]}" -a "${addr[1]%.*}.3" = "${addr[3]}" -a "${addr[1]##*.}" = 1
# Unicast: a TCP connect from host 1 to a closed port of host 3 is refused at once (RST) when the
# path works, and times out when it does not.
reach='import socket, sys
s = socket.socket()
s.settimeout(3)
try:
    s.connect((sys.argv[1], 9))
except ConnectionRefusedError:
    pass
'
check_that "hosts reach each other by unicast" lab_exec 1 python3 -c "$reach" "${addr[3]}"

# --- check -----------------------------------------------------------------------------------
out=$(lab check) && rc=0 || rc=$?
echo "$out" | sed 's/^/    /'
check_that "check passes on a fresh lab" test "$rc" -eq 0 -a -n "$(grep '^check PASS' <<<"$out")"

# --- loss ------------------------------------------------------------------------------------
check_that "loss 2 20 installs a rule" quiet lab loss 2 20 --port "$LOSS_PORT"
out=$(timeout 120 python3 "$PROBE" run --ip "$(command -v ip)" --port "$LOSS_PORT" --count "$COUNT" \
        --min-ratio 0 --sender "${P}1,${addr[1]}" --receiver "${P}2,${addr[2]}" \
        --receiver "${P}3,${addr[3]}" 2>&1) || true
got2=$(awk -v ns="${P}2" '$1 == "RESULT" && $2 == ns { print $4 }' <<<"$out")
got3=$(awk -v ns="${P}3" '$1 == "RESULT" && $2 == ns { print $4 }' <<<"$out")
if [[ $got2 =~ ^[0-9]+$ && $got3 =~ ^[0-9]+$ ]]; then
  loss2=$(( (COUNT - got2) * 1000 / COUNT )) loss3=$(( (COUNT - got3) * 1000 / COUNT ))
  echo "    host 2 received $got2/$COUNT (loss $((loss2 / 10)).$((loss2 % 10)) %)," \
       "host 3 received $got3/$COUNT (loss $((loss3 / 10)).$((loss3 % 10)) %)"
  check_that "loss 20 drops 10..30 % at host 2" test "$loss2" -ge 100 -a "$loss2" -le 300
  check_that "host 3 loses at most 1 % (no rule there)" test "$loss3" -le 10
  # The rule's counter holds exactly the datagrams host 2 missed, plus any of the (at most 30)
  # end-of-run markers it also dropped.
  dropped=$(lab_exec 2 nft list table inet "${P}chaos" | sed -n 's/.*counter packets \([0-9]*\).*/\1/p')
  echo "    host 2 nft counter: $dropped packets dropped"
  check_that "nft counter matches the missing datagrams" \
    test "${dropped:-0}" -ge $((COUNT - got2)) -a "${dropped:-0}" -le $((COUNT - got2 + 30))
else
  echo "$out" | sed 's/^/    /'
  bad "loss measurement produced results"
fi
out=$(lab check) && rc=0 || rc=$?
check_that "a loss rule on another port leaves check passing" test "$rc" -eq 0
check_that "loss 2 0 removes the rule" quiet lab loss 2 0 --port "$LOSS_PORT"
check_that "no nft table is left in host 2" \
  test -z "$(lab_exec 2 nft list tables | grep "${P}chaos" || true)"

check_that "loss 1 100 --out --all-udp installs an egress rule" quiet lab loss 1 100 --out --all-udp
out=$(lab check 2>&1) && rc=0 || rc=$?
echo "$out" | sed 's/^/    /'
check_that "check fails (non-zero, FAIL line) when host 1 sends nothing" \
  test "$rc" -ne 0 -a -n "$(grep '^check FAIL' <<<"$out")"
check_that "loss 1 0 --out removes it" quiet lab loss 1 0 --out
check_that "check passes again" bash -c "timeout 60 '$LAB' check --prefix '$P' >/dev/null"

# --- repair and resize -----------------------------------------------------------------------
ip -n "${P}br" link del "${P}p2"
ip netns del "${P}3"
check_that "check fails on a damaged lab" bash -c "! timeout 60 '$LAB' check --prefix '$P' >/dev/null 2>&1"
check_that "up repairs a damaged lab" quiet lab up 3
check_that "check passes after the repair" bash -c "timeout 60 '$LAB' check --prefix '$P' >/dev/null"
check_that "up 2 shrinks the lab" quiet lab up 2
check_that "shrinking removed ${P}3" bash -c "! ip netns list | grep -qx '${P}3\( .*\)\?'"
check_that "up 3 grows it back and check passes" \
  bash -c "timeout 60 '$LAB' up 3 --prefix '$P' >/dev/null && timeout 60 '$LAB' check --prefix '$P' >/dev/null"

# --- down, twice ----------------------------------------------------------------------------
check_that "down removes the lab" quiet lab down
check_that "down a second time is harmless" quiet lab down
check_that "no namespace of the lab is left" test -z "$(lab_namespaces)"
check_that "no state file is left" test ! -e "/run/hlamesh-lab/$P.lab"
check_that "no nft table of the lab in the machine's namespace" \
  test -z "$(nft list tables | grep "${P}chaos" || true)"
check_that "the machine's own interfaces are still unchanged" test "$(host_links)" = "$host_links_before"

# --- failures --------------------------------------------------------------------------------
out=$(HLM_LAB_TEST_FAIL_AT=host2 timeout 60 "$LAB" up 3 --prefix "$P" 2>&1) && rc=0 || rc=$?
check_that "an up that fails half-way exits non-zero" test "$rc" -ne 0
check_that "a failed up leaves no namespace behind" test -z "$(lab_namespaces)"
check_that "a failed up leaves no state file behind" test ! -e "/run/hlamesh-lab/$P.lab"

out=$(timeout 60 "$LAB" up 2 --prefix abcdefghijk 2>&1) && rc=0 || rc=$?
check_that "a too-long prefix is refused with a clear message" \
  test "$rc" -ne 0 -a -n "$(grep 'too long' <<<"$out")"
check_that "the refused prefix created nothing" \
  test -z "$(ip netns list | grep '^abcdefghijk' || true)"
if command -v setpriv >/dev/null 2>&1; then
  out=$(timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups "$LAB" up 2 --prefix "$P" 2>&1) \
    && rc=0 || rc=$?
  check_that "without root, up refuses and says why" \
    test "$rc" -ne 0 -a -n "$(grep 'must run as root' <<<"$out")"
fi
