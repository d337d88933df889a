//! The transport's sans-I/O core: the protocol decisions of the mesh and the data plane, with no
//! socket, no thread, no lock and no clock of its own — it is given the time with every input.
//!
//! The shape is quinn-proto's: an endpoint-wide part and one part per conversation. The shell
//! ([`crate::node`]) feeds each part what arrived — a data datagram, a frame from a peer, the
//! time — and then polls it for what to do: frames to send, events to hand up, when to call it
//! again. The core never calls the shell back, except through what it is handed with the
//! input: the datagram sink of a send (the socket), the sink of [`Output`]s of the member-frame
//! protocol, and [`ChannelParts`], through which that protocol reaches a federation's parts.
//!
//! - [`Mesh`] ([`mesh`]) — the endpoint-wide part: the table of connected peers with the
//!   federations each has open, the frames held for a peer not connected yet, the dial policy
//!   (the lower id dials, authenticated peers only, within [`crate::dial_limits`]), the refusal
//!   of a hello (version, proof, duplicate) and liveness. Driven by `should_dial(now, ..)`,
//!   `admit`, `register(now, ..)`, `route(now, peer, frame)`, `heard(now, peer)`,
//!   `set_federation` (the `Joined` / `Left` frames), `remove(now, peer)` and
//!   `handle_timeout(now)`.
//! - Per federation, three parts ([`channel`], [`receive`]):
//!   - [`Members`] — the member table (each member with the first sequence number of its stream
//!     received here) and the flow window over the members: `join(now, ..)`, `leave`,
//!     `on_ack(now, ..)`, `on_sent`, `room(now)`, `ack_requests`;
//!   - [`SendSide`] — the [`crate::data::DataSender`] with its [`BatchPolicy`] ([`batch`]):
//!     `send(now, ..)` decides push or send, `joined` says where the stream stands, `on_nack`
//!     answers with a repair, `handle_timeout(now, acknowledged, ..)` flushes, beats and
//!     releases acknowledged copies;
//!   - [`ReceivePath`] — the data receiver, the causal gate of control messages and the
//!     flow-control acknowledgements: `handle_datagram(now, datagram)`, `handle_repair`,
//!     `handle_app`, `handle_ack_request`, `add_member` / `remove_member`,
//!     `handle_timeout(now)`; polled with `poll_output()` and `poll_timeout()`.
//! - The member-frame protocol ([`dispatch`]) over those parts: [`Inbound`] sorts a frame from
//!   a peer, `dispatch::handle_frame(now, parts, peer, frame, out)` handles a [`MemberFrame`]
//!   (`Joined`, `Left`, `KeyRequest`, `AckRequest`, `Ack`, `Nack`, `Repair`, `App`) and says what
//!   to send and hand up; `peer_gone` takes a departed peer out of every federation, `announce`
//!   is the `Joined` a new peer gets, `not_open` answers for a federation not open here.
//!
//! The parts stay separate values rather than one big one because the shell runs them on
//! different threads at once: a federation's sender on the application's thread, its receive
//! path on the data thread (or an application thread lent the socket), frames on the control
//! thread. The shell keeps each part behind its own lock, as quinn keeps each connection, so the
//! send path never waits for the receive path. The protocol reaches them through
//! [`ChannelParts`] and asks for one at a time, never a second inside the first, so the shell's
//! locks are never nested by it; the unit tests and `transport/tests/data_sim.rs` keep the same
//! parts in plain cells and run the same protocol. The core being free of I/O and time is what
//! makes each part testable with frames, datagrams and time alone (see the tests of each module).
//!
//! How the shell drives a part, in every case: take its lock, hand it the input, then execute
//! [`Output`]s until there are none, still under the lock for the receive path (the order of
//! the outputs is the order of delivery, and the event hook sees them under it), then run its
//! timers by `poll_timeout()`. How long the shell's threads wait is decided here
//! too ([`schedule`]: the data thread's receive timeout, and a sender's wait for room in the
//! flow window); the shell only blocks as told. What the shell still decides itself: which
//! thread runs what, and the I/O (sockets, quinn, the order of the handshake steps, the key
//! waiters of `open_federation`).

pub mod batch;
pub mod cells;
pub mod channel;
pub mod dispatch;
mod event;
pub mod hello;
pub mod mesh;
pub mod receive;
pub mod schedule;

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
