//! MOM services (`HLAmanager.HLAfederate.HLAservice`): actions performed on behalf of a local
//! federate through the same core entry points its own calls use (the ambassador's methods
//! call exactly these), so its LRC state and callbacks are as if it had called the service.
//! A refusal is the service's own exception, sent back as `HLAreportMOMexception`.

use crate::encoding::typed::OpaqueData;
use crate::error::RtiError;
use crate::handles::{
    AttributeHandle, FederateHandle, InteractionClassHandle, ObjectClassHandle,
    ObjectInstanceHandle,
};
use hlamesh_timesync::{
    DynInterval, DynTime, HLAfloat64Interval, HLAinteger64Interval, LogicalTime as _,
    LogicalTimeInterval as _, TimeKind,
};

use super::super::FederationCore;
use super::super::save::SaveReport;
use super::super::time::Manager;
use super::super::wire::ResignAction;
use super::dispatch::{MomArgs, MomFailure};
use crate::fom::OrderType;

impl FederationCore {
    /// `HLAmanager.HLAfederate.HLAservice.<name>` on behalf of local federate `f`.
    pub(super) fn mom_service(
        &mut self,
        f: FederateHandle,
        name: &str,
        args: &MomArgs,
    ) -> Result<(), MomFailure> {
        let class = |args: &MomArgs| args.handle("HLAobjectClass", ObjectClassHandle::decode);
        let attrs = |args: &MomArgs| -> Result<Vec<AttributeHandle>, MomFailure> {
            args.handles("HLAattributeList", AttributeHandle::decode)
        };
        let interaction =
            |args: &MomArgs| args.handle("HLAinteractionClass", InteractionClassHandle::decode);
        let object =
            |args: &MomArgs| args.handle("HLAobjectInstance", ObjectInstanceHandle::decode);
        let service = hla_service_name(name);
        let supplied = self.mom_supplied(f, || args.described());
        let r: Result<(), MomFailure> = (|| {
            match name {
                "HLAresignFederationExecution" => {
                    let v: i32 = args.get("HLAresignAction")?;
                    let action = resign_action(v).ok_or_else(|| {
                        MomFailure::Parameter(format!(
                            "parameter HLAresignAction: {v} is not an HLAresignAction (1-6)"
                        ))
                    })?;
                    self.resign(f, action)?;
                }
                "HLAsynchronizationPointAchieved" => {
                    let label: String = args.get("HLAlabel")?;
                    self.synchronization_point_achieved(f, &label, true)?;
                }
                "HLAfederateSaveBegun" => self.report_federate_save(f, SaveReport::Begun)?,
                "HLAfederateSaveComplete" => {
                    let report = if args.flag("HLAsuccessIndicator")? {
                        SaveReport::Complete
                    } else {
                        SaveReport::NotComplete
                    };
                    self.report_federate_save(f, report)?;
                }
                "HLAfederateRestoreComplete" => {
                    let ok = args.flag("HLAsuccessIndicator")?;
                    self.report_federate_restore(f, ok)?;
                }
                "HLApublishObjectClassAttributes" => {
                    let (c, a) = (class(args)?, attrs(args)?);
                    self.publish_object_class_attributes(f, c, &a)?;
                }
                "HLAunpublishObjectClassAttributes" => {
                    let (c, a) = (class(args)?, attrs(args)?);
                    self.unpublish_object_class_attributes(f, c, Some(&a))?;
                }
                "HLApublishInteractionClass" => {
                    self.publish_interaction_class(f, interaction(args)?)?;
                }
                "HLAunpublishInteractionClass" => {
                    self.unpublish_interaction_class(f, interaction(args)?)?;
                }
                "HLAsubscribeObjectClassAttributes" => {
                    let (c, a) = (class(args)?, attrs(args)?);
                    let active = args.flag("HLAactive")?;
                    self.subscribe_object_class_attributes(f, c, &a, active)?;
                }
                "HLAunsubscribeObjectClassAttributes" => {
                    let (c, a) = (class(args)?, attrs(args)?);
                    self.unsubscribe_object_class_attributes(f, c, Some(&a))?;
                }
                "HLAsubscribeInteractionClass" => {
                    let ic = interaction(args)?;
                    let active = args.flag("HLAactive")?;
                    self.subscribe_interaction_class(f, ic, active)?;
                }
                "HLAunsubscribeInteractionClass" => {
                    self.unsubscribe_interaction_class(f, interaction(args)?)?;
                }
                "HLAdeleteObjectInstance" => {
                    let o = object(args)?;
                    // HLAtag and HLAtimeStamp may be left out: no tag, no time (an empty
                    // HLAlogicalTime is "not defined" too).
                    let tag = args.opt::<OpaqueData>("HLAtag")?.map(|t| t.0);
                    let time = self.mom_time_arg(args, "HLAtimeStamp", true)?;
                    let time = time.map(|t| t.encode().to_vec());
                    self.delete_object_instance(f, o, tag.unwrap_or_default(), time)?;
                }
                "HLAlocalDeleteObjectInstance" => {
                    self.local_delete_object_instance(f, object(args)?)?;
                }
                "HLAunconditionalAttributeOwnershipDivestiture" => {
                    let (o, a) = (object(args)?, attrs(args)?);
                    self.unconditional_attribute_ownership_divestiture(f, o, &a)?;
                }
                "HLAenableTimeRegulation" => {
                    let l = self.mom_interval_arg(args, "HLAlookahead")?;
                    self.mom_time_change(f, "enableTimeRegulation", |m| {
                        m.enable_time_regulation(l)
                    })?;
                }
                "HLAdisableTimeRegulation" => {
                    self.mom_time_change(f, "disableTimeRegulation", |m| {
                        m.disable_time_regulation()
                    })?;
                }
                "HLAenableTimeConstrained" => {
                    self.mom_time_change(f, "enableTimeConstrained", |m| {
                        m.enable_time_constrained()
                    })?;
                }
                "HLAdisableTimeConstrained" => {
                    self.mom_time_change(f, "disableTimeConstrained", |m| {
                        m.disable_time_constrained()
                    })?;
                }
                "HLAtimeAdvanceRequest" => {
                    let t = self.mom_time(args)?;
                    self.mom_time_change(f, "timeAdvanceRequest", |m| m.time_advance_request(t))?;
                }
                "HLAtimeAdvanceRequestAvailable" => {
                    let t = self.mom_time(args)?;
                    self.mom_time_change(f, "timeAdvanceRequestAvailable", |m| {
                        m.time_advance_request_available(t)
                    })?;
                }
                "HLAnextMessageRequest" => {
                    let t = self.mom_time(args)?;
                    self.mom_time_change(f, "nextMessageRequest", |m| m.next_message_request(t))?;
                }
                "HLAnextMessageRequestAvailable" => {
                    let t = self.mom_time(args)?;
                    self.mom_time_change(f, "nextMessageRequestAvailable", |m| {
                        m.next_message_request_available(t)
                    })?;
                }
                "HLAflushQueueRequest" => {
                    let t = self.mom_time(args)?;
                    self.mom_time_change(f, "flushQueueRequest", |m| m.flush_queue_request(t))?;
                }
                "HLAenableAsynchronousDelivery" => {
                    self.mom_time_service(f, |m| m.enable_asynchronous_delivery())?;
                }
                "HLAdisableAsynchronousDelivery" => {
                    self.mom_time_service(f, |m| m.disable_asynchronous_delivery())?;
                }
                "HLAmodifyLookahead" => {
                    let l = self.mom_interval_arg(args, "HLAlookahead")?;
                    self.mom_time_change(f, "modifyLookahead", |m| m.modify_lookahead(l))?;
                }
                "HLAchangeAttributeOrderType" => {
                    let (o, a) = (object(args)?, attrs(args)?);
                    let order = order_arg(args)?;
                    self.change_attribute_order_type(f, o, &a, order)?;
                }
                "HLAchangeInteractionOrderType" => {
                    let ic = interaction(args)?;
                    let order = order_arg(args)?;
                    self.change_interaction_order_type(f, ic, order)?;
                }
                _ => {
                    // HLArequestAttributeTransportationTypeChange and
                    // HLArequestInteractionTransportationTypeChange: hlamesh has no such service.
                    return Err(MomFailure::Service(RtiError::RtiInternalError(format!(
                        "{service} is not implemented by hlamesh"
                    ))));
                }
            }
            Ok(())
        })();
        // A manager's subscription change moves the cells this LRC joins, as the federate's own
        // call would (`cell_route`).
        if r.is_ok() && super::super::cell_route::changes_cells(&service) {
            self.refresh_cells();
        }
        // Service reporting: the MOM invoked the service at the federate.
        let outcome = match &r {
            Ok(()) => Ok(Vec::new()),
            Err(e) => Err(e.to_string()),
        };
        self.mom_invoked(f, &service, supplied, outcome);
        r
    }

    /// A time service that changes `f`'s time state, as the ambassador runs it (refused during
    /// a save or restore; a grant not received yet counts as undelivered).
    fn mom_time_change<R>(
        &mut self,
        f: FederateHandle,
        service: &str,
        op: impl FnOnce(&mut Manager) -> Result<R, hlamesh_timesync::TimeError>,
    ) -> Result<R, RtiError> {
        // As the ambassador does for the federate's own call: a grant still on its way to the
        // federate (in the shell's queue too) leaves it advancing (see `queues.rs`).
        let undelivered = self.grant_undelivered(f);
        self.time_change(f, service, |m| {
            m.set_grant_undelivered(undelivered);
            op(m)
        })
    }

    /// A time service that does not change the time state (asynchronous delivery).
    fn mom_time_service<R>(
        &mut self,
        f: FederateHandle,
        op: impl FnOnce(&mut Manager) -> Result<R, hlamesh_timesync::TimeError>,
    ) -> Result<R, RtiError> {
        let undelivered = self.grant_undelivered(f);
        self.time_service(f, |m| {
            m.set_grant_undelivered(undelivered);
            op(m)
        })
    }

    /// The `HLAtimeStamp` of a time service (required, of the federation's kind).
    fn mom_time(&self, args: &MomArgs) -> Result<DynTime, MomFailure> {
        self.mom_time_arg(args, "HLAtimeStamp", false)?
            .ok_or_else(|| MomFailure::Parameter("parameter HLAtimeStamp is empty".to_string()))
    }

    /// An HLAlogicalTime parameter: `None` when `optional` and absent or empty.
    fn mom_time_arg(
        &self,
        args: &MomArgs,
        n: &str,
        optional: bool,
    ) -> Result<Option<DynTime>, MomFailure> {
        let bytes = match args.opt::<OpaqueData>(n)? {
            Some(b) if !b.0.is_empty() => b.0,
            _ if optional => return Ok(None),
            Some(_) => return Err(MomFailure::Parameter(format!("parameter {n} is empty"))),
            None => return Err(MomFailure::Parameter(format!("parameter {n} is missing"))),
        };
        let t = self
            .time
            .kind
            .decode(&bytes)
            .map_err(|e| MomFailure::Parameter(format!("parameter {n}: {e}")))?;
        Ok(Some(self.check_time(t)?))
    }

    /// An HLAtimeInterval parameter of the federation's kind (required).
    fn mom_interval_arg(&self, args: &MomArgs, n: &str) -> Result<DynInterval, MomFailure> {
        let bytes: OpaqueData = args.get(n)?;
        let i = decode_interval(self.time.kind, &bytes.0).ok_or_else(|| {
            MomFailure::Parameter(format!(
                "parameter {n}: not an interval of {}",
                self.time.kind.name()
            ))
        })?;
        Ok(self.check_interval(i)?)
    }
}

/// An encoded interval of `kind` (the HLA 8-byte encoding).
fn decode_interval(kind: TimeKind, bytes: &[u8]) -> Option<DynInterval> {
    match kind {
        TimeKind::Float64 => HLAfloat64Interval::decode(bytes)
            .ok()
            .map(DynInterval::Float),
        TimeKind::Integer64 => HLAinteger64Interval::decode(bytes)
            .ok()
            .map(DynInterval::Integer),
    }
}

/// HLAorderType `HLAsendOrder` (Receive 0, TimeStamp 1).
fn order_arg(args: &MomArgs) -> Result<OrderType, MomFailure> {
    match args.get::<i32>("HLAsendOrder")? {
        0 => Ok(OrderType::Receive),
        1 => Ok(OrderType::TimeStamp),
        v => Err(MomFailure::Parameter(format!(
            "parameter HLAsendOrder: {v} is not an HLAorderType (0 or 1)"
        ))),
    }
}

/// The HLA service an `HLAservice` interaction imitates: `HLApublishInteractionClass` is
/// `publishInteractionClass`.
pub(super) fn hla_service_name(interaction: &str) -> String {
    let rest = interaction.strip_prefix("HLA").unwrap_or(interaction);
    let mut cs = rest.chars();
    match cs.next() {
        Some(c) => c.to_lowercase().chain(cs).collect(),
        None => String::new(),
    }
}

/// HLAresignAction's values (1–6).
pub(super) fn resign_action(v: i32) -> Option<ResignAction> {
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
