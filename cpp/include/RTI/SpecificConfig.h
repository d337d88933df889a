/***********************************************************************
   The IEEE hereby grants a general, royalty-free license to copy, distribute,
   display and make derivative works from this material, for all purposes,
   provided that any use of the material contains the following
   attribution: "Reprinted with permission from IEEE 1516.1(TM)-2010".
   Should you require additional information, contact the Manager, Standards
   Intellectual Property, IEEE Standards Association (stds-ipr@ieee.org).
***********************************************************************/
/***********************************************************************
   IEEE 1516.1 High Level Architecture Interface Specification C++ API
   File: RTI/SpecificConfig.h
***********************************************************************/

// Purpose: This file contains definitions that are used to isolate
// platform-specific elements of the API.  It is not implementation-specific.

#ifndef RTI_SpecificConfig_h
#define RTI_SpecificConfig_h

#if defined(_WIN32)
#if defined(_MSC_VER) && defined(RTI_DISABLE_WARNINGS)
// disable warning about truncating template instantiation symbol names
#pragma warning(disable: 4786)
// disable warning about exceptions not being part of a method's signature
#pragma warning(disable: 4290)
// disable warnings about a "dllexport" class using a regular class
#pragma warning(disable: 4251)
#endif
//
// On Windows, BUILDING_RTI should be defined only when compiling
// the RTI DLL (i.e. by RTI developers).  BUILDING_FEDTIME should
// be defined only when building a libfedtime DLL.  STATIC_RTI
// should be defined when building a static (non-DLL) RTI library,
// or when building a federate that wants to statically link to
// an RTI library.  STATIC_FEDTIME should be defined when building
// a static (non-DLL) fedtime library, or when building a federate
// that wants to statically link to a fedtime library.
//
#if defined(STATIC_RTI)
#define RTI_EXPORT
#else
#if defined(BUILDING_RTI)
// define the proper qualifiers to import/export symbols from/to DLL
#define RTI_EXPORT __declspec(dllexport)
#else // !BUILDING_RTI
#define RTI_EXPORT __declspec(dllimport)
#endif // BUILDING_RTI
#endif // STATIC_RTI

#if defined(STATIC_FEDTIME)
#define RTI_EXPORT_FEDTIME
#else
#if defined(BUILDING_FEDTIME)
// define the proper qualifiers to import/export symbols from/to DLL
#define RTI_EXPORT_FEDTIME __declspec(dllexport)
#else // !BUILDING_FEDTIME
#define RTI_EXPORT_FEDTIME __declspec(dllimport)
#endif // BUILDING_FEDTIME
#endif // STATIC_FEDTIME

#else // !_WIN32
// no special qualfifers are necessary on non-WIN32 platforms
#define RTI_EXPORT
#define RTI_EXPORT_FEDTIME
#endif

// hlamesh: the C++03 text of the standard declared dynamic exception
// specifications, which C++17 removed.  They are documentation only; the
// exceptions a call may throw are listed in RTI_THROW((...)) and compile to
// nothing, so the headers build unchanged under C++17, C++20 and later.
#define RTI_NOEXCEPT noexcept
#define RTI_THROW(...)

// hlamesh: on GCC-compatible compilers the libraries export the API classes
// with default visibility, so they can be built with -fvisibility=hidden.
#if !defined(_WIN32) && defined(__GNUC__)
#undef RTI_EXPORT
#undef RTI_EXPORT_FEDTIME
#define RTI_EXPORT __attribute__((visibility("default")))
#define RTI_EXPORT_FEDTIME __attribute__((visibility("default")))
#endif

// hlamesh: std::auto_ptr versus std::unique_ptr.
//
// The 2010 text returns std::auto_ptr from createRTIambassador,
// getTimeFactory, DataElement::clone and the time factories.  Federates
// written against other RTIs hold those results either in std::auto_ptr
// (libstdc++ still provides it, deprecated, in C++17 and C++20) or in
// std::unique_ptr.  These headers return rti1516e::OwnedPtr<T> instead (the
// standard's std::auto_ptr is spelled RTI_UNIQUE_PTR below): a one-pointer
// owning type that converts, taking ownership, to std::unique_ptr<U>,
// std::shared_ptr<U> and, where the standard library still has it, to
// std::auto_ptr<U>, for any U that T* converts to.  So all of these compile:
//
//    std::auto_ptr<RTIambassador>   a = factory.createRTIambassador();
//    std::auto_ptr<RTIambassador>   b(factory.createRTIambassador());
//    a = factory.createRTIambassador();
//    std::unique_ptr<RTIambassador> u = factory.createRTIambassador();
//    std::unique_ptr<RTIambassador> v(factory.createRTIambassador());
//    auto w = factory.createRTIambassador();  // an OwnedPtr: ->, *, get, release, reset
//
// Define RTI_NO_AUTO_PTR to leave the std::auto_ptr conversions out.
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#if !defined(RTI_NO_AUTO_PTR) && defined(__GLIBCXX__) && defined(_GLIBCXX_USE_DEPRECATED)
#if _GLIBCXX_USE_DEPRECATED
#define RTI_HAS_STD_AUTO_PTR 1
#endif
#endif

namespace rti1516e
{
   template <class T>
   class OwnedPtr
   {
      template <class U>
      using IfConvertible =
         typename std::enable_if<std::is_convertible<T*, U*>::value, int>::type;
      template <class U>
      using IfConvertibleFrom =
         typename std::enable_if<std::is_convertible<U*, T*>::value, int>::type;

   public:
      typedef T element_type;

      OwnedPtr () noexcept : _ptr(nullptr) {}
      OwnedPtr (std::nullptr_t) noexcept : _ptr(nullptr) {}
      explicit OwnedPtr (T* p) noexcept : _ptr(p) {}
      OwnedPtr (OwnedPtr&& rhs) noexcept : _ptr(rhs.release()) {}
      template <class U, IfConvertibleFrom<U> = 0>
      OwnedPtr (OwnedPtr<U>&& rhs) noexcept : _ptr(rhs.release()) {}
      template <class U, IfConvertibleFrom<U> = 0>
      OwnedPtr (std::unique_ptr<U>&& rhs) noexcept : _ptr(rhs.release()) {}
      OwnedPtr (OwnedPtr const &) = delete;
      OwnedPtr& operator= (OwnedPtr const &) = delete;
      OwnedPtr& operator= (OwnedPtr&& rhs) noexcept { reset(rhs.release()); return *this; }
      OwnedPtr& operator= (std::nullptr_t) noexcept { reset(); return *this; }
      ~OwnedPtr () { delete _ptr; }

      T* get () const noexcept { return _ptr; }
      T& operator* () const noexcept { return *_ptr; }
      T* operator-> () const noexcept { return _ptr; }
      explicit operator bool () const noexcept { return _ptr != nullptr; }
      T* release () noexcept { T* p = _ptr; _ptr = nullptr; return p; }
      void reset (T* p = nullptr) noexcept { T* old = _ptr; _ptr = p; delete old; }
      void swap (OwnedPtr& rhs) noexcept { T* p = _ptr; _ptr = rhs._ptr; rhs._ptr = p; }

      template <class U, IfConvertible<U> = 0>
      operator std::unique_ptr<U> () && noexcept { return std::unique_ptr<U>(release()); }
      template <class U, IfConvertible<U> = 0>
      operator std::shared_ptr<U> () && { return std::shared_ptr<U>(release()); }
#if defined(RTI_HAS_STD_AUTO_PTR)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
      // Copy-initialisation (std::auto_ptr<U> p = ...) uses this one ...
      template <class U, IfConvertible<U> = 0>
      operator std::auto_ptr<U> () && noexcept { return std::auto_ptr<U>(release()); }
      // ... direct-initialisation and assignment go through auto_ptr_ref.
      template <class U, IfConvertible<U> = 0>
      operator std::auto_ptr_ref<U> () && noexcept { return std::auto_ptr_ref<U>(release()); }
#pragma GCC diagnostic pop
#endif

   private:
      T* _ptr;
   };

   template <class T>
   bool operator== (OwnedPtr<T> const & p, std::nullptr_t) noexcept { return !p; }
   template <class T>
   bool operator== (std::nullptr_t, OwnedPtr<T> const & p) noexcept { return !p; }
   template <class T>
   bool operator!= (OwnedPtr<T> const & p, std::nullptr_t) noexcept { return static_cast<bool>(p); }
   template <class T>
   bool operator!= (std::nullptr_t, OwnedPtr<T> const & p) noexcept { return static_cast<bool>(p); }
}

// Where the standard's text says std::auto_ptr.  (Federates written for
// OpenRTI's headers use this name for their own DataElement::clone overrides.)
#define RTI_UNIQUE_PTR ::rti1516e::OwnedPtr

#endif // RTI_SpecificConfig_h
