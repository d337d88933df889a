//! Synchronization points across processes (across network namespaces when run as root): a
//! federation-wide point with a late joiner, an unsuccessful achievement and a member killed
//! while the point is pending; an explicit set (registrant outside it is not announced), the
//! registration failures, achieving an unannounced label, and label reuse. Each federate is an
//! `rti-shell` process driven line by line.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::lab::{Lab, Ports, serial};
use common::shell::{cmd, next_event, shell, until};

fn failed_set(l: &serde_json::Value) -> Vec<u64> {
    let mut v: Vec<u64> = l["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    v.sort();
    v
}

#[test]
fn federation_wide_point_with_late_joiner_failure_and_lost_member() {
    let _g = serial();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("syncw{}", std::process::id());
    let (mut a, _ha) = shell(&lab, 1, &ports, &fed, "A");
    let (mut b, hb) = shell(&lab, 2, &ports, &fed, "B");

    assert_eq!(cmd(&mut a, "register wide")["event"], "ok");
    until(&mut a, "registered", "wide");
    until(&mut a, "announce", "wide");
    until(&mut b, "announce", "wide");

    // A federate that joins while the federation-wide point is pending is announced and awaited.
    let (mut c, _hc) = shell(&lab, 3, &ports, &fed, "C");
    until(&mut c, "announce", "wide");
    let (mut d, hd) = shell(&lab, 1, &ports, &fed, "D");
    until(&mut d, "announce", "wide");

    assert_eq!(cmd(&mut a, "achieve wide")["event"], "ok");
    assert_eq!(cmd(&mut b, "achieve wide false")["event"], "ok");
    // Achieving twice is refused.
    let again = cmd(&mut b, "achieve wide");
    assert_eq!(again["event"], "failed");
    assert!(
        again["error"]
            .as_str()
            .unwrap()
            .starts_with("SynchronizationPointLabelNotAnnounced"),
        "{again}"
    );
    // D dies with the point pending: it must not block it, and shows up as failed.
    d.kill9();
    assert_eq!(cmd(&mut c, "achieve wide")["event"], "ok");
    for p in [&mut a, &mut b, &mut c] {
        let l = until(p, "synchronized", "wide");
        let mut want = vec![hb, hd];
        want.sort();
        assert_eq!(failed_set(l.last().unwrap()), want, "[{}]", p.name);
    }
    for p in [&mut a, &mut b, &mut c] {
        p.send("resign");
        next_event(p, "resigned");
    }
}

#[test]
fn explicit_set_failures_and_label_reuse() {
    let _g = serial();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("syncs{}", std::process::id());
    let (mut a, _ha) = shell(&lab, 1, &ports, &fed, "A");
    let (mut b, _hb) = shell(&lab, 2, &ports, &fed, "B");
    let (mut c, _hc) = shell(&lab, 3, &ports, &fed, "C");

    // A registers a point for B and C only: A is told it succeeded but is not announced.
    cmd(&mut a, "register pair B,C");
    let before_pair = until(&mut a, "registered", "pair");
    until(&mut b, "announce", "pair");
    until(&mut c, "announce", "pair");

    // The failures of the catalogue.
    cmd(&mut b, "register pair");
    let l = until(&mut b, "register_failed", "pair");
    assert_eq!(
        l.last().unwrap()["reason"],
        "SynchronizationPointLabelNotUnique"
    );
    cmd(&mut a, "register bad B,Nobody");
    let l = until(&mut a, "register_failed", "bad");
    assert_eq!(
        l.last().unwrap()["reason"],
        "SynchronizationSetMemberNotJoined"
    );
    let l = cmd(&mut a, "achieve pair");
    assert_eq!(l["event"], "failed");
    assert!(
        l["error"]
            .as_str()
            .unwrap()
            .starts_with("SynchronizationPointLabelNotAnnounced")
    );

    cmd(&mut b, "achieve pair");
    cmd(&mut c, "achieve pair");
    for p in [&mut b, &mut c] {
        let l = until(p, "synchronized", "pair");
        assert!(failed_set(l.last().unwrap()).is_empty());
    }
    // The label is free again; this registration's answer also orders after anything about the
    // first "pair" at A: A must never have been announced or synchronized on it.
    cmd(&mut a, "register pair A");
    let after = until(&mut a, "registered", "pair");
    let a_lines: Vec<&serde_json::Value> = before_pair.iter().chain(after.iter()).collect();
    assert!(
        !a_lines.iter().any(
            |l| (l["event"] == "announce" || l["event"] == "synchronized") && l["label"] == "pair"
        ),
        "A saw the point it is not in: {a_lines:?}"
    );
    until(&mut a, "announce", "pair");
    cmd(&mut a, "achieve pair");
    until(&mut a, "synchronized", "pair");
    for p in [&mut a, &mut b, &mut c] {
        p.send("resign");
        next_event(p, "resigned");
    }
}
