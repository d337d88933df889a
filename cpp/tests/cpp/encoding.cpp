// Encoding test program.  Every case builds one value with the standard's encoding classes
// (and a blank element of the same shape to decode into).
//
//   encoding encode   prints "name hex" for every case (the Rust test compares with the
//                     Rust encoder's bytes for the same values);
//   encoding decode   reads "name hex" lines (the Rust encoder's bytes), decodes each into a
//                     blank element of the case's shape and prints its encoding again;
//   encoding check    round trips, and short, long, malformed and random input: decoding
//                     must throw EncoderException (nothing else, no crash).

#include "check.h"

#include <RTI/RTI1516.h>
#include <RTI/encoding/BasicDataElements.h>
#include <RTI/encoding/HLAfixedArray.h>
#include <RTI/encoding/HLAfixedRecord.h>
#include <RTI/encoding/HLAopaqueData.h>
#include <RTI/encoding/HLAvariableArray.h>
#include <RTI/encoding/HLAvariantRecord.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace rti1516e;

typedef std::unique_ptr<DataElement> Element;
typedef std::function<Element(bool)> Builder;  // true: the blank shape to decode into

struct Case
{
   std::string name;
   Builder build;
};

static std::vector<Case> cases;

static void
add (std::string const & name, Builder build)
{
   cases.push_back(Case{name, build});
}

template <class T, class V>
static Builder
basic (V value)
{
   return [value](bool blank) { return Element(blank ? new T() : new T(value)); };
}

static std::string
hex (std::vector<Octet> const & bytes)
{
   static char const digits[] = "0123456789abcdef";
   std::string out;
   for (Octet o : bytes) {
      unsigned char b = static_cast<unsigned char>(o);
      out.push_back(digits[b >> 4]);
      out.push_back(digits[b & 15]);
   }
   return out.empty() ? "-" : out;
}

static std::vector<Octet>
unhex (std::string const & text)
{
   std::vector<Octet> out;
   if (text == "-") {
      return out;
   }
   for (std::size_t i = 0; i + 1 < text.size(); i += 2) {
      out.push_back(static_cast<Octet>(std::stoi(text.substr(i, 2), nullptr, 16)));
   }
   return out;
}

static std::vector<Octet>
bytesOf (VariableLengthData const & v)
{
   char const * p = static_cast<char const *>(v.data());
   return p == nullptr ? std::vector<Octet>() : std::vector<Octet>(p, p + v.size());
}

static std::vector<Octet>
encoded (DataElement const & e)
{
   return bytesOf(e.encode());
}

// A record of (HLAoctet, HLAinteger32BE), the element of the nested case's array.
static Element
pair (char a, Integer32 b)
{
   HLAfixedRecord * r = new HLAfixedRecord;
   r->appendElement(HLAoctet(a));
   r->appendElement(HLAinteger32BE(b));
   return Element(r);
}

// The variant of the variant cases: HLAinteger32BE discriminant 1 → HLAfloat64BE,
// 2 → HLAASCIIstring, 3 → nothing (an empty record).
static Element
variant (int which, bool blank)
{
   HLAvariantRecord * v = new HLAvariantRecord(HLAinteger32BE(0));
   v->addVariant(HLAinteger32BE(1), HLAfloat64BE());
   v->addVariant(HLAinteger32BE(2), HLAASCIIstring());
   v->addVariant(HLAinteger32BE(3), HLAfixedRecord());
   if (blank) {
      v->setDiscriminant(HLAinteger32BE(0));
   } else if (which == 1) {
      v->setVariant(HLAinteger32BE(1), HLAfloat64BE(6.25));
   } else if (which == 2) {
      v->setVariant(HLAinteger32BE(2), HLAASCIIstring("xyz"));
   } else {
      v->setDiscriminant(HLAinteger32BE(3));
   }
   return Element(v);
}

static void
defineCases ()
{
   add("i16be", basic<HLAinteger16BE>(Integer16(-2)));
   add("i16le", basic<HLAinteger16LE>(Integer16(0x1234)));
   add("i32be", basic<HLAinteger32BE>(Integer32(-123456789)));
   add("i32le", basic<HLAinteger32LE>(Integer32(0x01020304)));
   add("i64be", basic<HLAinteger64BE>(Integer64(-0x0102030405060708LL)));
   add("i64le", basic<HLAinteger64LE>(Integer64(0x0102030405060708LL)));
   add("f32be", basic<HLAfloat32BE>(1.5f));
   add("f32le", basic<HLAfloat32LE>(-0.1f));
   add("f64be", basic<HLAfloat64BE>(3.141592653589793));
   add("f64le", basic<HLAfloat64LE>(-2.5e-300));
   add("octet", basic<HLAoctet>(Octet(0xAB)));
   add("byte", basic<HLAbyte>(Octet(0x7F)));
   add("asciichar", basic<HLAASCIIchar>('A'));
   add("bool_true", basic<HLAboolean>(true));
   add("bool_false", basic<HLAboolean>(false));
   add("octetpair_be", basic<HLAoctetPairBE>(OctetPair(Octet(0x12), Octet(0x34))));
   add("octetpair_le", basic<HLAoctetPairLE>(OctetPair(Octet(0x12), Octet(0x34))));
   add("unicodechar", basic<HLAunicodeChar>(L'\u00e9'));
   add("asciistring", basic<HLAASCIIstring>(std::string("hello, HLA")));
   add("asciistring_latin1", basic<HLAASCIIstring>(std::string("\xe9t\xe9")));
   add("unicodestring", basic<HLAunicodeString>(std::wstring(L"Gr\u00fc\u00dfe, \U0001F600")));
   add("unicodestring_empty", basic<HLAunicodeString>(std::wstring()));
   add("opaque", [](bool blank) {
      Octet const bytes[] = {1, 2, 3, Octet(0xFF)};
      return Element(blank ? new HLAopaqueData() : new HLAopaqueData(bytes, 4));
   });
   add("fixedarray_i16", [](bool blank) {
      HLAfixedArray * a = new HLAfixedArray(HLAinteger16BE(), 3);
      if (!blank) {
         a->set(0, HLAinteger16BE(1));
         a->set(1, HLAinteger16BE(-1));
         a->set(2, HLAinteger16BE(300));
      }
      return Element(a);
   });
   add("fixedarray_f64le", [](bool blank) {
      HLAfixedArray * a = new HLAfixedArray(HLAfloat64LE(), 2);
      if (!blank) {
         a->set(0, HLAfloat64LE(0.5));
         a->set(1, HLAfloat64LE(-1e10));
      }
      return Element(a);
   });
   add("vararray_i64", [](bool blank) {
      HLAvariableArray * a = new HLAvariableArray(HLAinteger64BE());
      if (!blank) {
         a->addElement(HLAinteger64BE(1));
         a->addElement(HLAinteger64BE(-2));
      }
      return Element(a);
   });
   add("vararray_empty", [](bool) { return Element(new HLAvariableArray(HLAinteger64BE())); });
   add("vararray_octet", [](bool blank) {
      HLAvariableArray * a = new HLAvariableArray(HLAoctet());
      if (!blank) {
         for (int i = 0; i < 5; ++i) {
            a->addElement(HLAoctet(Octet(10 * i)));
         }
      }
      return Element(a);
   });
   add("vararray_strings", [](bool blank) {
      HLAvariableArray * a = new HLAvariableArray(HLAASCIIstring());
      if (!blank) {
         a->addElement(HLAASCIIstring("a"));
         a->addElement(HLAASCIIstring("bcd"));
      }
      return Element(a);
   });
   add("vararray_i16", [](bool blank) {
      HLAvariableArray * a = new HLAvariableArray(HLAinteger16BE());
      if (!blank) {
         a->addElement(HLAinteger16BE(7));
         a->addElement(HLAinteger16BE(8));
         a->addElement(HLAinteger16BE(9));
      }
      return Element(a);
   });
   add("record_mixed", [](bool blank) {
      HLAfixedRecord * r = new HLAfixedRecord;
      r->appendElement(HLAoctet(blank ? 0 : 1));
      r->appendElement(HLAfloat64BE(blank ? 0.0 : 2.5));
      r->appendElement(HLAinteger16BE(blank ? 0 : 7));
      r->appendElement(HLAASCIIstring(blank ? "" : "ab"));
      r->appendElement(HLAboolean(!blank));
      return Element(r);
   });
   add("record_nested", [](bool blank) {
      HLAfixedRecord * r = new HLAfixedRecord;
      r->appendElement(HLAinteger16BE(blank ? 0 : 5));
      HLAvariableArray list(*pair(0, 0));
      if (!blank) {
         list.addElement(*pair(1, 100));
         list.addElement(*pair(2, -100));
      }
      r->appendElement(list);
      return Element(r);
   });
   add("variant_float", [](bool blank) { return variant(1, blank); });
   add("variant_text", [](bool blank) { return variant(2, blank); });
   add("variant_nothing", [](bool blank) { return variant(3, blank); });
   add("variant_octet_disc", [](bool blank) {
      HLAvariantRecord * v = new HLAvariantRecord(HLAoctet());
      v->addVariant(HLAoctet(1), HLAfloat64BE());
      if (blank) {
         v->setDiscriminant(HLAoctet(Octet(0)));
      } else {
         v->setVariant(HLAoctet(1), HLAfloat64BE(1.0));
      }
      return Element(v);
   });
   add("record_with_variant", [](bool blank) {
      HLAfixedRecord * r = new HLAfixedRecord;
      r->appendElement(HLAoctet(blank ? 0 : 9));
      r->appendElement(*variant(1, blank));
      return Element(r);
   });
}

static Case const *
findCase (std::string const & name)
{
   for (Case const & c : cases) {
      if (c.name == name) {
         return &c;
      }
   }
   return nullptr;
}

static int
encodeAll ()
{
   for (Case const & c : cases) {
      std::cout << c.name << ' ' << hex(encoded(*c.build(false))) << '\n';
   }
   return 0;
}

static int
decodeAll ()
{
   std::string name, text;
   int status = 0;
   while (std::cin >> name >> text) {
      Case const * c = findCase(name);
      if (c == nullptr) {
         std::cerr << "unknown case " << name << '\n';
         status = 1;
         continue;
      }
      std::vector<Octet> bytes = unhex(text);
      Element e = c->build(true);
      try {
         e->decode(VariableLengthData(bytes.data(), bytes.size()));
         std::cout << name << ' ' << hex(encoded(*e)) << '\n';
      } catch (Exception const & ex) {
         std::wcerr << L"decode of " << name.c_str() << L" failed: " << ex.what() << L'\n';
         status = 1;
      }
   }
   return status;
}

static std::uint64_t rngState = 0x9E3779B97F4A7C15ull;

static unsigned
nextRandom ()
{
   rngState ^= rngState << 13;
   rngState ^= rngState >> 7;
   rngState ^= rngState << 17;
   return static_cast<unsigned>(rngState);
}

// Decoding `bytes` into a blank `c` either works or throws EncoderException.
static bool
decodesOrRefuses (Case const & c, std::vector<Octet> const & bytes)
{
   Element e = c.build(true);
   try {
      e->decode(VariableLengthData(bytes.data(), bytes.size()));
      return true;
   } catch (EncoderException const &) {
      return true;
   } catch (...) {
      return false;
   }
}

static void
checkCase (Case const & c)
{
   Element value = c.build(false);
   std::vector<Octet> bytes = encoded(*value);

   // getEncodedLength agrees with the bytes; decode gives the value back; clones and copies
   // encode the same.
   CHECK(value->getEncodedLength() == bytes.size());
   Element back = c.build(true);
   back->decode(VariableLengthData(bytes.data(), bytes.size()));
   CHECK(encoded(*back) == bytes);
   CHECK(encoded(*value->clone()) == bytes);
   CHECK(value->isSameTypeAs(*back));
   CHECK(value->hash() == back->hash());

   // decodeFrom after a one-byte prefix: the value starts on its boundary, and decodeFrom
   // returns the index after it.
   std::vector<Octet> shifted(1, Octet(0x55));
   value->encodeInto(shifted);
   std::size_t start = value->getOctetBoundary() > 1 ? value->getOctetBoundary() : 1;
   CHECK(shifted.size() == start + bytes.size());
   Element fromShifted = c.build(true);
   CHECK(fromShifted->decodeFrom(shifted, 1) == shifted.size());
   CHECK(encoded(*fromShifted) == bytes);

   // Every strict prefix is short; one byte more is trailing garbage.
   for (std::size_t n = 0; n < bytes.size(); ++n) {
      std::vector<Octet> prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
      Element e = c.build(true);
      if (!throwsExactly<EncoderException>(
             [&] { e->decode(VariableLengthData(prefix.data(), prefix.size())); })) {
         std::fprintf(stderr, "%s: a %zu-byte prefix decoded\n", c.name.c_str(), n);
         ++failures;
      }
   }
   std::vector<Octet> longer = bytes;
   longer.push_back(0);
   Element e = c.build(true);
   CHECK_THROWS(EncoderException, e->decode(VariableLengthData(longer.data(), longer.size())));

   // Random bytes, and the value's bytes with random bytes changed, never crash.
   for (int round = 0; round < 300; ++round) {
      std::vector<Octet> noise(nextRandom() % 40);
      for (Octet & o : noise) {
         o = static_cast<Octet>(nextRandom());
      }
      CHECK(decodesOrRefuses(c, noise));
      std::vector<Octet> mutated = bytes;
      if (!mutated.empty()) {
         mutated[nextRandom() % mutated.size()] = static_cast<Octet>(nextRandom());
      }
      CHECK(decodesOrRefuses(c, mutated));
   }
}

static void
checkSpecificMalformed ()
{
   auto refuses = [](DataElement & e, std::vector<unsigned char> const & raw) {
      std::vector<Octet> bytes(raw.begin(), raw.end());
      return throwsExactly<EncoderException>(
         [&] { e.decode(VariableLengthData(bytes.data(), bytes.size())); });
   };
   HLAboolean b;
   CHECK(refuses(b, {0, 0, 0, 2}));
   CHECK(refuses(b, {0xFF, 0xFF, 0xFF, 0xFF}));
   HLAASCIIstring s;
   CHECK(refuses(s, {0xFF, 0xFF, 0xFF, 0xFF}));        // negative count
   CHECK(refuses(s, {0x7F, 0xFF, 0xFF, 0xFF, 'a'}));   // count far beyond the input
   HLAunicodeString u;
   CHECK(refuses(u, {0, 0, 0, 1, 0xD8, 0x3D}));        // unpaired high surrogate
   CHECK(refuses(u, {0, 0, 0, 1, 0xDE, 0x00}));        // lone low surrogate
   CHECK(refuses(u, {0, 0, 0, 1, 0}));                 // half a code unit
   HLAopaqueData o;
   CHECK(refuses(o, {0x80, 0, 0, 0}));
   HLAvariableArray big(HLAinteger64BE{});
   CHECK(refuses(big, {0x7F, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}));
   HLAvariableArray empties(HLAfixedRecord{});
   CHECK(refuses(empties, {0x7F, 0xFF, 0xFF, 0xFF}));  // 2^31-1 zero-size elements
   Element v = variant(1, true);
   CHECK(refuses(*v, {0, 0, 0, 9}));                   // no variant for discriminant 9
   HLAfixedArray fixed(HLAinteger32BE(), 2);
   CHECK(refuses(fixed, {0, 0, 0, 1}));

   // Encoding refuses values it cannot represent.
   HLAunicodeChar wide(static_cast<wchar_t>(0x1F600));
   CHECK_THROWS(EncoderException, wide.encode());
   HLAunicodeString surrogate(std::wstring(1, static_cast<wchar_t>(0xD800)));
   CHECK_THROWS(EncoderException, surrogate.encode());
   HLAvariantRecord unmapped(HLAinteger32BE(0));
   CHECK_THROWS(EncoderException, unmapped.encode());

   // Type and index errors are EncoderException too.
   HLAvariableArray ints(HLAinteger32BE{});
   CHECK_THROWS(EncoderException, ints.addElement(HLAfloat32BE(1.0f)));
   CHECK_THROWS(EncoderException, ints.get(0));
   CHECK_THROWS(EncoderException, ints.addElementPointer(nullptr));
   HLAfixedRecord rec;
   rec.appendElement(HLAinteger32BE(1));
   CHECK_THROWS(EncoderException, rec.set(0, HLAoctet(1)));
   CHECK_THROWS(EncoderException, rec.get(1));
   HLAvariantRecord vr(HLAinteger32BE(0));
   vr.addVariant(HLAinteger32BE(1), HLAoctet());
   CHECK_THROWS(EncoderException, vr.addVariant(HLAinteger32BE(1), HLAoctet()));
   CHECK_THROWS(EncoderException, vr.setDiscriminant(HLAoctet(1)));
   CHECK_THROWS(EncoderException, vr.setVariant(HLAinteger32BE(2), HLAoctet(3)));
   HLAinteger32BE basic;
   CHECK_THROWS(EncoderException, basic.setDataPointer(nullptr));
}

// Values held in the caller's memory: encoding reads it, decoding and set() write it.
static void
checkExternalMemory ()
{
   Integer32 x = 5;
   HLAinteger32BE e(&x);
   x = 0x01020304;
   std::vector<Octet> expect = {1, 2, 3, 4};
   CHECK(encoded(e) == expect);
   std::vector<Octet> other = {0, 0, 0, 9};
   e.decode(VariableLengthData(other.data(), other.size()));
   CHECK(x == 9);
   e = 11;
   CHECK(x == 11);
   CHECK(e.get() == 11);

   HLAinteger16BE a(1), b(2);
   HLAvariableArray arr(HLAinteger16BE{});
   arr.addElementPointer(&a);
   arr.addElementPointer(&b);
   std::vector<Octet> two = {0, 0, 0, 2, 0, 7, 0, 8};
   arr.decode(VariableLengthData(two.data(), two.size()));
   CHECK(a.get() == 7 && b.get() == 8);
   arr.set(0, HLAinteger16BE(70));
   CHECK(a.get() == 70);

   Octet storage[8] = {1, 2, 3, 0, 0, 0, 0, 0};
   Octet * ptr = storage;
   HLAopaqueData opaque(&ptr, sizeof storage, 3);
   std::vector<Octet> three = {0, 0, 0, 3, 1, 2, 3};
   CHECK(encoded(opaque) == three);
   std::vector<Octet> five = {0, 0, 0, 5, 9, 8, 7, 6, 5};
   opaque.decode(VariableLengthData(five.data(), five.size()));
   CHECK(opaque.dataLength() == 5 && storage[0] == 9 && storage[4] == 5);
   std::vector<Octet> nine = {0, 0, 0, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9};
   CHECK_THROWS(EncoderException, opaque.decode(VariableLengthData(nine.data(), nine.size())));
   CHECK_THROWS(EncoderException, HLAopaqueData(nullptr, 4, 0));

   // The basic classes' value accessors.
   HLAunicodeString text(L"x\U0001F600");
   CHECK(text.get() == std::wstring(L"x\U0001F600"));
   CHECK(text.getEncodedLength() == 4 + 2 * 3);
   HLAoctetPairLE pairLe(OctetPair(Octet(1), Octet(2)));
   CHECK(static_cast<OctetPair>(pairLe) == OctetPair(Octet(1), Octet(2)));
   HLAboolean flag;
   flag = true;
   CHECK(flag.get());
}

static int
checkAll ()
{
   for (Case const & c : cases) {
      checkCase(c);
   }
   checkSpecificMalformed();
   checkExternalMemory();
   return finish();
}

int
main (int argc, char ** argv)
{
   defineCases();
   std::string mode = argc > 1 ? argv[1] : "check";
   if (mode == "encode") {
      return encodeAll();
   }
   if (mode == "decode") {
      return decodeAll();
   }
   return checkAll();
}
