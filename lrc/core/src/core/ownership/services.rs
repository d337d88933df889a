//! The clause 7 services a local federate calls: queries (7.16–7.18), the owner's side
//! (divestitures, 7.2–7.6 and 7.9–7.14) and the acquirer's side (acquisitions and their
//! cancellation, 7.8, 7.11, 7.15), and what a resignation needs of ownership (4.10). Each
//! checks the call against the state here and starts the negotiation (`negotiation`).

use std::collections::BTreeMap;

use crate::core::wire::{DataMsg, OwnershipMsg, Request};
use crate::core::{Callback, FederationCore};
use crate::error::RtiError;
use crate::fom::PRIVILEGE_TO_DELETE;
use crate::handles::FederateHandle;

use super::{Acquisition, Attr, Obj};

fn group<K: Ord, V>(items: impl IntoIterator<Item = (K, V)>) -> BTreeMap<K, Vec<V>> {
    let mut m: BTreeMap<K, Vec<V>> = BTreeMap::new();
    for (k, v) in items {
        m.entry(k).or_default().push(v);
    }
    m
}

impl FederationCore {
    // ----- queries -----

    /// Whether local federate `f` owns `a` of `o` right now (not given up).
    pub(crate) fn owns_now(&self, f: FederateHandle, o: Obj, a: Attr) -> bool {
        self.objects.get(&o).and_then(|i| i.owner_of(a)) == Some(f)
            && !self.ownership.in_flight.contains_key(&(o, a))
            && !self.ownership.starting.contains_key(&(o, a))
    }

    /// Whether `f` has an acquisition pending (on `o`, or on any instance).
    pub(crate) fn acquiring_on(&self, f: FederateHandle, o: Option<Obj>) -> bool {
        self.ownership
            .acquiring
            .keys()
            .any(|(g, x, _)| *g == f && o.is_none_or(|o| o == *x))
    }

    /// Ownership counters: (updates dropped, updates held).
    pub fn ownership_counters(&self) -> (u64, u64) {
        (self.ownership.dropped_updates, self.ownership.held_updates)
    }

    /// Number of acquisitions of local federates still pending.
    pub fn pending_acquisitions(&self) -> usize {
        self.ownership.acquiring.len()
    }

    /// The known instance `o` and its class for `f`, with every attribute defined.
    fn check_attrs(&self, f: FederateHandle, o: Obj, attrs: &[Attr]) -> Result<(), RtiError> {
        let fdd = self.fdd_ref()?;
        let lf = self.local(f)?;
        let known = lf.known.get(&o).copied();
        let inst = self.objects.get(&o);
        let (Some(k), Some(_)) = (known, inst) else {
            return Err(RtiError::ObjectInstanceNotKnown(format!(
                "federation {}: federate {f} does not know object instance {o}",
                self.name
            )));
        };
        for a in attrs {
            fdd.attribute(k, *a).map_err(|e| {
                RtiError::AttributeNotDefined(format!("federation {}: {e}", self.name))
            })?;
        }
        Ok(())
    }

    fn not_owned(&self, f: FederateHandle, o: Obj, attrs: &[Attr]) -> Result<(), RtiError> {
        if let Some(a) = attrs.iter().find(|a| !self.owns_now(f, o, **a)) {
            return Err(RtiError::AttributeNotOwned(format!(
                "federation {}: federate {f} does not own attribute {a} of instance {o}",
                self.name
            )));
        }
        Ok(())
    }

    fn service_checks(
        &self,
        f: FederateHandle,
        o: Obj,
        attrs: &[Attr],
        service: &str,
    ) -> Result<(), RtiError> {
        self.refuse_during_save_or_restore(f, service)?;
        self.check_attrs(f, o, attrs)
    }

    /// 7.17: the answer is a callback (`inform_attribute_ownership` / `attribute_is_not_owned`),
    /// given behind a read barrier (see the module docs, "Queries").
    pub fn query_attribute_ownership(
        &mut self,
        f: FederateHandle,
        o: Obj,
        a: Attr,
    ) -> Result<(), RtiError> {
        self.service_checks(f, o, &[a], "queryAttributeOwnership")?;
        // Registered before the request: this LRC may coordinate, and then the reply comes
        // back inside `request`.
        self.ownership.queries.insert(self.next_req, (f, o, a));
        self.request(Request::Sync, None, false);
        Ok(())
    }

    /// The read barrier of an ownership query passed: every decision made before the query
    /// reached the coordinator is applied here.
    pub(crate) fn ownership_synced(&mut self, id: u64) {
        if let Some(q) = self.ownership.queries.remove(&id) {
            self.ownership.answerable.push(q);
            self.answer_ownership_queries();
        }
    }

    /// Answers the queries past their barrier, except those whose attribute a transfer
    /// involving a local federate still moves here: given up by a local owner and not decided
    /// yet, or decided for a local federate not notified yet. Either federate's updates are
    /// refused meanwhile, so neither is named before that ends.
    pub(super) fn answer_ownership_queries(&mut self) {
        if self.ownership.answerable.is_empty() {
            return;
        }
        let mut wait = Vec::new();
        for (f, o, a) in std::mem::take(&mut self.ownership.answerable) {
            let known = self
                .locals
                .get(&f)
                .is_some_and(|l| l.known.contains_key(&o));
            let Some(inst) = self.objects.get(&o).filter(|_| known) else {
                continue; // resigned, or the instance was deleted meanwhile
            };
            if self.ownership.in_flight.contains_key(&(o, a))
                || self.ownership.starting.contains_key(&(o, a))
            {
                wait.push((f, o, a));
                continue;
            }
            let cb = match inst.owner_of(a) {
                Some(owner) => Callback::InformAttributeOwnership {
                    object: o,
                    attr: a,
                    owner,
                },
                // MOM instances are the RTI's (see `crate::core::mom`).
                None if crate::core::mom::is_mom_instance(o) => {
                    Callback::AttributeIsOwnedByRti { object: o, attr: a }
                }
                None => Callback::AttributeIsNotOwned { object: o, attr: a },
            };
            self.callback(f, cb);
        }
        self.ownership.answerable = wait;
    }

    /// 7.19.
    pub fn is_attribute_owned_by_federate(
        &self,
        f: FederateHandle,
        o: Obj,
        a: Attr,
    ) -> Result<bool, RtiError> {
        self.refuse_during_save_or_restore(f, "isAttributeOwnedByFederate")?;
        self.check_attrs(f, o, &[a])?;
        Ok(self.owns_now(f, o, a))
    }

    // ----- the owner's side -----

    /// Gives up `attrs` of `o` owned by local `f`: to the first waiting acquirer of each (or to
    /// nobody), stopping `f` at once and handing over in the data stream.
    fn give_up(
        &mut self,
        f: FederateHandle,
        o: Obj,
        attrs: &[Attr],
        tag: &[u8],
        only_wanted: bool,
    ) {
        let Some(inst) = self.objects.get(&o) else {
            return;
        };
        let mut targets: Vec<(Option<FederateHandle>, (Attr, u32))> = Vec::new();
        for a in attrs {
            if !self.owns_now(f, o, *a) {
                continue;
            }
            let to = self
                .ownership
                .candidates
                .get(&(o, *a))
                .and_then(|c| c.first())
                .map(|c| c.requester);
            if only_wanted && to.is_none() {
                continue;
            }
            targets.push((to, (*a, inst.version(*a))));
        }
        if targets.is_empty() {
            return;
        }
        let handed: Vec<(Attr, u32)> = targets.iter().map(|(_, x)| *x).collect();
        for (a, _) in &handed {
            self.ownership.divesting.remove(&(o, *a));
            self.ownership.candidates.remove(&(o, *a));
        }
        // In the stream behind every update `f` sent with these versions.
        self.send_hand_over(o, f, handed);
        for (to, list) in group(targets) {
            let id = self.next_req;
            for (a, _) in &list {
                self.ownership.in_flight.insert((o, *a), (to, id));
            }
            self.request(
                Request::Transfer {
                    object: o,
                    attrs: list,
                    from: Some(f),
                    to,
                    tag: tag.to_vec(),
                    silent: false,
                },
                None,
                false,
            );
        }
    }

    /// 7.2.
    pub fn unconditional_attribute_ownership_divestiture(
        &mut self,
        f: FederateHandle,
        o: Obj,
        attrs: &[Attr],
    ) -> Result<(), RtiError> {
        self.service_checks(f, o, attrs, "unconditionalAttributeOwnershipDivestiture")?;
        self.not_owned(f, o, attrs)?;
        self.give_up(f, o, attrs, &[], false);
        Ok(())
    }

    /// 7.3.
    pub fn negotiated_attribute_ownership_divestiture(
        &mut self,
        f: FederateHandle,
        o: Obj,
        attrs: &[Attr],
        tag: &[u8],
    ) -> Result<(), RtiError> {
        self.service_checks(f, o, attrs, "negotiatedAttributeOwnershipDivestiture")?;
        self.not_owned(f, o, attrs)?;
        if let Some(a) = attrs
            .iter()
            .find(|a| self.ownership.divesting.contains_key(&(o, **a)))
        {
            return Err(RtiError::AttributeAlreadyBeingDivested(format!(
                "federation {}: federate {f} is already divesting attribute {a} of {o}",
                self.name
            )));
        }
        for a in attrs {
            self.ownership.divesting.insert((o, *a), tag.to_vec());
        }
        // Acquirers already waiting make it a candidate at once.
        let waiting: Vec<Attr> = attrs
            .iter()
            .copied()
            .filter(|a| {
                self.ownership
                    .candidates
                    .get(&(o, *a))
                    .is_some_and(|c| !c.is_empty())
            })
            .collect();
        if !waiting.is_empty() {
            self.callback(
                f,
                Callback::RequestDivestitureConfirmation {
                    object: o,
                    attrs: waiting,
                },
            );
        }
        let versions = attrs
            .iter()
            .map(|a| self.objects.get(&o).map_or(0, |i| i.version(*a)))
            .collect();
        self.send_data(
            true,
            DataMsg::OfferOwnership {
                object: o,
                owner: f,
                attrs: attrs.to_vec(),
                versions,
                tag: tag.to_vec(),
            },
        );
        Ok(())
    }

    /// 7.6: ownership changes hands here (to the first acquirer of each attribute).
    pub fn confirm_divestiture(
        &mut self,
        f: FederateHandle,
        o: Obj,
        attrs: &[Attr],
        tag: &[u8],
    ) -> Result<(), RtiError> {
        self.service_checks(f, o, attrs, "confirmDivestiture")?;
        self.not_owned(f, o, attrs)?;
        self.divesting_all(f, o, attrs)?;
        if let Some(a) = attrs.iter().find(|a| {
            self.ownership
                .candidates
                .get(&(o, **a))
                .is_none_or(|c| c.is_empty())
        }) {
            return Err(RtiError::NoAcquisitionPending(format!(
                "federation {}: nobody is acquiring attribute {a} of {o}",
                self.name
            )));
        }
        self.give_up(f, o, attrs, tag, true);
        Ok(())
    }

    /// `AttributeDivestitureWasNotRequested` unless `f` negotiates the divestiture of every
    /// attribute of `attrs`.
    fn divesting_all(&self, f: FederateHandle, o: Obj, attrs: &[Attr]) -> Result<(), RtiError> {
        match attrs
            .iter()
            .find(|a| !self.ownership.divesting.contains_key(&(o, **a)))
        {
            Some(a) => Err(RtiError::AttributeDivestitureWasNotRequested(format!(
                "federation {}: federate {f} is not divesting attribute {a} of {o}",
                self.name
            ))),
            None => Ok(()),
        }
    }

    /// 7.14.
    pub fn cancel_negotiated_attribute_ownership_divestiture(
        &mut self,
        f: FederateHandle,
        o: Obj,
        attrs: &[Attr],
    ) -> Result<(), RtiError> {
        self.service_checks(f, o, attrs, "cancelNegotiatedAttributeOwnershipDivestiture")?;
        self.not_owned(f, o, attrs)?;
        self.divesting_all(f, o, attrs)?;
        let mut unavailable = Vec::new();
        for a in attrs {
            self.ownership.divesting.remove(&(o, *a));
            // If-available acquirers wanted it only while it was being divested.
            if let Some(c) = self.ownership.candidates.get_mut(&(o, *a)) {
                for x in c.iter().filter(|x| x.if_available) {
                    unavailable.push(((x.node, x.requester), (*a, x.version)));
                }
                c.retain(|x| !x.if_available);
            }
        }
        for ((node, requester), attrs) in group(unavailable) {
            self.send_ownership(
                node,
                OwnershipMsg::Unavailable {
                    requester,
                    object: o,
                    attrs,
                },
            );
        }
        Ok(())
    }

    /// 7.12: the intrusive acquirers of `attrs` get `attribute_ownership_unavailable`.
    pub fn attribute_ownership_release_denied(
        &mut self,
        f: FederateHandle,
        o: Obj,
        attrs: &[Attr],
    ) -> Result<(), RtiError> {
        self.service_checks(f, o, attrs, "attributeOwnershipReleaseDenied")?;
        self.not_owned(f, o, attrs)?;
        let mut unavailable = Vec::new();
        for a in attrs {
            if let Some(c) = self.ownership.candidates.get_mut(&(o, *a)) {
                for x in c.iter().filter(|x| !x.if_available) {
                    unavailable.push(((x.node, x.requester), (*a, x.version)));
                }
                c.retain(|x| x.if_available);
            }
        }
        for ((node, requester), attrs) in group(unavailable) {
            self.send_ownership(
                node,
                OwnershipMsg::Unavailable {
                    requester,
                    object: o,
                    attrs,
                },
            );
        }
        Ok(())
    }

    /// 7.13: releases the attributes somebody is waiting for and returns them.
    pub fn attribute_ownership_divestiture_if_wanted(
        &mut self,
        f: FederateHandle,
        o: Obj,
        attrs: &[Attr],
    ) -> Result<Vec<Attr>, RtiError> {
        self.service_checks(f, o, attrs, "attributeOwnershipDivestitureIfWanted")?;
        self.not_owned(f, o, attrs)?;
        let wanted: Vec<Attr> = attrs
            .iter()
            .copied()
            .filter(|a| {
                self.ownership
                    .candidates
                    .get(&(o, *a))
                    .is_some_and(|c| !c.is_empty())
            })
            .collect();
        self.give_up(f, o, &wanted, &[], true);
        Ok(wanted)
    }

    /// Unpublishing divests (5.3; `docs/HLA-SEMANTICS.md`, "Ownership"): attributes `f` owns but no
    /// longer publishes at the class it knows the instance as (the delete privilege only when it
    /// publishes nothing of that class any more).
    pub(crate) fn divest_unpublished(&mut self, f: FederateHandle) {
        let Some(fdd) = self.fdd.clone() else { return };
        let Some(lf) = self.locals.get(&f) else {
            return;
        };
        let mut todo: Vec<(Obj, Vec<Attr>)> = Vec::new();
        for (o, i) in &self.objects {
            let owned = i.owned_by(f);
            if owned.is_empty() {
                continue;
            }
            let k = lf.known.get(o).copied().unwrap_or(i.class);
            let privilege = fdd.attribute_handle(i.class, PRIVILEGE_TO_DELETE).ok();
            let publishes_class = lf.decl.published_objects.contains_key(&k);
            let gone: Vec<Attr> = owned
                .into_iter()
                .filter(|a| {
                    if Some(*a) == privilege {
                        !publishes_class
                    } else {
                        !lf.decl.publishes(k, *a)
                    }
                })
                .filter(|a| !self.ownership.in_flight.contains_key(&(*o, *a)))
                .collect();
            if !gone.is_empty() {
                todo.push((*o, gone));
            }
        }
        for (o, attrs) in todo {
            self.give_up(f, o, &attrs, &[], false);
        }
    }

    // ----- the acquirer's side -----

    fn check_acquirable(&self, f: FederateHandle, o: Obj, attrs: &[Attr]) -> Result<(), RtiError> {
        let lf = self.local(f)?;
        let k = lf.known.get(&o).copied();
        let Some(k) = k else {
            return Err(RtiError::ObjectInstanceNotKnown(format!(
                "federation {}: federate {f} does not know {o}",
                self.name
            )));
        };
        let fdd = self.fdd_ref()?;
        let privilege = fdd.attribute_handle(k, PRIVILEGE_TO_DELETE).ok();
        if !lf.decl.published_objects.contains_key(&k) {
            return Err(RtiError::ObjectClassNotPublished(format!(
                "federation {}: federate {f} does not publish the class it knows {o} as",
                self.name
            )));
        }
        // The RTI owns every attribute of a MOM instance and gives none away (see
        // `crate::core::mom`).
        if let (true, Some(a)) = (crate::core::mom::is_mom_instance(o), attrs.first()) {
            return Err(RtiError::AttributeNotPublished(format!(
                "federation {}: attribute {a} of {o} is owned by the RTI (a MOM instance)",
                self.name
            )));
        }
        if let Some(a) = attrs
            .iter()
            .find(|a| Some(**a) != privilege && !lf.decl.publishes(k, **a))
        {
            return Err(RtiError::AttributeNotPublished(format!(
                "federation {}: federate {f} does not publish attribute {a} of the class it knows {o} as",
                self.name
            )));
        }
        // As `is_attribute_owned_by_federate` answers: an attribute this federate is giving up
        // (its transfer not yet decided) is no longer its own, and it may ask for it again.
        if let Some(a) = attrs.iter().find(|a| self.owns_now(f, o, **a)) {
            return Err(RtiError::FederateOwnsAttributes(format!(
                "federation {}: federate {f} already owns attribute {a} of {o}",
                self.name
            )));
        }
        Ok(())
    }

    fn start_acquisition(
        &mut self,
        f: FederateHandle,
        o: Obj,
        attrs: &[Attr],
        tag: &[u8],
        if_available: bool,
    ) {
        for a in attrs {
            let e = self
                .ownership
                .acquiring
                .entry((f, o, *a))
                .or_insert(Acquisition {
                    if_available,
                    tag: tag.to_vec(),
                    sent: None,
                    req: None,
                    cancel: false,
                });
            if e.if_available && !if_available {
                // An if-available request becomes intrusive: asked again.
                e.if_available = false;
                e.tag = tag.to_vec();
                e.sent = None;
            }
        }
        self.pump_ownership();
    }

    /// 7.8.
    pub fn attribute_ownership_acquisition(
        &mut self,
        f: FederateHandle,
        o: Obj,
        attrs: &[Attr],
        tag: &[u8],
    ) -> Result<(), RtiError> {
        self.service_checks(f, o, attrs, "attributeOwnershipAcquisition")?;
        self.check_acquirable(f, o, attrs)?;
        self.start_acquisition(f, o, attrs, tag, false);
        Ok(())
    }

    /// 7.9.
    pub fn attribute_ownership_acquisition_if_available(
        &mut self,
        f: FederateHandle,
        o: Obj,
        attrs: &[Attr],
    ) -> Result<(), RtiError> {
        self.service_checks(f, o, attrs, "attributeOwnershipAcquisitionIfAvailable")?;
        self.check_acquirable(f, o, attrs)?;
        if let Some(a) = attrs
            .iter()
            .find(|a| self.ownership.acquiring.contains_key(&(f, o, **a)))
        {
            return Err(RtiError::AttributeAlreadyBeingAcquired(format!(
                "federation {}: federate {f} is already acquiring attribute {a} of {o}",
                self.name
            )));
        }
        self.start_acquisition(f, o, attrs, &[], true);
        Ok(())
    }

    /// 7.15: confirmed by `confirm_attribute_ownership_acquisition_cancellation` for what was
    /// not acquired meanwhile (an acquisition that won the race is notified instead).
    pub fn cancel_attribute_ownership_acquisition(
        &mut self,
        f: FederateHandle,
        o: Obj,
        attrs: &[Attr],
    ) -> Result<(), RtiError> {
        self.service_checks(f, o, attrs, "cancelAttributeOwnershipAcquisition")?;
        // Owned includes granted and about to be notified.
        if let Some(a) = attrs
            .iter()
            .find(|a| self.objects.get(&o).and_then(|i| i.owner_of(**a)) == Some(f))
        {
            return Err(RtiError::AttributeAlreadyOwned(format!(
                "federation {}: federate {f} already owns attribute {a} of {o}",
                self.name
            )));
        }
        if let Some(a) = attrs.iter().find(|a| {
            self.ownership
                .acquiring
                .get(&(f, o, **a))
                .is_none_or(|x| x.cancel || x.if_available)
        }) {
            return Err(RtiError::AttributeAcquisitionWasNotRequested(format!(
                "federation {}: federate {f} is not acquiring attribute {a} of {o}",
                self.name
            )));
        }
        let mut now_confirmed = Vec::new();
        let mut to_owner: Vec<(FederateHandle, (Attr, u32))> = Vec::new();
        for a in attrs {
            let Some(acq) = self.ownership.acquiring.get_mut(&(f, o, *a)) else {
                continue;
            };
            acq.cancel = true;
            match (acq.req, acq.sent) {
                (Some(_), _) => {} // the coordinator's answer decides
                (None, Some((Some(g), v, _))) => to_owner.push((g, (*a, v))),
                _ => now_confirmed.push(*a),
            }
        }
        for a in &now_confirmed {
            self.ownership.acquiring.remove(&(f, o, *a));
        }
        if !now_confirmed.is_empty() {
            self.callback(
                f,
                Callback::ConfirmAttributeOwnershipAcquisitionCancellation {
                    object: o,
                    attrs: now_confirmed,
                },
            );
        }
        for (g, attrs) in group(to_owner) {
            match self.view.federates.get(&g).map(|r| r.node) {
                Some(node) => self.send_ownership(
                    node,
                    OwnershipMsg::Cancel {
                        requester: f,
                        object: o,
                        attrs,
                    },
                ),
                None => {
                    // The owner is gone: nothing can be granted by it any more.
                    let attrs: Vec<Attr> = attrs.into_iter().map(|(a, _)| a).collect();
                    for a in &attrs {
                        self.ownership.acquiring.remove(&(f, o, *a));
                    }
                    self.callback(
                        f,
                        Callback::ConfirmAttributeOwnershipAcquisitionCancellation {
                            object: o,
                            attrs,
                        },
                    );
                }
            }
        }
        Ok(())
    }

    // ----- resignation -----

    /// Checks a resignation against what the federate still owns or acquires (4.10).
    pub(crate) fn check_resign(
        &self,
        f: FederateHandle,
        action: crate::core::wire::ResignAction,
    ) -> Result<(), RtiError> {
        use crate::core::wire::ResignAction as R;
        let divests = matches!(
            action,
            R::UnconditionallyDivestAttributes
                | R::DeleteObjectsThenDivest
                | R::CancelThenDeleteThenDivest
        );
        let cancels = matches!(
            action,
            R::CancelPendingOwnershipAcquisitions | R::CancelThenDeleteThenDivest
        );
        if !divests {
            let fdd = self.fdd.clone();
            // What it owns now: attributes it is giving up (transfer not yet decided) are not
            // its own any more, as `is_attribute_owned_by_federate` answers; their transfer is
            // decided before this resignation (one link to the coordinator, in order).
            let owns = self.objects.iter().any(|(o, i)| {
                if !i.owned_by(f).into_iter().any(|a| self.owns_now(f, *o, a)) {
                    return false;
                }
                if !action.deletes_objects() {
                    return true;
                }
                // Deleted with the privilege; attributes of instances it cannot delete stay.
                let privilege = fdd
                    .as_ref()
                    .and_then(|d| d.attribute_handle(i.class, PRIVILEGE_TO_DELETE).ok());
                privilege.is_none_or(|p| !self.owns_now(f, *o, p))
            });
            if owns {
                return Err(RtiError::FederateOwnsAttributes(format!(
                    "federation {}: federate {f} owns attributes and {action:?} does not divest them",
                    self.name
                )));
            }
        }
        if !cancels && self.acquiring_on(f, None) {
            return Err(RtiError::OwnershipAcquisitionPending(format!(
                "federation {}: federate {f} has acquisitions pending and {action:?} does not cancel them",
                self.name
            )));
        }
        Ok(())
    }
}
