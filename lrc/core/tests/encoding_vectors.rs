//! Known byte vectors for the HLA encoding rules (`docs/HLA-SEMANTICS.md`, "Data encoding"),
//! through the typed API and the FOM-driven dynamic API, which must agree byte for byte.
#![allow(clippy::unwrap_used)]

mod common;

use common::types::*;
use hlamesh_core::encoding::*;
use hlamesh_core::fom::Fdd;

/// Typed encoding == expected == dynamic encoding of the dynamic decoding; both decode back.
fn check<T: DataElement + PartialEq + std::fmt::Debug>(
    fdd: &Fdd,
    type_name: &str,
    v: &T,
    expected: &[u8],
) {
    let bytes = v.encode();
    assert_eq!(bytes, expected, "typed encoding of {type_name}");
    assert_eq!(
        &T::decode(&bytes).unwrap(),
        v,
        "typed round trip of {type_name}"
    );
    let value = fdd.decode_value(type_name, &bytes).unwrap();
    assert_eq!(
        fdd.encode_value(type_name, &value).unwrap(),
        expected,
        "dynamic encoding of {type_name}: {value}"
    );
}

#[test]
fn basic_types() {
    let fdd = test_fdd();
    check(&fdd, "HLAinteger16BE", &-2i16, &[0xff, 0xfe]);
    check(&fdd, "HLAinteger16LE", &Integer16LE(-2), &[0xfe, 0xff]);
    check(&fdd, "HLAinteger32BE", &0x0102_0304i32, &[1, 2, 3, 4]);
    check(
        &fdd,
        "HLAinteger32LE",
        &Integer32LE(0x0102_0304),
        &[4, 3, 2, 1],
    );
    check(&fdd, "HLAinteger64BE", &1i64, &[0, 0, 0, 0, 0, 0, 0, 1]);
    check(
        &fdd,
        "HLAinteger64LE",
        &Integer64LE(1),
        &[1, 0, 0, 0, 0, 0, 0, 0],
    );
    check(&fdd, "HLAfloat32BE", &1.0f32, &[0x3f, 0x80, 0, 0]);
    check(&fdd, "HLAfloat32LE", &Float32LE(1.0), &[0, 0, 0x80, 0x3f]);
    check(
        &fdd,
        "HLAfloat64BE",
        &1.0f64,
        &[0x3f, 0xf0, 0, 0, 0, 0, 0, 0],
    );
    check(
        &fdd,
        "HLAfloat64LE",
        &Float64LE(1.0),
        &[0, 0, 0, 0, 0, 0, 0xf0, 0x3f],
    );
    check(&fdd, "HLAoctet", &0xabu8, &[0xab]);
    check(&fdd, "HLAbyte", &0xabu8, &[0xab]);
    check(&fdd, "HLAoctetPairBE", &OctetPairBE(0x1234), &[0x12, 0x34]);
    check(&fdd, "HLAoctetPairLE", &OctetPairLE(0x1234), &[0x34, 0x12]);
    check(&fdd, "HLAASCIIchar", &AsciiChar(b'A'), &[0x41]);
    check(&fdd, "HLAunicodeChar", &UnicodeChar(0x20ac), &[0x20, 0xac]);
    check(&fdd, "HLAboolean", &true, &[0, 0, 0, 1]);
    check(&fdd, "HLAboolean", &false, &[0, 0, 0, 0]);
    check(
        &fdd,
        "HLAASCIIstring",
        &AsciiString::new("ab").unwrap(),
        &[0, 0, 0, 2, b'a', b'b'],
    );
    check(
        &fdd,
        "HLAunicodeString",
        &"é€".to_string(),
        &[0, 0, 0, 2, 0x00, 0xe9, 0x20, 0xac],
    );
    // A character outside the BMP is a surrogate pair: two code units.
    check(
        &fdd,
        "HLAunicodeString",
        &"𝄞".to_string(),
        &[0, 0, 0, 2, 0xd8, 0x34, 0xdd, 0x1e],
    );
    check(
        &fdd,
        "HLAopaqueData",
        &OpaqueData(vec![9, 8, 7]),
        &[0, 0, 0, 3, 9, 8, 7],
    );
    check(&fdd, "HLAtoken", &Token, &[]);
    check(&fdd, "HLAinteger64Time", &-1i64, &[0xff; 8]);
    check(
        &fdd,
        "HLAhandle",
        &OpaqueData(vec![0, 0, 0, 7]),
        &[0, 0, 0, 4, 0, 0, 0, 7],
    );
    assert_eq!(
        fdd.decode_value("HLAASCIIstring", &[0, 0, 0, 2, b'h', 0xe9])
            .unwrap(),
        Value::String("hé".into())
    );
    assert!(AsciiString::new("€").is_err());
}

#[test]
fn record_padding() {
    let fdd = test_fdd();
    // {HLAoctet; HLAinteger64BE}: 1 + 7 padding + 8.
    check(
        &fdd,
        "OctetI64",
        &OctetI64 {
            a: 0xaa,
            b: 0x0102030405060708,
        },
        &[0xaa, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8],
    );
    // {HLAfloat64BE; HLAoctet}: 9 bytes, no trailing padding.
    let r = F64Octet { b: 1.0, a: 5 };
    let rb = [0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 5];
    check(&fdd, "F64Octet", &r, &rb);
    // A variable array of two: count 4 + pad 4 + 9 + pad 7 + 9 = 33.
    let mut expected = vec![0, 0, 0, 2, 0, 0, 0, 0];
    expected.extend(rb);
    expected.extend([0; 7]);
    expected.extend(rb);
    assert_eq!(expected.len(), 33);
    check(&fdd, "F64OctetList", &vec![r.clone(), r.clone()], &expected);
    // An empty variable array is the count alone.
    check(&fdd, "F64OctetList", &Vec::<F64Octet>::new(), &[0, 0, 0, 0]);
    // A fixed array of three: no count, 9 + 7 + 9 + 7 + 9 = 41.
    let mut fixed = Vec::new();
    fixed.extend(rb);
    fixed.extend([0; 7]);
    fixed.extend(rb);
    fixed.extend([0; 7]);
    fixed.extend(rb);
    check(&fdd, "F64OctetTriple", &[r.clone(), r.clone(), r], &fixed);
    // A two-dimensional fixed array is its elements in order.
    check(
        &fdd,
        "Int16Grid",
        &[1i16, 2, 3, 4, 5, 6],
        &[0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6],
    );
}

#[test]
fn nested_records_in_variable_arrays() {
    let fdd = test_fdd();
    let v = vec![
        Outer {
            tag: 1,
            items: vec![Inner { x: 2, y: 0.5 }],
        },
        Outer {
            tag: 3,
            items: vec![],
        },
    ];
    #[rustfmt::skip]
    let expected: Vec<u8> = vec![
        0, 0, 0, 2,                   // outer count
        0, 0, 0, 0,                   // pad to 8 (Outer's boundary: InnerList → Inner → f64)
        1,                            // tag
        0, 0, 0, 0, 0, 0, 0,          // pad to 8 for InnerList
        0, 0, 0, 1,                   // inner count
        0, 0, 0, 0,                   // pad to 8
        0, 2,                         // x
        0, 0, 0, 0, 0, 0,             // pad to 8
        0x3f, 0xe0, 0, 0, 0, 0, 0, 0, // y = 0.5
        3,                            // second Outer at offset 40 (already aligned): tag
        0, 0, 0, 0, 0, 0, 0,          // pad
        0, 0, 0, 0,                   // empty InnerList: count only
    ];
    check(&fdd, "OuterList", &v, &expected);
    let value = fdd.decode_value("OuterList", &expected).unwrap();
    assert_eq!(
        value.to_string(),
        "[{tag: 1, items: [{x: 2, y: 0.5}]}, {tag: 3, items: []}]"
    );
}

#[test]
fn little_endian_record_and_texts() {
    let fdd = test_fdd();
    let le = LittleEndians {
        a: Integer16LE(1),
        b: Float32LE(1.0),
        c: OctetPairLE(0x0102),
        d: Integer64LE(-2),
        e: Float64LE(2.0),
        f: Integer32LE(3),
    };
    #[rustfmt::skip]
    let expected = [
        1, 0, 0, 0,                 // a, pad to 4
        0, 0, 0x80, 0x3f,           // b
        2, 1, 0, 0, 0, 0, 0, 0,     // c, pad to 8
        0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // d
        0, 0, 0, 0, 0, 0, 0, 0x40,  // e
        3, 0, 0, 0,                 // f
    ];
    check(&fdd, "LittleEndians", &le, &expected);
    let t = Texts {
        ascii: AsciiString::new("a").unwrap(),
        unicode: "b".into(),
        opaque: OpaqueData(vec![1, 2]),
        flag: true,
        token: Token,
        ch: UnicodeChar(0x41),
    };
    #[rustfmt::skip]
    let expected = [
        0, 0, 0, 1, b'a', 0, 0, 0,  // ascii + pad to 4
        0, 0, 0, 1, 0, b'b', 0, 0,  // unicode + pad
        0, 0, 0, 2, 1, 2, 0, 0,     // opaque + pad
        0, 0, 0, 1,                 // flag; token is empty
        0, 0x41,                    // ch
    ];
    check(&fdd, "Texts", &t, &expected);
}

#[test]
fn variant_records() {
    let fdd = test_fdd();
    // Discriminant (1 byte), pad to the alternative's boundary (8), then the alternative.
    check(
        &fdd,
        "Shade",
        &Shade::Red(1.0),
        &[1, 0, 0, 0, 0, 0, 0, 0, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0],
    );
    // An empty alternative: the discriminant alone.
    check(&fdd, "Shade", &Shade::Green, &[2]);
    check(
        &fdd,
        "Shade",
        &Shade::Blue(AsciiString::new("x").unwrap()),
        &[3, 0, 0, 0, 0, 0, 0, 1, b'x'],
    );
    let red = fdd
        .decode_value(
            "Shade",
            &[1, 0, 0, 0, 0, 0, 0, 0, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0],
        )
        .unwrap();
    assert_eq!(red.to_string(), "<Red(1)> intensity: 1");
    // Ranges and HLAother.
    assert_eq!(
        fdd.encode_value(
            "ShadeOrOther",
            &fdd.decode_value("ShadeOrOther", &[2, 0, 0, 7]).unwrap()
        )
        .unwrap(),
        [2, 0, 0, 7]
    );
    let other = fdd.decode_value("ShadeOrOther", &[9, 4]).unwrap();
    assert_eq!(other.to_string(), "<?(9)> rest: 4");
    // No alternative for the value and no HLAother.
    assert_eq!(
        fdd.decode_value("Shade", &[7]),
        Err(EncoderError::InvalidDiscriminant(7))
    );
    assert_eq!(Shade::decode(&[7]), Err(EncoderError::InvalidEnumerator(7)));
}

#[test]
fn restaurant_variant_record_with_hlaother_token() {
    let fdd = Fdd::load_files(&[common::fom("RestaurantProcesses.xml")]).unwrap();
    // Trainee (0) → HLAboolean.
    let v = fdd
        .decode_value("WaiterValue", &[0, 0, 0, 0, 0, 0, 0, 1])
        .unwrap();
    assert_eq!(v.to_string(), "<Trainee(0)> CoursePassed: true");
    // Senior (3) is in [Apprentice .. Senior] → RateScale.
    let v = fdd
        .decode_value("WaiterValue", &[0, 0, 0, 3, 0, 0, 0, 9])
        .unwrap();
    assert_eq!(v.to_string(), "<Senior(3)> Rating: 9");
    // Temporary (4) → HLAother → HLAtoken, which encodes as nothing.
    let v = fdd.decode_value("WaiterValue", &[0, 0, 0, 4]).unwrap();
    assert_eq!(v.to_string(), "<Temporary(4)> Other: 0x");
    assert_eq!(fdd.encode_value("WaiterValue", &v).unwrap(), [0, 0, 0, 4]);
    // Through the attribute and parameter lookups.
    let waiter = fdd.object_class_handle("Waiter").unwrap();
    let efficiency = fdd.attribute_handle(waiter, "Efficiency").unwrap();
    assert_eq!(
        fdd.encode_attribute(waiter, efficiency, &v).unwrap(),
        [0, 0, 0, 4]
    );
    assert_eq!(
        fdd.decode_attribute(waiter, efficiency, &[0, 0, 0, 4])
            .unwrap(),
        v
    );
    let served = fdd.interaction_class_handle("MainCourseServed").unwrap();
    let timely = fdd.parameter_handle(served, "TimlinessOk").unwrap();
    assert_eq!(
        fdd.encode_parameter(served, timely, &Value::Boolean(true))
            .unwrap(),
        [0, 0, 0, 1]
    );
    assert_eq!(
        fdd.decode_parameter(served, timely, &[0, 0, 0, 0]).unwrap(),
        Value::Boolean(false)
    );
    let employee = fdd.object_class_handle("Employee").unwrap();
    assert!(
        fdd.decode_attribute(employee, efficiency, &[0, 0, 0, 4])
            .is_err()
    );
    // A user-defined array encoding is reported, not guessed.
    assert!(matches!(
        fdd.decode_value("AddressBook", &[0, 0, 0, 0]),
        Err(EncoderError::UnsupportedEncoding { .. })
    ));
}

#[test]
fn rpr_spatial_fpw() {
    let fdd = Fdd::load_files(&common::RPR.map(common::fom)).unwrap();
    let be = fdd.object_class_handle("BaseEntity").unwrap();
    let spatial = fdd.attribute_handle(be, "Spatial").unwrap();
    let mut bytes = vec![2u8, 0, 0, 0, 0, 0, 0, 0]; // DRM_FPW, pad to 8
    for x in [1.0f64, 2.0, 3.0] {
        bytes.extend(x.to_be_bytes());
    }
    bytes.extend([1, 0, 0, 0]); // IsFrozen True, pad to 4
    for x in [0.5f32, 0.25, 0.125, 10.0, 20.0, 30.0] {
        bytes.extend(x.to_be_bytes());
    }
    assert_eq!(bytes.len(), 60);
    let v = fdd.decode_attribute(be, spatial, &bytes).unwrap();
    assert_eq!(
        v.to_string(),
        "<DRM_FPW(2)> SpatialFPW: {WorldLocation: {X: 1, Y: 2, Z: 3}, IsFrozen: True(1), \
         Orientation: {Psi: 0.5, Theta: 0.25, Phi: 0.125}, \
         VelocityVector: {XVelocity: 10, YVelocity: 20, ZVelocity: 30}}"
    );
    assert_eq!(fdd.encode_value("SpatialVariantStruct", &v).unwrap(), bytes);
}

#[test]
fn malformed_input_gives_typed_errors() {
    let fdd = test_fdd();
    assert!(matches!(
        i32::decode(&[0, 0, 1]),
        Err(EncoderError::Truncated {
            needed: 4,
            available: 3,
            ..
        })
    ));
    assert_eq!(
        bool::decode(&[0, 0, 0, 2]),
        Err(EncoderError::InvalidBoolean(2))
    );
    assert_eq!(
        fdd.decode_value("HLAboolean", &[0, 0, 0, 2]),
        Err(EncoderError::InvalidBoolean(2))
    );
    assert_eq!(
        OpaqueData::decode(&[0xff, 0xff, 0xff, 0xff]),
        Err(EncoderError::NegativeLength(-1))
    );
    // A huge count with few bytes behind it is refused before allocating.
    assert_eq!(
        Vec::<i64>::decode(&[0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0]),
        Err(EncoderError::LengthTooLarge {
            count: 0x7fff_ffff,
            remaining: 4
        })
    );
    assert!(matches!(
        fdd.decode_value("OuterList", &[0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0]),
        Err(EncoderError::LengthTooLarge { .. })
    ));
    assert_eq!(i16::decode(&[0, 1, 2]), Err(EncoderError::TrailingBytes(1)));
    assert!(matches!(
        String::decode(&[0, 0, 0, 1, 0xd8, 0x00]),
        Err(EncoderError::InvalidString(_))
    ));
    assert!(matches!(
        fdd.decode_value("HLAunicodeString", &[0, 0, 0, 1, 0xdc, 0x00]),
        Err(EncoderError::InvalidString(_))
    ));
    assert_eq!(Color::decode(&[9]), Err(EncoderError::InvalidEnumerator(9)));
    // Dynamic encoding checks the value against the type.
    assert!(matches!(
        fdd.encode_value("HLAinteger16BE", &Value::Signed(70_000)),
        Err(EncoderError::ValueOutOfRange { .. })
    ));
    assert!(matches!(
        fdd.encode_value("HLAoctet", &Value::Signed(1)),
        Err(EncoderError::TypeMismatch { .. })
    ));
    assert!(matches!(
        fdd.encode_value("F64OctetTriple", &Value::Array(vec![])),
        Err(EncoderError::WrongElementCount {
            expected: 3,
            got: 0,
            ..
        })
    ));
    assert!(matches!(
        fdd.decode_value("NoSuchType", &[]),
        Err(EncoderError::UnknownDataType(_))
    ));
}

#[test]
fn rpr_user_defined_array_encodings() {
    let fdd = test_fdd();
    let bytes = [7, 0, 0, 0, b'a', b'b', 0, 0, 0, 1, 0, 2];
    let v = fdd.decode_value("RprStyle", &bytes).unwrap();
    assert_eq!(
        v.to_string(),
        "{a: 7, pad: 0x000000, id: \"ab\", pad8: 0x00, tail: [1, 2]}"
    );
    assert_eq!(fdd.encode_value("RprStyle", &v).unwrap(), bytes);
    // id ends at offset 8 here: pad8 is empty.
    let bytes = [7, 0, 0, 0, b'a', b'b', b'c', 0, 0, 9];
    let v = fdd.decode_value("RprStyle", &bytes).unwrap();
    assert_eq!(
        v.to_string(),
        "{a: 7, pad: 0x000000, id: \"abc\", pad8: 0x, tail: [9]}"
    );
    assert_eq!(fdd.encode_value("RprStyle", &v).unwrap(), bytes);
    let bytes2 = [7, 0, 0, 0, b'a', 0, 0, 0, 0, 9];
    let v = fdd.decode_value("RprStyle", &bytes2).unwrap();
    assert_eq!(
        v.to_string(),
        "{a: 7, pad: 0x000000, id: \"a\", pad8: 0x0000, tail: [9]}"
    );
    // Missing terminator, odd tail, wrong padding length.
    assert!(matches!(
        fdd.decode_value("CName", b"abc"),
        Err(EncoderError::Truncated { .. })
    ));
    assert!(matches!(
        fdd.decode_value("Int16Tail", &[0, 1, 2]),
        Err(EncoderError::Truncated { .. })
    ));
    assert!(matches!(
        fdd.encode_value("CName", &Value::String("a\u{0}b".into())),
        Err(EncoderError::InvalidString(_))
    ));
    assert!(matches!(
        fdd.encode_value("Pad32", &Value::Bytes(vec![0])),
        Err(EncoderError::WrongElementCount {
            expected: 0,
            got: 1,
            ..
        })
    ));
    // RPR's own RTIobjectId.
    let rpr = Fdd::load_files(&common::RPR.map(common::fom)).unwrap();
    assert_eq!(
        rpr.decode_value("RTIobjectId", b"Tank-1\0").unwrap(),
        Value::String("Tank-1".into())
    );
}

#[test]
fn variant_record_macro() {
    let fdd = test_fdd();
    check(
        &fdd,
        "Shade",
        &ShadeM::Red(1.0),
        &[1, 0, 0, 0, 0, 0, 0, 0, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0],
    );
    check(&fdd, "Shade", &ShadeM::Green(Token), &[2]);
    assert_eq!(ShadeM::octet_boundary(), 8);
    assert_eq!(RedOrGreen::octet_boundary(), 2);
    assert_eq!(RedOrGreen::Red(-1).encode(), [1, 0, 0xff, 0xff]);
    assert_eq!(
        RedOrGreen::decode(&[3]),
        Err(EncoderError::InvalidDiscriminant(3))
    );
    assert_eq!(
        RedOrGreen::decode(&[9]),
        Err(EncoderError::InvalidEnumerator(9))
    );
}
