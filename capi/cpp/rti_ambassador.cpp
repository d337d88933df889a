// RTIambassadorImplementation: the standard's RTIambassador over hlm.h, and the factory.

#include "rti_ambassador.h"
#include "convert.h"

#include <RTI/RTIambassadorFactory.h>
#include <RTI/time/HLAfloat64TimeFactory.h>
#include <RTI/time/HLAinteger64TimeFactory.h>

#include <cwctype>

namespace hlamesh
{
namespace capi
{

// ---------------------------------------------------------------- conversions

[[noreturn]] void
throwCode (int32_t code, hlm_text message)
{
   std::wstring msg = cpp::fromUtf8Lossy(message.ptr, message.len);
   hlm_text_free(message);
   switch (code)
   {
#define HLAMESH_THROW(n, Name) \
   case n:                     \
      throw rti1516e::Name(msg);
      HLM_EXCEPTIONS(HLAMESH_THROW)
#undef HLAMESH_THROW
   default:
      throw RTIinternalError(L"unknown exception code " + std::to_wstring(code) + L": " + msg);
   }
}

hlm_time
timeOf (LogicalTime const & t)
{
   if (auto f = dynamic_cast<HLAfloat64Time const *>(&t))
      return hlm_time{HLM_TIME_FLOAT64, f->getTime(), 0};
   if (auto i = dynamic_cast<HLAinteger64Time const *>(&t))
      return hlm_time{HLM_TIME_INTEGER64, 0.0, i->getTime()};
   throw InvalidLogicalTime(L"hlamesh knows HLAfloat64Time and HLAinteger64Time, not " +
                            t.implementationName());
}

hlm_time
intervalOf (LogicalTimeInterval const & t)
{
   if (auto f = dynamic_cast<HLAfloat64Interval const *>(&t))
      return hlm_time{HLM_TIME_FLOAT64, f->getInterval(), 0};
   if (auto i = dynamic_cast<HLAinteger64Interval const *>(&t))
      return hlm_time{HLM_TIME_INTEGER64, 0.0, i->getInterval()};
   throw InvalidLookahead(L"hlamesh knows HLAfloat64Interval and HLAinteger64Interval, not " +
                          t.implementationName());
}

void
setTime (LogicalTime & out, hlm_time t)
{
   if (auto f = dynamic_cast<HLAfloat64Time *>(&out))
   {
      if (t.kind == HLM_TIME_FLOAT64)
         return f->setTime(t.float_value);
   }
   else if (auto i = dynamic_cast<HLAinteger64Time *>(&out))
   {
      if (t.kind == HLM_TIME_INTEGER64)
         return i->setTime(t.integer_value);
   }
   throw InvalidLogicalTime(L"the time object is not of the federation's time implementation (" +
                            out.implementationName() + L")");
}

void
setInterval (LogicalTimeInterval & out, hlm_time t)
{
   if (auto f = dynamic_cast<HLAfloat64Interval *>(&out))
   {
      if (t.kind == HLM_TIME_FLOAT64)
         return f->setInterval(t.float_value);
   }
   else if (auto i = dynamic_cast<HLAinteger64Interval *>(&out))
   {
      if (t.kind == HLM_TIME_INTEGER64)
         return i->setInterval(t.integer_value);
   }
   throw InvalidLogicalTime(
      L"the interval object is not of the federation's time implementation (" +
      out.implementationName() + L")");
}

std::unique_ptr<LogicalTime>
makeTime (hlm_time t)
{
   if (t.kind == HLM_TIME_INTEGER64)
      return std::unique_ptr<LogicalTime>(new HLAinteger64Time(t.integer_value));
   return std::unique_ptr<LogicalTime>(new HLAfloat64Time(t.float_value));
}

namespace
{

std::wstring
takeText (hlm_text t)
{
   std::wstring w = cpp::fromUtf8Lossy(t.ptr, t.len);
   hlm_text_free(t);
   return w;
}

[[noreturn]] void
notImplemented (wchar_t const * service)
{
   throw RTIinternalError(std::wstring(service) +
                          L": not implemented in hlamesh yet (issue 23/24)");
}

hlm_str const noName = {nullptr, 0};

std::wstring
lower (std::wstring s)
{
   for (auto & c : s)
      c = static_cast<wchar_t>(std::towlower(static_cast<wint_t>(c)));
   return s;
}

}

// ---------------------------------------------------------------- lifetime

RTIambassadorImplementation::RTIambassadorImplementation () : _rti(nullptr), _federate(nullptr)
{
   hlm_text message = {nullptr, 0};
   int32_t code = hlm_rti_new(&_rti, &message);
   if (code != 0)
      throwCode(code, message);
}

RTIambassadorImplementation::~RTIambassadorImplementation ()
{
   hlm_rti_free(_rti);
}

// ---------------------------------------------------------------- 4: federation management

void
RTIambassadorImplementation::connect (FederateAmbassador & federateAmbassador,
                                      CallbackModel theCallbackModel,
                                      std::wstring const & localSettingsDesignator)
{
   FederateAmbassador * previous = _federate.exchange(&federateAmbassador);
   try
   {
      call(hlm_connect, _rti, &hlamesh_on_event, static_cast<void *>(this),
           theCallbackModel == HLA_IMMEDIATE ? int32_t(0) : int32_t(1),
           Utf8(localSettingsDesignator).str());
   }
   catch (...)
   {
      _federate.store(previous);
      throw;
   }
}

void
RTIambassadorImplementation::disconnect ()
{
   call(hlm_disconnect, _rti);
}

void
RTIambassadorImplementation::createFederationExecution (
   std::wstring const & federationExecutionName, std::wstring const & fomModule,
   std::wstring const & logicalTimeImplementationName)
{
   std::vector<std::wstring> modules(1, fomModule);
   createFederationExecution(federationExecutionName, modules, logicalTimeImplementationName);
}

void
RTIambassadorImplementation::createFederationExecution (
   std::wstring const & federationExecutionName, std::vector<std::wstring> const & fomModules,
   std::wstring const & logicalTimeImplementationName)
{
   Utf8List modules(fomModules);
   call(hlm_create_federation_execution, _rti, Utf8(federationExecutionName).str(),
        modules.strs(), noName, Utf8(logicalTimeImplementationName).str());
}

void
RTIambassadorImplementation::createFederationExecutionWithMIM (
   std::wstring const & federationExecutionName, std::vector<std::wstring> const & fomModules,
   std::wstring const & mimModule, std::wstring const & logicalTimeImplementationName)
{
   Utf8List modules(fomModules);
   call(hlm_create_federation_execution, _rti, Utf8(federationExecutionName).str(),
        modules.strs(), Utf8(mimModule).str(), Utf8(logicalTimeImplementationName).str());
}

void
RTIambassadorImplementation::destroyFederationExecution (
   std::wstring const & federationExecutionName)
{
   call(hlm_destroy_federation_execution, _rti, Utf8(federationExecutionName).str());
}

void
RTIambassadorImplementation::listFederationExecutions ()
{
   call(hlm_list_federation_executions, _rti);
}

FederateHandle
RTIambassadorImplementation::joinFederationExecution (
   std::wstring const & federateType, std::wstring const & federationExecutionName,
   std::vector<std::wstring> const & additionalFomModules)
{
   Utf8List modules(additionalFomModules);
   uint32_t h = 0;
   call(hlm_join_federation_execution, _rti, noName, Utf8(federateType).str(),
        Utf8(federationExecutionName).str(), modules.strs(), &h);
   return FederateHandleFriend::fromValue(h);
}

FederateHandle
RTIambassadorImplementation::joinFederationExecution (
   std::wstring const & federateName, std::wstring const & federateType,
   std::wstring const & federationExecutionName,
   std::vector<std::wstring> const & additionalFomModules)
{
   Utf8List modules(additionalFomModules);
   uint32_t h = 0;
   call(hlm_join_federation_execution, _rti, Utf8(federateName).str(), Utf8(federateType).str(),
        Utf8(federationExecutionName).str(), modules.strs(), &h);
   return FederateHandleFriend::fromValue(h);
}

void
RTIambassadorImplementation::resignFederationExecution (ResignAction resignAction)
{
   call(hlm_resign_federation_execution, _rti, int32_t(resignAction));
}

void
RTIambassadorImplementation::registerFederationSynchronizationPoint (
   std::wstring const & label, VariableLengthData const & theUserSuppliedTag)
{
   call(hlm_register_federation_synchronization_point, _rti, Utf8(label).str(),
        bytes(theUserSuppliedTag));
}

void
RTIambassadorImplementation::registerFederationSynchronizationPoint (
   std::wstring const & label, VariableLengthData const & theUserSuppliedTag,
   FederateHandleSet const & synchronizationSet)
{
   Numbers set(synchronizationSet);
   call(hlm_register_federation_synchronization_point_with_set, _rti, Utf8(label).str(),
        bytes(theUserSuppliedTag), set.handles());
}

void
RTIambassadorImplementation::synchronizationPointAchieved (std::wstring const & label,
                                                           bool successfully)
{
   call(hlm_synchronization_point_achieved, _rti, Utf8(label).str(), int32_t(successfully));
}

void
RTIambassadorImplementation::requestFederationSave (std::wstring const & label)
{
   call(hlm_request_federation_save, _rti, Utf8(label).str());
}

void
RTIambassadorImplementation::requestFederationSave (std::wstring const & label,
                                                    LogicalTime const & theTime)
{
   call(hlm_request_federation_save_with_time, _rti, Utf8(label).str(), timeOf(theTime));
}

void RTIambassadorImplementation::federateSaveBegun () { call(hlm_federate_save_begun, _rti); }
void RTIambassadorImplementation::federateSaveComplete () { call(hlm_federate_save_complete, _rti); }
void RTIambassadorImplementation::federateSaveNotComplete () { call(hlm_federate_save_not_complete, _rti); }
void RTIambassadorImplementation::abortFederationSave () { call(hlm_abort_federation_save, _rti); }
void RTIambassadorImplementation::queryFederationSaveStatus () { call(hlm_query_federation_save_status, _rti); }

void
RTIambassadorImplementation::requestFederationRestore (std::wstring const & label)
{
   call(hlm_request_federation_restore, _rti, Utf8(label).str());
}

void RTIambassadorImplementation::federateRestoreComplete () { call(hlm_federate_restore_complete, _rti); }
void RTIambassadorImplementation::federateRestoreNotComplete () { call(hlm_federate_restore_not_complete, _rti); }
void RTIambassadorImplementation::abortFederationRestore () { call(hlm_abort_federation_restore, _rti); }
void RTIambassadorImplementation::queryFederationRestoreStatus () { call(hlm_query_federation_restore_status, _rti); }

// ---------------------------------------------------------------- 5: declaration management

void
RTIambassadorImplementation::publishObjectClassAttributes (ObjectClassHandle theClass,
                                                           AttributeHandleSet const & attributeList)
{
   Numbers a(attributeList);
   call(hlm_publish_object_class_attributes, _rti, number(theClass), a.handles());
}

void
RTIambassadorImplementation::unpublishObjectClass (ObjectClassHandle theClass)
{
   call(hlm_unpublish_object_class, _rti, number(theClass));
}

void
RTIambassadorImplementation::unpublishObjectClassAttributes (
   ObjectClassHandle theClass, AttributeHandleSet const & attributeList)
{
   Numbers a(attributeList);
   call(hlm_unpublish_object_class_attributes, _rti, number(theClass), a.handles());
}

void
RTIambassadorImplementation::publishInteractionClass (InteractionClassHandle theInteraction)
{
   call(hlm_publish_interaction_class, _rti, number(theInteraction));
}

void
RTIambassadorImplementation::unpublishInteractionClass (InteractionClassHandle theInteraction)
{
   call(hlm_unpublish_interaction_class, _rti, number(theInteraction));
}

void
RTIambassadorImplementation::subscribeObjectClassAttributes (
   ObjectClassHandle theClass, AttributeHandleSet const & attributeList, bool active,
   std::wstring const & updateRateDesignator)
{
   // An empty designator subscribes with no rate (the C++ API's default argument).
   Numbers a(attributeList);
   Utf8 rate(updateRateDesignator);
   call(hlm_subscribe_object_class_attributes_with_rate, _rti, number(theClass), a.handles(),
        int32_t(active), rate.str());
}

void
RTIambassadorImplementation::unsubscribeObjectClass (ObjectClassHandle theClass)
{
   call(hlm_unsubscribe_object_class, _rti, number(theClass));
}

void
RTIambassadorImplementation::unsubscribeObjectClassAttributes (
   ObjectClassHandle theClass, AttributeHandleSet const & attributeList)
{
   Numbers a(attributeList);
   call(hlm_unsubscribe_object_class_attributes, _rti, number(theClass), a.handles());
}

void
RTIambassadorImplementation::subscribeInteractionClass (InteractionClassHandle theClass,
                                                        bool active)
{
   call(hlm_subscribe_interaction_class, _rti, number(theClass), int32_t(active));
}

void
RTIambassadorImplementation::unsubscribeInteractionClass (InteractionClassHandle theClass)
{
   call(hlm_unsubscribe_interaction_class, _rti, number(theClass));
}

// ---------------------------------------------------------------- 6: object management

void
RTIambassadorImplementation::reserveObjectInstanceName (std::wstring const & theObjectInstanceName)
{
   call(hlm_reserve_object_instance_name, _rti, Utf8(theObjectInstanceName).str());
}

void
RTIambassadorImplementation::releaseObjectInstanceName (std::wstring const & theObjectInstanceName)
{
   call(hlm_release_object_instance_name, _rti, Utf8(theObjectInstanceName).str());
}

void
RTIambassadorImplementation::reserveMultipleObjectInstanceName (
   std::set<std::wstring> const & theObjectInstanceNames)
{
   Utf8List names(theObjectInstanceNames);
   call(hlm_reserve_multiple_object_instance_name, _rti, names.strs());
}

void
RTIambassadorImplementation::releaseMultipleObjectInstanceName (
   std::set<std::wstring> const & theObjectInstanceNames)
{
   Utf8List names(theObjectInstanceNames);
   call(hlm_release_multiple_object_instance_name, _rti, names.strs());
}

ObjectInstanceHandle
RTIambassadorImplementation::registerObjectInstance (ObjectClassHandle theClass)
{
   uint64_t h = 0;
   call(hlm_register_object_instance, _rti, number(theClass), &h);
   return ObjectInstanceHandleFriend::fromValue(h);
}

ObjectInstanceHandle
RTIambassadorImplementation::registerObjectInstance (ObjectClassHandle theClass,
                                                     std::wstring const & theObjectInstanceName)
{
   uint64_t h = 0;
   call(hlm_register_object_instance_with_name, _rti, number(theClass),
        Utf8(theObjectInstanceName).str(), &h);
   return ObjectInstanceHandleFriend::fromValue(h);
}

void
RTIambassadorImplementation::updateAttributeValues (ObjectInstanceHandle theObject,
                                                    AttributeHandleValueMap const & theAttributeValues,
                                                    VariableLengthData const & theUserSuppliedTag)
{
   Values v(theAttributeValues);
   call(hlm_update_attribute_values, _rti, object(theObject), v.values(),
        bytes(theUserSuppliedTag));
}

// The timestamped services return the handle retract (8.21) takes.
MessageRetractionHandle
RTIambassadorImplementation::updateAttributeValues (ObjectInstanceHandle theObject,
                                                    AttributeHandleValueMap const & theAttributeValues,
                                                    VariableLengthData const & theUserSuppliedTag,
                                                    LogicalTime const & theTime)
{
   Values v(theAttributeValues);
   uint64_t h = 0;
   call(hlm_update_attribute_values_with_time, _rti, object(theObject), v.values(),
        bytes(theUserSuppliedTag), timeOf(theTime), &h);
   return MessageRetractionHandleFriend::fromValue(h);
}

void
RTIambassadorImplementation::sendInteraction (InteractionClassHandle theInteraction,
                                              ParameterHandleValueMap const & theParameterValues,
                                              VariableLengthData const & theUserSuppliedTag)
{
   Values v(theParameterValues);
   call(hlm_send_interaction, _rti, number(theInteraction), v.values(),
        bytes(theUserSuppliedTag));
}

MessageRetractionHandle
RTIambassadorImplementation::sendInteraction (InteractionClassHandle theInteraction,
                                              ParameterHandleValueMap const & theParameterValues,
                                              VariableLengthData const & theUserSuppliedTag,
                                              LogicalTime const & theTime)
{
   Values v(theParameterValues);
   uint64_t h = 0;
   call(hlm_send_interaction_with_time, _rti, number(theInteraction), v.values(),
        bytes(theUserSuppliedTag), timeOf(theTime), &h);
   return MessageRetractionHandleFriend::fromValue(h);
}

void
RTIambassadorImplementation::deleteObjectInstance (ObjectInstanceHandle theObject,
                                                   VariableLengthData const & theUserSuppliedTag)
{
   call(hlm_delete_object_instance, _rti, object(theObject), bytes(theUserSuppliedTag));
}

MessageRetractionHandle
RTIambassadorImplementation::deleteObjectInstance (ObjectInstanceHandle theObject,
                                                   VariableLengthData const & theUserSuppliedTag,
                                                   LogicalTime const & theTime)
{
   uint64_t h = 0;
   call(hlm_delete_object_instance_with_time, _rti, object(theObject), bytes(theUserSuppliedTag),
        timeOf(theTime), &h);
   return MessageRetractionHandleFriend::fromValue(h);
}

void
RTIambassadorImplementation::localDeleteObjectInstance (ObjectInstanceHandle theObject)
{
   call(hlm_local_delete_object_instance, _rti, object(theObject));
}

void
RTIambassadorImplementation::requestAttributeValueUpdate (ObjectInstanceHandle theObject,
                                                          AttributeHandleSet const & theAttributes,
                                                          VariableLengthData const & theUserSuppliedTag)
{
   Numbers a(theAttributes);
   call(hlm_request_attribute_value_update, _rti, object(theObject), a.handles(),
        bytes(theUserSuppliedTag));
}

void
RTIambassadorImplementation::requestAttributeValueUpdate (ObjectClassHandle theClass,
                                                          AttributeHandleSet const & theAttributes,
                                                          VariableLengthData const & theUserSuppliedTag)
{
   Numbers a(theAttributes);
   call(hlm_request_class_attribute_value_update, _rti, number(theClass), a.handles(),
        bytes(theUserSuppliedTag));
}

void
RTIambassadorImplementation::requestAttributeTransportationTypeChange (ObjectInstanceHandle,
                                                                       AttributeHandleSet const &,
                                                                       TransportationType)
{
   notImplemented(L"requestAttributeTransportationTypeChange");
}

void
RTIambassadorImplementation::queryAttributeTransportationType (ObjectInstanceHandle, AttributeHandle)
{
   notImplemented(L"queryAttributeTransportationType");
}

void
RTIambassadorImplementation::requestInteractionTransportationTypeChange (InteractionClassHandle,
                                                                         TransportationType)
{
   notImplemented(L"requestInteractionTransportationTypeChange");
}

void
RTIambassadorImplementation::queryInteractionTransportationType (FederateHandle,
                                                                 InteractionClassHandle)
{
   notImplemented(L"queryInteractionTransportationType");
}

// ---------------------------------------------------------------- 7: ownership management

#define HLAMESH_OWNERSHIP(Method, fn)                                                     \
   void RTIambassadorImplementation::Method (ObjectInstanceHandle theObject,              \
                                             AttributeHandleSet const & theAttributes)    \
   {                                                                                      \
      Numbers a(theAttributes);                                                           \
      call(fn, _rti, object(theObject), a.handles());                                     \
   }
#define HLAMESH_OWNERSHIP_TAG(Method, fn)                                                 \
   void RTIambassadorImplementation::Method (ObjectInstanceHandle theObject,              \
                                             AttributeHandleSet const & theAttributes,    \
                                             VariableLengthData const & theUserSuppliedTag) \
   {                                                                                      \
      Numbers a(theAttributes);                                                           \
      call(fn, _rti, object(theObject), a.handles(), bytes(theUserSuppliedTag));          \
   }

HLAMESH_OWNERSHIP(unconditionalAttributeOwnershipDivestiture,
                  hlm_unconditional_attribute_ownership_divestiture)
HLAMESH_OWNERSHIP_TAG(negotiatedAttributeOwnershipDivestiture,
                      hlm_negotiated_attribute_ownership_divestiture)
HLAMESH_OWNERSHIP_TAG(confirmDivestiture, hlm_confirm_divestiture)
HLAMESH_OWNERSHIP_TAG(attributeOwnershipAcquisition, hlm_attribute_ownership_acquisition)
HLAMESH_OWNERSHIP(attributeOwnershipAcquisitionIfAvailable,
                  hlm_attribute_ownership_acquisition_if_available)
HLAMESH_OWNERSHIP(attributeOwnershipReleaseDenied, hlm_attribute_ownership_release_denied)
HLAMESH_OWNERSHIP(cancelNegotiatedAttributeOwnershipDivestiture,
                  hlm_cancel_negotiated_attribute_ownership_divestiture)
HLAMESH_OWNERSHIP(cancelAttributeOwnershipAcquisition, hlm_cancel_attribute_ownership_acquisition)
#undef HLAMESH_OWNERSHIP
#undef HLAMESH_OWNERSHIP_TAG

void
RTIambassadorImplementation::attributeOwnershipDivestitureIfWanted (
   ObjectInstanceHandle theObject, AttributeHandleSet const & theAttributes,
   AttributeHandleSet & theDivestedAttributes)
{
   Numbers a(theAttributes);
   hlm_handle_list divested = {nullptr, 0};
   call(hlm_attribute_ownership_divestiture_if_wanted, _rti, object(theObject), a.handles(),
        &divested);
   theDivestedAttributes.clear();
   for (size_t i = 0; i < divested.len; ++i)
      theDivestedAttributes.insert(AttributeHandleFriend::fromValue(divested.ptr[i]));
   hlm_handle_list_free(divested);
}

void
RTIambassadorImplementation::queryAttributeOwnership (ObjectInstanceHandle theObject,
                                                      AttributeHandle theAttribute)
{
   call(hlm_query_attribute_ownership, _rti, object(theObject), number(theAttribute));
}

bool
RTIambassadorImplementation::isAttributeOwnedByFederate (ObjectInstanceHandle theObject,
                                                         AttributeHandle theAttribute)
{
   int32_t owned = 0;
   call(hlm_is_attribute_owned_by_federate, _rti, object(theObject), number(theAttribute), &owned);
   return owned != 0;
}

// ---------------------------------------------------------------- 8: time management

void
RTIambassadorImplementation::enableTimeRegulation (LogicalTimeInterval const & theLookahead)
{
   call(hlm_enable_time_regulation, _rti, intervalOf(theLookahead));
}

void RTIambassadorImplementation::disableTimeRegulation () { call(hlm_disable_time_regulation, _rti); }
void RTIambassadorImplementation::enableTimeConstrained () { call(hlm_enable_time_constrained, _rti); }
void RTIambassadorImplementation::disableTimeConstrained () { call(hlm_disable_time_constrained, _rti); }

void
RTIambassadorImplementation::timeAdvanceRequest (LogicalTime const & theTime)
{
   call(hlm_time_advance_request, _rti, timeOf(theTime));
}

void
RTIambassadorImplementation::timeAdvanceRequestAvailable (LogicalTime const & theTime)
{
   call(hlm_time_advance_request_available, _rti, timeOf(theTime));
}

void
RTIambassadorImplementation::nextMessageRequest (LogicalTime const & theTime)
{
   call(hlm_next_message_request, _rti, timeOf(theTime));
}

void
RTIambassadorImplementation::nextMessageRequestAvailable (LogicalTime const & theTime)
{
   call(hlm_next_message_request_available, _rti, timeOf(theTime));
}

void
RTIambassadorImplementation::flushQueueRequest (LogicalTime const & theTime)
{
   call(hlm_flush_queue_request, _rti, timeOf(theTime));
}

void RTIambassadorImplementation::enableAsynchronousDelivery () { call(hlm_enable_asynchronous_delivery, _rti); }
void RTIambassadorImplementation::disableAsynchronousDelivery () { call(hlm_disable_asynchronous_delivery, _rti); }

bool
RTIambassadorImplementation::queryGALT (LogicalTime & theTime)
{
   hlm_time t = {HLM_TIME_NONE, 0.0, 0};
   call(hlm_query_galt, _rti, &t);
   if (t.kind == HLM_TIME_NONE)
      return false;
   setTime(theTime, t);
   return true;
}

void
RTIambassadorImplementation::queryLogicalTime (LogicalTime & theTime)
{
   hlm_time t = {HLM_TIME_NONE, 0.0, 0};
   call(hlm_query_logical_time, _rti, &t);
   setTime(theTime, t);
}

bool
RTIambassadorImplementation::queryLITS (LogicalTime & theTime)
{
   hlm_time t = {HLM_TIME_NONE, 0.0, 0};
   call(hlm_query_lits, _rti, &t);
   if (t.kind == HLM_TIME_NONE)
      return false;
   setTime(theTime, t);
   return true;
}

void
RTIambassadorImplementation::modifyLookahead (LogicalTimeInterval const & theLookahead)
{
   call(hlm_modify_lookahead, _rti, intervalOf(theLookahead));
}

void
RTIambassadorImplementation::queryLookahead (LogicalTimeInterval & interval)
{
   hlm_time t = {HLM_TIME_NONE, 0.0, 0};
   call(hlm_query_lookahead, _rti, &t);
   setInterval(interval, t);
}

void
RTIambassadorImplementation::retract (MessageRetractionHandle theHandle)
{
   call(hlm_retract, _rti, MessageRetractionHandleFriend::value(theHandle));
}

void
RTIambassadorImplementation::changeAttributeOrderType (ObjectInstanceHandle theObject,
                                                       AttributeHandleSet const & theAttributes,
                                                       OrderType theType)
{
   Numbers a(theAttributes);
   call(hlm_change_attribute_order_type, _rti, object(theObject), a.handles(), int32_t(theType));
}

void
RTIambassadorImplementation::changeInteractionOrderType (InteractionClassHandle theClass,
                                                         OrderType theType)
{
   call(hlm_change_interaction_order_type, _rti, number(theClass), int32_t(theType));
}

// ---------------------------------------------------------------- 9: DDM

// Region handle numbers of a set, kept alive for a call.
class Regions
{
public:
   explicit Regions (RegionHandleSet const & regions)
   {
      for (RegionHandle const & r : regions)
         _v.push_back(RegionHandleFriend::value(r));
   }
   hlm_regions regions () const { return hlm_regions{_v.data(), _v.size()}; }

private:
   std::vector<uint64_t> _v;
};

// (attributes, regions) pairs, kept alive for a call.
class RegionPairs
{
public:
   explicit RegionPairs (AttributeHandleSetRegionHandleSetPairVector const & pairs)
   {
      for (auto const & p : pairs)
      {
         _attrs.emplace_back();
         for (AttributeHandle const & a : p.first)
            _attrs.back().push_back(number(a));
         _regions.emplace_back();
         for (RegionHandle const & r : p.second)
            _regions.back().push_back(RegionHandleFriend::value(r));
      }
      for (size_t i = 0; i < _attrs.size(); ++i)
         _v.push_back(hlm_region_pair{hlm_handles{_attrs[i].data(), _attrs[i].size()},
                                      hlm_regions{_regions[i].data(), _regions[i].size()}});
   }
   hlm_region_pairs pairs () const { return hlm_region_pairs{_v.data(), _v.size()}; }

private:
   std::vector<std::vector<uint32_t>> _attrs;
   std::vector<std::vector<uint64_t>> _regions;
   std::vector<hlm_region_pair> _v;
};

RegionHandle
RTIambassadorImplementation::createRegion (DimensionHandleSet const & theDimensions)
{
   Numbers d(theDimensions);
   uint64_t h = 0;
   call(hlm_create_region, _rti, d.handles(), &h);
   return RegionHandleFriend::fromValue(h);
}

void
RTIambassadorImplementation::commitRegionModifications (RegionHandleSet const & theRegionHandleSet)
{
   Regions r(theRegionHandleSet);
   call(hlm_commit_region_modifications, _rti, r.regions());
}

void
RTIambassadorImplementation::deleteRegion (RegionHandle const & theRegion)
{
   call(hlm_delete_region, _rti, uint64_t(RegionHandleFriend::value(theRegion)));
}

ObjectInstanceHandle
RTIambassadorImplementation::registerObjectInstanceWithRegions (
   ObjectClassHandle theClass,
   AttributeHandleSetRegionHandleSetPairVector const & theAttributeHandleSetRegionHandleSetPairVector)
{
   RegionPairs p(theAttributeHandleSetRegionHandleSetPairVector);
   uint64_t h = 0;
   call(hlm_register_object_instance_with_regions, _rti, number(theClass), p.pairs(), &h);
   return ObjectInstanceHandleFriend::fromValue(h);
}

ObjectInstanceHandle
RTIambassadorImplementation::registerObjectInstanceWithRegions (
   ObjectClassHandle theClass,
   AttributeHandleSetRegionHandleSetPairVector const & theAttributeHandleSetRegionHandleSetPairVector,
   std::wstring const & theObjectInstanceName)
{
   RegionPairs p(theAttributeHandleSetRegionHandleSetPairVector);
   Utf8 name(theObjectInstanceName);
   uint64_t h = 0;
   call(hlm_register_object_instance_with_regions_and_name, _rti, number(theClass), p.pairs(),
        name.str(), &h);
   return ObjectInstanceHandleFriend::fromValue(h);
}

void
RTIambassadorImplementation::associateRegionsForUpdates (
   ObjectInstanceHandle theObject,
   AttributeHandleSetRegionHandleSetPairVector const & theAttributeHandleSetRegionHandleSetPairVector)
{
   RegionPairs p(theAttributeHandleSetRegionHandleSetPairVector);
   call(hlm_associate_regions_for_updates, _rti, object(theObject), p.pairs());
}

void
RTIambassadorImplementation::unassociateRegionsForUpdates (
   ObjectInstanceHandle theObject,
   AttributeHandleSetRegionHandleSetPairVector const & theAttributeHandleSetRegionHandleSetPairVector)
{
   RegionPairs p(theAttributeHandleSetRegionHandleSetPairVector);
   call(hlm_unassociate_regions_for_updates, _rti, object(theObject), p.pairs());
}

void
RTIambassadorImplementation::subscribeObjectClassAttributesWithRegions (
   ObjectClassHandle theClass,
   AttributeHandleSetRegionHandleSetPairVector const & theAttributeHandleSetRegionHandleSetPairVector,
   bool active, std::wstring const & updateRateDesignator)
{
   RegionPairs p(theAttributeHandleSetRegionHandleSetPairVector);
   Utf8 rate(updateRateDesignator);
   call(hlm_subscribe_object_class_attributes_with_regions, _rti, number(theClass), p.pairs(),
        int32_t(active ? 1 : 0), rate.str());
}

void
RTIambassadorImplementation::unsubscribeObjectClassAttributesWithRegions (
   ObjectClassHandle theClass,
   AttributeHandleSetRegionHandleSetPairVector const & theAttributeHandleSetRegionHandleSetPairVector)
{
   RegionPairs p(theAttributeHandleSetRegionHandleSetPairVector);
   call(hlm_unsubscribe_object_class_attributes_with_regions, _rti, number(theClass), p.pairs());
}

void
RTIambassadorImplementation::subscribeInteractionClassWithRegions (
   InteractionClassHandle theClass, RegionHandleSet const & theRegionHandleSet, bool active)
{
   Regions r(theRegionHandleSet);
   call(hlm_subscribe_interaction_class_with_regions, _rti, number(theClass), r.regions(),
        int32_t(active ? 1 : 0));
}

void
RTIambassadorImplementation::unsubscribeInteractionClassWithRegions (
   InteractionClassHandle theClass, RegionHandleSet const & theRegionHandleSet)
{
   Regions r(theRegionHandleSet);
   call(hlm_unsubscribe_interaction_class_with_regions, _rti, number(theClass), r.regions());
}

void
RTIambassadorImplementation::sendInteractionWithRegions (
   InteractionClassHandle theInteraction, ParameterHandleValueMap const & theParameterValues,
   RegionHandleSet const & theRegionHandleSet, VariableLengthData const & theUserSuppliedTag)
{
   Values v(theParameterValues);
   Regions r(theRegionHandleSet);
   call(hlm_send_interaction_with_regions, _rti, number(theInteraction), v.values(), r.regions(),
        bytes(theUserSuppliedTag));
}

MessageRetractionHandle
RTIambassadorImplementation::sendInteractionWithRegions (
   InteractionClassHandle theInteraction, ParameterHandleValueMap const & theParameterValues,
   RegionHandleSet const & theRegionHandleSet, VariableLengthData const & theUserSuppliedTag,
   LogicalTime const & theTime)
{
   Values v(theParameterValues);
   Regions r(theRegionHandleSet);
   uint64_t h = 0;
   call(hlm_send_interaction_with_regions_and_time, _rti, number(theInteraction), v.values(),
        r.regions(), bytes(theUserSuppliedTag), timeOf(theTime), &h);
   return MessageRetractionHandleFriend::fromValue(h);
}

void
RTIambassadorImplementation::requestAttributeValueUpdateWithRegions (
   ObjectClassHandle theClass,
   AttributeHandleSetRegionHandleSetPairVector const & theSet,
   VariableLengthData const & theUserSuppliedTag)
{
   RegionPairs p(theSet);
   call(hlm_request_attribute_value_update_with_regions, _rti, number(theClass), p.pairs(),
        bytes(theUserSuppliedTag));
}

// ---------------------------------------------------------------- 10: support services

ResignAction
RTIambassadorImplementation::getAutomaticResignDirective ()
{
   int32_t a = 0;
   call(hlm_get_automatic_resign_directive, _rti, &a);
   return static_cast<ResignAction>(a);
}

void
RTIambassadorImplementation::setAutomaticResignDirective (ResignAction resignAction)
{
   call(hlm_set_automatic_resign_directive, _rti, int32_t(resignAction));
}

FederateHandle
RTIambassadorImplementation::getFederateHandle (std::wstring const & theName)
{
   uint32_t h = 0;
   call(hlm_get_federate_handle, _rti, Utf8(theName).str(), &h);
   return FederateHandleFriend::fromValue(h);
}

std::wstring
RTIambassadorImplementation::getFederateName (FederateHandle theHandle)
{
   hlm_text t = {nullptr, 0};
   call(hlm_get_federate_name, _rti, number(theHandle), &t);
   return takeText(t);
}

ObjectClassHandle
RTIambassadorImplementation::getObjectClassHandle (std::wstring const & theName)
{
   uint32_t h = 0;
   call(hlm_get_object_class_handle, _rti, Utf8(theName).str(), &h);
   return ObjectClassHandleFriend::fromValue(h);
}

std::wstring
RTIambassadorImplementation::getObjectClassName (ObjectClassHandle theHandle)
{
   hlm_text t = {nullptr, 0};
   call(hlm_get_object_class_name, _rti, number(theHandle), &t);
   return takeText(t);
}

ObjectClassHandle
RTIambassadorImplementation::getKnownObjectClassHandle (ObjectInstanceHandle theObject)
{
   uint32_t h = 0;
   call(hlm_get_known_object_class_handle, _rti, object(theObject), &h);
   return ObjectClassHandleFriend::fromValue(h);
}

ObjectInstanceHandle
RTIambassadorImplementation::getObjectInstanceHandle (std::wstring const & theName)
{
   uint64_t h = 0;
   call(hlm_get_object_instance_handle, _rti, Utf8(theName).str(), &h);
   return ObjectInstanceHandleFriend::fromValue(h);
}

std::wstring
RTIambassadorImplementation::getObjectInstanceName (ObjectInstanceHandle theHandle)
{
   hlm_text t = {nullptr, 0};
   call(hlm_get_object_instance_name, _rti, object(theHandle), &t);
   return takeText(t);
}

AttributeHandle
RTIambassadorImplementation::getAttributeHandle (ObjectClassHandle whichClass,
                                                 std::wstring const & theAttributeName)
{
   uint32_t h = 0;
   call(hlm_get_attribute_handle, _rti, number(whichClass), Utf8(theAttributeName).str(), &h);
   return AttributeHandleFriend::fromValue(h);
}

std::wstring
RTIambassadorImplementation::getAttributeName (ObjectClassHandle whichClass,
                                               AttributeHandle theHandle)
{
   hlm_text t = {nullptr, 0};
   call(hlm_get_attribute_name, _rti, number(whichClass), number(theHandle), &t);
   return takeText(t);
}

double
RTIambassadorImplementation::getUpdateRateValue (std::wstring const & updateRateDesignator)
{
   double v = 0.0;
   call(hlm_get_update_rate_value, _rti, Utf8(updateRateDesignator).str(), &v);
   return v;
}

double
RTIambassadorImplementation::getUpdateRateValueForAttribute (ObjectInstanceHandle theObject,
                                                             AttributeHandle theAttribute)
{
   double v = 0.0;
   call(hlm_get_update_rate_value_for_attribute, _rti, object(theObject), number(theAttribute),
        &v);
   return v;
}

InteractionClassHandle
RTIambassadorImplementation::getInteractionClassHandle (std::wstring const & theName)
{
   uint32_t h = 0;
   call(hlm_get_interaction_class_handle, _rti, Utf8(theName).str(), &h);
   return InteractionClassHandleFriend::fromValue(h);
}

std::wstring
RTIambassadorImplementation::getInteractionClassName (InteractionClassHandle theHandle)
{
   hlm_text t = {nullptr, 0};
   call(hlm_get_interaction_class_name, _rti, number(theHandle), &t);
   return takeText(t);
}

ParameterHandle
RTIambassadorImplementation::getParameterHandle (InteractionClassHandle whichClass,
                                                 std::wstring const & theName)
{
   uint32_t h = 0;
   call(hlm_get_parameter_handle, _rti, number(whichClass), Utf8(theName).str(), &h);
   return ParameterHandleFriend::fromValue(h);
}

std::wstring
RTIambassadorImplementation::getParameterName (InteractionClassHandle whichClass,
                                               ParameterHandle theHandle)
{
   hlm_text t = {nullptr, 0};
   call(hlm_get_parameter_name, _rti, number(whichClass), number(theHandle), &t);
   return takeText(t);
}

OrderType
RTIambassadorImplementation::getOrderType (std::wstring const & orderName)
{
   std::wstring n = lower(orderName);
   if (n == L"receive")
      return RECEIVE;
   if (n == L"timestamp")
      return TIMESTAMP;
   throw InvalidOrderName(orderName + L" (Receive or TimeStamp)");
}

std::wstring
RTIambassadorImplementation::getOrderName (OrderType orderType)
{
   switch (orderType)
   {
   case RECEIVE:
      return L"Receive";
   case TIMESTAMP:
      return L"TimeStamp";
   }
   throw InvalidOrderType(L"order type " + std::to_wstring(int(orderType)));
}

TransportationType
RTIambassadorImplementation::getTransportationType (std::wstring const & transportationName)
{
   std::wstring n = lower(transportationName);
   if (n == L"hlareliable")
      return RELIABLE;
   if (n == L"hlabesteffort")
      return BEST_EFFORT;
   throw InvalidTransportationName(transportationName + L" (HLAreliable or HLAbestEffort)");
}

std::wstring
RTIambassadorImplementation::getTransportationName (TransportationType transportationType)
{
   switch (transportationType)
   {
   case RELIABLE:
      return L"HLAreliable";
   case BEST_EFFORT:
      return L"HLAbestEffort";
   }
   throw InvalidTransportationType(L"transportation type " +
                                   std::to_wstring(int(transportationType)));
}

// Takes a handle list returned by the C ABI as a set of dimension handles.
static DimensionHandleSet
takeDimensions (hlm_handle_list list)
{
   DimensionHandleSet set;
   for (size_t i = 0; i < list.len; ++i)
      set.insert(DimensionHandleFriend::fromValue(list.ptr[i]));
   hlm_handle_list_free(list);
   return set;
}

DimensionHandleSet
RTIambassadorImplementation::getAvailableDimensionsForClassAttribute (ObjectClassHandle theClass,
                                                                      AttributeHandle theHandle)
{
   hlm_handle_list l = {nullptr, 0};
   call(hlm_get_available_dimensions_for_class_attribute, _rti, number(theClass),
        number(theHandle), &l);
   return takeDimensions(l);
}

DimensionHandleSet
RTIambassadorImplementation::getAvailableDimensionsForInteractionClass (
   InteractionClassHandle theClass)
{
   hlm_handle_list l = {nullptr, 0};
   call(hlm_get_available_dimensions_for_interaction_class, _rti, number(theClass), &l);
   return takeDimensions(l);
}

DimensionHandle
RTIambassadorImplementation::getDimensionHandle (std::wstring const & theName)
{
   uint32_t h = 0;
   call(hlm_get_dimension_handle, _rti, Utf8(theName).str(), &h);
   return DimensionHandleFriend::fromValue(h);
}

std::wstring
RTIambassadorImplementation::getDimensionName (DimensionHandle theHandle)
{
   hlm_text t = {nullptr, 0};
   call(hlm_get_dimension_name, _rti, number(theHandle), &t);
   return takeText(t);
}

unsigned long
RTIambassadorImplementation::getDimensionUpperBound (DimensionHandle theHandle)
{
   uint64_t v = 0;
   call(hlm_get_dimension_upper_bound, _rti, number(theHandle), &v);
   return static_cast<unsigned long>(v);
}

DimensionHandleSet
RTIambassadorImplementation::getDimensionHandleSet (RegionHandle theRegionHandle)
{
   hlm_handle_list l = {nullptr, 0};
   call(hlm_get_dimension_handle_set, _rti, uint64_t(RegionHandleFriend::value(theRegionHandle)),
        &l);
   return takeDimensions(l);
}

RangeBounds
RTIambassadorImplementation::getRangeBounds (RegionHandle theRegionHandle,
                                             DimensionHandle theDimensionHandle)
{
   hlm_range r = {0, 0};
   call(hlm_get_range_bounds, _rti, uint64_t(RegionHandleFriend::value(theRegionHandle)),
        number(theDimensionHandle), &r);
   return RangeBounds(static_cast<unsigned long>(r.lower), static_cast<unsigned long>(r.upper));
}

void
RTIambassadorImplementation::setRangeBounds (RegionHandle theRegionHandle,
                                             DimensionHandle theDimensionHandle,
                                             RangeBounds const & theRangeBounds)
{
   call(hlm_set_range_bounds, _rti, uint64_t(RegionHandleFriend::value(theRegionHandle)),
        number(theDimensionHandle), uint64_t(theRangeBounds.getLowerBound()),
        uint64_t(theRangeBounds.getUpperBound()));
}

unsigned long
RTIambassadorImplementation::normalizeFederateHandle (FederateHandle theFederateHandle)
{
   if (!theFederateHandle.isValid())
      throw InvalidFederateHandle(L"the invalid federate handle");
   uint64_t v = 0;
   call(hlm_normalize_federate_handle, _rti, number(theFederateHandle), &v);
   return static_cast<unsigned long>(v);
}

unsigned long
RTIambassadorImplementation::normalizeServiceGroup (ServiceGroup theServiceGroup)
{
   uint64_t v = 0;
   call(hlm_normalize_service_group, _rti, int32_t(theServiceGroup), &v);
   return static_cast<unsigned long>(v);
}

void RTIambassadorImplementation::enableObjectClassRelevanceAdvisorySwitch () { call(hlm_set_advisory_switch, _rti, int32_t(0), int32_t(1)); }
void RTIambassadorImplementation::disableObjectClassRelevanceAdvisorySwitch () { call(hlm_set_advisory_switch, _rti, int32_t(0), int32_t(0)); }
void RTIambassadorImplementation::enableAttributeRelevanceAdvisorySwitch () { call(hlm_set_advisory_switch, _rti, int32_t(1), int32_t(1)); }
void RTIambassadorImplementation::disableAttributeRelevanceAdvisorySwitch () { call(hlm_set_advisory_switch, _rti, int32_t(1), int32_t(0)); }
void RTIambassadorImplementation::enableAttributeScopeAdvisorySwitch () { call(hlm_set_advisory_switch, _rti, int32_t(2), int32_t(1)); }
void RTIambassadorImplementation::disableAttributeScopeAdvisorySwitch () { call(hlm_set_advisory_switch, _rti, int32_t(2), int32_t(0)); }
void RTIambassadorImplementation::enableInteractionRelevanceAdvisorySwitch () { call(hlm_set_advisory_switch, _rti, int32_t(3), int32_t(1)); }
void RTIambassadorImplementation::disableInteractionRelevanceAdvisorySwitch () { call(hlm_set_advisory_switch, _rti, int32_t(3), int32_t(0)); }

bool
RTIambassadorImplementation::evokeCallback (double approximateMinimumTimeInSeconds)
{
   int32_t more = 0;
   call(hlm_evoke_callback, _rti, approximateMinimumTimeInSeconds, &more);
   return more != 0;
}

bool
RTIambassadorImplementation::evokeMultipleCallbacks (double approximateMinimumTimeInSeconds,
                                                     double approximateMaximumTimeInSeconds)
{
   int32_t more = 0;
   call(hlm_evoke_multiple_callbacks, _rti, approximateMinimumTimeInSeconds,
        approximateMaximumTimeInSeconds, &more);
   return more != 0;
}

void RTIambassadorImplementation::enableCallbacks () { call(hlm_enable_callbacks, _rti); }
void RTIambassadorImplementation::disableCallbacks () { call(hlm_disable_callbacks, _rti); }

RTI_UNIQUE_PTR<LogicalTimeFactory>
RTIambassadorImplementation::getTimeFactory () const
{
   int32_t kind = HLM_TIME_FLOAT64;
   call(hlm_time_kind, _rti, &kind);
   if (kind == HLM_TIME_INTEGER64)
      return RTI_UNIQUE_PTR<LogicalTimeFactory>(new HLAinteger64TimeFactory());
   return RTI_UNIQUE_PTR<LogicalTimeFactory>(new HLAfloat64TimeFactory());
}

#define HLAMESH_DECODE(Kind)                                                                    \
   Kind RTIambassadorImplementation::decode##Kind (VariableLengthData const & encodedValue) const \
   {                                                                                            \
      return Kind##Friend::decode(encodedValue);                                                \
   }
HLAMESH_DECODE(FederateHandle)
HLAMESH_DECODE(ObjectClassHandle)
HLAMESH_DECODE(InteractionClassHandle)
HLAMESH_DECODE(ObjectInstanceHandle)
HLAMESH_DECODE(AttributeHandle)
HLAMESH_DECODE(ParameterHandle)
HLAMESH_DECODE(DimensionHandle)
HLAMESH_DECODE(MessageRetractionHandle)
HLAMESH_DECODE(RegionHandle)
#undef HLAMESH_DECODE

}
}

// ---------------------------------------------------------------- the factory (10.35)

namespace rti1516e
{

RTIambassadorFactory::RTIambassadorFactory () {}

RTIambassadorFactory::~RTIambassadorFactory () noexcept {}

RTI_UNIQUE_PTR<RTIambassador>
RTIambassadorFactory::createRTIambassador ()
{
   return RTI_UNIQUE_PTR<RTIambassador>(new hlamesh::capi::RTIambassadorImplementation());
}

}
