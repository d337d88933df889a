//! [`RtiError`]: the exceptions of the IEEE 1516-2010 `RTIambassador` services, one variant per
//! standard exception name. Each carries a message naming the federation, federate and handle
//! involved, because a lab engineer reads these in a log, not in a debugger.

use serde::{Deserialize, Serialize};

/// An RTI service failed. The variant is the standard's exception; the string says what exactly.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[allow(missing_docs)]
pub enum RtiError {
    #[error("NotConnected: {0}")]
    NotConnected(String),
    #[error("AlreadyConnected: {0}")]
    AlreadyConnected(String),
    #[error("ConnectionFailed: {0}")]
    ConnectionFailed(String),
    #[error("FederateIsExecutionMember: {0}")]
    FederateIsExecutionMember(String),
    #[error("FederateNotExecutionMember: {0}")]
    FederateNotExecutionMember(String),
    #[error("FederateAlreadyExecutionMember: {0}")]
    FederateAlreadyExecutionMember(String),
    #[error("FederationExecutionAlreadyExists: {0}")]
    FederationExecutionAlreadyExists(String),
    #[error("FederationExecutionDoesNotExist: {0}")]
    FederationExecutionDoesNotExist(String),
    #[error("FederatesCurrentlyJoined: {0}")]
    FederatesCurrentlyJoined(String),
    #[error("FederateNameAlreadyInUse: {0}")]
    FederateNameAlreadyInUse(String),
    #[error("ObjectClassNotDefined: {0}")]
    ObjectClassNotDefined(String),
    #[error("AttributeNotDefined: {0}")]
    AttributeNotDefined(String),
    #[error("ObjectClassNotPublished: {0}")]
    ObjectClassNotPublished(String),
    #[error("AttributeNotPublished: {0}")]
    AttributeNotPublished(String),
    #[error("AttributeNotOwned: {0}")]
    AttributeNotOwned(String),
    #[error("ObjectInstanceNotKnown: {0}")]
    ObjectInstanceNotKnown(String),
    #[error("ObjectInstanceNameNotReserved: {0}")]
    ObjectInstanceNameNotReserved(String),
    #[error("ObjectInstanceNameInUse: {0}")]
    ObjectInstanceNameInUse(String),
    #[error("IllegalName: {0}")]
    IllegalName(String),
    #[error("NameSetWasEmpty: {0}")]
    NameSetWasEmpty(String),
    #[error("NameNotFound: {0}")]
    NameNotFound(String),
    #[error("InteractionClassNotDefined: {0}")]
    InteractionClassNotDefined(String),
    #[error("InteractionClassNotPublished: {0}")]
    InteractionClassNotPublished(String),
    #[error("InteractionParameterNotDefined: {0}")]
    InteractionParameterNotDefined(String),
    #[error("DeletePrivilegeNotHeld: {0}")]
    DeletePrivilegeNotHeld(String),
    #[error("FederateOwnsAttributes: {0}")]
    FederateOwnsAttributes(String),
    #[error("OwnershipAcquisitionPending: {0}")]
    OwnershipAcquisitionPending(String),
    #[error("AttributeAlreadyOwned: {0}")]
    AttributeAlreadyOwned(String),
    #[error("AttributeAlreadyBeingDivested: {0}")]
    AttributeAlreadyBeingDivested(String),
    #[error("AttributeAlreadyBeingAcquired: {0}")]
    AttributeAlreadyBeingAcquired(String),
    #[error("AttributeAcquisitionWasNotRequested: {0}")]
    AttributeAcquisitionWasNotRequested(String),
    #[error("AttributeAcquisitionWasNotCanceled: {0}")]
    AttributeAcquisitionWasNotCanceled(String),
    #[error("AttributeDivestitureWasNotRequested: {0}")]
    AttributeDivestitureWasNotRequested(String),
    #[error("NoAcquisitionPending: {0}")]
    NoAcquisitionPending(String),
    #[error("InvalidResignAction: {0}")]
    InvalidResignAction(String),
    #[error("InvalidFederateHandle: {0}")]
    InvalidFederateHandle(String),
    #[error("InvalidObjectClassHandle: {0}")]
    InvalidObjectClassHandle(String),
    #[error("InvalidAttributeHandle: {0}")]
    InvalidAttributeHandle(String),
    #[error("InvalidInteractionClassHandle: {0}")]
    InvalidInteractionClassHandle(String),
    #[error("InvalidParameterHandle: {0}")]
    InvalidParameterHandle(String),
    #[error("CouldNotOpenFdd: {0}")]
    CouldNotOpenFdd(String),
    #[error("CouldNotCreateLogicalTimeFactory: {0}")]
    CouldNotCreateLogicalTimeFactory(String),
    #[error("ErrorReadingFdd: {0}")]
    ErrorReadingFdd(String),
    #[error("InconsistentFdd: {0}")]
    InconsistentFdd(String),
    #[error("CallNotAllowedFromWithinCallback: {0}")]
    CallNotAllowedFromWithinCallback(String),
    #[error("InTimeAdvancingState: {0}")]
    InTimeAdvancingState(String),
    #[error("RequestForTimeRegulationPending: {0}")]
    RequestForTimeRegulationPending(String),
    #[error("RequestForTimeConstrainedPending: {0}")]
    RequestForTimeConstrainedPending(String),
    #[error("TimeRegulationAlreadyEnabled: {0}")]
    TimeRegulationAlreadyEnabled(String),
    #[error("TimeConstrainedAlreadyEnabled: {0}")]
    TimeConstrainedAlreadyEnabled(String),
    #[error("TimeRegulationIsNotEnabled: {0}")]
    TimeRegulationIsNotEnabled(String),
    #[error("TimeConstrainedIsNotEnabled: {0}")]
    TimeConstrainedIsNotEnabled(String),
    #[error("LogicalTimeAlreadyPassed: {0}")]
    LogicalTimeAlreadyPassed(String),
    #[error("InvalidUpdateRateDesignator: {0}")]
    InvalidUpdateRateDesignator(String),
    #[error("InvalidLookahead: {0}")]
    InvalidLookahead(String),
    #[error("InvalidLogicalTime: {0}")]
    InvalidLogicalTime(String),
    #[error("AsynchronousDeliveryAlreadyEnabled: {0}")]
    AsynchronousDeliveryAlreadyEnabled(String),
    #[error("AsynchronousDeliveryAlreadyDisabled: {0}")]
    AsynchronousDeliveryAlreadyDisabled(String),
    #[error("SynchronizationPointLabelNotAnnounced: {0}")]
    SynchronizationPointLabelNotAnnounced(String),
    #[error("SaveInProgress: {0}")]
    SaveInProgress(String),
    #[error("RestoreInProgress: {0}")]
    RestoreInProgress(String),
    #[error("SaveNotInitiated: {0}")]
    SaveNotInitiated(String),
    #[error("FederateHasNotBegunSave: {0}")]
    FederateHasNotBegunSave(String),
    #[error("SaveNotInProgress: {0}")]
    SaveNotInProgress(String),
    #[error("RestoreNotRequested: {0}")]
    RestoreNotRequested(String),
    #[error("RestoreNotInProgress: {0}")]
    RestoreNotInProgress(String),
    #[error("FederateUnableToUseTime: {0}")]
    FederateUnableToUseTime(String),
    #[error("ObjectClassRelevanceAdvisorySwitchIsOn: {0}")]
    ObjectClassRelevanceAdvisorySwitchIsOn(String),
    #[error("ObjectClassRelevanceAdvisorySwitchIsOff: {0}")]
    ObjectClassRelevanceAdvisorySwitchIsOff(String),
    #[error("AttributeRelevanceAdvisorySwitchIsOn: {0}")]
    AttributeRelevanceAdvisorySwitchIsOn(String),
    #[error("AttributeRelevanceAdvisorySwitchIsOff: {0}")]
    AttributeRelevanceAdvisorySwitchIsOff(String),
    #[error("AttributeScopeAdvisorySwitchIsOn: {0}")]
    AttributeScopeAdvisorySwitchIsOn(String),
    #[error("AttributeScopeAdvisorySwitchIsOff: {0}")]
    AttributeScopeAdvisorySwitchIsOff(String),
    #[error("InteractionRelevanceAdvisorySwitchIsOn: {0}")]
    InteractionRelevanceAdvisorySwitchIsOn(String),
    #[error("InteractionRelevanceAdvisorySwitchIsOff: {0}")]
    InteractionRelevanceAdvisorySwitchIsOff(String),
    #[error("RTIinternalError: {0}")]
    RtiInternalError(String),
    /// 8.21: the handle names no message this federate sent (or one already retracted).
    #[error("InvalidMessageRetractionHandle: {0}")]
    InvalidMessageRetractionHandle(String),
    /// 8.21: the message was sent in receive order, or its time is no longer ahead of the
    /// sender's logical time.
    #[error("MessageCanNoLongerBeRetracted: {0}")]
    MessageCanNoLongerBeRetracted(String),
    // New variants go last: `RtiError` travels in core messages (`wire::Reply::Failed`) and
    // postcard encodes a variant by its position, so appending keeps every existing encoding.
    /// 10.26–10.30: the handle names no dimension of the FDD.
    #[error("InvalidDimensionHandle: {0}")]
    InvalidDimensionHandle(String),
    /// 10.32: the value is not one of the standard's seven service groups.
    #[error("InvalidServiceGroup: {0}")]
    InvalidServiceGroup(String),
    /// 9.3–9.13, 10.28–10.30: the handle names no region that exists (never created, or
    /// deleted).
    #[error("InvalidRegion: {0}")]
    InvalidRegion(String),
    /// 9.3–9.13, 10.30: the region exists but another federate created it.
    #[error("RegionNotCreatedByThisFederate: {0}")]
    RegionNotCreatedByThisFederate(String),
    /// 10.29, 10.30: the region does not specify that dimension.
    #[error("RegionDoesNotContainSpecifiedDimension: {0}")]
    RegionDoesNotContainSpecifiedDimension(String),
    /// 10.30: lower bound not below the upper bound, or an upper bound above the dimension's.
    #[error("InvalidRangeBound: {0}")]
    InvalidRangeBound(String),
    /// 9.5–9.13: a region specifies a dimension the attribute or interaction class cannot use.
    #[error("InvalidRegionContext: {0}")]
    InvalidRegionContext(String),
    /// 9.4: the region is associated for updates or used in a subscription.
    #[error("RegionInUseForUpdateOrSubscription: {0}")]
    RegionInUseForUpdateOrSubscription(String),
}

impl RtiError {
    /// Maps a FOM loading error to CouldNotOpenFdd / ErrorReadingFdd / InconsistentFdd.
    pub fn from_fom(e: &crate::fom::FomError) -> RtiError {
        use crate::fom::FomError;
        match e {
            FomError::CouldNotOpenFdd { .. } => RtiError::CouldNotOpenFdd(e.to_string()),
            FomError::InconsistentFdd { .. } => RtiError::InconsistentFdd(e.to_string()),
            _ => RtiError::ErrorReadingFdd(e.to_string()),
        }
    }
}

impl RtiError {
    /// Maps a time-management error to the exception of the same name; `context` names the
    /// federation and federate.
    pub fn from_time(e: hlamesh_timesync::TimeError, context: &str) -> RtiError {
        use hlamesh_timesync::TimeError;
        let msg = format!("{context}: {e}");
        match e {
            TimeError::InTimeAdvancingState => RtiError::InTimeAdvancingState(msg),
            TimeError::RequestForTimeRegulationPending => {
                RtiError::RequestForTimeRegulationPending(msg)
            }
            TimeError::RequestForTimeConstrainedPending => {
                RtiError::RequestForTimeConstrainedPending(msg)
            }
            TimeError::TimeRegulationAlreadyEnabled => RtiError::TimeRegulationAlreadyEnabled(msg),
            TimeError::TimeConstrainedAlreadyEnabled => {
                RtiError::TimeConstrainedAlreadyEnabled(msg)
            }
            TimeError::TimeRegulationIsNotEnabled => RtiError::TimeRegulationIsNotEnabled(msg),
            TimeError::TimeConstrainedIsNotEnabled => RtiError::TimeConstrainedIsNotEnabled(msg),
            TimeError::LogicalTimeAlreadyPassed => RtiError::LogicalTimeAlreadyPassed(msg),
            TimeError::InvalidLookahead => RtiError::InvalidLookahead(msg),
            TimeError::InvalidLogicalTime => RtiError::InvalidLogicalTime(msg),
            TimeError::AsynchronousDeliveryAlreadyEnabled => {
                RtiError::AsynchronousDeliveryAlreadyEnabled(msg)
            }
            TimeError::AsynchronousDeliveryAlreadyDisabled => {
                RtiError::AsynchronousDeliveryAlreadyDisabled(msg)
            }
        }
    }
}

/// Result of an RTI service.
pub type RtiResult<T> = Result<T, RtiError>;
