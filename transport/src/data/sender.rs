//! The sending side of one federation's data stream.
//!
//! `send` emits at once (one datagram, or one per fragment); `push` packs small messages into a
//! pending datagram that goes out when full, when the reliability changes, or on `flush` — the
//! batching the hot path uses under load. Datagrams are built in reused buffers; the only
//! per-message allocation is the retransmit copy of a reliable datagram.
//!
//! Three number spaces per sender: reliable frames, best-effort datagrams on the default
//! group, and best-effort datagrams on DDM cell groups (`send_cells`, never batched). Cell
//! traffic has its own space because a receiver hears only the cell groups it joined: numbered
//! from the default-group counter, every cell message it did not join would look lost to it.

use std::collections::VecDeque;
use std::time::Instant;

use bytes::Bytes;
use serde_bytes::ByteBuf;

use crate::data::auth::DatagramAuth;
use crate::data::chain::{ChainWriter, GroupId};
use crate::data::repair::{Nack, Repair};
use crate::data::retransmit::RetransmitBuffer;
use crate::data::wire::{DatagramKind, DatagramWriter, HEADER_LEN, MAC_LEN, WHOLE_FRAME_HEADER};
use crate::data::{ConfigError, DataConfig, Reliability, Seq};
use crate::id::{FederationKey, FederationTag, NodeId};

/// Why a message was not sent.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// Larger than `DataConfig::max_message`.
    #[error("message of {len} bytes exceeds the maximum of {max}")]
    TooLarge {
        /// Message length.
        len: usize,
        /// Configured maximum.
        max: usize,
    },
    /// The caller numbered a reliable message otherwise than the stream would: nothing was
    /// sent (a layer that keeps its own count of the stream would otherwise promise numbers
    /// the receivers never see).
    #[error("message numbered {given}, but it would be sent as number {next}")]
    OutOfSequence {
        /// The number the caller gave the message.
        given: u64,
        /// The number the stream gives it (its last fragment's).
        next: u64,
    },
}

/// Counters of a [`DataSender`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SendStats {
    /// Data datagrams emitted (not counting heartbeats and repairs).
    pub datagrams: u64,
    /// Bytes of those datagrams.
    pub bytes: u64,
    /// Messages accepted (reliable + best-effort).
    pub messages: u64,
    /// Messages that needed fragmentation.
    pub fragmented_messages: u64,
    /// Heartbeats emitted.
    pub heartbeats: u64,
    /// NACKs answered.
    pub nacks: u64,
    /// Datagrams handed out for repair.
    pub repaired_datagrams: u64,
    /// NACKs that asked for something already evicted.
    pub too_old: u64,
    /// Datagrams evicted from the retransmit buffer.
    pub evicted: u64,
    /// Reliable messages refused because the caller numbered them otherwise than the stream
    /// ([`SendError::OutOfSequence`]; always 0 unless a layer above miscounts).
    pub out_of_sequence: u64,
}

#[derive(Debug)]
struct Pending {
    buf: Vec<u8>,
    rel: Option<Reliability>,
    frames: u16,
    first_seq: u64,
    /// When the pending datagram got its first message (it leaves at most `max_batch_delay`
    /// later, if the shell does not flush sooner).
    since: Option<Instant>,
}

/// One node's sender for one federation.
#[derive(Debug)]
pub struct DataSender {
    node: NodeId,
    tag: FederationTag,
    auth: DatagramAuth,
    cfg: DataConfig,
    next_seq: u64,
    next_best_effort: u64,
    /// Next number of a cell best-effort message ([`DataSender::send_cells`]).
    next_cell: u64,
    scratch: Vec<u8>,
    pending: Pending,
    retransmit: RetransmitBuffer,
    next_heartbeat: Option<Instant>,
    tail_heartbeat: Option<Instant>,
    stats: SendStats,
    /// Where the reliable frames went, once one went to a DDM cell group
    /// ([`DataSender::send_reliable_cells`]); `None` while every one went to the default group
    /// (the plain stream, no chain headers).
    chain: Option<ChainWriter>,
    /// (when, last reliable number sent by then), oldest first, one every `retransmit_min_keep
    /// / MARKS` at most: tells [`DataSender::release_acknowledged`] what is old enough to go.
    marks: VecDeque<(Instant, u64)>,
}

/// Age marks per `retransmit_min_keep` (the age test is this coarse, and this many are kept).
const MARKS: u32 = 8;

impl DataSender {
    /// A sender that has sent nothing (next sequence number 1).
    pub fn new(
        node: NodeId,
        tag: FederationTag,
        key: &FederationKey,
        cfg: DataConfig,
    ) -> Result<Self, ConfigError> {
        cfg.validate()?;
        Ok(DataSender {
            node,
            tag,
            auth: DatagramAuth::new(key),
            retransmit: RetransmitBuffer::new(
                cfg.retransmit_capacity_bytes,
                cfg.retransmit_capacity_msgs,
            ),
            scratch: Vec::with_capacity(cfg.max_datagram),
            pending: Pending {
                buf: Vec::with_capacity(cfg.max_datagram),
                rel: None,
                frames: 0,
                first_seq: 0,
                since: None,
            },
            cfg,
            next_seq: 1,
            next_best_effort: 1,
            next_cell: 1,
            next_heartbeat: None,
            tail_heartbeat: None,
            stats: SendStats::default(),
            chain: None,
            marks: VecDeque::new(),
        })
    }

    /// The last reliable sequence number assigned (0: none). Includes messages pushed but not yet
    /// flushed: flush before sending a control message that carries this value.
    pub fn high_water(&self) -> Seq {
        Seq(self.next_seq - 1)
    }

    /// Counts a send refused by [`SendError::OutOfSequence`].
    pub fn refused_out_of_sequence(&mut self) {
        self.stats.out_of_sequence += 1;
    }

    /// The reliable number a message of `len` bytes sent next gets (its last fragment's).
    pub fn next_number(&self, len: usize) -> Seq {
        Seq(self.next_seq - 1 + self.cfg.reliable_numbers(len))
    }

    /// The federation this stream belongs to (route datagrams by `peek(..).tag`).
    pub fn tag(&self) -> FederationTag {
        self.tag
    }

    /// Counters.
    pub fn stats(&self) -> SendStats {
        let mut s = self.stats.clone();
        s.evicted = self.retransmit.evicted();
        s
    }

    /// Bytes and datagrams held in the retransmit buffer.
    pub fn retransmit_usage(&self) -> (usize, usize) {
        (self.retransmit.bytes(), self.retransmit.len())
    }

    /// Send one message now. A pending datagram of the same reliability with room for it takes
    /// it and leaves (one datagram for both); otherwise the pending datagram leaves first and
    /// the message in its own datagram, or one per fragment. Emits through `out`. Returns the
    /// message's sequence number if reliable.
    pub fn send(
        &mut self,
        now: Instant,
        rel: Reliability,
        payload: &[u8],
        out: &mut impl FnMut(&[u8]),
    ) -> Result<Option<Seq>, SendError> {
        self.check_len(payload)?;
        if self.pending.rel == Some(rel) && self.fits_pending(payload) {
            let seq = self.push(now, rel, payload, out)?;
            self.flush(now, out);
            return Ok(seq);
        }
        self.flush(now, out);
        let last = if rel == Reliability::Reliable && self.needs_chain_header() {
            self.emit_message(Stream::Reliable, Some(&[]), payload, out)
        } else {
            let last = self.emit_message(Stream::of(rel), None, payload, out);
            if rel == Reliability::Reliable
                && let Some(c) = &mut self.chain
            {
                c.record_default(last);
            }
            last
        };
        self.note_sent(now);
        Ok((rel == Reliability::Reliable).then_some(Seq(last)))
    }

    /// Whether the next reliable frame, to the default group, must carry a chain header: the
    /// frame before it went to a cell group (see [`crate::data::chain`]).
    fn needs_chain_header(&self) -> bool {
        self.chain.as_ref().is_some_and(|c| !c.plain(self.next_seq))
    }

    /// Send one reliable message to DDM cell groups `groups` now (an empty list: the default
    /// group), each datagram with its chain header ([`crate::data::chain`]): `out` is called
    /// once per datagram (one, or one per fragment) and sends it to every group of the message
    /// (every copy the same bytes). It takes the positions of the one reliable space, as many
    /// as [`crate::data::DataConfig::reliable_numbers`] says, and is repaired like any reliable
    /// message. The pending datagram is not touched: the caller flushes it to the default
    /// group first. Returns the message's sequence number (its last frame's).
    pub fn send_reliable_cells(
        &mut self,
        now: Instant,
        groups: &[GroupId],
        payload: &[u8],
        out: &mut impl FnMut(&[u8]),
    ) -> Result<Seq, SendError> {
        self.check_len(payload)?;
        debug_assert!(self.pending.rel != Some(Reliability::Reliable));
        let last = self.emit_message(Stream::Reliable, Some(groups), payload, out);
        self.note_sent(now);
        Ok(Seq(last))
    }

    /// Starts recording where reliable frames go, at the first one sent to a cell group:
    /// everything sent before went to the default group (the plain stream).
    fn start_chain(&mut self) {
        if self.chain.is_none() {
            let mut c = ChainWriter::new();
            let before = self.next_seq - 1;
            if before > 0 {
                c.record_default(before);
            }
            self.chain = Some(c);
        }
    }

    /// Send one best-effort message to DDM cell groups now: `out` is called once per datagram
    /// (one, or one per fragment) and sends it to every group of the message (each copy the
    /// same bytes, so the same number: a receiver in two of those groups delivers it once).
    /// Numbered from the cell counter, not the default group's best-effort counter, so a
    /// receiver that hears only some cell groups sees no gap in the default group's numbers
    /// (see the module docs). The pending datagram is not touched: it belongs to the default
    /// group, and the caller flushes it there first if it must leave before this message.
    pub fn send_cells(
        &mut self,
        now: Instant,
        payload: &[u8],
        out: &mut impl FnMut(&[u8]),
    ) -> Result<(), SendError> {
        self.check_len(payload)?;
        self.emit_message(Stream::Cell, None, payload, out);
        // No tail heartbeat: heartbeats announce nothing of the cell space (a receiver cannot
        // measure loss there); only the period starts, as for any first send.
        if self.next_heartbeat.is_none() {
            self.next_heartbeat = Some(now + self.cfg.heartbeat_interval);
        }
        Ok(())
    }

    /// Emit one message of `stream` in its own datagram, or one per fragment, numbered from
    /// that stream's counter; with `chained` (reliable only), each datagram carries the chain
    /// header of its position going to those groups (an empty list: the default group). The
    /// positions a message takes do not depend on the header (see the wire docs). Returns the
    /// number of its last datagram.
    fn emit_message(
        &mut self,
        stream: Stream,
        chained: Option<&[GroupId]>,
        payload: &[u8],
        out: &mut impl FnMut(&[u8]),
    ) -> u64 {
        self.stats.messages += 1;
        if chained.is_some() {
            self.start_chain();
        }
        let rel = stream.reliability();
        let whole = payload.len() <= self.cfg.max_whole(rel);
        let piece = if whole {
            payload.len().max(1)
        } else {
            self.stats.fragmented_messages += 1;
            self.cfg.fragment(rel)
        };
        let count = payload.len().div_ceil(piece).max(1);
        // Lengths fit in u32: checked against max_message, which `validate` bounds by u32::MAX.
        let (count32, total32) = (count as u32, payload.len() as u32);
        let mut last = 0;
        for index in 0..count {
            let seq = self.take_number(stream);
            let mut w = match (chained, self.chain.as_mut()) {
                (Some(groups), Some(c)) => {
                    let header = c.send(groups, seq, seq);
                    DatagramWriter::begin_chained(
                        &mut self.scratch,
                        self.tag,
                        self.node,
                        seq,
                        &header,
                    )
                }
                _ => DatagramWriter::begin(
                    &mut self.scratch,
                    stream.kind(),
                    self.tag,
                    self.node,
                    seq,
                ),
            };
            if whole {
                w.push_whole(payload);
            } else {
                let chunk = &payload[index * piece..((index + 1) * piece).min(payload.len())];
                w.push_fragment(
                    index as u32,
                    count32,
                    (index * piece) as u32,
                    total32,
                    chunk,
                );
            }
            w.finish(&self.auth);
            Self::emitted(
                &mut self.stats,
                &mut self.retransmit,
                rel,
                seq,
                1,
                &self.scratch,
                out,
            );
            last = seq;
        }
        last
    }

    /// Add a message to the pending datagram (batching). The pending datagram is emitted when
    /// the next message does not fit, when the reliability changes, or on [`DataSender::flush`];
    /// a message too large for one datagram is sent at once, fragmented. Returns the message's
    /// sequence number if reliable (assigned now, so it counts in `high_water` immediately).
    pub fn push(
        &mut self,
        now: Instant,
        rel: Reliability,
        payload: &[u8],
        out: &mut impl FnMut(&[u8]),
    ) -> Result<Option<Seq>, SendError> {
        self.check_len(payload)?;
        if payload.len() > self.cfg.max_whole(rel) {
            return self.send(now, rel, payload, out);
        }
        let fits = self.pending.rel == Some(rel) && self.fits_pending(payload);
        if !fits {
            self.flush(now, out);
            if rel == Reliability::Reliable && self.needs_chain_header() {
                // The first default-group frame after cell traffic says so in its header; it
                // leaves alone, and the frames after it batch as usual.
                let last = self.emit_message(Stream::Reliable, Some(&[]), payload, out);
                self.note_sent(now);
                return Ok(Some(Seq(last)));
            }
        }
        self.stats.messages += 1;
        // Reliable numbers are per frame; a best-effort datagram has one number for all frames.
        let seq = if self.pending.rel.is_none() || rel == Reliability::Reliable {
            self.take_number(Stream::of(rel))
        } else {
            self.pending.first_seq
        };
        let mut w = if self.pending.rel.is_none() {
            self.pending.rel = Some(rel);
            self.pending.first_seq = seq;
            self.pending.since = Some(now);
            DatagramWriter::begin(
                &mut self.pending.buf,
                Stream::of(rel).kind(),
                self.tag,
                self.node,
                seq,
            )
        } else {
            DatagramWriter::resume(&mut self.pending.buf, self.pending.frames)
        };
        w.push_whole(payload);
        self.pending.frames = w.frames();
        Ok((rel == Reliability::Reliable).then_some(Seq(seq)))
    }

    /// Whether `payload` fits, whole, in the pending datagram (of its reliability: a reliable
    /// message too long to travel whole is never batched, or it would take fewer positions
    /// than [`DataConfig::reliable_numbers`] gives it).
    fn fits_pending(&self, payload: &[u8]) -> bool {
        let Some(rel) = self.pending.rel else {
            return false;
        };
        payload.len() <= self.cfg.max_whole(rel)
            && self.pending.buf.len() + WHOLE_FRAME_HEADER + payload.len()
                <= self.cfg.max_datagram - MAC_LEN
            && self.pending.frames < u16::MAX
    }

    /// Bytes waiting in the pending datagram (0: nothing pending).
    pub fn pending_bytes(&self) -> usize {
        if self.pending.rel.is_some() {
            self.pending.buf.len()
        } else {
            0
        }
    }

    /// Emit the pending datagram, if any.
    pub fn flush(&mut self, now: Instant, out: &mut impl FnMut(&[u8])) {
        let Some(rel) = self.pending.rel.take() else {
            return;
        };
        let w = DatagramWriter::resume(&mut self.pending.buf, self.pending.frames);
        w.finish(&self.auth);
        let (first, frames) = (self.pending.first_seq, u64::from(self.pending.frames));
        self.pending.frames = 0;
        self.pending.since = None;
        // Only reliable numbers are per frame; a best-effort datagram is one number.
        let frames = if rel == Reliability::Reliable {
            frames
        } else {
            1
        };
        Self::emitted(
            &mut self.stats,
            &mut self.retransmit,
            rel,
            first,
            frames,
            &self.pending.buf,
            out,
        );
        if rel == Reliability::Reliable
            && let Some(c) = &mut self.chain
        {
            c.record_default(first + frames - 1);
        }
        self.note_sent(now);
    }

    /// Emit a heartbeat now (reliable and default-group best-effort high-waters; nothing of the
    /// cell space, whose loss receivers do not measure) and restart the period.
    pub fn heartbeat(&mut self, now: Instant, out: &mut impl FnMut(&[u8])) {
        // Announce only what has left: numbers of a pending datagram would draw useless NACKs.
        let (mut reliable_high, mut best_effort_high) =
            (self.next_seq - 1, self.next_best_effort - 1);
        match self.pending.rel {
            Some(Reliability::Reliable) => reliable_high = self.pending.first_seq - 1,
            Some(Reliability::BestEffort) => best_effort_high = self.pending.first_seq - 1,
            None => {}
        }
        let kind = if self.chain.is_some() {
            DatagramKind::ChainedHeartbeat
        } else {
            DatagramKind::Heartbeat
        };
        let mut w =
            DatagramWriter::begin(&mut self.scratch, kind, self.tag, self.node, reliable_high);
        w.push_raw(&best_effort_high.to_le_bytes());
        if let Some(c) = &self.chain {
            // What has left only: a pending batch is recorded when it leaves.
            w.push_tail(&c.tail(reliable_high));
        }
        w.finish(&self.auth);
        out(&self.scratch);
        self.stats.heartbeats += 1;
        self.tail_heartbeat = None;
        self.next_heartbeat = Some(now + self.cfg.heartbeat_interval);
    }

    /// When [`DataSender::on_timeout`] wants to be called (None: nothing sent or pending).
    pub fn poll_timeout(&self) -> Option<Instant> {
        [
            self.next_heartbeat,
            self.tail_heartbeat,
            self.pending.since.map(|t| t + self.cfg.max_batch_delay),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Timer expiry: flushes a pending datagram that has waited `max_batch_delay`, and sends a
    /// heartbeat if one is due.
    pub fn on_timeout(&mut self, now: Instant, out: &mut impl FnMut(&[u8])) {
        if self
            .pending
            .since
            .is_some_and(|t| t + self.cfg.max_batch_delay <= now)
        {
            self.flush(now, out);
        }
        let beat = [self.next_heartbeat, self.tail_heartbeat]
            .into_iter()
            .flatten()
            .min();
        if beat.is_some_and(|t| t <= now) {
            self.heartbeat(now, out);
        }
    }

    /// Releases the retransmit copies of every reliable message up to `acknowledged` that was
    /// sent at least `retransmit_min_keep` ago. The caller passes the position every current
    /// receiver has acknowledged delivering (see [`crate::flow`]), or this sender's high-water
    /// when nobody receives: no receiver will NACK those again. The minimum age covers a
    /// receiver that joins while the stream runs and is counted from a position it has not
    /// delivered yet (it may still NACK what it missed just before).
    ///
    /// This keeps the buffer at what some receiver may still ask for (about one flow-control
    /// window plus `retransmit_min_keep` of traffic) instead of filling it to its limits. Call it
    /// from time to time (the node does, on the sender's timer); it is not on the send path.
    pub fn release_acknowledged(&mut self, now: Instant, acknowledged: Seq) {
        let step = self.cfg.retransmit_min_keep / MARKS;
        if self.marks.back().is_none_or(|(t, _)| *t + step <= now) {
            self.marks.push_back((now, self.next_seq - 1));
        }
        // The newest mark at least `retransmit_min_keep` old: what was sent before it may go.
        let keep = self.cfg.retransmit_min_keep;
        while self.marks.get(1).is_some_and(|(t, _)| *t + keep <= now) {
            self.marks.pop_front();
        }
        let Some(&(t, old)) = self.marks.front() else {
            return;
        };
        if t + keep <= now {
            self.retransmit.release_through(old.min(acknowledged.0));
        }
    }

    /// Answer a receiver's NACK from the retransmit buffer. Ranges beyond `max_nack_ranges`, and
    /// datagrams beyond `max_repair_bytes`, are left for the receiver's next NACK.
    pub fn on_nack(&mut self, _now: Instant, _from: NodeId, nack: &Nack) -> Repair {
        self.stats.nacks += 1;
        let first_available = self.retransmit.first_available(self.next_seq);
        let mut found: Vec<Bytes> = Vec::new();
        let mut budget = self.cfg.max_repair_bytes;
        let mut skip_until = 0;
        let mut too_old = false;
        for &(first, last) in nack.ranges.iter().take(self.cfg.max_nack_ranges) {
            if first > last || first >= self.next_seq {
                continue;
            }
            too_old |= first < first_available;
            let first = first.max(first_available);
            let last = last.min(self.next_seq - 1);
            if first > last {
                continue;
            }
            (budget, skip_until) = self
                .retransmit
                .collect(first, last, budget, &mut found, skip_until);
        }
        if too_old {
            self.stats.too_old += 1;
        }
        self.stats.repaired_datagrams += found.len() as u64;
        Repair {
            first_available,
            datagrams: found.iter().map(|d| ByteBuf::from(d.to_vec())).collect(),
        }
    }

    fn check_len(&self, payload: &[u8]) -> Result<(), SendError> {
        if payload.len() > self.cfg.max_message {
            return Err(SendError::TooLarge {
                len: payload.len(),
                max: self.cfg.max_message,
            });
        }
        Ok(())
    }

    fn take_number(&mut self, stream: Stream) -> u64 {
        let n = match stream {
            Stream::Reliable => &mut self.next_seq,
            Stream::BestEffort => &mut self.next_best_effort,
            Stream::Cell => &mut self.next_cell,
        };
        let v = *n;
        *n += 1;
        v
    }

    fn emitted(
        stats: &mut SendStats,
        retransmit: &mut RetransmitBuffer,
        rel: Reliability,
        first: u64,
        frames: u64,
        datagram: &[u8],
        out: &mut impl FnMut(&[u8]),
    ) {
        debug_assert!(datagram.len() > HEADER_LEN);
        out(datagram);
        stats.datagrams += 1;
        stats.bytes += datagram.len() as u64;
        if rel == Reliability::Reliable {
            retransmit.push(first, frames, datagram);
        }
    }

    fn note_sent(&mut self, now: Instant) {
        self.tail_heartbeat = Some(now + self.cfg.tail_heartbeat_delay);
        if self.next_heartbeat.is_none() {
            self.next_heartbeat = Some(now + self.cfg.heartbeat_interval);
        }
    }
}

/// A sender's number spaces (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stream {
    /// Reliable frames.
    Reliable,
    /// Best-effort datagrams on the default group.
    BestEffort,
    /// Best-effort datagrams on DDM cell groups.
    Cell,
}

impl Stream {
    fn of(rel: Reliability) -> Stream {
        match rel {
            Reliability::Reliable => Stream::Reliable,
            Reliability::BestEffort => Stream::BestEffort,
        }
    }

    fn kind(self) -> DatagramKind {
        match self {
            Stream::Reliable => DatagramKind::Reliable,
            Stream::BestEffort => DatagramKind::BestEffort,
            Stream::Cell => DatagramKind::CellBestEffort,
        }
    }

    fn reliability(self) -> Reliability {
        match self {
            Stream::Reliable => Reliability::Reliable,
            Stream::BestEffort | Stream::Cell => Reliability::BestEffort,
        }
    }
}
