// VariableLengthData: a byte string that copies, borrows or takes over its bytes (see
// variable_length_data_impl.h).

#include "variable_length_data_impl.h"

#include <cstring>

namespace rti1516e
{

void
VariableLengthDataImplementation::releaseTaken ()
{
   if (storage == Storage::Taken && external != nullptr) {
      if (deleter != nullptr) {
         deleter(external);
      } else {
         delete[] static_cast<char *>(external);
      }
   }
   external = nullptr;
   externalSize = 0;
   deleter = nullptr;
}

void
VariableLengthDataImplementation::copy (void const * bytes, size_t len)
{
   // The source may be this object's own borrowed or taken bytes: copy before releasing them.
   std::vector<char> fresh;
   if (len > 0) {
      fresh.assign(static_cast<char const *>(bytes), static_cast<char const *>(bytes) + len);
   }
   adopt(std::move(fresh));
}

void
VariableLengthDataImplementation::borrow (void * bytes, size_t len)
{
   releaseTaken();
   owned.clear();
   storage = Storage::Borrowed;
   external = bytes;
   externalSize = len;
}

void
VariableLengthDataImplementation::take (void * bytes, size_t len,
                                        VariableLengthDataDeleteFunction del)
{
   if (storage == Storage::Taken && external == bytes) {
      // Taking over memory this object already owns must not free it.
      externalSize = len;
      deleter = del;
      return;
   }
   releaseTaken();
   owned.clear();
   storage = Storage::Taken;
   external = bytes;
   externalSize = len;
   deleter = del;
}

void
VariableLengthDataImplementation::adopt (std::vector<char> && bytes)
{
   releaseTaken();
   storage = Storage::Owned;
   owned = std::move(bytes);
}

void
VariableLengthDataFriend::adopt (VariableLengthData & target, std::vector<char> && bytes)
{
   if (target._impl == nullptr) {
      target._impl = new VariableLengthDataImplementation;
   }
   target._impl->adopt(std::move(bytes));
}

VariableLengthData::VariableLengthData () : _impl(nullptr) {}

VariableLengthData::VariableLengthData (void const * inData, size_t inSize) : _impl(nullptr)
{
   setData(inData, inSize);
}

VariableLengthData::VariableLengthData (VariableLengthData const & rhs) : _impl(nullptr)
{
   if (rhs.size() > 0) {
      setData(rhs.data(), rhs.size());
   }
}

VariableLengthData::~VariableLengthData ()
{
   delete _impl;
}

VariableLengthData &
VariableLengthData::operator= (VariableLengthData const & rhs)
{
   if (this != &rhs) {
      if (rhs.size() == 0 && _impl == nullptr) {
         return *this;
      }
      setData(rhs.data(), rhs.size());
   }
   return *this;
}

void const *
VariableLengthData::data () const
{
   return _impl == nullptr ? nullptr : _impl->data();
}

size_t
VariableLengthData::size () const
{
   return _impl == nullptr ? 0 : _impl->size();
}

void
VariableLengthData::setData (void const * inData, size_t inSize)
{
   if (_impl == nullptr) {
      _impl = new VariableLengthDataImplementation;
   }
   _impl->copy(inData, inData == nullptr ? 0 : inSize);
}

void
VariableLengthData::setDataPointer (void * inData, size_t inSize)
{
   if (_impl == nullptr) {
      _impl = new VariableLengthDataImplementation;
   }
   _impl->borrow(inData, inData == nullptr ? 0 : inSize);
}

void
VariableLengthData::takeDataPointer (void * inData, size_t inSize,
                                     VariableLengthDataDeleteFunction func)
{
   if (_impl == nullptr) {
      _impl = new VariableLengthDataImplementation;
   }
   _impl->take(inData, inData == nullptr ? 0 : inSize, func);
}

}
