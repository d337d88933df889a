//! Update rate designators across processes (issue 24): a publisher updates one instance at
//! 60 Hz for four seconds; a subscriber that subscribed with the FDD's `TenHz` receives 10 ± 1
//! updates per second of wall time, each the latest, and the publisher's last value; a
//! subscriber without a rate receives all of them. With only rated subscribers the publisher's
//! LRC thins the multicast itself. Every federate is a separate `rti-probe` process; the FOM is
//! `foms/UpdateRates.xml`. Semantics: `hlamesh_core::core::update_rate`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::lab::{Lab, Ports, Probe, args, base_args, serial};

/// Updates the publisher sends: four seconds at 60 Hz.
const UPDATES: u64 = 240;

fn fed_name(tag: &str) -> String {
    format!("{tag}{}", std::process::id())
}

fn probe(lab: &Lab, host: usize, ports: &Ports, fed: &str, extra: &[&str], name: &str) -> Probe {
    let mut a = base_args(lab, host, ports, fed);
    a.extend(args(&["--name", name, "--fom"]));
    a.push(common::fom("UpdateRates.xml").display().to_string());
    a.extend(args(extra));
    Probe::spawn(lab, host, env!("CARGO_BIN_EXE_rti-probe"), &a, name)
}

/// A subscriber of `Track.Sequence`, at `rate` if given; it creates the federation when
/// `create`. Returns once it subscribed.
fn subscriber(
    lab: &Lab,
    host: usize,
    ports: &Ports,
    fed: &str,
    rate: Option<&str>,
    create: bool,
    name: &str,
) -> Probe {
    let mut extra = vec!["--subscribe", "Track:Sequence", "--hold-ms", "60000"];
    extra.extend(["--join-retry-ms", "10000"]);
    if create {
        extra.push("--create");
    }
    if let Some(r) = rate {
        extra.extend(["--subscribe-rate", r]);
    }
    let p = probe(lab, host, ports, fed, &extra, name);
    if let Some(r) = rate {
        let l = p.wait_event("rate", Duration::from_secs(20));
        assert_eq!(l["designator"], r);
        assert_eq!(l["hz"], 10.0, "getUpdateRateValue of {r}");
    }
    p.wait_event("declared", Duration::from_secs(20));
    p
}

fn publisher(lab: &Lab, host: usize, ports: &Ports, fed: &str) -> Probe {
    let updates = UPDATES.to_string();
    probe(
        lab,
        host,
        ports,
        fed,
        &[
            "--join-retry-ms",
            "10000",
            "--publish",
            "Track:Sequence",
            "--objects",
            "1",
            "--updates",
            &updates,
            "--update-hz",
            "60",
            "--hold-ms",
            "1500",
        ],
        "pub",
    )
}

/// Reflections (milliseconds since the process started, value) until the value `last`
/// arrives, within `timeout`.
fn reflections_until(p: &Probe, last: u64, timeout: Duration) -> Vec<(u64, u64)> {
    let end = Instant::now() + timeout;
    let mut got = Vec::new();
    loop {
        let left = end.saturating_duration_since(Instant::now());
        let l = p.lines.recv_timeout(left).unwrap_or_else(|_| {
            panic!("[{}] value {last} not within {timeout:?}: {got:?}", p.name)
        });
        assert_ne!(l["event"], "error", "[{}] {l}", p.name);
        if l["event"] != "reflect" {
            continue;
        }
        let v = (l["ms"].as_u64().unwrap(), l["seq"].as_u64().unwrap());
        got.push(v);
        if v.1 == last {
            return got;
        }
    }
}

/// Reflections in each whole second from the first reflection up to the last.
fn per_second(got: &[(u64, u64)]) -> Vec<usize> {
    let (first, last) = (got[0].0, got[got.len() - 1].0);
    let whole = (last - first) / 1000;
    (0..whole)
        .map(|s| {
            let (a, b) = (first + s * 1000, first + (s + 1) * 1000);
            got.iter().filter(|(t, _)| *t >= a && *t < b).count()
        })
        .collect()
}

/// The 10 Hz subscriber's reflections: 10 ± 1 a second, increasing values, and the last value.
fn check_ten_hertz(name: &str, got: &[(u64, u64)]) {
    let rates = per_second(got);
    eprintln!("{name}: {} reflections, per second {rates:?}", got.len());
    assert!(rates.len() >= 3, "{name}: {got:?}");
    for n in &rates {
        assert!(
            (9..=11).contains(n),
            "{name}: {n} in one second: {rates:?} {got:?}"
        );
    }
    for w in got.windows(2) {
        assert!(w[1].1 > w[0].1, "{name}: values out of order {w:?}");
        // Never faster than the rate, give or take the callback thread's own delays (the
        // times are the callbacks', in whole milliseconds).
        assert!(
            w[1].0 + 15 >= w[0].0 + 100,
            "{name}: closer than 100 ms {w:?}"
        );
    }
    // The latest values: about six publisher updates between two reflections (60 Hz / 10 Hz),
    // not the first one after each interval opened.
    let gaps: Vec<u64> = got.windows(2).map(|w| w[1].1 - w[0].1).collect();
    let mean = gaps.iter().sum::<u64>() as f64 / gaps.len() as f64;
    eprintln!(
        "{name}: values {mean:.2} updates apart on average, the last {}",
        got[got.len() - 1].1
    );
    assert!(
        (5.0..=7.5).contains(&mean),
        "{name}: {mean} values apart: {gaps:?}"
    );
}

#[test]
fn a_ten_hertz_subscriber_of_a_sixty_hertz_publisher_beside_one_without_a_rate() {
    let _g = serial();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = fed_name("rates");
    let slow = subscriber(&lab, 1, &ports, &fed, Some("TenHz"), true, "slow");
    let all = subscriber(&lab, 2, &ports, &fed, None, false, "all");
    let p = publisher(&lab, 3, &ports, &fed);
    let got_slow = reflections_until(&slow, UPDATES, Duration::from_secs(30));
    let got_all = reflections_until(&all, UPDATES, Duration::from_secs(30));
    let updated = p.wait_event("updated", Duration::from_secs(30));
    eprintln!("publisher: {updated}");
    check_ten_hertz("slow", &got_slow);
    // The subscriber without a rate gets every update, in order.
    let values: Vec<u64> = got_all.iter().map(|g| g.1).collect();
    assert_eq!(values, (1..=UPDATES).collect::<Vec<_>>(), "all");
    let rates = per_second(&got_all);
    eprintln!("all: {} reflections, per second {rates:?}", got_all.len());
    for n in &rates {
        assert!((55..=65).contains(n), "all: {n} in one second: {rates:?}");
    }
    // Someone wants every update: the publisher's LRC thinned nothing.
    assert!(
        updated["datagrams_sent"].as_u64().unwrap() >= UPDATES,
        "{updated}"
    );
}

#[test]
fn with_only_rated_subscribers_the_publishers_lrc_thins_the_multicast() {
    let _g = serial();
    let lab = Lab::new(2);
    let ports = Ports::unique();
    let fed = fed_name("ratesend");
    let slow = subscriber(&lab, 1, &ports, &fed, Some("TenHz"), true, "slow");
    let p = publisher(&lab, 2, &ports, &fed);
    let got = reflections_until(&slow, UPDATES, Duration::from_secs(30));
    let updated = p.wait_event("updated", Duration::from_secs(30));
    eprintln!("publisher: {updated}");
    check_ten_hertz("slow", &got);
    // About 10 a second for 4 s, plus the declarations and the registration; a few updates
    // may go out before the publisher's LRC learnt the subscriber's rate.
    let sent = updated["datagrams_sent"].as_u64().unwrap();
    assert!(
        sent <= UPDATES / 3,
        "{sent} datagrams for {UPDATES} updates"
    );
}
