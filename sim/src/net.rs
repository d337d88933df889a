//! The unified simulator's network model: a virtual clock and one queue of what arrives where,
//! and when.
//!
//! - **Data plane**: a multicast datagram is copied to each receiver over its own link (per
//!   ordered pair of nodes), with that link's delay and jitter, and is lost, duplicated or
//!   reordered (held back) at the rates of [`LinkModel`]. Loss is never repaired here: the
//!   receivers' real receive paths notice the gap, send NACKs and get `Repair` frames (or fall
//!   behind) through the control channels, so loss shows up as repair delay.
//! - **Control plane**: a reliable, ordered channel per ordered pair (a QUIC stream) with its
//!   own delay; it exists while the two nodes are connected ([`Net::connect`]). When a
//!   connection breaks (a partition, a crash) the frames still in flight on it are cut at a
//!   random point — a prefix arrives, the rest never does — and each side learns that the
//!   other is lost after its own detection delay ([`Arrival::Lost`]), as the transport's peer
//!   timeout would tell it.
//! - **Partitions** ([`Net::cut`], [`Net::heal`]): pairs of nodes that hear nothing of each
//!   other, data or control, until healed; the heal reconnects them after a dial delay.
//! - **Crashes** ([`Net::crash`]): a node stops; what it sent on its control channels is cut
//!   at a random point, its datagrams already on the wire still arrive.
//!
//! Time is virtual (µs since the run began). The transport core wants `Instant`s: they are this
//! run's origin plus the virtual time ([`Net::instant`]), and the core only ever compares and
//! subtracts them, so a run does not depend on when it is started.

use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use hlamesh_transport::NodeId;

use crate::Rng;

/// How the links behave (the same for every link of a run; each draws its own delays).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkModel {
    /// Shortest datagram delay (µs).
    pub datagram_delay_us: u64,
    /// Extra random delay of a datagram, up to this (µs).
    pub datagram_jitter_us: u64,
    /// Datagrams lost, per thousand.
    pub loss_per_mille: u64,
    /// Datagrams delivered twice, per thousand.
    pub dup_per_mille: u64,
    /// Datagrams held back (reordered behind later ones), per thousand.
    pub reorder_per_mille: u64,
    /// How long a held-back datagram waits, up to (µs).
    pub reorder_delay_us: u64,
    /// Shortest control frame delay (µs).
    pub frame_delay_us: u64,
    /// Extra random delay of a control frame, up to this (µs); frames of one pair stay in order.
    pub frame_jitter_us: u64,
    /// How long a new connection takes to come up, up to (µs).
    pub dial_us: u64,
    /// After a connection breaks, each side learns it after this long (µs)...
    pub detect_min_us: u64,
    /// ...plus up to this much more.
    pub detect_jitter_us: u64,
}

impl Default for LinkModel {
    fn default() -> Self {
        LinkModel {
            datagram_delay_us: 50,
            datagram_jitter_us: 200,
            loss_per_mille: 0,
            dup_per_mille: 0,
            reorder_per_mille: 0,
            reorder_delay_us: 2_000,
            frame_delay_us: 100,
            frame_jitter_us: 400,
            dial_us: 20_000,
            detect_min_us: 400_000,
            detect_jitter_us: 800_000,
        }
    }
}

/// What arrives at a node.
#[derive(Clone, Debug)]
pub enum Arrival {
    /// A multicast datagram reaches node `to`.
    Datagram {
        /// The receiver.
        to: NodeId,
        /// The datagram.
        bytes: Bytes,
    },
    /// A control frame (encoded, with its length prefix) from `from` reaches `to`.
    Frame {
        /// The sender.
        from: NodeId,
        /// The receiver.
        to: NodeId,
        /// The encoded frame.
        bytes: Vec<u8>,
    },
    /// Node `at` notices that its connection to `peer` is gone (peer timeout).
    Lost {
        /// Who notices.
        at: NodeId,
        /// Who is gone.
        peer: NodeId,
    },
    /// The connection between `a` and `b` is up, at both ends.
    Connected {
        /// One end.
        a: NodeId,
        /// The other.
        b: NodeId,
    },
}

/// What a control frame is, as far as the network's counters and breakages care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    /// A NACK.
    Nack,
    /// A repair (the answer to a NACK).
    Repair,
    /// Anything else.
    Other,
}

impl FrameKind {
    /// The kind of `frame`.
    pub fn of(frame: &hlamesh_transport::frame::Frame) -> FrameKind {
        use hlamesh_transport::frame::Frame;
        match frame {
            Frame::Nack { .. } => FrameKind::Nack,
            Frame::Repair { .. } => FrameKind::Repair,
            _ => FrameKind::Other,
        }
    }
}

/// A connection's state: its incarnation and whether it is up.
#[derive(Clone, Copy, Debug, Default)]
struct Conn {
    epoch: u64,
    up: bool,
    /// A dial is on its way.
    dialling: bool,
}

/// Counters of what the network did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NetStats {
    /// Datagrams sent (per receiver).
    pub datagrams: u64,
    /// Datagrams lost by the links.
    pub lost: u64,
    /// Datagrams duplicated.
    pub duplicated: u64,
    /// Datagrams held back.
    pub reordered: u64,
    /// Datagrams that could not cross a partition.
    pub cut_off: u64,
    /// Control frames sent.
    pub frames: u64,
    /// Control frames cut off by a broken connection.
    pub frames_cut: u64,
    /// `Nack` frames sent.
    pub nacks: u64,
    /// `Repair` frames sent.
    pub repairs: u64,
    /// `Repair` frames dropped by [`Net::drop_repairs`].
    pub repairs_dropped: u64,
    /// Connections that broke.
    pub breaks: u64,
    /// Datagrams multicast to DDM cell groups (each counted once, whoever joined the group).
    pub cell_datagrams: u64,
    /// Channel closes that waited for the members to acknowledge the stream (not everything
    /// was acknowledged when the layer above closed).
    pub closes_waited: u64,
    /// Data datagrams longer than the nodes' `max_datagram` (on a real network: IP-fragmented,
    /// or dropped beyond the path MTU). A run with any fails.
    pub oversized: u64,
    /// The longest data datagram multicast.
    pub longest: usize,
}

/// The network of one run (see the module docs).
#[derive(Debug)]
pub struct Net {
    origin: Instant,
    now: u64,
    rng: Rng,
    /// The model every link follows; faults are switched off by replacing it.
    pub model: LinkModel,
    /// What arrives when: (time, order of scheduling) → arrival.
    queue: BTreeMap<(u64, u64), Queued>,
    counter: u64,
    /// Per ordered pair: when its last frame arrives (frames of a pair stay in order).
    last_frame: BTreeMap<(NodeId, NodeId), u64>,
    /// Per unordered pair (lower first): the connection.
    conns: BTreeMap<(NodeId, NodeId), Conn>,
    /// Pairs (lower first) that cannot hear each other.
    cut: BTreeSet<(NodeId, NodeId)>,
    crashed: BTreeSet<NodeId>,
    /// Every node that ever joined the network (multicast reaches those not crashed).
    nodes: BTreeSet<NodeId>,
    /// The nodes that joined each DDM cell group.
    groups: BTreeMap<Ipv4Addr, BTreeSet<NodeId>>,
    /// Test-only breakage: every `Repair` frame is dropped (see [`Net::drop_repairs`]).
    drop_repairs: bool,
    /// Longest data datagram the path carries whole (see [`Net::set_max_datagram`]).
    max_datagram: usize,
    /// What happened.
    pub stats: NetStats,
}

/// A connection's incarnation: its ends (lower first) and epoch.
type ConnKey = (NodeId, NodeId, u64);

/// An arrival in the queue, with the connection incarnation a frame was sent on.
type Queued = (Arrival, Option<ConnKey>);

fn pair(a: NodeId, b: NodeId) -> (NodeId, NodeId) {
    (a.min(b), a.max(b))
}

impl Net {
    /// An empty network whose randomness comes from `seed`. `origin` is the instant virtual
    /// time 0 stands for.
    pub fn new(seed: u64, model: LinkModel, origin: Instant) -> Net {
        Net {
            origin,
            now: 0,
            rng: Rng::seeded(seed ^ 0x006e_6574_5f6d_6f64),
            model,
            queue: BTreeMap::new(),
            counter: 0,
            last_frame: BTreeMap::new(),
            conns: BTreeMap::new(),
            cut: BTreeSet::new(),
            crashed: BTreeSet::new(),
            nodes: BTreeSet::new(),
            groups: BTreeMap::new(),
            drop_repairs: false,
            max_datagram: usize::MAX,
            stats: NetStats::default(),
        }
    }

    /// Data datagrams longer than `n` bytes are counted as oversized
    /// ([`NetStats::oversized`]): the path MTU the nodes' transports size datagrams for.
    pub fn set_max_datagram(&mut self, n: usize) {
        self.max_datagram = n;
    }

    fn note_len(&mut self, len: usize) {
        self.stats.longest = self.stats.longest.max(len);
        if len > self.max_datagram {
            self.stats.oversized += 1;
        }
    }

    /// The virtual time (µs).
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Virtual time `t` as the `Instant` the transport core is handed.
    pub fn instant(&self, t: u64) -> Instant {
        self.origin + Duration::from_micros(t)
    }

    /// Virtual time of instant `i` (µs; the origin for earlier instants).
    pub fn micros(&self, i: Instant) -> u64 {
        i.saturating_duration_since(self.origin).as_micros() as u64
    }

    /// Moves the clock to `t` (never back).
    pub fn advance(&mut self, t: u64) {
        self.now = self.now.max(t);
    }

    /// A test-only breakage: from now on every `Repair` frame is dropped, so no lost datagram is
    /// ever recovered (the liveness phase must then fail).
    pub fn drop_repairs(&mut self) {
        self.drop_repairs = true;
    }

    fn schedule(&mut self, at: u64, a: Arrival, conn: Option<ConnKey>) {
        self.counter += 1;
        self.queue.insert((at, self.counter), (a, conn));
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.rng.next_u64() % n }
    }

    fn chance(&mut self, per_mille: u64) -> bool {
        per_mille > 0 && self.below(1000) < per_mille
    }

    /// Whether `a` and `b` are on different sides of a partition.
    pub fn is_cut(&self, a: NodeId, b: NodeId) -> bool {
        self.cut.contains(&pair(a, b))
    }

    /// Whether the connection between `a` and `b` is up.
    pub fn connected(&self, a: NodeId, b: NodeId) -> bool {
        self.conns.get(&pair(a, b)).is_some_and(|c| c.up)
    }

    /// Node `n` is on the network from now on.
    pub fn add_node(&mut self, n: NodeId) {
        self.nodes.insert(n);
    }

    /// Node `from` multicasts `bytes`: a copy to every other node not crashed (a node that did
    /// not join the federation's group drops it).
    pub fn multicast(&mut self, from: NodeId, bytes: &Bytes) {
        self.note_len(bytes.len());
        let to: Vec<NodeId> = self.nodes.iter().copied().collect();
        self.multicast_among(from, to, bytes);
    }

    /// Node `from` multicasts `bytes` to DDM cell group `group`: a copy to every other node
    /// that joined it and did not crash (the kernel of the others drops it).
    pub fn multicast_to(&mut self, from: NodeId, group: Ipv4Addr, bytes: &Bytes) {
        let to: Vec<NodeId> = self
            .groups
            .get(&group)
            .map(|m| m.iter().copied().collect())
            .unwrap_or_default();
        self.stats.cell_datagrams += 1;
        self.note_len(bytes.len());
        self.multicast_among(from, to, bytes);
    }

    /// Node `n` joins (`on`) or leaves DDM cell group `group`.
    pub fn set_group(&mut self, n: NodeId, group: Ipv4Addr, on: bool) {
        let members = self.groups.entry(group).or_default();
        if on {
            members.insert(n);
        } else {
            members.remove(&n);
        }
    }

    fn multicast_among(&mut self, from: NodeId, to: Vec<NodeId>, bytes: &Bytes) {
        for r in to {
            if r == from || self.crashed.contains(&r) {
                continue;
            }
            self.stats.datagrams += 1;
            if self.is_cut(from, r) {
                self.stats.cut_off += 1;
                continue;
            }
            if self.chance(self.model.loss_per_mille) {
                self.stats.lost += 1;
                continue;
            }
            let copies = if self.chance(self.model.dup_per_mille) {
                self.stats.duplicated += 1;
                2
            } else {
                1
            };
            for _ in 0..copies {
                let mut at = self.now
                    + self.model.datagram_delay_us
                    + self.below(self.model.datagram_jitter_us + 1);
                if self.chance(self.model.reorder_per_mille) {
                    self.stats.reordered += 1;
                    at += self.below(self.model.reorder_delay_us + 1);
                }
                let a = Arrival::Datagram {
                    to: r,
                    bytes: bytes.clone(),
                };
                self.schedule(at, a, None);
            }
        }
    }

    /// Node `from` writes an encoded control frame of kind `kind` on its connection to `to`:
    /// it arrives in order behind the pair's earlier frames, or never if the connection is
    /// down or breaks first.
    pub fn send_frame(&mut self, from: NodeId, to: NodeId, bytes: Vec<u8>, kind: FrameKind) {
        let key = pair(from, to);
        let Some(conn) = self.conns.get(&key).copied().filter(|c| c.up) else {
            self.stats.frames_cut += 1;
            return;
        };
        self.stats.frames += 1;
        match kind {
            FrameKind::Nack => self.stats.nacks += 1,
            FrameKind::Repair => self.stats.repairs += 1,
            FrameKind::Other => {}
        }
        if kind == FrameKind::Repair && self.drop_repairs {
            self.stats.repairs_dropped += 1;
            return;
        }
        let at = self.now + self.model.frame_delay_us + self.below(self.model.frame_jitter_us + 1);
        let last = self.last_frame.entry((from, to)).or_insert(0);
        let at = at.max(*last);
        *last = at;
        let a = Arrival::Frame { from, to, bytes };
        self.schedule(at, a, Some((key.0, key.1, conn.epoch)));
    }

    /// Starts a connection between `a` and `b` (unless it is up, being dialled, or they are
    /// cut off from each other): it comes up after a dial delay.
    pub fn connect(&mut self, a: NodeId, b: NodeId) {
        let key = pair(a, b);
        if a == b || self.is_cut(a, b) || self.crashed.contains(&a) || self.crashed.contains(&b) {
            return;
        }
        let c = self.conns.entry(key).or_default();
        if c.up || c.dialling {
            return;
        }
        c.dialling = true;
        let at = self.now + 1 + self.below(self.model.dial_us);
        self.schedule(at, Arrival::Connected { a: key.0, b: key.1 }, None);
    }

    /// A dial that came up too early (an end still holds the old connection): it comes up
    /// `after_us` later instead.
    pub fn redial(&mut self, a: NodeId, b: NodeId, after_us: u64) {
        let key = pair(a, b);
        self.conns.entry(key).or_default().dialling = true;
        let at = self.now + after_us;
        self.schedule(at, Arrival::Connected { a: key.0, b: key.1 }, None);
    }

    /// A dial that came up (`Arrival::Connected`): whether the connection is usable now. A
    /// dial whose ends were cut off or crashed meanwhile fails.
    pub fn connected_now(&mut self, a: NodeId, b: NodeId) -> bool {
        let key = pair(a, b);
        let blocked = self.is_cut(a, b) || self.crashed.contains(&a) || self.crashed.contains(&b);
        let c = self.conns.entry(key).or_default();
        c.dialling = false;
        if blocked || c.up {
            return false;
        }
        c.up = true;
        c.epoch += 1;
        true
    }

    /// Breaks the connection of `a` and `b` (if up): frames in flight are cut at a random point
    /// per direction, and each side in `notice` learns of the loss after its detection delay.
    fn break_conn(&mut self, a: NodeId, b: NodeId, notice: &[NodeId]) {
        let key = pair(a, b);
        let Some(c) = self.conns.get_mut(&key) else {
            return;
        };
        if !c.up {
            return;
        }
        c.up = false;
        let epoch = c.epoch;
        self.stats.breaks += 1;
        for (from, to) in [(a, b), (b, a)] {
            let in_flight: Vec<(u64, u64)> = self
                .queue
                .iter()
                .filter(|(_, (arr, conn))| {
                    matches!(arr, Arrival::Frame { from: f, to: t, .. } if *f == from && *t == to)
                        && *conn == Some((key.0, key.1, epoch))
                })
                .map(|(k, _)| *k)
                .collect();
            let keep = self.below(in_flight.len() as u64 + 1) as usize;
            for k in &in_flight[keep..] {
                self.queue.remove(k);
                self.stats.frames_cut += 1;
            }
        }
        for &n in notice {
            let peer = if n == a { b } else { a };
            let at =
                self.now + self.model.detect_min_us + self.below(self.model.detect_jitter_us + 1);
            self.schedule(at, Arrival::Lost { at: n, peer }, None);
        }
    }

    /// A partition: every pair across `side_a` / `side_b` is cut off, data and control, and
    /// their connections break.
    pub fn cut(&mut self, side_a: &[NodeId], side_b: &[NodeId]) {
        for &x in side_a {
            for &y in side_b {
                self.cut.insert(pair(x, y));
                self.break_conn(x, y, &[x, y]);
            }
        }
    }

    /// The partitions heal: every pair cut off hears the other again; returns those pairs (the
    /// caller reconnects them once each side noticed the loss).
    pub fn heal(&mut self) -> Vec<(NodeId, NodeId)> {
        std::mem::take(&mut self.cut).into_iter().collect()
    }

    /// Whether any pair is cut off.
    pub fn partitioned(&self) -> bool {
        !self.cut.is_empty()
    }

    /// Node `n` crashes: its connections break (what it had in flight cut at random points,
    /// the others notice after their detection delays), nothing reaches it any more.
    pub fn crash(&mut self, n: NodeId, others: &[NodeId]) {
        self.crashed.insert(n);
        for members in self.groups.values_mut() {
            members.remove(&n);
        }
        for &o in others {
            if o != n {
                self.break_conn(n, o, &[o]);
            }
        }
    }

    /// Whether `n` crashed.
    pub fn is_crashed(&self, n: NodeId) -> bool {
        self.crashed.contains(&n)
    }

    /// When the next arrival is due, if any.
    pub fn next_at(&self) -> Option<u64> {
        self.queue.keys().next().map(|(t, _)| *t)
    }

    /// The next arrival due at or before the current time, if any. A frame of a connection
    /// that broke (or came up again since) after it was sent is dropped, unless it survived
    /// the break's cut.
    pub fn pop_due(&mut self) -> Option<Arrival> {
        loop {
            let (&(t, c), _) = self.queue.iter().next()?;
            if t > self.now {
                return None;
            }
            let (a, conn) = self.queue.remove(&(t, c))?;
            if let Some((x, y, epoch)) = conn {
                let live = self.conns.get(&(x, y)).is_some_and(|k| k.epoch == epoch);
                if !live {
                    self.stats.frames_cut += 1;
                    continue;
                }
            }
            if let Arrival::Datagram { to, .. } | Arrival::Frame { to, .. } = &a
                && self.crashed.contains(to)
            {
                continue;
            }
            return Some(a);
        }
    }

    /// Arrivals still queued.
    pub fn in_flight(&self) -> usize {
        self.queue.len()
    }
}
