//! Ownership management (IEEE 1516-2010 clause 7): per instance attribute, at most one owner.
//!
//! Model. Every instance attribute has an owner (or none) and an ownership *version*, the number
//! of times it changed hands. After registration (version 0, the registrant owns what it
//! publishes plus `HLAprivilegeToDeleteObject`) ownership changes only by a
//! [`Decision::Transfer`] in the coordinator's replicated log, which moves an attribute from
//! version `v` to `v + 1` only if the requester's view (`from`, `v`) is still current. So
//! concurrent acquisitions from several LRCs resolve to exactly one new owner, every member
//! applies the same transfers in the same order, and a log replayed by a new coordinator after a
//! crash cannot grant an attribute twice (the log survives a coordinator takeover; a dead LRC's
//! data stream does not, which is why the transfer itself is not a data message).
//!
//! Who decides. Only the owner's LRC ever asks to move an *owned* attribute (unconditional
//! divestiture, `confirm_divestiture`, divestiture if wanted, unpublishing): acquirers' LRCs send
//! their requests to it ([`OwnershipMsg::Acquire`]) and it asks its federate
//! (`request_attribute_ownership_release`, `request_divestiture_confirmation`). For *unowned*
//! attributes the acquirer's LRC asks the coordinator directly, which grants the first request
//! and refuses the others (their version is stale; they re-route when their view catches up).
//!
//! Old owner before new owner. When the owner's LRC gives attributes up it stops its federate
//! at once (updates fail with `AttributeNotOwned`) and puts a [`DataMsg::HandOver`] in its
//! reliable data stream, behind every update its federate sent with the old version. Updates
//! carry the version of each attribute they were sent with. A receiver accepts an update only
//! if the producer owned every attribute at that version, that version has not been handed over,
//! and every earlier version was handed over (or its owner resigned / was lost). The new owner's
//! first update can overtake the hand-over (another sender's stream, or the decision arriving
//! late): such updates are *held* (bounded) and released in order once the hand-over and the
//! decision arrived, so a third federate reflects all of the old owner's updates, then the new
//! owner's: no interleaving. Updates that can never be accepted are dropped and counted
//! ([`OwnershipState::dropped_updates`]). Released updates are delivered in receive order.
//!
//! Queries. Ownership changes hands at the transfer decision; the old owner stops before it (when
//! it gives the attribute up) and the new owner starts after it (its acquisition notification,
//! once the old owner's updates are in). `query_attribute_ownership` answers by callback, so it
//! is answered behind a read barrier: the LRC sends the coordinator a request with nothing to
//! decide ([`Request::Sync`]) and answers when the reply arrives, which on the coordinator's
//! FIFO link comes after every decision made before the query reached it. If a transfer of
//! that attribute involving a local federate is still under way there (given up and not
//! decided, or decided for a local federate not yet notified), the answer waits for its end.
//! Hence a query made anywhere after the acquirer's notification names the acquirer, a query
//! made after the owner gave the attribute up never names it, and no answer names a local
//! federate whose own updates are refused at that moment (`is_attribute_owned_by_federate`
//! answers at once, from the same state that refuses updates with `AttributeNotOwned`). The
//! cost is one round trip to the coordinator per query.
//!
//! Release denied. When the owner calls `attribute_ownership_release_denied`, the intrusive
//! acquirer gets `attribute_ownership_unavailable` and its request ends (the standard leaves
//! what the acquirer sees open; ending the request means every request ends with a
//! notification, unavailable or a cancellation confirmation).
//!
//! Lost owners. A resigned or lost federate's attributes become unowned (its instances are
//! deleted first if its resign action deletes objects); a federate still waiting for one of
//! them re-routes its request to the coordinator, which grants it. MOM instances do not exist
//! in hlamesh, so `attribute_is_owned_by_rti` is never called.
//!
//! Save/restore: owners and versions are saved with the instances; negotiations in progress are
//! not (a restore ends them without callbacks, like the run they belonged to).

use std::collections::{BTreeMap, BTreeSet};

use crate::error::RtiError;
use crate::fom::PRIVILEGE_TO_DELETE;
use crate::handles::{AttributeHandle, FederateHandle, ObjectInstanceHandle};

use super::wire::{ControlMsg, DataMsg, Decision, OwnershipMsg, Reply, Request};
use super::{Callback, FederationCore, Node, RETRY_US};

type Obj = ObjectInstanceHandle;
type Attr = AttributeHandle;
/// Owner of each version of one attribute that may still have updates in flight, and whether
/// its hand-over arrived.
type VersionOwners = BTreeMap<u32, (Option<FederateHandle>, bool)>;
/// (owner, acquirer, instance, if available).
type OwnerRoute = (FederateHandle, FederateHandle, Obj, bool);
/// A hand-over an LRC sent: (instance, owner, attributes with versions).
pub type SentHandOver = super::wire::HandOverRecord;
/// Hand-overs an LRC remembers for its snapshots.
pub const MAX_SENT_HAND_OVERS: usize = 4096;
/// A new owner waiting for earlier hand-overs: its tag.
type Starting = (FederateHandle, Vec<u8>);

/// Most updates held waiting for a hand-over; more are dropped and counted.
pub const MAX_HELD_UPDATES: usize = 1 << 16;

/// What a receiver does with an update (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Deliver now.
    Accept,
    /// Wait for a hand-over or a transfer decision.
    Hold,
    /// Never acceptable: the producer did not own an attribute when it sent it.
    Drop,
}

/// An acquisition a local federate made.
#[derive(Debug, Clone)]
pub(crate) struct Acquisition {
    pub(crate) if_available: bool,
    pub(crate) tag: Vec<u8>,
    /// (owner, version) the request was last sent for, and when.
    pub(crate) sent: Option<(Option<FederateHandle>, u32, u64)>,
    /// A coordinator request in flight for it.
    pub(crate) req: Option<u64>,
    /// Cancelled, waiting for the confirmation.
    pub(crate) cancel: bool,
}

/// A federate waiting for an attribute a local federate owns.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub(crate) requester: FederateHandle,
    pub(crate) node: Node,
    pub(crate) if_available: bool,
    /// Ownership version the request was made for.
    pub(crate) version: u32,
}

/// Ownership state of one LRC beyond the owners and versions kept with each instance.
#[derive(Debug, Clone, Default)]
pub struct OwnershipState {
    /// Negotiated divestitures of local owners: tag.
    pub(crate) divesting: BTreeMap<(Obj, Attr), Vec<u8>>,
    /// Acquirers waiting for attributes local federates own, in arrival order.
    pub(crate) candidates: BTreeMap<(Obj, Attr), Vec<Candidate>>,
    /// Attributes local federates gave up whose transfer is not decided yet: (new owner,
    /// request id).
    pub(crate) in_flight: BTreeMap<(Obj, Attr), (Option<FederateHandle>, u64)>,
    /// Acquisitions of local federates.
    pub(crate) acquiring: BTreeMap<(FederateHandle, Obj, Attr), Acquisition>,
    /// Owners of versions that may still have updates in flight: version -> (owner, handed
    /// over).
    pub(crate) history: BTreeMap<(Obj, Attr), VersionOwners>,
    /// Transfers decided for instances this LRC does not know yet: (owner, version).
    pub(crate) early: BTreeMap<Obj, BTreeMap<Attr, (Option<FederateHandle>, u32)>>,
    /// Attributes transferred to a local federate whose earlier owners' hand-overs have not
    /// all arrived: it is notified (and may update) once they have: (new owner, tag).
    pub(crate) starting: BTreeMap<(Obj, Attr), Starting>,
    /// Federates lost with their LRC (their versions end without a hand-over).
    pub(crate) lost: BTreeSet<FederateHandle>,
    /// Remote federates that resigned, by LRC: if that LRC is lost before its hand-overs
    /// arrived, they never will, and the resigned federate's versions end as if it was lost.
    pub(crate) resigned_on: BTreeMap<FederateHandle, Node>,
    /// This LRC's latest hand-overs, oldest first (carried in its snapshots).
    pub(crate) sent_hand_overs: std::collections::VecDeque<SentHandOver>,
    /// Acquisition requests made for a version this LRC has not applied yet (the requester saw
    /// the transfer first): handled again after the next transfer or registration.
    pub(crate) early_acquires: Vec<(Node, OwnershipMsg)>,
    /// Updates held for a hand-over: (sender LRC, sequence, message).
    pub(crate) held: Vec<(Node, u64, DataMsg)>,
    /// Offers (7.4) that arrived before the transfer giving their owner those attributes was
    /// applied here (the offer travels in the owner's data, the transfer in the decision log):
    /// asked once the transfer is in. Bounded by [`MAX_HELD_OFFERS`].
    pub(crate) held_offers: Vec<HeldOffer>,
    /// `query_attribute_ownership` calls behind their read barrier: request id -> (federate,
    /// instance, attribute).
    pub(crate) queries: BTreeMap<u64, (FederateHandle, Obj, Attr)>,
    /// Queries past their barrier whose attribute a local transfer still moves; answered when
    /// it ended.
    pub(crate) answerable: Vec<(FederateHandle, Obj, Attr)>,
    /// Updates dropped because their producer did not own an attribute when it sent them.
    pub dropped_updates: u64,
    /// Updates held at least once.
    pub held_updates: u64,
}

/// Largest number of offers held for their transfer.
pub const MAX_HELD_OFFERS: usize = 4096;

/// An offer waiting for the transfer that made its sender the owner.
#[derive(Debug, Clone)]
pub(crate) struct HeldOffer {
    object: Obj,
    owner: FederateHandle,
    attrs: Vec<Attr>,
    versions: Vec<u32>,
    tag: Vec<u8>,
}

impl OwnershipState {
    /// Forgets negotiations in progress (a restore).
    pub(crate) fn reset(&mut self) {
        *self = OwnershipState {
            dropped_updates: self.dropped_updates,
            held_updates: self.held_updates,
            ..Default::default()
        };
    }
}

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
    fn answer_ownership_queries(&mut self) {
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
        if self.ownership.sent_hand_overs.len() >= MAX_SENT_HAND_OVERS {
            self.ownership.sent_hand_overs.pop_front();
        }
        self.ownership
            .sent_hand_overs
            .push_back((o, f, handed.clone()));
        // In the stream behind every update `f` sent with these versions.
        self.send_data(
            true,
            DataMsg::HandOver {
                object: o,
                owner: f,
                attrs: handed,
            },
        );
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
        if let Some(a) = attrs
            .iter()
            .find(|a| Some(**a) != privilege && !lf.decl.publishes(k, **a))
        {
            return Err(RtiError::AttributeNotPublished(format!(
                "federation {}: federate {f} does not publish attribute {a} of the class it knows {o} as",
                self.name
            )));
        }
        if let Some(a) = attrs
            .iter()
            .find(|a| self.objects.get(&o).and_then(|i| i.owner_of(**a)) == Some(f))
        {
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
            let e = self.ownership.acquiring.entry((f, o, *a)).or_insert(
                super::ownership::Acquisition {
                    if_available,
                    tag: tag.to_vec(),
                    sent: None,
                    req: None,
                    cancel: false,
                },
            );
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

    /// Sends each pending acquisition to its authority: the owner's LRC, or the coordinator for
    /// unowned attributes; again when the owner or version changed, and every `RETRY_US`.
    pub(crate) fn pump_ownership(&mut self) {
        self.answer_ownership_queries();
        if !self.admitted || self.replaying || self.ownership.acquiring.is_empty() {
            return;
        }
        let mut to_coordinator: BTreeMap<(FederateHandle, Obj), Vec<(Attr, u32)>> = BTreeMap::new();
        let mut to_owner: BTreeMap<OwnerRoute, Vec<(Attr, u32)>> = BTreeMap::new();
        let mut confirm: BTreeMap<(FederateHandle, Obj), Vec<Attr>> = BTreeMap::new();
        let mut tags: BTreeMap<(FederateHandle, Obj), Vec<u8>> = BTreeMap::new();
        let now = self.now;
        for ((f, o, a), acq) in self.ownership.acquiring.iter_mut() {
            let Some(inst) = self.objects.get(o) else {
                continue;
            };
            let cur = (inst.owner_of(*a), inst.version(*a));
            if acq.cancel {
                // Waiting for the owner's confirmation: if the owner changed meanwhile (it was
                // lost, or gave the attribute to somebody else) nothing more can come.
                if acq.req.is_none()
                    && acq
                        .sent
                        .is_none_or(|(so, sv, _)| (so, sv) != cur && cur.0 != Some(*f))
                {
                    confirm.entry((*f, *o)).or_default().push(*a);
                }
                continue;
            }
            if acq.req.is_some() || cur.0 == Some(*f) {
                continue;
            }
            // An owner's LRC answers once per (owner, version) over a reliable channel: asked
            // again only when that changes (a repeat could be granted after the answer ended
            // the request). The coordinator refuses stale requests: asked again every RETRY_US.
            if let Some((so, sv, at)) = acq.sent
                && (so, sv) == cur
                && (so.is_some() || now.saturating_sub(at) < RETRY_US)
            {
                continue;
            }
            acq.sent = Some((cur.0, cur.1, now));
            match cur.0 {
                None => {
                    to_coordinator
                        .entry((*f, *o))
                        .or_default()
                        .push((*a, cur.1));
                    tags.entry((*f, *o)).or_insert_with(|| acq.tag.clone());
                }
                Some(g) => {
                    to_owner
                        .entry((g, *f, *o, acq.if_available))
                        .or_default()
                        .push((*a, cur.1));
                    tags.entry((*f, *o)).or_insert_with(|| acq.tag.clone());
                }
            }
        }
        for ((f, o), attrs) in confirm {
            for a in &attrs {
                self.ownership.acquiring.remove(&(f, o, *a));
            }
            self.callback(
                f,
                Callback::ConfirmAttributeOwnershipAcquisitionCancellation { object: o, attrs },
            );
        }
        for ((f, o), attrs) in to_coordinator {
            let id = self.next_req;
            for (a, _) in &attrs {
                if let Some(acq) = self.ownership.acquiring.get_mut(&(f, o, *a)) {
                    acq.req = Some(id);
                }
            }
            let tag = tags.get(&(f, o)).cloned().unwrap_or_default();
            self.request(
                Request::Transfer {
                    object: o,
                    attrs,
                    from: None,
                    to: Some(f),
                    tag,
                },
                None,
                false,
            );
        }
        for ((g, f, o, if_available), attrs) in to_owner {
            let Some(node) = self.view.federates.get(&g).map(|r| r.node) else {
                continue;
            };
            let tag = tags.get(&(f, o)).cloned().unwrap_or_default();
            self.send_ownership(
                node,
                OwnershipMsg::Acquire {
                    requester: f,
                    object: o,
                    attrs,
                    if_available,
                    tag,
                },
            );
        }
    }

    fn send_ownership(&mut self, node: Node, msg: OwnershipMsg) {
        if node == self.me {
            self.on_ownership_msg(node, msg);
        } else {
            let epoch = self.epoch;
            self.send_control(node, false, ControlMsg::Ownership { msg, epoch });
        }
    }

    /// An ownership negotiation message from `from`.
    pub(crate) fn on_ownership_msg(&mut self, from: Node, msg: OwnershipMsg) {
        match msg {
            OwnershipMsg::Acquire {
                requester,
                object,
                attrs,
                if_available,
                tag,
            } => self.on_acquire(from, requester, object, attrs, if_available, tag),
            OwnershipMsg::Cancel {
                requester,
                object,
                attrs,
            } => {
                // A request not handled yet (made for a version this LRC had not applied) is
                // cancelled with it.
                for (_, m) in self.ownership.early_acquires.iter_mut() {
                    if let OwnershipMsg::Acquire {
                        requester: r,
                        object: o,
                        attrs: list,
                        ..
                    } = m
                        && *r == requester
                        && *o == object
                    {
                        list.retain(|(a, _)| !attrs.iter().any(|(x, _)| x == a));
                    }
                }
                self.ownership.early_acquires.retain(
                    |(_, m)| !matches!(m, OwnershipMsg::Acquire { attrs, .. } if attrs.is_empty()),
                );
                let mut confirmed = Vec::new();
                for (a, version) in attrs {
                    if let Some(c) = self.ownership.candidates.get_mut(&(object, a)) {
                        c.retain(|x| x.requester != requester);
                    }
                    // Already on its way to the requester: the notification wins. Owned by the
                    // requester only counts at a version after the one it asked for: at that
                    // version or before, this LRC has not applied the transfer away from the
                    // requester yet (it owned the attribute earlier), and staying silent would
                    // leave the cancellation unconfirmed forever.
                    let granted = self
                        .ownership
                        .in_flight
                        .get(&(object, a))
                        .is_some_and(|(to, _)| *to == Some(requester))
                        || self.objects.get(&object).is_some_and(|i| {
                            i.owner_of(a) == Some(requester) && i.version(a) > version
                        });
                    if !granted {
                        confirmed.push((a, version));
                    }
                }
                if !confirmed.is_empty() {
                    self.send_ownership(
                        from,
                        OwnershipMsg::CancelConfirmed {
                            requester,
                            object,
                            attrs: confirmed,
                        },
                    );
                }
            }
            OwnershipMsg::Unavailable {
                requester,
                object,
                attrs,
            } => {
                let ended: Vec<Attr> = attrs
                    .into_iter()
                    .filter(|(a, v)| {
                        self.ownership
                            .acquiring
                            .get(&(requester, object, *a))
                            .is_some_and(|x| {
                                !x.cancel
                                    && x.req.is_none()
                                    && x.sent.is_some_and(|(o, sv, _)| o.is_some() && sv == *v)
                            })
                    })
                    .map(|(a, _)| a)
                    .collect();
                for a in &ended {
                    self.ownership.acquiring.remove(&(requester, object, *a));
                }
                if !ended.is_empty() {
                    self.callback(
                        requester,
                        Callback::AttributeOwnershipUnavailable {
                            object,
                            attrs: ended,
                        },
                    );
                }
            }
            OwnershipMsg::CancelConfirmed {
                requester,
                object,
                attrs,
            } => {
                let ended: Vec<Attr> = attrs
                    .into_iter()
                    .filter(|(a, v)| {
                        self.ownership
                            .acquiring
                            .get(&(requester, object, *a))
                            .is_some_and(|x| {
                                x.cancel
                                    && x.req.is_none()
                                    && x.sent.is_some_and(|(o, sv, _)| o.is_some() && sv == *v)
                            })
                            && self.objects.get(&object).and_then(|i| i.owner_of(*a))
                                != Some(requester)
                    })
                    .map(|(a, _)| a)
                    .collect();
                for a in &ended {
                    self.ownership.acquiring.remove(&(requester, object, *a));
                }
                if !ended.is_empty() {
                    self.callback(
                        requester,
                        Callback::ConfirmAttributeOwnershipAcquisitionCancellation {
                            object,
                            attrs: ended,
                        },
                    );
                }
            }
        }
    }

    fn on_acquire(
        &mut self,
        from: Node,
        requester: FederateHandle,
        object: Obj,
        attrs: Vec<(Attr, u32)>,
        if_available: bool,
        tag: Vec<u8>,
    ) {
        let newer: Vec<(Attr, u32)> = attrs
            .iter()
            .copied()
            .filter(|(a, v)| self.objects.get(&object).is_none_or(|i| *v > i.version(*a)))
            .collect();
        if !newer.is_empty() && self.ownership.early_acquires.len() < MAX_HELD_UPDATES {
            self.ownership.early_acquires.push((
                from,
                OwnershipMsg::Acquire {
                    requester,
                    object,
                    attrs: newer,
                    if_available,
                    tag: tag.clone(),
                },
            ));
        }
        let Some(inst) = self.objects.get(&object) else {
            return;
        };
        let mut confirm: BTreeMap<FederateHandle, Vec<Attr>> = BTreeMap::new();
        let mut release: BTreeMap<FederateHandle, Vec<Attr>> = BTreeMap::new();
        let mut unavailable = Vec::new();
        let mut candidates = Vec::new();
        for (a, version) in attrs {
            // Not ours (any more): the requester re-routes once its view catches up.
            let Some(owner) = inst.owner_of(a) else {
                continue;
            };
            if inst.version(a) != version {
                continue;
            }
            // A hand-over in flight settles ownership soon: the requester asks again when it
            // sees the new version. Unless a snapshot already showed this LRC that version
            // (the owner is the hand-over's target), and the requester asked for it.
            let in_flight = self
                .ownership
                .in_flight
                .get(&(object, a))
                .is_some_and(|(to, _)| *to != Some(owner));
            if !self.locals.contains_key(&owner) || in_flight || owner == requester {
                continue;
            }
            // A new request of the same federate replaces its earlier one.
            if let Some(c) = self.ownership.candidates.get_mut(&(object, a)) {
                c.retain(|x| x.requester != requester);
            }
            let divesting = self.ownership.divesting.contains_key(&(object, a));
            if if_available && !divesting {
                unavailable.push((a, version));
                continue;
            }
            candidates.push((a, owner, divesting, version));
        }
        for (a, owner, divesting, version) in candidates {
            self.ownership
                .candidates
                .entry((object, a))
                .or_default()
                .push(Candidate {
                    requester,
                    node: from,
                    if_available,
                    version,
                });
            if divesting {
                confirm.entry(owner).or_default().push(a);
            } else {
                release.entry(owner).or_default().push(a);
            }
        }
        for (owner, attrs) in confirm {
            self.callback(
                owner,
                Callback::RequestDivestitureConfirmation { object, attrs },
            );
        }
        for (owner, attrs) in release {
            self.callback(
                owner,
                Callback::RequestAttributeOwnershipRelease {
                    object,
                    attrs,
                    tag: tag.clone(),
                },
            );
        }
        if !unavailable.is_empty() {
            self.send_ownership(
                from,
                OwnershipMsg::Unavailable {
                    requester,
                    object,
                    attrs: unavailable,
                },
            );
        }
    }

    /// The coordinator answered a transfer request (after deciding it, or refusing it).
    pub(crate) fn transfer_answered(&mut self, id: u64, body: &Request) {
        let Request::Transfer { object, to, .. } = body else {
            return;
        };
        self.ownership.in_flight.retain(|_, (_, r)| *r != id);
        let Some(f) = *to else { return };
        let mut confirm = Vec::new();
        let now = self.now;
        for ((g, o, a), acq) in self.ownership.acquiring.iter_mut() {
            if *g != f || o != object || acq.req != Some(id) {
                continue;
            }
            acq.req = None;
            if acq.cancel {
                confirm.push(*a);
            } else if let Some(s) = acq.sent.as_mut() {
                // Refused: the coordinator's view differs from ours; asked again when ours
                // changes or after RETRY_US.
                s.2 = now;
            }
        }
        for a in &confirm {
            self.ownership.acquiring.remove(&(f, *object, *a));
        }
        if !confirm.is_empty() {
            self.callback(
                f,
                Callback::ConfirmAttributeOwnershipAcquisitionCancellation {
                    object: *object,
                    attrs: confirm,
                },
            );
        }
    }

    // ----- the coordinator -----

    /// Decides a transfer if every attribute still has the owner and version the requester saw.
    pub(crate) fn decide_transfer(
        &mut self,
        req: (u64, u64),
        object: Obj,
        attrs: Vec<(Attr, u32)>,
        from: Option<FederateHandle>,
        to: Option<FederateHandle>,
        tag: Vec<u8>,
    ) -> Option<Reply> {
        // Not registered here yet: the requester retries.
        let inst = self.objects.get(&object)?;
        // An acquirer that left meanwhile gets nothing: the attribute becomes unowned.
        let to = to.filter(|t| self.view.federates.contains_key(t));
        let ok: Vec<(Attr, u32)> = attrs
            .into_iter()
            .filter(|(a, v)| inst.version(*a) == *v && inst.owner_of(*a) == from)
            .map(|(a, v)| (a, v + 1))
            .collect();
        if !ok.is_empty() && (from.is_some() || to.is_some()) {
            self.decide(Decision::Transfer {
                object,
                attrs: ok,
                from,
                to,
                tag,
                req,
            });
        }
        Some(Reply::Done)
    }

    // ----- every member -----

    /// Applies a transfer decision.
    pub(crate) fn apply_transfer(&mut self, d: &Decision) {
        let Decision::Transfer {
            object,
            attrs,
            from,
            to,
            tag,
            ..
        } = d
        else {
            return;
        };
        let object = *object;
        let replaying = self.replaying;
        let mut applied = Vec::new();
        match self.objects.get_mut(&object) {
            Some(inst) => {
                for (a, v) in attrs {
                    if *v == inst.version(*a) && inst.owner_of(*a) == *to && to.is_some() {
                        // A snapshot brought this state first: the decision still ends the
                        // new owner's request here.
                        applied.push(*a);
                        continue;
                    }
                    if *v <= inst.version(*a) {
                        continue;
                    }
                    if !replaying {
                        // The owner of the version that ends is the one this LRC knows when
                        // it knows that version: a resignation decided before this transfer
                        // may still wait here for the resigner's last updates (see
                        // `resignation`), which must not be dropped as an unowned version's.
                        let prev = if inst.version(*a) + 1 == *v {
                            inst.owner_of(*a).or(*from)
                        } else {
                            *from
                        };
                        let h = self.ownership.history.entry((object, *a)).or_default();
                        h.entry(v - 1).or_insert((prev, false));
                        h.entry(*v).or_insert((*to, false));
                    }
                    match to {
                        Some(t) => inst.owners.insert(*a, *t),
                        None => inst.owners.remove(a),
                    };
                    inst.versions.insert(*a, *v);
                    applied.push(*a);
                }
            }
            None => {
                let e = self.ownership.early.entry(object).or_default();
                for (a, v) in attrs {
                    if e.get(a).is_none_or(|(_, x)| x < v) {
                        e.insert(*a, (*to, *v));
                    }
                }
            }
        }
        for a in &applied {
            self.ownership.in_flight.remove(&(object, *a));
            self.ownership.divesting.remove(&(object, *a));
            self.ownership.candidates.remove(&(object, *a));
        }
        for a in &applied {
            self.ownership.starting.remove(&(object, *a));
        }
        if let Some(t) = to
            && self.locals.contains_key(t)
            && !applied.is_empty()
            && self.resign_pending(*t)
        {
            // Decided before the resignation but applied here after the federate resigned: its
            // resignation's hand-overs did not include these, and it will never update them.
            // Hand them over now, or the next owner would wait for this version forever.
            let inst = self.objects.get(&object);
            let attrs: Vec<(Attr, u32)> = applied
                .iter()
                .map(|a| (*a, inst.map_or(0, |i| i.version(*a))))
                .collect();
            for a in &applied {
                self.ownership.acquiring.remove(&(*t, object, *a));
            }
            self.send_hand_over(object, *t, attrs);
        } else if let Some(t) = to
            && self.locals.contains_key(t)
            && !applied.is_empty()
        {
            for a in &applied {
                self.ownership.acquiring.remove(&(*t, object, *a));
                // The new owner starts once every earlier owner's updates are in: it never
                // reflects an old owner's value after sending its own.
                self.ownership
                    .starting
                    .insert((object, *a), (*t, tag.clone()));
            }
        }
        self.prune_history(object);
        self.release_held();
        self.release_held_offers(object);
        self.retry_early_acquires();
        if !applied.is_empty() {
            // Relevance and scope advisories follow the owners.
            self.advise_instance(object);
        }
    }

    fn retry_early_acquires(&mut self) {
        for (from, msg) in std::mem::take(&mut self.ownership.early_acquires) {
            self.on_ownership_msg(from, msg);
        }
    }

    /// Notifies local new owners whose earlier owners all handed over.
    fn start_owners(&mut self) {
        if self.ownership.starting.is_empty() {
            return;
        }
        let ready: Vec<((Obj, Attr), Starting)> = self
            .ownership
            .starting
            .iter()
            .filter(|((o, a), _)| {
                let v = self.objects.get(o).map_or(0, |i| i.version(*a));
                self.all_over_before(*o, *a, v)
            })
            .map(|(k, v)| (*k, v.clone()))
            .collect();
        let mut notify: BTreeMap<(FederateHandle, Obj, Vec<u8>), Vec<Attr>> = BTreeMap::new();
        for ((o, a), (f, tag)) in ready {
            self.ownership.starting.remove(&(o, a));
            notify.entry((f, o, tag)).or_default().push(a);
        }
        for ((f, object, tag), attrs) in notify {
            self.callback(
                f,
                Callback::AttributeOwnershipAcquisitionNotification { object, attrs, tag },
            );
        }
    }

    fn all_over_before(&self, object: Obj, a: Attr, v: u32) -> bool {
        self.ownership
            .history
            .get(&(object, a))
            .is_none_or(|h| h.range(..v).all(|(w, _)| self.version_over(object, a, *w)))
    }

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
        if self.replaying {
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

    /// Hands over everything `f` owns, in the data stream before its resignation request.
    pub(crate) fn hand_over_all(&mut self, f: FederateHandle) {
        let list: Vec<(Obj, Vec<(Attr, u32)>)> = self
            .objects
            .iter()
            .filter_map(|(o, i)| {
                let a: Vec<(Attr, u32)> = i
                    .owned_by(f)
                    .into_iter()
                    .map(|a| (a, i.version(a)))
                    .collect();
                (!a.is_empty()).then_some((*o, a))
            })
            .collect();
        for (object, attrs) in list {
            self.send_hand_over(object, f, attrs);
        }
    }

    /// Puts a hand-over in this LRC's reliable stream and remembers it for snapshots.
    fn send_hand_over(&mut self, object: Obj, owner: FederateHandle, attrs: Vec<(Attr, u32)>) {
        if self.ownership.sent_hand_overs.len() >= MAX_SENT_HAND_OVERS {
            self.ownership.sent_hand_overs.pop_front();
        }
        self.ownership
            .sent_hand_overs
            .push_back((object, owner, attrs.clone()));
        self.send_data(
            true,
            DataMsg::HandOver {
                object,
                owner,
                attrs,
            },
        );
    }

    /// Whether local federate `f` asked to resign and the decision has not been applied yet.
    fn resign_pending(&self, f: FederateHandle) -> bool {
        self.pending
            .values()
            .any(|p| matches!(p.body, Request::Resign(h, ..) if h == f))
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

    /// A hand-over in `owner`'s LRC's stream (held behind that stream's held updates).
    pub(crate) fn on_hand_over(
        &mut self,
        from: Node,
        seq: u64,
        object: Obj,
        owner: FederateHandle,
        attrs: Vec<(Attr, u32)>,
    ) {
        if self.has_held(from, owner, object) {
            self.ownership.held.push((
                from,
                seq,
                DataMsg::HandOver {
                    object,
                    owner,
                    attrs,
                },
            ));
            return;
        }
        self.mark_handed_over(object, owner, attrs);
        self.release_held();
    }

    /// Hand-overs carried by a snapshot (all before its high-water mark).
    pub(crate) fn hand_overs_from_snapshot(&mut self, list: Vec<SentHandOver>) {
        for (object, owner, attrs) in list {
            self.mark_handed_over(object, owner, attrs);
        }
        self.release_held();
    }

    fn mark_handed_over(&mut self, object: Obj, owner: FederateHandle, attrs: Vec<(Attr, u32)>) {
        for (a, v) in attrs {
            let h = self.ownership.history.entry((object, a)).or_default();
            let e = h.entry(v).or_insert((Some(owner), true));
            e.1 = true;
        }
        self.prune_history(object);
    }

    /// A negotiated divestiture was announced: local federates that publish the attributes and
    /// know the instance are asked to assume them (7.4).
    pub(crate) fn on_offer(
        &mut self,
        object: Obj,
        owner: FederateHandle,
        attrs: Vec<Attr>,
        versions: Vec<u32>,
        tag: Vec<u8>,
    ) {
        let Some(inst) = self.objects.get(&object) else {
            return;
        };
        // Compared with the versions this LRC applied: newer ones wait for their transfer,
        // older ones were offered by an owner that has lost them since.
        let mut current = Vec::new();
        for (i, a) in attrs.iter().enumerate() {
            let v = versions.get(i).copied().unwrap_or(0);
            match v.cmp(&inst.version(*a)) {
                std::cmp::Ordering::Greater => {
                    if self.ownership.held_offers.len() < MAX_HELD_OFFERS {
                        self.ownership.held_offers.push(HeldOffer {
                            object,
                            owner,
                            attrs,
                            versions,
                            tag,
                        });
                    }
                    return;
                }
                std::cmp::Ordering::Equal => current.push(*a),
                std::cmp::Ordering::Less => {}
            }
        }
        let attrs = current;
        let asked: Vec<(FederateHandle, Vec<Attr>)> = self
            .locals
            .iter()
            .filter(|(f, _)| **f != owner)
            .filter_map(|(f, lf)| {
                let k = lf.known.get(&object)?;
                let a: Vec<Attr> = attrs
                    .iter()
                    .copied()
                    .filter(|a| lf.decl.publishes(*k, *a))
                    .collect();
                (!a.is_empty()).then_some((*f, a))
            })
            .collect();
        for (f, attrs) in asked {
            self.callback(
                f,
                Callback::RequestAttributeOwnershipAssumption {
                    object,
                    attrs,
                    tag: tag.clone(),
                },
            );
        }
    }

    /// Asks again the offers on `object` held for a transfer (some may still wait; offers on
    /// instances that are gone are dropped).
    fn release_held_offers(&mut self, object: Obj) {
        if self.ownership.held_offers.is_empty() {
            return;
        }
        let known = &self.objects;
        self.ownership
            .held_offers
            .retain(|h| known.contains_key(&h.object));
        let (ready, wait): (Vec<HeldOffer>, Vec<HeldOffer>) =
            std::mem::take(&mut self.ownership.held_offers)
                .into_iter()
                .partition(|h| h.object == object);
        self.ownership.held_offers = wait;
        for h in ready {
            self.on_offer(h.object, h.owner, h.attrs, h.versions, h.tag);
        }
    }

    fn prune_history(&mut self, object: Obj) {
        let keys: Vec<(Obj, Attr)> = self
            .ownership
            .history
            .range((object, AttributeHandle(0))..)
            .take_while(|((o, _), _)| *o == object)
            .map(|(k, _)| *k)
            .collect();
        for k in keys {
            let cur = self.objects.get(&object).map_or(0, |i| i.version(k.1));
            if let Some(h) = self.ownership.history.get_mut(&k) {
                // Versions before the current one that ended need no memory; the first one
                // still open keeps itself and everything after it.
                let open = h
                    .iter()
                    .find(|(v, (o, done))| **v < cur && !*done && o.is_some())
                    .map(|(v, _)| *v);
                let keep_from = open.unwrap_or(cur);
                h.retain(|v, _| *v >= keep_from);
                if h.is_empty() {
                    self.ownership.history.remove(&k);
                }
            }
        }
    }

    fn version_over(&self, object: Obj, a: Attr, v: u32) -> bool {
        match self
            .ownership
            .history
            .get(&(object, a))
            .and_then(|h| h.get(&v))
        {
            Some((None, _)) | None => true,
            // A resigning federate's LRC hands over before its resignation; a lost one's data
            // stream is gone.
            Some((Some(o), done)) => *done || self.ownership.lost.contains(o),
        }
    }

    /// Whether an update of `producer` carrying these versions may be delivered.
    pub(crate) fn update_verdict(
        &self,
        object: Obj,
        producer: FederateHandle,
        values: &[(Attr, Vec<u8>)],
        versions: &[u32],
    ) -> Verdict {
        let Some(inst) = self.objects.get(&object) else {
            return Verdict::Accept; // nothing to reflect: dropped by the caller
        };
        let mut verdict = Verdict::Accept;
        for (i, (a, _)) in values.iter().enumerate() {
            let w = versions.get(i).copied().unwrap_or(0);
            let cur = inst.version(*a);
            if w > cur {
                verdict = Verdict::Hold;
                continue;
            }
            let hist = self.ownership.history.get(&(object, *a));
            let owner_then = if w == cur {
                // A resigned owner's updates sent before its resignation still count.
                inst.owner_of(*a)
                    .or_else(|| hist.and_then(|h| h.get(&w)).and_then(|(o, _)| *o))
            } else {
                hist.and_then(|h| h.get(&w)).and_then(|(o, _)| *o)
            };
            if owner_then != Some(producer) {
                return Verdict::Drop;
            }
            if hist.and_then(|h| h.get(&w)).is_some_and(|(_, done)| *done) {
                return Verdict::Drop;
            }
            if !self.all_over_before(object, *a, w) {
                verdict = Verdict::Hold;
            }
        }
        verdict
    }

    /// Whether an update of `producer` about `object` from `from`'s stream is held.
    pub(crate) fn has_held(&self, from: Node, producer: FederateHandle, object: Obj) -> bool {
        self.ownership.held.iter().any(|(n, _, m)| {
            *n == from
                && match m {
                    DataMsg::Update {
                        object: o,
                        producer: p,
                        ..
                    }
                    | DataMsg::HandOver {
                        object: o,
                        owner: p,
                        ..
                    } => *o == object && *p == producer,
                    _ => false,
                }
        })
    }

    /// Holds an update until its hand-over or transfer arrived.
    pub(crate) fn hold_update(&mut self, from: Node, seq: u64, msg: DataMsg) {
        if self.ownership.held.len() >= MAX_HELD_UPDATES {
            self.ownership.dropped_updates += 1;
            return;
        }
        self.ownership.held_updates += 1;
        self.ownership.held.push((from, seq, msg));
    }

    /// Delivers held updates that became acceptable, in arrival order (hand-overs held behind
    /// them take effect when reached), until nothing more moves.
    pub(crate) fn release_held(&mut self) {
        self.start_owners();
        let mut passes = 0;
        while !self.ownership.held.is_empty() && passes < 64 {
            passes += 1;
            if !self.release_pass() {
                break;
            }
            self.start_owners();
        }
    }

    /// One pass over the held messages; whether any left the queue.
    fn release_pass(&mut self) -> bool {
        let held = std::mem::take(&mut self.ownership.held);
        let before = held.len();
        let mut keep = Vec::new();
        // Once one message of a stream stays held, its later ones about the same instance and
        // producer stay too (order).
        let mut blocked: BTreeSet<(Node, FederateHandle, Obj)> = BTreeSet::new();
        for (from, seq, msg) in held {
            match msg {
                DataMsg::HandOver {
                    object,
                    owner,
                    attrs,
                } => {
                    if blocked.contains(&(from, owner, object)) {
                        keep.push((
                            from,
                            seq,
                            DataMsg::HandOver {
                                object,
                                owner,
                                attrs,
                            },
                        ));
                    } else {
                        self.mark_handed_over(object, owner, attrs);
                    }
                }
                DataMsg::Update {
                    object,
                    producer,
                    values,
                    tag,
                    time,
                    tso: _,
                    versions,
                } => {
                    let key = (from, producer, object);
                    let verdict = if blocked.contains(&key) {
                        Verdict::Hold
                    } else {
                        self.update_verdict(object, producer, &values, &versions)
                    };
                    match verdict {
                        Verdict::Accept => {
                            let mut served = Vec::new();
                            self.reflect_update(
                                object,
                                producer,
                                values,
                                tag,
                                time,
                                false,
                                seq,
                                &mut served,
                                true,
                            );
                        }
                        Verdict::Drop => self.ownership.dropped_updates += 1,
                        Verdict::Hold => {
                            blocked.insert(key);
                            keep.push((
                                from,
                                seq,
                                DataMsg::Update {
                                    object,
                                    producer,
                                    values,
                                    tag,
                                    time,
                                    tso: false,
                                    versions,
                                },
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
        let moved = keep.len() < before;
        // Anything that arrived while delivering stays behind what was held before.
        keep.append(&mut self.ownership.held);
        self.ownership.held = keep;
        moved
    }

    /// Checks a resignation against what the federate still owns or acquires (4.10).
    pub(crate) fn check_resign(
        &self,
        f: FederateHandle,
        action: super::wire::ResignAction,
    ) -> Result<(), RtiError> {
        use super::wire::ResignAction as R;
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
            let owns = self.objects.iter().any(|(_, i)| {
                if !i.owned_by_any(f) {
                    return false;
                }
                if !action.deletes_objects() {
                    return true;
                }
                // Deleted with the privilege; attributes of instances it cannot delete stay.
                let privilege = fdd
                    .as_ref()
                    .and_then(|d| d.attribute_handle(i.class, PRIVILEGE_TO_DELETE).ok());
                privilege.is_none_or(|p| i.owner_of(p) != Some(f))
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
