//! The peer process (`hlamesh-bench peer`): started by the driver (on loopback or in another lab
//! namespace), it joins both paths and either echoes pings (`latency`), counts streamed
//! messages per block (`throughput` 1→N) or streams blocks to the driver (`throughput` N→1). It
//! talks to the driver with JSON lines on stdout and reads commands on stdin
//! (`end PATH BLOCK SENT`, `stream PATH BLOCK COUNT RELIABILITY SIZE SENDER`, `batching on|off`,
//! `counters`, `quit`); it exits when stdin closes, so a dying driver never leaves peers behind.

use std::collections::HashMap;
use std::io::BufRead;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hlamesh_transport::data::Reliability;
use serde_json::json;

use crate::BenchError;
use crate::net::NetParams;
use crate::session::Level;
use crate::sut::{Handler, RawUdpSut, Sut};
use crate::wire::{self, Kind};

/// What a peer does with the traffic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Role {
    /// Echo pings back on the path they came from.
    Echo,
    /// Count streamed messages per block.
    Sink,
    /// Stream blocks to the driver on command (one of the N→1 fan-in's senders).
    Source,
    /// A federate of the `time` subcommand (see [`crate::time`]).
    Time,
    /// A publisher of moving entities of the `ddm` subcommand (see [`crate::ddm`]).
    DdmPublisher,
}

impl Role {
    /// Its command-line spelling.
    pub fn arg(self) -> &'static str {
        match self {
            Role::Echo => "echo",
            Role::Sink => "sink",
            Role::Source => "source",
            Role::Time => "time",
            Role::DdmPublisher => "ddm-publisher",
        }
    }
}

#[derive(Default)]
struct BlockCount {
    received: u64,
    bytes: u64,
    first: Option<Instant>,
    last: Option<Instant>,
}

type Counts = Arc<Mutex<HashMap<(u8, u32), BlockCount>>>;

fn say(v: serde_json::Value) {
    println!("{v}");
}

/// Runs a peer until stdin closes or `timeout` passes.
pub fn run(
    role: Role,
    level: Level,
    net: &NetParams,
    federation: &str,
    timeout: Duration,
) -> Result<(), BenchError> {
    let hl = level.join(net, federation, false, role != Role::Source, 1, timeout)?;
    let raw = Arc::new(RawUdpSut::new(net)?);
    let paths: [Arc<dyn Sut>; 2] = [hl.clone(), raw.clone()];
    let counts: Counts = Arc::default();
    // A source only sends: its raw path joins no group and its RTI federate subscribes nothing.
    for sut in paths.iter().filter(|_| role != Role::Source) {
        let handler: Handler = match role {
            Role::Echo => {
                let weak = Arc::downgrade(sut);
                Arc::new(move |m: &[u8]| {
                    let t2 = wire::wall_ns();
                    if let Some(mut h) = wire::parse(m)
                        && h.kind == Kind::Ping
                        && let Some(sut) = weak.upgrade()
                    {
                        let mut echo = m.to_vec();
                        h.kind = Kind::Echo;
                        wire::write(&mut echo, h);
                        let rel = if h.best_effort {
                            Reliability::BestEffort
                        } else {
                            Reliability::Reliable
                        };
                        wire::stamp(&mut echo, t2, wire::wall_ns());
                        let _ = sut.send(rel, &echo);
                    }
                })
            }
            Role::Time | Role::DdmPublisher => {
                return Err(BenchError::Protocol(
                    "the time and ddm-publisher roles run in time::federate and ddm::publisher"
                        .into(),
                ));
            }
            Role::Source => {
                return Err(BenchError::Protocol("a source receives nothing".into()));
            }
            Role::Sink => {
                let counts = counts.clone();
                Arc::new(move |m: &[u8]| {
                    if let Some(h) = wire::parse(m)
                        && h.kind == Kind::Stream
                    {
                        let now = Instant::now();
                        let mut c = counts.lock().unwrap_or_else(|e| e.into_inner());
                        let e = c.entry((h.path, h.block)).or_default();
                        e.received += 1;
                        e.bytes += m.len() as u64;
                        e.first.get_or_insert(now);
                        e.last = Some(now);
                    }
                })
            }
        };
        sut.set_handler(handler)?;
    }
    let cpus = crate::cpus::allowed().unwrap_or_default();
    say(json!({"event": "ready", "cpus": cpus}));
    let deadline = Instant::now() + timeout;
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["end", path, block, sent] => {
                let (Ok(path), Ok(block), Ok(sent)) = (
                    path.parse::<u8>(),
                    block.parse::<u32>(),
                    sent.parse::<u64>(),
                ) else {
                    say(json!({"event": "error", "message": format!("bad command {line:?}")}));
                    continue;
                };
                say(end_of_block(&counts, path, block, sent, deadline));
            }
            ["stream", path, block, count, rel, size, sender] => {
                let parsed = (
                    path.parse::<u8>(),
                    block.parse::<u32>(),
                    count.parse::<u64>(),
                    size.parse::<usize>(),
                    sender.parse::<u8>(),
                );
                let (Ok(path), Ok(block), Ok(count), Ok(size), Ok(sender)) = parsed else {
                    say(json!({"event": "error", "message": format!("bad command {line:?}")}));
                    continue;
                };
                let Some(sut) = paths.get(usize::from(path)) else {
                    say(json!({"event": "error", "message": format!("no path {path}")}));
                    continue;
                };
                let rel = if *rel == "best-effort" {
                    Reliability::BestEffort
                } else {
                    Reliability::Reliable
                };
                say(stream(sut.as_ref(), path, block, count, rel, size, sender));
            }
            ["batching", on] => hl.set_batching(*on == "on"),
            ["counters"] => {
                say(json!({"event": "counters", "hlamesh": hl.counters(), "raw": raw.counters()}));
            }
            ["quit"] => break,
            _ => say(json!({"event": "error", "message": format!("unknown command {line:?}")})),
        }
        if Instant::now() > deadline {
            break;
        }
    }
    Ok(())
}

/// Sends one fan-in block of `count` messages as fast as the path takes them and reports how
/// long that took (`sent`).
fn stream(
    sut: &dyn Sut,
    path: u8,
    block: u32,
    count: u64,
    rel: Reliability,
    size: usize,
    sender: u8,
) -> serde_json::Value {
    let mut m = wire::message(
        wire::Header {
            kind: Kind::Stream,
            path,
            best_effort: rel == Reliability::BestEffort,
            block,
            index: 0,
            sender,
        },
        size,
    );
    let t0 = Instant::now();
    let mut failed = None;
    for i in 0..count {
        m[8..16].copy_from_slice(&i.to_be_bytes());
        if let Err(e) = sut.send(rel, &m) {
            failed = Some(e.to_string());
            break;
        }
    }
    sut.flush();
    match failed {
        Some(e) => json!({"event": "error", "message": format!("stream block {block}: {e}")}),
        None => json!({
            "event": "sent", "path": path, "block": block, "sent": count,
            "elapsed_ns": t0.elapsed().as_nanos() as u64,
        }),
    }
}

/// Waits until the block is complete, or nothing more arrived for a while (loss), and reports it.
fn end_of_block(
    counts: &Counts,
    path: u8,
    block: u32,
    sent: u64,
    deadline: Instant,
) -> serde_json::Value {
    const QUIET: Duration = Duration::from_millis(300);
    let mut last_seen = (0u64, Instant::now());
    loop {
        let received = {
            let c = counts.lock().unwrap_or_else(|e| e.into_inner());
            c.get(&(path, block)).map_or(0, |e| e.received)
        };
        if received != last_seen.0 {
            last_seen = (received, Instant::now());
        }
        if received >= sent || last_seen.1.elapsed() > QUIET || Instant::now() > deadline {
            break;
        }
        // Polling a counter the receive thread updates; the driver waits on our answer.
        std::thread::sleep(Duration::from_millis(2));
    }
    let e = counts
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&(path, block))
        .unwrap_or_default();
    let elapsed_ns = match (e.first, e.last) {
        (Some(f), Some(l)) => l.duration_since(f).as_nanos() as u64,
        _ => 0,
    };
    json!({
        "event": "block", "path": path, "block": block, "received": e.received,
        "bytes": e.bytes, "elapsed_ns": elapsed_ns,
    })
}
