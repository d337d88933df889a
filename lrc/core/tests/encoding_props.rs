//! Property tests: every type round-trips through both APIs, the typed and dynamic APIs agree
//! byte for byte, and decoding arbitrary bytes never panics.
#![allow(clippy::unwrap_used)]

mod common;

use common::types::*;
use common::{Rng, cases};
use hlamesh_core::encoding::*;
use hlamesh_core::fom::module::BasicKind;
use hlamesh_core::fom::types::{ArrayLayout, ElementFlavor};
use hlamesh_core::fom::{DataTypeTable, Fdd, FomModule, ResolvedKind, TypeId};
use proptest::prelude::*;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: cases(128),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Typed round trip, plus agreement with the dynamic API on the same bytes.
fn typed_case<T: DataElement + PartialEq + std::fmt::Debug>(fdd: &Fdd, type_name: &str, v: &T) {
    let bytes = v.encode();
    assert_eq!(&T::decode(&bytes).unwrap(), v);
    let dynamic = fdd.decode_value(type_name, &bytes).unwrap();
    assert_eq!(
        fdd.encode_value(type_name, &dynamic).unwrap(),
        bytes,
        "{type_name}: {dynamic}"
    );
}

fn finite64() -> impl Strategy<Value = f64> {
    any::<f64>().prop_filter("finite", |x| x.is_finite())
}

fn finite32() -> impl Strategy<Value = f32> {
    any::<f32>().prop_filter("finite", |x| x.is_finite())
}

fn inner() -> impl Strategy<Value = Inner> {
    (any::<i16>(), finite64()).prop_map(|(x, y)| Inner { x, y })
}

fn outer() -> impl Strategy<Value = Outer> {
    (any::<u8>(), prop::collection::vec(inner(), 0..4))
        .prop_map(|(tag, items)| Outer { tag, items })
}

fn f64_octet() -> impl Strategy<Value = F64Octet> {
    (finite64(), any::<u8>()).prop_map(|(b, a)| F64Octet { b, a })
}

fn shade() -> impl Strategy<Value = Shade> {
    prop_oneof![
        finite64().prop_map(Shade::Red),
        Just(Shade::Green),
        prop::collection::vec(any::<u8>(), 0..8).prop_map(|b| Shade::Blue(AsciiString(b))),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn basic_types_round_trip(
        a in any::<i16>(), b in any::<i32>(), c in any::<i64>(), d in finite32(), e in finite64(),
        f in any::<u8>(), g in any::<u16>(), h in any::<bool>(), s in ".*",
        bytes in prop::collection::vec(any::<u8>(), 0..32),
    ) {
        let fdd = &fdds()[0];
        typed_case(fdd, "HLAinteger16BE", &a);
        typed_case(fdd, "HLAinteger16LE", &Integer16LE(a));
        typed_case(fdd, "HLAinteger32BE", &b);
        typed_case(fdd, "HLAinteger32LE", &Integer32LE(b));
        typed_case(fdd, "HLAinteger64BE", &c);
        typed_case(fdd, "HLAinteger64LE", &Integer64LE(c));
        typed_case(fdd, "HLAfloat32BE", &d);
        typed_case(fdd, "HLAfloat32LE", &Float32LE(d));
        typed_case(fdd, "HLAfloat64BE", &e);
        typed_case(fdd, "HLAfloat64LE", &Float64LE(e));
        typed_case(fdd, "HLAoctet", &f);
        typed_case(fdd, "HLAbyte", &f);
        typed_case(fdd, "HLAASCIIchar", &AsciiChar(f));
        typed_case(fdd, "HLAoctetPairBE", &g);
        typed_case(fdd, "HLAoctetPairLE", &OctetPairLE(g));
        typed_case(fdd, "HLAunicodeChar", &UnicodeChar(g));
        typed_case(fdd, "HLAboolean", &h);
        typed_case(fdd, "HLAunicodeString", &s);
        typed_case(fdd, "HLAASCIIstring", &AsciiString(bytes.clone()));
        typed_case(fdd, "HLAopaqueData", &OpaqueData(bytes));
        typed_case(fdd, "HLAtoken", &Token);
    }

    #[test]
    fn records_arrays_and_variants_round_trip(
        list in prop::collection::vec(outer(), 0..4),
        triple in [f64_octet(), f64_octet(), f64_octet()],
        v in prop::collection::vec(f64_octet(), 0..5),
        s in shade(),
        le in (any::<i16>(), finite32(), any::<u16>(), any::<i64>(), finite64(), any::<i32>()),
    ) {
        let fdd = &fdds()[0];
        typed_case(fdd, "OuterList", &list);
        typed_case(fdd, "F64OctetTriple", &triple);
        typed_case(fdd, "F64OctetList", &v);
        typed_case(fdd, "Shade", &s);
        typed_case(fdd, "Shade", &ShadeM::from(&s));
        prop_assert_eq!(ShadeM::from(&s).encode(), s.encode());
        typed_case(fdd, "LittleEndians", &LittleEndians {
            a: Integer16LE(le.0), b: Float32LE(le.1), c: OctetPairLE(le.2),
            d: Integer64LE(le.3), e: Float64LE(le.4), f: Integer32LE(le.5),
        });
    }

    /// Random values of every data type in the MIM, Restaurant, RPR and test FDDs round-trip
    /// through the dynamic API; for the test types, the typed API reads the same bytes back.
    #[test]
    fn every_fdd_type_round_trips_dynamically(seed in any::<u64>()) {
        let mut rng = Rng::seeded(seed);
        for fdd in fdds() {
            let types = fdd.data_types();
            let mut generated = 0;
            for (id, t) in types.iter() {
                let Some(v) = gen_value(types, id, &mut rng, 0) else { continue };
                generated += 1;
                let bytes = hlamesh_core::encoding::dynamic::encode(types, id, &v)
                    .unwrap_or_else(|e| panic!("{}: {e} for {v}", t.name));
                let back = hlamesh_core::encoding::dynamic::decode(types, id, &bytes)
                    .unwrap_or_else(|e| panic!("{}: {e} for {v}", t.name));
                prop_assert_eq!(&back, &v, "{}", t.name);
                match t.name.as_str() {
                    "OuterList" => prop_assert_eq!(Vec::<Outer>::decode(&bytes).unwrap().encode(), bytes),
                    "Shade" => prop_assert_eq!(Shade::decode(&bytes).unwrap().encode(), bytes),
                    "LittleEndians" => prop_assert_eq!(LittleEndians::decode(&bytes).unwrap().encode(), bytes),
                    "F64OctetTriple" => prop_assert_eq!(<[F64Octet; 3]>::decode(&bytes).unwrap().encode(), bytes),
                    _ => {}
                }
            }
            // Only user-defined encodings and huge fixed arrays are skipped.
            prop_assert!(generated * 10 >= types.len() * 9, "{generated} of {}", types.len());
        }
    }

    /// Arbitrary bytes decode to a value or a typed error, never a panic, for every type.
    #[test]
    fn decoding_arbitrary_bytes_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..96)) {
        for fdd in fdds() {
            let types = fdd.data_types();
            for (id, _) in types.iter() {
                if let Ok(v) = hlamesh_core::encoding::dynamic::decode(types, id, &bytes) {
                    // Whatever decodes re-encodes to the same bytes, padding aside.
                    let again = hlamesh_core::encoding::dynamic::encode(types, id, &v).unwrap();
                    prop_assert_eq!(again.len(), bytes.len());
                }
            }
        }
        let _ = Vec::<Outer>::decode(&bytes);
        let _ = Shade::decode(&bytes);
        let _ = String::decode(&bytes);
        let _ = <[F64Octet; 3]>::decode(&bytes);
    }
}

fn fdds() -> &'static [Fdd] {
    static FDDS: std::sync::OnceLock<Vec<Fdd>> = std::sync::OnceLock::new();
    FDDS.get_or_init(|| {
        let restaurant = common::RESTAURANT.map(common::module);
        let rpr = common::RPR.map(common::module);
        vec![
            test_fdd(),
            Fdd::load(&restaurant).unwrap(),
            Fdd::load(&rpr).unwrap(),
            Fdd::load(&[FomModule::standard_mim()]).unwrap(),
        ]
    })
}

fn gen_value(types: &DataTypeTable, id: TypeId, rng: &mut Rng, depth: usize) -> Option<Value> {
    let t = types.get(id)?;
    if depth > 32 {
        return None;
    }
    Some(match &t.kind {
        ResolvedKind::Basic { bytes, kind, .. } => {
            let bits = 8 * *bytes as u32;
            let raw = rng.next_u64();
            match (kind, bytes) {
                (_, 0) => return None,
                (BasicKind::Float, 4) => {
                    let f = f32::from_bits(raw as u32);
                    Value::Float(f64::from(if f.is_finite() { f } else { 1.5 }))
                }
                (BasicKind::Float, _) => {
                    let f = f64::from_bits(raw);
                    Value::Float(if f.is_finite() { f } else { -2.5 })
                }
                (BasicKind::Unsigned, _) => Value::Unsigned(if bits == 64 {
                    raw
                } else {
                    raw & ((1 << bits) - 1)
                }),
                (BasicKind::Signed, _) => {
                    let shift = 64 - bits;
                    Value::Signed(((raw << shift) as i64) >> shift)
                }
            }
        }
        ResolvedKind::Simple { representation } => {
            gen_value(types, *representation, rng, depth + 1)?
        }
        ResolvedKind::Enumerated {
            enumerators,
            boolean,
            ..
        } => {
            if *boolean {
                Value::Boolean(rng.next_u64() & 1 == 1)
            } else {
                enumerator_value(enumerators, rng.below(enumerators.len()))?
            }
        }
        ResolvedKind::Array {
            element,
            layout,
            flavor,
        } => {
            let n = match layout {
                ArrayLayout::Fixed(n) if *n <= 64 => *n,
                ArrayLayout::Variable => rng.below(4),
                ArrayLayout::NullTerminated => {
                    let n = rng.below(6);
                    let bytes: Vec<u8> = (0..n).map(|_| (rng.next_u64() % 255) as u8 + 1).collect();
                    return Some(match flavor {
                        ElementFlavor::AsciiChar => {
                            Value::String(bytes.iter().map(|&b| char::from(b)).collect())
                        }
                        _ => Value::Bytes(bytes),
                    });
                }
                // Context-dependent layouts (end of value, current offset) are covered by vectors.
                ArrayLayout::Fixed(_)
                | ArrayLayout::Lengthless
                | ArrayLayout::PaddingTo(_)
                | ArrayLayout::UserDefined(_) => return None,
            };
            match flavor {
                ElementFlavor::Octet => {
                    Value::Bytes((0..n).map(|_| rng.next_u64() as u8).collect())
                }
                ElementFlavor::AsciiChar => {
                    Value::String((0..n).map(|_| char::from(rng.next_u64() as u8)).collect())
                }
                ElementFlavor::UnicodeChar => {
                    // n UTF-16 units: BMP characters outside the surrogate range.
                    let s: String = (0..n)
                        .map(|_| char::from_u32((rng.next_u64() % 0xd000) as u32).unwrap_or('x'))
                        .collect();
                    Value::String(s)
                }
                ElementFlavor::Plain => Value::Array(
                    (0..n)
                        .map(|_| gen_value(types, *element, rng, depth + 1))
                        .collect::<Option<Vec<_>>>()?,
                ),
            }
        }
        ResolvedKind::FixedRecord {
            user_encoding: Some(_),
            ..
        }
        | ResolvedKind::VariantRecord {
            user_encoding: Some(_),
            ..
        } => return None,
        ResolvedKind::FixedRecord { fields, .. } => Value::Record(
            fields
                .iter()
                .map(|(n, f)| Some((n.clone(), gen_value(types, *f, rng, depth + 1)?)))
                .collect::<Option<Vec<_>>>()?,
        ),
        ResolvedKind::VariantRecord {
            discriminant_type,
            alternatives,
            ..
        } => {
            let ResolvedKind::Enumerated {
                enumerators,
                boolean,
                ..
            } = &types.get(*discriminant_type)?.kind
            else {
                return None;
            };
            for _ in 0..8 {
                let (disc, value) = if *boolean {
                    let b = rng.next_u64() & 1 == 1;
                    (Value::Boolean(b), i64::from(b))
                } else {
                    let i = rng.below(enumerators.len());
                    let v = enumerator_value(enumerators, i)?;
                    (v, enumerators[i].1)
                };
                let alt = alternatives
                    .iter()
                    .find(|a| a.values.iter().any(|(lo, hi)| *lo <= value && value <= *hi))
                    .or_else(|| alternatives.iter().find(|a| a.other));
                let Some(alt) = alt else { continue };
                let alternative = match alt.data_type {
                    Some(aty) => Some((
                        alt.name.clone(),
                        Box::new(gen_value(types, aty, rng, depth + 1)?),
                    )),
                    None => None,
                };
                return Some(Value::Variant {
                    discriminant: Box::new(disc),
                    alternative,
                });
            }
            return None;
        }
    })
}

/// The i-th enumerator as the decoder would name it (the first enumerator with that value).
fn enumerator_value(enumerators: &[(std::sync::Arc<str>, i64)], i: usize) -> Option<Value> {
    let value = enumerators.get(i)?.1;
    let name = enumerators
        .iter()
        .find(|(_, v)| *v == value)
        .map(|(n, _)| n.clone());
    Some(Value::Enumerator { name, value })
}
