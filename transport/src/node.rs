//! The I/O shell: one [`Transport`] per LRC process. It owns the sockets, the clock, the locks
//! and the threads, and moves bytes and time into the sans-I/O parts — the core
//! ([`crate::core`]: the peer mesh; per federation the member table and flow window, the send
//! side with its batching policy, the receive path; the member-frame protocol over them),
//! [`crate::discovery`] and [`crate::data`] — then executes what they return, in order
//! (`Shared::execute`: send a frame, hand an event up, wake senders waiting for room, count).
//!
//! Threads:
//!
//! - the **net thread** (`hlamesh-net`, a one-worker tokio runtime): discovery beacons, the QUIC
//!   endpoint, the hello exchange, one ordered control stream per peer, heartbeats and loss
//!   detection. It takes leaf locks only and hands every frame and departure to
//! - the **control thread** (`hlamesh-control`): each control frame goes through
//!   [`crate::core::dispatch`] (`Inbound::from`, then `handle_frame` on the federation's parts),
//!   a departure through `dispatch::peer_gone`, a new connection through `dispatch::announce`;
//! - the **data thread** (`hlamesh-data`): blocking receive on the multicast data socket (or
//!   the seeded fault layer), each datagram into its federation's receive path, and the
//!   data-plane timers (NACKs, reassembly timeouts, heartbeats, batch flushes, the release of
//!   acknowledged retransmit copies).
//!
//! Receive work that can hand events up runs as a receive turn of the layer above (see
//! [`Driver`] and [`Turn`]): the transport gives the turn to the driver with no lock held, the
//! driver takes its own lock and calls down to run it, and handles the events the turn returns
//! on the same thread (the LRC runs its cores there). Without a driver the events go to the
//! event hook, or the event channel; events of other threads (the QUIC runtime) always go to
//! the channel. The driver's idle call (or the idle hook) follows each unit of work.
//!
//! Each federation's parts are kept behind their own locks ([`crate::core::ChannelParts`] for
//! `FedChannel`): the send side, the receive path, the members and flow window. Sending data
//! happens on the caller's thread (encode + MAC + `sendto`), with no thread hop. An application
//! thread that waits for what the data brings may receive on its own thread too
//! ([`Transport::receive_here`], used by the LRC's evoked callbacks): the data thread lends it
//! the socket and keeps running the data-plane timers.
//!
//! Exactly one QUIC connection per peer pair: only the node with the lower [`NodeId`] dials, so
//! simultaneous dials cannot happen; a duplicate that arrives anyway is refused
//! ([`crate::core::Mesh`] decides both).

use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use bytes::Bytes;
use crossbeam_channel::{Receiver, Sender};
use tokio::sync::{Notify, mpsc, oneshot};

mod goodbye;
mod receive_here;
mod turn;
pub use receive_here::{ReceiveHere, ReceiverWaker, RoleWait};
use turn::Work;
pub use turn::{Driver, Turn};

use crate::config::{PROTOCOL_VERSION, TransportConfig};
pub use crate::core::TransportEvent;
use crate::core::batch::MAX_BATCH_DELAY;
use crate::core::channel::{ChannelParts, Members, Outgoing, SendSide};
use crate::core::dispatch::{self, Inbound};
use crate::core::mesh::{Mesh, Route};
use crate::core::schedule::{
    INITIAL_READ_TIMEOUT, ReadTimeout, RoomStep, RoomWait, busy_sender_deadline, earliest,
};
use crate::core::{Output, ReceivePath};
use crate::data::{self, DataConfig, DataReceiver, DataSender, Reliability, Seq};
use crate::dial_limits::DialOutcome;
use crate::dial_limits::DialStats;
use crate::discovery::{
    Beacon, BeaconSchedule, Claim, ClaimAck, DiscoveryEvent, DiscoveryStats, MAX_ACKS, MAX_CLAIMS,
    PeerInfo, PeerTable, Refusals, Rejection, SolicitSchedule,
};
use crate::error::TransportError;
use crate::fault::{FaultConfig, FaultInjector};
use crate::flow::{FlowConfig, FlowWait, Room};
use crate::frame::{Frame, MAX_FRAME};
use crate::frame_reader::{FrameReader, MAX_HELLO_FRAME, ReadError};
use crate::id::{FederationKey, FederationTag, NodeId};
use crate::metrics::{self as m, SendCounters, ShellCounters};
use crate::recv_buf::RecvBuffer;
use crate::recv_role::DataTurn;
use crate::security::{Role, SERVER_NAME, Security};
use crate::sockets;

/// Counters of the shell (the data plane keeps its own, see [`FederationChannel::stats`]).
#[derive(Debug, Default)]
pub struct ShellStats {
    /// Connections refused (authentication, version, duplicate).
    pub refused: AtomicU64,
    /// Peers reported lost.
    pub lost: AtomicU64,
    /// Data datagrams received on the socket.
    pub datagrams_in: AtomicU64,
    /// Of those, received by an application thread waiting for callbacks
    /// ([`Transport::receive_here`]).
    pub datagrams_in_caller: AtomicU64,
    /// Data datagrams for no open federation (or unparseable header).
    pub datagrams_unrouted: AtomicU64,
    /// Data datagrams sent.
    pub datagrams_out: AtomicU64,
    /// NACKs sent.
    pub nacks_sent: AtomicU64,
    /// NACKs answered.
    pub nacks_served: AtomicU64,
    /// Control frames that did not decode.
    pub bad_frames: AtomicU64,
    /// Control frames refused because their length prefix exceeded the limit (a few KiB before
    /// the peer's `Hello` is checked, see [`crate::frame_reader`]).
    pub oversize_frames: AtomicU64,
}

/// Where a federation's key comes from when its data channel is opened.
#[derive(Clone, Debug)]
pub enum KeySource {
    /// This node creates the federation: a fresh random key.
    Create,
    /// Ask connected peers that are in the federation; fail after the timeout.
    FromPeers(Duration),
    /// A key the caller already has.
    Given(FederationKey),
}

/// How the shell reaches a connected peer: its connection and its writer task's queue (the
/// peer's state and the decisions about it live in the core's [`Mesh`]).
struct PeerLink {
    tx: mpsc::UnboundedSender<Vec<u8>>,
    conn: quinn::Connection,
}

struct FedChannel {
    tag: FederationTag,
    name: String,
    group: SocketAddrV4,
    key: FederationKey,
    /// The data sender and its batching policy (sans-I/O, see [`crate::core::channel`]).
    sender: Mutex<SendSide>,
    /// The receive path (sans-I/O, see [`crate::core::receive`]).
    recv: Mutex<ReceivePath>,
    /// The member table and the flow window (sans-I/O, see [`crate::core::channel`]); its
    /// condvar is `flow.room`.
    members: Mutex<Members>,
    sent: SendCounters,
    /// Datagrams from other nodes received in this federation (counted by the data thread, an
    /// input of the batching decision, see [`crate::core::batch`]).
    heard: AtomicU64,
    flow: Flow,
    /// What the application noted about the federation, announced in the beacons (a leaf
    /// lock; see [`FederationChannel::set_note`]).
    note: Mutex<String>,
}

/// What the shell keeps of a federation's flow control (see [`crate::flow`]) besides the
/// window in [`Members`]: the condvar its senders wait on, and the wait counters.
struct Flow {
    /// `flow_control` is on: sends are counted in the window (without it, this node's senders
    /// never wait and take no lock for it; it still acknowledges what it receives).
    on: bool,
    /// Signalled when an acknowledgement or a departure may have opened room.
    room: Condvar,
    waits: AtomicU64,
    wait_ns: AtomicU64,
}

impl Flow {
    /// A `wait_for_room` call waited `waited`.
    fn count_wait(&self, waited: Duration) {
        self.waits.fetch_add(1, Ordering::Relaxed);
        self.wait_ns
            .fetch_add(waited.as_nanos() as u64, Ordering::Relaxed);
    }
}

impl FedChannel {
    fn flow_stats(&self) -> m::FlowStats {
        m::FlowStats {
            waits: self.flow.waits.load(Ordering::Relaxed),
            wait_ns: self.flow.wait_ns.load(Ordering::Relaxed),
            stalls: if self.flow.on {
                lock(&self.members).stalls()
            } else {
                0
            },
        }
    }
}

/// The shell keeps each part behind its own lock (see `docs/ARCHITECTURE.md`, "Locks"); the
/// member-frame protocol takes one at a time.
impl ChannelParts for FedChannel {
    fn tag(&self) -> FederationTag {
        self.tag
    }
    fn key(&self) -> FederationKey {
        self.key.clone()
    }
    fn members<R>(&self, f: impl FnOnce(&mut Members) -> R) -> R {
        f(&mut lock(&self.members))
    }
    fn receive<R>(&self, f: impl FnOnce(&mut ReceivePath) -> R) -> R {
        f(&mut lock(&self.recv))
    }
    fn sender<R>(&self, f: impl FnOnce(&mut SendSide) -> R) -> R {
        f(&mut lock(&self.sender))
    }
}

struct Shared {
    node: NodeId,
    cfg: TransportConfig,
    interface: Ipv4Addr,
    security: Security,
    quic_addr: SocketAddr,
    epoch: Instant,
    events: Sender<TransportEvent>,
    /// The peer table, held frames, dial and refusal policy, liveness (sans-I/O, see
    /// [`crate::core::mesh`]).
    peers: Mutex<Mesh<PeerLink>>,
    /// Incoming handshakes in progress (bounded by [`MAX_PENDING_ACCEPTS`]).
    pending_accepts: AtomicUsize,
    /// Sequence number of this node's next beacon (replay protection, see [`Beacon::seq`]).
    beacon_seq: AtomicU64,
    federations: RwLock<HashMap<FederationTag, Arc<FedChannel>>>,
    discovery: Mutex<PeerTable>,
    data_send: UdpSocket,
    data_recv: UdpSocket,
    shutdown: AtomicBool,
    stats: ShellStats,
    metrics: ShellCounters,
    key_waiters: Mutex<HashMap<FederationTag, Vec<oneshot::Sender<FederationKey>>>>,
    beacon_now: Notify,
    /// Asks the beacon task for a beacon within `beacon_min_gap` too.
    beacon_urgent: Notify,
    /// Asks the beacon task to multicast a [`Solicit`].
    solicit_now: Notify,
    /// Counts changes of what [`Transport::discovered`] and [`Transport::peers`] show (a beacon
    /// heard for the first time or changed, a peer connected), for
    /// [`Transport::wait_discovery_change`].
    discovery_epoch: Mutex<u64>,
    discovery_cv: Condvar,
    endpoint: quinn::Endpoint,
    control: Sender<ControlWork>,
    /// Federation names this node claims, each with the other claims of that name it
    /// acknowledges (the create race). [`Shared::beacon`] numbers a beacon under this lock.
    claims: Mutex<Vec<(Claim, Vec<ClaimAck>)>>,
    /// The layer above's part of the receive threads (see [`Driver`]); with none, the hooks.
    driver: RwLock<Option<Arc<dyn Driver>>>,
    /// With no driver, the order of receive turns up to the hooks or the event channel (the
    /// hook adapter's own lock: no transport state is behind it, see [`Turn`]).
    turn_order: Mutex<()>,
    hook: RwLock<Option<EventHook>>,
    idle_hook: RwLock<Option<IdleHook>>,
    /// When the data thread will next wake at the latest, ns since `epoch` (its receive timeout).
    data_wake_by_ns: AtomicU64,
    /// Who reads the data socket (see [`Transport::receive_here`]).
    borrowing: receive_here::Borrowing,
}

/// A function that sees every event on the thread that produced it, before the event channel.
/// See [`Transport::set_event_hook`].
pub type EventHook = Arc<dyn Fn(TransportEvent) -> Option<TransportEvent> + Send + Sync>;

thread_local! {
    /// This thread is a receive thread: the data or the control thread, or an application
    /// thread while it borrows the data socket (see [`on_receive_thread`]).
    static RECEIVE_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the calling thread is one of the transport's receive threads (the data and control
/// threads, and a thread receiving through [`Transport::receive_here`]), which must never wait
/// for what another receive turn brings: [`FederationChannel::wait_for_room`] returns at once
/// there. Private to the transport.
pub(crate) fn on_receive_thread() -> bool {
    RECEIVE_THREAD.with(std::cell::Cell::get)
}

/// A function the data and control threads call after each unit of work, with none of the
/// transport's locks held. See [`Transport::set_idle_hook`].
pub type IdleHook = Arc<dyn Fn() + Send + Sync>;

/// Work for the control thread. Frames are handled there, not on the tokio worker, because
/// handling them takes the data plane's locks, which a sender blocked in `sendto` may hold: the
/// runtime that drives QUIC (and with it heartbeats) must never wait on them.
enum ControlWork {
    Frame(NodeId, Frame),
    Gone { node: NodeId, lost: bool },
    Registered(NodeId),
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere must not take the whole transport down with poisoned locks.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    /// Counts a data datagram of `len` bytes read from the socket, by an application thread
    /// waiting for callbacks when `by_caller` (see [`Transport::receive_here`]).
    fn datagram_in(&self, len: usize, by_caller: bool) {
        self.stats.datagrams_in.fetch_add(1, Ordering::Relaxed);
        if by_caller {
            self.stats
                .datagrams_in_caller
                .fetch_add(1, Ordering::Relaxed);
        }
        self.metrics.datagram_in(len);
    }

    /// The flow-control settings of a new federation channel.
    fn flow_config(&self) -> FlowConfig {
        let window_bytes = match self.cfg.flow_window_bytes {
            0 => {
                let granted = socket2::SockRef::from(&self.data_recv)
                    .recv_buffer_size()
                    .unwrap_or(0) as u64;
                (granted / 4).max(64 << 10)
            }
            n => n,
        };
        FlowConfig {
            window_bytes,
            window_messages: self.cfg.flow_window_messages,
            stall_after: self.cfg.flow_stall,
        }
    }

    fn data_config(&self) -> DataConfig {
        DataConfig {
            max_datagram: self.cfg.resolved_max_datagram(self.interface),
            retransmit_capacity_bytes: self.cfg.retransmit_buffer_bytes,
            // The byte budget is the limit that matters; the count only bounds bookkeeping.
            retransmit_capacity_msgs: (self.cfg.retransmit_buffer_bytes / 256).max(1024),
            reassembly_capacity_bytes: self.cfg.reassembly_buffer_bytes,
            max_message: self.cfg.max_message,
            heartbeat_interval: self.cfg.heartbeat_interval,
            max_batch_delay: MAX_BATCH_DELAY,
            ..DataConfig::default()
        }
    }

    fn ns_since_epoch(&self, t: Instant) -> u64 {
        t.saturating_duration_since(self.epoch).as_nanos() as u64
    }

    /// When the data thread wakes next at the latest (`None`: it has not said yet).
    fn data_wake_by(&self) -> Option<Instant> {
        match self.data_wake_by_ns.load(Ordering::Relaxed) {
            u64::MAX => None,
            ns => Some(self.epoch + Duration::from_nanos(ns)),
        }
    }

    /// Runs `f` with a closure that multicasts each datagram on `fed`'s group, and counts them.
    /// Returns `f`'s result and the number of datagrams sent.
    fn emit_data<R>(
        &self,
        fed: &FedChannel,
        f: impl FnOnce(&mut dyn FnMut(&[u8])) -> R,
    ) -> (R, u64) {
        let sock = &self.data_send;
        let group = fed.group;
        let mut io_err = None;
        let mut n = 0u64;
        let r = f(&mut |dgram: &[u8]| {
            n += 1;
            // Counted before it leaves, so that a receiver never sees more than the count says.
            self.stats.datagrams_out.fetch_add(1, Ordering::Relaxed);
            if let Err(e) = sock.send_to(dgram, group) {
                io_err.get_or_insert(e);
            }
        });
        if let Some(e) = io_err {
            // A reliable message stays in the retransmit buffer and will be repaired on NACK;
            // a best-effort one is simply lost, which its contract allows.
            tracing::debug!("multicast send failed: {e}");
        }
        (r, n)
    }

    /// An event that is no receive turn's (the QUIC runtime's, an API call's): to the event
    /// channel, where the layer above reads it on a thread of its own.
    fn emit(&self, ev: TransportEvent) {
        let _ = self.events.send(ev);
    }

    /// Sends `frame` to `node` on its control stream, or holds it, in order, until the peer's
    /// connection is up (see [`Mesh::route`]).
    fn send_frame(&self, node: NodeId, frame: &Frame) -> Result<(), TransportError> {
        self.metrics.frame_out(frame, 1);
        let bytes = frame.encode();
        // Held under the peers lock, as `register` flushes under it: nothing slips between.
        match lock(&self.peers).route(Instant::now(), node, bytes) {
            Ok(Route::Send(link, bytes)) => link
                .tx
                .send(bytes)
                .map_err(|_| TransportError::PeerNotConnected(node)),
            Ok(Route::Held) => Ok(()),
            Err(_) => Err(TransportError::PeerNotConnected(node)),
        }
    }

    fn federation(&self, tag: FederationTag) -> Option<Arc<FedChannel>> {
        self.federations
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&tag)
            .cloned()
    }

    /// Wakes the callers of [`Transport::wait_discovery_change`].
    fn discovery_changed(&self) {
        *lock(&self.discovery_epoch) += 1;
        self.discovery_cv.notify_all();
    }

    fn beacon(&self) -> Beacon {
        let feds = self.federations.read().unwrap_or_else(|e| e.into_inner());
        let mut federations: Vec<String> = feds.values().map(|f| f.name.clone()).collect();
        federations.sort();
        let mut notes: Vec<(String, String)> = feds
            .values()
            .filter_map(|f| {
                let note = lock(&f.note).clone();
                (!note.is_empty()).then(|| (f.name.clone(), note))
            })
            .collect();
        notes.sort();
        // Numbered under the claims' lock: a beacon numbered above what `Transport::set_claim`
        // returned carries that claim (the create race's barrier counts on it).
        let claimed = lock(&self.claims);
        let seq = self.beacon_seq.fetch_add(1, Ordering::Relaxed) + 1;
        let claims = claimed.iter().map(|(c, _)| c.clone()).collect();
        let acks = claimed
            .iter()
            .flat_map(|(_, a)| a.iter().cloned())
            .take(MAX_ACKS)
            .collect();
        drop(claimed);
        Beacon {
            node: self.node,
            quic_addrs: vec![self.quic_addr],
            federations,
            cert_fingerprint: self.security.fingerprint(),
            claims,
            seq,
            notes,
            acks,
        }
    }

    /// Executes one output of the core, for federation `fed` (`None`: one not open here);
    /// events go to `events`, for the receive turn that produced them (see [`Driver`]).
    /// Outputs of a receive path are executed with its lock held, so their order is kept.
    fn execute(&self, fed: Option<&FedChannel>, out: Output, events: &mut Vec<TransportEvent>) {
        match out {
            Output::Transmit { to, frame } => {
                match frame {
                    Frame::Nack { .. } => {
                        self.stats.nacks_sent.fetch_add(1, Ordering::Relaxed);
                    }
                    Frame::Repair { .. } => {
                        self.stats.nacks_served.fetch_add(1, Ordering::Relaxed);
                    }
                    _ => {}
                }
                let _ = self.send_frame(to, &frame);
            }
            Output::Event(ev) => {
                if let TransportEvent::FellBehind {
                    from, first, last, ..
                } = &ev
                {
                    let name = fed.map_or("?", |f| f.name.as_str());
                    tracing::warn!(federation = %name, peer = %from, first, last,
                        "fell behind the sender's retransmit buffer");
                }
                events.push(ev);
            }
            Output::FlowOpened { .. } => {
                if let Some(f) = fed {
                    f.flow.room.notify_all();
                }
            }
        }
    }

    fn feds(&self) -> Vec<Arc<FedChannel>> {
        self.federations
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect()
    }

    /// A peer is gone, cleanly (`lost = false`) or not (a receive turn: see [`Driver`]).
    fn peer_gone(&self, node: NodeId, lost: bool, events: &mut Vec<TransportEvent>) {
        // Not dialled again (gone or lost) before a beacon heard after this moment says it is
        // alive: its last beacon stays in the table until it expires.
        let Some(peer) = lock(&self.peers).remove(Instant::now(), node) else {
            return;
        };
        peer.link.conn.close(CLOSE_BYE.into(), b"bye");
        let feds = self.feds();
        dispatch::peer_gone(feds.iter().map(|f| &**f), node, &mut |fed, o| {
            self.execute(Some(fed), o, events)
        });
        if lost {
            self.stats.lost.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(peer = %node, addr = %peer.addr, "peer lost");
            events.push(TransportEvent::PeerLost { node });
        } else {
            self.metrics.peer_left();
            tracing::info!(peer = %node, "peer left");
            events.push(TransportEvent::PeerLeft { node });
        }
    }

    /// Tells a newly connected peer which federations we have open and where our streams stand.
    fn on_registered(&self, node: NodeId) {
        for f in self.feds() {
            let _ = self.send_frame(node, &dispatch::announce(&*f));
        }
    }

    /// A control frame from `from` (on the control thread): sorted by the core
    /// ([`crate::core::dispatch`]); what can hand events up runs as a receive turn of the
    /// layer above ([`Driver`]), the rest here, its outputs executed at once.
    fn on_frame(self: &Arc<Self>, from: NodeId, frame: Frame) {
        self.metrics.frame_in(&frame);
        let now = Instant::now();
        match Inbound::from(frame) {
            Inbound::Link => {}
            Inbound::Goodbye => self.turn(Work::Gone {
                node: from,
                lost: false,
            }),
            Inbound::Key { tag, key } => {
                if let Some(key) = key
                    && let Some(waiters) = lock(&self.key_waiters).remove(&tag)
                {
                    for w in waiters {
                        let _ = w.send(key.clone());
                    }
                }
            }
            Inbound::Control(payload) => self.turn(Work::Control { from, payload }),
            Inbound::Member { tag, frame } => {
                if let Some(open) = frame.opens() {
                    lock(&self.peers).set_federation(from, tag, open);
                }
                if frame.hands_up() {
                    self.turn(Work::Member {
                        tag,
                        from,
                        frame,
                        now,
                    });
                } else {
                    // An acknowledgement, a NACK or a key request: answers and window moves
                    // only (`MemberFrame::hands_up`), never an event.
                    let mut events = Vec::new();
                    self.member_frame(now, tag, from, frame, &mut events);
                    for ev in events {
                        self.emit(ev);
                    }
                }
            }
        }
    }

    /// Member frame `frame` from `from` for federation `tag`, handled by the core; events to
    /// `events`.
    fn member_frame(
        &self,
        now: Instant,
        tag: FederationTag,
        from: NodeId,
        frame: dispatch::MemberFrame,
        events: &mut Vec<TransportEvent>,
    ) {
        match self.federation(tag) {
            Some(fed) => dispatch::handle_frame(now, &*fed, from, frame, &mut |o| {
                self.execute(Some(&fed), o, events)
            }),
            None => {
                if let Some(o) = dispatch::not_open(tag, from, frame) {
                    self.execute(None, o, events);
                }
            }
        }
    }
}

/// A running transport. Dropping it (or [`Transport::shutdown`]) says goodbye to every peer.
pub struct Transport {
    shared: Arc<Shared>,
    events: Receiver<TransportEvent>,
    runtime: Option<tokio::runtime::Runtime>,
    data_thread: Option<JoinHandle<()>>,
    control_thread: Option<JoinHandle<()>>,
    /// The bound `/metrics` address, if this transport serves one.
    metrics_addr: Option<SocketAddr>,
    /// This transport's metrics collector (every transport has one: a process exports all its
    /// transports through whichever endpoint it serves). Removed on stop.
    collector: Option<m::CollectorGuard>,
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transport")
            .field("node", &self.shared.node)
            .field("quic_addr", &self.shared.quic_addr)
            .finish()
    }
}

/// A federation's data channel on this node: send reliable or best-effort messages on the
/// federation's multicast group from the caller's thread.
#[derive(Clone)]
pub struct FederationChannel {
    fed: Arc<FedChannel>,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for FederationChannel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FederationChannel")
            .field("name", &self.fed.name)
            .field("group", &self.fed.group)
            .finish()
    }
}

impl FederationChannel {
    /// Notes something about the federation for this node's beacons to announce beside its
    /// name ([`crate::discovery::Beacon::notes`]; the LRC notes the logical time
    /// implementation). A changed note goes out with the next beacon, soon.
    pub fn set_note(&self, note: &str) {
        let changed = {
            let mut n = lock(&self.fed.note);
            let changed = *n != note;
            if changed {
                *n = note.to_string();
            }
            changed
        };
        if changed {
            self.shared.beacon_now.notify_one();
        }
    }

    /// The federation's wire tag.
    pub fn tag(&self) -> FederationTag {
        self.fed.tag
    }

    /// The multicast group carrying its data.
    pub fn group(&self) -> SocketAddrV4 {
        self.fed.group
    }

    /// The federation key (to hand to a joining member over an authenticated channel).
    pub fn key(&self) -> &FederationKey {
        &self.fed.key
    }

    /// Sends one message; returns its sequence number if reliable. Runs on the caller's thread.
    ///
    /// Batching is automatic: a message after a pause leaves at once, in its own datagram; while
    /// the caller streams (sends back to back), small messages are packed into a pending datagram
    /// that leaves when full, on [`FederationChannel::flush`], before a control message tagged
    /// with this federation, or at the latest `max_batch_delay` (1 ms) later from the data
    /// thread. [`FederationChannel::set_batching`] turns it off.
    pub fn send(
        &self,
        reliability: Reliability,
        payload: &[u8],
    ) -> Result<Option<u64>, TransportError> {
        self.send_as(reliability, payload, false)
    }

    /// Sends one message that may wait for the next one: it goes into the pending datagram, and
    /// the next message this channel sends, of the same reliability and if it fits, leaves in
    /// the same datagram; the data thread sends it alone `max_batch_delay` (1 ms) later if no
    /// message follows. For a message the receivers gain nothing from before the next one
    /// (the LRC holds a regulating federate's timestamped update for the time-advance request
    /// that follows it). Sent at once, like [`FederationChannel::send`], when batching is off or
    /// when the data thread would not wake in time to send it.
    pub fn send_held(
        &self,
        reliability: Reliability,
        payload: &[u8],
    ) -> Result<Option<u64>, TransportError> {
        self.send_as(reliability, payload, true)
    }

    /// Sends one reliable message the caller numbered itself (`number`: the number the stream
    /// gives it, its last fragment's — see [`crate::data::DataConfig::reliable_numbers`]), like
    /// [`FederationChannel::send`] (or [`FederationChannel::send_held`] with `hold`). Nothing
    /// is sent, and [`crate::data::SendError::OutOfSequence`] returned and counted, if the
    /// stream would number it otherwise: a caller's count never drifts from the stream
    /// unnoticed.
    pub fn send_numbered(
        &self,
        number: u64,
        payload: &[u8],
        hold: bool,
    ) -> Result<u64, TransportError> {
        let seq = self.send_with(Reliability::Reliable, payload, hold, Some(Seq(number)))?;
        Ok(seq.unwrap_or(number))
    }

    /// How this channel numbers reliable messages: (largest payload sent whole, payload per
    /// fragment); see [`crate::data::DataConfig::reliable_numbers`].
    pub fn numbering(&self) -> (usize, usize) {
        let cfg = self.shared.data_config();
        (cfg.max_whole_payload(), cfg.fragment_payload())
    }

    fn send_as(
        &self,
        reliability: Reliability,
        payload: &[u8],
        hold: bool,
    ) -> Result<Option<u64>, TransportError> {
        self.send_with(reliability, payload, hold, None)
    }

    fn send_with(
        &self,
        reliability: Reliability,
        payload: &[u8],
        hold: bool,
        number: Option<Seq>,
    ) -> Result<Option<u64>, TransportError> {
        if payload.len() > self.shared.cfg.max_message {
            return Err(TransportError::MessageTooLarge {
                size: payload.len(),
                max: self.shared.cfg.max_message,
            });
        }
        let now = Instant::now();
        let msg = Outgoing {
            reliability,
            payload,
            hold,
            heard: self.fed.heard.load(Ordering::Relaxed),
            timer_by: self.shared.data_wake_by(),
            number,
        };
        let mut side = lock(&self.fed.sender);
        let (seq, sent) = self
            .shared
            .emit_data(&self.fed, |mut out| side.send(now, msg, &mut out));
        side.sent(now, (sent > 0).then(Instant::now));
        drop(side);
        let seq = seq?;
        if let Some(s) = seq
            && self.fed.flow.on
        {
            lock(&self.fed.members).on_sent(s.0, payload.len());
        }
        self.fed.sent.sent(reliability);
        Ok(seq.map(|s| s.0))
    }

    /// Flow control: whether a reliable message may be sent now without waiting (always, with
    /// flow control off). Cheap: for a check under another lock, before
    /// [`FederationChannel::wait_for_room`].
    pub fn has_room(&self) -> bool {
        !self.fed.flow.on || lock(&self.fed.members).room(Instant::now()) == Room::Open
    }

    /// Flow control: waits while this node's slowest receiver in the federation is more than
    /// the window behind its reliable stream (see [`crate::flow`]). Returns at once when there
    /// is room, when flow control is off, or on the transport's own threads (they must never
    /// wait: acknowledgements arrive through them). Call it with no lock held that a receive
    /// thread may need, before or after a send (`send` itself never waits).
    pub fn wait_for_room(&self) -> FlowWait {
        let flow = &self.fed.flow;
        if !flow.on || on_receive_thread() {
            return FlowWait::Open;
        }
        let start = Instant::now();
        let mut plan = RoomWait::new(start);
        let mut w = lock(&self.fed.members);
        let result = loop {
            let now = Instant::now();
            let room = w.room(now);
            match plan.step(now, room) {
                RoomStep::Done(result) => break result,
                RoomStep::AskForAcks => {
                    drop(w);
                    self.flush();
                    let asks = lock(&self.fed.members).ack_requests();
                    // Frames only: acknowledgement requests hand nothing up.
                    let mut events = Vec::new();
                    for o in asks {
                        self.shared.execute(Some(&self.fed), o, &mut events);
                    }
                    for ev in events {
                        self.shared.emit(ev);
                    }
                    w = lock(&self.fed.members);
                }
                RoomStep::Sleep(dur) => {
                    w = flow
                        .room
                        .wait_timeout(w, dur)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
            }
        };
        drop(w);
        if plan.waited() || result == FlowWait::TimedOut {
            flow.count_wait(start.elapsed());
        }
        result
    }

    /// Sends the pending batch now, if any.
    pub fn flush(&self) {
        let mut side = lock(&self.fed.sender);
        let now = Instant::now();
        self.shared
            .emit_data(&self.fed, |mut out| side.flush(now, &mut out));
    }

    /// Turns automatic batching on (the default) or off (every message in its own datagram at
    /// once, as for measuring the unbatched path). Turning it off flushes the pending batch.
    pub fn set_batching(&self, on: bool) {
        lock(&self.fed.sender).set_batching(on);
        if !on {
            self.flush();
        }
    }

    /// Bytes waiting in the pending batch (0: none).
    pub fn pending_bytes(&self) -> usize {
        lock(&self.fed.sender).pending_bytes()
    }

    /// Whether automatic batching is on.
    pub fn batching(&self) -> bool {
        lock(&self.fed.sender).batching()
    }

    /// The sequence number of the last reliable message sent.
    pub fn high_water(&self) -> u64 {
        lock(&self.fed.sender).high_water()
    }

    /// Peers whose data this node currently accepts in this federation.
    pub fn members(&self) -> Vec<NodeId> {
        lock(&self.fed.members).members()
    }

    /// The first reliable sequence number of member `node`'s stream this node receives, `None`
    /// if `node` is not a member. A peer's stream starts where the peer stood when the two
    /// became channel members (1 if it had sent nothing yet): what it sent before never arrives
    /// here, and the layer above must get that state another way (state transfer).
    pub fn first_seq(&self, node: NodeId) -> Option<u64> {
        lock(&self.fed.members).first_seq(node)
    }

    /// The data plane's receive counters.
    pub fn stats(&self) -> data::RecvStats {
        lock(&self.fed.recv).stats()
    }

    /// Flow-control counters (see [`crate::flow`]).
    pub fn flow_stats(&self) -> crate::metrics::FlowStats {
        self.fed.flow_stats()
    }

    /// The data plane's send counters.
    pub fn send_stats(&self) -> data::SendStats {
        lock(&self.fed.sender).sender().stats()
    }

    /// How many reliable messages from `node` were delivered in order so far.
    pub fn delivered(&self, node: NodeId) -> u64 {
        lock(&self.fed.recv).delivered(node)
    }
}

impl Transport {
    /// Starts the transport: binds the sockets, starts the net and data threads, and begins to
    /// announce this node.
    pub fn start(cfg: TransportConfig) -> Result<Transport, TransportError> {
        cfg.validate()?;
        let _ = rustls::crypto::ring::default_provider().install_default();
        let interface = cfg.resolved_interface()?;
        let security = Security::from_config(&cfg.security, interface)?;
        let beacon_auth = security.beacon_auth()?;
        let node = NodeId::random();
        // Before any thread starts: a busy metrics port fails the start cleanly.
        let metrics_addr = cfg.metrics_addr.map(m::serve).transpose()?;

        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("hlamesh-net")
            .enable_all()
            .build()
            .map_err(TransportError::socket("start tokio runtime"))?;

        // The fixed ports first: the QUIC endpoint's (and the sender's) ephemeral ports are
        // then chosen around them, never on them.
        let disc_sock = sockets::multicast_receiver(cfg.discovery_port, None)?;
        sockets::join(&disc_sock, cfg.discovery_group, interface)?;
        {
            let s = socket2::SockRef::from(&disc_sock);
            s.set_multicast_if_v4(&interface)
                .and_then(|_| s.set_multicast_ttl_v4(cfg.multicast_ttl))
                .and_then(|_| s.set_multicast_loop_v4(true))
                .and_then(|_| s.set_nonblocking(true))
                .map_err(TransportError::socket("configure discovery socket"))?;
        }
        let data_recv = sockets::multicast_receiver(cfg.data_port, Some(INITIAL_READ_TIMEOUT))?;
        let data_send = sockets::multicast_sender(interface, cfg.multicast_ttl)?;
        if let Err(e) = sockets::drop_own_datagrams(&data_recv, &data_send) {
            tracing::debug!("own datagrams will be read back and discarded: {e}");
        }

        // The seeded fault layer lives on the data thread: with it, only that thread receives.
        let lendable = cfg.fault.is_none();
        let idle = cfg.peer_timeout * 3;
        let server = security.server_config(cfg.heartbeat_interval, idle)?;
        let bind = SocketAddr::from((interface, cfg.quic_port));
        let endpoint = {
            let _guard = runtime.enter();
            quinn::Endpoint::server(server, bind).map_err(TransportError::socket(format!(
                "bind QUIC endpoint on {bind}"
            )))?
        };
        let quic_addr = endpoint
            .local_addr()
            .map_err(TransportError::socket("QUIC local address"))?;

        let (tx, rx) = crossbeam_channel::unbounded();
        let (control_tx, control_rx) = crossbeam_channel::unbounded();
        let peer_timeout = cfg.peer_timeout;
        let shared = Arc::new(Shared {
            node,
            interface,
            discovery: Mutex::new(PeerTable::new(node, cfg.beacon_expiry, beacon_auth)),
            cfg,
            security,
            quic_addr,
            epoch: Instant::now(),
            events: tx,
            peers: Mutex::new(Mesh::new(node, peer_timeout)),
            pending_accepts: AtomicUsize::new(0),
            beacon_seq: AtomicU64::new(0),
            federations: RwLock::new(HashMap::new()),
            data_send,
            data_recv,
            shutdown: AtomicBool::new(false),
            stats: ShellStats::default(),
            metrics: ShellCounters::default(),
            key_waiters: Mutex::new(HashMap::new()),
            beacon_now: Notify::new(),
            beacon_urgent: Notify::new(),
            solicit_now: Notify::new(),
            discovery_epoch: Mutex::new(0),
            discovery_cv: Condvar::new(),
            endpoint: endpoint.clone(),
            control: control_tx,
            claims: Mutex::new(Vec::new()),
            driver: RwLock::new(None),
            turn_order: Mutex::new(()),
            hook: RwLock::new(None),
            idle_hook: RwLock::new(None),
            data_wake_by_ns: AtomicU64::new(u64::MAX),
            borrowing: receive_here::Borrowing::new(lendable),
        });
        tracing::info!(%node, %quic_addr, %interface, "transport started");

        {
            let _guard = runtime.enter();
            let disc = tokio::net::UdpSocket::from_std(disc_sock)
                .map_err(TransportError::socket("register discovery socket"))?;
            let disc = Arc::new(disc);
            runtime.spawn(accept_loop(shared.clone(), endpoint));
            runtime.spawn(discovery_loop(shared.clone(), disc.clone()));
            runtime.spawn(beacon_loop(shared.clone(), disc));
            runtime.spawn(liveness_loop(shared.clone()));
        }

        let recv_sock = shared
            .data_recv
            .try_clone()
            .map_err(TransportError::socket("clone data socket"))?;
        let s2 = shared.clone();
        let control_thread = std::thread::Builder::new()
            .name("hlamesh-control".into())
            .spawn(move || control_loop(s2, control_rx))
            .map_err(TransportError::socket("spawn control thread"))?;
        let s2 = shared.clone();
        let data_thread = std::thread::Builder::new()
            .name("hlamesh-data".into())
            .spawn(move || data_loop(s2, recv_sock))
            .map_err(TransportError::socket("spawn data thread"))?;

        if let Some(bound) = metrics_addr {
            tracing::info!(%node, "Prometheus metrics at http://{bound}/metrics");
        }
        let collector = Some(register_metrics(&shared));

        Ok(Transport {
            shared,
            events: rx,
            runtime: Some(runtime),
            data_thread: Some(data_thread),
            control_thread: Some(control_thread),
            metrics_addr,
            collector,
        })
    }

    /// The address `/metrics` is served on, if `metrics_addr` was configured (with the port
    /// actually bound when port 0 was asked for).
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_addr
    }

    /// This node's id.
    pub fn node_id(&self) -> NodeId {
        self.shared.node
    }

    /// The interface address in use.
    pub fn interface(&self) -> Ipv4Addr {
        self.shared.interface
    }

    /// The QUIC endpoint's address.
    pub fn quic_addr(&self) -> SocketAddr {
        self.shared.quic_addr
    }

    /// The event stream (one consumer).
    pub fn events(&self) -> &Receiver<TransportEvent> {
        &self.events
    }

    /// Connected, authenticated peers.
    pub fn peers(&self) -> Vec<NodeId> {
        let mut v: Vec<NodeId> = lock(&self.shared.peers).keys().copied().collect();
        v.sort();
        v
    }

    /// Connected peers with the QUIC round-trip estimate of each (for monitors such as
    /// `hlamesh status`).
    pub fn peer_rtts(&self) -> Vec<(NodeId, Duration)> {
        let mut v: Vec<(NodeId, Duration)> = lock(&self.shared.peers)
            .iter()
            .map(|(n, p)| (*n, p.link.conn.rtt()))
            .collect();
        v.sort();
        v
    }

    /// Open QUIC connections on this node's endpoint (one per peer when all is well).
    pub fn open_connections(&self) -> usize {
        self.shared.endpoint.open_connections()
    }

    /// Peers heard on the discovery group.
    pub fn discovered(&self) -> Vec<PeerInfo> {
        lock(&self.shared.discovery).peers().cloned().collect()
    }

    /// [`Transport::discovered`] and, read with it, the highest number of this node's own
    /// beacons heard back on the multicast loopback (0: none yet): every beacon that reached
    /// this node's discovery socket before that one is in the peers.
    pub fn discovery_snapshot(&self) -> (Vec<PeerInfo>, u64) {
        let d = lock(&self.shared.discovery);
        (d.peers().cloned().collect(), d.own_echo())
    }

    /// Counters of the discovery channel: beacons accepted, and dropped by reason.
    pub fn discovery_stats(&self) -> DiscoveryStats {
        lock(&self.shared.discovery).stats().clone()
    }

    /// Nodes heard within the beacon expiry whose beacons failed authentication (another
    /// development secret or certificate, or forgeries): what explains that nobody answers.
    pub fn refusals(&self) -> Refusals {
        lock(&self.shared.discovery).refusals(Instant::now())
    }

    /// Counters of outgoing dials, and how many are in flight now.
    pub fn dial_stats(&self) -> (DialStats, usize) {
        lock(&self.shared.peers).dial_stats()
    }

    /// Claims a federation name for creation (or updates the claim of that name) with the
    /// other nodes' claims of it that this node acknowledges; announced in its beacons at once
    /// and until withdrawn (the create race of `create_federation_execution`). Returns the
    /// number of the last beacon built before: every beacon numbered above it carries this
    /// claim (compare [`Transport::discovery_snapshot`]'s echo). At most [`MAX_CLAIMS`] names
    /// are claimed at once; a further one is refused.
    pub fn set_claim(&self, claim: Claim, acks: Vec<ClaimAck>) -> Result<u64, TransportError> {
        let mut claims = lock(&self.shared.claims);
        let full = claims.len() >= MAX_CLAIMS;
        match claims.iter_mut().find(|(c, _)| c.name == claim.name) {
            Some(c) => *c = (claim, acks),
            None if full => return Err(TransportError::TooManyClaims(MAX_CLAIMS)),
            None => claims.push((claim, acks)),
        }
        let last = self.shared.beacon_seq.load(Ordering::Relaxed);
        drop(claims);
        self.shared.beacon_now.notify_one();
        Ok(last)
    }

    /// Withdraws this node's claim of federation `name` (announced at once).
    pub fn withdraw_claim(&self, name: &str) {
        lock(&self.shared.claims).retain(|(c, _)| c.name != name);
        self.shared.beacon_now.notify_one();
    }

    /// Installs (or removes) the layer above's [`Driver`]: every receive turn (a datagram, a
    /// due receive timer, a control frame that hands up, a departure) is given to it, with no
    /// transport lock held, on the thread that has the work — the data thread, the control
    /// thread, or a thread in [`Transport::receive_here`] — and it runs the turn under its own
    /// lock (see [`Turn`]). This is how the LRC runs its cores, and delivers immediate
    /// callbacks, on the receive threads with no thread hand-off (≈13 µs each on a 2-vCPU
    /// machine). While a driver is installed the event and idle hooks are not called.
    pub fn set_driver(&self, driver: Option<Arc<dyn Driver>>) {
        *self
            .shared
            .driver
            .write()
            .unwrap_or_else(|e| e.into_inner()) = driver;
    }

    /// Installs (or removes) a hook that sees each event of a receive turn — on the data
    /// thread for data, the control thread for control messages and peer events, a thread in
    /// [`Transport::receive_here`] for what it receives — on that thread, before the event
    /// channel, with no transport lock held; the idle hook runs on the same thread before it
    /// waits again. Events emitted elsewhere (the QUIC runtime, API calls) go to the channel.
    /// Returning `None` consumes the event; `Some` passes it on. Used when no [`Driver`] is
    /// installed (transport-level tools and benchmarks): the transport then drives its receive
    /// turns itself, one at a time, so the hook sees every federation's events in order and is
    /// never called twice at once; it must not block for long (a receive thread waits for it).
    pub fn set_event_hook(&self, hook: Option<EventHook>) {
        *self.shared.hook.write().unwrap_or_else(|e| e.into_inner()) = hook;
    }

    /// Installs (or removes) a hook that the data thread calls once per turn of its loop (after
    /// each datagram it received and its timers) and the control thread after each frame or
    /// peer event, with none of the transport's locks held (without a [`Driver`]; a driver's
    /// own [`Driver::idle`] runs instead).
    pub fn set_idle_hook(&self, hook: Option<IdleHook>) {
        *self
            .shared
            .idle_hook
            .write()
            .unwrap_or_else(|e| e.into_inner()) = hook;
    }

    /// Sends a beacon now (e.g. after opening a federation) instead of at the next period (at
    /// most one per `beacon_min_gap`).
    pub fn announce_now(&self) {
        self.shared.beacon_now.notify_one();
    }

    /// Sends a beacon at once, even within `beacon_min_gap` of the previous one: for this node's
    /// own, seldom changes that others wait for (the LRC calls it when it has opened a
    /// federation it created, so that joiners hear of it at once).
    pub fn announce_urgently(&self) {
        self.shared.beacon_urgent.notify_one();
    }

    /// Multicasts a query for beacons: every node that hears it answers with its beacon at once
    /// (within its `beacon_min_gap`) instead of at its next period, so [`Transport::discovered`]
    /// fills within a round trip. The transport already asks when it starts; call this when the
    /// discovery table must be current now. Queries are at most one per `beacon_min_gap`.
    pub fn solicit_beacons(&self) {
        self.shared.solicit_now.notify_one();
    }

    /// A counter of changes to [`Transport::discovered`] (a node heard for the first time, a
    /// changed beacon) and [`Transport::peers`] (a peer connected); see
    /// [`Transport::wait_discovery_change`].
    pub fn discovery_epoch(&self) -> u64 {
        *lock(&self.shared.discovery_epoch)
    }

    /// Blocks until the [`Transport::discovery_epoch`] differs from `seen`, or `timeout` passed;
    /// returns the epoch then. A caller waiting for a peer reads the epoch, checks
    /// `discovered()` / `peers()`, and waits here with the epoch it read instead of sleeping: a
    /// change between its check and its wait returns at once.
    pub fn wait_discovery_change(&self, seen: u64, timeout: Duration) -> u64 {
        let epoch = lock(&self.shared.discovery_epoch);
        let (epoch, _) = self
            .shared
            .discovery_cv
            .wait_timeout_while(epoch, timeout, |e| *e == seen)
            .unwrap_or_else(|e| e.into_inner());
        *epoch
    }

    /// Shell counters.
    pub fn stats(&self) -> &ShellStats {
        &self.shared.stats
    }

    /// Opens the data channel of federation `name`: joins its multicast group, obtains its key,
    /// and tells connected peers, which then accept this node's data (and answer with their own
    /// stream positions).
    pub fn open_federation(
        &self,
        name: &str,
        key: KeySource,
    ) -> Result<FederationChannel, TransportError> {
        let tag = FederationTag::from_name(name);
        if let Some(fed) = self.shared.federation(tag) {
            return Ok(FederationChannel {
                fed,
                shared: self.shared.clone(),
            });
        }
        let key = match key {
            KeySource::Create => FederationKey::random(),
            KeySource::Given(k) => k,
            KeySource::FromPeers(timeout) => self.fetch_key(tag, timeout)?,
        };
        let group_ip = self.shared.cfg.data_group_for(tag);
        sockets::join(&self.shared.data_recv, group_ip, self.shared.interface)?;
        let dcfg = self.shared.data_config();
        let sender = DataSender::new(self.shared.node, tag, &key, dcfg.clone())?;
        let receiver = DataReceiver::new(self.shared.node, tag, &key, dcfg)?;
        let flow_on = self.shared.cfg.flow_control;
        let members = Members::new(tag, self.shared.flow_config(), flow_on);
        let fed = Arc::new(FedChannel {
            tag,
            name: name.to_string(),
            group: SocketAddrV4::new(group_ip, self.shared.cfg.data_port),
            sender: Mutex::new(SendSide::new(sender)),
            recv: Mutex::new(ReceivePath::new(receiver, members.ack_policy())),
            key,
            members: Mutex::new(members),
            sent: SendCounters::default(),
            heard: AtomicU64::new(0),
            flow: Flow {
                on: flow_on,
                room: Condvar::new(),
                waits: AtomicU64::new(0),
                wait_ns: AtomicU64::new(0),
            },
            note: Mutex::new(String::new()),
        });
        self.shared
            .federations
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(tag, fed.clone());
        let hello = dispatch::announce(&*fed);
        let peers: Vec<NodeId> = lock(&self.shared.peers).keys().copied().collect();
        for p in peers {
            let _ = self.shared.send_frame(p, &hello);
        }
        self.shared.beacon_now.notify_one();
        tracing::info!(federation = name, group = %fed.group, "federation data channel open");
        Ok(FederationChannel {
            fed,
            shared: self.shared.clone(),
        })
    }

    fn fetch_key(
        &self,
        tag: FederationTag,
        timeout: Duration,
    ) -> Result<FederationKey, TransportError> {
        let (tx, rx) = oneshot::channel();
        lock(&self.shared.key_waiters)
            .entry(tag)
            .or_default()
            .push(tx);
        let peers: Vec<NodeId> = lock(&self.shared.peers).keys().copied().collect();
        for p in peers {
            let _ = self.shared.send_frame(p, &Frame::KeyRequest { tag });
        }
        let rt = self.runtime.as_ref().ok_or(TransportError::Shutdown)?;
        rt.block_on(async { tokio::time::timeout(timeout, rx).await })
            .ok()
            .and_then(|r| r.ok())
            .ok_or(TransportError::FederationKeyUnavailable(tag))
    }

    /// Closes a federation's data channel on this node.
    pub fn close_federation(&self, tag: FederationTag) {
        let fed = self
            .shared
            .federations
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&tag);
        if let Some(fed) = fed {
            let _ = sockets::leave(
                &self.shared.data_recv,
                *fed.group.ip(),
                self.shared.interface,
            );
            let peers: Vec<NodeId> = lock(&self.shared.peers).keys().copied().collect();
            for p in peers {
                let _ = self.shared.send_frame(p, &Frame::Left { tag });
            }
            self.shared.beacon_now.notify_one();
        }
    }

    /// Sends a control message to one peer over QUIC. With `tag`, the receiver releases it only
    /// after it delivered this node's data in that federation up to the current high-water mark.
    pub fn send_control(
        &self,
        peer: NodeId,
        tag: Option<FederationTag>,
        payload: &[u8],
    ) -> Result<(), TransportError> {
        let hw = self.high_water(tag)?;
        self.shared.send_frame(
            peer,
            &Frame::App {
                tag,
                hw,
                payload: payload.to_vec(),
            },
        )
    }

    /// Sends a control message to every connected peer (in `tag`'s federation if given); returns
    /// how many peers it went to.
    pub fn broadcast_control(
        &self,
        tag: Option<FederationTag>,
        payload: &[u8],
    ) -> Result<usize, TransportError> {
        let hw = self.high_water(tag)?;
        let frame = Frame::App {
            tag,
            hw,
            payload: payload.to_vec(),
        };
        let bytes = frame.encode();
        let peers = lock(&self.shared.peers);
        let mut n = 0;
        for link in peers.in_federation(tag) {
            if link.tx.send(bytes.clone()).is_ok() {
                n += 1;
            }
        }
        self.shared.metrics.frame_out(&frame, n as u64);
        Ok(n)
    }

    fn high_water(&self, tag: Option<FederationTag>) -> Result<u64, TransportError> {
        match tag {
            None => Ok(0),
            Some(t) => {
                let fed = self
                    .shared
                    .federation(t)
                    .ok_or(TransportError::FederationNotOpen(t))?;
                // Flush before tagging: a pending batch holds numbers up to the high-water, and
                // the receiver must be able to get them before it releases the control message.
                let mut side = lock(&fed.sender);
                let now = Instant::now();
                self.shared
                    .emit_data(&fed, |mut out| side.flush(now, &mut out));
                Ok(side.high_water())
            }
        }
    }

    /// Says goodbye to every peer ([`Transport::leave`]) and stops. Also done on drop.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        // Goodbyes first, acknowledged or timed out ([`goodbye`]); idempotent.
        self.leave();
        // Stop exporting (and take this transport's share of the gauges back).
        self.collector = None;
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_timeout(Duration::from_millis(200));
        }
        // A driver or hook may drop the last handle on the transport on the data or control thread
        // itself: that thread ends on the shutdown flag, it cannot wait for itself.
        self.shared.borrowing.disable();
        let me = std::thread::current().id();
        if let Some(t) = self.data_thread.take().filter(|t| t.thread().id() != me) {
            t.thread().unpark();
            let _ = t.join();
        }
        // Wakes the control thread so it sees the shutdown flag.
        let _ = self
            .shared
            .control
            .send(ControlWork::Registered(self.shared.node));
        if let Some(t) = self.control_thread.take().filter(|t| t.thread().id() != me) {
            let _ = t.join();
        }
    }
}

impl Drop for Transport {
    fn drop(&mut self) {
        self.stop();
    }
}

// ---------------------------------------------------------------------------------------------
// metrics

/// Registers the collector that copies this transport's counters into the global series at every
/// scrape. It holds the transport weakly: a transport that is gone exports nothing.
fn register_metrics(shared: &Arc<Shared>) -> m::CollectorGuard {
    let weak = Arc::downgrade(shared);
    let exporter = Mutex::new(m::Exporter::default());
    m::register_collector(Arc::new(move || {
        if let Some(shared) = weak.upgrade() {
            let sample = shared.metrics_sample();
            lock(&exporter).export(sample);
        }
    }))
}

impl Shared {
    fn metrics_sample(&self) -> m::TransportSample {
        let mut s = m::TransportSample {
            datagrams_in: self.stats.datagrams_in.load(Ordering::Relaxed),
            datagrams_in_caller: self.stats.datagrams_in_caller.load(Ordering::Relaxed),
            unrouted: self.stats.datagrams_unrouted.load(Ordering::Relaxed),
            lost: self.stats.lost.load(Ordering::Relaxed),
            refused: self.stats.refused.load(Ordering::Relaxed),
            oversize_frames: self.stats.oversize_frames.load(Ordering::Relaxed),
            event_queue: self.events.len(),
            ..Default::default()
        };
        {
            let d = lock(&self.discovery);
            let st = d.stats();
            s.beacons_accepted = st.beacons;
            s.solicits_refused = st.solicits_refused;
            s.beacons_rejected = Rejection::ALL
                .iter()
                .map(|r| (r.label(), st.rejected(*r)))
                .collect();
        }
        let (dials, _) = lock(&self.peers).dial_stats();
        s.dials = vec![
            ("connected", dials.connected),
            ("refused", dials.refused),
            ("unreachable", dials.unreachable),
            ("deferred", dials.deferred),
        ];
        self.metrics.sample_into(&mut s);
        s.peers = lock(&self.peers)
            .iter()
            .map(|(node, p)| m::PeerSample {
                node: *node,
                rtt: p.link.conn.rtt(),
                lost_packets: p.link.conn.stats().path.lost_packets,
            })
            .collect();
        let feds: Vec<Arc<FedChannel>> = self
            .federations
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect();
        s.federations = feds
            .iter()
            .map(|f| m::FederationSample {
                name: f.name.clone(),
                recv: lock(&f.recv).stats(),
                send: lock(&f.sender).sender().stats(),
                sent: f.sent.totals(),
                flow: f.flow_stats(),
            })
            .collect();
        s
    }
}

// ---------------------------------------------------------------------------------------------
// net thread tasks

/// Most incoming handshakes in progress at once; further ones are ignored (the peer retries
/// with its next dial). Each holds a QUIC connection's state for up to `HANDSHAKE_TIMEOUT`.
pub const MAX_PENDING_ACCEPTS: usize = 32;
/// Longest a handshake (dial or accept, including the hello exchange) may take.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(3);
/// QUIC application close code of a clean close (shutdown, goodbye, a peer removed).
const CLOSE_BYE: u32 = 0;
/// QUIC application close code of a refused connection.
const CLOSE_REFUSED: u32 = 1;

async fn accept_loop(shared: Arc<Shared>, endpoint: quinn::Endpoint) {
    while let Some(incoming) = endpoint.accept().await {
        if shared.pending_accepts.fetch_add(1, Ordering::AcqRel) >= MAX_PENDING_ACCEPTS {
            shared.pending_accepts.fetch_sub(1, Ordering::AcqRel);
            tracing::debug!(addr = %incoming.remote_address(), "too many handshakes in progress");
            incoming.ignore();
            continue;
        }
        let shared = shared.clone();
        tokio::spawn(async move {
            let addr = incoming.remote_address();
            let r = tokio::time::timeout(HANDSHAKE_TIMEOUT, accept_one(&shared, incoming)).await;
            shared.pending_accepts.fetch_sub(1, Ordering::AcqRel);
            match r {
                Ok(Ok(())) => {}
                Ok(Err(HandshakeError::Refused(reason))) => refuse(&shared, addr, reason),
                Ok(Err(HandshakeError::Unreachable(reason))) => {
                    tracing::debug!(%addr, "incoming connection broke off: {reason}");
                }
                Err(_) => tracing::debug!(%addr, "incoming handshake timed out"),
            }
        });
    }
}

/// Why a handshake failed: a refusal (authentication, version, duplicate) is worth a warning;
/// a peer that does not answer (it died, or it is not there) is not a refusal.
#[derive(Debug)]
enum HandshakeError {
    Refused(String),
    Unreachable(String),
}

impl From<String> for HandshakeError {
    /// Stream and framing errors during the hello exchange: the connection broke.
    fn from(s: String) -> Self {
        HandshakeError::Unreachable(s)
    }
}

/// Classifies a QUIC connection error of a handshake.
fn handshake_error(what: &str, e: quinn::ConnectionError) -> HandshakeError {
    use quinn::ConnectionError as C;
    let text = format!("{what}: {e}");
    match e {
        // The peer or our verifier rejected the other's certificate, or the peer closed it as
        // refused.
        C::TransportError(_) | C::ConnectionClosed(_) | C::VersionMismatch => {
            HandshakeError::Refused(text)
        }
        C::ApplicationClosed(ref c) if c.error_code == quinn::VarInt::from_u32(CLOSE_REFUSED) => {
            HandshakeError::Refused(text)
        }
        _ => HandshakeError::Unreachable(text),
    }
}

fn refuse(shared: &Shared, addr: SocketAddr, reason: String) {
    if shared.shutdown.load(Ordering::Relaxed) {
        return;
    }
    shared.stats.refused.fetch_add(1, Ordering::Relaxed);
    tracing::warn!(%addr, "peer refused: {reason}");
    shared.emit(TransportEvent::PeerRefused { addr, reason });
}

/// Reads one frame of at most `limit` bytes; a prefix over it is counted
/// ([`ShellStats::oversize_frames`]).
async fn read_frame(
    shared: &Shared,
    reader: &mut FrameReader,
    recv: &mut quinn::RecvStream,
    limit: usize,
) -> Result<Frame, ReadError> {
    let r = reader.read(recv, limit).await;
    if let Err(ReadError::TooLarge { .. }) = &r {
        shared.stats.oversize_frames.fetch_add(1, Ordering::Relaxed);
    }
    r
}

impl From<ReadError> for HandshakeError {
    /// A stream that ended is a connection that broke; a frame over the limit or one that does
    /// not decode is the peer's doing.
    fn from(e: ReadError) -> Self {
        match e {
            ReadError::Stream(s) => HandshakeError::Unreachable(s),
            e => HandshakeError::Refused(e.to_string()),
        }
    }
}

async fn accept_one(shared: &Arc<Shared>, incoming: quinn::Incoming) -> Result<(), HandshakeError> {
    let conn = incoming
        .await
        .map_err(|e| handshake_error("TLS handshake failed", e))?;
    // A failure from here on closes the connection at once, as refused.
    let guard = CloseOnDrop(Some(conn.clone()));
    let (mut send, mut recv) = conn.accept_bi().await.map_err(|e| e.to_string())?;
    // The peer is not authenticated before its Hello is checked: a small frame limit.
    let Frame::Hello {
        node,
        version,
        proof,
    } = read_frame(shared, &mut FrameReader::new(), &mut recv, MAX_HELLO_FRAME).await?
    else {
        return Err(HandshakeError::Refused("first frame was not Hello".into()));
    };
    let proof_ok = version == PROTOCOL_VERSION
        && shared
            .security
            .verify_proof(&conn, Role::Dialer, node, proof.as_ref());
    let refusal = lock(&shared.peers).admit(node, version, proof_ok).err();
    if let Some(reason) = refusal.map(|r| r.to_string()) {
        let _ = send_all(
            &mut send,
            &Frame::Refused {
                reason: reason.clone(),
            },
        )
        .await;
        let _ = send.finish();
        // Let the refusal reach the peer before the close overtakes it.
        tokio::time::sleep(Duration::from_millis(50)).await;
        conn.close(CLOSE_REFUSED.into(), b"refused");
        return Err(HandshakeError::Refused(reason));
    }
    let ack = Frame::HelloAck {
        node: shared.node,
        proof: shared.security.proof(&conn, Role::Acceptor, shared.node),
    };
    send_all(&mut send, &ack).await?;
    guard.disarm();
    register(shared, node, conn, send, recv);
    Ok(())
}

async fn send_all(send: &mut quinn::SendStream, frame: &Frame) -> Result<(), String> {
    send.write_all(&frame.encode())
        .await
        .map_err(|e| e.to_string())
}

async fn dial(shared: Arc<Shared>, info: PeerInfo) {
    let node = info.beacon.node;
    let result = async {
        let addr = *info
            .beacon
            .quic_addrs
            .first()
            .ok_or_else(|| HandshakeError::Refused("beacon has no QUIC address".into()))?;
        let idle = shared.cfg.peer_timeout * 3;
        let client = shared
            .security
            .client_config(
                info.beacon.cert_fingerprint,
                shared.cfg.heartbeat_interval,
                idle,
            )
            .map_err(|e| HandshakeError::Refused(e.to_string()))?;
        let connecting = shared
            .endpoint
            .connect_with(client, addr, SERVER_NAME)
            .map_err(|e| HandshakeError::Unreachable(e.to_string()))?;
        let conn = connecting
            .await
            .map_err(|e| handshake_error(&format!("TLS handshake with {addr} failed"), e))?;
        // Whatever happens from here on, a failure closes the connection at once: its state is
        // given back now, not at the idle timeout.
        let guard = CloseOnDrop(Some(conn.clone()));
        let (mut send, mut recv) = conn.open_bi().await.map_err(|e| e.to_string())?;
        let hello = Frame::Hello {
            node: shared.node,
            version: PROTOCOL_VERSION,
            proof: shared.security.proof(&conn, Role::Dialer, shared.node),
        };
        send_all(&mut send, &hello).await?;
        let answer =
            read_frame(&shared, &mut FrameReader::new(), &mut recv, MAX_HELLO_FRAME).await?;
        match answer {
            Frame::HelloAck { node: n, proof } if n == node => {
                if !shared
                    .security
                    .verify_proof(&conn, Role::Acceptor, node, proof.as_ref())
                {
                    conn.close(CLOSE_REFUSED.into(), b"refused");
                    return Err(HandshakeError::Refused(format!(
                        "node {node} did not prove the federation secret"
                    )));
                }
                guard.disarm();
                register(&shared, node, conn, send, recv);
                Ok(())
            }
            Frame::Refused { reason } => Err(HandshakeError::Refused(format!(
                "refused by {node}: {reason}"
            ))),
            other => Err(HandshakeError::Refused(format!(
                "unexpected answer to Hello: {other:?}"
            ))),
        }
    };
    let addr = info.source;
    // On timeout the future is dropped, and with it the connection attempt (quinn closes a
    // connection whose last handle is gone).
    let outcome = match tokio::time::timeout(HANDSHAKE_TIMEOUT, result).await {
        Ok(Ok(())) => DialOutcome::Connected,
        Ok(Err(HandshakeError::Refused(reason))) => {
            refuse(&shared, addr, reason);
            DialOutcome::Refused
        }
        Ok(Err(HandshakeError::Unreachable(reason))) => {
            if !shared.shutdown.load(Ordering::Relaxed) {
                tracing::info!(peer = %node, %addr, "peer unreachable: {reason}");
            }
            DialOutcome::Unreachable
        }
        Err(_) => {
            if !shared.shutdown.load(Ordering::Relaxed) {
                tracing::info!(peer = %node, %addr, "peer unreachable: dialling timed out");
            }
            DialOutcome::Unreachable
        }
    };
    lock(&shared.peers).dial_finished(Instant::now(), node, outcome);
}

/// Whether the peer closed the connection on purpose (shut down or said goodbye), as opposed to
/// a timeout or a reset.
fn closed_cleanly(conn: &quinn::Connection) -> bool {
    matches!(
        conn.close_reason(),
        Some(quinn::ConnectionError::ApplicationClosed(c))
            if c.error_code == quinn::VarInt::from_u32(CLOSE_BYE)
    )
}

/// Closes a connection when dropped, unless disarmed (the handshake succeeded).
struct CloseOnDrop(Option<quinn::Connection>);

impl CloseOnDrop {
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        if let Some(c) = self.0.take() {
            c.close(CLOSE_REFUSED.into(), b"handshake failed");
        }
    }
}

fn register(
    shared: &Arc<Shared>,
    node: NodeId,
    conn: quinn::Connection,
    mut send: quinn::SendStream,
    mut recv: quinn::RecvStream,
) {
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let addr = conn.remote_address();
    {
        let mut peers = lock(&shared.peers);
        let link = PeerLink {
            tx: tx.clone(),
            conn: conn.clone(),
        };
        let Ok(held) = peers.register(Instant::now(), node, addr, link) else {
            conn.close(CLOSE_REFUSED.into(), b"duplicate");
            return;
        };
        // Under the peers lock, so no new frame can overtake the held ones.
        for f in held {
            let _ = tx.send(f);
        }
    }
    // Writer: frames from the channel, heartbeats when idle.
    let hb = shared.cfg.heartbeat_interval;
    let s1 = shared.clone();
    tokio::spawn(async move {
        let heartbeat = Frame::Heartbeat.encode();
        let mut tick = tokio::time::interval(hb);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                msg = rx.recv() => match msg {
                    Some(bytes) => if send.write_all(&bytes).await.is_err() { break },
                    None => break,
                },
                _ = tick.tick() => {
                    s1.metrics.heartbeat_out();
                    if send.write_all(&heartbeat).await.is_err() { break }
                }
            }
        }
    });
    // Reader.
    let s2 = shared.clone();
    let reader_conn = conn.clone();
    tokio::spawn(async move {
        let mut reader = FrameReader::new();
        loop {
            match read_frame(&s2, &mut reader, &mut recv, MAX_FRAME).await {
                Ok(frame) => {
                    lock(&s2.peers).heard(Instant::now(), node);
                    let _ = s2.control.send(ControlWork::Frame(node, frame));
                }
                Err(e) => {
                    tracing::debug!(peer = %node, "control stream ended: {e}");
                    if !s2.shutdown.load(Ordering::Relaxed) {
                        // A peer that closed its connection on purpose (it shut down, and its
                        // close overtook its goodbye frame) left; anything else is a loss.
                        let lost = !closed_cleanly(&reader_conn);
                        let _ = s2.control.send(ControlWork::Gone { node, lost });
                    }
                    break;
                }
            }
        }
    });
    let _ = shared.control.send(ControlWork::Registered(node));
    tracing::info!(peer = %node, %addr, "peer connected");
    // The event before the change signal: a thread woken by the change finds it queued.
    shared.emit(TransportEvent::PeerConnected { node, addr });
    shared.discovery_changed();
}

async fn discovery_loop(shared: Arc<Shared>, sock: Arc<tokio::net::UdpSocket>) {
    let mut buf = vec![0u8; 65_536];
    loop {
        let Ok((n, src)) = sock.recv_from(&mut buf).await else {
            if shared.shutdown.load(Ordering::Relaxed) {
                return;
            }
            continue;
        };
        let ev = lock(&shared.discovery).on_datagram(Instant::now(), src, &buf[..n]);
        match ev {
            Some(DiscoveryEvent::Discovered(node)) => {
                // Answer at once so the newcomer learns of us without waiting a beacon period.
                shared.beacon_now.notify_one();
                shared.discovery_changed();
                maybe_dial(&shared, node);
            }
            Some(DiscoveryEvent::Changed(node)) => {
                shared.discovery_changed();
                maybe_dial(&shared, node);
            }
            Some(DiscoveryEvent::Solicited(_)) => shared.beacon_now.notify_one(),
            // A create race may wait for its barrier beacon.
            Some(DiscoveryEvent::Echo(_)) => shared.discovery_changed(),
            Some(DiscoveryEvent::IncompatibleVersion { node, version }) => {
                tracing::warn!(
                    peer = %node, %src, version,
                    "ignoring node speaking protocol version {version} (we speak {PROTOCOL_VERSION})"
                );
            }
            Some(DiscoveryEvent::Refused { node, reason }) => {
                // Once per node while remembered (bounded): a flood is counted, not logged.
                tracing::warn!(
                    peer = %node, %src,
                    "ignoring beacons that fail authentication ({reason}): wrong development \
                     secret or certificate, or forged"
                );
            }
            None => {}
        }
    }
}

/// Dials `node` if this node is the one to dial it (the lower id), it is not connected, and the
/// dial bounds allow it now ([`crate::dial_limits`]); otherwise a later beacon retries.
fn maybe_dial(shared: &Arc<Shared>, node: NodeId) {
    if node <= shared.node || shared.shutdown.load(Ordering::Relaxed) {
        return; // the lower id dials (the core decides it too; this spares the lookup)
    }
    // Only authenticated beacons are in the table.
    let Some(info) = lock(&shared.discovery).get(node).cloned() else {
        return;
    };
    if lock(&shared.peers).should_dial(Instant::now(), node, Some(info.last_heard)) {
        tokio::spawn(dial(shared.clone(), info));
    }
}

/// Repeats of the start's query while nobody has been heard.
const START_SOLICIT_REPEATS: u32 = 2;

async fn beacon_loop(shared: Arc<Shared>, sock: Arc<tokio::net::UdpSocket>) {
    let dest = SocketAddr::from((shared.cfg.discovery_group, shared.cfg.discovery_port));
    let gap = shared.cfg.beacon_min_gap;
    let start = Instant::now();
    let mut beacons = BeaconSchedule::new(start, shared.cfg.beacon_interval, gap);
    // The first query goes out at start, before the first beacon: members answer at once instead
    // of at their next period.
    let mut solicits = SolicitSchedule::new(start, gap, START_SOLICIT_REPEATS);
    loop {
        let due = solicits
            .due()
            .map_or(beacons.due(), |q| q.min(beacons.due()));
        tokio::select! {
            _ = tokio::time::sleep_until(due.into()) => {}
            _ = shared.beacon_now.notified() => beacons.request(),
            _ = shared.beacon_urgent.notified() => beacons.request_urgent(),
            _ = shared.solicit_now.notified() => solicits.request(Instant::now()),
        }
        if shared.shutdown.load(Ordering::Relaxed) {
            return;
        }
        let now = Instant::now();
        let alone = lock(&shared.discovery).peers().next().is_none();
        if solicits.fire(now, alone) {
            let query = lock(&shared.discovery).seal_solicit();
            let _ = sock.send_to(&query, dest).await;
        }
        if beacons.due() > now {
            continue;
        }
        let beacon = shared.beacon();
        let sealed = lock(&shared.discovery).seal(&beacon);
        let _ = sock.send_to(&sealed, dest).await;
        beacons.sent(now);
        let (known, gone) = {
            let mut d = lock(&shared.discovery);
            let gone = d.expire(Instant::now());
            (d.peers().map(|p| p.beacon.node).collect::<Vec<_>>(), gone)
        };
        if !gone.is_empty() {
            let mut mesh = lock(&shared.peers);
            for n in gone {
                mesh.forget(n);
            }
        }
        for node in known {
            maybe_dial(&shared, node);
        }
    }
}

async fn liveness_loop(shared: Arc<Shared>) {
    let mut tick = tokio::time::interval(shared.cfg.heartbeat_interval / 2);
    loop {
        tick.tick().await;
        if shared.shutdown.load(Ordering::Relaxed) {
            return;
        }
        let expired = lock(&shared.peers).handle_timeout(Instant::now());
        for (node, frames) in expired.dropped_held {
            tracing::warn!(peer = %node, frames,
                "dropping control frames held for a peer that never connected");
        }
        for node in expired.lost {
            let _ = shared.control.send(ControlWork::Gone { node, lost: true });
        }
    }
}

fn control_loop(shared: Arc<Shared>, work: Receiver<ControlWork>) {
    RECEIVE_THREAD.with(|c| c.set(true));
    while let Ok(w) = work.recv() {
        match w {
            ControlWork::Frame(node, frame) => shared.on_frame(node, frame),
            ControlWork::Gone { node, lost } => shared.turn(Work::Gone { node, lost }),
            ControlWork::Registered(node) => shared.on_registered(node),
        }
        shared.idle();
        if shared.shutdown.load(Ordering::Relaxed) {
            return;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// data thread

fn data_loop(shared: Arc<Shared>, sock: UdpSocket) {
    RECEIVE_THREAD.with(|c| c.set(true));
    let mut fault = shared.cfg.fault.as_ref().map(|f| {
        FaultInjector::new(
            f.seed,
            FaultConfig {
                drop_per_mille: f.drop_per_mille.min(1000) as u16,
                dup_per_mille: f.dup_per_mille.min(1000) as u16,
                reorder_per_mille: f.reorder_per_mille.min(1000) as u16,
                delay_min: Duration::ZERO,
                delay_max: Duration::from_micros(f.max_delay_us / 4),
                reorder_delay: Duration::from_micros(f.max_delay_us),
            },
        )
    });
    let mut buf = RecvBuffer::new();
    let mut read_timeout = ReadTimeout::default();
    // The end of the previous turn: recent enough for the socket role's millisecond decisions,
    // and one clock read per datagram less.
    let mut turn_end = Instant::now();
    let mut feds: Vec<Arc<FedChannel>> = Vec::new();
    while !shared.shutdown.load(Ordering::Relaxed) {
        let receiving = match shared.borrowing.data_turn(turn_end) {
            DataTurn::Receive { restore_blocking } => {
                if restore_blocking && let Err(e) = sock.set_nonblocking(false) {
                    tracing::warn!("data socket back to blocking mode: {e}");
                }
                true
            }
            // An application thread reads the socket: run the timers only.
            DataTurn::Yielded | DataTurn::Timers => {
                shared.borrowing.data_thread_sleep(read_timeout.current());
                false
            }
        };
        // One clock read per turn: the datagram's arrival time serves its handling, the timers
        // (millisecond scale) and the next turn's socket-role decision; the microseconds the
        // handling takes do not matter to any of them.
        let got = receiving.then(|| buf.recv_with(|b| sock.recv_from(b)));
        let now = Instant::now();
        if let Some(got) = got {
            match got {
                Ok((dgram, _src)) => {
                    shared.datagram_in(dgram.len(), false);
                    match fault.as_mut() {
                        Some(f) => {
                            f.inject(now, dgram);
                        }
                        None => route(&shared, now, dgram),
                    }
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(e) => {
                    tracing::debug!("data socket receive error: {e}");
                }
            }
        }
        let mut next: Option<Instant> = None;
        if let Some(f) = fault.as_mut() {
            while let Some(d) = f.poll(now) {
                route(&shared, now, d);
            }
            next = f.next_deadline();
        }
        // A reused list (no allocation per turn), emptied after the turn so a federation left
        // meanwhile is not kept alive by it.
        feds.extend(
            shared
                .federations
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .values()
                .cloned(),
        );
        for fed in &feds {
            // A due receive timer may hand data up (a gap given up, a fell-behind): a turn.
            if lock(&fed.recv).poll_timeout().is_some_and(|t| t <= now) {
                shared.turn(Work::ReceiveTimer {
                    fed: fed.clone(),
                    now,
                });
            }
            next = earliest(next, lock(&fed.recv).poll_timeout());
            // A sender busy on another thread is sending anyway: its timers can wait a little.
            let Ok(mut side) = fed.sender.try_lock() else {
                next = earliest(next, Some(busy_sender_deadline(now)));
                continue;
            };
            if side.timeout_due(now) {
                // Off the send path, on the sender's timer: drop the retransmit copies every
                // receiver has acknowledged (the members lock nests inside the sender's here
                // only; nothing takes them the other way round).
                let acknowledged = if fed.flow.on {
                    lock(&fed.members).delivered_by_all()
                } else {
                    None
                };
                let group = fed.group;
                side.handle_timeout(now, acknowledged, &mut |d: &[u8]| {
                    // A flushed batch counts as data sent (before it leaves); heartbeats do not.
                    if data::peek(d).is_ok_and(|h| h.kind != data::DatagramKind::Heartbeat) {
                        shared.stats.datagrams_out.fetch_add(1, Ordering::Relaxed);
                    }
                    let _ = shared.data_send.send_to(d, group);
                });
            }
            // While the federation streams, this wakes often enough to flush batches in time
            // (and so lets `send` start batching at all).
            next = earliest(next, side.poll_timeout(now));
        }
        // Sleep in recv until the earliest timer (the bounds and slack: core::schedule).
        feds.clear();
        if let Some(t) = read_timeout.update(now, next) {
            let _ = sock.set_read_timeout(Some(t));
        }
        // Not receiving, the data thread sleeps at most until its timer too (recv_role).
        turn_end = now;
        shared.data_wake_by_ns.store(
            shared.ns_since_epoch(turn_end + read_timeout.current()),
            Ordering::Relaxed,
        );
        shared.idle();
    }
}

fn route(shared: &Shared, now: Instant, dgram: Bytes) {
    let Ok((tag, sender)) = data::peek(&dgram).map(|h| (h.tag, h.sender)) else {
        shared
            .stats
            .datagrams_unrouted
            .fetch_add(1, Ordering::Relaxed);
        return;
    };
    let Some(fed) = shared.federation(tag) else {
        shared
            .stats
            .datagrams_unrouted
            .fetch_add(1, Ordering::Relaxed);
        return;
    };
    if sender == shared.node {
        // Our own, looped back by the kernel: counted and dropped by the receive path, which
        // hands nothing up for it, so no turn of the layer above (whose lock a sender of this
        // process may hold) is needed.
        let mut side = lock(&fed.recv);
        side.handle_datagram(now, dgram);
        let mut events = Vec::new();
        dispatch::drain(&mut side, &mut |o| {
            shared.execute(Some(&fed), o, &mut events)
        });
        drop(side);
        for ev in events {
            shared.emit(ev);
        }
        return;
    }
    // Tells the batching decision that this node is answering, not streaming.
    fed.heard.fetch_add(1, Ordering::Relaxed);
    shared.turn(Work::Datagram { fed, now, dgram });
}
