//! `scale`: the update → reflect round trip to the slowest of N − 1 peers (every peer echoes each
//! ping; the next ping goes once all echoes are in) and the CPU each node spends, as nodes are
//! added — hlamesh next to raw UDP multicast with the same fan-out, interleaved in blocks
//! (A B A B). CPU is read from `/proc/<pid>/task/*/schedstat` of every process around each
//! block, so it covers all of a node's threads.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::BenchError;
use crate::cpus::Pinning;
use crate::latency::Driver;
use crate::peer::Role;
use crate::placement::Placement;
use crate::procstat::ProcSample;
use crate::report::{self, LatencySummary, Machine};
use crate::session::{Level, Session};
use crate::sut::Sut;

/// What to measure.
#[derive(Clone, Debug, Serialize)]
pub struct ScaleOptions {
    /// The hlamesh level measured.
    pub level: Level,
    /// Node counts (the driver plus N − 1 echoing peers).
    pub nodes: Vec<usize>,
    /// Recorded round trips per path and node count.
    pub samples: usize,
    /// Round trips per block.
    pub block: usize,
    /// Unrecorded warm-up round trips per path and node count.
    pub warmup: usize,
    /// Payload bytes (reliable).
    pub size: usize,
    /// CPU placement (see [`crate::cpus`]): `split` puts the driver on the first CPU and peer
    /// `k` on the `k + 1`-th, round robin.
    pub pin: Pinning,
}

/// CPU of the nodes on one path.
#[derive(Clone, Debug, Default, Serialize)]
pub struct NodeCpu {
    /// The driver's CPU per round trip, µs.
    pub driver_us_per_roundtrip: f64,
    /// Mean over peers of a peer's CPU per round trip, µs.
    pub peer_us_per_roundtrip: f64,
    /// The busiest peer's CPU per round trip, µs.
    pub peer_us_per_roundtrip_max: f64,
    /// Mean over peers of CPU time ÷ wall time during the blocks, percent of one core.
    pub peer_percent: f64,
    /// Context switches per round trip, summed over all nodes.
    pub ctx_switches_per_roundtrip: f64,
}

/// One node count's result.
#[derive(Clone, Debug, Serialize)]
pub struct ScaleResult {
    /// Nodes (processes).
    pub nodes: usize,
    /// hlamesh round trips to the slowest peer.
    pub hlamesh: LatencySummary,
    /// Raw UDP multicast round trips to the slowest peer.
    pub baseline: LatencySummary,
    /// hlamesh p50 ÷ raw p50.
    pub ratio_p50: f64,
    /// hlamesh p99 ÷ raw p99.
    pub ratio_p99: f64,
    /// hlamesh CPU.
    pub hlamesh_cpu: NodeCpu,
    /// Raw UDP CPU.
    pub baseline_cpu: NodeCpu,
    /// Blocks abandoned (a lost echo or a timeout).
    pub lost_blocks: u64,
    /// False when the peers run on another machine (`--peer`): peer CPU figures are then 0.
    pub peer_cpu_measured: bool,
    /// The pinning used (after falling back: split needs two CPUs, remote peers are not pinned).
    pub pinning: Pinning,
    /// The driver's CPU, then each peer's (`null` when not pinned).
    pub cpus: Vec<Option<usize>>,
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct ScaleReport {
    /// "scale".
    pub subcommand: String,
    /// The command line.
    pub command: String,
    /// When it started.
    pub started_unix_ms: u64,
    /// Wall-clock duration.
    pub duration_s: f64,
    /// Where the processes ran.
    pub placement: String,
    /// The machine.
    pub machine: Machine,
    /// The options.
    pub options: ScaleOptions,
    /// One entry per node count.
    pub results: Vec<ScaleResult>,
}

#[derive(Default)]
struct CpuAcc {
    wall_ns: u64,
    samples: u64,
    driver: ProcSample,
    peers: Vec<ProcSample>,
}

impl CpuAcc {
    fn add(&mut self, wall: Duration, samples: usize, driver: ProcSample, peers: &[ProcSample]) {
        self.wall_ns += wall.as_nanos() as u64;
        self.samples += samples as u64;
        self.driver.cpu_ns += driver.cpu_ns;
        self.driver.ctx_switches += driver.ctx_switches;
        self.peers.resize(peers.len(), ProcSample::default());
        for (a, p) in self.peers.iter_mut().zip(peers) {
            a.cpu_ns += p.cpu_ns;
            a.ctx_switches += p.ctx_switches;
        }
    }

    fn figures(&self) -> NodeCpu {
        let per = |ns: u64| ns as f64 / 1e3 / self.samples.max(1) as f64;
        let n = self.peers.len().max(1) as f64;
        let peer_ns: u64 = self.peers.iter().map(|p| p.cpu_ns).sum();
        let switches =
            self.driver.ctx_switches + self.peers.iter().map(|p| p.ctx_switches).sum::<u64>();
        NodeCpu {
            driver_us_per_roundtrip: per(self.driver.cpu_ns),
            peer_us_per_roundtrip: per(peer_ns) / n,
            peer_us_per_roundtrip_max: self.peers.iter().map(|p| per(p.cpu_ns)).fold(0.0, f64::max),
            peer_percent: peer_ns as f64 / n / self.wall_ns.max(1) as f64 * 100.0,
            ctx_switches_per_roundtrip: switches as f64 / self.samples.max(1) as f64,
        }
    }
}

/// Runs the scale benchmark.
pub fn run(
    placement: &Placement,
    opts: &ScaleOptions,
    command: String,
    timeout: Duration,
) -> Result<ScaleReport, BenchError> {
    let started = Instant::now();
    let started_unix_ms = report::unix_ms();
    let machine = Machine::describe();
    let deadline = started + timeout;
    let size = opts.size.max(crate::wire::MIN_PAYLOAD);
    let mut results = Vec::new();
    let mut progress =
        crate::progress::Progress::new("scale", (opts.nodes.len() * opts.samples * 2) as u64);
    for &nodes in &opts.nodes {
        let peers = nodes.max(2) - 1;
        let left = deadline.saturating_duration_since(Instant::now());
        let step = Duration::from_secs(60).min(left);
        let session = Session::start(
            placement,
            Role::Echo,
            opts.level,
            peers,
            step,
            left + step,
            opts.pin,
        )?;
        // Peers on another machine (--peer) have no local /proc entry: their CPU is not measured.
        let pids: Vec<u32> = session.peers.iter().filter_map(|p| p.pid()).collect();
        let peer_cpu_measured = pids.len() == peers;
        let raw: Arc<dyn Sut> = session.raw.clone();
        let mut d = Driver::new(session.hl.clone(), raw, peers)?;
        for path in 0..2u8 {
            let _ = d.block(path, opts.warmup.max(1), false, size);
        }
        let mut hists = [report::new_histogram()?, report::new_histogram()?];
        let mut cpu = [CpuAcc::default(), CpuAcc::default()];
        let mut lost_blocks = 0u64;
        while hists.iter().any(|h| (h.len() as usize) < opts.samples) {
            if Instant::now() > deadline {
                return Err(BenchError::Protocol(format!(
                    "scale run exceeded its time bound of {timeout:?}"
                )));
            }
            for path in 0..2u8 {
                let i = usize::from(path);
                let want = opts.samples.saturating_sub(hists[i].len() as usize);
                if want == 0 {
                    continue;
                }
                let before: Vec<ProcSample> =
                    pids.iter().map(|p| ProcSample::of(Some(*p))).collect();
                let me = ProcSample::now();
                let t0 = Instant::now();
                let got = d.block(path, opts.block.max(1).min(want), false, size);
                let wall = t0.elapsed();
                let me = ProcSample::now().since(me);
                let after: Vec<ProcSample> = pids
                    .iter()
                    .zip(&before)
                    .map(|(p, b)| ProcSample::of(Some(*p)).since(*b))
                    .collect();
                match got {
                    Some(samples) => {
                        cpu[i].add(wall, samples.len(), me, &after);
                        progress.inc(samples.len() as u64);
                        for s in samples {
                            let _ = hists[i].record(s.max(1));
                        }
                    }
                    None => lost_blocks += 1,
                }
            }
            if lost_blocks > 50 {
                return Err(BenchError::Protocol(
                    "more than 50 scale blocks lost: are the peers alive?".into(),
                ));
            }
        }
        let (h, b) = (LatencySummary::of(&hists[0]), LatencySummary::of(&hists[1]));
        results.push(ScaleResult {
            nodes: peers + 1,
            ratio_p50: h.p50_us / b.p50_us.max(f64::MIN_POSITIVE),
            ratio_p99: h.p99_us / b.p99_us.max(f64::MIN_POSITIVE),
            hlamesh: h,
            baseline: b,
            hlamesh_cpu: cpu[0].figures(),
            baseline_cpu: cpu[1].figures(),
            lost_blocks,
            peer_cpu_measured,
            pinning: session.pinning,
            cpus: session.cpus.clone(),
        });
        drop(d);
        drop(session);
    }
    Ok(ScaleReport {
        subcommand: "scale".into(),
        command,
        started_unix_ms,
        duration_s: started.elapsed().as_secs_f64(),
        placement: placement.describe(),
        machine,
        options: opts.clone(),
        results,
    })
}

/// The table printed on stdout.
pub fn table(r: &ScaleReport) -> String {
    let mut s = format!(
        "scale (round trip to the slowest peer, µs; CPU µs per round trip), level {} — {} — CPUs {} — {} cores, {}\n",
        r.options.level.arg(),
        r.placement,
        r.results
            .first()
            .map_or(r.options.pin.arg(), |x| x.pinning.arg()),
        r.machine.cores,
        r.machine.cpu_model
    );
    s.push_str(&format!(
        "{:>5} {:<8} {:>8} {:>8} {:>8} {:>9} {:>9} {:>9} {:>8} {:>7}\n",
        "nodes", "path", "p50", "p90", "p99", "drv cpu", "peer cpu", "peer %", "ctxsw", "ratio50"
    ));
    for x in &r.results {
        for (name, l, c) in [
            ("hlamesh", &x.hlamesh, &x.hlamesh_cpu),
            ("raw-udp", &x.baseline, &x.baseline_cpu),
        ] {
            s.push_str(&format!(
                "{:>5} {:<8} {:>8.1} {:>8.1} {:>8.1} {:>9.1} {:>9.1} {:>9.1} {:>8.1} {:>7}\n",
                x.nodes,
                name,
                l.p50_us,
                l.p90_us,
                l.p99_us,
                c.driver_us_per_roundtrip,
                c.peer_us_per_roundtrip,
                c.peer_percent,
                c.ctx_switches_per_roundtrip,
                if name == "hlamesh" {
                    format!("{:.2}", x.ratio_p50)
                } else {
                    String::new()
                }
            ));
        }
    }
    s
}

/// Round-trip medians against the node count.
pub fn plot(r: &ScaleReport) -> crate::plot::Plot {
    let groups: Vec<(String, Vec<(String, f64)>)> = r
        .results
        .iter()
        .map(|x| {
            (
                format!("{} nodes", x.nodes),
                vec![
                    ("hlamesh p50".to_string(), x.hlamesh.p50_us),
                    ("raw-udp p50".to_string(), x.baseline.p50_us),
                    ("hlamesh p99".to_string(), x.hlamesh.p99_us),
                    ("raw-udp p99".to_string(), x.baseline.p99_us),
                ],
            )
        })
        .collect();
    crate::plot::Plot::bars(
        "hlamesh-bench scale: round trip to the slowest peer (µs)",
        "µs",
        &groups,
    )
}
