//! Frame jitter of a real-time paced periodic engine (not a test: figures only).
//!
//! One engine (a lone commander: it creates its federation, synchronizes with itself, and runs
//! time-constrained TAR steps over the real transport on loopback) runs at 60 Hz in real time;
//! each frame records its wall-clock start. Reported: the lateness of every frame start against
//! the ideal schedule (first frame + k/60 s), and the interval error |interval − period|. The
//! baseline, measured in the same run, is the bare pacer loop (FramePacer + sleep, no RTI).
//!
//! ```text
//! cargo bench -p hlamesh-examples --bench frame_jitter            # 5 s each
//! HLAMESH_JITTER_SECONDS=20 cargo bench -p hlamesh-examples --bench frame_jitter
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use hlamesh_engine::{Ctx, Engine, EngineConfig, EngineError, Pace, Role, Simulation, TimeScheme};
use hlamesh_lrc::node::Lrc;
use hlamesh_timesync::pacer::FramePacer;
use hlamesh_transport::TransportConfig;

const HZ: u32 = 60;

struct Recorder {
    starts: Vec<Instant>,
    seconds: f64,
}

impl Simulation for Recorder {
    type Command = ();
    fn on_load(&mut self, ctx: &mut Ctx<'_>, _s: &[u8]) -> Result<(), EngineError> {
        ctx.set_end_time(self.seconds);
        Ok(())
    }
    fn on_frame(&mut self, _ctx: &mut Ctx<'_>) -> Result<(), EngineError> {
        self.starts.push(Instant::now());
        Ok(())
    }
}

struct Stats {
    late_p50: f64,
    late_p99: f64,
    late_max: f64,
    int_p50: f64,
    int_p99: f64,
    int_max: f64,
    frames: usize,
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn stats(starts: &[Instant]) -> Stats {
    let period = 1.0 / f64::from(HZ);
    let t0 = starts[0];
    let mut late: Vec<f64> = starts
        .iter()
        .enumerate()
        .map(|(k, s)| (s.duration_since(t0).as_secs_f64() - k as f64 * period) * 1e3)
        .collect();
    let mut int: Vec<f64> = starts
        .windows(2)
        .map(|w| ((w[1] - w[0]).as_secs_f64() - period).abs() * 1e3)
        .collect();
    Stats {
        late_p50: pct(&mut late, 0.5),
        late_p99: pct(&mut late, 0.99),
        late_max: pct(&mut late, 1.0),
        int_p50: pct(&mut int, 0.5),
        int_p99: pct(&mut int, 0.99),
        int_max: pct(&mut int, 1.0),
        frames: starts.len(),
    }
}

fn baseline(seconds: f64) -> Vec<Instant> {
    let epoch = Instant::now();
    let now = || epoch.elapsed().as_nanos() as u64;
    let mut p = FramePacer::with_rate(now(), HZ, Pace::RealTime { scale: 1.0 }).unwrap();
    let n = (seconds * f64::from(HZ)) as usize;
    let mut starts = Vec::with_capacity(n);
    for _ in 0..n {
        starts.push(Instant::now());
        let out = p.frame_done(now());
        if let Some(until) = out.wait_until {
            std::thread::sleep(Duration::from_nanos(until.saturating_sub(now())));
        }
    }
    starts
}

fn engine(seconds: f64) -> (Vec<Instant>, u64) {
    let pid = std::process::id();
    let cfg = TransportConfig {
        discovery_port: 30_000 + (pid % 1000) as u16 * 2,
        data_port: 30_001 + (pid % 1000) as u16 * 2,
        ..TransportConfig::default()
    };
    let lrc = Lrc::start(cfg).expect("LRC");
    let mut c = EngineConfig::new(&format!("jitter-{pid}"), "bench", "Bench");
    c.role = Role::Commander {
        fom_modules: vec![(
            "HlameshDemo.xml".into(),
            hlamesh_examples::fom::FOM_XML.to_string(),
        )],
        expected: vec![],
    };
    c.scheme = TimeScheme::Periodic {
        hz: HZ,
        pace: Pace::RealTime { scale: 1.0 },
    };
    c.lookahead = Some(1.0 / f64::from(HZ));
    c.lrc = Some(lrc);
    let mut e = Engine::new(
        c,
        Recorder {
            starts: Vec::new(),
            seconds,
        },
    );
    let report = e.run();
    assert_eq!(report.state.name(), "End", "{:?}", report.state);
    (e.simulation().starts.clone(), report.stats.overruns)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let seconds: f64 = std::env::var("HLAMESH_JITTER_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5.0);
    let b = stats(&baseline(seconds));
    let (starts, overruns) = engine(seconds);
    let e = stats(&starts);
    println!("frame jitter at {HZ} Hz real time, {seconds} s (ms)");
    println!(
        "{:<22} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "", "frames", "late p50", "late p99", "late max", "int p50", "int p99", "int max"
    );
    for (name, s) in [("bare pacer (baseline)", &b), ("engine + RTI", &e)] {
        println!(
            "{name:<22} {:>7} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9.3}",
            s.frames, s.late_p50, s.late_p99, s.late_max, s.int_p50, s.int_p99, s.int_max
        );
    }
    println!(
        "engine overruns: {overruns}; interval-error p99 ratio engine/baseline: {:.2}",
        e.int_p99 / b.int_p99.max(1e-6)
    );
}
