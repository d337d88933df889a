//! Discovery: every node announces itself on the discovery multicast group with a beacon (node id,
//! protocol version, QUIC addresses, the federations it is in, certificate fingerprint). This module
//! is the sans-I/O part: the beacon codec and the table of peers heard, with expiry. The shell owns
//! the socket and the timer.
//!
//! Beacons are authenticated ([`crate::beacon_auth`]): a MAC under a key derived from the
//! development secret, or a signature bound to the node's lab certificate. A beacon that fails is
//! dropped before anything in it is parsed or acted on, and counted by reason
//! ([`DiscoveryStats::rejected`]); so only a node of the same deployment can make a member dial
//! an address, or make the LRC believe a federation exists or is claimed. A peer is still trusted
//! for federation traffic only after the QUIC handshake (mutual TLS or the development-mode
//! secret proof); the fingerprint lets a dialer pin the certificate it expects.
//!
//! Beacons that fail authentication are remembered briefly (bounded, see [`Refusals`]) so that a
//! node with another secret or certificate can say why it hears nobody: with authenticated
//! beacons it simply never sees the others.
//!
//! For the LRC's create race a beacon carries the federation names its node claims and the other
//! nodes' claims of those names it acknowledges ([`Beacon::acks`]; at most [`MAX_CLAIMS`] and
//! [`MAX_ACKS`], or the beacon is malformed), and the table remembers the highest number of this
//! node's own beacons heard back on the multicast loopback ([`PeerTable::own_echo`]): read with
//! the peers, it tells that every beacon that reached the socket before that one is in the table.
//!
//! Everything this table keeps is bounded: at most [`MAX_PEERS`] peers (only authenticated ones),
//! [`MAX_WARNED`] nodes remembered for the one-time version warning, [`MAX_REFUSED`] refused
//! nodes.
//!
//! A node that must not wait a beacon period (a starting node, an LRC about to join) multicasts a
//! [`Solicit`]; every member answers with its beacon at once. Answers, like every other beacon sent
//! out of period, go through [`BeaconSchedule`], which defers (never drops) a beacon asked for less
//! than a minimum gap after the last one, so a storm of queries costs each member at most one beacon
//! per gap. Queries are authenticated like beacons ([`Solicit::seal`], [`Solicit::open`]): a query
//! that fails is dropped and counted ([`DiscoveryStats::solicits_refused`]) and answered by
//! nobody, so a host without the secret or a lab certificate cannot make members beacon. A
//! replayed genuine query is answered, within the same one-beacon-per-gap bound.

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::beacon_auth::{AuthFailure, BeaconAuth};
use crate::config::PROTOCOL_VERSION;
use crate::id::NodeId;

const MAGIC: &[u8; 4] = b"HLMB";
/// Magic of a [`Solicit`]. A node that predates solicitation takes it for a malformed beacon and
/// ignores it.
const SOLICIT_MAGIC: &[u8; 4] = b"HLMQ";
/// Magic, protocol version, node id: the same header for beacons and solicitations.
const HEADER: usize = 4 + 2 + 8;
/// A beacon's header continues with the length of its body (u16), then the body, then the
/// authentication of all that.
const BEACON_HEADER: usize = HEADER + 2;
/// Most peers kept; beacons of further nodes are dropped (counted as `table_full`).
pub const MAX_PEERS: usize = 4096;
/// Most nodes remembered for the one-time warning about another protocol version.
pub const MAX_WARNED: usize = 256;
/// Most nodes whose failed beacons are remembered for [`PeerTable::refusals`].
pub const MAX_REFUSED: usize = 64;
/// Most claims in a beacon ([`Beacon::claims`]); a beacon with more is malformed.
pub const MAX_CLAIMS: usize = 16;
/// Most acknowledgements in a beacon ([`Beacon::acks`]); a beacon with more is malformed. A
/// node acknowledging more claimants leaves the rest unacknowledged: they wait longer, never
/// decide wrongly.
pub const MAX_ACKS: usize = 64;

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
    /// Counts this node's beacons: a beacon not newer than the last one accepted from the node
    /// is a replay and is dropped.
    #[serde(default)]
    pub seq: u64,
    /// What the node's application noted about each federation it announces, as (name, note)
    /// (the LRC notes the logical time implementation, so that nodes outside a federation can
    /// list it with its time type). Opaque to the transport; none for a federation not noted.
    #[serde(default)]
    pub notes: Vec<(String, String)>,
    /// Claims of other nodes this node acknowledges having heard while it claims the same name
    /// itself (the create race: a claimant decides quickly once every claimant it heard
    /// acknowledged it). At most [`MAX_ACKS`].
    #[serde(default)]
    pub acks: Vec<ClaimAck>,
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

/// An acknowledgement of another node's [`Claim`]: this node has heard it, and its own create
/// race counts it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClaimAck {
    /// The claiming node.
    pub node: NodeId,
    /// The federation name.
    pub name: String,
    /// The claim's time, as that node announced it.
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
    /// The beacon failed authentication.
    #[error("beacon from node {node} failed authentication: {reason}")]
    Unauthenticated {
        /// The node id the beacon claims (not proven).
        node: NodeId,
        /// Why.
        reason: AuthFailure,
    },
}

impl Beacon {
    /// Encodes and authenticates the beacon: magic, version, node id, body length, the postcard
    /// body, then the authentication ([`BeaconAuth::seal`]).
    pub fn seal(&self, auth: &BeaconAuth) -> Vec<u8> {
        // Serialising plain data into a Vec cannot fail.
        let body = postcard::to_allocvec(self).unwrap_or_default();
        let mut out = Vec::with_capacity(BEACON_HEADER + body.len() + 64);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&PROTOCOL_VERSION.to_be_bytes());
        out.extend_from_slice(&self.node.0.to_be_bytes());
        // A beacon fits in a datagram; a body too long for the length field would not.
        out.extend_from_slice(&(body.len().min(usize::from(u16::MAX)) as u16).to_be_bytes());
        out.extend_from_slice(&body);
        auth.seal(out)
    }

    /// Checks a beacon's authentication, then decodes it; never panics on arbitrary bytes.
    /// Nothing of the body is parsed before the authentication holds.
    pub fn open(bytes: &[u8], auth: &mut BeaconAuth, now: Instant) -> Result<Beacon, BeaconError> {
        let (node, body) = split(bytes)?;
        let signed_len = BEACON_HEADER + body.len();
        let fingerprint = auth
            .open(now, bytes, signed_len)
            .map_err(|reason| BeaconError::Unauthenticated { node, reason })?;
        let beacon = parse_body(node, body)?;
        // Certificate mode: the certificate that signed is the one the beacon announces.
        if fingerprint.is_some_and(|f| f != beacon.cert_fingerprint) {
            return Err(BeaconError::Unauthenticated {
                node,
                reason: AuthFailure::BadSignature,
            });
        }
        Ok(beacon)
    }

    /// Decodes a beacon WITHOUT checking its authentication: for observers, and to explain a
    /// refusal. Nothing read this way may be acted on.
    pub fn decode_unverified(bytes: &[u8]) -> Result<Beacon, BeaconError> {
        let (node, body) = split(bytes)?;
        parse_body(node, body)
    }
}

/// Header checks of a beacon: its node id and body.
fn split(bytes: &[u8]) -> Result<(NodeId, &[u8]), BeaconError> {
    if bytes.len() < HEADER || &bytes[..4] != MAGIC {
        return Err(BeaconError::NotABeacon);
    }
    let (node, version) = header(bytes);
    if version != PROTOCOL_VERSION {
        return Err(BeaconError::IncompatibleVersion { node, version });
    }
    let Some(len) = bytes.get(HEADER..BEACON_HEADER) else {
        return Err(BeaconError::NotABeacon);
    };
    let len = usize::from(u16::from_be_bytes([len[0], len[1]]));
    let body = bytes
        .get(BEACON_HEADER..BEACON_HEADER + len)
        .ok_or_else(|| BeaconError::Malformed("body length exceeds the datagram".into()))?;
    Ok((node, body))
}

fn parse_body(node: NodeId, body: &[u8]) -> Result<Beacon, BeaconError> {
    let beacon: Beacon =
        postcard::from_bytes(body).map_err(|e| BeaconError::Malformed(e.to_string()))?;
    if beacon.node != node {
        return Err(BeaconError::Malformed(
            "header and body node ids differ".into(),
        ));
    }
    if beacon.claims.len() > MAX_CLAIMS || beacon.acks.len() > MAX_ACKS {
        return Err(BeaconError::Malformed(format!(
            "{} claims and {} acknowledgements (at most {MAX_CLAIMS} and {MAX_ACKS})",
            beacon.claims.len(),
            beacon.acks.len()
        )));
    }
    Ok(beacon)
}

/// A query for beacons: whoever hears it answers with its beacon at once (rate-limited by
/// [`BeaconSchedule`]). On the wire it is the beacon header with its own magic: magic, protocol
/// version, node id; then the same authentication as a beacon's ([`BeaconAuth::seal`]) over that
/// header.
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

    /// Encodes and authenticates the query: the header of [`Solicit::encode`], then the
    /// authentication ([`BeaconAuth::seal`]).
    pub fn seal(&self, auth: &BeaconAuth) -> Vec<u8> {
        auth.seal(self.encode())
    }

    /// Checks a query's authentication, then decodes it; never panics on arbitrary bytes.
    pub fn open(bytes: &[u8], auth: &mut BeaconAuth, now: Instant) -> Result<Solicit, BeaconError> {
        let q = Solicit::decode(bytes)?;
        auth.open(now, bytes, HEADER)
            .map_err(|reason| BeaconError::Unauthenticated {
                node: q.node,
                reason,
            })?;
        Ok(q)
    }

    /// Decodes a query's header WITHOUT checking its authentication (for observers; nothing read
    /// this way may be acted on); never panics on arbitrary bytes. A beacon is `NotABeacon` here.
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
    /// One of this node's own beacons came back on the multicast loopback, numbered as given
    /// (see [`PeerTable::own_echo`]).
    Echo(u64),
    /// A beacon of an incompatible version: reported once per node, then silently ignored.
    IncompatibleVersion {
        /// The sender.
        node: NodeId,
        /// Its protocol version.
        version: u16,
    },
    /// A beacon failed authentication: reported once per node while it is remembered (at most
    /// [`MAX_REFUSED`] at a time), then only counted.
    Refused {
        /// The node id it claims (not proven).
        node: NodeId,
        /// Why.
        reason: AuthFailure,
    },
}

/// Why a beacon was dropped, as counted in [`DiscoveryStats::rejected`] (and exported as the
/// `reason` label of `hlamesh_discovery_beacons_rejected_total`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rejection {
    /// Not a beacon, or its header or body does not parse.
    Malformed,
    /// Another protocol version.
    IncompatibleVersion,
    /// Authenticated for the other security mode.
    WrongMode,
    /// Development mode: the MAC does not match (another secret, or forged).
    BadMac,
    /// Certificate mode: not issued by the lab CA.
    BadCertificate,
    /// Certificate mode: the signature does not verify.
    BadSignature,
    /// Certificate mode: verification rate limit reached.
    RateLimited,
    /// Not newer than the last beacon accepted from the node (a replay).
    Replayed,
    /// The peer table is full.
    TableFull,
}

impl Rejection {
    /// Every reason, in label order.
    pub const ALL: [Rejection; 9] = [
        Rejection::Malformed,
        Rejection::IncompatibleVersion,
        Rejection::WrongMode,
        Rejection::BadMac,
        Rejection::BadCertificate,
        Rejection::BadSignature,
        Rejection::RateLimited,
        Rejection::Replayed,
        Rejection::TableFull,
    ];

    /// The metric label.
    pub fn label(self) -> &'static str {
        match self {
            Rejection::Malformed => "malformed",
            Rejection::IncompatibleVersion => "incompatible_version",
            Rejection::WrongMode => "wrong_security_mode",
            Rejection::BadMac => "bad_mac",
            Rejection::BadCertificate => "bad_certificate",
            Rejection::BadSignature => "bad_signature",
            Rejection::RateLimited => "rate_limited",
            Rejection::Replayed => "replayed",
            Rejection::TableFull => "table_full",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl From<AuthFailure> for Rejection {
    fn from(f: AuthFailure) -> Rejection {
        match f {
            AuthFailure::Malformed => Rejection::Malformed,
            AuthFailure::WrongMode => Rejection::WrongMode,
            AuthFailure::BadMac => Rejection::BadMac,
            AuthFailure::BadCertificate => Rejection::BadCertificate,
            AuthFailure::BadSignature => Rejection::BadSignature,
            AuthFailure::RateLimited => Rejection::RateLimited,
        }
    }
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
    /// Queries for beacons ([`Solicit`]) from other nodes, authenticated (answered).
    pub solicits: u64,
    /// Queries that failed authentication (or were malformed after the magic): not answered.
    pub solicits_refused: u64,
    /// Beacons dropped, by [`Rejection`] (index: position in [`Rejection::ALL`]). Includes the
    /// malformed and incompatible ones above.
    pub rejected: [u64; Rejection::ALL.len()],
}

impl DiscoveryStats {
    /// Beacons dropped for `reason`.
    pub fn rejected(&self, reason: Rejection) -> u64 {
        self.rejected[reason.index()]
    }

    /// Beacons that failed authentication in a way another secret or CA explains.
    pub fn auth_failures(&self) -> u64 {
        [
            Rejection::WrongMode,
            Rejection::BadMac,
            Rejection::BadCertificate,
            Rejection::BadSignature,
        ]
        .iter()
        .map(|r| self.rejected(*r))
        .sum()
    }
}

/// A node whose beacons failed authentication.
#[derive(Clone, Debug)]
struct RefusedNode {
    last: Instant,
    reason: AuthFailure,
    /// What its (unauthenticated) beacon lists: for the explanation only.
    federations: Vec<String>,
}

/// Nodes heard recently whose beacons failed authentication: what a node with another secret or
/// certificate sees of the others. What they list is unproven and only explains.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Refusals {
    /// Distinct nodes heard within the expiry interval (at most [`MAX_REFUSED`]).
    pub nodes: usize,
    /// Federations their beacons list (unproven), sorted.
    pub federations: Vec<String>,
    /// The reasons seen, as text.
    pub reasons: Vec<String>,
    /// This node's own beacons fail its own check (its certificate is not issued by the CA it
    /// trusts): why, as text.
    pub own: Option<String>,
}

impl Refusals {
    /// One sentence for a user: why nobody was admitted, or `None` if nothing was refused.
    pub fn explain(&self) -> Option<String> {
        let own = self.own.as_ref().map(|why| {
            format!(
                "this node's own beacons fail its own check ({why}): its certificate is not \
                 issued by the CA it trusts, so members refuse it: wrong development secret or \
                 certificate"
            )
        });
        if self.nodes == 0 {
            return own;
        }
        let others = format!(
            "beacons from {} node(s) were heard but refused: wrong development secret or \
             certificate (they failed authentication: {})",
            self.nodes,
            self.reasons.join("; ")
        );
        Some(match own {
            Some(own) => format!("{others}; {own}"),
            None => others,
        })
    }
}

/// The peers heard on the discovery group.
#[derive(Debug)]
pub struct PeerTable {
    local: NodeId,
    expiry: Duration,
    auth: BeaconAuth,
    peers: HashMap<NodeId, PeerInfo>,
    warned: HashSet<NodeId>,
    refused: HashMap<NodeId, RefusedNode>,
    /// When and why this node's own beacon last failed its own check.
    own_refused: Option<(Instant, AuthFailure)>,
    /// The highest [`Beacon::seq`] of this node's own beacons heard back.
    own_echo: u64,
    stats: DiscoveryStats,
}

impl PeerTable {
    /// An empty table for `local`; peers silent for `expiry` are forgotten; beacons are checked
    /// with `auth`.
    pub fn new(local: NodeId, expiry: Duration, auth: BeaconAuth) -> Self {
        PeerTable {
            local,
            expiry,
            auth,
            peers: HashMap::new(),
            warned: HashSet::new(),
            refused: HashMap::new(),
            own_refused: None,
            own_echo: 0,
            stats: DiscoveryStats::default(),
        }
    }

    /// Seals this node's beacon for sending ([`Beacon::seal`]).
    pub fn seal(&self, beacon: &Beacon) -> Vec<u8> {
        beacon.seal(&self.auth)
    }

    /// Seals this node's query for beacons ([`Solicit::seal`]).
    pub fn seal_solicit(&self) -> Vec<u8> {
        Solicit { node: self.local }.seal(&self.auth)
    }

    fn reject(&mut self, r: Rejection) {
        self.stats.rejected[r.index()] += 1;
    }

    fn warn_version(&mut self, node: NodeId, version: u16) -> Option<DiscoveryEvent> {
        self.stats.incompatible += 1;
        self.reject(Rejection::IncompatibleVersion);
        // Bounded: past the bound, further nodes are only counted.
        (self.warned.len() < MAX_WARNED && self.warned.insert(node))
            .then_some(DiscoveryEvent::IncompatibleVersion { node, version })
    }

    /// Processes one datagram received on the discovery group.
    pub fn on_datagram(
        &mut self,
        now: Instant,
        source: SocketAddr,
        bytes: &[u8],
    ) -> Option<DiscoveryEvent> {
        if Solicit::is_solicit(bytes) {
            return self.on_solicit(now, bytes);
        }
        match Beacon::open(bytes, &mut self.auth, now) {
            Ok(b) if b.node == self.local => {
                // Our own beacon, looped back: every datagram that reached the socket before
                // it has been read (one reader, first in first out), which the create race's
                // barrier relies on.
                (b.seq > self.own_echo).then(|| {
                    self.own_echo = b.seq;
                    DiscoveryEvent::Echo(b.seq)
                })
            }
            Ok(b) => self.on_beacon(now, source, b),
            Err(BeaconError::IncompatibleVersion { node, version }) => {
                self.warn_version(node, version)
            }
            Err(BeaconError::Unauthenticated { node, reason }) if node == self.local => {
                // Our own beacon, looped back: not counted, but it tells that this node's
                // certificate does not chain to the CA it trusts (so members refuse it too).
                if reason.is_refusal() {
                    self.own_refused = Some((now, reason));
                }
                None
            }
            Err(BeaconError::Unauthenticated { node, reason }) => {
                self.reject(reason.into());
                self.on_refused(now, node, reason, bytes)
            }
            Err(_) => {
                self.stats.malformed += 1;
                self.reject(Rejection::Malformed);
                None
            }
        }
    }

    fn on_beacon(&mut self, now: Instant, source: SocketAddr, b: Beacon) -> Option<DiscoveryEvent> {
        let node = b.node;
        let full = self.peers.len() >= MAX_PEERS;
        match self.peers.get_mut(&node) {
            Some(p) => {
                if b.seq <= p.beacon.seq {
                    self.reject(Rejection::Replayed);
                    return None;
                }
                self.stats.beacons += 1;
                p.last_heard = now;
                p.source = source;
                let changed = p.beacon.quic_addrs != b.quic_addrs
                    || p.beacon.federations != b.federations
                    || p.beacon.cert_fingerprint != b.cert_fingerprint
                    || p.beacon.claims != b.claims
                    || p.beacon.acks != b.acks;
                p.beacon = b;
                changed.then_some(DiscoveryEvent::Changed(node))
            }
            None if full => {
                self.reject(Rejection::TableFull);
                None
            }
            None => {
                self.stats.beacons += 1;
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

    fn on_refused(
        &mut self,
        now: Instant,
        node: NodeId,
        reason: AuthFailure,
        bytes: &[u8],
    ) -> Option<DiscoveryEvent> {
        if !reason.is_refusal() {
            return None;
        }
        if let Some(r) = self.refused.get_mut(&node) {
            r.last = now;
            r.reason = reason;
            return None;
        }
        if self.refused.len() >= MAX_REFUSED {
            let expiry = self.expiry;
            self.refused
                .retain(|_, r| now.saturating_duration_since(r.last) <= expiry);
            if self.refused.len() >= MAX_REFUSED {
                return None;
            }
        }
        // Unproven; kept only to explain (bounded by the datagram and `MAX_REFUSED`).
        let federations = Beacon::decode_unverified(bytes)
            .map(|b| b.federations)
            .unwrap_or_default();
        self.refused.insert(
            node,
            RefusedNode {
                last: now,
                reason,
                federations,
            },
        );
        Some(DiscoveryEvent::Refused { node, reason })
    }

    fn on_solicit(&mut self, now: Instant, bytes: &[u8]) -> Option<DiscoveryEvent> {
        // Our own query looped back is ignored before its authentication is checked.
        if Solicit::decode(bytes).is_ok_and(|q| q.node == self.local) {
            return None;
        }
        match Solicit::open(bytes, &mut self.auth, now) {
            Ok(q) => {
                self.stats.solicits += 1;
                Some(DiscoveryEvent::Solicited(q.node))
            }
            Err(BeaconError::IncompatibleVersion { node, version }) => {
                self.warn_version(node, version)
            }
            Err(_) => {
                // Unauthenticated (forged, another secret or CA, or unsealed): nobody answers.
                self.stats.solicits_refused += 1;
                None
            }
        }
    }

    /// Forgets peers (and refused nodes) not heard for the expiry interval; returns the peers.
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
        self.refused
            .retain(|_, r| now.saturating_duration_since(r.last) <= expiry);
        gone
    }

    /// Nodes heard within the expiry interval whose beacons failed authentication.
    pub fn refusals(&self, now: Instant) -> Refusals {
        let mut out = Refusals::default();
        let mut reasons: Vec<AuthFailure> = Vec::new();
        for r in self.refused.values() {
            if now.saturating_duration_since(r.last) > self.expiry {
                continue;
            }
            out.nodes += 1;
            out.federations.extend(r.federations.iter().cloned());
            if !reasons.contains(&r.reason) {
                reasons.push(r.reason);
            }
        }
        out.federations.sort();
        out.federations.dedup();
        out.reasons = reasons.iter().map(ToString::to_string).collect();
        out.reasons.sort();
        out.own = self
            .own_refused
            .filter(|(t, _)| now.saturating_duration_since(*t) <= self.expiry)
            .map(|(_, r)| r.to_string());
        out
    }

    /// The highest number ([`Beacon::seq`]) of this node's own beacons heard back on the
    /// multicast loopback, 0 before the first: read together with the peers, it tells that
    /// every beacon that reached this node's socket before that one is in the table.
    pub fn own_echo(&self) -> u64 {
        self.own_echo
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
    urgent: bool,
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
            urgent: false,
        }
    }

    /// Asks for a beacon as soon as the gap allows.
    pub fn request(&mut self) {
        self.requested = true;
    }

    /// Asks for a beacon at once, within the gap too: for what this node does itself and
    /// seldom (it opened a federation that joiners wait to hear of), never for what others
    /// ask (those go through [`BeaconSchedule::request`]).
    pub fn request_urgent(&mut self) {
        self.requested = true;
        self.urgent = true;
    }

    /// When the next beacon is due (possibly in the past: send now).
    pub fn due(&self) -> Instant {
        // Before the first beacon, the periodic one is due at once anyway.
        match self.last_sent {
            Some(t) if self.urgent => t.min(self.next_periodic),
            Some(t) if self.requested => (t + self.min_gap).min(self.next_periodic),
            _ => self.next_periodic,
        }
    }

    /// Records a beacon sent at `now`: pending requests are answered by it, and the next periodic
    /// one is an interval later.
    pub fn sent(&mut self, now: Instant) {
        self.last_sent = Some(now);
        self.requested = false;
        self.urgent = false;
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

    const SECRET: &[u8] = b"test secret";

    fn auth() -> BeaconAuth {
        BeaconAuth::development(SECRET)
    }

    fn table(expiry: Duration) -> PeerTable {
        PeerTable::new(NodeId(1), expiry, auth())
    }

    fn beacon(n: u64) -> Beacon {
        Beacon {
            node: NodeId(n),
            quic_addrs: vec!["127.0.0.1:4433".parse().expect("addr")],
            federations: vec!["Restaurant".into()],
            cert_fingerprint: [7; 32],
            claims: vec![],
            seq: 1,
            notes: Vec::new(),
            acks: Vec::new(),
        }
    }

    fn sealed(b: &Beacon) -> Vec<u8> {
        b.seal(&auth())
    }

    fn src() -> SocketAddr {
        "127.0.0.1:1".parse().expect("addr")
    }

    #[test]
    fn round_trip() {
        let b = beacon(42);
        let now = Instant::now();
        assert_eq!(Beacon::open(&sealed(&b), &mut auth(), now), Ok(b.clone()));
        assert_eq!(Beacon::decode_unverified(&sealed(&b)), Ok(b));
    }

    #[test]
    fn tampered_wrong_key_and_truncated_beacons_are_refused() {
        let now = Instant::now();
        let bytes = sealed(&beacon(42));
        // Every single-byte change after the magic and version fails authentication (or is no
        // beacon of this version any more); none is accepted.
        for i in 0..bytes.len() {
            let mut t = bytes.clone();
            t[i] ^= 0x20;
            assert!(
                Beacon::open(&t, &mut auth(), now).is_err(),
                "byte {i} changed and still accepted"
            );
        }
        for n in 0..bytes.len() {
            assert!(
                Beacon::open(&bytes[..n], &mut auth(), now).is_err(),
                "cut at {n}"
            );
        }
        let mut other = BeaconAuth::development(b"another secret");
        assert_eq!(
            Beacon::open(&bytes, &mut other, now),
            Err(BeaconError::Unauthenticated {
                node: NodeId(42),
                reason: AuthFailure::BadMac
            })
        );
        // A beacon with no authentication at all (the version-2 layout plus a length field).
        let mut bare = bytes[..bytes.len() - 1 - crate::beacon_auth::MAC_LEN].to_vec();
        assert!(Beacon::open(&bare, &mut auth(), now).is_err());
        bare.push(1);
        bare.extend_from_slice(&[0u8; 32]);
        assert_eq!(
            Beacon::open(&bare, &mut auth(), now),
            Err(BeaconError::Unauthenticated {
                node: NodeId(42),
                reason: AuthFailure::BadMac
            })
        );
    }

    #[test]
    fn refused_beacons_are_counted_explained_and_never_become_peers() {
        let mut t = table(Duration::from_secs(1));
        let now = Instant::now();
        let other = BeaconAuth::development(b"wrong");
        let mut ev = Vec::new();
        for n in 2..2 + MAX_REFUSED as u64 + 10 {
            ev.push(t.on_datagram(now, src(), &beacon(n).seal(&other)));
        }
        // Once per node, bounded.
        assert_eq!(ev.iter().filter(|e| e.is_some()).count(), MAX_REFUSED);
        assert_eq!(
            ev[0],
            Some(DiscoveryEvent::Refused {
                node: NodeId(2),
                reason: AuthFailure::BadMac
            })
        );
        assert_eq!(t.peers().count(), 0);
        assert_eq!(
            t.stats().rejected(Rejection::BadMac),
            MAX_REFUSED as u64 + 10
        );
        assert_eq!(t.stats().auth_failures(), MAX_REFUSED as u64 + 10);
        let r = t.refusals(now);
        assert_eq!(r.nodes, MAX_REFUSED);
        assert_eq!(r.federations, vec!["Restaurant".to_string()]);
        let text = r.explain().expect("explained");
        assert!(
            text.contains("wrong development secret or certificate"),
            "{text}"
        );
        // Forgotten after the expiry interval.
        t.expire(now + Duration::from_secs(2));
        assert_eq!(t.refusals(now + Duration::from_secs(2)).explain(), None);
    }

    #[test]
    fn own_beacon_failing_its_own_check_is_explained_not_counted() {
        let mut t = table(Duration::from_secs(1));
        let now = Instant::now();
        let mine = beacon(1).seal(&BeaconAuth::development(b"mismatched"));
        assert_eq!(t.on_datagram(now, src(), &mine), None);
        assert_eq!(t.stats().auth_failures(), 0);
        let text = t.refusals(now).explain().expect("explained");
        assert!(text.contains("own beacons"), "{text}");
    }

    #[test]
    fn replayed_beacons_are_dropped() {
        let mut t = table(Duration::from_secs(1));
        let now = Instant::now();
        let mut b = beacon(2);
        let first = sealed(&b);
        assert_eq!(
            t.on_datagram(now, src(), &first),
            Some(DiscoveryEvent::Discovered(NodeId(2)))
        );
        b.seq = 2;
        b.claims.push(Claim {
            name: "X".into(),
            claim_time_us: 1,
        });
        assert_eq!(
            t.on_datagram(now, src(), &sealed(&b)),
            Some(DiscoveryEvent::Changed(NodeId(2)))
        );
        // The first beacon again: a replay, it must not bring the old claims back.
        assert_eq!(t.on_datagram(now, src(), &first), None);
        assert_eq!(t.stats().rejected(Rejection::Replayed), 1);
        assert_eq!(t.get(NodeId(2)).expect("peer").beacon.claims.len(), 1);
    }

    #[test]
    fn the_peer_table_is_bounded() {
        let mut t = table(Duration::from_secs(60));
        let now = Instant::now();
        for n in 2..2 + MAX_PEERS as u64 + 5 {
            t.on_datagram(now, src(), &sealed(&beacon(n)));
        }
        assert_eq!(t.peers().count(), MAX_PEERS);
        assert_eq!(t.stats().rejected(Rejection::TableFull), 5);
    }

    #[test]
    fn other_version_reported_once() {
        let mut bytes = sealed(&beacon(5));
        bytes[5] = bytes[5].wrapping_add(1);
        let mut t = table(Duration::from_secs(1));
        let now = Instant::now();
        assert_eq!(
            t.on_datagram(now, src(), &bytes),
            Some(DiscoveryEvent::IncompatibleVersion {
                node: NodeId(5),
                version: PROTOCOL_VERSION + 1
            })
        );
        assert_eq!(t.on_datagram(now, src(), &bytes), None);
        assert_eq!(t.stats().incompatible, 2);
        assert!(t.get(NodeId(5)).is_none());
        // The set of warned nodes is bounded.
        for n in 10..10 + MAX_WARNED as u64 * 2 {
            let mut b = sealed(&beacon(n));
            b[5] = b[5].wrapping_add(1);
            t.on_datagram(now, src(), &b);
        }
        assert_eq!(t.warned.len(), MAX_WARNED);
    }

    #[test]
    fn discover_change_expire_and_ignore_self() {
        let mut t = table(Duration::from_millis(500));
        let t0 = Instant::now();
        let src = src();
        assert_eq!(
            t.on_datagram(t0, src, &sealed(&beacon(1))),
            Some(DiscoveryEvent::Echo(1)),
            "our own beacon is no peer, only an echo"
        );
        assert!(t.get(NodeId(1)).is_none());
        assert_eq!(
            t.on_datagram(t0, src, &sealed(&beacon(2))),
            Some(DiscoveryEvent::Discovered(NodeId(2)))
        );
        let mut again = beacon(2);
        again.seq = 2;
        assert_eq!(t.on_datagram(t0, src, &sealed(&again)), None);
        let mut changed = beacon(2);
        changed.seq = 3;
        changed.federations.push("Other".into());
        assert_eq!(
            t.on_datagram(t0, src, &sealed(&changed)),
            Some(DiscoveryEvent::Changed(NodeId(2)))
        );
        assert!(t.expire(t0 + Duration::from_millis(400)).is_empty());
        assert_eq!(t.expire(t0 + Duration::from_millis(600)), vec![NodeId(2)]);
        assert!(t.get(NodeId(2)).is_none());
    }

    #[test]
    fn solicit_round_trip_answered_by_others_only() {
        let q = Solicit { node: NodeId(9) };
        let bytes = q.seal(&auth());
        assert_eq!(Solicit::decode(&bytes), Ok(q));
        assert_eq!(Solicit::open(&bytes, &mut auth(), Instant::now()), Ok(q));
        assert_eq!(
            Beacon::decode_unverified(&bytes),
            Err(BeaconError::NotABeacon),
            "a query is no beacon"
        );
        assert_eq!(
            Solicit::decode(&sealed(&beacon(9))),
            Err(BeaconError::NotABeacon)
        );
        let mut t = table(Duration::from_secs(1));
        let now = Instant::now();
        let src = "127.0.0.1:1".parse().expect("addr");
        assert_eq!(
            t.on_datagram(now, src, &bytes),
            Some(DiscoveryEvent::Solicited(NodeId(9)))
        );
        // A query does not make its sender a peer: only its beacon does.
        assert!(t.get(NodeId(9)).is_none());
        assert_eq!(
            t.on_datagram(now, src, &Solicit { node: NodeId(1) }.seal(&auth())),
            None,
            "own query"
        );
        assert_eq!(t.stats().solicits, 1);
        assert_eq!(t.on_datagram(now, src, &bytes[..HEADER - 1]), None);
        assert_eq!(t.stats().solicits_refused, 1);
    }

    #[test]
    fn unauthenticated_solicits_are_refused_counted_and_not_answered() {
        let mut t = table(Duration::from_secs(1));
        let now = Instant::now();
        let q = Solicit { node: NodeId(9) };
        let mut flipped = q.seal(&auth());
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        let forged = [
            q.encode(),                                          // unsealed (no authentication)
            q.seal(&BeaconAuth::development(b"another secret")), // another secret
            flipped,                                             // tampered tag
            {
                let mut b = q.seal(&auth()); // sealed by node 9, claims node 10
                b[13] = 10;
                b
            },
        ];
        for f in &forged {
            assert_eq!(t.on_datagram(now, src(), f), None, "{f:02x?}");
        }
        assert_eq!(t.stats().solicits, 0);
        assert_eq!(t.stats().solicits_refused, forged.len() as u64);
        assert!(matches!(
            Solicit::open(&forged[1], &mut auth(), now),
            Err(BeaconError::Unauthenticated {
                reason: AuthFailure::BadMac,
                ..
            })
        ));
    }

    #[test]
    fn solicit_of_other_version_reported_once_and_not_answered() {
        let mut bytes = Solicit { node: NodeId(5) }.encode();
        bytes[5] = bytes[5].wrapping_add(1);
        let mut t = table(Duration::from_secs(1));
        let now = Instant::now();
        let src = src();
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
        // An urgent request is due at once, within the gap, and only once.
        s.request_urgent();
        assert_eq!(s.due(), t0 + ms(10));
        s.sent(t0 + ms(12));
        s.request();
        assert_eq!(s.due(), t0 + ms(22));
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

    #[test]
    fn own_beacons_heard_back_advance_the_echo_in_order() {
        let mut t = table(Duration::from_secs(1));
        let now = Instant::now();
        assert_eq!(t.own_echo(), 0);
        let mut own = beacon(1);
        own.seq = 7;
        assert_eq!(
            t.on_datagram(now, src(), &sealed(&own)),
            Some(DiscoveryEvent::Echo(7))
        );
        // An older one (or a replay of ours) does not move it back.
        own.seq = 5;
        assert_eq!(t.on_datagram(now, src(), &sealed(&own)), None);
        assert_eq!(t.own_echo(), 7);
        // One under another key is no echo.
        own.seq = 9;
        let forged = own.seal(&BeaconAuth::development(b"other"));
        assert_eq!(t.on_datagram(now, src(), &forged), None);
        assert_eq!(t.own_echo(), 7);
    }

    #[test]
    fn acknowledgements_round_trip_change_the_peer_and_are_bounded() {
        let mut t = table(Duration::from_secs(1));
        let now = Instant::now();
        let mut b = beacon(2);
        b.claims.push(Claim {
            name: "F".into(),
            claim_time_us: 10,
        });
        assert_eq!(
            t.on_datagram(now, src(), &sealed(&b)),
            Some(DiscoveryEvent::Discovered(NodeId(2)))
        );
        b.seq = 2;
        b.acks.push(ClaimAck {
            node: NodeId(1),
            name: "F".into(),
            claim_time_us: 9,
        });
        assert_eq!(Beacon::open(&sealed(&b), &mut auth(), now), Ok(b.clone()));
        // An acknowledgement arriving is a change the create race must be woken for.
        assert_eq!(
            t.on_datagram(now, src(), &sealed(&b)),
            Some(DiscoveryEvent::Changed(NodeId(2)))
        );
        // Authenticated like the rest: changing the acknowledged claim's time breaks the MAC.
        let mut bytes = sealed(&b);
        let at = bytes
            .windows(2)
            .rposition(|w| w == [1, b'F'])
            .expect("the acknowledgement's name");
        bytes[at + 2] ^= 1;
        assert!(Beacon::open(&bytes, &mut auth(), now).is_err());
        // Bounded: one acknowledgement or claim too many and the beacon is malformed.
        let mut many = beacon(3);
        many.acks = vec![b.acks[0].clone(); MAX_ACKS + 1];
        assert!(matches!(
            Beacon::open(&sealed(&many), &mut auth(), now),
            Err(BeaconError::Malformed(_))
        ));
        many.acks.truncate(MAX_ACKS);
        assert!(Beacon::open(&sealed(&many), &mut auth(), now).is_ok());
        many.claims = vec![b.claims[0].clone(); MAX_CLAIMS + 1];
        assert!(matches!(
            Beacon::open(&sealed(&many), &mut auth(), now),
            Err(BeaconError::Malformed(_))
        ));
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = Beacon::decode_unverified(&bytes);
            let _ = Beacon::open(&bytes, &mut auth(), Instant::now());
            let mut with_header = b"HLMB".to_vec();
            with_header.extend_from_slice(&PROTOCOL_VERSION.to_be_bytes());
            with_header.extend_from_slice(&bytes);
            let _ = Beacon::decode_unverified(&with_header);
            let _ = Beacon::open(&with_header, &mut auth(), Instant::now());
            let _ = Solicit::decode(&bytes);
            let mut query = b"HLMQ".to_vec();
            query.extend_from_slice(&bytes);
            let _ = Solicit::decode(&query);
            let mut t = table(Duration::from_secs(1));
            let _ = t.on_datagram(Instant::now(), src(), &query);
            let _ = t.on_datagram(Instant::now(), src(), &with_header);
        }
    }
}
