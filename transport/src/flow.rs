//! Flow control of a node's reliable data stream in one federation: how far the sender may run
//! ahead of its slowest receiver.
//!
//! Without it a sender faster than a receiver overflows the receiver's socket buffer. Reliable
//! delivery still holds (NACK and repair), but the repairs cost the slow side more work per
//! message than the data did, so it falls further behind. Here every receiver acknowledges the
//! in-order position it has delivered, every quarter window of a sender's stream
//! ([`AckPolicy`], [`AckState`]), on the control plane, and the sender's application threads
//! wait while more than `window_bytes` (or `window_messages`) of its reliable stream is not yet
//! acknowledged by some receiver ([`FlowWindow`]). Windows differ between machines (each is a
//! quarter of that machine's socket buffer), so a sender that starts to wait asks its receivers
//! for an acknowledgement at once, and for later ones at its own pace (`Frame::AckRequest`).
//!
//! Bytes here are what the receiving kernel charges its socket buffer, not payload: Linux
//! charges each datagram its buffer's true size, at least 832 bytes and about twice the payload
//! (measured on loopback: 1 B → 832, 500 B → 1,280, 1,400 B → 2,304, 4,000 B → 8,448). A window
//! counted in payload let a run of small messages fill a socket four times the window and
//! overflow it; [`buffer_cost`] charges each message as if it travelled alone, which is never
//! less than the loopback kernel's charge. A NIC driver may charge a small datagram a whole
//! receive buffer (2–4 KiB), so the default window stays a quarter of the socket buffer.
//!
//! A receiver that stops acknowledging must not stop the federation: one that made no progress
//! for `stall_after` while the sender waited is left out of the window (it is *stalled*) until
//! its acknowledgements come back within the window. It still gets every message by NACK and
//! repair, or falls behind the retransmit buffer and resynchronises, as before. Only application
//! threads wait; the transport's own threads and the layer above's internal messages never do,
//! so flow control cannot deadlock two nodes that wait for each other.
//!
//! Sans-I/O: the caller passes the time and does the waiting (see
//! `FederationChannel::wait_for_room`).

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use crate::id::NodeId;

/// Most positions remembered for acknowledgement accounting; older ones are forgotten (a
/// receiver acknowledging one of those counts as behind by everything remembered).
const MAX_TRACKED: usize = 1 << 18;

/// Receive-buffer bytes a reliable message of `len` payload bytes may cost its receiver: as if
/// it travelled alone in its datagram(s), about twice the bytes plus a fixed share, never less
/// than the kernel's charge (module docs). Batching only makes the real cost smaller.
pub const fn buffer_cost(len: usize) -> u64 {
    2 * (len as u64 + 64) + 768
}

/// Flow-control settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowConfig {
    /// Unacknowledged reliable bytes (as [`buffer_cost`] counts them) allowed ahead of the
    /// slowest receiver.
    pub window_bytes: u64,
    /// Unacknowledged reliable messages allowed ahead of the slowest receiver.
    pub window_messages: u64,
    /// A receiver whose acknowledgement did not move for this long while the sender waited is
    /// left out of the window until it catches up.
    pub stall_after: Duration,
}

impl FlowConfig {
    /// How often a receiver acknowledges: a quarter of the window, so that a sender that waits
    /// always has acknowledgements coming.
    pub fn ack_policy(&self) -> AckPolicy {
        AckPolicy {
            every_bytes: (self.window_bytes / 4).max(1),
            every_messages: (self.window_messages / 4).max(1),
        }
    }
}

/// When a receiver acknowledges a sender's stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AckPolicy {
    /// After this many bytes (as [`buffer_cost`] counts them) delivered since the last
    /// acknowledgement.
    pub every_bytes: u64,
    /// Or after this many messages.
    pub every_messages: u64,
}

/// A receiver's acknowledgement state for one sender.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckState {
    bytes: u64,
    messages: u64,
    /// The sender's own policy, once it asked (its window may be narrower than ours).
    asked: Option<AckPolicy>,
}

impl AckState {
    /// Counts one delivered message of `len` payload bytes; true when an acknowledgement is due
    /// under the narrower of `own` and what the sender asked for (the counts restart).
    pub fn delivered(&mut self, len: usize, own: AckPolicy) -> bool {
        self.bytes += buffer_cost(len);
        self.messages += 1;
        let p = self.asked.unwrap_or(own);
        let due = self.bytes >= p.every_bytes.min(own.every_bytes)
            || self.messages >= p.every_messages.min(own.every_messages);
        if due {
            self.bytes = 0;
            self.messages = 0;
        }
        due
    }

    /// An acknowledgement went for another reason (positions passed over): the counts restart.
    pub fn restart(&mut self) {
        self.bytes = 0;
        self.messages = 0;
    }

    /// The sender asked for an acknowledgement now, and for later ones at `policy`.
    pub fn asked(&mut self, policy: AckPolicy) {
        self.bytes = 0;
        self.messages = 0;
        self.asked = Some(policy);
    }
}

#[derive(Clone, Copy, Debug)]
struct Receiver {
    /// Highest position acknowledged (every message up to it delivered).
    acked: u64,
    /// When `acked` last moved (or the receiver was added).
    moved_at: Instant,
    /// Left out of the window (see the module docs).
    stalled: bool,
}

/// What the sender may do now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Room {
    /// Send.
    Open,
    /// Wait for an acknowledgement, at most until `until` (when the slowest receiver would
    /// count as stalled).
    Wait {
        /// Deadline of this wait.
        until: Instant,
    },
}

/// What `FederationChannel::wait_for_room` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowWait {
    /// There was room (or flow control does not apply to this caller).
    Open,
    /// Waited this long for acknowledgements.
    Waited(Duration),
    /// Gave up after its bound; the caller sends anyway (reliability does not depend on flow
    /// control).
    TimedOut,
}

/// The sender's side: its reliable positions and sizes, and each receiver's acknowledgement.
#[derive(Debug)]
pub struct FlowWindow {
    cfg: FlowConfig,
    /// (position, cost sent before it) of every position some live receiver has not
    /// acknowledged, oldest first.
    sent: VecDeque<(u64, u64)>,
    /// Highest position no longer remembered.
    forgotten: u64,
    /// Cost ([`buffer_cost`]) of every reliable message sent so far.
    total: u64,
    /// Highest position sent.
    high: u64,
    receivers: HashMap<NodeId, Receiver>,
    stalls: u64,
}

impl FlowWindow {
    /// An empty window.
    pub fn new(cfg: FlowConfig) -> FlowWindow {
        FlowWindow {
            cfg,
            sent: VecDeque::new(),
            forgotten: 0,
            total: 0,
            high: 0,
            receivers: HashMap::new(),
            stalls: 0,
        }
    }

    /// Times a receiver was left out of the window.
    pub fn stalls(&self) -> u64 {
        self.stalls
    }

    /// A reliable message at `position` with `bytes` of payload was sent.
    pub fn on_sent(&mut self, position: u64, bytes: usize) {
        let bytes = buffer_cost(bytes);
        self.total += bytes;
        self.high = self.high.max(position);
        if !self.receivers.values().any(|r| !r.stalled) {
            // Nobody to wait for (alone, or every receiver left out): nothing to remember.
            self.sent.clear();
            self.forgotten = self.high;
            return;
        }
        self.sent.push_back((position, self.total - bytes));
        if self.sent.len() > MAX_TRACKED
            && let Some((p, _)) = self.sent.pop_front()
        {
            self.forgotten = p;
        }
    }

    /// A receiver joined; it has everything before our next position.
    pub fn add_receiver(&mut self, node: NodeId, now: Instant) {
        self.receivers.entry(node).or_insert(Receiver {
            acked: self.high,
            moved_at: now,
            stalled: false,
        });
    }

    /// A receiver left (or is gone).
    pub fn remove_receiver(&mut self, node: NodeId) {
        self.receivers.remove(&node);
        self.trim();
    }

    /// `node` acknowledged every position up to `position`; true when that may have opened
    /// room (wake the waiters).
    pub fn on_ack(&mut self, node: NodeId, position: u64, now: Instant) -> bool {
        let Some(r) = self.receivers.get_mut(&node) else {
            return false;
        };
        if position <= r.acked {
            return false;
        }
        r.acked = position.min(self.high);
        r.moved_at = now;
        let acked = r.acked;
        if r.stalled
            && self.ahead_of(acked).is_some_and(|a| !self.exceeds(a))
            && let Some(r) = self.receivers.get_mut(&node)
        {
            r.stalled = false;
        }
        self.trim();
        true
    }

    /// The position every receiver, stalled ones included, has acknowledged delivering (the
    /// highest position sent when there is no receiver): no receiver will NACK up to it again,
    /// so the sender's retransmit buffer may release it
    /// ([`crate::data::DataSender::release_acknowledged`]).
    pub fn delivered_by_all(&self) -> u64 {
        self.receivers
            .values()
            .map(|r| r.acked)
            .min()
            .unwrap_or(self.high)
    }

    /// Whether the sender may send now; marks a receiver stalled when its time is up.
    pub fn room(&mut self, now: Instant) -> Room {
        loop {
            let Some((node, r)) = self
                .receivers
                .iter()
                .filter(|(_, r)| !r.stalled)
                .min_by_key(|(_, r)| r.acked)
                .map(|(n, r)| (*n, *r))
            else {
                return Room::Open;
            };
            let behind = self.ahead_of(r.acked);
            if behind.is_some_and(|a| !self.exceeds(a)) {
                return Room::Open;
            }
            let until = r.moved_at + self.cfg.stall_after;
            if now < until {
                return Room::Wait { until };
            }
            if let Some(r) = self.receivers.get_mut(&node) {
                r.stalled = true;
            }
            self.stalls += 1;
            tracing::debug!(receiver = %node, "flow control: receiver stalled, left out of the window");
        }
    }

    /// (bytes, messages) sent after `acked`; `None` when `acked` is older than what is
    /// remembered (behind by more than can be counted).
    fn ahead_of(&self, acked: u64) -> Option<(u64, u64)> {
        if acked >= self.high {
            return Some((0, 0));
        }
        if acked < self.forgotten {
            return None;
        }
        let i = self.sent.partition_point(|(p, _)| *p <= acked);
        let before = self.sent.get(i).map_or(self.total, |(_, b)| *b);
        Some((self.total - before, (self.sent.len() - i) as u64))
    }

    fn exceeds(&self, (bytes, messages): (u64, u64)) -> bool {
        bytes > self.cfg.window_bytes || messages > self.cfg.window_messages
    }

    /// Forgets positions every live receiver acknowledged.
    fn trim(&mut self) {
        let floor = self
            .receivers
            .values()
            .filter(|r| !r.stalled)
            .map(|r| r.acked)
            .min()
            .unwrap_or(self.high);
        while let Some((p, _)) = self.sent.front().copied().filter(|(p, _)| *p <= floor) {
            self.sent.pop_front();
            self.forgotten = p;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What one 100-byte message costs: the windows below are counted in these.
    const C: u64 = buffer_cost(100);

    fn cfg() -> FlowConfig {
        FlowConfig {
            window_bytes: 10 * C,
            window_messages: 100,
            stall_after: Duration::from_millis(100),
        }
    }

    #[test]
    fn open_without_receivers_and_within_the_window() {
        let t = Instant::now();
        let mut w = FlowWindow::new(cfg());
        for p in 1..=50 {
            w.on_sent(p, 100);
        }
        assert_eq!(w.room(t), Room::Open, "nobody to wait for");
        let mut w = FlowWindow::new(cfg());
        w.add_receiver(NodeId(1), t);
        for p in 1..=10 {
            w.on_sent(p, 100);
        }
        assert_eq!(w.room(t), Room::Open, "exactly the window is allowed");
        w.on_sent(11, 1);
        assert_eq!(
            w.room(t),
            Room::Wait {
                until: t + Duration::from_millis(100)
            }
        );
    }

    #[test]
    fn acknowledgement_opens_room_and_the_slowest_receiver_rules() {
        let t = Instant::now();
        let mut w = FlowWindow::new(cfg());
        w.add_receiver(NodeId(1), t);
        w.add_receiver(NodeId(2), t);
        for p in 1..=20 {
            w.on_sent(p, 100);
        }
        assert!(matches!(w.room(t), Room::Wait { .. }));
        assert!(w.on_ack(NodeId(1), 20, t));
        assert!(
            matches!(w.room(t), Room::Wait { .. }),
            "receiver 2 still has 20 messages outstanding"
        );
        assert!(w.on_ack(NodeId(2), 10, t));
        assert_eq!(
            w.room(t),
            Room::Open,
            "a window (10 messages) outstanding at receiver 2"
        );
        assert!(
            !w.on_ack(NodeId(2), 9, t),
            "an old acknowledgement changes nothing"
        );
    }

    #[test]
    fn message_count_is_bounded_too() {
        let t = Instant::now();
        let mut w = FlowWindow::new(FlowConfig {
            window_bytes: u64::MAX,
            ..cfg()
        });
        w.add_receiver(NodeId(1), t);
        for p in 1..=100 {
            w.on_sent(p, 1);
        }
        assert_eq!(w.room(t), Room::Open);
        w.on_sent(101, 1);
        assert!(matches!(w.room(t), Room::Wait { .. }));
    }

    #[test]
    fn a_silent_receiver_stalls_and_rejoins_when_it_catches_up() {
        let t = Instant::now();
        let mut w = FlowWindow::new(cfg());
        w.add_receiver(NodeId(1), t);
        w.add_receiver(NodeId(2), t);
        for p in 1..=30 {
            w.on_sent(p, 100);
        }
        w.on_ack(NodeId(1), 30, t + Duration::from_millis(10));
        let later = t + Duration::from_millis(101);
        assert_eq!(w.room(later), Room::Open, "receiver 2 is left out");
        assert_eq!(w.stalls(), 1);
        // Receiver 1 now rules: the sender may run a window ahead of it.
        for p in 31..=41 {
            w.on_sent(p, 100);
        }
        assert!(matches!(w.room(later), Room::Wait { .. }));
        w.on_ack(NodeId(1), 41, later);
        assert_eq!(w.room(later), Room::Open);
        // Receiver 2 catches up: it counts again.
        w.on_ack(NodeId(2), 41, later);
        for p in 42..=52 {
            w.on_sent(p, 100);
        }
        w.on_ack(NodeId(1), 52, later);
        assert!(
            matches!(w.room(later), Room::Wait { .. }),
            "receiver 2 is 11 messages behind"
        );
        w.on_ack(NodeId(2), 50, later);
        assert_eq!(w.room(later), Room::Open);
    }

    #[test]
    fn removing_the_slow_receiver_opens_room() {
        let t = Instant::now();
        let mut w = FlowWindow::new(cfg());
        w.add_receiver(NodeId(1), t);
        for p in 1..=20 {
            w.on_sent(p, 100);
        }
        assert!(matches!(w.room(t), Room::Wait { .. }));
        w.remove_receiver(NodeId(1));
        assert_eq!(w.room(t), Room::Open);
        assert!(!w.on_ack(NodeId(1), 20, t), "unknown receiver");
    }

    #[test]
    fn nothing_is_remembered_without_live_receivers() {
        let t = Instant::now();
        let mut w = FlowWindow::new(cfg());
        for p in 1..=1000 {
            w.on_sent(p, 100);
        }
        assert!(w.sent.is_empty(), "a lone sender keeps no positions");
        w.add_receiver(NodeId(1), t);
        w.on_sent(1001, 100);
        assert_eq!(w.sent.len(), 1);
        assert_eq!(w.ahead_of(1000), Some((C, 1)));
    }

    #[test]
    fn a_late_receiver_starts_at_the_current_position() {
        let t = Instant::now();
        let mut w = FlowWindow::new(cfg());
        for p in 1..=50 {
            w.on_sent(p, 100);
        }
        w.add_receiver(NodeId(7), t);
        assert_eq!(w.room(t), Room::Open);
        for p in 51..=60 {
            w.on_sent(p, 100);
        }
        assert_eq!(w.room(t), Room::Open);
        w.on_sent(61, 100);
        assert!(matches!(w.room(t), Room::Wait { .. }));
    }

    #[test]
    fn delivered_by_all_waits_for_the_slowest_receiver_even_when_stalled() {
        let t = Instant::now();
        let mut w = FlowWindow::new(cfg());
        for p in 1..=5 {
            w.on_sent(p, 100);
        }
        assert_eq!(w.delivered_by_all(), 5, "alone: everything sent");
        w.add_receiver(NodeId(1), t);
        w.add_receiver(NodeId(2), t);
        for p in 6..=30 {
            w.on_sent(p, 100);
        }
        assert_eq!(
            w.delivered_by_all(),
            5,
            "both start at the position they joined"
        );
        w.on_ack(NodeId(1), 30, t);
        w.on_ack(NodeId(2), 12, t);
        assert_eq!(w.delivered_by_all(), 12);
        // Receiver 2 stalls (left out of the window) but may still NACK: it still counts here.
        assert_eq!(w.room(t + Duration::from_millis(101)), Room::Open);
        assert_eq!(w.stalls(), 1);
        assert_eq!(w.delivered_by_all(), 12);
        w.remove_receiver(NodeId(2));
        assert_eq!(w.delivered_by_all(), 30);
    }

    #[test]
    fn the_cost_never_undercuts_what_linux_charges_a_datagram() {
        // Measured on loopback (module docs): payload bytes → socket-buffer bytes charged.
        for (len, charged) in [
            (1, 832),
            (100, 832),
            (500, 1280),
            (1000, 2304),
            (1400, 2304),
            (2000, 4352),
            (4000, 8448),
            (8000, 16640),
        ] {
            assert!(
                buffer_cost(len) >= charged,
                "{len} B costs {}",
                buffer_cost(len)
            );
        }
    }

    #[test]
    fn ack_policy_fires_every_quarter_window() {
        let p = cfg().ack_policy();
        let mut s = AckState::default();
        let fired: Vec<bool> = (0..6).map(|_| s.delivered(100, p)).collect();
        assert_eq!(
            fired,
            [false, false, true, false, false, true],
            "every quarter window (2.5 messages' cost)"
        );
        let by_count = FlowConfig {
            window_bytes: u64::MAX,
            ..cfg()
        }
        .ack_policy();
        let mut s = AckState::default();
        let n = (0..100).filter(|_| s.delivered(0, by_count)).count();
        assert_eq!(n, 4, "every 25 messages");
        // A sender with a narrower window asks for its own pace; a wider one changes nothing.
        let mut s = AckState::default();
        s.asked(AckPolicy {
            every_bytes: 100,
            every_messages: 1000,
        });
        assert!(
            s.delivered(100, p),
            "at the sender's pace, narrower than one message"
        );
        s.asked(AckPolicy {
            every_bytes: 100 * C,
            every_messages: 1000,
        });
        let fired: Vec<bool> = (0..3).map(|_| s.delivered(100, p)).collect();
        assert_eq!(
            fired,
            [false, false, true],
            "our own quarter window still rules"
        );
    }
}
