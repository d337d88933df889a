// The factory functions return rti1516e::OwnedPtr: federates hold the results in
// std::auto_ptr (code written for the 2010 text and Pitch's headers) or std::unique_ptr (code
// written for OpenRTI under C++17), and both compile and own the object.  Built with
// -DHLAMESH_TEST_NO_AUTO_PTR, only the std::unique_ptr forms are used (for standard libraries
// without std::auto_ptr).

#include "check.h"

#include <RTI/encoding/BasicDataElements.h>
#include <RTI/time/HLAfloat64Interval.h>
#include <RTI/time/HLAfloat64Time.h>
#include <RTI/time/HLAfloat64TimeFactory.h>

#include <memory>

using namespace rti1516e;

// A federate's own DataElement, written against OpenRTI's spelling of the return type.
class Celsius : public HLAfloat64BE
{
public:
   explicit Celsius (double v) : HLAfloat64BE(v) {}
   RTI_UNIQUE_PTR<DataElement> clone () const override
   {
      return RTI_UNIQUE_PTR<DataElement>(new Celsius(get()));
   }
};

static int live = 0;

class Counted : public HLAinteger32BE
{
public:
   Counted () { ++live; }
   Counted (Counted const & rhs) : HLAinteger32BE(rhs) { ++live; }
   ~Counted () override { --live; }
   RTI_UNIQUE_PTR<DataElement> clone () const override
   {
      return RTI_UNIQUE_PTR<DataElement>(new Counted(*this));
   }
};

static void
uniquePtrForms ()
{
   HLAfloat64TimeFactory factory;
   std::unique_ptr<LogicalTime> a = factory.makeInitial();
   std::unique_ptr<LogicalTime> b(factory.makeFinal());
   std::unique_ptr<HLAfloat64Time> c = factory.makeLogicalTime(2.0);
   std::unique_ptr<LogicalTime> d = factory.makeLogicalTime(3.0);  // to a base
   std::unique_ptr<LogicalTimeInterval> e;
   e = factory.makeZero();
   std::shared_ptr<LogicalTime> f = factory.makeLogicalTime(4.0);
   CHECK(a->isInitial() && b->isFinal() && c->getTime() == 2.0 && e->isZero());
   CHECK(*d == HLAfloat64Time(3.0) && *f == HLAfloat64Time(4.0));

   auto g = factory.makeLogicalTime(5.0);
   CHECK(g && g->getTime() == 5.0 && (*g).getTime() == 5.0 && g.get() != nullptr);
   HLAfloat64Time * raw = g.release();
   CHECK(!g && g == nullptr);
   g.reset(raw);
   CHECK(g != nullptr);
   std::unique_ptr<HLAfloat64Time> moved = std::move(g);
   CHECK(!g && moved->getTime() == 5.0);

   OwnedPtr<DataElement> fromUnique(std::unique_ptr<Celsius>(new Celsius(1.0)));
   CHECK(fromUnique && fromUnique->getOctetBoundary() == 8);

   Celsius temp(21.5);
   std::unique_ptr<DataElement> copy = temp.clone();
   CHECK(dynamic_cast<Celsius *>(copy.get()) != nullptr);

   {
      Counted counted;
      std::unique_ptr<DataElement> one = counted.clone();
      OwnedPtr<DataElement> two = counted.clone();
      CHECK(live == 3);
      two = nullptr;
      CHECK(live == 2);
   }
   CHECK(live == 0);
}

#if !defined(HLAMESH_TEST_NO_AUTO_PTR)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void
autoPtrForms ()
{
   HLAfloat64TimeFactory factory;
   std::auto_ptr<LogicalTime> a = factory.makeInitial();
   std::auto_ptr<LogicalTime> b(factory.makeFinal());
   std::auto_ptr<HLAfloat64Time> c = factory.makeLogicalTime(2.0);
   std::auto_ptr<LogicalTime> d(factory.makeLogicalTime(3.0));  // to a base
   std::auto_ptr<LogicalTimeInterval> e;
   e = factory.makeEpsilon();
   CHECK(a->isInitial() && b->isFinal() && c->getTime() == 2.0 && e->isEpsilon());
   CHECK(*d == HLAfloat64Time(3.0));
   HLAinteger32BE element(7);
   std::auto_ptr<DataElement> copy = element.clone();
   CHECK(copy->getEncodedLength() == 4);

   {
      Counted counted;
      std::auto_ptr<DataElement> one = counted.clone();
      std::auto_ptr<DataElement> two(counted.clone());
      std::auto_ptr<DataElement> three;
      three = counted.clone();
      CHECK(live == 4);
   }
   CHECK(live == 0);
}
#pragma GCC diagnostic pop
#endif

int
main ()
{
   uniquePtrForms();
#if !defined(HLAMESH_TEST_NO_AUTO_PTR)
   autoPtrForms();
#endif
   return finish();
}
