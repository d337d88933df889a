// A minimal check harness for the C++ test programs: CHECK records a failure and goes on,
// finish() prints "ok" or the failure count and gives the exit status.

#ifndef HLAMESH_CPP_TEST_CHECK_H
#define HLAMESH_CPP_TEST_CHECK_H

#include <RTI/Exception.h>

#include <cstdio>
#include <string>

static int failures = 0;

#define CHECK(cond)                                                                    \
   do {                                                                                \
      if (!(cond)) {                                                                   \
         std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
         ++failures;                                                                   \
      }                                                                                \
   } while (0)

// True when f() throws an E; false when it returns or throws anything else.
template <class E, class F>
bool
throwsExactly (F f)
{
   try {
      f();
   } catch (E const &) {
      return true;
   } catch (...) {
      return false;
   }
   return false;
}

#define CHECK_THROWS(E, expr) CHECK(throwsExactly<E>([&] { expr; }))

inline int
finish ()
{
   if (failures != 0) {
      std::fprintf(stderr, "%d checks failed\n", failures);
      return 1;
   }
   std::printf("ok\n");
   return 0;
}

#endif
