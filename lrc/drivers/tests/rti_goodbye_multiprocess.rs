//! Issue 20, finding 15: a federate process that resigns and ends normally is seen by the peers
//! that stay as having left (its goodbye arrived), never as lost; a process killed with `kill -9`
//! is still seen as lost.
//!
//! The peer that stays is a transport in this test process, on the same loopback discovery group
//! as the `rti-probe` processes; it reports `PeerLeft` or `PeerLost` for each of them. A
//! streaming probe creates the federation and updates an instance every millisecond; ten probes
//! in a row join it, subscribe (so their LRC is busy with the stream when they end), resign and
//! exit (20 in a row by default); each must be reported left. Before the fix most of these exits were reported lost, a
//! peer timeout after the process was gone: the LRC's own threads, busy with the stream, often
//! held it at the moment the federate dropped its last handle, so the goodbye ran later on one
//! of them, and the process exit killed it first.
//!
//! `HLAMESH_GOODBYE_ROUNDS` sets the number of normal exits (default 20: before the fix about 1 in 6 was
//! reported lost). `HLAMESH_RTI_PROBE` runs
//! another build of `rti-probe` (to measure an older one).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::lab::{Lab, Ports, Probe, args, base_args, repo_root, serial};
use hlamesh_transport::{NodeId, Transport, TransportConfig, TransportEvent};

/// How long the staying peer waits for the verdict on a peer that exited: well past the peer
/// timeout (1 s), so a missing goodbye shows up as `PeerLost` rather than as silence.
const VERDICT: Duration = Duration::from_secs(5);

fn observer(ports: &Ports) -> Transport {
    Transport::start(TransportConfig {
        discovery_port: ports.discovery,
        data_port: ports.data,
        discovery_group: ports.group,
        ..TransportConfig::default()
    })
    .expect("start the staying peer")
}

/// The next `PeerConnected` at `t` within `timeout`.
fn connected(t: &Transport, timeout: Duration) -> NodeId {
    let end = Instant::now() + timeout;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        match t.events().recv_timeout(left) {
            Ok(TransportEvent::PeerConnected { node, .. }) => return node,
            Ok(_) => {}
            Err(_) => panic!("no peer connected within {timeout:?}"),
        }
    }
}

/// What `t` concluded about `node`: `Some(true)` lost, `Some(false)` left, `None` nothing in time.
fn verdict(t: &Transport, node: NodeId, timeout: Duration) -> Option<bool> {
    let end = Instant::now() + timeout;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        match t.events().recv_timeout(left) {
            Ok(TransportEvent::PeerLost { node: n }) if n == node => return Some(true),
            Ok(TransportEvent::PeerLeft { node: n }) if n == node => return Some(false),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
}

fn probe_bin() -> String {
    std::env::var("HLAMESH_RTI_PROBE").unwrap_or_else(|_| env!("CARGO_BIN_EXE_rti-probe").into())
}

/// A subscriber that joins, stays `hold_ms`, resigns and exits.
fn leaver_args(ports: &Ports, fed: &str, name: &str, hold_ms: &str) -> Vec<String> {
    let mut a = base_args(&Lab::Loopback, 1, ports, fed);
    a.extend(args(&[
        "--name",
        name,
        "--subscribe",
        "Vehicle:Position",
        "--hold-ms",
        hold_ms,
        "--join-retry-ms",
        "10000",
    ]));
    a
}

#[test]
fn a_federate_that_resigns_and_exits_is_reported_left_every_time_and_a_killed_one_lost() {
    let _g = serial();
    let ports = Ports::unique();
    let fed = format!("bye{}", std::process::id());
    let stay = observer(&ports);
    let bin = probe_bin();
    let fom = repo_root()
        .join("fed-examples/foms/MovingObject.xml")
        .display()
        .to_string();
    let mut a = base_args(&Lab::Loopback, 1, &ports, &fed);
    a.extend(args(&[
        "--name",
        "streamer",
        "--create",
        "--fom",
        &fom,
        "--publish",
        "Vehicle:Position",
        "--objects",
        "1",
        "--forever",
        "--interval-ms",
        "1",
    ]));
    let streamer = Probe::spawn(&Lab::Loopback, 1, &bin, &a, "streamer");
    let streamer_node = connected(&stay, Duration::from_secs(15));
    streamer.wait_event("registered", Duration::from_secs(20));
    let rounds: u32 = std::env::var("HLAMESH_GOODBYE_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let mut verdicts = Vec::new();
    for round in 1..=rounds {
        let name = format!("leaver{round}");
        let mut p = Probe::spawn(
            &Lab::Loopback,
            1,
            &bin,
            &leaver_args(&ports, &fed, &name, "300"),
            &name,
        );
        let node = connected(&stay, Duration::from_secs(15));
        p.wait_event("done", Duration::from_secs(20));
        let code = p.wait_exit(Duration::from_secs(10));
        assert_eq!(code, Some(0), "{name} exited with {code:?}");
        let v = verdict(&stay, node, VERDICT);
        eprintln!("round {round}: {name} ({node}) reported {v:?} (Some(false) = left)");
        verdicts.push((round, v));
    }
    let (left, other): (Vec<(u32, Option<bool>)>, Vec<_>) =
        verdicts.into_iter().partition(|(_, v)| *v == Some(false));
    assert!(
        other.is_empty(),
        "{} of {rounds} normal exits were reported left; the others: {other:?} (Some(true) = lost)",
        left.len()
    );
    assert_eq!(
        stay.stats().lost.load(std::sync::atomic::Ordering::Relaxed),
        0
    );

    // A process killed with kill -9 says nothing: it is lost (within the peer timeout).
    let mut p = Probe::spawn(
        &Lab::Loopback,
        1,
        &bin,
        &leaver_args(&ports, &fed, "killed", "30000"),
        "killed",
    );
    let node = connected(&stay, Duration::from_secs(15));
    p.wait_event("joined", Duration::from_secs(20));
    let killed = Instant::now();
    p.kill9();
    let v = verdict(&stay, node, VERDICT);
    eprintln!(
        "killed probe ({node}) reported {v:?} after {:?}",
        killed.elapsed()
    );
    assert_eq!(v, Some(true), "a killed process must be reported lost");
    assert!(
        stay.peers().contains(&streamer_node),
        "the streamer stayed connected throughout"
    );
}
