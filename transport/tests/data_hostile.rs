//! A member that holds the federation key and sends nonsense: sums over sequence numbers and
//! counts read from the wire do not overflow, and claimed lengths, counts and fragment totals
//! never make the receiver hold more memory than its configuration allows.

use std::time::{Duration, Instant};

use bytes::Bytes;
use hlamesh_transport::data::auth::DatagramAuth;
use hlamesh_transport::data::wire::{self, DatagramKind, DatagramWriter};
use hlamesh_transport::data::{DataConfig, DataReceiver, RecvEvent, Repair, Seq};
use hlamesh_transport::{FederationKey, FederationTag, NodeId};
use serde_bytes::ByteBuf;

const TAG: FederationTag = FederationTag(0xfeed);
const KEY: FederationKey = FederationKey([3; 32]);
const RX: NodeId = NodeId(1);
const ROGUE: NodeId = NodeId(2);
const OTHER: NodeId = NodeId(3);

fn receiver(cfg: DataConfig) -> DataReceiver {
    let mut rx = DataReceiver::new(RX, TAG, &KEY, cfg).expect("config");
    rx.add_sender(ROGUE);
    rx.add_sender(OTHER);
    rx
}

/// A datagram with a valid MAC whose fields are whatever the rogue chose.
fn signed(kind: DatagramKind, seq: u64, build: impl FnOnce(&mut DatagramWriter<'_>)) -> Bytes {
    let auth = DatagramAuth::new(&KEY);
    let mut buf = Vec::new();
    let mut w = DatagramWriter::begin(&mut buf, kind, TAG, ROGUE, seq);
    build(&mut w);
    w.finish(&auth);
    Bytes::from(buf)
}

/// Signed raw bytes: header fields the writer would never produce (e.g. a frame count of 0).
fn signed_raw(kind: u8, frames: u16, seq: u64, body: &[u8]) -> Vec<u8> {
    let mut d = vec![wire::VERSION, kind];
    d.extend_from_slice(&frames.to_le_bytes());
    d.extend_from_slice(&[0; 4]);
    d.extend_from_slice(&TAG.0.to_le_bytes());
    d.extend_from_slice(&ROGUE.0.to_le_bytes());
    d.extend_from_slice(&seq.to_le_bytes());
    d.extend_from_slice(body);
    let mac = DatagramAuth::new(&KEY).mac(&d);
    d.extend_from_slice(&mac);
    d
}

/// Issue 20, finding 6a: `on_repair` added `seq + frames − 1` from the header of every
/// datagram in a repair before checking it; seq = 2^64 − 1 overflowed (a panic in debug
/// builds). Now only datagrams that pass every check count, so a malformed one asks for
/// nothing: the repair below is "cut short" (it fills the budget) but holds nothing usable,
/// and no NACK is scheduled at once because of it.
#[test]
fn repair_holding_a_forged_seq_at_the_top_is_not_acted_on() {
    let cfg = DataConfig {
        max_repair_bytes: 2000,
        ..DataConfig::default()
    };
    let mut rx = receiver(cfg);
    let now = Instant::now();
    // A gap: number 3 arrived, 1 and 2 did not, and were asked for.
    rx.on_datagram(
        now,
        signed(DatagramKind::Reliable, 3, |w| w.push_whole(b"3")),
    );
    rx.on_timeout(now + Duration::from_millis(5));
    let asked = std::iter::from_fn(|| rx.poll_event())
        .filter(|e| matches!(e, RecvEvent::SendNack { .. }))
        .count();
    assert_eq!(asked, 1);
    let later = now + Duration::from_millis(10);
    let forged = signed_raw(1, 0, u64::MAX, &[0xaa; 1400]);
    rx.on_repair(
        later,
        ROGUE,
        Repair {
            first_available: 1,
            datagrams: vec![ByteBuf::from(forged)],
        },
    );
    let stats = rx.stats();
    assert_eq!(stats.dropped.malformed, 1);
    assert_eq!(rx.delivered(ROGUE), Seq(0));
    assert!(
        rx.poll_timeout().is_some_and(|t| t > later),
        "a forged header in a repair scheduled a NACK: {:?}",
        rx.poll_timeout()
    );
}

/// Issue 20, finding 6b: repairs whose `first_available` is near 2^64 overflowed the total of numbers lost.
#[test]
fn lost_counts_from_hostile_first_available_saturate() {
    let mut rx = receiver(DataConfig::default());
    let now = Instant::now();
    for from in [ROGUE, OTHER] {
        rx.on_repair(
            now,
            from,
            Repair {
                first_available: u64::MAX,
                datagrams: Vec::new(),
            },
        );
    }
    let lost: Vec<_> = std::iter::from_fn(|| rx.poll_event())
        .filter_map(|e| match e {
            RecvEvent::FellBehind { lost, .. } => Some(lost),
            _ => None,
        })
        .collect();
    assert_eq!(lost.len(), 2);
    for l in lost {
        assert_eq!((l.first, l.last), (Seq(1), Seq(u64::MAX - 1)));
    }
    let stats = rx.stats();
    assert_eq!(stats.fell_behind, 2);
    assert_eq!(
        stats.fell_behind_seqs,
        u64::MAX,
        "saturates instead of wrapping"
    );
    // The stream moved to the top and still works there.
    assert_eq!(rx.delivered(ROGUE), Seq(u64::MAX - 1));
    rx.on_datagram(
        now,
        signed(DatagramKind::Heartbeat, u64::MAX - 1, |w| {
            w.push_raw(&u64::MAX.to_le_bytes())
        }),
    );
    assert_eq!(rx.stats().dropped.malformed, 0);
}

/// Issue 20, finding 6c: a first heartbeat with best-effort high-water 2^64 − 1.
#[test]
fn heartbeat_with_best_effort_high_at_the_top() {
    let mut rx = receiver(DataConfig::default());
    let now = Instant::now();
    rx.on_datagram(
        now,
        signed(DatagramKind::Heartbeat, 1, |w| {
            w.push_raw(&u64::MAX.to_le_bytes())
        }),
    );
    rx.on_datagram(
        now,
        signed(DatagramKind::BestEffort, u64::MAX, |w| {
            w.push_whole(b"last")
        }),
    );
    let got: Vec<_> = std::iter::from_fn(|| rx.poll_event())
        .filter_map(|e| match e {
            RecvEvent::Deliver { payload, .. } => Some(payload),
            _ => None,
        })
        .collect();
    assert_eq!(got, vec![Bytes::from_static(b"last")]);
    assert_eq!(rx.stats().best_effort_lost, 0);
}

fn small_limits() -> DataConfig {
    DataConfig {
        max_message: 1 << 20,
        reorder_capacity_bytes: 2 << 20,
        reassembly_capacity_bytes: 3 << 20,
        ..DataConfig::default()
    }
}

/// Fragments claiming 4 GiB messages and 2^32 − 1 fragments, best-effort and reliable, from a
/// key holder: refused without allocating (`too_large`), and what is accepted is bounded.
#[test]
fn huge_claimed_totals_and_counts_allocate_nothing() {
    let cfg = small_limits();
    let mut rx = receiver(cfg.clone());
    let now = Instant::now();
    for n in 1..=2000u64 {
        let be = signed(DatagramKind::BestEffort, n, |w| {
            w.push_fragment(0, u32::MAX, 0, u32::MAX, &[1; 1000])
        });
        rx.on_datagram(now, be);
        let rel = signed(DatagramKind::Reliable, n, |w| {
            w.push_fragment(0, u32::MAX, 0, u32::MAX, &[1; 1000])
        });
        rx.on_datagram(now, rel);
        assert_eq!(rx.memory_bytes(), 0, "after {n} datagrams");
    }
    let s = rx.stats();
    assert_eq!(s.too_large, 4000);
    assert_eq!(s.delivered_best_effort + s.delivered_reliable, 0);
}

/// A reliable message in assembly holds at most its claimed length (at most `max_message`),
/// however its buffer grows: it used to round up to the next power of two.
#[test]
fn reliable_assembly_holds_at_most_the_claimed_length() {
    let cfg = small_limits();
    let mut rx = receiver(cfg.clone());
    let now = Instant::now();
    let total = 600_000u32;
    let frag = 60_000u32;
    let count = total.div_ceil(frag);
    for i in 0..count - 1 {
        let d = signed(DatagramKind::Reliable, 1 + u64::from(i), |w| {
            w.push_fragment(i, count, i * frag, total, &vec![5; frag as usize])
        });
        rx.on_datagram(now, d);
        let held = rx.memory_bytes();
        assert!(
            held <= total as usize,
            "assembly holds {held} of a {total}-byte message"
        );
    }
}

/// Found by fuzzing (`fuzz/regressions/receiver/best-effort-lost-count-overflow`): best-effort
/// numbers jumping towards 2^64 count almost 2^64 lost each time; the total overflowed.
#[test]
fn best_effort_lost_count_saturates() {
    let mut rx = receiver(DataConfig::default());
    let now = Instant::now();
    rx.on_datagram(
        now,
        signed(DatagramKind::BestEffort, 1, |w| w.push_whole(b"first")),
    );
    rx.on_datagram(
        now,
        signed(DatagramKind::BestEffort, u64::MAX / 2, |w| {
            w.push_whole(b"x")
        }),
    );
    rx.on_datagram(
        now,
        signed(DatagramKind::Heartbeat, 1, |w| {
            w.push_raw(&u64::MAX.to_le_bytes())
        }),
    );
    let lost = rx.stats().best_effort_lost;
    assert!(lost > u64::MAX / 2, "{lost}");
    // The member comes back (a new window) and jumps again: the total would pass 2^64.
    rx.remove_sender(ROGUE);
    rx.add_sender(ROGUE);
    rx.on_datagram(
        now,
        signed(DatagramKind::BestEffort, 1, |w| w.push_whole(b"again")),
    );
    rx.on_datagram(
        now,
        signed(DatagramKind::BestEffort, u64::MAX / 2, |w| {
            w.push_whole(b"y")
        }),
    );
    assert_eq!(rx.stats().best_effort_lost, u64::MAX);
}
