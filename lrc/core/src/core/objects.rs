//! The object registry and object management: registration, updates and reflections,
//! interactions, deletion, value-update requests.
//!
//! Every LRC receives the whole stream and keeps every instance; what a local federate sees is
//! decided here from its subscriptions (see [`super::declarations`]). Instance handles are
//! `(registrant, counter)` so registration needs no round trip; the registrant owns the
//! attributes it publishes at registration plus `HLAprivilegeToDeleteObject`. Ownership is per
//! instance attribute and changes hands as [`super::ownership`] describes; whoever holds
//! `HLAprivilegeToDeleteObject` may delete the instance.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::RtiError;
use crate::fom::{OrderType, PRIVILEGE_TO_DELETE};
use crate::handles::{
    AttributeHandle, FederateHandle, InteractionClassHandle, MessageRetractionHandle,
    ObjectClassHandle, ObjectInstanceHandle, ParameterHandle, TransportationTypeHandle,
};

use super::wire::{DataMsg, Request, ResignAction, Timestamp};
use super::{Callback, FederationCore, Node, ReceiveInfo};

/// One object instance as this LRC knows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    /// Registered class.
    pub class: ObjectClassHandle,
    /// Name.
    pub name: String,
    /// Owner of each owned attribute (an attribute that is absent is unowned).
    pub owners: BTreeMap<AttributeHandle, FederateHandle>,
    /// Ownership version of each attribute that changed hands (absent: 0, as registered).
    pub versions: BTreeMap<AttributeHandle, u32>,
    /// Last values seen.
    pub values: BTreeMap<AttributeHandle, Vec<u8>>,
    /// The LRC whose data stream registered it (the authority on it once it is orphaned).
    pub origin: Node,
}

/// A received interaction's fields (see `apply_interaction`).
struct Received {
    class: InteractionClassHandle,
    producer: FederateHandle,
    params: Vec<(ParameterHandle, Vec<u8>)>,
    tag: Vec<u8>,
    time: Option<Timestamp>,
    tso: bool,
    retraction: Option<u32>,
}

/// What every reflection of one received update shares (see `reflect_to_locals`).
struct Reflected {
    object: ObjectInstanceHandle,
    producer: FederateHandle,
    time: Option<Timestamp>,
    reliable: bool,
    tso: bool,
    seq: u64,
    held: bool,
    /// The sender's retraction handle (time-stamp-order updates).
    retraction: Option<MessageRetractionHandle>,
}

impl Instance {
    /// Owner of attribute `a`.
    pub fn owner_of(&self, a: AttributeHandle) -> Option<FederateHandle> {
        self.owners.get(&a).copied()
    }

    /// Ownership version of attribute `a` (how many times it changed hands).
    pub fn version(&self, a: AttributeHandle) -> u32 {
        self.versions.get(&a).copied().unwrap_or(0)
    }

    /// Whether `f` owns any attribute of this instance.
    pub fn owned_by_any(&self, f: FederateHandle) -> bool {
        self.owners.values().any(|o| *o == f)
    }

    /// Attributes `f` owns.
    pub fn owned_by(&self, f: FederateHandle) -> BTreeSet<AttributeHandle> {
        self.owners
            .iter()
            .filter(|(_, o)| **o == f)
            .map(|(a, _)| *a)
            .collect()
    }
}

/// The three messages an update may split into (indexes of `kinds` in
/// `update_attribute_values`), in the order they are sent.
const RELIABLE_TS: usize = 0;
const RELIABLE_RO: usize = 1;
const BEST_EFFORT: usize = 2;

/// Transportation handle of HLAreliable / HLAbestEffort with the standard MIM.
fn transportation(reliable: bool) -> TransportationTypeHandle {
    TransportationTypeHandle(if reliable { 1 } else { 2 })
}

/// What a receiver is told about a reflected update or received interaction (as it arrives:
/// receive order; a time manager that delivers it in time-stamp order says so itself).
pub(crate) fn received(
    producer: FederateHandle,
    time: &Option<Timestamp>,
    reliable: bool,
    retraction: Option<MessageRetractionHandle>,
) -> ReceiveInfo {
    ReceiveInfo {
        producer,
        sent_order: if time.is_some() {
            OrderType::TimeStamp
        } else {
            OrderType::Receive
        },
        received_order: OrderType::Receive,
        transportation: transportation(reliable),
        time: time.clone(),
        retraction,
        sent_regions: None,
    }
}

fn illegal(name: &str) -> bool {
    name.is_empty() || name.starts_with("HLA")
}

impl FederationCore {
    fn not_known(&self, f: FederateHandle, o: ObjectInstanceHandle) -> RtiError {
        RtiError::ObjectInstanceNotKnown(format!(
            "federation {}: federate {f} does not know object instance {o}",
            self.name
        ))
    }

    pub(crate) fn is_reliable_attr(&self, class: ObjectClassHandle, a: AttributeHandle) -> bool {
        self.fdd
            .as_ref()
            .and_then(|f| f.attribute(class, a).ok().map(|x| x.transportation.0 != 2))
            .unwrap_or(true)
    }

    /// 6.2 / 6.5: reserve names through the coordinator; the answer is a callback.
    pub fn reserve_object_instance_names(
        &mut self,
        f: FederateHandle,
        names: Vec<String>,
        multiple: bool,
    ) -> Result<(), RtiError> {
        self.local(f)?;
        self.refuse_during_save_or_restore(f, "reserveObjectInstanceName")?;
        if multiple && names.is_empty() {
            return Err(RtiError::NameSetWasEmpty(format!(
                "federation {}: federate {f} reserved an empty name set",
                self.name
            )));
        }
        if let Some(n) = names.iter().find(|n| illegal(n)) {
            return Err(RtiError::IllegalName(format!(
                "federation {}: federate {f}: \"{n}\" is empty or begins with HLA",
                self.name
            )));
        }
        self.request(Request::Reserve(f, names), None, multiple);
        Ok(())
    }

    /// 6.4 / 6.7: release names this federate reserved.
    pub fn release_object_instance_names(
        &mut self,
        f: FederateHandle,
        names: Vec<String>,
    ) -> Result<(), RtiError> {
        self.local(f)?;
        if let Some(n) = names
            .iter()
            .find(|n| self.view.reserved.get(*n) != Some(&f))
        {
            return Err(RtiError::ObjectInstanceNameNotReserved(format!(
                "federation {}: federate {f} has not reserved \"{n}\"",
                self.name
            )));
        }
        for n in &names {
            self.view.reserved.remove(n);
        }
        self.request(Request::Release(f, names), None, false);
        Ok(())
    }

    /// 6.8: registers an instance of a class the federate publishes.
    pub fn register_object_instance(
        &mut self,
        f: FederateHandle,
        class: ObjectClassHandle,
        name: Option<&str>,
    ) -> Result<ObjectInstanceHandle, RtiError> {
        self.register_object_instance_in(f, class, name, BTreeMap::new())
    }

    /// 6.8, and 9.5 with the update regions `assoc` (announced just before the registration,
    /// see [`super::regions`]).
    pub(crate) fn register_object_instance_in(
        &mut self,
        f: FederateHandle,
        class: ObjectClassHandle,
        name: Option<&str>,
        assoc: BTreeMap<AttributeHandle, BTreeSet<crate::handles::RegionHandle>>,
    ) -> Result<ObjectInstanceHandle, RtiError> {
        self.refuse_during_save_or_restore(f, "registerObjectInstance")?;
        let fdd = self.fdd_ref()?;
        self.local(f)?;
        fdd.object_class(class).map_err(|e| {
            RtiError::ObjectClassNotDefined(format!("federation {}: {e}", self.name))
        })?;
        let published = self
            .local(f)?
            .decl
            .published_objects
            .get(&class)
            .cloned()
            .ok_or_else(|| {
                RtiError::ObjectClassNotPublished(format!(
                    "federation {}: federate {f} does not publish object class {class}",
                    self.name
                ))
            })?;
        if let Some(n) = name {
            if self.view.reserved.get(n) != Some(&f) {
                return Err(RtiError::ObjectInstanceNameNotReserved(format!(
                    "federation {}: federate {f} has not reserved \"{n}\"",
                    self.name
                )));
            }
            if self.objects.values().any(|o| o.name == n) {
                return Err(RtiError::ObjectInstanceNameInUse(format!(
                    "federation {}: an instance named \"{n}\" exists",
                    self.name
                )));
            }
        }
        let lf = self.local_mut(f)?;
        let counter = lf.next_counter;
        lf.next_counter = lf.next_counter.saturating_add(1);
        let object = ObjectInstanceHandle::new(f, counter);
        lf.known.insert(object, class);
        let name = name
            .map(str::to_string)
            .unwrap_or_else(|| format!("HLAobject_{}_{}", f.0, counter));
        let mut owned: BTreeSet<AttributeHandle> = published;
        if let Ok(p) = fdd.attribute_handle(class, PRIVILEGE_TO_DELETE) {
            owned.insert(p);
        }
        self.associate_new_instance(f, object, assoc);
        self.send_data(
            true,
            DataMsg::Register {
                object,
                class,
                name,
                owned: owned.into_iter().collect(),
            },
        );
        let c = self.mom_count(f);
        c.registered = c.registered.saturating_add(1);
        Ok(object)
    }

    /// 6.10: sends new values; reliable and best-effort attributes (per the FOM) go in
    /// separate messages.
    pub fn update_attribute_values(
        &mut self,
        f: FederateHandle,
        object: ObjectInstanceHandle,
        values: Vec<(AttributeHandle, Vec<u8>)>,
        tag: Vec<u8>,
        time: Option<Timestamp>,
    ) -> Result<Option<MessageRetractionHandle>, RtiError> {
        self.refuse_during_save_or_restore(f, "updateAttributeValues")?;
        let fdd = self.fdd_ref()?;
        let lf = self.local(f)?;
        if !lf.known.contains_key(&object) {
            return Err(self.not_known(f, object));
        }
        let inst = self
            .objects
            .get(&object)
            .ok_or_else(|| self.not_known(f, object))?;
        let class = inst.class;
        // One message per (transportation, order): reliable TSO, reliable RO, best effort
        // (never TSO: the time manager orders only the reliable stream), each value's kind
        // found with the validation's FOM lookup. The usual update has one kind and goes out
        // as it came, with no allocation for the grouping.
        let kind_of = |a: AttributeHandle| -> Result<usize, RtiError> {
            let x = fdd.attribute(class, a).map_err(|e| {
                RtiError::AttributeNotDefined(format!("federation {}: {e}", self.name))
            })?;
            if !self.owns_now(f, object, a) || !lf.decl.publishes(class, a) {
                return Err(RtiError::AttributeNotOwned(format!(
                    "federation {}: federate {f} does not own attribute {a} of instance {object}",
                    self.name
                )));
            }
            Ok(if x.transportation.0 == 2 {
                BEST_EFFORT
            } else if lf.orders.attribute(object, a).unwrap_or(x.order) == OrderType::TimeStamp {
                RELIABLE_TS
            } else {
                RELIABLE_RO
            })
        };
        let (mut first, mut mixed) = (None, false);
        for (a, _) in &values {
            let k = kind_of(*a)?;
            mixed |= first.is_some_and(|f| f != k);
            first.get_or_insert(k);
        }
        let mut groups: [Vec<(AttributeHandle, Vec<u8>)>; 3] = Default::default();
        match first {
            Some(k) if !mixed => groups[k] = values,
            _ => {
                for v in values {
                    groups[kind_of(v.0)?].push(v);
                }
            }
        }
        // A receiver takes an absent version as 0 (`update_verdict`), so an instance none of
        // whose attributes ever changed hands sends none.
        let versions: [Vec<u32>; 3] = std::array::from_fn(|k| {
            if inst.versions.is_empty() {
                Vec::new()
            } else {
                groups[k].iter().map(|(a, _)| inst.version(*a)).collect()
            }
        });
        // Both send orders are checked before anything is sent.
        let ts_tso = if groups[RELIABLE_TS].is_empty() {
            false
        } else {
            self.time_send_order(f, &time, OrderType::TimeStamp)?
        };
        if !groups[RELIABLE_RO].is_empty() || !groups[BEST_EFFORT].is_empty() {
            self.time_send_order(f, &time, OrderType::Receive)?;
        }
        let mut left = groups.iter().filter(|g| !g.is_empty()).count();
        // One handle for the call; the time-stamp-order message (if any) carries it.
        let stamp = self.decode_time(&time);
        let handle = stamp.map(|_| self.issue_retraction_handle(f));
        let mut tso_seq = None;
        let (mut tag, mut time) = (tag, time);
        // Update rates (see `super::update_rate`): only when some subscription has one.
        let rates = self.rates_in_use();
        for ((kind, vals), versions) in groups.into_iter().enumerate().zip(versions) {
            if vals.is_empty() {
                continue;
            }
            left -= 1;
            // The last message takes the tag and time, the others copies.
            let (t, tm) = if left == 0 {
                (std::mem::take(&mut tag), time.take())
            } else {
                (tag.clone(), time.clone())
            };
            let tso = kind == RELIABLE_TS && ts_tso;
            let reliable = kind != BEST_EFFORT;
            let (vals, versions) = if rates && !tso {
                let n = vals.len();
                let vals = self.thin_send(&fdd, class, f, object, vals, &t, &tm, reliable);
                if vals.is_empty() {
                    continue;
                }
                let versions = match self.objects.get(&object) {
                    Some(i) if vals.len() < n && !versions.is_empty() => {
                        vals.iter().map(|(a, _)| i.version(*a)).collect()
                    }
                    _ => versions,
                };
                (vals, versions)
            } else {
                (vals, versions)
            };
            let retraction = handle.filter(|_| tso);
            let seq = self.send_update(reliable, tso, f, object, vals, t, tm, versions, retraction);
            if tso {
                tso_seq = Some(seq);
            }
            // The MOM's HLAreportUpdatesSent: one per message, by its transportation.
            let transport = if reliable { 1 } else { 2 };
            super::mom::bump(&mut self.mom_count(f).updates_by, (transport, class));
        }
        if let Some(h) = handle {
            self.note_retractable(h, tso_seq, stamp, false);
        }
        let c = self.mom_count(f);
        c.updates_sent = c.updates_sent.saturating_add(1);
        c.updated.insert(object, class);
        self.pump_time();
        Ok(handle)
    }

    /// Sends one update message (and tells `producer`'s time manager of a reliable one);
    /// returns its stream number.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn send_update(
        &mut self,
        reliable: bool,
        tso: bool,
        producer: FederateHandle,
        object: ObjectInstanceHandle,
        values: Vec<(AttributeHandle, Vec<u8>)>,
        tag: Vec<u8>,
        time: Option<Timestamp>,
        versions: Vec<u32>,
        retraction: Option<MessageRetractionHandle>,
    ) -> u64 {
        // In the stream, a reliable update follows every announcement before it: it needs no
        // `after`. It carries its moved regions all the same, for an LRC that joined their
        // cells after the move went there (see `super::regions`, "Moves within the cells").
        let after = if reliable {
            0
        } else {
            self.regions.announced_at.get(&object).copied().unwrap_or(0)
        };
        let regions = self.inline_regions(object, values.iter().map(|(a, _)| *a));
        let seq = self.send_data(
            reliable,
            DataMsg::Update {
                object,
                producer,
                values,
                tag,
                time,
                tso,
                versions,
                retraction: retraction.map(MessageRetractionHandle::serial),
                after,
                regions,
            },
        );
        if reliable {
            self.time_data_sent(producer, seq, tso);
        }
        seq
    }

    /// 6.12: sends an interaction of a published class.
    pub fn send_interaction(
        &mut self,
        f: FederateHandle,
        class: InteractionClassHandle,
        params: Vec<(ParameterHandle, Vec<u8>)>,
        tag: Vec<u8>,
        time: Option<Timestamp>,
    ) -> Result<Option<MessageRetractionHandle>, RtiError> {
        self.send_interaction_in(f, class, params, tag, time, None)
    }

    /// 9.12: sends an interaction with regions: only federates with a subscription region of
    /// the class that overlaps one of them receive it (see [`super::regions`]).
    pub fn send_interaction_with_regions(
        &mut self,
        f: FederateHandle,
        class: InteractionClassHandle,
        params: Vec<(ParameterHandle, Vec<u8>)>,
        regions: &[crate::handles::RegionHandle],
        tag: Vec<u8>,
        time: Option<Timestamp>,
    ) -> Result<Option<MessageRetractionHandle>, RtiError> {
        self.local(f)?;
        self.refuse_during_save_or_restore(f, "sendInteractionWithRegions")?;
        let extents = self.interaction_extents(f, class, regions)?;
        self.send_interaction_in(f, class, params, tag, time, Some(extents))
    }

    fn send_interaction_in(
        &mut self,
        f: FederateHandle,
        class: InteractionClassHandle,
        params: Vec<(ParameterHandle, Vec<u8>)>,
        tag: Vec<u8>,
        time: Option<Timestamp>,
        regions: Option<Vec<super::regions::Extent>>,
    ) -> Result<Option<MessageRetractionHandle>, RtiError> {
        self.refuse_during_save_or_restore(f, "sendInteraction")?;
        let fdd = self.fdd_ref()?;
        let lf = self.local(f)?;
        let ic = fdd.interaction_class(class).map_err(|e| {
            RtiError::InteractionClassNotDefined(format!("federation {}: {e}", self.name))
        })?;
        if !lf.decl.published_interactions.contains(&class) {
            return Err(RtiError::InteractionClassNotPublished(format!(
                "federation {}: federate {f} does not publish interaction class {}",
                self.name, ic.qualified_name
            )));
        }
        for (p, _) in &params {
            fdd.parameter(class, *p).map_err(|e| {
                RtiError::InteractionParameterNotDefined(format!("federation {}: {e}", self.name))
            })?;
        }
        let reliable = ic.transportation.0 != 2;
        let chosen = lf
            .orders
            .interactions
            .get(&class)
            .copied()
            .unwrap_or(ic.order);
        let preferred = if reliable { chosen } else { OrderType::Receive };
        let tso = self.time_send_order(f, &time, preferred)?;
        let stamp = self.decode_time(&time);
        let handle = stamp.map(|_| self.issue_retraction_handle(f));
        let retraction = handle.filter(|_| tso).map(MessageRetractionHandle::serial);
        let msg = match regions {
            None => DataMsg::Interaction {
                class,
                producer: f,
                params,
                tag,
                time,
                tso,
                retraction,
            },
            Some(regions) => DataMsg::InteractionInRegions {
                class,
                producer: f,
                params,
                tag,
                time,
                tso,
                retraction,
                regions,
            },
        };
        let seq = self.send_data(reliable, msg);
        if reliable {
            self.time_data_sent(f, seq, tso);
        }
        if let Some(h) = handle {
            self.note_retractable(h, tso.then_some(seq), stamp, false);
        }
        let c = self.mom_count(f);
        c.interactions_sent = c.interactions_sent.saturating_add(1);
        super::mom::bump(
            &mut c.interactions_sent_by,
            (if reliable { 1 } else { 2 }, class),
        );
        self.pump_time();
        Ok(handle)
    }

    /// 6.14: deletes an instance (needs the delete privilege).
    pub fn delete_object_instance(
        &mut self,
        f: FederateHandle,
        object: ObjectInstanceHandle,
        tag: Vec<u8>,
        time: Option<Timestamp>,
    ) -> Result<Option<MessageRetractionHandle>, RtiError> {
        self.refuse_during_save_or_restore(f, "deleteObjectInstance")?;
        let fdd = self.fdd_ref()?;
        let lf = self.local(f)?;
        if !lf.known.contains_key(&object) {
            return Err(self.not_known(f, object));
        }
        let inst = self
            .objects
            .get(&object)
            .ok_or_else(|| self.not_known(f, object))?;
        let privilege = fdd.attribute_handle(inst.class, PRIVILEGE_TO_DELETE).ok();
        if privilege.is_none_or(|p| !self.owns_now(f, object, p)) {
            return Err(RtiError::DeletePrivilegeNotHeld(format!(
                "federation {}: federate {f} does not hold the delete privilege of {object}",
                self.name
            )));
        }
        // Ordered like an update of HLAprivilegeToDeleteObject (TimeStamp in the MIM):
        // `InvalidLogicalTime` for a regulating federate's too-early time.
        let preferred = privilege
            .and_then(|p| fdd.attribute(inst.class, p).ok())
            .map_or(OrderType::TimeStamp, |a| a.order);
        let tso = self.time_send_order(f, &time, preferred)?;
        let stamp = self.decode_time(&time);
        let handle = stamp.map(|_| self.issue_retraction_handle(f));
        let seq = self.send_data(
            true,
            DataMsg::Delete {
                object,
                producer: f,
                tag,
                time,
                tso,
                retraction: handle.filter(|_| tso).map(MessageRetractionHandle::serial),
            },
        );
        self.time_data_sent(f, seq, tso);
        if let Some(h) = handle {
            self.note_retractable(h, tso.then_some(seq), stamp, true);
        }
        let c = self.mom_count(f);
        c.deleted = c.deleted.saturating_add(1);
        self.pump_time();
        Ok(handle)
    }

    /// 6.16: the federate forgets the instance (it may be rediscovered on the next update).
    pub fn local_delete_object_instance(
        &mut self,
        f: FederateHandle,
        object: ObjectInstanceHandle,
    ) -> Result<(), RtiError> {
        let lf = self.local(f)?;
        self.refuse_during_save_or_restore(f, "localDeleteObjectInstance")?;
        if !lf.known.contains_key(&object) {
            return Err(self.not_known(f, object));
        }
        if self.objects.get(&object).is_some_and(|i| i.owned_by_any(f)) {
            return Err(RtiError::FederateOwnsAttributes(format!(
                "federation {}: federate {f} owns attributes of {object}",
                self.name
            )));
        }
        if self.acquiring_on(f, Some(object)) {
            return Err(RtiError::OwnershipAcquisitionPending(format!(
                "federation {}: federate {f} is acquiring attributes of {object}",
                self.name
            )));
        }
        self.local_mut(f)?.known.remove(&object);
        self.advise_instance(object);
        Ok(())
    }

    /// 6.19: asks the owners of an instance (or of every instance of a class) for values.
    pub fn request_attribute_value_update(
        &mut self,
        f: FederateHandle,
        object: Option<ObjectInstanceHandle>,
        class: Option<ObjectClassHandle>,
        attrs: Vec<AttributeHandle>,
        tag: Vec<u8>,
    ) -> Result<(), RtiError> {
        let fdd = self.fdd_ref()?;
        let lf = self.local(f)?;
        self.refuse_during_save_or_restore(f, "requestAttributeValueUpdate")?;
        let cls = match (object, class) {
            (Some(o), _) => *lf.known.get(&o).ok_or_else(|| self.not_known(f, o))?,
            (None, Some(c)) => {
                fdd.object_class(c).map_err(|e| {
                    RtiError::ObjectClassNotDefined(format!("federation {}: {e}", self.name))
                })?;
                c
            }
            (None, None) => {
                return Err(RtiError::RtiInternalError(
                    "request_attribute_value_update needs an instance or a class".into(),
                ));
            }
        };
        for a in &attrs {
            fdd.attribute(cls, *a).map_err(|e| {
                RtiError::AttributeNotDefined(format!("federation {}: {e}", self.name))
            })?;
        }
        self.send_data(
            true,
            DataMsg::RequestUpdate {
                object,
                class,
                attrs,
                tag,
            },
        );
        Ok(())
    }

    /// 10.9: an instance handle by name (instances the federate knows).
    pub fn object_instance_handle(
        &self,
        f: FederateHandle,
        name: &str,
    ) -> Result<ObjectInstanceHandle, RtiError> {
        let lf = self.local(f)?;
        self.objects
            .iter()
            .find(|(h, i)| i.name == name && lf.known.contains_key(h))
            .map(|(h, _)| *h)
            .ok_or_else(|| {
                RtiError::ObjectInstanceNotKnown(format!(
                    "federation {}: federate {f} knows no instance named \"{name}\"",
                    self.name
                ))
            })
    }

    /// 10.10: an instance's name.
    pub fn object_instance_name(
        &self,
        f: FederateHandle,
        o: ObjectInstanceHandle,
    ) -> Result<String, RtiError> {
        let lf = self.local(f)?;
        match (lf.known.contains_key(&o), self.objects.get(&o)) {
            (true, Some(i)) => Ok(i.name.clone()),
            _ => Err(self.not_known(f, o)),
        }
    }

    /// 10.8: the class the federate knows an instance as.
    pub fn known_object_class(
        &self,
        f: FederateHandle,
        o: ObjectInstanceHandle,
    ) -> Result<ObjectClassHandle, RtiError> {
        self.local(f)?
            .known
            .get(&o)
            .copied()
            .ok_or_else(|| self.not_known(f, o))
    }

    /// Discovers `o` for local federate `f` if it subscribes to its class or a superclass.
    /// Returns the class it knows `o` as.
    pub(crate) fn discover_for(
        &mut self,
        f: FederateHandle,
        o: ObjectInstanceHandle,
    ) -> Option<ObjectClassHandle> {
        let fdd = self.fdd.clone()?;
        let inst = self.objects.get(&o)?;
        let lf = self.locals.get(&f)?;
        if let Some(k) = lf.known.get(&o) {
            return Some(*k);
        }
        // A federate's own instances are known from registration; its own MOM instance is the
        // RTI's, and it discovers it like any other (see `super::mom`).
        if o.registrant() == f && !super::mom::is_mom_instance(o) {
            return None;
        }
        let k = lf.decl.promoted_object_class(&fdd, inst.class)?;
        // With regions, only once an update region overlaps (see `super::regions`).
        if !self.discoverable_in_regions(&fdd, f, k, o) {
            return None;
        }
        let name = inst.name.clone();
        let producer = o.registrant();
        if let Some(lf) = self.locals.get_mut(&f) {
            lf.known.insert(o, k);
        }
        self.callback(
            f,
            Callback::DiscoverObjectInstance {
                object: o,
                class: k,
                name,
                producer,
            },
        );
        self.advise_instance(o);
        Some(k)
    }

    pub(crate) fn discover_for_subscribers(&mut self, o: ObjectInstanceHandle) {
        let fs: Vec<FederateHandle> = self.locals.keys().copied().collect();
        for f in fs {
            self.discover_for(f, o);
        }
    }

    pub(crate) fn remove_instance(
        &mut self,
        o: ObjectInstanceHandle,
        tag: Vec<u8>,
        producer: Option<FederateHandle>,
        time: Option<Timestamp>,
    ) {
        self.remove_instance_ordered(o, tag, producer, time, None, None, &mut Vec::new());
    }

    /// Removes an instance; `tso_seq` is `Some(seq)` for a delete sent in time-stamp order as
    /// reliable message `seq`: the removal then reaches each local federate with a time manager
    /// through it (at the grant that covers its time when constrained), and the federate keeps
    /// knowing the instance until then. Federates it went through are added to `served`.
    /// `retraction` is the deleting federate's serial of a time-stamp-order delete: what it
    /// removes is kept so that a retraction can put it back (see [`super::retraction`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn remove_instance_ordered(
        &mut self,
        o: ObjectInstanceHandle,
        tag: Vec<u8>,
        producer: Option<FederateHandle>,
        time: Option<Timestamp>,
        tso_seq: Option<u64>,
        retraction: Option<u32>,
        served: &mut Vec<FederateHandle>,
    ) {
        let Some(instance) = self.objects.remove(&o) else {
            return;
        };
        let regions = self.regions_instance_removed(o);
        self.mom_on_instance_removed(o);
        let handle = match (tso_seq, producer, retraction) {
            (Some(_), Some(p), Some(serial)) => {
                let knew = self
                    .locals
                    .iter()
                    .filter_map(|(f, lf)| lf.known.get(&o).map(|k| (*f, *k)))
                    .collect();
                self.note_removed(p, serial, o, instance, knew, regions);
                Some(MessageRetractionHandle::new(p, serial))
            }
            _ => None,
        };
        self.advise_instance(o);
        let t = self.decode_time(&time);
        self.forget_ownership_of(o);
        let fs: Vec<FederateHandle> = self.locals.keys().copied().collect();
        let mut routed = false;
        for f in fs {
            let knew = self
                .locals
                .get(&f)
                .is_some_and(|lf| lf.known.contains_key(&o));
            if !knew || producer == Some(f) {
                if let Some(lf) = self.locals.get_mut(&f) {
                    lf.known.remove(&o);
                }
                continue;
            }
            let sent_order = if tso_seq.is_some() {
                OrderType::TimeStamp
            } else {
                OrderType::Receive
            };
            let cb = Callback::RemoveObjectInstance {
                object: o,
                tag: tag.clone(),
                producer,
                time: time.clone(),
                sent_order,
                received_order: OrderType::Receive,
                retraction: handle,
            };
            match (tso_seq, producer, t) {
                (Some(seq), Some(p), Some(t)) if self.time.managers.contains_key(&f) => {
                    // Forgotten when delivered (`time_delivered`).
                    served.push(f);
                    self.time_deliver(f, p, seq, Some(t), true, cb);
                }
                (None, ..) if self.time.managers.contains_key(&f) => {
                    // In receive order, but behind the receive-order messages its manager
                    // still holds (a constrained federate gets them only while advancing):
                    // the instance's last reflections come first. Forgotten when delivered.
                    let from = super::time::member(producer.unwrap_or(f));
                    if let Some(tm) = self.time.managers.get_mut(&f) {
                        tm.on_local_ro(from, cb);
                    }
                    routed = true;
                }
                _ => {
                    if let Some(lf) = self.locals.get_mut(&f) {
                        lf.known.remove(&o);
                    }
                    self.callback(f, cb);
                }
            }
        }
        if routed {
            self.pump_time();
        }
    }

    /// A federate resigned (or was lost): the instances it may delete are removed if its action
    /// deletes objects, and every attribute it owned becomes unowned (an acquirer still waiting
    /// for one gets it through the coordinator, see [`super::ownership`]).
    pub(crate) fn apply_resign(&mut self, h: FederateHandle, action: ResignAction) {
        self.resigned_with.insert(h, action);
        self.remember_resigned_owner(h);
        let fdd = self.fdd.clone();
        let owned: Vec<(ObjectInstanceHandle, bool)> = self
            .objects
            .iter()
            .filter(|(_, i)| i.owned_by_any(h))
            .map(|(o, i)| {
                let privilege = fdd
                    .as_ref()
                    .and_then(|f| f.attribute_handle(i.class, PRIVILEGE_TO_DELETE).ok())
                    .is_some_and(|p| i.owner_of(p) == Some(h));
                (*o, privilege)
            })
            .collect();
        for (o, privilege) in owned {
            if action.deletes_objects() && privilege {
                self.remove_instance(o, Vec::new(), Some(h), None);
            } else if let Some(i) = self.objects.get_mut(&o) {
                i.owners.retain(|_, f| *f != h);
            }
        }
        self.ownership_on_resign(h);
        self.mom_on_resigned(h);
        self.interest.remove(&h);
        self.interest_changed();
        self.locals.remove(&h);
        self.regions.feds.remove(&h);
        // Its subscriptions are gone only now (the resign call itself left them in place until
        // the decision): the cells only they wanted are left.
        self.refresh_cells();
    }

    /// Applies one data message (from another LRC or from this one).
    /// `seq` is the reliable sequence number (`None` for best effort); this LRC's own messages
    /// come with `reliable` saying which they were.
    pub(crate) fn apply_data(
        &mut self,
        from: Node,
        seq: Option<u64>,
        reliable: bool,
        msg: DataMsg,
    ) {
        let reliable = reliable && (seq.is_some() || from == self.me);
        if from != self.me {
            let mine = self.restore.epoch();
            let st = self.streams.entry(from).or_default();
            if let DataMsg::Epoch(n) = msg {
                st.epoch = Some(n);
                self.time_seq(from, seq);
                return;
            }
            let theirs = *st.epoch.get_or_insert(mine);
            if theirs > mine {
                // The sender applied a restore we have not applied yet: wait for it.
                if st.future.len() < super::state_transfer::MAX_HELD {
                    st.future.push((seq, reliable, msg));
                }
                return;
            }
            if theirs < mine {
                // Sent before the restore we applied: it belongs to the abandoned run.
                self.time_seq(from, seq);
                return;
            }
        }
        let seq = self.time_seq(from, seq);
        // Every reliable message advances the producer's stream in every local time manager.
        let producer = match &msg {
            DataMsg::Register { object, .. } => Some(object.registrant()),
            DataMsg::Update { producer, .. }
            | DataMsg::Interaction { producer, .. }
            | DataMsg::InteractionInRegions { producer, .. }
            | DataMsg::UpdateRegions { producer, .. }
            | DataMsg::MoveRegions { producer, .. }
            | DataMsg::Delete { producer, .. } => Some(*producer),
            DataMsg::Declare { federate, .. } => Some(*federate),
            DataMsg::HandOver { owner, .. } | DataMsg::OfferOwnership { owner, .. } => Some(*owner),
            DataMsg::Retract { handle, .. } => Some(handle.federate()),
            DataMsg::RequestUpdate { .. }
            | DataMsg::RequestUpdateInRegions { .. }
            | DataMsg::Epoch(_)
            | DataMsg::Time { .. } => None,
        };
        // A federate's own update or interaction applied here while it is this LRC's only
        // federate reaches no time manager but its own, which it skips: nothing for the
        // managers to act on, so their pump (a full pass over them) is left out.
        let alone = from == self.me
            && matches!(msg, DataMsg::Update { .. } | DataMsg::Interaction { .. })
            && producer.is_some_and(|p| {
                self.locals.keys().all(|f| *f == p) && self.time.managers.keys().all(|h| *h == p)
            });
        // (A nested `apply_data` finds the scratch list taken and uses a new one.)
        let mut served = std::mem::take(&mut self.served);
        served.clear();
        self.apply_msg(from, seq, msg, &mut served);
        if let (true, Some(p)) = (reliable, producer) {
            self.time_other(p, seq, &served);
        }
        self.served = served;
        if !alone {
            self.pump_time();
        }
        self.release_resignations(None);
    }

    fn apply_msg(&mut self, from: Node, seq: u64, msg: DataMsg, served: &mut Vec<FederateHandle>) {
        let Some(fdd) = self.fdd.clone() else { return };
        match msg {
            DataMsg::Register {
                object,
                class,
                name,
                owned,
            } => {
                let registrant = object.registrant();
                if self.objects.contains_key(&object) || fdd.object_class(class).is_err() {
                    return;
                }
                self.objects.insert(
                    object,
                    Instance {
                        class,
                        name,
                        owners: owned.into_iter().map(|a| (a, registrant)).collect(),
                        versions: BTreeMap::new(),
                        values: BTreeMap::new(),
                        origin: from,
                    },
                );
                // A registration from a federate that already resigned comes late: its resign
                // action decides whether the instance is gone or an orphan.
                if !self.settle_new_instance(object) {
                    return;
                }
                self.discover_for_subscribers(object);
                self.advise_instance(object);
            }
            DataMsg::HandOver {
                object,
                owner,
                attrs,
            } => self.on_hand_over(from, seq, object, owner, attrs),
            DataMsg::OfferOwnership {
                object,
                owner,
                attrs,
                versions,
                tag,
            } => self.on_offer(object, owner, attrs, versions, tag),
            DataMsg::Update {
                object,
                producer,
                values,
                tag,
                time,
                tso,
                versions,
                retraction,
                after,
                regions,
            } => {
                // A best-effort update that overtook the region announcement it follows would
                // be judged against older regions (see `super::regions`): dropped.
                // (`after` first: most updates carry 0 and skip the stream lookups.)
                if after > 0 && from != self.me && after > self.applied_upto(from) {
                    self.regions.stale_drops += 1;
                    return;
                }
                // Behind an update of the same stream that is held, it waits too (order).
                // A MOM instance's updates come from the LRC that maintains it (see `mom`).
                let verdict = if super::mom::is_mom_instance(object) {
                    if self.mom_update_accepted(from, object) {
                        super::ownership::Verdict::Accept
                    } else {
                        super::ownership::Verdict::Drop
                    }
                } else {
                    self.ownership.judge(
                        from,
                        self.objects.get(&object),
                        object,
                        producer,
                        &values,
                        &versions,
                    )
                };
                match verdict {
                    // Moved within its cells since: the regions it carries are the ones it was
                    // sent in (newer ones applied first); one older than what is held here is
                    // dropped. A held update's are applied when it is released, in its order.
                    super::ownership::Verdict::Accept
                        if regions.as_ref().is_some_and(|r| {
                            from != self.me
                                && !self.apply_moved_regions(from, object, producer, &r.attrs)
                        }) =>
                    {
                        self.regions.stale_drops += 1;
                        return;
                    }
                    super::ownership::Verdict::Accept => {}
                    super::ownership::Verdict::Hold => {
                        self.ownership.hold_update(
                            from,
                            seq,
                            DataMsg::Update {
                                object,
                                producer,
                                values,
                                tag,
                                time,
                                tso,
                                versions,
                                retraction,
                                after: 0,
                                // Applied (or found stale) when it is released.
                                regions,
                            },
                        );
                        return;
                    }
                    super::ownership::Verdict::Drop => {
                        self.ownership.drop_update();
                        return;
                    }
                }
                let retraction = retraction
                    .filter(|_| tso)
                    .map(|s| MessageRetractionHandle::new(producer, s));
                self.reflect_update(
                    object, producer, values, tag, time, tso, retraction, seq, served, false,
                );
            }
            DataMsg::Interaction {
                class,
                producer,
                params,
                tag,
                time,
                tso,
                retraction,
            } => {
                let i = Received {
                    class,
                    producer,
                    params,
                    tag,
                    time,
                    tso,
                    retraction,
                };
                self.apply_interaction(&fdd, seq, i, None, served);
            }
            DataMsg::InteractionInRegions {
                class,
                producer,
                params,
                tag,
                time,
                tso,
                retraction,
                regions,
            } => {
                let i = Received {
                    class,
                    producer,
                    params,
                    tag,
                    time,
                    tso,
                    retraction,
                };
                self.apply_interaction(&fdd, seq, i, Some(&regions), served);
            }
            DataMsg::UpdateRegions {
                object,
                attrs,
                version,
                ..
            } => self.apply_announced_regions(from, object, version, attrs),
            DataMsg::MoveRegions {
                object,
                producer,
                version,
                after,
                attrs,
            } => self.on_move_regions(from, seq, object, producer, version, after, attrs),
            DataMsg::RequestUpdateInRegions { class, attrs, tag } => {
                self.apply_request_in_regions(class, attrs, tag);
            }
            DataMsg::Delete {
                object,
                producer,
                tag,
                time,
                tso,
                retraction,
            } => {
                let tso_seq = (tso && time.is_some()).then_some(seq);
                self.remove_instance_ordered(
                    object,
                    tag,
                    Some(producer),
                    time,
                    tso_seq,
                    retraction,
                    served,
                )
            }
            DataMsg::Retract { handle, seq } => self.apply_retract(handle, seq),
            DataMsg::RequestUpdate {
                object,
                class,
                attrs,
                tag,
            } => {
                let targets: Vec<(ObjectInstanceHandle, FederateHandle, Vec<AttributeHandle>)> =
                    self.objects
                        .iter()
                        .filter(|(o, i)| match (object, class) {
                            (Some(x), _) => **o == x,
                            (None, Some(c)) => {
                                super::declarations::object_class_is_a(&fdd, i.class, c)
                            }
                            _ => false,
                        })
                        .flat_map(|(o, i)| {
                            let mut per: BTreeMap<FederateHandle, Vec<AttributeHandle>> =
                                BTreeMap::new();
                            for a in &attrs {
                                if let Some(owner) = i.owner_of(*a)
                                    && self.locals.contains_key(&owner)
                                {
                                    per.entry(owner).or_default().push(*a);
                                }
                            }
                            per.into_iter().map(move |(f, a)| (*o, f, a))
                        })
                        .collect();
                for (o, owner, a) in targets {
                    self.callback(
                        owner,
                        Callback::ProvideAttributeValueUpdate {
                            object: o,
                            attrs: a,
                            tag: tag.clone(),
                        },
                    );
                }
                self.mom_on_request_update(object, class, &attrs, &tag);
            }
            DataMsg::Declare { federate, decl } => {
                self.apply_declaration(federate, decl);
                self.advise();
            }
            // Epochs are handled in `apply_data`; time messages were handed to the managers
            // before the stream gate (`on_data`) and only advance the stream here.
            DataMsg::Epoch(_) | DataMsg::Time { .. } => {}
        }
    }

    /// Delivers a received interaction (sent with `regions`, `None`: without) to the local
    /// federates subscribed to it whose subscription regions overlap.
    fn apply_interaction(
        &mut self,
        fdd: &crate::fom::Fdd,
        seq: u64,
        i: Received,
        regions: Option<&[super::regions::Extent]>,
        served: &mut Vec<FederateHandle>,
    ) {
        let Received {
            class,
            producer,
            params,
            tag,
            time,
            tso,
            retraction,
        } = i;
        let Ok(ic) = fdd.interaction_class(class) else {
            return;
        };
        let reliable = ic.transportation.0 != 2;
        let retraction = retraction
            .filter(|_| tso && reliable)
            .map(|s| MessageRetractionHandle::new(producer, s));
        // A MOM report is the RTI's: its producer's federate gets it too (see `mom`).
        let report = self.mom_is_report(class);
        // The producer's own interaction, with no other local federate: nobody to give
        // it to (and no list of them to build).
        let fs: Vec<FederateHandle> = if report || self.locals.keys().any(|f| *f != producer) {
            self.locals.keys().copied().collect()
        } else {
            Vec::new()
        };
        for f in fs {
            if f == producer && !report {
                continue;
            }
            let Some(lf) = self.locals.get(&f) else {
                continue;
            };
            let Some(k) = lf.decl.promoted_interaction_class(fdd, class) else {
                continue;
            };
            if !self.interaction_in_region(fdd, f, k, regions) {
                continue;
            }
            let allowed = fdd.available_parameters(k).unwrap_or_default();
            let ps: Vec<(ParameterHandle, Vec<u8>)> = params
                .iter()
                .filter(|(p, _)| allowed.contains(p))
                .cloned()
                .collect();
            let mut info = received(producer, &time, reliable, retraction);
            info.sent_regions = self.convey_for_interaction(f, k, regions);
            let cb = Callback::ReceiveInteraction {
                class: k,
                params: ps,
                tag: tag.clone(),
                info,
            };
            let t = self.decode_time(&time);
            if reliable {
                served.push(f);
                self.time_deliver(f, producer, seq, t, tso, cb);
            } else {
                self.time_deliver(f, producer, seq, t, false, cb);
            }
        }
        // A MOM request, adjustment or service about a local federate (see `mom`).
        if self
            .mom
            .handles
            .as_ref()
            .is_none_or(|m| m.interaction_names.contains_key(&class))
        {
            self.mom_on_interaction(class, &params);
        }
    }

    /// Delivers an accepted update to the local federates subscribed to it.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn reflect_update(
        &mut self,
        object: ObjectInstanceHandle,
        producer: FederateHandle,
        values: Vec<(AttributeHandle, Vec<u8>)>,
        tag: Vec<u8>,
        time: Option<Timestamp>,
        tso: bool,
        retraction: Option<MessageRetractionHandle>,
        seq: u64,
        served: &mut Vec<FederateHandle>,
        held: bool,
    ) {
        let Some(class) = self.objects.get(&object).map(|i| i.class) else {
            return;
        };
        let reliable = values
            .first()
            .is_none_or(|(a, _)| self.is_reliable_attr(class, *a));
        // The instance keeps the last values by copying into the buffers it already holds (no
        // allocation once an attribute's size is steady), so the decoded values themselves can
        // move into the last reflection instead of being copied for it. Nothing the reflections
        // below do reads the kept values.
        if let Some(inst) = self.objects.get_mut(&object) {
            for (a, v) in &values {
                match inst.values.get_mut(a) {
                    Some(kept) => {
                        kept.clear();
                        kept.extend_from_slice(v);
                    }
                    None => {
                        inst.values.insert(*a, v.clone());
                    }
                }
            }
        }
        // With no other local federate (the sender applying its own update) nothing is copied.
        // A MOM instance's producer reflects it too (the RTI updated it, not the federate).
        let mom = super::mom::is_mom_instance(object);
        if mom || self.locals.keys().any(|f| *f != producer) {
            let update = Reflected {
                object,
                producer,
                time,
                reliable,
                tso,
                seq,
                held,
                retraction,
            };
            self.reflect_to_locals(&update, values, tag, served);
        }
    }

    /// Queues the reflections of an update for the local federates subscribed to it (the
    /// producer excepted). Each recipient is served when the next one is found, with copies;
    /// the last one takes `values` and `tag` themselves (the usual single subscriber copies
    /// nothing).
    fn reflect_to_locals(
        &mut self,
        update: &Reflected,
        values: Vec<(AttributeHandle, Vec<u8>)>,
        tag: Vec<u8>,
        served: &mut Vec<FederateHandle>,
    ) {
        // Walks the local federates by key (no key list per update): discovery below needs
        // `self` mutably.
        let mut next = self.locals.keys().next().copied();
        let mut found: Option<(FederateHandle, ObjectClassHandle)> = None;
        while let Some(f) = next {
            next = super::key_after(&self.locals, f);
            if f == update.producer && !super::mom::is_mom_instance(update.object) {
                continue;
            }
            let Some(k) = self.discover_for(f, update.object) else {
                continue;
            };
            let Some(subs) = self.locals.get(&f).and_then(|l| l.decl.subscribed_attrs(k)) else {
                continue;
            };
            if !values
                .iter()
                .any(|(a, _)| subs.contains(a) && self.in_region(f, k, update.object, *a))
            {
                continue;
            }
            if let Some((g, gk)) = found.replace((f, k)) {
                let copy = self.subscribed_values(g, gk, update.object, values.iter().cloned());
                self.reflect_one(g, gk, update, copy, tag.clone(), served);
            }
        }
        if let Some((g, gk)) = found {
            let vals = self.subscribed_values(g, gk, update.object, values);
            self.reflect_one(g, gk, update, vals, tag, served);
        }
    }

    /// The values federate `f` subscribes to (known class `k`), in the order they came; a
    /// vector that is all subscribed keeps its allocation.
    fn subscribed_values(
        &self,
        f: FederateHandle,
        k: ObjectClassHandle,
        o: ObjectInstanceHandle,
        values: impl IntoIterator<Item = (AttributeHandle, Vec<u8>)>,
    ) -> Vec<(AttributeHandle, Vec<u8>)> {
        let subs = self.locals.get(&f).and_then(|l| l.decl.subscribed_attrs(k));
        values
            .into_iter()
            .filter(|(a, _)| subs.is_some_and(|s| s.contains(a)) && self.in_region(f, k, o, *a))
            .collect()
    }

    /// Whether attribute `a` of `o` (known as `k`) is in federate `f`'s subscription regions
    /// (always, when it subscribes without regions: see [`super::regions`]).
    fn in_region(
        &self,
        f: FederateHandle,
        k: ObjectClassHandle,
        o: ObjectInstanceHandle,
        a: AttributeHandle,
    ) -> bool {
        if self.regions.feds.is_empty() {
            return true;
        }
        match &self.fdd {
            Some(fdd) => self.attr_in_region(fdd, f, k, o, a),
            None => true,
        }
    }

    /// Queues one federate's reflection (`known`: the class it knows the instance as), through
    /// its time manager unless `held`. A receive-order update goes through the federate's
    /// update rate first, which may hold some or all of its values (see
    /// [`super::update_rate`]); the manager then counts the message as not for this federate.
    fn reflect_one(
        &mut self,
        f: FederateHandle,
        known: ObjectClassHandle,
        update: &Reflected,
        values: Vec<(AttributeHandle, Vec<u8>)>,
        tag: Vec<u8>,
        served: &mut Vec<FederateHandle>,
    ) {
        let values = if update.reliable && update.tso {
            values
        } else {
            let (o, p) = (update.object, update.producer);
            let (time, reliable) = (&update.time, update.reliable);
            let v = self.thin_reflection(f, known, o, p, values, &tag, time, reliable);
            if v.is_empty() {
                return;
            }
            v
        };
        let retraction = update
            .retraction
            .filter(|_| update.reliable && !update.held);
        let mut info = received(update.producer, &update.time, update.reliable, retraction);
        if !self.regions.update_regions.is_empty() {
            let attrs: Vec<AttributeHandle> = values.iter().map(|(a, _)| *a).collect();
            info.sent_regions = self.convey_for_reflection(f, known, update.object, &attrs);
        }
        let cb = Callback::ReflectAttributeValues {
            object: update.object,
            values,
            tag,
            info,
        };
        if update.held {
            // Its sequence number went past the time managers when it was held: it is
            // delivered in receive order (see `super::ownership`).
            self.callback(f, cb);
            return;
        }
        let t = self.decode_time(&update.time);
        if update.reliable {
            served.push(f);
        }
        let tso = update.reliable && update.tso;
        self.time_deliver(f, update.producer, update.seq, t, tso, cb);
    }

    /// Settles an instance just inserted that this LRC learns of only now (a registration that
    /// comes late, a snapshot): the ownership changes it saw first apply, then the resignations
    /// applied here before decide whether it still exists — exactly as [`Self::apply_resign`]
    /// decided for the instances known then: it is gone (removed again, `false`) if its
    /// privilege to delete is held by a federate that resigned (or was lost) with an action that
    /// deletes objects. Whoever registered it does not decide by itself: it may have divested
    /// the privilege before it resigned (seed 836 of the orphans mode of `rti_sim`: a joiner
    /// dropped the orphans of a lost registrant every older member kept).
    pub(crate) fn settle_new_instance(&mut self, object: ObjectInstanceHandle) -> bool {
        self.ownership_apply_early(object);
        let privilege = self
            .objects
            .get(&object)
            .and_then(|i| self.privilege_holder(i));
        let deleted = privilege.is_some_and(|f| {
            let resigned = !self.view.federates.contains_key(&f)
                && f.0 < self.view.next_handle
                && !self.resign_gated(f);
            resigned
                && self
                    .resigned_with
                    .get(&f)
                    .is_none_or(|a| a.deletes_objects())
        });
        if deleted {
            self.objects.remove(&object);
            return false;
        }
        self.ownership_on_new_instance(object);
        true
    }

    /// Interaction class lookup helper for the API layer.
    pub fn interaction_known(&self, ic: InteractionClassHandle) -> bool {
        self.fdd
            .as_ref()
            .is_some_and(|f| f.interaction_class(ic).is_ok())
    }
}
