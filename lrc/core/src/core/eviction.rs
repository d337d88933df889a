//! Losing the connection to a federation (`connectionLost`, IEEE 1516-2010 4.4).
//!
//! With no server, "the RTI dropped this federate" means: the other members removed this LRC
//! from their view (they stopped hearing it and resigned its federates with their automatic
//! resign action). While cut off, this LRC sees the mirror image — every other member lost —
//! and carries on alone. Nothing can tell the two sides apart until they hear each other again,
//! so the decision is taken then:
//!
//! - an LRC that hears from a node it removed (a channel peer coming back, or any control
//!   message) answers [`ControlMsg::Evicted`] with its view, once per reappearance;
//! - an LRC told it was evicted by a node *still in its own view* was dropped one-sidedly and
//!   loses its connection;
//! - when both removed each other (a healed partition), the side with fewer LRCs in its view
//!   loses; on a tie, the side without the smallest node id loses. Both sides compute the same
//!   answer from the two views, so exactly one side survives.
//!
//! The losing LRC tells each local federate `connection_lost(reason)` and drops its state for
//! the federation; further calls answer `FederateNotExecutionMember`. Its node id stays in the
//! winners' removed sets, so joining again needs a new LRC (a new process, or `Lrc::start`).

use super::wire::ControlMsg;
use super::{Action, FederationCore, Node};
use crate::error::RtiError;

impl FederationCore {
    /// Tells `n`, a node this LRC removed, that it is not a member (once per reappearance).
    pub(crate) fn tell_evicted(&mut self, n: Node) {
        if !self.admitted || !self.evicted_told.insert(n) {
            return;
        }
        let nodes = self.view.nodes.clone();
        self.send_control(n, false, ControlMsg::Evicted { nodes });
    }

    /// `from` says this LRC is not in its view `theirs`.
    pub(crate) fn on_evicted(&mut self, from: Node, theirs: Vec<Node>) {
        if !self.admitted || theirs.contains(&self.me) {
            return;
        }
        let mine = &self.view.nodes;
        let lose = if mine.contains(&from) {
            true
        } else if self.removed.contains(&from) {
            let min = |v: &[Node]| v.iter().copied().min().unwrap_or(Node::MAX);
            theirs.len() > mine.len() || (theirs.len() == mine.len() && min(&theirs) < min(mine))
        } else {
            false
        };
        if !lose {
            return;
        }
        let reason = format!(
            "federation {}: the other members ({} LRCs, including {from:x}) removed this LRC \
             from the federation while they could not hear it; its federates were resigned \
             with their automatic resign action",
            self.name,
            theirs.len()
        );
        tracing::error!(federation = %self.name, "{reason}");
        self.connection_lost = Some(reason.clone());
        // Blocking calls in progress (a resign, a join of a second federate) end now.
        for (_, p) in std::mem::take(&mut self.pending) {
            if let Some(ticket) = p.ticket {
                self.actions.push_back(Action::Complete {
                    ticket,
                    result: Err(RtiError::FederateNotExecutionMember(reason.clone())),
                });
            }
        }
        self.actions.push_back(Action::ConnectionLost { reason });
    }
}
