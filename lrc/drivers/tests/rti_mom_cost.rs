//! What the Management Object Model costs on the wire (issue 24): four `rti-shell` federates
//! in separate processes (in network namespaces when run as root), the UDP datagrams every
//! process sends (multicast data, QUIC, beacons) counted by the kernel (`/proc/net/snmp`,
//! `Udp: OutDatagrams`, per namespace) over windows of [`WINDOW`]:
//!
//! 1. idle, nobody subscribed to the MOM;
//! 2. idle, D subscribed to `HLAmanager.HLAfederate` at the default timing (no period);
//! 3. A, B and C streaming 100 updates a second each (the federation's traffic);
//! 4. idle again, every federate's `HLAsetTiming` at 1 s.
//!
//! Verdicts: a subscribed MOM at the default timing adds at most 1 % of the streaming
//! federation's datagrams (window 2 against window 1), and a 1 s timing adds about one
//! datagram a second per federate (window 4 against window 2). The figures are printed
//! (`--nocapture`). On loopback (not root) the namespace is the machine's, so other traffic
//! on the machine counts too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::lab::{Lab, Ports, serial};
use common::shell::{Shell, next_event, ok, shell};

const FEDERATE: &str = "HLAobjectRoot.HLAmanager.HLAfederate";
const WATCHED: &str = "HLAfederateHandle,HLAfederateName,HLAupdatesSent";
const SET_TIMING: &str = "HLAinteractionRoot.HLAmanager.HLAfederate.HLAadjust.HLAsetTiming";
const HOSTS: usize = 4;
const WINDOW: Duration = Duration::from_secs(6);

/// `Udp: OutDatagrams` of one `/proc/net/snmp`.
fn out_datagrams(snmp: &str) -> Option<u64> {
    let mut udp = snmp.lines().filter(|l| l.starts_with("Udp:"));
    let (names, values) = (udp.next()?, udp.next()?);
    let i = names.split_whitespace().position(|n| n == "OutDatagrams")?;
    values.split_whitespace().nth(i)?.parse().ok()
}

/// UDP datagrams sent so far on every host of the lab.
fn sent(lab: &Lab) -> u64 {
    let hosts = if lab.is_namespaces() { HOSTS } else { 1 };
    (1..=hosts)
        .map(|h| {
            let o = lab
                .command(h, "cat")
                .arg("/proc/net/snmp")
                .output()
                .expect("cat /proc/net/snmp");
            out_datagrams(&String::from_utf8_lossy(&o.stdout)).expect("Udp: OutDatagrams")
        })
        .sum()
}

/// Datagrams sent during one window from now.
fn window(lab: &Lab) -> u64 {
    let before = sent(lab);
    std::thread::sleep(WINDOW);
    sent(lab) - before
}

fn registered(p: &mut Shell) -> u64 {
    ok(p, "publish Employee PayRate");
    ok(p, "register-object Employee");
    next_event(p, "registered_object")["object"]
        .as_u64()
        .unwrap()
}

#[test]
fn the_mom_costs_nothing_at_the_default_timing_and_a_datagram_a_second_per_federate_at_1_s() {
    let _serial = serial();
    let lab = Lab::new(HOSTS);
    let ports = Ports::unique();
    let fed = format!("momcost{}", std::process::id());
    let (mut a, ha) = shell(&lab, 1, &ports, &fed, "A");
    let (mut b, hb) = shell(&lab, 2, &ports, &fed, "B");
    let (mut c, hc) = shell(&lab, 3, &ports, &fed, "C");
    let (mut d, hd) = shell(&lab, 4, &ports, &fed, "D");
    let objects = [registered(&mut a), registered(&mut b), registered(&mut c)];

    // Two windows each for the idle and the watched federation, compared as the busier idle
    // against the quieter watched one: the idle traffic (QUIC acknowledgements, heartbeats)
    // wanders by some ten datagrams a second when the machine is loaded (a full `.ci/run` with
    // a simulator sweep beside it measured idle 275.7 and watched 290.0 with no MOM traffic at
    // all), while a cost of the MOM would show in every window.
    let idle = window(&lab).max(window(&lab));

    // D watches the MOM; nothing periodic is set, and it asks for nothing.
    ok(&mut d, &format!("subscribe {FEDERATE} {WATCHED}"));
    let mut discovered = 0;
    while discovered < HOSTS {
        let l = next_event(&mut d, "discover");
        if l["label"]
            .as_str()
            .is_some_and(|n| n.starts_with("HLAfederate."))
        {
            discovered += 1;
        }
    }
    let watched = window(&lab).min(window(&lab));

    // The federation's own traffic: 100 updates a second from each of A, B, C for three
    // windows; the middle one is measured.
    for (p, o) in [&mut a, &mut b, &mut c].into_iter().zip(objects) {
        p.send(&format!("stream {o} PayRate 1800 10"));
    }
    std::thread::sleep(WINDOW);
    let streaming = window(&lab);
    for p in [&mut a, &mut b, &mut c] {
        next_event(p, "streamed");
    }

    // Every federate's instance updated each second.
    ok(&mut d, &format!("publish-interaction {SET_TIMING}"));
    for h in [ha, hb, hc, hd] {
        ok(
            &mut d,
            &format!("send-mom {SET_TIMING} {h} HLAreportPeriod=00000001"),
        );
    }
    // The first periodic round has come once every instance was reflected again.
    let start = Instant::now();
    let mut updated = std::collections::BTreeSet::new();
    while updated.len() < HOSTS {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "no periodic MOM updates"
        );
        let l = next_event(&mut d, "reflect");
        if let Some(o) = l["object"].as_u64() {
            updated.insert(o);
        }
    }
    let timed = window(&lab);

    let per_s = |n: u64| n as f64 / WINDOW.as_secs_f64();
    eprintln!(
        "UDP datagrams/s, {} ({HOSTS} LRCs): idle {:.1}; idle with the MOM watched at the \
         default timing {:.1}; streaming 300 updates/s {:.1}; idle with HLAsetTiming 1 s {:.1}",
        if lab.is_namespaces() {
            "network namespaces"
        } else {
            "loopback (machine-wide)"
        },
        per_s(idle),
        per_s(watched),
        per_s(streaming),
        per_s(timed),
    );
    // At the default timing the MOM adds at most 1 % of what the streaming federation sends.
    let added = watched.saturating_sub(idle);
    assert!(
        added * 100 <= streaming,
        "the watched MOM added {added} datagrams in {WINDOW:?}, over 1 % of {streaming}"
    );
    // A 1 s timing: about one datagram a second per federate (each instance's update), over
    // the larger of the two windows without it. Idle and watched at the default timing send the
    // same by design, so their difference is this run's noise and is allowed on top (a CI run
    // saw idle 292.0/s, watched 285.5/s, 1 s timing 295.0/s: 9.5/s over watched, 3.0/s over
    // idle). That the timing took effect is checked above (every instance reflected again);
    // updates sent ten times as often as the timing asks still fail here.
    let baseline = idle.max(watched);
    let noise = per_s(idle.abs_diff(watched));
    let timing = per_s(timed.saturating_sub(baseline.min(timed)));
    let expected = HOSTS as f64;
    assert!(
        timing <= 2.0 * expected + noise,
        "HLAsetTiming 1 s added {timing:.1} datagrams/s for {HOSTS} federates (noise {noise:.1}/s)"
    );
}
