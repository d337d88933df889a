//! Synchronization points across processes (across network namespaces when run as root): a
//! federation-wide point with a late joiner, an unsuccessful achievement and a member killed
//! while the point is pending; an explicit set (registrant outside it is not announced), the
//! registration failures, achieving an unannounced label, and label reuse. Each federate is an
//! `rti-shell` process driven line by line.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::VecDeque;
use std::ops::{Deref, DerefMut};
use std::time::{Duration, Instant};

use common::lab::{Lab, Ports, Probe, args, base_args, serial};

const T: Duration = Duration::from_secs(20);

/// An `rti-shell` process and the lines it printed before its join returned (callbacks for a
/// joining federate, e.g. the announcement of a pending point, may come first).
struct Shell {
    p: Probe,
    backlog: VecDeque<serde_json::Value>,
}

impl Deref for Shell {
    type Target = Probe;
    fn deref(&self) -> &Probe {
        &self.p
    }
}

impl DerefMut for Shell {
    fn deref_mut(&mut self) -> &mut Probe {
        &mut self.p
    }
}

fn shell(lab: &Lab, host: usize, ports: &Ports, fed: &str, name: &str) -> (Shell, u64) {
    let mut a = base_args(lab, host, ports, fed);
    a.extend(args(&["--name", name, "--create", "--fom"]));
    a.push(common::fom("RestaurantProcesses.xml").display().to_string());
    let p = Probe::spawn_interactive(lab, host, env!("CARGO_BIN_EXE_rti-shell"), &a, name);
    let mut backlog = VecDeque::new();
    loop {
        let l = p.lines.recv_timeout(T).expect("joined in time");
        assert_ne!(l["event"], "error", "[{name}] {l}");
        if l["event"] == "joined" {
            let h = l["handle"].as_u64().unwrap();
            return (Shell { p, backlog }, h);
        }
        backlog.push_back(l);
    }
}

/// Lines up to and including the first `event` with `label`; panics on a timeout.
fn until(p: &mut Shell, event: &str, label: &str) -> Vec<serde_json::Value> {
    let end = Instant::now() + T;
    let mut v = Vec::new();
    loop {
        let left = end.saturating_duration_since(Instant::now());
        let next = match p.backlog.pop_front() {
            Some(l) => Ok(l),
            None => p.p.lines.recv_timeout(left),
        };
        match next {
            Ok(l) => {
                assert_ne!(l["event"], "error", "[{}] {l}", p.name);
                let hit = l["event"] == event && l["label"] == label;
                v.push(l);
                if hit {
                    return v;
                }
            }
            Err(_) => panic!("[{}] no {event} {label} within {T:?}; got {v:?}", p.name),
        }
    }
}

fn cmd(p: &mut Shell, line: &str) -> serde_json::Value {
    p.send(line);
    let end = Instant::now() + T;
    loop {
        let l =
            p.p.lines
                .recv_timeout(end.saturating_duration_since(Instant::now()))
                .unwrap_or_else(|_| panic!("[{}] no answer to {line}", p.name));
        if (l["event"] == "ok" || l["event"] == "failed") && l["cmd"] == line {
            return l;
        }
        p.backlog.push_back(l);
    }
}

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
        p.wait_event("resigned", T);
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
        p.wait_event("resigned", T);
    }
}
