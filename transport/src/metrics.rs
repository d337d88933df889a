//! Prometheus metrics of the transport, and the process-wide exporter the LRC adds its own
//! families to.
//!
//! **Process-global.** The `metrics` facade has one recorder per process. [`install`] puts a
//! Prometheus recorder there the first time it is called and returns the same handle on every
//! later call, so a second [`crate::Transport`] in one process (tests, the `demo` launcher) shares
//! it instead of failing. [`serve`] starts one small HTTP responder per requested address (a std
//! thread, alive until the process exits; asking again for an address already served returns the
//! same bound address). Several transports in one process therefore export one set of series:
//! their counters add up, and their gauges add up too (they are applied as differences).
//!
//! **Collected at scrape time.** The data plane's sans-I/O core keeps plain counters
//! ([`crate::data::RecvStats`], [`crate::data::SendStats`]) and must stay free of globals, so
//! nothing in it calls `metrics`. Instead every running transport registers a *collector*
//! ([`register_collector`]) that copies the differences since its last run into the Prometheus
//! counters; [`render`] runs every collector right before it renders, so a scrape always sees
//! current values and nobody pays anything between scrapes. The shell's own hot-path counts (one
//! relaxed atomic add per message, see [`ShellCounters`]) are collected the same way.
//!
//! **For the LRC.** Register HLA-level families the same way: [`describe`]-style `describe_*`
//! calls once, then either record directly with `metrics::counter!` (cheap; fine outside the
//! sans-I/O core) or register a collector that copies the core's counters. Gauges that are not
//! refreshed for [`GAUGE_IDLE`] vanish from the output (that is how the per-peer series of a
//! departed peer go away), so set gauges from a collector. Keep labels bounded: `federation`,
//! `reason`, `peer`, `kind` (plus, for the LRC, object/interaction *class* names from the FOM) —
//! never per-message or per-instance values.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use ::metrics::{Unit, counter, describe_counter, describe_gauge, gauge};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use metrics_util::MetricKindMask;

use crate::data::{RecvStats, Reliability, SendStats};
use crate::error::TransportError;
use crate::frame::Frame;
use crate::id::NodeId;

/// Buckets of every histogram whose name ends in `_seconds` (the LRC's reflection latency and
/// time-advance wait): 1-2.5-5 steps per decade from 10 µs to 10 s, so both a LAN's
/// tens-of-microseconds and a blocked time advance's seconds land in a bucket of their own.
pub const SECONDS_BUCKETS: &[f64] = &[
    10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3,
    250e-3, 500e-3, 1.0, 2.5, 5.0, 10.0,
];

/// Gauges not set for this long are dropped from the output.
pub const GAUGE_IDLE: Duration = Duration::from_secs(120);

/// Metric names (units in the names; counters end in `_total`).
pub mod names {
    /// Data datagrams sent on a federation's multicast group (label `federation`).
    pub const MULTICAST_DATAGRAMS_SENT: &str = "hlamesh_multicast_datagrams_sent_total";
    /// Bytes of those datagrams (label `federation`).
    pub const MULTICAST_BYTES_SENT: &str = "hlamesh_multicast_bytes_sent_total";
    /// Data-plane heartbeats sent (label `federation`).
    pub const MULTICAST_HEARTBEATS_SENT: &str = "hlamesh_multicast_heartbeats_sent_total";
    /// Datagrams read from the data socket, all federations.
    pub const MULTICAST_DATAGRAMS_RECEIVED: &str = "hlamesh_multicast_datagrams_received_total";
    /// Of those, read by an application thread waiting for its callbacks (evoked callbacks)
    /// rather than by the data thread.
    pub const MULTICAST_DATAGRAMS_RECEIVED_BY_CALLER: &str =
        "hlamesh_multicast_datagrams_received_by_caller_total";
    /// Bytes of those datagrams.
    pub const MULTICAST_BYTES_RECEIVED: &str = "hlamesh_multicast_bytes_received_total";
    /// Datagrams for no open federation or with an unreadable header.
    pub const MULTICAST_DATAGRAMS_UNROUTED: &str = "hlamesh_multicast_datagrams_unrouted_total";
    /// Messages sent (labels `federation`, `kind` = reliable | best_effort).
    pub const MESSAGES_SENT: &str = "hlamesh_data_messages_sent_total";
    /// Messages delivered to the layer above (labels `federation`, `kind`).
    pub const MESSAGES_DELIVERED: &str = "hlamesh_data_messages_delivered_total";
    /// Default-group best-effort datagrams that never arrived (label `federation`; loss on DDM
    /// cell groups is not measured: a receiver cannot tell a cell it did not join from loss).
    pub const BEST_EFFORT_LOST: &str = "hlamesh_data_best_effort_lost_total";
    /// Duplicates received and discarded (labels `federation`, `kind`).
    pub const DUPLICATES: &str = "hlamesh_data_duplicates_total";
    /// Datagrams dropped (labels `federation`, `reason`).
    pub const DATAGRAMS_DROPPED: &str = "hlamesh_data_datagrams_dropped_total";
    /// NACKs this node sent (label `federation`).
    pub const GAPS: &str = "hlamesh_data_gaps_total";
    pub const NACKS_SENT: &str = "hlamesh_data_nacks_sent_total";
    /// NACKs this node answered (label `federation`).
    pub const NACKS_RECEIVED: &str = "hlamesh_data_nacks_received_total";
    /// Datagrams this node retransmitted in repairs (label `federation`).
    pub const REPAIRED_DATAGRAMS_SENT: &str = "hlamesh_data_repaired_datagrams_sent_total";
    /// Times an application thread waited for flow-control room (label `federation`).
    pub const FLOW_WAITS: &str = "hlamesh_flow_waits_total";
    /// Microseconds application threads spent waiting for flow-control room (label
    /// `federation`).
    pub const FLOW_WAIT_MICROSECONDS: &str = "hlamesh_flow_wait_microseconds_total";
    /// Receivers left out of the flow-control window after making no progress (label
    /// `federation`).
    pub const FLOW_STALLS: &str = "hlamesh_flow_stalls_total";
    /// Repairs this node received (label `federation`).
    pub const REPAIRS_RECEIVED: &str = "hlamesh_data_repairs_received_total";
    /// Times this node fell behind a sender's retransmit buffer (label `federation`).
    pub const FELL_BEHIND: &str = "hlamesh_data_fell_behind_total";
    /// Reliable messages lost for good in those events (label `federation`).
    pub const FELL_BEHIND_MESSAGES: &str = "hlamesh_data_fell_behind_messages_total";
    /// Authenticated peers connected now.
    pub const PEERS_CONNECTED: &str = "hlamesh_peers_connected";
    /// Peers reported lost.
    pub const PEERS_LOST: &str = "hlamesh_peers_lost_total";
    /// Peers that said goodbye.
    pub const PEERS_LEFT: &str = "hlamesh_peers_left_total";
    /// Connections refused (authentication, version, duplicate).
    pub const PEERS_REFUSED: &str = "hlamesh_peers_refused_total";
    /// Discovery beacons accepted (authenticated, new).
    pub const BEACONS_ACCEPTED: &str = "hlamesh_discovery_beacons_accepted_total";
    /// Discovery beacons dropped (label `reason`, see `discovery::Rejection::label`).
    pub const BEACONS_REJECTED: &str = "hlamesh_discovery_beacons_rejected_total";
    /// Queries for beacons dropped because they failed authentication (never answered).
    pub const SOLICITS_REFUSED: &str = "hlamesh_discovery_solicits_refused_total";
    /// Outgoing dials (label `outcome` = connected | refused | unreachable | deferred).
    pub const PEER_DIALS: &str = "hlamesh_peer_dials_total";
    /// QUIC round-trip time estimate per peer (label `peer`).
    pub const QUIC_RTT: &str = "hlamesh_quic_rtt_seconds";
    /// QUIC packets lost on the current connection to a peer (label `peer`).
    pub const QUIC_LOST_PACKETS: &str = "hlamesh_quic_lost_packets";
    /// Events waiting in the transport's event channel.
    pub const EVENT_QUEUE_DEPTH: &str = "hlamesh_event_queue_depth";
    /// Control frames sent (label `kind`).
    pub const CONTROL_FRAMES_SENT: &str = "hlamesh_control_frames_sent_total";
    /// Control frames received after the handshake (label `kind`).
    pub const CONTROL_FRAMES_RECEIVED: &str = "hlamesh_control_frames_received_total";
    /// Control frames refused because their length prefix exceeded the limit.
    pub const CONTROL_FRAMES_OVERSIZE: &str = "hlamesh_control_frames_oversize_total";
    /// Federation channels closed (or left with the mesh) before every member acknowledged
    /// this node's stream (see `node/drain.rs`).
    pub const CLOSE_DRAIN_TIMEOUTS: &str = "hlamesh_close_drain_timeouts_total";
    /// DDM cell groups joined (label `federation`; see [`crate::core::cells`]).
    pub const CELL_GROUPS_JOINED: &str = "hlamesh_ddm_cell_groups_joined_total";
    /// DDM cell groups left (label `federation`).
    pub const CELL_GROUPS_LEFT: &str = "hlamesh_ddm_cell_groups_left_total";
    /// DDM cell fallbacks (labels `federation`, `kind` = wide_region: a message sent to the
    /// default group because its region covered too many groups; member_cannot_join: a
    /// message sent to the default group because a member cannot join a cell group it wants;
    /// join_failed: a join the kernel refused here).
    pub const CELL_FALLBACKS: &str = "hlamesh_ddm_cell_fallbacks_total";
    /// Datagrams sent on DDM cell groups (label `federation`; one per group a message went to).
    pub const CELL_DATAGRAMS_SENT: &str = "hlamesh_ddm_cell_datagrams_sent_total";
    /// Best-effort data datagrams received (label `federation`; with cell groups the kernel
    /// drops those of groups not joined before they are counted).
    pub const BEST_EFFORT_DATAGRAMS_RECEIVED: &str =
        "hlamesh_ddm_best_effort_datagrams_received_total";
    /// Data datagrams the data socket received, by the multicast group they came in on
    /// (labels `federation`, `group` = `default` | `cell<slot>` | `other`): what the kernel let
    /// through of each group this node joined (see [`super::GroupCounters`]).
    pub const DATAGRAMS_RECEIVED_BY_GROUP: &str = "hlamesh_ddm_datagrams_received_by_group_total";
}

/// Every family the transport exports, in the order [`describe`] registers them.
pub const FAMILIES: &[&str] = &[
    names::MULTICAST_DATAGRAMS_SENT,
    names::MULTICAST_BYTES_SENT,
    names::MULTICAST_HEARTBEATS_SENT,
    names::MULTICAST_DATAGRAMS_RECEIVED,
    names::MULTICAST_DATAGRAMS_RECEIVED_BY_CALLER,
    names::MULTICAST_BYTES_RECEIVED,
    names::MULTICAST_DATAGRAMS_UNROUTED,
    names::MESSAGES_SENT,
    names::MESSAGES_DELIVERED,
    names::BEST_EFFORT_LOST,
    names::DUPLICATES,
    names::DATAGRAMS_DROPPED,
    names::GAPS,
    names::NACKS_SENT,
    names::NACKS_RECEIVED,
    names::REPAIRED_DATAGRAMS_SENT,
    names::FLOW_WAITS,
    names::FLOW_WAIT_MICROSECONDS,
    names::FLOW_STALLS,
    names::REPAIRS_RECEIVED,
    names::FELL_BEHIND,
    names::FELL_BEHIND_MESSAGES,
    names::PEERS_CONNECTED,
    names::PEERS_LOST,
    names::PEERS_LEFT,
    names::PEERS_REFUSED,
    names::BEACONS_ACCEPTED,
    names::BEACONS_REJECTED,
    names::SOLICITS_REFUSED,
    names::PEER_DIALS,
    names::QUIC_RTT,
    names::QUIC_LOST_PACKETS,
    names::EVENT_QUEUE_DEPTH,
    names::CONTROL_FRAMES_SENT,
    names::CONTROL_FRAMES_RECEIVED,
    names::CONTROL_FRAMES_OVERSIZE,
    names::CLOSE_DRAIN_TIMEOUTS,
    names::CELL_GROUPS_JOINED,
    names::CELL_GROUPS_LEFT,
    names::CELL_FALLBACKS,
    names::CELL_DATAGRAMS_SENT,
    names::BEST_EFFORT_DATAGRAMS_RECEIVED,
    names::DATAGRAMS_RECEIVED_BY_GROUP,
];

/// Registers help text and units of the transport's families (idempotent).
pub fn describe() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        use names::*;
        let c = |n: &'static str, u: Unit, h: &'static str| describe_counter!(n, u, h);
        c(
            MULTICAST_DATAGRAMS_SENT,
            Unit::Count,
            "Data datagrams sent on the federation's multicast group (not heartbeats or repairs).",
        );
        c(
            MULTICAST_BYTES_SENT,
            Unit::Bytes,
            "Bytes of data datagrams sent on the federation's multicast group.",
        );
        c(
            MULTICAST_HEARTBEATS_SENT,
            Unit::Count,
            "Data-plane heartbeats (latest sequence number) sent on the multicast group.",
        );
        c(
            MULTICAST_DATAGRAMS_RECEIVED,
            Unit::Count,
            "Datagrams read from the multicast data socket, all federations.",
        );
        c(
            MULTICAST_DATAGRAMS_RECEIVED_BY_CALLER,
            Unit::Count,
            "Of the datagrams read from the data socket, those read by an application thread \
             waiting in evoke_callback instead of the LRC's data thread.",
        );
        c(
            MULTICAST_BYTES_RECEIVED,
            Unit::Bytes,
            "Bytes read from the multicast data socket, all federations.",
        );
        c(
            MULTICAST_DATAGRAMS_UNROUTED,
            Unit::Count,
            "Data datagrams for no federation open here, or with an unreadable header.",
        );
        c(
            MESSAGES_SENT,
            Unit::Count,
            "Messages sent, by kind (reliable, best_effort).",
        );
        c(
            MESSAGES_DELIVERED,
            Unit::Count,
            "Messages delivered to the layer above, by kind (reliable, best_effort).",
        );
        c(
            BEST_EFFORT_LOST,
            Unit::Count,
            "Best-effort datagrams on the default group that never arrived (loss on DDM cell groups is not measured).",
        );
        c(
            DUPLICATES,
            Unit::Count,
            "Duplicates received and discarded, by kind (reliable, best_effort).",
        );
        c(
            DATAGRAMS_DROPPED,
            Unit::Count,
            "Data datagrams dropped, by reason (malformed, bad_version, wrong_federation, bad_auth, \
             not_member, own, sender_mismatch).",
        );
        c(
            GAPS,
            Unit::Count,
            "Gaps detected in senders' reliable streams (each is NACKed and repaired, or reported \
             as fell-behind).",
        );
        c(
            NACKS_SENT,
            Unit::Count,
            "NACKs sent to senders for missing reliable messages.",
        );
        c(
            NACKS_RECEIVED,
            Unit::Count,
            "NACKs received from receivers and answered.",
        );
        c(
            REPAIRED_DATAGRAMS_SENT,
            Unit::Count,
            "Datagrams retransmitted over QUIC in answer to NACKs.",
        );
        c(
            FLOW_WAITS,
            Unit::Count,
            "Times a sending application thread waited for its slowest receiver (flow control).",
        );
        c(
            FLOW_WAIT_MICROSECONDS,
            Unit::Microseconds,
            "Time sending application threads spent waiting for flow-control room.",
        );
        c(
            FLOW_STALLS,
            Unit::Count,
            "Receivers left out of the flow-control window because they stopped acknowledging.",
        );
        c(
            CELL_GROUPS_JOINED,
            Unit::Count,
            "DDM cell multicast groups joined for region subscriptions.",
        );
        c(
            CELL_GROUPS_LEFT,
            Unit::Count,
            "DDM cell multicast groups left as region subscriptions changed.",
        );
        c(
            CELL_FALLBACKS,
            Unit::Count,
            "DDM cell fallbacks: messages sent to the default group (region too wide), joins refused.",
        );
        c(
            CELL_DATAGRAMS_SENT,
            Unit::Count,
            "Datagrams sent on DDM cell groups (one per group a best-effort message went to).",
        );
        c(
            BEST_EFFORT_DATAGRAMS_RECEIVED,
            Unit::Count,
            "Best-effort data datagrams received (cell groups not joined are dropped by the kernel).",
        );
        c(
            DATAGRAMS_RECEIVED_BY_GROUP,
            Unit::Count,
            "Data datagrams the socket received, by the multicast group they came in on \
             (default, cell<slot>, other).",
        );
        c(
            REPAIRS_RECEIVED,
            Unit::Count,
            "Repairs (answers to this node's NACKs) received over QUIC.",
        );
        c(
            FELL_BEHIND,
            Unit::Count,
            "Times this node fell behind a sender's retransmit buffer (state transfer needed).",
        );
        c(
            FELL_BEHIND_MESSAGES,
            Unit::Count,
            "Reliable messages lost for good when falling behind.",
        );
        describe_gauge!(
            PEERS_CONNECTED,
            Unit::Count,
            "Authenticated peers connected on the QUIC mesh now."
        );
        c(
            PEERS_LOST,
            Unit::Count,
            "Peers reported lost (silent past the peer timeout, or connection failed).",
        );
        c(
            PEERS_LEFT,
            Unit::Count,
            "Peers that said goodbye (clean shutdown).",
        );
        c(
            PEERS_REFUSED,
            Unit::Count,
            "Connections refused (authentication, protocol version, duplicate).",
        );
        c(
            BEACONS_ACCEPTED,
            Unit::Count,
            "Discovery beacons accepted (authenticated, not a replay).",
        );
        c(
            BEACONS_REJECTED,
            Unit::Count,
            "Discovery beacons dropped, by reason (bad_mac, bad_certificate, bad_signature, \
             wrong_security_mode, malformed, incompatible_version, replayed, rate_limited, \
             table_full).",
        );
        c(
            SOLICITS_REFUSED,
            Unit::Count,
            "Queries for beacons dropped unanswered: they failed authentication (forged, or \
             another development secret or CA).",
        );
        c(
            PEER_DIALS,
            Unit::Count,
            "Outgoing QUIC dials by outcome (connected, refused, unreachable; deferred: held \
             back by the dial bounds).",
        );
        describe_gauge!(
            QUIC_RTT,
            Unit::Seconds,
            "QUIC round-trip time estimate to each connected peer, seconds."
        );
        describe_gauge!(
            QUIC_LOST_PACKETS,
            Unit::Count,
            "QUIC packets lost on the current connection to each peer (restarts on reconnect)."
        );
        describe_gauge!(
            EVENT_QUEUE_DEPTH,
            Unit::Count,
            "Events waiting in the transport's event channel for the layer above."
        );
        c(
            CONTROL_FRAMES_SENT,
            Unit::Count,
            "Control frames sent on the QUIC mesh, by kind.",
        );
        c(
            CONTROL_FRAMES_RECEIVED,
            Unit::Count,
            "Control frames received on the QUIC mesh after the handshake, by kind.",
        );
        c(
            CONTROL_FRAMES_OVERSIZE,
            Unit::Count,
            "Control frames refused for a length prefix over the limit (a few KiB before the \
             peer's Hello is checked); the connection is closed.",
        );
        c(
            CLOSE_DRAIN_TIMEOUTS,
            Unit::Count,
            "Federation channels closed (or left with the mesh) before every member \
             acknowledged this node's data stream, after waiting the bound (800 ms): a member \
             that did not answer may miss the end of the stream.",
        );
    });
}

// ---------------------------------------------------------------------------------------------
// Process-wide recorder, HTTP responder and collectors.

static HANDLE: OnceLock<Result<PrometheusHandle, String>> = OnceLock::new();
static SERVED: Mutex<Vec<(SocketAddr, SocketAddr)>> = Mutex::new(Vec::new());
static COLLECTORS: Mutex<Vec<(u64, Collector)>> = Mutex::new(Vec::new());
static NEXT_COLLECTOR: AtomicU64 = AtomicU64::new(1);

/// A function that copies some component's counters into the `metrics` facade.
pub type Collector = Arc<dyn Fn() + Send + Sync>;

/// Installs the process's Prometheus recorder on first call; later calls return the same handle.
/// Fails only if another recorder was installed in this process by someone else.
pub fn install() -> Result<PrometheusHandle, TransportError> {
    let r = HANDLE.get_or_init(|| {
        PrometheusBuilder::new()
            .idle_timeout(MetricKindMask::GAUGE, Some(GAUGE_IDLE))
            .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), SECONDS_BUCKETS)
            .and_then(|b| b.install_recorder())
            .map_err(|e| format!("cannot install the Prometheus recorder: {e}"))
    });
    let h = r.clone().map_err(TransportError::Config)?;
    describe();
    Ok(h)
}

/// Serves `GET /metrics` on `addr` (port 0: any free port) and returns the bound address. Asking
/// again for an address this process already serves (as requested, or as bound) returns that
/// binding instead of failing, so several transports of one process may name the same address.
pub fn serve(addr: SocketAddr) -> Result<SocketAddr, TransportError> {
    install()?;
    let mut served = SERVED.lock().unwrap_or_else(|e| e.into_inner());
    if addr.port() != 0
        && let Some((_, bound)) = served.iter().find(|(req, b)| *req == addr || *b == addr)
    {
        return Ok(*bound);
    }
    let listener = TcpListener::bind(addr).map_err(TransportError::socket(format!(
        "bind metrics listener on {addr}"
    )))?;
    let bound = listener
        .local_addr()
        .map_err(TransportError::socket("metrics listener address"))?;
    std::thread::Builder::new()
        .name("hlamesh-metrics".into())
        .spawn(move || {
            for stream in listener.incoming().flatten() {
                // One scrape at a time is plenty; a stuck client is cut off by the timeouts.
                let _ = answer(stream);
            }
        })
        .map_err(TransportError::socket("spawn metrics thread"))?;
    served.push((addr, bound));
    Ok(bound)
}

fn answer(stream: TcpStream) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(2)))?;
    stream.set_write_timeout(Some(Duration::from_secs(2)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.by_ref().take(8192).read_line(&mut request)?;
    // Read (bounded) and ignore the headers.
    let mut line = String::new();
    for _ in 0..100 {
        line.clear();
        if reader.by_ref().take(8192).read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
    }
    let mut parts = request.split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let (status, ctype, body) = match (method, path) {
        ("GET", "/metrics") => (
            "200 OK",
            "text/plain; version=0.0.4; charset=utf-8",
            render().unwrap_or_default(),
        ),
        ("GET", _) => ("404 Not Found", "text/plain", "try /metrics\n".to_string()),
        _ => (
            "405 Method Not Allowed",
            "text/plain",
            "GET only\n".to_string(),
        ),
    };
    let mut out = stream;
    write!(
        out,
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    out.write_all(body.as_bytes())?;
    out.flush()
}

/// Removes its collector when dropped.
#[derive(Debug)]
pub struct CollectorGuard(u64);

impl Drop for CollectorGuard {
    fn drop(&mut self) {
        COLLECTORS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|(id, _)| *id != self.0);
    }
}

/// Registers a collector, run by [`collect`] (and so before every scrape) until the guard drops.
pub fn register_collector(f: Collector) -> CollectorGuard {
    let id = NEXT_COLLECTOR.fetch_add(1, Ordering::Relaxed);
    COLLECTORS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((id, f));
    CollectorGuard(id)
}

/// Runs every registered collector.
pub fn collect() {
    let all: Vec<Collector> = COLLECTORS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .map(|(_, f)| f.clone())
        .collect();
    for f in all {
        f();
    }
}

/// Collects and renders the Prometheus text format; `None` when no recorder is installed.
pub fn render() -> Option<String> {
    let handle = HANDLE.get()?.as_ref().ok()?;
    collect();
    handle.run_upkeep();
    Some(handle.render())
}

// ---------------------------------------------------------------------------------------------
// The transport's part.

/// Control-frame kinds, the values of label `kind` on the control-frame families.
pub const FRAME_KINDS: [&str; 15] = [
    "hello",
    "hello_ack",
    "refused",
    "heartbeat",
    "goodbye",
    "joined",
    "left",
    "key_request",
    "key_reply",
    "nack",
    "repair",
    "app",
    "ack",
    "ack_request",
    "cell_fallback",
];

fn frame_index(f: &Frame) -> usize {
    match f {
        Frame::Hello { .. } => 0,
        Frame::HelloAck { .. } => 1,
        Frame::Refused { .. } => 2,
        Frame::Heartbeat => 3,
        Frame::Goodbye => 4,
        Frame::Joined { .. } => 5,
        Frame::Left { .. } => 6,
        Frame::KeyRequest { .. } => 7,
        Frame::KeyReply { .. } => 8,
        Frame::Nack { .. } => 9,
        Frame::Repair { .. } => 10,
        Frame::App { .. } => 11,
        Frame::Ack { .. } => 12,
        Frame::AckRequest { .. } => 13,
        Frame::CellFallback { .. } => 14,
    }
}

/// The shell's own counts that neither [`crate::node::ShellStats`] nor the data plane keep. Each
/// record is one relaxed atomic add, always on (no recorder needed), read by the collector.
#[derive(Debug, Default)]
pub struct ShellCounters {
    bytes_in: AtomicU64,
    left: AtomicU64,
    frames_out: [AtomicU64; FRAME_KINDS.len()],
    frames_in: [AtomicU64; FRAME_KINDS.len()],
}

impl ShellCounters {
    /// A datagram of `len` bytes was read from the data socket.
    #[inline]
    pub fn datagram_in(&self, len: usize) {
        self.bytes_in.fetch_add(len as u64, Ordering::Relaxed);
    }
    /// A peer said goodbye.
    pub fn peer_left(&self) {
        self.left.fetch_add(1, Ordering::Relaxed);
    }
    /// `n` control frames like `f` were sent.
    #[inline]
    pub fn frame_out(&self, f: &Frame, n: u64) {
        self.frames_out[frame_index(f)].fetch_add(n, Ordering::Relaxed);
    }
    /// `n` heartbeats were sent (the writer sends pre-encoded ones).
    #[inline]
    pub fn heartbeat_out(&self) {
        self.frames_out[3].fetch_add(1, Ordering::Relaxed);
    }
    /// A control frame was received.
    #[inline]
    pub fn frame_in(&self, f: &Frame) {
        self.frames_in[frame_index(f)].fetch_add(1, Ordering::Relaxed);
    }
}

/// Per-federation sends by reliability, counted by the shell on the caller's thread.
#[derive(Debug, Default)]
pub struct SendCounters {
    reliable: AtomicU64,
    best_effort: AtomicU64,
}

impl SendCounters {
    /// One message was accepted for sending.
    #[inline]
    pub fn sent(&self, r: Reliability) {
        match r {
            Reliability::Reliable => &self.reliable,
            Reliability::BestEffort => &self.best_effort,
        }
        .fetch_add(1, Ordering::Relaxed);
    }
    /// (reliable, best-effort) so far.
    pub fn totals(&self) -> (u64, u64) {
        (
            self.reliable.load(Ordering::Relaxed),
            self.best_effort.load(Ordering::Relaxed),
        )
    }
}

/// One federation's counters at a collection.
#[derive(Clone, Debug, Default)]
pub struct FederationSample {
    /// Federation name (the `federation` label).
    pub name: String,
    /// Receiver counters.
    pub recv: RecvStats,
    /// Sender counters.
    pub send: SendStats,
    /// (reliable, best-effort) messages sent.
    pub sent: (u64, u64),
    /// Flow control.
    pub flow: FlowStats,
    /// DDM cell groups.
    pub cells: CellStats,
}

/// One federation's DDM cell-group counters on this node (see [`crate::core::cells`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CellStats {
    /// Cell groups joined now.
    pub joined_now: u64,
    /// Cell groups joined so far.
    pub joined: u64,
    /// Cell groups left so far.
    pub left: u64,
    /// Joins the kernel refused (the receiver then gets that cell only if it shares the default
    /// group's traffic; see `docs/DDM.md`).
    pub join_failures: u64,
    /// Best-effort messages with regions sent to the default group because their cells mapped
    /// to more than `max_cells_per_send` groups.
    pub wide_fallbacks: u64,
    /// Best-effort messages with regions sent to the default group because a member cannot
    /// join some cell group it wants (see [`crate::core::cells`]).
    pub member_fallbacks: u64,
    /// Members that say now that they cannot join some cell group they want.
    pub members_cannot_join_now: u64,
    /// Whether this node cannot join some cell group it wants now (and told its peers).
    pub cannot_join_now: bool,
    /// Best-effort messages sent on cell groups.
    pub messages: u64,
    /// Datagrams sent on cell groups (a message to k groups: k).
    pub datagrams: u64,
    /// Best-effort data datagrams received (on the default group and the cell groups alike).
    pub best_effort_received: u64,
    /// Data datagrams of this federation the socket received, by the group they came in on:
    /// index 0 the default group, `1 + s` cell slot `s`, the last one any other destination
    /// (see [`GroupCounters`]).
    pub received_by_group: Vec<u64>,
}

/// The shell's DDM cell-group counters of one federation.
#[derive(Debug, Default)]
pub struct CellCounters {
    /// See [`CellStats::joined`].
    pub joined: AtomicU64,
    /// See [`CellStats::left`].
    pub left: AtomicU64,
    /// See [`CellStats::join_failures`].
    pub join_failures: AtomicU64,
    /// See [`CellStats::wide_fallbacks`].
    pub wide_fallbacks: AtomicU64,
    /// See [`CellStats::member_fallbacks`].
    pub member_fallbacks: AtomicU64,
    /// See [`CellStats::messages`].
    pub messages: AtomicU64,
    /// See [`CellStats::datagrams`].
    pub datagrams: AtomicU64,
    /// See [`CellStats::received_by_group`].
    pub received: GroupCounters,
}

impl CellCounters {
    /// The counters now, with `joined_now` groups joined and `best_effort_received` datagrams.
    pub fn stats(&self, joined_now: u64, best_effort_received: u64) -> CellStats {
        let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
        CellStats {
            joined_now,
            joined: l(&self.joined),
            left: l(&self.left),
            join_failures: l(&self.join_failures),
            wide_fallbacks: l(&self.wide_fallbacks),
            member_fallbacks: l(&self.member_fallbacks),
            messages: l(&self.messages),
            datagrams: l(&self.datagrams),
            best_effort_received,
            received_by_group: self.received.totals(),
            ..CellStats::default()
        }
    }
}

/// Data datagrams of one federation received, per multicast group they were sent to (the
/// destination address the kernel reports with each datagram, `IP_PKTINFO`): the default
/// group, each cell slot, and anything else. With `IP_MULTICAST_ALL = 0` a socket hears only
/// the groups it joined, so these say how much of each joined group's traffic reached the
/// process, and a cell never joined stays at zero. Counted by the receive thread before any
/// checks (a duplicate copy from a second cell group counts in both).
#[derive(Debug, Default)]
pub struct GroupCounters {
    /// Index 0 the default group, `1 + s` slot `s`.
    groups: Vec<Ipv4Addr>,
    /// One per group, then one for any other destination.
    counts: Box<[AtomicU64]>,
}

impl GroupCounters {
    /// Counters for a federation with this default group and these cell slots.
    pub fn new(default: Ipv4Addr, slots: &[Ipv4Addr]) -> GroupCounters {
        let groups: Vec<Ipv4Addr> = std::iter::once(default)
            .chain(slots.iter().copied())
            .collect();
        let counts = (0..=groups.len()).map(|_| AtomicU64::new(0)).collect();
        GroupCounters { groups, counts }
    }

    /// One datagram sent to `dst` arrived.
    pub fn count(&self, dst: Ipv4Addr) {
        // At most 20 groups: a scan of a few cache lines, no hashing.
        let i = self
            .groups
            .iter()
            .position(|g| *g == dst)
            .unwrap_or(self.groups.len());
        if let Some(c) = self.counts.get(i) {
            c.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The counts so far (see [`CellStats::received_by_group`]).
    pub fn totals(&self) -> Vec<u64> {
        self.counts
            .iter()
            .map(|c| c.load(Ordering::Relaxed))
            .collect()
    }

    /// The `group` label of index `i` of [`GroupCounters::totals`] when there are `n` counts.
    pub fn label(i: usize, n: usize) -> String {
        match i {
            0 => "default".to_string(),
            i if i + 1 == n => "other".to_string(),
            i => format!("cell{}", i - 1),
        }
    }
}

/// Flow-control counters of one federation (see [`crate::flow`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowStats {
    /// Times an application thread waited for room.
    pub waits: u64,
    /// Nanoseconds spent waiting.
    pub wait_ns: u64,
    /// Receivers left out of the window.
    pub stalls: u64,
}

/// One peer's QUIC path at a collection.
#[derive(Clone, Debug)]
pub struct PeerSample {
    /// The peer (the `peer` label).
    pub node: NodeId,
    /// Smoothed RTT.
    pub rtt: Duration,
    /// Packets lost on this connection so far.
    pub lost_packets: u64,
}

/// Everything one transport reports at a collection (plain totals; [`Exporter`] makes deltas).
#[derive(Clone, Debug, Default)]
pub struct TransportSample {
    /// Open federations.
    pub federations: Vec<FederationSample>,
    /// Connected peers.
    pub peers: Vec<PeerSample>,
    /// Datagrams read from the data socket.
    pub datagrams_in: u64,
    /// Of those, read by a waiting application thread.
    pub datagrams_in_caller: u64,
    /// Bytes read from the data socket.
    pub bytes_in: u64,
    /// Unrouted datagrams.
    pub unrouted: u64,
    /// Peers lost.
    pub lost: u64,
    /// Peers left.
    pub left: u64,
    /// Connections refused.
    pub refused: u64,
    /// Control frames refused for their length.
    pub oversize_frames: u64,
    /// Channel closes that gave up waiting for the members' acknowledgements.
    pub drain_timeouts: u64,
    /// Queries for beacons refused.
    pub solicits_refused: u64,
    /// Beacons accepted.
    pub beacons_accepted: u64,
    /// Beacons dropped, by `discovery::Rejection` (label, count).
    pub beacons_rejected: Vec<(&'static str, u64)>,
    /// Dials by outcome (label, count).
    pub dials: Vec<(&'static str, u64)>,
    /// Control frames sent, by [`FRAME_KINDS`] index.
    pub frames_out: [u64; FRAME_KINDS.len()],
    /// Control frames received, by [`FRAME_KINDS`] index.
    pub frames_in: [u64; FRAME_KINDS.len()],
    /// Event channel length.
    pub event_queue: usize,
}

impl ShellCounters {
    /// Fills the shell-counter part of a sample.
    pub fn sample_into(&self, s: &mut TransportSample) {
        s.bytes_in = self.bytes_in.load(Ordering::Relaxed);
        s.left = self.left.load(Ordering::Relaxed);
        for i in 0..FRAME_KINDS.len() {
            s.frames_out[i] = self.frames_out[i].load(Ordering::Relaxed);
            s.frames_in[i] = self.frames_in[i].load(Ordering::Relaxed);
        }
    }
}

/// Turns a transport's successive samples into increments of the global series. Counters move by
/// the difference to the previous sample; the additive gauges (peers connected, queue depth)
/// too, so several transports in one process sum up, and [`Drop`] takes this one's share back.
#[derive(Debug, Default)]
pub struct Exporter {
    last: TransportSample,
    last_fed: HashMap<String, FederationSample>,
    last_peers: usize,
}

fn inc(name: &'static str, labels: &[(&'static str, String)], now: u64, before: u64) {
    // Zero increments too: they keep the series present from the first collection on.
    counter!(name, labels).increment(now.saturating_sub(before));
}

impl Exporter {
    /// Applies one sample.
    pub fn export(&mut self, s: TransportSample) {
        use names::*;
        let none: &[(&'static str, String)] = &[];
        let l = &self.last;
        inc(
            MULTICAST_DATAGRAMS_RECEIVED,
            none,
            s.datagrams_in,
            l.datagrams_in,
        );
        inc(
            MULTICAST_DATAGRAMS_RECEIVED_BY_CALLER,
            none,
            s.datagrams_in_caller,
            l.datagrams_in_caller,
        );
        inc(MULTICAST_BYTES_RECEIVED, none, s.bytes_in, l.bytes_in);
        inc(MULTICAST_DATAGRAMS_UNROUTED, none, s.unrouted, l.unrouted);
        inc(PEERS_LOST, none, s.lost, l.lost);
        inc(PEERS_LEFT, none, s.left, l.left);
        inc(PEERS_REFUSED, none, s.refused, l.refused);
        inc(
            SOLICITS_REFUSED,
            none,
            s.solicits_refused,
            l.solicits_refused,
        );
        inc(
            CONTROL_FRAMES_OVERSIZE,
            none,
            s.oversize_frames,
            l.oversize_frames,
        );
        inc(
            CLOSE_DRAIN_TIMEOUTS,
            none,
            s.drain_timeouts,
            l.drain_timeouts,
        );
        inc(
            BEACONS_ACCEPTED,
            none,
            s.beacons_accepted,
            l.beacons_accepted,
        );
        let before = |v: &[(&'static str, u64)], k: &str| {
            v.iter().find(|(l, _)| *l == k).map_or(0, |(_, n)| *n)
        };
        for (reason, n) in &s.beacons_rejected {
            let lab = [("reason", (*reason).to_string())];
            inc(
                BEACONS_REJECTED,
                &lab,
                *n,
                before(&l.beacons_rejected, reason),
            );
        }
        for (outcome, n) in &s.dials {
            let lab = [("outcome", (*outcome).to_string())];
            inc(PEER_DIALS, &lab, *n, before(&l.dials, outcome));
        }
        for (i, kind) in FRAME_KINDS.iter().enumerate() {
            let k = [("kind", (*kind).to_string())];
            inc(CONTROL_FRAMES_SENT, &k, s.frames_out[i], l.frames_out[i]);
            inc(CONTROL_FRAMES_RECEIVED, &k, s.frames_in[i], l.frames_in[i]);
        }
        gauge!(EVENT_QUEUE_DEPTH).increment(s.event_queue as f64 - l.event_queue as f64);
        gauge!(PEERS_CONNECTED).increment(s.peers.len() as f64 - self.last_peers as f64);
        self.last_peers = s.peers.len();
        for p in &s.peers {
            let peer = [("peer", p.node.to_string())];
            gauge!(QUIC_RTT, &peer).set(p.rtt.as_secs_f64());
            gauge!(QUIC_LOST_PACKETS, &peer).set(p.lost_packets as f64);
        }
        for f in &s.federations {
            let zero = FederationSample::default();
            let o = self.last_fed.get(&f.name).unwrap_or(&zero);
            export_federation(f, o);
        }
        self.last_fed = s
            .federations
            .iter()
            .map(|f| (f.name.clone(), f.clone()))
            .collect();
        self.last = TransportSample {
            federations: Vec::new(),
            peers: Vec::new(),
            ..s
        };
    }
}

fn export_federation(f: &FederationSample, o: &FederationSample) {
    use names::*;
    let fed = ("federation", f.name.clone());
    let one = [fed.clone()];
    let with = |k: &'static str, v: &str| [fed.clone(), (k, v.to_string())];
    let (r, or) = (&f.recv, &o.recv);
    let (s, os) = (&f.send, &o.send);
    inc(MULTICAST_DATAGRAMS_SENT, &one, s.datagrams, os.datagrams);
    inc(MULTICAST_BYTES_SENT, &one, s.bytes, os.bytes);
    inc(MULTICAST_HEARTBEATS_SENT, &one, s.heartbeats, os.heartbeats);
    inc(MESSAGES_SENT, &with("kind", "reliable"), f.sent.0, o.sent.0);
    inc(
        MESSAGES_SENT,
        &with("kind", "best_effort"),
        f.sent.1,
        o.sent.1,
    );
    inc(
        MESSAGES_DELIVERED,
        &with("kind", "reliable"),
        r.delivered_reliable,
        or.delivered_reliable,
    );
    inc(
        MESSAGES_DELIVERED,
        &with("kind", "best_effort"),
        r.delivered_best_effort,
        or.delivered_best_effort,
    );
    inc(
        BEST_EFFORT_LOST,
        &one,
        r.best_effort_lost,
        or.best_effort_lost,
    );
    inc(
        DUPLICATES,
        &with("kind", "reliable"),
        r.duplicate_frames,
        or.duplicate_frames,
    );
    inc(
        DUPLICATES,
        &with("kind", "best_effort"),
        r.duplicate_best_effort,
        or.duplicate_best_effort,
    );
    let (d, od) = (&r.dropped, &or.dropped);
    for (reason, now, before) in [
        ("malformed", d.malformed, od.malformed),
        ("bad_version", d.bad_version, od.bad_version),
        ("wrong_federation", d.wrong_federation, od.wrong_federation),
        ("bad_auth", d.bad_auth, od.bad_auth),
        ("not_member", d.not_member, od.not_member),
        ("own", d.own, od.own),
        ("sender_mismatch", d.sender_mismatch, od.sender_mismatch),
    ] {
        inc(DATAGRAMS_DROPPED, &with("reason", reason), now, before);
    }
    inc(GAPS, &one, r.gaps, or.gaps);
    inc(NACKS_SENT, &one, r.nacks, or.nacks);
    inc(NACKS_RECEIVED, &one, s.nacks, os.nacks);
    inc(FLOW_WAITS, &one, f.flow.waits, o.flow.waits);
    inc(FLOW_STALLS, &one, f.flow.stalls, o.flow.stalls);
    inc(
        FLOW_WAIT_MICROSECONDS,
        &one,
        f.flow.wait_ns / 1_000,
        o.flow.wait_ns / 1_000,
    );
    inc(
        REPAIRED_DATAGRAMS_SENT,
        &one,
        s.repaired_datagrams,
        os.repaired_datagrams,
    );
    inc(REPAIRS_RECEIVED, &one, r.repairs, or.repairs);
    let (c, oc) = (&f.cells, &o.cells);
    inc(CELL_GROUPS_JOINED, &one, c.joined, oc.joined);
    inc(CELL_GROUPS_LEFT, &one, c.left, oc.left);
    inc(
        CELL_FALLBACKS,
        &with("kind", "wide_region"),
        c.wide_fallbacks,
        oc.wide_fallbacks,
    );
    inc(
        CELL_FALLBACKS,
        &with("kind", "member_cannot_join"),
        c.member_fallbacks,
        oc.member_fallbacks,
    );
    inc(
        CELL_FALLBACKS,
        &with("kind", "join_failed"),
        c.join_failures,
        oc.join_failures,
    );
    inc(CELL_DATAGRAMS_SENT, &one, c.datagrams, oc.datagrams);
    inc(
        BEST_EFFORT_DATAGRAMS_RECEIVED,
        &one,
        c.best_effort_received,
        oc.best_effort_received,
    );
    let n = c.received_by_group.len();
    for (i, now) in c.received_by_group.iter().enumerate() {
        let before = oc.received_by_group.get(i).copied().unwrap_or(0);
        let label = GroupCounters::label(i, n);
        inc(
            DATAGRAMS_RECEIVED_BY_GROUP,
            &with("group", &label),
            *now,
            before,
        );
    }
    inc(FELL_BEHIND, &one, r.fell_behind, or.fell_behind);
    inc(
        FELL_BEHIND_MESSAGES,
        &one,
        r.fell_behind_seqs,
        or.fell_behind_seqs,
    );
}

impl Drop for Exporter {
    fn drop(&mut self) {
        // This transport's share of the additive gauges goes with it.
        gauge!(names::PEERS_CONNECTED).decrement(self.last_peers as f64);
        gauge!(names::EVENT_QUEUE_DEPTH).decrement(self.last.event_queue as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str, series: &str) -> Option<f64> {
        text.lines()
            .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
    }

    fn sample(n: u64, peers: u64) -> TransportSample {
        let mut f = FederationSample {
            name: "F".into(),
            sent: (n, 2 * n),
            ..Default::default()
        };
        f.recv.dropped.bad_auth = n;
        f.send.datagrams = 3 * n;
        TransportSample {
            federations: vec![f],
            peers: (0..peers)
                .map(|i| PeerSample {
                    node: NodeId(i + 1),
                    rtt: Duration::from_millis(2),
                    lost_packets: 4,
                })
                .collect(),
            datagrams_in: n,
            datagrams_in_caller: n / 2,
            event_queue: 5,
            ..Default::default()
        }
    }

    #[test]
    fn every_frame_kind_reaches_the_sample() {
        // The last kinds (the flow-control acknowledgements) were once left out of the copy.
        let c = ShellCounters::default();
        let ack = Frame::Ack {
            tag: crate::FederationTag(1),
            position: 7,
        };
        c.frame_out(&ack, 3);
        c.frame_in(&ack);
        let mut s = TransportSample::default();
        c.sample_into(&mut s);
        let i = frame_index(&ack);
        assert_eq!(FRAME_KINDS[i], "ack");
        assert_eq!((s.frames_out[i], s.frames_in[i]), (3, 1));
    }

    #[test]
    fn exporters_apply_differences_and_sum_across_transports() {
        let recorder = PrometheusBuilder::new().build_recorder();
        let handle = recorder.handle();
        ::metrics::with_local_recorder(&recorder, || {
            let mut a = Exporter::default();
            let mut b = Exporter::default();
            a.export(sample(10, 2));
            a.export(sample(25, 2));
            b.export(sample(7, 1));
            let text = handle.render();
            let fed = "{federation=\"F\"";
            assert_eq!(
                value(&text, names::MULTICAST_DATAGRAMS_RECEIVED),
                Some(32.0)
            );
            // 12 (a's last) + 3 (b's).
            assert_eq!(
                value(&text, names::MULTICAST_DATAGRAMS_RECEIVED_BY_CALLER),
                Some(15.0)
            );
            assert_eq!(
                value(
                    &text,
                    &format!("{}{fed},kind=\"best_effort\"}}", names::MESSAGES_SENT)
                ),
                Some(64.0)
            );
            assert_eq!(
                value(
                    &text,
                    &format!("{}{fed},reason=\"bad_auth\"}}", names::DATAGRAMS_DROPPED)
                ),
                Some(32.0)
            );
            assert_eq!(
                value(
                    &text,
                    &format!("{}{fed}}}", names::MULTICAST_DATAGRAMS_SENT)
                ),
                Some(96.0)
            );
            assert_eq!(value(&text, names::PEERS_CONNECTED), Some(3.0));
            assert_eq!(value(&text, names::EVENT_QUEUE_DEPTH), Some(10.0));
            assert_eq!(
                value(
                    &text,
                    &format!("{}{{peer=\"{}\"}}", names::QUIC_RTT, NodeId(1))
                ),
                Some(0.002)
            );
            // A transport that goes away takes its share of the gauges with it.
            drop(a);
            let text = handle.render();
            assert_eq!(value(&text, names::PEERS_CONNECTED), Some(1.0));
            assert_eq!(value(&text, names::EVENT_QUEUE_DEPTH), Some(5.0));
            // Counters never go back, even if a sample does (a federation reopened from zero).
            b.export(sample(3, 1));
            let text = handle.render();
            assert_eq!(
                value(&text, names::MULTICAST_DATAGRAMS_RECEIVED),
                Some(32.0)
            );
        });
    }

    #[test]
    fn every_frame_kind_has_a_label() {
        let s = ShellCounters::default();
        s.frame_in(&Frame::Goodbye);
        s.frame_out(&Frame::Heartbeat, 2);
        s.heartbeat_out();
        let mut t = TransportSample::default();
        s.sample_into(&mut t);
        assert_eq!(FRAME_KINDS[4], "goodbye");
        assert_eq!(t.frames_in[4], 1);
        assert_eq!(FRAME_KINDS[3], "heartbeat");
        assert_eq!(t.frames_out[3], 3);
    }
}
