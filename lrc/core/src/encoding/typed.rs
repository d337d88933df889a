//! The typed API: Rust types that know their HLA encoding.
//!
//! | HLA type | Rust type |
//! |---|---|
//! | HLAinteger16/32/64BE | `i16`, `i32`, `i64` (or [`Integer16BE`] …) |
//! | HLAinteger16/32/64LE | [`Integer16LE`], [`Integer32LE`], [`Integer64LE`] |
//! | HLAfloat32/64BE | `f32`, `f64` (or [`Float32BE`], [`Float64BE`]) |
//! | HLAfloat32/64LE | [`Float32LE`], [`Float64LE`] |
//! | HLAoctet, HLAbyte | `u8` |
//! | HLAoctetPairBE / LE | `u16` (or [`OctetPairBE`]) / [`OctetPairLE`] |
//! | HLAboolean | `bool` (decoding rejects values other than 0 and 1) |
//! | HLAASCIIchar | [`AsciiChar`] |
//! | HLAunicodeChar | [`UnicodeChar`] |
//! | HLAASCIIstring | [`AsciiString`] |
//! | HLAunicodeString | `String` (UTF-16BE) |
//! | HLAopaqueData | [`OpaqueData`] (same bytes as `Vec<u8>`) |
//! | HLAtoken | [`Token`] |
//! | HLAvariableArray of T | `Vec<T>` |
//! | HLAfixedArray of T, N | `[T; N]` |
//! | enumerations | [`crate::hla_enumeration!`] |
//! | HLAfixedRecord | [`crate::hla_fixed_record!`] |
//! | HLAvariantRecord | [`crate::hla_variant_record!`], or implement [`DataElement`] by hand (needed for `HLAother`): `put` the discriminant, then the alternative |

use super::buffer::{Decoder, Encoder};
use super::error::EncoderError;

/// A Rust type with an HLA encoding. `encode_into` and `decode_from` are called at an offset
/// already aligned to [`DataElement::octet_boundary`]; use [`Encoder::put`] / [`Decoder::get`]
/// for nested elements so padding is inserted for you.
pub trait DataElement: Sized {
    /// The type's octet boundary (1, 2, 4 or 8).
    fn octet_boundary() -> usize;
    /// The smallest possible encoding, used to bound element counts read from the wire.
    fn min_encoded_len() -> usize;
    /// Writes the value (the encoder is aligned).
    fn encode_into(&self, enc: &mut Encoder);
    /// Reads a value (the decoder is aligned).
    fn decode_from(dec: &mut Decoder<'_>) -> Result<Self, EncoderError>;

    /// The value's encoding, as its own buffer.
    fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::new();
        self.encode_into(&mut e);
        e.into_bytes()
    }

    /// Decodes a whole buffer; trailing bytes are an error.
    fn decode(bytes: &[u8]) -> Result<Self, EncoderError> {
        let mut d = Decoder::new(bytes);
        let v = Self::decode_from(&mut d)?;
        d.finish()?;
        Ok(v)
    }
}

impl Encoder {
    /// Pads to `T`'s boundary, then writes `v`.
    pub fn put<T: DataElement>(&mut self, v: &T) {
        self.align(T::octet_boundary());
        v.encode_into(self);
    }
}

impl Decoder<'_> {
    /// Skips padding to `T`'s boundary, then reads a `T`.
    pub fn get<T: DataElement>(&mut self) -> Result<T, EncoderError> {
        self.align(T::octet_boundary())?;
        T::decode_from(self)
    }
}

macro_rules! number {
    ($(#[$doc:meta])* $name:ident, $prim:ty, $to:ident, $from:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
        pub struct $name(pub $prim);

        impl DataElement for $name {
            fn octet_boundary() -> usize {
                std::mem::size_of::<$prim>()
            }
            fn min_encoded_len() -> usize {
                std::mem::size_of::<$prim>()
            }
            fn encode_into(&self, enc: &mut Encoder) {
                enc.write_bytes(&self.0.$to());
            }
            fn decode_from(dec: &mut Decoder<'_>) -> Result<Self, EncoderError> {
                Ok(Self(<$prim>::$from(dec.read_array()?)))
            }
        }
    };
}

number!(/// HLAinteger16BE.
    Integer16BE, i16, to_be_bytes, from_be_bytes);
number!(/// HLAinteger16LE.
    Integer16LE, i16, to_le_bytes, from_le_bytes);
number!(/// HLAinteger32BE.
    Integer32BE, i32, to_be_bytes, from_be_bytes);
number!(/// HLAinteger32LE.
    Integer32LE, i32, to_le_bytes, from_le_bytes);
number!(/// HLAinteger64BE.
    Integer64BE, i64, to_be_bytes, from_be_bytes);
number!(/// HLAinteger64LE.
    Integer64LE, i64, to_le_bytes, from_le_bytes);
number!(/// HLAfloat32BE.
    Float32BE, f32, to_be_bytes, from_be_bytes);
number!(/// HLAfloat32LE.
    Float32LE, f32, to_le_bytes, from_le_bytes);
number!(/// HLAfloat64BE.
    Float64BE, f64, to_be_bytes, from_be_bytes);
number!(/// HLAfloat64LE.
    Float64LE, f64, to_le_bytes, from_le_bytes);
number!(/// HLAoctetPairBE.
    OctetPairBE, u16, to_be_bytes, from_be_bytes);
number!(/// HLAoctetPairLE.
    OctetPairLE, u16, to_le_bytes, from_le_bytes);
number!(/// HLAunicodeChar (one UTF-16 code unit, big-endian).
    UnicodeChar, u16, to_be_bytes, from_be_bytes);
number!(/// HLAASCIIchar.
    AsciiChar, u8, to_be_bytes, from_be_bytes);

macro_rules! primitive {
    ($prim:ty, $to:ident, $from:ident) => {
        impl DataElement for $prim {
            fn octet_boundary() -> usize {
                std::mem::size_of::<$prim>()
            }
            fn min_encoded_len() -> usize {
                std::mem::size_of::<$prim>()
            }
            fn encode_into(&self, enc: &mut Encoder) {
                enc.write_bytes(&self.$to());
            }
            fn decode_from(dec: &mut Decoder<'_>) -> Result<Self, EncoderError> {
                Ok(<$prim>::$from(dec.read_array()?))
            }
        }
    };
}

// Plain numbers use the big-endian HLA types, which the MIM's own simple types build on.
primitive!(i16, to_be_bytes, from_be_bytes);
primitive!(i32, to_be_bytes, from_be_bytes);
primitive!(i64, to_be_bytes, from_be_bytes);
primitive!(f32, to_be_bytes, from_be_bytes);
primitive!(f64, to_be_bytes, from_be_bytes);
primitive!(u8, to_be_bytes, from_be_bytes);
primitive!(u16, to_be_bytes, from_be_bytes);

impl DataElement for bool {
    fn octet_boundary() -> usize {
        4
    }
    fn min_encoded_len() -> usize {
        4
    }
    fn encode_into(&self, enc: &mut Encoder) {
        enc.write_bytes(&i32::from(*self).to_be_bytes());
    }
    fn decode_from(dec: &mut Decoder<'_>) -> Result<Self, EncoderError> {
        match i32::from_be_bytes(dec.read_array()?) {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(EncoderError::InvalidBoolean(v.into())),
        }
    }
}

/// HLAtoken: a fixed array of zero HLAbyte; encodes as nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Token;

impl DataElement for Token {
    fn octet_boundary() -> usize {
        1
    }
    fn min_encoded_len() -> usize {
        0
    }
    fn encode_into(&self, _: &mut Encoder) {}
    fn decode_from(_: &mut Decoder<'_>) -> Result<Self, EncoderError> {
        Ok(Token)
    }
}

/// HLAASCIIstring: count, then one byte per character. Holds the bytes; characters above
/// U+00FF cannot be represented (see [`AsciiString::new`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AsciiString(pub Vec<u8>);

impl AsciiString {
    /// From text whose characters are all U+0000..=U+00FF (one byte each, Latin-1).
    pub fn new(s: &str) -> Result<Self, EncoderError> {
        s.chars()
            .map(u8::try_from)
            .collect::<Result<Vec<u8>, _>>()
            .map(AsciiString)
            .map_err(|_| EncoderError::InvalidString(format!("{s:?} is not Latin-1 text")))
    }

    /// The text (each byte read as Latin-1, so always exact).
    pub fn to_text(&self) -> String {
        self.0.iter().map(|&b| char::from(b)).collect()
    }
}

impl DataElement for AsciiString {
    fn octet_boundary() -> usize {
        4
    }
    fn min_encoded_len() -> usize {
        4
    }
    fn encode_into(&self, enc: &mut Encoder) {
        enc.write_count(self.0.len());
        enc.write_bytes(&self.0);
    }
    fn decode_from(dec: &mut Decoder<'_>) -> Result<Self, EncoderError> {
        let n = dec.read_count(1)?;
        Ok(AsciiString(dec.read_bytes(n)?.to_vec()))
    }
}

/// HLAopaqueData: count, then the bytes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OpaqueData(pub Vec<u8>);

impl DataElement for OpaqueData {
    fn octet_boundary() -> usize {
        4
    }
    fn min_encoded_len() -> usize {
        4
    }
    fn encode_into(&self, enc: &mut Encoder) {
        enc.write_count(self.0.len());
        enc.write_bytes(&self.0);
    }
    fn decode_from(dec: &mut Decoder<'_>) -> Result<Self, EncoderError> {
        let n = dec.read_count(1)?;
        Ok(OpaqueData(dec.read_bytes(n)?.to_vec()))
    }
}

/// HLAunicodeString: count of UTF-16 code units, then the units big-endian.
impl DataElement for String {
    fn octet_boundary() -> usize {
        4
    }
    fn min_encoded_len() -> usize {
        4
    }
    fn encode_into(&self, enc: &mut Encoder) {
        let units: Vec<u16> = self.encode_utf16().collect();
        enc.write_count(units.len());
        for u in units {
            enc.write_bytes(&u.to_be_bytes());
        }
    }
    fn decode_from(dec: &mut Decoder<'_>) -> Result<Self, EncoderError> {
        let n = dec.read_count(2)?;
        let raw = dec.read_bytes(n * 2)?;
        let units = raw
            .chunks_exact(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]));
        char::decode_utf16(units)
            .collect::<Result<String, _>>()
            .map_err(|e| EncoderError::InvalidString(e.to_string()))
    }
}

/// HLAvariableArray: HLAinteger32BE count, then the elements each on its boundary.
impl<T: DataElement> DataElement for Vec<T> {
    fn octet_boundary() -> usize {
        T::octet_boundary().max(4)
    }
    fn min_encoded_len() -> usize {
        4
    }
    fn encode_into(&self, enc: &mut Encoder) {
        enc.write_count(self.len());
        for e in self {
            enc.put(e);
        }
    }
    fn decode_from(dec: &mut Decoder<'_>) -> Result<Self, EncoderError> {
        let n = dec.read_count(T::min_encoded_len())?;
        let mut out = Vec::with_capacity(n.min(4096));
        for _ in 0..n {
            out.push(dec.get()?);
        }
        Ok(out)
    }
}

/// HLAfixedArray: the elements each on its boundary, no count.
impl<T: DataElement, const N: usize> DataElement for [T; N] {
    fn octet_boundary() -> usize {
        T::octet_boundary()
    }
    fn min_encoded_len() -> usize {
        T::min_encoded_len().saturating_mul(N)
    }
    fn encode_into(&self, enc: &mut Encoder) {
        for (i, e) in self.iter().enumerate() {
            if i > 0 {
                enc.align(T::octet_boundary());
            }
            e.encode_into(enc);
        }
    }
    fn decode_from(dec: &mut Decoder<'_>) -> Result<Self, EncoderError> {
        let mut v = Vec::with_capacity(N.min(4096));
        for _ in 0..N {
            v.push(dec.get()?);
        }
        v.try_into().map_err(|_| EncoderError::WrongElementCount {
            type_name: "fixed array".into(),
            expected: N,
            got: 0,
        })
    }
}

/// Declares a Rust enum for an HLA enumerated type and implements [`DataElement`] for it.
///
/// ```
/// hlamesh_core::hla_enumeration! {
///     /// Possible activities of waiters.
///     pub enum WaiterTasks: i32 {
///         TakingOrder = 1, Serving = 2, Cleaning = 3, CalculatingBill = 4, Other = 5,
///     }
/// }
/// use hlamesh_core::encoding::DataElement;
/// assert_eq!(WaiterTasks::Serving.encode(), vec![0, 0, 0, 2]);
/// ```
#[macro_export]
macro_rules! hla_enumeration {
    ($(#[$doc:meta])* $vis:vis enum $name:ident : $repr:ty { $($(#[$vdoc:meta])* $variant:ident = $value:expr),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $name { $($(#[$vdoc])* $variant),+ }

        impl $name {
            /// The enumerator's value.
            pub fn value(self) -> $repr {
                match self { $($name::$variant => $value),+ }
            }
            /// The enumerator with this value.
            pub fn from_value(v: $repr) -> Option<Self> {
                $(if v == $value { return Some($name::$variant); })+
                None
            }
        }

        impl $crate::encoding::DataElement for $name {
            fn octet_boundary() -> usize {
                <$repr as $crate::encoding::DataElement>::octet_boundary()
            }
            fn min_encoded_len() -> usize {
                <$repr as $crate::encoding::DataElement>::min_encoded_len()
            }
            fn encode_into(&self, enc: &mut $crate::encoding::Encoder) {
                $crate::encoding::DataElement::encode_into(&self.value(), enc)
            }
            fn decode_from(
                dec: &mut $crate::encoding::Decoder<'_>,
            ) -> Result<Self, $crate::encoding::EncoderError> {
                let v = <$repr as $crate::encoding::DataElement>::decode_from(dec)?;
                Self::from_value(v)
                    .ok_or($crate::encoding::EncoderError::InvalidEnumerator(v as i64))
            }
        }
    };
}

/// Declares a Rust struct for an HLA fixed record and implements [`DataElement`] for it:
/// fields in order, each padded to its own boundary, no trailing padding.
///
/// ```
/// hlamesh_core::hla_fixed_record! {
///     pub struct Sample { pub a: u8, pub b: f64 }
/// }
/// use hlamesh_core::encoding::DataElement;
/// assert_eq!(Sample { a: 1, b: 0.0 }.encode().len(), 16); // 1 + 7 padding + 8
/// ```
#[macro_export]
macro_rules! hla_fixed_record {
    ($(#[$doc:meta])* $vis:vis struct $name:ident { $($(#[$fdoc:meta])* $fvis:vis $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq)]
        $vis struct $name { $($(#[$fdoc])* $fvis $field: $ty),* }

        impl $crate::encoding::DataElement for $name {
            fn octet_boundary() -> usize {
                1 $(.max(<$ty as $crate::encoding::DataElement>::octet_boundary()))*
            }
            fn min_encoded_len() -> usize {
                0 $(+ <$ty as $crate::encoding::DataElement>::min_encoded_len())*
            }
            fn encode_into(&self, enc: &mut $crate::encoding::Encoder) {
                $(enc.put(&self.$field);)*
            }
            fn decode_from(
                dec: &mut $crate::encoding::Decoder<'_>,
            ) -> Result<Self, $crate::encoding::EncoderError> {
                Ok($name { $($field: dec.get()?),* })
            }
        }
    };
}

/// Declares a Rust enum for an HLA variant record whose discriminant is an
/// [`crate::hla_enumeration!`] type, and implements [`DataElement`]: the discriminant, padding
/// to the alternative's boundary, then the alternative. Each variant carries its alternative's
/// value; use [`Token`] for an empty alternative (it encodes as nothing). Each variant is
/// selected by one enumerator; discriminants no variant lists decode as
/// [`EncoderError::InvalidDiscriminant`] (for `HLAother`, implement the trait by hand).
///
/// ```
/// hlamesh_core::hla_enumeration! { pub enum Kind: u8 { Num = 1, Nothing = 2 } }
/// hlamesh_core::hla_variant_record! {
///     pub enum Item: Kind {
///         Number(f64) = Kind::Num,
///         Empty(hlamesh_core::encoding::Token) = Kind::Nothing,
///     }
/// }
/// use hlamesh_core::encoding::DataElement;
/// assert_eq!(Item::Number(1.0).encode().len(), 16); // 1 + 7 padding + 8
/// assert_eq!(Item::Empty(hlamesh_core::encoding::Token).encode(), vec![2]);
/// ```
#[macro_export]
macro_rules! hla_variant_record {
    ($(#[$doc:meta])* $vis:vis enum $name:ident : $disc:ty { $($(#[$vdoc:meta])* $variant:ident ( $ty:ty ) = $dv:expr),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq)]
        $vis enum $name { $($(#[$vdoc])* $variant($ty)),+ }

        impl $crate::encoding::DataElement for $name {
            fn octet_boundary() -> usize {
                <$disc as $crate::encoding::DataElement>::octet_boundary()
                    $(.max(<$ty as $crate::encoding::DataElement>::octet_boundary()))+
            }
            fn min_encoded_len() -> usize {
                <$disc as $crate::encoding::DataElement>::min_encoded_len()
            }
            fn encode_into(&self, enc: &mut $crate::encoding::Encoder) {
                match self {
                    $($name::$variant(v) => {
                        enc.put(&$dv);
                        enc.put(v);
                    })+
                }
            }
            fn decode_from(
                dec: &mut $crate::encoding::Decoder<'_>,
            ) -> Result<Self, $crate::encoding::EncoderError> {
                let d: $disc = dec.get()?;
                $(if d == $dv {
                    return Ok($name::$variant(dec.get()?));
                })+
                Err($crate::encoding::EncoderError::InvalidDiscriminant(d.value() as i64))
            }
        }
    };
}
