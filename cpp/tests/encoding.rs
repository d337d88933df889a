//! The C++ encoding helpers against the Rust encoder (`hlamesh_lrc::encoding`): the same values
//! encode to the same bytes, the C++ side decodes the Rust bytes, every class round-trips, and
//! short or malformed input throws `EncoderException` (also under AddressSanitizer and UBSan).

mod common;

use hlamesh_lrc::encoding::{
    AsciiChar, AsciiString, DataElement, Float32BE, Float32LE, Float64BE, Float64LE, Integer16BE,
    Integer16LE, Integer32BE, Integer32LE, Integer64BE, Integer64LE, OctetPairBE, OctetPairLE,
    OpaqueData, Token, UnicodeChar,
};

hlamesh_lrc::hla_fixed_record! {
    struct Mixed { a: u8, b: f64, c: i16, d: AsciiString, e: bool }
}
hlamesh_lrc::hla_fixed_record! {
    struct Pair { a: u8, b: i32 }
}
hlamesh_lrc::hla_fixed_record! {
    struct Nested { n: i16, list: Vec<Pair> }
}
hlamesh_lrc::hla_enumeration! {
    enum Kind: i32 { Num = 1, Text = 2, Nothing = 3 }
}
hlamesh_lrc::hla_variant_record! {
    enum Item: Kind {
        Number(f64) = Kind::Num,
        Text(AsciiString) = Kind::Text,
        Empty(Token) = Kind::Nothing,
    }
}
hlamesh_lrc::hla_enumeration! {
    enum Small: u8 { One = 1 }
}
hlamesh_lrc::hla_variant_record! {
    enum ByOctet: Small { Value(f64) = Small::One }
}
hlamesh_lrc::hla_fixed_record! {
    struct WithVariant { a: u8, v: Item }
}

fn ascii(s: &str) -> AsciiString {
    AsciiString(s.as_bytes().to_vec())
}

/// The cases of `tests/cpp/encoding.cpp`, encoded by the Rust encoder.
fn rust_vectors() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("i16be", Integer16BE(-2).encode()),
        ("i16le", Integer16LE(0x1234).encode()),
        ("i32be", Integer32BE(-123_456_789).encode()),
        ("i32le", Integer32LE(0x0102_0304).encode()),
        ("i64be", Integer64BE(-0x0102_0304_0506_0708).encode()),
        ("i64le", Integer64LE(0x0102_0304_0506_0708).encode()),
        ("f32be", Float32BE(1.5).encode()),
        ("f32le", Float32LE(-0.1).encode()),
        ("f64be", Float64BE(std::f64::consts::PI).encode()),
        ("f64le", Float64LE(-2.5e-300).encode()),
        ("octet", 0xABu8.encode()),
        ("byte", 0x7Fu8.encode()),
        ("asciichar", AsciiChar(b'A').encode()),
        ("bool_true", true.encode()),
        ("bool_false", false.encode()),
        ("octetpair_be", OctetPairBE(0x1234).encode()),
        ("octetpair_le", OctetPairLE(0x1234).encode()),
        ("unicodechar", UnicodeChar(0xE9).encode()),
        ("asciistring", ascii("hello, HLA").encode()),
        (
            "asciistring_latin1",
            AsciiString::new("\u{e9}t\u{e9}")
                .expect("Latin-1 text")
                .encode(),
        ),
        ("unicodestring", "Grüße, 😀".to_string().encode()),
        ("unicodestring_empty", String::new().encode()),
        ("opaque", OpaqueData(vec![1, 2, 3, 0xFF]).encode()),
        ("fixedarray_i16", [1i16, -1, 300].encode()),
        (
            "fixedarray_f64le",
            [Float64LE(0.5), Float64LE(-1e10)].encode(),
        ),
        ("vararray_i64", vec![1i64, -2].encode()),
        ("vararray_empty", Vec::<i64>::new().encode()),
        ("vararray_octet", vec![0u8, 10, 20, 30, 40].encode()),
        ("vararray_strings", vec![ascii("a"), ascii("bcd")].encode()),
        ("vararray_i16", vec![7i16, 8, 9].encode()),
        (
            "record_mixed",
            Mixed {
                a: 1,
                b: 2.5,
                c: 7,
                d: ascii("ab"),
                e: true,
            }
            .encode(),
        ),
        (
            "record_nested",
            Nested {
                n: 5,
                list: vec![Pair { a: 1, b: 100 }, Pair { a: 2, b: -100 }],
            }
            .encode(),
        ),
        ("variant_float", Item::Number(6.25).encode()),
        ("variant_text", Item::Text(ascii("xyz")).encode()),
        ("variant_nothing", Item::Empty(Token).encode()),
        ("variant_octet_disc", ByOctet::Value(1.0).encode()),
        (
            "record_with_variant",
            WithVariant {
                a: 9,
                v: Item::Number(6.25),
            }
            .encode(),
        ),
    ]
}

fn compare(what: &str, rust: &[(&str, Vec<u8>)], cpp: &str) {
    let cpp = common::parse_lines(cpp);
    let mut mismatches = Vec::new();
    for (name, bytes) in rust {
        match cpp.iter().find(|(n, _)| n == name) {
            Some((_, hex)) if *hex == common::hex(bytes) => {}
            Some((_, hex)) => {
                mismatches.push(format!("{name}: Rust {} C++ {hex}", common::hex(bytes)))
            }
            None => mismatches.push(format!("{name}: no C++ output")),
        }
    }
    assert_eq!(
        cpp.len(),
        rust.len(),
        "{what}: the C++ program has cases the Rust test does not know"
    );
    assert!(
        mismatches.is_empty(),
        "{what}: C++ and Rust bytes differ:\n{}",
        mismatches.join("\n")
    );
}

#[test]
fn cpp_encodes_the_same_bytes_as_the_rust_encoder() {
    let exe = common::build_program("encoding", "c++17");
    let rust = rust_vectors();
    compare("encode", &rust, &common::run_program(&exe, &["encode"], ""));
}

#[test]
fn cpp_decodes_the_rust_encoders_bytes() {
    let exe = common::build_program("encoding", "c++20");
    let rust = rust_vectors();
    let input: String = rust
        .iter()
        .map(|(n, b)| format!("{n} {}\n", common::hex(b)))
        .collect();
    compare(
        "decode + re-encode",
        &rust,
        &common::run_program(&exe, &["decode"], &input),
    );
}

#[test]
fn cpp_round_trips_and_refuses_short_and_malformed_input() {
    let exe = common::build_program("encoding", "c++17");
    let out = common::run_program(&exe, &["check"], "");
    assert_eq!(out.trim(), "ok");
}

/// The same checks with the library's sources compiled into the program under AddressSanitizer
/// and UndefinedBehaviorSanitizer, so a read past a buffer's end fails the test even where it
/// would not crash.
#[test]
fn malformed_input_is_memory_safe_under_sanitizers() {
    let dir = common::work_dir("sanitized");
    let exe = dir.join("encoding-asan");
    let mut args: Vec<String> = vec![
        "-std=c++17".into(),
        "-g".into(),
        "-O1".into(),
        "-fsanitize=address,undefined".into(),
        "-fno-sanitize-recover=all".into(),
        "-I".into(),
        hlamesh_cpp::include_dir().display().to_string(),
        "-I".into(),
        hlamesh_cpp::crate_dir().join("src").display().to_string(),
        common::program_dir()
            .join("encoding.cpp")
            .display()
            .to_string(),
    ];
    for src in hlamesh_cpp::RTI_SOURCES {
        args.push(hlamesh_cpp::crate_dir().join(src).display().to_string());
    }
    args.extend(["-o".into(), exe.display().to_string()]);
    common::compile(&args).unwrap_or_else(|e| panic!("sanitizer build failed:\n{e}"));
    let out = common::run_program(&exe, &["check"], "");
    assert_eq!(out.trim(), "ok");
}
