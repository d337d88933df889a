//! Cross-channel causality: a control message from sender S that carries S's data high-water
//! `hw` is held until S's reliable stream has been delivered up to `hw`, so that e.g. a time
//! promise never overtakes the updates sent before it.
//!
//! Per sender, messages are released in arrival order (a message waits behind an earlier held
//! one even if its own `hw` is already satisfied). A removed sender's held messages are released
//! immediately, in order: no more data can arrive from it, and the messages (a resign, say)
//! still need to be acted on.

use std::collections::{BTreeMap, VecDeque};

use crate::data::Seq;
use crate::id::NodeId;

#[derive(Debug)]
struct PerSender<T> {
    delivered: Seq,
    held: VecDeque<(Seq, T)>,
}

impl<T> Default for PerSender<T> {
    fn default() -> Self {
        PerSender {
            delivered: Seq(0),
            held: VecDeque::new(),
        }
    }
}

/// Holds control messages until the data they depend on has been delivered.
#[derive(Debug)]
pub struct CausalGate<T> {
    senders: BTreeMap<NodeId, PerSender<T>>,
    ready: VecDeque<(NodeId, T)>,
    held: usize,
}

impl<T> Default for CausalGate<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> CausalGate<T> {
    /// An empty gate; every sender starts at delivered = 0.
    pub fn new() -> Self {
        CausalGate {
            senders: BTreeMap::new(),
            ready: VecDeque::new(),
            held: 0,
        }
    }

    /// A control message `msg` from `from`, sent when `from`'s data high-water was `hw`.
    /// It becomes available from [`CausalGate::pop`] once `from` is delivered up to `hw`.
    pub fn push(&mut self, from: NodeId, hw: Seq, msg: T) {
        let s = self.senders.entry(from).or_default();
        if s.held.is_empty() && hw <= s.delivered {
            self.ready.push_back((from, msg));
        } else {
            s.held.push_back((hw, msg));
            self.held += 1;
        }
    }

    /// `from`'s reliable stream has been delivered up to `delivered` (pass
    /// `DataReceiver::delivered(from)`); releases what that unblocks. Never moves backwards.
    pub fn advance(&mut self, from: NodeId, delivered: Seq) {
        let s = self.senders.entry(from).or_default();
        if delivered > s.delivered {
            s.delivered = delivered;
        }
        while s.held.front().is_some_and(|(hw, _)| *hw <= s.delivered) {
            if let Some((_, msg)) = s.held.pop_front() {
                self.ready.push_back((from, msg));
                self.held -= 1;
            }
        }
    }

    /// `from` left or was lost: release everything held for it, in arrival order, and forget it.
    /// (Control messages that arrive from it later should be dropped by the caller, not pushed:
    /// a forgotten sender counts as delivered up to 0.)
    pub fn remove_sender(&mut self, from: NodeId) {
        if let Some(s) = self.senders.remove(&from) {
            self.held -= s.held.len();
            self.ready
                .extend(s.held.into_iter().map(|(_, msg)| (from, msg)));
        }
    }

    /// Advances every sender that has messages held to `delivered(sender)` (see
    /// [`CausalGate::advance`]).
    pub fn advance_all(&mut self, delivered: impl Fn(NodeId) -> Seq) {
        for (from, s) in self.senders.iter_mut() {
            if s.held.is_empty() {
                continue;
            }
            s.delivered = s.delivered.max(delivered(*from));
            while s.held.front().is_some_and(|(hw, _)| *hw <= s.delivered) {
                if let Some((_, msg)) = s.held.pop_front() {
                    self.ready.push_back((*from, msg));
                    self.held -= 1;
                }
            }
        }
    }

    /// The next released message, in release order.
    pub fn pop(&mut self) -> Option<(NodeId, T)> {
        self.ready.pop_front()
    }

    /// Messages still held (not yet released).
    pub fn held(&self) -> usize {
        self.held
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(g: &mut CausalGate<&'static str>) -> Vec<&'static str> {
        std::iter::from_fn(|| g.pop()).map(|(_, m)| m).collect()
    }

    #[test]
    fn holds_until_delivered_then_releases_in_arrival_order() {
        let a = NodeId(1);
        let mut g = CausalGate::new();
        g.push(a, Seq(0), "nothing needed");
        g.push(a, Seq(5), "needs 5");
        g.push(a, Seq(3), "needs 3 but queued behind 5");
        assert_eq!(drain(&mut g), vec!["nothing needed"]);
        g.advance(a, Seq(4));
        assert_eq!(drain(&mut g), Vec::<&str>::new());
        assert_eq!(g.held(), 2);
        g.advance(a, Seq(5));
        assert_eq!(
            drain(&mut g),
            vec!["needs 5", "needs 3 but queued behind 5"]
        );
        assert_eq!(g.held(), 0);
        // Delivered never moves backwards.
        g.advance(a, Seq(1));
        g.push(a, Seq(5), "still satisfied");
        assert_eq!(drain(&mut g), vec!["still satisfied"]);
    }

    #[test]
    fn senders_are_independent() {
        let (a, b) = (NodeId(1), NodeId(2));
        let mut g = CausalGate::new();
        g.push(a, Seq(10), "a10");
        g.push(b, Seq(1), "b1");
        g.advance(b, Seq(1));
        assert_eq!(drain(&mut g), vec!["b1"]);
        g.advance(a, Seq(10));
        assert_eq!(drain(&mut g), vec!["a10"]);
    }

    #[test]
    fn removed_sender_releases_everything_in_order() {
        let a = NodeId(1);
        let mut g = CausalGate::new();
        g.push(a, Seq(7), "update-dependent");
        g.push(a, Seq(9), "resign");
        g.remove_sender(a);
        assert_eq!(drain(&mut g), vec!["update-dependent", "resign"]);
        assert_eq!(g.held(), 0);
    }
}
