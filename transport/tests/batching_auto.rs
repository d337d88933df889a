//! Automatic batching in the shell, with two in-process transports on loopback multicast: a
//! burst is packed into far fewer datagrams and still arrives complete and in order, a lone
//! message leaves at once in its own datagram, and a control message sent right after a burst is
//! released only after every message of the burst.

mod common;
#[path = "pair_support/mod.rs"]
mod pair_support;

use std::sync::atomic::Ordering;
use std::time::Duration;

use hlamesh_transport::data::Reliability;
use hlamesh_transport::{FederationChannel, NodeId, Transport, TransportEvent};
use pair_support::pair;

fn payload(i: u64) -> Vec<u8> {
    let mut m = vec![0xa5u8; 100];
    m[..8].copy_from_slice(&i.to_be_bytes());
    m
}

fn index(p: &[u8]) -> u64 {
    let mut i = [0u8; 8];
    i.copy_from_slice(&p[..8]);
    u64::from_be_bytes(i)
}

/// Receives `n` reliable data messages from `from`, checking order and content.
fn receive_in_order(t: &Transport, from: NodeId, first: u64, n: u64) {
    let mut next = first;
    while next < first + n {
        match t.events().recv_timeout(Duration::from_secs(20)) {
            Ok(TransportEvent::Data {
                from: f,
                seq: Some(_),
                payload,
                ..
            }) if f == from => {
                assert_eq!(index(&payload), next, "out of order");
                assert_eq!(payload[..], payload_of_index(next)[..], "content");
                next += 1;
            }
            Ok(TransportEvent::FellBehind { .. }) => panic!("receiver fell behind"),
            Ok(_) => {}
            Err(_) => panic!("only {} of {n} messages arrived", next - first),
        }
    }
}

fn payload_of_index(i: u64) -> Vec<u8> {
    payload(i)
}

/// The sender stops without flushing: the last batch can only leave by the data thread's timer.
#[test]
fn burst_is_packed_and_arrives_complete_in_order() {
    let _g = common::serial();
    let p = pair("batching-burst");
    const N: u64 = 100_000;
    let out0 = p.a.stats().datagrams_out.load(Ordering::Relaxed);
    let fa = p.fa.clone();
    let sender = std::thread::spawn(move || {
        for i in 0..N {
            fa.send(Reliability::Reliable, &payload(i)).expect("send");
        }
    });
    receive_in_order(&p.b, p.a.node_id(), 0, N);
    sender.join().expect("sender");
    let datagrams = p.a.stats().datagrams_out.load(Ordering::Relaxed) - out0;
    assert_eq!(p.fa.high_water(), N);
    assert!(
        datagrams * 4 < N,
        "{datagrams} datagrams for {N} messages: the burst was not batched"
    );
    eprintln!("{N} messages in {datagrams} datagrams");
    drop(p.fb);
}

#[test]
fn lone_message_leaves_at_once_in_its_own_datagram() {
    let _g = common::serial();
    let p = pair("batching-lone");
    let sent_now = |t: &Transport, f: &FederationChannel, i: u64| {
        let before = t.stats().datagrams_out.load(Ordering::Relaxed);
        f.send(Reliability::Reliable, &payload(i)).expect("send");
        // Counted when `sendto` returned: the message did not wait for a batch.
        let after = t.stats().datagrams_out.load(Ordering::Relaxed);
        assert_eq!(after - before, 1, "message {i} was held back");
        assert_eq!(f.pending_bytes(), 0);
    };
    // A burst first, so the sender has just been streaming (and batching).
    const BURST: u64 = 5_000;
    for i in 0..BURST {
        p.fa.send(Reliability::Reliable, &payload(i)).expect("send");
    }
    receive_in_order(&p.b, p.a.node_id(), 0, BURST);
    // The burst has drained: the next message is isolated.
    sent_now(&p.a, &p.fa, BURST);
    receive_in_order(&p.b, p.a.node_id(), BURST, 1);
    // Ping-pong on the data channel: every message, both ways, leaves at once.
    let b_node = p.b.node_id();
    for i in BURST + 1..BURST + 41 {
        sent_now(&p.a, &p.fa, i);
        receive_in_order(&p.b, p.a.node_id(), i, 1);
        sent_now(&p.b, &p.fb, i);
        receive_in_order(&p.a, b_node, i, 1);
    }
}

#[test]
fn batching_off_sends_every_message_in_its_own_datagram() {
    let _g = common::serial();
    let p = pair("batching-off");
    p.fa.set_batching(false);
    assert!(!p.fa.batching());
    const N: u64 = 2_000;
    let out0 = p.a.stats().datagrams_out.load(Ordering::Relaxed);
    for i in 0..N {
        p.fa.send(Reliability::Reliable, &payload(i)).expect("send");
    }
    assert_eq!(p.a.stats().datagrams_out.load(Ordering::Relaxed) - out0, N);
    receive_in_order(&p.b, p.a.node_id(), 0, N);
    drop(p.fb);
}

#[test]
fn control_after_a_burst_is_released_after_all_of_it() {
    let _g = common::serial();
    let p = pair("batching-causal");
    let tag = p.fa.tag();
    // Stream until a batch is pending, so that the control message must flush it first.
    let mut n = 0u64;
    while n < 5_000 || p.fa.pending_bytes() == 0 {
        p.fa.send(Reliability::Reliable, &payload(n)).expect("send");
        n += 1;
        assert!(n < 1_000_000, "batching never started");
    }
    p.a.broadcast_control(Some(tag), b"after the burst")
        .expect("control");
    assert_eq!(
        p.fa.pending_bytes(),
        0,
        "control was tagged before the flush"
    );
    let mut data = 0u64;
    loop {
        match p.b.events().recv_timeout(Duration::from_secs(20)) {
            Ok(TransportEvent::Data { payload, .. }) => {
                assert_eq!(index(&payload), data, "out of order");
                data += 1;
            }
            Ok(TransportEvent::Control { payload, .. }) => {
                assert_eq!(&payload[..], b"after the burst");
                break;
            }
            Ok(_) => {}
            Err(_) => panic!("no control message ({data} of {n} data messages arrived)"),
        }
    }
    assert_eq!(data, n, "control overtook the data it follows");
    drop(p.fb);
}

#[test]
fn flush_sends_the_pending_batch_at_once() {
    let _g = common::serial();
    let p = pair("batching-flush");
    let mut n = 0u64;
    while n < 5_000 || p.fa.pending_bytes() == 0 {
        p.fa.send(Reliability::Reliable, &payload(n)).expect("send");
        n += 1;
        assert!(n < 1_000_000, "batching never started");
    }
    let before = p.a.stats().datagrams_out.load(Ordering::Relaxed);
    p.fa.flush();
    let after = p.a.stats().datagrams_out.load(Ordering::Relaxed);
    assert_eq!(p.fa.pending_bytes(), 0);
    // Exactly the pending datagram (unless the timer flushed it in between: then nothing).
    assert!(after - before <= 1);
    receive_in_order(&p.b, p.a.node_id(), 0, n);
    drop(p.fb);
}

/// `send_held`: the message waits in the pending datagram and leaves with the next one sent,
/// in one datagram; with no next one, the data thread sends it alone; with batching off, it
/// leaves at once.
#[test]
fn held_message_leaves_with_the_next_one_or_alone() {
    let _g = common::serial();
    let p = pair("batching-held");
    let from = p.a.node_id();
    let out = || p.a.stats().datagrams_out.load(Ordering::Relaxed);
    // A held message waits only while the data thread wakes often enough to send it in time,
    // which it does once the channel is busy (its next wake-up may be up to 20 ms away when the
    // test starts): send until one is held, for at most 5 s.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let mut i = 0;
    loop {
        assert!(
            std::time::Instant::now() < deadline,
            "no message was ever held"
        );
        let before = out();
        p.fa.send_held(Reliability::Reliable, &payload(i))
            .expect("send_held");
        if p.fa.pending_bytes() > 0 {
            assert_eq!(out(), before, "a held message left at once");
            break;
        }
        receive_in_order(&p.b, from, i, 1);
        i += 1;
    }
    // The next message takes it along: one datagram for both, in order.
    let before = out();
    p.fa.send(Reliability::Reliable, &payload(i + 1))
        .expect("send");
    assert_eq!(out() - before, 1, "held and next message in one datagram");
    assert_eq!(p.fa.pending_bytes(), 0);
    receive_in_order(&p.b, from, i, 2);
    // Held with nothing after it: the data thread sends it by itself.
    let mut next = i + 2;
    loop {
        assert!(
            std::time::Instant::now() < deadline,
            "no message was held again"
        );
        p.fa.send_held(Reliability::Reliable, &payload(next))
            .expect("send_held");
        let held = p.fa.pending_bytes() > 0;
        receive_in_order(&p.b, from, next, 1);
        next += 1;
        if held {
            break;
        }
    }
    assert_eq!(p.fa.pending_bytes(), 0);
    // Batching off: nothing waits.
    p.fa.set_batching(false);
    let before = out();
    p.fa.send_held(Reliability::Reliable, &payload(next))
        .expect("send_held");
    assert_eq!(out() - before, 1, "held with batching off");
    receive_in_order(&p.b, from, next, 1);
    drop(p.fb);
}
