// HLAfixedRecord (the fields in order, each on its own boundary, no trailing padding) and
// HLAvariantRecord (the discriminant, then the alternative it selects on that alternative's
// boundary; the record's boundary is the largest of the discriminant's and every
// alternative's).  Discriminants are matched by their encoding, so two discriminant values
// select the same alternative exactly when they encode to the same bytes.

#include "slot.h"

#include <RTI/encoding/HLAfixedRecord.h>
#include <RTI/encoding/HLAvariantRecord.h>

#include <algorithm>

using namespace hlamesh::cpp;

namespace rti1516e
{

class HLAfixedRecordImplementation
{
public:
   std::vector<Slot> elements;

   void checkIndex (size_t index, wchar_t const * where) const
   {
      if (index >= elements.size()) {
         fail(std::wstring(where) + L": index " + std::to_wstring(index)
              + L" out of range (size " + std::to_wstring(elements.size()) + L")");
      }
   }

   void checkType (size_t index, DataElement const & element) const
   {
      if (!elements[index].get().isSameTypeAs(element)) {
         fail(L"HLAfixedRecord: the element's type differs from field "
              + std::to_wstring(index));
      }
   }
};

HLAfixedRecord::HLAfixedRecord () : _impl(new HLAfixedRecordImplementation) {}

HLAfixedRecord::HLAfixedRecord (HLAfixedRecord const & rhs)
   : DataElement(rhs), _impl(new HLAfixedRecordImplementation)
{
   _impl->elements.reserve(rhs._impl->elements.size());
   for (Slot const & s : rhs._impl->elements) {
      _impl->elements.push_back(s.copy());
   }
}

HLAfixedRecord::~HLAfixedRecord ()
{
   delete _impl;
}

RTI_UNIQUE_PTR<DataElement>
HLAfixedRecord::clone () const
{
   return RTI_UNIQUE_PTR<DataElement>(new HLAfixedRecord(*this));
}

VariableLengthData
HLAfixedRecord::encode () const
{
   return encodeWhole(*this);
}

void
HLAfixedRecord::encode (VariableLengthData & inData) const
{
   encodeWhole(*this, inData);
}

void
HLAfixedRecord::encodeInto (std::vector<Octet> & buffer) const
{
   padTo(buffer, getOctetBoundary());
   for (Slot const & s : _impl->elements) {
      s.get().encodeInto(buffer);
   }
}

void
HLAfixedRecord::decode (VariableLengthData const & inData)
{
   decodeWhole(*this, inData);
}

size_t
HLAfixedRecord::decodeFrom (std::vector<Octet> const & buffer, size_t index)
{
   index = skipPadding(buffer, index, getOctetBoundary());
   for (Slot & s : _impl->elements) {
      index = s.get().decodeFrom(buffer, index);
   }
   return index;
}

size_t
HLAfixedRecord::getEncodedLength () const
{
   return encodingOf(*this).size();
}

unsigned int
HLAfixedRecord::getOctetBoundary () const
{
   unsigned int boundary = 1;
   for (Slot const & s : _impl->elements) {
      boundary = std::max(boundary, s.get().getOctetBoundary());
   }
   return boundary;
}

bool
HLAfixedRecord::isSameTypeAs (DataElement const & inData) const
{
   HLAfixedRecord const * other = dynamic_cast<HLAfixedRecord const *>(&inData);
   if (other == nullptr || !DataElement::isSameTypeAs(inData) || size() != other->size()) {
      return false;
   }
   for (size_t i = 0; i < size(); ++i) {
      if (!_impl->elements[i].get().isSameTypeAs(other->_impl->elements[i].get())) {
         return false;
      }
   }
   return true;
}

bool
HLAfixedRecord::hasElementSameTypeAs (size_t index, DataElement const & inData) const
{
   return index < size() && _impl->elements[index].get().isSameTypeAs(inData);
}

size_t
HLAfixedRecord::size () const
{
   return _impl->elements.size();
}

void
HLAfixedRecord::appendElement (const DataElement & dataElement)
{
   _impl->elements.push_back(Slot::copyOf(dataElement));
}

void
HLAfixedRecord::appendElementPointer (DataElement * dataElement)
{
   _impl->elements.push_back(
      Slot::pointTo(nonNull(dataElement, L"HLAfixedRecord::appendElementPointer")));
}

void
HLAfixedRecord::set (size_t index, const DataElement & dataElement)
{
   _impl->checkIndex(index, L"HLAfixedRecord::set");
   _impl->checkType(index, dataElement);
   _impl->elements[index].set(dataElement);
}

void
HLAfixedRecord::setElementPointer (size_t index, DataElement * dataElement)
{
   _impl->checkIndex(index, L"HLAfixedRecord::setElementPointer");
   _impl->checkType(index, *nonNull(dataElement, L"HLAfixedRecord::setElementPointer"));
   _impl->elements[index] = Slot::pointTo(dataElement);
}

const DataElement &
HLAfixedRecord::get (size_t index) const
{
   _impl->checkIndex(index, L"HLAfixedRecord::get");
   return _impl->elements[index].get();
}

DataElement const &
HLAfixedRecord::operator[] (size_t index) const
{
   return get(index);
}

class HLAvariantRecordImplementation
{
public:
   struct Variant
   {
      Octets key;  // the discriminant's encoding
      Slot discriminant;
      Slot value;
   };

   std::unique_ptr<DataElement> prototype;  // of the discriminant
   Slot discriminant;                       // the current one
   std::vector<Variant> variants;

   void checkDiscriminant (DataElement const & d) const
   {
      if (!prototype->isSameTypeAs(d)) {
         fail(L"HLAvariantRecord: the discriminant's type differs from the prototype");
      }
   }

   Variant * find (Octets const & key)
   {
      for (Variant & v : variants) {
         if (v.key == key) {
            return &v;
         }
      }
      return nullptr;
   }

   Variant & existing (DataElement const & d, wchar_t const * where)
   {
      checkDiscriminant(d);
      Variant * v = find(encodingOf(d));
      if (v == nullptr) {
         fail(std::wstring(where) + L": no variant for this discriminant");
      }
      return *v;
   }

   void add (DataElement const & d, Slot value)
   {
      checkDiscriminant(d);
      Octets key = encodingOf(d);
      if (find(key) != nullptr) {
         fail(L"HLAvariantRecord::addVariant: the discriminant already has a variant");
      }
      variants.push_back(Variant{key, Slot::copyOf(d), std::move(value)});
      discriminant = Slot::copyOf(d);
   }
};

HLAvariantRecord::HLAvariantRecord (DataElement const & discriminantPrototype)
   : _impl(new HLAvariantRecordImplementation)
{
   _impl->prototype.reset(discriminantPrototype.clone().release());
   _impl->discriminant = Slot::copyOf(discriminantPrototype);
}

HLAvariantRecord::HLAvariantRecord (HLAvariantRecord const & rhs)
   : DataElement(rhs), _impl(new HLAvariantRecordImplementation)
{
   _impl->prototype.reset(rhs._impl->prototype->clone().release());
   _impl->discriminant = rhs._impl->discriminant.copy();
   for (HLAvariantRecordImplementation::Variant const & v : rhs._impl->variants) {
      _impl->variants.push_back(
         HLAvariantRecordImplementation::Variant{v.key, v.discriminant.copy(), v.value.copy()});
   }
}

HLAvariantRecord::~HLAvariantRecord ()
{
   delete _impl;
}

RTI_UNIQUE_PTR<DataElement>
HLAvariantRecord::clone () const
{
   return RTI_UNIQUE_PTR<DataElement>(new HLAvariantRecord(*this));
}

VariableLengthData
HLAvariantRecord::encode () const
{
   return encodeWhole(*this);
}

void
HLAvariantRecord::encode (VariableLengthData & inData) const
{
   encodeWhole(*this, inData);
}

void
HLAvariantRecord::encodeInto (std::vector<Octet> & buffer) const
{
   DataElement const & d = _impl->discriminant.get();
   HLAvariantRecordImplementation::Variant * v = _impl->find(encodingOf(d));
   if (v == nullptr) {
      fail(L"HLAvariantRecord: the current discriminant selects no variant");
   }
   padTo(buffer, getOctetBoundary());
   d.encodeInto(buffer);
   v->value.get().encodeInto(buffer);
}

void
HLAvariantRecord::decode (VariableLengthData const & inData)
{
   decodeWhole(*this, inData);
}

size_t
HLAvariantRecord::decodeFrom (std::vector<Octet> const & buffer, size_t index)
{
   index = skipPadding(buffer, index, getOctetBoundary());
   RTI_UNIQUE_PTR<DataElement> d = _impl->prototype->clone();
   index = d->decodeFrom(buffer, index);
   HLAvariantRecordImplementation::Variant * v = _impl->find(encodingOf(*d));
   if (v == nullptr) {
      fail(L"HLAvariantRecord: the decoded discriminant selects no variant");
   }
   index = v->value.get().decodeFrom(buffer, index);
   _impl->discriminant = Slot::copyOf(*d);
   return index;
}

size_t
HLAvariantRecord::getEncodedLength () const
{
   return encodingOf(*this).size();
}

unsigned int
HLAvariantRecord::getOctetBoundary () const
{
   unsigned int boundary = _impl->prototype->getOctetBoundary();
   for (HLAvariantRecordImplementation::Variant const & v : _impl->variants) {
      boundary = std::max(boundary, v.value.get().getOctetBoundary());
   }
   return boundary;
}

bool
HLAvariantRecord::isSameTypeAs (DataElement const & inData) const
{
   HLAvariantRecord const * other = dynamic_cast<HLAvariantRecord const *>(&inData);
   return other != nullptr && DataElement::isSameTypeAs(inData)
      && _impl->prototype->isSameTypeAs(*other->_impl->prototype);
}

bool
HLAvariantRecord::isSameTypeAs (DataElement const & discriminant, DataElement const & inData) const
{
   if (!_impl->prototype->isSameTypeAs(discriminant)) {
      return false;
   }
   HLAvariantRecordImplementation::Variant * v = _impl->find(encodingOf(discriminant));
   return v != nullptr && v->value.get().isSameTypeAs(inData);
}

bool
HLAvariantRecord::hasMatchingDiscriminantTypeAs (DataElement const & dataElement) const
{
   return _impl->prototype->isSameTypeAs(dataElement);
}

void
HLAvariantRecord::addVariant (const DataElement & discriminant, const DataElement & valuePrototype)
{
   _impl->add(discriminant, Slot::copyOf(valuePrototype));
}

void
HLAvariantRecord::addVariantPointer (const DataElement & discriminant, DataElement * valuePtr)
{
   _impl->add(discriminant,
              Slot::pointTo(nonNull(valuePtr, L"HLAvariantRecord::addVariantPointer")));
}

void
HLAvariantRecord::setDiscriminant (const DataElement & discriminant)
{
   _impl->checkDiscriminant(discriminant);
   _impl->discriminant = Slot::copyOf(discriminant);
}

void
HLAvariantRecord::setVariant (const DataElement & discriminant, DataElement const & value)
{
   HLAvariantRecordImplementation::Variant & v =
      _impl->existing(discriminant, L"HLAvariantRecord::setVariant");
   if (!v.value.get().isSameTypeAs(value)) {
      fail(L"HLAvariantRecord::setVariant: the value's type differs from the variant's");
   }
   v.value.set(value);
   _impl->discriminant = Slot::copyOf(discriminant);
}

void
HLAvariantRecord::setVariantPointer (const DataElement & discriminant, DataElement * valuePtr)
{
   HLAvariantRecordImplementation::Variant & v =
      _impl->existing(discriminant, L"HLAvariantRecord::setVariantPointer");
   if (!v.value.get().isSameTypeAs(*nonNull(valuePtr, L"HLAvariantRecord::setVariantPointer"))) {
      fail(L"HLAvariantRecord::setVariantPointer: the value's type differs from the variant's");
   }
   v.value = Slot::pointTo(valuePtr);
   _impl->discriminant = Slot::copyOf(discriminant);
}

const DataElement &
HLAvariantRecord::getDiscriminant () const
{
   return _impl->discriminant.get();
}

const DataElement &
HLAvariantRecord::getVariant () const
{
   HLAvariantRecordImplementation::Variant * v =
      _impl->find(encodingOf(_impl->discriminant.get()));
   if (v == nullptr) {
      fail(L"HLAvariantRecord::getVariant: the discriminant selects no variant");
   }
   return v->value.get();
}

}
