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
        if !self.phase.is_admitted() || !self.evicted_told.insert(n) {
            return;
        }
        let nodes = self.view.nodes.clone();
        self.send_control(n, false, ControlMsg::Evicted { nodes });
    }

    /// `from` says this LRC is not in its view `theirs`.
    pub(crate) fn on_evicted(&mut self, from: Node, theirs: Vec<Node>) {
        if !self.phase.is_admitted() || theirs.contains(&self.me) {
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
        if !self.phase.evict(reason.clone()) {
            return;
        }
        tracing::error!(federation = %self.name, "{reason}");
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

#[cfg(test)]
mod tests {
    use super::super::Event;
    use super::super::membership::Phase;
    use super::super::wire::Decision;
    use super::*;

    #[test]
    fn a_member_dropped_one_sidedly_is_evicted_and_then_deaf() {
        let mut c = FederationCore::create("F", 1, 0, Vec::new()).expect("create");
        c.apply_decision(Decision::NodeAdded(2));
        while c.poll_action().is_some() {}
        // 2 is in our view but says we are not in its: dropped one-sidedly.
        let evicted = ControlMsg::Evicted { nodes: vec![2] };
        c.handle(
            1,
            Event::Control {
                from: 2,
                msg: evicted.clone(),
            },
        );
        assert!(matches!(c.phase(), Phase::Evicted { .. }));
        assert!(
            c.is_admitted(),
            "its state stays a member's until the shell drops it"
        );
        let lost: Vec<Action> = std::iter::from_fn(|| c.poll_action())
            .filter(|a| matches!(a, Action::ConnectionLost { .. }))
            .collect();
        assert_eq!(lost.len(), 1);
        c.handle(
            2,
            Event::Control {
                from: 2,
                msg: evicted,
            },
        );
        c.handle(3, Event::Tick);
        assert!(c.poll_action().is_none(), "an evicted core ignores events");
    }

    /// Unified simulator, seed 58: a joiner's connection to a member dropped before it was
    /// admitted, so that member barred it; the coordinator, which never lost it, admitted it,
    /// and the member still ignored it (its snapshot request too), so the newcomer never got
    /// that member's state. The log's admission ends the bar.
    #[test]
    fn a_joiner_lost_before_its_admission_is_served_once_the_log_admits_it() {
        let mut c = FederationCore::create("F", 1, 0, Vec::new()).expect("create");
        c.handle(1, Event::PeerGone(5));
        c.apply_decision(Decision::NodeAdded(5));
        while c.poll_action().is_some() {}
        c.handle(
            2,
            Event::ChannelPeer {
                node: 5,
                first_seq: 1,
            },
        );
        let told_evicted = std::iter::from_fn(|| c.poll_action()).any(|a| {
            matches!(&a, Action::SendControl { to: 5, bytes, .. }
            if matches!(
                super::super::wire::Envelope::decode(bytes).map(|e| e.msg),
                Ok(ControlMsg::Evicted { .. })
            ))
        });
        assert!(!told_evicted, "a member the log admitted is not barred");
    }

    /// Unified simulator, seed 58: a joiner that lost its connection to a member and got it
    /// back kept the member as gone, so its Welcome made it suspect a live member.
    #[test]
    fn a_joiner_forgets_the_loss_of_a_peer_that_came_back() {
        let mut c = FederationCore::joining("F", 1, 0, vec![2, 3]);
        c.handle(1, Event::PeerGone(3));
        assert_eq!(c.phase().candidates(), &[2]);
        c.handle(
            2,
            Event::ChannelPeer {
                node: 3,
                first_seq: 1,
            },
        );
        c.add_candidates([3]);
        assert_eq!(c.phase().candidates(), &[2, 3], "a candidate again");
    }

    #[test]
    fn a_joiner_is_never_evicted() {
        let mut c = FederationCore::joining("F", 1, 0, vec![2]);
        let evicted = ControlMsg::Evicted { nodes: vec![2] };
        c.handle(
            1,
            Event::Control {
                from: 2,
                msg: evicted,
            },
        );
        assert_eq!(c.phase().candidates(), &[2]);
        assert!(c.phase().connection_lost().is_none());
    }
}
