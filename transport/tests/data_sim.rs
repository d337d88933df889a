//! Deterministic simulation of the data plane: several nodes in one process, each running the
//! transport core's parts of one federation — the member table with the flow window
//! (`Members`), the send side (`SendSide`: `DataSender` and `BatchPolicy`) and the receive path
//! (`ReceivePath`: `DataReceiver`, `CausalGate`, acknowledgements) — wired by the same
//! member-frame protocol the shell runs (`core::dispatch`: `Joined`, `Left`, `Ack`,
//! `AckRequest`, `Nack`, `Repair`, `App`). A seeded faulty multicast network (`FaultInjector`:
//! drop, duplicate, reorder, delay) carries the datagrams, a reliable ordered control channel
//! (the QUIC stand-in) carries the encoded frames.
//!
//! The simulator executes the core's outputs the way `transport/src/node.rs` does: frames go on
//! the control channel, events are checked, `FlowOpened` wakes a sender waiting for room. A
//! sender asks its flow window before each burst and, the first time it must wait, flushes and
//! asks its members for acknowledgements (`wait_for_room`); its timers release the retransmit
//! copies every member acknowledged (the data thread's).
//!
//! Invariants checked:
//! - reliable: every receiver delivers each sender's messages in order, exactly once and
//!   byte-identical, from where the sender's stream stood when the two became members (the
//!   `Joined` frames say where); with a retransmit buffer too small for the loss, exactly the
//!   messages that touch a reported `FellBehind` range are missing, and nothing else;
//! - best-effort: at most once, byte-identical;
//! - memory: receivers and senders stay within their configured bounds at every step;
//! - causality: a gated control message is released only once its data is delivered (or given
//!   up as lost, or its sender left);
//! - flow control: senders wait for room and are woken by acknowledgements (every run must
//!   converge; the lossy runs must have waited).
//!
//! Seeds as every hlamesh simulator takes them (`hlamesh-sim`): `HLAMESH_SIM_SEED=<n>` replays
//! one, `HLAMESH_SIM_SEEDS=<count>` (default 4) from `HLAMESH_SIM_FIRST_SEED` (default 1) sweeps.
//! A failure names the command that replays it.

// Nodes are addressed by index throughout (links and control are keyed by index pairs).
#![allow(clippy::needless_range_loop)]

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hlamesh_transport::core::channel::{ChannelParts, Members, Outgoing, SendSide};
use hlamesh_transport::core::dispatch::{self, Inbound};
use hlamesh_transport::core::{Output, ReceivePath, TransportEvent};
use hlamesh_transport::data::{DataConfig, DataReceiver, DataSender, Reliability, Seq, SeqRange};
use hlamesh_transport::fault::{FaultConfig, FaultInjector};
use hlamesh_transport::flow::{FlowConfig, Room};
use hlamesh_transport::frame::Frame;
use hlamesh_transport::{FederationKey, FederationTag, NodeId};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const TAG: FederationTag = FederationTag(0x5151);
const KEY: FederationKey = FederationKey([0x42; 32]);

#[derive(Clone, Debug)]
struct Scenario {
    nodes: usize,
    messages_per_node: usize,
    cfg: DataConfig,
    flow: FlowConfig,
    net: FaultConfig,
    control_delay: Duration,
    expect_fell_behind: bool,
    /// The last node joins this late: it hears nothing before, then announces itself
    /// (`Joined`), and every sender's stream starts for it where the sender stood when it
    /// answered (as after a state transfer).
    late_join: Option<Duration>,
    /// Node 0 leaves at this time: it sends `Left` to its members and stops.
    leave: Option<Duration>,
}

/// One node's parts of the federation, in plain cells (the shell keeps them behind locks).
struct Fed {
    members: RefCell<Members>,
    recv: RefCell<ReceivePath>,
    send: RefCell<SendSide>,
    /// DDM cell groups (none here: the simulated network has one group per federation).
    cells: RefCell<hlamesh_transport::core::cells::CellGroups>,
}

impl ChannelParts for Fed {
    fn tag(&self) -> FederationTag {
        TAG
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
    fn cells<R>(&self, f: impl FnOnce(&mut hlamesh_transport::core::cells::CellGroups) -> R) -> R {
        f(&mut self.cells.borrow_mut())
    }
}

struct Node {
    fed: Fed,
    /// Per sender: delivered reliable (seq, payload).
    got_rel: BTreeMap<NodeId, Vec<(Seq, Bytes)>>,
    got_be: HashMap<Vec<u8>, usize>,
    lost: BTreeMap<NodeId, Vec<SeqRange>>,
    /// Per sender: the highest number handed up or reported lost.
    handed_up: BTreeMap<NodeId, u64>,
    gated_released: u64,
    /// Not yet joined (late joiner) or gone (leaver): hears and does nothing.
    active: bool,
    /// Per sender, the first reliable number this node is expected to deliver (recorded when
    /// the sender became a member).
    start: BTreeMap<NodeId, u64>,
    /// Datagrams from other nodes received (the batching decision's input).
    heard: u64,
    /// Waiting for room in the flow window (asked for acknowledgements already).
    waiting: bool,
}

struct Sent {
    seq: Option<Seq>,
    frames: u64,
    payload: Vec<u8>,
}

#[derive(Debug, Default)]
struct Outcome {
    fell_behind: u64,
    nacks: u64,
    acks: u64,
    flow_waits: u64,
    reliable_delivered: u64,
    best_effort_delivered: u64,
    best_effort_sent: u64,
    network_drops: u64,
    late_joiner_delivered: u64,
    receivers: Vec<hlamesh_transport::data::RecvStats>,
}

/// The seeds each scenario runs (`hlamesh-sim`'s convention): 4 from 1 unless the environment
/// says otherwise.
fn seeds() -> Vec<u64> {
    hlamesh_sim::Seeds::from_env(1, 4, None).iter().collect()
}

fn size(rng: &mut StdRng) -> usize {
    match rng.random_range(0..100) {
        0..70 => rng.random_range(1..=200),
        70..90 => rng.random_range(201..=4096),
        _ => rng.random_range(4097..=64 << 10),
    }
}

/// A control message: the payload of a gated `App` frame (the sender's high-water and an id).
fn gated_payload(hw: u64, id: u64) -> Vec<u8> {
    [hw.to_le_bytes(), id.to_le_bytes()].concat()
}

fn gated_hw(payload: &[u8]) -> Result<u64, String> {
    let b: [u8; 8] = payload
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .ok_or("short control message")?;
    Ok(u64::from_le_bytes(b))
}

type ControlQueue = BinaryHeap<Reverse<(Instant, u64, usize, usize)>>;

/// The network and everything the checks need besides the nodes.
struct Sim<'a> {
    sc: &'a Scenario,
    ids: Vec<NodeId>,
    links: BTreeMap<(usize, usize), FaultInjector>,
    /// Control channel: (deliver at, counter, from, to), per-pair FIFO kept by never scheduling
    /// a message before the previous one on the same pair; the encoded frames by counter.
    control: ControlQueue,
    control_msgs: HashMap<u64, Vec<u8>>,
    control_last: HashMap<(usize, usize), Instant>,
    counter: u64,
    next_send: Vec<Instant>,
    be_sent: HashMap<Vec<u8>, usize>,
    gated_to_inactive: u64,
    out: Outcome,
}

impl Sim<'_> {
    fn schedule(&mut self, now: Instant, from: usize, to: usize, frame: &Frame) {
        let last = self.control_last.entry((from, to)).or_insert(now);
        let at = (now + self.sc.control_delay).max(*last);
        *last = at;
        self.counter += 1;
        self.control.push(Reverse((at, self.counter, from, to)));
        self.control_msgs.insert(self.counter, frame.encode());
    }

    fn index(&self, node: NodeId) -> Result<usize, String> {
        self.ids
            .iter()
            .position(|&i| i == node)
            .ok_or_else(|| format!("unknown node {node}"))
    }

    /// Executes what node `r`'s core asked for, as the shell does, checking what it hands up.
    fn execute(
        &mut self,
        now: Instant,
        nodes: &mut [Node],
        r: usize,
        outputs: Vec<Output>,
    ) -> Result<(), String> {
        for o in outputs {
            match o {
                Output::Transmit { to, frame } => {
                    match &frame {
                        Frame::Nack { .. } => self.out.nacks += 1,
                        Frame::Ack { .. } => self.out.acks += 1,
                        _ => {}
                    }
                    let to = self.index(to)?;
                    self.schedule(now, r, to, &frame);
                }
                Output::FlowOpened { .. } => {
                    if nodes[r].waiting {
                        self.next_send[r] = self.next_send[r].min(now);
                    }
                }
                Output::Event(ev) => self.event(nodes, r, ev)?,
            }
        }
        Ok(())
    }

    fn event(&mut self, nodes: &mut [Node], r: usize, ev: TransportEvent) -> Result<(), String> {
        let node = &mut nodes[r];
        match ev {
            TransportEvent::Data {
                from,
                seq: Some(seq),
                payload,
                ..
            } => {
                self.out.reliable_delivered += 1;
                let up = node.handed_up.entry(from).or_default();
                if seq <= *up {
                    return Err(format!("node {r}: {from}'s {seq} handed up after {up}"));
                }
                *up = seq;
                node.got_rel
                    .entry(from)
                    .or_default()
                    .push((Seq(seq), payload));
            }
            TransportEvent::Data {
                seq: None, payload, ..
            } => {
                self.out.best_effort_delivered += 1;
                let n = node.got_be.entry(payload.to_vec()).or_default();
                *n += 1;
                if *n > self.be_sent.get(&payload[..]).copied().unwrap_or(0) {
                    return Err(format!(
                        "node {r}: best-effort message of {} bytes delivered more often than sent",
                        payload.len()
                    ));
                }
            }
            TransportEvent::FellBehind {
                from, first, last, ..
            } => {
                self.out.fell_behind += 1;
                let lost = SeqRange {
                    first: Seq(first),
                    last: Seq(last),
                };
                if !self.sc.expect_fell_behind {
                    return Err(format!("node {r} fell behind {from}: {lost:?}"));
                }
                node.lost.entry(from).or_default().push(lost);
                let up = node.handed_up.entry(from).or_default();
                *up = (*up).max(last);
            }
            TransportEvent::Control { from, payload, .. } => {
                let hw = gated_hw(&payload)?;
                let m = node.fed.members.borrow();
                // A sender that left (or is leaving) releases what it sent, by design.
                let removed = !m.contains(from);
                let before_start = m.first_seq(from).is_some_and(|s| hw < s);
                let up = node.handed_up.get(&from).copied().unwrap_or(0);
                // After a gap given up, the receiver also skips what a cut message had left;
                // its position then says how far the stream went.
                let skipped =
                    node.lost.contains_key(&from) && node.fed.recv.borrow().delivered(from) >= hw;
                if !removed && !before_start && up < hw && !skipped {
                    return Err(format!(
                        "node {r}: gate released {from}'s hw {hw} early (handed up {up})"
                    ));
                }
                node.gated_released += 1;
            }
            TransportEvent::FederationPeer {
                node: peer,
                joined: true,
                ..
            } => {
                let first = node
                    .fed
                    .members
                    .borrow()
                    .first_seq(peer)
                    .ok_or("a member without a stream start")?;
                node.start.insert(peer, first);
            }
            TransportEvent::FederationPeer { joined: false, .. } => {}
            other => return Err(format!("node {r}: unexpected event {other:?}")),
        }
        Ok(())
    }

    /// Node `s` multicasts `d`: into every other node's link, and back to itself (as a real
    /// multicast loop would; the receiver drops its own datagrams).
    fn multicast(&mut self, nodes: &mut [Node], s: usize, now: Instant, d: Bytes) {
        for (&(from, _), link) in self.links.iter_mut() {
            if from == s {
                link.inject(now, d.clone());
            }
        }
        nodes[s].fed.recv.borrow_mut().handle_datagram(now, d);
    }
}

fn outputs(f: impl FnOnce(&mut dyn FnMut(Output))) -> Vec<Output> {
    let mut v = Vec::new();
    f(&mut |o| v.push(o));
    v
}

fn receive_outputs(fed: &Fed, f: impl FnOnce(&mut ReceivePath)) -> Vec<Output> {
    outputs(|out| {
        fed.receive(|r| {
            f(r);
            dispatch::drain(r, out);
        })
    })
}

/// Run one seeded scenario; Err names what broke.
fn run(seed: u64, sc: &Scenario) -> Result<Outcome, String> {
    let t0 = Instant::now();
    let mut rng = StdRng::seed_from_u64(seed);
    let ids: Vec<NodeId> = (0..sc.nodes).map(|i| NodeId(100 + i as u64)).collect();
    let mut nodes: Vec<Node> = ids
        .iter()
        .map(|&id| {
            let members = Members::new(TAG, sc.flow, true);
            let rx = DataReceiver::new(id, TAG, &KEY, sc.cfg.clone()).expect("cfg");
            let tx = DataSender::new(id, TAG, &KEY, sc.cfg.clone()).expect("cfg");
            Node {
                fed: Fed {
                    recv: RefCell::new(ReceivePath::new(rx, members.ack_policy())),
                    send: RefCell::new(SendSide::new(tx)),
                    members: RefCell::new(members),
                    cells: RefCell::new(hlamesh_transport::core::cells::CellGroups::new(
                        Vec::new(),
                        std::net::Ipv4Addr::UNSPECIFIED,
                        0,
                    )),
                },
                got_rel: BTreeMap::new(),
                got_be: HashMap::new(),
                lost: BTreeMap::new(),
                handed_up: BTreeMap::new(),
                gated_released: 0,
                active: true,
                start: BTreeMap::new(),
                heard: 0,
                waiting: false,
            }
        })
        .collect();
    let late = sc.nodes - 1;
    let join_at = sc.late_join.map(|d| t0 + d);
    let leave_at = sc.leave.map(|d| t0 + d);
    let mut joined = join_at.is_none();
    let mut left = false;
    if !joined {
        nodes[late].active = false;
    }
    let mut links: BTreeMap<(usize, usize), FaultInjector> = BTreeMap::new();
    for s in 0..sc.nodes {
        for r in 0..sc.nodes {
            if s != r {
                let link_seed = seed.wrapping_mul(1000).wrapping_add((s * 31 + r) as u64);
                links.insert((s, r), FaultInjector::new(link_seed, sc.net.clone()));
            }
        }
    }
    let mut sim = Sim {
        sc,
        ids: ids.clone(),
        links,
        control: BinaryHeap::new(),
        control_msgs: HashMap::new(),
        control_last: HashMap::new(),
        counter: 0,
        next_send: (0..sc.nodes)
            .map(|_| t0 + Duration::from_micros(rng.random_range(0..500)))
            .collect(),
        be_sent: HashMap::new(),
        gated_to_inactive: 0,
        out: Outcome::default(),
    };
    // The nodes present from the start were connected before anything was sent: each has
    // told every other that its stream starts at 1.
    for r in 0..sc.nodes {
        for s in 0..sc.nodes {
            if r == s || !nodes[r].active || !nodes[s].active {
                continue;
            }
            let frame = dispatch::announce(&nodes[s].fed);
            let Inbound::Member { frame, .. } = Inbound::from(frame) else {
                return Err("an announcement is a member frame".into());
            };
            let outs = outputs(|out| dispatch::handle_frame(t0, &nodes[r].fed, ids[s], frame, out));
            // Each answers the other's announcement on its own: drop the replies.
            let outs = outs
                .into_iter()
                .filter(|o| !matches!(o, Output::Transmit { .. }))
                .collect();
            sim.execute(t0, &mut nodes, r, outs)?;
        }
    }

    let mut sent: Vec<Vec<Sent>> = (0..sc.nodes).map(|_| Vec::new()).collect();
    let mut gated_sent = 0u64;
    let mut remaining: Vec<usize> = vec![sc.messages_per_node; sc.nodes];
    let limit = t0 + Duration::from_secs(120);
    let mut now = t0;
    let mem_bound = sc.cfg.reorder_capacity_bytes
        + sc.cfg.reassembly_capacity_bytes
        + (sc.nodes - 1) * sc.cfg.max_message;

    if !joined {
        sim.next_send[late] = join_at.unwrap_or(t0);
    }
    loop {
        // 0. Membership changes: a late joiner announces itself, a leaver says so and stops.
        if !joined && join_at.is_some_and(|t| t <= now) {
            joined = true;
            nodes[late].active = true;
            let hello = dispatch::announce(&nodes[late].fed);
            for s in 0..sc.nodes {
                if s != late && nodes[s].active {
                    sim.schedule(now, late, s, &hello);
                }
            }
        }
        if !left && leave_at.is_some_and(|t| t <= now) {
            left = true;
            for m in nodes[0].fed.members.borrow().members() {
                let to = sim.index(m)?;
                sim.schedule(now, 0, to, &Frame::Left { tag: TAG });
            }
            nodes[0].active = false;
            remaining[0] = 0;
        }
        // 1. Application sends due now: a burst of 1..=4 messages, batched as the policy says,
        // once the flow window has room.
        for s in 0..sc.nodes {
            if remaining[s] == 0 || sim.next_send[s] > now || !nodes[s].active {
                continue;
            }
            let room = nodes[s].fed.members.borrow_mut().room(now);
            if let Room::Wait { until } = room {
                if !nodes[s].waiting {
                    // wait_for_room: flush, then ask every member for an acknowledgement.
                    nodes[s].waiting = true;
                    sim.out.flow_waits += 1;
                    let mut wire: Vec<Bytes> = Vec::new();
                    nodes[s]
                        .fed
                        .send
                        .borrow_mut()
                        .flush(now, &mut |d: &[u8]| wire.push(Bytes::copy_from_slice(d)));
                    for d in wire {
                        sim.multicast(&mut nodes, s, now, d);
                    }
                    let asks = nodes[s].fed.members.borrow().ack_requests();
                    sim.execute(now, &mut nodes, s, asks)?;
                }
                sim.next_send[s] = until;
                continue;
            }
            nodes[s].waiting = false;
            let mut wire: Vec<Bytes> = Vec::new();
            let mut emit = |d: &[u8]| wire.push(Bytes::copy_from_slice(d));
            let burst = rng.random_range(1..=4).min(remaining[s]);
            for _ in 0..burst {
                let len = size(&mut rng);
                let payload: Vec<u8> = (0..len).map(|_| rng.random()).collect();
                let reliable = rng.random_range(0..100) < 75;
                let reliability = if reliable {
                    Reliability::Reliable
                } else {
                    Reliability::BestEffort
                };
                // Half the reliable messages are numbered by the caller, as the LRC's core
                // numbers its own: by the stream's rule, which must give the number the
                // stream assigns (a refusal fails the run).
                let number = (reliable && rng.random_bool(0.5)).then(|| {
                    let high_water = nodes[s].fed.send.borrow().sender().high_water().0;
                    Seq(high_water + sc.cfg.reliable_numbers(len))
                });
                let msg = Outgoing {
                    reliability,
                    payload: &payload,
                    hold: rng.random_bool(0.3),
                    heard: nodes[s].heard,
                    timer_by: Some(now),
                    number,
                };
                let mut side = nodes[s].fed.send.borrow_mut();
                let seq = side
                    .send(now, msg, &mut emit)
                    .map_err(|e| format!("send: {e}"))?;
                if number.is_some() && seq != number {
                    return Err(format!("numbered {number:?}, sent as {seq:?}"));
                }
                side.sent(now, Some(now));
                drop(side);
                if let Some(q) = seq {
                    nodes[s].fed.members.borrow_mut().on_sent(q.0, len);
                }
                if reliable {
                    sent[s].push(Sent {
                        seq,
                        frames: sc.cfg.reliable_numbers(len),
                        payload,
                    });
                } else {
                    *sim.be_sent.entry(payload).or_default() += 1;
                    sim.out.best_effort_sent += 1;
                }
            }
            // Half the bursts are flushed by the caller, the others by the sender's timer.
            if rng.random_bool(0.5) {
                nodes[s].fed.send.borrow_mut().flush(now, &mut emit);
            }
            remaining[s] -= burst;
            sim.next_send[s] = now + Duration::from_micros(rng.random_range(50..3000));
            for d in wire {
                sim.multicast(&mut nodes, s, now, d);
            }
            // Now and then a control message gated on the data just sent, to every member
            // (flushed first, as `send_control` does).
            if rng.random_range(0..100) < 20 {
                let mut wire: Vec<Bytes> = Vec::new();
                let hw = {
                    let mut side = nodes[s].fed.send.borrow_mut();
                    side.flush(now, &mut |d: &[u8]| wire.push(Bytes::copy_from_slice(d)));
                    side.high_water()
                };
                for d in wire {
                    sim.multicast(&mut nodes, s, now, d);
                }
                for m in nodes[s].fed.members.borrow().members() {
                    gated_sent += 1;
                    let frame = Frame::App {
                        tag: Some(TAG),
                        hw,
                        payload: gated_payload(hw, gated_sent),
                    };
                    let to = sim.index(m)?;
                    sim.schedule(now, s, to, &frame);
                }
            }
        }

        // 2. Multicast datagrams due.
        let mut arrived: Vec<(usize, Bytes)> = Vec::new();
        for (&(_, r), link) in sim.links.iter_mut() {
            while let Some(d) = link.poll(now) {
                arrived.push((r, d));
            }
        }
        for (r, d) in arrived {
            if !nodes[r].active {
                continue;
            }
            nodes[r].heard += 1;
            let outs = receive_outputs(&nodes[r].fed, |p| p.handle_datagram(now, d));
            sim.execute(now, &mut nodes, r, outs)?;
        }

        // 3. Control frames due, through the member-frame protocol.
        while let Some(Reverse((at, c, from, to))) = sim.control.peek().copied() {
            if at > now {
                break;
            }
            sim.control.pop();
            let Some(bytes) = sim.control_msgs.remove(&c) else {
                continue;
            };
            let frame = Frame::decode(&bytes[4..]).map_err(|e| e.to_string())?;
            if !nodes[to].active {
                // To a node that has left: its QUIC connection is gone.
                if matches!(frame, Frame::App { .. }) {
                    sim.gated_to_inactive += 1;
                }
                continue;
            }
            let Inbound::Member { tag, frame } = Inbound::from(frame) else {
                return Err("only member frames travel here".into());
            };
            if tag != TAG {
                return Err(format!("frame for federation {tag:?}"));
            }
            let outs =
                outputs(|out| dispatch::handle_frame(now, &nodes[to].fed, ids[from], frame, out));
            sim.execute(now, &mut nodes, to, outs)?;
        }

        // 4. Timers.
        for s in 0..sc.nodes {
            if !nodes[s].active {
                continue;
            }
            let fed = &nodes[s].fed;
            if fed.send.borrow().timeout_due(now) {
                let acknowledged = fed.members.borrow().delivered_by_all();
                let mut wire: Vec<Bytes> = Vec::new();
                fed.send
                    .borrow_mut()
                    .handle_timeout(now, acknowledged, &mut |d: &[u8]| {
                        wire.push(Bytes::copy_from_slice(d))
                    });
                for d in wire {
                    sim.multicast(&mut nodes, s, now, d);
                }
            }
            let fed = &nodes[s].fed;
            if fed.recv.borrow().poll_timeout().is_some_and(|t| t <= now) {
                let outs = receive_outputs(fed, |p| p.handle_timeout(now));
                sim.execute(now, &mut nodes, s, outs)?;
            }
        }

        // 5. Bounds.
        for r in 0..sc.nodes {
            if !nodes[r].active {
                continue;
            }
            let fed = &nodes[r].fed;
            let mem = fed.recv.borrow().memory_bytes();
            if mem > mem_bound {
                return Err(format!(
                    "node {r}: receiver memory {mem} over bound {mem_bound}"
                ));
            }
            let (bytes, count) = fed.send.borrow().sender().retransmit_usage();
            if bytes > sc.cfg.retransmit_capacity_bytes || count > sc.cfg.retransmit_capacity_msgs {
                return Err(format!(
                    "node {r}: retransmit buffer over bounds ({bytes}, {count})"
                ));
            }
        }

        // Done when everything is sent and every reliable stream is delivered everywhere.
        let all_sent = remaining.iter().all(|&n| n == 0)
            && nodes
                .iter()
                .all(|n| !n.active || n.fed.send.borrow().pending_bytes() == 0);
        let all_delivered = (0..sc.nodes).all(|r| {
            !nodes[r].active
                || (0..sc.nodes).all(|s| {
                    s == r
                        || (left && s == 0)
                        || nodes[r].fed.recv.borrow().delivered(ids[s])
                            >= nodes[s].fed.send.borrow().high_water()
                })
        });
        let all_sent = all_sent && joined && (left || leave_at.is_none());
        if all_sent
            && all_delivered
            && sim.control.is_empty()
            && sim.links.values().all(|l| l.in_flight() == 0)
        {
            break;
        }
        // 6. Advance the clock to the next thing that happens.
        let mut next: Option<Instant> = None;
        let mut consider = |t: Option<Instant>| {
            if let Some(t) = t {
                next = Some(next.map_or(t, |n: Instant| n.min(t)));
            }
        };
        for s in 0..sc.nodes {
            if remaining[s] > 0 {
                consider(Some(sim.next_send[s]));
            }
            if nodes[s].active {
                consider(nodes[s].fed.send.borrow().poll_timeout(now));
                consider(nodes[s].fed.recv.borrow().poll_timeout());
            }
        }
        if !joined {
            consider(join_at);
        }
        if !left {
            consider(leave_at);
        }
        for link in sim.links.values() {
            consider(link.next_deadline());
        }
        consider(sim.control.peek().map(|Reverse((t, ..))| *t));
        let Some(t) = next else {
            return Err("simulation stalled with nothing scheduled".into());
        };
        if t > limit {
            return Err("not converged after 120 s of virtual time".into());
        }
        now = t.max(now);
    }

    // Final checks: reliable streams exact (minus reported losses), gates drained.
    let mut held_by_departed = 0;
    for r in 0..sc.nodes {
        if !nodes[r].active {
            held_by_departed += nodes[r].fed.recv.borrow().gated() as u64;
            continue;
        }
        for s in 0..sc.nodes {
            if s == r {
                continue;
            }
            let departed = left && s == 0;
            let Some(&start) = nodes[r].start.get(&ids[s]) else {
                if departed {
                    continue; // it left before the two met
                }
                return Err(format!("node {r} never had node {s} as a member"));
            };
            let lost = nodes[r].lost.get(&ids[s]).cloned().unwrap_or_default();
            let mut expected: Vec<(Seq, &[u8])> = sent[s]
                .iter()
                .filter(|m| {
                    let last = m.seq.map_or(0, |q| q.0);
                    let first = last + 1 - m.frames;
                    first >= start && !lost.iter().any(|l| l.first.0 <= last && first <= l.last.0)
                })
                .map(|m| (m.seq.unwrap_or_default(), &m.payload[..]))
                .collect();
            let got: Vec<(Seq, &[u8])> = nodes[r]
                .got_rel
                .get(&ids[s])
                .map(|v| v.iter().map(|(q, p)| (*q, &p[..])).collect())
                .unwrap_or_default();
            if departed && got.len() <= expected.len() {
                // Removed mid-stream: what was delivered is a prefix of what was sent.
                expected.truncate(got.len());
            }
            if got.len() != expected.len() {
                return Err(format!(
                    "node {r} from {s}: delivered {} reliable messages, expected {} (lost ranges \
                     {lost:?})",
                    got.len(),
                    expected.len()
                ));
            }
            for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
                if g.0 != e.0 || g.1 != e.1 {
                    return Err(format!(
                        "node {r} from {s}: message {i} differs (seq {:?} vs {:?}, {} vs {} bytes)",
                        g.0,
                        e.0,
                        g.1.len(),
                        e.1.len()
                    ));
                }
            }
        }
        let gated = nodes[r].fed.recv.borrow().gated();
        if gated != 0 {
            return Err(format!("node {r}: {gated} gated messages never released"));
        }
        let d = nodes[r].fed.recv.borrow().stats().dropped;
        // Datagrams of a node not (yet, or any more) a member: around a join or a departure.
        let not_member = if left || sc.late_join.is_some() {
            0
        } else {
            d.not_member
        };
        if d.bad_auth + d.malformed + not_member + d.wrong_federation + d.bad_version > 0 {
            return Err(format!("node {r}: unexpected drops {d:?}"));
        }
    }
    let released: u64 = nodes.iter().map(|n| n.gated_released).sum();
    let gated_to_inactive = sim.gated_to_inactive;
    if released + gated_to_inactive + held_by_departed != gated_sent {
        return Err(format!(
            "{released} gated messages released, {gated_to_inactive} to departed nodes, \
             {held_by_departed} held by departed nodes, {gated_sent} sent"
        ));
    }
    let mut out = sim.out;
    out.network_drops = sim.links.values().map(|l| l.stats().dropped).sum();
    out.receivers = nodes.iter().map(|n| n.fed.recv.borrow().stats()).collect();
    if sc.late_join.is_some() {
        out.late_joiner_delivered = nodes[late].got_rel.values().map(|v| v.len() as u64).sum();
    }
    Ok(out)
}

fn lossy_net() -> FaultConfig {
    FaultConfig {
        drop_per_mille: 50,
        dup_per_mille: 20,
        reorder_per_mille: 50,
        delay_min: Duration::from_micros(20),
        delay_max: Duration::from_micros(300),
        reorder_delay: Duration::from_millis(1),
    }
}

fn sim_config() -> DataConfig {
    DataConfig {
        max_message: 64 << 10,
        reorder_capacity_bytes: 256 << 10,
        reassembly_capacity_bytes: 512 << 10,
        reassembly_timeout: Duration::from_millis(500),
        ..DataConfig::default()
    }
}

/// A window of about ten average messages, so that senders wait now and then.
fn sim_flow() -> FlowConfig {
    FlowConfig {
        window_bytes: 48 << 10,
        window_messages: 32,
        stall_after: Duration::from_millis(200),
    }
}

fn check_all(sc: &Scenario) -> Vec<Outcome> {
    seeds()
        .into_iter()
        .map(|seed| match run(seed, sc) {
            Ok(o) => o,
            Err(e) => panic!(
                "seed {seed}: {e}\n(replay: {})",
                hlamesh_sim::Seeds::rerun("hlamesh-transport", "data_sim", "", seed)
            ),
        })
        .collect()
}

#[test]
fn lossy_network_delivers_everything_exactly_once_in_order() {
    let sc = Scenario {
        nodes: 4,
        messages_per_node: 120,
        cfg: sim_config(),
        flow: sim_flow(),
        net: lossy_net(),
        control_delay: Duration::from_micros(150),
        expect_fell_behind: false,
        late_join: None,
        leave: None,
    };
    let outs = check_all(&sc);
    for o in &outs {
        // The run must actually have exercised loss and repair, and flow control.
        assert!(o.network_drops > 0 && o.nacks > 0, "{o:?}");
        assert!(o.acks > 0, "{o:?}");
        // 4 nodes, 3 receivers per sender, about 75 % reliable.
        assert!(o.reliable_delivered >= 3 * 4 * 80, "{o:?}");
        assert!(o.best_effort_delivered > 0, "{o:?}");
    }
    let waits: u64 = outs.iter().map(|o| o.flow_waits).sum();
    assert!(waits > 0, "no run waited for room: {outs:?}");
}

#[test]
fn batching_with_gated_control_on_a_clean_network() {
    let sc = Scenario {
        nodes: 3,
        messages_per_node: 150,
        cfg: sim_config(),
        flow: sim_flow(),
        net: FaultConfig {
            delay_min: Duration::from_micros(10),
            delay_max: Duration::from_micros(40),
            ..FaultConfig::default()
        },
        control_delay: Duration::from_micros(5),
        expect_fell_behind: false,
        late_join: None,
        leave: None,
    };
    for o in check_all(&sc) {
        assert_eq!(o.nacks, 0, "{o:?}");
        assert_eq!(o.best_effort_delivered, 2 * o.best_effort_sent, "{o:?}");
    }
}

#[test]
fn small_retransmit_buffer_reports_fell_behind_and_never_diverges() {
    let sc = Scenario {
        nodes: 3,
        messages_per_node: 150,
        cfg: DataConfig {
            retransmit_capacity_msgs: 12,
            ..sim_config()
        },
        flow: sim_flow(),
        net: FaultConfig {
            drop_per_mille: 250,
            ..lossy_net()
        },
        // Repairs come late, so the sender's buffer has moved on.
        control_delay: Duration::from_millis(8),
        expect_fell_behind: true,
        late_join: None,
        leave: None,
    };
    let outs = check_all(&sc);
    let fell: u64 = outs.iter().map(|o| o.fell_behind).sum();
    assert!(fell > 0, "no run exercised the fell-behind path: {outs:?}");
}

#[test]
fn late_joiner_and_leaver_on_a_lossy_network() {
    let sc = Scenario {
        nodes: 4,
        messages_per_node: 100,
        cfg: sim_config(),
        flow: sim_flow(),
        net: lossy_net(),
        control_delay: Duration::from_micros(150),
        expect_fell_behind: false,
        // Bursts of ~2.5 messages come every ~1.5 ms: 100 messages take ~55 ms.
        late_join: Some(Duration::from_millis(20)),
        leave: Some(Duration::from_millis(35)),
    };
    for (seed, o) in seeds().into_iter().zip(check_all(&sc)) {
        assert!(o.nacks > 0, "seed {seed}: {o:?}");
        assert!(o.late_joiner_delivered > 0, "seed {seed}: {o:?}");
    }
}
