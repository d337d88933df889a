// How the library makes and reads handles.
//
// hlamesh handles are numbers: 32 bits for federates, classes, attributes, parameters and
// dimensions, 64 bits for object instances (the registering federate in the high half),
// message retractions and regions.  The standard gives every handle class a pointer, _impl; a
// handle stores its number in that pointer's bits and never points anywhere, so handles cost no
// allocation to copy, compare or keep in std::set / std::map.  That needs 64-bit pointers
// (checked below).  Zero is never assigned, so the zero pointer is the invalid handle.
//
// The encoding of a handle is its number big-endian in 4 or 8 bytes, the same bytes the Rust
// API's handles encode to (hlamesh_lrc::handles).  Decoding anything else (wrong length, zero)
// throws CouldNotDecode.

#ifndef HLAMESH_CPP_HANDLE_FRIEND_H
#define HLAMESH_CPP_HANDLE_FRIEND_H

#include <RTI/Handle.h>

#include <cstdint>

static_assert(sizeof(void *) >= sizeof(std::uint64_t),
              "hlamesh keeps 64-bit handle values in the handle's pointer: 64-bit targets only");

#define HLAMESH_DECLARE_HANDLE_FRIEND(HandleKind)                                   \
   class HandleKind##Friend                                                         \
   {                                                                                \
   public:                                                                          \
      static HandleKind fromValue (std::uint64_t value);                            \
      static std::uint64_t value (HandleKind const & handle);                       \
      /* Throws CouldNotDecode for bytes no HandleKind encodes to. */               \
      static HandleKind decode (VariableLengthData const & encoded);                \
      static std::size_t const encodedLength;                                       \
   };

namespace rti1516e
{
HLAMESH_DECLARE_HANDLE_FRIEND(FederateHandle)
HLAMESH_DECLARE_HANDLE_FRIEND(ObjectClassHandle)
HLAMESH_DECLARE_HANDLE_FRIEND(InteractionClassHandle)
HLAMESH_DECLARE_HANDLE_FRIEND(ObjectInstanceHandle)
HLAMESH_DECLARE_HANDLE_FRIEND(AttributeHandle)
HLAMESH_DECLARE_HANDLE_FRIEND(ParameterHandle)
HLAMESH_DECLARE_HANDLE_FRIEND(DimensionHandle)
HLAMESH_DECLARE_HANDLE_FRIEND(MessageRetractionHandle)
HLAMESH_DECLARE_HANDLE_FRIEND(RegionHandle)
}

#undef HLAMESH_DECLARE_HANDLE_FRIEND

#endif
