//! DDM cell groups with real sockets on loopback multicast, two in-process transports: a
//! receiver that joined some of a sender's cell groups gets exactly the messages of those
//! groups, once each (also a message sent to two of them), and counts no best-effort loss for
//! the many messages to a cell it did not join (the kernel dropped them). Cell messages have
//! their own number space (`DatagramKind::CellBestEffort`); numbered with the default group's
//! best-effort messages, the 1,200 unjoined ones below counted as lost.

mod common;
#[path = "pair_support/mod.rs"]
mod pair_support;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use hlamesh_transport::TransportEvent;
use hlamesh_transport::core::cells::slot_of;
use hlamesh_transport::data::Reliability;
use pair_support::pair;

/// The cell key of cell `cell` of one routing space (`core::cells::cell_key`): the space's
/// cells map to distinct groups.
fn key(cell: u32) -> u32 {
    (7 << 16) | cell
}

#[test]
fn a_receiver_in_some_cell_groups_counts_no_best_effort_loss() {
    let _g = common::serial();
    let p = pair("cells-loss");
    let (fa, fb) = (&p.fa, &p.fb);
    assert!(fa.cells_per_dimension() > 0, "cell groups are configured");
    // One datagram per default-group message, so that the counts below are exact.
    fa.set_batching(false);
    fb.set_cells(&[key(0), key(2)]);
    assert_eq!(fb.cell_stats().joined_now, 2);

    // Between the messages B hears, more to a cell it did not join than its best-effort
    // window is wide (1,200 in all).
    for i in 0..20u8 {
        fa.send_to_cells(&[b'h', i], &[key(0)]).expect("send");
        fa.send_to_cells(&[b'b', i], &[key(0), key(2)])
            .expect("send");
        fa.send(Reliability::BestEffort, &[b'd', i]).expect("send");
        for _ in 0..60 {
            fa.send_to_cells(b"elsewhere", &[key(1)]).expect("send");
        }
        // Loopback multicast drops nothing at this pace.
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(fa.cell_stats().datagrams, 1200 + 20 + 40);

    let mut got: BTreeMap<Vec<u8>, u32> = BTreeMap::new();
    let end = Instant::now() + Duration::from_secs(20);
    while got.len() < 60 {
        let left = end.saturating_duration_since(Instant::now());
        match p.b.events().recv_timeout(left) {
            Ok(TransportEvent::Data { payload, .. }) => {
                *got.entry(payload.to_vec()).or_default() += 1;
            }
            Ok(_) => {}
            Err(_) => panic!("only {} of 60 messages arrived: {got:?}", got.len()),
        }
    }
    assert!(!got.contains_key(&b"elsewhere"[..]), "a cell not joined");
    // Heartbeats (every 100 ms) announce the default group's best-effort high-water.
    std::thread::sleep(Duration::from_millis(300));
    while let Ok(ev) = p.b.events().try_recv() {
        if let TransportEvent::Data { payload, .. } = ev {
            *got.entry(payload.to_vec()).or_default() += 1;
        }
    }
    assert!(got.values().all(|&n| n == 1), "each once: {got:?}");
    let s = fb.stats();
    assert_eq!(s.best_effort_lost, 0, "{s:?}");
    assert_eq!(s.delivered_best_effort, 60, "{s:?}");
    // The messages to two joined groups arrived twice; the second copy was dropped.
    assert_eq!(s.best_effort_datagrams, 80, "{s:?}");
    assert_eq!(s.duplicate_best_effort, 20, "{s:?}");

    // What the kernel let through, by the group each datagram came in on (IP_PKTINFO): 40 on
    // cell 0's group, 20 on cell 2's, nothing of cell 1's 1,200, and the default group's 20
    // messages (with heartbeats and acknowledgement traffic: at least 20).
    let by_group = fb.cell_stats().received_by_group;
    let slots = by_group.len() as u32 - 2;
    assert_eq!(slots, 16, "default, 16 slots, other: {by_group:?}");
    let slot = |cell| 1 + slot_of(key(cell), slots) as usize;
    assert_eq!(by_group[slot(0)], 40, "{by_group:?}");
    assert_eq!(by_group[slot(2)], 20, "{by_group:?}");
    assert_eq!(by_group[slot(1)], 0, "a cell not joined: {by_group:?}");
    assert!(by_group[0] >= 20, "default group: {by_group:?}");
    assert_eq!(
        by_group[by_group.len() - 1],
        0,
        "no other destination: {by_group:?}"
    );
    let cells: u64 = by_group[1..by_group.len() - 1].iter().sum();
    assert_eq!(cells, 60, "only the joined cells' copies: {by_group:?}");
}
