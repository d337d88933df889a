//! `hlamesh-transport-probe`: one transport node in its own process, for the multi-process tests
//! and the first latency figures. It prints one JSON object per line on stdout.
//!
//! Modes:
//! - `exchange`: waits for the expected peers, then sends `--count` reliable messages of random
//!   sizes (log-uniform over 1 B – 64 KiB) and `--best-effort` unreliable ones, and checks that it
//!   received every peer's messages exactly once, in order, byte-identical (SHA-256 over the
//!   stream, compared with the digest the sender announces over QUIC — that announcement is
//!   causally ordered behind the data, so it arrives only after all of it was delivered).
//! - `hold`: joins and reports peer events until killed or the deadline.
//! - `observe`: runs for `--duration-ms`, sending best-effort and reliable traffic, then reports
//!   refused connections and dropped datagrams.
//! - `ping` / `pong`: 100-byte reliable round trips over the data channel, next to a raw UDP
//!   multicast ping-pong on the same path, interleaved.

use std::collections::{HashMap, HashSet};
use std::net::{Ipv4Addr, SocketAddrV4};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::{Parser, ValueEnum};
use hlamesh_transport::data::Reliability;
use hlamesh_transport::{
    FaultSettings, FederationChannel, KeySource, NodeId, SecurityConfig, Transport,
    TransportConfig, TransportEvent,
};
use rand::{Rng, RngCore, SeedableRng};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Mode {
    Exchange,
    Hold,
    Observe,
    Ping,
    Pong,
}

#[derive(Parser, Debug)]
#[command(about = "One hlamesh transport node for multi-process tests")]
struct Args {
    #[arg(long, value_enum, default_value = "exchange")]
    mode: Mode,
    #[arg(long, default_value = "probe")]
    federation: String,
    /// Create the federation (generate its key) instead of fetching the key from peers.
    #[arg(long)]
    create: bool,
    /// Number of peers to wait for.
    #[arg(long, default_value_t = 2)]
    peers: usize,
    #[arg(long, default_value_t = 1000)]
    count: u64,
    #[arg(long, default_value_t = 0)]
    best_effort: u64,
    /// Messages per second (0 = unpaced).
    #[arg(long, default_value_t = 4000)]
    rate: u64,
    #[arg(long, default_value_t = 65536)]
    max_size: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value = "127.0.0.1")]
    interface: Ipv4Addr,
    #[arg(long, default_value_t = 0)]
    ttl: u32,
    #[arg(long, default_value_t = 47700)]
    discovery_port: u16,
    #[arg(long, default_value_t = 47701)]
    data_port: u16,
    #[arg(long, default_value = "239.255.77.1")]
    discovery_group: Ipv4Addr,
    #[arg(long)]
    secret: Option<String>,
    #[arg(long, num_args = 3, value_names = ["CA", "CERT", "KEY"])]
    certs: Option<Vec<String>>,
    #[arg(long)]
    fault_seed: Option<u64>,
    #[arg(long, default_value_t = 0)]
    dup_per_mille: u32,
    #[arg(long, default_value_t = 0)]
    reorder_per_mille: u32,
    #[arg(long, default_value_t = 0)]
    max_delay_us: u64,
    #[arg(long, default_value_t = 120)]
    timeout_s: u64,
    /// Retransmit buffer per sender, MiB.
    #[arg(long, default_value_t = 64)]
    retransmit_mb: usize,
    #[arg(long, default_value_t = 3000)]
    duration_ms: u64,
    /// Ping mode: samples per path.
    #[arg(long, default_value_t = 2000)]
    samples: usize,
    /// Hold mode: leave cleanly (goodbye to every peer) after this many milliseconds.
    #[arg(long)]
    leave_after_ms: Option<u64>,
    /// Ping/pong: handle hlamesh messages in the transport's event hook (no thread hand-off).
    #[arg(long)]
    immediate: bool,
    /// Exchange: the data thread spends this many microseconds on every data message (a slow
    /// receiver, as an LRC busy in its callbacks).
    #[arg(long, default_value_t = 0)]
    slow_us: u64,
    /// Exchange: the sender waits for flow-control room before every reliable message, as an
    /// application thread sending through the LRC does.
    #[arg(long)]
    paced: bool,
    /// Turn flow control off (`flow_control = false`).
    #[arg(long)]
    no_flow: bool,
    /// `flow_window_bytes` (0: a quarter of the socket's receive buffer).
    #[arg(long, default_value_t = 0)]
    flow_window_bytes: u64,
    /// Ping/pong: UDP port of the raw baseline.
    #[arg(long, default_value_t = 47710)]
    raw_port: u16,
}

#[derive(Serialize, Deserialize, Debug)]
enum Ctl {
    Ready,
    Done {
        reliable: u64,
        digest: String,
        best_effort: u64,
    },
    Finished,
}

fn wall_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

fn out(v: serde_json::Value) {
    println!("{v}");
}

fn config(a: &Args) -> TransportConfig {
    let security = match (&a.certs, &a.secret) {
        (Some(c), _) => SecurityConfig::Certificates {
            ca: c[0].clone().into(),
            cert: c[1].clone().into(),
            key: c[2].clone().into(),
        },
        (None, Some(s)) => SecurityConfig::Development {
            secret: s.clone(),
            allow_non_loopback: true,
        },
        (None, None) => SecurityConfig::Development {
            secret: "hlamesh-development".into(),
            allow_non_loopback: true,
        },
    };
    TransportConfig {
        interface: a.interface,
        multicast_ttl: a.ttl,
        discovery_port: a.discovery_port,
        data_port: a.data_port,
        discovery_group: a.discovery_group,
        security,
        retransmit_buffer_bytes: a.retransmit_mb << 20,
        flow_control: !a.no_flow,
        flow_window_bytes: a.flow_window_bytes,
        fault: a.fault_seed.map(|seed| FaultSettings {
            seed,
            drop_per_mille: 0,
            dup_per_mille: a.dup_per_mille,
            reorder_per_mille: a.reorder_per_mille,
            max_delay_us: a.max_delay_us,
        }),
        ..TransportConfig::default()
    }
}

struct Deadline(Instant);
impl Deadline {
    fn left(&self) -> Option<Duration> {
        self.0.checked_duration_since(Instant::now())
    }
}

fn fail(msg: &str) -> ! {
    out(json!({"event": "error", "message": msg}));
    std::process::exit(1);
}

fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("HLAMESH_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let a = Args::parse();
    let deadline = Deadline(Instant::now() + Duration::from_secs(a.timeout_s));
    let t = match Transport::start(config(&a)) {
        Ok(t) => Arc::new(t),
        Err(e) => fail(&format!("start: {e}")),
    };
    out(
        json!({"event": "started", "node": t.node_id().to_string(), "quic": t.quic_addr().to_string()}),
    );
    match a.mode {
        Mode::Exchange => exchange(&a, &t, &deadline),
        Mode::Hold => hold(&a, t, &deadline),
        Mode::Observe => observe(&a, &t),
        Mode::Ping | Mode::Pong => ping_pong(&a, &t, &deadline),
    }
}

/// Waits for the expected peers, opens the federation and waits until every peer accepts our
/// data (and we theirs).
fn join(
    a: &Args,
    t: &Transport,
    deadline: &Deadline,
    pending: &mut Vec<TransportEvent>,
) -> FederationChannel {
    let mut connected = HashSet::new();
    let mut fed = if a.create {
        Some(
            t.open_federation(&a.federation, KeySource::Create)
                .unwrap_or_else(|e| fail(&e.to_string())),
        )
    } else {
        None
    };
    let mut members = HashSet::new();
    loop {
        if fed.is_none() && !connected.is_empty() {
            match t.open_federation(
                &a.federation,
                KeySource::FromPeers(Duration::from_millis(500)),
            ) {
                Ok(f) => fed = Some(f),
                Err(e) => tracing::debug!("key not yet available: {e}"),
            }
        }
        if let Some(f) = &fed {
            for m in f.members() {
                members.insert(m);
            }
            if members.len() >= a.peers {
                out(json!({"event": "joined", "members": members.len()}));
                return f.clone();
            }
        }
        let Some(left) = deadline.left() else {
            fail(&format!(
                "timed out joining: {} peers connected, {} members",
                connected.len(),
                members.len()
            ));
        };
        match t
            .events()
            .recv_timeout(left.min(Duration::from_millis(100)))
        {
            Ok(TransportEvent::PeerConnected { node, .. }) => {
                connected.insert(node);
            }
            Ok(TransportEvent::FederationPeer {
                node, joined: true, ..
            }) => {
                members.insert(node);
            }
            Ok(other) => pending.push(other),
            Err(_) => {}
        }
    }
}

#[derive(Default)]
struct PeerRecv {
    next_index: u64,
    reliable: u64,
    digest: Option<ring::digest::Context>,
    best_effort: HashSet<u64>,
    be_dups: u64,
    order_errors: u64,
    done: Option<(u64, String, u64)>,
    reliable_at_done: u64,
    after_done: u64,
    finished: bool,
    ready: bool,
}

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

fn message(rng: &mut rand::rngs::StdRng, index: u64, max: usize) -> Vec<u8> {
    // Log-uniform sizes: every order of magnitude from 1 B to 64 KiB is equally represented.
    let max = max.max(9) as f64;
    let size = (max.ln() * rng.random::<f64>()).exp() as usize;
    let mut m = vec![0u8; size.max(9)];
    m[..8].copy_from_slice(&index.to_be_bytes());
    rng.fill_bytes(&mut m[8..]);
    m
}

fn exchange(a: &Args, t: &Arc<Transport>, deadline: &Deadline) {
    let mut pending = Vec::new();
    let fed = join(a, t, deadline, &mut pending);
    let tag = fed.tag();
    let ctl = |c: &Ctl| serde_json::to_vec(c).unwrap_or_default();
    if a.slow_us > 0 {
        let slow = Duration::from_micros(a.slow_us);
        t.set_event_hook(Some(Arc::new(move |ev| {
            if matches!(ev, TransportEvent::Data { .. }) {
                // Busy, as an application callback would be (a sleep would overshoot).
                let until = Instant::now() + slow;
                while Instant::now() < until {
                    std::hint::spin_loop();
                }
            }
            Some(ev)
        })));
    }
    let mut peers: HashMap<NodeId, PeerRecv> = HashMap::new();
    for m in fed.members() {
        peers.entry(m).or_default();
    }
    if let Err(e) = t.broadcast_control(Some(tag), &ctl(&Ctl::Ready)) {
        fail(&e.to_string());
    }
    let mut sender: Option<std::thread::JoinHandle<()>> = None;
    let mut finished_sent = false;
    let started = Instant::now();
    let mut events = pending
        .into_iter()
        .collect::<std::collections::VecDeque<_>>();
    loop {
        let ev = match events.pop_front() {
            Some(e) => Some(e),
            None => {
                let Some(left) = deadline.left() else {
                    let status: Vec<_> = peers
                        .iter()
                        .map(|(n, p)| json!({"peer": n.to_string(), "reliable": p.reliable, "done": p.done.is_some(), "finished": p.finished}))
                        .collect();
                    out(
                        json!({"event": "timeout", "peers": status, "stats": format!("{:?}", fed.stats())}),
                    );
                    std::process::exit(1);
                };
                t.events()
                    .recv_timeout(left.min(Duration::from_millis(50)))
                    .ok()
            }
        };
        match ev {
            Some(TransportEvent::Data {
                from, seq, payload, ..
            }) => {
                let p = peers.entry(from).or_default();
                if payload.len() < 8 {
                    p.order_errors += 1;
                    continue;
                }
                let mut idx = [0u8; 8];
                idx.copy_from_slice(&payload[..8]);
                let index = u64::from_be_bytes(idx);
                match seq {
                    Some(_) => {
                        if p.done.is_some() {
                            p.after_done += 1;
                        }
                        if index != p.next_index {
                            p.order_errors += 1;
                        }
                        p.next_index = index + 1;
                        p.reliable += 1;
                        p.digest
                            .get_or_insert_with(|| {
                                ring::digest::Context::new(&ring::digest::SHA256)
                            })
                            .update(&payload);
                    }
                    None => {
                        if !p.best_effort.insert(index) {
                            p.be_dups += 1;
                        }
                    }
                }
            }
            Some(TransportEvent::Control { from, payload, .. }) => {
                let p = peers.entry(from).or_default();
                match serde_json::from_slice::<Ctl>(&payload) {
                    Ok(Ctl::Ready) => p.ready = true,
                    Ok(Ctl::Done {
                        reliable,
                        digest,
                        best_effort,
                    }) => {
                        p.reliable_at_done = p.reliable;
                        p.done = Some((reliable, digest, best_effort));
                    }
                    Ok(Ctl::Finished) => p.finished = true,
                    Err(e) => fail(&format!("bad control message: {e}")),
                }
            }
            Some(TransportEvent::PeerLost { node }) => {
                fail(&format!("peer {node} lost during exchange"))
            }
            // A peer that had everything from us (its Finished) may leave before we have
            // everything from the others; leaving earlier is a failure of the exchange.
            Some(TransportEvent::PeerLeft { node }) => {
                if !peers.get(&node).is_some_and(|p| p.finished) {
                    fail(&format!("peer {node} left before it finished the exchange"))
                }
            }
            Some(TransportEvent::FellBehind {
                from, first, last, ..
            }) => fail(&format!(
                "fell behind {from}: lost {first}..={last}; own sender {:?}",
                fed.send_stats()
            )),
            Some(_) | None => {}
        }
        if sender.is_none() && peers.len() >= a.peers && peers.values().all(|p| p.ready) {
            let (t2, f2, count, be, rate, max, seed, paced) = (
                t.clone(),
                fed.clone(),
                a.count,
                a.best_effort,
                a.rate,
                a.max_size,
                a.seed,
                a.paced,
            );
            sender = Some(std::thread::spawn(move || {
                let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ t2.node_id().0);
                let mut digest = ring::digest::Context::new(&ring::digest::SHA256);
                let start = Instant::now();
                let total = count + be;
                let mut be_sent = 0;
                for i in 0..total {
                    if rate > 0 {
                        let due = start + Duration::from_secs_f64(i as f64 / rate as f64);
                        if let Some(w) = due.checked_duration_since(Instant::now()) {
                            std::thread::sleep(w);
                        }
                    }
                    // Interleave best-effort messages evenly among the reliable ones.
                    let is_be = be > 0 && (i * be / total) != ((i + 1) * be / total);
                    if is_be {
                        let m = message(&mut rng, be_sent, 1200);
                        be_sent += 1;
                        if let Err(e) = f2.send(Reliability::BestEffort, &m) {
                            fail(&format!("send: {e}"));
                        }
                    } else {
                        let idx = i - be_sent;
                        let m = message(&mut rng, idx, max);
                        digest.update(&m);
                        if paced {
                            f2.wait_for_room();
                        }
                        if let Err(e) = f2.send(Reliability::Reliable, &m) {
                            fail(&format!("send: {e}"));
                        }
                    }
                }
                let d = hex(digest.finish().as_ref());
                let done = Ctl::Done {
                    reliable: count,
                    digest: d,
                    best_effort: be_sent,
                };
                if let Err(e) = t2.broadcast_control(
                    Some(f2.tag()),
                    &serde_json::to_vec(&done).unwrap_or_default(),
                ) {
                    fail(&e.to_string());
                }
            }));
        }
        let all_done = peers.len() >= a.peers && peers.values().all(|p| p.done.is_some());
        if all_done && !finished_sent && sender.as_ref().is_some_and(|s| s.is_finished()) {
            finished_sent = true;
            let _ = t.broadcast_control(Some(tag), &ctl(&Ctl::Finished));
        }
        if finished_sent && peers.values().all(|p| p.finished) {
            break;
        }
    }
    let mut ok = true;
    let mut report = Vec::new();
    for (node, p) in &mut peers {
        let (rel, digest, be_sent) = p.done.clone().unwrap_or_default();
        let got = p
            .digest
            .take()
            .map(|d| hex(d.finish().as_ref()))
            .unwrap_or_default();
        let peer_ok = p.reliable == rel
            && got == digest
            && p.order_errors == 0
            && p.be_dups == 0
            && p.best_effort.len() as u64 <= be_sent;
        ok &= peer_ok;
        report.push(json!({
            "peer": node.to_string(), "ok": peer_ok, "reliable": p.reliable, "expected": rel,
            "digest_match": got == digest, "order_errors": p.order_errors, "next_index": p.next_index,
            "delivered_seq": fed.delivered(*node), "reliable_at_done": p.reliable_at_done, "after_done": p.after_done,
            "best_effort": p.best_effort.len(), "best_effort_sent": be_sent, "best_effort_dups": p.be_dups,
        }));
    }
    let s = fed.stats();
    out(json!({
        "event": "result", "ok": ok, "peers": report, "elapsed_ms": started.elapsed().as_millis(),
        "recv_stats": format!("{s:?}"),
        "nacks_sent": t.stats().nacks_sent.load(std::sync::atomic::Ordering::Relaxed),
        "nacks_served": t.stats().nacks_served.load(std::sync::atomic::Ordering::Relaxed),
        "open_connections": t.open_connections(),
        "flow": format!("{:?}", fed.flow_stats()),
        "flow_waits": fed.flow_stats().waits,
        "flow_stalls": fed.flow_stats().stalls,
    }));
    // Leave as a process that is done does: goodbyes, acknowledged by every peer (bounded, about
    // a second), so that a peer still waiting for another's Finished sees this node leave, not
    // lose it. Exiting without them made a slow peer (a loaded machine) fail the exchange.
    t.leave();
    std::process::exit(if ok { 0 } else { 1 });
}

fn hold(a: &Args, t: Arc<Transport>, deadline: &Deadline) {
    let mut pending = Vec::new();
    let _fed = join(a, &t, deadline, &mut pending);
    out(
        json!({"event": "ready", "wall_ms": wall_ms().to_string(), "connections": t.open_connections(), "peers": t.peers().len()}),
    );
    for ev in pending {
        report_event(&ev);
    }
    let leave_at = a
        .leave_after_ms
        .map(|ms| Instant::now() + Duration::from_millis(ms));
    while let Some(left) = deadline.left() {
        if leave_at.is_some_and(|at| Instant::now() >= at) {
            out(json!({"event": "leaving", "wall_ms": wall_ms().to_string()}));
            match Arc::try_unwrap(t) {
                Ok(t) => t.shutdown(),
                Err(_) => fail("transport still shared at shutdown"),
            }
            std::process::exit(0);
        }
        if let Ok(ev) = t.events().recv_timeout(left.min(Duration::from_millis(50))) {
            report_event(&ev);
        }
    }
}

fn report_event(ev: &TransportEvent) {
    match ev {
        TransportEvent::PeerLost { node } => out(
            json!({"event": "lost", "node": node.to_string(), "wall_ms": wall_ms().to_string()}),
        ),
        TransportEvent::PeerLeft { node } => out(
            json!({"event": "left", "node": node.to_string(), "wall_ms": wall_ms().to_string()}),
        ),
        TransportEvent::PeerConnected { node, .. } => {
            out(json!({"event": "connected", "node": node.to_string()}))
        }
        _ => {}
    }
}

fn observe(a: &Args, t: &Arc<Transport>) {
    let end = Instant::now() + Duration::from_millis(a.duration_ms);
    let fed = if a.create {
        t.open_federation(&a.federation, KeySource::Create)
    } else {
        // Wait a little for a peer, then fetch the key; without one, create our own.
        let mut r = Err(hlamesh_transport::TransportError::Shutdown);
        while Instant::now() + Duration::from_millis(600) < end {
            r = t.open_federation(
                &a.federation,
                KeySource::FromPeers(Duration::from_millis(300)),
            );
            if r.is_ok() {
                break;
            }
        }
        r.or_else(|_| t.open_federation(&a.federation, KeySource::Create))
    }
    .unwrap_or_else(|e| fail(&e.to_string()));
    let mut refused = 0u64;
    let mut connected = HashSet::new();
    let mut data_from = HashMap::<NodeId, u64>::new();
    let mut rng = rand::rngs::StdRng::seed_from_u64(a.seed);
    let mut i = 0u64;
    while Instant::now() < end {
        let m = message(&mut rng, i, 1000);
        i += 1;
        let rel = if i.is_multiple_of(2) {
            Reliability::Reliable
        } else {
            Reliability::BestEffort
        };
        let _ = fed.send(rel, &m);
        while let Ok(ev) = t.events().recv_timeout(Duration::from_millis(5)) {
            match ev {
                TransportEvent::PeerRefused { .. } => refused += 1,
                TransportEvent::PeerConnected { node, .. } => {
                    connected.insert(node);
                }
                TransportEvent::Data { from, .. } => *data_from.entry(from).or_default() += 1,
                _ => {}
            }
        }
    }
    let s = fed.stats();
    out(json!({
        "event": "observed", "node": t.node_id().to_string(), "sent": i,
        "connected": connected.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
        "refused": refused, "refused_total": t.stats().refused.load(std::sync::atomic::Ordering::Relaxed),
        "data_from": data_from.iter().map(|(n, c)| (n.to_string(), *c)).collect::<HashMap<_, _>>(),
        "auth_failures": s.dropped.bad_auth, "non_member": s.dropped.not_member, "malformed": s.dropped.malformed,
        "recv_stats": format!("{s:?}"),
        "beacons_failing_auth": t.discovery_stats().auth_failures(),
        "refusals": t.refusals().explain(),
    }));
}

/// Interleaved (A B A B) 100-byte round trips: hlamesh reliable data channel vs raw UDP multicast
/// on the same interface, in alternating blocks. `ping` measures; `pong` echoes. With
/// `--immediate`, both ends handle hlamesh messages in the transport's event hook (on the data
/// thread, as immediate-mode callbacks do), so no thread hand-off sits on the path; without it,
/// messages go through the event channel to the application thread.
fn ping_pong(a: &Args, t: &Arc<Transport>, deadline: &Deadline) {
    let mut pending = Vec::new();
    let fed = join(a, t, deadline, &mut pending);
    let raw_group = Ipv4Addr::new(239, 255, 78, 1);
    let raw_rx = hlamesh_transport::sockets::multicast_receiver(
        a.raw_port,
        Some(Duration::from_millis(200)),
    )
    .unwrap_or_else(|e| fail(&e.to_string()));
    hlamesh_transport::sockets::join(&raw_rx, raw_group, a.interface)
        .unwrap_or_else(|e| fail(&e.to_string()));
    let raw_tx = hlamesh_transport::sockets::multicast_sender(a.interface, a.ttl)
        .unwrap_or_else(|e| fail(&e.to_string()));
    let raw_dest = SocketAddrV4::new(raw_group, a.raw_port);
    let me = t.node_id().0.to_be_bytes();
    let payload = move |i: u64| payload_of(&me, i);
    let is_echo = move |p: &[u8]| p.len() >= 16 && p[..8] != me;
    match a.mode {
        Mode::Pong => {
            // Echo both paths until the deadline; the raw echo runs on its own thread.
            let raw_rx2 = raw_rx.try_clone().unwrap_or_else(|e| fail(&e.to_string()));
            let raw_tx2 = raw_tx.try_clone().unwrap_or_else(|e| fail(&e.to_string()));
            std::thread::spawn(move || {
                let mut buf = [0u8; 2048];
                loop {
                    if let Ok((n, _)) = raw_rx2.recv_from(&mut buf)
                        && n >= 16
                        && buf[..8] != me
                    {
                        buf[..8].copy_from_slice(&me);
                        let _ = raw_tx2.send_to(&buf[..n], raw_dest);
                    }
                }
            });
            let echo = {
                let fed = fed.clone();
                move |p: &[u8]| {
                    let mut m = p.to_vec();
                    m[..8].copy_from_slice(&me);
                    let _ = fed.send(Reliability::Reliable, &m);
                }
            };
            if a.immediate {
                let echo = echo.clone();
                t.set_event_hook(Some(Arc::new(move |ev| match ev {
                    TransportEvent::Data { payload, .. } if is_echo(&payload) => {
                        echo(&payload);
                        None
                    }
                    other => Some(other),
                })));
            }
            out(json!({"event": "ready"}));
            while let Some(left) = deadline.left() {
                if let Ok(TransportEvent::Data { payload, .. }) = t.events().recv_timeout(left)
                    && is_echo(&payload)
                {
                    echo(&payload);
                }
            }
        }
        _ => {
            // Immediate mode: the hook answers each echo with the next ping, recording the round
            // trip, and reports when a block is complete.
            let (block_tx, block_rx) = crossbeam_channel::bounded::<Vec<u64>>(1);
            let state = Arc::new(std::sync::Mutex::new((
                0u64,
                0u64,
                Instant::now(),
                Vec::new(),
            )));
            if a.immediate {
                let (fed, state) = (fed.clone(), state.clone());
                t.set_event_hook(Some(Arc::new(move |ev| match ev {
                    TransportEvent::Data { payload, .. } if is_echo(&payload) => {
                        let now = Instant::now();
                        let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
                        let (next, end, t0, samples) = &mut *s;
                        if payload[8..16] == (*next).to_be_bytes() && *next < *end {
                            samples.push(now.duration_since(*t0).as_nanos() as u64);
                            *next += 1;
                            if *next == *end {
                                let _ = block_tx.try_send(std::mem::take(samples));
                            } else {
                                *t0 = Instant::now();
                                let _ = fed.send(Reliability::Reliable, &payload_of(&me, *next));
                            }
                        }
                        None
                    }
                    other => Some(other),
                })));
            }
            // Let the pong side start echoing.
            std::thread::sleep(Duration::from_millis(300));
            const BLOCK: u64 = 200;
            let blocks = (a.samples as u64).div_ceil(BLOCK);
            let mut hl: Vec<u64> = Vec::new();
            let mut raw: Vec<u64> = Vec::new();
            let mut buf = [0u8; 2048];
            let mut i = 0u64;
            for b in 0..=blocks {
                // Block 0 warms both paths up and is not recorded.
                let record = b > 0;
                if a.immediate {
                    {
                        let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
                        *s = (
                            i,
                            i + BLOCK,
                            Instant::now(),
                            Vec::with_capacity(BLOCK as usize),
                        );
                    }
                    let _ = fed.send(Reliability::Reliable, &payload(i));
                    match block_rx.recv_timeout(Duration::from_secs(10)) {
                        Ok(samples) if record => hl.extend(samples),
                        Ok(_) => {}
                        Err(_) => fail("hlamesh ping block timed out"),
                    }
                    i += BLOCK;
                } else {
                    for _ in 0..BLOCK {
                        let t0 = Instant::now();
                        let _ = fed.send(Reliability::Reliable, &payload(i));
                        loop {
                            match t.events().recv_timeout(Duration::from_secs(2)) {
                                Ok(TransportEvent::Data { payload, .. })
                                    if is_echo(&payload) && payload[8..16] == i.to_be_bytes() =>
                                {
                                    break;
                                }
                                Ok(_) => continue,
                                Err(_) => fail("hlamesh ping timed out"),
                            }
                        }
                        if record {
                            hl.push(t0.elapsed().as_nanos() as u64);
                        }
                        i += 1;
                    }
                }
                for _ in 0..BLOCK {
                    let t0 = Instant::now();
                    let _ = raw_tx.send_to(&payload(i), raw_dest);
                    loop {
                        match raw_rx.recv_from(&mut buf) {
                            Ok((n, _)) if is_echo(&buf[..n]) && buf[8..16] == i.to_be_bytes() => {
                                break;
                            }
                            Ok(_) => continue,
                            Err(_) => fail("raw ping timed out"),
                        }
                    }
                    if record {
                        raw.push(t0.elapsed().as_nanos() as u64);
                    }
                    i += 1;
                }
            }
            let pct = |v: &mut Vec<u64>, p: f64| {
                v.sort_unstable();
                v[((v.len() as f64 - 1.0) * p).round() as usize] as f64 / 1000.0
            };
            let (h50, h99) = (pct(&mut hl, 0.5), pct(&mut hl, 0.99));
            let (r50, r99) = (pct(&mut raw, 0.5), pct(&mut raw, 0.99));
            out(json!({
                "event": "latency", "samples": hl.len(), "payload_bytes": 100,
                "delivery": if a.immediate { "immediate (event hook on the data thread)" } else { "event channel (one thread hand-off per receive)" },
                "hlamesh_rtt_us": {"p50": h50, "p99": h99},
                "raw_udp_multicast_rtt_us": {"p50": r50, "p99": r99},
                "ratio_p50": h50 / r50, "ratio_p99": h99 / r99,
                "one_way_estimate_us": {"hlamesh_p50": h50 / 2.0, "raw_p50": r50 / 2.0},
            }));
        }
    }
}

fn payload_of(me: &[u8; 8], i: u64) -> Vec<u8> {
    let mut m = vec![0u8; 100];
    m[..8].copy_from_slice(me);
    m[8..16].copy_from_slice(&i.to_be_bytes());
    m
}
