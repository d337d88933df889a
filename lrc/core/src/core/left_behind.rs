//! What a removed LRC leaves behind, settled once for every member.
//!
//! A crashed LRC's data stream ends at a different point at every member: one got the
//! registration of an instance, another its deletion too, a third neither. The instances its
//! federates leave behind (orphans: they resigned or were lost without deleting them) would then
//! differ from member to member for good — the registrant's LRC, the authority on their
//! existence, is gone. So the coordinator that removes an LRC decides next which of them exist:
//! those it holds itself ([`Decision::LeftBehind`]). Every member removes the ones it holds
//! beyond the list and adopts the ones it lacks, at the same point of the log (orphans-mode
//! seeds 1928 and 1929 of `rti_sim`: a deletion and registrations cut off by the crash).
//!
//! The list covers the instances the LRC's federates registered whose privilege to delete is
//! unowned or held by one of them. One held by a federate of another LRC is that owner's: it
//! deletes it, or its resignation decides.

use std::collections::BTreeSet;

use crate::fom::PRIVILEGE_TO_DELETE;
use crate::handles::ObjectInstanceHandle;

use super::objects::Instance;
use super::wire::Decision;
use super::{FederateHandle, FederationCore, Node};

impl FederationCore {
    /// The coordinator, after removing LRCs: decides what each removed one left behind (also
    /// for a removal its lost predecessor decided without this).
    pub(crate) fn decide_left_behind(&mut self) {
        let due: Vec<Node> = self.view.left_behind_due.iter().copied().collect();
        for node in due {
            let federates: Vec<FederateHandle> = self
                .view
                .ran_on
                .iter()
                .filter(|(_, n)| **n == node)
                .map(|(h, _)| *h)
                .collect();
            let instances = self
                .objects
                .iter()
                .filter(|(o, i)| self.left_by(**o, i, &federates))
                .map(|(o, i)| super::state_transfer::instance_state(*o, i))
                .collect();
            self.decide(Decision::LeftBehind {
                node,
                federates,
                instances,
            });
        }
    }

    /// Applies a [`Decision::LeftBehind`]: this LRC's copy of what the removed LRC left behind
    /// becomes the coordinator's.
    pub(crate) fn apply_left_behind(&mut self, d: &Decision) {
        let Decision::LeftBehind {
            node,
            federates,
            instances,
        } = d
        else {
            return;
        };
        // A joiner replaying the log takes the instances from the members' snapshots, as they
        // are now.
        if self.phase.is_replaying() {
            return;
        }
        let listed: BTreeSet<ObjectInstanceHandle> = instances.iter().map(|i| i.object).collect();
        let extra: Vec<ObjectInstanceHandle> = self
            .objects
            .iter()
            .filter(|(o, i)| !listed.contains(o) && self.left_by(**o, i, federates))
            .map(|(o, _)| *o)
            .collect();
        for o in extra {
            self.remove_instance(o, Vec::new(), None, None);
        }
        for i in instances {
            if !self.objects.contains_key(&i.object) {
                // Handed on by the coordinator like orphans whose LRC hosts no federate.
                self.adopt_instance(i.clone(), *node);
            }
        }
        self.advise();
    }

    /// Whether the instance is one of those a removed LRC whose federates were `federates`
    /// left behind.
    fn left_by(&self, o: ObjectInstanceHandle, i: &Instance, federates: &[FederateHandle]) -> bool {
        federates.contains(&o.registrant())
            && self
                .privilege_holder(i)
                .is_none_or(|f| federates.contains(&f))
    }

    /// Who holds the privilege to delete the instance.
    pub(crate) fn privilege_holder(&self, i: &Instance) -> Option<FederateHandle> {
        let p = self
            .fdd
            .as_ref()?
            .attribute_handle(i.class, PRIVILEGE_TO_DELETE)
            .ok()?;
        i.owner_of(p)
    }
}
