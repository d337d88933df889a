//! What the lives of instances, federates and LRCs do to ownership: transfers decided before an
//! instance was known apply when it arrives, a deleted instance takes its negotiations with it, a
//! resigned or lost federate's attributes become unowned (its versions are remembered so its
//! updates in flight still count), and federates resigned on a removed LRC end like lost ones.

use crate::core::wire::{DataMsg, Request};
use crate::core::{FederationCore, Node};
use crate::handles::FederateHandle;

use super::{Attr, Obj};

impl FederationCore {
    /// Ownership changes this LRC saw before it knew the instance (kept in `early`) apply to
    /// it now, where they are newer than its state.
    pub(crate) fn ownership_apply_early(&mut self, object: Obj) {
        let Some(early) = self.ownership.early.remove(&object) else {
            return;
        };
        let Some(inst) = self.objects.get_mut(&object) else {
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
        self.ownership.history.retain(|(o, _), _| *o != object);
        self.ownership.divesting.retain(|(o, _), _| *o != object);
        self.ownership.candidates.retain(|(o, _), _| *o != object);
        self.ownership.in_flight.retain(|(o, _), _| *o != object);
        self.ownership.starting.retain(|(o, _), _| *o != object);
        let ended: Vec<(FederateHandle, Attr)> = self
            .ownership
            .acquiring
            .keys()
            .filter(|(_, o, _)| *o == object)
            .map(|(f, _, a)| (*f, *a))
            .collect();
        self.ownership.acquiring.retain(|(_, o, _), _| *o != object);
        // The federates learn it from remove_object_instance; their requests ended with it.
        drop(ended);
        // So did this LRC's transfer requests: the coordinator, which deletes it too, would
        // never answer them, and they were retried forever.
        self.pending
            .retain(|_, p| !matches!(&p.body, Request::Transfer { object: o, .. } if *o == object));
        self.ownership.held.retain(|(_, _, m)| match m {
            DataMsg::Update { object: o, .. } | DataMsg::HandOver { object: o, .. } => *o != object,
            _ => true,
        });
    }

    /// Before a resigned or lost federate's attributes become unowned: its current versions
    /// are remembered, so its updates still in flight are accepted until its hand-over.
    pub(crate) fn remember_resigned_owner(&mut self, h: FederateHandle) {
        if self.phase.is_replaying() {
            return;
        }
        for (o, i) in &self.objects {
            for (a, f) in &i.owners {
                if *f == h {
                    self.ownership
                        .history
                        .entry((*o, *a))
                        .or_default()
                        .entry(i.version(*a))
                        .or_insert((Some(h), false));
                }
            }
        }
    }

    /// LRC `n` was removed: federates that resigned there end like those lost with it (their
    /// hand-overs may have been cut off with its stream).
    pub(crate) fn ownership_on_node_removed(&mut self, n: Node) {
        let gone: Vec<FederateHandle> = self
            .ownership
            .resigned_on
            .iter()
            .filter(|(_, x)| **x == n)
            .map(|(h, _)| *h)
            .collect();
        for h in gone {
            self.ownership.resigned_on.remove(&h);
            self.ownership.lost.insert(h);
        }
        self.release_held();
    }

    /// A federate resigned or was lost (its attributes are already unowned).
    pub(crate) fn ownership_on_resign(&mut self, h: FederateHandle) {
        self.ownership.acquiring.retain(|(f, _, _), _| *f != h);
        self.ownership.starting.retain(|_, (f, _)| *f != h);
        for c in self.ownership.candidates.values_mut() {
            c.retain(|x| x.requester != h);
        }
        let objects = &self.objects;
        self.ownership.divesting.retain(|(o, a), _| {
            objects
                .get(o)
                .and_then(|i| i.owner_of(*a))
                .is_some_and(|f| f != h)
        });
        self.ownership.candidates.retain(|(o, a), c| {
            !c.is_empty()
                && objects
                    .get(o)
                    .and_then(|i| i.owner_of(*a))
                    .is_some_and(|f| f != h)
        });
        self.release_held();
    }
}
