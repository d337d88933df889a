//! Delivery of immediate callbacks (`hlamesh_lrc::callback_queue`) over the real transport
//! (loopback, two LRCs in one process): callbacks run on the LRC's receive thread, in the
//! order the core produced them, one at a time per federate, may call the RTI from inside, and
//! wait while callbacks are disabled.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use hlamesh_lrc::ambassador::{CallbackModel, FederateAmbassador, RtiAmbassador};
use hlamesh_lrc::core::ReceiveInfo;
use hlamesh_lrc::error::RtiError;
use hlamesh_lrc::handles::*;
use hlamesh_lrc::node::Lrc;
use hlamesh_transport::TransportConfig;

const FOM: &str = include_str!("../../fed-examples/foms/MovingObject.xml");

fn unique(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("{prefix}-{}-{nanos}", std::process::id())
}

/// Records reflected values with the thread that delivered them; counts overlapping
/// deliveries; echoes each value through `echo` (its own object) when armed.
#[derive(Default)]
struct Shared {
    got: Mutex<Vec<(u32, String)>>,
    discovered: AtomicUsize,
    inside: AtomicBool,
    overlaps: AtomicUsize,
    echo: OnceLock<(Weak<RtiAmbassador>, ObjectInstanceHandle, AttributeHandle)>,
    echo_errors: Mutex<Vec<String>>,
    /// Destroy this federation from inside the first reflection, recording (thread, result).
    destroy: OnceLock<(Weak<RtiAmbassador>, String)>,
    destroyed: Mutex<Vec<(String, Result<(), RtiError>)>>,
    /// Panic in the reflection of this value (after recording it).
    panic_on: OnceLock<u32>,
}

struct Amb(Arc<Shared>);

impl FederateAmbassador for Amb {
    fn discover_object_instance(
        &mut self,
        _o: ObjectInstanceHandle,
        _c: ObjectClassHandle,
        _n: &str,
        _p: FederateHandle,
    ) {
        self.0.discovered.fetch_add(1, Ordering::SeqCst);
    }

    fn reflect_attribute_values(
        &mut self,
        _o: ObjectInstanceHandle,
        values: &[(AttributeHandle, Vec<u8>)],
        _tag: &[u8],
        _info: &ReceiveInfo,
    ) {
        if self.0.inside.swap(true, Ordering::SeqCst) {
            self.0.overlaps.fetch_add(1, Ordering::SeqCst);
        }
        let v = u32::from_be_bytes(values[0].1.as_slice().try_into().unwrap());
        let thread = std::thread::current().name().unwrap_or("?").to_string();
        self.0.got.lock().unwrap().push((v, thread));
        if self.0.panic_on.get() == Some(&v) {
            self.0.inside.store(false, Ordering::SeqCst);
            panic!("federate callback failed on value {v}");
        }
        if let Some((rti, object, attr)) = self.0.echo.get()
            && let Some(rti) = rti.upgrade()
            && let Err(e) =
                rti.update_attribute_values(*object, vec![(*attr, v.to_be_bytes().to_vec())], b"")
        {
            self.0.echo_errors.lock().unwrap().push(e.to_string());
        }
        if let Some((rti, federation)) = self.0.destroy.get()
            && let Some(rti) = rti.upgrade()
        {
            let mut d = self.0.destroyed.lock().unwrap();
            if d.is_empty() {
                let thread = std::thread::current().name().unwrap_or("?").to_string();
                d.push((thread, rti.destroy_federation_execution(federation)));
            }
        }
        self.0.inside.store(false, Ordering::SeqCst);
    }
}

struct Fed {
    rti: Arc<RtiAmbassador>,
    seen: Arc<Shared>,
    object: ObjectInstanceHandle,
    pos: AttributeHandle,
}

fn federate(lrc: &Lrc, federation: &str, name: &str, model: CallbackModel) -> Fed {
    let seen = Arc::new(Shared::default());
    let mut rti = RtiAmbassador::with_lrc(lrc.clone());
    rti.connect(Box::new(Amb(seen.clone())), model).unwrap();
    if name == "sender" {
        rti.create_federation_execution_from_text(
            federation,
            vec![("MovingObject.xml".into(), FOM.into())],
        )
        .unwrap();
    }
    rti.join_federation_execution(Some(name), "test", federation)
        .unwrap();
    let vehicle = rti.get_object_class_handle("Vehicle").unwrap();
    let pos = rti.get_attribute_handle(vehicle, "Position").unwrap();
    rti.publish_object_class_attributes(vehicle, &[pos])
        .unwrap();
    rti.subscribe_object_class_attributes(vehicle, &[pos], true)
        .unwrap();
    let object = rti.register_object_instance(vehicle).unwrap();
    Fed {
        rti: Arc::new(rti),
        seen,
        object,
        pos,
    }
}

/// Waits (bounded) until `pred` holds, evoking callbacks of `evoke` meanwhile if given.
fn wait_for(what: &str, evoke: Option<&RtiAmbassador>, pred: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !pred() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        match evoke {
            Some(a) => {
                a.evoke_multiple_callbacks(Duration::ZERO, Duration::from_millis(10))
                    .unwrap();
            }
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    }
}

fn values(s: &Shared) -> Vec<u32> {
    s.got.lock().unwrap().iter().map(|(v, _)| *v).collect()
}

#[test]
fn immediate_callbacks_run_on_the_receive_thread_in_order_and_may_call_the_rti() {
    let name = unique("cb-order");
    let (la, lb) = (
        Lrc::start(TransportConfig::default()).unwrap(),
        Lrc::start(TransportConfig::default()).unwrap(),
    );
    let a = federate(&la, &name, "sender", CallbackModel::Immediate);
    let b = federate(&lb, &name, "echo", CallbackModel::Immediate);
    let _ = b.seen.echo.set((Arc::downgrade(&b.rti), b.object, b.pos));
    wait_for("discoveries", None, || {
        a.seen.discovered.load(Ordering::SeqCst) >= 1
            && b.seen.discovered.load(Ordering::SeqCst) >= 1
    });
    const N: u32 = 300;
    for v in 0..N {
        a.rti
            .update_attribute_values(a.object, vec![(a.pos, v.to_be_bytes().to_vec())], b"")
            .unwrap();
    }
    // Every value reaches B once and in order; B's echo, sent from inside its callback,
    // comes back to A in the same order.
    wait_for("echoes", None, || {
        a.seen.got.lock().unwrap().len() >= N as usize
    });
    let want: Vec<u32> = (0..N).collect();
    assert_eq!(values(&b.seen), want);
    assert_eq!(values(&a.seen), want);
    assert!(b.seen.echo_errors.lock().unwrap().is_empty());
    for s in [&a.seen, &b.seen] {
        assert_eq!(
            s.overlaps.load(Ordering::SeqCst),
            0,
            "concurrent deliveries"
        );
        let threads: Vec<String> = s
            .got
            .lock()
            .unwrap()
            .iter()
            .map(|(_, t)| t.clone())
            .collect();
        // Delivered by LRC threads: the receive thread itself when it can, the delivery thread
        // when another delivery was running; never by the test's thread.
        assert!(
            threads
                .iter()
                .all(|t| t == "hlamesh-data" || t == "hlamesh-callbacks"),
            "{threads:?}"
        );
        assert!(threads.iter().any(|t| t == "hlamesh-data"), "{threads:?}");
    }
}

#[test]
fn a_panicking_immediate_callback_loses_only_itself() {
    // Two federates share the receiving LRC; one panics on value 5. The receive thread, the
    // other federate and the panicking federate's later callbacks all go on.
    let name = unique("cb-panic");
    let (la, lb) = (
        Lrc::start(TransportConfig::default()).unwrap(),
        Lrc::start(TransportConfig::default()).unwrap(),
    );
    let a = federate(&la, &name, "sender", CallbackModel::Immediate);
    let victim = federate(&lb, &name, "victim", CallbackModel::Immediate);
    let bystander = federate(&lb, &name, "bystander", CallbackModel::Immediate);
    let _ = victim.seen.panic_on.set(5);
    wait_for("discoveries", None, || {
        victim.seen.discovered.load(Ordering::SeqCst) >= 2
            && bystander.seen.discovered.load(Ordering::SeqCst) >= 2
    });
    const N: u32 = 50;
    let send = |vs: std::ops::Range<u32>| {
        for v in vs {
            a.rti
                .update_attribute_values(a.object, vec![(a.pos, v.to_be_bytes().to_vec())], b"")
                .unwrap();
        }
    };
    // First the values around the panic; the rest only once they arrived, so they must cross
    // the receive thread after the panic.
    send(0..10);
    wait_for("the first values", None, || {
        values(&bystander.seen).iter().filter(|v| **v < 10).count() >= 10
    });
    send(10..N);
    let done = || {
        values(&victim.seen).iter().filter(|v| **v < N).count() >= N as usize
            && values(&bystander.seen).iter().filter(|v| **v < N).count() >= N as usize
    };
    wait_for("every value at both federates", None, done);
    let from_sender = |s: &Shared| -> Vec<u32> {
        s.got
            .lock()
            .unwrap()
            .iter()
            .map(|(v, _)| *v)
            .filter(|v| *v < N)
            .collect()
    };
    let want: Vec<u32> = (0..N).collect();
    assert_eq!(from_sender(&victim.seen), want);
    assert_eq!(from_sender(&bystander.seen), want);
}

#[test]
fn disabled_immediate_callbacks_wait_and_keep_their_order() {
    let name = unique("cb-disabled");
    let (la, lb) = (
        Lrc::start(TransportConfig::default()).unwrap(),
        Lrc::start(TransportConfig::default()).unwrap(),
    );
    let a = federate(&la, &name, "sender", CallbackModel::Immediate);
    let held = federate(&lb, &name, "held", CallbackModel::Immediate);
    // A witness on the same LRC: once it has every value, so has `held`'s queue.
    let witness = federate(&lb, &name, "witness", CallbackModel::Evoked);
    wait_for("discovery by held", None, || {
        held.seen.discovered.load(Ordering::SeqCst) >= 2
    });
    wait_for("discovery by the witness", Some(&witness.rti), || {
        witness.seen.discovered.load(Ordering::SeqCst) >= 2
    });
    held.rti.disable_callbacks().unwrap();
    const N: u32 = 50;
    for v in 0..N {
        a.rti
            .update_attribute_values(a.object, vec![(a.pos, v.to_be_bytes().to_vec())], b"")
            .unwrap();
    }
    wait_for("the witness's reflections", Some(&witness.rti), || {
        witness.seen.got.lock().unwrap().len() >= N as usize
    });
    assert!(
        values(&held.seen).is_empty(),
        "delivered while callbacks were disabled"
    );
    held.rti.enable_callbacks().unwrap();
    wait_for("held reflections", None, || {
        held.seen.got.lock().unwrap().len() >= N as usize
    });
    assert_eq!(values(&held.seen), (0..N).collect::<Vec<_>>());
    assert_eq!(held.seen.overlaps.load(Ordering::SeqCst), 0);
}

#[test]
fn a_coordinator_call_from_a_receive_thread_callback_is_refused_not_hung() {
    let name = unique("cb-destroy");
    let (la, lb) = (
        Lrc::start(TransportConfig::default()).unwrap(),
        Lrc::start(TransportConfig::default()).unwrap(),
    );
    // `la` created the federation and coordinates it; `b`'s destroy must ask it.
    let a = federate(&la, &name, "sender", CallbackModel::Immediate);
    let b = federate(&lb, &name, "destroyer", CallbackModel::Immediate);
    let _ = b.seen.destroy.set((Arc::downgrade(&b.rti), name.clone()));
    wait_for("discovery", None, || {
        b.seen.discovered.load(Ordering::SeqCst) >= 1
    });
    let t0 = Instant::now();
    a.rti
        .update_attribute_values(a.object, vec![(a.pos, 7u32.to_be_bytes().to_vec())], b"")
        .unwrap();
    wait_for("the destroy attempt", None, || {
        !b.seen.destroyed.lock().unwrap().is_empty()
    });
    let (thread, result) = b.seen.destroyed.lock().unwrap()[0].clone();
    match thread.as_str() {
        // On the receive thread the wait could only time out: refused at once.
        "hlamesh-data" => assert!(
            matches!(result, Err(RtiError::CallNotAllowedFromWithinCallback(_))),
            "{result:?}"
        ),
        // On the delivery thread it may wait: the coordinator refuses, federates are joined.
        _ => assert!(
            matches!(result, Err(RtiError::FederatesCurrentlyJoined(_))),
            "{thread}: {result:?}"
        ),
    }
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    // The federation is untouched: the update still reached `b`.
    assert_eq!(values(&b.seen), vec![7]);
}

/// `evoke_multiple_callbacks` with a short window over a backlog: every round of the loop
/// reads the clock while callbacks keep it busy, so some round begins just before `min`
/// and ends just after it. Reading the clock twice there once underflowed a `Duration`
/// subtraction and killed the federate ("overflow when subtracting durations").
#[test]
fn evoke_multiple_callbacks_drains_a_backlog_with_short_windows() {
    let name = unique("cb-evoke-window");
    let (la, lb) = (
        Lrc::start(TransportConfig::default()).unwrap(),
        Lrc::start(TransportConfig::default()).unwrap(),
    );
    let a = federate(&la, &name, "sender", CallbackModel::Immediate);
    let evoked = federate(&lb, &name, "evoked", CallbackModel::Evoked);
    // A witness on the same LRC: once it has a value, so has `evoked`'s queue.
    let witness = federate(&lb, &name, "witness", CallbackModel::Immediate);
    wait_for(
        "discovery by the evoked federate",
        Some(&evoked.rti),
        || evoked.seen.discovered.load(Ordering::SeqCst) >= 2,
    );
    wait_for("discovery by the witness", None, || {
        witness.seen.discovered.load(Ordering::SeqCst) >= 2
    });
    const ROUNDS: u32 = 8;
    const N: u32 = 400;
    let (min, max) = (Duration::from_micros(100), Duration::from_micros(300));
    let mut calls = 0u32;
    for round in 0..ROUNDS {
        for v in round * N..(round + 1) * N {
            a.rti
                .update_attribute_values(a.object, vec![(a.pos, v.to_be_bytes().to_vec())], b"")
                .unwrap();
        }
        let want = ((round + 1) * N) as usize;
        wait_for("the witness's reflections", None, || {
            values(&witness.seen)
                .iter()
                .filter(|v| **v < ROUNDS * N)
                .count()
                >= want
        });
        // The backlog is queued: drain it in short windows only.
        let deadline = Instant::now() + Duration::from_secs(10);
        while values(&evoked.seen)
            .iter()
            .filter(|v| **v < ROUNDS * N)
            .count()
            < want
        {
            assert!(Instant::now() < deadline, "backlog not drained");
            evoked.rti.evoke_multiple_callbacks(min, max).unwrap();
            calls += 1;
        }
    }
    let got: Vec<u32> = values(&evoked.seen)
        .into_iter()
        .filter(|v| *v < ROUNDS * N)
        .collect();
    assert_eq!(got, (0..ROUNDS * N).collect::<Vec<_>>());
    eprintln!("{} reflections drained in {calls} calls", ROUNDS * N);
}

/// Any `min <= max` is accepted, zero included, and returns within about `max` even with
/// nothing to deliver; `min > max` is refused with the standard's `RTIinternalError`.
#[test]
fn evoke_multiple_callbacks_accepts_min_up_to_max_and_refuses_min_above_max() {
    let name = unique("cb-evoke-args");
    let la = Lrc::start(TransportConfig::default()).unwrap();
    let f = federate(&la, &name, "sender", CallbackModel::Evoked);
    let us = Duration::from_micros;
    for (min, max) in [
        (us(0), us(0)),
        (us(0), us(1)),
        (us(1), us(1)),
        (us(100), us(100)),
        (us(100), us(300)),
        (us(0), us(20_000)),
        (us(20_000), us(20_000)),
    ] {
        let t0 = Instant::now();
        f.rti.evoke_multiple_callbacks(min, max).unwrap();
        // Generous bound for a shared machine; the point is that it returns.
        assert!(
            t0.elapsed() < max + Duration::from_millis(500),
            "({min:?}, {max:?}) took {:?}",
            t0.elapsed()
        );
    }
    for (min, max) in [(us(1), us(0)), (us(300), us(100))] {
        let r = f.rti.evoke_multiple_callbacks(min, max);
        assert!(
            matches!(r, Err(RtiError::RtiInternalError(_))),
            "({min:?}, {max:?}): {r:?}"
        );
    }
}
