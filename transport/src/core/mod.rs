//! The transport's sans-I/O core: the protocol decisions of the mesh and the data plane, with no
//! socket, no thread, no lock and no clock of its own — it is given the time with every input.
//!
//! The shape is quinn-proto's: an endpoint-wide part and one part per conversation. The shell
//! ([`crate::node`]) feeds each part what arrived — a data datagram, a frame from a peer, the
//! time — and then polls it for what to do: frames to send, events to hand up, when to call it
//! again. The core never calls the shell back.
//!
//! - [`Mesh`] ([`mesh`]) — the endpoint-wide part: the table of connected peers with the
//!   federations each has open, the frames held for a peer not connected yet, the dial policy
//!   (the lower id dials, authenticated peers only, within [`crate::dial_limits`]), the refusal
//!   of a hello (version, proof, duplicate) and liveness. Driven by `should_dial(now, ..)`,
//!   `admit`, `register(now, ..)`, `route(now, peer, frame)`, `heard(now, peer)`,
//!   `set_federation` (the `Joined` / `Left` frames), `remove(now, peer)` and
//!   `handle_timeout(now)`.
//! - [`ReceivePath`] ([`receive`]) — one federation's receive path: the data receiver, the causal
//!   gate of control messages and the flow-control acknowledgements. Driven by
//!   `handle_datagram(now, datagram)`, `handle_repair` / `handle_app` / `handle_ack_request`
//!   (the member frames for it), `add_member` / `remove_member`, `handle_timeout(now)`; polled
//!   with `poll_output()` and `poll_timeout()`.
//!
//! - [`BatchPolicy`] ([`batch`]) — one federation's automatic batching: whether a `send` joins
//!   the pending datagram or leaves at once, from the time, what is pending, whether another
//!   node was heard since, and when the data thread wakes. Kept with the federation's sender.
//!
//! The parts stay separate values rather than one big one because the shell runs them on
//! different threads at once: a federation's sender on the application's thread, its receive
//! path on the data thread (or an application thread lent the socket), frames on the control
//! thread. The shell keeps each part behind its own lock, as quinn keeps each connection, so the
//! send path never waits for the receive path; the core being free of I/O and time is what
//! makes each part testable with datagrams and time alone (see the tests of each module).
//!
//! How the shell drives a part, in every case: take its lock, hand it the input, then execute
//! [`Output`]s from `poll_output()` until there are none, still under the lock (the order of
//! the outputs is the order of delivery), then run its timers by `poll_timeout()`.

pub mod batch;
pub mod channel;
pub mod dispatch;
mod event;
pub mod mesh;
pub mod receive;

pub use batch::BatchPolicy;
pub use channel::{ChannelParts, Members, SendSide};
pub use dispatch::{Inbound, MemberFrame};
pub use event::TransportEvent;
pub use mesh::Mesh;
pub use receive::ReceivePath;

use crate::frame::Frame;
use crate::id::NodeId;

/// What a core part asks the shell to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// Send `frame` to peer `to` on its control stream (held until its connection is up, if it
    /// is not yet).
    Transmit {
        /// The peer.
        to: NodeId,
        /// The frame.
        frame: Frame,
    },
    /// Hand an event up to the layer above.
    Event(TransportEvent),
    /// Federation `tag`'s flow window may have opened (an acknowledgement, a member gone):
    /// wake the senders waiting for room.
    FlowOpened {
        /// The federation.
        tag: crate::id::FederationTag,
    },
}
