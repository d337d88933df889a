//! When a federation's `send` packs messages into a pending datagram instead of sending each at
//! once (automatic batching) — the decision alone, with the time and what the shell observed
//! given as inputs.
//!
//! A message goes out at once unless the caller is clearly streaming: twice in a row, the send
//! began less than [`BATCH_GAP`] after the previous one ended *and* no datagram from another node
//! arrived in this federation since the previous one began — and the data thread is awake often
//! enough to flush a batch within [`MAX_BATCH_DELAY`]. The second condition keeps
//! request/response exchanges unbatched: on loopback the answer can arrive before the request's
//! `sendto` has even returned, so timing alone cannot tell them from a stream. (The price: a node
//! that hears a lot of traffic in the federation rarely starts batching its own.) Once a batch is
//! pending, further messages join it until it is full, the caller flushes, a control message is
//! tagged, or the data thread's timer flushes it.
//!
//! A held message (`send_held`) may wait in the pending datagram for the next message; the next
//! message sent normally then takes it along at once instead of starting a batch.
//!
//! The shell keeps one [`BatchPolicy`] next to the federation's sender, under the sender's lock,
//! which serialises the decisions.

use std::time::{Duration, Instant};

/// Largest gap between consecutive sends that counts as streaming.
pub const BATCH_GAP: Duration = Duration::from_micros(5);
/// Rapid sends needed in a row before batching starts.
pub const BATCH_STREAK: u64 = 2;
/// While a federation sent within this window, the data thread wakes at least every
/// [`MAX_BATCH_DELAY`], so that batching may start (and its flush timer is honoured).
pub const BATCH_ACTIVE: Duration = Duration::from_millis(20);
/// Longest a pushed message waits for the data thread's flush.
pub const MAX_BATCH_DELAY: Duration = Duration::from_millis(1);
/// The data thread only changes its receive timeout when it moves by more than this; a pending
/// datagram must not wait for a data thread asleep longer than the delay and this slack.
pub const DATA_TIMEOUT_SLACK: Duration = Duration::from_micros(250);

/// One send's inputs besides the time.
#[derive(Clone, Copy, Debug)]
pub struct SendContext {
    /// The message may wait for the next one (`send_held`).
    pub hold: bool,
    /// Bytes already waiting in the sender's pending datagram.
    pub pending_bytes: usize,
    /// Datagrams from other nodes received in this federation so far (a running count).
    pub heard: u64,
    /// When the data thread wakes next at the latest (`None`: not known to wake).
    pub data_wake_by: Option<Instant>,
}

/// The batching decisions of one federation's sender (see the module docs).
#[derive(Clone, Debug)]
pub struct BatchPolicy {
    enabled: bool,
    /// End of the previous send.
    last_end: Option<Instant>,
    /// Consecutive sends that began within [`BATCH_GAP`] of the previous one's end.
    streak: u64,
    /// `heard` when the previous send began.
    heard_at_send: u64,
    /// The pending datagram was begun by a held message.
    held: bool,
}

impl Default for BatchPolicy {
    fn default() -> Self {
        BatchPolicy {
            enabled: true,
            last_end: None,
            streak: 0,
            heard_at_send: 0,
            held: false,
        }
    }
}

impl BatchPolicy {
    /// Whether batching is on.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Turns batching on or off (the caller flushes the pending datagram when off).
    pub fn set_enabled(&mut self, on: bool) {
        self.enabled = on;
    }

    /// Whether the message sent at `now` joins the pending datagram (`true`: push) or leaves at
    /// once, with whatever is pending (`false`: send).
    pub fn decide(&mut self, now: Instant, cx: SendContext) -> bool {
        let flush_by = now + MAX_BATCH_DELAY + DATA_TIMEOUT_SLACK;
        let data_thread_in_time = cx.data_wake_by.is_some_and(|w| w <= flush_by);
        if cx.hold {
            let held = self.enabled && data_thread_in_time;
            if held && cx.pending_bytes == 0 {
                self.held = true;
            }
            return held;
        }
        if std::mem::take(&mut self.held) {
            return false;
        }
        if !self.enabled {
            return false;
        }
        let quiet = std::mem::replace(&mut self.heard_at_send, cx.heard) == cx.heard;
        if cx.pending_bytes > 0 {
            return true;
        }
        let rapid = quiet
            && self
                .last_end
                .is_some_and(|last| now.saturating_duration_since(last) < BATCH_GAP);
        self.streak = if rapid { self.streak + 1 } else { 0 };
        self.streak >= BATCH_STREAK && data_thread_in_time
    }

    /// The send decided at `begun` ended at `end` (`None`: nothing left, so it ended as begun).
    pub fn sent(&mut self, begun: Instant, end: Option<Instant>) {
        self.last_end = Some(end.unwrap_or(begun));
    }

    /// Whether this sender sent within [`BATCH_ACTIVE`] of `now`: the data thread then wakes at
    /// least every [`MAX_BATCH_DELAY`] (so that batching may start, and its flush is on time).
    pub fn active(&self, now: Instant) -> bool {
        self.last_end
            .is_some_and(|last| now.saturating_duration_since(last) < BATCH_ACTIVE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cx(heard: u64, pending_bytes: usize, wake: Option<Instant>) -> SendContext {
        SendContext {
            hold: false,
            pending_bytes,
            heard,
            data_wake_by: wake,
        }
    }

    fn us(t0: Instant, us: u64) -> Instant {
        t0 + Duration::from_micros(us)
    }

    #[test]
    fn batching_starts_only_after_a_streak_of_rapid_sends() {
        let t0 = Instant::now();
        let wake = Some(t0);
        let mut b = BatchPolicy::default();
        // First send: nothing before it.
        assert!(!b.decide(t0, cx(0, 0, wake)));
        b.sent(t0, Some(us(t0, 1)));
        // Rapid, but the streak is 1.
        assert!(!b.decide(us(t0, 2), cx(0, 0, wake)));
        b.sent(us(t0, 2), Some(us(t0, 3)));
        // Second rapid send in a row: batch.
        assert!(b.decide(us(t0, 4), cx(0, 0, wake)));
        b.sent(us(t0, 4), None);
        // While something is pending, the next joins it.
        assert!(b.decide(us(t0, 100), cx(0, 10, wake)));
        // After a pause, the streak starts again.
        b.sent(us(t0, 100), None);
        assert!(!b.decide(us(t0, 1_000), cx(0, 0, wake)));
    }

    #[test]
    fn an_answer_from_another_node_keeps_an_exchange_unbatched() {
        let t0 = Instant::now();
        let wake = Some(t0);
        let mut b = BatchPolicy::default();
        for i in 0..10u64 {
            // Each request is answered before the next one: heard moves every time.
            let heard = i;
            assert!(!b.decide(us(t0, i * 3), cx(heard, 0, wake)), "send {i}");
            b.sent(us(t0, i * 3), Some(us(t0, i * 3 + 1)));
        }
    }

    #[test]
    fn no_batch_when_the_data_thread_would_not_flush_it_in_time() {
        let t0 = Instant::now();
        let late = Some(t0 + Duration::from_millis(10));
        let mut b = BatchPolicy::default();
        for i in 0..5u64 {
            assert!(!b.decide(us(t0, i * 2), cx(0, 0, late)));
            b.sent(us(t0, i * 2), Some(us(t0, i * 2 + 1)));
        }
        let mut hold = cx(0, 0, late);
        hold.hold = true;
        assert!(
            !b.decide(us(t0, 20), hold),
            "a held message would wait too long"
        );
    }

    #[test]
    fn a_held_message_is_taken_along_by_the_next_send() {
        let t0 = Instant::now();
        let wake = Some(t0);
        let mut b = BatchPolicy::default();
        let mut hold = cx(0, 0, wake);
        hold.hold = true;
        assert!(b.decide(t0, hold));
        b.sent(t0, None);
        // The next normal message leaves at once, with the held one.
        assert!(!b.decide(us(t0, 1), cx(0, 10, wake)));
    }

    #[test]
    fn turned_off_it_never_batches_and_activity_expires() {
        let t0 = Instant::now();
        let mut b = BatchPolicy::default();
        b.set_enabled(false);
        assert!(!b.enabled());
        assert!(!b.decide(t0, cx(0, 10, Some(t0))));
        let mut hold = cx(0, 0, Some(t0));
        hold.hold = true;
        assert!(!b.decide(t0, hold));
        assert!(!b.active(t0));
        b.sent(t0, None);
        assert!(b.active(t0 + Duration::from_millis(19)));
        assert!(!b.active(t0 + BATCH_ACTIVE));
    }
}
