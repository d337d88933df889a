//! Discovery: every node announces itself on the discovery multicast group with a beacon (node id,
//! protocol version, QUIC addresses, the federations it is in, certificate fingerprint). This module
//! is the sans-I/O part: the beacon codec and the table of peers heard, with expiry. The shell owns
//! the socket and the timer.
//!
//! Beacons are hints, not credentials: a peer is trusted only after the QUIC handshake (mutual TLS or
//! the development-mode secret proof). The fingerprint lets a dialer pin the certificate it expects.

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::config::PROTOCOL_VERSION;
use crate::id::NodeId;

const MAGIC: &[u8; 4] = b"HLMB";
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
        let version = u16::from_be_bytes([bytes[4], bytes[5]]);
        let mut id = [0u8; 8];
        id.copy_from_slice(&bytes[6..14]);
        let node = NodeId(u64::from_be_bytes(id));
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

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = Beacon::decode(&bytes);
            let mut with_header = b"HLMB".to_vec();
            with_header.extend_from_slice(&PROTOCOL_VERSION.to_be_bytes());
            with_header.extend_from_slice(&bytes);
            let _ = Beacon::decode(&with_header);
        }
    }
}
