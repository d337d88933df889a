//! The standard exception classes as codes: one table, in the order of `RTI/Exception.h`,
//! shared with C and C++ (`HLM_EXCEPTIONS` in `hlm.h`). A code is 1 + the class's position;
//! 0 is success. `tests/abi.rs` checks that this table, the header's and `Exception.h` agree
//! and that every [`RtiError`] variant maps to the class of its name.

use hlamesh_lrc::error::RtiError;

/// The 121 exception classes of IEEE 1516.1-2010 (C++ API), in `RTI/Exception.h`'s order.
pub const EXCEPTION_CLASSES: [&str; 121] = [
    "AlreadyConnected",
    "AsynchronousDeliveryAlreadyDisabled",
    "AsynchronousDeliveryAlreadyEnabled",
    "AttributeAcquisitionWasNotCanceled",
    "AttributeAcquisitionWasNotRequested",
    "AttributeAlreadyBeingAcquired",
    "AttributeAlreadyBeingChanged",
    "AttributeAlreadyBeingDivested",
    "AttributeAlreadyOwned",
    "AttributeDivestitureWasNotRequested",
    "AttributeNotDefined",
    "AttributeNotOwned",
    "AttributeNotPublished",
    "AttributeNotRecognized",
    "AttributeNotSubscribed",
    "AttributeRelevanceAdvisorySwitchIsOff",
    "AttributeRelevanceAdvisorySwitchIsOn",
    "AttributeScopeAdvisorySwitchIsOff",
    "AttributeScopeAdvisorySwitchIsOn",
    "BadInitializationParameter",
    "CallNotAllowedFromWithinCallback",
    "ConnectionFailed",
    "CouldNotCreateLogicalTimeFactory",
    "CouldNotDecode",
    "CouldNotDiscover",
    "CouldNotEncode",
    "CouldNotOpenFDD",
    "CouldNotOpenMIM",
    "CouldNotInitiateRestore",
    "DeletePrivilegeNotHeld",
    "DesignatorIsHLAstandardMIM",
    "RequestForTimeConstrainedPending",
    "NoRequestToEnableTimeConstrainedWasPending",
    "RequestForTimeRegulationPending",
    "NoRequestToEnableTimeRegulationWasPending",
    "NoFederateWillingToAcquireAttribute",
    "ErrorReadingFDD",
    "ErrorReadingMIM",
    "FederateAlreadyExecutionMember",
    "FederateHandleNotKnown",
    "FederateHasNotBegunSave",
    "FederateInternalError",
    "FederateIsExecutionMember",
    "FederateNameAlreadyInUse",
    "FederateNotExecutionMember",
    "FederateOwnsAttributes",
    "FederateServiceInvocationsAreBeingReportedViaMOM",
    "FederateUnableToUseTime",
    "FederatesCurrentlyJoined",
    "FederationExecutionAlreadyExists",
    "FederationExecutionDoesNotExist",
    "IllegalName",
    "IllegalTimeArithmetic",
    "InconsistentFDD",
    "InteractionClassAlreadyBeingChanged",
    "InteractionClassNotDefined",
    "InteractionClassNotPublished",
    "InteractionClassNotRecognized",
    "InteractionClassNotSubscribed",
    "InteractionParameterNotDefined",
    "InteractionParameterNotRecognized",
    "InteractionRelevanceAdvisorySwitchIsOff",
    "InteractionRelevanceAdvisorySwitchIsOn",
    "InTimeAdvancingState",
    "InvalidAttributeHandle",
    "InvalidDimensionHandle",
    "InvalidFederateHandle",
    "InvalidInteractionClassHandle",
    "InvalidLocalSettingsDesignator",
    "InvalidLogicalTime",
    "InvalidLogicalTimeInterval",
    "InvalidLookahead",
    "InvalidObjectClassHandle",
    "InvalidOrderName",
    "InvalidOrderType",
    "InvalidParameterHandle",
    "InvalidRangeBound",
    "InvalidRegion",
    "InvalidResignAction",
    "InvalidRegionContext",
    "InvalidMessageRetractionHandle",
    "InvalidServiceGroup",
    "InvalidTransportationName",
    "InvalidTransportationType",
    "InvalidUpdateRateDesignator",
    "JoinedFederateIsNotInTimeAdvancingState",
    "LogicalTimeAlreadyPassed",
    "MessageCanNoLongerBeRetracted",
    "NameNotFound",
    "NameSetWasEmpty",
    "NoAcquisitionPending",
    "NotConnected",
    "ObjectClassNotDefined",
    "ObjectClassNotKnown",
    "ObjectClassNotPublished",
    "ObjectClassRelevanceAdvisorySwitchIsOff",
    "ObjectClassRelevanceAdvisorySwitchIsOn",
    "ObjectInstanceNameInUse",
    "ObjectInstanceNameNotReserved",
    "ObjectInstanceNotKnown",
    "OwnershipAcquisitionPending",
    "RTIinternalError",
    "RegionDoesNotContainSpecifiedDimension",
    "RegionInUseForUpdateOrSubscription",
    "RegionNotCreatedByThisFederate",
    "RestoreInProgress",
    "RestoreNotInProgress",
    "RestoreNotRequested",
    "SaveInProgress",
    "SaveNotInProgress",
    "SaveNotInitiated",
    "SpecifiedSaveLabelDoesNotExist",
    "SynchronizationPointLabelNotAnnounced",
    "TimeConstrainedAlreadyEnabled",
    "TimeConstrainedIsNotEnabled",
    "TimeRegulationAlreadyEnabled",
    "TimeRegulationIsNotEnabled",
    "UnableToPerformSave",
    "UnknownName",
    "UnsupportedCallbackModel",
    "InternalError",
];

/// The code of an exception class (`None` for a name that is no class).
pub fn code_of_class(name: &str) -> Option<i32> {
    EXCEPTION_CLASSES
        .iter()
        .position(|c| *c == name)
        .and_then(|i| i32::try_from(i + 1).ok())
}

/// The code of `RTIinternalError`.
pub fn internal_error_code() -> i32 {
    code_of_class("RTIinternalError").unwrap_or(1)
}

/// The class an error is thrown as, and its message. Exhaustive: a new `RtiError` variant does
/// not compile until it is given its class here.
pub fn class_of(e: &RtiError) -> (&'static str, &str) {
    match e {
        RtiError::NotConnected(m) => ("NotConnected", m),
        RtiError::AlreadyConnected(m) => ("AlreadyConnected", m),
        RtiError::ConnectionFailed(m) => ("ConnectionFailed", m),
        RtiError::FederateIsExecutionMember(m) => ("FederateIsExecutionMember", m),
        RtiError::FederateNotExecutionMember(m) => ("FederateNotExecutionMember", m),
        RtiError::FederateAlreadyExecutionMember(m) => ("FederateAlreadyExecutionMember", m),
        RtiError::FederationExecutionAlreadyExists(m) => ("FederationExecutionAlreadyExists", m),
        RtiError::FederationExecutionDoesNotExist(m) => ("FederationExecutionDoesNotExist", m),
        RtiError::FederatesCurrentlyJoined(m) => ("FederatesCurrentlyJoined", m),
        RtiError::FederateNameAlreadyInUse(m) => ("FederateNameAlreadyInUse", m),
        RtiError::ObjectClassNotDefined(m) => ("ObjectClassNotDefined", m),
        RtiError::AttributeNotDefined(m) => ("AttributeNotDefined", m),
        RtiError::ObjectClassNotPublished(m) => ("ObjectClassNotPublished", m),
        RtiError::AttributeNotPublished(m) => ("AttributeNotPublished", m),
        RtiError::AttributeNotOwned(m) => ("AttributeNotOwned", m),
        RtiError::ObjectInstanceNotKnown(m) => ("ObjectInstanceNotKnown", m),
        RtiError::ObjectInstanceNameNotReserved(m) => ("ObjectInstanceNameNotReserved", m),
        RtiError::ObjectInstanceNameInUse(m) => ("ObjectInstanceNameInUse", m),
        RtiError::IllegalName(m) => ("IllegalName", m),
        RtiError::NameSetWasEmpty(m) => ("NameSetWasEmpty", m),
        RtiError::NameNotFound(m) => ("NameNotFound", m),
        RtiError::InteractionClassNotDefined(m) => ("InteractionClassNotDefined", m),
        RtiError::InteractionClassNotPublished(m) => ("InteractionClassNotPublished", m),
        RtiError::InteractionParameterNotDefined(m) => ("InteractionParameterNotDefined", m),
        RtiError::DeletePrivilegeNotHeld(m) => ("DeletePrivilegeNotHeld", m),
        RtiError::FederateOwnsAttributes(m) => ("FederateOwnsAttributes", m),
        RtiError::OwnershipAcquisitionPending(m) => ("OwnershipAcquisitionPending", m),
        RtiError::AttributeAlreadyOwned(m) => ("AttributeAlreadyOwned", m),
        RtiError::AttributeAlreadyBeingDivested(m) => ("AttributeAlreadyBeingDivested", m),
        RtiError::AttributeAlreadyBeingAcquired(m) => ("AttributeAlreadyBeingAcquired", m),
        RtiError::AttributeAcquisitionWasNotRequested(m) => {
            ("AttributeAcquisitionWasNotRequested", m)
        }
        RtiError::AttributeAcquisitionWasNotCanceled(m) => {
            ("AttributeAcquisitionWasNotCanceled", m)
        }
        RtiError::AttributeDivestitureWasNotRequested(m) => {
            ("AttributeDivestitureWasNotRequested", m)
        }
        RtiError::NoAcquisitionPending(m) => ("NoAcquisitionPending", m),
        RtiError::InvalidResignAction(m) => ("InvalidResignAction", m),
        RtiError::InvalidFederateHandle(m) => ("InvalidFederateHandle", m),
        RtiError::InvalidObjectClassHandle(m) => ("InvalidObjectClassHandle", m),
        RtiError::InvalidAttributeHandle(m) => ("InvalidAttributeHandle", m),
        RtiError::InvalidInteractionClassHandle(m) => ("InvalidInteractionClassHandle", m),
        RtiError::InvalidParameterHandle(m) => ("InvalidParameterHandle", m),
        RtiError::InvalidDimensionHandle(m) => ("InvalidDimensionHandle", m),
        RtiError::InvalidServiceGroup(m) => ("InvalidServiceGroup", m),
        RtiError::InvalidRegion(m) => ("InvalidRegion", m),
        RtiError::RegionNotCreatedByThisFederate(m) => ("RegionNotCreatedByThisFederate", m),
        RtiError::RegionDoesNotContainSpecifiedDimension(m) => {
            ("RegionDoesNotContainSpecifiedDimension", m)
        }
        RtiError::InvalidRangeBound(m) => ("InvalidRangeBound", m),
        RtiError::InvalidRegionContext(m) => ("InvalidRegionContext", m),
        RtiError::RegionInUseForUpdateOrSubscription(m) => {
            ("RegionInUseForUpdateOrSubscription", m)
        }
        RtiError::CouldNotOpenFdd(m) => ("CouldNotOpenFDD", m),
        RtiError::CouldNotCreateLogicalTimeFactory(m) => ("CouldNotCreateLogicalTimeFactory", m),
        RtiError::ErrorReadingFdd(m) => ("ErrorReadingFDD", m),
        RtiError::InconsistentFdd(m) => ("InconsistentFDD", m),
        RtiError::CallNotAllowedFromWithinCallback(m) => ("CallNotAllowedFromWithinCallback", m),
        RtiError::InTimeAdvancingState(m) => ("InTimeAdvancingState", m),
        RtiError::RequestForTimeRegulationPending(m) => ("RequestForTimeRegulationPending", m),
        RtiError::RequestForTimeConstrainedPending(m) => ("RequestForTimeConstrainedPending", m),
        RtiError::TimeRegulationAlreadyEnabled(m) => ("TimeRegulationAlreadyEnabled", m),
        RtiError::TimeConstrainedAlreadyEnabled(m) => ("TimeConstrainedAlreadyEnabled", m),
        RtiError::TimeRegulationIsNotEnabled(m) => ("TimeRegulationIsNotEnabled", m),
        RtiError::TimeConstrainedIsNotEnabled(m) => ("TimeConstrainedIsNotEnabled", m),
        RtiError::LogicalTimeAlreadyPassed(m) => ("LogicalTimeAlreadyPassed", m),
        RtiError::InvalidUpdateRateDesignator(m) => ("InvalidUpdateRateDesignator", m),
        RtiError::InvalidLookahead(m) => ("InvalidLookahead", m),
        RtiError::InvalidLogicalTime(m) => ("InvalidLogicalTime", m),
        RtiError::AsynchronousDeliveryAlreadyEnabled(m) => {
            ("AsynchronousDeliveryAlreadyEnabled", m)
        }
        RtiError::AsynchronousDeliveryAlreadyDisabled(m) => {
            ("AsynchronousDeliveryAlreadyDisabled", m)
        }
        RtiError::SynchronizationPointLabelNotAnnounced(m) => {
            ("SynchronizationPointLabelNotAnnounced", m)
        }
        RtiError::SaveInProgress(m) => ("SaveInProgress", m),
        RtiError::RestoreInProgress(m) => ("RestoreInProgress", m),
        RtiError::SaveNotInitiated(m) => ("SaveNotInitiated", m),
        RtiError::FederateHasNotBegunSave(m) => ("FederateHasNotBegunSave", m),
        RtiError::SaveNotInProgress(m) => ("SaveNotInProgress", m),
        RtiError::RestoreNotRequested(m) => ("RestoreNotRequested", m),
        RtiError::RestoreNotInProgress(m) => ("RestoreNotInProgress", m),
        RtiError::FederateUnableToUseTime(m) => ("FederateUnableToUseTime", m),
        RtiError::ObjectClassRelevanceAdvisorySwitchIsOn(m) => {
            ("ObjectClassRelevanceAdvisorySwitchIsOn", m)
        }
        RtiError::ObjectClassRelevanceAdvisorySwitchIsOff(m) => {
            ("ObjectClassRelevanceAdvisorySwitchIsOff", m)
        }
        RtiError::AttributeRelevanceAdvisorySwitchIsOn(m) => {
            ("AttributeRelevanceAdvisorySwitchIsOn", m)
        }
        RtiError::AttributeRelevanceAdvisorySwitchIsOff(m) => {
            ("AttributeRelevanceAdvisorySwitchIsOff", m)
        }
        RtiError::AttributeScopeAdvisorySwitchIsOn(m) => ("AttributeScopeAdvisorySwitchIsOn", m),
        RtiError::AttributeScopeAdvisorySwitchIsOff(m) => ("AttributeScopeAdvisorySwitchIsOff", m),
        RtiError::InteractionRelevanceAdvisorySwitchIsOn(m) => {
            ("InteractionRelevanceAdvisorySwitchIsOn", m)
        }
        RtiError::InteractionRelevanceAdvisorySwitchIsOff(m) => {
            ("InteractionRelevanceAdvisorySwitchIsOff", m)
        }
        RtiError::RtiInternalError(m) => ("RTIinternalError", m),
        RtiError::InvalidMessageRetractionHandle(m) => ("InvalidMessageRetractionHandle", m),
        RtiError::MessageCanNoLongerBeRetracted(m) => ("MessageCanNoLongerBeRetracted", m),
    }
}

/// The code and message an error crosses the C ABI as.
pub fn code_and_message(e: &RtiError) -> (i32, &str) {
    let (class, message) = class_of(e);
    (
        code_of_class(class).unwrap_or_else(internal_error_code),
        message,
    )
}
