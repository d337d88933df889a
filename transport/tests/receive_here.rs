//! An application thread receiving for its transport (`Transport::receive_here`), with two
//! in-process transports on loopback multicast: the borrower handles the datagrams itself, the
//! data thread takes the socket back once the borrower is away and nothing is lost across the
//! hand-overs, and a waker ends a borrower's wait when no datagram comes.

mod common;
#[path = "pair_support/mod.rs"]
mod pair_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use hlamesh_transport::data::Reliability;
use hlamesh_transport::{ReceiveHere, Transport, TransportConfig, TransportEvent};
use pair_support::{config, pair};

fn index(p: &[u8]) -> u64 {
    let mut i = [0u8; 8];
    i.copy_from_slice(&p[..8]);
    u64::from_be_bytes(i)
}

/// Receives on this thread until `ready`, waiting for the data thread to lend the socket first
/// (it yields after its next datagram or receive timeout).
fn borrow_until(t: &Transport, ready: &mut dyn FnMut() -> bool) -> ReceiveHere {
    let end = Instant::now() + Duration::from_secs(20);
    loop {
        match t.receive_here(end, ready) {
            ReceiveHere::Busy(claim) => {
                let left = end.saturating_duration_since(Instant::now());
                assert!(
                    claim.ready().recv_timeout(left).is_ok(),
                    "the data thread never lent the socket"
                );
            }
            other => return other,
        }
    }
}

#[test]
fn a_borrowing_thread_receives_itself_and_the_data_thread_takes_the_socket_back() {
    let _serial = common::serial();
    let p = pair("receive-here");
    let (b, fa) = (&p.b, &p.fa);
    let stats = b.stats();
    let mut next = 0u64;
    let mut send = |n: u64| {
        for _ in 0..n {
            let mut m = vec![0x5au8; 100];
            m[..8].copy_from_slice(&next.to_be_bytes());
            fa.send(Reliability::Reliable, &m).expect("send");
            next += 1;
        }
    };
    let mut got = Vec::new();
    let take = |b: &Transport, got: &mut Vec<u64>| {
        while let Ok(ev) = b.events().try_recv() {
            if let TransportEvent::Data { payload, .. } = ev {
                got.push(index(&payload));
            }
        }
    };

    // Ping-pong style: one message, then wait for it on this thread.
    for round in 0..20u64 {
        send(1);
        let r = borrow_until(b, &mut || !b.events().is_empty());
        assert!(matches!(r, ReceiveHere::Ready), "round {round}: {r:?}");
        take(b, &mut got);
    }
    let by_caller = stats.datagrams_in_caller.load(Ordering::Relaxed);
    assert!(
        by_caller >= 10,
        "the borrower received only {by_caller} of 20 datagrams"
    );

    // Away from the socket: the data thread takes it back and delivers the rest.
    let data_thread_before = stats.datagrams_in.load(Ordering::Relaxed) - by_caller;
    send(200);
    let end = Instant::now() + Duration::from_secs(20);
    while got.len() < 220 && Instant::now() < end {
        if let Ok(TransportEvent::Data { payload, .. }) =
            b.events().recv_timeout(Duration::from_millis(100))
        {
            got.push(index(&payload));
        }
    }
    assert_eq!(got, (0..220).collect::<Vec<_>>(), "lost or reordered");
    let by_caller_after = stats.datagrams_in_caller.load(Ordering::Relaxed);
    assert_eq!(by_caller_after, by_caller, "nobody borrowed meanwhile");
    assert!(
        stats.datagrams_in.load(Ordering::Relaxed) - by_caller_after > data_thread_before,
        "the data thread did not take the socket back"
    );

    // And lends it again.
    send(1);
    let r = borrow_until(b, &mut || !b.events().is_empty());
    assert!(matches!(r, ReceiveHere::Ready), "{r:?}");
    take(b, &mut got);
    assert_eq!(got.last(), Some(&220));
}

#[test]
fn a_waker_ends_the_wait_of_a_borrower_that_no_datagram_reaches() {
    let _serial = common::serial();
    let ports = common::Ports::unique();
    let t = Arc::new(Transport::start(config(&ports)).expect("start"));
    let flag = Arc::new(AtomicBool::new(false));
    let (entered_tx, entered_rx) = crossbeam_channel::bounded::<()>(1);
    let waker = t.receiver_waker();
    let f2 = flag.clone();
    let setter = std::thread::spawn(move || {
        entered_rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the borrower never looked at its condition");
        f2.store(true, Ordering::SeqCst);
        waker.wake();
    });
    let deadline = Duration::from_secs(60);
    let t0 = Instant::now();
    let end = t0 + deadline;
    let outcome = loop {
        let mut ready = || {
            let _ = entered_tx.try_send(());
            flag.load(Ordering::SeqCst)
        };
        match t.receive_here(end, &mut ready) {
            ReceiveHere::Busy(claim) => {
                let _ = claim
                    .ready()
                    .recv_timeout(end.saturating_duration_since(Instant::now()));
            }
            other => break other,
        }
    };
    setter.join().expect("setter");
    assert!(matches!(outcome, ReceiveHere::Ready), "{outcome:?}");
    // Without the wake the call would sleep until its deadline: nothing else arrives here.
    assert!(
        t0.elapsed() < deadline / 2,
        "woken only after {:?}",
        t0.elapsed()
    );
}

#[test]
fn with_the_seeded_fault_layer_only_the_data_thread_receives() {
    let _serial = common::serial();
    let ports = common::Ports::unique();
    let t = Transport::start(TransportConfig {
        fault: Some(hlamesh_transport::FaultSettings::default()),
        ..config(&ports)
    })
    .expect("start");
    let r = t.receive_here(Instant::now() + Duration::from_secs(5), &mut || false);
    assert!(matches!(r, ReceiveHere::Unavailable), "{r:?}");
}

/// Context switches of this process's `hlamesh-data` thread so far (one transport here).
fn data_thread_switches() -> u64 {
    let mut total = 0;
    for task in std::fs::read_dir("/proc/self/task").expect("/proc/self/task") {
        let path = task.expect("task").path();
        let Ok(status) = std::fs::read_to_string(path.join("status")) else {
            continue;
        };
        if !status.lines().any(|l| l == "Name:\thlamesh-data") {
            continue;
        }
        for l in status.lines() {
            if let Some(n) = l
                .strip_prefix("voluntary_ctxt_switches:")
                .or_else(|| l.strip_prefix("nonvoluntary_ctxt_switches:"))
            {
                total += n.trim().parse::<u64>().expect("switch count");
            }
        }
    }
    total
}

#[test]
fn a_long_wait_does_not_keep_the_data_thread_polling() {
    // Serial: the count below is of every `hlamesh-data` thread in this process.
    let _serial = common::serial();
    let ports = common::Ports::unique();
    let t = Transport::start(config(&ports)).expect("start");
    let wait = Duration::from_millis(400);
    // Until one call borrowed for the whole wait (the data thread may take the socket back
    // between two calls).
    for _ in 0..20 {
        let r = borrow_until(&t, &mut || true);
        assert!(matches!(r, ReceiveHere::Ready), "{r:?}");
        let before = data_thread_switches();
        let r = t.receive_here(Instant::now() + wait, &mut || false);
        let switches = data_thread_switches() - before;
        if matches!(r, ReceiveHere::TimedOut) {
            // Polling every GRACE (1 ms) would switch about 400 times; the data thread's own
            // timer with nothing to do is 20 ms.
            assert!(
                switches < 150,
                "the data thread woke {switches} times during a 400 ms borrow"
            );
            return;
        }
    }
    panic!("never borrowed for a whole wait");
}

#[test]
fn a_borrower_that_unwinds_gives_the_socket_back() {
    let _serial = common::serial();
    let p = pair("receive-here-panic");
    let (b, fa) = (&p.b, &p.fa);
    let r = borrow_until(b, &mut || true);
    assert!(matches!(r, ReceiveHere::Ready), "{r:?}");
    // A callback run on the borrowing thread (here: its condition) panics mid-borrow.
    let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut calls = 0;
        let _ = b.receive_here(Instant::now() + Duration::from_secs(5), &mut || {
            calls += 1;
            if calls > 1 {
                panic!("the federate's callback failed");
            }
            false
        });
    }));
    assert!(unwound.is_err(), "the condition did not run twice");
    // The data thread takes the socket back: data still arrives without anyone borrowing.
    fa.send(Reliability::Reliable, &[1u8; 100]).expect("send");
    match b.events().recv_timeout(Duration::from_secs(10)) {
        Ok(TransportEvent::Data { payload, .. }) => assert_eq!(&payload[..], &[1u8; 100]),
        other => panic!("no data after the unwind: {other:?}"),
    }
    // And the socket can be borrowed again.
    fa.send(Reliability::Reliable, &[2u8; 100]).expect("send");
    let r = borrow_until(b, &mut || !b.events().is_empty());
    assert!(matches!(r, ReceiveHere::Ready), "{r:?}");
}
