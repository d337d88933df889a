//! `throughput`'s N→1 fan-in: N sender processes stream one-way blocks to the driver at the same
//! time; the driver, the one receiver, counts what arrives from each sender. hlamesh and raw UDP
//! multicast (N raw senders, one `sendto` per message, into the driver's raw socket) alternate in
//! blocks (A B A B). Figures: the aggregate rate at the receiver, each sender's share of what
//! arrived and its own rate while they competed (fairness), and loss and repair counts.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::BenchError;
use crate::peer::Role;
use crate::placement::Placement;
use crate::progress::Progress;
use crate::report::median;
use crate::session::Session;
use crate::sut::{Counters, Handler, Sut};
use crate::throughput::ThroughputOptions;
use crate::wire::{self, Kind};

/// One block on one path.
#[derive(Clone, Debug, Serialize)]
pub struct FaninBlock {
    /// Messages sent, all senders together.
    pub sent: u64,
    /// Messages the receiver got, all senders together.
    pub received: u64,
    /// Receive rate at the receiver: messages / first-to-last arrival over all senders.
    pub receiver_msgs_per_s: f64,
    /// Offered rate: messages sent / the slowest sender's time to hand its block to the path.
    pub sender_msgs_per_s: f64,
    /// Messages received from each sender.
    pub per_sender_received: Vec<u64>,
    /// Each sender's receive rate at the receiver (its first-to-last arrival).
    pub per_sender_msgs_per_s: Vec<f64>,
}

/// One sender over the recorded blocks.
#[derive(Clone, Debug, Serialize)]
pub struct SenderFigure {
    /// Sender index (0-based; peer process k).
    pub sender: usize,
    /// Messages it sent.
    pub sent: u64,
    /// Messages of it the receiver got.
    pub received: u64,
    /// Its fraction of everything the receiver got (1/N when fair).
    pub share: f64,
    /// Median over blocks of its receive rate at the receiver.
    pub msgs_per_s: f64,
}

/// One path's fan-in figures in one configuration.
#[derive(Clone, Debug, Serialize)]
pub struct FaninPath {
    /// Median over blocks of the aggregate receive rate.
    pub msgs_per_s: f64,
    /// The same in payload megabytes (10^6 B) per second.
    pub mb_per_s: f64,
    /// Median over blocks of the offered rate (all senders together).
    pub sender_msgs_per_s: f64,
    /// Messages sent but not received, over all blocks and senders.
    pub lost_messages: u64,
    /// Smallest fraction of a block any sender got through.
    pub delivered_fraction_min: f64,
    /// Smallest sender share of what arrived (1/N when fair).
    pub share_min: f64,
    /// Largest sender share.
    pub share_max: f64,
    /// Slowest sender's rate ÷ fastest sender's rate (1 when fair).
    pub rate_fairness: f64,
    /// Every sender.
    pub per_sender: Vec<SenderFigure>,
    /// Datagrams the senders sent during the recorded blocks.
    pub datagrams_out: u64,
    /// Messages per datagram (messages sent / datagrams_out).
    pub messages_per_datagram: f64,
    /// NACKs the receiver sent (repair requests).
    pub nacks_sent: u64,
    /// NACKs the senders sent: they hear each other's multicast, and on the transport level
    /// reliable means reliable to every member, so they ask each other for repairs too.
    pub sender_nacks_sent: u64,
    /// Datagrams the senders retransmitted (to the receiver and to each other).
    pub repaired_datagrams: u64,
    /// Reliable messages lost for good at the receiver.
    pub fell_behind_messages: u64,
    /// Every recorded block.
    pub per_block: Vec<FaninBlock>,
}

/// One fan-in configuration's result.
#[derive(Clone, Debug, Serialize)]
pub struct FaninResult {
    /// Sender processes.
    pub senders: usize,
    /// hlamesh batching on (at the senders)?
    pub batching: bool,
    /// hlamesh reliability.
    pub reliability: String,
    /// Payload bytes.
    pub payload_bytes: usize,
    /// Messages each sender sends per block.
    pub messages_per_sender_per_block: u64,
    /// hlamesh.
    pub hlamesh: FaninPath,
    /// Raw UDP multicast, one datagram per message, N senders into one socket.
    pub baseline: FaninPath,
    /// hlamesh aggregate msgs/s ÷ raw aggregate msgs/s.
    pub ratio: f64,
    /// The driver's CPU, then each sender's (`null` when not pinned).
    pub cpus: Vec<Option<usize>>,
}

#[derive(Clone, Default)]
struct SenderCount {
    received: u64,
    first: Option<Instant>,
    last: Option<Instant>,
}

/// Arrivals per (path, block), one entry per sender.
type Counts = Arc<Mutex<HashMap<(u8, u32), Vec<SenderCount>>>>;

fn counting_handler(counts: &Counts, senders: usize) -> Handler {
    let counts = counts.clone();
    Arc::new(move |m: &[u8]| {
        if let Some(h) = wire::parse(m)
            && h.kind == Kind::Stream
        {
            let now = Instant::now();
            let mut c = counts.lock().unwrap_or_else(|e| e.into_inner());
            let per = c
                .entry((h.path, h.block))
                .or_insert_with(|| vec![SenderCount::default(); senders]);
            if let Some(e) = per.get_mut(usize::from(h.sender)) {
                e.received += 1;
                e.first.get_or_insert(now);
                e.last = Some(now);
            }
        }
    })
}

fn rate(received: u64, first: Option<Instant>, last: Option<Instant>) -> f64 {
    match (first, last) {
        (Some(f), Some(l)) if received > 1 && l > f => {
            (received - 1) as f64 / l.duration_since(f).as_secs_f64()
        }
        _ => 0.0,
    }
}

/// Has every sender stream one block on `path` at once; collects the arrivals.
fn block(
    s: &mut Session,
    counts: &Counts,
    path: u8,
    block: u32,
    rel: &str,
    opts: &ThroughputOptions,
    timeout: Duration,
) -> Result<FaninBlock, BenchError> {
    let n = s.peers.len();
    for (k, p) in s.peers.iter_mut().enumerate() {
        p.command(&format!(
            "stream {path} {block} {} {rel} {} {k}",
            opts.messages, opts.size
        ))?;
    }
    let mut send_s = 0f64;
    for p in &s.peers {
        let v = p.wait_event("sent", timeout)?;
        send_s = send_s.max(v["elapsed_ns"].as_u64().unwrap_or(0) as f64 / 1e9);
    }
    let sent = opts.messages * n as u64;
    // The senders are done; wait for the tail, or until nothing arrived for a while (loss).
    // Reliable hlamesh delivers in order per sender, so a gap holds back everything behind it
    // until its repair arrives: give repairs time before calling the rest lost.
    let quiet = if path == 0 && rel == "reliable" {
        Duration::from_secs(2)
    } else {
        Duration::from_millis(300)
    };
    let end = Instant::now() + timeout;
    let mut last_seen = (u64::MAX, Instant::now());
    loop {
        let received: u64 = {
            let c = counts.lock().unwrap_or_else(|e| e.into_inner());
            c.get(&(path, block))
                .map_or(0, |v| v.iter().map(|e| e.received).sum())
        };
        if received != last_seen.0 {
            last_seen = (received, Instant::now());
        }
        if received >= sent || last_seen.1.elapsed() > quiet || Instant::now() > end {
            break;
        }
        // Polling a counter the receive threads update; nothing else signals "block over".
        std::thread::sleep(Duration::from_millis(2));
    }
    let per = counts
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&(path, block))
        .unwrap_or_else(|| vec![SenderCount::default(); n]);
    let received: u64 = per.iter().map(|e| e.received).sum();
    let first = per.iter().filter_map(|e| e.first).min();
    let last = per.iter().filter_map(|e| e.last).max();
    Ok(FaninBlock {
        sent,
        received,
        receiver_msgs_per_s: rate(received, first, last),
        sender_msgs_per_s: sent as f64 / send_s.max(1e-9),
        per_sender_received: per.iter().map(|e| e.received).collect(),
        per_sender_msgs_per_s: per
            .iter()
            .map(|e| rate(e.received, e.first, e.last))
            .collect(),
    })
}

/// The senders' counters, summed ("hlamesh" or "raw").
fn senders_counters(s: &mut Session, timeout: Duration) -> Result<[Counters; 2], BenchError> {
    let mut sum = [Counters::default(), Counters::default()];
    for p in &mut s.peers {
        p.command("counters")?;
        let v = p.wait_event("counters", timeout)?;
        for (i, key) in ["hlamesh", "raw"].into_iter().enumerate() {
            let c: Counters = serde_json::from_value(v[key].clone())
                .map_err(|e| BenchError::Protocol(format!("bad counters: {e}")))?;
            sum[i].datagrams_out += c.datagrams_out;
            sum[i].repaired_datagrams += c.repaired_datagrams;
            sum[i].nacks_sent += c.nacks_sent;
        }
    }
    Ok(sum)
}

fn summarise(
    blocks: Vec<FaninBlock>,
    opts: &ThroughputOptions,
    senders: usize,
    datagrams_out: u64,
    repair: (u64, u64, u64, u64),
) -> FaninPath {
    let agg: Vec<f64> = blocks.iter().map(|b| b.receiver_msgs_per_s).collect();
    let offered: Vec<f64> = blocks.iter().map(|b| b.sender_msgs_per_s).collect();
    let sent: u64 = blocks.iter().map(|b| b.sent).sum();
    let received: u64 = blocks.iter().map(|b| b.received).sum();
    let per_sender: Vec<SenderFigure> = (0..senders)
        .map(|k| {
            let got: u64 = blocks
                .iter()
                .map(|b| b.per_sender_received.get(k).copied().unwrap_or(0))
                .sum();
            let rates: Vec<f64> = blocks
                .iter()
                .map(|b| b.per_sender_msgs_per_s.get(k).copied().unwrap_or(0.0))
                .collect();
            SenderFigure {
                sender: k,
                sent: opts.messages * blocks.len() as u64,
                received: got,
                share: got as f64 / received.max(1) as f64,
                msgs_per_s: median(&rates),
            }
        })
        .collect();
    let shares = || per_sender.iter().map(|p| p.share);
    let rates = || per_sender.iter().map(|p| p.msgs_per_s);
    let fastest = rates().fold(0.0, f64::max);
    let msgs = median(&agg);
    FaninPath {
        msgs_per_s: msgs,
        mb_per_s: msgs * opts.size as f64 / 1e6,
        sender_msgs_per_s: median(&offered),
        lost_messages: sent.saturating_sub(received),
        delivered_fraction_min: blocks
            .iter()
            .flat_map(|b| b.per_sender_received.iter())
            .map(|r| *r as f64 / opts.messages.max(1) as f64)
            .fold(1.0, f64::min),
        share_min: shares().fold(f64::INFINITY, f64::min).min(1.0),
        share_max: shares().fold(0.0, f64::max),
        rate_fairness: if fastest > 0.0 {
            rates().fold(f64::INFINITY, f64::min) / fastest
        } else {
            0.0
        },
        per_sender,
        datagrams_out,
        messages_per_datagram: sent as f64 / datagrams_out.max(1) as f64,
        nacks_sent: repair.0,
        sender_nacks_sent: repair.3,
        repaired_datagrams: repair.1,
        fell_behind_messages: repair.2,
        per_block: blocks,
    }
}

/// Runs every fan-in configuration of `opts` (`opts.fanins` × reliabilities × batching).
/// `next_block` numbers the blocks (unique within the run).
pub fn run(
    placement: &Placement,
    opts: &ThroughputOptions,
    deadline: Instant,
    next_block: &mut u32,
    progress: &mut Progress,
) -> Result<Vec<FaninResult>, BenchError> {
    let mut results = Vec::new();
    for &senders in &opts.fanins {
        if senders == 0 || senders > usize::from(u8::MAX) {
            return Err(BenchError::Protocol(format!(
                "--fanin {senders}: use 1 to 255 senders"
            )));
        }
        let left = deadline.saturating_duration_since(Instant::now());
        let step = Duration::from_secs(30).min(left.max(Duration::from_secs(1)));
        let mut s = Session::start(
            placement,
            Role::Source,
            opts.level,
            senders,
            step,
            left + step,
            opts.pin,
        )?;
        let counts: Counts = Arc::default();
        let paths: [Arc<dyn Sut>; 2] = [s.hl.clone(), s.raw.clone()];
        for p in &paths {
            p.set_handler(counting_handler(&counts, senders))?;
        }
        for rel in &opts.reliabilities {
            for &batching in &opts.batching {
                for p in &mut s.peers {
                    p.command(if batching {
                        "batching on"
                    } else {
                        "batching off"
                    })?;
                }
                let mut figs: [Vec<FaninBlock>; 2] = [Vec::new(), Vec::new()];
                let mut before = (
                    Counters::default(),
                    [Counters::default(), Counters::default()],
                );
                for b in 0..=opts.blocks {
                    progress.inc(1);
                    if Instant::now() > deadline {
                        return Err(BenchError::Protocol(
                            "throughput run exceeded its time bound (fan-in)".into(),
                        ));
                    }
                    for (path, fig) in figs.iter_mut().enumerate() {
                        let f = block(&mut s, &counts, path as u8, *next_block, rel, opts, step)?;
                        *next_block += 1;
                        // Block 0 warms both paths up and is not recorded.
                        if b > 0 {
                            fig.push(f);
                        }
                    }
                    if b == 0 {
                        before = (s.hl.counters(), senders_counters(&mut s, step)?);
                    }
                }
                let after = (s.hl.counters(), senders_counters(&mut s, step)?);
                let (rx0, [hl0, raw0]) = before;
                let (rx1, [hl1, raw1]) = after;
                let [hf, rf] = figs;
                let h = summarise(
                    hf,
                    opts,
                    senders,
                    hl1.datagrams_out - hl0.datagrams_out,
                    (
                        rx1.nacks_sent - rx0.nacks_sent,
                        hl1.repaired_datagrams - hl0.repaired_datagrams,
                        rx1.fell_behind_messages - rx0.fell_behind_messages,
                        hl1.nacks_sent - hl0.nacks_sent,
                    ),
                );
                let r = summarise(
                    rf,
                    opts,
                    senders,
                    raw1.datagrams_out - raw0.datagrams_out,
                    (0, 0, 0, 0),
                );
                results.push(FaninResult {
                    senders,
                    batching,
                    reliability: rel.clone(),
                    payload_bytes: opts.size,
                    messages_per_sender_per_block: opts.messages,
                    ratio: h.msgs_per_s / r.msgs_per_s.max(f64::MIN_POSITIVE),
                    hlamesh: h,
                    baseline: r,
                    cpus: s.cpus.clone(),
                });
            }
        }
    }
    Ok(results)
}

/// The fan-in part of the table printed on stdout.
pub fn table(results: &[FaninResult]) -> String {
    let mut s = format!(
        "{:>6} {:<12} {:<9} {:<8} {:>11} {:>8} {:>11} {:>9} {:>8} {:>13} {:>6} {:>11} {:>8} {:>6}\n",
        "N->1",
        "reliability",
        "batching",
        "path",
        "msgs/s",
        "MB/s",
        "offered/s",
        "lost",
        "msg/dgm",
        "share min/max",
        "fair",
        "nacks rx/tx",
        "repaired",
        "ratio"
    );
    for x in results {
        for (name, p) in [("hlamesh", &x.hlamesh), ("raw-udp", &x.baseline)] {
            s.push_str(&format!(
                "{:>6} {:<12} {:<9} {:<8} {:>11.0} {:>8.1} {:>11.0} {:>9} {:>8.1} {:>13} {:>6.2} {:>11} {:>8} {:>6}\n",
                x.senders,
                x.reliability,
                if x.batching { "on" } else { "off" },
                name,
                p.msgs_per_s,
                p.mb_per_s,
                p.sender_msgs_per_s,
                p.lost_messages,
                p.messages_per_datagram,
                format!("{:.2}/{:.2}", p.share_min, p.share_max),
                p.rate_fairness,
                format!("{}/{}", p.nacks_sent, p.sender_nacks_sent),
                p.repaired_datagrams,
                if name == "hlamesh" {
                    format!("{:.2}", x.ratio)
                } else {
                    String::new()
                }
            ));
        }
    }
    s
}

/// The fan-in groups of the throughput bar plot.
pub fn plot_groups(results: &[FaninResult]) -> Vec<(String, Vec<(String, f64)>)> {
    results
        .iter()
        .map(|x| {
            (
                format!(
                    "{}→1 {} batch {}",
                    x.senders,
                    x.reliability,
                    if x.batching { "on" } else { "off" }
                ),
                vec![
                    ("hlamesh".to_string(), x.hlamesh.msgs_per_s),
                    ("raw-udp".to_string(), x.baseline.msgs_per_s),
                ],
            )
        })
        .collect()
}
