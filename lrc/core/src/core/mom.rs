//! The Management Object Model (IEEE 1516.1-2010 clause 11, the standard MIM's `HLAmanager`
//! classes): the `HLAfederate` and `HLAfederation` instances, their values, and the MOM
//! interactions this LRC answers.
//!
//! # Who maintains what
//!
//! There is no server, so each MOM instance has one LRC that maintains it:
//!
//! - **`HLAobjectRoot.HLAmanager.HLAfederate`**: the LRC of the federate it describes. When a
//!   local federate's join is applied (`FederationCore::mom_on_joined`), its LRC registers the
//!   instance in its own data stream with an ordinary [`DataMsg::Register`], so it travels the
//!   way every instance does: multicast to the LRCs present, in state transfer (the snapshot of
//!   the instances registered through an LRC's stream) to late joiners. Its handle is
//!   `(federate, 0)` ([`federate_instance`]: registration counters start at 1, so counter 0 is
//!   never a federate's own instance) and its name `HLAfederate.<federate name>` (names that
//!   begin with `HLA` are the RTI's, so no federate can take it). Updates are ordinary
//!   [`DataMsg::Update`]s of that LRC's stream, in receive order, with the federate as
//!   producer. When the federate resigns or is lost, every LRC removes the instance itself
//!   where it applies the resignation (`FederationCore::apply_resign`, after the resigner's
//!   last data): a lost LRC cannot send a delete, and no message is needed.
//! - **`HLAobjectRoot.HLAmanager.HLAfederation`**: one instance, handle `(0, 0)`
//!   ([`federation_instance`]; federate handle 0 is never assigned) named `HLAfederation`. Every
//!   value it carries is replicated state every LRC already holds (the view, the FOM modules,
//!   the time implementation, saves), so every LRC creates it itself when its first federate
//!   joins (no registration travels; it is left out of snapshots) and a takeover changes
//!   nothing about it: same handle, same name. Its updates are sent by the *voice* of the
//!   federation ([`FederationCore::mom_voice`]): the coordinator, with its lowest local federate
//!   as producer (a data message needs a federate's stream position for time management), or,
//!   while the coordinator hosts no federate, the LRC of the lowest federate handle. A new
//!   coordinator therefore takes the instance over at once. The voice also sends the
//!   federation-level reports (`HLAreportFederateLost`).
//!
//! # Owned by the RTI
//!
//! MOM instances have no federate owner ([`Instance::owners`] is empty): updates by a federate
//! fail with `AttributeNotOwned`, deletes with `DeletePrivilegeNotHeld`, acquisitions with
//! `AttributeNotPublished` (MOM attributes are the RTI's), `is_attribute_owned_by_federate` is
//! false, and `query_attribute_ownership` answers `attribute_is_owned_by_rti`. Receivers accept
//! an update of a MOM instance only from the LRC that maintains it (the instance's origin, or
//! any voice for the federation instance), with no ownership version.
//!
//! # When values are sent
//!
//! Nothing is sent for MOM while nobody asks: a registration and one update with the identity
//! and initial state per join (two reliable messages of the joiner's LRC), then updates only
//! - on `request_attribute_value_update` of a MOM instance or class (the maintainer answers
//!   with the current values of the requested attributes),
//! - periodically once `HLAmanager.HLAfederate.HLAadjust.HLAsetTiming` set a report period for a
//!   federate (seconds; 0 stops): the shell's ticks bring `now` and [`FederationCore::mom_tick`]
//!   decides which instances are due; the core reads no clock.
//!
//! # Interactions answered
//!
//! `HLArequestPublications` (→ `HLAreportObjectClassPublication` per class and
//! `HLAreportInteractionPublication`), `HLArequestSubscriptions` (→
//! `HLAreportObjectClassSubscription` per class and `HLAreportInteractionSubscription`),
//! `HLArequestObjectInstancesThatCanBeDeleted`, `HLAsetTiming`, `HLAservice
//! .HLAresignFederationExecution`; the voice sends `HLAreportFederateLost` when a federate is
//! lost. Reports are sent by the target federate's LRC with the target as producer (the voice
//! for federation-level ones); being the RTI's, they reach a subscribed producer too. Parameters
//! are encoded with the MIM's datatypes.
//!
//! # Known gaps
//!
//! `HLAROlength` is sent as 0;
//! `HLAFOMmoduleDesignatorList` of a federate lists the federation's modules; the counters of
//! a federate are not saved (a restore starts them again). A federate resigned by
//! `HLAresignFederationExecution` is not told (its next call fails with
//! `FederateNotExecutionMember`).

use std::collections::{BTreeMap, BTreeSet};

use crate::encoding::typed::{DataElement, OpaqueData};
use crate::fom::Fdd;
use crate::handles::{
    AttributeHandle, FederateHandle, InteractionClassHandle, ObjectClassHandle,
    ObjectInstanceHandle, ParameterHandle,
};
use hlamesh_timesync::{ConstraintState, LogicalTime, LogicalTimeInterval, RegulationState};

use super::objects::Instance;
use super::time::Manager;
use super::wire::{DataMsg, ResignAction};
use super::{FederationCore, Node};

/// The RTI version reported in `HLARTIversion`.
pub const RTI_VERSION: &str = concat!("hlamesh ", env!("CARGO_PKG_VERSION"));

/// `HLAMIMdesignator`.
pub const MIM_DESIGNATOR: &str = "HLAstandardMIM";

/// The handle of federate `f`'s `HLAfederate` instance.
pub fn federate_instance(f: FederateHandle) -> ObjectInstanceHandle {
    ObjectInstanceHandle::new(f, 0)
}

/// The handle of the `HLAfederation` instance.
pub fn federation_instance() -> ObjectInstanceHandle {
    ObjectInstanceHandle::new(FederateHandle(0), 0)
}

/// Whether `o` is a MOM instance (its counter is 0, which no registration uses).
pub fn is_mom_instance(o: ObjectInstanceHandle) -> bool {
    o.counter() == 0
}

/// The name of federate `name`'s `HLAfederate` instance.
pub fn federate_instance_name(name: &str) -> String {
    format!("HLAfederate.{name}")
}

/// The name of the `HLAfederation` instance.
pub const FEDERATION_INSTANCE_NAME: &str = "HLAfederation";

/// HLAhandle: the handle's encoding as an HLAvariableArray of HLAbyte.
pub fn handle_value(bytes: &[u8]) -> Vec<u8> {
    OpaqueData(bytes.to_vec()).encode()
}

/// HLAhandleList.
fn handle_list(handles: impl IntoIterator<Item = Vec<u8>>) -> Vec<u8> {
    handles
        .into_iter()
        .map(OpaqueData)
        .collect::<Vec<_>>()
        .encode()
}

/// The MIM's object classes, attributes, interaction classes and parameters by name, resolved
/// once from the FDD (the MIM comes first in every merge, so its handles never change).
#[derive(Debug, Clone)]
pub struct MomHandles {
    /// `HLAmanager.HLAfederate`.
    pub federate: ObjectClassHandle,
    /// `HLAmanager.HLAfederation`.
    pub federation: ObjectClassHandle,
    /// `HLAmanager` (object class).
    pub manager: ObjectClassHandle,
    /// Attribute handles of `HLAfederate` by name.
    pub federate_attrs: BTreeMap<String, AttributeHandle>,
    /// Attribute handles of `HLAfederation` by name.
    pub federation_attrs: BTreeMap<String, AttributeHandle>,
    /// Interaction classes below `HLAinteractionRoot.HLAmanager` by their name without that
    /// prefix (`HLAfederate.HLArequest.HLArequestPublications`).
    pub interactions: BTreeMap<String, InteractionClassHandle>,
    /// The same, by handle.
    pub interaction_names: BTreeMap<InteractionClassHandle, String>,
}

impl MomHandles {
    /// Resolves the MIM's names (`None` without the standard MIM).
    pub fn resolve(fdd: &Fdd) -> Option<Self> {
        let manager = fdd.object_class_handle("HLAobjectRoot.HLAmanager").ok()?;
        let federate = fdd
            .object_class_handle("HLAobjectRoot.HLAmanager.HLAfederate")
            .ok()?;
        let federation = fdd
            .object_class_handle("HLAobjectRoot.HLAmanager.HLAfederation")
            .ok()?;
        let attrs = |c: ObjectClassHandle| -> BTreeMap<String, AttributeHandle> {
            fdd.available_attributes(c)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|a| Some((fdd.attribute_name(c, a).ok()?.to_string(), a)))
                .collect()
        };
        let mut interactions = BTreeMap::new();
        let mut interaction_names = BTreeMap::new();
        for ic in fdd.interaction_classes() {
            if let Some(rest) = ic
                .qualified_name
                .strip_prefix("HLAinteractionRoot.HLAmanager.")
            {
                interactions.insert(rest.to_string(), ic.handle);
                interaction_names.insert(ic.handle, rest.to_string());
            }
        }
        Some(MomHandles {
            federate,
            federation,
            manager,
            federate_attrs: attrs(federate),
            federation_attrs: attrs(federation),
            interactions,
            interaction_names,
        })
    }

    /// A parameter of a MOM interaction class by name.
    fn param(fdd: &Fdd, ic: InteractionClassHandle, name: &str) -> Option<ParameterHandle> {
        fdd.parameter_handle(ic, name).ok()
    }
}

/// What a local federate did, for its `HLAfederate` counters.
#[derive(Debug, Clone, Default)]
pub struct Counters {
    /// `HLAupdatesSent`.
    pub updates_sent: u32,
    /// `HLAreflectionsReceived`.
    pub reflections_received: u32,
    /// `HLAinteractionsSent`.
    pub interactions_sent: u32,
    /// `HLAinteractionsReceived`.
    pub interactions_received: u32,
    /// `HLAobjectInstancesRegistered`.
    pub registered: u32,
    /// `HLAobjectInstancesDiscovered`.
    pub discovered: u32,
    /// `HLAobjectInstancesDeleted`.
    pub deleted: u32,
    /// `HLAobjectInstancesRemoved`.
    pub removed: u32,
    /// Instances it updated (`HLAobjectInstancesUpdated` is their number).
    pub updated: DistinctInstances,
    /// Instances it had reflected (`HLAobjectInstancesReflected`).
    pub reflected: DistinctInstances,
}

/// A count of distinct instances that remembers only the ones still here: an instance removed
/// from this LRC leaves its count, not its handle, so memory follows the live instances rather
/// than every instance a long run ever saw.
#[derive(Debug, Clone, Default)]
pub struct DistinctInstances {
    live: BTreeSet<ObjectInstanceHandle>,
    gone: usize,
}

impl DistinctInstances {
    /// Counts `o` (once).
    pub fn insert(&mut self, o: ObjectInstanceHandle) {
        self.live.insert(o);
    }

    /// `o` was removed here: it stays counted, no longer remembered.
    pub fn forget(&mut self, o: ObjectInstanceHandle) {
        if self.live.remove(&o) {
            self.gone = self.gone.saturating_add(1);
        }
    }

    /// Distinct instances counted.
    pub fn len(&self) -> usize {
        self.live.len().saturating_add(self.gone)
    }

    /// Whether none was counted.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// MOM state of one federation core.
#[derive(Debug, Default)]
pub struct MomState {
    /// The MIM's handles, once the FDD is known.
    pub(crate) handles: Option<MomHandles>,
    /// Counters per local federate.
    pub(crate) counters: BTreeMap<FederateHandle, Counters>,
    /// Report period (µs) and next due time per local federate (`HLAsetTiming`).
    pub(crate) timing: BTreeMap<FederateHandle, (u64, u64)>,
    /// The host name the shell reported (`HLAfederateHost`).
    pub(crate) host: String,
    /// Every joined federate's name (the view forgets it when the federate leaves, and
    /// `HLAreportFederateLost` needs it then).
    pub(crate) names: BTreeMap<FederateHandle, String>,
    /// The last federation save that succeeded: label and save time.
    pub(crate) last_save: Option<(String, Option<super::time::Time>)>,
    /// Wall time each local federate spent granted and advancing (see [`TimeInStates`]).
    pub(crate) time_in_states: BTreeMap<FederateHandle, TimeInStates>,
}

/// How long a local federate has been in the Time Granted and Time Advancing states (µs of
/// the shell's clock; `HLAtimeGrantedTime` / `HLAtimeAdvancingTime` in ms). A federate is
/// granted from its join until its first advance request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimeInStates {
    /// In the Time Advancing state now.
    pub advancing: bool,
    /// Since when (µs).
    pub since: u64,
    /// Granted time accumulated before `since` (µs).
    pub granted_us: u64,
    /// Advancing time accumulated before `since` (µs).
    pub advancing_us: u64,
}

impl TimeInStates {
    /// Records a change to `advancing` at `now` (no change: nothing).
    pub fn enter(&mut self, advancing: bool, now: u64) {
        if advancing == self.advancing {
            return;
        }
        let spent = now.saturating_sub(self.since);
        if self.advancing {
            self.advancing_us = self.advancing_us.saturating_add(spent);
        } else {
            self.granted_us = self.granted_us.saturating_add(spent);
        }
        self.advancing = advancing;
        self.since = now;
    }

    /// (granted, advancing) up to `now`, milliseconds (HLAmsec saturates at `i32::MAX`).
    pub fn millis(&self, now: u64) -> (i32, i32) {
        let spent = now.saturating_sub(self.since);
        let (g, a) = if self.advancing {
            (self.granted_us, self.advancing_us.saturating_add(spent))
        } else {
            (self.granted_us.saturating_add(spent), self.advancing_us)
        };
        let ms = |us: u64| i32::try_from(us / 1000).unwrap_or(i32::MAX);
        (ms(g), ms(a))
    }
}

fn enc<T: DataElement>(v: T) -> Vec<u8> {
    v.encode()
}

fn time_value<T: LogicalTime>(t: Option<T>) -> Vec<u8> {
    OpaqueData(t.map(|t| t.encode().to_vec()).unwrap_or_default()).encode()
}

impl FederationCore {
    /// Sets the host name reported as `HLAfederateHost` (the shell knows it; the core does not
    /// ask the operating system).
    pub fn set_mom_host(&mut self, host: &str) {
        self.mom.host = host.to_string();
    }

    /// The MIM's handles (`None` before the FDD is known or without the standard MIM).
    pub fn mom_handles(&mut self) -> Option<&MomHandles> {
        if self.mom.handles.is_none() {
            let fdd = self.fdd.clone()?;
            self.mom.handles = MomHandles::resolve(&fdd);
        }
        self.mom.handles.as_ref()
    }

    /// Counters of local federate `f`.
    pub(crate) fn mom_count(&mut self, f: FederateHandle) -> &mut Counters {
        self.mom.counters.entry(f).or_default()
    }

    /// The federate whose stream carries the federation's own MOM messages, and whether it is
    /// hosted here (see the module docs): the coordinator's lowest local federate, or the lowest
    /// federate of all while the coordinator hosts none.
    pub fn mom_voice(&self) -> Option<(FederateHandle, Node)> {
        let coordinator = self.coordinator();
        self.view
            .federates
            .iter()
            .find(|(_, r)| Some(r.node) == coordinator)
            .or_else(|| self.view.federates.iter().next())
            .map(|(h, r)| (*h, r.node))
    }

    /// A federate's join was applied (`node` hosts it): its name is remembered, and if it is
    /// local its `HLAfederate` instance is registered in this LRC's stream (and the
    /// federation's instance created here if this is the first local federate).
    pub(crate) fn mom_on_joined(&mut self, h: FederateHandle, node: Node) {
        if let Some(r) = self.view.federates.get(&h) {
            self.mom.names.insert(h, r.name.clone());
        }
        if node != self.me || !self.locals.contains_key(&h) {
            return;
        }
        let Some((federate_class, federation_class)) =
            self.mom_handles().map(|m| (m.federate, m.federation))
        else {
            return;
        };
        if !self.objects.contains_key(&federation_instance()) {
            self.objects.insert(
                federation_instance(),
                Instance {
                    class: federation_class,
                    name: FEDERATION_INSTANCE_NAME.to_string(),
                    owners: BTreeMap::new(),
                    versions: BTreeMap::new(),
                    values: BTreeMap::new(),
                    origin: self.me,
                },
            );
        }
        self.mom.time_in_states.insert(
            h,
            TimeInStates {
                since: self.now,
                ..TimeInStates::default()
            },
        );
        let object = federate_instance(h);
        if self.objects.contains_key(&object) {
            return;
        }
        let name = self
            .mom
            .names
            .get(&h)
            .cloned()
            .unwrap_or_else(|| format!("{h}"));
        self.send_data(
            true,
            DataMsg::Register {
                object,
                class: federate_class,
                name: federate_instance_name(&name),
                owned: Vec::new(),
            },
        );
        // The static attributes go with the registration, so an instance discovered later
        // already carries its identity.
        let values = self.mom_federate_values(h, None);
        self.send_update(
            true,
            false,
            h,
            object,
            values,
            Vec::new(),
            None,
            Vec::new(),
            None,
        );
    }

    /// A federate resigned or was lost: its `HLAfederate` instance goes (at every LRC, see the
    /// module docs).
    pub(crate) fn mom_on_resigned(&mut self, h: FederateHandle) {
        self.mom.counters.remove(&h);
        self.mom.timing.remove(&h);
        self.mom.time_in_states.remove(&h);
        let o = federate_instance(h);
        if self.objects.contains_key(&o) {
            self.remove_instance(o, Vec::new(), None, None);
        }
    }

    /// Whether an update of MOM instance `object` from `from` comes from its maintainer.
    pub(crate) fn mom_update_accepted(&self, from: Node, object: ObjectInstanceHandle) -> bool {
        object == federation_instance()
            || self.objects.get(&object).is_some_and(|i| i.origin == from)
    }

    /// The values of local federate `f`'s `HLAfederate` instance (`only`: these attributes).
    pub fn mom_federate_values(
        &mut self,
        f: FederateHandle,
        only: Option<&[AttributeHandle]>,
    ) -> Vec<(AttributeHandle, Vec<u8>)> {
        let Some(m) = self.mom_handles().cloned() else {
            return Vec::new();
        };
        let Some(fdd) = self.fdd.clone() else {
            return Vec::new();
        };
        let record = self.view.federates.get(&f).cloned();
        let name = record.as_ref().map(|r| r.name.clone()).unwrap_or_default();
        let federate_type = record
            .as_ref()
            .map(|r| r.federate_type.clone())
            .unwrap_or_default();
        let modules: Vec<String> = self.modules.iter().map(|(d, _)| d.clone()).collect();
        let tm: Option<&Manager> = self.time.managers.get(&f);
        let regulating = tm.is_some_and(|t| t.regulation() == RegulationState::On);
        let constrained = tm.is_some_and(|t| t.constraint() == ConstraintState::On);
        let asynchronous = tm.is_some_and(|t| t.asynchronous_delivery());
        let advancing = tm.is_some_and(|t| t.in_time_advancing_state());
        let kind = self.time.kind;
        let logical = tm.map(|t| kind.convert(t.federate_logical_time()));
        let lookahead = tm
            .and_then(|t| t.query_lookahead().ok())
            .map(|l| kind.convert_interval(l));
        let galt = tm.and_then(|t| t.galt()).map(|t| kind.convert(t));
        let lits = tm.and_then(|t| t.lits()).map(|t| kind.convert(t));
        let tso_len = tm.map_or(0, |t| t.queued_tso());
        let state = match self.refuse_during_save_or_restore(f, "MOM") {
            Err(crate::error::RtiError::SaveInProgress(_)) => 3,
            Err(crate::error::RtiError::RestoreInProgress(_)) => 5,
            _ => 1,
        };
        let switch = |n: &str, default: bool| -> i32 {
            fdd.switch(n)
                .map_or(default, |v| v.eq_ignore_ascii_case("Enabled"))
                .into()
        };
        let can_delete = self
            .objects
            .values()
            .filter(|i| self.privilege_holder(i) == Some(f))
            .count();
        let c = self.mom.counters.get(&f).cloned().unwrap_or_default();
        let (granted_ms, advancing_ms) = self
            .mom
            .time_in_states
            .get(&f)
            .map_or((0, 0), |t| t.millis(self.now));
        let count = |n: usize| -> Vec<u8> { enc(i32::try_from(n).unwrap_or(i32::MAX)) };
        let mut out = Vec::new();
        for (attr, h) in &m.federate_attrs {
            if only.is_some_and(|o| !o.contains(h)) {
                continue;
            }
            let v = match attr.as_str() {
                "HLAfederateHandle" => handle_value(&f.encode()),
                "HLAfederateName" => enc(name.clone()),
                "HLAfederateType" => enc(federate_type.clone()),
                "HLAfederateHost" => enc(self.mom.host.clone()),
                "HLARTIversion" => enc(RTI_VERSION.to_string()),
                "HLAFOMmoduleDesignatorList" => enc(modules.clone()),
                "HLAtimeConstrained" => enc(constrained),
                "HLAtimeRegulating" => enc(regulating),
                "HLAasynchronousDelivery" => enc(asynchronous),
                "HLAfederateState" => enc(state),
                "HLAtimeManagerState" => enc(i32::from(advancing)),
                "HLAlogicalTime" => time_value(logical),
                "HLAlookahead" => OpaqueData(
                    lookahead
                        .map(|l| LogicalTimeInterval::encode(&l).to_vec())
                        .unwrap_or_default(),
                )
                .encode(),
                "HLAGALT" => time_value(galt),
                "HLALITS" => time_value(lits),
                "HLAROlength" => count(0),
                "HLATSOlength" => count(tso_len),
                "HLAreflectionsReceived" => enc(c.reflections_received as i32),
                "HLAupdatesSent" => enc(c.updates_sent as i32),
                "HLAinteractionsReceived" => enc(c.interactions_received as i32),
                "HLAinteractionsSent" => enc(c.interactions_sent as i32),
                "HLAobjectInstancesThatCanBeDeleted" => count(can_delete),
                "HLAobjectInstancesUpdated" => count(c.updated.len()),
                "HLAobjectInstancesReflected" => count(c.reflected.len()),
                "HLAobjectInstancesDeleted" => enc(c.deleted as i32),
                "HLAobjectInstancesRemoved" => enc(c.removed as i32),
                "HLAobjectInstancesRegistered" => enc(c.registered as i32),
                "HLAobjectInstancesDiscovered" => enc(c.discovered as i32),
                "HLAtimeGrantedTime" => enc(granted_ms),
                "HLAtimeAdvancingTime" => enc(advancing_ms),
                "HLAconveyRegionDesignatorSets" => enc(switch("conveyRegionDesignatorSets", false)),
                "HLAconveyProducingFederate" => enc(switch("conveyProducingFederate", true)),
                _ => continue,
            };
            out.push((*h, v));
        }
        out
    }

    /// The values of the `HLAfederation` instance (`only`: these attributes).
    pub fn mom_federation_values(
        &mut self,
        only: Option<&[AttributeHandle]>,
    ) -> Vec<(AttributeHandle, Vec<u8>)> {
        let Some(m) = self.mom_handles().cloned() else {
            return Vec::new();
        };
        let Some(fdd) = self.fdd.clone() else {
            return Vec::new();
        };
        let federates = handle_list(self.view.federates.keys().map(|h| h.encode().to_vec()));
        let modules: Vec<String> = self.modules.iter().map(|(d, _)| d.clone()).collect();
        let (last_name, last_time) = self
            .mom
            .last_save
            .clone()
            .map_or((None, None), |(l, t)| (Some(l), t));
        let (next_name, next_time) = self
            .save
            .current()
            .map_or((None, None), |s| (Some(s.label.clone()), s.time));
        let kind = self.time.kind;
        let auto_provide: i32 = fdd
            .switch("autoProvide")
            .is_some_and(|v| v.eq_ignore_ascii_case("Enabled"))
            .into();
        let mut out = Vec::new();
        for (attr, h) in &m.federation_attrs {
            if only.is_some_and(|o| !o.contains(h)) {
                continue;
            }
            let v = match attr.as_str() {
                "HLAfederationName" => enc(self.name.clone()),
                "HLAfederatesInFederation" => federates.clone(),
                "HLARTIversion" => enc(RTI_VERSION.to_string()),
                "HLAMIMdesignator" => enc(MIM_DESIGNATOR.to_string()),
                "HLAFOMmoduleDesignatorList" => enc(modules.clone()),
                "HLAcurrentFDD" => enc(modules.join(",")),
                "HLAtimeImplementationName" => enc(kind.name().to_string()),
                "HLAlastSaveName" => enc(last_name.clone().unwrap_or_default()),
                "HLAlastSaveTime" => time_value(last_time.map(|t| kind.convert(t))),
                "HLAnextSaveName" => enc(next_name.clone().unwrap_or_default()),
                "HLAnextSaveTime" => time_value(next_time.map(|t| kind.convert(t))),
                "HLAautoProvide" => enc(auto_provide),
                _ => continue,
            };
            out.push((*h, v));
        }
        out
    }

    /// A `DataMsg::RequestUpdate` reached this LRC: the MOM instances it maintains among those
    /// asked for are updated with the requested attributes' current values.
    pub(crate) fn mom_on_request_update(
        &mut self,
        object: Option<ObjectInstanceHandle>,
        class: Option<ObjectClassHandle>,
        attrs: &[AttributeHandle],
        tag: &[u8],
    ) {
        let Some(fdd) = self.fdd.clone() else { return };
        let Some(manager) = self.mom_handles().map(|m| m.manager) else {
            return;
        };
        // Only requests about MOM classes or instances concern MOM (the usual request costs
        // one class test).
        match (object, class) {
            (Some(o), _) if !is_mom_instance(o) => return,
            (None, Some(c))
                if !super::declarations::object_class_is_a(&fdd, c, manager)
                    && !super::declarations::object_class_is_a(&fdd, manager, c) =>
            {
                return;
            }
            (None, None) => return,
            _ => {}
        }
        let targets: Vec<ObjectInstanceHandle> = self
            .objects
            .iter()
            .filter(|(o, i)| {
                is_mom_instance(**o)
                    && match (object, class) {
                        (Some(x), _) => **o == x,
                        (None, Some(c)) => super::declarations::object_class_is_a(&fdd, i.class, c),
                        _ => false,
                    }
            })
            .map(|(o, _)| *o)
            .collect();
        for o in targets {
            self.mom_send_instance(o, Some(attrs), tag.to_vec());
        }
    }

    /// Sends the current values of MOM instance `o` if this LRC maintains it.
    fn mom_send_instance(
        &mut self,
        o: ObjectInstanceHandle,
        only: Option<&[AttributeHandle]>,
        tag: Vec<u8>,
    ) {
        let (producer, values) = if o == federation_instance() {
            match self.mom_voice() {
                Some((v, node)) if node == self.me => (v, self.mom_federation_values(only)),
                _ => return,
            }
        } else {
            let f = o.registrant();
            if !self.locals.contains_key(&f) {
                return;
            }
            (f, self.mom_federate_values(f, only))
        };
        if values.is_empty() {
            return;
        }
        self.send_update(
            true,
            false,
            producer,
            o,
            values,
            tag,
            None,
            Vec::new(),
            None,
        );
    }

    /// Time passed (the shell's tick): the `HLAfederate` instances whose report period
    /// (`HLAsetTiming`) ran out are updated with every attribute.
    pub fn mom_tick(&mut self, now: u64) {
        if self.mom.timing.is_empty() {
            return;
        }
        let due: Vec<FederateHandle> = self
            .mom
            .timing
            .iter()
            .filter(|(_, (_, next))| *next <= now)
            .map(|(f, _)| *f)
            .collect();
        for f in due {
            if let Some((period, next)) = self.mom.timing.get_mut(&f) {
                *next = now.saturating_add(*period);
            }
            self.mom_send_instance(federate_instance(f), None, Vec::new());
        }
    }

    /// The report period of local federate `f` (µs; `None`: no periodic updates).
    pub fn mom_report_period(&self, f: FederateHandle) -> Option<u64> {
        self.mom.timing.get(&f).map(|(p, _)| *p)
    }

    /// An interaction of class `class` was applied here: a MOM request, adjustment or service
    /// about a local federate is answered.
    pub(crate) fn mom_on_interaction(
        &mut self,
        class: InteractionClassHandle,
        params: &[(ParameterHandle, Vec<u8>)],
    ) {
        let Some(fdd) = self.fdd.clone() else { return };
        let Some(name) = self
            .mom_handles()
            .and_then(|m| m.interaction_names.get(&class).cloned())
        else {
            return;
        };
        if !name.starts_with("HLAfederate.") {
            return;
        }
        let param = |n: &str| -> Option<&[u8]> {
            let p = MomHandles::param(&fdd, class, n)?;
            params
                .iter()
                .find(|(h, _)| *h == p)
                .map(|(_, v)| v.as_slice())
        };
        let Some(target) = param("HLAfederate")
            .and_then(|v| OpaqueData::decode(v).ok())
            .and_then(|v| FederateHandle::decode(&v.0).ok())
        else {
            return;
        };
        if !self.locals.contains_key(&target) {
            return;
        }
        match name.as_str() {
            "HLAfederate.HLAadjust.HLAsetTiming" => {
                let Some(secs) = param("HLAreportPeriod").and_then(|v| i32::decode(v).ok()) else {
                    return;
                };
                if secs <= 0 {
                    self.mom.timing.remove(&target);
                } else {
                    let period = u64::try_from(secs).unwrap_or(0).saturating_mul(1_000_000);
                    self.mom
                        .timing
                        .insert(target, (period, self.now.saturating_add(period)));
                }
            }
            "HLAfederate.HLArequest.HLArequestPublications" => self.mom_report_publications(target),
            "HLAfederate.HLArequest.HLArequestSubscriptions" => {
                self.mom_report_subscriptions(target)
            }
            "HLAfederate.HLArequest.HLArequestObjectInstancesThatCanBeDeleted" => {
                self.mom_report_can_be_deleted(target)
            }
            "HLAfederate.HLAservice.HLAresignFederationExecution" => {
                let action = param("HLAresignAction")
                    .and_then(|v| i32::decode(v).ok())
                    .and_then(resign_action)
                    .unwrap_or(ResignAction::NoAction);
                self.mom_resign(target, action);
            }
            _ => {}
        }
    }

    /// Sends MOM report `name` (below `HLAinteractionRoot.HLAmanager.`) about `target` (its
    /// `HLAfederate` parameter), with `target` as producer.
    fn mom_report(
        &mut self,
        producer: FederateHandle,
        target: Option<FederateHandle>,
        name: &str,
        params: &[(&str, Vec<u8>)],
    ) {
        let Some(fdd) = self.fdd.clone() else { return };
        let Some(class) = self
            .mom_handles()
            .and_then(|m| m.interactions.get(name).copied())
        else {
            return;
        };
        let mut ps = Vec::new();
        if let Some(t) = target
            && let Some(p) = MomHandles::param(&fdd, class, "HLAfederate")
        {
            ps.push((p, handle_value(&t.encode())));
        }
        for (n, v) in params {
            if let Some(p) = MomHandles::param(&fdd, class, n) {
                ps.push((p, v.clone()));
            }
        }
        self.send_data(
            true,
            DataMsg::Interaction {
                class,
                producer,
                params: ps,
                tag: Vec::new(),
                time: None,
                tso: false,
                retraction: None,
            },
        );
    }

    fn mom_report_publications(&mut self, f: FederateHandle) {
        let Some(lf) = self.locals.get(&f) else {
            return;
        };
        let objects: Vec<(ObjectClassHandle, Vec<AttributeHandle>)> = lf
            .decl
            .published_objects
            .iter()
            .map(|(c, a)| (*c, a.iter().copied().collect()))
            .collect();
        let interactions: Vec<Vec<u8>> = lf
            .decl
            .published_interactions
            .iter()
            .map(|i| i.encode().to_vec())
            .collect();
        let n = enc(i32::try_from(objects.len()).unwrap_or(i32::MAX));
        for (c, attrs) in objects {
            self.mom_report(
                f,
                Some(f),
                "HLAfederate.HLAreport.HLAreportObjectClassPublication",
                &[
                    ("HLAnumberOfClasses", n.clone()),
                    ("HLAobjectClass", handle_value(&c.encode())),
                    (
                        "HLAattributeList",
                        handle_list(attrs.iter().map(|a| a.encode().to_vec())),
                    ),
                ],
            );
        }
        self.mom_report(
            f,
            Some(f),
            "HLAfederate.HLAreport.HLAreportInteractionPublication",
            &[("HLAinteractionClassList", handle_list(interactions))],
        );
    }

    fn mom_report_subscriptions(&mut self, f: FederateHandle) {
        let Some(lf) = self.locals.get(&f) else {
            return;
        };
        let objects: Vec<(ObjectClassHandle, bool, String, Vec<AttributeHandle>)> = lf
            .decl
            .subscribed_objects
            .iter()
            .map(|(c, s)| {
                let rate = lf
                    .decl
                    .rates
                    .get(c)
                    .map(|r| r.designator.clone())
                    .unwrap_or_default();
                (*c, s.active, rate, s.attrs.iter().copied().collect())
            })
            .collect();
        let mut subs = Vec::new();
        for (ic, active) in &lf.decl.subscribed_interactions {
            // HLAinteractionSubscription: {HLAhandle, HLAboolean}, each field aligned.
            let mut e = crate::encoding::Encoder::new();
            e.put(&OpaqueData(ic.encode().to_vec()));
            e.put(active);
            subs.push(e.into_bytes());
        }
        let n = enc(i32::try_from(objects.len()).unwrap_or(i32::MAX));
        for (c, active, rate, attrs) in objects {
            self.mom_report(
                f,
                Some(f),
                "HLAfederate.HLAreport.HLAreportObjectClassSubscription",
                &[
                    ("HLAnumberOfClasses", n.clone()),
                    ("HLAobjectClass", handle_value(&c.encode())),
                    ("HLAactive", enc(active)),
                    ("HLAmaxUpdateRate", enc(rate)),
                    (
                        "HLAattributeList",
                        handle_list(attrs.iter().map(|a| a.encode().to_vec())),
                    ),
                ],
            );
        }
        // HLAinteractionSubList: a variable array of those records (boundary 4).
        let mut e = crate::encoding::Encoder::new();
        e.write_count(subs.len());
        for s in subs {
            e.align(4);
            e.write_bytes(&s);
        }
        self.mom_report(
            f,
            Some(f),
            "HLAfederate.HLAreport.HLAreportInteractionSubscription",
            &[("HLAinteractionClassList", e.into_bytes())],
        );
    }

    fn mom_report_can_be_deleted(&mut self, f: FederateHandle) {
        let mut per: BTreeMap<ObjectClassHandle, i32> = BTreeMap::new();
        for i in self.objects.values() {
            if self.privilege_holder(i) == Some(f) {
                *per.entry(i.class).or_default() += 1;
            }
        }
        // HLAobjectClassBasedCounts: records {HLAhandle class, HLAcount}.
        let mut e = crate::encoding::Encoder::new();
        e.write_count(per.len());
        for (c, n) in per {
            e.align(4);
            e.put(&OpaqueData(c.encode().to_vec()));
            e.put(&n);
        }
        self.mom_report(
            f,
            Some(f),
            "HLAfederate.HLAreport.HLAreportObjectInstancesThatCanBeDeleted",
            &[("HLAobjectInstanceCounts", e.into_bytes())],
        );
    }

    /// `HLAservice.HLAresignFederationExecution`: the target federate resigns with `action`
    /// (its application is not called back: its next call fails with
    /// `FederateNotExecutionMember`).
    fn mom_resign(&mut self, f: FederateHandle, action: ResignAction) {
        match self.resign(f, action) {
            Ok(_) => {}
            Err(e) => tracing::debug!(federation = %self.name, %f, "MOM resign refused: {e}"),
        }
    }

    /// A federate was lost: the voice reports `HLAreportFederateLost`.
    pub(crate) fn mom_federate_lost(&mut self, h: FederateHandle) {
        // Its name from its join, else (a log folded before this LRC came) from its instance,
        // which goes only when the loss is applied after its last data.
        let name = self
            .mom
            .names
            .remove(&h)
            .or_else(|| {
                self.objects
                    .get(&federate_instance(h))
                    .and_then(|i| i.name.strip_prefix("HLAfederate.").map(str::to_string))
            })
            .unwrap_or_default();
        let Some((voice, node)) = self.mom_voice() else {
            return;
        };
        if node != self.me {
            return;
        }
        self.mom_report(
            voice,
            Some(h),
            "HLAfederate.HLAreport.HLAreportFederateLost",
            &[
                ("HLAfederateName", enc(name)),
                ("HLAtimeStamp", OpaqueData(Vec::new()).encode()),
                (
                    "HLAfaultDescription",
                    enc("its LRC was lost (no heartbeat or connection)".to_string()),
                ),
            ],
        );
    }
}

/// HLAresignAction's values (1–6).
fn resign_action(v: i32) -> Option<ResignAction> {
    Some(match v {
        1 => ResignAction::UnconditionallyDivestAttributes,
        2 => ResignAction::DeleteObjects,
        3 => ResignAction::CancelPendingOwnershipAcquisitions,
        4 => ResignAction::DeleteObjectsThenDivest,
        5 => ResignAction::CancelThenDeleteThenDivest,
        6 => ResignAction::NoAction,
        _ => return None,
    })
}

impl FederationCore {
    /// Whether `class` is one of the MOM's `HLAreport` interactions (sent by the RTI).
    pub(crate) fn mom_is_report(&self, class: InteractionClassHandle) -> bool {
        self.mom
            .handles
            .as_ref()
            .and_then(|m| m.interaction_names.get(&class))
            .is_some_and(|n| n.contains(".HLAreport."))
    }

    /// Local federate `f`'s time state is (now) advancing or granted.
    pub(crate) fn mom_time_state(&mut self, f: FederateHandle, advancing: bool) {
        let now = self.now;
        if let Some(t) = self.mom.time_in_states.get_mut(&f) {
            t.enter(advancing, now);
        }
    }

    /// Instance `o` was removed here: the distinct-instance counts keep it as a number only.
    pub(crate) fn mom_on_instance_removed(&mut self, o: ObjectInstanceHandle) {
        for c in self.mom.counters.values_mut() {
            c.updated.forget(o);
            c.reflected.forget(o);
        }
    }

    /// Counts a data callback for local federate `f`'s `HLAfederate` counters.
    pub(crate) fn mom_note_delivered(&mut self, f: FederateHandle, cb: &super::Callback) {
        use super::Callback as C;
        let c = self.mom.counters.entry(f).or_default();
        match cb {
            C::ReflectAttributeValues { object, .. } => {
                c.reflections_received = c.reflections_received.saturating_add(1);
                c.reflected.insert(*object);
            }
            C::ReceiveInteraction { .. } => {
                c.interactions_received = c.interactions_received.saturating_add(1);
            }
            C::DiscoverObjectInstance { .. } => c.discovered = c.discovered.saturating_add(1),
            C::RemoveObjectInstance { .. } => c.removed = c.removed.saturating_add(1),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Action, Callback, Completion, Event};
    use crate::error::RtiError;
    use hlamesh_timesync::{DynInterval, HLAfloat64Interval};

    const FOM: &str = include_str!("../../../../foms/UpdateRates.xml");

    type Params = Vec<(ParameterHandle, Vec<u8>)>;

    /// One LRC (the coordinator) and the callbacks its federates got.
    struct One {
        core: FederationCore,
        got: Vec<(FederateHandle, Callback)>,
        updates_sent: usize,
    }

    impl One {
        fn new() -> One {
            let modules = vec![("UpdateRates.xml".to_string(), FOM.to_string())];
            let core = FederationCore::create("F", 1, 0, modules).expect("create");
            One {
                core,
                got: Vec::new(),
                updates_sent: 0,
            }
        }

        fn drain(&mut self) -> Option<FederateHandle> {
            let mut joined = None;
            while let Some(a) = self.core.poll_action() {
                match a {
                    Action::Complete {
                        result: Ok(Completion::Joined(h)),
                        ..
                    } => joined = Some(h),
                    Action::Callback { federate, callback } => self.got.push((federate, callback)),
                    Action::SendData {
                        class: Some(crate::core::DataClass::Object(_)),
                        ..
                    } => self.updates_sent += 1,
                    _ => {}
                }
            }
            joined
        }

        fn join(&mut self, name: &str) -> FederateHandle {
            self.core.join(Some(name.into()), "monitor");
            for _ in 0..10 {
                if let Some(h) = self.drain() {
                    return h;
                }
                self.core.handle(0, Event::Tick);
            }
            panic!("{name} never joined");
        }

        fn handles(&mut self) -> MomHandles {
            self.core.mom_handles().cloned().expect("the MIM")
        }

        fn attr(&mut self, n: &str) -> AttributeHandle {
            self.handles().federate_attrs[n]
        }

        /// The last value `f` had reflected of attribute `a` of `o`.
        fn reflected(
            &self,
            f: FederateHandle,
            o: ObjectInstanceHandle,
            a: AttributeHandle,
        ) -> Option<Vec<u8>> {
            self.got.iter().rev().find_map(|(g, cb)| match cb {
                Callback::ReflectAttributeValues { object, values, .. }
                    if *g == f && *object == o =>
                {
                    values.iter().find(|(x, _)| *x == a).map(|(_, v)| v.clone())
                }
                _ => None,
            })
        }

        /// The interactions `f` received so far: (class, parameters).
        fn received(&self, f: FederateHandle) -> Vec<(InteractionClassHandle, Params)> {
            self.got
                .iter()
                .filter_map(|(g, cb)| match cb {
                    Callback::ReceiveInteraction { class, params, .. } if *g == f => {
                        Some((*class, params.clone()))
                    }
                    _ => None,
                })
                .collect()
        }

        fn send_mom(
            &mut self,
            from: FederateHandle,
            name: &str,
            target: FederateHandle,
            params: &[(&str, Vec<u8>)],
        ) {
            let fdd = self.core.fdd_ref().expect("fdd");
            let ic = self.handles().interactions[name];
            self.core
                .publish_interaction_class(from, ic)
                .expect("publish");
            let mut ps = vec![(
                fdd.parameter_handle(ic, "HLAfederate")
                    .expect("HLAfederate"),
                handle_value(&target.encode()),
            )];
            for (n, v) in params {
                ps.push((fdd.parameter_handle(ic, n).expect("parameter"), v.clone()));
            }
            self.core
                .send_interaction(from, ic, ps, Vec::new(), None)
                .expect("send");
            self.drain();
        }
    }

    fn unicode(s: &str) -> Vec<u8> {
        s.to_string().encode()
    }

    #[test]
    fn every_federate_is_an_instance_its_subscribers_discover_with_the_mims_encodings() {
        let mut one = One::new();
        let a = one.join("A");
        let m = one.join("M");
        let class = one.handles().federate;
        let attrs: Vec<AttributeHandle> = one.handles().federate_attrs.values().copied().collect();
        // The MIM's 32 and the inherited HLAprivilegeToDeleteObject.
        assert_eq!(attrs.len(), 33, "every HLAfederate attribute of the MIM");
        assert_eq!(
            one.core.mom_federate_values(a, None).len(),
            32,
            "a value for each of the MIM's attributes"
        );
        one.core
            .subscribe_object_class_attributes(m, class, &attrs, true)
            .expect("subscribe");
        one.drain();
        let discovered: Vec<(ObjectInstanceHandle, String)> = one
            .got
            .iter()
            .filter_map(|(f, cb)| match cb {
                Callback::DiscoverObjectInstance { object, name, .. } if *f == m => {
                    Some((*object, name.clone()))
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            discovered,
            vec![
                (federate_instance(a), "HLAfederate.A".to_string()),
                (federate_instance(m), "HLAfederate.M".to_string()),
            ],
            "its own instance too"
        );
        // A regulates with lookahead 2.5, then M asks for the values.
        let la = DynInterval::Float(HLAfloat64Interval::new(2.5).expect("interval"));
        one.core
            .time_change(a, "enableTimeRegulation", |t| t.enable_time_regulation(la))
            .expect("regulate");
        one.drain();
        one.core
            .request_attribute_value_update(m, None, Some(class), attrs.clone(), Vec::new())
            .expect("request");
        one.drain();
        let oa = federate_instance(a);
        let v = |one: &mut One, n: &str| {
            let at = one.attr(n);
            one.reflected(m, oa, at)
                .unwrap_or_else(|| panic!("{n} reflected"))
        };
        assert_eq!(
            v(&mut one, "HLAfederateHandle"),
            vec![0, 0, 0, 4, 0, 0, 0, a.0 as u8]
        );
        assert_eq!(v(&mut one, "HLAfederateName"), unicode("A"));
        assert_eq!(v(&mut one, "HLAfederateType"), unicode("monitor"));
        assert_eq!(v(&mut one, "HLAtimeRegulating"), vec![0, 0, 0, 1]);
        assert_eq!(v(&mut one, "HLAtimeConstrained"), vec![0, 0, 0, 0]);
        let mut lookahead = vec![0, 0, 0, 8];
        lookahead.extend_from_slice(&2.5f64.to_be_bytes());
        assert_eq!(v(&mut one, "HLAlookahead"), lookahead);
        let mut zero = vec![0, 0, 0, 8];
        zero.extend_from_slice(&0.0f64.to_be_bytes());
        assert_eq!(v(&mut one, "HLAlogicalTime"), zero);
        assert_eq!(v(&mut one, "HLAfederateState"), vec![0, 0, 0, 1]);
        assert_eq!(v(&mut one, "HLAtimeManagerState"), vec![0, 0, 0, 0]);
        let mut modules = vec![0, 0, 0, 1];
        modules.extend(unicode("UpdateRates.xml"));
        assert_eq!(v(&mut one, "HLAFOMmoduleDesignatorList"), modules);
        assert_eq!(v(&mut one, "HLAupdatesSent"), vec![0, 0, 0, 0]);
        assert_eq!(v(&mut one, "HLAconveyProducingFederate"), vec![0, 0, 0, 1]);
        // A resigns: M's view of it goes.
        one.core.resign(a, ResignAction::NoAction).expect("resign");
        one.drain();
        assert!(
            one.got.iter().any(|(f, cb)| *f == m
                && matches!(cb, Callback::RemoveObjectInstance { object, .. } if *object == oa)),
            "A's instance removed"
        );
    }

    #[test]
    fn mom_instances_are_owned_by_the_rti() {
        let mut one = One::new();
        let a = one.join("A");
        let m = one.join("M");
        let class = one.handles().federate;
        let name = one.attr("HLAfederateName");
        one.core
            .publish_object_class_attributes(m, class, &[name])
            .expect("publish");
        one.core
            .subscribe_object_class_attributes(m, class, &[name], true)
            .expect("subscribe");
        one.drain();
        let oa = federate_instance(a);
        assert_eq!(
            one.core.is_attribute_owned_by_federate(m, oa, name),
            Ok(false)
        );
        assert!(matches!(
            one.core
                .update_attribute_values(m, oa, vec![(name, unicode("X"))], Vec::new(), None),
            Err(RtiError::AttributeNotOwned(_))
        ));
        assert!(matches!(
            one.core.delete_object_instance(m, oa, Vec::new(), None),
            Err(RtiError::DeletePrivilegeNotHeld(_))
        ));
        assert!(matches!(
            one.core
                .attribute_ownership_acquisition_if_available(m, oa, &[name]),
            Err(RtiError::AttributeNotPublished(_))
        ));
        one.core
            .query_attribute_ownership(m, oa, name)
            .expect("query");
        one.drain();
        assert!(one.got.iter().any(|(f, cb)| *f == m
            && *cb
                == Callback::AttributeIsOwnedByRti {
                    object: oa,
                    attr: name
                }));
    }

    #[test]
    fn periodic_updates_follow_set_timing_and_nothing_is_sent_without_it() {
        let mut one = One::new();
        let a = one.join("A");
        let m = one.join("M");
        let class = one.handles().federate;
        let name = one.attr("HLAfederateName");
        one.core
            .subscribe_object_class_attributes(m, class, &[name], true)
            .expect("subscribe");
        one.drain();
        one.updates_sent = 0;
        for t in 1..=50 {
            one.core.handle(t * 100_000, Event::Tick);
            one.drain();
        }
        assert_eq!(
            one.updates_sent, 0,
            "no MOM update while nobody set a timing"
        );
        // Report period 2 s from t = 5 s: due at 7, 9, 11 s.
        one.core.set_clock(5_000_000);
        one.send_mom(
            a.max(m),
            "HLAfederate.HLAadjust.HLAsetTiming",
            a,
            &[("HLAreportPeriod", 2i32.encode())],
        );
        assert_eq!(one.core.mom_report_period(a), Some(2_000_000));
        let mut at = Vec::new();
        for t in 51..=115 {
            let before = one.updates_sent;
            one.core.handle(t * 100_000, Event::Tick);
            one.drain();
            if one.updates_sent > before {
                at.push(t * 100_000);
            }
        }
        assert_eq!(at, vec![7_000_000, 9_000_000, 11_000_000]);
        // Period 0 stops them.
        one.send_mom(
            m,
            "HLAfederate.HLAadjust.HLAsetTiming",
            a,
            &[("HLAreportPeriod", 0i32.encode())],
        );
        assert_eq!(one.core.mom_report_period(a), None);
    }

    #[test]
    fn request_publications_is_answered_with_one_report_per_class() {
        let mut one = One::new();
        let a = one.join("A");
        let m = one.join("M");
        let fdd = one.core.fdd_ref().expect("fdd");
        let track = fdd.object_class_handle("Track").expect("Track");
        let seq = fdd.attribute_handle(track, "Sequence").expect("Sequence");
        one.core
            .publish_object_class_attributes(a, track, &[seq])
            .expect("publish");
        let h = one.handles();
        let report = h.interactions["HLAfederate.HLAreport.HLAreportObjectClassPublication"];
        let interactions = h.interactions["HLAfederate.HLAreport.HLAreportInteractionPublication"];
        one.core
            .subscribe_interaction_class(m, report, true)
            .expect("subscribe");
        one.core
            .subscribe_interaction_class(m, interactions, true)
            .expect("subscribe");
        one.send_mom(m, "HLAfederate.HLArequest.HLArequestPublications", a, &[]);
        let got = one.received(m);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0].0, report);
        let p = |c: InteractionClassHandle, ps: &[(ParameterHandle, Vec<u8>)], n: &str| {
            let h = fdd.parameter_handle(c, n).expect("parameter");
            ps.iter().find(|(x, _)| *x == h).map(|(_, v)| v.clone())
        };
        assert_eq!(
            p(report, &got[0].1, "HLAnumberOfClasses"),
            Some(1i32.encode())
        );
        assert_eq!(
            p(report, &got[0].1, "HLAobjectClass"),
            Some(handle_value(&track.encode()))
        );
        assert_eq!(
            p(report, &got[0].1, "HLAattributeList"),
            Some(handle_list([seq.encode().to_vec()]))
        );
        assert_eq!(
            p(report, &got[0].1, "HLAfederate"),
            Some(handle_value(&a.encode()))
        );
        assert_eq!(got[1].0, interactions);
        assert_eq!(
            p(interactions, &got[1].1, "HLAinteractionClassList"),
            Some(vec![0, 0, 0, 0])
        );
    }

    #[test]
    fn request_subscriptions_and_deletable_counts_are_reported_in_the_mims_records() {
        let mut one = One::new();
        let a = one.join("A");
        let m = one.join("M");
        let fdd = one.core.fdd_ref().expect("fdd");
        let track = fdd.object_class_handle("Track").expect("Track");
        let seq = fdd.attribute_handle(track, "Sequence").expect("Sequence");
        one.core
            .subscribe_object_class_attributes(a, track, &[seq], false)
            .expect("subscribe");
        one.core
            .publish_object_class_attributes(a, track, &[seq])
            .expect("publish");
        let o1 = one
            .core
            .register_object_instance(a, track, None)
            .expect("register");
        let _o2 = one
            .core
            .register_object_instance(a, track, None)
            .expect("register");
        one.drain();
        let h = one.handles();
        let subs = h.interactions["HLAfederate.HLAreport.HLAreportObjectClassSubscription"];
        let isubs = h.interactions["HLAfederate.HLAreport.HLAreportInteractionSubscription"];
        let counts =
            h.interactions["HLAfederate.HLAreport.HLAreportObjectInstancesThatCanBeDeleted"];
        for ic in [subs, isubs, counts] {
            one.core
                .subscribe_interaction_class(m, ic, true)
                .expect("subscribe");
        }
        one.got.clear();
        one.send_mom(m, "HLAfederate.HLArequest.HLArequestSubscriptions", a, &[]);
        one.send_mom(
            m,
            "HLAfederate.HLArequest.HLArequestObjectInstancesThatCanBeDeleted",
            a,
            &[],
        );
        let got: BTreeMap<InteractionClassHandle, Params> = one.received(m).into_iter().collect();
        let p = |c: InteractionClassHandle, n: &str| {
            let ph = fdd.parameter_handle(c, n).expect("parameter");
            got[&c]
                .iter()
                .find(|(x, _)| *x == ph)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(
            p(subs, "HLAobjectClass"),
            Some(handle_value(&track.encode()))
        );
        assert_eq!(p(subs, "HLAactive"), Some(false.encode()), "passive");
        assert_eq!(p(subs, "HLAmaxUpdateRate"), Some(String::new().encode()));
        assert_eq!(p(subs, "HLAnumberOfClasses"), Some(1i32.encode()));
        assert_eq!(p(isubs, "HLAinteractionClassList"), Some(vec![0, 0, 0, 0]));
        // HLAobjectClassBasedCounts: one record {HLAhandle Track, HLAcount 2}.
        let mut want = vec![0, 0, 0, 1];
        want.extend(handle_value(&track.encode()));
        want.extend(2i32.to_be_bytes());
        assert_eq!(p(counts, "HLAobjectInstanceCounts"), Some(want));
        // The counters agree.
        let values = one.core.mom_federate_values(a, None);
        let at = one.attr("HLAobjectInstancesRegistered");
        assert_eq!(
            values
                .iter()
                .find(|(x, _)| *x == at)
                .map(|(_, v)| v.clone()),
            Some(2i32.encode())
        );
        let at = one.attr("HLAobjectInstancesThatCanBeDeleted");
        assert_eq!(
            values
                .iter()
                .find(|(x, _)| *x == at)
                .map(|(_, v)| v.clone()),
            Some(2i32.encode())
        );
        let _ = o1;
    }

    #[test]
    fn the_federation_instance_names_the_federation_its_federates_and_time_implementation() {
        let mut one = One::new();
        let a = one.join("A");
        let m = one.join("M");
        let h = one.handles();
        let attrs: Vec<AttributeHandle> = h.federation_attrs.values().copied().collect();
        assert_eq!(
            attrs.len(),
            13,
            "the MIM's 12 attributes and HLAprivilegeToDeleteObject"
        );
        one.core
            .subscribe_object_class_attributes(m, h.federation, &attrs, true)
            .expect("subscribe");
        one.drain();
        assert!(one.got.iter().any(|(f, cb)| *f == m
            && matches!(cb, Callback::DiscoverObjectInstance { object, name, .. }
                if *object == federation_instance() && name == FEDERATION_INSTANCE_NAME)));
        one.core
            .request_attribute_value_update(m, Some(federation_instance()), None, attrs, Vec::new())
            .expect("request");
        one.drain();
        let o = federation_instance();
        let v = |one: &One, n: &str| one.reflected(m, o, h.federation_attrs[n]);
        assert_eq!(v(&one, "HLAfederationName"), Some(unicode("F")));
        assert_eq!(
            v(&one, "HLAfederatesInFederation"),
            Some(handle_list([a.encode().to_vec(), m.encode().to_vec()]))
        );
        assert_eq!(
            v(&one, "HLAtimeImplementationName"),
            Some(unicode("HLAfloat64Time"))
        );
        assert_eq!(v(&one, "HLAMIMdesignator"), Some(unicode(MIM_DESIGNATOR)));
        assert_eq!(v(&one, "HLAlastSaveName"), Some(unicode("")));
        assert_eq!(
            v(&one, "HLAlastSaveTime"),
            Some(vec![0, 0, 0, 0]),
            "no save: empty"
        );
    }

    #[test]
    fn time_in_the_granted_and_advancing_states_adds_up() {
        let mut t = TimeInStates {
            since: 1_000_000,
            ..TimeInStates::default()
        };
        assert_eq!(t.millis(3_500_000), (2_500, 0), "granted since the join");
        t.enter(true, 4_000_000);
        t.enter(true, 4_500_000); // no change
        assert_eq!(t.millis(4_750_000), (3_000, 750));
        t.enter(false, 5_000_000);
        assert_eq!(t.millis(6_000_000), (4_000, 1_000));
    }

    #[test]
    fn an_advance_request_and_its_grant_move_the_federates_time_between_the_states() {
        let mut one = One::new();
        let a = one.join("A");
        one.core.set_clock(2_000_000);
        let t = hlamesh_timesync::DynTime::Float(
            hlamesh_timesync::HLAfloat64Time::new(5.0).expect("time"),
        );
        one.core
            .time_change(a, "timeAdvanceRequest", |m| m.time_advance_request(t))
            .expect("TAR");
        one.drain();
        assert!(
            one.got
                .iter()
                .any(|(f, cb)| *f == a && matches!(cb, Callback::TimeAdvanceGrant(_))),
            "granted at once (not regulated by anyone)"
        );
        one.core.set_clock(3_000_000);
        let granted = one.attr("HLAtimeGrantedTime");
        let values = one.core.mom_federate_values(a, Some(&[granted]));
        assert_eq!(values, vec![(granted, 3_000i32.encode())]);
    }

    #[test]
    fn a_removed_instance_stays_counted_but_is_no_longer_remembered() {
        let mut d = DistinctInstances::default();
        let (a, b) = (ObjectInstanceHandle(1), ObjectInstanceHandle(2));
        d.insert(a);
        d.insert(a);
        d.insert(b);
        assert_eq!(d.len(), 2);
        d.forget(a);
        d.forget(a);
        assert_eq!(d.len(), 2, "still counted, once");
        assert_eq!(d.live.len(), 1, "only b remembered");
        d.insert(a);
        assert_eq!(
            d.len(),
            3,
            "a handle seen again after its removal is a new instance"
        );
    }
}
