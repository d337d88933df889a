//! The switches: the FDD's `switches` (initial values), `HLAsetSwitches` of a federate and of
//! the federation, and what each one changes in hlamesh.
//!
//! The FDD writes a switch as `isEnabled="true"` or `"false"` (older modules `Enabled` /
//! `Disabled`); both are read. Honoured:
//!
//! - **Convey Producing Federate** (per federate, on at the join;
//!   `HLAsetSwitches.HLAconveyProducingFederate`): a switch of the *receiving* federate, which
//!   governs the optional producing-federate argument of the callbacks it is given. Off, its
//!   reflections, received interactions and discoveries carry `FederateHandle(0)`, which no
//!   federate ever has (the C and C++ APIs see no producing federate), and its removals
//!   `None`. Its LRC strips the argument as the callback is queued ([`FederationCore::callback`]),
//!   so nothing else changes: the MOM's counters and the time managers still know the producer.
//! - **Auto-Provide** (federation-wide, off at the creation;
//!   `HLAfederation.HLAsetSwitches.HLAautoProvide`): when a federate discovers an instance, its
//!   LRC requests the values of the attributes the federate subscribes to at the instance's
//!   known class, as `requestAttributeValueUpdate` would (the owners get
//!   `provideAttributeValueUpdate`). The request is sent at the next poll of the core's actions
//!   (a discovery happens inside message handling). The switch is replicated state: the
//!   coordinator decides it ([`Decision::FederationSwitches`]) when it applies the
//!   interaction, so every LRC, a late joiner's replay and a new coordinator agree; a
//!   coordinator lost before deciding loses it.
//! - **Service Reporting** and **Exception Reporting** (FDD `serviceReporting`,
//!   `exceptionReporting`, default off): each joining federate starts with them as the FDD
//!   says; `HLAsetServiceReporting` / `HLAsetExceptionReporting` change them (`reporting.rs`).
//! - The four advisory switches (FDD, per federate, and the enable/disable services) are
//!   `super::super::advisory`'s.
//!
//! - **Convey Region Designator Sets** (per federate, the FDD's `conveyRegionDesignatorSets`
//!   at the join, off if no module sets it; `HLAsetSwitches.HLAconveyRegionDesignatorSets`): a
//!   switch of the *receiving* federate; on, its reflections and received interactions sent
//!   with regions carry the sent regions that overlap its subscription regions, as read-only
//!   handles of its own (`super::super::convey`).
//!
//! Not honoured: **Delay Subscription Evaluation** is recorded and reported only (hlamesh
//! evaluates subscriptions at once); the automatic resign action is the resignation's (`resignation`). The
//! FDD's *initial* values of Convey Producing Federate and Auto-Provide are not applied yet:
//! hlamesh has always conveyed the producer and never auto-provided, and the repository's
//! Restaurant FOM, which the multi-process tests and tools run on, sets the first off and the
//! second on; applying them would change every such federation at once, so they start on
//! and off, and the MOM reports the values in force (`HLAconveyProducingFederate`,
//! `HLAautoProvide`), never the FDD's.
//!
//! A changed switch updates its MOM instance's attribute at once (the MIM's update condition):
//! `HLAconveyRegionDesignatorSets` / `HLAconveyProducingFederate` of the federate's
//! `HLAfederate` by its LRC, `HLAautoProvide` of `HLAfederation` by the voice. Only a MOM
//! interaction changes a switch, so an unwatched federation sends nothing for them.
//!
//! [`Decision::FederationSwitches`]: super::super::wire::Decision::FederationSwitches

use crate::fom::Fdd;
use crate::handles::FederateHandle;

use super::super::wire::Decision;
use super::super::{Callback, FederationCore};
use super::dispatch::{MomArgs, MomFailure};
use super::{federate_instance, federation_instance};

/// A switch of the FDD: `Some(on)` if some module sets it.
fn fdd_switch(fdd: &Fdd, name: &str) -> Option<bool> {
    fdd.switch(name)
        .map(|v| v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("enabled") || v == "1")
}

/// `FederateHandle(0)`: the producing federate of a callback whose receiver's Convey
/// Producing Federate switch is off (no federate has handle 0).
pub const NO_PRODUCER: FederateHandle = FederateHandle(0);

impl FederationCore {
    fn fdd_switch_or(&self, name: &str, default: bool) -> bool {
        self.fdd
            .as_deref()
            .and_then(|f| fdd_switch(f, name))
            .unwrap_or(default)
    }

    /// Local federate `f`'s Convey Producing Federate switch (on until `HLAsetSwitches`
    /// turns it off; see the module docs on the FDD's value).
    pub fn mom_convey_producer(&self, f: FederateHandle) -> bool {
        self.mom
            .switches
            .get(&f)
            .and_then(|s| s.convey_producing_federate)
            .unwrap_or(true)
    }

    /// Local federate `f`'s Convey Region Designator Sets switch.
    pub fn mom_convey_regions(&self, f: FederateHandle) -> bool {
        self.mom
            .switches
            .get(&f)
            .and_then(|s| s.convey_region_designator_sets)
            .unwrap_or_else(|| self.fdd_switch_or("conveyRegionDesignatorSets", false))
    }

    /// The federation's Auto-Provide switch (off until `HLAsetSwitches` turns it on; see the
    /// module docs on the FDD's value).
    pub fn mom_auto_provide(&self) -> bool {
        self.mom.auto_provide.unwrap_or(false)
    }

    /// A federate joined here: its reporting starts as the FDD says, and its switches apply.
    pub(crate) fn mom_switches_at_join(&mut self, f: FederateHandle) {
        if self.fdd_switch_or("serviceReporting", false) {
            // A new federate subscribes to nothing: the MIM's refusal cannot apply.
            self.mom.service_reporting.entry(f).or_insert(0);
        }
        if self.fdd_switch_or("exceptionReporting", false) {
            self.mom.exception_reporting.insert(f);
        }
        self.mom_switches_changed(f);
    }

    /// Local federate `f`'s switches changed (or it joined, or was restored).
    pub(crate) fn mom_switches_changed(&mut self, f: FederateHandle) {
        if self.locals.contains_key(&f) && !self.mom_convey_producer(f) {
            self.mom.producer_hidden.insert(f);
        } else {
            self.mom.producer_hidden.remove(&f);
        }
    }

    /// `HLAmanager.HLAfederate.HLAadjust.HLAsetSwitches` for local federate `f`: only the
    /// parameters sent change; changed ones are sent as an update of its `HLAfederate`.
    pub(super) fn mom_set_federate_switches(
        &mut self,
        f: FederateHandle,
        args: &MomArgs,
    ) -> Result<(), MomFailure> {
        let regions = args.switch("HLAconveyRegionDesignatorSets")?;
        let producer = args.switch("HLAconveyProducingFederate")?;
        let before = (self.mom_convey_regions(f), self.mom_convey_producer(f));
        let s = self.mom.switches.entry(f).or_default();
        if regions.is_some() {
            s.convey_region_designator_sets = regions;
        }
        if producer.is_some() {
            s.convey_producing_federate = producer;
        }
        self.mom_switches_changed(f);
        let mut changed = Vec::new();
        if let Some(m) = self.mom_handles() {
            if before.0 != regions.unwrap_or(before.0) {
                changed.extend(
                    m.federate_attrs
                        .get("HLAconveyRegionDesignatorSets")
                        .copied(),
                );
            }
            if before.1 != producer.unwrap_or(before.1) {
                changed.extend(m.federate_attrs.get("HLAconveyProducingFederate").copied());
            }
        }
        if !changed.is_empty() {
            self.mom_send_instance(federate_instance(f), Some(&changed), Vec::new());
        }
        Ok(())
    }

    /// `HLAmanager.HLAfederation.HLAadjust.HLAsetSwitches` was applied here: the coordinator
    /// decides it (see the module docs); a bad value is answered by the voice.
    pub(super) fn mom_set_federation_switches(
        &mut self,
        voice: Option<FederateHandle>,
        name: &str,
        args: &MomArgs,
    ) {
        match args.switch("HLAautoProvide") {
            Ok(Some(auto_provide)) => {
                // Decided as a request would be: by the coordinator, not during a takeover.
                if self.phase.is_admitted()
                    && self.coordinator() == Some(self.me)
                    && self.recovery.is_none()
                {
                    self.decide(Decision::FederationSwitches { auto_provide });
                }
            }
            Ok(None) => {}
            Err(e) => {
                if let Some(voice) = voice {
                    self.mom_exception(voice, None, name, &e);
                }
            }
        }
    }

    /// A [`Decision::FederationSwitches`] is applied: the switch changes, and the voice
    /// updates `HLAautoProvide` if it changed (not while replaying a log).
    pub(crate) fn apply_federation_switches(&mut self, d: &Decision) {
        let Decision::FederationSwitches { auto_provide } = d else {
            return;
        };
        let before = self.mom_auto_provide();
        self.mom.auto_provide = Some(*auto_provide);
        if before == *auto_provide || self.phase.is_replaying() {
            return;
        }
        let attr = self
            .mom_handles()
            .and_then(|m| m.federation_attrs.get("HLAautoProvide").copied());
        if let Some(a) = attr {
            self.mom_send_instance(federation_instance(), Some(&[a]), Vec::new());
        }
    }

    /// The callback `cb` for local federate `f` as its Convey Producing Federate switch has
    /// it (see the module docs); a discovery is noted for Auto-Provide.
    pub(crate) fn mom_conveyed(&mut self, f: FederateHandle, mut cb: Callback) -> Callback {
        if let Callback::DiscoverObjectInstance { object, .. } = &cb
            && self.mom_auto_provide()
        {
            self.mom.auto_requests.push((f, *object));
        }
        if self.mom.producer_hidden.is_empty() || !self.mom.producer_hidden.contains(&f) {
            return cb;
        }
        match &mut cb {
            Callback::ReflectAttributeValues { info, .. }
            | Callback::ReceiveInteraction { info, .. } => info.producer = NO_PRODUCER,
            Callback::DiscoverObjectInstance { producer, .. } => *producer = NO_PRODUCER,
            Callback::RemoveObjectInstance { producer, .. } => *producer = None,
            _ => {}
        }
        cb
    }

    /// Sends the Auto-Provide requests for the instances discovered since the last poll: the
    /// attributes each discoverer subscribes to at the instance's known class.
    pub(super) fn mom_send_auto_requests(&mut self) {
        if self.mom.auto_requests.is_empty() {
            return;
        }
        for (f, o) in std::mem::take(&mut self.mom.auto_requests) {
            let Some(lf) = self.locals.get(&f) else {
                continue;
            };
            let Some(known) = lf.known.get(&o) else {
                continue;
            };
            let attrs: Vec<_> = lf
                .decl
                .subscribed_objects
                .get(known)
                .map(|s| s.attrs.iter().copied().collect())
                .unwrap_or_default();
            if attrs.is_empty() {
                continue;
            }
            if let Err(e) = self.request_attribute_value_update(f, Some(o), None, attrs, Vec::new())
            {
                tracing::debug!(federation = %self.name, "auto-provide of {o} for {f}: {e}");
            }
        }
    }
}
