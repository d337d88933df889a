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

mod channel;
mod data_thread;
mod drain;
mod goodbye;
mod metrics_sample;
mod net;
mod receive_here;
mod turn;
pub use channel::FederationChannel;
use data_thread::{data_loop, route};
use metrics_sample::register_metrics;
use net::{CLOSE_BYE, accept_loop, beacon_loop, discovery_loop, liveness_loop};
pub use receive_here::{ReceiveHere, ReceiverWaker, RoleWait};
use turn::Work;
pub use turn::{Driver, Turn};

use crate::config::{PROTOCOL_VERSION, TransportConfig};
pub use crate::core::TransportEvent;
use crate::core::batch::MAX_BATCH_DELAY;
use crate::core::cells::{CellGroups, CellRoute, Fallback};
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
    /// Federation channels closed (or left with the mesh) before every member acknowledged
    /// this node's stream (see `node/drain.rs`): a member that never answered, for
    /// `MAX_DRAIN_WAIT`.
    pub drain_timeouts: AtomicU64,
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
    /// The DDM cell groups: where best-effort messages with regions go, which groups this
    /// node joined (sans-I/O, see [`crate::core::cells`]; a leaf lock).
    cells: Mutex<CellGroups>,
    cell_counters: m::CellCounters,
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
    fn cell_stats(&self) -> m::CellStats {
        let (joined_now, missing, others) = {
            let c = lock(&self.cells);
            (
                c.joined().len() as u64,
                c.missing(),
                c.members_cannot_join() as u64,
            )
        };
        let received = lock(&self.recv).stats().best_effort_datagrams;
        m::CellStats {
            cannot_join_now: missing,
            members_cannot_join_now: others,
            ..self.cell_counters.stats(joined_now, received)
        }
    }

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
    fn cells<R>(&self, f: impl FnOnce(&mut CellGroups) -> R) -> R {
        f(&mut lock(&self.cells))
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
            chain_reserve: self.cfg.chain_reserve(),
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

    /// [`Shared::emit_data`] to each of `groups` (on the data port): one copy of each datagram
    /// per group (DDM cell groups; see [`crate::core::cells`]).
    fn emit_data_to<R>(
        &self,
        groups: &[Ipv4Addr],
        f: impl FnOnce(&mut dyn FnMut(&[u8])) -> R,
    ) -> (R, u64) {
        let sock = &self.data_send;
        let port = self.cfg.data_port;
        let mut io_err = None;
        let mut n = 0u64;
        let r = f(&mut |dgram: &[u8]| {
            for g in groups {
                n += 1;
                self.stats.datagrams_out.fetch_add(1, Ordering::Relaxed);
                if let Err(e) = sock.send_to(dgram, SocketAddrV4::new(*g, port)) {
                    io_err.get_or_insert(e);
                }
            }
        });
        if let Some(e) = io_err {
            tracing::debug!("multicast send to a cell group failed: {e}");
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
        self.send_frame_for(node, frame, None)
    }

    /// As [`Shared::send_frame`], for a frame federation `federation` sent: if it is held for a
    /// peer not connected yet, it is dropped should that federation close here first.
    fn send_frame_for(
        &self,
        node: NodeId,
        frame: &Frame,
        federation: Option<FederationTag>,
    ) -> Result<(), TransportError> {
        self.metrics.frame_out(frame, 1);
        let bytes = frame.encode();
        // Held under the peers lock, as `register` flushes under it: nothing slips between.
        match lock(&self.peers).route_for(Instant::now(), node, bytes, federation) {
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
        let cell_groups = self.shared.cfg.cell_groups_for(tag);
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
            cells: Mutex::new(CellGroups::new(
                cell_groups.clone(),
                group_ip,
                self.shared.cfg.max_cells_per_send as usize,
            )),
            cell_counters: m::CellCounters {
                received: m::GroupCounters::new(group_ip, &cell_groups),
                ..Default::default()
            },
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

    /// Closes a federation's data channel on this node, and drops the control frames it sent
    /// that still wait for peers not connected yet (see [`Transport::send_federation_control`]).
    ///
    /// It first waits, at most `MAX_DRAIN_WAIT`, until every member acknowledged this node's
    /// reliable stream in the federation up to its last message, answering their NACKs
    /// meanwhile: a member that read `Left` before the last data would drop it.
    pub fn close_federation(&self, tag: FederationTag) {
        let open = self
            .shared
            .federations
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&tag)
            .cloned();
        if let Some(fed) = open {
            self.shared.drain_stream(&fed);
        }
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
            for g in lock(&fed.cells).want(&[]).leave {
                let _ = sockets::leave(&self.shared.data_recv, g, self.shared.interface);
            }
            let peers: Vec<NodeId> = {
                let mut mesh = lock(&self.shared.peers);
                mesh.drop_held_of(tag);
                mesh.keys().copied().collect()
            };
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

    /// Sends a control message of federation `federation` to one peer over QUIC; with `causal`,
    /// released there only after this node's data in that federation up to now (as
    /// [`Transport::send_control`] with its tag). Held for a peer not connected yet, it is
    /// dropped if the federation closes here first ([`Transport::close_federation`]): a request
    /// that reached a member after this node gave the federation up would be answered as if it
    /// were still there.
    pub fn send_federation_control(
        &self,
        peer: NodeId,
        federation: FederationTag,
        causal: bool,
        payload: &[u8],
    ) -> Result<(), TransportError> {
        let tag = causal.then_some(federation);
        let hw = self.high_water(tag)?;
        self.shared.send_frame_for(
            peer,
            &Frame::App {
                tag,
                hw,
                payload: payload.to_vec(),
            },
            Some(federation),
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
