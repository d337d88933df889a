#!/usr/bin/env python3
"""Multicast probe for the namespace lab: one sender, several receivers, counted datagrams.

`lab.sh check` and `test_lab.sh` use it to prove that multicast sent from one lab host reaches the
others and to measure how many datagrams a loss rule drops. Three modes:

  run   orchestrates: starts the receivers in their namespaces (`ip netns exec`), waits until each
        has joined the group, starts the sender, then prints one `RESULT ns addr received sent` line
        per receiver. Exit status 0 when every receiver got at least --min-ratio of the datagrams.
  recv  joins the group on one interface address and counts distinct datagrams of one run token.
  send  sends --count numbered datagrams with IP_MULTICAST_IF set and TTL 1, then end markers.

Every wait is bounded: readiness, the sender and the receivers' drain all have deadlines.
Standard library only.
"""

import argparse
import os
import select
import socket
import subprocess
import sys
import time

IP_MULTICAST_ALL = 49  # Linux: deliver only the groups this socket joined.
SO_RCVBUFFORCE = 33  # Linux: root may exceed net.core.rmem_max.
END_MARKERS = 30  # Sent after the data; with 20 % loss all 30 are lost with probability ~1e-21.


def recv(a: argparse.Namespace) -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.bind((a.group, a.port))  # binding to the group filters out other groups on the port
    mreq = socket.inet_aton(a.group) + socket.inet_aton(a.addr)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
    s.setsockopt(socket.IPPROTO_IP, IP_MULTICAST_ALL, 0)
    s.setblocking(False)
    print("ready", flush=True)

    token = a.token.encode()
    seen: set[int] = set()
    deadline = time.monotonic() + a.timeout
    drain_until = None  # set once the orchestrator says the sender has finished
    stdin_open = True
    while True:
        now = time.monotonic()
        limit = deadline if drain_until is None else min(deadline, drain_until)
        if now >= limit:
            break
        fds = [s] + ([sys.stdin] if stdin_open else [])
        ready, _, _ = select.select(fds, [], [], limit - now)
        if sys.stdin in ready:
            line = sys.stdin.readline()
            stdin_open = bool(line)
            drain_until = time.monotonic() + a.drain
        if s in ready:
            ended = False
            while True:
                try:
                    data = s.recv(2048)
                except BlockingIOError:
                    break
                parts = data.split(b" ")
                if len(parts) != 2 or parts[0] != token:
                    continue
                if parts[1] == b"END":
                    ended = True
                    continue
                try:
                    seen.add(int(parts[1]))
                except ValueError:
                    continue
            if ended:
                break
    print(f"received {len(seen)}", flush=True)
    return 0


def send(a: argparse.Namespace) -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(a.addr))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
    s.bind((a.addr, 0))
    dest = (a.group, a.port)
    # Pace at about `rate` datagrams/s so that no queue on the path (veth backlog, socket
    # buffer) overflows: the only losses then are the ones a loss rule makes.
    batch = 20
    pause = batch / a.rate
    refused = 0

    def put(payload: str) -> None:
        nonlocal refused
        try:
            s.sendto(payload.encode(), dest)
        except PermissionError:  # an nftables egress rule dropped it: that is a lost datagram
            refused += 1

    for seq in range(a.count):
        put(f"{a.token} {seq}")
        if seq % batch == batch - 1:
            time.sleep(pause)
    for _ in range(END_MARKERS):
        put(f"{a.token} END")
    if refused:
        print(f"probe: {refused} datagrams dropped on the way out (egress rule)", file=sys.stderr)
    return 0


def run(a: argparse.Namespace) -> int:
    me = os.path.abspath(__file__)
    token = a.token or os.urandom(6).hex()
    common = ["--group", a.group, "--port", str(a.port), "--token", token]
    sender_ns, sender_addr = a.sender.split(",", 1)
    receivers = []
    try:
        for spec in a.receiver:
            ns, addr = spec.split(",", 1)
            cmd = [a.ip, "netns", "exec", ns, sys.executable, me, "recv", *common,
                   "--addr", addr, "--timeout", str(a.timeout), "--drain", str(a.drain)]
            p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            receivers.append((ns, addr, p))
        # Wait (bounded) until every receiver has joined the group.
        deadline = time.monotonic() + a.ready_timeout
        for ns, _, p in receivers:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([p.stdout], [], [], max(left, 0))
            line = p.stdout.readline() if ready else ""
            if line.strip() != "ready":
                print(f"probe: receiver in {ns} did not get ready", file=sys.stderr)
                return 3
        cmd = [a.ip, "netns", "exec", sender_ns, sys.executable, me, "send", *common,
               "--addr", sender_addr, "--count", str(a.count), "--rate", str(a.rate)]
        subprocess.run(cmd, check=True, timeout=a.timeout)
        ok = True
        for ns, addr, p in receivers:
            out, _ = p.communicate("done\n", timeout=a.timeout + a.drain + 5)
            words = out.split()
            got = int(words[-1]) if len(words) >= 2 and words[-2] == "received" else -1
            print(f"RESULT {ns} {addr} {got} {a.count}", flush=True)
            ok = ok and got >= a.min_ratio * a.count
        return 0 if ok else 1
    finally:
        for _, _, p in receivers:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=5)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="mode", required=True)
    for name in ("run", "recv", "send"):
        p = sub.add_parser(name)
        p.add_argument("--group", default="239.255.77.1")
        p.add_argument("--port", type=int, default=47999)
        p.add_argument("--token", default="")
        p.add_argument("--timeout", type=float, default=20.0)
        if name == "recv":
            p.add_argument("--addr", required=True)
            p.add_argument("--drain", type=float, default=1.0)
        if name == "send":
            p.add_argument("--addr", required=True)
            p.add_argument("--count", type=int, default=100)
            p.add_argument("--rate", type=float, default=20000.0)
        if name == "run":
            p.add_argument("--ip", default="ip")
            p.add_argument("--sender", required=True, help="NS,ADDR")
            p.add_argument("--receiver", action="append", required=True, help="NS,ADDR (repeat)")
            p.add_argument("--count", type=int, default=100)
            p.add_argument("--rate", type=float, default=20000.0)
            p.add_argument("--min-ratio", type=float, default=1.0)
            p.add_argument("--drain", type=float, default=1.0)
            p.add_argument("--ready-timeout", type=float, default=10.0)
    a = ap.parse_args()
    return {"run": run, "recv": recv, "send": send}[a.mode](a)


if __name__ == "__main__":
    sys.exit(main())
