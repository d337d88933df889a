//! The queue of received time-stamp-order messages, ordered by (timestamp, arrival number).
//!
//! Ties between equal timestamps are broken by arrival order; the standard promises no order among
//! them, and arrival order keeps delivery deterministic for a given input sequence.

use std::collections::BTreeMap;

use crate::message::{MemberId, Seq};
use crate::time::LogicalTime;

/// A TSO message waiting for delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedTso<T, M> {
    /// Its timestamp.
    pub time: T,
    /// Who sent it.
    pub from: MemberId,
    /// What the LRC will hand to the federate.
    pub payload: M,
}

/// Received TSO messages in timestamp order.
#[derive(Debug)]
pub struct TsoQueue<T, M> {
    items: BTreeMap<(T, u64), (MemberId, Option<Seq>, M)>,
    /// Where each message with a known stream number sits (for retraction).
    by_seq: BTreeMap<(MemberId, Seq), (T, u64)>,
    arrivals: u64,
}

impl<T: LogicalTime, M> Default for TsoQueue<T, M> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: LogicalTime, M> TsoQueue<T, M> {
    /// An empty queue.
    pub fn new() -> Self {
        Self {
            items: BTreeMap::new(),
            by_seq: BTreeMap::new(),
            arrivals: 0,
        }
    }
    /// Adds a message whose stream number is not known (it cannot be retracted).
    pub fn push(&mut self, time: T, from: MemberId, payload: M) {
        self.arrivals += 1;
        self.items
            .insert((time, self.arrivals), (from, None, payload));
    }
    /// Adds message `seq` of `from`'s stream.
    pub fn push_seq(&mut self, time: T, from: MemberId, seq: Seq, payload: M) {
        self.arrivals += 1;
        self.items
            .insert((time, self.arrivals), (from, Some(seq), payload));
        self.by_seq.insert((from, seq), (time, self.arrivals));
    }
    /// Removes message `seq` of `from` if it is queued.
    pub fn remove(&mut self, from: MemberId, seq: Seq) -> Option<QueuedTso<T, M>> {
        let key = self.by_seq.remove(&(from, seq))?;
        self.items.remove(&key).map(|(from, _, payload)| QueuedTso {
            time: key.0,
            from,
            payload,
        })
    }
    /// The earliest queued timestamp.
    pub fn first_time(&self) -> Option<T> {
        self.items.keys().next().map(|(t, _)| *t)
    }
    /// Removes the earliest message if its timestamp satisfies `ready`.
    pub fn pop_if(&mut self, ready: impl FnOnce(T) -> bool) -> Option<QueuedTso<T, M>> {
        let first = self.first_time()?;
        if !ready(first) {
            return None;
        }
        let ((time, _), (from, seq, payload)) = self.items.pop_first()?;
        if let Some(seq) = seq {
            self.by_seq.remove(&(from, seq));
        }
        Some(QueuedTso {
            time,
            from,
            payload,
        })
    }
    /// Number of queued messages.
    /// Every queued message in delivery order (for a save).
    pub fn items(&self) -> impl Iterator<Item = QueuedTso<T, M>> + '_
    where
        M: Clone,
    {
        self.items
            .iter()
            .map(|((time, _), (from, _, payload))| QueuedTso {
                time: *time,
                from: *from,
                payload: payload.clone(),
            })
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }
    /// True when nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::HLAinteger64Time as T;

    #[test]
    fn pops_in_timestamp_then_arrival_order() {
        let mut q = TsoQueue::new();
        q.push(T(5), MemberId(1), "a");
        q.push(T(3), MemberId(2), "b");
        q.push(T(5), MemberId(3), "c");
        assert_eq!(q.first_time(), Some(T(3)));
        assert!(q.pop_if(|t| t < T(3)).is_none());
        let order: Vec<_> = std::iter::from_fn(|| q.pop_if(|_| true).map(|m| m.payload)).collect();
        assert_eq!(order, vec!["b", "a", "c"]);
        assert!(q.is_empty());
    }

    #[test]
    fn removes_by_stream_number_until_popped() {
        let mut q = TsoQueue::new();
        q.push_seq(T(5), MemberId(1), Seq(7), "a");
        q.push_seq(T(3), MemberId(1), Seq(8), "b");
        q.push_seq(T(4), MemberId(2), Seq(7), "c");
        assert_eq!(q.remove(MemberId(1), Seq(8)).map(|m| m.payload), Some("b"));
        assert_eq!(q.remove(MemberId(1), Seq(8)), None, "once");
        assert_eq!(q.first_time(), Some(T(4)));
        assert_eq!(q.pop_if(|_| true).map(|m| m.payload), Some("c"));
        assert_eq!(q.remove(MemberId(2), Seq(7)), None, "delivered already");
        assert_eq!(q.remove(MemberId(1), Seq(7)).map(|m| m.time), Some(T(5)));
        assert!(q.is_empty());
    }
}
