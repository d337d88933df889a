//! The member-frame protocol: what a control frame from a peer means for this node's federation
//! channels, and what they answer — with no socket, no lock and no clock (the time is an
//! argument; the parts are reached through [`ChannelParts`]).
//!
//! [`Inbound::from`] sorts a frame: the hello exchange and heartbeats concern the connection
//! only ([`Inbound::Link`]); a goodbye, a key reply and an untagged control message concern the
//! node; everything else is a [`MemberFrame`] of one federation, handled by [`handle_frame`]:
//!
//! | frame | what the channel does | answer |
//! |---|---|---|
//! | `Joined { next_seq, reply }` | a new member: into the member table and the flow window, its stream received from `next_seq`; control messages that waited for that position released; `FederationPeer { joined: true }`. A member already known: nothing | `Joined { our next_seq, reply: false }` when `reply`; `CellFallback { on: true }` while this node cannot join a cell group it wants |
//! | `Left` | the member leaves: out of the table and the flow window (waiting senders woken), its gated control messages released, `FederationPeer { joined: false }` | — |
//! | `KeyRequest` | — | `KeyReply` with the key |
//! | `AckRequest { policy }` | acknowledge at the sender's pace from now on | `Ack` of what was handed up from it |
//! | `Ack { position }` | the flow window moves (waiting senders woken) | — |
//! | `Nack` | — | `Repair` from the retransmit buffer |
//! | `Repair` | into the receive path: the repaired data is handed up | — |
//! | `App { hw }` | into the causal gate: released after the sender's data up to `hw` | — |
//! | `CellFallback { on }` | DDM: while a member is `on`, cell messages go to the default group ([`crate::core::cells`]) | — |
//!
//! A frame for a federation this node does not have open gets [`not_open`]'s answer (a key
//! request: "no key"; a control message: handed up untagged by a federation here). A peer that
//! is gone leaves every federation ([`peer_gone`]); a peer that connects is told where this
//! node's streams stand ([`announce`]).
//!
//! `Joined` and `Left` also tell the mesh which federations the peer has open
//! ([`MemberFrame::opens`], for [`crate::core::Mesh::set_federation`]), whether or not this
//! node has the federation open.

use std::time::Instant;

use bytes::Bytes;

use crate::core::channel::ChannelParts;
use crate::core::{Output, ReceivePath, TransportEvent};
use crate::data::{Nack, Repair};
use crate::flow::AckPolicy;
use crate::frame::Frame;
use crate::id::{FederationKey, FederationTag, NodeId};

/// A frame from a peer, sorted by what it concerns (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub enum Inbound {
    /// The connection only (hello exchange, heartbeat): nothing for the channels.
    Link,
    /// The peer is leaving the mesh cleanly.
    Goodbye,
    /// The answer to a key request of ours: federation `tag`'s key, if the peer had it.
    Key {
        /// The federation.
        tag: FederationTag,
        /// Its key.
        key: Option<FederationKey>,
    },
    /// A control message of the layer above ordered behind no federation's data.
    Control(Bytes),
    /// A frame for federation `tag`'s channel.
    Member {
        /// The federation.
        tag: FederationTag,
        /// The frame.
        frame: MemberFrame,
    },
}

/// A frame for one federation's channel (the federation tag taken off).
#[derive(Clone, Debug, PartialEq)]
pub enum MemberFrame {
    /// The peer has the channel open; its stream continues at `next_seq`.
    Joined {
        /// Its next reliable sequence number.
        next_seq: u64,
        /// It asks for our `Joined` in return.
        reply: bool,
    },
    /// The peer closed the channel.
    Left,
    /// The peer asks for the federation key.
    KeyRequest,
    /// The peer waits for room: acknowledge now, and at `policy` from now on.
    AckRequest {
        /// Its acknowledgement pace.
        policy: AckPolicy,
    },
    /// The peer delivered our stream up to `position`.
    Ack {
        /// Highest position delivered in order.
        position: u64,
    },
    /// The peer misses datagrams of our stream.
    Nack(Nack),
    /// The peer's answer to our NACK.
    Repair(Repair),
    /// A control message released after the peer's data up to `hw`.
    App {
        /// The peer's high-water when it sent the message.
        hw: u64,
        /// The message.
        payload: Bytes,
    },
    /// The peer cannot (`true`) or can again (`false`) join the cell groups it wants.
    CellFallback(bool),
}

impl From<Frame> for Inbound {
    fn from(frame: Frame) -> Inbound {
        let member = |tag, frame| Inbound::Member { tag, frame };
        match frame {
            Frame::Hello { .. } | Frame::HelloAck { .. } | Frame::Refused { .. } => Inbound::Link,
            Frame::Heartbeat => Inbound::Link,
            Frame::Goodbye => Inbound::Goodbye,
            Frame::KeyReply { tag, key } => Inbound::Key { tag, key },
            Frame::App {
                tag: None, payload, ..
            } => Inbound::Control(Bytes::from(payload)),
            Frame::App {
                tag: Some(tag),
                hw,
                payload,
            } => member(
                tag,
                MemberFrame::App {
                    hw,
                    payload: Bytes::from(payload),
                },
            ),
            Frame::Joined {
                tag,
                next_seq,
                reply,
            } => member(tag, MemberFrame::Joined { next_seq, reply }),
            Frame::Left { tag } => member(tag, MemberFrame::Left),
            Frame::KeyRequest { tag } => member(tag, MemberFrame::KeyRequest),
            Frame::AckRequest { tag, policy } => member(tag, MemberFrame::AckRequest { policy }),
            Frame::Ack { tag, position } => member(tag, MemberFrame::Ack { position }),
            Frame::Nack { tag, nack } => member(tag, MemberFrame::Nack(nack)),
            Frame::Repair { tag, repair } => member(tag, MemberFrame::Repair(repair)),
            Frame::CellFallback { tag, on } => member(tag, MemberFrame::CellFallback(on)),
        }
    }
}

impl MemberFrame {
    /// Whether the frame says the peer opened (`Some(true)`) or closed (`Some(false)`) the
    /// federation's channel: the mesh keeps track of it for every federation.
    pub fn opens(&self) -> Option<bool> {
        match self {
            MemberFrame::Joined { .. } => Some(true),
            MemberFrame::Left => Some(false),
            _ => None,
        }
    }

    /// Whether handling the frame can hand events up (data or control messages released,
    /// members joined or gone). The shell handles such a frame inside a receive turn of the
    /// layer above, which orders it with that layer's other work; the others (a key request,
    /// an acknowledgement, a NACK) only answer or move the flow window, so the shell handles
    /// them on its own.
    pub fn hands_up(&self) -> bool {
        !matches!(
            self,
            MemberFrame::KeyRequest
                | MemberFrame::Ack { .. }
                | MemberFrame::Nack(_)
                | MemberFrame::CellFallback(_)
        )
    }
}

/// Handles member frame `frame` from peer `from` for the federation whose parts are `parts`,
/// at `now`; what to send and hand up goes to `out`, in order (see the module docs).
pub fn handle_frame<P: ChannelParts>(
    now: Instant,
    parts: &P,
    from: NodeId,
    frame: MemberFrame,
    out: &mut dyn FnMut(Output),
) {
    let tag = parts.tag();
    match frame {
        MemberFrame::Joined { next_seq, reply } => {
            add_member(now, parts, from, next_seq, out);
            if reply {
                let frame = parts.sender(|s| s.joined(false));
                out(Output::Transmit { to: from, frame });
            }
            // Every pair of members exchanges `Joined` both ways, so each learns here that the
            // other needs cell messages on the default group.
            if parts.cells(|c| c.missing()) {
                out(Output::Transmit {
                    to: from,
                    frame: Frame::CellFallback { tag, on: true },
                });
            }
        }
        MemberFrame::CellFallback(on) => parts.cells(|c| c.set_member_cannot_join(from, on)),
        MemberFrame::Left => remove_member(parts, from, out),
        MemberFrame::KeyRequest => out(Output::Transmit {
            to: from,
            frame: Frame::KeyReply {
                tag,
                key: Some(parts.key()),
            },
        }),
        MemberFrame::AckRequest { policy } => parts.receive(|r| {
            r.handle_ack_request(from, policy);
            drain(r, out);
        }),
        MemberFrame::Ack { position } => {
            if parts.members(|m| m.on_ack(now, from, position)) {
                out(Output::FlowOpened { tag });
            }
        }
        MemberFrame::Nack(nack) => {
            let repair = parts.sender(|s| s.on_nack(now, from, &nack));
            out(repair);
        }
        MemberFrame::Repair(repair) => parts.receive(|r| {
            r.handle_repair(now, from, repair);
            drain(r, out);
        }),
        MemberFrame::App { hw, payload } => parts.receive(|r| {
            r.handle_app(from, hw, payload);
            drain(r, out);
        }),
    }
}

/// The answer to member frame `frame` from `from` for federation `tag`, which this node does
/// not have open: a key request learns there is no key here; a control message is handed up
/// as it is (the layer above decides); everything else is moot.
pub fn not_open(tag: FederationTag, from: NodeId, frame: MemberFrame) -> Option<Output> {
    match frame {
        MemberFrame::KeyRequest => Some(Output::Transmit {
            to: from,
            frame: Frame::KeyReply { tag, key: None },
        }),
        MemberFrame::App { payload, .. } => Some(Output::Event(TransportEvent::Control {
            tag: Some(tag),
            from,
            payload,
        })),
        _ => None,
    }
}

/// `node` is a member from `now` on, its stream received here from `next_seq`: unless it was
/// one already, into the member table, the flow window and the receive path (releasing the
/// control messages that waited for its stream's position), and reported up.
pub fn add_member<P: ChannelParts>(
    now: Instant,
    parts: &P,
    node: NodeId,
    next_seq: u64,
    out: &mut dyn FnMut(Output),
) {
    if !parts.members(|m| m.join(now, node, next_seq)) {
        return;
    }
    parts.receive(|r| {
        r.add_member(node, next_seq);
        drain(r, out);
    });
    out(Output::Event(TransportEvent::FederationPeer {
        tag: parts.tag(),
        node,
        joined: true,
    }));
}

/// `node` is no member any more: if it was one, out of the member table and the flow window
/// (waiting senders woken), out of the receive path (its gated control messages released), and
/// reported up.
pub fn remove_member<P: ChannelParts>(parts: &P, node: NodeId, out: &mut dyn FnMut(Output)) {
    if !parts.members(|m| m.leave(node)) {
        return;
    }
    parts.cells(|c| c.member_gone(node));
    let tag = parts.tag();
    out(Output::FlowOpened { tag });
    parts.receive(|r| {
        r.remove_member(node);
        drain(r, out);
    });
    out(Output::Event(TransportEvent::FederationPeer {
        tag,
        node,
        joined: false,
    }));
}

/// Peer `node` is gone from the mesh (it said goodbye, or it was lost): it leaves every
/// federation's channel. `out` gets each output with the parts of the federation it is about.
pub fn peer_gone<'a, P: ChannelParts + 'a>(
    federations: impl IntoIterator<Item = &'a P>,
    node: NodeId,
    out: &mut dyn FnMut(&P, Output),
) {
    for parts in federations {
        remove_member(parts, node, &mut |o| out(parts, o));
    }
}

/// The frame that tells a peer (newly connected, or every peer when the channel opens) that
/// this node has the channel open and where its stream stands, asking for the same in return.
pub fn announce<P: ChannelParts>(parts: &P) -> Frame {
    parts.sender(|s| s.joined(true))
}

/// Hands every output the receive path has to `out`, in order.
pub fn drain(r: &mut ReceivePath, out: &mut dyn FnMut(Output)) {
    while let Some(o) = r.poll_output() {
        out(o);
    }
}

#[cfg(test)]
mod tests {
    //! The member-frame protocol driven with frames, datagrams and time alone: real
    //! [`DataSender`](crate::data::DataSender)s and [`DataReceiver`](crate::data::DataReceiver)s
    //! inside, each node's parts in plain cells.

    use std::cell::RefCell;
    use std::time::Duration;

    use super::*;
    use std::net::Ipv4Addr;

    use crate::core::cells::{CellGroups, CellRoute, Fallback, cell_key};
    use crate::core::channel::{Members, Outgoing, SendSide};
    use crate::data::{DataConfig, DataReceiver, DataSender, Reliability};
    use crate::flow::{FlowConfig, Room};

    const TAG: FederationTag = FederationTag(0xfed);
    const KEY: FederationKey = FederationKey([7; 32]);
    const A: NodeId = NodeId(1);
    const B: NodeId = NodeId(2);

    /// One node's parts of one federation.
    struct Fed {
        tag: FederationTag,
        members: RefCell<Members>,
        recv: RefCell<ReceivePath>,
        send: RefCell<SendSide>,
        cells: RefCell<CellGroups>,
    }

    impl ChannelParts for Fed {
        fn tag(&self) -> FederationTag {
            self.tag
        }
        fn key(&self) -> FederationKey {
            KEY
        }
        fn members<R>(&self, f: impl FnOnce(&mut Members) -> R) -> R {
            f(&mut self.members.borrow_mut())
        }
        fn receive<R>(&self, f: impl FnOnce(&mut ReceivePath) -> R) -> R {
            f(&mut self.recv.borrow_mut())
        }
        fn sender<R>(&self, f: impl FnOnce(&mut SendSide) -> R) -> R {
            f(&mut self.send.borrow_mut())
        }
        fn cells<R>(&self, f: impl FnOnce(&mut CellGroups) -> R) -> R {
            f(&mut self.cells.borrow_mut())
        }
    }

    /// A window of 8 messages; the byte bound is far away, so counts rule.
    fn flow() -> FlowConfig {
        FlowConfig {
            window_bytes: 1 << 30,
            window_messages: 8,
            stall_after: Duration::from_secs(10),
        }
    }

    fn fed_of(me: NodeId, tag: FederationTag) -> Fed {
        let cfg = DataConfig::default();
        let members = Members::new(tag, flow(), true);
        let ack = members.ack_policy();
        Fed {
            tag,
            recv: RefCell::new(ReceivePath::new(
                DataReceiver::new(me, tag, &KEY, cfg.clone()).expect("config"),
                ack,
            )),
            send: RefCell::new(SendSide::new(
                DataSender::new(me, tag, &KEY, cfg).expect("config"),
            )),
            members: RefCell::new(members),
            cells: RefCell::new(CellGroups::new(
                (0..16)
                    .map(|i| Ipv4Addr::new(239, 255, 9, 10 + i))
                    .collect(),
                Ipv4Addr::new(239, 255, 9, 9),
                8,
            )),
        }
    }

    fn fed(me: NodeId) -> Fed {
        fed_of(me, TAG)
    }

    fn frame(fed: &Fed, now: Instant, from: NodeId, f: Frame) -> Vec<Output> {
        let mut out = Vec::new();
        match Inbound::from(f) {
            Inbound::Member { tag, frame } => {
                assert_eq!(tag, fed.tag);
                handle_frame(now, fed, from, frame, &mut |o| out.push(o));
            }
            other => panic!("not a member frame: {other:?}"),
        }
        out
    }

    /// Sends one reliable message from `fed` at `now`; its datagrams.
    fn send(fed: &Fed, now: Instant, payload: &[u8]) -> Vec<Bytes> {
        let mut wire = Vec::new();
        fed.sender(|s| {
            let msg = Outgoing {
                reliability: Reliability::Reliable,
                payload,
                hold: false,
                heard: 0,
                timer_by: None,
                number: None,
            };
            let seq = s
                .send(now, msg, &mut |d: &[u8]| {
                    wire.push(Bytes::copy_from_slice(d))
                })
                .expect("send")
                .expect("reliable");
            s.sent(now, Some(now));
            fed.members(|m| m.on_sent(seq.0, payload.len()));
        });
        wire
    }

    fn datagrams(fed: &Fed, now: Instant, wire: Vec<Bytes>) -> Vec<Output> {
        let mut out = Vec::new();
        fed.receive(|r| {
            for d in wire {
                r.handle_datagram(now, d);
            }
            drain(r, &mut |o| out.push(o));
        });
        out
    }

    fn data(from: NodeId, seq: u64, payload: &[u8]) -> Output {
        Output::Event(TransportEvent::Data {
            tag: TAG,
            from,
            seq: Some(seq),
            payload: Bytes::copy_from_slice(payload),
        })
    }

    /// B's acknowledgement of A's stream up to `position`.
    fn ack(position: u64) -> Output {
        Output::Transmit {
            to: A,
            frame: Frame::Ack { tag: TAG, position },
        }
    }

    fn peer(node: NodeId, joined: bool) -> Output {
        Output::Event(TransportEvent::FederationPeer {
            tag: TAG,
            node,
            joined,
        })
    }

    /// Makes `a` and `b` members of each other as the frames do: `a` announces, `b` answers.
    fn connect(now: Instant, a: (&Fed, NodeId), b: (&Fed, NodeId)) {
        let hello = announce(a.0);
        let answer = frame(b.0, now, a.1, hello);
        let reply = answer
            .into_iter()
            .find_map(|o| match o {
                Output::Transmit { to, frame } if to == a.1 => Some(frame),
                _ => None,
            })
            .expect("b answers the announcement");
        frame(a.0, now, b.1, reply);
    }

    #[test]
    fn a_member_joining_mid_stream_is_received_from_where_its_sender_stood() {
        let t = Instant::now();
        let (a, b) = (fed(A), fed(B));
        // A streams alone for a while: nothing of it ever reaches B.
        for i in 0..5u8 {
            send(&a, t, &[i]);
        }
        let hello = announce(&a);
        assert_eq!(
            hello,
            Frame::Joined {
                tag: TAG,
                next_seq: 6,
                reply: true
            }
        );
        let out = frame(&b, t, A, hello);
        assert_eq!(
            out,
            vec![
                peer(A, true),
                Output::Transmit {
                    to: A,
                    frame: Frame::Joined {
                        tag: TAG,
                        next_seq: 1,
                        reply: false
                    }
                }
            ]
        );
        assert_eq!(b.members(|m| m.first_seq(A)), Some(6));
        // A's next message is handed up at once: no NACK for what came before.
        let wire = send(&a, t, b"six");
        assert_eq!(datagrams(&b, t, wire), vec![data(A, 6, b"six")]);
        assert_eq!(b.receive(|r| r.poll_timeout()), None, "no gap to repair");
    }

    #[test]
    fn a_duplicate_joined_is_idempotent_but_still_answered() {
        let t = Instant::now();
        let (a, b) = (fed(A), fed(B));
        connect(t, (&a, A), (&b, B));
        let wire = send(&a, t, b"one");
        assert_eq!(datagrams(&b, t, wire), vec![data(A, 1, b"one")]);
        // A second announcement (its connection came up again, say) with a later position.
        let again = frame(&b, t, A, announce(&a));
        assert_eq!(
            again,
            vec![Output::Transmit {
                to: A,
                frame: Frame::Joined {
                    tag: TAG,
                    next_seq: 1,
                    reply: false
                }
            }],
            "no second FederationPeer, and the answer"
        );
        assert_eq!(
            b.members(|m| m.first_seq(A)),
            Some(1),
            "the stream start stays"
        );
        let wire = send(&a, t, b"two");
        assert_eq!(datagrams(&b, t, wire), vec![ack(2), data(A, 2, b"two")]);
        let no_reply = frame(
            &b,
            t,
            A,
            Frame::Joined {
                tag: TAG,
                next_seq: 9,
                reply: false,
            },
        );
        assert_eq!(no_reply, vec![]);
    }

    #[test]
    fn a_left_releases_the_flow_window_and_the_gated_control_messages() {
        let t = Instant::now();
        let (a, b) = (fed(A), fed(B));
        connect(t, (&a, A), (&b, B));
        // A fills its window towards B (8 messages), B acknowledges nothing.
        for i in 0..9u8 {
            send(&a, t, &[i]);
        }
        assert!(matches!(a.members(|m| m.room(t)), Room::Wait { .. }));
        // B has a control message from A waiting for data it will never get.
        let gated = frame(
            &b,
            t,
            A,
            Frame::App {
                tag: Some(TAG),
                hw: 20,
                payload: b"resign".to_vec(),
            },
        );
        assert_eq!(gated, vec![]);
        // B leaves: A's window opens, its waiting senders are woken.
        assert_eq!(
            frame(&a, t, B, Frame::Left { tag: TAG }),
            vec![Output::FlowOpened { tag: TAG }, peer(B, false)]
        );
        assert_eq!(a.members(|m| m.room(t)), Room::Open);
        // A leaves B's channel: the gated message goes up before the departure.
        let out = frame(&b, t, A, Frame::Left { tag: TAG });
        assert_eq!(
            out,
            vec![
                Output::FlowOpened { tag: TAG },
                Output::Event(TransportEvent::Control {
                    tag: Some(TAG),
                    from: A,
                    payload: Bytes::from_static(b"resign")
                }),
                peer(A, false)
            ]
        );
        assert_eq!(frame(&b, t, A, Frame::Left { tag: TAG }), vec![], "once");
    }

    #[test]
    fn acknowledgements_open_the_window_and_requests_follow_the_senders_policy() {
        let t = Instant::now();
        let (a, b) = (fed(A), fed(B));
        connect(t, (&a, A), (&b, B));
        let mut wire = Vec::new();
        for i in 0..9u8 {
            wire.extend(send(&a, t, &[i]));
        }
        assert!(matches!(a.members(|m| m.room(t)), Room::Wait { .. }));
        // B's own policy: an acknowledgement every 2 messages (a quarter of its window of 8).
        let out = datagrams(&b, t, wire);
        let acks: Vec<u64> = out
            .iter()
            .filter_map(|o| match o {
                Output::Transmit {
                    to: A,
                    frame: Frame::Ack { position, .. },
                } => Some(*position),
                _ => None,
            })
            .collect();
        assert_eq!(acks, vec![2, 4, 6, 8]);
        // A waits and asks B for an acknowledgement now, and one per message from now on.
        let asks = a.members(|m| m.ack_requests());
        let policy = a.members(|m| m.ack_policy());
        assert_eq!(
            asks,
            vec![Output::Transmit {
                to: B,
                frame: Frame::AckRequest { tag: TAG, policy }
            }]
        );
        let narrow = AckPolicy {
            every_bytes: u64::MAX,
            every_messages: 1,
        };
        let answer = frame(
            &b,
            t,
            A,
            Frame::AckRequest {
                tag: TAG,
                policy: narrow,
            },
        );
        let position = match answer.as_slice() {
            [
                Output::Transmit {
                    to: A,
                    frame: Frame::Ack { position, .. },
                },
            ] => *position,
            other => panic!("expected one Ack, got {other:?}"),
        };
        assert_eq!(position, 9, "everything handed up");
        // The answer reaches A: room again.
        assert_eq!(
            frame(&a, t, B, Frame::Ack { tag: TAG, position }),
            vec![Output::FlowOpened { tag: TAG }]
        );
        assert_eq!(a.members(|m| m.room(t)), Room::Open);
        assert_eq!(
            frame(&a, t, B, Frame::Ack { tag: TAG, position }),
            vec![],
            "an old acknowledgement changes nothing"
        );
        // From now on B acknowledges every message.
        let wire = send(&a, t, b"n");
        let out = datagrams(&b, t, wire);
        assert_eq!(
            out,
            vec![
                Output::Transmit {
                    to: A,
                    frame: Frame::Ack {
                        tag: TAG,
                        position: 10
                    }
                },
                data(A, 10, b"n")
            ]
        );
    }

    #[test]
    fn a_nack_gets_the_repair_of_what_it_misses() {
        let t = Instant::now();
        let (a, b) = (fed(A), fed(B));
        connect(t, (&a, A), (&b, B));
        let _lost = send(&a, t, b"lost");
        let next = send(&a, t, b"next");
        assert_eq!(datagrams(&b, t, next), vec![]);
        let due = b
            .receive(|r| r.poll_timeout())
            .expect("a NACK is scheduled");
        let mut out = Vec::new();
        b.receive(|r| {
            r.handle_timeout(due);
            drain(r, &mut |o| out.push(o));
        });
        let nack = match out.as_slice() {
            [
                Output::Transmit {
                    to: A,
                    frame: nack @ Frame::Nack { .. },
                },
            ] => nack.clone(),
            other => panic!("expected one NACK, got {other:?}"),
        };
        let answer = frame(&a, due, B, nack);
        let repair = match answer.as_slice() {
            [
                Output::Transmit {
                    to: B,
                    frame: repair @ Frame::Repair { repair: r, .. },
                },
            ] => {
                assert_eq!(r.first_available, 1);
                assert_eq!(r.datagrams.len(), 1, "exactly the missing datagram");
                repair.clone()
            }
            other => panic!("expected one Repair, got {other:?}"),
        };
        // (B acknowledges every second message.)
        assert_eq!(
            frame(&b, due, A, repair),
            vec![data(A, 1, b"lost"), ack(2), data(A, 2, b"next")]
        );
    }

    #[test]
    fn a_key_request_is_answered_with_the_key_here_and_without_one_elsewhere() {
        let t = Instant::now();
        let a = fed(A);
        assert_eq!(
            frame(&a, t, B, Frame::KeyRequest { tag: TAG }),
            vec![Output::Transmit {
                to: B,
                frame: Frame::KeyReply {
                    tag: TAG,
                    key: Some(KEY)
                }
            }]
        );
        let other = FederationTag(99);
        assert_eq!(
            not_open(other, B, MemberFrame::KeyRequest),
            Some(Output::Transmit {
                to: B,
                frame: Frame::KeyReply {
                    tag: other,
                    key: None
                }
            })
        );
        assert_eq!(
            not_open(
                other,
                B,
                MemberFrame::App {
                    hw: 3,
                    payload: Bytes::from_static(b"c")
                }
            ),
            Some(Output::Event(TransportEvent::Control {
                tag: Some(other),
                from: B,
                payload: Bytes::from_static(b"c")
            }))
        );
        assert_eq!(not_open(other, B, MemberFrame::Left), None);
    }

    #[test]
    fn a_peer_gone_leaves_every_federation() {
        let t = Instant::now();
        let other = FederationTag(0xbee);
        let (a1, a2, a3) = (fed(A), fed_of(A, other), fed_of(A, FederationTag(5)));
        let (b1, b2) = (fed(B), fed_of(B, other));
        connect(t, (&a1, A), (&b1, B));
        connect(t, (&a2, A), (&b2, B));
        let mut seen = Vec::new();
        peer_gone([&a1, &a2, &a3], B, &mut |fed, o| seen.push((fed.tag, o)));
        let left = |tag| {
            (
                tag,
                Output::Event(TransportEvent::FederationPeer {
                    tag,
                    node: B,
                    joined: false,
                }),
            )
        };
        assert_eq!(
            seen,
            vec![
                (TAG, Output::FlowOpened { tag: TAG }),
                left(TAG),
                (other, Output::FlowOpened { tag: other }),
                left(other),
            ],
            "nothing for a federation it was not in"
        );
        for f in [&a1, &a2] {
            assert!(!f.members(|m| m.contains(B)));
            assert!(f.members(|m| m.members().is_empty()));
        }
        // Its datagrams are not accepted any more.
        let wire = send(&b1, t, b"late");
        assert_eq!(datagrams(&a1, t, wire), vec![]);
        assert_eq!(a1.receive(|r| r.stats()).dropped.not_member, 1);
    }

    #[test]
    fn frames_are_sorted_by_what_they_concern() {
        assert_eq!(Inbound::from(Frame::Heartbeat), Inbound::Link);
        assert_eq!(Inbound::from(Frame::Goodbye), Inbound::Goodbye);
        assert_eq!(
            Inbound::from(Frame::App {
                tag: None,
                hw: 0,
                payload: b"x".to_vec()
            }),
            Inbound::Control(Bytes::from_static(b"x"))
        );
        let joined = MemberFrame::Joined {
            next_seq: 1,
            reply: true,
        };
        assert_eq!(joined.opens(), Some(true));
        assert_eq!(MemberFrame::Left.opens(), Some(false));
        assert_eq!(MemberFrame::KeyRequest.opens(), None);
    }

    /// The shell handles the frames that do not hand up outside the layer above's receive
    /// turns: none of them may ever produce an event. Every kind of frame is exchanged here, in
    /// a stream with a loss (so NACKs and repairs flow) and with a gated control message
    /// waiting (so anything that touched the receive path would release it).
    #[test]
    fn frames_that_do_not_hand_up_never_produce_an_event() {
        let t = Instant::now();
        let (a, b) = (fed(A), fed(B));
        connect(t, (&a, A), (&b, B));
        let _lost = send(&a, t, b"lost");
        let next = send(&a, t, b"next");
        assert_eq!(datagrams(&b, t, next), vec![]);
        // A control message behind A's data up to 2: gated at B until the loss is repaired.
        let gated = frame(
            &b,
            t,
            A,
            Frame::App {
                tag: Some(TAG),
                hw: 2,
                payload: b"gated".to_vec(),
            },
        );
        assert_eq!(gated, vec![]);
        let due = b.receive(|r| r.poll_timeout()).expect("a NACK is due");
        let mut nacks = Vec::new();
        b.receive(|r| {
            r.handle_timeout(due);
            drain(r, &mut |o| nacks.push(o));
        });
        let quiet: Vec<(&Fed, NodeId, Frame)> = vec![
            (&a, B, Frame::KeyRequest { tag: TAG }),
            (&b, A, Frame::KeyRequest { tag: TAG }),
            (
                &a,
                B,
                Frame::Ack {
                    tag: TAG,
                    position: 1,
                },
            ),
            (
                &b,
                A,
                Frame::Ack {
                    tag: TAG,
                    position: 0,
                },
            ),
        ]
        .into_iter()
        .chain(nacks.into_iter().filter_map(|o| match o {
            Output::Transmit { frame, .. } => Some((&a, B, frame)),
            _ => None,
        }))
        .collect();
        assert!(
            quiet
                .iter()
                .any(|(_, _, f)| matches!(f, Frame::Nack { .. })),
            "the exchange has a NACK"
        );
        for (fed, from, f) in quiet {
            let kind = format!("{f:?}");
            let Inbound::Member { frame: m, .. } = Inbound::from(f.clone()) else {
                panic!("{kind} is a member frame");
            };
            assert!(!m.hands_up(), "{kind}");
            let out = frame(fed, due, from, f);
            assert!(
                !out.iter().any(|o| matches!(o, Output::Event(_))),
                "{kind} produced {out:?}"
            );
        }
        // And the gated message still waits for its data: nothing above touched B's receive
        // path. The frames that do hand up say so.
        assert_eq!(b.receive(|r| r.poll_output()), None);
        for m in [
            MemberFrame::Left,
            MemberFrame::Joined {
                next_seq: 1,
                reply: false,
            },
            MemberFrame::AckRequest {
                policy: a.members(|m| m.ack_policy()),
            },
            MemberFrame::App {
                hw: 0,
                payload: Bytes::new(),
            },
        ] {
            assert!(m.hands_up(), "{m:?}");
        }
    }

    #[test]
    fn a_member_that_cannot_join_a_cell_group_gets_cell_messages_on_the_default_group() {
        let t = Instant::now();
        let (a, b) = (fed(A), fed(B));
        // B wants a cell group, and the kernel refuses it.
        let change = b.cells(|c| c.want(&[cell_key(3, 1)]));
        b.cells(|c| c.join_failed(change.join[0]));
        // A's `Joined` reaches B: B answers, and says it cannot hear that cell.
        let joined = a.sender(|s| s.joined(true));
        let out = frame(&b, t, A, joined);
        let said: Vec<&Frame> = out
            .iter()
            .filter_map(|o| match o {
                Output::Transmit { to, frame } if *to == A => Some(frame),
                _ => None,
            })
            .collect();
        assert!(
            matches!(said[0], Frame::Joined { reply: false, .. }),
            "{said:?}"
        );
        assert_eq!(said[1], &Frame::CellFallback { tag: TAG, on: true });
        // A routes its cell messages to the default group from then on, not before.
        let cells = [cell_key(3, 1)];
        assert!(matches!(a.cells(|c| c.route(&cells)), CellRoute::Groups(_)));
        assert!(frame(&a, t, B, said[1].clone()).is_empty());
        assert_eq!(
            a.cells(|c| c.route(&cells)),
            CellRoute::Default {
                fallback: Some(Fallback::MemberCannotJoin)
            }
        );
        // B can again: cells once more.
        frame(
            &a,
            t,
            B,
            Frame::CellFallback {
                tag: TAG,
                on: false,
            },
        );
        assert!(matches!(a.cells(|c| c.route(&cells)), CellRoute::Groups(_)));
        // A member that leaves takes its fallback with it.
        frame(&a, t, B, Frame::CellFallback { tag: TAG, on: true });
        let joined_b = b.sender(|s| s.joined(false));
        frame(&a, t, B, joined_b);
        frame(&a, t, B, Frame::Left { tag: TAG });
        assert!(matches!(a.cells(|c| c.route(&cells)), CellRoute::Groups(_)));
        // A node that joined every group it wants says nothing of cells.
        let out = frame(&a, t, B, b.sender(|s| s.joined(true)));
        assert!(
            !out.iter().any(|o| matches!(
                o,
                Output::Transmit {
                    frame: Frame::CellFallback { .. },
                    ..
                }
            )),
            "{out:?}"
        );
    }
}
