//! Sequence tracking, NACK and repair, heartbeats, late join, falling behind, batching and the
//! causal gate, driven step by step with an explicit clock.

use std::time::{Duration, Instant};

use bytes::Bytes;
use hlamesh_transport::data::{
    CausalGate, DataConfig, DataReceiver, DataSender, Nack, RecvEvent, Reliability, Seq, SeqRange,
};
use hlamesh_transport::{FederationKey, FederationTag, NodeId};

const TAG: FederationTag = FederationTag(5);
const KEY: FederationKey = FederationKey([1; 32]);
const TX: NodeId = NodeId(1);
const RX: NodeId = NodeId(2);

struct Rig {
    t0: Instant,
    tx: DataSender,
    rx: DataReceiver,
    cfg: DataConfig,
}

impl Rig {
    fn new(cfg: DataConfig) -> Self {
        let tx = DataSender::new(TX, TAG, &KEY, cfg.clone()).expect("cfg");
        let mut rx = DataReceiver::new(RX, TAG, &KEY, cfg.clone()).expect("cfg");
        rx.add_sender(TX);
        Rig {
            t0: Instant::now(),
            tx,
            rx,
            cfg,
        }
    }

    fn at(&self, ms: u64) -> Instant {
        self.t0 + Duration::from_millis(ms)
    }

    /// Send reliable messages `payloads`, returning each message's datagrams.
    fn send(&mut self, ms: u64, rel: Reliability, payload: &[u8]) -> Vec<Bytes> {
        let now = self.at(ms);
        let mut out = Vec::new();
        self.tx
            .send(now, rel, payload, &mut |d: &[u8]| {
                out.push(Bytes::copy_from_slice(d))
            })
            .expect("send");
        out
    }

    fn heartbeat(&mut self, ms: u64) -> Bytes {
        let mut out = Vec::new();
        self.tx.heartbeat(self.at(ms), &mut |d: &[u8]| {
            out.push(Bytes::copy_from_slice(d))
        });
        out.remove(0)
    }

    fn events(&mut self) -> Vec<RecvEvent> {
        std::iter::from_fn(|| self.rx.poll_event()).collect()
    }

    fn delivered_payloads(&mut self) -> Vec<Vec<u8>> {
        self.events()
            .into_iter()
            .filter_map(|e| match e {
                RecvEvent::Deliver { payload, .. } => Some(payload.to_vec()),
                _ => None,
            })
            .collect()
    }

    /// Fire receiver timers at `ms` and return the NACKs it asks for.
    fn nacks_at(&mut self, ms: u64) -> Vec<Nack> {
        self.rx.on_timeout(self.at(ms));
        self.events()
            .into_iter()
            .filter_map(|e| match e {
                RecvEvent::SendNack { to, nack } => {
                    assert_eq!(to, TX);
                    Some(nack)
                }
                _ => None,
            })
            .collect()
    }

    /// Answer a NACK the way the shell would, over a perfect control channel.
    fn repair(&mut self, ms: u64, nack: &Nack) {
        let r = self.tx.on_nack(self.at(ms), RX, nack);
        self.rx.on_repair(self.at(ms), TX, r);
    }
}

fn msg(i: u32) -> Vec<u8> {
    format!("message {i}").into_bytes()
}

#[test]
fn in_order_exactly_once_despite_reorder_and_duplicates() {
    let mut r = Rig::new(DataConfig::default());
    let ds: Vec<Bytes> = (0..10)
        .flat_map(|i| r.send(0, Reliability::Reliable, &msg(i)))
        .collect();
    let order = [3, 1, 0, 0, 2, 9, 5, 4, 3, 8, 7, 6, 9, 1];
    for i in order {
        r.rx.on_datagram(r.at(0), ds[i].clone());
    }
    let got = r.delivered_payloads();
    assert_eq!(got, (0..10).map(msg).collect::<Vec<_>>());
    assert_eq!(r.rx.delivered(TX), Seq(10));
    assert_eq!(r.rx.stats().duplicate_frames, 4);
    assert_eq!(r.rx.memory_bytes(), 0);
}

#[test]
fn gap_is_nacked_after_delay_retried_and_repaired() {
    let mut r = Rig::new(DataConfig::default());
    let ds: Vec<Bytes> = (0..8)
        .flat_map(|i| r.send(0, Reliability::Reliable, &msg(i)))
        .collect();
    // Lose 2, 3 and 6.
    for (i, d) in ds.iter().enumerate() {
        if ![2, 3, 6].contains(&i) {
            r.rx.on_datagram(r.at(0), d.clone());
        }
    }
    assert_eq!(r.delivered_payloads(), vec![msg(0), msg(1)]);
    assert_eq!(r.rx.stats().gaps, 2, "3-4 and 7 are two gaps");
    // Not before nack_delay (reordering slack).
    assert_eq!(r.rx.poll_timeout(), Some(r.at(0) + r.cfg.nack_delay));
    assert!(r.nacks_at(0).is_empty());
    let nacks = r.nacks_at(1);
    assert_eq!(
        nacks,
        vec![Nack {
            ranges: vec![(3, 4), (7, 7)]
        }]
    );
    // No answer: retried after nack_retry, not before.
    let retry = r.cfg.nack_retry.as_millis() as u64;
    assert!(r.nacks_at(retry / 2).is_empty());
    let again = r.nacks_at(1 + retry);
    assert_eq!(again, nacks);
    r.repair(1 + retry, &again[0]);
    assert_eq!(
        r.delivered_payloads(),
        vec![msg(2), msg(3), msg(4), msg(5), msg(6), msg(7)]
    );
    assert_eq!(r.rx.poll_timeout(), None);
    assert_eq!(r.rx.delivered(TX), r.tx.high_water());
}

#[test]
fn heartbeat_reveals_lost_tail() {
    let mut r = Rig::new(DataConfig::default());
    let first = r.send(0, Reliability::Reliable, &msg(0));
    let _lost_tail = r.send(0, Reliability::Reliable, &msg(1));
    r.rx.on_datagram(r.at(0), first[0].clone());
    r.delivered_payloads();
    assert_eq!(r.rx.poll_timeout(), None, "nothing known to be missing yet");
    // The sender schedules a tail heartbeat shortly after the burst.
    assert_eq!(
        r.tx.poll_timeout(),
        Some(r.at(0) + r.cfg.tail_heartbeat_delay)
    );
    let hb = r.heartbeat(2);
    r.rx.on_datagram(r.at(2), hb);
    let n = r.nacks_at(3);
    assert_eq!(
        n,
        vec![Nack {
            ranges: vec![(2, 2)]
        }]
    );
    r.repair(3, &n[0]);
    assert_eq!(r.delivered_payloads(), vec![msg(1)]);
}

#[test]
fn sender_timer_emits_periodic_heartbeats() {
    let mut r = Rig::new(DataConfig::default());
    assert_eq!(r.tx.poll_timeout(), None, "silent before the first send");
    r.send(0, Reliability::Reliable, b"x");
    let mut beats = 0;
    let mut now = r.at(0);
    while now < r.at(1000) {
        let Some(t) = r.tx.poll_timeout() else { break };
        now = t;
        r.tx.on_timeout(now, &mut |_: &[u8]| beats += 1);
    }
    // One tail heartbeat, then one per 100 ms.
    assert!((10..=12).contains(&beats), "{beats}");
}

#[test]
fn fragmented_reliable_message_with_lost_fragments_is_repaired() {
    let mut r = Rig::new(DataConfig::default());
    let big: Vec<u8> = (0..100_000u32).map(|i| (i * 7) as u8).collect();
    let ds = r.send(0, Reliability::Reliable, &big);
    let n = ds.len() as u64;
    assert!(n > 60);
    for (i, d) in ds.iter().enumerate().rev() {
        if i % 10 != 3 {
            r.rx.on_datagram(r.at(0), d.clone());
        }
    }
    assert!(r.delivered_payloads().is_empty());
    let nack = r.nacks_at(1).remove(0);
    assert_eq!(
        nack.ranges.len(),
        (0..ds.len()).filter(|i| i % 10 == 3).count()
    );
    r.repair(1, &nack);
    assert_eq!(r.delivered_payloads(), vec![big]);
    assert_eq!(r.rx.delivered(TX), Seq(n));
    assert_eq!(r.rx.memory_bytes(), 0);
}

#[test]
fn large_loss_is_repaired_in_budget_sized_rounds_without_waiting() {
    let cfg = DataConfig {
        max_repair_bytes: 10 * 1472,
        ..DataConfig::default()
    };
    let mut r = Rig::new(cfg);
    let big = vec![0xabu8; 200_000];
    let ds = r.send(0, Reliability::Reliable, &big);
    let tail = r.send(0, Reliability::Reliable, b"tail");
    r.rx.on_datagram(r.at(0), tail[0].clone());
    let mut rounds = 0;
    // The clock stays at 1 ms: every round after the first is due at once.
    while r.rx.delivered(TX) < r.tx.high_water() && rounds < 100 {
        for n in r.nacks_at(1) {
            r.repair(1, &n);
        }
        rounds += 1;
    }
    assert_eq!(rounds, ds.len().div_ceil(10));
    assert_eq!(r.delivered_payloads(), vec![big, b"tail".to_vec()]);
}

#[test]
fn best_effort_is_at_most_once_and_loss_is_counted() {
    let mut r = Rig::new(DataConfig::default());
    let mut ds = Vec::new();
    for i in 0..100 {
        ds.extend(r.send(0, Reliability::BestEffort, &msg(i)));
    }
    for (i, d) in ds.iter().enumerate() {
        if i % 10 != 0 {
            r.rx.on_datagram(r.at(0), d.clone());
            r.rx.on_datagram(r.at(0), d.clone());
        }
    }
    let got = r.delivered_payloads();
    assert_eq!(got.len(), 90);
    // Loss is counted once a number leaves the 1024-wide window; nothing has left yet.
    let s = r.rx.stats();
    assert_eq!(s.duplicate_best_effort, 90);
    assert_eq!(s.best_effort_lost, 0);
    // 1100 more are all lost; the heartbeat announcing 1200 moves the window to 177..=1200.
    // Number 1 is not lost (the receiver first heard the sender at 2); 11, 21 .. 91 (9
    // numbers) and 101..=176 (76) are.
    for i in 0..1100 {
        r.send(1, Reliability::BestEffort, &msg(i));
    }
    let hb = r.heartbeat(50);
    r.rx.on_datagram(r.at(50), hb);
    assert_eq!(r.rx.stats().best_effort_lost, 85);
    assert_eq!(
        r.rx.poll_timeout(),
        None,
        "best-effort loss is never NACKed"
    );
}

#[test]
fn incomplete_best_effort_message_times_out_and_is_counted() {
    let mut r = Rig::new(DataConfig::default());
    let ds = r.send(0, Reliability::BestEffort, &[9u8; 5000]);
    for d in &ds[1..] {
        r.rx.on_datagram(r.at(0), d.clone());
    }
    assert!(r.rx.memory_bytes() >= 5000);
    assert_eq!(
        r.rx.poll_timeout(),
        Some(r.at(0) + r.cfg.reassembly_timeout)
    );
    r.rx.on_timeout(r.at(2000));
    assert!(r.delivered_payloads().is_empty());
    assert_eq!(r.rx.stats().reassembly_timeouts, 1);
    assert_eq!(r.rx.memory_bytes(), 0);
}

#[test]
fn fell_behind_is_reported_and_the_stream_resumes() {
    let cfg = DataConfig {
        retransmit_capacity_msgs: 4,
        ..DataConfig::default()
    };
    let mut r = Rig::new(cfg);
    let ds: Vec<Bytes> = (0..10)
        .flat_map(|i| r.send(0, Reliability::Reliable, &msg(i)))
        .collect();
    // The receiver got 1 and 9..10; 2..8 are lost and only 7..10 are still buffered.
    r.rx.on_datagram(r.at(0), ds[0].clone());
    r.rx.on_datagram(r.at(0), ds[8].clone());
    r.rx.on_datagram(r.at(0), ds[9].clone());
    assert_eq!(r.delivered_payloads(), vec![msg(0)]);
    let nack = r.nacks_at(1).remove(0);
    assert_eq!(nack.ranges, vec![(2, 8)]);
    r.repair(1, &nack);
    let ev = r.events();
    assert_eq!(
        ev[0],
        RecvEvent::FellBehind {
            from: TX,
            lost: SeqRange {
                first: Seq(2),
                last: Seq(6)
            }
        }
    );
    let delivered: Vec<Vec<u8>> = ev[1..]
        .iter()
        .filter_map(|e| match e {
            RecvEvent::Deliver { payload, .. } => Some(payload.to_vec()),
            _ => None,
        })
        .collect();
    assert_eq!(delivered, (6..10).map(msg).collect::<Vec<_>>());
    assert_eq!(r.rx.delivered(TX), Seq(10));
    assert_eq!(r.rx.stats().fell_behind_seqs, 5);
    assert_eq!(r.tx.stats().too_old, 1);
}

#[test]
fn late_joiner_starts_at_transferred_sequence() {
    let mut r = Rig::new(DataConfig::default());
    let ds: Vec<Bytes> = (0..6)
        .flat_map(|i| r.send(0, Reliability::Reliable, &msg(i)))
        .collect();
    let mut late = DataReceiver::new(NodeId(3), TAG, &KEY, DataConfig::default()).expect("cfg");
    // State transfer covered 1..=3; the stream starts at 4. Older datagrams are discarded.
    late.start_sender_at(TX, Seq(4));
    for d in ds.iter().rev() {
        late.on_datagram(r.at(0), d.clone());
    }
    let got: Vec<Vec<u8>> = std::iter::from_fn(|| late.poll_event())
        .filter_map(|e| match e {
            RecvEvent::Deliver { payload, .. } => Some(payload.to_vec()),
            _ => None,
        })
        .collect();
    assert_eq!(got, vec![msg(3), msg(4), msg(5)]);
    assert_eq!(late.stats().duplicate_frames, 3);
    // Moving the start backwards is ignored.
    late.start_sender_at(TX, Seq(2));
    assert_eq!(late.delivered(TX), Seq(6));
}

#[test]
fn unknown_start_nacks_from_one() {
    let mut r = Rig::new(DataConfig::default());
    let ds: Vec<Bytes> = (0..5)
        .flat_map(|i| r.send(0, Reliability::Reliable, &msg(i)))
        .collect();
    r.rx.on_datagram(r.at(0), ds[4].clone());
    assert_eq!(
        r.nacks_at(1),
        vec![Nack {
            ranges: vec![(1, 4)]
        }]
    );
}

#[test]
fn start_inside_a_fragmented_message_skips_its_tail() {
    let mut r = Rig::new(DataConfig::default());
    let big = r.send(0, Reliability::Reliable, &[5u8; 4000]); // seqs 1..=3
    let small = r.send(0, Reliability::Reliable, b"after");
    let mut late = DataReceiver::new(NodeId(3), TAG, &KEY, DataConfig::default()).expect("cfg");
    late.start_sender_at(TX, Seq(2));
    for d in big.iter().chain(&small) {
        late.on_datagram(r.at(0), d.clone());
    }
    let got: Vec<Vec<u8>> = std::iter::from_fn(|| late.poll_event())
        .filter_map(|e| match e {
            RecvEvent::Deliver { payload, .. } => Some(payload.to_vec()),
            _ => None,
        })
        .collect();
    assert_eq!(got, vec![b"after".to_vec()]);
    assert_eq!(late.stats().orphan_fragments, 2);
}

#[test]
fn reorder_buffer_is_bounded_and_overflow_is_repaired() {
    let cfg = DataConfig {
        reorder_capacity_bytes: 2_000,
        ..DataConfig::default()
    };
    let mut r = Rig::new(cfg);
    let ds: Vec<Bytes> = (0..40)
        .flat_map(|i| r.send(0, Reliability::Reliable, &[i as u8; 100]))
        .collect();
    for d in &ds[1..] {
        r.rx.on_datagram(r.at(0), d.clone());
        assert!(r.rx.memory_bytes() <= 2_000);
    }
    assert!(r.rx.stats().reorder_overflow > 0);
    let mut ms = 1;
    let mut delivered = 0;
    while r.rx.delivered(TX) < Seq(40) && ms < 1000 {
        for n in r.nacks_at(ms) {
            r.repair(ms, &n);
        }
        delivered += r.delivered_payloads().len();
        ms += 21;
    }
    assert_eq!(delivered, 40);
}

#[test]
fn batching_packs_until_full_and_flush_sends_the_rest() {
    let mut r = Rig::new(DataConfig::default());
    let now = r.at(0);
    let mut out: Vec<Bytes> = Vec::new();
    let mut sink = |d: &[u8]| out.push(Bytes::copy_from_slice(d));
    for i in 0..40u32 {
        let s =
            r.tx.push(now, Reliability::Reliable, &[i as u8; 100], &mut sink)
                .expect("push");
        assert_eq!(s, Some(Seq(u64::from(i) + 1)));
    }
    // 104 bytes per frame, 1472 - 48 bytes of room: 13 frames per datagram.
    assert!(r.tx.pending_bytes() > 0);
    r.tx.flush(now, &mut sink);
    assert_eq!(out.len(), 4);
    assert!(out.iter().all(|d| d.len() <= 1472));
    // Lose the second datagram; the NACK names its 13 numbers and one repair datagram fixes it.
    for (i, d) in out.iter().enumerate() {
        if i != 1 {
            r.rx.on_datagram(now, d.clone());
        }
    }
    assert_eq!(r.delivered_payloads().len(), 13);
    let nack = r.nacks_at(1).remove(0);
    assert_eq!(nack.ranges, vec![(14, 26)]);
    let rep = r.tx.on_nack(r.at(1), RX, &nack);
    assert_eq!(rep.datagrams.len(), 1);
    r.rx.on_repair(r.at(1), TX, rep);
    assert_eq!(r.delivered_payloads().len(), 27);
    assert_eq!(r.rx.delivered(TX), Seq(40));
}

#[test]
fn pending_batch_leaves_by_itself_after_max_batch_delay() {
    let mut r = Rig::new(DataConfig::default());
    let out = std::cell::RefCell::new(Vec::<Bytes>::new());
    let mut sink = |d: &[u8]| out.borrow_mut().push(Bytes::copy_from_slice(d));
    r.tx.push(r.at(5), Reliability::Reliable, b"a", &mut sink)
        .expect("push");
    r.tx.push(r.at(5), Reliability::Reliable, b"b", &mut sink)
        .expect("push");
    assert_eq!(r.tx.poll_timeout(), Some(r.at(5) + r.cfg.max_batch_delay));
    r.tx.on_timeout(r.at(5), &mut sink);
    assert!(out.borrow().is_empty(), "not before the delay");
    r.tx.on_timeout(r.at(6), &mut sink);
    assert_eq!(out.borrow().len(), 1);
    assert_eq!(r.tx.pending_bytes(), 0);
    // Then only heartbeats are scheduled: the tail heartbeat after the flush.
    assert_eq!(
        r.tx.poll_timeout(),
        Some(r.at(6) + r.cfg.tail_heartbeat_delay)
    );
    let d = out.borrow()[0].clone();
    r.rx.on_datagram(r.at(6), d);
    assert_eq!(r.delivered_payloads(), vec![b"a".to_vec(), b"b".to_vec()]);
}

#[test]
fn send_joins_a_pending_datagram_of_its_reliability() {
    let mut r = Rig::new(DataConfig::default());
    let now = r.at(0);
    let out = std::cell::RefCell::new(Vec::<Bytes>::new());
    let mut sink = |d: &[u8]| out.borrow_mut().push(Bytes::copy_from_slice(d));
    // A held message, then the next one sent at once: one datagram, in order, numbers 1 and 2.
    let held =
        r.tx.push(now, Reliability::Reliable, b"update", &mut sink)
            .expect("push");
    let next =
        r.tx.send(now, Reliability::Reliable, b"time", &mut sink)
            .expect("send");
    assert_eq!((held, next), (Some(Seq(1)), Some(Seq(2))));
    assert_eq!(out.borrow().len(), 1, "both messages in one datagram");
    assert_eq!(r.tx.pending_bytes(), 0);
    assert_eq!(r.tx.poll_timeout(), Some(now + r.cfg.tail_heartbeat_delay));
    // Another reliability does not join: the pending datagram leaves first, alone.
    r.tx.push(now, Reliability::Reliable, b"update 2", &mut sink)
        .expect("push");
    r.tx.send(now, Reliability::BestEffort, b"ping", &mut sink)
        .expect("send");
    // Nor does a message too large for the room left: two datagrams.
    r.tx.push(now, Reliability::Reliable, b"update 3", &mut sink)
        .expect("push");
    let big = vec![7u8; r.cfg.max_whole_payload()];
    r.tx.send(now, Reliability::Reliable, &big, &mut sink)
        .expect("send");
    assert_eq!(out.borrow().len(), 5);
    for d in out.borrow().iter() {
        r.rx.on_datagram(now, d.clone());
    }
    assert_eq!(
        r.delivered_payloads(),
        vec![
            b"update".to_vec(),
            b"time".to_vec(),
            b"update 2".to_vec(),
            b"ping".to_vec(),
            b"update 3".to_vec(),
            big
        ]
    );
    // The joined datagram is repaired as one: a NACK of number 2 brings both frames back, and
    // the receiver, which has them, delivers nothing twice.
    let rep = r.tx.on_nack(
        now,
        RX,
        &Nack {
            ranges: vec![(2, 2)],
        },
    );
    assert_eq!(rep.datagrams.len(), 1);
    r.rx.on_repair(now, TX, rep);
    assert!(r.delivered_payloads().is_empty());
}

#[test]
fn batching_switches_datagram_on_reliability_change() {
    let mut r = Rig::new(DataConfig::default());
    let now = r.at(0);
    let mut out: Vec<Bytes> = Vec::new();
    let mut sink = |d: &[u8]| out.push(Bytes::copy_from_slice(d));
    r.tx.push(now, Reliability::Reliable, b"r1", &mut sink)
        .expect("push");
    r.tx.push(now, Reliability::BestEffort, b"b1", &mut sink)
        .expect("push");
    r.tx.push(now, Reliability::BestEffort, b"b2", &mut sink)
        .expect("push");
    r.tx.push(now, Reliability::Reliable, b"r2", &mut sink)
        .expect("push");
    r.tx.flush(now, &mut sink);
    assert_eq!(out.len(), 3);
    for d in &out {
        r.rx.on_datagram(now, d.clone());
    }
    assert_eq!(
        r.delivered_payloads(),
        vec![
            b"r1".to_vec(),
            b"b1".to_vec(),
            b"b2".to_vec(),
            b"r2".to_vec()
        ]
    );
    // A repaired reliable datagram never carries best-effort frames again.
    let rep = r.tx.on_nack(
        now,
        RX,
        &Nack {
            ranges: vec![(1, 2)],
        },
    );
    assert_eq!(rep.datagrams.len(), 2);
    r.rx.on_repair(now, TX, rep);
    assert!(r.delivered_payloads().is_empty());
}

#[test]
fn repair_datagram_from_another_sender_is_refused() {
    let mut r = Rig::new(DataConfig::default());
    let other = NodeId(7);
    r.rx.add_sender(other);
    r.send(0, Reliability::Reliable, b"a");
    let rep = r.tx.on_nack(
        r.at(0),
        RX,
        &Nack {
            ranges: vec![(1, 1)],
        },
    );
    // Claimed to come from `other` over QUIC, but the datagrams are TX's.
    r.rx.on_repair(r.at(0), other, rep);
    assert_eq!(r.rx.stats().dropped.sender_mismatch, 1);
    assert!(r.delivered_payloads().is_empty());
}

#[test]
fn causal_gate_releases_control_after_the_data_it_follows() {
    let mut r = Rig::new(DataConfig::default());
    let mut gate: CausalGate<&str> = CausalGate::new();
    let d1 = r.send(0, Reliability::Reliable, b"update 1");
    let d2 = r.send(0, Reliability::Reliable, b"update 2");
    // The control message (say a time promise) overtakes the data on QUIC.
    gate.push(TX, r.tx.high_water(), "promise");
    r.rx.on_datagram(r.at(0), d2[0].clone());
    gate.advance(TX, r.rx.delivered(TX));
    assert_eq!(gate.pop(), None);
    r.rx.on_datagram(r.at(0), d1[0].clone());
    assert_eq!(r.delivered_payloads().len(), 2);
    gate.advance(TX, r.rx.delivered(TX));
    assert_eq!(gate.pop(), Some((TX, "promise")));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Op {
        /// Deliver datagram `i % n` (any order, any number of times, or never).
        Datagram(usize),
        /// Fire timers and answer every NACK.
        Repair,
        /// Heartbeat from the sender.
        Heartbeat,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            8 => any::<usize>().prop_map(Op::Datagram),
            1 => Just(Op::Repair),
            1 => Just(Op::Heartbeat),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(
            std::env::var("HLAMESH_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(96)))]

        /// Whatever arrives in whatever order, what is delivered is always a prefix of what was
        /// sent (reliable: in order, exactly once, byte-identical; best-effort: at most once);
        /// once repairs run to completion, everything reliable is delivered.
        #[test]
        fn delivery_is_a_prefix_and_completes(
            sizes in proptest::collection::vec((any::<bool>(), 0usize..6000), 1..20),
            ops in proptest::collection::vec(op(), 0..120),
            retransmit_msgs in 1usize..64,
        ) {
            let cfg = DataConfig { retransmit_capacity_msgs: retransmit_msgs, ..DataConfig::default() };
            let mut r = Rig::new(cfg);
            let mut pool = Vec::new();
            let mut sent_rel = Vec::new();
            let mut sent_be = Vec::new();
            for (i, (reliable, len)) in sizes.iter().enumerate() {
                let payload: Vec<u8> = (0..*len).map(|k| (k * 13 + i) as u8).collect();
                let rel = if *reliable { Reliability::Reliable } else { Reliability::BestEffort };
                pool.extend(r.send(0, rel, &payload));
                if *reliable { sent_rel.push(payload) } else { sent_be.push(payload) }
            }
            let mut got_rel: Vec<Vec<u8>> = Vec::new();
            let mut got_be: Vec<Vec<u8>> = Vec::new();
            let mut lost = 0u64;
            let mut ms = 0;
            let collect = |r: &mut Rig, got_rel: &mut Vec<Vec<u8>>, got_be: &mut Vec<Vec<u8>>, lost: &mut u64| {
                let mut nacks = Vec::new();
                for e in r.events() {
                    match e {
                        RecvEvent::Deliver { seq: Some(_), payload, .. } => got_rel.push(payload.to_vec()),
                        RecvEvent::Deliver { seq: None, payload, .. } => got_be.push(payload.to_vec()),
                        RecvEvent::SendNack { nack, .. } => nacks.push(nack),
                        RecvEvent::FellBehind { lost: l, .. } => *lost += l.last.0 - l.first.0 + 1,
                        RecvEvent::Skipped { through, .. } => {
                            panic!("one group only: nothing may be skipped (to {through:?})")
                        }
                    }
                }
                nacks
            };
            for op in ops {
                ms += 1;
                match op {
                    Op::Datagram(i) => r.rx.on_datagram(r.at(ms), pool[i % pool.len()].clone()),
                    Op::Heartbeat => {
                        let hb = r.heartbeat(ms);
                        r.rx.on_datagram(r.at(ms), hb);
                    }
                    Op::Repair => {
                        ms += 25;
                        r.rx.on_timeout(r.at(ms));
                    }
                }
                for n in collect(&mut r, &mut got_rel, &mut got_be, &mut lost) {
                    r.repair(ms, &n);
                }
                collect(&mut r, &mut got_rel, &mut got_be, &mut lost);
                if lost == 0 {
                    prop_assert!(got_rel.len() <= sent_rel.len());
                    prop_assert_eq!(&got_rel[..], &sent_rel[..got_rel.len()]);
                }
                for b in &got_be {
                    let sent = sent_be.iter().filter(|s| *s == b).count();
                    let got = got_be.iter().filter(|s| *s == b).count();
                    prop_assert!(got <= sent);
                }
                prop_assert!(r.rx.memory_bytes() <= r.cfg.reorder_capacity_bytes
                    + r.cfg.reassembly_capacity_bytes + r.cfg.max_message);
            }
            // Now let repair run: heartbeat, then timers until quiet.
            let hb = r.heartbeat(ms);
            r.rx.on_datagram(r.at(ms), hb);
            for _ in 0..200 {
                ms += 25;
                r.rx.on_timeout(r.at(ms));
                for n in collect(&mut r, &mut got_rel, &mut got_be, &mut lost) {
                    r.repair(ms, &n);
                }
                collect(&mut r, &mut got_rel, &mut got_be, &mut lost);
                if r.rx.delivered(TX) == r.tx.high_water() { break; }
            }
            prop_assert_eq!(r.rx.delivered(TX), r.tx.high_water());
            if lost == 0 {
                prop_assert_eq!(&got_rel, &sent_rel);
            } else {
                // Fell behind: delivered messages are still in send order, none invented.
                let mut it = sent_rel.iter();
                for g in &got_rel {
                    prop_assert!(it.any(|s| s == g), "delivered out of order or invented");
                }
            }
            // Quiet afterwards: no more NACKs, and incomplete best-effort messages time out.
            r.rx.on_timeout(r.at(ms + 10_000));
            let after = r.events();
            prop_assert!(after.iter().all(|e| !matches!(e, RecvEvent::SendNack { .. })), "{:?}", after);
            prop_assert_eq!(r.rx.memory_bytes(), 0);
            prop_assert_eq!(r.rx.poll_timeout(), None);
        }
    }
}

/// A gap already asked for is not asked for again when a new gap opens (its repair is on its way
/// over reliable QUIC); only the new gap is NACKed, and everything again only at the safety retry.
#[test]
fn new_gap_nacks_only_what_was_not_asked_for() {
    let mut r = Rig::new(DataConfig::default());
    let first: Vec<Bytes> = (0..4)
        .flat_map(|i| r.send(0, Reliability::Reliable, &msg(i)))
        .collect();
    for (i, d) in first.iter().enumerate() {
        if i != 1 {
            r.rx.on_datagram(r.at(0), d.clone());
        }
    }
    assert_eq!(
        r.nacks_at(1),
        vec![Nack {
            ranges: vec![(2, 2)]
        }]
    );
    let second: Vec<Bytes> = (4..8)
        .flat_map(|i| r.send(2, Reliability::Reliable, &msg(i)))
        .collect();
    for (i, d) in second.iter().enumerate() {
        if i != 1 {
            r.rx.on_datagram(r.at(2), d.clone());
        }
    }
    assert_eq!(
        r.nacks_at(3),
        vec![Nack {
            ranges: vec![(6, 6)]
        }]
    );
    let retry = r.cfg.nack_retry.as_millis() as u64;
    assert!(r.nacks_at(retry / 2).is_empty());
    assert_eq!(
        r.nacks_at(1 + retry),
        vec![Nack {
            ranges: vec![(2, 2), (6, 6)]
        }]
    );
}
