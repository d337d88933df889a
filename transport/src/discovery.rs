//! Discovery: every node announces itself on the discovery multicast group with a beacon (node id,
//! protocol version, QUIC addresses, the federations it is in, certificate fingerprint). This module
//! is the sans-I/O part: the beacon codec and the table of peers heard, with expiry. The shell owns
//! the socket and the timer.
//!
//! Beacons are hints, not credentials: a peer is trusted only after the QUIC handshake (mutual TLS or
//! the development-mode secret proof). The fingerprint lets a dialer pin the certificate it expects.
//!
//! A node that must not wait a beacon period (a starting node, an LRC about to join) multicasts a
//! [`Solicit`]; every member answers with its beacon at once. Answers, like every other beacon sent
//! out of period, go through [`BeaconSchedule`], which defers (never drops) a beacon asked for less
//! than a minimum gap after the last one, so a storm of queries costs each member at most one beacon
//! per gap.

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::config::PROTOCOL_VERSION;
use crate::id::NodeId;

const MAGIC: &[u8; 4] = b"HLMB";
/// Magic of a [`Solicit`]. A node that predates solicitation takes it for a malformed beacon and
/// ignores it.
const SOLICIT_MAGIC: &[u8; 4] = b"HLMQ";
/// Magic, protocol version, node id: the same header for beacons and solicitations.
const HEADER: usize = 4 + 2 + 8;

/// What a node announces.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Beacon {
    /// The announcing node.
    pub node: NodeId,
    /// Where its QUIC endpoint listens.
    pub quic_addrs: Vec<SocketAddr>,
    /// Names of the federation executions it takes part in.
    pub federations: Vec<String>,
    /// SHA-256 of its TLS certificate (DER).
    pub cert_fingerprint: [u8; 32],
    /// Federation names this node is currently claiming for creation (create races).
    #[serde(default)]
    pub claims: Vec<Claim>,
}

/// A claim on a federation name while `create_federation_execution` settles: of concurrent
/// claimants the lowest `(claim_time_us, node)` wins.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim {
    /// The federation name.
    pub name: String,
    /// Wall-clock microseconds since the UNIX epoch when the claim started.
    pub claim_time_us: u64,
}

/// Why a datagram on the discovery group was not accepted.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum BeaconError {
    /// Not a beacon at all (wrong magic or too short).
    #[error("not an hlamesh beacon")]
    NotABeacon,
    /// A beacon of another protocol version.
    #[error(
        "beacon from node {node} speaks protocol version {version}, we speak {PROTOCOL_VERSION}"
    )]
    IncompatibleVersion {
        /// The sender.
        node: NodeId,
        /// Its version.
        version: u16,
    },
    /// The body did not decode.
    #[error("malformed beacon body: {0}")]
    Malformed(String),
}

impl Beacon {
    /// Encodes the beacon: magic, version, node id, then the postcard body.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(128);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&PROTOCOL_VERSION.to_be_bytes());
        out.extend_from_slice(&self.node.0.to_be_bytes());
        // Serialising plain data into a Vec cannot fail.
        if let Ok(body) = postcard::to_allocvec(self) {
            out.extend_from_slice(&body);
        }
        out
    }

    /// Decodes a beacon; never panics on arbitrary bytes.
    pub fn decode(bytes: &[u8]) -> Result<Beacon, BeaconError> {
        if bytes.len() < HEADER || &bytes[..4] != MAGIC {
            return Err(BeaconError::NotABeacon);
        }
        let (node, version) = header(bytes);
        if version != PROTOCOL_VERSION {
            return Err(BeaconError::IncompatibleVersion { node, version });
        }
        let beacon: Beacon = postcard::from_bytes(&bytes[HEADER..])
            .map_err(|e| BeaconError::Malformed(e.to_string()))?;
        if beacon.node != node {
            return Err(BeaconError::Malformed(
                "header and body node ids differ".into(),
            ));
        }
        Ok(beacon)
    }
}

/// A query for beacons: whoever hears it answers with its beacon at once (rate-limited by
/// [`BeaconSchedule`]). On the wire it is the beacon header with its own magic: magic, protocol
/// version, node id. Bytes after the header are ignored, so later versions may add a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Solicit {
    /// The asking node.
    pub node: NodeId,
}

impl Solicit {
    /// Encodes the query: magic, version, node id.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER);
        out.extend_from_slice(SOLICIT_MAGIC);
        out.extend_from_slice(&PROTOCOL_VERSION.to_be_bytes());
        out.extend_from_slice(&self.node.0.to_be_bytes());
        out
    }

    /// Decodes a query; never panics on arbitrary bytes. A beacon is `NotABeacon` here.
    pub fn decode(bytes: &[u8]) -> Result<Solicit, BeaconError> {
        if bytes.len() < HEADER || &bytes[..4] != SOLICIT_MAGIC {
            return Err(BeaconError::NotABeacon);
        }
        let (node, version) = header(bytes);
        if version != PROTOCOL_VERSION {
            return Err(BeaconError::IncompatibleVersion { node, version });
        }
        Ok(Solicit { node })
    }

    /// Whether a datagram of the discovery group is a query (by its magic).
    pub fn is_solicit(bytes: &[u8]) -> bool {
        bytes.get(..4) == Some(SOLICIT_MAGIC.as_slice())
    }
}

/// Node id and protocol version from a header already checked to be `HEADER` bytes long.
fn header(bytes: &[u8]) -> (NodeId, u16) {
    let version = u16::from_be_bytes([bytes[4], bytes[5]]);
    let mut id = [0u8; 8];
    id.copy_from_slice(&bytes[6..14]);
    (NodeId(u64::from_be_bytes(id)), version)
}

/// A peer as discovery knows it.
#[derive(Clone, Debug)]
pub struct PeerInfo {
    /// Its latest beacon.
    pub beacon: Beacon,
    /// Source address of that beacon.
    pub source: SocketAddr,
    /// When it was heard.
    pub last_heard: Instant,
}

/// What changed in the peer table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiscoveryEvent {
    /// A node heard for the first time (or again after expiring).
    Discovered(NodeId),
    /// A known node's beacon changed (federations, addresses, claims).
    Changed(NodeId),
    /// Another node asks for beacons ([`Solicit`]): answer with ours.
    Solicited(NodeId),
    /// A beacon of an incompatible version: reported once per node, then silently ignored.
    IncompatibleVersion {
        /// The sender.
        node: NodeId,
        /// Its protocol version.
        version: u16,
    },
}

/// Counters of the discovery channel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiscoveryStats {
    /// Beacons accepted.
    pub beacons: u64,
    /// Datagrams that were not beacons or did not decode.
    pub malformed: u64,
    /// Beacons of another protocol version.
    pub incompatible: u64,
    /// Queries for beacons ([`Solicit`]) from other nodes.
    pub solicits: u64,
}

/// The peers heard on the discovery group.
#[derive(Debug)]
pub struct PeerTable {
    local: NodeId,
    expiry: Duration,
    peers: HashMap<NodeId, PeerInfo>,
    warned: HashSet<NodeId>,
    stats: DiscoveryStats,
}

impl PeerTable {
    /// An empty table for `local`; peers silent for `expiry` are forgotten.
    pub fn new(local: NodeId, expiry: Duration) -> Self {
        PeerTable {
            local,
            expiry,
            peers: HashMap::new(),
            warned: HashSet::new(),
            stats: DiscoveryStats::default(),
        }
    }

    /// Processes one datagram received on the discovery group.
    pub fn on_datagram(
        &mut self,
        now: Instant,
        source: SocketAddr,
        bytes: &[u8],
    ) -> Option<DiscoveryEvent> {
        if Solicit::is_solicit(bytes) {
            return self.on_solicit(bytes);
        }
        match Beacon::decode(bytes) {
            Ok(b) if b.node == self.local => None,
            Ok(b) => {
                self.stats.beacons += 1;
                let node = b.node;
                match self.peers.get_mut(&node) {
                    Some(p) => {
                        p.last_heard = now;
                        p.source = source;
                        if p.beacon != b {
                            p.beacon = b;
                            Some(DiscoveryEvent::Changed(node))
                        } else {
                            None
                        }
                    }
                    None => {
                        self.peers.insert(
                            node,
                            PeerInfo {
                                beacon: b,
                                source,
                                last_heard: now,
                            },
                        );
                        Some(DiscoveryEvent::Discovered(node))
                    }
                }
            }
            Err(BeaconError::IncompatibleVersion { node, version }) => {
                self.stats.incompatible += 1;
                self.warned
                    .insert(node)
                    .then_some(DiscoveryEvent::IncompatibleVersion { node, version })
            }
            Err(_) => {
                self.stats.malformed += 1;
                None
            }
        }
    }

    fn on_solicit(&mut self, bytes: &[u8]) -> Option<DiscoveryEvent> {
        match Solicit::decode(bytes) {
            Ok(q) if q.node == self.local => None,
            Ok(q) => {
                self.stats.solicits += 1;
                Some(DiscoveryEvent::Solicited(q.node))
            }
            Err(BeaconError::IncompatibleVersion { node, version }) => {
                self.stats.incompatible += 1;
                self.warned
                    .insert(node)
                    .then_some(DiscoveryEvent::IncompatibleVersion { node, version })
            }
            Err(_) => {
                self.stats.malformed += 1;
                None
            }
        }
    }

    /// Forgets peers not heard for the expiry interval; returns them.
    pub fn expire(&mut self, now: Instant) -> Vec<NodeId> {
        let expiry = self.expiry;
        let gone: Vec<NodeId> = self
            .peers
            .iter()
            .filter(|(_, p)| now.saturating_duration_since(p.last_heard) > expiry)
            .map(|(n, _)| *n)
            .collect();
        for n in &gone {
            self.peers.remove(n);
        }
        gone
    }

    /// A peer's latest information.
    pub fn get(&self, node: NodeId) -> Option<&PeerInfo> {
        self.peers.get(&node)
    }

    /// All peers currently known.
    pub fn peers(&self) -> impl Iterator<Item = &PeerInfo> {
        self.peers.values()
    }

    /// Counters.
    pub fn stats(&self) -> &DiscoveryStats {
        &self.stats
    }
}

/// When this node's next beacon goes out: once per `interval`, and soon after a request (an answer
/// to a newcomer or a [`Solicit`], a changed federation list or claim), but never less than
/// `min_gap` after the previous beacon. Requests within the gap are deferred and merged into one
/// beacon, never dropped: a storm of requests costs at most one beacon per gap.
#[derive(Debug)]
pub struct BeaconSchedule {
    interval: Duration,
    min_gap: Duration,
    last_sent: Option<Instant>,
    next_periodic: Instant,
    requested: bool,
}

impl BeaconSchedule {
    /// A schedule whose first (periodic) beacon is due at `now`.
    pub fn new(now: Instant, interval: Duration, min_gap: Duration) -> Self {
        BeaconSchedule {
            interval,
            min_gap,
            last_sent: None,
            next_periodic: now,
            requested: false,
        }
    }

    /// Asks for a beacon as soon as the gap allows.
    pub fn request(&mut self) {
        self.requested = true;
    }

    /// When the next beacon is due (possibly in the past: send now).
    pub fn due(&self) -> Instant {
        // Before the first beacon, the periodic one is due at once anyway.
        match self.last_sent {
            Some(t) if self.requested => (t + self.min_gap).min(self.next_periodic),
            _ => self.next_periodic,
        }
    }

    /// Records a beacon sent at `now`: pending requests are answered by it, and the next periodic
    /// one is an interval later.
    pub fn sent(&mut self, now: Instant) {
        self.last_sent = Some(now);
        self.requested = false;
        self.next_periodic = now + self.interval;
    }
}

/// When this node multicasts a [`Solicit`]: once at start, repeated a few times two gaps apart
/// while nobody has been heard (a lost query or answer costs two gaps, not a beacon period), and on
/// request, never less than `min_gap` after the previous query.
#[derive(Debug)]
pub struct SolicitSchedule {
    min_gap: Duration,
    next: Option<Instant>,
    last: Option<Instant>,
    requested: bool,
    repeats_left: u32,
}

impl SolicitSchedule {
    /// A schedule whose first query is due at `now`, then repeated up to `repeats` times while
    /// alone.
    pub fn new(now: Instant, min_gap: Duration, repeats: u32) -> Self {
        SolicitSchedule {
            min_gap,
            next: Some(now),
            last: None,
            requested: true,
            repeats_left: repeats,
        }
    }

    /// Asks for a query as soon as the gap allows.
    pub fn request(&mut self, now: Instant) {
        let earliest = self.last.map_or(now, |t| (t + self.min_gap).max(now));
        self.next = Some(self.next.map_or(earliest, |n| n.min(earliest)));
        self.requested = true;
    }

    /// When the schedule next wants to run, if at all.
    pub fn due(&self) -> Option<Instant> {
        self.next
    }

    /// Called at or after [`SolicitSchedule::due`]; `alone` says whether any peer has been heard.
    /// Returns whether to send a query now (a record that it was sent is kept).
    pub fn fire(&mut self, now: Instant, alone: bool) -> bool {
        if self.next.is_none_or(|n| n > now) {
            return false;
        }
        self.next = None;
        let send = self.requested || alone;
        self.requested = false;
        if send {
            self.last = Some(now);
        }
        if self.repeats_left > 0 && alone {
            self.repeats_left -= 1;
            self.next = Some(now + self.min_gap * 2);
        } else {
            self.repeats_left = 0;
        }
        send
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn beacon(n: u64) -> Beacon {
        Beacon {
            node: NodeId(n),
            quic_addrs: vec!["127.0.0.1:4433".parse().expect("addr")],
            federations: vec!["Restaurant".into()],
            cert_fingerprint: [7; 32],
            claims: vec![],
        }
    }

    #[test]
    fn round_trip() {
        let b = beacon(42);
        assert_eq!(Beacon::decode(&b.encode()), Ok(b));
    }

    #[test]
    fn other_version_reported_once() {
        let mut bytes = beacon(5).encode();
        bytes[5] = bytes[5].wrapping_add(1);
        let mut t = PeerTable::new(NodeId(1), Duration::from_secs(1));
        let now = Instant::now();
        let src = "127.0.0.1:1".parse().expect("addr");
        assert_eq!(
            t.on_datagram(now, src, &bytes),
            Some(DiscoveryEvent::IncompatibleVersion {
                node: NodeId(5),
                version: PROTOCOL_VERSION + 1
            })
        );
        assert_eq!(t.on_datagram(now, src, &bytes), None);
        assert_eq!(t.stats().incompatible, 2);
        assert!(t.get(NodeId(5)).is_none());
    }

    #[test]
    fn discover_change_expire_and_ignore_self() {
        let mut t = PeerTable::new(NodeId(1), Duration::from_millis(500));
        let t0 = Instant::now();
        let src = "127.0.0.1:1".parse().expect("addr");
        assert_eq!(t.on_datagram(t0, src, &beacon(1).encode()), None);
        assert_eq!(
            t.on_datagram(t0, src, &beacon(2).encode()),
            Some(DiscoveryEvent::Discovered(NodeId(2)))
        );
        assert_eq!(t.on_datagram(t0, src, &beacon(2).encode()), None);
        let mut changed = beacon(2);
        changed.federations.push("Other".into());
        assert_eq!(
            t.on_datagram(t0, src, &changed.encode()),
            Some(DiscoveryEvent::Changed(NodeId(2)))
        );
        assert!(t.expire(t0 + Duration::from_millis(400)).is_empty());
        assert_eq!(t.expire(t0 + Duration::from_millis(600)), vec![NodeId(2)]);
        assert!(t.get(NodeId(2)).is_none());
    }

    #[test]
    fn solicit_round_trip_answered_by_others_only() {
        let q = Solicit { node: NodeId(9) };
        let bytes = q.encode();
        assert_eq!(Solicit::decode(&bytes), Ok(q));
        assert_eq!(
            Beacon::decode(&bytes),
            Err(BeaconError::NotABeacon),
            "a query is no beacon"
        );
        assert_eq!(
            Solicit::decode(&beacon(9).encode()),
            Err(BeaconError::NotABeacon)
        );
        let mut t = PeerTable::new(NodeId(1), Duration::from_secs(1));
        let now = Instant::now();
        let src = "127.0.0.1:1".parse().expect("addr");
        assert_eq!(
            t.on_datagram(now, src, &bytes),
            Some(DiscoveryEvent::Solicited(NodeId(9)))
        );
        // A query does not make its sender a peer: only its beacon does.
        assert!(t.get(NodeId(9)).is_none());
        assert_eq!(
            t.on_datagram(now, src, &Solicit { node: NodeId(1) }.encode()),
            None,
            "own query"
        );
        // Later versions may append a body: it is ignored.
        let mut longer = bytes.clone();
        longer.extend_from_slice(b"future body");
        assert_eq!(
            t.on_datagram(now, src, &longer),
            Some(DiscoveryEvent::Solicited(NodeId(9)))
        );
        assert_eq!(t.stats().solicits, 2);
        assert_eq!(t.on_datagram(now, src, &bytes[..HEADER - 1]), None);
        assert_eq!(t.stats().malformed, 1);
    }

    #[test]
    fn solicit_of_other_version_reported_once_and_not_answered() {
        let mut bytes = Solicit { node: NodeId(5) }.encode();
        bytes[5] = bytes[5].wrapping_add(1);
        let mut t = PeerTable::new(NodeId(1), Duration::from_secs(1));
        let now = Instant::now();
        let src = "127.0.0.1:1".parse().expect("addr");
        assert_eq!(
            t.on_datagram(now, src, &bytes),
            Some(DiscoveryEvent::IncompatibleVersion {
                node: NodeId(5),
                version: PROTOCOL_VERSION + 1
            })
        );
        assert_eq!(t.on_datagram(now, src, &bytes), None);
        assert_eq!(t.stats().incompatible, 2);
        assert_eq!(t.stats().solicits, 0);
    }

    #[test]
    fn beacon_schedule_defers_and_merges_requests_within_the_gap() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut s = BeaconSchedule::new(t0, ms(1000), ms(10));
        assert_eq!(s.due(), t0, "the first beacon goes out at start");
        s.sent(t0);
        assert_eq!(s.due(), t0 + ms(1000), "then one per interval");
        // Requests 3 ms after a beacon wait for the gap, and many become one beacon.
        for _ in 0..100 {
            s.request();
        }
        assert_eq!(s.due(), t0 + ms(10));
        s.sent(t0 + ms(10));
        assert_eq!(
            s.due(),
            t0 + ms(1010),
            "all requests answered by one beacon"
        );
        // The next request is due a gap after that beacon.
        s.request();
        assert_eq!(s.due(), t0 + ms(20));
        // A request never brings a periodic beacon later.
        let mut p = BeaconSchedule::new(t0, ms(5), ms(5));
        p.sent(t0);
        p.request();
        assert_eq!(p.due(), t0 + ms(5));
    }

    #[test]
    fn solicit_schedule_repeats_while_alone_and_rate_limits_requests() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut s = SolicitSchedule::new(t0, ms(10), 2);
        assert_eq!(s.due(), Some(t0));
        assert!(!s.fire(t0 - ms(1), true), "not due yet");
        assert!(s.fire(t0, true), "the start's query");
        assert_eq!(s.due(), Some(t0 + ms(20)));
        assert!(s.fire(t0 + ms(20), true), "first repeat while alone");
        assert!(s.fire(t0 + ms(40), true), "second repeat");
        assert_eq!(s.due(), None, "repeats are bounded");
        // A request is rate-limited to the gap after the previous query, and always sent.
        s.request(t0 + ms(45));
        assert_eq!(s.due(), Some(t0 + ms(50)));
        s.request(t0 + ms(46));
        assert_eq!(s.due(), Some(t0 + ms(50)), "requests merge");
        assert!(s.fire(t0 + ms(50), false));
        assert_eq!(s.due(), None);

        // Someone answered: the repeats stop.
        let mut s = SolicitSchedule::new(t0, ms(10), 2);
        assert!(s.fire(t0, true));
        assert!(!s.fire(t0 + ms(20), false));
        assert_eq!(s.due(), None);
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = Beacon::decode(&bytes);
            let mut with_header = b"HLMB".to_vec();
            with_header.extend_from_slice(&PROTOCOL_VERSION.to_be_bytes());
            with_header.extend_from_slice(&bytes);
            let _ = Beacon::decode(&with_header);
            let _ = Solicit::decode(&bytes);
            let mut query = b"HLMQ".to_vec();
            query.extend_from_slice(&bytes);
            let _ = Solicit::decode(&query);
            let mut t = PeerTable::new(NodeId(1), Duration::from_secs(1));
            let src = "127.0.0.1:1".parse().expect("addr");
            let _ = t.on_datagram(Instant::now(), src, &query);
        }
    }
}
