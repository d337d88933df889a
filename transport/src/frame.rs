//! Control-plane frames: what travels on the one ordered QUIC stream between two peers, each frame
//! a 4-byte big-endian length followed by its postcard encoding.

use serde::{Deserialize, Serialize};

use crate::data::{Nack, Repair};
use crate::id::{FederationKey, FederationTag, NodeId};

/// Largest frame accepted from a peer (repairs are chunked well below this).
pub const MAX_FRAME: usize = 32 << 20;

/// One control-plane message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Frame {
    /// First frame of the dialler: identity, version and (development mode) secret proof.
    Hello {
        /// The dialler.
        node: NodeId,
        /// Its protocol version.
        version: u16,
        /// HMAC over the TLS exporter, development mode only.
        proof: Option<[u8; 32]>,
    },
    /// The acceptor's answer to [`Frame::Hello`].
    HelloAck {
        /// The acceptor.
        node: NodeId,
        /// Its proof.
        proof: Option<[u8; 32]>,
    },
    /// The connection is refused (sent before closing).
    Refused {
        /// Why.
        reason: String,
    },
    /// Liveness.
    Heartbeat,
    /// Clean shutdown: the sender is leaving, not lost.
    Goodbye,
    /// The sender has the federation's data channel open; its reliable stream continues at
    /// `next_seq`. `reply` asks the receiver to answer with its own `Joined`.
    Joined {
        /// The federation.
        tag: FederationTag,
        /// The sender's next reliable sequence number.
        next_seq: u64,
        /// Whether the receiver should answer with its own `Joined`.
        reply: bool,
    },
    /// The sender closed the federation's data channel.
    Left {
        /// The federation.
        tag: FederationTag,
    },
    /// Asks for the federation key.
    KeyRequest {
        /// The federation.
        tag: FederationTag,
    },
    /// The key, if the sender has it.
    KeyReply {
        /// The federation.
        tag: FederationTag,
        /// The key.
        key: Option<FederationKey>,
    },
    /// A receiver asks for missing data datagrams.
    Nack {
        /// The federation.
        tag: FederationTag,
        /// What is missing.
        nack: Nack,
    },
    /// The sender's answer to a NACK.
    Repair {
        /// The federation.
        tag: FederationTag,
        /// The datagrams (or where the buffer starts now).
        repair: Repair,
    },
    /// Flow control: the sender of this frame delivered the receiver's reliable stream in `tag`
    /// up to `position` (see [`crate::flow`]).
    Ack {
        /// The federation.
        tag: FederationTag,
        /// Highest position delivered in order.
        position: u64,
    },
    /// Flow control: the sender of this frame waits for room in `tag`; the receiver answers at
    /// once with an [`Frame::Ack`] of what it delivered from it (its regular acknowledgements
    /// follow its own window, which may be wider than the sender's).
    AckRequest {
        /// The federation.
        tag: FederationTag,
        /// How often the sender wants acknowledgements from now on (a quarter of its window).
        policy: crate::flow::AckPolicy,
    },
    /// A message of the layer above, released to it only after the sender's data stream in `tag`
    /// was delivered up to `hw` (cross-channel causality).
    App {
        /// The federation whose data stream this message is ordered behind, if any.
        tag: Option<FederationTag>,
        /// The sender's data high-water sequence number in that federation.
        hw: u64,
        /// The message.
        #[serde(with = "serde_bytes")]
        payload: Vec<u8>,
    },
    /// DDM: the sender of this frame cannot join some cell group of `tag` that its
    /// subscriptions want (`on`; the kernel refused the join), or can again (`!on`). While any
    /// member is `on`, cell messages go to the federation's default group (see
    /// [`crate::core::cells`]).
    CellFallback {
        /// The federation.
        tag: FederationTag,
        /// Whether the sender needs cell messages on the default group.
        on: bool,
    },
}

/// Why a frame could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The length prefix exceeds [`MAX_FRAME`].
    #[error("frame of {0} bytes exceeds the limit")]
    TooLarge(usize),
    /// The body did not decode.
    #[error("malformed frame: {0}")]
    Malformed(#[from] postcard::Error),
}

impl Frame {
    /// Length-prefixed encoding.
    pub fn encode(&self) -> Vec<u8> {
        let body = postcard::to_allocvec(self).unwrap_or_default();
        let mut out = Vec::with_capacity(4 + body.len());
        out.extend_from_slice(&(body.len() as u32).to_be_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// Decodes a frame body (without its length prefix).
    pub fn decode(body: &[u8]) -> Result<Frame, FrameError> {
        Ok(postcard::from_bytes(body)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn round_trip() {
        let frames = vec![
            Frame::Hello {
                node: NodeId(9),
                version: 1,
                proof: Some([3; 32]),
            },
            Frame::Joined {
                tag: FederationTag(77),
                next_seq: 12,
                reply: true,
            },
            Frame::App {
                tag: Some(FederationTag(1)),
                hw: 99,
                payload: vec![1, 2, 3],
            },
            Frame::KeyReply {
                tag: FederationTag(1),
                key: Some(FederationKey([5; 32])),
            },
        ];
        for f in frames {
            let enc = f.encode();
            let len = u32::from_be_bytes([enc[0], enc[1], enc[2], enc[3]]) as usize;
            assert_eq!(len, enc.len() - 4);
            assert_eq!(Frame::decode(&enc[4..]).expect("decodes"), f);
        }
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let _ = Frame::decode(&bytes);
        }
    }
}
