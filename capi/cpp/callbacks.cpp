// The callback trampoline: one hlm_event from Rust becomes one call of the federate's
// FederateAmbassador.  Arguments borrow the event's memory (values through
// VariableLengthData::setDataPointer, no copy) for the duration of the call.  Whatever the
// federate throws is caught here and reported to Rust (which logs and counts it): nothing
// unwinds into Rust.
//
// Overloads: the standard's optional arguments are delivered as its defaults say — discover
// without the producing federate (the convey-producing-federate switch is off), turnUpdatesOn
// without an update rate; reflect, receive and remove with a time when the message had one,
// and with the sender's retraction handle when it was sent in time-stamp order (also when it
// is delivered in receive order, to a federate that is not constrained: requestRetraction
// names that handle) or delivered in time-stamp order (the invalid handle if the RTI knows
// none: a message restored from a save); reflect and receive with the sent regions when the
// receiver's Convey Region Designator Sets switch is on and the message was sent with regions.

#include "rti_ambassador.h"
#include "convert.h"

#include <cstring>
#include <exception>

namespace hlamesh
{
namespace capi
{

namespace
{

std::wstring
text (char const * p, size_t n)
{
   return cpp::fromUtf8Lossy(p, n);
}

AttributeHandleSet
attributes (hlm_event const & e)
{
   AttributeHandleSet s;
   for (size_t i = 0; i < e.handles_len; ++i)
      s.insert(AttributeHandleFriend::fromValue(e.handles[i]));
   return s;
}

FederateHandleSet
federates (hlm_event const & e)
{
   FederateHandleSet s;
   for (size_t i = 0; i < e.handles_len; ++i)
      s.insert(FederateHandleFriend::fromValue(e.handles[i]));
   return s;
}

VariableLengthData
tag (hlm_event const & e)
{
   VariableLengthData v;
   if (e.tag_len > 0)
      v.setDataPointer(const_cast<uint8_t *>(e.tag), e.tag_len);
   return v;
}

template <typename Map, typename Friend>
Map
valueMap (hlm_event const & e)
{
   Map m;
   for (size_t i = 0; i < e.values_len; ++i)
   {
      VariableLengthData & v = m[Friend::fromValue(e.values[i].handle)];
      if (e.values[i].len > 0)
         v.setDataPointer(const_cast<uint8_t *>(e.values[i].ptr), e.values[i].len);
   }
   return m;
}

std::set<std::wstring>
names (hlm_event const & e)
{
   std::set<std::wstring> s;
   for (size_t i = 0; i < e.texts_len; ++i)
      s.insert(text(e.texts[i].ptr, e.texts[i].len));
   return s;
}

OrderType
order (int32_t o)
{
   return o == 2 ? TIMESTAMP : RECEIVE;
}

TransportationType
transportation (uint32_t t)
{
   return t == 2 ? BEST_EFFORT : RELIABLE;
}

ObjectInstanceHandle
objectOf (hlm_event const & e)
{
   return ObjectInstanceHandleFriend::fromValue(e.object);
}

// The sent regions of a reflection or interaction (Convey Region Designator Sets): handles of
// the receiving federate that getRangeBounds and getDimensionHandleSet take.
RegionHandleSet
sentRegions (hlm_event const & e)
{
   RegionHandleSet s;
   for (size_t i = 0; i < e.regions_len; ++i)
      s.insert(RegionHandleFriend::fromValue(e.regions[i]));
   return s;
}

void
deliver (FederateAmbassador & f, hlm_event const & e)
{
   switch (e.kind)
   {
   case HLM_EV_CONNECTION_LOST:
      return f.connectionLost(text(e.text, e.text_len));
   case HLM_EV_REPORT_FEDERATION_EXECUTIONS:
   {
      FederationExecutionInformationVector v;
      for (size_t i = 0; i < e.texts_len; ++i)
         v.push_back(FederationExecutionInformation(text(e.texts[i].ptr, e.texts[i].len),
                                                    text(e.texts2[i].ptr, e.texts2[i].len)));
      return f.reportFederationExecutions(v);
   }
   case HLM_EV_START_REGISTRATION:
      return f.startRegistrationForObjectClass(ObjectClassHandleFriend::fromValue(e.class_handle));
   case HLM_EV_STOP_REGISTRATION:
      return f.stopRegistrationForObjectClass(ObjectClassHandleFriend::fromValue(e.class_handle));
   case HLM_EV_TURN_INTERACTIONS_ON:
      return f.turnInteractionsOn(InteractionClassHandleFriend::fromValue(e.class_handle));
   case HLM_EV_TURN_INTERACTIONS_OFF:
      return f.turnInteractionsOff(InteractionClassHandleFriend::fromValue(e.class_handle));
   case HLM_EV_ATTRIBUTES_IN_SCOPE:
      return f.attributesInScope(objectOf(e), attributes(e));
   case HLM_EV_ATTRIBUTES_OUT_OF_SCOPE:
      return f.attributesOutOfScope(objectOf(e), attributes(e));
   case HLM_EV_TURN_UPDATES_ON:
      return f.turnUpdatesOnForObjectInstance(objectOf(e), attributes(e));
   case HLM_EV_TURN_UPDATES_OFF:
      return f.turnUpdatesOffForObjectInstance(objectOf(e), attributes(e));
   case HLM_EV_NAME_RESERVATION_SUCCEEDED:
      return f.objectInstanceNameReservationSucceeded(text(e.text, e.text_len));
   case HLM_EV_NAME_RESERVATION_FAILED:
      return f.objectInstanceNameReservationFailed(text(e.text, e.text_len));
   case HLM_EV_MULTIPLE_NAME_RESERVATION_SUCCEEDED:
      return f.multipleObjectInstanceNameReservationSucceeded(names(e));
   case HLM_EV_MULTIPLE_NAME_RESERVATION_FAILED:
      return f.multipleObjectInstanceNameReservationFailed(names(e));
   case HLM_EV_DISCOVER_OBJECT_INSTANCE:
      return f.discoverObjectInstance(objectOf(e),
                                      ObjectClassHandleFriend::fromValue(e.class_handle),
                                      text(e.text, e.text_len));
   case HLM_EV_REFLECT_ATTRIBUTE_VALUES:
   {
      auto values = valueMap<AttributeHandleValueMap, AttributeHandleFriend>(e);
      VariableLengthData t = tag(e);
      SupplementalReflectInfo info = e.has_regions
         ? SupplementalReflectInfo(FederateHandleFriend::fromValue(e.federate), sentRegions(e))
         : SupplementalReflectInfo(FederateHandleFriend::fromValue(e.federate));
      if (e.time.kind == HLM_TIME_NONE)
         return f.reflectAttributeValues(objectOf(e), values, t, order(e.sent_order),
                                         transportation(e.transportation), info);
      std::unique_ptr<LogicalTime> time = makeTime(e.time);
      if (e.retraction != 0 || e.received_order == 2)
         return f.reflectAttributeValues(objectOf(e), values, t, order(e.sent_order),
                                         transportation(e.transportation), *time,
                                         order(e.received_order),
                                         MessageRetractionHandleFriend::fromValue(e.retraction),
                                         info);
      return f.reflectAttributeValues(objectOf(e), values, t, order(e.sent_order),
                                      transportation(e.transportation), *time,
                                      order(e.received_order), info);
   }
   case HLM_EV_RECEIVE_INTERACTION:
   {
      auto values = valueMap<ParameterHandleValueMap, ParameterHandleFriend>(e);
      VariableLengthData t = tag(e);
      InteractionClassHandle c = InteractionClassHandleFriend::fromValue(e.class_handle);
      SupplementalReceiveInfo info = e.has_regions
         ? SupplementalReceiveInfo(FederateHandleFriend::fromValue(e.federate), sentRegions(e))
         : SupplementalReceiveInfo(FederateHandleFriend::fromValue(e.federate));
      if (e.time.kind == HLM_TIME_NONE)
         return f.receiveInteraction(c, values, t, order(e.sent_order),
                                     transportation(e.transportation), info);
      std::unique_ptr<LogicalTime> time = makeTime(e.time);
      if (e.retraction != 0 || e.received_order == 2)
         return f.receiveInteraction(c, values, t, order(e.sent_order),
                                     transportation(e.transportation), *time,
                                     order(e.received_order),
                                     MessageRetractionHandleFriend::fromValue(e.retraction), info);
      return f.receiveInteraction(c, values, t, order(e.sent_order),
                                  transportation(e.transportation), *time,
                                  order(e.received_order), info);
   }
   case HLM_EV_REMOVE_OBJECT_INSTANCE:
   {
      VariableLengthData t = tag(e);
      SupplementalRemoveInfo info;
      if (e.has_federate)
         info = SupplementalRemoveInfo(FederateHandleFriend::fromValue(e.federate));
      if (e.time.kind == HLM_TIME_NONE)
         return f.removeObjectInstance(objectOf(e), t, order(e.sent_order), info);
      std::unique_ptr<LogicalTime> time = makeTime(e.time);
      if (e.retraction != 0 || e.received_order == 2)
         return f.removeObjectInstance(objectOf(e), t, order(e.sent_order), *time,
                                       order(e.received_order),
                                     MessageRetractionHandleFriend::fromValue(e.retraction), info);
      return f.removeObjectInstance(objectOf(e), t, order(e.sent_order), *time,
                                    order(e.received_order), info);
   }
   case HLM_EV_PROVIDE_ATTRIBUTE_VALUE_UPDATE:
      return f.provideAttributeValueUpdate(objectOf(e), attributes(e), tag(e));
   case HLM_EV_REQUEST_ATTRIBUTE_OWNERSHIP_ASSUMPTION:
      return f.requestAttributeOwnershipAssumption(objectOf(e), attributes(e), tag(e));
   case HLM_EV_REQUEST_DIVESTITURE_CONFIRMATION:
      return f.requestDivestitureConfirmation(objectOf(e), attributes(e));
   case HLM_EV_ATTRIBUTE_OWNERSHIP_ACQUISITION_NOTIFICATION:
      return f.attributeOwnershipAcquisitionNotification(objectOf(e), attributes(e), tag(e));
   case HLM_EV_ATTRIBUTE_OWNERSHIP_UNAVAILABLE:
      return f.attributeOwnershipUnavailable(objectOf(e), attributes(e));
   case HLM_EV_REQUEST_ATTRIBUTE_OWNERSHIP_RELEASE:
      return f.requestAttributeOwnershipRelease(objectOf(e), attributes(e), tag(e));
   case HLM_EV_CONFIRM_ATTRIBUTE_OWNERSHIP_ACQUISITION_CANCELLATION:
      return f.confirmAttributeOwnershipAcquisitionCancellation(objectOf(e), attributes(e));
   case HLM_EV_INFORM_ATTRIBUTE_OWNERSHIP:
      return f.informAttributeOwnership(objectOf(e), AttributeHandleFriend::fromValue(e.attribute),
                                        FederateHandleFriend::fromValue(e.federate));
   case HLM_EV_ATTRIBUTE_IS_NOT_OWNED:
      return f.attributeIsNotOwned(objectOf(e), AttributeHandleFriend::fromValue(e.attribute));
   case HLM_EV_ATTRIBUTE_IS_OWNED_BY_RTI:
      return f.attributeIsOwnedByRTI(objectOf(e), AttributeHandleFriend::fromValue(e.attribute));
   case HLM_EV_TIME_REGULATION_ENABLED:
      return f.timeRegulationEnabled(*makeTime(e.time));
   case HLM_EV_TIME_CONSTRAINED_ENABLED:
      return f.timeConstrainedEnabled(*makeTime(e.time));
   case HLM_EV_TIME_ADVANCE_GRANT:
      return f.timeAdvanceGrant(*makeTime(e.time));
   case HLM_EV_SYNC_POINT_REGISTRATION_SUCCEEDED:
      return f.synchronizationPointRegistrationSucceeded(text(e.text, e.text_len));
   case HLM_EV_SYNC_POINT_REGISTRATION_FAILED:
      return f.synchronizationPointRegistrationFailed(
         text(e.text, e.text_len), static_cast<SynchronizationPointFailureReason>(e.reason));
   case HLM_EV_ANNOUNCE_SYNC_POINT:
      return f.announceSynchronizationPoint(text(e.text, e.text_len), tag(e));
   case HLM_EV_FEDERATION_SYNCHRONIZED:
      return f.federationSynchronized(text(e.text, e.text_len), federates(e));
   case HLM_EV_INITIATE_FEDERATE_SAVE:
      if (e.time.kind == HLM_TIME_NONE)
         return f.initiateFederateSave(text(e.text, e.text_len));
      return f.initiateFederateSave(text(e.text, e.text_len), *makeTime(e.time));
   case HLM_EV_FEDERATION_SAVED:
      return f.federationSaved();
   case HLM_EV_FEDERATION_NOT_SAVED:
      return f.federationNotSaved(static_cast<SaveFailureReason>(e.reason));
   case HLM_EV_FEDERATION_SAVE_STATUS_RESPONSE:
   {
      FederateHandleSaveStatusPairVector v;
      for (size_t i = 0; i < e.handles_len; ++i)
         v.push_back(FederateHandleSaveStatusPair(FederateHandleFriend::fromValue(e.handles[i]),
                                                  static_cast<SaveStatus>(e.statuses[i])));
      return f.federationSaveStatusResponse(v);
   }
   case HLM_EV_REQUEST_FEDERATION_RESTORE_SUCCEEDED:
      return f.requestFederationRestoreSucceeded(text(e.text, e.text_len));
   case HLM_EV_REQUEST_FEDERATION_RESTORE_FAILED:
      return f.requestFederationRestoreFailed(text(e.text, e.text_len));
   case HLM_EV_FEDERATION_RESTORE_BEGUN:
      return f.federationRestoreBegun();
   case HLM_EV_INITIATE_FEDERATE_RESTORE:
      return f.initiateFederateRestore(text(e.text, e.text_len), text(e.text2, e.text2_len),
                                       FederateHandleFriend::fromValue(e.federate));
   case HLM_EV_FEDERATION_RESTORED:
      return f.federationRestored();
   case HLM_EV_FEDERATION_NOT_RESTORED:
      return f.federationNotRestored(static_cast<RestoreFailureReason>(e.reason));
   case HLM_EV_REQUEST_RETRACTION:
      return f.requestRetraction(MessageRetractionHandleFriend::fromValue(e.retraction));
   case HLM_EV_FEDERATION_RESTORE_STATUS_RESPONSE:
   {
      FederateRestoreStatusVector v;
      for (size_t i = 0; i < e.handles_len; ++i)
         v.push_back(FederateRestoreStatus(FederateHandleFriend::fromValue(e.handles[i]),
                                           FederateHandleFriend::fromValue(e.handles2[i]),
                                           static_cast<RestoreStatus>(e.statuses[i])));
      return f.federationRestoreStatusResponse(v);
   }
   default:
      return;
   }
}

void
describe (char * what, size_t cap, std::string const & s)
{
   if (what == nullptr || cap == 0)
      return;
   size_t n = s.size() < cap - 1 ? s.size() : cap - 1;
   std::memcpy(what, s.data(), n);
   what[n] = '\0';
}

}

extern "C" int32_t
hlamesh_on_event (void * ctx, hlm_event const * event, char * what, size_t what_cap)
{
   try
   {
      auto * rti = static_cast<RTIambassadorImplementation *>(ctx);
      FederateAmbassador * f = rti != nullptr ? rti->federate() : nullptr;
      if (f == nullptr || event == nullptr)
         return 0;
      deliver(*f, *event);
      return 0;
   }
   catch (rti1516e::Exception const & e)
   {
      describe(what, what_cap, cpp::toUtf8Lossy(e.what()));
   }
   catch (std::exception const & e)
   {
      describe(what, what_cap, e.what());
   }
   catch (...)
   {
      describe(what, what_cap, "an exception of unknown type");
   }
   return 1;
}

}
}
