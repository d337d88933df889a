//! Closing a federation's channel without losing the end of this node's stream: before the
//! `Left` frame (or the goodbye) goes out, wait until every member acknowledged the reliable
//! stream up to its last position ([`crate::core::schedule::DrainWait`] decides; this only
//! flushes, asks, sleeps and counts).
//!
//! Why: a member reads the `Left` frame on its QUIC connection and the data on its multicast
//! socket, two threads. Reading `Left` first, it dropped this node's stream, with whatever of
//! it was still in its socket or lost, and released the control messages that waited for that
//! data. A coordinator that resigned right after an update lost the update that way at the
//! other members (the C++ ownership test caught it, about once in thirty runs under load).

use std::sync::atomic::Ordering;
use std::time::Instant;

use super::{FedChannel, Shared, lock, on_receive_thread};
use crate::core::schedule::{DrainStep, DrainWait, Drained};

impl Shared {
    /// Flushes `fed`'s pending batch and waits (bounded) until every member acknowledged this
    /// node's reliable stream up to its last position. Returns at once on a receive thread:
    /// acknowledgements arrive through those, so they never wait.
    pub(super) fn drain_stream(&self, fed: &FedChannel) -> Drained {
        {
            let mut side = lock(&fed.sender);
            let now = Instant::now();
            self.emit_data(fed, |mut out| side.flush(now, &mut out));
        }
        if on_receive_thread() {
            return Drained::Untracked;
        }
        let high = lock(&fed.sender).high_water();
        let mut plan = DrainWait::new(Instant::now(), high);
        let mut w = lock(&fed.members);
        let result = loop {
            match plan.step(Instant::now(), w.delivered_by_all()) {
                DrainStep::Done(result) => break result,
                DrainStep::AskForAcks => {
                    drop(w);
                    self.ask_for_acks(fed);
                    w = lock(&fed.members);
                }
                DrainStep::Sleep(dur) => {
                    w = fed
                        .flow
                        .room
                        .wait_timeout(w, dur)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
            }
        };
        drop(w);
        if result == Drained::TimedOut {
            self.stats.drain_timeouts.fetch_add(1, Ordering::Relaxed);
            tracing::debug!(
                federation = %fed.name,
                high,
                "closing before every member acknowledged this node's stream"
            );
        }
        result
    }

    /// Asks every member of `fed` to acknowledge this node's stream now (a waiting sender's and a
    /// closing channel's request). Call it without `fed.members` held.
    pub(super) fn ask_for_acks(&self, fed: &FedChannel) {
        let asks = lock(&fed.members).ack_requests();
        // Frames only: acknowledgement requests hand nothing up.
        let mut events = Vec::new();
        for o in asks {
            self.execute(Some(fed), o, &mut events);
        }
        for ev in events {
            self.emit(ev);
        }
    }
}
