//! The two time schemes and their helpers.
//!
//! * **Periodic**: frame `k` covers logical time `[k·q, (k+1)·q)` with the quantum `q = 1/hz`,
//!   computed from `k` (never summed, so no drift); frames are paced against the wall clock by
//!   `hlamesh_timesync::pacer::FramePacer` ("not earlier, not later"; a scale factor runs faster
//!   or slower than real time; overruns are counted) or run as fast as possible.
//! * **Event-driven**: the application keeps an [`EventQueue`]; at the end of a frame the engine
//!   asks for the next event (Next Message Request to it, or to the run's end) and the next frame
//!   runs at the granted time — earlier when a time-stamped message arrives first. Optionally
//!   paced so logical time does not run ahead of the (scaled) wall clock.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub use hlamesh_timesync::pacer::Pace;

/// How an engine advances logical time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TimeScheme {
    /// Fixed quantum from a frame rate.
    Periodic {
        /// Frames per logical second.
        hz: u32,
        /// Real time (times a scale) or as fast as possible.
        pace: Pace,
    },
    /// Next event from the application's event queue.
    EventDriven {
        /// Real time (logical time never ahead of the scaled wall clock) or as fast as possible.
        pace: Pace,
    },
}

impl TimeScheme {
    /// The logical time at which periodic frame `k` starts (`None` for event-driven).
    pub fn frame_time(&self, k: u64) -> Option<f64> {
        match self {
            TimeScheme::Periodic { hz, .. } => Some(k as f64 / f64::from((*hz).max(1))),
            TimeScheme::EventDriven { .. } => None,
        }
    }

    /// The pace.
    pub fn pace(&self) -> Pace {
        match self {
            TimeScheme::Periodic { pace, .. } | TimeScheme::EventDriven { pace } => *pace,
        }
    }
}

/// A time-ordered queue of application events (ties keep insertion order).
#[derive(Debug)]
pub struct EventQueue<T> {
    heap: BinaryHeap<Reverse<(OrdF64, u64)>>,
    items: std::collections::HashMap<u64, T>,
    seq: u64,
}

impl<T> Default for EventQueue<T> {
    fn default() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            items: std::collections::HashMap::new(),
            seq: 0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct OrdF64(f64);
impl Eq for OrdF64 {}
impl PartialOrd for OrdF64 {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for OrdF64 {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

impl<T> EventQueue<T> {
    /// Empty.
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedules `item` at logical time `at`.
    pub fn schedule(&mut self, at: f64, item: T) {
        self.seq += 1;
        self.heap.push(Reverse((OrdF64(at), self.seq)));
        self.items.insert(self.seq, item);
    }

    /// Time of the earliest event.
    pub fn next_time(&self) -> Option<f64> {
        self.heap.peek().map(|Reverse((t, _))| t.0)
    }

    /// Removes and returns every event due at or before `now`, in time order.
    pub fn due(&mut self, now: f64) -> Vec<(f64, T)> {
        let mut out = Vec::new();
        while let Some(Reverse((t, s))) = self.heap.peek().copied() {
            if t.0 > now {
                break;
            }
            self.heap.pop();
            if let Some(item) = self.items.remove(&s) {
                out.push((t.0, item));
            }
        }
        out
    }

    /// Events waiting.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when none wait.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periodic_frame_times_do_not_drift() {
        let s = TimeScheme::Periodic {
            hz: 60,
            pace: Pace::AsFastAsPossible,
        };
        assert_eq!(s.frame_time(0), Some(0.0));
        assert_eq!(s.frame_time(216_000), Some(3600.0));
    }

    #[test]
    fn events_come_out_in_time_order_and_ties_in_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(2.0, "b");
        q.schedule(1.0, "a");
        q.schedule(2.0, "c");
        assert_eq!(q.next_time(), Some(1.0));
        assert_eq!(q.due(0.5), vec![]);
        assert_eq!(q.due(2.0), vec![(1.0, "a"), (2.0, "b"), (2.0, "c")]);
        assert!(q.is_empty());
    }
}
