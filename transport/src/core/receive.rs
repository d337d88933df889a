//! One federation's receive path: the [`DataReceiver`] (sequencing, repair, reassembly), the
//! [`CausalGate`] that holds control messages behind the data they follow, and the flow-control
//! acknowledgements this node owes each sender — wired together, with no socket and no clock.
//!
//! Inputs are a data datagram, a repair, a control message, an acknowledgement request, a
//! member that joined or left, and the time; outputs, polled with
//! [`ReceivePath::poll_output`], are the frames to send (NACKs, acknowledgements) and the events
//! for the layer above, in the one order that keeps the promises of [`crate::data`]:
//!
//! - a reliable message's acknowledgement (when one is due) goes before the message is handed
//!   up, so the sender's window opens as early as possible;
//! - a control message tagged with a federation is released right after the data it follows,
//!   never before: after the `Data` event of the message that completes it, after a gap that can
//!   no longer be repaired (`FellBehind`), or when its sender leaves.
//!
//! The outputs are produced lazily: [`ReceivePath::poll_output`] translates one receiver event
//! at a time, so the shell hands the first message up before the receiver's next event is even
//! looked at (as when the shell did the wiring itself), and the output queue, reused, allocates
//! nothing once warm.

use std::collections::{HashMap, VecDeque};
use std::time::Instant;

use bytes::Bytes;

use crate::core::{Output, TransportEvent};
use crate::data::{CausalGate, DataReceiver, RecvEvent, RecvStats, Repair, Seq};
use crate::flow::{AckPolicy, AckState};
use crate::frame::Frame;
use crate::id::{FederationTag, NodeId};

/// A federation's receive path (see the module docs).
#[derive(Debug)]
pub struct ReceivePath {
    tag: FederationTag,
    rx: DataReceiver,
    gate: CausalGate<Bytes>,
    /// Flow control: what each sender's stream delivered since its last acknowledgement.
    acks: HashMap<NodeId, AckState>,
    /// When this node acknowledges (a sender may ask for a narrower policy).
    ack: AckPolicy,
    out: VecDeque<Output>,
}

impl ReceivePath {
    /// The receive path of `rx`'s federation, acknowledging under `ack`.
    pub fn new(rx: DataReceiver, ack: AckPolicy) -> ReceivePath {
        ReceivePath {
            tag: rx.tag(),
            rx,
            gate: CausalGate::new(),
            acks: HashMap::new(),
            ack,
            out: VecDeque::new(),
        }
    }

    /// A data datagram arrived on the federation's group at `now`.
    pub fn handle_datagram(&mut self, now: Instant, datagram: Bytes) {
        self.rx.on_datagram(now, datagram);
    }

    /// `from` answered a NACK of ours.
    pub fn handle_repair(&mut self, now: Instant, from: NodeId, repair: Repair) {
        self.rx.on_repair(now, from, repair);
    }

    /// A control message from `from`, tagged with this federation, that follows `from`'s data
    /// up to `hw`: released once that data was handed up.
    pub fn handle_app(&mut self, from: NodeId, hw: u64, payload: Bytes) {
        self.gate.push(from, Seq(hw), payload);
        self.sync_gate(from);
    }

    /// `from` asks where its stream stands here, and for acknowledgements at `policy` from now
    /// on (its window may be narrower than ours).
    pub fn handle_ack_request(&mut self, from: NodeId, policy: crate::flow::AckPolicy) {
        // Release what the receiver has queued first: the position must count only messages
        // already handed up, or the sender would drop copies a NACK may still need.
        self.translate_all();
        let position = self.rx.delivered(from).0;
        self.acks.entry(from).or_default().asked(policy);
        self.out.push_back(Output::Transmit {
            to: from,
            frame: Frame::Ack {
                tag: self.tag,
                position,
            },
        });
    }

    /// `node` became a member of the channel; its stream is received from `next_seq` on
    /// (earlier data never arrives here). Control messages that waited for the stream's
    /// position are released.
    pub fn add_member(&mut self, node: NodeId, next_seq: u64) {
        self.rx.add_sender(node);
        self.rx.start_sender_at(node, Seq(next_seq));
        self.translate_all();
        self.sync_gate(node);
    }

    /// `node` left the channel (or the mesh): nothing it sent can still arrive, so whatever
    /// control messages wait on its data are released now (its resignation, say).
    pub fn remove_member(&mut self, node: NodeId) {
        self.translate_all();
        self.acks.remove(&node);
        self.rx.remove_sender(node);
        self.gate.remove_sender(node);
        self.release_gated();
    }

    /// This node's DDM cell groups are now `groups` ([`DataReceiver::set_groups`]). What that
    /// releases (messages now in order, positions now known not due) is handed out with the
    /// path's next outputs.
    pub fn set_groups(&mut self, now: Instant, groups: &[crate::data::chain::GroupId]) {
        self.rx.set_groups(now, groups);
    }

    /// Runs the receiver's timers (NACKs, reassembly and tail timeouts) when due.
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.rx.poll_timeout().is_some_and(|t| t <= now) {
            self.rx.on_timeout(now);
        }
    }

    /// When [`ReceivePath::handle_timeout`] should next run.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.rx.poll_timeout()
    }

    /// The next frame to send or event to hand up, in order; `None` when there is nothing.
    pub fn poll_output(&mut self) -> Option<Output> {
        loop {
            if let Some(o) = self.out.pop_front() {
                return Some(o);
            }
            match self.rx.poll_event() {
                Some(ev) => self.translate(ev),
                None if self.gate.held() > 0 => {
                    // Everything the receiver counts as delivered is handed up now. Its
                    // position can be past the last message handed up (a gap given up cut a
                    // message in two, whose rest is skipped): what waits on that position is
                    // released here, not only with the sender's next message.
                    let rx = &self.rx;
                    self.gate.advance_all(|from| rx.delivered(from));
                    self.release_gated();
                    if self.out.is_empty() {
                        return None;
                    }
                }
                None => return None,
            }
        }
    }

    /// How many reliable messages from `node` were handed up so far (queued outputs included).
    pub fn delivered(&self, node: NodeId) -> u64 {
        self.rx.delivered(node).0
    }

    /// The receiver's counters.
    pub fn stats(&self) -> RecvStats {
        self.rx.stats()
    }

    /// Memory held for out-of-order and incomplete messages (see
    /// [`DataReceiver::memory_bytes`]).
    pub fn memory_bytes(&self) -> usize {
        self.rx.memory_bytes()
    }

    /// Control messages held back for data not delivered yet.
    pub fn gated(&self) -> usize {
        self.gate.held()
    }

    /// Moves every event the receiver has queued into the output queue (in order), so that the
    /// receiver's `delivered` counts only messages whose outputs are already queued.
    fn translate_all(&mut self) {
        while let Some(ev) = self.rx.poll_event() {
            self.translate(ev);
        }
    }

    fn translate(&mut self, ev: RecvEvent) {
        match ev {
            RecvEvent::Deliver { from, seq, payload } => {
                if let Some(seq) = seq
                    && self
                        .acks
                        .entry(from)
                        .or_default()
                        .delivered(payload.len(), self.ack)
                {
                    self.ack_to(from, seq);
                }
                self.out.push_back(Output::Event(TransportEvent::Data {
                    tag: self.tag,
                    from,
                    seq: seq.map(|s| s.0),
                    payload,
                }));
                // Advance by this message's own number: `rx.delivered()` already counts
                // messages whose Deliver events are still queued behind this one.
                if let Some(seq) = seq {
                    self.gate.advance(from, seq);
                    self.release_gated();
                }
            }
            RecvEvent::SendNack { to, nack } => self.out.push_back(Output::Transmit {
                to,
                frame: Frame::Nack {
                    tag: self.tag,
                    nack,
                },
            }),
            RecvEvent::Skipped { from, through } => {
                // Acknowledged at once: the positions passed over may be many (a sender whose
                // traffic goes to cells this node did not join), and its window must open
                // without asking. A skip is reported at most once per heartbeat or message
                // that settles the tail, so this costs few frames.
                self.acks.entry(from).or_default().restart();
                self.ack_to(from, through);
                self.out.push_back(Output::Event(TransportEvent::Skipped {
                    tag: self.tag,
                    from,
                    through: through.0,
                }));
                self.gate.advance(from, through);
                self.release_gated();
            }
            RecvEvent::FellBehind { from, lost } => {
                self.out
                    .push_back(Output::Event(TransportEvent::FellBehind {
                        tag: self.tag,
                        from,
                        first: lost.first.0,
                        last: lost.last.0,
                    }));
                // Nothing up to the gap's end can arrive any more: release what waited on it.
                self.gate.advance(from, lost.last);
                self.release_gated();
            }
        }
    }

    /// Queues an acknowledgement of `from`'s stream up to `position`.
    fn ack_to(&mut self, from: NodeId, position: Seq) {
        self.out.push_back(Output::Transmit {
            to: from,
            frame: Frame::Ack {
                tag: self.tag,
                position: position.0,
            },
        });
    }

    /// Advances `from`'s gate to what was handed up (or queued to be), and releases.
    fn sync_gate(&mut self, from: NodeId) {
        // Queue the receiver's pending events first: `delivered` counts them already, and a
        // control message must not overtake the data it follows.
        self.translate_all();
        let upto = self.rx.delivered(from);
        self.gate.advance(from, upto);
        self.release_gated();
    }

    fn release_gated(&mut self) {
        while let Some((from, payload)) = self.gate.pop() {
            self.out.push_back(Output::Event(TransportEvent::Control {
                tag: Some(self.tag),
                from,
                payload,
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    //! The receive path driven with datagrams and time alone: a real [`DataSender`] makes the
    //! datagrams, the test decides which arrive and when.

    use std::time::Duration;

    use super::*;
    use crate::data::{DataConfig, DataSender, Reliability};
    use crate::id::FederationKey;

    const SENDER: NodeId = NodeId(7);
    const LOCAL: NodeId = NodeId(3);

    struct Rig {
        t0: Instant,
        tx: DataSender,
        path: ReceivePath,
    }

    impl Rig {
        /// A sender and this node's receive path for it, acknowledging every `ack_every`
        /// messages.
        fn new(ack_every: u64) -> Rig {
            let tag = FederationTag::from_name("core-receive");
            let key = FederationKey::random();
            let cfg = DataConfig::default();
            let tx = DataSender::new(SENDER, tag, &key, cfg.clone()).expect("sender config");
            let rx = DataReceiver::new(LOCAL, tag, &key, cfg).expect("receiver config");
            let ack = AckPolicy {
                every_bytes: u64::MAX,
                every_messages: ack_every,
            };
            let mut path = ReceivePath::new(rx, ack);
            path.add_member(SENDER, 1);
            Rig {
                t0: Instant::now(),
                tx,
                path,
            }
        }

        fn at(&self, ms: u64) -> Instant {
            self.t0 + Duration::from_millis(ms)
        }

        /// The datagrams of one reliable message sent at `ms`.
        fn send(&mut self, ms: u64, payload: &[u8]) -> Vec<Bytes> {
            let mut out = Vec::new();
            let now = self.at(ms);
            self.tx
                .send(now, Reliability::Reliable, payload, &mut |d: &[u8]| {
                    out.push(Bytes::copy_from_slice(d))
                })
                .expect("send");
            out
        }

        fn outputs(&mut self) -> Vec<Output> {
            std::iter::from_fn(|| self.path.poll_output()).collect()
        }
    }

    fn data(seq: u64, payload: &[u8]) -> Output {
        Output::Event(TransportEvent::Data {
            tag: FederationTag::from_name("core-receive"),
            from: SENDER,
            seq: Some(seq),
            payload: Bytes::copy_from_slice(payload),
        })
    }

    fn control(payload: &[u8]) -> Output {
        Output::Event(TransportEvent::Control {
            tag: Some(FederationTag::from_name("core-receive")),
            from: SENDER,
            payload: Bytes::copy_from_slice(payload),
        })
    }

    fn ack(position: u64) -> Output {
        Output::Transmit {
            to: SENDER,
            frame: Frame::Ack {
                tag: FederationTag::from_name("core-receive"),
                position,
            },
        }
    }

    #[test]
    fn delivers_in_order_and_acknowledges_before_handing_up() {
        let mut r = Rig::new(2);
        for (i, p) in [b"a", b"b", b"c"].iter().enumerate() {
            for d in r.send(i as u64, *p) {
                r.path.handle_datagram(r.at(i as u64), d);
            }
        }
        assert_eq!(
            r.outputs(),
            vec![data(1, b"a"), ack(2), data(2, b"b"), data(3, b"c")]
        );
        assert_eq!(r.path.delivered(SENDER), 3);
    }

    #[test]
    fn control_message_waits_for_the_data_it_follows() {
        let mut r = Rig::new(u64::MAX);
        let first = r.send(0, b"one");
        let second = r.send(0, b"two");
        // The control message follows the sender's data up to 2, and overtakes it.
        r.path.handle_app(SENDER, 2, Bytes::from_static(b"ctl"));
        assert_eq!(r.outputs(), vec![]);
        assert_eq!(r.path.gated(), 1);
        for d in first {
            r.path.handle_datagram(r.at(1), d);
        }
        assert_eq!(r.outputs(), vec![data(1, b"one")]);
        for d in second {
            r.path.handle_datagram(r.at(1), d);
        }
        assert_eq!(r.outputs(), vec![data(2, b"two"), control(b"ctl")]);
        assert_eq!(r.path.gated(), 0);
    }

    #[test]
    fn a_lost_datagram_is_nacked_after_the_delay_and_repaired() {
        let mut r = Rig::new(u64::MAX);
        let lost = r.send(0, b"lost");
        let next = r.send(0, b"next");
        assert_eq!(lost.len(), 1);
        for d in next {
            r.path.handle_datagram(r.at(0), d);
        }
        r.path.handle_app(SENDER, 2, Bytes::from_static(b"after"));
        // Nothing before the gap is filled, and no NACK before the reordering slack passed.
        assert_eq!(r.outputs(), vec![]);
        let due = r.path.poll_timeout().expect("a NACK is scheduled");
        assert!(due > r.at(0));
        r.path.handle_timeout(r.at(0));
        assert_eq!(r.outputs(), vec![]);
        r.path.handle_timeout(due);
        let nack = match r.outputs().as_slice() {
            [
                Output::Transmit {
                    to: SENDER,
                    frame: Frame::Nack { nack, .. },
                },
            ] => nack.clone(),
            other => panic!("expected one NACK, got {other:?}"),
        };
        assert_eq!(nack.ranges, vec![(1, 1)]);
        let repair = r.tx.on_nack(due, LOCAL, &nack);
        r.path.handle_repair(due, SENDER, repair);
        assert_eq!(
            r.outputs(),
            vec![data(1, b"lost"), data(2, b"next"), control(b"after")]
        );
    }

    #[test]
    fn an_unrepairable_gap_is_reported_and_releases_what_waited_on_it() {
        let mut r = Rig::new(u64::MAX);
        let _lost1 = r.send(0, b"x");
        let _lost2 = r.send(0, b"y");
        for d in r.send(0, b"z") {
            r.path.handle_datagram(r.at(0), d);
        }
        r.path
            .handle_app(SENDER, 2, Bytes::from_static(b"after-gap"));
        let due = r.path.poll_timeout().expect("a NACK is scheduled");
        r.path.handle_timeout(due);
        assert!(matches!(
            r.outputs().as_slice(),
            [Output::Transmit {
                frame: Frame::Nack { .. },
                ..
            }]
        ));
        // The sender's buffer starts after the gap: 1 and 2 are gone for good.
        let repair = Repair {
            first_available: 3,
            datagrams: Vec::new(),
        };
        r.path.handle_repair(due, SENDER, repair);
        let fell = Output::Event(TransportEvent::FellBehind {
            tag: FederationTag::from_name("core-receive"),
            from: SENDER,
            first: 1,
            last: 2,
        });
        assert_eq!(
            r.outputs(),
            vec![fell, control(b"after-gap"), data(3, b"z")]
        );
        assert_eq!(r.path.gated(), 0);
    }

    #[test]
    fn a_gap_given_up_that_cuts_a_message_releases_what_waited_on_its_rest() {
        let tag = FederationTag::from_name("core-receive");
        let key = FederationKey::random();
        // Datagrams of 200 bytes: a 300-byte message travels in 3 fragments.
        let cfg = DataConfig {
            max_datagram: 200,
            ..DataConfig::default()
        };
        let mut tx = DataSender::new(SENDER, tag, &key, cfg.clone()).expect("sender config");
        let rx = DataReceiver::new(LOCAL, tag, &key, cfg).expect("receiver config");
        let ack = AckPolicy {
            every_bytes: u64::MAX,
            every_messages: u64::MAX,
        };
        let mut path = ReceivePath::new(rx, ack);
        path.add_member(SENDER, 1);
        let now = Instant::now();
        let mut wire = Vec::new();
        for payload in [&[1u8; 10][..], &[2u8; 300][..]] {
            tx.send(now, Reliability::Reliable, payload, &mut |d: &[u8]| {
                wire.push(Bytes::copy_from_slice(d))
            })
            .expect("send");
        }
        assert_eq!(wire.len(), 4, "1 + 3 fragments");
        // Only the last two fragments arrive; a control message follows the whole message.
        for d in wire.drain(2..) {
            path.handle_datagram(now, d);
        }
        path.handle_app(SENDER, 4, Bytes::from_static(b"after"));
        let due = path.poll_timeout().expect("a NACK is scheduled");
        path.handle_timeout(due);
        assert!(matches!(
            path.poll_output(),
            Some(Output::Transmit {
                frame: Frame::Nack { .. },
                ..
            })
        ));
        // The sender's buffer starts at 3: 1 and 2 are gone, and with 2 the message's start.
        path.handle_repair(
            due,
            SENDER,
            Repair {
                first_available: 3,
                datagrams: Vec::new(),
            },
        );
        let fell = Output::Event(TransportEvent::FellBehind {
            tag,
            from: SENDER,
            first: 1,
            last: 2,
        });
        assert_eq!(path.poll_output(), Some(fell));
        // The rest of the cut message is skipped: the stream stands at 4, and the control
        // message goes up now, not with the sender's next message.
        assert_eq!(path.delivered(SENDER), 4);
        assert_eq!(path.poll_output(), Some(control(b"after")));
        assert_eq!(path.poll_output(), None);
        assert_eq!(path.gated(), 0);
    }

    #[test]
    fn a_departing_member_releases_its_control_messages() {
        let mut r = Rig::new(u64::MAX);
        r.path.handle_app(SENDER, 5, Bytes::from_static(b"resign"));
        assert_eq!(r.outputs(), vec![]);
        r.path.remove_member(SENDER);
        assert_eq!(r.outputs(), vec![control(b"resign")]);
        // Its later datagrams are not accepted.
        for d in r.send(0, b"late") {
            r.path.handle_datagram(r.at(0), d);
        }
        assert_eq!(r.outputs(), vec![]);
    }

    #[test]
    fn a_joining_member_releases_control_messages_before_its_stream_position() {
        let tag = FederationTag::from_name("core-receive");
        let key = FederationKey::random();
        let rx = DataReceiver::new(LOCAL, tag, &key, DataConfig::default()).expect("config");
        let ack = AckPolicy {
            every_bytes: u64::MAX,
            every_messages: u64::MAX,
        };
        let mut path = ReceivePath::new(rx, ack);
        // The control message arrives before the member frame that says where the stream
        // starts here; what lies before that position never arrives here.
        path.handle_app(SENDER, 3, Bytes::from_static(b"early"));
        assert_eq!(path.poll_output(), None);
        path.add_member(SENDER, 4);
        assert_eq!(path.poll_output(), Some(control(b"early")));
        assert_eq!(path.poll_output(), None);
    }

    #[test]
    fn an_acknowledgement_request_is_answered_with_the_position_handed_up() {
        let mut r = Rig::new(u64::MAX);
        for ms in 0..3 {
            for d in r.send(ms, b"m") {
                r.path.handle_datagram(r.at(ms), d);
            }
        }
        let narrow = AckPolicy {
            every_bytes: u64::MAX,
            every_messages: 1,
        };
        r.path.handle_ack_request(SENDER, narrow);
        let out = r.outputs();
        assert_eq!(out.len(), 4, "{out:?}");
        assert_eq!(out[3], ack(3), "the answer follows the data it counts");
        // From now on the sender's narrower policy applies: one acknowledgement per message.
        for d in r.send(4, b"n") {
            r.path.handle_datagram(r.at(4), d);
        }
        assert_eq!(r.outputs(), vec![ack(4), data(4, b"n")]);
    }
}
