//! `demo`: starts a small mesh of hlamesh nodes on this machine, as separate processes, with no
//! configuration (loopback, TTL 0, development security), lets each send a stream of reliable and
//! best-effort messages to the others over the federation's multicast group, and prints a summary.
//!
//! This is the transport-level demo of the foundation; the HLA federation demo (cars, flight
//! simulator, viewer, commander) replaces it when the engine and examples land.
//!
//! ```text
//! cargo run --release -p hlamesh-examples --bin demo            # 3 nodes, ~3 s
//! cargo run --release -p hlamesh-examples --bin demo -- --nodes 4 --messages 5000
//! ```

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;
use hlamesh_transport::data::Reliability;
use hlamesh_transport::{KeySource, NodeId, Transport, TransportConfig, TransportEvent};

#[derive(Parser, Debug)]
#[command(about = "Run a small hlamesh mesh on this machine and print what each node received")]
struct Args {
    /// Number of node processes.
    #[arg(long, default_value_t = 3)]
    nodes: usize,
    /// Reliable messages each node sends.
    #[arg(long, default_value_t = 2000)]
    messages: u64,
    /// Messages per second per node.
    #[arg(long, default_value_t = 2000)]
    rate: u64,
    /// Internal: run as node number N (the launcher passes this).
    #[arg(long, hide = true)]
    node: Option<usize>,
}

fn main() {
    let args = Args::parse();
    match args.node {
        Some(i) => std::process::exit(node(i, &args)),
        None => std::process::exit(launch(&args)),
    }
}

fn launch(args: &Args) -> i32 {
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("demo: cannot find my own executable: {e}");
            return 1;
        }
    };
    println!(
        "hlamesh demo: {} node processes on this machine, {} reliable messages each at {}/s",
        args.nodes, args.messages, args.rate
    );
    let mut children = Vec::new();
    for i in 0..args.nodes {
        let child = Command::new(&exe)
            .args(["--node", &i.to_string(), "--nodes", &args.nodes.to_string()])
            .args([
                "--messages",
                &args.messages.to_string(),
                "--rate",
                &args.rate.to_string(),
            ])
            .stdout(Stdio::piped())
            .spawn();
        match child {
            Ok(c) => children.push(c),
            Err(e) => {
                eprintln!("demo: cannot start node {i}: {e}");
                return 1;
            }
        }
    }
    let mut ok = true;
    for (i, mut c) in children.into_iter().enumerate() {
        if let Some(out) = c.stdout.take() {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                println!("node {i}: {line}");
            }
        }
        ok &= c.wait().is_ok_and(|s| s.success());
    }
    println!(
        "{}",
        if ok {
            "demo: all nodes received every reliable message, in order"
        } else {
            "demo: FAILED"
        }
    );
    if ok { 0 } else { 1 }
}

fn node(index: usize, args: &Args) -> i32 {
    let peers = args.nodes - 1;
    let mut cfg = TransportConfig::default();
    if let Err(e) = cfg.apply_env() {
        println!("config: {e}");
        return 1;
    }
    let t = match Transport::start(cfg) {
        Ok(t) => t,
        Err(e) => {
            println!("start failed: {e}");
            return 1;
        }
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    let fed = if index == 0 {
        t.open_federation("hlamesh-demo", KeySource::Create)
    } else {
        loop {
            match t.open_federation(
                "hlamesh-demo",
                KeySource::FromPeers(Duration::from_millis(300)),
            ) {
                Ok(f) => break Ok(f),
                Err(e) if Instant::now() > deadline => break Err(e),
                Err(_) => {}
            }
        }
    };
    let fed = match fed {
        Ok(f) => f,
        Err(e) => {
            println!("could not open the federation: {e}");
            return 1;
        }
    };
    let started = Instant::now();
    let mut joined_ms = None;
    let mut ready = 0;
    let mut received: HashMap<NodeId, (u64, u64, bool)> = HashMap::new();
    let mut done = 0;
    let mut sent = 0u64;
    let mut send_start: Option<Instant> = None;
    while done < peers || sent < args.messages {
        if Instant::now() > deadline {
            println!("timed out: {done} of {peers} peers finished, {ready} ready, sent {sent}");
            return 1;
        }
        if joined_ms.is_none() && fed.members().len() >= peers {
            joined_ms = Some(started.elapsed().as_millis());
            // Announce readiness over QUIC; nobody's stream starts before everyone listens.
            let _ = t.broadcast_control(Some(fed.tag()), b"ready");
        }
        if ready == peers && joined_ms.is_some() && sent < args.messages {
            let start = *send_start.get_or_insert_with(Instant::now);
            let due = start + Duration::from_secs_f64(sent as f64 / args.rate as f64);
            if Instant::now() >= due {
                let _ = fed.send(Reliability::Reliable, &sent.to_be_bytes());
                if sent.is_multiple_of(10) {
                    let _ = fed.send(Reliability::BestEffort, b"best-effort");
                }
                sent += 1;
                if sent == args.messages {
                    // Released at each peer only after all our data was delivered there.
                    let _ = t.broadcast_control(Some(fed.tag()), b"done");
                }
                continue;
            }
        }
        match t.events().recv_timeout(Duration::from_micros(200)) {
            Ok(TransportEvent::Control { payload, .. }) if &payload[..] == b"ready" => ready += 1,
            Ok(TransportEvent::Control { payload, .. }) if &payload[..] == b"done" => done += 1,
            Ok(TransportEvent::Data {
                from, seq, payload, ..
            }) => {
                let e = received.entry(from).or_insert((0, 0, true));
                match seq {
                    Some(_) => {
                        let n = payload
                            .get(..8)
                            .and_then(|b| <[u8; 8]>::try_from(b).ok())
                            .map(u64::from_be_bytes);
                        e.2 &= n == Some(e.0);
                        e.0 += 1;
                    }
                    None => e.1 += 1,
                }
            }
            _ => {}
        }
    }
    let joined_ms = joined_ms.unwrap_or_default();
    let mut ok = true;
    for (from, (rel, be, in_order)) in &received {
        ok &= *rel == args.messages && *in_order;
        println!(
            "from {from}: {rel}/{} reliable (in order: {in_order}), {be} best-effort",
            args.messages
        );
    }
    ok &= received.len() == peers;
    println!(
        "joined in {joined_ms} ms, sent {sent} reliable, {} QUIC connections",
        t.open_connections()
    );
    // Stay a moment so peers' last repairs can be served, then leave cleanly.
    std::thread::sleep(Duration::from_millis(300));
    t.shutdown();
    if ok { 0 } else { 1 }
}
