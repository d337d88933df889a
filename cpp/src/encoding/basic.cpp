// The basic data representations of IEEE 1516.2 table 24 and the HLA string, character and
// boolean types built on them: each class keeps its value in its own memory or in the caller's
// (the pointer constructors and setDataPointer), and encodes it with the codec below.

#include "octets.h"

#include <RTI/encoding/BasicDataElements.h>

#include <cstring>

using namespace hlamesh::cpp;

namespace
{

// Fixed-size numbers: `Bytes` bytes, in the given byte order, aligned to their own size.
template <class Value, std::size_t Bytes, bool BigEndian>
struct IntegerCodec
{
   typedef Value Type;
   static unsigned const boundary = Bytes;
   static std::size_t length (Value const &) { return Bytes; }
   static void put (Octets & buffer, Value const & v)
   {
      std::uint64_t bits = static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
      if (BigEndian) {
         putBigEndian(buffer, bits, Bytes);
      } else {
         putLittleEndian(buffer, bits, Bytes);
      }
   }
   static std::size_t get (Octets const & buffer, std::size_t index, Value & v)
   {
      require(buffer, index, Bytes, L"integer");
      std::uint64_t bits = BigEndian ? getBigEndian(buffer, index, Bytes)
                                     : getLittleEndian(buffer, index, Bytes);
      v = static_cast<Value>(bits);
      return index + Bytes;
   }
};

template <class Value, class Bits, bool BigEndian>
struct FloatCodec
{
   typedef Value Type;
   static unsigned const boundary = sizeof(Bits);
   static std::size_t length (Value const &) { return sizeof(Bits); }
   static void put (Octets & buffer, Value const & v)
   {
      Bits bits;
      std::memcpy(&bits, &v, sizeof bits);
      if (BigEndian) {
         putBigEndian(buffer, bits, sizeof bits);
      } else {
         putLittleEndian(buffer, bits, sizeof bits);
      }
   }
   static std::size_t get (Octets const & buffer, std::size_t index, Value & v)
   {
      require(buffer, index, sizeof(Bits), L"float");
      Bits bits = static_cast<Bits>(BigEndian ? getBigEndian(buffer, index, sizeof(Bits))
                                              : getLittleEndian(buffer, index, sizeof(Bits)));
      std::memcpy(&v, &bits, sizeof bits);
      return index + sizeof(Bits);
   }
};

// HLAoctet, HLAbyte, HLAASCIIchar: one byte, no alignment.
template <class Value>
struct ByteCodec
{
   typedef Value Type;
   static unsigned const boundary = 1;
   static std::size_t length (Value const &) { return 1; }
   static void put (Octets & buffer, Value const & v) { buffer.push_back(static_cast<Octet>(v)); }
   static std::size_t get (Octets const & buffer, std::size_t index, Value & v)
   {
      require(buffer, index, 1, L"octet");
      v = static_cast<Value>(buffer[index]);
      return index + 1;
   }
};

// HLAoctetPair: `first` is the more significant octet.
template <bool BigEndian>
struct OctetPairCodec
{
   typedef rti1516e::OctetPair Type;
   static unsigned const boundary = 2;
   static std::size_t length (Type const &) { return 2; }
   static void put (Octets & buffer, Type const & v)
   {
      buffer.push_back(BigEndian ? v.first : v.second);
      buffer.push_back(BigEndian ? v.second : v.first);
   }
   static std::size_t get (Octets const & buffer, std::size_t index, Type & v)
   {
      require(buffer, index, 2, L"HLAoctetPair");
      v.first = buffer[index + (BigEndian ? 0 : 1)];
      v.second = buffer[index + (BigEndian ? 1 : 0)];
      return index + 2;
   }
};

// HLAboolean: an enumeration on HLAinteger32BE, HLAfalse = 0 and HLAtrue = 1; other values
// are malformed.
struct BooleanCodec
{
   typedef bool Type;
   static unsigned const boundary = 4;
   static std::size_t length (bool const &) { return 4; }
   static void put (Octets & buffer, bool const & v) { putBigEndian(buffer, v ? 1 : 0, 4); }
   static std::size_t get (Octets const & buffer, std::size_t index, bool & v)
   {
      require(buffer, index, 4, L"HLAboolean");
      std::uint64_t raw = getBigEndian(buffer, index, 4);
      if (raw > 1) {
         fail(L"invalid HLAboolean value "
              + std::to_wstring(static_cast<std::int32_t>(static_cast<std::uint32_t>(raw))));
      }
      v = raw == 1;
      return index + 4;
   }
};

// HLAunicodeChar: one UTF-16 code unit, big endian.
struct UnicodeCharCodec
{
   typedef wchar_t Type;
   static unsigned const boundary = 2;
   static std::size_t length (wchar_t const &) { return 2; }
   static void put (Octets & buffer, wchar_t const & v)
   {
      std::uint32_t c = static_cast<std::uint32_t>(v);
      if (c > 0xFFFF) {
         fail(L"HLAunicodeChar holds one UTF-16 code unit; U+" + std::to_wstring(c)
              + L" needs two (use HLAunicodeString)");
      }
      putBigEndian(buffer, c, 2);
   }
   static std::size_t get (Octets const & buffer, std::size_t index, wchar_t & v)
   {
      require(buffer, index, 2, L"HLAunicodeChar");
      v = static_cast<wchar_t>(getBigEndian(buffer, index, 2));
      return index + 2;
   }
};

// HLAASCIIstring: count, then one byte per character (the bytes of the std::string as they are).
struct AsciiStringCodec
{
   typedef std::string Type;
   static unsigned const boundary = 4;
   static std::size_t length (std::string const & v) { return 4 + v.size(); }
   static void put (Octets & buffer, std::string const & v)
   {
      putCount(buffer, v.size(), L"HLAASCIIstring");
      buffer.insert(buffer.end(), v.begin(), v.end());
   }
   static std::size_t get (Octets const & buffer, std::size_t index, std::string & v)
   {
      std::size_t n = getCount(buffer, index, 1, L"HLAASCIIstring");
      v.assign(buffer.begin() + static_cast<std::ptrdiff_t>(index),
               buffer.begin() + static_cast<std::ptrdiff_t>(index + n));
      return index + n;
   }
};

// The UTF-16 code units of `text`; false for a value that is no Unicode scalar value.
bool
utf16Units (std::wstring const & text, std::vector<std::uint16_t> & units)
{
   units.clear();
   units.reserve(text.size());
   for (std::size_t i = 0; i < text.size(); ++i) {
      std::uint32_t c = static_cast<std::uint32_t>(text[i]);
      if (sizeof(wchar_t) == 2 || c < 0x10000) {
         if (sizeof(wchar_t) > 2 && c >= 0xD800 && c <= 0xDFFF) {
            return false;
         }
         units.push_back(static_cast<std::uint16_t>(c));
      } else if (c <= 0x10FFFF) {
         c -= 0x10000;
         units.push_back(static_cast<std::uint16_t>(0xD800 + (c >> 10)));
         units.push_back(static_cast<std::uint16_t>(0xDC00 + (c & 0x3FF)));
      } else {
         return false;
      }
   }
   return true;
}

// HLAunicodeString: count of UTF-16 code units, then the units big endian.  A std::wstring
// holds UTF-32 on Linux: characters above U+FFFF become surrogate pairs, and decoding joins
// them again; an unpaired surrogate in the input is malformed.
struct UnicodeStringCodec
{
   typedef std::wstring Type;
   static unsigned const boundary = 4;
   static std::size_t length (std::wstring const & v)
   {
      std::vector<std::uint16_t> units;
      if (!utf16Units(v, units)) {
         fail(L"HLAunicodeString holds a value that is not a Unicode character");
      }
      return 4 + 2 * units.size();
   }
   static void put (Octets & buffer, std::wstring const & v)
   {
      std::vector<std::uint16_t> units;
      if (!utf16Units(v, units)) {
         fail(L"HLAunicodeString holds a value that is not a Unicode character");
      }
      putCount(buffer, units.size(), L"HLAunicodeString");
      for (std::uint16_t u : units) {
         putBigEndian(buffer, u, 2);
      }
   }
   static std::size_t get (Octets const & buffer, std::size_t index, std::wstring & v)
   {
      std::size_t n = getCount(buffer, index, 2, L"HLAunicodeString");
      std::wstring out;
      out.reserve(n);
      for (std::size_t i = 0; i < n; ++i) {
         std::uint32_t u = static_cast<std::uint32_t>(getBigEndian(buffer, index + 2 * i, 2));
         if (sizeof(wchar_t) > 2 && u >= 0xD800 && u <= 0xDFFF) {
            std::uint32_t low = i + 1 < n
               ? static_cast<std::uint32_t>(getBigEndian(buffer, index + 2 * (i + 1), 2))
               : 0;
            if (u > 0xDBFF || low < 0xDC00 || low > 0xDFFF) {
               fail(L"HLAunicodeString holds an unpaired UTF-16 surrogate at unit "
                    + std::to_wstring(i));
            }
            u = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00);
            ++i;
         }
         out.push_back(static_cast<wchar_t>(u));
      }
      v.swap(out);
      return index + 2 * n;
   }
};

// The value a basic element encodes: its own, or the caller's.
template <class Codec>
class BasicValue
{
public:
   typedef typename Codec::Type Type;
   Type & ref () { return external != nullptr ? *external : own; }
   Type const & ref () const { return external != nullptr ? *external : own; }

   Type own = Type();
   Type * external = nullptr;
};

}

namespace rti1516e
{

#define HLAMESH_BASIC_ELEMENT(Class, Codec)                                             \
   class Class##Implementation : public BasicValue<Codec>                              \
   {                                                                                  \
   };                                                                                 \
                                                                                      \
   Class::Class () : _impl(new Class##Implementation) {}                              \
                                                                                      \
   Class::Class (Codec::Type const & inData) : _impl(new Class##Implementation)       \
   {                                                                                  \
      _impl->own = inData;                                                            \
   }                                                                                  \
                                                                                      \
   Class::Class (Codec::Type * inData) : _impl(new Class##Implementation)             \
   {                                                                                  \
      _impl->external = inData;                                                       \
   }                                                                                  \
                                                                                      \
   Class::Class (Class const & rhs) : DataElement(rhs), _impl(new Class##Implementation) \
   {                                                                                  \
      _impl->own = rhs._impl->ref();                                                  \
   }                                                                                  \
                                                                                      \
   Class::~Class () { delete _impl; }                                                 \
                                                                                      \
   Class & Class::operator= (Class const & rhs)                                       \
   {                                                                                  \
      if (this != &rhs) {                                                             \
         _impl->ref() = rhs._impl->ref();                                             \
      }                                                                               \
      return *this;                                                                   \
   }                                                                                  \
                                                                                      \
   RTI_UNIQUE_PTR<DataElement> Class::clone () const                                  \
   {                                                                                  \
      return RTI_UNIQUE_PTR<DataElement>(new Class(_impl->ref()));                    \
   }                                                                                  \
                                                                                      \
   VariableLengthData Class::encode () const { return encodeWhole(*this); }           \
                                                                                      \
   void Class::encode (VariableLengthData & inData) const { encodeWhole(*this, inData); } \
                                                                                      \
   void Class::encodeInto (std::vector<Octet> & buffer) const                         \
   {                                                                                  \
      padTo(buffer, Codec::boundary);                                                 \
      Codec::put(buffer, _impl->ref());                                               \
   }                                                                                  \
                                                                                      \
   void Class::decode (VariableLengthData const & inData) { decodeWhole(*this, inData); } \
                                                                                      \
   size_t Class::decodeFrom (std::vector<Octet> const & buffer, size_t index)         \
   {                                                                                  \
      index = skipPadding(buffer, index, Codec::boundary);                            \
      Codec::Type value = Codec::Type();                                              \
      index = Codec::get(buffer, index, value);                                       \
      _impl->ref() = value;                                                           \
      return index;                                                                   \
   }                                                                                  \
                                                                                      \
   size_t Class::getEncodedLength () const { return Codec::length(_impl->ref()); }    \
                                                                                      \
   unsigned int Class::getOctetBoundary () const { return Codec::boundary; }          \
                                                                                      \
   Integer64 Class::hash () const { return DataElement::hash(); }                     \
                                                                                      \
   void Class::setDataPointer (Codec::Type * inData)                                  \
   {                                                                                  \
      if (inData == nullptr) {                                                        \
         throw EncoderException(L"" #Class "::setDataPointer: null pointer");         \
      }                                                                               \
      _impl->external = inData;                                                       \
   }                                                                                  \
                                                                                      \
   void Class::set (Codec::Type inData) { _impl->ref() = inData; }                    \
                                                                                      \
   Codec::Type Class::get () const { return _impl->ref(); }                           \
                                                                                      \
   Class & Class::operator= (Codec::Type rhs)                                         \
   {                                                                                  \
      _impl->ref() = rhs;                                                             \
      return *this;                                                                   \
   }                                                                                  \
                                                                                      \
   Class::operator Codec::Type () const { return _impl->ref(); }

typedef ByteCodec<char> AsciiCharCodec;
typedef ByteCodec<Octet> OctetCodec;
typedef FloatCodec<float, std::uint32_t, true> Float32BECodec;
typedef FloatCodec<float, std::uint32_t, false> Float32LECodec;
typedef FloatCodec<double, std::uint64_t, true> Float64BECodec;
typedef FloatCodec<double, std::uint64_t, false> Float64LECodec;
typedef IntegerCodec<Integer16, 2, true> Integer16BECodec;
typedef IntegerCodec<Integer16, 2, false> Integer16LECodec;
typedef IntegerCodec<Integer32, 4, true> Integer32BECodec;
typedef IntegerCodec<Integer32, 4, false> Integer32LECodec;
typedef IntegerCodec<Integer64, 8, true> Integer64BECodec;
typedef IntegerCodec<Integer64, 8, false> Integer64LECodec;
typedef OctetPairCodec<true> OctetPairBECodec;
typedef OctetPairCodec<false> OctetPairLECodec;

HLAMESH_BASIC_ELEMENT(HLAASCIIchar, AsciiCharCodec)
HLAMESH_BASIC_ELEMENT(HLAASCIIstring, AsciiStringCodec)
HLAMESH_BASIC_ELEMENT(HLAboolean, BooleanCodec)
HLAMESH_BASIC_ELEMENT(HLAbyte, OctetCodec)
HLAMESH_BASIC_ELEMENT(HLAfloat32BE, Float32BECodec)
HLAMESH_BASIC_ELEMENT(HLAfloat32LE, Float32LECodec)
HLAMESH_BASIC_ELEMENT(HLAfloat64BE, Float64BECodec)
HLAMESH_BASIC_ELEMENT(HLAfloat64LE, Float64LECodec)
HLAMESH_BASIC_ELEMENT(HLAinteger16LE, Integer16LECodec)
HLAMESH_BASIC_ELEMENT(HLAinteger16BE, Integer16BECodec)
HLAMESH_BASIC_ELEMENT(HLAinteger32BE, Integer32BECodec)
HLAMESH_BASIC_ELEMENT(HLAinteger32LE, Integer32LECodec)
HLAMESH_BASIC_ELEMENT(HLAinteger64BE, Integer64BECodec)
HLAMESH_BASIC_ELEMENT(HLAinteger64LE, Integer64LECodec)
HLAMESH_BASIC_ELEMENT(HLAoctet, OctetCodec)
HLAMESH_BASIC_ELEMENT(HLAoctetPairBE, OctetPairBECodec)
HLAMESH_BASIC_ELEMENT(HLAoctetPairLE, OctetPairLECodec)
HLAMESH_BASIC_ELEMENT(HLAunicodeChar, UnicodeCharCodec)
HLAMESH_BASIC_ELEMENT(HLAunicodeString, UnicodeStringCodec)

#undef HLAMESH_BASIC_ELEMENT

}
