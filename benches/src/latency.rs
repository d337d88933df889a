//! `latency`: ping-pong round trips between the driver and one peer, hlamesh and raw UDP
//! multicast interleaved in blocks (A B A B), for each payload size and reliability. Both ends
//! handle messages on the receiving thread (hlamesh: the transport's event hook, i.e. immediate
//! delivery; raw: the receive thread), so no thread hand-off is on either path.

use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;
use hlamesh_transport::data::Reliability;
use serde::Serialize;

use crate::BenchError;
use crate::cpus::{Pinning, Placement as CpuPlacement};
use crate::peer::Role;
use crate::placement::Placement;
use crate::report::{self, LatencySummary, Machine};
use crate::session::{Level, Session};
use crate::sut::{Handler, Sut};
use crate::wire::{self, Header, Kind};
use hlamesh_timesync::clock_offset::{ClockOffsetEstimator, Probe};

/// What to measure.
#[derive(Clone, Debug, Serialize)]
pub struct LatencyOptions {
    /// The hlamesh level measured (RTI update→reflect or transport).
    pub level: Level,
    /// Payload sizes in bytes.
    pub sizes: Vec<usize>,
    /// Reliabilities to measure hlamesh with (raw UDP has only one).
    pub reliabilities: Vec<String>,
    /// Recorded samples per path and configuration.
    pub samples: usize,
    /// Round trips per block (paths alternate every block).
    pub block: usize,
    /// Unrecorded warm-up round trips per path before each configuration.
    pub warmup: usize,
    /// hlamesh automatic batching on the driver (the peer keeps its default, on).
    pub batching: bool,
    /// CPU placement of the driver and the peer (see [`crate::cpus`]).
    pub pin: Pinning,
}

/// One configuration's result.
#[derive(Clone, Debug, Serialize)]
pub struct LatencyResult {
    /// Payload bytes.
    pub payload_bytes: usize,
    /// "reliable" or "best-effort" (of the hlamesh path).
    pub reliability: String,
    /// How messages are delivered to the application.
    pub delivery: String,
    /// hlamesh round trips.
    pub hlamesh: LatencySummary,
    /// Raw UDP multicast round trips on the same path.
    pub baseline: LatencySummary,
    /// hlamesh p50 / raw p50.
    pub ratio_p50: f64,
    /// hlamesh p99 / raw p99.
    pub ratio_p99: f64,
    /// Blocks abandoned because a message was lost (best-effort) or timed out.
    pub lost_blocks: u64,
    /// hlamesh one-way latencies from the clock-offset estimate (`None` below 32-byte payloads,
    /// which have no room for the echo's stamps).
    pub one_way: Option<OneWay>,
    /// The same for raw UDP.
    pub baseline_one_way: Option<OneWay>,
    /// Driver's hlamesh datagrams per ping sent (1 unless fragmented; below 1 would mean the
    /// ping-pong was batched, which automatic batching must never do).
    pub hlamesh_datagrams_per_message: f64,
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct LatencyReport {
    /// "latency".
    pub subcommand: String,
    /// The command line.
    pub command: String,
    /// When it started.
    pub started_unix_ms: u64,
    /// Wall-clock duration.
    pub duration_s: f64,
    /// Where the processes ran.
    pub placement: String,
    /// The CPUs the driver and the peer were pinned to.
    pub cpus: CpuPlacement,
    /// The machine.
    pub machine: Machine,
    /// The options.
    pub options: LatencyOptions,
    /// One entry per configuration.
    pub results: Vec<LatencyResult>,
}

/// One-way latencies of one path: the peer stamps its wall clock when the ping reaches its
/// handler (t2) and when it sends the echo (t3); with the driver's send (t1) and receive (t4) times,
/// a minimum-round-trip clock-offset estimate (`timesync::clock_offset`) over the probes of both
/// paths (the same two processes and clocks, so the raw path's quicker probes tighten the bound)
/// turns them into driver→peer (t2 − t1 − offset) and peer→driver (t4 − t3 + offset) latencies.
/// Each is right within ± `error_bound_us`, the half round trip of the best probe.
#[derive(Clone, Debug, Serialize)]
pub struct OneWay {
    /// Peer clock minus driver clock (µs).
    pub offset_us: f64,
    /// The true offset, and so every one-way figure, is within this many µs.
    pub error_bound_us: f64,
    /// Probes used.
    pub probes: usize,
    /// Driver → peer.
    pub forward: LatencySummary,
    /// Peer → driver.
    pub reverse: LatencySummary,
}

impl OneWay {
    fn of(probes: &[Probe], all: &[&[Probe]]) -> Result<Option<OneWay>, BenchError> {
        let n: usize = all.iter().map(|p| p.len()).sum();
        let mut est = ClockOffsetEstimator::new(n.max(1), 100);
        let mut last = 0;
        for p in all.iter().flat_map(|p| p.iter()) {
            let _ = est.add_probe(*p);
            last = last.max(p.t4);
        }
        let Some(e) = est.estimate(last).filter(|_| !probes.is_empty()) else {
            return Ok(None);
        };
        let (mut fwd, mut rev) = (report::new_histogram()?, report::new_histogram()?);
        for p in probes {
            let f = p.t2 as i128 - p.t1 as i128 - i128::from(e.offset_ns);
            let r = p.t4 as i128 - p.t3 as i128 + i128::from(e.offset_ns);
            let _ = fwd.record(u64::try_from(f.max(1)).unwrap_or(1));
            let _ = rev.record(u64::try_from(r.max(1)).unwrap_or(1));
        }
        Ok(Some(OneWay {
            offset_us: e.offset_ns as f64 / 1e3,
            error_bound_us: e.error_bound_ns as f64 / 1e3,
            probes: probes.len(),
            forward: LatencySummary::of(&fwd),
            reverse: LatencySummary::of(&rev),
        }))
    }
}

struct PingState {
    active: bool,
    path: u8,
    block: u32,
    best_effort: bool,
    size: usize,
    next: u64,
    end: u64,
    /// Echoes a ping needs (one per peer) before the next is sent.
    echoes: usize,
    heard: usize,
    t0: Instant,
    /// Wall clock when the current ping was sent.
    t1_wall: u64,
    samples: Vec<u64>,
    /// Four-timestamp probes from stamped echoes (one-way estimate).
    probes: Vec<Probe>,
    done: Option<Sender<Vec<u64>>>,
}

type Shared = Arc<Mutex<PingState>>;

fn rel_of(best_effort: bool) -> Reliability {
    if best_effort {
        Reliability::BestEffort
    } else {
        Reliability::Reliable
    }
}

/// The driver's handler on one path: records an echo's round trip and sends the next ping.
fn pinger(path: u8, sut: Weak<dyn Sut>, state: Shared) -> Handler {
    Arc::new(move |m: &[u8]| {
        let Some(h) = wire::parse(m) else { return };
        if h.kind != Kind::Echo || h.path != path {
            return;
        }
        let now = Instant::now();
        let t4 = wire::wall_ns();
        let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
        if !s.active || s.path != path || h.block != s.block || h.index != s.next {
            return;
        }
        s.heard += 1;
        if s.heard < s.echoes {
            return;
        }
        s.heard = 0;
        let rtt = now.duration_since(s.t0).as_nanos() as u64;
        s.samples.push(rtt);
        if s.echoes == 1
            && let Some((t2, t3)) = wire::stamps(m)
        {
            let t1 = s.t1_wall;
            s.probes.push(Probe { t1, t2, t3, t4 });
        }
        s.next += 1;
        if s.next == s.end {
            s.active = false;
            let samples = std::mem::take(&mut s.samples);
            if let Some(d) = s.done.take() {
                let _ = d.send(samples);
            }
            return;
        }
        let ping = wire::message(
            Header {
                kind: Kind::Ping,
                path,
                best_effort: s.best_effort,
                block: s.block,
                index: s.next,
                sender: 0,
            },
            s.size,
        );
        let rel = rel_of(s.best_effort);
        s.t1_wall = wire::wall_ns();
        s.t0 = Instant::now();
        drop(s);
        if let Some(sut) = sut.upgrade() {
            let _ = sut.send(rel, &ping);
        }
    })
}

/// Ping-pong on two paths (0 = hlamesh, 1 = raw UDP): a ping goes to every peer and the next is
/// sent once `echoes` peers have echoed it (the round trip to the slowest peer).
pub(crate) struct Driver {
    paths: [Arc<dyn Sut>; 2],
    state: Shared,
    next_block: u32,
}

impl Driver {
    /// Installs the ping handlers on both paths.
    pub(crate) fn new(
        hl: Arc<dyn Sut>,
        raw: Arc<dyn Sut>,
        echoes: usize,
    ) -> Result<Driver, BenchError> {
        let state: Shared = Arc::new(Mutex::new(PingState {
            active: false,
            path: 0,
            block: 0,
            best_effort: false,
            size: 0,
            next: 0,
            end: 0,
            echoes: echoes.max(1),
            heard: 0,
            t0: Instant::now(),
            t1_wall: 0,
            samples: Vec::new(),
            probes: Vec::new(),
            done: None,
        }));
        for (i, sut) in [&hl, &raw].into_iter().enumerate() {
            sut.set_handler(pinger(i as u8, Arc::downgrade(sut), state.clone()))?;
        }
        Ok(Driver {
            paths: [hl, raw],
            state,
            next_block: 1,
        })
    }

    /// The probes collected since the last call (all paths; take them after each block).
    pub(crate) fn take_probes(&self) -> Vec<Probe> {
        std::mem::take(&mut self.state.lock().unwrap_or_else(|e| e.into_inner()).probes)
    }

    /// One block of `n` round trips on `path`; None if it did not complete (loss).
    pub(crate) fn block(
        &mut self,
        path: u8,
        n: usize,
        best_effort: bool,
        size: usize,
    ) -> Option<Vec<u64>> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        let block = self.next_block;
        self.next_block += 1;
        let ping = wire::message(
            Header {
                kind: Kind::Ping,
                path,
                best_effort,
                block,
                index: 0,
                sender: 0,
            },
            size,
        );
        {
            let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
            let echoes = s.echoes;
            *s = PingState {
                echoes,
                heard: 0,
                active: true,
                path,
                block,
                best_effort,
                size,
                next: 0,
                end: n as u64,
                t1_wall: wire::wall_ns(),
                probes: Vec::new(),
                t0: Instant::now(),
                samples: Vec::with_capacity(n),
                done: Some(tx),
            };
        }
        let sut = &self.paths[usize::from(path)];
        let _ = sut.send(rel_of(best_effort), &ping);
        let budget = Duration::from_secs(2) + Duration::from_millis(10) * n as u32;
        match rx.recv_timeout(budget) {
            Ok(samples) => Some(samples),
            Err(_) => {
                self.state.lock().unwrap_or_else(|e| e.into_inner()).active = false;
                None
            }
        }
    }
}

/// Runs the latency benchmark and returns its report.
pub fn run(
    placement: &Placement,
    opts: &LatencyOptions,
    command: String,
    timeout: Duration,
) -> Result<LatencyReport, BenchError> {
    let started = Instant::now();
    let started_unix_ms = report::unix_ms();
    let machine = Machine::describe();
    let session = Session::start(
        placement,
        Role::Echo,
        opts.level,
        1,
        timeout,
        timeout + timeout,
        opts.pin,
    )?;
    let cpus = CpuPlacement {
        pinning: session.pinning,
        driver_cpu: session.cpus[0],
        peer_cpu: session.cpus[1],
    };
    let hl = session.hl.clone();
    let raw: Arc<dyn Sut> = session.raw.clone();
    hl.set_batching(opts.batching);
    let mut d = Driver::new(hl, raw, 1)?;
    let deadline = started + timeout;
    let mut results = Vec::new();
    let mut progress = crate::progress::Progress::new(
        "latency",
        (opts.reliabilities.len() * opts.sizes.len() * opts.samples * 2) as u64,
    );
    for rel in &opts.reliabilities {
        let best_effort = rel == "best-effort";
        for &size in &opts.sizes {
            let size = size.max(wire::MIN_PAYLOAD);
            let mut hists = [report::new_histogram()?, report::new_histogram()?];
            let mut lost_blocks = 0;
            let c0 = d.paths[0].counters();
            for path in 0..2u8 {
                let _ = d.block(path, opts.warmup.max(1), best_effort, size);
            }
            let _ = d.take_probes();
            let mut probes: [Vec<Probe>; 2] = [Vec::new(), Vec::new()];
            let block = opts.block.max(1);
            while hists.iter().any(|h| (h.len() as usize) < opts.samples) {
                if Instant::now() > deadline {
                    return Err(BenchError::Protocol(format!(
                        "latency run exceeded its time bound of {timeout:?}"
                    )));
                }
                for path in 0..2u8 {
                    let want = opts
                        .samples
                        .saturating_sub(hists[usize::from(path)].len() as usize);
                    if want == 0 {
                        continue;
                    }
                    match d.block(path, block.min(want), best_effort, size) {
                        Some(samples) => {
                            progress.inc(samples.len() as u64);
                            for s in samples {
                                let _ = hists[usize::from(path)].record(s.max(1));
                            }
                            probes[usize::from(path)].extend(d.take_probes());
                        }
                        None => {
                            lost_blocks += 1;
                            let _ = d.take_probes();
                        }
                    }
                }
                if lost_blocks > 50 {
                    return Err(BenchError::Protocol(
                        "more than 50 latency blocks lost: is the peer alive?".into(),
                    ));
                }
            }
            let c1 = d.paths[0].counters();
            let dpm = (c1.datagrams_out - c0.datagrams_out) as f64
                / (c1.messages_out - c0.messages_out).max(1) as f64;
            let (h, b) = (LatencySummary::of(&hists[0]), LatencySummary::of(&hists[1]));
            let [hp, rp] = probes;
            results.push(LatencyResult {
                one_way: OneWay::of(&hp, &[&hp, &rp])?,
                baseline_one_way: OneWay::of(&rp, &[&hp, &rp])?,
                payload_bytes: size,
                reliability: rel.clone(),
                delivery: opts.level.delivery().into(),
                ratio_p50: h.p50_us / b.p50_us.max(f64::MIN_POSITIVE),
                ratio_p99: h.p99_us / b.p99_us.max(f64::MIN_POSITIVE),
                hlamesh: h,
                baseline: b,
                lost_blocks,
                hlamesh_datagrams_per_message: dpm,
            });
        }
    }
    drop(session);
    Ok(LatencyReport {
        subcommand: "latency".into(),
        command,
        started_unix_ms,
        duration_s: started.elapsed().as_secs_f64(),
        placement: placement.describe(),
        cpus,
        machine,
        options: opts.clone(),
        results,
    })
}

/// The table printed on stdout.
pub fn table(r: &LatencyReport) -> String {
    let mut s = format!(
        "latency (round trip, µs), level {} — {} — CPUs {} — {} cores, {}\n",
        r.options.level.arg(),
        r.placement,
        r.cpus.describe(),
        r.machine.cores,
        r.machine.cpu_model
    );
    s.push_str(&format!(
        "{:>7} {:<12} {:<8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>9} {:>7} {:>7} {:>8} {:>8} {:>6}\n",
        "bytes",
        "reliability",
        "path",
        "p50",
        "p90",
        "p99",
        "p99.9",
        "max",
        "samples",
        "ratio50",
        "dgm/msg",
        "fwd p50",
        "rev p50",
        "±"
    ));
    for x in &r.results {
        for (name, l, ow) in [
            ("hlamesh", &x.hlamesh, &x.one_way),
            ("raw-udp", &x.baseline, &x.baseline_one_way),
        ] {
            let (fwd, rev, bound) = match ow {
                Some(o) => (
                    format!("{:.1}", o.forward.p50_us),
                    format!("{:.1}", o.reverse.p50_us),
                    format!("{:.1}", o.error_bound_us),
                ),
                None => (String::new(), String::new(), String::new()),
            };
            s.push_str(&format!(
                "{:>7} {:<12} {:<8} {:>8.1} {:>8.1} {:>8.1} {:>8.1} {:>9.1} {:>9} {:>7} {:>7} {:>8} {:>8} {:>6}\n",
                x.payload_bytes,
                x.reliability,
                name,
                l.p50_us,
                l.p90_us,
                l.p99_us,
                l.p999_us,
                l.max_us,
                l.samples,
                if name == "hlamesh" {
                    format!("{:.2}", x.ratio_p50)
                } else {
                    String::new()
                },
                if name == "hlamesh" {
                    format!("{:.2}", x.hlamesh_datagrams_per_message)
                } else {
                    String::new()
                },
                fwd,
                rev,
                bound
            ));
        }
    }
    s
}

/// The CDF plot.
pub fn plot(r: &LatencyReport) -> crate::plot::Plot {
    let mut series = Vec::new();
    for x in &r.results {
        series.push((
            format!("hlamesh {} B {}", x.payload_bytes, x.reliability),
            x.hlamesh.cdf.clone(),
        ));
        series.push((
            format!("raw-udp {} B ({})", x.payload_bytes, x.reliability),
            x.baseline.cdf.clone(),
        ));
    }
    crate::plot::Plot::latency_cdf("hlamesh-bench latency: round-trip CDF", &series)
}
