// The logical time classes keep their 64-bit value (a double or an Integer64) in the bits of
// the _impl pointer the standard declares, so times and intervals cost no allocation; the
// pointer is never dereferenced.  64-bit targets only (as for handles).

#ifndef HLAMESH_CPP_TIME_BITS_H
#define HLAMESH_CPP_TIME_BITS_H

#include <cstdint>
#include <cstring>
#include <string>

static_assert(sizeof(void *) >= sizeof(std::uint64_t),
              "hlamesh keeps 64-bit time values in the time's pointer: 64-bit targets only");

namespace hlamesh
{
namespace cpp
{

template <class Impl>
Impl *
toImpl (std::uint64_t bits)
{
   return reinterpret_cast<Impl *>(static_cast<std::uintptr_t>(bits));
}

inline std::uint64_t
fromImpl (void const * impl)
{
   return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(impl));
}

template <class Impl>
Impl *
doubleImpl (double v)
{
   if (v == 0.0) {
      v = 0.0;  // -0.0 encodes as +0.0, as in the Rust API
   }
   std::uint64_t bits;
   std::memcpy(&bits, &v, sizeof bits);
   return toImpl<Impl>(bits);
}

template <class Impl>
Impl *
integerImpl (long long v)
{
   return toImpl<Impl>(static_cast<std::uint64_t>(v));
}

inline long long
integerOf (void const * impl)
{
   return static_cast<long long>(fromImpl(impl));
}

inline double
doubleOf (void const * impl)
{
   std::uint64_t bits = fromImpl(impl);
   double v;
   std::memcpy(&v, &bits, sizeof v);
   return v;
}

inline void
putBigEndian64 (std::uint64_t bits, void * out)
{
   unsigned char * p = static_cast<unsigned char *>(out);
   for (int i = 0; i < 8; ++i) {
      p[i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
   }
}

inline std::uint64_t
getBigEndian64 (void const * in)
{
   unsigned char const * p = static_cast<unsigned char const *>(in);
   std::uint64_t bits = 0;
   for (int i = 0; i < 8; ++i) {
      bits = (bits << 8) | p[i];
   }
   return bits;
}

// The shortest text that reads back as `v` ("inf" for the final time).
std::wstring doubleToString (double v);

}
}

#endif
