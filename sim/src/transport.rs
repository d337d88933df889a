//! One simulated node's transport: the transport core's parts, driven as
//! `transport/src/node.rs` drives them, over the simulated network instead of sockets and QUIC.
//!
//! - the peer table and the frames held for a peer not connected yet: the core's [`Mesh`];
//! - per open federation a [`Channel`]: [`Members`], [`SendSide`] and [`ReceivePath`] in plain
//!   cells (the shell keeps each behind its own lock), reached by the member-frame protocol
//!   through [`ChannelParts`];
//! - the shell's steps, one method each: [`SimTransport::open_federation`] (announce the
//!   channel to every connected peer), [`SimTransport::close_federation`] (`Left` once every
//!   member acknowledged the stream, or the wait gave up: `DrainWait`, as `node/drain.rs`),
//!   [`SimTransport::send`] (`FederationChannel::send_with`: batching decision, numbering,
//!   flow window), [`SimTransport::send_control`] (flush, then `App` tagged with the
//!   high-water), [`SimTransport::on_frame`] (`Shared::on_frame`),
//!   [`SimTransport::on_datagram`] (`route`), [`SimTransport::run_timers`] (the data thread's
//!   timers), [`SimTransport::on_connected`] (`register` and `on_registered`) and
//!   [`SimTransport::peer_gone`].
//!
//! What the parts hand up comes back as [`Output`]s, in order, for the caller to execute: the
//! events go to the LRC's driver (`hlamesh_lrc::driver`), the frames to [`SimTransport::transmit`].

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::rc::Rc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use hlamesh_transport::config::TransportConfig;
use hlamesh_transport::core::cells::{CellGroups, CellRoute};
use hlamesh_transport::core::channel::{ChannelParts, Members, Outgoing, SendSide};
use hlamesh_transport::core::dispatch::{self, Inbound};
use hlamesh_transport::core::mesh::Route;
use hlamesh_transport::core::schedule::{DrainStep, DrainWait};
use hlamesh_transport::core::{Mesh, Output, ReceivePath, TransportEvent};
use hlamesh_transport::data::chain::GroupId;
use hlamesh_transport::data::{self, DataConfig, DataReceiver, DataSender, Reliability, SendError};
use hlamesh_transport::flow::{FlowConfig, Room};
use hlamesh_transport::frame::Frame;
use hlamesh_transport::{FederationKey, FederationTag, NodeId};

use crate::net::{FrameKind, Net};

/// The key every simulated federation uses (the shell's key exchange is not simulated).
pub const KEY: FederationKey = FederationKey([0x5a; 32]);

/// How the transport of every simulated node is configured.
#[derive(Clone, Debug)]
pub struct TransportSettings {
    /// The data plane (datagram size, retransmit buffer, timers).
    pub data: DataConfig,
    /// The flow window.
    pub flow: FlowConfig,
    /// Whether sends are flow-controlled.
    pub flow_control: bool,
    /// DDM cell groups per federation (0: none; messages for cells go to the default group).
    pub cell_groups: u32,
}

/// One federation's data channel on a simulated node: the transport core's three parts in
/// plain cells.
#[derive(Debug)]
pub struct Channel {
    tag: FederationTag,
    name: String,
    members: RefCell<Members>,
    recv: RefCell<ReceivePath>,
    send: RefCell<SendSide>,
    /// DDM cell groups ([`TransportSettings::cell_groups`] of them, joined and left on the
    /// simulated network as the shell does on its socket).
    cells: RefCell<CellGroups>,
    /// Datagrams from other nodes received (the batching decision's input).
    heard: Cell<u64>,
    /// Reliable messages refused as out of sequence (the core numbered one otherwise than
    /// the stream): each is a defect.
    pub out_of_sequence: Cell<u64>,
}

/// The cell groups of federation `tag`: `n` of them, at the addresses the shell's default
/// configuration gives them.
fn cell_groups(tag: FederationTag, n: u32) -> CellGroups {
    let cfg = TransportConfig {
        max_joined_cells: n,
        ..TransportConfig::default()
    };
    CellGroups::new(
        cfg.cell_groups_for(tag),
        cfg.data_group_for(tag),
        cfg.max_cells_per_send as usize,
    )
}

impl ChannelParts for Channel {
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

impl Channel {
    /// The federation's tag.
    pub fn tag(&self) -> FederationTag {
        self.tag
    }

    /// The federation's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Where member `node`'s stream starts here (`None`: not a member).
    pub fn first_seq(&self, node: NodeId) -> Option<u64> {
        self.members.borrow().first_seq(node)
    }

    /// The channel's members.
    pub fn members(&self) -> Vec<NodeId> {
        self.members.borrow().members()
    }

    /// How far `node`'s reliable stream was delivered (or skipped) here.
    pub fn delivered(&self, node: NodeId) -> u64 {
        self.recv.borrow().delivered(node)
    }

    /// This node's last reliable number sent.
    pub fn high_water(&self) -> u64 {
        self.send.borrow().high_water()
    }

    /// Whether the flow window has room at `now`.
    pub fn has_room(&self, now: Instant) -> bool {
        self.members.borrow_mut().room(now) == Room::Open
    }

    /// The receive path's counters.
    pub fn recv_stats(&self) -> data::RecvStats {
        self.recv.borrow().stats()
    }
}

/// One node's transport (see the module docs).
#[derive(Debug)]
pub struct SimTransport {
    me: NodeId,
    settings: TransportSettings,
    mesh: Mesh<()>,
    feds: BTreeMap<FederationTag, Rc<Channel>>,
    /// Channels being closed: still open (acknowledgements, NACKs, heartbeats) until every
    /// member acknowledged this node's stream or the wait gave up; the layer above has let them
    /// go already.
    closing: BTreeMap<FederationTag, DrainWait>,
}

/// The control stream's stand-in for a socket address (the mesh wants one).
fn addr_of(n: NodeId) -> SocketAddr {
    SocketAddr::from((Ipv4Addr::LOCALHOST, (n.0 % 60_000) as u16 + 1024))
}

impl SimTransport {
    /// The transport of node `me`.
    pub fn new(me: NodeId, settings: TransportSettings) -> SimTransport {
        SimTransport {
            me,
            settings,
            mesh: Mesh::new(me, Duration::from_secs(1)),
            feds: BTreeMap::new(),
            closing: BTreeMap::new(),
        }
    }

    /// This node.
    pub fn node(&self) -> NodeId {
        self.me
    }

    /// Whether its federations have DDM cell groups ([`TransportSettings::cell_groups`]).
    pub fn has_cell_groups(&self) -> bool {
        self.settings.cell_groups > 0
    }

    /// The channel's rule for numbering reliable messages: (largest whole payload, payload
    /// per fragment).
    pub fn numbering(&self) -> (usize, usize) {
        (
            self.settings.data.reliable_max_whole(),
            self.settings.data.reliable_fragment(),
        )
    }

    /// The connected peers.
    pub fn peers(&self) -> Vec<NodeId> {
        let mut v: Vec<NodeId> = self.mesh.keys().copied().collect();
        v.sort();
        v
    }

    /// Whether `peer` is connected.
    pub fn is_connected(&self, peer: NodeId) -> bool {
        self.mesh.contains_key(&peer)
    }

    /// The open channels.
    pub fn channels(&self) -> impl Iterator<Item = &Rc<Channel>> {
        self.feds.values()
    }

    /// The channel of federation `tag`, if open.
    pub fn channel(&self, tag: FederationTag) -> Option<&Rc<Channel>> {
        self.feds.get(&tag)
    }

    /// Sends `frame` to `to` on its control stream, or holds it until the peer is connected
    /// (`Shared::send_frame`).
    pub fn transmit(&mut self, net: &mut Net, to: NodeId, frame: &Frame) {
        let now = net.instant(net.now());
        if let Ok(Route::Send((), bytes)) = self.mesh.route(now, to, frame.encode()) {
            net.send_frame(self.me, to, bytes, FrameKind::of(frame));
        }
    }

    /// Opens federation `name`'s channel (or returns the open one) and tells every connected
    /// peer where this node's stream stands (`Transport::open_federation`).
    pub fn open_federation(&mut self, net: &mut Net, name: &str) -> Rc<Channel> {
        let tag = FederationTag::from_name(name);
        // The shell's close returns only once it ended: a channel still closing ends first.
        if self.closing.remove(&tag).is_some() {
            self.finish_close(net, tag);
        }
        if let Some(c) = self.feds.get(&tag) {
            return c.clone();
        }
        let cfg = self.settings.data.clone();
        let members = Members::new(tag, self.settings.flow, self.settings.flow_control);
        let rx = DataReceiver::new(self.me, tag, &KEY, cfg.clone());
        let tx = DataSender::new(self.me, tag, &KEY, cfg);
        let (Ok(rx), Ok(tx)) = (rx, tx) else {
            panic!("the simulator's data configuration is valid")
        };
        let channel = Rc::new(Channel {
            tag,
            name: name.to_string(),
            recv: RefCell::new(ReceivePath::new(rx, members.ack_policy())),
            send: RefCell::new(SendSide::new(tx)),
            members: RefCell::new(members),
            cells: RefCell::new(cell_groups(tag, self.settings.cell_groups)),
            heard: Cell::new(0),
            out_of_sequence: Cell::new(0),
        });
        self.feds.insert(tag, channel.clone());
        let hello = dispatch::announce(&*channel);
        for p in self.peers() {
            self.transmit(net, p, &hello);
        }
        channel
    }

    /// Closes federation `tag`'s channel (`Transport::close_federation`): once every member
    /// acknowledged this node's stream up to its last message (asked for at once and every few
    /// ms, bounded), the peers get `Left`.
    pub fn close_federation(&mut self, net: &mut Net, tag: FederationTag) {
        let Some(c) = self.feds.get(&tag).cloned() else {
            return;
        };
        if self.closing.contains_key(&tag) {
            return;
        }
        self.flush(net, &c);
        let now = net.instant(net.now());
        self.closing
            .insert(tag, DrainWait::new(now, c.high_water()));
        self.step_closing(net);
        if self.closing.contains_key(&tag) {
            net.stats.closes_waited += 1;
        }
    }

    /// Moves every closing channel's wait on: asks its members again, or ends the close.
    fn step_closing(&mut self, net: &mut Net) {
        let tags: Vec<FederationTag> = self.closing.keys().copied().collect();
        for tag in tags {
            let Some(c) = self.feds.get(&tag).cloned() else {
                self.closing.remove(&tag);
                continue;
            };
            loop {
                let now = net.instant(net.now());
                let acknowledged = self
                    .settings
                    .flow_control
                    .then(|| c.members.borrow().delivered_by_all())
                    .flatten();
                let Some(wait) = self.closing.get_mut(&tag) else {
                    break;
                };
                match wait.step(now, acknowledged) {
                    DrainStep::Done(_) => {
                        self.closing.remove(&tag);
                        self.finish_close(net, tag);
                        break;
                    }
                    DrainStep::AskForAcks => {
                        let asks = c.members.borrow().ack_requests();
                        for o in asks {
                            if let Output::Transmit { to, frame } = o {
                                self.transmit(net, to, &frame);
                            }
                        }
                    }
                    DrainStep::Sleep(_) => break,
                }
            }
        }
    }

    /// The end of a close: the channel goes and every peer gets `Left`.
    fn finish_close(&mut self, net: &mut Net, tag: FederationTag) {
        if let Some(c) = self.feds.remove(&tag) {
            for g in c.cells.borrow().joined() {
                net.set_group(self.me, g, false);
            }
            self.mesh.drop_held_of(tag);
            for p in self.peers() {
                self.transmit(net, p, &Frame::Left { tag });
            }
        }
    }

    /// Multicasts datagrams of this node.
    fn emit(&self, net: &mut Net, wire: Vec<Bytes>) {
        for d in wire {
            net.multicast(self.me, &d);
        }
    }

    /// Sends one message on `channel` (`FederationChannel::send_with`): the batching decision
    /// with what this node heard, the caller's number checked, the datagrams multicast, the
    /// flow window told.
    pub fn send(
        &mut self,
        net: &mut Net,
        channel: &Channel,
        reliability: Reliability,
        payload: &[u8],
        hold: bool,
        number: Option<u64>,
    ) -> Result<Option<u64>, SendError> {
        let now = net.instant(net.now());
        let msg = Outgoing {
            reliability,
            payload,
            hold,
            heard: channel.heard.get(),
            // The simulator runs a node's timers exactly when they fall due.
            timer_by: Some(now),
            number: number.map(data::Seq),
        };
        let mut wire: Vec<Bytes> = Vec::new();
        let seq = {
            let mut side = channel.send.borrow_mut();
            let r = side.send(now, msg, &mut |d: &[u8]| {
                wire.push(Bytes::copy_from_slice(d))
            });
            side.sent(now, (!wire.is_empty()).then_some(now));
            r
        };
        self.emit(net, wire);
        self.sent(channel, seq, payload.len())
    }

    /// What a send returned, counted: a refused number as a defect, a reliable message in the
    /// flow window. Returns the reliable number.
    fn sent(
        &self,
        channel: &Channel,
        r: Result<Option<data::Seq>, SendError>,
        len: usize,
    ) -> Result<Option<u64>, SendError> {
        let seq = match r {
            Err(e @ SendError::OutOfSequence { .. }) => {
                channel
                    .out_of_sequence
                    .set(channel.out_of_sequence.get() + 1);
                return Err(e);
            }
            r => r?,
        };
        if let Some(s) = seq
            && self.settings.flow_control
        {
            channel.members.borrow_mut().on_sent(s.0, len);
        }
        Ok(seq.map(|s| s.0))
    }

    /// Sends one message for DDM cells `cells` on `channel` (`FederationChannel::send_to_cells`
    /// and `send_reliable_to_cells`): to the cell groups they map to, best effort (`number`
    /// `None`) or reliable with chain headers, the pending datagram flushed to the default group
    /// first; to the default group, like [`SimTransport::send`], when they map to none (or too
    /// many). Returns the reliable number and whether it went to cell groups.
    pub fn send_to_cells(
        &mut self,
        net: &mut Net,
        channel: &Channel,
        payload: &[u8],
        cells: &[u32],
        number: Option<u64>,
    ) -> Result<(Option<u64>, bool), SendError> {
        let route = channel.cells.borrow().route(cells);
        let CellRoute::Groups(groups) = route else {
            let r = match number {
                Some(_) => Reliability::Reliable,
                None => Reliability::BestEffort,
            };
            let seq = self.send(net, channel, r, payload, false, number)?;
            return Ok((seq, false));
        };
        let ids: Vec<GroupId> = {
            let c = channel.cells.borrow();
            groups.iter().filter_map(|g| c.group_id(*g)).collect()
        };
        self.flush(net, channel);
        let now = net.instant(net.now());
        let mut wire: Vec<Bytes> = Vec::new();
        let r = {
            let mut side = channel.send.borrow_mut();
            let mut out = |d: &[u8]| wire.push(Bytes::copy_from_slice(d));
            let r = match number {
                Some(n) => side
                    .send_reliable_cells(now, &ids, payload, Some(data::Seq(n)), &mut out)
                    .map(Some),
                None => side.send_cells(now, payload, &mut out).map(|()| None),
            };
            side.sent(now, (!wire.is_empty()).then_some(now));
            r
        };
        for d in &wire {
            for g in &groups {
                net.multicast_to(self.me, *g, d);
            }
        }
        Ok((self.sent(channel, r, payload.len())?, true))
    }

    /// This node's subscriptions want DDM cells `cells` on `channel` (`FederationChannel::
    /// set_cells`): joins the groups newly needed, leaves the others, and tells the receive path
    /// which groups' reliable positions are due. Joins never fail here.
    pub fn set_cells(&mut self, net: &mut Net, channel: &Channel, cells: &[u32]) {
        let change = channel.cells.borrow_mut().want(cells);
        for g in change.join {
            net.set_group(self.me, g, true);
        }
        for g in change.leave {
            net.set_group(self.me, g, false);
        }
        let ids = channel.cells.borrow().joined_ids();
        let now = net.instant(net.now());
        channel.recv.borrow_mut().set_groups(now, &ids);
    }

    /// Sends `channel`'s pending datagram now.
    pub fn flush(&mut self, net: &mut Net, channel: &Channel) {
        let now = net.instant(net.now());
        let mut wire: Vec<Bytes> = Vec::new();
        channel
            .send
            .borrow_mut()
            .flush(now, &mut |d: &[u8]| wire.push(Bytes::copy_from_slice(d)));
        self.emit(net, wire);
    }

    /// Sends a control message of `channel`'s federation to `peer`; with `causal`, released
    /// there only after this node's data on that channel up to now (flushed first) —
    /// `Transport::send_federation_control`, held frames dropped at `close_federation` too.
    pub fn send_control(
        &mut self,
        net: &mut Net,
        peer: NodeId,
        channel: &Channel,
        causal: bool,
        payload: &[u8],
    ) {
        let (tag, hw) = if causal {
            self.flush(net, channel);
            (Some(channel.tag), channel.high_water())
        } else {
            (None, 0)
        };
        let frame = Frame::App {
            tag,
            hw,
            payload: payload.to_vec(),
        };
        let now = net.instant(net.now());
        if let Ok(Route::Send((), bytes)) =
            self.mesh
                .route_for(now, peer, frame.encode(), Some(channel.tag))
        {
            net.send_frame(self.me, peer, bytes, FrameKind::of(&frame));
        }
    }

    /// A flow-controlled sender starts to wait for room (`wait_for_room`): the pending
    /// datagram goes out and every member is asked for an acknowledgement. Returns the frames
    /// to send.
    pub fn ask_for_room(&mut self, net: &mut Net, channel: &Channel) -> Vec<Output> {
        self.flush(net, channel);
        channel.members.borrow().ack_requests()
    }

    /// A datagram arrives (`route`): to its federation's receive path, outputs in order.
    pub fn on_datagram(&mut self, net: &Net, dgram: Bytes) -> Vec<Output> {
        let Ok((tag, sender)) = data::peek(&dgram).map(|h| (h.tag, h.sender)) else {
            return Vec::new();
        };
        let Some(c) = self.feds.get(&tag) else {
            return Vec::new();
        };
        if sender != self.me {
            c.heard.set(c.heard.get() + 1);
        }
        let now = net.instant(net.now());
        let mut out = Vec::new();
        c.receive(|r| {
            r.handle_datagram(now, dgram);
            dispatch::drain(r, &mut |o| out.push(o));
        });
        out
    }

    /// A control frame from `from` arrives (`Shared::on_frame`): sorted and handled by the
    /// member-frame protocol. A goodbye is handled by the caller through
    /// [`SimTransport::peer_gone`] (the returned flag says so).
    pub fn on_frame(&mut self, net: &Net, from: NodeId, bytes: &[u8]) -> (Vec<Output>, bool) {
        let mut out = Vec::new();
        let Some(frame) = bytes.get(4..).and_then(|b| Frame::decode(b).ok()) else {
            return (out, false);
        };
        let now = net.instant(net.now());
        self.mesh.heard(now, from);
        match Inbound::from(frame) {
            Inbound::Link | Inbound::Key { .. } => {}
            Inbound::Goodbye => return (out, true),
            Inbound::Control(payload) => out.push(Output::Event(TransportEvent::Control {
                tag: None,
                from,
                payload,
            })),
            Inbound::Member { tag, frame } => {
                if let Some(open) = frame.opens() {
                    self.mesh.set_federation(from, tag, open);
                }
                match self.feds.get(&tag) {
                    Some(c) => dispatch::handle_frame(now, &**c, from, frame, &mut |o| out.push(o)),
                    None => out.extend(dispatch::not_open(tag, from, frame)),
                }
            }
        }
        (out, false)
    }

    /// The data thread's timers due at the current time: each channel's receive path (NACKs,
    /// reassembly), then its sender (acknowledged copies released, a pending datagram flushed,
    /// heartbeats). Returns the receive paths' outputs.
    pub fn run_timers(&mut self, net: &mut Net) -> Vec<Output> {
        self.step_closing(net);
        let now = net.instant(net.now());
        let mut out = Vec::new();
        let chans: Vec<Rc<Channel>> = self.feds.values().cloned().collect();
        for c in chans {
            c.receive(|r| {
                if r.poll_timeout().is_some_and(|t| t <= now) {
                    r.handle_timeout(now);
                    dispatch::drain(r, &mut |o| out.push(o));
                }
            });
            let mut wire: Vec<Bytes> = Vec::new();
            {
                let mut side = c.send.borrow_mut();
                if side.timeout_due(now) {
                    let acknowledged = if self.settings.flow_control {
                        c.members.borrow().delivered_by_all()
                    } else {
                        None
                    };
                    side.handle_timeout(now, acknowledged, &mut |d: &[u8]| {
                        wire.push(Bytes::copy_from_slice(d))
                    });
                }
            }
            self.emit(net, wire);
        }
        out
    }

    /// When this node's timers are next due (virtual µs), if ever.
    pub fn next_timer(&self, net: &Net) -> Option<u64> {
        let now = net.instant(net.now());
        // A closing channel wakes when it asks again or gives up, and at once when its members
        // acknowledged everything (the shell's wait is woken by the acknowledgement).
        let closing = self.closing.iter().map(|(tag, wait)| {
            let acked = self.feds.get(tag).is_none_or(|c| {
                c.members
                    .borrow()
                    .delivered_by_all()
                    .is_none_or(|d| d >= c.high_water())
            });
            if acked { now } else { wait.wake_at() }
        });
        self.feds
            .values()
            .flat_map(|c| {
                [
                    c.recv.borrow().poll_timeout(),
                    c.send.borrow().poll_timeout(now),
                ]
            })
            .flatten()
            .chain(closing)
            .min()
            .map(|t| net.micros(t))
    }

    /// The connection to `peer` is up (`register`, then `on_registered`): the frames held for
    /// it go first, then this node announces each open channel to it.
    pub fn on_connected(&mut self, net: &mut Net, peer: NodeId) -> bool {
        let now = net.instant(net.now());
        let Ok(held) = self.mesh.register(now, peer, addr_of(peer), ()) else {
            return false;
        };
        for bytes in held {
            let kind = bytes
                .get(4..)
                .and_then(|b| Frame::decode(b).ok())
                .map_or(FrameKind::Other, |f| FrameKind::of(&f));
            net.send_frame(self.me, peer, bytes, kind);
        }
        let hellos: Vec<Frame> = self
            .feds
            .values()
            .map(|c| dispatch::announce(&**c))
            .collect();
        for h in hellos {
            self.transmit(net, peer, &h);
        }
        true
    }

    /// `peer` is gone (lost, or it said goodbye): out of the peer table and every channel
    /// (`Shared::peer_gone`). Returns the outputs, then the event to hand up; nothing if it
    /// was not connected.
    pub fn peer_gone(&mut self, net: &Net, peer: NodeId, lost: bool) -> Vec<Output> {
        let now = net.instant(net.now());
        if self.mesh.remove(now, peer).is_none() {
            return Vec::new();
        }
        let mut out = Vec::new();
        let chans: Vec<Rc<Channel>> = self.feds.values().cloned().collect();
        dispatch::peer_gone(chans.iter().map(|c| &**c), peer, &mut |_, o| out.push(o));
        out.push(Output::Event(if lost {
            TransportEvent::PeerLost { node: peer }
        } else {
            TransportEvent::PeerLeft { node: peer }
        }));
        out
    }

    /// The liveness loop's housekeeping: connected peers count as heard (their heartbeats
    /// arrive; a broken connection is reported by the network instead), frames held too long
    /// for a peer that never connected are dropped.
    pub fn housekeeping(&mut self, net: &Net) {
        let now = net.instant(net.now());
        for p in self.peers() {
            self.mesh.heard(now, p);
        }
        let _ = self.mesh.handle_timeout(now);
    }
}
