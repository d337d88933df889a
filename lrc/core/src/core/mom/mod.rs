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
//!   decides which instances are due; the core reads no clock,
//! - when an attribute the MIM updates conditionally (time regulating and constrained,
//!   asynchronous delivery, federate state, time manager state, the switches; the
//!   federation's federates, modules, current FDD and saves) changes while some federate
//!   subscribes to it (`conditional.rs`).
//!
//! # Interactions answered
//!
//! Which LRC answers (`dispatch.rs`): a federate-level interaction (`HLAmanager.HLAfederate.*`)
//! is answered by the LRC hosting its `HLAfederate`, with that federate as producer; a
//! federation-level one (`HLAmanager.HLAfederation.*`) by the voice. Reports are the RTI's:
//! they reach a subscribed producer too. Parameters are encoded with the MIM's datatypes.
//!
//! - **Requests** (`requests.rs`): `HLArequestPublications` (→ one
//!   `HLAreportObjectClassPublication` per class, `HLAreportInteractionPublication`),
//!   `HLArequestSubscriptions` (→ one `HLAreportObjectClassSubscription` per class,
//!   `HLAreportInteractionSubscription`), `HLArequestObjectInstancesThatCanBeDeleted`,
//!   `HLArequestObjectInstancesUpdated` (by registered class), `HLArequestObjectInstancesReflected`
//!   (by known class), `HLArequestUpdatesSent`, `HLArequestReflectionsReceived`,
//!   `HLArequestInteractionsSent`, `HLArequestInteractionsReceived` (one report per
//!   transportation, `HLAreliable` then `HLAbestEffort`, counts by class; an update whose
//!   attributes go by both counts once for each), `HLArequestObjectInstanceInformation` (owned
//!   attributes, registered and known class; an instance the federate does not know is a
//!   parameter error), `HLArequestFOMmoduleData` (`HLAFOMmoduleIndicator` from 0 into
//!   `HLAFOMmoduleDesignatorList`). Federation level: `HLArequestSynchronizationPoints`,
//!   `HLArequestSynchronizationPointStatus` (the MIM gives it no point name: one
//!   `HLAreportSynchronizationPointStatus` per pending point, members that achieved are
//!   `WaitingForRestOfFederation`, the others `MovingToSynchPoint`), `HLArequestFOMmoduleData`,
//!   `HLArequestMIMdata`. The voice also sends `HLAreportFederateLost` when a federate is lost.
//! - **Services** (`service.rs`): every `HLAservice` interaction hlamesh has a service for
//!   (resign, synchronization point achieved, save begun / complete, restore complete,
//!   publish / unpublish / subscribe / unsubscribe of object class attributes and interaction
//!   classes, delete and local delete, unconditional divestiture, enable / disable time
//!   regulation and constraint, TAR, TARA, NMR, NMRA, FQR, asynchronous delivery, modify
//!   lookahead, change attribute / interaction order type) is performed by calling the
//!   `FederationCore` method the ambassador calls for the federate's own call, so its state and
//!   callbacks are those of its own call.
//! - **Adjustments**: `HLAsetTiming` (periodic updates), `HLAsetServiceReporting` and
//!   `HLAsetExceptionReporting` (`reporting.rs`: `HLAreportServiceInvocation` for each service the
//!   federate invokes, the MOM invokes for it and each callback it is given;
//!   `HLAreportException` for each that fails; enabling service reporting for a federate
//!   subscribed to `HLAreportServiceInvocation` fails, and no report's receipt is reported),
//!   `HLAsetSwitches` of a federate and of the federation (`switches.rs`: Convey Producing
//!   Federate and Convey Region Designator Sets honoured for the receiving federate, the
//!   latter also from the FDD (`super::convey`), Auto-Provide for the federation, decided in
//!   the coordinator's log; a changed switch updates its instance at once),
//!   `HLAmodifyAttributeState` (`attribute_state.rs`: taking an attribute from its owner, in
//!   any process, through a transfer decision that notifies neither federate).
//! - **`HLAreportMOMexception`**: to a MOM interaction whose parameter is missing or
//!   undecodable or whose federate is not joined (`HLAparameterError` true; from the voice when
//!   no LRC hosts the target), to a service whose preconditions fail (the service's exception,
//!   `HLAparameterError` false), and to an interaction hlamesh has no service for. Counted:
//!   [`FederationCore::mom_exception_counters`], exported as
//!   `hlamesh_mom_interactions_malformed_total` and `hlamesh_mom_exceptions_sent_total`.
//!
//! # Values kept true
//!
//! - `HLAFOMmoduleDesignatorList` of a federate lists the modules *it* brought at its join
//!   (the first of identical ones); `HLArequestFOMmoduleData` indexes that list. The
//!   federation's lists every module once.
//! - `HLAROlength` / `HLATSOlength` count what waits for the federate in its time manager, in a
//!   save or restore, and (receive order) in the shell's callback queue (`queues.rs`).
//! - `HLAtimeManagerState` is advancing, and a time service the MOM performs is refused as the
//!   federate's own call would be (`InTimeAdvancingState`), while its grant has not reached it:
//!   in the core's actions, held by a save, or waiting in the shell's queue (`queues.rs`).
//! - Across a restore (also into new processes), a federate's counters, reporting state,
//!   report period, switches and modules are the saved ones, and so is the federation's
//!   Auto-Provide; what a late joiner or a new voice knows: `persist.rs`.
//!
//! # Known gaps
//!
//! A conditional attribute's change is found at the core's next poll, so a state entered and
//! left within one step (between two polls) is not sent (`conditional.rs`). The FDD's initial
//! Convey Producing Federate and Auto-Provide values are not applied, only `HLAsetSwitches`
//! (see `switches.rs`). A `HLAmodifyAttributeState` that loses a race with another
//! transfer of the same attribute has no effect and no exception. The
//! transportation-type-change services are refused (hlamesh has none). A federate resigned by
//! `HLAresignFederationExecution` is not told (its next call fails with
//! `FederateNotExecutionMember`). Service reporting covers the calls that go through
//! `RtiAmbassador` methods taking the core's lock with the federate's handle (not join/resign,
//! the support services' name and handle look-ups, or callback control); supplied arguments
//! are the Rust `Debug` text of the call's arguments, at most 1,024 characters each.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::encoding::typed::{DataElement, OpaqueData};
use crate::fom::Fdd;
use crate::handles::{
    AttributeHandle, FederateHandle, InteractionClassHandle, ObjectClassHandle,
    ObjectInstanceHandle, ParameterHandle,
};
use hlamesh_timesync::{ConstraintState, LogicalTime, LogicalTimeInterval, RegulationState};

use super::objects::Instance;
use super::time::Manager;
use super::wire::DataMsg;
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
    /// The attributes of `HLAfederate` whose update type is `Conditional` (see
    /// `conditional.rs`).
    pub conditional_federate: BTreeSet<AttributeHandle>,
    /// The same of `HLAfederation`.
    pub conditional_federation: BTreeSet<AttributeHandle>,
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
            conditional_federate: conditional::conditional_attributes(fdd, federate),
            conditional_federation: conditional::conditional_attributes(fdd, federation),
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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
    /// Instances it updated (`HLAobjectInstancesUpdated` is their number), by registered class.
    pub updated: DistinctInstances,
    /// Instances it had reflected (`HLAobjectInstancesReflected`), by known class.
    pub reflected: DistinctInstances,
    /// Update messages sent, by (transportation, registered class) (`HLAreportUpdatesSent`).
    pub updates_by: BTreeMap<(u32, ObjectClassHandle), u32>,
    /// Reflections received, by (transportation, known class) (`HLAreportReflectionsReceived`).
    pub reflections_by: BTreeMap<(u32, ObjectClassHandle), u32>,
    /// Interactions sent, by (transportation, class) (`HLAreportInteractionsSent`).
    pub interactions_sent_by: BTreeMap<(u32, InteractionClassHandle), u32>,
    /// Interactions received, by (transportation, received class)
    /// (`HLAreportInteractionsReceived`).
    pub interactions_received_by: BTreeMap<(u32, InteractionClassHandle), u32>,
}

/// Adds one to a per-key count.
pub(crate) fn bump<K: Ord>(m: &mut BTreeMap<K, u32>, k: K) {
    let n = m.entry(k).or_default();
    *n = n.saturating_add(1);
}

/// A count of distinct instances that remembers only the ones still here: an instance removed
/// from this LRC leaves its count, not its handle, so memory follows the live instances rather
/// than every instance a long run ever saw.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DistinctInstances {
    live: BTreeMap<ObjectInstanceHandle, ObjectClassHandle>,
    gone: BTreeMap<ObjectClassHandle, usize>,
}

impl DistinctInstances {
    /// Counts `o`, of class `class` (once).
    pub fn insert(&mut self, o: ObjectInstanceHandle, class: ObjectClassHandle) {
        self.live.entry(o).or_insert(class);
    }

    /// `o` was removed here: it stays counted, no longer remembered.
    pub fn forget(&mut self, o: ObjectInstanceHandle) {
        if let Some(c) = self.live.remove(&o) {
            let n = self.gone.entry(c).or_default();
            *n = n.saturating_add(1);
        }
    }

    /// Distinct instances counted.
    pub fn len(&self) -> usize {
        self.gone
            .values()
            .fold(self.live.len(), |a, n| a.saturating_add(*n))
    }

    /// Distinct instances counted, by class (classes with none left out).
    pub fn by_class(&self) -> BTreeMap<ObjectClassHandle, usize> {
        let mut out = self.gone.clone();
        for c in self.live.values() {
            let n = out.entry(*c).or_default();
            *n = n.saturating_add(1);
        }
        out.retain(|_, n| *n > 0);
        out
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
    /// Local federates whose service invocations are reported (`HLAsetServiceReporting`), with
    /// the serial number of their next `HLAreportServiceInvocation`.
    pub(crate) service_reporting: BTreeMap<FederateHandle, i32>,
    /// Local federates whose exceptions are reported (`HLAsetExceptionReporting`).
    pub(crate) exception_reporting: BTreeSet<FederateHandle>,
    /// Reports about invocations waiting to be sent (see [`FederationCore::mom_flush`]).
    pub(crate) invocations: Vec<Invocation>,
    /// Switches of local federates set by `HLAmanager.HLAfederate.HLAadjust.HLAsetSwitches`.
    pub(crate) switches: BTreeMap<FederateHandle, FederateSwitches>,
    /// The federation's Auto-Provide switch once `HLAfederation.HLAadjust.HLAsetSwitches` set it
    /// (replicated: decided in the coordinator's log, see `switches.rs`).
    pub(crate) auto_provide: Option<bool>,
    /// Local federates whose Convey Producing Federate switch is off: their reflections,
    /// interactions and removals carry no producing federate (see `switches.rs`).
    pub(crate) producer_hidden: BTreeSet<FederateHandle>,
    /// Instances local federates discovered while Auto-Provide is on: their subscribed
    /// attributes are requested at the next poll (see `switches.rs`).
    pub(crate) auto_requests: Vec<(FederateHandle, ObjectInstanceHandle)>,
    /// The FOM modules each local federate brought at its join (`HLAFOMmoduleDesignatorList`
    /// of its `HLAfederate`): designator and index of the module in the federation's list.
    pub(crate) modules: BTreeMap<FederateHandle, Vec<(String, usize)>>,
    /// Each local federate's callback queue, as the shell lets the core see it (see
    /// `queues.rs`).
    pub(crate) queues: BTreeMap<FederateHandle, Arc<dyn CallbackQueueView>>,
    /// MOM interactions this LRC answered with `HLAreportMOMexception` because of a missing or
    /// undecodable parameter or an unknown federate.
    pub(crate) malformed: u64,
    /// `HLAreportMOMexception`s this LRC sent (malformed interactions and failed services).
    pub(crate) exceptions_sent: u64,
    /// The conditional attributes watched and what was last sent of them (`conditional.rs`).
    pub(crate) conditional: conditional::Conditional,
}

/// A federate's switches (`HLAsetSwitches`); `None`: the FDD's value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FederateSwitches {
    /// Convey Region Designator Sets.
    pub convey_region_designator_sets: Option<bool>,
    /// Convey Producing Federate.
    pub convey_producing_federate: Option<bool>,
}

/// A service invocation (or exception) to report about a local federate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Invocation {
    pub(crate) federate: FederateHandle,
    /// The service's name (`updateAttributeValues`, a callback's `reflectAttributeValues`).
    pub(crate) service: String,
    /// The supplied arguments, when service reporting is on.
    pub(crate) supplied: Option<Vec<String>>,
    /// The returned value (success) or the exception.
    pub(crate) outcome: Result<Vec<String>, String>,
}

/// How long a local federate has been in the Time Granted and Time Advancing states (µs of
/// the shell's clock; `HLAtimeGrantedTime` / `HLAtimeAdvancingTime` in ms). A federate is
/// granted from its join until its first advance request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
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

    /// Local federate `h` joined by request `id` of this LRC: the FOM modules that request
    /// brought are its `HLAFOMmoduleDesignatorList` (the first of identical ones, the MIM's
    /// rule), each with its place in the federation's list (for `HLArequestFOMmoduleData`).
    pub(crate) fn mom_note_join_modules(&mut self, h: FederateHandle, id: u64) {
        let Some(super::Pending {
            body: super::wire::Request::Join { modules, .. },
            ..
        }) = self.pending.get(&id)
        else {
            return;
        };
        let mut list: Vec<(String, usize)> = Vec::new();
        for (designator, text) in modules {
            let Some(i) = self.modules.iter().position(|(_, t)| t == text) else {
                continue;
            };
            if !list.iter().any(|(_, j)| *j == i) {
                list.push((designator.clone(), i));
            }
        }
        self.mom.modules.insert(h, list);
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
        self.mom_switches_at_join(h);
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
        self.mom_send_values(object, h, values, Vec::new());
    }

    /// A federate resigned or was lost: its `HLAfederate` instance goes (at every LRC, see the
    /// module docs).
    pub(crate) fn mom_on_resigned(&mut self, h: FederateHandle) {
        self.mom.counters.remove(&h);
        self.mom.timing.remove(&h);
        self.mom.time_in_states.remove(&h);
        self.mom.service_reporting.remove(&h);
        self.mom.exception_reporting.remove(&h);
        self.mom.switches.remove(&h);
        self.mom.modules.remove(&h);
        self.mom.queues.remove(&h);
        self.mom.producer_hidden.remove(&h);
        let o = federate_instance(h);
        self.mom_forget_sent(o);
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
        if self.mom_handles().is_none() || self.fdd.is_none() {
            return Vec::new();
        }
        // Read-only from here: the handles are borrowed, not cloned (the conditional updates
        // ask at every poll while watched).
        let this = &*self;
        let Some(m) = this.mom.handles.as_ref() else {
            return Vec::new();
        };
        let record = this.view.federates.get(&f);
        let name = record.map_or("", |r| r.name.as_str());
        let federate_type = record.map_or("", |r| r.federate_type.as_str());
        // A grant still on its way to the federate leaves it advancing (see `queues.rs`).
        let undelivered = this.grant_undelivered(f);
        let tm: Option<&Manager> = this.time.managers.get(&f);
        let regulating = tm.is_some_and(|t| t.regulation() == RegulationState::On);
        let constrained = tm.is_some_and(|t| t.constraint() == ConstraintState::On);
        let asynchronous = tm.is_some_and(|t| t.asynchronous_delivery());
        // The manager's own flag is the ambassador's word at its last time service: the
        // core's answer now is the one that counts.
        let advancing = tm.is_some_and(|t| t.pending_advance().is_some()) || undelivered;
        let kind = this.time.kind;
        let logical = tm.map(|t| kind.convert(t.federate_logical_time()));
        let lookahead = tm
            .and_then(|t| t.query_lookahead().ok())
            .map(|l| kind.convert_interval(l));
        let galt = tm.and_then(|t| t.galt()).map(|t| kind.convert(t));
        let lits = tm.and_then(|t| t.lits()).map(|t| kind.convert(t));
        let state = match this.refuse_during_save_or_restore(f, "MOM") {
            Err(crate::error::RtiError::SaveInProgress(_)) => 3,
            Err(crate::error::RtiError::RestoreInProgress(_)) => 5,
            _ => 1,
        };
        let (convey_regions, convey_producer) =
            (this.mom_convey_regions(f), this.mom_convey_producer(f));
        let none = Counters::default();
        let c = this.mom.counters.get(&f).unwrap_or(&none);
        let (granted_ms, advancing_ms) = this
            .mom
            .time_in_states
            .get(&f)
            .map_or((0, 0), |t| t.millis(this.now));
        let count = |n: usize| -> Vec<u8> { enc(i32::try_from(n).unwrap_or(i32::MAX)) };
        let mut out = Vec::new();
        for (attr, h) in &m.federate_attrs {
            if only.is_some_and(|o| !o.contains(h)) {
                continue;
            }
            let v = match attr.as_str() {
                "HLAfederateHandle" => handle_value(&f.encode()),
                "HLAfederateName" => enc(name.to_string()),
                "HLAfederateType" => enc(federate_type.to_string()),
                "HLAfederateHost" => enc(this.mom.host.clone()),
                "HLARTIversion" => enc(RTI_VERSION.to_string()),
                // The modules it brought at its join (`mom_note_join_modules`).
                "HLAFOMmoduleDesignatorList" => enc(this
                    .mom
                    .modules
                    .get(&f)
                    .map(|m| m.iter().map(|(d, _)| d.clone()).collect::<Vec<_>>())
                    .unwrap_or_default()),
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
                // Walks the queues: computed only when asked for (the conditional updates
                // ask for a few attributes at every poll, see `conditional.rs`).
                "HLAROlength" => count(this.queued_messages(f).0),
                "HLATSOlength" => count(this.queued_messages(f).1),
                "HLAreflectionsReceived" => enc(c.reflections_received as i32),
                "HLAupdatesSent" => enc(c.updates_sent as i32),
                "HLAinteractionsReceived" => enc(c.interactions_received as i32),
                "HLAinteractionsSent" => enc(c.interactions_sent as i32),
                "HLAobjectInstancesThatCanBeDeleted" => count(
                    this.objects
                        .values()
                        .filter(|i| this.privilege_holder(i) == Some(f))
                        .count(),
                ),
                "HLAobjectInstancesUpdated" => count(c.updated.len()),
                "HLAobjectInstancesReflected" => count(c.reflected.len()),
                "HLAobjectInstancesDeleted" => enc(c.deleted as i32),
                "HLAobjectInstancesRemoved" => enc(c.removed as i32),
                "HLAobjectInstancesRegistered" => enc(c.registered as i32),
                "HLAobjectInstancesDiscovered" => enc(c.discovered as i32),
                "HLAtimeGrantedTime" => enc(granted_ms),
                "HLAtimeAdvancingTime" => enc(advancing_ms),
                "HLAconveyRegionDesignatorSets" => enc(i32::from(convey_regions)),
                "HLAconveyProducingFederate" => enc(i32::from(convey_producer)),
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
        if self.mom_handles().is_none() || self.fdd.is_none() {
            return Vec::new();
        }
        let this = &*self;
        let Some(m) = this.mom.handles.as_ref() else {
            return Vec::new();
        };
        let federates = handle_list(this.view.federates.keys().map(|h| h.encode().to_vec()));
        let modules: Vec<String> = this.modules.iter().map(|(d, _)| d.clone()).collect();
        let (last_name, last_time) = self
            .mom
            .last_save
            .clone()
            .map_or((None, None), |(l, t)| (Some(l), t));
        let (next_name, next_time) = self
            .save
            .current()
            .map_or((None, None), |s| (Some(s.label.clone()), s.time));
        let kind = this.time.kind;
        let auto_provide = i32::from(this.mom_auto_provide());
        let mut out = Vec::new();
        for (attr, h) in &m.federation_attrs {
            if only.is_some_and(|o| !o.contains(h)) {
                continue;
            }
            let v = match attr.as_str() {
                "HLAfederationName" => enc(this.name.clone()),
                "HLAfederatesInFederation" => federates.clone(),
                "HLARTIversion" => enc(RTI_VERSION.to_string()),
                "HLAMIMdesignator" => enc(MIM_DESIGNATOR.to_string()),
                // The modules it brought at its join (`mom_note_join_modules`).
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
    pub(super) fn mom_send_instance(
        &mut self,
        o: ObjectInstanceHandle,
        only: Option<&[AttributeHandle]>,
        tag: Vec<u8>,
    ) {
        let Some(producer) = self.mom_producer(o) else {
            return;
        };
        let values = if o == federation_instance() {
            self.mom_federation_values(only)
        } else {
            self.mom_federate_values(producer, only)
        };
        self.mom_send_values(o, producer, values, tag);
    }

    /// The federate whose stream carries the values of MOM instance `o` if this LRC maintains
    /// it: its federate, or the voice for the federation's.
    pub(super) fn mom_producer(&self, o: ObjectInstanceHandle) -> Option<FederateHandle> {
        if o == federation_instance() {
            self.mom_voice()
                .filter(|(_, node)| *node == self.me)
                .map(|(v, _)| v)
        } else {
            let f = o.registrant();
            self.locals.contains_key(&f).then_some(f)
        }
    }

    /// Sends `values` of MOM instance `o` in `producer`'s stream (and remembers the
    /// conditional ones, see `conditional.rs`).
    pub(super) fn mom_send_values(
        &mut self,
        o: ObjectInstanceHandle,
        producer: FederateHandle,
        values: Vec<(AttributeHandle, Vec<u8>)>,
        tag: Vec<u8>,
    ) {
        if values.is_empty() {
            return;
        }
        self.mom_note_sent(o, &values);
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
        let known = match cb {
            C::ReflectAttributeValues { object, .. } => self
                .locals
                .get(&f)
                .and_then(|l| l.known.get(object).copied())
                .or_else(|| self.objects.get(object).map(|i| i.class)),
            _ => None,
        };
        let c = self.mom.counters.entry(f).or_default();
        match cb {
            C::ReflectAttributeValues { object, info, .. } => {
                c.reflections_received = c.reflections_received.saturating_add(1);
                if let Some(k) = known {
                    c.reflected.insert(*object, k);
                    bump(&mut c.reflections_by, (info.transportation.0, k));
                }
            }
            C::ReceiveInteraction { class, info, .. } => {
                c.interactions_received = c.interactions_received.saturating_add(1);
                bump(
                    &mut c.interactions_received_by,
                    (info.transportation.0, *class),
                );
            }
            C::DiscoverObjectInstance { .. } => c.discovered = c.discovered.saturating_add(1),
            C::RemoveObjectInstance { .. } => c.removed = c.removed.saturating_add(1),
            _ => {}
        }
    }
}

mod attribute_state;
mod conditional;
mod dispatch;
mod persist;
mod queues;
mod reporting;
mod requests;
mod service;
mod switches;

pub use dispatch::MomFailure;
pub use persist::SavedMom;
pub use queues::CallbackQueueView;
pub use switches::NO_PRODUCER;

#[cfg(test)]
mod tests;
