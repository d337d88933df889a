// HLAlogicalTimeFactoryFactory: the standard's two time implementations by name.

#include "factory_by_name.h"

#include <RTI/time/HLAfloat64TimeFactory.h>
#include <RTI/time/HLAinteger64TimeFactory.h>

namespace hlamesh
{
namespace cpp
{

rti1516e::OwnedPtr<rti1516e::LogicalTimeFactory>
builtinTimeFactory (std::wstring const & implementationName)
{
   if (implementationName.empty() || implementationName == rti1516e::HLAfloat64TimeName) {
      return rti1516e::OwnedPtr<rti1516e::LogicalTimeFactory>(new rti1516e::HLAfloat64TimeFactory);
   }
   if (implementationName == rti1516e::HLAinteger64TimeName) {
      return rti1516e::OwnedPtr<rti1516e::LogicalTimeFactory>(new rti1516e::HLAinteger64TimeFactory);
   }
   return rti1516e::OwnedPtr<rti1516e::LogicalTimeFactory>();
}

}
}

namespace rti1516e
{

RTI_UNIQUE_PTR<LogicalTimeFactory>
HLAlogicalTimeFactoryFactory::makeLogicalTimeFactory (std::wstring const & implementationName)
{
   return hlamesh::cpp::builtinTimeFactory(implementationName);
}

}
