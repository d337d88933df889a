//! The dynamic API: encode and decode any value of any FDD data type, driven by the type
//! description alone — for monitors, loggers and `hlamesh fom show`. Produces exactly the bytes
//! the typed API produces for the same type (the tests check this byte for byte).

use std::fmt;
use std::sync::Arc;

use super::buffer::{Decoder, Encoder, MAX_ZERO_SIZE_ELEMENTS};
use super::error::EncoderError;
use crate::fom::MAX_TYPE_DEPTH;
use crate::fom::module::{BasicKind, Endian};
use crate::fom::types::{ArrayLayout, DataTypeTable, ElementFlavor, ResolvedKind, TypeId};

/// A self-describing decoded value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A signed integer basic type (or simple type on one).
    Signed(i64),
    /// An unsigned basic type: HLAoctet, octet pairs, user-defined unsigned integers.
    Unsigned(u64),
    /// HLAfloat32/64 (a 32-bit float is widened exactly).
    Float(f64),
    /// HLAboolean.
    Boolean(bool),
    /// An enumerator: its value, and its name when the type defines that value.
    Enumerator {
        /// Name, `None` for a value the type does not list (kept rather than refused, so
        /// monitors can show newer enumerators).
        name: Option<Arc<str>>,
        /// Value.
        value: i64,
    },
    /// An array of HLAASCIIchar or HLAunicodeChar.
    String(String),
    /// An array of HLAoctet or HLAbyte (e.g. HLAopaqueData).
    Bytes(Vec<u8>),
    /// Any other array.
    Array(Vec<Value>),
    /// A fixed record: fields in order.
    Record(Vec<(Arc<str>, Value)>),
    /// A variant record: discriminant, then the selected alternative's name and value (`None`
    /// for an empty alternative).
    Variant {
        /// The discriminant (an [`Value::Enumerator`]).
        discriminant: Box<Value>,
        /// The alternative.
        alternative: Option<(Arc<str>, Box<Value>)>,
    },
}

impl Value {
    fn kind(&self) -> &'static str {
        match self {
            Value::Signed(_) => "a signed integer",
            Value::Unsigned(_) => "an unsigned integer",
            Value::Float(_) => "a float",
            Value::Boolean(_) => "a boolean",
            Value::Enumerator { .. } => "an enumerator",
            Value::String(_) => "a string",
            Value::Bytes(_) => "bytes",
            Value::Array(_) => "an array",
            Value::Record(_) => "a record",
            Value::Variant { .. } => "a variant",
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Signed(v) => write!(f, "{v}"),
            Value::Unsigned(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v}"),
            Value::Boolean(v) => write!(f, "{v}"),
            Value::Enumerator {
                name: Some(n),
                value,
            } => write!(f, "{n}({value})"),
            Value::Enumerator { name: None, value } => write!(f, "?({value})"),
            Value::String(s) => write!(f, "{s:?}"),
            Value::Bytes(b) => {
                write!(f, "0x")?;
                b.iter().try_for_each(|x| write!(f, "{x:02x}"))
            }
            Value::Array(items) => {
                write!(f, "[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{v}")?;
                }
                write!(f, "]")
            }
            Value::Record(fields) => {
                write!(f, "{{")?;
                for (i, (n, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{n}: {v}")?;
                }
                write!(f, "}}")
            }
            Value::Variant {
                discriminant,
                alternative,
            } => match alternative {
                Some((n, v)) => write!(f, "<{discriminant}> {n}: {v}"),
                None => write!(f, "<{discriminant}>"),
            },
        }
    }
}

/// Decodes a whole buffer as a value of type `ty`; trailing bytes are an error.
pub fn decode(types: &DataTypeTable, ty: TypeId, bytes: &[u8]) -> Result<Value, EncoderError> {
    let mut d = Decoder::new(bytes);
    let v = decode_from(types, ty, &mut d)?;
    d.finish()?;
    Ok(v)
}

/// Encodes a value of type `ty` into its own buffer.
pub fn encode(types: &DataTypeTable, ty: TypeId, value: &Value) -> Result<Vec<u8>, EncoderError> {
    let mut e = Encoder::new();
    encode_into(types, ty, value, &mut e)?;
    Ok(e.into_bytes())
}

fn lookup(types: &DataTypeTable, ty: TypeId) -> Result<&crate::fom::ResolvedType, EncoderError> {
    types
        .get(ty)
        .ok_or_else(|| EncoderError::UnknownDataType(format!("#{}", ty.0)))
}

fn boundary(types: &DataTypeTable, ty: TypeId) -> usize {
    types.get(ty).map_or(1, |t| t.boundary)
}

fn min_len(types: &DataTypeTable, ty: TypeId) -> usize {
    types.get(ty).map_or(0, |t| t.min_len)
}

fn read_basic(
    d: &mut Decoder<'_>,
    name: &str,
    bytes: usize,
    endian: Endian,
    kind: BasicKind,
) -> Result<Value, EncoderError> {
    if bytes == 0 {
        return Err(EncoderError::UnsupportedEncoding {
            type_name: name.into(),
            encoding: "a basic size other than 8, 16, 32 or 64 bits".into(),
        });
    }
    let raw = d.read_bytes(bytes)?;
    let mut word = [0u8; 8];
    match endian {
        Endian::Big => word[8 - bytes..].copy_from_slice(raw),
        Endian::Little => {
            for (i, b) in raw.iter().enumerate() {
                word[7 - i] = *b;
            }
        }
    }
    let u = u64::from_be_bytes(word);
    Ok(match kind {
        BasicKind::Unsigned => Value::Unsigned(u),
        BasicKind::Signed => {
            let shift = 64 - 8 * bytes as u32;
            Value::Signed(((u << shift) as i64) >> shift)
        }
        BasicKind::Float if bytes == 4 => Value::Float(f64::from(f32::from_bits(u as u32))),
        BasicKind::Float => Value::Float(f64::from_bits(u)),
    })
}

fn write_basic(
    e: &mut Encoder,
    name: &str,
    bytes: usize,
    endian: Endian,
    kind: BasicKind,
    v: &Value,
) -> Result<(), EncoderError> {
    if bytes == 0 {
        return Err(EncoderError::UnsupportedEncoding {
            type_name: name.into(),
            encoding: "a basic size other than 8, 16, 32 or 64 bits".into(),
        });
    }
    let out_of_range = |s: String| EncoderError::ValueOutOfRange {
        value: s,
        type_name: name.into(),
    };
    let bits = 8 * bytes as u32;
    let word: u64 = match (kind, v) {
        (BasicKind::Float, Value::Float(x)) if bytes == 4 => u64::from((*x as f32).to_bits()),
        (BasicKind::Float, Value::Float(x)) => x.to_bits(),
        (BasicKind::Signed, Value::Signed(x)) => {
            let (lo, hi) = if bits == 64 {
                (i64::MIN, i64::MAX)
            } else {
                (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
            };
            if *x < lo || *x > hi {
                return Err(out_of_range(x.to_string()));
            }
            *x as u64
        }
        (BasicKind::Unsigned, Value::Unsigned(x)) => {
            if bits < 64 && *x >> bits != 0 {
                return Err(out_of_range(x.to_string()));
            }
            *x
        }
        _ => {
            return Err(EncoderError::TypeMismatch {
                type_name: name.into(),
                value_kind: v.kind().into(),
            });
        }
    };
    let be = word.to_be_bytes();
    let used = &be[8 - bytes..];
    match endian {
        Endian::Big => e.write_bytes(used),
        Endian::Little => {
            for b in used.iter().rev() {
                e.write_u8(*b);
            }
        }
    }
    Ok(())
}

/// Reads a value of type `ty` at the decoder's position (the caller has aligned it).
///
/// Bounded for untrusted bytes and for any type table: it follows at most
/// [`MAX_TYPE_DEPTH`] levels of nested types ([`EncoderError::TooDeep`] past that), and
/// produces at most [`MAX_ZERO_SIZE_ELEMENTS`] plus [`MAX_VALUES_PER_BYTE`] values per byte
/// left in the decoder ([`EncoderError::TooManyValues`] past that).
pub fn decode_from(
    types: &DataTypeTable,
    ty: TypeId,
    d: &mut Decoder<'_>,
) -> Result<Value, EncoderError> {
    let values_left = d
        .remaining()
        .saturating_mul(MAX_VALUES_PER_BYTE)
        .saturating_add(MAX_ZERO_SIZE_ELEMENTS);
    let mut reader = Reader {
        types,
        values_left,
        limit: values_left,
    };
    reader.value(ty, d, 0)
}

/// Most values a decode may produce per byte of its input, on top of
/// [`MAX_ZERO_SIZE_ELEMENTS`]; every number, string, byte string, array, record and variant
/// counts one. Elements that encode in zero bytes (empty records, arrays of them) are counted
/// by the FOM alone, which may give them fixed cardinalities of 2^32 and nest them; this bound
/// keeps the time and memory a crafted value can cost proportional to its length. Ordinary
/// values produce well under one value per byte (the densest, arrays of one-byte records,
/// about two).
pub const MAX_VALUES_PER_BYTE: usize = 8;

/// One decode: the type table and what the value may still cost.
struct Reader<'t> {
    types: &'t DataTypeTable,
    /// Values this decode may still produce.
    values_left: usize,
    /// The budget it started with (for the error).
    limit: usize,
}

impl Reader<'_> {
    /// Counts one produced value against the budget.
    fn spend(&mut self) -> Result<(), EncoderError> {
        self.values_left = self
            .values_left
            .checked_sub(1)
            .ok_or(EncoderError::TooManyValues { limit: self.limit })?;
        Ok(())
    }

    /// One value of type `ty`, `depth` references below the type the decode started with.
    fn value(
        &mut self,
        ty: TypeId,
        d: &mut Decoder<'_>,
        depth: usize,
    ) -> Result<Value, EncoderError> {
        self.spend()?;
        self.uncounted(ty, d, depth)
    }

    /// A value of type `ty` whose cost the caller has counted (a simple or enumerated type
    /// reads its representation as part of its own one value).
    fn uncounted(
        &mut self,
        ty: TypeId,
        d: &mut Decoder<'_>,
        depth: usize,
    ) -> Result<Value, EncoderError> {
        let types = self.types;
        let t = lookup(types, ty)?;
        if depth > MAX_TYPE_DEPTH {
            return Err(EncoderError::TooDeep {
                type_name: t.name.clone(),
                limit: MAX_TYPE_DEPTH,
            });
        }
        let below = depth + 1;
        match &t.kind {
            ResolvedKind::Basic {
                bytes,
                endian,
                kind,
            } => read_basic(d, &t.name, *bytes, *endian, *kind),
            ResolvedKind::Simple { representation } => self.uncounted(*representation, d, below),
            ResolvedKind::Enumerated {
                representation,
                enumerators,
                boolean,
            } => {
                let value = match self.uncounted(*representation, d, below)? {
                    Value::Signed(v) => v,
                    Value::Unsigned(v) => i64::try_from(v).unwrap_or(i64::MAX),
                    Value::Float(v) => v as i64,
                    _ => 0,
                };
                if *boolean {
                    return match value {
                        0 => Ok(Value::Boolean(false)),
                        1 => Ok(Value::Boolean(true)),
                        v => Err(EncoderError::InvalidBoolean(v)),
                    };
                }
                let name = enumerators
                    .iter()
                    .find(|(_, v)| *v == value)
                    .map(|(n, _)| n.clone());
                Ok(Value::Enumerator { name, value })
            }
            ResolvedKind::Array {
                element,
                layout,
                flavor,
            } => {
                let count = match layout {
                    ArrayLayout::Fixed(n) => {
                        // A fixed count comes from the FOM, but still cannot exceed the input.
                        let m = min_len(types, *element);
                        if m > 0 && n.saturating_mul(m) > d.remaining() {
                            return Err(EncoderError::Truncated {
                                offset: d.position(),
                                needed: n.saturating_mul(m),
                                available: d.remaining(),
                            });
                        }
                        *n
                    }
                    ArrayLayout::Variable => {
                        let n = d.read_count(min_len(types, *element))?;
                        if n > 0 {
                            d.align(boundary(types, *element))?;
                        }
                        n
                    }
                    ArrayLayout::NullTerminated => {
                        return decode_null_terminated(
                            &t.name,
                            octet_flavor(types, *element, *flavor),
                            d,
                        );
                    }
                    ArrayLayout::PaddingTo(n) => {
                        let pad = (*n - d.position() % *n) % *n;
                        return Ok(Value::Bytes(d.read_bytes(pad)?.to_vec()));
                    }
                    ArrayLayout::Lengthless => {
                        let eb = boundary(types, *element);
                        let mut items = Vec::new();
                        while d.remaining() > 0 {
                            let before = d.position();
                            if !items.is_empty() {
                                d.align(eb)?;
                            }
                            items.push(self.value(*element, d, below)?);
                            if d.position() == before {
                                // A zero-size element would never reach the end.
                                return Err(EncoderError::UnsupportedEncoding {
                                    type_name: t.name.clone(),
                                    encoding: "RPRlengthlessArray of zero-size elements".into(),
                                });
                            }
                        }
                        return Ok(match flavor {
                            ElementFlavor::Plain => Value::Array(items),
                            _ => flatten_flavored(&t.name, *flavor, items)?,
                        });
                    }
                    ArrayLayout::UserDefined(enc) => {
                        return Err(EncoderError::UnsupportedEncoding {
                            type_name: t.name.clone(),
                            encoding: enc.clone(),
                        });
                    }
                };
                let eb = boundary(types, *element);
                match flavor {
                    ElementFlavor::Octet => Ok(Value::Bytes(d.read_bytes(count)?.to_vec())),
                    ElementFlavor::AsciiChar => Ok(Value::String(
                        d.read_bytes(count)?
                            .iter()
                            .map(|&b| char::from(b))
                            .collect(),
                    )),
                    ElementFlavor::UnicodeChar => {
                        let raw = d.read_bytes(count.saturating_mul(2))?;
                        let units = raw
                            .chunks_exact(2)
                            .map(|c| u16::from_be_bytes([c[0], c[1]]));
                        char::decode_utf16(units)
                            .collect::<Result<String, _>>()
                            .map(Value::String)
                            .map_err(|e| EncoderError::InvalidString(e.to_string()))
                    }
                    ElementFlavor::Plain => {
                        // Never reserve for more elements than the budget still allows: a count
                        // of zero-size elements is not bounded by the input.
                        let mut items = Vec::with_capacity(count.min(4096).min(self.values_left));
                        for i in 0..count {
                            if i > 0 {
                                d.align(eb)?;
                            }
                            items.push(self.value(*element, d, below)?);
                        }
                        Ok(Value::Array(items))
                    }
                }
            }
            ResolvedKind::FixedRecord {
                user_encoding: Some(enc),
                ..
            }
            | ResolvedKind::VariantRecord {
                user_encoding: Some(enc),
                ..
            } => Err(EncoderError::UnsupportedEncoding {
                type_name: t.name.clone(),
                encoding: enc.clone(),
            }),
            ResolvedKind::FixedRecord { fields, .. } => {
                let mut out = Vec::with_capacity(fields.len().min(self.values_left));
                for (name, fty) in fields {
                    d.align(boundary(types, *fty))?;
                    out.push((name.clone(), self.value(*fty, d, below)?));
                }
                Ok(Value::Record(out))
            }
            ResolvedKind::VariantRecord {
                discriminant_type,
                alternatives,
                ..
            } => {
                let disc = self.value(*discriminant_type, d, below)?;
                let value = match &disc {
                    Value::Enumerator { value, .. } => *value,
                    Value::Boolean(b) => i64::from(*b),
                    _ => 0,
                };
                let alt = alternatives
                    .iter()
                    .find(|a| a.values.iter().any(|(lo, hi)| *lo <= value && value <= *hi))
                    .or_else(|| alternatives.iter().find(|a| a.other))
                    .ok_or(EncoderError::InvalidDiscriminant(value))?;
                let alternative = match alt.data_type {
                    Some(aty) => {
                        d.align(boundary(types, aty))?;
                        Some((alt.name.clone(), Box::new(self.value(aty, d, below)?)))
                    }
                    None => None,
                };
                Ok(Value::Variant {
                    discriminant: Box::new(disc),
                    alternative,
                })
            }
        }
    }
}

/// Writes a value of type `ty` at the encoder's position (the caller has aligned it). Follows
/// at most [`MAX_TYPE_DEPTH`] levels of nested types ([`EncoderError::TooDeep`] past that).
pub fn encode_into(
    types: &DataTypeTable,
    ty: TypeId,
    v: &Value,
    e: &mut Encoder,
) -> Result<(), EncoderError> {
    write_value(types, ty, v, e, 0)
}

/// [`encode_into`] of a value `depth` references below the type the encoding started with.
fn write_value(
    types: &DataTypeTable,
    ty: TypeId,
    v: &Value,
    e: &mut Encoder,
    depth: usize,
) -> Result<(), EncoderError> {
    let t = lookup(types, ty)?;
    if depth > MAX_TYPE_DEPTH {
        return Err(EncoderError::TooDeep {
            type_name: t.name.clone(),
            limit: MAX_TYPE_DEPTH,
        });
    }
    let mismatch = || EncoderError::TypeMismatch {
        type_name: t.name.clone(),
        value_kind: v.kind().into(),
    };
    match &t.kind {
        ResolvedKind::Basic {
            bytes,
            endian,
            kind,
        } => write_basic(e, &t.name, *bytes, *endian, *kind, v),
        ResolvedKind::Simple { representation } => {
            write_value(types, *representation, v, e, depth + 1)
        }
        ResolvedKind::Enumerated {
            representation,
            enumerators,
            boolean,
        } => {
            let value = match (v, boolean) {
                (Value::Boolean(b), true) => i64::from(*b),
                (Value::Enumerator { name, value }, false) => {
                    if let Some(n) = name
                        && !enumerators.iter().any(|(en, ev)| en == n && ev == value)
                    {
                        return Err(EncoderError::InvalidEnumerator(*value));
                    }
                    *value
                }
                _ => return Err(mismatch()),
            };
            let repr = lookup(types, *representation)?;
            let as_basic = match &repr.kind {
                ResolvedKind::Basic {
                    kind: BasicKind::Unsigned,
                    ..
                } => Value::Unsigned(u64::try_from(value).map_err(|_| {
                    EncoderError::ValueOutOfRange {
                        value: value.to_string(),
                        type_name: t.name.clone(),
                    }
                })?),
                ResolvedKind::Basic {
                    kind: BasicKind::Float,
                    ..
                } => Value::Float(value as f64),
                _ => Value::Signed(value),
            };
            write_value(types, *representation, &as_basic, e, depth + 1)
        }
        ResolvedKind::Array {
            element,
            layout,
            flavor,
        } => {
            match layout {
                ArrayLayout::NullTerminated => {
                    return encode_null_terminated(
                        &t.name,
                        octet_flavor(types, *element, *flavor),
                        v,
                        e,
                    );
                }
                ArrayLayout::PaddingTo(n) => {
                    let pad = (*n - e.len() % *n) % *n;
                    return match v {
                        Value::Bytes(b) if b.len() == pad => {
                            e.write_bytes(b);
                            Ok(())
                        }
                        Value::Bytes(b) => Err(EncoderError::WrongElementCount {
                            type_name: t.name.clone(),
                            expected: pad,
                            got: b.len(),
                        }),
                        _ => Err(mismatch()),
                    };
                }
                _ => {}
            }
            let len = match (flavor, v) {
                (ElementFlavor::Octet, Value::Bytes(b)) => b.len(),
                (ElementFlavor::AsciiChar, Value::String(s)) => s.chars().count(),
                (ElementFlavor::UnicodeChar, Value::String(s)) => s.encode_utf16().count(),
                (ElementFlavor::Plain, Value::Array(a)) => a.len(),
                _ => return Err(mismatch()),
            };
            let eb = boundary(types, *element);
            match layout {
                ArrayLayout::Fixed(n) => {
                    if *n != len {
                        return Err(EncoderError::WrongElementCount {
                            type_name: t.name.clone(),
                            expected: *n,
                            got: len,
                        });
                    }
                }
                ArrayLayout::Variable => {
                    if i32::try_from(len).is_err() {
                        return Err(EncoderError::LengthTooLarge {
                            count: len,
                            remaining: i32::MAX as usize,
                        });
                    }
                    e.write_count(len);
                    if len > 0 {
                        e.align(eb);
                    }
                }
                ArrayLayout::Lengthless
                | ArrayLayout::NullTerminated
                | ArrayLayout::PaddingTo(_) => {}
                ArrayLayout::UserDefined(enc) => {
                    return Err(EncoderError::UnsupportedEncoding {
                        type_name: t.name.clone(),
                        encoding: enc.clone(),
                    });
                }
            }
            match v {
                Value::Bytes(b) => e.write_bytes(b),
                Value::String(s) if *flavor == ElementFlavor::AsciiChar => {
                    for c in s.chars() {
                        let b = u8::try_from(c).map_err(|_| {
                            EncoderError::InvalidString(format!("{c:?} is not Latin-1"))
                        })?;
                        e.write_u8(b);
                    }
                }
                Value::String(s) => {
                    for u in s.encode_utf16() {
                        e.write_bytes(&u.to_be_bytes());
                    }
                }
                Value::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            e.align(eb);
                        }
                        write_value(types, *element, item, e, depth + 1)?;
                    }
                }
                _ => return Err(mismatch()),
            }
            Ok(())
        }
        ResolvedKind::FixedRecord {
            user_encoding: Some(enc),
            ..
        }
        | ResolvedKind::VariantRecord {
            user_encoding: Some(enc),
            ..
        } => Err(EncoderError::UnsupportedEncoding {
            type_name: t.name.clone(),
            encoding: enc.clone(),
        }),
        ResolvedKind::FixedRecord { fields, .. } => {
            let Value::Record(values) = v else {
                return Err(mismatch());
            };
            if values.len() != fields.len() {
                return Err(EncoderError::WrongElementCount {
                    type_name: t.name.clone(),
                    expected: fields.len(),
                    got: values.len(),
                });
            }
            for ((fname, fty), (vname, fv)) in fields.iter().zip(values) {
                if fname != vname {
                    return Err(EncoderError::TypeMismatch {
                        type_name: t.name.clone(),
                        value_kind: format!("field {vname} where {fname} belongs"),
                    });
                }
                e.align(boundary(types, *fty));
                write_value(types, *fty, fv, e, depth + 1)?;
            }
            Ok(())
        }
        ResolvedKind::VariantRecord {
            discriminant_type,
            alternatives,
            ..
        } => {
            let Value::Variant {
                discriminant,
                alternative,
            } = v
            else {
                return Err(mismatch());
            };
            let value = match &**discriminant {
                Value::Enumerator { value, .. } => *value,
                Value::Boolean(b) => i64::from(*b),
                _ => return Err(mismatch()),
            };
            let alt = alternatives
                .iter()
                .find(|a| a.values.iter().any(|(lo, hi)| *lo <= value && value <= *hi))
                .or_else(|| alternatives.iter().find(|a| a.other))
                .ok_or(EncoderError::InvalidDiscriminant(value))?;
            write_value(types, *discriminant_type, discriminant, e, depth + 1)?;
            match (alt.data_type, alternative) {
                (None, None) => Ok(()),
                (Some(aty), Some((name, av))) if *name == alt.name => {
                    e.align(boundary(types, aty));
                    write_value(types, aty, av, e, depth + 1)
                }
                _ => Err(EncoderError::TypeMismatch {
                    type_name: t.name.clone(),
                    value_kind: format!(
                        "alternative {:?} where discriminant {value} selects {}",
                        alternative.as_ref().map(|(n, _)| n),
                        alt.name
                    ),
                }),
            }
        }
    }
}

fn decode_null_terminated(
    name: &str,
    flavor: ElementFlavor,
    d: &mut Decoder<'_>,
) -> Result<Value, EncoderError> {
    let mut bytes = Vec::new();
    loop {
        match d.read_bytes(1)?[0] {
            0 => break,
            b => bytes.push(b),
        }
    }
    match flavor {
        ElementFlavor::AsciiChar => Ok(Value::String(
            bytes.iter().map(|&b| char::from(b)).collect(),
        )),
        ElementFlavor::Octet => Ok(Value::Bytes(bytes)),
        _ => Err(EncoderError::UnsupportedEncoding {
            type_name: name.into(),
            encoding: "RPRnullTerminatedArray of elements wider than one octet".into(),
        }),
    }
}

fn encode_null_terminated(
    name: &str,
    flavor: ElementFlavor,
    v: &Value,
    e: &mut Encoder,
) -> Result<(), EncoderError> {
    let bytes: Vec<u8> = match (flavor, v) {
        (ElementFlavor::AsciiChar, Value::String(s)) => s
            .chars()
            .map(|c| {
                u8::try_from(c)
                    .map_err(|_| EncoderError::InvalidString(format!("{c:?} is not Latin-1")))
            })
            .collect::<Result<_, _>>()?,
        (ElementFlavor::Octet, Value::Bytes(b)) => b.clone(),
        _ => {
            return Err(EncoderError::TypeMismatch {
                type_name: name.into(),
                value_kind: v.kind().into(),
            });
        }
    };
    if bytes.contains(&0) {
        return Err(EncoderError::InvalidString(format!(
            "{name} is null-terminated and cannot contain a zero"
        )));
    }
    e.write_bytes(&bytes);
    e.write_u8(0);
    Ok(())
}

/// Lengthless arrays of chars/octets are decoded element by element, then shown like the
/// counted arrays of the same elements.
fn flatten_flavored(
    name: &str,
    flavor: ElementFlavor,
    items: Vec<Value>,
) -> Result<Value, EncoderError> {
    let units: Vec<u64> = items
        .into_iter()
        .map(|v| match v {
            Value::Unsigned(u) => Ok(u),
            other => Err(EncoderError::TypeMismatch {
                type_name: name.into(),
                value_kind: other.kind().into(),
            }),
        })
        .collect::<Result<_, _>>()?;
    Ok(match flavor {
        ElementFlavor::Octet => Value::Bytes(units.iter().map(|&u| u as u8).collect()),
        ElementFlavor::AsciiChar => {
            Value::String(units.iter().map(|&u| char::from(u as u8)).collect())
        }
        _ => Value::String(
            char::decode_utf16(units.iter().map(|&u| u as u16))
                .collect::<Result<String, _>>()
                .map_err(|e| EncoderError::InvalidString(e.to_string()))?,
        ),
    })
}

/// Null-terminated arrays of any one-octet element (e.g. RPR's `Octet`) are byte strings.
fn octet_flavor(types: &DataTypeTable, element: TypeId, flavor: ElementFlavor) -> ElementFlavor {
    match (flavor, types.get(element)) {
        (ElementFlavor::Plain, Some(t)) if t.min_len == 1 && t.boundary == 1 => {
            ElementFlavor::Octet
        }
        _ => flavor,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::fom::types::ResolvedType;

    /// A table the FDD loader would refuse: `levels` variable arrays, each of the previous, over
    /// HLAinteger32BE (type 0). The codec must not trust that every table came from the loader.
    fn deep_table(levels: usize) -> DataTypeTable {
        let mut types = vec![ResolvedType {
            name: "HLAinteger32BE".into(),
            kind: ResolvedKind::Basic {
                bytes: 4,
                endian: Endian::Big,
                kind: BasicKind::Signed,
            },
            boundary: 4,
            min_len: 4,
        }];
        for i in 1..=levels {
            types.push(ResolvedType {
                name: format!("T{i}"),
                kind: ResolvedKind::Array {
                    element: TypeId(i as u32 - 1),
                    layout: ArrayLayout::Variable,
                    flavor: ElementFlavor::Plain,
                },
                boundary: 4,
                min_len: 4,
            });
        }
        DataTypeTable { types }
    }

    #[test]
    fn a_value_deeper_than_the_limit_is_refused_not_a_stack_overflow() {
        // The review's crafted value: 100,000 counts of one, then the integer. Decoding it used
        // to recurse once per level and kill the process on an 8 MB stack; this test thread
        // has 2 MB.
        let levels = 100_000;
        let table = deep_table(levels);
        let mut bytes = [0, 0, 0, 1].repeat(levels);
        bytes.extend([0, 0, 0, 7]);
        let err = decode(&table, TypeId(levels as u32), &bytes).unwrap_err();
        assert_eq!(
            err,
            EncoderError::TooDeep {
                type_name: format!("T{}", levels - MAX_TYPE_DEPTH - 1),
                limit: MAX_TYPE_DEPTH,
            }
        );
        // At the limit it decodes.
        let at_limit = TypeId(MAX_TYPE_DEPTH as u32);
        let mut ok = [0, 0, 0, 1].repeat(MAX_TYPE_DEPTH);
        ok.extend([0, 0, 0, 7]);
        let value = decode(&table, at_limit, &ok).unwrap();
        assert_eq!(encode(&table, at_limit, &value).unwrap(), ok);
    }

    #[test]
    fn encoding_a_value_of_a_too_deep_type_is_refused() {
        // A few levels past the limit: enough to prove the bound without building a value
        // whose own drop would recurse deeply.
        let levels = MAX_TYPE_DEPTH + 10;
        let table = deep_table(levels);
        let mut value = Value::Signed(7);
        for _ in 0..levels {
            value = Value::Array(vec![value]);
        }
        assert!(matches!(
            encode(&table, TypeId(levels as u32), &value),
            Err(EncoderError::TooDeep {
                limit: MAX_TYPE_DEPTH,
                ..
            })
        ));
    }
}
