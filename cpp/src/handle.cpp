// The nine handle classes (see handle_friend.h for the representation and the encoding).

#include "handle_friend.h"

#include <cstring>
#include <ostream>
#include <string>

namespace rti1516e
{
namespace
{

std::uint64_t
bitsOf (void const * impl)
{
   return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(impl));
}

template <class Impl>
Impl *
implOf (std::uint64_t value)
{
   return reinterpret_cast<Impl *>(static_cast<std::uintptr_t>(value));
}

void
putBigEndian (std::uint64_t value, std::size_t len, unsigned char * out)
{
   for (std::size_t i = 0; i < len; ++i) {
      out[i] = static_cast<unsigned char>(value >> (8 * (len - 1 - i)));
   }
}

// The value of `encoded`, or 0 when it is not `len` bytes.
std::uint64_t
getBigEndian (void const * data, std::size_t size, std::size_t len)
{
   if (data == nullptr || size != len) {
      return 0;
   }
   unsigned char const * bytes = static_cast<unsigned char const *>(data);
   std::uint64_t value = 0;
   for (std::size_t i = 0; i < len; ++i) {
      value = (value << 8) | bytes[i];
   }
   return value;
}

}

#define HLAMESH_DEFINE_HANDLE(HandleKind, Width)                                        \
   std::size_t const HandleKind##Friend::encodedLength = Width;                        \
                                                                                      \
   HandleKind HandleKind##Friend::fromValue (std::uint64_t value)                     \
   {                                                                                  \
      return HandleKind(implOf<HandleKind##Implementation>(value));                   \
   }                                                                                  \
                                                                                      \
   std::uint64_t HandleKind##Friend::value (HandleKind const & handle)                \
   {                                                                                  \
      return bitsOf(handle.getImplementation());                                      \
   }                                                                                  \
                                                                                      \
   HandleKind HandleKind##Friend::decode (VariableLengthData const & encoded)         \
   {                                                                                  \
      return HandleKind(encoded);                                                     \
   }                                                                                  \
                                                                                      \
   HandleKind::HandleKind () : _impl(nullptr) {}                                      \
                                                                                      \
   HandleKind::~HandleKind () noexcept {}                                             \
                                                                                      \
   HandleKind::HandleKind (HandleKind const & rhs) : _impl(rhs._impl) {}              \
                                                                                      \
   HandleKind & HandleKind::operator= (HandleKind const & rhs)                        \
   {                                                                                  \
      _impl = rhs._impl;                                                              \
      return *this;                                                                   \
   }                                                                                  \
                                                                                      \
   bool HandleKind::isValid () const { return _impl != nullptr; }                     \
                                                                                      \
   bool HandleKind::operator== (HandleKind const & rhs) const                         \
   {                                                                                  \
      return _impl == rhs._impl;                                                      \
   }                                                                                  \
                                                                                      \
   bool HandleKind::operator!= (HandleKind const & rhs) const                         \
   {                                                                                  \
      return _impl != rhs._impl;                                                      \
   }                                                                                  \
                                                                                      \
   bool HandleKind::operator< (HandleKind const & rhs) const                          \
   {                                                                                  \
      return bitsOf(_impl) < bitsOf(rhs._impl);                                       \
   }                                                                                  \
                                                                                      \
   long HandleKind::hash () const                                                     \
   {                                                                                  \
      std::uint64_t v = bitsOf(_impl);                                                \
      return static_cast<long>(v ^ (v >> 32));                                        \
   }                                                                                  \
                                                                                      \
   VariableLengthData HandleKind::encode () const                                     \
   {                                                                                  \
      VariableLengthData out;                                                         \
      encode(out);                                                                    \
      return out;                                                                     \
   }                                                                                  \
                                                                                      \
   void HandleKind::encode (VariableLengthData & buffer) const                        \
   {                                                                                  \
      unsigned char bytes[Width];                                                     \
      putBigEndian(bitsOf(_impl), Width, bytes);                                      \
      buffer.setData(bytes, Width);                                                   \
   }                                                                                  \
                                                                                      \
   size_t HandleKind::encode (void * buffer, size_t bufferSize) const                 \
   {                                                                                  \
      if (buffer == nullptr || bufferSize < Width) {                                  \
         throw CouldNotEncode(L"" #HandleKind " needs a buffer of "                    \
                              + std::to_wstring(Width) + L" bytes, got "              \
                              + std::to_wstring(bufferSize));                         \
      }                                                                               \
      putBigEndian(bitsOf(_impl), Width, static_cast<unsigned char *>(buffer));       \
      return Width;                                                                   \
   }                                                                                  \
                                                                                      \
   size_t HandleKind::encodedLength () const { return Width; }                        \
                                                                                      \
   std::wstring HandleKind::toString () const                                         \
   {                                                                                  \
      if (_impl == nullptr) {                                                         \
         return L"" #HandleKind "(invalid)";                                          \
      }                                                                               \
      return L"" #HandleKind "(" + std::to_wstring(bitsOf(_impl)) + L")";             \
   }                                                                                  \
                                                                                      \
   HandleKind##Implementation const * HandleKind::getImplementation () const          \
   {                                                                                  \
      return _impl;                                                                   \
   }                                                                                  \
                                                                                      \
   HandleKind##Implementation * HandleKind::getImplementation () { return _impl; }    \
                                                                                      \
   HandleKind::HandleKind (HandleKind##Implementation * impl) : _impl(impl) {}        \
                                                                                      \
   HandleKind::HandleKind (VariableLengthData const & encodedValue) : _impl(nullptr)  \
   {                                                                                  \
      std::uint64_t v = getBigEndian(encodedValue.data(), encodedValue.size(), Width); \
      if (v == 0) {                                                                   \
         throw CouldNotDecode(L"not an encoded " #HandleKind ": "                     \
                              + std::to_wstring(encodedValue.size())                  \
                              + L" bytes, a valid one is " + std::to_wstring(Width)   \
                              + L" bytes and not zero");                              \
      }                                                                               \
      _impl = implOf<HandleKind##Implementation>(v);                                  \
   }                                                                                  \
                                                                                      \
   std::wostream & operator<< (std::wostream & stream, HandleKind const & handle)     \
   {                                                                                  \
      return stream << handle.toString();                                             \
   }

HLAMESH_DEFINE_HANDLE(FederateHandle, 4)
HLAMESH_DEFINE_HANDLE(ObjectClassHandle, 4)
HLAMESH_DEFINE_HANDLE(InteractionClassHandle, 4)
HLAMESH_DEFINE_HANDLE(ObjectInstanceHandle, 8)
HLAMESH_DEFINE_HANDLE(AttributeHandle, 4)
HLAMESH_DEFINE_HANDLE(ParameterHandle, 4)
HLAMESH_DEFINE_HANDLE(DimensionHandle, 4)
HLAMESH_DEFINE_HANDLE(MessageRetractionHandle, 8)
HLAMESH_DEFINE_HANDLE(RegionHandle, 8)

#undef HLAMESH_DEFINE_HANDLE

}
