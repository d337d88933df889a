//! `hlamesh status`: a federation monitor. It runs a transport node of its own (no federation,
//! so it changes nothing), listens to discovery for a bounded time, connects to every LRC it
//! hears, and asks each for its status over the operations plane ([`crate::ops`]). The answers
//! are merged into a [`Report`]: the federations on the network, their members (name, type, node,
//! address, and — from the member's own LRC — logical time, GALT, regulating/constrained), and
//! every node's QUIC RTT to its peers. An LRC that does not answer in time is listed with
//! `answered: false` rather than failing the whole report.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use hlamesh_transport::{NodeId, Transport, TransportConfig, TransportError, TransportEvent};
use serde::Serialize;

use crate::ops::{NodeStatus, OpsMsg};

/// Why no report could be made.
#[derive(Debug, thiserror::Error)]
pub enum StatusError {
    /// The monitor's transport did not start (configuration, ports, certificates).
    #[error("cannot start the monitor's transport node: {0}")]
    Transport(#[from] TransportError),
    /// The configuration file could not be read.
    #[error("cannot read configuration {path}: {source}")]
    Config {
        /// File.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

/// The merged view of the network.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Report {
    /// Every LRC heard in discovery (and whether it answered).
    pub nodes: Vec<NodeReport>,
    /// Federations, by name.
    pub federations: Vec<FederationReport>,
    /// Set when nodes were heard whose beacons fail authentication (another development
    /// secret or certificate, or forgeries): why they are not listed. `hlamesh status` then
    /// exits non-zero.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

/// One LRC.
#[derive(Debug, Clone, Serialize)]
pub struct NodeReport {
    /// Node id (hex).
    pub node: String,
    /// QUIC address.
    pub address: String,
    /// Federations it announces.
    pub federations: Vec<String>,
    /// Whether it answered the status request.
    pub answered: bool,
    /// Its QUIC RTT to each peer it is connected to.
    pub peers: Vec<PeerReport>,
}

/// RTT from one node to a peer.
#[derive(Debug, Clone, Serialize)]
pub struct PeerReport {
    /// Peer node id (hex).
    pub node: String,
    /// Smoothed QUIC RTT, microseconds.
    pub rtt_us: u64,
}

/// One federation execution.
#[derive(Debug, Clone, Serialize)]
pub struct FederationReport {
    /// Name.
    pub name: String,
    /// Coordinating LRC (hex), as the answering members see it.
    pub coordinator: Option<String>,
    /// Joined federates.
    pub members: Vec<MemberReport>,
}

/// One joined federate.
#[derive(Debug, Clone, Serialize)]
pub struct MemberReport {
    /// Federate handle.
    pub handle: u32,
    /// Name.
    pub name: String,
    /// Federate type.
    #[serde(rename = "type")]
    pub federate_type: String,
    /// Its LRC (hex).
    pub node: String,
    /// Its LRC's QUIC address.
    pub address: String,
    /// Logical time (`None`: its LRC did not answer).
    pub logical_time: Option<f64>,
    /// GALT (`None`: undefined or unknown).
    pub galt: Option<f64>,
    /// Time regulating.
    pub regulating: Option<bool>,
    /// Time constrained.
    pub constrained: Option<bool>,
    /// A time advance is pending.
    pub advancing: Option<bool>,
}

/// A running monitor node.
pub struct Monitor {
    transport: Transport,
    /// Discovery counts as complete once it changed nothing for this long (see `report`).
    quiet: Duration,
    /// The first report listens at least this long: one and a half beacon periods.
    periodic: Duration,
    nonce: u64,
}

impl std::fmt::Debug for Monitor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Monitor")
            .field("node", &self.transport.node_id())
            .finish()
    }
}

/// Reads the configuration: built-in defaults, then `file` (TOML) if given, then `HLAMESH_*`.
pub fn load_config(file: Option<&std::path::Path>) -> Result<TransportConfig, StatusError> {
    let mut cfg = match file {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|source| StatusError::Config {
                path: p.display().to_string(),
                source,
            })?;
            TransportConfig::from_toml(&text)?
        }
        None => TransportConfig::default(),
    };
    cfg.apply_env()?;
    Ok(cfg)
}

impl Monitor {
    /// Starts the monitor's transport node (its metrics endpoint stays off).
    pub fn start(mut cfg: TransportConfig) -> Result<Monitor, StatusError> {
        cfg.metrics_addr = None;
        // A starting transport asks for beacons, and members answer within `beacon_min_gap`
        // (deferred to it under a storm of queries): a few gaps without news means everyone
        // reachable was heard, long before the periodic beacons would have told.
        let quiet = cfg.beacon_min_gap * 4 + Duration::from_millis(20);
        // A node with another secret or CA does not answer our (sealed) query: only its periodic
        // beacon reveals it, so the first report listens at least one and a half beacon periods
        // before it concludes that nothing was refused.
        let periodic = cfg.beacon_interval * 3 / 2;
        Ok(Monitor {
            transport: Transport::start(cfg)?,
            quiet,
            periodic,
            nonce: 0,
        })
    }

    /// One report: waits up to `listen` for discovery and connections, then up to `listen` for
    /// the answers.
    pub fn report(&mut self, listen: Duration) -> Report {
        let start = Instant::now();
        // Discovery: every node heard and connected, and nothing new for `quiet`, bounded.
        let deadline = start + listen;
        if self.nonce > 0 {
            // A later report of a watching monitor: ask again for nodes that came meanwhile.
            self.transport.solicit_beacons();
        }
        let mut epoch = self.transport.discovery_epoch();
        let mut changed = start;
        loop {
            let heard: Vec<NodeId> = self
                .transport
                .discovered()
                .iter()
                .map(|p| p.beacon.node)
                .collect();
            let peers = self.transport.peers();
            let all = !heard.is_empty() && heard.iter().all(|n| peers.contains(n));
            let now = Instant::now();
            let settled =
                now >= changed + self.quiet && (self.nonce > 0 || now >= start + self.periodic);
            if (all && settled) || now >= deadline {
                break;
            }
            // Events are not needed yet; draining keeps the channel short.
            while self.transport.events().try_recv().is_ok() {}
            let wake = if all { changed + self.quiet } else { deadline }.min(deadline);
            let seen = self
                .transport
                .wait_discovery_change(epoch, wake.saturating_duration_since(now));
            if seen != epoch {
                epoch = seen;
                changed = Instant::now();
            }
        }
        self.nonce += 1;
        let nonce = self.nonce;
        let request = OpsMsg::StatusRequest { nonce }.encode();
        let asked: Vec<NodeId> = self.transport.peers();
        for p in &asked {
            if let Err(e) = self.transport.send_control(*p, None, &request) {
                tracing::debug!("status request to {p:?} failed: {e}");
            }
        }
        let mut answers: HashMap<u64, NodeStatus> = HashMap::new();
        let deadline = Instant::now() + listen;
        while answers.len() < asked.len() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            if let Ok(TransportEvent::Control { from, payload, .. }) =
                self.transport.events().recv_timeout(left)
                && let Ok(OpsMsg::StatusReply { nonce: n, status }) = OpsMsg::decode(&payload)
                && n == nonce
            {
                answers.insert(from.0, status);
            }
        }
        merge(&self.transport, answers)
    }
}

fn hex(n: u64) -> String {
    NodeId(n).to_string()
}

fn merge(transport: &Transport, answers: HashMap<u64, NodeStatus>) -> Report {
    let me = transport.node_id();
    let mut nodes: BTreeMap<u64, NodeReport> = BTreeMap::new();
    for p in transport.discovered() {
        if p.beacon.node == me {
            continue;
        }
        nodes.insert(
            p.beacon.node.0,
            NodeReport {
                node: hex(p.beacon.node.0),
                address: p
                    .beacon
                    .quic_addrs
                    .first()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
                federations: p.beacon.federations.clone(),
                answered: false,
                peers: Vec::new(),
            },
        );
    }
    for (n, s) in &answers {
        let e = nodes.entry(*n).or_insert_with(|| NodeReport {
            node: hex(*n),
            address: s.address.clone(),
            federations: Vec::new(),
            answered: false,
            peers: Vec::new(),
        });
        e.answered = true;
        e.address = s.address.clone();
        e.federations = s.federations.iter().map(|f| f.name.clone()).collect();
        e.peers = s
            .peers
            .iter()
            .filter(|p| p.node != me.0)
            .map(|p| PeerReport {
                node: hex(p.node),
                rtt_us: p.rtt_us,
            })
            .collect();
    }
    let address = |n: u64| nodes.get(&n).map(|r| r.address.clone()).unwrap_or_default();
    let mut feds: BTreeMap<String, FederationReport> = BTreeMap::new();
    let mut ordered: Vec<&NodeStatus> = answers.values().collect();
    ordered.sort_by_key(|s| s.node);
    for s in ordered {
        for f in &s.federations {
            let r = feds
                .entry(f.name.clone())
                .or_insert_with(|| FederationReport {
                    name: f.name.clone(),
                    coordinator: None,
                    members: Vec::new(),
                });
            if r.coordinator.is_none() {
                r.coordinator = f.coordinator.map(hex);
            }
            for m in &f.federates {
                let i = match r.members.iter().position(|x| x.handle == m.handle) {
                    Some(i) => i,
                    None => {
                        r.members.push(MemberReport {
                            handle: m.handle,
                            name: m.name.clone(),
                            federate_type: m.federate_type.clone(),
                            node: hex(m.node),
                            address: address(m.node),
                            logical_time: None,
                            galt: None,
                            regulating: None,
                            constrained: None,
                            advancing: None,
                        });
                        r.members.len() - 1
                    }
                };
                if let Some(t) = &m.time {
                    let x = &mut r.members[i];
                    x.logical_time = Some(t.logical_time);
                    x.galt = t.galt;
                    x.regulating = Some(t.regulating);
                    x.constrained = Some(t.constrained);
                    x.advancing = Some(t.advancing);
                }
            }
        }
    }
    // Federations announced by LRCs that did not answer still show, without members.
    for n in nodes.values() {
        for f in &n.federations {
            feds.entry(f.clone()).or_insert_with(|| FederationReport {
                name: f.clone(),
                coordinator: None,
                members: Vec::new(),
            });
        }
    }
    let mut federations: Vec<FederationReport> = feds.into_values().collect();
    for f in &mut federations {
        f.members.sort_by_key(|m| m.handle);
    }
    Report {
        nodes: nodes.into_values().collect(),
        federations,
        refused: transport.refusals().explain(),
    }
}

fn opt(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), time_text)
}

/// A logical time as a person reads it: rounded to 9 decimals, trailing zeros dropped. GALT is
/// computed as a time plus a lookahead, so in `HLAfloat64Time` it carries the binary rounding of
/// that sum (1.3 + 0.05 is 1.3499999999999999); nine decimals are finer than any step a
/// federation uses and show both columns alike. `HLAinteger64Time` values print as integers.
/// The JSON output keeps the exact values.
fn time_text(t: f64) -> String {
    if !t.is_finite() {
        return format!("{t}");
    }
    let fixed = format!("{t:.9}");
    let trimmed = fixed.trim_end_matches('0').trim_end_matches('.');
    match trimmed {
        "-0" => "0".to_string(),
        s => s.to_string(),
    }
}

fn flag(v: Option<bool>, c: char) -> char {
    match v {
        Some(true) => c,
        Some(false) => '-',
        None => '?',
    }
}

impl Report {
    /// The human-readable table.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        if let Some(why) = &self.refused {
            let _ = writeln!(
                s,
                "warning: {why}; check HLAMESH_SECRET (development mode) or the lab CA and \
                 certificate (--config)"
            );
        }
        if self.nodes.is_empty() {
            let _ = writeln!(s, "no hlamesh node heard on this network");
        }
        for f in &self.federations {
            let _ = writeln!(
                s,
                "federation {}  (coordinator {})",
                f.name,
                f.coordinator.as_deref().unwrap_or("?")
            );
            let _ = writeln!(
                s,
                "  {:<20} {:<16} {:<17} {:<22} {:>12} {:>12} R C A",
                "FEDERATE", "TYPE", "NODE", "ADDRESS", "TIME", "GALT"
            );
            for m in &f.members {
                let _ = writeln!(
                    s,
                    "  {:<20} {:<16} {:<17} {:<22} {:>12} {:>12} {} {} {}",
                    m.name,
                    m.federate_type,
                    m.node,
                    m.address,
                    opt(m.logical_time),
                    opt(m.galt),
                    flag(m.regulating, 'R'),
                    flag(m.constrained, 'C'),
                    flag(m.advancing, 'A'),
                );
            }
        }
        let _ = writeln!(s, "nodes");
        for n in &self.nodes {
            let peers: Vec<String> = n
                .peers
                .iter()
                .map(|p| format!("{}={:.2}ms", p.node, p.rtt_us as f64 / 1000.0))
                .collect();
            let _ = writeln!(
                s,
                "  {} {:<22} {}  rtt: {}",
                n.node,
                n.address,
                if n.answered { "" } else { "(no answer)" },
                peers.join(" ")
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::time_text;

    #[test]
    fn times_print_as_a_person_reads_them() {
        assert_eq!(time_text(1.3 + 0.05), "1.35");
        assert_eq!(time_text(1.3499999999999999), "1.35");
        assert_eq!(time_text(1.3666666666666667), "1.366666667");
        assert_eq!(time_text(1.3), "1.3");
        assert_eq!(time_text(42.0), "42");
        assert_eq!(time_text(0.0), "0");
        assert_eq!(time_text(-0.0), "0");
        assert_eq!(time_text(-2.5), "-2.5");
        assert_eq!(time_text(9.007199254740992e15), "9007199254740992");
        assert_eq!(time_text(f64::INFINITY), "inf");
    }
}
