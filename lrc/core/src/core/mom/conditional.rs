//! The MIM's conditional updates: an attribute of `HLAfederate` or `HLAfederation` whose
//! update type the FDD says is `Conditional` (time regulating and constrained, asynchronous
//! delivery, federate state, time manager state, the switches; the federation's federates,
//! FOM modules, current FDD, last and next save) is sent by its maintainer when its value
//! changes, not only at the `HLAsetTiming` period or on request.
//!
//! # How a change is found
//!
//! The MIM names the services after which each one changes; rather than a hook in each of
//! those services (and each MOM `HLAservice` that performs them), the maintainer compares,
//! at every poll of the core's actions, the current value of each *watched* conditional
//! attribute of the instances it maintains with the last value it sent of it, and sends
//! those that differ, in one update per instance. Every send of a MOM instance's values
//! (the join's first values, a request's answer, a periodic update, a switch change)
//! records what it sent, so nothing goes twice. A state entered and left within one step of
//! the core (a time advance request granted at once) is therefore never sent: a monitor sees
//! the states that last past a poll, and always the latest one.
//!
//! # What it costs
//!
//! An attribute is *watched* while some federate of the federation subscribes to it
//! (actively or passively) at its class or a superclass; the watched sets are recomputed at
//! every change of the subscriptions this LRC knows (`interest_changed`). While nothing is
//! watched, which is the case in every federation without a MOM monitor, a poll costs one
//! test of two empty sets, and no update is sent. A monitor that subscribes to, say,
//! `HLAtimeManagerState` of a lockstep federation gets about two updates per federate and
//! step, which is what it asked for.
//!
//! A new voice of the federation (after a takeover) has no record of what the former voice
//! sent, so it sends each watched conditional attribute of `HLAfederation` once.

use std::collections::{BTreeMap, BTreeSet};

use crate::fom::{Fdd, UpdateType};
use crate::handles::{AttributeHandle, ObjectClassHandle, ObjectInstanceHandle};

use super::super::FederationCore;
use super::super::declarations::object_class_is_a;
use super::{federate_instance, federation_instance};

/// The conditional attributes watched and the last value sent of each.
#[derive(Debug, Default)]
pub(crate) struct Conditional {
    /// Conditional attributes of `HLAfederate` some federate subscribes to.
    federate: Vec<AttributeHandle>,
    /// Conditional attributes of `HLAfederation` some federate subscribes to.
    federation: Vec<AttributeHandle>,
    /// The last value this LRC sent of each conditional attribute of the instances it
    /// maintains.
    sent: BTreeMap<(ObjectInstanceHandle, AttributeHandle), Vec<u8>>,
}

/// The attributes of `class` (its own and inherited) whose update type is `Conditional`.
pub(super) fn conditional_attributes(
    fdd: &Fdd,
    class: ObjectClassHandle,
) -> BTreeSet<AttributeHandle> {
    fdd.available_attributes(class)
        .unwrap_or_default()
        .into_iter()
        .filter(|a| {
            fdd.attribute(class, *a)
                .is_ok_and(|x| x.decl.update_type == Some(UpdateType::Conditional))
        })
        .collect()
}

impl FederationCore {
    /// The subscriptions known here changed: which conditional attributes are watched now.
    pub(crate) fn mom_interest_changed(&mut self) {
        let Some(fdd) = self.fdd.clone() else {
            return;
        };
        let Some(m) = self.mom_handles() else {
            return;
        };
        let (federate, federation) = (m.federate, m.federation);
        let (cond_federate, cond_federation) = (
            m.conditional_federate.clone(),
            m.conditional_federation.clone(),
        );
        let mut watched_federate = BTreeSet::new();
        let mut watched_federation = BTreeSet::new();
        for ri in self.interest.values() {
            for (c, s) in &ri.subscriptions {
                if object_class_is_a(&fdd, federate, *c) {
                    watched_federate.extend(s.attrs.intersection(&cond_federate).copied());
                }
                if object_class_is_a(&fdd, federation, *c) {
                    watched_federation.extend(s.attrs.intersection(&cond_federation).copied());
                }
            }
        }
        let c = &mut self.mom.conditional;
        c.federate = watched_federate.into_iter().collect();
        c.federation = watched_federation.into_iter().collect();
    }

    /// Values of MOM instance `o` were sent: the conditional ones are remembered.
    pub(super) fn mom_note_sent(
        &mut self,
        o: ObjectInstanceHandle,
        values: &[(AttributeHandle, Vec<u8>)],
    ) {
        let Some(m) = self.mom.handles.as_ref() else {
            return;
        };
        let conditional = if o == federation_instance() {
            &m.conditional_federation
        } else {
            &m.conditional_federate
        };
        for (a, v) in values {
            if conditional.contains(a) {
                self.mom.conditional.sent.insert((o, *a), v.clone());
            }
        }
    }

    /// Instance `o` is gone here: what was sent of it is forgotten.
    pub(super) fn mom_forget_sent(&mut self, o: ObjectInstanceHandle) {
        self.mom.conditional.sent.retain(|(x, _), _| *x != o);
    }

    /// Sends the watched conditional attributes that changed since they were last sent, for
    /// each instance this LRC maintains (see the module docs).
    pub(super) fn mom_send_conditional(&mut self) {
        let c = &self.mom.conditional;
        if c.federate.is_empty() && c.federation.is_empty() {
            return;
        }
        let watched_federate = c.federate.clone();
        let watched_federation = c.federation.clone();
        if !watched_federate.is_empty() {
            let locals: Vec<_> = self.locals.keys().copied().collect();
            for f in locals {
                let o = federate_instance(f);
                // Not registered yet (before the join's first values): nothing to update.
                if !self.objects.contains_key(&o) {
                    continue;
                }
                let values = self.mom_federate_values(f, Some(&watched_federate));
                self.mom_send_changed(o, values);
            }
        }
        if !watched_federation.is_empty()
            && self.mom_voice().is_some_and(|(_, node)| node == self.me)
            && self.objects.contains_key(&federation_instance())
        {
            let values = self.mom_federation_values(Some(&watched_federation));
            self.mom_send_changed(federation_instance(), values);
        }
    }

    /// Sends those of `values` (of MOM instance `o`) that differ from what was last sent.
    fn mom_send_changed(
        &mut self,
        o: ObjectInstanceHandle,
        values: Vec<(AttributeHandle, Vec<u8>)>,
    ) {
        let sent = &self.mom.conditional.sent;
        let changed: Vec<_> = values
            .into_iter()
            .filter(|(a, v)| sent.get(&(o, *a)) != Some(v))
            .collect();
        if changed.is_empty() {
            return;
        }
        if let Some(producer) = self.mom_producer(o) {
            self.mom_send_values(o, producer, changed, Vec::new());
        }
    }
}
