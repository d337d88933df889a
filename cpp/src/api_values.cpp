// The API's plain value classes (Typedefs.h, RangeBounds.h) and the constructors and
// destructors of the two ambassador base classes, which federates' own classes derive from.

#include <RTI/FederateAmbassador.h>
#include <RTI/RTIambassador.h>
#include <RTI/RangeBounds.h>
#include <RTI/Typedefs.h>

namespace rti1516e
{

FederateRestoreStatus::FederateRestoreStatus (FederateHandle const & thePreHandle,
                                              FederateHandle const & thePostHandle,
                                              RestoreStatus theStatus)
   : preRestoreHandle(thePreHandle), postRestoreHandle(thePostHandle), status(theStatus)
{
}

FederationExecutionInformation::FederationExecutionInformation (
   std::wstring const & theFederationExecutionName,
   std::wstring const & theLogicalTimeImplementationName)
   : federationExecutionName(theFederationExecutionName),
     logicalTimeImplementationName(theLogicalTimeImplementationName)
{
}

SupplementalReflectInfo::SupplementalReflectInfo ()
   : hasProducingFederate(false), hasSentRegions(false)
{
}

SupplementalReflectInfo::SupplementalReflectInfo (FederateHandle const & theFederateHandle)
   : hasProducingFederate(true), hasSentRegions(false), producingFederate(theFederateHandle)
{
}

SupplementalReflectInfo::SupplementalReflectInfo (RegionHandleSet const & theRegionHandleSet)
   : hasProducingFederate(false), hasSentRegions(true), sentRegions(theRegionHandleSet)
{
}

SupplementalReflectInfo::SupplementalReflectInfo (FederateHandle const & theFederateHandle,
                                                  RegionHandleSet const & theRegionHandleSet)
   : hasProducingFederate(true),
     hasSentRegions(true),
     producingFederate(theFederateHandle),
     sentRegions(theRegionHandleSet)
{
}

SupplementalReceiveInfo::SupplementalReceiveInfo ()
   : hasProducingFederate(false), hasSentRegions(false)
{
}

SupplementalReceiveInfo::SupplementalReceiveInfo (FederateHandle const & theFederateHandle)
   : hasProducingFederate(true), hasSentRegions(false), producingFederate(theFederateHandle)
{
}

SupplementalReceiveInfo::SupplementalReceiveInfo (RegionHandleSet const & theRegionHandleSet)
   : hasProducingFederate(false), hasSentRegions(true), sentRegions(theRegionHandleSet)
{
}

SupplementalReceiveInfo::SupplementalReceiveInfo (FederateHandle const & theFederateHandle,
                                                  RegionHandleSet const & theRegionHandleSet)
   : hasProducingFederate(true),
     hasSentRegions(true),
     producingFederate(theFederateHandle),
     sentRegions(theRegionHandleSet)
{
}

SupplementalRemoveInfo::SupplementalRemoveInfo () : hasProducingFederate(false) {}

SupplementalRemoveInfo::SupplementalRemoveInfo (FederateHandle const & theFederateHandle)
   : hasProducingFederate(true), producingFederate(theFederateHandle)
{
}

RangeBounds::RangeBounds () : _lowerBound(0), _upperBound(0) {}

RangeBounds::RangeBounds (unsigned long lowerBound, unsigned long upperBound)
   : _lowerBound(lowerBound), _upperBound(upperBound)
{
}

RangeBounds::~RangeBounds () noexcept {}

RangeBounds::RangeBounds (RangeBounds const & rhs)
   : _lowerBound(rhs._lowerBound), _upperBound(rhs._upperBound)
{
}

RangeBounds &
RangeBounds::operator= (RangeBounds const & rhs)
{
   _lowerBound = rhs._lowerBound;
   _upperBound = rhs._upperBound;
   return *this;
}

unsigned long
RangeBounds::getLowerBound () const
{
   return _lowerBound;
}

unsigned long
RangeBounds::getUpperBound () const
{
   return _upperBound;
}

void
RangeBounds::setLowerBound (unsigned long lowerBound)
{
   _lowerBound = lowerBound;
}

void
RangeBounds::setUpperBound (unsigned long upperBound)
{
   _upperBound = upperBound;
}

FederateAmbassador::FederateAmbassador () {}

FederateAmbassador::~FederateAmbassador () noexcept {}

RTIambassador::RTIambassador () noexcept {}

RTIambassador::~RTIambassador () {}

}
