// HLAfloat64Time and HLAfloat64Interval: IEEE doubles, encoded as 8 bytes big endian (the bytes
// hlamesh_timesync's HLAfloat64Time encodes to).  Initial time 0, final time +infinity,
// epsilon the smallest positive double.  Decoding NaN throws CouldNotDecode; arithmetic whose
// result is NaN or negative throws IllegalTimeArithmetic.

#include "time_bits.h"

#include <RTI/time/HLAfloat64Interval.h>
#include <RTI/time/HLAfloat64Time.h>
#include <RTI/time/HLAfloat64TimeFactory.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <ostream>

using namespace hlamesh::cpp;

namespace hlamesh
{
namespace cpp
{

std::wstring
doubleToString (double v)
{
   char text[64];
   std::to_chars_result r = std::to_chars(text, text + sizeof text, v);
   return std::wstring(text, r.ptr);
}

}
}

namespace rti1516e
{

LogicalTime::~LogicalTime () noexcept {}

LogicalTimeInterval::~LogicalTimeInterval () noexcept {}

LogicalTimeFactory::~LogicalTimeFactory () noexcept {}

std::wostream &
operator<< (std::wostream & stream, LogicalTime const & time)
{
   return stream << time.toString();
}

std::wostream &
operator<< (std::wostream & stream, LogicalTimeInterval const & interval)
{
   return stream << interval.toString();
}

namespace
{

HLAfloat64Time const &
asFloatTime (LogicalTime const & t)
{
   HLAfloat64Time const * f = dynamic_cast<HLAfloat64Time const *>(&t);
   if (f == nullptr) {
      throw InvalidLogicalTime(L"expected an HLAfloat64Time, got an " + t.implementationName());
   }
   return *f;
}

HLAfloat64Interval const &
asFloatInterval (LogicalTimeInterval const & i)
{
   HLAfloat64Interval const * f = dynamic_cast<HLAfloat64Interval const *>(&i);
   if (f == nullptr) {
      throw InvalidLogicalTimeInterval(L"expected an HLAfloat64Interval, got an "
                                       + i.implementationName() + L" interval");
   }
   return *f;
}

double
checkedResult (double r, wchar_t const * what)
{
   if (std::isnan(r) || r < 0.0) {
      throw IllegalTimeArithmetic(std::wstring(what) + L" gives " + doubleToString(r)
                                  + L", which is no valid value");
   }
   return r;
}

double
decodeDouble (void const * data, size_t size, wchar_t const * what)
{
   if (data == nullptr || size != 8) {
      throw CouldNotDecode(std::wstring(what) + L" is encoded in 8 bytes, got "
                           + std::to_wstring(size));
   }
   std::uint64_t bits = getBigEndian64(data);
   double v;
   std::memcpy(&v, &bits, sizeof v);
   if (std::isnan(v)) {
      throw CouldNotDecode(std::wstring(what) + L" encoding is NaN");
   }
   return v;
}

VariableLengthData
encodeDouble (double v)
{
   std::uint64_t bits;
   std::memcpy(&bits, &v, sizeof bits);
   unsigned char bytes[8];
   putBigEndian64(bits, bytes);
   return VariableLengthData(bytes, 8);
}

size_t
encodeDoubleInto (double v, void * buffer, size_t bufferSize, wchar_t const * what)
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

// --- HLAfloat64Time ---

HLAfloat64Time::HLAfloat64Time () : _impl(doubleImpl<HLAfloat64TimeImpl>(0.0)) {}

HLAfloat64Time::HLAfloat64Time (double const & value)
   : _impl(doubleImpl<HLAfloat64TimeImpl>(value))
{
}

HLAfloat64Time::HLAfloat64Time (LogicalTime const & value)
   : _impl(doubleImpl<HLAfloat64TimeImpl>(asFloatTime(value).getTime()))
{
}

HLAfloat64Time::HLAfloat64Time (HLAfloat64Time const & value)
   : LogicalTime(), _impl(value._impl)
{
}

HLAfloat64Time::~HLAfloat64Time () noexcept {}

void
HLAfloat64Time::setInitial ()
{
   setTime(0.0);
}

bool
HLAfloat64Time::isInitial () const
{
   return getTime() == 0.0;
}

void
HLAfloat64Time::setFinal ()
{
   setTime(std::numeric_limits<double>::infinity());
}

bool
HLAfloat64Time::isFinal () const
{
   return getTime() == std::numeric_limits<double>::infinity();
}

LogicalTime &
HLAfloat64Time::operator= (LogicalTime const & value)
{
   setTime(asFloatTime(value).getTime());
   return *this;
}

LogicalTime &
HLAfloat64Time::operator+= (LogicalTimeInterval const & addend)
{
   setTime(checkedResult(getTime() + asFloatInterval(addend).getInterval(), L"HLAfloat64Time +="));
   return *this;
}

LogicalTime &
HLAfloat64Time::operator-= (LogicalTimeInterval const & subtrahend)
{
   setTime(
      checkedResult(getTime() - asFloatInterval(subtrahend).getInterval(), L"HLAfloat64Time -="));
   return *this;
}

bool
HLAfloat64Time::operator> (LogicalTime const & value) const
{
   return getTime() > asFloatTime(value).getTime();
}

bool
HLAfloat64Time::operator< (LogicalTime const & value) const
{
   return getTime() < asFloatTime(value).getTime();
}

bool
HLAfloat64Time::operator== (LogicalTime const & value) const
{
   return getTime() == asFloatTime(value).getTime();
}

bool
HLAfloat64Time::operator>= (LogicalTime const & value) const
{
   return getTime() >= asFloatTime(value).getTime();
}

bool
HLAfloat64Time::operator<= (LogicalTime const & value) const
{
   return getTime() <= asFloatTime(value).getTime();
}

VariableLengthData
HLAfloat64Time::encode () const
{
   return encodeDouble(getTime());
}

size_t
HLAfloat64Time::encode (void * buffer, size_t bufferSize) const
{
   return encodeDoubleInto(getTime(), buffer, bufferSize, L"an HLAfloat64Time");
}

size_t
HLAfloat64Time::encodedLength () const
{
   return 8;
}

void
HLAfloat64Time::decode (VariableLengthData const & encoded)
{
   setTime(decodeDouble(encoded.data(), encoded.size(), L"an HLAfloat64Time"));
}

void
HLAfloat64Time::decode (void * buffer, size_t bufferSize)
{
   setTime(decodeDouble(buffer, bufferSize, L"an HLAfloat64Time"));
}

std::wstring
HLAfloat64Time::toString () const
{
   return doubleToString(getTime());
}

std::wstring
HLAfloat64Time::implementationName () const
{
   return HLAfloat64TimeName;
}

double
HLAfloat64Time::getTime () const
{
   return doubleOf(_impl);
}

void
HLAfloat64Time::setTime (double value)
{
   _impl = doubleImpl<HLAfloat64TimeImpl>(value);
}

HLAfloat64Time &
HLAfloat64Time::operator= (HLAfloat64Time const & value)
{
   _impl = value._impl;
   return *this;
}

HLAfloat64Time::operator double () const
{
   return getTime();
}

// --- HLAfloat64Interval ---

HLAfloat64Interval::HLAfloat64Interval () : _impl(doubleImpl<HLAfloat64IntervalImpl>(0.0)) {}

HLAfloat64Interval::HLAfloat64Interval (double value)
   : _impl(doubleImpl<HLAfloat64IntervalImpl>(value))
{
}

HLAfloat64Interval::HLAfloat64Interval (LogicalTimeInterval const & value)
   : _impl(doubleImpl<HLAfloat64IntervalImpl>(asFloatInterval(value).getInterval()))
{
}

HLAfloat64Interval::HLAfloat64Interval (HLAfloat64Interval const & value)
   : LogicalTimeInterval(), _impl(value._impl)
{
}

HLAfloat64Interval::~HLAfloat64Interval () noexcept {}

void
HLAfloat64Interval::setZero ()
{
   setInterval(0.0);
}

bool
HLAfloat64Interval::isZero () const
{
   return getInterval() == 0.0;
}

void
HLAfloat64Interval::setEpsilon ()
{
   setInterval(std::numeric_limits<double>::denorm_min());
}

bool
HLAfloat64Interval::isEpsilon () const
{
   return getInterval() == std::numeric_limits<double>::denorm_min();
}

LogicalTimeInterval &
HLAfloat64Interval::operator= (LogicalTimeInterval const & value)
{
   setInterval(asFloatInterval(value).getInterval());
   return *this;
}

LogicalTimeInterval &
HLAfloat64Interval::operator+= (LogicalTimeInterval const & addend)
{
   setInterval(checkedResult(getInterval() + asFloatInterval(addend).getInterval(),
                             L"HLAfloat64Interval +="));
   return *this;
}

LogicalTimeInterval &
HLAfloat64Interval::operator-= (LogicalTimeInterval const & subtrahend)
{
   setInterval(checkedResult(getInterval() - asFloatInterval(subtrahend).getInterval(),
                             L"HLAfloat64Interval -="));
   return *this;
}

bool
HLAfloat64Interval::operator> (LogicalTimeInterval const & value) const
{
   return getInterval() > asFloatInterval(value).getInterval();
}

bool
HLAfloat64Interval::operator< (LogicalTimeInterval const & value) const
{
   return getInterval() < asFloatInterval(value).getInterval();
}

bool
HLAfloat64Interval::operator== (LogicalTimeInterval const & value) const
{
   return getInterval() == asFloatInterval(value).getInterval();
}

bool
HLAfloat64Interval::operator>= (LogicalTimeInterval const & value) const
{
   return getInterval() >= asFloatInterval(value).getInterval();
}

bool
HLAfloat64Interval::operator<= (LogicalTimeInterval const & value) const
{
   return getInterval() <= asFloatInterval(value).getInterval();
}

void
HLAfloat64Interval::setToDifference (LogicalTime const & minuend, LogicalTime const & subtrahend)
{
   setInterval(checkedResult(asFloatTime(minuend).getTime() - asFloatTime(subtrahend).getTime(),
                             L"HLAfloat64Interval::setToDifference"));
}

VariableLengthData
HLAfloat64Interval::encode () const
{
   return encodeDouble(getInterval());
}

size_t
HLAfloat64Interval::encode (void * buffer, size_t bufferSize) const
{
   return encodeDoubleInto(getInterval(), buffer, bufferSize, L"an HLAfloat64Interval");
}

size_t
HLAfloat64Interval::encodedLength () const
{
   return 8;
}

void
HLAfloat64Interval::decode (VariableLengthData const & encoded)
{
   setInterval(decodeDouble(encoded.data(), encoded.size(), L"an HLAfloat64Interval"));
}

void
HLAfloat64Interval::decode (void * buffer, size_t bufferSize)
{
   setInterval(decodeDouble(buffer, bufferSize, L"an HLAfloat64Interval"));
}

std::wstring
HLAfloat64Interval::toString () const
{
   return doubleToString(getInterval());
}

std::wstring
HLAfloat64Interval::implementationName () const
{
   return HLAfloat64TimeName;
}

double
HLAfloat64Interval::getInterval () const
{
   return doubleOf(_impl);
}

void
HLAfloat64Interval::setInterval (double value)
{
   _impl = doubleImpl<HLAfloat64IntervalImpl>(value);
}

HLAfloat64Interval &
HLAfloat64Interval::operator= (HLAfloat64Interval const & value)
{
   _impl = value._impl;
   return *this;
}

HLAfloat64Interval::operator double () const
{
   return getInterval();
}

// --- HLAfloat64TimeFactory ---

HLAfloat64TimeFactory::HLAfloat64TimeFactory () {}

HLAfloat64TimeFactory::~HLAfloat64TimeFactory () noexcept {}

RTI_UNIQUE_PTR<HLAfloat64Time>
HLAfloat64TimeFactory::makeLogicalTime (double value)
{
   return RTI_UNIQUE_PTR<HLAfloat64Time>(new HLAfloat64Time(value));
}

RTI_UNIQUE_PTR<LogicalTime>
HLAfloat64TimeFactory::makeInitial ()
{
   return RTI_UNIQUE_PTR<LogicalTime>(new HLAfloat64Time(0.0));
}

RTI_UNIQUE_PTR<LogicalTime>
HLAfloat64TimeFactory::makeFinal ()
{
   return RTI_UNIQUE_PTR<LogicalTime>(new HLAfloat64Time(std::numeric_limits<double>::infinity()));
}

RTI_UNIQUE_PTR<HLAfloat64Interval>
HLAfloat64TimeFactory::makeLogicalTimeInterval (double value)
{
   return RTI_UNIQUE_PTR<HLAfloat64Interval>(new HLAfloat64Interval(value));
}

RTI_UNIQUE_PTR<LogicalTimeInterval>
HLAfloat64TimeFactory::makeZero ()
{
   return RTI_UNIQUE_PTR<LogicalTimeInterval>(new HLAfloat64Interval(0.0));
}

RTI_UNIQUE_PTR<LogicalTimeInterval>
HLAfloat64TimeFactory::makeEpsilon ()
{
   return RTI_UNIQUE_PTR<LogicalTimeInterval>(
      new HLAfloat64Interval(std::numeric_limits<double>::denorm_min()));
}

RTI_UNIQUE_PTR<LogicalTime>
HLAfloat64TimeFactory::decodeLogicalTime (VariableLengthData const & encodedLogicalTime)
{
   RTI_UNIQUE_PTR<HLAfloat64Time> t(new HLAfloat64Time);
   t->decode(encodedLogicalTime);
   return RTI_UNIQUE_PTR<LogicalTime>(std::move(t));
}

RTI_UNIQUE_PTR<LogicalTime>
HLAfloat64TimeFactory::decodeLogicalTime (void * buffer, size_t bufferSize)
{
   RTI_UNIQUE_PTR<HLAfloat64Time> t(new HLAfloat64Time);
   t->decode(buffer, bufferSize);
   return RTI_UNIQUE_PTR<LogicalTime>(std::move(t));
}

RTI_UNIQUE_PTR<LogicalTimeInterval>
HLAfloat64TimeFactory::decodeLogicalTimeInterval (VariableLengthData const & encodedValue)
{
   RTI_UNIQUE_PTR<HLAfloat64Interval> i(new HLAfloat64Interval);
   i->decode(encodedValue);
   return RTI_UNIQUE_PTR<LogicalTimeInterval>(std::move(i));
}

RTI_UNIQUE_PTR<LogicalTimeInterval>
HLAfloat64TimeFactory::decodeLogicalTimeInterval (void * buffer, size_t bufferSize)
{
   RTI_UNIQUE_PTR<HLAfloat64Interval> i(new HLAfloat64Interval);
   i->decode(buffer, bufferSize);
   return RTI_UNIQUE_PTR<LogicalTimeInterval>(std::move(i));
}

std::wstring
HLAfloat64TimeFactory::getName () const
{
   return HLAfloat64TimeName;
}

}
