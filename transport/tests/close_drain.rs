//! Closing a federation's channel (or leaving the mesh) right after sending: every member gets
//! the whole stream before it hears that the sender left. Two in-process transports on loopback
//! multicast and QUIC; the receiver's seeded fault layer delays every data datagram by 40–50 ms,
//! so the `Left` frame (or the goodbye), which travels on QUIC, reaches it long before the data.
//! A member that dropped the sender's stream on `Left` lost every message here; the closing
//! side now waits until each member acknowledged its stream (`node/drain.rs`).

mod common;
#[path = "pair_support/mod.rs"]
mod pair_support;

use std::time::{Duration, Instant};

use hlamesh_transport::data::Reliability;
use hlamesh_transport::{
    FaultSettings, FederationChannel, Transport, TransportConfig, TransportEvent,
};
use pair_support::{Pair, pair_with};

const MESSAGES: u64 = 300;

/// A sender `a` and a receiver `b` whose data datagrams all arrive 40–50 ms late, both members
/// of `federation`.
fn delayed_pair(federation: &str) -> Pair {
    pair_with(federation, |cfg| TransportConfig {
        fault: Some(FaultSettings {
            seed: 7,
            reorder_per_mille: 1000,
            max_delay_us: 40_000,
            ..FaultSettings::default()
        }),
        ..cfg
    })
}

fn send_all(fa: &FederationChannel) {
    for i in 0..MESSAGES {
        fa.send(Reliability::Reliable, &i.to_be_bytes())
            .expect("send");
    }
}

/// The receiver's events until `end(event)`: the indices of the sender's messages before it.
fn received_until(b: &Transport, end: impl Fn(&TransportEvent) -> bool) -> Vec<u64> {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut got = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let ev = b
            .events()
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("no end event; received {} messages", got.len()));
        if let TransportEvent::Data { payload, .. } = &ev {
            let mut i = [0u8; 8];
            i.copy_from_slice(&payload[..8]);
            got.push(u64::from_be_bytes(i));
        }
        if end(&ev) {
            return got;
        }
    }
}

#[test]
fn a_member_gets_the_whole_stream_before_the_sender_closes_the_channel() {
    let Pair { a, b, fa, fb: _fb } = delayed_pair("drain-close");
    let tag = fa.tag();
    let a_id = a.node_id();
    send_all(&fa);
    let t0 = Instant::now();
    a.close_federation(tag);
    let closed_after = t0.elapsed();
    let got = received_until(
        &b,
        |e| matches!(e, TransportEvent::FederationPeer { node, joined: false, .. } if *node == a_id),
    );
    assert_eq!(
        got,
        (0..MESSAGES).collect::<Vec<_>>(),
        "in order, none lost"
    );
    assert_eq!(
        a.stats()
            .drain_timeouts
            .load(std::sync::atomic::Ordering::Relaxed),
        0
    );
    eprintln!("close waited {closed_after:?} for the delayed receiver");
}

#[test]
fn a_member_gets_the_whole_stream_before_the_sender_leaves_the_mesh() {
    let Pair { a, b, fa, fb: _fb } = delayed_pair("drain-leave");
    let a_id = a.node_id();
    send_all(&fa);
    a.leave();
    let got = received_until(
        &b,
        |e| matches!(e, TransportEvent::PeerLeft { node } if *node == a_id),
    );
    assert_eq!(
        got,
        (0..MESSAGES).collect::<Vec<_>>(),
        "in order, none lost"
    );
}

/// A member whose data arrives 3–3.75 s late cannot acknowledge the stream within the close's
/// bound (`MAX_DRAIN_WAIT`, 800 ms), though it answers on QUIC: the close gives up at the bound,
/// counts it (`ShellStats::drain_timeouts`, exported as `hlamesh_close_drain_timeouts_total`),
/// and returns long before the data could have arrived.
#[test]
fn a_close_gives_up_after_its_bound_when_a_member_cannot_acknowledge() {
    let Pair {
        a,
        b: _b,
        fa,
        fb: _fb,
    } = pair_with("drain-bound", |cfg| TransportConfig {
        fault: Some(FaultSettings {
            seed: 7,
            reorder_per_mille: 1000,
            max_delay_us: 3_000_000,
            ..FaultSettings::default()
        }),
        ..cfg
    });
    for i in 0..10u64 {
        fa.send(Reliability::Reliable, &i.to_be_bytes())
            .expect("send");
    }
    let timeouts = || {
        a.stats()
            .drain_timeouts
            .load(std::sync::atomic::Ordering::Relaxed)
    };
    assert_eq!(timeouts(), 0);
    let t0 = Instant::now();
    a.close_federation(fa.tag());
    let took = t0.elapsed();
    eprintln!("close with the member's data 3 s late took {took:?}");
    assert_eq!(timeouts(), 1, "the close gave up once");
    assert!(
        took >= Duration::from_millis(800),
        "it waited for the acknowledgement first ({took:?})"
    );
    assert!(
        took < Duration::from_secs(3),
        "it did not wait for the late data ({took:?})"
    );
}
