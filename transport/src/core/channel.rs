//! One federation's data channel on this node, as parts the shell can keep behind separate
//! locks: the member table with the flow window ([`Members`]), the send side ([`SendSide`]: the
//! data sender and its batching policy) and the receive path ([`crate::core::ReceivePath`]).
//! [`ChannelParts`] is how the member-frame protocol ([`crate::core::dispatch`]) reaches them.
//!
//! - **Members** are the peers whose data this node accepts in the federation, each with the
//!   first reliable sequence number of its stream received here: where the peer's stream stood
//!   when the two became channel members (its `Joined` frame said so). Every member is also a
//!   receiver of this node's stream, so the flow window ([`FlowWindow`]) counts it from its
//!   joining on, and stops waiting for it when it leaves.
//! - **The send side** decides per message whether it joins the pending datagram or leaves at
//!   once ([`BatchPolicy`]), answers NACKs from the retransmit buffer and says where this node's
//!   stream stands (the `next_seq` of its `Joined` frames: the sender's sequence numbers are
//!   the truth, nothing predicts them).

use std::collections::HashMap;
use std::time::Instant;

use crate::core::batch::{BatchPolicy, MAX_BATCH_DELAY, SendContext};
use crate::core::{Output, ReceivePath};
use crate::data::{DataSender, Nack, Reliability, SendError, Seq};
use crate::flow::{AckPolicy, FlowConfig, FlowWindow, Room};
use crate::frame::Frame;
use crate::id::{FederationKey, FederationTag, NodeId};

/// The member table of one federation's channel and the flow window over the members (see the
/// module docs). The window exists only with flow control on; the table always.
#[derive(Debug)]
pub struct Members {
    tag: FederationTag,
    /// Each member, with the first reliable sequence number of its stream received here.
    first_seq: HashMap<NodeId, u64>,
    /// `None` with flow control off: this node's sends never wait (it still acknowledges what
    /// it receives, for senders that do).
    window: Option<FlowWindow>,
    /// When receivers acknowledge this node's stream (sent along with an acknowledgement
    /// request: a receiver's own policy may be wider).
    ack: AckPolicy,
}

impl Members {
    /// The members of federation `tag`'s channel: none yet. `flow` sets the window (kept only
    /// when `flow_control` is on) and the acknowledgement policy.
    pub fn new(tag: FederationTag, flow: FlowConfig, flow_control: bool) -> Members {
        Members {
            tag,
            first_seq: HashMap::new(),
            window: flow_control.then(|| FlowWindow::new(flow)),
            ack: flow.ack_policy(),
        }
    }

    /// When this node acknowledges, and asks its receivers to acknowledge.
    pub fn ack_policy(&self) -> AckPolicy {
        self.ack
    }

    /// Whether this node's sends are flow-controlled.
    pub fn flow_control(&self) -> bool {
        self.window.is_some()
    }

    /// `node` is a member from `now` on, its stream received here from `next_seq` (at least
    /// 1). Returns whether it is new: a second `Joined` of a member changes nothing.
    pub fn join(&mut self, now: Instant, node: NodeId, next_seq: u64) -> bool {
        if self.first_seq.contains_key(&node) {
            return false;
        }
        self.first_seq.insert(node, next_seq.max(1));
        if let Some(w) = &mut self.window {
            w.add_receiver(node, now);
        }
        true
    }

    /// `node` is no member any more (it left the channel or the mesh). Returns whether it was
    /// one; the flow window then no longer waits for it.
    pub fn leave(&mut self, node: NodeId) -> bool {
        if self.first_seq.remove(&node).is_none() {
            return false;
        }
        if let Some(w) = &mut self.window {
            w.remove_receiver(node);
        }
        true
    }

    /// `node` acknowledged this node's stream up to `position`; true when that may have opened
    /// room in the window.
    pub fn on_ack(&mut self, now: Instant, node: NodeId, position: u64) -> bool {
        self.window
            .as_mut()
            .is_some_and(|w| w.on_ack(node, position, now))
    }

    /// This node sent a reliable message at `position` with `bytes` of payload.
    pub fn on_sent(&mut self, position: u64, bytes: usize) {
        if let Some(w) = &mut self.window {
            w.on_sent(position, bytes);
        }
    }

    /// Whether this node may send now (always, with flow control off).
    pub fn room(&mut self, now: Instant) -> Room {
        self.window.as_mut().map_or(Room::Open, |w| w.room(now))
    }

    /// The position every member has acknowledged delivering, with flow control on (see
    /// [`FlowWindow::delivered_by_all`]); the sender may release its retransmit copies up to it.
    pub fn delivered_by_all(&self) -> Option<u64> {
        self.window.as_ref().map(FlowWindow::delivered_by_all)
    }

    /// Times a member was left out of the window for not acknowledging.
    pub fn stalls(&self) -> u64 {
        self.window.as_ref().map_or(0, FlowWindow::stalls)
    }

    /// The first sequence number of member `node`'s stream received here (`None`: no member).
    pub fn first_seq(&self, node: NodeId) -> Option<u64> {
        self.first_seq.get(&node).copied()
    }

    /// Whether `node` is a member.
    pub fn contains(&self, node: NodeId) -> bool {
        self.first_seq.contains_key(&node)
    }

    /// The members, in id order.
    pub fn members(&self) -> Vec<NodeId> {
        let mut v: Vec<NodeId> = self.first_seq.keys().copied().collect();
        v.sort();
        v
    }

    /// A sender that starts to wait for room asks every member for an acknowledgement now, and
    /// for later ones at this node's pace: the frames to send (flush the pending datagram
    /// first, so that the receivers can have everything they acknowledge).
    pub fn ack_requests(&self) -> Vec<Output> {
        self.members()
            .into_iter()
            .map(|to| Output::Transmit {
                to,
                frame: Frame::AckRequest {
                    tag: self.tag,
                    policy: self.ack,
                },
            })
            .collect()
    }
}

/// One message to send, with what the batching decision needs besides the time.
#[derive(Clone, Copy, Debug)]
pub struct Outgoing<'a> {
    /// Reliable or best effort.
    pub reliability: Reliability,
    /// The message.
    pub payload: &'a [u8],
    /// It may wait for the next message (`send_held`).
    pub hold: bool,
    /// Datagrams from other nodes received in the federation so far (a running count).
    pub heard: u64,
    /// When the shell's timer (the data thread) runs next at the latest.
    pub timer_by: Option<Instant>,
    /// The number the caller gave this reliable message, if it numbers its messages itself
    /// (the LRC's core does: its time promises, snapshots and resignations name positions in
    /// its own stream). The send is refused with [`SendError::OutOfSequence`], and nothing
    /// leaves, unless it is the number the stream gives the message.
    pub number: Option<Seq>,
}

/// A federation's send side: the data sender and its batching decisions, kept together (the
/// shell keeps them under one lock, which serialises the decisions).
#[derive(Debug)]
pub struct SendSide {
    tx: DataSender,
    batch: BatchPolicy,
}

impl SendSide {
    /// The send side of `tx`, batching automatically.
    pub fn new(tx: DataSender) -> SendSide {
        SendSide {
            tx,
            batch: BatchPolicy::default(),
        }
    }

    /// The data sender.
    pub fn sender(&self) -> &DataSender {
        &self.tx
    }

    /// Sends one message at `now`: into the pending datagram if the batching policy says so,
    /// otherwise at once, with whatever is pending. `out` is called once per datagram. Returns
    /// the message's sequence number (reliable messages). Report the end of the send with
    /// [`SendSide::sent`].
    pub fn send(
        &mut self,
        now: Instant,
        msg: Outgoing<'_>,
        out: &mut impl FnMut(&[u8]),
    ) -> Result<Option<Seq>, SendError> {
        if let Some(given) = msg.number
            && msg.reliability == Reliability::Reliable
        {
            let next = self.tx.next_number(msg.payload.len());
            if given != next {
                self.tx.refused_out_of_sequence();
                return Err(SendError::OutOfSequence {
                    given: given.0,
                    next: next.0,
                });
            }
        }
        let batch = self.batch.decide(
            now,
            SendContext {
                hold: msg.hold,
                pending_bytes: self.tx.pending_bytes(),
                heard: msg.heard,
                data_wake_by: msg.timer_by,
            },
        );
        if batch {
            self.tx.push(now, msg.reliability, msg.payload, out)
        } else {
            self.tx.send(now, msg.reliability, msg.payload, out)
        }
    }

    /// The send begun at `begun` ended at `end` (`None`: no datagram left, so it ended as
    /// begun). The batching policy measures the gap to the next send from here.
    pub fn sent(&mut self, begun: Instant, end: Option<Instant>) {
        self.batch.sent(begun, end);
    }

    /// Sends the pending datagram now, if any.
    pub fn flush(&mut self, now: Instant, out: &mut impl FnMut(&[u8])) {
        self.tx.flush(now, out);
    }

    /// Sends one DDM cell-group message at once, in its own datagram(s), whatever the batching
    /// policy says, numbered in the sender's cell space ([`DataSender::send_cells`]): its
    /// datagrams go elsewhere than the pending batch's, so flush that first, to its own
    /// destination. Report the end with [`SendSide::sent`].
    pub fn send_cells(
        &mut self,
        now: Instant,
        payload: &[u8],
        out: &mut impl FnMut(&[u8]),
    ) -> Result<(), SendError> {
        self.tx.send_cells(now, payload, out)
    }

    /// Sends one reliable message to DDM cell groups `groups` at once, in its own datagram(s)
    /// with chain headers ([`DataSender::send_reliable_cells`]), after the pending datagram
    /// (which the caller flushes first, to the default group). With `number`, refused like
    /// [`SendSide::send`] unless it is the number the stream gives the message. Report the end
    /// with [`SendSide::sent`].
    pub fn send_reliable_cells(
        &mut self,
        now: Instant,
        groups: &[crate::data::chain::GroupId],
        payload: &[u8],
        number: Option<Seq>,
        out: &mut impl FnMut(&[u8]),
    ) -> Result<Seq, SendError> {
        if let Some(given) = number {
            let next = self.tx.next_number(payload.len());
            if given != next {
                self.tx.refused_out_of_sequence();
                return Err(SendError::OutOfSequence {
                    given: given.0,
                    next: next.0,
                });
            }
        }
        self.tx.send_reliable_cells(now, groups, payload, out)
    }

    /// Bytes waiting in the pending datagram.
    pub fn pending_bytes(&self) -> usize {
        self.tx.pending_bytes()
    }

    /// The last reliable sequence number assigned (0: none).
    pub fn high_water(&self) -> u64 {
        self.tx.high_water().0
    }

    /// Whether automatic batching is on.
    pub fn batching(&self) -> bool {
        self.batch.enabled()
    }

    /// Turns automatic batching on or off (flush the pending datagram when turning it off).
    pub fn set_batching(&mut self, on: bool) {
        self.batch.set_enabled(on);
    }

    /// The `Joined` frame that tells a peer where this node's stream stands: the next reliable
    /// number it will send (`reply`: asks the peer to answer with its own).
    pub fn joined(&self, reply: bool) -> Frame {
        Frame::Joined {
            tag: self.tx.tag(),
            next_seq: self.tx.high_water().0 + 1,
            reply,
        }
    }

    /// Answers member `from`'s NACK from the retransmit buffer: the `Repair` frame to send it.
    pub fn on_nack(&mut self, now: Instant, from: NodeId, nack: &Nack) -> Output {
        let repair = self.tx.on_nack(now, from, nack);
        Output::Transmit {
            to: from,
            frame: Frame::Repair {
                tag: self.tx.tag(),
                repair,
            },
        }
    }

    /// When [`SendSide::handle_timeout`] should run next, at the latest: the sender's own
    /// timers, and while the federation streams (it sent within
    /// [`crate::core::batch::BATCH_ACTIVE`]) every [`MAX_BATCH_DELAY`], so that batching may
    /// start and a pending datagram leaves in time.
    pub fn poll_timeout(&self, now: Instant) -> Option<Instant> {
        let streaming = self.batch.active(now).then(|| now + MAX_BATCH_DELAY);
        [streaming, self.tx.poll_timeout()]
            .into_iter()
            .flatten()
            .min()
    }

    /// Whether the sender's own timers are due at `now` (then [`SendSide::handle_timeout`]).
    pub fn timeout_due(&self, now: Instant) -> bool {
        self.tx.poll_timeout().is_some_and(|t| t <= now)
    }

    /// Runs the sender's timers: first releases the retransmit copies every member has
    /// acknowledged (`acknowledged`, from [`Members::delivered_by_all`]; nothing with flow
    /// control off), then flushes a pending datagram that waited long enough and sends a due
    /// heartbeat through `out`.
    pub fn handle_timeout(
        &mut self,
        now: Instant,
        acknowledged: Option<u64>,
        out: &mut impl FnMut(&[u8]),
    ) {
        if let Some(a) = acknowledged {
            self.tx.release_acknowledged(now, Seq(a));
        }
        self.tx.on_timeout(now, out);
    }
}

/// How the member-frame protocol ([`crate::core::dispatch`]) reaches one federation's parts.
///
/// The driver keeps each part wherever it likes — the shell behind one lock each, a test or a
/// simulator in plain cells. The protocol asks for one part at a time and never for a second
/// one inside the first's closure, so the driver may lock each on its own; outputs of the
/// receive path are handed out inside its closure (in order, the driver's lock held), all
/// other outputs outside any.
pub trait ChannelParts {
    /// The federation.
    fn tag(&self) -> FederationTag;
    /// Its key (answered to a member's key request).
    fn key(&self) -> FederationKey;
    /// Runs `f` on the member table and flow window.
    fn members<R>(&self, f: impl FnOnce(&mut Members) -> R) -> R;
    /// Runs `f` on the receive path.
    fn receive<R>(&self, f: impl FnOnce(&mut ReceivePath) -> R) -> R;
    /// Runs `f` on the send side.
    fn sender<R>(&self, f: impl FnOnce(&mut SendSide) -> R) -> R;
    /// Runs `f` on the DDM cell groups (a leaf: `f` takes no other part).
    fn cells<R>(&self, f: impl FnOnce(&mut crate::core::cells::CellGroups) -> R) -> R;
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::data::DataConfig;

    fn flow() -> FlowConfig {
        FlowConfig {
            window_bytes: 1000,
            window_messages: 100,
            stall_after: Duration::from_millis(100),
        }
    }

    #[test]
    fn a_member_joins_once_and_leaving_releases_the_window() {
        let t = Instant::now();
        let mut m = Members::new(FederationTag(1), flow(), true);
        assert!(m.join(t, NodeId(5), 0));
        assert_eq!(
            m.first_seq(NodeId(5)),
            Some(1),
            "a stream starts at 1 at the earliest"
        );
        assert!(!m.join(t, NodeId(5), 40), "idempotent");
        assert_eq!(m.first_seq(NodeId(5)), Some(1));
        for p in 1..=20 {
            m.on_sent(p, 100);
        }
        assert!(matches!(m.room(t), Room::Wait { .. }));
        assert!(m.leave(NodeId(5)));
        assert!(!m.leave(NodeId(5)));
        assert_eq!(m.room(t), Room::Open);
        assert_eq!(m.members(), Vec::<NodeId>::new());
    }

    #[test]
    fn without_flow_control_the_table_is_kept_and_nothing_waits() {
        let t = Instant::now();
        let mut m = Members::new(FederationTag(1), flow(), false);
        assert!(m.join(t, NodeId(5), 3));
        for p in 1..=500 {
            m.on_sent(p, 100);
        }
        assert_eq!(m.room(t), Room::Open);
        assert!(!m.on_ack(t, NodeId(5), 500));
        assert_eq!(m.delivered_by_all(), None);
        assert_eq!(m.first_seq(NodeId(5)), Some(3));
    }

    #[test]
    fn the_send_side_says_where_its_stream_stands() {
        let tag = FederationTag(3);
        let tx = DataSender::new(
            NodeId(1),
            tag,
            &FederationKey([1; 32]),
            DataConfig::default(),
        )
        .expect("config");
        let mut side = SendSide::new(tx);
        let t = Instant::now();
        let msg = Outgoing {
            reliability: Reliability::Reliable,
            payload: b"x",
            hold: false,
            heard: 0,
            timer_by: Some(t),
            number: None,
        };
        let mut n = 0;
        for _ in 0..3 {
            side.send(t, msg, &mut |_| n += 1).expect("send");
            side.sent(t, Some(t));
        }
        side.flush(t, &mut |_| n += 1);
        assert_eq!(
            side.joined(true),
            Frame::Joined {
                tag,
                next_seq: 4,
                reply: true
            }
        );
        assert!(n >= 1);
    }

    #[test]
    fn a_message_numbered_otherwise_than_the_stream_is_refused_and_nothing_leaves() {
        let cfg = DataConfig::default();
        let tx = DataSender::new(
            NodeId(1),
            FederationTag(3),
            &FederationKey([1; 32]),
            cfg.clone(),
        )
        .expect("config");
        let mut side = SendSide::new(tx);
        let t = Instant::now();
        let big = vec![7u8; 3 * cfg.fragment_payload() + 1];
        fn numbered(payload: &[u8], n: u64) -> Outgoing<'_> {
            Outgoing {
                reliability: Reliability::Reliable,
                payload,
                hold: false,
                heard: 0,
                timer_by: None,
                number: Some(Seq(n)),
            }
        }
        let mut out = 0;
        // One number for a whole message, one per fragment for a large one: the rule gives
        // the number the stream assigns.
        let small = side.send(t, numbered(b"x", 1), &mut |_| out += 1);
        assert_eq!(small, Ok(Some(Seq(1))));
        assert_eq!(cfg.reliable_numbers(big.len()), 4);
        let large = side.send(t, numbered(&big, 5), &mut |_| out += 1);
        assert_eq!(large, Ok(Some(Seq(5))));
        side.flush(t, &mut |_| out += 1);
        let before = out;
        // A caller that counts one number per message is off after the fragmented one.
        let wrong = side.send(t, numbered(b"y", 3), &mut |_| out += 1);
        assert_eq!(wrong, Err(SendError::OutOfSequence { given: 3, next: 6 }));
        side.flush(t, &mut |_| out += 1);
        assert_eq!(out, before, "a refused message sends nothing");
        assert_eq!(side.sender().stats().out_of_sequence, 1);
        assert_eq!(side.sender().high_water(), Seq(5));
        // Best-effort messages have no reliable number to check.
        let mut be = numbered(b"z", 99);
        be.reliability = Reliability::BestEffort;
        assert_eq!(side.send(t, be, &mut |_| out += 1), Ok(None));
    }
}
