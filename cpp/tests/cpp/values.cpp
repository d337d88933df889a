// The API's value classes: exceptions, VariableLengthData, handles, logical times and the
// UTF-8 helpers.
//
//   values vectors   prints "name hex" for handles and times (the Rust test compares with
//                    hlamesh_lrc::handles and hlamesh_timesync::time);
//   values check     everything else, self-checked.

#include "check.h"

#include "handle_friend.h"
#include "utf8.h"

#include <RTI/RTI1516.h>
#include <RTI/encoding/EncodingExceptions.h>
#include <RTI/time/HLAfloat64Interval.h>
#include <RTI/time/HLAfloat64Time.h>
#include <RTI/time/HLAfloat64TimeFactory.h>
#include <RTI/time/HLAinteger64Interval.h>
#include <RTI/time/HLAinteger64Time.h>
#include <RTI/time/HLAinteger64TimeFactory.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

using namespace rti1516e;

static std::string
hex (VariableLengthData const & v)
{
   static char const digits[] = "0123456789abcdef";
   std::string out;
   unsigned char const * p = static_cast<unsigned char const *>(v.data());
   for (size_t i = 0; i < v.size(); ++i) {
      out.push_back(digits[p[i] >> 4]);
      out.push_back(digits[p[i] & 15]);
   }
   return out.empty() ? "-" : out;
}

static int
vectors ()
{
   std::cout << "federate_2 " << hex(FederateHandleFriend::fromValue(2).encode()) << '\n';
   std::cout << "object_class_7 " << hex(ObjectClassHandleFriend::fromValue(7).encode()) << '\n';
   std::cout << "attribute_70000 " << hex(AttributeHandleFriend::fromValue(70000).encode())
             << '\n';
   std::cout << "interaction_class_3 "
             << hex(InteractionClassHandleFriend::fromValue(3).encode()) << '\n';
   std::cout << "parameter_9 " << hex(ParameterHandleFriend::fromValue(9).encode()) << '\n';
   std::cout << "dimension_1 " << hex(DimensionHandleFriend::fromValue(1).encode()) << '\n';
   std::cout << "instance_3_17 "
             << hex(ObjectInstanceHandleFriend::fromValue((3ull << 32) | 17).encode()) << '\n';
   std::cout << "float_time_12_5 " << hex(HLAfloat64Time(12.5).encode()) << '\n';
   HLAfloat64Time finalFloat;
   finalFloat.setFinal();
   std::cout << "float_time_final " << hex(finalFloat.encode()) << '\n';
   std::cout << "float_time_negative_zero " << hex(HLAfloat64Time(-0.0).encode()) << '\n';
   std::cout << "float_interval_0_25 " << hex(HLAfloat64Interval(0.25).encode()) << '\n';
   std::cout << "integer_time_42 " << hex(HLAinteger64Time(42).encode()) << '\n';
   HLAinteger64Time finalInteger;
   finalInteger.setFinal();
   std::cout << "integer_time_final " << hex(finalInteger.encode()) << '\n';
   std::cout << "integer_interval_3 " << hex(HLAinteger64Interval(3).encode()) << '\n';
   return 0;
}

static void
checkExceptions ()
{
   try {
      throw FederationExecutionDoesNotExist(L"no federation \u00abx\u00bb");
   } catch (Exception const & e) {
      CHECK(e.what() == L"no federation \u00abx\u00bb");
      std::wostringstream s;
      s << e;
      CHECK(s.str() == e.what());
   }
   CHECK_THROWS(AttributeNotOwned, throw AttributeNotOwned(L"a"));
   CHECK_THROWS(Exception, throw CallNotAllowedFromWithinCallback(L"b"));
   CHECK_THROWS(Exception, throw EncoderException(L"c"));
   CHECK(!throwsExactly<ObjectClassNotPublished>([] { throw ObjectClassNotDefined(L"d"); }));
   RTIinternalError copy(L"e");
   RTIinternalError second = copy;
   CHECK(second.what() == L"e");
}

static void
checkVariableLengthData ()
{
   VariableLengthData empty;
   CHECK(empty.size() == 0);
   char bytes[] = {1, 2, 3};
   VariableLengthData copied(bytes, 3);
   bytes[0] = 9;
   CHECK(copied.size() == 3 && static_cast<char const *>(copied.data())[0] == 1);

   VariableLengthData borrowed;
   borrowed.setDataPointer(bytes, 3);
   CHECK(borrowed.data() == bytes);
   bytes[1] = 8;
   CHECK(static_cast<char const *>(borrowed.data())[1] == 8);

   VariableLengthData assigned;
   assigned = borrowed;  // reverts to internal storage
   CHECK(assigned.data() != bytes && assigned.size() == 3);
   CHECK(std::memcmp(assigned.data(), bytes, 3) == 0);

   static int deleted = 0;
   {
      VariableLengthData taken;
      char * heap = new char[4]{4, 5, 6, 7};
      taken.takeDataPointer(heap, 4);
      CHECK(taken.data() == heap);
      VariableLengthData custom;
      custom.takeDataPointer(new char[2], 2, [](void * p) {
         delete[] static_cast<char *>(p);
         ++deleted;
      });
      custom.setData("xy", 2);  // frees the taken memory
      CHECK(deleted == 1);
      VariableLengthData self(custom);
      self = self;
      CHECK(self.size() == 2 && std::memcmp(self.data(), "xy", 2) == 0);
   }
   CHECK(deleted == 1);
}

template <class H, class F>
static void
checkHandleKind (std::size_t width)
{
   H invalid;
   CHECK(!invalid.isValid());
   CHECK(invalid == H());
   H a = F::fromValue(5), b = F::fromValue(6), a2 = F::fromValue(5);
   CHECK(a.isValid() && a == a2 && a != b && a < b && !(b < a));
   CHECK(a.hash() == a2.hash());
   CHECK(a.encodedLength() == width);
   VariableLengthData enc = a.encode();
   CHECK(enc.size() == width);
   CHECK(F::decode(enc) == a);
   CHECK(F::value(F::decode(enc)) == 5);
   char buffer[8];
   CHECK(a.encode(buffer, sizeof buffer) == width);
   CHECK_THROWS(CouldNotEncode, a.encode(buffer, width - 1));

   // Foreign bytes: wrong length, zero, nothing.
   std::vector<char> wrong(width + 1, 1);
   CHECK_THROWS(CouldNotDecode, F::decode(VariableLengthData(wrong.data(), wrong.size())));
   std::vector<char> zero(width, 0);
   CHECK_THROWS(CouldNotDecode, F::decode(VariableLengthData(zero.data(), zero.size())));
   CHECK_THROWS(CouldNotDecode, F::decode(VariableLengthData()));
   CHECK_THROWS(CouldNotDecode, F::decode(VariableLengthData("abc", 3)));

   std::set<H> ordered{b, a, a2};
   CHECK(ordered.size() == 2 && *ordered.begin() == a);
   std::wostringstream s;
   s << a;
   CHECK(s.str() == a.toString());
   CHECK(a.toString().find(L"5") != std::wstring::npos);
   CHECK(invalid.toString().find(L"invalid") != std::wstring::npos);
}

// Handles in a hash container, as federates keep them.
struct HandleHash
{
   size_t operator() (AttributeHandle const & h) const { return static_cast<size_t>(h.hash()); }
};

static void
checkHandles ()
{
   checkHandleKind<FederateHandle, FederateHandleFriend>(4);
   checkHandleKind<ObjectClassHandle, ObjectClassHandleFriend>(4);
   checkHandleKind<InteractionClassHandle, InteractionClassHandleFriend>(4);
   checkHandleKind<ObjectInstanceHandle, ObjectInstanceHandleFriend>(8);
   checkHandleKind<AttributeHandle, AttributeHandleFriend>(4);
   checkHandleKind<ParameterHandle, ParameterHandleFriend>(4);
   checkHandleKind<DimensionHandle, DimensionHandleFriend>(4);
   checkHandleKind<MessageRetractionHandle, MessageRetractionHandleFriend>(8);
   checkHandleKind<RegionHandle, RegionHandleFriend>(8);

   std::unordered_set<AttributeHandle, HandleHash> set;
   for (int i = 1; i <= 100; ++i) {
      set.insert(AttributeHandleFriend::fromValue(static_cast<std::uint64_t>(i)));
   }
   CHECK(set.size() == 100);
   AttributeHandleValueMap values;
   values[AttributeHandleFriend::fromValue(1)] = VariableLengthData("a", 1);
   CHECK(values.size() == 1);
}

static void
checkFloatTime ()
{
   HLAfloat64TimeFactory factory;
   CHECK(factory.getName() == L"HLAfloat64Time");
   OwnedPtr<LogicalTime> initial = factory.makeInitial();
   OwnedPtr<LogicalTime> final_ = factory.makeFinal();
   CHECK(initial->isInitial() && final_->isFinal() && *initial < *final_);
   HLAfloat64Time t(10.0);
   HLAfloat64Interval step(2.5);
   t += step;
   CHECK(t.getTime() == 12.5);
   t -= HLAfloat64Interval(12.5);
   CHECK(t.isInitial());
   CHECK_THROWS(IllegalTimeArithmetic, t -= HLAfloat64Interval(1.0));
   HLAfloat64Time inf;
   inf.setFinal();
   CHECK_THROWS(IllegalTimeArithmetic, inf -= HLAfloat64Interval(std::numeric_limits<double>::infinity()));
   HLAinteger64Time other(3);
   CHECK_THROWS(InvalidLogicalTime, (void)(t < other));
   CHECK_THROWS(InvalidLogicalTime, t = other);
   CHECK_THROWS(InvalidLogicalTimeInterval, t += HLAinteger64Interval(1));

   HLAfloat64Interval diff;
   diff.setToDifference(HLAfloat64Time(5.0), HLAfloat64Time(3.5));
   CHECK(diff.getInterval() == 1.5);
   CHECK_THROWS(IllegalTimeArithmetic, diff.setToDifference(HLAfloat64Time(1.0), HLAfloat64Time(2.0)));
   HLAfloat64Interval eps;
   eps.setEpsilon();
   CHECK(eps.isEpsilon() && eps > HLAfloat64Interval(0.0));

   OwnedPtr<LogicalTime> decoded = factory.decodeLogicalTime(HLAfloat64Time(7.25).encode());
   CHECK(*decoded == HLAfloat64Time(7.25));
   char buffer[8];
   CHECK(HLAfloat64Time(1.0).encode(buffer, 8) == 8);
   CHECK_THROWS(CouldNotEncode, HLAfloat64Time(1.0).encode(buffer, 7));
   CHECK_THROWS(CouldNotDecode, factory.decodeLogicalTime(VariableLengthData("1234567", 7)));
   unsigned char nan[8] = {0x7F, 0xF8, 0, 0, 0, 0, 0, 0};
   CHECK_THROWS(CouldNotDecode, factory.decodeLogicalTime(VariableLengthData(nan, 8)));
   CHECK_THROWS(CouldNotDecode, factory.decodeLogicalTimeInterval(nan, 8));
   CHECK(HLAfloat64Time(0.1).toString() == L"0.1");
   CHECK(HLAfloat64Time(1e300).toString() == L"1e+300");
   CHECK(t.implementationName() == L"HLAfloat64Time");
   CHECK(HLAfloat64Interval(1.0).implementationName() == L"HLAfloat64Time");
}

static void
checkIntegerTime ()
{
   HLAinteger64TimeFactory factory;
   CHECK(factory.getName() == L"HLAinteger64Time");
   HLAinteger64Time t(10);
   t += HLAinteger64Interval(5);
   CHECK(t.getTime() == 15);
   CHECK_THROWS(IllegalTimeArithmetic, t -= HLAinteger64Interval(16));
   HLAinteger64Time last;
   last.setFinal();
   CHECK(last.getTime() == std::numeric_limits<Integer64>::max());
   CHECK_THROWS(IllegalTimeArithmetic, last += HLAinteger64Interval(1));
   HLAinteger64Interval eps;
   eps.setEpsilon();
   CHECK(eps.getInterval() == 1 && eps.isEpsilon());
   OwnedPtr<HLAinteger64Time> made = factory.makeLogicalTime(99);
   OwnedPtr<LogicalTimeInterval> decoded =
      factory.decodeLogicalTimeInterval(HLAinteger64Interval(8).encode());
   CHECK(*decoded == HLAinteger64Interval(8));
   CHECK(made->toString() == L"99");
   CHECK_THROWS(CouldNotDecode, factory.decodeLogicalTime(VariableLengthData()));
   // Compared through the base class, as a callback's `LogicalTime const &` arrives.  (Two
   // different concrete time classes compared directly are ambiguous under C++20's reversed
   // operator== candidates, and wrong anyway.)
   HLAfloat64Time floatTime(15.0);
   LogicalTime const & asBase = floatTime;
   CHECK_THROWS(InvalidLogicalTime, (void)(t == asBase));
   LogicalTime const & granted = t;
   CHECK(HLAinteger64Time(15) == granted && granted == HLAinteger64Time(15));
}

static void
checkFactoryFactories ()
{
   OwnedPtr<LogicalTimeFactory> f = HLAlogicalTimeFactoryFactory::makeLogicalTimeFactory(L"HLAfloat64Time");
   CHECK(f && f->getName() == L"HLAfloat64Time");
   f = HLAlogicalTimeFactoryFactory::makeLogicalTimeFactory(L"HLAinteger64Time");
   CHECK(f && f->getName() == L"HLAinteger64Time");
   f = HLAlogicalTimeFactoryFactory::makeLogicalTimeFactory(L"");
   CHECK(f && f->getName() == L"HLAfloat64Time");
   CHECK(!HLAlogicalTimeFactoryFactory::makeLogicalTimeFactory(L"MyTime"));
   std::unique_ptr<LogicalTimeFactory> viaFedtime =
      LogicalTimeFactoryFactory::makeLogicalTimeFactory(L"HLAinteger64Time");
   CHECK(viaFedtime && viaFedtime->getName() == L"HLAinteger64Time");
   CHECK(LogicalTimeFactoryFactory::makeLogicalTimeFactory(L"hlafloat64time") == nullptr);
}

static void
checkUtf8 ()
{
   std::wstring text = L"Caf\u00e9 \u6f22 \U0001F600";
   std::string utf8;
   CHECK(hlamesh::cpp::toUtf8(text, utf8));
   CHECK(utf8 == "Caf\xc3\xa9 \xe6\xbc\xa2 \xf0\x9f\x98\x80");
   std::wstring back;
   CHECK(hlamesh::cpp::fromUtf8(utf8.data(), utf8.size(), back) && back == text);
   CHECK(!hlamesh::cpp::toUtf8(std::wstring(1, static_cast<wchar_t>(0xD800)), utf8));
   CHECK(!hlamesh::cpp::toUtf8(std::wstring(1, static_cast<wchar_t>(0x110000)), utf8));
   CHECK(hlamesh::cpp::toUtf8Lossy(std::wstring(1, static_cast<wchar_t>(0xDC00))) == "\xef\xbf\xbd");
   char const * bad[] = {"\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe6\xbc", "\x80", "\xff"};
   for (char const * b : bad) {
      CHECK(!hlamesh::cpp::fromUtf8(b, std::strlen(b), back));
   }
   CHECK(hlamesh::cpp::fromUtf8Lossy("a\xff" "b", 3) == L"a\ufffdb");
   CHECK(hlamesh::cpp::fromUtf8(nullptr, 0, back) && back.empty());
}

int
main (int argc, char ** argv)
{
   std::string mode = argc > 1 ? argv[1] : "check";
   if (mode == "vectors") {
      return vectors();
   }
   checkExceptions();
   checkVariableLengthData();
   checkHandles();
   checkFloatTime();
   checkIntegerTime();
   checkFactoryFactories();
   checkUtf8();
   return finish();
}
