//! # hlamesh-transport
//!
//! Sockets and wire for hlamesh. What it is:
//! - **discovery** ([`discovery`]): every node announces itself (node id, protocol version, QUIC
//!   address, federations, certificate fingerprint) on a multicast group; a starting node asks for
//!   beacons, which members answer at once (rate-limited); peers that stop announcing expire;
//!   other protocol versions are ignored with one log line. Beacons are authenticated
//!   ([`beacon_auth`]: a MAC under a key derived from the development secret, or a signature
//!   under the node's lab certificate) and a beacon that fails is dropped and counted before
//!   anything in it is acted on; the table and everything it keeps are bounded;
//! - **dial bounds** ([`dial_limits`]): only authenticated peers are dialled, at most 8 at a time
//!   and 20 per second, with an exponential back-off per failed peer; a lost peer is dialled
//!   again only once it is heard again; a failed handshake is closed at once;
//! - a **QUIC mesh** ([`node`], [`security`], [`frame`]): exactly one connection per peer pair, one
//!   ordered control stream, heartbeats, loss detection within the peer timeout, mutual TLS against
//!   a lab CA or a development-mode shared secret; frames are read without trusting their length
//!   prefix ([`frame_reader`]: a few KiB before the peer's `Hello` is checked, buffers grown as
//!   bytes arrive);
//! - a **data plane** ([`data`]): per-federation, sequenced, authenticated UDP multicast with NACK
//!   repair over QUIC, fragmentation, duplicate suppression, in-order delivery, and cross-channel
//!   causality (control messages released only after the data they follow); datagrams sized to
//!   the interface's MTU ([`TransportConfig::resolved_max_datagram`]); the kernel drops a node's
//!   own datagrams before its socket ([`sockets::drop_own_datagrams`]); automatic batching while
//!   a caller streams, and [`FederationChannel::send_held`] for a message that may wait for the
//!   next one's datagram; received datagrams and kept copies come from a [`arena::ByteArena`];
//! - **flow control** ([`flow`]): receivers acknowledge their in-order position every quarter
//!   window, and a sender's application threads wait
//!   ([`FederationChannel::wait_for_room`]) while the slowest live receiver is a window behind,
//!   so a fast sender does not overflow a slow receiver's socket and live on repairs;
//! - **receiving on the waiting thread** ([`recv_role`], [`Transport::receive_here`]): an
//!   application thread that waits for what the data brings (the LRC's `evoke_callback`) reads
//!   the data socket itself meanwhile, which saves a thread wake-up per message;
//! - **metrics** ([`metrics`]): Prometheus families of all of the above, served at `/metrics` when
//!   `metrics_addr` is set; collected from the core's plain counters at scrape time, so the core
//!   stays free of globals. The LRC adds its HLA-level families through the same module.
//!
//! What it is not: it knows nothing of HLA. Membership of federations, handles and time live in
//! `hlamesh-lrc`, which uses [`Transport`] and its [`TransportEvent`] stream.
//!
//! The protocol logic is sans-I/O: the transport's core ([`core`]: the mesh of peers with its dial,
//! refusal and liveness decisions, each federation's receive path and batching policy),
//! [`discovery::PeerTable`] and [`data`]. [`Transport`] ([`node`]) is the tokio/quinn/socket2
//! shell that moves bytes and time into them and executes what they return.
//!
//! ```no_run
//! use hlamesh_transport::{Transport, TransportConfig, KeySource, data::Reliability};
//! let t = Transport::start(TransportConfig::default())?;            // loopback, TTL 0
//! let fed = t.open_federation("Demo", KeySource::Create)?;
//! fed.send(Reliability::Reliable, b"hello")?;
//! while let Ok(ev) = t.events().recv() { println!("{ev:?}"); }
//! # Ok::<(), hlamesh_transport::TransportError>(())
//! ```
#![forbid(unsafe_code)]

pub mod arena;
pub mod beacon_auth;
pub mod certs;
pub mod config;
pub mod core;
pub mod data;
pub mod dial_limits;
pub mod discovery;
pub mod error;
pub mod fault;
pub mod flow;
pub mod frame;
pub mod frame_reader;
pub mod id;
pub mod metrics;
pub mod node;
pub mod recv_buf;
pub mod recv_role;
pub mod security;
pub mod sockets;

pub use config::{FaultSettings, PROTOCOL_VERSION, SecurityConfig, TransportConfig};
pub use error::TransportError;
pub use id::{FederationKey, FederationTag, NodeId};
pub use node::{
    Driver, EventHook, FederationChannel, IdleHook, KeySource, ReceiveHere, ReceiverWaker,
    RoleWait, ShellStats, Transport, TransportEvent, Turn,
};
