// LogicalTimeFactoryFactory, the one symbol of the fedtime library: a federation that brings
// its own time implementation replaces this library; hlamesh's provides the two standard ones.
//
// It goes through HLAlogicalTimeFactoryFactory, which librti1516e exports (RTI_EXPORT), and not
// through the library's internal helper: librti1516e.so hides everything the headers do not
// export, so a shared libfedtime1516e.so may use only the public API.

#include <RTI/LogicalTimeFactory.h>

namespace rti1516e
{

RTI_UNIQUE_PTR<LogicalTimeFactory>
LogicalTimeFactoryFactory::makeLogicalTimeFactory (std::wstring const & implementationName)
{
   return HLAlogicalTimeFactoryFactory::makeLogicalTimeFactory(implementationName);
}

}
