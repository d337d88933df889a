// The byte-level rules every encoding class shares (IEEE 1516.2 §4.13): each element starts on
// its own octet boundary counted from the start of the buffer (zeros are written as padding,
// padding is skipped when reading), variable-length things carry an HLAinteger32BE count, and
// every read is bounds-checked: short or malformed input throws EncoderException before
// anything is read out of range or allocated for a count the input cannot hold.

#ifndef HLAMESH_CPP_ENCODING_OCTETS_H
#define HLAMESH_CPP_ENCODING_OCTETS_H

#include <RTI/VariableLengthData.h>
#include <RTI/encoding/DataElement.h>
#include <RTI/encoding/EncodingExceptions.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hlamesh
{
namespace cpp
{

using rti1516e::Octet;
typedef std::vector<Octet> Octets;

[[noreturn]] void fail (std::wstring const & message);

// Appends zeros until buffer.size() is a multiple of `boundary`.
void padTo (Octets & buffer, unsigned boundary);

// The index after the padding that precedes an element with `boundary` at `index`.
std::size_t skipPadding (Octets const & buffer, std::size_t index, unsigned boundary);

// Throws unless `need` bytes are left at `index`.
void require (Octets const & buffer, std::size_t index, std::size_t need, wchar_t const * what);

// The low `len` bytes of `value`, most significant first (big endian) or last.
void putBigEndian (Octets & buffer, std::uint64_t value, std::size_t len);
void putLittleEndian (Octets & buffer, std::uint64_t value, std::size_t len);

// `len` bytes at `index` (bounds-checked by the caller with require()).
std::uint64_t getBigEndian (Octets const & buffer, std::size_t index, std::size_t len);
std::uint64_t getLittleEndian (Octets const & buffer, std::size_t index, std::size_t len);

// A variable-length count (HLAinteger32BE); counts above 2^31-1 cannot be encoded.
void putCount (Octets & buffer, std::size_t count, wchar_t const * what);

// Reads a count at `index` (aligned to 4 by the caller) and advances `index`.  Throws for a
// negative count and for one that the bytes left cannot hold at `minElementLength` bytes each.
std::size_t getCount (Octets const & buffer, std::size_t & index, std::size_t minElementLength,
                      wchar_t const * what);

// encode() and encode(VariableLengthData&) in terms of encodeInto().
rti1516e::VariableLengthData encodeWhole (rti1516e::DataElement const & element);
void encodeWhole (rti1516e::DataElement const & element, rti1516e::VariableLengthData & out);

// decode(VariableLengthData) in terms of decodeFrom(): the value must use every byte.
void decodeWhole (rti1516e::DataElement & element, rti1516e::VariableLengthData const & in);

// The encoding of `element` on its own, the length getEncodedLength() reports.
Octets encodingOf (rti1516e::DataElement const & element);

// Copies `value` into `target` through its encoding: the generic "set the element's value"
// for elements that may live in caller memory.  Both must be the same type.
void assignThroughEncoding (rti1516e::DataElement & target, rti1516e::DataElement const & value);

}
}

#endif
