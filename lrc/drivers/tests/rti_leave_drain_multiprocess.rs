//! A federate's last updates before it resigns and its process exits reach every other
//! federate, even where the data arrives long after the control frames sent with it: `B`'s
//! transport delays every data datagram it receives by 40–50 ms (the seeded fault layer), so
//! `A`'s `Left` frame and goodbye, on QUIC, reach it first. `A` created the federation, so its
//! LRC coordinates and decides its own resignation and departure. Before the fix `B` dropped
//! `A`'s stream on reading `Left` and lost the updates still on their way; the C++ ownership
//! test lost a new owner's update that way about once in thirty runs under load.
//!
//! The wait is bounded: a member that cannot acknowledge in time (its data 3 s late) costs a
//! close the drain's bound, counted, and no more.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::lab::{Lab, Ports, serial};
use common::shell::{Shell, cmd, next_event, ok, shell, shell_with};

/// `B`'s reflected values of `o` until its removal.
fn reflected_until_removed(b: &mut Shell, o: u64) -> Vec<String> {
    let mut got = Vec::new();
    loop {
        let l = next_event_of(b, &["reflect", "remove"]);
        if l["object"] != o {
            continue;
        }
        if l["event"] == "remove" {
            return got;
        }
        got.push(l["value"].as_str().unwrap_or_default().to_string());
    }
}

/// The next line that is one of `events` (bounded by the shell's timeout).
fn next_event_of(s: &mut Shell, events: &[&str]) -> serde_json::Value {
    let end = std::time::Instant::now() + common::shell::T;
    loop {
        let l = match s.backlog.pop_front() {
            Some(l) => l,
            None => {
                s.p.lines
                    .recv_timeout(end.saturating_duration_since(std::time::Instant::now()))
                    .unwrap_or_else(|_| panic!("[{}] none of {events:?} in time", s.name))
            }
        };
        assert_ne!(l["event"], "error", "[{}] {l}", s.name);
        if events.iter().any(|e| l["event"] == *e) {
            return l;
        }
    }
}

/// `A` creates the federation (its LRC coordinates) and registers an `Employee` whose `PayRate`
/// `B` subscribes to; every data datagram `B` receives is delayed by `delay_us` to 5/4 of it.
fn publisher_and_late_subscriber(name: &str, delay_us: &str) -> (Lab, Shell, Shell, u64) {
    let lab = Lab::new(2);
    let ports = Ports::unique();
    let fed = format!("{name}{}", std::process::id());
    let (mut a, _) = shell(&lab, 1, &ports, &fed, "A");
    let (mut b, _) = shell_with(
        &lab,
        2,
        &ports,
        &fed,
        "B",
        &[],
        &["--fault-delay-us", delay_us],
    );
    ok(&mut a, "publish Employee PayRate");
    ok(&mut b, "subscribe Employee PayRate");
    ok(&mut a, "register-object Employee");
    let o = next_event(&mut a, "registered_object")["object"]
        .as_u64()
        .unwrap();
    assert_eq!(next_event(&mut b, "discover")["object"], o);
    (lab, a, b, o)
}

#[test]
fn the_coordinators_last_updates_before_it_resigns_reach_a_member_whose_data_is_late() {
    let _g = serial();
    let (_lab, mut a, mut b, o) = publisher_and_late_subscriber("drain", "40000");
    for n in 1..=20 {
        ok(&mut a, &format!("update {o} PayRate {n}"));
    }
    // Resign (deleting the instance) and exit at once.
    a.send("resign");
    assert_eq!(
        reflected_until_removed(&mut b, o),
        (1..=20).map(|n| n.to_string()).collect::<Vec<_>>(),
        "every update, in order, before the removal"
    );
    assert!(a.wait_exit(common::shell::T).is_some(), "A exited");
}

/// `B`'s data arrives 3–3.75 s late, so it cannot acknowledge `A`'s last updates within the
/// close's bound (`MAX_DRAIN_WAIT`, 800 ms), though it answers on QUIC: `A`'s close waits for
/// it up to the bound, gives up, counts it (`drain-timeouts`, the figure behind
/// `hlamesh_close_drain_timeouts_total`), and its `disconnect` returns.
#[test]
fn a_close_gives_up_after_its_bound_on_a_member_that_cannot_acknowledge_and_counts_it() {
    let _g = serial();
    let (_lab, mut a, mut b, o) = publisher_and_late_subscriber("bound", "3000000");
    ok(&mut a, "drain-timeouts");
    assert_eq!(next_event(&mut a, "drain_timeouts")["count"], 0);
    for n in 1..=3 {
        ok(&mut a, &format!("update {o} PayRate {n}"));
    }
    let started = Instant::now();
    ok(&mut a, "disconnect");
    let took = started.elapsed();
    eprintln!("disconnect with B's data 3 s late took {took:?}");
    ok(&mut a, "drain-timeouts");
    assert_eq!(
        next_event(&mut a, "drain_timeouts")["count"],
        1,
        "the close gave up on B once"
    );
    assert!(
        took >= Duration::from_millis(800),
        "the close waited for B's acknowledgement first ({took:?})"
    );
    // B carries on: the instance goes with A's resignation, and A's LRC leaves its view.
    assert_eq!(next_event_of(&mut b, &["remove"])["object"], o);
    assert_eq!(cmd(&mut b, "lrcs")["event"], "ok");
    assert_eq!(
        next_event(&mut b, "lrcs")["nodes"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}
