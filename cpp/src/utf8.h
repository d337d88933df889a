// std::wstring <-> UTF-8 at the boundary between the C++ API (names, labels and designators are
// std::wstring) and the Rust core (UTF-8 everywhere).  wchar_t holds UTF-32 on Linux and macOS
// and UTF-16 on Windows; both are handled.

#ifndef HLAMESH_CPP_UTF8_H
#define HLAMESH_CPP_UTF8_H

#include <cstddef>
#include <string>

namespace hlamesh
{
namespace cpp
{

// UTF-8 of `text`.  False (and `out` unspecified) when `text` holds a value that is no Unicode
// scalar value: a lone surrogate, or a code point above U+10FFFF.
bool toUtf8 (std::wstring const & text, std::string & out);

// UTF-8 of `text`, each invalid value replaced by U+FFFD.
std::string toUtf8Lossy (std::wstring const & text);

// The text of `len` bytes of UTF-8.  False when the bytes are not valid UTF-8 (overlong forms,
// surrogates, values above U+10FFFF, truncated sequences).
bool fromUtf8 (char const * bytes, std::size_t len, std::wstring & out);

// The text of UTF-8 bytes, each invalid sequence replaced by U+FFFD.
std::wstring fromUtf8Lossy (char const * bytes, std::size_t len);

inline std::wstring
fromUtf8Lossy (std::string const & bytes)
{
   return fromUtf8Lossy(bytes.data(), bytes.size());
}

}
}

#endif
