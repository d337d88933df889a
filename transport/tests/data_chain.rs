//! Reliable data spread over several multicast groups (DDM cells): one sender's stream with
//! chain headers, receivers in different groups, loss, duplication, reordering, repair, and a
//! receiver that joins and leaves groups while the stream runs. Driven step by step with an
//! explicit clock, the groups modelled as the kernel filters them (a receiver gets the copies
//! of the groups it is in when the copy arrives).

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hlamesh_transport::data::chain::GroupId;
use hlamesh_transport::data::{DataConfig, DataReceiver, DataSender, RecvEvent, Reliability};
use hlamesh_transport::{FederationKey, FederationTag, NodeId};
use proptest::prelude::*;

const TAG: FederationTag = FederationTag(9);
const KEY: FederationKey = FederationKey([3; 32]);
const TX: NodeId = NodeId(1);

/// One copy of a datagram on its way, to one group.
#[derive(Clone, Debug)]
struct Copy {
    bytes: Bytes,
    group: GroupId,
}

/// A message the sender sent: its groups (empty: the default group) and when (send index).
#[derive(Clone, Debug)]
struct Sent {
    seq: u64,
    payload: Vec<u8>,
    groups: Vec<GroupId>,
}

struct Receiver {
    rx: DataReceiver,
    groups: BTreeSet<GroupId>,
    /// For each group, since which send index it is joined without a break (`None`: not).
    joined_since: BTreeMap<GroupId, usize>,
    delivered: Vec<(u64, Vec<u8>)>,
    nacks: u64,
    skipped: u64,
}

impl Receiver {
    fn new(id: u64, groups: &[u16]) -> Receiver {
        let mut rx = DataReceiver::new(NodeId(id), TAG, &KEY, DataConfig::default()).expect("cfg");
        rx.add_sender(TX);
        let mut r = Receiver {
            rx,
            groups: BTreeSet::new(),
            joined_since: BTreeMap::new(),
            delivered: Vec::new(),
            nacks: 0,
            skipped: 0,
        };
        r.set(Instant::now(), groups, 0);
        r
    }

    fn set(&mut self, now: Instant, groups: &[u16], sends: usize) {
        let new: BTreeSet<GroupId> = groups.iter().map(|g| GroupId(*g)).collect();
        for g in self.groups.difference(&new) {
            self.joined_since.remove(g);
        }
        for g in new.difference(&self.groups) {
            self.joined_since.insert(*g, sends);
        }
        self.groups = new;
        let v: Vec<GroupId> = self.groups.iter().copied().collect();
        self.rx.set_groups(now, &v);
    }

    fn hears(&self, g: GroupId) -> bool {
        g == GroupId::DEFAULT || self.groups.contains(&g)
    }

    /// Drains events: deliveries recorded, NACKs answered by `tx` at once (QUIC).
    fn pump(&mut self, now: Instant, tx: &mut DataSender) {
        loop {
            let mut repairs = Vec::new();
            while let Some(ev) = self.rx.poll_event() {
                match ev {
                    RecvEvent::Deliver {
                        seq: Some(s),
                        payload,
                        ..
                    } => self.delivered.push((s.0, payload.to_vec())),
                    RecvEvent::Deliver { seq: None, .. } => panic!("no best effort here"),
                    RecvEvent::SendNack { nack, .. } => {
                        self.nacks += 1;
                        repairs.push(tx.on_nack(now, self.rx_id(), &nack));
                    }
                    RecvEvent::FellBehind { lost, .. } => panic!("fell behind: {lost:?}"),
                    RecvEvent::Skipped { .. } => self.skipped += 1,
                }
            }
            if repairs.is_empty() {
                return;
            }
            for r in repairs {
                self.rx.on_repair(now, TX, r);
            }
        }
    }

    fn rx_id(&self) -> NodeId {
        NodeId(0)
    }
}

#[derive(Clone, Debug)]
enum Op {
    /// Send a reliable message to these cell groups (empty: the default group), batched or not,
    /// large (fragmented) or small.
    Send {
        groups: Vec<u16>,
        large: bool,
        batch: bool,
    },
    /// Deliver the copy at this index of the flight (modulo).
    Deliver(usize),
    /// Lose it.
    Drop(usize),
    /// Deliver it and keep a copy in flight (duplication).
    Duplicate(usize),
    /// Time passes: timers of everybody (heartbeats, NACKs and their repairs).
    Tick,
    /// The dynamic receiver's groups are now these.
    Regroup(Vec<u16>),
}

fn op() -> impl Strategy<Value = Op> {
    let groups = prop::collection::vec(1u16..=3, 0..3);
    prop_oneof![
        4 => (groups.clone(), prop::bool::weighted(0.1), any::<bool>())
            .prop_map(|(groups, large, batch)| Op::Send { groups, large, batch }),
        5 => any::<usize>().prop_map(Op::Deliver),
        1 => any::<usize>().prop_map(Op::Drop),
        1 => any::<usize>().prop_map(Op::Duplicate),
        1 => Just(Op::Tick),
        1 => groups.prop_map(Op::Regroup),
    ]
}

struct World {
    t0: Instant,
    ms: u64,
    tx: DataSender,
    rxs: Vec<Receiver>,
    flight: Vec<Copy>,
    sent: Vec<Sent>,
}

impl World {
    fn new() -> World {
        World {
            t0: Instant::now(),
            ms: 0,
            tx: DataSender::new(TX, TAG, &KEY, DataConfig::default()).expect("cfg"),
            // Default group only; one cell; two cells; and the one that changes (last).
            rxs: vec![
                Receiver::new(2, &[]),
                Receiver::new(3, &[1]),
                Receiver::new(4, &[1, 2]),
                Receiver::new(5, &[]),
            ],
            flight: Vec::new(),
            sent: Vec::new(),
        }
    }

    fn now(&self) -> Instant {
        self.t0 + Duration::from_millis(self.ms)
    }

    fn emit<'a>(flight: &'a mut Vec<Copy>, groups: &[GroupId]) -> impl FnMut(&[u8]) + 'a {
        let groups: Vec<GroupId> = if groups.is_empty() {
            vec![GroupId::DEFAULT]
        } else {
            groups.to_vec()
        };
        move |d: &[u8]| {
            for g in &groups {
                flight.push(Copy {
                    bytes: Bytes::copy_from_slice(d),
                    group: *g,
                });
            }
        }
    }

    fn send(&mut self, groups: &[u16], large: bool, batch: bool) {
        let now = self.now();
        let n = self.sent.len();
        let len = if large { 3000 } else { 20 + n % 50 };
        let payload: Vec<u8> = (0..len).map(|k| (k as u8) ^ (n as u8)).collect();
        let mut payload = payload;
        payload[..8].copy_from_slice(&(n as u64).to_le_bytes());
        let mut groups: Vec<GroupId> = groups.iter().map(|g| GroupId(*g)).collect();
        groups.sort();
        groups.dedup();
        let seq = if groups.is_empty() {
            let mut out = Self::emit(&mut self.flight, &[]);
            let r = if batch {
                self.tx.push(now, Reliability::Reliable, &payload, &mut out)
            } else {
                self.tx.send(now, Reliability::Reliable, &payload, &mut out)
            };
            r.expect("send").expect("reliable").0
        } else {
            self.tx.flush(now, &mut Self::emit(&mut self.flight, &[]));
            self.tx
                .send_reliable_cells(
                    now,
                    &groups,
                    &payload,
                    &mut Self::emit(&mut self.flight, &groups),
                )
                .expect("send")
                .0
        };
        self.sent.push(Sent {
            seq,
            payload,
            groups,
        });
    }

    fn deliver(&mut self, i: usize, keep: bool) {
        if self.flight.is_empty() {
            return;
        }
        let i = i % self.flight.len();
        let c = if keep {
            self.flight[i].clone()
        } else {
            self.flight.remove(i)
        };
        let now = self.now();
        for r in &mut self.rxs {
            if r.hears(c.group) {
                r.rx.on_datagram(now, c.bytes.clone());
                r.pump(now, &mut self.tx);
            }
        }
    }

    fn tick(&mut self) {
        self.ms += 30;
        let now = self.now();
        self.tx
            .on_timeout(now, &mut Self::emit(&mut self.flight, &[]));
        for r in &mut self.rxs {
            r.rx.on_timeout(now);
            r.pump(now, &mut self.tx);
        }
    }

    /// Everything in flight arrives, then heartbeats and repairs until nothing is missing.
    fn settle(&mut self) {
        let now = self.now();
        self.tx.flush(now, &mut Self::emit(&mut self.flight, &[]));
        while !self.flight.is_empty() {
            self.deliver(0, false);
        }
        for _ in 0..20 {
            self.ms += 200;
            let now = self.now();
            self.tx
                .heartbeat(now, &mut Self::emit(&mut self.flight, &[]));
            while !self.flight.is_empty() {
                self.deliver(0, false);
            }
            self.tick();
        }
    }

    fn check(&self) {
        let hw = self.tx.high_water().0;
        let by_seq: BTreeMap<u64, &Sent> = self.sent.iter().map(|s| (s.seq, s)).collect();
        for (k, r) in self.rxs.iter().enumerate() {
            assert_eq!(
                r.rx.delivered(TX).0,
                hw,
                "receiver {k} reaches the high-water"
            );
            let mut last = 0;
            for (seq, payload) in &r.delivered {
                assert!(*seq > last, "receiver {k}: {seq} after {last}");
                last = *seq;
                let s = by_seq.get(seq).expect("a message that was sent");
                assert_eq!(&s.payload, payload, "receiver {k}: message {seq} intact");
            }
            let got: BTreeSet<u64> = r.delivered.iter().map(|(s, _)| *s).collect();
            for (n, s) in self.sent.iter().enumerate() {
                let due = s.groups.is_empty()
                    || s.groups
                        .iter()
                        .any(|g| r.joined_since.get(g).is_some_and(|since| *since <= n));
                if due {
                    assert!(
                        got.contains(&s.seq),
                        "receiver {k} (groups {:?}) lacks message {n} (seq {}, groups {:?})",
                        r.groups,
                        s.seq,
                        s.groups
                    );
                }
            }
        }
    }
}

fn run(ops: Vec<Op>) -> World {
    let mut w = World::new();
    for op in ops {
        match op {
            Op::Send {
                groups,
                large,
                batch,
            } => w.send(&groups, large, batch),
            Op::Deliver(i) => w.deliver(i, false),
            Op::Drop(i) => {
                if !w.flight.is_empty() {
                    let i = i % w.flight.len();
                    w.flight.remove(i);
                }
            }
            Op::Duplicate(i) => w.deliver(i, true),
            Op::Tick => w.tick(),
            Op::Regroup(groups) => {
                let now = w.now();
                let n = w.sent.len();
                if let Some(r) = w.rxs.last_mut() {
                    r.set(now, &groups, n);
                }
            }
        }
    }
    w.settle();
    w
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Every receiver gets every message of the default group and of the groups it was in
    /// from before the message was sent to the end, exactly once, in position order, intact,
    /// whatever was lost, duplicated or reordered on the way; and its stream reaches the
    /// sender's high-water (what it was not due is passed over, not waited for).
    #[test]
    fn each_receiver_gets_what_its_groups_carry_once_and_in_order(
        ops in prop::collection::vec(op(), 1..120)
    ) {
        run(ops).check();
    }
}

#[test]
fn a_receiver_outside_the_cells_asks_for_nothing_and_passes_over_them() {
    let mut ops = Vec::new();
    for i in 0..30 {
        ops.push(Op::Send {
            groups: vec![1 + (i % 3) as u16],
            large: i == 7,
            batch: false,
        });
        ops.push(Op::Deliver(0));
    }
    ops.push(Op::Send {
        groups: vec![],
        large: false,
        batch: false,
    });
    let w = run(ops);
    w.check();
    let outside = &w.rxs[0];
    assert_eq!(outside.nacks, 0, "nothing lost: nothing asked for");
    assert_eq!(
        outside.delivered.len(),
        1,
        "only the default group's message"
    );
    assert_eq!(
        outside.rx.stats().skipped_positions,
        29 + DataConfig::default().reliable_numbers(3000),
        "the cells' positions were passed over (the large message takes one per fragment)"
    );
    // The receiver of cell 1 got the messages of cell 1 and the default group's only.
    let one = &w.rxs[1];
    assert_eq!(one.nacks, 0);
    assert_eq!(one.delivered.len(), 10 + 1);
}

#[test]
fn a_lost_burst_in_a_cell_is_repaired_in_one_round_trip() {
    let mut w = World::new();
    for _ in 0..6 {
        w.send(&[1], false, false);
    }
    // The copies to cell 1 of messages 2..=5 are lost; 1 and 6 arrive.
    let keep: Vec<Copy> = w
        .flight
        .iter()
        .enumerate()
        .filter(|(i, _)| *i == 0 || *i == 5)
        .map(|(_, c)| c.clone())
        .collect();
    w.flight = keep;
    w.deliver(0, false);
    w.deliver(0, false);
    let r = &w.rxs[1];
    assert_eq!(r.delivered.len(), 1, "6 waits for 2..=5");
    w.tick();
    let r = &w.rxs[1];
    assert_eq!(r.nacks, 1, "one NACK for the whole burst");
    assert_eq!(
        r.delivered.iter().map(|(s, _)| *s).collect::<Vec<_>>(),
        vec![1, 2, 3, 4, 5, 6]
    );
    assert_eq!(
        w.rxs[0].nacks, 0,
        "the receiver outside cell 1 asks for nothing"
    );
}

/// A receiver whose stream turns chained while frames wait ahead of a gap: the chains start
/// from what the plain stream told (every position so far the default group's, the waiting
/// frames arrived), or the gap is never asked for (found by the property test above).
#[test]
fn a_stream_that_turns_chained_with_frames_waiting_ahead_completes() {
    let s = |g: Vec<u16>, large: bool, batch: bool| Op::Send {
        groups: g,
        large,
        batch,
    };
    let ops = vec![
        s(vec![], false, false),
        s(vec![], false, true),
        s(vec![], false, false),
        s(vec![], false, false),
        s(vec![], false, false),
        Op::Deliver(0),
        s(vec![], false, false),
        s(vec![1], false, false),
        s(vec![], false, false),
        s(vec![], false, false),
        s(vec![1], false, false),
        s(vec![], true, false),
        Op::Drop(4110361471291350539),
        Op::Drop(6321996933837711864),
        s(vec![], false, false),
        Op::Duplicate(7259162164618680),
    ];
    run(ops).check();
}

/// The longest chain header (every group of the federation named) still fits: a reliable
/// datagram, chained or not, never exceeds `max_datagram` (beyond the path MTU it would be
/// IP-fragmented), and each message takes exactly the positions
/// `DataConfig::reliable_numbers` gives it, wherever it goes. Without the chain reserve the
/// default-group message after every cell was used came out 180 bytes too long.
#[test]
fn a_chained_datagram_stays_within_max_datagram_with_every_group_named() {
    use hlamesh_transport::data::wire::chain_header_max_len;
    const CELLS: u16 = 16;
    let cfg = DataConfig {
        chain_reserve: chain_header_max_len(usize::from(CELLS) + 1),
        ..DataConfig::default()
    };
    assert_eq!(cfg.chain_reserve, 180);
    let t0 = Instant::now();
    let mut tx = DataSender::new(TX, TAG, &KEY, cfg.clone()).expect("cfg");
    let mut rx = DataReceiver::new(NodeId(2), TAG, &KEY, cfg.clone()).expect("cfg");
    rx.add_sender(TX);
    let all: Vec<GroupId> = (1..=CELLS).map(GroupId).collect();
    rx.set_groups(t0, &all);
    let mut datagrams: Vec<Vec<u8>> = Vec::new();
    let mut sent: Vec<Vec<u8>> = Vec::new();
    let mut send = |tx: &mut DataSender, groups: &[GroupId], len: usize| {
        let payload: Vec<u8> = (0..len).map(|k| (k % 251) as u8).collect();
        let before = tx.high_water().0;
        let mut out = |d: &[u8]| datagrams.push(d.to_vec());
        let seq = if groups.is_empty() {
            tx.send(t0, Reliability::Reliable, &payload, &mut out)
                .expect("send")
                .expect("reliable")
        } else {
            tx.send_reliable_cells(t0, groups, &payload, &mut out)
                .expect("send")
        };
        assert_eq!(
            seq.0 - before,
            cfg.reliable_numbers(len),
            "a {len}-byte message to {groups:?} takes the positions the rule gives it"
        );
        sent.push(payload);
    };
    // Every cell once: the next default-group message names all sixteen in its header.
    for g in &all {
        send(&mut tx, &[*g], 10);
    }
    let largest_whole = cfg.reliable_max_whole();
    send(&mut tx, &[], largest_whole);
    // Again, with the largest whole message and a fragmented one, to cells and to the default
    // group, the headers naming every group.
    for g in &all {
        send(&mut tx, &[*g], 10);
    }
    send(&mut tx, &all[..8], largest_whole);
    send(&mut tx, &all[8..], 3 * cfg.reliable_fragment() + 1);
    send(&mut tx, &[], 3 * cfg.reliable_fragment() + 1);
    send(&mut tx, &[], largest_whole + 1);
    let longest = datagrams.iter().map(Vec::len).max().unwrap_or(0);
    assert!(
        longest <= cfg.max_datagram,
        "longest datagram {longest} > max_datagram {}",
        cfg.max_datagram
    );
    // The datagrams are whole and valid: a receiver in every group delivers every message.
    for d in datagrams {
        rx.on_datagram(t0, Bytes::from(d));
    }
    let mut delivered = Vec::new();
    while let Some(ev) = rx.poll_event() {
        if let RecvEvent::Deliver { payload, .. } = ev {
            delivered.push(payload.to_vec());
        }
    }
    assert_eq!(delivered, sent);
}
