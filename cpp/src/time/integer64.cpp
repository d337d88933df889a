// HLAinteger64Time and HLAinteger64Interval: signed 64-bit counts, encoded as 8 bytes big
// endian (HLAinteger64BE, the bytes hlamesh_timesync's HLAinteger64Time encodes to).  Initial
// time 0, final time 2^63-1, epsilon 1.  Arithmetic that overflows or goes below zero throws
// IllegalTimeArithmetic.

#include "time_bits.h"

#include <RTI/time/HLAinteger64Interval.h>
#include <RTI/time/HLAinteger64Time.h>
#include <RTI/time/HLAinteger64TimeFactory.h>

#include <limits>

using namespace hlamesh::cpp;

namespace rti1516e
{

namespace
{

HLAinteger64Time const &
asIntegerTime (LogicalTime const & t)
{
   HLAinteger64Time const * f = dynamic_cast<HLAinteger64Time const *>(&t);
   if (f == nullptr) {
      throw InvalidLogicalTime(L"expected an HLAinteger64Time, got an " + t.implementationName());
   }
   return *f;
}

HLAinteger64Interval const &
asIntegerInterval (LogicalTimeInterval const & i)
{
   HLAinteger64Interval const * f = dynamic_cast<HLAinteger64Interval const *>(&i);
   if (f == nullptr) {
      throw InvalidLogicalTimeInterval(L"expected an HLAinteger64Interval, got an "
                                       + i.implementationName() + L" interval");
   }
   return *f;
}

enum class Op { Add, Subtract };

// a + b or a - b, refusing overflow and results below zero.
Integer64
checkedResult (Integer64 a, Op op, Integer64 b, wchar_t const * what)
{
   long long r;
   bool overflow = op == Op::Add ? __builtin_add_overflow(a, b, &r)
                                 : __builtin_sub_overflow(a, b, &r);
   if (overflow || r < 0) {
      throw IllegalTimeArithmetic(std::wstring(what) + L" of " + std::to_wstring(a) + L" and "
                                  + std::to_wstring(b)
                                  + (overflow ? L" overflows" : L" is below zero"));
   }
   return r;
}

Integer64
decodeInteger (void const * data, size_t size, wchar_t const * what)
{
   if (data == nullptr || size != 8) {
      throw CouldNotDecode(std::wstring(what) + L" is encoded in 8 bytes, got "
                           + std::to_wstring(size));
   }
   return static_cast<Integer64>(getBigEndian64(data));
}

VariableLengthData
encodeInteger (Integer64 v)
{
   std::uint64_t bits;
   std::memcpy(&bits, &v, sizeof bits);
   unsigned char bytes[8];
   putBigEndian64(bits, bytes);
   return VariableLengthData(bytes, 8);
}

size_t
encodeIntegerInto (Integer64 v, void * buffer, size_t bufferSize, wchar_t const * what)
{
   if (buffer == nullptr || bufferSize < 8) {
      throw CouldNotEncode(std::wstring(what) + L" needs 8 bytes, the buffer has "
                           + std::to_wstring(bufferSize));
   }
   std::uint64_t bits;
   std::memcpy(&bits, &v, sizeof bits);
   putBigEndian64(bits, buffer);
   return 8;
}

}

// --- HLAinteger64Time ---

HLAinteger64Time::HLAinteger64Time () : _impl(integerImpl<HLAinteger64TimeImpl>(0)) {}

HLAinteger64Time::HLAinteger64Time (Integer64 value)
   : _impl(integerImpl<HLAinteger64TimeImpl>(value))
{
}

HLAinteger64Time::HLAinteger64Time (LogicalTime const & value)
   : _impl(integerImpl<HLAinteger64TimeImpl>(asIntegerTime(value).getTime()))
{
}

HLAinteger64Time::HLAinteger64Time (HLAinteger64Time const & value)
   : LogicalTime(), _impl(value._impl)
{
}

HLAinteger64Time::~HLAinteger64Time () noexcept {}

void
HLAinteger64Time::setInitial ()
{
   setTime(0);
}

bool
HLAinteger64Time::isInitial () const
{
   return getTime() == 0;
}

void
HLAinteger64Time::setFinal ()
{
   setTime(std::numeric_limits<Integer64>::max());
}

bool
HLAinteger64Time::isFinal () const
{
   return getTime() == std::numeric_limits<Integer64>::max();
}

LogicalTime &
HLAinteger64Time::operator= (LogicalTime const & value)
{
   setTime(asIntegerTime(value).getTime());
   return *this;
}

LogicalTime &
HLAinteger64Time::operator+= (LogicalTimeInterval const & addend)
{
   setTime(checkedResult(getTime(), Op::Add, asIntegerInterval(addend).getInterval(), L"HLAinteger64Time +="));
   return *this;
}

LogicalTime &
HLAinteger64Time::operator-= (LogicalTimeInterval const & subtrahend)
{
   setTime(
      checkedResult(getTime(), Op::Subtract, asIntegerInterval(subtrahend).getInterval(),
                    L"HLAinteger64Time -="));
   return *this;
}

bool
HLAinteger64Time::operator> (LogicalTime const & value) const
{
   return getTime() > asIntegerTime(value).getTime();
}

bool
HLAinteger64Time::operator< (LogicalTime const & value) const
{
   return getTime() < asIntegerTime(value).getTime();
}

bool
HLAinteger64Time::operator== (LogicalTime const & value) const
{
   return getTime() == asIntegerTime(value).getTime();
}

bool
HLAinteger64Time::operator>= (LogicalTime const & value) const
{
   return getTime() >= asIntegerTime(value).getTime();
}

bool
HLAinteger64Time::operator<= (LogicalTime const & value) const
{
   return getTime() <= asIntegerTime(value).getTime();
}

VariableLengthData
HLAinteger64Time::encode () const
{
   return encodeInteger(getTime());
}

size_t
HLAinteger64Time::encode (void * buffer, size_t bufferSize) const
{
   return encodeIntegerInto(getTime(), buffer, bufferSize, L"an HLAinteger64Time");
}

size_t
HLAinteger64Time::encodedLength () const
{
   return 8;
}

void
HLAinteger64Time::decode (VariableLengthData const & encoded)
{
   setTime(decodeInteger(encoded.data(), encoded.size(), L"an HLAinteger64Time"));
}

void
HLAinteger64Time::decode (void * buffer, size_t bufferSize)
{
   setTime(decodeInteger(buffer, bufferSize, L"an HLAinteger64Time"));
}

std::wstring
HLAinteger64Time::toString () const
{
   return std::to_wstring(getTime());
}

std::wstring
HLAinteger64Time::implementationName () const
{
   return HLAinteger64TimeName;
}

Integer64
HLAinteger64Time::getTime () const
{
   return integerOf(_impl);
}

void
HLAinteger64Time::setTime (Integer64 value)
{
   _impl = integerImpl<HLAinteger64TimeImpl>(value);
}

HLAinteger64Time &
HLAinteger64Time::operator= (HLAinteger64Time const & value)
{
   _impl = value._impl;
   return *this;
}

HLAinteger64Time::operator Integer64 () const
{
   return getTime();
}

// --- HLAinteger64Interval ---

HLAinteger64Interval::HLAinteger64Interval () : _impl(integerImpl<HLAinteger64IntervalImpl>(0)) {}

HLAinteger64Interval::HLAinteger64Interval (Integer64 value)
   : _impl(integerImpl<HLAinteger64IntervalImpl>(value))
{
}

HLAinteger64Interval::HLAinteger64Interval (LogicalTimeInterval const & value)
   : _impl(integerImpl<HLAinteger64IntervalImpl>(asIntegerInterval(value).getInterval()))
{
}

HLAinteger64Interval::HLAinteger64Interval (HLAinteger64Interval const & value)
   : LogicalTimeInterval(), _impl(value._impl)
{
}

HLAinteger64Interval::~HLAinteger64Interval () noexcept {}

void
HLAinteger64Interval::setZero ()
{
   setInterval(0);
}

bool
HLAinteger64Interval::isZero () const
{
   return getInterval() == 0;
}

void
HLAinteger64Interval::setEpsilon ()
{
   setInterval(Integer64(1));
}

bool
HLAinteger64Interval::isEpsilon () const
{
   return getInterval() == Integer64(1);
}

LogicalTimeInterval &
HLAinteger64Interval::operator= (LogicalTimeInterval const & value)
{
   setInterval(asIntegerInterval(value).getInterval());
   return *this;
}

LogicalTimeInterval &
HLAinteger64Interval::operator+= (LogicalTimeInterval const & addend)
{
   setInterval(checkedResult(getInterval(), Op::Add, asIntegerInterval(addend).getInterval(),
                             L"HLAinteger64Interval +="));
   return *this;
}

LogicalTimeInterval &
HLAinteger64Interval::operator-= (LogicalTimeInterval const & subtrahend)
{
   setInterval(checkedResult(getInterval(), Op::Subtract, asIntegerInterval(subtrahend).getInterval(),
                             L"HLAinteger64Interval -="));
   return *this;
}

bool
HLAinteger64Interval::operator> (LogicalTimeInterval const & value) const
{
   return getInterval() > asIntegerInterval(value).getInterval();
}

bool
HLAinteger64Interval::operator< (LogicalTimeInterval const & value) const
{
   return getInterval() < asIntegerInterval(value).getInterval();
}

bool
HLAinteger64Interval::operator== (LogicalTimeInterval const & value) const
{
   return getInterval() == asIntegerInterval(value).getInterval();
}

bool
HLAinteger64Interval::operator>= (LogicalTimeInterval const & value) const
{
   return getInterval() >= asIntegerInterval(value).getInterval();
}

bool
HLAinteger64Interval::operator<= (LogicalTimeInterval const & value) const
{
   return getInterval() <= asIntegerInterval(value).getInterval();
}

void
HLAinteger64Interval::setToDifference (LogicalTime const & minuend, LogicalTime const & subtrahend)
{
   setInterval(checkedResult(asIntegerTime(minuend).getTime(), Op::Subtract, asIntegerTime(subtrahend).getTime(),
                             L"HLAinteger64Interval::setToDifference"));
}

VariableLengthData
HLAinteger64Interval::encode () const
{
   return encodeInteger(getInterval());
}

size_t
HLAinteger64Interval::encode (void * buffer, size_t bufferSize) const
{
   return encodeIntegerInto(getInterval(), buffer, bufferSize, L"an HLAinteger64Interval");
}

size_t
HLAinteger64Interval::encodedLength () const
{
   return 8;
}

void
HLAinteger64Interval::decode (VariableLengthData const & encoded)
{
   setInterval(decodeInteger(encoded.data(), encoded.size(), L"an HLAinteger64Interval"));
}

void
HLAinteger64Interval::decode (void * buffer, size_t bufferSize)
{
   setInterval(decodeInteger(buffer, bufferSize, L"an HLAinteger64Interval"));
}

std::wstring
HLAinteger64Interval::toString () const
{
   return std::to_wstring(getInterval());
}

std::wstring
HLAinteger64Interval::implementationName () const
{
   return HLAinteger64TimeName;
}

Integer64
HLAinteger64Interval::getInterval () const
{
   return integerOf(_impl);
}

void
HLAinteger64Interval::setInterval (Integer64 value)
{
   _impl = integerImpl<HLAinteger64IntervalImpl>(value);
}

HLAinteger64Interval &
HLAinteger64Interval::operator= (HLAinteger64Interval const & value)
{
   _impl = value._impl;
   return *this;
}

HLAinteger64Interval::operator Integer64 () const
{
   return getInterval();
}

// --- HLAinteger64TimeFactory ---

HLAinteger64TimeFactory::HLAinteger64TimeFactory () {}

HLAinteger64TimeFactory::~HLAinteger64TimeFactory () noexcept {}

RTI_UNIQUE_PTR<HLAinteger64Time>
HLAinteger64TimeFactory::makeLogicalTime (Integer64 value)
{
   return RTI_UNIQUE_PTR<HLAinteger64Time>(new HLAinteger64Time(value));
}

RTI_UNIQUE_PTR<LogicalTime>
HLAinteger64TimeFactory::makeInitial ()
{
   return RTI_UNIQUE_PTR<LogicalTime>(new HLAinteger64Time(0));
}

RTI_UNIQUE_PTR<LogicalTime>
HLAinteger64TimeFactory::makeFinal ()
{
   return RTI_UNIQUE_PTR<LogicalTime>(new HLAinteger64Time(std::numeric_limits<Integer64>::max()));
}

RTI_UNIQUE_PTR<HLAinteger64Interval>
HLAinteger64TimeFactory::makeLogicalTimeInterval (Integer64 value)
{
   return RTI_UNIQUE_PTR<HLAinteger64Interval>(new HLAinteger64Interval(value));
}

RTI_UNIQUE_PTR<LogicalTimeInterval>
HLAinteger64TimeFactory::makeZero ()
{
   return RTI_UNIQUE_PTR<LogicalTimeInterval>(new HLAinteger64Interval(0));
}

RTI_UNIQUE_PTR<LogicalTimeInterval>
HLAinteger64TimeFactory::makeEpsilon ()
{
   return RTI_UNIQUE_PTR<LogicalTimeInterval>(
      new HLAinteger64Interval(Integer64(1)));
}

RTI_UNIQUE_PTR<LogicalTime>
HLAinteger64TimeFactory::decodeLogicalTime (VariableLengthData const & encodedLogicalTime)
{
   RTI_UNIQUE_PTR<HLAinteger64Time> t(new HLAinteger64Time);
   t->decode(encodedLogicalTime);
   return RTI_UNIQUE_PTR<LogicalTime>(std::move(t));
}

RTI_UNIQUE_PTR<LogicalTime>
HLAinteger64TimeFactory::decodeLogicalTime (void * buffer, size_t bufferSize)
{
   RTI_UNIQUE_PTR<HLAinteger64Time> t(new HLAinteger64Time);
   t->decode(buffer, bufferSize);
   return RTI_UNIQUE_PTR<LogicalTime>(std::move(t));
}

RTI_UNIQUE_PTR<LogicalTimeInterval>
HLAinteger64TimeFactory::decodeLogicalTimeInterval (VariableLengthData const & encodedValue)
{
   RTI_UNIQUE_PTR<HLAinteger64Interval> i(new HLAinteger64Interval);
   i->decode(encodedValue);
   return RTI_UNIQUE_PTR<LogicalTimeInterval>(std::move(i));
}

RTI_UNIQUE_PTR<LogicalTimeInterval>
HLAinteger64TimeFactory::decodeLogicalTimeInterval (void * buffer, size_t bufferSize)
{
   RTI_UNIQUE_PTR<HLAinteger64Interval> i(new HLAinteger64Interval);
   i->decode(buffer, bufferSize);
   return RTI_UNIQUE_PTR<LogicalTimeInterval>(std::move(i));
}

std::wstring
HLAinteger64TimeFactory::getName () const
{
   return HLAinteger64TimeName;
}

}
