//! HLA data encoding (IEEE 1516.2 §4.13; `docs/HLA-SEMANTICS.md`, "Data encoding"): the byte layout
//! of every basic type, enumeration, array and record, with the octet-boundary padding rule — each
//! element starts on its own boundary counted from the start of the encoded value, no trailing
//! padding, a 4-byte count before variable arrays and none before fixed arrays.
//!
//! Two APIs produce the same bytes:
//! * [`typed`]: Rust types implementing [`DataElement`] (numbers, strings, `Vec`, arrays, and
//!   the [`crate::hla_enumeration!`] / [`crate::hla_fixed_record!`] macros) for application code;
//! * [`dynamic`]: any FDD data type, decoded into a self-describing [`Value`], for monitors and
//!   loggers; [`crate::fom::Fdd::decode_attribute`] and friends use it.
//!
//! Decoding is for untrusted bytes: every read is bounds-checked, element counts are checked
//! against the bytes left before anything is allocated, and failures are [`EncoderError`]s.
//! The dynamic decoder also follows at most [`MAX_TYPE_DEPTH`](crate::fom::MAX_TYPE_DEPTH)
//! levels of nested types and produces at most a fixed number of values per input byte
//! ([`dynamic::MAX_VALUES_PER_BYTE`]), so neither a crafted value nor a type table that did not
//! come from the FDD loader can exhaust its stack, memory or time.

mod buffer;
pub mod dynamic;
mod error;
pub mod typed;

pub use buffer::{Decoder, Encoder, MAX_ZERO_SIZE_ELEMENTS};
pub use dynamic::Value;
pub use error::EncoderError;
pub use typed::*;
