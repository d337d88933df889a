//! How an attribute changes hands between LRCs: acquisition requests sent to the owner's LRC
//! ([`OwnershipMsg::Acquire`]) or, for unowned attributes, to the coordinator; the owner LRC's
//! answers; offers of a negotiated divestiture (7.4) in the owner's data; the coordinator's
//! [`Decision::Transfer`] and how every member applies it.

use std::collections::BTreeMap;

use crate::core::wire::{ControlMsg, Decision, OwnershipMsg, Reply, Request};
use crate::core::{Callback, FederationCore, Node, RETRY_US};
use crate::handles::FederateHandle;

use super::{Attr, Candidate, HeldOffer, MAX_HELD_OFFERS, MAX_HELD_UPDATES, Obj, OwnerRoute};

impl FederationCore {
    /// Sends each pending acquisition to its authority: the owner's LRC, or the coordinator for
    /// unowned attributes; again when the owner or version changed, and every `RETRY_US`.
    pub(crate) fn pump_ownership(&mut self) {
        self.answer_ownership_queries();
        if !self.phase.is_admitted()
            || self.phase.is_replaying()
            || self.ownership.acquiring.is_empty()
        {
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
                    silent: false,
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

    pub(super) fn send_ownership(&mut self, node: Node, msg: OwnershipMsg) {
        if node == self.me {
            self.on_ownership_msg(node, msg);
        } else {
            let epoch = self.restore.epoch();
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
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn decide_transfer(
        &mut self,
        req: (u64, u64),
        object: Obj,
        attrs: Vec<(Attr, u32)>,
        from: Option<FederateHandle>,
        to: Option<FederateHandle>,
        tag: Vec<u8>,
        silent: bool,
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
                silent,
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
            silent,
            ..
        } = d
        else {
            return;
        };
        let object = *object;
        let replaying = self.phase.is_replaying();
        let mut applied = Vec::new();
        // A transfer the MOM made (`HLAmodifyAttributeState`) takes the attribute from a local
        // owner that did not give it up: its LRC hands the owner's version over here, behind
        // every update it sent with it (one it gave up meanwhile was handed over already).
        let mut taken: Vec<(Attr, u32)> = Vec::new();
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
                    if *silent
                        && !replaying
                        && let Some(x) = *from
                        && self.locals.contains_key(&x)
                        && inst.owner_of(*a) == Some(x)
                        && inst.version(*a) + 1 == *v
                        && !self.ownership.in_flight.contains_key(&(object, *a))
                    {
                        taken.push((*a, inst.version(*a)));
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
                        self.ownership.record_transfer(object, *a, *v, prev, *to);
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
        if let (Some(x), false) = (*from, taken.is_empty()) {
            self.send_hand_over(object, x, taken);
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
                let notify = (!*silent).then(|| tag.clone());
                self.ownership.starting.insert((object, *a), (*t, notify));
            }
        }
        self.ownership
            .prune_history(object, self.objects.get(&object));
        self.release_held();
        self.release_held_offers(object);
        self.retry_early_acquires();
        if !applied.is_empty() {
            // Relevance and scope advisories follow the owners.
            self.advise_instance(object);
        }
    }

    /// Whether local federate `f` asked to resign and the decision has not been applied yet.
    fn resign_pending(&self, f: FederateHandle) -> bool {
        self.pending
            .values()
            .any(|p| matches!(p.body, Request::Resign(h, ..) if h == f))
    }

    pub(super) fn retry_early_acquires(&mut self) {
        for (from, msg) in std::mem::take(&mut self.ownership.early_acquires) {
            self.on_ownership_msg(from, msg);
        }
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
}
