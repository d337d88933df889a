//! The IEEE 1516-2010 API: [`RtiAmbassador`] (services a federate calls) and
//! [`FederateAmbassador`] (callbacks it receives), in snake_case.
//!
//! One `RtiAmbassador` is one federate connection; any number of them may share one process's
//! [`Lrc`], and federates in one process and in different processes behave identically (local
//! delivery goes through the same core paths). Callbacks are queued per federate and delivered
//! either inside [`RtiAmbassador::evoke_callback`] / [`RtiAmbassador::evoke_multiple_callbacks`]
//! ([`CallbackModel::Evoked`]) or on an LRC thread ([`CallbackModel::Immediate`]; usually the
//! receive thread that got the message, see [`crate::callback_queue`]). A thread waiting in
//! `evoke_callback` receives the LRC's datagrams itself meanwhile, so evoked callbacks cost no
//! thread hand-off either: the evoked model is the fast one for a federate whose main loop waits
//! for its grants.
//!
//! Data Distribution Management (clause 9): the support services on the FDD's dimensions
//! (10.26–10.32: [`RtiAmbassador::get_dimension_handle`] …
//! [`RtiAmbassador::normalize_service_group`]), regions and range bounds
//! ([`RtiAmbassador::create_region`], [`RtiAmbassador::set_range_bounds`],
//! [`RtiAmbassador::commit_region_modifications`], …) and every region-based service of 9.5–9.13,
//! with exact overlap filtering at the receiving LRC ([`crate::core::regions`]). Not there yet:
//! per-cell multicast groups (the network still carries every update to every LRC).

use std::cell::Cell;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::callback_queue::{Amb, CallbackQueue};
pub use crate::core::advisory::AdvisorySwitch;
use crate::core::mom::CallbackQueueView;
pub use crate::core::regions::{AttrRegionPairs, RangeBounds};
pub use crate::core::restore::{RestoreFailureReason, RestoreStatus};
use crate::core::save::SaveReport;
pub use crate::core::save::{SaveFailureReason, SaveStatus};
use crate::core::time::{Interval, Manager};
pub use crate::core::time::{Interval as LogicalTimeInterval, Time};
use crate::core::wire::ResignAction;
pub use crate::core::wire::SynchronizationPointFailureReason;
use crate::core::{Callback, FederationCore, ReceiveInfo};
use crate::error::{RtiError, RtiResult};
use crate::fom::{Fdd, LookupError, OrderType};
use crate::handles::{
    AttributeHandle, DimensionHandle, FederateHandle, InteractionClassHandle,
    MessageRetractionHandle, ObjectClassHandle, ObjectInstanceHandle, ParameterHandle,
    RegionHandle,
};
use crate::node::{Delivery, Lrc};
pub use hlamesh_timesync::TimeKind;
pub use hlamesh_timesync::clock_offset::OffsetEstimate;
use hlamesh_timesync::{LogicalTime, TimeError};
use hlamesh_transport::ReceiveHere;

/// How callbacks are delivered (chosen at `connect`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallbackModel {
    /// On an LRC thread as soon as they arrive: the receive thread that handled the message
    /// when it can, else the federate's delivery thread (see [`crate::callback_queue`]).
    Immediate,
    /// Only inside `evoke_callback` / `evoke_multiple_callbacks`.
    Evoked,
}

/// Callbacks a federate receives. Every method has a no-op default.
#[allow(unused_variables)]
pub trait FederateAmbassador: Send {
    /// 4.4.
    fn connection_lost(&mut self, fault: &str) {}
    /// 4.8: (federation name, logical time implementation).
    fn report_federation_executions(&mut self, executions: &[(String, String)]) {}
    /// 5.10.
    fn start_registration_for_object_class(&mut self, class: ObjectClassHandle) {}
    /// 5.11.
    fn stop_registration_for_object_class(&mut self, class: ObjectClassHandle) {}
    /// 5.12.
    fn turn_interactions_on(&mut self, class: InteractionClassHandle) {}
    /// 5.13.
    fn turn_interactions_off(&mut self, class: InteractionClassHandle) {}
    /// 6.17: these attributes of a known instance are now in scope (subscribed here, owned by
    /// another federate). Only while the attribute scope advisory switch is on.
    fn attributes_in_scope(&mut self, object: ObjectInstanceHandle, attrs: &[AttributeHandle]) {}
    /// 6.18: these attributes are out of scope (no longer owned by another federate, or no
    /// longer subscribed). Only while the attribute scope advisory switch is on.
    fn attributes_out_of_scope(&mut self, object: ObjectInstanceHandle, attrs: &[AttributeHandle]) {
    }
    /// 6.21: another federate subscribes to these attributes this federate owns: update them.
    /// Only while the attribute relevance advisory switch is on.
    fn turn_updates_on_for_object_instance(
        &mut self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
    ) {
    }
    /// 6.22: nobody else subscribes to these attributes any more.
    fn turn_updates_off_for_object_instance(
        &mut self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
    ) {
    }
    /// 6.3.
    fn object_instance_name_reservation_succeeded(&mut self, name: &str) {}
    /// 6.3.
    fn object_instance_name_reservation_failed(&mut self, name: &str) {}
    /// 6.6.
    fn multiple_object_instance_name_reservation_succeeded(&mut self, names: &[String]) {}
    /// 6.6.
    fn multiple_object_instance_name_reservation_failed(&mut self, names: &[String]) {}
    /// 6.9: `class` is the registered class promoted to the nearest subscribed class.
    fn discover_object_instance(
        &mut self,
        object: ObjectInstanceHandle,
        class: ObjectClassHandle,
        name: &str,
        producer: FederateHandle,
    ) {
    }
    /// 6.11: only subscribed attributes; `info` carries producer, orders, transportation, time.
    fn reflect_attribute_values(
        &mut self,
        object: ObjectInstanceHandle,
        values: &[(AttributeHandle, Vec<u8>)],
        tag: &[u8],
        info: &ReceiveInfo,
    ) {
    }
    /// 6.13: promoted to the nearest subscribed class; other parameters dropped.
    fn receive_interaction(
        &mut self,
        class: InteractionClassHandle,
        params: &[(ParameterHandle, Vec<u8>)],
        tag: &[u8],
        info: &ReceiveInfo,
    ) {
    }
    /// 6.15.
    fn remove_object_instance(
        &mut self,
        object: ObjectInstanceHandle,
        tag: &[u8],
        producer: Option<FederateHandle>,
    ) {
    }
    /// 6.15 for a delete sent with a logical time: the time (encoded in the federation's time
    /// implementation, like `ReceiveInfo::time`), the order it was sent in, the order it is
    /// delivered in (time-stamp order when this federate is constrained and the deleting
    /// federate regulating) and, for a delete sent in time-stamp order, the deleting federate's
    /// retraction handle (which a later [`FederateAmbassador::request_retraction`] names). By
    /// default calls [`FederateAmbassador::remove_object_instance`].
    #[allow(clippy::too_many_arguments)]
    fn remove_object_instance_with_time(
        &mut self,
        object: ObjectInstanceHandle,
        tag: &[u8],
        producer: Option<FederateHandle>,
        time: &[u8],
        sent_order: OrderType,
        received_order: OrderType,
        retraction: Option<MessageRetractionHandle>,
    ) {
        let _ = (time, sent_order, received_order, retraction);
        self.remove_object_instance(object, tag, producer);
    }
    /// 6.23: the sender retracted a message this federate already received (its
    /// `ReceiveInfo::retraction`, or the handle of a timed removal): undo what it did, if the
    /// federate can. A retracted message that was still queued is never delivered instead.
    fn request_retraction(&mut self, handle: MessageRetractionHandle) {}
    /// 6.20.
    fn provide_attribute_value_update(
        &mut self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
        tag: &[u8],
    ) {
    }
    /// 7.4: the owner offers these attributes (negotiated divestiture); acquire them with
    /// `attribute_ownership_acquisition(_if_available)` to take them.
    fn request_attribute_ownership_assumption(
        &mut self,
        object: ObjectInstanceHandle,
        offered: &[AttributeHandle],
        tag: &[u8],
    ) {
    }
    /// 7.5: somebody wants attributes this federate is divesting: `confirm_divestiture` hands
    /// them over.
    fn request_divestiture_confirmation(
        &mut self,
        object: ObjectInstanceHandle,
        released: &[AttributeHandle],
    ) {
    }
    /// 7.7: this federate owns these attributes now.
    fn attribute_ownership_acquisition_notification(
        &mut self,
        object: ObjectInstanceHandle,
        secured: &[AttributeHandle],
        tag: &[u8],
    ) {
    }
    /// 7.10: the acquisition of these attributes ended without success (if-available on an
    /// owned attribute, or the owner denied the release).
    fn attribute_ownership_unavailable(
        &mut self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
    ) {
    }
    /// 7.11: another federate wants these attributes (answer with divestiture if wanted, an
    /// unconditional or negotiated divestiture, or `attribute_ownership_release_denied`).
    fn request_attribute_ownership_release(
        &mut self,
        object: ObjectInstanceHandle,
        candidates: &[AttributeHandle],
        tag: &[u8],
    ) {
    }
    /// 7.16.
    fn confirm_attribute_ownership_acquisition_cancellation(
        &mut self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
    ) {
    }
    /// 7.18.
    fn inform_attribute_ownership(
        &mut self,
        object: ObjectInstanceHandle,
        attr: AttributeHandle,
        owner: FederateHandle,
    ) {
    }
    /// 7.18.
    fn attribute_is_not_owned(&mut self, object: ObjectInstanceHandle, attr: AttributeHandle) {}
    /// 7.18: for MOM instances, which hlamesh does not have (never called).
    fn attribute_is_owned_by_rti(&mut self, object: ObjectInstanceHandle, attr: AttributeHandle) {}
    /// 8.3: regulation is on at this logical time.
    fn time_regulation_enabled(&mut self, time: Time) {}
    /// 8.6: constraint is on at this logical time.
    fn time_constrained_enabled(&mut self, time: Time) {}
    /// 8.13: the pending advance request is granted at this time.
    fn time_advance_grant(&mut self, time: Time) {}
    /// 4.12: this federate's synchronization point registration was accepted.
    fn synchronization_point_registration_succeeded(&mut self, label: &str) {}
    /// 4.12: this federate's synchronization point registration was refused.
    fn synchronization_point_registration_failed(
        &mut self,
        label: &str,
        reason: SynchronizationPointFailureReason,
    ) {
    }
    /// 4.13: a point this federate is in the set of was registered (or it joined while a
    /// federation-wide point was pending).
    fn announce_synchronization_point(&mut self, label: &str, tag: &[u8]) {}
    /// 4.15: every member achieved the point; `failed` lists members that achieved
    /// unsuccessfully, resigned or were lost while it was pending.
    fn federation_synchronized(&mut self, label: &str, failed: &[FederateHandle]) {}
    /// 4.17: save now; write the federate's own state into
    /// [`RtiAmbassador::federate_state_dir`], then call `federate_save_begun` and
    /// `federate_save_complete` (or `_not_complete`).
    fn initiate_federate_save(&mut self, label: &str, time: Option<Time>) {}
    /// 4.20: every federate saved.
    fn federation_saved(&mut self) {}
    /// 4.20: the save failed.
    fn federation_not_saved(&mut self, reason: SaveFailureReason) {}
    /// 4.23: answer to `query_federation_save_status`.
    fn federation_save_status_response(&mut self, status: &[(FederateHandle, SaveStatus)]) {}
    /// 4.25: the federation accepted this federate's restore request.
    fn request_federation_restore_succeeded(&mut self, label: &str) {}
    /// 4.25: the federation refused it; `reason` says why (no such save, a save file that cannot
    /// be read — named —, federates that do not match the saved ones, …). The `reason` argument
    /// is an hlamesh addition.
    fn request_federation_restore_failed(&mut self, label: &str, reason: &str) {}
    /// 4.26: a federation restore began; services are refused with `RestoreInProgress` until
    /// it ends.
    fn federation_restore_begun(&mut self) {}
    /// 4.27: the RTI state is restored; this federate is now `name` with `handle` (as saved).
    /// Restore the federate's own state from [`RtiAmbassador::federate_state_dir`], then call
    /// `federate_restore_complete` (or `_not_complete`).
    fn initiate_federate_restore(&mut self, label: &str, name: &str, handle: FederateHandle) {}
    /// 4.29: every federate restored.
    fn federation_restored(&mut self) {}
    /// 4.29: the restore failed. `detail` says what failed in words, an hlamesh addition like
    /// the reason of `request_federation_restore_failed`: for `RtiUnableToRestore` the save file
    /// that could not be used (missing, unreadable, corrupt or truncated), named with its path.
    fn federation_not_restored(&mut self, reason: RestoreFailureReason, detail: &str) {}
    /// 4.33: answer to `query_federation_restore_status`: (handle before the restore, handle
    /// after it, status) per federate.
    fn federation_restore_status_response(
        &mut self,
        status: &[(FederateHandle, FederateHandle, RestoreStatus)],
    ) {
    }
}

thread_local! {
    static IN_CALLBACK: Cell<bool> = const { Cell::new(false) };
}

/// The retraction handle a timestamped service returns (the core issues one for every send
/// with a time).
fn issued(handle: Option<MessageRetractionHandle>) -> RtiResult<MessageRetractionHandle> {
    handle.ok_or_else(|| RtiError::RtiInternalError("no retraction handle issued".into()))
}

/// Hands one delivery to the federate ambassador (locked by the caller).
/// Restores the calling thread's "inside a callback" mark, also when the callback unwinds.
struct InCallback(bool);

impl Drop for InCallback {
    fn drop(&mut self) {
        IN_CALLBACK.with(|c| c.set(self.0));
    }
}

pub(crate) fn dispatch_to(a: &mut dyn FederateAmbassador, d: Delivery) {
    let _mark = InCallback(IN_CALLBACK.with(|c| c.replace(true)));
    match d {
        Delivery::Report(v) => a.report_federation_executions(&v),
        Delivery::ConnectionLost(s) => a.connection_lost(&s),
        Delivery::Core(cb) => match cb {
            Callback::DiscoverObjectInstance {
                object,
                class,
                name,
                producer,
            } => a.discover_object_instance(object, class, &name, producer),
            Callback::ReflectAttributeValues {
                object,
                values,
                tag,
                info,
            } => a.reflect_attribute_values(object, &values, &tag, &info),
            Callback::ReceiveInteraction {
                class,
                params,
                tag,
                info,
            } => a.receive_interaction(class, &params, &tag, &info),
            Callback::RemoveObjectInstance {
                object,
                tag,
                producer,
                time,
                sent_order,
                received_order,
                retraction,
            } => match time {
                Some(t) => a.remove_object_instance_with_time(
                    object,
                    &tag,
                    producer,
                    &t,
                    sent_order,
                    received_order,
                    retraction,
                ),
                None => a.remove_object_instance(object, &tag, producer),
            },
            Callback::ProvideAttributeValueUpdate { object, attrs, tag } => {
                a.provide_attribute_value_update(object, &attrs, &tag)
            }
            Callback::ObjectInstanceNameReservationSucceeded(n) => {
                a.object_instance_name_reservation_succeeded(&n)
            }
            Callback::ObjectInstanceNameReservationFailed(n) => {
                a.object_instance_name_reservation_failed(&n)
            }
            Callback::MultipleObjectInstanceNameReservationSucceeded(n) => {
                a.multiple_object_instance_name_reservation_succeeded(&n)
            }
            Callback::MultipleObjectInstanceNameReservationFailed(n) => {
                a.multiple_object_instance_name_reservation_failed(&n)
            }
            Callback::StartRegistrationForObjectClass(c) => {
                a.start_registration_for_object_class(c)
            }
            Callback::StopRegistrationForObjectClass(c) => a.stop_registration_for_object_class(c),
            Callback::TurnInteractionsOn(c) => a.turn_interactions_on(c),
            Callback::TurnInteractionsOff(c) => a.turn_interactions_off(c),
            Callback::AttributesInScope { object, attrs } => a.attributes_in_scope(object, &attrs),
            Callback::AttributesOutOfScope { object, attrs } => {
                a.attributes_out_of_scope(object, &attrs)
            }
            Callback::TurnUpdatesOnForObjectInstance { object, attrs } => {
                a.turn_updates_on_for_object_instance(object, &attrs)
            }
            Callback::TurnUpdatesOffForObjectInstance { object, attrs } => {
                a.turn_updates_off_for_object_instance(object, &attrs)
            }
            Callback::TimeRegulationEnabled(t) => a.time_regulation_enabled(t),
            Callback::TimeConstrainedEnabled(t) => a.time_constrained_enabled(t),
            Callback::TimeAdvanceGrant(t) => a.time_advance_grant(t),
            Callback::SynchronizationPointRegistrationSucceeded(l) => {
                a.synchronization_point_registration_succeeded(&l)
            }
            Callback::SynchronizationPointRegistrationFailed(l, r) => {
                a.synchronization_point_registration_failed(&l, r)
            }
            Callback::AnnounceSynchronizationPoint { label, tag } => {
                a.announce_synchronization_point(&label, &tag)
            }
            Callback::FederationSynchronized { label, failed } => {
                a.federation_synchronized(&label, &failed)
            }
            Callback::InitiateFederateSave { label, time } => {
                a.initiate_federate_save(&label, time)
            }
            Callback::FederationSaved => a.federation_saved(),
            Callback::FederationNotSaved(r) => a.federation_not_saved(r),
            Callback::FederationSaveStatusResponse(v) => a.federation_save_status_response(&v),
            Callback::RequestFederationRestoreSucceeded(l) => {
                a.request_federation_restore_succeeded(&l)
            }
            Callback::RequestFederationRestoreFailed { label, reason } => {
                a.request_federation_restore_failed(&label, &reason)
            }
            Callback::FederationRestoreBegun => a.federation_restore_begun(),
            Callback::InitiateFederateRestore {
                label,
                name,
                handle,
            } => a.initiate_federate_restore(&label, &name, handle),
            Callback::FederationRestored => a.federation_restored(),
            Callback::FederationNotRestored { reason, detail } => {
                a.federation_not_restored(reason, &detail)
            }
            Callback::FederationRestoreStatusResponse(v) => {
                a.federation_restore_status_response(&v)
            }
            Callback::RequestAttributeOwnershipAssumption { object, attrs, tag } => {
                a.request_attribute_ownership_assumption(object, &attrs, &tag)
            }
            Callback::RequestDivestitureConfirmation { object, attrs } => {
                a.request_divestiture_confirmation(object, &attrs)
            }
            Callback::AttributeOwnershipAcquisitionNotification { object, attrs, tag } => {
                a.attribute_ownership_acquisition_notification(object, &attrs, &tag)
            }
            Callback::AttributeOwnershipUnavailable { object, attrs } => {
                a.attribute_ownership_unavailable(object, &attrs)
            }
            Callback::RequestAttributeOwnershipRelease { object, attrs, tag } => {
                a.request_attribute_ownership_release(object, &attrs, &tag)
            }
            Callback::ConfirmAttributeOwnershipAcquisitionCancellation { object, attrs } => {
                a.confirm_attribute_ownership_acquisition_cancellation(object, &attrs)
            }
            Callback::InformAttributeOwnership {
                object,
                attr,
                owner,
            } => a.inform_attribute_ownership(object, attr, owner),
            Callback::AttributeIsNotOwned { object, attr } => {
                a.attribute_is_not_owned(object, attr)
            }
            Callback::RequestRetraction(h) => a.request_retraction(h),
            Callback::AttributeIsOwnedByRti { object, attr } => {
                a.attribute_is_owned_by_rti(object, attr)
            }
        },
    }
}

struct Connection {
    queue: Arc<CallbackQueue>,
    model: CallbackModel,
    enabled: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
}

impl Connection {
    /// Evoked model: delivers one callback.
    fn evoke(&self, d: Delivery) {
        if let Some(mut a) = self.queue.ambassador() {
            self.queue.dispatch(&mut **a, d);
        }
    }
}

/// The MOM's view of a federate's callback queue (see `hlamesh_core::core::mom`).
#[derive(Debug)]
struct QueueView(Arc<CallbackQueue>);

impl CallbackQueueView for QueueView {
    fn waiting(&self) -> usize {
        self.0.len()
    }

    fn grant_waiting(&self) -> bool {
        self.0.grant_undelivered()
    }
}

/// One federate's handle on the RTI. See the module docs.
pub struct RtiAmbassador {
    lrc: Option<Lrc>,
    conn: Option<Connection>,
    /// Federation and this federate's handle (a cell: a federation restore changes it).
    joined: Option<(String, Arc<AtomicU32>)>,
}

impl std::fmt::Debug for RtiAmbassador {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RtiAmbassador")
            .field("joined", &self.joined)
            .finish()
    }
}

fn no_callback(service: &str) -> RtiResult<()> {
    if IN_CALLBACK.with(Cell::get) {
        return Err(RtiError::CallNotAllowedFromWithinCallback(format!(
            "{service} may not be called from within a callback"
        )));
    }
    Ok(())
}

/// The seven service groups of IEEE 1516-2010 (the `HLAserviceGroup` dimension's values, see
/// [`RtiAmbassador::normalize_service_group`]), in the standard's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ServiceGroup {
    /// Clause 4.
    FederationManagement = 0,
    /// Clause 5.
    DeclarationManagement = 1,
    /// Clause 6.
    ObjectManagement = 2,
    /// Clause 7.
    OwnershipManagement = 3,
    /// Clause 8.
    TimeManagement = 4,
    /// Clause 9.
    DataDistributionManagement = 5,
    /// Clause 10.
    SupportServices = 6,
}

impl ServiceGroup {
    /// The group with number `code` (0 to 6, the standard's order; HLA `InvalidServiceGroup`
    /// otherwise).
    pub fn from_code(code: u32) -> RtiResult<ServiceGroup> {
        use ServiceGroup::*;
        [
            FederationManagement,
            DeclarationManagement,
            ObjectManagement,
            OwnershipManagement,
            TimeManagement,
            DataDistributionManagement,
            SupportServices,
        ]
        .into_iter()
        .find(|g| *g as u32 == code)
        .ok_or_else(|| RtiError::InvalidServiceGroup(format!("service group {code} (0 to 6)")))
    }
}

fn lookup(e: LookupError, what: &str) -> RtiError {
    match e {
        LookupError::NameNotFound(n) => RtiError::NameNotFound(format!("{what} {n}")),
        LookupError::InvalidObjectClassHandle(h) => {
            RtiError::InvalidObjectClassHandle(format!("object class handle {h}"))
        }
        LookupError::InvalidAttributeHandle(h) => {
            RtiError::InvalidAttributeHandle(format!("attribute handle {h}"))
        }
        LookupError::AttributeNotDefined { class, attribute } => RtiError::AttributeNotDefined(
            format!("attribute {attribute} is not defined in object class {class}"),
        ),
        LookupError::InvalidInteractionClassHandle(h) => {
            RtiError::InvalidInteractionClassHandle(format!("interaction class handle {h}"))
        }
        LookupError::InvalidParameterHandle(h) => {
            RtiError::InvalidParameterHandle(format!("parameter handle {h}"))
        }
        LookupError::InteractionParameterNotDefined { class, parameter } => {
            RtiError::InteractionParameterNotDefined(format!(
                "parameter {parameter} is not defined in interaction class {class}"
            ))
        }
        LookupError::InvalidDimensionHandle(h) => {
            RtiError::InvalidDimensionHandle(format!("dimension handle {h}"))
        }
        other => RtiError::NameNotFound(other.to_string()),
    }
}

impl Default for RtiAmbassador {
    fn default() -> Self {
        Self::new()
    }
}

impl RtiAmbassador {
    /// An ambassador on the process-wide LRC (started at `connect`).
    pub fn new() -> Self {
        RtiAmbassador {
            lrc: None,
            conn: None,
            joined: None,
        }
    }

    /// An ambassador on a given LRC (several per process share it).
    pub fn with_lrc(lrc: Lrc) -> Self {
        RtiAmbassador {
            lrc: Some(lrc),
            conn: None,
            joined: None,
        }
    }

    fn lrc(&self) -> RtiResult<&Lrc> {
        if self.conn.is_none() {
            return Err(RtiError::NotConnected("call connect first".into()));
        }
        self.lrc
            .as_ref()
            .ok_or_else(|| RtiError::NotConnected("call connect first".into()))
    }

    fn member(&self) -> RtiResult<(&Lrc, &str, FederateHandle)> {
        let lrc = self.lrc()?;
        let (f, h) = self.joined.as_ref().ok_or_else(|| {
            RtiError::FederateNotExecutionMember("this federate has not joined".into())
        })?;
        Ok((lrc, f.as_str(), FederateHandle(h.load(Ordering::SeqCst))))
    }

    fn fdd(&self) -> RtiResult<Arc<Fdd>> {
        let (lrc, fed, _) = self.member()?;
        lrc.with_core(fed, |c| c.fdd_ref())
    }

    /// 4.2: connects with a callback model.
    pub fn connect(
        &mut self,
        ambassador: Box<dyn FederateAmbassador>,
        model: CallbackModel,
    ) -> RtiResult<()> {
        no_callback("connect")?;
        if self.conn.is_some() {
            return Err(RtiError::AlreadyConnected(
                "this ambassador is connected".into(),
            ));
        }
        if self.lrc.is_none() {
            self.lrc = Some(Lrc::shared()?);
        }
        let amb: Amb = Arc::new(Mutex::new(ambassador));
        let enabled = Arc::new(AtomicBool::new(true));
        let stop = Arc::new(AtomicBool::new(false));
        let immediate = model == CallbackModel::Immediate;
        let waker = self.lrc.as_ref().map(Lrc::receiver_waker);
        let (queue, woken) = CallbackQueue::new(amb, immediate, enabled.clone(), waker);
        if immediate {
            let (q, stop2) = (queue.clone(), stop.clone());
            std::thread::Builder::new()
                .name("hlamesh-callbacks".into())
                .spawn(move || q.serve(woken, stop2))
                .map_err(|e| RtiError::RtiInternalError(e.to_string()))?;
        }
        self.conn = Some(Connection {
            queue,
            model,
            enabled,
            stop,
        });
        Ok(())
    }

    /// 4.3. Refused while this ambassador's federate is joined (`FederateIsExecutionMember`).
    /// The LRC then leaves every federation that none of its federates is joined to any more
    /// (this one's resignation was the last, or other ambassadors of the process resigned too):
    /// the other members see it leave — not lose it — and stop counting it at once (their
    /// coordinator decisions, time management, synchronization points and late joiners no
    /// longer wait for it, and a leaving coordinator hands over to the next member). A later
    /// `connect` and join make it a member again. Returns once the others applied the
    /// departure (at most the coordinator call timeout, 10 s).
    pub fn disconnect(&mut self) -> RtiResult<()> {
        no_callback("disconnect")?;
        self.lrc()?;
        if self.joined.is_some() {
            return Err(RtiError::FederateIsExecutionMember(
                "resign before disconnecting".into(),
            ));
        }
        if let Some(c) = self.conn.take() {
            c.stop.store(true, Ordering::Release);
        }
        // The LRC leaves the federations none of its federates is joined to any more, so the
        // other members stop counting it (see `Lrc::leave_idle`).
        if let Some(lrc) = &self.lrc {
            lrc.leave_idle();
        }
        Ok(())
    }

    /// 4.5: creates a federation execution from FOM module files.
    pub fn create_federation_execution(
        &self,
        name: &str,
        fom_modules: &[impl AsRef<Path>],
    ) -> RtiResult<()> {
        let mut mods = Vec::new();
        for p in fom_modules {
            let p = p.as_ref();
            let text = std::fs::read(p)
                .map_err(|e| RtiError::CouldNotOpenFdd(format!("{}: {e}", p.display())))?;
            let text = String::from_utf8(text)
                .map_err(|e| RtiError::ErrorReadingFdd(format!("{}: {e}", p.display())))?;
            mods.push((p.display().to_string(), text));
        }
        self.create_federation_execution_from_text(name, mods)
    }

    /// 4.5 with FOM modules given as (designator, XML text).
    pub fn create_federation_execution_from_text(
        &self,
        name: &str,
        modules: Vec<(String, String)>,
    ) -> RtiResult<()> {
        self.lrc()?.create(name, modules)
    }

    /// 4.5 with the logical time implementation name: `"HLAfloat64Time"` (what the other
    /// create services use) or `"HLAinteger64Time"`. Every joiner gets the federation's one;
    /// its federates then pass and get times and intervals of that kind (`Time::integer`,
    /// `LogicalTimeInterval::integer`; anything else is `InvalidLogicalTime` /
    /// `InvalidLookahead`). `CouldNotCreateLogicalTimeFactory` for other names.
    pub fn create_federation_execution_with_time(
        &self,
        name: &str,
        modules: Vec<(String, String)>,
        logical_time_implementation: &str,
    ) -> RtiResult<()> {
        let kind = TimeKind::from_name(logical_time_implementation).ok_or_else(|| {
            RtiError::CouldNotCreateLogicalTimeFactory(format!(
                "unknown logical time implementation {logical_time_implementation:?} \
                 (HLAfloat64Time or HLAinteger64Time)"
            ))
        })?;
        self.lrc()?.create_with_time(name, modules, kind)
    }

    /// 4.6.
    pub fn destroy_federation_execution(&self, name: &str) -> RtiResult<()> {
        self.lrc()?.destroy(name)
    }

    /// 4.7: the answer arrives as `report_federation_executions`.
    pub fn list_federation_executions(&self) -> RtiResult<()> {
        // Each with its time implementation, also those this LRC is not in: the members'
        // beacons announce it (see `Lrc::federation_executions`).
        let list = self
            .lrc()?
            .federation_executions()
            .into_iter()
            .map(|(n, kind)| (n, kind.name().to_string()))
            .collect();
        if let Some(c) = &self.conn {
            c.queue.push(Delivery::Report(list));
        }
        Ok(())
    }

    /// 4.9: joins; `federate_name` must be unique in the federation if given.
    pub fn join_federation_execution(
        &mut self,
        federate_name: Option<&str>,
        federate_type: &str,
        federation: &str,
    ) -> RtiResult<FederateHandle> {
        self.join_federation_execution_from_text(
            federate_name,
            federate_type,
            federation,
            Vec::new(),
        )
    }

    /// 4.9 with additional FOM module files: they are merged into the federation's FDD after
    /// its modules (every LRC merges them; existing handles do not change). A module that does
    /// not parse is refused here (`CouldNotOpenFdd`, `ErrorReadingFdd`), one that does not merge
    /// by the coordinator (`InconsistentFdd`); either way nothing joins.
    pub fn join_federation_execution_with_modules(
        &mut self,
        federate_name: Option<&str>,
        federate_type: &str,
        federation: &str,
        fom_modules: &[impl AsRef<Path>],
    ) -> RtiResult<FederateHandle> {
        let mut mods = Vec::new();
        for p in fom_modules {
            let p = p.as_ref();
            let text = std::fs::read(p)
                .map_err(|e| RtiError::CouldNotOpenFdd(format!("{}: {e}", p.display())))?;
            let text = String::from_utf8(text)
                .map_err(|e| RtiError::ErrorReadingFdd(format!("{}: {e}", p.display())))?;
            mods.push((p.display().to_string(), text));
        }
        self.join_federation_execution_from_text(federate_name, federate_type, federation, mods)
    }

    /// 4.9 with additional FOM modules given as (designator, XML text).
    pub fn join_federation_execution_from_text(
        &mut self,
        federate_name: Option<&str>,
        federate_type: &str,
        federation: &str,
        modules: Vec<(String, String)>,
    ) -> RtiResult<FederateHandle> {
        no_callback("join_federation_execution")?;
        for (d, x) in &modules {
            crate::fom::FomModule::parse(d, x).map_err(|e| RtiError::from_fom(&e))?;
        }
        let lrc = self.lrc()?.clone();
        // After `connection_lost` the old membership is gone: the federate may join again.
        if let Some((f, h)) = &self.joined {
            let h = FederateHandle(h.load(Ordering::SeqCst));
            if lrc.with_core(f, |c| Ok(c.is_local(h))) != Ok(true) {
                self.joined = None;
            }
        }
        if let Some((f, _)) = &self.joined {
            return Err(RtiError::FederateAlreadyExecutionMember(format!(
                "already joined to federation {f}"
            )));
        }
        let tx = self
            .conn
            .as_ref()
            .map(|c| c.queue.clone())
            .ok_or_else(|| RtiError::NotConnected("call connect first".into()))?;
        let h = lrc.join_with_modules(
            federation,
            federate_name,
            federate_type,
            modules,
            tx.clone(),
        )?;
        // The MOM reads this federate's queue (`HLAROlength`, a grant not received yet).
        let view: Arc<dyn CallbackQueueView> = Arc::new(QueueView(tx));
        let _ = lrc.with_core(federation, |c| {
            c.set_callback_queue(h, view);
            Ok(())
        });
        let cell = lrc.handle_cell(federation, h);
        self.joined = Some((federation.to_string(), cell));
        Ok(h)
    }

    /// 4.10.
    pub fn resign_federation_execution(&mut self, action: ResignAction) -> RtiResult<()> {
        no_callback("resign_federation_execution")?;
        let (lrc, fed, h) = self.member()?;
        let (lrc, fed) = (lrc.clone(), fed.to_string());
        lrc.resign(&fed, h, action)?;
        self.joined = None;
        Ok(())
    }

    /// 4.11: registers a federation-wide synchronization point (every joined federate, and
    /// federates that join before it synchronizes). The outcome arrives as
    /// `synchronization_point_registration_succeeded` / `_failed`.
    pub fn register_federation_synchronization_point(
        &self,
        label: &str,
        tag: &[u8],
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{label:?}"), format!("{tag:?}")]);
            c.mom_reported(h, "registerFederationSynchronizationPoint", args, |c| {
                c.register_federation_synchronization_point(h, label, tag, None)
            })
        })
    }

    /// 4.11: registers a point for an explicit set of federates (an empty set means
    /// federation-wide). A set naming a federate that is not joined fails with
    /// `SynchronizationSetMemberNotJoined` in the failed callback.
    pub fn register_federation_synchronization_point_with_set(
        &self,
        label: &str,
        tag: &[u8],
        set: &[FederateHandle],
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || {
                vec![format!("{label:?}"), format!("{tag:?}"), format!("{set:?}")]
            });
            c.mom_reported(h, "registerFederationSynchronizationPoint", args, |c| {
                c.register_federation_synchronization_point(h, label, tag, Some(set.to_vec()))
            })
        })
    }

    /// 4.14: this federate reached the point (`successfully = false` puts it in the failed set).
    pub fn synchronization_point_achieved(&self, label: &str, successfully: bool) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || {
                vec![format!("{label:?}"), format!("{successfully:?}")]
            });
            c.mom_reported(h, "synchronizationPointAchieved", args, |c| {
                c.synchronization_point_achieved(h, label, successfully)
            })
        })
    }

    /// 4.16: asks every joined federate to save under `label` (untimed). The federation answers
    /// with `initiate_federate_save` to each federate, then `federation_saved` or
    /// `federation_not_saved`. Timed saves are not implemented yet.
    pub fn request_federation_save(&self, label: &str) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{label:?}")]);
            c.mom_reported(h, "requestFederationSave", args, |c| {
                c.request_federation_save(h, label, None)
            })
        })
    }

    /// 4.16 (timed): every federate saves at logical time `time`. Constrained federates are
    /// told to save (`initiate_federate_save` with the time) right after their grant to exactly
    /// that time, so all save at the same logical time; one already past it, or granted past it,
    /// fails the save with `SaveTimeCannotBeHonored`. Replaces a timed save nobody reported on
    /// yet. `LogicalTimeAlreadyPassed` if this federate's time is past `time`.
    pub fn request_federation_save_with_time(&self, label: &str, time: Time) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{label:?}"), format!("{time:?}")]);
            c.mom_reported(h, "requestFederationSave", args, |c| {
                let time = c.check_time(time)?;
                c.request_federation_save(h, label, Some(time))
            })
        })
    }

    /// 4.18.
    pub fn federate_save_begun(&self) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, Vec::new);
            c.mom_reported(h, "federateSaveBegun", args, |c| {
                c.report_federate_save(h, SaveReport::Begun)
            })
        })
    }

    /// 4.19: the federate's own state is written; the LRC writes the RTI's state for it
    /// (atomically, with a checksum — see [`crate::save_file`]) once it holds every message
    /// sent before the save (the cut, see [`crate::core::save`]), and reports complete, or the
    /// RTI's failure (`federation_not_saved(RtiUnableToSave)`) if it cannot write.
    pub fn federate_save_complete(&self) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, Vec::new);
            c.mom_reported(h, "federateSaveComplete", args, |c| {
                c.report_federate_save(h, SaveReport::Complete)
            })
        })
    }

    /// 4.19.
    pub fn federate_save_not_complete(&self) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, Vec::new);
            c.mom_reported(h, "federateSaveNotComplete", args, |c| {
                c.report_federate_save(h, SaveReport::NotComplete)
            })
        })
    }

    /// 4.21.
    pub fn abort_federation_save(&self) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, Vec::new);
            c.mom_reported(h, "abortFederationSave", args, |c| {
                c.abort_federation_save(h)
            })
        })
    }

    /// 4.22: answered by `federation_save_status_response`.
    pub fn query_federation_save_status(&self) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, Vec::new);
            c.mom_reported(h, "queryFederationSaveStatus", args, |c| {
                c.query_federation_save_status(h)
            })
        })
    }

    /// 4.24: asks the federation to restore the save `label`. This LRC reads its save files of
    /// that label (`<save root>/<federation>/<label>/*.rti`) for the federation as saved; the
    /// coordinator then matches the joined federates to the saved ones by type and count. The
    /// answer is `request_federation_restore_succeeded` or `_failed(reason)`: no such save, a
    /// corrupt or truncated file (named in the reason), federates that do not match, a save or
    /// restore in progress. Then every federate gets `federation_restore_begun`,
    /// `initiate_federate_restore` and finally `federation_restored` or
    /// `federation_not_restored` (see [`crate::core::restore`]).
    pub fn request_federation_restore(&self, label: &str) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        let saved = crate::save_file::read_membership(&crate::save_file::save_root(), fed, label);
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{label:?}")]);
            c.mom_reported(h, "requestFederationRestore", args, |c| {
                c.request_federation_restore(h, label, saved)
            })
        })
    }

    /// 4.30: this federate restored its own state.
    pub fn federate_restore_complete(&self) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, Vec::new);
            c.mom_reported(h, "federateRestoreComplete", args, |c| {
                c.report_federate_restore(h, true)
            })
        })
    }

    /// 4.31: this federate could not restore its own state (the restore fails with
    /// `FederateReportedFailureDuringRestore`).
    pub fn federate_restore_not_complete(&self) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, Vec::new);
            c.mom_reported(h, "federateRestoreNotComplete", args, |c| {
                c.report_federate_restore(h, false)
            })
        })
    }

    /// 4.33 (abortFederationRestore): before the RTI state was replaced the federation is left
    /// as it was; after it, the restored state stays.
    pub fn abort_federation_restore(&self) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, Vec::new);
            c.mom_reported(h, "abortFederationRestore", args, |c| {
                c.abort_federation_restore(h)
            })
        })
    }

    /// 4.34: answered by `federation_restore_status_response`.
    pub fn query_federation_restore_status(&self) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, Vec::new);
            c.mom_reported(h, "queryFederationRestoreStatus", args, |c| {
                c.query_federation_restore_status(h)
            })
        })
    }

    /// The directory holding this federate's own state for the save or restore in progress
    /// (created if missing): `<save root>/<federation>/<label>/<federate name>/`, next to the
    /// RTI's file for it. During a restore the name is the saved one (given by
    /// `initiate_federate_restore`). `SaveNotInitiated` when neither is in progress.
    pub fn federate_state_dir(&self) -> RtiResult<std::path::PathBuf> {
        let (lrc, fed, h) = self.member()?;
        let (label, name) = lrc.with_core(fed, |c| {
            let label = c
                .restore_in_progress()
                .map(|r| r.label.clone())
                .or_else(|| c.save_in_progress().map(|s| s.label.clone()));
            let s = label.ok_or_else(|| {
                RtiError::SaveNotInitiated(format!(
                    "federation {fed}: federate {h}: no save or restore in progress"
                ))
            })?;
            let name = c
                .local_federates()
                .find(|(x, _)| **x == h)
                .map(|(_, l)| l.name.clone())
                .unwrap_or_default();
            Ok((s, name))
        })?;
        let dir = crate::save_file::federate_state_dir(
            &crate::save_file::save_root(),
            fed,
            &label,
            &name,
        );
        std::fs::create_dir_all(&dir).map_err(|e| {
            RtiError::RtiInternalError(format!("cannot create {}: {e}", dir.display()))
        })?;
        Ok(dir)
    }

    /// 10.2.
    pub fn get_automatic_resign_directive(&self) -> RtiResult<ResignAction> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            c.local_federates()
                .find(|(x, _)| **x == h)
                .map(|(_, l)| l.auto_resign)
                .ok_or_else(|| RtiError::FederateNotExecutionMember(fed.to_string()))
        })
    }

    /// 10.3.
    pub fn set_automatic_resign_directive(&self, action: ResignAction) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{action:?}")]);
            c.mom_reported(h, "setAutomaticResignDirective", args, |c| {
                c.set_automatic_resign_action(h, action)
            })
        })
    }

    /// 8.23: sends these attributes of `object` (owned by this federate) with `order` from now
    /// on instead of the FOM's order type.
    pub fn change_attribute_order_type(
        &self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
        order: crate::fom::OrderType,
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || {
                vec![
                    format!("{object:?}"),
                    format!("{attrs:?}"),
                    format!("{order:?}"),
                ]
            });
            c.mom_reported(h, "changeAttributeOrderType", args, |c| {
                c.change_attribute_order_type(h, object, attrs, order)
            })
        })
    }

    /// 8.24: sends interactions of `class` (published by this federate) with `order` from now on.
    pub fn change_interaction_order_type(
        &self,
        class: InteractionClassHandle,
        order: crate::fom::OrderType,
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{class:?}"), format!("{order:?}")]);
            c.mom_reported(h, "changeInteractionOrderType", args, |c| {
                c.change_interaction_order_type(h, class, order)
            })
        })
    }

    /// 10.33.
    pub fn enable_object_class_relevance_advisory_switch(&self) -> RtiResult<()> {
        self.set_advisory_switch(AdvisorySwitch::ObjectClassRelevance, true)
    }

    /// 10.34.
    pub fn disable_object_class_relevance_advisory_switch(&self) -> RtiResult<()> {
        self.set_advisory_switch(AdvisorySwitch::ObjectClassRelevance, false)
    }

    /// 10.35.
    pub fn enable_attribute_relevance_advisory_switch(&self) -> RtiResult<()> {
        self.set_advisory_switch(AdvisorySwitch::AttributeRelevance, true)
    }

    /// 10.36.
    pub fn disable_attribute_relevance_advisory_switch(&self) -> RtiResult<()> {
        self.set_advisory_switch(AdvisorySwitch::AttributeRelevance, false)
    }

    /// 10.37.
    pub fn enable_attribute_scope_advisory_switch(&self) -> RtiResult<()> {
        self.set_advisory_switch(AdvisorySwitch::AttributeScope, true)
    }

    /// 10.38.
    pub fn disable_attribute_scope_advisory_switch(&self) -> RtiResult<()> {
        self.set_advisory_switch(AdvisorySwitch::AttributeScope, false)
    }

    /// 10.39.
    pub fn enable_interaction_relevance_advisory_switch(&self) -> RtiResult<()> {
        self.set_advisory_switch(AdvisorySwitch::InteractionRelevance, true)
    }

    /// 10.40.
    pub fn disable_interaction_relevance_advisory_switch(&self) -> RtiResult<()> {
        self.set_advisory_switch(AdvisorySwitch::InteractionRelevance, false)
    }

    fn set_advisory_switch(&self, switch: AdvisorySwitch, on: bool) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, Vec::new);
            let n = switch.fdd_name();
            let service = format!(
                "{}{}{}Switch",
                if on { "enable" } else { "disable" },
                n[..1].to_uppercase(),
                &n[1..]
            );
            c.mom_reported(h, &service, args, |c| c.set_advisory_switch(h, switch, on))
        })
    }

    /// Whether one of this federate's advisory switches is on (an hlamesh addition; the
    /// standard reports switches through the MOM).
    pub fn advisory_switch(&self, switch: AdvisorySwitch) -> RtiResult<bool> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{switch:?}")]);
            c.mom_reported(h, "advisorySwitch", args, |c| c.advisory_switch(h, switch))
        })
    }

    /// 5.2.
    pub fn publish_object_class_attributes(
        &self,
        class: ObjectClassHandle,
        attrs: &[AttributeHandle],
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{class:?}"), format!("{attrs:?}")]);
            c.mom_reported(h, "publishObjectClassAttributes", args, |c| {
                c.publish_object_class_attributes(h, class, attrs)
            })
        })
    }

    /// 5.3 (whole class).
    pub fn unpublish_object_class(&self, class: ObjectClassHandle) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{class:?}")]);
            c.mom_reported(h, "unpublishObjectClass", args, |c| {
                c.unpublish_object_class_attributes(h, class, None)
            })
        })
    }

    /// 5.3.
    pub fn unpublish_object_class_attributes(
        &self,
        class: ObjectClassHandle,
        attrs: &[AttributeHandle],
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{class:?}"), format!("{attrs:?}")]);
            c.mom_reported(h, "unpublishObjectClassAttributes", args, |c| {
                c.unpublish_object_class_attributes(h, class, Some(attrs))
            })
        })
    }

    /// 5.4.
    pub fn publish_interaction_class(&self, ic: InteractionClassHandle) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{ic:?}")]);
            c.mom_reported(h, "publishInteractionClass", args, |c| {
                c.publish_interaction_class(h, ic)
            })
        })
    }

    /// 5.5.
    pub fn unpublish_interaction_class(&self, ic: InteractionClassHandle) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{ic:?}")]);
            c.mom_reported(h, "unpublishInteractionClass", args, |c| {
                c.unpublish_interaction_class(h, ic)
            })
        })
    }

    /// 5.6 (`active = false` is the passive variant).
    pub fn subscribe_object_class_attributes(
        &self,
        class: ObjectClassHandle,
        attrs: &[AttributeHandle],
        active: bool,
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || {
                vec![
                    format!("{class:?}"),
                    format!("{attrs:?}"),
                    format!("{active:?}"),
                ]
            });
            c.mom_reported(h, "subscribeObjectClassAttributes", args, |c| {
                c.subscribe_object_class_attributes(h, class, attrs, active)
            })
        })
    }

    /// 5.6 with an update rate designator: `rate` names one of the FDD's `updateRates`
    /// (`InvalidUpdateRateDesignator` otherwise), and the federate receives each subscribed
    /// attribute of each instance no faster than that rate, the latest value whenever an
    /// interval opens (updates sent in receive order; see [`crate::core::update_rate`]).
    ///
    /// ```no_run
    /// # fn f(rti: &hlamesh_lrc::ambassador::RtiAmbassador) -> hlamesh_lrc::error::RtiResult<()> {
    /// let class = rti.get_object_class_handle("Vehicle")?;
    /// let position = rti.get_attribute_handle(class, "Position")?;
    /// rti.subscribe_object_class_attributes_with_rate(class, &[position], true, "TenHz")?;
    /// assert_eq!(rti.get_update_rate_value("TenHz")?, 10.0);
    /// # Ok(()) }
    /// ```
    pub fn subscribe_object_class_attributes_with_rate(
        &self,
        class: ObjectClassHandle,
        attrs: &[AttributeHandle],
        active: bool,
        rate: &str,
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || {
                vec![
                    format!("{class:?}"),
                    format!("{attrs:?}"),
                    format!("{active:?}"),
                    format!("{rate:?}"),
                ]
            });
            c.mom_reported(h, "subscribeObjectClassAttributes", args, |c| {
                c.subscribe_object_class_attributes_with_rate(h, class, attrs, active, Some(rate))
            })
        })
    }

    /// 5.7 (whole class).
    pub fn unsubscribe_object_class(&self, class: ObjectClassHandle) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{class:?}")]);
            c.mom_reported(h, "unsubscribeObjectClass", args, |c| {
                c.unsubscribe_object_class_attributes(h, class, None)
            })
        })
    }

    /// 5.7.
    pub fn unsubscribe_object_class_attributes(
        &self,
        class: ObjectClassHandle,
        attrs: &[AttributeHandle],
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{class:?}"), format!("{attrs:?}")]);
            c.mom_reported(h, "unsubscribeObjectClassAttributes", args, |c| {
                c.unsubscribe_object_class_attributes(h, class, Some(attrs))
            })
        })
    }

    /// 5.8.
    pub fn subscribe_interaction_class(
        &self,
        ic: InteractionClassHandle,
        active: bool,
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{ic:?}"), format!("{active:?}")]);
            c.mom_reported(h, "subscribeInteractionClass", args, |c| {
                c.subscribe_interaction_class(h, ic, active)
            })
        })
    }

    /// 5.9.
    pub fn unsubscribe_interaction_class(&self, ic: InteractionClassHandle) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{ic:?}")]);
            c.mom_reported(h, "unsubscribeInteractionClass", args, |c| {
                c.unsubscribe_interaction_class(h, ic)
            })
        })
    }

    /// 6.2.
    pub fn reserve_object_instance_name(&self, name: &str) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{name:?}")]);
            c.mom_reported(h, "reserveObjectInstanceName", args, |c| {
                c.reserve_object_instance_names(h, vec![name.to_string()], false)
            })
        })
    }

    /// 6.5.
    pub fn reserve_multiple_object_instance_name(&self, names: &[&str]) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        let v = names.iter().map(|s| s.to_string()).collect();
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{names:?}")]);
            c.mom_reported(h, "reserveMultipleObjectInstanceName", args, |c| {
                c.reserve_object_instance_names(h, v, true)
            })
        })
    }

    /// 6.4.
    pub fn release_object_instance_name(&self, name: &str) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{name:?}")]);
            c.mom_reported(h, "releaseObjectInstanceName", args, |c| {
                c.release_object_instance_names(h, vec![name.to_string()])
            })
        })
    }

    /// 6.7.
    pub fn release_multiple_object_instance_name(&self, names: &[&str]) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        let v = names.iter().map(|s| s.to_string()).collect();
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{names:?}")]);
            c.mom_reported(h, "releaseMultipleObjectInstanceName", args, |c| {
                c.release_object_instance_names(h, v)
            })
        })
    }

    /// 6.8 without a name.
    pub fn register_object_instance(
        &self,
        class: ObjectClassHandle,
    ) -> RtiResult<ObjectInstanceHandle> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{class:?}")]);
            c.mom_reported(h, "registerObjectInstance", args, |c| {
                c.register_object_instance(h, class, None)
            })
        })
    }

    /// 6.8 with a name reserved by this federate.
    pub fn register_object_instance_with_name(
        &self,
        class: ObjectClassHandle,
        name: &str,
    ) -> RtiResult<ObjectInstanceHandle> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{class:?}"), format!("{name:?}")]);
            c.mom_reported(h, "registerObjectInstance", args, |c| {
                c.register_object_instance(h, class, Some(name))
            })
        })
    }

    /// 6.10 (receive order).
    pub fn update_attribute_values(
        &self,
        object: ObjectInstanceHandle,
        values: Vec<(AttributeHandle, Vec<u8>)>,
        tag: &[u8],
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        // The core refuses it during a save or restore (SaveInProgress / RestoreInProgress).
        lrc.with_core_paced(fed, |c| {
            let args = c.mom_supplied(h, || {
                vec![
                    format!("{object:?}"),
                    format!("{values:?}"),
                    format!("{tag:?}"),
                ]
            });
            c.mom_reported(h, "updateAttributeValues", args, |c| {
                c.update_attribute_values(h, object, values, tag.to_vec(), None)
                    .map(drop)
            })
        })
    }

    /// 6.10 with a logical time: time-stamp order for attributes whose FOM order is TimeStamp
    /// when this federate is regulating (`InvalidLogicalTime` below its send bound), receive
    /// order otherwise.
    ///
    /// A time-stamp-order update waits for this federate's next time-advance request (or next
    /// data message), at most 1 ms, and leaves in the same datagram, when two or more other LRCs
    /// are in the federation: a constrained receiver cannot deliver it before that request's
    /// time message anyway, and every receiver handles one datagram a step instead of two
    /// (lockstep with one update a step: 35–45 % more grants/s at 4 and 8 LRCs, see
    /// `benches/README.md`). A receiver that is not constrained gets it that much later.
    ///
    /// Returns the update's retraction handle for [`RtiAmbassador::retract`].
    pub fn update_attribute_values_with_time(
        &self,
        object: ObjectInstanceHandle,
        values: Vec<(AttributeHandle, Vec<u8>)>,
        tag: &[u8],
        time: Time,
    ) -> RtiResult<MessageRetractionHandle> {
        let (lrc, fed, h) = self.member()?;
        let time = self.of_kind(time)?.encode().to_vec();
        lrc.with_core_paced(fed, |c| {
            let args = c.mom_supplied(h, || {
                vec![
                    format!("{object:?}"),
                    format!("{values:?}"),
                    format!("{tag:?}"),
                    format!("{time:?}"),
                ]
            });
            c.mom_reported(h, "updateAttributeValues", args, |c| {
                // Under the same lock as the update: the hot path takes it once.
                c.update_attribute_values(h, object, values, tag.to_vec(), Some(time))
                    .and_then(issued)
            })
        })
    }

    /// 6.12.
    pub fn send_interaction(
        &self,
        ic: InteractionClassHandle,
        params: Vec<(ParameterHandle, Vec<u8>)>,
        tag: &[u8],
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core_paced(fed, |c| {
            let args = c.mom_supplied(h, || {
                vec![format!("{ic:?}"), format!("{params:?}"), format!("{tag:?}")]
            });
            c.mom_reported(h, "sendInteraction", args, |c| {
                // Under the same lock as the update: the hot path takes it once.
                c.send_interaction(h, ic, params, tag.to_vec(), None)
                    .map(drop)
            })
        })
    }

    /// 6.12 with a logical time (ordered like
    /// [`RtiAmbassador::update_attribute_values_with_time`]); returns its retraction handle.
    pub fn send_interaction_with_time(
        &self,
        ic: InteractionClassHandle,
        params: Vec<(ParameterHandle, Vec<u8>)>,
        tag: &[u8],
        time: Time,
    ) -> RtiResult<MessageRetractionHandle> {
        let (lrc, fed, h) = self.member()?;
        let time = self.of_kind(time)?.encode().to_vec();
        lrc.with_core_paced(fed, |c| {
            let args = c.mom_supplied(h, || {
                vec![
                    format!("{ic:?}"),
                    format!("{params:?}"),
                    format!("{tag:?}"),
                    format!("{time:?}"),
                ]
            });
            c.mom_reported(h, "sendInteraction", args, |c| {
                // Under the same lock as the update: the hot path takes it once.
                c.send_interaction(h, ic, params, tag.to_vec(), Some(time))
                    .and_then(issued)
            })
        })
    }

    /// 6.14.
    pub fn delete_object_instance(
        &self,
        object: ObjectInstanceHandle,
        tag: &[u8],
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{object:?}"), format!("{tag:?}")]);
            c.mom_reported(h, "deleteObjectInstance", args, |c| {
                c.delete_object_instance(h, object, tag.to_vec(), None)
                    .map(drop)
            })
        })
    }

    /// 6.14 with a logical time: time-stamp order when this federate is regulating
    /// (`InvalidLogicalTime` below its send bound, as for a timed update), receive order
    /// otherwise. Constrained receivers get `remove_object_instance_with_time` at the grant
    /// that covers `time`, after the timestamp-ordered updates before it. Returns the delete's
    /// retraction handle: retracted, the instance stays (see [`RtiAmbassador::retract`]).
    pub fn delete_object_instance_with_time(
        &self,
        object: ObjectInstanceHandle,
        tag: &[u8],
        time: Time,
    ) -> RtiResult<MessageRetractionHandle> {
        let (lrc, fed, h) = self.member()?;
        let time = self.of_kind(time)?.encode().to_vec();
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || {
                vec![
                    format!("{object:?}"),
                    format!("{tag:?}"),
                    format!("{time:?}"),
                ]
            });
            c.mom_reported(h, "deleteObjectInstance", args, |c| {
                c.delete_object_instance(h, object, tag.to_vec(), Some(time))
                    .and_then(issued)
            })
        })
    }

    /// 6.16.
    pub fn local_delete_object_instance(&self, object: ObjectInstanceHandle) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{object:?}")]);
            c.mom_reported(h, "localDeleteObjectInstance", args, |c| {
                c.local_delete_object_instance(h, object)
            })
        })
    }

    // ----- 7: ownership management (see `crate::core::ownership` for the semantics) -----

    /// 7.2: the attributes become unowned at once (or go to a federate waiting to acquire them).
    pub fn unconditional_attribute_ownership_divestiture(
        &self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{object:?}"), format!("{attrs:?}")]);
            c.mom_reported(h, "unconditionalAttributeOwnershipDivestiture", args, |c| {
                c.unconditional_attribute_ownership_divestiture(h, object, attrs)
            })
        })
    }

    /// 7.3: offers the attributes; ownership changes hands at [`Self::confirm_divestiture`].
    pub fn negotiated_attribute_ownership_divestiture(
        &self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
        tag: &[u8],
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || {
                vec![
                    format!("{object:?}"),
                    format!("{attrs:?}"),
                    format!("{tag:?}"),
                ]
            });
            c.mom_reported(h, "negotiatedAttributeOwnershipDivestiture", args, |c| {
                c.negotiated_attribute_ownership_divestiture(h, object, attrs, tag)
            })
        })
    }

    /// 7.6: hands the attributes to the federates that asked (after
    /// `request_divestiture_confirmation`).
    pub fn confirm_divestiture(
        &self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
        tag: &[u8],
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || {
                vec![
                    format!("{object:?}"),
                    format!("{attrs:?}"),
                    format!("{tag:?}"),
                ]
            });
            c.mom_reported(h, "confirmDivestiture", args, |c| {
                c.confirm_divestiture(h, object, attrs, tag)
            })
        })
    }

    /// 7.14.
    pub fn cancel_negotiated_attribute_ownership_divestiture(
        &self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{object:?}"), format!("{attrs:?}")]);
            c.mom_reported(
                h,
                "cancelNegotiatedAttributeOwnershipDivestiture",
                args,
                |c| c.cancel_negotiated_attribute_ownership_divestiture(h, object, attrs),
            )
        })
    }

    /// 7.8: intrusive acquisition (the owner is asked to release).
    pub fn attribute_ownership_acquisition(
        &self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
        tag: &[u8],
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || {
                vec![
                    format!("{object:?}"),
                    format!("{attrs:?}"),
                    format!("{tag:?}"),
                ]
            });
            c.mom_reported(h, "attributeOwnershipAcquisition", args, |c| {
                c.attribute_ownership_acquisition(h, object, attrs, tag)
            })
        })
    }

    /// 7.9: succeeds for unowned attributes and attributes being divested (negotiated).
    pub fn attribute_ownership_acquisition_if_available(
        &self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{object:?}"), format!("{attrs:?}")]);
            c.mom_reported(h, "attributeOwnershipAcquisitionIfAvailable", args, |c| {
                c.attribute_ownership_acquisition_if_available(h, object, attrs)
            })
        })
    }

    /// 7.12: the acquirers get `attribute_ownership_unavailable`.
    pub fn attribute_ownership_release_denied(
        &self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{object:?}"), format!("{attrs:?}")]);
            c.mom_reported(h, "attributeOwnershipReleaseDenied", args, |c| {
                c.attribute_ownership_release_denied(h, object, attrs)
            })
        })
    }

    /// 7.13: releases the attributes somebody waits for; returns them.
    pub fn attribute_ownership_divestiture_if_wanted(
        &self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
    ) -> RtiResult<Vec<AttributeHandle>> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{object:?}"), format!("{attrs:?}")]);
            c.mom_reported(h, "attributeOwnershipDivestitureIfWanted", args, |c| {
                c.attribute_ownership_divestiture_if_wanted(h, object, attrs)
            })
        })
    }

    /// 7.15.
    pub fn cancel_attribute_ownership_acquisition(
        &self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{object:?}"), format!("{attrs:?}")]);
            c.mom_reported(h, "cancelAttributeOwnershipAcquisition", args, |c| {
                c.cancel_attribute_ownership_acquisition(h, object, attrs)
            })
        })
    }

    /// 7.17: answered by `inform_attribute_ownership` or `attribute_is_not_owned`.
    pub fn query_attribute_ownership(
        &self,
        object: ObjectInstanceHandle,
        attr: AttributeHandle,
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{object:?}"), format!("{attr:?}")]);
            c.mom_reported(h, "queryAttributeOwnership", args, |c| {
                c.query_attribute_ownership(h, object, attr)
            })
        })
    }

    /// 7.19.
    pub fn is_attribute_owned_by_federate(
        &self,
        object: ObjectInstanceHandle,
        attr: AttributeHandle,
    ) -> RtiResult<bool> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{object:?}"), format!("{attr:?}")]);
            c.mom_reported(h, "isAttributeOwnedByFederate", args, |c| {
                c.is_attribute_owned_by_federate(h, object, attr)
            })
        })
    }

    /// 6.19 for one instance.
    pub fn request_attribute_value_update(
        &self,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
        tag: &[u8],
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || {
                vec![
                    format!("{object:?}"),
                    format!("{attrs:?}"),
                    format!("{tag:?}"),
                ]
            });
            c.mom_reported(h, "requestAttributeValueUpdate", args, |c| {
                c.request_attribute_value_update(
                    h,
                    Some(object),
                    None,
                    attrs.to_vec(),
                    tag.to_vec(),
                )
            })
        })
    }

    /// 6.19 for every instance of a class.
    pub fn request_class_attribute_value_update(
        &self,
        class: ObjectClassHandle,
        attrs: &[AttributeHandle],
        tag: &[u8],
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || {
                vec![
                    format!("{class:?}"),
                    format!("{attrs:?}"),
                    format!("{tag:?}"),
                ]
            });
            c.mom_reported(h, "requestClassAttributeValueUpdate", args, |c| {
                c.request_attribute_value_update(h, None, Some(class), attrs.to_vec(), tag.to_vec())
            })
        })
    }

    /// 10.4.
    pub fn get_federate_handle(&self, name: &str) -> RtiResult<FederateHandle> {
        let (lrc, fed, _) = self.member()?;
        lrc.with_core(fed, |c| {
            c.view()
                .federate_by_name(name)
                .ok_or_else(|| RtiError::NameNotFound(format!("federation {fed}: federate {name}")))
        })
    }

    /// 10.5.
    pub fn get_federate_name(&self, h: FederateHandle) -> RtiResult<String> {
        let (lrc, fed, _) = self.member()?;
        lrc.with_core(fed, |c| {
            c.view()
                .federates
                .get(&h)
                .map(|r| r.name.clone())
                .ok_or_else(|| {
                    RtiError::InvalidFederateHandle(format!("federation {fed}: federate {h}"))
                })
        })
    }

    /// 10.6.
    pub fn get_object_class_handle(&self, name: &str) -> RtiResult<ObjectClassHandle> {
        self.fdd()?
            .object_class_handle(name)
            .map_err(|e| lookup(e, "object class"))
    }

    /// 10.7.
    pub fn get_object_class_name(&self, h: ObjectClassHandle) -> RtiResult<String> {
        self.fdd()?
            .object_class_name(h)
            .map(str::to_string)
            .map_err(|e| lookup(e, "object class"))
    }

    /// 10.8.
    pub fn get_known_object_class_handle(
        &self,
        o: ObjectInstanceHandle,
    ) -> RtiResult<ObjectClassHandle> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| c.known_object_class(h, o))
    }

    /// 10.9.
    pub fn get_object_instance_handle(&self, name: &str) -> RtiResult<ObjectInstanceHandle> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| c.object_instance_handle(h, name))
    }

    /// 10.10.
    pub fn get_object_instance_name(&self, o: ObjectInstanceHandle) -> RtiResult<String> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| c.object_instance_name(h, o))
    }

    /// 10.11.
    pub fn get_attribute_handle(
        &self,
        class: ObjectClassHandle,
        name: &str,
    ) -> RtiResult<AttributeHandle> {
        self.fdd()?
            .attribute_handle(class, name)
            .map_err(|e| lookup(e, "attribute"))
    }

    /// 10.12.
    pub fn get_attribute_name(
        &self,
        class: ObjectClassHandle,
        a: AttributeHandle,
    ) -> RtiResult<String> {
        self.fdd()?
            .attribute_name(class, a)
            .map(str::to_string)
            .map_err(|e| lookup(e, "attribute"))
    }

    /// 10.13: the rate in Hz of update rate designator `name` (`InvalidUpdateRateDesignator`
    /// for a name the FDD's `updateRates` do not have).
    pub fn get_update_rate_value(&self, name: &str) -> RtiResult<f64> {
        let (lrc, fed, _) = self.member()?;
        lrc.with_core(fed, |c| c.get_update_rate_value(name))
    }

    /// 10.14: the rate in Hz at which this federate subscribed attribute `a` of the class it
    /// knows `o` as; 0 when it subscribed the attribute with no rate or does not subscribe it.
    pub fn get_update_rate_value_for_attribute(
        &self,
        o: ObjectInstanceHandle,
        a: AttributeHandle,
    ) -> RtiResult<f64> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| c.get_update_rate_value_for_attribute(h, o, a))
    }

    /// 10.15.
    pub fn get_interaction_class_handle(&self, name: &str) -> RtiResult<InteractionClassHandle> {
        self.fdd()?
            .interaction_class_handle(name)
            .map_err(|e| lookup(e, "interaction class"))
    }

    /// 10.16.
    pub fn get_interaction_class_name(&self, h: InteractionClassHandle) -> RtiResult<String> {
        self.fdd()?
            .interaction_class_name(h)
            .map(str::to_string)
            .map_err(|e| lookup(e, "interaction class"))
    }

    /// 10.17.
    pub fn get_parameter_handle(
        &self,
        ic: InteractionClassHandle,
        name: &str,
    ) -> RtiResult<ParameterHandle> {
        self.fdd()?
            .parameter_handle(ic, name)
            .map_err(|e| lookup(e, "parameter"))
    }

    /// 10.18.
    pub fn get_parameter_name(
        &self,
        ic: InteractionClassHandle,
        p: ParameterHandle,
    ) -> RtiResult<String> {
        self.fdd()?
            .parameter_name(ic, p)
            .map(str::to_string)
            .map_err(|e| lookup(e, "parameter"))
    }

    /// 10.26: the dimensions attribute `a` of `class` may use in regions: the dimensions its
    /// FDD declaration lists (`InvalidObjectClassHandle`, `InvalidAttributeHandle`,
    /// `AttributeNotDefined`). Empty for an attribute declared without dimensions.
    pub fn get_available_dimensions_for_class_attribute(
        &self,
        class: ObjectClassHandle,
        a: AttributeHandle,
    ) -> RtiResult<Vec<DimensionHandle>> {
        self.fdd()?
            .available_dimensions_for_class_attribute(class, a)
            .map(<[DimensionHandle]>::to_vec)
            .map_err(|e| lookup(e, "attribute"))
    }

    /// 10.27: the handle of the FDD's dimension `name` (`NameNotFound`).
    pub fn get_dimension_handle(&self, name: &str) -> RtiResult<DimensionHandle> {
        self.fdd()?
            .dimension_handle(name)
            .map_err(|e| lookup(e, "dimension"))
    }

    /// 10.28: the name of dimension `d` (`InvalidDimensionHandle`).
    pub fn get_dimension_name(&self, d: DimensionHandle) -> RtiResult<String> {
        self.fdd()?
            .dimension_name(d)
            .map(str::to_string)
            .map_err(|e| lookup(e, "dimension"))
    }

    /// 10.29: the upper bound of dimension `d`'s normalised range (`InvalidDimensionHandle`).
    /// A dimension whose FDD declaration gives no `upperBound` — the standard MIM's
    /// `HLAfederate` is one — has the RTI-chosen bound `u64::MAX`, so that every value
    /// [`normalize_federate_handle`](Self::normalize_federate_handle) returns lies below it.
    pub fn get_dimension_upper_bound(&self, d: DimensionHandle) -> RtiResult<u64> {
        self.fdd()?
            .dimension_upper_bound(d)
            .map_err(|e| lookup(e, "dimension"))
    }

    /// 10.30: the dimensions interaction class `ic` may use in regions
    /// (`InvalidInteractionClassHandle`). Empty for a class declared without dimensions.
    pub fn get_available_dimensions_for_interaction_class(
        &self,
        ic: InteractionClassHandle,
    ) -> RtiResult<Vec<DimensionHandle>> {
        self.fdd()?
            .available_dimensions_for_interaction_class(ic)
            .map(<[DimensionHandle]>::to_vec)
            .map_err(|e| lookup(e, "interaction class"))
    }

    /// 10.31: the normalised value of federate handle `f` on the standard MIM's `HLAfederate`
    /// dimension (its normalization is "Normalize Federate Handle service").
    ///
    /// hlamesh's normalization is the identity on the handle's number: federate handles are
    /// assigned once per federation execution and never reused, so distinct federates get
    /// distinct values, and the value is below `HLAfederate`'s upper bound (`u64::MAX`, see
    /// [`get_dimension_upper_bound`](Self::get_dimension_upper_bound)). The C++ API's
    /// `normalizeFederateHandle` returns the same number. `InvalidFederateHandle` for a handle
    /// that names no federate currently joined to this federation execution.
    pub fn normalize_federate_handle(&self, f: FederateHandle) -> RtiResult<u64> {
        let (lrc, fed, _) = self.member()?;
        lrc.with_core(fed, |c| {
            if c.view().federates.contains_key(&f) {
                Ok(u64::from(f.0))
            } else {
                Err(RtiError::InvalidFederateHandle(format!(
                    "federation {fed}: federate {f} is not joined"
                )))
            }
        })
    }

    /// 10.32: the normalised value of service group `g` on the standard MIM's
    /// `HLAserviceGroup` dimension (upper bound 7): the group's position in the standard's
    /// order, federation management 0 through support services 6 (the order of the C++ API's
    /// `ServiceGroup` enumeration, whose `normalizeServiceGroup` returns the same values).
    /// A raw value outside the seven groups is refused by [`ServiceGroup::from_code`] with
    /// `InvalidServiceGroup`.
    pub fn normalize_service_group(&self, g: ServiceGroup) -> RtiResult<u64> {
        self.member()?;
        Ok(u64::from(g as u32))
    }

    /// Runs a DDM service on the core under the LRC's lock, reported to the MOM like the
    /// others (`args` only when this federate's service reporting is on).
    fn ddm<T: std::fmt::Debug>(
        &self,
        service: &str,
        paced: bool,
        args: impl FnOnce() -> Vec<String>,
        op: impl FnOnce(&mut FederationCore, FederateHandle) -> RtiResult<T>,
    ) -> RtiResult<T> {
        let (lrc, fed, h) = self.member()?;
        let run = |c: &mut FederationCore| {
            let args = c.mom_supplied(h, args);
            c.mom_reported(h, service, args, |c| op(c, h))
        };
        if paced {
            lrc.with_core_paced(fed, run)
        } else {
            lrc.with_core(fed, run)
        }
    }

    /// 9.2: creates a region over `dims` (`InvalidDimensionHandle`). Each dimension starts at
    /// the FDD's default range for it (the full range where that is `Excluded`), committed.
    /// Regions, their overlap and what the receiving LRC filters with them:
    /// [`crate::core::regions`].
    ///
    /// ```no_run
    /// # fn f(rti: &hlamesh_lrc::ambassador::RtiAmbassador) -> hlamesh_lrc::error::RtiResult<()> {
    /// use hlamesh_lrc::ambassador::RangeBounds;
    /// let x = rti.get_dimension_handle("X")?;
    /// let vehicle = rti.get_object_class_handle("Vehicle")?;
    /// let position = rti.get_attribute_handle(vehicle, "Position")?;
    /// let near = rti.create_region(&[x])?;
    /// rti.set_range_bounds(near, x, RangeBounds::new(0, 100))?;
    /// rti.commit_region_modifications(&[near])?;
    /// rti.subscribe_object_class_attributes_with_regions(vehicle, &[(vec![position], vec![near])], true)?;
    /// # Ok(()) }
    /// ```
    pub fn create_region(&self, dims: &[DimensionHandle]) -> RtiResult<RegionHandle> {
        self.ddm(
            "createRegion",
            false,
            || vec![format!("{dims:?}")],
            |c, h| c.create_region(h, dims),
        )
    }

    /// 9.3: the template ranges of `regions` (set with [`Self::set_range_bounds`]) take
    /// effect: update regions are announced to the federation in this LRC's stream, in order
    /// with the updates (`InvalidRegion`, `RegionNotCreatedByThisFederate`).
    pub fn commit_region_modifications(&self, regions: &[RegionHandle]) -> RtiResult<()> {
        self.ddm(
            "commitRegionModifications",
            true,
            || vec![format!("{regions:?}")],
            |c, h| c.commit_region_modifications(h, regions),
        )
    }

    /// 9.4 (`RegionInUseForUpdateOrSubscription` while associated or subscribed with).
    pub fn delete_region(&self, region: RegionHandle) -> RtiResult<()> {
        self.ddm(
            "deleteRegion",
            false,
            || vec![format!("{region:?}")],
            |c, h| c.delete_region(h, region),
        )
    }

    /// 9.5 without a name: registers an instance with update regions for attributes
    /// (`InvalidRegionContext` for a region with a dimension an attribute cannot use).
    pub fn register_object_instance_with_regions(
        &self,
        class: ObjectClassHandle,
        pairs: &AttrRegionPairs,
    ) -> RtiResult<ObjectInstanceHandle> {
        self.ddm(
            "registerObjectInstanceWithRegions",
            true,
            || vec![format!("{class:?}"), format!("{pairs:?}")],
            |c, h| c.register_object_instance_with_regions(h, class, pairs, None),
        )
    }

    /// 9.5 with a name this federate reserved.
    pub fn register_object_instance_with_regions_and_name(
        &self,
        class: ObjectClassHandle,
        pairs: &AttrRegionPairs,
        name: &str,
    ) -> RtiResult<ObjectInstanceHandle> {
        self.ddm(
            "registerObjectInstanceWithRegions",
            true,
            || {
                vec![
                    format!("{class:?}"),
                    format!("{pairs:?}"),
                    format!("{name:?}"),
                ]
            },
            |c, h| c.register_object_instance_with_regions(h, class, pairs, Some(name)),
        )
    }

    /// 9.6: associates update regions with attributes of an instance (added to earlier ones).
    pub fn associate_regions_for_updates(
        &self,
        object: ObjectInstanceHandle,
        pairs: &AttrRegionPairs,
    ) -> RtiResult<()> {
        self.ddm(
            "associateRegionsForUpdates",
            true,
            || vec![format!("{object:?}"), format!("{pairs:?}")],
            |c, h| c.associate_regions_for_updates(h, object, pairs),
        )
    }

    /// 9.7: removes update-region associations (an attribute left with none is in the
    /// default region, which overlaps everything).
    pub fn unassociate_regions_for_updates(
        &self,
        object: ObjectInstanceHandle,
        pairs: &AttrRegionPairs,
    ) -> RtiResult<()> {
        self.ddm(
            "unassociateRegionsForUpdates",
            true,
            || vec![format!("{object:?}"), format!("{pairs:?}")],
            |c, h| c.unassociate_regions_for_updates(h, object, pairs),
        )
    }

    /// 9.8 (`active = false` is the passive variant): adds region subscriptions; the federate
    /// discovers and reflects an instance's attributes only where an update region overlaps.
    pub fn subscribe_object_class_attributes_with_regions(
        &self,
        class: ObjectClassHandle,
        pairs: &AttrRegionPairs,
        active: bool,
    ) -> RtiResult<()> {
        self.ddm(
            "subscribeObjectClassAttributesWithRegions",
            false,
            || {
                vec![
                    format!("{class:?}"),
                    format!("{pairs:?}"),
                    format!("{active:?}"),
                ]
            },
            |c, h| c.subscribe_object_class_attributes_with_regions(h, class, pairs, active, None),
        )
    }

    /// 9.8 with an update rate designator (as [`Self::subscribe_object_class_attributes_with_rate`]).
    pub fn subscribe_object_class_attributes_with_regions_and_rate(
        &self,
        class: ObjectClassHandle,
        pairs: &AttrRegionPairs,
        active: bool,
        rate: &str,
    ) -> RtiResult<()> {
        self.ddm(
            "subscribeObjectClassAttributesWithRegions",
            false,
            || {
                vec![
                    format!("{class:?}"),
                    format!("{pairs:?}"),
                    format!("{active:?}"),
                    format!("{rate:?}"),
                ]
            },
            |c, h| {
                c.subscribe_object_class_attributes_with_regions(
                    h,
                    class,
                    pairs,
                    active,
                    Some(rate),
                )
            },
        )
    }

    /// 9.9.
    pub fn unsubscribe_object_class_attributes_with_regions(
        &self,
        class: ObjectClassHandle,
        pairs: &AttrRegionPairs,
    ) -> RtiResult<()> {
        self.ddm(
            "unsubscribeObjectClassAttributesWithRegions",
            false,
            || vec![format!("{class:?}"), format!("{pairs:?}")],
            |c, h| c.unsubscribe_object_class_attributes_with_regions(h, class, pairs),
        )
    }

    /// 9.10 (`active = false` is the passive variant).
    pub fn subscribe_interaction_class_with_regions(
        &self,
        ic: InteractionClassHandle,
        regions: &[RegionHandle],
        active: bool,
    ) -> RtiResult<()> {
        self.ddm(
            "subscribeInteractionClassWithRegions",
            false,
            || {
                vec![
                    format!("{ic:?}"),
                    format!("{regions:?}"),
                    format!("{active:?}"),
                ]
            },
            |c, h| c.subscribe_interaction_class_with_regions(h, ic, regions, active),
        )
    }

    /// 9.11.
    pub fn unsubscribe_interaction_class_with_regions(
        &self,
        ic: InteractionClassHandle,
        regions: &[RegionHandle],
    ) -> RtiResult<()> {
        self.ddm(
            "unsubscribeInteractionClassWithRegions",
            false,
            || vec![format!("{ic:?}"), format!("{regions:?}")],
            |c, h| c.unsubscribe_interaction_class_with_regions(h, ic, regions),
        )
    }

    /// 9.12 (receive order): only federates with an overlapping subscription region (or a
    /// subscription without regions) receive it.
    pub fn send_interaction_with_regions(
        &self,
        ic: InteractionClassHandle,
        params: Vec<(ParameterHandle, Vec<u8>)>,
        regions: &[RegionHandle],
        tag: &[u8],
    ) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core_paced(fed, |c| {
            let args = c.mom_supplied(h, || {
                vec![
                    format!("{ic:?}"),
                    format!("{params:?}"),
                    format!("{regions:?}"),
                    format!("{tag:?}"),
                ]
            });
            c.mom_reported(h, "sendInteractionWithRegions", args, |c| {
                c.send_interaction_with_regions(h, ic, params, regions, tag.to_vec(), None)
                    .map(drop)
            })
        })
    }

    /// 9.12 with a logical time (ordered like [`Self::send_interaction_with_time`]); returns
    /// its retraction handle.
    pub fn send_interaction_with_regions_and_time(
        &self,
        ic: InteractionClassHandle,
        params: Vec<(ParameterHandle, Vec<u8>)>,
        regions: &[RegionHandle],
        tag: &[u8],
        time: Time,
    ) -> RtiResult<MessageRetractionHandle> {
        let (lrc, fed, h) = self.member()?;
        let time = self.of_kind(time)?.encode().to_vec();
        lrc.with_core_paced(fed, |c| {
            let args = c.mom_supplied(h, || {
                vec![
                    format!("{ic:?}"),
                    format!("{params:?}"),
                    format!("{regions:?}"),
                    format!("{tag:?}"),
                    format!("{time:?}"),
                ]
            });
            c.mom_reported(h, "sendInteractionWithRegions", args, |c| {
                c.send_interaction_with_regions(h, ic, params, regions, tag.to_vec(), Some(time))
                    .and_then(issued)
            })
        })
    }

    /// 9.13: asks the owners of instances of `class` whose update regions overlap the paired
    /// regions to provide those attributes.
    pub fn request_attribute_value_update_with_regions(
        &self,
        class: ObjectClassHandle,
        pairs: &AttrRegionPairs,
        tag: &[u8],
    ) -> RtiResult<()> {
        self.ddm(
            "requestAttributeValueUpdateWithRegions",
            false,
            || {
                vec![
                    format!("{class:?}"),
                    format!("{pairs:?}"),
                    format!("{tag:?}"),
                ]
            },
            |c, h| c.request_attribute_value_update_with_regions(h, class, pairs, tag.to_vec()),
        )
    }

    /// 10.28: the dimensions of a region of this federate.
    pub fn get_dimension_handle_set(
        &self,
        region: RegionHandle,
    ) -> RtiResult<Vec<DimensionHandle>> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| c.get_dimension_handle_set(h, region))
    }

    /// 10.29: a region's range on a dimension, as last set (the template: a range set and not
    /// committed yet is returned too) (`RegionDoesNotContainSpecifiedDimension`).
    pub fn get_range_bounds(
        &self,
        region: RegionHandle,
        dim: DimensionHandle,
    ) -> RtiResult<RangeBounds> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| c.get_range_bounds(h, region, dim))
    }

    /// 10.30: sets a region's template range on a dimension; it takes effect at
    /// [`Self::commit_region_modifications`] (`InvalidRangeBound` unless
    /// `lower < upper ≤` the dimension's upper bound).
    pub fn set_range_bounds(
        &self,
        region: RegionHandle,
        dim: DimensionHandle,
        bounds: RangeBounds,
    ) -> RtiResult<()> {
        self.ddm(
            "setRangeBounds",
            false,
            || {
                vec![
                    format!("{region:?}"),
                    format!("{dim:?}"),
                    format!("{bounds:?}"),
                ]
            },
            |c, h| c.set_range_bounds(h, region, dim, bounds),
        )
    }

    /// The merged FDD of the joined federation (for encoding helpers).
    pub fn fdd_of_federation(&self) -> RtiResult<Arc<Fdd>> {
        self.fdd()
    }

    fn time_service<R: std::fmt::Debug>(
        &self,
        service: &str,
        op: impl FnOnce(&mut Manager) -> Result<R, TimeError>,
    ) -> RtiResult<R> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, Vec::new);
            c.mom_reported(h, service, args, |c| {
                self.federate_time_service(c, h, None, op)
            })
        })
    }

    /// A time service that changes the federate's time state: the core refuses it during a
    /// save or restore (under the same lock as the service itself).
    fn time_change<R: std::fmt::Debug>(
        &self,
        service: &str,
        op: impl FnOnce(&mut Manager) -> Result<R, TimeError>,
    ) -> RtiResult<R> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, Vec::new);
            c.mom_reported(h, service, args, |c| {
                self.federate_time_service(c, h, Some(service), op)
            })
        })
    }

    /// Runs a time service on this federate's manager, which first learns whether the
    /// federate's last grant still waits in its callback queue: until the federate receives it,
    /// it is in the Time Advancing state (8.2) and its logical time is the one before the grant
    /// (8.13). Called under the LRC's lock, where grants are queued as they are issued.
    /// `change` names a service that changes the federate's time state (see
    /// [`FederationCore::time_change`]).
    fn federate_time_service<R>(
        &self,
        c: &mut FederationCore,
        h: FederateHandle,
        change: Option<&str>,
        op: impl FnOnce(&mut Manager) -> Result<R, TimeError>,
    ) -> RtiResult<R> {
        let undelivered = self
            .conn
            .as_ref()
            .is_some_and(|k| k.queue.grant_undelivered())
            || c.grant_held(h);
        let op = |m: &mut Manager| {
            m.set_grant_undelivered(undelivered);
            op(m)
        };
        match change {
            Some(service) => c.time_change(h, service, op),
            None => c.time_service(h, op),
        }
    }

    /// A time service taking a time: `InvalidLogicalTime` unless it is of the federation's
    /// time implementation.
    fn time_service_at<R: std::fmt::Debug>(
        &self,
        service: &str,
        time: Time,
        op: impl FnOnce(&mut Manager, Time) -> Result<R, TimeError>,
    ) -> RtiResult<R> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{time:?}")]);
            c.mom_reported(h, service, args, |c| {
                let time = c.check_time(time)?;
                self.federate_time_service(c, h, Some(service), |m| op(m, time))
            })
        })
    }

    /// A time service taking an interval: `InvalidLookahead` unless it is of the federation's
    /// time implementation.
    fn time_service_by<R: std::fmt::Debug>(
        &self,
        service: &str,
        interval: Interval,
        op: impl FnOnce(&mut Manager, Interval) -> Result<R, TimeError>,
    ) -> RtiResult<R> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{interval:?}")]);
            c.mom_reported(h, service, args, |c| {
                let interval = c.check_interval(interval)?;
                self.federate_time_service(c, h, Some(service), |m| op(m, interval))
            })
        })
    }

    /// A query answering times in the federation's kind.
    fn time_query(&self, op: impl FnOnce(&Manager) -> Option<Time>) -> RtiResult<Option<Time>> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let t = self.federate_time_service(c, h, None, |m| Ok(op(m)))?;
            Ok(t.map(|t| c.time_out(t)))
        })
    }

    /// `time` if it is of the joined federation's time implementation.
    fn of_kind(&self, time: Time) -> RtiResult<Time> {
        let (lrc, fed, _) = self.member()?;
        lrc.with_core(fed, |c| c.check_time(time))
    }

    /// The logical time implementation of the joined federation (`HLAfloat64Time` or
    /// `HLAinteger64Time`), chosen by its creator.
    pub fn time_kind(&self) -> RtiResult<TimeKind> {
        let (lrc, fed, _) = self.member()?;
        lrc.with_core(fed, |c| Ok(c.time_kind()))
    }

    /// 8.2.
    pub fn enable_time_regulation(&self, lookahead: Interval) -> RtiResult<()> {
        self.time_service_by("enableTimeRegulation", lookahead, |t, l| {
            t.enable_time_regulation(l)
        })
    }

    /// 8.4.
    pub fn disable_time_regulation(&self) -> RtiResult<()> {
        self.time_change("disableTimeRegulation", |t| t.disable_time_regulation())
    }

    /// 8.5.
    pub fn enable_time_constrained(&self) -> RtiResult<()> {
        self.time_change("enableTimeConstrained", |t| t.enable_time_constrained())
    }

    /// 8.7.
    pub fn disable_time_constrained(&self) -> RtiResult<()> {
        self.time_change("disableTimeConstrained", |t| t.disable_time_constrained())
    }

    /// 8.8.
    pub fn time_advance_request(&self, time: Time) -> RtiResult<()> {
        self.time_service_at("timeAdvanceRequest", time, |t, time| {
            t.time_advance_request(time)
        })
    }

    /// 8.9.
    pub fn time_advance_request_available(&self, time: Time) -> RtiResult<()> {
        self.time_service_at("timeAdvanceRequestAvailable", time, |t, time| {
            t.time_advance_request_available(time)
        })
    }

    /// 8.10.
    pub fn next_message_request(&self, time: Time) -> RtiResult<()> {
        self.time_service_at("nextMessageRequest", time, |t, time| {
            t.next_message_request(time)
        })
    }

    /// 8.11.
    pub fn next_message_request_available(&self, time: Time) -> RtiResult<()> {
        self.time_service_at("nextMessageRequestAvailable", time, |t, time| {
            t.next_message_request_available(time)
        })
    }

    /// 8.12.
    pub fn flush_queue_request(&self, time: Time) -> RtiResult<()> {
        self.time_service_at("flushQueueRequest", time, |t, time| {
            t.flush_queue_request(time)
        })
    }

    /// 8.14.
    pub fn enable_asynchronous_delivery(&self) -> RtiResult<()> {
        self.time_service("enableAsynchronousDelivery", |t| {
            t.enable_asynchronous_delivery()
        })
    }

    /// 8.15.
    pub fn disable_asynchronous_delivery(&self) -> RtiResult<()> {
        self.time_service("disableAsynchronousDelivery", |t| {
            t.disable_asynchronous_delivery()
        })
    }

    /// 8.21: retracts a message this federate sent with a logical time, named by the handle
    /// the sending service returned. Receivers that still hold it never get it; those that
    /// received it get [`FederateAmbassador::request_retraction`]; a retracted timed delete
    /// leaves the instance. `InvalidMessageRetractionHandle` for a handle this federate was not
    /// given (or one retracted already, or from before a restore); `MessageCanNoLongerBeRetracted`
    /// for a message sent in receive order or whose time is not greater than this federate's
    /// logical time. The semantics in full: `hlamesh_core::core::retraction`.
    pub fn retract(&self, handle: MessageRetractionHandle) -> RtiResult<()> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, || vec![format!("{handle:?}")]);
            c.mom_reported(h, "retract", args, |c| {
                // The manager learns whether a grant waits undelivered first: the logical time
                // the message's time is compared with is the one the federate sees.
                self.federate_time_service(c, h, None, |_| Ok(()))?;
                c.retract(h, handle)
            })
        })
    }

    /// 8.16: `None` when no other federate regulates.
    pub fn query_galt(&self) -> RtiResult<Option<Time>> {
        self.time_query(|t| t.galt())
    }

    /// 8.17.
    pub fn query_logical_time(&self) -> RtiResult<Time> {
        self.time_query(|t| Some(t.federate_logical_time()))?
            .ok_or_else(|| RtiError::RtiInternalError("no logical time".into()))
    }

    /// 8.18: `None` when nothing can arrive.
    pub fn query_lits(&self) -> RtiResult<Option<Time>> {
        self.time_query(|t| t.lits())
    }

    /// Wall-clock offset of the LRC that runs `federate` (its clock minus this LRC's) with the
    /// error bound the true offset lies within: NTP-style probes over QUIC, filtered for the
    /// smallest round trip (`hlamesh_timesync::clock_offset`). `None` until the first probe
    /// round came back (the first call starts one; probing then continues at 1 Hz while it is
    /// asked for). Not an HLA service; for measuring cross-node one-way latency. Logical time
    /// never depends on it.
    pub fn clock_offset(&self, federate: FederateHandle) -> RtiResult<Option<OffsetEstimate>> {
        let (lrc, fed, _) = self.member()?;
        let node = lrc.with_core(fed, |c| {
            c.view()
                .federates
                .get(&federate)
                .map(|r| r.node)
                .ok_or_else(|| {
                    RtiError::InvalidFederateHandle(format!(
                        "federation {fed}: no joined federate {federate}"
                    ))
                })
        })?;
        Ok(lrc.clock_offset(hlamesh_transport::NodeId(node)))
    }

    /// 8.19 modifyLookahead.
    pub fn modify_lookahead(&self, lookahead: Interval) -> RtiResult<()> {
        self.time_service_by("modifyLookahead", lookahead, |t, l| t.modify_lookahead(l))
    }

    /// 8.20.
    pub fn query_lookahead(&self) -> RtiResult<Interval> {
        let (lrc, fed, h) = self.member()?;
        lrc.with_core(fed, |c| {
            let args = c.mom_supplied(h, Vec::new);
            c.mom_reported(h, "queryLookahead", args, |c| {
                let l = self.federate_time_service(c, h, None, |m| m.query_lookahead())?;
                Ok(c.interval_out(l))
            })
        })
    }

    /// 10.41: delivers at most one callback, waiting up to `approx_min_wait`. Returns whether
    /// more callbacks are pending.
    pub fn evoke_callback(&self, approx_min_wait: Duration) -> RtiResult<bool> {
        no_callback("evoke_callback")?;
        let c = self
            .conn
            .as_ref()
            .ok_or_else(|| RtiError::NotConnected("call connect first".into()))?;
        if c.model == CallbackModel::Evoked
            && c.enabled.load(Ordering::Acquire)
            && let Some(d) = self.next_delivery(c, approx_min_wait)
        {
            c.evoke(d);
        }
        Ok(!c.queue.receiver().is_empty())
    }

    /// Evoked model: the next callback, waiting up to `wait` for it. Meanwhile this thread
    /// receives the LRC's datagrams itself when it can (`Transport::receive_here`): the datagram
    /// that produces the callback then wakes this thread directly instead of the LRC's data
    /// thread, which would hand the callback over (one thread wake-up less per callback; it is
    /// most of a lockstep step's cost on a small machine, see `benches/README.md`).
    fn next_delivery(&self, c: &Connection, wait: Duration) -> Option<Delivery> {
        let rx = c.queue.receiver();
        if let Ok(d) = rx.try_recv() {
            return Some(d);
        }
        if wait.is_zero() {
            return None;
        }
        let deadline = Instant::now() + wait;
        let Some(lrc) = self.lrc.as_ref() else {
            return rx.recv_deadline(deadline).ok();
        };
        loop {
            match lrc.receive_here(deadline, &mut || !rx.is_empty()) {
                ReceiveHere::Ready | ReceiveHere::TimedOut => return rx.try_recv().ok(),
                ReceiveHere::Unavailable => return rx.recv_deadline(deadline).ok(),
                // Another thread reads the socket: it queues our callbacks and wakes us, or
                // says when it stops reading.
                ReceiveHere::Busy(claim) => crossbeam_channel::select! {
                    recv(rx) -> d => return d.ok(),
                    recv(claim.ready()) -> _ => {}
                    default(deadline.saturating_duration_since(Instant::now())) => return None,
                },
            }
        }
    }

    /// 10.42: delivers callbacks for at least `min` (if any arrive) and at most `max`. Any
    /// `min <= max` is allowed (both may be zero); `min > max` is refused with
    /// `RTIinternalError`, the one exception the standard gives this service besides
    /// `CallNotAllowedFromWithinCallback`.
    pub fn evoke_multiple_callbacks(&self, min: Duration, max: Duration) -> RtiResult<bool> {
        no_callback("evoke_multiple_callbacks")?;
        let c = self
            .conn
            .as_ref()
            .ok_or_else(|| RtiError::NotConnected("call connect first".into()))?;
        if min > max {
            return Err(RtiError::RtiInternalError(format!(
                "evoke_multiple_callbacks: minimum {min:?} exceeds maximum {max:?}"
            )));
        }
        let start = Instant::now();
        if c.model == CallbackModel::Evoked {
            while c.enabled.load(Ordering::Acquire) {
                // One clock read per round: the clock moves between two reads, so a second
                // read may already be past `min` (a subtraction of it would underflow).
                let elapsed = start.elapsed();
                if elapsed >= max {
                    break;
                }
                let left = min.saturating_sub(elapsed);
                match self.next_delivery(c, left) {
                    Some(d) => c.evoke(d),
                    None => break,
                }
            }
        }
        Ok(!c.queue.receiver().is_empty())
    }

    /// How many callbacks wait in this federate's queue (in the evoked model: for
    /// `evoke_callback`). Not an HLA service; for diagnostics and tests.
    pub fn queued_callbacks(&self) -> RtiResult<usize> {
        let c = self
            .conn
            .as_ref()
            .ok_or_else(|| RtiError::NotConnected("call connect first".into()))?;
        Ok(c.queue.len())
    }

    /// 10.43.
    pub fn enable_callbacks(&self) -> RtiResult<()> {
        let c = self
            .conn
            .as_ref()
            .ok_or_else(|| RtiError::NotConnected("call connect first".into()))?;
        c.enabled.store(true, Ordering::Release);
        c.queue.wake();
        Ok(())
    }

    /// 10.44.
    pub fn disable_callbacks(&self) -> RtiResult<()> {
        let c = self
            .conn
            .as_ref()
            .ok_or_else(|| RtiError::NotConnected("call connect first".into()))?;
        c.enabled.store(false, Ordering::Release);
        Ok(())
    }

    /// The joined federation and this federate's handle.
    pub fn federate(&self) -> Option<(&str, FederateHandle)> {
        self.joined
            .as_ref()
            .map(|(f, h)| (f.as_str(), FederateHandle(h.load(Ordering::SeqCst))))
    }
}

impl Drop for RtiAmbassador {
    fn drop(&mut self) {
        if let Some(c) = &self.conn {
            c.stop.store(true, Ordering::Release);
        }
    }
}
