// Conversions between std::wstring and UTF-8 (see utf8.h).

#include "utf8.h"

#include <cstdint>
#include <type_traits>

namespace hlamesh
{
namespace cpp
{
namespace
{

const char32_t replacement = 0xFFFD;

bool
isScalar (char32_t c)
{
   return c <= 0x10FFFF && (c < 0xD800 || c > 0xDFFF);
}

void
appendUtf8 (char32_t c, std::string & out)
{
   if (c < 0x80) {
      out.push_back(static_cast<char>(c));
   } else if (c < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
   } else if (c < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (c >> 12)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
   } else {
      out.push_back(static_cast<char>(0xF0 | (c >> 18)));
      out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
   }
}

void
appendWide (char32_t c, std::wstring & out)
{
   if (sizeof(wchar_t) >= 4 || c < 0x10000) {
      out.push_back(static_cast<wchar_t>(c));
   } else {
      c -= 0x10000;
      out.push_back(static_cast<wchar_t>(0xD800 + (c >> 10)));
      out.push_back(static_cast<wchar_t>(0xDC00 + (c & 0x3FF)));
   }
}

// Reads the code point at text[i], advancing i.  Returns false for an invalid value (i still
// advances past it).  UTF-16 surrogate pairs are joined when wchar_t is 16 bits.
bool
nextWide (std::wstring const & text, std::size_t & i, char32_t & c)
{
   c = static_cast<char32_t>(static_cast<std::make_unsigned<wchar_t>::type>(text[i++]));
   if (sizeof(wchar_t) == 2 && c >= 0xD800 && c <= 0xDBFF && i < text.size()) {
      char32_t low = static_cast<char32_t>(static_cast<std::uint16_t>(text[i]));
      if (low >= 0xDC00 && low <= 0xDFFF) {
         ++i;
         c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
      }
   }
   return isScalar(c);
}

// Reads one UTF-8 sequence at bytes[i], advancing i.  Returns false for an invalid sequence (i
// advances by at least one byte).
bool
nextUtf8 (char const * bytes, std::size_t len, std::size_t & i, char32_t & c)
{
   unsigned char b0 = static_cast<unsigned char>(bytes[i++]);
   if (b0 < 0x80) {
      c = b0;
      return true;
   }
   std::size_t extra;
   char32_t min;
   if ((b0 & 0xE0) == 0xC0) {
      extra = 1;
      c = b0 & 0x1F;
      min = 0x80;
   } else if ((b0 & 0xF0) == 0xE0) {
      extra = 2;
      c = b0 & 0x0F;
      min = 0x800;
   } else if ((b0 & 0xF8) == 0xF0) {
      extra = 3;
      c = b0 & 0x07;
      min = 0x10000;
   } else {
      return false;
   }
   for (std::size_t k = 0; k < extra; ++k) {
      if (i >= len) {
         return false;
      }
      unsigned char b = static_cast<unsigned char>(bytes[i]);
      if ((b & 0xC0) != 0x80) {
         return false;
      }
      ++i;
      c = (c << 6) | (b & 0x3F);
   }
   return c >= min && isScalar(c);
}

}

bool
toUtf8 (std::wstring const & text, std::string & out)
{
   out.clear();
   out.reserve(text.size());
   std::size_t i = 0;
   while (i < text.size()) {
      char32_t c;
      if (!nextWide(text, i, c)) {
         return false;
      }
      appendUtf8(c, out);
   }
   return true;
}

std::string
toUtf8Lossy (std::wstring const & text)
{
   std::string out;
   out.reserve(text.size());
   std::size_t i = 0;
   while (i < text.size()) {
      char32_t c;
      appendUtf8(nextWide(text, i, c) ? c : replacement, out);
   }
   return out;
}

bool
fromUtf8 (char const * bytes, std::size_t len, std::wstring & out)
{
   out.clear();
   out.reserve(len);
   std::size_t i = 0;
   while (i < len) {
      char32_t c;
      if (!nextUtf8(bytes, len, i, c)) {
         return false;
      }
      appendWide(c, out);
   }
   return true;
}

std::wstring
fromUtf8Lossy (char const * bytes, std::size_t len)
{
   std::wstring out;
   out.reserve(len);
   std::size_t i = 0;
   while (i < len) {
      char32_t c;
      appendWide(nextUtf8(bytes, len, i, c) ? c : replacement, out);
   }
   return out;
}

}
}
