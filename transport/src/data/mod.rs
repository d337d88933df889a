//! The data plane: sequenced, authenticated UDP multicast with NACK repair (sans-I/O).
//!
//! What it is: the protocol logic for one federation's multicast data stream. A [`DataSender`]
//! turns messages into authenticated datagrams (fragmenting large ones, optionally batching small
//! ones) and keeps recent reliable datagrams for repair. A [`DataReceiver`] checks datagrams
//! (version, federation tag, MAC, membership), drops duplicates, delivers each sender's reliable
//! messages exactly once and in order, asks for repairs with [`Nack`]s and reports a sender whose
//! retransmit buffer no longer holds what it misses ([`RecvEvent::FellBehind`]). A
//! [`CausalGate`] holds control messages until the data they follow has been delivered.
//! [`chain`] holds the logic by which one sender's reliable stream is spread over several
//! multicast groups (DDM cells, `docs/DDM.md`) while a receiver in some of them still knows what
//! it is due: [`DataSender::send_reliable_cells`] sends with chain headers, and the receiver
//! passes over the positions of groups it did not join ([`RecvEvent::Skipped`]), asks only for
//! what it is due, and delivers the rest exactly once and in order.
//!
//! What it is not: it owns no socket, no clock and no thread. The shell passes `now` in, moves
//! datagrams between sockets and these state machines, and carries [`Nack`]/[`Repair`] over QUIC.
//!
//! # Decisions
//! - **Sequence numbers** are per sender per federation, start at 1 and count *reliable frames*:
//!   every whole message and every fragment of a reliable message has its own number, so NACK
//!   and repair work per datagram. A message's [`Seq`] is the number of its last frame; a sender's
//!   high-water is the last number it assigned (0: nothing sent).
//! - **Best-effort** datagrams have their own per-sender counter, used only to drop duplicates
//!   and to count loss; they are never repaired. A best-effort message with a lost fragment is
//!   dropped and counted when its reassembly times out or is evicted.
//! - **DDM cell** best-effort datagrams ([`DataSender::send_cells`], kind
//!   [`DatagramKind::CellBestEffort`]) have a third per-sender counter: a receiver hears only
//!   the cell groups it joined, so their numbers have gaps it cannot tell from loss. It uses
//!   them only to drop the copy of a message that arrives on a second joined group; loss there
//!   is not measured. Default-group best-effort numbers stay gap-free for every receiver, so
//!   `best_effort_lost` counts their loss exactly, and heartbeats announce only them.
//! - **Reliable data on DDM cells** ([`DataSender::send_reliable_cells`], kinds
//!   [`DatagramKind::ChainedReliable`] and [`DatagramKind::ChainedHeartbeat`]) takes positions
//!   in the one reliable space. Once a sender sent there, a datagram whose previous position
//!   went elsewhere carries a chain header, and its heartbeats a tail; a receiver that has
//!   joined cells, or heard a chained datagram, keeps a [`chain::Chains`] per sender and
//!   delivers in position order, skipping the positions known to be not due, asking (NACK) for
//!   the due ones missing and the unknown ones below them (one round trip for a burst), never
//!   evicting a buffered frame for room (the chains may have settled past it: the new frame
//!   is refused and asked for again). A sender that never sent to a cell, and a receiver that
//!   never joined one nor heard a chained datagram, run the plain stream unchanged.
//! - **Unknown start**: a sender added with [`DataReceiver::add_sender`] is expected from
//!   sequence 1, so a receiver that first hears it mid-stream NACKs from 1 (the sender either
//!   repairs or says its buffer starts later, which surfaces as `FellBehind`). A late joiner that
//!   got the state by transfer calls [`DataReceiver::start_sender_at`] with the transferred number.
//! - **Fell behind**: when a repair says the oldest available number is above the receiver's next
//!   expected one, the receiver emits `FellBehind { lost }` and resumes the stream at the first
//!   available number (a message cut in two by that point is dropped too). It never stalls, so a
//!   [`CausalGate`] waiting on that sender is released; the layer above resynchronises (state
//!   transfer) on the event.
//! - **Removed sender and the causal gate**: [`CausalGate::remove_sender`] *releases* the held
//!   messages in arrival order. Nothing more can arrive on the data channel from a removed sender,
//!   and the control messages (e.g. a resign) are still meaningful; dropping them would lose them.
//! - **Memory bounds**: the sender's retransmit buffer (bytes and datagrams as a ceiling; in a
//!   steady run it holds only what some receiver has not acknowledged, plus
//!   `retransmit_min_keep` of traffic, see [`DataSender::release_acknowledged`]), the receiver's
//!   out-of-order buffer (`reorder_capacity_bytes`, frames furthest ahead are dropped and
//!   re-requested later), best-effort reassembly (`reassembly_capacity_bytes`, oldest incomplete
//!   evicted and counted), and the one in-progress reliable message per sender (≤ `max_message`).
//!
//! # Driving it from a shell
//! ```
//! use std::time::{Duration, Instant};
//! use bytes::Bytes;
//! use hlamesh_transport::data::{DataConfig, DataReceiver, DataSender, RecvEvent, Reliability};
//! use hlamesh_transport::{FederationKey, FederationTag, NodeId};
//!
//! let (tag, key, cfg) = (FederationTag(7), FederationKey([9; 32]), DataConfig::default());
//! let mut tx = DataSender::new(NodeId(1), tag, &key, cfg.clone()).unwrap();
//! let mut rx = DataReceiver::new(NodeId(2), tag, &key, cfg).unwrap();
//! rx.add_sender(NodeId(1));
//! let now = Instant::now();
//!
//! // Send: the closure is the socket (`send_to(group)`); it is called once per datagram.
//! let mut wire = Vec::new();
//! tx.send(now, Reliability::Reliable, b"hello", &mut |d: &[u8]| wire.push(Bytes::copy_from_slice(d)))
//!     .unwrap();
//!
//! // Receive: route by tag with `peek`, feed the datagram, then drain events.
//! for d in wire {
//!     assert_eq!(hlamesh_transport::data::peek(&d).unwrap().tag, tag);
//!     rx.on_datagram(now, d);
//! }
//! while let Some(ev) = rx.poll_event() {
//!     match ev {
//!         RecvEvent::Deliver { payload, .. } => assert_eq!(&payload[..], b"hello"),
//!         RecvEvent::SendNack { to, nack } => { /* QUIC to `to`; the reply goes to rx.on_repair */ }
//!         RecvEvent::FellBehind { .. } => { /* state transfer, then rx.start_sender_at(..) */ }
//!         RecvEvent::Skipped { .. } => { /* positions that went to DDM cells not joined */ }
//!     }
//! }
//! // Timers: arm the earliest of rx.poll_timeout() / tx.poll_timeout(); on expiry call
//! // rx.on_timeout(now) / tx.on_timeout(now, &mut send_to_group).
//! let _ = (rx.poll_timeout(), tx.poll_timeout(), Duration::ZERO);
//! ```
//! On the sending node, a [`Nack`] received over QUIC goes to [`DataSender::on_nack`], whose
//! [`Repair`] goes back over QUIC to [`DataReceiver::on_repair`]. A control message sent over
//! QUIC carries `tx.high_water()`; the receiving side parks it in a [`CausalGate`] and calls
//! [`CausalGate::advance`] with `rx.delivered(sender)` after draining receiver events.

pub mod auth;
mod best_effort_window;
pub mod chain;
mod gate;
mod reassembly;
mod receiver;
mod repair;
mod retransmit;
mod sender;
pub mod wire;

use std::time::Duration;

pub use gate::CausalGate;
pub use receiver::{DataReceiver, DropCounts, RecvEvent, RecvStats};
pub use repair::{Nack, Repair};
pub use sender::{DataSender, SendError, SendStats};
pub use wire::{DatagramKind, Header, WireError, peek};

/// How a message is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reliability {
    /// Sequenced; gaps are repaired; delivered exactly once, in order per sender.
    Reliable,
    /// Fire and forget; delivered at most once; loss is counted, not repaired.
    BestEffort,
}

/// A reliable sequence number (per sender per federation, from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Seq(pub u64);

/// An inclusive range of sequence numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SeqRange {
    /// First number in the range.
    pub first: Seq,
    /// Last number in the range (inclusive).
    pub last: Seq,
}

/// Tunables of the data plane; the defaults suit a 1500-byte-MTU IPv4 LAN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataConfig {
    /// Largest UDP payload sent (header, frames and MAC). 1472 = 1500 − 20 (IPv4) − 8 (UDP).
    pub max_datagram: usize,
    /// Largest message accepted by `send` and by reassembly.
    pub max_message: usize,
    /// Retransmit buffer limit in datagram bytes.
    pub retransmit_capacity_bytes: usize,
    /// Retransmit buffer limit in datagrams.
    pub retransmit_capacity_msgs: usize,
    /// Sender: a reliable datagram every receiver has acknowledged is kept at least this long
    /// before its retransmit copy is released (see [`DataSender::release_acknowledged`]).
    pub retransmit_min_keep: Duration,
    /// Receiver: memory for out-of-order reliable frames (all senders together).
    pub reorder_capacity_bytes: usize,
    /// Receiver: memory for incomplete best-effort messages (all senders together).
    pub reassembly_capacity_bytes: usize,
    /// Receiver: an incomplete best-effort message older than this is dropped and counted.
    pub reassembly_timeout: Duration,
    /// Receiver: wait this long after noticing a gap before the first NACK (reordering slack).
    pub nack_delay: Duration,
    /// Receiver: repeat a NACK this often while the gap stays open.
    pub nack_retry: Duration,
    /// Receiver: most ranges in one NACK.
    pub max_nack_ranges: usize,
    /// Sender: most datagram bytes in one repair reply (the rest is asked again by the retry).
    pub max_repair_bytes: usize,
    /// Sender: heartbeat period once something has been sent.
    pub heartbeat_interval: Duration,
    /// Sender: a heartbeat follows this long after the last data datagram of a burst, so that a
    /// lost tail is noticed quickly.
    pub tail_heartbeat_delay: Duration,
    /// Sender: longest a message added with `push` waits in the pending datagram if the shell
    /// does not `flush` first (a safety net; the shell normally flushes at the end of a burst).
    pub max_batch_delay: Duration,
    /// Bytes of every reliable datagram kept free for a chain header
    /// ([`wire::chain_header_max_len`] of the federation's groups; 0 without DDM cell groups):
    /// a reliable message may go to cell groups, or follow one that did, and then carries a
    /// header whose length depends on where the sender's earlier frames went. The positions a
    /// message takes must not depend on that (the layer above numbers its messages by
    /// [`DataConfig::reliable_numbers`] before it knows), so every reliable message is cut as
    /// if it carried the longest header, and no datagram exceeds `max_datagram`: beyond the
    /// path MTU it would be IP-fragmented, and one lost fragment loses the whole datagram.
    pub chain_reserve: usize,
}

impl Default for DataConfig {
    fn default() -> Self {
        DataConfig {
            max_datagram: 1472,
            max_message: 16 << 20,
            retransmit_capacity_bytes: 32 << 20,
            retransmit_capacity_msgs: 65_536,
            retransmit_min_keep: Duration::from_secs(1),
            reorder_capacity_bytes: 32 << 20,
            reassembly_capacity_bytes: 64 << 20,
            reassembly_timeout: Duration::from_secs(2),
            nack_delay: Duration::from_millis(1),
            nack_retry: Duration::from_millis(200),
            max_nack_ranges: 64,
            max_repair_bytes: 4 << 20,
            heartbeat_interval: Duration::from_millis(100),
            tail_heartbeat_delay: Duration::from_millis(2),
            max_batch_delay: Duration::from_millis(1),
            chain_reserve: 0,
        }
    }
}

/// A configuration that cannot work.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// `max_datagram` outside `wire::MIN_DATAGRAM ..= wire::MAX_UDP_PAYLOAD`.
    #[error("max_datagram {0} out of range")]
    MaxDatagram(usize),
    /// `max_message` above u32::MAX (the fragment header's limit).
    #[error("max_message {0} out of range")]
    MaxMessage(usize),
    /// A zero limit where at least one is needed.
    #[error("{0} must be at least 1")]
    Zero(&'static str),
    /// `max_datagram` leaves no room for the chain header of the federation's cell groups.
    #[error(
        "max_datagram {max_datagram} leaves no room for a {chain_reserve}-byte chain header \
         (raise max_datagram or lower max_joined_cells)"
    )]
    ChainReserve {
        /// The configured largest datagram.
        max_datagram: usize,
        /// The chain header reserve.
        chain_reserve: usize,
    },
}

impl DataConfig {
    /// Check the values that would make the protocol misbehave.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(wire::MIN_DATAGRAM..=wire::MAX_UDP_PAYLOAD).contains(&self.max_datagram) {
            return Err(ConfigError::MaxDatagram(self.max_datagram));
        }
        if u32::try_from(self.max_message).is_err() {
            return Err(ConfigError::MaxMessage(self.max_message));
        }
        if self.max_nack_ranges == 0 {
            return Err(ConfigError::Zero("max_nack_ranges"));
        }
        if self.max_repair_bytes < self.max_datagram {
            return Err(ConfigError::Zero("max_repair_bytes (in datagrams)"));
        }
        if self.max_datagram < wire::MIN_DATAGRAM + self.chain_reserve {
            return Err(ConfigError::ChainReserve {
                max_datagram: self.max_datagram,
                chain_reserve: self.chain_reserve,
            });
        }
        Ok(())
    }

    /// Largest payload of a whole-message frame alone in a datagram.
    pub fn max_whole_payload(&self) -> usize {
        (self.max_datagram - wire::HEADER_LEN - wire::MAC_LEN - wire::WHOLE_FRAME_HEADER)
            .min(usize::from(u16::MAX))
    }

    /// Payload carried by each fragment of a large message.
    pub fn fragment_payload(&self) -> usize {
        (self.max_datagram - wire::HEADER_LEN - wire::MAC_LEN - wire::FRAGMENT_FRAME_HEADER)
            .min(usize::from(u16::MAX))
    }

    /// Largest payload of a reliable message sent whole: [`DataConfig::max_whole_payload`]
    /// less the chain reserve.
    pub fn reliable_max_whole(&self) -> usize {
        self.max_whole_payload()
            .saturating_sub(self.chain_reserve)
            .max(1)
    }

    /// Payload carried by each fragment of a large reliable message:
    /// [`DataConfig::fragment_payload`] less the chain reserve.
    pub fn reliable_fragment(&self) -> usize {
        self.fragment_payload()
            .saturating_sub(self.chain_reserve)
            .max(1)
    }

    /// Largest payload of a message of `rel` sent whole.
    pub fn max_whole(&self, rel: Reliability) -> usize {
        match rel {
            Reliability::Reliable => self.reliable_max_whole(),
            Reliability::BestEffort => self.max_whole_payload(),
        }
    }

    /// Payload per fragment of a large message of `rel`.
    pub fn fragment(&self, rel: Reliability) -> usize {
        match rel {
            Reliability::Reliable => self.reliable_fragment(),
            Reliability::BestEffort => self.fragment_payload(),
        }
    }

    /// Reliable sequence numbers a message of `len` bytes takes in the stream: one if it
    /// travels whole, one per fragment otherwise (the number it is delivered under is the last
    /// of them). The rule a layer above numbers its own messages by, so that its numbers are
    /// the transport's (see [`crate::core::channel::Outgoing::number`]). It does not depend on
    /// where the message goes: the chain reserve is kept in every reliable datagram.
    pub fn reliable_numbers(&self, len: usize) -> u64 {
        if len <= self.reliable_max_whole() {
            1
        } else {
            len.div_ceil(self.reliable_fragment()) as u64
        }
    }
}
