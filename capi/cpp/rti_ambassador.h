// The RTIambassador over hlamesh's C ABI (capi/include/hlamesh/hlm.h).
//
// Every method converts its arguments (std::wstring to UTF-8, handles to numbers, times to
// hlm_time), calls the hlm_* function and throws the standard exception class the code names,
// with the message.  Callbacks come back through onEvent (callbacks.cpp), which calls the
// federate's FederateAmbassador and catches whatever it throws.  The declarations below are
// the standard's pure virtual methods, all of them (the class is concrete).

#ifndef HLAMESH_CAPI_RTI_AMBASSADOR_H
#define HLAMESH_CAPI_RTI_AMBASSADOR_H

#include <RTI/RTIambassador.h>
#include <RTI/FederateAmbassador.h>
#include <RTI/LogicalTimeFactory.h>
#include <RTI/RangeBounds.h>

#include <hlamesh/hlm.h>

#include <atomic>

namespace hlamesh
{
namespace capi
{

using namespace rti1516e;

class RTIambassadorImplementation : public RTIambassador
{
public:
   RTIambassadorImplementation ();
   ~RTIambassadorImplementation () override;

   RTIambassadorImplementation (RTIambassadorImplementation const &) = delete;
   RTIambassadorImplementation & operator= (RTIambassadorImplementation const &) = delete;

   // The federate's ambassador (set at connect) and the C handle, for the trampoline.
   FederateAmbassador * federate () const { return _federate.load(); }
   hlm_rti * handle () const { return _rti; }

   virtual void connect ( FederateAmbassador & federateAmbassador, CallbackModel theCallbackModel, std::wstring const & localSettingsDesignator) override;
   virtual void disconnect () override;
   virtual void createFederationExecution ( std::wstring const & federationExecutionName, std::wstring const & fomModule, std::wstring const & logicalTimeImplementationName) override;
   virtual void createFederationExecution ( std::wstring const & federationExecutionName, std::vector<std::wstring> const & fomModules, std::wstring const & logicalTimeImplementationName) override;
   virtual void createFederationExecutionWithMIM ( std::wstring const & federationExecutionName, std::vector<std::wstring> const & fomModules, std::wstring const & mimModule, std::wstring const & logicalTimeImplementationName) override;
   virtual void destroyFederationExecution ( std::wstring const & federationExecutionName) override;
   virtual void listFederationExecutions () override;
   virtual FederateHandle joinFederationExecution ( std::wstring const & federateType, std::wstring const & federationExecutionName, std::vector<std::wstring> const & additionalFomModules) override;
   virtual FederateHandle joinFederationExecution ( std::wstring const & federateName, std::wstring const & federateType, std::wstring const & federationExecutionName, std::vector<std::wstring> const & additionalFomModules) override;
   virtual void resignFederationExecution ( ResignAction resignAction) override;
   virtual void registerFederationSynchronizationPoint ( std::wstring const & label, VariableLengthData const & theUserSuppliedTag) override;
   virtual void registerFederationSynchronizationPoint ( std::wstring const & label, VariableLengthData const & theUserSuppliedTag, FederateHandleSet const & synchronizationSet) override;
   virtual void synchronizationPointAchieved ( std::wstring const & label, bool successfully) override;
   virtual void requestFederationSave ( std::wstring const & label) override;
   virtual void requestFederationSave ( std::wstring const & label, LogicalTime const & theTime) override;
   virtual void federateSaveBegun () override;
   virtual void federateSaveComplete () override;
   virtual void federateSaveNotComplete () override;
   virtual void abortFederationSave () override;
   virtual void queryFederationSaveStatus () override;
   virtual void requestFederationRestore ( std::wstring const & label) override;
   virtual void federateRestoreComplete () override;
   virtual void federateRestoreNotComplete () override;
   virtual void abortFederationRestore () override;
   virtual void queryFederationRestoreStatus () override;
   virtual void publishObjectClassAttributes ( ObjectClassHandle theClass, AttributeHandleSet const & attributeList) override;
   virtual void unpublishObjectClass ( ObjectClassHandle theClass) override;
   virtual void unpublishObjectClassAttributes ( ObjectClassHandle theClass, AttributeHandleSet const & attributeList) override;
   virtual void publishInteractionClass ( InteractionClassHandle theInteraction) override;
   virtual void unpublishInteractionClass ( InteractionClassHandle theInteraction) override;
   virtual void subscribeObjectClassAttributes ( ObjectClassHandle theClass, AttributeHandleSet const & attributeList, bool active, std::wstring const & updateRateDesignator) override;
   virtual void unsubscribeObjectClass ( ObjectClassHandle theClass) override;
   virtual void unsubscribeObjectClassAttributes ( ObjectClassHandle theClass, AttributeHandleSet const & attributeList) override;
   virtual void subscribeInteractionClass ( InteractionClassHandle theClass, bool active) override;
   virtual void unsubscribeInteractionClass ( InteractionClassHandle theClass) override;
   virtual void reserveObjectInstanceName ( std::wstring const & theObjectInstanceName) override;
   virtual void releaseObjectInstanceName ( std::wstring const & theObjectInstanceName) override;
   virtual void reserveMultipleObjectInstanceName ( std::set<std::wstring> const & theObjectInstanceNames) override;
   virtual void releaseMultipleObjectInstanceName ( std::set<std::wstring> const & theObjectInstanceNames) override;
   virtual ObjectInstanceHandle registerObjectInstance ( ObjectClassHandle theClass) override;
   virtual ObjectInstanceHandle registerObjectInstance ( ObjectClassHandle theClass, std::wstring const & theObjectInstanceName) override;
   virtual void updateAttributeValues ( ObjectInstanceHandle theObject, AttributeHandleValueMap const & theAttributeValues, VariableLengthData const & theUserSuppliedTag) override;
   virtual MessageRetractionHandle updateAttributeValues ( ObjectInstanceHandle theObject, AttributeHandleValueMap const & theAttributeValues, VariableLengthData const & theUserSuppliedTag, LogicalTime const & theTime) override;
   virtual void sendInteraction ( InteractionClassHandle theInteraction, ParameterHandleValueMap const & theParameterValues, VariableLengthData const & theUserSuppliedTag) override;
   virtual MessageRetractionHandle sendInteraction ( InteractionClassHandle theInteraction, ParameterHandleValueMap const & theParameterValues, VariableLengthData const & theUserSuppliedTag, LogicalTime const & theTime) override;
   virtual void deleteObjectInstance ( ObjectInstanceHandle theObject, VariableLengthData const & theUserSuppliedTag) override;
   virtual MessageRetractionHandle deleteObjectInstance ( ObjectInstanceHandle theObject, VariableLengthData const & theUserSuppliedTag, LogicalTime const & theTime) override;
   virtual void localDeleteObjectInstance ( ObjectInstanceHandle theObject) override;
   virtual void requestAttributeValueUpdate ( ObjectInstanceHandle theObject, AttributeHandleSet const & theAttributes, VariableLengthData const & theUserSuppliedTag) override;
   virtual void requestAttributeValueUpdate ( ObjectClassHandle theClass, AttributeHandleSet const & theAttributes, VariableLengthData const & theUserSuppliedTag) override;
   virtual void requestAttributeTransportationTypeChange ( ObjectInstanceHandle theObject, AttributeHandleSet const & theAttributes, TransportationType theType) override;
   virtual void queryAttributeTransportationType ( ObjectInstanceHandle theObject, AttributeHandle theAttribute) override;
   virtual void requestInteractionTransportationTypeChange ( InteractionClassHandle theClass, TransportationType theType) override;
   virtual void queryInteractionTransportationType ( FederateHandle theFederate, InteractionClassHandle theInteraction) override;
   virtual void unconditionalAttributeOwnershipDivestiture ( ObjectInstanceHandle theObject, AttributeHandleSet const & theAttributes) override;
   virtual void negotiatedAttributeOwnershipDivestiture ( ObjectInstanceHandle theObject, AttributeHandleSet const & theAttributes, VariableLengthData const & theUserSuppliedTag) override;
   virtual void confirmDivestiture ( ObjectInstanceHandle theObject, AttributeHandleSet const & confirmedAttributes, VariableLengthData const & theUserSuppliedTag) override;
   virtual void attributeOwnershipAcquisition ( ObjectInstanceHandle theObject, AttributeHandleSet const & desiredAttributes, VariableLengthData const & theUserSuppliedTag) override;
   virtual void attributeOwnershipAcquisitionIfAvailable ( ObjectInstanceHandle theObject, AttributeHandleSet const & desiredAttributes) override;
   virtual void attributeOwnershipReleaseDenied ( ObjectInstanceHandle theObject, AttributeHandleSet const & theAttributes) override;
   virtual void attributeOwnershipDivestitureIfWanted ( ObjectInstanceHandle theObject, AttributeHandleSet const & theAttributes, AttributeHandleSet & theDivestedAttributes) override;
   virtual void cancelNegotiatedAttributeOwnershipDivestiture ( ObjectInstanceHandle theObject, AttributeHandleSet const & theAttributes) override;
   virtual void cancelAttributeOwnershipAcquisition ( ObjectInstanceHandle theObject, AttributeHandleSet const & theAttributes) override;
   virtual void queryAttributeOwnership ( ObjectInstanceHandle theObject, AttributeHandle theAttribute) override;
   virtual bool isAttributeOwnedByFederate ( ObjectInstanceHandle theObject, AttributeHandle theAttribute) override;
   virtual void enableTimeRegulation ( LogicalTimeInterval const & theLookahead) override;
   virtual void disableTimeRegulation () override;
   virtual void enableTimeConstrained () override;
   virtual void disableTimeConstrained () override;
   virtual void timeAdvanceRequest ( LogicalTime const & theTime) override;
   virtual void timeAdvanceRequestAvailable ( LogicalTime const & theTime) override;
   virtual void nextMessageRequest ( LogicalTime const & theTime) override;
   virtual void nextMessageRequestAvailable ( LogicalTime const & theTime) override;
   virtual void flushQueueRequest ( LogicalTime const & theTime) override;
   virtual void enableAsynchronousDelivery () override;
   virtual void disableAsynchronousDelivery () override;
   virtual bool queryGALT (LogicalTime & theTime) override;
   virtual void queryLogicalTime (LogicalTime & theTime) override;
   virtual bool queryLITS (LogicalTime & theTime) override;
   virtual void modifyLookahead ( LogicalTimeInterval const & theLookahead) override;
   virtual void queryLookahead (LogicalTimeInterval & interval) override;
   virtual void retract ( MessageRetractionHandle theHandle) override;
   virtual void changeAttributeOrderType ( ObjectInstanceHandle theObject, AttributeHandleSet const & theAttributes, OrderType theType) override;
   virtual void changeInteractionOrderType ( InteractionClassHandle theClass, OrderType theType) override;
   virtual RegionHandle createRegion ( DimensionHandleSet const & theDimensions) override;
   virtual void commitRegionModifications ( RegionHandleSet const & theRegionHandleSet) override;
   virtual void deleteRegion ( RegionHandle const & theRegion) override;
   virtual ObjectInstanceHandle registerObjectInstanceWithRegions ( ObjectClassHandle theClass, AttributeHandleSetRegionHandleSetPairVector const & theAttributeHandleSetRegionHandleSetPairVector) override;
   virtual ObjectInstanceHandle registerObjectInstanceWithRegions ( ObjectClassHandle theClass, AttributeHandleSetRegionHandleSetPairVector const & theAttributeHandleSetRegionHandleSetPairVector, std::wstring const & theObjectInstanceName) override;
   virtual void associateRegionsForUpdates ( ObjectInstanceHandle theObject, AttributeHandleSetRegionHandleSetPairVector const & theAttributeHandleSetRegionHandleSetPairVector) override;
   virtual void unassociateRegionsForUpdates ( ObjectInstanceHandle theObject, AttributeHandleSetRegionHandleSetPairVector const & theAttributeHandleSetRegionHandleSetPairVector) override;
   virtual void subscribeObjectClassAttributesWithRegions ( ObjectClassHandle theClass, AttributeHandleSetRegionHandleSetPairVector const & theAttributeHandleSetRegionHandleSetPairVector, bool active, std::wstring const & updateRateDesignator) override;
   virtual void unsubscribeObjectClassAttributesWithRegions ( ObjectClassHandle theClass, AttributeHandleSetRegionHandleSetPairVector const & theAttributeHandleSetRegionHandleSetPairVector) override;
   virtual void subscribeInteractionClassWithRegions ( InteractionClassHandle theClass, RegionHandleSet const & theRegionHandleSet, bool active) override;
   virtual void unsubscribeInteractionClassWithRegions ( InteractionClassHandle theClass, RegionHandleSet const & theRegionHandleSet) override;
   virtual void sendInteractionWithRegions ( InteractionClassHandle theInteraction, ParameterHandleValueMap const & theParameterValues, RegionHandleSet const & theRegionHandleSet, VariableLengthData const & theUserSuppliedTag) override;
   virtual MessageRetractionHandle sendInteractionWithRegions ( InteractionClassHandle theInteraction, ParameterHandleValueMap const & theParameterValues, RegionHandleSet const & theRegionHandleSet, VariableLengthData const & theUserSuppliedTag, LogicalTime const & theTime) override;
   virtual void requestAttributeValueUpdateWithRegions ( ObjectClassHandle theClass, AttributeHandleSetRegionHandleSetPairVector const & theSet, VariableLengthData const & theUserSuppliedTag) override;
   virtual ResignAction getAutomaticResignDirective () override;
   virtual void setAutomaticResignDirective ( ResignAction resignAction) override;
   virtual FederateHandle getFederateHandle ( std::wstring const & theName) override;
   virtual std::wstring getFederateName ( FederateHandle theHandle) override;
   virtual ObjectClassHandle getObjectClassHandle ( std::wstring const & theName) override;
   virtual std::wstring getObjectClassName ( ObjectClassHandle theHandle) override;
   virtual ObjectClassHandle getKnownObjectClassHandle ( ObjectInstanceHandle theObject) override;
   virtual ObjectInstanceHandle getObjectInstanceHandle ( std::wstring const & theName) override;
   virtual std::wstring getObjectInstanceName ( ObjectInstanceHandle theHandle) override;
   virtual AttributeHandle getAttributeHandle ( ObjectClassHandle whichClass, std::wstring const & theAttributeName) override;
   virtual std::wstring getAttributeName ( ObjectClassHandle whichClass, AttributeHandle theHandle) override;
   virtual double getUpdateRateValue ( std::wstring const & updateRateDesignator) override;
   virtual double getUpdateRateValueForAttribute ( ObjectInstanceHandle theObject, AttributeHandle theAttribute) override;
   virtual InteractionClassHandle getInteractionClassHandle ( std::wstring const & theName) override;
   virtual std::wstring getInteractionClassName ( InteractionClassHandle theHandle) override;
   virtual ParameterHandle getParameterHandle ( InteractionClassHandle whichClass, std::wstring const & theName) override;
   virtual std::wstring getParameterName ( InteractionClassHandle whichClass, ParameterHandle theHandle) override;
   virtual OrderType getOrderType ( std::wstring const & orderName) override;
   virtual std::wstring getOrderName ( OrderType orderType) override;
   virtual TransportationType getTransportationType ( std::wstring const & transportationName) override;
   virtual std::wstring getTransportationName ( TransportationType transportationType) override;
   virtual DimensionHandleSet getAvailableDimensionsForClassAttribute ( ObjectClassHandle theClass, AttributeHandle theHandle) override;
   virtual DimensionHandleSet getAvailableDimensionsForInteractionClass ( InteractionClassHandle theClass) override;
   virtual DimensionHandle getDimensionHandle ( std::wstring const & theName) override;
   virtual std::wstring getDimensionName ( DimensionHandle theHandle) override;
   virtual unsigned long getDimensionUpperBound ( DimensionHandle theHandle) override;
   virtual DimensionHandleSet getDimensionHandleSet ( RegionHandle theRegionHandle) override;
   virtual RangeBounds getRangeBounds ( RegionHandle theRegionHandle, DimensionHandle theDimensionHandle) override;
   virtual void setRangeBounds ( RegionHandle theRegionHandle, DimensionHandle theDimensionHandle, RangeBounds const & theRangeBounds) override;
   virtual unsigned long normalizeFederateHandle ( FederateHandle theFederateHandle) override;
   virtual unsigned long normalizeServiceGroup ( ServiceGroup theServiceGroup) override;
   virtual void enableObjectClassRelevanceAdvisorySwitch () override;
   virtual void disableObjectClassRelevanceAdvisorySwitch () override;
   virtual void enableAttributeRelevanceAdvisorySwitch () override;
   virtual void disableAttributeRelevanceAdvisorySwitch () override;
   virtual void enableAttributeScopeAdvisorySwitch () override;
   virtual void disableAttributeScopeAdvisorySwitch () override;
   virtual void enableInteractionRelevanceAdvisorySwitch () override;
   virtual void disableInteractionRelevanceAdvisorySwitch () override;
   virtual bool evokeCallback ( double approximateMinimumTimeInSeconds) override;
   virtual bool evokeMultipleCallbacks ( double approximateMinimumTimeInSeconds, double approximateMaximumTimeInSeconds) override;
   virtual void enableCallbacks () override;
   virtual void disableCallbacks () override;
   virtual RTI_UNIQUE_PTR<LogicalTimeFactory> getTimeFactory () const override;
   virtual FederateHandle decodeFederateHandle ( VariableLengthData const & encodedValue) const override;
   virtual ObjectClassHandle decodeObjectClassHandle ( VariableLengthData const & encodedValue) const override;
   virtual InteractionClassHandle decodeInteractionClassHandle ( VariableLengthData const & encodedValue) const override;
   virtual ObjectInstanceHandle decodeObjectInstanceHandle ( VariableLengthData const & encodedValue) const override;
   virtual AttributeHandle decodeAttributeHandle ( VariableLengthData const & encodedValue) const override;
   virtual ParameterHandle decodeParameterHandle ( VariableLengthData const & encodedValue) const override;
   virtual DimensionHandle decodeDimensionHandle ( VariableLengthData const & encodedValue) const override;
   virtual MessageRetractionHandle decodeMessageRetractionHandle ( VariableLengthData const & encodedValue) const override;
   virtual RegionHandle decodeRegionHandle ( VariableLengthData const & encodedValue) const override;

private:
   hlm_rti * _rti;
   std::atomic<FederateAmbassador *> _federate;
};

// hlm_event_fn: delivers one callback to the federate's ambassador (callbacks.cpp).
extern "C" int32_t hlamesh_on_event (void * ctx, hlm_event const * event, char * what, size_t what_cap);

}
}

#endif
