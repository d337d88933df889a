//! Flow control across real processes: a sender much faster than its receiver, over real
//! multicast and QUIC (two network namespaces when root, loopback otherwise).
//!
//! The receiver's data thread spends 30 µs on every message, as an LRC busy in its callbacks.
//! With flow control the sender's application thread waits for acknowledgements, the receiver's
//! socket never overflows, and nothing needs repair. Without it the same run overflows the
//! receiver's socket and lives on NACK and repair: that is what the window prevents, and what
//! makes the first test able to fail.

mod common;

use std::time::Duration;

use common::{Lab, Ports, Probe, args, base_args};

const PROBE: &str = env!("CARGO_BIN_EXE_hlamesh-transport-probe");

/// Reliable messages the fast side sends (log-uniform sizes up to 4 KiB: about 20 MB).
const COUNT: &str = "40000";

fn run(flow: bool) -> (serde_json::Value, serde_json::Value) {
    run_with(flow, &[])
}

fn run_with(flow: bool, sender_extra: &[&str]) -> (serde_json::Value, serde_json::Value) {
    let _serial = common::serial();
    let lab = Lab::new(2);
    let ports = Ports::unique();
    let mut probes = Vec::new();
    for i in 1..=2 {
        let mut a = base_args(&lab, i, &ports, "flow");
        let (count, extra): (&str, &[&str]) = if i == 1 {
            (COUNT, &["--paced", "--create"])
        } else {
            // A few of its own: the exchange checks every peer's stream.
            ("10", &["--slow-us", "30"])
        };
        a.extend(args(&[
            "--mode",
            "exchange",
            "--peers",
            "1",
            "--count",
            count,
            "--rate",
            "0",
            "--max-size",
            "4096",
            "--timeout-s",
            "120",
        ]));
        a.extend(args(extra));
        if i == 1 {
            a.extend(args(sender_extra));
        }
        if !flow {
            a.push("--no-flow".into());
        }
        probes.push(Probe::spawn(&lab, i, PROBE, &a, &format!("node{i}")));
    }
    let sender = probes[0].wait_event("result", Duration::from_secs(130));
    let receiver = probes[1].wait_event("result", Duration::from_secs(130));
    eprintln!("sender: {sender}\nreceiver: {receiver}");
    for r in [&sender, &receiver] {
        assert_eq!(r["ok"], true, "{r}");
    }
    let got = &receiver["peers"][0];
    assert_eq!(got["reliable"].as_u64(), COUNT.parse().ok(), "{got}");
    assert_eq!(got["digest_match"], true, "{got}");
    (sender, receiver)
}

/// The sender waited, never left the live receiver out, and the receiver's socket never
/// overflowed (no NACK).
fn assert_paced(sender: &serde_json::Value, receiver: &serde_json::Value) {
    assert!(
        sender["flow_waits"].as_u64().expect("waits") > 0,
        "the sender never waited: {sender}"
    );
    assert_eq!(
        sender["flow_stalls"], 0,
        "a live receiver was left out: {sender}"
    );
    assert_eq!(
        receiver["nacks_sent"], 0,
        "the receiver's socket overflowed despite flow control: {receiver}"
    );
}

#[test]
fn sender_waits_for_a_slow_receiver_and_nothing_needs_repair() {
    let (sender, receiver) = run(true);
    assert_paced(&sender, &receiver);
    assert_eq!(sender["nacks_served"], 0, "{sender}");
}

/// A sender whose window (64 KiB) is far narrower than the receiver's (a quarter of its socket
/// buffer, so it acknowledges only every quarter of that) asks for acknowledgements when it
/// waits, instead of waiting `flow_stall` for one and leaving the receiver out.
#[test]
fn a_narrow_sender_window_asks_for_acknowledgements() {
    let (sender, receiver) = run_with(true, &["--flow-window-bytes", "65536"]);
    assert_paced(&sender, &receiver);
}

#[test]
fn without_flow_control_the_same_run_needs_repairs() {
    let (sender, receiver) = run(false);
    assert_eq!(sender["flow_waits"], 0, "flow control is off: {sender}");
    assert!(
        receiver["nacks_sent"].as_u64().expect("nacks") > 0,
        "the receiver kept up without flow control, so the other test proves nothing: {receiver}"
    );
}
