//! A FOM module of test data types, and typed Rust twins of the same types.
#![allow(dead_code)]

use hlamesh_core::encoding::{DataElement, Decoder, Encoder, EncoderError};
use hlamesh_core::fom::{Fdd, FomModule};

pub const TEST_TYPES: &str = r#"<?xml version="1.0"?>
<objectModel xmlns="http://standards.ieee.org/IEEE1516-2010">
<dataTypes>
<enumeratedDataTypes>
  <enumeratedData><name>Color</name><representation>HLAoctet</representation>
    <enumerator><name>Red</name><value>1</value></enumerator>
    <enumerator><name>Green</name><value>2</value></enumerator>
    <enumerator><name>Blue</name><value>3</value></enumerator>
  </enumeratedData>
</enumeratedDataTypes>
<arrayDataTypes>
  <arrayData><name>F64OctetList</name><dataType>F64Octet</dataType><cardinality>Dynamic</cardinality><encoding>HLAvariableArray</encoding></arrayData>
  <arrayData><name>F64OctetTriple</name><dataType>F64Octet</dataType><cardinality>3</cardinality><encoding>HLAfixedArray</encoding></arrayData>
  <arrayData><name>InnerList</name><dataType>Inner</dataType><cardinality>Dynamic</cardinality><encoding>HLAvariableArray</encoding></arrayData>
  <arrayData><name>OuterList</name><dataType>Outer</dataType><cardinality>Dynamic</cardinality><encoding>HLAvariableArray</encoding></arrayData>
  <arrayData><name>Int16Tail</name><dataType>HLAinteger16BE</dataType><cardinality>Dynamic</cardinality><encoding>RPRlengthlessArray</encoding></arrayData>
  <arrayData><name>Pad32</name><dataType>HLAoctet</dataType><cardinality>Dynamic</cardinality><encoding>RPRpaddingTo32Array</encoding></arrayData>
  <arrayData><name>Pad64</name><dataType>HLAoctet</dataType><cardinality>Dynamic</cardinality><encoding>RPRpaddingTo64Array</encoding></arrayData>
  <arrayData><name>CName</name><dataType>HLAASCIIchar</dataType><cardinality>Dynamic</cardinality><encoding>RPRnullTerminatedArray</encoding></arrayData>
  <arrayData><name>Int16Grid</name><dataType>HLAinteger16BE</dataType><cardinality>2,3</cardinality><encoding>HLAfixedArray</encoding></arrayData>
</arrayDataTypes>
<fixedRecordDataTypes>
  <fixedRecordData><name>OctetI64</name><encoding>HLAfixedRecord</encoding>
    <field><name>a</name><dataType>HLAoctet</dataType></field>
    <field><name>b</name><dataType>HLAinteger64BE</dataType></field></fixedRecordData>
  <fixedRecordData><name>F64Octet</name><encoding>HLAfixedRecord</encoding>
    <field><name>b</name><dataType>HLAfloat64BE</dataType></field>
    <field><name>a</name><dataType>HLAoctet</dataType></field></fixedRecordData>
  <fixedRecordData><name>Inner</name><encoding>HLAfixedRecord</encoding>
    <field><name>x</name><dataType>HLAinteger16BE</dataType></field>
    <field><name>y</name><dataType>HLAfloat64BE</dataType></field></fixedRecordData>
  <fixedRecordData><name>Outer</name><encoding>HLAfixedRecord</encoding>
    <field><name>tag</name><dataType>HLAoctet</dataType></field>
    <field><name>items</name><dataType>InnerList</dataType></field></fixedRecordData>
  <fixedRecordData><name>LittleEndians</name><encoding>HLAfixedRecord</encoding>
    <field><name>a</name><dataType>HLAinteger16LE</dataType></field>
    <field><name>b</name><dataType>HLAfloat32LE</dataType></field>
    <field><name>c</name><dataType>HLAoctetPairLE</dataType></field>
    <field><name>d</name><dataType>HLAinteger64LE</dataType></field>
    <field><name>e</name><dataType>HLAfloat64LE</dataType></field>
    <field><name>f</name><dataType>HLAinteger32LE</dataType></field></fixedRecordData>
  <fixedRecordData><name>RprStyle</name><encoding>HLAfixedRecord</encoding>
    <field><name>a</name><dataType>HLAoctet</dataType></field>
    <field><name>pad</name><dataType>Pad32</dataType></field>
    <field><name>id</name><dataType>CName</dataType></field>
    <field><name>pad8</name><dataType>Pad64</dataType></field>
    <field><name>tail</name><dataType>Int16Tail</dataType></field></fixedRecordData>
  <fixedRecordData><name>Texts</name><encoding>HLAfixedRecord</encoding>
    <field><name>ascii</name><dataType>HLAASCIIstring</dataType></field>
    <field><name>unicode</name><dataType>HLAunicodeString</dataType></field>
    <field><name>opaque</name><dataType>HLAopaqueData</dataType></field>
    <field><name>flag</name><dataType>HLAboolean</dataType></field>
    <field><name>token</name><dataType>HLAtoken</dataType></field>
    <field><name>ch</name><dataType>HLAunicodeChar</dataType></field></fixedRecordData>
</fixedRecordDataTypes>
<variantRecordDataTypes>
  <variantRecordData><name>Shade</name><discriminant>color</discriminant><dataType>Color</dataType>
    <alternative><enumerator>Red</enumerator><name>intensity</name><dataType>HLAfloat64BE</dataType></alternative>
    <alternative><enumerator>Green</enumerator><name>nothing</name><dataType>NA</dataType></alternative>
    <alternative><enumerator>Blue</enumerator><name>label</name><dataType>HLAASCIIstring</dataType></alternative>
    <encoding>HLAvariantRecord</encoding></variantRecordData>
  <variantRecordData><name>ShadeOrOther</name><discriminant>color</discriminant><dataType>Color</dataType>
    <alternative><enumerator>[Red .. Green]</enumerator><name>warm</name><dataType>HLAinteger16BE</dataType></alternative>
    <alternative><enumerator>HLAother</enumerator><name>rest</name><dataType>HLAoctet</dataType></alternative>
    <encoding>HLAvariantRecord</encoding></variantRecordData>
</variantRecordDataTypes>
</dataTypes>
</objectModel>
"#;

pub fn test_fdd() -> Fdd {
    Fdd::load(&[FomModule::parse("TestTypes.xml", TEST_TYPES).expect("test types parse")])
        .expect("test types merge")
}

hlamesh_core::hla_enumeration! {
    pub enum Color: u8 { Red = 1, Green = 2, Blue = 3 }
}

hlamesh_core::hla_fixed_record! {
    pub struct OctetI64 { pub a: u8, pub b: i64 }
}

hlamesh_core::hla_fixed_record! {
    pub struct F64Octet { pub b: f64, pub a: u8 }
}

hlamesh_core::hla_fixed_record! {
    pub struct Inner { pub x: i16, pub y: f64 }
}

hlamesh_core::hla_fixed_record! {
    pub struct Outer { pub tag: u8, pub items: Vec<Inner> }
}

hlamesh_core::hla_fixed_record! {
    pub struct LittleEndians {
        pub a: hlamesh_core::encoding::Integer16LE,
        pub b: hlamesh_core::encoding::Float32LE,
        pub c: hlamesh_core::encoding::OctetPairLE,
        pub d: hlamesh_core::encoding::Integer64LE,
        pub e: hlamesh_core::encoding::Float64LE,
        pub f: hlamesh_core::encoding::Integer32LE,
    }
}

hlamesh_core::hla_fixed_record! {
    pub struct Texts {
        pub ascii: hlamesh_core::encoding::AsciiString,
        pub unicode: String,
        pub opaque: hlamesh_core::encoding::OpaqueData,
        pub flag: bool,
        pub token: hlamesh_core::encoding::Token,
        pub ch: hlamesh_core::encoding::UnicodeChar,
    }
}

/// The `Shade` variant record, written by hand as the typed API expects.
#[derive(Debug, Clone, PartialEq)]
pub enum Shade {
    Red(f64),
    Green,
    Blue(hlamesh_core::encoding::AsciiString),
}

impl DataElement for Shade {
    fn octet_boundary() -> usize {
        // max(discriminant 1, f64 8, HLAASCIIstring 4)
        8
    }
    fn min_encoded_len() -> usize {
        1
    }
    fn encode_into(&self, enc: &mut Encoder) {
        match self {
            Shade::Red(v) => {
                enc.put(&Color::Red);
                enc.put(v);
            }
            Shade::Green => enc.put(&Color::Green),
            Shade::Blue(s) => {
                enc.put(&Color::Blue);
                enc.put(s);
            }
        }
    }
    fn decode_from(dec: &mut Decoder<'_>) -> Result<Self, EncoderError> {
        Ok(match dec.get::<Color>()? {
            Color::Red => Shade::Red(dec.get()?),
            Color::Green => Shade::Green,
            Color::Blue => Shade::Blue(dec.get()?),
        })
    }
}

hlamesh_core::hla_variant_record! {
    /// The same `Shade` variant record, declared with the macro.
    pub enum ShadeM: Color {
        Red(f64) = Color::Red,
        Green(hlamesh_core::encoding::Token) = Color::Green,
        Blue(hlamesh_core::encoding::AsciiString) = Color::Blue,
    }
}

hlamesh_core::hla_variant_record! {
    /// Only two of Color's enumerators select an alternative.
    pub enum RedOrGreen: Color {
        Red(i16) = Color::Red,
        Green(hlamesh_core::encoding::Token) = Color::Green,
    }
}

impl From<&Shade> for ShadeM {
    fn from(s: &Shade) -> Self {
        match s {
            Shade::Red(v) => ShadeM::Red(*v),
            Shade::Green => ShadeM::Green(hlamesh_core::encoding::Token),
            Shade::Blue(a) => ShadeM::Blue(a.clone()),
        }
    }
}
