// The built-in logical time implementations by name, for HLAlogicalTimeFactoryFactory (in the
// RTI library) and LogicalTimeFactoryFactory (in the fedtime library).

#ifndef HLAMESH_CPP_FACTORY_BY_NAME_H
#define HLAMESH_CPP_FACTORY_BY_NAME_H

#include <RTI/LogicalTimeFactory.h>

namespace hlamesh
{
namespace cpp
{

// "HLAfloat64Time" (also the empty name, the standard's default) and "HLAinteger64Time";
// an empty pointer for any other name, which the RTI turns into
// CouldNotCreateLogicalTimeFactory.
rti1516e::OwnedPtr<rti1516e::LogicalTimeFactory>
builtinTimeFactory (std::wstring const & implementationName);

}
}

#endif
