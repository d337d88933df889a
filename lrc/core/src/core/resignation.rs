//! A remote federate's resignation takes effect after its last data.
//!
//! The coordinator decides a resignation and the decision reaches each LRC over QUIC, while
//! the resigning federate's last updates travel on its LRC's multicast stream: the decision can
//! overtake them. Applied at once, a `DeleteObjects` resignation would remove the instances
//! first and drop their last updates (and a late registration would be refused). So the
//! resignation request carries its LRC's data high-water, and here the decision's effects on
//! objects (deletion or orphaning, interest) wait until that LRC's stream was applied up to it —
//! or the LRC is gone, when its missing data can never come. Membership changes at once.

use super::wire::ResignAction;
use super::{FederateHandle, FederationCore, Node};

/// A resignation whose effects wait for its LRC's data.
#[derive(Debug, Clone)]
pub(crate) struct Gated {
    node: Node,
    hw: u64,
    federate: FederateHandle,
    action: ResignAction,
}

impl FederationCore {
    /// Applies federate `h`'s resignation now, or once `node`'s stream reached `hw`.
    pub(crate) fn resign_after_data(
        &mut self,
        h: FederateHandle,
        node: Node,
        hw: u64,
        action: ResignAction,
    ) {
        // Known at once: a late registration of its still arriving decides by it.
        self.resigned_with.insert(h, action);
        // A joiner replaying the log takes the resigner's instances from snapshots, not from
        // its stream: nothing to wait for.
        if self.phase.is_replaying()
            || node == self.me
            || self.applied_upto(node) >= hw
            || self.removed.contains(&node)
        {
            self.apply_resign(h, action);
        } else {
            self.resign_gate.push(Gated {
                node,
                hw,
                federate: h,
                action,
            });
        }
    }

    /// Whether federate `h`'s resignation waits for its LRC's data here: it left the membership
    /// but still owns what it owned (its resign action decides what becomes of that).
    pub(crate) fn resign_gated(&self, h: FederateHandle) -> bool {
        self.resign_gate.iter().any(|g| g.federate == h)
    }

    /// How far `node`'s reliable stream was applied here (a snapshot counts for what it covers).
    pub(crate) fn applied_upto(&self, node: Node) -> u64 {
        let seen = self.time.last_seq.get(&node).copied().unwrap_or(0);
        let covered = self.streams.get(&node).map_or(0, |s| s.skip_upto);
        seen.max(covered)
    }

    /// Applies the gated resignations whose data arrived, and with `gone`, every one from that
    /// LRC (its data will not come).
    pub(crate) fn release_resignations(&mut self, gone: Option<Node>) {
        if self.resign_gate.is_empty() {
            return;
        }
        let gate = std::mem::take(&mut self.resign_gate);
        let (ready, wait): (Vec<Gated>, Vec<Gated>) = gate.into_iter().partition(|g| {
            gone == Some(g.node)
                || self.removed.contains(&g.node)
                || self.gone.contains(&g.node)
                || self.applied_upto(g.node) >= g.hw
        });
        self.resign_gate = wait;
        if ready.is_empty() {
            return;
        }
        for g in ready {
            self.apply_resign(g.federate, g.action);
        }
        self.advise();
    }
}
