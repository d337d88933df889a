//! Instances left unowned by a divesting resignation (orphans) outlive the process that
//! registered them: a federate joining after that process exited still discovers them, because the
//! coordinator hands on orphans whose LRC hosts no federate any more
//! (`hlamesh_lrc::core::state_transfer`). Separate `rti-probe` processes, across namespaces when
//! run as root.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use common::lab::{Lab, Ports, Probe, args, base_args, serial};

fn probe(lab: &Lab, host: usize, ports: &Ports, fed: &str, extra: &[&str], name: &str) -> Probe {
    let mut a = base_args(lab, host, ports, fed);
    a.extend(args(&["--name", name]));
    for f in common::RESTAURANT {
        a.push("--fom".to_string());
        a.push(common::fom(f).display().to_string());
    }
    a.extend(args(extra));
    a.extend(args(&["--join-retry-ms", "10000"]));
    Probe::spawn(lab, host, env!("CARGO_BIN_EXE_rti-probe"), &a, name)
}

/// The objects of the first `n` discover events.
fn discovered(p: &Probe, n: usize) -> BTreeSet<u64> {
    let end = Instant::now() + Duration::from_secs(20);
    let mut v = BTreeSet::new();
    while v.len() < n {
        let l = p
            .lines
            .recv_timeout(end.saturating_duration_since(Instant::now()))
            .unwrap_or_else(|_| panic!("[{}] discovered only {v:?}", p.name));
        assert_ne!(l["event"], "error", "[{}] {l}", p.name);
        assert_ne!(
            l["event"], "remove",
            "[{}] orphans are never removed: {l}",
            p.name
        );
        if l["event"] == "discover" {
            v.insert(l["object"].as_u64().unwrap());
        }
    }
    v
}

#[test]
fn orphans_reach_a_late_joiner_after_their_registrant_process_exited() {
    let _g = serial();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("orph{}", std::process::id());
    let sub = [
        "--subscribe",
        "Food.Drink.Soda:NumberCups",
        "--hold-ms",
        "60000",
    ];
    let mut creator = probe(
        &lab,
        1,
        &ports,
        &fed,
        &[&["--create"][..], &sub].concat(),
        "A",
    );
    creator.wait_event("joined", Duration::from_secs(20));
    let mut publisher = probe(
        &lab,
        2,
        &ports,
        &fed,
        &[
            "--publish",
            "Food.Drink.Soda:NumberCups,Flavor",
            "--objects",
            "2",
            "--updates",
            "3",
            "--resign-divest",
        ],
        "P",
    );
    let reg = publisher.wait_event("registered", Duration::from_secs(20));
    let objects: BTreeSet<u64> = reg["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_u64().unwrap())
        .collect();
    publisher.wait_event("done", Duration::from_secs(20));
    assert_eq!(publisher.wait_exit(Duration::from_secs(10)), Some(0));
    assert_eq!(discovered(&creator, 2), objects);

    // The registrant's process is gone; a late joiner on a third host still discovers both.
    let mut late = probe(&lab, 3, &ports, &fed, &sub, "L");
    assert_eq!(discovered(&late, 2), objects);
    late.kill9();
    creator.kill9();
}
