// Conversions at the boundary between the standard's C++ types and hlm.h's C types, and the
// exception thrown for a non-zero code.

#ifndef HLAMESH_CAPI_CONVERT_H
#define HLAMESH_CAPI_CONVERT_H

#include <RTI/Exception.h>
#include <RTI/Handle.h>
#include <RTI/LogicalTime.h>
#include <RTI/LogicalTimeInterval.h>
#include <RTI/Typedefs.h>
#include <RTI/VariableLengthData.h>
#include <RTI/time/HLAfloat64Interval.h>
#include <RTI/time/HLAfloat64Time.h>
#include <RTI/time/HLAinteger64Interval.h>
#include <RTI/time/HLAinteger64Time.h>

#include <hlamesh/hlm.h>

#include "handle_friend.h"
#include "utf8.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace hlamesh
{
namespace capi
{

using namespace rti1516e;

// Throws the exception class `code` names, with the message (which it frees).
[[noreturn]] void throwCode (int32_t code, hlm_text message);

// Calls an hlm_* service: f(rti, args..., &message); throws on a non-zero code.
template <typename F, typename... A>
inline void
call (F f, hlm_rti * rti, A... args)
{
   hlm_text message = {nullptr, 0};
   int32_t code = f(rti, args..., &message);
   if (code != 0)
      throwCode(code, message);
}

// UTF-8 of a wide string, kept alive for a call.
class Utf8
{
public:
   explicit Utf8 (std::wstring const & w) : _s(cpp::toUtf8Lossy(w)) {}
   hlm_str str () const { return hlm_str{_s.data(), _s.size()}; }

private:
   std::string _s;
};

// UTF-8 of several wide strings, kept alive for a call.
class Utf8List
{
public:
   template <typename C>
   explicit Utf8List (C const & strings)
   {
      for (std::wstring const & w : strings)
         _s.push_back(cpp::toUtf8Lossy(w));
      for (std::string const & s : _s)
         _v.push_back(hlm_str{s.data(), s.size()});
   }
   hlm_strs strs () const { return hlm_strs{_v.data(), _v.size()}; }

private:
   std::vector<std::string> _s;
   std::vector<hlm_str> _v;
};

inline hlm_bytes
bytes (VariableLengthData const & v)
{
   return hlm_bytes{static_cast<uint8_t const *>(v.data()), v.size()};
}

template <typename H>
inline uint32_t
number (H const & h);

#define HLAMESH_NUMBER(Kind)                                                 \
   template <>                                                               \
   inline uint32_t number<Kind> (Kind const & h)                             \
   {                                                                         \
      return static_cast<uint32_t>(Kind##Friend::value(h));                  \
   }
HLAMESH_NUMBER(FederateHandle)
HLAMESH_NUMBER(ObjectClassHandle)
HLAMESH_NUMBER(InteractionClassHandle)
HLAMESH_NUMBER(AttributeHandle)
HLAMESH_NUMBER(ParameterHandle)
HLAMESH_NUMBER(DimensionHandle)
#undef HLAMESH_NUMBER

inline uint64_t
object (ObjectInstanceHandle const & h)
{
   return ObjectInstanceHandleFriend::value(h);
}

// Handle numbers of a set, kept alive for a call.
class Numbers
{
public:
   template <typename C>
   explicit Numbers (C const & handles)
   {
      for (auto const & h : handles)
         _v.push_back(number(h));
   }
   hlm_handles handles () const { return hlm_handles{_v.data(), _v.size()}; }

private:
   std::vector<uint32_t> _v;
};

// Values of an attribute or parameter map, pointing into the map (kept alive for a call).
class Values
{
public:
   template <typename M>
   explicit Values (M const & map)
   {
      _v.reserve(map.size());
      for (auto const & e : map)
         _v.push_back(hlm_value{number(e.first), static_cast<uint8_t const *>(e.second.data()),
                                e.second.size()});
   }
   hlm_values values () const { return hlm_values{_v.data(), _v.size()}; }

private:
   std::vector<hlm_value> _v;
};

// hlm_time of a time of either standard class; InvalidLogicalTime for another class.
hlm_time timeOf (LogicalTime const & t);
// hlm_time of an interval; InvalidLookahead for another class.
hlm_time intervalOf (LogicalTimeInterval const & i);
// Writes a time into the federate's time object (InvalidLogicalTime for a mismatch).
void setTime (LogicalTime & out, hlm_time t);
// Writes an interval into the federate's interval object.
void setInterval (LogicalTimeInterval & out, hlm_time t);
// A new time object for a callback.
std::unique_ptr<LogicalTime> makeTime (hlm_time t);

}
}

#endif
