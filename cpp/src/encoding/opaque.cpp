// HLAopaqueData: an HLAinteger32BE count, then the bytes.  The bytes live in the element or in
// a caller's buffer (the Octet** constructor and setDataPointer); a value that does not fit the
// caller's buffer is refused with EncoderException rather than written past its end.

#include "octets.h"

#include <RTI/encoding/HLAopaqueData.h>

#include <cstring>

using namespace hlamesh::cpp;

namespace rti1516e
{

class HLAopaqueDataImplementation
{
public:
   Octet const * data () const { return external != nullptr ? *external : own.data(); }
   size_t size () const { return external != nullptr ? externalSize : own.size(); }

   void useExternal (Octet ** inData, size_t bufferSize, size_t dataSize)
   {
      if (inData == nullptr || *inData == nullptr || bufferSize == 0) {
         fail(L"HLAopaqueData: external memory must be a non-null buffer of non-zero size");
      }
      if (dataSize > bufferSize) {
         fail(L"HLAopaqueData: data length " + std::to_wstring(dataSize)
              + L" exceeds the buffer length " + std::to_wstring(bufferSize));
      }
      external = inData;
      externalCapacity = bufferSize;
      externalSize = dataSize;
      own.clear();
   }

   void assign (Octet const * bytes, size_t len)
   {
      if (external != nullptr) {
         if (len > externalCapacity) {
            fail(L"HLAopaqueData: " + std::to_wstring(len)
                 + L" bytes do not fit the caller's buffer of " + std::to_wstring(externalCapacity));
         }
         if (len > 0) {
            std::memmove(*external, bytes, len);
         }
         externalSize = len;
      } else {
         own.assign(bytes, bytes + len);
      }
   }

   std::vector<Octet> own;
   Octet ** external = nullptr;
   size_t externalCapacity = 0;
   size_t externalSize = 0;
};

HLAopaqueData::HLAopaqueData () : _impl(new HLAopaqueDataImplementation) {}

HLAopaqueData::HLAopaqueData (const Octet * inData, size_t dataSize)
   : _impl(new HLAopaqueDataImplementation)
{
   if (inData != nullptr) {
      _impl->own.assign(inData, inData + dataSize);
   }
}

HLAopaqueData::HLAopaqueData (Octet ** inData, size_t bufferSize, size_t dataSize)
   : _impl(new HLAopaqueDataImplementation)
{
   try {
      _impl->useExternal(inData, bufferSize, dataSize);
   } catch (...) {
      delete _impl;
      throw;
   }
}

HLAopaqueData::HLAopaqueData (HLAopaqueData const & rhs)
   : DataElement(rhs), _impl(new HLAopaqueDataImplementation)
{
   _impl->own.assign(rhs._impl->data(), rhs._impl->data() + rhs._impl->size());
}

HLAopaqueData::~HLAopaqueData ()
{
   delete _impl;
}

RTI_UNIQUE_PTR<DataElement>
HLAopaqueData::clone () const
{
   return RTI_UNIQUE_PTR<DataElement>(new HLAopaqueData(*this));
}

VariableLengthData
HLAopaqueData::encode () const
{
   return encodeWhole(*this);
}

void
HLAopaqueData::encode (VariableLengthData & inData) const
{
   encodeWhole(*this, inData);
}

void
HLAopaqueData::encodeInto (std::vector<Octet> & buffer) const
{
   padTo(buffer, 4);
   putCount(buffer, _impl->size(), L"HLAopaqueData");
   buffer.insert(buffer.end(), _impl->data(), _impl->data() + _impl->size());
}

void
HLAopaqueData::decode (VariableLengthData const & inData)
{
   decodeWhole(*this, inData);
}

size_t
HLAopaqueData::decodeFrom (std::vector<Octet> const & buffer, size_t index)
{
   index = skipPadding(buffer, index, 4);
   size_t n = getCount(buffer, index, 1, L"HLAopaqueData");
   _impl->assign(buffer.data() + index, n);
   return index + n;
}

size_t
HLAopaqueData::getEncodedLength () const
{
   return 4 + _impl->size();
}

unsigned int
HLAopaqueData::getOctetBoundary () const
{
   return 4;
}

size_t
HLAopaqueData::bufferLength () const
{
   return _impl->external != nullptr ? _impl->externalCapacity : _impl->own.size();
}

size_t
HLAopaqueData::dataLength () const
{
   return _impl->size();
}

void
HLAopaqueData::setDataPointer (Octet ** inData, size_t bufferSize, size_t dataSize)
{
   _impl->useExternal(inData, bufferSize, dataSize);
}

void
HLAopaqueData::set (const Octet * inData, size_t dataSize)
{
   _impl->assign(inData, inData == nullptr ? 0 : dataSize);
}

const Octet *
HLAopaqueData::get () const
{
   return _impl->data();
}

HLAopaqueData::operator const Octet * () const
{
   return _impl->data();
}

}
