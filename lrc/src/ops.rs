//! The operations plane: small messages between LRCs (and monitors such as `hlamesh status`) that
//! ride the transport's control messages next to the federation core's, told apart by a magic
//! prefix the core's envelopes never start with. Three uses:
//!
//! - **Status** — a monitor sends [`OpsMsg::StatusRequest`]; every LRC answers with a
//!   [`NodeStatus`]: its federations, the federates it knows in each (name, type, node), and for
//!   its own federates logical time, GALT and the regulating/constrained flags, plus its QUIC RTT
//!   to each peer. Nothing in the federation core changes for it.
//! - **Clock offset** — LRCs with metrics on, or whose offsets someone asked for
//!   (`RtiAmbassador::clock_offset`), probe each peer NTP-style ([`OpsMsg::ClockProbe`] /
//!   [`OpsMsg::ClockEcho`]) to estimate the offset between their wall clocks.
//! - **Latency marks** — [`OpsMsg::Mark`]: "my reliable message `seq` left at `T`", sent ordered
//!   behind that data, from which receivers sample the reflection latency (see
//!   [`crate::metrics`]).
//!
//! Encoding: 4 magic bytes, a version byte, then postcard. Anything else is a typed
//! [`OpsError`]; bounded by the input like every postcard decode.

use serde::{Deserialize, Serialize};

use crate::core::FederationCore;
use crate::core::time::Time;

/// Prefix of every operations-plane message (the core's messages start with their version byte,
/// a small number).
pub const MAGIC: [u8; 4] = [0xF0, b'H', b'O', b'P'];
/// Version of these messages.
pub const VERSION: u8 = 1;

/// A message that is not a valid operations-plane message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpsError {
    /// Not an operations-plane message at all.
    #[error("not an operations-plane message")]
    NotOps,
    /// Another version.
    #[error("operations-plane message version {0}, this LRC speaks {VERSION}")]
    Version(u8),
    /// Malformed body.
    #[error("malformed operations-plane message: {0}")]
    Malformed(String),
}

/// One operations-plane message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum OpsMsg {
    /// A monitor asks for the receiver's status.
    StatusRequest {
        /// Echoed in the reply.
        nonce: u64,
    },
    /// The answer.
    StatusReply {
        /// From the request.
        nonce: u64,
        /// The status.
        status: NodeStatus,
    },
    /// Clock probe: the sender's wall clock at sending, ns since the UNIX epoch.
    ClockProbe {
        /// Local send.
        t1: u64,
    },
    /// Answer to a probe.
    ClockEcho {
        /// The probe's send time (the prober's clock).
        t1: u64,
        /// Receive time (the answerer's clock).
        t2: u64,
        /// Answer send time (the answerer's clock).
        t3: u64,
    },
    /// The sender's reliable data message `seq` in `federation` left at `sent_wall_ns`.
    Mark {
        /// Federation name.
        federation: String,
        /// Reliable sequence number.
        seq: u64,
        /// Sender's wall clock, ns since the UNIX epoch.
        sent_wall_ns: u64,
    },
}

/// What one LRC reports about itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct NodeStatus {
    /// Its node id.
    pub node: u64,
    /// Its QUIC address.
    pub address: String,
    /// Federations open on it.
    pub federations: Vec<FederationStatus>,
    /// Connected peers and the QUIC RTT to each, microseconds.
    pub peers: Vec<PeerRtt>,
}

/// One federation as one LRC sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct FederationStatus {
    /// Name.
    pub name: String,
    /// The coordinator this LRC believes in.
    pub coordinator: Option<u64>,
    /// Member LRCs in join order.
    pub nodes: Vec<u64>,
    /// Joined federates (time fields only for the reporting LRC's own).
    pub federates: Vec<FederateStatus>,
}

/// One federate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct FederateStatus {
    /// Handle.
    pub handle: u32,
    /// Name.
    pub name: String,
    /// Federate type.
    pub federate_type: String,
    /// Its LRC.
    pub node: u64,
    /// Time state, when the reporting LRC hosts it.
    pub time: Option<TimeStatus>,
}

/// A local federate's time state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct TimeStatus {
    /// Logical time.
    pub logical_time: f64,
    /// GALT (`None`: undefined, no other regulator).
    pub galt: Option<f64>,
    /// Time regulating.
    pub regulating: bool,
    /// Time constrained.
    pub constrained: bool,
    /// In the Time Advancing state (a request pending).
    pub advancing: bool,
}

/// RTT to one peer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct PeerRtt {
    /// Peer node id.
    pub node: u64,
    /// Smoothed QUIC round-trip time, microseconds.
    pub rtt_us: u64,
}

impl OpsMsg {
    /// Magic, version, postcard.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.push(VERSION);
        // Serialising our own plain data into a Vec cannot fail.
        if let Ok(body) = postcard::to_allocvec(self) {
            out.extend_from_slice(&body);
        }
        out
    }

    /// Whether `bytes` claim to be an operations-plane message.
    pub fn is_ops(bytes: &[u8]) -> bool {
        bytes.starts_with(&MAGIC)
    }

    /// Inverse of [`Self::encode`]; never panics.
    pub fn decode(bytes: &[u8]) -> Result<Self, OpsError> {
        let rest = bytes.strip_prefix(&MAGIC).ok_or(OpsError::NotOps)?;
        let (&v, body) = rest.split_first().ok_or(OpsError::NotOps)?;
        if v != VERSION {
            return Err(OpsError::Version(v));
        }
        postcard::from_bytes(body).map_err(|e| OpsError::Malformed(e.to_string()))
    }
}

fn value(t: Time) -> f64 {
    t.value()
}

/// One federation's status from its core on this LRC.
pub fn federation_status(core: &FederationCore) -> FederationStatus {
    let view = core.view();
    let federates = view
        .federates
        .iter()
        .map(|(h, r)| FederateStatus {
            handle: h.0,
            name: r.name.clone(),
            federate_type: r.federate_type.clone(),
            node: r.node,
            time: core.time_manager(*h).map(|m| TimeStatus {
                logical_time: value(m.logical_time()),
                galt: m.galt().map(value),
                regulating: m.regulation() == hlamesh_timesync::RegulationState::On,
                constrained: m.constraint() == hlamesh_timesync::ConstraintState::On,
                advancing: m.pending_advance().is_some(),
            }),
        })
        .collect();
    FederationStatus {
        name: core.name().to_string(),
        coordinator: core.coordinator(),
        nodes: view.nodes.clone(),
        federates,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_typed_errors() {
        let m = OpsMsg::StatusReply {
            nonce: 7,
            status: NodeStatus {
                node: 9,
                address: "127.0.0.1:1".into(),
                federations: vec![FederationStatus {
                    name: "F".into(),
                    coordinator: Some(9),
                    nodes: vec![9],
                    federates: vec![FederateStatus {
                        handle: 1,
                        name: "a".into(),
                        federate_type: "t".into(),
                        node: 9,
                        time: Some(TimeStatus {
                            logical_time: 2.0,
                            galt: None,
                            regulating: true,
                            constrained: false,
                            advancing: false,
                        }),
                    }],
                }],
                peers: vec![PeerRtt {
                    node: 3,
                    rtt_us: 40,
                }],
            },
        };
        let b = m.encode();
        assert!(OpsMsg::is_ops(&b));
        assert_eq!(OpsMsg::decode(&b), Ok(m));
        assert_eq!(OpsMsg::decode(&[2, 0, 0]), Err(OpsError::NotOps));
        assert_eq!(OpsMsg::decode(&MAGIC), Err(OpsError::NotOps));
        let mut v = MAGIC.to_vec();
        v.push(9);
        assert_eq!(OpsMsg::decode(&v), Err(OpsError::Version(9)));
        v[4] = VERSION;
        v.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
        assert!(matches!(OpsMsg::decode(&v), Err(OpsError::Malformed(_))));
        // The core's envelopes are never taken for ours.
        assert!(!OpsMsg::is_ops(&[crate::core::wire::WIRE_VERSION, 0xF0]));
    }
}
