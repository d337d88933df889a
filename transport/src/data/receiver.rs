//! The receiving side of one federation's data stream: checks every datagram, delivers each
//! member's reliable messages exactly once in order, best-effort ones at most once, and asks for
//! repairs.
//!
//! Checks, in order (each failure is dropped and counted in [`DropCounts`], never panics):
//! length/version/kind, federation tag, own node (our multicast looped back), MAC, membership,
//! body layout. Only then is anything acted on.
//!
//! Best-effort messages come in two number spaces per sender, each with its own window: the
//! default group's (`DatagramKind::BestEffort`), whose gaps are loss, counted in
//! `best_effort_lost`, and the DDM cell groups' (`DatagramKind::CellBestEffort`), whose window
//! only drops the copy of a message that arrives on a second joined group. Loss on cell groups
//! is not measured: this node hears only the cell groups it joined, and a gap in a sender's
//! cell numbers is mostly messages to cells it did not join, which the kernel dropped and which
//! this receiver cannot tell from a message lost on the way (that needs per-group numbering,
//! `docs/DDM.md`, "Reliability across groups").

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Instant;

use bytes::Bytes;

use crate::data::auth::DatagramAuth;
use crate::data::best_effort_window::{Admit, BestEffortWindow};
use crate::data::chain::{ChainHeader, Chains, GroupId};
use crate::data::reassembly::{Piece, Reassembly, Space};
use crate::data::repair::{Nack, Repair};
use crate::data::wire::{
    self, DatagramKind, Frame, FrameKind, Frames, Header, WireError, heartbeat_best_effort_high,
};
use crate::data::{ConfigError, DataConfig, Seq, SeqRange};
use crate::id::{FederationKey, FederationTag, NodeId};

/// Bookkeeping charged per buffered out-of-order frame on top of its payload.
const FRAME_COST: usize = 64;
/// Initial reservation for a reliable message being assembled (it grows as fragments arrive,
/// so a forged `total` cannot make us allocate up front, and never past `total`).
const INITIAL_ASSEMBLY: usize = 64 << 10;

/// What the receiver asks of the shell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecvEvent {
    /// A message for the layer above. `seq` is `Some` for reliable messages (the number of the
    /// message's last frame), `None` for best-effort ones. Unfragmented payloads are slices of
    /// the received datagram.
    Deliver {
        /// Sender.
        from: NodeId,
        /// Reliable sequence number, if reliable.
        seq: Option<Seq>,
        /// The message.
        payload: Bytes,
    },
    /// Send this NACK to `to` over QUIC; pass its [`Repair`] to [`DataReceiver::on_repair`].
    SendNack {
        /// The sender missing data belongs to.
        to: NodeId,
        /// What is missing.
        nack: Nack,
    },
    /// `from` can no longer repair `lost`: those messages will never be delivered. The stream
    /// continues after them; the layer above should resynchronise (state transfer).
    FellBehind {
        /// Sender.
        from: NodeId,
        /// The reliable numbers that are lost.
        lost: SeqRange,
    },
    /// `from`'s reliable stream is delivered up to `through`: the positions after the last
    /// message delivered went to DDM cell groups this node did not join, and will not be
    /// delivered here (see [`crate::data::chain`]). Only when no message delivered after them
    /// says as much.
    Skipped {
        /// Sender.
        from: NodeId,
        /// Everything up to here is delivered or not due here.
        through: Seq,
    },
}

/// Datagrams dropped before anything in them was used, by reason.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DropCounts {
    /// Too short, unknown kind, or a body that does not parse.
    pub malformed: u64,
    /// Wire version other than ours.
    pub bad_version: u64,
    /// Another federation's tag.
    pub wrong_federation: u64,
    /// MAC check failed (tampered, or wrong key).
    pub bad_auth: u64,
    /// Authentic, but the sender is not in the member set.
    pub not_member: u64,
    /// Our own datagram (multicast loop).
    pub own: u64,
    /// A repair datagram whose sender is not the peer that sent the repair.
    pub sender_mismatch: u64,
}

/// Counters of a [`DataReceiver`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecvStats {
    /// Datagrams handed in (multicast and repair).
    pub datagrams: u64,
    /// Dropped datagrams by reason.
    pub dropped: DropCounts,
    /// Reliable messages delivered.
    pub delivered_reliable: u64,
    /// Best-effort messages delivered.
    pub delivered_best_effort: u64,
    /// Best-effort datagrams from other nodes that passed authentication, default group and
    /// DDM cell groups together (duplicates included; with cell groups, a copy on each group of
    /// this node's that the message went to).
    pub best_effort_datagrams: u64,
    /// Reliable frames received again (already delivered or buffered).
    pub duplicate_frames: u64,
    /// Best-effort datagrams received again (or too late to tell), default group and cell
    /// groups together (a cell message heard on two joined groups counts once here).
    pub duplicate_best_effort: u64,
    /// Default-group best-effort datagrams that never arrived (counted when they leave the
    /// 1024-number window). Cell-group datagrams are not counted: their loss is not measured
    /// (see the module docs).
    pub best_effort_lost: u64,
    /// Incomplete best-effort messages dropped after `reassembly_timeout`.
    pub reassembly_timeouts: u64,
    /// Incomplete best-effort messages evicted to stay within `reassembly_capacity_bytes`.
    pub reassembly_evicted: u64,
    /// Fragmented messages refused for size (over `max_message` or the capacity).
    pub too_large: u64,
    /// Messages whose fragments contradict each other (broken sender), dropped.
    pub inconsistent_messages: u64,
    /// Out-of-order reliable frames not buffered for lack of room (they are NACKed again later).
    pub reorder_overflow: u64,
    /// Reliable fragments skipped because the start of their message was skipped
    /// (fell behind or started mid-message).
    pub orphan_fragments: u64,
    /// Gaps detected: a reliable frame or heartbeat revealed numbers not yet received.
    pub gaps: u64,
    /// NACKs asked for.
    pub nacks: u64,
    /// Repairs handed in.
    pub repairs: u64,
    /// FellBehind events.
    pub fell_behind: u64,
    /// Reliable numbers lost in those events.
    pub fell_behind_seqs: u64,
    /// Reliable positions passed over because they went to DDM cell groups this node did not
    /// join (see [`crate::data::chain`]).
    pub skipped_positions: u64,
}

#[derive(Debug)]
struct Assembly {
    first_seq: u64,
    next_index: u32,
    count: u32,
    total: u32,
    /// None: the message is being skipped (too large), only its numbers are consumed.
    buf: Option<Vec<u8>>,
}

#[derive(Debug)]
struct Peer {
    /// Next reliable number to deliver.
    next: u64,
    /// Highest reliable number known to exist (from data or heartbeats).
    known_high: u64,
    /// Reliable frames received ahead of `next`.
    ahead: BTreeMap<u64, Frame>,
    ahead_bytes: usize,
    assembly: Option<Assembly>,
    nack_due: Option<Instant>,
    /// Highest number covered by a NACK since the last full one: gaps at or below it have been
    /// asked for and their repair is on its way (QUIC is reliable), so they are asked again only
    /// by the safety retry, `nack_retry` after the last full NACK. Re-asking every gap on every
    /// timer multiplied repair traffic under load until receivers fell behind.
    nacked_upto: u64,
    /// When the last full NACK (every open gap) was sent.
    nacked_at: Option<Instant>,
    /// Default-group best-effort numbers: duplicates and loss.
    best_effort: BestEffortWindow,
    /// DDM cell best-effort numbers: duplicates only (its loss counts are discarded, see the
    /// module docs).
    cells: BestEffortWindow,
    /// What this node knows of the sender's chained stream, once the sender sent reliable data
    /// to a DDM cell group or this node joined one (`None`: the plain stream, every position
    /// due here). Boxed: most peers never have one.
    chains: Option<Box<Chains>>,
}

impl Peer {
    fn new(next: u64) -> Self {
        Peer {
            next,
            known_high: next - 1,
            ahead: BTreeMap::new(),
            ahead_bytes: 0,
            assembly: None,
            nack_due: None,
            nacked_upto: next - 1,
            nacked_at: None,
            best_effort: BestEffortWindow::default(),
            cells: BestEffortWindow::default(),
            chains: None,
        }
    }

    /// A sender's stream from `next` on, with chain state from the start when this node is in
    /// cell groups (`groups`).
    fn joined_to(next: u64, groups: &BTreeSet<GroupId>) -> Self {
        let mut p = Peer::new(next);
        if !groups.is_empty() {
            p.chains(groups);
        }
        p
    }

    /// The chain view of this sender's stream, made from what the plain stream told so far
    /// (every position known so far is the default group's) and joined to `groups`.
    fn chains(&mut self, groups: &BTreeSet<GroupId>) -> &mut Chains {
        let (next, known, ahead) = (self.next, self.known_high, &self.ahead);
        self.chains.get_or_insert_with(|| {
            let mut c = Chains::starting_at(next - 1, known);
            // What waits ahead arrived: the chains must know, or they would wait for it.
            c.arrived(ahead.keys().copied());
            for g in groups {
                c.join(*g, known.max(next - 1));
            }
            Box::new(c)
        })
    }

    fn assembly_bytes(&self) -> usize {
        self.assembly
            .as_ref()
            .and_then(|a| a.buf.as_ref())
            .map_or(0, Vec::capacity)
    }
}

/// The shared mutable parts a peer's processing writes to.
struct Sink<'a> {
    from: NodeId,
    events: &'a mut VecDeque<RecvEvent>,
    stats: &'a mut RecvStats,
    reorder_bytes: &'a mut usize,
    cfg: &'a DataConfig,
}

/// One node's receiver for one federation.
#[derive(Debug)]
pub struct DataReceiver {
    local: NodeId,
    tag: FederationTag,
    auth: DatagramAuth,
    cfg: DataConfig,
    peers: BTreeMap<NodeId, Peer>,
    /// The DDM cell groups this node joined (chain group ids, the default group not included).
    groups: BTreeSet<GroupId>,
    reassembly: Reassembly,
    reorder_bytes: usize,
    events: VecDeque<RecvEvent>,
    stats: RecvStats,
}

impl DataReceiver {
    /// A receiver with no members.
    pub fn new(
        local: NodeId,
        tag: FederationTag,
        key: &FederationKey,
        cfg: DataConfig,
    ) -> Result<Self, ConfigError> {
        cfg.validate()?;
        Ok(DataReceiver {
            local,
            tag,
            auth: DatagramAuth::new(key),
            reassembly: Reassembly::new(
                cfg.reassembly_capacity_bytes,
                cfg.max_message,
                cfg.reassembly_timeout,
            ),
            cfg,
            peers: BTreeMap::new(),
            groups: BTreeSet::new(),
            reorder_bytes: 0,
            events: VecDeque::new(),
            stats: RecvStats::default(),
        })
    }

    /// Accept datagrams from `node`, expecting its stream from sequence 1 (no-op if already a
    /// member).
    pub fn add_sender(&mut self, node: NodeId) {
        let groups = &self.groups;
        self.peers
            .entry(node)
            .or_insert_with(|| Peer::joined_to(1, groups));
    }

    /// This node's DDM cell groups are now `groups` (chain group ids; the default group is
    /// always joined): every sender's positions in a group joined now are due from the highest
    /// position of that sender this node has heard of (what went there before is not), and
    /// nothing of a group left is due any more.
    pub fn set_groups(&mut self, now: Instant, groups: &[GroupId]) {
        let new: BTreeSet<GroupId> = groups
            .iter()
            .copied()
            .filter(|g| *g != GroupId::DEFAULT)
            .collect();
        if new == self.groups {
            return;
        }
        let old = std::mem::replace(&mut self.groups, new);
        for (&node, peer) in self.peers.iter_mut() {
            if peer.chains.is_none() && self.groups.is_empty() {
                continue;
            }
            let floor = peer.known_high.max(peer.next - 1);
            let c = peer.chains(&old);
            let floor = floor.max(c.highest_known());
            for g in old.difference(&self.groups) {
                c.leave(*g);
            }
            for g in self.groups.difference(&old) {
                c.join(*g, floor);
            }
            let mut sink = Sink {
                from: node,
                events: &mut self.events,
                stats: &mut self.stats,
                reorder_bytes: &mut self.reorder_bytes,
                cfg: &self.cfg,
            };
            drain_chained(peer, &mut sink);
            rearm_nack(peer, now, &self.cfg);
        }
    }

    /// Start (or move forward) `node`'s reliable stream at `next_seq`: everything before it is
    /// considered delivered (by state transfer) and discarded. Adds `node` as a member if needed.
    /// Ignored if the stream is already past `next_seq` (nothing can be un-delivered). A NACK for
    /// a remaining gap is scheduled when the next datagram or heartbeat from `node` arrives.
    pub fn start_sender_at(&mut self, node: NodeId, next_seq: Seq) {
        let next_seq = next_seq.0.max(1);
        let groups = &self.groups;
        let peer = self
            .peers
            .entry(node)
            .or_insert_with(|| Peer::joined_to(next_seq, groups));
        let mut sink = Sink {
            from: node,
            events: &mut self.events,
            stats: &mut self.stats,
            reorder_bytes: &mut self.reorder_bytes,
            cfg: &self.cfg,
        };
        jump_to(peer, next_seq, &mut sink);
        drain(peer, &mut sink);
        if peer.next > peer.known_high {
            peer.nack_due = None;
        }
    }

    /// Stop accepting datagrams from `node` and forget its state (its later datagrams count as
    /// `not_member`).
    pub fn remove_sender(&mut self, node: NodeId) {
        if let Some(peer) = self.peers.remove(&node) {
            self.reorder_bytes -= peer.ahead_bytes;
        }
        self.reassembly.remove_sender(node);
    }

    /// True if `node` is a member.
    pub fn is_sender(&self, node: NodeId) -> bool {
        self.peers.contains_key(&node)
    }

    /// `node`'s reliable stream has been delivered (or skipped, see `FellBehind`) up to this
    /// number; Seq(0) if nothing or unknown.
    pub fn delivered(&self, node: NodeId) -> Seq {
        self.peers.get(&node).map_or(Seq(0), |p| Seq(p.next - 1))
    }

    /// The federation this stream belongs to (route datagrams by `peek(..).tag`).
    pub fn tag(&self) -> FederationTag {
        self.tag
    }

    /// Counters.
    pub fn stats(&self) -> RecvStats {
        let mut s = self.stats.clone();
        let c = &self.reassembly.counts;
        s.reassembly_timeouts = c.timeouts;
        s.reassembly_evicted = c.evicted;
        s.too_large += c.too_large;
        s.inconsistent_messages += c.inconsistent;
        s.duplicate_best_effort += c.duplicates;
        s
    }

    /// Bytes held for out-of-order frames, incomplete messages and reliable assembly.
    pub fn memory_bytes(&self) -> usize {
        self.reorder_bytes
            + self.reassembly.bytes()
            + self.peers.values().map(Peer::assembly_bytes).sum::<usize>()
    }

    /// The next event for the shell.
    pub fn poll_event(&mut self) -> Option<RecvEvent> {
        self.events.pop_front()
    }

    /// When [`DataReceiver::on_timeout`] wants to be called.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let nacks = self.peers.values().filter_map(|p| p.nack_due).min();
        match (nacks, self.reassembly.next_deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Timer expiry: NACKs for gaps still open, best-effort reassembly timeouts.
    pub fn on_timeout(&mut self, now: Instant) {
        for (&node, peer) in self.peers.iter_mut() {
            if peer.nack_due.is_none_or(|t| t > now) {
                continue;
            }
            let full = peer
                .nacked_at
                .is_none_or(|t| now >= t + self.cfg.nack_retry);
            let from = if full {
                peer.next
            } else {
                peer.nacked_upto + 1
            };
            let ranges = match &peer.chains {
                Some(c) => c.nack_ranges(from.max(peer.next), self.cfg.max_nack_ranges),
                None => missing_ranges(peer, from, self.cfg.max_nack_ranges),
            };
            let Some(&(_, last)) = ranges.last() else {
                // Nothing new to ask for: wait for the safety retry while gaps remain.
                peer.nack_due = (peer.next <= peer.known_high)
                    .then(|| peer.nacked_at.map(|t| t + self.cfg.nack_retry))
                    .flatten();
                continue;
            };
            if full {
                peer.nacked_at = Some(now);
            }
            peer.nacked_upto = peer.nacked_upto.max(last);
            if full {
                peer.nacked_upto = last;
            }
            peer.nack_due = Some(peer.nacked_at.unwrap_or(now) + self.cfg.nack_retry);
            self.stats.nacks += 1;
            self.events.push_back(RecvEvent::SendNack {
                to: node,
                nack: Nack { ranges },
            });
        }
        self.reassembly.expire(now);
    }

    /// A datagram from the multicast socket.
    pub fn on_datagram(&mut self, now: Instant, datagram: Bytes) {
        let _ = self.process(now, datagram, None);
    }

    /// A repair from `from` (the answer to our NACK), received over QUIC.
    pub fn on_repair(&mut self, now: Instant, from: NodeId, repair: Repair) {
        self.stats.repairs += 1;
        let Some(peer) = self.peers.get_mut(&from) else {
            return;
        };
        if repair.too_old_for(peer.next) {
            let lost = SeqRange {
                first: Seq(peer.next),
                last: Seq(repair.first_available - 1),
            };
            self.stats.fell_behind += 1;
            // `first_available` comes from the peer: near 2^64 the count itself is huge, and
            // several such repairs would overflow the total.
            let count = (lost.last.0 - lost.first.0).saturating_add(1);
            self.stats.fell_behind_seqs = self.stats.fell_behind_seqs.saturating_add(count);
            self.events.push_back(RecvEvent::FellBehind { from, lost });
            let mut sink = Sink {
                from,
                events: &mut self.events,
                stats: &mut self.stats,
                reorder_bytes: &mut self.reorder_bytes,
                cfg: &self.cfg,
            };
            jump_to(peer, repair.first_available, &mut sink);
            drain(peer, &mut sink);
            rearm_nack(peer, now, &self.cfg);
        }
        // A repair that filled the sender's budget was probably cut short: what it did not reach
        // is asked for again at once instead of at the safety retry.
        let bytes = repair
            .datagrams
            .iter()
            .fold(0usize, |sum, d| sum.saturating_add(d.len()));
        let cut_short = bytes.saturating_add(self.cfg.max_datagram) > self.cfg.max_repair_bytes;
        // Only datagrams that passed every check count: a header is not trusted before its MAC
        // (a forged `seq` near 2^64 once overflowed this sum).
        let mut highest = 0u64;
        for d in repair.datagrams {
            if let Some(last) = self.process(now, Bytes::from(d.into_vec()), Some(from)) {
                highest = highest.max(last);
            }
        }
        if let Some(peer) = self.peers.get_mut(&from)
            && cut_short
            && highest > 0
            && peer.next <= peer.known_high
        {
            peer.nacked_upto = peer.nacked_upto.min(highest).max(peer.next - 1);
            peer.nack_due = Some(now);
        }
    }

    /// Checks and acts on one datagram. Returns the last sequence number a reliable datagram
    /// covers once it passed every check (`None` for anything else).
    fn process(
        &mut self,
        now: Instant,
        datagram: Bytes,
        repair_from: Option<NodeId>,
    ) -> Option<u64> {
        self.stats.datagrams += 1;
        let drops = &mut self.stats.dropped;
        let h = match wire::peek(&datagram) {
            Ok(h) => h,
            Err(WireError::BadVersion(_)) => {
                drops.bad_version += 1;
                return None;
            }
            Err(_) => {
                drops.malformed += 1;
                return None;
            }
        };
        if h.tag != self.tag {
            drops.wrong_federation += 1;
            return None;
        }
        if h.sender == self.local {
            drops.own += 1;
            return None;
        }
        if !self.auth.verify(&datagram) {
            drops.bad_auth += 1;
            return None;
        }
        if repair_from.is_some_and(|f| f != h.sender) {
            drops.sender_mismatch += 1;
            return None;
        }
        let Some(peer) = self.peers.get_mut(&h.sender) else {
            drops.not_member += 1;
            return None;
        };
        if Frames::validate(&datagram, &h).is_err() || !numbers_valid(&h) {
            drops.malformed += 1;
            return None;
        }
        let mut sink = Sink {
            from: h.sender,
            events: &mut self.events,
            stats: &mut self.stats,
            reorder_bytes: &mut self.reorder_bytes,
            cfg: &self.cfg,
        };
        let mut covered = None;
        match h.kind {
            DatagramKind::Heartbeat | DatagramKind::ChainedHeartbeat => {
                let tail = if h.kind == DatagramKind::ChainedHeartbeat {
                    // validate checked the tail.
                    let Ok(tail) = wire::read_tail(&datagram, &h) else {
                        sink.stats.dropped.malformed += 1;
                        return None;
                    };
                    Some(tail)
                } else {
                    None
                };
                let lost = peer
                    .best_effort
                    .announce(heartbeat_best_effort_high(&datagram));
                // A jump to near 2^64 counts almost 2^64 numbers lost at once: saturate.
                sink.stats.best_effort_lost = sink.stats.best_effort_lost.saturating_add(lost);
                if tail.is_none() && peer.chains.is_none() {
                    if h.seq > peer.known_high && h.seq >= peer.next {
                        sink.stats.gaps += 1;
                    }
                    peer.known_high = peer.known_high.max(h.seq);
                } else {
                    let c = peer.chains(&self.groups);
                    match tail {
                        Some(tail) => c.on_tail(&tail),
                        // A plain heartbeat: everything up to its high-water went to the
                        // default group (the sender had sent nothing to a cell yet).
                        None => c.default_through(h.seq),
                    }
                    drain_chained(peer, &mut sink);
                }
            }
            DatagramKind::Reliable | DatagramKind::ChainedReliable => {
                // numbers_valid: seq + frames does not overflow, and validate: frames >= 1.
                let first = h.seq;
                let last = first + u64::from(h.frames) - 1;
                covered = Some(last);
                let header = if h.kind == DatagramKind::ChainedReliable {
                    let Ok(header) = wire::chain_header(&datagram) else {
                        sink.stats.dropped.malformed += 1;
                        return None;
                    };
                    Some(header)
                } else {
                    None
                };
                if header.is_none() && peer.chains.is_none() {
                    for (i, frame) in Frames::new(datagram, &h).enumerate() {
                        let Ok(frame) = frame else { break };
                        accept_reliable(peer, first + i as u64, frame, &mut sink, false);
                    }
                    drain_in_order(peer, &mut sink);
                } else {
                    // The plain stream's rule: the position before went to the default group.
                    let header = header.unwrap_or_else(|| ChainHeader {
                        targets: vec![(GroupId::DEFAULT, first - 1)],
                        floor: first - 1,
                        others: Vec::new(),
                    });
                    peer.chains(&self.groups).on_header(first, last, &header);
                    let mut kept = Vec::new();
                    for (i, frame) in Frames::new(datagram, &h).enumerate() {
                        let Ok(frame) = frame else { break };
                        let seq = first + i as u64;
                        if accept_reliable(peer, seq, frame, &mut sink, true) {
                            kept.push(seq);
                        }
                    }
                    if let Some(c) = peer.chains.as_mut() {
                        c.arrived(kept);
                    }
                    drain_chained(peer, &mut sink);
                }
            }
            DatagramKind::BestEffort | DatagramKind::CellBestEffort => {
                sink.stats.best_effort_datagrams += 1;
                let (space, admit) = if h.kind == DatagramKind::CellBestEffort {
                    // What the window finds missing is mostly cells this node did not join, not
                    // loss: not counted (module docs).
                    (Space::Cell, peer.cells.admit(h.seq).0)
                } else {
                    let (admit, lost) = peer.best_effort.admit(h.seq);
                    sink.stats.best_effort_lost = sink.stats.best_effort_lost.saturating_add(lost);
                    (Space::BestEffort, admit)
                };
                if admit == Admit::Duplicate {
                    sink.stats.duplicate_best_effort += 1;
                    return None;
                }
                for frame in Frames::new(datagram, &h) {
                    let Ok(frame) = frame else { break };
                    let payload = match frame.kind {
                        FrameKind::Whole => Some(frame.payload),
                        FrameKind::Fragment {
                            index,
                            count,
                            offset,
                            total,
                        } => self.reassembly.insert(
                            now,
                            Piece {
                                from: h.sender,
                                space,
                                // numbers_valid checked seq >= 1; index < seq for a real sender.
                                msg: h.seq.wrapping_sub(u64::from(index)),
                                index,
                                count,
                                offset,
                                total,
                                payload: &frame.payload,
                            },
                        ),
                    };
                    if let Some(payload) = payload {
                        sink.stats.delivered_best_effort += 1;
                        sink.events.push_back(RecvEvent::Deliver {
                            from: h.sender,
                            seq: None,
                            payload,
                        });
                    }
                }
            }
        }
        rearm_nack(peer, now, &self.cfg);
        covered
    }
}

/// Sequence fields that cannot come from a correct sender (0, or overflowing) are malformed.
fn numbers_valid(h: &Header) -> bool {
    match h.kind {
        DatagramKind::Heartbeat | DatagramKind::ChainedHeartbeat => h.seq < u64::MAX,
        DatagramKind::BestEffort | DatagramKind::CellBestEffort => h.seq >= 1,
        DatagramKind::Reliable | DatagramKind::ChainedReliable => {
            h.seq >= 1 && h.seq.checked_add(u64::from(h.frames)).is_some()
        }
    }
}

/// Arm the NACK timer when a gap opens, disarm it when it closes.
fn rearm_nack(peer: &mut Peer, now: Instant, cfg: &DataConfig) {
    if peer.next <= peer.known_high {
        let soon = now + cfg.nack_delay;
        if peer.known_high > peer.nacked_upto {
            // Possibly a new gap above what was asked for: ask soon.
            peer.nack_due = Some(peer.nack_due.map_or(soon, |t| t.min(soon)));
        } else if peer.nack_due.is_none() {
            peer.nack_due = Some(peer.nacked_at.map_or(soon, |t| t + cfg.nack_retry));
        }
    } else {
        peer.nack_due = None;
        peer.nacked_at = None;
    }
}

/// Missing numbers between `max(next, from)` and `known_high`, as at most `max` inclusive ranges.
fn missing_ranges(peer: &Peer, from: u64, max: usize) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut cursor = peer.next.max(from);
    if cursor > peer.known_high {
        return out;
    }
    for &k in peer.ahead.range(cursor..=peer.known_high).map(|(k, _)| k) {
        if out.len() == max {
            return out;
        }
        if k > cursor {
            out.push((cursor, k - 1));
        }
        cursor = k + 1;
    }
    if cursor <= peer.known_high && out.len() < max {
        out.push((cursor, peer.known_high));
    }
    out
}

/// A reliable frame: delivered if it is next, kept ahead if there is room. Returns whether it
/// was kept (delivered or buffered). In the plain stream it also says how far the stream is
/// known to reach, and room is made by dropping what is furthest ahead (NACKed again later).
/// In a chained stream (`chained`) nothing buffered is ever dropped, since the chains may
/// already have settled past it: the new frame is refused instead and asked for again; only
/// a kept frame counts as arrived there.
fn accept_reliable(
    peer: &mut Peer,
    seq: u64,
    frame: Frame,
    sink: &mut Sink<'_>,
    chained: bool,
) -> bool {
    if !chained {
        if seq > peer.known_high + 1 && seq > peer.next {
            sink.stats.gaps += 1;
        }
        peer.known_high = peer.known_high.max(seq);
    }
    if seq < peer.next || peer.ahead.contains_key(&seq) {
        sink.stats.duplicate_frames += 1;
        return false;
    }
    if seq == peer.next {
        peer.next += 1;
        consume(peer, seq, frame, sink);
        return true;
    }
    let charge = frame.payload.len() + FRAME_COST;
    // Make room by dropping what is furthest ahead (it will be NACKed again), never what is
    // closer to delivery than the new frame.
    while !chained && *sink.reorder_bytes + charge > sink.cfg.reorder_capacity_bytes {
        let Some((&last, _)) = peer.ahead.last_key_value() else {
            break;
        };
        if last < seq {
            break;
        }
        if let Some(old) = peer.ahead.remove(&last) {
            let c = old.payload.len() + FRAME_COST;
            peer.ahead_bytes -= c;
            *sink.reorder_bytes -= c;
            sink.stats.reorder_overflow += 1;
        }
    }
    if *sink.reorder_bytes + charge > sink.cfg.reorder_capacity_bytes {
        sink.stats.reorder_overflow += 1;
        return false;
    }
    peer.ahead_bytes += charge;
    *sink.reorder_bytes += charge;
    peer.ahead.insert(seq, frame);
    true
}

fn drain_in_order(peer: &mut Peer, sink: &mut Sink<'_>) {
    while deliver_next_ahead(peer, sink) {}
}

/// Delivers what is in order: the plain stream's way, or the chained one's.
fn drain(peer: &mut Peer, sink: &mut Sink<'_>) {
    if peer.chains.is_some() {
        drain_chained(peer, sink);
    } else {
        drain_in_order(peer, sink);
    }
}

/// Delivers what is in order in a chained stream, passing over the positions that are not due
/// here (up to where the chains are complete), and updates what is known missing.
fn drain_chained(peer: &mut Peer, sink: &mut Sink<'_>) {
    let Some(ct) = peer.chains.as_ref().map(|c| c.complete_through()) else {
        return;
    };
    let mut skipped_last = false;
    loop {
        if deliver_next_ahead(peer, sink) {
            skipped_last = false;
            continue;
        }
        if peer.next > ct {
            break;
        }
        // Not arrived, yet settled: not due here. Up to the next frame held, or `ct`.
        let stop = peer
            .ahead
            .range(peer.next..)
            .next()
            .map_or(ct, |(k, _)| (k - 1).min(ct));
        sink.stats.skipped_positions = sink
            .stats
            .skipped_positions
            .saturating_add(stop - peer.next + 1);
        if peer.assembly.take().is_some() {
            // A message whose fragments went to different groups: no correct sender does that.
            sink.stats.inconsistent_messages += 1;
        }
        peer.next = stop + 1;
        skipped_last = true;
    }
    if skipped_last {
        sink.events.push_back(RecvEvent::Skipped {
            from: sink.from,
            through: Seq(peer.next - 1),
        });
    }
    let missing = peer
        .chains
        .as_ref()
        .and_then(|c| c.highest_missing())
        .unwrap_or(0);
    peer.known_high = missing.max(peer.next - 1);
}

/// Delivers the frame buffered at `next`, if any; returns whether there was one.
fn deliver_next_ahead(peer: &mut Peer, sink: &mut Sink<'_>) -> bool {
    let Some(frame) = peer.ahead.remove(&peer.next) else {
        return false;
    };
    let c = frame.payload.len() + FRAME_COST;
    peer.ahead_bytes -= c;
    *sink.reorder_bytes -= c;
    let seq = peer.next;
    peer.next += 1;
    consume(peer, seq, frame, sink);
    true
}

/// Skip the stream forward to `next` (state transfer or fell behind), discarding what is older.
fn jump_to(peer: &mut Peer, next: u64, sink: &mut Sink<'_>) {
    if next <= peer.next {
        return;
    }
    let keep = peer.ahead.split_off(&next);
    for f in std::mem::replace(&mut peer.ahead, keep).into_values() {
        let c = f.payload.len() + FRAME_COST;
        peer.ahead_bytes -= c;
        *sink.reorder_bytes -= c;
    }
    peer.assembly = None;
    peer.next = next;
    peer.known_high = peer.known_high.max(next - 1);
    peer.nacked_upto = peer.nacked_upto.max(next - 1);
    if let Some(c) = peer.chains.as_mut() {
        c.settle_through(next - 1);
    }
}

/// Deliver the in-order frame `seq` (whole message, or a piece of one).
fn consume(peer: &mut Peer, seq: u64, frame: Frame, sink: &mut Sink<'_>) {
    let (index, count, offset, total) = match frame.kind {
        FrameKind::Whole => {
            if peer.assembly.take().is_some() {
                sink.stats.inconsistent_messages += 1;
            }
            sink.stats.delivered_reliable += 1;
            sink.events.push_back(RecvEvent::Deliver {
                from: sink.from,
                seq: Some(Seq(seq)),
                payload: frame.payload,
            });
            return;
        }
        FrameKind::Fragment {
            index,
            count,
            offset,
            total,
        } => (index, count, offset, total),
    };
    if index == 0 {
        if peer.assembly.take().is_some() {
            sink.stats.inconsistent_messages += 1;
        }
        let fits = total as usize <= sink.cfg.max_message;
        if !fits {
            sink.stats.too_large += 1;
        }
        peer.assembly = Some(Assembly {
            first_seq: seq,
            next_index: 0,
            count,
            total,
            buf: fits.then(|| Vec::with_capacity((total as usize).min(INITIAL_ASSEMBLY))),
        });
    }
    let Some(a) = peer.assembly.as_mut() else {
        sink.stats.orphan_fragments += 1;
        return;
    };
    let filled = a.buf.as_ref().map_or(offset as usize, Vec::len);
    if a.first_seq.checked_add(u64::from(index)) != Some(seq)
        || a.next_index != index
        || a.count != count
        || a.total != total
        || filled != offset as usize
    {
        sink.stats.inconsistent_messages += 1;
        peer.assembly = None;
        return;
    }
    if let Some(buf) = a.buf.as_mut() {
        grow_within(buf, frame.payload.len(), total as usize);
        buf.extend_from_slice(&frame.payload);
    }
    a.next_index += 1;
    if a.next_index < a.count {
        return;
    }
    let Some(done) = peer.assembly.take() else {
        return;
    };
    let Some(buf) = done.buf else {
        return;
    };
    if buf.len() != done.total as usize {
        sink.stats.inconsistent_messages += 1;
        return;
    }
    sink.stats.delivered_reliable += 1;
    sink.events.push_back(RecvEvent::Deliver {
        from: sink.from,
        seq: Some(Seq(seq)),
        payload: Bytes::from(buf),
    });
}

/// Makes room for `more` bytes in `buf` by doubling, but never beyond `total` (the message's
/// length, at most `max_message`): what a sender's claimed length costs is bounded by the
/// configuration, not by how the allocator rounds. The wire parser checked that the fragment
/// fits in `total`.
fn grow_within(buf: &mut Vec<u8>, more: usize, total: usize) {
    let need = buf.len().saturating_add(more);
    if need <= buf.capacity() {
        return;
    }
    let target = buf
        .capacity()
        .saturating_mul(2)
        .max(need)
        .min(total.max(need));
    buf.reserve_exact(target - buf.len());
}

#[cfg(test)]
mod tests {
    //! Best-effort number spaces: DDM cell traffic next to the default group's.

    use super::*;
    use crate::data::{DataSender, Reliability, peek};

    const TAG: FederationTag = FederationTag(7);
    const KEY: FederationKey = FederationKey([9; 32]);
    const TX: NodeId = NodeId(1);
    const RX: NodeId = NodeId(2);

    fn pair(cfg: DataConfig) -> (DataSender, DataReceiver) {
        let tx = DataSender::new(TX, TAG, &KEY, cfg.clone()).expect("config");
        let mut rx = DataReceiver::new(RX, TAG, &KEY, cfg).expect("config");
        rx.add_sender(TX);
        (tx, rx)
    }

    /// The datagrams of one send.
    fn emitted(f: impl FnOnce(&mut dyn FnMut(&[u8]))) -> Vec<Bytes> {
        let mut v = Vec::new();
        f(&mut |d: &[u8]| v.push(Bytes::copy_from_slice(d)));
        v
    }

    fn cell(tx: &mut DataSender, now: Instant, payload: &[u8]) -> Vec<Bytes> {
        emitted(|out| tx.send_cells(now, payload, &mut |d| out(d)).expect("send"))
    }

    fn best_effort(tx: &mut DataSender, now: Instant, payload: &[u8]) -> Vec<Bytes> {
        emitted(|out| {
            tx.send(now, Reliability::BestEffort, payload, &mut |d| out(d))
                .expect("send");
        })
    }

    fn heartbeat(tx: &mut DataSender, now: Instant) -> Bytes {
        let mut v = emitted(|out| tx.heartbeat(now, &mut |d| out(d)));
        assert_eq!(v.len(), 1);
        v.remove(0)
    }

    fn delivered(rx: &mut DataReceiver) -> Vec<Bytes> {
        let mut v = Vec::new();
        while let Some(ev) = rx.poll_event() {
            if let RecvEvent::Deliver { payload, seq, .. } = ev {
                assert_eq!(seq, None, "best effort only here");
                v.push(payload);
            }
        }
        v
    }

    /// A receiver in some of a sender's cell groups sees gaps in its cell numbers (the
    /// kernel dropped the rest): none of it counts as loss, even past the window and with
    /// heartbeats, and the sender's default-group numbers have no gap at all.
    #[test]
    fn cells_not_joined_are_not_loss() {
        let (mut tx, mut rx) = pair(DataConfig::default());
        let now = Instant::now();
        let mut want = 0;
        for i in 0u32..5000 {
            let d = cell(&mut tx, now, &i.to_le_bytes());
            assert_eq!(d.len(), 1);
            assert_eq!(
                peek(&d[0]).map(|h| h.kind),
                Ok(DatagramKind::CellBestEffort)
            );
            // Joined one cell in three (and, for a while, none).
            if i % 3 == 0 && !(1000..2500).contains(&i) {
                rx.on_datagram(now, d[0].clone());
                want += 1;
            }
            if i % 100 == 0 {
                for d in best_effort(&mut tx, now, b"default") {
                    rx.on_datagram(now, d);
                }
                rx.on_datagram(now, heartbeat(&mut tx, now));
            }
        }
        rx.on_datagram(now, heartbeat(&mut tx, now));
        assert_eq!(delivered(&mut rx).len(), want + 50);
        let s = rx.stats();
        assert_eq!(s.best_effort_lost, 0, "{s:?}");
        assert_eq!(s.best_effort_datagrams, want as u64 + 50);
        assert_eq!(s.duplicate_best_effort, 0);
        // The heartbeat announces the default group's numbers only.
        assert_eq!(heartbeat_best_effort_high(&heartbeat(&mut tx, now)), 50);
    }

    /// A cell message sent to two groups this node joined arrives twice: delivered once, the
    /// second copy counted as a duplicate (and as a datagram received).
    #[test]
    fn copies_on_two_joined_groups_are_delivered_once() {
        let (mut tx, mut rx) = pair(DataConfig::default());
        let now = Instant::now();
        let d = cell(&mut tx, now, b"both groups");
        rx.on_datagram(now, d[0].clone());
        rx.on_datagram(now, d[0].clone());
        let got = delivered(&mut rx);
        assert_eq!(got.len(), 1);
        assert_eq!(&got[0][..], b"both groups");
        let s = rx.stats();
        assert_eq!(
            (
                s.best_effort_datagrams,
                s.duplicate_best_effort,
                s.best_effort_lost
            ),
            (2, 1, 0)
        );
        // Cell number 1 and default-group number 1 are different messages.
        let d = best_effort(&mut tx, now, b"default one");
        assert_eq!(peek(&d[0]).map(|h| h.seq), Ok(1));
        rx.on_datagram(now, d[0].clone());
        assert_eq!(delivered(&mut rx).len(), 1);
    }

    /// With cell traffic interleaved (some joined, some not), a real loss on the default group
    /// is counted exactly, by datagrams and by heartbeats.
    #[test]
    fn default_group_loss_is_counted_exactly() {
        let (mut tx, mut rx) = pair(DataConfig::default());
        let now = Instant::now();
        let lose = [17u32, 18, 400, 1500];
        for i in 0u32..2100 {
            for d in cell(&mut tx, now, b"cell") {
                if i % 2 == 0 {
                    rx.on_datagram(now, d);
                }
            }
            for d in best_effort(&mut tx, now, &i.to_le_bytes()) {
                if !lose.contains(&i) {
                    rx.on_datagram(now, d);
                }
            }
        }
        // 17, 18, 400 left the window; 1500 is still in it.
        assert_eq!(rx.stats().best_effort_lost, 3);
        // The tail: 2100 more announced by a heartbeat alone (none arrives) push 1500 out, and
        // they themselves count once they leave in turn.
        for _ in 0..2100 {
            let _ = best_effort(&mut tx, now, b"unheard");
            let _ = cell(&mut tx, now, b"unheard cell");
        }
        rx.on_datagram(now, heartbeat(&mut tx, now));
        assert_eq!(rx.stats().best_effort_lost, 4 + 2100 - 1024);
    }

    /// Large messages fragment in both spaces: a cell message's fragments and a default-group
    /// message's with the same numbers, interleaved, reassemble into their own messages.
    #[test]
    fn cell_and_default_fragments_do_not_mix() {
        let cfg = DataConfig {
            max_datagram: 300,
            ..DataConfig::default()
        };
        let (mut tx, mut rx) = pair(cfg);
        let now = Instant::now();
        let a: Vec<u8> = (0..1000u32).map(|i| i as u8).collect();
        let b: Vec<u8> = (0..1000u32).map(|i| (i as u8) ^ 0xff).collect();
        let da = best_effort(&mut tx, now, &a);
        let db = cell(&mut tx, now, &b);
        assert!(da.len() > 2);
        assert_eq!(da.len(), db.len());
        for (x, y) in da.iter().zip(&db) {
            let (hx, hy) = (peek(x).expect("peek"), peek(y).expect("peek"));
            assert_eq!(hx.seq, hy.seq, "the same numbers in both spaces");
            assert_eq!(
                (hx.kind, hy.kind),
                (DatagramKind::BestEffort, DatagramKind::CellBestEffort)
            );
        }
        // Interleaved, the cell copies twice (two joined groups), in reverse order.
        for (x, y) in da.iter().zip(db.iter().rev()) {
            rx.on_datagram(now, y.clone());
            rx.on_datagram(now, x.clone());
            rx.on_datagram(now, y.clone());
        }
        let mut got = delivered(&mut rx);
        got.sort();
        let mut want = vec![Bytes::from(a), Bytes::from(b)];
        want.sort();
        assert_eq!(got, want);
        let s = rx.stats();
        assert_eq!(s.inconsistent_messages, 0, "{s:?}");
        assert_eq!(s.duplicate_best_effort, db.len() as u64);
        assert_eq!(s.best_effort_lost, 0);
        assert_eq!(rx.memory_bytes(), 0);
    }

    /// A cell send leaves the pending default-group batch alone (it is the caller's to flush,
    /// to its own group) and takes no number of the default group's space.
    #[test]
    fn a_cell_send_leaves_the_pending_batch_and_its_numbers_alone() {
        let (mut tx, mut rx) = pair(DataConfig::default());
        let now = Instant::now();
        let pushed = emitted(|out| {
            tx.push(now, Reliability::BestEffort, b"batched", &mut |d| out(d))
                .expect("push");
        });
        assert!(pushed.is_empty());
        let pending = tx.pending_bytes();
        let c = cell(&mut tx, now, b"to a cell");
        assert_eq!(c.len(), 1);
        assert_eq!(tx.pending_bytes(), pending);
        // The heartbeat announces nothing of the pending batch, and nothing of the cell send.
        assert_eq!(heartbeat_best_effort_high(&heartbeat(&mut tx, now)), 0);
        let flushed = emitted(|out| tx.flush(now, &mut |d| out(d)));
        assert_eq!(flushed.len(), 1);
        let (hb, hc) = (peek(&flushed[0]).expect("peek"), peek(&c[0]).expect("peek"));
        assert_eq!((hb.kind, hb.seq), (DatagramKind::BestEffort, 1));
        assert_eq!((hc.kind, hc.seq), (DatagramKind::CellBestEffort, 1));
        assert_eq!(heartbeat_best_effort_high(&heartbeat(&mut tx, now)), 1);
        rx.on_datagram(now, c[0].clone());
        rx.on_datagram(now, flushed[0].clone());
        assert_eq!(delivered(&mut rx).len(), 2);
        assert_eq!(tx.stats().messages, 2);
    }

    /// A cell message forged with number 0 is malformed, like a best-effort one.
    #[test]
    fn cell_number_zero_is_malformed() {
        let h = Header {
            kind: DatagramKind::CellBestEffort,
            frames: 1,
            tag: TAG,
            sender: TX,
            seq: 0,
        };
        assert!(!numbers_valid(&h));
        assert!(numbers_valid(&Header { seq: 1, ..h }));
    }
}
