// DataElement's own members: the destructor, type comparison and the default hash.

#include "octets.h"

#include <typeinfo>

namespace rti1516e
{

DataElement::~DataElement () {}

bool
DataElement::isSameTypeAs (DataElement const & inData) const
{
   return typeid(*this) == typeid(inData);
}

// FNV-1a over the element's encoding: equal values hash equal, whatever their class does with
// its memory.  An element that cannot be encoded hashes as its class alone.
Integer64
DataElement::hash () const
{
   std::uint64_t h = 14695981039346656037ull;
   try {
      for (Octet o : hlamesh::cpp::encodingOf(*this)) {
         h ^= static_cast<unsigned char>(o);
         h *= 1099511628211ull;
      }
   } catch (EncoderException const &) {
      h ^= typeid(*this).hash_code();
   }
   return static_cast<Integer64>(h);
}

}
