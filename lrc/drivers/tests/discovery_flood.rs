//! Forged discovery beacons against a running federation of separate `rti-probe` processes, on
//! loopback multicast (TTL 0): the test process has no secret and floods the discovery group with
//! beacons under another key, each with a new node id, naming a UDP sink the test owns as its
//! QUIC address, listing and claiming the federation a member is about to create.
//!
//! What must hold (the bound is documented in deploy/README.md, security section):
//! - no member's resident memory grows by more than [`RSS_GROWTH_BOUND_KB`] during and after the
//!   flood (before beacons were authenticated, 11,194 such beacons took a member from 11 MB to
//!   480 MB);
//! - no member sends a single datagram to the address the forged beacons name;
//! - `create` of a new federation whose name the forged beacons list and claim succeeds;
//! - the running stream is unaffected: the subscriber's reflections continue, none missing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::{Ipv4Addr, SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use common::lab::{Lab, Ports, Probe, args, base_args, serial};
use hlamesh_transport::NodeId;
use hlamesh_transport::beacon_auth::BeaconAuth;
use hlamesh_transport::discovery::{Beacon, Claim};

/// Largest growth of a member's VmRSS allowed over the whole flood, kB.
const RSS_GROWTH_BOUND_KB: u64 = 32 * 1024;
/// Forged beacons sent (at most; the flood also stops after `FLOOD_TIME`).
const FLOOD_BEACONS: u64 = 40_000;
const FLOOD_TIME: Duration = Duration::from_secs(8);

fn moving_object_fom() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fed-examples/foms/MovingObject.xml"
    )
    .to_string()
}

fn probe(lab: &Lab, ports: &Ports, fed: &str, extra: &[&str], name: &str) -> Probe {
    let mut a = base_args(lab, 1, ports, fed);
    a.extend(args(&["--name", name, "--fom", &moving_object_fom()]));
    a.extend(args(extra));
    Probe::spawn(lab, 1, env!("CARGO_BIN_EXE_rti-probe"), &a, name)
}

fn rss_kb(pid: u32) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    s.lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

/// xorshift64*: distinct forged node ids without a dependency.
struct Ids(u64);
impl Ids {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Sends forged beacons naming `sink` until `stop`, the count, or the time is reached; returns
/// how many were sent. Half carry a MAC under another secret, half random bytes where the MAC
/// belongs; every one has a new node id, lists `fed` and claims it one microsecond after the
/// epoch (earlier than any real claim).
fn flood(ports: &Ports, sink: SocketAddr, fed: &str, stop: &AtomicBool) -> u64 {
    let sock = hlamesh_transport::sockets::multicast_sender(Ipv4Addr::LOCALHOST, 0).expect("sock");
    let dest = SocketAddr::from((ports.group, ports.discovery));
    let other = BeaconAuth::development(b"not the federation's secret");
    let mut ids = Ids(0x9e37_79b9_7f4a_7c15 ^ u64::from(std::process::id()));
    let start = Instant::now();
    let mut sent = 0;
    while sent < FLOOD_BEACONS && start.elapsed() < FLOOD_TIME && !stop.load(Ordering::Relaxed) {
        let b = Beacon {
            node: NodeId(ids.next()),
            quic_addrs: vec![sink],
            federations: vec![fed.to_string()],
            cert_fingerprint: [0; 32],
            claims: vec![Claim {
                name: fed.to_string(),
                claim_time_us: 1,
            }],
            seq: 1,
            notes: Vec::new(),
            acks: Vec::new(),
        };
        let mut bytes = b.seal(&other);
        if sent % 2 == 1 {
            let n = bytes.len();
            let noise = ids.next().to_le_bytes();
            for (i, x) in bytes[n - 32..].iter_mut().enumerate() {
                *x = noise[i % 8];
            }
        }
        if sock.send_to(&bytes, dest).is_ok() {
            sent += 1;
        }
        if sent % 64 == 0 {
            // Leave the 2 CPUs to the members now and then: the test is about what a flood
            // does to them, not about starving them of CPU.
            std::thread::yield_now();
        }
    }
    sent
}

#[test]
fn forged_beacon_flood_costs_members_no_memory_no_dials_and_no_federation() {
    let _g = serial();
    // The forger must share the members' loopback: no namespaces here.
    let lab = Lab::Loopback;
    let ports = Ports::unique();
    let pid = std::process::id();
    let running = format!("Flooded{pid}");
    let fresh = format!("FreshFed{pid}");

    // The UDP sink whose address the forged beacons name.
    let sink = UdpSocket::bind("127.0.0.1:0").expect("sink");
    sink.set_read_timeout(Some(Duration::from_millis(50)))
        .expect("timeout");
    let sink_addr = sink.local_addr().expect("sink addr");
    let received = Arc::new(AtomicU64::new(0));
    let sink_done = Arc::new(AtomicBool::new(false));
    let sink_thread = {
        let (received, done) = (received.clone(), sink_done.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 2048];
            while !done.load(Ordering::Relaxed) {
                if sink.recv_from(&mut buf).is_ok() {
                    received.fetch_add(1, Ordering::Relaxed);
                }
            }
        })
    };

    let publisher = probe(
        &lab,
        &ports,
        &running,
        &[
            "--create",
            "--publish",
            "Vehicle:Position",
            "--objects",
            "1",
            "--forever",
            "--interval-ms",
            "10",
        ],
        "pub",
    );
    publisher.wait_event("declared", Duration::from_secs(20));
    let subscriber = probe(
        &lab,
        &ports,
        &running,
        &[
            "--subscribe",
            "Vehicle:Position",
            "--hold-ms",
            "60000",
            "--join-retry-ms",
            "5000",
        ],
        "sub",
    );
    subscriber.wait_event("reflect", Duration::from_secs(20));
    let members = [
        ("pub", publisher.child.id()),
        ("sub", subscriber.child.id()),
    ];
    // Settle a moment so that the start-up allocations are behind us.
    std::thread::sleep(Duration::from_millis(500));
    let before: Vec<u64> = members.iter().map(|(_, p)| rss_kb(*p)).collect();
    while subscriber.lines.try_recv().is_ok() {}

    // The flood, and during it a create of a federation the forged beacons list and claim.
    let stop = Arc::new(AtomicBool::new(false));
    let flood_thread = {
        let (stop, fresh) = (stop.clone(), fresh.clone());
        let ports = Ports {
            discovery: ports.discovery,
            data: ports.data,
            raw: ports.raw,
            group: ports.group,
        };
        std::thread::spawn(move || flood(&ports, sink_addr, &fresh, &stop))
    };
    let flood_start = Instant::now();
    std::thread::sleep(Duration::from_secs(1));
    let creator = probe(
        &lab,
        &ports,
        &fresh,
        &["--create-only", "--hold-ms", "500"],
        "creator",
    );
    let outcome = creator
        .lines
        .recv_timeout(Duration::from_secs(20))
        .expect("create outcome");
    let mut peak: Vec<u64> = before.clone();
    let sample = |peak: &mut Vec<u64>| {
        for (i, (_, p)) in members.iter().enumerate() {
            peak[i] = peak[i].max(rss_kb(*p));
        }
    };
    while !flood_thread.is_finished() {
        sample(&mut peak);
        std::thread::sleep(Duration::from_millis(200));
    }
    let sent = flood_thread.join().expect("flood");
    let flood_end = Instant::now();
    // Late effects (a dial, a back-off retry) would show within a few seconds.
    while flood_end.elapsed() < Duration::from_secs(3) {
        sample(&mut peak);
        std::thread::sleep(Duration::from_millis(200));
    }
    sink_done.store(true, Ordering::Relaxed);
    sink_thread.join().expect("sink");

    // The stream during the flood.
    let mut seqs = Vec::new();
    while let Ok(l) = subscriber.lines.try_recv() {
        if l["event"] == "reflect"
            && let Some(s) = l["seq"].as_u64()
        {
            seqs.push(s);
        }
    }
    for (i, (name, _)) in members.iter().enumerate() {
        eprintln!(
            "{name}: VmRSS before {} kB, peak {} kB during and 3 s after {sent} forged beacons",
            before[i], peak[i]
        );
    }
    eprintln!(
        "sink received {} datagrams; create: {outcome}; {} reflections during the flood",
        received.load(Ordering::Relaxed),
        seqs.len()
    );

    assert!(sent >= 10_000, "the flood sent only {sent} beacons");
    assert_eq!(
        outcome["event"], "created",
        "forged listings and claims must not stop a create: {outcome}"
    );
    assert_eq!(
        received.load(Ordering::Relaxed),
        0,
        "a member sent datagrams to the address named in forged beacons"
    );
    for (i, (name, _)) in members.iter().enumerate() {
        assert!(
            peak[i] <= before[i] + RSS_GROWTH_BOUND_KB,
            "{name}: VmRSS grew from {} kB to {} kB",
            before[i],
            peak[i]
        );
    }
    // About 100 updates per second for the flood's seconds: allow a loaded machine its slowness,
    // but not a stalled stream or a lost update.
    let window = flood_end.duration_since(flood_start) + Duration::from_secs(3);
    assert!(
        seqs.len() as f64 >= window.as_secs_f64() * 10.0,
        "the stream stalled during the flood: {} reflections in {window:?}",
        seqs.len()
    );
    for w in seqs.windows(2) {
        assert_eq!(w[1], w[0] + 1, "a reflection went missing: {w:?}");
    }
    stop.store(true, Ordering::Relaxed);
}
