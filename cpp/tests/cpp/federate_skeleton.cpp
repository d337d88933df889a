// The shape of a federate's ambassador: a class derived from NullFederateAmbassador with a few
// callbacks overridden, as federates written for other RTIs have them.  It must build without
// warnings and link against the library (the ambassador base classes' constructors and
// destructors are in it).

#include <RTI/NullFederateAmbassador.h>
#include <RTI/RTI1516.h>

#include <cstdio>
#include <map>

using namespace rti1516e;

class Viewer : public NullFederateAmbassador
{
public:
   void reflectAttributeValues (ObjectInstanceHandle theObject,
                                AttributeHandleValueMap const & theAttributeValues,
                                VariableLengthData const &, OrderType, TransportationType,
                                SupplementalReflectInfo) override
   {
      reflections[theObject] += theAttributeValues.size();
   }

   void timeAdvanceGrant (LogicalTime const & theTime) override
   {
      granted = theTime.toString();
   }

   std::map<ObjectInstanceHandle, size_t> reflections;
   std::wstring granted;
};

int
main ()
{
   Viewer viewer;
   AttributeHandleValueMap values;
   values[AttributeHandle()] = VariableLengthData("x", 1);
   FederateAmbassador & ambassador = viewer;
   ambassador.reflectAttributeValues(ObjectInstanceHandle(), values, VariableLengthData(),
                                     RECEIVE, RELIABLE, SupplementalReflectInfo());
   ambassador.discoverObjectInstance(ObjectInstanceHandle(), ObjectClassHandle(), L"car-1");
   FederationExecutionInformationVector list;
   list.push_back(FederationExecutionInformation(L"demo", L"HLAfloat64Time"));
   ambassador.reportFederationExecutions(list);
   if (viewer.reflections.size() != 1 || viewer.reflections.begin()->second != 1) {
      return 1;
   }
   std::printf("ok\n");
   return 0;
}
