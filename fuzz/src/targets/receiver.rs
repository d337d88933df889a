//! A `DataReceiver` under a script of hostile and honest traffic.
//!
//! Two members send to the receiver: `HONEST` follows the protocol through a real
//! `DataSender` (reliable, best-effort and DDM cell sends, a cell datagram sometimes arriving
//! twice as from two joined groups; some of its datagrams are withheld, reordered or replayed,
//! its NACKs are answered by the sender), and `ROGUE` holds the federation key and sends
//! anything with a valid MAC: any kind (cell best-effort too), frame count, sequence number and
//! body, forged heartbeats, repairs with any `first_available` and any datagrams, next to a
//! real stream of its own (cell sends too). The script also
//! advances time, adds and removes members and moves the rogue's stream
//! (`start_sender_at`). A key holder can impersonate any member; the rogue does not claim to
//! be the honest member, so that the honest stream's fate can be checked.
//!
//! Invariants, after every step: no panic; each member's reliable messages are delivered in
//! increasing sequence order, once; every honest message delivered is the one sent under that
//! number, and every honest best-effort message at most once; the honest member never "falls
//! behind"; nothing is delivered from the receiver itself; the receiver's memory stays within
//! its configured limits. At the end, after the honest member's heartbeats and NACK rounds, its
//! whole reliable stream has been delivered, whatever the rogue did.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hlamesh_transport::NodeId;
use hlamesh_transport::data::auth::DatagramAuth;
use hlamesh_transport::data::wire::{HEADER_LEN, VERSION};
use hlamesh_transport::data::{
    DataConfig, DataReceiver, DataSender, RecvEvent, Reliability, Repair, Seq,
};

use super::fixture::{HONEST, KEY, LOCAL, ROGUE, STRANGER, TAG, config};
use crate::Input;

/// Most script steps run from one input.
const MAX_STEPS: usize = 300;
/// Most datagrams of either sender kept for replays and repairs.
const KEEP: usize = 32;

/// See the module docs.
pub fn run(data: &[u8]) {
    let mut h = Harness::new();
    let mut input = Input::new(data);
    let mut steps = 0;
    while !input.is_empty() && steps < MAX_STEPS {
        h.step(&mut input);
        h.drain();
        h.check();
        steps += 1;
    }
    h.finish();
}

struct Harness {
    now: Instant,
    cfg: DataConfig,
    auth: DatagramAuth,
    rx: DataReceiver,
    honest: DataSender,
    rogue: DataSender,
    /// Members besides the honest one (the rogue and the stranger come and go).
    rogue_member: bool,
    stranger_member: bool,
    /// The honest member's reliable messages by the number of their last frame.
    honest_sent: BTreeMap<u64, Vec<u8>>,
    /// Its best-effort messages not delivered yet.
    honest_best_effort: BTreeSet<Vec<u8>>,
    honest_messages: u32,
    /// Honest datagrams withheld (lost for now).
    held: Vec<Bytes>,
    /// Recent datagrams for replays and repairs.
    recent: Vec<Bytes>,
    /// Last reliable number delivered per member since it was (re)added.
    last_delivered: BTreeMap<NodeId, u64>,
    /// Honest NACKs waiting for the sender's answer.
    nacks_to_answer: Vec<hlamesh_transport::data::Nack>,
}

impl Harness {
    fn new() -> Self {
        let cfg = config();
        let mut rx = DataReceiver::new(LOCAL, TAG, &KEY, cfg.clone()).expect("config");
        rx.add_sender(HONEST);
        rx.add_sender(ROGUE);
        Harness {
            now: Instant::now(),
            auth: DatagramAuth::new(&KEY),
            rx,
            honest: DataSender::new(HONEST, TAG, &KEY, cfg.clone()).expect("config"),
            rogue: DataSender::new(ROGUE, TAG, &KEY, cfg.clone()).expect("config"),
            cfg,
            rogue_member: true,
            stranger_member: false,
            honest_sent: BTreeMap::new(),
            honest_best_effort: BTreeSet::new(),
            honest_messages: 0,
            held: Vec::new(),
            recent: Vec::new(),
            last_delivered: BTreeMap::new(),
            nacks_to_answer: Vec::new(),
        }
    }

    fn keep(&mut self, d: Bytes) {
        if self.recent.len() == KEEP {
            self.recent.remove(0);
        }
        self.recent.push(d);
    }

    fn feed(&mut self, d: Bytes) {
        self.rx.on_datagram(self.now, d);
    }

    fn step(&mut self, input: &mut Input<'_>) {
        match input.u8() % 13 {
            0 => self.honest_send(input),
            1 => self.release_held(input),
            2 => {
                let mut out = Vec::new();
                self.honest.heartbeat(self.now, &mut |d: &[u8]| {
                    out.push(Bytes::copy_from_slice(d))
                });
                out.into_iter().for_each(|d| self.feed(d));
            }
            3 => {
                let d = self.forged(input);
                self.keep(d.clone());
                self.feed(d);
            }
            4 => self.rogue_send(input),
            5 => self.rogue_repair(input),
            6 => {
                // Unsigned bytes, sometimes behind a plausible header.
                let mut d = Vec::new();
                if input.u8() & 1 == 1 {
                    d.extend_from_slice(&header(VERSION, input.u8() % 4, input.u16(), ROGUE, 1));
                }
                d.extend_from_slice(take_body(input));
                self.feed(Bytes::from(d));
            }
            7 => self.advance(Duration::from_millis(u64::from(input.u16() % 1000))),
            8 => {
                let seq = input.interesting_u64();
                self.rx.start_sender_at(ROGUE, Seq(seq));
                if !self.rogue_member {
                    self.rogue_member = true;
                    self.last_delivered.remove(&ROGUE);
                }
            }
            9 => self.membership(input),
            10 => {
                if !self.recent.is_empty() {
                    let i = usize::from(input.u8()) % self.recent.len();
                    let d = self.recent[i].clone();
                    self.feed(d);
                }
            }
            11 => {
                // A forged heartbeat: any reliable and best-effort high-water.
                let mut d =
                    header(VERSION, 3, 0, pick_claim(input), input.interesting_u64()).to_vec();
                d.extend_from_slice(&input.interesting_u64().to_le_bytes());
                let d = self.sign(d);
                self.feed(d);
            }
            _ => {
                // The rogue answers its own NACKs (or not), with its real sender.
                let ranges = (0..input.u8() % 4)
                    .map(|_| (input.interesting_u64(), input.interesting_u64()))
                    .collect();
                let repair =
                    self.rogue
                        .on_nack(self.now, LOCAL, &hlamesh_transport::data::Nack { ranges });
                self.rx.on_repair(self.now, ROGUE, repair);
            }
        }
    }

    fn honest_send(&mut self, input: &mut Input<'_>) {
        let len = match input.u8() % 4 {
            0 => 0,
            1 => usize::from(input.u8()),
            2 => usize::from(input.u16() % 4000),
            _ => 600,
        };
        // Bit 0 clear: reliable; set: best effort, to cell groups if bit 1 is set too (then bit
        // 2 delivers each datagram twice, as from two joined groups).
        let how = input.u8();
        let reliable = how & 1 == 0;
        let cells = !reliable && how & 2 != 0;
        let twice = cells && how & 4 != 0;
        let lose = input.u8();
        self.honest_messages += 1;
        let tag = self.honest_messages.to_le_bytes();
        let payload: Vec<u8> = tag.iter().copied().cycle().take(len.max(4)).collect();
        let mut out = Vec::new();
        let rel = if reliable {
            Reliability::Reliable
        } else {
            Reliability::BestEffort
        };
        let mut emit = |d: &[u8]| out.push(Bytes::copy_from_slice(d));
        if cells {
            self.honest
                .send_cells(self.now, &payload, &mut emit)
                .expect("honest cell send");
        } else {
            self.honest
                .send(self.now, rel, &payload, &mut emit)
                .expect("honest send");
        }
        if reliable {
            self.honest_sent.insert(self.honest.high_water().0, payload);
        } else {
            self.honest_best_effort.insert(payload);
        }
        for (i, d) in out.into_iter().enumerate() {
            if lose & (1 << (i % 8)) != 0 {
                self.held.push(d);
            } else {
                self.keep(d.clone());
                if twice {
                    self.feed(d.clone());
                }
                self.feed(d);
            }
        }
    }

    fn release_held(&mut self, input: &mut Input<'_>) {
        let mut held = std::mem::take(&mut self.held);
        if input.u8() & 1 == 1 {
            held.reverse();
        }
        for d in held {
            self.feed(d);
        }
    }

    fn rogue_send(&mut self, input: &mut Input<'_>) {
        let len = usize::from(input.u16() % 3000);
        let how = input.u8();
        let rel = if how & 1 == 0 {
            Reliability::Reliable
        } else {
            Reliability::BestEffort
        };
        let lose = input.u8();
        let payload = vec![0xee; len];
        let mut out = Vec::new();
        let mut emit = |d: &[u8]| out.push(Bytes::copy_from_slice(d));
        if rel == Reliability::BestEffort && how & 2 != 0 {
            let _ = self.rogue.send_cells(self.now, &payload, &mut emit);
        } else {
            let _ = self.rogue.send(self.now, rel, &payload, &mut emit);
        }
        for (i, d) in out.into_iter().enumerate() {
            self.keep(d.clone());
            if lose & (1 << (i % 8)) == 0 {
                self.feed(d);
            }
        }
    }

    fn rogue_repair(&mut self, input: &mut Input<'_>) {
        let first_available = input.interesting_u64();
        let mut datagrams = Vec::new();
        for _ in 0..input.u8() % 4 {
            let d = match input.u8() % 3 {
                0 if !self.recent.is_empty() => {
                    self.recent[usize::from(input.u8()) % self.recent.len()].to_vec()
                }
                1 => self.forged(input).to_vec(),
                _ => take_body(input).to_vec(),
            };
            datagrams.push(serde_bytes::ByteBuf::from(d));
        }
        let from = if input.u8().is_multiple_of(8) {
            STRANGER
        } else {
            ROGUE
        };
        self.rx.on_repair(
            self.now,
            from,
            Repair {
                first_available,
                datagrams,
            },
        );
    }

    fn membership(&mut self, input: &mut Input<'_>) {
        let node = if input.u8() & 1 == 0 { ROGUE } else { STRANGER };
        let member = if node == ROGUE {
            &mut self.rogue_member
        } else {
            &mut self.stranger_member
        };
        if *member {
            self.rx.remove_sender(node);
        } else {
            self.rx.add_sender(node);
            self.last_delivered.remove(&node);
        }
        *member = !*member;
    }

    /// A datagram with a valid MAC and fields from the script.
    fn forged(&mut self, input: &mut Input<'_>) -> Bytes {
        let version = if input.u8() == 0xff {
            input.u8()
        } else {
            VERSION
        };
        let kind = input.u8() % 5;
        let claim = pick_claim(input);
        let seq = input.interesting_u64();
        let mut body = Vec::new();
        let mut frames: u16 = 0;
        if input.u8() & 1 == 0 {
            body.extend_from_slice(take_body(input));
            frames = input.u16();
        } else {
            for _ in 0..(input.u8() % 4) {
                let len = input_len(input);
                if input.u8() & 1 == 0 {
                    body.extend_from_slice(&[0, 0]);
                    body.extend_from_slice(&len.to_le_bytes());
                } else {
                    body.extend_from_slice(&[1, 0]);
                    body.extend_from_slice(&len.to_le_bytes());
                    for _ in 0..4 {
                        // index, count, offset, total
                        let v = input.interesting_u32();
                        body.extend_from_slice(&v.to_le_bytes());
                    }
                }
                body.extend(std::iter::repeat_n(0xab, usize::from(len)));
                frames = frames.wrapping_add(1);
            }
            if input.u8().is_multiple_of(4) {
                frames = input.u16();
            }
        }
        let mut d = header(version, kind, frames, claim, seq).to_vec();
        d.extend_from_slice(&body);
        self.sign(d)
    }

    fn sign(&self, mut d: Vec<u8>) -> Bytes {
        let mac = self.auth.mac(&d);
        d.extend_from_slice(&mac);
        Bytes::from(d)
    }

    fn advance(&mut self, by: Duration) {
        self.now += by;
        if self.rx.poll_timeout().is_some_and(|t| t <= self.now) {
            self.rx.on_timeout(self.now);
        }
        let mut out = Vec::new();
        if self.honest.poll_timeout().is_some_and(|t| t <= self.now) {
            self.honest.on_timeout(self.now, &mut |d: &[u8]| {
                out.push(Bytes::copy_from_slice(d))
            });
        }
        out.into_iter().for_each(|d| self.feed(d));
    }

    /// Takes every event, checks it, and answers the honest member's NACKs with its sender.
    fn drain(&mut self) {
        for _ in 0..64 {
            while let Some(ev) = self.rx.poll_event() {
                self.event(ev);
            }
            if self.nacks_to_answer.is_empty() {
                return;
            }
            for nack in std::mem::take(&mut self.nacks_to_answer) {
                let repair = self.honest.on_nack(self.now, LOCAL, &nack);
                self.rx.on_repair(self.now, HONEST, repair);
            }
        }
    }

    fn event(&mut self, ev: RecvEvent) {
        match ev {
            RecvEvent::Deliver { from, seq, payload } => {
                assert_ne!(from, LOCAL, "delivered our own datagram");
                assert!(self.rx.is_sender(from), "delivered from a non-member");
                if let Some(Seq(s)) = seq {
                    let last = self.last_delivered.entry(from).or_insert(0);
                    assert!(s > *last, "{from}: {s} delivered after {last}");
                    *last = s;
                    if from == HONEST {
                        assert_eq!(
                            self.honest_sent.get(&s).map(|m| &m[..]),
                            Some(&payload[..]),
                            "honest message {s} corrupted"
                        );
                    }
                } else if from == HONEST {
                    assert!(
                        self.honest_best_effort.remove(&payload[..]),
                        "honest best-effort message delivered twice or corrupted"
                    );
                }
            }
            RecvEvent::SendNack { to, nack } => {
                assert!(!nack.ranges.is_empty());
                assert!(nack.ranges.len() <= self.cfg.max_nack_ranges);
                for &(a, b) in &nack.ranges {
                    assert!(a <= b);
                }
                if to == HONEST {
                    self.nacks_to_answer.push(nack);
                }
            }
            RecvEvent::Skipped { from, through } => {
                assert!(self.rx.is_sender(from), "skipped for a non-member");
                let last = self.last_delivered.entry(from).or_insert(0);
                assert!(
                    through.0 > *last,
                    "{from}: skipped to {through:?} after {last}"
                );
                *last = through.0;
            }
            RecvEvent::FellBehind { from, lost } => {
                assert_ne!(from, HONEST, "the honest member fell behind: {lost:?}");
                assert!(lost.first <= lost.last);
            }
        }
    }

    fn check(&self) {
        let members = 1 + usize::from(self.rogue_member) + usize::from(self.stranger_member);
        let limit = self.cfg.reorder_capacity_bytes
            + self.cfg.reassembly_capacity_bytes
            + members * self.cfg.max_message;
        let used = self.rx.memory_bytes();
        assert!(used <= limit, "receiver holds {used} bytes, limit {limit}");
    }

    /// The honest stream completes: its tail is announced by heartbeats and repaired on NACK.
    fn finish(mut self) {
        let want = self.honest.high_water().0;
        for _ in 0..400 {
            if self.rx.delivered(HONEST).0 >= want {
                break;
            }
            let mut out = Vec::new();
            self.honest.heartbeat(self.now, &mut |d: &[u8]| {
                out.push(Bytes::copy_from_slice(d))
            });
            out.into_iter().for_each(|d| self.feed(d));
            self.advance(self.cfg.nack_retry + Duration::from_millis(1));
            self.drain();
            self.check();
        }
        assert_eq!(
            self.rx.delivered(HONEST).0,
            want,
            "the honest stream did not complete"
        );
        let last = self.honest_sent.keys().next_back().copied().unwrap_or(0);
        assert_eq!(self.last_delivered.get(&HONEST).copied().unwrap_or(0), last);
    }
}

/// Who a forged datagram claims to come from: the rogue, a non-member, the receiver itself, or
/// anyone (never the honest member, see the module docs).
fn pick_claim(input: &mut Input<'_>) -> NodeId {
    match input.u8() % 6 {
        0 => STRANGER,
        1 => LOCAL,
        2 => NodeId(input.u64() | 0x100),
        _ => ROGUE,
    }
}

/// A body of `input_len` bytes from the script.
fn take_body<'a>(input: &mut Input<'a>) -> &'a [u8] {
    let n = usize::from(input_len(input));
    input.take(n)
}

/// A body length: mostly small, sometimes around a datagram's size.
fn input_len(input: &mut Input<'_>) -> u16 {
    match input.u8() % 4 {
        3 => input.u16() % 1500,
        _ => u16::from(input.u8() % 64),
    }
}

fn header(version: u8, kind: u8, frames: u16, sender: NodeId, seq: u64) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[0] = version;
    h[1] = kind;
    h[2..4].copy_from_slice(&frames.to_le_bytes());
    h[8..16].copy_from_slice(&TAG.0.to_le_bytes());
    h[16..24].copy_from_slice(&sender.0.to_le_bytes());
    h[24..32].copy_from_slice(&seq.to_le_bytes());
    h
}
