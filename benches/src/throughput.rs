//! `throughput`: one-way messages/s from the driver to 1 or N peers, hlamesh (batching on and
//! off) and raw UDP multicast (one `sendto` per message) interleaved in blocks (A B A B). The
//! driver sends a block as fast as it can; each peer counts what it received and the time from
//! the block's first to its last message. A block's figure is the slowest peer's rate. The N→1
//! fan-in (N senders, the driver receiving) is in [`crate::fanin`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use hlamesh_transport::data::Reliability;
use serde::Serialize;

use crate::BenchError;
use crate::cpus::Pinning;
use crate::fanin::{self, FaninResult};
use crate::peer::Role;
use crate::placement::Placement;
use crate::procstat::ProcSample;
use crate::report::{self, Machine, median};
use crate::session::{Level, Session};
use crate::sut::{Counters, Sut};
use crate::wire::{self, Header, Kind};

/// What to measure.
#[derive(Clone, Debug, Serialize)]
pub struct ThroughputOptions {
    /// The hlamesh level measured (RTI update→reflect or transport).
    pub level: Level,
    /// Receiver counts (1 → N).
    pub fanouts: Vec<usize>,
    /// Sender counts (N → 1).
    pub fanins: Vec<usize>,
    /// hlamesh batching settings to measure.
    pub batching: Vec<bool>,
    /// Reliabilities of the hlamesh path.
    pub reliabilities: Vec<String>,
    /// Payload bytes.
    pub size: usize,
    /// Messages per block (per sender in the N→1 fan-in).
    pub messages: u64,
    /// Recorded blocks per path and configuration (after one warm-up block).
    pub blocks: usize,
    /// CPU placement (see [`crate::cpus`]): `split` puts the driver on the first CPU and peer
    /// `k` on the `k + 1`-th, round robin.
    pub pin: Pinning,
}

/// One block on one path.
#[derive(Clone, Debug, Serialize)]
pub struct BlockFigure {
    /// Messages sent.
    pub sent: u64,
    /// Sender's rate (messages / time to hand them all to the path).
    pub sender_msgs_per_s: f64,
    /// Slowest peer's receive rate (messages / first-to-last arrival).
    pub receiver_msgs_per_s: f64,
    /// Fewest messages a peer received.
    pub received_min: u64,
    /// CPU time of the driver's process (all threads) per message sent, from the block's start
    /// until every peer reported it, in µs.
    pub sender_cpu_us_per_msg: f64,
    /// CPU time of the busiest peer process (all threads) per message it received, over the same
    /// span, in µs; `None` when the peers' processes cannot be read (`--peer`).
    pub receiver_cpu_us_per_msg: Option<f64>,
}

/// One path's figures in one configuration.
#[derive(Clone, Debug, Serialize)]
pub struct PathThroughput {
    /// Median over blocks of the slowest peer's receive rate.
    pub msgs_per_s: f64,
    /// The same in payload megabytes (10^6 B) per second.
    pub mb_per_s: f64,
    /// Median over blocks of the sender's rate.
    pub sender_msgs_per_s: f64,
    /// Median over blocks of the driver's CPU µs per message sent (all its threads). Unlike the
    /// rates it hardly moves with the machine's load, so it shows what a change to the send
    /// path bought.
    pub sender_cpu_us_per_msg: f64,
    /// Median over blocks of the busiest peer's CPU µs per message received (all its threads);
    /// `None` with `--peer`.
    pub receiver_cpu_us_per_msg: Option<f64>,
    /// Messages sent but not received, over all blocks and peers.
    pub lost_messages: u64,
    /// Smallest fraction of a block any peer received.
    pub delivered_fraction_min: f64,
    /// Datagrams the driver sent during the recorded blocks.
    pub datagrams_out: u64,
    /// Messages per datagram (datagrams_out / messages sent).
    pub messages_per_datagram: f64,
    /// NACKs the peers sent (repair requests).
    pub nacks_sent: u64,
    /// Datagrams the driver retransmitted.
    pub repaired_datagrams: u64,
    /// Reliable messages lost for good (receivers fell behind).
    pub fell_behind_messages: u64,
    /// Every recorded block.
    pub per_block: Vec<BlockFigure>,
}

/// One configuration's result.
#[derive(Clone, Debug, Serialize)]
pub struct ThroughputResult {
    /// Receivers.
    pub fanout: usize,
    /// hlamesh batching on?
    pub batching: bool,
    /// hlamesh reliability.
    pub reliability: String,
    /// Payload bytes.
    pub payload_bytes: usize,
    /// Messages per block.
    pub messages_per_block: u64,
    /// hlamesh.
    pub hlamesh: PathThroughput,
    /// Raw UDP multicast, one datagram per message.
    pub baseline: PathThroughput,
    /// hlamesh msgs/s ÷ raw msgs/s.
    pub ratio: f64,
    /// The driver's CPU, then each peer's (`null` when not pinned).
    pub cpus: Vec<Option<usize>>,
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct ThroughputReport {
    /// "throughput".
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
    pub options: ThroughputOptions,
    /// One entry per 1→N configuration.
    pub results: Vec<ThroughputResult>,
    /// One entry per N→1 configuration.
    pub fanin_results: Vec<FaninResult>,
}

fn peer_counters(s: &mut Session, timeout: Duration) -> Result<Vec<Counters>, BenchError> {
    let mut v = Vec::new();
    for p in &mut s.peers {
        p.command("counters")?;
        let c = p.wait_event("counters", timeout)?;
        v.push(
            serde_json::from_value::<CountersDe>(c["hlamesh"].clone())
                .map_err(|e| BenchError::Protocol(format!("bad counters: {e}")))?
                .into(),
        );
    }
    Ok(v)
}

#[derive(serde::Deserialize)]
struct CountersDe {
    nacks_sent: u64,
    fell_behind_messages: u64,
}

impl From<CountersDe> for Counters {
    fn from(c: CountersDe) -> Counters {
        Counters {
            nacks_sent: c.nacks_sent,
            fell_behind_messages: c.fell_behind_messages,
            ..Counters::default()
        }
    }
}

/// Sends one block on `path` and collects the peers' counts.
fn block(
    s: &mut Session,
    sut: &dyn Sut,
    path: u8,
    block: u32,
    rel: Reliability,
    opts: &ThroughputOptions,
    timeout: Duration,
) -> Result<BlockFigure, BenchError> {
    let mut m = wire::message(
        Header {
            kind: Kind::Stream,
            path,
            best_effort: rel == Reliability::BestEffort,
            block,
            index: 0,
            sender: 0,
        },
        opts.size,
    );
    let pids: Vec<u32> = s.peers.iter().filter_map(|p| p.pid()).collect();
    let peer_cpu0: Vec<ProcSample> = pids.iter().map(|p| ProcSample::of(Some(*p))).collect();
    let cpu0 = ProcSample::of(None);
    let t0 = Instant::now();
    for i in 0..opts.messages {
        m[8..16].copy_from_slice(&i.to_be_bytes());
        sut.send(rel, &m)?;
    }
    sut.flush();
    let send_s = t0.elapsed().as_secs_f64();
    for p in &mut s.peers {
        p.command(&format!("end {path} {block} {}", opts.messages))?;
    }
    let mut rate_min = f64::INFINITY;
    let mut received_min = u64::MAX;
    for p in &s.peers {
        let v = p.wait_event("block", timeout)?;
        let received = v["received"].as_u64().unwrap_or(0);
        let elapsed = v["elapsed_ns"].as_u64().unwrap_or(0) as f64 / 1e9;
        let rate = if elapsed > 0.0 && received > 1 {
            (received - 1) as f64 / elapsed
        } else {
            0.0
        };
        rate_min = rate_min.min(rate);
        received_min = received_min.min(received);
    }
    let cpu_us = |a: ProcSample, b: ProcSample, n: u64| {
        b.cpu_ns.saturating_sub(a.cpu_ns) as f64 / 1e3 / n.max(1) as f64
    };
    let sender_cpu_us_per_msg = cpu_us(cpu0, ProcSample::of(None), opts.messages);
    let receiver_cpu_us_per_msg = (pids.len() == s.peers.len() && !pids.is_empty()).then(|| {
        pids.iter()
            .zip(&peer_cpu0)
            .map(|(p, c0)| cpu_us(*c0, ProcSample::of(Some(*p)), received_min.max(1)))
            .fold(0.0, f64::max)
    });
    Ok(BlockFigure {
        sent: opts.messages,
        sender_msgs_per_s: opts.messages as f64 / send_s.max(1e-9),
        receiver_msgs_per_s: if rate_min.is_finite() { rate_min } else { 0.0 },
        received_min: if received_min == u64::MAX {
            0
        } else {
            received_min
        },
        sender_cpu_us_per_msg,
        receiver_cpu_us_per_msg,
    })
}

fn summarise(
    blocks: Vec<BlockFigure>,
    size: usize,
    fanout: usize,
    out: u64,
    repair: (u64, u64, u64),
) -> PathThroughput {
    let rates: Vec<f64> = blocks.iter().map(|b| b.receiver_msgs_per_s).collect();
    let senders: Vec<f64> = blocks.iter().map(|b| b.sender_msgs_per_s).collect();
    let sent: u64 = blocks.iter().map(|b| b.sent).sum();
    let lost: u64 = blocks
        .iter()
        .map(|b| b.sent.saturating_sub(b.received_min))
        .sum::<u64>()
        * fanout as u64;
    let frac = blocks
        .iter()
        .map(|b| b.received_min as f64 / b.sent.max(1) as f64)
        .fold(1.0, f64::min);
    let msgs = median(&rates);
    let tx_cpu: Vec<f64> = blocks.iter().map(|b| b.sender_cpu_us_per_msg).collect();
    let rx_cpu: Option<Vec<f64>> = blocks.iter().map(|b| b.receiver_cpu_us_per_msg).collect();
    PathThroughput {
        msgs_per_s: msgs,
        mb_per_s: msgs * size as f64 / 1e6,
        sender_msgs_per_s: median(&senders),
        sender_cpu_us_per_msg: median(&tx_cpu),
        receiver_cpu_us_per_msg: rx_cpu.map(|v| median(&v)),
        lost_messages: lost,
        delivered_fraction_min: frac,
        datagrams_out: out,
        messages_per_datagram: sent as f64 / out.max(1) as f64,
        nacks_sent: repair.0,
        repaired_datagrams: repair.1,
        fell_behind_messages: repair.2,
        per_block: blocks,
    }
}

/// Runs the throughput benchmark and returns its report.
pub fn run(
    placement: &Placement,
    opts: &ThroughputOptions,
    command: String,
    timeout: Duration,
) -> Result<ThroughputReport, BenchError> {
    let started = Instant::now();
    let started_unix_ms = report::unix_ms();
    let machine = Machine::describe();
    let deadline = started + timeout;
    let step = Duration::from_secs(30).min(timeout);
    let mut results = Vec::new();
    let mut next_block = 1u32;
    let mut progress = crate::progress::Progress::new(
        "throughput",
        ((opts.fanouts.len() + opts.fanins.len())
            * opts.reliabilities.len()
            * opts.batching.len()
            * (opts.blocks + 1)) as u64,
    );
    for &fanout in &opts.fanouts {
        let left = deadline.saturating_duration_since(Instant::now());
        let mut s = Session::start(
            placement,
            Role::Sink,
            opts.level,
            fanout,
            step,
            left + step,
            opts.pin,
        )?;
        let hl: Arc<dyn Sut> = s.hl.clone();
        let raw: Arc<dyn Sut> = s.raw.clone();
        for rel_name in &opts.reliabilities {
            let rel = if rel_name == "best-effort" {
                Reliability::BestEffort
            } else {
                Reliability::Reliable
            };
            for &batching in &opts.batching {
                hl.set_batching(batching);
                let mut figs: [Vec<BlockFigure>; 2] = [Vec::new(), Vec::new()];
                let mut out = [0u64; 2];
                let hl0 = hl.counters();
                let peers0 = peer_counters(&mut s, step)?;
                for b in 0..=opts.blocks {
                    progress.inc(1);
                    if Instant::now() > deadline {
                        return Err(BenchError::Protocol(format!(
                            "throughput run exceeded its time bound of {timeout:?}"
                        )));
                    }
                    for (path, sut) in [&hl, &raw].into_iter().enumerate() {
                        let before = sut.counters().datagrams_out;
                        let f = block(
                            &mut s,
                            sut.as_ref(),
                            path as u8,
                            next_block,
                            rel,
                            opts,
                            step,
                        )?;
                        next_block += 1;
                        // Block 0 warms both paths up and is not recorded.
                        if b > 0 {
                            out[path] += sut.counters().datagrams_out - before;
                            figs[path].push(f);
                        }
                    }
                }
                let hl1 = hl.counters();
                let peers1 = peer_counters(&mut s, step)?;
                let nacks: u64 = peers1
                    .iter()
                    .zip(&peers0)
                    .map(|(a, b)| a.nacks_sent - b.nacks_sent)
                    .sum();
                let fell: u64 = peers1
                    .iter()
                    .zip(&peers0)
                    .map(|(a, b)| a.fell_behind_messages - b.fell_behind_messages)
                    .sum();
                let [hf, rf] = figs;
                let h = summarise(
                    hf,
                    opts.size,
                    fanout,
                    out[0],
                    (nacks, hl1.repaired_datagrams - hl0.repaired_datagrams, fell),
                );
                let r = summarise(rf, opts.size, fanout, out[1], (0, 0, 0));
                results.push(ThroughputResult {
                    fanout,
                    batching,
                    reliability: rel_name.clone(),
                    payload_bytes: opts.size,
                    messages_per_block: opts.messages,
                    ratio: h.msgs_per_s / r.msgs_per_s.max(f64::MIN_POSITIVE),
                    hlamesh: h,
                    baseline: r,
                    cpus: s.cpus.clone(),
                });
            }
        }
    }
    let fanin_results = fanin::run(placement, opts, deadline, &mut next_block, &mut progress)?;
    Ok(ThroughputReport {
        subcommand: "throughput".into(),
        command,
        started_unix_ms,
        duration_s: started.elapsed().as_secs_f64(),
        placement: placement.describe(),
        machine,
        options: opts.clone(),
        results,
        fanin_results,
    })
}

/// The table printed on stdout.
pub fn table(r: &ThroughputReport) -> String {
    let mut s = format!(
        "throughput (one-way, {} B messages), level {} — {} — {} cores, {}\n",
        r.options.size,
        r.options.level.arg(),
        r.placement,
        r.machine.cores,
        r.machine.cpu_model
    );
    if r.results.is_empty() {
        return s + &fanin::table(&r.fanin_results);
    }
    s.push_str(&format!(
        "{:>6} {:<12} {:<9} {:<8} {:>11} {:>8} {:>11} {:>9} {:>8} {:>7} {:>13} {:>6}\n",
        "1->N",
        "reliability",
        "batching",
        "path",
        "msgs/s",
        "MB/s",
        "sender/s",
        "lost",
        "msg/dgm",
        "nacks",
        "cpu µs tx/rx",
        "ratio"
    ));
    for x in &r.results {
        for (name, p) in [("hlamesh", &x.hlamesh), ("raw-udp", &x.baseline)] {
            s.push_str(&format!(
                "{:>6} {:<12} {:<9} {:<8} {:>11.0} {:>8.1} {:>11.0} {:>9} {:>8.1} {:>7} {:>13} {:>6}\n",
                x.fanout,
                x.reliability,
                if x.batching { "on" } else { "off" },
                name,
                p.msgs_per_s,
                p.mb_per_s,
                p.sender_msgs_per_s,
                p.lost_messages,
                p.messages_per_datagram,
                p.nacks_sent,
                format!(
                    "{:.2}/{}",
                    p.sender_cpu_us_per_msg,
                    p.receiver_cpu_us_per_msg
                        .map_or("-".to_string(), |v| format!("{v:.2}"))
                ),
                if name == "hlamesh" {
                    format!("{:.2}", x.ratio)
                } else {
                    String::new()
                }
            ));
        }
    }
    if !r.fanin_results.is_empty() {
        s.push_str(&fanin::table(&r.fanin_results));
    }
    s
}

/// The bar plot.
pub fn plot(r: &ThroughputReport) -> crate::plot::Plot {
    let mut groups: Vec<(String, Vec<(String, f64)>)> = r
        .results
        .iter()
        .map(|x| {
            (
                format!(
                    "1→{} {} batch {}",
                    x.fanout,
                    x.reliability,
                    if x.batching { "on" } else { "off" }
                ),
                vec![
                    ("hlamesh".to_string(), x.hlamesh.msgs_per_s),
                    ("raw-udp".to_string(), x.baseline.msgs_per_s),
                ],
            )
        })
        .collect();
    groups.extend(fanin::plot_groups(&r.fanin_results));
    crate::plot::Plot::bars(
        "hlamesh-bench throughput: one-way msgs/s (1→N slowest receiver, N→1 aggregate)",
        "messages/s",
        &groups,
    )
}
