//! NACK and repair bodies (postcard, carried in the control frames `Frame::Nack` and
//! `Frame::Repair`), and what consumes them: a real sender answering any NACK, a receiver
//! taking any repair.
//!
//! Invariants: a body that decodes re-encodes to a body that decodes to the same value; a
//! sender's answer to any NACK stays within `max_repair_bytes`, holds only datagrams it sent
//! (authentic, oldest first, within what it still buffers), and delivers exactly the messages
//! that were sent when a receiver takes it; a receiver takes any repair (any
//! `first_available`, any datagrams) without panicking, and its counters stay consistent.

use std::collections::BTreeMap;
use std::time::Instant;

use hlamesh_transport::data::auth::DatagramAuth;
use hlamesh_transport::data::{
    DataReceiver, DataSender, Nack, RecvEvent, Reliability, Repair, Seq, peek,
};

use super::fixture::{HONEST, KEY, LOCAL, ROGUE, TAG, config};

/// See the module docs.
pub fn run(data: &[u8]) {
    if let Ok(nack) = postcard::from_bytes::<Nack>(data) {
        let again = postcard::to_allocvec(&nack).expect("a decoded NACK encodes");
        assert_eq!(
            postcard::from_bytes::<Nack>(&again).ok(),
            Some(nack.clone())
        );
        answer(&nack);
    }
    if let Ok(repair) = postcard::from_bytes::<Repair>(data) {
        let again = postcard::to_allocvec(&repair).expect("a decoded repair encodes");
        assert_eq!(
            postcard::from_bytes::<Repair>(&again).ok(),
            Some(repair.clone())
        );
        take(repair);
    }
}

/// Messages the honest sender sends before the NACK: small ones and fragmented ones, more
/// than its retransmit buffer keeps.
fn message(i: usize) -> Vec<u8> {
    let len = if i % 5 == 4 { 2000 + i } else { 10 + i };
    (0..len).map(|k| (k as u8) ^ (i as u8)).collect()
}

fn answer(nack: &Nack) {
    let mut cfg = config();
    cfg.retransmit_capacity_msgs = 48;
    let now = Instant::now();
    let mut tx = DataSender::new(HONEST, TAG, &KEY, cfg.clone()).expect("config");
    let mut sent: BTreeMap<u64, Vec<u8>> = BTreeMap::new();
    let mut wire: Vec<Vec<u8>> = Vec::new();
    for i in 0..40 {
        let m = message(i);
        tx.send(now, Reliability::Reliable, &m, &mut |d: &[u8]| {
            wire.push(d.to_vec())
        })
        .expect("send");
        sent.insert(tx.high_water().0, m);
    }
    let high = tx.high_water().0;
    let repair = tx.on_nack(now, ROGUE, nack);
    assert!(repair.first_available >= 1 && repair.first_available <= high + 1);
    let bytes: usize = repair.datagrams.iter().map(|d| d.len()).sum();
    assert!(bytes <= cfg.max_repair_bytes, "repair of {bytes} bytes");
    let auth = DatagramAuth::new(&KEY);
    let mut last_seq = 0;
    for d in &repair.datagrams {
        assert!(auth.verify(d));
        assert!(
            wire.iter().any(|w| w[..] == d[..]),
            "a datagram that was sent"
        );
        let h = peek(d).expect("own datagram");
        assert!(
            h.seq > last_seq || last_seq == 0,
            "oldest first, no repeats"
        );
        assert!(h.seq >= repair.first_available && h.seq <= high);
        last_seq = h.seq;
    }
    // A receiver that missed everything takes the repair: whatever it delivers is what was sent.
    let mut rx = DataReceiver::new(LOCAL, TAG, &KEY, cfg).expect("config");
    rx.add_sender(HONEST);
    rx.on_repair(now, HONEST, repair);
    while let Some(ev) = rx.poll_event() {
        match ev {
            RecvEvent::Deliver { from, seq, payload } => {
                assert_eq!(from, HONEST);
                let seq = seq.expect("only reliable data is repaired");
                assert_eq!(sent.get(&seq.0).map(|m| &m[..]), Some(&payload[..]));
            }
            RecvEvent::Skipped { from, .. } => {
                assert_eq!(from, HONEST);
            }
            RecvEvent::FellBehind { from, lost } => {
                assert_eq!(from, HONEST);
                assert!(lost.first <= lost.last);
            }
            RecvEvent::SendNack { .. } => {}
        }
    }
    assert!(rx.delivered(HONEST) <= Seq(high));
}

fn take(repair: Repair) {
    let now = Instant::now();
    let cfg = config();
    let mut rx = DataReceiver::new(LOCAL, TAG, &KEY, cfg.clone()).expect("config");
    rx.add_sender(ROGUE);
    rx.add_sender(HONEST);
    // Twice from two members (the counters add up), and once more after the first moved on.
    rx.on_repair(now, ROGUE, repair.clone());
    rx.on_repair(now, HONEST, repair.clone());
    rx.on_repair(now, ROGUE, repair.clone());
    let stats = rx.stats();
    assert_eq!(stats.repairs, 3);
    while let Some(ev) = rx.poll_event() {
        if let RecvEvent::FellBehind { lost, .. } = ev {
            assert!(lost.first <= lost.last);
            assert!(lost.last.0 < repair.first_available);
        }
    }
    let _ = rx.poll_timeout();
    rx.on_timeout(now);
    let limit = cfg.reorder_capacity_bytes + cfg.reassembly_capacity_bytes + 2 * cfg.max_message;
    assert!(rx.memory_bytes() <= limit);
}
