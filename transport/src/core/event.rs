//! What the transport reports to the layer above: the core's events, which the shell passes
//! on (through the event hook, then the event channel) in the order the core produced them.

use std::net::SocketAddr;

use bytes::Bytes;

use crate::id::{FederationTag, NodeId};

/// What the transport reports to the layer above.
#[derive(Clone, Debug, PartialEq)]
pub enum TransportEvent {
    /// An authenticated peer is connected on the QUIC mesh.
    PeerConnected {
        /// The peer.
        node: NodeId,
        /// Its QUIC address.
        addr: SocketAddr,
    },
    /// A peer was silent longer than the peer timeout, or its connection failed.
    PeerLost {
        /// The peer.
        node: NodeId,
    },
    /// A peer said goodbye (clean shutdown).
    PeerLeft {
        /// The peer.
        node: NodeId,
    },
    /// A connection attempt failed authentication (wrong certificate, wrong secret, wrong version).
    PeerRefused {
        /// Remote address.
        addr: SocketAddr,
        /// Why.
        reason: String,
    },
    /// A peer opened (`joined = true`) or closed the data channel of a federation we have open.
    FederationPeer {
        /// The federation.
        tag: FederationTag,
        /// The peer.
        node: NodeId,
        /// Opened or closed.
        joined: bool,
    },
    /// A data message (in per-sender order for reliable ones).
    Data {
        /// The federation.
        tag: FederationTag,
        /// The sender.
        from: NodeId,
        /// Its sequence number (reliable messages only).
        seq: Option<u64>,
        /// The message.
        payload: Bytes,
    },
    /// A control message of the layer above, released after the data it is ordered behind.
    Control {
        /// The federation it was ordered in, if any.
        tag: Option<FederationTag>,
        /// The sender.
        from: NodeId,
        /// The message.
        payload: Bytes,
    },
    /// A sender's reliable stream is delivered here up to `through`: the positions after the
    /// last message delivered went to DDM cell groups this node did not join (see
    /// [`crate::data::chain`]), so they never come here. Sent only when no later message says
    /// as much.
    Skipped {
        /// The federation.
        tag: FederationTag,
        /// The sender.
        from: NodeId,
        /// Everything of its stream up to here is delivered or not due here.
        through: u64,
    },
    /// This node fell behind a sender's retransmit buffer: messages `[first, last]` are lost for
    /// good and the layer above must resynchronise (state transfer).
    FellBehind {
        /// The federation.
        tag: FederationTag,
        /// The sender.
        from: NodeId,
        /// First lost sequence number.
        first: u64,
        /// Last lost sequence number.
        last: u64,
    },
}
