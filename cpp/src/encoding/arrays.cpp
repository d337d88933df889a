// HLAfixedArray (the elements, each on its own boundary, no count) and HLAvariableArray (an
// HLAinteger32BE count, then the elements), both of elements like a prototype.

#include "slot.h"

#include <RTI/encoding/HLAfixedArray.h>
#include <RTI/encoding/HLAvariableArray.h>

#include <algorithm>

using namespace hlamesh::cpp;

namespace
{

// Decoding allows at most this many elements that encode in zero bytes (e.g. empty records):
// their count cannot be checked against the bytes left.
std::size_t const maxZeroSizeElements = 65536;

void
checkIndex (std::size_t index, std::size_t size, wchar_t const * where)
{
   if (index >= size) {
      fail(std::wstring(where) + L": index " + std::to_wstring(index) + L" out of range (size "
           + std::to_wstring(size) + L")");
   }
}

}

namespace rti1516e
{

class HLAfixedArrayImplementation
{
public:
   std::unique_ptr<DataElement> prototype;
   std::vector<Slot> elements;

   void checkType (DataElement const & element) const
   {
      if (!prototype->isSameTypeAs(element)) {
         fail(L"HLAfixedArray: the element's type differs from the array's prototype");
      }
   }
};

HLAfixedArray::HLAfixedArray (const DataElement & protoType, size_t length)
   : _impl(new HLAfixedArrayImplementation)
{
   _impl->prototype.reset(protoType.clone().release());
   _impl->elements.reserve(length);
   for (size_t i = 0; i < length; ++i) {
      _impl->elements.push_back(Slot::copyOf(protoType));
   }
}

HLAfixedArray::HLAfixedArray (HLAfixedArray const & rhs)
   : DataElement(rhs), _impl(new HLAfixedArrayImplementation)
{
   _impl->prototype.reset(rhs._impl->prototype->clone().release());
   _impl->elements.reserve(rhs._impl->elements.size());
   for (Slot const & s : rhs._impl->elements) {
      _impl->elements.push_back(s.copy());
   }
}

HLAfixedArray::~HLAfixedArray ()
{
   delete _impl;
}

RTI_UNIQUE_PTR<DataElement>
HLAfixedArray::clone () const
{
   return RTI_UNIQUE_PTR<DataElement>(new HLAfixedArray(*this));
}

VariableLengthData
HLAfixedArray::encode () const
{
   return encodeWhole(*this);
}

void
HLAfixedArray::encode (VariableLengthData & inData) const
{
   encodeWhole(*this, inData);
}

void
HLAfixedArray::encodeInto (std::vector<Octet> & buffer) const
{
   padTo(buffer, getOctetBoundary());
   for (Slot const & s : _impl->elements) {
      s.get().encodeInto(buffer);
   }
}

void
HLAfixedArray::decode (VariableLengthData const & inData)
{
   decodeWhole(*this, inData);
}

size_t
HLAfixedArray::decodeFrom (std::vector<Octet> const & buffer, size_t index)
{
   index = skipPadding(buffer, index, getOctetBoundary());
   for (Slot & s : _impl->elements) {
      index = s.get().decodeFrom(buffer, index);
   }
   return index;
}

size_t
HLAfixedArray::getEncodedLength () const
{
   return encodingOf(*this).size();
}

unsigned int
HLAfixedArray::getOctetBoundary () const
{
   return _impl->prototype->getOctetBoundary();
}

bool
HLAfixedArray::isSameTypeAs (DataElement const & inData) const
{
   HLAfixedArray const * other = dynamic_cast<HLAfixedArray const *>(&inData);
   return other != nullptr && DataElement::isSameTypeAs(inData) && size() == other->size()
      && _impl->prototype->isSameTypeAs(*other->_impl->prototype);
}

bool
HLAfixedArray::hasPrototypeSameTypeAs (DataElement const & dataElement) const
{
   return _impl->prototype->isSameTypeAs(dataElement);
}

size_t
HLAfixedArray::size () const
{
   return _impl->elements.size();
}

void
HLAfixedArray::set (size_t index, const DataElement & dataElement)
{
   checkIndex(index, size(), L"HLAfixedArray::set");
   _impl->checkType(dataElement);
   _impl->elements[index].set(dataElement);
}

void
HLAfixedArray::setElementPointer (size_t index, DataElement * dataElement)
{
   checkIndex(index, size(), L"HLAfixedArray::setElementPointer");
   _impl->checkType(*nonNull(dataElement, L"HLAfixedArray::setElementPointer"));
   _impl->elements[index] = Slot::pointTo(dataElement);
}

const DataElement &
HLAfixedArray::get (size_t index) const
{
   checkIndex(index, size(), L"HLAfixedArray::get");
   return _impl->elements[index].get();
}

DataElement const &
HLAfixedArray::operator[] (size_t index) const
{
   return get(index);
}

class HLAvariableArrayImplementation
{
public:
   std::unique_ptr<DataElement> prototype;
   std::vector<Slot> elements;

   void checkType (DataElement const & element) const
   {
      if (!prototype->isSameTypeAs(element)) {
         fail(L"HLAvariableArray: the element's type differs from the array's prototype");
      }
   }
};

HLAvariableArray::HLAvariableArray (const DataElement & prototype)
   : _impl(new HLAvariableArrayImplementation)
{
   _impl->prototype.reset(prototype.clone().release());
}

HLAvariableArray::HLAvariableArray (HLAvariableArray const & rhs)
   : DataElement(rhs), _impl(new HLAvariableArrayImplementation)
{
   _impl->prototype.reset(rhs._impl->prototype->clone().release());
   _impl->elements.reserve(rhs._impl->elements.size());
   for (Slot const & s : rhs._impl->elements) {
      _impl->elements.push_back(s.copy());
   }
}

HLAvariableArray::~HLAvariableArray ()
{
   delete _impl;
}

RTI_UNIQUE_PTR<DataElement>
HLAvariableArray::clone () const
{
   return RTI_UNIQUE_PTR<DataElement>(new HLAvariableArray(*this));
}

VariableLengthData
HLAvariableArray::encode () const
{
   return encodeWhole(*this);
}

void
HLAvariableArray::encode (VariableLengthData & inData) const
{
   encodeWhole(*this, inData);
}

void
HLAvariableArray::encodeInto (std::vector<Octet> & buffer) const
{
   padTo(buffer, getOctetBoundary());
   putCount(buffer, _impl->elements.size(), L"HLAvariableArray");
   for (Slot const & s : _impl->elements) {
      s.get().encodeInto(buffer);
   }
}

void
HLAvariableArray::decode (VariableLengthData const & inData)
{
   decodeWhole(*this, inData);
}

// Elements already in the array are decoded into (a caller's element keeps receiving values);
// missing ones are copies of the prototype; surplus ones are dropped.  The count is checked
// against the bytes left as the elements are read, one at least a byte long each, so a forged
// count fails on the input's end instead of allocating for it.
size_t
HLAvariableArray::decodeFrom (std::vector<Octet> const & buffer, size_t index)
{
   index = skipPadding(buffer, index, getOctetBoundary());
   size_t n = getCount(buffer, index, 0, L"HLAvariableArray");
   std::vector<Slot> & elements = _impl->elements;
   for (size_t i = 0; i < n; ++i) {
      if (i == elements.size()) {
         elements.push_back(Slot::copyOf(*_impl->prototype));
      }
      size_t before = index;
      index = elements[i].get().decodeFrom(buffer, index);
      if (index == before && n > maxZeroSizeElements) {
         fail(L"HLAvariableArray: " + std::to_wstring(n)
              + L" elements that encode in zero bytes is more than allowed");
      }
   }
   if (elements.size() > n) {
      elements.erase(elements.begin() + static_cast<std::ptrdiff_t>(n), elements.end());
   }
   return index;
}

size_t
HLAvariableArray::getEncodedLength () const
{
   return encodingOf(*this).size();
}

unsigned int
HLAvariableArray::getOctetBoundary () const
{
   return std::max(4u, _impl->prototype->getOctetBoundary());
}

size_t
HLAvariableArray::size () const
{
   return _impl->elements.size();
}

bool
HLAvariableArray::isSameTypeAs (DataElement const & inData) const
{
   HLAvariableArray const * other = dynamic_cast<HLAvariableArray const *>(&inData);
   return other != nullptr && DataElement::isSameTypeAs(inData)
      && _impl->prototype->isSameTypeAs(*other->_impl->prototype);
}

bool
HLAvariableArray::hasPrototypeSameTypeAs (DataElement const & dataElement) const
{
   return _impl->prototype->isSameTypeAs(dataElement);
}

void
HLAvariableArray::addElement (const DataElement & dataElement)
{
   _impl->checkType(dataElement);
   _impl->elements.push_back(Slot::copyOf(dataElement));
}

void
HLAvariableArray::addElementPointer (DataElement * dataElement)
{
   _impl->checkType(*nonNull(dataElement, L"HLAvariableArray::addElementPointer"));
   _impl->elements.push_back(Slot::pointTo(dataElement));
}

void
HLAvariableArray::set (size_t index, const DataElement & dataElement)
{
   checkIndex(index, size(), L"HLAvariableArray::set");
   _impl->checkType(dataElement);
   _impl->elements[index].set(dataElement);
}

void
HLAvariableArray::setElementPointer (size_t index, DataElement * dataElement)
{
   checkIndex(index, size(), L"HLAvariableArray::setElementPointer");
   _impl->checkType(*nonNull(dataElement, L"HLAvariableArray::setElementPointer"));
   _impl->elements[index] = Slot::pointTo(dataElement);
}

const DataElement &
HLAvariableArray::get (size_t index) const
{
   checkIndex(index, size(), L"HLAvariableArray::get");
   return _impl->elements[index].get();
}

DataElement const &
HLAvariableArray::operator[] (size_t index) const
{
   return get(index);
}

}
