//! Soak: the memory of long-running members stays bounded while a federation streams and a
//! member keeps dying. Three `rti-probe` federates, real processes on real multicast and QUIC (in
//! network namespaces when run as root, see `common::lab`): A creates the federation, registers
//! an object and updates it every 2 ms; B subscribes; C registers its own object, updates it
//! every 2 ms and subscribes, and is killed with SIGKILL and restarted every 20 s. The resident
//! set size of A and B (never restarted) is read from `/proc/<pid>/status` every second.
//!
//! Verdict ([`verdict`]): after a warm-up (the first fifth of the run, at least 30 s: buffers,
//! windows and the allocator settle), the highest RSS of the last quarter of the samples may
//! exceed the highest RSS of the first quarter by at most [`TOLERANCE_KB`]. Maxima, not single
//! samples, so one allocation burst at a restart does not decide; quarters far apart, so a
//! steady leak adds up over half the measured time. Before the retransmit buffer released
//! acknowledged datagrams, A grew by ≈ 95 KB/s at this rate (≈ 8 MB between the quarters of the
//! default run); now it stays within ≈ 200 KB.
//!
//! Length: `HLAMESH_SOAK_SECS` (default 150; e.g. `HLAMESH_SOAK_SECS=3600` for an hour).
//! `HLAMESH_SOAK_PROBE` runs another build's `rti-probe` instead of this one's (e.g. to show that
//! an older build fails the soak).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::lab::{Lab, Ports, Probe, args, base_args, repo_root, serial};

/// Default length of the run, seconds (CI).
const DEFAULT_SECS: u64 = 150;
/// Growth allowed between the first and the last quarter after warm-up. A bounded member still
/// creeps by allocator fragmentation, a few KB per restarted peer (connections and handshakes
/// come and go); 2 MiB covers an hour of restarts every 20 s several times over, and is a
/// quarter of what the unbounded retransmit buffer added in the default run.
const TOLERANCE_KB: u64 = 2048;
/// C is killed and restarted this often.
const KILL_EVERY: Duration = Duration::from_secs(20);
const SAMPLE_EVERY: Duration = Duration::from_secs(1);
const UPDATE_INTERVAL_MS: &str = "2";

fn soak_secs() -> u64 {
    std::env::var("HLAMESH_SOAK_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_SECS)
        .max(60)
}

/// VmRSS of a process, KB.
fn rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// Samples (seconds since start, RSS KB) → Ok(summary) if bounded, Err(summary) if the last
/// quarter after warm-up is more than `tolerance_kb` above the first.
fn verdict(samples: &[(f64, u64)], warmup_secs: f64, tolerance_kb: u64) -> Result<String, String> {
    let post: Vec<(f64, u64)> = samples
        .iter()
        .copied()
        .filter(|(t, _)| *t >= warmup_secs)
        .collect();
    let q = post.len() / 4;
    if q < 5 {
        return Err(format!("too few samples after warm-up: {}", post.len()));
    }
    let max = |s: &[(f64, u64)]| s.iter().map(|x| x.1).max().unwrap_or(0);
    let (first, last) = (max(&post[..q]), max(&post[post.len() - q..]));
    let growth = last.saturating_sub(first);
    // Least-squares slope over the samples after warm-up, for the report only.
    let n = post.len() as f64;
    let (mt, mr) = post
        .iter()
        .fold((0.0, 0.0), |(a, b), (t, r)| (a + t / n, b + *r as f64 / n));
    let (num, den) = post.iter().fold((0.0, 0.0), |(a, b), (t, r)| {
        (a + (t - mt) * (*r as f64 - mr), b + (t - mt) * (t - mt))
    });
    let slope = if den > 0.0 { num / den * 60.0 } else { 0.0 };
    let summary = format!(
        "RSS {} → {} KB over the run; first-quarter max {first} KB, last-quarter max {last} KB \
         (growth {growth} KB, tolerance {tolerance_kb} KB); fitted slope {slope:.0} KB/min",
        samples.first().map_or(0, |s| s.1),
        samples.last().map_or(0, |s| s.1),
    );
    if growth > tolerance_kb {
        Err(summary)
    } else {
        Ok(summary)
    }
}

/// What B reported, by producing federate handle: reflections, and the time of the last one.
#[derive(Default)]
struct Stream {
    reflections: u64,
    last: Option<Instant>,
}

/// Drains a probe's lines; fails on an error event; counts reflections by producer.
fn drain(p: &Probe, streams: Option<&mut BTreeMap<u64, Stream>>) {
    let mut streams = streams;
    while let Ok(l) = p.lines.try_recv() {
        assert_ne!(l["event"], "error", "[{}] {l}", p.name);
        if l["event"] == "reflect"
            && let (Some(s), Some(producer)) = (streams.as_deref_mut(), l["producer"].as_u64())
        {
            let e = s.entry(producer).or_default();
            e.reflections += 1;
            e.last = Some(Instant::now());
        }
    }
}

#[test]
fn memory_stays_bounded_while_streaming_with_a_member_killed_every_20_s() {
    let _g = serial();
    let secs = soak_secs();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("soak{}", std::process::id());
    let fom = repo_root().join("fed-examples/foms/MovingObject.xml");
    let program = std::env::var("HLAMESH_SOAK_PROBE")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_rti-probe").to_string());
    let probe = |host: usize, extra: &[&str], name: &str| {
        let mut a = base_args(&lab, host, &ports, &fed);
        a.extend(args(&["--name", name, "--join-retry-ms", "10000"]));
        a.extend(args(extra));
        Probe::spawn(&lab, host, &program, &a, name)
    };
    let streaming = [
        "--publish",
        "Vehicle:Position",
        "--objects",
        "1",
        "--forever",
        "--interval-ms",
        UPDATE_INTERVAL_MS,
    ];
    let mut a_args = vec!["--create", "--fom", fom.to_str().unwrap()];
    a_args.extend(streaming);
    let a = probe(1, &a_args, "A");
    let a_handle = a.wait_event("joined", Duration::from_secs(20))["handle"]
        .as_u64()
        .unwrap();
    a.wait_event("registered", Duration::from_secs(20));
    // B only listens: --forever keeps it joined (it has nothing to update).
    let b = probe(
        2,
        &[
            "--subscribe",
            "Vehicle:Position",
            "--forever",
            "--interval-ms",
            "100",
        ],
        "B",
    );
    b.wait_event("joined", Duration::from_secs(30));
    let mut c_args = streaming.to_vec();
    c_args.extend(["--subscribe", "Vehicle:Position"]);
    let mut incarnation = 0;
    let mut c = probe(3, &c_args, "C0");

    let (a_pid, b_pid) = (a.child.id(), b.child.id());
    let mut streams: BTreeMap<u64, Stream> = BTreeMap::new();
    let (mut rss_a, mut rss_b) = (Vec::new(), Vec::new());
    let start = Instant::now();
    let end = start + Duration::from_secs(secs);
    let mut next_kill = start + KILL_EVERY;
    let mut next_sample = start;
    eprintln!("soak: {secs} s, C killed every {KILL_EVERY:?}");
    while Instant::now() < end {
        let now = Instant::now();
        if now >= next_sample {
            let t = now.duration_since(start).as_secs_f64();
            let (ra, rb) = (rss_kb(a_pid), rss_kb(b_pid));
            assert!(ra.is_some() && rb.is_some(), "A or B died");
            rss_a.push((t, ra.unwrap()));
            rss_b.push((t, rb.unwrap()));
            next_sample += SAMPLE_EVERY;
        }
        if now >= next_kill {
            c.kill9();
            // Restarted a moment later, as an operator or a supervisor would.
            std::thread::sleep(Duration::from_millis(300));
            incarnation += 1;
            c = probe(3, &c_args, &format!("C{incarnation}"));
            next_kill += KILL_EVERY;
        }
        drain(&a, None);
        drain(&b, Some(&mut streams));
        drain(&c, None);
        std::thread::sleep(Duration::from_millis(50));
    }
    drain(&b, Some(&mut streams));

    // The run streamed throughout: A reached B until the end, and the C incarnations did too.
    // Most, not all: a C that is never discovered is a discovery defect with its own tests
    // (rti_multiprocess), not this test's subject; the last one may have just started.
    let a_stream = streams.get(&a_handle).expect("B reflected A's updates");
    assert!(
        a_stream
            .last
            .is_some_and(|l| l.elapsed() < Duration::from_secs(5)),
        "A's stream stopped reaching B"
    );
    let c_streams = streams.len() - 1;
    assert!(
        2 * c_streams > incarnation,
        "B heard only {c_streams} of {} C incarnations",
        incarnation + 1
    );
    eprintln!(
        "B reflected {} of A's updates and {} C incarnations' ({} in all)",
        a_stream.reflections,
        c_streams,
        streams.values().map(|s| s.reflections).sum::<u64>()
    );

    let warmup = (secs as f64 / 5.0).max(30.0);
    let mut failed = Vec::new();
    for (name, samples) in [("A (publisher)", &rss_a), ("B (subscriber)", &rss_b)] {
        match verdict(samples, warmup, TOLERANCE_KB) {
            Ok(s) => eprintln!("{name}: {s}"),
            Err(s) => {
                eprintln!("{name}: GROWS: {s}");
                failed.push(name);
            }
        }
    }
    let every_10th = |s: &[(f64, u64)]| -> Vec<String> {
        s.iter()
            .step_by(10)
            .map(|(t, kb)| format!("{t:.0}s:{kb}"))
            .collect()
    };
    assert!(
        failed.is_empty(),
        "memory keeps growing in {failed:?}; RSS KB every 10 s: A {:?} B {:?}",
        every_10th(&rss_a),
        every_10th(&rss_b)
    );
}

#[test]
fn verdict_tells_a_leak_from_a_plateau_with_noise_and_steps() {
    let ramp = |per_s: f64| -> Vec<(f64, u64)> {
        (0..150)
            .map(|t| (t as f64, 12_000 + (t as f64 * per_s) as u64))
            .collect()
    };
    // The retransmit buffer of A at this rate before the fix, and a tenth of it.
    assert!(verdict(&ramp(95.0), 30.0, TOLERANCE_KB).is_err());
    assert!(verdict(&ramp(30.0), 30.0, TOLERANCE_KB).is_err());
    // Bounded: a plateau after warm-up, with ±300 KB jitter, bursts at restarts, and a step
    // of 1.5 MB (a late high-water mark of the allocator).
    let noisy: Vec<(f64, u64)> = (0..150u64)
        .map(|t| {
            let base = if t < 20 { 8_000 + t * 200 } else { 12_000 };
            let jitter = (t * 7919) % 600;
            let burst = if t % 20 == 1 { 900 } else { 0 };
            let step = if t > 100 { 1_500 } else { 0 };
            (t as f64, base + jitter + burst + step)
        })
        .collect();
    assert!(verdict(&noisy, 30.0, TOLERANCE_KB).is_ok());
    assert!(
        verdict(&noisy[..40], 30.0, TOLERANCE_KB).is_err(),
        "too short"
    );
}
