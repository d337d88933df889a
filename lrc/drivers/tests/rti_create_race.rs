//! The create race across processes, many rounds: N `rti-probe` processes create the same
//! federation at one wall-clock instant and then join it. Every round must have exactly one
//! creator and every process joined; the figures (create and create-to-joined times) are
//! printed. A variant runs the same rounds while busy threads keep every CPU loaded, which
//! delays the discovery and LRC threads the race's barrier has to cope with.
//!
//! `HLAMESH_RACE_ROUNDS` sets the number of rounds (default 8), `HLAMESH_RACE_PROCESSES` the
//! processes per round (default 6).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::lab::{Lab, Ports, Probe, args, base_args, serial};

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// What one round measured.
struct Round {
    created: usize,
    /// Per process: how long its create took, ms.
    create_ms: Vec<f64>,
    /// Per process: from its create call to joined, ms.
    to_joined_ms: Vec<f64>,
}

fn round(lab: &Lab, processes: usize, tag: &str) -> Round {
    // Fresh ports and groups: processes of an earlier round may still be leaving.
    let ports = Ports::unique();
    let fed = format!("{tag}{}x{}", std::process::id(), unix_ms() % 100_000);
    // Far enough ahead for every process to have started its LRC, even under load.
    let at = unix_ms() + 700;
    let mut ps: Vec<Probe> = Vec::new();
    for i in 0..processes {
        let host = 1 + i % lab_hosts(lab, processes);
        let mut a = base_args(lab, host, &ports, &fed);
        for f in common::RESTAURANT {
            a.push("--fom".into());
            a.push(common::fom(f).display().to_string());
        }
        a.extend(args(&[
            "--name",
            &format!("r{i}"),
            "--create",
            "--create-at-unix-ms",
            &at.to_string(),
            "--join-retry-ms",
            "3000",
            "--hold-ms",
            "1500",
        ]));
        ps.push(Probe::spawn(
            lab,
            host,
            env!("CARGO_BIN_EXE_rti-probe"),
            &a,
            &format!("r{i}"),
        ));
    }
    let mut r = Round {
        created: 0,
        create_ms: Vec::new(),
        to_joined_ms: Vec::new(),
    };
    let mut outcomes = Vec::new();
    for p in &ps {
        let line = p
            .lines
            .recv_timeout(Duration::from_secs(15))
            .unwrap_or_else(|_| panic!("[{}] no create outcome", p.name));
        let event = line["event"].as_str().unwrap_or("?").to_string();
        assert!(
            event == "created" || event == "exists",
            "[{}] {line}",
            p.name
        );
        r.created += usize::from(event == "created");
        let create_ms = line["create_ms"].as_f64().expect("create_ms");
        let create_started = line["since_start_ms"].as_f64().expect("since_start_ms") - create_ms;
        r.create_ms.push(create_ms);
        outcomes.push(event);
        let joined = p.wait_event("joined", Duration::from_secs(15));
        let joined_at = joined["since_start_ms"].as_f64().expect("since_start_ms");
        r.to_joined_ms.push(joined_at - create_started);
    }
    assert_eq!(
        r.created, 1,
        "round {fed}: exactly one process must create the federation: {outcomes:?}"
    );
    r
}

/// Hosts to spread `processes` over: one each in network namespaces, loopback otherwise.
fn lab_hosts(lab: &Lab, processes: usize) -> usize {
    if lab.is_namespaces() { processes } else { 1 }
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i.min(v.len() - 1)]
}

fn rounds(tag: &str, busy_threads: usize) {
    let _g = serial();
    let processes = env_or("HLAMESH_RACE_PROCESSES", 6);
    let n = env_or("HLAMESH_RACE_ROUNDS", 8);
    let lab = Lab::new(processes);
    let stop = Arc::new(AtomicBool::new(false));
    let busy: Vec<_> = (0..busy_threads)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut x = 0u64;
                // Bounded by the flag, which the test sets when its rounds end (or it fails).
                while !stop.load(Ordering::Relaxed) {
                    x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005) + 1);
                }
            })
        })
        .collect();
    struct Stop(Arc<AtomicBool>);
    impl Drop for Stop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    let _stop = Stop(stop.clone());
    let mut create = Vec::new();
    let mut joined = Vec::new();
    for i in 0..n {
        let r = round(&lab, processes, tag);
        eprintln!(
            "round {i}: 1 creator of {processes}; create {:.1}..{:.1} ms, create to joined \
             {:.1}..{:.1} ms",
            r.create_ms.iter().copied().fold(f64::MAX, f64::min),
            r.create_ms.iter().copied().fold(0.0, f64::max),
            r.to_joined_ms.iter().copied().fold(f64::MAX, f64::min),
            r.to_joined_ms.iter().copied().fold(0.0, f64::max),
        );
        create.extend(r.create_ms);
        joined.extend(r.to_joined_ms);
    }
    stop.store(true, Ordering::Relaxed);
    for t in busy {
        t.join().expect("busy thread");
    }
    eprintln!(
        "{tag}: {n} rounds x {processes} processes, {busy_threads} busy threads, {}: exactly one \
         creator every round; create p50 {:.1} ms max {:.1} ms; create to joined p50 {:.1} ms \
         p90 {:.1} ms max {:.1} ms",
        if lab.is_namespaces() {
            "network namespaces"
        } else {
            "loopback"
        },
        percentile(&mut create, 0.5),
        percentile(&mut create, 1.0),
        percentile(&mut joined, 0.5),
        percentile(&mut joined, 0.9),
        percentile(&mut joined, 1.0),
    );
}

#[test]
fn simultaneous_creates_have_exactly_one_winner_every_round() {
    rounds("race", 0);
}

#[test]
fn simultaneous_creates_have_exactly_one_winner_under_cpu_load() {
    let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
    rounds("raceload", 2 * cpus);
}
