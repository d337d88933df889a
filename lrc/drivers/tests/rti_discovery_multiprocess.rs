//! Issue 20, finding 13, across processes: federates that join, subscribe and register at about
//! the same time all discover each other's instances.
//!
//! Each round starts an LRC that creates the federation (and hosts no federate), then three
//! `rti-probe` LRCs at once; each one's federate joins, publishes and subscribes to
//! `Vehicle.Position`, registers one instance and stays a few seconds. Every federate must
//! discover the two instances of the others. What broke it: an LRC whose connection to an earlier
//! member came up only after its federate had registered started its stream there after the
//! registration, and the earlier member never discovered that instance (see
//! `lrc/core/src/core/state_transfer.rs`; the simulator's `concurrent_join_subscribe_register_*`
//! reproduces it deterministically).
//!
//! `HLAMESH_DISCOVERY_ROUNDS` rounds (default 12, about 5 s each). A second test runs the same
//! rounds with a share of every LRC's incoming QUIC packets dropped (network namespaces only). `HLAMESH_RTI_PROBE` runs another
//! build of `rti-probe` (to measure an older one against the same scenario).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use common::lab::{Lab, Ports, Probe, args, base_args, repo_root, serial};

fn probe_bin() -> String {
    std::env::var("HLAMESH_RTI_PROBE").unwrap_or_else(|_| env!("CARGO_BIN_EXE_rti-probe").into())
}

/// What one federate reported: its instance and the instances it discovered, or what went wrong.
#[derive(Debug, Default)]
struct Report {
    registered: Vec<u64>,
    discovered: BTreeSet<u64>,
    error: Option<String>,
    /// When its federate joined and when it was done, in ms since its process started (the
    /// three start at once): a missed discovery between federates that were never joined at the
    /// same time is a late join, not a lost registration, and the failure says which it was.
    joined_ms: Option<u64>,
    done_ms: Option<u64>,
}

/// Reads `p`'s lines until it is done (it resigns after holding), an error, or `deadline`.
fn report(p: &Probe, deadline: Instant) -> Report {
    let mut r = Report::default();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let at = |l: &serde_json::Value| l["since_start_ms"].as_f64().map(|ms| ms as u64);
        match p.lines.recv_timeout(left) {
            Ok(l) if l["event"] == "joined" => r.joined_ms = at(&l),
            Ok(l) if l["event"] == "registered" => {
                r.registered = l["objects"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|o| o.as_u64().unwrap())
                    .collect();
            }
            Ok(l) if l["event"] == "discover" => {
                r.discovered.insert(l["object"].as_u64().unwrap());
            }
            Ok(l) if l["event"] == "done" => {
                r.done_ms = at(&l);
                return r;
            }
            Ok(l) if l["event"] == "error" => {
                r.error = Some(l.to_string());
                return r;
            }
            Ok(_) => {}
            Err(_) => {
                r.error = Some("no done line in time".into());
                return r;
            }
        }
    }
}

#[test]
fn concurrent_join_subscribe_register_discovers_every_instance() {
    let _g = serial();
    let rounds = env_rounds("HLAMESH_DISCOVERY_ROUNDS", 12);
    let lab = Lab::new(4);
    let failures = run_rounds(&lab, rounds, None);
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The same with 10 % of the QUIC packets arriving at every LRC dropped in the kernel
/// (nftables in network namespaces): joins, snapshots and decisions all travel over QUIC and
/// are retransmitted, so discovery must still be complete. Needs root (namespaces); without it
/// the test says so and passes without running. `HLAMESH_DISCOVERY_LOSS_ROUNDS` rounds (default
/// 6); `HLAMESH_DISCOVERY_QUIC_LOSS` the percentage (default 10).
#[test]
fn concurrent_join_subscribe_register_discovers_every_instance_despite_quic_loss() {
    let _g = serial();
    let lab = Lab::new(4);
    if !lab.is_namespaces() {
        eprintln!(
            "SKIPPED: QUIC packet loss needs network namespaces (root, iproute2, nftables); \
             this run is on loopback, where the kernel cannot drop a share of one port's packets"
        );
        return;
    }
    let rounds = env_rounds("HLAMESH_DISCOVERY_LOSS_ROUNDS", 6);
    let percent = env_rounds("HLAMESH_DISCOVERY_QUIC_LOSS", 10);
    let failures = run_rounds(&lab, rounds, Some(percent));
    assert!(failures.is_empty(), "{failures:#?}");
}

fn env_rounds(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs `rounds` rounds; with `quic_loss`, every LRC's QUIC endpoint listens on one known port
/// and that share of the packets arriving there is dropped. Returns the missed discoveries.
fn run_rounds(lab: &Lab, rounds: u32, quic_loss: Option<u32>) -> Vec<String> {
    let fom = repo_root()
        .join("fed-examples/foms/MovingObject.xml")
        .display()
        .to_string();
    let bin = probe_bin();
    let t0 = Instant::now();
    let mut failures = Vec::new();
    for round in 1..=rounds {
        let ports = Ports::unique();
        // Each LRC is alone in its namespace: one port number serves all of them.
        let quic = ports.raw.to_string();
        if let Some(pct) = quic_loss {
            for host in 1..=4 {
                assert!(
                    lab.loss(host, pct, ports.raw),
                    "could not set {pct} % loss on host {host}"
                );
            }
        }
        let with_quic = |mut a: Vec<String>| {
            if quic_loss.is_some() {
                a.extend(args(&["--quic-port", &quic]));
            }
            a
        };
        let fed = format!("disc{}r{round}", std::process::id());
        let mut a = base_args(lab, 4, &ports, &fed);
        a.extend(args(&[
            "--name",
            "creator",
            "--create-only",
            "--fom",
            &fom,
            "--hold-ms",
            "30000",
        ]));
        let creator = Probe::spawn(lab, 4, &bin, &with_quic(a), "creator");
        creator.wait_event("created", Duration::from_secs(15));
        // The three at once.
        let probes: Vec<Probe> = (1..=3)
            .map(|i| {
                let name = format!("f{i}");
                let mut a = base_args(lab, i, &ports, &fed);
                a.extend(args(&[
                    "--name",
                    &name,
                    "--publish",
                    "Vehicle:Position",
                    "--subscribe",
                    "Vehicle:Position",
                    "--objects",
                    "1",
                    "--hold-ms",
                    "3000",
                    "--join-retry-ms",
                    "15000",
                ]));
                Probe::spawn(lab, i, &bin, &with_quic(a), &name)
            })
            .collect();
        let deadline = Instant::now() + Duration::from_secs(40);
        let reports: BTreeMap<String, Report> = probes
            .iter()
            .map(|p| (p.name.clone(), report(p, deadline)))
            .collect();
        drop(probes);
        drop(creator);
        if quic_loss.is_some() {
            // This round's port only; the lab is torn down on drop anyway (also on failure).
            for host in 1..=4 {
                let _ = lab.loss(host, 0, ports.raw);
            }
        }
        for (name, r) in &reports {
            if let Some(e) = &r.error {
                failures.push(format!("round {round}: {name}: {e}"));
                continue;
            }
            for (other, o) in &reports {
                for i in &o.registered {
                    if other != name && !r.discovered.contains(i) {
                        failures.push(format!(
                            "round {round}: {name} (joined at {:?} ms, done at {:?} ms) never \
                             discovered {other}'s instance {i} (joined at {:?} ms, done at {:?} ms)",
                            r.joined_ms, r.done_ms, o.joined_ms, o.done_ms
                        ));
                    }
                }
            }
        }
        let others: usize = reports.values().map(|r| r.registered.len()).sum();
        assert!(
            others == 3 || !failures.is_empty(),
            "round {round}: not every federate registered: {reports:?}"
        );
    }
    eprintln!(
        "{rounds} rounds{} in {:.1} s, {} missed discoveries",
        quic_loss.map_or(String::new(), |p| format!(" with {p} % QUIC loss")),
        t0.elapsed().as_secs_f64(),
        failures.len()
    );
    failures
}
