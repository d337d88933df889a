//! Losing the connection to a federation (`connectionLost`, IEEE 1516-2010 4.4).
//!
//! With no server, "the RTI dropped this federate" means: the other members removed this LRC
//! from their view (they stopped hearing it and resigned its federates with their automatic
//! resign action). While cut off, this LRC sees the mirror image — every other member lost —
//! and carries on alone. Nothing can tell the two sides apart until they hear each other again,
//! so the decision is taken then:
//!
//! - an LRC that hears from a node it removed (a channel peer coming back, or any control
//!   message) answers [`ControlMsg::Evicted`] with its view, once per reappearance; so does a
//!   member fetched by a node outside its view (a coordinator of another history taking over);
//! - a member whose channel to a node that is no member here comes up (a joiner, or a member
//!   of another history that it never knew) tells it its view in [`ControlMsg::Member`]: a
//!   joiner ignores it, a member of another history judges it like `Evicted`;
//! - an LRC told it was evicted by a node *still in its own view* was dropped one-sidedly and
//!   loses its connection;
//! - when the two views are of two histories (a healed partition: the sender was removed here,
//!   or its view holds a node removed here, or it is a node never admitted here whose view
//!   shares none of ours), the side with fewer LRCs of its own (nodes in its view and not in
//!   the other) loses; on a tie, the side without the smallest such node id loses. Both sides
//!   compute the same answer from the same two views — each judges the other's against the
//!   view it told the other (telling it at once, if it had not yet, the very view it judges;
//!   the sender, which holds the other history's log, counts for that side), not against its
//!   view of now, which may have changed meanwhile — so each pair agrees. A node of the
//!   losing history that the winners admitted too (its join request was held across the heal)
//!   is removed by the winning coordinator; one the winners never admitted is barred (the
//!   sender of the losing view, and every other member of that view, as soon as it is told),
//!   so that such a request cannot admit it a second time;
//! - a joiner is barred only once a log admitted and removed it (a joiner lost before its
//!   admission is not barred: it has nothing to keep apart); told `Evicted`, it gives up its
//!   pending join.
//!
//! The losing LRC tells each local federate `connection_lost(reason)` and drops its state for
//! the federation; further calls answer `FederateNotExecutionMember`. Its node id stays in the
//! winners' removed sets, so joining again needs a new LRC (a new process, or `Lrc::start`).

use super::wire::ControlMsg;
use super::{Action, FederationCore, Node, Ticket};
use crate::error::RtiError;

impl FederationCore {
    /// Tells `n`, a node this LRC removed, that it is not a member (once per reappearance).
    pub(crate) fn tell_evicted(&mut self, n: Node) {
        if !self.phase.is_admitted() || self.evicted_told.contains_key(&n) {
            return;
        }
        let nodes = self.view.nodes.clone();
        self.evicted_told.insert(n, nodes.clone());
        self.send_control(n, false, ControlMsg::Evicted { nodes });
    }

    /// Tells `n`, whose channel came up and which is no member here (not in the view, not
    /// removed, not left), this LRC's view: a joiner ignores it, a member of another history
    /// answers it (see [`Self::on_member`]).
    pub(crate) fn tell_member(&mut self, n: Node) {
        if !self.phase.is_admitted()
            || n == self.me
            || self.view.nodes.contains(&n)
            || self.removed.contains(&n)
            || self.left.contains(&n)
        {
            return;
        }
        let nodes = self.view.nodes.clone();
        self.send_control(n, false, ControlMsg::Member { nodes });
    }

    /// `from`, no member here, says it is a member of the view `theirs`: for a member of
    /// another history (joiner sweep seed 19057: each side admitted a joiner during the
    /// partition, and those two outlived every LRC both histories knew, so neither was in the
    /// other's view nor removed there, and nothing else made them meet) this is `Evicted`.
    /// A joiner ignores it, and so does a member whose view holds `from` (a member of ours
    /// whose admission has not reached the sender yet).
    pub(crate) fn on_member(&mut self, from: Node, theirs: Vec<Node>) {
        if !self.phase.is_admitted()
            || self.view.nodes.contains(&from)
            || self.left.contains(&from)
            || theirs.contains(&self.me)
        {
            return;
        }
        self.on_evicted(from, theirs);
    }

    /// `from` says this LRC is not in its view `theirs`.
    pub(crate) fn on_evicted(&mut self, from: Node, theirs: Vec<Node>) {
        if theirs.contains(&self.me) {
            return;
        }
        if !self.phase.is_admitted() {
            self.joiner_evicted(from);
            return;
        }
        let mine = self.view.nodes.clone();
        let in_mine = mine.contains(&from);
        // Two histories (a healed partition): `from` was removed here; or its view holds a
        // node removed here (it was admitted here after the other side had admitted it: a
        // join request held across the heal); or it is a node never admitted here whose view
        // shares none of ours (the other side admitted a joiner this side lost, which is not
        // barred, see `on_peer_gone`). Otherwise `from` is of our history: if it is in our
        // view, this LRC was dropped one-sidedly; if not, a member of our view tells us.
        let two = self.removed.contains(&from)
            || theirs.iter().any(|n| self.removed.contains(n))
            || (!in_mine && theirs.iter().all(|n| !mine.contains(n)));
        let lose = if two {
            // The majority rule on the nodes each history has and the other has not (a node
            // admitted by both counts for neither). Against the view this LRC told `from`, if
            // it did: `from` judges that one, and the two verdicts must agree. Judged against
            // the view of now, a joiner whose request was held across the heal, admitted here
            // after that view went out, counted for neither here but for `from` there, and
            // both sides won (unified simulator, joiner sweep, seed 6937: two logs for good).
            //
            // Not told yet, this LRC tells `from` now the very view it judges, so that both
            // judge the same two views: judging its view of now and telling a later one, the
            // view had lost a node meanwhile, which then counted for `from` there and for
            // neither here, and both sides won (joiner sweep seeds 6193, 6526). `from` itself
            // counts for the side whose view it speaks for: it holds that history's log, and the
            // view it is told must not name it (it would take itself for a member of ours).
            let mine = match self.evicted_told.get(&from) {
                Some(told) => told.clone(),
                None => {
                    let told: Vec<Node> = mine.iter().copied().filter(|n| *n != from).collect();
                    self.evicted_told.insert(from, told.clone());
                    self.send_control(
                        from,
                        false,
                        ControlMsg::Evicted {
                            nodes: told.clone(),
                        },
                    );
                    told
                }
            };
            let ours: Vec<Node> = mine
                .iter()
                .copied()
                .filter(|n| !theirs.contains(n))
                .collect();
            let other: Vec<Node> = theirs
                .iter()
                .copied()
                .filter(|n| !mine.contains(n))
                .collect();
            let min = |v: &[Node]| v.iter().copied().min().unwrap_or(Node::MAX);
            other.len() > ours.len() || (other.len() == ours.len() && min(&other) < min(&ours))
        } else {
            in_mine
        };
        if !lose {
            if two {
                // The losing history's other members that this one never admitted are never
                // to be admitted here either: a join request of theirs held across the heal
                // would admit a node that is about to lose its connection, and a federation
                // that waits for it (simulator seed 1087: the coordinator admitted a joiner
                // the other side had admitted, which then lost; a resignation later waited
                // for it for good). The sender itself is barred below.
                for n in theirs.iter().copied() {
                    if n != from && n != self.me && !mine.contains(&n) && !self.removed.contains(&n)
                    {
                        self.foreign.insert(n);
                    }
                }
            }
            if !in_mine {
                // A member of another view: never to be admitted here (a join request of its
                // that is still in flight, or was queued during a takeover, would admit it a
                // second time: simulator seed 281). Of the other history, it is barred like a
                // removed member and told so (it loses by the same rule). Else it may be of
                // ours, which removed this LRC (a member of our view tells us so): only its
                // requests are ignored, and it does not count as removed here (simulator
                // seed 2923 of the joiner sweep).
                if !two {
                    self.foreign.insert(from);
                } else if self.removed.insert(from) {
                    self.streams.remove(&from);
                    self.tell_evicted(from);
                }
            } else if two && self.is_active_coordinator() {
                // Admitted here although the losing history had admitted it: the coordinator
                // removes it (the other members wait for that).
                self.suspected.insert(from);
                self.remove_suspected();
                self.check_held_replies();
            }
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

impl FederationCore {
    /// A joiner told by a member that it is not in its view: the member's log admitted this
    /// LRC and then removed it, before its Welcome reached it (it was cut off meanwhile), and
    /// it bars this node id for good (a joiner lost before its admission is not barred, see
    /// `on_peer_gone`). Its pending calls fail at once instead of waiting for an answer that
    /// will never come (simulator seeds 19, 168, 320, 727 of the joiner sweep); a join needs a
    /// new LRC.
    fn joiner_evicted(&mut self, from: Node) {
        let tickets: Vec<Ticket> = self.pending.values().filter_map(|p| p.ticket).collect();
        if tickets.is_empty() {
            return;
        }
        self.pending.clear();
        let reason = format!(
            "federation {}: LRC {from:x} says the members admitted this LRC and then removed it \
             while it could not hear them, before its admission reached it; this node id may \
             not join again: start a new LRC",
            self.name
        );
        tracing::error!(federation = %self.name, "{reason}");
        for ticket in tickets {
            self.actions.push_back(Action::Complete {
                ticket,
                result: Err(RtiError::NotConnected(reason.clone())),
            });
        }
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
        assert!(
            !told_evicted(&mut c, 5),
            "a member the log admitted is not barred"
        );
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

    /// Whether `c` asked `to` for a snapshot since its actions were last drained; drains them.
    /// The control messages `c` sends to `to` among the actions it has queued (all drained).
    fn sent_to(c: &mut FederationCore, to: Node) -> Vec<ControlMsg> {
        std::iter::from_fn(|| c.poll_action())
            .filter_map(|a| match a {
                Action::SendControl { to: t, bytes, .. } if t == to => {
                    super::super::wire::Envelope::decode(&bytes)
                        .ok()
                        .map(|e| e.msg)
                }
                _ => None,
            })
            .collect()
    }

    /// The views `c` tells `to` in `Evicted` (or, with `member`, in `Member`).
    fn views_told(c: &mut FederationCore, to: Node, member: bool) -> Vec<Vec<Node>> {
        sent_to(c, to)
            .into_iter()
            .filter_map(|m| match m {
                ControlMsg::Evicted { nodes } if !member => Some(nodes),
                ControlMsg::Member { nodes } if member => Some(nodes),
                _ => None,
            })
            .collect()
    }

    fn asked_snapshot(c: &mut FederationCore, to: Node) -> bool {
        sent_to(c, to)
            .iter()
            .any(|m| matches!(m, ControlMsg::SnapshotRequest))
    }

    /// Unified simulator, joiner sweep, seeds 7232 and 9410: a member lost its connection to
    /// another member the coordinator never lost, and ignored its data for good and never
    /// asked for its state again, so its federate missed that member's instances. When the
    /// connection comes back, the member's data counts again (it stays suspected: whom to
    /// follow as coordinator is the log's to settle) and its restarted stream is asked for a
    /// snapshot — again even if one was asked for over the connection that dropped.
    #[test]
    fn a_member_lost_and_back_while_the_log_kept_it_is_heard_and_asked_again() {
        let mut c = member_3_of_1_2_3();
        assert!(c.is_admitted());
        assert!(
            asked_snapshot(&mut c, 2),
            "a member before it serves its state"
        );
        let held = |c: &FederationCore| c.streams.get(&2).map_or(0, |s| s.held.len());
        let data = super::super::wire::DataMsg::Epoch(0).encode();
        // The request's connection drops before the answer: its data is ignored meanwhile.
        c.handle(2, Event::PeerGone(2));
        assert!(c.suspected.contains(&2));
        c.handle(
            2,
            Event::Data {
                from: 2,
                seq: Some(3),
                payload: &data,
            },
        );
        assert_eq!(held(&c), 0, "a lost member's data is ignored");
        while c.poll_action().is_some() {}
        c.handle(
            3,
            Event::ChannelPeer {
                node: 2,
                first_seq: 40,
            },
        );
        assert!(asked_snapshot(&mut c, 2), "its state asked for again");
        c.handle(
            4,
            Event::Data {
                from: 2,
                seq: Some(40),
                payload: &data,
            },
        );
        assert_eq!(held(&c), 1, "back, its data is held for the snapshot");
        assert_eq!(c.coordinator(), Some(1), "whom it follows is unchanged");
    }

    /// The member `me` of the view {1, …, `last`}, welcomed by the coordinator 1 and connected
    /// to every other member.
    fn member_of_1_to(me: Node, last: Node) -> FederationCore {
        let mut c = FederationCore::joining("F", me, 0, vec![1]);
        c.handle(
            0,
            Event::Control {
                from: 1,
                msg: ControlMsg::Welcome {
                    base: 0,
                    folded: Vec::new(),
                    log: (1..=last).map(Decision::NodeAdded).collect(),
                    modules: Vec::new(),
                    time_kind: Default::default(),
                },
            },
        );
        for node in (1..=last).filter(|&n| n != me) {
            c.handle(1, Event::ChannelPeer { node, first_seq: 1 });
        }
        c
    }

    /// A member of {1, 2, 3} welcomed by the coordinator 1.
    fn member_3_of_1_2_3() -> FederationCore {
        member_of_1_to(3, 3)
    }

    /// Unified simulator seed 29: a member lost a member after the coordinator and had it back
    /// while the coordinator kept it; still suspecting it, it passed it over when the
    /// coordinator died and took over beside it, the one the others followed.
    #[test]
    fn a_member_back_behind_the_coordinator_is_followed_when_the_coordinator_dies() {
        let mut c = member_3_of_1_2_3();
        c.handle(2, Event::PeerGone(2));
        assert_eq!(c.coordinator(), Some(1));
        c.handle(
            3,
            Event::ChannelPeer {
                node: 2,
                first_seq: 9,
            },
        );
        c.handle(4, Event::PeerGone(1));
        assert_eq!(c.coordinator(), Some(2), "the successor the others follow");
        assert!(c.recovery.is_none(), "no take-over beside it");
    }

    /// Joiner sweep seed 2661: a member lost the coordinator and the member after it, took over
    /// and waited for the others' reports; the member after the coordinator was back and took
    /// over too, and the others followed it. Each ignored the other's fetch, and neither
    /// decided again. A fetch from a member ahead, lost and back, makes this LRC follow it.
    #[test]
    fn a_member_taking_over_ahead_of_this_one_is_followed_again() {
        let mut c = member_of_1_to(3, 4);
        c.handle(2, Event::PeerGone(1));
        c.handle(2, Event::PeerGone(2));
        assert_eq!(c.coordinator(), Some(3));
        assert!(c.recovery.is_some(), "taking over, waiting for 4");
        c.handle(
            3,
            Event::ChannelPeer {
                node: 2,
                first_seq: 9,
            },
        );
        assert_eq!(
            c.coordinator(),
            Some(3),
            "a reconnection alone changes nothing"
        );
        while c.poll_action().is_some() {}
        c.handle(
            4,
            Event::Control {
                from: 2,
                msg: ControlMsg::Fetch { after: 4 },
            },
        );
        assert_eq!(c.coordinator(), Some(2), "2 is followed");
        assert!(c.recovery.is_none(), "the take-over here is dropped");
        let reported = sent_to(&mut c, 2)
            .iter()
            .any(|m| matches!(m, ControlMsg::Report { to: 2, .. }));
        assert!(reported, "2's fetch is answered");
    }

    /// The other way round (swarm seed 571): a coordinator lost and back stays passed over, so
    /// whom this member follows does not change under the others.
    #[test]
    fn a_coordinator_lost_and_back_stays_passed_over() {
        let mut c = member_3_of_1_2_3();
        c.handle(2, Event::PeerGone(1));
        assert_eq!(c.coordinator(), Some(2));
        c.handle(
            3,
            Event::ChannelPeer {
                node: 1,
                first_seq: 9,
            },
        );
        assert_eq!(c.coordinator(), Some(2), "still the successor");
    }

    /// Whether `c` sent `Evicted` to `to` since its actions were last drained; drains them.
    fn told_evicted(c: &mut FederationCore, to: Node) -> bool {
        !views_told(c, to, false).is_empty()
    }

    /// The coordinator 1 of the view {1, 2}, whose log admitted and removed 3.
    fn coordinator_of_1_2_that_removed_3() -> FederationCore {
        let mut c = FederationCore::create("F", 1, 0, Vec::new()).expect("create");
        for d in [
            Decision::NodeAdded(2),
            Decision::NodeAdded(3),
            Decision::NodeRemoved(3),
        ] {
            c.apply_decision(d);
        }
        while c.poll_action().is_some() {}
        c
    }

    fn join_request(from: Node) -> Event<'static> {
        Event::Control {
            from,
            msg: ControlMsg::Request {
                id: 1,
                body: super::super::wire::Request::Join {
                    name: Some(format!("f{from}")),
                    federate_type: "t".into(),
                    modules: Vec::new(),
                },
                epoch: 0,
            },
        }
    }

    /// Unified simulator, seeds 368 and 29: a joiner cut off from every member while joining
    /// was barred by them for good (it ignores `Evicted`), so its join was never answered. A
    /// joiner lost before its admission is not barred: when it comes back, it is admitted.
    #[test]
    fn a_joiner_lost_before_its_admission_is_admitted_when_it_comes_back() {
        let mut c = FederationCore::create("F", 1, 0, Vec::new()).expect("create");
        while c.poll_action().is_some() {}
        c.handle(1, Event::PeerGone(5));
        c.handle(
            2,
            Event::ChannelPeer {
                node: 5,
                first_seq: 1,
            },
        );
        c.handle(3, join_request(5));
        assert!(!told_evicted(&mut c, 5), "a lost joiner is not barred");
        assert_eq!(c.view().nodes, vec![1, 5], "admitted");
        assert!(!c.suspected.contains(&5), "and not suspected: it came back");
    }

    /// Unified simulator, seeds 19, 168, 320, 727 with `partition_joiners`: the log admitted a
    /// joiner and removed it (cut off) before its Welcome was sent; the members bar it for
    /// good, and its join waited for an answer forever. Told `Evicted`, it gives up.
    #[test]
    fn a_joiner_the_log_removed_gives_up_its_join() {
        let mut c = FederationCore::joining("F", 5, 0, vec![1]);
        let t = c.join(Some("x".into()), "t");
        while c.poll_action().is_some() {}
        c.handle(
            1,
            Event::Control {
                from: 1,
                msg: ControlMsg::Evicted { nodes: vec![1, 2] },
            },
        );
        let failed = std::iter::from_fn(|| c.poll_action()).any(|a| {
            matches!(a, Action::Complete { ticket, result: Err(RtiError::NotConnected(_)) }
                if ticket == t)
        });
        assert!(failed, "the join fails at once");
        assert!(!c.is_admitted());
    }

    /// Unified simulator, seed 281: a member of the other side's view (admitted there after
    /// the heal) told this side's coordinator, in recovery, that it is no member; its join
    /// requests, queued during the recovery, then admitted it a second time. Such a node is
    /// never admitted here: barred (and told so) when the views are of two histories, its
    /// requests ignored when they share a node.
    #[test]
    fn a_member_of_another_view_is_not_admitted_by_a_join_request_in_flight() {
        // Two histories: its view shares no node with ours; ours wins (tie, smallest id).
        let mut c = FederationCore::create("F", 1, 0, Vec::new()).expect("create");
        c.apply_decision(Decision::NodeAdded(2));
        while c.poll_action().is_some() {}
        c.handle(
            1,
            Event::Control {
                from: 4,
                msg: ControlMsg::Evicted { nodes: vec![3, 4] },
            },
        );
        assert!(matches!(c.phase(), Phase::Member));
        assert!(told_evicted(&mut c, 4), "barred and told so");
        c.handle(2, join_request(4));
        assert_eq!(c.view().nodes, vec![1, 2], "not admitted");
        // One history (its view holds our member 2, which removed us, or will): not barred,
        // not evicted on its word, but its requests are not answered.
        let mut c = FederationCore::create("F", 1, 0, Vec::new()).expect("create");
        c.apply_decision(Decision::NodeAdded(2));
        while c.poll_action().is_some() {}
        c.handle(
            1,
            Event::Control {
                from: 5,
                msg: ControlMsg::Evicted { nodes: vec![2, 5] },
            },
        );
        assert!(matches!(c.phase(), Phase::Member));
        assert!(!c.removed.contains(&5));
        c.handle(2, join_request(5));
        assert_eq!(c.view().nodes, vec![1, 2], "not admitted");
    }

    /// Unified simulator, seeds 1087 and 281: a join request held across a heal made the
    /// coordinator admit a node the other side had admitted; its `Evicted` answer made the
    /// coordinator evict itself, as if dropped one-sidedly. Its view holds a node removed
    /// here: two histories, and the majority rule (on the nodes only one of them has) decides;
    /// the winning coordinator removes it.
    #[test]
    fn a_node_admitted_twice_does_not_evict_the_winning_coordinator() {
        let mut c = coordinator_of_1_2_that_removed_3();
        c.handle(1, join_request(4));
        assert_eq!(c.view().nodes, vec![1, 2, 4]);
        c.handle(
            2,
            Event::Control {
                from: 4,
                msg: ControlMsg::Evicted { nodes: vec![3, 4] },
            },
        );
        assert!(matches!(c.phase(), Phase::Member), "not evicted");
        assert_eq!(
            c.view().nodes,
            vec![1, 2],
            "the node admitted twice is removed"
        );
        assert!(c.removed.contains(&4));
    }

    /// Joiner sweep seed 19057: two LRCs, each admitted by its own side of a partition, meet
    /// after every LRC both histories knew is gone. Neither is in the other's view nor removed
    /// there; the channel coming up makes each tell the other its view, and the majority rule
    /// settles it as for `Evicted`. A joiner ignores the same message.
    #[test]
    fn members_of_two_histories_that_never_met_tell_each_other_their_views() {
        let mut c = coordinator_of_1_2_that_removed_3();
        c.handle(
            1,
            Event::ChannelPeer {
                node: 7,
                first_seq: 1,
            },
        );
        let told = views_told(&mut c, 7, true);
        assert_eq!(told, vec![vec![1, 2]], "7 is told the view");
        // 7's view holds 3, which this history removed: another history, and a larger one.
        c.handle(
            2,
            Event::Control {
                from: 7,
                msg: ControlMsg::Member {
                    nodes: vec![3, 7, 8],
                },
            },
        );
        assert!(
            matches!(c.phase(), Phase::Evicted { .. }),
            "{{3, 7, 8}} beats {{1, 2}}: {:?}",
            c.phase()
        );

        let mut joiner = FederationCore::joining("F", 5, 0, vec![1]);
        joiner.handle(
            0,
            Event::Control {
                from: 1,
                msg: ControlMsg::Member { nodes: vec![1, 2] },
            },
        );
        assert_eq!(
            joiner.phase().candidates(),
            &[1],
            "a joiner goes on joining"
        );
    }

    /// Joiner sweep seed 16436: a coordinator of another history, whose log admitted this LRC
    /// through a join request held across the heal, took over and fetched this LRC's log; not
    /// its coordinator, this LRC ignored it, and it waited for good with both histories alive.
    /// It is told this LRC's view instead, and the majority rule settles it.
    #[test]
    fn a_fetch_from_outside_the_view_is_answered_with_the_view() {
        let mut c = coordinator_of_1_2_that_removed_3();
        c.handle(
            1,
            Event::Control {
                from: 7,
                msg: ControlMsg::Fetch { after: 4 },
            },
        );
        assert!(told_evicted(&mut c, 7), "7 is told it is no member here");
        assert!(c.is_active_coordinator(), "nothing else changes here");
    }

    /// Joiner sweep seeds 6193 and 6526: a member of the other history that this coordinator
    /// admitted too tells it its view. Judged against the view of now (where it counts for
    /// neither side) the coordinator won the tie; the view it told later lacked that node, which
    /// then counted for the other side there, and both sides won. Now the view judged is the
    /// view told, at once, and the node speaking counts for its own side.
    #[test]
    fn the_view_judged_is_the_view_told_and_the_speaker_counts_for_its_side() {
        let mut c = coordinator_of_1_2_that_removed_3();
        c.handle(1, join_request(4));
        assert_eq!(c.view().nodes, vec![1, 2, 4], "4 admitted here as well");
        while c.poll_action().is_some() {}
        c.handle(
            2,
            Event::Control {
                from: 4,
                msg: ControlMsg::Evicted {
                    nodes: vec![3, 4, 5],
                },
            },
        );
        let told = views_told(&mut c, 4, false);
        assert_eq!(
            told,
            vec![vec![1, 2]],
            "4 is told the view judged, without itself"
        );
        // 4 judges {1, 2} against its {3, 4, 5} and wins: so must this side lose.
        assert!(
            matches!(c.phase(), Phase::Evicted { .. }),
            "{{3, 4, 5}} beats {{1, 2}}: {:?}",
            c.phase()
        );
    }

    /// Unified simulator, joiner sweep seed 6937: after a heal the lone coordinator 1 told 2
    /// (removed here) its view {1}; then a join request of 4, held across the heal, admitted 4
    /// here, which the other side {2, 4} had admitted meanwhile. 2's view judged against {1, 4}
    /// (4 counting for neither) made 1 win the tie, while 2, judging the {1} it was told, won
    /// too: two logs for good. Judged against the view it told, 1 loses, as 2 finds.
    #[test]
    fn the_other_side_is_judged_against_the_view_it_was_told() {
        let mut c = FederationCore::create("F", 1, 0, Vec::new()).expect("create");
        for d in [Decision::NodeAdded(2), Decision::NodeRemoved(2)] {
            c.apply_decision(d);
        }
        while c.poll_action().is_some() {}
        c.handle(
            1,
            Event::ChannelPeer {
                node: 2,
                first_seq: 1,
            },
        );
        let told = views_told(&mut c, 2, false);
        assert_eq!(told, vec![vec![1]], "2 is told the view {{1}}");
        c.handle(2, join_request(4));
        assert_eq!(c.view().nodes, vec![1, 4], "4 admitted here too");
        c.handle(
            3,
            Event::Control {
                from: 2,
                msg: ControlMsg::Evicted { nodes: vec![2, 4] },
            },
        );
        assert!(
            matches!(c.phase(), Phase::Evicted { .. }),
            "{{2, 4}} beats the {{1}} 2 was told: {:?}",
            c.phase()
        );
    }

    /// Unified simulator, seeds 1087 and 1817: after a heal, a member of the losing view tells
    /// the winning coordinator its view, which holds a joiner the losing side admitted while
    /// its join request to this side was held in the transport. That request, delivered
    /// afterwards, must not admit it: the joiner is about to lose (it is of the losing view),
    /// and the federation would wait for it for good.
    #[test]
    fn the_winners_never_admit_a_member_of_the_losing_view() {
        let mut c = coordinator_of_1_2_that_removed_3();
        // 3 (removed here) says its view is {3, 4}: ours {1, 2} wins the tie.
        c.handle(
            1,
            Event::Control {
                from: 3,
                msg: ControlMsg::Evicted { nodes: vec![3, 4] },
            },
        );
        assert!(matches!(c.phase(), Phase::Member));
        c.handle(2, join_request(4));
        c.handle(3, Event::Tick);
        while c.poll_action().is_some() {}
        assert_eq!(c.view().nodes, vec![1, 2], "4 is not admitted");
        // A node of neither view is not barred by it.
        c.handle(4, join_request(5));
        c.handle(5, Event::Tick);
        while c.poll_action().is_some() {}
        assert_eq!(c.view().nodes, vec![1, 2, 5]);
    }

    /// Unified simulator, joiner sweep seed 4569: a joiner admitted just before a partition cut
    /// it off, whose Welcome waited for another member's acknowledgement, was removed during
    /// the partition; after the heal the coordinator still sent it the held Welcome and
    /// `Joined`, so its federate was told it joined a federation that had removed its LRC.
    #[test]
    fn a_held_welcome_is_never_sent_to_a_node_removed_meanwhile() {
        let mut c = FederationCore::create("F", 1, 0, Vec::new()).expect("create");
        c.apply_decision(Decision::NodeAdded(2));
        while c.poll_action().is_some() {}
        let welcomed = |c: &mut FederationCore| {
            sent_to(c, 5)
                .iter()
                .any(|m| matches!(m, ControlMsg::Welcome { .. }))
        };
        c.handle(1, join_request(5));
        assert!(c.view().nodes.contains(&5), "admitted");
        assert!(
            !welcomed(&mut c),
            "its Welcome waits for 2's acknowledgement"
        );
        c.handle(2, Event::PeerGone(5));
        c.handle(3, Event::Tick);
        assert!(!c.view().nodes.contains(&5), "removed");
        let last = c.view().last();
        c.handle(
            4,
            Event::Control {
                from: 2,
                msg: ControlMsg::Report {
                    last,
                    to: 1,
                    settled: 0,
                },
            },
        );
        c.handle(5, Event::Tick);
        assert!(!welcomed(&mut c), "no Welcome to a removed node");
    }

    /// Decisions from a node outside the view are of another history (seed 281): not applied,
    /// and their sender is told this LRC is no member of its view.
    #[test]
    fn decisions_from_outside_the_view_are_not_applied() {
        let mut c = FederationCore::create("F", 1, 0, Vec::new()).expect("create");
        while c.poll_action().is_some() {}
        let last = c.view().last();
        c.handle(
            1,
            Event::Control {
                from: 7,
                msg: ControlMsg::Decisions {
                    first: last + 1,
                    list: vec![Decision::NodeAdded(9)],
                },
            },
        );
        assert_eq!(c.view().last(), last, "not applied");
        assert!(told_evicted(&mut c, 7));
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
