/* hlamesh's C ABI: the flat C functions librti1516e.so's C++ layer calls to reach the Rust LRC.
 *
 * Federates do not use this header: they use the standard's C++ API (<RTI/RTI1516.h>).  It is
 * the contract between the C++ shim (capi/cpp/) and the Rust functions (capi/src/), kept in
 * agreement with them by capi/tests/abi.rs.  It is also usable from C.
 *
 * Conventions
 *  - Every hlm_* service returns int32_t: 0 for success, else the code of the standard
 *    exception (HLM_EXCEPTIONS below: 1 + the class's position in RTI/Exception.h).  On failure
 *    the message is written to *message (when message is not NULL); free it with
 *    hlm_text_free.  Outputs (`out`) are written only on success.
 *  - Strings are UTF-8 (hlm_str: pointer and length, no terminator needed).  A hlm_str with a
 *    NULL pointer is "absent" where a parameter is optional (federate name).
 *  - Handles are numbers: uint32_t for federates, classes, attributes and parameters, uint64_t
 *    for object instances.
 *  - Times and intervals are hlm_time, of the federation's kind (hlm_time_kind).
 *  - Text and handle lists returned by Rust (hlm_text, hlm_handle_list) are owned by the
 *    caller and freed with hlm_text_free / hlm_handle_list_free.
 *  - No function unwinds: a Rust panic becomes RTIinternalError.  Callbacks must not unwind
 *    either: the C++ trampolines catch everything (see hlm_event_fn).
 */
#ifndef HLAMESH_HLM_H
#define HLAMESH_HLM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The standard exception classes, code and name, in RTI/Exception.h's order. */
#define HLM_EXCEPTIONS(X) \
   X(1, AlreadyConnected) \
   X(2, AsynchronousDeliveryAlreadyDisabled) \
   X(3, AsynchronousDeliveryAlreadyEnabled) \
   X(4, AttributeAcquisitionWasNotCanceled) \
   X(5, AttributeAcquisitionWasNotRequested) \
   X(6, AttributeAlreadyBeingAcquired) \
   X(7, AttributeAlreadyBeingChanged) \
   X(8, AttributeAlreadyBeingDivested) \
   X(9, AttributeAlreadyOwned) \
   X(10, AttributeDivestitureWasNotRequested) \
   X(11, AttributeNotDefined) \
   X(12, AttributeNotOwned) \
   X(13, AttributeNotPublished) \
   X(14, AttributeNotRecognized) \
   X(15, AttributeNotSubscribed) \
   X(16, AttributeRelevanceAdvisorySwitchIsOff) \
   X(17, AttributeRelevanceAdvisorySwitchIsOn) \
   X(18, AttributeScopeAdvisorySwitchIsOff) \
   X(19, AttributeScopeAdvisorySwitchIsOn) \
   X(20, BadInitializationParameter) \
   X(21, CallNotAllowedFromWithinCallback) \
   X(22, ConnectionFailed) \
   X(23, CouldNotCreateLogicalTimeFactory) \
   X(24, CouldNotDecode) \
   X(25, CouldNotDiscover) \
   X(26, CouldNotEncode) \
   X(27, CouldNotOpenFDD) \
   X(28, CouldNotOpenMIM) \
   X(29, CouldNotInitiateRestore) \
   X(30, DeletePrivilegeNotHeld) \
   X(31, DesignatorIsHLAstandardMIM) \
   X(32, RequestForTimeConstrainedPending) \
   X(33, NoRequestToEnableTimeConstrainedWasPending) \
   X(34, RequestForTimeRegulationPending) \
   X(35, NoRequestToEnableTimeRegulationWasPending) \
   X(36, NoFederateWillingToAcquireAttribute) \
   X(37, ErrorReadingFDD) \
   X(38, ErrorReadingMIM) \
   X(39, FederateAlreadyExecutionMember) \
   X(40, FederateHandleNotKnown) \
   X(41, FederateHasNotBegunSave) \
   X(42, FederateInternalError) \
   X(43, FederateIsExecutionMember) \
   X(44, FederateNameAlreadyInUse) \
   X(45, FederateNotExecutionMember) \
   X(46, FederateOwnsAttributes) \
   X(47, FederateServiceInvocationsAreBeingReportedViaMOM) \
   X(48, FederateUnableToUseTime) \
   X(49, FederatesCurrentlyJoined) \
   X(50, FederationExecutionAlreadyExists) \
   X(51, FederationExecutionDoesNotExist) \
   X(52, IllegalName) \
   X(53, IllegalTimeArithmetic) \
   X(54, InconsistentFDD) \
   X(55, InteractionClassAlreadyBeingChanged) \
   X(56, InteractionClassNotDefined) \
   X(57, InteractionClassNotPublished) \
   X(58, InteractionClassNotRecognized) \
   X(59, InteractionClassNotSubscribed) \
   X(60, InteractionParameterNotDefined) \
   X(61, InteractionParameterNotRecognized) \
   X(62, InteractionRelevanceAdvisorySwitchIsOff) \
   X(63, InteractionRelevanceAdvisorySwitchIsOn) \
   X(64, InTimeAdvancingState) \
   X(65, InvalidAttributeHandle) \
   X(66, InvalidDimensionHandle) \
   X(67, InvalidFederateHandle) \
   X(68, InvalidInteractionClassHandle) \
   X(69, InvalidLocalSettingsDesignator) \
   X(70, InvalidLogicalTime) \
   X(71, InvalidLogicalTimeInterval) \
   X(72, InvalidLookahead) \
   X(73, InvalidObjectClassHandle) \
   X(74, InvalidOrderName) \
   X(75, InvalidOrderType) \
   X(76, InvalidParameterHandle) \
   X(77, InvalidRangeBound) \
   X(78, InvalidRegion) \
   X(79, InvalidResignAction) \
   X(80, InvalidRegionContext) \
   X(81, InvalidMessageRetractionHandle) \
   X(82, InvalidServiceGroup) \
   X(83, InvalidTransportationName) \
   X(84, InvalidTransportationType) \
   X(85, InvalidUpdateRateDesignator) \
   X(86, JoinedFederateIsNotInTimeAdvancingState) \
   X(87, LogicalTimeAlreadyPassed) \
   X(88, MessageCanNoLongerBeRetracted) \
   X(89, NameNotFound) \
   X(90, NameSetWasEmpty) \
   X(91, NoAcquisitionPending) \
   X(92, NotConnected) \
   X(93, ObjectClassNotDefined) \
   X(94, ObjectClassNotKnown) \
   X(95, ObjectClassNotPublished) \
   X(96, ObjectClassRelevanceAdvisorySwitchIsOff) \
   X(97, ObjectClassRelevanceAdvisorySwitchIsOn) \
   X(98, ObjectInstanceNameInUse) \
   X(99, ObjectInstanceNameNotReserved) \
   X(100, ObjectInstanceNotKnown) \
   X(101, OwnershipAcquisitionPending) \
   X(102, RTIinternalError) \
   X(103, RegionDoesNotContainSpecifiedDimension) \
   X(104, RegionInUseForUpdateOrSubscription) \
   X(105, RegionNotCreatedByThisFederate) \
   X(106, RestoreInProgress) \
   X(107, RestoreNotInProgress) \
   X(108, RestoreNotRequested) \
   X(109, SaveInProgress) \
   X(110, SaveNotInProgress) \
   X(111, SaveNotInitiated) \
   X(112, SpecifiedSaveLabelDoesNotExist) \
   X(113, SynchronizationPointLabelNotAnnounced) \
   X(114, TimeConstrainedAlreadyEnabled) \
   X(115, TimeConstrainedIsNotEnabled) \
   X(116, TimeRegulationAlreadyEnabled) \
   X(117, TimeRegulationIsNotEnabled) \
   X(118, UnableToPerformSave) \
   X(119, UnknownName) \
   X(120, UnsupportedCallbackModel) \
   X(121, InternalError)

typedef struct hlm_rti hlm_rti;

typedef struct { const char *ptr; size_t len; } hlm_str;
typedef struct { const uint8_t *ptr; size_t len; } hlm_bytes;
typedef struct { const uint32_t *ptr; size_t len; } hlm_handles;
typedef struct { uint32_t handle; const uint8_t *ptr; size_t len; } hlm_value;
typedef struct { const hlm_value *ptr; size_t len; } hlm_values;
typedef struct { const hlm_str *ptr; size_t len; } hlm_strs;
/* DDM: region handles (64 bits), (attributes, regions) pairs, a range [lower, upper). */
typedef struct { const uint64_t *ptr; size_t len; } hlm_regions;
typedef struct { hlm_handles attributes; hlm_regions regions; } hlm_region_pair;
typedef struct { const hlm_region_pair *ptr; size_t len; } hlm_region_pairs;
typedef struct { uint64_t lower; uint64_t upper; } hlm_range;

/* A logical time or interval. */
#define HLM_TIME_NONE (-1)   /* no value (query_galt / query_lits with nothing to report) */
#define HLM_TIME_FLOAT64 0   /* HLAfloat64Time / HLAfloat64Interval: float_value */
#define HLM_TIME_INTEGER64 1 /* HLAinteger64Time / HLAinteger64Interval: integer_value */
typedef struct { int32_t kind; double float_value; int64_t integer_value; } hlm_time;

/* Owned by the caller once returned; free with hlm_text_free (ptr[len] is a NUL). */
typedef struct { char *ptr; size_t len; } hlm_text;
/* Owned by the caller once returned; free with hlm_handle_list_free. */
typedef struct { uint32_t *ptr; size_t len; } hlm_handle_list;

/* ---- callbacks: one tagged event per FederateAmbassador callback ---- */
enum hlm_event_kind
{
   HLM_EV_CONNECTION_LOST = 1,               /* text */
   HLM_EV_REPORT_FEDERATION_EXECUTIONS,      /* texts (names), texts2 (time implementations) */
   HLM_EV_START_REGISTRATION,                /* class_handle */
   HLM_EV_STOP_REGISTRATION,                 /* class_handle */
   HLM_EV_TURN_INTERACTIONS_ON,              /* class_handle */
   HLM_EV_TURN_INTERACTIONS_OFF,             /* class_handle */
   HLM_EV_ATTRIBUTES_IN_SCOPE,               /* object, handles */
   HLM_EV_ATTRIBUTES_OUT_OF_SCOPE,           /* object, handles */
   HLM_EV_TURN_UPDATES_ON,                   /* object, handles */
   HLM_EV_TURN_UPDATES_OFF,                  /* object, handles */
   HLM_EV_NAME_RESERVATION_SUCCEEDED,        /* text */
   HLM_EV_NAME_RESERVATION_FAILED,           /* text */
   HLM_EV_MULTIPLE_NAME_RESERVATION_SUCCEEDED, /* texts */
   HLM_EV_MULTIPLE_NAME_RESERVATION_FAILED,  /* texts */
   HLM_EV_DISCOVER_OBJECT_INSTANCE,          /* object, class_handle, text, federate */
   HLM_EV_REFLECT_ATTRIBUTE_VALUES,          /* object, values, tag, federate, orders, transportation, time, retraction, regions (has_regions) */
   HLM_EV_RECEIVE_INTERACTION,               /* class_handle, values, tag, federate, orders, transportation, time, retraction, regions (has_regions) */
   HLM_EV_REMOVE_OBJECT_INSTANCE,            /* object, tag, federate (has_federate), orders, time, retraction */
   HLM_EV_PROVIDE_ATTRIBUTE_VALUE_UPDATE,    /* object, handles, tag */
   HLM_EV_REQUEST_ATTRIBUTE_OWNERSHIP_ASSUMPTION, /* object, handles, tag */
   HLM_EV_REQUEST_DIVESTITURE_CONFIRMATION,  /* object, handles */
   HLM_EV_ATTRIBUTE_OWNERSHIP_ACQUISITION_NOTIFICATION, /* object, handles, tag */
   HLM_EV_ATTRIBUTE_OWNERSHIP_UNAVAILABLE,   /* object, handles */
   HLM_EV_REQUEST_ATTRIBUTE_OWNERSHIP_RELEASE, /* object, handles, tag */
   HLM_EV_CONFIRM_ATTRIBUTE_OWNERSHIP_ACQUISITION_CANCELLATION, /* object, handles */
   HLM_EV_INFORM_ATTRIBUTE_OWNERSHIP,        /* object, attribute, federate */
   HLM_EV_ATTRIBUTE_IS_NOT_OWNED,            /* object, attribute */
   HLM_EV_ATTRIBUTE_IS_OWNED_BY_RTI,         /* object, attribute */
   HLM_EV_TIME_REGULATION_ENABLED,           /* time */
   HLM_EV_TIME_CONSTRAINED_ENABLED,          /* time */
   HLM_EV_TIME_ADVANCE_GRANT,                /* time */
   HLM_EV_SYNC_POINT_REGISTRATION_SUCCEEDED, /* text */
   HLM_EV_SYNC_POINT_REGISTRATION_FAILED,    /* text, reason */
   HLM_EV_ANNOUNCE_SYNC_POINT,               /* text, tag */
   HLM_EV_FEDERATION_SYNCHRONIZED,           /* text, handles (failed set) */
   HLM_EV_INITIATE_FEDERATE_SAVE,            /* text, time (kind HLM_TIME_NONE: untimed) */
   HLM_EV_FEDERATION_SAVED,
   HLM_EV_FEDERATION_NOT_SAVED,              /* reason */
   HLM_EV_FEDERATION_SAVE_STATUS_RESPONSE,   /* handles, statuses */
   HLM_EV_REQUEST_FEDERATION_RESTORE_SUCCEEDED, /* text */
   HLM_EV_REQUEST_FEDERATION_RESTORE_FAILED, /* text, text2 (reason in words) */
   HLM_EV_FEDERATION_RESTORE_BEGUN,
   HLM_EV_INITIATE_FEDERATE_RESTORE,         /* text (label), text2 (name), federate */
   HLM_EV_FEDERATION_RESTORED,
   HLM_EV_FEDERATION_NOT_RESTORED,           /* reason, text2 (detail) */
   HLM_EV_FEDERATION_RESTORE_STATUS_RESPONSE, /* handles (pre), handles2 (post), statuses */
   HLM_EV_REQUEST_RETRACTION                 /* retraction */
};

typedef struct
{
   int32_t kind;                 /* hlm_event_kind */
   uint64_t object;
   uint32_t class_handle;
   uint32_t federate;
   int32_t has_federate;
   uint32_t attribute;
   int32_t reason;               /* the standard enum's value */
   const hlm_value *values; size_t values_len;
   const uint32_t *handles; size_t handles_len;
   const uint32_t *handles2;     /* handles_len entries when present */
   const int32_t *statuses;      /* handles_len entries when present */
   const uint8_t *tag; size_t tag_len;
   const char *text; size_t text_len;
   const char *text2; size_t text2_len;
   const hlm_str *texts; size_t texts_len;
   const hlm_str *texts2;        /* texts_len entries when present */
   hlm_time time;                /* kind HLM_TIME_NONE when the message had no time */
   int32_t sent_order;           /* 1 RECEIVE, 2 TIMESTAMP */
   int32_t received_order;
   uint32_t transportation;      /* 1 RELIABLE, 2 BEST_EFFORT */
   uint64_t retraction;          /* the sender's MessageRetractionHandle of a message it sent
                                  * in time-stamp order; 0: none */
   int32_t has_regions;          /* reflect / receive: the receiver's Convey Region Designator
                                  * Sets switch is on and the message was sent with regions */
   const uint64_t *regions; size_t regions_len; /* then the sent regions overlapping the
                                  * receiver's subscription regions, as receiver-local region
                                  * handles for hlm_get_range_bounds / hlm_get_dimension_handle_set */
} hlm_event;

/* Delivers one event to the federate.  Everything the event points to lives for the call only.
 * Returns 0, or non-zero when the federate's callback threw: then it has written a description
 * (NUL-terminated, truncated to what_cap) to `what`; Rust logs it and counts it
 * (hlm_callback_exceptions).  It must not unwind. */
typedef int32_t (*hlm_event_fn) (void *ctx, hlm_event const *event, char *what, size_t what_cap);

/* ---- lifetime and memory ---- */
int32_t hlm_rti_new (hlm_rti **out, hlm_text *message);
void hlm_rti_free (hlm_rti *rti);
void hlm_text_free (hlm_text text);
void hlm_handle_list_free (hlm_handle_list list);
/* Exceptions thrown by this ambassador's federate callbacks, caught and counted (rti NULL:
 * those of every ambassador of the process). */
uint64_t hlm_callback_exceptions (hlm_rti const *rti);

/* ---- 4: federation management ---- */
/* callback_model: 0 HLA_IMMEDIATE, 1 HLA_EVOKED (the values of rti1516e::CallbackModel). */
int32_t hlm_connect (hlm_rti *rti, hlm_event_fn on_event, void *ctx, int32_t callback_model, hlm_str local_settings_designator, hlm_text *message);
int32_t hlm_disconnect (hlm_rti *rti, hlm_text *message);
/* fom_modules: file paths or file: URLs; time_implementation: empty = HLAfloat64Time.  mim: empty
 * or a designator (hlamesh always uses its built-in standard MIM; a MIM designator is logged). */
int32_t hlm_create_federation_execution (hlm_rti *rti, hlm_str name, hlm_strs fom_modules, hlm_str mim, hlm_str time_implementation, hlm_text *message);
int32_t hlm_destroy_federation_execution (hlm_rti *rti, hlm_str name, hlm_text *message);
int32_t hlm_list_federation_executions (hlm_rti *rti, hlm_text *message);
int32_t hlm_join_federation_execution (hlm_rti *rti, hlm_str federate_name, hlm_str federate_type, hlm_str federation, hlm_strs additional_fom_modules, uint32_t *out, hlm_text *message);
/* action: the rti1516e::ResignAction value. */
int32_t hlm_resign_federation_execution (hlm_rti *rti, int32_t action, hlm_text *message);
int32_t hlm_register_federation_synchronization_point (hlm_rti *rti, hlm_str label, hlm_bytes tag, hlm_text *message);
int32_t hlm_register_federation_synchronization_point_with_set (hlm_rti *rti, hlm_str label, hlm_bytes tag, hlm_handles set, hlm_text *message);
int32_t hlm_synchronization_point_achieved (hlm_rti *rti, hlm_str label, int32_t successfully, hlm_text *message);
int32_t hlm_request_federation_save (hlm_rti *rti, hlm_str label, hlm_text *message);
int32_t hlm_request_federation_save_with_time (hlm_rti *rti, hlm_str label, hlm_time time, hlm_text *message);
int32_t hlm_federate_save_begun (hlm_rti *rti, hlm_text *message);
int32_t hlm_federate_save_complete (hlm_rti *rti, hlm_text *message);
int32_t hlm_federate_save_not_complete (hlm_rti *rti, hlm_text *message);
int32_t hlm_abort_federation_save (hlm_rti *rti, hlm_text *message);
int32_t hlm_query_federation_save_status (hlm_rti *rti, hlm_text *message);
int32_t hlm_request_federation_restore (hlm_rti *rti, hlm_str label, hlm_text *message);
int32_t hlm_federate_restore_complete (hlm_rti *rti, hlm_text *message);
int32_t hlm_federate_restore_not_complete (hlm_rti *rti, hlm_text *message);
int32_t hlm_abort_federation_restore (hlm_rti *rti, hlm_text *message);
int32_t hlm_query_federation_restore_status (hlm_rti *rti, hlm_text *message);

/* ---- 5: declaration management ---- */
int32_t hlm_publish_object_class_attributes (hlm_rti *rti, uint32_t object_class, hlm_handles attributes, hlm_text *message);
int32_t hlm_unpublish_object_class (hlm_rti *rti, uint32_t object_class, hlm_text *message);
int32_t hlm_unpublish_object_class_attributes (hlm_rti *rti, uint32_t object_class, hlm_handles attributes, hlm_text *message);
int32_t hlm_publish_interaction_class (hlm_rti *rti, uint32_t interaction_class, hlm_text *message);
int32_t hlm_unpublish_interaction_class (hlm_rti *rti, uint32_t interaction_class, hlm_text *message);
int32_t hlm_subscribe_object_class_attributes (hlm_rti *rti, uint32_t object_class, hlm_handles attributes, int32_t active, hlm_text *message);
int32_t hlm_subscribe_object_class_attributes_with_rate (hlm_rti *rti, uint32_t object_class, hlm_handles attributes, int32_t active, hlm_str rate, hlm_text *message);
int32_t hlm_unsubscribe_object_class (hlm_rti *rti, uint32_t object_class, hlm_text *message);
int32_t hlm_unsubscribe_object_class_attributes (hlm_rti *rti, uint32_t object_class, hlm_handles attributes, hlm_text *message);
int32_t hlm_subscribe_interaction_class (hlm_rti *rti, uint32_t interaction_class, int32_t active, hlm_text *message);
int32_t hlm_unsubscribe_interaction_class (hlm_rti *rti, uint32_t interaction_class, hlm_text *message);

/* ---- 6: object management ---- */
int32_t hlm_reserve_object_instance_name (hlm_rti *rti, hlm_str name, hlm_text *message);
int32_t hlm_release_object_instance_name (hlm_rti *rti, hlm_str name, hlm_text *message);
int32_t hlm_reserve_multiple_object_instance_name (hlm_rti *rti, hlm_strs names, hlm_text *message);
int32_t hlm_release_multiple_object_instance_name (hlm_rti *rti, hlm_strs names, hlm_text *message);
int32_t hlm_register_object_instance (hlm_rti *rti, uint32_t object_class, uint64_t *out, hlm_text *message);
int32_t hlm_register_object_instance_with_name (hlm_rti *rti, uint32_t object_class, hlm_str name, uint64_t *out, hlm_text *message);
int32_t hlm_update_attribute_values (hlm_rti *rti, uint64_t object, hlm_values values, hlm_bytes tag, hlm_text *message);
/* The timestamped services write the MessageRetractionHandle (never 0) to out. */
int32_t hlm_update_attribute_values_with_time (hlm_rti *rti, uint64_t object, hlm_values values, hlm_bytes tag, hlm_time time, uint64_t *out, hlm_text *message);
int32_t hlm_send_interaction (hlm_rti *rti, uint32_t interaction_class, hlm_values parameters, hlm_bytes tag, hlm_text *message);
int32_t hlm_send_interaction_with_time (hlm_rti *rti, uint32_t interaction_class, hlm_values parameters, hlm_bytes tag, hlm_time time, uint64_t *out, hlm_text *message);
int32_t hlm_delete_object_instance (hlm_rti *rti, uint64_t object, hlm_bytes tag, hlm_text *message);
int32_t hlm_delete_object_instance_with_time (hlm_rti *rti, uint64_t object, hlm_bytes tag, hlm_time time, uint64_t *out, hlm_text *message);
int32_t hlm_local_delete_object_instance (hlm_rti *rti, uint64_t object, hlm_text *message);
int32_t hlm_request_attribute_value_update (hlm_rti *rti, uint64_t object, hlm_handles attributes, hlm_bytes tag, hlm_text *message);
int32_t hlm_request_class_attribute_value_update (hlm_rti *rti, uint32_t object_class, hlm_handles attributes, hlm_bytes tag, hlm_text *message);

/* ---- 7: ownership management ---- */
int32_t hlm_unconditional_attribute_ownership_divestiture (hlm_rti *rti, uint64_t object, hlm_handles attributes, hlm_text *message);
int32_t hlm_negotiated_attribute_ownership_divestiture (hlm_rti *rti, uint64_t object, hlm_handles attributes, hlm_bytes tag, hlm_text *message);
int32_t hlm_confirm_divestiture (hlm_rti *rti, uint64_t object, hlm_handles attributes, hlm_bytes tag, hlm_text *message);
int32_t hlm_attribute_ownership_acquisition (hlm_rti *rti, uint64_t object, hlm_handles attributes, hlm_bytes tag, hlm_text *message);
int32_t hlm_attribute_ownership_acquisition_if_available (hlm_rti *rti, uint64_t object, hlm_handles attributes, hlm_text *message);
int32_t hlm_attribute_ownership_release_denied (hlm_rti *rti, uint64_t object, hlm_handles attributes, hlm_text *message);
int32_t hlm_attribute_ownership_divestiture_if_wanted (hlm_rti *rti, uint64_t object, hlm_handles attributes, hlm_handle_list *out, hlm_text *message);
int32_t hlm_cancel_negotiated_attribute_ownership_divestiture (hlm_rti *rti, uint64_t object, hlm_handles attributes, hlm_text *message);
int32_t hlm_cancel_attribute_ownership_acquisition (hlm_rti *rti, uint64_t object, hlm_handles attributes, hlm_text *message);
int32_t hlm_query_attribute_ownership (hlm_rti *rti, uint64_t object, uint32_t attribute, hlm_text *message);
int32_t hlm_is_attribute_owned_by_federate (hlm_rti *rti, uint64_t object, uint32_t attribute, int32_t *out, hlm_text *message);

/* ---- 8: time management ---- */
int32_t hlm_time_kind (hlm_rti *rti, int32_t *out, hlm_text *message);
int32_t hlm_enable_time_regulation (hlm_rti *rti, hlm_time lookahead, hlm_text *message);
int32_t hlm_disable_time_regulation (hlm_rti *rti, hlm_text *message);
int32_t hlm_enable_time_constrained (hlm_rti *rti, hlm_text *message);
int32_t hlm_disable_time_constrained (hlm_rti *rti, hlm_text *message);
int32_t hlm_time_advance_request (hlm_rti *rti, hlm_time time, hlm_text *message);
int32_t hlm_time_advance_request_available (hlm_rti *rti, hlm_time time, hlm_text *message);
int32_t hlm_next_message_request (hlm_rti *rti, hlm_time time, hlm_text *message);
int32_t hlm_next_message_request_available (hlm_rti *rti, hlm_time time, hlm_text *message);
int32_t hlm_flush_queue_request (hlm_rti *rti, hlm_time time, hlm_text *message);
int32_t hlm_enable_asynchronous_delivery (hlm_rti *rti, hlm_text *message);
int32_t hlm_retract (hlm_rti *rti, uint64_t handle, hlm_text *message);
int32_t hlm_disable_asynchronous_delivery (hlm_rti *rti, hlm_text *message);
int32_t hlm_query_galt (hlm_rti *rti, hlm_time *out, hlm_text *message);
int32_t hlm_query_logical_time (hlm_rti *rti, hlm_time *out, hlm_text *message);
int32_t hlm_query_lits (hlm_rti *rti, hlm_time *out, hlm_text *message);
int32_t hlm_modify_lookahead (hlm_rti *rti, hlm_time lookahead, hlm_text *message);
int32_t hlm_query_lookahead (hlm_rti *rti, hlm_time *out, hlm_text *message);
/* order: 1 RECEIVE, 2 TIMESTAMP */
int32_t hlm_change_attribute_order_type (hlm_rti *rti, uint64_t object, hlm_handles attributes, int32_t order, hlm_text *message);
int32_t hlm_change_interaction_order_type (hlm_rti *rti, uint32_t interaction_class, int32_t order, hlm_text *message);

/* ---- 10: support services ---- */
int32_t hlm_get_automatic_resign_directive (hlm_rti *rti, int32_t *out, hlm_text *message);
int32_t hlm_set_automatic_resign_directive (hlm_rti *rti, int32_t action, hlm_text *message);
int32_t hlm_get_federate_handle (hlm_rti *rti, hlm_str name, uint32_t *out, hlm_text *message);
int32_t hlm_get_federate_name (hlm_rti *rti, uint32_t federate, hlm_text *out, hlm_text *message);
int32_t hlm_get_object_class_handle (hlm_rti *rti, hlm_str name, uint32_t *out, hlm_text *message);
int32_t hlm_get_object_class_name (hlm_rti *rti, uint32_t object_class, hlm_text *out, hlm_text *message);
int32_t hlm_get_known_object_class_handle (hlm_rti *rti, uint64_t object, uint32_t *out, hlm_text *message);
int32_t hlm_get_object_instance_handle (hlm_rti *rti, hlm_str name, uint64_t *out, hlm_text *message);
int32_t hlm_get_object_instance_name (hlm_rti *rti, uint64_t object, hlm_text *out, hlm_text *message);
int32_t hlm_get_attribute_handle (hlm_rti *rti, uint32_t object_class, hlm_str name, uint32_t *out, hlm_text *message);
int32_t hlm_get_attribute_name (hlm_rti *rti, uint32_t object_class, uint32_t attribute, hlm_text *out, hlm_text *message);
int32_t hlm_get_update_rate_value (hlm_rti *rti, hlm_str name, double *out, hlm_text *message);
int32_t hlm_get_update_rate_value_for_attribute (hlm_rti *rti, uint64_t object, uint32_t attribute, double *out, hlm_text *message);
int32_t hlm_get_interaction_class_handle (hlm_rti *rti, hlm_str name, uint32_t *out, hlm_text *message);
int32_t hlm_get_interaction_class_name (hlm_rti *rti, uint32_t interaction_class, hlm_text *out, hlm_text *message);
int32_t hlm_get_parameter_handle (hlm_rti *rti, uint32_t interaction_class, hlm_str name, uint32_t *out, hlm_text *message);
int32_t hlm_get_parameter_name (hlm_rti *rti, uint32_t interaction_class, uint32_t parameter, hlm_text *out, hlm_text *message);
int32_t hlm_get_available_dimensions_for_class_attribute (hlm_rti *rti, uint32_t object_class, uint32_t attribute, hlm_handle_list *out, hlm_text *message);
int32_t hlm_get_dimension_handle (hlm_rti *rti, hlm_str name, uint32_t *out, hlm_text *message);
int32_t hlm_get_dimension_name (hlm_rti *rti, uint32_t dimension, hlm_text *out, hlm_text *message);
int32_t hlm_get_dimension_upper_bound (hlm_rti *rti, uint32_t dimension, uint64_t *out, hlm_text *message);
int32_t hlm_get_available_dimensions_for_interaction_class (hlm_rti *rti, uint32_t interaction_class, hlm_handle_list *out, hlm_text *message);
int32_t hlm_normalize_federate_handle (hlm_rti *rti, uint32_t federate, uint64_t *out, hlm_text *message);
/* group: 0 FEDERATION_MANAGEMENT ... 6 SUPPORT_SERVICES */
int32_t hlm_normalize_service_group (hlm_rti *rti, int32_t group, uint64_t *out, hlm_text *message);
int32_t hlm_create_region (hlm_rti *rti, hlm_handles dimensions, uint64_t *out, hlm_text *message);
int32_t hlm_commit_region_modifications (hlm_rti *rti, hlm_regions region_set, hlm_text *message);
int32_t hlm_delete_region (hlm_rti *rti, uint64_t region, hlm_text *message);
int32_t hlm_register_object_instance_with_regions (hlm_rti *rti, uint32_t object_class, hlm_region_pairs region_pairs, uint64_t *out, hlm_text *message);
int32_t hlm_register_object_instance_with_regions_and_name (hlm_rti *rti, uint32_t object_class, hlm_region_pairs region_pairs, hlm_str name, uint64_t *out, hlm_text *message);
int32_t hlm_associate_regions_for_updates (hlm_rti *rti, uint64_t object, hlm_region_pairs region_pairs, hlm_text *message);
int32_t hlm_unassociate_regions_for_updates (hlm_rti *rti, uint64_t object, hlm_region_pairs region_pairs, hlm_text *message);
/* rate: empty for none */
int32_t hlm_subscribe_object_class_attributes_with_regions (hlm_rti *rti, uint32_t object_class, hlm_region_pairs region_pairs, int32_t active, hlm_str rate, hlm_text *message);
int32_t hlm_unsubscribe_object_class_attributes_with_regions (hlm_rti *rti, uint32_t object_class, hlm_region_pairs region_pairs, hlm_text *message);
int32_t hlm_subscribe_interaction_class_with_regions (hlm_rti *rti, uint32_t interaction_class, hlm_regions region_set, int32_t active, hlm_text *message);
int32_t hlm_unsubscribe_interaction_class_with_regions (hlm_rti *rti, uint32_t interaction_class, hlm_regions region_set, hlm_text *message);
int32_t hlm_send_interaction_with_regions (hlm_rti *rti, uint32_t interaction_class, hlm_values parameters, hlm_regions region_set, hlm_bytes tag, hlm_text *message);
int32_t hlm_send_interaction_with_regions_and_time (hlm_rti *rti, uint32_t interaction_class, hlm_values parameters, hlm_regions region_set, hlm_bytes tag, hlm_time time, uint64_t *out, hlm_text *message);
int32_t hlm_request_attribute_value_update_with_regions (hlm_rti *rti, uint32_t object_class, hlm_region_pairs region_pairs, hlm_bytes tag, hlm_text *message);
int32_t hlm_get_dimension_handle_set (hlm_rti *rti, uint64_t region, hlm_handle_list *out, hlm_text *message);
int32_t hlm_get_range_bounds (hlm_rti *rti, uint64_t region, uint32_t dimension, hlm_range *out, hlm_text *message);
int32_t hlm_set_range_bounds (hlm_rti *rti, uint64_t region, uint32_t dimension, uint64_t lower, uint64_t upper, hlm_text *message);
/* which: 0 object class relevance, 1 attribute relevance, 2 attribute scope, 3 interaction relevance */
int32_t hlm_set_advisory_switch (hlm_rti *rti, int32_t which, int32_t on, hlm_text *message);
/* out: 1 when more callbacks are pending */
int32_t hlm_evoke_callback (hlm_rti *rti, double approximate_minimum_seconds, int32_t *out, hlm_text *message);
int32_t hlm_evoke_multiple_callbacks (hlm_rti *rti, double approximate_minimum_seconds, double approximate_maximum_seconds, int32_t *out, hlm_text *message);
int32_t hlm_enable_callbacks (hlm_rti *rti, hlm_text *message);
int32_t hlm_disable_callbacks (hlm_rti *rti, hlm_text *message);

#ifdef __cplusplus
}
#endif

#endif
