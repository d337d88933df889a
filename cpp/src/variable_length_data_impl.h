// What is behind VariableLengthData's _impl, and VariableLengthDataFriend, the library's way
// in: adopting a std::vector without a copy (decoders, the RTI layer).

#ifndef HLAMESH_CPP_VARIABLE_LENGTH_DATA_IMPL_H
#define HLAMESH_CPP_VARIABLE_LENGTH_DATA_IMPL_H

#include <RTI/VariableLengthData.h>

#include <vector>

namespace rti1516e
{

// The bytes are in one of three places: `owned` (copies), caller memory the object only
// borrows (setDataPointer), or caller memory it took over and frees with `deleter`
// (takeDataPointer).  An object with no data has no implementation at all (_impl == nullptr),
// so default-constructed values cost no allocation.
class VariableLengthDataImplementation
{
public:
   enum class Storage { Owned, Borrowed, Taken };

   VariableLengthDataImplementation () = default;
   VariableLengthDataImplementation (VariableLengthDataImplementation const &) = delete;
   VariableLengthDataImplementation & operator= (VariableLengthDataImplementation const &) = delete;
   ~VariableLengthDataImplementation () { releaseTaken(); }

   void const * data () const { return storage == Storage::Owned ? owned.data() : external; }
   size_t size () const { return storage == Storage::Owned ? owned.size() : externalSize; }

   void copy (void const * bytes, size_t len);
   void borrow (void * bytes, size_t len);
   void take (void * bytes, size_t len, VariableLengthDataDeleteFunction del);
   void adopt (std::vector<char> && bytes);

private:
   void releaseTaken ();

   Storage storage = Storage::Owned;
   std::vector<char> owned;
   void * external = nullptr;
   size_t externalSize = 0;
   VariableLengthDataDeleteFunction deleter = nullptr;
};

class VariableLengthDataFriend
{
public:
   // Moves `bytes` into `target` (no copy).
   static void adopt (VariableLengthData & target, std::vector<char> && bytes);
};

}

#endif
