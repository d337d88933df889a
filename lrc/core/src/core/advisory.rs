//! Relevance and scope advisories and the four advisory switches (IEEE 1516-2010 5.10–5.13,
//! 6.17/6.18, 6.21/6.22, 10.33–10.40).
//!
//! Each local federate has its own switches, initialised from the FDD's `switches` at join (the
//! standard MIM turns the two class-level ones on and the two instance-level ones off) and
//! changed by the enable/disable services. The core keeps, per federate, what the federate was
//! last *told* (classes registration was started for, interaction classes turned on, instance
//! attributes whose updates were turned on, instance attributes in scope) and recomputes the
//! truth from declarations, known instances and owners whenever one of them changes; the
//! difference becomes callbacks. While a switch is off the told set is frozen, so enabling it
//! later reports exactly what changed since the federate last heard.
//!
//! Semantics (DDM narrows the instance-level advisories, see [`super::regions`]):
//! - start/stop registration for class C: some *other* federate actively subscribes, at C or a
//!   superclass, to an attribute this federate publishes for C;
//! - turn updates on/off for (instance, attributes): among the attributes this federate owns,
//!   those some other federate actively subscribes to at the instance's class or a superclass,
//!   where it subscribes with regions only if one of them overlaps one of the attribute's
//!   update regions (no update region: the default region, which overlaps every region);
//! - attributes in/out of scope for (instance, attributes): among the attributes a federate
//!   subscribes to at the class it knows the instance as, those owned by *another* federate
//!   and, where it subscribes with regions, whose update regions overlap them;
//! - turn interactions on/off: some other federate actively subscribes to the class or a
//!   superclass.
//!
//! Cost: the class-level pass runs when declarations or membership change; the instance-level
//! pass visits every instance only for federates that turned an instance-level switch on.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::declarations::{interaction_class_is_a, object_class_is_a};
use super::regions::relevant_in_regions;
use super::{Callback, FederationCore};
use crate::error::RtiError;
use crate::fom::Fdd;
use crate::handles::{
    AttributeHandle, FederateHandle, InteractionClassHandle, ObjectClassHandle,
    ObjectInstanceHandle,
};

/// One of the four advisory switches a federate can change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdvisorySwitch {
    /// `startRegistrationForObjectClass` / `stopRegistrationForObjectClass`.
    ObjectClassRelevance,
    /// `turnUpdatesOnForObjectInstance` / `turnUpdatesOffForObjectInstance`.
    AttributeRelevance,
    /// `attributesInScope` / `attributesOutOfScope`.
    AttributeScope,
    /// `turnInteractionsOn` / `turnInteractionsOff`.
    InteractionRelevance,
}

impl AdvisorySwitch {
    /// The switch's element name in the FDD.
    pub fn fdd_name(self) -> &'static str {
        match self {
            AdvisorySwitch::ObjectClassRelevance => "objectClassRelevanceAdvisory",
            AdvisorySwitch::AttributeRelevance => "attributeRelevanceAdvisory",
            AdvisorySwitch::AttributeScope => "attributeScopeAdvisory",
            AdvisorySwitch::InteractionRelevance => "interactionRelevanceAdvisory",
        }
    }

    /// Default when no FOM module sets it (the values of the standard MIM).
    fn default_on(self) -> bool {
        matches!(
            self,
            AdvisorySwitch::ObjectClassRelevance | AdvisorySwitch::InteractionRelevance
        )
    }

    fn error(self, on: bool, msg: String) -> RtiError {
        match (self, on) {
            (AdvisorySwitch::ObjectClassRelevance, true) => {
                RtiError::ObjectClassRelevanceAdvisorySwitchIsOn(msg)
            }
            (AdvisorySwitch::ObjectClassRelevance, false) => {
                RtiError::ObjectClassRelevanceAdvisorySwitchIsOff(msg)
            }
            (AdvisorySwitch::AttributeRelevance, true) => {
                RtiError::AttributeRelevanceAdvisorySwitchIsOn(msg)
            }
            (AdvisorySwitch::AttributeRelevance, false) => {
                RtiError::AttributeRelevanceAdvisorySwitchIsOff(msg)
            }
            (AdvisorySwitch::AttributeScope, true) => {
                RtiError::AttributeScopeAdvisorySwitchIsOn(msg)
            }
            (AdvisorySwitch::AttributeScope, false) => {
                RtiError::AttributeScopeAdvisorySwitchIsOff(msg)
            }
            (AdvisorySwitch::InteractionRelevance, true) => {
                RtiError::InteractionRelevanceAdvisorySwitchIsOn(msg)
            }
            (AdvisorySwitch::InteractionRelevance, false) => {
                RtiError::InteractionRelevanceAdvisorySwitchIsOff(msg)
            }
        }
    }
}

/// A federate's advisory switches (saved and restored with it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdvisorySwitches {
    /// Object class relevance.
    pub object_class_relevance: bool,
    /// Attribute relevance.
    pub attribute_relevance: bool,
    /// Attribute scope.
    pub attribute_scope: bool,
    /// Interaction relevance.
    pub interaction_relevance: bool,
}

impl Default for AdvisorySwitches {
    fn default() -> Self {
        AdvisorySwitches {
            object_class_relevance: AdvisorySwitch::ObjectClassRelevance.default_on(),
            attribute_relevance: AdvisorySwitch::AttributeRelevance.default_on(),
            attribute_scope: AdvisorySwitch::AttributeScope.default_on(),
            interaction_relevance: AdvisorySwitch::InteractionRelevance.default_on(),
        }
    }
}

impl AdvisorySwitches {
    /// The FDD's settings (first module that sets a switch wins; unset ones as in the MIM).
    pub fn from_fdd(fdd: &Fdd) -> Self {
        let read = |s: AdvisorySwitch| {
            fdd.switch(s.fdd_name()).map_or(s.default_on(), |v| {
                !v.eq_ignore_ascii_case("disabled") && !v.eq_ignore_ascii_case("false")
            })
        };
        AdvisorySwitches {
            object_class_relevance: read(AdvisorySwitch::ObjectClassRelevance),
            attribute_relevance: read(AdvisorySwitch::AttributeRelevance),
            attribute_scope: read(AdvisorySwitch::AttributeScope),
            interaction_relevance: read(AdvisorySwitch::InteractionRelevance),
        }
    }

    /// The state of one switch.
    pub fn get(&self, s: AdvisorySwitch) -> bool {
        match s {
            AdvisorySwitch::ObjectClassRelevance => self.object_class_relevance,
            AdvisorySwitch::AttributeRelevance => self.attribute_relevance,
            AdvisorySwitch::AttributeScope => self.attribute_scope,
            AdvisorySwitch::InteractionRelevance => self.interaction_relevance,
        }
    }

    fn set(&mut self, s: AdvisorySwitch, on: bool) {
        match s {
            AdvisorySwitch::ObjectClassRelevance => self.object_class_relevance = on,
            AdvisorySwitch::AttributeRelevance => self.attribute_relevance = on,
            AdvisorySwitch::AttributeScope => self.attribute_scope = on,
            AdvisorySwitch::InteractionRelevance => self.interaction_relevance = on,
        }
    }

    fn instance_level(&self) -> bool {
        self.attribute_relevance || self.attribute_scope
    }
}

/// What one federate was last told, and its switches.
#[derive(Debug, Clone, Default)]
pub struct Advice {
    /// Switches.
    pub switches: AdvisorySwitches,
    /// Classes registration was started for.
    pub registration_on: BTreeSet<ObjectClassHandle>,
    /// Interaction classes turned on.
    pub interactions_on: BTreeSet<InteractionClassHandle>,
    /// Instance attributes whose updates were turned on.
    pub updates_on: BTreeMap<ObjectInstanceHandle, BTreeSet<AttributeHandle>>,
    /// Instance attributes reported in scope.
    pub in_scope: BTreeMap<ObjectInstanceHandle, BTreeSet<AttributeHandle>>,
}

impl Advice {
    /// Fresh advice state with the FDD's switches.
    pub fn new(fdd: Option<&Fdd>) -> Self {
        Advice {
            switches: fdd.map(AdvisorySwitches::from_fdd).unwrap_or_default(),
            ..Default::default()
        }
    }
}

type AttrMap = BTreeMap<ObjectInstanceHandle, BTreeSet<AttributeHandle>>;

impl FederationCore {
    /// 10.33–10.40: turns one of federate `f`'s advisory switches on or off (`…IsOn` /
    /// `…IsOff` if it already is), then reports what changed while it was off.
    pub fn set_advisory_switch(
        &mut self,
        f: FederateHandle,
        switch: AdvisorySwitch,
        on: bool,
    ) -> Result<(), RtiError> {
        self.local(f)?;
        self.refuse_during_save_or_restore(f, "advisory switch")?;
        let name = self.name.clone();
        let lf = self.local_mut(f)?;
        if lf.advice.switches.get(switch) == on {
            return Err(switch.error(
                on,
                format!(
                    "federation {name}: federate {f}'s {} switch is already {}",
                    switch.fdd_name(),
                    if on { "on" } else { "off" }
                ),
            ));
        }
        lf.advice.switches.set(switch, on);
        self.advise();
        Ok(())
    }

    /// The state of one of `f`'s advisory switches.
    pub fn advisory_switch(
        &self,
        f: FederateHandle,
        switch: AdvisorySwitch,
    ) -> Result<bool, RtiError> {
        Ok(self.local(f)?.advice.switches.get(switch))
    }

    /// Whether a federate other than `f` actively subscribes to attribute `a` of instance `o`
    /// at `class` or a superclass of it, with a subscription region that overlaps one of the
    /// attribute's update regions where either side uses regions (see `super::regions`).
    fn others_subscribe(
        &self,
        fdd: &Fdd,
        f: FederateHandle,
        o: ObjectInstanceHandle,
        class: ObjectClassHandle,
        a: AttributeHandle,
    ) -> bool {
        let update = self.regions.update_regions.get(&o).and_then(|m| m.get(&a));
        self.interest.iter().any(|(g, ri)| {
            *g != f
                && ri.objects.iter().any(|(c, sa)| {
                    sa.contains(&a)
                        && object_class_is_a(fdd, class, *c)
                        && relevant_in_regions(
                            fdd,
                            ri.regions.get(c).and_then(|m| m.get(&a)),
                            update,
                        )
                })
        })
    }

    /// Recomputes every advisory for every local federate and queues the changes.
    pub(crate) fn advise(&mut self) {
        let Some(fdd) = self.fdd.clone() else { return };
        let handles: Vec<FederateHandle> = self.locals.keys().copied().collect();
        for f in handles {
            let Some(lf) = self.locals.get(&f) else {
                continue;
            };
            let mut reg = BTreeSet::new();
            for (class, attrs) in &lf.decl.published_objects {
                let relevant = self.interest.iter().any(|(g, ri)| {
                    *g != f
                        && ri.objects.iter().any(|(c, sa)| {
                            object_class_is_a(&fdd, *class, *c)
                                && sa.iter().any(|a| attrs.contains(a))
                        })
                });
                if relevant {
                    reg.insert(*class);
                }
            }
            let mut ints = BTreeSet::new();
            for ic in &lf.decl.published_interactions {
                let relevant = self.interest.iter().any(|(g, ri)| {
                    *g != f
                        && ri
                            .interactions
                            .iter()
                            .any(|c| interaction_class_is_a(&fdd, *ic, *c))
                });
                if relevant {
                    ints.insert(*ic);
                }
            }
            let sw = lf.advice.switches;
            let old_reg = lf.advice.registration_on.clone();
            let old_int = lf.advice.interactions_on.clone();
            if sw.object_class_relevance {
                for c in reg.difference(&old_reg) {
                    self.callback(f, Callback::StartRegistrationForObjectClass(*c));
                }
                for c in old_reg.difference(&reg) {
                    self.callback(f, Callback::StopRegistrationForObjectClass(*c));
                }
                if let Some(lf) = self.locals.get_mut(&f) {
                    lf.advice.registration_on = reg;
                }
            }
            if sw.interaction_relevance {
                for c in ints.difference(&old_int) {
                    self.callback(f, Callback::TurnInteractionsOn(*c));
                }
                for c in old_int.difference(&ints) {
                    self.callback(f, Callback::TurnInteractionsOff(*c));
                }
                if let Some(lf) = self.locals.get_mut(&f) {
                    lf.advice.interactions_on = ints;
                }
            }
            if sw.instance_level() {
                let objects: Vec<ObjectInstanceHandle> = self.objects.keys().copied().collect();
                let mut told: Vec<ObjectInstanceHandle> = Vec::new();
                if let Some(lf) = self.locals.get(&f) {
                    told.extend(lf.advice.updates_on.keys());
                    told.extend(lf.advice.in_scope.keys());
                }
                let all: BTreeSet<ObjectInstanceHandle> = objects.into_iter().chain(told).collect();
                for o in all {
                    self.advise_instance_for(&fdd, f, o);
                }
            }
        }
    }

    /// Recomputes the instance-level advisories of one instance for every local federate
    /// (after it was registered, discovered, updated in ownership or removed).
    pub(crate) fn advise_instance(&mut self, o: ObjectInstanceHandle) {
        let Some(fdd) = self.fdd.clone() else { return };
        let handles: Vec<FederateHandle> = self
            .locals
            .iter()
            .filter(|(_, lf)| lf.advice.switches.instance_level())
            .map(|(h, _)| *h)
            .collect();
        for f in handles {
            self.advise_instance_for(&fdd, f, o);
        }
    }

    fn advise_instance_for(&mut self, fdd: &Fdd, f: FederateHandle, o: ObjectInstanceHandle) {
        let Some(lf) = self.locals.get(&f) else {
            return;
        };
        let sw = lf.advice.switches;
        let Some(inst) = self.objects.get(&o) else {
            // A deleted instance is removed, not turned off or put out of scope.
            if let Some(lf) = self.locals.get_mut(&f) {
                lf.advice.updates_on.remove(&o);
                lf.advice.in_scope.remove(&o);
            }
            return;
        };
        let (mut relevant, mut scope) = (BTreeSet::new(), BTreeSet::new());
        {
            if sw.attribute_relevance {
                for a in inst.owned_by(f) {
                    if self.others_subscribe(fdd, f, o, inst.class, a) {
                        relevant.insert(a);
                    }
                }
            }
            if sw.attribute_scope
                && let Some(known) = lf.known.get(&o)
                && let Some(subs) = lf.decl.subscribed_attrs(*known)
            {
                for a in subs {
                    // With regions, only where an update region overlaps a subscription
                    // region (see `super::regions`).
                    if inst.owner_of(*a).is_some_and(|g| g != f)
                        && self.attr_in_region(fdd, f, *known, o, *a)
                    {
                        scope.insert(*a);
                    }
                }
            }
        }
        if sw.attribute_relevance {
            let (on, off) = diff(&self.locals[&f].advice.updates_on, o, &relevant);
            if !on.is_empty() {
                self.callback(
                    f,
                    Callback::TurnUpdatesOnForObjectInstance {
                        object: o,
                        attrs: on,
                    },
                );
            }
            if !off.is_empty() {
                self.callback(
                    f,
                    Callback::TurnUpdatesOffForObjectInstance {
                        object: o,
                        attrs: off,
                    },
                );
            }
            if let Some(lf) = self.locals.get_mut(&f) {
                store(&mut lf.advice.updates_on, o, relevant);
            }
        }
        if sw.attribute_scope {
            let (inn, out) = diff(&self.locals[&f].advice.in_scope, o, &scope);
            // An instance the federate deleted locally is simply forgotten.
            let gone = !self.locals[&f].known.contains_key(&o);
            if !inn.is_empty() {
                self.callback(
                    f,
                    Callback::AttributesInScope {
                        object: o,
                        attrs: inn,
                    },
                );
            }
            if !out.is_empty() && !gone {
                self.callback(
                    f,
                    Callback::AttributesOutOfScope {
                        object: o,
                        attrs: out,
                    },
                );
            }
            if let Some(lf) = self.locals.get_mut(&f) {
                store(&mut lf.advice.in_scope, o, scope);
            }
        }
    }
}

/// (newly in the set, no longer in it) for instance `o`.
fn diff(
    told: &AttrMap,
    o: ObjectInstanceHandle,
    now: &BTreeSet<AttributeHandle>,
) -> (Vec<AttributeHandle>, Vec<AttributeHandle>) {
    let empty = BTreeSet::new();
    let before = told.get(&o).unwrap_or(&empty);
    (
        now.difference(before).copied().collect(),
        before.difference(now).copied().collect(),
    )
}

fn store(told: &mut AttrMap, o: ObjectInstanceHandle, now: BTreeSet<AttributeHandle>) {
    if now.is_empty() {
        told.remove(&o);
    } else {
        told.insert(o, now);
    }
}
