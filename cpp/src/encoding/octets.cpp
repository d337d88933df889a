// Shared byte-level helpers of the encoding classes (see octets.h).

#include "octets.h"

#include "../variable_length_data_impl.h"

#include <climits>

namespace hlamesh
{
namespace cpp
{

void
fail (std::wstring const & message)
{
   throw rti1516e::EncoderException(message);
}

void
padTo (Octets & buffer, unsigned boundary)
{
   if (boundary > 1) {
      std::size_t rem = buffer.size() % boundary;
      if (rem != 0) {
         buffer.resize(buffer.size() + boundary - rem, 0);
      }
   }
}

std::size_t
skipPadding (Octets const & buffer, std::size_t index, unsigned boundary)
{
   if (index > buffer.size()) {
      fail(L"decode index " + std::to_wstring(index) + L" is past the end of a buffer of "
           + std::to_wstring(buffer.size()) + L" bytes");
   }
   if (boundary > 1) {
      std::size_t rem = index % boundary;
      if (rem != 0) {
         std::size_t pad = boundary - rem;
         require(buffer, index, pad, L"padding");
         index += pad;
      }
   }
   return index;
}

void
require (Octets const & buffer, std::size_t index, std::size_t need, wchar_t const * what)
{
   if (index > buffer.size() || buffer.size() - index < need) {
      std::size_t left = index > buffer.size() ? 0 : buffer.size() - index;
      fail(std::wstring(L"truncated ") + what + L": need " + std::to_wstring(need)
           + L" bytes at offset " + std::to_wstring(index) + L", " + std::to_wstring(left)
           + L" left");
   }
}

void
putBigEndian (Octets & buffer, std::uint64_t value, std::size_t len)
{
   for (std::size_t i = 0; i < len; ++i) {
      buffer.push_back(static_cast<Octet>(static_cast<unsigned char>(value >> (8 * (len - 1 - i)))));
   }
}

void
putLittleEndian (Octets & buffer, std::uint64_t value, std::size_t len)
{
   for (std::size_t i = 0; i < len; ++i) {
      buffer.push_back(static_cast<Octet>(static_cast<unsigned char>(value >> (8 * i))));
   }
}

std::uint64_t
getBigEndian (Octets const & buffer, std::size_t index, std::size_t len)
{
   std::uint64_t value = 0;
   for (std::size_t i = 0; i < len; ++i) {
      value = (value << 8) | static_cast<unsigned char>(buffer[index + i]);
   }
   return value;
}

std::uint64_t
getLittleEndian (Octets const & buffer, std::size_t index, std::size_t len)
{
   std::uint64_t value = 0;
   for (std::size_t i = len; i > 0; --i) {
      value = (value << 8) | static_cast<unsigned char>(buffer[index + i - 1]);
   }
   return value;
}

void
putCount (Octets & buffer, std::size_t count, wchar_t const * what)
{
   if (count > static_cast<std::size_t>(INT32_MAX)) {
      fail(std::wstring(what) + L" has " + std::to_wstring(count)
           + L" elements, more than an HLAinteger32BE count can say");
   }
   putBigEndian(buffer, count, 4);
}

std::size_t
getCount (Octets const & buffer, std::size_t & index, std::size_t minElementLength,
          wchar_t const * what)
{
   require(buffer, index, 4, what);
   std::int32_t n = static_cast<std::int32_t>(static_cast<std::uint32_t>(getBigEndian(buffer, index, 4)));
   index += 4;
   if (n < 0) {
      fail(std::wstring(what) + L": negative element count " + std::to_wstring(n));
   }
   std::size_t count = static_cast<std::size_t>(n);
   std::size_t left = buffer.size() - index;
   if (minElementLength > 0 && count > left / minElementLength) {
      fail(std::wstring(what) + L": element count " + std::to_wstring(count)
           + L" cannot fit in the " + std::to_wstring(left) + L" bytes left");
   }
   return count;
}

rti1516e::VariableLengthData
encodeWhole (rti1516e::DataElement const & element)
{
   rti1516e::VariableLengthData out;
   encodeWhole(element, out);
   return out;
}

void
encodeWhole (rti1516e::DataElement const & element, rti1516e::VariableLengthData & out)
{
   Octets bytes;
   element.encodeInto(bytes);
   rti1516e::VariableLengthDataFriend::adopt(out, std::move(bytes));
}

void
decodeWhole (rti1516e::DataElement & element, rti1516e::VariableLengthData const & in)
{
   char const * data = static_cast<char const *>(in.data());
   Octets bytes;
   if (data != nullptr) {
      bytes.assign(data, data + in.size());
   }
   std::size_t end = element.decodeFrom(bytes, 0);
   if (end != bytes.size()) {
      fail(std::to_wstring(bytes.size() - end) + L" trailing bytes after the value");
   }
}

Octets
encodingOf (rti1516e::DataElement const & element)
{
   Octets bytes;
   element.encodeInto(bytes);
   return bytes;
}

void
assignThroughEncoding (rti1516e::DataElement & target, rti1516e::DataElement const & value)
{
   Octets bytes = encodingOf(value);
   std::size_t end = target.decodeFrom(bytes, 0);
   if (end != bytes.size()) {
      fail(L"the element does not hold a value of the target's type");
   }
}

}
}
