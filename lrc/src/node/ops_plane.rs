//! The shell's side of the operations plane ([`crate::ops`]): answers status requests, probes
//! peers' clocks and answers their probes, sends and receives latency marks, and registers the
//! metrics collector. Kept beside the shell because it reads the shell's state; everything here
//! runs under the shell's state lock, like the rest of it.
//!
//! Clock probes (one small QUIC control message and its echo per peer per second) run while
//! metrics are on, and otherwise for [`WANTED_FOR`] after the last [`Lrc::clock_offset`] call:
//! an LRC nobody measures sends none, and the first call starts a round at once so an estimate
//! is there after one round trip.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hlamesh_timesync::clock_offset::{ClockOffsetEstimator, OffsetEstimate, Probe};
use hlamesh_transport::{FederationChannel, NodeId};

use super::{Shared, State};
use crate::metrics::{Mark, wall_ns};
use crate::ops::{NodeStatus, OpsMsg, PeerRtt, federation_status};

/// How often an LRC with metrics on probes each peer's clock.
const PROBE_EVERY: Duration = Duration::from_secs(1);
/// Probes kept per peer (the smallest round trip of these gives the estimate).
const PROBE_WINDOW: usize = 32;
/// Assumed worst relative drift of two lab clocks, parts per million.
const DRIFT_PPM: u64 = 100;

/// How long clock probing goes on (with metrics off) after the last consumer asked.
pub const WANTED_FOR: Duration = Duration::from_secs(600);

/// Per-LRC state of the operations plane.
#[derive(Default)]
pub(super) struct OpsState {
    clocks: HashMap<u64, ClockOffsetEstimator>,
    last_probe: Option<Instant>,
    /// Probe (with metrics off) until then: someone asked for a clock offset.
    wanted_until: Option<Instant>,
}

impl super::Lrc {
    /// The wall-clock offset of LRC `node` (its clock minus this LRC's, NTP-style over QUIC,
    /// minimum-round-trip filtered) with its error bound: `None` until a probe came back. Zero
    /// with a zero bound for this LRC itself. Keeps the probes running (see the module docs).
    pub fn clock_offset(&self, node: NodeId) -> Option<OffsetEstimate> {
        let shared = &self.shared;
        if node == shared.transport.node_id() {
            return Some(OffsetEstimate {
                offset_ns: 0,
                error_bound_ns: 0,
                rtt_ns: 0,
            });
        }
        let mut st = shared.state.lock().unwrap_or_else(|e| e.into_inner());
        st.ops.wanted_until = Some(Instant::now() + WANTED_FOR);
        let est = st
            .ops
            .clocks
            .get(&node.0)
            .and_then(|c| c.estimate(wall_ns()));
        if est.is_none() && st.ops.last_probe.is_none_or(|t| t.elapsed() >= PROBE_EVERY) {
            probe_peers(shared, &mut st);
        }
        est
    }
}

/// Sends every peer a clock probe now.
fn probe_peers(shared: &Shared, st: &mut State) {
    st.ops.last_probe = Some(Instant::now());
    let peers = shared.transport.peers();
    st.ops.clocks.retain(|n, _| peers.contains(&NodeId(*n)));
    let probe = OpsMsg::ClockProbe { t1: wall_ns() }.encode();
    for p in peers {
        if let Err(e) = shared.transport.send_control(p, None, &probe) {
            tracing::debug!("clock probe to {p:?} failed: {e}");
        }
    }
}

/// Tells the federation's peers when reliable message `m.seq` left (ordered behind it).
pub(super) fn send_mark(shared: &Shared, channel: &FederationChannel, federation: &str, m: Mark) {
    let msg = OpsMsg::Mark {
        federation: federation.to_string(),
        seq: m.seq,
        sent_wall_ns: m.sent_wall_ns,
    };
    if let Err(e) = shared
        .transport
        .broadcast_control(Some(channel.tag()), &msg.encode())
    {
        tracing::debug!(federation, "latency mark not sent: {e}");
    }
}

fn reply(shared: &Shared, to: NodeId, msg: &OpsMsg) {
    if let Err(e) = shared.transport.send_control(to, None, &msg.encode()) {
        tracing::debug!("operations-plane reply to {to:?} failed: {e}");
    }
}

/// The status this LRC reports.
fn status(shared: &Shared, st: &State) -> NodeStatus {
    let mut federations: Vec<_> = st
        .host
        .iter()
        .map(|(_, f)| federation_status(&f.core))
        .collect();
    federations.sort_by(|a, b| a.name.cmp(&b.name));
    NodeStatus {
        node: shared.transport.node_id().0,
        address: shared.transport.quic_addr().to_string(),
        federations,
        peers: shared
            .transport
            .peer_rtts()
            .into_iter()
            .map(|(n, rtt)| PeerRtt {
                node: n.0,
                rtt_us: u64::try_from(rtt.as_micros()).unwrap_or(u64::MAX),
            })
            .collect(),
    }
}

/// An operations-plane message from `from`.
pub(super) fn handle(shared: &Shared, st: &mut State, from: NodeId, payload: &[u8]) {
    let received = wall_ns();
    let msg = match OpsMsg::decode(payload) {
        Ok(m) => m,
        Err(e) => {
            tracing::debug!("operations-plane message from {from:?}: {e}");
            return;
        }
    };
    match msg {
        OpsMsg::StatusRequest { nonce } => {
            let status = status(shared, st);
            reply(shared, from, &OpsMsg::StatusReply { nonce, status });
        }
        OpsMsg::ClockProbe { t1 } => reply(
            shared,
            from,
            &OpsMsg::ClockEcho {
                t1,
                t2: received,
                t3: wall_ns(),
            },
        ),
        OpsMsg::ClockEcho { t1, t2, t3 } => {
            let est = st
                .ops
                .clocks
                .entry(from.0)
                .or_insert_with(|| ClockOffsetEstimator::new(PROBE_WINDOW, DRIFT_PPM));
            // An impossible probe (clock stepped mid-probe) is counted by the estimator, not used.
            let _ = est.add_probe(Probe {
                t1,
                t2,
                t3,
                t4: received,
            });
        }
        OpsMsg::Mark {
            federation,
            seq,
            sent_wall_ns,
        } => {
            let offset = st
                .ops
                .clocks
                .get(&from.0)
                .and_then(|c| c.estimate(received))
                .map(|e| e.offset_ns);
            if let Some(f) = st.host.get_mut(&federation) {
                f.io.metrics
                    .mark(&f.core, from.0, Mark { seq, sent_wall_ns }, offset);
            }
        }
        OpsMsg::StatusReply { .. } => {}
    }
}

/// The shell's timer tick: follows membership for the metrics and probes peers' clocks.
pub(super) fn tick(shared: &Shared, st: &mut State) {
    if shared.metrics_on {
        for (_, f) in st.host.iter_mut() {
            f.io.metrics.follow(&f.core);
        }
    }
    let wanted = st.ops.wanted_until.is_some_and(|t| Instant::now() < t);
    if !(shared.metrics_on || wanted)
        || st.ops.last_probe.is_some_and(|t| t.elapsed() < PROBE_EVERY)
    {
        return;
    }
    probe_peers(shared, st);
}

/// Registers the collector that copies the HLA-level metrics at every scrape.
pub(super) fn register_collector(
    shared: &Arc<Shared>,
) -> hlamesh_transport::metrics::CollectorGuard {
    let weak = Arc::downgrade(shared);
    hlamesh_transport::metrics::register_collector(Arc::new(move || {
        let Some(shared) = weak.upgrade() else { return };
        let mut st = shared.state.lock().unwrap_or_else(|e| e.into_inner());
        for (_, f) in st.host.iter_mut() {
            let depth: usize = f.routes().map(|(_, q)| q.len()).sum();
            f.io.metrics.collect(&f.core, depth);
        }
    }))
}
