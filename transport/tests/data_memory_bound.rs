//! A key holder floods a receiver with unfinished messages of the largest allowed size and with
//! reliable frames far ahead of the stream: the receiver holds at most its configured limits,
//! by its own count and by the process's resident memory. Alone in its test binary, since it
//! measures the whole process.

use std::time::Instant;

use bytes::Bytes;
use hlamesh_transport::data::auth::DatagramAuth;
use hlamesh_transport::data::wire::{DatagramKind, DatagramWriter};
use hlamesh_transport::data::{DataConfig, DataReceiver};
use hlamesh_transport::{FederationKey, FederationTag, NodeId};

const TAG: FederationTag = FederationTag(0xfeed);
const KEY: FederationKey = FederationKey([3; 32]);
const ROGUE: NodeId = NodeId(2);

fn receiver(cfg: DataConfig) -> DataReceiver {
    let mut rx = DataReceiver::new(NodeId(1), TAG, &KEY, cfg).expect("config");
    rx.add_sender(ROGUE);
    rx.add_sender(NodeId(3));
    rx
}

fn signed(kind: DatagramKind, seq: u64, build: impl FnOnce(&mut DatagramWriter<'_>)) -> Bytes {
    let auth = DatagramAuth::new(&KEY);
    let mut buf = Vec::new();
    let mut w = DatagramWriter::begin(&mut buf, kind, TAG, ROGUE, seq);
    build(&mut w);
    w.finish(&auth);
    Bytes::from(buf)
}

fn small_limits() -> DataConfig {
    DataConfig {
        max_message: 1 << 20,
        reorder_capacity_bytes: 2 << 20,
        reassembly_capacity_bytes: 3 << 20,
        ..DataConfig::default()
    }
}

/// Reorder and reassembly capacities and one reliable message in assembly per member.
fn limit(cfg: &DataConfig, members: usize) -> usize {
    cfg.reorder_capacity_bytes + cfg.reassembly_capacity_bytes + members * cfg.max_message
}

/// A member that starts as many messages as it can, each claiming the largest allowed size,
/// and never finishes them; plus reliable frames far ahead of the stream. The receiver holds
/// at most its configured limits, both by its own count and by the process's resident memory.
#[test]
fn a_flood_of_unfinished_messages_stays_within_the_configured_limits() {
    let cfg = small_limits();
    let mut rx = receiver(cfg.clone());
    let now = Instant::now();
    let rss_before = resident_kib();
    let mut peak = 0;
    let max = u32::try_from(cfg.max_message).expect("fits");
    for n in 1..=20_000u64 {
        // Best-effort: a new message of max_message bytes each time, one fragment of it sent.
        let be = signed(DatagramKind::BestEffort, n * 1000, |w| {
            w.push_fragment(0, max / 1000, 0, max, &[7; 1000])
        });
        rx.on_datagram(now, be);
        // Reliable, far ahead of the stream (1 never arrives): held for reordering.
        let rel = signed(DatagramKind::Reliable, 1 + n, |w| w.push_whole(&[9; 1400]));
        rx.on_datagram(now, rel);
        peak = peak.max(rx.memory_bytes());
    }
    let s = rx.stats();
    assert!(
        s.reassembly_evicted > 0,
        "the best-effort flood reached the capacity"
    );
    assert!(
        s.reorder_overflow > 0,
        "the reliable flood reached the capacity"
    );
    assert!(peak <= limit(&cfg, 2), "held {peak} bytes");
    assert!(
        peak >= cfg.reassembly_capacity_bytes / 2,
        "the flood did fill memory ({peak})"
    );
    // What the process really holds: the receiver's limits and some slack for the
    // allocator, far below the 20 GB the claims add up to.
    if let (Some(before), Some(after)) = (rss_before, resident_kib()) {
        let grown = after.saturating_sub(before) * 1024;
        let bound = limit(&cfg, 2) + (16 << 20);
        assert!(
            grown <= bound,
            "resident memory grew {grown} bytes, bound {bound}"
        );
    }
}

/// Peak resident memory of this process (VmHWM), if the platform says.
fn resident_kib() -> Option<usize> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
