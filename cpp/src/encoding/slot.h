// One element of a composite (array, record, variant): a copy the composite owns, or a caller's
// element the composite only points to (the *Pointer setters).

#ifndef HLAMESH_CPP_ENCODING_SLOT_H
#define HLAMESH_CPP_ENCODING_SLOT_H

#include "octets.h"

#include <memory>

namespace hlamesh
{
namespace cpp
{

class Slot
{
public:
   static Slot copyOf (rti1516e::DataElement const & element)
   {
      Slot s;
      s.owned.reset(element.clone().release());
      s.element = s.owned.get();
      return s;
   }

   static Slot pointTo (rti1516e::DataElement * element)
   {
      Slot s;
      s.element = element;
      return s;
   }

   Slot copy () const { return copyOf(*element); }

   // Sets the value: an owned element is replaced by a copy, a caller's element is written to.
   void set (rti1516e::DataElement const & value)
   {
      if (owned) {
         owned.reset(value.clone().release());
         element = owned.get();
      } else {
         assignThroughEncoding(*element, value);
      }
   }

   rti1516e::DataElement & get () const { return *element; }

private:
   std::unique_ptr<rti1516e::DataElement> owned;
   rti1516e::DataElement * element = nullptr;
};

// Throws unless `element` is not null.
inline rti1516e::DataElement *
nonNull (rti1516e::DataElement * element, wchar_t const * where)
{
   if (element == nullptr) {
      fail(std::wstring(where) + L": null element pointer");
   }
   return element;
}

}
}

#endif
