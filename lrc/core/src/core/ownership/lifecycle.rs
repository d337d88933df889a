//! What the lives of instances, federates and LRCs do to ownership: transfers decided before an
//! instance was known apply when it arrives, a deleted instance takes its negotiations with it, a
//! resigned or lost federate's attributes become unowned (its versions are remembered so its
//! updates in flight still count), and federates resigned on a removed LRC end like lost ones.
//! What only touches ownership state is on [`OwnershipState`]; the core's methods add the
//! instances, the pending requests and the release of held updates.

use std::collections::BTreeMap;

use crate::core::objects::Instance;
use crate::core::wire::{DataMsg, Request};
use crate::core::{FederationCore, Node};
use crate::handles::FederateHandle;

use super::{Obj, OwnershipState};

impl OwnershipState {
    /// Transfers decided before this LRC knew `object` (kept in `early`) apply to `inst`, its
    /// instance now, where they are newer than its state. They are forgotten either way (the
    /// caller has just made the instance; `None` only if it is gone again).
    pub(crate) fn apply_early(&mut self, object: Obj, inst: Option<&mut Instance>) {
        let Some(early) = self.early.remove(&object) else {
            return;
        };
        let Some(inst) = inst else {
            return;
        };
        for (a, (owner, v)) in early {
            if v > inst.version(a) {
                match owner {
                    Some(o) => inst.owners.insert(a, o),
                    None => inst.owners.remove(&a),
                };
                inst.versions.insert(a, v);
            }
        }
    }

    /// Instance `object` was deleted: every negotiation about it, its version history and its
    /// held updates and hand-overs go (the federates learn it from the removal).
    pub(crate) fn forget(&mut self, object: Obj) {
        self.history.retain(|(o, _), _| *o != object);
        self.divesting.retain(|(o, _), _| *o != object);
        self.candidates.retain(|(o, _), _| *o != object);
        self.in_flight.retain(|(o, _), _| *o != object);
        self.starting.retain(|(o, _), _| *o != object);
        self.acquiring.retain(|(_, o, _), _| *o != object);
        self.held.retain(|(_, _, m)| match m {
            DataMsg::Update { object: o, .. } | DataMsg::HandOver { object: o, .. } => *o != object,
            _ => true,
        });
    }

    /// Federate `h` was lost with its LRC: its versions end without a hand-over.
    pub(crate) fn federate_lost(&mut self, h: FederateHandle) {
        self.lost.insert(h);
    }

    /// Remote federate `h` resigned on LRC `node`: its hand-overs are in that LRC's stream (see
    /// [`Self::node_removed`]).
    pub(crate) fn resigned_on(&mut self, h: FederateHandle, node: Node) {
        self.resigned_on.insert(h, node);
    }

    /// LRC `n` was removed: federates that resigned there end like those lost with it (their
    /// hand-overs may have been cut off with its stream).
    pub(crate) fn node_removed(&mut self, n: Node) {
        let gone: Vec<FederateHandle> = self
            .resigned_on
            .iter()
            .filter(|(_, x)| **x == n)
            .map(|(h, _)| *h)
            .collect();
        for h in gone {
            self.resigned_on.remove(&h);
            self.lost.insert(h);
        }
    }

    /// Federate `h` resigned or was lost (its attributes are already unowned in `objects`): its
    /// acquisitions, starts and requests end, and divestitures or waiting acquirers of
    /// attributes it no longer owns go.
    pub(crate) fn federate_left(&mut self, h: FederateHandle, objects: &BTreeMap<Obj, Instance>) {
        self.acquiring.retain(|(f, _, _), _| *f != h);
        self.starting.retain(|_, (f, _)| *f != h);
        for c in self.candidates.values_mut() {
            c.retain(|x| x.requester != h);
        }
        self.divesting.retain(|(o, a), _| {
            objects
                .get(o)
                .and_then(|i| i.owner_of(*a))
                .is_some_and(|f| f != h)
        });
        self.candidates.retain(|(o, a), c| {
            !c.is_empty()
                && objects
                    .get(o)
                    .and_then(|i| i.owner_of(*a))
                    .is_some_and(|f| f != h)
        });
    }
}

impl FederationCore {
    /// Ownership changes this LRC saw before it knew the instance (kept in `early`) apply to
    /// it now, where they are newer than its state.
    pub(crate) fn ownership_apply_early(&mut self, object: Obj) {
        self.ownership
            .apply_early(object, self.objects.get_mut(&object));
    }

    /// A new instance (registration or snapshot): transfers decided before it arrived apply.
    pub(crate) fn ownership_on_new_instance(&mut self, object: Obj) {
        self.ownership_apply_early(object);
        let Some(inst) = self.objects.get(&object) else {
            return;
        };
        // Owners that resigned before we knew the instance own nothing — once their resignation
        // took effect here: one still waiting for its LRC's data decides by its action then
        // (delete or leave an orphan, see `apply_resign`).
        let resigned: Vec<FederateHandle> = inst
            .owners
            .values()
            .copied()
            .filter(|f| {
                !self.view.federates.contains_key(f)
                    && f.0 < self.view.next_handle
                    && !self.resign_gated(*f)
            })
            .collect();
        if let Some(inst) = self.objects.get_mut(&object) {
            inst.owners.retain(|_, f| !resigned.contains(f));
        }
        self.release_held();
        self.retry_early_acquires();
    }

    /// An instance was deleted.
    pub(crate) fn forget_ownership_of(&mut self, object: Obj) {
        // The federates learn it from remove_object_instance; their requests ended with it.
        self.ownership.forget(object);
        // So did this LRC's transfer requests: the coordinator, which deletes it too, would
        // never answer them, and they were retried forever.
        self.pending
            .retain(|_, p| !matches!(&p.body, Request::Transfer { object: o, .. } if *o == object));
    }

    /// Before a resigned or lost federate's attributes become unowned: its current versions
    /// are remembered, so its updates still in flight are accepted until its hand-over.
    pub(crate) fn remember_resigned_owner(&mut self, h: FederateHandle) {
        if self.phase.is_replaying() {
            return;
        }
        self.ownership.remember_versions_of(h, &self.objects);
    }

    /// LRC `n` was removed: federates that resigned there end like those lost with it (their
    /// hand-overs may have been cut off with its stream).
    pub(crate) fn ownership_on_node_removed(&mut self, n: Node) {
        self.ownership.node_removed(n);
        self.release_held();
    }

    /// A federate resigned or was lost (its attributes are already unowned).
    pub(crate) fn ownership_on_resign(&mut self, h: FederateHandle) {
        self.ownership.federate_left(h, &self.objects);
        self.release_held();
    }
}
