// LogicalTimeFactoryFactory, the one symbol of the fedtime library: a federation that brings
// its own time implementation replaces this library; hlamesh's provides the two standard ones.

#include "../time/factory_by_name.h"

namespace rti1516e
{

RTI_UNIQUE_PTR<LogicalTimeFactory>
LogicalTimeFactoryFactory::makeLogicalTimeFactory (std::wstring const & implementationName)
{
   return hlamesh::cpp::builtinTimeFactory(implementationName);
}

}
